//! Rendering changes as git does: unified diffs with git's headers, `--stat`,
//! `--name-status`, and the `phase2_workspace_diff.md` file for the backend.

use super::git::{Baseline, Change};
use crate::error::Result;
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::diff::blob::{Algorithm, InternedInput, UnifiedDiff, diff_with_slider_heuristics};
use gix::objs::tree::EntryKind;

/// Cut of the diff inside `phase2_workspace_diff.md`, bytes.
pub const WORKSPACE_DIFF_MAX_BYTES: usize = 4_194_304;

/// Files larger than this are not diffed line by line.
const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

fn mode(kind: EntryKind) -> String {
    format!("{:06o}", kind as u16)
}

fn short(oid: Option<gix::ObjectId>) -> String {
    match oid {
        Some(id) => id.to_hex_with_len(7).to_string(),
        None => "0000000".into(),
    }
}

/// git's binary test: a NUL byte in the first 8000 bytes.
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|b| *b == 0)
}

/// The unified diff of all changes (3 lines of context), as `git diff` prints it.
pub fn unified(baseline: &Baseline, changes: &[Change]) -> Result<String> {
    let mut out = String::new();
    for c in changes {
        out.push_str(&file_diff(baseline, c)?);
    }
    Ok(out)
}

/// The baseline's and the working tree's bytes of a changed path (empty when absent).
fn contents(baseline: &Baseline, c: &Change) -> Result<(Vec<u8>, Vec<u8>)> {
    let old = match c.old {
        Some(o) => baseline.blob(o.oid)?,
        None => Vec::new(),
    };
    let new = match c.new {
        Some(_) => baseline.worktree_bytes(&c.path)?,
        None => Vec::new(),
    };
    Ok((old, new))
}

fn file_diff(baseline: &Baseline, c: &Change) -> Result<String> {
    let p = &c.path;
    let mut out = format!("diff --git a/{p} b/{p}\n");
    let (old_bytes, new_bytes) = contents(baseline, c)?;
    match (c.old, c.new) {
        (None, Some(n)) => out.push_str(&format!("new file mode {}\n", mode(n.kind))),
        (Some(o), None) => out.push_str(&format!("deleted file mode {}\n", mode(o.kind))),
        (Some(o), Some(n)) if o.kind != n.kind => {
            out.push_str(&format!(
                "old mode {}\nnew mode {}\n",
                mode(o.kind),
                mode(n.kind)
            ));
        }
        _ => {}
    }
    let same_content = c.old.map(|o| o.oid) == c.new.map(|n| n.oid);
    if same_content {
        return Ok(out); // a pure mode change
    }
    let index_mode = match (c.old, c.new) {
        (Some(o), Some(n)) if o.kind == n.kind => format!(" {}", mode(o.kind)),
        _ => String::new(),
    };
    out.push_str(&format!(
        "index {}..{}{index_mode}\n",
        short(c.old.map(|o| o.oid)),
        short(c.new.map(|n| n.oid))
    ));
    let a = if c.old.is_some() {
        format!("a/{p}")
    } else {
        "/dev/null".into()
    };
    let b = if c.new.is_some() {
        format!("b/{p}")
    } else {
        "/dev/null".into()
    };
    if is_binary(&old_bytes) || is_binary(&new_bytes) {
        out.push_str(&format!("Binary files {a} and {b} differ\n"));
        return Ok(out);
    }
    if old_bytes.len() > MAX_FILE_BYTES || new_bytes.len() > MAX_FILE_BYTES {
        out.push_str("[file too large to diff]\n");
        return Ok(out);
    }
    if old_bytes.is_empty() && new_bytes.is_empty() {
        return Ok(out);
    }
    out.push_str(&format!("--- {a}\n+++ {b}\n"));
    out.push_str(&hunks(&old_bytes, &new_bytes)?);
    Ok(out)
}

/// The hunks of a line diff in git's format (histogram, slider heuristics).
pub fn hunks(old: &[u8], new: &[u8]) -> Result<String> {
    let input = InternedInput::new(old, new);
    let diff = diff_with_slider_heuristics(Algorithm::Histogram, &input);
    UnifiedDiff::new(
        &diff,
        &input,
        GitHunks::default(),
        ContextSize::symmetrical(3),
    )
    .consume()
    .map_err(|e| crate::error::Error::failed(format!("rendering a diff: {e}")))
}

/// Prints hunks exactly as git does: `-start,len` with `,1` omitted, an empty
/// side as `start-1,0`, and the "No newline at end of file" marker.
#[derive(Default)]
struct GitHunks {
    out: String,
}

fn range(start: u32, len: u32) -> String {
    match len {
        0 => format!("{},0", start.saturating_sub(1)),
        1 => format!("{start}"),
        n => format!("{start},{n}"),
    }
}

impl ConsumeHunk for GitHunks {
    type Out = String;

    fn consume_hunk(
        &mut self,
        h: HunkHeader,
        lines: &[(DiffLineKind, &[u8])],
    ) -> std::io::Result<()> {
        self.out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(h.before_hunk_start, h.before_hunk_len),
            range(h.after_hunk_start, h.after_hunk_len)
        ));
        for (kind, line) in lines {
            self.out.push(match kind {
                DiffLineKind::Context => ' ',
                DiffLineKind::Add => '+',
                DiffLineKind::Remove => '-',
            });
            let text = String::from_utf8_lossy(line);
            self.out.push_str(&text);
            if !text.ends_with('\n') {
                self.out.push_str("\n\\ No newline at end of file\n");
            }
        }
        Ok(())
    }

    fn finish(self) -> String {
        self.out
    }
}

/// Lines added and removed per changed file, for `--stat`.
pub fn line_counts(baseline: &Baseline, c: &Change) -> Result<(usize, usize)> {
    let (old, new) = contents(baseline, c)?;
    if is_binary(&old) || is_binary(&new) {
        return Ok((0, 0));
    }
    let input = InternedInput::new(old.as_slice(), new.as_slice());
    let diff = diff_with_slider_heuristics(Algorithm::Histogram, &input);
    Ok((
        diff.count_additions() as usize,
        diff.count_removals() as usize,
    ))
}

/// `phase2_workspace_diff.md`: status lines, then the fenced diff cut at 4 MiB.
pub fn render_workspace_diff_file(changes: &[Change], diff: &str) -> String {
    let mut out = String::from(
        "# Memory Workspace Diff\n\nmemkit wrote this file before consolidation: it lists what changed in the \
         memory folder since the last successful consolidation. Read it first and do not edit it.\n\n## Status\n\n",
    );
    if changes.is_empty() {
        out.push_str("- none\n");
        return out;
    }
    for c in changes {
        out.push_str(&format!("- {} {}\n", c.status.letter(), c.path));
    }
    out.push_str("\n## Diff\n\n```diff\n");
    if diff.len() > WORKSPACE_DIFF_MAX_BYTES {
        out.push_str(crate::util::text::cut(diff, WORKSPACE_DIFF_MAX_BYTES));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[workspace diff truncated at {WORKSPACE_DIFF_MAX_BYTES} bytes]\n"
        ));
    } else {
        out.push_str(diff);
        if !diff.ends_with('\n') && !diff.is_empty() {
            out.push('\n');
        }
    }
    out.push_str("```\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_headers_match_git() {
        assert_eq!(hunks(b"", b"a\nb\n").unwrap(), "@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!(hunks(b"a\n", b"").unwrap(), "@@ -1 +0,0 @@\n-a\n");
        assert_eq!(
            hunks(b"a\nb", b"a\nc").unwrap(),
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
    }

    use crate::memory::git::Status;

    #[test]
    fn diff_file_cut_and_fence() {
        let change = Change {
            path: "MEMORY.md".into(),
            status: Status::Modified,
            old: None,
            new: None,
        };
        let big = "x".repeat(WORKSPACE_DIFF_MAX_BYTES + 10);
        let f = render_workspace_diff_file(std::slice::from_ref(&change), &big);
        assert!(f.contains("## Status\n\n- M MEMORY.md\n"));
        assert!(f.contains("[workspace diff truncated at 4194304 bytes]\n```\n"));
        assert!(f.ends_with("```\n"));
        let multibyte = "é".repeat(WORKSPACE_DIFF_MAX_BYTES / 2 + 1);
        let f = render_workspace_diff_file(&[change], &multibyte);
        assert!(f.contains("truncated"));
        assert!(render_workspace_diff_file(&[], "").contains("## Status\n\n- none\n"));
    }
}
