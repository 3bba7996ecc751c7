//! Codex rollout reader: every format generation, detected per file.
//!
//! - Pre-envelope files (mid-2025) start with a bare `{id, timestamp,
//!   instructions, git}` object, followed by bare response items and
//!   `{"record_type": "state"}` lines. Human text is taken from user messages
//!   that are not injected context.
//! - Envelope files (`{timestamp, type, payload}`, from Sept 2025) take human
//!   text from `event_msg/user_message` (clean, no context) and ignore the
//!   response-item echo of it; assistant text comes from response items, never
//!   from the `agent_message` event echo. `compacted.replacement_history` is a
//!   derived copy and is never read.
//! - Codex 0.169+ writes no `user_message`, `agent_message` or
//!   `exec_command_end` events any more: the human's words, the agent's
//!   replies (with a structured `memory_citation`) and the commands it ran
//!   (argv, output, exit code) come as `event_msg/item_completed` items
//!   (`UserMessage`, `AgentMessage`, `CommandExecution`). A reply recorded
//!   both as an `AgentMessage` and as an assistant response item is one
//!   message (joined by item id, citations merged); a human message recorded
//!   in both event forms (a resumed thread that spans generations) is one
//!   message. Code-mode models call one `exec` tool with JavaScript: the
//!   commands that script ran are the tool calls, not the script.

use super::codex_fast::{LineKind, line_kind, output_line};
use super::text::{
    bounded, carries_memkit_block, codex_output, codex_request_text, compact_json, environment_cwd,
    is_codex_injected, json_string_bounded,
};
use super::{Event, Message, Phase, ReadOptions, ReadStats, Role, SessionInfo, ToolCall};
use crate::error::Result;
use crate::readpath::citations;
use crate::util::ids::is_uuid;
use crate::util::time::parse_rfc3339_millis;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

/// The thread id carried by a rollout file name (`rollout-<stamp>-<uuid>.jsonl[.zst]`).
pub fn id_from_file_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let stem = name
        .strip_suffix(".jsonl.zst")
        .or_else(|| name.strip_suffix(".jsonl"))
        .or_else(|| name.strip_suffix(".json"))?;
    // An optional `_<rollout id>` suffix may follow the thread id.
    let stem = match stem.rsplit_once('_') {
        Some((head, _)) if head.len() >= 36 && is_uuid(&head[head.len() - 36..]) => head,
        _ => stem,
    };
    if stem.len() < 36 {
        return None;
    }
    let candidate = &stem[stem.len() - 36..];
    is_uuid(candidate).then(|| candidate.to_ascii_lowercase())
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(default)]
    record_type: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// Which record a human message came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HumanForm {
    /// `event_msg/user_message` (Sept 2025 to 0.16x).
    Event,
    /// `event_msg/item_completed` with a `UserMessage` item (0.169+).
    Item,
}

/// An `AgentMessage` reply waiting for its response-item twin.
struct HeldReply {
    id: Option<String>,
    message: Message,
}

/// The name of the code-mode tool whose input is a JavaScript program.
const CODE_MODE_TOOL: &str = "exec";

/// Reader state for one file.
struct Reader<'s> {
    opts: ReadOptions,
    file_id: Option<String>,
    info: SessionInfo,
    meta_seen: bool,
    legacy: bool,
    pending: HashMap<String, ToolCall>,
    exit_codes: HashMap<String, i64>,
    /// Call ids already emitted (a late `CommandExecution` for one is a twin).
    emitted_calls: HashSet<String>,
    /// Pending code-mode `exec` calls that ran commands of their own.
    scripts_with_commands: HashSet<String>,
    /// The last human message since the agent last spoke, and its form.
    last_human: Option<(String, HumanForm)>,
    /// An `AgentMessage` reply held until its response-item twin arrives.
    held_reply: Option<HeldReply>,
    /// Ids of replies already emitted.
    reply_ids: HashSet<String>,
    /// The text of the reply emitted last, while nothing else followed it.
    last_reply: Option<String>,
    /// Events waiting behind a command whose first output chunk came while
    /// it still ran (see [`AwaitingExit`]).
    awaiting_exit: AwaitingExit,
    sink: &'s mut dyn FnMut(Event, &mut ReadStats),
}

/// How many events may queue, the still-running command at their head
/// included, before it is passed on without its exit code. Codex's `exec_command_end` for a command
/// that outlived its first `yield_time_ms` usually comes a few items later,
/// after the agent's `write_stdin` polls.
const EXIT_WAIT_EVENTS: usize = 32;

/// Commands whose `function_call_output` said "Process running with
/// session ID N" (unified exec returned before the process ended), held
/// with every event read after them, in order, until their
/// `exec_command_end` gives the exit code or [`EXIT_WAIT_EVENTS`] events
/// have queued behind them. Without this a failing test run that took
/// longer than a second reads as one that worked.
#[derive(Default)]
struct AwaitingExit {
    queue: VecDeque<Event>,
    /// Call ids in `queue` still without their exit code.
    running: HashSet<String>,
}

/// Reads a Codex rollout, streaming events to `sink`.
pub fn read(
    path: &Path,
    opts: ReadOptions,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Event, &mut ReadStats),
) -> Result<SessionInfo> {
    let file_id = id_from_file_name(path);
    let mut reader = Reader {
        opts,
        file_id: file_id.clone(),
        info: SessionInfo {
            id: file_id.unwrap_or_default(),
            source: "unknown".into(),
            memory_mode: "enabled".into(),
            ..Default::default()
        },
        meta_seen: false,
        legacy: false,
        pending: HashMap::new(),
        exit_codes: HashMap::new(),
        emitted_calls: HashSet::new(),
        scripts_with_commands: HashSet::new(),
        last_human: None,
        held_reply: None,
        reply_ids: HashSet::new(),
        last_reply: None,
        awaiting_exit: AwaitingExit::default(),
        sink,
    };
    let bytes = super::lines::read_raw_lines(path, &mut |raw| {
        if raw.overlong.is_some() {
            stats.skip_overlong(raw.number);
            return true;
        }
        if raw.bytes.iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        stats.lines += 1;
        match line_kind(raw.bytes) {
            LineKind::Noise => return true,
            LineKind::ToolOutput => {
                if let Some(fast) = output_line(raw.bytes, reader.opts.max_output_bytes) {
                    stats.codex_input_bytes += raw.bytes.len() as u64;
                    reader.finish_output(fast.call_id, &fast.text, fast.at, raw.number, stats);
                    return true;
                }
            }
            LineKind::Other => {}
        }
        if !reader.line(raw.number, &raw.text(), stats) {
            if raw.terminated {
                stats.record_malformed(raw.number);
            } else {
                stats.partial_tail = true;
            }
        }
        true
    })?;
    stats.bytes = bytes;
    reader.finish(stats);
    if reader.info.id.is_empty() {
        reader.info.id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(reader.info)
}

impl Reader<'_> {
    /// Emits an event, after any reply still held for its twin.
    fn emit(&mut self, event: Event, stats: &mut ReadStats) {
        self.flush_reply(stats);
        self.emit_now(event, stats);
    }

    fn emit_now(&mut self, event: Event, stats: &mut ReadStats) {
        match &event {
            Event::Message(m) if m.role == Role::User => {}
            _ => self.last_human = None,
        }
        self.last_reply = match &event {
            Event::Message(m) if m.role == Role::Assistant => Some(m.text.clone()),
            _ => None,
        };
        self.deliver(event, stats);
    }

    /// Passes an event to the sink, or queues it behind a command still
    /// waiting for its exit code.
    fn deliver(&mut self, event: Event, stats: &mut ReadStats) {
        let still_running = matches!(&event, Event::ToolCall(c) if c.name == "exec_command"
            && c.exit_code.is_none()
            && c.output.as_deref().is_some_and(still_running));
        if let (true, Event::ToolCall(c)) = (still_running, &event) {
            self.awaiting_exit.running.insert(c.call_id.clone());
        }
        if self.awaiting_exit.queue.is_empty() && !still_running {
            (self.sink)(event, stats);
            return;
        }
        self.awaiting_exit.queue.push_back(event);
        self.release(false, stats);
    }

    /// Records the exit code of a held command.
    fn command_ended(&mut self, call_id: &str, code: i64, stats: &mut ReadStats) {
        if !self.awaiting_exit.running.remove(call_id) {
            return;
        }
        for event in &mut self.awaiting_exit.queue {
            if let Event::ToolCall(call) = event
                && call.call_id == call_id
            {
                call.exit_code = Some(code);
                call.failed |= code != 0;
            }
        }
        self.release(false, stats);
    }

    /// Passes on queued events up to the first command still waiting for
    /// its exit code (all of them with `all`, at the end of the file).
    fn release(&mut self, all: bool, stats: &mut ReadStats) {
        let AwaitingExit { queue, running } = &mut self.awaiting_exit;
        while let Some(front) = queue.front() {
            let waiting = matches!(front, Event::ToolCall(c) if running.contains(&c.call_id));
            if waiting && !all && queue.len() <= EXIT_WAIT_EVENTS {
                break;
            }
            if let Some(Event::ToolCall(c)) = queue.front() {
                running.remove(&c.call_id);
            }
            let event = queue.pop_front().expect("front checked above");
            (self.sink)(event, stats);
        }
    }

    fn flush_reply(&mut self, stats: &mut ReadStats) {
        if let Some(held) = self.held_reply.take() {
            if let Some(id) = held.id {
                self.reply_ids.insert(id);
            }
            self.emit_reply(held.message, stats);
        }
    }

    /// Emits a reply cut to the read's message limit. Twins are matched on
    /// whole texts (a held reply and the last one are kept whole), so a
    /// long reply is joined with its twin whatever the limit.
    fn emit_reply(&mut self, mut reply: Message, stats: &mut ReadStats) {
        let whole = reply.text.clone();
        reply.text = bounded(reply.text, self.opts.max_message_bytes);
        self.emit_now(Event::Message(reply), stats);
        self.last_reply = Some(whole);
    }

    /// Handles one line; `false` when it is not valid JSON of a known shape.
    fn line(&mut self, number: u64, text: &str, stats: &mut ReadStats) -> bool {
        let Ok(env) = serde_json::from_str::<Envelope>(text) else {
            return false;
        };
        let at = env.timestamp.as_deref().and_then(parse_rfc3339_millis);
        match (env.kind.as_deref(), env.payload) {
            (Some(kind), Some(payload)) => {
                self.envelope(kind, payload, at, number, stats);
                true
            }
            _ if env.record_type.is_some() => true,
            (None, _) if env.id.is_some() => {
                self.legacy_meta(text, at);
                true
            }
            (Some(_), None) => {
                // A bare response item (pre-envelope generations).
                self.legacy = true;
                self.item(text, at, number, stats);
                true
            }
            _ => false,
        }
    }

    fn legacy_meta(&mut self, text: &str, at: Option<i64>) {
        if self.meta_seen {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return;
        };
        self.meta_seen = true;
        self.legacy = true;
        if let Some(id) = v.get("id").and_then(Value::as_str) {
            self.info.id = id.to_ascii_lowercase();
        }
        self.info.started_at = at;
        self.info.source = "cli".into();
        self.apply_git(&v);
        if let Some(cwd) = v.get("cwd").and_then(Value::as_str) {
            self.info.cwd = Some(cwd.to_string());
        }
    }

    fn apply_git(&mut self, v: &Value) {
        if let Some(branch) = v
            .get("git")
            .and_then(|g| g.get("branch"))
            .and_then(Value::as_str)
            .filter(|b| !b.is_empty())
        {
            self.info.git_branch = Some(branch.to_string());
        }
    }

    fn envelope(
        &mut self,
        kind: &str,
        payload: &RawValue,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        match kind {
            "session_meta" => {
                if let Ok(v) = serde_json::from_str::<Value>(payload.get()) {
                    self.session_meta(&v);
                }
            }
            "turn_context" if self.info.model.is_none() || self.info.cwd.is_none() => {
                #[derive(Deserialize)]
                struct TurnContext {
                    model: Option<String>,
                    cwd: Option<String>,
                }
                if let Ok(tc) = serde_json::from_str::<TurnContext>(payload.get()) {
                    if self.info.model.is_none() {
                        self.info.model = tc.model;
                    }
                    if self.info.cwd.is_none() {
                        self.info.cwd = tc.cwd;
                    }
                }
            }
            "response_item" => self.item(payload.get(), at, number, stats),
            "event_msg" => {
                let Ok(t) = serde_json::from_str::<TypeOnly>(payload.get()) else {
                    return;
                };
                match t.kind.as_deref() {
                    Some("user_message") => {
                        if let Ok(v) = serde_json::from_str::<Value>(payload.get()) {
                            self.user_message_event(&v, at, number, stats);
                        }
                    }
                    Some("item_completed") => {
                        if let Ok(v) = serde_json::from_str::<Value>(payload.get())
                            && let Some(item) = v.get("item")
                        {
                            self.completed_item(item, at, number, stats);
                        }
                    }
                    Some("exec_command_end") => {
                        #[derive(Deserialize)]
                        struct ExecEnd {
                            call_id: Option<String>,
                            exit_code: Option<i64>,
                        }
                        if let Ok(end) = serde_json::from_str::<ExecEnd>(payload.get())
                            && let (Some(id), Some(code)) = (end.call_id, end.exit_code)
                        {
                            match self.pending.get_mut(&id) {
                                Some(call) => call.exit_code = Some(code),
                                None if self.awaiting_exit.running.contains(&id) => {
                                    self.command_ended(&id, code, stats);
                                }
                                None => {
                                    self.exit_codes.insert(id, code);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            "inter_agent_communication" => {
                if let Ok(v) = serde_json::from_str::<Value>(payload.get()) {
                    let text = content_text(v.get("content").unwrap_or(&v));
                    if !text.trim().is_empty() {
                        let text = bounded(text, self.opts.max_message_bytes);
                        self.emit(Message::event(Role::Agent, text, None, at, number), stats);
                    }
                }
            }
            // compacted (derived copy), world_state, token counts and every
            // unknown kind are skipped.
            _ => {}
        }
    }

    fn session_meta(&mut self, v: &Value) {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase);
        // The first session_meta whose id matches the file name is authoritative;
        // a forked file may start with its parent's.
        let matches_file = match (&self.file_id, &id) {
            (Some(f), Some(i)) => f == i,
            _ => true,
        };
        if self.meta_seen || !matches_file {
            return;
        }
        self.meta_seen = true;
        if let Some(id) = id {
            self.info.id = id;
        }
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        if let Some(cwd) = s("cwd") {
            self.info.cwd = Some(cwd);
        }
        self.info.originator = s("originator");
        self.info.cli_version = s("cli_version");
        self.info.started_at = v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_rfc3339_millis);
        if let Some(mode) = s("memory_mode") {
            self.info.memory_mode = mode;
        }
        self.info.parent_id = s("forked_from_id").or_else(|| s("parent_thread_id"));
        match v.get("source") {
            Some(Value::String(src)) => self.info.source = src.clone(),
            Some(Value::Object(obj)) if obj.contains_key("subagent") => {
                self.info.source = "subagent".into();
                if let Some(parent) = obj
                    .get("subagent")
                    .and_then(|s| s.get("thread_spawn"))
                    .and_then(|t| t.get("parent_thread_id"))
                    .and_then(Value::as_str)
                {
                    self.info.parent_id = Some(parent.to_string());
                }
            }
            Some(Value::Object(obj)) => {
                if let Some(k) = obj.keys().next() {
                    self.info.source = k.clone();
                }
            }
            _ => {}
        }
        self.apply_git(v);
    }

    fn user_message_event(
        &mut self,
        v: &Value,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        let message = v.get("message").and_then(Value::as_str).unwrap_or("");
        let mut text = codex_request_text(message).to_string();
        let images = v
            .get("images")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
            + v.get("local_images")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
        for _ in 0..images {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str("[image]");
        }
        self.human(text, HumanForm::Event, at, number, stats);
    }

    /// Emits what the human typed, once: the same words recorded in the
    /// other event form right after are the same message.
    fn human(
        &mut self,
        text: String,
        form: HumanForm,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        if text.trim().is_empty() || is_codex_injected(&text) || carries_memkit_block(&text) {
            return;
        }
        // The forms join an image placeholder differently (space or newline).
        if let Some((last, last_form)) = &self.last_human
            && *last_form != form
            && last.split_whitespace().eq(text.split_whitespace())
        {
            return;
        }
        let bounded_text = bounded(text.clone(), self.opts.max_message_bytes);
        self.emit(
            Message::event(Role::User, bounded_text, None, at, number),
            stats,
        );
        self.last_human = Some((text, form));
    }

    /// An `item_completed` item (Codex 0.169+).
    fn completed_item(
        &mut self,
        item: &Value,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        match item.get("type").and_then(Value::as_str) {
            Some("UserMessage") => {
                let text = item_text(item.get("content").unwrap_or(&Value::Null));
                self.human(
                    codex_request_text(&text).to_string(),
                    HumanForm::Item,
                    at,
                    number,
                    stats,
                );
            }
            Some("AgentMessage") => {
                let text = item_text(item.get("content").unwrap_or(&Value::Null));
                let mut reply = Message::reply(&text, phase_of(item), at, number);
                reply.citation = citations::merge(
                    reply.citation,
                    item.get("memory_citation")
                        .or_else(|| item.get("memoryCitation"))
                        .and_then(citations::from_structured),
                );
                let id = item.get("id").and_then(Value::as_str).map(str::to_string);
                self.assistant_reply(id, reply, true, stats);
            }
            Some("CommandExecution") => self.command_execution(item, at, number, stats),
            // plans, file changes, reasoning and unknown items
            _ => {}
        }
    }

    /// Emits an assistant reply once, whichever of its records comes first:
    /// an `AgentMessage` (`held`) waits for the response item with the same
    /// id, and the two become one message (the response item's line and
    /// phase, both citations).
    fn assistant_reply(
        &mut self,
        id: Option<String>,
        mut reply: Message,
        held: bool,
        stats: &mut ReadStats,
    ) {
        if reply.text.trim().is_empty() && reply.citation.is_none() {
            return;
        }
        if let Some(twin) = self.held_reply.as_ref()
            && same_reply(twin.id.as_deref(), &twin.message, id.as_deref(), &reply)
        {
            let twin = self.held_reply.take().expect("checked above");
            if held {
                // Two AgentMessage records of one reply: keep the first.
                self.held_reply = Some(twin);
                return;
            }
            if reply.text.trim().is_empty() {
                reply.text = twin.message.text;
            }
            reply.phase = reply.phase.or(twin.message.phase);
            reply.citation = citations::merge(reply.citation, twin.message.citation);
        } else if id.as_ref().is_some_and(|i| self.reply_ids.contains(i))
            || (held && self.last_reply.as_deref() == Some(reply.text.as_str()))
        {
            // The twin came first (by id, or by text when it had no id).
            return;
        }
        if held {
            self.flush_reply(stats);
            self.held_reply = Some(HeldReply { id, message: reply });
            return;
        }
        self.flush_reply(stats);
        if let Some(id) = id {
            self.reply_ids.insert(id);
        }
        self.emit_reply(reply, stats);
    }

    /// A command Codex ran (0.169+): it completes the call it answers, or,
    /// for a command a code-mode script or the user started, it is a tool
    /// call of its own (and the script it came from is not shown).
    fn command_execution(
        &mut self,
        item: &Value,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        // Rollouts write snake_case keys; the app-server protocol spells them in camelCase.
        let field = |snake: &str, camel: &str| item.get(snake).or_else(|| item.get(camel));
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let exit_code = field("exit_code", "exitCode").and_then(Value::as_i64);
        let status = item.get("status").and_then(Value::as_str).unwrap_or("");
        let failed = matches!(status, "failed" | "declined") || exit_code.is_some_and(|c| c != 0);
        let output = field("aggregated_output", "aggregatedOutput")
            .and_then(Value::as_str)
            .map(|o| bounded(o.to_string(), self.opts.max_output_bytes));
        if let Some(call) = self.pending.get_mut(&id) {
            call.exit_code = exit_code.or(call.exit_code);
            call.failed |= failed;
            if call.output.is_none() {
                call.output = output;
            }
            return;
        }
        if self.emitted_calls.contains(&id) {
            return;
        }
        // A command of a code-mode script: that script is shown as its
        // commands. With several scripts running, which one ran it is not
        // recorded, so every script stays (nothing is lost).
        let scripts: Vec<String> = self
            .pending
            .values()
            .filter(|c| c.name == CODE_MODE_TOOL)
            .map(|c| c.call_id.clone())
            .collect();
        if let [only] = scripts.as_slice() {
            self.scripts_with_commands.insert(only.clone());
        }
        let call = ToolCall {
            call_id: id,
            name: "exec_command".into(),
            input: shell_command(item.get("command").unwrap_or(&Value::Null)),
            output,
            exit_code,
            failed,
            at,
            line: number,
        };
        self.emit_call(call, stats);
    }

    fn response_item(&mut self, item: &Value, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let call_id = || {
            item.get("call_id")
                .or_else(|| item.get("id"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match kind {
            "message" => self.message_item(item, at, number, stats),
            "agent_message" => {
                let text = content_text(item.get("content").unwrap_or(&Value::Null));
                if text.trim().is_empty() {
                    return;
                }
                let author = item.get("author").and_then(Value::as_str);
                let text = match author {
                    Some(a) => format!("({a}) {text}"),
                    None => text,
                };
                let text = bounded(text, self.opts.max_message_bytes);
                self.emit(Message::event(Role::Agent, text, None, at, number), stats);
            }
            "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call" => {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or(match kind {
                        "local_shell_call" => "local_shell",
                        "tool_search_call" => "tool_search",
                        _ => "tool",
                    })
                    .to_string();
                let input = call_input(kind, &name, item);
                let id = call_id();
                if self.emitted_calls.contains(&id) {
                    return; // its CommandExecution came first and was shown
                }
                let exit_code = self.exit_codes.remove(&id);
                let call = ToolCall {
                    call_id: id.clone(),
                    name,
                    input,
                    output: None,
                    exit_code,
                    failed: false,
                    at,
                    line: number,
                };
                if let Some(previous) = self.pending.insert(id, call) {
                    self.emit_call(previous, stats);
                }
            }
            "web_search_call" => {
                let action = item.get("action").unwrap_or(&Value::Null);
                let input = action
                    .get("query")
                    .or_else(|| action.get("url"))
                    .map(compact_json)
                    .unwrap_or_default();
                let call = ToolCall {
                    call_id: call_id(),
                    name: "web_search".into(),
                    input,
                    output: None,
                    exit_code: None,
                    failed: false,
                    at,
                    line: number,
                };
                self.emit(Event::ToolCall(call), stats);
            }
            // reasoning, ghost snapshots, compaction tokens, images and unknown kinds.
            _ => {}
        }
    }

    /// Dispatches one response item given as JSON text: noise is dropped
    /// unparsed, tool outputs are read without decoding their middle, the
    /// rest is parsed.
    fn item(&mut self, raw: &str, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        let Ok(t) = serde_json::from_str::<TypeOnly>(raw) else {
            return;
        };
        if codex_would_send(t.kind.as_deref(), raw) {
            stats.codex_input_bytes += raw.len() as u64;
        }
        match t.kind.as_deref() {
            Some(
                "reasoning"
                | "ghost_snapshot"
                | "compaction"
                | "compaction_summary"
                | "context_compaction"
                | "image_generation_call"
                | "additional_tools",
            ) => {}
            Some("function_call_output" | "custom_tool_call_output" | "tool_search_output") => {
                self.output_item(raw, at, number, stats)
            }
            _ => {
                if let Ok(item) = serde_json::from_str::<Value>(raw) {
                    self.response_item(&item, at, number, stats);
                }
            }
        }
    }

    /// A tool's output, paired with its call.
    fn output_item(&mut self, raw: &str, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        #[derive(Deserialize)]
        struct OutputItem<'a> {
            #[serde(default)]
            call_id: Option<String>,
            #[serde(default)]
            id: Option<String>,
            #[serde(borrow, default)]
            output: Option<&'a RawValue>,
            #[serde(borrow, default)]
            tools: Option<&'a RawValue>,
        }
        let Ok(item) = serde_json::from_str::<OutputItem>(raw) else {
            return;
        };
        let id = item.call_id.or(item.id).unwrap_or_default();
        let text = match item.output.or(item.tools) {
            // The pre-0.1xx JSON wrapper carries the exit code: decode it whole.
            Some(r) if r.get().starts_with("\"{") => {
                serde_json::from_str::<String>(r.get()).unwrap_or_default()
            }
            Some(r) if r.get().starts_with('"') => {
                json_string_bounded(r.get(), self.opts.max_output_bytes).unwrap_or_default()
            }
            Some(r) => match serde_json::from_str::<Value>(r.get()) {
                Ok(Value::Array(parts)) => content_text(&Value::Array(parts)),
                Ok(Value::Object(o)) => o
                    .get("content")
                    .map(compact_json)
                    .unwrap_or_else(|| Value::Object(o.clone()).to_string()),
                Ok(other) => other.to_string(),
                Err(_) => String::new(),
            },
            None => String::new(),
        };
        self.finish_output(id, &text, at, number, stats);
    }

    /// Pairs an output with its call (or records an orphan) and emits the call.
    fn finish_output(
        &mut self,
        id: String,
        text: &str,
        at: Option<i64>,
        number: u64,
        stats: &mut ReadStats,
    ) {
        if !self.pending.contains_key(&id) && self.emitted_calls.contains(&id) {
            return; // the output of a call shown already (from its CommandExecution)
        }
        let (output, code) = codex_output(text);
        let mut call = self.pending.remove(&id).unwrap_or_else(|| ToolCall {
            call_id: id.clone(),
            name: "tool".into(),
            input: String::new(),
            output: None,
            exit_code: None,
            failed: false,
            at,
            line: number,
        });
        if code.is_some() {
            call.exit_code = code;
        }
        call.output = Some(bounded(output, self.opts.max_output_bytes));
        self.emit_call(call, stats);
    }

    fn message_item(&mut self, item: &Value, at: Option<i64>, number: u64, stats: &mut ReadStats) {
        let role = item.get("role").and_then(Value::as_str).unwrap_or("");
        let content = item.get("content").unwrap_or(&Value::Null);
        match role {
            "assistant" => {
                let reply = Message::reply(&content_text(content), phase_of(item), at, number);
                let id = item.get("id").and_then(Value::as_str).map(str::to_string);
                self.assistant_reply(id, reply, false, stats);
            }
            // Envelope files take the human's words from event_msg/user_message.
            "user" if self.legacy => {
                let mut parts = Vec::new();
                for part in content.as_array().into_iter().flatten() {
                    match part.get("type").and_then(Value::as_str) {
                        Some("input_text") => {
                            let t = part.get("text").and_then(Value::as_str).unwrap_or("");
                            if let Some(cwd) =
                                environment_cwd(t).filter(|_| self.info.cwd.is_none())
                            {
                                self.info.cwd = Some(cwd);
                            }
                            if !is_codex_injected(t)
                                && !carries_memkit_block(t)
                                && !t.trim().is_empty()
                            {
                                parts.push(codex_request_text(t).to_string());
                            }
                        }
                        Some("input_image") => parts.push("[image]".into()),
                        _ => {}
                    }
                }
                if parts.is_empty() {
                    return;
                }
                let text = bounded(parts.join("\n"), self.opts.max_message_bytes);
                self.emit(Message::event(Role::User, text, None, at, number), stats);
            }
            // developer / system messages and (in envelope files) the user echo.
            _ => {}
        }
    }

    /// Emits a finished call; a code-mode script whose commands were
    /// emitted on their own is dropped.
    fn emit_call(&mut self, mut call: ToolCall, stats: &mut ReadStats) {
        if self.scripts_with_commands.remove(&call.call_id) {
            return;
        }
        call.failed |= call.exit_code.is_some_and(|c| c != 0);
        self.emitted_calls.insert(call.call_id.clone());
        self.emit(Event::ToolCall(call), stats);
    }

    fn finish(&mut self, stats: &mut ReadStats) {
        let mut left: Vec<ToolCall> = self.pending.drain().map(|(_, c)| c).collect();
        left.sort_by_key(|c| c.line);
        for call in left {
            self.emit_call(call, stats);
        }
        self.flush_reply(stats);
        self.release(true, stats);
    }
}

/// Whether a unified-exec output's header says the process was still
/// running when the chunk was taken (`Process running with session ID N`).
fn still_running(output: &str) -> bool {
    output
        .lines()
        .take(4)
        .any(|l| l.starts_with("Process running with session ID "))
}

/// Joins the text parts of a content array; images become `[image]`.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out: Vec<String> = Vec::new();
            for part in parts {
                match part.get("type").and_then(Value::as_str) {
                    Some("input_image" | "image") => out.push("[image]".into()),
                    Some("input_audio") => out.push("[audio]".into()),
                    Some("input_file") => out.push("[file]".into()),
                    _ => {
                        if let Some(t) = part.get("text").and_then(Value::as_str) {
                            out.push(t.to_string());
                        }
                    }
                }
            }
            out.join("\n")
        }
        _ => String::new(),
    }
}

/// Whether Codex's memory pipeline keeps a response item of type `kind` in
/// the model input (its persistence filter: messages but the developer's,
/// tool calls and their outputs, web searches).
fn codex_would_send(kind: Option<&str>, raw: &str) -> bool {
    match kind {
        Some("message") => !raw.contains(r#""role":"developer""#),
        Some(
            "agent_message"
            | "local_shell_call"
            | "function_call"
            | "function_call_output"
            | "custom_tool_call"
            | "custom_tool_call_output"
            | "tool_search_call"
            | "tool_search_output"
            | "web_search_call",
        ) => true,
        _ => false,
    }
}

/// The text of a 0.169+ item's `content` (`[{type: "text"|"Text", text}]`);
/// images become `[image]`.
fn item_text(content: &Value) -> String {
    let Some(parts) = content.as_array() else {
        return content_text(content);
    };
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some(t) if t.eq_ignore_ascii_case("text") => {
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    out.push(text.to_string());
                }
            }
            Some(t) if t.to_ascii_lowercase().contains("image") => out.push("[image]".into()),
            _ => {}
        }
    }
    out.join("\n")
}

/// Commentary or final answer, from an item's `phase` in either spelling.
fn phase_of(item: &Value) -> Option<Phase> {
    match item.get("phase").and_then(Value::as_str) {
        Some("commentary") => Some(Phase::Commentary),
        Some("final_answer" | "finalAnswer" | "final") => Some(Phase::FinalAnswer),
        _ => None,
    }
}

/// Whether two records are the same reply: the same item id, or (when
/// either lacks one) the same visible text.
fn same_reply(a_id: Option<&str>, a: &Message, b_id: Option<&str>, b: &Message) -> bool {
    match (a_id, b_id) {
        (Some(x), Some(y)) => x == y,
        _ => a.text.trim() == b.text.trim(),
    }
}

/// The readable input of a tool call: the command line for shells, the raw
/// input for freeform tools, compact arguments otherwise.
fn call_input(kind: &str, name: &str, item: &Value) -> String {
    if kind == "local_shell_call" {
        let cmd = item
            .get("action")
            .and_then(|a| a.get("command"))
            .cloned()
            .unwrap_or(Value::Null);
        return shell_command(&cmd);
    }
    if kind == "custom_tool_call" {
        return item.get("input").map(compact_json).unwrap_or_default();
    }
    let args_text = item.get("arguments").map(compact_json).unwrap_or_default();
    let args: Value = serde_json::from_str(&args_text).unwrap_or(Value::Null);
    match name {
        "shell" | "container.exec" | "shell_command" => {
            args.get("command").map(shell_command).unwrap_or(args_text)
        }
        "exec_command" => args.get("cmd").map(compact_json).unwrap_or(args_text),
        "write_stdin" => args
            .get("chars")
            .map(|c| format!("stdin: {}", compact_json(c)))
            .unwrap_or(args_text),
        _ => args_text,
    }
}

/// A shell command from its argv form, without the `bash -lc` wrapper.
fn shell_command(cmd: &Value) -> String {
    match cmd {
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [sh, flag, script] if (sh.ends_with("sh")) && flag.starts_with('-') => {
                    script.to_string()
                }
                _ => words.join(" "),
            }
        }
        other => compact_json(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_ids() {
        let p = Path::new("rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl");
        assert_eq!(
            id_from_file_name(p).as_deref(),
            Some("019a93b9-f380-7600-98ff-940e6b99603c")
        );
        let z =
            Path::new("rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl.zst");
        assert_eq!(
            id_from_file_name(z).as_deref(),
            Some("019a93b9-f380-7600-98ff-940e6b99603c")
        );
        assert_eq!(id_from_file_name(Path::new("notes.jsonl")), None);
    }

    #[test]
    fn shell_commands_lose_their_wrapper() {
        let v = serde_json::json!(["bash", "-lc", "cargo test"]);
        assert_eq!(shell_command(&v), "cargo test");
        let v = serde_json::json!(["ls", "-la"]);
        assert_eq!(shell_command(&v), "ls -la");
    }
}
