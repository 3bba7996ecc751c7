//! The offline, deterministic backends: rule-based extraction and consolidation.

mod commands;
mod consolidate;
mod digest;
mod extract;
mod facts;
mod memory_md;
mod notes;
mod rawparse;
mod render;
mod shell;
mod signals;
mod summary_md;
mod tally;

pub use consolidate::{HeuristicConsolidator, consolidate_files};
pub use extract::{HeuristicExtractor, extract_output};
