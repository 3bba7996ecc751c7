//! The `[extract]` and `[consolidate]` sections: which backend runs each phase and how to reach it.

use super::DurationValue;
use crate::error::{Error, Result};
use serde::Deserialize;
use std::time::Duration;

/// Range check callback shared with the top-level keys (names the key and its origin).
pub(super) type RangeCheck<'a> =
    dyn Fn(&str, i64, std::ops::RangeInclusive<i64>, &str) -> Result<i64> + 'a;

/// Which phase-1 backend turns a session into a stage-1 output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtractBackendKind {
    /// Offline, deterministic rules (the default).
    Heuristic,
    /// OpenAI Responses API.
    Openai,
    /// OpenAI Responses API through the Batch API: half the price, results
    /// within 24 hours (collected by a later run).
    OpenaiBatch,
    /// Any OpenAI-compatible `/chat/completions` endpoint.
    Chat,
    /// An external program: request JSON on stdin, JSON object on stdout.
    Command,
}

impl ExtractBackendKind {
    /// Parses a backend name as written in the config or on the command line.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "heuristic" => Self::Heuristic,
            "openai" => Self::Openai,
            "openai-batch" => Self::OpenaiBatch,
            "chat" => Self::Chat,
            "command" => Self::Command,
            _ => return None,
        })
    }

    /// The name used in config, output and the database.
    pub fn name(self) -> &'static str {
        match self {
            Self::Heuristic => "heuristic",
            Self::Openai => "openai",
            Self::OpenaiBatch => "openai-batch",
            Self::Chat => "chat",
            Self::Command => "command",
        }
    }
}

/// Which phase-2 backend rewrites `MEMORY.md` and `memory_summary.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsolidateBackendKind {
    /// Offline, deterministic merge (the default).
    Heuristic,
    /// One structured-output model call over a transport (openai, chat or command).
    Model,
    /// An external agent command run inside the memory folder.
    Agent,
}

impl ConsolidateBackendKind {
    /// Parses a backend name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "heuristic" => Self::Heuristic,
            "model" => Self::Model,
            "agent" => Self::Agent,
            _ => return None,
        })
    }

    /// The name used in config, output and the database.
    pub fn name(self) -> &'static str {
        match self {
            Self::Heuristic => "heuristic",
            Self::Model => "model",
            Self::Agent => "agent",
        }
    }
}

/// The `agent` backend's default command: Codex with no memory prompt, no
/// session file and no memory writer of its own (`--ephemeral --disable
/// memories`), sandboxed to the folder it runs in, the prompt on stdin.
pub const DEFAULT_AGENT_COMMAND: &[&str] = &[
    "codex",
    "exec",
    "--ephemeral",
    "--disable",
    "memories",
    "--sandbox",
    "workspace-write",
    "--skip-git-repo-check",
    "-",
];

/// Phase-1 settings (`[extract]`).
#[derive(Debug, Clone)]
pub struct ExtractConfig {
    /// The backend.
    pub backend: ExtractBackendKind,
    /// Model name for `openai` / `chat` (empty: the transport's default).
    pub model: String,
    /// Base URL for `openai` / `chat` (empty: the transport's default).
    pub base_url: String,
    /// Environment variable that holds the API key.
    pub api_key_env: String,
    /// argv of the `command` backend.
    pub command: Vec<String>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Retries after 429 / 5xx / transport errors.
    pub max_retries: u32,
    /// With `openai-batch`: the synchronous backend a session's last retry
    /// goes to after failing in batches (`None`: batches only).
    pub batch_fallback: Option<ExtractBackendKind>,
    /// With `openai-batch`: how often `--wait` asks whether a batch is done.
    pub batch_poll_interval: Duration,
    /// With `openai-batch`: most input tokens memkit keeps queued at OpenAI
    /// per model (its enqueued-token limit; `None`: what OpenAI reported,
    /// once it refused a batch, else no cap).
    pub batch_max_tokens: Option<u64>,
}

/// Phase-2 settings (`[consolidate]`).
#[derive(Debug, Clone)]
pub struct ConsolidateConfig {
    /// The backend.
    pub backend: ConsolidateBackendKind,
    /// Transport of the `model` backend: `openai`, `chat` or `command`.
    pub transport: ExtractBackendKind,
    /// Model name for the `model` backend (empty: the transport's default).
    pub model: String,
    /// Base URL for the `model` backend (empty: the transport's default).
    pub base_url: String,
    /// Environment variable that holds the API key.
    pub api_key_env: String,
    /// argv of the `command` transport.
    pub command: Vec<String>,
    /// argv of the `agent` backend (run inside the memory folder, prompt on stdin).
    pub agent_command: Vec<String>,
    /// Time limit of one consolidation (model call or agent run).
    pub timeout: Duration,
    /// Budget of the model backend's input, in estimated tokens.
    pub input_tokens: usize,
    /// Minimum time between two successful consolidations (0: cron decides).
    pub cooldown: Duration,
    /// Failed consolidations retried at most this many times before memkit stops and reports.
    pub max_retries: u32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExtract {
    backend: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    command: Option<Vec<String>>,
    timeout: Option<DurationValue>,
    max_retries: Option<i64>,
    batch_fallback: Option<String>,
    batch_poll_interval: Option<DurationValue>,
    batch_max_tokens: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConsolidate {
    backend: Option<String>,
    transport: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    command: Option<Vec<String>>,
    agent_command: Option<Vec<String>>,
    timeout: Option<DurationValue>,
    input_tokens: Option<i64>,
    cooldown: Option<DurationValue>,
    max_retries: Option<i64>,
}

/// A time limit: a duration that must not be zero (nothing could finish in it).
pub(super) fn time_limit(
    key: &str,
    v: Option<DurationValue>,
    default: Duration,
) -> Result<Duration> {
    let d = seconds(key, v, default)?;
    if d.is_zero() {
        return Err(Error::usage(format!(
            "{key} = 0 is not a time limit; give one such as \"120s\" or \"30m\""
        )));
    }
    Ok(d)
}

/// A duration in seconds (number) or humantime text.
fn seconds(key: &str, v: Option<DurationValue>, default: Duration) -> Result<Duration> {
    match v {
        None => Ok(default),
        Some(DurationValue::Number(n)) if n >= 0 => Ok(Duration::from_secs(n as u64)),
        Some(DurationValue::Number(n)) => {
            Err(Error::usage(format!("{key} = {n} must not be negative")))
        }
        Some(DurationValue::Text(s)) => humantime::parse_duration(s.trim()).map_err(|e| {
            Error::usage(format!(
                "{key} = \"{s}\": not a duration ({e}); use seconds or e.g. \"120s\", \"30m\""
            ))
        }),
    }
}

pub(super) fn build_extract(raw: RawExtract, check: &RangeCheck<'_>) -> Result<ExtractConfig> {
    let backend = match raw.backend.as_deref() {
        None => ExtractBackendKind::Heuristic,
        Some(s) => ExtractBackendKind::parse(s).ok_or_else(|| {
            Error::usage(format!(
                "extract.backend = \"{s}\" is not a backend (allowed: heuristic, openai, \
                 openai-batch, chat, command)"
            ))
        })?,
    };
    let batch_fallback = match raw.batch_fallback.as_deref() {
        None | Some("") => None,
        Some(s) => Some(
            ExtractBackendKind::parse(s)
                .filter(|k| *k != ExtractBackendKind::OpenaiBatch)
                .ok_or_else(|| {
                    Error::usage(format!(
                        "extract.batch_fallback = \"{s}\" is not a synchronous backend \
                         (allowed: \"\", heuristic, openai, chat, command)"
                    ))
                })?,
        ),
    };
    Ok(ExtractConfig {
        backend,
        model: raw.model.unwrap_or_default(),
        base_url: raw.base_url.unwrap_or_default(),
        api_key_env: raw.api_key_env.unwrap_or_else(|| "OPENAI_API_KEY".into()),
        command: raw.command.unwrap_or_default(),
        timeout: time_limit("extract.timeout", raw.timeout, Duration::from_secs(300))?,
        max_retries: check(
            "extract.max_retries",
            raw.max_retries.unwrap_or(3),
            0..=10,
            "",
        )? as u32,
        batch_fallback,
        batch_poll_interval: time_limit(
            "extract.batch_poll_interval",
            raw.batch_poll_interval,
            Duration::from_secs(60),
        )?,
        batch_max_tokens: match raw.batch_max_tokens {
            None => None,
            Some(n) => Some(check(
                "extract.batch_max_tokens",
                n,
                0..=1_000_000_000_000,
                " tokens",
            )? as u64)
            .filter(|&n| n > 0),
        },
    })
}

pub(super) fn build_consolidate(
    raw: RawConsolidate,
    check: &RangeCheck<'_>,
) -> Result<ConsolidateConfig> {
    let backend = match raw.backend.as_deref() {
        None => ConsolidateBackendKind::Heuristic,
        Some(s) => ConsolidateBackendKind::parse(s).ok_or_else(|| {
            Error::usage(format!(
                "consolidate.backend = \"{s}\" is not a backend (allowed: heuristic, model, agent)"
            ))
        })?,
    };
    let transport = match raw.transport.as_deref() {
        None => ExtractBackendKind::Openai,
        Some(s) => ExtractBackendKind::parse(s)
            .filter(|k| *k != ExtractBackendKind::Heuristic)
            .ok_or_else(|| {
                Error::usage(format!(
                    "consolidate.transport = \"{s}\" is not a transport (allowed: openai, chat, command)"
                ))
            })?,
    };
    Ok(ConsolidateConfig {
        backend,
        transport,
        model: raw.model.unwrap_or_default(),
        base_url: raw.base_url.unwrap_or_default(),
        api_key_env: raw.api_key_env.unwrap_or_else(|| "OPENAI_API_KEY".into()),
        command: raw.command.unwrap_or_default(),
        agent_command: raw.agent_command.unwrap_or_else(|| {
            DEFAULT_AGENT_COMMAND
                .iter()
                .map(|s| s.to_string())
                .collect()
        }),
        timeout: time_limit(
            "consolidate.timeout",
            raw.timeout,
            Duration::from_secs(30 * 60),
        )?,
        input_tokens: check(
            "consolidate.input_tokens",
            raw.input_tokens.unwrap_or(200_000),
            1_000..=2_000_000,
            "",
        )? as usize,
        cooldown: seconds("consolidate.cooldown", raw.cooldown, Duration::ZERO)?,
        max_retries: check(
            "consolidate.max_retries",
            raw.max_retries.unwrap_or(3),
            0..=10,
            "",
        )? as u32,
    })
}
