//! How the cost ledger reads in the run summary and `memkit status`.

use crate::store::ledger::{CostSummary, Spend};

/// `amount` in `currency`: `$0.0123`, `$4.56`, `0.50 EUR`.
pub fn money(amount: f64, currency: &str) -> String {
    let digits = if amount != 0.0 && amount.abs() < 0.1 {
        4
    } else {
        2
    };
    match currency {
        "USD" => format!("${amount:.digits$}"),
        other => format!("{amount:.digits$} {other}"),
    }
}

/// The cost line: the run's spending (with the synchronous price when the
/// Batch API saved something), the month's, and what Codex's own pipeline
/// would have spent on the same Codex sessions.
pub fn cost_line(s: &CostSummary, run_label: &str) -> String {
    let m = |v: f64| money(v, &s.currency);
    let mut parts = Vec::new();
    match &s.run {
        Some(run) => {
            let mut part = format!("{run_label} {}", m(run.cost));
            if run.sync_cost > run.cost + 1e-12 {
                part.push_str(&format!(" (synchronously {})", m(run.sync_cost)));
            }
            parts.push(part);
        }
        None => parts.push(format!("nothing spent {run_label}")),
    }
    parts.push(format!("this month {}", m(s.month.cost)));
    let mut line = format!("cost: {}", parts.join(" · "));
    if let Some(codex) = codex_part(s.run.as_ref(), &s.month, &m) {
        line.push_str(&format!("; {codex}"));
    }
    let unpriced = s
        .run
        .as_ref()
        .map_or(s.month.unpriced_calls, |r| r.unpriced_calls);
    if unpriced > 0 {
        line.push_str(&format!(
            "; {unpriced} model call{} not priced (add the model to [prices] in the config)",
            if unpriced == 1 { "" } else { "s" }
        ));
    }
    line
}

/// What Codex's pipeline would have spent, when any Codex session was extracted.
fn codex_part(run: Option<&Spend>, month: &Spend, m: &dyn Fn(f64) -> String) -> Option<String> {
    if month.codex_sessions == 0 {
        return None;
    }
    let run = run.filter(|r| r.codex_sessions > 0);
    Some(match run {
        Some(r) => format!(
            "Codex's own pipeline would have spent ≈ {} on these {} Codex sessions ({} this month)",
            m(r.codex_cost),
            r.codex_sessions,
            m(month.codex_cost)
        ),
        None => format!(
            "Codex's own pipeline would have spent ≈ {} on this month's {} Codex sessions",
            m(month.codex_cost),
            month.codex_sessions
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_keep_their_cents_and_small_ones_their_digits() {
        assert_eq!(money(4.5, "USD"), "$4.50");
        assert_eq!(money(0.00123, "USD"), "$0.0012");
        assert_eq!(money(0.0, "USD"), "$0.00");
        assert_eq!(money(2.0, "EUR"), "2.00 EUR");
    }

    #[test]
    fn the_line_shows_the_batch_saving_and_codex_s_price() {
        let run = Spend {
            calls: 2,
            cost: 0.5,
            sync_cost: 1.0,
            codex_cost: 3.0,
            codex_sessions: 2,
            ..Spend::default()
        };
        let s = CostSummary {
            currency: "USD".into(),
            run: Some(run.clone()),
            month: Spend {
                cost: 2.0,
                codex_cost: 9.0,
                codex_sessions: 5,
                unpriced_calls: 1,
                ..run
            },
        };
        assert_eq!(
            cost_line(&s, "tonight"),
            "cost: tonight $0.50 (synchronously $1.00) · this month $2.00; Codex's own pipeline \
             would have spent ≈ $3.00 on these 2 Codex sessions ($9.00 this month)"
        );
        let idle = CostSummary { run: None, ..s };
        let line = cost_line(&idle, "tonight");
        assert!(
            line.starts_with("cost: nothing spent tonight · this month $2.00"),
            "{line}"
        );
        assert!(line.contains("1 model call not priced"), "{line}");
    }
}
