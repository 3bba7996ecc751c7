//! Codex's own thread index (`<codex_home>/state_*.sqlite`), read read-only.
//!
//! Codex is the authority on a thread's `source`, `memory_mode` and `archived`
//! flag once it has indexed it. The column set differs between Codex
//! versions, so columns are discovered with `PRAGMA table_info` and only those
//! that exist are read.

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// What Codex's index says about one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexThreadState {
    /// Thread id.
    pub id: String,
    /// `cli`, `vscode`, `exec`, … when the column exists.
    pub source: Option<String>,
    /// `enabled`, `disabled` or `polluted` when the column exists.
    pub memory_mode: Option<String>,
    /// Whether the thread is archived, when the column exists.
    pub archived: Option<bool>,
}

/// The newest `state_<N>.sqlite` in `codex_home` (highest N).
pub fn find_state_db(codex_home: &Path) -> Option<PathBuf> {
    let mut best: Option<(u64, PathBuf)> = None;
    for entry in std::fs::read_dir(codex_home).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(n) = name
            .strip_prefix("state_")
            .and_then(|r| r.strip_suffix(".sqlite"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if best.as_ref().is_none_or(|(b, _)| n > *b) {
            best = Some((n, entry.path()));
        }
    }
    best.map(|(_, p)| p)
}

/// Reads the thread states from Codex's index, read-only.
pub fn read_thread_states(db: &Path) -> Result<Vec<CodexThreadState>, String> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("{}: {e}", db.display()))?;
    let _ = conn.busy_timeout(std::time::Duration::from_secs(2));
    let mut columns = Vec::new();
    {
        let mut stmt = conn
            .prepare("PRAGMA table_info(threads)")
            .map_err(|e| format!("{}: {e}", db.display()))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(|e| format!("{}: {e}", db.display()))?;
        for c in rows.flatten() {
            columns.push(c);
        }
    }
    if !columns.iter().any(|c| c == "id") {
        return Ok(Vec::new());
    }
    let has = |c: &str| columns.iter().any(|x| x == c);
    let pick = |c: &str| {
        if has(c) {
            c.to_string()
        } else {
            "NULL".to_string()
        }
    };
    let sql = format!(
        "SELECT id, {}, {}, {} FROM threads",
        pick("source"),
        pick("memory_mode"),
        pick("archived")
    );
    let mut stmt = conn
        .prepare(&sql)
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let rows = stmt
        .query_map([], |r| {
            Ok(CodexThreadState {
                id: r.get::<_, String>(0)?.to_ascii_lowercase(),
                source: r.get(1).ok().flatten(),
                memory_mode: r.get(2).ok().flatten(),
                archived: r.get::<_, Option<i64>>(3).ok().flatten().map(|a| a != 0),
            })
        })
        .map_err(|e| format!("{}: {e}", db.display()))?;
    Ok(rows.flatten().collect())
}
