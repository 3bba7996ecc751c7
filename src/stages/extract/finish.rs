//! Storing what a backend answered for a claimed session: validated,
//! redacted, guarded by the claim's token, and booked in the cost ledger —
//! the same for a synchronous call and for a batch's result.

use super::{ESTIMATED_OUTPUT_TOKENS, SessionOutcome, failed_outcome, outcome};
use crate::backends::transport::openai::Usage;
use crate::backends::{ExtractResult, StageOneOutput};
use crate::config::{Config, Tokens};
use crate::error::Result;
use crate::redact::redact;
use crate::stages::spend;
use crate::store::jobs::{self, OutputMeta};
use crate::store::threads::ThreadRow;
use crate::store::{Store, ledger};
use crate::util::time::now_secs;

/// Who answered a session, for its stored output and the cost ledger.
pub(crate) struct Answerer<'a> {
    /// The configuration (prices).
    pub cfg: &'a Config,
    /// The backend's name (`openai`, `openai-batch`, …).
    pub backend: &'static str,
    /// The model that answered.
    pub model: String,
    /// Whether the answer came through the Batch API.
    pub batch: bool,
}

impl Answerer<'_> {
    /// Books the tokens the response `body` reports for an answer that could
    /// not be used (refused, cut short, not the schema): billed, though
    /// nothing is stored.
    pub(crate) fn book_unusable(&self, store: &Store, thread_id: &str, body: &serde_json::Value) {
        let usage = Usage::of(body);
        let used = Tokens {
            input: usage.input.unwrap_or(0),
            cached_input: usage.cached.unwrap_or(0),
            output: usage.output.unwrap_or(0),
        };
        if used != Tokens::default() {
            self.record(store, thread_id, used, None);
        }
    }

    /// Books one extraction in the cost ledger; a failure to book is a
    /// warning, never the session's failure.
    fn book(&self, store: &Store, row: &ThreadRow, used: Tokens, codex_bytes: Option<u64>) {
        let codex = codex_bytes.map(|b| {
            let output = if used.output > 0 {
                used.output
            } else {
                ESTIMATED_OUTPUT_TOKENS as u64
            };
            spend::codex_tokens(b, output)
        });
        self.record(store, &row.id, used, codex);
    }

    /// One ledger row for an extraction of `thread_id`.
    fn record(&self, store: &Store, thread_id: &str, used: Tokens, codex: Option<Tokens>) {
        let entry = ledger::Entry {
            stage: "extract",
            model: &self.model,
            batch: self.batch,
            thread_id: Some(thread_id),
            tokens: used,
            codex,
        };
        ledger::book(store.conn(), &self.cfg.costs, &entry, now_secs());
    }
}

/// A claimed session on its way to being finalised.
pub(crate) struct Claimed<'a> {
    /// The claim's ownership token.
    pub token: &'a str,
    /// Estimated input tokens of its prompt.
    pub estimated: usize,
    /// For a Codex session, the bytes Codex's own pipeline would have sent.
    pub codex_bytes: Option<u64>,
}

/// Stores the answer `result` for the claimed session `row` (at version
/// `row.updated_at`), or records its failure for a retry.
pub(crate) fn finalise(
    who: &Answerer<'_>,
    store: &mut Store,
    row: &ThreadRow,
    claimed: &Claimed<'_>,
    result: Result<ExtractResult>,
    release: &dyn Fn(Tokens),
) -> SessionOutcome {
    let (token, estimated) = (claimed.token, claimed.estimated);
    let now = now_secs();
    let lost = || {
        failed_outcome(
            row,
            estimated,
            "lost the claim (its lease expired and another worker took it)".into(),
        )
    };
    match result {
        Err(e) => {
            release(Tokens::default());
            let reason = crate::util::text::cut(&e.to_string(), 1000).to_string();
            match jobs::mark_stage1_failed(
                store.conn(),
                &row.id,
                token,
                &reason,
                jobs::RETRY_DELAY_SECONDS,
                now,
            ) {
                Ok(true) => failed_outcome(row, estimated, reason),
                Ok(false) => lost(),
                Err(db) => failed_outcome(
                    row,
                    estimated,
                    format!("{reason}; and recording it failed: {db}"),
                ),
            }
        }
        Ok(r) => {
            let used = Tokens {
                input: r.tokens_in,
                cached_input: r.tokens_cached,
                output: r.tokens_out,
            };
            release(used);
            who.book(store, row, used, claimed.codex_bytes);
            let output = redact_output(r.output);
            let stored = if output.is_empty() {
                jobs::mark_stage1_succeeded_no_output(store.conn_mut(), &row.id, token, now)
            } else {
                let meta = OutputMeta {
                    backend: who.backend.to_string(),
                    model: who.model.clone(),
                    tokens_in: r.tokens_in as i64,
                    tokens_out: r.tokens_out as i64,
                };
                jobs::mark_stage1_succeeded(
                    store.conn_mut(),
                    &row.id,
                    token,
                    row.updated_at,
                    &output,
                    &meta,
                    now,
                )
            };
            crate::util::crashpoint::here("extract:stored");
            let kind = if output.is_empty() {
                "no_output"
            } else {
                "succeeded"
            };
            match stored {
                Ok(true) => SessionOutcome {
                    tokens_in: r.tokens_in,
                    tokens_out: r.tokens_out,
                    ..outcome(row, kind, None, estimated)
                },
                Ok(false) => lost(),
                Err(e) => failed_outcome(row, estimated, format!("storing the output: {e}")),
            }
        }
    }
}

/// Redacts every field of a model's answer before it is stored.
fn redact_output(o: StageOneOutput) -> StageOneOutput {
    StageOneOutput {
        raw_memory: redact(&o.raw_memory).into_owned(),
        rollout_summary: redact(&o.rollout_summary).into_owned(),
        rollout_slug: o.rollout_slug.map(|s| redact(&s).into_owned()),
    }
}
