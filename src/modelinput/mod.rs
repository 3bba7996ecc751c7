//! The model input of one session: the normalised transcript, redacted,
//! compacted and cut to the token budget.
//!
//! Instead of serialising raw JSON items (as Codex does), events are rendered
//! as role-tagged lines and tool calls as command + exit code + trimmed output,
//! which carries the same information in far fewer tokens. When the transcript
//! is over budget its head and tail are kept with a marker in between; memory
//! stays bounded by the budget however large the session file is.

mod budget;
mod compact;
mod render;

pub use compact::Limits;
pub use render::render_event;

use crate::error::Result;
use crate::sources::{Event, ReadOptions, ReadStats, SessionInfo, Tool, stream_session};
use crate::util::text::estimate_tokens;
use budget::HeadTail;
use std::path::PathBuf;

/// The session an input was built from.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRef {
    /// Thread id.
    pub thread_id: String,
    /// Which agent wrote it.
    pub tool: Tool,
    /// The session file.
    pub rollout_path: PathBuf,
    /// Working directory.
    pub cwd: Option<String>,
    /// Git branch.
    pub git_branch: Option<String>,
    /// Last update (file mtime), Unix seconds: the version being extracted.
    pub updated_at: i64,
}

impl From<&crate::store::threads::ThreadRow> for SessionRef {
    /// The model-input reference of a catalogued session.
    fn from(row: &crate::store::threads::ThreadRow) -> SessionRef {
        SessionRef {
            thread_id: row.id.clone(),
            tool: Tool::parse(&row.tool).unwrap_or(Tool::Codex),
            rollout_path: PathBuf::from(&row.rollout_path),
            cwd: row.cwd.clone(),
            git_branch: row.git_branch.clone(),
            updated_at: row.updated_at,
        }
    }
}

/// A session prepared for phase 1.
#[derive(Debug, Clone)]
pub struct PreparedInput {
    /// Which session.
    pub session: SessionRef,
    /// Metadata read from the file.
    pub info: SessionInfo,
    /// Counts from reading the file.
    pub stats: ReadStats,
    /// Kept events from the start of the session (redacted, compacted).
    pub head: Vec<Event>,
    /// Kept events from the end of the session (redacted, compacted).
    pub tail: Vec<Event>,
    /// Events dropped between head and tail to meet the budget.
    pub omitted_events: usize,
    /// Rendered bytes dropped between head and tail.
    pub omitted_bytes: usize,
    /// The transcript as the model sees it.
    pub transcript: String,
}

impl PreparedInput {
    /// Every kept event, head then tail.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.head.iter().chain(self.tail.iter())
    }

    /// Whether anything was cut to meet the budget.
    pub fn truncated(&self) -> bool {
        self.omitted_events > 0 || self.omitted_bytes > 0
    }

    /// Estimated tokens of the rendered transcript.
    pub fn transcript_tokens(&self) -> usize {
        estimate_tokens(self.transcript.len())
    }
}

/// Reads `path` and prepares its model input within `budget_tokens`.
pub fn prepare(session: SessionRef, budget_tokens: usize, limits: Limits) -> Result<PreparedInput> {
    let mut input = InputCollector::new(budget_tokens, limits);
    let read_opts = ReadOptions {
        max_output_bytes: Some(limits.max_output_read_bytes()),
        max_message_bytes: Some(limits.max_message_read_bytes()),
    };
    let (info, stats) = stream_session(&session.rollout_path, session.tool, read_opts, &mut |e| {
        input.push(e)
    })?;
    Ok(input.finish(session, info, stats))
}

/// A session's model input collected from its events as a read hands them
/// out: by [`prepare`], or by the catalog's read of a changed file, which
/// reads messages whole ([`InputCollector::push_whole`]) so one read serves
/// both.
pub struct InputCollector {
    limits: Limits,
    collector: HeadTail,
}

impl InputCollector {
    /// Collects within `budget_tokens`.
    pub fn new(budget_tokens: usize, limits: Limits) -> InputCollector {
        let budget_bytes = budget_tokens.saturating_mul(crate::util::text::APPROX_BYTES_PER_TOKEN);
        InputCollector {
            limits,
            collector: HeadTail::new(budget_bytes),
        }
    }

    /// How much of each tool output a read must keep for the input.
    pub fn max_output_read_bytes(&self) -> usize {
        self.limits.max_output_read_bytes()
    }

    /// Takes an event read as [`prepare`] reads them (messages cut at
    /// [`Limits::max_message_read_bytes`]).
    pub fn push(&mut self, event: Event) {
        // Every cut so far kept whole lines or redacted first (redact::cut_middle),
        // so redacting only what is kept is safe, and much cheaper.
        let event = crate::redact::redact_event(compact::compact(event, &self.limits));
        let rendered = render_event(&event);
        self.collector.push(event, rendered);
    }

    /// Takes an event read with messages whole: its message is cut as
    /// [`prepare`]'s read would have cut it, then taken as by [`push`].
    ///
    /// [`push`]: InputCollector::push
    pub fn push_whole(&mut self, mut event: Event) {
        if let Event::Message(m) = &mut event {
            let max = Some(self.limits.max_message_read_bytes());
            m.text = crate::sources::bounded(std::mem::take(&mut m.text), max);
        }
        self.push(event);
    }

    /// The input of `session`, whose read gave `info` and `stats`.
    pub fn finish(self, session: SessionRef, info: SessionInfo, stats: ReadStats) -> PreparedInput {
        let cut = self.collector.finish();
        PreparedInput {
            session,
            info,
            stats,
            head: cut.head,
            tail: cut.tail,
            omitted_events: cut.omitted_events,
            omitted_bytes: cut.omitted_bytes,
            transcript: cut.text,
        }
    }
}
