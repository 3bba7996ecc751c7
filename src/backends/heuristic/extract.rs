//! The rule-based phase-1 backend: turns one prepared session into a raw
//! memory and a rollout summary without any model, deterministically.
//!
//! It reads the events only (never the prompt strings), collects the durable
//! signals — the human's preferences and corrections, commands that failed and
//! what worked instead, commands that worked, files edited — and renders them
//! in the Markdown shape a model is asked for. A session with none of these
//! signals gives the empty output.

use super::commands::{self, FailureFix, WorkedCommand};
use super::envfacts;
use super::facts::{self, Outcome};
use super::render;
use super::signals::{self, Preference};
use crate::backends::{ExtractRequest, ExtractResult, Extractor, StageOneOutput};
use crate::error::Result;
use crate::modelinput::PreparedInput;
use crate::sources::{Event, Tool};
use crate::util::text::estimate_tokens;

/// The offline extractor (`heuristic` backend, model `rules-v1`).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicExtractor;

impl Extractor for HeuristicExtractor {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn model(&self) -> String {
        super::MODEL.to_string()
    }

    fn extract(&self, request: &ExtractRequest<'_>) -> Result<ExtractResult> {
        let output = extract_output(request.input);
        let out_bytes = output.raw_memory.len()
            + output.rollout_summary.len()
            + output.rollout_slug.as_deref().map_or(0, str::len);
        Ok(ExtractResult {
            output,
            tokens_in: estimate_tokens(request.input.transcript.len()) as u64,
            tokens_out: estimate_tokens(out_bytes) as u64,
            tokens_cached: 0,
        })
    }
}

/// The stage-1 output for one session (empty when nothing durable happened).
pub fn extract_output(input: &PreparedInput) -> StageOneOutput {
    let digest = Digest::of(input);
    if !digest.is_durable() {
        return StageOneOutput::default();
    }
    StageOneOutput {
        raw_memory: render::raw_memory(&digest),
        rollout_summary: render::rollout_summary(&digest),
        rollout_slug: facts::slug(&digest.task),
    }
}

/// Everything the renderers need, gathered from one session.
#[derive(Debug, Clone)]
pub(crate) struct Digest {
    /// Which agent wrote the session.
    pub tool: Tool,
    /// Working directory, when known.
    pub cwd: Option<String>,
    /// The cwd's last component, or `unknown`.
    pub project: String,
    /// Git branch, when known.
    pub branch: Option<String>,
    /// Last update, `YYYY-MM-DD`.
    pub updated: String,
    /// The task name (one line).
    pub task: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The human's follow-up messages, one line each.
    pub steps: Vec<String>,
    /// Preferences and corrections.
    pub preferences: Vec<Preference>,
    /// Short requests about how to work (promoted when made in several sessions).
    pub requests: Vec<String>,
    /// Failed commands and what worked instead.
    pub fixes: Vec<FailureFix>,
    /// Failures and fixes the agent described in its own words.
    pub described: Vec<String>,
    /// Build/test/… commands that worked.
    pub worked: Vec<WorkedCommand>,
    /// Facts about the project's environment the session established.
    pub environment: Vec<String>,
    /// Files edited.
    pub files: Vec<String>,
    /// Keywords.
    pub keywords: Vec<String>,
}

impl Digest {
    /// Collects the facts and signals of a prepared session.
    pub(crate) fn of(input: &PreparedInput) -> Digest {
        let cwd = input.session.cwd.clone().or_else(|| input.info.cwd.clone());
        let branch = input
            .session
            .git_branch
            .clone()
            .or_else(|| input.info.git_branch.clone())
            .filter(|b| !b.trim().is_empty());
        let project = facts::project_name(cwd.as_deref());
        let events: Vec<&Event> = input.events().collect();
        let turns = facts::human_turns(events.iter().copied());
        let humans: Vec<&str> = turns.iter().map(|t| t.text).collect();
        // A sub-agent's "user" is another agent: its words are no human preference.
        let (preferences, requests) = if input.info.source == "subagent" {
            (Vec::new(), Vec::new())
        } else {
            (signals::preferences(&turns), signals::requests(&turns))
        };
        let runs = commands::shell_runs(events.iter().copied());
        let files = facts::edited_files(events.iter().copied(), cwd.as_deref());
        let project_label = project.clone().unwrap_or_else(|| "unknown".to_string());
        let task = facts::task_name(&humans, events.iter().copied())
            .unwrap_or_else(|| format!("Session in {project_label}"));
        let keywords = facts::keywords(cwd.as_deref(), branch.as_deref(), &files, &runs, &humans);
        let environment = envfacts::environment_facts(&events, &runs, &turns);
        let fixes = commands::failure_fixes(&runs, &commands::told_commands(&events));
        let updated_secs = if input.session.updated_at > 0 {
            input.session.updated_at
        } else {
            input.info.started_at.unwrap_or(0) / 1000
        };
        Digest {
            tool: input.session.tool,
            outcome: facts::outcome(&events, &runs),
            steps: humans
                .iter()
                .skip(1)
                .map(|h| facts::first_line(h).to_string())
                .collect(),
            described: commands::described_fixes(&events, &fixes),
            fixes,
            worked: commands::worked_commands(&runs),
            updated: crate::util::time::date(updated_secs),
            project: project_label,
            cwd,
            branch,
            task,
            preferences,
            requests,
            environment,
            files,
            keywords,
        }
    }

    /// Whether anything here would change a future agent's behaviour.
    pub(crate) fn is_durable(&self) -> bool {
        !(self.preferences.is_empty()
            && self.requests.is_empty()
            && self.environment.is_empty()
            && self.fixes.is_empty()
            && self.described.is_empty()
            && self.files.is_empty()
            && self.worked.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::heuristic::rawparse::MAX_BULLET_CHARS;
    use crate::modelinput::SessionRef;
    use crate::sources::{Event, Message, Phase, ReadStats, Role, SessionInfo, ToolCall};
    use std::path::PathBuf;

    fn user(text: &str) -> Event {
        message(Role::User, text)
    }

    fn assistant(text: &str) -> Event {
        message(Role::Assistant, text)
    }

    fn message(role: Role, text: &str) -> Event {
        Event::Message(Message {
            role,
            text: text.into(),
            phase: (role == Role::Assistant).then_some(Phase::FinalAnswer),
            at: None,
            line: 1,
            citation: None,
        })
    }

    fn tool(name: &str, input: &str, exit: Option<i64>, output: &str) -> Event {
        Event::ToolCall(ToolCall {
            call_id: "c".into(),
            name: name.into(),
            input: input.into(),
            output: Some(output.into()),
            exit_code: exit,
            failed: exit.is_some_and(|c| c != 0),
            at: None,
            line: 1,
        })
    }

    fn shell(cmd: &str, exit: i64, output: &str) -> Event {
        tool("exec_command", cmd, Some(exit), output)
    }

    /// A prepared input built straight from events.
    fn input(events: Vec<Event>) -> PreparedInput {
        let transcript = events
            .iter()
            .map(crate::modelinput::render_event)
            .collect::<Vec<_>>()
            .join("\n");
        PreparedInput {
            session: SessionRef {
                thread_id: "t1".into(),
                tool: Tool::Codex,
                rollout_path: PathBuf::from("/tmp/rollout.jsonl"),
                cwd: Some("/home/dev/shop".into()),
                git_branch: Some("feature/cart".into()),
                updated_at: 1_772_445_600,
            },
            info: SessionInfo {
                id: "t1".into(),
                source: "cli".into(),
                memory_mode: "enabled".into(),
                ..SessionInfo::default()
            },
            stats: ReadStats::default(),
            head: events,
            tail: Vec::new(),
            omitted_events: 0,
            omitted_bytes: 0,
            transcript,
        }
    }

    fn run(events: Vec<Event>) -> StageOneOutput {
        let input = input(events);
        let req = ExtractRequest {
            system: "ignored",
            user: "ignored",
            input: &input,
        };
        HeuristicExtractor.extract(&req).unwrap().output
    }

    /// The bullets of one subsection of a Markdown text.
    fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
        let mut lines = text.lines().skip_while(|l| *l != heading);
        lines.next();
        lines
            .take_while(|l| {
                l.starts_with("- ") || l.chars().next().is_some_and(|c| c.is_ascii_digit())
            })
            .collect()
    }

    fn cart_session() -> Vec<Event> {
        vec![
            user("Add a cart total. We use pnpm here, not npm."),
            shell("npm test", 1, "npm ERR! This project uses pnpm"),
            shell("pnpm test", 0, "12 passed"),
            tool(
                "apply_patch",
                "*** Update File: src/cart.ts\n*** Add File: src/total.ts",
                Some(0),
                "Success.",
            ),
            tool(
                "Edit",
                "/home/dev/shop/src/view.tsx",
                None,
                "The file has been updated.",
            ),
            assistant("Added the cart total; `pnpm test` passes."),
            user("show me the plan first"),
            assistant("Plan: …"),
        ]
    }

    #[test]
    fn stated_preferences_land_under_preference_signals() {
        let out = run(cart_session());
        let prefs = section(&out.raw_memory, "Preference signals:");
        assert_eq!(
            prefs,
            vec!["- We use pnpm here, not npm. (evidence: \"We use pnpm here, not npm.\")"]
        );
        assert_eq!(
            section(&out.raw_memory, "Request signals:"),
            vec!["- show me the plan first"],
            "a request is no preference in one session"
        );
        assert!(out.rollout_summary.contains(
            "- the user said \"We use pnpm here, not npm.\" → use `pnpm` instead of `npm` by default in shop"
        ));
    }

    #[test]
    fn questions_are_never_preferences() {
        let mut events = cart_session();
        events.push(user("should we always use pnpm here?"));
        events.push(user("should we always use pnpm here?"));
        let out = run(events);
        assert!(!out.raw_memory.contains("should we"));
    }

    #[test]
    fn corrections_are_captured() {
        let out = run(vec![
            user("Fix the lint error"),
            shell("cargo test", 101, "error: unused import"),
            assistant("Fixed."),
            user("no, tests run with make check"),
            shell("make check", 0, "ok"),
            assistant("make check passes."),
        ]);
        let prefs = section(&out.raw_memory, "Preference signals:");
        assert_eq!(
            prefs,
            vec!["- tests run with make check (evidence: \"no, tests run with make check\")"]
        );
    }

    #[test]
    fn failed_then_working_commands_are_paired() {
        let out = run(cart_session());
        assert_eq!(
            section(&out.raw_memory, "Failures and how to do differently:"),
            vec![
                "- `npm test` failed (exit 1: npm ERR! This project uses pnpm); `pnpm test` worked instead"
            ]
        );
        assert_eq!(
            section(&out.raw_memory, "Reusable knowledge:"),
            vec!["- `pnpm test` works in shop (tests)"]
        );
    }

    #[test]
    fn a_long_error_gives_way_to_the_fix() {
        let check =
            "ansible-playbook -i inventories/prod/hosts.yml playbooks/firewall.yml --check --diff";
        let long_error = format!(
            "ERROR! couldn't resolve module/action 'community.general.ufw'. {}",
            "This often indicates a misspelling, missing collection, or incorrect module path. "
                .repeat(3)
        );
        let out = run(vec![
            user("add the firewall playbook"),
            shell(check, 4, &long_error),
            shell(
                "ansible-galaxy collection install -r collections/requirements.yml",
                0,
                "installed",
            ),
            shell(check, 0, "PLAY RECAP"),
            assistant("The check run is clean."),
        ]);
        let failures = section(&out.raw_memory, "Failures and how to do differently:");
        assert_eq!(failures.len(), 1, "{failures:?}");
        let bullet = failures[0].trim_start_matches("- ");
        assert!(bullet.chars().count() <= MAX_BULLET_CHARS, "{bullet}");
        assert!(
            failures[0].ends_with(
                "it worked after running `ansible-galaxy collection install -r collections/requirements.yml` first"
            ),
            "{}",
            failures[0]
        );
    }

    #[test]
    fn edited_files_are_references() {
        let out = run(cart_session());
        assert_eq!(
            section(&out.raw_memory, "References:"),
            vec![
                "- src/cart.ts (edited)",
                "- src/total.ts (edited)",
                "- src/view.tsx (edited)",
                "- branch: feature/cart",
            ]
        );
        assert_eq!(
            section(&out.rollout_summary, "References:"),
            vec![
                "1. src/cart.ts — edited",
                "2. src/total.ts — edited",
                "3. src/view.tsx — edited"
            ]
        );
    }

    #[test]
    fn front_matter_and_summary_have_the_expected_shape() {
        let out = run(cart_session());
        let raw = &out.raw_memory;
        assert!(raw.starts_with("---\ndescription: "));
        for line in [
            "task: Add a cart total",
            "task_group: shop",
            "task_outcome: success",
            "cwd: /home/dev/shop",
            "### Task 1: Add a cart total",
        ] {
            assert!(raw.lines().any(|l| l == line), "missing {line}:\n{raw}");
        }
        let keywords = raw.lines().find(|l| l.starts_with("keywords: ")).unwrap();
        assert!(
            keywords.contains("shop, feature/cart, typescript, pnpm"),
            "{keywords}"
        );
        let summary = &out.rollout_summary;
        assert!(summary.starts_with("# "));
        assert!(summary.contains(
            "Rollout context: Codex session in /home/dev/shop (branch feature/cart), last updated 2026-03-02."
        ));
        assert!(summary.contains("## Task 1: Add a cart total (success)"));
        assert_eq!(out.rollout_slug.as_deref(), Some("add-a-cart-total"));
    }

    #[test]
    fn trivial_sessions_give_the_empty_output() {
        let out = run(vec![
            user("what does this function do?"),
            assistant("It adds two numbers."),
        ]);
        assert_eq!(out, StageOneOutput::default());
        assert!(out.is_empty());
    }

    #[test]
    fn output_is_deterministic() {
        let mut events = cart_session();
        events.push(user("again, show me the plan first"));
        assert_eq!(run(events.clone()), run(events));
    }

    #[test]
    fn no_heading_is_printed_empty() {
        // Only an edit: no preferences, no failures, no working commands.
        let out = run(vec![
            user("rename the helper"),
            tool("Edit", "/home/dev/shop/src/a.ts", None, "ok"),
            assistant("Renamed."),
        ]);
        for text in [&out.raw_memory, &out.rollout_summary] {
            let lines: Vec<&str> = text.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                if l.ends_with(':') && !l.starts_with('-') {
                    let next = lines.get(i + 1).copied().unwrap_or("");
                    assert!(
                        next.starts_with("- ") || next.starts_with("1. "),
                        "empty heading {l:?} in:\n{text}"
                    );
                }
            }
        }
        assert!(!out.raw_memory.contains("Preference signals:"));
        assert!(
            !out.raw_memory
                .contains("Failures and how to do differently:")
        );
        assert!(!out.rollout_summary.contains("Key steps:"));
    }

    #[test]
    fn outcomes_follow_the_last_command() {
        let failed = run(vec![
            user("Fix the build"),
            tool("Edit", "/home/dev/shop/a.ts", None, "ok"),
            shell("pnpm build", 1, "error TS2304"),
        ]);
        assert!(failed.raw_memory.contains("task_outcome: fail"));
        let partial = run(vec![
            user("Fix the build"),
            shell("pnpm build", 0, "ok"),
            shell("pnpm test", 1, "1 failed"),
            assistant("One test still fails."),
        ]);
        assert!(partial.raw_memory.contains("task_outcome: partial"));
    }

    #[test]
    fn token_counts_are_estimated() {
        let input = input(cart_session());
        let req = ExtractRequest {
            system: "",
            user: "",
            input: &input,
        };
        let r = HeuristicExtractor.extract(&req).unwrap();
        assert_eq!(r.tokens_in, input.transcript.len().div_ceil(4) as u64);
        let bytes = r.output.raw_memory.len()
            + r.output.rollout_summary.len()
            + r.output.rollout_slug.as_deref().map_or(0, str::len);
        assert_eq!(r.tokens_out, bytes.div_ceil(4) as u64);
        assert_eq!(HeuristicExtractor.name(), "heuristic");
        assert_eq!(HeuristicExtractor.model(), "rules-v1");
    }
}
