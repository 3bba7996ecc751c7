//! `memkit mcp`: a Model Context Protocol server on stdin/stdout that gives
//! any agent memkit's memory tools (search, get, list, add, delete).
//!
//! Why a small synchronous JSON-RPC loop on `serde_json` and not the official
//! Rust SDK (`rmcp`): memkit is a synchronous program, and `rmcp` is async
//! (tokio runtime, its macros and their dependency tree), which would be the
//! largest part of memkit's build for the five methods a tools-only stdio
//! server needs (`initialize`, `ping`, `tools/list`, `tools/call`, and the
//! `notifications/initialized` it must accept). The stdio transport is one
//! JSON-RPC message per line, answered in order; the tools are thin adapters
//! over the library functions the CLI commands use ([`tools`]).
//!
//! Nothing a client sends stops the server: a line that is not JSON, a
//! request that is not JSON-RPC, an unknown method or bad tool arguments get
//! an error answer, and the loop goes on until stdin closes.

pub mod protocol;
pub mod tools;

use crate::error::{Error, Result};
use protocol::{Message, code};
use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// Protocol versions this server speaks, newest first (a tools-only server
/// is the same in each). A client asking for one of them gets it; any other
/// request gets the newest. Claude Code 2.1 asks for 2025-11-25 and refuses
/// a version it does not know; Codex 0.171 asks for 2025-06-18.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Longest message read, bytes (a longer line is skipped whole and answered
/// with a parse error; memory stays bounded).
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// What the server tells the agent about using it.
const INSTRUCTIONS: &str = "memkit holds the long-term memory of past coding sessions. When the \
memory summary in your instructions does not answer, call search_memories with the question in \
your own words before searching files; read more around a hit with get_memory.";

/// Serves MCP on `input`/`output` until `input` ends.
pub fn serve(tools: &mut tools::Tools, input: impl BufRead, mut output: impl Write) -> Result<()> {
    let mut lines = BoundedLines::new(input);
    while let Some(line) = lines
        .next_line()
        .map_err(|e| Error::failed(format!("stdin: {e}")))?
    {
        let answer = match line {
            Line::TooLong => Some(protocol::error(
                &Value::Null,
                code::PARSE_ERROR,
                format!("message longer than {MAX_MESSAGE_BYTES} bytes"),
            )),
            Line::Text(text) if text.trim().is_empty() => None,
            Line::Text(text) => match serde_json::from_str::<Value>(&text) {
                Err(e) => Some(protocol::error(
                    &Value::Null,
                    code::PARSE_ERROR,
                    format!("not JSON: {e}"),
                )),
                Ok(Value::Array(batch)) => {
                    let answers: Vec<Value> = batch
                        .into_iter()
                        .filter_map(|m| handle(tools, protocol::parse(m)))
                        .collect();
                    (!answers.is_empty()).then_some(Value::Array(answers))
                }
                Ok(value) => handle(tools, protocol::parse(value)),
            },
        };
        if let Some(answer) = answer {
            let mut text = serde_json::to_string(&answer).expect("JSON values serialise");
            text.push('\n');
            output
                .write_all(text.as_bytes())
                .and_then(|()| output.flush())
                .map_err(|e| Error::failed(format!("stdout: {e}")))?;
        }
    }
    Ok(())
}

/// The answer to one message (`None` for notifications and responses).
fn handle(tools: &mut tools::Tools, message: Message) -> Option<Value> {
    match message {
        Message::Notification { .. } | Message::Response => None,
        Message::Invalid { id, error } => Some(protocol::error(&id, code::INVALID_REQUEST, error)),
        Message::Request { id, method, params } => Some(match method.as_str() {
            "initialize" => protocol::result(&id, initialize(&params)),
            "ping" => protocol::result(&id, json!({})),
            "tools/list" => protocol::result(&id, json!({"tools": tools::definitions()})),
            "tools/call" => call(tools, &id, &params),
            _ => protocol::error(&id, code::METHOD_NOT_FOUND, format!("no method {method:?}")),
        }),
    }
}

fn initialize(params: &Value) -> Value {
    let asked = params["protocolVersion"].as_str();
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "memkit", "version": env!("CARGO_PKG_VERSION")},
        "instructions": INSTRUCTIONS,
    })
}

/// `tools/call`: a bad request is a JSON-RPC error; a failing tool is a
/// result with `isError`, which the model reads.
fn call(tools: &mut tools::Tools, id: &Value, params: &Value) -> Value {
    let Some(name) = params["name"].as_str() else {
        return protocol::error(id, code::INVALID_PARAMS, "tools/call needs a tool name");
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(v) => v.clone(),
    };
    if tools::definition(name).is_none() {
        return protocol::error(id, code::INVALID_PARAMS, format!("no tool named {name:?}"));
    }
    match tools.call(name, &args) {
        Ok(answer) => protocol::result(
            id,
            json!({
                "content": [{"type": "text", "text": answer.text}],
                "structuredContent": answer.structured,
                "isError": false,
            }),
        ),
        Err(message) => protocol::result(
            id,
            json!({"content": [{"type": "text", "text": message}], "isError": true}),
        ),
    }
}

/// One line of input.
enum Line {
    /// The line (lossy UTF-8, without its newline).
    Text(String),
    /// A line longer than [`MAX_MESSAGE_BYTES`], skipped.
    TooLong,
}

/// Lines of at most [`MAX_MESSAGE_BYTES`]; a longer one is read past, not kept.
struct BoundedLines<R> {
    input: R,
}

impl<R: BufRead> BoundedLines<R> {
    fn new(input: R) -> Self {
        BoundedLines { input }
    }

    fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut too_long = false;
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(match (line.is_empty(), too_long) {
                    (true, false) => None,
                    (_, true) => Some(Line::TooLong),
                    _ => Some(Line::Text(String::from_utf8_lossy(&line).into_owned())),
                });
            }
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            if !too_long && line.len() + chunk.len() <= MAX_MESSAGE_BYTES {
                line.extend_from_slice(chunk);
            } else {
                too_long = true;
                line.clear();
            }
            let used = done.unwrap_or(buf.len());
            self.input.consume(used);
            if done.is_some() {
                return Ok(Some(if too_long {
                    Line::TooLong
                } else {
                    Line::Text(String::from_utf8_lossy(&line).into_owned())
                }));
            }
        }
    }
}
