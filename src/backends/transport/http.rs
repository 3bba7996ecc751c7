//! HTTP through ureq: timeouts, bounded retries with backoff on 429 / 5xx and
//! connection errors (honouring `Retry-After`), errors that show the status and
//! the start of the body.

use crate::error::{Error, Result};
use serde_json::Value;
use std::time::Duration;

/// How much of an error body goes into a message.
const ERROR_BODY_CHARS: usize = 300;
/// Longest wait between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// A JSON-over-HTTP client with retries.
pub struct HttpClient {
    agent: ureq::Agent,
    max_retries: u32,
}

impl HttpClient {
    /// A client whose requests time out after `timeout` (connect: at most 10 s).
    pub fn new(timeout: Duration, max_retries: u32) -> HttpClient {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(concat!("memkit/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        HttpClient { agent, max_retries }
    }

    /// A cheap GET (e.g. `/models`) that checks a server answers and accepts the key.
    pub fn probe(&self, url: &str, bearer: Option<&str>) -> Result<u16> {
        let mut request = self.agent.get(url);
        if let Some(key) = bearer {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        match request.call() {
            Ok(resp) => Ok(resp.status().as_u16()),
            Err(e) => Err(Error::failed(format!("{url}: {e}"))),
        }
    }

    /// POSTs `body` as JSON and returns the parsed JSON answer.
    pub fn post_json(&self, url: &str, bearer: Option<&str>, body: &Value) -> Result<Value> {
        let mut attempt = 0u32;
        loop {
            let mut request = self
                .agent
                .post(url)
                .header("content-type", "application/json");
            if let Some(key) = bearer {
                request = request.header("authorization", &format!("Bearer {key}"));
            }
            let outcome = request.send_json(body);
            let (retryable, wait, error) = match outcome {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    if (200..300).contains(&status) {
                        return resp.body_mut().read_json::<Value>().map_err(|e| {
                            Error::failed(format!(
                                "{url}: HTTP {status} but the body is not JSON: {e}"
                            ))
                        });
                    }
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let text = resp
                        .body_mut()
                        .with_config()
                        .limit(64 * 1024)
                        .lossy_utf8(true)
                        .read_to_string()
                        .unwrap_or_default();
                    let start: String = text.chars().take(ERROR_BODY_CHARS).collect();
                    let retryable = status == 429 || status >= 500;
                    (
                        retryable,
                        retry_after,
                        format!("{url}: HTTP {status}: {}", start.trim()),
                    )
                }
                Err(ureq::Error::Timeout(t)) => {
                    return Err(Error::failed(format!("{url}: timed out ({t})")));
                }
                Err(e) => (true, None, format!("{url}: {e}")),
            };
            if !retryable || attempt >= self.max_retries {
                let tries = if attempt > 0 {
                    format!(" (after {} attempts)", attempt + 1)
                } else {
                    String::new()
                };
                return Err(Error::failed(format!("{error}{tries}")));
            }
            let backoff = wait.unwrap_or_else(|| Duration::from_secs(1u64 << attempt.min(5)));
            std::thread::sleep(backoff.min(MAX_BACKOFF));
            attempt += 1;
        }
    }
}
