//! Finding session files on disk, as Codex and Claude Code lay them out.
//!
//! - Codex: `<codex_home>/sessions/**/rollout-*.jsonl[.zst]` and
//!   `<codex_home>/archived_sessions/**/rollout-*.jsonl[.zst]`; when both a plain
//!   and a compressed copy exist, the plain one is read.
//! - Claude Code: `<claude_home>/projects/<dir>/*.jsonl` (sessions and 2.0-era
//!   `agent-*.jsonl`) and `<claude_home>/projects/<dir>/<session>/subagents/agent-*.jsonl`.
//!
//! Symbolic links are not followed.

use super::Tool;
use crate::config::Config;
use crate::util::time::system_time_nanos;
use std::collections::HashSet;
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
        let mut codex = Vec::new();
        walk(&cfg.codex_home.join("sessions"), 6, &mut |p| {
            if is_rollout(p) {
                codex.push((p.to_path_buf(), false));
            }
        });
        walk(&cfg.codex_home.join("archived_sessions"), 6, &mut |p| {
            if is_rollout(p) {
                codex.push((p.to_path_buf(), true));
            }
        });
        let plain: HashSet<PathBuf> = codex
            .iter()
            .filter(|(p, _)| !super::lines::is_compressed(p))
            .map(|(p, _)| p.clone())
            .collect();
        for (path, archived) in codex {
            if super::lines::is_compressed(&path) && plain.contains(&path.with_extension("")) {
                continue; // the plain sibling wins
            }
            if let Some(f) = stat(path, Tool::Codex, archived) {
                out.push(f);
            }
        }
    }
    if cfg.read_claude {
        let projects = cfg.claude_home.join("projects");
        for project in read_dir_sorted(&projects) {
            if !is_real_dir(&project) {
                continue;
            }
            walk(&project, 3, &mut |p| {
                if is_claude_transcript(&project, p)
                    && let Some(f) = stat(p.to_path_buf(), Tool::Claude, false)
                {
                    out.push(f);
                }
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
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

fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path)
        .map(|m| m.is_dir())
        .unwrap_or(false)
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    entries.sort();
    entries
}

/// Visits regular files under `dir` (not following links), at most `depth` levels down.
fn walk(dir: &Path, depth: usize, f: &mut dyn FnMut(&Path)) {
    for entry in read_dir_sorted(dir) {
        let Ok(meta) = fs::symlink_metadata(&entry) else {
            continue;
        };
        if meta.is_dir() && depth > 0 {
            walk(&entry, depth - 1, f);
        } else if meta.is_file() {
            f(&entry);
        }
    }
}

fn stat(path: PathBuf, tool: Tool, archived: bool) -> Option<SessionFile> {
    let meta = fs::metadata(&path).ok()?;
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
