//! The `[search]` section: whether `memkit search` fuses full-text ranks with
//! embedding similarity, and how to reach the embedding model.

use super::DurationValue;
use super::sections::{RangeCheck, time_limit};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::time::Duration;

/// Where embeddings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingsKind {
    /// None: full text (BM25 and synonyms) only, offline (the default).
    Off,
    /// OpenAI's `POST /embeddings`.
    Openai,
    /// Any OpenAI-compatible `POST /embeddings` (Ollama, vLLM, llama.cpp server).
    Chat,
}

/// `[search]` settings.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    /// Where embeddings come from.
    pub embeddings: EmbeddingsKind,
    /// Embedding model (empty: `text-embedding-3-small` for openai; required for chat).
    pub model: String,
    /// Base URL (empty: the transport's default).
    pub base_url: String,
    /// Environment variable that holds the API key.
    pub api_key_env: String,
    /// Vector size to ask for (0: the model's own; OpenAI's v3 models can shorten theirs).
    pub dimensions: u32,
    /// Units per embedding request.
    pub batch_size: usize,
    /// Time limit of one request.
    pub timeout: Duration,
    /// Retries after 429 / 5xx / transport errors.
    pub max_retries: u32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSearch {
    embeddings: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    dimensions: Option<i64>,
    batch_size: Option<i64>,
    timeout: Option<DurationValue>,
    max_retries: Option<i64>,
}

pub(super) fn build_search(raw: RawSearch, check: &RangeCheck<'_>) -> Result<SearchConfig> {
    let embeddings = match raw.embeddings.as_deref() {
        None | Some("off") => EmbeddingsKind::Off,
        Some("openai") => EmbeddingsKind::Openai,
        Some("chat") => EmbeddingsKind::Chat,
        Some(s) => {
            return Err(Error::usage(format!(
                "search.embeddings = \"{s}\" is not a source of embeddings (allowed: off, openai, chat)"
            )));
        }
    };
    Ok(SearchConfig {
        embeddings,
        model: raw.model.unwrap_or_default(),
        base_url: raw.base_url.unwrap_or_default(),
        api_key_env: raw.api_key_env.unwrap_or_else(|| "OPENAI_API_KEY".into()),
        dimensions: check(
            "search.dimensions",
            raw.dimensions.unwrap_or(0),
            0..=8192,
            "",
        )? as u32,
        batch_size: check(
            "search.batch_size",
            raw.batch_size.unwrap_or(64),
            1..=2048,
            "",
        )? as usize,
        timeout: time_limit("search.timeout", raw.timeout, Duration::from_secs(60))?,
        max_retries: check(
            "search.max_retries",
            raw.max_retries.unwrap_or(3),
            0..=10,
            "",
        )? as u32,
    })
}
