//! Embeddings for hybrid search: vectors for the indexed units from an
//! OpenAI-compatible `POST /embeddings`, cached in SQLite by the unit's
//! content key, and the units nearest a question by cosine similarity.
//!
//! Everything sent has passed the redactor: the units were redacted when they
//! were indexed, and the question is redacted here before it leaves. Requests
//! carry at most `batch_size` inputs; a unit whose vector is cached for the
//! configured model is never sent again.

use crate::backends::transport::{HttpClient, api_key, base_url};
use crate::config::{Config, CostConfig, EmbeddingsKind, ExtractBackendKind, Tokens};
use crate::error::{Error, Result};
use crate::util::text::{cut, estimate_tokens};
use rusqlite::{Connection, params};
use serde::Serialize;
use serde_json::{Value, json};

/// OpenAI's default embedding model.
pub const DEFAULT_OPENAI_MODEL: &str = "text-embedding-3-small";

/// Longest text sent for one unit, bytes (well inside every model's input
/// limit; a unit is a block or a bullet, far shorter).
const MAX_INPUT_BYTES: usize = 8_000;

/// How many nearest units a question brings to the fusion.
pub const NEAREST: usize = 20;

/// A client for one embedding model.
pub struct Embedder {
    http: HttpClient,
    url: String,
    api_key: Option<String>,
    model: String,
    dimensions: u32,
    batch_size: usize,
    costs: CostConfig,
}

/// What bringing the vectors up to date did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct EmbedReport {
    /// Units sent for a vector.
    pub embedded: usize,
    /// Requests made.
    pub requests: usize,
    /// Tokens the model counted (estimated when it does not say).
    pub tokens: u64,
    /// Why the rest were not embedded (they are retried by the next refresh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Embedder {
    /// The embedder `[search]` configures; `None` when embeddings are off.
    /// A configuration that cannot work (no key for openai, no model for
    /// chat) is a usage error that says what to set.
    pub fn from_config(cfg: &Config) -> Result<Option<Embedder>> {
        let c = &cfg.search;
        let kind = match c.embeddings {
            EmbeddingsKind::Off => return Ok(None),
            EmbeddingsKind::Openai => ExtractBackendKind::Openai,
            EmbeddingsKind::Chat => ExtractBackendKind::Chat,
        };
        let key = api_key(&c.api_key_env);
        let model = match (kind, c.model.trim()) {
            (ExtractBackendKind::Openai, "") => DEFAULT_OPENAI_MODEL.to_string(),
            (_, "") => {
                return Err(Error::usage(
                    "search.embeddings = \"chat\" needs search.model (e.g. \"nomic-embed-text\")",
                ));
            }
            (_, m) => m.to_string(),
        };
        if kind == ExtractBackendKind::Openai && key.is_none() {
            return Err(Error::usage(format!(
                "search.embeddings = \"openai\" needs an API key: set {} (or search.api_key_env)",
                c.api_key_env
            )));
        }
        Ok(Some(Embedder {
            http: HttpClient::new(c.timeout, c.max_retries),
            url: format!("{}/embeddings", base_url(kind, &c.base_url)),
            api_key: key,
            model,
            dimensions: c.dimensions,
            batch_size: c.batch_size,
            costs: cfg.costs.clone(),
        }))
    }

    /// The name vectors are cached under: the model, and the size asked for.
    pub fn model_id(&self) -> String {
        match self.dimensions {
            0 => self.model.clone(),
            d => format!("{}@{d}", self.model),
        }
    }

    /// Books `tokens` of embedding input in the cost ledger (to the run at
    /// work); a failure to book is a warning.
    pub fn book(&self, conn: &Connection, tokens: u64) {
        let model = self.model_id();
        let entry = crate::store::ledger::Entry {
            stage: "embed",
            model: &model,
            batch: false,
            thread_id: None,
            tokens: Tokens {
                input: tokens,
                ..Tokens::default()
            },
            codex: None,
        };
        crate::store::ledger::book(conn, &self.costs, &entry, crate::util::time::now_secs());
    }

    /// Vectors (unit length) for `inputs`, in order, and the tokens counted.
    fn embed(&self, inputs: &[String]) -> Result<(Vec<Vec<f32>>, u64)> {
        let mut body = json!({
            "model": self.model,
            "input": inputs,
            "encoding_format": "float",
        });
        if self.dimensions > 0 {
            body["dimensions"] = json!(self.dimensions);
        }
        let answer = self
            .http
            .post_json(&self.url, self.api_key.as_deref(), &body)?;
        let vectors = parse_vectors(&answer, inputs.len())
            .map_err(|e| Error::failed(format!("{}: {e}", self.url)))?;
        let tokens = answer["usage"]["prompt_tokens"]
            .as_u64()
            .unwrap_or_else(|| inputs.iter().map(|i| estimate_tokens(i.len()) as u64).sum());
        Ok((vectors, tokens))
    }

    /// Gives every indexed unit without a cached vector for this model one,
    /// in batches; drops vectors no unit uses any more (and those of other
    /// models). A failed request stops there and is reported in
    /// [`EmbedReport::error`]: its units stay without vectors for the next
    /// refresh to retry, and what was stored before it stays. Only a
    /// database error is an `Err`.
    pub fn update(&self, conn: &Connection) -> Result<EmbedReport> {
        let model = self.model_id();
        let missing: Vec<(String, String)> = {
            let mut stmt = conn.prepare(
                "SELECT u.key, min(u.context), min(u.text) FROM search_units u
                 WHERE NOT EXISTS (SELECT 1 FROM search_vectors v
                                   WHERE v.key = u.key AND v.model = ?1)
                 GROUP BY u.key ORDER BY min(u.id)",
            )?;
            let rows = stmt.query_map([&model], |r| {
                let context: String = r.get(1)?;
                let text: String = r.get(2)?;
                Ok((r.get(0)?, input_text(&context, &text)))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut report = EmbedReport::default();
        let mut store = conn.prepare_cached(
            "INSERT OR REPLACE INTO search_vectors (key, model, vector) VALUES (?1, ?2, ?3)",
        )?;
        for batch in missing.chunks(self.batch_size) {
            let inputs: Vec<String> = batch.iter().map(|(_, text)| text.clone()).collect();
            let (vectors, tokens) = match self.embed(&inputs) {
                Ok(answer) => answer,
                Err(e) => {
                    report.error = Some(e.to_string());
                    break;
                }
            };
            report.requests += 1;
            report.tokens += tokens;
            report.embedded += batch.len();
            for ((key, _), vector) in batch.iter().zip(&vectors) {
                store.execute(params![key, model, to_blob(vector)])?;
            }
        }
        conn.execute(
            "DELETE FROM search_vectors WHERE model != ?1
                OR key NOT IN (SELECT key FROM search_units)",
            [&model],
        )?;
        Ok(report)
    }

    /// The units nearest `question` (row id and cosine similarity, best
    /// first, at most [`NEAREST`]) and the tokens the question cost.
    pub fn nearest(&self, conn: &Connection, question: &str) -> Result<(Vec<(i64, f32)>, u64)> {
        let clean = crate::redact::redact(question);
        let (vectors, tokens) = self.embed(&[clean.into_owned()])?;
        let query = &vectors[0];
        let mut stmt = conn.prepare_cached(
            "SELECT u.id, v.vector FROM search_units u
             JOIN search_vectors v ON v.key = u.key AND v.model = ?1",
        )?;
        let rows = stmt.query_map([self.model_id()], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut scored = Vec::new();
        for row in rows {
            let (id, blob) = row?;
            if let Some(similarity) = dot(query, &blob) {
                scored.push((id, similarity));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(NEAREST);
        Ok((scored, tokens))
    }
}

/// What a unit is embedded as: where it sits, then its words.
fn input_text(context: &str, text: &str) -> String {
    let body = super::query::indexed_body(text);
    let joined = if context.is_empty() {
        body
    } else {
        format!("{context}\n{body}")
    };
    cut(&joined, MAX_INPUT_BYTES).to_string()
}

/// The `data[].embedding` arrays of an `/embeddings` answer, ordered by
/// their `index`, each scaled to unit length.
fn parse_vectors(answer: &Value, expected: usize) -> std::result::Result<Vec<Vec<f32>>, String> {
    let data = answer["data"]
        .as_array()
        .ok_or("the answer has no \"data\" array")?;
    if data.len() != expected {
        return Err(format!(
            "asked for {expected} embeddings, got {}",
            data.len()
        ));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    let mut size = None;
    for (position, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map_or(position, |i| i as usize);
        let values = item["embedding"]
            .as_array()
            .ok_or(format!("data[{position}] has no \"embedding\" array"))?;
        let vector: Vec<f32> = values
            .iter()
            .map(|v| v.as_f64().map(|f| f as f32))
            .collect::<Option<_>>()
            .ok_or(format!("data[{position}].embedding holds a non-number"))?;
        if vector.is_empty() || *size.get_or_insert(vector.len()) != vector.len() {
            return Err(format!(
                "data[{position}].embedding has {} numbers, not {}",
                vector.len(),
                size.unwrap_or(0)
            ));
        }
        let slot = out
            .get_mut(index)
            .ok_or(format!("data[{position}].index {index} is out of range"))?;
        *slot = Some(normalized(vector));
    }
    out.into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or(format!("no embedding for input {i}")))
        .collect()
}

/// `v` scaled to unit length (a zero vector stays zero).
fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// A vector as little-endian `f32` bytes.
fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The dot product of `query` and the stored vector `blob` (both unit
/// length: their cosine); `None` when the sizes differ.
fn dot(query: &[f32], blob: &[u8]) -> Option<f32> {
    if blob.len() != query.len() * 4 {
        return None;
    }
    Some(
        blob.chunks_exact(4)
            .zip(query)
            .map(|(b, q)| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * q)
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_come_back_in_input_order_at_unit_length() {
        let answer = json!({"data": [
            {"index": 1, "embedding": [0.0, 2.0]},
            {"index": 0, "embedding": [3.0, 4.0]},
        ]});
        let v = parse_vectors(&answer, 2).unwrap();
        assert_eq!(v[0], vec![0.6, 0.8]);
        assert_eq!(v[1], vec![0.0, 1.0]);
    }

    #[test]
    fn malformed_answers_are_errors() {
        for (answer, expected) in [
            (json!({}), "no \"data\""),
            (json!({"data": []}), "asked for 1"),
            (json!({"data": [{"embedding": "x"}]}), "no \"embedding\""),
            (json!({"data": [{"embedding": ["x"]}]}), "non-number"),
            (json!({"data": [{"embedding": []}]}), "0 numbers"),
            (
                json!({"data": [{"index": 5, "embedding": [1.0]}]}),
                "out of range",
            ),
        ] {
            let e = parse_vectors(&answer, 1).unwrap_err();
            assert!(e.contains(expected), "{e}");
        }
        let mixed = json!({"data": [{"embedding": [1.0]}, {"embedding": [1.0, 2.0]}]});
        assert!(parse_vectors(&mixed, 2).unwrap_err().contains("not 1"));
        let twice =
            json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]});
        assert!(parse_vectors(&twice, 2).unwrap_err().contains("input 1"));
    }

    #[test]
    fn stored_vectors_round_trip_to_a_cosine() {
        let a = normalized(vec![1.0, 1.0]);
        let blob = to_blob(&a);
        assert!((dot(&a, &blob).unwrap() - 1.0).abs() < 1e-6);
        assert_eq!(dot(&[1.0], &blob), None);
    }
}
