//! Turning a question into an FTS5 query and ranking what it finds.
//!
//! The question's content words (stop words dropped) each become a group:
//! the word and its synonyms from [`super::vocabulary`]. The index is asked
//! for units that hold any term of any group (FTS5 stems both sides with the
//! Porter stemmer; in a large memory, a group most units hold is left out of
//! this step), ranked by BM25; each candidate then scores by how much of the
//! question it answers — the share of the groups it matches, each weighted
//! by how rare its terms are — plus its BM25 relative to the best.

use super::vocabulary::{stem, synonyms};
use crate::error::Result;
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};

/// How many BM25 candidates are re-scored.
const CANDIDATES: usize = 200;

/// What a match through a synonym counts, next to the question's own word.
const SYNONYM_SHARE: f64 = 0.7;

/// Words that carry no subject in a question.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "again",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "need",
    "needs",
    "no",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "please",
    "right",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "up",
    "us",
    "use",
    "used",
    "using",
    "very",
    "want",
    "was",
    "way",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "s",
    "t",
    "re",
    "ve",
    "ll",
    "d",
    "m",
    "supposed",
    "usually",
    "normally",
    "again",
    "there",
    "anything",
    "something",
    "ever",
    "which",
    "each",
    "every",
];

/// One content word of the question and the terms it stands for.
#[derive(Debug, Clone)]
pub struct Group {
    /// The word as the user wrote it (lower case).
    pub word: String,
    /// The word and its synonyms, as FTS5 strings.
    pub terms: Vec<String>,
}

/// The content-word groups of `question`.
pub fn groups(question: &str) -> Vec<Group> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for word in words(question) {
        if STOP_WORDS.contains(&word.as_str()) || !seen.insert(stem(&word)) {
            continue;
        }
        let mut terms = vec![word.clone()];
        for s in synonyms(&word) {
            if !terms.iter().any(|t| t == s) {
                terms.push(s.to_string());
            }
        }
        out.push(Group { word, terms });
    }
    out
}

/// Lower-case words of letters and digits (an apostrophe ends a word).
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// An FTS5 string literal: the term in double quotes (a quote doubled), so
/// nothing a user types is read as query syntax.
fn literal(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// The FTS5 expression matching any term of `groups`.
pub fn match_any(groups: &[Group]) -> String {
    groups
        .iter()
        .flat_map(|g| g.terms.iter())
        .map(|t| literal(t))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// The text a unit is indexed under: its words without the handbook's
/// provenance (`[Task 2]`, `(seen in 3 sessions)`), which would make every
/// bullet match "task" and "session".
pub fn indexed_body(text: &str) -> String {
    let mut out = text.to_string();
    for (open, close) in [("[Task ", "]"), ("(seen in ", ")")] {
        while let Some(at) = out.find(open) {
            let Some(len) = out[at..].find(close) else {
                break;
            };
            out.replace_range(at..at + len + close.len(), "");
        }
    }
    out
}

/// The start of a unit's text as a snippet, for a hit found by its meaning
/// alone (no matched words to show).
pub fn plain_snippet(text: &str) -> String {
    const WORDS: usize = 24;
    let body = indexed_body(text);
    let words: Vec<&str> = body.split_whitespace().collect();
    let mut out = words[..words.len().min(WORDS)].join(" ");
    if words.len() > WORDS {
        out.push('…');
    }
    out
}

/// A ranked candidate: the unit's row id and its score.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// `search_units.id`.
    pub id: i64,
    /// Higher is better.
    pub score: f64,
}

/// Ranks the units that match `groups` (best first, at most [`CANDIDATES`]).
pub fn rank(conn: &Connection, groups: &[Group]) -> Result<Vec<Ranked>> {
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let total: f64 = conn.query_row("SELECT count(*) FROM search_units", [], |r| r.get(0))?;
    // Counting stops at half the units: a group past that is common.
    let half = total as i64 / 2 + 1;
    let dfs: Vec<f64> = groups
        .iter()
        .map(|g| group_count(conn, g, half))
        .collect::<Result<_>>()?;
    // In a large memory, a word most units hold ("project" in every
    // project's bullets) tells none of them apart, and ranking its every
    // match is what makes a question slow: it is left out of the search
    // and still counts towards how much of the question a candidate answers.
    let telling: Vec<Group> = groups
        .iter()
        .zip(&dfs)
        .filter(|(_, df)| total < COMMON_FROM_UNITS || **df * 2.0 <= total)
        .map(|(g, _)| g.clone())
        .collect();
    let expr = match_any(if telling.is_empty() { groups } else { &telling });
    // Snippets are made for the hits shown (see [`snippets`]): made here,
    // SQLite would make one for every match before sorting.
    let mut stmt = conn.prepare_cached(
        "SELECT rowid, bm25(search_fts, 1.0, 0.3)
         FROM search_fts WHERE search_fts MATCH ?1
         ORDER BY bm25(search_fts, 1.0, 0.3) LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![expr, CANDIDATES as i64], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?))
    })?;
    let candidates: Vec<(i64, f64)> = rows.collect::<rusqlite::Result<_>>()?;
    let ids: Vec<i64> = candidates.iter().map(|c| c.0).collect();
    hold_candidates(conn, &ids)?;
    let Some(best) = candidates.first().map(|c| c.1).filter(|b| *b < 0.0) else {
        return Ok(candidates
            .into_iter()
            .map(|(id, _)| Ranked { id, score: 0.0 })
            .collect());
    };
    let mut weights = Vec::new();
    let mut matched: HashMap<i64, f64> = HashMap::new();
    for (group, df) in groups.iter().zip(&dfs) {
        let weight = ((total + 1.0) / (df + 1.0)).ln().max(0.1);
        weights.push(weight);
        let hits = group_hits(conn, group)?;
        // A group without synonyms is its word alone: the same hits.
        let by_word = if group.terms.len() == 1 {
            hits.clone()
        } else {
            let exact = Group {
                word: group.word.clone(),
                terms: vec![group.word.clone()],
            };
            group_hits(conn, &exact)?
        };
        for id in hits {
            // The user's own word counts more than a synonym of it.
            let share = if by_word.contains(&id) {
                1.0
            } else {
                SYNONYM_SHARE
            };
            *matched.entry(id).or_default() += weight * share;
        }
    }
    let all: f64 = weights.iter().sum();
    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .map(|(id, bm25)| {
            let coverage = matched.get(&id).copied().unwrap_or(0.0) / all;
            Ranked {
                id,
                score: coverage + bm25 / best,
            }
        })
        .collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    Ok(ranked)
}

/// Copies the candidates' text into a connection-private full-text table
/// with the index's tokenizer, so that which question words each one
/// holds is asked of a few hundred rows: asking the whole index, with the
/// candidates as a constraint, walks every match of a common word.
fn hold_candidates(conn: &Connection, ids: &[i64]) -> Result<()> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_candidates USING fts5(
             body, context, tokenize = 'porter unicode61 remove_diacritics 2'
         );
         DELETE FROM temp.search_candidates;",
    )?;
    let list = serde_json::to_string(ids).expect("integers serialise");
    conn.prepare_cached(
        "INSERT INTO temp.search_candidates(rowid, body, context)
         SELECT id, body, context FROM search_units
         WHERE id IN (SELECT value FROM json_each(?1))",
    )?
    .execute([list])?;
    Ok(())
}

/// The text around the matched terms of each of `ids` (matches in `**`),
/// for those of the last [`rank`]'s candidates that hold a term of `groups`.
pub fn snippets(conn: &Connection, groups: &[Group], ids: &[i64]) -> Result<HashMap<i64, String>> {
    if groups.is_empty() || ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(ids).expect("integers serialise");
    let mut stmt = conn.prepare_cached(
        "SELECT rowid, snippet(search_candidates, 0, '**', '**', '…', 24)
         FROM temp.search_candidates
         WHERE search_candidates MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))",
    )?;
    let rows = stmt.query_map(rusqlite::params![match_any(groups), list], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Which of the held candidates match any term of `group`.
fn group_hits(conn: &Connection, group: &Group) -> Result<HashSet<i64>> {
    let expr = match_any(std::slice::from_ref(group));
    let mut stmt = conn.prepare_cached(
        "SELECT rowid FROM temp.search_candidates WHERE search_candidates MATCH ?1",
    )?;
    let rows = stmt.query_map([expr], |r| r.get::<_, i64>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many units match any term of `group`, counted up to `cap`.
fn group_count(conn: &Connection, group: &Group, cap: i64) -> Result<f64> {
    let expr = match_any(std::slice::from_ref(group));
    Ok(conn.query_row(
        "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ?1 LIMIT ?2)",
        rusqlite::params![expr, cap],
        |r| r.get(0),
    )?)
}

/// Units from which a common word leaves the search (in a smaller memory
/// every word is searched: there it costs nothing, and a question's words
/// are often in most of its few units).
const COMMON_FROM_UNITS: f64 = 2000.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_go_and_synonyms_widen() {
        let g = groups("How do we ship the app?");
        let words: Vec<&str> = g.iter().map(|g| g.word.as_str()).collect();
        assert_eq!(words, ["ship", "app"]);
        assert!(g[0].terms.iter().any(|t| t == "deploy"));
        assert_eq!(g[1].terms, ["app"]);
    }

    #[test]
    fn user_text_is_never_query_syntax() {
        let g = groups("NEAR(\"a b\") OR x* ^col:y");
        let expr = match_any(&g);
        for part in expr.split(" OR ") {
            assert!(part.starts_with('"') && part.ends_with('"'), "{part}");
        }
    }

    #[test]
    fn provenance_is_not_indexed() {
        assert_eq!(
            indexed_body("- `make` works [Task 2] (seen in 3 sessions)").trim_end(),
            "- `make` works"
        );
        assert_eq!(indexed_body("a [Task unclosed"), "a [Task unclosed");
    }
}
