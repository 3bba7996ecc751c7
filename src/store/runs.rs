//! The `runs` table: one row per stage run, so `memkit status` can say what happened.

use crate::error::Result;
use rusqlite::{Connection, params};
use serde::Serialize;

/// One recorded stage run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// Row id.
    pub id: i64,
    /// Groups the stages of one `memkit run` (or one command).
    pub run_id: String,
    /// Stage name.
    pub stage: String,
    /// Process id of the run.
    pub pid: Option<i64>,
    /// `memkit-<pid>@<host>` of the run (`None` for runs before schema 6).
    pub worker: Option<String>,
    /// Start, Unix seconds.
    pub started_at: i64,
    /// End, Unix seconds (`None` while running or after a crash).
    pub finished_at: Option<i64>,
    /// `running`, `ok`, `partial`, `failed` or `skipped`.
    pub outcome: String,
    /// Stage counts as JSON.
    pub counts: Option<serde_json::Value>,
    /// Model input tokens.
    pub tokens_in: i64,
    /// Model output tokens.
    pub tokens_out: i64,
    /// Error message of a failed stage.
    pub error: Option<String>,
}

/// Records the start of a stage run; returns its row id.
pub fn start(conn: &Connection, run_id: &str, stage: &str, now: i64) -> Result<i64> {
    conn.execute(
        "INSERT INTO runs (run_id, stage, pid, worker, started_at, outcome)
            VALUES (?1, ?2, ?3, ?4, ?5, 'running')",
        params![
            run_id,
            stage,
            std::process::id() as i64,
            crate::util::process::worker_id(),
            now
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The end of a stage run.
pub struct Finish<'a> {
    /// `ok`, `partial`, `failed` or `skipped`.
    pub outcome: &'a str,
    /// Stage counts.
    pub counts: &'a serde_json::Value,
    /// Model input tokens.
    pub tokens_in: i64,
    /// Model output tokens.
    pub tokens_out: i64,
    /// Error message.
    pub error: Option<&'a str>,
}

/// Records the end of a stage run.
pub fn finish(conn: &Connection, id: i64, f: &Finish<'_>, now: i64) -> Result<()> {
    conn.execute(
        "UPDATE runs SET finished_at = ?2, outcome = ?3, counts = ?4, tokens_in = ?5, tokens_out = ?6,
            error = ?7 WHERE id = ?1",
        params![id, now, f.outcome, f.counts.to_string(), f.tokens_in, f.tokens_out, f.error],
    )?;
    Ok(())
}

/// The most recent stage runs, newest first.
pub fn recent(conn: &Connection, limit: usize) -> Result<Vec<RunRecord>> {
    let mut stmt = conn.prepare(
        "SELECT id, run_id, stage, pid, started_at, finished_at, outcome, counts, tokens_in, tokens_out,
            error, worker FROM runs ORDER BY id DESC LIMIT ?1",
    )?;
    let rows = stmt.query_map([limit as i64], |r| {
        let counts: Option<String> = r.get(7)?;
        Ok(RunRecord {
            id: r.get(0)?,
            run_id: r.get(1)?,
            stage: r.get(2)?,
            pid: r.get(3)?,
            started_at: r.get(4)?,
            finished_at: r.get(5)?,
            outcome: r.get(6)?,
            counts: counts.and_then(|c| serde_json::from_str(&c).ok()),
            tokens_in: r.get(8)?,
            tokens_out: r.get(9)?,
            error: r.get(10)?,
            worker: r.get(11)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
