//! `memkit forget`: removes sessions' memories and keeps them out for good.

use super::Ctx;
use crate::cli::ForgetArgs;
use crate::error::Result;
use crate::store::forget::{Forgotten, forget};
use crate::store::threads::{self, ThreadRow};
use crate::ui;
use crate::util::time::now_secs;
use std::path::Path;

/// Deletes the outputs of the named sessions and marks them forgotten.
pub fn run(ctx: &Ctx, args: &ForgetArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    crate::catalog::scan(&ctx.cfg, &mut store)?;
    let mut chosen: Vec<ThreadRow> = Vec::new();
    for s in &args.sessions {
        let row = match threads::find_by_file(store.conn(), Path::new(s))? {
            Some(row) => row,
            None => threads::find_by_id_or_prefix(store.conn(), s)?
                .require(s, || format!("no session {s} in the catalog"))?,
        };
        chosen.push(row);
    }
    if let Some(dir) = &args.cwd {
        let dir = dir.display().to_string();
        chosen.extend(threads::list(store.conn())?.into_iter().filter(|t| {
            t.cwd
                .as_deref()
                .is_some_and(|c| crate::util::fsx::is_within(c, &dir))
        }));
    }
    chosen.sort_by(|a, b| a.id.cmp(&b.id));
    chosen.dedup_by(|a, b| a.id == b.id);
    let ids: Vec<String> = chosen.iter().map(|t| t.id.clone()).collect();
    let Forgotten {
        marked,
        outputs_deleted: deleted,
    } = forget(store.conn_mut(), &ids, now_secs())?;
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
