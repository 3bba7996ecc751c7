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
    // 14: a session's extraction watermark (the larger of its output's
    // `source_updated_at` and its stage-1 job's `last_success_watermark`)
    // kept on its catalog row by triggers, whatever writes outputs or jobs,
    // and every eligibility fact in one narrow covering index: judging a
    // catalog of 10,000 sessions reads about 0.7 MB of index instead of the
    // table's 4 MB plus 20,000 watermark rows matched up in memory. The
    // fingerprint of the recorded session files that a full scan leaves in
    // `kv` is dropped by any other write to them, so a quiet night is
    // recognised by one hash of the walk instead of a pass over the
    // recorded files. Each month's spending added up as calls are booked,
    // so a run's summary reads one row instead of summing the month's
    // calls. Prune's candidates in its order, so a night with none reads no
    // entry.
    r#"
    CREATE VIEW stage1_watermarks (thread_id, watermark) AS
        SELECT thread_id, source_updated_at FROM stage1_outputs
        UNION ALL
        SELECT job_key, last_success_watermark FROM jobs WHERE kind = 'memory_stage1';
    ALTER TABLE threads ADD COLUMN extracted_through INTEGER;
    UPDATE threads SET extracted_through = w.watermark
      FROM (SELECT thread_id, max(watermark) AS watermark FROM stage1_watermarks
            GROUP BY thread_id) AS w
     WHERE w.thread_id = threads.id;
    CREATE TRIGGER extracted_through_on_output_insert
        AFTER INSERT ON stage1_outputs BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = NEW.thread_id)
         WHERE id = NEW.thread_id;
    END;
    CREATE TRIGGER extracted_through_on_output_update
        AFTER UPDATE OF thread_id, source_updated_at ON stage1_outputs BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = OLD.thread_id)
         WHERE id = OLD.thread_id;
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = NEW.thread_id)
         WHERE id = NEW.thread_id;
    END;
    CREATE TRIGGER extracted_through_on_output_delete
        AFTER DELETE ON stage1_outputs BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = OLD.thread_id)
         WHERE id = OLD.thread_id;
    END;
    CREATE TRIGGER extracted_through_on_job_insert
        AFTER INSERT ON jobs
        WHEN NEW.kind = 'memory_stage1' BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = NEW.job_key)
         WHERE id = NEW.job_key;
    END;
    CREATE TRIGGER extracted_through_on_job_update
        AFTER UPDATE OF kind, job_key, last_success_watermark ON jobs
        WHEN NEW.kind = 'memory_stage1' OR OLD.kind = 'memory_stage1' BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = OLD.job_key)
         WHERE id = OLD.job_key;
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = NEW.job_key)
         WHERE id = NEW.job_key;
    END;
    CREATE TRIGGER extracted_through_on_job_delete
        AFTER DELETE ON jobs
        WHEN OLD.kind = 'memory_stage1' BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = OLD.job_key)
         WHERE id = OLD.job_key;
    END;
    CREATE TRIGGER extracted_through_on_thread_insert
        AFTER INSERT ON threads
        WHEN EXISTS (SELECT 1 FROM stage1_watermarks WHERE thread_id = NEW.id) BEGIN
        UPDATE threads SET extracted_through =
            (SELECT max(watermark) FROM stage1_watermarks WHERE thread_id = NEW.id)
         WHERE id = NEW.id;
    END;
    CREATE INDEX idx_threads_facts ON threads(tool, id, read_error, present, forgotten_at,
        memory_mode, source, archived, human_turns, updated_at, extracted_through);
    DROP INDEX idx_jobs_success_watermark;
    CREATE TRIGGER session_files_fingerprint_on_insert AFTER INSERT ON session_files BEGIN
        DELETE FROM kv WHERE key = 'session_files_fingerprint';
    END;
    CREATE TRIGGER session_files_fingerprint_on_update AFTER UPDATE ON session_files BEGIN
        DELETE FROM kv WHERE key = 'session_files_fingerprint';
    END;
    CREATE TRIGGER session_files_fingerprint_on_delete AFTER DELETE ON session_files BEGIN
        DELETE FROM kv WHERE key = 'session_files_fingerprint';
    END;

    CREATE TABLE ledger_months (
        month_start     INTEGER PRIMARY KEY,
        calls           INTEGER NOT NULL,
        priced_calls    INTEGER NOT NULL,
        tokens_in       INTEGER NOT NULL,
        tokens_out      INTEGER NOT NULL,
        cost            REAL NOT NULL,
        sync_cost       REAL NOT NULL,
        codex_cost      REAL NOT NULL,
        codex_calls     INTEGER NOT NULL
    );
    INSERT INTO ledger_months
        SELECT CAST(strftime('%s', at, 'unixepoch', 'start of month') AS INTEGER), count(*),
               count(cost), sum(tokens_in), sum(tokens_out), COALESCE(sum(cost), 0),
               COALESCE(sum(sync_cost), 0), COALESCE(sum(codex_cost), 0), count(codex_cost)
          FROM ledger GROUP BY 1;
    CREATE TRIGGER ledger_months_on_insert AFTER INSERT ON ledger BEGIN
        INSERT INTO ledger_months VALUES (
            CAST(strftime('%s', NEW.at, 'unixepoch', 'start of month') AS INTEGER), 1,
            NEW.cost IS NOT NULL, NEW.tokens_in, NEW.tokens_out, COALESCE(NEW.cost, 0),
            COALESCE(NEW.sync_cost, 0), COALESCE(NEW.codex_cost, 0), NEW.codex_cost IS NOT NULL)
        ON CONFLICT (month_start) DO UPDATE SET
            calls = calls + 1, priced_calls = priced_calls + excluded.priced_calls,
            tokens_in = tokens_in + excluded.tokens_in,
            tokens_out = tokens_out + excluded.tokens_out, cost = cost + excluded.cost,
            sync_cost = sync_cost + excluded.sync_cost,
            codex_cost = codex_cost + excluded.codex_cost,
            codex_calls = codex_calls + excluded.codex_calls;
    END;
    DROP INDEX idx_ledger_month;

    CREATE INDEX idx_stage1_outputs_prune ON stage1_outputs(
        COALESCE(last_usage, source_updated_at), source_updated_at, thread_id, usage_count)
        WHERE selected_for_phase2 = 0;
    "#,
    // 15: how many units hold each common search term (see
    // `search::term_docs`); the unit count is dropped so that the first
    // refresh counts again and fills the new table.
    r#"
    CREATE TABLE search_term_docs (
        term  TEXT PRIMARY KEY,
        docs  INTEGER NOT NULL
    ) WITHOUT ROWID;
    DELETE FROM kv WHERE key = 'search_unit_count';
    "#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Applies pending migrations in one immediate transaction. A database
/// already at this build's version is only read (every process opens the
/// database, and taking the write lock to learn that is a cost per open).
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current == SCHEMA_VERSION {
        return Ok(());
    }
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

    fn extracted_through(conn: &Connection, id: &str) -> Option<i64> {
        conn.query_row(
            "SELECT extracted_through FROM threads WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap()
    }

    fn add_thread(conn: &Connection, id: &str) {
        conn.execute(
            "INSERT INTO threads (id, tool, rollout_path, file_size, file_mtime_ns,
                updated_at, scanned_at) VALUES (?1, 'codex', ?1, 10, 20, 30, 40)",
            [id],
        )
        .unwrap();
    }

    fn add_output(conn: &Connection, id: &str, source_updated_at: i64) {
        conn.execute(
            "INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory,
                rollout_summary, generated_at) VALUES (?1, ?2, 'm', 's', 0)",
            rusqlite::params![id, source_updated_at],
        )
        .unwrap();
    }

    fn add_job(conn: &Connection, kind: &str, id: &str, watermark: Option<i64>) {
        conn.execute(
            "INSERT INTO jobs (kind, job_key, status, retry_remaining, last_success_watermark)
             VALUES (?1, ?2, 'done', 3, ?3)",
            rusqlite::params![kind, id, watermark],
        )
        .unwrap();
    }

    #[test]
    fn the_extraction_watermark_follows_every_write_of_outputs_and_jobs() {
        let path = temp_db();
        let store = crate::store::Store::open(&path).unwrap();
        let conn = store.conn();
        add_thread(conn, "t");
        assert_eq!(extracted_through(conn, "t"), None);
        add_job(conn, "memory_stage1", "t", Some(100));
        assert_eq!(extracted_through(conn, "t"), Some(100));
        add_output(conn, "t", 150);
        assert_eq!(extracted_through(conn, "t"), Some(150), "the larger one");
        conn.execute(
            "UPDATE jobs SET last_success_watermark = 200 WHERE job_key = 't'",
            [],
        )
        .unwrap();
        assert_eq!(extracted_through(conn, "t"), Some(200));
        conn.execute(
            "UPDATE stage1_outputs SET source_updated_at = 120 WHERE thread_id = 't'",
            [],
        )
        .unwrap();
        assert_eq!(extracted_through(conn, "t"), Some(200));
        conn.execute("DELETE FROM jobs WHERE job_key = 't'", [])
            .unwrap();
        assert_eq!(
            extracted_through(conn, "t"),
            Some(120),
            "the output's, alone"
        );
        conn.execute("DELETE FROM stage1_outputs WHERE thread_id = 't'", [])
            .unwrap();
        assert_eq!(extracted_through(conn, "t"), None, "nothing left");
        // An upper-case spelling is another id, as it is to SQLite.
        add_job(conn, "memory_stage1", "T", Some(500));
        assert_eq!(extracted_through(conn, "t"), None);
        // Another kind of job with the same key is not an extraction.
        add_job(conn, "memory_consolidate_global", "t", Some(999));
        assert_eq!(extracted_through(conn, "t"), None);
        // Outputs and jobs recorded before the session's row are found when it is.
        add_output(conn, "later", 70);
        add_job(conn, "memory_stage1", "later", Some(60));
        add_thread(conn, "later");
        assert_eq!(extracted_through(conn, "later"), Some(70));
        // A re-scan of the session leaves it alone.
        let mut row = crate::store::threads::get(conn, "later").unwrap().unwrap();
        row.updated_at = 80;
        row.extracted_through = None;
        crate::store::threads::upsert(conn, &row).unwrap();
        assert_eq!(extracted_through(conn, "later"), Some(70));
    }

    #[test]
    fn any_write_to_the_recorded_files_drops_their_fingerprint() {
        let path = temp_db();
        let store = crate::store::Store::open(&path).unwrap();
        let conn = store.conn();
        let key = crate::store::session_files::FINGERPRINT_KEY;
        let fingerprint = || crate::store::kv::get(conn, key).unwrap();
        for write in [
            "INSERT INTO session_files (path, tool, size, mtime_ns, thread_id, scanned_at)
             VALUES ('/s/a.jsonl', 'codex', 1, 2, 't', 3)",
            "UPDATE session_files SET size = 5 WHERE path = '/s/a.jsonl'",
            "DELETE FROM session_files WHERE path = '/s/a.jsonl'",
        ] {
            crate::store::kv::set(conn, key, "1:0123456789abcdef").unwrap();
            conn.execute(write, []).unwrap();
            assert_eq!(fingerprint(), None, "{write}");
        }
    }

    #[test]
    fn upgrading_fills_in_the_extraction_watermarks() {
        let path = temp_db();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(&path).unwrap();
        for sql in &MIGRATIONS[..13] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 13).unwrap();
        for id in ["output-only", "job-only", "both", "neither"] {
            add_thread(&conn, id);
        }
        add_output(&conn, "output-only", 10);
        add_job(&conn, "memory_stage1", "job-only", Some(20));
        add_output(&conn, "both", 30);
        add_job(&conn, "memory_stage1", "both", Some(25));
        add_job(&conn, "memory_stage1", "neither", None);
        // Two calls in November 2026, one unpriced, and one in December.
        for (at, cost) in [
            (1_793_491_200, Some(0.5)),
            (1_796_083_199, None),
            (1_796_083_200, Some(2.0)),
        ] {
            conn.execute(
                "INSERT INTO ledger (run_id, stage, at, model, mode, tokens_in, cached_in,
                    tokens_out, cost, sync_cost) VALUES ('r', 'extract', ?1, 'm', 'sync', 10, 0, 1, ?2, ?2)",
                rusqlite::params![at, cost],
            )
            .unwrap();
        }
        drop(conn);
        let store = crate::store::Store::open(&path).unwrap();
        let conn = store.conn();
        assert_eq!(extracted_through(conn, "output-only"), Some(10));
        assert_eq!(extracted_through(conn, "job-only"), Some(20));
        assert_eq!(extracted_through(conn, "both"), Some(30));
        assert_eq!(extracted_through(conn, "neither"), None);
        use crate::store::ledger::{Period, spend};
        let november = spend(conn, Period::Month(1_793_491_200)).unwrap();
        assert_eq!(
            (november.calls, november.unpriced_calls, november.tokens_in),
            (2, 1, 20)
        );
        assert!((november.cost - 0.5).abs() < 1e-9);
        assert_eq!(spend(conn, Period::Month(1_796_083_200)).unwrap().calls, 1);
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
