//! Named locks with a lease (the `memkit run` lock): exclusive across
//! processes; a lock whose lease ran out, or whose holder on this machine is
//! gone (killed), is taken over.

use crate::error::Result;
use crate::util::process::worker_is_dead;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// Who holds a lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The holder's worker id (`memkit-<pid>@<host>`).
    pub owner: String,
    /// Since when, Unix seconds.
    pub acquired_at: i64,
}

/// Tries to take lock `name` for `lease_secs`; `Err(holder)` names who has it.
pub fn try_acquire(
    conn: &mut Connection,
    name: &str,
    owner: &str,
    lease_secs: i64,
    now: i64,
) -> Result<std::result::Result<(), Holder>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: Option<(String, i64, i64)> = tx
        .query_row(
            "SELECT owner, acquired_at, lease_until FROM locks WHERE name = ?1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    if let Some((holder, acquired_at, lease_until)) = current
        && holder != owner
        && lease_until > now
        && !worker_is_dead(&holder)
    {
        return Ok(Err(Holder {
            owner: holder,
            acquired_at,
        }));
    }
    tx.execute(
        "INSERT INTO locks (name, owner, acquired_at, lease_until) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,
            lease_until = excluded.lease_until",
        params![name, owner, now, now + lease_secs],
    )?;
    tx.commit()?;
    Ok(Ok(()))
}

/// Extends a lock we hold; `false` when it is no longer ours.
pub fn refresh(
    conn: &Connection,
    name: &str,
    owner: &str,
    lease_secs: i64,
    now: i64,
) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE locks SET lease_until = ?3 WHERE name = ?1 AND owner = ?2",
        params![name, owner, now + lease_secs],
    )? > 0)
}

/// Releases a lock we hold.
pub fn release(conn: &Connection, name: &str, owner: &str) -> Result<()> {
    conn.execute(
        "DELETE FROM locks WHERE name = ?1 AND owner = ?2",
        params![name, owner],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn exclusive_until_released_expired_or_dead() {
        let path = std::env::temp_dir()
            .join(format!("memkit-locks-{}", crate::util::ids::new_uuid_v4()))
            .join("m.sqlite");
        let mut s = Store::open(&path).unwrap();
        let me = crate::util::process::worker_id();
        assert!(
            try_acquire(s.conn_mut(), "run", &me, 300, 1000)
                .unwrap()
                .is_ok()
        );
        let other = "memkit-1@elsewhere";
        let held = try_acquire(s.conn_mut(), "run", other, 300, 1001)
            .unwrap()
            .unwrap_err();
        assert_eq!(
            held,
            Holder {
                owner: me.clone(),
                acquired_at: 1000
            }
        );
        assert!(
            try_acquire(s.conn_mut(), "run", other, 300, 1400)
                .unwrap()
                .is_ok(),
            "expired lease"
        );
        assert!(
            !refresh(s.conn(), "run", &me, 300, 1401).unwrap(),
            "no longer ours"
        );
        release(s.conn(), "run", other).unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = format!("memkit-{}@{}", child.id(), crate::util::process::hostname());
        child.wait().unwrap();
        assert!(
            try_acquire(s.conn_mut(), "run", &dead, 300, 2000)
                .unwrap()
                .is_ok()
        );
        assert!(
            try_acquire(s.conn_mut(), "run", &me, 300, 2001)
                .unwrap()
                .is_ok(),
            "dead holder on this host"
        );
    }
}
