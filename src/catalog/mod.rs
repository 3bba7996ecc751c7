//! The session catalog: finding session files, reading the changed ones, and
//! deciding which sessions are eligible for extraction.

pub mod eligibility;
mod scan;

pub use scan::{ScanReport, index_file, scan};
