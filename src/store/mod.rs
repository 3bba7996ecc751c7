//! The SQLite state database: one connection per process, WAL, versioned migrations.
//!
//! Tables follow Codex's column names where Codex has them (`stage1_outputs`,
//! `jobs`), plus memkit's own `threads` catalog, `citations` and `runs`.

use crate::error::{Error, IoContext, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub mod batches;
pub mod forget;
pub mod jobs;
pub mod kv;
pub mod ledger;
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
        let conn = while_busy(
            || {
                let conn = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_WRITE
                        | OpenFlags::SQLITE_OPEN_CREATE
                        | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&conn)?;
                Ok(conn)
            },
            |e| {
                matches!(e, rusqlite::Error::SqliteFailure(e, _) if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ))
            },
        )
        .map_err(|e| Error::failed(format!("{}: {e}", path.display())))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        // The migration's errors are memkit's, which carry SQLite's text.
        while_busy(
            || migrations::migrate(&mut store.conn, path),
            |e| e.to_string().contains("database is locked"),
        )?;
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

/// How long opening waits for other processes that create or migrate the
/// same database at the same moment.
const OPEN_PATIENCE: Duration = Duration::from_secs(30);

/// A short pause with jitter, so processes that collided do not collide again.
fn retry_pause() -> Duration {
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 40_000_000);
    Duration::from_millis(10) + Duration::from_nanos(jitter as u64)
}

/// Runs `f` again while its error says SQLite is busy or locked (`busy`):
/// creating or migrating a new database needs it alone, and switching it to
/// WAL is answered without waiting on the busy handler.
fn while_busy<T, E>(
    mut f: impl FnMut() -> std::result::Result<T, E>,
    busy: impl Fn(&E) -> bool,
) -> std::result::Result<T, E> {
    let deadline = Instant::now() + OPEN_PATIENCE;
    loop {
        match f() {
            Err(e) if busy(&e) && Instant::now() < deadline => std::thread::sleep(retry_pause()),
            other => return other,
        }
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
        // SQLite keeps the old mode when another connection holds the file:
        // treated as busy, so the open is tried again.
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some(format!(
                "journal mode stays {mode}, not wal: another process holds the database, or \
                 its filesystem cannot hold a WAL database (a network filesystem?)"
            )),
        ));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    // Reads through a memory map rather than a pread per page: a search
    // over a large memory reads hundreds of index pages (about 6 % of its
    // time). WAL, required above, already rules out network filesystems.
    conn.pragma_update(None, "mmap_size", 268_435_456i64)?;
    keep_wal_files(conn);
    Ok(())
}

/// Leaves the `-wal` and `-shm` files in place when the last connection
/// closes (checkpointed, so the database file alone is complete): each
/// `memkit search` is a process of its own, and creating, zero-filling
/// and deleting both files again took about a tenth of a question's time.
fn keep_wal_files(conn: &Connection) {
    let mut on: std::ffi::c_int = 1;
    // SAFETY: the handle is this open connection's; SQLITE_FCNTL_PERSIST_WAL
    // reads and writes the one int it is given, which outlives the call.
    // A VFS without the option answers SQLITE_NOTFOUND, which changes nothing.
    unsafe {
        rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
            (&raw mut on).cast(),
        );
    }
}
