//! `memkit extract` end to end against a mock model server on 127.0.0.1.

mod common;

use common::mock::{MockServer, Response, chat_answer, responses_answer, stage_one};
use common::{TestEnv, command_extractor, json_lines, thread_id};
use std::time::Duration;

fn config_for(server: &MockServer, backend: &str, extra: &str) -> String {
    format!(
        "[extract]\nbackend = \"{backend}\"\nbase_url = \"{}/v1\"\nmodel = \"test-model\"\napi_key_env = \"MEMKIT_TEST_KEY\"\nmax_retries = 2\n{extra}\n",
        server.url
    )
}

fn env_with_key() -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MEMKIT_TEST_KEY".into(), "test-key-123".into()));
    env
}

fn summary(stdout: &str) -> serde_json::Value {
    json_lines(stdout)
        .into_iter()
        .find(|v| v["kind"] == "summary")
        .expect("a summary line")
}

#[test]
fn openai_backend_speaks_the_responses_api_and_never_sends_secrets() {
    let server =
        MockServer::start(|_, _| Response::json(200, responses_answer(&stage_one("cart"))));
    let env = env_with_key();
    env.write_config(&config_for(&server, "openai", ""));
    let secret = format!("sk-{}", "A1b2C3d4".repeat(5));
    env.write_codex_session(
        &thread_id(1),
        &[
            &format!("Deploy with OPENAI_API_KEY={secret} please"),
            "We use pnpm here, not npm.",
        ],
    );
    let out = env.ok(&["extract", "--json"]);
    let s = summary(&out);
    assert_eq!(s["succeeded"], 1, "{out}");
    assert_eq!(
        s["read_once"], 1,
        "the scan's read gave the input (and redacted it too): {out}"
    );
    assert_eq!(s["tokens_in"], 1200, "tokens come from the response usage");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/responses")
    );
    assert_eq!(r.header("authorization"), Some("Bearer test-key-123"));
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["text"]["format"]["type"], "json_schema");
    assert_eq!(body["text"]["format"]["strict"], true);
    let schema = &body["text"]["format"]["schema"];
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["required"],
        serde_json::json!(["rollout_summary", "rollout_slug", "raw_memory"])
    );
    assert!(
        body["instructions"]
            .as_str()
            .unwrap()
            .contains("long-term memory")
    );
    let user = body["input"][0]["content"][0]["text"].as_str().unwrap();
    assert!(user.contains("[user] We use pnpm here, not npm."), "{user}");
    assert!(user.contains("$ make test-0  (ok)"), "{user}");
    for req in &reqs {
        assert!(!req.body.contains(&secret), "the secret left for the model");
    }
    assert!(user.contains("[REDACTED_SECRET]"));
    assert_eq!(env.count("SELECT COUNT(*) FROM stage1_outputs"), 1);
    let (backend, model): (String, String) = env
        .db()
        .query_row("SELECT backend, model FROM stage1_outputs", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((backend.as_str(), model.as_str()), ("openai", "test-model"));
}

#[test]
fn chat_backend_speaks_chat_completions_without_a_key() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("chat"))));
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(2), &["Fix the flaky test"]);
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["succeeded"], 1);
    assert_eq!(s["backend"], "chat");
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["role"], "user");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["rollout_slug"]["type"],
        serde_json::json!(["string", "null"])
    );
}

#[test]
fn backend_flag_overrides_the_config() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("x"))));
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "heuristic", ""));
    env.write_codex_session(&thread_id(3), &["Fix the flaky test"]);
    env.ok(&["extract", "--backend", "chat"]);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn over_budget_transcripts_carry_the_truncation_marker() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("big"))));
    let env = TestEnv::new();
    env.write_config(&format!(
        "extract_input_tokens = 1000\n{}",
        config_for(&server, "chat", "")
    ));
    let humans: Vec<String> = (0..200)
        .map(|i| format!("step {i}: please refactor module {i} carefully"))
        .collect();
    let refs: Vec<&str> = humans.iter().map(String::as_str).collect();
    env.write_codex_session(&thread_id(4), &refs);
    env.ok(&["extract"]);
    let body = server.requests()[0].json();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("tokens truncated"), "no marker");
    assert!(
        user.contains("step 0:") && user.contains("step 199:"),
        "head and tail kept"
    );
    assert!(!user.contains("step 100:"), "the middle is cut");
}

#[test]
fn malformed_answers_fail_and_schedule_a_retry() {
    let server = MockServer::start(|_, _| {
        Response::json(200, chat_answer(&serde_json::json!({"raw_memory": "x"})))
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(5), &["Fix the flaky test"]);
    let out = env.run(&["extract", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed session is a failed run"
    );
    let s = summary(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(s["failed"], 1);
    let (status, retry_at, remaining, err): (String, i64, i64, String) = env.db()
        .query_row("SELECT status, retry_at, retry_remaining, last_error FROM jobs WHERE kind = 'memory_stage1'", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap();
    assert_eq!(status, "error");
    assert_eq!(remaining, 2);
    assert!(
        retry_at > memkit::util::time::now_secs() + 3000,
        "retry in about an hour"
    );
    assert!(err.contains("not the expected JSON"), "{err}");
    // The next run respects the backoff and says so.
    let again = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(again["skipped"]["in_backoff"], 1);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn rate_limited_then_ok_succeeds() {
    let server = MockServer::start(|_, i| {
        if i == 0 {
            Response::json(429, serde_json::json!({"error": {"message": "slow down"}}))
                .with_header("retry-after", "0")
        } else {
            Response::json(200, chat_answer(&stage_one("retry")))
        }
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(6), &["Fix the flaky test"]);
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["succeeded"], 1);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn server_errors_show_status_and_body() {
    let server = MockServer::start(|_, _| {
        Response::json(503, serde_json::json!({"error": "model overloaded"}))
            .with_header("retry-after", "0")
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(7), &["Fix the flaky test"]);
    let out = env.run(&["extract"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("HTTP 503") && err.contains("model overloaded"),
        "{err}"
    );
    assert_eq!(
        server.requests().len(),
        3,
        "one try and max_retries = 2 retries"
    );
}

#[test]
fn read_timeout_fails_the_session() {
    let server = MockServer::start(|_, _| {
        Response::json(200, chat_answer(&stage_one("late"))).delayed(Duration::from_secs(3))
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", "timeout = \"1s\""));
    env.write_codex_session(&thread_id(8), &["Fix the flaky test"]);
    let out = env.run(&["extract", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let session = lines.iter().find(|v| v["kind"] == "session").unwrap();
    assert_eq!(session["outcome"], "failed");
    assert!(
        session["reason"].as_str().unwrap().contains("timed out"),
        "{session}"
    );
}

#[test]
fn pool_runs_at_most_eight_requests_at_once() {
    let server = MockServer::start(|_, _| {
        Response::json(200, chat_answer(&stage_one("p"))).delayed(Duration::from_millis(200))
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    for i in 0..16 {
        env.write_codex_session(&thread_id(100 + i), &["Fix the flaky test"]);
    }
    let s = summary(&env.ok(&["extract", "--json", "--jobs", "8"]));
    assert_eq!(s["succeeded"], 16);
    assert_eq!(server.requests().len(), 16);
    assert_eq!(server.max_in_flight(), 8);
    let bad = env.run(&["extract", "--jobs", "9"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn two_processes_send_each_session_exactly_once() {
    let server = MockServer::start(|_, _| {
        Response::json(200, chat_answer(&stage_one("p"))).delayed(Duration::from_millis(50))
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    let ids: Vec<String> = (0..20).map(|i| thread_id(200 + i)).collect();
    for id in &ids {
        env.write_codex_session(id, &["Fix the flaky test"]);
    }
    env.ok(&["scan"]);
    let quiet = |c: &mut std::process::Command| {
        c.args(["extract", "--jobs", "4"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let a = quiet(&mut env.cmd());
    let b = quiet(&mut env.cmd());
    assert!(a.wait_with_output().unwrap().status.success());
    assert!(b.wait_with_output().unwrap().status.success());
    let reqs = server.requests();
    for id in &ids {
        let n = reqs
            .iter()
            .filter(|r| r.body.contains(&format!("Session: {id}")))
            .count();
        assert_eq!(n, 1, "{id} was sent {n} times");
    }
    assert_eq!(env.count("SELECT COUNT(*) FROM stage1_outputs"), 20);
}

#[test]
fn dry_run_calls_nothing_and_claims_nothing() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("d"))));
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(9), &["Fix the flaky test"]);
    let out = env.ok(&["extract", "--dry-run"]);
    assert!(
        out.contains(&format!("would extract {}", thread_id(9))),
        "{out}"
    );
    assert!(out.contains("input tokens"));
    assert!(server.requests().is_empty());
    assert_eq!(env.count("SELECT COUNT(*) FROM jobs"), 0);
    assert_eq!(env.count("SELECT COUNT(*) FROM runs"), 0);
}

#[test]
fn second_run_finds_everything_up_to_date() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("u"))));
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(10), &["Fix the flaky test"]);
    env.write_codex_session(&thread_id(11), &["Fix the other test"]);
    env.ok(&["extract"]);
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["claimed"], 0);
    assert_eq!(s["skipped"]["up_to_date"], 2);
    assert_eq!(server.requests().len(), 2);
    let forced = summary(&env.ok(&["extract", "--json", "--force", "--limit", "1"]));
    assert_eq!(forced["succeeded"], 1);
    assert_eq!(
        forced["read_once"], 0,
        "an unchanged file is read for its input"
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn empty_answer_is_no_output_and_whitespace_counts_as_empty() {
    let server = MockServer::start(|_, _| {
        Response::json(
            200,
            chat_answer(
                &serde_json::json!({"raw_memory": "  \n", "rollout_summary": "\t", "rollout_slug": null}),
            ),
        )
    });
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    env.write_codex_session(&thread_id(12), &["hi"]);
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["no_output"], 1);
    assert_eq!(env.count("SELECT COUNT(*) FROM stage1_outputs"), 0);
}

#[test]
fn explicit_thread_ignores_the_idle_window() {
    let server = MockServer::start(|_, _| Response::json(200, chat_answer(&stage_one("now"))));
    let env = TestEnv::new();
    env.write_config(&config_for(&server, "chat", ""));
    let path = env.write_codex_session(&thread_id(13), &["Fix the flaky test"]);
    common::set_mtime(&path, std::time::SystemTime::now());
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["not_eligible"]["too_recent"], 1);
    let s = summary(&env.ok(&["extract", "--json", "--thread", &thread_id(13)[..12]]));
    assert_eq!(s["succeeded"], 1);
    let other = env.write_codex_session(&thread_id(14), &["Another"]);
    common::set_mtime(&other, std::time::SystemTime::now());
    let s = summary(&env.ok(&["extract", "--json", "--file", &other.display().to_string()]));
    assert_eq!(s["succeeded"], 1);
}

#[test]
fn command_backend_gets_the_request_on_stdin() {
    let env = TestEnv::new();
    let seen = env.root.join("seen.json");
    let script = env.script(
        "extractor.sh",
        &format!(
            "cat > '{}'\nprintf '%s' '{}'",
            seen.display(),
            stage_one("cmd").to_string().replace('\'', "")
        ),
    );
    env.write_config(&command_extractor(&script));
    env.write_codex_session(&thread_id(15), &["Fix the flaky test"]);
    let s = summary(&env.ok(&["extract", "--json"]));
    assert_eq!(s["succeeded"], 1, "{s}");
    let request: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert!(
        request["user"]
            .as_str()
            .unwrap()
            .contains("Fix the flaky test")
    );
    assert_eq!(request["schema_name"], "stage_one_output");

    std::fs::write(&script, "#!/bin/sh\necho broken >&2\nexit 3\n").unwrap();
    env.write_codex_session(&thread_id(16), &["Another task"]);
    let out = env.run(&["extract", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("status 3") && err.contains("broken"), "{err}");
}

#[test]
fn each_call_is_booked_in_money_and_max_cost_per_run_defers_the_rest() {
    let server =
        MockServer::start(|_, _| Response::json(200, responses_answer(&stage_one("cart"))));
    let env = env_with_key();
    // 1200 tokens in, 300 out per call (the mock's usage): at 1.0 / 10.0 per
    // million, 0.0042 a call.
    let prices =
        "[prices.test-model]\ninput = 1.0\noutput = 10.0\n[limits]\nmax_cost_per_run = 0.05\n";
    env.write_config(&config_for(&server, "openai", prices));
    for i in 0..3 {
        env.write_codex_session(&thread_id(i), &["We use pnpm here, not npm."]);
    }
    let out = env.ok(&["run", "--stages", "extract"]);
    assert!(
        out.contains("cost: tonight $0.0126 · this month $0.0126"),
        "{out}"
    );
    assert!(
        out.contains("Codex's own pipeline would have spent ≈ $0.0"),
        "the sessions are Codex's: {out}"
    );
    assert_eq!(
        env.count("SELECT count(*) FROM ledger WHERE stage = 'extract'"),
        3
    );
    assert_eq!(
        env.count("SELECT sum(tokens_in) FROM ledger WHERE model = 'test-model'"),
        3600
    );
    let status = env.ok(&["status"]);
    assert!(status.contains("cost         last run $0.0126"), "{status}");
    // A budget that holds one session's estimate but not two: the rest wait.
    for i in 3..6 {
        env.write_codex_session(&thread_id(i), &["We use pnpm here, not npm."]);
    }
    let tight = prices.replace("0.05", "0.02");
    env.write_config(&config_for(&server, "openai", &tight));
    let out = env.ok(&["run", "--stages", "extract"]);
    assert!(out.contains("left for the next run (cost budget)"), "{out}");
    assert!(env.count("SELECT count(*) FROM ledger") < 6, "{out}");
    // A limit on a model without a price cannot be kept: a usage error.
    env.write_config(&config_for(
        &server,
        "openai",
        "[limits]\nmax_cost_per_run = 1\n",
    ));
    let r = env.run(&["extract"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("[prices.\"test-model\"]"));
}
