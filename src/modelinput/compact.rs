//! Shrinking events before rendering: long tool outputs keep their first and
//! last lines, long inputs and messages their head and tail.

use crate::redact::cut_middle;
use crate::sources::{Event, Role};
use crate::util::text::cut;

/// Size limits of the compact form, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A human message longer than this keeps head and tail.
    pub human_message: usize,
    /// An assistant or agent message longer than this keeps head and tail.
    pub assistant_message: usize,
    /// A tool call's input (command, arguments, patch).
    pub tool_input: usize,
    /// Output of a call that succeeded.
    pub ok_output: usize,
    /// Output of a call that failed (errors are worth more).
    pub failed_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            human_message: 8_000,
            assistant_message: 3_000,
            tool_input: 600,
            ok_output: 400,
            failed_output: 1_500,
        }
    }
}

impl Limits {
    /// What the reader keeps of a message, so compaction has something to cut
    /// (bounds memory and redaction work on huge lines).
    pub fn max_message_read_bytes(&self) -> usize {
        self.human_message.max(self.assistant_message) * 2
    }

    /// What the reader keeps of a tool output: enough for the first and last
    /// lines compaction keeps of a failed call.
    pub fn max_output_read_bytes(&self) -> usize {
        self.failed_output.max(self.ok_output) * 2
    }
}

/// Keeps the first and last lines of `s` within `max` bytes.
fn head_tail_lines(s: &str, max: usize) -> String {
    let s = s.trim_end();
    if s.len() <= max {
        return s.to_string();
    }
    match crate::redact::line_cuts(s.as_bytes(), max) {
        Some((head_end, tail_start)) => {
            let omitted = memchr::memchr_iter(b'\n', &s.as_bytes()[head_end..tail_start]).count();
            format!(
                "{}[… {omitted} lines omitted …]\n{}",
                &s[..head_end],
                &s[tail_start..]
            )
        }
        None => cut_middle(s, max),
    }
}

/// Applies the limits to one event.
pub fn compact(event: Event, limits: &Limits) -> Event {
    match event {
        Event::Message(mut m) => {
            let max = if m.role == Role::User {
                limits.human_message
            } else {
                limits.assistant_message
            };
            if m.text.len() > max {
                m.text = cut_middle(&m.text, max);
            }
            Event::Message(m)
        }
        Event::ToolCall(mut c) => {
            if c.input.len() > limits.tool_input {
                let first_line = c.input.lines().next().unwrap_or("");
                c.input =
                    if first_line.len() < c.input.len() && c.input.starts_with("*** Begin Patch") {
                        patch_summary(&c.input, limits.tool_input)
                    } else {
                        cut_middle(&c.input, limits.tool_input)
                    };
            }
            let max = if c.failed {
                limits.failed_output
            } else {
                limits.ok_output
            };
            c.output = c.output.map(|o| head_tail_lines(&o, max));
            Event::ToolCall(c)
        }
    }
}

/// The file headers of an `apply_patch` body, which say what changed.
fn patch_summary(patch: &str, max: usize) -> String {
    let files: Vec<&str> = patch
        .lines()
        .filter(|l| {
            l.starts_with("*** ") && !l.starts_with("*** Begin") && !l.starts_with("*** End")
        })
        .collect();
    let text = files.join("\n");
    cut(&text, max).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::ToolCall;

    fn call(output: &str, failed: bool) -> ToolCall {
        ToolCall {
            call_id: "c".into(),
            name: "exec_command".into(),
            input: "cargo test".into(),
            output: Some(output.into()),
            exit_code: Some(if failed { 1 } else { 0 }),
            failed,
            at: None,
            line: 1,
        }
    }

    #[test]
    fn long_outputs_keep_first_and_last_lines() {
        let out: String = (0..500).map(|i| format!("line {i}\n")).collect();
        let Event::ToolCall(c) = compact(Event::ToolCall(call(&out, false)), &Limits::default())
        else {
            unreachable!()
        };
        let o = c.output.unwrap();
        assert!(o.starts_with("line 0\n"));
        assert!(o.ends_with("line 499"));
        assert!(o.contains("lines omitted"));
        assert!(o.len() <= 450);
    }

    #[test]
    fn failed_outputs_keep_more() {
        let out: String = (0..500).map(|i| format!("error {i}\n")).collect();
        let Event::ToolCall(ok) = compact(Event::ToolCall(call(&out, false)), &Limits::default())
        else {
            unreachable!()
        };
        let Event::ToolCall(bad) = compact(Event::ToolCall(call(&out, true)), &Limits::default())
        else {
            unreachable!()
        };
        assert!(bad.output.unwrap().len() > ok.output.unwrap().len());
    }

    #[test]
    fn a_key_block_in_a_cut_output_never_survives_redaction() {
        let body: String = (0..30)
            .map(|i| format!("{}\n", format!("MIIEv{i:03}q").repeat(7)))
            .collect();
        let out = format!(
            "{}-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----\n",
            "log line\n".repeat(20)
        );
        let Event::ToolCall(c) = compact(Event::ToolCall(call(&out, false)), &Limits::default())
        else {
            unreachable!()
        };
        let Event::ToolCall(c) = crate::redact::redact_event(Event::ToolCall(c)) else {
            unreachable!()
        };
        let kept = c.output.unwrap();
        assert!(!kept.contains("MIIEv"), "{kept}");
    }

    #[test]
    fn patches_shrink_to_their_file_headers() {
        let mut c = call("ok", false);
        c.name = "apply_patch".into();
        c.input = format!(
            "*** Begin Patch\n*** Update File: src/a.rs\n{}\n*** Add File: src/b.rs\n+x\n*** End Patch",
            "+line\n".repeat(300)
        );
        let Event::ToolCall(c) = compact(Event::ToolCall(c), &Limits::default()) else {
            unreachable!()
        };
        assert_eq!(c.input, "*** Update File: src/a.rs\n*** Add File: src/b.rs");
    }
}
