//! The one error type of memkit and the exit codes it maps to.
//!
//! Exit codes follow the CLI contract: 0 success, 1 the work failed, 2 usage or
//! configuration error.

use std::fmt;
use std::path::Path;

/// What went wrong, as far as the exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad flags or a bad configuration file (exit 2).
    Usage,
    /// The work itself failed: I/O, database, a backend (exit 1).
    Failed,
}

/// An error with a human-readable, one-line message.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

/// Result alias used throughout memkit.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A usage or configuration error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Usage,
            message: message.into(),
        }
    }

    /// A failure of the work itself (exit code 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Failed,
            message: message.into(),
        }
    }

    /// An I/O error about a specific path.
    pub fn io(path: &Path, err: std::io::Error) -> Self {
        Error::failed(format!("{}: {err}", path.display()))
    }

    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::Usage => 2,
            ErrorKind::Failed => 1,
        }
    }

    /// Prefixes the message with context, keeping the kind.
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error {
            kind: self.kind,
            message: format!("{context}: {}", self.message),
        }
    }

    /// The message without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Error::failed(format!("database: {err}"))
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Error::failed(format!("json: {err}"))
    }
}

/// Adds path context to I/O results.
pub trait IoContext<T> {
    /// Converts an I/O error into an [`Error`] naming `path`.
    fn at(self, path: &Path) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &Path) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
