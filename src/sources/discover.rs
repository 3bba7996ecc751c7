//! Finding session files on disk, as Codex and Claude Code lay them out.
//!
//! - Codex: `<codex_home>/sessions/**/rollout-*.jsonl[.zst]` and
//!   `<codex_home>/archived_sessions/**/rollout-*.jsonl[.zst]`; when both a plain
//!   and a compressed copy exist, the plain one is read.
//! - Claude Code: `<claude_home>/projects/<dir>/*.jsonl` (sessions and 2.0-era
//!   `agent-*.jsonl`) and `<claude_home>/projects/<dir>/<session>/subagents/agent-*.jsonl`.
//!
//! Symbolic links inside these folders are not followed. The top folders
//! themselves (`sessions/`, `archived_sessions/`, `projects/`) may be links
//! (data moved to another disk), and the walk only enters folders laid out as
//! the agent lays them out — Codex's `YYYY/MM/DD`, Claude Code's
//! `<project>/<session>/subagents` — so a link to `/` costs one listing, not
//! a walk of the whole file system.

use super::Tool;
use crate::config::Config;
use crate::util::fsx::is_real_dir;
use crate::util::time::system_time_nanos;
use rayon::prelude::*;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

/// A session file found on disk, with what `stat` says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Which agent wrote it.
    pub tool: Tool,
    /// Whether it lives under Codex's `archived_sessions/`.
    pub archived: bool,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, Unix nanoseconds.
    pub mtime_ns: i64,
}

/// Every session file under the configured homes, sorted by path.
pub fn discover(cfg: &Config) -> Vec<SessionFile> {
    let mut out = Vec::new();
    if cfg.read_codex {
        let mut codex: Vec<SessionFile> = Vec::new();
        for (dir, archived) in [("sessions", false), ("archived_sessions", true)] {
            codex.extend(walk(
                &cfg.codex_home.join(dir),
                &CODEX_LAYOUT,
                &|p, entry| {
                    is_rollout(p)
                        .then(|| stat_entry(p, entry, Tool::Codex, archived))
                        .flatten()
                },
            ));
        }
        // When both exist, the plain sibling of a .jsonl.zst wins.
        let compressed = |f: &SessionFile| super::lines::is_compressed(&f.path);
        if codex.iter().any(compressed) {
            let plain: HashSet<&OsStr> = codex
                .iter()
                .filter(|f| !compressed(f))
                .map(|f| f.path.as_os_str())
                .collect();
            let shadowed: Vec<bool> = codex
                .iter()
                .map(|f| compressed(f) && plain.contains(f.path.with_extension("").as_os_str()))
                .collect();
            let mut shadowed = shadowed.into_iter();
            codex.retain(|_| !shadowed.next().unwrap_or(false));
        }
        out.extend(codex);
    }
    if cfg.read_claude {
        let projects = read_dir_sorted(&cfg.claude_home.join("projects"));
        let found: Vec<Vec<SessionFile>> = projects
            .par_iter()
            .filter(|project| is_real_dir(project))
            .map(|project| {
                walk(project, &CLAUDE_LAYOUT, &|p, entry| {
                    is_claude_transcript(project, p)
                        .then(|| stat_entry(p, entry, Tool::Claude, false))
                        .flatten()
                })
            })
            .collect();
        out.extend(found.into_iter().flatten());
    }
    out.sort_unstable_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
    out
}

fn is_rollout(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.starts_with("rollout-") && (name.ends_with(".jsonl") || name.ends_with(".jsonl.zst"))
}

/// A `.jsonl` directly in the project folder, or an `agent-*.jsonl` in `<session>/subagents/`.
fn is_claude_transcript(project: &Path, path: &Path) -> bool {
    if path.extension().is_none_or(|e| e != "jsonl") {
        return false;
    }
    match path.parent() {
        Some(parent) if parent == project => true,
        Some(parent) => {
            parent.file_name().is_some_and(|n| n == "subagents")
                && super::claude::is_subagent_file(path)
        }
        None => false,
    }
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    entries.sort();
    entries
}

/// Which sub-folder names a walk enters, one rule per level below the start.
type Layout = [fn(&str) -> bool];

/// Codex: `YYYY/MM/DD/` (and files directly in the top folder).
static CODEX_LAYOUT: [fn(&str) -> bool; 3] = [digits::<4>, digits::<2>, digits::<2>];
/// Claude Code, inside a project: `<session>/subagents/`.
static CLAUDE_LAYOUT: [fn(&str) -> bool; 2] = [|_| true, |n| n == "subagents"];

fn digits<const N: usize>(name: &str) -> bool {
    name.len() == N && name.bytes().all(|b| b.is_ascii_digit())
}

/// The files under `dir` (not following links) that `keep` turns into
/// session files, entering a sub-folder only when its name fits the layout's
/// rule for its level. File types come from the directory listing, so only
/// the session files themselves are stat'ed; sub-folders are walked in
/// parallel, since over thousands of sessions those stat calls are the cost
/// of a night with nothing to do, and they overlap across cores.
fn walk(dir: &Path, layout: &Layout, keep: &KeepFile<'_>) -> Vec<SessionFile> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut folders = Vec::new();
    for entry in rd.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if layout
                .first()
                .is_some_and(|enters| enters(&entry.file_name().to_string_lossy()))
            {
                folders.push(entry.path());
            }
        } else if kind.is_file() {
            found.extend(keep(&entry.path(), &entry));
        }
    }
    if !folders.is_empty() {
        let deeper: Vec<Vec<SessionFile>> = folders
            .par_iter()
            .map(|folder| walk(folder, &layout[1..], keep))
            .collect();
        found.extend(deeper.into_iter().flatten());
    }
    found
}

/// What a walk keeps of a listed file: its session file, or nothing.
type KeepFile<'a> = dyn Fn(&Path, &fs::DirEntry) -> Option<SessionFile> + Sync + 'a;

/// Stats a listed file relative to its folder (no full path lookup).
fn stat_entry(
    path: &Path,
    entry: &fs::DirEntry,
    tool: Tool,
    archived: bool,
) -> Option<SessionFile> {
    session_file(path.to_path_buf(), &entry.metadata().ok()?, tool, archived)
}

fn stat(path: PathBuf, tool: Tool, archived: bool) -> Option<SessionFile> {
    let meta = fs::metadata(&path).ok()?;
    session_file(path, &meta, tool, archived)
}

fn session_file(
    path: PathBuf,
    meta: &fs::Metadata,
    tool: Tool,
    archived: bool,
) -> Option<SessionFile> {
    let mtime_ns = meta.modified().map(system_time_nanos).unwrap_or(0);
    Some(SessionFile {
        path,
        tool,
        archived,
        size: meta.len(),
        mtime_ns,
    })
}

/// Stats a single file given on the command line.
pub fn stat_file(path: &Path, tool: Tool) -> Option<SessionFile> {
    let archived = path
        .components()
        .any(|c| c.as_os_str() == "archived_sessions");
    stat(path.to_path_buf(), tool, archived)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_enters_only_the_agents_layout() {
        let root = std::env::temp_dir().join(format!(
            "memkit-discover-{}",
            crate::util::ids::new_uuid_v4()
        ));
        let day = root.join("2026/11/20");
        fs::create_dir_all(&day).unwrap();
        fs::create_dir_all(root.join("usr/lib/2026/11/20")).unwrap();
        fs::write(day.join("rollout-a.jsonl"), "").unwrap();
        fs::write(root.join("rollout-flat.jsonl"), "").unwrap();
        fs::write(root.join("usr/lib/2026/11/20/rollout-b.jsonl"), "").unwrap();
        let mut seen: Vec<PathBuf> = walk(&root, &CODEX_LAYOUT, &|p, e| {
            stat_entry(p, e, Tool::Codex, false)
        })
        .into_iter()
        .map(|f| f.path.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
        seen.sort();
        assert_eq!(
            seen,
            vec![
                PathBuf::from("2026/11/20/rollout-a.jsonl"),
                PathBuf::from("rollout-flat.jsonl")
            ]
        );
        fs::remove_dir_all(&root).unwrap();
    }
}
