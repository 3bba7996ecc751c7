//! How many units hold each common term of the index, so that a search
//! weighs its words without counting their matches.
//!
//! Counting a word that most units hold ("project" in every project's
//! bullets) walks tens of thousands of rows, the largest part of a question
//! over a big memory. The counts come from FTS5's own vocabulary (one scan,
//! about 17 ms for 40,000 units) and are rebuilt by a refresh once the units
//! added or removed since the last rebuild pass a 20th of them. Only a
//! memory of at least [`COMMON_FROM_UNITS`] units keeps them: in a smaller
//! one, counting costs nothing. A term held by fewer than [`KEPT_FROM_DOCS`] units is not kept
//! (counting it is cheap too); a query word is found by its FTS5 term
//! ([`porter`]).

use super::porter::porter;
use super::query::COMMON_FROM_UNITS;
use crate::error::Result;
use crate::store::kv;
use rusqlite::{Connection, OptionalExtension};

/// Terms held by at least this many units are kept.
pub const KEPT_FROM_DOCS: i64 = 256;

/// The `kv` key of how many units were added or removed since the counts
/// were last rebuilt (absent: never built).
pub(super) const DRIFT: &str = "search_term_docs_drift";

/// How far the units may drift before the counts are rebuilt: a 20th of
/// them. A kept count only weighs a word, which a few units more or less do
/// not move; a consolidation that changed one task leaves the vocabulary
/// scan for later.
const REBUILD_AFTER: i64 = 20;

/// Keeps the counts current after a refresh that added or removed
/// `changed` units and left `units`: rebuilt when never built, or when the
/// units changed since the last rebuild pass a 20th of them. Runs inside
/// the refresh's transaction. Whether they were rebuilt.
pub fn after_refresh(tx: &Connection, units: i64, changed: usize) -> Result<bool> {
    let drift = kv::get(tx, DRIFT)?
        .and_then(|v| v.parse::<i64>().ok())
        .map(|d| d + changed as i64);
    match drift {
        Some(d) if d * REBUILD_AFTER <= units => {
            kv::set(tx, DRIFT, &d.to_string())?;
            Ok(false)
        }
        _ => {
            rebuild(tx, units)?;
            kv::set(tx, DRIFT, "0")?;
            Ok(true)
        }
    }
}

/// Replaces the kept counts with the index's current ones (`units`: how
/// many units it holds).
fn rebuild(tx: &Connection, units: i64) -> Result<()> {
    tx.execute("DELETE FROM search_term_docs", [])?;
    if (units as f64) < COMMON_FROM_UNITS {
        return Ok(());
    }
    tx.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab
             USING fts5vocab(main, search_fts, row)",
    )?;
    tx.execute(
        "INSERT INTO search_term_docs (term, docs)
         SELECT term, doc FROM temp.search_vocab WHERE doc >= ?1",
        [KEPT_FROM_DOCS],
    )?;
    Ok(())
}

/// How many units hold `term` (a word of a query group), when it is a kept
/// common term; `None` when it is rarer, a phrase, or not a plain
/// lower-case word.
pub fn docs(conn: &Connection, term: &str) -> Result<Option<i64>> {
    let Some(fts_term) = porter(term) else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached("SELECT docs FROM search_term_docs WHERE term = ?1")?;
    Ok(stmt.query_row([fts_term], |r| r.get(0)).optional()?)
}

/// How many units hold any of `terms`, estimated from the kept counts
/// (their sum, at most `total`) when any term is kept; `None` when none is
/// and the group must be counted in the index.
pub fn group_docs(conn: &Connection, terms: &[String], total: f64) -> Result<Option<f64>> {
    let mut sum = None;
    for term in terms {
        if let Some(n) = docs(conn, term)? {
            *sum.get_or_insert(0.0) += n as f64;
        }
    }
    Ok(sum.map(|s: f64| s.min(total)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use std::path::{Path, PathBuf};

    /// A memory folder whose handbook has `bullets` bullets, every one
    /// holding "project", every other one "deploying", one "kw7".
    fn memory(root: &Path, bullets: usize, deploying_every: usize) {
        let mut text = String::from(
            "# Memory handbook\n\n# Task Group: /home/dev/src/app\n\n## Reusable knowledge\n",
        );
        for n in 0..bullets {
            let verb = if n % deploying_every == 0 {
                "deploying"
            } else {
                "building"
            };
            text.push_str(&format!("- step {n}: {verb} the project kw{n}\n"));
        }
        std::fs::create_dir_all(root).unwrap();
        std::fs::write(root.join("MEMORY.md"), text).unwrap();
    }

    fn exact(conn: &Connection, term: &str) -> i64 {
        conn.query_row(
            "SELECT count(*) FROM search_fts WHERE search_fts MATCH ?1",
            [format!("\"{term}\"")],
            |r| r.get(0),
        )
        .unwrap()
    }

    fn temp() -> PathBuf {
        std::env::temp_dir().join(format!("memkit-td-{}", crate::util::ids::new_uuid_v4()))
    }

    #[test]
    fn a_large_memory_keeps_fts5s_counts_of_its_common_terms_through_changes() {
        let dir = temp();
        let root = dir.join("memories");
        memory(&root, 2400, 2);
        let mut store = Store::open(&dir.join("memkit.sqlite")).unwrap();
        crate::search::refresh(store.conn_mut(), &root).unwrap();
        let conn = store.conn();
        assert_eq!(docs(conn, "project").unwrap(), Some(exact(conn, "project")));
        assert_eq!(exact(conn, "deploying"), 1200);
        // The query's own form of the word finds the index's term.
        assert_eq!(docs(conn, "deploy").unwrap(), Some(1200));
        assert_eq!(docs(conn, "kw7").unwrap(), None, "rare terms are counted");
        assert_eq!(docs(conn, "static analysis").unwrap(), None);
        let group = ["deploy".to_string(), "kw7".to_string(), "ship".to_string()];
        assert_eq!(group_docs(conn, &group, 2401.0).unwrap(), Some(1200.0));
        assert_eq!(group_docs(conn, &group[1..], 2401.0).unwrap(), None);

        // One bullet changed: the counts stay (an estimate), no rescan.
        let text = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
        let edited = text.replacen("step 0: deploying", "step 0: building", 1);
        std::fs::write(root.join("MEMORY.md"), edited).unwrap();
        crate::search::refresh(store.conn_mut(), &root).unwrap();
        assert_eq!(exact(store.conn(), "deploying"), 1199);
        assert_eq!(docs(store.conn(), "deploy").unwrap(), Some(1200));

        // A consolidation rewrote much of the handbook: the counts follow.
        memory(&root, 2400, 4);
        crate::search::refresh(store.conn_mut(), &root).unwrap();
        assert_eq!(docs(store.conn(), "deploy").unwrap(), Some(600));
        crate::search::index::clear(store.conn()).unwrap();
        assert_eq!(docs(store.conn(), "deploy").unwrap(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_small_memory_keeps_no_counts() {
        let dir = temp();
        let root = dir.join("memories");
        memory(&root, 300, 1);
        let mut store = Store::open(&dir.join("memkit.sqlite")).unwrap();
        crate::search::refresh(store.conn_mut(), &root).unwrap();
        assert_eq!(exact(store.conn(), "deploying"), 300);
        assert_eq!(docs(store.conn(), "deploy").unwrap(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
