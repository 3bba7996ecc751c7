//! Messages for people on stderr; machine output goes to stdout.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences informational messages (errors and warnings still print).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// An informational line on stderr (suppressed by `--quiet`).
pub fn info(msg: impl AsRef<str>) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{}", msg.as_ref());
    }
}

/// A warning on stderr.
pub fn warn(msg: impl AsRef<str>) {
    eprintln!("memkit: warning: {}", msg.as_ref());
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
    use std::io::Write;
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
