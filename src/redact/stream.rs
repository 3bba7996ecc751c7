//! Redaction of a byte stream, line by line, with bounded memory: the unit of
//! work is one line, except that a private-key block whose lines arrive
//! separately is gathered (up to [`MAX_BLOCK`]) and redacted as one piece.
//! A line longer than [`MAX_PIECE`] is cut into pieces at a blank or comma.

use super::{Finding, find_secrets_after, replace_bytes};
use regex::bytes::Regex;
use std::io::{self, BufRead, Write};
use std::sync::LazyLock;

/// Most bytes gathered for one private-key block.
pub const MAX_BLOCK: usize = 1 << 20;

/// Most bytes of one line redacted at once (a longer line is cut at a blank
/// or comma, which no token spans), so memory stays bounded on any input.
pub const MAX_PIECE: usize = 4 << 20;

/// A finding placed in the stream (never the secret itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Rule that matched.
    pub rule: &'static str,
    /// 1-based input line of the first byte of the secret.
    pub line: u64,
    /// 1-based byte column of that byte within its line.
    pub column: u64,
}

static KEY_BEGIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY").expect("valid regex"));
static KEY_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY").expect("valid regex"));

/// Whether `chunk` opens a private-key block that it does not also close.
fn opens_block(chunk: &[u8]) -> bool {
    KEY_BEGIN
        .find_iter(chunk)
        .last()
        .is_some_and(|m| !KEY_END.is_match(&chunk[m.end()..]))
}

/// Reads one line (with its `\n`) into `buf`, or at most [`MAX_PIECE`] bytes
/// of it, cut after the last blank or comma. Returns false at end of input.
fn read_piece(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<bool> {
    buf.clear();
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(!buf.is_empty());
        }
        let room = max - buf.len();
        let window = &available[..available.len().min(room)];
        if let Some(p) = window.iter().position(|&b| b == b'\n') {
            buf.extend_from_slice(&window[..=p]);
            input.consume(p + 1);
            return Ok(true);
        }
        let window_len = window.len();
        let cut = if window_len == room {
            window
                .iter()
                .rposition(|&b| matches!(b, b' ' | b'\t' | b','))
                .map_or(window_len, |p| p + 1)
        } else {
            window_len
        };
        buf.extend_from_slice(&window[..cut]);
        input.consume(cut);
        if buf.len() >= max || cut < window_len {
            return Ok(true);
        }
    }
}

/// Where the next chunk starts: its line number and the column of its first byte.
#[derive(Debug, Clone, Copy)]
struct Position {
    line: u64,
    column: u64,
}

impl Position {
    /// Places the findings of `chunk`, then moves past it.
    fn locate(&mut self, chunk: &[u8], findings: &[Finding], on_finding: &mut impl FnMut(Located)) {
        let mut line = self.line;
        let mut line_start: Option<usize> = None;
        let mut scanned = 0;
        for f in findings {
            count_lines(chunk, scanned, f.start, &mut line, &mut line_start);
            scanned = f.start;
            let column = match line_start {
                Some(s) => (f.start - s) as u64 + 1,
                None => self.column + f.start as u64,
            };
            on_finding(Located {
                rule: f.rule,
                line,
                column,
            });
        }
        count_lines(chunk, scanned, chunk.len(), &mut line, &mut line_start);
        self.column = match line_start {
            Some(s) => (chunk.len() - s) as u64 + 1,
            None => self.column + chunk.len() as u64,
        };
        self.line = line;
    }
}

/// Adds the newlines of `chunk[from..to]` to `line` and notes where the last
/// of them starts a line.
fn count_lines(
    chunk: &[u8],
    from: usize,
    to: usize,
    line: &mut u64,
    line_start: &mut Option<usize>,
) {
    let part = &chunk[from..to];
    *line += memchr::memchr_iter(b'\n', part).count() as u64;
    if let Some(i) = memchr::memrchr(b'\n', part) {
        *line_start = Some(from + i + 1);
    }
}

/// Copies `input` to `output` with every secret replaced, calling
/// `on_finding` for each one. Returns the number of findings.
pub fn redact_stream(
    mut input: impl BufRead,
    mut output: impl Write,
    mut on_finding: impl FnMut(Located),
) -> io::Result<u64> {
    let mut pos = Position { line: 1, column: 1 };
    let mut chunk = Vec::new();
    let mut piece = Vec::new();
    let mut count = 0;
    let mut pending = None;
    while read_piece(&mut input, &mut chunk, MAX_PIECE)? {
        if opens_block(&chunk) {
            while chunk.len() < MAX_BLOCK && read_piece(&mut input, &mut piece, MAX_BLOCK)? {
                chunk.extend_from_slice(&piece);
                if KEY_END.is_match(&piece) {
                    break;
                }
            }
        }
        // A command on one line may print its secret on the next.
        let (findings, next) = find_secrets_after(&chunk, pending);
        pending = next;
        let out = replace_bytes(&chunk, &findings);
        output.write_all(&out)?;
        count += findings.len() as u64;
        pos.locate(&chunk, &findings, &mut on_finding);
    }
    output.flush()?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8]) -> (String, Vec<Located>) {
        let mut out = Vec::new();
        let mut found = Vec::new();
        redact_stream(input, &mut out, |l| found.push(l)).unwrap();
        (String::from_utf8(out).unwrap(), found)
    }

    #[test]
    fn lines_and_positions() {
        let input = "plain line\nDB_PASSWORD=hunter2x\nx postgres://u:S3cretpw@h/db\n";
        let (out, found) = run(input.as_bytes());
        assert_eq!(
            out,
            "plain line\nDB_PASSWORD=[REDACTED_SECRET]\nx postgres://u:[REDACTED_SECRET]@h/db\n"
        );
        let at: Vec<_> = found.iter().map(|l| (l.line, l.column, l.rule)).collect();
        assert_eq!(
            at,
            [(2, 13, "password_assignment"), (3, 16, "url_password")]
        );
    }

    #[test]
    fn key_block_across_lines() {
        let input = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----\nafter\n";
        let (out, found) = run(input.as_bytes());
        assert_eq!(
            out,
            "before\n-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED_SECRET]\n-----END OPENSSH PRIVATE KEY-----\nafter\n"
        );
        assert_eq!((found[0].line, found[0].column), (3, 1));
    }

    #[test]
    fn a_secret_printed_on_the_line_after_its_command() {
        let (out, found) =
            run(b"$ cat config/master.key\n\n9f3c2a1b8e7d6c5b4a39281706f5e4d3\n$ ls\n");
        assert_eq!(out, "$ cat config/master.key\n\n[REDACTED_SECRET]\n$ ls\n");
        assert_eq!((found[0].line, found[0].column), (3, 1));
    }

    #[test]
    fn a_warning_line_between_a_command_and_its_token() {
        let (out, found) = run(
            b"$ heroku auth:token\n \xe2\x80\xba   Warning: token will expire today\ne4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8\n$ ls\n",
        );
        assert_eq!(
            out,
            "$ heroku auth:token\n \u{203a}   Warning: token will expire today\n[REDACTED_SECRET]\n$ ls\n"
        );
        assert_eq!((found[0].line, found[0].column), (3, 1));
        // Any other line in between ends the wait.
        let (out, _) =
            run(b"$ heroku auth:token\nsomething else\ne4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8\n");
        assert!(
            out.ends_with("e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8\n"),
            "{out}"
        );
    }

    #[test]
    fn no_final_newline_and_invalid_utf8() {
        let (out, _) = run(b"last line without newline");
        assert_eq!(out, "last line without newline");
        let mut sink = Vec::new();
        redact_stream(&b"\xff token=a8Fk2LmQ9xZ3pR7tW1vB\n"[..], &mut sink, |_| {}).unwrap();
        assert_eq!(sink, b"\xff token=[REDACTED_SECRET]\n");
    }

    #[test]
    fn long_lines_are_cut_at_blanks() {
        let mut input = io::Cursor::new(b"aaaa bbbb cccc".to_vec());
        let mut buf = Vec::new();
        assert!(read_piece(&mut input, &mut buf, 8).unwrap());
        assert_eq!(buf, b"aaaa ");
        assert!(read_piece(&mut input, &mut buf, 8).unwrap());
        assert_eq!(buf, b"bbbb ");
        assert!(read_piece(&mut input, &mut buf, 8).unwrap());
        assert_eq!(buf, b"cccc");
        assert!(!read_piece(&mut input, &mut buf, 8).unwrap());
    }
}
