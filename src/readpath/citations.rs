//! `<oai-mem-citation>` blocks, parsed with exactly Codex's grammar.
//!
//! ```text
//! <oai-mem-citation>
//! <citation_entries>
//! MEMORY.md:234-236|note=[short reason]
//! </citation_entries>
//! <rollout_ids>
//! 019c6e27-e55b-73d1-87d8-4e01f1f75043
//! </rollout_ids>
//! </oai-mem-citation>
//! ```
//!
//! Blocks are matched literally and never nested (a second open tag inside a
//! block is body text); an unterminated block at the end is closed
//! implicitly; malformed entry lines are dropped silently; ids are
//! de-duplicated across all blocks in first-seen order.
//!
//! Codex 0.169+ also records the citation of a reply as structured data
//! (`memory_citation: {entries: [{path, lineStart, lineEnd, note}],
//! rolloutIds: […]}` on its `AgentMessage` items); [`from_structured`] reads
//! that form, and [`Citation::merge`] joins the two so a reply that carries
//! both is one citation.

use serde::Serialize;
use serde_json::Value;

const OPEN: &str = "<oai-mem-citation>";
const CLOSE: &str = "</oai-mem-citation>";

/// One cited location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Path relative to the memory root.
    pub path: String,
    /// First cited line.
    pub line_start: u32,
    /// Last cited line.
    pub line_end: u32,
    /// Why it was used.
    pub note: String,
}

/// Everything cited in one reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Citation {
    /// Cited locations, in order.
    pub entries: Vec<Entry>,
    /// Cited thread ids, unique, first-seen order (not validated).
    pub rollout_ids: Vec<String>,
}

impl Citation {
    /// Whether nothing is cited.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.rollout_ids.is_empty()
    }

    /// Adds what `other` cites that this one does not (entries and ids stay unique).
    pub fn merge(&mut self, other: Citation) {
        for e in other.entries {
            if !self.entries.contains(&e) {
                self.entries.push(e);
            }
        }
        for id in other.rollout_ids {
            self.add_id(&id);
        }
    }

    fn add_id(&mut self, id: &str) {
        let id = id.trim();
        if !id.is_empty() && !self.rollout_ids.iter().any(|x| x == id) {
            self.rollout_ids.push(id.to_string());
        }
    }
}

/// Joins two optional citations of the same reply.
pub fn merge(a: Option<Citation>, b: Option<Citation>) -> Option<Citation> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.merge(b);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// Splits a reply into the text a user sees (citation blocks removed, as
/// Codex shows it) and what it cites.
pub fn split_reply(text: &str) -> (String, Option<Citation>) {
    if !text.contains(OPEN) {
        return (text.to_string(), None);
    }
    let (visible, bodies) = strip_citations(text);
    (visible.trim_end().to_string(), citation_of(&bodies))
}

/// Reads Codex's structured `memory_citation` value; `None` when it is
/// null, not an object, or cites nothing.
pub fn from_structured(v: &Value) -> Option<Citation> {
    let mut c = Citation::default();
    for e in v
        .get("entries")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let num = |k: &str| {
            e.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        let (Some(path), Some(line_start), Some(line_end)) = (
            e.get("path").and_then(Value::as_str),
            num("lineStart"),
            num("lineEnd"),
        ) else {
            continue;
        };
        let entry = Entry {
            path: path.trim().to_string(),
            line_start,
            line_end,
            note: e
                .get("note")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string(),
        };
        if !c.entries.contains(&entry) {
            c.entries.push(entry);
        }
    }
    for id in v
        .get("rolloutIds")
        .or_else(|| v.get("rollout_ids"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        c.add_id(id);
    }
    (!c.is_empty()).then_some(c)
}

/// Splits `text` into the text a user sees and the bodies of its citation blocks.
pub fn strip_citations(text: &str) -> (String, Vec<String>) {
    let mut visible = String::with_capacity(text.len());
    let mut bodies = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(OPEN) {
        visible.push_str(&rest[..open]);
        let after = &rest[open + OPEN.len()..];
        match after.find(CLOSE) {
            Some(close) => {
                bodies.push(after[..close].to_string());
                rest = &after[close + CLOSE.len()..];
            }
            None => {
                bodies.push(after.to_string());
                rest = "";
            }
        }
    }
    visible.push_str(rest);
    (visible, bodies)
}

fn between<'a>(body: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = body.find(open)? + open.len();
    let end = body[start..].find(close)? + start;
    Some(&body[start..end])
}

fn parse_entry(line: &str) -> Option<Entry> {
    let (location, note) = line.rsplit_once("|note=[")?;
    let note = note.strip_suffix(']')?.trim().to_string();
    let (path, range) = location.rsplit_once(':')?;
    let (start, end) = range.split_once('-')?;
    Some(Entry {
        path: path.trim().to_string(),
        line_start: start.trim().parse().ok()?,
        line_end: end.trim().parse().ok()?,
        note,
    })
}

/// Parses every citation block of a reply; `None` when nothing is cited.
pub fn parse_citations(text: &str) -> Option<Citation> {
    citation_of(&strip_citations(text).1)
}

/// The citation that the bodies of a reply's blocks make up.
fn citation_of(bodies: &[String]) -> Option<Citation> {
    let mut c = Citation::default();
    for body in bodies {
        if let Some(entries) = between(body, "<citation_entries>", "</citation_entries>") {
            c.entries.extend(
                entries
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .filter_map(parse_entry),
            );
        }
        let ids = between(body, "<rollout_ids>", "</rollout_ids>")
            .or_else(|| between(body, "<thread_ids>", "</thread_ids>"));
        for id in ids.into_iter().flat_map(str::lines) {
            c.add_id(id);
        }
    }
    (!c.is_empty()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "019c6e27-e55b-73d1-87d8-4e01f1f75043";
    const B: &str = "019c6e27-e55b-73d1-87d8-4e01f1f75044";

    #[test]
    fn entries_and_ids_with_duplicates_collapsed() {
        let text = format!(
            "answer\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:234-236|note=[used the build steps]\n\
             rollout_summaries/x.md:10-12|note=[ prior fix ]\n</citation_entries>\n<rollout_ids>\n{A}\n{B}\n{A}\n\
             </rollout_ids>\n</oai-mem-citation>"
        );
        let c = parse_citations(&text).unwrap();
        assert_eq!(c.rollout_ids, vec![A, B]);
        assert_eq!(
            c.entries[0],
            Entry {
                path: "MEMORY.md".into(),
                line_start: 234,
                line_end: 236,
                note: "used the build steps".into()
            }
        );
        assert_eq!(c.entries[1].note, "prior fix");
        assert_eq!(strip_citations(&text).0, "answer\n");
    }

    #[test]
    fn legacy_thread_ids_tag() {
        let c = parse_citations(&format!(
            "<oai-mem-citation><thread_ids>\n{A}\n</thread_ids></oai-mem-citation>"
        ))
        .unwrap();
        assert_eq!(c.rollout_ids, vec![A]);
    }

    #[test]
    fn several_blocks_and_unterminated_end() {
        let text = format!(
            "x<oai-mem-citation><rollout_ids>{A}</rollout_ids></oai-mem-citation>y\
             <oai-mem-citation><rollout_ids>\n{B}\n{A}\n</rollout_ids>"
        );
        let (visible, bodies) = strip_citations(&text);
        assert_eq!(visible, "xy");
        assert_eq!(bodies.len(), 2);
        assert_eq!(parse_citations(&text).unwrap().rollout_ids, vec![A, B]);
    }

    #[test]
    fn nested_open_tag_is_body_text() {
        let (visible, bodies) = strip_citations(
            "a<oai-mem-citation>x<oai-mem-citation>y</oai-mem-citation>z</oai-mem-citation>b",
        );
        assert_eq!(visible, "az</oai-mem-citation>b");
        assert_eq!(bodies, vec!["x<oai-mem-citation>y"]);
    }

    #[test]
    fn structured_form_and_block_of_one_reply_merge_into_one_citation() {
        let structured = serde_json::json!({
            "entries": [{"path": "MEMORY.md", "lineStart": 1, "lineEnd": 3, "note": "project preference"}],
            "rolloutIds": [A]
        });
        let from_field = from_structured(&structured).unwrap();
        let (visible, from_block) = split_reply(&format!(
            "Using memory.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-3|note=[project preference]\n\
             </citation_entries>\n<rollout_ids>\n{A}\n{B}\n</rollout_ids>\n</oai-mem-citation>"
        ));
        assert_eq!(visible, "Using memory.");
        let merged = merge(Some(from_field.clone()), from_block).unwrap();
        assert_eq!(merged.entries, from_field.entries, "the same entry once");
        assert_eq!(merged.rollout_ids, vec![A, B]);
        assert_eq!(from_structured(&serde_json::Value::Null), None);
        assert_eq!(
            from_structured(&serde_json::json!({"entries": [{"path": "x"}], "rolloutIds": []})),
            None,
            "an entry without a line range is dropped"
        );
        assert_eq!(split_reply("plain"), ("plain".to_string(), None));
    }

    #[test]
    fn malformed_entry_lines_are_dropped() {
        let text = "<oai-mem-citation><citation_entries>\nMEMORY.md:1-2|note=[ok]\nMEMORY.md:1-2|note=[no close\n\
                    MEMORY.md|note=[no range]\nMEMORY.md:a-2|note=[bad]\nMEMORY.md:5|note=[no dash]\n\
                    a:b:3-4|note=[x|note=[y]\n</citation_entries></oai-mem-citation>";
        let c = parse_citations(text).unwrap();
        assert_eq!(c.entries.len(), 1, "{c:?}");
        let split = parse_citations(
            "<oai-mem-citation><citation_entries>\na:b:3-4|note=[see ] here]\n</citation_entries>",
        )
        .unwrap();
        assert_eq!(
            split.entries[0].path, "a:b",
            "the location splits at the last colon"
        );
        assert_eq!(
            split.entries[0].note, "see ] here",
            "one closing bracket is stripped"
        );
        assert_eq!(parse_citations("no citations here"), None);
        assert_eq!(
            parse_citations("<oai-mem-citation></oai-mem-citation>"),
            None
        );
    }
}
