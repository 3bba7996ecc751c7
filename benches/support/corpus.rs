//! A deterministic synthetic corpus of Codex and Claude Code sessions in the
//! real formats and folder layouts, for benchmarks (shared by
//! `examples/gen_corpus.rs`, `benches/pipeline.rs` and the harness test).
#![allow(dead_code)]

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A small, fast, deterministic PRNG (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Log-uniform in `[lo, hi)`.
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (lo.ln() + u * (hi.ln() - lo.ln())).exp()
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }
}

/// The file in a corpus folder that records the settings it was generated
/// with; it is written last, so it also marks the corpus as complete.
const SETTINGS_FILE: &str = "corpus.settings";

/// Whether `out` holds a complete corpus generated with exactly `spec`.
pub fn generated_with(spec: &Spec, out: &Path) -> bool {
    fs::read_to_string(out.join(SETTINGS_FILE)).is_ok_and(|s| s == format!("{spec:?}\n"))
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    pub sessions: usize,
    pub seed: u64,
    /// Multiplies every target size (1.0: 20 KB–2 MB typical sessions).
    pub scale: f64,
    /// Sessions of 50–500 MB (before `scale`).
    pub huge: usize,
    /// Share of Codex sessions written as `.jsonl.zst`.
    pub compressed_share: f64,
    /// Share of sessions written by Claude Code.
    pub claude_share: f64,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            sessions: 1000,
            seed: 1,
            scale: 1.0,
            huge: 0,
            compressed_share: 0.1,
            claude_share: 0.3,
        }
    }
}

/// What was generated.
#[derive(Debug, Default, Clone)]
pub struct Generated {
    pub codex_home: PathBuf,
    pub claude_home: PathBuf,
    pub files: Vec<PathBuf>,
    pub bytes: u64,
    pub planted_secrets: usize,
    pub malformed_lines: usize,
}

const WORDS: &[&str] = &[
    "refactor",
    "the",
    "parser",
    "cache",
    "login",
    "test",
    "flaky",
    "retry",
    "database",
    "migration",
    "handler",
    "config",
    "build",
    "release",
    "docs",
    "api",
    "client",
    "server",
    "queue",
    "worker",
];
const COMMANDS: &[&str] = &[
    "cargo test",
    "pnpm test",
    "npm run build",
    "make check",
    "pytest -q",
    "go test ./...",
    "git status",
    "rg -n TODO src",
    "ls -la",
    "cargo clippy --all-targets",
];
const PREFERENCES: &[&str] = &[
    "We use pnpm here, not npm.",
    "Always run cargo fmt before committing.",
    "Don't run the whole suite, just the affected tests.",
    "No, tests run with make check.",
    "Prefer small commits with clear messages.",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| rng.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A fake credential built at run time (never committed as text).
fn fake_secret(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("gh{}", format_args!("p_{}", rng.alnum(36))),
        1 => format!("sk-{}", rng.alnum(48)),
        2 => format!("AKIA{}", rng.alnum(16).to_uppercase()),
        _ => format!("postgres://app:{}@db.internal:5432/main", rng.alnum(20)),
    }
}

fn uuid(rng: &mut Rng, i: usize) -> String {
    format!(
        "019{:05x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        i,
        rng.below(0x10000),
        rng.below(0x1000),
        rng.below(0x1000),
        rng.next() & 0xffff_ffff_ffff
    )
}

fn blob(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 64);
    while s.len() < bytes {
        s.push_str(&sentence(rng, 12));
        s.push('\n');
    }
    s.truncate(bytes);
    s
}

/// A JSON object with keys in the given order (Codex writes `type` first).
pub fn obj(fields: &[(&str, serde_json::Value)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), v))
        .collect();
    format!("{{{}}}", body.join(","))
}

/// A Codex envelope line in Codex's key order: timestamp, type, payload.
pub fn envelope(ts: &str, kind: &str, payload: &str) -> String {
    format!(r#"{{"timestamp":"{ts}","type":"{kind}","payload":{payload}}}"#)
}

struct Writer {
    out: BufWriter<File>,
    written: u64,
}

impl Writer {
    fn line(&mut self, v: &serde_json::Value) {
        self.raw(&v.to_string());
    }

    fn raw(&mut self, text: &str) {
        self.written += text.len() as u64 + 1;
        self.out.write_all(text.as_bytes()).unwrap();
        self.out.write_all(b"\n").unwrap();
    }
}

/// Writes one Codex rollout of about `target` bytes.
fn codex_session(path: &Path, id: &str, target: u64, rng: &mut Rng, g: &mut Generated) {
    let file = File::create(path).unwrap();
    let mut w = Writer {
        out: BufWriter::with_capacity(1 << 20, file),
        written: 0,
    };
    let ts = "2026-11-20T10:00:00.000Z";
    let cwd = format!("/home/dev/{}", rng.pick(WORDS));
    w.raw(&envelope(
        ts,
        "session_meta",
        &obj(&[
            ("id", id.into()),
            ("timestamp", ts.into()),
            ("cwd", cwd.clone().into()),
            ("originator", "codex-tui".into()),
            ("cli_version", "0.140.0".into()),
            ("source", "cli".into()),
            (
                "base_instructions",
                serde_json::json!({"text": blob(rng, 12_000)}),
            ),
            ("git", serde_json::json!({"branch": "main"})),
        ]),
    ));
    let mut turn = 0usize;
    while turn == 0 || w.written < target {
        turn += 1;
        let mut ask = format!(
            "{} {}",
            sentence(rng, 8),
            if rng.chance(0.2) {
                rng.pick(PREFERENCES)
            } else {
                ""
            }
        );
        if rng.chance(0.05) {
            ask.push_str(&format!(" export OPENAI_API_KEY={}", fake_secret(rng)));
            g.planted_secrets += 1;
        }
        w.raw(&envelope(
            ts,
            "turn_context",
            &obj(&[
                ("cwd", cwd.clone().into()),
                ("model", "gpt-5.5".into()),
                ("approval_policy", "on-request".into()),
                (
                    "sandbox_policy",
                    serde_json::json!({"type": "workspace-write"}),
                ),
            ]),
        ));
        w.raw(&envelope(
            ts,
            "response_item",
            &obj(&[
                ("type", "message".into()),
                ("role", "user".into()),
                (
                    "content",
                    serde_json::json!([{"type": "input_text", "text": ask}]),
                ),
            ]),
        ));
        w.raw(&envelope(
            ts,
            "event_msg",
            &obj(&[
                ("type", "user_message".into()),
                ("message", ask.clone().into()),
                ("images", serde_json::json!([])),
            ]),
        ));
        for call in 0..(2 + rng.below(6)) {
            let call_id = format!("call_{turn}_{call}");
            let reasoning_len = 2000 + rng.below(3000) as usize;
            w.raw(&envelope(
                ts,
                "response_item",
                &obj(&[
                    ("type", "reasoning".into()),
                    ("summary", serde_json::json!([])),
                    ("content", serde_json::Value::Null),
                    (
                        "encrypted_content",
                        format!("gAAAA{}", rng.alnum(reasoning_len)).into(),
                    ),
                ]),
            ));
            let cmd = rng.pick(COMMANDS);
            w.raw(&envelope(
                ts,
                "response_item",
                &obj(&[
                    ("type", "function_call".into()),
                    ("name", "exec_command".into()),
                    (
                        "arguments",
                        serde_json::json!({"cmd": cmd}).to_string().into(),
                    ),
                    ("call_id", call_id.clone().into()),
                ]),
            ));
            let size = if rng.chance(0.002) {
                3_000_000
            } else {
                rng.log_uniform(200.0, 40_000.0) as usize
            };
            let code = if rng.chance(0.15) { 1 } else { 0 };
            let mut output = blob(rng, size);
            if rng.chance(0.03) {
                output.push_str(&format!("\nAuthorization: Bearer {}\n", fake_secret(rng)));
                g.planted_secrets += 1;
            }
            w.raw(&envelope(ts, "response_item", &obj(&[
                ("type", "function_call_output".into()), ("call_id", call_id.clone().into()),
                ("output", format!("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code {code}\nOriginal token count: 9\nOutput:\n{output}").into()),
            ])));
            w.raw(&envelope(
                ts,
                "event_msg",
                &obj(&[
                    ("type", "token_count".into()),
                    ("info", serde_json::Value::Null),
                ]),
            ));
            if rng.chance(0.0005) {
                w.raw("{\"timestamp\":\"2026-11-20T10:00:00.000Z\",\"type\":\"event_msg\",\"payl");
                g.malformed_lines += 1;
            }
        }
        let answer = sentence(rng, 30);
        w.raw(&envelope(
            ts,
            "response_item",
            &obj(&[
                ("type", "message".into()),
                ("role", "assistant".into()),
                ("phase", "final_answer".into()),
                (
                    "content",
                    serde_json::json!([{"type": "output_text", "text": answer}]),
                ),
            ]),
        ));
        w.raw(&envelope(
            ts,
            "event_msg",
            &obj(&[("type", "agent_message".into()), ("message", answer.into())]),
        ));
    }
    w.out.flush().unwrap();
    g.bytes += w.written;
}

/// Writes one Claude Code transcript of about `target` bytes.
fn claude_session(path: &Path, id: &str, target: u64, rng: &mut Rng, g: &mut Generated) {
    let file = File::create(path).unwrap();
    let mut w = Writer {
        out: BufWriter::with_capacity(1 << 20, file),
        written: 0,
    };
    let cwd = format!("/home/dev/{}", rng.pick(WORDS));
    let base = |kind: &str, uuid: String| serde_json::json!({"type": kind, "uuid": uuid, "sessionId": id, "cwd": cwd, "gitBranch": "main", "version": "2.1.40", "isSidechain": false, "timestamp": "2026-11-20T10:00:00.000Z"});
    let mut n = 0u64;
    while n == 0 || w.written < target {
        n += 1;
        let mut user = base("user", format!("u{n}"));
        let ask = format!(
            "{} {}",
            sentence(rng, 8),
            if rng.chance(0.2) {
                rng.pick(PREFERENCES)
            } else {
                ""
            }
        );
        user["message"] = serde_json::json!({"role": "user", "content": ask});
        w.line(&user);
        for call in 0..(1 + rng.below(5)) {
            let tool_id = format!("toolu_{n}_{call}");
            let mut a = base("assistant", format!("a{n}_{call}"));
            a["message"] = serde_json::json!({"id": format!("msg_{n}_{call}"), "role": "assistant", "model": "claude-opus-4-6", "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": rng.pick(COMMANDS)}}]});
            w.line(&a);
            let mut r = base("user", format!("r{n}_{call}"));
            let size = rng.log_uniform(200.0, 30_000.0) as usize;
            r["message"] = serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": blob(rng, size), "is_error": rng.chance(0.1)}]});
            w.line(&r);
            let mut p = base("progress", format!("p{n}_{call}"));
            p["data"] = serde_json::json!({"type": "bash_progress", "output": blob(rng, 300)});
            w.line(&p);
        }
        let mut a = base("assistant", format!("f{n}"));
        a["message"] = serde_json::json!({"id": format!("msg_f{n}"), "role": "assistant", "model": "claude-opus-4-6", "content": [{"type": "text", "text": sentence(rng, 30)}]});
        w.line(&a);
    }
    w.out.flush().unwrap();
    g.bytes += w.written;
}

/// Generates the corpus under `out` (`.codex/` and `.claude/`).
pub fn generate(spec: &Spec, out: &Path) -> Generated {
    let settings = out.join(SETTINGS_FILE);
    let _ = fs::remove_file(&settings);
    let mut rng = Rng::new(spec.seed);
    let mut g = Generated {
        codex_home: out.join(".codex"),
        claude_home: out.join(".claude"),
        ..Default::default()
    };
    for i in 0..spec.sessions {
        let target = if i < spec.huge {
            rng.log_uniform(50e6, 500e6)
        } else {
            rng.log_uniform(20e3, 2e6)
        } * spec.scale;
        let target = target.max(2_000.0) as u64;
        let id = uuid(&mut rng, i);
        if rng.chance(spec.claude_share) {
            let dir = g
                .claude_home
                .join(format!("projects/-home-dev-p{}", i % 37));
            fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{id}.jsonl"));
            claude_session(&path, &id, target, &mut rng, &mut g);
            g.files.push(path);
        } else {
            let day = 1 + i % 28;
            let dir = g.codex_home.join(format!("sessions/2026/10/{day:02}"));
            fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("rollout-2026-10-{day:02}T10-00-00-{id}.jsonl"));
            codex_session(&path, &id, target, &mut rng, &mut g);
            if rng.chance(spec.compressed_share) && i >= spec.huge {
                let z = path.with_extension("jsonl.zst");
                let bytes = fs::read(&path).unwrap();
                fs::write(&z, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
                fs::remove_file(&path).unwrap();
                g.files.push(z);
            } else {
                g.files.push(path);
            }
        }
    }
    fs::create_dir_all(out).unwrap();
    fs::write(&settings, format!("{spec:?}\n")).unwrap();
    g
}
