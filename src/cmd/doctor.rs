//! `memkit doctor`: checks everything a nightly run needs and says how to fix
//! what is wrong, one line per problem.

use super::Ctx;
use crate::cli::DoctorArgs;
use crate::config::{Config, ConsolidateBackendKind, ExtractBackendKind};
use crate::error::Result;
use crate::memory::layout::refuse_symlinked_root;
use crate::store::Store;
use crate::ui;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    Info,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
struct Check {
    name: &'static str,
    level: Level,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

fn check(
    name: &'static str,
    level: Level,
    message: impl Into<String>,
    fix: Option<String>,
) -> Check {
    Check {
        name,
        level,
        message: message.into(),
        fix,
    }
}

/// Runs every check; exit 1 when something must be fixed.
pub fn run(ctx: &Ctx, args: &DoctorArgs) -> Result<i32> {
    let cfg = &ctx.cfg;
    let mut checks = vec![check(
        "config",
        Level::Ok,
        match &cfg.config_file {
            Some(p) => format!("{} is valid", p.display()),
            None => "no config file; defaults apply".to_string(),
        },
        None,
    )];
    checks.extend(sources(cfg));
    checks.push(writable_dir("memkit_home", &cfg.memkit_home));
    checks.push(memory_root(cfg));
    checks.push(database(cfg));
    checks.push(extract_backend(cfg, args.offline));
    checks.push(consolidate_backend(cfg, args.offline));
    checks.push(codex_memories(cfg));
    checks.push(claude_hook(cfg));
    let failed = checks.iter().any(|c| c.level == Level::Fail);
    if ctx.json {
        ui::json_line(&serde_json::json!({"ok": !failed, "checks": checks}));
    } else {
        for c in &checks {
            let tag = match c.level {
                Level::Ok => "ok  ",
                Level::Info => "info",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            match &c.fix {
                Some(fix) => crate::outln!("{tag} {}: {} — fix: {fix}", c.name, c.message),
                None => crate::outln!("{tag} {}: {}", c.name, c.message),
            }
        }
    }
    Ok(if failed { 1 } else { 0 })
}

fn sources(cfg: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    let mut found = 0;
    for (enabled, name, dir, env) in [
        (
            cfg.read_codex,
            "codex_home",
            cfg.codex_home.join("sessions"),
            "CODEX_HOME or codex_home",
        ),
        (
            cfg.read_claude,
            "claude_home",
            cfg.claude_home.join("projects"),
            "CLAUDE_CONFIG_DIR or claude_home",
        ),
    ] {
        if !enabled {
            out.push(check(
                name,
                Level::Info,
                "reading is disabled in [sources]",
                None,
            ));
        } else if dir.is_dir() {
            found += 1;
            out.push(check(
                name,
                Level::Ok,
                format!("{} exists", dir.display()),
                None,
            ));
        } else {
            out.push(check(
                name,
                Level::Warn,
                format!(
                    "{} does not exist: no sessions to read there",
                    dir.display()
                ),
                Some(format!("set {env} if the agent keeps its data elsewhere")),
            ));
        }
    }
    if found == 0 {
        out.push(check(
            "sessions",
            Level::Fail,
            "no session folder found for any enabled agent",
            Some(
                "point codex_home / claude_home at the folders that hold sessions/ or projects/"
                    .into(),
            ),
        ));
    }
    out
}

/// Whether a file can be created in `dir` (created if missing).
fn can_write(dir: &Path) -> std::result::Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let probe = dir.join(format!(".memkit-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"x").map_err(|e| e.to_string())?;
    std::fs::remove_file(&probe).map_err(|e| e.to_string())
}

fn writable_dir(name: &'static str, dir: &Path) -> Check {
    match can_write(dir) {
        Ok(()) => check(
            name,
            Level::Ok,
            format!("{} is writable", dir.display()),
            None,
        ),
        Err(e) => check(
            name,
            Level::Fail,
            format!("{} is not writable: {e}", dir.display()),
            Some("fix the permissions or choose another folder in the config".into()),
        ),
    }
}

fn memory_root(cfg: &Config) -> Check {
    let root = &cfg.memory_root;
    if let Err(e) = refuse_symlinked_root(root) {
        return check(
            "memory_root",
            Level::Fail,
            e.to_string(),
            Some(format!(
                "set memory_root to the real folder instead of the link {}",
                root.display()
            )),
        );
    }
    if !root.exists() {
        let parent = root
            .ancestors()
            .skip(1)
            .find(|a| a.exists())
            .unwrap_or(Path::new("/"));
        let writable = std::fs::metadata(parent).is_ok_and(|m| !m.permissions().readonly());
        return if writable {
            check(
                "memory_root",
                Level::Ok,
                format!("{} will be created by the first run", root.display()),
                None,
            )
        } else {
            check(
                "memory_root",
                Level::Fail,
                format!(
                    "{} cannot be created: {} is read-only",
                    root.display(),
                    parent.display()
                ),
                Some("choose a memory_root in a writable folder".into()),
            )
        };
    }
    let mut c = writable_dir("memory_root", root);
    if c.level == Level::Ok {
        match crate::memory::git::describe_head(root) {
            Some((commit, _)) => c.message.push_str(&format!("; baseline at {commit}")),
            None if root.join(".git").exists() => {
                c.level = Level::Warn;
                c.message.push_str("; its .git is unreadable");
                c.fix = Some(
                    "nothing to do: the next `memkit diff` or `memkit run` rebuilds the baseline"
                        .into(),
                );
            }
            None => c
                .message
                .push_str("; no baseline yet (the first run creates it)"),
        }
    }
    c
}

fn database(cfg: &Config) -> Check {
    let path = cfg.db_path();
    let store = match Store::open(&path) {
        Ok(s) => s,
        Err(e) => {
            return check(
                "database",
                Level::Fail,
                e.to_string(),
                Some("upgrade memkit, or move the file away to start over (memories can be re-extracted)".into()),
            );
        }
    };
    let result: std::result::Result<String, _> =
        store
            .conn()
            .query_row("PRAGMA quick_check", [], |r| r.get(0));
    match result {
        Ok(ok) if ok == "ok" => check(
            "database",
            Level::Ok,
            format!(
                "{} passes quick_check (schema {})",
                path.display(),
                crate::store::SCHEMA_VERSION
            ),
            None,
        ),
        Ok(problem) => check(
            "database",
            Level::Fail,
            format!("{}: quick_check reports {problem}", path.display()),
            Some(
                "restore it from a backup, or move it away and run `memkit run` to rebuild".into(),
            ),
        ),
        Err(e) => check(
            "database",
            Level::Fail,
            format!("{}: {e}", path.display()),
            None,
        ),
    }
}

/// The program of an argv exists (a path, or a name found on PATH).
fn program_found(argv: &[String]) -> Option<PathBuf> {
    let program = argv.first()?;
    let p = Path::new(program);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|c| c.is_file())
    })
}

fn transport_check(
    name: &'static str,
    kind: ExtractBackendKind,
    base_url: &str,
    api_key_env: &str,
    command: &[String],
    offline: bool,
) -> Check {
    use crate::backends::transport::{HttpClient, api_key, base_url as base_url_of};
    match kind {
        ExtractBackendKind::Heuristic => {
            check(name, Level::Ok, "heuristic (offline, built in)", None)
        }
        ExtractBackendKind::Command => match program_found(command) {
            Some(p) => check(
                name,
                Level::Ok,
                format!("command backend runs {}", p.display()),
                None,
            ),
            None => check(
                name,
                Level::Fail,
                format!(
                    "command backend program {:?} not found",
                    command.first().map(String::as_str).unwrap_or("")
                ),
                Some("set command = [\"/full/path/to/program\", …] in the config".into()),
            ),
        },
        ExtractBackendKind::Openai | ExtractBackendKind::Chat => {
            let key = api_key(api_key_env);
            if kind == ExtractBackendKind::Openai && key.is_none() {
                return check(
                    name,
                    Level::Fail,
                    format!("the openai backend has no API key (${api_key_env} is not set)"),
                    Some(format!(
                        "export {api_key_env}=… in the environment cron uses"
                    )),
                );
            }
            let base = base_url_of(kind, base_url);
            let url = format!("{base}/models");
            if offline {
                return check(
                    name,
                    Level::Info,
                    format!(
                        "{} backend at {base} not contacted (--offline)",
                        kind.name()
                    ),
                    None,
                );
            }
            match HttpClient::new(std::time::Duration::from_secs(10), 0).probe(&url, key.as_deref())
            {
                Ok(s) if (200..300).contains(&s) => check(
                    name,
                    Level::Ok,
                    format!("{} answers at {base}", kind.name()),
                    None,
                ),
                Ok(s) if s == 401 || s == 403 => check(
                    name,
                    Level::Fail,
                    format!("{url} refused the API key (HTTP {s})"),
                    Some(format!("check ${api_key_env}")),
                ),
                Ok(s) => check(name, Level::Warn, format!("{url} answered HTTP {s}"), None),
                Err(e) => check(
                    name,
                    Level::Fail,
                    format!("cannot reach the {} backend: {e}", kind.name()),
                    Some("start the server or fix base_url in the config".into()),
                ),
            }
        }
    }
}

fn extract_backend(cfg: &Config, offline: bool) -> Check {
    let e = &cfg.extract;
    transport_check(
        "extract",
        e.backend,
        &e.base_url,
        &e.api_key_env,
        &e.command,
        offline,
    )
}

fn consolidate_backend(cfg: &Config, offline: bool) -> Check {
    let c = &cfg.consolidate;
    match c.backend {
        ConsolidateBackendKind::Heuristic => check(
            "consolidate",
            Level::Ok,
            "heuristic (offline, built in)",
            None,
        ),
        ConsolidateBackendKind::Model => transport_check(
            "consolidate",
            c.transport,
            &c.base_url,
            &c.api_key_env,
            &c.command,
            offline,
        ),
        ConsolidateBackendKind::Agent => match program_found(&c.agent_command) {
            Some(p) => check(
                "consolidate",
                Level::Ok,
                format!(
                    "agent backend runs {} (timeout {})",
                    p.display(),
                    humantime::format_duration(c.timeout)
                ),
                None,
            ),
            None => check(
                "consolidate",
                Level::Fail,
                "the agent backend's program is not found",
                Some("set agent_command = [\"codex\", \"exec\", …] with a program on PATH".into()),
            ),
        },
    }
}

fn codex_memories(cfg: &Config) -> Check {
    let path = cfg.codex_home.join("config.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return check(
            "codex",
            Level::Info,
            format!("no {} (Codex not configured here)", path.display()),
            None,
        );
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return check(
            "codex",
            Level::Warn,
            format!("{} is not valid TOML", path.display()),
            None,
        );
    };
    let flag = |table: &str, key: &str| {
        doc.get(table)
            .and_then(|t| t.get(key))
            .and_then(toml::Value::as_bool)
    };
    let feature_on = flag("features", "memories")
        .or(flag("features", "memory_tool"))
        .unwrap_or(false);
    let generates = flag("memories", "generate_memories").unwrap_or(true);
    let uses = flag("memories", "use_memories").unwrap_or(true);
    let same_folder = cfg.memory_root == cfg.codex_home.join("memories");
    if feature_on && generates && same_folder {
        return check(
            "codex",
            Level::Fail,
            format!(
                "Codex's own memory generation is on and writes the same folder {}",
                cfg.memory_root.display()
            ),
            Some(format!(
                "set [memories] generate_memories = false in {} (two writers would fight)",
                path.display()
            )),
        );
    }
    if feature_on && uses && same_folder {
        return check(
            "codex",
            Level::Ok,
            "Codex reads memkit's folder natively ([features] memories, use_memories)",
            None,
        );
    }
    check(
        "codex",
        Level::Info,
        "Codex does not read the memory folder; to let it, set [features] memories = true and [memories] generate_memories = false, use_memories = true",
        None,
    )
}

fn claude_hook(cfg: &Config) -> Check {
    let path = cfg.claude_home.join("settings.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return check(
            "claude_hook",
            Level::Info,
            "no Claude Code settings.json; no SessionStart hook to check",
            None,
        );
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return check(
            "claude_hook",
            Level::Warn,
            format!("{} is not valid JSON", path.display()),
            None,
        );
    };
    let commands: Vec<String> = v
        .pointer("/hooks/SessionStart")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
        .flat_map(|m| {
            m.get("hooks")
                .and_then(|h| h.as_array())
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|h| {
            h.get("command")
                .and_then(|c| c.as_str())
                .map(str::to_string)
        })
        .filter(|c| c.contains("memkit"))
        .collect();
    let Some(command) = commands.first() else {
        return check(
            "claude_hook",
            Level::Info,
            "no SessionStart hook runs `memkit inject` (see the README to add one)",
            None,
        );
    };
    let argv: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    match program_found(&argv) {
        Some(_) if command.contains("inject") => check(
            "claude_hook",
            Level::Ok,
            format!("SessionStart runs `{command}`"),
            None,
        ),
        Some(_) => check(
            "claude_hook",
            Level::Warn,
            format!("the SessionStart hook `{command}` does not call `memkit inject`"),
            Some("use `memkit inject --format claude-hook`".into()),
        ),
        None => check(
            "claude_hook",
            Level::Fail,
            format!("the SessionStart hook `{command}` names a program that is not found"),
            Some("use the full path of memkit in the hook command".into()),
        ),
    }
}
