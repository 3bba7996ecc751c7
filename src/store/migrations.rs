//! Versioned schema migrations, tracked in `PRAGMA user_version`.

use crate::error::{Error, Result};
use rusqlite::{Connection, TransactionBehavior};
use std::path::Path;

/// Migrations in order; migration `i` brings the schema to version `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: catalog, Codex's stage-1 outputs and jobs, citations, runs.
    r#"
    CREATE TABLE threads (
        id                 TEXT PRIMARY KEY,
        tool               TEXT NOT NULL,
        rollout_path       TEXT NOT NULL,
        file_size          INTEGER NOT NULL,
        file_mtime_ns      INTEGER NOT NULL,
        created_at         INTEGER,
        updated_at         INTEGER NOT NULL,
        cwd                TEXT,
        git_branch         TEXT,
        source             TEXT NOT NULL DEFAULT 'unknown',
        originator         TEXT,
        cli_version        TEXT,
        model              TEXT,
        parent_thread_id   TEXT,
        memory_mode        TEXT NOT NULL DEFAULT 'enabled',
        archived           INTEGER NOT NULL DEFAULT 0,
        preview            TEXT NOT NULL DEFAULT '',
        human_turns        INTEGER NOT NULL DEFAULT 0,
        assistant_messages INTEGER NOT NULL DEFAULT 0,
        tool_calls         INTEGER NOT NULL DEFAULT 0,
        malformed_lines    INTEGER NOT NULL DEFAULT 0,
        read_error         TEXT,
        forgotten_at       INTEGER,
        present            INTEGER NOT NULL DEFAULT 1,
        scanned_at         INTEGER NOT NULL
    );
    CREATE INDEX idx_threads_path ON threads(rollout_path);

    CREATE TABLE session_files (
        path        TEXT PRIMARY KEY,
        tool        TEXT NOT NULL,
        size        INTEGER NOT NULL,
        mtime_ns    INTEGER NOT NULL,
        thread_id   TEXT NOT NULL,
        read_error  TEXT,
        scanned_at  INTEGER NOT NULL
    );
    CREATE INDEX idx_threads_updated_at ON threads(updated_at DESC, id DESC);

    CREATE TABLE stage1_outputs (
        thread_id                              TEXT PRIMARY KEY,
        source_updated_at                      INTEGER NOT NULL,
        raw_memory                             TEXT NOT NULL,
        rollout_summary                        TEXT NOT NULL,
        rollout_slug                           TEXT,
        generated_at                           INTEGER NOT NULL,
        usage_count                            INTEGER,
        last_usage                             INTEGER,
        selected_for_phase2                    INTEGER NOT NULL DEFAULT 0,
        selected_for_phase2_source_updated_at  INTEGER,
        backend                                TEXT,
        model                                  TEXT,
        tokens_in                              INTEGER,
        tokens_out                             INTEGER
    );
    CREATE INDEX idx_stage1_outputs_source_updated_at
        ON stage1_outputs(source_updated_at DESC, thread_id DESC);

    CREATE TABLE jobs (
        kind                    TEXT NOT NULL,
        job_key                 TEXT NOT NULL,
        status                  TEXT NOT NULL,
        worker_id               TEXT,
        ownership_token         TEXT,
        started_at              INTEGER,
        finished_at             INTEGER,
        lease_until             INTEGER,
        retry_at                INTEGER,
        retry_remaining         INTEGER NOT NULL,
        last_error              TEXT,
        input_watermark         INTEGER,
        last_success_watermark  INTEGER,
        PRIMARY KEY (kind, job_key)
    );
    CREATE INDEX idx_jobs_kind_status_retry_lease ON jobs(kind, status, retry_at, lease_until);

    CREATE TABLE citations (
        source_key   TEXT NOT NULL,
        line         INTEGER NOT NULL,
        reply_at     INTEGER,
        thread_ids   TEXT NOT NULL,
        imported_at  INTEGER NOT NULL,
        PRIMARY KEY (source_key, line)
    );

    CREATE TABLE runs (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id       TEXT NOT NULL,
        stage        TEXT NOT NULL,
        pid          INTEGER,
        started_at   INTEGER NOT NULL,
        finished_at  INTEGER,
        outcome      TEXT NOT NULL DEFAULT 'running',
        counts       TEXT,
        tokens_in    INTEGER NOT NULL DEFAULT 0,
        tokens_out   INTEGER NOT NULL DEFAULT 0,
        error        TEXT
    );
    CREATE INDEX idx_runs_started_at ON runs(started_at DESC);
    "#,
    // 2: which session files cite-import has read (size + mtime), so unchanged
    // files are not read again.
    r#"
    CREATE TABLE cite_scans (
        path        TEXT PRIMARY KEY,
        size        INTEGER NOT NULL,
        mtime_ns    INTEGER NOT NULL,
        scanned_at  INTEGER NOT NULL
    );
    "#,
    // 3: named locks (the `memkit run` lock).
    r#"
    CREATE TABLE locks (
        name         TEXT PRIMARY KEY,
        owner        TEXT NOT NULL,
        acquired_at  INTEGER NOT NULL,
        lease_until  INTEGER NOT NULL
    );
    "#,
    // 4: small facts memkit remembers between runs (e.g. the fingerprint of
    // Codex's thread index, so an unchanged index is not re-read).
    r#"
    CREATE TABLE kv (
        key    TEXT PRIMARY KEY,
        value  TEXT NOT NULL
    );
    "#,
    // 5: what was wrong with a session file that could still be read (the
    // malformed lines skipped, with their numbers), so every run reports it.
    r#"
    ALTER TABLE threads ADD COLUMN read_warning TEXT;
    "#,
    // 6: which process on which host runs a stage (`memkit-<pid>@<host>`), so
    // a run on another host sharing the database is not taken for killed.
    r#"
    ALTER TABLE runs ADD COLUMN worker TEXT;
    "#,
    // 7: the search index. `search_units` holds every memory unit (text as
    // in the file, `body` as indexed); `search_fts` indexes it (external
    // content, kept by triggers); `search_files` says which file version the
    // units came from; `search_vectors` caches embeddings by content key;
    // `session_fts` holds the compacted transcripts `search --sessions` reads.
    r#"
    CREATE TABLE search_units (
        id          INTEGER PRIMARY KEY,
        file        TEXT NOT NULL,
        line_start  INTEGER NOT NULL,
        line_end    INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        project     TEXT,
        sessions    TEXT NOT NULL DEFAULT '',
        date        INTEGER,
        key         TEXT NOT NULL,
        text        TEXT NOT NULL,
        body        TEXT NOT NULL,
        context     TEXT NOT NULL
    );
    CREATE INDEX idx_search_units_file ON search_units(file);
    CREATE VIRTUAL TABLE search_fts USING fts5(
        body, context,
        content = 'search_units', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER search_units_insert AFTER INSERT ON search_units BEGIN
        INSERT INTO search_fts(rowid, body, context) VALUES (new.id, new.body, new.context);
    END;
    CREATE TRIGGER search_units_delete AFTER DELETE ON search_units BEGIN
        INSERT INTO search_fts(search_fts, rowid, body, context)
            VALUES ('delete', old.id, old.body, old.context);
    END;
    CREATE TABLE search_files (
        file      TEXT PRIMARY KEY,
        size      INTEGER NOT NULL,
        mtime_ns  INTEGER NOT NULL,
        key       TEXT NOT NULL
    );
    CREATE TABLE search_vectors (
        key     TEXT NOT NULL,
        model   TEXT NOT NULL,
        vector  BLOB NOT NULL,
        PRIMARY KEY (key, model)
    );
    CREATE VIRTUAL TABLE session_fts USING fts5(
        body, thread_id UNINDEXED, project UNINDEXED, date UNINDEXED,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TABLE session_index (
        thread_id      TEXT PRIMARY KEY,
        file_size      INTEGER NOT NULL,
        file_mtime_ns  INTEGER NOT NULL,
        fts_rowid      INTEGER
    );
    "#,
    // 8: the cost ledger (one row per model call, priced when recorded) and
    // the OpenAI batches in flight with the sessions each one holds.
    r#"
    CREATE TABLE ledger (
        id          INTEGER PRIMARY KEY,
        run_id      TEXT NOT NULL,
        stage       TEXT NOT NULL,
        at          INTEGER NOT NULL,
        model       TEXT NOT NULL,
        mode        TEXT NOT NULL,
        thread_id   TEXT,
        tokens_in   INTEGER NOT NULL,
        cached_in   INTEGER NOT NULL,
        tokens_out  INTEGER NOT NULL,
        cost        REAL,
        sync_cost   REAL,
        codex_cost  REAL
    );
    CREATE INDEX idx_ledger_at ON ledger(at);
    CREATE INDEX idx_ledger_run ON ledger(run_id);
    CREATE TABLE batches (
        id             TEXT PRIMARY KEY,
        remote_id      TEXT,
        input_file_id  TEXT,
        state          TEXT NOT NULL,
        remote_status  TEXT,
        model          TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        submitted_at   INTEGER,
        expires_at     INTEGER,
        finished_at    INTEGER,
        sessions       INTEGER NOT NULL,
        error          TEXT
    );
    CREATE TABLE batch_items (
        batch_id           TEXT NOT NULL,
        thread_id          TEXT NOT NULL,
        token              TEXT NOT NULL,
        source_updated_at  INTEGER NOT NULL,
        prompt_bytes       INTEGER NOT NULL,
        codex_bytes        INTEGER,
        PRIMARY KEY (batch_id, thread_id)
    );
    "#,
    // 9: the phase-2 selection's columns in one covering index, so choosing
    // the outputs to consolidate never reads the outputs' texts (SQLite
    // stores the columns after them on overflow pages).
    r#"
    CREATE INDEX idx_stage1_outputs_selection
        ON stage1_outputs(thread_id, source_updated_at, usage_count, last_usage,
                          selected_for_phase2, selected_for_phase2_source_updated_at);
    "#,
    // 10: what cite-import last read of a session moves into its catalog
    // row, so finding the sessions to read again is one pass over `threads`
    // instead of a path lookup per session; the sessions with read problems
    // get a partial index, since every run lists them.
    r#"
    ALTER TABLE threads ADD COLUMN cite_scanned_size INTEGER;
    ALTER TABLE threads ADD COLUMN cite_scanned_mtime_ns INTEGER;
    UPDATE threads SET cite_scanned_size = c.size, cite_scanned_mtime_ns = c.mtime_ns
        FROM cite_scans c WHERE c.path = threads.rollout_path;
    DROP TABLE cite_scans;
    CREATE INDEX idx_threads_read_problems ON threads(rollout_path)
        WHERE read_error IS NOT NULL OR read_warning IS NOT NULL;
    "#,
    // 11: the phase-2 ranking in index order, so choosing the outputs to
    // consolidate reads about as many index entries as it takes instead of
    // sorting every output; the month's spending summed from an index alone.
    r#"
    CREATE INDEX idx_stage1_outputs_rank ON stage1_outputs(
        COALESCE(usage_count, 0) DESC, COALESCE(last_usage, source_updated_at) DESC,
        source_updated_at DESC, thread_id DESC, last_usage, usage_count);
    CREATE INDEX idx_ledger_month ON ledger(at, tokens_in, tokens_out, cost, sync_cost, codex_cost);
    DROP INDEX idx_ledger_at;
    "#,
    // 12: the extraction watermarks recorded on jobs read from an index
    // alone, not one table lookup per session on every run.
    r#"
    CREATE INDEX idx_jobs_success_watermark ON jobs(kind, job_key, last_success_watermark)
        WHERE last_success_watermark IS NOT NULL;
    "#,
    // 13: the sessions cite-import has still to read, from an index that
    // holds only them (none on a quiet night) instead of one table lookup
    // per session of the window.
    r#"
    CREATE INDEX idx_threads_cite_pending ON threads(updated_at DESC, id DESC)
        WHERE present = 1 AND read_error IS NULL
          AND (cite_scanned_size IS NOT file_size OR cite_scanned_mtime_ns IS NOT file_mtime_ns);
    "#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Applies pending migrations in one immediate transaction.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::failed(format!(
            "{} has schema version {version}, written by a newer memkit; this memkit knows \
             version {SCHEMA_VERSION} and will not downgrade it (upgrade memkit)",
            path.display()
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)
            .map_err(|e| Error::failed(format!("{}: migration {}: {e}", path.display(), i + 1)))?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db() -> std::path::PathBuf {
        std::env::temp_dir()
            .join(format!("memkit-mig-{}", crate::util::ids::new_uuid_v4()))
            .join("memkit.sqlite")
    }

    #[test]
    fn fresh_database_reaches_current_version_and_reopens() {
        let path = temp_db();
        let store = crate::store::Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(store);
        let again = crate::store::Store::open(&path).unwrap();
        assert_eq!(again.schema_version().unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn what_cite_import_read_moves_into_the_catalog_rows() {
        let path = temp_db();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(&path).unwrap();
        for sql in &MIGRATIONS[..9] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 9).unwrap();
        for (id, file) in [("t-read", "/s/a.jsonl"), ("t-unread", "/s/b.jsonl")] {
            conn.execute(
                "INSERT INTO threads (id, tool, rollout_path, file_size, file_mtime_ns,
                    updated_at, scanned_at) VALUES (?1, 'codex', ?2, 10, 20, 30, 40)",
                [id, file],
            )
            .unwrap();
        }
        conn.execute(
            "INSERT INTO cite_scans (path, size, mtime_ns, scanned_at)
             VALUES ('/s/a.jsonl', 10, 20, 50)",
            [],
        )
        .unwrap();
        drop(conn);
        let store = crate::store::Store::open(&path).unwrap();
        let unread: Vec<String> = crate::store::threads::not_cite_scanned_since(store.conn(), 0)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(unread, vec!["t-unread".to_string()]);
    }

    #[test]
    fn newer_database_is_refused() {
        let path = temp_db();
        drop(crate::store::Store::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(conn);
        let err = crate::store::Store::open(&path).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("newer memkit"), "{msg}");
        assert!(msg.contains("memkit.sqlite"), "{msg}");
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            v,
            SCHEMA_VERSION + 1,
            "the newer file must be left as it was"
        );
    }
}
