//! Forgetting sessions: their stage-1 outputs deleted, their transcripts
//! dropped from the search index, the sessions marked so they are never
//! extracted again, and a consolidation queued when the memory held them.
//! `memkit forget` and the MCP `delete_memory` tool share it.

use super::{jobs, stage1, threads};
use crate::error::Result;
use rusqlite::Connection;

/// What forgetting did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Sessions marked forgotten.
    pub marked: usize,
    /// Stage-1 outputs deleted.
    pub outputs_deleted: usize,
}

/// Forgets the sessions `ids` at time `now`, in one transaction.
pub fn forget(conn: &mut Connection, ids: &[String], now: i64) -> Result<Forgotten> {
    let tx = conn.transaction()?;
    let (outputs_deleted, was_selected) = stage1::delete_outputs(&tx, ids)?;
    let marked = threads::set_forgotten(&tx, ids, now)?;
    for id in ids {
        crate::search::sessions::drop_session(&tx, id)?;
    }
    if was_selected {
        jobs::enqueue_phase2(&tx, now)?;
    }
    tx.commit()?;
    Ok(Forgotten {
        marked,
        outputs_deleted,
    })
}
