//! Claude Code: SessionStart hooks in `$CLAUDE_CONFIG_DIR/settings.json`
//! that run `memkit inject --format claude-hook`, so every session gets the
//! summary as it is at that moment.
//!
//! Claude Code caps one hook's `additionalContext` at 10,000 characters
//! (JavaScript string length); a longer value reaches the model only as a
//! 2,000-character preview and a file path. memkit's block is larger than
//! that (the summary alone may take 10,000 bytes), so it is split over
//! several hook entries (`--part 1/2`, `--part 2/2`), each under the cap.
//! Claude Code passes the values of all SessionStart hooks on together, in
//! the order the hooks finish, so each part says which it is. When the
//! memory outgrows the parts installed, the summary is cut with a note
//! (`memkit status` says so and `memkit install claude` adds a part).
//!
//! `settings.json` is edited as text: only memkit's hook entries are added
//! or removed; every other byte (other settings, other hooks, formatting)
//! stays as it was. Invalid JSON is an error that changes nothing.

use super::jsonedit::{
    self, elements, insert_member, members, push_element, remove_element, remove_member, root,
};
use super::{Agent, BlockSource, Fit, ReadPath};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::readpath::PART_HEADER_PREFIX;
use crate::readpath::inject::{Limit, Measure};
use serde_json::{Value, json};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Claude Code's cap on one hook's `additionalContext`, in characters.
pub const HOOK_VALUE_MAX: usize = 10_000;
/// What memkit puts in one value (a margin under the cap).
const PART_MAX: usize = 9_900;
/// Hook entries installed at least.
pub const MIN_PARTS: usize = 2;

/// The read path in Claude Code's user settings.
pub struct ClaudeReadPath {
    path: PathBuf,
    program: String,
}

/// What install had to create for its entries: said in the first entry's
/// command (a shell comment), so uninstall removes exactly that and the
/// file comes back byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Created {
    /// The settings file itself.
    File,
    /// The `hooks` object.
    Hooks,
    /// The `hooks.SessionStart` list.
    SessionStart,
}

impl Created {
    fn word(self) -> &'static str {
        match self {
            Created::File => "file",
            Created::Hooks => "hooks",
            Created::SessionStart => "SessionStart",
        }
    }
}

/// The shell comment that records what install created.
const CREATED_NOTE: &str = " # memkit install created: ";

impl ClaudeReadPath {
    /// The hooks in `<claude_home>/settings.json`, running this memkit
    /// binary: `memkit` when that is what `PATH` finds, else its path.
    pub fn new(cfg: &Config) -> Self {
        ClaudeReadPath {
            path: cfg.claude_home.join("settings.json"),
            program: super::memkit_program(),
        }
    }

    /// The settings text with memkit's hooks, running `program`, brought up to date.
    fn write_hooks(
        &self,
        current: &str,
        source: &BlockSource,
        program: &str,
    ) -> Result<(String, Fit)> {
        let doc = parse(&self.path, current)?;
        let size = Measure::Utf16.of(&source.render(None, None).text);
        let parts = (MIN_PARTS..)
            .find(|&n| n * capacity(n) >= size)
            .unwrap_or(MIN_PARTS);
        let present: Vec<String> = doc
            .as_ref()
            .map(memkit_entries)
            .unwrap_or_default()
            .into_iter()
            .flat_map(|(_, c)| c)
            .collect();
        let text = if present.is_empty() {
            let created = creation_needed(&self.path, current)?;
            add_entries(&self.path, current, &entries(program, parts, created))?
        } else {
            let created = present.iter().find_map(|c| created_of(c));
            let wanted = entries(program, parts, created);
            if present == commands_of(&wanted) {
                current.to_string()
            } else {
                let without = remove_entries(&self.path, current, false)?;
                add_entries(&self.path, &without, &wanted)?
            }
        };
        let fit = self.fit(&text, source)?;
        Ok((text, fit))
    }
}

/// The hook entries for `parts` parts running `program`.
fn entries(program: &str, parts: usize, created: Option<Created>) -> Vec<Value> {
    (1..=parts)
        .map(|i| {
            let mut command = format!(
                "{} inject --format claude-hook --part {i}/{parts} --project \"$CLAUDE_PROJECT_DIR\"",
                shell_quote(program)
            );
            if let (1, Some(c)) = (i, created) {
                command.push_str(CREATED_NOTE);
                command.push_str(c.word());
            }
            json!({"hooks": [{"type": "command", "command": command}]})
        })
        .collect()
}

fn commands_of(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| e["hooks"][0]["command"].as_str().map(str::to_string))
        .collect()
}

/// What a memkit hook command says install created.
fn created_of(command: &str) -> Option<Created> {
    match command.split(CREATED_NOTE).nth(1)?.trim() {
        "file" => Some(Created::File),
        "hooks" => Some(Created::Hooks),
        "SessionStart" => Some(Created::SessionStart),
        _ => None,
    }
}

/// The program a memkit hook command runs.
fn program_of(command: &str) -> Option<String> {
    match command.strip_prefix('\'') {
        Some(rest) => Some(rest.split('\'').next()?.to_string()),
        None => command.split_whitespace().next().map(str::to_string),
    }
}

/// `s` as one shell word.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Whether a hook command is memkit's read path (installed, or the single
/// hook the README once told people to add by hand, which install replaces).
pub fn is_memkit_hook(command: &str) -> bool {
    command.contains(" inject ") && command.contains("--format claude-hook")
}

/// The program the memkit hooks in a settings text run.
pub fn hook_program(text: &str) -> Option<String> {
    let doc: Value = serde_json::from_str(text).ok()?;
    memkit_entries(&doc)
        .into_iter()
        .flat_map(|(_, c)| c)
        .find_map(|c| program_of(&c))
}

/// The number of parts a memkit hook command asks for (`--part i/N`).
fn parts_of(command: &str) -> Option<usize> {
    let rest = command.split("--part ").nth(1)?;
    let spec = rest.split_whitespace().next()?;
    spec.split_once('/')?.1.parse().ok()
}

/// The document, checked: valid JSON whose top level is an object.
fn parse(path: &Path, text: &str) -> Result<Option<Value>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        Error::failed(format!(
            "{}:{}:{}: not valid JSON ({e}); memkit changed nothing",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    if !v.is_object() {
        return Err(Error::failed(format!(
            "{}: the settings are not a JSON object; memkit changed nothing",
            path.display()
        )));
    }
    Ok(Some(v))
}

/// The commands of every SessionStart entry that holds only memkit hooks.
fn memkit_entries(doc: &Value) -> Vec<(usize, Vec<String>)> {
    let Some(list) = doc.pointer("/hooks/SessionStart").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let hooks = entry.get("hooks")?.as_array()?;
            let commands: Vec<String> = hooks
                .iter()
                .filter_map(|h| h.get("command").and_then(Value::as_str).map(str::to_string))
                .collect();
            (!commands.is_empty()
                && commands.len() == hooks.len()
                && commands.iter().all(|c| is_memkit_hook(c)))
            .then_some((i, commands))
        })
        .collect()
}

/// The index and span of member `key` of the object at `span`. A key that
/// appears twice is an error (JSON readers take the last, a text edit the
/// first: editing either could be the wrong one).
fn member(
    path: &Path,
    text: &str,
    span: &Range<usize>,
    key: &str,
) -> Result<Option<(usize, Range<usize>)>> {
    let found: Vec<(usize, jsonedit::Member)> = members(text, span)
        .into_iter()
        .enumerate()
        .filter(|(_, m)| m.key == key)
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [(i, m)] => Ok(Some((*i, m.value.clone()))),
        [_, (_, second), ..] => {
            let line = text[..second.key_start].matches('\n').count() + 1;
            Err(Error::failed(format!(
                "{}:{line}: the key {key:?} appears twice; memkit changed nothing",
                path.display()
            )))
        }
    }
}

fn wrong_shape(path: &Path, what: &str) -> Error {
    Error::failed(format!(
        "{}: {what}; memkit changed nothing",
        path.display()
    ))
}

/// The `hooks` object and its `SessionStart` list, checked for their shape.
type HookSpans = (Option<Range<usize>>, Option<Range<usize>>);

fn hook_spans(path: &Path, text: &str) -> Result<HookSpans> {
    let top = root(text);
    let Some((_, hooks)) = member(path, text, &top, "hooks")? else {
        return Ok((None, None));
    };
    if !text[hooks.clone()].starts_with('{') {
        return Err(wrong_shape(path, "\"hooks\" is not an object"));
    }
    let list = member(path, text, &hooks, "SessionStart")?.map(|(_, l)| l);
    if list
        .as_ref()
        .is_some_and(|l| !text[l.clone()].starts_with('['))
    {
        return Err(wrong_shape(path, "\"hooks.SessionStart\" is not an array"));
    }
    Ok((Some(hooks), list))
}

/// What adding entries to `text` has to create.
fn creation_needed(path: &Path, text: &str) -> Result<Option<Created>> {
    if text.trim().is_empty() {
        return Ok(Some(Created::File));
    }
    Ok(match hook_spans(path, text)? {
        (None, _) => Some(Created::Hooks),
        (Some(_), None) => Some(Created::SessionStart),
        (Some(_), Some(_)) => None,
    })
}

/// `text` with `entries` added to `hooks.SessionStart` (created when missing).
fn add_entries(path: &Path, text: &str, entries: &[Value]) -> Result<String> {
    if text.trim().is_empty() {
        let doc = json!({"hooks": {"SessionStart": entries}});
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    let mut out = text.to_string();
    for entry in entries {
        out = match hook_spans(path, &out)? {
            (None, _) => insert_member(
                &out,
                &root(&out),
                "hooks",
                &json!({"SessionStart": [entry]}),
            ),
            (Some(hooks), None) => insert_member(&out, &hooks, "SessionStart", &json!([entry])),
            (Some(_), Some(list)) => push_element(&out, &list, entry),
        };
    }
    Ok(out)
}

/// `text` without memkit's SessionStart entries. With `clean_up`, what
/// install created for them goes too (`""`: nothing is left of the file).
fn remove_entries(path: &Path, text: &str, clean_up: bool) -> Result<String> {
    let mut out = text.to_string();
    let mut created = None;
    loop {
        let Some(doc) = parse(path, &out)? else {
            return Ok(out);
        };
        let Some((index, commands)) = memkit_entries(&doc).into_iter().next() else {
            break;
        };
        created = created.or_else(|| commands.iter().find_map(|c| created_of(c)));
        let (_, list) = hook_spans(path, &out)?;
        out = remove_element(&out, &list.expect("parsed above"), index);
    }
    let Some(created) = created.filter(|_| clean_up) else {
        return Ok(out);
    };
    let (hooks, list) = hook_spans(path, &out)?;
    if let (Some(hooks), Some(list)) = (hooks, list)
        && elements(&out, &list).is_empty()
    {
        let (index, _) = member(path, &out, &hooks, "SessionStart")?.expect("found above");
        out = remove_member(&out, &hooks, index);
        if created != Created::SessionStart {
            let top = root(&out);
            let (index, hooks) = member(path, &out, &top, "hooks")?.expect("still there");
            if members(&out, &hooks).is_empty() {
                out = remove_member(&out, &top, index);
            }
        }
    }
    if created == Created::File && members(&out, &root(&out)).is_empty() {
        return Ok(String::new());
    }
    Ok(out)
}

/// The block split into `parts` hook values, each under the cap; the
/// summary is cut (with a note) when the block does not fit them all.
/// Returns the values (as many as the block needs, at most `parts`) and how
/// many characters of the summary were left out.
pub fn hook_values(
    source: &BlockSource,
    project: Option<&str>,
    parts: usize,
) -> (Vec<String>, usize) {
    let parts = parts.max(1);
    let piece_max = PART_MAX - Measure::Utf16.of(&part_header(parts, parts));
    let total = parts * capacity(parts);
    let block = source.render(
        project,
        Some(Limit {
            max: total,
            measure: Measure::Utf16,
            name: "Claude Code's 10,000-character hook limit",
        }),
    );
    let mut pieces = split(&block.text, piece_max);
    pieces.truncate(parts);
    // The headers name the parts there are (no longer than the ones budgeted for).
    let count = pieces.len();
    let values = pieces
        .into_iter()
        .enumerate()
        .map(|(i, piece)| format!("{}{piece}", part_header(i + 1, count)))
        .collect();
    (values, block.left_out)
}

/// The line that starts part `i` of `parts` (none when there is one part).
fn part_header(i: usize, parts: usize) -> String {
    if parts == 1 {
        String::new()
    } else {
        format!("{PART_HEADER_PREFIX}{i} of {parts}]\n")
    }
}

/// How many characters of the block each of `parts` values surely holds: a
/// piece breaks at a line end in its last fifth (else mid-line), so every
/// piece but the last holds at least four fifths of its room.
fn capacity(parts: usize) -> usize {
    (PART_MAX - Measure::Utf16.of(&part_header(parts, parts))) * 4 / 5
}

/// Splits `text` into pieces of at most `max` UTF-16 units.
fn split(text: &str, max: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut units = 0;
        let mut end = rest.len();
        let mut line_end: Option<(usize, usize)> = None;
        for (i, c) in rest.char_indices() {
            if units + c.len_utf16() > max {
                end = i;
                break;
            }
            units += c.len_utf16();
            if c == '\n' {
                line_end = Some((i + 1, units));
            }
        }
        if end < rest.len()
            && let Some((at, at_units)) = line_end
            && at_units >= max * 4 / 5
        {
            end = at;
        }
        pieces.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    pieces
}

impl ReadPath for ClaudeReadPath {
    fn agent(&self) -> Agent {
        Agent::Claude
    }

    fn file(&self) -> &Path {
        &self.path
    }

    fn is_installed(&self, current: &str) -> Result<bool> {
        Ok(parse(&self.path, current)?.is_some_and(|doc| !memkit_entries(&doc).is_empty()))
    }

    fn install(&self, current: &str, source: &BlockSource) -> Result<(String, Fit)> {
        self.write_hooks(current, source, &self.program)
    }

    /// Keeps the program the installed hooks run (the memkit the user
    /// installed with); only the number of parts follows the memory.
    fn refresh(&self, current: &str, source: &BlockSource) -> Result<(String, Fit)> {
        let program = hook_program(current).unwrap_or_else(|| self.program.clone());
        self.write_hooks(current, source, &program)
    }

    fn uninstall(&self, current: &str) -> Result<Option<String>> {
        let out = remove_entries(&self.path, current, true)?;
        Ok((!out.is_empty()).then_some(out))
    }

    fn fit(&self, current: &str, source: &BlockSource) -> Result<Fit> {
        let parts = parse(&self.path, current)?
            .map(|doc| memkit_entries(&doc))
            .unwrap_or_default()
            .iter()
            .flat_map(|(_, c)| c.iter().filter_map(|c| parts_of(c)))
            .max()
            .unwrap_or(1);
        let (values, left_out) = hook_values(source, None, parts);
        Ok(Fit {
            size: values.iter().map(|v| Measure::Utf16.of(v)).sum(),
            limit: Some(parts * HOOK_VALUE_MAX),
            unit: Measure::Utf16.unit(),
            left_out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rp() -> ClaudeReadPath {
        ClaudeReadPath {
            path: PathBuf::from("settings.json"),
            program: "/opt/memkit bin/memkit".into(),
        }
    }

    /// The real read-path template with a summary of `lines` lines (about 37 bytes each).
    fn source(lines: usize) -> BlockSource {
        source_with(include_str!("../../templates/read_path.md"), lines)
    }

    fn source_with(template: &str, lines: usize) -> BlockSource {
        let summary: String = std::iter::once("v1\n".to_string())
            .chain((0..lines).map(|i| format!("- a remembered fact, number {i:05} ✓\n")))
            .collect();
        BlockSource::for_test(template, "/m", &summary)
    }

    #[test]
    fn install_and_uninstall_keep_the_users_settings_byte_for_byte() {
        let cases = [
            "",
            "{}\n",
            "{\"hooks\": {}}",
            "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"SessionStart\": []\n  }\n}\n",
            "{\n  \"theme\": \"dark\"\n}\n",
            "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]\n      }\n    ]\n  }\n}\n",
            "{\"hooks\":{\"SessionStart\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo hi\"}]}]}}",
        ];
        for user in cases {
            let (installed, _) = rp().install(user, &source(10)).unwrap();
            let doc: Value = serde_json::from_str(&installed).unwrap();
            let commands = memkit_entries(&doc);
            assert_eq!(commands.len(), 2, "{installed}");
            assert!(
                commands[0].1[0]
                    .starts_with("'/opt/memkit bin/memkit' inject --format claude-hook --part 1/2")
            );
            if !user.is_empty() {
                let before: Value = serde_json::from_str(user).unwrap();
                for key in before.as_object().unwrap().keys().filter(|k| *k != "hooks") {
                    assert_eq!(doc[key], before[key]);
                }
            }
            let (again, _) = rp().install(&installed, &source(10)).unwrap();
            assert_eq!(again, installed, "idempotent");
            let removed = rp().uninstall(&installed).unwrap();
            match user {
                "" => assert_eq!(removed, None, "install created the file"),
                _ => assert_eq!(removed.as_deref(), Some(user), "byte for byte"),
            }
        }
    }

    #[test]
    fn bad_settings_change_nothing() {
        for bad in [
            "{\"hooks\": ",
            "[1, 2]",
            "{\"hooks\": []}",
            "{\"hooks\": {\"SessionStart\": {}}}",
        ] {
            let err = rp().install(bad, &source(1)).unwrap_err().to_string();
            assert!(
                err.contains("settings.json") && err.contains("changed nothing"),
                "{err}"
            );
        }
        let err = rp()
            .install("{\n\"a\": 1,\n}", &source(1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("settings.json:3:"), "names the line: {err}");
        let twice = "{\"hooks\": {\"Stop\": []},\n \"hooks\": {}}";
        let err = rp().install(twice, &source(1)).unwrap_err().to_string();
        assert!(
            err.contains("settings.json:2: the key \"hooks\" appears twice"),
            "{err}"
        );
    }

    #[test]
    fn refresh_keeps_the_installed_program_and_install_replaces_the_old_hand_made_hook() {
        let (installed, _) = rp().install("", &source(10)).unwrap();
        let other = ClaudeReadPath {
            path: PathBuf::from("settings.json"),
            program: "/tmp/a dev build/memkit".into(),
        };
        let (refreshed, _) = other.refresh(&installed, &source(10)).unwrap();
        assert_eq!(
            refreshed, installed,
            "a consolidation run by another binary changes nothing"
        );
        assert_eq!(
            hook_program(&installed).as_deref(),
            Some("/opt/memkit bin/memkit")
        );
        let old = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "memkit inject --format claude-hook"}]}]}}"#;
        let (migrated, _) = rp().install(old, &source(10)).unwrap();
        let doc: Value = serde_json::from_str(&migrated).unwrap();
        let entries = memkit_entries(&doc);
        assert_eq!(
            entries.len(),
            2,
            "the single hook became two parts: {migrated}"
        );
        assert!(entries.iter().all(|(_, c)| c[0].contains("--part ")));
    }

    #[test]
    fn every_value_stays_under_the_cap_and_the_parts_carry_the_whole_block() {
        let src = source(255); // a summary near its 10,000-byte maximum: a block of about 12,000 characters
        let whole = src.render(None, None).text;
        assert!(Measure::Utf16.of(&whole) > HOOK_VALUE_MAX);
        let (values, left_out) = hook_values(&src, None, 2);
        assert_eq!(left_out, 0);
        assert_eq!(values.len(), 2);
        for v in &values {
            assert!(
                Measure::Utf16.of(v) <= HOOK_VALUE_MAX,
                "{}",
                Measure::Utf16.of(v)
            );
        }
        assert!(values[0].starts_with("[memkit memory, part 1 of 2]\n"));
        let joined: String = values
            .iter()
            .map(|v| v.split_once('\n').unwrap().1)
            .collect();
        assert_eq!(joined, whole);
        let (small, _) = hook_values(&source(3), None, 2);
        assert_eq!(small.len(), 1, "a small block needs one value");
        assert!(small[0].starts_with("## Memory"), "and no part header");

        let (cut, left_out) = hook_values(&src, None, 1);
        assert!(left_out > 0);
        assert_eq!(cut.len(), 1);
        assert!(Measure::Utf16.of(&cut[0]) <= HOOK_VALUE_MAX);
        assert!(cut[0].contains("did not fit Claude Code's 10,000-character hook limit"));
        // A larger block (a long template override) gets more parts at install.
        let long = format!(
            "{}{{{{ memory_summary }}}}\n",
            "Read the memory folder first.\n".repeat(400)
        );
        let (installed, fit) = rp().install("", &source_with(&long, 255)).unwrap();
        assert_eq!(fit.left_out, 0, "install adds parts for a large memory");
        assert!(installed.contains("--part 3/3"), "{installed}");
        assert!(fit.size > 2 * HOOK_VALUE_MAX);
    }
}
