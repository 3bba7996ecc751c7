//! The usage loop and the read path end to end: `cite-import`, `prune`,
//! `inject`, `note`, `forget`, `reset`.

mod common;

use common::{TestEnv, command_extractor, thread_id};
use std::io::Write;
use std::process::Stdio;

/// Extraction through a command backend with a fixed answer, so every session has an output.
fn configure(env: &TestEnv) {
    let answer = serde_json::json!({
        "raw_memory": "---\ndescription: d\ntask: t\ntask_group: proj\ntask_outcome: success\ncwd: /home/dev/proj\nkeywords: k\n---\n",
        "rollout_summary": "# Summary\n",
        "rollout_slug": null
    });
    let s = env.script(
        "extractor.sh",
        &format!("cat >/dev/null\nprintf '%s' '{answer}'"),
    );
    env.write_config(&command_extractor(&s));
}

fn usage_of(env: &TestEnv, id: &str) -> (Option<i64>, Option<i64>) {
    env.db()
        .query_row(
            "SELECT usage_count, last_usage FROM stage1_outputs WHERE thread_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn citation_block(ids: &[&str]) -> String {
    format!(
        "<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-4|note=[build steps]\n</citation_entries>\n<rollout_ids>\n{}\n</rollout_ids>\n</oai-mem-citation>",
        ids.join("\n")
    )
}

/// A Codex rollout whose final answer (at 2026-11-25T12:00:00Z) cites `ids`.
fn citing_rollout(env: &TestEnv, id: &str, ids: &[&str]) -> std::path::PathBuf {
    let dir = env.codex_home.join("sessions/2026/11/25");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-2026-11-25T12-00-00-{id}.jsonl"));
    let ts = "2026-11-25T12:00:00.000Z";
    let lines = [
        serde_json::json!({"timestamp": ts, "type": "session_meta", "payload": {"id": id, "cwd": "/home/dev/proj", "source": "cli"}}),
        serde_json::json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": "how do I run the tests?"}}),
        serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {"type": "message", "role": "assistant", "phase": "final_answer",
            "content": [{"type": "output_text", "text": format!("Run `make test`.\n\n{}", citation_block(ids))}]}}),
    ];
    std::fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    path
}

const REPLY_AT: i64 = 1_795_608_000; // 2026-11-25T12:00:00Z

#[test]
fn cite_import_bumps_each_cited_memory_once_at_the_reply_time() {
    let env = TestEnv::new();
    configure(&env);
    let (a, b, c) = (thread_id(1), thread_id(2), thread_id(3));
    for id in [&a, &b, &c] {
        env.write_codex_session(id, &["Fix the flaky test"]);
    }
    env.ok(&["extract"]);
    let unknown = "019fffff-0000-7000-8000-000000000999";
    let path = citing_rollout(&env, &thread_id(50), &[&a, &b, &a, unknown, "not-a-uuid"]);
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(report["citations_found"], 1);
    assert_eq!(report["outputs_bumped"], 2);
    assert_eq!(report["unknown_ids"], 1);
    assert_eq!(report["invalid_ids"], 1);
    assert_eq!(usage_of(&env, &a), (Some(1), Some(REPLY_AT)));
    assert_eq!(usage_of(&env, &b), (Some(1), Some(REPLY_AT)));
    assert_eq!(usage_of(&env, &c), (None, None));

    let again: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(
        again["sessions_scanned"], 0,
        "an unchanged file is not read again"
    );
    // The file grows (the session continued): re-read, but the old reply counts once.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, r#"{{"timestamp":"2026-11-25T12:01:00.000Z","type":"event_msg","payload":{{"type":"user_message","message":"thanks"}}}}"#).unwrap();
    let third: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(third["already_imported"], 1);
    assert_eq!(third["outputs_bumped"], 0);
    assert_eq!(usage_of(&env, &a), (Some(1), Some(REPLY_AT)));
    let status = env.ok(&["status"]);
    assert!(status.contains("2 ever cited"), "{status}");
}

#[test]
fn the_scan_s_read_serves_cite_import_and_a_catalogued_file_is_read_by_cite_import() {
    let env = TestEnv::new();
    configure(&env);
    let a = thread_id(1);
    env.write_codex_session(&a, &["Fix the flaky test"]);
    env.ok(&["extract"]);
    // Catalogued by a scan of its own: cite-import reads the file itself.
    citing_rollout(&env, &thread_id(50), &[&a]);
    env.ok(&["scan"]);
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(
        (
            report["citations_found"].as_i64(),
            report["outputs_bumped"].as_i64()
        ),
        (Some(1), Some(1)),
        "{report}"
    );
    // New to the catalog: the scan's read serves cite-import, with the same result.
    citing_rollout(&env, &thread_id(51), &[&a]);
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(report["sessions_scanned"], 1, "{report}");
    assert_eq!(report["citations_found"], 1, "{report}");
    assert_eq!(report["outputs_bumped"], 1, "{report}");
    assert!(report["replies_scanned"].as_i64().unwrap() >= 1, "{report}");
    assert_eq!(usage_of(&env, &a).0, Some(2));
}

/// A Codex 0.169+ rollout whose reply cites `ids` twice over: as the
/// `AgentMessage` item's structured `memory_citation` and as the block in the
/// response item that follows it.
fn citing_rollout_0169(env: &TestEnv, id: &str, ids: &[&str]) {
    let dir = env.codex_home.join("sessions/2026/11/25");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-2026-11-25T12-00-00-{id}.jsonl"));
    let ts = "2026-11-25T12:00:00.000Z";
    let lines = [
        serde_json::json!({"timestamp": ts, "ordinal": 0, "type": "session_meta", "payload": {"id": id, "cwd": "/home/dev/proj", "source": "exec", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": ts, "ordinal": 1, "type": "event_msg", "payload": {"type": "item_completed", "item": {"type": "UserMessage", "id": "u1", "content": [{"type": "text", "text": "how do I run the tests?"}]}}}),
        serde_json::json!({"timestamp": ts, "ordinal": 2, "type": "event_msg", "payload": {"type": "item_completed", "item": {"type": "AgentMessage", "id": "msg_1",
            "content": [{"type": "Text", "text": "Run `make test`.\n"}],
            "memory_citation": {"entries": [{"path": "MEMORY.md", "lineStart": 1, "lineEnd": 4, "note": "build steps"}], "rolloutIds": ids}}}}),
        serde_json::json!({"timestamp": ts, "ordinal": 3, "type": "response_item", "payload": {"type": "message", "id": "msg_1", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("Run `make test`.\n{}", citation_block(ids))}]}}),
    ];
    std::fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
}

#[test]
fn cite_import_counts_a_codex_0169_reply_with_both_forms_once() {
    let env = TestEnv::new();
    configure(&env);
    let (a, b) = (thread_id(1), thread_id(2));
    for id in [&a, &b] {
        env.write_codex_session(id, &["Fix the flaky test"]);
    }
    env.ok(&["extract"]);
    citing_rollout_0169(&env, &thread_id(60), &[&a, &b]);
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["cite-import", "--json"])).unwrap();
    assert_eq!(
        report["citations_found"], 1,
        "the block and the field are one citing reply: {report}"
    );
    assert_eq!(report["outputs_bumped"], 2, "{report}");
    assert_eq!(usage_of(&env, &a), (Some(1), Some(REPLY_AT)));
    assert_eq!(usage_of(&env, &b), (Some(1), Some(REPLY_AT)));
    let shown = env.ok(&["show-session", &thread_id(60)]);
    assert!(
        !shown.contains("<oai-mem-citation>")
            && shown.contains("(cited MEMORY.md:1-4: build steps)"),
        "the block is shown as a citation, not as reply text: {shown}"
    );
}

#[test]
fn cite_import_from_stdin_counts_a_text_once() {
    let env = TestEnv::new();
    configure(&env);
    let a = thread_id(7);
    env.write_codex_session(&a, &["Fix the flaky test"]);
    env.ok(&["extract"]);
    for expected in [1, 0] {
        let mut child = env
            .cmd()
            .args(["cite-import", "-", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(citation_block(&[&a]).as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["outputs_bumped"], expected);
    }
    assert_eq!(usage_of(&env, &a).0, Some(1));
}

#[test]
fn prune_lists_then_deletes_unused_memories() {
    let env = TestEnv::new();
    configure(&env);
    env.write_config(&format!(
        "max_unused_days = 1\n{}",
        std::fs::read_to_string(env.home.join(".config/memkit/config.toml")).unwrap()
    ));
    let old = thread_id(1);
    let path = env.write_codex_session(&old, &["Fix the flaky test"]);
    common::set_mtime(
        &path,
        std::time::SystemTime::now() - std::time::Duration::from_secs(3 * 86_400),
    );
    env.write_codex_session(&thread_id(2), &["Fix another test"]);
    env.ok(&["extract", "--since", "10d"]);
    let dry = env.ok(&["prune", "--dry-run"]);
    assert!(dry.contains(&format!("would prune {old}")), "{dry}");
    assert!(dry.contains("would delete 1"));
    let n: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM stage1_outputs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
    env.ok(&["prune"]);
    let left: Vec<String> = env
        .db()
        .prepare("SELECT thread_id FROM stage1_outputs")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(left, vec![thread_id(2)]);
    let s = env.ok(&["extract", "--json", "--since", "10d"]);
    assert!(
        s.contains("\"up_to_date\":1") || s.contains("\"claimed\":0"),
        "a pruned session is not re-extracted: {s}"
    );
}

#[test]
fn inject_prints_the_block_within_budget() {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(&root).unwrap();
    let out = env.run(&["inject"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to inject"));

    let summary = "v1\n## User Profile\nA developer.\n## What's in Memory\n### /w/alpha\n- a\n### /w/beta\n- b\n";
    std::fs::write(root.join("memory_summary.md"), summary).unwrap();
    let text = env.ok(&["inject"]);
    assert!(text.contains(&root.display().to_string()));
    assert_eq!(
        text.matches("========= MEMORY_SUMMARY BEGINS =========")
            .count(),
        1
    );
    assert!(text.contains("<oai-mem-citation>") && text.contains("extensions/ad_hoc/notes/"));
    assert!(text.contains(summary.trim()));
    let moved = env.ok(&["inject", "--project", "/w/beta"]);
    assert!(moved.find("### /w/beta").unwrap() < moved.find("### /w/alpha").unwrap());

    let hook: serde_json::Value =
        serde_json::from_str(&env.ok(&["inject", "--format", "claude-hook"])).unwrap();
    assert_eq!(hook["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        hook["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("MEMORY_SUMMARY BEGINS")
    );

    let exact = format!("v1\n{}", "x".repeat(10_000 - 3));
    std::fs::write(root.join("memory_summary.md"), &exact).unwrap();
    let out = env.run(&["inject", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["truncated"], false);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    std::fs::write(root.join("memory_summary.md"), format!("{exact}y")).unwrap();
    let out = env.run(&["inject", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["truncated"], true);
    assert!(v["text"].as_str().unwrap().contains("tokens truncated"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("over the 2500-token budget"));
}

#[test]
fn a_note_lands_in_memory_after_consolidation() {
    let env = TestEnv::new();
    configure(&env);
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    let path = env.ok(&["note", "always run cargo fmt before committing"]);
    let path = std::path::PathBuf::from(path.trim());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.ends_with("-always-run-cargo-fmt-before-committing.md"),
        "{name}"
    );
    assert!(path.starts_with(env.memory_root().join("extensions/ad_hoc/notes")));
    let names = env.ok(&["diff", "--name-status"]);
    assert!(
        names.contains(&format!("A\textensions/ad_hoc/notes/{name}")),
        "{names}"
    );
    env.ok(&["consolidate"]);
    let summary = std::fs::read_to_string(env.memory_root().join("memory_summary.md")).unwrap();
    assert!(
        summary.contains("always run cargo fmt before committing"),
        "{summary}"
    );
    assert!(summary.contains("[ad-hoc note]"));
    let empty = env.run(&["note", "   "]);
    assert_eq!(empty.status.code(), Some(2));
}

#[test]
fn forget_then_sync_removes_the_summary_file() {
    let env = TestEnv::new();
    configure(&env);
    let (a, b) = (thread_id(1), thread_id(2));
    env.write_codex_session(&a, &["Fix the flaky test"]);
    env.write_codex_session(&b, &["Another"]);
    env.ok(&["extract"]);
    env.ok(&["sync"]);
    let summaries = || {
        std::fs::read_dir(env.memory_root().join("rollout_summaries"))
            .unwrap()
            .count()
    };
    assert_eq!(summaries(), 2);
    let out = env.ok(&["forget", &a]);
    assert!(
        out.contains(&format!("forgot {a}")) && out.contains("1 memories deleted"),
        "{out}"
    );
    env.ok(&["sync"]);
    assert_eq!(summaries(), 1);
    let raw = std::fs::read_to_string(env.memory_root().join("raw_memories.md")).unwrap();
    assert!(!raw.contains(&a) && raw.contains(&b));
    let again = env.ok(&["extract", "--json", "--force"]);
    assert!(
        !again.contains(&format!("\"thread_id\":\"{a}\"")),
        "a forgotten session is never extracted again"
    );
    let by_cwd = env.ok(&["forget", "--cwd", "/home/dev/proj"]);
    assert!(by_cwd.contains(&format!("forgot {b}")), "{by_cwd}");
}

#[test]
fn reset_wipes_memories_and_refuses_a_symlinked_root() {
    let env = TestEnv::new();
    configure(&env);
    env.write_codex_session(&thread_id(1), &["Fix the flaky test"]);
    env.ok(&["extract"]);
    env.ok(&["consolidate"]);
    assert_eq!(env.run(&["reset"]).status.code(), Some(2), "needs --yes");
    let out = env.ok(&["reset", "--yes"]);
    assert!(out.contains("deleted 1 memories"), "{out}");
    let root = env.memory_root();
    assert!(root.is_dir() && std::fs::read_dir(&root).unwrap().count() == 0);
    let n: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM threads", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the catalog is kept");

    std::fs::remove_dir(&root).unwrap();
    let target = env.root.join("elsewhere");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("precious.md"), "keep").unwrap();
    std::os::unix::fs::symlink(&target, &root).unwrap();
    let out = env.run(&["reset", "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(
        std::fs::read_to_string(target.join("precious.md")).unwrap(),
        "keep"
    );
}
