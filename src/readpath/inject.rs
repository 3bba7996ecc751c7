//! `memkit inject`: the block an agent gets at start-up — the read-path
//! instructions, the memory folder path and `memory_summary.md` cut to the
//! 2,500-token budget exactly as Codex cuts it.

use crate::util::text::{
    APPROX_BYTES_PER_TOKEN, ceil_char_boundary, floor_char_boundary, without_middle,
};

/// Token budget of the injected summary (Codex's constant).
pub const SUMMARY_TOKEN_BUDGET: usize = 2_500;

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
