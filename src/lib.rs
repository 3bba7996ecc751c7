//! memkit: distils coding-agent session logs (OpenAI Codex rollouts, Claude Code
//! transcripts) into a long-term memory folder in Codex's own layout, which
//! future agent sessions read at start-up.
//!
//! The pipeline is a set of synchronous stages over one SQLite database. The
//! library is what the `memkit` binary, the tests and the benchmarks use.

pub mod agents;
pub mod backends;
pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod error;
pub mod mcp;
pub mod memory;
pub mod modelinput;
pub mod readpath;
pub mod redact;
pub mod search;
pub mod sources;
pub mod stages;
pub mod store;
pub mod templates;
pub mod ui;
pub mod util;

pub use error::{Error, Result};
