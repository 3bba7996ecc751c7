//! The session catalog: finding session files, reading the changed ones, and
//! deciding which sessions are eligible for extraction.

pub mod eligibility;
pub mod problems;
pub mod read_ahead;
mod scan;

pub use problems::{FileProblem, file_problems};
pub use scan::{FileReplies, ScanReport, index_file, scan, scan_reading_ahead};
