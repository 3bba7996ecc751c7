//! memkit owns its memory folder: the move out of Codex's `~/.codex/memories`,
//! foreign repositories inside the folder, and recovery after another
//! writer replaced the folder's history (checked with the real `git` CLI).

mod common;

use common::{TestEnv, git, json_lines, thread_id};
use std::path::Path;
use std::process::Command;

fn run_json(env: &TestEnv, args: &[&str]) -> (serde_json::Value, String) {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn consolidation(report: &serde_json::Value) -> String {
    report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stage"] == "consolidate")
        .unwrap()["report"]["outcome"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `git` with an identity that is not memkit's (another program's commits).
fn foreign_git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Codex",
            "-c",
            "user.email=codex@example.invalid",
        ])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?} in {}", dir.display());
}

#[test]
fn a_memkit_folder_at_the_old_default_moves_with_its_history() {
    let env = TestEnv::new();
    env.write_codex_session(
        &thread_id(1),
        &["Always run the tests with pnpm, never npm."],
    );
    let old = env.codex_home.join("memories");
    let old_flag = old.display().to_string();
    env.ok(&["--memory-root", &old_flag, "run"]);
    let commits_before = git(&old, &["rev-list", "--count", "HEAD"]);
    let head_before = git(&old, &["rev-parse", "HEAD"]);

    // status only reads: it says where the folder is and that the next run moves it.
    let status = env.ok(&["status"]);
    assert!(
        status.contains(&format!(
            "memkit's older folder is still at {}",
            old.display()
        )),
        "{status}"
    );
    assert!(old.join(".git").is_dir());

    let (report, err) = run_json(&env, &[]);
    assert!(
        err.contains("moved memkit's memory folder") && err.contains("memkit install codex"),
        "{err}"
    );
    assert_eq!(
        consolidation(&report),
        "no_changes",
        "the moved folder is up to date: {report}"
    );
    let new = env.memory_root();
    assert!(!old.exists(), "the old folder is gone");
    assert_eq!(git(&new, &["rev-list", "--count", "HEAD"]), commits_before);
    assert_eq!(git(&new, &["rev-parse", "HEAD"]), head_before);
    assert_eq!(git(&new, &["status", "--porcelain"]), "");

    let (_, err) = run_json(&env, &[]);
    assert!(!err.contains("moved"), "moved once: {err}");
    assert!(!env.ok(&["status"]).contains("older folder"));
}

#[test]
fn a_folder_codex_wrote_is_left_alone() {
    let env = TestEnv::new();
    let codex_folder = env.codex_home.join("memories");
    std::fs::create_dir_all(codex_folder.join("rollout_summaries")).unwrap();
    std::fs::write(codex_folder.join("raw_memories.md"), "# Raw Memories\n").unwrap();
    foreign_git(&codex_folder, &["init", "-q"]);
    foreign_git(
        &codex_folder,
        &[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "Initialize Codex git baseline",
        ],
    );
    env.write_codex_session(
        &thread_id(1),
        &["Always run the tests with pnpm, never npm."],
    );
    let (report, err) = run_json(&env, &[]);
    assert_eq!(consolidation(&report), "consolidated", "{report}");
    assert!(!err.contains("moved"), "{err}");
    assert_eq!(
        std::fs::read_to_string(codex_folder.join("raw_memories.md")).unwrap(),
        "# Raw Memories\n",
        "Codex's folder is untouched"
    );
    assert!(env.memory_root().join("MEMORY.md").is_file());
}

#[test]
fn another_writer_replacing_the_history_is_recovered_on_the_next_run() {
    let env = TestEnv::new();
    env.write_codex_session(
        &thread_id(1),
        &["Always run the tests with pnpm, never npm."],
    );
    env.write_codex_session(&thread_id(2), &["Fix the flaky test"]);
    let (first, _) = run_json(&env, &[]);
    assert_eq!(consolidation(&first), "consolidated");
    let root = env.memory_root();
    let memory_before = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();

    // What Codex's phase 2 does to a folder it thinks it owns: a new .git
    // with a one-commit empty baseline, its own .codex-baseline repository,
    // raw_memories.md rewritten, rollout_summaries/ emptied, MEMORY.md edited.
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    foreign_git(&root, &["init", "-q"]);
    foreign_git(
        &root,
        &[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "Initialize Codex git baseline",
        ],
    );
    let theirs = root.join(".codex-baseline");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("MEMORY.md"), "codex's copy\n").unwrap();
    foreign_git(&theirs, &["init", "-q"]);
    foreign_git(&theirs, &["add", "-A"]);
    foreign_git(&theirs, &["commit", "-q", "-m", "codex baseline"]);
    std::fs::write(
        root.join("raw_memories.md"),
        "# Raw Memories\n\nNo raw memories yet.\n",
    )
    .unwrap();
    for e in std::fs::read_dir(root.join("rollout_summaries")).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    std::fs::write(
        root.join("MEMORY.md"),
        "# Task Group: codex\nwritten by Codex\n",
    )
    .unwrap();

    let (report, err) = run_json(&env, &[]);
    assert!(
        err.contains("history was replaced by another program"),
        "{err}"
    );
    assert_eq!(consolidation(&report), "consolidated", "{report}");
    memkit::memory::validate::check_artifacts(&root).expect("valid memory files");
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        memory_before,
        "memkit's memory is back"
    );
    assert_eq!(
        std::fs::read_dir(root.join("rollout_summaries"))
            .unwrap()
            .count(),
        2
    );
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "",
        "git status is clean"
    );
    let log = git(&root, &["log", "--format=%an %s"]);
    assert!(
        log.contains("memkit memkit: new baseline")
            && log.contains("Codex Initialize Codex git baseline"),
        "{log}"
    );
    let tracked = git(&root, &["ls-files"]);
    assert!(!tracked.contains(".codex-baseline"), "{tracked}");
    assert_eq!(
        git(&theirs, &["log", "--format=%s"]).trim(),
        "codex baseline",
        "the foreign repository is untouched"
    );
    let (again, err) = run_json(&env, &[]);
    assert_eq!(consolidation(&again), "no_changes", "{again}");
    assert!(!err.contains("replaced"), "{err}");
    let names = json_lines(&env.ok(&["sessions", "--json"]));
    assert_eq!(names.len(), 2);
}

#[test]
fn a_repository_of_the_users_own_is_committed_on_top_of() {
    let env = TestEnv::new();
    let root = env.root.join("my-memory");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("README.md"), "my notes\n").unwrap();
    foreign_git(&root, &["init", "-q"]);
    foreign_git(&root, &["add", "-A"]);
    foreign_git(&root, &["commit", "-q", "-m", "my own start"]);
    env.write_config(&format!("memory_root = \"{}\"\n", root.display()));
    env.write_codex_session(
        &thread_id(1),
        &["Always run the tests with pnpm, never npm."],
    );
    let (report, err) = run_json(&env, &[]);
    assert_eq!(consolidation(&report), "consolidated", "{report}");
    assert!(
        !err.contains("replaced"),
        "not taken for another writer: {err}"
    );
    let log = git(&root, &["log", "--format=%s"]);
    assert!(
        log.trim_end().ends_with("my own start") && !log.contains("new baseline"),
        "{log}"
    );
    assert!(
        git(&root, &["ls-files"]).contains("README.md"),
        "the user's file stays tracked"
    );
}
