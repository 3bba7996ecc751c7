//! Claim lines: the lines of a memory folder an agent would take as memory,
//! each attributed to a project or to the global scope, and the word-boundary
//! needle match the scorer applies to them.

/// Which file a claim line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `MEMORY.md`.
    Memory,
    /// `memory_summary.md`.
    Summary,
}

/// One claim line.
#[derive(Debug, Clone)]
pub struct Claim {
    pub source: Source,
    /// 1-based line number in its file.
    pub line: usize,
    /// The project (one of the key's cwds) the line belongs to; `None` is global.
    pub project: Option<String>,
    pub text: String,
}

impl Claim {
    /// Whether this line speaks for `project` (a global line speaks for all).
    pub fn covers(&self, project: Option<&str>) -> bool {
        match (&self.project, project) {
            (None, _) | (_, None) => true,
            (Some(mine), Some(theirs)) => mine == theirs,
        }
    }

    /// `MEMORY.md:12` or `memory_summary.md:3`, for reports.
    pub fn location(&self) -> String {
        let file = match self.source {
            Source::Memory => "MEMORY.md",
            Source::Summary => "memory_summary.md",
        };
        format!("{file}:{}", self.line)
    }
}

/// Whether `needle` occurs in `hay`, ignoring case, with no alphanumeric
/// character right before or after it ("npm" is not in "pnpm").
pub fn matches(hay: &str, needle: &str) -> bool {
    let hay = hay.to_lowercase();
    let needle = needle.to_lowercase();
    if needle.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(at) = hay[from..].find(&needle) {
        let start = from + at;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The last path component of a cwd.
pub fn base_name(cwd: &str) -> &str {
    cwd.trim_end_matches('/').rsplit('/').next().unwrap_or(cwd)
}

/// The claim lines of `MEMORY.md`: every non-empty line except block titles
/// (`# `), `## Task ` headings, `scope:` / `applies_to:` lines and the lines of
/// the `### rollout_summary_files` and `### keywords` sections. A line belongs
/// to the `# Task Group: <name>` block it is in when `<name>` is a project.
pub fn memory_claims(text: &str, projects: &[String]) -> Vec<Claim> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    let mut skipping = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(title) = line.strip_prefix("# ") {
            let name = title.strip_prefix("Task Group:").map(str::trim);
            block = name
                .filter(|n| projects.iter().any(|p| p == n))
                .map(str::to_string);
            skipping = false;
            continue;
        }
        if line.starts_with('#') {
            skipping = is_listing_heading(line);
            if skipping || line.starts_with("## Task ") {
                continue;
            }
        } else if skipping {
            continue;
        }
        if line.starts_with("scope:") || line.starts_with("applies_to:") {
            continue;
        }
        out.push(Claim {
            source: Source::Memory,
            line: i + 1,
            project: block.clone(),
            text: line.to_string(),
        });
    }
    out
}

/// `### rollout_summary_files` and `### keywords`: listings, not claims.
fn is_listing_heading(line: &str) -> bool {
    matches!(
        line.trim_start_matches('#').trim(),
        "rollout_summary_files" | "keywords"
    )
}

/// The keywords of `MEMORY.md`: the comma-separated entries of the lines
/// under every `### keywords` heading.
pub fn keywords(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') {
            inside = line.trim_start_matches('#').trim() == "keywords";
            continue;
        }
        if inside {
            let line = line.strip_prefix("- ").unwrap_or(line);
            out.extend(
                line.split(',')
                    .map(|k| k.trim().trim_matches('`').to_string())
                    .filter(|k| !k.is_empty()),
            );
        }
    }
    out
}

/// The claim lines of `memory_summary.md`: the non-heading lines of every
/// `## ` section except `## User Profile` and `## What's in Memory`. A line
/// belongs to the project its section's nearest `### ` heading names (full
/// cwd or last path component), or, when it ends with `(… in <name>)`, to
/// the project called `<name>`; otherwise it is global.
pub fn summary_claims(text: &str, projects: &[String]) -> Vec<Claim> {
    let mut out = Vec::new();
    let mut in_section = false;
    let mut heading: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(title) = line.strip_prefix("## ") {
            let title = title.trim();
            in_section = title != "User Profile" && title != "What's in Memory";
            heading = None;
            continue;
        }
        if let Some(title) = line.strip_prefix("### ") {
            heading = named_project(title, projects);
            continue;
        }
        if !in_section || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let project = suffix_project(line, projects).or_else(|| heading.clone());
        out.push(Claim {
            source: Source::Summary,
            line: i + 1,
            project,
            text: line.to_string(),
        });
    }
    out
}

/// The project a heading names: its full cwd or its last path component, as
/// a whole word (the longest name wins when several match).
fn named_project(title: &str, projects: &[String]) -> Option<String> {
    projects
        .iter()
        .filter_map(|p| {
            [p.as_str(), base_name(p)]
                .into_iter()
                .filter(|name| matches(title, name))
                .map(str::len)
                .max()
                .map(|len| (len, p))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, p)| p.clone())
}

/// The project of a line ending `(… in <name>)`.
fn suffix_project(line: &str, projects: &[String]) -> Option<String> {
    let inner = line.strip_suffix(')')?;
    let inner = &inner[inner.rfind('(')? + 1..];
    let (_, name) = inner.rsplit_once(" in ")?;
    let name = name.trim().trim_matches('`');
    projects
        .iter()
        .find(|p| base_name(p) == name || p.as_str() == name)
        .cloned()
}
