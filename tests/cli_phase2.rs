//! `memkit sync`, `diff` and `consolidate` end to end: Codex's v1 layout, the
//! git baseline checked against the real `git` CLI, locks and failure paths.

mod common;

use common::mock::{MockServer, Response, chat_answer};
use common::{TestEnv, command_extractor, git, thread_id};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// Extraction through a command backend that answers a fixed stage-1 output.
fn extractor_config(env: &TestEnv) -> String {
    let answer = serde_json::json!({
        "raw_memory": "---\ndescription: fixed\ntask: t\ntask_group: proj\ntask_outcome: success\ncwd: /home/dev/proj\nkeywords: k\n---\n",
        "rollout_summary": "# Fixed summary\n\nRollout context: test.\n",
        "rollout_slug": "fixed-slug"
    });
    let s = env.script(
        "extractor.sh",
        &format!("cat >/dev/null\nprintf '%s' '{answer}'"),
    );
    command_extractor(&s)
}

/// A consolidation agent that writes valid files, then runs `extra`.
fn good_agent_body(extra: &str) -> String {
    format!(
        "cat > /dev/null\nprintf '# Task Group: /home/dev/proj\\nscope: all\\n' > MEMORY.md\nprintf 'v1\\n## What is in Memory\\n### /home/dev/proj\\n' > memory_summary.md\nmkdir -p skills/run-tests && printf 'run them\\n' > skills/run-tests/SKILL.md\n{extra}"
    )
}

fn setup(env: &TestEnv, agent_body: &str, extra_config: &str) {
    let agent = env.script("agent.sh", agent_body);
    env.write_config(&format!(
        "{}\n[consolidate]\nbackend = \"agent\"\nagent_command = [\"{}\"]\n{extra_config}\n",
        extractor_config(env),
        agent.display()
    ));
}

fn read(root: &Path, rel: &str) -> Option<Vec<u8>> {
    std::fs::read(root.join(rel)).ok()
}

#[test]
fn full_pipeline_writes_codex_layout_and_keeps_history() {
    let env = TestEnv::new();
    setup(&env, &good_agent_body(""), "");
    for i in 0..3 {
        env.write_codex_session(&thread_id(i), &["Fix the flaky test"]);
    }
    env.ok(&["extract"]);
    let out = env.ok(&["sync"]);
    assert!(out.contains("3 memories selected"), "{out}");
    let root = env.memory_root();
    let raw = std::fs::read_to_string(root.join("raw_memories.md")).unwrap();
    assert!(raw.starts_with("# Raw Memories\n\nMerged stage-1 raw memories (stable ascending thread-id order):\n\n## Thread `"));
    let summaries: Vec<_> = std::fs::read_dir(root.join("rollout_summaries"))
        .unwrap()
        .collect();
    assert_eq!(summaries.len(), 3);
    let stat = env.ok(&["diff", "--stat"]);
    assert!(
        stat.contains("raw_memories.md") && stat.contains("files changed"),
        "{stat}"
    );
    let names = env.ok(&["diff", "--name-status"]);
    assert!(names.lines().all(|l| l.starts_with("A\t")), "{names}");
    assert!(root.join("phase2_workspace_diff.md").is_file());

    let before = git(&root, &["rev-list", "--count", "HEAD"]);
    let out = env.ok(&["consolidate"]);
    assert!(out.contains("consolidate: 3 inputs"), "{out}");
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "",
        "git status must be clean"
    );
    let after = git(&root, &["rev-list", "--count", "HEAD"]);
    assert_eq!(
        after.trim().parse::<u32>().unwrap(),
        before.trim().parse::<u32>().unwrap() + 1
    );
    let log = git(&root, &["log", "-1", "--format=%B"]);
    assert!(
        log.contains("inputs: 3") && log.contains("backend: agent"),
        "{log}"
    );
    assert!(
        !root.join("phase2_workspace_diff.md").exists(),
        "removed after success"
    );
    assert_eq!(read(&root, "memory_summary.md").unwrap()[..3], *b"v1\n");

    // No new input: no backend call, no new commit.
    let calls_marker = root.join("called");
    std::fs::write(
        env.root.join("agent.sh"),
        format!(
            "#!/bin/sh\ntouch '{}'\n{}",
            calls_marker.display(),
            good_agent_body("")
        ),
    )
    .unwrap();
    let out = env.ok(&["consolidate"]);
    assert!(out.contains("nothing changed"), "{out}");
    assert!(!calls_marker.exists(), "the backend must not be called");
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]), after);
    let selected = env.count("SELECT COUNT(*) FROM stage1_outputs WHERE selected_for_phase2 = 1");
    assert_eq!(selected, 3);
    let status = env.ok(&["status"]);
    assert!(status.contains("consolidate  done at"), "{status}");
    assert!(status.contains("baseline     "), "{status}");
}

#[test]
fn stale_summaries_are_removed_and_other_files_kept() {
    let env = TestEnv::new();
    setup(&env, &good_agent_body(""), "");
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    let root = env.memory_root();
    std::fs::create_dir_all(root.join("rollout_summaries")).unwrap();
    std::fs::write(
        root.join("rollout_summaries/019f0000-old-thread-id-only.md"),
        "old",
    )
    .unwrap();
    std::fs::write(root.join("rollout_summaries/notes.txt"), "keep").unwrap();
    let out = env.ok(&["sync", "--dry-run"]);
    assert!(
        out.contains("would remove  rollout_summaries/019f0000-old-thread-id-only.md"),
        "{out}"
    );
    assert!(
        root.join("rollout_summaries/019f0000-old-thread-id-only.md")
            .exists(),
        "dry run writes nothing"
    );
    env.ok(&["sync"]);
    assert!(
        !root
            .join("rollout_summaries/019f0000-old-thread-id-only.md")
            .exists()
    );
    assert!(root.join("rollout_summaries/notes.txt").exists());
    let seeded = std::fs::read_to_string(root.join("extensions/ad_hoc/instructions.md")).unwrap();
    assert!(seeded.contains("Ad-hoc notes"));
}

#[test]
fn diff_agrees_with_the_git_cli() {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(root.join("skills/a")).unwrap();
    std::fs::write(
        root.join("MEMORY.md"),
        "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n",
    )
    .unwrap();
    std::fs::write(root.join("skills/a/run.sh"), "echo hi\n").unwrap();
    std::fs::write(root.join("gone.md"), "bye\nsee you\n").unwrap();
    std::fs::write(root.join("nonl.md"), "no newline").unwrap();
    env.ok(&["diff"]); // creates the baseline
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "",
        "baseline index matches the files"
    );
    std::fs::write(
        root.join("MEMORY.md"),
        "line 1\nline 2 changed\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n",
    )
    .unwrap();
    std::fs::set_permissions(
        root.join("skills/a/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::remove_file(root.join("gone.md")).unwrap();
    std::fs::write(root.join("new.md"), "fresh\n").unwrap();
    std::fs::write(root.join("nonl.md"), "no newline either").unwrap();

    let names = env.ok(&["diff", "--name-status"]);
    let porcelain = git(&root, &["status", "--porcelain"]);
    let mut from_git: Vec<String> = porcelain
        .lines()
        .map(|l| {
            let (code, path) = l.split_at(3);
            let status = match code.trim() {
                "??" => "A",
                other => other,
            };
            format!("{status}\t{path}")
        })
        .collect();
    from_git.sort();
    let mut from_memkit: Vec<String> = names.lines().map(String::from).collect();
    from_memkit.sort();
    assert_eq!(from_memkit, from_git);

    // Byte-for-byte against `git diff --cached` in a copy (function context stripped).
    let copy = env.root.join("copy");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(&root)
            .arg(&copy)
            .status()
            .unwrap()
            .success()
    );
    let _ = std::fs::remove_file(copy.join("phase2_workspace_diff.md"));
    git(&copy, &["add", "-A"]);
    let theirs = git(
        &copy,
        &[
            "-c",
            "core.quotepath=off",
            "diff",
            "--cached",
            "--no-color",
            "--histogram",
        ],
    );
    let strip = |s: &str| -> String {
        s.lines()
            .map(|l| {
                match l
                    .strip_prefix("@@ ")
                    .and_then(|r| r.find(" @@").map(|i| &l[..i + 6]))
                {
                    Some(head) => head.to_string(),
                    None => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let ours = env.ok(&["diff"]);
    assert_eq!(strip(&ours), strip(&theirs));
    assert!(ours.contains("old mode 100644\nnew mode 100755"));
    assert!(ours.contains("deleted file mode 100644"));
    assert!(ours.contains("\\ No newline at end of file"));

    let code = env.run(&["diff", "--exit-code"]).status.code();
    assert_eq!(code, Some(1));
    let json: serde_json::Value = serde_json::from_str(&env.ok(&["diff", "--json"])).unwrap();
    assert_eq!(json["files_changed"], 5);
    let file = std::fs::read_to_string(root.join("phase2_workspace_diff.md")).unwrap();
    assert!(file.starts_with("# Memory Workspace Diff"));
    let status: String = names
        .lines()
        .map(|l| {
            let (letter, path) = l.split_once('\t').unwrap();
            format!("- {letter} {path}\n")
        })
        .collect();
    assert!(
        file.contains(&format!("## Status\n\n{status}\n## Diff\n")),
        "the status lists exactly what --name-status printed, in its order: {file}"
    );
    assert!(status.contains("- D gone.md\n"), "{status}");
    assert!(file.trim_end().ends_with("```"));
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_still_a_change() {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(&root).unwrap();
    let memory = root.join("MEMORY.md");
    std::fs::write(&memory, "deploy with make ship\n").unwrap();
    std::fs::write(root.join("other.md"), "unchanged\n").unwrap();
    env.ok(&["diff"]); // the baseline, its index with the files' stats
    assert_eq!(env.ok(&["diff", "--name-status"]).trim(), "");
    // Same length, and the old mtime put back: only the inode's change
    // time tells, as it does for `git status`.
    let mtime = std::fs::metadata(&memory).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&memory, "deploy with make shop\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&memory)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(env.ok(&["diff", "--name-status"]).trim(), "M\tMEMORY.md");
    assert_eq!(git(&root, &["status", "--porcelain"]).trim(), "M MEMORY.md");
}

#[test]
fn a_broken_git_folder_is_recovered() {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("MEMORY.md"), "x\n").unwrap();
    std::fs::write(root.join(".git"), "gitdir: /nowhere\n").unwrap();
    let out = env.ok(&["diff", "--name-status", "--exit-code"]);
    assert_eq!(out, "");
    assert!(root.join(".git").is_dir());
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
}

#[test]
fn a_symlinked_memory_root_is_refused() {
    let env = TestEnv::new();
    let real = env.root.join("real-memories");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(real.join("MEMORY.md"), "mine\n").unwrap();
    std::fs::create_dir_all(env.memory_root().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, env.memory_root()).unwrap();
    for cmd in [&["sync"][..], &["diff"][..], &["consolidate"][..]] {
        let out = env.run(cmd);
        assert_eq!(out.status.code(), Some(1), "{cmd:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("symbolic link"),
            "{cmd:?}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&real).unwrap().count(),
        1,
        "the target is untouched"
    );
}

#[test]
fn two_consolidations_at_once_one_waits_out() {
    let env = TestEnv::new();
    setup(&env, &good_agent_body("sleep 2"), "");
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    let a = env.cmd().arg("consolidate").spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let b = env.run(&["consolidate"]);
    assert!(b.status.success(), "the second run exits 0");
    let said = String::from_utf8_lossy(&b.stdout);
    assert!(
        said.contains("another consolidation is running (memkit-"),
        "{said}"
    );
    assert!(a.wait_with_output().unwrap().status.success());
    assert_eq!(git(&env.memory_root(), &["status", "--porcelain"]), "");
}

/// Consolidates once successfully, then swaps the agent for `bad` and checks
/// that the run fails and leaves the previous outputs byte-identical.
fn failure_leaves_outputs_identical(bad_body: &str, extra_config: &str, expect: &str) {
    let env = TestEnv::new();
    setup(&env, &good_agent_body(""), extra_config);
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    let root = env.memory_root();
    let before: Vec<Option<Vec<u8>>> = [
        "MEMORY.md",
        "memory_summary.md",
        "skills/run-tests/SKILL.md",
    ]
    .iter()
    .map(|f| read(&root, f))
    .collect();
    let head = git(&root, &["rev-parse", "HEAD"]);
    std::fs::write(
        env.root.join("agent.sh"),
        format!("#!/bin/sh\n{bad_body}\n"),
    )
    .unwrap();
    env.write_codex_session(&thread_id(2), &["A new task"]);
    env.ok(&["extract"]);
    let out = env.run(&["consolidate"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(expect), "expected {expect:?} in: {err}");
    let after: Vec<Option<Vec<u8>>> = [
        "MEMORY.md",
        "memory_summary.md",
        "skills/run-tests/SKILL.md",
    ]
    .iter()
    .map(|f| read(&root, f))
    .collect();
    assert_eq!(
        before, after,
        "outputs must be byte-identical after a failure"
    );
    assert!(!root.join("skills/evil").exists());
    assert_eq!(
        git(&root, &["rev-parse", "HEAD"]),
        head,
        "no commit on failure"
    );
    let status = env.ok(&["status"]);
    assert!(
        status.contains("consolidate  failed at") && status.contains("retries left"),
        "{status}"
    );
    let again = env.ok(&["consolidate"]);
    assert!(
        again.contains("next retry at"),
        "backoff is respected: {again}"
    );
}

#[test]
fn backend_error_leaves_previous_files() {
    failure_leaves_outputs_identical(
        "cat >/dev/null\nrm -f MEMORY.md\necho 'agent crashed' >&2\nexit 4",
        "",
        "agent crashed",
    );
}

#[test]
fn invalid_summary_header_is_rejected() {
    failure_leaves_outputs_identical(
        "cat >/dev/null\nprintf '# Task Group: /home/dev/proj\\n' > MEMORY.md\nprintf 'v2\\n/home/dev/proj\\n' > memory_summary.md",
        "",
        "must start with the line `v1`",
    );
}

#[test]
fn oversize_summary_is_rejected() {
    failure_leaves_outputs_identical(
        "cat >/dev/null\nprintf '# Task Group: /home/dev/proj\\n' > MEMORY.md\n(printf 'v1\\n/home/dev/proj\\n'; head -c 12000 /dev/zero | tr '\\\\0' x) > memory_summary.md",
        "",
        "at most 10000 fit the read budget",
    );
}

#[test]
fn links_an_agent_creates_never_reach_the_memory_folder() {
    // A link in place of a file the agent must write: the run fails.
    failure_leaves_outputs_identical(
        "cat >/dev/null\nprintf 'v1\\n/home/dev/proj\\n' > memory_summary.md\nrm -f MEMORY.md && ln -s /etc/passwd MEMORY.md",
        "",
        "no regular file MEMORY.md",
    );
    // A link anywhere else is simply not taken over.
    let env = TestEnv::new();
    setup(
        &env,
        &good_agent_body("mkdir -p skills/evil && ln -s /etc/passwd skills/evil/SKILL.md"),
        "",
    );
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    let root = env.memory_root();
    assert!(!root.join("skills/evil").exists());
    assert!(root.join("skills/run-tests/SKILL.md").is_file());
}

#[test]
fn the_agent_works_on_a_copy_and_never_touches_the_live_folder() {
    let env = TestEnv::new();
    setup(&env, &good_agent_body(""), "");
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["note", "always use tabs"]);
    env.ok(&["consolidate"]);
    let root = env.memory_root();
    let memory = read(&root, "MEMORY.md");
    let notes = || std::fs::read_dir(root.join("extensions/ad_hoc/notes")).map_or(0, |d| d.count());
    assert_eq!(notes(), 1);
    let head = git(&root, &["rev-parse", "HEAD"]);

    // An agent that wipes the notes and .git, then fails.
    std::fs::write(
        env.root.join("agent.sh"),
        "#!/bin/sh\ncat >/dev/null\nrm -rf extensions .git\nprintf broken > MEMORY.md\nexit 3\n",
    )
    .unwrap();
    env.write_codex_session(&thread_id(2), &["A new task"]);
    env.ok(&["extract"]);
    assert_eq!(env.run(&["consolidate"]).status.code(), Some(1));
    assert_eq!(notes(), 1, "the notes are untouched");
    assert_eq!(
        git(&root, &["rev-parse", "HEAD"]),
        head,
        ".git is untouched"
    );
    assert_eq!(read(&root, "MEMORY.md"), memory);

    // memkit killed while the agent (and a child it left behind) writes.
    std::fs::write(
        env.root.join("agent.sh"),
        "#!/bin/sh\ncat >/dev/null\nprintf half > MEMORY.md\n(sleep 1; printf late > MEMORY.md) &\nsleep 30\n",
    )
    .unwrap();
    let mut child = env
        .cmd()
        .args(["consolidate", "--force"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(
        read(&root, "MEMORY.md"),
        memory,
        "nothing the agent wrote reached the folder"
    );
    assert_eq!(
        git(&root, &["rev-parse", "HEAD"]),
        head,
        "and nothing was committed"
    );
    // The next run removes the copy the killed run left.
    std::fs::write(
        env.root.join("agent.sh"),
        format!("#!/bin/sh\n{}\n", good_agent_body("")),
    )
    .unwrap();
    env.ok(&["consolidate", "--force"]);
    let scratch = env.memkit_home.join("scratch");
    assert_eq!(std::fs::read_dir(&scratch).map_or(0, |d| d.count()), 0);
}

#[test]
fn agent_past_its_timeout_is_stopped() {
    failure_leaves_outputs_identical(
        "cat >/dev/null\nprintf 'half' > MEMORY.md\nsleep 30",
        "timeout = \"1s\"",
        "did not finish within 1s",
    );
}

#[test]
fn edits_made_while_the_backend_runs_show_up_in_the_next_diff() {
    let env = TestEnv::new();
    // While the agent runs, a note appears in the live folder (the agent
    // writes it there, standing in for the user writing one at that moment).
    let live = env.memory_root().join("extensions/ad_hoc/notes");
    setup(
        &env,
        &good_agent_body(&format!(
            "mkdir -p '{0}' && echo 'use tabs' > '{0}/2026-11-29T10-00-00-tabs.md'",
            live.display()
        )),
        "",
    );
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    let out = env.run(&["consolidate"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed while consolidating"));
    let names = env.ok(&["diff", "--name-status"]);
    assert_eq!(
        names.trim(),
        "A\textensions/ad_hoc/notes/2026-11-29T10-00-00-tabs.md"
    );
}

/// A home whose consolidation model (`model`, chat transport) answers
/// `files`, with one session already extracted.
fn model_env(files: serde_json::Value, model: &str) -> (MockServer, TestEnv) {
    let server = MockServer::start(move |_, _| Response::json(200, chat_answer(&files)));
    let env = TestEnv::new();
    env.write_config(&format!(
        "{}\n[consolidate]\nbackend = \"model\"\ntransport = \"chat\"\nmodel = \"{model}\"\nbase_url = \"{}/v1\"\n",
        extractor_config(&env),
        server.url
    ));
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    (server, env)
}

#[test]
fn model_backend_writes_validated_files_from_one_call() {
    let files = serde_json::json!({
        "memory_md": "# Task Group: /home/dev/proj\nscope: tests\n",
        "memory_summary_md": "v1\n## User Profile\nA developer.\n## What's in Memory\n### /home/dev/proj\n",
        "skills": [{"name": "run-tests", "content": "1. make test\n"}]
    });
    let (server, env) = model_env(files, "cons-model");
    // The model never sees the skills there are: it adds and rewrites, and
    // what it did not name (or a script next to a SKILL.md) stays.
    let root = env.memory_root();
    std::fs::create_dir_all(root.join("skills/deploy")).unwrap();
    std::fs::write(root.join("skills/deploy/SKILL.md"), "ship it\n").unwrap();
    std::fs::create_dir_all(root.join("skills/run-tests/scripts")).unwrap();
    std::fs::write(root.join("skills/run-tests/scripts/t.sh"), "make test\n").unwrap();
    env.ok(&["consolidate"]);
    assert_eq!(
        std::fs::read_to_string(root.join("skills/run-tests/SKILL.md")).unwrap(),
        "1. make test\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("skills/run-tests/scripts/t.sh")).unwrap(),
        "make test\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("skills/deploy/SKILL.md")).unwrap(),
        "ship it\n"
    );
    let req = &server.requests()[0];
    let body = req.json();
    assert_eq!(body["model"], "cons-model");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "consolidation_output"
    );
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("=== raw_memories.md ===")
            && user.contains("=== phase2_workspace_diff.md ===")
    );
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains(&root.display().to_string())
    );
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
}

#[test]
fn model_backend_invalid_answer_changes_nothing() {
    let files = serde_json::json!({
        "memory_md": "# Task Group: /home/dev/proj\n",
        "memory_summary_md": "no header\n",
        "skills": null
    });
    let (_server, env) = model_env(files, "m");
    let out = env.run(&["consolidate"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!env.memory_root().join("MEMORY.md").exists());
    assert!(
        env.memory_root().join("phase2_workspace_diff.md").exists(),
        "the diff survives a failed run"
    );
}

#[test]
fn an_agent_keeps_a_skills_whole_folder_and_leaves_hand_made_ones() {
    let env = TestEnv::new();
    setup(
        &env,
        &good_agent_body(
            "mkdir -p skills/run-tests/scripts && printf '#!/bin/sh\\nmake test\\n' > skills/run-tests/scripts/run.sh && chmod 755 skills/run-tests/scripts/run.sh",
        ),
        "",
    );
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    let root = env.memory_root();
    let script = root.join("skills/run-tests/scripts/run.sh");
    assert_eq!(
        read(&root, "skills/run-tests/scripts/run.sh").unwrap(),
        b"#!/bin/sh\nmake test\n"
    );
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert!(git(&root, &["ls-files"]).contains("skills/run-tests/scripts/run.sh"));

    // A file the user adds to a skill, and a skill folder named by hand
    // (not a valid skill name), both survive the next agent consolidation.
    std::fs::create_dir_all(root.join("skills/run-tests/templates")).unwrap();
    std::fs::write(root.join("skills/run-tests/templates/t.md"), "template").unwrap();
    std::fs::create_dir_all(root.join("skills/Deploy_Steps")).unwrap();
    std::fs::write(root.join("skills/Deploy_Steps/SKILL.md"), "mine").unwrap();
    env.ok(&["note", "always use tabs"]);
    let out = env.run(&["consolidate"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("skills/Deploy_Steps: not a valid skill name"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        read(&root, "skills/run-tests/templates/t.md").unwrap(),
        b"template"
    );
    assert_eq!(
        read(&root, "skills/Deploy_Steps/SKILL.md").unwrap(),
        b"mine"
    );
    assert!(git(&root, &["ls-files"]).contains("skills/run-tests/templates/t.md"));

    // A skill the agent deletes goes; the hand-made folder still stays.
    std::fs::write(
        env.root.join("agent.sh"),
        format!(
            "#!/bin/sh\n{}\n",
            good_agent_body("rm -rf skills/run-tests")
        ),
    )
    .unwrap();
    env.ok(&["note", "two spaces"]);
    env.ok(&["consolidate"]);
    assert!(!root.join("skills/run-tests").exists());
    assert_eq!(
        read(&root, "skills/Deploy_Steps/SKILL.md").unwrap(),
        b"mine"
    );
}

#[test]
fn the_users_own_staging_in_the_memory_folder_is_left_alone() {
    let env = TestEnv::new();
    setup(&env, &good_agent_body(""), "");
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    let root = env.memory_root();
    std::fs::write(root.join("extensions/mine.md"), "staged by hand\n").unwrap();
    git(&root, &["add", "extensions/mine.md"]);
    env.ok(&["diff"]);
    env.ok(&["sync"]);
    assert_eq!(
        git(&root, &["diff", "--cached", "--name-only"]),
        "extensions/mine.md\n",
        "memkit keeps what the user staged"
    );
}
