//! Codex's claim behaviours (reference §12 items 1–4, 8, 10, 11), against a real database.

use super::*;
use crate::backends::StageOneOutput;
use crate::store::Store;
use std::sync::{Arc, Barrier};

fn temp_store() -> (Store, std::path::PathBuf) {
    let path = std::env::temp_dir()
        .join(format!("memkit-jobs-{}", new_uuid_v4()))
        .join("memkit.sqlite");
    (Store::open(&path).unwrap(), path)
}

fn output(text: &str) -> StageOneOutput {
    StageOneOutput {
        raw_memory: format!("raw {text}"),
        rollout_summary: format!("summary {text}"),
        rollout_slug: Some("slug".into()),
    }
}

fn token(c: Claim) -> String {
    match c {
        Claim::Claimed { token } => token,
        other => panic!("expected a claim, got {other:?}"),
    }
}

const NOW: i64 = 1_000_000;

/// Finishes the claim `token` on `key` at `version` with an output made of
/// `text`; whether the claim was still ours.
fn succeed(s: &mut Store, key: &str, token: &str, version: i64, text: &str) -> bool {
    mark_stage1_succeeded(
        s.conn_mut(),
        key,
        token,
        version,
        &output(text),
        &OutputMeta::default(),
        NOW,
    )
    .unwrap()
}

fn phase2_watermark(conn: &Connection) -> Option<(String, i64)> {
    conn.query_row(
        "SELECT status, input_watermark FROM jobs WHERE kind = ?1 AND job_key = ?2",
        params![KIND_PHASE2, PHASE2_KEY],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()
    .unwrap()
}

#[test]
fn claim_succeed_then_up_to_date_then_newer_version() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions::default();
    let t = token(try_claim_stage1(s.conn_mut(), "A", "w1", 100, opts, NOW).unwrap());
    assert!(succeed(&mut s, "A", &t, 100, "a"));
    assert_eq!(
        try_claim_stage1(s.conn_mut(), "A", "w1", 100, opts, NOW).unwrap(),
        Claim::SkippedUpToDate
    );
    assert!(matches!(
        try_claim_stage1(s.conn_mut(), "A", "w1", 101, opts, NOW).unwrap(),
        Claim::Claimed { .. }
    ));
    // force re-extracts an up-to-date version
    let (mut s2, _) = temp_store();
    let t = token(try_claim_stage1(s2.conn_mut(), "B", "w", 100, opts, NOW).unwrap());
    succeed(&mut s2, "B", &t, 100, "b");
    let forced = ClaimOptions {
        force: true,
        ..opts
    };
    assert!(matches!(
        try_claim_stage1(s2.conn_mut(), "B", "w", 100, forced, NOW).unwrap(),
        Claim::Claimed { .. }
    ));
}

#[test]
fn live_lease_blocks_and_expired_lease_is_stolen() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions::default();
    let first = token(try_claim_stage1(s.conn_mut(), "A", "w1", 100, opts, NOW).unwrap());
    assert_eq!(
        try_claim_stage1(s.conn_mut(), "A", "w2", 100, opts, NOW).unwrap(),
        Claim::SkippedRunning
    );
    s.conn()
        .execute("UPDATE jobs SET lease_until = 0", [])
        .unwrap();
    let second = token(try_claim_stage1(s.conn_mut(), "A", "w2", 100, opts, NOW).unwrap());
    // The first worker lost its claim: its finalisation is a no-op.
    assert!(!succeed(&mut s, "A", &first, 100, "old"));
    assert!(!mark_stage1_failed(s.conn(), "A", &first, "late", 3600, NOW).unwrap());
    assert!(succeed(&mut s, "A", &second, 100, "new"));
    let raw: String = s
        .conn()
        .query_row("SELECT raw_memory FROM stage1_outputs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(raw, "raw new");
}

fn race(path: &std::path::Path, keys: [&'static str; 2], cap: Option<i64>) -> Vec<Claim> {
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = keys
        .into_iter()
        .enumerate()
        .map(|(i, key)| {
            let path = path.to_path_buf();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                barrier.wait();
                let opts = ClaimOptions {
                    max_running: cap,
                    ..Default::default()
                };
                try_claim_stage1(store.conn_mut(), key, &format!("w{i}"), 100, opts, NOW).unwrap()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn concurrent_claims_of_one_thread_yield_exactly_one_owner() {
    for _ in 0..5 {
        let (_, path) = temp_store();
        let results = race(&path, ["A", "A"], None);
        let claimed = results
            .iter()
            .filter(|c| matches!(c, Claim::Claimed { .. }))
            .count();
        assert_eq!(claimed, 1, "{results:?}");
        assert!(results.contains(&Claim::SkippedRunning));
    }
}

#[test]
fn concurrent_claims_on_two_threads_respect_the_running_cap() {
    for _ in 0..5 {
        let (_, path) = temp_store();
        let results = race(&path, ["A", "B"], Some(1));
        let claimed = results
            .iter()
            .filter(|c| matches!(c, Claim::Claimed { .. }))
            .count();
        assert_eq!(claimed, 1, "{results:?}");
    }
}

#[test]
fn global_running_cap_counts_existing_live_leases() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions {
        max_running: Some(64),
        ..Default::default()
    };
    for i in 0..10 {
        token(
            try_claim_stage1(
                s.conn_mut(),
                &format!("pre{i}"),
                "other",
                100,
                ClaimOptions::default(),
                NOW,
            )
            .unwrap(),
        );
    }
    let mut claimed = 0;
    for i in 0..80 {
        if let Claim::Claimed { .. } =
            try_claim_stage1(s.conn_mut(), &format!("t{i}"), "me", 100, opts, NOW).unwrap()
        {
            claimed += 1;
        }
    }
    assert_eq!(claimed, 54);
    let again = (0..80)
        .filter(|i| {
            matches!(
                try_claim_stage1(s.conn_mut(), &format!("t{i}"), "me", 100, opts, NOW).unwrap(),
                Claim::Claimed { .. }
            )
        })
        .count();
    assert_eq!(again, 0);
}

#[test]
fn failures_exhaust_the_budget_until_the_session_advances() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions::default();
    for _ in 0..3 {
        let t = token(try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW).unwrap());
        assert!(mark_stage1_failed(s.conn(), "A", &t, "model down", 0, NOW).unwrap());
    }
    assert_eq!(
        try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW).unwrap(),
        Claim::SkippedRetryExhausted
    );
    token(try_claim_stage1(s.conn_mut(), "A", "w", 101, opts, NOW).unwrap());
    let (remaining, watermark): (i64, i64) = s
        .conn()
        .query_row(
            "SELECT retry_remaining, input_watermark FROM jobs WHERE job_key = 'A'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((remaining, watermark), (3, 101));
}

#[test]
fn a_failure_backs_off_for_the_retry_delay() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions::default();
    let t = token(try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW).unwrap());
    mark_stage1_failed(s.conn(), "A", &t, "429", 3600, NOW).unwrap();
    assert_eq!(
        try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW + 10).unwrap(),
        Claim::SkippedRetryBackoff {
            retry_at: NOW + 3600
        }
    );
    assert!(matches!(
        try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW + 3600).unwrap(),
        Claim::Claimed { .. }
    ));
    let err: Option<String> = s
        .conn()
        .query_row("SELECT last_error FROM jobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(err, None, "a new claim clears the last error");
}

#[test]
fn no_output_deletes_and_enqueues_only_when_something_was_deleted() {
    let (mut s, _) = temp_store();
    let opts = ClaimOptions::default();
    let t = token(try_claim_stage1(s.conn_mut(), "A", "w", 100, opts, NOW).unwrap());
    assert!(mark_stage1_succeeded_no_output(s.conn_mut(), "A", &t, NOW).unwrap());
    assert_eq!(
        phase2_watermark(s.conn()),
        None,
        "nothing deleted: phase 2 not enqueued"
    );

    let t = token(try_claim_stage1(s.conn_mut(), "B", "w", 100, opts, NOW).unwrap());
    succeed(&mut s, "B", &t, 100, "b");
    assert_eq!(
        phase2_watermark(s.conn()),
        Some(("pending".into(), 100)),
        "a success enqueues phase 2"
    );
    s.conn()
        .execute(
            "UPDATE jobs SET status = 'done' WHERE kind = ?1",
            [KIND_PHASE2],
        )
        .unwrap();
    let t = token(try_claim_stage1(s.conn_mut(), "B", "w", 200, opts, NOW).unwrap());
    assert!(mark_stage1_succeeded_no_output(s.conn_mut(), "B", &t, NOW).unwrap());
    let n: i64 = s
        .conn()
        .query_row("SELECT COUNT(*) FROM stage1_outputs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0, "the older output is deleted");
    assert_eq!(phase2_watermark(s.conn()), Some(("pending".into(), 200)));
    // The no-output success counts as extracted at that version.
    assert_eq!(
        try_claim_stage1(s.conn_mut(), "B", "w", 200, opts, NOW).unwrap(),
        Claim::SkippedUpToDate
    );
}

#[test]
fn an_older_version_never_overwrites_a_newer_output() {
    let (mut s, _) = temp_store();
    let forced = ClaimOptions {
        force: true,
        ..Default::default()
    };
    let t = token(try_claim_stage1(s.conn_mut(), "A", "w", 200, forced, NOW).unwrap());
    succeed(&mut s, "A", &t, 200, "new");
    let t = token(try_claim_stage1(s.conn_mut(), "A", "w", 100, forced, NOW).unwrap());
    succeed(&mut s, "A", &t, 100, "old");
    let raw: String = s
        .conn()
        .query_row("SELECT raw_memory FROM stage1_outputs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(raw, "raw new");
}

#[test]
fn enqueue_moves_the_watermark_forward_only() {
    let (s, _) = temp_store();
    enqueue_phase2(s.conn(), 500).unwrap();
    enqueue_phase2(s.conn(), 400).unwrap();
    assert_eq!(phase2_watermark(s.conn()), Some(("pending".into(), 501)));
}
