//! `memory_summary.md`: `v1`, a short profile, the preferences (notes first),
//! general tips and the routing index of `MEMORY.md`, always within
//! [`MAX_SUMMARY_BYTES`]. When the full text is too long, the least important
//! lines go first, oldest first: old days move to `### Older Memory Topics`
//! without their descriptions, then old topics are dropped (every project stays
//! named), then tips and preferences from the end. Lines are never cut.

use super::digest::{Digest, Session, short_name};
use super::memory_md::{GLOBAL_GROUP, NOTE_TAG, NOTES_GROUP, name_list, support};
use super::repeats::{repeated, with_short_error};
use super::tally::{Tallied, count, norm_key, sessions_phrase};
use crate::memory::validate::MAX_SUMMARY_BYTES;
use crate::redact::redact;
use crate::util::text::floor_char_boundary;
use crate::util::time::date;
use std::cmp::Reverse;

/// Session preferences listed at most.
const MAX_PREFERENCES: usize = 60;
/// Tips listed at most.
const MAX_TIPS: usize = 60;
/// Working commands the summary shows per project and role (MEMORY.md has all).
const MAX_COMMANDS_PER_ROLE: usize = 2;
/// Keywords shown on a topic line at most.
const MAX_KEYWORDS: usize = 8;
/// Days kept in full before older topics are dropped.
const RECENT_DAYS: usize = 3;
/// What an empty section says.
const NONE_YET: &str = "- none recorded yet\n";

/// Renders `memory_summary.md`, redacted and at most [`MAX_SUMMARY_BYTES`].
pub fn render(d: &Digest) -> String {
    let parts = Parts::new(d);
    let mut steps = parts.trim_plan().into_iter();
    let mut view = View::full(&parts);
    loop {
        let text = parts.render(&view);
        if text.len() <= MAX_SUMMARY_BYTES {
            let clean = redact(&text);
            if clean.len() <= MAX_SUMMARY_BYTES {
                return clean.into_owned();
            }
        }
        match steps.next() {
            Some(step) => view.apply(step),
            None => return cut_at_line(&redact(&text)),
        }
    }
}

/// The longest prefix within the budget that ends at a line end.
fn cut_at_line(text: &str) -> String {
    if text.len() <= MAX_SUMMARY_BYTES {
        return text.to_string();
    }
    let head = &text[..floor_char_boundary(text, MAX_SUMMARY_BYTES)];
    head[..head.rfind('\n').map_or(0, |i| i + 1)].to_string()
}

/// One `What's in Memory` entry: a session.
#[derive(Debug, Clone)]
struct Topic {
    /// Index into [`Parts::projects`].
    project: usize,
    /// Index into [`Parts::dates`].
    date: usize,
    /// `- <task>: <keywords>`.
    line: String,
    /// `  - desc: …`, when the session has a description.
    desc: Option<String>,
}

/// Everything the summary may show, ranked.
struct Parts {
    profile: String,
    notes: Vec<String>,
    preferences: Vec<Ranked>,
    tips: Vec<Ranked>,
    /// Entries of the current memory (preferences, tips) in all.
    entries: usize,
    has_notes_group: bool,
    /// Whether `MEMORY.md` has the block of preferences for every project.
    has_global_group: bool,
    projects: Vec<String>,
    /// Distinct session dates, ascending.
    dates: Vec<String>,
    /// Topics, newest first.
    topics: Vec<Topic>,
    /// Topic indices, least important first: least cited, then oldest.
    drop_order: Vec<usize>,
}

/// One trimming step.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Move a day (index into [`Parts::dates`]) and all before it to older topics.
    Demote(usize),
    /// Hide a topic.
    Drop(usize),
    /// Show one tip fewer.
    DropTip,
    /// Show one session preference fewer.
    DropPreference,
    /// Show one note fewer.
    DropNote,
}

/// How much of [`Parts`] is shown.
struct View {
    /// Days before this index are older topics.
    older_dates: usize,
    hidden: Vec<bool>,
    tips: usize,
    preferences: usize,
    notes: usize,
}

impl View {
    /// Everything shown.
    fn full(p: &Parts) -> View {
        View {
            older_dates: 0,
            hidden: vec![false; p.topics.len()],
            tips: p.tips.len(),
            preferences: p.preferences.len(),
            notes: p.notes.len(),
        }
    }

    /// Applies one trimming step.
    fn apply(&mut self, step: Step) {
        match step {
            Step::Demote(date) => self.older_dates = self.older_dates.max(date + 1),
            Step::Drop(topic) => self.hidden[topic] = true,
            Step::DropTip => self.tips = self.tips.saturating_sub(1),
            Step::DropPreference => self.preferences = self.preferences.saturating_sub(1),
            Step::DropNote => self.notes = self.notes.saturating_sub(1),
        }
    }
}

impl Parts {
    /// Gathers and ranks what the summary may show.
    fn new(d: &Digest) -> Parts {
        let projects: Vec<String> = d.projects.iter().map(|p| p.name.clone()).collect();
        let mut dates: Vec<String> = d.sessions.iter().map(|s| date(s.updated_at)).collect();
        dates.sort();
        dates.dedup();
        let (topics, drop_order) = topics(d, &projects, &dates);
        let (preferences, tips, repeats) = without_repeats(preferences(d), tips(d));
        Parts {
            profile: profile(d),
            notes: d
                .notes
                .preferences
                .iter()
                .map(|n| format!("- {} {NOTE_TAG}\n", n.text))
                .collect(),
            preferences,
            tips,
            entries: (d.current.global.len()
                + d.current.projects.iter().map(|p| p.len()).sum::<usize>())
            .saturating_sub(repeats),
            has_notes_group: !d.notes.is_empty(),
            has_global_group: !d.current.global.is_empty(),
            projects,
            dates,
            topics,
            drop_order,
        }
    }

    /// Trimming steps in order: days out of the recent list oldest first
    /// until [`RECENT_DAYS`] remain, old topics away, then each remaining day
    /// likewise (out of the list, its topics away), then tips, preferences and notes.
    fn trim_plan(&self) -> Vec<Step> {
        let kept_from = self.dates.len().saturating_sub(RECENT_DAYS);
        let mut steps: Vec<Step> = (0..kept_from).map(Step::Demote).collect();
        steps.extend(self.drops(|day| day < kept_from));
        for day in kept_from..self.dates.len() {
            steps.push(Step::Demote(day));
            steps.extend(self.drops(|d| d == day));
        }
        steps.extend(std::iter::repeat_n(Step::DropTip, self.tips.len()));
        steps.extend(std::iter::repeat_n(
            Step::DropPreference,
            self.preferences.len(),
        ));
        steps.extend(std::iter::repeat_n(Step::DropNote, self.notes.len()));
        steps
    }

    /// Drop steps for the topics of the days `which` selects, least important first.
    fn drops(&self, which: impl Fn(usize) -> bool) -> Vec<Step> {
        self.drop_order
            .iter()
            .filter(|&&t| which(self.topics[t].date))
            .map(|&t| Step::Drop(t))
            .collect()
    }

    /// The summary as `v` shows it (not yet redacted).
    fn render(&self, v: &View) -> String {
        let mut out = format!(
            "v1\n## User Profile\n{}\n\n## User preferences\n",
            self.profile
        );
        let mut prefs = self.notes[..v.notes].concat();
        prefs.push_str(&self.grouped(&self.preferences[..v.preferences]));
        push_list(&mut out, &prefs);
        out.push_str("\n## General Tips\n");
        let mut tips = self.grouped(&self.tips[..v.tips]);
        let only_in_memory = self.entries.saturating_sub(v.preferences + v.tips);
        if only_in_memory > 0 {
            tips.push_str(&format!(
                "- {} only in MEMORY.md: search its project block\n",
                count(only_in_memory, "more entry is", "more entries are")
            ));
        }
        push_list(&mut out, &tips);
        out.push_str("\n## What's in Memory\n");
        out.push_str(&self.index(v));
        out
    }

    /// The routing index under `## What's in Memory`.
    fn index(&self, v: &View) -> String {
        let mut out = String::new();
        if self.has_notes_group {
            out.push_str(&format!(
                "### {NOTES_GROUP}\n- what the user wrote down: the {NOTES_GROUP} block of MEMORY.md\n"
            ));
        }
        if self.has_global_group {
            out.push_str(&format!(
                "### {GLOBAL_GROUP}\n- preferences for every project: the {GLOBAL_GROUP} block of MEMORY.md\n"
            ));
        }
        let shown = |t: &&Topic, older: bool| (t.date < v.older_dates) == older;
        let visible: Vec<(usize, &Topic)> = self
            .topics
            .iter()
            .enumerate()
            .filter(|(i, _)| !v.hidden[*i])
            .collect();
        for (p, name) in self.projects.iter().enumerate() {
            let recent: Vec<&Topic> = visible
                .iter()
                .map(|(_, t)| *t)
                .filter(|t| t.project == p && shown(t, false))
                .collect();
            if !recent.is_empty() {
                out.push_str(&format!("### {name}\n"));
                out.push_str(&self.recent_days(&recent));
            }
        }
        out.push_str(&self.older(v, &visible));
        if out.is_empty() {
            out.push_str("- nothing yet\n");
        }
        out
    }

    /// `#### <day>` groups of full topic entries (topics come newest first).
    fn recent_days(&self, topics: &[&Topic]) -> String {
        let mut out = String::new();
        let mut day = None;
        for t in topics {
            if day != Some(t.date) {
                out.push_str(&format!("#### {}\n", self.dates[t.date]));
                day = Some(t.date);
            }
            out.push_str(&t.line);
            out.push_str(t.desc.as_deref().unwrap_or(""));
        }
        out
    }

    /// `### Older Memory Topics`: compact entries by project, and the projects
    /// no entry mentions any more.
    fn older(&self, v: &View, visible: &[(usize, &Topic)]) -> String {
        let unlisted: Vec<&str> = (0..self.projects.len())
            .filter(|&p| !visible.iter().any(|(_, t)| t.project == p))
            .map(|p| self.projects[p].as_str())
            .collect();
        let mut body = String::new();
        if !unlisted.is_empty() {
            body.push_str(&format!(
                "- more projects in MEMORY.md: {}\n",
                unlisted.join(", ")
            ));
        }
        for (p, name) in self.projects.iter().enumerate() {
            let lines: String = visible
                .iter()
                .filter(|(_, t)| t.project == p && t.date < v.older_dates)
                .map(|(_, t)| t.line.as_str())
                .collect();
            if !lines.is_empty() {
                body.push_str(&format!("#### {name}\n{lines}"));
            }
        }
        if body.is_empty() {
            body
        } else {
            format!("### Older Memory Topics\n{body}")
        }
    }
}

/// Bullets, or a line saying there are none.
fn push_list(out: &mut String, lines: &str) {
    if lines.is_empty() {
        out.push_str(NONE_YET);
    }
    out.push_str(lines);
}

/// Topics newest first, and the order in which to drop them.
fn topics(d: &Digest, projects: &[String], dates: &[String]) -> (Vec<Topic>, Vec<usize>) {
    let mut order: Vec<&Session> = d.sessions.iter().collect();
    order.sort_by_key(|s| (Reverse(s.updated_at), Reverse(s.thread_id.as_str())));
    let topics: Vec<Topic> = order
        .iter()
        .map(|s| Topic {
            project: projects
                .iter()
                .position(|p| *p == s.cwd)
                .unwrap_or_default(),
            date: dates.binary_search(&date(s.updated_at)).unwrap_or_default(),
            line: topic_line(s),
            desc: description(s),
        })
        .collect();
    let mut drop_order: Vec<usize> = (0..topics.len()).collect();
    drop_order.sort_by_key(|&i| {
        (
            order[i].usage,
            order[i].updated_at,
            order[i].thread_id.as_str(),
        )
    });
    (topics, drop_order)
}

/// `- <task>: <keywords>`.
fn topic_line(s: &Session) -> String {
    let keywords: Vec<&str> = s
        .memory
        .keywords
        .iter()
        .take(MAX_KEYWORDS)
        .map(String::as_str)
        .collect();
    if keywords.is_empty() {
        format!("- {}\n", s.task)
    } else {
        format!("- {}: {}\n", s.task, keywords.join(", "))
    }
}

/// `  - desc: …` unless the description only repeats the task name.
fn description(s: &Session) -> Option<String> {
    let d = s.memory.description.as_deref()?;
    (norm_key(d) != norm_key(&s.task)).then(|| format!("  - desc: {d}\n"))
}

/// A summary entry: its line and the project it belongs to (none: every project).
#[derive(Debug, Clone)]
struct Ranked {
    /// Index into the digest's projects, or `None` for a global entry.
    project: Option<usize>,
    /// The rendered bullet, newline included.
    line: String,
}

impl Parts {
    /// Entries (best first) grouped for reading: global ones first, then
    /// each project's under a `### <project>` heading, in project order.
    fn grouped(&self, entries: &[Ranked]) -> String {
        let global: String = entries
            .iter()
            .filter(|e| e.project.is_none())
            .map(|e| e.line.as_str())
            .collect();
        let mut out = if global.is_empty() {
            global
        } else {
            format!("### {GLOBAL_GROUP}\n{global}")
        };
        for (p, name) in self.projects.iter().enumerate() {
            let lines: String = entries
                .iter()
                .filter(|e| e.project == Some(p))
                .map(|e| e.line.as_str())
                .collect();
            if !lines.is_empty() {
                out.push_str(&format!("### {name}\n{lines}"));
            }
        }
        out
    }
}

/// The preferences and tips without the lines that repeat another line of
/// their project ([`repeated`]), failures with short errors, and how many
/// lines were left out.
fn without_repeats(
    preferences: Vec<Ranked>,
    tips: Vec<Ranked>,
) -> (Vec<Ranked>, Vec<Ranked>, usize) {
    let lines: Vec<(Option<usize>, &str)> = preferences
        .iter()
        .chain(&tips)
        .map(|r| (r.project, r.line.as_str()))
        .collect();
    let repeats = repeated(&lines, preferences.len());
    let mut verdicts = repeats.iter();
    let mut keep = |list: Vec<Ranked>| -> Vec<Ranked> {
        list.into_iter()
            .filter(|_| !verdicts.next().copied().unwrap_or(false))
            .collect()
    };
    let preferences = keep(preferences);
    let tips = keep(tips)
        .into_iter()
        .map(|r| Ranked {
            line: with_short_error(&r.line).into_owned(),
            ..r
        })
        .collect();
    (preferences, tips, repeats.iter().filter(|r| **r).count())
}

/// Session preferences, global and per project, ranked by support, use
/// (citations) and recency; notes are listed apart.
fn preferences(d: &Digest) -> Vec<Ranked> {
    let noted: Vec<String> = d
        .notes
        .preferences
        .iter()
        .map(|n| norm_key(&n.text))
        .collect();
    let mut entries: Vec<(Option<usize>, &Tallied)> =
        d.current.global.iter().map(|e| (None, e)).collect();
    for (p, memory) in d.current.projects.iter().enumerate() {
        entries.extend(memory.preferences.iter().map(|e| (Some(p), e)));
    }
    entries.retain(|(_, e)| !noted.contains(&norm_key(&e.text)));
    entries.sort_by_key(|(p, e)| (rank_key(d, e), p.is_some()));
    entries
        .into_iter()
        .take(MAX_PREFERENCES)
        .map(|(project, e)| Ranked {
            project,
            line: match project {
                None => format!(
                    "- {} (seen in {})\n",
                    shortened(&e.text),
                    support(d, &e.members)
                ),
                Some(_) => format!("- {}{}\n", shortened(&e.text), recurrence(e.members.len())),
            },
        })
        .collect()
}

/// " (seen in 3 sessions)" for what recurs; nothing for one session (the
/// entry sits under its project's heading already).
fn recurrence(sessions: usize) -> String {
    if sessions > 1 {
        format!(" (seen in {})", sessions_phrase(sessions))
    } else {
        String::new()
    }
}

/// Procedures (failure → fix), environment facts and working commands per
/// project, ranked like preferences; on a tie in support procedures and
/// facts read from what ran come first, then facts said in a sentence,
/// then commands, and a project shows at most
/// [`MAX_COMMANDS_PER_ROLE`] working commands for one role.
fn tips(d: &Digest) -> Vec<Ranked> {
    // (project, 0 for procedures and facts read from what ran, 1 for facts
    // said in a sentence, 2 for commands; the entry; whether it is a fact,
    // shortened in the summary)
    let mut entries: Vec<(usize, usize, &Tallied, bool)> = Vec::new();
    for (p, memory) in d.current.projects.iter().enumerate() {
        entries.extend(memory.failures.iter().map(|e| (p, 0, e, false)));
        entries.extend(
            memory
                .environment
                .iter()
                .map(|e| (p, if is_prose(&e.text) { 1 } else { 0 }, e, true)),
        );
        entries.extend(memory.knowledge.iter().map(|e| (p, 2, e, false)));
    }
    entries.sort_by_key(|(_, kind, e, _)| {
        let (support, cited, newest) = rank_key(d, e);
        (support, *kind, cited, newest)
    });
    let mut per_role: Vec<(usize, String, usize)> = Vec::new();
    entries.retain(|(p, kind, e, _)| {
        if *kind < 2 {
            return true;
        }
        let role = e.text.rsplit_once('(').map_or("", |(_, r)| r).to_string();
        match per_role.iter_mut().find(|(q, r, _)| q == p && *r == role) {
            Some((_, _, n)) if *n >= MAX_COMMANDS_PER_ROLE => false,
            Some((_, _, n)) => {
                *n += 1;
                true
            }
            None => {
                per_role.push((*p, role, 1));
                true
            }
        }
    });
    entries
        .into_iter()
        .take(MAX_TIPS)
        .map(|(p, _, e, fact)| {
            let text = under_heading(&e.text, &d.projects[p].name);
            Ranked {
                project: Some(p),
                line: format!(
                    "- {}{}\n",
                    if fact { shortened(&text) } else { text },
                    recurrence(e.members.len())
                ),
            }
        })
        .collect()
}

/// Whether a fact is a sentence someone said ("Deleted the KV files and
/// reseeded; the dev server is up on …") rather than one read from what ran
/// ("`pnpm dev` serves on localhost:4100", "environment variables use the
/// `SHOP_` prefix"): on a tie in support the second kind is shown first.
fn is_prose(fact: &str) -> bool {
    const READ: &[&str] = &[
        "environment variables use ",
        "configuration is read from ",
        "the environment file is read from ",
        "the database is read from ",
        "the project requires ",
        "settings are read from ",
    ];
    !fact.starts_with('`') && !READ.iter().any(|r| fact.starts_with(r))
}

/// How long a rule or a fact may be in the summary; `MEMORY.md` keeps it
/// whole. (A procedure is shortened by its error instead: its fix is last.)
const MAX_SUMMARY_LINE: usize = 170;

/// `text` cut at a word before [`MAX_SUMMARY_LINE`] bytes, with `…`.
fn shortened(text: &str) -> String {
    if text.len() <= MAX_SUMMARY_LINE {
        return text.to_string();
    }
    let head = &text[..floor_char_boundary(text, MAX_SUMMARY_LINE)];
    let cut = head.rfind(' ').unwrap_or(head.len());
    format!("{}…", head[..cut].trim_end_matches([',', ';', ':', ' ']))
}

/// A tip as shown under its project's heading: "`pnpm test` works in shop
/// (tests)" → "`pnpm test` works (tests)".
fn under_heading(text: &str, project: &str) -> String {
    text.replacen(&format!(" works in {} ", short_name(project)), " works ", 1)
        .replacen(&format!(" works in {}", short_name(project)), " works", 1)
}

/// Sort key, best first: sessions that support it, times cited, newest.
fn rank_key(d: &Digest, e: &Tallied) -> (Reverse<usize>, Reverse<i64>, Reverse<i64>) {
    let cited: i64 = e.members.iter().map(|&i| d.sessions[i].usage).sum();
    (
        Reverse(e.members.len()),
        Reverse(cited),
        Reverse(newest(d, &e.members)),
    )
}

/// The newest update among sessions.
fn newest(d: &Digest, members: &[usize]) -> i64 {
    members
        .iter()
        .map(|&i| d.sessions[i].updated_at)
        .max()
        .unwrap_or_default()
}

/// Two or three conservative sentences drawn from the data.
fn profile(d: &Digest) -> String {
    let mut sentences = Vec::new();
    if d.sessions.is_empty() {
        sentences.push("No session has been consolidated yet.".to_string());
    } else {
        sentences.push(projects_sentence(d));
        if let Some(tools) = tools_sentence(d) {
            sentences.push(tools);
        }
    }
    let notes = d.notes.preferences.len() + d.notes.forgets.len();
    if notes > 0 {
        let what = count(notes, "ad-hoc note", "ad-hoc notes");
        sentences.push(format!(
            "The user wrote {what}; notes outrank what sessions suggest."
        ));
    }
    sentences.join(" ")
}

/// Which projects, how many sessions, and the newest day.
fn projects_sentence(d: &Digest) -> String {
    let mut counts: Vec<(&str, usize)> = d
        .projects
        .iter()
        .map(|p| (short_name(&p.name), p.sessions.len()))
        .collect();
    counts.sort_by_key(|&(name, n)| (Reverse(n), name));
    let names: Vec<String> = counts
        .iter()
        .map(|(name, n)| format!("{name} ({n})"))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let projects = count(d.projects.len(), "project", "projects");
    let newest = d
        .sessions
        .iter()
        .map(|s| s.updated_at)
        .max()
        .unwrap_or_default();
    format!(
        "Memory drawn from {} in {projects}: {}; the newest is from {}.",
        sessions_phrase(d.sessions.len()),
        name_list(&names),
        date(newest)
    )
}

/// The programs named in commands that worked or failed in two or more
/// sessions, by sessions.
fn tools_sentence(d: &Digest) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for s in &d.sessions {
        let mut mine: Vec<String> = s
            .memory
            .knowledge
            .iter()
            .chain(&s.memory.failures)
            .filter_map(|b| program(b))
            .collect();
        mine.sort();
        mine.dedup();
        for tool in mine {
            match counts.iter_mut().find(|(t, _)| *t == tool) {
                Some((_, n)) => *n += 1,
                None => counts.push((tool, 1)),
            }
        }
    }
    // A program seen in one session does not recur.
    counts.retain(|(_, n)| *n >= 2);
    if counts.is_empty() {
        return None;
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let names: Vec<String> = counts
        .iter()
        .map(|(t, n)| format!("{t} ({})", sessions_phrase(*n)))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Some(format!(
        "Commands that recur in what worked or failed: {}.",
        name_list(&names)
    ))
}

/// The program of the first back-quoted command in a bullet.
fn program(bullet: &str) -> Option<String> {
    let quoted = bullet.split('`').nth(1)?;
    let first = quoted.split_whitespace().next()?;
    let name = first.rsplit('/').next().unwrap_or(first);
    // An upper-case name alone (`E2E_ENTIRE_BIN`) is a variable, not a program.
    let variable = name.chars().all(|c| !c.is_ascii_lowercase());
    let plausible = !name.is_empty()
        && !variable
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    plausible.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::consolidate::Note;
    use crate::backends::heuristic::digest::tests::output;

    const DAY: i64 = 86_400;

    fn raw(task: &str, pref: &str) -> String {
        format!(
            "---\ndescription: Worked on {task}.\ntask: {task}\nkeywords: {task}, tests\n---\n\
             Preference signals:\n- {pref}\nReusable knowledge:\n- `cargo test` works in proj (tests)\n"
        )
    }

    #[test]
    fn renders_every_section_with_notes_first() {
        let sel = [
            output(
                "t1",
                Some("/w/shop"),
                1_700_000_000,
                &raw("fix login", "use pnpm"),
            ),
            output(
                "t2",
                Some("/w/api"),
                1_700_000_000 + DAY,
                &raw("add cart", "Use pnpm."),
            ),
            output(
                "t3",
                Some("/w/api"),
                1_700_000_000 + DAY,
                &raw("ship it", "answer briefly"),
            ),
        ];
        let notes = [Note {
            file_name: "n.md".into(),
            text: "always run cargo fmt".into(),
        }];
        let s = render(&Digest::build(&sel, &notes));
        assert!(s.starts_with("v1\n## User Profile\nMemory drawn from 3 sessions in 2 projects: api (2), shop (1); the newest is from 2023-11-15."), "{s}");
        assert!(s.contains("Commands that recur in what worked or failed: cargo (3 sessions)."));
        assert!(
            s.contains(
                "## User preferences\n- always run cargo fmt [ad-hoc note]\n\
             ### all projects\n- Use pnpm. (seen in 2 sessions across shop, api)\n\
             ### /w/api\n- answer briefly\n\n## General Tips\n\
             ### /w/api\n- `cargo test` works in proj (tests) (seen in 2 sessions)\n\
             ### /w/shop\n- `cargo test` works in proj (tests)\n"
            ),
            "{s}"
        );
        assert!(s.contains(
            "## What's in Memory\n### ad-hoc notes\n- what the user wrote down: the ad-hoc notes block of MEMORY.md\n\
             ### all projects\n- preferences for every project: the all projects block of MEMORY.md\n\
             ### /w/api\n#### 2023-11-15\n- ship it: ship it, tests\n  - desc: Worked on ship it.\n\
             - add cart: add cart, tests\n  - desc: Worked on add cart.\n\
             ### /w/shop\n#### 2023-11-14\n- fix login: fix login, tests\n"
        ), "{s}");
        assert!(!s.contains("Older Memory Topics"));
    }

    #[test]
    fn a_variable_is_not_a_program() {
        assert_eq!(program("`cargo test` works").as_deref(), Some("cargo"));
        assert_eq!(
            program("`/usr/bin/make -j4` works").as_deref(),
            Some("make")
        );
        assert_eq!(program("The harness uses `E2E_ENTIRE_BIN` if set"), None);
        assert_eq!(program("`RUST_LOG=debug cargo run` works"), None);
    }

    #[test]
    fn empty_summary_has_the_four_headings() {
        let s = render(&Digest::build(&[], &[]));
        assert_eq!(
            s,
            "v1\n## User Profile\nNo session has been consolidated yet.\n\n## User preferences\n- none recorded yet\n\n\
             ## General Tips\n- none recorded yet\n\n## What's in Memory\n- nothing yet\n"
        );
    }

    #[test]
    fn trimming_moves_old_days_then_drops_old_topics_but_names_every_project() {
        let long = "x".repeat(250);
        let sel: Vec<_> = (0..120)
            .map(|i| {
                let body = format!(
                    "---\ndescription: {long}\ntask: task {i}\nkeywords: k{i} {long}\n---\n"
                );
                output(
                    &format!("t{i:03}"),
                    Some(&format!("/w/p{i:03}")),
                    1_700_000_000 + i as i64 * DAY,
                    &body,
                )
            })
            .collect();
        let s = render(&Digest::build(&sel, &[]));
        assert!(s.len() <= MAX_SUMMARY_BYTES, "{}", s.len());
        assert!(s.ends_with('\n'));
        for i in 117..120 {
            assert!(
                s.contains(&format!("### /w/p{i:03}\n#### ")),
                "the newest days stay in full"
            );
        }
        assert!(!s.contains("\n### /w/p116\n"), "older days are compact");
        assert!(
            s.contains("### Older Memory Topics\n- more projects in MEMORY.md: /w/p000, /w/p001")
        );
        for i in 0..120 {
            assert!(s.contains(&format!("/w/p{i:03}")), "project {i} is named");
        }
    }

    #[test]
    fn cited_sessions_are_dropped_last() {
        let long = "y".repeat(400);
        let mut sel: Vec<_> = (0..60)
            .map(|i| {
                let body =
                    format!("---\ndescription: {long}\ntask: task {i}\nkeywords: {long}\n---\n");
                output(
                    &format!("t{i:03}"),
                    Some("/w/one"),
                    1_700_000_000 + i as i64 * DAY,
                    &body,
                )
            })
            .collect();
        sel[0].usage_count = Some(3);
        let s = render(&Digest::build(&sel, &[]));
        assert!(s.len() <= MAX_SUMMARY_BYTES);
        assert!(
            s.contains("- task 0: "),
            "the oldest but cited session survives"
        );
        assert!(!s.contains("- task 1: "), "an old uncited one goes");
    }

    #[test]
    fn long_rules_are_shortened_at_a_word_and_facts_read_from_runs_rank_first() {
        let long = format!(
            "never {} in handlers",
            "touch the database directly ".repeat(8)
        );
        let short = shortened(&long);
        assert!(short.len() <= MAX_SUMMARY_LINE + "…".len(), "{short}");
        assert!(short.ends_with('…') && long.starts_with(short.trim_end_matches('…')));
        assert_eq!(shortened("use pnpm"), "use pnpm");
        assert!(!is_prose("`pnpm dev` serves on localhost:4100"));
        assert!(!is_prose(
            "environment variables use the `SHOP_` prefix (e.g. `SHOP_DB`)"
        ));
        assert!(is_prose(
            "Deleted the KV files; the dev server is up on :8011 again."
        ));
    }

    #[test]
    fn cuts_only_at_line_ends() {
        let text = format!("v1\n{}\n{}\n", "a".repeat(6_000), "b".repeat(6_000));
        assert_eq!(cut_at_line(&text), format!("v1\n{}\n", "a".repeat(6_000)));
        assert_eq!(program("`./gradlew build` works"), Some("gradlew".into()));
        assert_eq!(program("no command"), None);
    }
}
