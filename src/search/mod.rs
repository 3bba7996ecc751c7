//! Search over the memory: an SQLite FTS5 index (Porter stemming, BM25) of
//! every memory unit, widened by a vocabulary of developer synonyms, ranked
//! with the current project's hits first; optionally fused with embedding
//! similarity; optionally over the sessions' transcripts too.
//!
//! `memkit search` and the MCP server's `search_memories` both call
//! [`search`]; `sync` and `consolidate` keep the index current with
//! [`refresh`].

pub mod embed;
pub mod index;
mod porter;
pub mod query;
pub mod sessions;
mod term_docs;
pub mod units;
pub mod vocabulary;

use crate::config::Config;
use crate::error::Result;
use crate::store::Store;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;

pub use embed::Embedder;
pub use index::{IndexReport, refresh};

/// The constant of reciprocal-rank fusion: a unit at rank `r` of a list
/// scores `1 / (RRF_K + r)` from it (60, as in Cormack et al.).
const RRF_K: f64 = 60.0;

/// What to search for.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// The question or keywords.
    pub query: String,
    /// The current project: its hits rank first (a directory; a unit's
    /// project matches when it is that directory or one above it).
    pub project: Option<String>,
    /// At most this many hits.
    pub limit: usize,
    /// Also search the sessions' transcripts.
    pub sessions: bool,
}

/// One hit.
#[derive(Debug, Clone)]
pub struct Hit {
    /// `memory` (a unit of the memory folder) or `session` (a transcript).
    pub source: &'static str,
    /// The unit's id (`get_memory` reads it back); `None` for a session.
    pub id: Option<i64>,
    /// The file, relative to the memory folder; for a session, its file.
    pub file: String,
    /// First line (0 for a session).
    pub line_start: usize,
    /// Last line (0 for a session).
    pub line_end: usize,
    /// `task`, `bullet`, `paragraph`, `note`, `skill`, or `session`.
    pub kind: String,
    /// The project (session cwd) the hit belongs to.
    pub project: Option<String>,
    /// Sessions the hit came from.
    pub sessions: Vec<String>,
    /// When its newest session was updated (Unix seconds).
    pub date: Option<i64>,
    /// The text around the matches, matched words in `**`.
    pub snippet: String,
    /// The unit's whole text (empty for a session).
    pub text: String,
    /// Higher is better; comparable only within one search.
    pub score: f64,
    /// Whether the hit is in the current project.
    pub in_project: bool,
}

impl Hit {
    /// The hit as one JSON object (`memkit search --json`, the MCP tool);
    /// dates as RFC 3339.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "source": self.source,
            "id": self.id,
            "location": self.location(),
            "file": self.file,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "kind": self.kind,
            "project": self.project,
            "in_project": self.in_project,
            "sessions": self.sessions,
            "date": self.date.map(crate::util::time::rfc3339),
            "score": (self.score * 1000.0).round() / 1000.0,
            "snippet": self.snippet,
            "text": self.text,
        })
    }

    /// `file:start-end` (the file alone for a session).
    pub fn location(&self) -> String {
        if self.line_start == 0 {
            self.file.clone()
        } else {
            format!("{}:{}-{}", self.file, self.line_start, self.line_end)
        }
    }
}

/// Brings the index (and, with `[search] embeddings`, the vectors) up to
/// date after a stage. When the stage changed no memory file the folder is
/// not walked again (every search refreshes the index before it answers),
/// but units still waiting for vectors get them. A failure is a warning,
/// never the stage's failure.
pub fn refresh_after_stage(
    store: &mut Store,
    cfg: &Config,
    files_changed: bool,
) -> Option<IndexReport> {
    let started = std::time::Instant::now();
    let mut report = refresh_index_and_vectors(store, cfg, files_changed)?;
    report.elapsed = started.elapsed();
    Some(report)
}

/// [`refresh_after_stage`]'s work.
fn refresh_index_and_vectors(
    store: &mut Store,
    cfg: &Config,
    files_changed: bool,
) -> Option<IndexReport> {
    let embedder = configured_embedder(cfg);
    if !files_changed && embedder.is_none() {
        return None;
    }
    let mut report = if files_changed {
        match refresh(store.conn_mut(), &cfg.memory_root) {
            Ok(report) => report,
            Err(e) => {
                crate::ui::warn(format!("search index not updated: {e}"));
                return None;
            }
        }
    } else {
        IndexReport::default()
    };
    let Some(embedder) = embedder else {
        return Some(report);
    };
    match embedder.update(store.conn()) {
        Ok(r) => {
            if r.tokens > 0 {
                embedder.book(store.conn(), r.tokens);
            }
            if let Some(e) = &r.error {
                crate::ui::warn(format!(
                    "search vectors: {e}; the units left wait for the next sync or search"
                ));
            }
            report.embeddings = Some(r);
        }
        Err(e) => crate::ui::warn(format!("search vectors not updated: {e}")),
    }
    Some(report)
}

/// The embedder `[search]` configures, if any; one that cannot work (no API
/// key, no model) is a warning, and search answers from the full text.
pub fn configured_embedder(cfg: &Config) -> Option<Embedder> {
    Embedder::from_config(cfg).unwrap_or_else(|e| {
        crate::ui::warn(format!("{e}; searching the full text only"));
        None
    })
}

/// Searches the memory folder at `root` (refreshing the index first);
/// the hits, best first. With an `embedder`, units without a vector get one
/// and the full-text ranks are fused with the question's nearest units
/// (reciprocal-rank fusion); when the model cannot be reached the search
/// says so on stderr and answers from the full text. Tokens the embeddings
/// cost are recorded as a `search` run.
pub fn search(
    store: &mut Store,
    root: &Path,
    opts: &SearchOptions,
    embedder: Option<&Embedder>,
) -> Result<Vec<Hit>> {
    refresh(store.conn_mut(), root)?;
    if opts.sessions {
        sessions::refresh(store.conn_mut())?;
    }
    let groups = query::groups(&opts.query);
    let full_text = {
        // One read transaction for the ranking's dozen statements: the
        // counts and the match see one snapshot, and SQLite takes its read
        // lock once instead of once per statement.
        let snapshot = store.conn().unchecked_transaction()?;
        query::rank(&snapshot, &groups)?
    };
    let nearest = match embedder {
        Some(e) => nearest_units(store.conn(), e, &opts.query)?,
        None => Nearest {
            units: Vec::new(),
            tokens: 0,
            error: None,
        },
    };
    if let Some(err) = &nearest.error {
        crate::ui::warn(format!(
            "search: embeddings unavailable ({err}); answering from the full text"
        ));
    }
    if let Some(e) = embedder.filter(|_| nearest.tokens > 0) {
        crate::stages::record_spend(store, "search", nearest.tokens, |s| {
            e.book(s.conn(), nearest.tokens)
        })?;
    }
    let conn = store.conn();
    let fused = fuse(full_text, &nearest.units);
    let ids: Vec<i64> = fused.iter().map(|r| r.id).collect();
    let mut units = unit_hits(conn, &ids)?;
    let mut hits = Vec::new();
    for ranked in fused {
        if let Some(mut hit) = units.remove(&ranked.id) {
            hit.score = ranked.score;
            hits.push(hit);
        }
    }
    if opts.sessions {
        let found = sessions::search(conn, &groups, opts.limit.max(1))?;
        let best = found.first().map_or(-1.0, |h| h.bm25.min(-1e-9));
        for s in found {
            hits.push(Hit {
                source: "session",
                id: None,
                file: rollout_path(conn, &s.thread_id)?.unwrap_or_default(),
                line_start: 0,
                line_end: 0,
                kind: "session".into(),
                project: s.project,
                sessions: vec![s.thread_id],
                date: Some(s.date),
                snippet: s.snippet,
                text: String::new(),
                // A transcript ranks below a memory unit that answers as well.
                score: 0.9 * (s.bm25 / best),
                in_project: false,
            });
        }
    }
    for hit in &mut hits {
        hit.in_project = opts
            .project
            .as_deref()
            .zip(hit.project.as_deref())
            .is_some_and(|(current, project)| crate::util::fsx::is_within(current, project));
        hit.score *= file_prior(&hit.file) * kind_prior(&hit.kind);
    }
    let mut hits = rerank(hits);
    hits.truncate(opts.limit);
    for hit in hits.iter_mut().filter(|h| h.source == "memory") {
        // A hit found by its meaning alone has no matched words to show.
        hit.snippet =
            query::snippet(&hit.text, &groups).unwrap_or_else(|| query::plain_snippet(&hit.text));
    }
    Ok(hits)
}

/// The units nearest a question, what finding them cost, and why there are
/// none when the model could not be reached.
struct Nearest {
    units: Vec<(i64, f32)>,
    tokens: u64,
    error: Option<String>,
}

/// Embeds what is missing, then finds the units nearest `question`.
fn nearest_units(conn: &Connection, embedder: &Embedder, question: &str) -> Result<Nearest> {
    let update = embedder.update(conn)?;
    let mut out = Nearest {
        units: Vec::new(),
        tokens: update.tokens,
        error: update.error,
    };
    if out.error.is_none() {
        match embedder.nearest(conn, question) {
            Ok((units, tokens)) => {
                out.units = units;
                out.tokens += tokens;
            }
            Err(e) => out.error = Some(e.to_string()),
        }
    }
    Ok(out)
}

/// The full-text ranking alone, or fused with the nearest units by
/// reciprocal rank: the sum of `1 / (RRF_K + rank)` over both lists, scaled
/// so that first in both scores 2 (the full-text ranking's own scale).
fn fuse(full_text: Vec<query::Ranked>, nearest: &[(i64, f32)]) -> Vec<query::Ranked> {
    if nearest.is_empty() {
        return full_text;
    }
    let mut fused: std::collections::HashMap<i64, query::Ranked> = Default::default();
    let ranks = full_text
        .into_iter()
        .map(|r| r.id)
        .enumerate()
        .chain(nearest.iter().map(|(id, _)| *id).enumerate());
    for (rank, id) in ranks {
        let entry = fused
            .entry(id)
            .or_insert_with(|| query::Ranked { id, score: 0.0 });
        entry.score += (RRF_K + 1.0) / (RRF_K + 1.0 + rank as f64);
    }
    let mut out: Vec<query::Ranked> = fused.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    out
}

/// How much a hit in `file` is worth next to an equal one elsewhere: the
/// consolidated handbook, summary, notes and skills are the memory; rollout
/// summaries and raw memories are its sources, and say the same things at
/// more length.
fn file_prior(file: &str) -> f64 {
    if file.starts_with(crate::memory::ROLLOUT_SUMMARIES_DIR) {
        0.85
    } else if file == crate::memory::RAW_MEMORIES_MD {
        0.8
    } else {
        1.0
    }
}

/// How much a hit of `kind` is worth next to an equal bullet: a handbook
/// task is a pointer (its title and keywords lead to a rollout summary),
/// while a bullet states the fact a question asks for.
fn kind_prior(kind: &str) -> f64 {
    if kind == "task" { 0.8 } else { 1.0 }
}

/// Orders hits best first with the current project's hits ahead, keeps one
/// hit per fact (the same bullet is in the handbook, the summary and the
/// session's recap: the best-ranked copy stays), and spreads the rest over
/// projects (each further hit of a project already listed counts a little
/// less), so a question asked outside any project sees every project's answer.
fn rerank(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut seen = std::collections::HashSet::new();
    hits.retain(|h| h.source != "memory" || seen.insert(fact_key(h)));
    let mut per_project: std::collections::HashMap<Option<String>, i32> = Default::default();
    for hit in &mut hits {
        if hit.in_project {
            continue;
        }
        let n = per_project.entry(hit.project.clone()).or_default();
        hit.score *= 0.85f64.powi(*n);
        *n += 1;
    }
    hits.sort_by(|a, b| {
        b.in_project
            .cmp(&a.in_project)
            .then(b.score.total_cmp(&a.score))
    });
    hits
}

/// What makes two hits the same fact: their words, without the list marker,
/// the handbook's provenance and the project's own name (the summary drops
/// "in <project>").
fn fact_key(hit: &Hit) -> String {
    let project = hit
        .project
        .as_deref()
        .and_then(|p| p.rsplit('/').next())
        .unwrap_or("");
    let name: Vec<_> = query::words(project).collect();
    let body = query::indexed_body(&hit.text);
    let mut key = String::with_capacity(body.len());
    for word in query::words(&body).filter(|w| !name.contains(w) && w != "in") {
        if !key.is_empty() {
            key.push(' ');
        }
        key.push_str(&word);
    }
    key
}

/// What the memory holds, from the index: projects with their handbook
/// task sections, notes and skills.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// Projects in the order of their first unit (`None`: not about one project).
    pub projects: Vec<ProjectListing>,
    /// Note files (relative paths).
    pub notes: Vec<String>,
    /// Skill files (relative paths).
    pub skills: Vec<String>,
}

/// One project in a [`Listing`].
#[derive(Debug, Clone, Default)]
pub struct ProjectListing {
    /// The project directory.
    pub project: Option<String>,
    /// Units indexed for it.
    pub units: usize,
    /// Its `MEMORY.md` task sections.
    pub sections: Vec<Section>,
}

/// A `MEMORY.md` task section.
#[derive(Debug, Clone)]
pub struct Section {
    /// The task's title.
    pub title: String,
    /// The file (`MEMORY.md`).
    pub file: String,
    /// First line.
    pub start: usize,
    /// Last line.
    pub end: usize,
}

/// Lists the indexed memory (see [`Listing`]).
pub fn listing(conn: &Connection) -> Result<Listing> {
    let mut out = Listing::default();
    let mut stmt = conn
        .prepare("SELECT project, count(*) FROM search_units GROUP BY project ORDER BY min(id)")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, Option<String>>(0)?, r.get::<_, i64>(1)?))
    })?;
    for row in rows {
        let (project, units) = row?;
        out.projects.push(ProjectListing {
            project,
            units: units as usize,
            sections: Vec::new(),
        });
    }
    let mut stmt = conn.prepare(
        "SELECT project, text, file, line_start, line_end FROM search_units
         WHERE kind = 'task' ORDER BY file, line_start",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, Option<String>>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    for row in rows {
        let (project, text, file, start, end) = row?;
        let title = text.lines().next().unwrap_or_default().to_string();
        if let Some(p) = out.projects.iter_mut().find(|p| p.project == project) {
            p.sections.push(Section {
                title,
                file,
                start: start as usize,
                end: end as usize,
            });
        }
    }
    for (kind, list) in [("note", &mut out.notes), ("skill", &mut out.skills)] {
        let mut stmt = conn.prepare(
            "SELECT DISTINCT file FROM search_units WHERE kind = ?1
                 OR (?1 = 'skill' AND file LIKE 'skills/%') ORDER BY file",
        )?;
        let files = stmt.query_map([kind], |r| r.get::<_, String>(0))?;
        *list = files.collect::<rusqlite::Result<_>>()?;
    }
    Ok(out)
}

/// The indexed unit with row id `id`.
pub fn unit_hit(conn: &Connection, id: i64) -> Result<Option<Hit>> {
    Ok(unit_hits(conn, &[id])?.remove(&id))
}

/// The indexed units with these row ids (one query), by id.
fn unit_hits(conn: &Connection, ids: &[i64]) -> Result<HashMap<i64, Hit>> {
    let list = serde_json::to_string(ids).expect("integers serialise");
    let mut stmt = conn.prepare_cached(
        "SELECT id, file, line_start, line_end, kind, project, sessions, date, text
         FROM search_units WHERE id IN (SELECT value FROM json_each(?1))",
    )?;
    let rows = stmt.query_map([list], |r| {
        let id: i64 = r.get(0)?;
        let sessions: String = r.get(6)?;
        let hit = Hit {
            source: "memory",
            id: Some(id),
            file: r.get(1)?,
            line_start: r.get::<_, i64>(2)? as usize,
            line_end: r.get::<_, i64>(3)? as usize,
            kind: r.get(4)?,
            project: r.get(5)?,
            sessions: sessions.split_whitespace().map(str::to_string).collect(),
            date: r.get(7)?,
            snippet: String::new(),
            text: r.get(8)?,
            score: 0.0,
            in_project: false,
        };
        Ok((id, hit))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn rollout_path(conn: &Connection, thread_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT rollout_path FROM threads WHERE id = ?1",
            [thread_id],
            |r| r.get(0),
        )
        .optional()?)
}
