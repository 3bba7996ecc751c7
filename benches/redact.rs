//! Redaction throughput against a plain copy of the same bytes.
//!
//! Generates ~64 MB of session-log-like JSON Lines (code, shell output,
//! prose, token-count events, paths, URLs, hashes, UUIDs) with a secret
//! about every 100 KB, then times, in the same run:
//! - `copy`: each line appended to an output buffer (what `cat` does);
//! - `redact`: each line through `memkit::redact::redact` into the buffer;
//! - `stream`: the whole input through `redact_stream` (the CLI's path)
//!   against `io::copy` of the same input.
//!
//! When the shared samples are present (`../shared/samples` or
//! `$MEMKIT_SAMPLES`) they are measured too, repeated up to the same size.
//!
//! Run with `cargo bench --bench redact`.

use memkit::redact::redact;
use memkit::redact::stream::redact_stream;
use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;
use std::time::Instant;

const TARGET: usize = 64 << 20;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn string(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
}

const HEX: &[u8] = b"0123456789abcdef";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const CODE: &[&str] = &[
    "fn parse_config(path: &Path) -> Result<Config> {\n    let text = std::fs::read_to_string(path)?;\n    toml::from_str(&text).map_err(Error::from)\n}\n",
    "def load_users(session):\n    return session.query(User).filter(User.active == True).all()\n",
    "const response = await fetch(`${baseUrl}/api/items?page=${page}`, { headers });\nif (!response.ok) throw new Error(response.statusText);\n",
    "impl Display for Finding {\n    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {\n        write!(f, \"{}:{}\", self.line, self.rule)\n    }\n}\n",
    "SELECT id, name, created_at FROM orders WHERE status = 'open' ORDER BY created_at DESC LIMIT 50;\n",
];

const OUTPUT: &[&str] = &[
    "   Compiling serde v1.0.219\n   Compiling memkit v0.1.0 (/home/dev/memkit)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.84s\n",
    "running 42 tests\ntest catalog::tests::scan_skips_unchanged ... ok\ntest result: ok. 42 passed; 0 failed; 0 ignored\n",
    "total 48\ndrwxr-xr-x  6 dev dev 4096 Mar  4 10:22 .\n-rw-r--r--  1 dev dev 1203 Mar  4 10:21 Cargo.toml\n-rw-r--r--  1 dev dev 8812 Mar  4 10:21 README.md\n",
    "On branch main\nYour branch is up to date with 'origin/main'.\n\nChanges not staged for commit:\n\tmodified:   src/lib.rs\n",
    "added 231 packages, and audited 232 packages in 3s\n\n41 packages are looking for funding\n  run `npm fund` for details\n",
];

const PROSE: &[&str] = &[
    "I looked at the failing test: the parser drops the last line when the file does not end with a newline. I'll fix the loop and add a regression test.",
    "The migration adds an index on (thread_id, updated_at) so the listing query no longer scans the whole table; on the sample database it went from 480 ms to 3 ms.",
    "Next I will update the README with the new flag and run the full suite again before committing.",
    "The API returns 429 when we exceed the rate limit, so the client now waits for the Retry-After header before trying again.",
];

fn line(rng: &mut Rng, n: usize) -> String {
    let ts = format!(
        "2025-03-04T10:{:02}:{:02}.{:03}Z",
        rng.below(60),
        rng.below(60),
        rng.below(1000)
    );
    let text = match rng.below(6) {
        0 => CODE[rng.below(CODE.len())].to_string(),
        1 => OUTPUT[rng.below(OUTPUT.len())].to_string(),
        2 => PROSE[rng.below(PROSE.len())].to_string(),
        3 => format!(
            "commit {}\nAuthor: Dev <dev@example.com>\n\n    Fix flaky test in {}\n",
            rng.string(HEX, 40),
            rng.string(ALNUM, 8)
        ),
        4 => format!(
            "GET https://api.example.com/v1/items/{}?include=owner 200 in 31ms (request {})",
            rng.below(100000),
            rng.string(HEX, 32)
        ),
        _ => format!(
            "/home/dev/projects/api/src/{}/mod.rs:{}:{}: warning: unused variable",
            rng.string(b"abcdefghijklmnopqrstuvwxyz", 7),
            rng.below(900),
            rng.below(80)
        ),
    };
    let text = if n % 400 == 399 {
        // Roughly one secret every 100 KB.
        format!("{text}\nexport GITHUB_TOKEN=ghp_{}", rng.string(ALNUM, 36))
    } else {
        text
    };
    if n.is_multiple_of(7) {
        format!(
            "{{\"timestamp\":\"{ts}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{},\"cached_input_tokens\":{},\"output_tokens\":{}}}}}}}}}\n",
            rng.below(90000),
            rng.below(50000),
            rng.below(4000)
        )
    } else {
        format!(
            "{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"call_{}\",\"output\":{}}}}}\n",
            rng.string(ALNUM, 24),
            serde_json::to_string(&text).unwrap()
        )
    }
}

fn synthetic() -> String {
    let mut rng = Rng(0xBE9C_4A11_2025);
    let mut out = String::with_capacity(TARGET + 4096);
    let mut n = 0;
    while out.len() < TARGET {
        out.push_str(&line(&mut rng, n));
        n += 1;
    }
    out
}

fn samples() -> Option<String> {
    let dir = std::env::var("MEMKIT_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples"));
    let mut base = String::new();
    for sub in ["codex", "claude"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            base.push_str(&String::from_utf8_lossy(&std::fs::read(f).ok()?));
        }
    }
    if base.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(TARGET + base.len());
    while out.len() < TARGET {
        out.push_str(&base);
    }
    Some(out)
}

/// Best of three runs, in MB/s.
fn mb_per_s(bytes: usize, mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            bytes as f64 / 1e6 / t.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

fn measure(name: &str, text: &str) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Vec<u8> = Vec::with_capacity(text.len() + (1 << 20));
    let copy = mb_per_s(text.len(), || {
        out.clear();
        for l in &lines {
            out.extend_from_slice(black_box(l).as_bytes());
        }
        black_box(&out);
    });
    let mut findings = 0;
    let lib = mb_per_s(text.len(), || {
        out.clear();
        for l in &lines {
            let r = redact(black_box(l));
            if r.len() != l.len() {
                findings += 1;
            }
            out.extend_from_slice(r.as_bytes());
        }
        black_box(&out);
    });
    let cat = mb_per_s(text.len(), || {
        out.clear();
        std::io::copy(&mut Cursor::new(text.as_bytes()), &mut out).unwrap();
        black_box(&out);
    });
    let stream = mb_per_s(text.len(), || {
        out.clear();
        redact_stream(Cursor::new(text.as_bytes()), &mut out, |_| {}).unwrap();
        black_box(&out);
    });
    println!(
        "{name}: {:.1} MB, {} lines, {} lines with secrets",
        text.len() as f64 / 1e6,
        lines.len(),
        findings / 3
    );
    println!("  copy per line    {copy:8.0} MB/s");
    println!(
        "  redact per line  {lib:8.0} MB/s   ({:.2}x of copy)",
        lib / copy
    );
    println!("  io::copy (cat)   {cat:8.0} MB/s");
    println!(
        "  redact_stream    {stream:8.0} MB/s   ({:.2}x of cat)",
        stream / cat
    );
}

fn main() {
    measure("synthetic session log", &synthetic());
    match samples() {
        Some(s) => measure("shared samples, repeated", &s),
        None => println!("shared samples not found (set MEMKIT_SAMPLES to include them)"),
    }
}
