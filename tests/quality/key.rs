//! The answer key (`key.json`): what a corpus holds that should and should not
//! become memory. Kinds are kept as strings, so a key written by another
//! generator reads as long as it has the same shape.

use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;

/// The file name of the answer key inside a corpus directory.
pub const KEY_FILE: &str = "key.json";

/// A corpus's answer key.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Key {
    /// Every cwd used in the corpus.
    pub projects: Vec<String>,
    /// User and machine names that appear in the cwds.
    pub path_user_names: Vec<String>,
    /// Durable facts that should be remembered.
    pub facts: Vec<Fact>,
    /// Things that must not become memory.
    pub noise: Vec<Noise>,
    /// Replaced values that must not be stated as current.
    pub stale: Vec<Stale>,
    /// Fake credentials placed in the logs.
    pub secrets: Vec<String>,
}

/// A durable fact: found when every needle of `all` is on one claim line in
/// its project's place (or a global one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fact {
    pub id: String,
    /// preference, correction, procedure, environment, superseded, repeated or global.
    pub kind: String,
    /// The cwd the fact belongs to; `None` for a global fact.
    pub project: Option<String>,
    pub all: Vec<String>,
}

/// A noise item: leaked when any needle is on any claim line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Noise {
    pub id: String,
    /// one-off, task-correction, declined, pasted-spec, injected-context,
    /// prompt-injection, question or status.
    pub kind: String,
    pub any: Vec<String>,
}

/// A superseded value: stated as current when a claim line of its project
/// (or a global one) holds every needle of `all` and none of `unless`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stale {
    pub id: String,
    pub project: Option<String>,
    pub all: Vec<String>,
    #[serde(default)]
    pub unless: Vec<String>,
}

impl Key {
    /// Reads `key.json` from a corpus directory.
    pub fn read(corpus: &Path) -> io::Result<Key> {
        let text = std::fs::read_to_string(corpus.join(KEY_FILE))?;
        serde_json::from_str(&text).map_err(io::Error::other)
    }

    /// Writes `key.json` into a corpus directory.
    pub fn write(&self, corpus: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        std::fs::write(corpus.join(KEY_FILE), text + "\n")
    }
}
