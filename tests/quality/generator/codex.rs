//! Codex rollout writer, in two generations: 0.1xx files (`user_message`
//! events, `exec_command` function calls with their text outputs, assistant
//! response items echoed as `agent_message` events) and 0.169+ files (the
//! human's words, the replies and the commands as `event_msg/item_completed`
//! items, each beside its response-item twin, every line with an `ordinal`).

use super::clock::{date, rfc3339};
use super::json::{Obj, quote, strings};
use super::rng::Rng;
use super::session::{Context, Session, Step, Tool};

/// The system prompt's stand-in.
const BASE_INSTRUCTIONS: &str = "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals.";

/// Writes one rollout; `times` holds each step's Unix milliseconds.
/// Returns the text and its last timestamp.
pub fn write(s: &Session, id: &str, start: i64, times: &[i64], rng: &mut Rng) -> (String, i64) {
    let modern = s.tool == Tool::CodexModern;
    let mut w = Writer {
        out: String::new(),
        thread: id,
        ordinal: modern.then_some(0),
        last: start,
    };
    w.line(
        start,
        "session_meta",
        session_meta(s, id, start, modern, rng),
    );
    w.line(start, "response_item", developer_message());
    let instructions = s.steps.iter().find_map(|step| match step {
        Step::Context(Context::Instructions(text)) => Some(text.as_str()),
        _ => None,
    });
    w.line(start, "response_item", context_message(s, instructions));
    for (n, turn) in turns(&s.steps).iter().enumerate() {
        write_turn(&mut w, s, turn, n, times, rng);
    }
    (w.out, w.last)
}

/// Writes one turn: its start, context and steps, token usage and completion.
fn write_turn(
    w: &mut Writer<'_>,
    s: &Session,
    turn: &Turn,
    n: usize,
    times: &[i64],
    rng: &mut Rng,
) {
    let modern = s.tool == Tool::CodexModern;
    let t0 = times[turn.start];
    let turn_id = rng.uuid_v7(t0);
    w.line(
        t0,
        "event_msg",
        Obj::new()
            .s("type", "task_started")
            .s("turn_id", &turn_id)
            .n("started_at", t0 / 1000)
            .n("model_context_window", 258_400),
    );
    w.line(t0, "turn_context", turn_context(s, &turn_id, t0));
    let mut last_reply = "";
    let steps = s.steps.iter().zip(times).enumerate();
    for (i, (step, &at)) in steps.take(turn.end).skip(turn.start) {
        match step {
            Step::User(text) if modern => modern_user(w, at, &turn_id, text, rng),
            Step::User(text) => legacy_user(w, at, text),
            Step::Agent(text) => {
                let phase = if turn.final_reply == Some(i) {
                    "final_answer"
                } else {
                    "commentary"
                };
                if modern {
                    modern_reply(w, at, &turn_id, text, phase, rng);
                } else {
                    legacy_reply(w, at, text, phase);
                }
                last_reply = text;
            }
            Step::Command { cmd, exit, output } => {
                let call = Call {
                    id: format!("call_{}", rng.alnum(24)),
                    cmd,
                    exit: *exit,
                    output,
                };
                command(w, at, s, &turn_id, &call, modern, rng);
            }
            Step::Context(Context::Instructions(_)) => {}
            Step::Context(other) => panic!("Codex sessions carry no {other:?}"),
        }
    }
    let end = w.last + 400;
    if modern {
        let usage = Obj::new()
            .s("thread_id", w.thread)
            .s("turn_id", &turn_id)
            .o("usage", totals(rng, n));
        w.line(end, "token_usage_record", usage);
    } else {
        let info = Obj::new()
            .o("total_token_usage", totals(rng, n))
            .n("model_context_window", 258_400);
        w.line(
            end,
            "event_msg",
            Obj::new()
                .s("type", "token_count")
                .o("info", info)
                .raw("rate_limits", "null"),
        );
    }
    w.line(
        end,
        "event_msg",
        Obj::new()
            .s("type", "task_complete")
            .s("turn_id", &turn_id)
            .s("last_agent_message", last_reply)
            .n("completed_at", end / 1000)
            .n("duration_ms", end - t0),
    );
}

/// Lines being written, with their ordinals in 0.169+ files.
struct Writer<'a> {
    out: String,
    thread: &'a str,
    ordinal: Option<i64>,
    /// The latest timestamp written.
    last: i64,
}

impl Writer<'_> {
    fn line(&mut self, at: i64, kind: &str, payload: Obj) {
        self.last = self.last.max(at);
        let mut line = Obj::new().s("timestamp", &rfc3339(at));
        if let Some(n) = self.ordinal.as_mut() {
            line = line.n("ordinal", *n);
            *n += 1;
        }
        self.out
            .push_str(&line.s("type", kind).o("payload", payload).end());
        self.out.push('\n');
    }

    /// The payload of an `item_completed` event, before its item.
    fn completed(&self, turn_id: &str, at: i64) -> Obj {
        Obj::new()
            .s("type", "item_completed")
            .s("thread_id", self.thread)
            .s("turn_id", turn_id)
            .n("completed_at_ms", at)
    }
}

/// A turn: the steps from one human message to the next.
struct Turn {
    start: usize,
    end: usize,
    /// The reply that ends the turn (no command after it).
    final_reply: Option<usize>,
}

fn turns(steps: &[Step]) -> Vec<Turn> {
    let starts: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Step::User(_)))
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let end = starts.get(n + 1).copied().unwrap_or(steps.len());
            let last = (start..end)
                .rev()
                .find(|&i| !matches!(steps[i], Step::Context(_)));
            let final_reply = last.filter(|&i| matches!(steps[i], Step::Agent(_)));
            Turn {
                start,
                end,
                final_reply,
            }
        })
        .collect()
}

fn session_meta(s: &Session, id: &str, start: i64, modern: bool, rng: &mut Rng) -> Obj {
    let repo = s.cwd.rsplit('/').next().unwrap_or("repo");
    let git = Obj::new()
        .s("commit_hash", &rng.hex(40))
        .s("branch", &s.branch)
        .s(
            "repository_url",
            &format!("git@github.com:northwind-dev/{repo}.git"),
        );
    let mut meta = Obj::new();
    if modern {
        meta = meta.s("session_id", id);
    }
    meta = meta
        .s("id", id)
        .s("timestamp", &rfc3339(start))
        .s("cwd", &s.cwd)
        .s("originator", "codex-tui")
        .s("cli_version", if modern { "0.171.0" } else { "0.128.0" })
        .s("source", "cli")
        .s("thread_source", "user")
        .s("model_provider", "openai")
        .o("base_instructions", Obj::new().s("text", BASE_INSTRUCTIONS));
    if modern {
        meta = meta
            .s("history_mode", "paginated")
            .o("context_window", Obj::new().s("window_id", &rng.hex(12)));
    }
    meta.o("git", git)
}

fn developer_message() -> Obj {
    let text = "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and `writable_roots`. Network access is restricted.\nApprovals are your mechanism to get user consent to run shell commands without the sandbox. `approval_policy` is `on-request`.\n</permissions instructions>";
    Obj::new().s("type", "message").s("role", "developer").a(
        "content",
        vec![Obj::new().s("type", "input_text").s("text", text)],
    )
}

/// The user-role message Codex injects first: AGENTS.md (when the project
/// has one) and the environment context.
fn context_message(s: &Session, instructions: Option<&str>) -> Obj {
    let mut content = Vec::new();
    if let Some(text) = instructions {
        content.push(Obj::new().s("type", "input_text").s(
            "text",
            &format!(
                "# AGENTS.md instructions for {}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>",
                s.cwd
            ),
        ));
    }
    let env = format!(
        "<environment_context>\n  <cwd>{}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
        s.cwd
    );
    content.push(Obj::new().s("type", "input_text").s("text", &env));
    Obj::new()
        .s("type", "message")
        .s("role", "user")
        .a("content", content)
}

fn turn_context(s: &Session, turn_id: &str, at: i64) -> Obj {
    Obj::new()
        .s("turn_id", turn_id)
        .s("cwd", &s.cwd)
        .s("current_date", &date(at))
        .s("timezone", "Etc/UTC")
        .s("approval_policy", "on-request")
        .o(
            "sandbox_policy",
            Obj::new()
                .s("type", "workspace-write")
                .b("network_access", false),
        )
        .s("model", "gpt-5.5")
        .s("effort", "medium")
        .s("summary", "auto")
}

fn input_message(text: &str) -> Obj {
    Obj::new().s("type", "message").s("role", "user").a(
        "content",
        vec![Obj::new().s("type", "input_text").s("text", text)],
    )
}

fn legacy_user(w: &mut Writer<'_>, at: i64, text: &str) {
    w.line(at, "response_item", input_message(text));
    w.line(
        at,
        "event_msg",
        Obj::new()
            .s("type", "user_message")
            .s("message", text)
            .raw("images", "[]")
            .raw("local_images", "[]")
            .raw("text_elements", "[]"),
    );
}

fn modern_user(w: &mut Writer<'_>, at: i64, turn_id: &str, text: &str, rng: &mut Rng) {
    let item_id = format!("msg_{}", rng.hex(32));
    w.line(
        at,
        "response_item",
        input_message(text).s("id", &item_id).o(
            "internal_chat_message_metadata_passthrough",
            Obj::new()
                .s("turn_id", turn_id)
                .raw("content_item_kinds", &strings(&["user.text"])),
        ),
    );
    w.line(
        at,
        "event_msg",
        w.completed(turn_id, at).o(
            "item",
            Obj::new()
                .s("type", "UserMessage")
                .s("id", &rng.uuid_v4())
                .a(
                    "content",
                    vec![
                        Obj::new()
                            .s("type", "text")
                            .s("text", text)
                            .raw("text_elements", "[]"),
                    ],
                ),
        ),
    );
}

fn reply_item(id: Option<&str>, text: &str, phase: &str) -> Obj {
    let mut item = Obj::new().s("type", "message");
    if let Some(id) = id {
        item = item.s("id", id);
    }
    item.s("role", "assistant")
        .a(
            "content",
            vec![
                Obj::new()
                    .s("type", "output_text")
                    .s("text", text)
                    .raw("annotations", "[]"),
            ],
        )
        .s("phase", phase)
}

fn legacy_reply(w: &mut Writer<'_>, at: i64, text: &str, phase: &str) {
    w.line(at, "response_item", reply_item(None, text, phase));
    w.line(
        at,
        "event_msg",
        Obj::new()
            .s("type", "agent_message")
            .s("message", text)
            .s("phase", phase)
            .raw("memory_citation", "null"),
    );
}

fn modern_reply(
    w: &mut Writer<'_>,
    at: i64,
    turn_id: &str,
    text: &str,
    phase: &str,
    rng: &mut Rng,
) {
    let id = format!("msg_{}", rng.hex(32));
    w.line(
        at,
        "event_msg",
        w.completed(turn_id, at).o(
            "item",
            Obj::new().s("type", "AgentMessage").s("id", &id).a(
                "content",
                vec![Obj::new().s("type", "Text").s("text", text)],
            ),
        ),
    );
    w.line(at, "response_item", reply_item(Some(&id), text, phase));
}

/// A shell command the agent ran.
struct Call<'a> {
    id: String,
    cmd: &'a str,
    exit: i64,
    output: &'a str,
}

fn command(
    w: &mut Writer<'_>,
    at: i64,
    s: &Session,
    turn_id: &str,
    call: &Call<'_>,
    modern: bool,
    rng: &mut Rng,
) {
    let args = Obj::new()
        .s("cmd", call.cmd)
        .s("workdir", &s.cwd)
        .n("yield_time_ms", 10_000)
        .end();
    let mut fc = Obj::new().s("type", "function_call");
    if modern {
        fc = fc.s("id", &format!("fc_{}", rng.hex(32)));
    }
    w.line(
        at,
        "response_item",
        fc.s("name", "exec_command")
            .s("arguments", &args)
            .s("call_id", &call.id),
    );
    let wall_ms = rng.range(40, 9000);
    let done = at + wall_ms;
    if modern {
        w.line(
            done,
            "event_msg",
            w.completed(turn_id, done).o(
                "item",
                Obj::new()
                    .s("type", "CommandExecution")
                    .s("id", &call.id)
                    .s("process_id", &rng.range(1000, 60_000).to_string())
                    .raw("command", &strings(&["/bin/bash", "-lc", call.cmd]))
                    .s("cwd", &format!("file://{}", s.cwd))
                    .raw("parsed_cmd", "[]")
                    .s("source", "unified_exec_startup")
                    .s(
                        "status",
                        if call.exit == 0 {
                            "completed"
                        } else {
                            "failed"
                        },
                    )
                    .s("aggregated_output", call.output)
                    .n("exit_code", call.exit)
                    .o(
                        "duration",
                        Obj::new()
                            .n("secs", wall_ms / 1000)
                            .n("nanos", wall_ms % 1000 * 1_000_000),
                    ),
            ),
        );
    }
    let text = format!(
        "Chunk ID: {}\nWall time: {}.{:03} seconds\nProcess exited with code {}\nOriginal token count: {}\nOutput:\n{}",
        rng.hex(6),
        wall_ms / 1000,
        wall_ms % 1000,
        call.exit,
        call.output.len() / 4,
        call.output
    );
    let mut out = Obj::new().s("type", "function_call_output");
    if modern {
        out = out.s("id", &format!("fco_{}", rng.hex(32)));
    }
    w.line(
        done,
        "response_item",
        out.s("call_id", &call.id).raw("output", &quote(&text)),
    );
}

/// Token counts of a turn.
fn totals(rng: &mut Rng, turn: usize) -> Obj {
    let input = 18_000 + turn as i64 * 6_500 + rng.range(0, 4000);
    let output = rng.range(300, 3000);
    Obj::new()
        .n("input_tokens", input)
        .n("cached_input_tokens", input / 2)
        .n("output_tokens", output)
        .n("reasoning_output_tokens", output / 3)
        .n("total_tokens", input + output)
}
