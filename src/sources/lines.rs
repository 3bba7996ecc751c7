//! Line reading that survives real logs: plain or zstd-compressed files, a UTF-8
//! BOM, CRLF endings, invalid UTF-8 (decoded lossily), lines of many megabytes
//! and an unterminated last line — with bounded memory whatever the input: a
//! line longer than [`MAX_LINE_BYTES`] has its long JSON strings cut while it
//! is read (never held whole), or is skipped and handed on as over-long when
//! that is not enough, and a compressed file that expands far beyond any log
//! (a decompression bomb) stops with an error naming it.

use super::shrink::Shrinker;
use crate::error::{IoContext, Result};
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The longest line kept as it is; a longer one is shrunk (its long strings
/// cut) or, failing that, skipped and reported. Real lines reach megabytes
/// (pasted images, large tool outputs).
pub const MAX_LINE_BYTES: usize = 8 << 20;

/// How far a compressed file may expand: this many times its own size…
const MAX_EXPANSION_RATIO: u64 = 1000;
/// …or this much, whichever is more.
const MIN_EXPANSION_ALLOWED: u64 = 256 << 20;

/// One line handed to a callback.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number in the (decompressed) file.
    pub number: u64,
    /// The text without its line ending.
    pub text: Cow<'a, str>,
    /// `false` for a last line with no newline (possibly still being written).
    pub terminated: bool,
    /// The length of a line over [`MAX_LINE_BYTES`], whose text was skipped (empty).
    pub overlong: Option<u64>,
}

/// Whether `path` is a zstd-compressed log (`.zst`).
pub fn is_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Opens `path` for reading, decompressing `.zst` files on the fly (and
/// stopping one that expands like a decompression bomb).
pub fn open(path: &Path) -> Result<Box<dyn Read + Send>> {
    let file = File::open(path).at(path)?;
    if is_compressed(path) {
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let decoder = zstd::stream::read::Decoder::new(file).at(path)?;
        Ok(Box::new(Bounded {
            inner: decoder,
            read: 0,
            limit: (size * MAX_EXPANSION_RATIO).max(MIN_EXPANSION_ALLOWED),
            size,
        }))
    } else {
        Ok(Box::new(file))
    }
}

/// A decompressing reader that fails once it has produced more than `limit` bytes.
struct Bounded<R> {
    inner: R,
    read: u64,
    limit: u64,
    size: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!(
                    "expands to more than {} MiB from {} bytes: not read (a decompression bomb?)",
                    self.limit >> 20,
                    self.size
                ),
            ));
        }
        Ok(n)
    }
}

/// Calls `f` for every line of `path` until it returns `false`.
///
/// Returns the number of bytes read.
pub fn for_each_line(path: &Path, f: &mut dyn FnMut(u64, &str) -> bool) -> Result<u64> {
    read_lines(path, &mut |line| f(line.number, &line.text))
}

/// One line as raw bytes (line ending and BOM removed), decoded only on demand.
#[derive(Debug)]
pub struct RawLine<'a> {
    /// 1-based line number in the (decompressed) file.
    pub number: u64,
    /// The bytes without the line ending.
    pub bytes: &'a [u8],
    /// `false` for a last line with no newline (possibly still being written).
    pub terminated: bool,
    /// The length of a line over [`MAX_LINE_BYTES`], whose bytes were skipped (empty).
    pub overlong: Option<u64>,
}

impl<'a> RawLine<'a> {
    /// The line as text (invalid UTF-8 replaced).
    pub fn text(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.bytes)
    }
}

/// Calls `f` for every line of `path` (with its termination flag) until it returns `false`.
///
/// Returns the number of bytes read.
pub fn read_lines(path: &Path, f: &mut dyn FnMut(Line<'_>) -> bool) -> Result<u64> {
    read_raw_lines(path, &mut |raw| {
        f(Line {
            number: raw.number,
            text: raw.text(),
            terminated: raw.terminated,
            overlong: raw.overlong,
        })
    })
}

/// Calls `f` for every line of `path` as raw bytes, so a reader can skip or
/// pick apart lines it does not need decoded. Returns the number of bytes read.
///
/// A line that grows past [`MAX_LINE_BYTES`] is shrunk while it is read
/// (its long JSON strings cut, see [`Shrinker`]); only a line that is still
/// too long after that is skipped and handed on as over-long.
pub fn read_raw_lines(path: &Path, f: &mut dyn FnMut(RawLine<'_>) -> bool) -> Result<u64> {
    let mut reader = open(path)?;
    let mut buf = vec![0u8; 256 * 1024];
    // A line that spans two reads is gathered here (shrunk once it is long);
    // lines inside the buffer are handed out without a copy.
    let mut carry: Vec<u8> = Vec::new();
    let mut long = LongLine::None;
    let (mut start, mut end) = (0usize, 0usize);
    let mut number = 0u64;
    let mut bytes = 0u64;
    loop {
        if let Some(pos) = memchr::memchr(b'\n', &buf[start..end]) {
            let stop = start + pos + 1;
            let piece = &buf[start..stop];
            number += 1;
            if matches!(long, LongLine::None) && carry.len() + piece.len() > MAX_LINE_BYTES + 1 {
                long = LongLine::start(&mut carry);
            }
            let keep_going = if matches!(long, LongLine::None) && carry.is_empty() {
                emit(piece, number, f)
            } else {
                long.add(piece, &mut carry);
                match std::mem::take(&mut long) {
                    LongLine::Skipping(len) => overlong(len, number, true, f),
                    _ => emit(&carry, number, f),
                }
            };
            carry.clear();
            start = stop;
            if !keep_going {
                break;
            }
            continue;
        }
        let piece = &buf[start..end];
        if matches!(long, LongLine::None) && carry.len() + piece.len() > MAX_LINE_BYTES {
            long = LongLine::start(&mut carry);
        }
        long.add(piece, &mut carry);
        start = 0;
        end = read_some(&mut reader, &mut buf).map_err(|e| read_error(path, e))?;
        bytes += end as u64;
        if end == 0 {
            match long {
                LongLine::Skipping(len) => {
                    overlong(len, number + 1, false, f);
                }
                // No newline to allow for at the end of the file.
                LongLine::Shrinking { raw, .. } if carry.len() > MAX_LINE_BYTES => {
                    overlong(raw, number + 1, false, f);
                }
                _ if !carry.is_empty() => {
                    number += 1;
                    emit(&carry, number, f);
                }
                _ => {}
            }
            break;
        }
    }
    Ok(bytes)
}

/// What is being done with a line that outgrew the cap.
#[derive(Default)]
enum LongLine {
    /// Nothing: the line is short so far.
    #[default]
    None,
    /// Its long strings are being cut; `raw` bytes of it were read.
    Shrinking { shrinker: Shrinker, raw: u64 },
    /// Still too long once shrunk: its bytes are dropped; this many so far.
    Skipping(u64),
}

impl LongLine {
    /// Starts shrinking the line gathered in `carry` (rewritten in place).
    fn start(carry: &mut Vec<u8>) -> LongLine {
        let gathered = std::mem::take(carry);
        let mut long = LongLine::Shrinking {
            shrinker: Shrinker::new(),
            raw: 0,
        };
        long.add(&gathered, carry);
        long
    }

    /// Adds the next `piece` of the line, shrunk into `carry`; gives up (and
    /// frees `carry`) when even the shrunk line is too long.
    fn add(&mut self, piece: &[u8], carry: &mut Vec<u8>) {
        match self {
            LongLine::None => carry.extend_from_slice(piece),
            LongLine::Shrinking { shrinker, raw } => {
                *raw += piece.len() as u64;
                shrinker.feed(piece, carry);
                if carry.len() > MAX_LINE_BYTES + 1 {
                    *self = LongLine::Skipping(*raw);
                    *carry = Vec::new();
                }
            }
            LongLine::Skipping(len) => *len += piece.len() as u64,
        }
    }
}

/// Hands on a line that was too long to keep.
fn overlong(
    len: u64,
    number: u64,
    terminated: bool,
    f: &mut dyn FnMut(RawLine<'_>) -> bool,
) -> bool {
    f(RawLine {
        number,
        bytes: &[],
        terminated,
        overlong: Some(len),
    })
}

/// A read error, saying when a compressed file is not (whole) zstd data.
fn read_error(path: &Path, e: std::io::Error) -> crate::error::Error {
    use std::io::ErrorKind::{FileTooLarge, PermissionDenied};
    if is_compressed(path) && !matches!(e.kind(), PermissionDenied | FileTooLarge) {
        crate::error::Error::failed(format!(
            "{}: not readable as zstd data ({e}): a corrupt or cut-off compressed file",
            path.display()
        ))
    } else {
        crate::error::Error::io(path, e)
    }
}

/// Reads into `buf`, retrying on interruption.
fn read_some(reader: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Strips the line ending (and a BOM on line 1) and calls `f`.
fn emit(line: &[u8], number: u64, f: &mut dyn FnMut(RawLine<'_>) -> bool) -> bool {
    let terminated = line.last() == Some(&b'\n');
    let mut slice = line;
    if terminated {
        slice = &slice[..slice.len() - 1];
    }
    if slice.last() == Some(&b'\r') {
        slice = &slice[..slice.len() - 1];
    }
    if number == 1 && slice.starts_with(&[0xEF, 0xBB, 0xBF]) {
        slice = &slice[3..];
    }
    f(RawLine {
        number,
        bytes: slice,
        terminated,
        overlong: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("memkit-lines-{}", crate::util::ids::new_uuid_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn collect(path: &Path) -> Vec<(u64, String, bool)> {
        let mut out = Vec::new();
        read_lines(path, &mut |l| {
            out.push((l.number, l.text.into_owned(), l.terminated));
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn strips_bom_crlf_and_flags_unterminated_tail() {
        let p = temp("a.jsonl", b"\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}\r\n{\"c\":");
        let lines = collect(&p);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], (1, "{\"a\":1}".to_string(), true));
        assert_eq!(lines[1], (2, "{\"b\":2}".to_string(), true));
        assert_eq!(lines[2], (3, "{\"c\":".to_string(), false));
    }

    #[test]
    fn invalid_utf8_is_lossy() {
        let p = temp("b.jsonl", b"{\"t\":\"a\xFFb\"}\n");
        assert_eq!(collect(&p)[0].1, "{\"t\":\"a\u{FFFD}b\"}");
    }

    #[test]
    fn lines_across_read_boundaries_are_whole() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!(
                "{{\"n\":{i},\"pad\":\"{}\"}}\n",
                "x".repeat(i % 700)
            ));
        }
        text.push_str(&"y".repeat(600_000));
        let p = temp("big.jsonl", text.as_bytes());
        let lines = collect(&p);
        assert_eq!(lines.len(), 2001);
        assert_eq!(
            lines[1999].1,
            format!("{{\"n\":1999,\"pad\":\"{}\"}}", "x".repeat(1999 % 700))
        );
        assert_eq!(lines[2000].1.len(), 600_000);
        assert!(!lines[2000].2, "the last line has no newline");
    }

    #[test]
    fn an_overlong_line_is_skipped_while_read_and_the_rest_is_read() {
        let mut text = b"{\"a\":1}\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        text.extend_from_slice(b"\n{\"b\":2}\n");
        text.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 1));
        let p = temp("long.jsonl", &text);
        let mut seen = Vec::new();
        read_raw_lines(&p, &mut |raw| {
            seen.push((raw.number, raw.bytes.len(), raw.overlong, raw.terminated));
            true
        })
        .unwrap();
        assert_eq!(
            seen,
            vec![
                (1, 7, None, true),
                (2, 0, Some(MAX_LINE_BYTES as u64 + 11), true),
                (3, 7, None, true),
                (4, 0, Some(MAX_LINE_BYTES as u64 + 1), false),
            ]
        );
    }

    #[test]
    fn a_long_json_line_keeps_its_fields_and_loses_only_its_long_strings() {
        let image = "iVBORw0KGgo".repeat(MAX_LINE_BYTES / 10);
        let line = format!(
            "{{\"type\":\"user\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"why does this crash?\"}},{{\"type\":\"image\",\"source\":{{\"data\":\"{image}\"}}}}]}}}}\n{{\"b\":2}}\n"
        );
        let p = temp("image.jsonl", line.as_bytes());
        let mut seen = Vec::new();
        read_raw_lines(&p, &mut |raw| {
            seen.push((raw.overlong, raw.bytes.len(), raw.text().into_owned()));
            true
        })
        .unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].0, None);
        assert!(seen[0].1 < 100 << 10, "{}", seen[0].1);
        let v: serde_json::Value = serde_json::from_str(&seen[0].2).unwrap();
        assert_eq!(v["message"]["content"][0]["text"], "why does this crash?");
        assert_eq!(seen[1].2, "{\"b\":2}");
    }

    #[test]
    fn a_decompression_bomb_is_stopped_and_named() {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 19).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..300 {
            std::io::Write::write_all(&mut encoder, &zeros).unwrap();
        }
        let bomb = encoder.finish().unwrap();
        assert!(bomb.len() < 100_000, "{}", bomb.len());
        let p = temp("bomb.jsonl.zst", &bomb);
        let err = read_raw_lines(&p, &mut |_| true).unwrap_err().to_string();
        assert!(
            err.contains("bomb.jsonl.zst") && err.contains("decompression bomb"),
            "{err}"
        );
    }

    #[test]
    fn reads_zstd() {
        let plain = b"{\"a\":1}\n{\"b\":2}\n";
        let compressed = zstd::encode_all(&plain[..], 3).unwrap();
        let p = temp("c.jsonl.zst", &compressed);
        let lines = collect(&p);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].1, "{\"b\":2}");
    }
}
