//! Runs the real `memkit` binary over a corpus as a new user would: default
//! (heuristic) backends, a clean environment inside a work directory, and a
//! config that only widens the age windows so two months of history are eligible.

use super::generator::Written;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The config memkit runs with: everything default but the age windows,
/// which take in two months of history (extraction's and consolidation's:
/// by default a memory no session has used for 30 days is left out).
const CONFIG: &str = "max_rollout_age_days = 60\nmax_unused_days = 60\n";

/// memkit pointed at one corpus, with its home in a work directory.
pub struct Memkit {
    binary: PathBuf,
    corpus: PathBuf,
    work: PathBuf,
}

impl Memkit {
    /// Prepares `work` (emptied first) for runs of `binary` over `corpus`
    /// (its `codex/` and `claude/` folders).
    pub fn new(binary: &Path, corpus: &Path, work: &Path) -> io::Result<Memkit> {
        if work.exists() {
            std::fs::remove_dir_all(work)?;
        }
        std::fs::create_dir_all(work.join("home/.config"))?;
        std::fs::write(work.join("config.toml"), CONFIG)?;
        Ok(Memkit {
            binary: binary.to_path_buf(),
            corpus: corpus.to_path_buf(),
            work: work.to_path_buf(),
        })
    }

    /// The memory folder memkit writes.
    pub fn memory_root(&self) -> PathBuf {
        self.memkit_home().join("memories")
    }

    fn memkit_home(&self) -> PathBuf {
        self.work.join("memkit")
    }

    /// Runs `memkit <args> --codex-home … --claude-home … --memkit-home …`
    /// with nothing from the caller's environment but PATH; returns stdout,
    /// or an error carrying memkit's output when it fails.
    pub fn call(&self, args: &[&str]) -> io::Result<String> {
        let home = self.work.join("home");
        let (codex, claude) = (self.corpus.join("codex"), self.corpus.join("claude"));
        let out = Command::new(&self.binary)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("CODEX_HOME", &codex)
            .env("CLAUDE_CONFIG_DIR", &claude)
            .env("MEMKIT_HOME", self.memkit_home())
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("MEMKIT_CONFIG", self.work.join("config.toml"))
            .args(args)
            .arg("--codex-home")
            .arg(&codex)
            .arg("--claude-home")
            .arg(&claude)
            .arg("--memkit-home")
            .arg(self.memkit_home())
            .output()?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "memkit {args:?} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        String::from_utf8(out.stdout).map_err(io::Error::other)
    }

    /// The nightly job; returns the memory folder.
    pub fn run(&self) -> io::Result<PathBuf> {
        self.call(&["run"])?;
        Ok(self.memory_root())
    }

    /// The session catalog as `memkit sessions --json` lists it.
    pub fn sessions(&self) -> io::Result<Vec<serde_json::Value>> {
        self.call(&["sessions", "--json"])?
            .lines()
            .map(|l| serde_json::from_str(l).map_err(io::Error::other))
            .collect()
    }

    /// Checks that memkit catalogues every generated session with its tool
    /// and project, as eligible, and reads its commands and human turns (a
    /// Claude Code slash command the user typed counts as one more turn), so
    /// a failing figure is about memory, not about parsing.
    pub fn check_catalog(&self, written: &[Written]) -> Result<(), String> {
        let listed = self.sessions().map_err(|e| e.to_string())?;
        if listed.len() != written.len() {
            return Err(format!(
                "{} sessions catalogued, {} written",
                listed.len(),
                written.len()
            ));
        }
        for w in written {
            let path = w.path.to_string_lossy();
            let row = listed
                .iter()
                .find(|r| r["path"].as_str() == Some(path.as_ref()))
                .ok_or_else(|| format!("{path} is not catalogued"))?;
            let humans = row["human_turns"].as_u64().unwrap_or(0) as usize;
            let read = row["tool"] == w.tool
                && row["cwd"] == w.cwd.as_str()
                && row["eligible"] == true
                && row["malformed_lines"] == 0
                && row["tool_calls"] == w.commands as u64
                && row["assistant_messages"].as_u64().unwrap_or(0) > 0
                && (w.human_turns..=w.human_turns + 1).contains(&humans);
            if !read {
                return Err(format!(
                    "{path} is not read as written ({} human turns, {} commands in {}): {row}",
                    w.human_turns, w.commands, w.cwd
                ));
            }
        }
        Ok(())
    }
}
