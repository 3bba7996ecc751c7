//! `memkit search --sessions`: the catalogued sessions' transcripts, indexed
//! lazily (a session is read the first time a search asks for sessions after
//! it changed), redacted and compacted as for extraction, and bounded: each
//! session keeps the head and tail of its transcript within
//! [`SESSION_BUDGET_TOKENS`].

use super::query::{Group, match_any};
use crate::error::Result;
use crate::modelinput::{Limits, prepare};
use crate::store::threads::{self, ThreadRow};
use rusqlite::{Connection, params};
use std::collections::{HashMap, HashSet};

/// The transcript budget of one session in the index, estimated tokens
/// (about 16 KiB of text).
pub const SESSION_BUDGET_TOKENS: usize = 4096;

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

/// Indexes the sessions that changed since they were indexed (a session
/// that cannot be read now is left for the next search); drops those that
/// may no longer be searched.
pub fn refresh(conn: &mut Connection) -> Result<()> {
    let rows = threads::list(conn)?;
    let tx = conn.transaction()?;
    // thread → (size, mtime) as last indexed.
    let indexed: HashMap<String, (i64, i64)> = {
        let mut stmt =
            tx.prepare("SELECT thread_id, file_size, file_mtime_ns FROM session_index")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut keep = HashSet::new();
    for row in &rows {
        if !searchable(row) {
            continue;
        }
        keep.insert(row.id.as_str());
        if indexed.get(&row.id) == Some(&(row.file_size, row.file_mtime_ns)) {
            continue;
        }
        let session = crate::modelinput::SessionRef::from(row);
        let Ok(input) = prepare(session, SESSION_BUDGET_TOKENS, Limits::default()) else {
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
    }
    for id in indexed.keys().filter(|id| !keep.contains(id.as_str())) {
        drop_session(&tx, id)?;
    }
    tx.commit()?;
    Ok(())
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
