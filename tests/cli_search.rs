//! `memkit search`: the index over a memory folder in the real layout,
//! synonyms, the current project first, one hit per fact, JSON Lines, an
//! index kept current incrementally, secrets and symlinks kept out.

mod common;

use common::mock::{MockServer, Response, embeddings_answer, trigram_embedding};
use common::{TestEnv, json_lines};
use std::fs;
use std::path::Path;

const HANDBOOK: &str = "\
# Memory handbook

# Task Group: /home/dev/src/shop-api
scope: 2 sessions in /home/dev/src/shop-api
applies_to: cwd=/home/dev/src/shop-api; reuse_rule=applies when working in this directory or below it

## Task 1: Ship the checkout fix, success
### rollout_summary_files
- rollout_summaries/2026-11-03T10-00-00-Ab12-ship_the_checkout_fix.md (cwd=/home/dev/src/shop-api, updated_at=2026-11-03T10:00:00Z, thread_id=11111111-1111-4111-8111-111111111111, git_branch=main)
### keywords
checkout, payments

## Task 2: Speed up the suite, success
### rollout_summary_files
- rollout_summaries/2026-11-05T10-00-00-Cd34-speed_up_the_suite.md (cwd=/home/dev/src/shop-api, updated_at=2026-11-05T10:00:00Z, thread_id=22222222-2222-4222-8222-222222222222, git_branch=main)
### keywords
pytest, xdist

## Reusable knowledge
- Production deploys go through `make ship-prod`; it needs the VPN up. [Task 1] (seen in 1 session)
- `uv run pytest -n auto` works in shop-api (tests) [Task 2] (seen in 1 session)
## Environment facts
- The API listens on :8081 [Task 1] (seen in 1 session)

# Task Group: /home/dev/src/web-ui
scope: 1 session in /home/dev/src/web-ui
applies_to: cwd=/home/dev/src/web-ui; reuse_rule=applies when working in this directory or below it

## Task 1: Fix the login page, success
### rollout_summary_files
- rollout_summaries/2026-11-07T10-00-00-Ef56-fix_the_login_page.md (cwd=/home/dev/src/web-ui, updated_at=2026-11-07T10:00:00Z, thread_id=33333333-3333-4333-8333-333333333333, git_branch=main)
### keywords
login, react

## Reusable knowledge
- `pnpm vitest run` works in web-ui (tests) [Task 1] (seen in 1 session)
- Use pnpm, not npm, in web-ui [Task 1] (seen in 1 session)
";

const SUMMARY: &str = "\
v1
## User Profile
Memory drawn from 3 sessions in 2 projects.

## User preferences
- Keep commits small and say why in the message.

## General Tips
### /home/dev/src/shop-api
- `uv run pytest -n auto` works (tests)
### /home/dev/src/web-ui
- `pnpm vitest run` works (tests)
";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn env_with_memory() -> TestEnv {
    let env = TestEnv::new();
    let root = env.memory_root();
    write(&root, "MEMORY.md", HANDBOOK);
    write(&root, "memory_summary.md", SUMMARY);
    write(
        &root,
        "extensions/ad_hoc/notes/2026-11-20T09-00-00-staging.md",
        "The staging database is reset every Monday at 06:00 UTC.\n",
    );
    write(
        &root,
        "skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Write the changelog entry for a release\n---\n\n1. Collect merged PRs since the last tag.\n",
    );
    env
}

fn search(env: &TestEnv, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["--json", "search"];
    all.extend_from_slice(args);
    json_lines(&env.ok(&all))
}

#[test]
fn a_paraphrased_question_finds_the_fact_with_its_place_project_session_and_date() {
    let env = env_with_memory();
    let hits = search(&env, &["how", "do", "we", "release", "to", "production?"]);
    let first = &hits[0];
    assert!(
        first["text"].as_str().unwrap().contains("make ship-prod"),
        "{hits:#?}"
    );
    assert_eq!(first["file"], "MEMORY.md");
    assert_eq!(first["location"], "MEMORY.md:20-20");
    assert_eq!(first["project"], "/home/dev/src/shop-api");
    assert_eq!(
        first["sessions"],
        serde_json::json!(["11111111-1111-4111-8111-111111111111"])
    );
    assert_eq!(first["date"], "2026-11-03T10:00:00Z");
    assert!(
        first["snippet"].as_str().unwrap().contains("**deploys**"),
        "{first}"
    );
}

#[test]
fn test_commands_of_every_project_come_first_and_each_fact_once() {
    let env = env_with_memory();
    let hits = search(&env, &["how do we run the tests"]);
    let texts: Vec<&str> = hits.iter().map(|h| h["text"].as_str().unwrap()).collect();
    assert!(
        texts[0].contains("pytest") || texts[0].contains("vitest"),
        "{texts:#?}"
    );
    assert!(
        texts[1].contains("pytest") || texts[1].contains("vitest"),
        "{texts:#?}"
    );
    assert_ne!(hits[0]["project"], hits[1]["project"], "{texts:#?}");
    let pytest = texts.iter().filter(|t| t.contains("uv run pytest")).count();
    assert_eq!(
        pytest, 1,
        "the handbook and summary copies are one fact: {texts:#?}"
    );
}

#[test]
fn a_fact_ranks_above_the_task_title_that_points_to_it() {
    let env = env_with_memory();
    let hits = search(&env, &["pytest", "--project", "/home/dev/src/shop-api"]);
    let kinds: Vec<&str> = hits.iter().map(|h| h["kind"].as_str().unwrap()).collect();
    // The keywords line is part of the task's unit, not a hit of its own.
    assert_eq!(
        kinds.iter().filter(|k| **k == "paragraph").count(),
        0,
        "{hits:#?}"
    );
    assert!(kinds.contains(&"task"), "{hits:#?}");
    assert_eq!(kinds[0], "bullet", "{hits:#?}");
}

#[test]
fn the_current_project_ranks_first() {
    let env = env_with_memory();
    for (project, want) in [
        ("/home/dev/src/web-ui/src/pages", "vitest"),
        ("/home/dev/src/shop-api", "pytest"),
    ] {
        let hits = search(&env, &["--project", project, "run the test suite"]);
        assert!(
            hits[0]["text"].as_str().unwrap().contains(want),
            "{project}: {hits:#?}"
        );
        assert_eq!(hits[0]["in_project"], true);
    }
}

#[test]
fn notes_and_skills_are_searched() {
    let env = env_with_memory();
    let hits = search(&env, &["when is the staging db wiped?"]);
    assert_eq!(hits[0]["kind"], "note", "{hits:#?}");
    assert_eq!(
        hits[0]["date"], "2026-11-20T09:00:00Z",
        "a note's date is its file stamp"
    );
    let hits = search(&env, &["changelog"]);
    assert_eq!(
        hits[0]["file"], "skills/release-notes/SKILL.md",
        "{hits:#?}"
    );
}

#[test]
fn no_hits_exit_zero_with_a_line_saying_so() {
    let env = env_with_memory();
    let out = env.ok(&["search", "kubernetes helm chart"]);
    assert!(out.contains("nothing in memory matches"), "{out}");
    let out = env.run(&["--json", "search", "zzzz"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "JSON Lines: no hit, no line");
    // Only stop words: nothing to look for, still not an error.
    assert!(
        env.ok(&["search", "how do we"])
            .contains("nothing in memory")
    );
}

#[test]
fn query_syntax_in_the_question_is_plain_text() {
    let env = env_with_memory();
    for q in [
        "\"unbalanced",
        "NEAR(a b) AND OR NOT",
        "col:value*",
        "^start - (x)",
        "'; DROP TABLE search_units; --",
    ] {
        let out = env.run(&["search", q]);
        assert!(
            out.status.success(),
            "{q}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(env.count("SELECT count(*) FROM search_units") > 0);
}

#[test]
fn the_index_follows_edits_incrementally_and_reindex_rebuilds_it() {
    let env = env_with_memory();
    search(&env, &["deploy"]);
    let units = env.count("SELECT count(*) FROM search_units");
    let ids_before: Vec<i64> = ids(&env);
    // One bullet added at the top of a section: every other unit keeps its row.
    let root = env.memory_root();
    let text = HANDBOOK.replace(
        "## Reusable knowledge\n- Production",
        "## Reusable knowledge\n- Feature flags live in flags.yaml [Task 1]\n- Production",
    );
    write(&root, "MEMORY.md", &text);
    let hits = search(&env, &["toggle"]);
    assert!(hits[0]["text"].as_str().unwrap().contains("flags.yaml"));
    assert_eq!(env.count("SELECT count(*) FROM search_units"), units + 1);
    let ids_after = ids(&env);
    let kept = ids_before
        .iter()
        .filter(|id| ids_after.contains(id))
        .count();
    assert_eq!(kept, ids_before.len(), "unchanged units keep their rows");
    let ship = search(&env, &["ship-prod"]);
    assert_eq!(
        ship[0]["location"], "MEMORY.md:21-21",
        "a moved unit's line range follows"
    );
    // A removed file takes its units with it.
    fs::remove_file(root.join("extensions/ad_hoc/notes/2026-11-20T09-00-00-staging.md")).unwrap();
    assert!(
        search(&env, &["staging", "Monday"])
            .iter()
            .all(|h| h["kind"] != "note")
    );
    // --reindex alone rebuilds and says so.
    let out = env.run(&["search", "--reindex"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("reindexed"));
    assert_eq!(env.count("SELECT count(*) FROM search_units"), units);
}

fn ids(env: &TestEnv) -> Vec<i64> {
    let db = env.db();
    let mut stmt = db.prepare("SELECT id FROM search_units").unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_secret_in_a_hand_edit_never_reaches_the_index() {
    let env = env_with_memory();
    let secret = "ghp_Zk3mQ8vT2xR7pL9wN4bY6cJ1dF5hS0aE2gU8";
    let text = HANDBOOK.replace(
        "## Environment facts\n",
        &format!("## Environment facts\n- CI pushes with GITHUB_TOKEN={secret}\n"),
    );
    write(&env.memory_root(), "MEMORY.md", &text);
    let hits = search(&env, &["GITHUB_TOKEN"]);
    assert!(!hits.is_empty());
    let stored: String = env
        .db()
        .query_row(
            "SELECT group_concat(text || body, '') FROM search_units",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(!stored.contains(secret) && !stored.contains("Zk3mQ8vT"));
    assert!(stored.contains("GITHUB_TOKEN="), "the name stays");
    let out = env.ok(&["search", "Zk3mQ8vT2xR7pL9wN4bY6cJ1dF5hS0aE2gU8"]);
    assert!(!out.contains(secret));
}

#[test]
fn symlinks_and_files_outside_the_layout_are_not_indexed() {
    let env = env_with_memory();
    let root = env.memory_root();
    let outside = env.root.join("outside.md");
    fs::write(&outside, "- the outside secret plan: zebra\n").unwrap();
    fs::create_dir_all(root.join("rollout_summaries")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("rollout_summaries/linked.md")).unwrap();
    write(&root, "phase2_workspace_diff.md", "- zebra in the diff\n");
    write(&root, ".git/zebra.md", "- zebra in git\n");
    assert!(
        env.ok(&["search", "zebra"])
            .contains("nothing in memory matches")
    );
}

#[test]
fn a_bad_limit_is_a_usage_error() {
    let env = env_with_memory();
    let out = env.run(&["search", "--limit", "0", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = env.run(&["search"]);
    assert_eq!(out.status.code(), Some(2), "a query or --reindex is needed");
}

#[test]
fn the_nightly_run_keeps_the_index_current_without_a_search() {
    let env = TestEnv::new();
    env.install_fixtures();
    env.age_sessions(std::time::Duration::from_secs(3 * 24 * 3600));
    env.ok(&["run"]);
    let units = env.count("SELECT count(*) FROM search_units");
    assert!(units > 0, "sync and consolidate index what they wrote");
    let files = env.count("SELECT count(*) FROM search_files WHERE file = 'MEMORY.md'");
    assert_eq!(files, 1);
    let from_sessions = env.count(
        "SELECT count(*) FROM search_units WHERE file LIKE 'rollout_summaries/%' AND sessions != ''",
    );
    assert!(from_sessions > 0, "rollout summaries carry their session");
}

#[test]
fn sessions_search_finds_a_transcript_lazily_redacted_and_forgettable() {
    let env = TestEnv::new();
    let id = common::thread_id(7);
    let secret = "ghp_Zk3mQ8vT2xR7pL9wN4bY6cJ1dF5hS0aE2gU8";
    env.write_codex_session(
        &id,
        &[
            "the integration job on CI keeps failing at random, please make it stable",
            &format!("push with GITHUB_TOKEN={secret} when it is green"),
        ],
    );
    env.ok(&["scan"]);
    assert_eq!(
        env.count("SELECT count(*) FROM session_index"),
        0,
        "transcripts are indexed when a search first asks for them"
    );
    // "flaky" is the vocabulary's word for failing at random.
    let hits = search(&env, &["--sessions", "that flaky CI job"]);
    let session = hits
        .iter()
        .find(|h| h["source"] == "session")
        .unwrap_or_else(|| panic!("{hits:#?}"));
    assert_eq!(session["sessions"], serde_json::json!([id]));
    assert!(session["file"].as_str().unwrap().ends_with(".jsonl"));
    assert_eq!(env.count("SELECT count(*) FROM session_index"), 1);
    let body: String = env
        .db()
        .query_row("SELECT group_concat(body, '') FROM session_fts", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(!body.contains(secret) && body.contains("GITHUB_TOKEN"));
    // Without --sessions, transcripts are not searched.
    assert!(
        search(&env, &["flaky CI job"])
            .iter()
            .all(|h| h["source"] != "session")
    );
    // A forgotten session leaves the index at once, not at the next search.
    env.ok(&["forget", &id]);
    assert_eq!(env.count("SELECT count(*) FROM session_fts"), 0);
    assert_eq!(env.count("SELECT count(*) FROM session_index"), 0);
    assert!(
        search(&env, &["--sessions", "flaky CI job"])
            .iter()
            .all(|h| h["source"] != "session")
    );
    assert_eq!(env.count("SELECT count(*) FROM session_fts"), 0);
}

/// `[search]` taking embeddings from the mock at `url`, `batch` units a request.
fn embeddings_config(url: &str, batch: usize) -> String {
    format!(
        "[search]\nembeddings = \"chat\"\nmodel = \"mock-embed\"\nbase_url = \"{url}\"\n\
         batch_size = {batch}\nmax_retries = 0\n"
    )
}

/// The inputs of an `/embeddings` request.
fn inputs(request: &common::mock::Request) -> Vec<String> {
    request.json()["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn hybrid_search_finds_by_meaning_and_batches_caches_counts_and_redacts() {
    let env = env_with_memory();
    // A model for which the made-up words of the question mean the
    // production deploy: the full text cannot match them at all.
    let mock = MockServer::start(|req, _| {
        Response::json(
            200,
            embeddings_answer(req, |text| {
                if text.contains("ship-prod") || text.contains("qqv") {
                    vec![1.0, 0.0, 0.0]
                } else {
                    vec![0.0, 1.0, 0.2]
                }
            }),
        )
    });
    env.write_config(&embeddings_config(&mock.url, 2));
    let secret = "ghp_Zk3mQ8vT2xR7pL9wN4bY6cJ1dF5hS0aE2gU8";
    let hits = search(&env, &[&format!("qqv wzx {secret}")]);
    assert!(
        hits[0]["text"].as_str().unwrap().contains("make ship-prod"),
        "{hits:#?}"
    );
    let snippet = hits[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("ship-prod") && !snippet.contains("**"));
    let requests = mock.requests();
    for r in &requests {
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("POST", "/embeddings")
        );
        assert_eq!(r.json()["model"], "mock-embed");
        assert_eq!(r.json()["encoding_format"], "float");
        assert!(inputs(r).len() <= 2, "batches of 2: {}", r.body);
        assert!(!r.body.contains(secret), "nothing leaves unredacted");
    }
    let (query, units) = requests.split_last().unwrap();
    assert_eq!(inputs(query).len(), 1);
    assert!(inputs(query)[0].starts_with("qqv wzx "));
    let distinct = env.count("SELECT count(DISTINCT key) FROM search_units");
    let sent: usize = units.iter().map(|r| inputs(r).len()).sum();
    assert_eq!(sent as i64, distinct, "each distinct unit sent once");
    assert_eq!(env.count("SELECT count(*) FROM search_vectors"), distinct);
    // The tokens the model counted are in the ledger.
    let counted: usize = requests
        .iter()
        .flat_map(inputs)
        .map(|i| i.split_whitespace().count())
        .sum();
    assert_eq!(
        env.count("SELECT sum(tokens_in) FROM runs WHERE stage = 'search'"),
        counted as i64
    );
    // Cached: the next search sends only its question.
    search(&env, &["how do we release"]);
    assert_eq!(mock.requests().len(), requests.len() + 1);
    // A changed unit is embedded again, alone.
    let text = HANDBOOK.replace("it needs the VPN up", "it needs the VPN and 2FA");
    write(&env.memory_root(), "MEMORY.md", &text);
    search(&env, &["deploy"]);
    let after = mock.requests();
    assert_eq!(after.len(), requests.len() + 3);
    assert_eq!(inputs(&after[after.len() - 2]).len(), 1);
    assert!(inputs(&after[after.len() - 2])[0].contains("2FA"));
    assert_eq!(env.count("SELECT count(*) FROM search_vectors"), distinct);
}

#[test]
fn an_unreachable_embedding_model_leaves_the_full_text_answer_and_retries_later() {
    let env = env_with_memory();
    let failing = MockServer::start(|_, _| {
        Response::json(
            400,
            serde_json::json!({"error": {"message": "no such model"}}),
        )
    });
    env.write_config(&embeddings_config(&failing.url, 64));
    let out = env.run(&["--json", "search", "how do we release to production"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("embeddings unavailable") && stderr.contains("HTTP 400"),
        "{stderr}"
    );
    let hits = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert!(hits[0]["text"].as_str().unwrap().contains("ship-prod"));
    assert_eq!(env.count("SELECT count(*) FROM search_vectors"), 0);
    let working =
        MockServer::start(|req, _| Response::json(200, embeddings_answer(req, trigram_embedding)));
    env.write_config(&embeddings_config(&working.url, 64));
    search(&env, &["deploy"]);
    assert_eq!(
        env.count("SELECT count(*) FROM search_vectors"),
        env.count("SELECT count(DISTINCT key) FROM search_units")
    );
    // Misconfigured embeddings: a warning, and the full text answers.
    env.write_config("[search]\nembeddings = \"chat\"\n");
    let out = env.run(&["search", "deploy"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs search.model"));
    env.write_config("[search]\nembeddings = \"vectors\"\n");
    let out = env.run(&["search", "deploy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("search.embeddings"));
}

#[test]
fn the_nightly_run_embeds_what_it_indexed_and_counts_the_tokens() {
    let env = TestEnv::new();
    env.install_fixtures();
    env.age_sessions(std::time::Duration::from_secs(3 * 24 * 3600));
    let mock =
        MockServer::start(|req, _| Response::json(200, embeddings_answer(req, trigram_embedding)));
    env.write_config(&embeddings_config(&mock.url, 16));
    env.ok(&["run"]);
    assert!(env.count("SELECT count(*) FROM search_units") > 0);
    assert_eq!(
        env.count("SELECT count(*) FROM search_vectors"),
        env.count("SELECT count(DISTINCT key) FROM search_units"),
        "every unit has its vector after the run"
    );
    let counted: usize = mock
        .requests()
        .iter()
        .flat_map(inputs)
        .map(|i| i.split_whitespace().count())
        .sum();
    assert!(counted > 0);
    assert_eq!(
        env.count("SELECT sum(tokens_in) FROM runs WHERE stage IN ('sync', 'consolidate')"),
        counted as i64,
        "the run's ledger holds what the embeddings cost"
    );
    let before = mock.requests().len();
    env.ok(&["run"]);
    assert_eq!(
        mock.requests().len(),
        before,
        "a no-op night embeds nothing"
    );
}
