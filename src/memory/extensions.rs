//! Extensions: `extensions/<ext>/instructions.md` describes a source of extra
//! memory; timestamped files in `resources/` older than seven days are pruned;
//! the `ad_hoc` extension holds the user's notes.

use super::EXTENSIONS_DIR;
use crate::error::Result;
use crate::util::fsx::{is_real_dir, is_regular_file, write_create_new};
use crate::util::time::parse_file_stamp;
use std::fs;
use std::path::{Path, PathBuf};

/// How long extension resources are kept, seconds (7 days).
pub const RESOURCE_RETENTION_SECS: i64 = 7 * 86_400;

/// The ad-hoc notes extension.
pub const AD_HOC: &str = "ad_hoc";

const AD_HOC_INSTRUCTIONS: &str = include_str!("../../templates/ad_hoc_instructions.md");

/// Writes `extensions/ad_hoc/instructions.md` unless it already exists
/// (a user-edited file is never overwritten). Returns whether it was written.
pub fn seed_ad_hoc_instructions(root: &Path) -> Result<bool> {
    let path = root
        .join(EXTENSIONS_DIR)
        .join(AD_HOC)
        .join("instructions.md");
    write_create_new(&path, AD_HOC_INSTRUCTIONS.as_bytes())
}

/// The notes folder, relative to the memory root.
pub fn notes_rel() -> String {
    format!("{EXTENSIONS_DIR}/{AD_HOC}/notes")
}

/// The notes folder.
pub fn notes_dir(root: &Path) -> PathBuf {
    root.join(notes_rel())
}

/// `extensions/<ext>/resources/<stamp>-*.md` files whose stamp is at or before
/// `now - 7 days`, in extensions that have an `instructions.md`. Files with
/// unparsable names, other files and other folders are never listed.
pub fn old_resources(root: &Path, now: i64) -> Vec<PathBuf> {
    let cutoff = now - RESOURCE_RETENTION_SECS;
    let mut deleted = Vec::new();
    let Ok(extensions) = fs::read_dir(root.join(EXTENSIONS_DIR)) else {
        return deleted;
    };
    for ext in extensions.flatten() {
        let ext_dir = ext.path();
        if !is_real_dir(&ext_dir) || !ext_dir.join("instructions.md").is_file() {
            continue;
        }
        let Ok(resources) = fs::read_dir(ext_dir.join("resources")) else {
            continue;
        };
        for file in resources.flatten() {
            let path = file.path();
            let name = file.file_name().to_string_lossy().into_owned();
            if !is_regular_file(&path) || !name.ends_with(".md") {
                continue;
            }
            if parse_file_stamp(&name).is_some_and(|t| t <= cutoff) {
                deleted.push(path);
            }
        }
    }
    deleted.sort();
    deleted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::time::file_stamp;

    #[test]
    fn prunes_only_old_stamped_resources_of_extensions_with_instructions() {
        let root =
            std::env::temp_dir().join(format!("memkit-ext-{}", crate::util::ids::new_uuid_v4()));
        let now = 1_800_000_000;
        let res = root.join("extensions/chronicle/resources");
        fs::create_dir_all(&res).unwrap();
        fs::write(root.join("extensions/chronicle/instructions.md"), "x").unwrap();
        let old = format!("{}-a.md", file_stamp(now - RESOURCE_RETENTION_SECS - 1));
        let at_cutoff = format!("{}-b.md", file_stamp(now - RESOURCE_RETENTION_SECS));
        let newer = format!("{}-c.md", file_stamp(now - RESOURCE_RETENTION_SECS + 1));
        for n in [
            &old,
            &at_cutoff,
            &newer,
            &"notes.md".to_string(),
            &"2020-01-01T00-00-00.txt".to_string(),
        ] {
            fs::write(res.join(n), "x").unwrap();
        }
        let bare = root.join("extensions/bare/resources");
        fs::create_dir_all(&bare).unwrap();
        fs::write(bare.join(&old), "x").unwrap();
        let deleted = old_resources(&root, now);
        assert_eq!(deleted, vec![res.join(&old), res.join(&at_cutoff)]);
        assert!(res.join(&newer).exists() && res.join("notes.md").exists());
        assert!(bare.join(&old).exists(), "no instructions.md: untouched");
    }

    #[test]
    fn seeding_never_overwrites() {
        let root =
            std::env::temp_dir().join(format!("memkit-ext-{}", crate::util::ids::new_uuid_v4()));
        assert!(seed_ad_hoc_instructions(&root).unwrap());
        let p = root.join("extensions/ad_hoc/instructions.md");
        fs::write(&p, "mine").unwrap();
        assert!(!seed_ad_hoc_instructions(&root).unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), "mine");
    }
}
