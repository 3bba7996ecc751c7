//! Configuration: defaults, the TOML file, `MEMKIT_*` environment overrides and flags.
//!
//! Precedence is flags > environment > file > defaults. Every key is validated:
//! an unknown key, a value of the wrong type or a value outside its range is an
//! error that names the key, where it came from and what is allowed, so a typo
//! in a cron job's configuration never passes silently.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod costs;
mod search;
mod sections;
pub use costs::{CostConfig, Price, Tokens};
pub use search::{EmbeddingsKind, SearchConfig};
pub use sections::{
    ConsolidateBackendKind, ConsolidateConfig, DEFAULT_AGENT_COMMAND, ExtractBackendKind,
    ExtractConfig,
};

/// The file name of the configuration inside its folder.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// Source kinds whose sessions are extracted by default (Codex's interactive set).
pub const DEFAULT_INTERACTIVE_SOURCES: &[&str] = &["cli", "vscode", "atlas", "chatgpt"];

/// Fully resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where Codex keeps its data (`sessions/`, `archived_sessions/`, `state_*.sqlite`).
    pub codex_home: PathBuf,
    /// Where Claude Code keeps its data (`projects/`).
    pub claude_home: PathBuf,
    /// memkit's own data folder (database, logs, the memory folder by default).
    pub memkit_home: PathBuf,
    /// Where Gemini CLI keeps its data (`GEMINI.md`, `settings.json`);
    /// `None` when neither the config nor `HOME` says (only `install gemini`
    /// needs it, so nothing else fails without `HOME`).
    pub gemini_home: Option<PathBuf>,
    /// The memory folder agents read (Codex v1 layout).
    pub memory_root: PathBuf,
    /// Whether `memory_root` was set (file, environment or flag) rather than defaulted.
    pub memory_root_explicit: bool,
    /// Whether Codex sessions are read.
    pub read_codex: bool,
    /// Whether Claude Code sessions are read.
    pub read_claude: bool,
    /// Session sources that are eligible for extraction.
    pub interactive_sources: Vec<String>,
    /// Phase-2 selection size.
    pub max_raw_memories_for_consolidation: usize,
    /// Selection window and prune cutoff.
    pub max_unused: Duration,
    /// Phase-1 age window.
    pub max_rollout_age: Duration,
    /// Minimum idle time before a session is extracted.
    pub min_rollout_idle: Duration,
    /// Parallel extraction jobs (1..=8).
    pub extract_jobs: usize,
    /// Budget of the per-session model input, in estimated tokens.
    pub extract_input_tokens: usize,
    /// Phase-1 backend settings.
    pub extract: ExtractConfig,
    /// Phase-2 backend settings.
    pub consolidate: ConsolidateConfig,
    /// Search settings (embeddings).
    pub search: SearchConfig,
    /// Prices, the Codex comparison and the spending limit.
    pub costs: CostConfig,
    /// The configuration file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// The folder that holds the configuration file (prompt overrides live in `templates/` there).
    pub config_dir: PathBuf,
}

/// A value that is either a number in the key's unit or a humantime string (`10d`, `6h`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum DurationValue {
    /// A number in the key's unit (days or hours).
    Number(i64),
    /// A humantime duration such as `10d` or `1h 30m`.
    Text(String),
}

/// The shape of the configuration file: every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    codex_home: Option<String>,
    claude_home: Option<String>,
    memkit_home: Option<String>,
    gemini_home: Option<String>,
    memory_root: Option<String>,
    max_raw_memories_for_consolidation: Option<i64>,
    max_unused_days: Option<DurationValue>,
    max_rollout_age_days: Option<DurationValue>,
    min_rollout_idle_hours: Option<DurationValue>,
    extract_jobs: Option<i64>,
    extract_input_tokens: Option<i64>,
    #[serde(default)]
    sources: RawSources,
    #[serde(default)]
    extract: sections::RawExtract,
    #[serde(default)]
    consolidate: sections::RawConsolidate,
    #[serde(default)]
    search: search::RawSearch,
    #[serde(default)]
    limits: costs::RawLimits,
    #[serde(default)]
    costs: costs::RawCosts,
    #[serde(default)]
    prices: BTreeMap<String, costs::RawPrice>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSources {
    codex: Option<bool>,
    claude: Option<bool>,
    interactive: Option<Vec<String>>,
}

/// Every configuration key as `section.key` (top-level keys have no section).
///
/// Used to map `MEMKIT_*` environment variables onto keys; a test checks it
/// against `config.example.toml`.
pub const KEYS: &[&str] = &[
    "codex_home",
    "claude_home",
    "memkit_home",
    "gemini_home",
    "memory_root",
    "max_raw_memories_for_consolidation",
    "max_unused_days",
    "max_rollout_age_days",
    "min_rollout_idle_hours",
    "extract_jobs",
    "extract_input_tokens",
    "sources.codex",
    "sources.claude",
    "sources.interactive",
    "extract.backend",
    "extract.model",
    "extract.base_url",
    "extract.api_key_env",
    "extract.command",
    "extract.timeout",
    "extract.max_retries",
    "extract.batch_fallback",
    "extract.batch_poll_interval",
    "extract.batch_max_tokens",
    "consolidate.backend",
    "consolidate.transport",
    "consolidate.model",
    "consolidate.base_url",
    "consolidate.api_key_env",
    "consolidate.command",
    "consolidate.agent_command",
    "consolidate.timeout",
    "consolidate.input_tokens",
    "consolidate.cooldown",
    "consolidate.max_retries",
    "search.embeddings",
    "search.model",
    "search.base_url",
    "search.api_key_env",
    "search.dimensions",
    "search.batch_size",
    "search.timeout",
    "search.max_retries",
    "limits.max_cost_per_run",
    "costs.currency",
    "costs.codex_model",
];

/// Environment variables with a meaning of their own, not config keys.
const RESERVED_ENV: &[&str] = &[
    "MEMKIT_CONFIG",
    "MEMKIT_HOME",
    "MEMKIT_SAMPLES",
    "MEMKIT_LOG",
    crate::util::crashpoint::CRASH_AT_VAR,
    "MEMKIT_E2E_AGENTS",
    "MEMKIT_E2E_CACHE",
    "MEMKIT_E2E_KEEP",
    "MEMKIT_E2E_INSIDE_NETNS",
    "MEMKIT_E2E_CODEX",
    "MEMKIT_E2E_CLAUDE",
];

/// What to load: the environment and the flags given on the command line.
#[derive(Debug, Default, Clone)]
pub struct LoadOptions {
    /// `--config PATH`.
    pub config_path: Option<PathBuf>,
    /// Key overrides from flags, as `(key, value)` with `key` from [`KEYS`].
    pub flags: Vec<(String, toml::Value)>,
    /// The process environment (name, value), as the OS gives it: values
    /// need not be UTF-8.
    pub env: Vec<(OsString, OsString)>,
}

impl LoadOptions {
    /// Options that read the real process environment (any bytes: a
    /// variable that is not UTF-8 never stops memkit unless it is one of
    /// memkit's own settings).
    pub fn from_process_env() -> Self {
        LoadOptions {
            env: std::env::vars_os().collect(),
            ..Default::default()
        }
    }

    /// Options with the environment given as text (tests, embedding).
    pub fn with_env<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        LoadOptions {
            env: vars
                .into_iter()
                .map(|(k, v)| (OsString::from(k.into()), OsString::from(v.into())))
                .collect(),
            ..Default::default()
        }
    }

    fn var_os(&self, name: &str) -> Option<&OsString> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .filter(|v| !v.is_empty())
    }

    /// A variable that holds a folder (any bytes are a valid path).
    fn path_var(&self, name: &str) -> Option<PathBuf> {
        self.var_os(name).map(PathBuf::from)
    }

    fn home(&self) -> PathBuf {
        self.path_var("HOME").unwrap_or_default()
    }
}

/// Where a key's value came from, for error messages.
#[derive(Debug, Clone)]
enum Origin {
    File(PathBuf),
    Env(String),
    Flag(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => write!(f, "in {}", p.display()),
            Origin::Env(v) => write!(f, "from environment variable {v}"),
            Origin::Flag(flag) => write!(f, "from flag {flag}"),
        }
    }
}

impl Config {
    /// This configuration with its history windows widened to `since` for one run
    /// (`memkit run --since`): extraction takes sessions updated within `since`, and
    /// sync and consolidation keep their memories, which the default 30-day
    /// `max_unused_days` would leave out. A window already wider stays as it is.
    pub fn with_history_window(&self, since: Duration) -> Config {
        let mut widened = self.clone();
        widened.max_rollout_age = since;
        widened.max_unused = self.max_unused.max(since);
        widened
    }

    /// Loads the configuration: defaults, then the file, then the environment, then flags.
    pub fn load(opts: &LoadOptions) -> Result<Config> {
        let (config_file, config_dir) = locate_config_file(opts)?;
        let mut merged = toml::Table::new();
        let mut origins: BTreeMap<String, Origin> = BTreeMap::new();

        if let Some(path) = &config_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::usage(format!("config {}: {e}", path.display())))?;
            // Deserialize the text itself first: toml then reports unknown keys and
            // wrong types with the line they are on.
            toml::from_str::<RawConfig>(&text).map_err(|e| {
                Error::usage(format!(
                    "config {}: {}",
                    path.display(),
                    one_line_toml_error(&e)
                ))
            })?;
            let table: toml::Table = toml::from_str(&text).map_err(|e| {
                Error::usage(format!(
                    "config {}: {}",
                    path.display(),
                    one_line_toml_error(&e)
                ))
            })?;
            for key in flatten_keys(&table) {
                origins.insert(key, Origin::File(path.clone()));
            }
            merged = table;
        }

        let mut from_env: Vec<(String, &'static str, toml::Value)> = Vec::new();
        for (name, value) in &opts.env {
            // A name that is not UTF-8 is nobody's setting of memkit's.
            let Some(name) = name.to_str() else {
                continue;
            };
            let Some(rest) = name.strip_prefix("MEMKIT_") else {
                continue;
            };
            if RESERVED_ENV.contains(&name) || value.is_empty() {
                continue;
            }
            let Some(key) = key_for_env(rest) else {
                eprintln!("memkit: warning: ignoring unknown environment variable {name}");
                continue;
            };
            let value = value.to_str().ok_or_else(|| {
                Error::usage(format!(
                    "environment variable {name} (for {key}) is not valid UTF-8"
                ))
            })?;
            from_env.push((name.to_string(), key, parse_env_value(value)));
        }
        for (name, key, value) in &from_env {
            check_env_value(name, key, value)?;
            set_key(&mut merged, key, value.clone());
            origins.insert(key.to_string(), Origin::Env(name.clone()));
        }
        for (key, value) in &opts.flags {
            set_key(&mut merged, key, value.clone());
            origins.insert(
                key.clone(),
                Origin::Flag(format!("--{}", key.replace('_', "-"))),
            );
        }

        let raw: RawConfig =
            toml::Value::Table(merged)
                .try_into()
                .map_err(|e: toml::de::Error| {
                    let msg = one_line_toml_error(&e);
                    let origin = origins
                        .iter()
                        .find(|(k, _)| msg.contains(k.rsplit('.').next().unwrap_or(k)))
                        .map(|(k, o)| format!(" (key {k} {o})"))
                        .unwrap_or_default();
                    Error::usage(format!("configuration: {msg}{origin}"))
                })?;
        build(raw, opts, &origins, config_file, config_dir)
    }

    /// The memory folder memkit used by default before it had its own:
    /// Codex's managed `<codex_home>/memories`, which Codex's own writer
    /// re-baselines and empties.
    pub fn legacy_memory_root(&self) -> PathBuf {
        self.codex_home.join("memories")
    }

    /// The path of the state database.
    pub fn db_path(&self) -> PathBuf {
        self.memkit_home.join("memkit.sqlite")
    }

    /// The folder that holds per-run log files.
    pub fn logs_dir(&self) -> PathBuf {
        self.memkit_home.join("logs")
    }

    /// Whether a session source is in the interactive set.
    pub fn is_interactive_source(&self, source: &str) -> bool {
        self.interactive_sources.iter().any(|s| s == source)
    }
}

fn locate_config_file(opts: &LoadOptions) -> Result<(Option<PathBuf>, PathBuf)> {
    let explicit = opts
        .config_path
        .clone()
        .or_else(|| opts.path_var("MEMKIT_CONFIG"));
    if let Some(path) = explicit {
        if !path.is_file() {
            return Err(Error::usage(format!(
                "config file {} does not exist",
                path.display()
            )));
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        return Ok((Some(path), dir));
    }
    let dir = opts
        .path_var("XDG_CONFIG_HOME")
        .unwrap_or_else(|| opts.home().join(".config"))
        .join("memkit");
    let path = dir.join(CONFIG_FILE_NAME);
    Ok((path.is_file().then_some(path), dir))
}

fn one_line_toml_error(e: &toml::de::Error) -> String {
    let msg = e.message().trim().replace('\n', " ");
    // The Display form starts with "TOML parse error at line N, column M" when
    // the error has a location; keep that and the message, drop the snippet.
    match e.to_string().lines().next() {
        Some(first) if first.contains("line") => {
            let location = first.trim_start_matches("TOML parse error at ").trim();
            format!("{location}: {msg}")
        }
        _ => msg,
    }
}

fn flatten_keys(table: &toml::Table) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in table {
        match v {
            toml::Value::Table(inner) => {
                out.extend(inner.keys().map(|ik| format!("{k}.{ik}")));
            }
            _ => out.push(k.clone()),
        }
    }
    out
}

/// Checks one environment override on its own, so an error names the
/// variable it came from.
fn check_env_value(name: &str, key: &str, value: &toml::Value) -> Result<()> {
    let mut table = toml::Table::new();
    set_key(&mut table, key, value.clone());
    toml::Value::Table(table)
        .try_into::<RawConfig>()
        .map(|_| ())
        .map_err(|e: toml::de::Error| {
            Error::usage(format!(
                "environment variable {name}: {key} = {value}: {}",
                one_line_toml_error(&e)
            ))
        })
}

/// Maps the part of an environment variable after `MEMKIT_` to a key.
fn key_for_env(rest: &str) -> Option<&'static str> {
    let lower = rest.to_ascii_lowercase();
    KEYS.iter()
        .copied()
        .find(|k| *k == lower)
        .or_else(|| KEYS.iter().copied().find(|k| k.replace('.', "_") == lower))
}

/// Environment values are TOML values when they parse as one (`8`, `true`,
/// `["a","b"]`), strings otherwise (`/tmp/x`, `10d`).
fn parse_env_value(value: &str) -> toml::Value {
    let doc = format!("v = {value}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(value.into())),
        Err(_) => toml::Value::String(value.to_string()),
    }
}

fn set_key(table: &mut toml::Table, key: &str, value: toml::Value) {
    match key.split_once('.') {
        Some((section, inner)) => {
            let entry = table
                .entry(section.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let toml::Value::Table(t) = entry {
                t.insert(inner.to_string(), value);
            }
        }
        None => {
            table.insert(key.to_string(), value);
        }
    }
}

/// Expands a leading `~` to the home folder.
fn expand_path(s: &str, opts: &LoadOptions) -> PathBuf {
    if s == "~" {
        return opts.home();
    }
    if let Some(rest) = s.strip_prefix("~/") {
        return opts.home().join(rest);
    }
    PathBuf::from(s)
}

/// A folder setting must be an absolute path, and a folder where something exists.
fn checked_dir(key: &str, path: Option<PathBuf>, from: &str) -> Result<PathBuf> {
    let Some(path) = path else {
        return Err(Error::usage(format!(
            "{key} {from}: HOME is not set; set HOME or {key} in the config"
        )));
    };
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err(Error::usage(format!(
            "{key} = \"\" {from}: an empty path; give the absolute path of a folder"
        )));
    }
    if !path.is_absolute() {
        return Err(Error::usage(format!(
            "{key} = \"{shown}\" {from}: not an absolute path; give the absolute path of a folder"
        )));
    }
    if path.exists() && !path.is_dir() {
        return Err(Error::usage(format!(
            "{key} = \"{shown}\" {from}: not a folder"
        )));
    }
    Ok(path)
}

/// Checks that `value` lies in `range`, naming the key and its origin otherwise.
fn check_range(
    key: &str,
    value: i64,
    range: std::ops::RangeInclusive<i64>,
    unit: &str,
    origins: &BTreeMap<String, Origin>,
) -> Result<i64> {
    if range.contains(&value) {
        return Ok(value);
    }
    let origin = origins
        .get(key)
        .map(|o| format!(" {o}"))
        .unwrap_or_default();
    Err(Error::usage(format!(
        "{key} = {value}{unit}{origin} is out of range (allowed {}..={}{unit})",
        range.start(),
        range.end()
    )))
}

/// Resolves a duration key given as a number of `unit_secs` units or a humantime string.
fn duration_key(
    key: &str,
    value: Option<DurationValue>,
    default_units: i64,
    unit_secs: u64,
    unit: &str,
    range: std::ops::RangeInclusive<i64>,
    origins: &BTreeMap<String, Origin>,
) -> Result<Duration> {
    let origin = || {
        origins
            .get(key)
            .map(|o| format!(" {o}"))
            .unwrap_or_default()
    };
    let secs = match value {
        None => default_units as u64 * unit_secs,
        Some(DurationValue::Number(n)) => {
            check_range(key, n, range.clone(), unit, origins)?;
            n as u64 * unit_secs
        }
        Some(DurationValue::Text(s)) => humantime::parse_duration(s.trim())
            .map_err(|e| {
                Error::usage(format!(
                    "{key} = \"{s}\"{}: not a duration ({e}); use a number of {unit} or e.g. \"10d\", \"6h\"",
                    origin()
                ))
            })?
            .as_secs(),
    };
    let max_secs = *range.end() as u64 * unit_secs;
    if secs > max_secs {
        return Err(Error::usage(format!(
            "{key} = {}{} is out of range (allowed 0..={}{unit})",
            crate::util::time::human_duration(secs as i64),
            origin(),
            range.end()
        )));
    }
    Ok(Duration::from_secs(secs))
}

fn build(
    raw: RawConfig,
    opts: &LoadOptions,
    origins: &BTreeMap<String, Origin>,
    config_file: Option<PathBuf>,
    config_dir: PathBuf,
) -> Result<Config> {
    let home = opts.path_var("HOME");
    let from_home = |rel: &str| -> (Option<PathBuf>, String) {
        (
            home.as_ref().map(|h| h.join(rel)),
            format!("(the default, $HOME/{rel})"),
        )
    };
    let dir = |key: &str, set: Option<String>, env: &[&str], default: (Option<PathBuf>, String)| {
        let (path, from) = match set {
            Some(s) => (
                Some(expand_path(&s, opts)),
                origins.get(key).map(|o| o.to_string()).unwrap_or_default(),
            ),
            None => env
                .iter()
                .find_map(|name| {
                    opts.path_var(name)
                        .map(|p| (Some(p), format!("from environment variable {name}")))
                })
                .unwrap_or(default),
        };
        checked_dir(key, path, &from)
    };
    let codex_home = dir(
        "codex_home",
        raw.codex_home,
        &["CODEX_HOME"],
        from_home(".codex"),
    )?;
    let claude_home = dir(
        "claude_home",
        raw.claude_home,
        &["CLAUDE_CONFIG_DIR"],
        from_home(".claude"),
    )?;
    let data_default = match opts.path_var("XDG_DATA_HOME") {
        Some(d) => (
            Some(d.join("memkit")),
            "(the default, $XDG_DATA_HOME/memkit)".to_string(),
        ),
        None => from_home(".local/share/memkit"),
    };
    let memkit_home = dir(
        "memkit_home",
        raw.memkit_home,
        &["MEMKIT_HOME"],
        data_default,
    )?;
    let gemini_home = match (&raw.gemini_home, &home) {
        (None, None) => None,
        _ => Some(dir(
            "gemini_home",
            raw.gemini_home,
            &[],
            from_home(".gemini"),
        )?),
    };
    let memory_root_explicit = raw.memory_root.is_some();
    // memkit's own folder, not Codex's managed `<codex_home>/memories`: Codex's
    // memory writer re-baselines and empties that one whenever it runs.
    let memory_root = dir(
        "memory_root",
        raw.memory_root,
        &[],
        (
            Some(memkit_home.join("memories")),
            "(the default, <memkit_home>/memories)".to_string(),
        ),
    )?;

    let max_raw = check_range(
        "max_raw_memories_for_consolidation",
        raw.max_raw_memories_for_consolidation.unwrap_or(256),
        1..=4096,
        "",
        origins,
    )? as usize;
    let max_unused = duration_key(
        "max_unused_days",
        raw.max_unused_days,
        30,
        86_400,
        " days",
        0..=365,
        origins,
    )?;
    let max_rollout_age = duration_key(
        "max_rollout_age_days",
        raw.max_rollout_age_days,
        10,
        86_400,
        " days",
        0..=90,
        origins,
    )?;
    let min_rollout_idle = duration_key(
        "min_rollout_idle_hours",
        raw.min_rollout_idle_hours,
        6,
        3600,
        " hours",
        0..=48,
        origins,
    )?;
    let extract_jobs = check_range(
        "extract_jobs",
        raw.extract_jobs.unwrap_or(8),
        1..=8,
        "",
        origins,
    )? as usize;
    let extract_input_tokens = check_range(
        "extract_input_tokens",
        raw.extract_input_tokens.unwrap_or(150_000),
        1_000..=2_000_000,
        "",
        origins,
    )? as usize;

    let interactive_sources = raw.sources.interactive.unwrap_or_else(|| {
        DEFAULT_INTERACTIVE_SOURCES
            .iter()
            .map(|s| s.to_string())
            .collect()
    });
    let range_check = |key: &str, v: i64, r: std::ops::RangeInclusive<i64>, unit: &str| {
        check_range(key, v, r, unit, origins)
    };
    let extract = sections::build_extract(raw.extract, &range_check)?;
    let consolidate = sections::build_consolidate(raw.consolidate, &range_check)?;
    let search = search::build_search(raw.search, &range_check)?;
    let costs = costs::build_costs(raw.limits, raw.costs, raw.prices)?;

    Ok(Config {
        codex_home,
        claude_home,
        memkit_home,
        gemini_home,
        memory_root,
        memory_root_explicit,
        read_codex: raw.sources.codex.unwrap_or(true),
        read_claude: raw.sources.claude.unwrap_or(true),
        interactive_sources,
        max_raw_memories_for_consolidation: max_raw,
        max_unused,
        max_rollout_age,
        min_rollout_idle,
        extract_jobs,
        extract_input_tokens,
        extract,
        consolidate,
        search,
        costs,
        config_file,
        config_dir,
    })
}

#[cfg(test)]
mod tests;
