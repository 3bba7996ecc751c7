//! `memkit doctor`: checks everything a nightly run needs and says how to fix
//! what is wrong, one line per problem.

use super::Ctx;
use crate::agents::Agent;
use crate::agents::codex::{SettingKind, memory_settings};
use crate::cli::DoctorArgs;
use crate::config::{Config, ConsolidateBackendKind, ExtractBackendKind};
use crate::error::Result;
use crate::memory::layout::refuse_symlinked_root;
use crate::memory::relocate::{LegacyFolder, inspect_legacy_folder};
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
    checks.extend(session_file_problems(cfg));
    checks.push(extract_backend(cfg, args.offline));
    checks.push(consolidate_backend(cfg, args.offline));
    checks.extend(memory_folder_owners(cfg));
    checks.extend(codex_memory_settings(cfg));
    checks.extend(codex_recent_memory_modes(cfg));
    checks.extend(read_paths(cfg));
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
        ExtractBackendKind::Openai | ExtractBackendKind::OpenaiBatch | ExtractBackendKind::Chat => {
            let key = api_key(api_key_env);
            if kind != ExtractBackendKind::Chat && key.is_none() {
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

/// Whether an agent command is `codex exec` without `--disable memories`.
fn codex_agent_with_memories(argv: &[String]) -> bool {
    let is_codex = argv
        .first()
        .is_some_and(|p| Path::new(p).file_name().is_some_and(|n| n == "codex"));
    let disabled = argv
        .windows(2)
        .any(|w| w[0] == "--disable" && w[1] == "memories")
        || argv.iter().any(|a| a == "--disable=memories");
    is_codex && argv.iter().any(|a| a == "exec") && !disabled
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
            Some(_) if codex_agent_with_memories(&c.agent_command) => check(
                "consolidate",
                Level::Warn,
                format!(
                    "the agent backend runs `{}` with Codex's memory feature: Codex then tells the agent \
                     not to edit memory files and may start its own memory writer",
                    c.agent_command.join(" ")
                ),
                Some(format!(
                    "add \"--ephemeral\", \"--disable\", \"memories\" after \"exec\" (the default is {:?})",
                    crate::config::DEFAULT_AGENT_COMMAND
                )),
            ),
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

/// Codex's own memory feature, and settings that hide sessions from memkit.
fn codex_memory_settings(cfg: &Config) -> Vec<Check> {
    let settings = memory_settings(&cfg.codex_home);
    let lines = |kind: SettingKind| -> Vec<String> {
        settings
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| format!("{}:{} `{}`", s.file.display(), s.line, s.text))
            .collect()
    };
    let mut out = Vec::new();
    let on = lines(SettingKind::FeatureOn);
    if !on.is_empty() {
        // Sharing the folder with that writer loses memkit's history at its next run.
        let shared = cfg.memory_root == cfg.legacy_memory_root();
        out.push(check(
            "codex_memories",
            if shared { Level::Fail } else { Level::Warn },
            format!(
                "Codex's own memory feature is on ({}): its memory writer runs at every Codex start, \
                 even with generate_memories = false — it sends old sessions to the model and \
                 re-baselines and rewrites {}",
                on.join(", "),
                cfg.legacy_memory_root().display()
            ),
            Some(format!(
                "remove {}; Codex gets memkit's memory through AGENTS.md (`memkit install codex`)",
                on.join(", ")
            )),
        ));
    }
    let hiding = lines(SettingKind::DisablesThreads);
    if !hiding.is_empty() {
        out.push(check(
            "codex_memory_mode",
            Level::Warn,
            format!(
                "{} makes Codex record every new session as memory_mode = \"disabled\", and memkit \
                 skips those sessions",
                hiding.join(", ")
            ),
            Some(format!("remove {}", hiding.join(", "))),
        ));
    }
    let other = lines(SettingKind::Other);
    if on.is_empty() && !other.is_empty() {
        out.push(check(
            "codex_memories",
            Level::Info,
            format!(
                "{} set Codex's memory feature, which is off; they have no effect",
                other.join(", ")
            ),
            None,
        ));
    }
    out
}

/// How many of the newest Codex sessions are recorded memory_mode = "disabled".
fn codex_recent_memory_modes(cfg: &Config) -> Option<Check> {
    const RECENT: usize = 20;
    let store = Store::open(&cfg.db_path()).ok()?;
    let rows = crate::store::threads::list(store.conn()).ok()?;
    let mut codex: Vec<_> = rows.into_iter().filter(|r| r.tool == "codex").collect();
    codex.sort_by_key(|r| std::cmp::Reverse(r.updated_at));
    codex.truncate(RECENT);
    let disabled = codex.iter().filter(|r| r.memory_mode == "disabled").count();
    (disabled * 2 > codex.len()).then(|| {
        check(
            "codex_memory_mode",
            Level::Warn,
            format!(
                "{disabled} of the {} most recent Codex sessions are recorded memory_mode = \"disabled\", \
                 so memkit does not extract them; Codex records that when its config has \
                 [memories] generate_memories = false (or the user turned memory off in a thread)",
                codex.len()
            ),
            Some(format!(
                "remove generate_memories = false from {}; sessions started afterwards are extracted",
                cfg.codex_home.join("config.toml").display()
            )),
        )
    })
}

/// Another writer's traces in the memory folder, and a folder left at the old default.
fn memory_folder_owners(cfg: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    let root = &cfg.memory_root;
    let foreign = crate::memory::layout::foreign_repositories(root);
    if !foreign.is_empty() {
        let names: Vec<String> = foreign.iter().map(|p| p.display().to_string()).collect();
        out.push(check(
            "memory_root",
            Level::Warn,
            format!(
                "another program's repository is inside the memory folder ({}); memkit never commits \
                 it, but another writer has been working in {}",
                names.join(", "),
                root.display()
            ),
            Some(
                "make sure no other tool writes memory_root (Codex's memory feature off, or memory_root \
                 outside ~/.codex/memories)"
                    .into(),
            ),
        ));
    }
    if crate::memory::git::written_by_memkit(root) == Some(false) {
        out.push(if crate::memory::git::codex_writer_traces(root) {
            check(
                "memory_root",
                Level::Warn,
                format!(
                    "the history in {}/.git is Codex's memory writer's: it replaced memkit's baseline",
                    root.display()
                ),
                Some("nothing to do by hand: the next `memkit run` starts a new baseline and rewrites the memory files".into()),
            )
        } else {
            check(
                "memory_root",
                Level::Info,
                format!(
                    "the git history in {} was not started by memkit; memkit commits on top of it",
                    root.display()
                ),
                None,
            )
        });
    }
    match inspect_legacy_folder(cfg) {
        LegacyFolder::Memkit(old) => out.push(check(
            "memory_root",
            Level::Warn,
            format!(
                "an older memkit memory folder is still at {} (Codex's managed folder); memkit now \
                 uses {}",
                old.display(),
                root.display()
            ),
            Some(format!(
                "move what you need and delete {} (memkit moves it by itself while {} is empty)",
                old.display(),
                root.display()
            )),
        )),
        LegacyFolder::Codex(old) => out.push(check(
            "codex_memories",
            Level::Info,
            format!(
                "{} is Codex's own memory folder (written by Codex's memory writer); memkit does not \
                 use or change it",
                old.display()
            ),
            None,
        )),
        LegacyFolder::None => {}
    }
    out
}

/// Each agent's read path: installed where memkit reads the agent's
/// sessions, fitting the agent's limit, and pointing at a program that exists.
fn read_paths(cfg: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    for status in crate::agents::statuses(cfg, None) {
        let name = status.agent.name();
        let reads_logs = match status.agent {
            Agent::Codex => cfg.read_codex && cfg.codex_home.join("sessions").is_dir(),
            Agent::Claude => cfg.read_claude && cfg.claude_home.join("projects").is_dir(),
            Agent::Gemini => false,
        };
        let check_name = match status.agent {
            Agent::Codex => "codex_read_path",
            Agent::Claude => "claude_read_path",
            Agent::Gemini => "gemini_read_path",
        };
        if let Some(e) = &status.error {
            out.push(check(
                check_name,
                Level::Fail,
                e.clone(),
                Some(format!(
                    "fix {} by hand, then run `memkit install {name}`",
                    status.file
                )),
            ));
            continue;
        }
        if !status.installed {
            let agent_there = match status.agent {
                Agent::Gemini => cfg.gemini_home.as_deref().is_some_and(Path::is_dir),
                _ => reads_logs,
            };
            if agent_there {
                out.push(check(
                    check_name,
                    if reads_logs { Level::Warn } else { Level::Info },
                    if reads_logs {
                        format!(
                            "memkit reads {name}'s sessions, but {name} is not given the memory"
                        )
                    } else {
                        format!("{name} is set up here but is not given the memory")
                    },
                    Some(format!("`memkit install {name}`")),
                ));
            }
            continue;
        }
        let fit = status.fit.clone().unwrap_or_default();
        if let Some(problem) = installed_problem(cfg, status.agent, &fit) {
            out.push(problem);
            continue;
        }
        out.push(check(
            check_name,
            Level::Ok,
            format!(
                "{name} gets the memory from {} ({})",
                status.file,
                fit.describe()
            ),
            None,
        ));
    }
    out
}

/// What keeps an installed read path from giving the agent the whole memory.
fn installed_problem(cfg: &Config, agent: Agent, fit: &crate::agents::Fit) -> Option<Check> {
    let name = agent.name();
    if agent == Agent::Claude {
        let program = claude_hook_program(cfg);
        if let Some(p) = program.filter(|p| program_found(std::slice::from_ref(p)).is_none()) {
            return Some(check(
                "claude_read_path",
                Level::Fail,
                format!("the SessionStart hooks run {p}, which does not exist"),
                Some("run `memkit install claude` with the memkit you use now".into()),
            ));
        }
    }
    if agent == Agent::Codex {
        let holding = crate::agents::read_path(cfg, agent)
            .ok()?
            .file()
            .to_path_buf();
        let read = crate::agents::codex::instructions_file(&cfg.codex_home);
        if holding != read {
            return Some(check(
                "codex_read_path",
                Level::Warn,
                format!(
                    "memkit's block is in {}, but Codex reads {} instead",
                    holding.display(),
                    read.display()
                ),
                Some("`memkit uninstall codex`, then `memkit install codex`, moves it".into()),
            ));
        }
    }
    (fit.left_out > 0).then(|| {
        check(
            match agent {
                Agent::Codex => "codex_read_path",
                Agent::Claude => "claude_read_path",
                Agent::Gemini => "gemini_read_path",
            },
            Level::Warn,
            format!(
                "{} {} of the summary do not fit what {name} reads and are left out (the block says so)",
                fit.left_out, fit.unit
            ),
            Some(match agent {
                Agent::Claude => "`memkit install claude` adds hook entries".to_string(),
                _ => "make room in the instruction file, or shorten the summary".to_string(),
            }),
        )
    })
}

/// Session files the last scan could not read whole, one line each.
fn session_file_problems(cfg: &Config) -> Vec<Check> {
    let Ok(store) = Store::open(&cfg.db_path()) else {
        return Vec::new();
    };
    let Ok(problems) = crate::catalog::file_problems(&store) else {
        return Vec::new();
    };
    problems
        .into_iter()
        .map(|p| {
            check(
                "session_file",
                Level::Warn,
                p.message,
                Some(if p.unreadable {
                    "memkit skips it; repair or remove the file if you want it remembered".into()
                } else {
                    "memkit read the rest of the file; nothing to do unless the lines matter".into()
                }),
            )
        })
        .collect()
}

/// The program the installed Claude Code hooks run.
fn claude_hook_program(cfg: &Config) -> Option<String> {
    let text = std::fs::read_to_string(cfg.claude_home.join("settings.json")).ok()?;
    crate::agents::claude::hook_program(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_agent_needs_its_memory_feature_off() {
        let argv = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(codex_agent_with_memories(&argv(
            "codex exec --sandbox workspace-write -"
        )));
        assert!(codex_agent_with_memories(&argv("/usr/bin/codex exec -")));
        assert!(!codex_agent_with_memories(&argv(
            "codex exec --ephemeral --disable memories -"
        )));
        let default: Vec<String> = crate::config::DEFAULT_AGENT_COMMAND
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(!codex_agent_with_memories(&default));
        assert!(!codex_agent_with_memories(&argv("claude -p")));
    }
}
