//! Memory quality (issue 13): memkit's default backends over a generated
//! four-week, six-project corpus, scored against its answer key; and the
//! scorer itself, on a hand-written memory folder.
//!
//! ```sh
//! cargo test --test memory_quality -- --nocapture   # prints the report
//! ```
//!
//! The corpus, memkit's home and the memory folder stay under
//! `target/tmp/memory-quality/` for inspection.

#[path = "quality/mod.rs"]
mod quality;

use quality::claims;
use quality::generator;
use quality::key::{Fact, Key, Noise, Stale};
use quality::run::Memkit;
use quality::score::{self, Tally};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A fresh directory under Cargo's scratch folder for integration tests.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn default_backends_meet_the_quality_targets() {
    let root = scratch("memory-quality");
    let corpus_dir = root.join("corpus");
    let corpus = generator::generate(&corpus_dir, SystemTime::now()).expect("corpus written");
    let memkit = Memkit::new(
        Path::new(env!("CARGO_BIN_EXE_memkit")),
        &corpus_dir,
        &root.join("work"),
    )
    .unwrap();
    memkit
        .check_catalog(&corpus.sessions)
        .expect("memkit reads the corpus as written");
    let memory = memkit.run().expect("memkit run succeeds");
    assert!(memory.join("MEMORY.md").is_file(), "MEMORY.md written");
    assert!(
        memory.join("memory_summary.md").is_file(),
        "summary written"
    );

    let key = Key::read(&corpus_dir).expect("key.json reads back");
    assert_eq!(key.facts.len(), corpus.key.facts.len());
    let report = score::score(&key, &memory).expect("memory folder scored");
    println!("{report}");
    let unmet = report.unmet();
    assert!(
        unmet.is_empty(),
        "quality targets missed: {unmet:?} (report above; memory folder: {})",
        memory.display()
    );
}

fn fact(id: &str, project: Option<&str>, all: &[&str]) -> Fact {
    Fact {
        id: id.into(),
        kind: if project.is_some() {
            "preference"
        } else {
            "global"
        }
        .into(),
        project: project.map(str::to_string),
        all: all.iter().map(|s| s.to_string()).collect(),
    }
}

const SHOP: &str = "/home/dana/work/shop";
const API: &str = "/home/dana/work/api";

/// A tiny key over two projects.
fn tiny_key() -> Key {
    Key {
        projects: vec![SHOP.into(), API.into()],
        path_user_names: vec!["dana".into()],
        facts: vec![
            fact("shop-pnpm", Some(SHOP), &["pnpm"]),
            fact("shop-port", Some(SHOP), &["4100"]),
            fact(
                "api-uv",
                Some(API),
                &["uv run pytest", "ModuleNotFoundError"],
            ),
            fact("api-slog", Some(API), &["slog"]),
            fact("global-imperative", None, &["imperative"]),
            fact("shop-vitest", Some(SHOP), &["vitest"]),
        ],
        noise: vec![
            Noise {
                id: "n-redis".into(),
                kind: "declined".into(),
                any: vec!["Redis".into()],
            },
            Noise {
                id: "n-status".into(),
                kind: "status".into(),
                any: vec!["hasn't come back".into()],
            },
            Noise {
                id: "n-task".into(),
                kind: "one-off".into(),
                any: vec!["dark mode".into()],
            },
            Noise {
                id: "n-heading".into(),
                kind: "one-off".into(),
                any: vec!["cart total".into()],
            },
        ],
        stale: vec![
            Stale {
                id: "s-npm".into(),
                project: Some(SHOP.into()),
                all: vec!["npm test".into()],
                unless: vec!["pnpm".into()],
            },
            Stale {
                id: "s-jest".into(),
                project: Some(SHOP.into()),
                all: vec!["jest".into()],
                unless: vec!["vitest".into()],
            },
        ],
        secrets: vec!["tok-0123456789abcdef".into()],
    }
}

const TINY_MEMORY: &str = "\
# Memory handbook

# Task Group: /home/dana/work/shop
scope: everything about the shop; mentions Redis but scope lines are not claims
applies_to: cwd=/home/dana/work/shop

## Task 1: add the cart total, done
### rollout_summary_files
- rollout_summaries/a.md (cwd=/home/dana/work/shop, slog in a listing)
### keywords
dana, hasn, checkout, the, uv run pytest

## User preferences
- Use pnpm for everything, not npm. [Task 1] (seen in 1 session)
- `npm test` failed; `pnpm test` worked instead [Task 1]
- Run jest with --ci [Task 1]
- The contributor hasn't come back on the PR [Task 1]

# Task Group: /home/dana/work/api
## Reusable knowledge
- `pytest` fails with ModuleNotFoundError; use `uv run pytest` [Task 2]
- Dev server for the shop: http://localhost:4100 [Task 2]
- Runs on uv run pytest only
";

const TINY_SUMMARY: &str = "\
v1
## User Profile
- works on shop and api; asked for dark mode once

## User preferences
### shop
- pnpm, never npm
- Log with slog everywhere (seen in 1 session in api)
- Commit messages in imperative mood

## What's in Memory
### api
- slog, Redis
";

#[test]
fn scorer_counts_exactly() {
    let root = scratch("memory-quality-scorer");
    let folder = root.join("memories");
    std::fs::create_dir_all(folder.join("rollout_summaries")).unwrap();
    std::fs::write(folder.join("MEMORY.md"), TINY_MEMORY).unwrap();
    std::fs::write(folder.join("memory_summary.md"), TINY_SUMMARY).unwrap();
    std::fs::write(
        folder.join("rollout_summaries/a.md"),
        "token tok-0123456789abcdef\n",
    )
    .unwrap();
    tiny_key().write(&root).unwrap();
    let key = Key::read(&root).unwrap();
    let r = score::score(&key, &folder).unwrap();

    // Found: shop-pnpm (both files), api-uv (own block), global-imperative
    // (summary), api-slog (summary, by its "(… in api)" suffix). Missed:
    // shop-port (only in api's block), shop-vitest (nowhere).
    assert_eq!((r.facts, r.found, r.found_in_summary), (6, 4, 3));
    assert_eq!(r.missed, ["shop-port", "shop-vitest"]);
    assert_eq!(r.missed_in_summary, ["api-uv"]);
    assert_eq!(r.fact_kinds["preference"], Tally { hits: 3, total: 5 });
    assert_eq!(r.summary_kinds["global"], Tally { hits: 1, total: 1 });
    // Leaked: n-status only. Redis is on a scope line and in "What's in
    // Memory", dark mode in the profile, the cart total in a task heading.
    assert_eq!((r.noise, r.leaked), (4, 1));
    assert_eq!(r.leaks[0].id, "n-status");
    assert_eq!(r.leaks[0].location, "MEMORY.md:17");
    // "npm test" beside pnpm is fine; jest without vitest is stale.
    assert_eq!(r.stale_current, 1);
    assert_eq!(r.stale[0].id, "s-jest");
    // shop-port's 4100 is on an api line.
    assert_eq!(r.bleed, 1);
    assert_eq!(r.bleeding[0].id, "shop-port");
    assert_eq!(r.secret_leaks, 1);
    assert_eq!(r.secret_files, ["rollout_summaries/a.md"]);
    // dana, hasn and the of five keywords.
    assert_eq!((r.keywords, r.junk_keywords), (5, 3));
    assert_eq!(r.summary_bytes, TINY_SUMMARY.len() as u64);
    assert_eq!(
        r.unmet(),
        [
            "recall",
            "summary_recall",
            "noise_leakage",
            "stale_current",
            "secret_leaks",
            "bleed"
        ]
    );
    println!("{r}");
}

#[test]
fn needles_match_whole_words_ignoring_case() {
    assert!(claims::matches("Use `npm test` here", "npm test"));
    assert!(!claims::matches("use pnpm", "npm"));
    assert!(claims::matches("LGR_DB_URL is read", "LGR"));
    assert!(!claims::matches("LGR_DB_URL", "LGR_"));
    assert!(claims::matches("never commit .env files", ".env"));
    assert!(!claims::matches("deploy/dev.env", ".env"));
    assert!(claims::matches(
        "MODULENOTFOUNDERROR",
        "ModuleNotFoundError"
    ));
    assert!(claims::matches("wrap with %w.", "%w"));
    assert!(!claims::matches("tidewatch", "watch"));
}

#[test]
fn generator_is_deterministic() {
    let root = scratch("memory-quality-determinism");
    let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_780_000_000);
    let a = generator::generate(&root.join("a"), now).unwrap();
    let b = generator::generate(&root.join("b"), now).unwrap();
    assert_eq!(a.sessions.len(), b.sessions.len());
    for (x, y) in a.sessions.iter().zip(&b.sessions) {
        assert_eq!(
            x.path.strip_prefix(root.join("a")).unwrap(),
            y.path.strip_prefix(root.join("b")).unwrap()
        );
        assert_eq!(
            std::fs::read(&x.path).unwrap(),
            std::fs::read(&y.path).unwrap()
        );
    }
    let key = |dir: &str| std::fs::read(root.join(dir).join("key.json")).unwrap();
    assert_eq!(key("a"), key("b"));
}
