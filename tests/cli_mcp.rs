//! `memkit mcp`: the stdio MCP server as an agent drives it — the handshake,
//! the five tools with their schemas, tool errors for bad arguments, and no
//! crash on any bad request.

mod common;

use common::TestEnv;
use serde_json::{Value, json};
use std::io::Write;
use std::process::Stdio;

/// Sends `lines` to a fresh `memkit mcp` and returns every answer, in order.
fn session(env: &TestEnv, lines: &[String]) -> Vec<Value> {
    let mut child = env
        .cmd()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for line in lines {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "memkit mcp exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn call(id: i64, tool: &str, args: Value) -> String {
    request(id, "tools/call", json!({"name": tool, "arguments": args}))
}

fn handshake() -> Vec<String> {
    vec![
        request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

/// The text of a tool result, asserting whether it is an error.
fn tool_text(answer: &Value, is_error: bool) -> String {
    assert_eq!(answer["result"]["isError"], is_error, "{answer}");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn env_with_memory() -> TestEnv {
    let env = TestEnv::new();
    let root = env.memory_root();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("MEMORY.md"),
        "# Memory handbook\n\n# Task Group: /home/dev/src/shop-api\nscope: 1 session in /home/dev/src/shop-api\n\n\
         ## Task 1: Ship it, success\n### rollout_summary_files\n- rollout_summaries/a.md (cwd=/home/dev/src/shop-api, updated_at=2026-11-03T10:00:00Z, thread_id=11111111-1111-4111-8111-111111111111, git_branch=main)\n### keywords\nrelease\n\n\
         ## Reusable knowledge\n- Production deploys go through `make ship-prod`. [Task 1]\n- `uv run pytest` works in shop-api (tests) [Task 1]\n",
    )
    .unwrap();
    env
}

#[test]
fn handshake_lists_the_tools_with_schemas_and_answers_only_requests() {
    let env = env_with_memory();
    let mut lines = handshake();
    lines.push(request(1, "tools/list", json!({})));
    lines.push(request(2, "ping", json!({})));
    lines.push(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}).to_string(),
    );
    let answers = session(&env, &lines);
    assert_eq!(
        answers.len(),
        3,
        "notifications get no answer: {answers:#?}"
    );
    let init = &answers[0]["result"];
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "memkit");
    assert!(init["capabilities"]["tools"].is_object());
    let tools = answers[1]["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "search_memories",
            "get_memory",
            "list_memories",
            "add_memory",
            "delete_memory"
        ]
    );
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["query"]));
    assert_eq!(answers[2], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[test]
fn an_unknown_protocol_version_gets_the_newest_known_one() {
    let env = env_with_memory();
    let old = request(0, "initialize", json!({"protocolVersion": "2024-11-05"}));
    let future = request(1, "initialize", json!({"protocolVersion": "2099-01-01"}));
    let answers = session(&env, &[old, future]);
    assert_eq!(answers[0]["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(answers[1]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn search_then_get_by_id_and_by_location() {
    let env = env_with_memory();
    let mut lines = handshake();
    lines.push(call(
        1,
        "search_memories",
        json!({"query": "how do we release?"}),
    ));
    let answers = session(&env, &lines);
    let text = tool_text(&answers[1], false);
    assert!(text.starts_with("1. MEMORY.md:13-13"), "{text}");
    assert!(text.contains("make ship-prod"), "{text}");
    let hit = &answers[1]["result"]["structuredContent"]["hits"][0];
    assert_eq!(hit["project"], "/home/dev/src/shop-api");
    let id = hit["id"].as_i64().unwrap();

    let answers = session(
        &env,
        &[
            call(2, "get_memory", json!({"id": id})),
            call(3, "get_memory", json!({"location": "MEMORY.md:12-14"})),
            call(4, "get_memory", json!({"location": "MEMORY.md"})),
        ],
    );
    assert_eq!(
        tool_text(&answers[0], false),
        "MEMORY.md:13-13\n- Production deploys go through `make ship-prod`. [Task 1]"
    );
    let around = tool_text(&answers[1], false);
    assert!(
        around.starts_with("MEMORY.md:12-14\n## Reusable knowledge"),
        "{around}"
    );
    assert_eq!(answers[2]["result"]["structuredContent"]["line_start"], 1);
}

#[test]
fn get_memory_never_reads_outside_the_memory_files() {
    let env = env_with_memory();
    let root = env.memory_root();
    let outside = env.root.join("outside.md");
    std::fs::write(&outside, "secret plans\n").unwrap();
    std::fs::create_dir_all(root.join("rollout_summaries")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("rollout_summaries/link.md")).unwrap();
    let tries = [
        "../memkit.sqlite",
        "/etc/passwd",
        "rollout_summaries/../../outside.md",
        "skills/../../../outside.md",
        "rollout_summaries/link.md",
        ".git/config",
        "phase2_workspace_diff.md",
    ];
    let lines: Vec<String> = tries
        .iter()
        .enumerate()
        .map(|(i, loc)| call(i as i64, "get_memory", json!({"location": loc})))
        .collect();
    for (answer, loc) in session(&env, &lines).iter().zip(tries) {
        let text = tool_text(answer, true);
        assert!(!text.contains("secret plans"), "{loc}: {text}");
    }
}

#[test]
fn add_memory_is_searchable_at_once_and_delete_memory_takes_it_back() {
    let env = env_with_memory();
    let added = session(
        &env,
        &[call(
            1,
            "add_memory",
            json!({"text": "The staging database resets every Monday; token sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"}),
        )],
    );
    let note = added[0]["result"]["structuredContent"]["note"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(note.starts_with("extensions/ad_hoc/notes/"), "{note}");
    let saved = std::fs::read_to_string(env.memory_root().join(&note)).unwrap();
    assert!(
        !saved.contains("Ab3dEf6hIj9kLm2n"),
        "notes are redacted: {saved}"
    );
    let name = note.rsplit('/').next().unwrap().to_string();
    let answers = session(
        &env,
        &[
            call(
                2,
                "search_memories",
                json!({"query": "when is staging wiped"}),
            ),
            call(3, "list_memories", json!({})),
            call(4, "delete_memory", json!({"note": name})),
            call(5, "search_memories", json!({"query": "staging Monday"})),
            call(6, "delete_memory", json!({"note": name})),
            call(7, "delete_memory", json!({"note": "../../MEMORY.md"})),
        ],
    );
    assert!(tool_text(&answers[0], false).contains("staging database"));
    assert!(tool_text(&answers[1], false).contains(&name));
    assert!(tool_text(&answers[2], false).starts_with("Deleted"));
    assert!(tool_text(&answers[3], false).starts_with("Nothing in memory matches"));
    tool_text(&answers[4], true);
    tool_text(&answers[5], true);
    assert!(env.memory_root().join("MEMORY.md").is_file());
}

#[test]
fn delete_memory_forgets_a_session() {
    let env = TestEnv::new();
    env.install_fixtures();
    env.ok(&["scan"]);
    let id: String = env
        .db()
        .query_row("SELECT id FROM threads ORDER BY id LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let answers = session(
        &env,
        &[
            call(1, "delete_memory", json!({"session": &id[..13]})),
            call(2, "delete_memory", json!({"session": "ffffffff-none"})),
            call(3, "delete_memory", json!({"session": id, "note": "x"})),
        ],
    );
    assert!(tool_text(&answers[0], false).contains(&id));
    let forgotten = env.count(&format!(
        "SELECT count(*) FROM threads WHERE id = '{id}' AND forgotten_at IS NOT NULL"
    ));
    assert_eq!(forgotten, 1);
    assert!(tool_text(&answers[1], true).contains("no session"));
    assert!(tool_text(&answers[2], true).contains("either"));
}

#[test]
fn bad_requests_get_errors_and_the_server_goes_on() {
    let env = env_with_memory();
    let long = format!("{{\"x\": \"{}\"}}", "a".repeat(5 * 1024 * 1024));
    let lines = vec![
        "not json".to_string(),
        "[1, 2]".to_string(),
        long,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}".to_string(),
        request(2, "resources/list", json!({})),
        request(3, "tools/call", json!({"name": "no_such_tool"})),
        request(4, "tools/call", json!({})),
        call(5, "search_memories", json!({})),
        call(6, "search_memories", json!({"query": 42})),
        call(7, "search_memories", json!({"query": "x", "limit": 0})),
        call(8, "search_memories", json!({"query": "x", "color": "red"})),
        call(9, "get_memory", json!({"location": "MEMORY.md:9-3"})),
        call(10, "get_memory", json!({"location": "MEMORY.md:999"})),
        request(
            11,
            "tools/call",
            json!({"name": "search_memories", "arguments": "deploy"}),
        ),
        format!(
            "[{}, {}]",
            request(12, "ping", json!({})),
            request(13, "ping", json!({}))
        ),
        call(14, "search_memories", json!({"query": "deploy"})),
    ];
    let answers = session(&env, &lines);
    assert_eq!(answers.len(), 16, "{answers:#?}");
    let code = |i: usize| answers[i]["error"]["code"].clone();
    assert_eq!(code(0), -32700, "not JSON");
    let junk = answers[1]
        .as_array()
        .expect("a batch is answered as a batch");
    assert!(
        junk.iter().all(|a| a["error"]["code"] == -32600),
        "{junk:?}"
    );
    assert_eq!(code(2), -32700, "a message over the size cap");
    assert_eq!(
        (code(3), answers[3]["id"].clone()),
        (json!(-32600), json!(1))
    );
    assert_eq!(code(4), -32601, "no such method");
    assert_eq!(code(5), -32602, "no such tool");
    assert_eq!(code(6), -32602, "no tool name");
    for answer in &answers[7..14] {
        tool_text(answer, true);
    }
    let pings = answers[14].as_array().unwrap();
    assert_eq!(pings.len(), 2);
    assert!(tool_text(&answers[15], false).contains("ship-prod"));
}
