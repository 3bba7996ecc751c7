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
    /// Replace secrets in text read from stdin; the result goes to stdout (a pipeline filter).
    #[command(
        long_about = "Replace secrets in text read from stdin and write the result to stdout: \
a pipeline filter such as `cat session.jsonl | memkit redact > clean.jsonl`. The output is the input \
byte for byte except that each secret becomes [REDACTED_SECRET] (key names, URL users and hosts and \
authorization schemes stay). Input is streamed line by line, so memory stays bounded on any size.\n\n\
Where things go: stdout carries only the (redacted) text; --report writes findings to stderr, \
never the secrets themselves.\n\n\
Exit codes: 0 when the input was redacted (finding secrets is not an error), 1 on an I/O error or, \
with --jsonl, a line that is not a JSON object with a string \"text\" field, 2 on a usage error."
    )]
    Redact(RedactArgs),
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

/// `memkit redact`.
#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Read JSON Lines of {"id": …, "text": …} objects and write each object back with only
    /// "text" redacted; every other field and the line order are kept as they were. A line that
    /// is not such an object stops with an error naming its line number (exit 1); blank lines are
    /// copied.
    #[arg(long)]
    pub jsonl: bool,
    /// List what was redacted on stderr, one `line:column rule` per secret (column in bytes,
    /// 1-based; with --jsonl the column counts bytes of the decoded "text"). With --json the
    /// report is JSON Lines on stderr ({"line", "column", "rule", and "id" with --jsonl}).
    /// Secrets are never printed.
    #[arg(long)]
    pub report: bool,
}

/// Parses a humantime duration (`10d`, `6h`, `1y`).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim()).map_err(|e| format!("{e} (use e.g. 10d, 6h, 1y)"))
}
