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
        let mut resp = self.send(url, || {
            self.authorized(self.agent.post(url), bearer)
                .header("content-type", "application/json")
                .send_json(body)
        })?;
        json_body(url, &mut resp)
    }

    /// GETs `url` and returns the parsed JSON answer.
    pub fn get_json(&self, url: &str, bearer: Option<&str>) -> Result<Value> {
        let mut resp = self.send(url, || self.authorized(self.agent.get(url), bearer).call())?;
        json_body(url, &mut resp)
    }

    /// DELETEs `url` (its answer is not read).
    pub fn delete(&self, url: &str, bearer: Option<&str>) -> Result<()> {
        self.send(url, || {
            self.authorized(self.agent.delete(url), bearer).call()
        })?;
        Ok(())
    }

    /// GETs `url` and hands each line of the body to `line`, streaming (a
    /// line longer than `max_line` bytes is an error, not an allocation).
    pub fn get_lines(
        &self,
        url: &str,
        bearer: Option<&str>,
        max_line: usize,
        line: &mut dyn FnMut(&str) -> Result<()>,
    ) -> Result<()> {
        use std::io::{BufRead, Read};
        let mut resp = self.send(url, || self.authorized(self.agent.get(url), bearer).call())?;
        let reader = resp.body_mut().with_config().limit(u64::MAX).reader();
        let mut reader = std::io::BufReader::new(reader);
        let mut buf = Vec::new();
        let mut number = 0u64;
        loop {
            buf.clear();
            let n = (&mut reader)
                .take(max_line as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| Error::failed(format!("{url}: reading the body: {e}")))?;
            if n == 0 {
                return Ok(());
            }
            number += 1;
            if buf.len() > max_line && buf.last() != Some(&b'\n') {
                return Err(Error::failed(format!(
                    "{url}: line {number} is longer than {max_line} bytes"
                )));
            }
            let text = String::from_utf8_lossy(&buf);
            if !text.trim().is_empty() {
                line(text.trim_end())?;
            }
        }
    }

    /// POSTs a `multipart/form-data` body of text `fields` and one file
    /// (`name`, file name, content type, bytes); returns the JSON answer.
    pub fn post_multipart(
        &self,
        url: &str,
        bearer: Option<&str>,
        fields: &[(&str, &str)],
        file: (&str, &str, &str, &[u8]),
    ) -> Result<Value> {
        let boundary = format!("memkit-{}", crate::util::ids::new_uuid_v4());
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
                )
                .as_bytes(),
            );
        }
        let (name, filename, content_type, bytes) = file;
        body.extend_from_slice(
            format!(
                "--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\ncontent-type: {content_type}\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={boundary}");
        let mut resp = self.send(url, || {
            self.authorized(self.agent.post(url), bearer)
                .header("content-type", &content_type)
                .send(&body[..])
        })?;
        json_body(url, &mut resp)
    }

    fn authorized<B>(
        &self,
        request: ureq::RequestBuilder<B>,
        bearer: Option<&str>,
    ) -> ureq::RequestBuilder<B> {
        match bearer {
            Some(key) => request.header("authorization", &format!("Bearer {key}")),
            None => request,
        }
    }

    /// Sends with `attempt` until a 2xx answer, retrying 429 / 5xx and
    /// connection errors with backoff (honouring `Retry-After`); any other
    /// status is an error that shows it and the start of the body.
    fn send(
        &self,
        url: &str,
        attempt: impl Fn() -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<ureq::http::Response<ureq::Body>> {
        let mut tries = 0u32;
        loop {
            let (retryable, wait, error) = match attempt() {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    if (200..300).contains(&status) {
                        return Ok(resp);
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
            if !retryable || tries >= self.max_retries {
                let after = if tries > 0 {
                    format!(" (after {} attempts)", tries + 1)
                } else {
                    String::new()
                };
                return Err(Error::failed(format!("{error}{after}")));
            }
            let backoff = wait.unwrap_or_else(|| Duration::from_secs(1u64 << tries.min(5)));
            std::thread::sleep(backoff.min(MAX_BACKOFF));
            tries += 1;
        }
    }
}

/// The JSON body of a 2xx answer.
fn json_body(url: &str, resp: &mut ureq::http::Response<ureq::Body>) -> Result<Value> {
    let status = resp.status().as_u16();
    resp.body_mut()
        .with_config()
        .limit(256 * 1024 * 1024)
        .read_json::<Value>()
        .map_err(|e| {
            Error::failed(format!(
                "{url}: HTTP {status} but the body is not JSON: {e}"
            ))
        })
}
