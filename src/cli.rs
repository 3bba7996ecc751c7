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
    /// memkit's data folder: the state database and the memory folder (default: $MEMKIT_HOME or
    /// ~/.local/share/memkit).
    #[arg(long, global = true, value_name = "DIR")]
    pub memkit_home: Option<PathBuf>,
    /// The memory folder (default: <memkit_home>/memories).
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
    /// Show paths, catalog counts, the last ten runs and what happens next.
    Status,
    /// Phase 1: turn eligible sessions into stage-1 memories (one model call each).
    Extract(ExtractArgs),
    /// Write the selected memories into the memory folder (rollout_summaries/, raw_memories.md).
    Sync(SyncArgs),
    /// Show what changed in the memory folder since the last consolidation (git baseline),
    /// naming your hand edits of MEMORY.md and memory_summary.md.
    Diff(DiffArgs),
    /// Phase 2: consolidate the memory folder into MEMORY.md and memory_summary.md
    /// (keeping the lines you edited by hand).
    Consolidate(ConsolidateArgs),
    /// Import the citations agents wrote in their replies, so used memories rank first and survive.
    CiteImport(CiteImportArgs),
    /// Delete stage-1 memories that nobody used for max_unused_days.
    Prune(PruneArgs),
    /// Print the memory block for an agent's context (read-path instructions + summary).
    Inject(InjectArgs),
    /// Write an ad-hoc note into memory; the next consolidation folds it in.
    Note(NoteArgs),
    /// Remove sessions from memory and never extract them again.
    Forget(ForgetArgs),
    /// Wipe all memories: stage-1 outputs, jobs and the memory folder's contents.
    Reset(ResetArgs),
    /// The nightly job: prune, cite-import, extract, sync, diff, consolidate.
    Run(RunArgs),
    /// Check paths, database, backends and agent settings; say how to fix what is wrong.
    Doctor(DoctorArgs),
    /// Give an agent the memory at every session start (Codex: a block in $CODEX_HOME/AGENTS.md;
    /// Claude Code: SessionStart hooks in settings.json; Gemini CLI: a block in ~/.gemini/GEMINI.md).
    #[command(
        long_about = "Give an agent the memory at every session start, through its own instruction \
mechanism: for codex a managed block (between marker lines) in $CODEX_HOME/AGENTS.md, kept within \
Codex's 32 KiB instruction budget; for claude SessionStart hooks in $CLAUDE_CONFIG_DIR/settings.json \
that run `memkit inject --format claude-hook`, each value under Claude Code's 10,000-character cap; \
for gemini a managed block in ~/.gemini/GEMINI.md. The user's own text and settings are never \
changed. Blocks are refreshed by every consolidation. Running it again brings the read path up to \
date and changes nothing else; --dry-run prints the change as a diff."
    )]
    Install(InstallArgs),
    /// Remove memkit's read path from an agent (the block or hooks `memkit install` added).
    Uninstall(InstallArgs),
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
    /// Search the memory (full text with developer synonyms; the current project first).
    #[command(
        long_about = "Search the memory folder: every MEMORY.md task and bullet, summary bullet, \
rollout summary, raw memory, note and skill is indexed in memkit's database (SQLite FTS5, Porter \
stemming, BM25 ranking). Query words are stemmed and widened by a built-in vocabulary of developer \
synonyms (deploy/release/ship, test/spec/pytest, lint/check, format/fmt, …), so a question need \
not use the memory's words. Hits in the current project (--project, default the current \
directory) come first. Each hit shows file:first-last line, project, date, session and a snippet \
with the matched words in **. The index is brought up to date before every search (only changed \
files are read); --reindex rebuilds it from scratch. With [search] embeddings = \"openai\" or \
\"chat\" in the config, the search is hybrid: the question (redacted) is embedded and the units \
nearest it are fused with the full-text ranking by reciprocal rank; when the model cannot be \
reached, the full text answers and a warning says so.\n\n\
Exit codes: 0 with or without hits (no hits prints a line saying so), 1 when the database or the \
memory folder cannot be read, 2 on a usage error."
    )]
    Search(SearchArgs),
    /// Serve the memory tools to agents over MCP on stdin/stdout (search, get, list, add, delete).
    #[command(
        long_about = "Serve memkit's memory to agents as a Model Context Protocol server on \
stdin/stdout (JSON-RPC, one message per line). Tools: search_memories (the same search as \
`memkit search`), get_memory (lines of a memory file, by file:first-last or a hit's id), \
list_memories (projects and their sections, notes, skills), add_memory (a note, searchable at \
once and folded in at the next consolidation) and delete_memory (a note, or forget a session). \
Agents start it themselves: `memkit install codex --mcp` / `memkit install claude --mcp` register \
it. Logs go to stderr; the server runs until stdin closes."
    )]
    Mcp,
}

/// `memkit search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: a question or keywords (several arguments are joined).
    #[arg(value_name = "QUERY", required_unless_present = "reindex")]
    pub query: Vec<String>,
    /// The project whose hits rank first (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// At most this many hits.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,
    /// Also search the sessions' transcripts (redacted and compacted; indexed on first use).
    #[arg(long)]
    pub sessions: bool,
    /// Rebuild the index from the memory folder before searching (or alone, without a query).
    #[arg(long)]
    pub reindex: bool,
}

/// Agents whose read path memkit installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// OpenAI Codex ($CODEX_HOME/AGENTS.md).
    Codex,
    /// Claude Code ($CLAUDE_CONFIG_DIR/settings.json hooks).
    Claude,
    /// Gemini CLI (~/.gemini/GEMINI.md).
    Gemini,
}

impl AgentArg {
    /// The matching agent.
    pub fn agent(self) -> crate::agents::Agent {
        match self {
            AgentArg::Codex => crate::agents::Agent::Codex,
            AgentArg::Claude => crate::agents::Agent::Claude,
            AgentArg::Gemini => crate::agents::Agent::Gemini,
        }
    }
}

/// `memkit install` and `memkit uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent.
    #[arg(value_enum)]
    pub agent: AgentArg,
    /// Print the change as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also register `memkit mcp` as the agent's MCP server, so it can call search_memories and
    /// the other memory tools (codex: [mcp_servers.memkit] in $CODEX_HOME/config.toml; claude:
    /// mcpServers.memkit in ~/.claude.json). `uninstall` always removes the registration.
    #[arg(long)]
    pub mcp: bool,
}

/// `memkit doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Do not contact model servers.
    #[arg(long)]
    pub offline: bool,
}

/// `memkit run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Comma-separated subset of stages: prune, cite-import, extract, sync, diff, consolidate.
    #[arg(long, value_name = "LIST")]
    pub stages: Option<String>,
    /// Wait for another running `memkit run` to finish instead of exiting.
    #[arg(long)]
    pub wait: bool,
    /// Take in history updated within this duration, for this run only (e.g. 90d, 1y):
    /// extraction's age window (instead of max_rollout_age_days), and at least as long a
    /// window in which sync and consolidation keep memories no session has used
    /// (max_unused_days).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<std::time::Duration>,
    /// Cap the run's model tokens: extraction stops claiming before it would exceed N.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// With the openai-batch backend: poll until every batch is done and stored, then go on
    /// with sync and consolidate (a manual run; cron leaves batches to the next night).
    #[arg(long)]
    pub wait_batches: bool,
}

/// `memkit cite-import`.
#[derive(Debug, Args)]
pub struct CiteImportArgs {
    /// `-` reads one reply's text from stdin instead of scanning session logs.
    pub input: Option<String>,
    /// Scan sessions updated within this duration (default max_unused_days).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<std::time::Duration>,
}

/// `memkit prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Delete at most N outputs this run.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub limit: usize,
    /// List what would be deleted; delete nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Output formats of `memkit inject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InjectFormat {
    /// The block as text.
    Text,
    /// `{"memory_root", "truncated", "text"}`.
    Json,
    /// The JSON a Claude Code SessionStart hook returns to add context.
    ClaudeHook,
}

/// `memkit inject`.
#[derive(Debug, Args)]
pub struct InjectArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = InjectFormat::Text)]
    pub format: InjectFormat,
    /// Put this project's section of "What's in Memory" first (default: none).
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
    /// With --format claude-hook: print part I of the block split into N hook values, each under
    /// Claude Code's 10,000-character cap (what `memkit install claude` sets up).
    #[arg(long, value_name = "I/N", value_parser = parse_part)]
    pub part: Option<(usize, usize)>,
}

/// Parses `--part I/N` (1 ≤ I ≤ N ≤ 16).
fn parse_part(s: &str) -> Result<(usize, usize), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("{s:?}: use I/N, e.g. 1/2"))?;
    let i: usize = i
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: I is not a number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: N is not a number"))?;
    if i == 0 || i > n || n > 16 {
        return Err(format!("{s:?}: needs 1 <= I <= N <= 16"));
    }
    Ok((i, n))
}

/// `memkit note`.
#[derive(Debug, Args)]
pub struct NoteArgs {
    /// The note; `-` or nothing reads it from stdin.
    pub text: Option<String>,
}

/// `memkit forget`.
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Session ids (or unique prefixes) or session file paths.
    #[arg(required_unless_present = "cwd")]
    pub sessions: Vec<String>,
    /// Every session that ran in this folder (or below it).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

/// `memkit reset`.
#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Confirm: without it nothing is deleted.
    #[arg(long)]
    pub yes: bool,
}

/// `memkit sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// List what would be written or removed; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `memkit diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Per-file counts of added and removed lines, like `git diff --stat`.
    #[arg(long, conflicts_with = "name_status")]
    pub stat: bool,
    /// One `A|M|D<tab>path` line per change, like `git diff --name-status`.
    #[arg(long)]
    pub name_status: bool,
    /// Exit with 1 when there are changes (0 when there are none), like `git diff --exit-code`.
    #[arg(long)]
    pub exit_code: bool,
}

/// Consolidation backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsolidateBackendArg {
    /// Offline, deterministic merge (default).
    Heuristic,
    /// One structured-output model call ([consolidate] transport).
    Model,
    /// An external agent command run inside the memory folder.
    Agent,
}

impl ConsolidateBackendArg {
    /// The matching config value.
    pub fn kind(self) -> crate::config::ConsolidateBackendKind {
        use crate::config::ConsolidateBackendKind as K;
        match self {
            ConsolidateBackendArg::Heuristic => K::Heuristic,
            ConsolidateBackendArg::Model => K::Model,
            ConsolidateBackendArg::Agent => K::Agent,
        }
    }
}

/// `memkit consolidate`.
#[derive(Debug, Args)]
pub struct ConsolidateArgs {
    /// Backend for this run (default: [consolidate] backend in the config).
    #[arg(long, value_enum)]
    pub backend: Option<ConsolidateBackendArg>,
    /// Run even in cooldown, in backoff after a failure, or with the retry budget spent.
    #[arg(long)]
    pub force: bool,
    /// Show what would be consolidated; take no lease, write nothing, call nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Extraction backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExtractBackendArg {
    /// Offline, deterministic rules (default).
    Heuristic,
    /// OpenAI Responses API.
    Openai,
    /// OpenAI Responses API through the Batch API (half price; a later run collects the results).
    OpenaiBatch,
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
            ExtractBackendArg::OpenaiBatch => K::OpenaiBatch,
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
    /// With the openai-batch backend: poll until every batch is done and stored
    /// (every [extract] batch_poll_interval), instead of leaving it to a later run.
    #[arg(long)]
    pub wait: bool,
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
