//! Renders a session digest as Codex's `raw_memory` and `rollout_summary`
//! Markdown. Subsections without bullets are left out entirely.

use super::commands::WorkedCommand;
use super::extract::Digest;
use super::facts::Outcome;
use super::rawparse::MAX_BULLET_CHARS;
use super::tally::count;
use crate::sources::Tool;
use crate::util::text::one_line;
use std::fmt::Write as _;

/// Longest title, in characters.
const MAX_TITLE: usize = 100;
/// Longest key-step line, in characters.
const MAX_STEP: usize = 100;
/// Most bullets under "Key steps".
const MAX_STEPS: usize = 8;
/// Most human follow-ups among the key steps.
const MAX_HUMAN_STEPS: usize = 6;

/// The raw memory: front matter and one task block.
pub(crate) fn raw_memory(d: &Digest) -> String {
    let mut out = String::new();
    let cwd = d.cwd.as_deref().unwrap_or("unknown");
    let keywords = if d.keywords.is_empty() {
        d.tool.name().to_string()
    } else {
        d.keywords.join(", ")
    };
    let _ = writeln!(out, "---");
    let _ = writeln!(out, "description: {}", description(d));
    let _ = writeln!(out, "task: {}", d.task);
    let _ = writeln!(out, "task_group: {}", d.project);
    let _ = writeln!(out, "task_outcome: {}", d.outcome.as_str());
    let _ = writeln!(out, "cwd: {cwd}");
    let _ = writeln!(out, "keywords: {keywords}");
    let _ = writeln!(out, "---");
    let _ = writeln!(out);
    let _ = writeln!(out, "### Task 1: {}", d.task);
    let _ = writeln!(out, "task: {}", d.task);
    let _ = writeln!(out, "task_group: {}", d.project);
    let _ = writeln!(out, "task_outcome: {}", d.outcome.as_str());
    let _ = writeln!(out);
    let preferences: Vec<String> = d
        .preferences
        .iter()
        .map(|p| format!("{} (evidence: \"{}\")", p.statement, p.evidence))
        .collect();
    section(&mut out, "Preference signals:", &preferences);
    section(
        &mut out,
        "Reusable knowledge:",
        &knowledge(&d.worked, &d.project),
    );
    section(
        &mut out,
        "Failures and how to do differently:",
        &failures(d),
    );
    section(&mut out, "Environment facts:", &d.environment);
    section(&mut out, "Request signals:", &d.requests);
    let mut refs: Vec<String> = d.files.iter().map(|f| format!("{f} (edited)")).collect();
    if let Some(b) = &d.branch {
        refs.push(format!("branch: {b}"));
    }
    section(&mut out, "References:", &refs);
    out
}

/// The rollout summary: title, context line and one task section.
pub(crate) fn rollout_summary(d: &Digest) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", title(d));
    let _ = writeln!(out);
    let agent = match d.tool {
        Tool::Codex => "Codex",
        Tool::Claude => "Claude Code",
    };
    let cwd = d.cwd.as_deref().unwrap_or("an unknown directory");
    let branch = d
        .branch
        .as_deref()
        .map(|b| format!(" (branch {b})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "Rollout context: {agent} session in {cwd}{branch}, last updated {}.",
        d.updated
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "## Task 1: {} ({})", d.task, d.outcome.as_str());
    let preferences: Vec<String> = d
        .preferences
        .iter()
        .map(|p| {
            format!(
                "the user said \"{}\" → {}",
                p.evidence,
                p.implication(&d.project)
            )
        })
        .collect();
    section(&mut out, "Preference signals:", &preferences);
    section(&mut out, "Key steps:", &key_steps(d));
    section(
        &mut out,
        "Failures and how to do differently:",
        &failures(d),
    );
    section(
        &mut out,
        "Reusable knowledge:",
        &knowledge(&d.worked, &d.project),
    );
    section(&mut out, "Environment facts:", &d.environment);
    if !d.files.is_empty() {
        let _ = writeln!(out, "References:");
        for (i, f) in d.files.iter().enumerate() {
            let _ = writeln!(out, "{}. {f} — edited", i + 1);
        }
    }
    out
}

/// Writes `heading` and one `- ` bullet per item, or nothing when there are none.
fn section(out: &mut String, heading: &str, bullets: &[String]) {
    if bullets.is_empty() {
        return;
    }
    let _ = writeln!(out, "{heading}");
    for b in bullets {
        let _ = writeln!(out, "- {b}");
    }
}

/// One sentence on what the session did.
fn description(d: &Digest) -> String {
    let mut facts = Vec::new();
    if !d.files.is_empty() {
        facts.push(format!("edited {}", count(d.files.len(), "file", "files")));
    }
    if !d.preferences.is_empty() {
        facts.push(count(
            d.preferences.len(),
            "preference signal",
            "preference signals",
        ));
    }
    if !d.fixes.is_empty() {
        facts.push(count(d.fixes.len(), "command fix", "command fixes"));
    }
    if !d.worked.is_empty() {
        facts.push(count(d.worked.len(), "working command", "working commands"));
    }
    let task = d
        .task
        .trim_end_matches(['.', '!', ':', ';'])
        .replace('"', "'");
    format!(
        "Worked on \"{task}\" in {} ({}); outcome {}.",
        d.project,
        facts.join(", "),
        d.outcome.as_str()
    )
}

/// The summary title: the task and how it went.
fn title(d: &Digest) -> String {
    let how = match d.outcome {
        Outcome::Success => "done",
        Outcome::Partial => "partly done",
        Outcome::Fail => "failed",
        Outcome::Uncertain => "outcome unclear",
    };
    let task = d.task.trim_end_matches(['.', '!', ':', ';']);
    let tail = format!(" — {how} in {}", d.project);
    let room = MAX_TITLE.saturating_sub(tail.chars().count()).max(20);
    one_line(
        &format!("{}{tail}", one_line(task, room - 1)),
        MAX_TITLE - 1,
    )
}

/// `- \`cmd\` works in project (tests)` bullets.
fn knowledge(worked: &[WorkedCommand], project: &str) -> Vec<String> {
    worked
        .iter()
        .map(|w| match w.purpose.label() {
            Some(label) => format!("`{}` works in {project} ({label})", w.command),
            None => format!("`{}` works in {project}", w.command),
        })
        .collect()
}

/// `- \`a\` failed (exit 1: …); \`b\` worked instead` bullets, then the fixes the agent described.
fn failures(d: &Digest) -> Vec<String> {
    d.fixes
        .iter()
        .map(|f| {
            let status = match f.exit_code {
                Some(code) => format!("exit {code}"),
                None => "error".to_string(),
            };
            // The error gives way, so that reading the bullet back never
            // cuts off the command that fixed it.
            let frame = f.failed.chars().count() + f.fixed.chars().count() + status.len() + 56;
            let error = one_line(&f.error, MAX_BULLET_CHARS.saturating_sub(frame).max(40));
            if f.prerequisite {
                format!(
                    "`{}` failed ({status}: {error}); it worked after running `{}` first",
                    f.failed, f.fixed
                )
            } else {
                format!(
                    "`{}` failed ({status}: {error}); `{}` worked instead",
                    f.failed, f.fixed
                )
            }
        })
        .chain(d.described.iter().cloned())
        .collect()
}

/// The human's follow-ups, then the commands that worked (≤ 8 bullets;
/// failures have their own subsection).
fn key_steps(d: &Digest) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    let human_room = if d.steps.len() > MAX_HUMAN_STEPS {
        MAX_HUMAN_STEPS - 1
    } else {
        d.steps.len()
    };
    for s in d.steps.iter().take(human_room) {
        steps.push(format!("user: {}", one_line(s, MAX_STEP - 1)));
    }
    if d.steps.len() > human_room {
        steps.push(format!(
            "… and {} more requests from the user",
            d.steps.len() - human_room
        ));
    }
    for w in &d.worked {
        if steps.len() >= MAX_STEPS {
            break;
        }
        steps.push(format!("ran `{}` (ok)", w.command));
    }
    steps
}
