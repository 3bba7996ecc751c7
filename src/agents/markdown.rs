//! A read path that is a managed block in a Markdown instruction file: the
//! shape Codex's `AGENTS.md` and Gemini CLI's `GEMINI.md` share.

use super::block;
use super::{Agent, BlockSource, Fit, ReadPath};
use crate::error::{Error, Result};
use crate::readpath::inject::{Limit, Measure};
use std::path::{Path, PathBuf};

/// A whole-file size limit the block is fitted into, with the user's text.
#[derive(Debug, Clone, Copy)]
pub struct FileLimit {
    /// Bytes the whole file may take.
    pub max_bytes: usize,
    /// Whose limit it is, for the note a cut leaves.
    pub name: &'static str,
}

/// The block in `path`, for `agent`.
pub struct MarkdownReadPath {
    agent: Agent,
    path: PathBuf,
    limit: Option<FileLimit>,
}

impl MarkdownReadPath {
    /// A managed block in `path`, the whole file kept within `limit`.
    pub fn new(agent: Agent, path: PathBuf, limit: Option<FileLimit>) -> Self {
        MarkdownReadPath { agent, path, limit }
    }

    /// The block's body for a file whose text is `current`, and how many
    /// summary lines it left out.
    fn body(&self, current: &str, source: &BlockSource) -> Result<(String, usize)> {
        let Some(file_limit) = self.limit else {
            let rendered = source.render(None, None);
            return Ok((rendered.text.trim_end().to_string(), rendered.left_out));
        };
        // The user's text and the marker lines take their room first. The
        // body grows as written (CRLF line ends, quoted marker lines): what
        // it overshoots by comes off the limit, until it fits.
        let taken = block::taken_len(&self.path, current, self.agent.name())?;
        let mut max = file_limit.max_bytes.saturating_sub(taken);
        loop {
            let rendered = source.render(
                None,
                Some(Limit {
                    max,
                    measure: Measure::Bytes,
                    name: file_limit.name,
                }),
            );
            let body = rendered.text.trim_end();
            let over =
                (taken + block::written_len(current, body)).saturating_sub(file_limit.max_bytes);
            if over == 0 {
                return Ok((body.to_string(), rendered.left_out));
            }
            if max == 0 {
                // Even the instructions without a line of the summary are too
                // long: written anyway, the agent would cut the block's end.
                return Err(Error::failed(format!(
                    "{}: the memory block does not fit {}: the file's own text takes {taken} of \
                     {} bytes and the block needs {} more; nothing was written (shorten the file)",
                    self.path.display(),
                    file_limit.name,
                    file_limit.max_bytes,
                    over
                )));
            }
            max = max.saturating_sub(over);
        }
    }
}

impl ReadPath for MarkdownReadPath {
    fn agent(&self) -> Agent {
        self.agent
    }

    fn file(&self) -> &Path {
        &self.path
    }

    fn is_installed(&self, current: &str) -> Result<bool> {
        Ok(block::locate(&self.path, current)?.is_some())
    }

    fn install(&self, current: &str, source: &BlockSource) -> Result<(String, Fit)> {
        let (body, left_out) = self.body(current, source)?;
        let text = block::install(&self.path, current, self.agent.name(), &body)?;
        let fit = Fit {
            size: text.len(),
            limit: self.limit.map(|l| l.max_bytes),
            unit: Measure::Bytes.unit(),
            left_out,
        };
        Ok((text, fit))
    }

    fn uninstall(&self, current: &str) -> Result<Option<String>> {
        block::uninstall(&self.path, current)
    }

    fn fit(&self, current: &str, source: &BlockSource) -> Result<Fit> {
        Ok(self.install(current, source)?.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(summary_lines: usize) -> BlockSource {
        let summary: String = std::iter::once("v1\n".to_string())
            .chain((0..summary_lines).map(|i| format!("- remembered fact number {i:04}\n")))
            .collect();
        BlockSource::for_test(
            "## Memory at {{ base_path }}\n{{ memory_summary }}\n",
            "/m",
            &summary,
        )
    }

    /// Codex's `AGENTS.md` under a 4,000-byte limit.
    fn limited_agents_md() -> MarkdownReadPath {
        MarkdownReadPath::new(
            Agent::Codex,
            PathBuf::from("AGENTS.md"),
            Some(FileLimit {
                max_bytes: 4_000,
                name: "the test limit",
            }),
        )
    }

    #[test]
    fn text_after_the_block_and_multibyte_summaries_are_fine() {
        let rp = limited_agents_md();
        let summary = "v1\n- préférence — toujours ✓\n".repeat(40);
        let src = BlockSource::for_test(
            "## Memory — {{ base_path }}\n{{ memory_summary }}\n",
            "/m",
            &summary,
        );
        let (installed, _) = rp.install("top\n", &src).unwrap();
        let edited = format!("{installed}added below the block, with é\n");
        let (refreshed, fit) = rp.install(&edited, &src).unwrap();
        assert!(refreshed.len() <= 4_000 && fit.size == refreshed.len());
        assert!(refreshed.ends_with("added below the block, with é\n"));
        assert_eq!(
            rp.uninstall(&refreshed).unwrap().unwrap(),
            "top\nadded below the block, with é\n"
        );
    }

    #[test]
    fn the_whole_file_stays_within_the_limit_and_a_cut_is_announced() {
        let rp = limited_agents_md();
        let user = "# Mine\n".repeat(100);
        let (small, fit) = rp.install(&user, &source(10)).unwrap();
        assert_eq!(fit.left_out, 0);
        assert_eq!(fit.size, small.len());
        assert!(small.starts_with(&user));
        let (big, fit) = rp.install(&user, &source(500)).unwrap();
        assert!(big.len() <= 4_000, "{}", big.len());
        assert_eq!(fit.size, big.len());
        assert!(fit.left_out > 0);
        assert!(big.contains("did not fit the test limit") && big.contains("/m/memory_summary.md"));
        let (refreshed, _) = rp.install(&big, &source(500)).unwrap();
        assert_eq!(
            refreshed, big,
            "refreshing an installed block changes nothing"
        );
        assert_eq!(rp.uninstall(&big).unwrap().unwrap(), user);
    }

    #[test]
    fn a_crlf_file_stays_within_the_limit_too() {
        // Codex's own limit: each written line is a byte longer than
        // rendered, and a flat allowance for that growth runs out once the
        // summary has a few hundred lines.
        let rp = MarkdownReadPath::new(
            Agent::Codex,
            PathBuf::from("AGENTS.md"),
            Some(FileLimit {
                max_bytes: 32_768,
                name: "the test limit",
            }),
        );
        let user = "# Mine\r\n".repeat(3_000);
        let summary: String = std::iter::once("v1\n".to_string())
            .chain((0..3_000).map(|i| format!("- f{i}\n")))
            .collect();
        let src = BlockSource::for_test("{{ memory_summary }}\n", "/m", &summary);
        let (text, fit) = rp.install(&user, &src).unwrap();
        assert!(text.len() <= 32_768, "{}", text.len());
        assert_eq!(fit.size, text.len());
        assert!(fit.left_out > 0 && text.starts_with(&user));
        assert!(
            !text.replace("\r\n", "").contains('\n'),
            "line ends stay CRLF"
        );
    }
}
