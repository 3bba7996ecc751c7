//! `memkit run`: prune → cite-import → extract → sync → diff → consolidate in
//! one process, under a run-level lock, recording every stage. Later stages
//! still run when an earlier one partly failed and it is safe to go on
//! (consolidation runs even if some extractions failed).

use crate::catalog::eligibility::Windows;
use crate::catalog::read_ahead::{InputPlan, ReadAhead};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::stages::cite_import::{self, CiteImportReport};
use crate::stages::consolidate::{self, ConsolidateOptions, ConsolidateReport};
use crate::stages::extract::{self, ExtractOptions, ExtractReport};
use crate::stages::keepalive::Keepalive;
use crate::stages::prune::{self, PruneReport};
use crate::stages::sync::{self, SyncReport};
use crate::stages::{StageOutcome, diff, record_stage};
use crate::store::{Store, locks};
use crate::util::process::worker_id;
use crate::util::time::now_secs;
use serde::Serialize;
use std::time::Duration;

/// The stages, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Delete unused stage-1 outputs.
    Prune,
    /// Import citations from recent replies.
    CiteImport,
    /// Phase 1.
    Extract,
    /// Write the memory folder's inputs.
    Sync,
    /// Compare the folder with its baseline.
    Diff,
    /// Phase 2.
    Consolidate,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 6] = [
        Stage::Prune,
        Stage::CiteImport,
        Stage::Extract,
        Stage::Sync,
        Stage::Diff,
        Stage::Consolidate,
    ];

    /// The name used on the command line and in `runs`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Prune => "prune",
            Stage::CiteImport => "cite-import",
            Stage::Extract => "extract",
            Stage::Sync => "sync",
            Stage::Diff => "diff",
            Stage::Consolidate => "consolidate",
        }
    }

    /// Parses a stage name.
    pub fn parse(s: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|st| st.name() == s)
    }
}

/// The counts of the diff stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiffReport {
    /// Changed paths since the baseline.
    pub changes: usize,
    /// The baseline commit.
    pub baseline: Option<String>,
}

impl StageOutcome for DiffReport {
    fn outcome(&self) -> &'static str {
        "ok"
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// A stage's typed report.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum StageReport {
    /// prune
    Prune(PruneReport),
    /// cite-import
    CiteImport(CiteImportReport),
    /// extract
    Extract(ExtractReport),
    /// sync
    Sync(SyncReport),
    /// diff
    Diff(DiffReport),
    /// consolidate
    Consolidate(ConsolidateReport),
}

/// How one stage went.
#[derive(Debug, Clone, Serialize)]
pub struct StageRun {
    /// Which stage.
    pub stage: Stage,
    /// `ok`, `partial`, `failed` or `skipped`.
    pub outcome: &'static str,
    /// The report, when the stage ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<StageReport>,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The run id (also in `runs` and the commit message).
    pub run_id: String,
    /// When it started, Unix seconds.
    pub started_at: i64,
    /// When it ended.
    pub finished_at: i64,
    /// Who held the run lock, when another run was active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_by: Option<String>,
    /// Since when that run holds the lock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_since: Option<i64>,
    /// The stages, in order.
    pub stages: Vec<StageRun>,
    /// Session files that could not be read whole (warnings, never a failed run).
    pub file_problems: Vec<String>,
    /// What the run spent, next to the month (from the cost ledger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::store::ledger::CostSummary>,
}

impl RunReport {
    /// Whether any stage failed (or partly failed).
    pub fn failed(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(s.outcome, "failed" | "partial"))
    }
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The stages to run (in pipeline order).
    pub stages: Vec<Stage>,
    /// Wait for another run to finish instead of exiting.
    pub wait: bool,
    /// Cap on the run's model tokens (extraction stops claiming before it).
    pub max_tokens: Option<u64>,
    /// Poll OpenAI batches until they are done before going on.
    pub wait_batches: bool,
    /// Progress bars (only when stderr is a terminal).
    pub progress: bool,
    /// The run id.
    pub run_id: String,
}

/// The name of the run lock.
pub const RUN_LOCK: &str = "run";
/// Lease of the run lock; refreshed every minute while the run goes on.
const RUN_LOCK_LEASE_SECS: i64 = 600;

/// Takes the run lock for `owner` if it is free; the holder if not.
pub fn try_run_lock(
    store: &mut Store,
    owner: &str,
) -> Result<std::result::Result<(), locks::Holder>> {
    locks::try_acquire(
        store.conn_mut(),
        RUN_LOCK,
        owner,
        RUN_LOCK_LEASE_SECS,
        now_secs(),
    )
}

/// Takes the run lock for `owner` once the run holding it is over, calling
/// `on_wait` with the holder each time it is still held.
pub fn wait_for_run_lock(
    store: &mut Store,
    owner: &str,
    mut on_wait: impl FnMut(&locks::Holder),
) -> Result<()> {
    while let Err(holder) = try_run_lock(store, owner)? {
        on_wait(&holder);
        std::thread::sleep(Duration::from_secs(1));
    }
    Ok(())
}

/// Runs the pipeline.
pub fn run(cfg: &Config, store: &mut Store, opts: &RunOptions) -> Result<RunReport> {
    let started_at = now_secs();
    let owner = worker_id();
    let mut report = RunReport {
        run_id: opts.run_id.clone(),
        started_at,
        finished_at: started_at,
        locked_by: None,
        locked_since: None,
        stages: Vec::new(),
        file_problems: Vec::new(),
        cost: None,
    };
    if opts.wait {
        wait_for_run_lock(store, &owner, |_| {})?;
    } else if let Err(holder) = try_run_lock(store, &owner)? {
        report.locked_by = Some(holder.owner);
        report.locked_since = Some(holder.acquired_at);
        return Ok(report);
    }
    let renew_owner = owner.clone();
    let keeper = Keepalive::start(
        store.path().to_path_buf(),
        Duration::from_secs(60),
        move |s| {
            matches!(
                locks::refresh(
                    s.conn(),
                    RUN_LOCK,
                    &renew_owner,
                    RUN_LOCK_LEASE_SECS,
                    now_secs()
                ),
                Ok(true)
            )
        },
    );
    let result = run_stages(cfg, store, opts, &mut report);
    keeper.stop();
    let released = locks::release(store.conn(), RUN_LOCK, &owner);
    // The problem list is information: failing to read it never loses the
    // stages' result.
    report.file_problems = crate::catalog::file_problems(store)
        .unwrap_or_default()
        .into_iter()
        .map(|p| p.message)
        .collect();
    released?;
    report.finished_at = now_secs();
    report.cost = crate::store::ledger::summary(
        store.conn(),
        Some(&opts.run_id),
        &cfg.costs.currency,
        report.finished_at,
    )
    .ok();
    result.map(|()| report)
}

fn run_stages(
    cfg: &Config,
    store: &mut Store,
    opts: &RunOptions,
    report: &mut RunReport,
) -> Result<()> {
    let run_id = opts.run_id.clone();
    let mut blocked: Option<String> = None;
    // cite-import brings the catalog up to date; extraction then needs no
    // scan of its own.
    let mut scanned = false;
    let mut synced: Option<sync::Synced> = None;
    // The scan reads a changed file the extraction may take once for both.
    let read_ahead = ReadAhead::default();
    let plan = opts
        .stages
        .contains(&Stage::Extract)
        .then(|| InputPlan::new(cfg, Windows::from_config(cfg, now_secs())));
    let mut inspected: Option<consolidate::Inspected> = None;
    for stage in Stage::ALL {
        if !opts.stages.contains(&stage) {
            continue;
        }
        if let Some(why) = &blocked
            && matches!(stage, Stage::Diff | Stage::Consolidate)
        {
            report.stages.push(StageRun {
                stage,
                outcome: "skipped",
                report: None,
                error: Some(why.clone()),
            });
            continue;
        }
        crate::util::crashpoint::here(&format!("run:{}", stage.name()));
        let now = now_secs();
        let result: Result<StageReport> = match stage {
            Stage::Prune => record_stage(store, &run_id, stage.name(), |s| {
                prune::run(cfg, s, prune::DEFAULT_LIMIT, false, now)
            })
            .map(StageReport::Prune),
            Stage::CiteImport => record_stage(store, &run_id, stage.name(), |s| {
                let ahead = plan.as_ref().map(|plan| (plan, &read_ahead));
                let r = cite_import::run(cfg, s, cfg.max_unused.as_secs() as i64, now, ahead)?;
                scanned = true;
                Ok(r)
            })
            .map(StageReport::CiteImport),
            Stage::Extract => {
                let eo = ExtractOptions {
                    max_tokens: opts.max_tokens,
                    progress: opts.progress,
                    wait: opts.wait_batches,
                    scanned,
                    read_ahead: read_ahead.clone(),
                    ..Default::default()
                };
                let report =
                    record_stage(store, &run_id, stage.name(), |s| extract::run(cfg, s, &eo))
                        .map(StageReport::Extract);
                // What the extraction did not take is not kept for later stages.
                read_ahead.clear();
                report
            }
            Stage::Sync => record_stage(store, &run_id, stage.name(), |s| {
                let fingerprint = sync::inputs_fingerprint(s)?;
                let (report, selection) = sync::run(cfg, s, now, false)?;
                synced = Some(sync::Synced {
                    selection,
                    fingerprint,
                });
                Ok(report)
            })
            .map(StageReport::Sync),
            Stage::Diff => record_stage(store, &run_id, stage.name(), |s| {
                let fingerprint = sync::inputs_fingerprint(s)?;
                let ws = diff::inspect(&cfg.memory_root)?;
                // A consolidation in this run writes its own diff file when
                // there is something to consolidate (and removes this one).
                if !opts.stages.contains(&Stage::Consolidate) {
                    diff::write_diff_file(&cfg.memory_root, &ws)?;
                }
                let report = DiffReport {
                    changes: ws.changes.len(),
                    baseline: ws.baseline.head_short()?,
                };
                inspected = Some(consolidate::Inspected {
                    workspace: ws,
                    fingerprint,
                });
                Ok(report)
            })
            .map(StageReport::Diff),
            Stage::Consolidate => {
                let co = ConsolidateOptions {
                    backend: None,
                    force: false,
                    run_id: run_id.clone(),
                    synced: synced.take(),
                    inspected: inspected.take(),
                };
                record_stage(store, &run_id, stage.name(), |s| {
                    consolidate::run(cfg, s, &co)
                })
                .map(StageReport::Consolidate)
            }
        };
        let run = match result {
            Ok(r) => StageRun {
                stage,
                outcome: outcome_of(&r),
                report: Some(r),
                error: None,
            },
            Err(e) => {
                if e.kind() == crate::error::ErrorKind::Usage {
                    return Err(e);
                }
                if matches!(stage, Stage::Sync | Stage::Diff) {
                    blocked = Some(format!("skipped because {} failed", stage.name()));
                }
                StageRun {
                    stage,
                    outcome: "failed",
                    report: None,
                    error: Some(e.to_string()),
                }
            }
        };
        report.stages.push(run);
    }
    Ok(())
}

fn outcome_of(r: &StageReport) -> &'static str {
    match r {
        StageReport::Prune(x) => x.outcome(),
        StageReport::CiteImport(x) => x.outcome(),
        StageReport::Extract(x) => x.outcome(),
        StageReport::Sync(x) => x.outcome(),
        StageReport::Diff(x) => x.outcome(),
        StageReport::Consolidate(x) => x.outcome(),
    }
}

/// Parses `--stages prune,extract,…`.
pub fn parse_stages(list: &str) -> Result<Vec<Stage>> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let stage = Stage::parse(name).ok_or_else(|| {
            let all: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
            Error::usage(format!(
                "unknown stage {name:?} (stages: {})",
                all.join(", ")
            ))
        })?;
        if !out.contains(&stage) {
            out.push(stage);
        }
    }
    if out.is_empty() {
        return Err(Error::usage("--stages needs at least one stage"));
    }
    Ok(out)
}
