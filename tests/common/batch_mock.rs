//! An in-memory emulator of OpenAI's Files and Batches API (the parts a
//! Responses API batch client uses), built on [`MockServer`]: upload a JSONL
//! file, create a batch, poll it, download its output and error files.
//! Batches stay in flight until the test moves them on (`complete_all`,
//! `expire_all`, `cancel_all`, `set_status_all`).
#![allow(dead_code)]

use super::mock::{MockServer, Request, Response};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What one batch request comes to when its batch completes.
#[derive(Debug, Clone)]
pub enum ItemOutcome {
    /// HTTP 200 with this Responses API response body (see [`responses_body`]).
    Ok(Value),
    /// The API answered with HTTP `status` and an OpenAI error body. As the
    /// real API does, the line goes in the *error* file, with
    /// `response: {status_code, request_id, body: {"error": {...}}}` and
    /// `error: null`, and counts as failed.
    HttpError { status: u16, message: String },
    /// The request failed without a response: an error-file line with
    /// `response: null` and `error: {code, message}`.
    Failed { code: String, message: String },
}

type Answer = dyn Fn(&str, &Value) -> ItemOutcome + Send + Sync;

/// The running emulator.
pub struct BatchMock {
    pub server: MockServer,
    state: Arc<Mutex<State>>,
    answer: Arc<Answer>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    files: Vec<File>,
    batches: Vec<Batch>,
    created: usize,
    /// `DELETE /v1/files/{id}` answers 403 (a key without that permission).
    refuse_deletes: bool,
}

struct File {
    id: String,
    filename: String,
    purpose: String,
    content: String,
    created_at: u64,
    /// The parsed requests (`custom_id`, `body`) of an uploaded batch file.
    lines: Vec<(String, Value)>,
}

struct Batch {
    obj: Value,
    lines: Vec<(String, Value)>,
}

impl State {
    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn add_file(&mut self, filename: String, purpose: &str, content: String) -> String {
        let id = format!("file-{}", self.next());
        self.files.push(File {
            id: id.clone(),
            filename,
            purpose: purpose.into(),
            content,
            created_at: now(),
            lines: Vec::new(),
        });
        id
    }
}

impl BatchMock {
    /// Starts the emulator. `answer` turns one batch input line's `body` (a
    /// Responses API request) and its `custom_id` into the outcome of that
    /// request when the batch completes.
    pub fn start(
        answer: impl Fn(&str, &Value) -> ItemOutcome + Send + Sync + 'static,
    ) -> BatchMock {
        let state: Arc<Mutex<State>> = Arc::default();
        let answer: Arc<Answer> = Arc::new(answer);
        let (s, a) = (state.clone(), answer.clone());
        let server = MockServer::start(move |req, _| handle(&mut lock(&s), req, a.as_ref()));
        BatchMock {
            server,
            state,
            answer,
        }
    }

    /// Adds `n` finished batches of someone else's (no memkit metadata), newer
    /// than any before: the list pages past them to find memkit's.
    pub fn add_foreign_batches(&self, n: usize) {
        let mut st = lock(&self.state);
        for _ in 0..n {
            let id = format!("batch_{}", st.next());
            st.batches.push(Batch {
                obj: json!({"id": id, "object": "batch", "status": "completed",
                            "created_at": now(), "metadata": {"team": "data"}}),
                lines: Vec::new(),
            });
        }
    }

    /// The base URL to configure: `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("{}/v1", self.server.url)
    }

    /// Every in-flight batch → `completed`: each line answered by `answer`.
    pub fn complete_all(&self) {
        self.finish_all("completed");
    }

    /// Every in-flight batch → `expired`: the first half (rounded down) of
    /// its lines answered as on completion, the rest in the error file with
    /// code `batch_expired`.
    pub fn expire_all(&self) {
        self.finish_all("expired");
    }

    /// Every in-flight batch → `cancelled`: no output file, every line in
    /// the error file with code `batch_cancelled`.
    pub fn cancel_all(&self) {
        self.finish_all("cancelled");
    }

    /// Every in-flight batch → `failed` at validation, over an enqueued-token
    /// limit of `limit` (OpenAI's error and message): no output, no error file.
    pub fn refuse_all_over_token_limit(&self, limit: &str) {
        for b in lock(&self.state).batches.iter_mut() {
            if in_flight(&b.obj) {
                b.obj["status"] = "failed".into();
                stamp(&mut b.obj, "failed_at");
                b.obj["errors"] = json!({"object": "list", "data": [{
                    "code": "token_limit_exceeded",
                    "message": format!("Enqueued token limit reached for gpt-5.4-mini in \
                        organization org-test. Limit: {limit} enqueued tokens. Please try again \
                        once some in_progress batches have been completed."),
                    "param": null, "line": null}]});
            }
        }
    }

    /// Sets every in-flight batch's status (e.g. `in_progress`,
    /// `finalizing`) and its `<status>_at` timestamp if it has one unset.
    pub fn set_status_all(&self, status: &str) {
        for b in lock(&self.state).batches.iter_mut() {
            if in_flight(&b.obj) {
                b.obj["status"] = status.into();
                stamp(&mut b.obj, &format!("{status}_at"));
            }
        }
    }

    /// The current batch objects, oldest first.
    pub fn batches(&self) -> Vec<Value> {
        let st = lock(&self.state);
        st.batches.iter().map(|b| b.obj.clone()).collect()
    }

    /// The files uploaded through `POST /v1/files`: (id, purpose, content).
    pub fn uploaded_files(&self) -> Vec<(String, String, String)> {
        let st = lock(&self.state);
        st.files
            .iter()
            .filter(|f| f.purpose == "batch")
            .map(|f| (f.id.clone(), f.purpose.clone(), f.content.clone()))
            .collect()
    }

    /// From now on, file deletions are refused.
    pub fn refuse_deletes(&self) {
        lock(&self.state).refuse_deletes = true;
    }

    /// The ids of every file still stored (uploaded or written by a batch).
    pub fn stored_files(&self) -> Vec<String> {
        lock(&self.state)
            .files
            .iter()
            .map(|f| f.id.clone())
            .collect()
    }

    /// How many `POST /v1/batches` succeeded.
    pub fn created_batches(&self) -> usize {
        lock(&self.state).created
    }

    /// Every request the server received.
    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    fn finish_all(&self, status: &str) {
        let mut st = lock(&self.state);
        for i in 0..st.batches.len() {
            if in_flight(&st.batches[i].obj) {
                finish(&mut st, i, status, self.answer.as_ref());
            }
        }
    }
}

/// A completed Responses API response whose one output message's text is
/// `output_json.to_string()` (after a reasoning item), with usage.
pub fn responses_body(
    output_json: &Value,
    input_tokens: u64,
    cached_tokens: u64,
    output_tokens: u64,
) -> Value {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed) + 1;
    json!({
        "id": format!("resp_{n}"),
        "object": "response",
        "created_at": now(),
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "output": [
            {"type": "reasoning", "id": format!("rs_{n}"), "summary": []},
            {"type": "message", "id": format!("msg_{n}"), "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": output_json.to_string(), "annotations": []}]}
        ],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached_tokens},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens
        }
    })
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn in_flight(batch: &Value) -> bool {
    matches!(
        batch["status"].as_str(),
        Some("validating" | "in_progress" | "finalizing" | "cancelling")
    )
}

/// Sets `batch[key]` to now if the key exists and is null.
fn stamp(batch: &mut Value, key: &str) {
    if batch.get(key).is_some_and(Value::is_null) {
        batch[key] = now().into();
    }
}

fn error(status: u16, message: impl Into<String>) -> Response {
    Response::json(
        status,
        json!({"error": {"message": message.into(), "type": "invalid_request_error",
                         "param": null, "code": null}}),
    )
}

fn handle(st: &mut State, req: &Request, answer: &Answer) -> Response {
    let key = req
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "));
    if key.is_none_or(|k| k.trim().is_empty()) {
        return error(401, "You didn't provide an API key.");
    }
    let (path, query) = req.path.split_once('?').unwrap_or((&req.path, ""));
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let find_batch = |st: &State, id: &str| st.batches.iter().position(|b| b.obj["id"] == id);
    match (req.method.as_str(), segments.as_slice()) {
        ("POST", ["v1", "files"]) => upload(st, req),
        ("GET", ["v1", "files"]) => {
            let purpose = query.split('&').find_map(|kv| kv.strip_prefix("purpose="));
            let data: Vec<Value> = st
                .files
                .iter()
                .rev()
                .filter(|f| purpose.is_none_or(|p| f.purpose == p))
                .map(file_object)
                .collect();
            Response::json(
                200,
                json!({"object": "list", "data": data, "has_more": false}),
            )
        }
        ("GET", ["v1", "files", id]) => match st.files.iter().find(|f| f.id == *id) {
            Some(f) => Response::json(200, file_object(f)),
            None => error(404, format!("No such File object: {id}")),
        },
        ("DELETE", ["v1", "files", _]) if st.refuse_deletes => {
            error(403, "You have insufficient permissions for this operation.")
        }
        ("DELETE", ["v1", "files", id]) => match st.files.iter().position(|f| f.id == *id) {
            Some(i) => {
                st.files.remove(i);
                Response::json(200, json!({"id": id, "object": "file", "deleted": true}))
            }
            None => error(404, format!("No such File object: {id}")),
        },
        ("GET", ["v1", "files", id, "content"]) => match st.files.iter().find(|f| f.id == *id) {
            Some(f) => Response {
                status: 200,
                headers: vec![("content-type".into(), "application/octet-stream".into())],
                body: f.content.clone(),
                delay: Duration::ZERO,
            },
            None => error(404, format!("No such File object: {id}")),
        },
        // The synchronous endpoint on the same host (a batch backend's
        // fallback): answered at once, `custom_id` "sync".
        ("POST", ["v1", "responses"]) => match answer("sync", &req.json()) {
            ItemOutcome::Ok(v) => Response::json(200, v),
            ItemOutcome::HttpError { status, message } => error(status, message),
            ItemOutcome::Failed { message, .. } => error(500, message),
        },
        ("POST", ["v1", "batches"]) => create_batch(st, req),
        ("GET", ["v1", "batches"]) => list_batches(st, query),
        ("GET", ["v1", "batches", id]) => match find_batch(st, id) {
            Some(i) => Response::json(200, st.batches[i].obj.clone()),
            None => error(404, format!("No batch found with id '{id}'.")),
        },
        ("POST", ["v1", "batches", id, "cancel"]) => {
            let Some(i) = find_batch(st, id) else {
                return error(404, format!("No batch found with id '{id}'."));
            };
            let obj = &mut st.batches[i].obj;
            if !in_flight(obj) {
                let status = obj["status"].as_str().unwrap_or("").to_string();
                return error(
                    409,
                    format!("Cannot cancel a batch with status '{status}'."),
                );
            }
            obj["status"] = "cancelling".into();
            stamp(obj, "cancelling_at");
            let answered = obj.clone();
            finish(st, i, "cancelled", answer);
            Response::json(200, answered)
        }
        _ => error(404, format!("Invalid URL ({} {path})", req.method)),
    }
}

fn file_object(f: &File) -> Value {
    json!({"id": f.id, "object": "file", "bytes": f.content.len(), "created_at": f.created_at,
           "filename": f.filename, "purpose": f.purpose, "status": "processed"})
}

fn upload(st: &mut State, req: &Request) -> Response {
    let content_type = req.header("content-type").unwrap_or("");
    let Some(parts) = multipart(content_type, &req.body) else {
        return error(400, "Expected a well-formed multipart/form-data body.");
    };
    let part = |name: &str| parts.iter().find(|p| p.name == name);
    match part("purpose") {
        Some(p) if p.content == "batch" => {}
        Some(p) => return error(400, format!("Unsupported purpose '{}'.", p.content)),
        None => return error(400, "Missing required parameter: 'purpose'."),
    }
    let Some((file, filename)) = part("file").and_then(|p| Some((p, p.filename.clone()?))) else {
        return error(400, "Missing required parameter: 'file'.");
    };
    if !filename.ends_with(".jsonl") {
        return error(400, "Invalid file format for Batch API. Must be .jsonl");
    }
    let lines = match validate(&file.content) {
        Ok(lines) => lines,
        Err(message) => return error(400, message),
    };
    st.add_file(filename, "batch", file.content.clone());
    let f = st.files.last_mut().unwrap();
    f.lines = lines;
    Response::json(200, file_object(f))
}

/// The requests of a batch input file, or what is wrong with it.
fn validate(content: &str) -> Result<Vec<(String, Value)>, String> {
    let (mut lines, mut seen, mut model) = (Vec::new(), HashSet::new(), None);
    for (i, line) in content.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("Line {n} is not parseable as valid JSON: {e}"))?;
        let id = v["custom_id"].as_str().unwrap_or("");
        let m = v["body"]["model"].clone();
        let problems = [
            (!v.is_object(), "is not a JSON object"),
            (id.is_empty(), "has no string 'custom_id'"),
            (
                !seen.insert(id.to_string()),
                "repeats an earlier 'custom_id'",
            ),
            (v["method"] != "POST", "has a 'method' other than \"POST\""),
            (
                v["url"] != "/v1/responses",
                "has a 'url' other than \"/v1/responses\"",
            ),
            (!v["body"].is_object(), "has no object 'body'"),
            (
                *model.get_or_insert_with(|| m.clone()) != m,
                "uses another model than line 1",
            ),
        ];
        if let Some((_, what)) = problems.into_iter().find(|(bad, _)| *bad) {
            return Err(format!("Line {n} {what}."));
        }
        lines.push((id.to_string(), v["body"].clone()));
    }
    if lines.is_empty() {
        return Err("The batch input file is empty.".into());
    }
    Ok(lines)
}

#[derive(Default)]
struct Part {
    name: String,
    filename: Option<String>,
    content: String,
}

/// The parts of a `multipart/form-data` body (CRLF or bare LF line breaks),
/// or `None` when it is malformed or lacks its closing delimiter.
fn multipart(content_type: &str, body: &str) -> Option<Vec<Part>> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    let boundary = header_params(params)
        .into_iter()
        .find(|(k, _)| k == "boundary")?
        .1;
    let body = format!("\n{body}");
    let delimiter = format!("\n--{boundary}");
    let mut sections = body.split(delimiter.as_str());
    sections.next()?; // the preamble
    let mut parts = Vec::new();
    for section in sections {
        if section.starts_with("--") {
            return Some(parts);
        }
        let (_, mut rest) = section.split_once('\n')?; // padding after the delimiter
        let mut part = Part::default();
        loop {
            let (line, tail) = rest.split_once('\n')?;
            rest = tail;
            let line = line.trim_end_matches('\r');
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':')?;
            if name.trim().eq_ignore_ascii_case("content-disposition") {
                for (k, v) in header_params(value.split_once(';')?.1) {
                    match k.as_str() {
                        "name" => part.name = v,
                        "filename" => part.filename = Some(v),
                        _ => {}
                    }
                }
            }
        }
        part.content = rest.strip_suffix('\r').unwrap_or(rest).to_string();
        parts.push(part);
    }
    None
}

/// `k=v; k="v"` pairs, keys lower-cased, quotes removed.
fn header_params(s: &str) -> Vec<(String, String)> {
    s.split(';')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| {
            (
                k.trim().to_ascii_lowercase(),
                v.trim().trim_matches('"').to_string(),
            )
        })
        .collect()
}

fn create_batch(st: &mut State, req: &Request) -> Response {
    let Ok(b) = serde_json::from_str::<Value>(&req.body) else {
        return error(400, "We could not parse the JSON body of your request.");
    };
    if b["endpoint"] != "/v1/responses" {
        return error(400, "'endpoint' must be '/v1/responses' here.");
    }
    if b["completion_window"] != "24h" {
        return error(400, "'completion_window' must be '24h'.");
    }
    if !(b["metadata"].is_null() || b["metadata"].is_object()) {
        return error(400, "'metadata' must be an object.");
    }
    let file_id = b["input_file_id"].as_str().unwrap_or("");
    let Some(file) = st
        .files
        .iter()
        .find(|f| f.id == file_id && f.purpose == "batch")
    else {
        return error(400, format!("No such File object: {file_id}"));
    };
    let lines = file.lines.clone();
    let t = now();
    let obj = json!({
        "id": format!("batch_{}", st.next()), "object": "batch", "endpoint": b["endpoint"],
        "errors": null, "input_file_id": file_id, "completion_window": "24h",
        "status": "validating", "output_file_id": null, "error_file_id": null,
        "created_at": t, "in_progress_at": null, "expires_at": t + 86400,
        "finalizing_at": null, "completed_at": null, "failed_at": null, "expired_at": null,
        "cancelling_at": null, "cancelled_at": null,
        "request_counts": {"total": lines.len(), "completed": 0, "failed": 0},
        "metadata": b["metadata"],
    });
    st.batches.push(Batch {
        obj: obj.clone(),
        lines,
    });
    st.created += 1;
    Response::json(200, obj)
}

fn list_batches(st: &State, query: &str) -> Response {
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    };
    let limit = param("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(20usize)
        .clamp(1, 100);
    let newest_first: Vec<&Value> = st.batches.iter().rev().map(|b| &b.obj).collect();
    let start = match param("after") {
        Some(after) => match newest_first.iter().position(|b| b["id"] == after) {
            Some(i) => i + 1,
            None => newest_first.len(),
        },
        None => 0,
    };
    let page: Vec<Value> = newest_first[start..]
        .iter()
        .take(limit)
        .map(|b| (*b).clone())
        .collect();
    Response::json(
        200,
        json!({"object": "list", "data": page,
               "first_id": page.first().map(|b| b["id"].clone()),
               "last_id": page.last().map(|b| b["id"].clone()),
               "has_more": start + page.len() < newest_first.len()}),
    )
}

const EXPIRED: &str = "This request could not be executed before the completion window expired.";
const CANCELLED: &str = "This request was not executed because the batch was cancelled.";

/// Ends batch `i` with `status` (`completed`, `expired` or `cancelled`),
/// writing its output and error files.
fn finish(st: &mut State, i: usize, status: &str, answer: &Answer) {
    let lines = st.batches[i].lines.clone();
    let batch_id = st.batches[i].obj["id"].as_str().unwrap_or("").to_string();
    let answered = match status {
        "completed" => lines.len(),
        "expired" => lines.len() / 2,
        _ => 0,
    };
    let (mut out, mut err, mut ok) = (String::new(), String::new(), 0);
    for (k, (custom_id, body)) in lines.iter().enumerate() {
        let n = st.next();
        let request_id = format!("req_{n}");
        let (response, error) = if k >= answered {
            let (code, message) = match status {
                "expired" => ("batch_expired", EXPIRED),
                _ => ("batch_cancelled", CANCELLED),
            };
            (Value::Null, json!({"code": code, "message": message}))
        } else {
            match answer(custom_id, body) {
                ItemOutcome::Ok(mut v) => {
                    if v.is_object() && v.get("model").is_none() {
                        v["model"] = body["model"].clone();
                    }
                    let r = json!({"status_code": 200, "request_id": request_id, "body": v});
                    (r, Value::Null)
                }
                ItemOutcome::HttpError { status, message } => {
                    let kind = match status {
                        500.. => "server_error",
                        _ => "invalid_request_error",
                    };
                    let e = json!({"message": message, "type": kind, "param": null, "code": null});
                    let r = json!({"status_code": status, "request_id": request_id,
                                   "body": {"error": e}});
                    (r, Value::Null)
                }
                ItemOutcome::Failed { code, message } => {
                    (Value::Null, json!({"code": code, "message": message}))
                }
            }
        };
        let success = response["status_code"] == 200;
        let line = json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                          "response": response, "error": error});
        let file = if success { &mut out } else { &mut err };
        file.push_str(&format!("{line}\n"));
        ok += usize::from(success);
    }
    let output = (!out.is_empty())
        .then(|| st.add_file(format!("{batch_id}_output.jsonl"), "batch_output", out));
    let errors = (!err.is_empty())
        .then(|| st.add_file(format!("{batch_id}_error.jsonl"), "batch_output", err));
    let obj = &mut st.batches[i].obj;
    obj["status"] = status.into();
    obj["output_file_id"] = json!(output);
    obj["error_file_id"] = json!(errors);
    obj["request_counts"] =
        json!({"total": lines.len(), "completed": ok, "failed": lines.len() - ok});
    if answered > 0 {
        stamp(obj, "in_progress_at");
    }
    match status {
        "cancelled" => stamp(obj, "cancelling_at"),
        _ => stamp(obj, "finalizing_at"),
    }
    stamp(obj, &format!("{status}_at"));
}
