//! The `openai-batch` extraction backend end to end, against an emulator of
//! OpenAI's Files and Batches API on 127.0.0.1: one batch per night at half
//! the price, collected by a later run; partial failures retried, expired
//! and cancelled batches given back, a crash between upload and recording
//! finished without submitting twice, no session extracted twice when a
//! synchronous run overlaps, the synchronous fallback for a last retry.

mod common;

use common::batch_mock::{BatchMock, ItemOutcome, responses_body};
use common::mock::stage_one;
use common::{TestEnv, json_lines, thread_id};
use serde_json::Value;

/// An emulator whose requests all succeed, except those `fail` picks.
fn mock(fail: fn(&str) -> Option<ItemOutcome>) -> BatchMock {
    BatchMock::start(move |custom_id, _body| {
        fail(custom_id).unwrap_or_else(|| {
            ItemOutcome::Ok(responses_body(&stage_one(custom_id), 2_000, 500, 400))
        })
    })
}

fn config(mock: &BatchMock, extra: &str) -> String {
    format!(
        "[extract]\nbackend = \"openai-batch\"\nbase_url = \"{}\"\napi_key_env = \"MEMKIT_TEST_KEY\"\n\
         max_retries = 0\nbatch_poll_interval = \"1s\"\n{extra}\n",
        mock.url()
    )
}

fn env_with(mock: &BatchMock, sessions: usize, extra: &str) -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MEMKIT_TEST_KEY".into(), "test-key-123".into()));
    env.write_config(&config(mock, extra));
    for i in 0..sessions {
        env.write_codex_session(
            &thread_id(i),
            &["We use pnpm here, not npm.", "Deploy with make ship-prod."],
        );
    }
    env
}

/// The summary object of `memkit extract --json`.
fn extract_json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["--json", "extract"];
    all.extend_from_slice(args);
    let out = env.ok_or_fail(&all);
    json_lines(&out)
        .into_iter()
        .find(|v| v["kind"] == "summary")
        .unwrap_or_else(|| panic!("no summary in {out}"))
}

fn job(env: &TestEnv, id: &str) -> (String, i64, Option<String>) {
    env.db()
        .query_row(
            "SELECT status, retry_remaining, last_error FROM jobs WHERE job_key = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

#[test]
fn one_batch_tonight_its_outputs_tomorrow_at_half_the_price() {
    let m = mock(|_| None);
    let mut env = env_with(&m, 3, "");
    let secret = format!("sk-{}", "Q7w8E9r0".repeat(5));
    env.write_codex_session(
        &thread_id(3),
        &[&format!("Use OPENAI_API_KEY={secret} for CI.")],
    );
    let out = env.ok(&["run"]);
    assert!(
        out.contains("submitted batch batch_") && out.contains("with 4 sessions"),
        "{out}"
    );
    assert_eq!(m.created_batches(), 1);
    let files = m.uploaded_files();
    assert_eq!(files.len(), 1);
    let (_, purpose, content) = &files[0];
    assert_eq!(purpose, "batch");
    assert!(!content.contains(&secret), "the secret left for the model");
    let lines: Vec<Value> = content
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    let first = lines
        .iter()
        .find(|l| l["custom_id"] == thread_id(0).as_str())
        .unwrap();
    let body = &first["body"];
    assert_eq!(first["url"], "/v1/responses");
    assert_eq!(body["model"], "gpt-5.4-mini");
    assert_eq!(body["text"]["format"]["strict"], true);
    assert_eq!(body["store"], false);
    assert!(
        body["input"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("[user] We use pnpm")
    );
    let created = m
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path == "/v1/batches")
        .unwrap()
        .json();
    assert_eq!(created["endpoint"], "/v1/responses");
    assert_eq!(created["completion_window"], "24h");
    assert!(created["metadata"]["memkit_batch"].is_string());
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 0);
    let status = env.ok(&["status"]);
    assert!(
        status.contains("batch        batch_") && status.contains("4 sessions · submitted"),
        "{status}"
    );
    // Polled before OpenAI is done: nothing changes, nothing is sent again.
    let out = env.ok(&["run"]);
    assert!(out.contains("is validating"), "{out}");
    assert_eq!(m.created_batches(), 1);
    m.complete_all();
    // A run killed while it stores the results (after the first of four):
    // the next one settles the other three and nothing twice.
    env.extra_env
        .push(("MEMKIT_TEST_CRASH_AT".into(), "batch:settled".into()));
    assert!(!env.run(&["run"]).status.success(), "killed");
    env.extra_env.pop();
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 1);
    let out = env.ok(&["run"]);
    assert!(out.contains("collected batch batch_"), "{out}");
    assert!(out.contains("3 stored"), "{out}");
    assert_eq!(
        m.stored_files(),
        Vec::<String>::new(),
        "the requests and answers are deleted at OpenAI once stored"
    );
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 4);
    assert_eq!(
        env.count("SELECT count(*) FROM stage1_outputs WHERE backend = 'openai-batch'"),
        4
    );
    let memory = std::fs::read_to_string(env.memory_root().join("MEMORY.md")).unwrap();
    assert!(!memory.is_empty(), "consolidated");
    // 2000 in (500 cached), 400 out per session at half of 0.75 / 0.075 /
    // 4.50; three of the four sessions were stored by this run.
    let one = (1_500.0 * 0.75 + 500.0 * 0.075 + 400.0 * 4.5) / 1e6;
    let tonight = format!(
        "cost: tonight ${:.4} (synchronously ${:.4})",
        1.5 * one,
        3.0 * one
    );
    assert!(out.contains(&tonight), "{tonight} in {out}");
    assert!(
        out.contains("Codex's own pipeline would have spent"),
        "{out}"
    );
    assert!(!env.ok(&["status"]).contains("batch        batch_"));
    assert_eq!(
        env.count("SELECT count(*) FROM ledger WHERE mode = 'batch'"),
        4,
        "each answer booked once"
    );
    // Nothing left: the next night submits nothing.
    let out = env.ok(&["run"]);
    assert!(!out.contains("submitted batch"), "{out}");
    assert_eq!(m.created_batches(), 1);
}

#[test]
fn failed_requests_are_retried_and_never_ran_ones_given_back() {
    let m = mock(|id| match id.chars().last() {
        Some('1') => Some(ItemOutcome::HttpError {
            status: 400,
            message: "Invalid schema".into(),
        }),
        Some('2') => Some(ItemOutcome::Failed {
            code: "server_error".into(),
            message: "internal".into(),
        }),
        // Answered (and billed), but not in the schema.
        Some('3') => Some(ItemOutcome::Ok(responses_body(
            &serde_json::json!({"summary": "not the schema"}),
            900,
            0,
            50,
        ))),
        _ => None,
    });
    let env = env_with(&m, 5, "");
    extract_json(&env, &[]);
    m.complete_all();
    let s = extract_json(&env, &[]);
    assert_eq!(s["succeeded"], 2, "{s}");
    assert_eq!(s["failed"], 3, "{s}");
    assert_eq!(
        env.count(&format!(
            "SELECT tokens_in FROM ledger WHERE thread_id = '{}'",
            thread_id(3)
        )),
        900,
        "an unusable answer is billed: booked"
    );
    let (status, left, error) = job(&env, &thread_id(1));
    assert_eq!((status.as_str(), left), ("error", 2), "a retry spent");
    assert!(error.unwrap().contains("Invalid schema"));
    // Retried after the backoff, in a new batch of just those two.
    env.db()
        .execute("UPDATE jobs SET retry_at = 0 WHERE status = 'error'", [])
        .unwrap();
    let s = extract_json(&env, &[]);
    assert_eq!(s["batches"][0]["event"], "submitted", "{s}");
    assert_eq!(s["batches"][0]["sessions"], 3, "{s}");

    // An expired batch: what ran is stored, the rest goes back unspent.
    let m = mock(|_| None);
    let env = env_with(&m, 4, "");
    extract_json(&env, &[]);
    m.expire_all();
    let s = extract_json(&env, &[]);
    let collected = s["batches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["event"] == "collected")
        .unwrap_or_else(|| panic!("{s}"))
        .clone();
    assert_eq!(
        (collected["stored"].as_i64(), collected["released"].as_i64()),
        (Some(2), Some(2))
    );
    let stored: i64 = env.count("SELECT count(*) FROM stage1_outputs");
    assert_eq!(stored, 2);
    let given_back: Vec<String> = (0..4)
        .map(thread_id)
        .filter(|id| job(&env, id).0 == "running")
        .collect();
    assert_eq!(given_back.len(), 2, "claimed again at once");
    for id in &given_back {
        assert_eq!(
            job(&env, id).1,
            3,
            "no retry spent on a request that never ran"
        );
    }
    // …and the same run put them in a new batch.
    let resubmitted = s["batches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["event"] == "submitted")
        .unwrap_or_else(|| panic!("{s}"))
        .clone();
    assert_eq!(resubmitted["sessions"], 2);

    // A cancelled batch gives everything back.
    let m = mock(|_| None);
    let env = env_with(&m, 2, "");
    extract_json(&env, &[]);
    m.cancel_all();
    let s = extract_json(&env, &["--limit", "0"]);
    assert_eq!(s["batches"][0]["event"], "released", "{s}");
    assert_eq!(s["batches"][0]["released"], 2, "{s}");
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 0);
}

#[test]
fn a_crash_between_upload_and_recording_never_submits_twice() {
    for point in ["batch:uploaded", "batch:created"] {
        let m = mock(|_| None);
        let mut env = env_with(&m, 3, "");
        env.extra_env
            .push(("MEMKIT_TEST_CRASH_AT".into(), point.into()));
        let out = env.run(&["extract"]);
        assert!(!out.status.success(), "{point}: killed");
        env.extra_env.pop();
        assert_eq!(m.uploaded_files().len(), 1, "{point}");
        // Another team's batches since: memkit's is on a later page.
        m.add_foreign_batches(150);
        let s = extract_json(&env, &[]);
        assert_eq!(
            m.uploaded_files().len(),
            1,
            "{point}: no second upload: {s}"
        );
        assert_eq!(m.created_batches(), 1, "{point}: one batch: {s}");
        let events: Vec<&str> = s["batches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["event"].as_str().unwrap())
            .collect();
        assert_eq!(events, ["in_flight"], "{point}: {s}");
        m.complete_all();
        let s = extract_json(&env, &[]);
        assert_eq!(s["succeeded"], 3, "{point}: {s}");
    }
}

#[test]
fn a_synchronous_run_never_extracts_what_a_batch_holds() {
    let m = mock(|_| None);
    let env = env_with(&m, 2, "");
    extract_json(&env, &[]);
    // The openai backend talks to the same host (the emulator answers
    // /v1/responses too); the batch's leases keep it off these sessions.
    let s = extract_json(&env, &["--backend", "openai", "--force"]);
    assert_eq!(s["claimed"], 0, "{s}");
    assert_eq!(s["skipped"]["in_batch"], 2, "{s}");
    // Even once the batch's leases ran out (a machine off for days), the
    // sessions wait for the batch.
    env.db()
        .execute("UPDATE jobs SET lease_until = 0", [])
        .unwrap();
    let s = extract_json(&env, &["--backend", "openai", "--force"]);
    assert_eq!(s["skipped"]["in_batch"], 2, "{s}");
    assert!(
        m.requests().iter().all(|r| r.path != "/v1/responses"),
        "no synchronous request"
    );
}

#[test]
fn the_last_retry_goes_to_the_fallback_backend() {
    let m = mock(|id| {
        (id != "sync").then(|| ItemOutcome::HttpError {
            status: 500,
            message: "overloaded".into(),
        })
    });
    let env = env_with(&m, 1, "batch_fallback = \"openai\"");
    let id = thread_id(0);
    for left in [2, 1] {
        extract_json(&env, &[]);
        m.complete_all();
        extract_json(&env, &["--limit", "0"]);
        assert_eq!(job(&env, &id).1, left);
        env.db()
            .execute("UPDATE jobs SET retry_at = 0 WHERE status = 'error'", [])
            .unwrap();
    }
    // A fresh session too, and a budget that holds the fallback's call
    // (its estimate, then its 2,400 tokens) but not also the fresh one's:
    // the fallback and the batch spend one budget.
    env.write_codex_session(&thread_id(1), &["We use pnpm here, not npm."]);
    let dry = env.ok(&["--json", "extract", "--dry-run"]);
    let estimate = json_lines(&dry)
        .into_iter()
        .find(|v| v["thread_id"] == id.as_str())
        .and_then(|v| v["estimated_tokens"].as_u64())
        .unwrap_or_else(|| panic!("{dry}"));
    let cap = (estimate + 1_500 + 500).to_string();
    let run = env.ok_or_fail(&["--json", "run", "--stages", "extract", "--max-tokens", &cap]);
    let report: Value = serde_json::from_str(run.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {run}"));
    let s = report["stages"][0]["report"].clone();
    assert_eq!(s["succeeded"], 1, "{s}");
    assert_eq!(s["deferred"], 1, "{s}");
    assert!(
        s["batches"]
            .as_array()
            .is_none_or(|b| b.iter().all(|b| b["event"] != "submitted"))
    );
    assert!(m.requests().iter().any(|r| r.path == "/v1/responses"));
    assert_eq!(
        env.count("SELECT count(*) FROM stage1_outputs WHERE backend = 'openai'"),
        1
    );
}

#[test]
fn over_openai_s_token_limit_the_sessions_go_again_within_it() {
    let m = mock(|_| None);
    let env = env_with(&m, 3, "");
    let s = extract_json(&env, &[]);
    assert_eq!(s["batches"][0]["sessions"], 3, "{s}");
    // OpenAI refuses it: room for two of the three sessions' prompts.
    let bytes: Vec<i64> = env
        .db()
        .prepare("SELECT prompt_bytes FROM batch_items ORDER BY prompt_bytes")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let tokens = |b: i64| (b as u64).div_ceil(4);
    let room = tokens(bytes[0]) + tokens(bytes[1]) + tokens(bytes[2]) / 2;
    m.refuse_all_over_token_limit(&format!("{room}"));
    let out = env.ok(&["extract"]);
    assert!(
        out.contains(&format!(
            "enqueued-token limit for gpt-5.4-mini ({room} tokens)"
        )),
        "{out}"
    );
    assert!(out.contains("3 given back"), "{out}");
    assert!(
        out.contains("submitted batch") && out.contains("with 2 sessions"),
        "{out}"
    );
    assert!(
        out.contains("1 left for the next run (OpenAI's enqueued-token limit)"),
        "{out}"
    );
    for i in 0..3 {
        let (_, retries, _) = job(&env, &thread_id(i));
        assert_eq!(retries, 3, "a refused batch spends no retry");
    }
    // The batch in flight holds the room: nothing more goes tonight.
    let out = env.ok(&["extract"]);
    assert!(!out.contains("submitted batch"), "{out}");
    m.complete_all();
    let out = env.ok(&["extract"]);
    assert!(out.contains("2 stored"), "{out}");
    assert!(out.contains("with 1 sessions"), "the third: {out}");
    m.complete_all();
    env.ok(&["extract"]);
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 3);
}

#[test]
fn batch_max_tokens_caps_what_waits_at_openai() {
    let m = mock(|_| None);
    let roomy = env_with(&m, 3, "batch_max_tokens = 1000000");
    assert_eq!(extract_json(&roomy, &[])["batches"][0]["sessions"], 3);
    let (small, large): (i64, i64) = roomy
        .db()
        .query_row(
            "SELECT MIN(prompt_bytes), MAX(prompt_bytes) FROM batch_items",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // Room for the largest request and half the smallest: one session.
    let cap = (large as u64).div_ceil(4) + (small as u64).div_ceil(4) / 2;
    let env = env_with(&m, 3, &format!("batch_max_tokens = {cap}"));
    let s = extract_json(&env, &[]);
    assert_eq!(s["batches"][0]["sessions"], 1, "{s}");
    assert_eq!(s["deferred"], 2, "{s}");
    let env = env_with(&m, 1, "batch_max_tokens = -5");
    let out = env.run(&["extract"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("extract.batch_max_tokens = -5"),
        "{out:?}"
    );
}

#[test]
fn wait_polls_until_the_batch_is_stored() {
    let m = mock(|_| None);
    let env = env_with(&m, 2, "");
    let child = env
        .cmd()
        .args(["extract", "--wait"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while m.created_batches() == 0 {
        assert!(start.elapsed().as_secs() < 30, "no batch submitted");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // A key that may not delete files: the results are stored all the same.
    m.refuse_deletes();
    m.complete_all();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("collected batch"), "{text}");
    assert_eq!(env.count("SELECT count(*) FROM stage1_outputs"), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("could not delete file file-") && stderr.contains("HTTP 403"),
        "{stderr}"
    );
    assert_eq!(m.stored_files().len(), 2, "the input and the output file");
}

#[test]
fn a_missing_key_or_an_unreachable_api_is_reported() {
    let m = mock(|_| None);
    let mut env = env_with(&m, 1, "");
    env.extra_env.clear();
    let out = env.run(&["extract"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MEMKIT_TEST_KEY"));
    // Nothing listens there: the upload's outcome is unknown, so the batch
    // is left for the next run to find out about, not undone blindly.
    let mut env = TestEnv::new();
    env.extra_env.push(("MEMKIT_TEST_KEY".into(), "k".into()));
    env.write_config(
        "[extract]\nbackend = \"openai-batch\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         api_key_env = \"MEMKIT_TEST_KEY\"\nmax_retries = 0\n",
    );
    env.write_codex_session(&thread_id(0), &["We use pnpm here, not npm."]);
    let out = env.run(&["extract"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the next run finds out whether OpenAI has it"),
        "{stderr}"
    );
    assert_eq!(job(&env, &thread_id(0)).0, "running");
    // Still unreachable two days after the batch's window: given up, the
    // session given back without spending a retry.
    env.db()
        .execute("UPDATE batches SET created_at = created_at - 4 * 86400", [])
        .unwrap();
    let out = env.run(&["extract", "--limit", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("given up"), "{stderr}");
    let (status, left, _) = job(&env, &thread_id(0));
    assert_eq!(
        (status.as_str(), left),
        ("error", 3),
        "given back, no retry spent"
    );
}

#[test]
fn a_refused_upload_gives_the_sessions_back_at_once() {
    let m = mock(|_| None);
    let mut env = TestEnv::new();
    env.extra_env.push(("MEMKIT_TEST_KEY".into(), "k".into()));
    // A base URL the API does not serve: the upload is answered 404.
    env.write_config(&format!(
        "[extract]\nbackend = \"openai-batch\"\nbase_url = \"{}/nowhere\"\n\
         api_key_env = \"MEMKIT_TEST_KEY\"\nmax_retries = 0\n",
        m.url()
    ));
    env.write_codex_session(&thread_id(0), &["We use pnpm here, not npm."]);
    let out = env.run(&["extract"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not submitted"));
    let (status, left, _) = job(&env, &thread_id(0));
    assert_eq!((status.as_str(), left), ("error", 3));
    assert_eq!(
        env.count("SELECT count(*) FROM batches WHERE state = 'released'"),
        1
    );
}

#[test]
fn one_process_at_a_time_submits_and_collects() {
    let m = mock(|_| None);
    let env = env_with(&m, 2, "");
    env.ok(&["scan"]);
    env.db()
        .execute(
            "INSERT INTO locks (name, owner, acquired_at, lease_until)
             VALUES ('openai-batch', 'memkit-1@elsewhere', 0, 9999999999)",
            [],
        )
        .unwrap();
    let out = env.run(&["extract"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("left to it"));
    assert_eq!(m.created_batches(), 0);
    assert_eq!(env.count("SELECT count(*) FROM jobs"), 0, "nothing claimed");
}
