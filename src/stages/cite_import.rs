//! `memkit cite-import`: reads the citations agents put at the end of their
//! replies (the `<oai-mem-citation>` block, or Codex 0.169+'s structured
//! `memory_citation`, merged by the reader when a reply has both) and bumps
//! the usage of the cited memories, exactly once per citing reply, dated at
//! the reply (not at the import).

use crate::catalog::FileReplies;
use crate::catalog::read_ahead::{InputPlan, ReadAhead};
use crate::config::Config;
use crate::error::Result;
use crate::readpath::citations::{Citation, parse_citations};
use crate::sources::{Event, ReadOptions, Role, Tool, stream_session};
use crate::store::{Store, threads, usage};
use crate::util::hash::{FNV_OFFSET, fnv1a};
use crate::util::ids::is_uuid;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// What an import did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CiteImportReport {
    /// Session files read (unchanged files are skipped).
    pub sessions_scanned: usize,
    /// Assistant replies read.
    pub replies_scanned: usize,
    /// Replies with a citation block.
    pub citations_found: usize,
    /// Replies imported in an earlier run.
    pub already_imported: usize,
    /// Usage increments applied (one per cited memory per reply).
    pub outputs_bumped: usize,
    /// Cited thread ids with no stored memory.
    pub unknown_ids: usize,
    /// Cited ids that are not thread UUIDs (ignored).
    pub invalid_ids: usize,
    /// Files that could not be read (warnings; the catalog lists them too).
    pub errors: Vec<String>,
}

impl crate::stages::StageOutcome for CiteImportReport {
    /// A file that cannot be read is a warning, never a failed stage: the
    /// other sessions' citations are imported.
    fn outcome(&self) -> &'static str {
        "ok"
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl CiteImportReport {
    /// Imports the citation of one reply.
    fn reply(
        &mut self,
        store: &mut Store,
        source_key: &str,
        line: i64,
        reply_at: i64,
        citation: Option<Citation>,
        now: i64,
    ) -> Result<()> {
        self.replies_scanned += 1;
        let Some(citation) = citation else {
            return Ok(());
        };
        self.citations_found += 1;
        let (valid, invalid): (Vec<String>, Vec<String>) =
            citation.rollout_ids.into_iter().partition(|id| is_uuid(id));
        self.invalid_ids += invalid.len();
        let valid: Vec<String> = valid
            .into_iter()
            .map(|id| id.to_ascii_lowercase())
            .collect();
        match usage::import_reply(store.conn_mut(), source_key, line, reply_at, &valid, now)? {
            Some(b) => {
                self.outputs_bumped += b.bumped;
                self.unknown_ids += b.unknown;
            }
            None => self.already_imported += 1,
        }
        Ok(())
    }
}

/// Imports from the sessions updated within `since_secs`, bringing the
/// catalog up to date first: a file the scan had to read is not read again,
/// its replies come from the scan (and, with `ahead`, the extraction input
/// of a file the run may extract is read in the same pass).
pub fn run(
    cfg: &Config,
    store: &mut Store,
    since_secs: i64,
    now: i64,
    ahead: Option<(&InputPlan, &ReadAhead)>,
) -> Result<CiteImportReport> {
    let scanned = crate::catalog::scan_reading_ahead(cfg, store, ahead)?;
    import(store, since_secs, now, &scanned.replies)
}

/// Imports from the catalogued sessions updated within `since_secs` whose
/// file changed since cite-import last read it; `read` holds the replies of
/// files already read at their current size and mtime.
pub fn import(
    store: &mut Store,
    since_secs: i64,
    now: i64,
    read: &HashMap<String, FileReplies>,
) -> Result<CiteImportReport> {
    let mut report = CiteImportReport::default();
    // Unreadable files are reported from the catalog, once per run.
    for row in threads::not_cite_scanned_since(store.conn(), now - since_secs)? {
        let Some(tool) = Tool::parse(&row.tool) else {
            continue;
        };
        let known = read
            .get(&row.rollout_path)
            .filter(|r| (r.size, r.mtime_ns) == (row.file_size, row.file_mtime_ns));
        let replies: Vec<(i64, i64, Option<Citation>)> = match known {
            Some(known) => {
                report.replies_scanned += known.replies - known.cited.len();
                known
                    .cited
                    .iter()
                    .map(|(line, at, c)| {
                        let at = at.map_or(row.updated_at, |ms| ms / 1000);
                        (*line, at, Some(c.clone()))
                    })
                    .collect()
            }
            None => match read_replies(&row.rollout_path, tool, row.updated_at) {
                Ok(replies) => replies,
                Err(e) => {
                    report.errors.push(e.to_string());
                    continue;
                }
            },
        };
        report.sessions_scanned += 1;
        for (line, at, citation) in replies {
            report.reply(store, &row.id, line, at, citation, now)?;
        }
        usage::record_scan(store.conn(), &row.id, row.file_size, row.file_mtime_ns)?;
    }
    Ok(report)
}

/// The assistant replies of the session file at `path`: line, time (Unix
/// seconds, `default_at` when the line has none) and citation.
fn read_replies(
    path: &str,
    tool: Tool,
    default_at: i64,
) -> Result<Vec<(i64, i64, Option<Citation>)>> {
    let mut replies = Vec::new();
    let opts = ReadOptions {
        max_output_bytes: Some(0),
        max_message_bytes: None,
    };
    stream_session(Path::new(path), tool, opts, &mut |e| {
        if let Event::Message(m) = e
            && m.role == Role::Assistant
        {
            let at = m.at.map_or(default_at, |ms| ms / 1000);
            replies.push((m.line as i64, at, m.citation));
        }
    })?;
    Ok(replies)
}

/// How much of the end of a reply piped in is kept: its citation block is
/// its last part, so memory stays bounded however long the reply.
pub const STDIN_TAIL_BYTES: usize = 1 << 20;

/// Imports the citation of one reply read from `input` (stdin). The reply is
/// keyed by its content, so the same text is counted once however often it
/// is piped in; only its last [`STDIN_TAIL_BYTES`] are kept to find the block.
pub fn import_reader(
    store: &mut Store,
    mut input: impl std::io::Read,
    now: i64,
) -> Result<CiteImportReport> {
    let mut hash = FNV_OFFSET;
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(crate::Error::failed(format!("reading stdin: {e}"))),
        };
        hash = fnv1a(hash, &buf[..n]);
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 2 * STDIN_TAIL_BYTES {
            tail.drain(..tail.len() - STDIN_TAIL_BYTES);
        }
    }
    let text = String::from_utf8_lossy(&tail);
    let mut report = CiteImportReport::default();
    let key = format!("stdin:{hash:016x}");
    report.reply(store, &key, 0, now, parse_citations(&text), now)?;
    Ok(report)
}
