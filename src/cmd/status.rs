//! `memkit status`: where things are, what happened in the last runs, and
//! what will happen next — so nothing is ever "pending" without a reason.

use super::Ctx;
use crate::catalog::eligibility::{Ineligible, Windows, check};
use crate::error::Result;
use crate::store::jobs::{Phase2Job, Stage1Job, phase2_job, unfinished_stage1_jobs};
use crate::store::runs::{self, RunRecord};
use crate::store::{SCHEMA_VERSION, stage1, threads, usage};
use crate::ui;
use crate::util::time::{human_duration, now_secs, rfc3339, when};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many recent runs are shown.
const RECENT_RUNS: usize = 10;

#[derive(Serialize, Default)]
struct ToolCounts {
    sessions: usize,
    eligible: usize,
    ineligible: BTreeMap<&'static str, usize>,
}

#[derive(Serialize)]
struct Baseline {
    commit: String,
    message: String,
}

#[derive(Serialize)]
struct StageSummary {
    stage: String,
    outcome: String,
    counts: Option<serde_json::Value>,
    tokens_in: i64,
    tokens_out: i64,
    error: Option<String>,
}

#[derive(Serialize)]
struct RunSummary {
    run_id: String,
    started_at: i64,
    duration_secs: Option<i64>,
    stages: Vec<StageSummary>,
}

#[derive(Serialize, Default)]
struct Next {
    eligible_now: usize,
    waiting_for_idle: usize,
    next_idle_window_ends: Option<i64>,
    stage1_in_backoff: usize,
    next_retry_at: Option<i64>,
    stage1_retries_exhausted: usize,
    stage1_running: usize,
    failures: Vec<Stage1Job>,
}

#[derive(Serialize)]
struct Status {
    config_file: Option<String>,
    codex_home: String,
    claude_home: String,
    memkit_home: String,
    memory_root: String,
    database: String,
    schema_version: i64,
    schema_version_supported: i64,
    catalog: BTreeMap<String, ToolCounts>,
    memories: stage1::OutputStats,
    last_cite_import: Option<i64>,
    next_prune: usize,
    consolidation: Option<Phase2Job>,
    baseline: Option<Baseline>,
    recent_runs: Vec<RunSummary>,
    next: Next,
    agents: Vec<crate::agents::AgentStatus>,
    /// memkit's folder at the old default, not moved yet.
    legacy_memory_root: Option<String>,
    /// Session files that could not be read whole.
    file_problems: Vec<crate::catalog::FileProblem>,
    /// The last run's spending and the month's.
    cost: crate::store::ledger::CostSummary,
    /// OpenAI batches not collected yet.
    batches_in_flight: Vec<crate::store::batches::BatchRow>,
}

/// Prints the status.
pub fn run(ctx: &Ctx) -> Result<i32> {
    let store = ctx.store()?;
    let cfg = &ctx.cfg;
    let now = now_secs();
    let windows = Windows::from_config(cfg, now);
    let mut catalog: BTreeMap<String, ToolCounts> = BTreeMap::new();
    let mut next = Next::default();
    threads::each_facts(store.conn(), |_, tool, facts| {
        if !catalog.contains_key(tool) {
            catalog.insert(tool.to_string(), ToolCounts::default());
        }
        let c = catalog.get_mut(tool).expect("inserted above");
        c.sessions += 1;
        match check(facts, cfg, windows, false, false) {
            Ok(()) => {
                c.eligible += 1;
                next.eligible_now += 1;
            }
            Err(r) => {
                if let Ineligible::TooRecent { eligible_at } = r {
                    next.waiting_for_idle += 1;
                    next.next_idle_window_ends = Some(
                        next.next_idle_window_ends
                            .map_or(eligible_at, |t| t.min(eligible_at)),
                    );
                }
                *c.ineligible.entry(r.code()).or_default() += 1;
            }
        }
    })?;
    for job in unfinished_stage1_jobs(store.conn())? {
        match job.status.as_str() {
            "running" if job.lease_until.is_some_and(|l| l > now) => next.stage1_running += 1,
            "error" if job.retry_remaining <= 0 => next.stage1_retries_exhausted += 1,
            "error" => {
                next.stage1_in_backoff += 1;
                if let Some(r) = job.retry_at {
                    next.next_retry_at = Some(next.next_retry_at.map_or(r, |t| t.min(r)));
                }
            }
            _ => {}
        }
        if job.status == "error" {
            next.failures.push(job);
        }
    }
    let status = Status {
        config_file: cfg.config_file.as_ref().map(|p| p.display().to_string()),
        codex_home: cfg.codex_home.display().to_string(),
        claude_home: cfg.claude_home.display().to_string(),
        memkit_home: cfg.memkit_home.display().to_string(),
        memory_root: cfg.memory_root.display().to_string(),
        database: store.path().display().to_string(),
        schema_version: store.schema_version()?,
        schema_version_supported: SCHEMA_VERSION,
        catalog,
        memories: stage1::output_stats(store.conn())?,
        last_cite_import: usage::last_import(store.conn())?,
        next_prune: stage1::prune_candidates(
            store.conn(),
            cfg.max_unused.as_secs() as i64,
            crate::stages::prune::DEFAULT_LIMIT,
            now,
        )?
        .len(),
        consolidation: phase2_job(store.conn())?,
        baseline: crate::memory::git::describe_head(&cfg.memory_root)
            .map(|(commit, message)| Baseline { commit, message }),
        recent_runs: group_runs(runs::recent(store.conn(), RECENT_RUNS * 8)?),
        next,
        agents: crate::agents::statuses(cfg, Some(&store)),
        file_problems: crate::catalog::file_problems(&store)?,
        cost: crate::store::ledger::summary(store.conn(), None, &cfg.costs.currency, now)?,
        batches_in_flight: crate::store::batches::open(store.conn())?,
        legacy_memory_root: match crate::memory::relocate::inspect_legacy_folder(cfg) {
            crate::memory::relocate::LegacyFolder::Memkit(p) => Some(p.display().to_string()),
            _ => None,
        },
    };
    if ctx.json {
        ui::json_line(&status);
    } else {
        print_human(&status, now);
    }
    Ok(0)
}

/// Groups stage rows by run id, newest run first, at most [`RECENT_RUNS`].
fn group_runs(rows: Vec<RunRecord>) -> Vec<RunSummary> {
    let mut out: Vec<RunSummary> = Vec::new();
    for r in rows {
        let summary = match out.iter_mut().find(|s| s.run_id == r.run_id) {
            Some(s) => s,
            None => {
                if out.len() == RECENT_RUNS {
                    continue;
                }
                out.push(RunSummary {
                    run_id: r.run_id.clone(),
                    started_at: r.started_at,
                    duration_secs: Some(0),
                    stages: Vec::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        summary.started_at = summary.started_at.min(r.started_at);
        summary.duration_secs = match (summary.duration_secs, r.finished_at) {
            (Some(d), Some(f)) => Some(d.max(f - summary.started_at)),
            _ => None,
        };
        // A stage still "running" whose process is gone was killed (a
        // process on another host sharing the database is not judged).
        let gone = match (&r.worker, r.pid) {
            (Some(worker), _) => crate::util::process::worker_is_dead(worker),
            (None, Some(pid)) => !crate::util::process::pid_alive(pid as u32),
            (None, None) => false,
        };
        let outcome = if r.outcome == "running" && gone {
            "interrupted".to_string()
        } else {
            r.outcome
        };
        summary.stages.insert(
            0,
            StageSummary {
                stage: r.stage,
                outcome,
                counts: r.counts,
                tokens_in: r.tokens_in,
                tokens_out: r.tokens_out,
                error: r.error,
            },
        );
    }
    out
}

fn print_human(s: &Status, now: i64) {
    crate::outln!(
        "config       {}",
        s.config_file.as_deref().unwrap_or("(none: defaults)")
    );
    crate::outln!("codex_home   {}", s.codex_home);
    crate::outln!("claude_home  {}", s.claude_home);
    crate::outln!("memkit_home  {}", s.memkit_home);
    crate::outln!("memory_root  {}", s.memory_root);
    if let Some(old) = &s.legacy_memory_root {
        crate::outln!(
            "             memkit's older folder is still at {old}: the next `memkit run` moves it here \
             while this one is empty (`memkit doctor` says more)"
        );
    }
    crate::outln!("database     {} (schema {})", s.database, s.schema_version);
    if s.catalog.is_empty() {
        crate::outln!("catalog      empty (run `memkit scan`)");
    }
    for (tool, c) in &s.catalog {
        let reasons: Vec<String> = c
            .ineligible
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        crate::outln!(
            "catalog      {tool}: {} sessions, {} eligible{}",
            c.sessions,
            c.eligible,
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        );
    }
    print_file_problems(&s.file_problems);
    let m = &s.memories;
    crate::outln!(
        "memories     {} stored, {} in the last consolidation, {} ever cited, {} never cited{}",
        m.total,
        m.selected,
        m.cited,
        m.never_cited,
        m.oldest_unused
            .map(|t| format!("; oldest unused since {}", crate::util::time::date(t)))
            .unwrap_or_default()
    );
    crate::outln!(
        "usage        last cite-import {}; the next prune removes {}",
        s.last_cite_import
            .map(rfc3339)
            .unwrap_or_else(|| "never".into()),
        s.next_prune
    );
    print_consolidation(s.consolidation.as_ref(), s.baseline.as_ref(), now);
    print_agents(&s.agents, now);
    print_runs(&s.recent_runs);
    for b in &s.batches_in_flight {
        crate::outln!(
            "batch        {} · {} sessions · submitted {} · {}",
            b.remote_id.as_deref().unwrap_or(&b.id),
            b.sessions,
            b.submitted_at
                .map(rfc3339)
                .unwrap_or_else(|| "not yet".into()),
            b.remote_status.as_deref().unwrap_or(&b.state)
        );
    }
    crate::outln!(
        "{}",
        super::spend::cost_line(&s.cost, "last run").replacen("cost: ", "cost         ", 1)
    );
    print_next(&s.next, s.consolidation.as_ref(), now);
}

fn print_consolidation(job: Option<&Phase2Job>, baseline: Option<&Baseline>, now: i64) {
    let at = |t: Option<i64>| t.map(rfc3339).unwrap_or_else(|| "-".into());
    match job {
        None => crate::outln!("consolidate  never run"),
        Some(j) => {
            let state = match j.status.as_str() {
                "running" if j.lease_until.is_some_and(|l| l > now) => format!(
                    "running ({}, lease until {})",
                    j.worker_id.as_deref().unwrap_or("?"),
                    at(j.lease_until)
                ),
                "running" => "stale lease (expired; the next run takes over)".to_string(),
                "done" => format!("done at {}", at(j.finished_at)),
                "error" if j.retry_remaining <= 0 => {
                    "failed; retries exhausted (run `memkit consolidate --force` after fixing the cause)".to_string()
                }
                "error" => format!(
                    "failed at {}; retry after {} ({} retries left)",
                    at(j.finished_at),
                    j.retry_at
                        .map(|r| when(r, now))
                        .unwrap_or_default(),
                    j.retry_remaining
                ),
                "pending" => "pending: new memories wait for the next consolidation".to_string(),
                other => other.to_string(),
            };
            crate::outln!("consolidate  {state}");
            if let Some(e) = &j.last_error {
                crate::outln!("  last error {}", crate::util::text::one_line(e, 200));
            }
        }
    }
    if let Some(b) = baseline {
        crate::outln!("baseline     {} {}", b.commit, b.message);
    }
}

/// How many session files are shown in full.
const SHOWN_PROBLEMS: usize = 5;

/// Session files that could not be read whole.
fn print_file_problems(problems: &[crate::catalog::FileProblem]) {
    if problems.is_empty() {
        return;
    }
    crate::outln!(
        "files        {} session files could not be read whole (skipped; extraction goes on without them):",
        problems.len()
    );
    for p in problems.iter().take(SHOWN_PROBLEMS) {
        crate::outln!("               {}", p.message);
    }
    if problems.len() > SHOWN_PROBLEMS {
        crate::outln!(
            "               … and {} more (`memkit doctor` lists them all)",
            problems.len() - SHOWN_PROBLEMS
        );
    }
}

/// Which agents get the memory, and how it fits each.
fn print_agents(agents: &[crate::agents::AgentStatus], now: i64) {
    for a in agents {
        let state = match (&a.error, a.installed) {
            (Some(e), _) => format!("cannot read {}: {e}", a.file),
            (None, false) => format!("not installed (`memkit install {}`)", a.agent.name()),
            (None, true) => {
                let refreshed = match (a.agent, a.refreshed_at) {
                    (crate::agents::Agent::Claude, _) => {
                        "reads the summary at every session start".to_string()
                    }
                    (_, Some(t)) => {
                        format!("refreshed {} ({} ago)", rfc3339(t), human_duration(now - t))
                    }
                    (_, None) => "never refreshed".to_string(),
                };
                let fit = a.fit.as_ref().map(|f| f.describe()).unwrap_or_default();
                format!("installed in {}; {refreshed}; {fit}", a.file)
            }
        };
        crate::outln!("agent        {}: {state}", a.agent.name());
        if let Some(f) = a.fit.as_ref().filter(|f| f.left_out > 0) {
            crate::outln!(
                "             {} {} of the summary are left out of what {} reads{}",
                f.left_out,
                f.unit,
                a.agent.name(),
                if a.agent == crate::agents::Agent::Claude {
                    " (`memkit install claude` adds hook entries)"
                } else {
                    " (make room in the file, or shorten the summary)"
                }
            );
        }
    }
}

fn print_runs(runs: &[RunSummary]) {
    if runs.is_empty() {
        crate::outln!("runs         none yet");
        return;
    }
    crate::outln!("runs         (newest first)");
    for r in runs {
        let stages: Vec<String> = r
            .stages
            .iter()
            .map(|s| {
                let tokens = if s.tokens_in + s.tokens_out > 0 {
                    format!(" {}/{} tok", s.tokens_in, s.tokens_out)
                } else {
                    String::new()
                };
                format!("{} {}{}{}", s.stage, s.outcome, count_hint(s), tokens)
            })
            .collect();
        crate::outln!(
            "  {} {:>6}  {}",
            rfc3339(r.started_at),
            r.duration_secs
                .map(human_duration)
                .unwrap_or_else(|| "?".into()),
            stages.join(", ")
        );
        for s in r.stages.iter().filter(|s| s.error.is_some()) {
            crate::outln!(
                "      {} error: {}",
                s.stage,
                crate::util::text::one_line(s.error.as_deref().unwrap_or(""), 160)
            );
        }
    }
}

/// The most telling count of a stage, in brackets.
fn count_hint(s: &StageSummary) -> String {
    let c = match &s.counts {
        Some(c) => c,
        None => return String::new(),
    };
    let get = |k: &str| c.get(k).and_then(serde_json::Value::as_i64).unwrap_or(0);
    let hint = match s.stage.as_str() {
        "extract" => format!(
            "{} ok, {} failed",
            get("succeeded") + get("no_output"),
            get("failed")
        ),
        "consolidate" => c
            .get("outcome")
            .and_then(|o| o.as_str())
            .unwrap_or("")
            .to_string(),
        "sync" => format!("{} selected", get("selected")),
        "prune" => format!("{} pruned", get("pruned")),
        "cite-import" => format!("{} bumped", get("outputs_bumped")),
        "diff" => format!("{} changes", get("changes")),
        _ => String::new(),
    };
    if hint.is_empty() {
        hint
    } else {
        format!(" ({hint})")
    }
}

fn print_next(n: &Next, job: Option<&Phase2Job>, now: i64) {
    crate::outln!(
        "next         {} sessions are eligible for the next extraction",
        n.eligible_now
    );
    if n.waiting_for_idle > 0 {
        crate::outln!(
            "             {} sessions wait for their idle window; the first is eligible at {}",
            n.waiting_for_idle,
            n.next_idle_window_ends
                .map(|t| when(t, now))
                .unwrap_or_default()
        );
    }
    if n.stage1_in_backoff > 0 {
        crate::outln!(
            "             {} failed extractions retry from {}",
            n.stage1_in_backoff,
            n.next_retry_at.map(rfc3339).unwrap_or_default()
        );
    }
    if n.stage1_retries_exhausted > 0 {
        crate::outln!(
            "             {} extractions failed 3 times and wait for their session to change (or `memkit extract --force --thread ID`)",
            n.stage1_retries_exhausted
        );
    }
    for f in n.failures.iter().take(5) {
        crate::outln!(
            "             {}: {}",
            f.thread_id,
            crate::util::text::one_line(f.last_error.as_deref().unwrap_or(""), 140)
        );
    }
    if n.stage1_running > 0 {
        crate::outln!(
            "             {} extractions are running now",
            n.stage1_running
        );
    }
    if let Some(j) = job
        && j.status == "pending"
    {
        crate::outln!("             the next run consolidates the new memories");
    }
}
