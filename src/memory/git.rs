//! The memory folder's git baseline, through gix (no git CLI at run time).
//!
//! Unlike Codex, which resets to a single parentless commit, memkit keeps
//! history: every successful consolidation is a new commit on top of the last,
//! so `git log -p` shows how memory changed and `git revert` undoes a bad night.
//! The index is written with file stats, so `git status` is clean afterwards.

use super::WORKSPACE_DIFF_MD;
use super::layout::{FOREIGN_BASELINE_DIR, is_foreign_entry};
use crate::error::{Error, IoContext, Result};
use crate::util::fsx::{is_real_dir, remove_path};
use gix::ObjectId;
use gix::objs::tree::EntryKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One file as git sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileState {
    /// Blob id.
    pub oid: ObjectId,
    /// Regular, executable or symlink.
    pub kind: EntryKind,
}

/// Paths (relative, `/`-separated) to their state.
pub type Snapshot = BTreeMap<String, FileState>;

/// Called for every working-tree file with its path, state and bytes.
type Visit<'a> = dyn FnMut(String, FileState, &[u8]) -> Result<()> + 'a;

/// How a path changed since the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// New file.
    #[serde(rename = "A")]
    Added,
    /// Content or mode changed.
    #[serde(rename = "M")]
    Modified,
    /// Removed file.
    #[serde(rename = "D")]
    Deleted,
}

impl Status {
    /// `A`, `M` or `D`.
    pub fn letter(self) -> char {
        match self {
            Status::Added => 'A',
            Status::Modified => 'M',
            Status::Deleted => 'D',
        }
    }
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Relative path.
    pub path: String,
    /// What happened.
    pub status: Status,
    /// The baseline's version.
    pub old: Option<FileState>,
    /// The working tree's version.
    pub new: Option<FileState>,
}

/// The identity memkit commits as (cron has no git identity).
const AUTHOR_NAME: &str = "memkit";
const AUTHOR_EMAIL: &str = "memkit@localhost";

fn git_err(context: &str) -> impl Fn(gix::Error) -> Error + '_ {
    move |e| Error::failed(format!("{context}: {e}"))
}

/// The baseline repository of a memory folder.
#[derive(Debug, Clone)]
pub struct Baseline {
    repo: gix::Repository,
    root: PathBuf,
}

impl Baseline {
    /// Opens the repository in `root`, creating it with a first commit of the
    /// current files when missing, and recreating it when `.git` is broken
    /// (not a folder, unreadable HEAD or tree). An unborn HEAD gets a first commit.
    pub fn open_or_create(root: &Path) -> Result<Baseline> {
        let git_dir = root.join(".git");
        let usable = is_real_dir(&git_dir)
            .then(|| gix::open(root).ok())
            .flatten()
            .filter(head_tree_readable);
        let repo = match usable {
            Some(repo) => repo,
            None => {
                remove_path(&git_dir)?;
                gix::init(root).map_err(git_err("creating the memory baseline"))?
            }
        };
        exclude_transient_files(&git_dir)?;
        let baseline = Baseline {
            repo,
            root: root.to_path_buf(),
        };
        match baseline.head_commit()? {
            None => {
                let snapshot = baseline.store_worktree()?;
                baseline.commit(&snapshot, "memkit: baseline of the memory folder")?;
            }
            Some(head) if !memkit_history(&baseline.repo, head) && codex_writer_traces(root) => {
                baseline.rebaseline(head)?
            }
            Some(head) => baseline.repair_index(head)?,
        }
        Ok(baseline)
    }

    /// Rewrites the index from HEAD when a crash left it behind: it is
    /// missing or unreadable, or it still describes the tree of HEAD's first
    /// parent (the commit was written, the index not), so `git status` never
    /// shows memkit's files as deleted or staged. Any other index is the
    /// user's own staging and stays as it is.
    fn repair_index(&self, head: ObjectId) -> Result<()> {
        let commit = self
            .repo
            .find_commit(head)
            .map_err(git_err("reading the baseline commit"))?;
        let stale = match self.repo.open_index() {
            Err(_) => true,
            Ok(index) => {
                let entries = index.entries();
                let describes = |files: &Snapshot| {
                    entries.len() == files.len()
                        && entries.iter().all(|e| {
                            files
                                .get(&e.path(&index).to_string())
                                .is_some_and(|f| f.oid == e.id)
                        })
                };
                // The usual case, an index at HEAD, costs one tree walk.
                !describes(&self.head_snapshot()?)
                    && describes(&match commit.parent_ids().next() {
                        Some(parent) => self.commit_snapshot(parent.detach())?,
                        None => Snapshot::new(),
                    })
            }
        };
        if !stale {
            return Ok(());
        }
        let tree = commit
            .tree_id()
            .map_err(git_err("reading the baseline tree"))?;
        self.write_index(tree.detach())
    }

    /// Starts memkit's history again on top of the history Codex's memory
    /// writer put in place (it replaces `.git` with its own one-commit
    /// baseline): an empty tree, so the next consolidation sees every file
    /// as changed and rewrites what the other writer left.
    fn rebaseline(&self, foreign_head: ObjectId) -> Result<()> {
        let short = foreign_head.to_hex_with_len(7).to_string();
        crate::ui::warn(format!(
            "{}: the folder's git history was replaced by another program (HEAD {short} is not \
             memkit's); starting a new baseline on top of it, and the next consolidation rewrites \
             the memory files",
            self.root.display()
        ));
        let message = format!(
            "memkit: new baseline\n\nAnother program replaced this folder's history (its HEAD was \
             {short}); memkit's earlier commits are not in this repository. The next \
             consolidation starts from an empty tree.\n"
        );
        self.write_commit(&Snapshot::new(), &message, true)?;
        Ok(())
    }

    /// The current HEAD commit (`None` on an unborn branch).
    pub fn head_commit(&self) -> Result<Option<ObjectId>> {
        let head = self.repo.head().map_err(git_err("reading HEAD"))?;
        Ok(head.id().map(|id| id.detach()))
    }

    /// The files of the HEAD commit.
    pub fn head_snapshot(&self) -> Result<Snapshot> {
        match self.head_commit()? {
            Some(commit) => self.commit_snapshot(commit),
            None => Ok(Snapshot::new()),
        }
    }

    /// The files of `commit`.
    fn commit_snapshot(&self, commit: ObjectId) -> Result<Snapshot> {
        let tree = self
            .repo
            .find_commit(commit)
            .and_then(|c| c.tree())
            .map_err(git_err("reading the baseline tree"))?;
        let entries = tree
            .traverse()
            .breadthfirst
            .files()
            .map_err(git_err("walking the baseline tree"))?;
        Ok(entries
            .into_iter()
            .filter(|e| !e.mode.is_tree())
            .map(|e| {
                (
                    e.filepath.to_string(),
                    FileState {
                        oid: e.oid,
                        kind: e.mode.kind(),
                    },
                )
            })
            .collect())
    }

    /// The working tree as git would see it (nothing written). As in `git
    /// status`, a file whose stat still matches its index entry, and which
    /// is not racily clean (changed within the index's own timestamp), takes
    /// the entry's id unread; the others are hashed in memory.
    pub fn worktree_snapshot(&self) -> Result<Snapshot> {
        let index = self.repo.open_index().ok();
        let mut out = Snapshot::new();
        let walk = Walk {
            root: &self.root,
            hash: self.repo.object_hash(),
            index: index.as_ref(),
        };
        walk.dir(&self.root, &mut |rel, state, _| {
            out.insert(rel, state);
            Ok(())
        })?;
        Ok(out)
    }

    /// The working tree, with every blob written to the object database so it
    /// can be committed later even if the files change meanwhile.
    pub fn store_worktree(&self) -> Result<Snapshot> {
        let mut out = Snapshot::new();
        self.walk(&mut |rel, state, bytes| {
            self.repo
                .write_blob(bytes)
                .map_err(git_err("writing a blob"))?;
            out.insert(rel, state);
            Ok(())
        })?;
        Ok(out)
    }

    /// Visits every file with its bytes (read, never taken from the index).
    fn walk(&self, f: &mut Visit<'_>) -> Result<()> {
        let walk = Walk {
            root: &self.root,
            hash: self.repo.object_hash(),
            index: None,
        };
        walk.dir(&self.root, f)
    }

    /// What changed between the baseline and the working tree, sorted by path.
    pub fn changes(&self) -> Result<Vec<Change>> {
        Ok(compare(&self.head_snapshot()?, &self.worktree_snapshot()?))
    }

    /// The bytes of a blob from the object database.
    pub fn blob(&self, oid: ObjectId) -> Result<Vec<u8>> {
        Ok(self
            .repo
            .find_blob(oid)
            .map_err(git_err("reading a baseline blob"))?
            .data
            .clone())
    }

    /// The bytes of a working-tree file as git hashes them (a symlink's target for links).
    pub fn worktree_bytes(&self, rel: &str) -> Result<Vec<u8>> {
        let path = self.root.join(rel);
        read_for_hash(&path).at(&path)
    }

    /// Commits `snapshot` (whose blobs must be in the object database) on top
    /// of HEAD and writes the index. Returns the new commit, or `None` when
    /// the tree did not change.
    pub fn commit(&self, snapshot: &Snapshot, message: &str) -> Result<Option<ObjectId>> {
        self.write_commit(snapshot, message, false)
    }

    /// Commits `snapshot`; with `even_if_unchanged`, also when the tree is
    /// the parent's (a new baseline must be memkit's own commit).
    fn write_commit(
        &self,
        snapshot: &Snapshot,
        message: &str,
        even_if_unchanged: bool,
    ) -> Result<Option<ObjectId>> {
        let mut editor = self
            .repo
            .empty_tree()
            .edit()
            .map_err(git_err("building the tree"))?;
        for (path, state) in snapshot {
            editor
                .upsert(path.as_str(), state.kind, state.oid)
                .map_err(git_err("building the tree"))?;
        }
        let tree = editor
            .write()
            .map_err(git_err("writing the tree"))?
            .detach();
        let parent = self.head_commit()?;
        let unchanged = match parent {
            Some(_) if even_if_unchanged => false,
            Some(p) => {
                let parent_tree = self
                    .repo
                    .find_commit(p)
                    .and_then(|c| c.tree_id())
                    .map_err(git_err("reading the parent tree"))?;
                parent_tree.detach() == tree
            }
            None => false,
        };
        let commit = if unchanged {
            None
        } else {
            let signature = gix::actor::Signature {
                name: AUTHOR_NAME.into(),
                email: AUTHOR_EMAIL.into(),
                time: gix::date::Time::now_local_or_utc(),
            };
            let mut buf = gix::date::parse::TimeBuf::default();
            let sig = signature.to_ref(&mut buf);
            crate::util::crashpoint::here("git:before-commit");
            let id = self
                .repo
                .commit_as(sig, sig, "HEAD", message, tree, parent)
                .map_err(git_err("committing the memory baseline"))?;
            Some(id.detach())
        };
        crate::util::crashpoint::here("git:before-index");
        self.write_index(tree)?;
        Ok(commit)
    }

    /// Writes the index for `tree`, with stat data for files whose content on
    /// disk matches the tree (others are left for git to re-hash).
    fn write_index(&self, tree: ObjectId) -> Result<()> {
        let mut index = self
            .repo
            .index_from_tree(&tree)
            .map_err(git_err("building the index"))?;
        let hash = self.repo.object_hash();
        for (entry, path) in index.entries_mut_with_paths() {
            let abs = self.root.join(path.to_string());
            // Stat before reading: a change in between makes git re-hash, never trust a stale entry.
            let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&abs) else {
                continue;
            };
            let Ok(bytes) = read_for_hash(&abs) else {
                continue;
            };
            let same = gix::objs::compute_hash(hash, gix::objs::Kind::Blob, &bytes)
                .is_ok_and(|oid| oid == entry.id);
            if same && let Ok(stat) = gix::index::entry::Stat::from_fs(&meta) {
                entry.stat = stat;
            }
        }
        index
            .write(gix::index::write::Options::default())
            .map_err(|e| Error::failed(format!("writing the memory index: {e}")))?;
        Ok(())
    }

    /// The short id of the HEAD commit, for messages.
    pub fn head_short(&self) -> Result<Option<String>> {
        Ok(self
            .head_commit()?
            .map(|id| id.to_hex_with_len(7).to_string()))
    }
}

/// Lists the transient diff file and Codex's `.codex-baseline/` in
/// `.git/info/exclude`, so a human's `git status` reports neither (memkit
/// never commits them).
fn exclude_transient_files(git_dir: &Path) -> Result<()> {
    let path = git_dir.join("info").join("exclude");
    let current = fs::read_to_string(&path).unwrap_or_default();
    let mut text = current.clone();
    for (comment, line) in [
        (
            "# written by memkit before a consolidation, removed after",
            format!("/{WORKSPACE_DIFF_MD}"),
        ),
        (
            "# Codex's own memory writer keeps its baseline here; never memkit's",
            format!("/{FOREIGN_BASELINE_DIR}/"),
        ),
    ] {
        if text.lines().any(|l| l.trim() == line) {
            continue;
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(comment);
        text.push('\n');
        text.push_str(&line);
        text.push('\n');
    }
    if text == current {
        return Ok(());
    }
    crate::util::fsx::write_atomic(&path, text.as_bytes())
}

fn head_tree_readable(repo: &gix::Repository) -> bool {
    match repo.head() {
        Ok(head) => match head.id() {
            Some(id) => repo.find_commit(id.detach()).and_then(|c| c.tree()).is_ok(),
            None => true,
        },
        Err(_) => false,
    }
}

/// File content as git hashes it: the bytes, or a symlink's target.
fn read_for_hash(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        Ok(fs::read_link(path)?
            .to_string_lossy()
            .into_owned()
            .into_bytes())
    } else {
        fs::read(path)
    }
}

/// A walk of the memory folder's files as git sees them.
struct Walk<'a> {
    root: &'a Path,
    hash: gix::hash::Kind,
    /// When given, a file its entry still describes is not read: it is
    /// visited with its entry's id and no bytes.
    index: Option<&'a gix::index::File>,
}

impl Walk<'_> {
    fn dir(&self, dir: &Path, f: &mut Visit<'_>) -> Result<()> {
        let root = self.root;
        let mut entries: Vec<(PathBuf, Option<fs::FileType>)> = fs::read_dir(dir)
            .at(dir)?
            .filter_map(|e| e.ok().map(|e| (e.path(), e.file_type().ok())))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, listed) in entries {
            let rel = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            // A temp file of an atomic write is never part of memory.
            let is_temp = path
                .file_name()
                .is_some_and(|n| crate::util::fsx::is_temp_file(&n.to_string_lossy()));
            if rel == WORKSPACE_DIFF_MD || is_temp {
                continue;
            }
            // A file its index entry still describes costs one stat.
            if listed.is_some_and(|kind| kind.is_file())
                && let Some(state) = self.unchanged(&rel, &path)
            {
                f(rel, state, &[])?;
                continue;
            }
            let meta = fs::symlink_metadata(&path).at(&path)?;
            if is_foreign_entry(root, &path, meta.is_dir()) {
                continue;
            }
            let kind = if meta.file_type().is_symlink() {
                EntryKind::Link
            } else if meta.is_dir() {
                self.dir(&path, f)?;
                continue;
            } else if !meta.is_file() {
                continue;
            } else if std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0 {
                EntryKind::BlobExecutable
            } else {
                EntryKind::Blob
            };
            let bytes = read_for_hash(&path).at(&path)?;
            let oid = gix::objs::compute_hash(self.hash, gix::objs::Kind::Blob, &bytes)
                .map_err(|e| Error::failed(format!("{}: {e}", path.display())))?;
            f(rel, FileState { oid, kind }, &bytes)?;
        }
        Ok(())
    }

    /// The state of the regular file `rel` from the index when its entry's
    /// stat still matches the file (mtime in nanoseconds, ctime, size,
    /// inode) and the entry is not racily clean: its id and, since a chmod
    /// changes the ctime, its mode.
    fn unchanged(&self, rel: &str, path: &Path) -> Option<FileState> {
        use gix::bstr::ByteSlice;
        use gix::index::entry::Mode;
        let index = self.index?;
        let entry = index.entry_by_path(rel.as_bytes().as_bstr())?;
        let kind = match entry.mode {
            Mode::FILE => EntryKind::Blob,
            Mode::FILE_EXECUTABLE => EntryKind::BlobExecutable,
            _ => return None,
        };
        let meta = gix::index::fs::Metadata::from_path_no_follow(path).ok()?;
        let stat = gix::index::entry::Stat::from_fs(&meta).ok()?;
        let exact = gix::index::entry::stat::Options {
            trust_ctime: true,
            check_stat: true,
            use_nsec: true,
            use_stdev: false,
        };
        (entry.stat.matches(&stat, exact) && !entry.stat.is_racy(index.timestamp(), exact))
            .then_some(FileState {
                oid: entry.id,
                kind,
            })
    }
}

/// The A/M/D changes from `old` to `new`, sorted by path.
pub fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let mut out = Vec::new();
    for (path, o) in old {
        match new.get(path) {
            None => out.push(Change {
                path: path.clone(),
                status: Status::Deleted,
                old: Some(*o),
                new: None,
            }),
            Some(n) if n != o => out.push(Change {
                path: path.clone(),
                status: Status::Modified,
                old: Some(*o),
                new: Some(*n),
            }),
            Some(_) => {}
        }
    }
    for (path, n) in new {
        if !old.contains_key(path) {
            out.push(Change {
                path: path.clone(),
                status: Status::Added,
                old: None,
                new: Some(*n),
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// How far back [`memkit_history`] looks for a commit of memkit's.
const HISTORY_SEARCH_DEPTH: usize = 10_000;

/// Whether the first-parent history from `head` holds a commit memkit made
/// (a user's own commit, such as a `git revert`, may sit on top of them).
fn memkit_history(repo: &gix::Repository, head: ObjectId) -> bool {
    let mut next = Some(head);
    for _ in 0..HISTORY_SEARCH_DEPTH {
        let Some(id) = next else {
            return false;
        };
        let Ok(commit) = repo.find_commit(id) else {
            return false;
        };
        if commit.author().is_ok_and(|a| a.email == AUTHOR_EMAIL) {
            return true;
        }
        next = commit.parent_ids().next().map(|p| p.detach());
    }
    false
}

/// Whether Codex's own memory writer has worked in `root`: its
/// `.codex-baseline/`, its baseline version file in `.git`, or its
/// baseline commit at HEAD. (A repository of the user's own, without these,
/// is committed on top of, never re-baselined.)
pub fn codex_writer_traces(root: &Path) -> bool {
    if root.join(super::layout::FOREIGN_BASELINE_DIR).exists()
        || root.join(".git").join("codex-baseline-version").exists()
    {
        return true;
    }
    describe_head(root)
        .is_some_and(|(_, message)| message.starts_with("Initialize Codex git baseline"))
}

/// Whether the folder's repository holds memkit's history: `Some(true)`
/// when it does, `Some(false)` when its commits are another program's, `None`
/// when there is no readable repository with a commit (read-only; for
/// `memkit doctor` and the move from the old default folder).
pub fn written_by_memkit(root: &Path) -> Option<bool> {
    if !is_real_dir(&root.join(".git")) {
        return None;
    }
    let repo = gix::open(root).ok()?;
    let head = repo.head().ok()?.id()?.detach();
    Some(memkit_history(&repo, head))
}

/// The short id and message of the baseline's HEAD commit, without creating
/// or repairing anything (for `memkit status`).
pub fn describe_head(root: &Path) -> Option<(String, String)> {
    if !is_real_dir(&root.join(".git")) {
        return None;
    }
    let repo = gix::open(root).ok()?;
    let id = repo.head().ok()?.id()?.detach();
    let commit = repo.find_commit(id).ok()?;
    let message = commit.message_raw_sloppy().to_string();
    let first = message.lines().next().unwrap_or("").to_string();
    Some((id.to_hex_with_len(7).to_string(), first))
}
