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
use super::envfacts::VERSION_PINS;
use super::poison;
use super::rawparse::ParsedMemory;
use super::supersede::{
    Replacement, Usage, family, mentions, names_old, other_version, replacement, replacements,
    retired_families, rivals_named, settings, states_retired, wraps_in_runner,
};
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
    Regex::new(r"(?i)\b(?:in|for|across|on) (?:every|all|any)(?: of)?(?: my| our| the)? (?:repos?|repository|repositories|projects?|codebases?|workspaces?|machines?|computers?|boxes)\b|\beverywhere\b|\bglobally\b|\bwhatever (?:the )?(?:repo|project)\b|\bno matter (?:the|which) (?:repo|project)\b|\bwherever\b|\b(?:in|as in|like in) my other (?:projects|repos|repositories)\b|\bsame (?:rule )?as (?:in )?my other\b|\bprojects? of mine\b|\brepos? of mine\b|\brepositor(?:y|ies) of mine\b|\b(?:every|all|any) (?:repos?|repositor(?:y|ies)|projects?|codebases?) (?:i|we) (?:touch|work on|own|maintain|write)\b|\bacross the board\b|\bnot (?:only|just) (?:in )?this (?:repo|repository|project|codebase)\b|\ball (?:of )?my (?:repos?|repositories|projects?|codebases?|stuff|code)\b|\bin general, in all\b")
        .expect("valid regex")
});

/// "everywhere else in this repo": everywhere, but only here.
static HERE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\beverywhere(?: else)? (?:in this (?:repo|repository|project|codebase|app)|here)\b|\b(?:how )?this (?:codebase|repo|repository|project|app) (?:does|do)(?: it| things)?\b",
    )
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
        let newest = |e: &Tallied| -> i64 { session_times(e, sessions).max().unwrap_or_default() };
        let oldest = |e: &Tallied| -> i64 { session_times(e, sessions).min().unwrap_or_default() };
        let replacements_in = |entries: &[Tallied]| -> Vec<Retirement> {
            entries
                .iter()
                .flat_map(|e| {
                    replacements(&e.text).into_iter().map(|by| Retirement {
                        at: newest(e),
                        by,
                        statement: e.text.clone(),
                    })
                })
                .collect()
        };
        let global_replacements = replacements_in(&self.global);
        retire(&mut self.global, &global_replacements, &newest);
        let global_settings = settings_in(&self.global, &newest);
        retire_changed_settings(&mut self.global, &global_settings, &newest);
        for memory in &mut self.projects {
            let mut replacements = global_replacements.clone();
            replacements.extend(replacements_in(&memory.preferences));
            // "the mock server no longer runs on 8085 - I moved it to 9091".
            replacements.extend(replacements_in(&memory.environment));
            retire(&mut memory.preferences, &replacements, &newest);
            retire(&mut memory.environment, &replacements, &newest);
            retire_commands(&mut memory.knowledge, &replacements, &newest, false);
            retire_commands(&mut memory.failures, &replacements, &newest, true);
            // A fix told in prose that names the retired value.
            retire(&mut memory.failures, &replacements, &newest);
            retire_commands(&mut memory.environment, &replacements, &newest, false);
            retire_families(memory, sessions);
            retire_by_named_commands(memory, &newest);
            retire_changed_flags(&mut memory.knowledge, &newest, &oldest);
            keep_newest_facts(&mut memory.environment, &memory.preferences, &newest);
            let mut changed = global_settings.clone();
            changed.extend(settings_in(&memory.preferences, &newest));
            changed.extend(settings_in(&memory.environment, &newest));
            retire_changed_settings(&mut memory.preferences, &changed, &newest);
            retire_changed_settings(&mut memory.environment, &changed, &newest);
            retire_rivals(memory, &self.global, &newest);
            mark_replaced(&mut memory.preferences);
            mark_replaced(&mut memory.environment);
        }
        mark_replaced(&mut self.global);
    }
}

/// Says which value is old in a rule that states a change ("switch
/// formatter from alejandra to nixfmt-rfc-style" gets "(alejandra no
/// longer used)"), so a reader does not take the old value, named first,
/// for the current one. A rule that says so already is left as it is.
fn mark_replaced(entries: &mut [Tallied]) {
    static SAYS_OLD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:instead|no longer|not anymore|anymore|replaced|replaces|formerly|previously|used to|deprecated|dropped|removed|retired|gone|switched|moved|migrated|was|were|not|never|rather than|don'?t|dont|shouldn'?t)\b")
            .expect("valid regex")
    });
    for e in entries {
        if SAYS_OLD.is_match(&e.text) {
            continue;
        }
        // (The new value may go unnamed: "we're dropping mypy".)
        let Some(Replacement {
            old: Some(old),
            new,
            ..
        }) = replacement(&e.text)
        else {
            continue;
        };
        if new
            .as_ref()
            .is_some_and(|new| old.eq_ignore_ascii_case(new) || !mentions(&e.text, new))
        {
            continue;
        }
        let old = if old.contains(' ') || old.contains('`') {
            old
        } else {
            format!("`{old}`")
        };
        let end = e.text.trim_end_matches(['.', ' ']).len();
        e.text = format!("{} ({old} no longer used).", &e.text[..end]);
    }
}

/// Whether a command runs what a "plain X doesn't …" statement retired
/// through a task runner (`uv run pytest`): the bare form is what went.
fn runs_plain_old(command: &str, by: &Replacement) -> bool {
    by.plain
        && by
            .old
            .as_deref()
            .is_some_and(|old| wraps_in_runner(command, old))
}

/// When the sessions behind an entry were last updated.
fn session_times<'a>(e: &'a Tallied, sessions: &'a [Session]) -> impl Iterator<Item = i64> + 'a {
    e.members.iter().map(|&i| sessions[i].updated_at)
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
    // A project task named alone (`make sqlgen`, `mix tide.fixtures`) is
    // how the project is worked on; an invocation with its own arguments
    // (`airflow dags backfill gauge_ingest -s …`) is, once it recurs.
    let mut knowledge = bullets(|m| &m.knowledge);
    knowledge.retain(|e| {
        e.members.len() >= RECURRING || KNOWLEDGE.is_match(&e.text) || names_a_bare_task(&e.text)
    });
    drop_one_off_variations(&mut knowledge);
    // A sentence kept as a rule is not repeated as a fact about the project
    // ("for the record DJANGO_SETTINGS_MODULE=… for anything you run by hand").
    let rules: Vec<String> = preferences.iter().map(|p| norm_key(&p.text)).collect();
    let mut environment = bullets(|m| &m.environment);
    environment.retain(|e| {
        let fact = norm_key(&e.text);
        !rules
            .iter()
            .any(|rule| rule.contains(&fact) || (fact.contains(rule.as_str()) && rule.len() >= 20))
    });
    ProjectMemory {
        preferences,
        knowledge,
        failures: bullets(|m| &m.failures),
        environment,
    }
}

/// Drops `mix test --exclude slow --slowest 5`, seen once, beside `mix test
/// --exclude slow` seen in several sessions: a one-off variation of the
/// project's command, not a command of its own.
fn drop_one_off_variations(knowledge: &mut Vec<Tallied>) {
    let recurring: Vec<String> = knowledge
        .iter()
        .filter(|e| e.members.len() >= RECURRING)
        .filter_map(|e| e.text.split('`').nth(1).map(|c| format!("{c} ")))
        .collect();
    knowledge.retain(|e| {
        e.members.len() >= RECURRING
            || !e
                .text
                .split('`')
                .nth(1)
                .is_some_and(|command| recurring.iter().any(|r| command.starts_with(r.as_str())))
    });
}

/// Whether a "`cmd` works in …" bullet's command is a task name and at
/// most a runner before it: three words or fewer, no flags.
fn names_a_bare_task(text: &str) -> bool {
    text.split('`').nth(1).is_some_and(|command| {
        let words: Vec<&str> = command.split_whitespace().collect();
        // `mix ecto.gen.migration add_last_seen_at_to_buoys`: a name made
        // for one change is an argument of its own.
        let made_name = |w: &&str| w.matches('_').count() >= 2 && w.len() >= 12;
        words.len() <= 3
            && !words.iter().any(|w| w.starts_with('-'))
            && !words.iter().skip(1).any(made_name)
    })
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

/// The words of a request that identify it, with its distinctive tokens
/// (file names, commands) kept whole.
fn significant_words(text: &str) -> Vec<String> {
    let mut w: Vec<String> = words(text)
        .into_iter()
        .filter(|w| w.len() > 2 && !super::signals::is_stop_word(w))
        .collect();
    w.extend(
        text.split_whitespace()
            .map(|t| {
                t.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|t| is_distinctive(t)),
    );
    w.sort();
    w.dedup();
    w
}

/// Whether two requests are one: they share a distinctive token (a file,
/// a command, a name: `CHANGELOG.md`, `zeitwerk:check`), or their
/// significant words mostly agree (Jaccard).
fn alike(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a.iter().any(|w| is_distinctive(w) && b.contains(w)) {
        return true;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    let union = a.len() + b.len() - shared;
    shared >= 2 && shared as f64 / union as f64 >= SAME_REQUEST
}

/// Whether a token names something specific: it joins words with `.`,
/// `:` or `_` (`changelog.md`, `zeitwerk:check`; not a runner like
/// `bin/rails`).
fn is_distinctive(token: &str) -> bool {
    token.len() >= 5
        && token.contains(['.', ':', '_'])
        && token.chars().filter(|c| c.is_alphabetic()).count() >= 4
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
            let said_global = GLOBAL_RULE.is_match(&e.text) && !HERE_ONLY.is_match(&e.text);
            if !(said_global || stated_in >= EVERYWHERE) {
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

/// A replacement stated by a preference, and when.
#[derive(Debug, Clone)]
struct Retirement {
    /// The newest session behind the statement.
    at: i64,
    /// What it replaces with what.
    by: Replacement,
    /// The statement itself (never retired by itself).
    statement: String,
}

/// Drops entries that a newer replacement retired: older ones that still
/// state the old value, except the replacements themselves. An entry of
/// several clauses ("Inventory is `hosts.yml`; all hosts use SSH on port
/// 22.") loses only the clauses that state the old value.
fn retire(
    entries: &mut Vec<Tallied>,
    retirements: &[Retirement],
    newest: &dyn Fn(&Tallied) -> i64,
) {
    entries.retain_mut(|e| {
        let at = newest(e);
        let applies = |r: &&Retirement| r.statement != e.text && at <= r.at;
        let live: Vec<&Retirement> = retirements.iter().filter(applies).collect();
        if !retired_by_any(&e.text, &live) {
            return true;
        }
        // A failure and its fix are one lesson: never split.
        if e.text.contains("` failed") {
            return false;
        }
        let clauses: Vec<&str> = e.text.split("; ").collect();
        // A `code span` cut in two is no clause.
        if clauses.iter().any(|c| c.matches('`').count() % 2 == 1) {
            return false;
        }
        let kept: Vec<&str> = clauses
            .iter()
            .copied()
            .filter(|c| !retired_by_any(c, &live))
            .collect();
        if kept.is_empty() || kept.len() == clauses.len() {
            return false;
        }
        let mut text = kept.join("; ");
        if e.text.ends_with('.') && !text.ends_with('.') {
            text.push('.');
        }
        e.text = text;
        true
    });
}

/// Whether `text` states what any of `retirements` retired (and is not
/// itself a statement of the same replacement).
fn retired_by_any(text: &str, retirements: &[&Retirement]) -> bool {
    // A statement retiring the same value says the same thing.
    let mine = replacement(text);
    let own = mine
        .as_ref()
        .and_then(|m| m.old.as_ref().map(|o| o.to_lowercase()));
    let fix = text.split('`').nth(3);
    retirements.iter().any(|r| {
        let same_old = own.is_some() && own == r.by.old.as_ref().map(|o| o.to_lowercase());
        // "flyway is deprecated for us" beside "we dropped flyway, migrations
        // are Atlas now": the one that names the new value says it all.
        let said_better =
            mine.as_ref().is_some_and(|m| m.new.is_none()) && r.by.new.is_some() && same_old;
        // "`pytest -q` failed …; `uv run pytest -q` worked instead" is the
        // lesson behind "plain pytest doesn't see the package", not against it.
        let fixed_by_runner =
            text.contains("` failed (") && fix.is_some_and(|f| runs_plain_old(f, &r.by));
        !fixed_by_runner && ((states_retired(text, &r.by) && !same_old) || said_better)
    })
}

/// Drops commands a replacement retired: knowledge whose command, or a
/// failure whose fix (`fix_only`), names the old value, if not newer.
fn retire_commands(
    entries: &mut Vec<Tallied>,
    retirements: &[Retirement],
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
        // "`X` failed …; it worked after running `Y` first" re-ran X.
        let rerun = (fix_only && e.text.contains("it worked after running"))
            .then(|| spans.first())
            .flatten();
        // `--preset dev-asan-ubsan` names the new value, though `asan` is in it.
        let names = |c: &str, r: &Retirement| {
            let new = r.by.new.as_deref();
            !new.is_some_and(|n| mentions(c, n))
                && ((r.by.old.as_deref().is_some_and(|old| names_old(c, old))
                    && !(fix_only && runs_plain_old(c, &r.by)))
                    || new.is_some_and(|n| other_version(c, n)))
        };
        !retirements
            .iter()
            .any(|r| newest(e) <= r.at && (names(command, r) || rerun.is_some_and(|c| names(c, r))))
    });
}

/// Drops rules and facts naming a tool that a newer rule replaced with a
/// rival for the same job ("we use yarn" after "pnpm only, please"), when the
/// newer one does not name the older tool and the older one does not name
/// the newer (so "use pnpm, not npm" is never the one dropped).
fn retire_rivals(memory: &mut ProjectMemory, global: &[Tallied], newest: &dyn Fn(&Tallied) -> i64) {
    // A rule names the tool, and so does a command that works with it
    // ("run golint ./..." before `golangci-lint run ./...` worked).
    let stated: Vec<(i64, Vec<(usize, &'static str)>)> = memory
        .preferences
        .iter()
        .chain(global)
        .chain(&memory.knowledge)
        .map(|e| (newest(e), rivals_named(&e.text)))
        .filter(|(_, r)| !r.is_empty())
        .collect();
    let replaced = |e: &Tallied| {
        let at = newest(e);
        let mine = rivals_named(&e.text);
        mine.iter().any(|(group, tool)| {
            stated.iter().any(|(t, theirs)| {
                *t > at
                    && !theirs.iter().any(|(_, x)| x == tool)
                    && theirs
                        .iter()
                        .any(|(g, x)| g == group && !mine.iter().any(|(_, y)| y == x))
            })
        })
    };
    memory.preferences.retain(|e| !replaced(e));
    memory.environment.retain(|e| !replaced(e));
    memory.knowledge.retain(|e| !replaced(e));
}

/// Every setting the entries name, with its value and when it was said.
fn settings_in(
    entries: &[Tallied],
    newest: &dyn Fn(&Tallied) -> i64,
) -> Vec<(String, String, i64)> {
    entries
        .iter()
        .flat_map(|e| {
            let at = newest(e);
            settings(&e.text).into_iter().map(move |(k, v)| (k, v, at))
        })
        .collect()
}

/// Drops entries that give a setting a value a newer entry changed
/// (`ingressClassName: nginx` after `ingressClassName traefik`).
fn retire_changed_settings(
    entries: &mut Vec<Tallied>,
    known: &[(String, String, i64)],
    newest: &dyn Fn(&Tallied) -> i64,
) {
    entries.retain(|e| {
        let at = newest(e);
        !settings(&e.text).iter().any(|(key, value)| {
            known
                .iter()
                .any(|(k, v, t)| k == key && v != value && *t > at)
        })
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
        let times: Vec<i64> = session_times(e, sessions).collect();
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
        .retain(|e| !gone(&e.text.split('`').nth(3).and_then(tool_family)));
    memory
        .environment
        .retain(|e| !gone(&e.text.split('`').nth(1).and_then(tool_family)));
}

/// Drops a working command whose tool a newer rule names with another
/// command for the same role: "we moved to CMakePresets … use `ctest
/// --preset dev`" retires "`ctest --test-dir build` works". The rule does
/// not name the old command (then it says something about it instead).
fn retire_by_named_commands(memory: &mut ProjectMemory, newest: &dyn Fn(&Tallied) -> i64) {
    let named: Vec<(String, &'static str, i64, &str)> = memory
        .preferences
        .iter()
        .flat_map(|p| {
            let at = newest(p);
            p.text
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(move |command| {
                    let words: Vec<String> =
                        command.split_whitespace().map(str::to_string).collect();
                    let role = super::shell::classify(&words)?.label()?;
                    Some((command.to_string(), role, at, p.text.as_str()))
                })
        })
        .collect();
    let program = |c: &str| c.split_whitespace().next().map(str::to_string);
    memory.knowledge.retain(|e| {
        let Some(c) = KNOWLEDGE.captures(&e.text) else {
            return true;
        };
        let (command, role) = (&c[1], &c[2]);
        !named.iter().any(|(new, new_role, at, rule)| {
            new != command
                && *new_role == role
                && program(new) == program(command)
                && newest(e) <= *at
                && !rule.contains(command)
        })
    });
}

/// Drops a working command that a later one replaced by giving one of its
/// flags another value (`zig build -Dtarget=arm-linux-musleabihf …` →
/// `-Dtarget=aarch64-linux-musl …`, `-i hosts.ini` → `-i hosts.yml`): the
/// same command otherwise, last used before the other's first use.
fn retire_changed_flags(
    knowledge: &mut Vec<Tallied>,
    newest: &dyn Fn(&Tallied) -> i64,
    oldest: &dyn Fn(&Tallied) -> i64,
) {
    let commands: Vec<Option<String>> = knowledge
        .iter()
        .map(|e| KNOWLEDGE.captures(&e.text).map(|c| c[1].to_string()))
        .collect();
    let replaced: Vec<bool> = (0..knowledge.len())
        .map(|i| {
            (0..knowledge.len()).any(|j| {
                let (Some(old), Some(new)) = (&commands[i], &commands[j]) else {
                    return false;
                };
                j != i
                    && newest(&knowledge[i]) < oldest(&knowledge[j])
                    && !knowledge[i]
                        .members
                        .iter()
                        .any(|m| knowledge[j].members.contains(m))
                    && one_flag_changed(old, new)
            })
        })
        .collect();
    let mut n = 0;
    knowledge.retain(|_| {
        n += 1;
        !replaced[n - 1]
    });
}

/// Whether two commands differ only in the value of one flag
/// (`-Dtarget=a` / `-Dtarget=b`, `-i a.ini` / `-i b.yml`).
fn one_flag_changed(a: &str, b: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    if a.len() != b.len() {
        return false;
    }
    let differ: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    let [i] = differ.as_slice() else {
        return false;
    };
    let same_key = |x: &str, y: &str| {
        x.starts_with('-')
            && matches!((x.split_once('='), y.split_once('=')), (Some((kx, _)), Some((ky, _))) if kx == ky)
    };
    same_key(a[*i], b[*i])
        || (*i > 0
            && a[*i - 1].starts_with('-')
            && !a[*i].starts_with('-')
            && !b[*i].starts_with('-'))
}

/// The role and command family of a "`cmd` works in … (role)" bullet.
fn role_and_family(text: &str) -> Option<(String, String)> {
    let c = KNOWLEDGE.captures(text)?;
    Some((c[2].to_string(), tool_family(&c[1])?))
}

/// A command's family, or the rival tool it runs through it: `pnpm jest …`
/// and `pnpm vitest run …` are jest and vitest, not both pnpm.
fn tool_family(command: &str) -> Option<String> {
    let runner = family(command);
    rivals_named(command)
        .into_iter()
        .map(|(_, tool)| tool.to_string())
        .find(|tool| runner.as_deref() != Some(tool.as_str()))
        .or(runner)
}

/// Keeps, for facts about the same thing (a command's port, a tool's
/// required version, where configuration is read from), the newest only.
/// A newer rule about the same thing ("after the gateway change the api
/// moved to 8088") replaces a fact too.
fn keep_newest_facts(
    facts: &mut Vec<Tallied>,
    rules: &[Tallied],
    newest: &dyn Fn(&Tallied) -> i64,
) {
    let subjects: Vec<Vec<String>> = facts.iter().map(|f| fact_subjects(&f.text)).collect();
    let times: Vec<i64> = facts.iter().map(newest).collect();
    let stated: Vec<(Vec<String>, i64)> = rules
        .iter()
        .map(|r| (fact_subjects(&r.text), newest(r)))
        .collect();
    // A newer line that states the same value again replaces nothing.
    let values: Vec<Vec<String>> = facts.iter().map(|f| stated_values(&f.text)).collect();
    let rule_values: Vec<Vec<String>> = rules.iter().map(|r| stated_values(&r.text)).collect();
    // (Only for what a tool's version is: a port's subject is what serves
    // on it, and another server on the same port does replace the first.)
    let restates = |subject: &str, mine: &[String], theirs: &[String]| {
        (subject.starts_with("reports ") || subject.starts_with("requires "))
            && !mine.is_empty()
            && mine.iter().all(|v| theirs.contains(v))
            && theirs.iter().all(|v| mine.contains(v))
    };
    let superseded = |i: usize, subject: &String| {
        let by_fact = subjects.iter().zip(&times).enumerate().any(|(j, (s, t))| {
            j != i
                && s.contains(subject)
                && (*t, j) > (times[i], i)
                && !restates(subject, &values[i], &values[j])
        });
        by_fact
            || stated.iter().zip(&rule_values).any(|((s, t), theirs)| {
                s.contains(subject) && *t > times[i] && !restates(subject, &values[i], theirs)
            })
    };
    let mut n = 0;
    facts.retain_mut(|fact| {
        let i = n;
        n += 1;
        let old: Vec<&String> = subjects[i].iter().filter(|s| superseded(i, s)).collect();
        if old.is_empty() {
            return true;
        }
        // "dev server on 5174, Node 18.20.4 from .nvmrc" once the node
        // version changed: the clauses about what is still current stay.
        match without_clauses_about(&fact.text, &old) {
            Some(rest) => {
                fact.text = rest;
                true
            }
            None => false,
        }
    });
}

/// The versions and port numbers a line states (`v1.9.8` is `1.9.8`).
fn stated_values(text: &str) -> Vec<String> {
    static VALUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bv?(\d+(?:\.\d+)+|\d{2,5})\b").expect("valid regex"));
    VALUE
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
        .collect()
}

/// A fact without its clauses about `subjects`, when what is left is about
/// something else.
fn without_clauses_about(text: &str, subjects: &[&String]) -> Option<String> {
    let mut kept = String::new();
    let mut dropped = false;
    for (i, clause) in text.split_inclusive([',', ';']).enumerate() {
        let about = fact_subjects(clause);
        if subjects.iter().any(|s| about.contains(s)) {
            dropped = true;
            continue;
        }
        if i > 0 && kept.is_empty() {
            kept.push_str(clause.trim_start());
        } else {
            kept.push_str(clause);
        }
    }
    let kept = kept.trim().trim_end_matches([',', ';']).trim_end();
    let rest_subjects = fact_subjects(kept);
    (dropped
        && kept.split_whitespace().count() >= 3
        && !rest_subjects.is_empty()
        && !subjects.iter().any(|s| rest_subjects.contains(s)))
    .then(|| kept.to_string())
}

/// What a fact is about, for the newest-wins rule: a port (whatever serves
/// on it now), the port a command serves on, a tool's required version, a
/// version query's answer, where something is read from.
fn fact_subjects(text: &str) -> Vec<String> {
    if let Some((command, port)) = text.split_once(" serves on ") {
        return vec![
            format!("serves on {port}"),
            port_subject(command.trim_matches('`')),
        ];
    }
    // (A required version also replaces what a version file or a
    // version query said before: "`.sdkmanrc` pins Java 17".)
    if let Some(rest) = text.strip_prefix("the project requires ") {
        return rest
            .split_whitespace()
            .next()
            .into_iter()
            .flat_map(|t| {
                let tool = t.to_ascii_lowercase();
                let reported = if tool == "jdk" {
                    "java".to_string()
                } else {
                    tool
                };
                [format!("requires {t}"), format!("reports {reported}")]
            })
            .collect();
    }
    // "`node --version` reports v20.18.1" (not "… (`/health` reports ok)").
    if let Some((command, _)) = text.split_once(" reports ")
        && command.starts_with('`')
        && command.ends_with('`')
    {
        return vec![format!(
            "reports {}",
            reported_tool(command.trim_matches('`'))
        )];
    }
    if let Some((what, _)) = text.split_once(" is read from ") {
        return vec![format!("read {what}")];
    }
    let mut subjects = port_subjects(text);
    subjects.extend(named_resources(text));
    // "python is 3.12.7 now", "Node 18.20.4 from .nvmrc": a tool's version.
    static TOOL_VERSION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(node|python|ruby|go|java|jdk|rust|php|elixir|erlang|deno|bun|pnpm|yarn|npm|ghc|zig|julia|dart|flutter|swift|kotlin|scala|sbt|gradle|dotnet|terraform|helm|cabal|ocaml|lua|perl)(?: version)?(?: is| =| on)? v?(?:\d+\.\d+|\d{2}\b)").expect("valid regex")
    });
    for c in TOOL_VERSION.captures_iter(text) {
        let subject = match c[1].to_ascii_lowercase().as_str() {
            "jdk" => "reports java".to_string(),
            tool => format!("reports {tool}"),
        };
        if !subjects.contains(&subject) {
            subjects.push(subject);
        }
    }
    subjects
}

/// The named resources a fact gives a name to ("kubectl against staging:
/// context is gke-plat-stg", "the staging kube context got renamed, it's
/// plat-staging-eu now"), by kind and the environment they belong to.
fn named_resources(text: &str) -> Vec<String> {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(bucket|cluster|namespace|registry|context|region|queue|topic|schema|account|profile|tenant)\s+(?:is now|is|=|got renamed|was renamed|renamed|changed|moved)\b")
            .expect("valid regex")
    });
    static ENVIRONMENT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(staging|stage|prod|production|dev|development|test|qa|local|preview)\b")
            .expect("valid regex")
    });
    let environment = ENVIRONMENT
        .captures(text)
        .map(|c| format!(" of {}", c[1].to_ascii_lowercase()))
        .unwrap_or_default();
    let mut out: Vec<String> = NAMED
        .captures_iter(text)
        .map(|c| format!("name of {}{environment}", c[1].to_ascii_lowercase()))
        .collect();
    out.dedup();
    out
}

/// The ports a fact names, by what serves on them.
fn port_subjects(text: &str) -> Vec<String> {
    // "The dev server is up via `deno task dev` at http://localhost:8000/":
    // a command named with one local port (the last one named before it).
    if let [port] = local_ports(text).as_slice() {
        let before = &text[..text.find(port).unwrap_or(text.len())];
        let command = before
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|c| !c.is_empty())
            .last();
        if let Some(command) = command {
            return vec![port_subject(command)];
        }
    }
    // "web runs on :3000, admin on :3200": each named service's port.
    static NAMED_PORT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b((?:(?:dev|staging|prod|test|local|main|admin|public) )?[a-z][\w-]*)\s+(?:(?:now\s+)?(?:runs\s+|is\s+(?:up\s+)?|comes\s+up\s+|listens\s+|lives\s+|serves\s+|sits\s+|starts\s+)?on|(?:is\s+up|runs|listens|serves)\s+at|now\s+on|(?:moved|switched|changed|went)\s+to|is\s+now\s+on)\s+(?:port\s+)?(?:https?://)?(?:localhost|127\.0\.0\.1)?:?\d{4,5}\b")
            .expect("valid regex")
    });
    // "moved the dev server to port 4050", "remapped redis in compose to 6380".
    static MOVED_PORT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:mov(?:ed|ing)|switch(?:ed|ing)|chang(?:ed|ing)|remapp(?:ed|ing)|rebound)\s+(?:the\s+)?((?:dev\s+)?[a-z][\w-]*(?:\s+server)?)(?:\s+(?:in|on)\s+[\w.-]+)?\s+to\s+(?:port\s+)?:?\d{4,5}\b")
            .expect("valid regex")
    });
    NAMED_PORT
        .captures_iter(text)
        .chain(MOVED_PORT.captures_iter(text))
        .map(|c| match c[1].to_ascii_lowercase().as_str() {
            // A web framework's server is the project's dev server.
            "site" | "dev site" | "dev app" | "web app" | "dev server" | "server" | "phoenix"
            | "rails" | "django" | "flask" | "fastapi" | "uvicorn" | "vite" | "next" | "nuxt"
            | "astro" | "remix" | "sveltekit" | "laravel" | "symfony" => "dev server".to_string(),
            name => name.to_string(),
        })
        .filter(|name| {
            !matches!(
                name.as_str(),
                "it" | "this"
                    | "that"
                    | "which"
                    | "one"
                    | "also"
                    | "now"
                    | "still"
                    | "and"
                    | "is"
                    | "runs"
                    | "port"
            )
        })
        .map(|name| format!("port of {name}"))
        .collect()
}

/// The tool whose version a command reports: `cat .nvmrc` and `node
/// --version` both report node's, `python3 -V` and `.python-version`
/// python's.
fn reported_tool(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    if let ["cat", file] = words.as_slice()
        && let Some(tool) = VERSION_PINS
            .iter()
            .find(|(pin, _)| pin == file)
            .and_then(|(_, tool)| *tool)
    {
        return tool.to_string();
    }
    let program = words
        .first()
        .map_or("", |w| w.rsplit('/').next().unwrap_or(w));
    match program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.') {
        "rustc" | "cargo" => "rust".to_string(),
        tool => tool.to_string(),
    }
}

/// The subject of a port a command serves on.
fn port_subject(command: &str) -> String {
    match served_command(command).as_str() {
        "dev server" => "port of dev server".to_string(),
        served => format!("port of `{served}`"),
    }
}

/// A serving command as the same server whatever its port and runner:
/// `yarn nx serve portal --port 4300` is `nx serve portal`.
fn served_command(command: &str) -> String {
    let mut words: Vec<&str> = command.split_whitespace().collect();
    while let Some(first) = words.first() {
        match *first {
            "yarn" | "npx" | "pnpm" | "bunx" | "bun" | "npm" | "pnpx" => {
                words.remove(0);
                if words.first() == Some(&"run") {
                    words.remove(0);
                }
            }
            "timeout" => {
                let n = super::shell::timeout_wrapper_len(&words);
                words.drain(..n);
            }
            _ => break,
        }
    }
    let mut out = Vec::new();
    let mut skip_value = false;
    for w in words {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if matches!(w, "--port" | "-p") {
            skip_value = true;
        } else if !w.starts_with("--port=") {
            out.push(w);
        }
    }
    let served = out.join(" ");
    // `bun run dev`, `npm start`, a framework's own server: the project's
    // dev server.
    match served.as_str() {
        "dev"
        | "start"
        | "serve"
        | "dev:server"
        | "mix phx.server"
        | "iex -S mix phx.server"
        | "rails server"
        | "rails s"
        | "bin/rails server"
        | "bin/dev"
        | "python manage.py runserver"
        | "php artisan serve"
        | "flask run" => "dev server".to_string(),
        _ => served,
    }
}

/// The local ports a line names (`localhost:8000`, `127.0.0.1:8000`).
fn local_ports(text: &str) -> Vec<&str> {
    static LOCAL_PORT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):(\d{2,5})\b").expect("valid regex")
    });
    let mut ports: Vec<&str> = LOCAL_PORT
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    ports.dedup();
    ports
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
            "A general rule first, valid for every repository of mine: plan first",
            "this applies to every repository I touch: conventional commits",
            "across the board: timestamps in UTC",
            "my shell is fish on every machine",
        ] {
            assert!(GLOBAL_RULE.is_match(text), "{text}");
        }
        assert!(!GLOBAL_RULE.is_match("use pnpm in this repo"));
        assert!(HERE_ONLY.is_match("the same seed as everywhere else in this repo"));
        assert!(
            HERE_ONLY.is_match("use @onready vars — that's how this codebase does it, everywhere")
        );
        assert!(!GLOBAL_RULE.is_match("that goes for the whole crate, not just this fn"));
    }

    #[test]
    fn a_newer_fact_retires_only_the_clause_it_replaces() {
        let fact = |text: &str, session: usize| Tallied {
            text: text.to_string(),
            members: vec![session],
        };
        let mut facts = vec![
            fact(
                "Understood: dev server on 5174 (strictPort), Node 18.20.4 from .nvmrc; mixins untouched.",
                0,
            ),
            fact("Node 18.20.4 per .nvmrc", 0),
            fact("`node -v` reports v22.11.0", 1),
        ];
        keep_newest_facts(&mut facts, &[], &|t: &Tallied| t.members[0] as i64);
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        let mut named = vec![
            fact("kubectl against staging: context is gke-plat-stg.", 0),
            fact("prod context is gke-plat-prod", 0),
        ];
        let renamed = [fact(
            "the staging kube context got renamed, it's plat-staging-eu now",
            1,
        )];
        keep_newest_facts(&mut named, &renamed, &|t: &Tallied| t.members[0] as i64);
        let mut same = vec![
            fact("`terraform version` reports Terraform v1.9.8", 0),
            fact("Terraform 1.9.8, staging plan is clean.", 1),
        ];
        keep_newest_facts(&mut same, &[], &|t: &Tallied| t.members[0] as i64);
        assert_eq!(
            same.len(),
            2,
            "the same version said again replaces nothing"
        );
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].text, "prod context is gke-plat-prod");
        assert_eq!(
            texts,
            [
                "Understood: dev server on 5174 (strictPort), mixins untouched.",
                "`node -v` reports v22.11.0"
            ]
        );
    }

    #[test]
    fn a_replacement_retires_only_the_clause_that_states_the_old_value() {
        let entry = |text: &str, session: usize| Tallied {
            text: text.to_string(),
            members: vec![session],
        };
        let statement = "we moved ssh from port 22 to 2222 on all hosts last weekend";
        let retirements = [Retirement {
            at: 1,
            by: replacement(statement).expect("a replacement"),
            statement: statement.to_string(),
        }];
        let mut entries = vec![
            entry(
                "Inventory is `inventories/home/hosts.yml`; all hosts use SSH on port 22.",
                0,
            ),
            entry("SSH listens on port 22", 0),
            entry(
                "`ansible all -m ping` failed (exit 4: edge01 port 22: Connection refused); `ansible all -m ping -e ansible_port=2200` worked instead",
                0,
            ),
            entry(statement, 1),
            entry("port 22 is open on the bastion", 2),
        ];
        retire(&mut entries, &retirements, &|t: &Tallied| {
            t.members[0] as i64
        });
        let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Inventory is `inventories/home/hosts.yml`.",
                statement,
                "port 22 is open on the bastion"
            ]
        );
    }

    #[test]
    fn a_flag_given_another_value_later_replaces_the_command() {
        let works = |command: &str, session: usize| Tallied {
            text: format!("`{command}` works in zigsnap (build)"),
            members: vec![session],
        };
        let mut knowledge = vec![
            works(
                "zig build -Dtarget=arm-linux-musleabihf -Doptimize=ReleaseSafe",
                0,
            ),
            works(
                "zig build -Dtarget=aarch64-linux-musl -Doptimize=ReleaseSafe",
                1,
            ),
            works("ansible-playbook -i hosts.ini site.yml", 0),
            works("ansible-playbook -i inventories/home/hosts.yml site.yml", 1),
            works("zig build test", 0),
            works("zig build itest", 1),
        ];
        let time = |t: &Tallied| t.members[0] as i64;
        retire_changed_flags(&mut knowledge, &time, &time);
        let kept: Vec<&str> = knowledge.iter().map(|k| k.text.as_str()).collect();
        assert_eq!(
            kept,
            [
                "`zig build -Dtarget=aarch64-linux-musl -Doptimize=ReleaseSafe` works in zigsnap (build)",
                "`ansible-playbook -i inventories/home/hosts.yml site.yml` works in zigsnap (build)",
                "`zig build test` works in zigsnap (build)",
                "`zig build itest` works in zigsnap (build)",
            ]
        );
    }

    #[test]
    fn only_a_plain_retirement_spares_runs_through_a_runner() {
        let plain =
            replacement("it's always `uv run pytest` here, plain pytest doesn't see the package")
                .expect("a replacement");
        assert!(plain.plain);
        assert!(runs_plain_old("uv run pytest -q", &plain));
        assert!(!runs_plain_old("pytest -q", &plain));
        let dropped = replacement("we dropped jest last week").expect("a replacement");
        assert!(!dropped.plain);
        assert!(!runs_plain_old("pnpm jest", &dropped));
    }

    #[test]
    fn bare_project_tasks_are_knowledge_from_one_session() {
        assert!(names_a_bare_task("`make sqlgen` works in tidewater"));
        assert!(names_a_bare_task(
            "`./gradlew openApiGenerate` works in railyard"
        ));
        assert!(!names_a_bare_task(
            "`poetry run airflow dags backfill gauge_ingest -s 2026-10-01 -y` works in tidewater"
        ));
        assert!(!names_a_bare_task("`herb export --dwc` works in herbarium"));
        assert!(!names_a_bare_task(
            "`mix ecto.gen.migration add_last_seen_at_to_buoys` works in tidepool"
        ));
    }

    #[test]
    fn a_newer_rule_naming_another_command_of_the_tool_retires_the_old_one() {
        let entry = |text: &str, members: Vec<usize>| Tallied {
            text: text.to_string(),
            members,
        };
        let mut memory = ProjectMemory {
            preferences: vec![entry(
                "we moved to CMakePresets — use `cmake --preset dev` / `ctest --preset dev`",
                vec![2],
            )],
            knowledge: vec![
                entry(
                    "`ctest --test-dir build` works in lumen (tests)",
                    vec![0, 1],
                ),
                entry("`ctest --preset dev` works in lumen (tests)", vec![2]),
                entry(
                    "`clang-format -i src/*.cpp` works in lumen (format)",
                    vec![0],
                ),
            ],
            ..ProjectMemory::default()
        };
        let newest = |e: &Tallied| *e.members.iter().max().unwrap_or(&0) as i64;
        retire_by_named_commands(&mut memory, &newest);
        let kept: Vec<&str> = memory.knowledge.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            kept,
            [
                "`ctest --preset dev` works in lumen (tests)",
                "`clang-format -i src/*.cpp` works in lumen (format)",
            ]
        );
    }

    #[test]
    fn a_one_off_variation_of_a_recurring_command_goes() {
        let entry = |text: &str, members: Vec<usize>| Tallied {
            text: text.to_string(),
            members,
        };
        let mut knowledge = vec![
            entry(
                "`mix test --exclude slow` works in tidepool (tests)",
                vec![0, 1, 2],
            ),
            entry(
                "`mix test --exclude slow --slowest 5` works in tidepool (tests)",
                vec![3],
            ),
            entry("`mix test` works in tidepool (tests)", vec![0]),
            entry("`mix credo --strict` works in tidepool (lint)", vec![1]),
        ];
        drop_one_off_variations(&mut knowledge);
        let kept: Vec<&str> = knowledge.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            kept,
            [
                "`mix test --exclude slow` works in tidepool (tests)",
                "`mix test` works in tidepool (tests)",
                "`mix credo --strict` works in tidepool (lint)",
            ]
        );
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
    fn a_rival_tool_named_later_replaces_the_older_one() {
        use crate::backends::heuristic::digest::{Digest, tests::output};
        let raw = |pref: &str, command: &str| {
            format!(
                "Preference signals:\n- {pref}\nReusable knowledge:\n- `{command}` works in shop (tests)\n"
            )
        };
        let sel = [
            output(
                "t1",
                Some("/w/shop"),
                1_000,
                &raw("we use yarn for everything here", "yarn test"),
            ),
            output(
                "t2",
                Some("/w/shop"),
                2_000,
                &raw(
                    "pnpm only please, it's the package manager here",
                    "pnpm test",
                ),
            ),
        ];
        let d = Digest::build(&sel, &[]);
        let shop = &d.current.projects[0];
        let texts: Vec<&str> = shop
            .preferences
            .iter()
            .chain(&shop.knowledge)
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(
            texts,
            [
                "pnpm only please, it's the package manager here",
                "`pnpm test` works in shop (tests)"
            ]
        );
    }

    #[test]
    fn a_rule_that_states_a_change_says_which_value_is_old() {
        let mut entries: Vec<Tallied> = [
            "switch formatter from alejandra to nixfmt-rfc-style, RFC style is the official one now",
            "Could you please move all our routes from `useLoaderData` to `loaderData` from `Route.ComponentProps`?",
            "we use biome instead of eslint now",
            "always run `just fmt` before committing",
            "we're dropping mypy, pyright from now on (`uv run pyright`)",
        ]
        .iter()
        .map(|t| Tallied {
            text: t.to_string(),
            members: vec![0],
        })
        .collect();
        mark_replaced(&mut entries);
        let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "switch formatter from alejandra to nixfmt-rfc-style, RFC style is the official one now (`alejandra` no longer used).",
                "Could you please move all our routes from `useLoaderData` to `loaderData` from `Route.ComponentProps`? (`useLoaderData` no longer used).",
                "we use biome instead of eslint now",
                "always run `just fmt` before committing",
                "we're dropping mypy, pyright from now on (`uv run pyright`) (`mypy` no longer used).",
            ]
        );
    }

    #[test]
    fn facts_name_their_subjects() {
        // A version said in passing, and a port a rule moves.
        assert!(
            fact_subjects("Understood: dev server on 5174, Node 18.20.4 from .nvmrc")
                .contains(&"reports node".to_string())
        );
        assert_eq!(
            fact_subjects("python is 3.12.7 now (.python-version)"),
            fact_subjects("`cat .python-version` reports 3.11.9")
        );
        // A required version retires what a pin file said before.
        assert!(
            fact_subjects("the project requires java 21.0.5-tem (`sdk install java 21.0.5-tem`)")
                .iter()
                .any(|s| fact_subjects("JDK: `.sdkmanrc` pins Java 17 (17.0.12-tem)").contains(s))
        );
        assert_eq!(
            fact_subjects("after the gateway change the api moved to 8088."),
            fact_subjects("api listens on 8080 (see cmd/relay/main.go)")
        );
        // The dev site is the dev server.
        assert!(
            fact_subjects("Moved the dev site to port 8890 and tests to 8891 in `.wp-env.json`.")
                .contains(&"port of dev server".to_string())
        );
        // "now listens on" and "is up on": the dev server's port either way.
        assert_eq!(
            fact_subjects("The dev server now listens on port 4040 (`mist.port(4040)`)."),
            fact_subjects("Server is up on http://127.0.0.1:8000.")
        );
        // A pin file and the tool itself report the same version.
        assert_eq!(
            fact_subjects("`cat .nvmrc` reports 18.20.4"),
            fact_subjects("`node --version` reports v20.18.1")
        );
        assert_eq!(
            fact_subjects("`cat .python-version` reports 3.11.9"),
            fact_subjects("`python3 --version` reports Python 3.12.7")
        );
        assert_eq!(
            fact_subjects("`pnpm dev` serves on localhost:4100"),
            ["serves on localhost:4100", "port of dev server"]
        );
        assert_eq!(
            fact_subjects(
                "`nx reset` cleared the cache; after that `nx serve portal` comes up on http://localhost:4200/."
            ),
            ["port of `nx serve portal`"]
        );
        // A framework's server is the dev server, however its move is said.
        let phoenix = fact_subjects("Postgres is on port 5433, Phoenix on 4000.");
        assert!(
            phoenix.contains(&"port of dev server".to_string()),
            "{phoenix:?}"
        );
        assert!(
            fact_subjects("`mix phx.server` serves on localhost:4050")
                .contains(&"port of dev server".to_string())
        );
        assert_eq!(
            fact_subjects("moved the dev server to port 4050 — update config"),
            ["port of dev server"]
        );
        assert_eq!(
            fact_subjects("heads up, i remapped redis in docker-compose to 6380"),
            fact_subjects("Redis is on 6379 and is the Celery broker (`LDG_CELERY_BROKER_URL`).")
        );
        // "Server is up at …" and "Dev server runs on … now": one server.
        assert_eq!(
            fact_subjects("Server is up at http://127.0.0.1:8080 (`/health` reports db ok)."),
            fact_subjects("Dev server runs on http://127.0.0.1:8090 now")
        );
        // "the dev server", "the site", `bun run dev`: one server.
        assert_eq!(
            fact_subjects("dev server comes up on 3000"),
            fact_subjects("`timeout 20 bun run dev` serves on localhost:3210")[1..]
        );
        assert_eq!(
            fact_subjects("the site is up on http://localhost:3000"),
            ["port of dev server"]
        );
        // The same server whatever its runner and port flag.
        assert_eq!(
            fact_subjects("`yarn nx serve portal --port 4300` serves on localhost:4300")[1],
            fact_subjects("`nx serve portal` comes up on http://localhost:4200/.")[0]
        );
        assert_eq!(
            fact_subjects("the project requires node >=20"),
            ["requires node", "reports node"]
        );
        assert_eq!(
            fact_subjects("The dev server is up via `deno task dev` at http://localhost:8000/."),
            ["port of `deno task dev`"]
        );
        assert_eq!(fact_subjects("the api runs on port 8081"), ["port of api"]);
        assert_eq!(
            fact_subjects("web runs on :3000, admin on :3200."),
            ["port of web", "port of admin"]
        );
        assert!(fact_subjects("it runs on 8080").is_empty());
        // A backend and a frontend, or two databases, are different servers.
        assert_ne!(
            fact_subjects("the server runs on 8000"),
            fact_subjects("frontend runs on 5173")
        );
        assert_ne!(
            fact_subjects("staging db is on 5433"),
            fact_subjects("db is on 5432")
        );
        assert!(fact_subjects("`make up` starts localhost:3000 and localhost:3001").is_empty());
    }
}
