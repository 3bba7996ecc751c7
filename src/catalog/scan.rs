//! `memkit scan`: brings the `threads` catalog up to date, incrementally.
//!
//! A session's `updated_at` is its file's mtime, as in Codex. A file whose size
//! and mtime did not change since it was last read is not opened again; a file
//! that moved (archived) keeps its thread, because threads are keyed by id.

use crate::config::Config;
use crate::error::Result;
use crate::readpath::citations::Citation;
use crate::sources::discover::{SessionFile, discover};
use crate::sources::{
    Event, ReadOptions, ReadStats, Role, SessionInfo, codex_state, stream_session,
};
use crate::store::Store;
use crate::store::kv;
use crate::store::session_files::{self, FileStamp, Seen};
use crate::store::threads::{self, ThreadRow};
use crate::util::text::one_line;
use crate::util::time::now_secs;
use crate::util::time::system_time_nanos;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// What a scan did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ScanReport {
    /// Session files found on disk.
    pub files_found: usize,
    /// Files opened and parsed (new or changed).
    pub files_read: usize,
    /// Files skipped because size and mtime did not change.
    pub files_unchanged: usize,
    /// Files that could not be read or held nothing.
    pub files_failed: usize,
    /// Sessions seen for the first time.
    pub sessions_new: usize,
    /// Known sessions whose file changed.
    pub sessions_updated: usize,
    /// Catalogued sessions whose file is gone.
    pub sessions_missing: usize,
    /// Malformed lines skipped in the files read.
    pub malformed_lines: u64,
    /// Threads whose source / memory mode / archived flag came from Codex's own index.
    pub codex_state_updates: usize,
    /// One line per problem (file and line), for stderr.
    pub warnings: Vec<String>,
    /// The assistant replies of every file read, by path: cite-import in the
    /// same run takes its citations from here instead of reading the file again.
    #[serde(skip)]
    pub replies: HashMap<String, FileReplies>,
}

/// The assistant replies of one session file, as the scan read them.
#[derive(Debug, Clone, Default)]
pub struct FileReplies {
    /// The file's size when read.
    pub size: i64,
    /// Its mtime when read.
    pub mtime_ns: i64,
    /// Replies read.
    pub replies: usize,
    /// The replies that cite memory: line, time (Unix ms) and citation.
    pub cited: Vec<(i64, Option<i64>, Citation)>,
}

/// What reading one file for the catalog gives.
struct Summary {
    info: SessionInfo,
    stats: ReadStats,
    preview: String,
    replies: FileReplies,
}

struct Parsed {
    file: SessionFile,
    result: std::result::Result<Summary, String>,
}

/// Scans the configured homes and updates the catalog.
pub fn scan(cfg: &Config, store: &mut Store) -> Result<ScanReport> {
    let now = now_secs();
    let found = discover(cfg);
    let mut report = ScanReport {
        files_found: found.len(),
        ..Default::default()
    };
    // A quiet night: every recorded file found again as recorded, nothing
    // else found, and Codex's index as before — the catalog is already
    // right. Told by the fingerprint the last full scan left, so the
    // recorded files are not read.
    let paths: Vec<std::borrow::Cow<'_, str>> =
        found.iter().map(|f| f.path.to_string_lossy()).collect();
    let on_disk = session_files::fingerprint(paths.iter().zip(&found).map(|(path, f)| {
        let seen = Seen {
            size: f.size as i64,
            mtime_ns: f.mtime_ns,
        };
        (path.as_ref(), seen)
    }));
    let recorded = kv::get(store.conn(), session_files::FINGERPRINT_KEY)?;
    if recorded.as_deref() == Some(on_disk.as_str()) && !state_db_changed(cfg, store)? {
        report.files_unchanged = found.len();
        return Ok(report);
    }
    let known = session_files::all(store.conn())?;
    let changed: Vec<&SessionFile> = found
        .iter()
        .zip(&paths)
        .filter(|(f, path)| {
            known
                .get(path.as_ref())
                .is_none_or(|k| !(k.size == f.size as i64 && k.mtime_ns == f.mtime_ns))
        })
        .map(|(f, _)| f)
        .collect();
    report.files_unchanged = found.len() - changed.len();
    report.files_read = changed.len();

    let parsed: Vec<Parsed> = changed
        .par_iter()
        .map(|f| Parsed {
            file: (*f).clone(),
            result: read_summary(f),
        })
        .collect();

    let present: HashSet<String> = paths.iter().map(|p| p.to_string()).collect();
    let vanished: Vec<&String> = known.keys().filter(|p| !present.contains(*p)).collect();
    let existing: HashMap<String, ThreadRow> = if parsed.is_empty() {
        HashMap::new()
    } else {
        threads::list(store.conn())?
            .into_iter()
            .map(|t| (t.id.clone(), t))
            .collect()
    };

    let tx = store.conn_mut().transaction()?;
    for p in parsed {
        let path = p.file.path.to_string_lossy().into_owned();
        let (row, error) = match p.result {
            Ok(summary) => {
                report.malformed_lines += summary.stats.malformed + summary.stats.overlong;
                let row = thread_row(&p.file, &summary.info, &summary.stats, summary.preview, now);
                report.warnings.extend(row.read_warning.clone());
                report.replies.insert(path.clone(), summary.replies);
                (row, None)
            }
            Err(e) => {
                report.files_failed += 1;
                report.warnings.push(e.clone());
                (failed_row(&p.file, &e, now), Some(e))
            }
        };
        session_files::record(
            &tx,
            &path,
            &row.tool,
            &FileStamp {
                size: p.file.size as i64,
                mtime_ns: p.file.mtime_ns,
                thread_id: row.id.clone(),
            },
            error.as_deref(),
            now,
        )?;
        match existing.get(&row.id) {
            None => report.sessions_new += 1,
            Some(old) => {
                // Two files for one thread (a copy in archived_sessions, say):
                // the newest file describes the thread.
                let old_still_there =
                    old.rollout_path != path && present.contains(&old.rollout_path);
                if old_still_there && old.file_mtime_ns > row.file_mtime_ns {
                    continue;
                }
                report.sessions_updated += 1;
            }
        }
        threads::upsert(&tx, &row)?;
    }
    for path in vanished {
        session_files::remove(&tx, path)?;
    }
    report.sessions_missing = threads::set_presence(&tx, &present)?;

    let state = state_db(cfg);
    kv::set(
        &tx,
        STATE_FINGERPRINT,
        state.as_ref().map_or("", |(_, f)| f.as_str()),
    )?;
    if let Some((db, _)) = state {
        match codex_state::read_thread_states(&db) {
            Ok(states) => {
                for s in states {
                    if threads::apply_codex_state(
                        &tx,
                        &s.id,
                        s.source.as_deref(),
                        s.memory_mode.as_deref(),
                        s.archived,
                    )? {
                        report.codex_state_updates += 1;
                    }
                }
            }
            Err(e) => report.warnings.push(format!("Codex index not read: {e}")),
        }
    }
    // The recorded files are now what the walk found (the writes above
    // dropped the old fingerprint).
    kv::set(&tx, session_files::FINGERPRINT_KEY, &on_disk)?;
    tx.commit()?;
    Ok(report)
}

const STATE_FINGERPRINT: &str = "codex_state_fingerprint";

/// Codex's thread index, if read, with a fingerprint of its files (size and
/// mtime of the database and its WAL).
fn state_db(cfg: &Config) -> Option<(std::path::PathBuf, String)> {
    if !cfg.read_codex {
        return None;
    }
    let db = codex_state::find_state_db(&cfg.codex_home)?;
    let stamp = |p: &std::path::Path| {
        std::fs::metadata(p)
            .map(|m| {
                format!(
                    "{}:{}",
                    m.len(),
                    m.modified().map(system_time_nanos).unwrap_or(0)
                )
            })
            .unwrap_or_default()
    };
    let wal = std::path::PathBuf::from(format!("{}-wal", db.display()));
    let fingerprint = format!("{}|{}|{}", db.display(), stamp(&db), stamp(&wal));
    Some((db, fingerprint))
}

/// Whether Codex's thread index changed since the last scan read it.
fn state_db_changed(cfg: &Config, store: &Store) -> Result<bool> {
    let current = state_db(cfg).map(|(_, f)| f).unwrap_or_default();
    Ok(current != kv::get(store.conn(), STATE_FINGERPRINT)?.unwrap_or_default())
}

/// Reads one file given by the user (possibly outside the configured homes)
/// into the catalog and returns its row.
pub fn index_file(
    store: &mut Store,
    path: &std::path::Path,
    tool: crate::sources::Tool,
) -> Result<ThreadRow> {
    let file = crate::sources::discover::stat_file(path, tool)
        .ok_or_else(|| crate::error::Error::usage(format!("{}: no such file", path.display())))?;
    let now = now_secs();
    let row = match read_summary(&file) {
        Ok(s) => thread_row(&file, &s.info, &s.stats, s.preview, now),
        Err(e) => return Err(crate::error::Error::failed(e)),
    };
    let tx = store.conn_mut().transaction()?;
    session_files::record(
        &tx,
        &row.rollout_path,
        &row.tool,
        &FileStamp {
            size: row.file_size,
            mtime_ns: row.file_mtime_ns,
            thread_id: row.id.clone(),
        },
        None,
        now,
    )?;
    threads::upsert(&tx, &row)?;
    tx.commit()?;
    Ok(threads::get(store.conn(), &row.id)?.unwrap_or(row))
}

/// Reads a file for the catalog: metadata, counts, the first human message,
/// and the assistant replies' citations (cut from a reply before its text is
/// bounded, so they are whole).
fn read_summary(f: &SessionFile) -> std::result::Result<Summary, String> {
    let mut preview = String::new();
    let mut replies = FileReplies {
        size: f.size as i64,
        mtime_ns: f.mtime_ns,
        ..Default::default()
    };
    // Messages whole: the reader joins a reply's twin copies by their text,
    // and cite-import takes the replies from here.
    let opts = ReadOptions {
        max_output_bytes: Some(0),
        max_message_bytes: None,
    };
    let (info, stats) = stream_session(&f.path, f.tool, opts, &mut |e| {
        let Event::Message(m) = e else {
            return;
        };
        match m.role {
            Role::User if preview.is_empty() => preview = one_line(&m.text, 200),
            Role::Assistant => {
                replies.replies += 1;
                if let Some(c) = m.citation {
                    replies.cited.push((m.line as i64, m.at, c));
                }
            }
            _ => {}
        }
    })
    .map_err(|e| e.to_string())?;
    Ok(Summary {
        info,
        stats,
        preview,
        replies,
    })
}

fn thread_row(
    f: &SessionFile,
    info: &SessionInfo,
    stats: &ReadStats,
    preview: String,
    now: i64,
) -> ThreadRow {
    ThreadRow {
        id: info.id.clone(),
        tool: f.tool.name().to_string(),
        rollout_path: f.path.to_string_lossy().into_owned(),
        file_size: f.size as i64,
        file_mtime_ns: f.mtime_ns,
        created_at: info.started_at.map(|ms| ms / 1000),
        updated_at: f.mtime_ns / 1_000_000_000,
        cwd: info.cwd.clone(),
        git_branch: info.git_branch.clone(),
        source: info.source.clone(),
        originator: info.originator.clone(),
        cli_version: info.cli_version.clone(),
        model: info.model.clone(),
        parent_thread_id: info.parent_id.clone(),
        memory_mode: info.memory_mode.clone(),
        archived: f.archived,
        preview,
        human_turns: stats.human_turns as i64,
        assistant_messages: stats.assistant_messages as i64,
        tool_calls: stats.tool_calls as i64,
        malformed_lines: (stats.malformed + stats.overlong) as i64,
        read_error: None,
        read_warning: stats.malformed_summary(&f.path),
        forgotten_at: None,
        present: true,
        scanned_at: now,
        extracted_through: None,
    }
}

/// A row for a file that could not be read, so it is listed with its reason.
fn failed_row(f: &SessionFile, error: &str, now: i64) -> ThreadRow {
    let id = match f.tool {
        crate::sources::Tool::Codex => crate::sources::codex::id_from_file_name(&f.path),
        crate::sources::Tool::Claude => None,
    }
    .unwrap_or_else(|| {
        f.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    ThreadRow {
        id,
        tool: f.tool.name().to_string(),
        rollout_path: f.path.to_string_lossy().into_owned(),
        file_size: f.size as i64,
        file_mtime_ns: f.mtime_ns,
        created_at: None,
        updated_at: f.mtime_ns / 1_000_000_000,
        cwd: None,
        git_branch: None,
        source: "unknown".into(),
        originator: None,
        cli_version: None,
        model: None,
        parent_thread_id: None,
        memory_mode: "enabled".into(),
        archived: f.archived,
        preview: String::new(),
        human_turns: 0,
        assistant_messages: 0,
        tool_calls: 0,
        malformed_lines: 0,
        read_error: Some(error.to_string()),
        read_warning: None,
        forgotten_at: None,
        present: true,
        scanned_at: now,
        extracted_through: None,
    }
}
