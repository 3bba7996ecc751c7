//! The pipeline stages, one module each. Every stage is idempotent, safe to
//! re-run, and safe against a second memkit process running at the same time.

pub mod cite_import;
pub mod consolidate;
pub mod diff;
pub mod extract;
pub mod keepalive;
pub mod prune;
mod record;
pub mod run;
pub mod spend;
pub mod sync;

pub use record::{StageOutcome, record_spend, record_stage};
