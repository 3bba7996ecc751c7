//! The memory tools `memkit mcp` serves: each a JSON schema for its input
//! and a handler over the same library functions the CLI commands use.
//! A handler's error is a tool error (the model sees it and may try again),
//! never a crash.

use crate::config::Config;
use crate::memory::extensions::notes_rel;
use crate::memory::layout::safe_join;
use crate::memory::notes;
use crate::search::{self, SearchOptions, units};
use crate::store::Store;
use crate::store::threads;
use crate::util::time::now_secs;
use serde_json::{Value, json};

/// Most hits `search_memories` returns.
const MAX_LIMIT: u64 = 50;
/// Most lines `get_memory` returns at once.
const MAX_LINES: usize = 400;
/// Longest note `add_memory` takes, bytes.
const MAX_NOTE_BYTES: usize = 64 * 1024;

/// A tool's answer: text for the model, and the same as structured content.
pub struct Answer {
    /// What the model reads.
    pub text: String,
    /// Machine-readable content (`structuredContent`).
    pub structured: Value,
}

/// The `tools/list` entries.
pub fn definitions() -> Value {
    json!([
        {
            "name": "search_memories",
            "title": "Search memory",
            "description": "Search the long-term memory of past coding sessions (commands that \
    worked, fixes for failures, project facts, the user's preferences, notes, skills). Full-text with \
    stemming and developer synonyms, so ask in your own words; the current project's hits come first. \
    Use it before grepping when the memory summary does not answer. Each hit names its file:lines \
    for get_memory.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1,
                              "description": "A question or keywords, e.g. \"how do we deploy\"."},
                    "project": {"type": "string",
                                "description": "The project directory whose hits rank first (default: the server's working directory)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                              "description": "At most this many hits (default 8)."},
                    "sessions": {"type": "boolean",
                                 "description": "Also search the past sessions' transcripts (slower)."}
                },
                "required": ["query"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "get_memory",
            "title": "Read memory",
            "description": "Read part of a memory file: by location (\"MEMORY.md:12-30\", or a \
    file alone for its start) or by the id of a search hit.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "location": {"type": "string",
                                 "description": "file:first-last, relative to the memory folder, e.g. \"MEMORY.md:12-30\"."},
                    "id": {"type": "integer", "description": "A hit id from search_memories."}
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "list_memories",
            "title": "List memory",
            "description": "List what the memory holds: each project with its task sections \
    (MEMORY.md line ranges), the notes and the skills.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "project": {"type": "string", "description": "Only this project (a directory)."}
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "add_memory",
            "title": "Add a note to memory",
            "description": "Save a note for future sessions (a fact, a preference, a procedure). \
    It is searchable at once and folded into MEMORY.md at the next consolidation. Never put secrets \
    in it (they are redacted).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1, "maxLength": MAX_NOTE_BYTES}
                },
                "required": ["text"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false}
        },
        {
            "name": "delete_memory",
            "title": "Delete from memory",
            "description": "Delete a note (by its file name from list_memories), or forget a \
    past session (by id): its memories are removed at the next sync and it is never read again.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "note": {"type": "string", "description": "A note's file name."},
                    "session": {"type": "string", "description": "A session id or a unique prefix of one."}
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": true}
        }
    ])
}

/// The `tools/list` entry of tool `name`.
pub fn definition(name: &str) -> Option<Value> {
    match definitions() {
        Value::Array(tools) => tools.into_iter().find(|t| t["name"] == name),
        _ => None,
    }
}

/// The state a tool call needs.
pub struct Tools {
    cfg: Config,
    store: Store,
    /// Where the server runs: the default current project.
    cwd: Option<String>,
    /// The `[search]` embedding model, when one is configured and usable.
    embedder: Option<crate::search::Embedder>,
}

impl Tools {
    /// Tools over `cfg`'s database and memory folder.
    pub fn new(cfg: Config, store: Store, cwd: Option<String>) -> Tools {
        let embedder = crate::search::configured_embedder(&cfg);
        Tools {
            cfg,
            store,
            cwd,
            embedder,
        }
    }

    /// Runs tool `name` with `args`; `Err` is a tool error for the model.
    pub fn call(&mut self, name: &str, args: &Value) -> Result<Answer, String> {
        let args = args.as_object().ok_or("arguments must be an object")?;
        let schema = definition(name).ok_or(format!("no tool named {name:?}"))?;
        let allowed = &schema["inputSchema"]["properties"];
        if let Some(extra) = args.keys().find(|k| allowed.get(k.as_str()).is_none()) {
            return Err(format!("{name}: unknown argument {extra:?}"));
        }
        let arg = Args(args);
        match name {
            "search_memories" => self.search(&arg),
            "get_memory" => self.get(&arg),
            "list_memories" => self.list(&arg),
            "add_memory" => self.add(&arg),
            _ => self.delete(&arg),
        }
        .map_err(|e| format!("{name}: {e}"))
    }

    /// Brings the search index up to date with the memory folder.
    fn refresh_index(&mut self) -> Result<(), String> {
        search::refresh(self.store.conn_mut(), &self.cfg.memory_root)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn search(&mut self, args: &Args) -> Result<Answer, String> {
        let query = args.text("query")?.ok_or("query is required")?;
        let limit = match args.0.get("limit") {
            None => 8,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or(format!("limit must be an integer from 1 to {MAX_LIMIT}"))?,
        };
        let opts = SearchOptions {
            query: query.to_string(),
            project: args
                .text("project")?
                .map(str::to_string)
                .or(self.cwd.clone()),
            limit: limit as usize,
            sessions: args.flag("sessions")?,
        };
        let found = search::search(
            &mut self.store,
            &self.cfg.memory_root,
            &opts,
            self.embedder.as_ref(),
        )
        .map_err(|e| e.to_string())?;
        let hits: Vec<Value> = found.iter().map(search::Hit::to_json).collect();
        let mut text = String::new();
        if found.is_empty() {
            text.push_str(&format!("Nothing in memory matches {query:?}."));
        }
        for (n, hit) in found.iter().enumerate() {
            let id = hit.id.map_or(String::new(), |id| format!(" (id {id})"));
            let project = hit.project.as_deref().unwrap_or("all projects");
            text.push_str(&format!(
                "{}. {}{id} [{project}]\n{}\n\n",
                n + 1,
                hit.location(),
                if hit.text.is_empty() {
                    &hit.snippet
                } else {
                    &hit.text
                }
            ));
        }
        Ok(Answer {
            text: text.trim_end().to_string(),
            structured: json!({"hits": hits}),
        })
    }

    fn get(&mut self, args: &Args) -> Result<Answer, String> {
        let (rel, range) = match (args.text("location")?, args.0.get("id")) {
            (Some(loc), None) => parse_location(loc)?,
            (None, Some(id)) => {
                let id = id.as_i64().ok_or("id must be an integer")?;
                self.refresh_index()?;
                let hit = search::unit_hit(self.store.conn(), id)
                    .map_err(|e| e.to_string())?
                    .ok_or(format!("no memory unit with id {id} (search again)"))?;
                (hit.file, Some((hit.line_start, hit.line_end)))
            }
            _ => return Err("give either location or id".into()),
        };
        if !units::is_indexed(&rel) {
            return Err(format!("{rel:?} is not a memory file"));
        }
        let path = safe_join(&self.cfg.memory_root, &rel).map_err(|e| e.to_string())?;
        let meta = std::fs::symlink_metadata(&path).map_err(|e| format!("{rel}: {e}"))?;
        if !meta.is_file() || meta.len() > search::index::MAX_FILE_BYTES {
            return Err(format!("{rel} is not a readable memory file"));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{rel}: {e}"))?;
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let (start, end) = range.unwrap_or((1, MAX_LINES));
        if start == 0 || start > lines.len().max(1) {
            return Err(format!("{rel} has {} lines", lines.len()));
        }
        let end = end.clamp(start, lines.len()).min(start + MAX_LINES - 1);
        let body = crate::redact::redact(&lines[start - 1..end].join("\n")).into_owned();
        Ok(Answer {
            text: format!("{rel}:{start}-{end}\n{body}"),
            structured: json!({"file": rel, "line_start": start, "line_end": end,
                               "total_lines": lines.len(), "text": body}),
        })
    }

    fn list(&mut self, args: &Args) -> Result<Answer, String> {
        let only = args.text("project")?;
        self.refresh_index()?;
        let listing = search::listing(self.store.conn()).map_err(|e| e.to_string())?;
        let mut text = String::new();
        let mut projects = Vec::new();
        for p in listing.projects {
            if only.is_some_and(|o| p.project.as_deref() != Some(o.trim_end_matches('/'))) {
                continue;
            }
            text.push_str(&format!(
                "{} ({} units)\n",
                p.project.as_deref().unwrap_or("(all projects)"),
                p.units
            ));
            for s in &p.sections {
                text.push_str(&format!(
                    "  - {} — {}:{}-{}\n",
                    s.title, s.file, s.start, s.end
                ));
            }
            projects.push(json!({"project": p.project, "units": p.units,
                "sections": p.sections.iter().map(|s| json!({"title": s.title,
                    "location": format!("{}:{}-{}", s.file, s.start, s.end)})).collect::<Vec<_>>()}));
        }
        for (label, files) in [("notes", &listing.notes), ("skills", &listing.skills)] {
            if !files.is_empty() {
                text.push_str(&format!("{label}:\n"));
                for f in files {
                    text.push_str(&format!("  - {f}\n"));
                }
            }
        }
        if text.is_empty() {
            text.push_str("The memory is empty.");
        }
        Ok(Answer {
            text: text.trim_end().to_string(),
            structured: json!({"projects": projects, "notes": listing.notes, "skills": listing.skills}),
        })
    }

    fn add(&mut self, args: &Args) -> Result<Answer, String> {
        let text = args.text("text")?.ok_or("text is required")?;
        if text.len() > MAX_NOTE_BYTES {
            return Err(format!("a note is at most {} KiB", MAX_NOTE_BYTES >> 10));
        }
        let path =
            notes::create(&self.cfg.memory_root, text, now_secs()).map_err(|e| e.to_string())?;
        let rel = path
            .strip_prefix(&self.cfg.memory_root)
            .unwrap_or(&path)
            .display()
            .to_string();
        self.refresh_index()?;
        Ok(Answer {
            text: format!(
                "Saved {rel}; it is searchable now and folded into MEMORY.md at the next consolidation."
            ),
            structured: json!({"note": rel}),
        })
    }

    fn delete(&mut self, args: &Args) -> Result<Answer, String> {
        match (args.text("note")?, args.text("session")?) {
            (Some(note), None) => {
                let name = note.rsplit('/').next().unwrap_or(note);
                notes::validate_name(name).map_err(|e| e.to_string())?;
                let rel = format!("{}/{name}", notes_rel());
                let path = safe_join(&self.cfg.memory_root, &rel).map_err(|e| e.to_string())?;
                std::fs::remove_file(&path).map_err(|e| format!("{rel}: {e}"))?;
                self.refresh_index()?;
                Ok(Answer {
                    text: format!("Deleted {rel}."),
                    structured: json!({"deleted_note": rel}),
                })
            }
            (None, Some(session)) => {
                let row = threads::find_by_id_or_prefix(self.store.conn(), session)
                    .and_then(|l| {
                        l.require(session, || format!("no session {session:?} in the catalog"))
                    })
                    .map_err(|e| e.to_string())?;
                let done = crate::store::forget::forget(
                    self.store.conn_mut(),
                    std::slice::from_ref(&row.id),
                    now_secs(),
                )
                .map_err(|e| e.to_string())?;
                Ok(Answer {
                    text: format!(
                        "Forgot session {} ({} memories deleted); the next sync removes it from the memory files.",
                        row.id, done.outputs_deleted
                    ),
                    structured: json!({"forgotten": row.id, "outputs_deleted": done.outputs_deleted}),
                })
            }
            _ => Err("give either note or session".into()),
        }
    }
}

/// A tool's arguments, with typed getters that say what is wrong.
struct Args<'a>(&'a serde_json::Map<String, Value>);

impl Args<'_> {
    fn text(&self, key: &str) -> Result<Option<&str>, String> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s)),
            Some(Value::String(_)) => Err(format!("{key} is empty")),
            Some(_) => Err(format!("{key} must be a string")),
        }
    }

    fn flag(&self, key: &str) -> Result<bool, String> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("{key} must be true or false")),
        }
    }
}

/// `file`, `file:12` or `file:12-30` → the file and the line range.
fn parse_location(loc: &str) -> Result<(String, Option<(usize, usize)>), String> {
    let bad = || format!("{loc:?}: a location is file, file:line or file:first-last");
    let Some((file, lines)) = loc.rsplit_once(':') else {
        return Ok((loc.to_string(), None));
    };
    let (a, b) = lines.split_once('-').unwrap_or((lines, lines));
    let start: usize = a.trim().parse().map_err(|_| bad())?;
    let end: usize = b.trim().parse().map_err(|_| bad())?;
    if start == 0 || end < start {
        return Err(bad());
    }
    Ok((file.to_string(), Some((start, end))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        assert_eq!(
            parse_location("MEMORY.md").unwrap(),
            ("MEMORY.md".into(), None)
        );
        assert_eq!(
            parse_location("MEMORY.md:12-30").unwrap(),
            ("MEMORY.md".into(), Some((12, 30)))
        );
        assert_eq!(
            parse_location("a.md:7").unwrap(),
            ("a.md".into(), Some((7, 7)))
        );
        assert!(parse_location("a.md:9-3").is_err());
        assert!(parse_location("a.md:x").is_err());
        assert!(parse_location("a.md:0").is_err());
    }

    #[test]
    fn every_tool_has_an_object_schema_that_forbids_unknown_arguments() {
        let defs = definitions();
        let names: Vec<&str> = defs
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "search_memories",
                "get_memory",
                "list_memories",
                "add_memory",
                "delete_memory"
            ]
        );
        for d in defs.as_array().unwrap() {
            assert_eq!(d["inputSchema"]["type"], "object", "{d}");
            assert_eq!(d["inputSchema"]["additionalProperties"], false, "{d}");
            assert!(d["description"].as_str().unwrap().len() > 40);
        }
    }
}
