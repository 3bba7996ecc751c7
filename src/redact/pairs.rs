//! A secret's name given as the value of a `name` or `key` field, with the
//! secret in a `value` field beside it: Kubernetes `env` entries (`- name:
//! DB_PASSWORD` / `value: …`), ECS and SSM JSON (`"Name": "/prod/db/password",
//! … "Value": "…"`), .NET `<add key="DbPassword" value="…"/>`, Java
//! `<property name="password" value="…"/>`, Hadoop `<name>…secret.key</name>
//! <value>…</value>`, `<entry key="password">…</entry>`, and property lists'
//! `<key>APIKey</key>` / `<string>…</string>`.

use super::Finding;
use super::lex::{Value, run, run_back, skip_blanks, value_at};

/// How far after the name its value field is looked for.
const WINDOW: usize = 256;

/// Whether the name at `name_start` is the value of a `name` / `key` field
/// (`Name`, `ParameterKey`, `<name>`); returns that field's word, which also
/// starts the next entry.
fn field_before(text: &[u8], name_start: usize) -> Option<&[u8]> {
    // The whole value (`/prod/db/password`), then its opening quote.
    let mut i = run_back(text, name_start, 128, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/')
    });
    i = run_back(text, i, 8, |b| matches!(b, b'"' | b'\'' | b'\\'));
    let blanks_end = i;
    i = run_back(text, i, 8, |b| b == b' ' || b == b'\t');
    let sep = *text.get(i.checked_sub(1)?)?;
    let j = if matches!(sep, b':' | b'=' | b'>') {
        run_back(text, i - 1, 8, |b| {
            matches!(b, b'"' | b'\'' | b'\\' | b' ' | b'\t')
        })
    } else if i < blanks_end {
        // `--name /prod/db/password … --value …` (a command's flags).
        i
    } else {
        return None;
    };
    let word_start = run_back(text, j, 32, |b| b.is_ascii_alphanumeric() || b == b'_');
    let word = &text[word_start..j];
    if !matches!(sep, b':' | b'=' | b'>') && !text[..word_start].ends_with(b"--") {
        return None;
    }
    let ends_ci =
        |w: &[u8]| word.len() >= w.len() && word[word.len() - w.len()..].eq_ignore_ascii_case(w);
    (ends_ci(b"name") || ends_ci(b"key")).then_some(word)
}

/// The value beside a secret's name at `name_start..name_end`, if the name is
/// the value of a `name` / `key` field.
pub(super) fn value_beside(text: &[u8], name_start: usize, name_end: usize) -> Option<Value> {
    let field = field_before(text, name_start)?;
    // `<entry key="password">value</entry>`: the element's text.
    let close = run(text, name_end, 4, |b| matches!(b, b'"' | b'\'' | b'\\'));
    if text.get(close) == Some(&b'>') {
        return element_text(text, close + 1);
    }
    let to = text.len().min(name_end + WINDOW);
    let mut i = name_end;
    while i + 5 <= to {
        let at = &text[i..];
        // The end of a `{name: …, key: password}` mapping, or the next YAML
        // list item (`- name: TRACE_ID`): the value after it is another
        // entry's.
        if at[0] == b'}' || (at[0] == b'\n' && text.get(skip_blanks(text, i + 1)) == Some(&b'-')) {
            return None;
        }
        let word_start = !text[i - 1].is_ascii_alphanumeric();
        // The next entry's own name (not `</name>`): this one had no value.
        if word_start
            && text[i - 1] != b'/'
            && at.len() >= field.len()
            && at[..field.len()].eq_ignore_ascii_case(field)
        {
            return None;
        }
        // `value`, `Value`, `ParameterValue`, `<value>` (not `valueFrom`).
        if at[..5].eq_ignore_ascii_case(b"value")
            && !at.get(5).is_some_and(|b| b.is_ascii_alphanumeric())
        {
            return value_after_field(text, i + 5);
        }
        i += 1;
    }
    None
}

/// After a name (`"DBPassword": {`): the `Default` (or `Value`) of the
/// object it opens.
pub(super) fn object_after(text: &[u8], name_end: usize) -> Option<Value> {
    let quote = run(text, name_end, 4, |b| b == b'"' || b == b'\\');
    let colon = skip_blanks(text, quote);
    if text.get(colon) != Some(&b':') {
        return None;
    }
    let open = skip_blanks(text, colon + 1);
    // Only a secret-named object: `"token_usage": {…}` is no secret's.
    (text.get(open) == Some(&b'{')
        && super::generic::classify(
            &text[..name_end][run_back(text, name_end, 64, |b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
            })..],
        )
        .is_some())
    .then(|| default_in_object(text, open))?
}

/// Takes the value `v` as a secret, unless it is a placeholder or public.
fn push_unless_harmless(text: &[u8], v: Value, out: &mut Vec<Finding>) {
    if !super::placeholders::is_harmless(&text[v.start..v.end]) {
        out.push(Finding {
            rule: "secret_pair",
            start: v.start,
            end: v.end,
        });
    }
}

/// `terraform output -json`'s `{"sensitive": true, "type": "string",
/// "value": "X"}` and Keycloak's `{"type": "secret", "value": "X"}`
/// (keyword at `hit`): X, the value the object says is secret.
pub(super) fn sensitive_output(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let from = hit.saturating_sub(WINDOW);
    let Some(open) = text[from..hit].iter().rposition(|&b| b == b'{') else {
        return;
    };
    let open = from + open;
    if text[open + 1..hit].contains(&b'}') {
        return;
    }
    if let Some(v) = default_in_object(text, open) {
        push_unless_harmless(text, v, out);
    }
}

/// In the object opening at `open`, the value of its `Default` (or `Value`)
/// field, before the object closes.
fn default_in_object(text: &[u8], open: usize) -> Option<Value> {
    let end = open
        + 1
        + text[open + 1..text.len().min(open + WINDOW)]
            .iter()
            .position(|&b| b == b'}' || b == b'{')?;
    let body = &text[open..end];
    ["\"Default\"", "\"default\"", "\"Value\"", "\"value\""]
        .iter()
        .find_map(|key| super::lex::find(body, key.as_bytes()).map(|p| open + p + key.len()))
        .and_then(|after| {
            let colon = skip_blanks(text, after);
            (text.get(colon) == Some(&b':'))
                .then(|| value_at(text, skip_blanks(text, colon + 1)))?
        })
        .filter(|v| v.quoted && v.end > v.start && v.end <= end)
}

/// The value after a `value` field's word ending at `i`.
fn value_after_field(text: &[u8], i: usize) -> Option<Value> {
    let mut j = run(text, i, 8, |b| matches!(b, b'"' | b'\'' | b'\\'));
    let before_blanks = j;
    j = skip_blanks(text, j);
    // `--value 'X'`: a flag's value after blanks.
    if i >= 7 && text[..i - 5].ends_with(b"--") && j > before_blanks {
        let v = value_at(text, j)?;
        return (v.end > v.start).then_some(v);
    }
    match text.get(j) {
        Some(b'>') => element_text(text, j + 1),
        Some(b':' | b'=') => {
            let v = value_at(text, skip_blanks(text, j + 1))?;
            (v.end > v.start).then_some(v)
        }
        _ => None,
    }
}

/// `…</` after `start`: an element's text on one line.
/// A property list's `<key>NAME</key>` (keyword ending at `hit_end`, past
/// `<key>`) followed by `<string>X</string>`: X, when NAME is a secret's.
pub(super) fn plist_value(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let name_end = run(text, hit_end, 64, |b| b != b'<');
    // KeePass writes `<Key>…</Key>`.
    if !text[name_end..text.len().min(name_end + 6)].eq_ignore_ascii_case(b"</key>") {
        return;
    }
    let Some(kind) = super::generic::classify(&text[hit_end..name_end]) else {
        return;
    };
    let mut i = name_end + 6;
    for _ in 0..8 {
        i = run(text, i, 16, |b| b.is_ascii_whitespace());
        match super::lex::escape_at(text, i) {
            Some((_, width)) => i += width,
            None => break,
        }
    }
    // A property list's `<string>`, a KeePass export's `<Value …>`.
    let open = if text[i..].starts_with(b"<string>") {
        i + 8
    } else if text[i..].starts_with(b"<Value") && matches!(text.get(i + 6), Some(b'>' | b' ')) {
        match text[i..text.len().min(i + 64)]
            .iter()
            .position(|&b| b == b'>')
        {
            Some(p) => i + p + 1,
            None => return,
        }
    } else {
        return;
    };
    if let Some(v) = element_text(text, open)
        && super::generic::accepts_value(text, kind, v)
    {
        out.push(Finding {
            rule: "secret_assignment",
            start: v.start,
            end: v.end,
        });
    }
}

pub(super) fn element_text(text: &[u8], start: usize) -> Option<Value> {
    let end = run(text, start, 512, |b| b != b'<' && b != b'\n');
    (end > start && text[end..].starts_with(b"</")).then_some(Value {
        start,
        end,
        quoted: true,
    })
}

/// A `<Value>` element (keyword ending at `hit_end`) right inside an
/// element named as a secret: Windows' `autounattend.xml`
/// (`<AdministratorPassword><Value>X</Value>`, `<Password><Value>X`).
pub(super) fn value_in_secret_element(
    text: &[u8],
    hit: usize,
    hit_end: usize,
    out: &mut Vec<Finding>,
) {
    let mut i = hit;
    // Back over blanks and line breaks (escaped ones too) to the parent's `>`.
    while i > 0 {
        match text[i - 1] {
            b' ' | b'\t' | b'\n' | b'\r' => i -= 1,
            b'n' | b'r' | b't' if i >= 2 && text[i - 2] == b'\\' => {
                i = run_back(text, i - 1, 16, |b| b == b'\\');
            }
            _ => break,
        }
    }
    if i == 0 || text[i - 1] != b'>' {
        return;
    }
    let name_end = i - 1;
    let name_start = run_back(text, name_end, 64, |b| {
        b.is_ascii_alphanumeric() || b == b'_'
    });
    if name_start == 0 || text[name_start - 1] != b'<' || name_start == name_end {
        return;
    }
    let named = super::generic::classify(&text[name_start..name_end]);
    if !matches!(
        named,
        Some(super::generic::Kind::Password | super::generic::Kind::Secret)
    ) {
        return;
    }
    if let Some(v) = element_text(text, hit_end) {
        push_unless_harmless(text, v, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beside(text: &str, name: &str) -> Option<String> {
        let s = text.find(name).unwrap();
        value_beside(text.as_bytes(), s, s + name.len()).map(|v| text[v.start..v.end].to_string())
    }

    #[test]
    fn values_beside_names() {
        for (text, name) in [
            (
                "env:\n  - name: DB_PASSWORD\n    value: Harbor42x",
                "DB_PASSWORD",
            ),
            (
                r#"{"name": "API_TOKEN", "value": "Harbor42x"}"#,
                "API_TOKEN",
            ),
            (
                r#"{"Name": "/prod/db/password", "Type": "SecureString", "Value": "Harbor42x"}"#,
                "password",
            ),
            (
                r#"<add key="DbPassword" value="Harbor42x" />"#,
                "DbPassword",
            ),
            (
                r#"<property name="db.password" value="Harbor42x"/>"#,
                "db.password",
            ),
            (
                "<name>fs.s3a.secret.key</name>\n  <value>Harbor42x</value>",
                "fs.s3a.secret.key",
            ),
            (r#"<entry key="password">Harbor42x</entry>"#, "password"),
            (
                "aws ssm put-parameter --name /prod/db/password --type SecureString --value 'Harbor42x'",
                "password",
            ),
            (
                r#"{\"name\":\"API_TOKEN\",\"value\":\"Harbor42x\"}"#,
                "API_TOKEN",
            ),
            (
                r#"[{"ParameterKey": "Env", "ParameterValue": "prod"}, {"ParameterKey": "DbPassword", "ParameterValue": "Harbor42x"}]"#,
                "DbPassword",
            ),
        ] {
            assert_eq!(beside(text, name).as_deref(), Some("Harbor42x"), "{text}");
        }
    }

    #[test]
    fn no_value_or_another_entry() {
        for (text, name) in [
            (
                "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:",
                "DB_PASSWORD",
            ),
            (
                "- name: DB_PASSWORD\n- name: OTHER\n  value: x1234567",
                "DB_PASSWORD",
            ),
            (
                r#"{"ParameterKey": "DbPassword"}, {"ParameterKey": "Env", "ParameterValue": "x1234567"}"#,
                "DbPassword",
            ),
            ("DB_PASSWORD is required", "DB_PASSWORD"),
            ("filename: password.txt", "password"),
        ] {
            assert_eq!(beside(text, name), None, "{text}");
        }
    }
}
