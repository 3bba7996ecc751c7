//! The block an agent gets at start-up — the read-path instructions, the
//! memory folder path and `memory_summary.md` cut to the 2,500-token budget
//! exactly as Codex cuts it — and the same block fitted into an agent's own
//! limit (Codex's instruction files, Claude Code's hook values): when it must
//! be cut there, the summary loses its last lines and says so in its place.

use crate::util::text::{
    APPROX_BYTES_PER_TOKEN, ceil_char_boundary, floor_char_boundary, without_middle,
};

/// Token budget of the injected summary (Codex's constant).
pub const SUMMARY_TOKEN_BUDGET: usize = 2_500;

/// How an agent counts the size of what it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// UTF-8 bytes (Codex reads instruction files by bytes).
    Bytes,
    /// UTF-16 code units: a JavaScript string's `length` (Claude Code's hook cap).
    Utf16,
}

impl Measure {
    /// The size of `text`.
    pub fn of(self, text: &str) -> usize {
        match self {
            Measure::Bytes => text.len(),
            Measure::Utf16 => text.encode_utf16().count(),
        }
    }

    /// The unit's name, for messages.
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Bytes => "bytes",
            Measure::Utf16 => "characters",
        }
    }
}

/// A size limit and what it is called in the note a cut leaves.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    /// The most the block may take.
    pub max: usize,
    /// How it is counted.
    pub measure: Measure,
    /// Whose limit it is ("Codex's 32 KiB instruction limit").
    pub name: &'static str,
}

/// The read-path block, rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPathBlock {
    /// The text.
    pub text: String,
    /// Whether the 2,500-token budget cut the summary's middle.
    pub budget_cut: bool,
    /// How much of the summary a [`Limit`] left out (in the limit's unit; 0: nothing).
    pub left_out: usize,
}

/// Renders the read-path `template` for the memory folder `root`, with
/// `summary` (its `project` section first, cut to the token budget) and, when
/// `limit` is given, fitted into it: the summary keeps as many of its first
/// lines as fit, followed by a line that says how much was left out and where
/// the whole summary is. Never a silent cut.
pub fn read_path_block(
    template: &str,
    root: &std::path::Path,
    summary: &str,
    project: Option<&str>,
    limit: Option<Limit>,
) -> ReadPathBlock {
    let base_path = root.display().to_string();
    let render = |summary: &str| {
        crate::templates::render(
            template,
            &[("base_path", &base_path), ("memory_summary", summary)],
        )
    };
    let summary = match project {
        Some(dir) => project_first(summary, dir),
        None => summary.to_string(),
    };
    let (summary, budget_cut) = fit_summary(&summary);
    let whole = render(&summary);
    let Some(limit) = limit.filter(|l| l.measure.of(&whole) > l.max) else {
        return ReadPathBlock {
            text: whole,
            budget_cut,
            left_out: 0,
        };
    };
    let m = limit.measure;
    let total = m.of(&summary);
    let note = |left: usize| {
        format!(
            "[memkit: {left} {} of this summary did not fit {}; the whole summary is in {}/{}]",
            m.unit(),
            limit.name,
            base_path,
            crate::memory::MEMORY_SUMMARY_MD
        )
    };
    let overhead = m.of(&render(""));
    let mut kept = String::new();
    for line in summary.split_inclusive('\n') {
        let left = total - m.of(&kept) - m.of(line);
        if overhead + m.of(&kept) + m.of(line) + m.of(&note(left)) + 1 > limit.max {
            break;
        }
        kept.push_str(line);
    }
    let left = total - m.of(&kept);
    let mut cut = kept;
    if !cut.is_empty() && !cut.ends_with('\n') {
        cut.push('\n');
    }
    cut.push_str(&note(left));
    ReadPathBlock {
        text: render(&cut),
        budget_cut,
        left_out: left,
    }
}

/// The summary cut to the budget: trimmed; whole when it fits in
/// `budget × 4` bytes, else the first and last halves of the bytes (UTF-8
/// safe) with `…N tokens truncated…` between them. Returns the text and
/// whether it was cut.
pub fn fit_summary(summary: &str) -> (String, bool) {
    let s = summary.trim();
    let budget = SUMMARY_TOKEN_BUDGET * APPROX_BYTES_PER_TOKEN;
    if s.len() <= budget {
        return (s.to_string(), false);
    }
    let head_end = floor_char_boundary(s, budget / 2);
    let tail_start = ceil_char_boundary(s, s.len() - (budget - budget / 2));
    (without_middle(s, head_end, tail_start), true)
}

/// Moves the `### <project>` section of "What's in Memory" that matches
/// `project` (a path; matched by full path or last component) to the front of
/// that section list.
pub fn project_first(summary: &str, project: &str) -> String {
    let lines: Vec<&str> = summary.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("## What") && l.contains("in Memory"))
    else {
        return summary.to_string();
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut sections: Vec<Vec<&str>> = Vec::new();
    let mut preamble: Vec<&str> = Vec::new();
    for line in &lines[start + 1..end] {
        if line.starts_with("### ") {
            sections.push(vec![line]);
        } else if let Some(last) = sections.last_mut() {
            last.push(line);
        } else {
            preamble.push(line);
        }
    }
    let wanted = project.trim_end_matches('/');
    let short = wanted.rsplit('/').next().unwrap_or(wanted);
    let matches = |heading: &str| {
        let h = heading
            .trim_start_matches("### ")
            .trim()
            .trim_end_matches('/');
        h == wanted || (!short.is_empty() && (h == short || h.ends_with(&format!("/{short}"))))
    };
    let Some(pos) = sections.iter().position(|s| matches(s[0])) else {
        return summary.to_string();
    };
    let chosen = sections.remove(pos);
    sections.insert(0, chosen);
    let mut out: Vec<&str> = lines[..=start].to_vec();
    out.extend(preamble);
    for s in sections {
        out.extend(s);
    }
    out.extend(&lines[end..]);
    let mut text = out.join("\n");
    if summary.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_at_budget_is_whole_and_one_byte_over_is_cut() {
        let at = "a".repeat(10_000);
        assert_eq!(fit_summary(&at), (at.clone(), false));
        let over = format!("{}z", "a".repeat(10_000));
        let (cut, was_cut) = fit_summary(&over);
        assert!(was_cut);
        assert!(cut.starts_with(&"a".repeat(5_000)));
        assert!(cut.ends_with("z"));
        assert!(cut.contains("…1 tokens truncated…"));
        assert_eq!(cut.len() - "…1 tokens truncated…".len(), 10_000);
    }

    #[test]
    fn multibyte_text_at_the_cut_stays_valid() {
        let s = format!("{}{}", "é".repeat(2_600), "ü".repeat(2_600));
        let (cut, was_cut) = fit_summary(&s);
        assert!(was_cut);
        assert!(cut.starts_with('é') && cut.ends_with('ü'));
        assert!(cut.contains("tokens truncated"));
    }

    #[test]
    fn a_limit_cuts_the_summary_by_lines_and_says_so() {
        let template = "## Memory {{ base_path }}\nBEGINS\n{{ memory_summary }}\nENDS\n";
        let summary: String = (0..100).map(|i| format!("- line {i:03} é\n")).collect();
        let root = std::path::Path::new("/m");
        let whole = read_path_block(template, root, &summary, None, None);
        assert_eq!(whole.left_out, 0);
        for measure in [Measure::Bytes, Measure::Utf16] {
            let limit = Limit {
                max: 600,
                measure,
                name: "the test limit",
            };
            let cut = read_path_block(template, root, &summary, None, Some(limit));
            assert!(measure.of(&cut.text) <= 600, "{}", measure.of(&cut.text));
            assert!(cut.text.starts_with("## Memory /m\nBEGINS\n- line 000 é\n"));
            assert!(
                cut.text.ends_with("/m/memory_summary.md]\nENDS\n"),
                "{}",
                cut.text
            );
            assert!(cut.text.contains(&format!(
                "[memkit: {} {} of this summary did not fit the test limit",
                cut.left_out,
                measure.unit()
            )));
            let kept = cut.text.matches("- line").count();
            let trimmed = measure.of(summary.trim());
            assert_eq!(trimmed - cut.left_out, kept * measure.of("- line 000 é\n"));
            let roomy = Limit {
                max: 100_000,
                ..limit
            };
            assert_eq!(
                read_path_block(template, root, &summary, None, Some(roomy)),
                whole
            );
        }
    }

    #[test]
    fn project_section_moves_first() {
        let s = "v1\n## User Profile\nx\n## What's in Memory\n### /w/alpha\n- a\n### /w/beta\n- b\n## Other\ny\n";
        let moved = project_first(s, "/w/beta");
        assert_eq!(
            moved,
            "v1\n## User Profile\nx\n## What's in Memory\n### /w/beta\n- b\n### /w/alpha\n- a\n## Other\ny\n"
        );
        assert_eq!(project_first(s, "/elsewhere"), s);
        assert!(
            project_first(s, "/home/me/beta")
                .starts_with("v1\n## User Profile\nx\n## What's in Memory\n### /w/beta")
        );
    }
}
