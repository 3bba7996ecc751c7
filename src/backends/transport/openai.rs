//! OpenAI Responses API: `POST {base_url}/responses` with instructions, one
//! input message and `text.format` = a strict JSON schema.

use super::{HttpClient, StructuredRequest, StructuredResponse, Transport};
use crate::error::{Error, Result};
use serde_json::{Value, json};

/// The Responses API transport.
pub struct OpenAiResponses {
    http: HttpClient,
    base_url: String,
    api_key: String,
    model: String,
}

impl OpenAiResponses {
    /// A transport for `model` at `base_url` (without the `/responses` suffix).
    pub fn new(http: HttpClient, base_url: String, api_key: String, model: String) -> Self {
        OpenAiResponses {
            http,
            base_url,
            api_key,
            model,
        }
    }
}

/// The Responses API request body for `r` on `model` (also each line of a
/// batch file).
pub fn request_body(model: &str, r: &StructuredRequest<'_>) -> Value {
    json!({
        "model": model,
        "instructions": r.system,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": r.user}]}],
        "text": {"format": {"type": "json_schema", "name": r.schema_name, "schema": r.schema, "strict": true}},
        "store": false,
    })
}

impl Transport for OpenAiResponses {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn model(&self) -> String {
        self.model.clone()
    }

    fn complete(&self, request: &StructuredRequest<'_>) -> Result<StructuredResponse> {
        let url = format!("{}/responses", self.base_url);
        let v = self.http.post_json(
            &url,
            Some(&self.api_key),
            &request_body(&self.model, request),
        )?;
        read_response(&url, &v)
    }
}

/// The answer text and token counts of a Responses API response object
/// (`url` names where it came from in errors): an error, an unfinished
/// response, a refusal or no output text is an error.
pub fn read_response(url: &str, v: &Value) -> Result<StructuredResponse> {
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Err(Error::failed(format!("{url}: {err}")));
    }
    let status = v
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("completed");
    if status != "completed" {
        let why = v
            .get("incomplete_details")
            .map(Value::to_string)
            .unwrap_or_default();
        return Err(Error::failed(format!("{url}: response {status} {why}")));
    }
    let mut text = String::new();
    for item in v
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if item.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        for part in item
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match part.get("type").and_then(Value::as_str) {
                Some("output_text") => {
                    text.push_str(part.get("text").and_then(Value::as_str).unwrap_or(""))
                }
                Some("refusal") => {
                    let why = part.get("refusal").and_then(Value::as_str).unwrap_or("");
                    return Err(Error::failed(format!("{url}: the model refused: {why}")));
                }
                _ => {}
            }
        }
    }
    if text.trim().is_empty() {
        return Err(Error::failed(format!(
            "{url}: the response has no output text"
        )));
    }
    let usage = Usage::of(v);
    Ok(StructuredResponse {
        text,
        tokens_in: usage.input,
        tokens_out: usage.output,
        tokens_cached: usage.cached,
    })
}

/// The token counts a Responses API response reports in its `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens`.
    pub input: Option<u64>,
    /// `output_tokens`.
    pub output: Option<u64>,
    /// `input_tokens_details.cached_tokens`.
    pub cached: Option<u64>,
}

impl Usage {
    /// The `usage` of the response `v`.
    pub fn of(v: &Value) -> Usage {
        let u = &v["usage"];
        Usage {
            input: u["input_tokens"].as_u64(),
            output: u["output_tokens"].as_u64(),
            cached: u
                .pointer("/input_tokens_details/cached_tokens")
                .and_then(Value::as_u64),
        }
    }
}
