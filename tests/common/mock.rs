//! A minimal HTTP/1.1 server on 127.0.0.1 for backend tests: records every
//! request, answers with a handler, can hold requests to measure concurrency.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

/// What to answer.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Response {
    pub fn json(status: u16, body: serde_json::Value) -> Response {
        Response {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    pub fn with_header(mut self, k: &str, v: &str) -> Response {
        self.headers.push((k.into(), v.into()));
        self
    }

    pub fn delayed(mut self, d: Duration) -> Response {
        self.delay = d;
        self
    }
}

type Handler = dyn Fn(&Request, usize) -> Response + Send + Sync;

/// The running server.
pub struct MockServer {
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl MockServer {
    /// Starts a server; `handler` gets each request and its 0-based index.
    pub fn start(
        handler: impl Fn(&Request, usize) -> Response + Send + Sync + 'static,
    ) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let in_flight: Arc<AtomicUsize> = Arc::default();
        let max_in_flight: Arc<AtomicUsize> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let (r, i, m) = (requests.clone(), in_flight.clone(), max_in_flight.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (r, i, m, h) = (r.clone(), i.clone(), m.clone(), handler.clone());
                std::thread::spawn(move || serve(stream, &r, &i, &m, h.as_ref()));
            }
        });
        MockServer {
            url,
            requests,
            in_flight,
            max_in_flight,
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
}

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Request>>,
    in_flight: &AtomicUsize,
    max_in_flight: &AtomicUsize,
    handler: &Handler,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    // Codex may compress request bodies.
    let zstd = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("content-encoding") && v.eq_ignore_ascii_case("zstd"));
    if zstd {
        body = zstd::decode_all(&body[..]).unwrap_or(body);
    }
    let request = Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let index = {
        let mut all = requests.lock().unwrap();
        all.push(request.clone());
        all.len() - 1
    };
    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    max_in_flight.fetch_max(now, Ordering::SeqCst);
    let response = handler(&request, index);
    std::thread::sleep(response.delay);
    in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-length: {}\r\nconnection: close\r\n",
        response.status,
        response.body.len()
    );
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(response.body.as_bytes());
    let _ = out.flush();
}

/// A Responses API answer carrying `output` as the JSON text.
pub fn responses_answer(output: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": output.to_string(), "annotations": []}]}
        ],
        "usage": {"input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500}
    })
}

/// A chat-completions answer carrying `output` as the message content.
pub fn chat_answer(output: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": output.to_string()}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 200, "total_tokens": 1100}
    })
}

/// A typical stage-1 answer.
pub fn stage_one(tag: &str) -> serde_json::Value {
    serde_json::json!({
        "raw_memory": format!("---\ndescription: {tag}\ntask: t\ntask_group: g\ntask_outcome: success\ncwd: /w\nkeywords: k\n---\n\n### Task 1: {tag}\ntask: t\n"),
        "rollout_summary": format!("# {tag}\n\nRollout context: test.\n"),
        "rollout_slug": format!("slug-{tag}"),
    })
}

/// A deterministic stand-in for an embedding model that knows no meaning:
/// each word's character trigrams (with word boundaries) hashed into 256
/// dimensions, so texts are near when they share words or word pieces.
pub fn trigram_embedding(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 256];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let padded: Vec<char> = format!("<{}>", word.to_lowercase()).chars().collect();
        for gram in padded.windows(3) {
            let mut h: u32 = 2166136261;
            for c in gram {
                h = (h ^ *c as u32).wrapping_mul(16777619);
            }
            v[(h % 256) as usize] += 1.0;
        }
    }
    v
}

/// An OpenAI `/embeddings` answer for `request`: each input embedded by
/// `embed`, `usage.prompt_tokens` one per whitespace-separated word.
pub fn embeddings_answer(request: &Request, embed: impl Fn(&str) -> Vec<f32>) -> serde_json::Value {
    let body = request.json();
    let inputs: Vec<String> = body["input"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let tokens: usize = inputs.iter().map(|i| i.split_whitespace().count()).sum();
    let data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| serde_json::json!({"object": "embedding", "index": i, "embedding": embed(text)}))
        .collect();
    serde_json::json!({
        "object": "list",
        "data": data,
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens}
    })
}
