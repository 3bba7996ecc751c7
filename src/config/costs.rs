//! The price table (`[prices."<model>"]`), `[costs]` and `[limits]`: what a
//! run's tokens cost in money, what Codex's own pipeline would have spent,
//! and the brake on a run's spending.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What one model costs, per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Input tokens served from the provider's prompt cache.
    pub cached_input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input through the Batch API.
    pub batch_input: f64,
    /// Cached input through the Batch API.
    pub batch_cached_input: f64,
    /// Output through the Batch API.
    pub batch_output: f64,
}

/// Tokens of one model call (or of many, summed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input tokens, cached ones included.
    pub input: u64,
    /// The part of `input` served from the prompt cache.
    pub cached_input: u64,
    /// Output tokens.
    pub output: u64,
}

impl Price {
    /// The price of `t`, synchronously or through the Batch API.
    pub fn cost(&self, t: Tokens, batch: bool) -> f64 {
        let (input, cached, output) = if batch {
            (self.batch_input, self.batch_cached_input, self.batch_output)
        } else {
            (self.input, self.cached_input, self.output)
        };
        let cached_tokens = t.cached_input.min(t.input);
        ((t.input - cached_tokens) as f64 * input
            + cached_tokens as f64 * cached
            + t.output as f64 * output)
            / 1_000_000.0
    }
}

/// Money settings.
#[derive(Debug, Clone)]
pub struct CostConfig {
    /// What the prices are in (shown next to amounts).
    pub currency: String,
    /// The model Codex's own memory pipeline would extract with, for the comparison.
    pub codex_model: String,
    /// Stop claiming sessions before a run's estimated cost would pass this.
    pub max_cost_per_run: Option<f64>,
    /// Prices by model name.
    pub prices: BTreeMap<String, Price>,
}

impl CostConfig {
    /// The price of `model`: its own entry, else the entry it is a dated
    /// snapshot or a sized variant of (`gpt-5.4-mini-2026-03-17`,
    /// `text-embedding-3-small@512`); `gpt-5.4-pro` is not `gpt-5.4`.
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.prices.get(model).or_else(|| {
            self.prices
                .iter()
                .filter(|(name, _)| {
                    model.strip_prefix(name.as_str()).is_some_and(|rest| {
                        rest.starts_with('@')
                            || rest
                                .strip_prefix('-')
                                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
                    })
                })
                .max_by_key(|(name, _)| name.len())
                .map(|(_, p)| p)
        })
    }
}

impl Default for CostConfig {
    /// The built-in prices, no limit, Codex's default extraction model.
    fn default() -> Self {
        build_costs(RawLimits::default(), RawCosts::default(), BTreeMap::new())
            .expect("the built-in prices are valid")
    }
}

/// OpenAI's list prices per million tokens (March 2026) for the models
/// memkit uses by default, and the offline backends' (free); `[prices]`
/// overrides or adds to them. The Batch API costs half.
const BUILT_IN: &[(&str, f64, f64, f64)] = &[
    (crate::backends::heuristic::MODEL, 0.0, 0.0, 0.0),
    ("gpt-5.4-mini", 0.75, 0.075, 4.50),
    ("gpt-5.4", 2.50, 0.25, 15.00),
    ("text-embedding-3-small", 0.02, 0.02, 0.0),
    ("text-embedding-3-large", 0.13, 0.13, 0.0),
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLimits {
    max_cost_per_run: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCosts {
    currency: Option<String>,
    codex_model: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPrice {
    input: f64,
    cached_input: Option<f64>,
    output: f64,
    batch_input: Option<f64>,
    batch_cached_input: Option<f64>,
    batch_output: Option<f64>,
}

pub(super) fn build_costs(
    limits: RawLimits,
    costs: RawCosts,
    prices: BTreeMap<String, RawPrice>,
) -> Result<CostConfig> {
    let mut table: BTreeMap<String, Price> = BUILT_IN
        .iter()
        .map(|&(name, input, cached, output)| {
            (
                name.to_string(),
                Price {
                    input,
                    cached_input: cached,
                    output,
                    batch_input: input / 2.0,
                    batch_cached_input: cached / 2.0,
                    batch_output: output / 2.0,
                },
            )
        })
        .collect();
    for (model, p) in prices {
        let values = [
            ("input", Some(p.input)),
            ("cached_input", p.cached_input),
            ("output", Some(p.output)),
            ("batch_input", p.batch_input),
            ("batch_cached_input", p.batch_cached_input),
            ("batch_output", p.batch_output),
        ];
        for (key, v) in values {
            if let Some(v) = v.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(Error::usage(format!(
                    "prices.\"{model}\".{key} = {v}: a price per million tokens is a number ≥ 0"
                )));
            }
        }
        let cached = p.cached_input.unwrap_or(p.input);
        table.insert(
            model,
            Price {
                input: p.input,
                cached_input: cached,
                output: p.output,
                batch_input: p.batch_input.unwrap_or(p.input / 2.0),
                batch_cached_input: p.batch_cached_input.unwrap_or(cached / 2.0),
                batch_output: p.batch_output.unwrap_or(p.output / 2.0),
            },
        );
    }
    let max_cost_per_run = match limits.max_cost_per_run {
        None => None,
        Some(v) if v.is_finite() && v == 0.0 => None,
        Some(v) if v.is_finite() && v > 0.0 => Some(v),
        Some(v) => {
            return Err(Error::usage(format!(
                "limits.max_cost_per_run = {v}: give an amount > 0, or 0 for no limit"
            )));
        }
    };
    Ok(CostConfig {
        currency: costs.currency.unwrap_or_else(|| "USD".into()),
        codex_model: costs.codex_model.unwrap_or_else(|| "gpt-5.4-mini".into()),
        max_cost_per_run,
        prices: table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(prices: &str) -> Result<CostConfig> {
        let prices: BTreeMap<String, RawPrice> = toml::from_str(prices).unwrap();
        build_costs(RawLimits::default(), RawCosts::default(), prices)
    }

    #[test]
    fn cached_input_and_batch_are_priced_apart() {
        let c = built("").unwrap();
        let p = c.price("gpt-5.4-mini").unwrap();
        let t = Tokens {
            input: 1_000_000,
            cached_input: 400_000,
            output: 100_000,
        };
        let sync = 0.6 * 0.75 + 0.4 * 0.075 + 0.1 * 4.5;
        assert!((p.cost(t, false) - sync).abs() < 1e-9);
        assert!((p.cost(t, true) - sync / 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_table_overrides_and_dated_names_find_their_model() {
        let c = built("[\"gpt-5.4-mini\"]\ninput = 1.0\noutput = 2.0\n[my-model]\ninput = 0.1\noutput = 0.2\nbatch_output = 0.05\n").unwrap();
        let p = c.price("gpt-5.4-mini-2026-03-17").unwrap();
        assert_eq!((p.input, p.cached_input, p.batch_input), (1.0, 1.0, 0.5));
        assert_eq!(c.price("gpt-5.4-2026-03-05").unwrap().input, 2.5);
        assert_eq!(c.price("my-model").unwrap().batch_output, 0.05);
        assert!(c.price("qwen3:8b").is_none());
        assert!(
            c.price("gpt-5.4-pro").is_none(),
            "another model, not a snapshot"
        );
        assert_eq!(c.price("text-embedding-3-small@512").unwrap().input, 0.02);
        let e = built("[m]\ninput = -1.0\noutput = 1.0\n").unwrap_err();
        assert!(e.to_string().contains("prices.\"m\".input"), "{e}");
    }
}
