//! The scorer: reads a memory folder (`MEMORY.md`, `memory_summary.md`) and
//! measures it against an answer key — recall (anywhere, and in the summary
//! alone), noise leakage, stale values stated as current, secret leaks,
//! cross-project bleed, keyword junk and summary size — with per-kind figures
//! and the items behind every miss, for debugging.

use super::claims::{self, Claim, Source};
use super::key::{Fact, Key};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io;
use std::path::Path;

/// Minimum share of facts found on any claim line.
pub const TARGET_RECALL: f64 = 0.85;
/// Minimum share of facts found in `memory_summary.md` alone.
pub const TARGET_SUMMARY_RECALL: f64 = 0.70;
/// Maximum share of noise items leaked.
pub const TARGET_NOISE_LEAKAGE: f64 = 0.03;
/// Maximum size of `memory_summary.md`.
pub const TARGET_SUMMARY_BYTES: u64 = 10_000;

/// Words that are never worth searching for (plus contraction fragments).
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "back", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "come", "could", "did", "do", "does", "doing", "done", "down",
    "during", "each", "even", "ever", "every", "few", "for", "from", "further", "get", "got",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "itself", "like", "me", "more", "most", "much", "must", "my",
    "no", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "one", "only", "or",
    "other", "our", "ours", "out", "over", "own", "please", "same", "see", "she", "should", "so",
    "some", "still", "such", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "thing", "this", "those", "through", "to", "too", "under", "until", "up", "us", "use",
    "very", "want", "was", "way", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "yes", "yet", "you", "your", "yours",
];
/// What is left of a contraction split at its apostrophe.
const CONTRACTION_FRAGMENTS: &[&str] = &[
    "hasn", "haven", "hadn", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won",
    "wouldn", "shouldn", "couldn", "can", "ll", "ve", "re", "t", "s", "d", "m",
];

/// Found / total for one kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub hits: usize,
    pub total: usize,
}

/// An item of the key and the claim line that matched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub id: String,
    /// `MEMORY.md:12`.
    pub location: String,
    pub line: String,
}

/// Every figure of one memory folder against one key.
#[derive(Debug, Default)]
pub struct Report {
    pub facts: usize,
    pub found: usize,
    pub found_in_summary: usize,
    pub noise: usize,
    pub leaked: usize,
    pub stale_current: usize,
    pub secret_leaks: usize,
    pub bleed: usize,
    pub keywords: usize,
    pub junk_keywords: usize,
    pub summary_bytes: u64,
    /// Recall by fact kind (`hits` = found anywhere).
    pub fact_kinds: BTreeMap<String, Tally>,
    /// Summary recall by fact kind.
    pub summary_kinds: BTreeMap<String, Tally>,
    /// Leakage by noise kind (`hits` = leaked).
    pub noise_kinds: BTreeMap<String, Tally>,
    /// Ids of facts found nowhere.
    pub missed: Vec<String>,
    /// Ids of facts found in `MEMORY.md` but not in the summary.
    pub missed_in_summary: Vec<String>,
    /// Leaked noise, with the first line that leaked it.
    pub leaks: Vec<Hit>,
    /// Stale values stated as current.
    pub stale: Vec<Hit>,
    /// Project facts on another project's line.
    pub bleeding: Vec<Hit>,
    /// Files that hold a secret (the secret itself is never printed).
    pub secret_files: Vec<String>,
    /// The junk keywords, each once.
    pub junk: Vec<String>,
}

/// Scores the memory folder `folder` against `key`.
pub fn score(key: &Key, folder: &Path) -> io::Result<Report> {
    let memory = read_or_empty(&folder.join("MEMORY.md"))?;
    let summary = read_or_empty(&folder.join("memory_summary.md"))?;
    let mut lines = claims::memory_claims(&memory, &key.projects);
    lines.extend(claims::summary_claims(&summary, &key.projects));
    let mut r = Report {
        facts: key.facts.len(),
        noise: key.noise.len(),
        summary_bytes: summary.len() as u64,
        ..Report::default()
    };
    recall(key, &lines, &mut r);
    noise(key, &lines, &mut r);
    stale(key, &lines, &mut r);
    bleed(key, &lines, &mut r);
    keyword_junk(key, &memory, &mut r);
    secrets(key, folder, &mut r)?;
    Ok(r)
}

fn read_or_empty(path: &Path) -> io::Result<String> {
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        other => other,
    }
}

fn holds_all(line: &Claim, needles: &[String]) -> bool {
    !needles.is_empty() && needles.iter().all(|n| claims::matches(&line.text, n))
}

fn holds_any(line: &Claim, needles: &[String]) -> bool {
    needles.iter().any(|n| claims::matches(&line.text, n))
}

fn found(fact: &Fact, lines: &[Claim], source: Option<Source>) -> bool {
    lines.iter().any(|l| {
        source.is_none_or(|s| l.source == s)
            && l.covers(fact.project.as_deref())
            && holds_all(l, &fact.all)
    })
}

fn recall(key: &Key, lines: &[Claim], r: &mut Report) {
    for fact in &key.facts {
        let anywhere = found(fact, lines, None);
        let in_summary = found(fact, lines, Some(Source::Summary));
        count(&mut r.fact_kinds, &fact.kind, anywhere);
        count(&mut r.summary_kinds, &fact.kind, in_summary);
        r.found += usize::from(anywhere);
        r.found_in_summary += usize::from(in_summary);
        if !anywhere {
            r.missed.push(fact.id.clone());
        } else if !in_summary {
            r.missed_in_summary.push(fact.id.clone());
        }
    }
}

fn noise(key: &Key, lines: &[Claim], r: &mut Report) {
    for item in &key.noise {
        let hit = lines.iter().find(|l| holds_any(l, &item.any));
        count(&mut r.noise_kinds, &item.kind, hit.is_some());
        if let Some(l) = hit {
            r.leaked += 1;
            r.leaks.push(hit_of(&item.id, l));
        }
    }
}

fn stale(key: &Key, lines: &[Claim], r: &mut Report) {
    for item in &key.stale {
        let hit = lines.iter().find(|l| {
            l.covers(item.project.as_deref())
                && holds_all(l, &item.all)
                && !holds_any(l, &item.unless)
        });
        if let Some(l) = hit {
            r.stale_current += 1;
            r.stale.push(hit_of(&item.id, l));
        }
    }
}

/// A project fact bleeds when all its needles are on a line of another
/// project, unless every one of them is also a needle of that project's facts.
fn bleed(key: &Key, lines: &[Claim], r: &mut Report) {
    for fact in &key.facts {
        let Some(home) = fact.project.as_deref() else {
            continue;
        };
        let hit = lines.iter().find(|l| {
            let Some(other) = l.project.as_deref() else {
                return false;
            };
            other != home && holds_all(l, &fact.all) && !all_shared(key, other, &fact.all)
        });
        if let Some(l) = hit {
            r.bleed += 1;
            r.bleeding.push(hit_of(&fact.id, l));
        }
    }
}

/// Whether every needle is also a needle of a fact of `project`.
fn all_shared(key: &Key, project: &str, needles: &[String]) -> bool {
    let theirs: HashSet<String> = key
        .facts
        .iter()
        .filter(|f| f.project.as_deref() == Some(project))
        .flat_map(|f| f.all.iter().map(|n| n.to_lowercase()))
        .collect();
    needles.iter().all(|n| theirs.contains(&n.to_lowercase()))
}

fn keyword_junk(key: &Key, memory: &str, r: &mut Report) {
    let names: Vec<String> = key
        .path_user_names
        .iter()
        .map(|n| n.to_lowercase())
        .collect();
    for word in claims::keywords(memory) {
        let w = word.to_lowercase();
        r.keywords += 1;
        let junk = STOP_WORDS.contains(&w.as_str())
            || CONTRACTION_FRAGMENTS.contains(&w.as_str())
            || names.contains(&w);
        if junk {
            r.junk_keywords += 1;
            if !r.junk.contains(&w) {
                r.junk.push(w);
            }
        }
    }
}

/// Counts the secrets found in any file under the folder (its `.git` aside,
/// whose objects are compressed).
fn secrets(key: &Key, folder: &Path, r: &mut Report) -> io::Result<()> {
    let mut files = Vec::new();
    collect_files(folder, &mut files)?;
    files.sort();
    let mut leaked: HashSet<&str> = HashSet::new();
    for path in files {
        let bytes = std::fs::read(&path)?;
        let text = String::from_utf8_lossy(&bytes);
        let mut here = false;
        for secret in &key.secrets {
            if text.contains(secret.as_str()) {
                leaked.insert(secret);
                here = true;
            }
        }
        if here {
            let rel = path.strip_prefix(folder).unwrap_or(&path);
            r.secret_files.push(rel.display().to_string());
        }
    }
    r.secret_leaks = leaked.len();
    Ok(())
}

fn collect_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    for entry in entries {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() && entry.file_name() != ".git" {
            collect_files(&entry.path(), out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

fn count(kinds: &mut BTreeMap<String, Tally>, kind: &str, hit: bool) {
    let t = kinds.entry(kind.to_string()).or_default();
    t.total += 1;
    t.hits += usize::from(hit);
}

fn hit_of(id: &str, line: &Claim) -> Hit {
    Hit {
        id: id.to_string(),
        location: line.location(),
        line: line.text.clone(),
    }
}

fn ratio(hits: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        hits as f64 / total as f64
    }
}

impl Report {
    /// Facts found on a claim line / facts.
    pub fn recall(&self) -> f64 {
        ratio(self.found, self.facts)
    }

    /// Facts found on a summary claim line / facts.
    pub fn summary_recall(&self) -> f64 {
        ratio(self.found_in_summary, self.facts)
    }

    /// Noise items leaked / noise items.
    pub fn noise_leakage(&self) -> f64 {
        ratio(self.leaked, self.noise)
    }

    /// Junk keywords / keywords.
    pub fn keyword_junk(&self) -> f64 {
        ratio(self.junk_keywords, self.keywords)
    }

    /// Every figure beside its target, in report order:
    /// (name, value as printed, target, met).
    pub fn figures(&self) -> Vec<(&'static str, String, &'static str, bool)> {
        let pct = |v: f64| format!("{:.1}%", v * 100.0);
        vec![
            (
                "recall",
                format!("{} ({}/{})", pct(self.recall()), self.found, self.facts),
                ">= 85%",
                self.recall() >= TARGET_RECALL,
            ),
            (
                "summary_recall",
                format!(
                    "{} ({}/{})",
                    pct(self.summary_recall()),
                    self.found_in_summary,
                    self.facts
                ),
                ">= 70%",
                self.summary_recall() >= TARGET_SUMMARY_RECALL,
            ),
            (
                "noise_leakage",
                format!(
                    "{} ({}/{})",
                    pct(self.noise_leakage()),
                    self.leaked,
                    self.noise
                ),
                "<= 3%",
                self.noise_leakage() <= TARGET_NOISE_LEAKAGE,
            ),
            (
                "stale_current",
                self.stale_current.to_string(),
                "0",
                self.stale_current == 0,
            ),
            (
                "secret_leaks",
                self.secret_leaks.to_string(),
                "0",
                self.secret_leaks == 0,
            ),
            ("bleed", self.bleed.to_string(), "0", self.bleed == 0),
            (
                "keyword_junk",
                format!(
                    "{} ({}/{})",
                    pct(self.keyword_junk()),
                    self.junk_keywords,
                    self.keywords
                ),
                "-",
                true,
            ),
            (
                "summary_bytes",
                self.summary_bytes.to_string(),
                "<= 10000",
                self.summary_bytes <= TARGET_SUMMARY_BYTES,
            ),
        ]
    }

    /// The names of the figures that miss their targets.
    pub fn unmet(&self) -> Vec<&'static str> {
        self.figures()
            .into_iter()
            .filter(|(_, _, _, met)| !met)
            .map(|(name, ..)| name)
            .collect()
    }

    /// The figures as a Markdown table (for BENCHMARKS.md): the headline
    /// figures, then recall and leakage by kind.
    pub fn table(&self) -> String {
        let mut out = String::from("| figure | value | target |\n| --- | --- | --- |\n");
        for (name, value, target, met) in self.figures() {
            let mark = if met { "" } else { " ✗" };
            out.push_str(&format!("| {name} | {value}{mark} | {target} |\n"));
        }
        out.push_str("\n| fact kind | recall | summary recall |\n| --- | --- | --- |\n");
        for (kind, t) in &self.fact_kinds {
            let s = self.summary_kinds.get(kind).copied().unwrap_or_default();
            out.push_str(&format!(
                "| {kind} | {}/{} | {}/{} |\n",
                t.hits, t.total, s.hits, s.total
            ));
        }
        out.push_str("\n| noise kind | leaked |\n| --- | --- |\n");
        for (kind, t) in &self.noise_kinds {
            out.push_str(&format!("| {kind} | {}/{} |\n", t.hits, t.total));
        }
        out
    }
}

impl fmt::Display for Report {
    /// The table, then the details.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.table())?;
        f.write_str(&self.details())
    }
}

impl Report {
    /// Every missed fact, leak, stale value, bleed, secret file and junk keyword.
    pub fn details(&self) -> String {
        let mut out = String::new();
        self.write_details(&mut out)
            .expect("writing to a String succeeds");
        out
    }

    fn write_details(&self, f: &mut impl fmt::Write) -> fmt::Result {
        writeln!(
            f,
            "missed ({}): {}",
            self.missed.len(),
            self.missed.join(", ")
        )?;
        writeln!(
            f,
            "in MEMORY.md but not the summary ({}): {}",
            self.missed_in_summary.len(),
            self.missed_in_summary.join(", ")
        )?;
        for (title, hits) in [
            ("leaked noise", &self.leaks),
            ("stale as current", &self.stale),
            ("bleed", &self.bleeding),
        ] {
            writeln!(f, "{title} ({}):", hits.len())?;
            for h in hits {
                writeln!(f, "  {} at {}: {}", h.id, h.location, h.line)?;
            }
        }
        writeln!(
            f,
            "files holding secrets ({}): {}",
            self.secret_files.len(),
            self.secret_files.join(", ")
        )?;
        writeln!(f, "junk keywords: {}", self.junk.join(", "))
    }
}
