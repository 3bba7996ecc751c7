//! The newest value wins: what a later statement or a later habit replaced.
//!
//! A statement such as "we switched from black to `ruff format`", "use pnpm,
//! not npm" or "we no longer use Jest" names an old value; a command family
//! (`npm`, `make`, `uv`) that stopped being used for a role (tests, lint, …)
//! once another one took over is replaced too. Both only reach back in time:
//! what a session said or ran after the replacement stays.

use super::shell::program_words;
use super::signals::is_stop_word;
use regex::Regex;
use std::sync::LazyLock;

/// A tool or command in a statement: a code span or one word.
const TOOL: &str = r"(`[^`]+`|[A-Za-z0-9][\w.+@/:-]*[\w+@/-]|[A-Za-z0-9])";

/// "X, not Y" shapes: (new, old).
static NEW_NOT_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:use|using|prefer|run(?: \w+)? with|switch(?:ed)? to|moved to|migrated to|go with)\s+{TOOL}(?:\s+\w+){{0,4}}?\s*,?\s+(?:and\s+)?(?:not|never|instead of|rather than|over)\s+{COMMAND}"
    ))
    .expect("valid regex")
});

/// "from Y to X" shapes: (old, new).
static FROM_OLD_TO_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:switch(?:ed|ing)?|move[ds]?|moving|migrat(?:e|ed|ing)|chang(?:e|ed|ing)|went|gone|go(?:ing)?)\s+(?:(?:all|the|our|my)\s+)?(?:[\w-]+\s+){{0,3}}?(?:over\s+)?from\s+{TOOL}\s+to\s+{TOOL}"
    ))
    .expect("valid regex")
});

/// "we moved ssh from port 22 to 2222": (old, new), the old one with its
/// word (`port 22`: a bare `22` is in dates and versions too). A verb of
/// change comes first: "nginx redirects from port 80 to 443" moves nothing.
static FROM_PORT_TO_PORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:mov|switch|migrat|chang)\w*\s+(?:[\w-]+\s+){0,3}?from\s+(port\s+:?\d{2,5})\s+to\s+(?:port\s+)?:?(\d{2,5})\b")
        .expect("valid regex")
});

/// "we're replacing php-cs-fixer with pint", "moving off poetry to uv":
/// (old, new).
static REPLACING_WITH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:replac(?:e|ed|ing)|swap(?:ped|ping)?(?: out)?)\s+(?:the\s+|our\s+)?{TOOL}\s+(?:with|for|by)\s+{TOOL}|\b(?:mov(?:e|ed|ing)|migrat(?:e|ed|ing)|switch(?:ed|ing)?)\s+(?:away\s+)?(?:off(?:\s+of)?|away from)\s+{TOOL}\s+(?:to|onto)\s+{TOOL}"
    ))
    .expect("valid regex")
});

/// "after this nobody should ever need pod install": the old command.
static NOBODY_NEEDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:nobody|no one)\s+(?:should\s+|will\s+)?(?:ever\s+)?(?:again\s+)?(?:needs?|runs?|uses?|types?)\s+(`[^`]+`|[a-z][\w.+-]*\s+[a-z][\w:-]*)")
        .expect("valid regex")
});

/// "bin/run-local.sh got replaced by `make local-run`": (old, new).
static REPLACED_BY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i){TOOL}\s+(?:got|was|were|has been|have been|is|are)\s+replaced\s+(?:by|with)\s+{TOOL}"
    ))
    .expect("valid regex")
});

/// "X instead of Y" anywhere: (new, old).
static INSTEAD_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i){TOOL}\s+(?:now\s+)?instead of\s+{COMMAND}")).expect("valid regex")
});

/// A command of up to three words after "instead of" / "not"
/// (`bundle exec rspec`), trimmed of trailing plain words afterwards.
const COMMAND: &str = r"(`[^`]+`|[A-Za-z0-9][\w.+@/-]*(?:\s+[a-z][\w.:+@/-]*){0,2})";

/// "no longer use Y", "dropped Y", "we moved off Y": (old).
static OLD_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:no longer (?:use|run|need|runs on|listens on|lives (?:in|at|under)|uses)|stopped using|no more|don'?t use|dropped|ditched|retired|got rid of|getting rid of|replaced|removing|dropping|(?:move|moved|moving|migrated|migrating|switched|switching)(?: (?:the |our )?[\w-]+(?: [\w-]+)?)? (?:off|away from))\s+(?:the |our |that )?(?:plain |vanilla |bare |stock )?((?-i:[A-Z][\w.+-]*\s+[A-Z][\w-]+)|{TOOL}(?:\s+[a-z][a-z-]{{2,}}s\b)?)|\b(?:we'?re|we are|i'?m|i am) (?:off|done with)\s+(`[^`]+`|[A-Za-z0-9]\w*[.\-/][\w.\-/]*)|\bnot\s+(`[^`]+`)\s+any ?more\b"
    ))
    .expect("valid regex")
});

/// "we replaced the flutter drive setup with patrol": the old value is
/// "flutter drive", not every flutter command (old).
static OLD_SETUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:replaced|dropped|ditched|retired|got rid of|removed|killed|stopped using|no longer use)\s+(?:the |our |that |this )?(?:old\s+)?({TOOL}(?:\s+[a-z][\w-]*)?)\s+(?:setup|config|configuration|way|workflow|flow|approach|pipeline|stack|integration|thing|stuff|tooling)\b"
    ))
    .expect("valid regex")
});

/// "don't ever run pod install again": (old).
static NEVER_AGAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:don'?t|dont|do not|never)\s+(?:ever\s+)?(?:run|use)\s+(`[^`]+`|[A-Za-z0-9][\w.+@/-]*(?:\s+[a-z][\w:-]*)?)\s+(?:again|any ?more)\b")
        .expect("valid regex")
});

/// "churn-py310 is deleted", "svc-ansible is deprecated for us": (old).
static OLD_GONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i){TOOL}\s+(?:is|are|was|were|got|has been)\s+(?:deleted|gone|removed|deprecated|retired|dead|dropped|history)\b|({TOOL}(?:\s+v?\d[\w.]*)?)\s+(?:\w+\s+)?(?:goes|go|went|is going|will go) away\b|{TOOL}(?:\s+(?:preset|target|script|task|job|command|env|environment|profile|service|flag|option|image|branch|alias|recipe|stage|container|database|db|variable|file|folder|directory))?\s+(?:no longer exists|(?:does not|doesn'?t) exist any ?more|is no more|is not a thing any ?more|(?:isn'?t|is not|aren'?t|are not) needed any ?more|is no longer needed)"
    ))
    .expect("valid regex")
});

/// "the old cmake -B build way is gone", "the old s3://agri-ml-dvc bucket is
/// read-only now": (old).
static THE_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bthe old (`[^`]+`|[\w./:@-]+(?: [\w./:@-]+){0,3}?)(?: (?:way|setup|approach|command|flow|script|workflow|style|process|one|bucket|server|port|url|endpoint|path|config|file|remote|topic|queue|table|index|service|api|cluster|database|db|schema|channel|stream|inventory|image|host|box))?\s+(?:is|are|was|were|got|has been)\s+(?:gone|deleted|removed|dead|retired|deprecated|read-only|no longer)\b")
        .expect("valid regex")
});

/// "plain cargo test doesnt pick up the setup scripts anymore": (old).
static PLAIN_FAILS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\bplain\s+{COMMAND}\s+(?:doesn'?t|doesnt|does not|won'?t|no longer|isn'?t)\b"
    ))
    .expect("valid regex")
});

/// "the env is churn-py311 now": (new).
static NOW_IS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?:\b(?:is|are)|'s)\s+{TOOL}\s+now\b")).expect("valid regex")
});

/// "bumped postgres to 16 in compose": a tool's new version, (tool, version).
static BUMPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:bumped|upgraded|updated)\s+([A-Za-z][\w.+-]*)\s+to\s+v?(\d+(?:\.\d+)*)\b")
        .expect("valid regex")
});

/// The tool a statement bumps and its new version ("bumped postgres to 16"):
/// a named tool, not "it" or "version" (a release's own number is no tool's).
pub(crate) fn bumped(statement: &str) -> Option<(String, String)> {
    let c = BUMPED.captures(statement)?;
    let tool = c[1].to_ascii_lowercase();
    let not_a_tool = is_stop_word(&tool)
        || NOT_TOOLS.contains(&tool.as_str())
        || [
            "version",
            "it",
            "them",
            "deps",
            "dependencies",
            "everything",
            "all",
        ]
        .contains(&tool.as_str());
    (!not_a_tool).then(|| (c[1].to_string(), c[2].to_string()))
}

/// "we moved to C++20", "switched to uv": (new).
static NEW_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:moved|moving|switched|switching|migrated|migrating|upgraded|bumped|changed|went|are|we're|cut over|cutover) (?:it |them |over |up )?to\s+(?:the\s+)?({TOOL}(?:\s+v?\d[\w.]*)?)"
    ))
    .expect("valid regex")
});

/// A tool with a version: `C++20`, `node 20`, `python 3.12`, `go1.23`.
static VERSIONED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z][^\s]*?[^\d.\s]|[A-Za-z][\w+#-]* )v?(\d+(?:\.\d+)*)$")
        .expect("valid regex")
});

/// A setting and its value: `ingressClassName: nginx`, `CMAKE_CXX_STANDARD
/// is 20`, `DJANGO_SETTINGS_MODULE=billing.settings.local`.
static SETTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b\s*(?:[:=]|\bis\b)?\s*[`'"]?([\w./-]+)"#)
        .expect("valid regex")
});

/// Plain words that end a command named in prose ("npm anymore").
const PLAIN_WORDS: &[&str] = &[
    "anymore",
    "anywhere",
    "everywhere",
    "either",
    "please",
    "pls",
    "again",
    "directly",
    "last",
    "week",
    "yesterday",
    "today",
    "since",
];

/// Words a tool's name never starts with ("retired for deliverables").
const PREPOSITIONS: &[&str] = &[
    "for", "in", "on", "at", "to", "from", "with", "by", "of", "as", "about", "into",
];

/// Words that are no tool in these shapes.
const NOT_TOOLS: &[&str] = &[
    "the",
    "a",
    "an",
    "it",
    "that",
    "this",
    "them",
    "those",
    "these",
    "our",
    "my",
    "your",
    "their",
    "its",
    "what",
    "something",
    "anything",
    "support",
    "using",
    "use",
    "now",
];

/// A value a statement retires and the one it puts in its place, as far as
/// it names them (at least one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// What replaces the old value.
    pub new: Option<String>,
    /// What is no longer current.
    pub old: Option<String>,
    /// Only the bare command is retired ("plain cargo test doesnt …"), not
    /// runs of it through a task runner (`cargo nextest`, `uv run pytest`).
    pub plain: bool,
}

/// The replacement a statement makes, if it makes one.
pub(crate) fn replacement(statement: &str) -> Option<Replacement> {
    let tool = |m: Option<regex::Match<'_>>| -> Option<String> {
        let m = m?;
        let quoted = m.as_str().starts_with('`');
        let t = m.as_str().trim_matches('`').trim();
        let mut words: Vec<&str> = t.split_whitespace().collect();
        while words.len() > 1
            && words.last().is_some_and(|w| {
                let w = w.trim_end_matches(['.', ',', ')']).to_ascii_lowercase();
                is_stop_word(&w) || PLAIN_WORDS.contains(&w.as_str())
            })
        {
            words.pop();
        }
        // "retired for deliverables" names no tool; `just test` does.
        let first = words.first()?.to_ascii_lowercase();
        let t = words.join(" ");
        let t = t.trim_end_matches(['.', ',', ')']);
        let lower = t.to_ascii_lowercase();
        let no_tool = |w: &str| NOT_TOOLS.contains(&w) || is_stop_word(w);
        let leads_nothing = |w: &str| NOT_TOOLS.contains(&w) || PREPOSITIONS.contains(&w);
        (!t.is_empty() && !no_tool(&lower) && (quoted || !leads_nothing(&first)))
            .then(|| t.to_string())
    };
    if let Some(c) = FROM_PORT_TO_PORT.captures(statement) {
        return Some(Replacement {
            new: Some(c[2].to_string()),
            old: Some(c[1].to_string()),
            plain: false,
        });
    }
    if let Some(c) = FROM_OLD_TO_NEW
        .captures(statement)
        .or_else(|| REPLACED_BY.captures(statement))
        && let Some(old) = tool(c.get(1))
    {
        return Some(Replacement {
            new: tool(c.get(2)),
            old: Some(old),
            plain: false,
        });
    }
    if let Some(c) = REPLACING_WITH.captures(statement)
        && let Some(old) = tool(c.get(1).or(c.get(3)))
    {
        return Some(Replacement {
            new: tool(c.get(2).or(c.get(4))),
            old: Some(old),
            plain: false,
        });
    }
    for re in [&*NEW_NOT_OLD, &*INSTEAD_OF] {
        if let Some(c) = re.captures(statement)
            && let Some(old) = tool(c.get(2))
        {
            return Some(Replacement {
                new: tool(c.get(1)),
                old: Some(old),
                plain: false,
            });
        }
    }
    let old = OLD_SETUP
        .captures(statement)
        .and_then(|c| tool(c.get(1)))
        .or_else(|| {
            OLD_ONLY
                .captures(statement)
                .filter(|c| !upstream_change(statement, c.get(0).map_or(0, |m| m.start())))
                .and_then(|c| tool(c.get(1).or(c.get(3)).or(c.get(4))))
        })
        .or_else(|| THE_OLD.captures(statement).and_then(|c| tool(c.get(1))));
    let plain_old = match old {
        Some(_) => None,
        None => PLAIN_FAILS.captures(statement).and_then(|c| tool(c.get(1))),
    };
    let plain = plain_old.is_some();
    let old = old
        .or(plain_old)
        .or_else(|| NEVER_AGAIN.captures(statement).and_then(|c| tool(c.get(1))))
        .or_else(|| {
            NOBODY_NEEDS
                .captures(statement)
                .and_then(|c| tool(c.get(1)))
        })
        .or_else(|| {
            OLD_GONE
                .captures(statement)
                .and_then(|c| tool(c.get(1).or(c.get(2)).or(c.get(3)).or(c.get(4))))
        });
    let new = NEW_ONLY
        .captures(statement)
        .and_then(|c| tool(c.get(1)))
        .or_else(|| NOW_IS.captures(statement).and_then(|c| tool(c.get(1))))
        .or_else(|| bumped(statement).map(|(tool, version)| format!("{tool} {version}")));
    (old.is_some() || new.is_some())
        .then(|| with_subcommands(statement, Replacement { new, old, plain }))
}

/// "we switched to lucky dev, lucky watch is gone": when the old value is
/// a subcommand of the new one's program (`lucky` + `watch`), the change is
/// between two commands of one tool, `lucky watch` to `lucky dev`; the
/// program alone is neither.
fn with_subcommands(statement: &str, mut r: Replacement) -> Replacement {
    let (Some(new), Some(old)) = (r.new.as_deref(), r.old.as_deref()) else {
        return r;
    };
    if new.contains(' ') || old.contains(' ') || !mentions(statement, &format!("{new} {old}")) {
        return r;
    }
    let subcommand = Regex::new(&format!(
        r"(?i)\bto\s+{}\s+([a-z][\w:-]*)",
        regex::escape(new)
    ))
    .ok()
    .and_then(|re| re.captures(statement).map(|c| c[1].to_string()))
    .filter(|w| !is_stop_word(&w.to_ascii_lowercase()) && !PREPOSITIONS.contains(&w.as_str()));
    let program = new.to_string();
    r.old = Some(format!("{program} {old}"));
    if let Some(sub) = subcommand {
        r.new = Some(format!("{program} {sub}"));
    }
    r
}

/// Every replacement a statement makes: "src/train.py is gone — always
/// `dvc repro train` now … and we dropped MLflow" retires both, one per
/// clause.
pub(crate) fn replacements(statement: &str) -> Vec<Replacement> {
    let mut out: Vec<Replacement> = replacement(statement).into_iter().collect();
    for clause in statement
        .split([';', '—', '–', '(', ')'])
        .flat_map(|c| c.split(". "))
    {
        if let Some(r) = replacement(clause) {
            push_unless_retired(&mut out, r);
        }
    }
    // "we dropped black and isort": the second one is retired too, and
    // "bin/phpunit and the phpunit-bridge are gone" the first one.
    let named_with: Vec<Replacement> = out
        .iter()
        .flat_map(|r| {
            let Some(old) = r.old.as_deref() else {
                return Vec::new();
            };
            let old = regex::escape(old);
            [
                format!(r"(?i)\b{old}\s+(?:and|&|\+)\s+(`[^`]+`|[\w.+-]+)"),
                format!(r"(?i)(`[^`]+`|[\w./+-]+)\s+(?:and|&|\+)\s+(?:the\s+)?{old}\b"),
            ]
            .iter()
            .filter_map(|pattern| {
                let also = Regex::new(pattern)
                    .ok()?
                    .captures(statement)?
                    .get(1)?
                    .as_str()
                    .trim_matches('`')
                    .to_string();
                (!is_stop_word(&also.to_ascii_lowercase())).then(|| Replacement {
                    new: r.new.clone(),
                    old: Some(also),
                    plain: r.plain,
                })
            })
            .collect()
        })
        .collect();
    for r in named_with {
        push_unless_retired(&mut out, r);
    }
    out
}

/// Adds `r` unless a replacement already retires the same old value.
fn push_unless_retired(out: &mut Vec<Replacement>, r: Replacement) {
    if !out.iter().any(|o| o.old == r.old) {
        out.push(r);
    }
}

/// Whether the verb at `at` tells what a release did, not what the user
/// did: "2.17 dropped python 3.7 targets", "v8 dropped support for …".
fn upstream_change(statement: &str, at: usize) -> bool {
    let subject = statement[..at].split_whitespace().next_back().unwrap_or("");
    let subject = subject.trim_start_matches(['v', 'V']);
    subject.starts_with(|c: char| c.is_ascii_digit())
        || statement[at..]
            .split_whitespace()
            .nth(1)
            .is_some_and(|w| w.eq_ignore_ascii_case("support"))
}

/// Whether `text` still states a value `r` retired: it names the old value
/// (a long one also as the start of a word: `ktlint` in `ktlintFormat`) or
/// another version of the new one (`C++17` after "we moved to C++20"), and
/// not the new value itself.
pub(crate) fn states_retired(text: &str, r: &Replacement) -> bool {
    if r.new.as_deref().is_some_and(|n| mentions(text, n)) {
        return false;
    }
    let old = r.old.as_deref().is_some_and(|o| names_old(text, o));
    old || r.new.as_deref().is_some_and(|n| other_version(text, n))
}

/// Whether `text` names a retired value: as a word, or (five letters or
/// more) as the start of one (`ktlint` in `ktlintFormat`).
pub(crate) fn names_old(text: &str, old: &str) -> bool {
    mentions(text, old) || (old.len() >= 5 && starts_a_word(text, old))
}

/// Whether `word` begins a word of `text` (case-insensitive).
fn starts_a_word(text: &str, word: &str) -> bool {
    let (text, word) = (text.to_lowercase(), word.to_lowercase());
    text.match_indices(&word).any(|(i, _)| {
        !text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether `text` names `versioned` (`C++20`, `churn-py311`) with another
/// version.
pub(crate) fn other_version(text: &str, versioned: &str) -> bool {
    let Some(c) = VERSIONED.captures(versioned.trim()) else {
        return false;
    };
    let (stem, version) = (&c[1], &c[2]);
    let Ok(re) = Regex::new(&format!(
        r"(?i)(?:^|[^\w+#]){}[\s:-]?v?(\d+(?:\.\d+)*)",
        regex::escape(stem.trim_end())
    )) else {
        return false;
    };
    re.captures_iter(text).any(|m| &m[1] != version)
}

/// The settings a text names, with their values.
pub(crate) fn settings(text: &str) -> Vec<(String, String)> {
    SETTING
        .captures_iter(text)
        .map(|c| (c[1].to_string(), c[2].to_ascii_lowercase()))
        .collect()
}

/// Whether `text` mentions `word` as a whole word or command (case-insensitive;
/// "npm" is not in "pnpm").
pub(crate) fn mentions(text: &str, word: &str) -> bool {
    let (text, word) = (text.to_lowercase(), word.to_lowercase());
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(&word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Tools that do the same job: a newer rule or command naming one of them
/// replaces an older one naming another (yarn → pnpm, jest → vitest). Names
/// that are also English words (make, just, task, requests) are left out.
const RIVALS: &[&[&str]] = &[
    &["npm", "yarn", "pnpm", "bun"],
    &["pip", "poetry", "uv", "pipenv", "pdm", "conda", "rye"],
    &["jest", "vitest", "mocha", "ava", "jasmine"],
    &["black", "yapf", "autopep8", "ruff format"],
    &["flake8", "pylint", "ruff check"],
    &["eslint", "biome", "oxlint"],
    &["prettier", "biome format", "dprint"],
    &["nvm", "fnm", "volta", "asdf", "mise"],
    &["docker", "podman"],
    &["rubocop", "standardrb"],
    &["webpack", "vite", "esbuild", "rollup", "turbopack"],
    &["flyway", "liquibase", "atlas"],
    &["tfsec", "trivy", "checkov"],
    &["netlify", "vercel", "wrangler", "cloudflare pages"],
    &["ktlint", "spotless", "detekt"],
    &["testify", "go-cmp"],
    &["golangci-lint", "staticcheck", "revive", "golint"],
    &["vuex", "pinia"],
    &["redux", "zustand", "mobx", "jotai", "recoil"],
    &["cargo test", "cargo nextest"],
    &["cargo watch", "bacon"],
    &["isort", "ruff format", "ruff check", "ruff"],
    &["playwright", "cypress"],
    &["zap", "zerolog", "logrus", "slog"],
];

/// The rival tools a text names, as (group, tool).
pub(crate) fn rivals_named(text: &str) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (g, group) in RIVALS.iter().enumerate() {
        for tool in group.iter() {
            if mentions(text, tool) {
                out.push((g, *tool));
            }
        }
    }
    out
}

/// The family of a command: its program, after environment assignments and
/// wrappers (`uv run pytest` → `uv`, `./node_modules/.bin/jest` → `jest`,
/// `timeout 20 npm run dev` → `npm`).
pub(crate) fn family(command: &str) -> Option<String> {
    let word = program_words(command).into_iter().next()?;
    let name = word.rsplit('/').next().unwrap_or(&word);
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}

/// When a family was used for one role: the sessions, first and last use.
#[derive(Debug, Clone)]
pub(crate) struct Usage {
    /// The command family.
    pub family: String,
    /// Sessions (indices) that used it.
    pub sessions: Vec<usize>,
    /// First use (session time).
    pub first: i64,
    /// Last use (session time).
    pub last: i64,
}

/// The families that a later one replaced: used for the role only before
/// another family's first use, never in a session together with it, and
/// doing the same job (rival tools, or a task runner taking over): a
/// project's unit tests and its browser tests are both "tests" and neither
/// replaces the other.
pub(crate) fn retired_families(usages: &[Usage]) -> Vec<String> {
    usages
        .iter()
        .filter(|old| {
            usages.iter().any(|new| {
                new.family != old.family
                    && new.first > old.last
                    && !new.sessions.iter().any(|s| old.sessions.contains(s))
                    && same_job(&old.family, &new.family)
            })
        })
        .map(|u| u.family.clone())
        .collect()
}

/// Programs that run whatever a project defines (`make lint`, `pnpm
/// test`, `uv run pytest`): one of them can take over any command's job.
const RUNNERS: &[&str] = &[
    "make", "just", "task", "mise", "npm", "pnpm", "yarn", "bun", "npx", "uv", "poetry", "pipenv",
    "pdm", "hatch", "rye", "tox", "nox", "nix", "bazel", "bazelisk", "docker", "podman", "bundle",
];

/// Whether a command runs `old` through a task runner (`uv run pytest -q`
/// for a retired plain `pytest`): the runner is what replaced it.
pub(crate) fn wraps_in_runner(command: &str, old: &str) -> bool {
    let mut words = command.split_whitespace();
    let first = words.next().unwrap_or("");
    let old_first = old.split_whitespace().next().unwrap_or("");
    first != old_first && RUNNERS.contains(&first) && names_old(command, old)
}

/// Whether two command families do the same job: rivals, or a runner and
/// anything.
fn same_job(a: &str, b: &str) -> bool {
    let rivals = RIVALS
        .iter()
        .any(|group| group.contains(&a) && group.contains(&b));
    rivals || RUNNERS.contains(&a) || RUNNERS.contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(new: Option<&str>, old: &str) -> Option<Replacement> {
        Some(Replacement {
            new: new.map(String::from),
            old: Some(old.into()),
            plain: false,
        })
    }

    #[test]
    fn a_change_between_two_commands_of_one_tool_names_both() {
        assert_eq!(
            replacement("yeah we switched to lucky dev with this upgrade, lucky watch is gone"),
            rep(Some("lucky dev"), "lucky watch")
        );
        assert_eq!(
            replacement(
                "`uv run dg dev -p 3070` serves the UI on port 3070 as before, so `dagster dev` isn't needed anymore."
            ),
            Some(Replacement {
                new: None,
                old: Some("dagster dev".into()),
                plain: false
            })
        );
        // A tool bumped to a new version retires its other versions.
        let bumped = replacement(
            "bumped postgres to 16 in compose (postgres:16-alpine), old volume is incompatible",
        )
        .unwrap();
        assert_eq!(bumped.new.as_deref(), Some("postgres 16"));
        assert!(states_retired(
            "DB is up: `postgres:15-alpine` from docker-compose, published on `localhost:5433`.",
            &bumped
        ));
        // Two tools: unchanged.
        assert_eq!(
            replacement("we switched to pnpm, npm is gone"),
            rep(Some("pnpm"), "npm")
        );
    }

    #[test]
    fn statements_name_what_they_replace() {
        assert_eq!(
            replacement("We use pnpm here, not npm."),
            rep(Some("pnpm"), "npm")
        );
        assert_eq!(
            replacement("we switched from black to `ruff format` last week"),
            rep(Some("ruff format"), "black")
        );
        assert_eq!(
            replacement("we're moving validation from zod to valibot (bundle size)"),
            rep(Some("valibot"), "zod")
        );
        assert_eq!(
            replacement("we're replacing php-cs-fixer with pint. remove its config"),
            rep(Some("pint"), "php-cs-fixer")
        );
        assert_eq!(
            replacement("we're moving off poetry to uv. convert the lock"),
            rep(Some("uv"), "poetry")
        );
        assert_eq!(
            replacement("move the pods to SPM. after this nobody should ever need pod install"),
            rep(None, "pod install")
        );
        assert!(wraps_in_runner("uv run pytest -q", "pytest"));
        assert!(!wraps_in_runner("pytest -q", "pytest"));
        assert!(!wraps_in_runner("uv run ruff check", "pytest"));
        let gone =
            replacements("it's vendor/bin/pest now, bin/phpunit and the phpunit-bridge are gone.");
        assert!(
            gone.iter().any(|r| r.old.as_deref() == Some("bin/phpunit")),
            "{gone:?}"
        );
        // A product's two-word name is retired whole: "Deno Deploy", not "Deno".
        let moved = replacements(
            "staging moved off Deno Deploy onto the hetzner box — deploys are `kamal deploy -d staging` now",
        );
        assert!(
            moved
                .iter()
                .any(|r| r.old.as_deref() == Some("Deno Deploy")),
            "{moved:?}"
        );
        assert!(!moved.iter().any(|r| r.old.as_deref() == Some("Deno")));
        // "plain" says which Mox; the retired value is Mox.
        let mox = replacements("we don't use plain Mox here, it's Hammox everywhere");
        assert!(
            mox.iter().any(|r| r.old.as_deref() == Some("Mox")),
            "{mox:?}"
        );
        assert!(!mox.iter().any(|r| r.old.as_deref() == Some("plain")));
        assert_eq!(
            replacement("we replaced the flutter drive setup with patrol (native dialogs)"),
            rep(None, "flutter drive")
        );
        assert_eq!(
            replacement("SPM only, don't ever run pod install again"),
            rep(None, "pod install")
        );
        assert_eq!(replacement("don't run the full suite"), None);
        assert_eq!(
            replacement("I moved the inventory from hosts.ini to inventories/home/hosts.yml"),
            rep(Some("inventories/home/hosts.yml"), "hosts.ini")
        );
        assert_eq!(
            replacement("run tests with `just test` instead of make test"),
            rep(Some("just test"), "make test")
        );
        assert_eq!(
            replacement(
                "from here on use bin/rspec instead of bundle exec rspec, i added binstubs"
            ),
            rep(Some("bin/rspec"), "bundle exec rspec")
        );
        assert_eq!(
            replacement("we no longer use Jest in this repo"),
            rep(None, "Jest")
        );
        assert_eq!(replacement("we moved off netlify."), rep(None, "netlify"));
        assert_eq!(
            replacement("so we're off electron-builder, it's electron-forge now"),
            rep(Some("electron-forge"), "electron-builder")
        );
        assert_eq!(
            replacement("bin/run-local.sh got replaced by `make local-run DATE=...`"),
            rep(Some("make local-run DATE="), "bin/run-local.sh")
        );
        assert_eq!(replacement("netlify is history"), rep(None, "netlify"));
        let ssh = replacement("we moved ssh from port 22 to 2222 on all hosts last weekend")
            .expect("a replacement");
        assert_eq!(Some(ssh.clone()), rep(Some("2222"), "port 22"));
        assert!(states_retired("all hosts use SSH on port 22.", &ssh));
        assert!(!states_retired("SSH is on port 2222 (was port 22)", &ssh));
        assert!(!states_retired("Ubuntu 22.04 on every host", &ssh));
        assert_eq!(replacement("nginx redirects from port 80 to 443"), None);
        assert_eq!(
            replacement("new rule: no more redux toolkit for new state."),
            rep(None, "redux")
        );
        assert_eq!(replacement("no more than three retries"), None);
        assert_eq!(
            replacement(
                "we cut over to the `dispatch.assignments.v2` topic yesterday, the old `dispatch-assignments` topic is dead."
            ),
            rep(Some("dispatch.assignments.v2"), "dispatch-assignments")
        );
        assert_eq!(
            replacement("the old cmake -B build way is gone, i deleted build/.")
                .and_then(|r| r.old),
            Some("cmake -B build".into())
        );
        assert_eq!(
            replacement("use cargo nextest run from now on (plain cargo test doesnt pick up the setup scripts anymore)")
                .and_then(|r| r.old),
            Some("cargo test".into())
        );
        assert_eq!(
            replacement("and port — i had to move dev server off 4000, it runs on 4010 now")
                .and_then(|r| r.old),
            Some("4000".into())
        );
        assert_eq!(
            replacement("we moved the DVC remote off S3 to our on-prem MinIO.").and_then(|r| r.old),
            Some("S3".into())
        );
        assert_eq!(
            replacement("the iPhone 15 sims went away with Xcode 16.2, use iPhone 16 for tests")
                .and_then(|r| r.old),
            Some("iPhone 15".into())
        );
        assert_eq!(
            replacement("heads up, we stopped using terraform workspaces."),
            rep(None, "terraform workspaces"),
            "the feature, not the tool"
        );
        assert_eq!(
            replacement("we're switching the test db to testcontainers from now on, H2 goes away completely.")
                .and_then(|r| r.old)
                .as_deref(),
            Some("H2")
        );
        assert_eq!(
            replacement("we pin 2.16 in requirements.txt, 2.17 dropped python 3.7 targets"),
            None,
            "a release dropped it, not the user"
        );
        assert_eq!(replacement("pagy 8 dropped support for ruby 3.0"), None);
        assert_eq!(replacement("it's not working anymore"), None);
        assert_eq!(replacement("we're done with review for today"), None);
        assert_eq!(
            replacement("We ditched the html5 channel on itch, it's `beto/mothlight:web` now"),
            rep(Some("beto/mothlight:web"), "html5")
        );
        assert_eq!(
            replacement("so the lint step is that, not `bun run lint` anymore."),
            rep(None, "bun run lint")
        );
        assert_eq!(
            replacement("it's biome now").and_then(|r| r.new).as_deref(),
            Some("biome")
        );
        assert_eq!(
            replacement("We've decided to move from flutter_lints to very_good_analysis."),
            rep(Some("very_good_analysis"), "flutter_lints")
        );
        assert_eq!(
            replacement("we moved to C++20 now"),
            Some(Replacement {
                new: Some("C++20".into()),
                old: None,
                plain: false,
            })
        );
        assert_eq!(replacement("always run cargo fmt"), None);
        assert_eq!(
            replacement("EPSG:4326 is retired for deliverables"),
            rep(None, "EPSG:4326"),
            "the retired value, not the preposition after it"
        );
        assert_eq!(replacement("use the helper instead of it"), None);
        assert_eq!(
            replacement("The `asan` preset no longer exists; it is `dev-asan-ubsan` now."),
            rep(Some("dev-asan-ubsan"), "asan")
        );
        assert_eq!(
            replacement("the mock server no longer runs on 8085 - I moved it to 9091"),
            rep(Some("9091"), "8085")
        );
    }

    #[test]
    fn a_statement_can_retire_several_values() {
        let all = replacements(
            "src/train.py is gone (moved into the package) — always `dvc repro train` now. and we dropped MLflow: tracking is `dvc exp show` now",
        );
        let olds: Vec<&str> = all.iter().filter_map(|r| r.old.as_deref()).collect();
        assert!(olds.contains(&"src/train.py"), "{all:?}");
        assert!(olds.contains(&"MLflow"), "{all:?}");
        let both = replacements("we dropped black and isort — ruff does both now");
        let olds: Vec<&str> = both.iter().filter_map(|r| r.old.as_deref()).collect();
        assert_eq!(olds, ["black", "isort"]);
    }

    #[test]
    fn what_a_replacement_retires() {
        let ktlint = replacement("we dropped ktlint, spotless does formatting now").unwrap();
        assert!(states_retired(
            "we format with ./gradlew ktlintFormat",
            &ktlint
        ));
        let cxx = replacement("we moved to C++20 now").unwrap();
        assert!(states_retired("we target c++17 (old gcc downstream)", &cxx));
        assert!(!states_retired("we target C++20", &cxx));
        assert!(!states_retired("use clang-format", &cxx));
        let env = replacement("we switched to churn-py311 last week").unwrap();
        assert!(states_retired("conda run -n churn-py310 pytest", &env));
        assert_eq!(
            replacement("The env is churn-py311 now; churn-py310 is deleted."),
            Some(Replacement {
                new: Some("churn-py311".into()),
                old: Some("churn-py310".into()),
                plain: false,
            })
        );
        let node = replacement("we moved to node 20").unwrap();
        assert!(states_retired("the project requires node 18", &node));
        assert_eq!(
            settings("ingressClassName: nginx on every ingress"),
            [("ingressClassName".to_string(), "nginx".to_string())]
        );
        assert_eq!(
            settings("CMAKE_CXX_STANDARD is 20"),
            [("CMAKE_CXX_STANDARD".to_string(), "20".to_string())]
        );
    }

    #[test]
    fn rivals_are_tools_for_the_same_job() {
        assert_eq!(rivals_named("we use pnpm now"), [(0, "pnpm")]);
        assert_eq!(rivals_named("make sure you just run the task"), []);
    }

    #[test]
    fn mentions_whole_words_only() {
        assert!(mentions("`npm test` works", "npm"));
        assert!(!mentions("`pnpm test` works", "npm"));
        assert!(mentions("Use Black for formatting", "black"));
        assert!(!mentions("blackbox", "black"));
    }

    #[test]
    fn families_and_retirement() {
        assert_eq!(family("CI=1 uv run pytest -q").as_deref(), Some("uv"));
        assert_eq!(family("timeout 20 npm run dev").as_deref(), Some("npm"));
        assert_eq!(
            family("./node_modules/.bin/jest --ci").as_deref(),
            Some("jest")
        );
        let usage = |family: &str, sessions: &[usize], first, last| Usage {
            family: family.into(),
            sessions: sessions.to_vec(),
            first,
            last,
        };
        let switched = [usage("npm", &[0, 1], 1, 2), usage("pnpm", &[2, 3], 3, 4)];
        assert_eq!(retired_families(&switched), ["npm"]);
        let jest_to_vitest = [usage("jest", &[0], 1, 1), usage("vitest", &[1, 2], 2, 3)];
        assert_eq!(retired_families(&jest_to_vitest), ["jest"]);
        let two_kinds = [
            usage("playwright", &[0], 1, 1),
            usage("vitest", &[1, 2], 2, 3),
        ];
        assert!(
            retired_families(&two_kinds).is_empty(),
            "browser tests and unit tests"
        );
        let together = [usage("cargo", &[0, 2], 1, 3), usage("npm", &[2], 3, 3)];
        assert!(retired_families(&together).is_empty(), "used side by side");
    }
}
