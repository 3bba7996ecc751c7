//! Fast paths for Codex lines, read from the bytes without parsing them.
//!
//! [`line_kind`] looks at the start of a line (Codex writes `timestamp`,
//! `type`, then `payload.type`) and says whether it is noise the reader never
//! needs, a tool output, or anything else. Tool outputs, the bulkiest lines,
//! go through [`output_line`]: the call id, the timestamp and the head and
//! tail of the output are taken straight from the bytes, so the middle of a
//! large output is neither parsed, validated as UTF-8, nor unescaped. A line
//! that does not have the exact shape Codex writes falls back to the full
//! parser.

use super::text::json_body_bounded;
use crate::util::time::parse_rfc3339_millis;
use memchr::memmem::Finder;
use std::sync::LazyLock;

/// What the start of a line says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Positively recognised as something the reader never uses.
    Noise,
    /// A `function_call_output` or `custom_tool_call_output` item.
    ToolOutput,
    /// Anything else, including shapes not recognised: parse it.
    Other,
}

/// Envelope kinds whose lines are never read.
const SKIPPED_KINDS: &[&[u8]] = &[
    b"compacted",
    b"world_state",
    b"token_usage_record",
    b"security_risk_score",
    b"retained_context",
    b"realtime_item",
    b"inter_agent_communication_metadata",
];
/// Response-item types that are never read.
const SKIPPED_ITEMS: &[&[u8]] = &[
    b"reasoning",
    b"ghost_snapshot",
    b"compaction",
    b"compaction_summary",
    b"context_compaction",
    b"image_generation_call",
    b"additional_tools",
];
/// Response-item types [`output_line`] reads.
const OUTPUT_ITEMS: &[&[u8]] = &[b"function_call_output", b"custom_tool_call_output"];
/// Event types that are read (all others are skipped).
const READ_EVENTS: &[&[u8]] = &[b"user_message", b"exec_command_end", b"item_completed"];

/// How far into a line its kind is looked for.
const HEAD_BYTES: usize = 200;

static TYPE_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""type":""#));
static PAYLOAD_TYPE_KEY: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""payload":{"type":""#));
static CALL_ID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""call_id":""#));
static TIMESTAMP: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""timestamp":""#));
static OUTPUT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""output":""#));

/// The string value right after the first match of `key` in `bytes` (up to
/// the next quote, so escapes are not decoded).
fn value_after<'a>(bytes: &'a [u8], key: &Finder<'_>) -> Option<&'a [u8]> {
    let at = key.find(bytes)? + key.needle().len();
    let len = memchr::memchr(b'"', &bytes[at..])?;
    Some(&bytes[at..at + len])
}

/// Classifies a line from its start. Only lines positively recognised by
/// Codex's own key order are called noise or tool outputs; anything
/// unexpected is [`LineKind::Other`].
pub fn line_kind(line: &[u8]) -> LineKind {
    let head = &line[..line.len().min(HEAD_BYTES)];
    let Some(kind) = value_after(head, &TYPE_KEY) else {
        return LineKind::Other;
    };
    if SKIPPED_KINDS.contains(&kind) {
        return LineKind::Noise;
    }
    let Some(inner) = value_after(head, &PAYLOAD_TYPE_KEY) else {
        return LineKind::Other;
    };
    match kind {
        b"response_item" if OUTPUT_ITEMS.contains(&inner) => LineKind::ToolOutput,
        b"response_item" if SKIPPED_ITEMS.contains(&inner) => LineKind::Noise,
        b"event_msg" if !READ_EVENTS.contains(&inner) => LineKind::Noise,
        _ => LineKind::Other,
    }
}

/// What the fast path read from one tool-output line.
pub struct FastOutput {
    /// The call the output answers.
    pub call_id: String,
    /// Line timestamp, Unix milliseconds.
    pub at: Option<i64>,
    /// The output text, head and tail kept within the bound.
    pub text: String,
}

/// The string value that follows `key` (e.g. `"call_id":"`) in `bytes`, if escape-free UTF-8.
fn short_value<'a>(bytes: &'a [u8], key: &Finder<'_>) -> Option<&'a str> {
    value_after(bytes, key)
        .filter(|v| !v.contains(&b'\\'))
        .and_then(|v| std::str::from_utf8(v).ok())
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

/// Reads a line [`line_kind`] called a [`LineKind::ToolOutput`] when its
/// output is a plain string; `None` for any other shape.
pub fn output_line(line: &[u8], max: Option<usize>) -> Option<FastOutput> {
    let head = &line[..line.len().min(300)];
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
    fn prefilter_skips_only_recognised_noise() {
        let needed = |line: &[u8]| line_kind(line) != LineKind::Noise;
        let reasoning = br#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","encrypted_content":"gAAA"}}"#;
        let call = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"x"}}"#;
        let tokens =
            br#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
        let user = br#"{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#;
        let compacted = br#"{"timestamp":"t","type":"compacted","payload":{"message":""}}"#;
        let reordered = br#"{"payload":{"type":"reasoning"},"type":"response_item"}"#;
        let legacy = br#"{"type":"message","role":"user","content":[]}"#;
        assert!(!needed(reasoning) && !needed(tokens) && !needed(compacted));
        assert!(needed(call) && needed(user) && needed(legacy));
        assert!(
            needed(b"garbage {"),
            "unknown shapes are read (and counted as malformed)"
        );
        assert!(
            needed(reordered),
            "another key order is read, never guessed"
        );
    }

    #[test]
    fn tool_outputs_are_recognised_by_their_start() {
        assert_eq!(line_kind(line("ok").as_bytes()), LineKind::ToolOutput);
        let call = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"c"}}"#;
        assert_eq!(line_kind(call), LineKind::Other);
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
