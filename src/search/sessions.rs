//! `memkit search --sessions`: the catalogued sessions' transcripts, indexed
//! lazily (a session is read the first time a search asks for sessions after
//! it changed), redacted and compacted as for extraction, and bounded: each
//! session keeps the head and tail of its transcript within
//! [`SESSION_BUDGET_TOKENS`].

use super::query::{Group, match_any};
use crate::error::Result;
use crate::modelinput::{Limits, prepare};
use crate::store::threads::{self, ThreadRow};
use rusqlite::{Connection, OptionalExtension, params};

/// The transcript budget of one session in the index, estimated tokens
/// (about 16 KiB of text).
pub const SESSION_BUDGET_TOKENS: usize = 4096;

/// What a lazy index update did.
#[derive(Debug, Clone, Default)]
pub struct SessionIndexReport {
    /// Sessions read and (re-)indexed.
    pub indexed: usize,
    /// Sessions dropped (forgotten, disabled, or gone from the catalog).
    pub dropped: usize,
    /// Sessions that could not be read (left for the next search).
    pub unreadable: usize,
}

/// A session that matches.
#[derive(Debug, Clone)]
pub struct SessionHit {
    /// Thread id.
    pub thread_id: String,
    /// Working directory.
    pub project: Option<String>,
    /// Last update, Unix seconds.
    pub date: i64,
    /// The transcript around the matched terms.
    pub snippet: String,
    /// BM25 (lower is better).
    pub bm25: f64,
}

/// Whether a catalogued session may be searched: present, not forgotten,
/// and not excluded from memory by its agent.
fn searchable(row: &ThreadRow) -> bool {
    row.present && row.forgotten_at.is_none() && row.memory_mode == "enabled"
}

/// Indexes the sessions that changed since they were indexed; drops those
/// that may no longer be searched.
pub fn refresh(conn: &mut Connection) -> Result<SessionIndexReport> {
    let mut report = SessionIndexReport::default();
    let rows = threads::list(conn)?;
    let tx = conn.transaction()?;
    let mut keep = std::collections::HashSet::new();
    for row in &rows {
        if !searchable(row) {
            continue;
        }
        keep.insert(row.id.as_str());
        let indexed: Option<(i64, i64)> = tx
            .query_row(
                "SELECT file_size, file_mtime_ns FROM session_index WHERE thread_id = ?1",
                [&row.id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if indexed == Some((row.file_size, row.file_mtime_ns)) {
            continue;
        }
        let session = crate::stages::extract::session_ref(row);
        let Ok(input) = prepare(session, SESSION_BUDGET_TOKENS, Limits::default()) else {
            report.unreadable += 1;
            continue;
        };
        drop_session(&tx, &row.id)?;
        tx.execute(
            "INSERT INTO session_fts (body, thread_id, project, date) VALUES (?1, ?2, ?3, ?4)",
            params![input.transcript, row.id, row.cwd, row.updated_at],
        )?;
        tx.execute(
            "INSERT INTO session_index (thread_id, file_size, file_mtime_ns, fts_rowid)
             VALUES (?1, ?2, ?3, last_insert_rowid())",
            params![row.id, row.file_size, row.file_mtime_ns],
        )?;
        report.indexed += 1;
    }
    let stale: Vec<String> = {
        let mut stmt = tx.prepare("SELECT thread_id FROM session_index")?;
        let ids = stmt.query_map([], |r| r.get::<_, String>(0))?;
        ids.collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter(|id| !keep.contains(id.as_str()))
            .collect()
    };
    for id in stale {
        drop_session(&tx, &id)?;
        report.dropped += 1;
    }
    tx.commit()?;
    Ok(report)
}

/// Removes a session from the transcript index.
pub fn drop_session(conn: &Connection, thread_id: &str) -> Result<()> {
    conn.execute(
        "DELETE FROM session_fts WHERE rowid IN
             (SELECT fts_rowid FROM session_index WHERE thread_id = ?1)",
        [thread_id],
    )?;
    conn.execute(
        "DELETE FROM session_index WHERE thread_id = ?1",
        [thread_id],
    )?;
    Ok(())
}

/// The sessions whose transcripts match any term of `groups`, best first.
pub fn search(conn: &Connection, groups: &[Group], limit: usize) -> Result<Vec<SessionHit>> {
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT thread_id, project, date, snippet(session_fts, 0, '**', '**', '…', 24),
                bm25(session_fts)
         FROM session_fts WHERE session_fts MATCH ?1 ORDER BY bm25(session_fts) LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![match_any(groups), limit as i64], |r| {
        Ok(SessionHit {
            thread_id: r.get(0)?,
            project: r.get(1)?,
            date: r.get(2)?,
            snippet: r.get(3)?,
            bm25: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Bytes the transcript index holds (for `memkit status` and the README's sizing).
pub fn index_bytes(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT coalesce(sum(length(body)), 0) FROM session_fts",
        [],
        |r| r.get(0),
    )?)
}
