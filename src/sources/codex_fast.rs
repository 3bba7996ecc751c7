//! A fast path for the bulkiest Codex lines, tool outputs: the call id, the
//! timestamp and the head and tail of the output are taken straight from the
//! bytes, so the middle of a large output is neither parsed, validated as
//! UTF-8, nor unescaped. Any line that does not have the exact shape Codex
//! writes falls back to the full parser.

use super::text::json_body_bounded;
use crate::util::time::parse_rfc3339_millis;
use memchr::memmem::Finder;
use std::sync::LazyLock;

/// What the fast path read from one tool-output line.
pub struct FastOutput {
    /// The call the output answers.
    pub call_id: String,
    /// Line timestamp, Unix milliseconds.
    pub at: Option<i64>,
    /// The output text, head and tail kept within the bound.
    pub text: String,
}

static RESPONSE_ITEM: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""type":"response_item""#));
static FUNCTION_OUTPUT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""payload":{"type":"function_call_output""#));
static CUSTOM_OUTPUT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""payload":{"type":"custom_tool_call_output""#));
static CALL_ID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""call_id":""#));
static TIMESTAMP: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""timestamp":""#));
static OUTPUT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""output":""#));

/// The string value that follows `key` (e.g. `"call_id":"`) in `bytes`, if short and escape-free.
fn short_value<'a>(bytes: &'a [u8], key: &Finder<'_>) -> Option<&'a str> {
    let at = key.find(bytes)? + key.needle().len();
    let len = memchr::memchr(b'"', &bytes[at..])?;
    let value = &bytes[at..at + len];
    (!value.contains(&b'\\')).then(|| std::str::from_utf8(value).ok())?
}

/// The end (index of the closing quote) of the JSON string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    for q in memchr::memchr_iter(b'"', &bytes[start..]) {
        let i = start + q;
        let backslashes = bytes[start..i]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return Some(i);
        }
    }
    None
}

/// Reads a `function_call_output` / `custom_tool_call_output` envelope line
/// whose output is a plain string; `None` for anything else.
pub fn output_line(line: &[u8], max: Option<usize>) -> Option<FastOutput> {
    let head = &line[..line.len().min(300)];
    let is_output = RESPONSE_ITEM.find(head).is_some()
        && (FUNCTION_OUTPUT.find(head).is_some() || CUSTOM_OUTPUT.find(head).is_some());
    if !is_output {
        return None;
    }
    let call_id = short_value(head, &CALL_ID)?.to_string();
    let at = short_value(head, &TIMESTAMP).and_then(parse_rfc3339_millis);
    let start = OUTPUT.find(line)? + OUTPUT.needle().len();
    // The pre-0.1xx JSON wrapper carries the exit code: leave it to the full parser.
    if line[start..].starts_with(br#"{\"output\""#) {
        return None;
    }
    let end = string_end(line, start)?;
    let rest = &line[end + 1..];
    if !rest.iter().all(|b| b.is_ascii()) || !rest.ends_with(b"}}") {
        return None;
    }
    let text = json_body_bounded(&line[start..end], max)?;
    Some(FastOutput { call_id, at, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line in Codex's own key order.
    fn line(output: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-03-02T10:00:07.000Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_1","output":{}}}}}"#,
            serde_json::to_string(output).unwrap()
        )
    }

    #[test]
    fn reads_call_id_time_and_bounded_output() {
        let out: String = (0..3000).map(|i| format!("row {i} \"q\" é\n")).collect();
        let fast = output_line(line(&out).as_bytes(), Some(1000)).unwrap();
        assert_eq!(fast.call_id, "call_1");
        assert_eq!(fast.at, parse_rfc3339_millis("2026-03-02T10:00:07.000Z"));
        assert!(
            fast.text.starts_with("row 0 \"q\" é\n") && fast.text.ends_with("row 2999 \"q\" é\n")
        );
        assert!(fast.text.contains("tokens truncated") && fast.text.len() < 1400);
        let small = output_line(
            line("Process exited with code 0\nOutput:\nok\n").as_bytes(),
            Some(1000),
        )
        .unwrap();
        assert_eq!(small.text, "Process exited with code 0\nOutput:\nok\n");
    }

    #[test]
    fn other_shapes_fall_back() {
        let wrapped = line(r#"{"output":"x","metadata":{"exit_code":1}}"#);
        assert!(output_line(wrapped.as_bytes(), Some(100)).is_none());
        let array = serde_json::json!({"timestamp": "t", "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "x"}]}});
        assert!(output_line(array.to_string().as_bytes(), Some(100)).is_none());
        let call = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"c"}}"#;
        assert!(output_line(call, Some(100)).is_none());
    }
}
