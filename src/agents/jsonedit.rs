//! Edits of a JSON file that keep every byte memkit does not change: values
//! are found by scanning the text (after `serde_json` checked that it is
//! valid), and members or array elements are inserted or removed as text,
//! in the file's own indentation. Removing what was inserted gives the file
//! back byte for byte.

use std::ops::Range;

/// A member of an object: its key and where its value is.
#[derive(Debug, Clone)]
pub struct Member {
    /// The decoded key.
    pub key: String,
    /// Where the key's opening quote is.
    pub key_start: usize,
    /// The value's bytes.
    pub value: Range<usize>,
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn string_end(s: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// The end of the value starting at `i` (valid JSON assumed).
fn value_end(s: &[u8], i: usize) -> usize {
    match s.get(i) {
        Some(b'"') => string_end(s, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < s.len() {
                match s[j] {
                    b'"' => {
                        j = string_end(s, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            s.len()
        }
        _ => {
            let mut j = i;
            while j < s.len() && !matches!(s[j], b',' | b'}' | b']') && !s[j].is_ascii_whitespace()
            {
                j += 1;
            }
            j
        }
    }
}

/// The span of the document's top-level value.
pub fn root(text: &str) -> Range<usize> {
    let s = text.as_bytes();
    let start = skip_ws(s, 0);
    start..value_end(s, start)
}

/// The members of the object at `span`, in order.
pub fn members(text: &str, span: &Range<usize>) -> Vec<Member> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(s, span.start + 1);
    while i < span.end && s[i] == b'"' {
        let key_end = string_end(s, i);
        let key = serde_json::from_str::<String>(&text[i..key_end]).unwrap_or_default();
        let colon = skip_ws(s, key_end);
        let value_start = skip_ws(s, colon + 1);
        let end = value_end(s, value_start);
        out.push(Member {
            key,
            key_start: i,
            value: value_start..end,
        });
        i = skip_ws(s, end);
        if s.get(i) == Some(&b',') {
            i = skip_ws(s, i + 1);
        }
    }
    out
}

/// The elements of the array at `span`, in order.
pub fn elements(text: &str, span: &Range<usize>) -> Vec<Range<usize>> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(s, span.start + 1);
    while i < span.end - 1 && s[i] != b']' {
        let end = value_end(s, i);
        out.push(i..end);
        i = skip_ws(s, end);
        if s.get(i) == Some(&b',') {
            i = skip_ws(s, i + 1);
        }
    }
    out
}

/// The whitespace before the item that starts at `start` (after the `{`,
/// `[` or `,` in front of it).
fn lead(text: &str, start: usize) -> &str {
    let before = &text[..start];
    let ws = before.len() - before.trim_end().len();
    &text[start - ws..start]
}

/// Indents every line of `value` after the first with the indentation in
/// `lead`, with `lead`'s line end (CRLF files stay CRLF).
fn reindent(value: &str, lead: &str) -> String {
    let indent = lead.rsplit('\n').next().unwrap_or("");
    let eol = if lead.contains("\r\n") { "\r\n" } else { "\n" };
    value.replace('\n', &format!("{eol}{indent}"))
}

/// `text` with `"key": value` added as the last member of the object at `span`.
pub fn insert_member(
    text: &str,
    span: &Range<usize>,
    key: &str,
    value: &serde_json::Value,
) -> String {
    let key_text = serde_json::to_string(key).unwrap_or_default();
    let list = members(text, span);
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    match list.last() {
        Some(last) => {
            let sep = lead(text, last.key_start);
            let member = format!("{key_text}: {}", reindent(&pretty, sep));
            splice(text, last.value.end, &format!(",{sep}{member}"))
        }
        None => {
            let compact = serde_json::to_string(value).unwrap_or_default();
            splice(text, span.start + 1, &format!("{key_text}: {compact}"))
        }
    }
}

/// `text` with `value` appended to the array at `span`.
pub fn push_element(text: &str, span: &Range<usize>, value: &serde_json::Value) -> String {
    let list = elements(text, span);
    match list.last() {
        Some(last) => {
            let sep = lead(text, last.start);
            let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
            splice(text, last.end, &format!(",{sep}{}", reindent(&pretty, sep)))
        }
        None => {
            let compact = serde_json::to_string(value).unwrap_or_default();
            splice(text, span.start + 1, &compact)
        }
    }
}

/// `text` without element `index` of the array at `span` (with the comma
/// and whitespace that joined it to its neighbour).
pub fn remove_element(text: &str, span: &Range<usize>, index: usize) -> String {
    let list = elements(text, span);
    let cut = match (index.checked_sub(1).map(|p| &list[p]), list.get(index + 1)) {
        (Some(prev), _) => prev.end..list[index].end,
        (None, Some(next)) => list[index].start..next.start,
        (None, None) => list[index].clone(),
    };
    format!("{}{}", &text[..cut.start], &text[cut.end..])
}

/// `text` without the member `index` of the object at `span`.
pub fn remove_member(text: &str, span: &Range<usize>, index: usize) -> String {
    let list = members(text, span);
    let cut = match (index.checked_sub(1).map(|p| &list[p]), list.get(index + 1)) {
        (Some(prev), _) => prev.value.end..list[index].value.end,
        (None, Some(next)) => list[index].key_start..next.key_start,
        (None, None) => list[index].key_start..list[index].value.end,
    };
    format!("{}{}", &text[..cut.start], &text[cut.end..])
}

fn splice(text: &str, at: usize, insert: &str) -> String {
    format!("{}{insert}{}", &text[..at], &text[at..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn member(text: &str, span: &Range<usize>, key: &str) -> Option<Range<usize>> {
        members(text, span)
            .into_iter()
            .find(|m| m.key == key)
            .map(|m| m.value)
    }

    #[test]
    fn members_and_elements_are_found_in_any_formatting() {
        let text = r#" { "a" : [1, {"x": "]}\"" }, [ ] ] ,"b":true,"c" :{} } "#;
        let r = root(text);
        let list = members(text, &r);
        assert_eq!(
            list.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(),
            vec!["a", "b", "c"]
        );
        let a = member(text, &r, "a").unwrap();
        let els: Vec<&str> = elements(text, &a)
            .iter()
            .map(|e| &text[e.clone()])
            .collect();
        assert_eq!(els, vec!["1", r#"{"x": "]}\"" }"#, "[ ]"]);
        assert_eq!(&text[member(text, &r, "b").unwrap()], "true");
    }

    #[test]
    fn inserts_follow_the_files_indentation_and_removals_undo_them() {
        let text = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"Stop\": [\n      {\"x\": 1}\n    ]\n  }\n}\n";
        let r = root(text);
        let hooks = member(text, &r, "hooks").unwrap();
        let with_member = insert_member(text, &hooks, "SessionStart", &json!([{"hooks": []}]));
        assert!(
            with_member.contains("\n    ],\n    \"SessionStart\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  }\n}\n"),
            "{with_member}"
        );
        serde_json::from_str::<serde_json::Value>(&with_member).unwrap();
        let r2 = root(&with_member);
        let hooks2 = member(&with_member, &r2, "hooks").unwrap();
        let index = members(&with_member, &hooks2)
            .iter()
            .position(|m| m.key == "SessionStart")
            .unwrap();
        assert_eq!(remove_member(&with_member, &hooks2, index), text);

        let stop = member(text, &hooks, "Stop").unwrap();
        let pushed = push_element(text, &stop, &json!({"y": 2}));
        serde_json::from_str::<serde_json::Value>(&pushed).unwrap();
        let stop2 = member(
            &pushed,
            &member(&pushed, &root(&pushed), "hooks").unwrap(),
            "Stop",
        )
        .unwrap();
        assert_eq!(elements(&pushed, &stop2).len(), 2);
        assert_eq!(remove_element(&pushed, &stop2, 1), text);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "{\r\n  \"a\": 1\r\n}\r\n";
        let edited = insert_member(text, &root(text), "b", &json!({"c": [1]}));
        assert!(!edited.replace("\r\n", "").contains('\n'), "{edited:?}");
        assert_eq!(remove_member(&edited, &root(&edited), 1), text);
    }

    #[test]
    fn empty_containers_and_first_elements() {
        for text in ["{}", "{ }\n", "[]", "[\n]"] {
            let r = root(text);
            let edited = if text.starts_with('{') {
                insert_member(text, &r, "k", &json!({"a": [1]}))
            } else {
                push_element(text, &r, &json!({"a": 1}))
            };
            serde_json::from_str::<serde_json::Value>(&edited).unwrap();
            let r2 = root(&edited);
            let undone = if text.starts_with('{') {
                remove_member(&edited, &r2, 0)
            } else {
                remove_element(&edited, &r2, 0)
            };
            assert_eq!(undone, text);
        }
        let two = "[1, 2]";
        assert_eq!(remove_element(two, &root(two), 0), "[2]");
        let obj = "{\"a\": 1, \"b\": 2}";
        assert_eq!(remove_member(obj, &root(obj), 0), "{\"b\": 2}");
    }
}
