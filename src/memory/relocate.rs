//! Moving memkit's memory folder out of Codex's managed `~/.codex/memories`.
//!
//! Earlier memkit versions wrote to `<codex_home>/memories` by default, the
//! folder Codex's own memory writer re-baselines and empties whenever its
//! memory feature is on. The default is now `<memkit_home>/memories`. The
//! first command that uses the folder after the upgrade moves a memkit
//! folder found at the old default, with its git history; a folder Codex
//! wrote itself is left where it is (`memkit doctor` mentions it).

use super::git::written_by_memkit;
use crate::config::Config;
use crate::error::{IoContext, Result};
use crate::util::fsx::{copy_tree, is_real_dir, is_symlink, remove_path};
use std::fs;
use std::path::{Path, PathBuf};

/// What [`adopt_legacy_folder`] found at the old default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LegacyFolder {
    /// No folder there (or it is `memory_root` itself).
    None,
    /// memkit's folder is there (not moved: `memory_root` already has
    /// content, or nothing was asked to move it yet).
    Memkit(PathBuf),
    /// The folder is Codex's own (its memory writer made it): not memkit's.
    Codex(PathBuf),
}

/// Classifies the folder at the old default without changing anything.
pub fn inspect_legacy_folder(cfg: &Config) -> LegacyFolder {
    let legacy = cfg.legacy_memory_root();
    if legacy == cfg.memory_root || !is_real_dir(&legacy) {
        return LegacyFolder::None;
    }
    match written_by_memkit(&legacy) {
        Some(true) => LegacyFolder::Memkit(legacy),
        Some(false) => LegacyFolder::Codex(legacy),
        None => LegacyFolder::None,
    }
}

/// Moves memkit's folder from the old default to `memory_root` when
/// `memory_root` is the default and has no content yet (a warning says so).
pub fn adopt_legacy_folder(cfg: &Config) -> Result<()> {
    if cfg.memory_root_explicit {
        return Ok(());
    }
    let LegacyFolder::Memkit(legacy) = inspect_legacy_folder(cfg) else {
        return Ok(());
    };
    let to = &cfg.memory_root;
    if is_symlink(to) || has_content(to) {
        return Ok(());
    }
    if let Err(e) = move_folder(&legacy, to) {
        // Another memkit process (two hook parts start together) moved it first.
        if !legacy.exists() && has_content(to) {
            return Ok(());
        }
        return Err(e);
    }
    crate::ui::warn(format!(
        "moved memkit's memory folder from {} to {} with its history: Codex's own memory \
         writer manages the old place. Run `memkit install codex` so Codex reads the new one.",
        legacy.display(),
        to.display()
    ));
    Ok(())
}

fn has_content(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// Renames `from` to `to`; across file systems, copies into a temporary
/// sibling of `to`, renames that into place, then removes `from` (a crash
/// leaves the old folder whole, or both).
fn move_folder(from: &Path, to: &Path) -> Result<()> {
    let parent = to.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).at(parent)?;
    if is_real_dir(to) {
        // Empty (checked by the caller); another process may fill it meanwhile.
        let _ = fs::remove_dir(to);
    }
    match fs::rename(from, to) {
        Ok(()) => return Ok(()),
        Err(e) if e.raw_os_error() != Some(libc::EXDEV) => return Err(crate::Error::io(from, e)),
        Err(_) => {}
    }
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned());
    let temp = parent.join(format!(
        ".{}.moving-{}",
        name.unwrap_or_default(),
        std::process::id()
    ));
    remove_path(&temp)?;
    copy_tree(from, &temp, &|_, _| false)?;
    fs::rename(&temp, to).at(to)?;
    remove_path(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_keeps_files_and_folders_and_skips_links() {
        let base = std::env::temp_dir().join(format!(
            "memkit-relocate-{}",
            crate::util::ids::new_uuid_v4()
        ));
        let from = base.join("from");
        fs::create_dir_all(from.join(".git/objects")).unwrap();
        fs::write(from.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(from.join("MEMORY.md"), "# Task Group: x\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", from.join("link")).unwrap();
        copy_tree(&from, &base.join("to"), &|_, _| false).unwrap();
        assert_eq!(
            fs::read_to_string(base.join("to/.git/HEAD")).unwrap(),
            "ref: refs/heads/main\n"
        );
        assert!(base.join("to/MEMORY.md").is_file());
        assert!(!base.join("to/link").exists() && !is_symlink(&base.join("to/link")));
        fs::remove_dir_all(&base).unwrap();
    }
}
