//! The heuristic extractor over the committed fixtures and, when present, the
//! shared real-world samples (read in place). Run with `--nocapture` to see
//! the outputs.

mod common;

use memkit::backends::heuristic::HeuristicExtractor;
use memkit::backends::{ExtractRequest, Extractor, StageOneOutput};
use memkit::modelinput::{Limits, SessionRef, prepare};
use memkit::sources::{Tool, detect_tool};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs the extractor on one session file.
fn extract(path: &Path) -> StageOneOutput {
    let tool = detect_tool(path).unwrap_or(Tool::Codex);
    let session = SessionRef {
        thread_id: path.file_stem().unwrap().to_string_lossy().into_owned(),
        tool,
        rollout_path: path.to_path_buf(),
        cwd: None,
        git_branch: None,
        updated_at: 1_772_445_600,
    };
    let input = prepare(session, 150_000, Limits::default()).expect("session reads");
    let request = ExtractRequest {
        system: "",
        user: "",
        input: &input,
    };
    let first = HeuristicExtractor.extract(&request).unwrap();
    let second = HeuristicExtractor.extract(&request).unwrap();
    assert_eq!(first, second, "not deterministic: {}", path.display());
    assert!(first.tokens_in > 0);
    first.output
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    common::visit(dir, &mut |p| {
        if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
}

/// Checks the shape every non-empty output must have.
fn check_shape(name: &str, out: &StageOneOutput) {
    let raw = &out.raw_memory;
    assert!(raw.starts_with("---\ndescription: "), "{name}:\n{raw}");
    for key in [
        "task: ",
        "task_group: ",
        "task_outcome: ",
        "cwd: ",
        "keywords: ",
    ] {
        assert!(
            raw.lines().any(|l| l.starts_with(key)),
            "{name}: no {key}\n{raw}"
        );
    }
    assert!(raw.contains("\n### Task 1: "), "{name}:\n{raw}");
    assert!(out.rollout_summary.starts_with("# "), "{name}");
    assert!(
        out.rollout_summary.contains("\nRollout context: "),
        "{name}"
    );
    let title = out.rollout_summary.lines().next().unwrap();
    assert!(title.chars().count() <= 102, "{name}: long title {title}");
    let mut in_prefs = false;
    for line in raw.lines() {
        if line == "Preference signals:" {
            in_prefs = true;
            continue;
        }
        if in_prefs && line.starts_with("- ") {
            assert!(
                line.ends_with("\")"),
                "{name}: bad preference bullet {line}"
            );
            assert!(line.contains(" (evidence: \""), "{name}: {line}");
        } else {
            in_prefs = false;
        }
    }
    for text in [raw, &out.rollout_summary] {
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let heading = matches!(
                *l,
                "Preference signals:"
                    | "Reusable knowledge:"
                    | "Failures and how to do differently:"
                    | "References:"
                    | "Key steps:"
            );
            if heading {
                let next = lines.get(i + 1).copied().unwrap_or("");
                assert!(
                    next.starts_with("- ") || next.starts_with("1. "),
                    "{name}: empty {l}"
                );
            }
        }
    }
    if let Some(slug) = &out.rollout_slug {
        assert!(slug.len() <= 60);
        assert!(
            slug.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
    }
}

fn show(name: &str, out: &StageOneOutput) {
    println!("===== {name}");
    if out.is_empty() {
        println!("(empty)\n");
    } else {
        println!("{}\n-----\n{}", out.raw_memory, out.rollout_summary);
    }
}

/// Extracts every session file under `dir` (each shown, each non-empty one
/// checked for shape), by path relative to `dir`.
fn extract_all(dir: &Path) -> BTreeMap<String, StageOneOutput> {
    let mut all = BTreeMap::new();
    for path in jsonl_files(dir) {
        let name = path.strip_prefix(dir).unwrap().display().to_string();
        let out = extract(&path);
        show(&name, &out);
        if !out.is_empty() {
            check_shape(&name, &out);
        }
        all.insert(name, out);
    }
    all
}

/// The output of the session `name` (relative to the folder), which must exist.
fn output<'a>(all: &'a BTreeMap<String, StageOneOutput>, name: &str) -> &'a StageOneOutput {
    all.get(name)
        .unwrap_or_else(|| panic!("no session file {name}"))
}

#[test]
fn fixtures() {
    let all = extract_all(&common::fixtures_dir());
    let out = output(
        &all,
        "codex/rollout-2026-03-02T11-00-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
    );
    let raw = &out.raw_memory;
    assert!(raw.contains("\nPreference signals:\n- We use pnpm here, not npm. (evidence: "));
    assert!(raw.contains("Don't run the whole suite, just the cart tests."));
    assert!(raw.contains(
        "- `npm test` failed (exit 1: npm ERR! This project uses pnpm); `pnpm test` worked instead"
    ));
    assert!(raw.contains("- src/cart.ts (edited)"));
    assert!(raw.contains("task_outcome: partial"), "{raw}");

    let out = output(
        &all,
        "claude/projects/-home-dev-api/7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.jsonl",
    );
    assert!(
        out.raw_memory
            .contains("- Please use yarn, not npm, in this repo. (evidence: ")
    );
    assert!(out.raw_memory.contains("`yarn test login` worked instead"));
    assert!(out.raw_memory.contains("- src/login.ts (edited)"));
    assert!(
        out.raw_memory
            .contains("- test/login.race.test.ts (edited)")
    );

    let out = output(
        &all,
        "codex/rollout-2025-08-14T11-00-00-4b9f2c1e-8a7d-4e6f-9b0a-1c2d3e4f5a6b.jsonl",
    );
    assert!(
        out.raw_memory
            .contains("- remember: tests run with make check, never cargo test directly.")
    );

    for trivial in [
        "codex/rollout-2026-03-02T11-40-00-019f0000-2222-7333-8444-555566667777.jsonl",
        "codex/rollout-2026-03-02T11-30-00-019f0000-1111-7222-8333-444455556666.jsonl",
        "claude/projects/-home-dev-api/agent-a1b2c3d.jsonl",
    ] {
        assert!(
            output(&all, trivial).is_empty(),
            "{trivial} should be empty"
        );
    }
}

#[test]
fn samples() {
    let Some(dir) = common::samples_dir() else {
        return;
    };
    let non_empty = [
        "codex/v0.121.0-tui-019da9bd.jsonl",
        "codex/v0.136.0-tui-compacted-turn-aborted-019e9ea7.jsonl",
        "codex/v0.47.0-cli-019a085e-pomodoro.jsonl",
        "claude/v2.0.24-pomodoro.jsonl",
        "claude/v2.1.39-ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    ];
    let empty = [
        "claude/v2.0.76-agent-sidechain-af1ff21.jsonl",
        "codex/v0.135.0-exec-redacted-019e9625.jsonl",
    ];
    let all = extract_all(&dir);
    for name in non_empty {
        assert!(
            !output(&all, name).is_empty(),
            "{name} should give a memory"
        );
    }
    for name in empty {
        assert!(output(&all, name).is_empty(), "{name} should be empty");
    }
}
