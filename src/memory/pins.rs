//! Hand edits to `MEMORY.md` and `memory_summary.md` survive consolidation.
//!
//! The baseline's HEAD is always memkit's own last commit, so whatever the
//! working tree has that HEAD does not is the user's. Before a consolidation
//! overwrites the files, the user's lines are collected: in `MEMORY.md`,
//! each line added (or changed) by hand, with the `# Task Group:` block it
//! was written in, and each generated bullet the user deleted; in the
//! summary, each line added. The new files then get them back — added lines
//! under `## Pinned by the user` at the end of their block (or a block of
//! their own when theirs is gone), deleted ones listed under `### Removed by
//! the user` and left out of what the backend generated, and the summary's
//! own additions at the top of its preferences. Since the pinned sections
//! are part of the files, they carry forward from one run to the next; the
//! user removes a pin, or restores a removed line, by deleting it there.

use crate::backends::consolidate::ConsolidatedFiles;
use crate::memory::validate::MAX_SUMMARY_BYTES;
use std::collections::HashMap;

/// The heading of a block's pinned lines.
pub const PINNED_HEADING: &str = "## Pinned by the user";
/// The heading of the lines the user deleted from a block.
pub const REMOVED_HEADING: &str = "### Removed by the user";
/// The block for pinned lines written outside any block that still exists.
pub const PINNED_GROUP: &str = "pinned by the user";
/// The summary's heading for its pinned lines.
const SUMMARY_PINNED: &str = "### pinned by the user";
/// The summary section pinned lines go to.
const SUMMARY_PREFERENCES: &str = "## User preferences";
/// The bullet of an empty summary list.
const NONE_YET: &str = "- none recorded yet";

/// The user's lines, ready to put back into freshly consolidated files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pins {
    /// Per block name (`None`: outside any block), lines written by hand.
    added: Vec<(Option<String>, String)>,
    /// Per block name, generated bullets the user deleted.
    removed: Vec<(Option<String>, String)>,
    /// Lines added to the summary by hand.
    summary: Vec<String>,
}

impl Pins {
    /// The user's lines in the current files, against memkit's last commit
    /// of them (`None`: never committed, so nothing there is the user's yet
    /// except sections memkit pinned before).
    pub fn collect(
        committed_memory: Option<&str>,
        current_memory: Option<&str>,
        committed_summary: Option<&str>,
        current_summary: Option<&str>,
    ) -> Pins {
        let mut pins = Pins::default();
        if let Some(current) = current_memory {
            let committed = committed_memory.unwrap_or(current);
            pins.read_memory(committed, current);
        }
        if let Some(current) = current_summary {
            let committed = committed_summary.unwrap_or(current);
            pins.summary = summary_additions(committed, current);
        }
        pins
    }

    /// Whether there is nothing to keep.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.summary.is_empty()
    }

    /// How many lines the user added or removed.
    pub fn len(&self) -> usize {
        self.added.len() + self.removed.len() + self.summary.len()
    }

    /// Puts the user's lines into freshly consolidated files.
    pub fn apply(&self, files: &mut ConsolidatedFiles) {
        if self.is_empty() {
            return;
        }
        files.memory_md = self.apply_to_memory(&files.memory_md);
        files.memory_summary_md = self.apply_to_summary(&files.memory_summary_md);
    }

    fn read_memory(&mut self, committed: &str, current: &str) {
        let mut unseen = line_counts(committed);
        for line in parse(current) {
            let text = line.text.trim();
            let pinned = line.section != Section::Generated;
            let known = !pinned && take(&mut unseen, text);
            if text.is_empty() || text.starts_with('#') || known {
                continue;
            }
            let (entry, list) = if line.section == Section::Removed {
                ((line.group.clone(), as_bullet(text)), &mut self.removed)
            } else {
                // An edited generated line keeps the user's words, not the
                // task references and counts that no longer hold.
                (
                    (line.group.clone(), as_bullet(without_support(text))),
                    &mut self.added,
                )
            };
            if !list.contains(&entry) {
                list.push(entry);
            }
        }
        let kept = line_counts(current);
        for line in parse(committed) {
            let text = line.text.trim();
            if line.section == Section::Generated
                && text.starts_with("- ")
                && !kept.contains_key(text)
            {
                let entry = (line.group.clone(), text.to_string());
                if !self.removed.contains(&entry) && !self.added.contains(&entry) {
                    self.removed.push(entry);
                }
            }
        }
    }

    fn apply_to_memory(&self, memory: &str) -> String {
        let removed: Vec<(Option<String>, String)> = self
            .removed
            .iter()
            .map(|(g, l)| (g.clone(), key(l)))
            .collect();
        let mut blocks = split_blocks(memory);
        for block in &mut blocks {
            block.lines.retain(|l| {
                !removed
                    .iter()
                    .any(|(g, k)| *g == block.group && !k.is_empty() && key(l) == *k)
            });
        }
        let mut orphans: Vec<&str> = Vec::new();
        for (group, line) in &self.added {
            match blocks
                .iter_mut()
                .find(|b| b.group == *group && group.is_some())
            {
                Some(b) => b.pinned.push(line.clone()),
                None => orphans.push(line),
            }
        }
        for (group, line) in &self.removed {
            if let Some(b) = blocks.iter_mut().find(|b| b.group == *group) {
                b.removed.push(line.clone());
            }
        }
        let mut out = String::new();
        for (n, block) in blocks.iter().enumerate() {
            out.push_str(&block.render());
            if n == 0 && !orphans.is_empty() {
                out.push_str(&orphan_block(&orphans));
            }
        }
        out
    }

    fn apply_to_summary(&self, summary: &str) -> String {
        let removed: Vec<String> = self.removed.iter().map(|(_, l)| key(l)).collect();
        let mut pinned: Vec<String> = self.summary.clone();
        for (_, line) in &self.added {
            if !pinned.contains(line) {
                pinned.push(line.clone());
            }
        }
        let mut lines: Vec<String> = summary
            .lines()
            .filter(|l| {
                let k = key(l);
                k.is_empty() || !removed.contains(&k)
            })
            .map(str::to_string)
            .collect();
        if !pinned.is_empty() {
            let at = lines
                .iter()
                .position(|l| l == SUMMARY_PREFERENCES)
                .map_or(lines.len(), |i| i + 1);
            let end = at + 1 + pinned.len();
            let mut insert = vec![SUMMARY_PINNED.to_string()];
            insert.extend(pinned);
            lines.splice(at..at, insert);
            if lines.get(end).is_some_and(|l| l == NONE_YET) {
                lines.remove(end);
            }
        }
        fit_budget(lines)
    }
}

/// Which part of a block a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// What a backend wrote.
    Generated,
    /// Under `## Pinned by the user`.
    Pinned,
    /// Under `### Removed by the user`.
    Removed,
}

/// A line of `MEMORY.md` with its block and section.
struct Line<'a> {
    group: Option<String>,
    section: Section,
    text: &'a str,
}

/// The lines of a `MEMORY.md`, each with its block and section.
fn parse(text: &str) -> Vec<Line<'_>> {
    let mut group: Option<String> = None;
    let mut section = Section::Generated;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_end();
        if let Some(name) = t.strip_prefix("# Task Group:") {
            group = Some(name.trim().to_string());
            section = Section::Generated;
        } else if t == PINNED_HEADING {
            section = Section::Pinned;
            continue;
        } else if t == REMOVED_HEADING {
            section = Section::Removed;
            continue;
        } else if t.starts_with("## ") || t.starts_with("# ") {
            section = Section::Generated;
        }
        out.push(Line {
            group: group.clone(),
            section,
            text: t,
        });
    }
    out
}

/// A block of a freshly generated `MEMORY.md` and what to add to it.
struct Block {
    group: Option<String>,
    lines: Vec<String>,
    pinned: Vec<String>,
    removed: Vec<String>,
}

impl Block {
    fn render(&self) -> String {
        let mut body = self.lines.join("\n");
        while body.ends_with('\n') {
            body.pop();
        }
        let mut out = body;
        out.push('\n');
        if !self.pinned.is_empty() || !self.removed.is_empty() {
            out.push_str(&format!("\n{PINNED_HEADING}\n"));
            for l in &self.pinned {
                out.push_str(l);
                out.push('\n');
            }
            if !self.removed.is_empty() {
                out.push_str(&format!("{REMOVED_HEADING}\n"));
                for l in &self.removed {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        out.push('\n');
        out
    }
}

/// A generated `MEMORY.md` cut into its blocks (the first is the preamble).
fn split_blocks(memory: &str) -> Vec<Block> {
    let mut blocks = vec![Block {
        group: None,
        lines: Vec::new(),
        pinned: Vec::new(),
        removed: Vec::new(),
    }];
    for line in memory.lines() {
        if let Some(name) = line.strip_prefix("# Task Group:") {
            blocks.push(Block {
                group: Some(name.trim().to_string()),
                lines: Vec::new(),
                pinned: Vec::new(),
                removed: Vec::new(),
            });
        }
        blocks
            .last_mut()
            .expect("there is a block")
            .lines
            .push(line.to_string());
    }
    blocks
}

/// The block for pinned lines whose own block is gone.
fn orphan_block(lines: &[&str]) -> String {
    let mut out = format!(
        "# Task Group: {PINNED_GROUP}\nscope: lines the user wrote into MEMORY.md by hand\n\
         applies_to: cwd=any; reuse_rule=the user's own words; they outrank generated memory\n\n\
         {PINNED_HEADING}\n"
    );
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Lines of the current summary that memkit's last commit did not have.
fn summary_additions(committed: &str, current: &str) -> Vec<String> {
    let mut unseen = line_counts(committed);
    let mut in_pinned = false;
    let mut out: Vec<String> = Vec::new();
    for line in current.lines() {
        let t = line.trim_end();
        if t.starts_with("## ") || (t.starts_with("### ") && t != SUMMARY_PINNED) {
            in_pinned = false;
        }
        if t == SUMMARY_PINNED {
            in_pinned = true;
            continue;
        }
        let known = !in_pinned && take(&mut unseen, t.trim());
        if t.trim().is_empty() || t.starts_with('#') || known || t == "v1" {
            continue;
        }
        let bullet = as_bullet(t.trim());
        if !out.contains(&bullet) {
            out.push(bullet);
        }
    }
    out
}

/// How often each trimmed line occurs.
fn line_counts(text: &str) -> HashMap<&str, usize> {
    let mut counts = HashMap::new();
    for l in text.lines() {
        *counts.entry(l.trim()).or_insert(0) += 1;
    }
    counts
}

/// Takes one occurrence of `line` from `counts`; whether there was one.
fn take(counts: &mut HashMap<&str, usize>, line: &str) -> bool {
    match counts.get_mut(line) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// A line as a bullet (`- …`).
fn as_bullet(text: &str) -> String {
    if text.starts_with("- ") || text.starts_with("* ") {
        format!("- {}", text[2..].trim())
    } else {
        format!("- {text}")
    }
}

/// A line without the `[Task N]` references and the `(seen in …)` tail
/// memkit appends to generated bullets.
fn without_support(line: &str) -> &str {
    let cut = [" [Task ", " (seen in "]
        .iter()
        .filter_map(|m| line.find(m))
        .min()
        .unwrap_or(line.len());
    line[..cut].trim_end()
}

/// What identifies a bullet whatever its support notes: lower-case words
/// without the `[Task N]` references and the `(seen in …)` tail.
fn key(line: &str) -> String {
    let t = line.trim();
    let Some(t) = t.strip_prefix("- ") else {
        return String::new();
    };
    let t = t.split(" [Task ").next().unwrap_or(t);
    let t = t.split(" (seen in ").next().unwrap_or(t);
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The summary's lines joined, generated bullets of its last section
/// dropped from the end while it is over the byte budget (headings stay, so
/// every block is still named; the user's lines are never dropped).
fn fit_budget(mut lines: Vec<String>) -> String {
    let join = |lines: &[String]| {
        let mut s = lines.join("\n");
        s.push('\n');
        s
    };
    let pinned_end = lines
        .iter()
        .position(|l| l == SUMMARY_PINNED)
        .map(|start| {
            start
                + 1
                + lines[start + 1..]
                    .iter()
                    .take_while(|l| l.starts_with("- "))
                    .count()
        })
        .unwrap_or(0);
    while join(&lines).len() > MAX_SUMMARY_BYTES {
        let Some(i) = lines
            .iter()
            .rposition(|l| l.starts_with("- ") || l.starts_with("  - "))
            .filter(|&i| i >= pinned_end)
        else {
            break;
        };
        lines.remove(i);
    }
    join(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMITTED: &str = "# Memory handbook\n\n# Task Group: /w/shop\nscope: 1 session in /w/shop\n\n\
        ## User preferences\n- use npm [Task 1] (seen in 1 session)\n- keep commits small [Task 1] (seen in 1 session)\n\n\
        # Task Group: /w/api\nscope: 1 session in /w/api\n\n## Reusable knowledge\n- `cargo test` works in api (tests) [Task 1] (seen in 1 session)\n";

    fn files(memory: &str) -> ConsolidatedFiles {
        ConsolidatedFiles {
            memory_md: memory.to_string(),
            memory_summary_md: "v1\n## User Profile\nx\n\n## User preferences\n- use npm (seen in 1 session in shop)\n\n## General Tips\n- none recorded yet\n\n## What's in Memory\n### /w/shop\n### /w/api\n".into(),
            skills: None,
            skills_complete: false,
        }
    }

    #[test]
    fn added_and_changed_lines_are_pinned_in_their_block() {
        let edited = COMMITTED
            .replace(
                "- use npm [Task 1] (seen in 1 session)",
                "- use pnpm, never npm",
            )
            .replace(
                "scope: 1 session in /w/api\n",
                "scope: 1 session in /w/api\nthe api needs postgres 16\n",
            );
        let pins = Pins::collect(Some(COMMITTED), Some(&edited), None, None);
        let mut out = files(COMMITTED);
        pins.apply(&mut out);
        let shop = out.memory_md.split("# Task Group: /w/api").next().unwrap();
        assert!(shop.contains("## Pinned by the user\n- use pnpm, never npm\n### Removed by the user\n- use npm [Task 1] (seen in 1 session)\n"), "{shop}");
        assert!(!shop.contains("\n- use npm [Task 1]\n"));
        assert_eq!(
            shop.matches("- use npm [Task 1]").count(),
            1,
            "only as removed"
        );
        assert!(
            out.memory_md
                .contains("## Pinned by the user\n- the api needs postgres 16\n")
        );
        assert!(out.memory_summary_md.contains("## User preferences\n### pinned by the user\n- use pnpm, never npm\n- the api needs postgres 16\n"), "{}", out.memory_summary_md);
        assert!(
            !out.memory_summary_md.contains("- use npm (seen"),
            "the removed line leaves the summary too"
        );

        // The next run sees its own output committed: the pins carry forward.
        let committed = out.memory_md.clone();
        let again = Pins::collect(Some(&committed), Some(&committed), None, None);
        assert_eq!(again, pins);
        let mut next = files(COMMITTED);
        again.apply(&mut next);
        assert_eq!(next.memory_md, out.memory_md);
    }

    #[test]
    fn an_edited_generated_line_loses_its_counts() {
        let edited = COMMITTED.replace(
            "- keep commits small [Task 1] (seen in 1 session)",
            "- keep commits small and signed [Task 1] (seen in 1 session)",
        );
        let pins = Pins::collect(Some(COMMITTED), Some(&edited), None, None);
        let mut out = files(COMMITTED);
        pins.apply(&mut out);
        assert!(
            out.memory_md
                .contains("## Pinned by the user\n- keep commits small and signed\n"),
            "{}",
            out.memory_md
        );
    }

    #[test]
    fn unpinning_and_orphans() {
        let edited = format!("{COMMITTED}\n# Task Group: /w/gone\n- remember the gone project\n");
        let pins = Pins::collect(Some(COMMITTED), Some(&edited), None, None);
        let mut out = files(COMMITTED);
        pins.apply(&mut out);
        assert!(
            out.memory_md.contains("# Task Group: pinned by the user\n"),
            "{}",
            out.memory_md
        );
        assert!(out.memory_md.contains("- remember the gone project\n"));
        assert!(out.memory_summary_md.contains("### pinned by the user"));
        crate::memory::validate::validate_files(&out.memory_md, &out.memory_summary_md).unwrap();
        // Deleting the pin by hand removes it for good.
        let committed = out.memory_md.clone();
        let unpinned = committed.replace("- remember the gone project\n", "");
        let none = Pins::collect(Some(&committed), Some(&unpinned), None, None);
        assert!(none.is_empty(), "{none:?}");
    }

    #[test]
    fn summary_additions_are_kept_and_nothing_is_user_without_a_commit() {
        let committed = files(COMMITTED).memory_summary_md;
        let edited = committed.replace(
            "## User preferences\n",
            "## User preferences\n- answer in German\n",
        );
        let pins = Pins::collect(None, None, Some(&committed), Some(&edited));
        let mut out = files(COMMITTED);
        pins.apply(&mut out);
        assert!(
            out.memory_summary_md
                .contains("### pinned by the user\n- answer in German\n")
        );
        assert!(Pins::collect(None, Some(COMMITTED), None, Some(&committed)).is_empty());
    }

    #[test]
    fn the_summary_stays_within_budget_keeping_the_users_lines() {
        let mut f = files(COMMITTED);
        f.memory_summary_md
            .push_str(&"- topic line that fills the index\n".repeat(400));
        let committed = f.memory_summary_md.clone();
        let edited = committed.replace(
            "## User preferences\n",
            "## User preferences\n- my own rule\n",
        );
        let pins = Pins::collect(None, None, Some(&committed), Some(&edited));
        pins.apply(&mut f);
        assert!(f.memory_summary_md.len() <= MAX_SUMMARY_BYTES);
        assert!(f.memory_summary_md.contains("- my own rule\n"));
        assert!(f.memory_summary_md.contains("### /w/api\n"));
    }
}
