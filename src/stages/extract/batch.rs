//! The `openai-batch` backend: extraction through OpenAI's Batch API, at
//! half the price, with results within its 24-hour window.
//!
//! A run first finishes what earlier runs left: it polls every open batch
//! and, for each one OpenAI is done with, stores the outputs through the
//! same validation, redaction and token-guarded finalisation as a
//! synchronous call ([`finalise`]), gives failed requests a retry, and gives
//! sessions back whose requests never ran (an expired or cancelled batch).
//! Then it claims the eligible sessions under a lease that outlasts the
//! window (so a synchronous run never extracts them twice), prepares each
//! request exactly as the `openai` backend would, and submits them as one
//! batch. A session on its last retry after failing in batches goes to
//! `[extract] batch_fallback` instead, when one is configured.
//!
//! Every step is recorded before the next starts (see
//! [`crate::store::batches`]), so a crash between upload and recording is
//! finished by the next run: the uploaded file is found by its name and the
//! created batch by its metadata, and nothing is submitted twice.

use super::enqueue;
use super::finish::{Answerer, Claimed, finalise};
use super::{
    ExtractOptions, ExtractReport, SessionOutcome, build_backend, extract_now, outcome,
    price_for_budget, prompt_for,
};
use crate::backends::Extractor;
use crate::backends::batch::{self, BatchClient, RemoteBatch, parse_result, request_line};
use crate::backends::model_extract::{stage_one_result, stage_one_schema};
use crate::backends::transport::StructuredRequest;
use crate::backends::transport::openai::{read_response, request_body};
use crate::catalog::read_ahead::ReadAhead;
use crate::config::{Config, ExtractBackendKind};
use crate::error::{Error, Result};
use crate::stages::spend::Budget;
use crate::store::Store;
use crate::store::batches::{self, BatchItem, BatchRow};
use crate::store::jobs::{self, Claim, ClaimOptions};
use crate::store::locks;
use crate::store::threads::{self, ThreadRow};
use crate::templates;
use crate::util::text::estimate_tokens;
use crate::util::time::now_secs;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Lease of a session claimed for a batch: the 24-hour window and an hour
/// (renewed each time the batch is found still in flight).
const BATCH_LEASE_SECS: i64 = 25 * 3600;
/// How long after its window a batch that cannot be read is given up (its
/// sessions given back).
const GIVE_UP_AFTER_SECS: i64 = 2 * 86_400;

/// What happened to one batch in this run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BatchReport {
    /// memkit's id of the batch.
    pub id: String,
    /// OpenAI's id, once created.
    pub remote_id: Option<String>,
    /// Sessions in it.
    pub sessions: usize,
    /// `submitted`, `in_flight`, `collected`, `released` or `error`.
    pub event: &'static str,
    /// Its status at OpenAI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Outputs stored from it.
    pub stored: usize,
    /// Sessions it found nothing durable in.
    pub no_output: usize,
    /// Requests that failed (retried later).
    pub failed: usize,
    /// Sessions given back without a result (never run).
    pub released: usize,
    /// What went wrong, for `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Runs the `openai-batch` backend: collect, then submit.
pub(super) fn run(
    cfg: &Config,
    store: &mut Store,
    opts: &ExtractOptions,
    backend: &dyn Extractor,
    report: &mut ExtractReport,
) -> Result<()> {
    let client = BatchClient::new(&cfg.extract)?;
    let owner = crate::util::process::worker_id();
    if let Err(holder) = locks::try_acquire(
        store.conn_mut(),
        BATCH_LOCK,
        &owner,
        BATCH_LOCK_SECS,
        now_secs(),
    )? {
        crate::ui::warn(format!(
            "another memkit process ({}) is submitting or collecting OpenAI batches; left to it",
            holder.owner
        ));
        return Ok(());
    }
    let result = submit_and_collect(cfg, store, &client, opts, backend, report, &owner);
    locks::release(store.conn(), BATCH_LOCK, &owner)?;
    result
}

/// The lock that makes one process at a time submit and collect batches
/// (`memkit extract` runs beside `memkit run`).
const BATCH_LOCK: &str = "openai-batch";
/// Its lease, renewed while `--wait` polls.
const BATCH_LOCK_SECS: i64 = 6 * 3600;

/// Collects, submits and (with `--wait`) polls, holding [`BATCH_LOCK`].
fn submit_and_collect(
    cfg: &Config,
    store: &mut Store,
    client: &BatchClient,
    opts: &ExtractOptions,
    backend: &dyn Extractor,
    report: &mut ExtractReport,
    owner: &str,
) -> Result<()> {
    let model = backend.model();
    collect_open(cfg, store, client, report)?;
    let candidates = super::candidates(cfg, store, opts, now_secs(), report)?;
    let (last_try, batched) = split_last_tries(cfg, store, candidates)?;
    // One budget for the run: what the fallback spends, the batch cannot.
    let budget = Budget::new(opts.max_tokens, cfg.costs.max_cost_per_run);
    if let Some(kind) = cfg.extract.batch_fallback.filter(|_| !last_try.is_empty()) {
        let fallback = build_backend(cfg, Some(kind))?;
        extract_now(
            cfg,
            store,
            opts,
            fallback.as_ref(),
            &last_try,
            &budget,
            report,
        )?;
    }
    let how = Submission {
        model: &model,
        budget: &budget,
        force: opts.force,
        read_ahead: &opts.read_ahead,
    };
    submit(cfg, store, client, &how, &batched, report)?;
    if opts.wait {
        // At most two days: a batch OpenAI never finishes is left to the
        // give-up of a later run.
        let until = now_secs() + 2 * 86_400;
        while !batches::open(store.conn())?.is_empty() && now_secs() < until {
            std::thread::sleep(cfg.extract.batch_poll_interval);
            locks::refresh(store.conn(), BATCH_LOCK, owner, BATCH_LOCK_SECS, now_secs())?;
            collect_open(cfg, store, client, report)?;
        }
    }
    Ok(())
}

/// Splits off the sessions whose next try is their last after failing in
/// batches: with a fallback configured they are extracted synchronously
/// (without one, everything is batched).
fn split_last_tries(
    cfg: &Config,
    store: &Store,
    candidates: Vec<ThreadRow>,
) -> Result<(Vec<ThreadRow>, Vec<ThreadRow>)> {
    if cfg.extract.batch_fallback.is_none() {
        return Ok((Vec::new(), candidates));
    }
    let mut stmt = store.conn().prepare_cached(
        "SELECT retry_remaining, COALESCE(last_error, '') FROM jobs
         WHERE kind = ?1 AND job_key = ?2",
    )?;
    let mut last = Vec::new();
    let mut rest = Vec::new();
    for row in candidates {
        let job: Option<(i64, String)> = rusqlite::OptionalExtension::optional(
            stmt.query_row(rusqlite::params![jobs::KIND_STAGE1, row.id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            }),
        )?;
        if job.is_some_and(|(left, err)| left == 1 && err.starts_with(BATCH_ERROR_PREFIX)) {
            last.push(row);
        } else {
            rest.push(row);
        }
    }
    Ok((last, rest))
}

/// How a failure inside a batch starts, so the fallback can tell it apart.
const BATCH_ERROR_PREFIX: &str = "batch ";

/// What a submission goes by: the model, the run's budget, and whether
/// `--force` re-extracts what is up to date.
struct Submission<'a> {
    model: &'a str,
    budget: &'a Budget,
    force: bool,
    read_ahead: &'a ReadAhead,
}

/// Prepares, claims and submits `candidates` (in as many batches as
/// OpenAI's limits need).
fn submit(
    cfg: &Config,
    store: &mut Store,
    client: &BatchClient,
    how: &Submission<'_>,
    candidates: &[ThreadRow],
    report: &mut ExtractReport,
) -> Result<()> {
    let (model, budget) = (how.model, how.budget);
    if candidates.is_empty() {
        return Ok(());
    }
    let system = templates::load(cfg, "stage_one_system.md")?;
    let input_template = templates::load(cfg, "stage_one_input.md")?;
    let schema = stage_one_schema();
    let price = price_for_budget(cfg, model)?;
    let mut room = enqueue::room(cfg, store, model, now_secs())?;
    let mut pending = Pending::new();
    for row in candidates {
        let prompt = match prompt_for(cfg, &system, &input_template, row, how.read_ahead) {
            Ok(prompt) => prompt,
            Err(reason) => {
                report.tally(outcome(row, "skipped", Some(reason), 0));
                continue;
            }
        };
        let estimated = prompt.estimated;
        if room.is_some_and(|left| estimated as u64 > left) {
            report.tally(outcome(
                row,
                "deferred",
                Some(enqueue::LIMIT_REASON.into()),
                estimated,
            ));
            continue;
        }
        let expected = prompt.expected();
        let cost = price.map_or(0.0, |p| p.cost(expected, true));
        let reservation = match budget.reserve(expected.input + expected.output, cost) {
            Ok(r) => r,
            Err(over) => {
                report.tally(outcome(
                    row,
                    "deferred",
                    Some(over.reason().into()),
                    estimated,
                ));
                continue;
            }
        };
        let line = request_line(
            &row.id,
            &request_body(
                model,
                &StructuredRequest {
                    system: &system,
                    user: &prompt.user,
                    schema_name: "stage_one_output",
                    schema: &schema,
                },
            ),
        );
        if pending.is_full_with(line.len()) {
            send(store, client, &mut pending, report)?;
        }
        pending.open(store, model)?;
        let claim = jobs::try_claim_stage1(
            store.conn_mut(),
            &row.id,
            &pending.worker(),
            row.updated_at,
            ClaimOptions {
                lease_secs: BATCH_LEASE_SECS,
                force: how.force,
                ..Default::default()
            },
            now_secs(),
        )?;
        let Claim::Claimed { token } = claim else {
            budget.settle(reservation, 0, 0.0);
            report.tally(outcome(
                row,
                "skipped",
                Some(claim.skip_reason().into()),
                estimated,
            ));
            continue;
        };
        pending.push(
            store,
            BatchItem {
                thread_id: row.id.clone(),
                token,
                source_updated_at: row.updated_at,
                prompt_bytes: prompt.prompt_bytes as i64,
                codex_bytes: prompt.codex_bytes.map(|b| b as i64),
            },
            line,
        )?;
        if let Some(left) = room.as_mut() {
            *left -= estimated as u64;
        }
    }
    send(store, client, &mut pending, report)
}

/// The batch being filled: its id, its claimed sessions and its file.
struct Pending {
    id: String,
    recorded: bool,
    items: Vec<BatchItem>,
    jsonl: Vec<u8>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            id: crate::util::ids::new_uuid_v4(),
            recorded: false,
            items: Vec::new(),
            jsonl: Vec::new(),
        }
    }

    /// The worker id its claims are held by (never taken for a dead
    /// process: the batch outlives the run that submitted it).
    fn worker(&self) -> String {
        format!("batch:{}", self.id)
    }

    fn is_full_with(&self, line: usize) -> bool {
        !self.items.is_empty()
            && (self.items.len() >= batch::MAX_REQUESTS
                || self.jsonl.len() + line + 1 > batch::MAX_FILE_BYTES)
    }

    /// Records the batch (still `preparing`) before its first claim, so a
    /// crash after any claim leaves a batch the next run can undo.
    fn open(&mut self, store: &mut Store, model: &str) -> Result<()> {
        if !self.recorded {
            batches::insert(store.conn(), &self.id, model, now_secs())?;
            self.recorded = true;
        }
        Ok(())
    }

    /// Adds a claimed session, recorded at once.
    fn push(&mut self, store: &mut Store, item: BatchItem, line: String) -> Result<()> {
        batches::add_item(store.conn(), &self.id, &item)?;
        self.items.push(item);
        self.jsonl.extend_from_slice(line.as_bytes());
        self.jsonl.push(b'\n');
        Ok(())
    }
}

/// Uploads and creates the pending batch (recorded with its sessions as
/// they were claimed), then starts a new one. A definite refusal gives the
/// sessions back; an unknown outcome (a timeout, a lost answer) leaves the
/// batch for the next run to find at OpenAI or give back.
fn send(
    store: &mut Store,
    client: &BatchClient,
    pending: &mut Pending,
    report: &mut ExtractReport,
) -> Result<()> {
    let full = std::mem::replace(pending, Pending::new());
    if full.items.is_empty() {
        // Recorded, but nothing was claimed for it.
        if full.recorded {
            batches::delete(store.conn(), &full.id)?;
        }
        return Ok(());
    }
    crate::util::crashpoint::here("batch:recorded");
    let uploaded = client.upload(&full.id, &full.jsonl);
    crate::util::crashpoint::here("batch:uploaded");
    let mut row = batches::get(store.conn(), &full.id)?
        .ok_or_else(|| Error::failed(format!("batch {} vanished from the database", full.id)))?;
    let step = uploaded.and_then(|file_id| {
        batches::set_uploaded(store.conn(), &full.id, &file_id)?;
        row.input_file_id = Some(file_id);
        row.state = "uploaded".into();
        ensure_created(store, client, &row, false)
    });
    let mut r = BatchReport {
        id: full.id.clone(),
        sessions: full.items.len(),
        ..Default::default()
    };
    match step {
        Ok(remote) => {
            r.remote_id = Some(remote.id);
            r.status = Some(remote.status);
            r.event = "submitted";
        }
        Err(e) if batch::is_refusal(&e) => {
            let note = format!("not submitted: {e}");
            r.released = release_all(store, &full.id, &full.items, &note)?;
            batches::finish(store.conn(), &full.id, "released", Some(&note), now_secs())?;
            crate::ui::warn(format!("batch of {} sessions {note}", full.items.len()));
            report.batch_errors += 1;
            r.event = "error";
            r.note = Some(note);
        }
        Err(e) => {
            let note = format!("{e}; the next run finds out whether OpenAI has it");
            crate::ui::warn(format!("batch of {} sessions: {note}", full.items.len()));
            report.batch_errors += 1;
            r.event = "error";
            r.note = Some(note);
        }
    }
    report.batches.push(r);
    Ok(())
}

/// Creates the batch over `row`'s uploaded file unless OpenAI already has
/// it, and records it. `recovering`: an earlier run may have created it and
/// died before recording it, so OpenAI is asked first; a fresh batch is
/// looked for only when creating it fails (its answer may have been lost).
fn ensure_created(
    store: &Store,
    client: &BatchClient,
    row: &BatchRow,
    recovering: bool,
) -> Result<RemoteBatch> {
    let file_id = row
        .input_file_id
        .as_deref()
        .ok_or_else(|| Error::failed(format!("batch {} has no uploaded file", row.id)))?;
    let found = if recovering {
        client.find_batch(&row.id, row.created_at)?
    } else {
        None
    };
    let remote = match found {
        Some(remote) => remote,
        None => match client.create(&row.id, file_id) {
            Ok(remote) => remote,
            Err(e) => client.find_batch(&row.id, row.created_at)?.ok_or(e)?,
        },
    };
    crate::util::crashpoint::here("batch:created");
    batches::set_submitted(
        store.conn(),
        &row.id,
        &remote.id,
        &remote.status,
        remote.expires_at,
        now_secs(),
    )?;
    Ok(remote)
}

/// Gives every session of a batch back without spending a retry.
fn release_all(store: &Store, batch_id: &str, items: &[BatchItem], why: &str) -> Result<usize> {
    let reason = format!("{BATCH_ERROR_PREFIX}{batch_id}: {why}");
    let mut released = 0;
    for item in items {
        if jobs::release_stage1(
            store.conn(),
            &item.thread_id,
            &item.token,
            &reason,
            now_secs(),
        )? {
            released += 1;
        }
    }
    Ok(released)
}

/// Finishes what earlier runs left: recovers batches a crash interrupted,
/// polls the submitted ones and collects those OpenAI is done with. A
/// batch that cannot be reached is a warning and waits for the next run.
fn collect_open(
    cfg: &Config,
    store: &mut Store,
    client: &BatchClient,
    report: &mut ExtractReport,
) -> Result<()> {
    for row in batches::open(store.conn())? {
        let items = batches::items(store.conn(), &row.id)?;
        match advance(cfg, store, client, &row, &items, report) {
            Ok(Some(r)) => report.batches.push(r),
            Ok(None) => {}
            Err(e) if e.kind() == crate::error::ErrorKind::Usage => return Err(e),
            Err(e) if now_secs() > window_end(&row) + GIVE_UP_AFTER_SECS => {
                let note = format!("given up two days after its window: {e}");
                crate::ui::warn(format!("batch {}: {note}", display_id(&row)));
                let released = release_all(store, &row.id, &items, &note)?;
                batches::finish(store.conn(), &row.id, "released", Some(&note), now_secs())?;
                report.batches.push(BatchReport {
                    id: row.id.clone(),
                    remote_id: row.remote_id.clone(),
                    sessions: items.len(),
                    event: "released",
                    released,
                    note: Some(note),
                    ..Default::default()
                });
            }
            Err(e) => {
                crate::ui::warn(format!("batch {}: {e}", display_id(&row)));
                report.batch_errors += 1;
                report.batches.push(BatchReport {
                    id: row.id.clone(),
                    remote_id: row.remote_id.clone(),
                    sessions: items.len(),
                    event: "error",
                    status: row.remote_status.clone(),
                    note: Some(e.to_string()),
                    ..Default::default()
                });
            }
        }
    }
    Ok(())
}

/// When OpenAI stops working on the batch (for one never created, a day
/// after memkit recorded it).
fn window_end(row: &BatchRow) -> i64 {
    row.expires_at.unwrap_or(row.created_at + 86_400)
}

fn display_id(row: &BatchRow) -> &str {
    row.remote_id.as_deref().unwrap_or(&row.id)
}

/// Moves one open batch on as far as it goes now.
fn advance(
    cfg: &Config,
    store: &mut Store,
    client: &BatchClient,
    row: &BatchRow,
    items: &[BatchItem],
    report: &mut ExtractReport,
) -> Result<Option<BatchReport>> {
    let mut row = row.clone();
    if row.state == "preparing" {
        match client.find_file(&row.id)? {
            Some(file_id) => {
                batches::set_uploaded(store.conn(), &row.id, &file_id)?;
                row.input_file_id = Some(file_id);
                row.state = "uploaded".into();
            }
            None => {
                let note = "its upload never completed";
                let released = release_all(store, &row.id, items, note)?;
                batches::finish(store.conn(), &row.id, "released", Some(note), now_secs())?;
                return Ok(Some(BatchReport {
                    id: row.id,
                    sessions: items.len(),
                    event: "released",
                    released,
                    note: Some(note.into()),
                    ..Default::default()
                }));
            }
        }
    }
    let remote = match (row.state.as_str(), row.remote_id.as_deref()) {
        ("uploaded", _) => ensure_created(store, client, &row, true)?,
        (_, Some(remote_id)) => client.get(remote_id)?,
        _ => return Err(Error::failed("a submitted batch without an OpenAI id")),
    };
    batches::set_remote_status(store.conn(), &row.id, &remote.status)?;
    let mut r = BatchReport {
        id: row.id.clone(),
        remote_id: Some(remote.id.clone()),
        sessions: items.len(),
        status: Some(remote.status.clone()),
        ..Default::default()
    };
    if !remote.is_over() {
        // Still OpenAI's: the claims outlast the wait, however long.
        for item in items {
            jobs::renew_stage1(
                store.conn(),
                &item.thread_id,
                &item.token,
                BATCH_LEASE_SECS,
                now_secs(),
            )?;
        }
        r.event = "in_flight";
        return Ok(Some(r));
    }
    collect(cfg, store, client, &row, &remote, items, &mut r, report)?;
    Ok(Some(r))
}

/// Stores the results of a batch OpenAI is done with and settles every
/// session it held.
#[allow(clippy::too_many_arguments)]
fn collect(
    cfg: &Config,
    store: &mut Store,
    client: &BatchClient,
    row: &BatchRow,
    remote: &RemoteBatch,
    items: &[BatchItem],
    r: &mut BatchReport,
    report: &mut ExtractReport,
) -> Result<()> {
    let answerer = Answerer {
        cfg,
        backend: ExtractBackendKind::OpenaiBatch.name(),
        model: row.model.clone(),
        batch: true,
    };
    let by_id: HashMap<&str, &BatchItem> =
        items.iter().map(|i| (i.thread_id.as_str(), i)).collect();
    let mut settled: HashSet<String> = HashSet::new();
    let label = format!("batch {}", remote.id);
    for file in [&remote.output_file_id, &remote.error_file_id]
        .into_iter()
        .flatten()
    {
        client.read_results(file, &mut |line| {
            let result = match parse_result(line) {
                Ok(result) => result,
                Err(e) => {
                    crate::ui::warn(format!("{label}: a result line skipped: {e}"));
                    return Ok(());
                }
            };
            let Some(item) = by_id.get(result.custom_id.as_str()) else {
                crate::ui::warn(format!(
                    "{label}: a result for an unknown request {}",
                    result.custom_id
                ));
                return Ok(());
            };
            // Settled already: a second copy of the line, or an earlier run
            // that read part of this file before it stopped.
            if !settled.insert(item.thread_id.clone())
                || !jobs::claim_is_live(store.conn(), &item.thread_id, &item.token)?
            {
                return Ok(());
            }
            if result.never_ran {
                let why = result.error.unwrap_or_default();
                r.released += release_all(store, &row.id, std::slice::from_ref(item), &why)?;
                return Ok(());
            }
            let answer = match result.body {
                Some(body) => {
                    let answer = read_response(&label, &body)
                        .and_then(|resp| stage_one_result(&resp, item.prompt_bytes as usize));
                    // An answer that is refused, cut short or not the schema
                    // is billed all the same: its tokens go in the ledger.
                    if answer.is_err() {
                        answerer.book_unusable(store, &item.thread_id, &body);
                    }
                    answer
                }
                None => Err(Error::failed(format!(
                    "{BATCH_ERROR_PREFIX}{}: {}",
                    remote.id,
                    result.error.unwrap_or_default()
                ))),
            };
            let o = settle(&answerer, store, item, answer)?;
            count(r, &o);
            report.tally(o);
            crate::util::crashpoint::here("batch:settled");
            Ok(())
        })?;
    }
    // Over the enqueued-token limit, no request ran: the sessions go again,
    // within the limit OpenAI stated, in a later night's batch.
    let over_limit = match remote.errors.as_deref() {
        Some(errors) if remote.status == "failed" && enqueue::is_over_limit(errors) => {
            let limit = enqueue::learn(store, &row.model, errors, now_secs())?;
            r.note = Some(format!(
                "over OpenAI's enqueued-token limit for {} ({limit} tokens); its sessions go \
                 again within it",
                row.model
            ));
            true
        }
        _ => false,
    };
    for item in items.iter().filter(|i| !settled.contains(&i.thread_id)) {
        if !jobs::claim_is_live(store.conn(), &item.thread_id, &item.token)? {
            continue;
        }
        if over_limit || matches!(remote.status.as_str(), "expired" | "cancelled") {
            let why = if over_limit {
                enqueue::LIMIT_REASON
            } else {
                &remote.status
            };
            r.released += release_all(store, &row.id, std::slice::from_ref(item), why)?;
            continue;
        }
        let why = match (&remote.status[..], &remote.errors) {
            ("failed", Some(errors)) => format!("the batch failed: {errors}"),
            ("failed", None) => "the batch failed".to_string(),
            _ => "the batch returned no result for this session".to_string(),
        };
        let answer = Err(Error::failed(format!(
            "{BATCH_ERROR_PREFIX}{}: {why}",
            remote.id
        )));
        let o = settle(&answerer, store, item, answer)?;
        count(r, &o);
        report.tally(o);
    }
    // A session whose result could not be recorded still holds its claim:
    // the batch stays open and the next run settles it from the same files.
    let mut unsettled = 0;
    for item in items {
        if jobs::claim_is_live(store.conn(), &item.thread_id, &item.token)? {
            unsettled += 1;
        }
    }
    if unsettled > 0 {
        r.event = "error";
        r.note = Some(format!(
            "{unsettled} results not recorded; the next run tries again"
        ));
        report.batch_errors += 1;
        return Ok(());
    }
    let state = if r.stored + r.no_output + r.failed == 0 && r.released > 0 {
        "released"
    } else {
        "collected"
    };
    r.event = state;
    batches::finish(store.conn(), &row.id, state, None, now_secs())?;
    delete_files(
        client,
        &label,
        [
            &row.input_file_id,
            &remote.output_file_id,
            &remote.error_file_id,
        ],
    );
    Ok(())
}

/// Deletes a settled batch's files from OpenAI's storage: the sessions'
/// requests and their answers are not left there for the 30 days OpenAI
/// keeps batch files. A file that cannot be deleted is a warning (OpenAI
/// still expires it).
fn delete_files(client: &BatchClient, label: &str, files: [&Option<String>; 3]) {
    for file in files.into_iter().flatten() {
        if let Err(e) = client.delete_file(file) {
            crate::ui::warn(format!(
                "{label}: could not delete file {file} at OpenAI (it expires there after 30 days): {e}"
            ));
        }
    }
}

/// Counts a settled session in its batch's report.
fn count(r: &mut BatchReport, o: &SessionOutcome) {
    match o.outcome {
        "succeeded" => r.stored += 1,
        "no_output" => r.no_output += 1,
        _ => r.failed += 1,
    }
}

/// Stores (or records the failure of) one batch request's answer for its
/// session, at the version that was claimed.
fn settle(
    answerer: &Answerer<'_>,
    store: &mut Store,
    item: &BatchItem,
    answer: Result<crate::backends::ExtractResult>,
) -> Result<SessionOutcome> {
    let mut row = match threads::get(store.conn(), &item.thread_id)? {
        Some(row) => row,
        None => {
            // The session left the catalog while its batch ran: nothing to store.
            jobs::release_stage1(
                store.conn(),
                &item.thread_id,
                &item.token,
                "left the catalog",
                now_secs(),
            )?;
            return Ok(SessionOutcome {
                thread_id: item.thread_id.clone(),
                tool: "unknown",
                outcome: "skipped",
                reason: Some("not_in_catalog".into()),
                estimated_tokens: 0,
                tokens_in: 0,
                tokens_out: 0,
                rollout_path: String::new(),
            });
        }
    };
    row.updated_at = item.source_updated_at;
    let estimated = estimate_tokens(item.prompt_bytes as usize);
    Ok(finalise(
        answerer,
        store,
        &row,
        &Claimed {
            token: &item.token,
            estimated,
            codex_bytes: item.codex_bytes.map(|b| b as u64),
        },
        answer,
        &|_| {},
    ))
}
