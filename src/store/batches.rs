//! OpenAI batches memkit submitted (`batches`) and the claimed sessions each
//! one holds (`batch_items`).
//!
//! A batch is recorded with its sessions *before* its file is uploaded, so a
//! crash at any point leaves a row the next run can finish or undo: a
//! `preparing` batch may or may not have reached OpenAI (its file is looked
//! up by name), an `uploaded` one may or may not have been created (it is
//! looked up by its `memkit_batch` metadata), a `submitted` one is polled.

use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// One batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchRow {
    /// memkit's id (the file name and the batch's `memkit_batch` metadata).
    pub id: String,
    /// OpenAI's batch id, once created.
    pub remote_id: Option<String>,
    /// OpenAI's id of the uploaded input file.
    pub input_file_id: Option<String>,
    /// `preparing`, `uploaded`, `submitted`, `collected` or `released`.
    pub state: String,
    /// The batch's status at OpenAI when last polled.
    pub remote_status: Option<String>,
    /// The model the requests ask for.
    pub model: String,
    /// When memkit recorded it.
    pub created_at: i64,
    /// When OpenAI accepted it.
    pub submitted_at: Option<i64>,
    /// When OpenAI gives up on it.
    pub expires_at: Option<i64>,
    /// When memkit collected or released it.
    pub finished_at: Option<i64>,
    /// Sessions in it.
    pub sessions: i64,
    /// Why it was released, or what its collection met.
    pub error: Option<String>,
}

/// One claimed session in a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    /// The session (also the request's `custom_id`).
    pub thread_id: String,
    /// The claim's ownership token.
    pub token: String,
    /// The session version claimed.
    pub source_updated_at: i64,
    /// Bytes of the prompt (system and user message), to estimate tokens.
    pub prompt_bytes: i64,
    /// For a Codex session, the bytes Codex's own pipeline would have sent.
    pub codex_bytes: Option<i64>,
}

/// Records a new batch in state `preparing` (its sessions are added as
/// they are claimed).
pub fn insert(conn: &Connection, id: &str, model: &str, now: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO batches (id, state, model, created_at, sessions) VALUES (?1, 'preparing', ?2, ?3, 0)",
        params![id, model, now],
    )?;
    Ok(())
}

/// Adds a claimed session to batch `id` (still `preparing`).
pub fn add_item(conn: &Connection, id: &str, item: &BatchItem) -> Result<()> {
    conn.execute(
        "INSERT INTO batch_items (batch_id, thread_id, token, source_updated_at, prompt_bytes, codex_bytes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            item.thread_id,
            item.token,
            item.source_updated_at,
            item.prompt_bytes,
            item.codex_bytes
        ],
    )?;
    // One more (a session added twice fails on the key above): counting
    // the items again per insert would make a 50,000-request batch quadratic.
    conn.execute(
        "UPDATE batches SET sessions = sessions + 1 WHERE id = ?1",
        [id],
    )?;
    Ok(())
}

/// Forgets batch `id`, which never held a session.
pub fn delete(conn: &Connection, id: &str) -> Result<()> {
    conn.execute("DELETE FROM batch_items WHERE batch_id = ?1", [id])?;
    conn.execute("DELETE FROM batches WHERE id = ?1", [id])?;
    Ok(())
}

/// The input file reached OpenAI.
pub fn set_uploaded(conn: &Connection, id: &str, file_id: &str) -> Result<()> {
    conn.execute(
        "UPDATE batches SET input_file_id = ?2, state = 'uploaded' WHERE id = ?1 AND state = 'preparing'",
        params![id, file_id],
    )?;
    Ok(())
}

/// OpenAI created the batch.
pub fn set_submitted(
    conn: &Connection,
    id: &str,
    remote_id: &str,
    remote_status: &str,
    expires_at: Option<i64>,
    now: i64,
) -> Result<()> {
    conn.execute(
        &format!(
            "UPDATE batches SET remote_id = ?2, remote_status = ?3, expires_at = ?4,
                submitted_at = COALESCE(submitted_at, ?5), state = 'submitted'
             WHERE id = ?1 AND state IN {OPEN}"
        ),
        params![id, remote_id, remote_status, expires_at, now],
    )?;
    Ok(())
}

/// The batch's status at OpenAI, as last polled.
pub fn set_remote_status(conn: &Connection, id: &str, status: &str) -> Result<()> {
    conn.execute(
        "UPDATE batches SET remote_status = ?2 WHERE id = ?1",
        params![id, status],
    )?;
    Ok(())
}

/// The batch is over: `collected` (its results were stored) or `released`
/// (its sessions were given back without results).
pub fn finish(
    conn: &Connection,
    id: &str,
    state: &str,
    note: Option<&str>,
    now: i64,
) -> Result<()> {
    conn.execute(
        "UPDATE batches SET state = ?2, error = ?3, finished_at = ?4 WHERE id = ?1",
        params![id, state, note, now],
    )?;
    Ok(())
}

/// The states of a batch that is not finished, as an SQL list.
const OPEN: &str = "('preparing', 'uploaded', 'submitted')";

const COLUMNS: &str = "id, remote_id, input_file_id, state, remote_status, model, created_at,
    submitted_at, expires_at, finished_at, sessions, error";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<BatchRow> {
    Ok(BatchRow {
        id: r.get(0)?,
        remote_id: r.get(1)?,
        input_file_id: r.get(2)?,
        state: r.get(3)?,
        remote_status: r.get(4)?,
        model: r.get(5)?,
        created_at: r.get(6)?,
        submitted_at: r.get(7)?,
        expires_at: r.get(8)?,
        finished_at: r.get(9)?,
        sessions: r.get(10)?,
        error: r.get(11)?,
    })
}

/// Batches not finished yet, oldest first.
pub fn open(conn: &Connection) -> Result<Vec<BatchRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM batches WHERE state IN {OPEN} ORDER BY created_at, id"
    ))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The prompt bytes of every session `model`'s open batches hold: what
/// OpenAI counts against its enqueued-token limit, before estimation.
pub fn open_prompt_bytes(conn: &Connection, model: &str) -> Result<i64> {
    Ok(conn.query_row(
        &format!(
            "SELECT COALESCE(SUM(i.prompt_bytes), 0) FROM batch_items i
             JOIN batches b ON b.id = i.batch_id
             WHERE b.model = ?1 AND b.state IN {OPEN}"
        ),
        [model],
        |r| r.get(0),
    )?)
}

/// The sessions held by batches not finished yet.
pub fn held_sessions(conn: &Connection) -> Result<std::collections::HashSet<String>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT i.thread_id FROM batch_items i JOIN batches b ON b.id = i.batch_id
             WHERE b.state IN {OPEN}"
    ))?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The batch `id`.
pub fn get(conn: &Connection, id: &str) -> Result<Option<BatchRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM batches WHERE id = ?1"),
            [id],
            row,
        )
        .optional()?)
}

/// The sessions of batch `id`.
pub fn items(conn: &Connection, id: &str) -> Result<Vec<BatchItem>> {
    let mut stmt = conn.prepare(
        "SELECT thread_id, token, source_updated_at, prompt_bytes, codex_bytes FROM batch_items
         WHERE batch_id = ?1 ORDER BY thread_id",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(BatchItem {
            thread_id: r.get(0)?,
            token: r.get(1)?,
            source_updated_at: r.get(2)?,
            prompt_bytes: r.get(3)?,
            codex_bytes: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
