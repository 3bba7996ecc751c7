//! Usage: citations imported from agents' replies (`citations`, and the
//! `cite_scanned_*` columns of `threads`)
//! and the `usage_count` / `last_usage` columns of `stage1_outputs`.

use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, params};

/// Whether the citing reply `(source_key, line)` was already imported.
pub fn already_imported(conn: &Connection, source_key: &str, line: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM citations WHERE source_key = ?1 AND line = ?2",
            params![source_key, line],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// What importing one reply did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bumped {
    /// Outputs whose usage went up.
    pub bumped: usize,
    /// Valid ids with no stage-1 output.
    pub unknown: usize,
}

/// Imports one citing reply exactly once: each cited thread with an output
/// gets `usage_count + 1` and `last_usage` = the reply's time (never moving
/// backwards); the reply is recorded. Returns `None` when it was already imported.
pub fn import_reply(
    conn: &mut Connection,
    source_key: &str,
    line: i64,
    reply_at: i64,
    thread_ids: &[String],
    now: i64,
) -> Result<Option<Bumped>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    if already_imported(&tx, source_key, line)? {
        return Ok(None);
    }
    let mut result = Bumped::default();
    for id in thread_ids {
        let n = tx.execute(
            "UPDATE stage1_outputs SET usage_count = COALESCE(usage_count, 0) + 1,
                last_usage = MAX(COALESCE(last_usage, 0), ?2)
             WHERE thread_id = ?1",
            params![id, reply_at],
        )?;
        if n > 0 {
            result.bumped += 1;
        } else {
            result.unknown += 1;
        }
    }
    tx.execute(
        "INSERT INTO citations (source_key, line, reply_at, thread_ids, imported_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![source_key, line, reply_at, thread_ids.join(","), now],
    )?;
    tx.commit()?;
    Ok(Some(result))
}

/// Records that cite-import read session `thread_id`'s file at this size
/// and mtime.
pub fn record_scan(conn: &Connection, thread_id: &str, size: i64, mtime_ns: i64) -> Result<()> {
    conn.prepare_cached(
        "UPDATE threads SET cite_scanned_size = ?2, cite_scanned_mtime_ns = ?3 WHERE id = ?1",
    )?
    .execute(params![thread_id, size, mtime_ns])?;
    Ok(())
}

/// When the last citation was imported, Unix seconds.
pub fn last_import(conn: &Connection) -> Result<Option<i64>> {
    Ok(conn.query_row("SELECT MAX(imported_at) FROM citations", [], |r| r.get(0))?)
}
