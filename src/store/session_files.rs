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

/// The `kv` key of the fingerprint of the recorded files: set by a scan
/// that leaves them exactly as it found them on disk, dropped by the
/// database's triggers on any other write to `session_files`.
pub const FINGERPRINT_KEY: &str = "session_files_fingerprint";

/// A fingerprint of session files (path, size and mtime, in the walk's
/// path order), for [`FINGERPRINT_KEY`]. Two sets with the same fingerprint
/// are the same set but for a 64-bit hash collision; a Rust release that
/// hashes differently only costs one full scan.
pub fn fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, Seen)>) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    let mut count: u64 = 0;
    for (path, seen) in files {
        path.hash(&mut hasher);
        seen.size.hash(&mut hasher);
        seen.mtime_ns.hash(&mut hasher);
        count += 1;
    }
    format!("{count}:{:016x}", hasher.finish())
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
