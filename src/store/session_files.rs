//! The `session_files` table: which file was read when, so unchanged files are
//! never opened again (size + mtime, as a build tool would).

use crate::error::Result;
use rusqlite::{Connection, params};
use std::collections::HashMap;

/// What a scan recorded about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// Size in bytes when read.
    pub size: i64,
    /// mtime when read, Unix nanoseconds.
    pub mtime_ns: i64,
    /// The thread the file belongs to.
    pub thread_id: String,
}

/// A recorded file's size and mtime, as a scan compares them with disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Size in bytes when read.
    pub size: i64,
    /// mtime when read, Unix nanoseconds.
    pub mtime_ns: i64,
}

/// Every recorded file's size and mtime, by path.
pub fn all(conn: &Connection) -> Result<HashMap<String, Seen>> {
    let mut stmt = conn.prepare("SELECT path, size, mtime_ns FROM session_files")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            Seen {
                size: r.get(1)?,
                mtime_ns: r.get(2)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the recorded files are exactly `found` (path → size and mtime):
/// every one of them, and no other, at the size and mtime recorded.
pub fn all_as_found(conn: &Connection, found: &HashMap<&str, Seen>) -> Result<bool> {
    let mut stmt = conn.prepare_cached("SELECT path, size, mtime_ns FROM session_files")?;
    let mut rows = stmt.query([])?;
    let mut matched = 0;
    while let Some(r) = rows.next()? {
        let path = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
        let recorded = Seen {
            size: r.get(1)?,
            mtime_ns: r.get(2)?,
        };
        if found.get(path) != Some(&recorded) {
            return Ok(false);
        }
        matched += 1;
    }
    Ok(matched == found.len())
}

/// Records that `path` was read.
pub fn record(
    conn: &Connection,
    path: &str,
    tool: &str,
    stamp: &FileStamp,
    read_error: Option<&str>,
    now: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO session_files (path, tool, size, mtime_ns, thread_id, read_error, scanned_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(path) DO UPDATE SET tool = excluded.tool, size = excluded.size,
            mtime_ns = excluded.mtime_ns, thread_id = excluded.thread_id,
            read_error = excluded.read_error, scanned_at = excluded.scanned_at",
        params![
            path,
            tool,
            stamp.size,
            stamp.mtime_ns,
            stamp.thread_id,
            read_error,
            now
        ],
    )?;
    Ok(())
}

/// Forgets a file that is no longer on disk.
pub fn remove(conn: &Connection, path: &str) -> Result<()> {
    conn.execute("DELETE FROM session_files WHERE path = ?1", [path])?;
    Ok(())
}
