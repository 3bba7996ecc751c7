//! Claude Code transcript reader: main sessions and sub-agent transcripts in all
//! three layouts (inline `isSidechain` entries, `agent-*.jsonl` beside the
//! session, `<session>/subagents/agent-*.jsonl`).
//!
//! Assistant responses split over several lines (one content block per line,
//! shared `message.id`) are assembled into one message; `tool_use` blocks are
//! paired with the `tool_result` that answers them. Meta entries, compaction
//! summaries, system reminders, command wrappers and hook output are context,
//! not the human. cwd and branch come from the entries (folder names are lossy).

use super::text::{
    ClaudeUserText, bounded, classify_claude_user_text, claude_exit_code, compact_json,
};
use super::{Event, Message, ReadOptions, ReadStats, Role, SessionInfo, ToolCall};
use crate::error::Result;
use crate::util::time::parse_rfc3339_millis;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    git_branch: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    is_sidechain: Option<bool>,
    #[serde(default)]
    is_meta: Option<bool>,
    #[serde(default)]
    is_compact_summary: Option<bool>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    entrypoint: Option<String>,
    #[serde(default)]
    message: Option<Value>,
}

/// Whether a file is a sub-agent transcript (by its name).
pub fn is_subagent_file(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy().starts_with("agent-"))
        .unwrap_or(false)
}

struct PendingAssistant {
    message_id: String,
    parts: Vec<String>,
    at: Option<i64>,
    line: u64,
}

struct Reader<'s> {
    opts: ReadOptions,
    subagent_file: bool,
    decided: bool,
    info: SessionInfo,
    session_id: Option<String>,
    agent_id: Option<String>,
    seen: HashSet<String>,
    assistant: Option<PendingAssistant>,
    pending_tools: HashMap<String, ToolCall>,
    sink: &'s mut dyn FnMut(Event, &mut ReadStats),
}

/// Reads a Claude Code transcript, streaming events to `sink`.
pub fn read(
    path: &Path,
    opts: ReadOptions,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Event, &mut ReadStats),
) -> Result<SessionInfo> {
    let subagent_file = is_subagent_file(path);
    let mut reader = Reader {
        opts,
        subagent_file,
        decided: false,
        info: SessionInfo {
            source: if subagent_file { "subagent" } else { "cli" }.into(),
            memory_mode: "enabled".into(),
            originator: Some("claude-code".into()),
            ..Default::default()
        },
        session_id: None,
        agent_id: None,
        seen: HashSet::new(),
        assistant: None,
        pending_tools: HashMap::new(),
        sink,
    };
    let bytes = super::lines::read_lines(path, &mut |line| {
        if line.overlong.is_some() {
            stats.skip_overlong(line.number);
            return true;
        }
        if line.text.trim().is_empty() {
            return true;
        }
        stats.lines += 1;
        match serde_json::from_str::<Entry>(&line.text) {
            Ok(entry) => reader.entry(entry, line.number, stats),
            Err(_) if !line.terminated => stats.partial_tail = true,
            Err(_) => stats.record_malformed(line.number),
        }
        true
    })?;
    stats.bytes = bytes;
    reader.finish(stats);

    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    reader.info.id = if reader.subagent_file {
        let agent = reader
            .agent_id
            .clone()
            .unwrap_or_else(|| stem.trim_start_matches("agent-").to_string());
        reader.info.parent_id = reader.session_id.clone();
        match &reader.session_id {
            Some(session) => format!("{session}-agent-{agent}"),
            None => format!("agent-{agent}"),
        }
    } else {
        reader.session_id.clone().unwrap_or(stem)
    };
    Ok(reader.info)
}

impl Reader<'_> {
    fn emit(&mut self, event: Event, stats: &mut ReadStats) {
        (self.sink)(event, stats);
    }

    fn entry(&mut self, e: Entry, number: u64, stats: &mut ReadStats) {
        if !self.decided
            && e.kind
                .as_deref()
                .is_some_and(|k| k == "user" || k == "assistant")
        {
            self.decide(&e);
        }
        if let Some(uuid) = &e.uuid
            && !self.seen.insert(uuid.clone())
        {
            return; // the same entry written twice (resume, retries)
        }
        if e.is_sidechain == Some(true) && !self.subagent_file {
            return; // an inline sub-agent's own dialogue
        }
        self.meta(&e);
        let at = e.timestamp.as_deref().and_then(parse_rfc3339_millis);
        match e.kind.as_deref() {
            Some("user") => self.user(&e, at, number, stats),
            Some("assistant") => self.assistant(&e, at, number, stats),
            // summary, system, progress, file-history-snapshot, attachment and unknown kinds
            _ => {}
        }
    }

    /// A transcript whose first message is a sub-agent entry is a sub-agent's
    /// file, whatever its name (copies, exports).
    fn decide(&mut self, e: &Entry) {
        self.decided = true;
        if e.is_sidechain == Some(true) && e.agent_id.is_some() && !self.subagent_file {
            self.subagent_file = true;
            self.info.source = "subagent".into();
        }
    }

    fn meta(&mut self, e: &Entry) {
        if self.session_id.is_none() {
            self.session_id = e.session_id.clone();
        }
        if self.agent_id.is_none() {
            self.agent_id = e.agent_id.clone();
        }
        if self.info.cwd.is_none() {
            self.info.cwd = e.cwd.clone().filter(|c| !c.is_empty());
        }
        if self.info.git_branch.is_none() {
            self.info.git_branch = e.git_branch.clone().filter(|b| !b.is_empty());
        }
        if self.info.cli_version.is_none() {
            self.info.cli_version = e.version.clone();
        }
        if self.info.started_at.is_none() {
            self.info.started_at = e.timestamp.as_deref().and_then(parse_rfc3339_millis);
        }
        if !self.subagent_file
            && let Some(ep) = &e.entrypoint
        {
            self.info.source = ep.clone();
        }
    }

    fn user(&mut self, e: &Entry, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        self.flush_assistant(stats);
        let Some(content) = e.message.as_ref().and_then(|m| m.get("content")) else {
            return;
        };
        let context = e.is_meta == Some(true) || e.is_compact_summary == Some(true);
        let mut human: Vec<String> = Vec::new();
        let mut images = 0;
        match content {
            Value::String(s) => {
                if !context && let ClaudeUserText::Human(t) = classify_claude_user_text(s) {
                    human.push(t);
                }
            }
            Value::Array(blocks) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => self.tool_result(block, stats),
                        Some("text") if !context => {
                            let t = block.get("text").and_then(Value::as_str).unwrap_or("");
                            if let ClaudeUserText::Human(t) = classify_claude_user_text(t) {
                                human.push(t);
                            }
                        }
                        Some("image") if !context => images += 1,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if human.is_empty() {
            return; // images alone come with a text block; a bare tool result is not a turn
        }
        let mut text = human.join("\n");
        for _ in 0..images {
            text.push_str(" [image]");
        }
        let role = if self.subagent_file {
            Role::Agent
        } else {
            Role::User
        };
        let text = bounded(text, self.opts.max_message_bytes);
        self.emit(Message::event(role, text, None, at, number), stats);
    }

    fn tool_result(&mut self, block: &Value, stats: &mut ReadStats) {
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let text = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .map(|p| match p.get("type").and_then(Value::as_str) {
                    Some("image") => "[image]".to_string(),
                    _ => p
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Some(other) => compact_json(other),
            None => String::new(),
        };
        let is_error = block
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let Some(mut call) = self.pending_tools.remove(&id) else {
            return; // a result whose call is not in this file (e.g. before a compaction cut)
        };
        call.exit_code = match claude_exit_code(&text) {
            Some(code) if is_error => Some(code),
            _ if call.name == "Bash" && !is_error => Some(0),
            _ => None,
        };
        call.failed = is_error || call.exit_code.is_some_and(|c| c != 0);
        call.output = Some(bounded(text, self.opts.max_output_bytes));
        self.emit(Event::ToolCall(call), stats);
    }

    fn assistant(&mut self, e: &Entry, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        let Some(message) = &e.message else {
            return;
        };
        if message.get("model").and_then(Value::as_str) == Some("<synthetic>") {
            return; // locally generated (API errors, interrupts), not the model
        }
        if self.info.model.is_none() {
            self.info.model = message
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let message_id = message
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if self
            .assistant
            .as_ref()
            .is_some_and(|a| a.message_id != message_id || message_id.is_empty())
        {
            self.flush_assistant(stats);
        }
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            return;
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let t = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if t.trim().is_empty() {
                        continue;
                    }
                    let pending = self.assistant.get_or_insert_with(|| PendingAssistant {
                        message_id: message_id.clone(),
                        parts: Vec::new(),
                        at,
                        line: number,
                    });
                    pending.parts.push(t.to_string());
                }
                Some("tool_use") => {
                    let id = block
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("tool")
                        .to_string();
                    let input = tool_input(&name, block.get("input").unwrap_or(&Value::Null));
                    self.pending_tools.insert(
                        id.clone(),
                        ToolCall {
                            call_id: id,
                            name,
                            input,
                            output: None,
                            exit_code: None,
                            failed: false,
                            at,
                            line: number,
                        },
                    );
                }
                // thinking, redacted_thinking and unknown blocks
                _ => {}
            }
        }
    }

    fn flush_assistant(&mut self, stats: &mut ReadStats) {
        if let Some(a) = self.assistant.take() {
            let mut reply = Message::reply(&a.parts.join("\n\n"), None, a.at, a.line);
            reply.text = bounded(reply.text, self.opts.max_message_bytes);
            self.emit(Event::Message(reply), stats);
        }
    }

    fn finish(&mut self, stats: &mut ReadStats) {
        self.flush_assistant(stats);
        let mut left: Vec<ToolCall> = self.pending_tools.drain().map(|(_, c)| c).collect();
        left.sort_by_key(|c| c.line);
        for call in left {
            self.emit(Event::ToolCall(call), stats);
        }
    }
}

/// The readable input of a Claude Code tool call.
fn tool_input(name: &str, input: &Value) -> String {
    let field = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let found = match name {
        "Bash" => field("command"),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            field("file_path").or_else(|| field("notebook_path"))
        }
        "Glob" | "Grep" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p} in {path}"),
            None => p,
        }),
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        "Task" | "Agent" => field("description").or_else(|| field("prompt")),
        _ => None,
    };
    found.unwrap_or_else(|| compact_json(input))
}
