//! Extraction inputs prepared by the scan while it reads a changed file, so a
//! session that changed and is extracted in the same run is read once.
//!
//! The scan reads the files of sessions the run may extract (their mtime in
//! the run's idle and age windows) with messages whole, as the catalog needs
//! them, and tool outputs cut as the model input needs them; each event goes
//! both to the catalog and to an [`InputCollector`]. The extraction takes an
//! input only when the file was catalogued at the size and mtime it was read
//! at, and prepares the others as before. What is held waiting for the
//! extraction is bounded ([`HELD_BYTES`], counting each file being read at
//! the most its input can hold); past it, a file is read again by the
//! extraction, as without read-ahead. A session as catalogued that can never
//! be extracted (forgotten, memory off, not interactive) is not read ahead.

use super::eligibility::{self, Ineligible, Windows};
use crate::config::Config;
use crate::modelinput::{InputCollector, Limits, PreparedInput, SessionRef};
use crate::sources::discover::SessionFile;
use crate::store::threads::ThreadRow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// At most this many bytes of prepared inputs (twice their transcripts:
/// the kept events and the rendered text) wait for the extraction.
pub const HELD_BYTES: usize = 16 << 20;

/// Which files a scan prepares inputs for, and how.
#[derive(Debug, Clone, Copy)]
pub struct InputPlan {
    /// The extraction's token budget per session (`extract_input_tokens`).
    pub budget_tokens: usize,
    /// The run's idle and age windows.
    pub windows: Windows,
}

impl InputPlan {
    /// The plan of an extraction within `windows`, at the configured input
    /// budget.
    pub fn new(cfg: &Config, windows: Windows) -> InputPlan {
        InputPlan {
            budget_tokens: cfg.extract_input_tokens,
            windows,
        }
    }

    /// Whether the run may extract `file`'s session: not archived, and its
    /// mtime (a session's `updated_at`) inside the windows.
    pub fn covers(&self, file: &SessionFile) -> bool {
        !file.archived && self.windows.admit(file.mtime_ns / 1_000_000_000).is_ok()
    }

    /// Whether the session as catalogued (`row`, from an earlier read of its
    /// file) can never be extracted whatever the new read finds: forgotten,
    /// its memory off, or not an interactive session.
    pub fn rules_out(&self, cfg: &Config, row: &ThreadRow) -> bool {
        matches!(
            eligibility::check(row.into(), cfg, self.windows, false, true),
            Err(Ineligible::Forgotten
                | Ineligible::MemoryDisabled { .. }
                | Ineligible::NonInteractive { .. })
        )
    }

    /// The most an input of this plan can hold ([`ReadAhead::weight`] of a
    /// transcript at the full budget, and a little for the cut marker).
    pub fn max_weight(&self) -> usize {
        (self
            .budget_tokens
            .saturating_mul(crate::util::text::APPROX_BYTES_PER_TOKEN)
            + 256)
            .saturating_mul(2)
    }

    /// A collector for one file's input.
    pub fn collector(&self) -> InputCollector {
        InputCollector::new(self.budget_tokens, Limits::default())
    }
}

/// An input prepared from a file at this size and mtime.
#[derive(Debug, Clone)]
struct PreparedFile {
    size: i64,
    mtime_ns: i64,
    input: PreparedInput,
}

/// The inputs a scan prepared, by file path; each is taken at most once.
#[derive(Debug, Clone, Default)]
pub struct ReadAhead {
    inputs: Arc<Mutex<HashMap<String, PreparedFile>>>,
    held: Arc<AtomicUsize>,
    taken: Arc<AtomicUsize>,
}

impl ReadAhead {
    /// Room for an input of about `bytes`, if the held inputs leave it.
    pub(super) fn reserve(&self, bytes: usize) -> bool {
        let before = self.held.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes > HELD_BYTES {
            self.release(bytes);
            return false;
        }
        true
    }

    /// Gives back room taken by [`ReadAhead::reserve`].
    pub(super) fn release(&self, bytes: usize) {
        let _ = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                Some(held.saturating_sub(bytes))
            });
    }

    /// What an input holds, for [`ReadAhead::reserve`].
    pub(super) fn weight(input: &PreparedInput) -> usize {
        input.transcript.len() * 2
    }

    /// Keeps `input` (its room [reserved](ReadAhead::reserve)), read from
    /// the file of `row` at the size and mtime `row` records.
    pub(super) fn keep(&self, row: &ThreadRow, input: PreparedInput) {
        let file = PreparedFile {
            size: row.file_size,
            mtime_ns: row.file_mtime_ns,
            input,
        };
        let replaced = match self.inputs.lock() {
            Ok(mut inputs) => inputs.insert(row.rollout_path.clone(), file),
            Err(_) => None,
        };
        if let Some(old) = replaced {
            self.release(Self::weight(&old.input));
        }
    }

    /// Drops every input not taken (the extraction is over).
    pub fn clear(&self) {
        if let Ok(mut inputs) = self.inputs.lock() {
            let weight: usize = inputs.values().map(|f| Self::weight(&f.input)).sum();
            inputs.clear();
            self.release(weight);
        }
    }

    /// The input prepared for `row`'s file, if it was read at the size and
    /// mtime `row` records (else the file changed since: prepare anew).
    pub fn take(&self, row: &ThreadRow) -> Option<PreparedInput> {
        let file = self.inputs.lock().ok()?.remove(&row.rollout_path)?;
        self.release(Self::weight(&file.input));
        let current = (file.size, file.mtime_ns) == (row.file_size, row.file_mtime_ns)
            && file.input.session == SessionRef::from(row);
        if current {
            self.taken.fetch_add(1, Ordering::Relaxed);
        }
        current.then_some(file.input)
    }

    /// How many inputs were taken (sessions read once for the catalog and
    /// their extraction).
    pub fn taken(&self) -> usize {
        self.taken.load(Ordering::Relaxed)
    }
}
