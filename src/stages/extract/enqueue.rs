//! OpenAI's enqueued-token limit: how many input tokens of one model may wait
//! in batches at once (per organisation and usage tier). A batch over it fails
//! whole at validation (`token_limit_exceeded`) and none of its requests run.
//!
//! memkit keeps each night's submission within the limit it knows —
//! `[extract] batch_max_tokens`, or the one OpenAI reported when it last
//! refused a batch (for a week: a higher tier raises it) — less what the open
//! batches of that model already hold, and leaves the other sessions for the
//! next night.

use crate::config::Config;
use crate::error::Result;
use crate::store::{Store, batches, kv};
use crate::util::text::estimate_tokens;

/// Why a session waits for another night (or was given back): the limit
/// is taken.
pub const LIMIT_REASON: &str = "batch_token_limit";

/// Where the limit OpenAI reported for a model is kept: `<tokens>@<when>`.
const LEARNED_PREFIX: &str = "batch_token_limit:";
/// How long a reported limit is trusted.
const LEARNED_FOR_SECS: i64 = 7 * 86_400;

/// Whether a failed batch's errors say it was over the enqueued-token limit.
pub fn is_over_limit(errors: &str) -> bool {
    errors.contains("token_limit_exceeded")
}

/// The limit an over-limit error states (OpenAI's message reads "… Limit:
/// 90,000 enqueued tokens. …"), if it states one.
fn stated_limit(errors: &str) -> Option<u64> {
    let (_, rest) = errors.split_once("Limit: ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// Records what a batch refused over the limit teaches about `model`: the
/// limit its error states or, when it states none, half of what was queued
/// (called while the refused batch is still open, so it counts). Returns
/// that limit.
pub fn learn(store: &Store, model: &str, errors: &str, now: i64) -> Result<u64> {
    let limit = match stated_limit(errors) {
        Some(limit) => limit,
        None => (in_flight(store, model)? / 2).max(1),
    };
    kv::set(
        store.conn(),
        &format!("{LEARNED_PREFIX}{model}"),
        &format!("{limit}@{now}"),
    )?;
    Ok(limit)
}

/// The input tokens `model`'s batches may still take tonight (`None`: no
/// limit known).
pub fn room(cfg: &Config, store: &Store, model: &str, now: i64) -> Result<Option<u64>> {
    let learned = kv::get(store.conn(), &format!("{LEARNED_PREFIX}{model}"))?.and_then(|v| {
        let (limit, at) = v.split_once('@')?;
        let at: i64 = at.parse().ok()?;
        (now - at < LEARNED_FOR_SECS).then(|| limit.parse::<u64>().ok())?
    });
    let limit = match (cfg.extract.batch_max_tokens, learned) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => match a.or(b) {
            Some(limit) => limit,
            None => return Ok(None),
        },
    };
    Ok(Some(limit.saturating_sub(in_flight(store, model)?)))
}

/// The input tokens the open batches of `model` hold, as memkit estimates them.
fn in_flight(store: &Store, model: &str) -> Result<u64> {
    let bytes = batches::open_prompt_bytes(store.conn(), model)?;
    Ok(estimate_tokens(bytes.max(0) as usize) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stated_limit_is_read_from_openai_s_message() {
        let errors = r#"{"object":"list","data":[{"code":"token_limit_exceeded","message":"Enqueued token limit reached for gpt-5.4-mini in organization org-x. Limit: 2,000,000 enqueued tokens. Please try again once some in_progress batches have been completed."}]}"#;
        assert!(is_over_limit(errors));
        assert_eq!(stated_limit(errors), Some(2_000_000));
        assert_eq!(stated_limit("token_limit_exceeded: try later"), None);
        assert_eq!(stated_limit("Limit: 0 enqueued tokens"), None);
        assert!(!is_over_limit(r#"{"code":"invalid_request"}"#));
    }
}
