//! Recording a stage run in the `runs` table around the stage's work.

use crate::error::Result;
use crate::store::{Store, runs};
use crate::util::time::now_secs;

/// How a stage ended, for the `runs` table.
pub trait StageOutcome {
    /// `ok`, `partial`, `failed` or `skipped`.
    fn outcome(&self) -> &'static str;
    /// Counts to store (JSON object).
    fn counts(&self) -> serde_json::Value;
    /// Model tokens (input, output).
    fn tokens(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// Runs `work` as stage `stage` of run `run_id`, recording start, end and outcome.
/// A stage that returns an error is recorded as failed with its message.
pub fn record_stage<T: StageOutcome>(
    store: &mut Store,
    run_id: &str,
    stage: &str,
    work: impl FnOnce(&mut Store) -> Result<T>,
) -> Result<T> {
    let id = runs::start(store.conn(), run_id, stage, now_secs())?;
    crate::store::ledger::set_current_run(Some(run_id));
    let result = work(store);
    crate::store::ledger::set_current_run(None);
    crate::util::alloc::release_free_memory();
    let (outcome, counts, tokens, error) = match &result {
        Ok(r) => (r.outcome(), r.counts(), r.tokens(), None),
        Err(e) => ("failed", serde_json::json!({}), (0, 0), Some(e.to_string())),
    };
    runs::finish(
        store.conn(),
        id,
        &runs::Finish {
            outcome,
            counts: &counts,
            tokens_in: tokens.0 as i64,
            tokens_out: tokens.1 as i64,
            error: error.as_deref(),
        },
        now_secs(),
    )?;
    result
}

/// Records model tokens spent outside a stage (a search's embeddings) as a
/// finished run of `stage`, with what `book` puts in the cost ledger
/// booked to the same run.
pub fn record_spend(
    store: &Store,
    stage: &str,
    tokens_in: u64,
    book: impl FnOnce(&Store),
) -> Result<()> {
    let now = now_secs();
    let run_id = crate::util::ids::new_uuid_v4();
    let id = runs::start(store.conn(), &run_id, stage, now)?;
    crate::store::ledger::set_current_run(Some(&run_id));
    book(store);
    crate::store::ledger::set_current_run(None);
    runs::finish(
        store.conn(),
        id,
        &runs::Finish {
            outcome: "ok",
            counts: &serde_json::json!({}),
            tokens_in: tokens_in as i64,
            tokens_out: 0,
            error: None,
        },
        now,
    )
}
