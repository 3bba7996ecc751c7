//! OpenAI-compatible chat completions: `POST {base_url}/chat/completions` with a
//! system and a user message and `response_format` = a JSON schema. Works with
//! Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter and OpenAI itself.

use super::{HttpClient, StructuredRequest, StructuredResponse, Transport};
use crate::error::{Error, Result};
use serde_json::{Value, json};

/// The chat-completions transport.
pub struct ChatCompletions {
    http: HttpClient,
    base_url: String,
    api_key: Option<String>,
    model: String,
}

impl ChatCompletions {
    /// A transport for `model` at `base_url` (without `/chat/completions`); the key is optional.
    pub fn new(http: HttpClient, base_url: String, api_key: Option<String>, model: String) -> Self {
        ChatCompletions {
            http,
            base_url,
            api_key,
            model,
        }
    }

    /// The request body memkit sends.
    pub fn body(&self, r: &StructuredRequest<'_>) -> Value {
        json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": r.system},
                {"role": "user", "content": r.user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": r.schema_name, "schema": r.schema, "strict": true},
            },
            "temperature": 0,
            "stream": false,
        })
    }
}

impl Transport for ChatCompletions {
    fn name(&self) -> &'static str {
        "chat"
    }

    fn model(&self) -> String {
        self.model.clone()
    }

    fn complete(&self, request: &StructuredRequest<'_>) -> Result<StructuredResponse> {
        let url = format!("{}/chat/completions", self.base_url);
        let v = self
            .http
            .post_json(&url, self.api_key.as_deref(), &self.body(request))?;
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(Error::failed(format!("{url}: {err}")));
        }
        let message = v.pointer("/choices/0/message");
        if let Some(refusal) = message
            .and_then(|m| m.get("refusal"))
            .and_then(Value::as_str)
        {
            return Err(Error::failed(format!(
                "{url}: the model refused: {refusal}"
            )));
        }
        let text = message
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if text.trim().is_empty() {
            return Err(Error::failed(format!(
                "{url}: the response has no message content"
            )));
        }
        let usage = v.get("usage");
        let count = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
        Ok(StructuredResponse {
            text,
            tokens_in: count("prompt_tokens"),
            tokens_out: count("completion_tokens"),
            tokens_cached: usage
                .and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens"))
                .and_then(Value::as_u64),
        })
    }
}
