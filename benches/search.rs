//! Search figures for BENCHMARKS.md (issue 15).
//!
//! - Quality: the share of paraphrased questions whose fact is in the top 3
//!   (`tests/search/questions.json`, or `--questions FILE`).
//! - Speed: `memkit search` against `grep -rni` over the same memory files,
//!   both as whole processes whose output is read through a pipe (median of
//!   7), on a generated memory of 10,000 sessions; and the index refresh
//!   after a consolidation rewrote `MEMORY.md`, against that same grep.
//!
//! ```sh
//! cargo bench --bench search
//! cargo bench --bench search -- --questions FILE --sessions 10000
//! cargo bench --bench search -- --memory DIR --questions FILE   # another memory
//! cargo bench --bench search -- --work /tmp/memkit-search   # keeps the memory
//! ```

#[path = "../tests/search/eval.rs"]
mod eval;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/search");
    let mut questions = committed.join("questions.json");
    let mut memory = committed.join("memory");
    let mut sessions = 10_000usize;
    let mut kept: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--questions" => questions = args.next().map(PathBuf::from).unwrap_or(questions),
            "--memory" => memory = args.next().map(PathBuf::from).unwrap_or(memory),
            "--sessions" => sessions = args.next().and_then(|n| n.parse().ok()).unwrap_or(sessions),
            "--work" => kept = args.next().map(PathBuf::from),
            "--bench" => {}
            other => {
                eprintln!(
                    "unknown argument {other} (use --questions FILE, --memory DIR, --sessions N, --work DIR)"
                );
                std::process::exit(2);
            }
        }
    }
    // `--work DIR` keeps the memory and database for a profiler.
    let work = kept.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("memkit-search-bench-{}", std::process::id()))
    });
    quality(&memory, &questions, &work);
    speed(sessions, &work);
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// The paraphrase figure: `questions` asked of the memory folder `memory`.
fn quality(memory: &Path, questions: &Path, work: &Path) {
    let qs = eval::questions(questions);
    let outcome = eval::evaluate(memory, &work.join("quality/memkit.sqlite"), &qs, 3, None);
    for (q, top) in &outcome.missed {
        eprintln!("missed: {q}\n   top: {}", top.lines().next().unwrap_or(""));
    }
    println!(
        "paraphrase top-3 (BM25 + synonyms): {}/{} = {:.1}%  ({})",
        outcome.answered,
        outcome.total,
        outcome.percent(),
        questions.display()
    );
}

/// A memory folder in the real layout for `sessions` sessions: one
/// `MEMORY.md` task per session in 200 projects, each with three bullets.
fn generate(root: &Path, sessions: usize) {
    std::fs::create_dir_all(root.join("rollout_summaries")).unwrap();
    let tools = [
        "pytest",
        "cargo test",
        "npm test",
        "go test ./...",
        "mix test",
    ];
    let verbs = ["deploy", "lint", "format", "migrate", "build"];
    let mut handbook = String::from("# Memory handbook\n\n");
    let projects = 200;
    for p in 0..projects {
        handbook.push_str(&format!(
            "# Task Group: /home/dev/src/project-{p:03}\nscope: {} sessions\n\n",
            sessions / projects
        ));
        for t in 0..sessions / projects {
            let n = p * (sessions / projects) + t;
            handbook.push_str(&format!(
                "## Task {}: change {n} in project-{p:03}, success\n### rollout_summary_files\n\
                 - rollout_summaries/s{n}.md (cwd=/home/dev/src/project-{p:03}, updated_at=2026-11-03T10:00:00Z, thread_id=019f0000-0000-7000-8000-{n:012x}, git_branch=main)\n\
                 ### keywords\nkw{n}, module{}\n\n",
                t + 1,
                n % 97
            ));
        }
        handbook.push_str("## Reusable knowledge\n");
        for t in 0..sessions / projects {
            let n = p * (sessions / projects) + t;
            handbook.push_str(&format!(
                "- `{} -k case{n}` works in project-{p:03} (tests) [Task {}]\n\
                 - `make {}-{n}` is how project-{p:03} does {} step {n} [Task {}]\n\
                 - The service of change {n} listens on :{} [Task {}]\n",
                tools[n % tools.len()],
                t + 1,
                verbs[n % verbs.len()],
                verbs[n % verbs.len()],
                t + 1,
                8000 + n % 1000,
                t + 1
            ));
        }
        handbook.push('\n');
    }
    std::fs::write(root.join("MEMORY.md"), handbook).unwrap();
    for n in 0..256 {
        std::fs::write(
            root.join(format!("rollout_summaries/s{n}.md")),
            format!("thread_id: t{n}\ncwd: /home/dev/src/project-{:03}\n\n# Session {n}\n\n## Task 1: change {n} (success)\nKey steps:\n- ran `pytest -k case{n}` (ok)\n", n % 200),
        )
        .unwrap();
    }
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..7)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[3]
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn speed(sessions: usize, work: &Path) {
    let home = work.join("speed");
    let memory = home.join("memories");
    generate(&memory, sessions);
    let memkit = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memkit"));
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("MEMKIT_HOME", &home)
            .args(args);
        c
    };
    let built = Instant::now();
    run(&mut memkit(&["search", "--reindex"]));
    let first_index = built.elapsed();
    let bytes: u64 = std::fs::metadata(memory.join("MEMORY.md")).unwrap().len();
    let mut greps = Vec::new();
    for (label, query, word) in [
        ("a question", "how do we deploy project-042", "deploy"),
        ("one rare word", "kw4242", "kw4242"),
    ] {
        // Both outputs are read through a pipe, as an agent reads them: with
        // its output on /dev/null, GNU grep stops at the first match.
        let grep = median(|| run(Command::new("grep").args(["-rni", word]).arg(&memory)));
        let ours = median(|| run(&mut memkit(&["search", query])));
        println!(
            "search {label} over the memory of {sessions} sessions ({:.1} MB): memkit {:.1} ms, grep -rni {:.1} ms, ratio {:.2}",
            bytes as f64 / 1e6,
            ours.as_secs_f64() * 1e3,
            grep.as_secs_f64() * 1e3,
            ours.as_secs_f64() / grep.as_secs_f64()
        );
        greps.push(grep);
    }
    // A consolidation rewrote MEMORY.md with one task changed: the refresh
    // reads the file again but re-indexes only the changed units.
    // It is compared with the question's grep (`deploy`), measured above.
    let text = std::fs::read_to_string(memory.join("MEMORY.md")).unwrap();
    let grep = greps[0];
    let mut round = 0;
    let refresh = median(|| {
        round += 1;
        let edited = text.replacen("change 7 in", &format!("change 7 (round {round}) in"), 1);
        std::fs::write(memory.join("MEMORY.md"), edited).unwrap();
        run(&mut memkit(&["search", "kw1"]));
    });
    println!(
        "index refresh + search after MEMORY.md changed: {:.1} ms ({:.2}x grep -rni); first full index {:.0} ms",
        refresh.as_secs_f64() * 1e3,
        refresh.as_secs_f64() / grep.as_secs_f64(),
        first_index.as_secs_f64() * 1e3
    );
}
