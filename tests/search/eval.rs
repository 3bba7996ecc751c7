//! The paraphrase evaluation shared by `tests/search_quality.rs` and
//! `benches/search.rs`: a memory folder, questions that share no content word
//! with the fact they ask about, and the share answered in the top hits.

use memkit::search::{Embedder, SearchOptions, search};
use memkit::store::Store;
use std::path::Path;

/// One question: its text, the project it is asked in, and a substring of
/// the one memory line that answers it.
#[derive(Debug, serde::Deserialize)]
pub struct Question {
    pub q: String,
    pub project: Option<String>,
    pub answer: String,
}

/// What an evaluation found.
pub struct Outcome {
    pub total: usize,
    pub answered: usize,
    /// Questions whose answer was not in the top hits, with the top hit's text.
    pub missed: Vec<(String, String)>,
}

impl Outcome {
    pub fn percent(&self) -> f64 {
        100.0 * self.answered as f64 / self.total.max(1) as f64
    }
}

/// Reads a questions file (a JSON array of [`Question`]).
pub fn questions(path: &Path) -> Vec<Question> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asks every question of `questions` against the memory folder `memory`,
/// using the state database `db`; a question is answered when a hit among
/// the first `top` holds its answer. With an `embedder`, the search is hybrid.
pub fn evaluate(
    memory: &Path,
    db: &Path,
    questions: &[Question],
    top: usize,
    embedder: Option<&Embedder>,
) -> Outcome {
    let mut store = Store::open(db).unwrap();
    let mut outcome = Outcome {
        total: questions.len(),
        answered: 0,
        missed: Vec::new(),
    };
    for q in questions {
        let opts = SearchOptions {
            query: q.q.clone(),
            project: q.project.clone(),
            limit: top,
            sessions: false,
        };
        let hits = search(&mut store, memory, &opts, embedder).unwrap();
        if hits.iter().any(|h| h.text.contains(&q.answer)) {
            outcome.answered += 1;
        } else {
            let first = hits.first().map(|h| h.text.clone()).unwrap_or_default();
            outcome.missed.push((q.q.clone(), first));
        }
    }
    outcome
}
