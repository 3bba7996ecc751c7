//! The pipeline stages, one module each. Every stage is idempotent, safe to
//! re-run, and safe against a second memkit process running at the same time.

pub mod extract;
mod record;

pub use record::{StageOutcome, record_stage};
