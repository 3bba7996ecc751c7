//! Shared test helpers: an isolated HOME with Codex / Claude Code folders laid
//! out as the tools lay them out, and a runner for the `memkit` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

/// A throw-away environment: HOME, CODEX_HOME, CLAUDE_CONFIG_DIR, MEMKIT_HOME.
pub struct TestEnv {
    pub root: PathBuf,
    pub home: PathBuf,
    pub codex_home: PathBuf,
    pub claude_home: PathBuf,
    pub memkit_home: PathBuf,
    pub extra_env: Vec<(String, String)>,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let root =
            std::env::temp_dir().join(format!("memkit-it-{}", memkit::util::ids::new_uuid_v4()));
        let env = TestEnv {
            home: root.join("home"),
            codex_home: root.join("home/.codex"),
            claude_home: root.join("home/.claude"),
            memkit_home: root.join("home/.local/share/memkit"),
            root,
            extra_env: Vec::new(),
        };
        std::fs::create_dir_all(&env.codex_home).unwrap();
        std::fs::create_dir_all(&env.claude_home).unwrap();
        env
    }

    /// The memory folder (default location: memkit's own, not Codex's).
    pub fn memory_root(&self) -> PathBuf {
        self.memkit_home.join("memories")
    }

    /// A `memkit` command with this environment and nothing from the caller's.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memkit"));
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CODEX_HOME", &self.codex_home)
            .env("CLAUDE_CONFIG_DIR", &self.claude_home)
            .env("MEMKIT_HOME", &self.memkit_home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"));
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        c
    }

    /// An executable shell script `name` in the test root running `body`.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.root.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// The state database.
    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.memkit_home.join("memkit.sqlite")).unwrap()
    }

    /// The one number `sql` returns from the state database.
    pub fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// Runs memkit with `args`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("memkit runs")
    }

    /// Runs memkit and asserts exit code 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "memkit {args:?} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs memkit (any exit code) and returns stdout.
    pub fn ok_or_fail(&self, args: &[&str]) -> String {
        String::from_utf8(self.run(args).stdout).unwrap()
    }

    /// Writes the config file memkit reads by default.
    pub fn write_config(&self, text: &str) -> PathBuf {
        let p = self.home.join(".config/memkit/config.toml");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Copies the committed fixtures into the Codex and Claude Code folders,
    /// Codex rollouts into `sessions/YYYY/MM/DD/` by the date in their name.
    pub fn install_fixtures(&self) -> Vec<PathBuf> {
        let fixtures = fixtures_dir();
        let mut out = Vec::new();
        for entry in std::fs::read_dir(fixtures.join("codex")).unwrap() {
            let src = entry.unwrap().path();
            out.push(self.install_codex(&src, None));
        }
        copy_tree(&fixtures.join("claude"), &self.claude_home, &mut out);
        out.sort();
        out
    }

    /// Copies one Codex rollout into `sessions/YYYY/MM/DD/` (name kept, or `name`).
    pub fn install_codex(&self, src: &Path, name: Option<&str>) -> PathBuf {
        let file_name = name
            .map(str::to_string)
            .unwrap_or_else(|| src.file_name().unwrap().to_string_lossy().into_owned());
        let date = &file_name["rollout-".len().."rollout-".len() + 10];
        let (y, rest) = date.split_at(4);
        let (m, d) = (&rest[1..3], &rest[4..6]);
        let dir = self.codex_home.join("sessions").join(y).join(m).join(d);
        std::fs::create_dir_all(&dir).unwrap();
        let dst = dir.join(&file_name);
        std::fs::copy(src, &dst).unwrap();
        dst
    }

    /// Lays out the shared samples the way Codex and Claude Code lay out
    /// their own files (sub-agent transcripts included), so discovery sees
    /// them as it would on a real machine.
    pub fn install_samples(&self, samples: &Path) {
        for entry in std::fs::read_dir(samples.join("codex")).unwrap() {
            let src = entry.unwrap().path();
            let id = memkit::sources::read_transcript(
                &src,
                memkit::sources::Tool::Codex,
                Default::default(),
            )
            .unwrap()
            .info
            .id;
            self.install_codex(
                &src,
                Some(&format!("rollout-2026-01-15T10-00-00-{id}.jsonl")),
            );
        }
        let project = self.claude_home.join("projects/-samples");
        let subagents = project.join("ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents");
        std::fs::create_dir_all(&subagents).unwrap();
        for entry in std::fs::read_dir(samples.join("claude")).unwrap() {
            let src = entry.unwrap().path();
            let name = src.file_name().unwrap().to_string_lossy().into_owned();
            let dst = if name.contains("__subagents__") {
                subagents.join("agent-aac57f5.jsonl")
            } else if name.contains("agent-sidechain") {
                project.join("agent-af1ff21.jsonl")
            } else {
                project.join(name)
            };
            std::fs::copy(&src, dst).unwrap();
        }
    }

    /// Sets every session file's mtime to `age` ago, so it is past its idle window.
    pub fn age_sessions(&self, age: Duration) {
        let t = SystemTime::now() - age;
        for dir in [&self.codex_home, &self.claude_home] {
            visit(dir, &mut |p| {
                if p.to_string_lossy().contains(".jsonl") {
                    set_mtime(p, t);
                }
            });
        }
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The shared samples folder, or `None` (with a note on stderr) when absent.
pub fn samples_dir() -> Option<PathBuf> {
    let dir = std::env::var("MEMKIT_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples"));
    if dir.join("codex").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: shared samples not found at {} (set MEMKIT_SAMPLES to run these checks)",
            dir.display()
        );
        None
    }
}

pub fn set_mtime(path: &Path, t: SystemTime) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(t).unwrap();
}

pub fn visit(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            visit(&p, f);
        } else if meta.is_file() {
            f(&p);
        }
    }
}

fn copy_tree(src: &Path, dst: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let p = e.path();
        let target = dst.join(e.file_name());
        if p.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&p, &target, out);
        } else {
            std::fs::copy(&p, &target).unwrap();
            out.push(target);
        }
    }
}

/// The `[extract]` section for the command backend running `program`.
pub fn command_extractor(program: &Path) -> String {
    format!(
        "[extract]\nbackend = \"command\"\ncommand = [\"{}\"]\n",
        program.display()
    )
}

/// Runs `git -C root args`, asserting it succeeds; returns its stdout.
pub fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The texts of a transcript's human messages, in order.
pub fn humans(t: &memkit::sources::Transcript) -> Vec<&str> {
    use memkit::sources::{Event, Role};
    t.events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.role == Role::User => Some(m.text.as_str()),
            _ => None,
        })
        .collect()
}

/// Parses JSON Lines output.
pub fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

pub mod batch_mock;
pub mod mock;

/// A synthetic thread id (UUIDv7-shaped) for session `i`.
pub fn thread_id(i: usize) -> String {
    format!("019f{:04x}-0000-7000-8000-{:012x}", i, i)
}

impl TestEnv {
    /// A home whose extractor (a command) takes two seconds to answer
    /// `stage_one(tag)`, with one session (`thread_id(1)`) to extract.
    pub fn with_slow_extractor(tag: &str) -> TestEnv {
        let env = TestEnv::new();
        let slow = env.script(
            "slow.sh",
            &format!(
                "cat >/dev/null\nsleep 2\nprintf '%s' '{}'",
                mock::stage_one(tag)
            ),
        );
        env.write_config(&command_extractor(&slow));
        env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
        env
    }

    /// The memory folder's files (without `.git` and the transient diff),
    /// root-relative and sorted, with the test root's path replaced so two
    /// homes compare equal.
    pub fn folder_contents(&self) -> Vec<(String, String)> {
        let root = self.memory_root();
        let mut out = Vec::new();
        visit(&root, &mut |p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel.starts_with(".git/") || rel == "phase2_workspace_diff.md" {
                return;
            }
            let text = String::from_utf8_lossy(&std::fs::read(p).unwrap())
                .replace(&self.root.display().to_string(), "<ROOT>");
            out.push((rel, text));
        });
        out.sort();
        out
    }

    /// Writes a Codex rollout for thread `id` with these human messages (each
    /// answered, with one shell call), aged past the idle window. Returns its path.
    pub fn write_codex_session(&self, id: &str, humans: &[&str]) -> PathBuf {
        let dir = self.codex_home.join("sessions/2026/11/20");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rollout-2026-11-20T10-00-00-{id}.jsonl"));
        let ts = "2026-11-20T10:00:00.000Z";
        let mut lines = vec![
            serde_json::json!({"timestamp": ts, "type": "session_meta", "payload": {
            "id": id, "timestamp": ts, "cwd": "/home/dev/proj", "originator": "codex-tui",
            "cli_version": "0.140.0", "source": "cli", "git": {"branch": "main"}}}),
        ];
        for (n, h) in humans.iter().enumerate() {
            lines.push(serde_json::json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": h}}));
            lines.push(
                serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call", "name": "exec_command", "call_id": format!("c{n}"),
                "arguments": serde_json::json!({"cmd": format!("make test-{n}")}).to_string()}}),
            );
            lines.push(
                serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": format!("c{n}"),
                "output": "Process exited with code 0\nOutput:\nok\n"}}),
            );
            lines.push(
                serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "phase": "final_answer",
                "content": [{"type": "output_text", "text": format!("Done with step {n}.")}]}}),
            );
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        set_mtime(&path, SystemTime::now() - Duration::from_secs(7 * 3600));
        path
    }
}
