//! `stage1_outputs`: what phase 1 produced per session (Codex's table and columns).

use crate::error::Result;
use rusqlite::{Connection, OptionalExtension};

/// Codex's phase-2 selection: non-empty outputs used (or, never used, whose
/// session was updated) within `max_unused_secs`, ranked by usage count, then
/// recency of use, then session recency; only sessions with memory enabled and
/// not forgotten; the top `n`, returned in ascending thread-id order so rank
/// changes do not churn files.
pub fn select_for_phase2(
    conn: &Connection,
    n: usize,
    max_unused_secs: i64,
    now: i64,
) -> Result<Vec<crate::memory::files::SelectedOutput>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let cutoff = now - max_unused_secs.max(0);
    // Read in rank order from the covering index alone, as far as needed;
    // the texts are read only for the outputs taken (an output whose texts
    // are both blank is passed over).
    let mut ranked = conn.prepare(
        "SELECT so.thread_id, so.source_updated_at, so.usage_count, so.last_usage
         FROM stage1_outputs so INDEXED BY idx_stage1_outputs_rank
         WHERE (so.last_usage IS NOT NULL AND so.last_usage >= ?1)
                OR (so.last_usage IS NULL AND so.source_updated_at >= ?1)
         ORDER BY COALESCE(so.usage_count, 0) DESC, COALESCE(so.last_usage, so.source_updated_at) DESC,
                  so.source_updated_at DESC, so.thread_id DESC",
    )?;
    // Looked up for the ranked outputs in turn, until `n` are taken.
    let mut session = conn.prepare(
        "SELECT cwd, rollout_path, git_branch FROM threads
         WHERE id = ?1 AND memory_mode = 'enabled' AND forgotten_at IS NULL",
    )?;
    let mut texts = conn.prepare(
        "SELECT raw_memory, rollout_summary, rollout_slug FROM stage1_outputs WHERE thread_id = ?1",
    )?;
    let mut rows = ranked.query([cutoff])?;
    let mut out = Vec::new();
    while out.len() < n {
        let Some(r) = rows.next()? else {
            break;
        };
        let thread_id: String = r.get(0)?;
        let place: Option<(Option<String>, String, Option<String>)> = session
            .query_row([&thread_id], |t| Ok((t.get(0)?, t.get(1)?, t.get(2)?)))
            .optional()?;
        let Some((cwd, rollout_path, git_branch)) = place else {
            continue;
        };
        let (raw_memory, rollout_summary, rollout_slug): (String, String, Option<String>) =
            texts.query_row([&thread_id], |t| Ok((t.get(0)?, t.get(1)?, t.get(2)?)))?;
        // Codex's test: blank after trimming spaces, tabs and line breaks.
        let blank = |s: &str| s.trim_matches([' ', '\t', '\n', '\r']).is_empty();
        if blank(&raw_memory) && blank(&rollout_summary) {
            continue;
        }
        out.push(crate::memory::files::SelectedOutput {
            thread_id,
            source_updated_at: r.get(1)?,
            raw_memory,
            rollout_summary,
            rollout_slug,
            cwd,
            rollout_path,
            git_branch,
            usage_count: r.get(2)?,
            last_usage: r.get(3)?,
        });
    }
    out.sort_by(|a, b| a.thread_id.cmp(&b.thread_id));
    Ok(out)
}

/// Rewrites `selected_for_phase2` to exactly these snapshots
/// `(thread_id, source_updated_at)`; a row re-extracted since is not marked.
pub fn mark_selected(conn: &Connection, selection: &[(String, i64)]) -> Result<()> {
    // Only the rows whose mark changes are written (found on the covering
    // index): a consolidation of the same selection writes nothing.
    let marked: std::collections::HashMap<String, (i64, Option<i64>, i64)> = {
        let mut stmt = conn.prepare(
            "SELECT thread_id, selected_for_phase2, selected_for_phase2_source_updated_at,
                    source_updated_at
             FROM stage1_outputs INDEXED BY idx_stage1_outputs_selection
             WHERE selected_for_phase2 != 0 OR selected_for_phase2_source_updated_at IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let wanted: std::collections::HashSet<&str> =
        selection.iter().map(|(id, _)| id.as_str()).collect();
    let mut clear = conn.prepare(
        "UPDATE stage1_outputs SET selected_for_phase2 = 0, selected_for_phase2_source_updated_at = NULL
         WHERE thread_id = ?1",
    )?;
    for id in marked.keys().filter(|id| !wanted.contains(id.as_str())) {
        clear.execute([id])?;
    }
    let mut set = conn.prepare(
        "UPDATE stage1_outputs SET selected_for_phase2 = 1, selected_for_phase2_source_updated_at = ?2
         WHERE thread_id = ?1 AND source_updated_at = ?2",
    )?;
    for (id, version) in selection {
        if marked.get(id) != Some(&(1, Some(*version), *version)) {
            // A row re-extracted since its snapshot no longer matches: its
            // old mark goes, and it is not marked.
            clear.execute([id])?;
            set.execute(rusqlite::params![id, version])?;
        }
    }
    Ok(())
}

/// A stage-1 output that prune would (or did) delete.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PruneCandidate {
    /// Thread id.
    pub thread_id: String,
    /// Last use, or the session's last update when never used, Unix seconds.
    pub last_relevant: i64,
    /// Whether it was ever cited.
    pub cited: bool,
}

/// Codex's retention rule: outputs not in the last consolidation whose
/// `COALESCE(last_usage, source_updated_at)` is older than `max_unused_secs`,
/// stalest first, at most `limit`.
pub fn prune_candidates(
    conn: &Connection,
    max_unused_secs: i64,
    limit: usize,
    now: i64,
) -> Result<Vec<PruneCandidate>> {
    let cutoff = now - max_unused_secs.max(0);
    let mut stmt = conn.prepare(
        "SELECT thread_id, COALESCE(last_usage, source_updated_at), usage_count IS NOT NULL
         FROM stage1_outputs INDEXED BY idx_stage1_outputs_prune
         WHERE selected_for_phase2 = 0 AND COALESCE(last_usage, source_updated_at) < ?1
         ORDER BY COALESCE(last_usage, source_updated_at) ASC, source_updated_at ASC, thread_id ASC
         LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![cutoff, limit as i64], |r| {
        Ok(PruneCandidate {
            thread_id: r.get(0)?,
            last_relevant: r.get(1)?,
            cited: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Deletes the outputs of these threads; returns how many rows went and
/// whether any of them was in the last consolidation.
pub fn delete_outputs(conn: &Connection, ids: &[String]) -> Result<(usize, bool)> {
    let mut deleted = 0;
    let mut was_selected = false;
    for id in ids {
        let selected: Option<i64> = conn
            .query_row(
                "SELECT selected_for_phase2 FROM stage1_outputs WHERE thread_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        was_selected |= selected.is_some_and(|s| s != 0);
        deleted += conn.execute("DELETE FROM stage1_outputs WHERE thread_id = ?1", [id])?;
    }
    Ok((deleted, was_selected))
}

/// Counts for `memkit status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct OutputStats {
    /// Stage-1 outputs stored.
    pub total: i64,
    /// In the last consolidation.
    pub selected: i64,
    /// Cited at least once.
    pub cited: i64,
    /// Never cited.
    pub never_cited: i64,
    /// The stalest `COALESCE(last_usage, source_updated_at)`, Unix seconds.
    pub oldest_unused: Option<i64>,
}

/// Output counts.
pub fn output_stats(conn: &Connection) -> Result<OutputStats> {
    Ok(conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(selected_for_phase2 != 0), 0), COALESCE(SUM(usage_count IS NOT NULL), 0),
                COALESCE(SUM(usage_count IS NULL), 0), MIN(COALESCE(last_usage, source_updated_at))
         FROM stage1_outputs INDEXED BY idx_stage1_outputs_selection",
        [],
        |r| {
            Ok(OutputStats {
                total: r.get(0)?,
                selected: r.get(1)?,
                cited: r.get(2)?,
                never_cited: r.get(3)?,
                oldest_unused: r.get(4)?,
            })
        },
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use rusqlite::params;

    const DAY: i64 = 86_400;
    const NOW: i64 = 2_000_000_000;

    fn store() -> Store {
        Store::open(
            &std::env::temp_dir()
                .join(format!("memkit-s1-{}", crate::util::ids::new_uuid_v4()))
                .join("m.sqlite"),
        )
        .unwrap()
    }

    fn add(s: &Store, id: &str, source_updated_at: i64, usage: Option<(i64, i64)>) {
        s.conn()
            .execute(
                "INSERT INTO threads (id, tool, rollout_path, file_size, file_mtime_ns, updated_at, scanned_at)
                 VALUES (?1, 'codex', ?1, 0, 0, ?2, 0)",
                params![id, source_updated_at],
            )
            .unwrap();
        s.conn()
            .execute(
                "INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at,
                    usage_count, last_usage) VALUES (?1, ?2, 'raw', 'summary', ?2, ?3, ?4)",
                params![id, source_updated_at, usage.map(|u| u.0), usage.map(|u| u.1)],
            )
            .unwrap();
    }

    fn ids(v: &[crate::memory::files::SelectedOutput]) -> Vec<&str> {
        v.iter().map(|o| o.thread_id.as_str()).collect()
    }

    #[test]
    fn ranking_is_usage_then_recency_of_use() {
        let s = store();
        add(&s, "A", NOW - 40 * DAY, Some((5, NOW - 10 * DAY)));
        add(&s, "B", NOW - 40 * DAY, Some((5, NOW - DAY)));
        add(&s, "C", NOW - 40 * DAY, Some((1, NOW - 3600)));
        assert_eq!(
            ids(&select_for_phase2(s.conn(), 1, 30 * DAY, NOW).unwrap()),
            vec!["B"]
        );
    }

    #[test]
    fn window_and_thread_id_order() {
        let s = store();
        add(
            &s,
            "d-used-31d-ago",
            NOW - 60 * DAY,
            Some((1, NOW - 31 * DAY)),
        );
        add(&s, "c-never-used-2d", NOW - 2 * DAY, None);
        add(
            &s,
            "a-used-1d-old-source",
            NOW - 50 * DAY,
            Some((1, NOW - DAY)),
        );
        let got = select_for_phase2(s.conn(), 10, 30 * DAY, NOW).unwrap();
        assert_eq!(ids(&got), vec!["a-used-1d-old-source", "c-never-used-2d"]);
    }

    #[test]
    fn never_used_ties_rank_by_session_recency_not_generation() {
        let s = store();
        add(&s, "old-session", NOW - 5 * DAY, None);
        add(&s, "new-session", NOW - DAY, None);
        s.conn()
            .execute(
                "UPDATE stage1_outputs SET generated_at = ?1 WHERE thread_id = 'old-session'",
                [NOW],
            )
            .unwrap();
        assert_eq!(
            ids(&select_for_phase2(s.conn(), 1, 30 * DAY, NOW).unwrap()),
            vec!["new-session"]
        );
    }

    #[test]
    fn blank_outputs_and_disabled_or_forgotten_threads_are_never_selected() {
        let s = store();
        add(&s, "blank", NOW - DAY, None);
        s.conn()
            .execute("UPDATE stage1_outputs SET raw_memory = '  ', rollout_summary = '\n' WHERE thread_id = 'blank'", [])
            .unwrap();
        add(&s, "disabled", NOW - DAY, None);
        s.conn()
            .execute(
                "UPDATE threads SET memory_mode = 'polluted' WHERE id = 'disabled'",
                [],
            )
            .unwrap();
        add(&s, "forgotten", NOW - DAY, None);
        s.conn()
            .execute(
                "UPDATE threads SET forgotten_at = 1 WHERE id = 'forgotten'",
                [],
            )
            .unwrap();
        add(&s, "ok", NOW - DAY, None);
        assert_eq!(
            ids(&select_for_phase2(s.conn(), 10, 30 * DAY, NOW).unwrap()),
            vec!["ok"]
        );
        assert!(
            select_for_phase2(s.conn(), 0, 30 * DAY, NOW)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn marking_selects_exact_snapshots_only() {
        let s = store();
        add(&s, "A", 100, None);
        add(&s, "B", 200, None);
        mark_selected(s.conn(), &[("A".into(), 100), ("B".into(), 150)]).unwrap();
        let rows: Vec<(String, i64, Option<i64>)> = s
            .conn()
            .prepare("SELECT thread_id, selected_for_phase2, selected_for_phase2_source_updated_at FROM stage1_outputs ORDER BY thread_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            rows,
            vec![("A".into(), 1, Some(100)), ("B".into(), 0, None)],
            "B was refreshed since"
        );
        mark_selected(s.conn(), &[("B".into(), 200)]).unwrap();
        let selected: i64 = s
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM stage1_outputs WHERE selected_for_phase2 = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(selected, 1, "a new success rewrites the whole selection");
    }

    #[test]
    fn prune_takes_stale_unselected_rows_stalest_first_up_to_the_limit() {
        let s = store();
        add(&s, "fresh", NOW - DAY, None);
        add(&s, "stale-1", NOW - 40 * DAY, None);
        add(&s, "stale-2", NOW - 50 * DAY, None);
        add(
            &s,
            "stale-used-recently",
            NOW - 90 * DAY,
            Some((1, NOW - DAY)),
        );
        add(&s, "stale-but-selected", NOW - 90 * DAY, None);
        mark_selected(s.conn(), &[("stale-but-selected".into(), NOW - 90 * DAY)]).unwrap();
        let got = prune_candidates(s.conn(), 30 * DAY, 10, NOW).unwrap();
        let got: Vec<&str> = got.iter().map(|c| c.thread_id.as_str()).collect();
        assert_eq!(got, vec!["stale-2", "stale-1"]);
        assert_eq!(
            prune_candidates(s.conn(), 30 * DAY, 1, NOW).unwrap().len(),
            1
        );
    }
}
