//! Messages for people on stderr; machine output goes to stdout.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);
static RUN_LOG: Mutex<Option<File>> = Mutex::new(None);

/// How many run logs are kept.
pub const KEEP_RUN_LOGS: usize = 30;

/// Starts a per-run log file in `dir` (every message also goes there) and
/// deletes all but the newest [`KEEP_RUN_LOGS`]. Returns its path.
pub fn start_run_log(dir: &Path, run_id: &str, now: i64) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let short: String = run_id.chars().take(8).collect();
    let path = dir.join(format!(
        "run-{}-{short}.log",
        crate::util::time::file_stamp(now)
    ));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    *RUN_LOG.lock().unwrap_or_else(|e| e.into_inner()) = Some(file);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with("run-") && n.to_string_lossy().ends_with(".log")
            })
        })
        .collect();
    logs.sort();
    let excess = logs.len().saturating_sub(KEEP_RUN_LOGS);
    for old in &logs[..excess] {
        let _ = std::fs::remove_file(old);
    }
    Ok(path)
}

/// Writes a line to the run log, if one is open, in one write: the log is
/// unbuffered, so a line never interleaves with another process's.
pub fn log_line(msg: &str) {
    if let Some(f) = RUN_LOG.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let line = format!(
            "{} {msg}\n",
            crate::util::time::rfc3339(crate::util::time::now_secs())
        );
        let _ = f.write_all(line.as_bytes());
    }
}

/// Writes `line` and a line break to stderr in one write (stderr is
/// unbuffered: `eprintln!` writes each piece of its format on its own).
fn to_stderr(line: std::fmt::Arguments<'_>) {
    let mut text = line.to_string();
    text.push('\n');
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Silences informational messages (errors and warnings still print).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// An informational line on stderr (suppressed by `--quiet`).
pub fn info(msg: impl AsRef<str>) {
    log_line(msg.as_ref());
    if !QUIET.load(Ordering::Relaxed) {
        to_stderr(format_args!("{}", msg.as_ref()));
    }
}

/// A warning on stderr.
pub fn warn(msg: impl AsRef<str>) {
    log_line(&format!("warning: {}", msg.as_ref()));
    to_stderr(format_args!("memkit: warning: {}", msg.as_ref()));
}

/// Prints one JSON value as a line on stdout.
pub fn json_line(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(s) => write_stdout(format_args!("{s}\n")),
        Err(e) => warn(format!("could not render JSON: {e}")),
    }
}

/// Writes to stdout; a closed pipe (`memkit … | head`) ends the process quietly
/// with exit code 0 instead of a panic.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        let err = stdout_error(e);
        eprintln!("memkit: error: {err}");
        std::process::exit(err.exit_code());
    }
}

/// Turns an error writing stdout into memkit's error; a closed pipe
/// (`memkit … | head`) ends the process quietly with exit code 0 instead.
pub fn stdout_error(e: std::io::Error) -> crate::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    crate::Error::failed(format!("writing to stdout: {e}"))
}

/// `println!` for command output: see [`write_stdout`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::ui::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::ui::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}
