//! Line reading that survives real logs: plain or zstd-compressed files, a UTF-8
//! BOM, CRLF endings, invalid UTF-8 (decoded lossily), lines of many megabytes
//! and an unterminated last line.

use crate::error::{IoContext, Result};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// One line handed to a callback.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number in the (decompressed) file.
    pub number: u64,
    /// The text without its line ending.
    pub text: Cow<'a, str>,
    /// `false` for a last line with no newline (possibly still being written).
    pub terminated: bool,
}

/// Whether `path` is a zstd-compressed log (`.zst`).
pub fn is_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Opens `path` for reading, decompressing `.zst` files on the fly.
pub fn open(path: &Path) -> Result<Box<dyn Read + Send>> {
    let file = File::open(path).at(path)?;
    if is_compressed(path) {
        let decoder = zstd::stream::read::Decoder::new(file).at(path)?;
        Ok(Box::new(decoder))
    } else {
        Ok(Box::new(file))
    }
}

/// Calls `f` for every line of `path` until it returns `false`.
///
/// Returns the number of bytes read.
pub fn for_each_line(path: &Path, f: &mut dyn FnMut(u64, &str) -> bool) -> Result<u64> {
    read_lines(path, &mut |line| f(line.number, &line.text))
}

/// Calls `f` for every line of `path` (with its termination flag) until it returns `false`.
///
/// Returns the number of bytes read.
pub fn read_lines(path: &Path, f: &mut dyn FnMut(Line<'_>) -> bool) -> Result<u64> {
    let mut reader = BufReader::with_capacity(256 * 1024, open(path)?);
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut number = 0u64;
    let mut bytes = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).at(path)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        number += 1;
        let terminated = buf.last() == Some(&b'\n');
        let mut slice: &[u8] = &buf;
        if terminated {
            slice = &slice[..slice.len() - 1];
        }
        if slice.last() == Some(&b'\r') {
            slice = &slice[..slice.len() - 1];
        }
        if number == 1 && slice.starts_with(&[0xEF, 0xBB, 0xBF]) {
            slice = &slice[3..];
        }
        let text = String::from_utf8_lossy(slice);
        if !f(Line {
            number,
            text,
            terminated,
        }) {
            break;
        }
    }
    Ok(bytes)
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
    fn reads_zstd() {
        let plain = b"{\"a\":1}\n{\"b\":2}\n";
        let compressed = zstd::encode_all(&plain[..], 3).unwrap();
        let p = temp("c.jsonl.zst", &compressed);
        let lines = collect(&p);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].1, "{\"b\":2}");
    }
}
