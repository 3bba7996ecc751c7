//! The memory-quality corpus and its scorer (issue 13), shared by
//! `tests/memory_quality.rs` and `benches/quality.rs`.
//!
//! [`generator`] writes a corpus directory (Codex rollouts, Claude Code
//! transcripts and the answer key `key.json`), [`run`] runs memkit over it the
//! way a new user would, and [`score`] reads the memory folder memkit wrote and
//! measures it against the key ([`key`]), line by line ([`claims`]).

pub mod claims;
pub mod generator;
pub mod key;
pub mod run;
pub mod score;
