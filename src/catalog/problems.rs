//! Session files memkit could not read whole: unreadable or corrupt files,
//! and files with malformed lines that were skipped. Every run reports them
//! (as warnings: one bad file never fails the night), and `memkit status`
//! and `memkit doctor` list them.

use crate::error::Result;
use crate::store::Store;
use crate::store::threads;
use serde::Serialize;

/// One session file with a problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileProblem {
    /// The file.
    pub path: String,
    /// Whether nothing could be read from it (else some lines were skipped).
    pub unreadable: bool,
    /// What is wrong, naming the file (and the lines, for skipped lines).
    pub message: String,
}

/// The problems of the present session files, as the last scan found them
/// (files the user told memkit to forget are not its concern).
pub fn file_problems(store: &Store) -> Result<Vec<FileProblem>> {
    let out: Vec<FileProblem> = threads::with_read_problems(store.conn())?
        .into_iter()
        .filter_map(|t| {
            let (unreadable, text) = match (t.read_error, t.read_warning) {
                (Some(e), _) => (true, e),
                (None, Some(w)) => (false, w),
                (None, None) => return None,
            };
            let message = if text.contains(&t.rollout_path) {
                text
            } else {
                format!("{}: {text}", t.rollout_path)
            };
            Some(FileProblem {
                path: t.rollout_path,
                unreadable,
                message,
            })
        })
        .collect();
    Ok(out)
}
