//! Codex: the read path is a managed block in `$CODEX_HOME/AGENTS.md`, the
//! global instructions Codex sends with every `exec` and TUI session (as a
//! user message headed `# AGENTS.md instructions`). Codex's own memory
//! feature stays off: turning it on starts Codex's memory writer.
//!
//! Size: Codex 0.171 reads the global file whole (2 MB arrived whole in a
//! test against a mock model), but warns at every start once the
//! instructions pass `project_doc_max_bytes` (default 32 KiB), and project
//! `AGENTS.md` files share that budget and are cut at it without a marker.
//! memkit keeps the whole global file within 32 KiB: when the user's own
//! text leaves too little room, the summary keeps its first lines and the
//! block says how much was left out (so does `memkit status`).
//!
//! This module also reads Codex's `config.toml` for `memkit doctor`: the
//! lines that turn Codex's memory feature on, or record new threads as
//! `memory_mode = "disabled"`.

use super::markdown::{FileLimit, MarkdownReadPath};
use super::{Agent, BlockSource, Fit, ReadPath};
use crate::config::Config;
use crate::error::Result;
use std::path::{Path, PathBuf};

/// Codex's `project_doc_max_bytes` default: the size memkit keeps the global file within.
pub const CODEX_INSTRUCTIONS_MAX_BYTES: usize = 32 * 1024;

/// The file memkit's block lives in: the one of `AGENTS.override.md` and
/// `AGENTS.md` that holds it (the one Codex reads, if both do), else the one
/// Codex reads. So a block stranded in the file Codex no longer reads can
/// still be updated and removed (and `memkit doctor` says it is stranded).
fn block_file(codex_home: &Path) -> PathBuf {
    // Both files, each read once: [override, AGENTS.md].
    let files = [
        codex_home.join("AGENTS.override.md"),
        codex_home.join("AGENTS.md"),
    ]
    .map(|p| {
        let text = std::fs::read_to_string(&p).ok();
        (p, text)
    });
    let holds_block = |text: &Option<String>| {
        text.as_deref()
            .is_some_and(|t| t.contains(crate::readpath::BLOCK_BEGIN_MARKER))
    };
    // The file Codex reads first, then the other one.
    let read = usize::from(!overrides(files[0].1.as_deref()));
    let found = [read, 1 - read]
        .into_iter()
        .find(|&i| holds_block(&files[i].1))
        .unwrap_or(read);
    files[found].0.clone()
}

/// Whether an `AGENTS.override.md` with this text is the file Codex reads:
/// it has content (Codex then ignores `AGENTS.md`).
fn overrides(text: Option<&str>) -> bool {
    text.is_some_and(|t| !t.trim().is_empty())
}

/// The global instructions file Codex reads: `AGENTS.override.md` when it
/// has content, else `AGENTS.md`.
pub fn instructions_file(codex_home: &Path) -> PathBuf {
    let override_file = codex_home.join("AGENTS.override.md");
    if overrides(std::fs::read_to_string(&override_file).ok().as_deref()) {
        override_file
    } else {
        codex_home.join("AGENTS.md")
    }
}

/// The read path in Codex's global instructions file.
pub struct CodexReadPath(MarkdownReadPath);

impl CodexReadPath {
    /// The read path under `cfg.codex_home`.
    pub fn new(cfg: &Config) -> Self {
        CodexReadPath(MarkdownReadPath::new(
            Agent::Codex,
            block_file(&cfg.codex_home),
            Some(FileLimit {
                max_bytes: CODEX_INSTRUCTIONS_MAX_BYTES,
                name: "Codex's 32 KiB instruction budget",
            }),
        ))
    }
}

impl ReadPath for CodexReadPath {
    fn agent(&self) -> Agent {
        Agent::Codex
    }
    fn file(&self) -> &Path {
        self.0.file()
    }
    fn is_installed(&self, current: &str) -> Result<bool> {
        self.0.is_installed(current)
    }
    fn install(&self, current: &str, block: &BlockSource) -> Result<(String, Fit)> {
        self.0.install(current, block)
    }
    fn uninstall(&self, current: &str) -> Result<Option<String>> {
        self.0.uninstall(current)
    }
    fn fit(&self, current: &str, block: &BlockSource) -> Result<Fit> {
        self.0.fit(current, block)
    }
}

/// A line of Codex's configuration that concerns its memory feature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemorySetting {
    /// The file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// What it does.
    pub kind: SettingKind,
}

/// What a memory setting does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    /// Turns the memory feature on: Codex's memory writer runs at every start.
    FeatureOn,
    /// `generate_memories = false`: new threads are recorded
    /// `memory_mode = "disabled"`, which memkit honours (it skips them).
    DisablesThreads,
    /// Any other `[memories]` key (no effect while the feature is off).
    Other,
}

/// The memory-related lines of `$CODEX_HOME/config.toml` and of the
/// profile files beside it (`<name>.config.toml`); the `[features]`
/// `memories` / `memory_tool` keys (also under `[profiles.<name>.features]`
/// and as dotted keys) and every key of a `[memories]` table.
pub fn memory_settings(codex_home: &Path) -> Vec<MemorySetting> {
    let mut files = vec![codex_home.join("config.toml")];
    if let Ok(entries) = std::fs::read_dir(codex_home) {
        let mut profiles: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy())
                    .is_some_and(|n| n.ends_with(".config.toml"))
            })
            .collect();
        profiles.sort();
        files.extend(profiles);
    }
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        out.extend(settings_in(&file, &text));
    }
    out
}

fn settings_in(file: &Path, text: &str) -> Vec<MemorySetting> {
    let mut out = Vec::new();
    let mut table = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            table = header
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .replace(['"', ' '], "");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().replace(['"', ' '], "");
        let full = if table.is_empty() {
            key.clone()
        } else {
            format!("{table}.{key}")
        };
        let parts: Vec<&str> = full.split('.').collect();
        let value = value.trim();
        let kind = match parts.as_slice() {
            [.., "features", "memories" | "memory_tool"] => {
                (value == "true").then_some(SettingKind::FeatureOn)
            }
            [.., "memories", "generate_memories"] if value == "false" => {
                Some(SettingKind::DisablesThreads)
            }
            [.., "memories", _] => Some(SettingKind::Other),
            _ => None,
        };
        if let Some(kind) = kind {
            out.push(MemorySetting {
                file: file.to_path_buf(),
                line: i + 1,
                text: raw.trim().to_string(),
                kind,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_lines_in_every_spelling() {
        let text = "model = \"gpt-5.4\"\n[features]\nmemories = true  # on\nother = true\n\
                    [memories]\ngenerate_memories = false\nuse_memories = true\n\
                    [profiles.work.features]\nmemory_tool = true\n[tui]\nx = 1\n\
                    features.memories = false\n";
        let found = settings_in(Path::new("config.toml"), text);
        let summary: Vec<(usize, SettingKind)> = found.iter().map(|s| (s.line, s.kind)).collect();
        assert_eq!(
            summary,
            vec![
                (3, SettingKind::FeatureOn),
                (6, SettingKind::DisablesThreads),
                (7, SettingKind::Other),
                (9, SettingKind::FeatureOn),
            ]
        );
        assert_eq!(found[0].text, "memories = true  # on");
        let top = settings_in(Path::new("p.config.toml"), "features.memories = true\n");
        assert_eq!(top[0].kind, SettingKind::FeatureOn);
    }
}
