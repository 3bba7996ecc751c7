//! The offline, deterministic backends: rule-based extraction and consolidation.

mod commands;
mod extract;
mod facts;
mod render;
mod shell;
mod signals;

pub use extract::{HeuristicExtractor, extract_output};
