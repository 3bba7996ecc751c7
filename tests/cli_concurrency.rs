//! Several memkit processes at once: a fresh state database is created and
//! migrated by one while the others wait, a run lock lets one run do the
//! work, `forget` wins over an extraction in flight, `reset` waits for a run.

mod common;

use common::{TestEnv, thread_id};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

fn spawn(env: &TestEnv, args: &[&str]) -> Child {
    env.cmd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(children: Vec<Child>) -> Vec<Output> {
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

#[test]
fn many_processes_on_a_fresh_home_never_see_database_is_locked() {
    for round in 0..3 {
        let env = TestEnv::new();
        env.install_fixtures();
        let outs = finish(
            (0..12)
                .map(|i| {
                    spawn(
                        &env,
                        if i % 2 == 0 {
                            &["scan"]
                        } else {
                            &["sessions", "--no-scan"]
                        },
                    )
                })
                .collect(),
        );
        for out in &outs {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}: {err}");
            assert!(!err.contains("locked"), "round {round}: {err}");
        }
    }
}

#[test]
fn runs_started_together_on_a_fresh_home_all_exit_0_and_one_does_the_work() {
    let env = TestEnv::new();
    env.install_fixtures();
    env.age_sessions(Duration::from_secs(7 * 3600));
    let outs = finish((0..4).map(|_| spawn(&env, &["run", "--json"])).collect());
    let mut worked = 0;
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if report["locked_by"].is_null() {
            worked += 1;
        }
    }
    // A run that starts after the first finished finds nothing left to do.
    assert!(worked >= 1, "one run did the work");
    let extracted =
        env.count("SELECT COUNT(*) FROM jobs WHERE kind = 'memory_stage1' AND status = 'done'");
    let claimed = env.count("SELECT COUNT(*) FROM jobs WHERE kind = 'memory_stage1'");
    assert_eq!(extracted, claimed, "every claim finished once");
    assert_eq!(
        common::git(&env.memory_root(), &["status", "--porcelain"]),
        "",
        "one consolidation, a clean folder"
    );
}

#[test]
fn forget_wins_over_an_extraction_in_flight() {
    let env = TestEnv::with_slow_extractor("late");
    let id = thread_id(1);
    let extract = spawn(&env, &["extract"]);
    std::thread::sleep(Duration::from_millis(700));
    env.ok(&["forget", &id]);
    let out = extract.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) FROM stage1_outputs WHERE thread_id = '{id}'"
        )),
        0,
        "the forgotten session's output is not stored"
    );
}

#[test]
fn reset_waits_for_a_running_run() {
    let env = TestEnv::with_slow_extractor("s");
    let run = spawn(&env, &["run"]);
    std::thread::sleep(Duration::from_millis(700));
    let reset = env.run(&["reset", "--yes"]);
    assert!(reset.status.success());
    assert!(
        String::from_utf8_lossy(&reset.stderr).contains("waiting for the active run"),
        "{}",
        String::from_utf8_lossy(&reset.stderr)
    );
    assert!(run.wait_with_output().unwrap().status.success());
    assert_eq!(
        env.count("SELECT COUNT(*) FROM stage1_outputs"),
        0,
        "the reset came after the run, not in its middle"
    );
    assert!(!env.memory_root().join("MEMORY.md").exists());
}
