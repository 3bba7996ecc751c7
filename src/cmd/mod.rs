//! One module per subcommand: parse-free glue between the CLI and the library.

mod cite_import;
mod consolidate;
mod diff;
mod doctor;
mod extract;
mod forget;
mod inject;
mod install;
mod mcp;
mod note;
mod prune;
mod redact;
mod reset;
mod run;
mod scan;
mod search;
mod sessions;
mod show_session;
mod spend;
mod status;
mod sync;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::config::{Config, LoadOptions};
use crate::error::Result;
use crate::stages::{StageOutcome, record_stage};
use crate::store::Store;

/// What every command gets: the configuration and the output mode.
pub struct Ctx {
    /// Resolved configuration.
    pub cfg: Config,
    /// `--json`.
    pub json: bool,
}

impl Ctx {
    /// Opens the state database.
    pub fn store(&self) -> Result<Store> {
        Store::open(&self.cfg.db_path())
    }
}

/// Runs one stage as its own command: recorded in `runs` under a new run id
/// (so `memkit status` shows it), except a dry run, which changes nothing.
fn run_stage<T: StageOutcome>(
    store: &mut Store,
    stage: &str,
    dry_run: bool,
    work: impl FnOnce(&mut Store) -> Result<T>,
) -> Result<T> {
    if dry_run {
        return work(store);
    }
    record_stage(store, &crate::util::ids::new_uuid_v4(), stage, work)
}

/// Standard input as text, at most `max` bytes (more is an error, never read whole).
fn read_stdin(max: usize) -> Result<String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::io::stdin().lock(), max as u64 + 1),
        &mut bytes,
    )
    .map_err(|e| crate::error::Error::failed(format!("reading stdin: {e}")))?;
    if bytes.len() > max {
        return Err(crate::error::Error::failed(format!(
            "stdin: more than {} KiB; that is not a note",
            max >> 10
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Builds the configuration from the environment and the global flags.
pub fn load_config(global: &GlobalArgs) -> Result<Config> {
    let mut opts = LoadOptions::from_process_env();
    opts.config_path = global.config.clone();
    let path_flag = |key: &str, v: &Option<std::path::PathBuf>| {
        v.as_ref().map(|p| {
            (
                key.to_string(),
                toml::Value::String(p.display().to_string()),
            )
        })
    };
    opts.flags.extend(
        [
            path_flag("codex_home", &global.codex_home),
            path_flag("claude_home", &global.claude_home),
            path_flag("memkit_home", &global.memkit_home),
            path_flag("memory_root", &global.memory_root),
        ]
        .into_iter()
        .flatten(),
    );
    Config::load(&opts)
}

/// Whether a command reads or writes the memory folder (and so first moves
/// memkit's folder from its old default, see [`crate::memory::relocate`]).
fn uses_memory_folder(command: &Command) -> bool {
    matches!(
        command,
        Command::Sync(_)
            | Command::Diff(_)
            | Command::Consolidate(_)
            | Command::Inject(_)
            | Command::Note(_)
            | Command::Forget(_)
            | Command::Reset(_)
            | Command::Run(_)
            | Command::Install(_)
            | Command::Search(_)
            | Command::Mcp
    )
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> Result<i32> {
    crate::ui::set_quiet(cli.global.quiet);
    let ctx = Ctx {
        cfg: load_config(&cli.global)?,
        json: cli.global.json,
    };
    if uses_memory_folder(&cli.command) {
        crate::memory::relocate::adopt_legacy_folder(&ctx.cfg)?;
    }
    match cli.command {
        Command::Scan => scan::run(&ctx),
        Command::Sessions(args) => sessions::run(&ctx, &args),
        Command::ShowSession(args) => show_session::run(&ctx, &args),
        Command::Status => status::run(&ctx),
        Command::Extract(args) => extract::run(&ctx, &args),
        Command::Sync(args) => sync::run(&ctx, &args),
        Command::Diff(args) => diff::run(&ctx, &args),
        Command::Consolidate(args) => consolidate::run(&ctx, &args),
        Command::CiteImport(args) => cite_import::run(&ctx, &args),
        Command::Prune(args) => prune::run(&ctx, &args),
        Command::Inject(args) => inject::run(&ctx, &args),
        Command::Note(args) => note::run(&ctx, &args),
        Command::Forget(args) => forget::run(&ctx, &args),
        Command::Reset(args) => reset::run(&ctx, &args),
        Command::Run(args) => run::run(&ctx, &args),
        Command::Doctor(args) => doctor::run(&ctx, &args),
        Command::Install(args) => install::install(&ctx, &args),
        Command::Uninstall(args) => install::uninstall(&ctx, &args),
        Command::Redact(args) => redact::run(&ctx, &args),
        Command::Search(args) => search::run(&ctx, &args),
        Command::Mcp => mcp::run(&ctx),
    }
}
