//! Keeping the memory folder safe: a symlinked root is refused, symlinks
//! inside are removed without being followed, managed folders are real
//! folders, and every file is written atomically inside the root.

use super::{EXTENSIONS_DIR, ROLLOUT_SUMMARIES_DIR};
use crate::error::{Error, IoContext, Result};
use crate::util::fsx::{
    is_stale_temp_file, is_symlink, is_temp_file, remove_path, write_atomic_mode,
};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Refuses a symlinked root; creates the root and its managed folders.
///
/// Returns the symlinks that were found inside the root and removed (never followed).
pub fn ensure_layout(root: &Path) -> Result<Vec<PathBuf>> {
    refuse_symlinked_root(root)?;
    fs::create_dir_all(root).at(root)?;
    let found = walk(root)?;
    remove_temp_files(&found.stale_temp_files);
    for link in &found.links {
        fs::remove_file(link).at(link)?;
    }
    for dir in [ROLLOUT_SUMMARIES_DIR, EXTENSIONS_DIR] {
        fs::create_dir_all(root.join(dir)).at(&root.join(dir))?;
    }
    Ok(found.links)
}

/// Errors when `root` itself is a symbolic link.
pub fn refuse_symlinked_root(root: &Path) -> Result<()> {
    if is_symlink(root) {
        return Err(Error::failed(format!(
            "refusing to use the memory folder {}: it is a symbolic link (point memory_root at the real folder)",
            root.display()
        )));
    }
    Ok(())
}

/// A folder another program keeps inside the memory folder: Codex's memory
/// writer adds `.codex-baseline/` (with a repository of its own) when it
/// runs there.
pub const FOREIGN_BASELINE_DIR: &str = ".codex-baseline";

/// Whether `path` (an entry under `root`) belongs to a repository and is
/// never committed, hashed or cleaned by memkit: any `.git` entry, Codex's
/// `.codex-baseline/`, and every folder that holds a `.git` of its own (a
/// nested repository).
pub fn is_foreign_entry(root: &Path, path: &Path, is_dir: bool) -> bool {
    if path.file_name().is_some_and(|n| n == ".git") {
        return true;
    }
    if !is_dir || path == root {
        return false;
    }
    path.parent() == Some(root) && path.file_name().is_some_and(|n| n == FOREIGN_BASELINE_DIR)
        || fs::symlink_metadata(path.join(".git")).is_ok()
}

/// The foreign repositories inside `root` (see [`is_foreign_entry`]), for `memkit doctor`.
pub fn foreign_repositories(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect_foreign(root, root, &mut out);
    out
}

fn collect_foreign(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if !is_dir || path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if is_foreign_entry(root, &path, true) {
            out.push(path);
        } else {
            collect_foreign(root, &path, out);
        }
    }
}

/// Removes the temp files crashed writers left under `root` (outside `.git`
/// and foreign repositories); a file that cannot be removed stays.
pub fn remove_stale_temp_files(root: &Path) -> Result<()> {
    remove_temp_files(&walk(root)?.stale_temp_files);
    Ok(())
}

fn remove_temp_files(paths: &[PathBuf]) {
    for path in paths {
        let _ = fs::remove_file(path);
    }
}

/// What the walk of the memory folder found to clean.
#[derive(Default)]
struct Found {
    /// Symbolic links (never followed).
    links: Vec<PathBuf>,
    /// Temp files of crashed writers.
    stale_temp_files: Vec<PathBuf>,
}

/// Walks `root` outside `.git` and foreign repositories.
fn walk(root: &Path) -> Result<Found> {
    let mut found = Found::default();
    walk_dir(root, root, &mut found)?;
    Ok(found)
}

fn walk_dir(root: &Path, dir: &Path, found: &mut Found) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    // Entry types come from the listing; only a temp file's name earns it a
    // stat (its age or writer decides whether it is stale).
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            // Renamed away meanwhile (a writer's temp file becoming its file).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&path, e)),
        };
        if is_foreign_entry(root, &path, kind.is_dir()) {
            continue;
        }
        if kind.is_symlink() {
            found.links.push(path);
        } else if kind.is_dir() {
            walk_dir(root, &path, found)?;
        } else {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if is_temp_file(&name)
                && entry
                    .metadata()
                    .is_ok_and(|meta| is_stale_temp_file(&name, &meta))
            {
                found.stale_temp_files.push(path);
            }
        }
    }
    Ok(())
}

/// Resolves `rel` (a path derived from data: a slug, a skill name) under
/// `root`, refusing anything that could escape it: absolute paths, `..`,
/// empty or dot components, and symlinks on the way.
pub fn safe_join(root: &Path, rel: &str) -> Result<PathBuf> {
    let rel_path = Path::new(rel);
    let mut out = root.to_path_buf();
    let mut parts = 0;
    for c in rel_path.components() {
        match c {
            Component::Normal(name) => {
                let s = name.to_string_lossy();
                if s.starts_with('.') {
                    return Err(escape(rel));
                }
                out.push(name);
                parts += 1;
                if is_symlink(&out) {
                    return Err(Error::failed(format!(
                        "{}: refusing to write through a symbolic link",
                        out.display()
                    )));
                }
            }
            _ => return Err(escape(rel)),
        }
    }
    if parts == 0 {
        return Err(escape(rel));
    }
    Ok(out)
}

fn escape(rel: &str) -> Error {
    Error::failed(format!(
        "refusing path {rel:?}: it would leave the memory folder"
    ))
}

/// Stages `rel` under `root` in an atomic batch, refusing paths that escape the root.
pub fn stage_file(
    batch: &mut crate::util::fsx::AtomicBatch,
    root: &Path,
    rel: &str,
    bytes: &[u8],
) -> Result<()> {
    let path = safe_join(root, rel)?;
    batch.add(&path, bytes)
}

/// Writes `rel` under `root` atomically, refusing paths that escape the root.
pub fn write_file(root: &Path, rel: &str, bytes: &[u8]) -> Result<PathBuf> {
    write_file_with_mode(root, rel, bytes, None)
}

/// [`write_file`], the file given permission bits `mode` before it appears.
pub fn write_file_with_mode(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<PathBuf> {
    let path = safe_join(root, rel)?;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).at(parent)?;
    }
    write_atomic_mode(&path, bytes, mode)?;
    Ok(path)
}

/// Deletes everything inside `root` (folders recursively, files and links
/// unlinked without being followed) and keeps the empty root. A symlinked
/// root is refused and its target left alone. Returns how many entries went.
pub fn clear_root(root: &Path) -> Result<usize> {
    refuse_symlinked_root(root)?;
    if !root.exists() {
        fs::create_dir_all(root).at(root)?;
        return Ok(0);
    }
    let mut removed = 0;
    for entry in fs::read_dir(root).at(root)?.flatten() {
        remove_path(&entry.path())?;
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crashed_writers_temp_files_go_but_not_inside_foreign_repositories() {
        let root = std::env::temp_dir().join(format!(
            "memkit-layout-tmp-{}",
            crate::util::ids::new_uuid_v4()
        ));
        // pid 0 is no writer of ours and never alive as one.
        let temp = ".MEMORY.md.0-0123456789ab.tmp";
        for dir in ["", "skills/a", ".codex-baseline", "vendored"] {
            fs::create_dir_all(root.join(dir)).unwrap();
            fs::write(root.join(dir).join(temp), "half").unwrap();
        }
        fs::create_dir_all(root.join("vendored/.git")).unwrap();
        fs::write(root.join("notes.tmp"), "the user's").unwrap();
        ensure_layout(&root).unwrap();
        assert!(!root.join(temp).exists() && !root.join("skills/a").join(temp).exists());
        assert!(root.join(".codex-baseline").join(temp).exists());
        assert!(root.join("vendored").join(temp).exists());
        assert!(root.join("notes.tmp").exists());
        fs::write(root.join(temp), "half").unwrap();
        remove_stale_temp_files(&root).unwrap();
        assert!(!root.join(temp).exists());
        fs::remove_dir_all(&root).unwrap();
    }

    fn temp() -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("memkit-layout-{}", crate::util::ids::new_uuid_v4()));
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn symlinked_root_is_refused_and_target_untouched() {
        let base = temp();
        let target = base.join("real");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("keep.md"), "x").unwrap();
        let link = base.join("memories");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = ensure_layout(&link).unwrap_err();
        assert!(err.to_string().contains("symbolic link"));
        assert_eq!(fs::read_dir(&target).unwrap().count(), 1);
    }

    #[test]
    fn symlinks_inside_are_removed_not_followed() {
        let base = temp();
        let outside = base.join("outside.txt");
        fs::write(&outside, "secret").unwrap();
        let root = base.join("memories");
        fs::create_dir_all(root.join("skills")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("skills/evil.md")).unwrap();
        let removed = ensure_layout(&root).unwrap();
        assert_eq!(removed, vec![root.join("skills/evil.md")]);
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        assert!(root.join("rollout_summaries").is_dir());
    }

    #[test]
    fn clearing_keeps_the_root_and_refuses_links() {
        let base = temp();
        let root = base.join("memories");
        fs::create_dir_all(root.join(".git/objects")).unwrap();
        fs::write(root.join("MEMORY.md"), "x").unwrap();
        let outside = base.join("keep.txt");
        fs::write(&outside, "keep").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link.md")).unwrap();
        assert_eq!(clear_root(&root).unwrap(), 3);
        assert!(root.is_dir() && fs::read_dir(&root).unwrap().count() == 0);
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
        let link = base.join("linked-root");
        std::os::unix::fs::symlink(&base, &link).unwrap();
        assert!(clear_root(&link).is_err());
        assert!(outside.exists());
    }

    #[test]
    fn foreign_repositories_are_recognised() {
        let root = temp();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join(".codex-baseline/.git")).unwrap();
        fs::create_dir_all(root.join("skills/vendored/.git")).unwrap();
        fs::create_dir_all(root.join("skills/mine")).unwrap();
        fs::create_dir_all(root.join("extensions/x/.codex-baseline")).unwrap();
        assert!(is_foreign_entry(&root, &root.join(".git"), true));
        assert!(is_foreign_entry(&root, &root.join(".codex-baseline"), true));
        assert!(is_foreign_entry(&root, &root.join("skills/vendored"), true));
        assert!(!is_foreign_entry(&root, &root.join("skills/mine"), true));
        assert!(
            !is_foreign_entry(&root, &root, true),
            "the root itself is memkit's"
        );
        assert!(
            !is_foreign_entry(&root, &root.join("extensions/x/.codex-baseline"), true),
            "only the top-level .codex-baseline is Codex's"
        );
        assert_eq!(
            foreign_repositories(&root),
            vec![root.join(".codex-baseline"), root.join("skills/vendored")]
        );
    }

    #[test]
    fn data_derived_paths_cannot_escape() {
        let root = temp();
        for bad in [
            "../x.md",
            "/etc/passwd",
            "a/../../b",
            "",
            ".git/config",
            "skills/.hidden/x",
        ] {
            assert!(safe_join(&root, bad).is_err(), "{bad}");
        }
        assert_eq!(
            safe_join(&root, "skills/a/SKILL.md").unwrap(),
            root.join("skills/a/SKILL.md")
        );
        std::os::unix::fs::symlink("/tmp", root.join("skills")).unwrap();
        assert!(write_file(&root, "skills/a/SKILL.md", b"x").is_err());
    }
}
