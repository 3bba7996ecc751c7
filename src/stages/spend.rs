//! Money during extraction: the run's budget (`--max-tokens`,
//! `[limits] max_cost_per_run`), reserved per session before its claim and
//! settled with what the model reported, and the estimate of what Codex's
//! own memory pipeline would have sent for the same session.

use crate::config::Tokens;
use std::sync::Mutex;

/// Tokens of Codex's phase-1 system prompt: 30,449 bytes in Codex 0.171.0
/// (`stage_one_system.md`, 569 lines), at Codex's 4 bytes per token.
pub const CODEX_SYSTEM_PROMPT_TOKENS: u64 = 7_613;
/// Tokens of Codex's phase-1 input template around the rollout.
pub const CODEX_INPUT_TEMPLATE_TOKENS: u64 = 80;
/// Codex's rollout budget for its default extraction model: a 400,000-token
/// context × 95 % × 70 % (`codex-memories.md` §3.5).
pub const CODEX_ROLLOUT_TOKEN_LIMIT: u64 = 266_000;

/// What Codex's pipeline would have used on a Codex session whose kept
/// response items are `codex_input_bytes` long, answering with `output` tokens.
pub fn codex_tokens(codex_input_bytes: u64, output: u64) -> Tokens {
    let rollout = codex_input_bytes.div_ceil(4).min(CODEX_ROLLOUT_TOKEN_LIMIT);
    Tokens {
        input: CODEX_SYSTEM_PROMPT_TOKENS + CODEX_INPUT_TEMPLATE_TOKENS + rollout,
        cached_input: 0,
        output,
    }
}

/// Why a session was left for the next run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// `--max-tokens` would be passed.
    Tokens,
    /// `max_cost_per_run` would be passed.
    Cost,
}

impl Over {
    /// The reason recorded for a deferred session.
    pub fn reason(self) -> &'static str {
        match self {
            Over::Tokens => "token budget of this run reached",
            Over::Cost => "cost budget of this run reached (limits.max_cost_per_run)",
        }
    }
}

/// A run's spending limits and what is used or reserved against them.
#[derive(Debug)]
pub struct Budget {
    max_tokens: Option<u64>,
    max_cost: Option<f64>,
    used: Mutex<(u64, f64)>,
}

/// What one session holds of the budget until it is settled.
#[derive(Debug, Clone, Copy)]
pub struct Reservation {
    tokens: u64,
    cost: f64,
}

impl Budget {
    /// A budget with these limits (`None`: no limit).
    pub fn new(max_tokens: Option<u64>, max_cost: Option<f64>) -> Budget {
        Budget {
            max_tokens,
            max_cost,
            used: Mutex::new((0, 0.0)),
        }
    }

    /// Reserves an estimate; refused when it would pass a limit.
    pub fn reserve(&self, tokens: u64, cost: f64) -> Result<Reservation, Over> {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if self.max_tokens.is_some_and(|max| used.0 + tokens > max) {
            return Err(Over::Tokens);
        }
        if self.max_cost.is_some_and(|max| used.1 + cost > max) {
            return Err(Over::Cost);
        }
        used.0 += tokens;
        used.1 += cost;
        Ok(Reservation { tokens, cost })
    }

    /// Replaces a reservation by what was actually used (0 when nothing was).
    pub fn settle(&self, r: Reservation, tokens: u64, cost: f64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.0 = used.0 - r.tokens + tokens;
        used.1 = (used.1 - r.cost + cost).max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stop_at_either_limit_and_settle_to_the_actual() {
        let b = Budget::new(Some(1_000), Some(1.0));
        let r = b.reserve(600, 0.5).unwrap();
        assert_eq!(b.reserve(600, 0.1).unwrap_err(), Over::Tokens);
        assert_eq!(b.reserve(100, 0.6).unwrap_err(), Over::Cost);
        b.settle(r, 100, 0.05);
        assert!(b.reserve(800, 0.9).is_ok());
        let free = Budget::new(None, None);
        assert!(free.reserve(u64::MAX / 2, 1e12).is_ok());
    }

    #[test]
    fn codex_sends_its_prompt_and_the_rollout_up_to_its_budget() {
        assert_eq!(codex_tokens(4_000, 10).input, 7_613 + 80 + 1_000);
        assert_eq!(
            codex_tokens(u64::MAX / 2, 0).input,
            7_613 + 80 + CODEX_ROLLOUT_TOKEN_LIMIT
        );
    }
}
