//! `memkit redact` end to end: the plain filter, `--jsonl`, `--report`.

mod common;

use common::TestEnv;
use std::io::Write;
use std::process::{Output, Stdio};

/// A token body built at run time (no live-looking token in the source).
fn github_token() -> String {
    format!("ghp_{}", "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8LmN0p")
}

fn run(env: &TestEnv, args: &[&str], stdin: &str) -> Output {
    let mut child = env
        .cmd()
        .arg("redact")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memkit runs");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(data.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn plain_filter_changes_only_secrets() {
    let env = TestEnv::new();
    let tok = github_token();
    let input = format!(
        "build ok\nexport GITHUB_TOKEN={tok}\npsql postgres://app:Tr0ub4dor3x@db:5432/shop\n\nlast line, no newline"
    );
    let out = run(&env, &[], &input);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "build ok\nexport GITHUB_TOKEN=[REDACTED_SECRET]\npsql postgres://app:[REDACTED_SECRET]@db:5432/shop\n\nlast line, no newline"
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn jsonl_keeps_fields_and_order() {
    let env = TestEnv::new();
    let tok = github_token();
    let input = format!(
        "{{\"id\":\"b\",\"text\":\"token {tok} here\",\"meta\":{{\"z\":1,\"a\":[true,null]}}}}\n\
         {{\"text\":\"nothing to see\",  \"id\": 7}}\n\
         \n\
         {{\"id\":\"a\",\"text\":\"line1\\nDB_PASSWORD=hunter2x\\n\",\"n\":1.50}}\n"
    );
    let out = run(&env, &["--jsonl"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(
        lines,
        [
            "{\"id\":\"b\",\"text\":\"token [REDACTED_SECRET] here\",\"meta\":{\"z\":1,\"a\":[true,null]}}",
            "{\"text\":\"nothing to see\",  \"id\": 7}",
            "",
            "{\"id\":\"a\",\"text\":\"line1\\nDB_PASSWORD=[REDACTED_SECRET]\\n\",\"n\":1.50}",
        ]
    );
}

#[test]
fn jsonl_rejects_a_line_that_is_not_an_object_with_text() {
    let env = TestEnv::new();
    let out = run(&env, &["--jsonl"], "{\"id\":1,\"text\":\"ok\"}\n[1,2]\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("line 2"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&env, &["--jsonl"], "{\"id\":1,\"text\":42}\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("line 1"));
}

#[test]
fn jsonl_takes_a_line_of_exactly_the_cap_and_names_a_longer_one() {
    let env = TestEnv::new();
    let cap = 8 << 20;
    let frame = "{\"text\":\"\"}".len();
    let exact = format!("{{\"text\":\"{}\"}}", "a".repeat(cap - frame));
    let out = run(&env, &["--jsonl"], &format!("{exact}\r\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout.len(), cap + 2);
    let longer = format!("{{\"text\":\"{}\"}}\n", "a".repeat(cap - frame + 1));
    let out = run(
        &env,
        &["--jsonl"],
        &format!("{{\"text\":\"ok\"}}\n{longer}"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("stdin line 2: longer than 8 MiB"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn report_names_rule_and_place_never_the_secret() {
    let env = TestEnv::new();
    let tok = github_token();
    let input = format!("one\ntwo {tok}\nAuthorization: Bearer {tok}\n");
    let out = run(&env, &["--report"], &input);
    assert_eq!(out.status.code(), Some(0));
    let report = text(&out.stderr);
    assert_eq!(report, "2:5 github_token\n3:23 authorization_header\n");
    assert!(!text(&out.stdout).contains(&tok[4..]));

    let out = run(&env, &["--report", "--json"], &input);
    let report = text(&out.stderr);
    let entries = common::json_lines(&report);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["line"], 2);
    assert_eq!(entries[0]["column"], 5);
    assert_eq!(entries[0]["rule"], "github_token");
    assert!(!report.contains(&tok[4..]));
    assert!(!text(&out.stdout).contains(&tok[4..]));

    let input = format!("{{\"id\":\"s1\",\"text\":\"x {tok}\"}}\n");
    let out = run(&env, &["--jsonl", "--report", "--json"], &input);
    let entries = common::json_lines(&text(&out.stderr));
    assert_eq!(entries[0]["id"], "s1");
    assert_eq!(entries[0]["column"], 3);
}

#[test]
fn session_log_line_stays_readable() {
    let env = TestEnv::new();
    let key = format!("sk-proj-{}", "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8LmN0pQ1rS2tU3");
    let line = format!(
        "{{\"timestamp\":\"2025-10-20T08:01:00.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"$ cat .env\\nOPENAI_API_KEY={key}\\nDEBUG=true\\n\"}}}}\n"
    );
    let out = run(&env, &[], &line);
    assert_eq!(out.status.code(), Some(0));
    let clean = text(&out.stdout);
    assert_eq!(
        clean,
        line.replace(&key, "[REDACTED_SECRET]"),
        "only the key changes"
    );
    let v: serde_json::Value = serde_json::from_str(clean.trim()).expect("still JSON");
    assert_eq!(
        v["payload"]["output"],
        "$ cat .env\nOPENAI_API_KEY=[REDACTED_SECRET]\nDEBUG=true\n"
    );
}

#[test]
fn closed_pipe_is_not_an_error() {
    let env = TestEnv::new();
    let mut child = env
        .cmd()
        .arg("redact")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut input = child.stdin.take().unwrap();
    let chunk = "DB_PASSWORD=hunter2x and some more text\n".repeat(1000);
    for _ in 0..200 {
        if input.write_all(chunk.as_bytes()).is_err() {
            break;
        }
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
