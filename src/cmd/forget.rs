//! `memkit forget`: removes sessions' memories and keeps them out for good.

use super::Ctx;
use crate::cli::ForgetArgs;
use crate::error::{Error, Result};
use crate::store::threads::{self, ThreadRow};
use crate::store::{jobs, stage1};
use crate::ui;
use crate::util::time::now_secs;
use std::path::Path;

/// Deletes the outputs of the named sessions and marks them forgotten.
pub fn run(ctx: &Ctx, args: &ForgetArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    crate::catalog::scan(&ctx.cfg, &mut store)?;
    let all = threads::list(store.conn())?;
    let mut chosen: Vec<&ThreadRow> = Vec::new();
    for s in &args.sessions {
        let path = std::fs::canonicalize(s).ok();
        let hits: Vec<&ThreadRow> = all
            .iter()
            .filter(|t| {
                t.id == *s
                    || t.rollout_path == *s
                    || path
                        .as_ref()
                        .is_some_and(|p| Path::new(&t.rollout_path) == p)
            })
            .collect();
        let hits = if hits.is_empty() {
            all.iter()
                .filter(|t| t.id.starts_with(s.as_str()))
                .collect()
        } else {
            hits
        };
        match hits.len() {
            0 => return Err(Error::usage(format!("no session {s} in the catalog"))),
            1 => chosen.push(hits[0]),
            n => {
                return Err(Error::usage(format!(
                    "{s} matches {n} sessions; give more of the id"
                )));
            }
        }
    }
    if let Some(dir) = &args.cwd {
        let dir = dir.display().to_string();
        let dir = dir.trim_end_matches('/');
        chosen.extend(all.iter().filter(|t| {
            t.cwd
                .as_deref()
                .is_some_and(|c| c == dir || c.starts_with(&format!("{dir}/")))
        }));
    }
    chosen.sort_by(|a, b| a.id.cmp(&b.id));
    chosen.dedup_by(|a, b| a.id == b.id);
    let ids: Vec<String> = chosen.iter().map(|t| t.id.clone()).collect();
    let tx = store.conn_mut().transaction()?;
    let (deleted, was_selected) = stage1::delete_outputs(&tx, &ids)?;
    let marked = threads::set_forgotten(&tx, &ids, now_secs())?;
    if was_selected {
        jobs::enqueue_phase2(&tx, now_secs())?;
    }
    tx.commit()?;
    if ctx.json {
        ui::json_line(&serde_json::json!({"forgotten": ids, "outputs_deleted": deleted}));
    } else {
        for t in &chosen {
            crate::outln!("forgot {} ({})", t.id, t.cwd.as_deref().unwrap_or("-"));
        }
        crate::outln!(
            "forget: {marked} sessions marked, {deleted} memories deleted; the next sync and consolidation remove them from the files"
        );
    }
    Ok(0)
}
