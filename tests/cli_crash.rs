//! SIGKILL at every named point of `memkit run` (extraction, every atomic
//! write, sync, diff, the git baseline, consolidation — heuristic and agent),
//! each followed by a normal run: the folder ends identical to an
//! uninterrupted run's, `git status` is clean, `git fsck` passes and the
//! database passes `PRAGMA integrity_check`.

mod common;

use common::mock::stage_one;
use common::{TestEnv, git, thread_id};
use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::Duration;

/// The consolidation backend of a scenario.
#[derive(Clone, Copy, Debug)]
enum Flavour {
    Heuristic,
    Model,
    Agent,
}

fn home(flavour: Flavour) -> TestEnv {
    let env = TestEnv::new();
    let extractor = env.script(
        "extract.sh",
        &format!("cat >/dev/null\nprintf '%s' '{}'", stage_one("c")),
    );
    let consolidate = match flavour {
        Flavour::Heuristic => String::new(),
        Flavour::Model => {
            let files = serde_json::json!({
                "memory_md": "# Task Group: /home/dev/proj\nscope: all\n",
                "memory_summary_md": "v1\n## What is in Memory\n### /home/dev/proj\n",
                "skills": [{"name": "run-tests", "content": "run them\n"}]
            });
            let model = env.script(
                "model.sh",
                &format!("cat >/dev/null\nprintf '%s' '{files}'"),
            );
            format!(
                "[consolidate]\nbackend = \"model\"\ntransport = \"command\"\ncommand = [\"{}\"]\n",
                model.display()
            )
        }
        Flavour::Agent => {
            let agent = env.script(
                "agent.sh",
                "cat >/dev/null\nprintf '# Task Group: /home/dev/proj\\nscope: all\\n' > MEMORY.md\n\
                 printf 'v1\\n## What is in Memory\\n### /home/dev/proj\\n' > memory_summary.md",
            );
            format!(
                "[consolidate]\nbackend = \"agent\"\nagent_command = [\"{}\"]\n",
                agent.display()
            )
        }
    };
    env.write_config(&format!(
        "extract_jobs = 1\n[extract]\nbackend = \"command\"\ncommand = [\"{}\"]\n{consolidate}",
        extractor.display()
    ));
    let fixed = std::time::UNIX_EPOCH
        + Duration::from_secs(memkit::util::time::now_secs() as u64 / 86_400 * 86_400 - 86_400);
    for i in 0..6 {
        let p = env.write_codex_session(&thread_id(i), &["Fix the flaky test"]);
        common::set_mtime(&p, fixed);
    }
    env
}

/// Runs `memkit run` armed to die at `point` the `n`-th time; whether it did.
fn crash_at(env: &TestEnv, point: &str, n: u64) -> bool {
    let status = env
        .cmd()
        .arg("run")
        .env("MEMKIT_TEST_CRASH_AT", format!("{point}:{n}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    status.signal() == Some(libc_sigkill())
}

fn libc_sigkill() -> i32 {
    9
}

fn assert_clean(env: &TestEnv, reference: &[(String, String)], what: &str) {
    let out = env.run(&["run"]);
    assert!(
        out.status.success(),
        "{what}: the next run failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let check: String = env
        .db()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "{what}");
    assert_eq!(
        env.count("SELECT COUNT(*) FROM stage1_outputs"),
        6,
        "{what}: no output lost"
    );
    let root = env.memory_root();
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "",
        "{what}: git status"
    );
    let fsck = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["fsck", "--no-progress"])
        .output()
        .unwrap();
    assert!(
        fsck.status.success(),
        "{what}: git fsck: {}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    let got = env.folder_contents();
    let names = |c: &[(String, String)]| c.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(reference), "{what}: the same files");
    for ((path, a), (_, b)) in got.iter().zip(reference) {
        assert_eq!(a, b, "{what}: {path}");
    }
}

/// Every point a run passes, with how many times it may be reached at most.
const POINTS: &[(&str, u64)] = &[
    ("run:prune", 1),
    ("run:cite-import", 1),
    ("run:extract", 1),
    ("extract:claimed", 6),
    ("program:spawned", 8),
    ("extract:stored", 6),
    ("run:sync", 1),
    ("sync:staged", 2),
    ("batch:rename", 12),
    ("run:diff", 1),
    ("run:consolidate", 1),
    ("consolidate:claimed", 1),
    ("consolidate:diff-written", 1),
    ("consolidate:backend-done", 1),
    ("write:temp", 30),
    ("consolidate:validated", 1),
    ("consolidate:blobs-stored", 1),
    ("git:before-commit", 3),
    ("git:before-index", 3),
];

#[test]
fn sigkill_at_every_point_of_a_run_recovers_to_the_uninterrupted_folder() {
    let mut kills = 0;
    for flavour in [Flavour::Heuristic, Flavour::Model, Flavour::Agent] {
        let reference_env = home(flavour);
        assert!(reference_env.run(&["run"]).status.success());
        let reference = reference_env.folder_contents();
        assert!(reference.iter().any(|(p, _)| p == "MEMORY.md"));
        for &(point, most) in POINTS {
            for n in 1..=most {
                let env = home(flavour);
                if !crash_at(&env, point, n) {
                    eprintln!("{flavour:?}: {point} is passed {} times", n - 1);
                    break; // the run passes this point fewer than n times
                }
                kills += 1;
                assert_clean(
                    &env,
                    &reference,
                    &format!("{flavour:?} killed at {point}:{n}"),
                );
            }
        }
    }
    assert!(kills >= 100, "only {kills} kills: the points moved?");
    eprintln!("{kills} SIGKILLs, each recovered by the next run");
}
