//! Codex v1's phase-1 input for a rollout (reference §3.4–3.5): the kept
//! response items serialised as one JSON array, cut to the token budget. Used
//! only to compare input sizes with memkit's compact transcript.
#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;

const KEPT: &[&str] = &[
    "message",
    "agent_message",
    "local_shell_call",
    "function_call",
    "tool_search_call",
    "function_call_output",
    "tool_search_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
];

fn injected(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    (t.starts_with("# agents.md instructions") && t.ends_with("</instructions>"))
        || (t.starts_with("<skill>") && t.ends_with("</skill>"))
}

/// Applies Codex's memory filter to one response item.
fn keep(mut item: Value) -> Option<Value> {
    let kind = item.get("type")?.as_str()?.to_string();
    if !KEPT.contains(&kind.as_str()) {
        return None;
    }
    if kind == "message" {
        match item.get("role").and_then(Value::as_str) {
            Some("developer") => return None,
            Some("user") => {
                let parts = item.get_mut("content")?.as_array_mut()?;
                parts.retain(|p| {
                    !(p.get("type").and_then(Value::as_str) == Some("input_text")
                        && p.get("text").and_then(Value::as_str).is_some_and(injected))
                });
                if parts.is_empty() {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(item)
}

/// The serialised kept items of a rollout (before truncation).
pub fn filtered_items(path: &Path) -> String {
    let mut items: Vec<Value> = Vec::new();
    memkit::sources::lines::read_lines(path, &mut |line| {
        if let Ok(v) = serde_json::from_str::<Value>(&line.text) {
            let item = match (v.get("type").and_then(Value::as_str), v.get("payload")) {
                (Some("response_item"), Some(p)) => Some(p.clone()),
                (Some("inter_agent_communication"), Some(p)) => Some(serde_json::json!({"type": "agent_message", "content": p.get("content").cloned().unwrap_or(Value::Null)})),
                (Some(_), None) if v.get("record_type").is_none() => Some(v),
                _ => None,
            };
            if let Some(kept) = item.and_then(keep) {
                items.push(kept);
            }
        }
        true
    })
    .expect("readable rollout");
    serde_json::to_string(&items).unwrap_or_default()
}

/// Codex's v1 cut: head and tail halves of `budget_tokens × 4` bytes, with
/// the truncation marker between them.
pub fn truncated_len(full: usize, budget_tokens: usize) -> usize {
    use memkit::util::text::{APPROX_BYTES_PER_TOKEN, truncation_marker};
    let budget = budget_tokens * APPROX_BYTES_PER_TOKEN;
    if full <= budget {
        full
    } else {
        budget + truncation_marker(full - budget).len()
    }
}
