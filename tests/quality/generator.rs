//! The corpus generator: writes the scenario's sessions as real Codex
//! rollouts and Claude Code transcripts, and its answer key, into a corpus
//! directory:
//!
//! ```text
//! codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl
//! claude/projects/<slug-of-cwd>/<uuid>.jsonl
//! key.json
//! ```
//!
//! Deterministic: the same `now` gives the same bytes. Day 0 of the story is
//! 29 days before `now`'s date, so the last sessions are two days old and the
//! first are within memkit's default 30-day selection window. Times are UTC;
//! every file's mtime is its last line's timestamp.

mod claude;
mod clock;
mod codex;
mod json;
mod rng;
mod scenario;
mod session;

use super::key::Key;
use clock::{DAY_MS, file_stamp};
use rng::Rng;
use session::{Session, Step, Tool};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How many days before `now`'s date the story starts.
const FIRST_DAY_AGO: i64 = 29;

/// What [`generate`] wrote.
pub struct Corpus {
    pub key: Key,
    /// Every session file, in story order.
    pub sessions: Vec<Written>,
}

/// One session file and what a reader should find in it.
pub struct Written {
    pub path: PathBuf,
    pub cwd: String,
    /// `codex` or `claude`, as memkit names the tool.
    pub tool: &'static str,
    /// Messages the human typed.
    pub human_turns: usize,
    /// Shell commands the agent ran.
    pub commands: usize,
}

/// Writes the corpus into `dir` (created if needed), dated relative to `now`.
pub fn generate(dir: &Path, now: SystemTime) -> io::Result<Corpus> {
    let now_ms = now
        .duration_since(UNIX_EPOCH)
        .map_err(io::Error::other)?
        .as_millis() as i64;
    let day0 = (now_ms.div_euclid(DAY_MS) - FIRST_DAY_AGO) * DAY_MS;
    let mut plan = scenario::Plan::build();
    plan.sessions.sort_by_key(|s| (s.day, s.minute));
    let mut written = Vec::new();
    for (n, s) in plan.sessions.iter().enumerate() {
        let mut rng = Rng::new(0x0c0f_fee0 + n as u64);
        let start = day0 + i64::from(s.day) * DAY_MS + i64::from(s.minute) * 60_000;
        let times = step_times(s, start, &mut rng);
        let (path, (text, last)) = match s.tool {
            Tool::Claude => {
                let id = rng.uuid_v4();
                let path = dir
                    .join("claude/projects")
                    .join(claude::project_dir(&s.cwd))
                    .join(format!("{id}.jsonl"));
                (path, claude::write(s, &id, &times, &mut rng))
            }
            Tool::CodexModern | Tool::CodexLegacy => {
                let id = rng.uuid_v7(start);
                let stamp = file_stamp(start);
                let path = dir
                    .join("codex/sessions")
                    .join(&stamp[..4])
                    .join(&stamp[5..7])
                    .join(&stamp[8..10])
                    .join(format!("rollout-{stamp}-{id}.jsonl"));
                (path, codex::write(s, &id, start, &times, &mut rng))
            }
        };
        fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        fs::write(&path, text)?;
        File::options()
            .write(true)
            .open(&path)?
            .set_modified(UNIX_EPOCH + Duration::from_millis(last as u64))?;
        written.push(Written {
            path,
            cwd: s.cwd.clone(),
            tool: if s.tool == Tool::Claude {
                "claude"
            } else {
                "codex"
            },
            human_turns: count(s, |step| matches!(step, Step::User(_))),
            commands: count(s, |step| matches!(step, Step::Command { .. })),
        });
    }
    plan.key.write(dir)?;
    Ok(Corpus {
        key: plan.key,
        sessions: written,
    })
}

fn count(s: &Session, f: impl Fn(&Step) -> bool) -> usize {
    s.steps.iter().filter(|step| f(step)).count()
}

/// When each step happened: typing, replying and running take a while.
fn step_times(s: &Session, start: i64, rng: &mut Rng) -> Vec<i64> {
    let mut t = start + 2_000;
    s.steps
        .iter()
        .map(|step| {
            t += match step {
                Step::User(text) => 15_000 + text.len() as i64 * 150 + rng.range(0, 60_000),
                Step::Agent(text) => 4_000 + text.len() as i64 * 40 + rng.range(0, 20_000),
                Step::Command { .. } => rng.range(1_000, 8_000),
                Step::Context(_) => 5,
            };
            t
        })
        .collect()
}
