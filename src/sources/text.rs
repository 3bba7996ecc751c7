//! Text rules shared by the readers: what counts as injected context, how tool
//! outputs carry exit codes, and how long texts are bounded.

/// Openings of Codex user/developer messages that the harness injected.
const CODEX_CONTEXT_OPENINGS: &[&str] = &[
    "# agents.md instructions",
    "<user_instructions>",
    "<environment_context>",
    "<skill>",
    "<turn_aborted>",
    "<user_action>",
    "<recommended_plugins>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<apps_instructions>",
    "<plugins_instructions>",
    "<multi_agent_mode>",
    "<model_switch>",
    "<subagent_notification>",
    "<user_shell_command>",
];

/// Whether a Codex user-role text is context the harness injected, not the human.
pub fn is_codex_injected(text: &str) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(40)
        .collect::<String>()
        .to_ascii_lowercase();
    CODEX_CONTEXT_OPENINGS.iter().any(|o| head.starts_with(o))
}

/// Whether a text is memkit's own read-path block, or a part of it, as an
/// agent's log may record it (a hook's output, an instruction file pasted
/// back): it starts with the block's marker or a part header, or holds the
/// whole summary frame. Such text is never the human's words: memory must
/// not feed on itself. A message that merely mentions the markers is the
/// human's.
pub fn carries_memkit_block(text: &str) -> bool {
    use crate::readpath::{
        BLOCK_BEGIN_MARKER, PART_HEADER_PREFIX, SUMMARY_BEGINS_MARKER, SUMMARY_ENDS_MARKER,
    };
    let t = text.trim_start();
    t.starts_with(BLOCK_BEGIN_MARKER)
        || t.starts_with(PART_HEADER_PREFIX)
        || (t.contains(SUMMARY_BEGINS_MARKER) && t.contains(SUMMARY_ENDS_MARKER))
}

/// Old Codex prompts carry a `## My request for Codex:` marker; the request follows it.
pub fn codex_request_text(text: &str) -> &str {
    const MARKER: &str = "## My request for Codex:";
    match text.find(MARKER) {
        Some(i) => text[i + MARKER.len()..].trim(),
        None => text.trim(),
    }
}

/// The `<cwd>` inside an `<environment_context>` block.
pub fn environment_cwd(text: &str) -> Option<String> {
    let start = text.find("<cwd>")? + "<cwd>".len();
    let end = text[start..].find("</cwd>")? + start;
    let cwd = text[start..end].trim();
    (!cwd.is_empty()).then(|| cwd.to_string())
}

/// The exit code Codex wrote into a tool output, in either of its forms:
/// a JSON wrapper `{"output": …, "metadata": {"exit_code": N}}` or the text
/// header `Process exited with code N`.
///
/// Returns the exit code and the output text without its wrapper.
pub fn codex_output(raw: &str) -> (String, Option<i64>) {
    let trimmed = raw.trim_start();
    if trimmed.starts_with('{')
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(trimmed)
        && let Some(out) = v.get("output").and_then(|o| o.as_str())
    {
        let code = v
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(|c| c.as_i64());
        return (out.to_string(), code);
    }
    let mut code = None;
    let mut offset = 0;
    for line in raw.split_inclusive('\n').take(8) {
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = line.strip_prefix("Process exited with code ") {
            code = rest.trim().parse().ok();
        }
        if line == "Output:" {
            if code.is_some() {
                return (raw[offset..].to_string(), code);
            }
            break;
        }
    }
    (raw.to_string(), code)
}

/// The exit code at the start of a Claude Code Bash error (`Exit code N`).
pub fn claude_exit_code(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Removes every `<system-reminder>…</system-reminder>` block.
pub fn strip_system_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        match rest[i..].find(CLOSE) {
            Some(j) => rest = &rest[i + j + CLOSE.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// What a Claude Code user text turned out to be.
#[derive(Debug, PartialEq)]
pub enum ClaudeUserText {
    /// Something the human typed (a prompt, or a custom slash command with its arguments).
    Human(String),
    /// Harness output or wrappers: not the human.
    Context,
}

/// Built-in Claude Code commands that manage the session rather than ask for work.
const HOUSEKEEPING_COMMANDS: &[&str] = &[
    "/compact",
    "/clear",
    "/cost",
    "/model",
    "/help",
    "/status",
    "/config",
    "/login",
    "/logout",
    "/resume",
    "/exit",
    "/quit",
    "/permissions",
    "/doctor",
    "/ide",
    "/mcp",
    "/hooks",
    "/agents",
    "/context",
    "/usage",
    "/vim",
    "/theme",
    "/terminal-setup",
    "/upgrade",
    "/add-dir",
    "/bashes",
    "/export",
    "/release-notes",
    "/privacy-settings",
    "/output-style",
    "/statusline",
    "/todos",
    "/rewind",
    "/memory",
    "/plugin",
    "/fast",
    "/sandbox",
    "/stats",
];

/// Openings of Claude Code user texts that are wrappers or harness output.
const CLAUDE_CONTEXT_OPENINGS: &[&str] = &[
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<user-memory-input>",
    "Caveat: The messages below were generated by the user while running local commands",
    "[Request interrupted by user",
    "This session is being continued from a previous conversation",
    "SessionStart hook additional context:",
];

fn tag_body<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim())
}

/// Classifies a Claude Code user text (from a non-meta entry).
pub fn classify_claude_user_text(text: &str) -> ClaudeUserText {
    let cleaned = strip_system_reminders(text);
    let t = cleaned.trim();
    if t.is_empty()
        || CLAUDE_CONTEXT_OPENINGS.iter().any(|o| t.starts_with(o))
        || carries_memkit_block(t)
    {
        return ClaudeUserText::Context;
    }
    if let Some(name) = tag_body(t, "command-name") {
        if HOUSEKEEPING_COMMANDS.contains(&name) {
            return ClaudeUserText::Context;
        }
        let args = tag_body(t, "command-args").unwrap_or("");
        let intent = if args.is_empty() {
            name.to_string()
        } else {
            format!("{name} {args}")
        };
        return ClaudeUserText::Human(intent);
    }
    if t.starts_with("<command-message>") {
        return ClaudeUserText::Context;
    }
    ClaudeUserText::Human(t.to_string())
}

/// Applies an optional byte bound to a text, keeping head and tail.
///
/// Cuts fall on line boundaries (or the text is redacted first), so what is
/// kept can still be redacted reliably later: see [`crate::redact::cut_middle`].
pub fn bounded(text: String, max: Option<usize>) -> String {
    match max {
        Some(max) if text.len() > max => crate::redact::cut_middle(&text, max),
        _ => text,
    }
}

/// Decodes a JSON string literal (`raw`, with its quotes), keeping only its
/// head and tail when the decoded text would exceed `max` bytes: the middle
/// of a multi-megabyte tool output is skipped without being unescaped.
///
/// Cuts fall just after a `\n` escape (else the whole string is decoded and
/// cut as text), and a private-key block is always decoded whole so
/// [`bounded`] can redact it before cutting.
pub fn json_string_bounded(raw: &str, max: Option<usize>) -> Option<String> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    json_body_bounded(body.as_bytes(), max)
}

/// Like [`json_string_bounded`], for the bytes between the quotes. Only the
/// kept head and tail need to be valid UTF-8 (the dropped middle is never
/// decoded). Cuts fall just after a `\n` escape, so every kept line is whole;
/// otherwise the whole string is decoded and cut by [`bounded`].
pub fn json_body_bounded(body: &[u8], max: Option<usize>) -> Option<String> {
    let decode = |piece: &[u8]| {
        let text = std::str::from_utf8(piece).ok()?;
        serde_json::from_str::<String>(&format!("\"{text}\"")).ok()
    };
    let whole = |max: Option<usize>| decode(body).map(|t| bounded(t, max));
    let Some(max) = max else {
        return decode(body);
    };
    if body.len() <= max {
        return whole(Some(max));
    }
    match crate::redact::cuts_after(body, max, b'n', |i| ends_newline_escape(body, i)) {
        Some((h, t)) => Some(format!(
            "{}{}{}",
            decode(&body[..h])?,
            crate::util::text::truncation_marker(t - h),
            decode(&body[t..])?
        )),
        None => whole(Some(max)),
    }
}

/// Whether the byte at `i` ends a complete `\n` escape (an odd run of backslashes before `n`).
fn ends_newline_escape(bytes: &[u8], i: usize) -> bool {
    if i == 0 || bytes[i] != b'n' || bytes[i - 1] != b'\\' {
        return false;
    }
    let run = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
    run % 2 == 1
}

/// Renders a JSON value compactly for a tool input.
pub fn compact_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_context_is_recognised() {
        assert!(is_codex_injected(
            "# AGENTS.md instructions for /x\n<INSTRUCTIONS>"
        ));
        assert!(is_codex_injected("  <environment_context>\n<cwd>/a</cwd>"));
        assert!(is_codex_injected("<turn_aborted>\nThe user interrupted"));
        assert!(!is_codex_injected(
            "please fix the <environment_context> parser"
        ));
        assert_eq!(
            environment_cwd("<environment_context>\n  <cwd>/a/b</cwd>"),
            Some("/a/b".into())
        );
    }

    #[test]
    fn codex_exit_codes_in_both_forms() {
        let (out, code) =
            codex_output(r#"{"output":"hi\n","metadata":{"exit_code":2,"duration_seconds":0.1}}"#);
        assert_eq!((out.as_str(), code), ("hi\n", Some(2)));
        let (out, code) = codex_output(
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nboom",
        );
        assert_eq!((out.as_str(), code), ("boom", Some(1)));
        assert_eq!(codex_output("plain").1, None);
    }

    #[test]
    fn bounded_json_strings_decode_only_head_and_tail() {
        let text: String = (0..2000)
            .map(|i| format!("line {i} with \"quotes\" and é\n"))
            .collect();
        let raw = serde_json::to_string(&text).unwrap();
        assert_eq!(json_string_bounded(&raw, None).unwrap(), text);
        assert_eq!(json_string_bounded(&raw, Some(1 << 20)).unwrap(), text);
        let cut = json_string_bounded(&raw, Some(600)).unwrap();
        assert!(cut.len() < 900, "{}", cut.len());
        assert!(cut.starts_with("line 0 with \"quotes\" and é\n"));
        assert!(cut.ends_with("line 1999 with \"quotes\" and é\n"));
        assert!(cut.contains("tokens truncated"));
        // An escaped backslash before n is not a newline: never cut inside an escape.
        let tricky = serde_json::to_string(&"a\\nb ".repeat(500)).unwrap();
        let out = json_string_bounded(&tricky, Some(200)).unwrap();
        assert!(
            out.starts_with("a\\nb a\\nb"),
            "decoded whole, then cut: {out}"
        );
        // No whitespace at all: decoded whole, then cut as text.
        let blob = serde_json::to_string(&"x".repeat(5000)).unwrap();
        assert!(
            json_string_bounded(&blob, Some(100))
                .unwrap()
                .contains("tokens truncated")
        );
    }

    #[test]
    fn memkit_blocks_but_not_mentions_of_them() {
        assert!(carries_memkit_block(
            "<!-- memkit:begin (managed by memkit) -->\n## Memory"
        ));
        assert!(carries_memkit_block(
            "[memkit memory, part 2 of 2]\n- fact\n========= MEMORY_SUMMARY ENDS ========="
        ));
        assert!(carries_memkit_block(
            "## Memory\n========= MEMORY_SUMMARY BEGINS =========\nv1\n========= MEMORY_SUMMARY ENDS ========="
        ));
        assert!(!carries_memkit_block(
            "Why does my AGENTS.md contain `<!-- memkit:begin … -->`? Remove it"
        ));
        assert!(!carries_memkit_block(
            "the ========= MEMORY_SUMMARY BEGINS ========= line is odd"
        ));
        assert_eq!(
            classify_claude_user_text(
                "SessionStart hook additional context: [memkit memory, part 2 of 2]\n- b"
            ),
            ClaudeUserText::Context
        );
    }

    #[test]
    fn claude_user_texts() {
        assert_eq!(
            classify_claude_user_text(
                "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>build it</command-args>"
            ),
            ClaudeUserText::Human("/orchestrator build it".into())
        );
        assert_eq!(
            classify_claude_user_text(
                "<command-name>/compact</command-name>\n<command-message>compact</command-message>"
            ),
            ClaudeUserText::Context
        );
        assert_eq!(
            classify_claude_user_text("[Request interrupted by user for tool use]"),
            ClaudeUserText::Context
        );
        assert_eq!(
            classify_claude_user_text("<bash-input>ls</bash-input>"),
            ClaudeUserText::Context
        );
        assert_eq!(
            classify_claude_user_text("fix it<system-reminder>be nice</system-reminder>"),
            ClaudeUserText::Human("fix it".into())
        );
        assert_eq!(claude_exit_code("Exit code 127\nnot found"), Some(127));
    }
}
