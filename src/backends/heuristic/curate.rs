//! What memory states as current, per project and for every project.
//!
//! The sessions' bullets are tallied per project; then: requests the user
//! made in two or more sessions become preferences; a preference the user
//! said holds everywhere, or stated in two or more projects, moves to the
//! global list; what a newer statement or habit replaced is dropped (the
//! newest value wins; history keeps the old one); and nothing [`poison`]
//! finds dangerous survives, whichever backend wrote the raw memory.
//!
//! [`poison`]: super::poison

use super::digest::{Project, Session};
use super::poison;
use super::rawparse::ParsedMemory;
use super::supersede::{Usage, family, mentions, replacement, retired_families};
use super::tally::{Tallied, norm_key, tally, words};
use regex::Regex;
use std::sync::LazyLock;

/// Sessions a request must recur in to become a preference.
const RECURRING: usize = 2;
/// Projects a preference must be stated in to hold everywhere.
const EVERYWHERE: usize = 2;
/// How alike two requests' significant words must be to be one request.
const SAME_REQUEST: f64 = 0.5;

/// A rule the user says holds in every project.
static GLOBAL_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|for|across|on) (?:every|all|any)(?: of)?(?: my| our| the)? (?:repos?|repositories|projects?|codebases?|workspaces?)\b|\beverywhere\b|\bglobally\b|\bwhatever (?:the )?(?:repo|project)\b|\bno matter (?:the|which) (?:repo|project)\b|\bwherever\b")
        .expect("valid regex")
});

/// "`cmd` works in project (role)": the command and its role.
static KNOWLEDGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^`([^`]+)` works in .*?\(([^()]+)\)\s*$").expect("valid regex"));

/// The memory one project holds, each entry with the sessions (indices into
/// the digest's sessions) that support it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectMemory {
    /// Preferences said in this project only.
    pub preferences: Vec<Tallied>,
    /// Commands that work.
    pub knowledge: Vec<Tallied>,
    /// Failures and the fix that worked.
    pub failures: Vec<Tallied>,
    /// Facts about the project's environment.
    pub environment: Vec<Tallied>,
}

impl ProjectMemory {
    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.preferences.len() + self.knowledge.len() + self.failures.len() + self.environment.len()
    }
}

/// The current memory: global preferences and one [`ProjectMemory`] per
/// project (in the digest's project order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Current {
    /// Preferences that hold in every project.
    pub global: Vec<Tallied>,
    /// Per project, aligned with the digest's projects.
    pub projects: Vec<ProjectMemory>,
}

impl Current {
    /// Curates the sessions' bullets into current memory.
    pub fn build(sessions: &[Session], projects: &[Project]) -> Current {
        let mut per_project: Vec<ProjectMemory> = projects
            .iter()
            .map(|p| project_memory(sessions, &p.sessions))
            .collect();
        let global = lift_global(&mut per_project);
        let mut current = Current {
            global,
            projects: per_project,
        };
        current.drop_replaced(sessions);
        current
    }

    /// Drops what newer statements and habits replaced.
    fn drop_replaced(&mut self, sessions: &[Session]) {
        let newest = |e: &Tallied| -> i64 {
            e.members
                .iter()
                .map(|&i| sessions[i].updated_at)
                .max()
                .unwrap_or_default()
        };
        let global_replacements: Vec<(i64, String, Option<String>, String)> = self
            .global
            .iter()
            .filter_map(|e| replacement(&e.text).map(|r| (newest(e), r.old, r.new, e.text.clone())))
            .collect();
        retire(&mut self.global, &global_replacements, &newest);
        for memory in &mut self.projects {
            let mut replacements = global_replacements.clone();
            replacements.extend(memory.preferences.iter().filter_map(|e| {
                replacement(&e.text).map(|r| (newest(e), r.old, r.new, e.text.clone()))
            }));
            retire(&mut memory.preferences, &replacements, &newest);
            retire_commands(&mut memory.knowledge, &replacements, &newest, false);
            retire_commands(&mut memory.failures, &replacements, &newest, true);
            retire_commands(&mut memory.environment, &replacements, &newest, false);
            retire_families(memory, sessions);
            keep_newest_facts(&mut memory.environment, &newest);
        }
    }
}

/// One project's tallied bullets, requests promoted, dangerous text dropped.
fn project_memory(sessions: &[Session], members: &[usize]) -> ProjectMemory {
    let bullets = |field: fn(&ParsedMemory) -> &Vec<String>| -> Vec<Tallied> {
        let mut t = tally(members.iter().flat_map(|&i| {
            field(&sessions[i].memory)
                .iter()
                .map(move |b| (i, b.as_str()))
        }));
        t.retain(|e| !poison::is_dangerous(&e.text));
        t
    };
    let mut preferences = bullets(|m| &m.preferences);
    for request in recurring_requests(sessions, members) {
        if !preferences
            .iter()
            .any(|p| norm_key(&p.text) == norm_key(&request.text))
        {
            preferences.push(request);
        }
    }
    ProjectMemory {
        preferences,
        knowledge: bullets(|m| &m.knowledge),
        failures: bullets(|m| &m.failures),
        environment: bullets(|m| &m.environment),
    }
}

/// Requests made in two or more of these sessions, in their shortest wording.
fn recurring_requests(sessions: &[Session], members: &[usize]) -> Vec<Tallied> {
    let mut groups: Vec<(Vec<String>, Tallied)> = Vec::new();
    for &i in members {
        for request in &sessions[i].memory.requests {
            if poison::is_dangerous(request) {
                continue;
            }
            let key = significant_words(request);
            match groups.iter_mut().find(|(k, _)| alike(k, &key)) {
                Some((_, t)) => {
                    if !t.members.contains(&i) {
                        t.members.push(i);
                    }
                    if request.len() < t.text.len() {
                        t.text = request.clone();
                    }
                }
                None => groups.push((
                    key,
                    Tallied {
                        text: request.clone(),
                        members: vec![i],
                    },
                )),
            }
        }
    }
    groups
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| t.members.len() >= RECURRING)
        .collect()
}

/// The words of a request that identify it.
fn significant_words(text: &str) -> Vec<String> {
    let mut w: Vec<String> = words(text)
        .into_iter()
        .filter(|w| w.len() > 2 && !super::signals::is_stop_word(w))
        .collect();
    w.sort();
    w.dedup();
    w
}

/// Whether two requests' significant words mostly agree (Jaccard).
fn alike(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    let union = a.len() + b.len() - shared;
    shared >= 2 && shared as f64 / union as f64 >= SAME_REQUEST
}

/// Moves the preferences that hold everywhere out of the projects.
fn lift_global(projects: &mut [ProjectMemory]) -> Vec<Tallied> {
    let mut global: Vec<Tallied> = Vec::new();
    let keys: Vec<Vec<String>> = projects
        .iter()
        .map(|p| p.preferences.iter().map(|e| norm_key(&e.text)).collect())
        .collect();
    for project in projects.iter_mut() {
        project.preferences.retain(|e| {
            let key = norm_key(&e.text);
            let stated_in = keys.iter().filter(|k| k.contains(&key)).count();
            if !(GLOBAL_RULE.is_match(&e.text) || stated_in >= EVERYWHERE) {
                return true;
            }
            match global.iter_mut().find(|g| norm_key(&g.text) == key) {
                Some(g) => g.members.extend(e.members.iter().copied()),
                None => global.push(e.clone()),
            }
            false
        });
    }
    for g in &mut global {
        g.members.sort_unstable();
        g.members.dedup();
    }
    global
}

/// Drops preferences that a newer replacement retired: older ones that
/// name the old value (and not the new one), except the replacements.
fn retire(
    entries: &mut Vec<Tallied>,
    replacements: &[(i64, String, Option<String>, String)],
    newest: &dyn Fn(&Tallied) -> i64,
) {
    entries.retain(|e| {
        !replacements.iter().any(|(at, old, new, statement)| {
            *statement != e.text
                && newest(e) <= *at
                && mentions(&e.text, old)
                && !new.as_deref().is_some_and(|n| mentions(&e.text, n))
        })
    });
}

/// Drops commands a replacement retired: knowledge whose command, or a
/// failure whose fix (`fix_only`), names the old value, if not newer.
fn retire_commands(
    entries: &mut Vec<Tallied>,
    replacements: &[(i64, String, Option<String>, String)],
    newest: &dyn Fn(&Tallied) -> i64,
    fix_only: bool,
) {
    entries.retain(|e| {
        let spans: Vec<&str> = e.text.split('`').skip(1).step_by(2).collect();
        let command = if fix_only {
            spans.get(1)
        } else {
            spans.first()
        };
        let Some(command) = command else { return true };
        !replacements
            .iter()
            .any(|(at, old, _, _)| newest(e) <= *at && mentions(command, old))
    });
}

/// Drops the working commands (and fixes using them) of families that a
/// later family replaced for the same role.
fn retire_families(memory: &mut ProjectMemory, sessions: &[Session]) {
    let mut by_role: Vec<(String, Vec<Usage>)> = Vec::new();
    for e in &memory.knowledge {
        let Some((role, fam)) = role_and_family(&e.text) else {
            continue;
        };
        let times: Vec<i64> = e.members.iter().map(|&i| sessions[i].updated_at).collect();
        let usages = match by_role.iter_mut().find(|(r, _)| *r == role) {
            Some((_, u)) => u,
            None => {
                by_role.push((role, Vec::new()));
                &mut by_role.last_mut().expect("just pushed").1
            }
        };
        let usage = match usages.iter_mut().find(|u| u.family == fam) {
            Some(u) => u,
            None => {
                usages.push(Usage {
                    family: fam,
                    sessions: Vec::new(),
                    first: i64::MAX,
                    last: i64::MIN,
                });
                usages.last_mut().expect("just pushed")
            }
        };
        usage.sessions.extend(e.members.iter().copied());
        usage.first = usage.first.min(*times.iter().min().unwrap_or(&0));
        usage.last = usage.last.max(*times.iter().max().unwrap_or(&0));
    }
    let retired: Vec<(String, String)> = by_role
        .iter()
        .flat_map(|(role, usages)| {
            retired_families(usages)
                .into_iter()
                .map(move |f| (role.clone(), f))
        })
        .collect();
    if retired.is_empty() {
        return;
    }
    memory
        .knowledge
        .retain(|e| role_and_family(&e.text).is_none_or(|rf| !retired.contains(&rf)));
    let still_used: Vec<String> = memory
        .knowledge
        .iter()
        .filter_map(|e| role_and_family(&e.text).map(|(_, f)| f))
        .collect();
    let gone = |f: &Option<String>| {
        f.as_ref()
            .is_some_and(|f| retired.iter().any(|(_, r)| r == f) && !still_used.contains(f))
    };
    memory
        .failures
        .retain(|e| !gone(&e.text.split('`').nth(3).and_then(family)));
    memory
        .environment
        .retain(|e| !gone(&e.text.split('`').nth(1).and_then(family)));
}

/// The role and command family of a "`cmd` works in … (role)" bullet.
fn role_and_family(text: &str) -> Option<(String, String)> {
    let c = KNOWLEDGE.captures(text)?;
    Some((c[2].to_string(), family(&c[1])?))
}

/// Keeps, for facts about the same thing (a command's port, a tool's
/// required version, where configuration is read from), the newest only.
fn keep_newest_facts(facts: &mut Vec<Tallied>, newest: &dyn Fn(&Tallied) -> i64) {
    let subjects: Vec<Option<String>> = facts.iter().map(|f| fact_subject(&f.text)).collect();
    let times: Vec<i64> = facts.iter().map(newest).collect();
    let mut n = 0;
    facts.retain(|_| {
        let i = n;
        n += 1;
        let Some(subject) = &subjects[i] else {
            return true;
        };
        !subjects
            .iter()
            .zip(&times)
            .enumerate()
            .any(|(j, (s, t))| j != i && s.as_ref() == Some(subject) && (*t, j) > (times[i], i))
    });
}

/// What a generated fact is about, for the newest-wins rule.
fn fact_subject(text: &str) -> Option<String> {
    if let Some((_, port)) = text.split_once(" serves on ") {
        return Some(format!("serves on {port}"));
    }
    if let Some(rest) = text.strip_prefix("the project requires ") {
        return rest
            .split_whitespace()
            .next()
            .map(|t| format!("requires {t}"));
    }
    if let Some((what, _)) = text.split_once(" is read from ") {
        return Some(format!("read {what}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_rules_are_recognised() {
        for text in [
            "for every repo, write commit messages in English",
            "in all my projects use conventional commits",
            "keep PR descriptions short everywhere",
        ] {
            assert!(GLOBAL_RULE.is_match(text), "{text}");
        }
        assert!(!GLOBAL_RULE.is_match("use pnpm in this repo"));
    }

    #[test]
    fn requests_group_by_their_words() {
        let a = significant_words("show me the plan first");
        let b = significant_words("again, show me the plan first");
        let c = significant_words("show me the diff");
        assert!(alike(&a, &b));
        assert!(!alike(&a, &c));
    }

    #[test]
    fn fact_subjects() {
        assert_eq!(
            fact_subject("`pnpm dev` serves on localhost:4100").as_deref(),
            Some("serves on localhost:4100")
        );
        assert_eq!(
            fact_subject("the project requires node >=20").as_deref(),
            Some("requires node")
        );
        assert_eq!(fact_subject("the api runs on port 8081"), None);
    }
}
