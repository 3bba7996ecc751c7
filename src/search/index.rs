//! Keeping the search index current with the memory folder.
//!
//! A file whose size and modification time match what was indexed is not
//! read; a changed file is split again and only its changed units are
//! re-indexed (a unit whose text, context and project are the same keeps its
//! row and only has its line range updated). Everything indexed has passed
//! the redactor first, so a secret in a hand edit never reaches the index.

use super::units::{self, Unit};
use crate::error::Result;
use crate::memory::layout::is_foreign_entry;
use crate::util::fsx::is_temp_file;
use crate::util::hash::key_of;
use rusqlite::{Connection, params};
use serde::Serialize;
use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// Largest memory file indexed (and read by the MCP `get_memory` tool),
/// bytes; the layout's files are far smaller.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What one refresh of the index did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct IndexReport {
    /// Memory files read again because they changed (or were new).
    pub files_read: usize,
    /// Files whose units were dropped because the file is gone.
    pub files_removed: usize,
    /// Units added to the index.
    pub units_added: usize,
    /// Units removed from the index.
    pub units_removed: usize,
    /// Units that stayed and only moved.
    pub units_kept: usize,
    /// What giving the units vectors did (with `[search] embeddings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<super::embed::EmbedReport>,
    /// How long the refresh took, vectors included (left out of `--json`,
    /// whose reports are compared byte for byte between runs).
    #[serde(skip)]
    pub elapsed: std::time::Duration,
}

impl IndexReport {
    /// Tokens the embeddings cost.
    pub fn embedding_tokens(&self) -> u64 {
        self.embeddings.as_ref().map_or(0, |e| e.tokens)
    }
}

/// A memory file found on disk, with the stat fields the index compares.
struct Found {
    rel: String,
    size: i64,
    mtime_ns: i64,
}

/// Brings the index up to date with the memory folder at `root`.
pub fn refresh(conn: &mut Connection, root: &Path) -> Result<IndexReport> {
    let mut found = Vec::new();
    walk(root, root, &mut found);
    let tx = conn.transaction()?;
    let mut report = IndexReport::default();
    // file → (size, mtime, content key) as last indexed.
    let known: HashMap<String, (i64, i64, String)> = {
        let mut stmt = tx.prepare("SELECT file, size, mtime_ns, key FROM search_files")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for file in &found {
        let indexed = known.get(&file.rel);
        if indexed.is_some_and(|(size, mtime, _)| (*size, *mtime) == (file.size, file.mtime_ns)) {
            continue;
        }
        let path = root.join(&file.rel);
        let Ok(bytes) = fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let key = key_of(&[&text]);
        if indexed.is_none_or(|(_, _, old)| *old != key) {
            report.files_read += 1;
            let clean = crate::redact::redact(&text);
            replace_units(&tx, &file.rel, units::split(&file.rel, &clean), &mut report)?;
        }
        tx.execute(
            "INSERT INTO search_files (file, size, mtime_ns, key) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(file) DO UPDATE SET size = ?2, mtime_ns = ?3, key = ?4",
            params![file.rel, file.size, file.mtime_ns, key],
        )?;
    }
    let present: std::collections::HashSet<&str> = found.iter().map(|f| f.rel.as_str()).collect();
    for gone in known.keys().filter(|k| !present.contains(k.as_str())) {
        report.files_removed += 1;
        report.units_removed += tx.execute("DELETE FROM search_units WHERE file = ?1", [gone])?;
        tx.execute("DELETE FROM search_files WHERE file = ?1", [gone])?;
    }
    if report.units_added + report.units_removed > 0
        || crate::store::kv::get(&tx, UNIT_COUNT)?.is_none()
    {
        let units = count_units(&tx)?;
        crate::store::kv::set(&tx, UNIT_COUNT, &units.to_string())?;
        let changed = report.units_added + report.units_removed;
        if super::term_docs::after_refresh(&tx, units, changed)? {
            // At the same pace, FTS5's segments are merged into one: each
            // term a question looks up is then found in one b-tree, not in
            // every segment the updates left (about 6 % of a question over
            // 40,000 units; the merge takes about 50 ms there).
            tx.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')", [])?;
        }
    }
    tx.commit()?;
    Ok(report)
}

/// The `kv` key of how many units the index holds, kept by [`refresh`] so
/// that a search does not count 40,000 rows to weigh its words.
const UNIT_COUNT: &str = "search_unit_count";

/// How many units the index holds (as the last refresh counted them).
pub fn unit_count(conn: &Connection) -> Result<i64> {
    match crate::store::kv::get(conn, UNIT_COUNT)?.and_then(|v| v.parse().ok()) {
        Some(n) => Ok(n),
        None => count_units(conn),
    }
}

/// Counts the index's units (a walk of the whole table).
fn count_units(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT count(*) FROM search_units", [], |r| r.get(0))?)
}

/// Drops the whole index (units, files, term counts; cached vectors stay) so the next
/// refresh reads every file again.
pub fn clear(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "DELETE FROM search_units; DELETE FROM search_files; DELETE FROM search_term_docs;
         INSERT INTO search_fts(search_fts) VALUES ('rebuild');",
    )?;
    conn.execute(
        "DELETE FROM kv WHERE key IN (?1, ?2)",
        [UNIT_COUNT, super::term_docs::DRIFT],
    )?;
    Ok(())
}

/// The key that says whether a unit changed in a way the index sees.
fn unit_key(u: &Unit) -> String {
    key_of(&[
        u.kind,
        u.project.as_deref().unwrap_or(""),
        &u.context,
        &u.text,
    ])
}

/// Where a unit sits in its file and what it cites: what a kept unit may
/// need updated.
#[derive(Debug, PartialEq, Eq)]
struct Placement {
    line_start: i64,
    line_end: i64,
    sessions: String,
    date: Option<i64>,
}

/// Replaces the units of `file` with `units`, keeping rows that did not change.
fn replace_units(
    tx: &Connection,
    file: &str,
    units: Vec<Unit>,
    report: &mut IndexReport,
) -> Result<()> {
    let mut old: HashMap<String, Vec<(i64, Placement)>> = HashMap::new();
    {
        let mut stmt = tx.prepare(
            "SELECT id, key, line_start, line_end, sessions, date FROM search_units WHERE file = ?1",
        )?;
        let rows = stmt.query_map([file], |r| {
            let placement = Placement {
                line_start: r.get(2)?,
                line_end: r.get(3)?,
                sessions: r.get(4)?,
                date: r.get(5)?,
            };
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, placement))
        })?;
        for row in rows {
            let (id, key, placement) = row?;
            old.entry(key).or_default().push((id, placement));
        }
    }
    let mut insert = tx.prepare_cached(
        "INSERT INTO search_units
             (file, line_start, line_end, kind, project, sessions, date, key, text, body, context)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut moved = tx.prepare_cached(
        "UPDATE search_units SET line_start = ?2, line_end = ?3, sessions = ?4, date = ?5
         WHERE id = ?1",
    )?;
    for unit in units {
        let key = unit_key(&unit);
        let placement = Placement {
            line_start: unit.line_start as i64,
            line_end: unit.line_end as i64,
            sessions: unit.sessions.join(" "),
            date: unit.date,
        };
        if let Some((id, was)) = old.get_mut(&key).and_then(Vec::pop) {
            // Most kept units did not even move: nothing to write.
            if was != placement {
                moved.execute(params![
                    id,
                    placement.line_start,
                    placement.line_end,
                    placement.sessions,
                    placement.date
                ])?;
            }
            report.units_kept += 1;
            continue;
        }
        insert.execute(params![
            file,
            unit.line_start as i64,
            unit.line_end as i64,
            unit.kind,
            unit.project,
            placement.sessions,
            unit.date,
            key,
            unit.text,
            super::query::indexed_body(&unit.text),
            unit.context,
        ])?;
        report.units_added += 1;
    }
    let mut delete = tx.prepare_cached("DELETE FROM search_units WHERE id = ?1")?;
    for (id, _) in old.into_values().flatten() {
        delete.execute([id])?;
        report.units_removed += 1;
    }
    Ok(())
}

/// Collects the indexed memory files under `dir`: regular files only (a
/// symbolic link is never followed), no repositories, no temp files.
fn walk(root: &Path, dir: &Path, out: &mut Vec<Found>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // The entry's own metadata: a symbolic link is not followed.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if is_foreign_entry(root, &path, meta.is_dir()) {
            continue;
        }
        if meta.is_dir() {
            walk(root, &path, out);
            continue;
        }
        let name = entry.file_name();
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES || is_temp_file(&name.to_string_lossy()) {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if !units::is_indexed(&rel) {
            continue;
        }
        let mtime_ns = meta
            .modified()
            .map(crate::util::time::system_time_nanos)
            .unwrap_or(0);
        out.push(Found {
            rel,
            size: meta.len() as i64,
            mtime_ns,
        });
    }
}
