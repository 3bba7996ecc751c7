//! Checks on consolidated artifacts before they become the new baseline.

use super::{MEMORY_MD, MEMORY_SUMMARY_MD};
use crate::error::{Error, IoContext, Result};
use crate::util::fsx::is_regular_file;
use std::fs;
use std::path::Path;

/// Largest `memory_summary.md`, so the 2,500-token read budget never cuts it.
pub const MAX_SUMMARY_BYTES: usize = 10_000;

/// Largest `MEMORY.md`: a handbook agents search, not a dump (a model once
/// answered 200 MB).
pub const MAX_MEMORY_BYTES: usize = 2 << 20;

/// Checks the content of a proposed `MEMORY.md` and `memory_summary.md`.
pub fn validate_files(memory_md: &str, summary: &str) -> Result<()> {
    if memory_md.trim().is_empty() {
        return Err(Error::failed("MEMORY.md is empty"));
    }
    if memory_md.len() > MAX_MEMORY_BYTES {
        return Err(Error::failed(format!(
            "MEMORY.md is {} bytes; at most {MAX_MEMORY_BYTES} are kept",
            memory_md.len()
        )));
    }
    if summary.lines().next() != Some("v1") {
        return Err(Error::failed(
            "memory_summary.md must start with the line `v1`",
        ));
    }
    if summary.len() > MAX_SUMMARY_BYTES {
        return Err(Error::failed(format!(
            "memory_summary.md is {} bytes; at most {MAX_SUMMARY_BYTES} fit the read budget",
            summary.len()
        )));
    }
    let lower = summary.to_lowercase();
    for group in task_groups(memory_md) {
        let last = group
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&group)
            .to_lowercase();
        if !lower.contains(&group.to_lowercase()) && !lower.contains(&last) {
            return Err(Error::failed(format!(
                "MEMORY.md has the task group {group:?}, which memory_summary.md does not mention"
            )));
        }
    }
    Ok(())
}

/// The names of the `# Task Group:` headings of a `MEMORY.md`.
pub fn task_groups(memory_md: &str) -> Vec<String> {
    memory_md
        .lines()
        .filter_map(|l| l.strip_prefix("# Task Group:"))
        .map(|g| g.trim().to_string())
        .filter(|g| !g.is_empty())
        .collect()
}

/// Whether the current artifacts are valid, without touching the folder.
pub fn check_artifacts(root: &Path) -> Result<()> {
    let memory = read_artifact(root, MEMORY_MD)?;
    let summary = read_artifact(root, MEMORY_SUMMARY_MD)?;
    validate_files(&memory, &summary)
}

/// The text of the artifact `name`, which must be a regular file (never a link).
fn read_artifact(root: &Path, name: &str) -> Result<String> {
    let path = root.join(name);
    if !is_regular_file(&path) {
        return Err(Error::failed(format!(
            "{name} is missing or not a regular file"
        )));
    }
    fs::read_to_string(&path).at(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_rules() {
        let memory = "# Task Group: /home/dev/shop\nscope: x\n";
        assert!(validate_files(memory, "v1\n## What's in Memory\n### shop\n").is_ok());
        assert!(validate_files(memory, "v2\nshop\n").is_err());
        assert!(validate_files(memory, " v1\nshop").is_err());
        assert!(validate_files(memory, "v1\nnothing about it\n").is_err());
        let big = format!("v1\nshop\n{}", "x".repeat(MAX_SUMMARY_BYTES));
        assert!(
            validate_files(memory, &big)
                .unwrap_err()
                .to_string()
                .contains("bytes")
        );
        assert!(validate_files("", "v1\n").is_err());
        let huge = format!("{memory}{}", "- a line\n".repeat(MAX_MEMORY_BYTES / 9 + 1));
        let err = validate_files(&huge, "v1\nshop\n").unwrap_err().to_string();
        assert!(
            err.contains("MEMORY.md is") && err.contains("at most"),
            "{err}"
        );
    }
}
