//! Command-line definitions (clap), one variant per subcommand.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// memkit distils coding-agent session logs into a long-term memory folder.
#[derive(Debug, Parser)]
#[command(
    name = "memkit",
    version,
    about = "Distil Codex and Claude Code session logs into a long-term memory folder",
    long_about = "memkit reads the session logs that coding agents leave on disk (OpenAI Codex \
rollouts, Claude Code transcripts), extracts what is worth remembering, and maintains a memory \
folder in Codex's own layout that future agent sessions read at start-up.\n\n\
Configuration: $MEMKIT_CONFIG, else $XDG_CONFIG_HOME/memkit/config.toml, else \
~/.config/memkit/config.toml; MEMKIT_* environment variables override it; flags win.\n\n\
Exit codes: 0 success (also \"nothing to do\"), 1 the work failed, 2 usage or configuration error."
)]
pub struct Cli {
    /// Options every command accepts.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command accepts.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Configuration file (default: $MEMKIT_CONFIG or ~/.config/memkit/config.toml).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Codex's data folder (default: $CODEX_HOME or ~/.codex).
    #[arg(long, global = true, value_name = "DIR")]
    pub codex_home: Option<PathBuf>,
    /// Claude Code's data folder (default: $CLAUDE_CONFIG_DIR or ~/.claude).
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_home: Option<PathBuf>,
    /// memkit's data folder with the state database (default: $MEMKIT_HOME or ~/.local/share/memkit).
    #[arg(long, global = true, value_name = "DIR")]
    pub memkit_home: Option<PathBuf>,
    /// The memory folder (default: <codex_home>/memories).
    #[arg(long, global = true, value_name = "DIR")]
    pub memory_root: Option<PathBuf>,
    /// Machine output on stdout: JSON Lines for listings, one object for summaries.
    #[arg(long, global = true)]
    pub json: bool,
    /// Only errors on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// Which agent's sessions to consider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolArg {
    /// OpenAI Codex.
    Codex,
    /// Claude Code.
    Claude,
}

impl ToolArg {
    /// The matching source tool.
    pub fn tool(self) -> crate::sources::Tool {
        match self {
            ToolArg::Codex => crate::sources::Tool::Codex,
            ToolArg::Claude => crate::sources::Tool::Claude,
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Update the session catalog from the Codex and Claude Code folders (incremental).
    Scan,
    /// List catalogued sessions and whether each is eligible for extraction.
    Sessions(SessionsArgs),
    /// Print one session as memkit reads it (the normalised transcript).
    ShowSession(ShowSessionArgs),
    /// Show paths, schema version and catalog counts.
    Status,
    /// Phase 1: turn eligible sessions into stage-1 memories (one model call each).
    Extract(ExtractArgs),
}

/// Extraction backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExtractBackendArg {
    /// Offline, deterministic rules (default).
    Heuristic,
    /// OpenAI Responses API.
    Openai,
    /// Any OpenAI-compatible /chat/completions endpoint.
    Chat,
    /// An external program (request JSON on stdin, JSON object on stdout).
    Command,
}

impl ExtractBackendArg {
    /// The matching config value.
    pub fn kind(self) -> crate::config::ExtractBackendKind {
        use crate::config::ExtractBackendKind as K;
        match self {
            ExtractBackendArg::Heuristic => K::Heuristic,
            ExtractBackendArg::Openai => K::Openai,
            ExtractBackendArg::Chat => K::Chat,
            ExtractBackendArg::Command => K::Command,
        }
    }
}

/// `memkit extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Age window: sessions updated within this duration (any duration, e.g. 10d, 1y;
    /// default max_rollout_age_days).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<std::time::Duration>,
    /// Minimum idle time before a session is extracted (default min_rollout_idle_hours).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub idle: Option<std::time::Duration>,
    /// Claim at most N sessions this run (default: no limit).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Parallel jobs, 1..=8 (default extract_jobs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=8))]
    pub jobs: Option<u8>,
    /// Only sessions of this agent.
    #[arg(long, value_enum)]
    pub tool: Option<ToolArg>,
    /// Extract exactly this session now (id or unique prefix), ignoring the idle
    /// and age windows and the source filter.
    #[arg(long, value_name = "ID", conflicts_with = "file")]
    pub thread: Option<String>,
    /// Extract exactly this session file now, ignoring the idle and age windows
    /// and the source filter.
    #[arg(long, value_name = "PATH")]
    pub file: Option<std::path::PathBuf>,
    /// Re-extract even when the session is up to date.
    #[arg(long)]
    pub force: bool,
    /// List what would be extracted with estimated input tokens; no claim, no model call.
    #[arg(long)]
    pub dry_run: bool,
    /// Backend for this run (default: [extract] backend in the config).
    #[arg(long, value_enum)]
    pub backend: Option<ExtractBackendArg>,
}

/// `memkit sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Only sessions updated within this duration (e.g. 10d, 6h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<std::time::Duration>,
    /// Only sessions of this agent.
    #[arg(long, value_enum)]
    pub tool: Option<ToolArg>,
    /// Only sessions that extraction would pick now.
    #[arg(long)]
    pub eligible: bool,
    /// Do not scan first (list the catalog as it is).
    #[arg(long)]
    pub no_scan: bool,
}

/// `memkit show-session`.
#[derive(Debug, Args)]
pub struct ShowSessionArgs {
    /// A session id (or a unique prefix of one) from the catalog, or a session file path.
    pub session: String,
    /// Print tool outputs in full instead of their first lines.
    #[arg(long)]
    pub full: bool,
}

/// Parses a humantime duration (`10d`, `6h`, `1y`).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim()).map_err(|e| format!("{e} (use e.g. 10d, 6h, 1y)"))
}
