//! `memkit sync`: writes the selected stage-1 outputs into the memory folder
//! in Codex's v1 layout (`rollout_summaries/`, `raw_memories.md`), removes
//! stale summaries, prunes old extension resources and seeds the ad-hoc
//! instructions. The git baseline exists before anything is written, so the
//! next diff shows exactly what sync changed.

use crate::config::Config;
use crate::error::{IoContext, Result};
use crate::memory::files::{SelectedOutput, render_raw_memories, render_rollout_summary};
use crate::memory::git::Baseline;
use crate::memory::{RAW_MEMORIES_MD, ROLLOUT_SUMMARIES_DIR, extensions, layout};
use crate::store::{Store, stage1};
use crate::util::fsx::{AtomicBatch, is_regular_file};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// What a sync did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Outputs selected for consolidation.
    pub selected: usize,
    /// Summary files written (new or changed).
    pub summaries_written: Vec<String>,
    /// Summary files already up to date.
    pub summaries_unchanged: usize,
    /// Stale summary files removed.
    pub summaries_removed: Vec<String>,
    /// Whether `raw_memories.md` changed.
    pub raw_memories_changed: bool,
    /// Extension resources older than 7 days removed.
    pub resources_pruned: Vec<String>,
    /// Symbolic links found in the folder and removed.
    pub symlinks_removed: usize,
    /// Whether `extensions/ad_hoc/instructions.md` was created.
    pub instructions_seeded: bool,
    /// What updating the search index did (not with `--dry-run`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_index: Option<crate::search::IndexReport>,
}

impl SyncReport {
    /// Whether sync changed (or would change) any file.
    pub fn changed_anything(&self) -> bool {
        !self.summaries_written.is_empty()
            || !self.summaries_removed.is_empty()
            || self.raw_memories_changed
            || !self.resources_pruned.is_empty()
            || self.instructions_seeded
    }
}

impl crate::stages::StageOutcome for SyncReport {
    fn outcome(&self) -> &'static str {
        "ok"
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::json!({
            "selected": self.selected,
            "summaries_written": self.summaries_written.len(),
            "summaries_unchanged": self.summaries_unchanged,
            "summaries_removed": self.summaries_removed.len(),
            "raw_memories_changed": self.raw_memories_changed,
            "resources_pruned": self.resources_pruned.len(),
            "symlinks_removed": self.symlinks_removed,
            "search_units_added": self.search_index.as_ref().map(|r| r.units_added),
            "search_units_removed": self.search_index.as_ref().map(|r| r.units_removed),
            "search_vectors_added": self.search_index.as_ref()
                .and_then(|r| r.embeddings.as_ref()).map(|e| e.embedded),
        })
    }

    /// The search vectors' embedding input.
    fn tokens(&self) -> (u64, u64) {
        let embedding = self
            .search_index
            .as_ref()
            .map_or(0, |r| r.embedding_tokens());
        (embedding, 0)
    }
}

/// What a sync wrote, with what the selection depended on: a consolidation
/// in the same run reuses it instead of syncing again when nothing it
/// depends on moved since.
#[derive(Debug, Clone)]
pub struct Synced {
    /// The outputs written, as selected.
    pub selection: Vec<SelectedOutput>,
    /// [`inputs_fingerprint`] just before they were selected.
    pub fingerprint: InputsFingerprint,
}

/// Whether anything but this connection wrote the database: SQLite's
/// `data_version`, which changes when another connection (another memkit
/// process, a worker thread) commits. The phase-2 selection only changes
/// through such a commit between a run's sync and its consolidation.
pub type InputsFingerprint = i64;

/// The current [`InputsFingerprint`].
pub fn inputs_fingerprint(store: &Store) -> Result<InputsFingerprint> {
    Ok(store
        .conn()
        .query_row("PRAGMA data_version", [], |r| r.get(0))?)
}

/// Where `output`'s summary lives, relative to the memory folder.
fn summary_path(output: &SelectedOutput) -> String {
    format!("{ROLLOUT_SUMMARIES_DIR}/{}.md", output.stem())
}

fn differs(path: &Path, text: &str) -> bool {
    fs::read(path).map_or(true, |old| old != text.as_bytes())
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Runs sync (or plans it, with `dry_run`); returns the report and the selection.
pub fn run(
    cfg: &Config,
    store: &mut Store,
    now: i64,
    dry_run: bool,
) -> Result<(SyncReport, Vec<SelectedOutput>)> {
    let root = &cfg.memory_root;
    let mut report = SyncReport {
        dry_run,
        ..Default::default()
    };
    layout::refuse_symlinked_root(root)?;
    if !dry_run {
        let removed_links = layout::ensure_layout(root)?;
        for link in &removed_links {
            crate::ui::warn(format!(
                "removed symbolic link {} from the memory folder",
                link.display()
            ));
        }
        report.symlinks_removed = removed_links.len();
        Baseline::open_or_create(root)?;
        report.instructions_seeded = extensions::seed_ad_hoc_instructions(root)?;
    }

    let selection = stage1::select_for_phase2(
        store.conn(),
        cfg.max_raw_memories_for_consolidation,
        cfg.max_unused.as_secs() as i64,
        now,
    )?;
    report.selected = selection.len();
    let stems: HashSet<String> = selection.iter().map(SelectedOutput::stem).collect();
    let dir = root.join(ROLLOUT_SUMMARIES_DIR);
    let mut stale: Vec<PathBuf> = Vec::new();
    if let Ok(entries) = fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = is_regular_file(&entry.path());
            if let Some(stem) = name.strip_suffix(".md")
                && is_file
                && !stems.contains(stem)
            {
                stale.push(entry.path());
            }
        }
    }
    stale.sort();
    for path in stale {
        report.summaries_removed.push(rel(root, &path));
        if dry_run {
            continue;
        }
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                crate::ui::warn(format!("{}: {e}", path.display()))
            }
            _ => {}
        }
    }
    // Every file rendered and compared with what is on disk, the summaries
    // and raw_memories.md side by side on the pool: a night with nothing
    // new reads them all and writes none. Only whether each differs is
    // kept; a changed summary is rendered again as it is written, so a
    // first sync of thousands never holds them all.
    let (differing, raw) = rayon::join(
        || {
            selection
                .par_iter()
                .map(|output| {
                    let rel_path = summary_path(output);
                    differs(&root.join(&rel_path), &render_rollout_summary(output))
                })
                .collect::<Vec<bool>>()
        },
        || {
            let raw = render_raw_memories(&selection);
            differs(&root.join(RAW_MEMORIES_MD), &raw).then_some(raw)
        },
    );
    let mut batch = AtomicBatch::default();
    for (output, changed) in selection.iter().zip(differing) {
        if !changed {
            report.summaries_unchanged += 1;
            continue;
        }
        let rel_path = summary_path(output);
        if !dry_run {
            let text = render_rollout_summary(output);
            layout::stage_file(&mut batch, root, &rel_path, text.as_bytes())?;
        }
        report.summaries_written.push(rel_path);
    }
    report.raw_memories_changed = raw.is_some();
    if let Some(raw) = raw.filter(|_| !dry_run) {
        layout::stage_file(&mut batch, root, RAW_MEMORIES_MD, raw.as_bytes())?;
    }
    crate::util::crashpoint::here("sync:staged");
    batch.commit()?;
    let old = extensions::old_resources(root, now);
    if !dry_run {
        for path in &old {
            fs::remove_file(path).at(path)?;
        }
    }
    report.resources_pruned = old.iter().map(|p| rel(root, p)).collect();
    if !dry_run {
        let changed = report.changed_anything() || report.symlinks_removed > 0;
        report.search_index = crate::search::refresh_after_stage(store, cfg, changed);
    }
    Ok((report, selection))
}
