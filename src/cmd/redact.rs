//! `memkit redact`: a stdin → stdout filter. Plain mode streams any bytes line
//! by line; `--jsonl` rewrites only the `text` field of each object. Findings
//! (`--report`) go to stderr so stdout carries nothing but the text.

use super::Ctx;
use crate::cli::RedactArgs;
use crate::error::{Error, Result};
use crate::redact::redact_with_findings;
use crate::redact::stream::{Located, redact_stream};
use crate::ui;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, BufWriter, Read, Write};

/// Runs the filter; exit 0 whether or not secrets were found.
pub fn run(ctx: &Ctx, args: &RedactArgs) -> Result<i32> {
    let input = io::stdin().lock();
    let mut output = Tracked {
        inner: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        failed: false,
    };
    let mut report = Report {
        enabled: args.report,
        json: ctx.json,
    };
    let result = if args.jsonl {
        jsonl(input, &mut output, &mut report)
    } else {
        redact_stream(input, &mut output, |l| report.emit(&l, None))
            .map(drop)
            .map_err(Failure::Io)
    };
    match result {
        Ok(()) => Ok(0),
        Err(Failure::Io(e)) if output.failed => Err(ui::stdout_error(e)),
        Err(Failure::Io(e)) => Err(Error::failed(format!("reading stdin: {e}"))),
        Err(Failure::Line(n, why)) => Err(Error::failed(format!(
            "stdin line {n}: not a JSON object with a string \"text\" field ({why})"
        ))),
        Err(Failure::TooLong(n)) => Err(Error::failed(format!(
            "stdin line {n}: longer than {} MiB, the most one --jsonl line may hold",
            MAX_JSONL_LINE >> 20
        ))),
    }
}

/// Why the filter stopped.
enum Failure {
    /// Reading stdin or writing stdout failed.
    Io(io::Error),
    /// `--jsonl`: this line is not an object with a string `text`.
    Line(u64, String),
    /// `--jsonl`: this line is longer than the cap.
    TooLong(u64),
}

/// A writer that remembers whether writing failed (to tell stdout errors
/// from stdin errors).
struct Tracked<W> {
    inner: W,
    failed: bool,
}

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|_| self.failed = true)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

/// Where findings go: nowhere, `line:column rule` lines or JSON Lines, on stderr.
struct Report {
    enabled: bool,
    json: bool,
}

#[derive(serde::Serialize)]
struct Entry<'a> {
    line: u64,
    column: u64,
    rule: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RawValue>,
}

impl Report {
    fn emit(&mut self, at: &Located, id: Option<&RawValue>) {
        if !self.enabled {
            return;
        }
        if self.json {
            let entry = Entry {
                line: at.line,
                column: at.column,
                rule: at.rule,
                id,
            };
            match serde_json::to_string(&entry) {
                Ok(s) => eprintln!("{s}"),
                Err(e) => ui::warn(format!("could not render JSON: {e}")),
            }
        } else {
            eprintln!("{}:{} {}", at.line, at.column, at.rule);
        }
    }
}

/// The members of one JSON object in their order, values left unparsed.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    out.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(MembersVisitor)
    }
}

/// Redacts the `text` of one JSON line; the line comes back unchanged when
/// there was nothing to redact, otherwise with only that value replaced.
fn redact_line<'a>(
    line: &'a str,
    n: u64,
    report: &mut Report,
) -> std::result::Result<Cow<'a, str>, Failure> {
    let bad = |why: String| Failure::Line(n, why);
    let members: Members<'_> = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
    let id = members.0.iter().find(|(k, _)| k == "id").map(|(_, v)| *v);
    let raw = members
        .0
        .iter()
        .find(|(k, _)| k == "text")
        .map(|(_, v)| *v)
        .ok_or_else(|| bad("no \"text\" field".into()))?;
    let text: String =
        serde_json::from_str(raw.get()).map_err(|_| bad("\"text\" is not a string".into()))?;
    let (clean, findings) = redact_with_findings(&text);
    for f in &findings {
        let at = Located {
            rule: f.rule,
            line: n,
            column: f.start as u64 + 1,
        };
        report.emit(&at, id);
    }
    if let Cow::Owned(clean) = clean {
        let encoded = serde_json::to_string(&clean).map_err(|e| bad(e.to_string()))?;
        let start = raw.get().as_ptr() as usize - line.as_ptr() as usize;
        let end = start + raw.get().len();
        return Ok(Cow::Owned(format!(
            "{}{encoded}{}",
            &line[..start],
            &line[end..]
        )));
    }
    Ok(Cow::Borrowed(line))
}

/// The longest `--jsonl` line (a JSON object is parsed whole).
const MAX_JSONL_LINE: usize = crate::sources::lines::MAX_LINE_BYTES;

/// `--jsonl`: one object per line, only `text` redacted, order kept.
fn jsonl(
    mut input: impl BufRead,
    output: &mut impl Write,
    report: &mut Report,
) -> std::result::Result<(), Failure> {
    let mut buf = Vec::new();
    let mut n = 0u64;
    loop {
        buf.clear();
        // Never more than one line's cap (and its CRLF) in memory: a longer
        // line is an error.
        let read = (&mut input)
            .take(MAX_JSONL_LINE as u64 + 2)
            .read_until(b'\n', &mut buf)
            .map_err(Failure::Io)?;
        if read == 0 {
            break;
        }
        n += 1;
        let text_len =
            buf.len() - usize::from(buf.ends_with(b"\n")) - usize::from(buf.ends_with(b"\r\n"));
        if text_len > MAX_JSONL_LINE {
            return Err(Failure::TooLong(n));
        }
        let body_len = buf.len()
            - buf
                .iter()
                .rev()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        let (body, ending) = buf.split_at(body_len);
        if body.iter().all(u8::is_ascii_whitespace) {
            output.write_all(&buf).map_err(Failure::Io)?;
            continue;
        }
        let line = std::str::from_utf8(body).map_err(|e| Failure::Line(n, e.to_string()))?;
        let clean = redact_line(line, n, report)?;
        output.write_all(clean.as_bytes()).map_err(Failure::Io)?;
        output.write_all(ending).map_err(Failure::Io)?;
    }
    output.flush().map_err(Failure::Io)
}
