//! Phase 2, `memkit consolidate`: under a global lease with a heartbeat, sync
//! the inputs, diff the folder against its baseline, run the backend when
//! something changed (or the artifacts are invalid), validate, commit the new
//! baseline on top of history and record which snapshots were consolidated.
//!
//! Afterwards the agents' installed read paths (Codex's `AGENTS.md` block,
//! Gemini's `GEMINI.md` block) are brought up to date with the summary.
//!
//! Failure leaves the previous `MEMORY.md`, `memory_summary.md` and `skills/`
//! byte-identical. Files a user changed while the backend ran are committed at
//! their state from the start of the run, so the next diff shows the edits
//! instead of the baseline swallowing them.

use crate::backends::consolidate::{
    ConsolidatedFiles, ConsolidationInput, Consolidator, Note, Skill, is_valid_skill_name,
};
use crate::config::{Config, ConsolidateBackendKind};
use crate::error::{Error, IoContext, Result};
use crate::memory::files::SelectedOutput;
use crate::memory::git::Snapshot;
use crate::memory::pins::Pins;
use crate::memory::validate::{check_artifacts, validate_files};
use crate::memory::{
    MEMORY_MD, MEMORY_SUMMARY_MD, SKILL_MD, SKILLS_DIR, WORKSPACE_DIFF_MD, extensions, layout,
};
use crate::stages::diff::{Workspace, inspect, remove_diff_file, write_diff_file};
use crate::stages::keepalive::Keepalive;
use crate::store::Store;
use crate::store::jobs::{self, Phase2Claim, Phase2ClaimOptions};
use crate::util::fsx::{is_regular_file, remove_path};
use crate::util::time::now_secs;
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often the lease is extended while the backend runs.
const HEARTBEAT: Duration = Duration::from_secs(90);

/// How to consolidate.
#[derive(Debug, Clone, Default)]
pub struct ConsolidateOptions {
    /// Backend override (`--backend`).
    pub backend: Option<ConsolidateBackendKind>,
    /// Ignore cooldown, backoff and an exhausted retry budget.
    pub force: bool,
    /// The run id recorded in the commit message.
    pub run_id: String,
    /// What this run's sync stage wrote moments ago, if it ran.
    pub synced: Option<crate::stages::sync::Synced>,
    /// What this run's diff stage found moments ago, if it ran.
    pub inspected: Option<Inspected>,
}

/// The memory folder's changes as a run's diff stage found them.
#[derive(Debug, Clone)]
pub struct Inspected {
    /// The baseline and the changes.
    pub workspace: Workspace,
    /// [`inputs_fingerprint`] just before they were listed.
    ///
    /// [`inputs_fingerprint`]: crate::stages::sync::inputs_fingerprint
    pub fingerprint: crate::stages::sync::InputsFingerprint,
}

/// What a consolidation did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ConsolidateReport {
    /// `consolidated`, `no_changes`, `locked`, `cooldown`, `backoff`, `retries_exhausted` or `failed`.
    pub outcome: &'static str,
    /// Backend name.
    pub backend: String,
    /// Model or program.
    pub model: String,
    /// Stage-1 outputs consolidated.
    pub inputs: usize,
    /// Changed paths since the last baseline.
    pub changes: usize,
    /// The new baseline commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Who holds the lease, when locked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock_holder: Option<String>,
    /// Until when (lease, cooldown or backoff), Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// The error of a failed run (or the last one, when skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Files a user changed during the run, left for the next consolidation.
    pub edits_during_run: Vec<String>,
    /// Lines of `MEMORY.md` / `memory_summary.md` the user wrote or removed
    /// by hand, kept by this consolidation.
    pub hand_edited_lines: usize,
    /// Model input tokens.
    pub tokens_in: u64,
    /// Model output tokens.
    pub tokens_out: u64,
    /// The agents' read paths brought up to date afterwards (installed ones only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read_paths: Vec<crate::agents::Refreshed>,
    /// What updating the search index afterwards did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_index: Option<crate::search::IndexReport>,
}

impl crate::stages::StageOutcome for ConsolidateReport {
    fn outcome(&self) -> &'static str {
        match self.outcome {
            // Stopped for good until someone acts: the run must say so (exit 1).
            "failed" | "retries_exhausted" => "failed",
            "consolidated" | "no_changes" => "ok",
            _ => "skipped",
        }
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The model's tokens and the search vectors' (embedding input).
    fn tokens(&self) -> (u64, u64) {
        let embedding = self
            .search_index
            .as_ref()
            .map_or(0, |r| r.embedding_tokens());
        (self.tokens_in + embedding, self.tokens_out)
    }
}

/// Builds the configured (or overridden) consolidation backend.
pub fn build_backend(
    cfg: &Config,
    kind: Option<ConsolidateBackendKind>,
) -> Result<Box<dyn Consolidator>> {
    let c = &cfg.consolidate;
    let prompt = || -> Result<String> {
        let template = crate::templates::load(cfg, "consolidation.md")?;
        Ok(crate::templates::render(
            &template,
            &[
                ("memory_root", &cfg.memory_root.display().to_string()),
                ("diff_file", WORKSPACE_DIFF_MD),
            ],
        ))
    };
    Ok(match kind.unwrap_or(c.backend) {
        ConsolidateBackendKind::Heuristic => {
            Box::new(crate::backends::heuristic::HeuristicConsolidator)
        }
        ConsolidateBackendKind::Model => {
            let transport = crate::backends::transport::build(
                &crate::backends::transport::TransportSettings {
                    kind: c.transport,
                    model: c.model.clone(),
                    base_url: c.base_url.clone(),
                    api_key_env: c.api_key_env.clone(),
                    command: c.command.clone(),
                    timeout: c.timeout,
                    max_retries: 2,
                    default_openai_model: "gpt-5.4",
                },
            )?;
            Box::new(crate::backends::model_consolidate::ModelConsolidator::new(
                transport,
                prompt()?,
                c.input_tokens,
            ))
        }
        ConsolidateBackendKind::Agent => Box::new(crate::backends::agent::AgentConsolidator::new(
            c.agent_command.clone(),
            crate::templates::load(cfg, "consolidation.md")?,
            cfg.memkit_home.join("scratch"),
            c.timeout,
        )?),
    })
}

/// Runs phase 2.
pub fn run(
    cfg: &Config,
    store: &mut Store,
    opts: &ConsolidateOptions,
) -> Result<ConsolidateReport> {
    let backend = build_backend(cfg, opts.backend)?;
    let mut report = ConsolidateReport {
        backend: backend.name().to_string(),
        model: backend.model(),
        ..Default::default()
    };
    let worker = crate::util::process::worker_id();
    let max_retries = cfg.consolidate.max_retries as i64;
    // A configuration changed since the last failure may have fixed its
    // cause: try again now instead of waiting out the backoff.
    let config_changed = config_changed_since_failure(cfg, store)?;
    let claim = jobs::try_claim_phase2(
        store.conn_mut(),
        &worker,
        Phase2ClaimOptions {
            lease_secs: jobs::LEASE_SECONDS,
            cooldown_secs: cfg.consolidate.cooldown.as_secs() as i64,
            max_retries,
            force: opts.force || config_changed,
        },
        now_secs(),
    )?;
    let (token, watermark) = match claim {
        Phase2Claim::Claimed {
            token,
            input_watermark,
        } => {
            crate::util::crashpoint::here("consolidate:claimed");
            (token, input_watermark)
        }
        Phase2Claim::Running {
            worker,
            lease_until,
        } => {
            report.outcome = "locked";
            report.lock_holder = worker;
            report.until = Some(lease_until);
            return Ok(report);
        }
        Phase2Claim::Cooldown { until } => {
            report.outcome = "cooldown";
            report.until = Some(until);
            return Ok(report);
        }
        Phase2Claim::Backoff {
            retry_at,
            last_error,
        } => {
            report.outcome = "backoff";
            report.until = Some(retry_at);
            report.error = last_error;
            return Ok(report);
        }
        Phase2Claim::RetriesExhausted { last_error } => {
            report.outcome = "retries_exhausted";
            report.error = last_error;
            return Ok(report);
        }
    };
    let beat_token = token.clone();
    let heartbeat = Keepalive::start(store.path().to_path_buf(), HEARTBEAT, move |s| {
        matches!(
            jobs::heartbeat_phase2(s.conn(), &beat_token, jobs::LEASE_SECONDS, now_secs()),
            Ok(true)
        )
    });
    let result = consolidate_locked(cfg, store, backend.as_ref(), opts, &mut report);
    heartbeat.stop();
    let now = now_secs();
    match result {
        Ok(selection) => {
            let new_watermark = selection
                .iter()
                .map(|(_, v)| *v)
                .max()
                .unwrap_or(0)
                .max(watermark);
            if !jobs::mark_phase2_succeeded(
                store.conn_mut(),
                &token,
                new_watermark,
                max_retries,
                &selection,
                now,
            )? {
                return Err(Error::failed(
                    "lost the consolidation lease before recording the result",
                ));
            }
            report.read_paths = crate::agents::refresh_installed(cfg, store, now);
            // Nothing to consolidate wrote nothing: the index is as the
            // last stage that changed the folder left it.
            let wrote = report.outcome == "consolidated";
            report.search_index = crate::search::refresh_after_stage(store, cfg, wrote);
            Ok(report)
        }
        Err(e) => {
            let reason = crate::util::text::cut(&e.to_string(), 2000).to_string();
            jobs::mark_phase2_failed(
                store.conn(),
                &token,
                &reason,
                jobs::RETRY_DELAY_SECONDS,
                now,
            )?;
            report.outcome = "failed";
            report.error = Some(reason);
            Err(e)
        }
    }
}

/// Whether the configuration file changed after the last failed consolidation.
fn config_changed_since_failure(cfg: &Config, store: &Store) -> Result<bool> {
    let Some(job) = jobs::phase2_job(store.conn())? else {
        return Ok(false);
    };
    let (Some(failed_at), Some(file)) = (job.finished_at, cfg.config_file.as_ref()) else {
        return Ok(false);
    };
    if job.status != "error" {
        return Ok(false);
    }
    let modified = std::fs::metadata(file)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    Ok(modified.is_some_and(|m| m > failed_at))
}

/// The work done while holding the lease; returns the consolidated snapshots.
fn consolidate_locked(
    cfg: &Config,
    store: &mut Store,
    backend: &dyn Consolidator,
    opts: &ConsolidateOptions,
    report: &mut ConsolidateReport,
) -> Result<Vec<(String, i64)>> {
    let root = &cfg.memory_root;
    let now = now_secs();
    // The run synced moments ago: unless another connection wrote the
    // database since (an extraction, a forget, a citation import by another
    // process), that selection is what to consolidate.
    let reusable = match &opts.synced {
        Some(s) if s.fingerprint == crate::stages::sync::inputs_fingerprint(store)? => {
            Some(s.selection.as_slice())
        }
        _ => None,
    };
    let selection: std::borrow::Cow<'_, [SelectedOutput]> = match reusable {
        Some(selection) => selection.into(),
        None => crate::stages::sync::run(cfg, store, now, false)?.1.into(),
    };
    report.inputs = selection.len();
    let consolidated: Vec<(String, i64)> = selection
        .iter()
        .map(|o| (o.thread_id.clone(), o.source_updated_at))
        .collect();
    // Likewise the diff: nothing but this run wrote the database since
    // (another process's consolidation would have), so the baseline is the
    // one the diff stage compared with; a file changed meanwhile by hand or
    // by `memkit add` is a change the next consolidation takes up.
    let ws = match &opts.inspected {
        Some(i) if i.fingerprint == crate::stages::sync::inputs_fingerprint(store)? => {
            remove_diff_file(root)?;
            i.workspace.clone()
        }
        _ => inspect(root)?,
    };
    report.changes = ws.changes.len();
    if ws.changes.is_empty() && check_artifacts(root).is_ok() {
        report.outcome = "no_changes";
        return Ok(consolidated);
    }
    let diff_file = write_diff_file(root, &ws)?;
    crate::util::crashpoint::here("consolidate:diff-written");
    let at_start = ws.baseline.store_worktree()?;
    let backup = OutputsBackup::take(root)?;
    let previous_memory = fs::read_to_string(root.join(MEMORY_MD)).ok();
    let previous_summary = fs::read_to_string(root.join(MEMORY_SUMMARY_MD)).ok();
    let pins = hand_edits(&ws, previous_memory.as_deref(), previous_summary.as_deref())?;
    report.hand_edited_lines = pins.len();
    let notes = read_notes(root)?;
    let input = ConsolidationInput {
        root,
        selection: &selection,
        changes: &ws.changes,
        diff_file: &diff_file,
        previous_memory,
        previous_summary,
        notes: &notes,
        now,
    };
    let applied = backend.consolidate(&input).and_then(|result| {
        crate::util::crashpoint::here("consolidate:backend-done");
        report.tokens_in = result.tokens_in;
        report.tokens_out = result.tokens_out;
        let entry = crate::store::ledger::Entry {
            stage: "consolidate",
            model: &backend.model(),
            batch: false,
            thread_id: None,
            tokens: crate::config::Tokens {
                input: result.tokens_in,
                cached_input: result.tokens_cached,
                output: result.tokens_out,
            },
            codex: None,
        };
        crate::store::ledger::book(store.conn(), &cfg.costs, &entry, now);
        let mut files = result.files;
        pins.apply(&mut files);
        write_files(root, &files)
    });
    if let Err(e) = applied {
        backup.restore(root)?;
        return Err(e);
    }
    crate::util::crashpoint::here("consolidate:validated");
    remove_diff_file(root)?;
    let after = ws.baseline.store_worktree()?;
    crate::util::crashpoint::here("consolidate:blobs-stored");
    let (snapshot, edited) = commit_snapshot(&at_start, &after);
    report.edits_during_run = edited;
    let message = format!(
        "memkit consolidation {}\n\ninputs: {}\nbackend: {}\nmodel: {}\n",
        opts.run_id,
        selection.len(),
        backend.name(),
        backend.model()
    );
    report.commit = ws
        .baseline
        .commit(&snapshot, &message)?
        .map(|id| id.to_hex_with_len(7).to_string());
    report.outcome = "consolidated";
    Ok(consolidated)
}

/// The user's hand edits of `MEMORY.md` and `memory_summary.md` (their
/// current text given) since memkit's last commit (the baseline's HEAD).
fn hand_edits(ws: &Workspace, memory: Option<&str>, summary: Option<&str>) -> Result<Pins> {
    let committed = |name: &str| -> Result<Option<String>> {
        let old = ws
            .changes
            .iter()
            .find(|c| c.path == name)
            .and_then(|c| c.old);
        old.map(|state| {
            ws.baseline
                .blob(state.oid)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        })
        .transpose()
    };
    Ok(Pins::collect(
        committed(MEMORY_MD)?.as_deref(),
        memory,
        committed(MEMORY_SUMMARY_MD)?.as_deref(),
        summary,
    ))
}

/// Whether a path is something the backend writes.
fn is_output(path: &str) -> bool {
    path == MEMORY_MD || path == MEMORY_SUMMARY_MD || path.starts_with(&format!("{SKILLS_DIR}/"))
}

/// The snapshot to commit: the backend's outputs as they are now, every other
/// file as it was when the run started. Returns it with the paths that
/// changed meanwhile (edits the next consolidation will see).
fn commit_snapshot(at_start: &Snapshot, after: &Snapshot) -> (Snapshot, Vec<String>) {
    let mut snapshot = Snapshot::new();
    let mut edited = Vec::new();
    for path in at_start.keys().chain(after.keys()) {
        if is_output(path) {
            if let Some(s) = after.get(path) {
                snapshot.insert(path.clone(), *s);
            }
            continue;
        }
        if let Some(s) = at_start.get(path) {
            snapshot.insert(path.clone(), *s);
        }
        if at_start.get(path) != after.get(path) && !edited.contains(path) {
            edited.push(path.clone());
        }
    }
    (snapshot, edited)
}

/// Validates proposed files and writes them atomically. What a backend
/// wrote is redacted and made inert like anything else that reaches the
/// folder (an agent can read more than memkit gave it).
fn write_files(root: &Path, files: &ConsolidatedFiles) -> Result<()> {
    validate_files(&files.memory_md, &files.memory_summary_md)?;
    let skills = files.skills.as_deref().unwrap_or_default();
    if let Some(bad) = skills.iter().find(|s| !is_valid_skill_name(&s.name)) {
        return Err(Error::failed(format!(
            "skill name {:?} is not lower-case letters, digits and hyphens (≤ 64)",
            bad.name
        )));
    }
    let memory_md = clean_text(&files.memory_md);
    let summary = clean_text(&files.memory_summary_md);
    validate_files(&memory_md, &summary)?;
    layout::write_file(root, MEMORY_MD, memory_md.as_bytes())?;
    layout::write_file(root, MEMORY_SUMMARY_MD, summary.as_bytes())?;
    if files.skills_complete {
        remove_deleted_skills(root, skills)?;
    }
    for skill in skills {
        write_skill(root, skill)?;
    }
    Ok(())
}

/// A backend's text as it may be written: redacted, inert.
fn clean_text(text: &str) -> String {
    crate::util::text::inert_text(&crate::redact::redact(text))
}

/// Removes the skill folders a complete `skills` list no longer has; folders
/// whose names are not skill names are the user's and stay.
fn remove_deleted_skills(root: &Path, kept: &[Skill]) -> Result<()> {
    let dir = root.join(SKILLS_DIR);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if crate::util::fsx::is_real_dir(&entry.path())
            && is_valid_skill_name(&name)
            && !kept.iter().any(|s| s.name == name)
        {
            remove_path(&entry.path())?;
        }
    }
    Ok(())
}

/// Writes one skill: its `SKILL.md` and, when the backend gave the whole
/// folder, exactly its other files with their modes.
fn write_skill(root: &Path, skill: &Skill) -> Result<()> {
    let folder = format!("{SKILLS_DIR}/{}", skill.name);
    if let Some(files) = &skill.files {
        remove_path(&root.join(&folder))?;
        for f in files {
            let bytes = match std::str::from_utf8(&f.bytes) {
                Ok(text) => crate::redact::redact(text).into_owned().into_bytes(),
                Err(_) => f.bytes.clone(),
            };
            layout::write_file_with_mode(
                root,
                &format!("{folder}/{}", f.path),
                &bytes,
                Some(f.mode & 0o777),
            )?;
        }
    }
    layout::write_file(
        root,
        &format!("{folder}/{SKILL_MD}"),
        clean_text(&skill.content).as_bytes(),
    )?;
    Ok(())
}

/// Every note in `extensions/ad_hoc/notes/`, by file name.
pub fn read_notes(root: &Path) -> Result<Vec<Note>> {
    let dir = extensions::notes_dir(root);
    let mut notes = Vec::new();
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(notes);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_regular_file(&path) && name.ends_with(".md") {
            notes.push(Note {
                file_name: name,
                text: fs::read_to_string(&path).at(&path)?,
            });
        }
    }
    notes.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    Ok(notes)
}

/// The backend's outputs as they were before it ran.
struct OutputsBackup {
    memory: Option<Vec<u8>>,
    summary: Option<Vec<u8>>,
    skills: Vec<(PathBuf, Vec<u8>, u32)>,
}

impl OutputsBackup {
    fn take(root: &Path) -> Result<OutputsBackup> {
        let mut skills = Vec::new();
        collect_files(root, &root.join(SKILLS_DIR), &mut skills)?;
        Ok(OutputsBackup {
            memory: fs::read(root.join(MEMORY_MD)).ok(),
            summary: fs::read(root.join(MEMORY_SUMMARY_MD)).ok(),
            skills,
        })
    }

    fn restore(&self, root: &Path) -> Result<()> {
        for (name, bytes) in [
            (MEMORY_MD, &self.memory),
            (MEMORY_SUMMARY_MD, &self.summary),
        ] {
            match bytes {
                Some(b) => {
                    remove_path(&root.join(name))?;
                    layout::write_file(root, name, b)?;
                }
                None => remove_path(&root.join(name))?,
            }
        }
        remove_path(&root.join(SKILLS_DIR))?;
        for (rel, bytes, mode) in &self.skills {
            layout::write_file_with_mode(root, &rel.to_string_lossy(), bytes, Some(*mode))?;
        }
        Ok(())
    }
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>, u32)>) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).at(&path)?;
        if meta.is_dir() {
            collect_files(root, &path, out)?;
        } else if meta.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777;
            out.push((rel, fs::read(&path).at(&path)?, mode));
        }
    }
    Ok(())
}
