//! `memkit scan`: brings the `threads` catalog up to date, incrementally.
//!
//! A session's `updated_at` is its file's mtime, as in Codex. A file whose size
//! and mtime did not change since it was last read is not opened again; a file
//! that moved (archived) keeps its thread, because threads are keyed by id.

use super::read_ahead::{InputPlan, ReadAhead};
use crate::config::Config;
use crate::error::Result;
use crate::modelinput::{InputCollector, PreparedInput, SessionRef};
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
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// The extraction input read in the same pass, when asked for.
    input: Option<PreparedInput>,
}

struct Parsed {
    file: SessionFile,
    result: std::result::Result<Summary, String>,
}

/// Scans the configured homes and updates the catalog.
pub fn scan(cfg: &Config, store: &mut Store) -> Result<ScanReport> {
    scan_reading_ahead(cfg, store, None)
}

/// Scans like [`scan`]; with a plan, a changed file the plan covers is read
/// once for both the catalog and its extraction input, which waits in the
/// [`ReadAhead`] for the extraction of the same run.
pub fn scan_reading_ahead(
    cfg: &Config,
    store: &mut Store,
    ahead: Option<(&InputPlan, &ReadAhead)>,
) -> Result<ScanReport> {
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

    let existing: HashMap<String, ThreadRow> = if changed.is_empty() {
        HashMap::new()
    } else {
        threads::list(store.conn())?
            .into_iter()
            .map(|t| (t.id.clone(), t))
            .collect()
    };
    // A file the plan covers gets its input read in the same pass, unless
    // its session as catalogued can never be extracted (forgotten, memory
    // off, not interactive), and only while the inputs held leave room for
    // the largest it can be (the difference is given back once it is read).
    let catalogued: HashMap<&str, &ThreadRow> = match ahead {
        Some(_) => existing
            .values()
            .map(|t| (t.rollout_path.as_str(), t))
            .collect(),
        None => HashMap::new(),
    };
    let read_ahead_for = |f: &SessionFile| -> Option<(&InputPlan, usize)> {
        let (plan, held) = ahead?;
        let path = f.path.to_string_lossy();
        let ruled_out = catalogued
            .get(path.as_ref())
            .is_some_and(|row| plan.rules_out(cfg, row));
        let room = plan.max_weight();
        (plan.covers(f) && !ruled_out && held.reserve(room)).then_some((plan, room))
    };
    let parsed: Vec<Parsed> = changed
        .par_iter()
        .map(|f| {
            let reading_ahead = read_ahead_for(f);
            let result = read_summary(f, reading_ahead.map(|(plan, _)| plan));
            if let Some(((_, held), (_, room))) = ahead.zip(reading_ahead) {
                let weight = match &result {
                    Ok(Summary {
                        input: Some(input), ..
                    }) => ReadAhead::weight(input),
                    _ => 0,
                };
                held.release(room.saturating_sub(weight));
            }
            Parsed {
                file: (*f).clone(),
                result,
            }
        })
        .collect();

    let present: HashSet<String> = paths.iter().map(|p| p.to_string()).collect();
    let vanished: Vec<&String> = known.keys().filter(|p| !present.contains(*p)).collect();

    let tx = store.conn_mut().transaction()?;
    for p in parsed {
        let path = p.file.path.to_string_lossy().into_owned();
        let mut input = None;
        let (row, error) = match p.result {
            Ok(summary) => {
                report.malformed_lines += summary.stats.malformed + summary.stats.overlong;
                let row = thread_row(&p.file, &summary.info, &summary.stats, summary.preview, now);
                report.warnings.extend(row.read_warning.clone());
                report.replies.insert(path.clone(), summary.replies);
                input = summary.input;
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
                    if let Some(((_, held), input)) = ahead.zip(input) {
                        held.release(ReadAhead::weight(&input));
                    }
                    continue;
                }
                report.sessions_updated += 1;
            }
        }
        threads::upsert(&tx, &row)?;
        if let Some(((_, held), input)) = ahead.zip(input) {
            held.keep(&row, input);
        }
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
    let row = match read_summary(&file, None) {
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
/// bounded, so they are whole); with a `plan`, also its extraction input, in
/// the same pass.
fn read_summary(f: &SessionFile, plan: Option<&InputPlan>) -> std::result::Result<Summary, String> {
    let mut preview = String::new();
    let mut replies = FileReplies {
        size: f.size as i64,
        mtime_ns: f.mtime_ns,
        ..Default::default()
    };
    let mut collector = plan.map(InputPlan::collector);
    // Messages whole: the reader joins a reply's twin copies by their text,
    // and cite-import takes the replies from here. Tool outputs only as far
    // as an input needs them.
    let opts = ReadOptions {
        max_output_bytes: Some(
            collector
                .as_ref()
                .map_or(0, InputCollector::max_output_read_bytes),
        ),
        max_message_bytes: None,
    };
    let (info, stats) = stream_session(&f.path, f.tool, opts, &mut |e| {
        if let Event::Message(m) = &e {
            match m.role {
                Role::User if preview.is_empty() => preview = one_line(&m.text, 200),
                Role::Assistant => {
                    replies.replies += 1;
                    if let Some(c) = &m.citation {
                        replies.cited.push((m.line as i64, m.at, c.clone()));
                    }
                }
                _ => {}
            }
        }
        if let Some(collector) = collector.as_mut() {
            collector.push_whole(e);
        }
    })
    .map_err(|e| e.to_string())?;
    let input = collector.map(|c| {
        let session = SessionRef {
            thread_id: info.id.clone(),
            tool: f.tool,
            rollout_path: f.path.clone(),
            cwd: info.cwd.clone(),
            git_branch: info.git_branch.clone(),
            updated_at: f.mtime_ns / 1_000_000_000,
        };
        c.finish(session, info.clone(), stats.clone())
    });
    Ok(Summary {
        info,
        stats,
        preview,
        replies,
        input,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::eligibility::Windows;
    use crate::modelinput::{Limits, prepare};
    use crate::sources::Tool;
    use std::path::{Path, PathBuf};

    fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                fixtures(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }

    /// A Codex session with a message and a tool output far over the
    /// input's limits, a broken line and a citation.
    fn long_session(dir: &Path) -> PathBuf {
        let path =
            dir.join("rollout-2026-11-30T10-00-00-019ad000-0000-7000-8000-000000000001.jsonl");
        let long = "a line of the pasted log\\n".repeat(4_000);
        let output = "cargo test output line\\n".repeat(6_000);
        let lines = [
            r#"{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-000000000001","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/w/api","originator":"codex_cli_rs","cli_version":"0.171.0","source":"cli"}}"#.to_string(),
            format!(r#"{{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{{"type":"user_message","message":"{long}"}}}}"#),
            r#"{"timestamp":"2026-11-30T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cargo\",\"test\"]}","call_id":"call_1"}}"#.to_string(),
            format!(r#"{{"timestamp":"2026-11-30T10:00:03.000Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_1","output":"{output}"}}}}"#),
            "{not json".to_string(),
            format!(r#"{{"timestamp":"2026-11-30T10:00:04.000Z","type":"event_msg","payload":{{"type":"agent_message","message":"{long} done"}}}}"#),
            format!(r#"{{"timestamp":"2026-11-30T10:00:05.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{long} done\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[x]\n</citation_entries>\n<rollout_ids>\n019ad000-0000-7000-8000-000000000001\n</rollout_ids>\n</oai-mem-citation>"}}]}}}}"#),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    #[test]
    fn a_prepared_input_is_taken_once_and_only_for_the_file_as_read() {
        let dir = std::env::temp_dir().join(format!(
            "memkit-readahead-{}",
            crate::util::ids::new_uuid_v4()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = long_session(&dir);
        let file = crate::sources::discover::stat_file(&path, Tool::Codex).unwrap();
        let plan = InputPlan {
            budget_tokens: 1_000,
            windows: Windows {
                now: i64::MAX / 2,
                idle_secs: 0,
                max_age_secs: None,
            },
        };
        assert!(plan.covers(&file));
        let read = || read_summary(&file, Some(&plan)).unwrap();
        let summary = read();
        let row = thread_row(&file, &summary.info, &summary.stats, summary.preview, 0);
        let ahead = ReadAhead::default();
        assert!(ahead.reserve(ReadAhead::weight(summary.input.as_ref().unwrap())));
        ahead.keep(&row, summary.input.unwrap());
        // Catalogued again since at another size: the file changed, read anew.
        let mut grown = row.clone();
        grown.file_size += 1;
        assert!(ahead.take(&grown).is_none());
        assert_eq!(ahead.taken(), 0);
        let again = read().input.unwrap();
        assert!(ahead.reserve(ReadAhead::weight(&again)));
        ahead.keep(&row, again);
        assert!(ahead.take(&row).is_some());
        assert!(ahead.take(&row).is_none(), "taken once");
        assert_eq!(ahead.taken(), 1);
        // What waits is bounded; taking an input gives its room back, and
        // what the extraction did not take goes when it is over.
        assert!(ahead.reserve(super::super::read_ahead::HELD_BYTES));
        assert!(!ahead.reserve(1));
        ahead.release(super::super::read_ahead::HELD_BYTES);
        let third = read().input.unwrap();
        assert!(ahead.reserve(ReadAhead::weight(&third)));
        ahead.keep(&row, third);
        ahead.clear();
        assert!(ahead.take(&row).is_none());
        assert!(ahead.reserve(super::super::read_ahead::HELD_BYTES));
        // A session as catalogued that can never be extracted is not read ahead.
        let cfg = crate::config::Config::load(&crate::config::LoadOptions {
            config_path: None,
            flags: vec![],
            env: crate::config::LoadOptions::with_env(vec![(
                "HOME".to_string(),
                dir.display().to_string(),
            )])
            .env,
        })
        .unwrap();
        assert!(!plan.rules_out(&cfg, &row));
        let forgotten = ThreadRow {
            forgotten_at: Some(1),
            ..row.clone()
        };
        assert!(plan.rules_out(&cfg, &forgotten));
        let archived = SessionFile {
            archived: true,
            ..file.clone()
        };
        assert!(!plan.covers(&archived), "never extracted");
        let recent = InputPlan {
            windows: Windows {
                now: file.mtime_ns / 1_000_000_000,
                idle_secs: 3600,
                max_age_secs: None,
            },
            ..plan
        };
        assert!(!recent.covers(&file), "not idle long enough");
    }

    /// The catalog and the model input from one read are what a read for
    /// each gives, for every committed fixture and a session over every
    /// limit, at a budget that cuts and at the default one.
    #[test]
    fn one_read_gives_what_a_read_for_each_gives() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files = Vec::new();
        fixtures(&root, &mut files);
        let dir = std::env::temp_dir().join(format!(
            "memkit-readahead-{}",
            crate::util::ids::new_uuid_v4()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        files.push(long_session(&dir));
        assert!(files.len() > 10);
        for path in &files {
            let tool = if path.to_string_lossy().contains("/claude/") {
                Tool::Claude
            } else {
                Tool::Codex
            };
            let file = crate::sources::discover::stat_file(path, tool).unwrap();
            let alone = read_summary(&file, None).unwrap();
            assert!(alone.input.is_none());
            for budget_tokens in [1_000, 60_000] {
                let plan = InputPlan {
                    budget_tokens,
                    windows: Windows {
                        now: i64::MAX / 2,
                        idle_secs: 0,
                        max_age_secs: None,
                    },
                };
                let both = read_summary(&file, Some(&plan)).unwrap();
                let what = format!("{} at {budget_tokens} tokens", path.display());
                assert_eq!(both.info, alone.info, "{what}");
                assert_eq!(both.stats, alone.stats, "{what}");
                assert_eq!(both.preview, alone.preview, "{what}");
                assert_eq!(both.replies, alone.replies, "{what}");
                let input = both.input.unwrap();
                let read_again =
                    prepare(input.session.clone(), budget_tokens, Limits::default()).unwrap();
                assert_eq!(input.transcript, read_again.transcript, "{what}");
                assert_eq!(input.head, read_again.head, "{what}");
                assert_eq!(input.tail, read_again.tail, "{what}");
                assert_eq!(
                    (input.omitted_events, input.omitted_bytes),
                    (read_again.omitted_events, read_again.omitted_bytes),
                    "{what}"
                );
                assert_eq!(input.info, read_again.info, "{what}");
                assert_eq!(input.stats, read_again.stats, "{what}");
                if path.starts_with(&dir) {
                    // The long session was cut where the limits cut it.
                    assert_eq!(alone.stats.malformed, 1);
                    assert_eq!(alone.replies.cited.len(), 1);
                    // The long reply and its id-less twin are one reply.
                    assert_eq!(alone.replies.replies, 1, "{what}");
                    let replies = |input: &PreparedInput| {
                        input
                            .events()
                            .filter(|e| matches!(e, Event::Message(m) if m.role == Role::Assistant))
                            .count()
                    };
                    assert_eq!(replies(&read_again), 1, "{what}");
                    assert!(input.transcript.contains("truncated"), "{what}");
                    assert!(input.transcript.len() < 60_000, "{what}");
                }
            }
        }
    }
}
