//! File-system helpers: atomic writes (temp file, fsync, rename) and create-new files.

use crate::error::{Error, IoContext, Result};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temp file in the same folder, fsync, rename.
///
/// Readers see either the old content or the new, never a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_mode(path, bytes, None)
}

/// Like [`write_atomic`], the new file created with permission bits `mode`
/// (never wider, whatever the umask): a private file is never readable by
/// others, not even for a moment.
pub fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::failed(format!("{}: no parent folder", path.display())))?;
    fs::create_dir_all(dir).at(dir)?;
    let tmp = temp_name(path);
    let result = (|| -> Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        }
        let mut f = options.open(&tmp).at(&tmp)?;
        if let Some(mode) = mode {
            // The umask narrowed the bits at creation; give back exactly the old ones.
            f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))
                .at(&tmp)?;
        }
        f.write_all(bytes).at(&tmp)?;
        f.sync_all().at(&tmp)?;
        crate::util::crashpoint::here("write:temp");
        fs::rename(&tmp, path).at(path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Many atomic writes: every file goes to a temp file first, then the temps
/// are renamed over their targets and each folder is synced once. Readers see
/// old or new content, never a torn file. The files' data is not fsynced one
/// by one: use this only for files derived from the database, which the next
/// run rewrites whenever they differ (a crash can cost a rewrite, never data).
#[derive(Default)]
pub struct AtomicBatch {
    pending: Vec<(std::path::PathBuf, std::path::PathBuf)>,
}

impl AtomicBatch {
    /// Stages `bytes` for `path`.
    pub fn add(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        let dir = path
            .parent()
            .ok_or_else(|| Error::failed(format!("{}: no parent folder", path.display())))?;
        fs::create_dir_all(dir).at(dir)?;
        let tmp = temp_name(path);
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .at(&tmp)?;
        self.pending.push((tmp.clone(), path.to_path_buf()));
        f.write_all(bytes).at(&tmp)?;
        Ok(())
    }

    /// Renames everything staged into place and syncs the folders.
    pub fn commit(mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let mut dirs: Vec<std::path::PathBuf> = Vec::new();
        for (i, (tmp, target)) in pending.iter().enumerate() {
            crate::util::crashpoint::here("batch:rename");
            if let Err(e) = fs::rename(tmp, target) {
                for (t, _) in &pending[i..] {
                    let _ = fs::remove_file(t);
                }
                return Err(Error::io(target, e));
            }
            if let Some(d) = target.parent()
                && !dirs.iter().any(|x| x == d)
            {
                dirs.push(d.to_path_buf());
            }
        }
        for d in dirs {
            if let Ok(f) = File::open(&d) {
                let _ = f.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for AtomicBatch {
    fn drop(&mut self) {
        for (tmp, _) in &self.pending {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// `.<name>.<pid>-<random>.tmp` beside `path`: the writer's pid tells a
/// crashed write's leftover from a write in progress.
fn temp_name(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tag = crate::util::ids::random_hex(6);
    path.with_file_name(format!(".{name}.{}-{tag}.tmp", std::process::id()))
}

/// Copies the folders and regular files under `from` into `to` (permissions
/// kept), leaving out each entry `skip(path, is_dir)` names; links are
/// neither followed nor copied.
pub fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&Path, bool) -> bool) -> Result<()> {
    fs::create_dir_all(to).at(to)?;
    for entry in fs::read_dir(from).at(from)?.flatten() {
        let src = entry.path();
        let meta = fs::symlink_metadata(&src).at(&src)?;
        if skip(&src, meta.is_dir()) {
            continue;
        }
        let dst = to.join(entry.file_name());
        if meta.is_dir() {
            copy_tree(&src, &dst, skip)?;
        } else if meta.is_file() {
            fs::copy(&src, &dst).at(&dst)?;
        }
    }
    Ok(())
}

/// Whether `file_name` is a temp file of an atomic write: this version's
/// `.<name>.<pid>-<12 hex>.tmp` or older versions' `.<name>.<12 hex>.tmp`
/// (a user's own `.cache.tmp` is neither).
pub fn is_temp_file(file_name: &str) -> bool {
    temp_writer(file_name).is_some() || legacy_temp_tag(file_name)
}

/// Whether `file_name` is `.<name>.<12 hex>.tmp`.
fn legacy_temp_tag(file_name: &str) -> bool {
    file_name
        .strip_prefix('.')
        .and_then(|s| s.strip_suffix(".tmp"))
        .and_then(|stem| stem.rsplit_once('.'))
        .is_some_and(|(name, tag)| {
            !name.is_empty()
                && tag.len() == 12
                && tag
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// The pid of the process writing a temp file, from its name.
fn temp_writer(file_name: &str) -> Option<u32> {
    let stem = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, tail) = stem.rsplit_once('.')?;
    let (pid, tag) = tail.split_once('-')?;
    let hex = tag.len() == 12 && tag.bytes().all(|b| b.is_ascii_hexdigit());
    hex.then(|| pid.parse().ok()).flatten()
}

/// Whether the file `name` (with metadata `meta`) is a temp file a crashed
/// writer left: its writer is gone (or, from older versions without a pid,
/// it is more than an hour old).
pub fn is_stale_temp_file(name: &str, meta: &fs::Metadata) -> bool {
    if !meta.is_file() || !is_temp_file(name) {
        return false;
    }
    match temp_writer(name) {
        Some(pid) => pid != std::process::id() && !crate::util::process::pid_alive(pid),
        None => meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > std::time::Duration::from_secs(3600)),
    }
}

/// Writes `bytes` to a new file at `path`; fails if it already exists.
///
/// Returns `Ok(false)` (and writes nothing) when the file exists.
pub fn write_create_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).at(dir)?;
    }
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(bytes).at(path)?;
            f.sync_all().at(path)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Whether `path` itself is a symbolic link (not followed).
pub fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false)
}

/// Whether `path` itself is a folder (a symbolic link to one is not).
pub fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Whether `path` itself is a regular file (a symbolic link to one is not).
pub fn is_regular_file(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// Removes whatever is at `path` without following links: a folder with
/// everything in it, a file or a link. Nothing there is not an error.
pub fn remove_path(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).at(path),
        Ok(_) => fs::remove_file(path).at(path),
        Err(_) => Ok(()),
    }
}

/// Whether the path `path` is `dir` or lies inside it, compared as text (no
/// filesystem access; a trailing `/` on `dir` does not matter, and
/// `/src/app2` is not inside `/src/app`).
pub fn is_within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_compares_whole_path_components() {
        assert!(is_within("/src/app", "/src/app"));
        assert!(is_within("/src/app/web", "/src/app/"));
        assert!(!is_within("/src/app2", "/src/app"));
        assert!(!is_within("/src", "/src/app"));
    }

    #[test]
    fn only_memkits_own_temp_names_count_as_temp_files() {
        let ours = temp_name(Path::new("/m/MEMORY.md"));
        let ours = ours.file_name().unwrap().to_string_lossy();
        assert!(is_temp_file(&ours), "{ours}");
        assert_eq!(temp_writer(&ours), Some(std::process::id()));
        assert!(
            is_temp_file(".MEMORY.md.0123456789ab.tmp"),
            "older versions"
        );
        for users in [
            ".cache.tmp",
            ".notes.tmp",
            ".a.b.tmp",
            ".x.1-2.tmp",
            "a.0123456789ab.tmp",
        ] {
            assert!(!is_temp_file(users), "{users}");
        }
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir =
            std::env::temp_dir().join(format!("memkit-fsx-{}", crate::util::ids::new_uuid_v4()));
        let p = dir.join("a.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        assert!(!write_create_new(&p, b"three").unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        let mut batch = AtomicBatch::default();
        batch.add(&p, b"four").unwrap();
        batch.add(&dir.join("sub/b.md"), b"five").unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "two",
            "nothing visible before commit"
        );
        batch.commit().unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "four");
        assert_eq!(fs::read_to_string(dir.join("sub/b.md")).unwrap(), "five");
        let mut dropped = AtomicBatch::default();
        dropped.add(&dir.join("c.md"), b"x").unwrap();
        drop(dropped);
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            2,
            "no temp left, no c.md"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
