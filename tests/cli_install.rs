//! `memkit install` / `uninstall` for Codex, Claude Code and Gemini CLI end
//! to end: the user's files stay byte for byte outside memkit's part, every
//! consolidation refreshes the blocks, and every value fits its agent's limit.

mod common;

use common::{TestEnv, thread_id};

/// A memory folder with a consolidated summary (heuristic backends).
fn with_memory(env: &TestEnv) {
    env.write_codex_session(
        &thread_id(1),
        &["Always run the tests with pnpm, never npm."],
    );
    env.ok(&["run"]);
}

/// A memory whose summary is long enough that leaving some of its lines out
/// makes room for the note that says so.
fn with_long_memory(env: &TestEnv) {
    env.write_codex_session(
        &thread_id(1),
        &[
            "Always run the tests with pnpm, never npm.",
            "From now on never commit generated files under dist/.",
            "In this repo always format with prettier before committing.",
            "Always write commit messages in the imperative mood.",
            "Never add a dependency without asking me first.",
            "Always keep the changelog updated under Unreleased.",
        ],
    );
    env.ok(&["run"]);
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

#[test]
fn codex_block_round_trip_keeps_the_users_text_and_follows_consolidations() {
    let env = TestEnv::new();
    with_memory(&env);
    let agents = env.codex_home.join("AGENTS.md");
    let user = "# My rules\n\nAnswer in English.\nNo trailing newline here";
    std::fs::write(&agents, user).unwrap();

    let diff = env.ok(&["install", "codex", "--dry-run"]);
    assert!(
        diff.starts_with(&format!(
            "--- {}\n+++ {}\n@@",
            agents.display(),
            agents.display()
        )),
        "{diff}"
    );
    assert!(
        diff.contains("+<!-- memkit:begin") && diff.contains("+## Memory"),
        "{diff}"
    );
    assert_eq!(read(&agents), user, "a dry run writes nothing");

    let out = env.ok(&["install", "codex"]);
    assert!(
        out.contains("codex: installed") && out.contains("summary whole"),
        "{out}"
    );
    let installed = read(&agents);
    assert!(installed.starts_with(user));
    let summary = read(&env.memory_root().join("memory_summary.md"));
    assert!(
        installed.contains(summary.trim()),
        "the current summary is in the block"
    );
    assert!(installed.contains(&env.memory_root().display().to_string()));
    assert!(env.ok(&["install", "codex"]).contains("already up to date"));
    assert_eq!(read(&agents), installed, "idempotent");

    // A new session changes the summary: the next consolidation refreshes the block.
    env.write_codex_session(
        &thread_id(2),
        &["For every repo: format with prettier before committing."],
    );
    let run = env.ok(&["run"]);
    assert!(run.contains("memory block refreshed for codex"), "{run}");
    let refreshed = read(&agents);
    let new_summary = read(&env.memory_root().join("memory_summary.md"));
    assert_ne!(new_summary, summary);
    assert!(refreshed.contains(new_summary.trim()) && refreshed.starts_with(user));
    let status = env.ok(&["status"]);
    assert!(
        status.contains(&format!(
            "agent        codex: installed in {}; refreshed",
            agents.display()
        )),
        "{status}"
    );

    env.ok(&["uninstall", "codex", "--dry-run"]);
    assert_eq!(read(&agents), refreshed);
    assert!(env.ok(&["uninstall", "codex"]).contains("removed"));
    assert_eq!(read(&agents), user, "byte-identical after uninstall");
    assert!(env.ok(&["uninstall", "codex"]).contains("nothing to do"));
    assert!(env.ok(&["status"]).contains("codex: not installed"));
}

#[test]
fn codex_block_is_cut_to_the_instruction_budget_and_says_so() {
    let env = TestEnv::new();
    with_long_memory(&env);
    let agents = env.codex_home.join("AGENTS.md");
    env.ok(&["install", "codex"]);
    let block = read(&agents).len();
    env.ok(&["uninstall", "codex"]);
    // The user's own rules leave 300 bytes too few for the whole block.
    let line = "- house rule of this team, kept by hand\n";
    let user = line.repeat((32 * 1024 - block + 300).div_ceil(line.len()));
    std::fs::write(&agents, &user).unwrap();
    let out = env.run(&["install", "codex"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("of the summary do not fit and are left out"),
        "{err}"
    );
    let text = read(&agents);
    assert!(text.len() <= 32 * 1024, "{}", text.len());
    assert!(text.starts_with(&user));
    assert!(
        text.contains("did not fit Codex's 32 KiB instruction budget; the whole summary is in"),
        "the cut is said in the block"
    );
    let status = env.ok(&["status"]);
    assert!(
        status.contains("of the summary are left out of what codex reads"),
        "{status}"
    );
    let doctor = env.ok_or_fail(&["doctor", "--offline"]);
    assert!(
        doctor.contains("warn codex_read_path:") && doctor.contains("left out"),
        "{doctor}"
    );
}

#[test]
fn codex_block_that_cannot_fit_at_all_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    with_memory(&env);
    let agents = env.codex_home.join("AGENTS.md");
    let user = "- house rule of this team, kept by hand\n".repeat(32 * 1024 / 40);
    std::fs::write(&agents, &user).unwrap();
    let out = env.run(&["install", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("AGENTS.md")
            && err.contains("does not fit")
            && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(read(&agents), user, "the user's file is untouched");
}

#[test]
fn codex_override_file_is_where_the_block_goes() {
    let env = TestEnv::new();
    with_memory(&env);
    let plain = env.codex_home.join("AGENTS.md");
    let over = env.codex_home.join("AGENTS.override.md");
    std::fs::write(&over, "# override\n").unwrap();
    env.ok(&["install", "codex"]);
    assert!(read(&over).contains("<!-- memkit:begin"));
    assert!(!plain.exists());
    env.ok(&["uninstall", "codex"]);
    assert_eq!(read(&over), "# override\n");

    // A block stranded in AGENTS.md once an override appears: doctor says so,
    // and uninstall + install move it.
    std::fs::remove_file(&over).unwrap();
    env.ok(&["install", "codex"]);
    std::fs::write(&over, "# override\n").unwrap();
    let doctor = env.ok_or_fail(&["doctor", "--offline"]);
    assert!(
        doctor.contains(&format!(
            "memkit's block is in {}, but Codex reads {}",
            plain.display(),
            over.display()
        )),
        "{doctor}"
    );
    env.ok(&["uninstall", "codex"]);
    assert!(
        !plain.exists(),
        "the stranded block is gone (install had created the file)"
    );
    env.ok(&["install", "codex"]);
    assert!(read(&over).contains("<!-- memkit:begin"));
}

#[test]
fn a_broken_block_is_an_error_that_changes_nothing() {
    let env = TestEnv::new();
    let agents = env.codex_home.join("AGENTS.md");
    let broken = "mine\n<!-- memkit:begin (someone cut the end) -->\nold\n";
    std::fs::write(&agents, broken).unwrap();
    let out = env.run(&["install", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:2", agents.display())) && err.contains("never ends"),
        "{err}"
    );
    assert_eq!(read(&agents), broken);
}

#[test]
fn claude_hooks_merge_into_settings_and_leave_them_as_they_were() {
    let env = TestEnv::new();
    with_memory(&env);
    let settings = env.claude_home.join("settings.json");
    let user = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo hello\"\n          }\n        ]\n      }\n    ],\n    \"Stop\": []\n  }\n}\n";
    std::fs::write(&settings, user).unwrap();
    env.ok(&["install", "claude"]);
    let installed = read(&settings);
    let doc: serde_json::Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(doc["model"], "opus");
    let entries = doc["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "the user's hook and two parts");
    assert_eq!(entries[0]["hooks"][0]["command"], "echo hello");
    let command = entries[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command
            .contains(" inject --format claude-hook --part 1/2 --project \"$CLAUDE_PROJECT_DIR\""),
        "{command}"
    );
    env.ok(&["install", "claude"]);
    assert_eq!(read(&settings), installed, "idempotent");
    env.ok(&["uninstall", "claude"]);
    assert_eq!(read(&settings), user, "byte-identical after uninstall");

    // No settings yet: install creates the file, uninstall removes it again.
    std::fs::remove_file(&settings).unwrap();
    env.ok(&["install", "claude"]);
    assert!(settings.is_file());
    assert!(env.ok(&["status"]).contains("claude: installed"));
    env.ok(&["uninstall", "claude"]);
    assert!(!settings.exists());
}

#[test]
fn invalid_claude_settings_are_an_error_that_changes_nothing() {
    let env = TestEnv::new();
    let settings = env.claude_home.join("settings.json");
    let bad = "{\n  \"model\": \"opus\",\n}\n";
    std::fs::write(&settings, bad).unwrap();
    let out = env.run(&["install", "claude"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:3:", settings.display())) && err.contains("changed nothing"),
        "{err}"
    );
    assert_eq!(read(&settings), bad);
}

#[test]
fn claude_hook_parts_carry_the_whole_block_under_the_cap() {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(&root).unwrap();
    // A summary near its 10,000-byte maximum, with non-ASCII text.
    let summary: String = std::iter::once("v1\n## User Profile\n".to_string())
        .chain((0..250).map(|i| format!("- préférence numéro {i:04}: run the linters ✓\n")))
        .collect::<String>();
    let summary = &summary[..summary[..9_900].rfind('\n').unwrap() + 1];
    std::fs::write(root.join("memory_summary.md"), summary).unwrap();
    let whole = env.ok(&["inject"]);
    assert!(
        utf16(&whole) > 10_000,
        "the block needs more than one value"
    );
    env.ok(&["install", "claude"]);
    let mut joined = String::new();
    for part in ["1/2", "2/2"] {
        let out: serde_json::Value = serde_json::from_str(&env.ok(&[
            "inject",
            "--format",
            "claude-hook",
            "--part",
            part,
            "--project",
            "/w",
        ]))
        .unwrap();
        let text = out["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(utf16(text) <= 10_000, "{part}: {}", utf16(text));
        assert!(text.starts_with(&format!("[memkit memory, part {} of 2]\n", &part[..1])));
        joined.push_str(text.split_once('\n').unwrap().1);
    }
    assert_eq!(joined, whole, "nothing is lost between the parts");
    assert!(!joined.contains("did not fit"));

    // The old single hook line gets one value, cut with a note, never over the cap.
    let one: serde_json::Value =
        serde_json::from_str(&env.ok(&["inject", "--format", "claude-hook"])).unwrap();
    let text = one["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(utf16(text) <= 10_000);
    assert!(text.contains("did not fit Claude Code's 10,000-character hook limit"));
    let bad = env.run(&["inject", "--part", "3/2"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn gemini_block_is_created_and_removed() {
    let env = TestEnv::new();
    with_memory(&env);
    let gemini = env.home.join(".gemini/GEMINI.md");
    env.ok(&["install", "gemini"]);
    assert!(read(&gemini).contains("========= MEMORY_SUMMARY BEGINS ========="));
    env.ok(&["uninstall", "gemini"]);
    assert!(!gemini.exists(), "install created it, uninstall removes it");
}

#[test]
fn reset_empties_the_installed_blocks_too() {
    let env = TestEnv::new();
    with_memory(&env);
    env.ok(&["install", "codex"]);
    let agents = env.codex_home.join("AGENTS.md");
    let summary = read(&env.memory_root().join("memory_summary.md"));
    assert!(read(&agents).contains(summary.trim()));
    let out = env.ok(&["reset", "--yes"]);
    assert!(out.contains("codex's memory block"), "{out}");
    let text = read(&agents);
    assert!(
        !text.contains(summary.trim()),
        "the wiped memory is gone from AGENTS.md"
    );
    assert!(text.contains("No memory yet"), "{text}");
}

#[test]
fn without_home_only_the_gemini_read_path_is_unknown() {
    let env = TestEnv::new();
    with_memory(&env);
    let run = |args: &[&str]| {
        let mut c = env.cmd();
        c.env_remove("HOME").args(args);
        c.output().unwrap()
    };
    for args in [
        &["status"][..],
        &["run"],
        &["install", "codex", "--dry-run"],
    ] {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = run(&["install", "gemini"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("gemini_home is not known: HOME is not set"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn install_mcp_registers_the_server_with_codex_and_claude_and_uninstall_removes_it() {
    let env = TestEnv::new();
    let codex_config = env.codex_home.join("config.toml");
    std::fs::write(&codex_config, "model = \"gpt-5\"\n").unwrap();
    env.ok(&["install", "codex", "--mcp"]);
    let text = std::fs::read_to_string(&codex_config).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let server = &table["mcp_servers"]["memkit"];
    assert_eq!(server["args"].as_array().unwrap()[0].as_str(), Some("mcp"));
    assert!(
        server["env_vars"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v.as_str() == Some("MEMKIT_HOME")),
        "Codex passes memkit's own variables on: {text}"
    );
    assert!(text.starts_with("model = \"gpt-5\"\n"));

    // CLAUDE_CONFIG_DIR is set (TestEnv sets it): the state file is there.
    env.ok(&["install", "claude", "--mcp"]);
    let state = env.claude_home.join(".claude.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(v["mcpServers"]["memkit"]["args"][0], "mcp");
    assert_eq!(v["mcpServers"]["memkit"]["type"], "stdio");

    env.ok(&["uninstall", "codex"]);
    env.ok(&["uninstall", "claude"]);
    assert_eq!(
        std::fs::read_to_string(&codex_config).unwrap(),
        "model = \"gpt-5\"\n"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert!(v["mcpServers"].get("memkit").is_none(), "{v}");
}

#[test]
fn install_mcp_refuses_a_broken_codex_config_and_changes_nothing() {
    let env = TestEnv::new();
    let codex_config = env.codex_home.join("config.toml");
    std::fs::write(&codex_config, "model = [broken\n").unwrap();
    let out = env.run(&["install", "codex", "--mcp"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&codex_config).unwrap(),
        "model = [broken\n"
    );
}
