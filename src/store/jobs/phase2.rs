//! The global phase-2 job: one lease for the whole memory folder, with a
//! heartbeat while the backend runs, an optional cooldown, and a retry budget
//! that stops a failing consolidation instead of retrying it forever.

use super::{KIND_PHASE2, PHASE2_KEY};
use crate::error::Result;
use crate::util::ids::new_uuid_v4;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

/// Result of trying to take the consolidation lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase2Claim {
    /// Ours.
    Claimed {
        /// Ownership token.
        token: String,
        /// The job's input watermark at claim time.
        input_watermark: i64,
    },
    /// Another worker holds a live lease.
    Running {
        /// Who holds it.
        worker: Option<String>,
        /// Until when, Unix seconds.
        lease_until: i64,
    },
    /// The last success was too recent (configured cooldown).
    Cooldown {
        /// When the cooldown ends.
        until: i64,
    },
    /// Failed recently; retry after `retry_at`.
    Backoff {
        /// Earliest retry.
        retry_at: i64,
        /// The failure.
        last_error: Option<String>,
    },
    /// Failed `max_retries` times; waits for new input or `--force`.
    RetriesExhausted {
        /// The last failure.
        last_error: Option<String>,
    },
}

/// How to claim.
#[derive(Debug, Clone, Copy)]
pub struct Phase2ClaimOptions {
    /// Lease length, seconds.
    pub lease_secs: i64,
    /// Minimum time after a success before the next run, seconds.
    pub cooldown_secs: i64,
    /// Retry budget of a fresh job.
    pub max_retries: i64,
    /// Ignore backoff, cooldown and an exhausted budget (a live lease still wins).
    pub force: bool,
}

/// The phase-2 job as `memkit status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Phase2Job {
    /// `pending`, `running`, `done` or `error`.
    pub status: String,
    /// Lease holder.
    pub worker_id: Option<String>,
    /// Lease end.
    pub lease_until: Option<i64>,
    /// Last start.
    pub started_at: Option<i64>,
    /// Last end.
    pub finished_at: Option<i64>,
    /// Earliest retry after a failure.
    pub retry_at: Option<i64>,
    /// Retries left.
    pub retry_remaining: i64,
    /// Last failure.
    pub last_error: Option<String>,
    /// Input watermark.
    pub input_watermark: Option<i64>,
    /// Watermark of the last success.
    pub last_success_watermark: Option<i64>,
}

/// The phase-2 job row, if any.
pub fn phase2_job(conn: &Connection) -> Result<Option<Phase2Job>> {
    Ok(conn
        .query_row(
            "SELECT status, worker_id, lease_until, started_at, finished_at, retry_at, retry_remaining,
                last_error, input_watermark, last_success_watermark
             FROM jobs WHERE kind = ?1 AND job_key = ?2",
            params![KIND_PHASE2, PHASE2_KEY],
            |r| {
                Ok(Phase2Job {
                    status: r.get(0)?,
                    worker_id: r.get(1)?,
                    lease_until: r.get(2)?,
                    started_at: r.get(3)?,
                    finished_at: r.get(4)?,
                    retry_at: r.get(5)?,
                    retry_remaining: r.get(6)?,
                    last_error: r.get(7)?,
                    input_watermark: r.get(8)?,
                    last_success_watermark: r.get(9)?,
                })
            },
        )
        .optional()?)
}

/// Tries to take the consolidation lease.
pub fn try_claim_phase2(
    conn: &mut Connection,
    worker_id: &str,
    opts: Phase2ClaimOptions,
    now: i64,
) -> Result<Phase2Claim> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let token = new_uuid_v4();
    let lease_until = now + opts.lease_secs;
    let Some(job) = phase2_job(&tx)? else {
        tx.execute(
            "INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at, lease_until,
                retry_remaining, input_watermark, last_success_watermark)
             VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, 0, 0)",
            params![KIND_PHASE2, PHASE2_KEY, worker_id, token, now, lease_until, opts.max_retries],
        )?;
        tx.commit()?;
        return Ok(Phase2Claim::Claimed {
            token,
            input_watermark: 0,
        });
    };
    if super::lease_held(&job.status, job.lease_until, job.worker_id.as_deref(), now) {
        return Ok(Phase2Claim::Running {
            worker: job.worker_id,
            lease_until: job.lease_until.unwrap_or(now),
        });
    }
    // The configured budget caps the job's (an enqueued job starts with the default).
    let budget = job.retry_remaining.min(opts.max_retries);
    if !opts.force {
        if job.last_error.is_some() && budget <= 0 {
            return Ok(Phase2Claim::RetriesExhausted {
                last_error: job.last_error,
            });
        }
        if let Some(retry_at) = job.retry_at.filter(|r| *r > now) {
            return Ok(Phase2Claim::Backoff {
                retry_at,
                last_error: job.last_error,
            });
        }
        if opts.cooldown_secs > 0
            && job.last_error.is_none()
            && let Some(finished) = job.finished_at.filter(|f| *f > now - opts.cooldown_secs)
        {
            return Ok(Phase2Claim::Cooldown {
                until: finished + opts.cooldown_secs,
            });
        }
    }
    let retry_remaining = if opts.force && budget <= 0 { 1 } else { budget };
    tx.execute(
        "UPDATE jobs SET status = 'running', worker_id = ?3, ownership_token = ?4, started_at = ?5,
            lease_until = ?6, retry_at = NULL, retry_remaining = ?7
         WHERE kind = ?1 AND job_key = ?2",
        params![
            KIND_PHASE2,
            PHASE2_KEY,
            worker_id,
            token,
            now,
            lease_until,
            retry_remaining
        ],
    )?;
    tx.commit()?;
    Ok(Phase2Claim::Claimed {
        token,
        input_watermark: job.input_watermark.unwrap_or(0),
    })
}

/// Extends the lease; `false` when the lease was lost.
pub fn heartbeat_phase2(conn: &Connection, token: &str, lease_secs: i64, now: i64) -> Result<bool> {
    super::extend_lease(conn, KIND_PHASE2, PHASE2_KEY, token, now + lease_secs)
}

/// Records a successful consolidation and the exact snapshots it consumed.
/// `false` (and nothing changed) when the lease was lost.
pub fn mark_phase2_succeeded(
    conn: &mut Connection,
    token: &str,
    watermark: i64,
    max_retries: i64,
    selection: &[(String, i64)],
    now: i64,
) -> Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let n = tx.execute(
        "UPDATE jobs SET status = 'done', finished_at = ?4, lease_until = NULL, last_error = NULL,
            retry_at = NULL, retry_remaining = ?5,
            last_success_watermark = MAX(COALESCE(last_success_watermark, 0), ?6)
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![KIND_PHASE2, PHASE2_KEY, token, now, max_retries, watermark],
    )?;
    if n == 0 {
        return Ok(false);
    }
    crate::store::stage1::mark_selected(&tx, selection)?;
    tx.commit()?;
    Ok(true)
}

/// Records a failed consolidation: one retry spent, retry after `retry_delay` seconds.
pub fn mark_phase2_failed(
    conn: &Connection,
    token: &str,
    reason: &str,
    retry_delay: i64,
    now: i64,
) -> Result<bool> {
    let n = conn.execute(
        "UPDATE jobs SET status = 'error', finished_at = ?4, lease_until = NULL, retry_at = ?5,
            retry_remaining = MAX(retry_remaining - 1, 0), last_error = ?6
         WHERE kind = ?1 AND job_key = ?2 AND status = 'running' AND ownership_token = ?3",
        params![
            KIND_PHASE2,
            PHASE2_KEY,
            token,
            now,
            now + retry_delay,
            reason
        ],
    )?;
    Ok(n > 0)
}
