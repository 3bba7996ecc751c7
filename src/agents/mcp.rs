//! Registering `memkit mcp` with an agent (`memkit install <agent> --mcp`):
//! Codex reads `[mcp_servers.memkit]` in `$CODEX_HOME/config.toml`; Claude
//! Code reads `mcpServers.memkit` in its state file (`~/.claude.json`, or
//! `$CLAUDE_CONFIG_DIR/.claude.json` when that variable is set — where
//! `claude mcp add --scope user` writes). Both files are edited as text:
//! only memkit's entry is added, replaced or removed; everything else stays
//! byte for byte, and a file that does not parse is refused unchanged.

use super::{Agent, Change, jsonedit};
use crate::config::Config;
use crate::error::{Error, Result};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The server's name in the agents' settings (Codex shows its tools to the
/// model under `mcp__memkit`, Claude Code as `mcp__memkit__<tool>`).
pub const SERVER_NAME: &str = "memkit";

/// The TOML table memkit writes in Codex's `config.toml`.
const CODEX_TABLE: &str = "[mcp_servers.memkit]";

/// Environment variables Codex passes on to the server: Codex starts MCP
/// servers with only `HOME`, `PATH` and the locale unless told, and these say
/// where memkit's configuration and data are.
const CODEX_ENV_VARS: &[&str] = &[
    "MEMKIT_HOME",
    "MEMKIT_CONFIG",
    "XDG_CONFIG_HOME",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
];

/// The file that registers MCP servers for `agent`.
pub fn settings_file(cfg: &Config, agent: Agent) -> Result<PathBuf> {
    match agent {
        Agent::Codex => Ok(cfg.codex_home.join("config.toml")),
        Agent::Claude => Ok(claude_state_file(cfg)),
        Agent::Gemini => Err(Error::usage(
            "--mcp is for codex and claude; register `memkit mcp` in Gemini CLI's settings.json \
             under mcpServers by hand",
        )),
    }
}

/// Claude Code keeps its state file in `$CLAUDE_CONFIG_DIR` when that is
/// set (even to `~/.claude`), else beside the home folder's `.claude/`.
fn claude_state_file(cfg: &Config) -> PathBuf {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    match (set("CLAUDE_CONFIG_DIR"), set("HOME")) {
        (Some(dir), _) => PathBuf::from(dir).join(".claude.json"),
        (None, Some(home)) => PathBuf::from(home).join(".claude.json"),
        (None, None) => cfg.claude_home.join(".claude.json"),
    }
}

/// Plans registering `program mcp` as `agent`'s MCP server `memkit`.
pub fn plan_register(cfg: &Config, agent: Agent, program: &str) -> Result<Change> {
    plan(cfg, agent, |path, text| match agent {
        Agent::Codex => codex_register(path, text, program),
        _ => claude_register(path, text, program),
    })
}

/// Plans removing memkit's MCP server from `agent`'s settings.
pub fn plan_unregister(cfg: &Config, agent: Agent) -> Result<Change> {
    plan(cfg, agent, |path, text| match agent {
        Agent::Codex => codex_without(path, text),
        _ => claude_without(path, text),
    })
}

/// The change `edit` makes to `agent`'s settings file.
fn plan(
    cfg: &Config,
    agent: Agent,
    edit: impl FnOnce(&Path, &str) -> Result<String>,
) -> Result<Change> {
    let path = settings_file(cfg, agent)?;
    let before = super::read_text(&path)?;
    let after = edit(&path, &before)?;
    Ok(Change {
        agent,
        path,
        before,
        after: Some(after),
        fit: None,
    })
}

fn refuse(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::failed(format!(
        "{}: not valid ({e}); fix it first — memkit changed nothing",
        path.display()
    ))
}

/// Codex's `config.toml` without memkit's table (and its sub-tables).
fn codex_without(path: &Path, text: &str) -> Result<String> {
    toml::from_str::<toml::Table>(text).map_err(|e| refuse(path, e))?;
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == CODEX_TABLE || t.starts_with("[mcp_servers.memkit.");
        }
        if !inside {
            out.push_str(line);
        }
    }
    if inside && !out.trim().is_empty() {
        // The table was last: drop the blank line written before it.
        out = format!("{}\n", out.trim_end());
    }
    Ok(out)
}

/// Codex's `config.toml` with memkit's table at the end, brought up to date.
fn codex_register(path: &Path, text: &str, program: &str) -> Result<String> {
    let mut out = codex_without(path, text)?;
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let env_vars: Vec<String> = CODEX_ENV_VARS.iter().map(|v| quote(v)).collect();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push('\n');
    }
    out.push_str(&format!(
        "{CODEX_TABLE}\n# written by `memkit install codex --mcp`; `memkit uninstall codex --mcp` removes it\n\
         command = {}\nargs = [\"mcp\"]\nenv_vars = [{}]\n",
        quote(program),
        env_vars.join(", ")
    ));
    toml::from_str::<toml::Table>(&out).map_err(|e| {
        Error::failed(format!(
            "{}: memkit's [mcp_servers.memkit] would clash with the file's own keys ({e}); \
             changed nothing",
            path.display()
        ))
    })?;
    Ok(out)
}

/// Claude Code's state file without `mcpServers.memkit`.
fn claude_without(path: &Path, text: &str) -> Result<String> {
    if text.trim().is_empty() {
        return Ok(text.to_string());
    }
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| refuse(path, e))?;
    if !doc["mcpServers"][SERVER_NAME].is_object() {
        return Ok(text.to_string());
    }
    let root = jsonedit::root(text);
    let servers = jsonedit::members(text, &root)
        .into_iter()
        .find(|m| m.key == "mcpServers")
        .map(|m| m.value)
        .ok_or_else(|| refuse(path, "mcpServers is not an object"))?;
    let index = jsonedit::members(text, &servers)
        .iter()
        .position(|m| m.key == SERVER_NAME)
        .ok_or_else(|| refuse(path, "mcpServers.memkit"))?;
    Ok(jsonedit::remove_member(text, &servers, index))
}

/// Claude Code's state file with `mcpServers.memkit` brought up to date.
fn claude_register(path: &Path, text: &str, program: &str) -> Result<String> {
    let entry = json!({"type": "stdio", "command": program, "args": ["mcp"], "env": {}});
    let base = claude_without(path, text)?;
    let base = if base.trim().is_empty() {
        "{}\n".to_string()
    } else {
        base
    };
    let doc: serde_json::Value = serde_json::from_str(&base).map_err(|e| refuse(path, e))?;
    if !doc.is_object() {
        return Err(refuse(path, "not a JSON object"));
    }
    let root = jsonedit::root(&base);
    let servers = jsonedit::members(&base, &root)
        .into_iter()
        .find(|m| m.key == "mcpServers");
    let out = match servers {
        Some(m) if doc["mcpServers"].is_object() => {
            jsonedit::insert_member(&base, &m.value, SERVER_NAME, &entry)
        }
        Some(_) => return Err(refuse(path, "mcpServers is not an object")),
        None => jsonedit::insert_member(&base, &root, "mcpServers", &json!({SERVER_NAME: entry})),
    };
    serde_json::from_str::<serde_json::Value>(&out).map_err(|e| refuse(path, e))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_table_is_added_replaced_and_removed_leaving_the_rest() {
        let p = Path::new("config.toml");
        let user = "model = \"gpt-5\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let once = codex_register(p, user, "/bin/memkit").unwrap();
        assert!(once.starts_with(user), "{once}");
        let t: toml::Table = toml::from_str(&once).unwrap();
        assert_eq!(t["mcp_servers"]["memkit"]["args"][0].as_str(), Some("mcp"));
        assert_eq!(
            t["mcp_servers"]["memkit"]["command"].as_str(),
            Some("/bin/memkit")
        );
        let twice = codex_register(p, &once, "/bin/memkit").unwrap();
        assert_eq!(twice, once, "installing again changes nothing");
        let moved = codex_register(p, &once, "/usr/bin/memkit").unwrap();
        assert_eq!(moved.matches(CODEX_TABLE).count(), 1);
        assert_eq!(codex_without(p, &once).unwrap().trim_end(), user.trim_end());
        assert!(codex_register(p, "not = [toml", "m").is_err());
        let dotted = "mcp_servers.memkit.command = \"mine\"\n";
        assert!(
            codex_register(p, dotted, "m").is_err(),
            "a clash is refused"
        );
    }

    #[test]
    fn claude_entry_is_added_replaced_and_removed_leaving_the_rest() {
        let p = Path::new(".claude.json");
        let user = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
        let once = claude_register(p, user, "/bin/memkit").unwrap();
        let v: serde_json::Value = serde_json::from_str(&once).unwrap();
        assert_eq!(v["mcpServers"]["memkit"]["command"], "/bin/memkit");
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["numStartups"], 3);
        assert_eq!(claude_register(p, &once, "/bin/memkit").unwrap(), once);
        assert_eq!(claude_without(p, &once).unwrap(), user);
        let fresh = claude_register(p, "", "memkit").unwrap();
        let v: serde_json::Value = serde_json::from_str(&fresh).unwrap();
        assert_eq!(v["mcpServers"]["memkit"]["args"][0], "mcp");
        assert!(claude_register(p, "{oops", "m").is_err());
        assert!(claude_register(p, "{\"mcpServers\": 3}", "m").is_err());
    }
}
