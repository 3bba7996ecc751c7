//! Phase 1, `memkit extract`: select eligible sessions, claim each with a lease,
//! prepare its input, call the backend on a rayon pool of at most eight
//! threads, and store the stage-1 output — exactly once per session version,
//! even with several memkit processes at work.

use super::spend::Budget;
mod batch;
mod enqueue;
mod finish;

pub use enqueue::LIMIT_REASON as BATCH_TOKEN_LIMIT;

pub use batch::BatchReport;

use crate::backends::{self, ExtractRequest, Extractor};
use crate::catalog::eligibility::{Ineligible, Windows, check};
use crate::catalog::read_ahead::{InputPlan, ReadAhead};
use crate::catalog::{index_file, scan_reading_ahead};
use crate::config::{Config, ExtractBackendKind, Price, Tokens};
use crate::error::{Error, Result};
use crate::modelinput::{Limits, PreparedInput, SessionRef, prepare};
use crate::sources::{Tool, detect_tool};
use crate::store::Store;
use crate::store::jobs::{self, Claim, ClaimOptions};
use crate::store::threads::{self, ThreadRow};
use crate::templates;
use crate::util::text::estimate_tokens;
use crate::util::time::{now_secs, rfc3339};
use finish::{Answerer, Claimed, finalise};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Most parallel extraction jobs, whatever is configured.
pub const MAX_JOBS: usize = 8;

/// Estimated output tokens of one stage-1 answer, for budgets.
const ESTIMATED_OUTPUT_TOKENS: usize = 1_500;

/// What to extract and how.
#[derive(Debug, Clone, Default)]
pub struct ExtractOptions {
    /// Age window override (`--since`), any duration.
    pub since: Option<Duration>,
    /// Idle window override (`--idle`).
    pub idle: Option<Duration>,
    /// At most this many claims this run.
    pub limit: Option<usize>,
    /// Parallel jobs (clamped to 1..=8); `None`: the configured `extract_jobs`.
    pub jobs: Option<usize>,
    /// Only sessions of this agent.
    pub tool: Option<Tool>,
    /// Extract exactly this session now (id or unique prefix).
    pub thread: Option<String>,
    /// Extract exactly this session file now.
    pub file: Option<PathBuf>,
    /// Re-extract even when up to date.
    pub force: bool,
    /// List what would be extracted; no claim, no model call.
    pub dry_run: bool,
    /// Backend override (`--backend`).
    pub backend: Option<ExtractBackendKind>,
    /// Stop claiming when the next session would push the run's model tokens past this.
    pub max_tokens: Option<u64>,
    /// Show a progress bar (when stderr is a terminal).
    pub progress: bool,
    /// With `openai-batch`: poll until every batch is done and collected.
    pub wait: bool,
    /// The catalog was brought up to date moments ago (by the same run):
    /// no second scan.
    pub scanned: bool,
    /// The inputs that scan prepared while it read changed files (taken
    /// instead of reading those files again).
    pub read_ahead: ReadAhead,
}

/// What happened to one session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionOutcome {
    /// Thread id.
    pub thread_id: String,
    /// Which agent wrote it.
    pub tool: &'static str,
    /// `succeeded`, `no_output`, `failed`, `skipped`, `would_extract` or `deferred`.
    pub outcome: &'static str,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Estimated input tokens of the prompt.
    pub estimated_tokens: usize,
    /// Tokens used (input, output).
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
    /// The session file.
    pub rollout_path: String,
}

/// What an extraction run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExtractReport {
    /// Backend used.
    pub backend: String,
    /// Model used.
    pub model: String,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Sessions selected for this run.
    pub candidates: usize,
    /// Sessions claimed.
    pub claimed: usize,
    /// Sessions whose input came from the scan's read of their changed
    /// file (read once for the catalog and the extraction).
    pub read_once: usize,
    /// Claims that stored an output.
    pub succeeded: usize,
    /// Claims that found nothing durable.
    pub no_output: usize,
    /// Claims that failed (retry scheduled).
    pub failed: usize,
    /// Sessions not extracted, by reason: up_to_date, running_elsewhere, in_backoff, retries_exhausted.
    pub skipped: BTreeMap<String, usize>,
    /// Sessions not yet eligible, by reason (too_recent, too_old, …).
    pub not_eligible: BTreeMap<String, usize>,
    /// Sessions left for the next run because of the token budget.
    pub deferred: usize,
    /// Model input tokens.
    pub tokens_in: u64,
    /// Model output tokens.
    pub tokens_out: u64,
    /// What happened to the OpenAI batches (`openai-batch` backend).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<batch::BatchReport>,
    /// Batches that could not be submitted, polled or read this run (they
    /// are tried again by the next one).
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_errors: usize,
    /// Per-session outcomes.
    #[serde(skip)]
    pub sessions: Vec<SessionOutcome>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl crate::stages::StageOutcome for ExtractReport {
    fn outcome(&self) -> &'static str {
        match (
            self.failed + self.batch_errors,
            self.succeeded + self.no_output,
        ) {
            (0, _) => "ok",
            (_, 0) => "failed",
            _ => "partial",
        }
    }

    fn counts(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    fn tokens(&self) -> (u64, u64) {
        (self.tokens_in, self.tokens_out)
    }
}

/// Builds the configured (or overridden) extraction backend.
pub fn build_backend(cfg: &Config, kind: Option<ExtractBackendKind>) -> Result<Box<dyn Extractor>> {
    let kind = kind.unwrap_or(cfg.extract.backend);
    if kind == ExtractBackendKind::Heuristic {
        return Ok(Box::new(backends::heuristic::HeuristicExtractor));
    }
    let e = &cfg.extract;
    let transport = backends::transport::build(&backends::transport::TransportSettings {
        kind,
        model: e.model.clone(),
        base_url: e.base_url.clone(),
        api_key_env: e.api_key_env.clone(),
        command: e.command.clone(),
        timeout: e.timeout,
        max_retries: e.max_retries,
        default_openai_model: "gpt-5.4-mini",
    })?;
    Ok(Box::new(backends::model_extract::ModelExtractor::new(
        transport,
    )))
}

/// Everything a worker needs, shared across the pool.
struct Shared<'a> {
    cfg: &'a Config,
    backend: &'a dyn Extractor,
    answerer: Answerer<'a>,
    system: String,
    input_template: String,
    db_path: PathBuf,
    worker_id: String,
    force: bool,
    dry_run: bool,
    /// The run's budget (shared with the batch backend's submission).
    budget: &'a Budget,
    /// The price of the backend's model (`None`: unknown).
    price: Option<Price>,
    /// Inputs the run's scan prepared.
    read_ahead: &'a ReadAhead,
}

/// Runs phase 1.
pub fn run(cfg: &Config, store: &mut Store, opts: &ExtractOptions) -> Result<ExtractReport> {
    let now = now_secs();
    let kind = opts.backend.unwrap_or(cfg.extract.backend);
    let backend = build_backend(cfg, Some(kind))?;
    let mut report = ExtractReport {
        backend: kind.name().to_string(),
        model: backend.model(),
        dry_run: opts.dry_run,
        ..Default::default()
    };
    if kind == ExtractBackendKind::OpenaiBatch && !opts.dry_run {
        batch::run(cfg, store, opts, backend.as_ref(), &mut report)?;
    } else {
        let candidates = candidates(cfg, store, opts, now, &mut report)?;
        let budget = Budget::new(opts.max_tokens, cfg.costs.max_cost_per_run);
        extract_now(
            cfg,
            store,
            opts,
            backend.as_ref(),
            &candidates,
            &budget,
            &mut report,
        )?;
    }
    report.read_once = opts.read_ahead.taken();
    Ok(report)
}

/// The sessions to extract now, newest first: the eligible ones (counted
/// in `report.candidates`) without those an open batch holds.
fn candidates(
    cfg: &Config,
    store: &mut Store,
    opts: &ExtractOptions,
    now: i64,
    report: &mut ExtractReport,
) -> Result<Vec<ThreadRow>> {
    let picked = select(cfg, store, opts, now, report)?;
    report.candidates = picked.len();
    without_batched(store, picked, report)
}

/// `candidates` without the sessions an OpenAI batch still holds (counted
/// as skipped `in_batch`): whatever the backend, and even once their claims'
/// lease ran out, they wait for the batch to be collected.
fn without_batched(
    store: &Store,
    candidates: Vec<ThreadRow>,
    report: &mut ExtractReport,
) -> Result<Vec<ThreadRow>> {
    let held = crate::store::batches::held_sessions(store.conn())?;
    if held.is_empty() {
        return Ok(candidates);
    }
    let (waiting, free): (Vec<ThreadRow>, Vec<ThreadRow>) = candidates
        .into_iter()
        .partition(|row| held.contains(&row.id));
    for row in &waiting {
        report.tally(outcome(row, "skipped", Some("in_batch".into()), 0));
    }
    Ok(free)
}

/// The price of `model`, required when `[limits] max_cost_per_run` is set.
fn price_for_budget(cfg: &Config, model: &str) -> Result<Option<Price>> {
    let price = cfg.costs.price(model).copied();
    if price.is_none()
        && let Some(max) = cfg.costs.max_cost_per_run
    {
        return Err(Error::usage(format!(
            "limits.max_cost_per_run = {max} needs the price of {model}: add [prices.\"{model}\"] \
             (input, cached_input, output per million tokens) to the config"
        )));
    }
    Ok(price)
}

/// Extracts `candidates` now with `backend`, on a pool of at most
/// [`MAX_JOBS`] threads, within `budget`, and adds what happened to `report`.
fn extract_now(
    cfg: &Config,
    store: &mut Store,
    opts: &ExtractOptions,
    backend: &dyn Extractor,
    candidates: &[ThreadRow],
    budget: &Budget,
    report: &mut ExtractReport,
) -> Result<()> {
    if candidates.is_empty() {
        return Ok(());
    }
    let shared = Shared {
        cfg,
        backend,
        answerer: Answerer {
            cfg,
            backend: backend.name(),
            model: backend.model(),
            batch: false,
        },
        system: templates::load(cfg, "stage_one_system.md")?,
        input_template: templates::load(cfg, "stage_one_input.md")?,
        db_path: store.path().to_path_buf(),
        worker_id: crate::util::process::worker_id(),
        force: opts.force,
        dry_run: opts.dry_run,
        budget,
        price: price_for_budget(cfg, &backend.model())?,
        read_ahead: &opts.read_ahead,
    };
    let jobs = opts.jobs.unwrap_or(cfg.extract_jobs).clamp(1, MAX_JOBS);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("memkit-extract-{i}"))
        .build()
        .map_err(|e| Error::failed(format!("cannot start the extraction pool: {e}")))?;
    let bar = progress_bar(candidates.len() as u64, opts.progress);
    let outcomes: Vec<SessionOutcome> = pool.install(|| {
        candidates
            .par_iter()
            .map_init(
                || Store::open(&shared.db_path),
                |store, row| {
                    let outcome = match store {
                        Ok(store) => process(&shared, store, row),
                        Err(e) => failed_outcome(row, 0, format!("cannot open the database: {e}")),
                    };
                    if outcome.outcome == "failed" {
                        let reason = outcome.reason.clone().unwrap_or_default();
                        bar.suspend(|| crate::ui::warn(format!("{}: {reason}", row.id)));
                    }
                    bar.inc(1);
                    outcome
                },
            )
            .collect()
    });
    bar.finish_and_clear();
    for o in outcomes {
        report.tally(o);
    }
    Ok(())
}

impl ExtractReport {
    /// Counts one session's outcome.
    fn tally(&mut self, o: SessionOutcome) {
        self.tokens_in += o.tokens_in;
        self.tokens_out += o.tokens_out;
        match o.outcome {
            "succeeded" => self.succeeded += 1,
            "no_output" => self.no_output += 1,
            "failed" => self.failed += 1,
            "deferred" => self.deferred += 1,
            "skipped" => {
                *self
                    .skipped
                    .entry(o.reason.clone().unwrap_or_default())
                    .or_default() += 1
            }
            _ => {}
        }
        self.claimed = self.succeeded + self.no_output + self.failed;
        self.sessions.push(o);
    }
}

fn progress_bar(len: u64, enabled: bool) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("extract {bar:30} {pos}/{len} sessions, {elapsed}")
    {
        bar.set_style(style);
    }
    bar
}

/// Picks the sessions to extract, newest first.
fn select(
    cfg: &Config,
    store: &mut Store,
    opts: &ExtractOptions,
    now: i64,
    report: &mut ExtractReport,
) -> Result<Vec<ThreadRow>> {
    let mut windows = Windows::from_config(cfg, now);
    if let Some(since) = opts.since {
        windows.max_age_secs = Some(since.as_secs().min(i64::MAX as u64) as i64);
    }
    if let Some(idle) = opts.idle {
        windows.idle_secs = idle.as_secs() as i64;
    }
    if !opts.scanned {
        // A changed file this selection may pick is read once, for the
        // catalog and its input (not for one named session).
        let named = opts.thread.is_some() || opts.file.is_some();
        let plan = InputPlan::new(cfg, windows);
        let ahead = (!named).then_some((&plan, &opts.read_ahead));
        for w in scan_reading_ahead(cfg, store, ahead)?.warnings {
            crate::ui::warn(w);
        }
    }
    if let Some(row) = explicit_session(store, opts)? {
        let verdict = check(
            (&row).into(),
            cfg,
            Windows::from_config(cfg, now),
            true,
            opts.force,
        );
        return match verdict {
            Ok(()) => Ok(vec![row]),
            Err(Ineligible::UpToDate) => {
                *report.skipped.entry("up_to_date".into()).or_default() += 1;
                Ok(vec![])
            }
            Err(other) => Err(Error::usage(format!(
                "{} cannot be extracted: {}",
                row.id,
                other.describe(now)
            ))),
        };
    }
    // Judged in place, newest first once picked: a night with nothing to do
    // copies no session's row.
    let mut picked: Vec<(i64, String)> = Vec::new();
    threads::each_facts(store.conn(), |id, tool, facts| {
        if opts.tool.is_some_and(|t| t.name() != tool) {
            return;
        }
        match check(facts, cfg, windows, false, opts.force) {
            Ok(()) => picked.push((facts.updated_at, id.to_string())),
            Err(Ineligible::UpToDate) => {
                *report.skipped.entry("up_to_date".into()).or_default() += 1
            }
            Err(other) => *report.not_eligible.entry(other.code().into()).or_default() += 1,
        }
    })?;
    picked.sort_unstable_by(|a, b| b.cmp(a));
    picked.truncate(opts.limit.unwrap_or(usize::MAX));
    let mut rows = Vec::with_capacity(picked.len());
    for (_, id) in picked {
        rows.extend(threads::get(store.conn(), &id)?);
    }
    Ok(rows)
}

/// The session named by `--thread` or `--file`, indexed if needed.
fn explicit_session(store: &mut Store, opts: &ExtractOptions) -> Result<Option<ThreadRow>> {
    if let Some(id) = &opts.thread {
        let row = threads::find_by_id_or_prefix(store.conn(), id)?.require(id, || {
            format!("no session {id} in the catalog (see `memkit sessions`)")
        })?;
        return Ok(Some(row));
    }
    let Some(file) = &opts.file else {
        return Ok(None);
    };
    let path = std::fs::canonicalize(file)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    if let Some(row) = threads::find_by_file(store.conn(), file)? {
        return Ok(Some(row));
    }
    let tool = detect_tool(&path).ok_or_else(|| {
        Error::usage(format!(
            "{}: not a Codex rollout or Claude Code transcript",
            file.display()
        ))
    })?;
    Ok(Some(index_file(store, &path, tool)?))
}

fn outcome(
    row: &ThreadRow,
    outcome: &'static str,
    reason: Option<String>,
    estimated: usize,
) -> SessionOutcome {
    SessionOutcome {
        thread_id: row.id.clone(),
        tool: Tool::parse(&row.tool).map_or("unknown", Tool::name),
        outcome,
        reason,
        estimated_tokens: estimated,
        tokens_in: 0,
        tokens_out: 0,
        rollout_path: row.rollout_path.clone(),
    }
}

fn failed_outcome(row: &ThreadRow, estimated: usize, reason: String) -> SessionOutcome {
    outcome(row, "failed", Some(reason), estimated)
}

/// Renders the user message of a session.
pub fn render_input(template: &str, input: &PreparedInput) -> String {
    let s = &input.session;
    templates::render(
        template,
        &[
            ("thread_id", &s.thread_id),
            ("tool", s.tool.name()),
            ("rollout_path", &s.rollout_path.display().to_string()),
            ("cwd", s.cwd.as_deref().unwrap_or("unknown")),
            ("git_branch", s.git_branch.as_deref().unwrap_or("unknown")),
            ("updated_at", &rfc3339(s.updated_at)),
            ("transcript", &input.transcript),
        ],
    )
}

/// Extracts one session: prepare, budget, claim, call, finalise.
/// A session's prompt, ready to send.
struct Prompt {
    /// The prepared session.
    input: PreparedInput,
    /// The user message.
    user: String,
    /// Bytes of the system prompt and the user message.
    prompt_bytes: usize,
    /// Their estimated tokens.
    estimated: usize,
    /// For a Codex session, the bytes Codex's own pipeline would have sent.
    codex_bytes: Option<u64>,
}

impl Prompt {
    /// What the call is expected to use, for the run's budget.
    fn expected(&self) -> Tokens {
        Tokens {
            input: self.estimated as u64,
            cached_input: 0,
            output: ESTIMATED_OUTPUT_TOKENS as u64,
        }
    }
}

/// Prepares `row`'s prompt, or says why the session is skipped (the reason
/// recorded): a file that broke after the scan read it is a problem of that
/// file, which the next scan records; it never fails the run.
fn prompt_for(
    cfg: &Config,
    system: &str,
    input_template: &str,
    row: &ThreadRow,
    read_ahead: &ReadAhead,
) -> std::result::Result<Prompt, String> {
    let input = match read_ahead.take(row) {
        Some(input) => input,
        None => prepare(
            SessionRef::from(row),
            cfg.extract_input_tokens,
            Limits::default(),
        )
        .map_err(|e| format!("unreadable: {e}"))?,
    };
    let user = render_input(input_template, &input);
    let prompt_bytes = system.len() + user.len();
    let codex_bytes = (row.tool == Tool::Codex.name()).then_some(input.stats.codex_input_bytes);
    Ok(Prompt {
        input,
        user,
        prompt_bytes,
        estimated: estimate_tokens(prompt_bytes),
        codex_bytes,
    })
}

fn process(shared: &Shared<'_>, store: &mut Store, row: &ThreadRow) -> SessionOutcome {
    let prompt = match prompt_for(
        shared.cfg,
        &shared.system,
        &shared.input_template,
        row,
        shared.read_ahead,
    ) {
        Ok(prompt) => prompt,
        Err(reason) => return outcome(row, "skipped", Some(reason), 0),
    };
    let estimated = prompt.estimated;
    if shared.dry_run {
        return outcome(row, "would_extract", None, estimated);
    }
    let expected = prompt.expected();
    let reservation = match shared
        .budget
        .reserve(expected.input + expected.output, shared.cost(expected))
    {
        Ok(r) => r,
        Err(over) => return outcome(row, "deferred", Some(over.reason().into()), estimated),
    };
    let release = |used: Tokens| {
        shared
            .budget
            .settle(reservation, used.input + used.output, shared.cost(used))
    };
    let now = now_secs();
    let opts = ClaimOptions {
        force: shared.force,
        ..Default::default()
    };
    let token = match jobs::try_claim_stage1(
        store.conn_mut(),
        &row.id,
        &shared.worker_id,
        row.updated_at,
        opts,
        now,
    ) {
        Ok(Claim::Claimed { token }) => token,
        Ok(skip) => {
            release(Tokens::default());
            return outcome(row, "skipped", Some(skip.skip_reason().into()), estimated);
        }
        Err(e) => {
            release(Tokens::default());
            return failed_outcome(row, estimated, format!("claim: {e}"));
        }
    };
    crate::util::crashpoint::here("extract:claimed");
    let result = shared.backend.extract(&ExtractRequest {
        system: &shared.system,
        user: &prompt.user,
        input: &prompt.input,
    });
    finalise(
        &shared.answerer,
        store,
        row,
        &Claimed {
            token: &token,
            estimated,
            codex_bytes: prompt.codex_bytes,
        },
        result,
        &release,
    )
}

impl Shared<'_> {
    /// What `t` costs on the backend's model (0 when its price is unknown).
    fn cost(&self, t: Tokens) -> f64 {
        self.price.map_or(0.0, |p| p.cost(t, false))
    }
}
