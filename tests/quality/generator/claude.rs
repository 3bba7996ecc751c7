//! Claude Code transcript writer (2.1.x): a chain of user and assistant
//! entries, one content block per assistant line (a response's lines share
//! its `message.id`), `Bash` tool_use blocks answered by tool_result entries,
//! CLAUDE.md and system reminders as `<system-reminder>` blocks on the next
//! prompt, meta entries and command wrappers as the harness writes them.

use super::clock::rfc3339;
use super::json::{Obj, array, quote};
use super::rng::Rng;
use super::session::{Context, Session, Step};

const VERSION: &str = "2.1.40";
const MODEL: &str = "claude-opus-4-6";

/// The project folder name Claude Code uses for `cwd`: every character that
/// is not a letter or digit becomes `-`.
pub fn project_dir(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Writes one transcript; `times` holds each step's Unix milliseconds.
/// Returns the text and its last timestamp.
pub fn write(s: &Session, session_id: &str, times: &[i64], rng: &mut Rng) -> (String, i64) {
    let mut w = Writer {
        s,
        session_id,
        out: String::new(),
        parent: None,
        response: None,
        reminders: Vec::new(),
        last: 0,
    };
    for (step, &at) in s.steps.iter().zip(times) {
        match step {
            Step::Context(Context::Instructions(text)) => w.reminders.push(format!(
                "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nContents of {}/CLAUDE.md (project instructions, checked into the codebase):\n\n{text}\n\nIMPORTANT: this context may or may not be relevant to your tasks.\n</system-reminder>",
                s.cwd
            )),
            Step::Context(Context::Reminder(text)) => w
                .reminders
                .push(format!("<system-reminder>\n{text}\n</system-reminder>")),
            Step::Context(Context::Meta(text)) => {
                w.user(at, &array(vec![text_block(text)]), true, rng);
            }
            Step::Context(Context::Wrapper(text)) => w.user(at, &quote(text), false, rng),
            Step::User(text) => {
                let content = if w.reminders.is_empty() {
                    quote(text)
                } else {
                    let mut blocks: Vec<Obj> =
                        w.reminders.drain(..).map(|r| text_block(&r)).collect();
                    blocks.push(text_block(text));
                    array(blocks)
                };
                w.user(at, &content, false, rng);
            }
            Step::Agent(text) => w.assistant(at, text_block(text), "end_turn", rng),
            Step::Command { cmd, exit, output } => {
                let tool_id = format!("toolu_{}", rng.alnum(24));
                let input = Obj::new()
                    .s("command", cmd)
                    .s("description", &describe(cmd));
                let block = Obj::new()
                    .s("type", "tool_use")
                    .s("id", &tool_id)
                    .s("name", "Bash")
                    .o("input", input);
                w.assistant(at, block, "tool_use", rng);
                w.response = None;
                w.tool_result(at + rng.range(200, 9000), &tool_id, *exit, output, rng);
            }
        }
    }
    (w.out, w.last)
}

/// Lines being written and the chain they form.
struct Writer<'a> {
    s: &'a Session,
    session_id: &'a str,
    out: String,
    /// The uuid of the last entry.
    parent: Option<String>,
    /// The message and request ids of the response being written.
    response: Option<(String, String)>,
    /// Reminders waiting for the next prompt.
    reminders: Vec<String>,
    /// The latest timestamp written.
    last: i64,
}

impl Writer<'_> {
    /// Appends one entry; `body` adds the fields between `type` and `uuid`.
    fn entry(&mut self, at: i64, kind: &str, body: impl FnOnce(Obj) -> Obj, rng: &mut Rng) {
        self.last = self.last.max(at);
        let uuid = rng.uuid_v4();
        let head = Obj::new()
            .raw(
                "parentUuid",
                &self.parent.as_deref().map_or("null".to_string(), quote),
            )
            .b("isSidechain", false)
            .s("userType", "external")
            .s("cwd", &self.s.cwd)
            .s("sessionId", self.session_id)
            .s("version", VERSION)
            .s("gitBranch", &self.s.branch)
            .s("entrypoint", "cli")
            .s("type", kind);
        let line = body(head)
            .s("uuid", &uuid)
            .s("timestamp", &rfc3339(at))
            .end();
        self.out.push_str(&line);
        self.out.push('\n');
        self.parent = Some(uuid);
    }

    /// A user entry whose message content is `content` (rendered JSON).
    fn user(&mut self, at: i64, content: &str, meta: bool, rng: &mut Rng) {
        self.response = None;
        let message = Obj::new().s("role", "user").raw("content", content);
        self.entry(
            at,
            "user",
            |o| {
                let o = if meta { o.b("isMeta", true) } else { o };
                o.o("message", message)
            },
            rng,
        );
    }

    /// One content block of the current assistant response.
    fn assistant(&mut self, at: i64, block: Obj, stop: &str, rng: &mut Rng) {
        let (id, request) = self
            .response
            .get_or_insert_with(|| {
                (
                    format!("msg_01{}", rng.alnum(22)),
                    format!("req_011{}", rng.alnum(21)),
                )
            })
            .clone();
        let usage = Obj::new()
            .n("input_tokens", rng.range(4, 40))
            .n("cache_creation_input_tokens", rng.range(200, 4000))
            .n("cache_read_input_tokens", rng.range(10_000, 60_000))
            .n("output_tokens", rng.range(20, 900));
        let message = Obj::new()
            .s("id", &id)
            .s("type", "message")
            .s("role", "assistant")
            .s("model", MODEL)
            .a("content", vec![block])
            .s("stop_reason", stop)
            .raw("stop_sequence", "null")
            .o("usage", usage);
        self.entry(
            at,
            "assistant",
            |o| o.s("requestId", &request).o("message", message),
            rng,
        );
    }

    /// The tool_result entry answering a Bash call.
    fn tool_result(&mut self, at: i64, tool_id: &str, exit: i64, output: &str, rng: &mut Rng) {
        let failed = exit != 0;
        let text = if failed {
            format!("Exit code {exit}\n{output}")
        } else {
            output.to_string()
        };
        let result = Obj::new()
            .s("type", "tool_result")
            .s("tool_use_id", tool_id)
            .s("content", &text)
            .b("is_error", failed);
        let message = Obj::new().s("role", "user").a("content", vec![result]);
        let structured = if failed {
            quote(&format!("Error: {text}"))
        } else {
            Obj::new()
                .s("stdout", output)
                .s("stderr", "")
                .b("interrupted", false)
                .b("isImage", false)
                .end()
        };
        self.entry(
            at,
            "user",
            |o| o.o("message", message).raw("toolUseResult", &structured),
            rng,
        );
    }
}

fn text_block(text: &str) -> Obj {
    Obj::new().s("type", "text").s("text", text)
}

/// A Bash description as Claude writes one: what the command is for.
fn describe(cmd: &str) -> String {
    let words: Vec<&str> = cmd.split_whitespace().take(3).collect();
    format!("Run {}", words.join(" "))
}
