//! The `threads` table: memkit's catalog of sessions found on disk.

use crate::catalog::eligibility::Facts;
use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

/// One catalogued session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadRow {
    /// Thread / session id.
    pub id: String,
    /// `codex` or `claude`.
    pub tool: String,
    /// Where the session file is (Codex's column name).
    pub rollout_path: String,
    /// File size when last read.
    pub file_size: i64,
    /// File mtime when last read, Unix nanoseconds.
    pub file_mtime_ns: i64,
    /// Session start, Unix seconds.
    pub created_at: Option<i64>,
    /// Last update = file mtime, Unix seconds (as in Codex).
    pub updated_at: i64,
    /// Working directory.
    pub cwd: Option<String>,
    /// Git branch.
    pub git_branch: Option<String>,
    /// Session source (`cli`, `vscode`, `exec`, `subagent`, …).
    pub source: String,
    /// Client that wrote the file.
    pub originator: Option<String>,
    /// Tool version.
    pub cli_version: Option<String>,
    /// Model of the first turn.
    pub model: Option<String>,
    /// Parent session of a sub-agent or fork.
    pub parent_thread_id: Option<String>,
    /// `enabled`, `disabled` or `polluted`.
    pub memory_mode: String,
    /// Archived by the user (Codex `archived_sessions/`).
    pub archived: bool,
    /// First human message, shortened (empty: the session has no human message).
    pub preview: String,
    /// Human messages.
    pub human_turns: i64,
    /// Assistant messages.
    pub assistant_messages: i64,
    /// Tool calls.
    pub tool_calls: i64,
    /// Lines skipped as malformed.
    pub malformed_lines: i64,
    /// Why the file could not be read, if it could not.
    pub read_error: Option<String>,
    /// What was wrong in a file that was read (malformed lines skipped, at `file:line`).
    pub read_warning: Option<String>,
    /// Set by `memkit forget`: never extract this session again.
    pub forgotten_at: Option<i64>,
    /// Whether the file was present at the last scan.
    pub present: bool,
    /// When the row was last written, Unix seconds.
    pub scanned_at: i64,
    /// The newest `updated_at` its extraction covers (kept by the database's
    /// triggers from `stage1_outputs` and `jobs`; never written by a scan).
    pub extracted_through: Option<i64>,
}

const COLUMNS: &str = "id, tool, rollout_path, file_size, file_mtime_ns, created_at, updated_at, cwd, \
    git_branch, source, originator, cli_version, model, parent_thread_id, memory_mode, archived, \
    preview, human_turns, assistant_messages, tool_calls, malformed_lines, read_error, forgotten_at, \
    present, scanned_at, read_warning, extracted_through";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ThreadRow> {
    Ok(ThreadRow {
        id: r.get(0)?,
        tool: r.get(1)?,
        rollout_path: r.get(2)?,
        file_size: r.get(3)?,
        file_mtime_ns: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
        cwd: r.get(7)?,
        git_branch: r.get(8)?,
        source: r.get(9)?,
        originator: r.get(10)?,
        cli_version: r.get(11)?,
        model: r.get(12)?,
        parent_thread_id: r.get(13)?,
        memory_mode: r.get(14)?,
        archived: r.get::<_, i64>(15)? != 0,
        preview: r.get(16)?,
        human_turns: r.get(17)?,
        assistant_messages: r.get(18)?,
        tool_calls: r.get(19)?,
        malformed_lines: r.get(20)?,
        read_error: r.get(21)?,
        forgotten_at: r.get(22)?,
        present: r.get::<_, i64>(23)? != 0,
        scanned_at: r.get(24)?,
        read_warning: r.get(25)?,
        extracted_through: r.get(26)?,
    })
}

/// Inserts or refreshes a session from a fresh read of its file.
///
/// `forgotten_at` is never touched here: forgetting outlives re-scans;
/// `extracted_through` belongs to the database's triggers.
pub fn upsert(conn: &Connection, t: &ThreadRow) -> Result<()> {
    conn.execute(
        "INSERT INTO threads (id, tool, rollout_path, file_size, file_mtime_ns, created_at, updated_at, cwd,
            git_branch, source, originator, cli_version, model, parent_thread_id, memory_mode, archived,
            preview, human_turns, assistant_messages, tool_calls, malformed_lines, read_error,
            present, scanned_at, read_warning)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
            ?20, ?21, ?22, 1, ?23, ?24)
         ON CONFLICT(id) DO UPDATE SET tool = excluded.tool, rollout_path = excluded.rollout_path,
            file_size = excluded.file_size, file_mtime_ns = excluded.file_mtime_ns,
            created_at = excluded.created_at, updated_at = excluded.updated_at, cwd = excluded.cwd,
            git_branch = excluded.git_branch, source = excluded.source, originator = excluded.originator,
            cli_version = excluded.cli_version, model = excluded.model,
            parent_thread_id = excluded.parent_thread_id, memory_mode = excluded.memory_mode,
            archived = excluded.archived, preview = excluded.preview,
            human_turns = excluded.human_turns, assistant_messages = excluded.assistant_messages,
            tool_calls = excluded.tool_calls, malformed_lines = excluded.malformed_lines,
            read_error = excluded.read_error, present = 1, scanned_at = excluded.scanned_at,
            read_warning = excluded.read_warning",
        params![
            t.id,
            t.tool,
            t.rollout_path,
            t.file_size,
            t.file_mtime_ns,
            t.created_at,
            t.updated_at,
            t.cwd,
            t.git_branch,
            t.source,
            t.originator,
            t.cli_version,
            t.model,
            t.parent_thread_id,
            t.memory_mode,
            t.archived as i64,
            t.preview,
            t.human_turns,
            t.assistant_messages,
            t.tool_calls,
            t.malformed_lines,
            t.read_error,
            t.scanned_at,
            t.read_warning,
        ],
    )?;
    Ok(())
}

/// Every catalogued session, newest first.
pub fn list(conn: &Connection) -> Result<Vec<ThreadRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM threads ORDER BY updated_at DESC, id DESC"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Calls `f` with every catalogued session's id, tool and eligibility
/// facts, in no particular order, reading the columns in place: judging a
/// catalog of thousands of sessions copies none of their rows.
pub fn each_facts(conn: &Connection, mut f: impl FnMut(&str, &str, Facts<'_>)) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, tool, read_error, present, forgotten_at IS NOT NULL, memory_mode, source,
                archived, human_turns, updated_at, extracted_through
         FROM threads INDEXED BY idx_threads_facts",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let text = |i: usize| -> rusqlite::Result<&str> {
            r.get_ref(i)?.as_str().map_err(rusqlite::Error::from)
        };
        let facts = Facts {
            read_error: r
                .get_ref(2)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?,
            present: r.get::<_, i64>(3)? != 0,
            forgotten: r.get::<_, i64>(4)? != 0,
            memory_mode: text(5)?,
            source: text(6)?,
            archived: r.get::<_, i64>(7)? != 0,
            human_turns: r.get(8)?,
            updated_at: r.get(9)?,
            extracted_through: r.get(10)?,
        };
        f(text(0)?, text(1)?, facts);
    }
    Ok(())
}

/// A session file as cite-import needs it.
#[derive(Debug, Clone)]
pub struct SessionFileRef {
    /// Thread id.
    pub id: String,
    /// `codex` or `claude`.
    pub tool: String,
    /// The session file.
    pub rollout_path: String,
    /// Its size when catalogued.
    pub file_size: i64,
    /// Its mtime when catalogued.
    pub file_mtime_ns: i64,
    /// Its last update, Unix seconds.
    pub updated_at: i64,
}

/// The present, readable sessions updated at or after `since` (Unix
/// seconds) whose file cite-import has not read at its current size and
/// mtime, newest first: only the columns that locate their files.
pub fn not_cite_scanned_since(conn: &Connection, since: i64) -> Result<Vec<SessionFileRef>> {
    let mut stmt = conn.prepare(
        "SELECT id, tool, rollout_path, file_size, file_mtime_ns, updated_at
         FROM threads INDEXED BY idx_threads_cite_pending
         WHERE present = 1 AND read_error IS NULL AND updated_at >= ?1
           AND (cite_scanned_size IS NOT file_size OR cite_scanned_mtime_ns IS NOT file_mtime_ns)
         ORDER BY updated_at DESC, id DESC",
    )?;
    let rows = stmt.query_map([since], |r| {
        Ok(SessionFileRef {
            id: r.get(0)?,
            tool: r.get(1)?,
            rollout_path: r.get(2)?,
            file_size: r.get(3)?,
            file_mtime_ns: r.get(4)?,
            updated_at: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The present, not forgotten sessions whose last read found a problem (an
/// error or skipped lines), by path.
pub fn with_read_problems(conn: &Connection) -> Result<Vec<ThreadRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM threads WHERE present = 1 AND forgotten_at IS NULL \
         AND (read_error IS NOT NULL OR read_warning IS NOT NULL) ORDER BY rollout_path"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// One session by id.
pub fn get(conn: &Connection, id: &str) -> Result<Option<ThreadRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM threads WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// One session by the path of its file.
fn get_by_path(conn: &Connection, path: &str) -> Result<Option<ThreadRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM threads WHERE rollout_path = ?1 ORDER BY updated_at DESC LIMIT 1"),
            [path],
            from_row,
        )
        .optional()?)
}

/// The session whose file is `path`, as given or with links and `..` resolved.
pub fn find_by_file(conn: &Connection, path: &std::path::Path) -> Result<Option<ThreadRow>> {
    if let Some(row) = get_by_path(conn, &path.to_string_lossy())? {
        return Ok(Some(row));
    }
    match std::fs::canonicalize(path) {
        Ok(canonical) => get_by_path(conn, &canonical.to_string_lossy()),
        Err(_) => Ok(None),
    }
}

/// A session named by the user with its id or the start of it.
pub enum Lookup {
    /// Exactly one session.
    Found(Box<ThreadRow>),
    /// No session has that id.
    Missing,
    /// The prefix fits this many sessions.
    Ambiguous(usize),
}

impl Lookup {
    /// The session, or a usage error: `missing` when nothing matched, a
    /// request for more of the id when several did.
    pub fn require(self, id: &str, missing: impl FnOnce() -> String) -> Result<ThreadRow> {
        match self {
            Lookup::Found(row) => Ok(*row),
            Lookup::Missing => Err(crate::error::Error::usage(missing())),
            Lookup::Ambiguous(n) => Err(crate::error::Error::usage(format!(
                "{id} matches {n} sessions; give more of the id"
            ))),
        }
    }
}

/// The session with id `id`, else the only one whose id starts with it.
pub fn find_by_id_or_prefix(conn: &Connection, id: &str) -> Result<Lookup> {
    if let Some(row) = get(conn, id)? {
        return Ok(Lookup::Found(Box::new(row)));
    }
    let mut matches: Vec<ThreadRow> = list(conn)?
        .into_iter()
        .filter(|t| t.id.starts_with(id))
        .collect();
    Ok(match matches.len() {
        0 => Lookup::Missing,
        1 => Lookup::Found(Box::new(matches.remove(0))),
        n => Lookup::Ambiguous(n),
    })
}

/// Marks rows whose file was not found by a scan as absent, others as present.
pub fn set_presence(
    conn: &Connection,
    present_paths: &std::collections::HashSet<String>,
) -> Result<usize> {
    let mut stmt = conn.prepare("SELECT id, rollout_path, present FROM threads")?;
    let rows: Vec<(String, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut missing = 0;
    for (id, path, present) in rows {
        let now_present = present_paths.contains(&path);
        if !now_present {
            missing += 1;
        }
        if now_present != (present != 0) {
            conn.execute(
                "UPDATE threads SET present = ?2 WHERE id = ?1",
                params![id, now_present as i64],
            )?;
        }
    }
    Ok(missing)
}

/// Applies what Codex's own index says about a thread; returns whether a row changed.
pub fn apply_codex_state(
    conn: &Connection,
    id: &str,
    source: Option<&str>,
    memory_mode: Option<&str>,
    archived: Option<bool>,
) -> Result<bool> {
    let n = conn.execute(
        "UPDATE threads SET source = COALESCE(?2, source), memory_mode = COALESCE(?3, memory_mode),
            archived = COALESCE(?4, archived)
         WHERE id = ?1 AND tool = 'codex'
           AND (source IS NOT COALESCE(?2, source) OR memory_mode IS NOT COALESCE(?3, memory_mode)
                OR archived IS NOT COALESCE(?4, archived))",
        params![id, source, memory_mode, archived.map(|a| a as i64)],
    )?;
    Ok(n > 0)
}

/// Marks sessions as forgotten (never extracted again); returns how many rows changed.
pub fn set_forgotten(conn: &Connection, ids: &[String], at: i64) -> Result<usize> {
    let mut n = 0;
    for id in ids {
        n += conn.execute(
            "UPDATE threads SET forgotten_at = ?2 WHERE id = ?1",
            params![id, at],
        )?;
    }
    Ok(n)
}
