//! What the summary need not say twice. `MEMORY.md` keeps every entry; the
//! summary has ten kilobytes, so within one project a line that only
//! repeats another one gives its room to an entry that is not shown yet:
//! "`npm run lint` works (lint)" beside the rule "npm run lint before you
//! finish, as always", or "npm run lint like always" beside that rule. A
//! failure's error is shortened there too; the whole line is in `MEMORY.md`.

use super::signals::is_stop_word;
use super::tally::words;
use std::borrow::Cow;

/// Longest error a failure shows in the summary, in characters.
const MAX_SUMMARY_ERROR: usize = 120;
/// Longest path word an error shows whole in the summary.
const MAX_PATH_WORD: usize = 24;

/// Which of the lines (each with its project, `None` for global) repeat
/// another line of the same project: a working command that a statement
/// quotes, or a statement whose words another statement all holds (of two
/// with the same words, the first stays).
///
/// The lines come in the order the summary gives up room in reverse: the
/// first `rules` are preferences, shown longest, then the tips best first.
/// A line only counts as repeated by one that stays at least as long: a
/// preference, or a tip ranked before it.
pub(super) fn repeated(lines: &[(Option<usize>, &str)], rules: usize) -> Vec<bool> {
    let claims: Vec<Claim> = lines.iter().map(|(_, l)| Claim::of(l)).collect();
    let mut out = vec![false; lines.len()];
    for (i, claim) in claims.iter().enumerate() {
        let stays_as_long = |j: usize| j < rules || (i >= rules && j < i);
        let others =
            (0..lines.len()).filter(|&j| j != i && lines[j].0 == lines[i].0 && stays_as_long(j));
        out[i] = match claim {
            Claim::Works(command) => others
                .filter(|&j| matches!(claims[j], Claim::Says(_)))
                .any(|j| lines[j].1.contains(command.as_str())),
            Claim::Says(mine) if mine.len() >= 2 => others.into_iter().any(|j| match &claims[j] {
                Claim::Says(theirs) => {
                    mine.iter().all(|w| theirs.contains(w)) && (theirs.len() > mine.len() || j < i)
                }
                Claim::Works(_) => false,
            }),
            Claim::Says(_) => false,
        };
    }
    out
}

/// What a summary line claims.
enum Claim {
    /// "`cmd` works …": the command.
    Works(String),
    /// Anything else: its content words.
    Says(Vec<String>),
}

impl Claim {
    fn of(line: &str) -> Claim {
        let text = line.trim().trim_start_matches("- ");
        let text = text.split(" (seen in ").next().unwrap_or(text);
        if let Some(rest) = text.strip_prefix('`')
            && let Some((command, after)) = rest.split_once('`')
            && after.starts_with(" works")
        {
            return Claim::Works(command.to_string());
        }
        // A negation is content: "use X" does not say "dont use X".
        let mut content: Vec<String> = words(text)
            .into_iter()
            .filter(|w| !is_stop_word(w) || matches!(w.as_str(), "no" | "not" | "dont" | "don"))
            .collect();
        content.sort();
        content.dedup();
        Claim::Says(content)
    }
}

/// A failure line with its error cut to [`MAX_SUMMARY_ERROR`] characters
/// ("`make` failed (exit 2: …); it worked after running `…` first").
pub(super) fn with_short_error(line: &str) -> Cow<'_, str> {
    let Some(open) = line.find("` failed (") else {
        return Cow::Borrowed(line);
    };
    let from = open + "` failed (".len();
    let end = ["); it worked after", "); `"]
        .iter()
        .filter_map(|m| line[from..].rfind(m).map(|at| from + at))
        .max();
    let (Some(end), Some(colon)) = (end, line[from..].find(": ").map(|at| from + at + 2)) else {
        return Cow::Borrowed(line);
    };
    if colon >= end || line[colon..end].chars().count() <= MAX_SUMMARY_ERROR {
        return Cow::Borrowed(line);
    }
    // Long paths give way first ("'/nix/store/8f3k…-source/hosts/heron/
    // hardware.nix' does not exist" keeps "…/hardware.nix' does not exist").
    let error: Vec<String> = line[colon..end]
        .split(' ')
        .map(|word| match word.rsplit_once('/') {
            Some((_, last)) if word.chars().count() > MAX_PATH_WORD => format!("…/{last}"),
            _ => word.to_string(),
        })
        .collect();
    let error = error.join(" ");
    // Then the middle: an error's end often says what was expected
    // ("… supports only Elixir ~> 1.17").
    let chars: Vec<char> = error.chars().collect();
    let short = if chars.len() <= MAX_SUMMARY_ERROR {
        error
    } else {
        let half = MAX_SUMMARY_ERROR / 2;
        let head: String = chars[..half].iter().collect();
        let tail: String = chars[chars.len() - half..].iter().collect();
        format!("{} … {}", head.trim_end(), tail.trim())
    };
    Cow::Owned(format!("{}{short}{}", &line[..colon], &line[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_statements_said_again_are_repeats() {
        let lines = [
            (Some(0), "- npm run lint before you finish, as always.\n"),
            (Some(0), "- npm run lint like always\n"),
            (
                Some(0),
                "- `npm run lint` works (lint) (seen in 4 sessions)\n",
            ),
            (Some(0), "- `zig build` works (build)\n"),
            (Some(0), "- `zig build test --summary all` works (tests)\n"),
            (Some(1), "- npm run lint like always\n"),
            (
                Some(0),
                "- e2e runs are `pnpm exec playwright test` from now on.\n",
            ),
            (Some(0), "- `pnpm exec playwright test` works (tests)\n"),
            (
                None,
                "- e2e runs are `pnpm exec playwright test` from now on.\n",
            ),
        ];
        assert_eq!(
            repeated(&lines, 2),
            [false, true, true, false, false, false, false, true, false]
        );
        // A rule is not given up for a tip that may be trimmed before it.
        let rule_and_tip = [
            (Some(0), "- never edit schema.d.ts\n"),
            (
                Some(0),
                "- `schema.d.ts` is generated, never edit it by hand\n",
            ),
        ];
        assert_eq!(repeated(&rule_and_tip, 1), [false, false]);
    }

    #[test]
    fn a_long_error_is_shortened_and_the_fix_kept() {
        let long = format!(
            "- `pnpm build` failed (exit 134: {}); `NODE_OPTIONS=--max-old-space-size=4096 pnpm build` worked instead\n",
            "Mark-Compact 2038.1 (2083.4) -> 2031.7 (2084.9) MB, ".repeat(4)
        );
        let short = with_short_error(&long);
        assert!(short.chars().count() < long.chars().count());
        assert!(short.starts_with("- `pnpm build` failed (exit 134: Mark-Compact 2038.1"));
        assert!(
            short.ends_with(
                "MB,); `NODE_OPTIONS=--max-old-space-size=4096 pnpm build` worked instead\n"
            ),
            "{short}"
        );
        let path = "- `nix build .#heron` failed (exit 1: error: path '/nix/store/8f3kq1v0c2x9-source/hosts/heron/hardware.nix' does not exist and nothing in the flake refers to it any more, check git add); it worked after running `git add -N hosts/heron/hardware.nix` first\n";
        assert!(
            with_short_error(path).contains("(exit 1: error: path …/hardware.nix' does not exist"),
            "{}",
            with_short_error(path)
        );
        let brief = "- `make` failed (exit 2: glslc: not found); it worked after running `source env.sh` first\n";
        assert_eq!(with_short_error(brief), brief);
    }
}
