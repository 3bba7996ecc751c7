//! The SQLite state database: one connection per process, WAL, versioned migrations.
//!
//! Tables follow Codex's column names where Codex has them (`stage1_outputs`,
//! `jobs`), plus memkit's own `threads` catalog, `citations` and `runs`.

use crate::error::{Error, IoContext, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod jobs;
pub mod kv;
pub mod locks;
mod migrations;
pub mod runs;
pub mod session_files;
pub mod stage1;
pub mod threads;
pub mod usage;

pub use migrations::SCHEMA_VERSION;

/// An open state database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// A database written by a newer memkit is refused, never downgraded.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::failed(format!("{}: {e}", path.display())))?;
        configure(&conn).map_err(|e| Error::failed(format!("{}: {e}", path.display())))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        migrations::migrate(&mut store.conn, path)?;
        Ok(store)
    }

    /// The underlying connection.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The underlying connection, mutably (for transactions).
    pub fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Where the database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version recorded in the file.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    debug_assert!(mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory"));
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    Ok(())
}
