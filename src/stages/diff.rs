//! `memkit diff`: what changed in the memory folder since its git baseline,
//! and `phase2_workspace_diff.md` for the consolidation backend.

use crate::error::{IoContext, Result};
use crate::memory::diff::{render_workspace_diff_file, unified};
use crate::memory::git::{Baseline, Change};
use crate::memory::{WORKSPACE_DIFF_MD, layout};
use std::path::Path;

/// The memory folder compared with its baseline.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The baseline repository.
    pub baseline: Baseline,
    /// Changes since the baseline, sorted by path.
    pub changes: Vec<Change>,
}

/// Opens (creating if needed) the baseline and lists the changes. A stale
/// diff file is removed first so it never shows up in a diff.
pub fn inspect(root: &Path) -> Result<Workspace> {
    layout::refuse_symlinked_root(root)?;
    std::fs::create_dir_all(root).at(root)?;
    layout::remove_stale_temp_files(root)?;
    remove_diff_file(root)?;
    let baseline = Baseline::open_or_create(root)?;
    let changes = baseline.changes()?;
    Ok(Workspace { baseline, changes })
}

/// Deletes `phase2_workspace_diff.md` if present.
pub fn remove_diff_file(root: &Path) -> Result<()> {
    let path = root.join(WORKSPACE_DIFF_MD);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(crate::error::Error::io(&path, e))
        }
        _ => Ok(()),
    }
}

/// Writes `phase2_workspace_diff.md` (diff cut at 4 MiB) and returns its text.
pub fn write_diff_file(root: &Path, ws: &Workspace) -> Result<String> {
    let diff = unified(&ws.baseline, &ws.changes)?;
    let text = render_workspace_diff_file(&ws.changes, &diff);
    layout::write_file(root, WORKSPACE_DIFF_MD, text.as_bytes())?;
    Ok(text)
}
