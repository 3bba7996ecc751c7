//! Readers on the committed fixtures and on synthetic edge files.

mod common;

use common::{fixtures_dir, humans};
use memkit::sources::{Event, ReadOptions, Role, Tool, Transcript, read_transcript};
use std::path::{Path, PathBuf};

fn read(path: &Path, tool: Tool) -> Transcript {
    read_transcript(path, tool, ReadOptions::default()).unwrap()
}

fn assistants(t: &Transcript) -> Vec<&str> {
    t.events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.role == Role::Assistant => Some(m.text.as_str()),
            _ => None,
        })
        .collect()
}

fn calls(t: &Transcript) -> Vec<&memkit::sources::ToolCall> {
    t.events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn codex_fixture(id_suffix: &str) -> PathBuf {
    std::fs::read_dir(fixtures_dir().join("codex"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(id_suffix))
        .unwrap()
}

fn temp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("memkit-rd-{}", memkit::util::ids::new_uuid_v4()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn codex_envelope_file_has_clean_human_text_and_no_echoes() {
    let t = read(&codex_fixture("0c1d2e3f4a5b"), Tool::Codex);
    assert_eq!(t.info.id, "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(t.info.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(t.info.git_branch.as_deref(), Some("feature/cart"));
    assert_eq!(t.info.source, "cli");
    assert_eq!(t.info.originator.as_deref(), Some("codex-tui"));
    assert_eq!(t.info.model.as_deref(), Some("gpt-5.5"));
    // Each human message once: the response-item echo, the compacted
    // replacement history and the turn-aborted notice are not counted.
    assert_eq!(
        humans(&t),
        vec![
            "Add a cart total. We use pnpm here, not npm.",
            "Don't run the whole suite, just the cart tests.",
            "Here is the screenshot of the broken total [image]",
        ]
    );
    // Assistant text once (not also from the agent_message events), with phase.
    assert_eq!(
        assistants(&t),
        vec![
            "Looking at the cart module first.",
            "Added the cart total; `pnpm test` passes.",
            "The layout is fixed.",
        ]
    );
    let phases: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.role == Role::Assistant => m.phase,
            _ => None,
        })
        .collect();
    assert_eq!(phases.len(), 3);
    let c = calls(&t);
    assert_eq!(c.len(), 5);
    assert_eq!(
        (c[0].input.as_str(), c[0].exit_code, c[0].failed),
        ("npm test", Some(1), true)
    );
    assert!(c[0].output.as_deref().unwrap().contains("uses pnpm"));
    assert!(
        !c[0].output.as_deref().unwrap().contains("Chunk ID"),
        "header stripped"
    );
    assert_eq!(
        (c[1].input.as_str(), c[1].exit_code),
        ("pnpm test", Some(0))
    );
    assert_eq!(c[2].name, "apply_patch");
    assert_eq!(c[2].exit_code, Some(0));
    assert_eq!(c[4].name, "web_search");
    let all = serde_json::to_string(&t.events).unwrap();
    for leaked in [
        "AGENTS.md",
        "environment_context",
        "permissions instructions",
        "gAAAA",
        "base64",
        "turn_aborted",
    ] {
        assert!(!all.contains(leaked), "{leaked} leaked into the transcript");
    }
    assert_eq!(t.stats.malformed, 0);
}

#[test]
fn codex_early_envelope_reads_json_wrapped_exit_codes() {
    let t = read(&codex_fixture("213141516171"), Tool::Codex);
    assert_eq!(t.info.cli_version.as_deref(), Some("0.47.0"));
    assert_eq!(humans(&t).len(), 2);
    let c = calls(&t);
    assert_eq!(c[0].input, "ls -la");
    assert_eq!(c[0].exit_code, Some(0));
    assert_eq!(c[1].exit_code, Some(1));
    assert_eq!(
        c[1].output.as_deref(),
        Some("SyntaxError: Unexpected token\n")
    );
}

#[test]
fn codex_pre_envelope_generation_with_crlf() {
    let path = codex_fixture("1c2d3e4f5a6b");
    assert!(
        std::fs::read(&path)
            .unwrap()
            .windows(2)
            .any(|w| w == b"\r\n")
    );
    let t = read(&path, Tool::Codex);
    assert_eq!(t.info.id, "4b9f2c1e-8a7d-4e6f-9b0a-1c2d3e4f5a6b");
    assert_eq!(
        t.info.cwd.as_deref(),
        Some("/home/lee/tool"),
        "from environment_context"
    );
    assert_eq!(t.info.git_branch.as_deref(), Some("main"));
    assert_eq!(
        humans(&t),
        vec![
            "Why does `make check` fail?",
            "Fix it — and remember: tests run with make check, never cargo test directly.",
        ]
    );
    let c = calls(&t);
    assert_eq!(
        (c[0].input.as_str(), c[0].exit_code),
        ("make check", Some(2))
    );
    assert_eq!(t.stats.malformed, 0);
}

#[test]
fn codex_subagent_and_exec_sources() {
    let sub = read(&codex_fixture("444455556666"), Tool::Codex);
    assert_eq!(sub.info.source, "subagent");
    assert_eq!(
        sub.info.parent_id.as_deref(),
        Some("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    );
    let exec = read(&codex_fixture("555566667777"), Tool::Codex);
    assert_eq!(exec.info.source, "exec");
    assert_eq!(exec.info.memory_mode, "disabled");
}

#[test]
fn codex_0169_resumed_thread_mixing_generations() {
    let t = read(&codex_fixture("0123456789ab"), Tool::Codex);
    assert_eq!(t.info.id, "01a23100-aaaa-7bbb-8ccc-0123456789ab");
    assert_eq!(t.info.cwd.as_deref(), Some("/home/dev/notes-app"));
    assert_eq!(t.info.source, "cli");
    assert_eq!(t.info.memory_mode, "enabled");
    assert_eq!(t.stats.malformed, 0);
    // Each human message once, whichever event forms hold it; the AGENTS.md
    // message carrying memkit's own block is never the human.
    assert_eq!(
        humans(&t),
        vec![
            "Run the tests with pnpm, never npm.",
            "fix the failing test",
            "what about the screenshot\n[image]"
        ]
    );
    assert_eq!(
        assistants(&t),
        vec![
            "The tests fail in src/a.test.ts.",
            "Fixed: the test passes now.",
            "There is no screenshots folder."
        ],
        "AgentMessage + response item are one reply; a reply without its twin still counts"
    );
    let summary: Vec<(&str, &str, Option<i64>, bool)> = calls(&t)
        .iter()
        .map(|c| (c.name.as_str(), c.input.as_str(), c.exit_code, c.failed))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("exec_command", "pnpm test", Some(1), true),
            (
                "exec_command",
                "pnpm vitest run src/a.test.ts",
                Some(1),
                true
            ),
            ("exec_command", "git diff --stat", Some(0), false),
            ("exec_command", "pnpm test", Some(0), false),
            ("exec_command", "ls screenshots", None, true),
        ],
        "the code-mode script is shown as the commands it ran"
    );
    assert!(
        !calls(&t)
            .iter()
            .any(|c| c.input.contains("tools.exec_command")),
        "no JavaScript"
    );
    let cited: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) => m.citation.as_ref(),
            _ => None,
        })
        .collect();
    assert_eq!(cited.len(), 1);
    assert_eq!(
        cited[0].rollout_ids,
        vec!["019a0b0c-0d0e-7f10-8111-213141516171"]
    );
    assert_eq!(cited[0].entries.len(), 1, "block and field merged");
    assert_eq!(
        (cited[0].entries[0].line_start, cited[0].entries[0].line_end),
        (4, 6)
    );
}

#[test]
fn codex_0169_reply_order_and_twins() {
    let dir = temp_dir();
    let meta = r#"{"timestamp":"2026-11-28T10:00:00.000Z","ordinal":0,"type":"session_meta","payload":{"id":"01a23100-0000-7000-8000-000000000001","cwd":"/w","source":"exec"}}"#;
    let item = |id: &str, text: &str| {
        format!(
            r#"{{"timestamp":"2026-11-28T10:00:01.000Z","ordinal":1,"type":"event_msg","payload":{{"type":"item_completed","item":{{"type":"AgentMessage","id":"{id}","content":[{{"type":"Text","text":"{text}"}}]}}}}}}"#
        )
    };
    let response = |id: &str, text: &str| {
        format!(
            r#"{{"timestamp":"2026-11-28T10:00:02.000Z","ordinal":2,"type":"response_item","payload":{{"type":"message","id":"{id}","role":"assistant","phase":"final_answer","content":[{{"type":"output_text","text":"{text}"}}]}}}}"#
        )
    };
    // The response item first, then its AgentMessage twin; then two
    // different replies back to back.
    let text = [
        meta.to_string(),
        response("m1", "first"),
        item("m1", "first"),
        item("m2", "second"),
        item("m3", "third"),
        response("m3", "third"),
    ]
    .join("\n");
    let path = write(
        &dir,
        "rollout-2026-11-28T10-00-00-01a23100-0000-7000-8000-000000000001.jsonl",
        text.as_bytes(),
    );
    let t = read(&path, Tool::Codex);
    assert_eq!(assistants(&t), vec!["first", "second", "third"]);
    let finals: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.role == Role::Assistant => Some(m.phase.is_some()),
            _ => None,
        })
        .collect();
    assert_eq!(
        finals,
        vec![true, false, true],
        "the response item's phase wins"
    );
}

#[test]
fn codex_0169_unusual_orderings_lose_nothing_and_double_nothing() {
    let dir = temp_dir();
    let id = "01a23100-0000-7000-8000-000000000002";
    let env = |kind: &str, payload: serde_json::Value| {
        serde_json::json!({"timestamp": "2026-11-28T10:00:01.000Z", "type": kind, "payload": payload}).to_string()
    };
    let item = |item: serde_json::Value| {
        env(
            "event_msg",
            serde_json::json!({"type": "item_completed", "item": item}),
        )
    };
    let command = |id: &str, cmd: &str, code: i64| {
        item(
            serde_json::json!({"type": "CommandExecution", "id": id, "command": ["/bin/bash", "-lc", cmd],
            "status": "completed", "aggregated_output": format!("{cmd} ran\n"), "exit_code": code}),
        )
    };
    let lines = [
        env(
            "session_meta",
            serde_json::json!({"id": id, "cwd": "/w", "source": "cli"}),
        ),
        // A human message with an image, in both forms (item first).
        item(
            serde_json::json!({"type": "UserMessage", "id": "u1", "content": [
            {"type": "text", "text": "look at this"}, {"type": "image", "url": "data:image/png;base64,AAAA"}]}),
        ),
        env(
            "event_msg",
            serde_json::json!({"type": "user_message", "message": "look at this", "images": ["data:image/png;base64,AAAA"]}),
        ),
        // Two code-mode scripts at once; only the first runs a command.
        env(
            "response_item",
            serde_json::json!({"type": "custom_tool_call", "call_id": "s1", "name": "exec", "input": "await tools.exec_command({cmd: 'ls'})"}),
        ),
        env(
            "response_item",
            serde_json::json!({"type": "custom_tool_call", "call_id": "s2", "name": "exec", "input": "text(await tools.read_file('x'))"}),
        ),
        command("exec-1", "ls", 0),
        env(
            "response_item",
            serde_json::json!({"type": "custom_tool_call_output", "call_id": "s1", "output": "Script completed"}),
        ),
        env(
            "response_item",
            serde_json::json!({"type": "custom_tool_call_output", "call_id": "s2", "output": "CONTENT OF X"}),
        ),
        // A command recorded before its call.
        command("call_9", "make test", 2),
        env(
            "response_item",
            serde_json::json!({"type": "function_call", "call_id": "call_9", "name": "exec_command", "arguments": "{\"cmd\":\"make test\"}"}),
        ),
        env(
            "response_item",
            serde_json::json!({"type": "function_call_output", "call_id": "call_9", "output": "Process exited with code 2\nOutput:\nfail\n"}),
        ),
        // A reply without an id first, then its AgentMessage.
        env(
            "response_item",
            serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Both done."}]}),
        ),
        item(
            serde_json::json!({"type": "AgentMessage", "id": "m1", "content": [{"type": "Text", "text": "Both done."}]}),
        ),
    ];
    let path = write(
        &dir,
        &format!("rollout-2026-11-28T10-00-00-{id}.jsonl"),
        lines.join("\n").as_bytes(),
    );
    let t = read(&path, Tool::Codex);
    assert_eq!(
        humans(&t),
        vec!["look at this\n[image]"],
        "one human message"
    );
    assert_eq!(assistants(&t), vec!["Both done."], "one reply");
    let inputs: Vec<(&str, Option<i64>)> = calls(&t)
        .iter()
        .map(|c| (c.input.as_str(), c.exit_code))
        .collect();
    assert_eq!(
        inputs,
        vec![
            ("ls", Some(0)),
            ("await tools.exec_command({cmd: 'ls'})", None),
            ("text(await tools.read_file('x'))", None),
            ("make test", Some(2)),
        ],
        "with two scripts running nothing is dropped; a command recorded before its call is shown once"
    );
    assert!(
        calls(&t)
            .iter()
            .any(|c| c.output.as_deref() == Some("CONTENT OF X")),
        "the second script's output is kept"
    );
}

#[test]
fn codex_unified_exec_command_still_running_takes_its_exit_code_from_exec_command_end() {
    let dir = temp_dir();
    let id = "019da9bd-0000-7000-8000-000000000003";
    let env = |kind: &str, payload: serde_json::Value| {
        serde_json::json!({"timestamp": "2026-04-20T07:18:46.000Z", "type": kind, "payload": payload}).to_string()
    };
    let call = |call_id: &str, name: &str, args: serde_json::Value| {
        env(
            "response_item",
            serde_json::json!({"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": call_id}),
        )
    };
    let output = |call_id: &str, text: &str| {
        env(
            "response_item",
            serde_json::json!({"type": "function_call_output", "call_id": call_id, "output": text}),
        )
    };
    let running = |session: u32, out: &str| {
        format!(
            "Chunk ID: f000bb\nWall time: 1.0024 seconds\nProcess running with session ID {session}\nOriginal token count: 9\nOutput:\n{out}"
        )
    };
    let ended = |call_id: &str, code: i64| {
        env(
            "event_msg",
            serde_json::json!({"type": "exec_command_end", "call_id": call_id, "process_id": "51515",
                "aggregated_output": "", "exit_code": code, "status": if code == 0 { "completed" } else { "failed" }}),
        )
    };
    let reply = |text: &str| {
        env(
            "response_item",
            serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
        )
    };
    let mut lines = vec![
        env(
            "session_meta",
            serde_json::json!({"id": id, "cwd": "/w", "source": "cli"}),
        ),
        // Still running after its first second; ends with 1 a record later.
        call(
            "c1",
            "exec_command",
            serde_json::json!({"cmd": "mise run test-all", "yield_time_ms": 1000}),
        ),
        output("c1", &running(51515, "[test-unit] ok\n")),
        ended("c1", 1),
        // Still running; the agent polls it and says something before it ends.
        call(
            "c2",
            "exec_command",
            serde_json::json!({"cmd": "mise run build"}),
        ),
        output("c2", &running(7, "[build] $ go build\n")),
        call(
            "p2",
            "write_stdin",
            serde_json::json!({"session_id": 7, "chars": ""}),
        ),
        output(
            "p2",
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\ndone\n",
        ),
        reply("The build is done."),
        ended("c2", 0),
        // Still running and never ended within the wait: passed on as read.
        call(
            "c3",
            "exec_command",
            serde_json::json!({"cmd": "npm run dev"}),
        ),
        output("c3", &running(9, "listening on 5173\n")),
    ];
    for n in 0..40 {
        lines.push(reply(&format!("waiting {n}")));
    }
    let path = write(
        &dir,
        &format!("rollout-2026-04-20T07-18-46-{id}.jsonl"),
        (lines.join("\n") + "\n").as_bytes(),
    );
    let t = read(&path, Tool::Codex);
    let by_input = |input: &str| {
        calls(&t)
            .into_iter()
            .find(|c| c.input == input)
            .unwrap_or_else(|| panic!("no call {input}"))
            .clone()
    };
    let test = by_input("mise run test-all");
    assert_eq!((test.exit_code, test.failed), (Some(1), true));
    let build = by_input("mise run build");
    assert_eq!((build.exit_code, build.failed), (Some(0), false));
    let server = by_input("npm run dev");
    assert_eq!(
        server.exit_code, None,
        "no end event: the exit stays unknown"
    );
    assert!(
        server
            .output
            .as_deref()
            .unwrap()
            .contains("listening on 5173")
    );
    let order: Vec<u64> = t
        .events
        .iter()
        .map(|e| match e {
            Event::Message(m) => m.line,
            Event::ToolCall(c) => c.line,
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(
        order, sorted,
        "held commands keep their place in the transcript"
    );
    assert_eq!(t.events.len(), 3 + 1 + 1 + 40, "nothing lost or doubled");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn memkit_block_coming_back_from_a_hook_is_not_the_human() {
    let dir = temp_dir();
    let line = |text: &str, uuid: &str| {
        serde_json::json!({"type": "user", "uuid": uuid, "sessionId": "5b77aad0-0000-4000-8000-000000000001",
            "cwd": "/w", "timestamp": "2026-11-28T10:00:00.000Z",
            "message": {"role": "user", "content": text}})
        .to_string()
    };
    let text = [
        line(
            "SessionStart hook additional context: [memkit memory, part 1 of 2]\n## Memory\n========= MEMORY_SUMMARY BEGINS =========\nv1",
            "u1",
        ),
        line(
            "[memkit memory, part 2 of 2]\n- fact b\n========= MEMORY_SUMMARY ENDS =========",
            "u3",
        ),
        line(
            "## Memory\n========= MEMORY_SUMMARY BEGINS =========\nv1\n========= MEMORY_SUMMARY ENDS =========",
            "u4",
        ),
        line("add a login page", "u2"),
        line(
            "why does AGENTS.md have a <!-- memkit:begin line? take it out",
            "u5",
        ),
    ]
    .join("\n");
    let path = write(
        &dir,
        "5b77aad0-0000-4000-8000-000000000001.jsonl",
        text.as_bytes(),
    );
    let t = read(&path, Tool::Claude);
    assert_eq!(
        humans(&t),
        vec![
            "add a login page",
            "why does AGENTS.md have a <!-- memkit:begin line? take it out"
        ],
        "every part of the block is context; a question about it is the human's"
    );
}

#[test]
fn claude_main_session_assembles_and_pairs() {
    let path = fixtures_dir()
        .join("claude/projects/-home-dev-api/7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.jsonl");
    let t = read(&path, Tool::Claude);
    assert_eq!(t.info.id, "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6");
    assert_eq!(t.info.cwd.as_deref(), Some("/home/dev/api"));
    assert_eq!(t.info.git_branch.as_deref(), Some("fix/login"));
    assert_eq!(t.info.cli_version.as_deref(), Some("2.1.40"));
    assert_eq!(
        humans(&t),
        vec![
            "The login test is flaky. Please use yarn, not npm, in this repo.",
            "Now add a regression test for it. [image]",
        ]
    );
    // Split lines of msg_1 assembled; the duplicated msg_4 line counted once;
    // the <synthetic> API error dropped.
    assert_eq!(
        assistants(&t),
        vec![
            "I'll run the login test.",
            "Fixed the race in login.ts; `yarn test login` passes.",
            "Added test/login.race.test.ts.",
        ]
    );
    let c = calls(&t);
    assert_eq!(c.len(), 4);
    assert_eq!(
        (c[0].name.as_str(), c[0].input.as_str()),
        ("Bash", "npm test -- login")
    );
    assert_eq!((c[0].exit_code, c[0].failed), (Some(1), true));
    assert_eq!((c[1].exit_code, c[1].failed), (Some(0), false));
    assert_eq!(c[2].input, "/home/dev/api/src/login.ts");
    let all = serde_json::to_string(&t.events).unwrap();
    for leaked in [
        "system-reminder",
        "Caveat",
        "/compact",
        "continued from a previous",
        "Request interrupted",
        "API Error",
        "Let me look",
    ] {
        assert!(!all.contains(leaked), "{leaked} leaked into the transcript");
    }
}

#[test]
fn claude_inline_sidechain_is_not_the_main_dialogue() {
    let path = fixtures_dir()
        .join("claude/projects/-path-to-Demo/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl");
    let t = read(&path, Tool::Claude);
    assert_eq!(
        humans(&t),
        vec![
            "/orchestrator create a todo app",
            "Thanks! Please update CLAUDE.md for current changes"
        ]
    );
    let c = calls(&t);
    assert_eq!(
        c.len(),
        1,
        "the sidechain's Write call belongs to the sub-agent"
    );
    assert_eq!(c[0].name, "Task");
    assert_eq!(c[0].output.as_deref(), Some("types.ts created"));
    assert_eq!(t.info.git_branch, None, "empty branch means no branch");
}

#[test]
fn claude_subagent_layouts() {
    for rel in [
        "claude/projects/-home-dev-api/agent-a1b2c3d.jsonl",
        "claude/projects/-home-dev-api/7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6/subagents/agent-e4f5a6b.jsonl",
    ] {
        let t = read(&fixtures_dir().join(rel), Tool::Claude);
        assert_eq!(t.info.source, "subagent", "{rel}");
        assert!(
            t.info
                .id
                .starts_with("7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6-agent-"),
            "{}",
            t.info.id
        );
        assert_eq!(
            t.info.parent_id.as_deref(),
            Some("7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6")
        );
        assert_eq!(humans(&t).len(), 0, "the parent agent is not a human");
        assert_eq!(calls(&t).len(), 1);
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn fixture_bytes(id_suffix: &str) -> Vec<u8> {
    std::fs::read(codex_fixture(id_suffix)).unwrap()
}

#[test]
fn truncated_last_line_is_skipped_silently() {
    let dir = temp_dir();
    let mut bytes = fixture_bytes("213141516171");
    bytes.extend_from_slice(br#"{"timestamp":"2025-10-20T08:00:10.000Z","type":"event_msg","payload":{"type":"user_mess"#);
    let p = write(
        &dir,
        "rollout-2025-10-20T10-00-00-019a0b0c-0d0e-7f10-8111-213141516171.jsonl",
        &bytes,
    );
    let t = read(&p, Tool::Codex);
    assert!(t.stats.partial_tail);
    assert_eq!(t.stats.malformed, 0);
    assert_eq!(humans(&t).len(), 2);
}

#[test]
fn crlf_and_bom_are_transparent() {
    let dir = temp_dir();
    let plain = fixture_bytes("0c1d2e3f4a5b");
    let mut bom_crlf = vec![0xEF, 0xBB, 0xBF];
    bom_crlf.extend(
        String::from_utf8(plain.clone())
            .unwrap()
            .replace('\n', "\r\n")
            .into_bytes(),
    );
    let name = "rollout-2026-03-02T11-00-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
    let a = read(&write(&temp_dir(), name, &plain), Tool::Codex);
    let b = read(&write(&dir, name, &bom_crlf), Tool::Codex);
    assert_eq!(a.events, b.events);
    assert_eq!(a.info, b.info);
    assert_eq!(b.stats.malformed, 0);
}

#[test]
fn garbage_line_in_the_middle_is_skipped_and_reported_with_its_line() {
    let dir = temp_dir();
    let text = String::from_utf8(fixture_bytes("213141516171")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(4, "this is {not json");
    let p = write(
        &dir,
        "rollout-2025-10-20T10-00-00-019a0b0c-0d0e-7f10-8111-213141516171.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let t = read(&p, Tool::Codex);
    assert_eq!(t.stats.malformed, 1);
    assert_eq!(t.stats.malformed_lines, vec![5]);
    let summary = t.stats.malformed_summary(&p).unwrap();
    assert!(summary.contains(&format!("{}:5", p.display())), "{summary}");
    assert_eq!(humans(&t).len(), 2, "the rest is still read");
}

#[test]
fn empty_file_is_an_error_naming_it() {
    let dir = temp_dir();
    let p = write(
        &dir,
        "rollout-2026-01-01T00-00-00-019a0b0c-0d0e-7f10-8111-000000000000.jsonl",
        b"\n\n",
    );
    let err = read_transcript(&p, Tool::Codex, ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("empty session file"), "{err}");
    assert!(err.to_string().contains(&p.display().to_string()));
}

#[test]
fn zstd_copy_reads_like_the_plain_file() {
    let dir = temp_dir();
    let src = codex_fixture("0c1d2e3f4a5b");
    let plain = std::fs::read(&src).unwrap();
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let z = write(
        &dir,
        &format!("{name}.zst"),
        &zstd::encode_all(&plain[..], 3).unwrap(),
    );
    let a = read(&src, Tool::Codex);
    let b = read(&z, Tool::Codex);
    assert_eq!(a.info, b.info);
    assert_eq!(a.events, b.events);
}

#[test]
fn five_megabyte_single_line_is_fine() {
    let dir = temp_dir();
    let mut text = String::from_utf8(fixture_bytes("213141516171")).unwrap();
    let big = "x".repeat(5 * 1024 * 1024);
    let line = serde_json::json!({
        "timestamp": "2025-10-20T08:00:20.000Z",
        "type": "event_msg",
        "payload": {"type": "user_message", "message": format!("paste: {big}")}
    });
    text.push_str(&line.to_string());
    text.push('\n');
    let p = write(
        &dir,
        "rollout-2025-10-20T10-00-00-019a0b0c-0d0e-7f10-8111-213141516171.jsonl",
        text.as_bytes(),
    );
    let t = read(&p, Tool::Codex);
    assert_eq!(humans(&t).len(), 3);
    assert!(humans(&t)[2].len() > 5 * 1024 * 1024);
    let bounded = read_transcript(
        &p,
        Tool::Codex,
        ReadOptions {
            max_output_bytes: None,
            max_message_bytes: Some(1000),
        },
    )
    .unwrap();
    let last = humans(&bounded)[2];
    assert!(last.len() < 1100 && last.contains("tokens truncated"));
}
