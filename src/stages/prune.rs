//! `memkit prune`: forgets stage-1 outputs nobody used, as Codex does —
//! not in the last consolidation, unused (or, never used, not updated) for
//! `max_unused_days`, stalest first, at most 200 per run. Job rows stay, so a
//! pruned session is not re-extracted unless it changes.

use crate::config::Config;
use crate::error::Result;
use crate::store::Store;
use crate::store::stage1::{self, PruneCandidate};
use serde::Serialize;

/// Codex's batch size.
pub const DEFAULT_LIMIT: usize = 200;

/// What prune did (or would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct PruneReport {
    /// Whether nothing was deleted.
    pub dry_run: bool,
    /// Outputs deleted (or that would be).
    pub pruned: Vec<PruneCandidate>,
}

impl crate::stages::StageOutcome for PruneReport {
    fn outcome(&self) -> &'static str {
        "ok"
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::json!({"pruned": self.pruned.len(), "dry_run": self.dry_run})
    }
}

/// Runs prune.
pub fn run(
    cfg: &Config,
    store: &Store,
    limit: usize,
    dry_run: bool,
    now: i64,
) -> Result<PruneReport> {
    let pruned =
        stage1::prune_candidates(store.conn(), cfg.max_unused.as_secs() as i64, limit, now)?;
    if !dry_run && !pruned.is_empty() {
        let ids: Vec<String> = pruned.iter().map(|p| p.thread_id.clone()).collect();
        stage1::delete_outputs(store.conn(), &ids)?;
    }
    Ok(PruneReport { dry_run, pruned })
}
