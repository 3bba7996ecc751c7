//! Session-log readers: one per agent, behind one normalised transcript.
//!
//! Readers stream a file line by line (a multi-megabyte file is never held
//! whole) and hand [`Event`]s to a sink as they complete. Injected context
//! (AGENTS.md blocks, environment context, system reminders, developer
//! messages), reasoning, encrypted content and duplicates never become events;
//! images become a placeholder.

pub mod claude;
pub mod codex;
mod codex_fast;
pub mod codex_state;
pub mod discover;
pub mod lines;
mod shrink;
mod text;

pub use text::bounded;

use crate::error::{Error, Result};
use crate::readpath::citations::{Citation, split_reply};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Which agent wrote a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// OpenAI Codex (CLI, desktop, IDE, exec).
    Codex,
    /// Anthropic Claude Code.
    Claude,
}

impl Tool {
    /// The name used in the database and output.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Codex => "codex",
            Tool::Claude => "claude",
        }
    }

    /// Parses `codex` or `claude`.
    pub fn parse(s: &str) -> Option<Tool> {
        match s {
            "codex" => Some(Tool::Codex),
            "claude" => Some(Tool::Claude),
            _ => None,
        }
    }
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human at the keyboard.
    User,
    /// The agent's own replies.
    Assistant,
    /// Another agent (inter-agent mail, a sub-agent's report).
    Agent,
}

/// Whether an assistant message is a progress update or the turn's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// A progress update written while working.
    Commentary,
    /// The answer that ends a turn.
    FinalAnswer,
}

/// A message in the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// The text, without injected context; images are `[image]`.
    pub text: String,
    /// Commentary or final answer (assistant messages of newer Codex builds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// When it was written, Unix milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
    /// 1-based line in the session file.
    pub line: u64,
    /// What an assistant reply cited from memory (its citation block, which
    /// is removed from `text`, or Codex's structured `memory_citation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation: Option<Citation>,
}

/// Tools whose input is a shell command line, across agents and versions.
const SHELL_TOOLS: &[&str] = &[
    "shell",
    "exec_command",
    "local_shell",
    "Bash",
    "shell_command",
    "container.exec",
];

/// Whether `name` is a tool that runs a shell command line.
pub fn is_shell_tool(name: &str) -> bool {
    SHELL_TOOLS.contains(&name)
}

impl Message {
    /// A message event.
    pub fn event(
        role: Role,
        text: String,
        phase: Option<Phase>,
        at: Option<i64>,
        line: u64,
    ) -> Event {
        Event::Message(Message {
            role,
            text,
            phase,
            at,
            line,
            citation: None,
        })
    }

    /// An assistant reply: citation blocks are cut from the text (as Codex
    /// shows a reply) and kept as its citation.
    pub fn reply(text: &str, phase: Option<Phase>, at: Option<i64>, line: u64) -> Message {
        let (visible, citation) = split_reply(text);
        Message {
            role: Role::Assistant,
            text: visible,
            phase,
            at,
            line,
            citation,
        }
    }
}

/// A tool call paired with its output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call id that joins call and output.
    pub call_id: String,
    /// Tool name (`shell`, `exec_command`, `apply_patch`, `Bash`, `Edit`, …).
    pub name: String,
    /// What was asked: the command line for shells, the arguments otherwise.
    pub input: String,
    /// What came back, if anything did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Exit code of a command, when the log has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether the call failed (non-zero exit or an error result).
    pub failed: bool,
    /// When the call was made, Unix milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
    /// 1-based line of the call in the session file.
    pub line: u64,
}

/// One step of a normalised transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A human, assistant or agent message.
    Message(Message),
    /// A tool call with its output.
    ToolCall(ToolCall),
}

/// What a session file says about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SessionInfo {
    /// Thread / session id (Codex thread UUID, Claude session UUID, or a sub-agent id).
    pub id: String,
    /// Working directory the session started in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Git branch, when the session ran in a checkout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// Session source: `cli`, `vscode`, `exec`, `mcp`, `subagent`, `sdk-cli`, … (`unknown` if unsaid).
    pub source: String,
    /// The client that wrote the file (`codex-tui`, `Codex Desktop`, `claude-code`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub originator: Option<String>,
    /// Version of the tool that wrote the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// The model of the first turn, when logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `enabled` unless the session opted out of memories (`disabled`).
    pub memory_mode: String,
    /// The parent session of a sub-agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Session start, Unix milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<i64>,
}

impl SessionInfo {
    /// Every field taken from the log made single-line and control-free, so
    /// no value can forge lines where it is written (`raw_memories.md`, the
    /// summaries) or drive the terminal where it is printed.
    fn make_inert(&mut self) {
        use crate::util::text::inert_line;
        for field in [&mut self.id, &mut self.source, &mut self.memory_mode] {
            *field = inert_line(field);
        }
        for field in [
            &mut self.cwd,
            &mut self.git_branch,
            &mut self.originator,
            &mut self.cli_version,
            &mut self.model,
            &mut self.parent_id,
        ]
        .into_iter()
        .flatten()
        {
            *field = inert_line(field);
        }
    }
}

/// Counts a reader keeps while reading a file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReadStats {
    /// Non-empty lines read.
    pub lines: u64,
    /// Bytes read (after decompression).
    pub bytes: u64,
    /// Lines that were not valid JSON (or not a known shape) and were skipped.
    pub malformed: u64,
    /// The first few malformed line numbers, for messages.
    pub malformed_lines: Vec<u64>,
    /// Lines longer than [`lines::MAX_LINE_BYTES`], skipped unread.
    pub overlong: u64,
    /// The first few over-long line numbers.
    pub overlong_lines: Vec<u64>,
    /// Whether an unterminated last line failed to parse (the agent may still be writing).
    pub partial_tail: bool,
    /// Human messages emitted.
    pub human_turns: u64,
    /// Assistant messages emitted.
    pub assistant_messages: u64,
    /// Tool calls emitted.
    pub tool_calls: u64,
    /// Bytes of the response items Codex's own memory pipeline would send
    /// a model for this session (Codex rollouts only; 0 otherwise), for the
    /// cost comparison.
    pub codex_input_bytes: u64,
}

/// Counts one more skipped line and remembers its number, up to
/// [`ReadStats::MAX_REMEMBERED_LINES`].
fn remember(count: &mut u64, lines: &mut Vec<u64>, line: u64) {
    *count += 1;
    if lines.len() < ReadStats::MAX_REMEMBERED_LINES {
        lines.push(line);
    }
}

impl ReadStats {
    /// How many malformed line numbers are remembered.
    pub const MAX_REMEMBERED_LINES: usize = 20;

    pub(crate) fn record_malformed(&mut self, line: u64) {
        remember(&mut self.malformed, &mut self.malformed_lines, line);
    }

    /// Counts line `line`, skipped for being over-long.
    pub(crate) fn skip_overlong(&mut self, line: u64) {
        self.lines += 1;
        remember(&mut self.overlong, &mut self.overlong_lines, line);
    }

    pub(crate) fn count(&mut self, event: &Event) {
        match event {
            Event::Message(m) if m.role == Role::User => self.human_turns += 1,
            Event::Message(m) if m.role == Role::Assistant => self.assistant_messages += 1,
            Event::Message(_) => {}
            Event::ToolCall(_) => self.tool_calls += 1,
        }
    }

    /// A one-line description of skipped lines: `2 malformed line(s) skipped
    /// at file:12, file:40`, and over-long ones the same way.
    pub fn malformed_summary(&self, path: &Path) -> Option<String> {
        let place = |count: u64, lines: &[u64], what: String| {
            let at: Vec<String> = lines
                .iter()
                .map(|l| format!("{}:{l}", path.display()))
                .collect();
            let more = if count as usize > lines.len() {
                ", …"
            } else {
                ""
            };
            format!("{count} {what} skipped at {}{more}", at.join(", "))
        };
        let mut parts = Vec::new();
        if self.malformed > 0 {
            parts.push(place(
                self.malformed,
                &self.malformed_lines,
                "malformed line(s)".into(),
            ));
        }
        if self.overlong > 0 {
            parts.push(place(
                self.overlong,
                &self.overlong_lines,
                format!("line(s) over {} MiB", lines::MAX_LINE_BYTES >> 20),
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Options that bound what a reader keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Tool outputs longer than this keep their head and tail (`None`: keep all).
    pub max_output_bytes: Option<usize>,
    /// Messages longer than this keep their head and tail (`None`: keep all).
    pub max_message_bytes: Option<usize>,
}

/// A session read whole: what `show-session` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Transcript {
    /// The file that was read.
    pub path: PathBuf,
    /// Which agent wrote it.
    pub tool: Tool,
    /// Session metadata.
    pub info: SessionInfo,
    /// Counts from the read.
    pub stats: ReadStats,
    /// The conversation, in order of completion.
    pub events: Vec<Event>,
}

/// Streams a session file, calling `sink` for every event as it completes.
///
/// Returns the session metadata and read counts. Errors only when the file
/// cannot be opened or read, or holds nothing at all; broken lines are skipped
/// and counted.
pub fn stream_session(
    path: &Path,
    tool: Tool,
    opts: ReadOptions,
    sink: &mut dyn FnMut(Event),
) -> Result<(SessionInfo, ReadStats)> {
    let mut stats = ReadStats::default();
    let mut counted = |ev: Event, stats: &mut ReadStats| {
        stats.count(&ev);
        sink(ev);
    };
    let mut info = match tool {
        Tool::Codex => codex::read(path, opts, &mut stats, &mut counted)?,
        Tool::Claude => claude::read(path, opts, &mut stats, &mut counted)?,
    };
    info.make_inert();
    if stats.lines == 0 {
        return Err(Error::failed(format!(
            "{}: empty session file",
            path.display()
        )));
    }
    Ok((info, stats))
}

/// Reads a whole session into memory.
pub fn read_transcript(path: &Path, tool: Tool, opts: ReadOptions) -> Result<Transcript> {
    let mut events = Vec::new();
    let (info, stats) = stream_session(path, tool, opts, &mut |e| events.push(e))?;
    Ok(Transcript {
        path: path.to_path_buf(),
        tool,
        info,
        stats,
        events,
    })
}

/// Guesses which agent wrote a file from its path and first line.
pub fn detect_tool(path: &Path) -> Option<Tool> {
    let name = path.file_name()?.to_string_lossy();
    if name.starts_with("rollout-") {
        return Some(Tool::Codex);
    }
    let mut first = None;
    let _ = lines::for_each_line(path, &mut |_, line| {
        if !line.trim().is_empty() {
            first = Some(line.to_string());
            return false;
        }
        true
    });
    let v: serde_json::Value = serde_json::from_str(first.as_deref()?).ok()?;
    let has = |k: &str| v.get(k).is_some();
    if has("sessionId") || has("leafUuid") || has("parentUuid") || has("messageId") {
        return Some(Tool::Claude);
    }
    if has("payload") || has("instructions") || has("record_type") || has("id") {
        return Some(Tool::Codex);
    }
    match v.get("type").and_then(|t| t.as_str()) {
        Some("summary" | "file-history-snapshot" | "user" | "assistant" | "system") => {
            Some(Tool::Claude)
        }
        Some(_) => Some(Tool::Codex),
        None => None,
    }
}
