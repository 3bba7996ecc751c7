//! Which sessions phase 1 may extract, and if not, why not.
//!
//! Codex's rules: the session has a human message, comes from an interactive
//! source, has memories enabled, is not archived, has been idle at least
//! `min_rollout_idle_hours`, was updated within `max_rollout_age_days`, and
//! changed since its last successful extraction.

use crate::config::Config;
use crate::store::threads::ThreadRow;
use crate::util::time::{human_duration, rfc3339};
use serde::Serialize;

/// Why a session is not (yet) extracted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Ineligible {
    /// The file could not be read.
    Unreadable {
        /// The read error.
        error: String,
    },
    /// The file is gone from disk.
    Missing,
    /// `memkit forget` removed it.
    Forgotten,
    /// The session opted out of memories (`disabled`) or was polluted.
    MemoryDisabled {
        /// The memory mode.
        mode: String,
    },
    /// Not an interactive source (`exec`, `mcp`, sub-agents…).
    NonInteractive {
        /// The session source.
        source: String,
    },
    /// Archived by the user.
    Archived,
    /// No human message in the session.
    NoHumanMessage,
    /// Still inside its idle window.
    TooRecent {
        /// When it becomes eligible, Unix seconds.
        eligible_at: i64,
    },
    /// Older than the age window.
    TooOld,
    /// Already extracted at this version.
    UpToDate,
}

impl Ineligible {
    /// A short machine name: `too_recent`, `up_to_date`, …
    pub fn code(&self) -> &'static str {
        match self {
            Ineligible::Unreadable { .. } => "unreadable",
            Ineligible::Missing => "missing",
            Ineligible::Forgotten => "forgotten",
            Ineligible::MemoryDisabled { .. } => "memory_disabled",
            Ineligible::NonInteractive { .. } => "non_interactive",
            Ineligible::Archived => "archived",
            Ineligible::NoHumanMessage => "no_human_message",
            Ineligible::TooRecent { .. } => "too_recent",
            Ineligible::TooOld => "too_old",
            Ineligible::UpToDate => "already_extracted",
        }
    }

    /// A one-line explanation for people.
    pub fn describe(&self, now: i64) -> String {
        match self {
            Ineligible::Unreadable { error } => format!("unreadable: {error}"),
            Ineligible::Missing => "file is gone".into(),
            Ineligible::Forgotten => "forgotten".into(),
            Ineligible::MemoryDisabled { mode } => format!("memory {mode}"),
            Ineligible::NonInteractive { source } => format!("non-interactive source ({source})"),
            Ineligible::Archived => "archived".into(),
            Ineligible::NoHumanMessage => "no human message".into(),
            Ineligible::TooRecent { eligible_at } => format!(
                "too recent (idle window ends in {}, at {})",
                human_duration(eligible_at - now),
                rfc3339(*eligible_at)
            ),
            Ineligible::TooOld => "too old (outside the age window)".into(),
            Ineligible::UpToDate => "already extracted".into(),
        }
    }
}

/// The time windows of one selection.
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    /// Now, Unix seconds.
    pub now: i64,
    /// Minimum idle time in seconds.
    pub idle_secs: i64,
    /// Maximum age in seconds (`None`: no limit).
    pub max_age_secs: Option<i64>,
}

impl Windows {
    /// Whether a session last updated at `updated_at` (Unix seconds) has
    /// been idle long enough and is not too old.
    pub fn admit(&self, updated_at: i64) -> Result<(), Ineligible> {
        let eligible_at = updated_at + self.idle_secs;
        if eligible_at > self.now {
            return Err(Ineligible::TooRecent { eligible_at });
        }
        if let Some(max_age) = self.max_age_secs
            && updated_at < self.now - max_age
        {
            return Err(Ineligible::TooOld);
        }
        Ok(())
    }

    /// The windows of the configuration at `now`.
    pub fn from_config(cfg: &Config, now: i64) -> Windows {
        Windows {
            now,
            idle_secs: cfg.min_rollout_idle.as_secs() as i64,
            max_age_secs: Some(cfg.max_rollout_age.as_secs() as i64),
        }
    }
}

/// What eligibility reads of a catalogued session, borrowed: a whole
/// catalog is judged without copying its rows ([`threads::each_facts`]).
///
/// [`threads::each_facts`]: crate::store::threads::each_facts
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// Why the file could not be read, if it could not.
    pub read_error: Option<&'a str>,
    /// Whether the file was present at the last scan.
    pub present: bool,
    /// Whether `memkit forget` removed it.
    pub forgotten: bool,
    /// `enabled`, `disabled` or `polluted`.
    pub memory_mode: &'a str,
    /// Session source (`cli`, `exec`, …).
    pub source: &'a str,
    /// Archived by the user.
    pub archived: bool,
    /// Human messages.
    pub human_turns: i64,
    /// Last update, Unix seconds.
    pub updated_at: i64,
    /// The newest `updated_at` its extraction covers, if it was extracted.
    pub extracted_through: Option<i64>,
}

impl<'a> From<&'a ThreadRow> for Facts<'a> {
    fn from(row: &'a ThreadRow) -> Facts<'a> {
        Facts {
            read_error: row.read_error.as_deref(),
            present: row.present,
            forgotten: row.forgotten_at.is_some(),
            memory_mode: &row.memory_mode,
            source: &row.source,
            archived: row.archived,
            human_turns: row.human_turns,
            updated_at: row.updated_at,
            extracted_through: row.extracted_through,
        }
    }
}

/// Whether a session is eligible.
///
/// With `explicit` (the user named this session with `--thread` / `--file`),
/// the idle and age windows and the interactive-source filter do not apply;
/// with `force`, neither does "already extracted".
pub fn check(
    row: Facts<'_>,
    cfg: &Config,
    w: Windows,
    explicit: bool,
    force: bool,
) -> Result<(), Ineligible> {
    if let Some(error) = row.read_error {
        return Err(Ineligible::Unreadable {
            error: error.to_string(),
        });
    }
    if !row.present {
        return Err(Ineligible::Missing);
    }
    if row.forgotten {
        return Err(Ineligible::Forgotten);
    }
    if row.memory_mode != "enabled" {
        return Err(Ineligible::MemoryDisabled {
            mode: row.memory_mode.to_string(),
        });
    }
    if !explicit && !cfg.is_interactive_source(row.source) {
        return Err(Ineligible::NonInteractive {
            source: row.source.to_string(),
        });
    }
    if !explicit && row.archived {
        return Err(Ineligible::Archived);
    }
    if row.human_turns == 0 {
        return Err(Ineligible::NoHumanMessage);
    }
    if !explicit {
        w.admit(row.updated_at)?;
    }
    if !force && row.extracted_through.is_some_and(|x| x >= row.updated_at) {
        return Err(Ineligible::UpToDate);
    }
    Ok(())
}
