//! Shell calls in a transcript: how each ended, which build/test/lint
//! commands worked, and which failed command was followed by a different one
//! that did the same job.

use super::poison;
use super::shell::{
    Purpose, classify, first_operand, is_env_name, is_exploration, is_specific, narrows_tests,
    program_name, program_words, segments, without_runner,
};
use crate::sources::{Event, Role, ToolCall, is_shell_tool};
use crate::util::text::one_line;
use regex::Regex;
use std::sync::LazyLock;

/// Longest command kept as reusable knowledge (longer ones are one-offs).
const MAX_COMMAND_CHARS: usize = 100;

/// Longest failed or fixing command kept (a fix often adds a long flag).
const MAX_FIX_CHARS: usize = 160;

/// Most working commands listed.
const MAX_WORKED: usize = 8;

/// Most failure → fix pairs listed.
const MAX_FIXES: usize = 6;

/// How many later significant shell calls are searched for the fix of a failure.
const FIX_WINDOW: usize = 10;

/// How a shell call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Exit 0 (or no error reported).
    Ok,
    /// Non-zero exit or an error result.
    Failed(Option<i64>),
    /// The human stopped it.
    Interrupted,
    /// No output and no exit code: we cannot tell.
    Unknown,
}

/// One shell call, reduced to what the rules need.
#[derive(Debug, Clone)]
pub(crate) struct ShellRun {
    /// Index of the call among the transcript's events.
    pub position: usize,
    /// The command as the agent ran it.
    pub command: String,
    /// How it ended.
    pub status: Status,
    /// Its output (may be empty).
    pub output: String,
    /// The project-relevant part of the command (`pnpm test`), or `None`
    /// when every segment only looks around.
    pub core: Option<String>,
    /// The build/test/lint/… segments of the command with what each is for,
    /// in order (the core when there are any).
    pub tool_segments: Vec<(String, Purpose)>,
    /// The program word of the core as written (`./node_modules/.bin/tsc`, `python3`).
    pub program_word: String,
    /// The program of the core, normalised (`pnpm`, `cargo`, `python`).
    pub program: String,
    /// The first non-flag word after the program (`test`, `build`).
    pub subcommand: String,
    /// How many file edits (edit tools, patches, formatters) came before it.
    pub edits_before: usize,
    /// The segments that change or check the project, in order (no `cd`,
    /// no look-arounds): `pod repo update`, `pod install`.
    pub steps: Vec<String>,
}

impl ShellRun {
    /// Whether this call changes or checks the project (not exploration).
    pub(crate) fn significant(&self) -> bool {
        self.core.is_some()
    }

    /// What the core is for, when it is a build/test/lint/… command.
    pub(crate) fn purpose(&self) -> Option<Purpose> {
        self.tool_segments.first().map(|(_, p)| *p)
    }

    fn set_program(&mut self, words: &[String]) {
        self.program_word = words.first().cloned().unwrap_or_default();
        self.program = program_name(&self.program_word);
        self.subcommand = first_operand(&words[1.min(words.len())..]).unwrap_or_default();
    }
}

/// A failed command and the command that then did the same job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailureFix {
    /// The failed command.
    pub failed: String,
    /// Its exit code, when known.
    pub exit_code: Option<i64>,
    /// The first error line of its output.
    pub error: String,
    /// The command that worked afterwards, or the step that made the
    /// failed one work (`prerequisite`).
    pub fixed: String,
    /// Whether `fixed` was run first and the failed command then worked.
    pub prerequisite: bool,
}

/// A command a message asked for: the user's own, or the agent asking the
/// user to run it ("please run `sudo usermod -aG dialout me`").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Told {
    /// Index of the message among the session's events.
    pub position: usize,
    /// The command, as quoted.
    pub command: String,
}

/// The commands quoted in the user's messages and in the agent's requests
/// to the user to run something, in order.
pub(crate) fn told_commands(events: &[&Event]) -> Vec<Told> {
    static ASKS_TO_RUN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:please run|you(?:'ll| will)? need to run|can you run|could you run|run this yourself)\b")
            .expect("valid regex")
    });
    let mut out = Vec::new();
    for (position, e) in events.iter().enumerate() {
        let Event::Message(m) = e else { continue };
        let asks = match m.role {
            Role::User => true,
            Role::Assistant => ASKS_TO_RUN.is_match(&m.text),
            Role::Agent => false,
        };
        if !asks {
            continue;
        }
        for span in quoted_commands(&m.text) {
            let span = span.trim();
            let span = span.strip_prefix("$ ").unwrap_or(span);
            let looks_like_command = span.contains(' ')
                && span.starts_with(|c: char| c.is_ascii_alphabetic() || c == '.')
                && span.chars().count() <= MAX_FIX_CHARS
                && !span.contains('\n');
            if looks_like_command {
                out.push(Told {
                    position,
                    command: span.to_string(),
                });
            }
        }
    }
    out
}

/// A fenced block's text after its opening line (which may name a language).
fn fenced_body(block: &str) -> &str {
    block.split_once('\n').map_or("", |(_, body)| body)
}

/// What a message quotes as code: `inline spans`, the lines of fenced
/// blocks (after their language tag) and of blocks indented four spaces.
fn quoted_commands(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, part) in text.split("```").enumerate() {
        if i % 2 == 1 {
            out.extend(fenced_body(part).lines().filter(|l| !l.trim().is_empty()));
            continue;
        }
        out.extend(part.split('`').skip(1).step_by(2));
        let mut after_blank = true;
        for line in part.lines() {
            if after_blank && (line.starts_with("    ") || line.starts_with('\t')) {
                out.push(line);
                continue;
            }
            after_blank = line.trim().is_empty();
        }
    }
    out
}

/// Failures and fixes the agent described ("Plain `sbt test` died with
/// `OutOfMemoryError: Metaspace`; setting `SBT_OPTS=…` fixed it") that the
/// commands themselves do not show, at most three, dangerous text dropped.
pub(crate) fn described_fixes(events: &[&Event], fixes: &[FailureFix]) -> Vec<String> {
    static FAILED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:failed|fails|died|dies|errored|broke|crashed|refused|choked|(?:couldn'?t|could not|can'?t|cannot) (?:find|resolve|locate|load|reach|connect|get))\b")
            .expect("valid regex")
    });
    static FIXED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:after|fixed|fixes|then|works|worked|goes through|passes|re-?running|needs?|requires?|because)\b|\b(?:run|use|install)\s+`")
            .expect("valid regex")
    });
    // The sentence after a failure that gives the command that works.
    static WORKING_ONE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:the (?:working|right|correct) (?:invocation|command) is|the fix is|use `[^`]+` instead)")
            .expect("valid regex")
    });
    // The agent narrating its progress, not reporting a fix.
    static NARRATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:if|so|then|next|now|i\b|i'|let me|we'll)|\b(?:still|therefore|let me|i'?ll|i'?m|i will|try(?:ing)?|attempt(?:ed|ing)?)\b")
            .expect("valid regex")
    });
    const MAX_DESCRIBED: usize = 3;
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let Event::Message(m) = e else { continue };
        if m.role != Role::Assistant {
            continue;
        }
        if let Some(story) = told_fix(&m.text)
            && !poison::is_dangerous(&story)
            && !out.contains(&story)
            && !quotes_a_fix(&m.text, fixes)
        {
            out.push(story);
            if out.len() == MAX_DESCRIBED {
                return out;
            }
            continue;
        }
        let sentences = super::signals::prose(&without_links(&m.text));
        for (i, sentence) in sentences.iter().enumerate() {
            let sentence = sentence.replace('\u{2019}', "'");
            let spans = sentence.split('`').skip(1).step_by(2).count();
            // The fix the agent asks the user to run ("That's a system
            // package:" and the command in a code block).
            let asked = asked_to_run(&m.text, &sentence);
            let says = FAILED.is_match(&sentence)
                && spans >= 1
                && (FIXED.is_match(&sentence) || asked.is_some())
                && !NARRATION.is_match(&sentence);
            let known = quotes_a_fix(&sentence, fixes);
            let line = match (
                sentences.get(i + 1).filter(|n| WORKING_ONE.is_match(n)),
                asked,
            ) {
                // (The cause is cut before its "because": the command
                // that works is the point.)
                (Some(next), _) => {
                    let failure = sentence.split(" because ").next().unwrap_or(&sentence);
                    format!("{}. {next}", one_line(failure.trim_end_matches('.'), 119))
                }
                (None, Some(command)) => {
                    format!("{} → `{command}`", sentence.trim_end_matches(['.', ':']))
                }
                (None, None) => sentence.clone(),
            };
            let line = one_line(&line, 199);
            if says && !known && !poison::is_dangerous(&line) && !out.contains(&line) {
                out.push(line);
            }
            if out.len() == MAX_DESCRIBED {
                return out;
            }
        }
    }
    out
}

/// The one command of the code block that follows `sentence` in `text`,
/// when the words between ask for it to be run or installed ("so you'll
/// have to run it:", "That's a system package:").
fn asked_to_run(text: &str, sentence: &str) -> Option<String> {
    static ASKS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:run|install|execute)\b|system package").expect("valid regex")
    });
    const MAX_BETWEEN: usize = 200;
    let lead: String = sentence.chars().take(40).collect();
    let after = text.find(&lead)? + lead.len();
    let fence = after + text[after..].find("```")?;
    if fence - after > sentence.len() + MAX_BETWEEN {
        return None;
    }
    let between = &text[after..fence];
    let cut = (between.len().saturating_sub(MAX_BETWEEN)..=between.len())
        .find(|&i| between.is_char_boundary(i))
        .unwrap_or(between.len());
    if !ASKS.is_match(&between[cut..]) {
        return None;
    }
    let body = fenced_body(&text[fence + 3..]);
    let body = &body[..body.find("```")?];
    let mut lines = body.lines().map(str::trim).filter(|l| !l.is_empty());
    let command = lines.next()?.trim_start_matches("$ ");
    (lines.next().is_none() && command.len() <= 120 && !command.contains('`'))
        .then(|| command.to_string())
}

/// Whether `text` quotes the failed command of a fix the commands already
/// showed (so telling it again adds nothing).
fn quotes_a_fix(text: &str, fixes: &[FailureFix]) -> bool {
    fixes
        .iter()
        .any(|f| text.contains(&format!("`{}`", f.failed)))
}

/// A fix the agent tells over several sentences: what failed ("The operator
/// could not list TeamQuotas: …"), what it changed ("I applied
/// `deploy/rbac.yaml` with `kubectl apply -f deploy/rbac.yaml`"), and that
/// it then worked — as one line, the failure shortened.
fn told_fix(reply: &str) -> Option<String> {
    static FAILURE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:failed|fails|died|errored|crashed|refused|could not|couldn'?t|cannot|can'?t|was missing|had no|forbidden|denied|not found)\b")
            .expect("valid regex")
    });
    static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:added|set|applied|installed|changed|pinned|removed|deleted|enabled|disabled|granted|exported|registered|created|bumped|downgraded)\b|\b(?:building|built|rebuilt|running|compiling) (?:it |them )?(?:from|with|using|against)\b")
            .expect("valid regex")
    });
    static WORKED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:passes|pass|passed|works|worked|succeeds?|succeeded|finishes|finished|completes|completed|builds|green|runs? clean|runs? through|went through)\b")
            .expect("valid regex")
    });
    let sentences = super::signals::prose(&without_links(reply));
    let failed = sentences.iter().position(|s| FAILURE.is_match(s))?;
    let change = failed
        + 1
        + sentences[failed + 1..]
            .iter()
            .position(|s| made_a_change(&CHANGE, s) && s.contains('`'))?;
    if !sentences[change..].iter().any(|s| WORKED.is_match(s)) {
        return None;
    }
    let cause = sentences[failed].split(": ").next().unwrap_or("");
    let cause = one_line(cause.trim_end_matches('.'), 79);
    Some(one_line(&format!("{cause} → {}", sentences[change]), 199))
}

/// Whether `sentence` says the agent changed something: a change verb that
/// is not a condition, a state or an adjective ("uses `X` if set", "is
/// already installed", "your installed `entire`").
fn made_a_change(change: &Regex, sentence: &str) -> bool {
    const NOT_DONE: [&str; 14] = [
        "if", "when", "unless", "is", "are", "be", "not", "already", "your", "the", "a", "an",
        "my", "our",
    ];
    change.find_iter(sentence).any(|m| {
        let before = sentence[..m.start()].trim_end();
        let word = before
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        !NOT_DONE.iter().any(|w| word.eq_ignore_ascii_case(w))
    })
}

/// `text` with Markdown links reduced to their labels: an agent's
/// "[hooks_test.go](/Users/…/hooks_test.go:132)" is "hooks_test.go" in memory,
/// so a shortened line never ends inside a machine path.
fn without_links(text: &str) -> std::borrow::Cow<'_, str> {
    static LINK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\[([^\]\n]+)\]\([^)\s]+\)").expect("valid regex"));
    LINK.replace_all(text, "$1")
}

/// A command that worked, with what it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkedCommand {
    /// The command (core segment).
    pub command: String,
    /// What it does, when obvious.
    pub purpose: Purpose,
}

/// The shell calls of a transcript, in order.
pub(crate) fn shell_runs<'a>(events: impl Iterator<Item = &'a Event>) -> Vec<ShellRun> {
    let mut edits = 0;
    let mut out = Vec::new();
    for (i, e) in events.enumerate() {
        let Event::ToolCall(c) = e else { continue };
        let run = if is_shell_tool(&c.name) {
            Some(shell_run(c, i))
        } else if c.name == "exec" {
            code_mode_call(c).map(|c| shell_run(&c, i))
        } else {
            None
        };
        match run {
            Some(mut run) => {
                run.edits_before = edits;
                if edits_files(&run) {
                    edits += 1;
                }
                out.push(run);
            }
            None if is_file_edit(c) => edits += 1,
            None => {}
        }
    }
    out
}

/// Whether a tool call edits files (an edit tool or a patch).
fn is_file_edit(c: &ToolCall) -> bool {
    matches!(
        c.name.as_str(),
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "apply_patch"
    ) || c.input.contains("*** Begin Patch")
}

/// Whether a shell command rewrites files: a formatter, `sed -i`, a
/// redirection into a file, a patch.
fn edits_files(run: &ShellRun) -> bool {
    run.tool_segments.iter().any(|(_, p)| *p == Purpose::Format)
        || segments(&run.command).iter().any(|seg| {
            let words: Vec<&str> = seg.split_whitespace().collect();
            let program = words.first().copied().unwrap_or("");
            (program == "sed" && words.iter().any(|w| w.starts_with("-i")))
                || matches!(program, "tee" | "patch" | "apply_patch")
                || seg.contains(" > ")
                || seg.contains("*** Begin Patch")
        })
}

/// The shell call inside a Codex code-mode `exec` cell that runs exactly one
/// `tools.exec_command({cmd: "…"})`, with the exit code from its JSON result.
fn code_mode_call(c: &ToolCall) -> Option<ToolCall> {
    const CALL: &str = "tools.exec_command(";
    if c.input.matches(CALL).count() != 1 {
        return None;
    }
    let after = &c.input[c.input.find(CALL)? + CALL.len()..];
    let literal = after[after.find("cmd:")? + 4..].trim_start();
    let command = js_string(literal)?;
    let output = c.output.clone().unwrap_or_default();
    let exit_code = output.split("\"exit_code\":").nth(1).and_then(|rest| {
        let digits: String = rest
            .trim_start()
            .chars()
            .take_while(|ch| ch.is_ascii_digit() || *ch == '-')
            .collect();
        digits.parse::<i64>().ok()
    });
    Some(ToolCall {
        name: "exec_command".to_string(),
        input: command,
        output: exit_code.map(|_| output),
        exit_code,
        failed: c.failed || exit_code.is_some_and(|code| code != 0),
        ..c.clone()
    })
}

/// The value of the double-quoted string literal at the start of `s`.
fn js_string(s: &str) -> Option<String> {
    if !s.starts_with('"') {
        return None;
    }
    let mut escaped = false;
    for (i, ch) in s.char_indices().skip(1) {
        match ch {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return serde_json::from_str(&s[..=i]).ok(),
            _ => escaped = false,
        }
    }
    None
}

/// How a tool call ended.
pub(crate) fn call_status(c: &ToolCall) -> Status {
    let output = c.output.as_deref().unwrap_or("");
    if is_interrupted(output) {
        return Status::Interrupted;
    }
    match c.exit_code {
        Some(0) if !c.failed => Status::Ok,
        Some(code) if code != 0 => Status::Failed(Some(code)),
        _ if c.failed => Status::Failed(c.exit_code),
        None if c.output.is_none() => Status::Unknown,
        _ => Status::Ok,
    }
}

/// Whether an output says the human stopped the call.
fn is_interrupted(output: &str) -> bool {
    let head = crate::util::text::cut(output.trim_start(), 200).to_ascii_lowercase();
    head.starts_with("aborted by user")
        || head.contains("interrupted by user")
        || head.contains("[request interrupted")
}

/// Whether a command removes local state a tool left behind (`rm -f
/// Temp/UnityLockfile`, `rm -rf node_modules`): a step that can make the
/// next command work, unlike looking around. Only paths inside the project.
fn clears_local_state(words: &[String]) -> bool {
    let mut operands = words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .peekable();
    program_name(&words[0]) == "rm"
        && operands.peek().is_some()
        && operands
            .all(|w| !w.starts_with(['/', '~', '$', '*', '.']) && !w.contains("..") && w != "*")
}

/// Whether a git command fetches what a fresh checkout lacks (`git
/// submodule update --init`, `git lfs pull`): a step, unlike `git status`.
fn fetches_checkout_content(words: &[String]) -> bool {
    program_name(&words[0]) == "git"
        && matches!(words.get(1).map(String::as_str), Some("submodule" | "lfs"))
}

fn shell_run(c: &ToolCall, position: usize) -> ShellRun {
    let command = c.input.trim().to_string();
    let mut run = ShellRun {
        position,
        status: call_status(c),
        output: c.output.clone().unwrap_or_default(),
        core: None,
        tool_segments: Vec::new(),
        program_word: String::new(),
        program: String::new(),
        subcommand: String::new(),
        edits_before: 0,
        steps: Vec::new(),
        command,
    };
    let mut first_significant: Option<String> = None;
    for seg in segments(&run.command) {
        let words = program_words(&seg);
        let Some(first) = words.first() else { continue };
        if is_exploration(&program_name(first))
            && !clears_local_state(&words)
            && !fetches_checkout_content(&words)
        {
            continue;
        }
        run.steps.push(seg.clone());
        if let Some(p) = classify(&words) {
            if run.tool_segments.is_empty() {
                run.set_program(&words);
            }
            run.tool_segments.push((seg, p));
        } else if first_significant.is_none() {
            first_significant = Some(seg);
        }
    }
    if !run.tool_segments.is_empty() {
        let core: Vec<&str> = run.tool_segments.iter().map(|(s, _)| s.as_str()).collect();
        run.core = Some(core.join(" && "));
    } else if let Some(seg) = first_significant {
        run.set_program(&program_words(&seg));
        run.core = Some(seg);
    }
    run
}

/// Successful build/test/lint/… commands, de-duplicated, first seen first.
pub(crate) fn worked_commands(runs: &[ShellRun]) -> Vec<WorkedCommand> {
    let mut out: Vec<WorkedCommand> = Vec::new();
    for run in runs.iter().filter(|r| r.status == Status::Ok) {
        for (seg, purpose) in &run.tool_segments {
            if seg.chars().count() > MAX_COMMAND_CHARS
                || is_specific(seg)
                || out.iter().any(|w| w.command == *seg)
            {
                continue;
            }
            out.push(WorkedCommand {
                command: seg.clone(),
                purpose: *purpose,
            });
            if out.len() == MAX_WORKED {
                return out;
            }
        }
    }
    out
}

/// Pairs each failed significant command with the later command that did the
/// same job and worked (when it is a different command).
pub(crate) fn failure_fixes(runs: &[ShellRun], told: &[Told]) -> Vec<FailureFix> {
    let significant: Vec<&ShellRun> = runs.iter().filter(|r| r.significant()).collect();
    let mut out: Vec<FailureFix> = Vec::new();
    for (i, failed) in significant.iter().enumerate() {
        let Status::Failed(code) = failed.status else {
            continue;
        };
        let Some(failed_core) = failed.core.as_deref() else {
            continue;
        };
        let shown = without_program_path(failed_core);
        if shown.chars().count() > MAX_FIX_CHARS || out.iter().any(|f| f.failed == shown) {
            continue;
        }
        // What only looks around (`pnpm run` listing the scripts after
        // "Missing script") is neither the fix nor in the way of it.
        let later = significant
            .iter()
            .skip(i + 1)
            .filter(|r| !only_looks(r))
            .take(FIX_WINDOW)
            .enumerate();
        let instead = later
            .filter(|(_, r)| r.status == Status::Ok)
            .find(|(offset, r)| same_intent(failed, r, *offset == 0))
            .and_then(|(_, fix)| fix.core.as_deref().map(|core| (fix, core)))
            .filter(|(fix, fixed_core)| {
                normalise(fixed_core) != normalise(failed_core)
                    && fixed_core.chars().count() <= MAX_FIX_CHARS
                    && command_was_the_problem(failed, fix)
            })
            .map(|(_, core)| (core.to_string(), false));
        let prerequisite =
            || prerequisite_step(failed, &significant[i + 1..], told).map(|step| (step, true));
        // `cmake -S . -B build … && cmake --build build` after the failed
        // `cmake -S . -B build …` is the same command run again: what ran in
        // between (`sudo apt-get install -y xorg-dev`) is what fixed it.
        let reran = instead
            .as_ref()
            .is_some_and(|(fixed, _)| normalise(fixed).starts_with(&normalise(failed_core)));
        let found = if reran {
            prerequisite().or(instead)
        } else {
            instead.or_else(prerequisite)
        };
        let Some((fixed, prerequisite)) = found else {
            continue;
        };
        out.push(FailureFix {
            failed: shown,
            exit_code: code,
            error: first_error_line(&failed.output),
            fixed,
            prerequisite,
        });
        if out.len() == MAX_FIXES {
            break;
        }
    }
    out
}

/// A command as a lesson shows it: one too long to quote whose program is
/// given by an absolute path (`/Applications/Unity/Hub/Editor/2022.3.41f1/
/// Unity.app/Contents/MacOS/Unity -batchmode …`) names the program only
/// (`Unity -batchmode …`).
fn without_program_path(core: &str) -> String {
    match core.split_once(' ') {
        Some((program, rest))
            if core.chars().count() > MAX_FIX_CHARS
                && program.starts_with('/')
                && program.matches('/').count() >= 3 =>
        {
            format!("{} {rest}", program.rsplit('/').next().unwrap_or(program))
        }
        _ => core.to_string(),
    }
}

/// Whether the failure was about the command rather than the code: another
/// program did the job (`npm` → `pnpm`, `python` → `python3`), the output
/// complains about the invocation (unknown command, command not found, …),
/// or the working command is the failed one plus flags.
///
/// A test run that failed and a different test run that passed later is
/// usually a code fix, not a lesson about commands.
fn command_was_the_problem(failed: &ShellRun, fixed: &ShellRun) -> bool {
    const USAGE_MARKERS: &[&str] = &[
        "command not found",
        "not found in $path",
        "executable file not found",
        "is not recognized as",
        "unknown command",
        "unknown subcommand",
        "unknown flag",
        "unknown option",
        "unknown argument",
        "unexpected argument",
        "unrecognized",
        "invalid option",
        "invalid choice",
        "no such option",
        "no such command",
        "no such file or directory",
        "missing script",
        "no rule to make target",
        "did you mean",
        "usage:",
        "this project uses",
        "not installed",
        "no task named",
        "task not found",
    ];
    let failed_core = failed.core.as_deref().unwrap_or("");
    let fixed_core = fixed.core.as_deref().unwrap_or("");
    let failed_programs: Vec<String> = segments(failed_core)
        .iter()
        .filter_map(|s| program_words(s).into_iter().next())
        .collect();
    if !failed_programs.contains(&fixed.program_word) {
        return true;
    }
    let output = failed.output.to_lowercase();
    if USAGE_MARKERS.iter().any(|m| output.contains(m)) {
        return true;
    }
    (adds_flags(failed_core, fixed_core) && !narrows_tests(fixed_core))
        || sets_variables(failed_core, fixed_core)
        || (failed.subcommand == fixed.subcommand
            && suggested_by(&failed.output, failed_core, fixed_core))
}

/// Whether the failure's output suggested the command that fixed it ("To
/// fix them run 'python manage.py makemigrations --merge'"): at least three
/// of its first words, one of them new, quoted in the output.
fn suggested_by(output: &str, failed: &str, fixed: &str) -> bool {
    let words: Vec<&str> = fixed.split_whitespace().collect();
    let quoted = (3..=words.len())
        .take_while(|&n| output.contains(&words[..n].join(" ")))
        .last();
    quoted.is_some_and(|n| {
        let before: Vec<&str> = failed.split_whitespace().collect();
        words[..n].iter().any(|w| !before.contains(w))
    })
}

/// Whether the fix sets environment variables the failed command did not
/// (`JAVA_HOME=… ./gradlew test` after `./gradlew test`).
fn sets_variables(failed: &str, fixed: &str) -> bool {
    // `JAVA_HOME=… ./gradlew`, `GKSwstype=100 julia …`: assignments before
    // the program (any case), or upper-case ones anywhere (`make CI=1`).
    let assignments = |s: &str| -> Vec<String> {
        let mut leading = true;
        s.split_whitespace()
            .filter(|w| {
                let name = w.split_once('=').map(|(k, _)| k);
                let prefix = name.is_some_and(|k| {
                    k.starts_with(|c: char| c.is_ascii_alphabetic())
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                leading &= prefix;
                leading || name.is_some_and(is_env_name)
            })
            .map(str::to_string)
            .collect()
    };
    let before = assignments(failed);
    assignments(fixed).iter().any(|a| !before.contains(a))
}

/// Whether `fixed` keeps every operand of `failed` and adds at least one flag.
fn adds_flags(failed: &str, fixed: &str) -> bool {
    let split = |s: &str| -> (Vec<String>, Vec<String>) {
        s.split_whitespace()
            .map(str::to_string)
            .partition(|w| w.starts_with('-'))
    };
    let (failed_flags, failed_operands) = split(failed);
    let (fixed_flags, fixed_operands) = split(fixed);
    failed_operands.iter().all(|w| fixed_operands.contains(w))
        && fixed_flags.iter().any(|f| !failed_flags.contains(f))
}

/// Whether `b` does the job `a` tried to do: the same subcommand of a build
/// tool (`npm test` / `pnpm test`), the same program as the very next call,
/// the same program and subcommand, or mostly the same words.
fn same_intent(a: &ShellRun, b: &ShellRun, immediately_after: bool) -> bool {
    let (a_core, b_core) = (
        a.core.as_deref().unwrap_or(""),
        b.core.as_deref().unwrap_or(""),
    );
    // `pytest` → `uv run pytest`, `jest` → `npx jest`: the same command wrapped.
    let wrapped = !a_core.is_empty()
        && b_core.len() > a_core.len()
        && b_core.ends_with(a_core)
        && b_core[..b_core.len() - a_core.len()].ends_with(' ');
    if wrapped {
        return true;
    }
    let same_program = !a.program.is_empty() && a.program == b.program;
    let same_sub = !a.subcommand.is_empty() && a.subcommand == b.subcommand;
    let both_tools = a.purpose().is_some() && b.purpose().is_some();
    let overlap = word_overlap(
        a.core.as_deref().unwrap_or(""),
        b.core.as_deref().unwrap_or(""),
    );
    // `php artisan migrate` → `./vendor/bin/sail artisan migrate`: another
    // program given the same operands.
    let operands =
        |core: &str| -> Vec<String> { program_words(core).into_iter().skip(1).collect() };
    let same_operands = {
        let theirs = operands(a_core);
        theirs.len() >= 2 && theirs == operands(b_core)
    };
    (both_tools && same_sub)
        || (same_program && (same_sub || immediately_after || overlap >= 0.5))
        || overlap >= 0.6
        || same_operands
}

/// Jaccard overlap of the words of two commands.
fn word_overlap(a: &str, b: &str) -> f64 {
    let wa: Vec<&str> = a.split_whitespace().collect();
    let wb: Vec<&str> = b.split_whitespace().collect();
    if wa.is_empty() || wb.is_empty() {
        return 0.0;
    }
    let common = wa.iter().filter(|w| wb.contains(w)).count();
    let union = wa.len() + wb.iter().filter(|w| !wa.contains(w)).count();
    common as f64 / union as f64
}

fn normalise(cmd: &str) -> String {
    cmd.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The step that made a failed command work when it was run again as it
/// was: the first working command in between that is not the same command
/// (`pytest` fails, `uv sync`, `pytest` passes → `uv sync`).
fn prerequisite_step(failed: &ShellRun, later: &[&ShellRun], told: &[Told]) -> Option<String> {
    let core = normalise(failed.core.as_deref()?);
    let window = &later[..later.len().min(FIX_WINDOW)];
    // The retry: the same command, wrapped (`timeout 20 pnpm dev`) or with
    // other arguments to the same subcommand (`terraform plan -out=tfplan`):
    // the same program and first operands (`fvm flutter test` is not `fvm
    // flutter emulators`).
    let start = |r: &ShellRun| -> Vec<String> {
        without_runner(program_words(r.core.as_deref().unwrap_or("")))
            .into_iter()
            .filter(|w| !w.starts_with('-'))
            .take(3)
            .collect()
    };
    let failed_start = start(failed);
    // A chain that runs the failed command after other steps (`sbt
    // scalafmtAll && sbt scalafmtCheckAll`) is a retry too.
    let chained_at = |r: &ShellRun| r.steps.iter().skip(1).position(|s| normalise(s) == core);
    let is_retry = |r: &ShellRun| {
        r.core.as_deref().map(normalise).as_deref() == Some(core.as_str())
            || chained_at(r).is_some()
            || (!failed_start.is_empty() && {
                let theirs = start(r);
                theirs.len() >= failed_start.len().min(2)
                    && theirs.iter().zip(&failed_start).all(|(a, b)| a == b)
            })
    };
    let retry = window
        .iter()
        .position(|r| is_retry(r) && r.status == Status::Ok)?;
    // Files edited in between: the code change made it work, not a step.
    if window[retry].edits_before > failed.edits_before {
        return None;
    }
    // A step prepares (installs, builds, starts, generates); running tests,
    // linters or formatters is no step.
    let prepares = |r: &ShellRun| {
        !r.tool_segments.iter().any(|(_, p)| {
            matches!(
                p,
                Purpose::Tests
                    | Purpose::Lint
                    | Purpose::Format
                    | Purpose::Typecheck
                    | Purpose::Check
            )
        })
    };
    // What the retry chain runs before the failed command is what fixed it.
    let chained = chained_at(window[retry])
        .map(|k| window[retry].steps[..=k].join(" && "))
        .filter(|c| c.chars().count() <= MAX_FIX_CHARS);
    if chained.is_some() {
        return chained;
    }
    // The last such command before the retry is the one that fixed it.
    let step = window[..retry]
        .iter()
        .rev()
        .filter(|r| r.status == Status::Ok && !is_retry(r) && prepares(r) && !only_looks(r))
        .filter_map(|r| whole_step(r))
        .find(|c| normalise(c) != core && c.chars().count() <= MAX_FIX_CHARS && !c.contains("<<"));
    // A command the user ran themselves, or told the agent to, in between
    // ("`sudo systemctl start docker`, done. again").
    let between = |t: &&Told| t.position > failed.position && t.position < window[retry].position;
    step.or_else(|| told.iter().rev().find(between).map(|t| t.command.clone()))
        // `export JAVA_HOME=… && ./gradlew test`: the step is part of the retry.
        .or_else(|| step_in(window[retry]).map(str::to_string))
}

/// A step as it was run, without moving around and looking
/// (`cd ios && pod repo update && pod install && cd ..` is `pod repo update
/// && pod install`), or its core when that is too long.
fn whole_step(run: &ShellRun) -> Option<String> {
    let core = run.core.as_deref()?;
    let whole = run.steps.join(" && ");
    Some(
        if run.steps.len() > 1 && whole.chars().count() <= MAX_FIX_CHARS {
            whole
        } else {
            core.to_string()
        },
    )
}

/// Whether a command only inspects (`fnm list`, `docker compose ps`,
/// `brew info`, `node --version`).
pub(super) fn only_looks(run: &ShellRun) -> bool {
    const LOOKING: &[&str] = &[
        "list",
        "ls",
        "ps",
        "status",
        "show",
        "info",
        "version",
        "--version",
        "-v",
        "-V",
        "help",
        "--help",
        "doctor",
        "which",
        "env",
        "config",
        "current",
        "outdated",
        "search",
        "logs",
        "describe",
        "get",
        "inspect",
        "check-ignore",
        "--list",
        "-T",
        "--tasks",
        "tasks",
    ];
    let words = program_words(run.core.as_deref().unwrap_or(""));
    // `pnpm run`, `npm run`: the package's scripts, listed.
    let lists_scripts = matches!(words.as_slice(), [runner, run]
        if run == "run" && matches!(runner.as_str(), "npm" | "pnpm" | "yarn" | "bun"));
    let looks = |i: usize| words.get(i).is_some_and(|w| LOOKING.contains(&w.as_str()));
    let nested = words.get(1).is_some_and(|w| {
        matches!(
            w.as_str(),
            "compose"
                | "container"
                | "image"
                | "pages"
                | "context"
                | "network"
                | "volume"
                | "system"
                | "auth"
                | "secret"
                | "simctl"
        )
    });
    lists_scripts || looks(1) || (nested && looks(2))
}

/// The step a retry runs before the command itself (`export JAVA_HOME=… &&
/// ./gradlew test`, `git add -N file && nix build`), if any.
fn step_in(retry: &ShellRun) -> Option<&str> {
    let segments = segments(&retry.command);
    let first = segments.first()?;
    let core = retry.core.as_deref()?;
    let program = program_words(first).into_iter().next().unwrap_or_default();
    if segments.len() < 2
        || core.starts_with(first.as_str())
        || matches!(
            program.as_str(),
            "cd" | "sleep" | "echo" | "true" | "clear" | "set"
        )
        || first.chars().count() > MAX_FIX_CHARS
    {
        return None;
    }
    let at = retry.command.find(first.as_str())?;
    Some(&retry.command[at..at + first.len()])
}

/// Whether a line is npm's script banner (`> shop@1.0.0 test`), not a
/// quoted cause (Gradle's `> Android Gradle plugin requires Java 17`).
fn is_npm_banner(line: &str) -> bool {
    line.strip_prefix("> ")
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|name| name.contains('@'))
}

/// Lines of tool output that are wrapping, not the error itself.
fn is_noise_line(line: &str) -> bool {
    let l = line.trim();
    l.is_empty()
        || l.starts_with("Exit code ")
        || l.starts_with("Chunk ID:")
        || l.starts_with("Wall time:")
        || l.starts_with("Process exited with code")
        || l.starts_with("Original token count:")
        || l == "Output:"
        || l.starts_with("[… ")
        || is_npm_banner(l)
        || is_code_frame(l)
        || l.chars().all(|c| !c.is_alphanumeric())
}

/// Whether a line quotes source code around the error (`➜ 825▕ throw new
/// QueryException(`, `  12 | let x = y;`), not the error itself.
fn is_code_frame(line: &str) -> bool {
    let rest = line.trim_start_matches(['➜', '>', ' ']);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].trim_start().starts_with(['▕', '|', '│'])
}

/// The most telling line of a failed output: the first line that reads like
/// an error, else the first meaningful line (≤ 160 characters).
pub(crate) fn first_error_line(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| !is_noise_line(l) && !l.trim_start().starts_with("Traceback (most recent"))
        .take(MAX_ERROR_LINES)
        .collect();
    // The most telling line wins, the first of equals: one that names the
    // error and says what is wrong beats "FAILURE: Build failed".
    let line = lines
        .iter()
        .enumerate()
        .max_by_key(|(i, l)| (error_score(l), std::cmp::Reverse(*i)))
        .filter(|(_, l)| error_score(l) > 0)
        .map(|(_, l)| *l)
        .or(lines.first().copied())
        .unwrap_or("no output");
    one_line(line.trim().trim_start_matches(['>', ' ']), 159)
}

/// Lines of output looked at for the error.
const MAX_ERROR_LINES: usize = 200;

/// How much a line of output tells about what went wrong.
fn error_score(line: &str) -> i32 {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b[A-Z]\w*(?:Error|Exception)\b|\bERR_[A-Z_]+\b|\bSQLSTATE\[|\bE(?:ACCES|NOENT|PERM|ADDRINUSE|ADDRNOTAVAIL|CONNREFUSED|CONNRESET|EXIST|NOTDIR|ISDIR|NOSPC|ROFS|MFILE|TIMEDOUT|PIPE|AGAIN|NOTEMPTY|NOTFOUND|INVAL|BUSY|LOOP|NAMETOOLONG|XDEV|RESOLVE|AI_AGAIN|HOSTUNREACH|NETUNREACH)\b|(?i:^\s*(?:error|fatal)(?:\[\w+\])?:)")
            .expect("valid regex")
    });
    static CAUSE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:requires?|required|expected|version|not found|no such|missing|cannot|can't|could not|couldn't|unable|refused|denied|not installed|unsupported|incompatible|no module|undefined|unknown|did you mean|please run|not recognized|assertion|mismatch(?:es|ed)?|(?:isn'?t|is not|not) defined)\b")
            .expect("valid regex")
    });
    static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\W*(?:failure: build failed|build failed|error: command failed|npm err! a complete log|\d+ (?:failed|errors?)\b|failed\b|tests? failed|error: (?:test run|tests?|build|compilation) failed)")
            .expect("valid regex")
    });
    const MARKERS: &[&str] = &[
        "error",
        "err!",
        "fail",
        "fatal",
        "panicked",
        "exception",
        "invalid",
        "timed out",
        "not allowed",
    ];
    let lower = line.to_ascii_lowercase();
    let mut score = 0;
    if NAMED.is_match(line) {
        score += if line.split_whitespace().count() >= 3 {
            3
        } else {
            1
        };
    }
    if CAUSE.is_match(line) {
        score += 2;
    }
    if MARKERS.iter().any(|m| lower.contains(m)) {
        score += 1;
    }
    if GENERIC.is_match(line) {
        score -= 2;
    }
    // A bare name ("Illuminate\Database\QueryException") says less than the
    // line after it that says why.
    if line.split_whitespace().count() < 3 {
        score = score.min(1);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(cmd: &str, exit: i64, output: &str) -> Event {
        Event::ToolCall(ToolCall {
            call_id: "c".into(),
            name: "exec_command".into(),
            input: cmd.into(),
            output: Some(output.into()),
            exit_code: Some(exit),
            failed: exit != 0,
            at: None,
            line: 1,
        })
    }

    /// An assistant message.
    fn say(text: &str) -> Event {
        Event::Message(crate::sources::Message {
            role: Role::Assistant,
            text: text.into(),
            phase: None,
            at: None,
            line: 1,
            citation: None,
        })
    }

    #[test]
    fn the_agents_account_of_a_fix_is_kept_its_narration_is_not() {
        let events = [
            say(
                "Tests pass (212). Plain `sbt test` died with `java.lang.OutOfMemoryError: Metaspace`; setting `SBT_OPTS=\"-Xmx4G\"` and re-running fixed it.",
            ),
            say(
                "If direct parse now fails too, the vendored `scanner.c` changed; if it passes, the issue is in `ParseWithStatus`.",
            ),
            say(
                "The RPC context succeeded; I\u{2019}m rerunning the failed `search` so the record is clean.",
            ),
            say("`mise run test:all` therefore still fails here because it includes `test:e2e`."),
            say(
                "Added the endpoint. Hatch couldn't find Python 3.12 at first; `hatch python install 3.12` fixed the env.",
            ),
            say("I couldn't find `config.yml`, so I read the defaults instead."),
        ];
        let refs: Vec<&Event> = events.iter().collect();
        assert_eq!(
            described_fixes(&refs, &[]),
            [
                "Plain `sbt test` died with `java.lang.OutOfMemoryError: Metaspace`; setting `SBT_OPTS=\"-Xmx4G\"` and re-running fixed it.",
                "Hatch couldn't find Python 3.12 at first; `hatch python install 3.12` fixed the env."
            ]
        );
    }

    #[test]
    fn fixes_asked_of_the_user_and_the_invocation_that_works() {
        let events = [
            say(
                "`terraform init` can't get credentials: the SSO token of profile `np-staging` has expired. That needs a browser, so you'll have to run it:\n\n```\naws sso login --profile np-staging\n```\n",
            ),
            say(
                "Worker: `celery -A shop` fails (\"no attribute 'celery'\") because the app object lives in `shop/celery_app.py`. The working invocation is `uv run celery -A shop.celery_app worker`.",
            ),
            // A code block that is no command to run, after a failure.
            say(
                "`pytest` failed on the fixture. Here is the traceback:\n\n```\nE   KeyError: 'id'\nE   at conftest.py:12\n```\n",
            ),
        ];
        let refs: Vec<&Event> = events.iter().collect();
        assert_eq!(
            described_fixes(&refs, &[]),
            [
                "`terraform init` can't get credentials: the SSO token of profile `np-staging` has expired → `aws sso login --profile np-staging`",
                "Worker: `celery -A shop` fails (\"no attribute 'celery'\"). The working invocation is `uv run celery -A shop.celery_app worker`.",
            ]
        );
    }

    #[test]
    fn a_step_that_made_the_same_command_work_is_a_procedure() {
        let events = [
            call(
                "uv run pytest -q",
                1,
                "E   ModuleNotFoundError: No module named 'httpx'",
            ),
            call("uv sync --all-extras", 0, "Resolved 42 packages"),
            call("uv run pytest -q", 0, "12 passed"),
        ];
        let fixes = failure_fixes(&shell_runs(events.iter()), &[]);
        assert_eq!(
            fixes,
            [FailureFix {
                failed: "uv run pytest -q".into(),
                exit_code: Some(1),
                error: "E ModuleNotFoundError: No module named 'httpx'".into(),
                fixed: "uv sync --all-extras".into(),
                prerequisite: true,
            }]
        );
        // A fresh checkout's missing submodule, fetched with git.
        let configured = [
            call(
                "cmake --preset dev-clang",
                1,
                "CMake Error at CMakeLists.txt:4 (project):\n  Could not find toolchain file: extern/vcpkg/scripts/buildsystems/vcpkg.cmake",
            ),
            call("git status --short", 0, ""),
            call(
                "git submodule update --init --recursive",
                0,
                "Submodule path 'extern/vcpkg': checked out",
            ),
            call("cmake --preset dev-clang", 0, "-- Generating done"),
        ];
        let fixes = failure_fixes(&shell_runs(configured.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(fixes[0].fixed, "git submodule update --init --recursive");
        assert!(fixes[0].prerequisite);
        // Looking at docker's contexts is no step; the variable the retry
        // sets is.
        let rootless = [
            call(
                "dotnet test tests/Api.IntegrationTests",
                1,
                "DockerUnavailableException : Docker is either not running or misconfigured",
            ),
            call(
                "docker context ls",
                0,
                "rootless   unix:///run/user/1000/docker.sock",
            ),
            call(
                "export DOCKER_HOST=unix:///run/user/1000/docker.sock && dotnet test tests/Api.IntegrationTests",
                0,
                "Passed!",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(rootless.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(
            fixes[0].fixed,
            "export DOCKER_HOST=unix:///run/user/1000/docker.sock"
        );
        // The step in the retry itself, or a variable the fix sets.
        let exported = [
            call(
                "./gradlew test",
                1,
                "error: Unsupported class file major version 65",
            ),
            call(
                "export JAVA_HOME=/usr/lib/jvm/java-17 && ./gradlew test",
                0,
                "BUILD SUCCESSFUL",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(exported.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(fixes[0].fixed, "export JAVA_HOME=/usr/lib/jvm/java-17");
        assert!(fixes[0].prerequisite);
        // The failed command run again with more after it: the install in
        // between fixed it.
        let installed = [
            call(
                "cmake -S . -B build",
                1,
                "CMake Error: X11 development libraries not found\nPlease install: xorg-dev",
            ),
            call("sudo apt-get install -y xorg-dev", 0, "Setting up xorg-dev"),
            call(
                "cmake -S . -B build && cmake --build build",
                0,
                "[100%] Built target app",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(installed.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(fixes[0].fixed, "sudo apt-get install -y xorg-dev");
        assert!(fixes[0].prerequisite);
        let assigned = [
            call(
                "./gradlew test",
                1,
                "error: Unsupported class file major version 65",
            ),
            call(
                "JAVA_HOME=/usr/lib/jvm/java-17 ./gradlew test",
                0,
                "BUILD SUCCESSFUL",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(assigned.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(
            fixes[0].fixed,
            "JAVA_HOME=/usr/lib/jvm/java-17 ./gradlew test"
        );
        assert!(!fixes[0].prerequisite);
        // Code edited in between: the edit made it pass, not the step.
        let edited = [
            call("go test ./internal/sem", 1, "--- FAIL: TestParser (0.01s)"),
            Event::ToolCall(ToolCall {
                name: "apply_patch".into(),
                ..match call("", 0, "Success.") {
                    Event::ToolCall(c) => c,
                    _ => unreachable!(),
                }
            }),
            call("go build ./...", 0, ""),
            call("go test ./internal/sem", 0, "ok"),
        ];
        assert!(failure_fixes(&shell_runs(edited.iter()), &[]).is_empty());
        // Retried and failed again: nothing was learned.
        let still = [
            call("make test", 2, "error: db missing"),
            call("make db", 0, "ok"),
            call("make test", 2, "error: db missing"),
        ];
        assert!(failure_fixes(&shell_runs(still.iter()), &[]).is_empty());
    }

    #[test]
    fn pairs_a_failure_with_the_command_that_worked() {
        let events = [
            call(
                "npm test",
                1,
                "Exit code 1\n\n> shop@1.0.0 test\nnpm ERR! This project uses pnpm",
            ),
            call("ls", 0, "src"),
            call("pnpm test", 0, "12 passed"),
        ];
        let runs = shell_runs(events.iter());
        let fixes = failure_fixes(&runs, &[]);
        assert_eq!(
            fixes,
            vec![FailureFix {
                failed: "npm test".into(),
                exit_code: Some(1),
                error: "npm ERR! This project uses pnpm".into(),
                fixed: "pnpm test".into(),
                prerequisite: false,
            }]
        );
        let worked = worked_commands(&runs);
        assert_eq!(worked.len(), 1);
        assert_eq!(worked[0].command, "pnpm test");
    }

    #[test]
    fn the_telling_line_of_a_failure_beats_the_runners_summary() {
        let nextest = "--- STDOUT: tidewatch::render render_table ---\nthread 'render_table' panicked: snapshot assertion for 'render_table' failed in line 88\n     Summary [   1.377s] 48 tests run: 46 passed, 2 failed\nerror: test run failed\n";
        assert_eq!(
            first_error_line(nextest),
            "thread 'render_table' panicked: snapshot assertion for 'render_table' failed in line 88"
        );
        assert_eq!(
            first_error_line("error: no such command: `nextest`\n\nView all installed commands"),
            "error: no such command: `nextest`"
        );
    }

    #[test]
    fn fixes_behind_runners_lock_files_and_other_programs() {
        // `poetry run airflow …`: the runner is not the command.
        let airflow = [
            call(
                "poetry run airflow dags test gauge_ingest 2026-11-03",
                1,
                "[2026-11-03T09:04:11.201+0000] {taskinstance.py:2905} ERROR - Task failed with exception\nairflow.exceptions.AirflowNotFoundException: The conn_id `warehouse_pg` isn't defined\n",
            ),
            call(
                "poetry run airflow connections import connections.local.yaml",
                0,
                "Imported connection warehouse_pg\n",
            ),
            call(
                "poetry run airflow dags test gauge_ingest 2026-11-03",
                0,
                "state=success\n",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(airflow.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(
            fixes[0].fixed,
            "poetry run airflow connections import connections.local.yaml"
        );
        assert!(
            fixes[0].error.contains("AirflowNotFoundException"),
            "{}",
            fixes[0].error
        );
        // A stale lock removed; a long program path shown by its name.
        let unity = "/Applications/Unity/Hub/Editor/2022.3.41f1/Unity.app/Contents/MacOS/Unity -batchmode -nographics -projectPath . -runTests -testPlatform EditMode -testResults Logs/editmode.xml";
        let locked = [
            call(
                unity,
                1,
                "Multiple Unity instances cannot open the same project.\n",
            ),
            call("rm -f Temp/UnityLockfile", 0, ""),
            call(unity, 0, "38 passed\n"),
        ];
        let fixes = failure_fixes(&shell_runs(locked.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert!(
            fixes[0].failed.starts_with("Unity -batchmode"),
            "{}",
            fixes[0].failed
        );
        assert_eq!(fixes[0].fixed, "rm -f Temp/UnityLockfile");
        assert!(!clears_local_state(&[
            "rm".into(),
            "-rf".into(),
            "/".into()
        ]));
        assert!(!clears_local_state(&[
            "rm".into(),
            "-rf".into(),
            "~/.cache".into()
        ]));
        // Another program given the same operands; the code frame is no error.
        let sail = [
            call(
                "php artisan migrate",
                1,
                "   Illuminate\\Database\\QueryException\n\n  SQLSTATE[HY000] [2002] Connection refused (Connection: mysql)\n\n  ➜ 825▕             throw new QueryException(\n",
            ),
            call(
                "./vendor/bin/sail artisan migrate",
                0,
                "INFO  Running migrations.\n",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(sail.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(fixes[0].fixed, "./vendor/bin/sail artisan migrate");
        assert!(
            fixes[0]
                .error
                .starts_with("SQLSTATE[HY000] [2002] Connection refused")
        );
    }

    #[test]
    fn a_step_is_shown_as_run_without_moving_around() {
        let pods = [
            call(
                "fvm flutter build ios --no-codesign",
                1,
                "[!] CocoaPods could not find compatible versions for pod \"FirebaseCore\"",
            ),
            call(
                "cd ios && pod repo update && pod install && cd ..",
                0,
                "Pod installation complete!",
            ),
            call(
                "fvm flutter build ios --no-codesign",
                0,
                "Built build/ios/iphoneos/Runner.app",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(pods.iter()), &[]);
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(fixes[0].fixed, "pod repo update && pod install");
        assert!(fixes[0].prerequisite);
    }

    #[test]
    fn commands_the_agent_asks_for_in_code_blocks_are_told() {
        let indented = say(
            "The repo ships udev rules; please run (needs sudo):\n\n    sudo cp tools/69-probe-rs.rules /etc/udev/rules.d/ && sudo udevadm trigger\n\nthen replug the board.",
        );
        let fenced = say("Please run this:\n```bash\n$ sudo usermod -aG dialout tomasz\n```");
        let told = told_commands(&[&indented, &fenced]);
        let commands: Vec<&str> = told.iter().map(|t| t.command.as_str()).collect();
        assert_eq!(
            commands,
            [
                "sudo cp tools/69-probe-rs.rules /etc/udev/rules.d/ && sudo udevadm trigger",
                "sudo usermod -aG dialout tomasz"
            ]
        );
    }

    #[test]
    fn a_listing_is_passed_over_and_a_suggested_command_is_a_fix() {
        let scripts = [
            call(
                "pnpm generate",
                1,
                " ERR_PNPM_NO_SCRIPT  Missing script: generate\n",
            ),
            call(
                "pnpm run",
                0,
                "Commands available via \"pnpm run\":\n  gen:api\n    openapi-typescript ../contract/openapi.yaml -o src/api/generated/schema.d.ts\n",
            ),
            call("pnpm gen:api", 0, "✨ openapi-typescript 7.4.1\n"),
        ];
        let fixes = failure_fixes(&shell_runs(scripts.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(fixes[0].fixed, "pnpm gen:api");
        let merge = [
            call(
                "python manage.py makemigrations ledger",
                1,
                "CommandError: Conflicting migrations detected; multiple leaf nodes in the migration graph: (0042_a, 0042_b in ledger).\nTo fix them run 'python manage.py makemigrations --merge'\n",
            ),
            call(
                "python manage.py makemigrations --merge --noinput",
                0,
                "Created new merge migration ledger/migrations/0043_merge.py\n",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(merge.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(
            fixes[0].fixed,
            "python manage.py makemigrations --merge --noinput"
        );
        // A different test run passing is no fix, suggested or not.
        let tests = [
            call("pytest tests/test_a.py", 1, "FAILED tests/test_a.py::t\n"),
            call("pytest tests/test_b.py", 0, "1 passed\n"),
        ];
        assert!(failure_fixes(&shell_runs(tests.iter()), &[]).is_empty());
    }

    #[test]
    fn fixes_told_over_several_sentences_and_variables_of_any_case() {
        assert_eq!(
            told_fix("The operator could not list TeamQuotas: its service account had no ClusterRoleBinding (403). I applied `deploy/rbac.yaml` with `kubectl apply -f deploy/rbac.yaml`, restarted the deployment, and the handlers now succeed.").as_deref(),
            Some("The operator could not list TeamQuotas → I applied `deploy/rbac.yaml` with `kubectl apply -f deploy/rbac.yaml`, restarted the deployment, and the handlers now succeed.")
        );
        assert!(
            told_fix("Spark on Java 17 needs `--add-opens=java.base/sun.nio.ch=ALL-UNNAMED`, otherwise StorageUtils can't reach DirectBuffer. Added it to the driver options in `bin/run-local.sh`. The run completes: 24 hourly rows.")
                .is_some_and(|f| f.contains("--add-opens"))
        );
        assert_eq!(
            told_fix("The build container has no network, so module download failed. Building from the vendor dir with `GOFLAGS=-mod=vendor` works.").as_deref(),
            Some("The build container has no network, so module download failed → Building from the vendor dir with `GOFLAGS=-mod=vendor` works.")
        );
        assert_eq!(
            told_fix("The tests failed. I added `x` to the list."),
            None,
            "no sign it worked"
        );
        assert_eq!(
            told_fix("I added `--json`; the tests pass."),
            None,
            "nothing failed"
        );
        let formatted_first = [
            call(
                "sbt scalafmtCheckAll",
                1,
                "[error] 1 file is not formatted\n",
            ),
            call("sbt scalafmtAll && sbt scalafmtCheckAll", 0, "[success]\n"),
        ];
        let fixes = failure_fixes(&shell_runs(formatted_first.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(
            (fixes[0].fixed.as_str(), fixes[0].prerequisite),
            ("sbt scalafmtAll", true)
        );
        let headless = [
            call(
                "julia --project=docs docs/make.jl",
                1,
                "ERROR: LoadError: failed to run `@example` block\n",
            ),
            call(
                "GKSwstype=100 julia --project=docs docs/make.jl",
                0,
                "docs built\n",
            ),
        ];
        let fixes = failure_fixes(&shell_runs(headless.iter()), &[]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(
            fixes[0].fixed,
            "GKSwstype=100 julia --project=docs docs/make.jl"
        );
    }

    #[test]
    fn a_condition_is_not_a_fix_and_links_keep_their_labels() {
        // From a real Codex reply: two findings of a list, not a failure and its fix.
        let reply = "The golden string in [hooks_test.go](/Users/dev/agents/pi/hooks_test.go:132) was not updated, so `TestGenerateExtension` fails.\n\n2. E2E setup is using the wrong `entire` binary.\n   The harness uses `E2E_ENTIRE_BIN` if set, otherwise whatever `entire` is already on `PATH`. Your installed `entire` binary is too old. After that the unit tests pass.";
        assert_eq!(told_fix(reply), None);
        assert_eq!(
            told_fix("`make e2e` failed in [e2e.go](/Users/dev/e2e/e2e.go:11): no binary. I set `E2E_BIN` to the local build and the suite passes.").as_deref(),
            Some("`make e2e` failed in e2e.go → I set `E2E_BIN` to the local build and the suite passes.")
        );
    }

    #[test]
    fn the_same_command_passing_later_is_no_fix() {
        let events = [
            call("cargo test", 101, "test foo ... FAILED"),
            call("cargo test", 0, "ok"),
            call("cargo test --all", 0, "ok"),
        ];
        assert!(failure_fixes(&shell_runs(events.iter()), &[]).is_empty());
    }

    #[test]
    fn exploration_failures_are_ignored() {
        let events = [call("rg foo src", 1, ""), call("rg bar src", 0, "x")];
        let runs = shell_runs(events.iter());
        assert!(!runs[0].significant());
        assert!(failure_fixes(&runs, &[]).is_empty());
    }

    #[test]
    fn code_mode_cells_with_one_command_are_shell_calls() {
        let cell = Event::ToolCall(ToolCall {
            call_id: "c".into(),
            name: "exec".into(),
            input: "const r = await tools.exec_command({\n  cmd: \"go test ./internal/x\",\n});\ntext(r);".into(),
            output: Some("Script completed\nOutput:\n{\"exit_code\": 0, \"output\": \"ok\"}".into()),
            exit_code: None,
            failed: false,
            at: None,
            line: 1,
        });
        let runs = shell_runs([cell].iter());
        assert_eq!(runs[0].command, "go test ./internal/x");
        assert_eq!(runs[0].status, Status::Ok);
    }

    #[test]
    fn interruptions_are_recognised() {
        let Event::ToolCall(mut c) = call("pnpm test", 0, "aborted by user after 3s") else {
            unreachable!()
        };
        c.exit_code = None;
        assert_eq!(call_status(&c), Status::Interrupted);
    }
}
