//! The cost ledger: one row per model call (an extraction, a consolidation,
//! a batch of embeddings), with its tokens and what they cost at the prices
//! of the moment — synchronously, and through the Batch API when that is how
//! it ran — and, for an extraction of a Codex session, what Codex's own
//! memory pipeline would have spent on it.

use crate::config::{CostConfig, Tokens};
use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::sync::Mutex;

/// The run whose stage is working now (set around each recorded stage).
static CURRENT_RUN: Mutex<Option<String>> = Mutex::new(None);

/// Makes `run_id` the run that model calls are booked to (`None`: none).
pub fn set_current_run(run_id: Option<&str>) {
    if let Ok(mut current) = CURRENT_RUN.lock() {
        *current = run_id.map(str::to_string);
    }
}

/// The run model calls are booked to now; a call outside any stage gets a
/// run of its own.
fn current_run() -> String {
    CURRENT_RUN
        .lock()
        .ok()
        .and_then(|c| c.clone())
        .unwrap_or_else(crate::util::ids::new_uuid_v4)
}

/// One model call to book.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// `extract`, `consolidate` or `embed`.
    pub stage: &'a str,
    /// The model that answered (`rules-v1` for the offline backends).
    pub model: &'a str,
    /// Whether it ran through the Batch API.
    pub batch: bool,
    /// The session it was about, for an extraction.
    pub thread_id: Option<&'a str>,
    /// What it used.
    pub tokens: Tokens,
    /// What Codex's own pipeline would have used for the same session.
    pub codex: Option<Tokens>,
}

/// Books `e` at the prices of `costs` (a model without a price is booked
/// with no cost; a call that used no tokens costs nothing whatever it is).
pub fn record(conn: &Connection, costs: &CostConfig, e: &Entry<'_>, now: i64) -> Result<()> {
    let price = |model: &str, t: Tokens, batch: bool| -> Option<f64> {
        if t == Tokens::default() {
            return Some(0.0);
        }
        costs.price(model).map(|p| p.cost(t, batch))
    };
    let cost = price(e.model, e.tokens, e.batch);
    let sync_cost = price(e.model, e.tokens, false);
    let codex_cost = e.codex.and_then(|t| price(&costs.codex_model, t, false));
    conn.execute(
        "INSERT INTO ledger (run_id, stage, at, model, mode, thread_id, tokens_in, cached_in,
            tokens_out, cost, sync_cost, codex_cost)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            current_run(),
            e.stage,
            now,
            e.model,
            if e.batch { "batch" } else { "sync" },
            e.thread_id,
            e.tokens.input as i64,
            e.tokens.cached_input as i64,
            e.tokens.output as i64,
            cost,
            sync_cost,
            codex_cost
        ],
    )?;
    Ok(())
}

/// Books `e` like [`record`]; a failure to book is a warning (naming the
/// session, else the stage), never the failure of the call it books.
pub fn book(conn: &Connection, costs: &CostConfig, e: &Entry<'_>, now: i64) {
    if let Err(err) = record(conn, costs, e, now) {
        let what = e.thread_id.unwrap_or(e.stage);
        crate::ui::warn(format!("{what}: not booked in the cost ledger: {err}"));
    }
}

/// What a set of ledger rows adds up to.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Spend {
    /// Model calls booked.
    pub calls: u64,
    /// Calls whose model has no price (their cost is not in `cost`).
    pub unpriced_calls: u64,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
    /// What it cost.
    pub cost: f64,
    /// What the same calls would have cost without the Batch API.
    pub sync_cost: f64,
    /// What Codex's own pipeline would have spent on the Codex sessions among them.
    pub codex_cost: f64,
    /// Codex sessions in `codex_cost`.
    pub codex_sessions: u64,
}

/// Which rows to add up.
#[derive(Debug, Clone, Copy)]
pub enum Period<'a> {
    /// One run's.
    Run(&'a str),
    /// The calendar month (UTC) that starts at this time (Unix seconds; see
    /// [`month_start`]).
    Month(i64),
}

/// Adds up the ledger rows of `period` (a month's, as the database's
/// trigger added them up while they were booked).
pub fn spend(conn: &Connection, period: Period<'_>) -> Result<Spend> {
    let from_row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Spend> {
        let calls = r.get::<_, i64>(0)? as u64;
        Ok(Spend {
            calls,
            unpriced_calls: calls - r.get::<_, i64>(1)? as u64,
            tokens_in: r.get::<_, i64>(2)? as u64,
            tokens_out: r.get::<_, i64>(3)? as u64,
            cost: r.get(4)?,
            sync_cost: r.get(5)?,
            codex_cost: r.get(6)?,
            codex_sessions: r.get::<_, i64>(7)? as u64,
        })
    };
    let spend = match period {
        Period::Run(id) => conn.query_row(
            "SELECT count(*), count(cost), COALESCE(sum(tokens_in), 0),
                    COALESCE(sum(tokens_out), 0), COALESCE(sum(cost), 0),
                    COALESCE(sum(sync_cost), 0), COALESCE(sum(codex_cost), 0), count(codex_cost)
             FROM ledger WHERE run_id = ?1",
            [id],
            from_row,
        )?,
        Period::Month(start) => conn
            .query_row(
                "SELECT calls, priced_calls, tokens_in, tokens_out, cost, sync_cost, codex_cost,
                        codex_calls
                 FROM ledger_months WHERE month_start = ?1",
                [start],
                from_row,
            )
            .optional()?
            .unwrap_or_default(),
    };
    Ok(spend)
}

/// A run's spending next to the month's, for the run summary and `memkit status`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct CostSummary {
    /// What amounts are in.
    pub currency: String,
    /// The run's (`None`: no run booked anything yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<Spend>,
    /// This calendar month's (UTC).
    pub month: Spend,
}

/// The spending of `run_id` (else of the newest run that booked anything)
/// and of the month that holds `now`.
pub fn summary(
    conn: &Connection,
    run_id: Option<&str>,
    currency: &str,
    now: i64,
) -> Result<CostSummary> {
    let run_id = match run_id {
        Some(id) => Some(id.to_string()),
        None => conn
            .query_row(
                "SELECT run_id FROM ledger ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get::<_, String>(0),
            )
            .optional()?,
    };
    let run = match run_id {
        Some(id) => Some(spend(conn, Period::Run(&id))?).filter(|s| s.calls > 0),
        None => None,
    };
    Ok(CostSummary {
        currency: currency.to_string(),
        run,
        month: spend(conn, Period::Month(month_start(now)))?,
    })
}

/// The start of the calendar month (UTC) that holds `now`, Unix seconds.
pub fn month_start(now: i64) -> i64 {
    use crate::util::time::{Civil, civil_from_secs, secs_from_civil};
    let c = civil_from_secs(now);
    secs_from_civil(Civil {
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        ..c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_priced_summed_and_compared_with_codex() {
        let dir =
            std::env::temp_dir().join(format!("memkit-ledger-{}", crate::util::ids::new_uuid_v4()));
        let store = crate::store::Store::open(&dir.join("memkit.sqlite")).unwrap();
        let conn = store.conn();
        let costs = CostConfig::default();
        set_current_run(Some("run-1"));
        let t = Tokens {
            input: 2_000_000,
            cached_input: 0,
            output: 0,
        };
        for (model, batch, codex) in [
            (
                "gpt-5.4-mini",
                true,
                Some(Tokens {
                    input: 4_000_000,
                    cached_input: 0,
                    output: 0,
                }),
            ),
            ("qwen3:8b", false, None),
            ("heuristic", false, None),
        ] {
            let tokens = if model == "heuristic" {
                Tokens::default()
            } else {
                t
            };
            let e = Entry {
                stage: "extract",
                model,
                batch,
                thread_id: Some("t"),
                tokens,
                codex,
            };
            record(conn, &costs, &e, 1_000).unwrap();
        }
        set_current_run(None);
        let s = spend(conn, Period::Run("run-1")).unwrap();
        assert_eq!((s.calls, s.unpriced_calls, s.codex_sessions), (3, 1, 1));
        assert!((s.cost - 0.75).abs() < 1e-9, "batch: half of 2 × 0.75");
        assert!((s.sync_cost - 1.5).abs() < 1e-9);
        assert!((s.codex_cost - 3.0).abs() < 1e-9);
        assert_eq!(spend(conn, Period::Month(month_start(1_000))).unwrap(), s);
        // 2026-11-30T23:59:59Z and 2026-12-01T00:00:00Z fall in two months.
        for at in [1_796_083_199, 1_796_083_200] {
            record(conn, &costs, &e_mini(), at).unwrap();
        }
        for month in [1_793_491_200, 1_796_083_200] {
            let m = spend(conn, Period::Month(month)).unwrap();
            assert_eq!((m.calls, m.unpriced_calls, m.tokens_in), (1, 0, 2_000_000));
            assert!((m.cost - 1.5).abs() < 1e-9);
        }
        assert_eq!(
            spend(conn, Period::Month(1_798_761_600)).unwrap(),
            Spend::default()
        );
    }

    fn e_mini() -> Entry<'static> {
        Entry {
            stage: "extract",
            model: "gpt-5.4-mini",
            batch: false,
            thread_id: None,
            tokens: Tokens {
                input: 2_000_000,
                cached_input: 0,
                output: 0,
            },
            codex: None,
        }
    }

    #[test]
    fn months_start_on_the_first() {
        // 2026-12-01T16:00:00Z and 2026-11-30T23:59:59Z (`date -u -d 2026-12-01 +%s`).
        assert_eq!(month_start(1_796_083_200 + 57_600), 1_796_083_200);
        assert_eq!(month_start(1_796_083_199), 1_793_491_200);
    }
}
