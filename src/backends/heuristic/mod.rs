//! The offline, deterministic backends: rule-based extraction and consolidation.
