//! A scratch copy of the memory folder for an agent to consolidate in: the
//! agent never touches the live folder, its notes or its `.git`. What it
//! leaves (`MEMORY.md`, `memory_summary.md`, the `skills/` tree) is read
//! back and validated before anything is written to the live folder.

use super::layout::is_foreign_entry;
use super::{MEMORY_MD, MEMORY_SUMMARY_MD, SKILL_MD, SKILLS_DIR};
use crate::backends::consolidate::{ConsolidatedFiles, Skill, SkillFile, is_valid_skill_name};
use crate::error::{Error, IoContext, Result};
use crate::util::fsx::{copy_tree, is_real_dir, is_temp_file, remove_path};
use std::fs;
use std::path::{Path, PathBuf};

/// A scratch copy; removed when dropped.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Copies `root` (without `.git`, foreign repositories, temp files and
    /// links) into a new folder under `base`, after removing copies that
    /// killed runs left there.
    pub fn copy_of(root: &Path, base: &Path) -> Result<Scratch> {
        remove_abandoned(base);
        fs::create_dir_all(base).at(base)?;
        let tag = crate::util::ids::random_hex(4);
        let dir = base.join(format!("consolidation-{}-{tag}", std::process::id()));
        let scratch = Scratch { dir };
        copy_tree(root, &scratch.dir, &|src, is_dir| {
            is_foreign_entry(root, src, is_dir)
                || src
                    .file_name()
                    .is_some_and(|n| is_temp_file(&n.to_string_lossy()))
        })?;
        Ok(scratch)
    }

    /// The copy's folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// What the agent left: the two files and the whole `skills/` tree,
    /// checked the same way as a model's answer when they are written. A
    /// skill folder whose name is not a valid skill name (one the user made
    /// by hand) is left out with a warning, so the live one stays as it is.
    pub fn outputs(&self) -> Result<ConsolidatedFiles> {
        let read = |name: &str| {
            let path = self.dir.join(name);
            if !crate::util::fsx::is_regular_file(&path) {
                return Err(Error::failed(format!(
                    "the agent left no regular file {name}"
                )));
            }
            fs::read_to_string(&path).at(&path)
        };
        Ok(ConsolidatedFiles {
            memory_md: read(MEMORY_MD)?,
            memory_summary_md: read(MEMORY_SUMMARY_MD)?,
            skills: Some(self.skills()?),
            skills_complete: true,
        })
    }

    fn skills(&self) -> Result<Vec<Skill>> {
        let dir = self.dir.join(SKILLS_DIR);
        let mut out = Vec::new();
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(out);
        };
        for entry in entries.flatten() {
            let folder = entry.path();
            let skill = folder.join(SKILL_MD);
            if !is_real_dir(&folder) || !crate::util::fsx::is_regular_file(&skill) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_valid_skill_name(&name) {
                crate::ui::warn(format!(
                    "skills/{}: not a valid skill name (lower-case letters, digits and \
                     hyphens); the folder is left as it is",
                    crate::util::text::inert_line(&name)
                ));
                continue;
            }
            let mut files = Vec::new();
            collect_skill_files(&folder, &folder, &mut files)?;
            out.push(Skill {
                name,
                content: fs::read_to_string(&skill).at(&skill)?,
                files: Some(files),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}

/// Every regular file under `dir` except the skill's own `SKILL.md`, with
/// its mode; links and temp files are left out.
fn collect_skill_files(top: &Path, dir: &Path, out: &mut Vec<SkillFile>) -> Result<()> {
    for entry in fs::read_dir(dir).at(dir)?.flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).at(&path)?;
        let rel = path.strip_prefix(top).unwrap_or(&path);
        if is_temp_file(&entry.file_name().to_string_lossy()) || rel == Path::new(SKILL_MD) {
            continue;
        }
        if meta.is_dir() {
            collect_skill_files(top, &path, out)?;
        } else if meta.is_file() {
            out.push(SkillFile {
                path: rel.to_string_lossy().into_owned(),
                bytes: fs::read(&path).at(&path)?,
                mode: std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(())
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = remove_path(&self.dir);
    }
}

/// Removes scratch copies whose memkit process is gone.
fn remove_abandoned(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix("consolidation-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !crate::util::process::pid_alive(pid)
        {
            let _ = remove_path(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_leaves_out_git_links_and_temp_files_and_goes_away() {
        let base = std::env::temp_dir().join(format!(
            "memkit-scratch-{}",
            crate::util::ids::new_uuid_v4()
        ));
        let root = base.join("memories");
        fs::create_dir_all(root.join(".git/objects")).unwrap();
        fs::create_dir_all(root.join("extensions/ad_hoc/notes")).unwrap();
        fs::write(root.join("extensions/ad_hoc/notes/n.md"), "note").unwrap();
        fs::write(root.join(".MEMORY.md.1-0123456789ab.tmp"), "half").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("link")).unwrap();
        let scratch = Scratch::copy_of(&root, &base.join("scratch")).unwrap();
        let dir = scratch.path().to_path_buf();
        assert!(dir.join("extensions/ad_hoc/notes/n.md").is_file());
        assert!(!dir.join(".git").exists() && !dir.join("link").exists());
        assert!(!dir.join(".MEMORY.md.1-0123456789ab.tmp").exists());
        assert!(
            scratch
                .outputs()
                .unwrap_err()
                .to_string()
                .contains("no regular file MEMORY.md")
        );
        drop(scratch);
        assert!(!dir.exists());
        fs::remove_dir_all(&base).unwrap();
    }
}
