//! `stage1_outputs`: what phase 1 produced per session (Codex's table and columns).

use crate::error::Result;
use rusqlite::Connection;
use std::collections::HashMap;

/// For every session that was extracted, the newest `updated_at` its
/// extraction covers: the larger of its output's `source_updated_at` and its
/// stage-1 job's `last_success_watermark` (a no-output success leaves only the latter).
pub fn extraction_watermarks(conn: &Connection) -> Result<HashMap<String, i64>> {
    let mut out: HashMap<String, i64> = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT thread_id, source_updated_at FROM stage1_outputs
         UNION ALL
         SELECT job_key, last_success_watermark FROM jobs
          WHERE kind = 'memory_stage1' AND last_success_watermark IS NOT NULL",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    for row in rows {
        let (id, w) = row?;
        let e = out.entry(id).or_insert(w);
        *e = (*e).max(w);
    }
    Ok(out)
}
