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

#[test]
fn hand_edits_survive_consolidation_and_diff_names_them_the_users() {
    let env = TestEnv::new();
    env.write_codex_session(
        &thread_id(1),
        &["Fix the login redirect", "We use pnpm here, not npm."],
    );
    env.write_codex_session(&thread_id(2), &["Add a cart page"]);
    env.ok(&["run"]);
    let root = env.memory_root();
    let (memory, _) = valid_files(&root);
    let generated = memory
        .lines()
        .find(|l| l.starts_with("- `make test-0` works in proj"))
        .unwrap_or_else(|| panic!("a working command to delete:\n{memory}"))
        .to_string();
    let edited = memory.replace(
        &format!("{generated}\n"),
        "- integration tests need `docker compose up db` first\n",
    );
    std::fs::write(root.join("MEMORY.md"), &edited).unwrap();

    let diff: serde_json::Value = serde_json::from_str(&env.ok(&["diff", "--json"])).unwrap();
    assert_eq!(diff["changes"][0]["path"], "MEMORY.md");
    assert_eq!(diff["changes"][0]["by"], "user", "{diff}");
    let out = env.cmd().arg("diff").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MEMORY.md: edited by you"), "{stderr}");

    let out = env.cmd().arg("consolidate").output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("kept 2 line(s)"), "{stderr}");
    let (after, summary) = valid_files(&root);
    let block = after
        .split("# Task Group: /home/dev/proj\n")
        .nth(1)
        .expect("the project block");
    assert!(
        block.contains(&format!(
            "## Pinned by the user\n- integration tests need `docker compose up db` first\n\
             ### Removed by the user\n{generated}\n"
        )),
        "{after}"
    );
    assert_eq!(
        after.matches(generated.as_str()).count(),
        1,
        "only as removed"
    );
    assert!(summary.contains("### pinned by the user\n- integration tests need"));
    assert_eq!(git_status(&root), "", "committed");

    // Another night: the pins carry forward and nothing else changes.
    env.write_codex_session(&thread_id(3), &["Add a logout button"]);
    env.ok(&["run"]);
    let (again, _) = valid_files(&root);
    assert!(again.contains("- integration tests need `docker compose up db` first\n"));
    assert_eq!(again.matches(generated.as_str()).count(), 1);
    assert_eq!(git_status(&root), "");
}
