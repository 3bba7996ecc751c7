//! The real Codex CLI and Claude Code, installed from the npm registry at
//! pinned versions, against a loopback mock of the Responses API and the
//! Messages API started by this test: memkit's memory reaches both agents,
//! Codex's own memory writer never runs, and memkit reads what the agents
//! wrote (human turns, tool calls with exit codes, code-mode commands, a
//! citation counted once).
//!
//! Opt-in: `MEMKIT_E2E_AGENTS=1 cargo test --test real_agents -- --nocapture`
//! (`.ci/run` does this when `node` and `npm` are present). Only the npm
//! install uses the network; the agents run in a network namespace with
//! loopback only (`unshare -n`, else `unshare -rn`) where the machine allows
//! it. The packages are cached in `$MEMKIT_E2E_CACHE` (default
//! `~/.cache/memkit-e2e/npm`); `MEMKIT_E2E_KEEP=1` keeps the agents' homes
//! (sessions, settings, memory folder) for a look afterwards.

mod common;

use common::mock::{MockServer, Request, Response};
use common::{git, json_lines, set_mtime};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

const CODEX_PACKAGE: &str = "@openai/codex@0.171.0";
const CLAUDE_PACKAGE: &str = "@anthropic-ai/claude-code@2.1.332";
/// Set in the re-executed test inside the network namespace.
const INSIDE: &str = "MEMKIT_E2E_INSIDE_NETNS";

#[test]
fn real_agents_get_the_memory_and_memkit_reads_what_they_wrote() {
    if std::env::var_os("MEMKIT_E2E_AGENTS").is_none() {
        eprintln!("skipped: set MEMKIT_E2E_AGENTS=1 to run the real Codex and Claude Code");
        return;
    }
    let agents = match std::env::var_os(INSIDE) {
        Some(_) => Agents::from_env(),
        None => {
            let agents = Agents::install();
            if let Some(status) = rerun_isolated(&agents) {
                assert!(status, "the isolated run failed (its output is above)");
                return;
            }
            eprintln!(
                "note: no network namespace here; the agents run against the mock without isolation"
            );
            agents
        }
    };
    let started = Instant::now();
    Scenario::new(agents).run();
    eprintln!("real agents end to end: {:.0?}", started.elapsed());
}

/// The installed agent binaries.
struct Agents {
    codex: PathBuf,
    claude: PathBuf,
}

impl Agents {
    /// `npm install` of the pinned packages into the cache (skipped when there).
    fn install() -> Agents {
        let cache = std::env::var_os("MEMKIT_E2E_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/memkit-e2e/npm")
            });
        let agents = Agents {
            codex: cache.join(
                "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
            ),
            claude: cache.join("node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
        };
        let pinned = |package: &str, dir: &str| {
            let want = package.rsplit('@').next().unwrap();
            std::fs::read_to_string(cache.join(dir).join("package.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|v| v["version"] == want)
        };
        let present = pinned(CODEX_PACKAGE, "node_modules/@openai/codex")
            && pinned(CLAUDE_PACKAGE, "node_modules/@anthropic-ai/claude-code")
            && agents.codex.is_file()
            && agents.claude.is_file();
        if !present {
            std::fs::create_dir_all(&cache).unwrap();
            let out = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&cache)
                .args([CODEX_PACKAGE, CLAUDE_PACKAGE])
                .output()
                .expect("npm runs");
            assert!(
                out.status.success(),
                "npm install failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        for bin in [&agents.codex, &agents.claude] {
            assert!(bin.is_file(), "{} did not arrive", bin.display());
        }
        agents
    }

    fn from_env() -> Agents {
        Agents {
            codex: PathBuf::from(std::env::var_os("MEMKIT_E2E_CODEX").unwrap()),
            claude: PathBuf::from(std::env::var_os("MEMKIT_E2E_CLAUDE").unwrap()),
        }
    }
}

/// Runs this test again in a network namespace with loopback only; `None`
/// when the machine allows no namespace.
fn rerun_isolated(agents: &Agents) -> Option<bool> {
    let exe = std::env::current_exe().unwrap();
    for flags in ["-n", "-rn"] {
        let probe = Command::new("unshare")
            .args([flags, "sh", "-c", "ip link set lo up"])
            .output();
        if !probe.is_ok_and(|o| o.status.success()) {
            continue;
        }
        let status = Command::new("unshare")
            .args([flags, "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""])
            .arg(&exe)
            .args([
                "--exact",
                "real_agents_get_the_memory_and_memkit_reads_what_they_wrote",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(INSIDE, "1")
            .env("MEMKIT_E2E_CODEX", &agents.codex)
            .env("MEMKIT_E2E_CLAUDE", &agents.claude)
            .status()
            .expect("unshare runs");
        return Some(status.success());
    }
    None
}

/// The answers a mock model gives, by what the prompt asks for.
fn answer(req: &Request, _: usize) -> Response {
    let path = req.path.split('?').next().unwrap_or("");
    if path.ends_with("/messages/count_tokens") {
        return Response::json(200, json!({"input_tokens": 100}));
    }
    if path.ends_with("/messages") {
        return claude_answer(&req.json());
    }
    if path.ends_with("/responses") {
        return codex_answer(&req.json());
    }
    Response::json(404, json!({"error": {"message": "not found"}}))
}

fn sse(events: &[(&str, Value)]) -> Response {
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    Response {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body,
        delay: Duration::ZERO,
    }
}

/// The text of the last user message of a Responses request.
fn last_user_text(body: &Value) -> String {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["role"] == "user")
        .filter_map(|i| i["content"].as_array())
        .flat_map(|c| c.iter().filter_map(|p| p["text"].as_str()))
        .rfind(|t| !t.starts_with('<') && !t.starts_with("# AGENTS.md"))
        .unwrap_or("")
        .to_string()
}

fn has_item(body: &Value, kind: &str) -> bool {
    body["input"]
        .as_array()
        .is_some_and(|items| items.iter().any(|i| i["type"] == kind))
}

/// Responses API: a tool call first when asked for one, then a final answer.
fn codex_answer(body: &Value) -> Response {
    let prompt = last_user_text(body);
    let item = if prompt.contains("CODE-MODE") && !has_item(body, "custom_tool_call_output") {
        json!({"type": "custom_tool_call", "id": "ctc_mock_1", "status": "completed", "call_id": "call_mock_1",
               "name": "exec",
               "input": "const r = await tools.exec_command({cmd: \"echo code-mode-ran && exit 3\"});\ntext(r);\n"})
    } else if prompt.contains("MCP-SEARCH") && !has_item(body, "function_call_output") {
        // Codex lists an MCP server's tools under a namespace; the call names it.
        json!({"type": "function_call", "id": "fc_mock_2", "call_id": "call_mock_2",
               "namespace": "mcp__memkit", "name": "search_memories",
               "arguments": json!({"query": "which tool for checks, pnpm?"}).to_string()})
    } else if prompt.contains("RUN-TOOL") && !has_item(body, "function_call_output") {
        json!({"type": "function_call", "id": "fc_mock_1", "call_id": "call_mock_1", "name": "exec_command",
               "arguments": json!({"cmd": "echo hello-from-codex && false"}).to_string()})
    } else {
        let text = match prompt {
            p if p.contains("CITE:") => format!(
                "Use pnpm, as before.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-3|note=[the project's package manager]\n</citation_entries>\n<rollout_ids>\n{}\n</rollout_ids>\n</oai-mem-citation>",
                p.rsplit("CITE:").next().unwrap_or("").trim()
            ),
            _ if body["text"]["format"]["type"] == "json_schema" => {
                json!({"title": "A mock thread"}).to_string()
            }
            _ => "Done: the mock model answered.".to_string(),
        };
        json!({"type": "message", "role": "assistant", "id": "msg_mock_1", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]})
    };
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    let mut events = vec![
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_mock"}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        ),
    ];
    if let Some(text) = item["content"][0]["text"].as_str() {
        events[1].1["item"]["content"] = json!([]);
        events.push((
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_mock_1", "output_index": 0,
                   "content_index": 0, "delta": text}),
        ));
    }
    events.push((
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    ));
    events.push((
        "response.completed",
        json!({"type": "response.completed", "response": {"id": "resp_mock", "usage": {
            "input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 105}}}),
    ));
    sse(&events)
}

/// Messages API: a Bash call first when asked for one, then a final answer.
fn claude_answer(body: &Value) -> Response {
    let text = body.to_string();
    let has_result = text.contains("\"tool_result\"");
    let (block, delta, stop) = if text.contains("MCP-SEARCH") && !has_result {
        (
            json!({"type": "tool_use", "id": "toolu_mock_2", "name": "mcp__memkit__search_memories", "input": {}}),
            json!({"type": "input_json_delta", "partial_json": json!({"query": "which tool for checks, pnpm?"}).to_string()}),
            "tool_use",
        )
    } else if text.contains("RUN-TOOL") && !has_result {
        (
            json!({"type": "tool_use", "id": "toolu_mock_1", "name": "Bash", "input": {}}),
            json!({"type": "input_json_delta", "partial_json": json!({"command": "echo hello-from-claude && false", "description": "mock"}).to_string()}),
            "tool_use",
        )
    } else {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": "The command ran."}),
            "end_turn",
        )
    };
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message",
            "role": "assistant", "model": body["model"], "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

/// Whether a request came from Codex's own memory writer.
fn is_memory_request(r: &Request) -> bool {
    r.header("x-openai-subagent") == Some("memory_consolidation")
        || r.header("x-openai-memgen-request").is_some()
        || r.header("x-codex-turn-metadata")
            .is_some_and(|m| m.contains("\"request_kind\":\"memory\""))
        || r.body.contains("Memory Writing Agent")
}

struct Scenario {
    agents: Agents,
    root: PathBuf,
    home: PathBuf,
    codex_home: PathBuf,
    claude_home: PathBuf,
    memkit_home: PathBuf,
    project: PathBuf,
    mock: MockServer,
}

impl Scenario {
    fn new(agents: Agents) -> Scenario {
        // Outside the temp dir: Codex declines its helper aliases under it.
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("real-agents-{}", memkit::util::ids::new_uuid_v4()));
        let home = root.join("home");
        let project = root.join("src/demo");
        let s = Scenario {
            codex_home: home.join(".codex"),
            claude_home: home.join(".claude"),
            memkit_home: home.join(".local/share/memkit"),
            agents,
            root,
            home,
            project,
            mock: MockServer::start(answer),
        };
        for d in [&s.codex_home, &s.claude_home, &s.project] {
            std::fs::create_dir_all(d).unwrap();
        }
        git(&s.project, &["init", "-q"]);
        std::fs::write(
            s.codex_home.join("config.toml"),
            format!(
                "model = \"gpt-5.4\"\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n\
                 [model_providers.mock]\nname = \"Mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
                 env_key = \"MOCK_API_KEY\"\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                s.mock.url,
                s.project.display()
            ),
        )
        .unwrap();
        s
    }

    fn env(&self, c: &mut Command) {
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CODEX_HOME", &self.codex_home)
            .env("CLAUDE_CONFIG_DIR", &self.claude_home)
            .env("MEMKIT_HOME", &self.memkit_home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("MOCK_API_KEY", "mock")
            .env("ANTHROPIC_BASE_URL", &self.mock.url)
            .env("ANTHROPIC_API_KEY", "mock")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("TERM", "xterm-256color");
    }

    fn memkit(&self, args: &[&str]) -> String {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memkit"));
        self.env(&mut c);
        let out = c.args(args).output().unwrap();
        assert!(out.status.success(), "memkit {args:?}: {}", describe(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    fn codex_exec(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.agents.codex);
        self.env(&mut c);
        let out = c
            .current_dir(&self.project)
            .arg("exec")
            .args(["--skip-git-repo-check"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "codex exec {args:?}: {}",
            describe(&out)
        );
        out
    }

    fn claude(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.agents.claude);
        self.env(&mut c);
        let out = c
            .current_dir(&self.project)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "claude {args:?}: {}", describe(&out));
        out
    }

    /// Sessions of many projects, so the summary comes close to its
    /// 10,000-byte maximum and the memory block needs more than one of
    /// Claude Code's 10,000-character hook values.
    fn seed_history(&self) -> Vec<String> {
        let tools = [
            "pnpm",
            "ruff",
            "black",
            "cargo nextest",
            "pytest -x",
            "mypy --strict",
            "eslint",
            "prettier",
            "make",
            "just",
            "uv",
            "poetry",
            "golangci-lint",
            "terraform fmt",
            "helm lint",
            "bazel",
        ];
        let dir = self.codex_home.join("sessions/2026/11/20");
        std::fs::create_dir_all(&dir).unwrap();
        let mut ids = Vec::new();
        for n in 0..96 {
            let id = format!("019f{n:04x}-0000-7000-8000-{n:012x}");
            let tool = tools[n % tools.len()];
            let project = format!("/home/dev/project-{:02}", n / 4);
            let ts = "2026-11-20T10:00:00.000Z";
            let lines = [
                json!({"timestamp": ts, "type": "session_meta", "payload": {"id": id, "timestamp": ts, "cwd": project,
                    "originator": "codex-tui", "cli_version": "0.160.0", "source": "cli"}}),
                json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message",
                    "message": format!("From now on always use {tool} in this repo for checks, never anything else.")}}),
                json!({"timestamp": ts, "type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                    "call_id": "c1", "arguments": json!({"cmd": format!("{tool} --version")}).to_string()}}),
                json!({"timestamp": ts, "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                    "output": "Process exited with code 0\nOutput:\nok\n"}}),
            ];
            let path = dir.join(format!("rollout-2026-11-20T10-00-00-{id}.jsonl"));
            std::fs::write(
                &path,
                lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
            )
            .unwrap();
            set_mtime(&path, SystemTime::now() - Duration::from_secs(7 * 3600));
            ids.push(id);
        }
        ids
    }

    /// How many stage-1 outputs memkit holds for a session.
    fn outputs_of(&self, id: &str) -> i64 {
        rusqlite::Connection::open(self.memkit_home.join("memkit.sqlite"))
            .unwrap()
            .query_row(
                "SELECT COUNT(*) FROM stage1_outputs WHERE thread_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap()
    }

    fn requests_since(&self, n: usize) -> Vec<Request> {
        self.mock.requests().into_iter().skip(n).collect()
    }

    /// The newest rollout Codex wrote whose first user turn contains `marker`.
    fn rollout_with(&self, marker: &str) -> PathBuf {
        let mut found = Vec::new();
        common::visit(&self.codex_home.join("sessions"), &mut |p| {
            if p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
                && std::fs::read_to_string(p).is_ok_and(|t| t.contains(marker))
            {
                found.push(p.to_path_buf());
            }
        });
        assert_eq!(found.len(), 1, "one rollout with {marker}: {found:?}");
        found.pop().unwrap()
    }

    fn show(&self, path: &Path) -> Value {
        serde_json::from_str(&self.memkit(&["show-session", "--json", &path.display().to_string()]))
            .unwrap()
    }

    fn run(self) {
        let ids = self.seed_history();
        self.memkit(&["run"]);
        let memory = self.memkit_home.join("memories");
        let summary = std::fs::read_to_string(memory.join("memory_summary.md")).unwrap();
        let block = self.memkit(&["inject"]);
        assert!(
            block.encode_utf16().count() > 10_000,
            "the block needs more than one hook value ({} characters)",
            block.encode_utf16().count()
        );
        let history = git(&memory, &["rev-list", "HEAD"]);
        self.memkit(&["install", "codex"]);
        self.memkit(&["install", "claude"]);

        // 1. codex exec with a tool call: the request carries the whole summary.
        let before = self.mock.requests().len();
        self.codex_exec(&["RUN-TOOL From now on always use pnpm in this repo, never npm."]);
        let reqs = self.requests_since(before);
        let turn = reqs
            .iter()
            .find(|r| r.body.contains("RUN-TOOL"))
            .expect("codex exec reached the mock");
        let instructions: Vec<String> = turn.json()["input"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|i| i["content"].as_array().cloned().unwrap_or_default())
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .filter(|t| t.starts_with("# AGENTS.md instructions"))
            .collect();
        assert_eq!(instructions.len(), 1, "one AGENTS.md message");
        assert!(
            instructions[0].contains(summary.trim()),
            "codex exec carries memkit's whole summary"
        );

        // 2. A code-mode model: the command and exit code exist only in CommandExecution.
        self.codex_exec(&["-m", "gpt-6-sol", "CODE-MODE patch the readme"]);
        // 3. A reply that cites memory.
        self.codex_exec(&[&format!("CITE: {}", ids[0])]);

        // 4. claude -p with a tool call: the whole block, not a persisted-output preview.
        let before = self.mock.requests().len();
        self.claude(&["-p", "RUN-TOOL run the echo", "--allowedTools", "Bash"]);
        let reqs = self.requests_since(before);
        let first = reqs
            .iter()
            .find(|r| {
                r.path.split('?').next() == Some("/v1/messages") && r.body.contains("RUN-TOOL")
            })
            .expect("claude reached the mock");
        let texts = all_texts(&first.json());
        assert!(
            !texts.contains("persisted-output"),
            "no preview: the whole block"
        );
        assert!(
            texts.contains("[memkit memory, part 1 of 2]")
                && texts.contains("[memkit memory, part 2 of 2]"),
            "both hook values reached the model"
        );
        for line in summary.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                texts.contains(line),
                "claude -p carries the summary line {line:?}"
            );
        }

        // 5. A TUI session, left idle: memkit sees its human turn and extracts it.
        let tui = tmux_available()
            .then(|| self.codex_tui("From now on always run the linter with ruff in this repo."));

        // Codex's own memory writer never ran; memkit's history is intact.
        let all = self.mock.requests();
        assert!(
            !all.iter().any(is_memory_request),
            "Codex's memory writer made a request"
        );
        assert!(
            !self.codex_home.join("memories").exists(),
            "Codex wrote no memory folder"
        );
        let history_after = git(&memory, &["rev-list", "HEAD"]);
        assert!(
            history_after.ends_with(&history),
            "memkit's history is intact"
        );
        assert_eq!(git(&memory, &["status", "--porcelain"]), "");

        // memkit reads what the agents wrote.
        let tool_run = self.rollout_with("RUN-TOOL");
        let t = self.show(&tool_run);
        assert_eq!(
            humans(&t),
            vec!["RUN-TOOL From now on always use pnpm in this repo, never npm."],
            "exactly the human's words, once"
        );
        let calls = tool_calls(&t);
        assert!(
            calls
                .iter()
                .any(|c| c["input"] == "echo hello-from-codex && false" && c["exit_code"] == 1),
            "{calls:?}"
        );
        for h in humans(&t) {
            assert!(
                !h.contains("MEMORY_SUMMARY"),
                "memkit's block is not the human: {h}"
            );
        }
        let code_mode = self.show(&self.rollout_with("CODE-MODE"));
        assert_eq!(humans(&code_mode), vec!["CODE-MODE patch the readme"]);
        let calls = tool_calls(&code_mode);
        assert!(
            calls
                .iter()
                .any(|c| c["input"] == "echo code-mode-ran && exit 3" && c["exit_code"] == 3),
            "code mode shows the command it ran: {calls:?}"
        );
        assert!(!calls.iter().any(|c| {
            c["input"]
                .as_str()
                .unwrap_or("")
                .contains("tools.exec_command")
        }));
        let tool_id = t["info"]["id"].as_str().unwrap().to_string();
        self.memkit(&["extract", "--file", &tool_run.display().to_string()]);
        assert_eq!(
            self.outputs_of(&tool_id),
            1,
            "memkit extract --file stored an output for the codex exec session"
        );

        let transcripts = claude_transcripts(&self.claude_home);
        assert_eq!(transcripts.len(), 1);
        let c = self.show(&transcripts[0]);
        assert_eq!(
            humans(&c),
            vec!["RUN-TOOL run the echo"],
            "no hook context as the human"
        );
        assert!(
            tool_calls(&c)
                .iter()
                .any(|t| t["name"] == "Bash" && t["exit_code"] == 1),
            "{c}"
        );
        for h in humans(&c) {
            assert!(
                !h.contains("MEMORY_SUMMARY"),
                "the hook's block is not the human: {h}"
            );
        }

        // The cited reply counts once, however often citations are imported.
        let first: Value = serde_json::from_str(&self.memkit(&["cite-import", "--json"])).unwrap();
        assert_eq!(first["citations_found"], 1, "{first}");
        assert_eq!(first["outputs_bumped"], 1, "{first}");
        let again: Value = serde_json::from_str(&self.memkit(&["cite-import", "--json"])).unwrap();
        assert_eq!(again["outputs_bumped"], 0, "{again}");

        if let Some(tui) = tui {
            let path = self.rollout_with(&tui);
            set_mtime(&path, SystemTime::now() - Duration::from_secs(7 * 3600));
            let t = self.show(&path);
            assert_eq!(humans(&t), vec![tui.clone()], "the TUI's human turn, once");
            let id = t["info"]["id"].as_str().unwrap().to_string();
            let listed = json_lines(&self.memkit(&["sessions", "--json"]));
            let row = listed
                .iter()
                .find(|s| s["id"] == id.as_str())
                .expect("the TUI session is listed");
            assert!(row["human_turns"].as_u64().unwrap() >= 1, "{row}");
            assert_eq!(row["eligible"], true, "{row}");
            let report: Value = serde_json::from_str(&self.memkit(&["run", "--json"])).unwrap();
            let extract = report["stages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["stage"] == "extract")
                .unwrap();
            assert!(
                extract["report"]["succeeded"].as_u64().unwrap() >= 1,
                "{extract}"
            );
            assert_eq!(self.outputs_of(&id), 1, "the TUI session was extracted");
        } else {
            eprintln!("note: tmux is not installed; the Codex TUI part was skipped");
        }
        let after_run = git(&memory, &["rev-list", "HEAD"]);
        assert!(
            after_run.ends_with(&history),
            "memkit's full history is still there"
        );
        self.mcp_search();
        if std::env::var_os("MEMKIT_E2E_KEEP").is_some() {
            eprintln!("kept the homes and logs in {}", self.root.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    /// `install --mcp` registers memkit's MCP server; a mock model that asks
    /// for `search_memories` makes each agent run it, and the hits reach the
    /// model in the next request.
    fn mcp_search(&self) {
        self.memkit(&["install", "codex", "--mcp"]);
        self.memkit(&["install", "claude", "--mcp"]);
        let before = self.mock.requests().len();
        self.codex_exec(&[
            "-c",
            "mcp_servers.memkit.required=true",
            "MCP-SEARCH what do we check with?",
        ]);
        let reqs = self.requests_since(before);
        let first = reqs
            .iter()
            .find(|r| r.body.contains("MCP-SEARCH") && !r.body.contains("function_call_output"))
            .expect("codex asked the mock");
        let tools = first.json()["tools"].clone();
        let listed = tools.as_array().unwrap().iter().any(|t| {
            t["name"] == "mcp__memkit"
                && t["tools"]
                    .as_array()
                    .is_some_and(|ts| ts.iter().any(|f| f["name"] == "search_memories"))
        });
        assert!(listed, "codex lists memkit's tools to the model: {tools}");
        let outputs: Vec<String> = reqs
            .iter()
            .flat_map(|r| r.json()["input"].as_array().cloned().unwrap_or_default())
            .filter(|i| i["type"] == "function_call_output" && i["call_id"] == "call_mock_2")
            .map(|i| i["output"].to_string())
            .collect();
        assert!(
            outputs
                .iter()
                .any(|o| o.contains("pnpm") && o.contains("MEMORY.md")),
            "codex sent memkit's hits back to the model: {outputs:?}"
        );

        let before = self.mock.requests().len();
        self.claude(&[
            "-p",
            "MCP-SEARCH what do we check with?",
            "--allowedTools",
            "mcp__memkit__search_memories",
        ]);
        let results: Vec<String> = self
            .requests_since(before)
            .iter()
            .flat_map(|r| {
                let body = r.json();
                body["messages"].as_array().cloned().unwrap_or_default()
            })
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|c| c["type"] == "tool_result" && c["tool_use_id"] == "toolu_mock_2")
            .map(|c| c.to_string())
            .collect();
        assert!(
            results
                .iter()
                .any(|o| o.contains("pnpm") && o.contains("MEMORY.md")),
            "claude sent memkit's hits back to the model: {results:?}"
        );
        assert!(
            !results.iter().any(|o| o.contains("\"is_error\":true")),
            "{results:?}"
        );
    }

    /// Drives the Codex TUI under tmux: one prompt, then `/quit`. Returns the prompt.
    fn codex_tui(&self, prompt: &str) -> String {
        let socket = format!("memkit-e2e-{}", std::process::id());
        let tmux = |args: &[&str]| {
            Command::new("tmux")
                .args(["-L", &socket])
                .args(args)
                .output()
                .unwrap()
        };
        let screen = || {
            String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "cx"]).stdout).into_owned()
        };
        let wait = |what: &str| {
            let until = Instant::now() + Duration::from_secs(60);
            while Instant::now() < until {
                if screen().contains(what) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            panic!("the Codex TUI never showed {what:?}:\n{}", screen());
        };
        let mut env = Command::new("env");
        self.env(&mut env);
        let vars: Vec<String> = env
            .get_envs()
            .filter_map(|(k, v)| Some(format!("{}={}", k.to_str()?, shell_word(v?.to_str()?))))
            .collect();
        let command = format!(
            "cd {} && env -i {} {} --disable daemon_auto_start; echo CODEX-EXITED; sleep 600",
            shell_word(&self.project.display().to_string()),
            vars.join(" "),
            shell_word(&self.agents.codex.display().to_string())
        );
        assert!(
            tmux(&[
                "new-session",
                "-d",
                "-s",
                "cx",
                "-x",
                "160",
                "-y",
                "45",
                &command
            ])
            .status
            .success()
        );
        wait("Ask Codex to do anything");
        std::thread::sleep(Duration::from_secs(1));
        tmux(&["send-keys", "-t", "cx", "-l", prompt]);
        wait(&format!("› {prompt}"));
        tmux(&["send-keys", "-t", "cx", "Enter"]);
        wait("Worked for");
        std::thread::sleep(Duration::from_secs(1));
        tmux(&["send-keys", "-t", "cx", "-l", "/quit"]);
        std::thread::sleep(Duration::from_millis(500));
        tmux(&["send-keys", "-t", "cx", "Enter"]);
        wait("CODEX-EXITED");
        tmux(&["kill-server"]);
        prompt.to_string()
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn shell_word(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every string in a JSON value, joined by newlines.
fn all_texts(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

fn tool_calls(t: &Value) -> Vec<Value> {
    t["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .cloned()
        .collect()
}

fn humans(t: &Value) -> Vec<String> {
    t["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "message" && e["role"] == "user")
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect()
}

fn claude_transcripts(claude_home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    common::visit(&claude_home.join("projects"), &mut |p| {
        if p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().contains("subagents")
        {
            out.push(p.to_path_buf());
        }
    });
    out
}
