//! Turning a question into an FTS5 query and ranking what it finds.
//!
//! The question's content words (stop words dropped) each become a group:
//! the word and its synonyms from [`super::vocabulary`]. The index is asked
//! for units that hold any term of any group (FTS5 stems both sides with the
//! Porter stemmer; in a large memory, a group most units hold is left out of
//! this step), ranked by BM25; each candidate then scores by how much of the
//! question it answers — the share of the groups it matches, each weighted
//! by how rare its terms are — plus its BM25 relative to the best.

use super::vocabulary::{phrase_at, stem, synonyms};
use crate::error::Result;
use rusqlite::Connection;
use std::borrow::Cow;
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

/// The content-word groups of `question`. A run of words that is a
/// multi-word vocabulary entry ("static analysis", "sign off") is one
/// group, the entry and its synonyms, even when some of its words are stop
/// words on their own.
pub fn groups(question: &str) -> Vec<Group> {
    let all: Vec<String> = words(question).map(Cow::into_owned).collect();
    let stemmed: Vec<String> = all.iter().map(|w| stem(w)).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut at = 0;
    while at < all.len() {
        if let Some((len, entries)) = phrase_at(&all[at..], &stemmed[at..]) {
            let phrase = all[at..at + len].join(" ");
            if seen.insert(stemmed[at..at + len].join(" ")) {
                out.push(group_of(phrase, entries));
            }
            at += len;
            continue;
        }
        let (word, stemmed) = (&all[at], &stemmed[at]);
        at += 1;
        if STOP_WORDS.contains(&word.as_str()) || !seen.insert(stemmed.clone()) {
            continue;
        }
        out.push(group_of(word.clone(), synonyms(word)));
    }
    out
}

/// The group of the user's `word` (or phrase) widened by `synonyms`.
fn group_of(word: String, synonyms: Vec<&str>) -> Group {
    let mut terms = vec![word.clone()];
    for s in synonyms {
        if !terms.iter().any(|t| t == s) {
            terms.push(s.to_string());
        }
    }
    Group { word, terms }
}

/// Lower-case words of letters and digits (an apostrophe ends a word).
pub(super) fn words(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(lower)
}

/// `word` in lower case, borrowed when it already is (most words of a
/// memory are): a search lower-cases every word of its 200 candidates.
pub(super) fn lower(word: &str) -> Cow<'_, str> {
    if word
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(word.to_lowercase())
    } else {
        Cow::Borrowed(word)
    }
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
    let body = indexed_body(text);
    let words: Vec<&str> = body.split_whitespace().collect();
    let mut out = words[..words.len().min(SNIPPET_WORDS)].join(" ");
    if words.len() > SNIPPET_WORDS {
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
    let total = super::index::unit_count(conn)? as f64;
    // Counting stops at half the units: a group past that is common.
    let half = total as i64 / 2 + 1;
    let dfs: Vec<f64> = groups
        .iter()
        .map(
            |g| match super::term_docs::group_docs(conn, &g.terms, total)? {
                Some(docs) => Ok(docs),
                None => group_count(conn, g, half),
            },
        )
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
    let searched = present_terms(conn, if telling.is_empty() { groups } else { &telling })?;
    if searched.iter().all(|g| g.terms.is_empty()) {
        return Ok(Vec::new());
    }
    let expr = match_any(&searched);
    // Snippets are made for the hits shown (see [`snippet`]): made here,
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
    let Some(best) = candidates.first().map(|c| c.1).filter(|b| *b < 0.0) else {
        return Ok(candidates
            .into_iter()
            .map(|(id, _)| Ranked { id, score: 0.0 })
            .collect());
    };
    let ids: Vec<i64> = candidates.iter().map(|c| c.0).collect();
    let terms: Vec<GroupTerms> = groups.iter().map(GroupTerms::of).collect();
    let words = candidate_words(conn, &ids, &stem_prefixes(&terms))?;
    let weights: Vec<f64> = dfs
        .iter()
        .map(|df| ((total + 1.0) / (df + 1.0)).ln().max(0.1))
        .collect();
    let all: f64 = weights.iter().sum();
    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .map(|(id, bm25)| {
            let matched: f64 = words.get(&id).map_or(0.0, |columns| {
                terms
                    .iter()
                    .zip(&weights)
                    .map(|(group, weight)| weight * group.share_in(columns))
                    .sum()
            });
            Ranked {
                id,
                score: matched / all + bm25 / best,
            }
        })
        .collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    Ok(ranked)
}

/// The stemmed words of each candidate's indexed columns (body, context),
/// read in one query: which question words a candidate holds is worked out
/// here rather than asked of SQLite once per word. Only words that start
/// with one of `prefixes` can be a term's; the others are not stemmed
/// (see [`stems_starting`]).
fn candidate_words(
    conn: &Connection,
    ids: &[i64],
    prefixes: &[&str],
) -> Result<HashMap<i64, [Vec<String>; 2]>> {
    let list = serde_json::to_string(ids).expect("integers serialise");
    let mut stmt = conn.prepare_cached(
        "SELECT id, body, context FROM search_units
         WHERE id IN (SELECT value FROM json_each(?1))",
    )?;
    let rows = stmt.query_map([list], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            [
                stems_starting(r.get_ref(1)?.as_str()?, prefixes),
                stems_starting(r.get_ref(2)?.as_str()?, prefixes),
            ],
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The [`stem`]s of a text's words, in order.
fn stems(text: &str) -> Vec<String> {
    words(text).map(|w| stem(&w)).collect()
}

/// The [`stem`]s of a text's words, in order, with an empty placeholder
/// for each word that starts with none of `prefixes`: a stem keeps its
/// word's first three bytes, so such a word cannot stem to a term whose
/// stem starts with one of them, and the placeholder matches nothing.
fn stems_starting(text: &str, prefixes: &[&str]) -> Vec<String> {
    words(text)
        .map(|w| {
            if prefixes.iter().any(|p| w.starts_with(p)) {
                stem(&w)
            } else {
                String::new()
            }
        })
        .collect()
}

/// The first three bytes (to a character boundary) of every stem the
/// groups' terms hold.
fn stem_prefixes(terms: &[GroupTerms]) -> Vec<&str> {
    let mut out: Vec<&str> = terms
        .iter()
        .flat_map(|g| g.terms.iter().flatten())
        .map(|stem| {
            let mut end = stem.len().min(3);
            while !stem.is_char_boundary(end) {
                end -= 1;
            }
            &stem[..end]
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A group's terms as stem sequences (a multi-word entry is a phrase).
struct GroupTerms {
    /// The user's own word.
    word: Vec<String>,
    /// The word and its synonyms.
    terms: Vec<Vec<String>>,
}

impl GroupTerms {
    fn of(group: &Group) -> GroupTerms {
        GroupTerms {
            word: stems(&group.word),
            terms: group.terms.iter().map(|t| stems(t)).collect(),
        }
    }

    /// What the group counts for a unit with these columns: 1 for the
    /// user's own word, [`SYNONYM_SHARE`] for a synonym of it, else 0.
    fn share_in(&self, columns: &[Vec<String>; 2]) -> f64 {
        let holds = |term: &[String]| columns.iter().any(|c| holds_phrase(c, term));
        if holds(&self.word) {
            1.0
        } else if self.terms.iter().any(|t| holds(t)) {
            SYNONYM_SHARE
        } else {
            0.0
        }
    }

    /// Whether the stem `word` is any word of any of the group's terms.
    fn names(&self, word: &str) -> bool {
        self.terms.iter().flatten().any(|w| w == word)
    }
}

/// Whether `phrase` (stems) occurs in `words` (stems) as consecutive words.
fn holds_phrase(words: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && words.windows(phrase.len()).any(|w| w == phrase)
}

/// The stretch of a unit's indexed text around the question's words, with
/// the matched words in `**` (at most [`SNIPPET_WORDS`] words, `…` where it
/// was cut); `None` when the text holds none of them.
pub fn snippet(text: &str, groups: &[Group]) -> Option<String> {
    let terms: Vec<GroupTerms> = groups.iter().map(GroupTerms::of).collect();
    let body = indexed_body(text);
    let tokens: Vec<&str> = body.split_whitespace().collect();
    // A phrase's small words ("in" of "log in") are not marked alone.
    let is_term = |w: &str| !STOP_WORDS.contains(&w) && terms.iter().any(|g| g.names(&stem(w)));
    let marked: Vec<(String, bool)> = tokens.iter().map(|t| mark_words(t, is_term)).collect();
    let matched: Vec<bool> = marked.iter().map(|m| m.1).collect();
    let first = matched.iter().position(|m| *m)?;
    // The window that holds the most matched words, the earliest of equals.
    let len = SNIPPET_WORDS.min(tokens.len());
    let count = |start: usize| matched[start..start + len].iter().filter(|m| **m).count();
    let earliest = first.saturating_sub(len / 4).min(tokens.len() - len);
    let start = (earliest..=tokens.len() - len)
        .max_by_key(|s| (count(*s), std::cmp::Reverse(*s)))
        .unwrap_or(0);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let parts: Vec<&str> = marked[start..start + len]
        .iter()
        .map(|m| m.0.as_str())
        .collect();
    out.push_str(&parts.join(" "));
    if start + len < tokens.len() {
        out.push('…');
    }
    Some(out)
}

/// `token` with each of its words that `is_term` in `**`, and whether any was.
fn mark_words(token: &str, is_term: impl Fn(&str) -> bool) -> (String, bool) {
    let mut out = String::with_capacity(token.len() + 4);
    let mut any = false;
    let mut rest = token;
    while !rest.is_empty() {
        let word_len = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        if word_len == 0 {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_len];
        if is_term(&word.to_lowercase()) {
            any = true;
            out.push_str("**");
            out.push_str(word);
            out.push_str("**");
        } else {
            out.push_str(word);
        }
        rest = &rest[word_len..];
    }
    (out, any)
}

/// Longest snippet, in words (what FTS5's `snippet()` was asked for).
const SNIPPET_WORDS: usize = 24;

/// The groups with only the terms some unit holds: a question widened by
/// synonyms names many words the memory never uses, and BM25 weighs every
/// term of the expression for every match.
fn present_terms(conn: &Connection, groups: &[Group]) -> Result<Vec<Group>> {
    let mut stmt =
        conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM search_fts WHERE search_fts MATCH ?1)")?;
    let mut out = Vec::new();
    for g in groups {
        let mut terms = Vec::new();
        for t in &g.terms {
            if stmt.query_row([literal(t)], |r| r.get::<_, bool>(0))? {
                terms.push(t.clone());
            }
        }
        out.push(Group {
            word: g.word.clone(),
            terms,
        });
    }
    Ok(out)
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
pub(super) const COMMON_FROM_UNITS: f64 = 2000.0;

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
    fn a_vocabulary_phrase_in_the_question_is_one_group_even_with_stop_words() {
        let g = groups("which static analysis tool catches it?");
        let words: Vec<&str> = g.iter().map(|g| g.word.as_str()).collect();
        assert_eq!(words, ["static analysis", "tool", "catches"]);
        assert!(g[0].terms.iter().any(|t| t == "ruff"), "{:?}", g[0].terms);
        // "off" alone is a stop word; in "sign off" it names an approval.
        let g = groups("who must sign off on spend?");
        assert_eq!(g[0].word, "sign off");
        assert!(
            g[0].terms.iter().any(|t| t == "approval"),
            "{:?}",
            g[0].terms
        );
        // A hyphenated entry is found however the question spells it.
        assert!(
            groups("pre-commit hooks")[0]
                .terms
                .iter()
                .any(|t| t == "husky")
        );
        assert!(
            groups("pre commit hooks")[0]
                .terms
                .iter()
                .any(|t| t == "husky")
        );
        // An ending inside a phrase makes another word: "logging in prod".
        assert_eq!(groups("logging in prod")[0].word, "logging");
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
    fn a_snippet_marks_the_question_words_inside_code_and_cuts_around_them() {
        let g = groups("how do we ship?");
        let text = format!(
            "- {} production deploys go through `make ship-prod` [Task 2]",
            "word ".repeat(40)
        );
        let s = snippet(&text, &g).expect("the text holds a question word");
        assert!(s.contains("**production** **deploys**"), "{s}");
        assert!(s.contains("`make **ship**-**prod**`"), "{s}");
        assert!(
            s.starts_with('…') && !s.ends_with('…') && !s.contains("[Task"),
            "{s}"
        );
        assert_eq!(s.split_whitespace().count(), SNIPPET_WORDS);
        assert_eq!(snippet("- `cargo fmt` formats", &g), None);
    }

    #[test]
    fn a_synonym_counts_less_than_the_users_own_word_and_phrases_stay_whole() {
        let g = GroupTerms::of(&groups("lint")[0]);
        let columns = |body: &str| [stems(body), Vec::new()];
        assert_eq!(g.share_in(&columns("run the linting step")), 1.0);
        assert_eq!(g.share_in(&columns("`ruff check` first")), SYNONYM_SHARE);
        assert_eq!(g.share_in(&columns("static files, then check them")), 0.0);
        assert_eq!(g.share_in(&columns("static analysis in CI")), SYNONYM_SHARE);
    }

    #[test]
    fn words_no_term_can_stem_to_are_left_unstemmed() {
        let terms: Vec<GroupTerms> = groups("deploying caches")
            .iter()
            .map(GroupTerms::of)
            .collect();
        let prefixes = stem_prefixes(&terms);
        let text = "Deployed the cache, then caching again: déjà vu";
        let all = stems(text);
        let some = stems_starting(text, &prefixes);
        assert_eq!(all.len(), some.len());
        for (a, s) in all.iter().zip(&some) {
            let names_a_term = terms.iter().any(|g| g.names(a));
            assert!(s == a || (s.is_empty() && !names_a_term), "{a} / {s}");
        }
        assert_eq!(some[..3], ["deploy", "", "cach"]);
        // A prefix is cut at a character boundary.
        let wide = [GroupTerms {
            word: vec!["aaé".into()],
            terms: vec![vec!["aaé".into()]],
        }];
        assert_eq!(stem_prefixes(&wide), ["aa"]);
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
