//! Generates a synthetic, deterministic Codex + Claude Code corpus for benchmarks.
//!
//! ```sh
//! cargo run --release --example gen_corpus -- --sessions 10000 --seed 1 --out /tmp/corpus [--scale 1.0] [--huge 2]
//! ```
//! Then point memkit at it: `CODEX_HOME=/tmp/corpus/.codex CLAUDE_CONFIG_DIR=/tmp/corpus/.claude`.

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::path::PathBuf;

fn main() {
    let mut spec = corpus::Spec::default();
    let mut out: Option<PathBuf> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--sessions" => spec.sessions = value.parse().expect("--sessions N"),
            "--seed" => spec.seed = value.parse().expect("--seed N"),
            "--scale" => spec.scale = value.parse().expect("--scale F"),
            "--huge" => spec.huge = value.parse().expect("--huge N"),
            "--out" => out = Some(PathBuf::from(value)),
            other => {
                eprintln!(
                    "unknown argument {other}; usage: gen_corpus --sessions N --seed N --out DIR [--scale F] [--huge N]"
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    let out = out.unwrap_or_else(|| {
        eprintln!("--out DIR is required");
        std::process::exit(2);
    });
    let started = std::time::Instant::now();
    let g = corpus::generate(&spec, &out);
    println!(
        "{} sessions, {:.1} MB, {} planted secrets, {} malformed lines in {:.1}s\nCODEX_HOME={} CLAUDE_CONFIG_DIR={}",
        g.files.len(),
        g.bytes as f64 / 1e6,
        g.planted_secrets,
        g.malformed_lines,
        started.elapsed().as_secs_f64(),
        g.codex_home.display(),
        g.claude_home.display()
    );
}
