//! `memkit reset --yes`: wipes memories, keeps the session catalog.

use super::Ctx;
use crate::cli::ResetArgs;
use crate::error::{Error, Result};
use crate::memory::layout::clear_root;
use crate::stages::run::{RUN_LOCK, wait_for_run_lock};
use crate::store::locks;
use crate::ui;
use crate::util::time::now_secs;

/// Clears outputs, jobs and citations, and empties the memory folder.
pub fn run(ctx: &Ctx, args: &ResetArgs) -> Result<i32> {
    if !args.yes {
        return Err(Error::usage(
            "reset deletes every memory and the memory folder's contents; run `memkit reset --yes` to confirm",
        ));
    }
    let root = &ctx.cfg.memory_root;
    crate::memory::layout::refuse_symlinked_root(root)?;
    let mut store = ctx.store()?;
    // Never wipe under a running `memkit run`: wait for it to finish.
    let owner = crate::util::process::worker_id();
    let mut told = false;
    wait_for_run_lock(&mut store, &owner, |holder| {
        if !told {
            ui::info(format!(
                "waiting for the active run ({}) to finish before resetting",
                holder.owner
            ));
            told = true;
        }
    })?;
    let result = wipe(ctx, &mut store);
    locks::release(store.conn(), RUN_LOCK, &owner)?;
    result
}

fn wipe(ctx: &Ctx, store: &mut crate::store::Store) -> Result<i32> {
    let root = &ctx.cfg.memory_root;
    let tx = store.conn_mut().transaction()?;
    let outputs = tx.execute("DELETE FROM stage1_outputs", [])?;
    let jobs = tx.execute("DELETE FROM jobs", [])?;
    let citations = tx.execute("DELETE FROM citations", [])?;
    tx.execute(
        "UPDATE threads SET cite_scanned_size = NULL, cite_scanned_mtime_ns = NULL",
        [],
    )?;
    tx.commit()?;
    let entries = clear_root(root)?;
    // The agents' blocks must not go on showing the memory that was wiped.
    let read_paths = crate::agents::refresh_installed(&ctx.cfg, store, now_secs());
    if ctx.json {
        ui::json_line(&serde_json::json!({
            "outputs_deleted": outputs, "jobs_deleted": jobs, "citations_deleted": citations,
            "memory_root": root.display().to_string(), "entries_removed": entries,
            "read_paths": read_paths,
        }));
    } else {
        crate::outln!(
            "reset: deleted {outputs} memories, {jobs} jobs and {citations} imported citations"
        );
        crate::outln!(
            "reset: emptied {} ({entries} entries; the folder itself is kept)",
            root.display()
        );
        for p in read_paths.iter().filter(|p| p.error.is_none()) {
            crate::outln!(
                "reset: {}'s memory block in {} now says there is no memory yet",
                p.agent.name(),
                p.file
            );
        }
        crate::outln!(
            "reset: the session catalog is kept; the next `memkit run` extracts eligible sessions again"
        );
    }
    Ok(0)
}
