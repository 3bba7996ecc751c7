//! Ad-hoc notes: `extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS>-<slug>.md`,
//! validated as Codex validates them and created new (never overwritten).

use super::extensions::notes_rel;
use super::layout::{refuse_symlinked_root, safe_join};
use crate::error::{Error, IoContext, Result};
use crate::util::time::{file_stamp, parse_file_stamp};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Longest note file name, bytes.
const MAX_NAME_BYTES: usize = 128;
/// Longest slug, bytes.
const MAX_SLUG_BYTES: usize = 80;

/// A slug from the note text: lower-case words of `[a-z0-9]` joined by `-`.
pub fn slug_for(text: &str) -> String {
    let mut slug = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_ascii_lowercase();
        if slug.len() + word.len() + 1 > MAX_SLUG_BYTES.min(48) {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word);
    }
    if slug.is_empty() { "note".into() } else { slug }
}

/// Checks a note file name: ≤ 128 bytes, `.md`, a `YYYY-MM-DDTHH-MM-SS-` stamp,
/// then a slug of 1–80 bytes of `[a-z0-9-]`.
pub fn validate_name(name: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::usage(format!("note file name {name:?}: {why}")));
    if name.len() > MAX_NAME_BYTES {
        return bad("longer than 128 bytes");
    }
    let Some(stem) = name.strip_suffix(".md") else {
        return bad("must end with .md");
    };
    if stem.len() < 21 || parse_file_stamp(stem).is_none() || stem.as_bytes()[19] != b'-' {
        return bad("must start with a YYYY-MM-DDTHH-MM-SS- time stamp");
    }
    let slug = &stem[20..];
    if slug.is_empty() || slug.len() > MAX_SLUG_BYTES {
        return bad("the slug after the stamp must be 1 to 80 bytes");
    }
    if !slug
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return bad("the slug may only hold a-z, 0-9 and -");
    }
    Ok(())
}

/// Creates a note with `text` at time `now` (a name that exists gets `-2`, `-3`, … appended).
/// The folders on the way must be real folders, never symbolic links.
pub fn create(root: &Path, text: &str, now: i64) -> Result<PathBuf> {
    if text.trim().is_empty() {
        return Err(Error::usage("a note needs some text"));
    }
    refuse_symlinked_root(root)?;
    let dir = safe_join(root, &notes_rel())?;
    fs::create_dir_all(&dir).at(&dir)?;
    let base = format!("{}-{}", file_stamp(now), slug_for(text));
    let body = format!("{}\n", crate::redact::redact(text.trim()));
    for n in 1..100 {
        let name = if n == 1 {
            format!("{base}.md")
        } else {
            format!("{base}-{n}.md")
        };
        validate_name(&name)?;
        let path = dir.join(&name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(body.as_bytes()).at(&path)?;
                f.sync_all().at(&path)?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Err(Error::failed(format!("too many notes named {base}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated() {
        assert!(validate_name("2026-11-29T10-00-00-cargo-fmt.md").is_ok());
        for bad in [
            "2026-11-29T10-00-00-.md",
            "2026-11-29T10-00-00-Cargo.md",
            "2026-11-29T10-00-00-a.txt",
            "../2026-11-29T10-00-00-a.md",
            "2026-11-29 10-00-00-a.md",
            "note.md",
            "2026-13-29T10-00-00-a.md",
        ] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
        let long = format!("2026-11-29T10-00-00-{}.md", "a".repeat(81));
        assert!(validate_name(&long).is_err());
    }

    #[test]
    fn create_new_never_overwrites_and_refuses_links() {
        let root =
            std::env::temp_dir().join(format!("memkit-notes-{}", crate::util::ids::new_uuid_v4()));
        fs::create_dir_all(&root).unwrap();
        let a = create(
            &root,
            "Always run cargo fmt before committing!",
            1_800_000_000,
        )
        .unwrap();
        assert_eq!(
            a.file_name().unwrap().to_string_lossy(),
            "2027-01-15T08-00-00-always-run-cargo-fmt-before-committing.md"
        );
        let b = create(
            &root,
            "always run cargo fmt before committing",
            1_800_000_000,
        )
        .unwrap();
        assert_ne!(a, b);
        assert_eq!(
            fs::read_to_string(&a).unwrap(),
            "Always run cargo fmt before committing!\n"
        );
        assert!(create(&root, "   ", 1).is_err());
        let other =
            std::env::temp_dir().join(format!("memkit-notes-{}", crate::util::ids::new_uuid_v4()));
        fs::create_dir_all(other.join("extensions")).unwrap();
        std::os::unix::fs::symlink("/tmp", other.join("extensions/ad_hoc")).unwrap();
        assert!(create(&other, "x", 1).is_err());
    }
}
