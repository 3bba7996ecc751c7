//! The compact text form of an event, as the model reads it.
//!
//! ```text
//! [user] Add a cart total. We use pnpm here, not npm.
//! [assistant] Looking at the cart module first.
//! $ npm test  (exit 1)
//!   npm ERR! This project uses pnpm
//! [apply_patch] *** Update File: src/cart.ts  (ok)
//! [assistant:final] Added the cart total.
//! ```

use crate::sources::{Event, Phase, Role, ToolCall, is_shell_tool};

/// Renders one event.
pub fn render_event(event: &Event) -> String {
    match event {
        Event::Message(m) => {
            let tag = match (m.role, m.phase) {
                (Role::User, _) => "user",
                (Role::Assistant, Some(Phase::FinalAnswer)) => "assistant:final",
                (Role::Assistant, _) => "assistant",
                (Role::Agent, _) => "agent",
            };
            format!("[{tag}] {}", m.text.trim())
        }
        Event::ToolCall(c) => render_call(c),
    }
}

fn render_call(c: &ToolCall) -> String {
    let status = match (c.exit_code, c.failed) {
        (Some(0), _) => "  (ok)".to_string(),
        (Some(code), _) => format!("  (exit {code})"),
        (None, true) => "  (error)".to_string(),
        (None, false) => String::new(),
    };
    let input = c.input.trim();
    let mut out = if is_shell_tool(&c.name) {
        format!("$ {input}{status}")
    } else {
        format!("[{}] {input}{status}", c.name)
    };
    if let Some(output) = c.output.as_deref().map(str::trim).filter(|o| !o.is_empty()) {
        // Successful file edits say nothing worth tokens.
        let trivial = !c.failed && output.len() < 80 && !is_shell_tool(&c.name);
        if !trivial {
            for line in output.lines() {
                out.push_str("\n  ");
                out.push_str(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::Message;

    #[test]
    fn renders_roles_and_calls() {
        let m = Event::Message(Message {
            role: Role::Assistant,
            text: "done".into(),
            phase: Some(Phase::FinalAnswer),
            at: None,
            line: 1,
            citation: None,
        });
        assert_eq!(render_event(&m), "[assistant:final] done");
        let c = Event::ToolCall(ToolCall {
            call_id: "1".into(),
            name: "Bash".into(),
            input: "make check".into(),
            output: Some("error: x\n".into()),
            exit_code: Some(2),
            failed: true,
            at: None,
            line: 2,
        });
        assert_eq!(render_event(&c), "$ make check  (exit 2)\n  error: x");
        let e = Event::ToolCall(ToolCall {
            call_id: "2".into(),
            name: "Edit".into(),
            input: "/a/b.rs".into(),
            output: Some("The file has been updated.".into()),
            exit_code: None,
            failed: false,
            at: None,
            line: 3,
        });
        assert_eq!(render_event(&e), "[Edit] /a/b.rs");
    }
}
