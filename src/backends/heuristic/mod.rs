//! The offline, deterministic backends: rule-based extraction and consolidation.

/// The name the offline backends record as their model (free in the price table).
pub const MODEL: &str = "rules-v1";
mod commands;
mod consolidate;
mod curate;
mod digest;
mod envfacts;
mod extract;
mod facts;
mod memory_md;
mod notes;
mod poison;
mod rawparse;
mod render;
mod repeats;
mod shell;
mod signals;
mod summary_md;
mod supersede;
mod tally;

pub use consolidate::{HeuristicConsolidator, consolidate_files};
pub use extract::{HeuristicExtractor, extract_output};
