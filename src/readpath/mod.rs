//! The read path: what agents are given at start-up (`memkit inject`) and the
//! citation blocks they emit when they use a memory.

pub mod citations;
pub mod inject;

/// The start of the line that opens memkit's managed block in an agent's
/// instruction file (`AGENTS.md`, `GEMINI.md`).
pub const BLOCK_BEGIN_MARKER: &str = "<!-- memkit:begin";
/// The line that opens the memory summary inside the read-path block.
pub const SUMMARY_BEGINS_MARKER: &str = "========= MEMORY_SUMMARY BEGINS =========";
/// The line that closes it.
pub const SUMMARY_ENDS_MARKER: &str = "========= MEMORY_SUMMARY ENDS =========";
/// How each part of a block split over Claude Code hook values begins.
pub const PART_HEADER_PREFIX: &str = "[memkit memory, part ";
