//! When each agent's read path was last written or checked, kept in the
//! `kv` table for `memkit status`.

use super::Agent;
use crate::error::Result;
use crate::store::kv;
use rusqlite::Connection;

fn key(agent: Agent) -> String {
    format!("readpath.{}.refreshed_at", agent.name())
}

/// Records that `agent`'s read path was written or checked at `now`.
pub fn record(conn: &Connection, agent: Agent, now: i64) -> Result<()> {
    kv::set(conn, &key(agent), &now.to_string())
}

/// When `agent`'s read path was last written or checked, Unix seconds.
pub fn refreshed_at(conn: &Connection, agent: Agent) -> Result<Option<i64>> {
    Ok(kv::get(conn, &key(agent))?.and_then(|v| v.parse().ok()))
}
