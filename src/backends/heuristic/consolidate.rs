//! The offline phase-2 backend: rebuilds `MEMORY.md` and `memory_summary.md`
//! from the selected raw memories and the user's notes by fixed rules.
//!
//! The output is a pure function of the selection and the notes (no clock, no
//! previous files), so an unchanged input gives byte-identical files, and a
//! session's removal takes away exactly what only it supported. Every emitted
//! text passes through [`redact`].

use super::digest::Digest;
use super::{memory_md, summary_md};
use crate::backends::consolidate::{
    ConsolidateResult, ConsolidatedFiles, ConsolidationInput, Consolidator, Note,
};
use crate::error::Result;
use crate::memory::files::SelectedOutput;
use crate::redact::redact;

/// The rule-based consolidator.
pub struct HeuristicConsolidator;

impl Consolidator for HeuristicConsolidator {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn model(&self) -> String {
        super::MODEL.into()
    }

    fn consolidate(&self, input: &ConsolidationInput<'_>) -> Result<ConsolidateResult> {
        Ok(ConsolidateResult {
            files: consolidate_files(input.selection, input.notes),
            tokens_in: 0,
            tokens_out: 0,
            tokens_cached: 0,
        })
    }
}

/// Both files for a selection (ascending thread id) and the notes (by file name).
pub fn consolidate_files(selection: &[SelectedOutput], notes: &[Note]) -> ConsolidatedFiles {
    let digest = Digest::build(selection, notes);
    ConsolidatedFiles {
        memory_md: redact(&memory_md::render(&digest)).into_owned(),
        memory_summary_md: summary_md::render(&digest),
        skills: None,
        skills_complete: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::heuristic::digest::tests::output;
    use crate::memory::validate::{MAX_SUMMARY_BYTES, task_groups, validate_files};
    use std::path::Path;

    const DAY: i64 = 86_400;
    const T0: i64 = 1_764_000_000;

    /// A raw memory in the heuristic extractor's exact format.
    fn heuristic_raw(
        task: &str,
        cwd: &str,
        prefs: &[&str],
        knowledge: &str,
        failure: &str,
    ) -> String {
        let group = cwd.rsplit('/').next().unwrap_or("unknown");
        let mut out = format!(
            "---\ndescription: The agent worked on {task}.\ntask: {task}\ntask_group: {group}\n\
             task_outcome: success\ncwd: {cwd}\nkeywords: {task}, rust\n---\n\n\
             ### Task 1: {task}\ntask: {task}\ntask_group: {group}\ntask_outcome: success\n\n"
        );
        if !prefs.is_empty() {
            out.push_str("Preference signals:\n");
            for p in prefs {
                out.push_str(&format!("- {p} (evidence: \"{p}\")\n"));
            }
        }
        out.push_str(&format!(
            "Reusable knowledge:\n- `{knowledge}` works in {group} (tests)\n"
        ));
        out.push_str(&format!(
            "Failures and how to do differently:\n- `{failure}` failed (exit 1: error: no such command); `{knowledge}` worked instead\n"
        ));
        out.push_str("References:\n- src/main.rs (edited)\n- branch: main\n");
        out
    }

    fn session(n: usize, cwd: &str, prefs: &[&str]) -> SelectedOutput {
        let raw = heuristic_raw(&format!("task {n}"), cwd, prefs, "cargo test", "cargo tset");
        output(
            &format!("019a{n:04x}-0000-7000-8000-000000000000"),
            Some(cwd),
            T0 + n as i64 * DAY,
            &raw,
        )
    }

    fn note(name: &str, text: &str) -> Note {
        Note {
            file_name: name.into(),
            text: text.into(),
        }
    }

    fn valid(files: &ConsolidatedFiles) {
        if let Err(e) = validate_files(&files.memory_md, &files.memory_summary_md) {
            panic!(
                "invalid output ({e}):\n{}\n----\n{}",
                files.memory_md, files.memory_summary_md
            );
        }
    }

    /// The text of a `## <title>` section (up to the next `#` heading of any level
    /// that is not deeper, i.e. the next `## ` or `# `).
    fn section<'a>(text: &'a str, title: &str) -> &'a str {
        let start = text
            .find(&format!("## {title}\n"))
            .map(|i| i + title.len() + 4)
            .unwrap_or(text.len());
        let rest = &text[start..];
        let end = rest
            .find("\n## ")
            .or_else(|| rest.find("\n# "))
            .map_or(rest.len(), |i| i + 1);
        &rest[..end]
    }

    fn block<'a>(memory: &'a str, group: &str) -> &'a str {
        let start = memory
            .find(&format!("# Task Group: {group}\n"))
            .expect("the block exists");
        let rest = &memory[start..];
        let end = rest[1..]
            .find("\n# Task Group: ")
            .map_or(rest.len(), |i| i + 2);
        &rest[..end]
    }

    #[test]
    fn the_same_input_gives_byte_identical_output() {
        let sel: Vec<_> = (0..12)
            .map(|n| session(n, &format!("/w/p{}", n % 3), &["use pnpm"]))
            .collect();
        let notes = [note("2026-01-01T00-00-00-a.md", "always run cargo fmt")];
        let a = consolidate_files(&sel, &notes);
        let b = consolidate_files(&sel, &notes);
        assert_eq!(a, b);
        valid(&a);
        let mut shuffled = sel.clone();
        shuffled.reverse();
        assert_eq!(
            consolidate_files(&shuffled, &notes),
            a,
            "input order does not matter"
        );
    }

    #[test]
    fn the_backend_answers_with_files_and_no_tokens() {
        let sel = [session(1, "/w/shop", &["use pnpm"])];
        let input = ConsolidationInput {
            root: Path::new("/nonexistent"),
            selection: &sel,
            changes: &[],
            diff_file: "",
            previous_memory: Some("old".into()),
            previous_summary: None,
            notes: &[],
            now: 0,
        };
        let result = HeuristicConsolidator.consolidate(&input).unwrap();
        assert_eq!((result.tokens_in, result.tokens_out), (0, 0));
        assert_eq!(result.files, consolidate_files(&sel, &[]));
        assert_eq!(HeuristicConsolidator.name(), "heuristic");
    }

    #[test]
    fn removing_a_session_removes_only_what_it_supported() {
        let sel = vec![
            session(1, "/w/api", &["answer briefly"]),
            session(2, "/w/shop", &["use pnpm", "keep commits small"]),
            session(3, "/w/shop", &["Use pnpm."]),
            session(4, "/w/web", &["prefer tabs"]),
        ];
        let before = consolidate_files(&sel, &[]);
        let mut fewer = sel.clone();
        fewer.remove(1);
        let after = consolidate_files(&fewer, &[]);
        valid(&after);
        for group in ["/w/api", "/w/web"] {
            assert_eq!(
                block(&before.memory_md, group),
                block(&after.memory_md, group),
                "{group} untouched"
            );
        }
        let shop = block(&after.memory_md, "/w/shop");
        assert!(!shop.contains(&sel[1].stem()), "its summary file is gone");
        assert!(shop.contains(&sel[2].stem()));
        assert!(
            !shop.contains("keep commits small"),
            "only it supported this"
        );
        assert!(!shop.contains("task 2,"), "its task entry is gone");
        let prefs = section(shop, "User preferences");
        assert_eq!(
            prefs, "- Use pnpm. [Task 1] (seen in 1 session)\n",
            "the shared one survives, counted once"
        );
        assert!(
            section(block(&before.memory_md, "/w/shop"), "User preferences")
                .contains("- use pnpm [Task 1, Task 2] (seen in 2 sessions)")
        );
        assert!(!after.memory_summary_md.contains("keep commits small"));
        assert!(
            after
                .memory_summary_md
                .contains("### /w/shop\n- Use pnpm.\n")
        );
        let mut restored = fewer.clone();
        restored.insert(1, sel[1].clone());
        assert_eq!(
            consolidate_files(&restored, &[]),
            before,
            "adding it back restores the files"
        );
    }

    #[test]
    fn adding_a_project_never_reorders_other_blocks() {
        let sel = vec![session(1, "/w/b", &[]), session(2, "/w/d", &[])];
        let before = consolidate_files(&sel, &[]);
        let mut more = sel.clone();
        more.push(session(3, "/w/a", &[]));
        more.push(session(4, "/w/c", &[]));
        let after = consolidate_files(&more, &[]);
        assert_eq!(
            task_groups(&after.memory_md),
            ["/w/a", "/w/b", "/w/c", "/w/d"]
        );
        for group in ["/w/b", "/w/d"] {
            assert_eq!(
                block(&before.memory_md, group),
                block(&after.memory_md, group)
            );
        }
    }

    #[test]
    fn notes_are_tagged_in_both_files_and_forget_notes_remove_preferences() {
        let sel = [session(
            1,
            "/w/shop",
            &["use npm for installs", "keep commits small"],
        )];
        let notes = [
            note(
                "2026-11-29T10-00-00-cargo-fmt.md",
                "always run cargo fmt before committing",
            ),
            note("2026-11-29T11-00-00-npm.md", "Forget the npm preference"),
        ];
        let files = consolidate_files(&sel, &notes);
        valid(&files);
        let line = "always run cargo fmt before committing [ad-hoc note]";
        assert!(section(&files.memory_md, "User preferences").contains(line));
        assert!(
            section(&files.memory_summary_md, "User preferences")
                .starts_with(&format!("- {line}\n"))
        );
        assert!(files.memory_summary_md.contains("### ad-hoc notes"));
        for text in [&files.memory_md, &files.memory_summary_md] {
            assert!(!text.contains("use npm for installs"), "forgotten:\n{text}");
            assert!(text.contains("keep commits small"));
        }
    }

    #[test]
    fn notes_alone_make_a_valid_pair() {
        let files = consolidate_files(
            &[],
            &[note("2026-01-01T00-00-00-x.md", "Prefer short answers")],
        );
        valid(&files);
        assert!(
            files
                .memory_md
                .contains("- Prefer short answers [ad-hoc note]")
        );
        assert!(
            files
                .memory_summary_md
                .contains("- Prefer short answers [ad-hoc note]")
        );
    }

    #[test]
    fn empty_selection_without_notes_is_a_minimal_valid_pair() {
        let files = consolidate_files(&[], &[]);
        valid(&files);
        assert!(files.memory_md.contains("No memories yet"));
        let s = &files.memory_summary_md;
        assert!(s.starts_with("v1\n"));
        for heading in [
            "## User Profile",
            "## User preferences",
            "## General Tips",
            "## What's in Memory",
        ] {
            assert!(s.contains(heading), "{heading}");
        }
    }

    #[test]
    fn one_session_is_valid() {
        let files = consolidate_files(&[session(1, "/home/dev/shop", &["use pnpm"])], &[]);
        valid(&files);
        assert!(
            files
                .memory_summary_md
                .contains("### /home/dev/shop\n#### ")
        );
    }

    #[test]
    fn three_hundred_sessions_stay_within_the_summary_budget() {
        let prefs: Vec<String> = (0..300)
            .map(|n| format!("preference number {n} about the codebase layout"))
            .collect();
        let sel: Vec<_> = (0..300)
            .map(|n| {
                session(
                    n,
                    &format!("/home/dev/project-{:02}", n % 40),
                    &[prefs[n].as_str(), "use pnpm"],
                )
            })
            .collect();
        let notes = [note("2026-01-01T00-00-00-a.md", "always run cargo fmt")];
        let files = consolidate_files(&sel, &notes);
        valid(&files);
        assert!(files.memory_summary_md.len() <= MAX_SUMMARY_BYTES);
        assert!(files.memory_summary_md.contains("### Older Memory Topics"));
        assert!(
            files
                .memory_summary_md
                .contains("always run cargo fmt [ad-hoc note]")
        );
        assert!(
            files
                .memory_summary_md
                .contains("use pnpm (seen in 300 sessions")
        );
        // 40 projects, the notes and the preferences stated in all projects.
        assert_eq!(task_groups(&files.memory_md).len(), 42);
        let global = section(block(&files.memory_md, "all projects"), "User preferences");
        assert!(global.starts_with("- use pnpm (seen in 300 sessions across project-00, "));
        assert!(!block(&files.memory_md, "/home/dev/project-07").contains("use pnpm"));
        assert!(
            files
                .memory_summary_md
                .contains("more entries are only in MEMORY.md: search its project block\n"),
            "what did not fit is counted"
        );
    }

    #[test]
    fn model_style_free_text_is_valid() {
        let sel = [
            output(
                "t1",
                Some("/w/x"),
                T0,
                "The user asked for a refactor. It went fine.",
            ),
            output(
                "t2",
                None,
                T0,
                "## Summary\n**User preferences:**\n* likes tests first\n\n## Other\n- noise\n",
            ),
            output("t3", Some("/w/x"), T0, ""),
        ];
        let files = consolidate_files(&sel, &[]);
        valid(&files);
        assert!(files.memory_md.contains("# Task Group: unknown\n"));
        assert!(files.memory_md.contains("- likes tests first [Task 1]"));
        assert!(!files.memory_md.contains("noise"));
        assert!(files.memory_summary_md.contains("likes tests first"));
    }

    #[test]
    fn heuristic_extractor_preferences_land_in_both_files() {
        let sel = [
            session(1, "/home/dev/shop", &["we use pnpm here, not npm"]),
            session(2, "/home/dev/api", &["We use pnpm here - not npm!"]),
        ];
        let files = consolidate_files(&sel, &[]);
        valid(&files);
        // Stated in two projects: it holds everywhere, and only there.
        let global = section(block(&files.memory_md, "all projects"), "User preferences");
        assert_eq!(
            global,
            "- We use pnpm here - not npm! (seen in 2 sessions across shop, api)\n\n"
        );
        assert!(!block(&files.memory_md, "/home/dev/shop").contains("not npm"));
        let summary_prefs = section(&files.memory_summary_md, "User preferences");
        assert_eq!(
            summary_prefs,
            "### all projects\n- We use pnpm here - not npm! (seen in 2 sessions across shop, api)\n\n"
        );
        let tips = section(&files.memory_summary_md, "General Tips");
        assert!(tips.starts_with("### /home/dev/api\n- `cargo tset` failed (exit 1: error: no such command); `cargo test` worked instead"), "{tips}");
        assert!(!files.memory_md.contains("(evidence:"));
        assert!(
            !files.memory_md.contains("src/main.rs"),
            "references are not copied"
        );
    }

    #[test]
    fn secrets_never_leave() {
        let secret = format!("sk-{}", "Zq9".repeat(9));
        let mut sel = vec![session(1, "/w/shop", &[])];
        sel[0].raw_memory.push_str(&format!(
            "Preference signals:\n- deploy with token={secret}\n"
        ));
        sel[0].cwd = Some(format!("/w/{secret}"));
        let notes = [note(
            "2026-01-01T00-00-00-k.md",
            &format!("my api key is {secret}"),
        )];
        let files = consolidate_files(&sel, &notes);
        valid(&files);
        for text in [&files.memory_md, &files.memory_summary_md] {
            assert!(!text.contains(&secret), "{text}");
            assert!(text.contains(crate::redact::REDACTED));
        }
    }
}
