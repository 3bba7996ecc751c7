//! What memkit does *to* an agent: install, refresh and remove the read path
//! through the agent's own instruction mechanism — the mirror of
//! [`crate::sources`], which reads *from* the agents.
//!
//! - Codex: a managed block in `$CODEX_HOME/AGENTS.md` (global instructions,
//!   sent with every session), refreshed by every consolidation.
//! - Claude Code: SessionStart hooks in `$CLAUDE_CONFIG_DIR/settings.json`
//!   that run `memkit inject --format claude-hook`, so each session reads
//!   the current summary.
//! - Gemini CLI: a managed block in `~/.gemini/GEMINI.md`.
//!
//! Every change leaves the user's own text byte for byte as it was, and an
//! unreadable file is an error that changes nothing.

pub mod block;
pub mod claude;
pub mod codex;
pub mod gemini;
pub mod jsonedit;
mod markdown;
pub mod mcp;
pub mod state;

use crate::config::Config;
use crate::error::{Error, IoContext, Result};
use crate::readpath::inject::{Limit, ReadPathBlock, read_path_block};
use crate::store::Store;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// An agent memkit can give its memory to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// OpenAI Codex.
    Codex,
    /// Anthropic Claude Code.
    Claude,
    /// Google Gemini CLI.
    Gemini,
}

impl Agent {
    /// Every agent, in the order status lists them.
    pub const ALL: [Agent; 3] = [Agent::Codex, Agent::Claude, Agent::Gemini];

    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
        }
    }
}

/// How the memory block fits the agent's limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fit {
    /// Size of what the agent is given, in `unit`.
    pub size: usize,
    /// The agent's limit, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// `bytes` or `characters`.
    pub unit: &'static str,
    /// How much of the summary had to be left out (0: it is whole).
    pub left_out: usize,
}

impl Fit {
    /// One line for people: "whole, 12,345 of 32,768 bytes" or what was left out.
    pub fn describe(&self) -> String {
        let of = match self.limit {
            Some(l) => format!("{} of {l} {}", self.size, self.unit),
            None => format!("{} {}", self.size, self.unit),
        };
        if self.left_out == 0 {
            format!("summary whole, {of}")
        } else {
            format!(
                "summary cut: {} {} left out to fit ({of})",
                self.left_out, self.unit
            )
        }
    }
}

/// One agent's read path: where it lives and how to edit it.
pub trait ReadPath {
    /// Which agent.
    fn agent(&self) -> Agent;
    /// The file memkit edits.
    fn file(&self) -> &Path;
    /// Whether `current` (the file's text) holds memkit's read path.
    fn is_installed(&self, current: &str) -> Result<bool>;
    /// The file's text with the read path installed or brought up to date.
    fn install(&self, current: &str, block: &BlockSource) -> Result<(String, Fit)>;
    /// The file's text with an installed read path brought up to date after
    /// a consolidation (the same as [`ReadPath::install`] unless the agent
    /// keeps something the user chose at install time).
    fn refresh(&self, current: &str, block: &BlockSource) -> Result<(String, Fit)> {
        self.install(current, block)
    }
    /// The file's text without the read path; `None` when the file should go
    /// (install created it and nothing else is in it).
    fn uninstall(&self, current: &str) -> Result<Option<String>>;
    /// How the current memory fits what an installed read path gives the agent.
    fn fit(&self, current: &str, block: &BlockSource) -> Result<Fit>;
}

/// What a read path is made of: the read-path template, the memory folder
/// and its current summary.
pub struct BlockSource {
    template: String,
    root: PathBuf,
    summary: String,
}

/// Said in place of a summary before the first consolidation.
const NO_SUMMARY_YET: &str =
    "v1\n(No memory yet: memkit writes this summary at its next `memkit run`.)\n";

impl BlockSource {
    /// Reads the template and `memory_summary.md` of `cfg`.
    pub fn load(cfg: &Config) -> Result<BlockSource> {
        let path = cfg.memory_root.join(crate::memory::MEMORY_SUMMARY_MD);
        let summary = match std::fs::read_to_string(&path) {
            Ok(s) if !s.trim().is_empty() => s,
            Ok(_) => NO_SUMMARY_YET.to_string(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => NO_SUMMARY_YET.to_string(),
            Err(e) => return Err(Error::io(&path, e)),
        };
        Ok(BlockSource {
            template: crate::templates::load(cfg, "read_path.md")?,
            root: cfg.memory_root.clone(),
            summary,
        })
    }

    /// A source for unit tests.
    #[cfg(test)]
    pub(crate) fn for_test(template: &str, root: &str, summary: &str) -> BlockSource {
        BlockSource {
            template: template.to_string(),
            root: PathBuf::from(root),
            summary: summary.to_string(),
        }
    }

    /// The block, with `project` first and fitted into `limit`.
    pub fn render(&self, project: Option<&str>, limit: Option<Limit>) -> ReadPathBlock {
        read_path_block(&self.template, &self.root, &self.summary, project, limit)
    }
}

/// The read path of `agent` under `cfg` (an error when the agent's folder
/// is not known).
pub fn read_path(cfg: &Config, agent: Agent) -> Result<Box<dyn ReadPath>> {
    Ok(match agent {
        Agent::Codex => Box::new(codex::CodexReadPath::new(cfg)),
        Agent::Claude => Box::new(claude::ClaudeReadPath::new(cfg)),
        Agent::Gemini => Box::new(gemini::gemini_read_path(cfg)?),
    })
}

/// How agents should run this memkit binary: `memkit` when that is what
/// `PATH` finds, else its full path.
pub fn memkit_program() -> String {
    let exe = std::env::current_exe().ok();
    let on_path = exe.as_ref().and_then(|exe| {
        let found = std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join("memkit"))
            .find(|c| c.is_file())?;
        (found.canonicalize().ok()? == exe.canonicalize().ok()?).then(|| "memkit".to_string())
    });
    on_path
        .or_else(|| exe.map(|p| p.display().to_string()))
        .unwrap_or_else(|| "memkit".into())
}

/// A file's text, `""` when it does not exist.
fn read_text(path: &Path) -> Result<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            Error::failed(format!(
                "{}: not UTF-8 text; memkit changed nothing",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// A planned edit of an agent's file.
#[derive(Debug, Clone)]
pub struct Change {
    /// Which agent.
    pub agent: Agent,
    /// The file.
    pub path: PathBuf,
    /// Its text now (`""`: absent).
    pub before: String,
    /// Its text afterwards (`None`: removed).
    pub after: Option<String>,
    /// How the memory fits, after an install.
    pub fit: Option<Fit>,
}

impl Change {
    /// Whether the edit changes nothing.
    pub fn is_noop(&self) -> bool {
        match &self.after {
            Some(a) => *a == self.before && (!a.is_empty() || !self.path.exists()),
            None => !self.path.exists(),
        }
    }

    /// The edit as a unified diff (`--dry-run`).
    pub fn diff(&self) -> Result<String> {
        let p = self.path.display();
        let after = self.after.as_deref().unwrap_or("");
        let hunks = crate::memory::diff::hunks(self.before.as_bytes(), after.as_bytes())?;
        if hunks.is_empty() {
            return Ok(String::new());
        }
        Ok(format!("--- {p}\n+++ {p}\n{hunks}"))
    }

    /// Writes the edit (atomically, keeping the file's permissions) or removes the file.
    pub fn apply(&self) -> Result<()> {
        if self.is_noop() {
            return Ok(());
        }
        match &self.after {
            Some(text) => {
                if let Some(dir) = self.path.parent() {
                    std::fs::create_dir_all(dir).at(dir)?;
                }
                if crate::util::fsx::is_symlink(&self.path) {
                    return Err(Error::failed(format!(
                        "{}: a symbolic link; memkit edits only regular files (changed nothing)",
                        self.path.display()
                    )));
                }
                let mode = std::fs::metadata(&self.path)
                    .ok()
                    .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777);
                crate::util::fsx::write_atomic_mode(&self.path, text.as_bytes(), mode)
            }
            None => std::fs::remove_file(&self.path).at(&self.path),
        }
    }
}

/// Plans installing (or bringing up to date) `agent`'s read path.
pub fn plan_install(cfg: &Config, agent: Agent) -> Result<Change> {
    let rp = read_path(cfg, agent)?;
    let before = read_text(rp.file())?;
    let (after, fit) = rp.install(&before, &BlockSource::load(cfg)?)?;
    Ok(Change {
        agent,
        path: rp.file().to_path_buf(),
        before,
        after: Some(after),
        fit: Some(fit),
    })
}

/// Plans removing `agent`'s read path.
pub fn plan_uninstall(cfg: &Config, agent: Agent) -> Result<Change> {
    let rp = read_path(cfg, agent)?;
    let before = read_text(rp.file())?;
    let after = if rp.is_installed(&before)? {
        rp.uninstall(&before)?
    } else {
        Some(before.clone())
    };
    Ok(Change {
        agent,
        path: rp.file().to_path_buf(),
        before,
        after,
        fit: None,
    })
}

/// What refreshing one installed read path did.
#[derive(Debug, Clone, Serialize)]
pub struct Refreshed {
    /// Which agent.
    pub agent: Agent,
    /// The file.
    pub file: String,
    /// Whether the file changed.
    pub changed: bool,
    /// How the memory fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<Fit>,
    /// Why it could not be refreshed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Brings every installed read path up to date with the memory folder (run
/// after each consolidation); records when and how it fit. A broken file is
/// reported, never a reason to fail the consolidation.
pub fn refresh_installed(cfg: &Config, store: &Store, now: i64) -> Vec<Refreshed> {
    let mut out = Vec::new();
    for agent in Agent::ALL {
        // An agent whose folder is not known has nothing installed to refresh.
        let Ok(rp) = read_path(cfg, agent) else {
            continue;
        };
        let file = rp.file().display().to_string();
        let result = (|| -> Result<Option<Refreshed>> {
            let before = read_text(rp.file())?;
            if !rp.is_installed(&before)? {
                return Ok(None);
            }
            let (after, fit) = rp.refresh(&before, &BlockSource::load(cfg)?)?;
            let change = Change {
                agent,
                path: rp.file().to_path_buf(),
                before,
                after: Some(after),
                fit: Some(fit.clone()),
            };
            let changed = !change.is_noop();
            change.apply()?;
            state::record(store.conn(), agent, now)?;
            Ok(Some(Refreshed {
                agent,
                file: file.clone(),
                changed,
                fit: Some(fit),
                error: None,
            }))
        })();
        match result {
            Ok(Some(r)) => out.push(r),
            Ok(None) => {}
            Err(e) => {
                crate::ui::warn(format!(
                    "could not refresh {}'s memory block: {e}",
                    agent.name()
                ));
                out.push(Refreshed {
                    agent,
                    file,
                    changed: false,
                    fit: None,
                    error: Some(e.to_string()),
                });
            }
        }
    }
    out
}

/// One agent's read path as `memkit status` and `memkit doctor` show it.
#[derive(Debug, Clone, Serialize)]
pub struct AgentStatus {
    /// Which agent.
    pub agent: Agent,
    /// The file memkit edits for it.
    pub file: String,
    /// Whether the read path is installed there.
    pub installed: bool,
    /// When memkit last wrote or checked it, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refreshed_at: Option<i64>,
    /// How the current memory fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<Fit>,
    /// Why the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The read path of every agent, read-only.
pub fn statuses(cfg: &Config, store: Option<&Store>) -> Vec<AgentStatus> {
    Agent::ALL
        .iter()
        .filter_map(|&agent| Some((agent, read_path(cfg, agent).ok()?)))
        .map(|(agent, rp)| {
            let file = rp.file().display().to_string();
            let refreshed_at = store
                .and_then(|s| state::refreshed_at(s.conn(), agent).ok())
                .flatten();
            let checked = (|| -> Result<(bool, Option<Fit>)> {
                let current = read_text(rp.file())?;
                if !rp.is_installed(&current)? {
                    return Ok((false, None));
                }
                Ok((true, Some(rp.fit(&current, &BlockSource::load(cfg)?)?)))
            })();
            match checked {
                Ok((installed, fit)) => AgentStatus {
                    agent,
                    file,
                    installed,
                    refreshed_at: refreshed_at.filter(|_| installed),
                    fit,
                    error: None,
                },
                Err(e) => AgentStatus {
                    agent,
                    file,
                    installed: false,
                    refreshed_at: None,
                    fit: None,
                    error: Some(e.to_string()),
                },
            }
        })
        .collect()
}
