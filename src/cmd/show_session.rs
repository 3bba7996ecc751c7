//! `memkit show-session`: the normalised transcript of one session.

use super::Ctx;
use crate::cli::ShowSessionArgs;
use crate::error::{Error, Result};
use crate::readpath::citations::Citation;
use crate::sources::{
    Event, Phase, ReadOptions, Role, Tool, Transcript, detect_tool, read_transcript,
};
use crate::store::threads;
use crate::ui;
use crate::util::text::{inert_line, inert_text};
use crate::util::time::rfc3339;
use std::path::{Path, PathBuf};

/// How many lines of a tool output are shown without `--full`.
const OUTPUT_PREVIEW_LINES: usize = 6;

/// Prints one session.
pub fn run(ctx: &Ctx, args: &ShowSessionArgs) -> Result<i32> {
    let (path, tool) = resolve(ctx, &args.session)?;
    let transcript = read_transcript(&path, tool, ReadOptions::default())?;
    if let Some(w) = transcript.stats.malformed_summary(&path) {
        ui::warn(w);
    }
    if ctx.json {
        ui::json_line(&transcript);
    } else {
        print_human(&transcript, args.full);
    }
    Ok(0)
}

/// Finds the file of a session given as a path, an id or a unique id prefix.
fn resolve(ctx: &Ctx, arg: &str) -> Result<(PathBuf, Tool)> {
    let as_path = Path::new(arg);
    if as_path.is_file() {
        let store = ctx.store()?;
        if let Some(row) = threads::find_by_file(store.conn(), as_path)?
            && let Some(tool) = Tool::parse(&row.tool)
        {
            return Ok((as_path.to_path_buf(), tool));
        }
        let tool = detect_tool(as_path).ok_or_else(|| {
            Error::usage(format!(
                "{arg}: not a Codex rollout or Claude Code transcript"
            ))
        })?;
        return Ok((as_path.to_path_buf(), tool));
    }
    let store = ctx.store()?;
    let row = threads::find_by_id_or_prefix(store.conn(), arg)?.require(arg, || {
        format!("no session {arg} in the catalog (run `memkit scan` first, or pass the file path)")
    })?;
    row_path(&row)
}

fn row_path(row: &threads::ThreadRow) -> Result<(PathBuf, Tool)> {
    let tool = Tool::parse(&row.tool)
        .ok_or_else(|| Error::failed(format!("unknown tool {} in the catalog", row.tool)))?;
    Ok((PathBuf::from(&row.rollout_path), tool))
}

fn stamp(at: Option<i64>) -> String {
    at.map(|ms| rfc3339(ms / 1000))
        .unwrap_or_else(|| "-".into())
}

/// A reply's citation, shown apart from its text (as Codex shows it).
fn print_citation(c: &Citation) {
    for e in &c.entries {
        crate::outln!(
            "  (cited {}:{}-{}: {})",
            inert_line(&e.path),
            e.line_start,
            e.line_end,
            inert_line(&e.note)
        );
    }
    if !c.rollout_ids.is_empty() {
        crate::outln!(
            "  (cited sessions: {})",
            inert_line(&c.rollout_ids.join(", "))
        );
    }
}

fn print_human(t: &Transcript, full: bool) {
    let i = &t.info;
    crate::outln!(
        "session  {} ({}, source {})",
        inert_line(&i.id),
        t.tool.name(),
        inert_line(&i.source)
    );
    crate::outln!("file     {}", inert_line(&t.path.display().to_string()));
    crate::outln!("cwd      {}", inert_line(i.cwd.as_deref().unwrap_or("-")));
    if let Some(b) = &i.git_branch {
        crate::outln!("branch   {}", inert_line(b));
    }
    if let Some(v) = &i.cli_version {
        crate::outln!("version  {v} ({})", i.originator.as_deref().unwrap_or("-"));
    }
    crate::outln!(
        "counts   {} human, {} assistant, {} tool calls, {} lines ({} malformed)",
        t.stats.human_turns,
        t.stats.assistant_messages,
        t.stats.tool_calls,
        t.stats.lines,
        t.stats.malformed
    );
    for event in &t.events {
        crate::outln!();
        match event {
            Event::Message(m) => {
                let who = match (m.role, m.phase) {
                    (Role::User, _) => "user",
                    (Role::Assistant, Some(Phase::Commentary)) => "assistant (commentary)",
                    (Role::Assistant, Some(Phase::FinalAnswer)) => "assistant (final)",
                    (Role::Assistant, None) => "assistant",
                    (Role::Agent, _) => "agent",
                };
                crate::outln!("[{}] {who}:", stamp(m.at));
                for line in inert_text(&m.text).lines() {
                    crate::outln!("  {line}");
                }
                if let Some(c) = &m.citation {
                    print_citation(c);
                }
            }
            Event::ToolCall(c) => {
                let status = match (c.exit_code, c.failed) {
                    (Some(code), _) => format!(" → exit {code}"),
                    (None, true) => " → error".to_string(),
                    (None, false) => String::new(),
                };
                let input = crate::util::text::one_line(&c.input, 200);
                crate::outln!(
                    "[{}] tool {}: {input}{status}",
                    stamp(c.at),
                    inert_line(&c.name)
                );
                if let Some(out) = &c.output {
                    let out = inert_text(out);
                    let lines: Vec<&str> = out.lines().collect();
                    let shown = if full {
                        lines.len()
                    } else {
                        lines.len().min(OUTPUT_PREVIEW_LINES)
                    };
                    for line in &lines[..shown] {
                        crate::outln!("  | {line}");
                    }
                    if shown < lines.len() {
                        crate::outln!(
                            "  | … {} more lines (--full shows them)",
                            lines.len() - shown
                        );
                    }
                }
            }
        }
    }
}
