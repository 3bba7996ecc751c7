//! Codex's `jobs` lease table: per-session stage-1 claims with ownership tokens,
//! leases, a retry budget with backoff, and the enqueue of the global phase-2 job.
//!
//! Every claim is one `BEGIN IMMEDIATE` transaction, so two memkit processes
//! (or two threads with their own connections) never claim the same session.
//! Every finalisation is guarded by the claim's ownership token: a worker whose
//! lease expired and was taken over cannot overwrite the new owner's work.

mod phase2;

pub use phase2::{
    Phase2Claim, Phase2ClaimOptions, Phase2Job, heartbeat_phase2, mark_phase2_failed,
    mark_phase2_succeeded, phase2_job, try_claim_phase2,
};

use crate::error::Result;
use crate::util::ids::new_uuid_v4;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// Job kind of a per-session extraction.
pub const KIND_STAGE1: &str = "memory_stage1";
/// Job kind of the global consolidation.
pub const KIND_PHASE2: &str = "memory_consolidate_global";
/// The key of the one phase-2 job.
pub const PHASE2_KEY: &str = "global";
/// Retry budget of a new job.
pub const DEFAULT_RETRY_REMAINING: i64 = 3;
/// Lease of a claim, seconds.
pub const LEASE_SECONDS: i64 = 3600;
/// Backoff after a failure, seconds.
pub const RETRY_DELAY_SECONDS: i64 = 3600;

/// Result of trying to claim a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Ours: finish it with this token.
    Claimed {
        /// The ownership token every finalisation must present.
        token: String,
    },
    /// Already extracted at this version.
    SkippedUpToDate,
    /// Another worker holds a live lease (or the running cap is reached).
    SkippedRunning,
    /// Failed recently; retry after `retry_at`.
    SkippedRetryBackoff {
        /// Earliest retry, Unix seconds.
        retry_at: i64,
    },
    /// Failed too often at this version; waits for the session to change.
    SkippedRetryExhausted,
}

impl Claim {
    /// The reason a session was skipped, as reports count it (`claimed`
    /// for a granted claim).
    pub fn skip_reason(&self) -> &'static str {
        match self {
            Claim::Claimed { .. } => "claimed",
            Claim::SkippedUpToDate => "up_to_date",
            Claim::SkippedRunning => "running_elsewhere",
            Claim::SkippedRetryBackoff { .. } => "in_backoff",
            Claim::SkippedRetryExhausted => "retries_exhausted",
        }
    }
}

/// How to claim.
#[derive(Debug, Clone, Copy)]
pub struct ClaimOptions {
    /// Lease length in seconds.
    pub lease_secs: i64,
    /// At most this many live stage-1 leases across all workers (`None`: no cap).
    pub max_running: Option<i64>,
    /// Re-extract even if up to date, in backoff or out of retries
    /// (a live lease held by someone else still wins).
    pub force: bool,
}

impl Default for ClaimOptions {
    fn default() -> Self {
        ClaimOptions {
            lease_secs: LEASE_SECONDS,
            max_running: None,
            force: false,
        }
    }
}

struct JobRow {
    status: String,
    worker_id: Option<String>,
    lease_until: Option<i64>,
    retry_at: Option<i64>,
    retry_remaining: i64,
    input_watermark: Option<i64>,
}

/// Whether a job row is held: running, its lease not expired, and its
/// worker not known to be dead (a killed process on this machine).
fn lease_held(status: &str, lease_until: Option<i64>, worker: Option<&str>, now: i64) -> bool {
    status == "running"
        && lease_until.is_some_and(|l| l > now)
        && !worker.is_some_and(crate::util::process::worker_is_dead)
}

fn running_count(conn: &Connection, now: i64, except_key: Option<&str>) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM jobs WHERE kind = ?1 AND status = 'running' AND lease_until > ?2
            AND job_key IS NOT ?3",
        params![KIND_STAGE1, now, except_key],
        |r| r.get(0),
    )?)
}

/// Tries to claim the extraction of `thread_id` at version `source_updated_at`.
pub fn try_claim_stage1(
    conn: &mut Connection,
    thread_id: &str,
    worker_id: &str,
    source_updated_at: i64,
    opts: ClaimOptions,
    now: i64,
) -> Result<Claim> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !opts.force {
        let up_to_date: bool = tx.query_row(
            "SELECT EXISTS(SELECT 1 FROM stage1_outputs WHERE thread_id = ?1 AND source_updated_at >= ?2)
                 OR EXISTS(SELECT 1 FROM jobs WHERE kind = ?3 AND job_key = ?1
                            AND last_success_watermark >= ?2)",
            params![thread_id, source_updated_at, KIND_STAGE1],
            |r| r.get(0),
        )?;
        if up_to_date {
            return Ok(Claim::SkippedUpToDate);
        }
    }
    let existing = tx
        .query_row(
            "SELECT status, lease_until, retry_at, retry_remaining, input_watermark, worker_id
             FROM jobs WHERE kind = ?1 AND job_key = ?2",
            params![KIND_STAGE1, thread_id],
            |r| {
                Ok(JobRow {
                    status: r.get(0)?,
                    lease_until: r.get(1)?,
                    retry_at: r.get(2)?,
                    retry_remaining: r.get(3)?,
                    input_watermark: r.get(4)?,
                    worker_id: r.get(5)?,
                })
            },
        )
        .optional()?;
    let token = new_uuid_v4();
    let lease_until = now + opts.lease_secs;
    match existing {
        None => {
            if let Some(cap) = opts.max_running
                && running_count(&tx, now, None)? >= cap
            {
                return Ok(Claim::SkippedRunning);
            }
            tx.execute(
                "INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at,
                    finished_at, lease_until, retry_at, retry_remaining, last_error, input_watermark,
                    last_success_watermark)
                 VALUES (?1, ?2, 'running', ?3, ?4, ?5, NULL, ?6, NULL, ?7, NULL, ?8, NULL)",
                params![
                    KIND_STAGE1,
                    thread_id,
                    worker_id,
                    token,
                    now,
                    lease_until,
                    DEFAULT_RETRY_REMAINING,
                    source_updated_at
                ],
            )?;
        }
        Some(job) => {
            if lease_held(&job.status, job.lease_until, job.worker_id.as_deref(), now) {
                return Ok(Claim::SkippedRunning);
            }
            let advanced = source_updated_at > job.input_watermark.unwrap_or(-1);
            if !opts.force && !advanced {
                if job.retry_remaining <= 0 {
                    return Ok(Claim::SkippedRetryExhausted);
                }
                if let Some(retry_at) = job.retry_at.filter(|r| *r > now) {
                    return Ok(Claim::SkippedRetryBackoff { retry_at });
                }
            }
            if let Some(cap) = opts.max_running
                && running_count(&tx, now, Some(thread_id))? >= cap
            {
                return Ok(Claim::SkippedRunning);
            }
            let retry_remaining = if advanced || opts.force {
                DEFAULT_RETRY_REMAINING
            } else {
                job.retry_remaining
            };
            tx.execute(
                "UPDATE jobs SET status = 'running', worker_id = ?3, ownership_token = ?4,
                    started_at = ?5, finished_at = NULL, lease_until = ?6, retry_at = NULL,
                    last_error = NULL, input_watermark = ?7, retry_remaining = ?8
                 WHERE kind = ?1 AND job_key = ?2",
                params![
                    KIND_STAGE1,
                    thread_id,
                    worker_id,
                    token,
                    now,
                    lease_until,
                    source_updated_at,
                    retry_remaining
                ],
            )?;
        }
    }
    tx.commit()?;
    Ok(Claim::Claimed { token })
}

/// What was stored with an output, for the record.
#[derive(Debug, Clone, Default)]
pub struct OutputMeta {
    /// Backend name.
    pub backend: String,
    /// Model (or program).
    pub model: String,
    /// Input tokens.
    pub tokens_in: i64,
    /// Output tokens.
    pub tokens_out: i64,
}

/// Finishes a claim with an output. Returns `false` (and changes nothing) when
/// the claim was lost. On success the output row is written (unless a newer
/// version is already stored) and phase 2 is enqueued.
#[allow(clippy::too_many_arguments)]
pub fn mark_stage1_succeeded(
    conn: &mut Connection,
    thread_id: &str,
    token: &str,
    source_updated_at: i64,
    output: &crate::backends::StageOneOutput,
    meta: &OutputMeta,
    now: i64,
) -> Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let n = tx.execute(
        "UPDATE jobs SET status = 'done', finished_at = ?4, lease_until = NULL, last_error = NULL,
            last_success_watermark = input_watermark
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![KIND_STAGE1, thread_id, token, now],
    )?;
    if n == 0 {
        return Ok(false);
    }
    // `memkit forget` while the model was busy: forgetting wins, nothing is stored.
    let forgotten: bool = tx
        .query_row(
            "SELECT forgotten_at IS NOT NULL FROM threads WHERE id = ?1",
            [thread_id],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(false);
    if forgotten {
        tx.commit()?;
        return Ok(true);
    }
    tx.execute(
        "INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary,
            rollout_slug, generated_at, backend, model, tokens_in, tokens_out)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT(thread_id) DO UPDATE SET source_updated_at = excluded.source_updated_at,
            raw_memory = excluded.raw_memory, rollout_summary = excluded.rollout_summary,
            rollout_slug = excluded.rollout_slug, generated_at = excluded.generated_at,
            backend = excluded.backend, model = excluded.model, tokens_in = excluded.tokens_in,
            tokens_out = excluded.tokens_out
         WHERE excluded.source_updated_at >= stage1_outputs.source_updated_at",
        params![
            thread_id,
            source_updated_at,
            output.raw_memory,
            output.rollout_summary,
            output.rollout_slug,
            now,
            meta.backend,
            meta.model,
            meta.tokens_in,
            meta.tokens_out
        ],
    )?;
    enqueue_phase2(&tx, source_updated_at)?;
    tx.commit()?;
    Ok(true)
}

/// Finishes a claim with "nothing durable": deletes an older output, and
/// enqueues phase 2 only if one was deleted (so it can be forgotten).
pub fn mark_stage1_succeeded_no_output(
    conn: &mut Connection,
    thread_id: &str,
    token: &str,
    now: i64,
) -> Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let watermark: Option<Option<i64>> = tx
        .query_row(
            "SELECT input_watermark FROM jobs
             WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
            params![KIND_STAGE1, thread_id, token],
            |r| r.get(0),
        )
        .optional()?;
    let Some(watermark) = watermark else {
        return Ok(false);
    };
    tx.execute(
        "UPDATE jobs SET status = 'done', finished_at = ?4, lease_until = NULL, last_error = NULL,
            last_success_watermark = input_watermark
         WHERE kind = ?1 AND job_key = ?2 AND ownership_token = ?3",
        params![KIND_STAGE1, thread_id, token, now],
    )?;
    let deleted = tx.execute(
        "DELETE FROM stage1_outputs WHERE thread_id = ?1",
        [thread_id],
    )?;
    if deleted > 0 {
        enqueue_phase2(&tx, watermark.unwrap_or(0))?;
    }
    tx.commit()?;
    Ok(true)
}

/// Finishes a claim as failed: error recorded, one retry spent, retry after `retry_delay` seconds.
pub fn mark_stage1_failed(
    conn: &Connection,
    thread_id: &str,
    token: &str,
    reason: &str,
    retry_delay: i64,
    now: i64,
) -> Result<bool> {
    let n = conn.execute(
        "UPDATE jobs SET status = 'error', finished_at = ?4, lease_until = NULL, retry_at = ?5,
            retry_remaining = retry_remaining - 1, last_error = ?6
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![
            KIND_STAGE1,
            thread_id,
            token,
            now,
            now + retry_delay,
            reason
        ],
    )?;
    Ok(n > 0)
}

/// Whether the claim `token` on `thread_id` is still running (not finished,
/// given back or taken over).
pub fn claim_is_live(conn: &Connection, thread_id: &str, token: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM jobs WHERE kind = ?1 AND job_key = ?2
            AND status = 'running' AND ownership_token = ?3)",
        params![KIND_STAGE1, thread_id, token],
        |r| r.get(0),
    )?)
}

/// Extends the lease of the claim `token` on `thread_id` to `lease_secs`
/// from `now` (a batch still in flight); `false` when it is no longer held.
pub fn renew_stage1(
    conn: &Connection,
    thread_id: &str,
    token: &str,
    lease_secs: i64,
    now: i64,
) -> Result<bool> {
    extend_lease(conn, KIND_STAGE1, thread_id, token, now + lease_secs)
}

/// Moves the lease of the running job `kind`/`key` held by `token` to
/// `lease_until`; `false` when the job is no longer held by it.
fn extend_lease(
    conn: &Connection,
    kind: &str,
    key: &str,
    token: &str,
    lease_until: i64,
) -> Result<bool> {
    let n = conn.execute(
        "UPDATE jobs SET lease_until = ?4
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![kind, key, token, lease_until],
    )?;
    Ok(n > 0)
}

/// Gives a claim back without spending a retry (its batch expired or was
/// cancelled, or never reached the model): the session can be claimed again
/// at once. Returns `false` when the claim was lost.
pub fn release_stage1(
    conn: &Connection,
    thread_id: &str,
    token: &str,
    reason: &str,
    now: i64,
) -> Result<bool> {
    let n = conn.execute(
        "UPDATE jobs SET status = 'error', finished_at = ?4, lease_until = NULL, retry_at = NULL,
            last_error = ?5
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![KIND_STAGE1, thread_id, token, now, reason],
    )?;
    Ok(n > 0)
}

/// Marks the global phase-2 job as having new input (Codex's enqueue semantics:
/// a running job stays running, otherwise it becomes pending with its backoff
/// cleared; the retry budget is topped up; the watermark only moves forward).
pub fn enqueue_phase2(conn: &Connection, watermark: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO jobs (kind, job_key, status, retry_remaining, input_watermark, last_success_watermark)
         VALUES (?1, ?2, 'pending', ?3, ?4, 0)
         ON CONFLICT(kind, job_key) DO UPDATE SET
            status = CASE WHEN jobs.status = 'running' THEN 'running' ELSE 'pending' END,
            retry_at = CASE WHEN jobs.status = 'running' THEN jobs.retry_at ELSE NULL END,
            retry_remaining = MAX(jobs.retry_remaining, ?3),
            input_watermark = CASE WHEN ?4 > COALESCE(jobs.input_watermark, 0) THEN ?4
                                   ELSE COALESCE(jobs.input_watermark, 0) + 1 END",
        params![KIND_PHASE2, PHASE2_KEY, DEFAULT_RETRY_REMAINING, watermark],
    )?;
    Ok(())
}

/// One stage-1 job as `memkit status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stage1Job {
    /// Thread id.
    pub thread_id: String,
    /// `running`, `done` or `error`.
    pub status: String,
    /// Earliest retry after a failure.
    pub retry_at: Option<i64>,
    /// Retries left at this version.
    pub retry_remaining: i64,
    /// Last failure.
    pub last_error: Option<String>,
    /// Lease end of a running job.
    pub lease_until: Option<i64>,
}

/// Stage-1 jobs that are running or failed.
pub fn unfinished_stage1_jobs(conn: &Connection) -> Result<Vec<Stage1Job>> {
    let mut stmt = conn.prepare(
        "SELECT job_key, status, retry_at, retry_remaining, last_error, lease_until FROM jobs
         WHERE kind = ?1 AND status IN ('running', 'error') ORDER BY COALESCE(retry_at, 0), job_key",
    )?;
    let rows = stmt.query_map([KIND_STAGE1], |r| {
        Ok(Stage1Job {
            thread_id: r.get(0)?,
            status: r.get(1)?,
            retry_at: r.get(2)?,
            retry_remaining: r.get(3)?,
            last_error: r.get(4)?,
            lease_until: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests;
