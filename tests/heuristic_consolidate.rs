//! The heuristic consolidator end to end, as a user drives it: extract, sync,
//! consolidate, a no-op re-run, then a hand-written note.

mod common;

use common::{TestEnv, thread_id};
use memkit::memory::validate::validate_files;
use std::path::Path;

fn read(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Asserts both files are valid and returns them.
fn valid_files(root: &Path) -> (String, String) {
    let memory = read(root, "MEMORY.md");
    let summary = read(root, "memory_summary.md");
    if let Err(e) = validate_files(&memory, &summary) {
        panic!("invalid artifacts ({e}):\n{memory}\n----\n{summary}");
    }
    (memory, summary)
}

fn git_status(root: &Path) -> String {
    common::git(root, &["status", "--porcelain"])
}

#[test]
fn extract_sync_consolidate_then_a_note() {
    let env = TestEnv::new();
    env.write_codex_session(
        &thread_id(1),
        &["Fix the login redirect", "We use pnpm here, not npm."],
    );
    env.write_codex_session(&thread_id(2), &["Add a cart page"]);
    env.ok(&["extract"]);
    env.ok(&["sync"]);
    let first = env.ok(&["consolidate"]);
    assert!(first.contains("consolidate: 2 inputs"), "{first}");
    assert!(first.contains("heuristic"), "{first}");

    let root = env.memory_root();
    let (memory, summary) = valid_files(&root);
    assert!(
        memory.contains("# Task Group: /home/dev/proj\n"),
        "{memory}"
    );
    assert!(memory.contains("## Task 1: "), "{memory}");
    assert!(memory.contains("## Task 2: "), "{memory}");
    assert!(summary.contains("### /home/dev/proj\n"), "{summary}");
    assert_eq!(git_status(&root), "", "the consolidation is committed");

    let second = env.ok(&["consolidate"]);
    assert!(second.contains("nothing changed"), "{second}");
    assert_eq!(
        valid_files(&root),
        (memory.clone(), summary),
        "a re-run changes nothing"
    );

    let notes = root.join("extensions/ad_hoc/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("2026-11-29T10-00-00-cargo-fmt.md"),
        "always run cargo fmt before committing\n",
    )
    .unwrap();
    let third = env.ok(&["consolidate"]);
    assert!(third.contains("consolidate: 2 inputs"), "{third}");
    let (memory_after, summary_after) = valid_files(&root);
    let line = "- always run cargo fmt before committing [ad-hoc note]";
    let prefs = summary_after
        .split("## User preferences\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a preferences section");
    assert!(prefs.contains(line), "{summary_after}");
    assert!(
        memory_after.contains("# Task Group: ad-hoc notes\n"),
        "{memory_after}"
    );
    assert!(memory_after.contains(line), "{memory_after}");
    assert!(
        memory_after.ends_with(&memory[memory.find("# Task Group: /home/dev/proj").unwrap()..]),
        "the project block is unchanged"
    );
    assert_eq!(git_status(&root), "");
}
