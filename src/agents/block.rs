//! memkit's managed block in a Markdown instruction file (`AGENTS.md`,
//! `GEMINI.md`): the lines from the begin marker to the end marker are
//! memkit's, everything else is the user's and is never changed.
//!
//! ```text
//! <the user's own text>
//! <!-- memkit:begin (managed by memkit: `memkit uninstall codex` removes this block) -->
//! ## Memory
//! …
//! <!-- memkit:end -->
//! <more of the user's text, if they add any>
//! ```
//!
//! A block is appended at the end of the file. When the user's text does not
//! end with a newline, one is added before the block and the begin marker
//! says so (`newline added`), so removing the block gives the file back
//! byte for byte. A file with CRLF line ends gets the block with CRLF too. A
//! line of the body that would read as a marker (a summary quoting one) is
//! written as `<!-- (quoted) memkit:…` so the block can always be found again.

use crate::error::{Error, Result};
use crate::readpath::BLOCK_BEGIN_MARKER;
use std::ops::Range;
use std::path::Path;

/// The line that closes the block.
pub const BLOCK_END_MARKER: &str = "<!-- memkit:end -->";
/// Said in the begin marker when install added a newline before the block.
const NEWLINE_ADDED: &str = "newline added";

/// Where the block sits in a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Bytes of the block, from the begin marker to the end marker's newline,
    /// plus the newline install added before it (if it did).
    pub span: Range<usize>,
    /// The text between the marker lines.
    pub body: Range<usize>,
}

/// The begin marker for `agent` (the command that removes the block is named in it).
fn begin_line(agent: &str, newline_added: bool) -> String {
    let added = if newline_added {
        format!("; {NEWLINE_ADDED}")
    } else {
        String::new()
    };
    format!(
        "{BLOCK_BEGIN_MARKER} (managed by memkit: `memkit uninstall {agent}` removes this block; edits inside are replaced{added}) -->"
    )
}

/// Finds the block; `None` when the file has none. A begin marker without an
/// end, a second block, or an end marker alone is an error naming the file
/// and line, so nothing is changed on a guess.
pub fn locate(path: &Path, text: &str) -> Result<Option<Located>> {
    let mut begin: Option<(usize, usize, bool)> = None; // (line start, line no, newline added)
    let mut found: Option<Located> = None;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let number = i + 1;
        let content = line.trim_end_matches(['\n', '\r']).trim();
        if content.starts_with(BLOCK_BEGIN_MARKER) {
            if begin.is_some() || found.is_some() {
                return Err(bad(path, number, "a second memkit block begins here"));
            }
            begin = Some((offset, number, content.contains(NEWLINE_ADDED)));
        } else if content == BLOCK_END_MARKER {
            let Some((start, _, added)) = begin.take() else {
                return Err(bad(
                    path,
                    number,
                    "a memkit end marker without a begin marker",
                ));
            };
            let body_start = start + text[start..].find('\n').map_or(0, |n| n + 1);
            let span_start = if added && start > 0 && text.as_bytes()[start - 1] == b'\n' {
                start - 1
            } else {
                start
            };
            found = Some(Located {
                span: span_start..offset + line.len(),
                body: body_start..offset,
            });
        }
        offset += line.len();
    }
    if let Some((_, number, _)) = begin {
        return Err(bad(
            path,
            number,
            "a memkit block begins here but never ends",
        ));
    }
    Ok(found)
}

fn bad(path: &Path, line: usize, what: &str) -> Error {
    Error::failed(format!(
        "{}:{line}: {what}; fix the markers by hand (memkit changed nothing)",
        path.display()
    ))
}

/// The body as written into the block: marker-like lines quoted, a final
/// newline, the file's line ends.
fn written_body(body: &str, eol: &str) -> String {
    let mut out = String::with_capacity(body.len() + 16);
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with(BLOCK_BEGIN_MARKER) || t == BLOCK_END_MARKER {
            out.push_str(&line.replacen("<!-- memkit:", "<!-- (quoted) memkit:", 1));
        } else {
            out.push_str(line);
        }
        out.push_str(eol);
    }
    out
}

/// The line end a file uses (`\r\n` when its first line ends so).
fn line_end(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The file's text with the block holding `body` (replacing an existing
/// block in place, or appended at the end).
pub fn install(path: &Path, current: &str, agent: &str, body: &str) -> Result<String> {
    let eol = line_end(current);
    let body = written_body(body, eol);
    if let Some(found) = locate(path, current)? {
        let mut out = String::with_capacity(current.len() + body.len());
        out.push_str(&current[..found.body.start]);
        out.push_str(&body);
        out.push_str(&current[found.body.end..]);
        return Ok(out);
    }
    let newline_added = !current.is_empty() && !current.ends_with('\n');
    let mut out = current.to_string();
    if newline_added {
        out.push_str(eol);
    }
    out.push_str(&begin_line(agent, newline_added));
    out.push_str(eol);
    out.push_str(&body);
    out.push_str(BLOCK_END_MARKER);
    out.push_str(eol);
    Ok(out)
}

/// The file's text without the block; `None` when nothing is left of the
/// file (install created it).
pub fn uninstall(path: &Path, current: &str) -> Result<Option<String>> {
    let Some(found) = locate(path, current)? else {
        return Ok(Some(current.to_string()));
    };
    let mut out = current[..found.span.start].to_string();
    out.push_str(&current[found.span.end..]);
    Ok((!out.is_empty()).then_some(out))
}

/// The bytes of the file that are not the block's body once the block is
/// installed: the user's text, the marker lines and the newline install may
/// add (the file with an empty block). A body of `max - taken` bytes as
/// written ([`written_len`]) keeps the file within `max`.
pub fn taken_len(path: &Path, current: &str, agent: &str) -> Result<usize> {
    Ok(install(path, current, agent, "")?.len())
}

/// How many bytes `body` takes once written into the file whose text is
/// `current` (its line ends, marker-like lines quoted).
pub fn written_len(current: &str, body: &str) -> usize {
    written_body(body, line_end(current)).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("AGENTS.md")
    }

    #[test]
    fn round_trips_keep_the_users_bytes() {
        for user in [
            "",
            "# My rules\n\nUse tabs.\n",
            "no newline at the end",
            "crlf\r\nlines\r\n",
            "\n\n",
        ] {
            let installed = install(p(), user, "codex", "## Memory\nbody").unwrap();
            assert!(installed.starts_with(user), "{user:?}");
            let again = install(p(), &installed, "codex", "## Memory\nbody").unwrap();
            assert_eq!(again, installed, "idempotent for {user:?}");
            let removed = uninstall(p(), &installed).unwrap();
            assert_eq!(removed.as_deref().unwrap_or(""), user, "{user:?}");
            let body = installed.len() - taken_len(p(), user, "codex").unwrap();
            assert_eq!(
                body,
                written_body("## Memory\nbody", line_end(user)).len(),
                "{user:?}"
            );
            assert_eq!(
                taken_len(p(), &installed, "codex").unwrap(),
                taken_len(p(), user, "codex").unwrap(),
                "the same before and after install: {user:?}"
            );
        }
        assert_eq!(
            uninstall(p(), &install(p(), "", "codex", "x").unwrap()).unwrap(),
            None
        );
    }

    #[test]
    fn refresh_replaces_only_the_body_and_keeps_text_after_the_block() {
        let installed = install(p(), "top\n", "gemini", "old").unwrap();
        let edited = format!("{installed}below, added later\n");
        let refreshed = install(p(), &edited, "gemini", "new").unwrap();
        assert!(refreshed.starts_with("top\n<!-- memkit:begin"));
        assert!(refreshed.contains("\nnew\n<!-- memkit:end -->\nbelow, added later\n"));
        assert_eq!(
            uninstall(p(), &refreshed).unwrap().unwrap(),
            "top\nbelow, added later\n"
        );
    }

    #[test]
    fn a_body_quoting_the_markers_stays_readable() {
        let body = format!(
            "## Memory\n- a note about {BLOCK_END_MARKER}\n{BLOCK_END_MARKER}\n  <!-- memkit:begin x -->\n"
        );
        let installed = install(p(), "mine\n", "codex", &body).unwrap();
        let found = locate(p(), &installed).unwrap().unwrap();
        assert!(installed[found.body.clone()].contains("<!-- (quoted) memkit:end -->"));
        assert!(installed[found.body.clone()].contains("  <!-- (quoted) memkit:begin x -->"));
        assert!(
            installed.contains(&format!("- a note about {BLOCK_END_MARKER}")),
            "mid-line is fine"
        );
        assert_eq!(uninstall(p(), &installed).unwrap().unwrap(), "mine\n");
    }

    #[test]
    fn crlf_files_get_crlf_lines() {
        let user = "rules\r\nmore\r\n";
        let installed = install(p(), user, "codex", "a\nb").unwrap();
        assert!(
            !installed.replace("\r\n", "").contains('\n'),
            "{installed:?}"
        );
        assert_eq!(uninstall(p(), &installed).unwrap().unwrap(), user);
    }

    #[test]
    fn broken_markers_are_errors_naming_the_line() {
        let open = "a\n<!-- memkit:begin (x) -->\nbody\n";
        let err = install(p(), open, "codex", "x").unwrap_err().to_string();
        assert!(
            err.contains("AGENTS.md:2") && err.contains("never ends"),
            "{err}"
        );
        let two = format!(
            "{}{}",
            install(p(), "", "codex", "x").unwrap(),
            install(p(), "", "codex", "y").unwrap()
        );
        assert!(
            uninstall(p(), &two)
                .unwrap_err()
                .to_string()
                .contains("second memkit block")
        );
        let stray = "a\n<!-- memkit:end -->\n";
        assert!(
            locate(p(), stray)
                .unwrap_err()
                .to_string()
                .contains("AGENTS.md:2")
        );
    }
}
