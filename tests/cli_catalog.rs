//! `memkit scan`, `sessions`, `show-session`, `status` and configuration errors, end to end.

mod common;

use common::{TestEnv, json_lines};
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);

fn by_id(list: &[serde_json::Value], id: &str) -> serde_json::Value {
    list.iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed in {list:#?}"))
        .clone()
}

#[test]
fn scan_is_incremental_and_counts_files_it_opens() {
    let env = TestEnv::new();
    let files = env.install_fixtures();
    let first: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(first["files_found"], files.len());
    assert_eq!(first["files_read"], files.len());
    assert_eq!(first["sessions_new"], files.len());
    let second: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(
        second["files_read"], 0,
        "unchanged files must not be opened"
    );
    assert_eq!(second["files_unchanged"], files.len());
    // Appending to one session makes exactly that file be read again.
    let target = files
        .iter()
        .find(|p| p.to_string_lossy().contains("213141516171"))
        .unwrap();
    let mut text = std::fs::read_to_string(target).unwrap();
    text.push_str(r#"{"timestamp":"2025-10-20T08:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"one more thing"}}"#);
    text.push('\n');
    std::fs::write(target, text).unwrap();
    let third: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(third["files_read"], 1);
    assert_eq!(third["sessions_updated"], 1);
    // A file gone is noticed, then the night after is quiet again.
    let gone = files.iter().find(|p| *p != target).unwrap();
    std::fs::remove_file(gone).unwrap();
    let fourth: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(fourth["sessions_missing"], 1);
    assert_eq!(fourth["files_found"], files.len() - 1);
    let fifth: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(fifth["files_read"], 0);
    assert_eq!(fifth["files_unchanged"], files.len() - 1);
    let list = json_lines(&env.ok(&["sessions", "--json", "--no-scan"]));
    assert_eq!(
        by_id(&list, "019a0b0c-0d0e-7f10-8111-213141516171")["human_turns"],
        3
    );
}

#[test]
fn sessions_lists_metadata_and_eligibility_reasons() {
    let env = TestEnv::new();
    env.install_fixtures();
    let fresh = json_lines(&env.ok(&["sessions", "--json"]));
    assert_eq!(fresh.len(), 10);
    let shop = by_id(&fresh, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(shop["tool"], "codex");
    assert_eq!(shop["cwd"], "/home/dev/shop");
    assert_eq!(shop["branch"], "feature/cart");
    assert_eq!(shop["source"], "cli");
    assert_eq!(shop["human_turns"], 3);
    assert_eq!(shop["tool_calls"], 5);
    assert_eq!(shop["eligible"], false);
    assert_eq!(
        shop["reason"], "too_recent",
        "just written: inside the idle window"
    );
    assert_eq!(
        by_id(&fresh, "019f0000-2222-7333-8444-555566667777")["reason"],
        "memory_disabled"
    );
    assert_eq!(
        by_id(&fresh, "019f0000-1111-7222-8333-444455556666")["reason"],
        "non_interactive"
    );
    let api = by_id(&fresh, "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6");
    assert_eq!(api["tool"], "claude");
    assert_eq!(api["branch"], "fix/login");
    assert_eq!(
        by_id(&fresh, "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6-agent-e4f5a6b")["source"],
        "subagent"
    );

    env.age_sessions(7 * HOUR);
    let aged = json_lines(&env.ok(&["sessions", "--json"]));
    let eligible: Vec<_> = aged.iter().filter(|v| v["eligible"] == true).collect();
    assert_eq!(eligible.len(), 6, "{aged:#?}");
    let only = json_lines(&env.ok(&["sessions", "--json", "--eligible", "--tool", "claude"]));
    assert_eq!(only.len(), 2);
    assert!(
        only.iter()
            .all(|v| v["tool"] == "claude" && v["eligible"] == true)
    );

    env.age_sessions(11 * 24 * HOUR);
    let old = json_lines(&env.ok(&["sessions", "--json"]));
    assert_eq!(
        by_id(&old, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")["reason"],
        "too_old"
    );
    assert!(json_lines(&env.ok(&["sessions", "--json", "--since", "10d"])).is_empty());
    let human = env.ok(&["sessions"]);
    assert!(human.contains("too old"), "{human}");
}

#[test]
fn an_archived_file_keeps_its_thread() {
    let env = TestEnv::new();
    let files = env.install_fixtures();
    env.ok(&["scan"]);
    let src = files
        .iter()
        .find(|p| p.to_string_lossy().contains("0c1d2e3f4a5b"))
        .unwrap();
    let archived = env.codex_home.join("archived_sessions");
    std::fs::create_dir_all(&archived).unwrap();
    let dst = archived.join(src.file_name().unwrap());
    std::fs::rename(src, &dst).unwrap();
    let report: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(report["sessions_new"], 0);
    assert_eq!(report["sessions_updated"], 1);
    let list = json_lines(&env.ok(&["sessions", "--json", "--no-scan"]));
    assert_eq!(list.len(), 10);
    let shop = by_id(&list, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(shop["path"], dst.display().to_string());
    assert_eq!(shop["reason"], "archived");
}

#[test]
fn compressed_rollouts_are_read_and_a_plain_sibling_wins() {
    let env = TestEnv::new();
    let files = env.install_fixtures();
    let plain = files
        .iter()
        .find(|p| p.to_string_lossy().contains("0c1d2e3f4a5b"))
        .unwrap();
    let bytes = std::fs::read(plain).unwrap();
    let zst = plain.with_file_name(format!(
        "{}.zst",
        plain.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(
        report["files_found"],
        files.len(),
        "the .zst beside its plain file is skipped"
    );
    std::fs::remove_file(plain).unwrap();
    env.ok(&["scan"]);
    let list = json_lines(&env.ok(&["sessions", "--json", "--no-scan"]));
    let shop = by_id(&list, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(shop["path"], zst.display().to_string());
    assert_eq!(shop["human_turns"], 3);
}

#[test]
fn empty_and_broken_files_are_reported_not_fatal() {
    let env = TestEnv::new();
    env.install_fixtures();
    let dir = env.codex_home.join("sessions/2026/05/01");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("rollout-2026-05-01T10-00-00-019f1111-0000-7000-8000-000000000001.jsonl");
    std::fs::write(&empty, "").unwrap();
    let broken = dir.join("rollout-2026-05-01T11-00-00-019f1111-0000-7000-8000-000000000002.jsonl");
    std::fs::write(
        &broken,
        concat!(
            r#"{"timestamp":"2026-05-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019f1111-0000-7000-8000-000000000002","cwd":"/w","source":"cli"}}"#,
            "\n<<<garbage>>>\n",
            r#"{"timestamp":"2026-05-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"hello"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = env.run(&["scan"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: empty session file", empty.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:2", broken.display())),
        "{stderr}"
    );
    let list = json_lines(&env.ok(&["sessions", "--json", "--no-scan"]));
    assert_eq!(
        by_id(&list, "019f1111-0000-7000-8000-000000000001")["reason"],
        "unreadable"
    );
    let b = by_id(&list, "019f1111-0000-7000-8000-000000000002");
    assert_eq!(b["human_turns"], 1);
    assert_eq!(b["malformed_lines"], 1);
}

#[test]
fn codex_state_index_overrides_memory_mode() {
    let env = TestEnv::new();
    env.install_fixtures();
    let db = env.codex_home.join("state_5.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, source TEXT, archived INTEGER,
            memory_mode TEXT NOT NULL DEFAULT 'enabled', title TEXT);
         INSERT INTO threads (id, source, archived, memory_mode) VALUES
            ('0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'cli', 0, 'disabled');",
    )
    .unwrap();
    drop(conn);
    env.age_sessions(7 * HOUR);
    let list = json_lines(&env.ok(&["sessions", "--json"]));
    let shop = by_id(&list, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(shop["reason"], "memory_disabled");
    assert_eq!(
        by_id(&list, "019a0b0c-0d0e-7f10-8111-213141516171")["eligible"],
        true
    );
}

#[test]
fn show_session_by_id_prefix_and_path() {
    let env = TestEnv::new();
    let files = env.install_fixtures();
    env.ok(&["scan"]);
    let out = env.ok(&["show-session", "0195a1b2"]);
    assert_eq!(out.matches("] user:").count(), 3, "{out}");
    assert_eq!(out.matches("We use pnpm here, not npm.").count(), 1);
    assert!(
        out.contains("tool exec_command: npm test → exit 1"),
        "{out}"
    );
    let claude = files
        .iter()
        .find(|p| {
            p.to_string_lossy()
                .ends_with("7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.jsonl")
        })
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["show-session", "--json", &claude.display().to_string()]))
            .unwrap();
    assert_eq!(json["info"]["id"], "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6");
    assert_eq!(json["stats"]["human_turns"], 2);
    let missing = env.run(&["show-session", "ffffffff"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no session ffffffff"));
}

#[test]
fn status_reports_paths_schema_and_counts() {
    let env = TestEnv::new();
    env.install_fixtures();
    env.ok(&["scan"]);
    let status: serde_json::Value = serde_json::from_str(&env.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["schema_version"], status["schema_version_supported"]);
    assert_eq!(
        status["memory_root"],
        env.memory_root().display().to_string()
    );
    assert_eq!(status["catalog"]["codex"]["sessions"], 6);
    assert_eq!(status["catalog"]["claude"]["sessions"], 4);
    assert_eq!(
        status["catalog"]["claude"]["ineligible"]["non_interactive"],
        2
    );
    let human = env.ok(&["status"]);
    assert!(human.contains("catalog      codex: 6 sessions"), "{human}");
}

#[test]
fn configuration_errors_exit_2_and_name_the_key() {
    let env = TestEnv::new();
    let cfg = env.write_config("max_unused_days = 30\nmax_rollout_age_dayz = 3\n");
    let out = env.run(&["status"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("max_rollout_age_dayz") && err.contains(&cfg.display().to_string()),
        "{err}"
    );

    env.write_config("min_rollout_idle_hours = 49\n");
    let out = env.run(&["status"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("min_rollout_idle_hours = 49") && err.contains("0..=48"),
        "{err}"
    );

    env.write_config("");
    let err = refused_with(&env, "MEMKIT_MAX_UNUSED_DAYS", "a fortnight".as_ref());
    assert!(
        err.contains("max_unused_days") && err.contains("MEMKIT_MAX_UNUSED_DAYS"),
        "{err}"
    );

    let out = env.run(&["sessions", "--since", "soon"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad flag value is a usage error"
    );
}

#[test]
fn samples_laid_out_like_the_tools_lay_them_out() {
    let Some(samples) = common::samples_dir() else {
        return;
    };
    let env = TestEnv::new();
    env.install_samples(&samples);
    env.ok(&["scan"]);
    let list = json_lines(&env.ok(&["sessions", "--json", "--no-scan"]));
    assert_eq!(list.len(), 20);
    let legacy = by_id(&list, "cf4def41-21e0-4b91-adb4-5397c1492084");
    assert_eq!(
        (
            legacy["human_turns"].as_i64(),
            legacy["tool_calls"].as_i64()
        ),
        (Some(45), Some(246))
    );
    assert_eq!(
        by_id(&list, "019e9625-802f-7e91-840a-cfe88d14117a")["source"],
        "exec"
    );
    assert_eq!(
        by_id(&list, "ae4a77f8-aedd-4bc1-888f-c94edc91af04-agent-aac57f5")["source"],
        "subagent"
    );
    assert_eq!(
        by_id(&list, "c45af7b1-cb7c-4e51-93db-8cbb250a877a-agent-af1ff21")["source"],
        "subagent"
    );
    assert_eq!(
        by_id(&list, "55604662-cf2a-4331-851a-ec234028f8ca")["branch"],
        "master"
    );
    let shown = env.ok(&["show-session", "019e9ea7-f3e7-7463-8542-41b2e0fcb033"]);
    assert_eq!(shown.matches("] user:").count(), 6);
    assert_eq!(
        shown
            .matches("Create a branch and commit your changes")
            .count(),
        1
    );
}

#[test]
fn the_environment_may_hold_any_bytes_and_bad_memkit_values_are_named() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    let not_utf8 = OsStr::from_bytes(b"caf\xe9");
    let out = env
        .cmd()
        .env("FOO", not_utf8)
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A path variable memkit reads may be any bytes too.
    let odd_home = env.root.join(OsStr::from_bytes(b"h\xe9me"));
    std::fs::create_dir_all(&odd_home).unwrap();
    let out = env
        .cmd()
        .env("MEMKIT_HOME", &odd_home)
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(odd_home.join("memkit.sqlite").is_file());

    let err = refused_with(&env, "MEMKIT_EXTRACT_BACKEND", not_utf8);
    assert!(
        err.contains("MEMKIT_EXTRACT_BACKEND") && err.contains("UTF-8"),
        "{err}"
    );

    let err = refused_with(&env, "MEMKIT_EXTRACT_JOBS", "1e3".as_ref());
    assert!(
        err.contains("MEMKIT_EXTRACT_JOBS") && err.contains("extract_jobs"),
        "{err}"
    );
}

#[test]
fn a_source_folder_linked_to_the_root_is_not_walked_whole() {
    let env = TestEnv::new();
    let files = env.install_fixtures();
    std::os::unix::fs::symlink("/", env.codex_home.join("archived_sessions")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&env.ok(&["scan", "--json"])).unwrap();
    assert_eq!(report["files_found"], files.len(), "{report}");
}

/// Runs `memkit status` with `var` set to `value`, asserting it is refused
/// as a usage error (exit 2); returns stderr.
fn refused_with(env: &TestEnv, var: &str, value: &std::ffi::OsStr) -> String {
    let out = env.cmd().env(var, value).arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}
