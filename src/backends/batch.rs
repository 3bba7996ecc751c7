//! OpenAI's Files and Batches API, as the `openai-batch` extraction backend
//! uses it: upload a JSONL file of Responses API requests (`POST /files`,
//! purpose `batch`), create a batch over it (`POST /batches`, endpoint
//! `/v1/responses`, window `24h`, memkit's batch id in its metadata), poll
//! it (`GET /batches/{id}`), read its output and error files
//! (`GET /files/{id}/content`) line by line, and delete the three files once
//! the results are stored (`DELETE /files/{id}`).

use super::transport::{HttpClient, api_key, base_url};
use crate::config::{ExtractBackendKind, ExtractConfig};
use crate::error::{Error, Result};
use serde_json::{Value, json};

/// The completion window memkit asks for (the only one OpenAI offers).
pub const COMPLETION_WINDOW: &str = "24h";
/// The endpoint every request of a batch goes to.
pub const ENDPOINT: &str = "/v1/responses";
/// Most requests in one batch (OpenAI's limit).
pub const MAX_REQUESTS: usize = 50_000;
/// Most bytes in one batch file (OpenAI allows 200 MB; memkit keeps a margin).
pub const MAX_FILE_BYTES: usize = 190 * 1024 * 1024;
/// Longest result line memkit reads (one response with its stage-1 output).
const MAX_RESULT_LINE: usize = 64 * 1024 * 1024;
/// The metadata key that carries memkit's batch id.
const METADATA_KEY: &str = "memkit_batch";

/// A batch as OpenAI reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteBatch {
    /// OpenAI's id (`batch_…`).
    pub id: String,
    /// `validating`, `in_progress`, `finalizing`, `completed`, `failed`,
    /// `expired`, `cancelling` or `cancelled`.
    pub status: String,
    /// The results of the requests that succeeded.
    pub output_file_id: Option<String>,
    /// The requests that failed.
    pub error_file_id: Option<String>,
    /// When OpenAI stops working on it.
    pub expires_at: Option<i64>,
    /// Why the batch itself failed (its `errors`), if it did.
    pub errors: Option<String>,
}

impl RemoteBatch {
    /// Whether OpenAI is done with it (whatever the outcome).
    pub fn is_over(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        )
    }

    fn parse(v: &Value) -> Result<RemoteBatch> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Ok(RemoteBatch {
            id: text("id").ok_or_else(|| Error::failed(format!("a batch without an id: {v}")))?,
            status: text("status").unwrap_or_default(),
            output_file_id: text("output_file_id"),
            error_file_id: text("error_file_id"),
            expires_at: v.get("expires_at").and_then(Value::as_i64),
            errors: v
                .get("errors")
                .filter(|e| !e.is_null())
                .map(Value::to_string),
        })
    }
}

/// A client of the Files and Batches API.
pub struct BatchClient {
    http: HttpClient,
    /// Without retries: a retried `POST /batches` whose first answer was
    /// lost would create a second batch over the same file (and bill it).
    once: HttpClient,
    base: String,
    key: String,
}

impl BatchClient {
    /// The client `[extract]` configures (base URL, API key, timeout, retries).
    pub fn new(e: &ExtractConfig) -> Result<BatchClient> {
        let key = api_key(&e.api_key_env).ok_or_else(|| {
            Error::usage(format!(
                "the openai-batch backend needs an API key: set {} (or api_key_env in the config)",
                e.api_key_env
            ))
        })?;
        Ok(BatchClient {
            http: HttpClient::new(e.timeout, e.max_retries),
            once: HttpClient::new(e.timeout, 0),
            base: base_url(ExtractBackendKind::OpenaiBatch, &e.base_url),
            key,
        })
    }

    /// The file name memkit uploads batch `local_id` under.
    pub fn file_name(local_id: &str) -> String {
        format!("memkit-{local_id}.jsonl")
    }

    /// Uploads the requests of batch `local_id`; the file's id.
    pub fn upload(&self, local_id: &str, jsonl: &[u8]) -> Result<String> {
        let url = format!("{}/files", self.base);
        let answer = self.http.post_multipart(
            &url,
            Some(&self.key),
            &[("purpose", "batch")],
            (
                "file",
                &Self::file_name(local_id),
                "application/jsonl",
                jsonl,
            ),
        )?;
        id_of(&url, &answer)
    }

    /// The id of the file batch `local_id` was uploaded as, if it was.
    pub fn find_file(&self, local_id: &str) -> Result<Option<String>> {
        let url = format!("{}/files?purpose=batch", self.base);
        let list = self.http.get_json(&url, Some(&self.key))?;
        let name = Self::file_name(local_id);
        Ok(list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["filename"] == name.as_str())
            .and_then(|f| f["id"].as_str())
            .map(str::to_string))
    }

    /// Creates the batch over the uploaded file `file_id`.
    pub fn create(&self, local_id: &str, file_id: &str) -> Result<RemoteBatch> {
        let url = format!("{}/batches", self.base);
        let body = json!({
            "input_file_id": file_id,
            "endpoint": ENDPOINT,
            "completion_window": COMPLETION_WINDOW,
            "metadata": {METADATA_KEY: local_id},
        });
        RemoteBatch::parse(&self.once.post_json(&url, Some(&self.key), &body)?)
    }

    /// The batch created for `local_id`, if one was: the list is read newest
    /// first, page by page, until the batches are older than `since` (when
    /// memkit recorded it; Unix seconds) or the list ends.
    pub fn find_batch(&self, local_id: &str, since: i64) -> Result<Option<RemoteBatch>> {
        let mut after: Option<String> = None;
        loop {
            let url = match &after {
                Some(a) => format!("{}/batches?limit=100&after={a}", self.base),
                None => format!("{}/batches?limit=100", self.base),
            };
            let list = self.http.get_json(&url, Some(&self.key))?;
            let page = list["data"].as_array().cloned().unwrap_or_default();
            if let Some(b) = page
                .iter()
                .find(|b| b["metadata"][METADATA_KEY] == local_id)
            {
                return RemoteBatch::parse(b).map(Some);
            }
            let older = page
                .last()
                .and_then(|b| b["created_at"].as_i64())
                .is_some_and(|t| t < since);
            after = page
                .last()
                .and_then(|b| b["id"].as_str())
                .map(str::to_string);
            if older || after.is_none() || list["has_more"] != true {
                return Ok(None);
            }
        }
    }

    /// The batch `remote_id` as it stands.
    pub fn get(&self, remote_id: &str) -> Result<RemoteBatch> {
        let url = format!("{}/batches/{remote_id}", self.base);
        RemoteBatch::parse(&self.http.get_json(&url, Some(&self.key))?)
    }

    /// Deletes file `file_id` from OpenAI's storage.
    pub fn delete_file(&self, file_id: &str) -> Result<()> {
        self.http
            .delete(&format!("{}/files/{file_id}", self.base), Some(&self.key))
    }

    /// Hands each result line of file `file_id` to `line`.
    pub fn read_results(
        &self,
        file_id: &str,
        line: &mut dyn FnMut(&str) -> Result<()>,
    ) -> Result<()> {
        let url = format!("{}/files/{file_id}/content", self.base);
        self.http
            .get_lines(&url, Some(&self.key), MAX_RESULT_LINE, line)
    }
}

/// Whether `e` is the API's definite refusal (an HTTP 4xx answer): the
/// request was not carried out. A timeout, a connection error or a 5xx may
/// have been, and is left to a later run's recovery.
pub fn is_refusal(e: &Error) -> bool {
    e.to_string().contains(": HTTP 4")
}

/// The `id` of an API object.
fn id_of(url: &str, v: &Value) -> Result<String> {
    v["id"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error::failed(format!("{url}: the answer has no id: {v}")))
}

/// One request line of a batch file.
pub fn request_line(custom_id: &str, body: &Value) -> String {
    json!({"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}).to_string()
}

/// One line of a batch's output or error file.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultLine {
    /// The request's `custom_id`.
    pub custom_id: String,
    /// The response body when the request got HTTP 200.
    pub body: Option<Value>,
    /// Why it failed otherwise (status and message, or the error's code and message).
    pub error: Option<String>,
    /// The error code of a request that never ran (`batch_expired`, `batch_cancelled`).
    pub never_ran: bool,
}

/// Reads one result line (`{custom_id, response: {status_code, body}, error}`).
pub fn parse_result(line: &str) -> Result<ResultLine> {
    let v: Value = serde_json::from_str(line)
        .map_err(|e| Error::failed(format!("a batch result line is not JSON ({e})")))?;
    let custom_id = v["custom_id"]
        .as_str()
        .ok_or_else(|| Error::failed("a batch result line has no custom_id"))?
        .to_string();
    let status = v["response"]["status_code"].as_u64();
    if status == Some(200) && v["error"].is_null() {
        return Ok(ResultLine {
            custom_id,
            body: Some(v["response"]["body"].clone()),
            error: None,
            never_ran: false,
        });
    }
    let code = v["error"]["code"].as_str().unwrap_or("");
    let message = v["error"]["message"]
        .as_str()
        .or_else(|| v["response"]["body"]["error"]["message"].as_str())
        .unwrap_or("no message");
    let error = match status {
        Some(s) => format!("HTTP {s}: {message}"),
        None => format!("{code}: {message}"),
    };
    Ok(ResultLine {
        custom_id,
        body: None,
        error: Some(error),
        never_ran: matches!(code, "batch_expired" | "batch_cancelled"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_say_what_happened_to_each_request() {
        let ok = parse_result(
            r#"{"id":"r1","custom_id":"t1","response":{"status_code":200,"body":{"status":"completed"}},"error":null}"#,
        )
        .unwrap();
        assert_eq!(ok.body.unwrap()["status"], "completed");
        let refused = parse_result(
            r#"{"custom_id":"t2","response":{"status_code":400,"body":{"error":{"message":"bad schema"}}},"error":null}"#,
        )
        .unwrap();
        assert_eq!(refused.error.as_deref(), Some("HTTP 400: bad schema"));
        assert!(!refused.never_ran);
        let expired = parse_result(
            r#"{"custom_id":"t3","response":null,"error":{"code":"batch_expired","message":"not run"}}"#,
        )
        .unwrap();
        assert!(expired.never_ran && expired.body.is_none());
        assert!(parse_result("{}").is_err() && parse_result("x").is_err());
    }

    #[test]
    fn a_request_line_targets_the_responses_endpoint() {
        let line: Value =
            serde_json::from_str(&request_line("t1", &json!({"model": "m"}))).unwrap();
        assert_eq!(line["url"], "/v1/responses");
        assert_eq!(line["method"], "POST");
        assert_eq!(line["body"]["model"], "m");
    }
}
