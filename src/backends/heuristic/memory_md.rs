//! `MEMORY.md`: a title, the ad-hoc notes block when there are notes, then
//! one `# Task Group` block per working directory, by name. A block depends
//! only on its own sessions (and the notes), so adding or removing a session
//! elsewhere leaves it byte-identical.

use super::digest::{Digest, Project, Session, UNKNOWN, short_name};
use super::notes::NoteBook;
use super::tally::sessions_phrase;
use crate::util::time::rfc3339;

/// The first line.
const TITLE: &str = "# Memory handbook";
/// The block name of the notes.
pub const NOTES_GROUP: &str = "ad-hoc notes";
/// The tag on everything taken from a note.
pub const NOTE_TAG: &str = "[ad-hoc note]";
/// The name of the block of preferences that hold in every project.
pub const GLOBAL_GROUP: &str = "all projects";
/// Most project names listed in one support phrase.
const MAX_NAMES: usize = 5;
/// Task references listed on one bullet before the rest are counted.
const MAX_TASK_REFS: usize = 3;

/// Renders `MEMORY.md`.
pub fn render(d: &Digest) -> String {
    let mut blocks = vec![format!("{TITLE}\n")];
    if d.is_empty() {
        blocks.push(
            "No memories yet: no session has been consolidated and there are no notes.\n"
                .to_string(),
        );
    }
    if !d.notes.is_empty() {
        blocks.push(notes_block(&d.notes));
    }
    if !d.current.global.is_empty() {
        blocks.push(global_block(d));
    }
    blocks.extend(
        d.projects
            .iter()
            .enumerate()
            .map(|(n, p)| project_block(d, n, p)),
    );
    blocks.join("\n")
}

/// The block of the user's notes.
fn notes_block(notes: &NoteBook) -> String {
    let mut out = format!(
        "# Task Group: {NOTES_GROUP}\nscope: preferences the user wrote down\n\
         applies_to: cwd=any; reuse_rule=applies everywhere and outranks what sessions suggest\n"
    );
    if !notes.preferences.is_empty() {
        out.push_str("\n## User preferences\n");
        for p in &notes.preferences {
            out.push_str(&format!(
                "- {} {NOTE_TAG} (from {})\n",
                p.text,
                note_path(&p.file_name)
            ));
        }
    }
    if !notes.forgets.is_empty() {
        out.push_str("\n## Forgotten on request\n");
        for f in &notes.forgets {
            out.push_str(&format!(
                "- preferences mentioning \"{}\" were removed {NOTE_TAG} (from {})\n",
                f.words.join(" "),
                note_path(&f.file_name)
            ));
        }
    }
    out
}

/// A note's path inside the memory folder.
fn note_path(file_name: &str) -> String {
    format!("extensions/ad_hoc/notes/{file_name}")
}

/// One project's block.
fn project_block(d: &Digest, n: usize, p: &Project) -> String {
    let sessions: Vec<&Session> = d.sessions_of(p).collect();
    let mut out = block_header(&p.name, sessions.len());
    for (n, s) in sessions.iter().enumerate() {
        out.push('\n');
        out.push_str(&task_section(n + 1, s));
    }
    let memory = &d.current.projects[n];
    let sections = [
        ("User preferences", &memory.preferences),
        ("Reusable knowledge", &memory.knowledge),
        ("Failures and how to do differently", &memory.failures),
        ("Environment facts", &memory.environment),
    ];
    let task_of = |i: &usize| p.sessions.iter().position(|s| s == i).unwrap_or_default();
    let mut first = true;
    for (title, entries) in sections {
        if entries.is_empty() {
            continue;
        }
        if first {
            out.push('\n');
            first = false;
        }
        out.push_str(&format!("## {title}\n"));
        for e in entries {
            let tasks: Vec<usize> = e.members.iter().map(task_of).collect();
            out.push_str(&format!(
                "- {} {} (seen in {})\n",
                e.text,
                task_refs(&tasks),
                sessions_phrase(e.members.len())
            ));
        }
    }
    out
}

/// The block of preferences that hold in every project.
fn global_block(d: &Digest) -> String {
    let mut out = format!(
        "# Task Group: {GLOBAL_GROUP}\nscope: preferences the user stated for every project, or in two or more\n\
         applies_to: cwd=any; reuse_rule=applies in every project unless a project block says otherwise\n\n\
         ## User preferences\n"
    );
    for e in &d.current.global {
        out.push_str(&format!(
            "- {} (seen in {})\n",
            e.text,
            support(d, &e.members)
        ));
    }
    out
}

/// "2 sessions across shop, api": how many sessions and which projects.
pub fn support(d: &Digest, members: &[usize]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for &i in members {
        let name = short_name(&d.sessions[i].cwd);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let place = if names.len() == 1 { "in" } else { "across" };
    format!(
        "{} {place} {}",
        sessions_phrase(members.len()),
        name_list(&names)
    )
}

/// Names, at most five, then "and N more".
pub fn name_list(names: &[&str]) -> String {
    let shown = names[..names.len().min(MAX_NAMES)].join(", ");
    match names.len().saturating_sub(MAX_NAMES) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

fn block_header(name: &str, sessions: usize) -> String {
    let count = sessions_phrase(sessions);
    if name == UNKNOWN {
        return format!(
            "# Task Group: {UNKNOWN}\nscope: {count} whose working directory is unknown\n\
             applies_to: cwd={UNKNOWN}; reuse_rule=consult when no project-specific block fits\n"
        );
    }
    format!(
        "# Task Group: {name}\nscope: {count} in {name}\n\
         applies_to: cwd={name}; reuse_rule=applies when working in this directory or below it\n"
    )
}

/// `## Task n` with its summary file and keywords.
fn task_section(n: usize, s: &Session) -> String {
    let branch = s
        .branch
        .as_deref()
        .map(|b| format!(", git_branch={b}"))
        .unwrap_or_default();
    let mut out = format!(
        "## Task {n}: {}, {}\n### rollout_summary_files\n- rollout_summaries/{}.md (cwd={}, updated_at={}, thread_id={}{branch})\n",
        s.task,
        s.outcome,
        s.stem,
        s.cwd,
        rfc3339(s.updated_at),
        s.thread_id
    );
    if !s.memory.keywords.is_empty() {
        out.push_str(&format!("### keywords\n{}\n", s.memory.keywords.join(", ")));
    }
    out
}

/// `[Task 1]`, `[Task 1, Task 4]`, `[Task 1, Task 2, Task 3 and 5 more]`.
fn task_refs(members: &[usize]) -> String {
    let shown: Vec<String> = members
        .iter()
        .take(MAX_TASK_REFS)
        .map(|i| format!("Task {}", i + 1))
        .collect();
    let more = members.len().saturating_sub(MAX_TASK_REFS);
    if more == 0 {
        format!("[{}]", shown.join(", "))
    } else {
        format!("[{} and {more} more]", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::consolidate::Note;
    use crate::backends::heuristic::digest::tests::output;

    const RAW_A: &str = "---\ntask: fix login\ntask_outcome: success\nkeywords: login, auth\n---\n\
                         Preference signals:\n- use pnpm, not npm (evidence: \"pnpm here\")\n\
                         Reusable knowledge:\n- `cargo test` works in shop (tests)\n";
    const RAW_B: &str = "---\ntask: add cart\ntask_outcome: partial\n---\n\
                         Preference signals:\n- Use pnpm, not npm.\n- answer in English\n\
                         Failures and how to do differently:\n- `npm i` failed (exit 1: nope); `pnpm i` worked instead\n";

    #[test]
    fn renders_a_project_block_exactly() {
        let sel = [
            output("t1", Some("/w/shop"), 1_700_000_000, RAW_A),
            output("t2", Some("/w/shop"), 1_700_086_400, RAW_B),
        ];
        let md = render(&Digest::build(&sel, &[]));
        let stem1 = sel[0].stem();
        let stem2 = sel[1].stem();
        let expected = format!(
            "# Memory handbook\n\n# Task Group: /w/shop\nscope: 2 sessions in /w/shop\n\
             applies_to: cwd=/w/shop; reuse_rule=applies when working in this directory or below it\n\n\
             ## Task 1: fix login, success\n### rollout_summary_files\n\
             - rollout_summaries/{stem1}.md (cwd=/w/shop, updated_at=2023-11-14T22:13:20Z, thread_id=t1, git_branch=main)\n\
             ### keywords\nlogin, auth\n\n\
             ## Task 2: add cart, partial\n### rollout_summary_files\n\
             - rollout_summaries/{stem2}.md (cwd=/w/shop, updated_at=2023-11-15T22:13:20Z, thread_id=t2, git_branch=main)\n\n\
             ## User preferences\n- use pnpm, not npm [Task 1, Task 2] (seen in 2 sessions)\n\
             - answer in English [Task 2] (seen in 1 session)\n\
             ## Reusable knowledge\n- `cargo test` works in shop (tests) [Task 1] (seen in 1 session)\n\
             ## Failures and how to do differently\n- `npm i` failed (exit 1: nope); `pnpm i` worked instead [Task 2] (seen in 1 session)\n"
        );
        assert_eq!(md, expected);
        assert!(!md.contains("**"));
    }

    #[test]
    fn empty_input_says_so() {
        let md = render(&Digest::build(&[], &[]));
        assert!(md.starts_with("# Memory handbook\n\nNo memories yet"));
        assert!(!md.contains("# Task Group"));
    }

    #[test]
    fn notes_come_first_and_are_tagged() {
        let notes = [
            Note {
                file_name: "2026-01-01T00-00-00-fmt.md".into(),
                text: "always run cargo fmt".into(),
            },
            Note {
                file_name: "2026-01-02T00-00-00-npm.md".into(),
                text: "forget npm".into(),
            },
        ];
        let md = render(&Digest::build(
            &[output("t1", Some("/w/shop"), 1, RAW_A)],
            &notes,
        ));
        let notes_at = md.find("# Task Group: ad-hoc notes").unwrap();
        assert!(notes_at < md.find("# Task Group: /w/shop").unwrap());
        assert!(md.contains("- always run cargo fmt [ad-hoc note] (from extensions/ad_hoc/notes/2026-01-01T00-00-00-fmt.md)\n"));
        assert!(md.contains(
            "## Forgotten on request\n- preferences mentioning \"npm\" were removed [ad-hoc note]"
        ));
        assert!(
            !md.contains("use pnpm, not npm ["),
            "the forgotten preference is gone"
        );
    }

    #[test]
    fn task_references_are_capped() {
        assert_eq!(task_refs(&[0]), "[Task 1]");
        assert_eq!(
            task_refs(&[0, 1, 2, 3, 4]),
            "[Task 1, Task 2, Task 3 and 2 more]"
        );
    }
}
