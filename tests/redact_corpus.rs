//! Recall and false-positive rate of the redactor on a generated corpus.
//!
//! Recall: a secret counts as removed when no 5-character piece of it
//! survives in the output (beyond what the surrounding text itself holds). False positive: a negative text changed at all.
//! The test prints both, per family, and fails below 99% recall or above 1%
//! false positives. Redaction must also be idempotent on every text.

mod corpus;

use memkit::redact::{REDACTED, redact};
use std::collections::BTreeMap;

/// Whether a 5-character piece of `secret` is still in `out`: the output
/// holds it more often than `ideal` does (the text with every secret
/// replaced by the marker), so pieces that the surrounding text shares with
/// the secret (`_api_` in `LINEAR_API_KEY=lin_api_…`) do not count.
fn leaks(secret: &str, out: &str, ideal: &str) -> bool {
    let count = |hay: &str, piece: &str| hay.matches(piece).count();
    secret
        .as_bytes()
        .windows(5.min(secret.len()))
        .filter_map(|w| std::str::from_utf8(w).ok())
        .any(|piece| count(out, piece) > count(ideal, piece))
}

#[derive(Default)]
struct Tally {
    total: usize,
    hits: usize,
}

fn pct(t: &Tally) -> f64 {
    100.0 * t.hits as f64 / t.total.max(1) as f64
}

#[test]
fn corpus_recall_and_false_positives() {
    let positives = corpus::positives::all();
    let negatives = corpus::negatives::all();

    let mut by_family: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut recall = Tally::default();
    let mut misses = Vec::new();
    for p in &positives {
        let out = redact(&p.text);
        let ideal = p
            .secrets
            .iter()
            .fold(p.text.clone(), |t, s| t.replace(s.as_str(), REDACTED));
        let found = p.secrets.iter().all(|s| !leaks(s, &out, &ideal));
        let t = by_family.entry(p.family).or_default();
        t.total += 1;
        recall.total += 1;
        if found {
            t.hits += 1;
            recall.hits += 1;
        } else {
            misses.push(format!(
                "  [{}/{}] {:?}\n    -> {:?}",
                p.family, p.kind, p.text, out
            ));
        }
        assert_eq!(redact(&out), out, "not idempotent on {:?}", p.text);
    }

    let mut by_category: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut fp = Tally::default();
    let mut changed = Vec::new();
    for n in &negatives {
        let out = redact(&n.text);
        let t = by_category.entry(n.category).or_default();
        t.total += 1;
        fp.total += 1;
        if out != n.text {
            t.hits += 1;
            fp.hits += 1;
            changed.push(format!("  [{}] {:?}\n    -> {:?}", n.category, n.text, out));
        }
    }

    println!("recall by family:");
    for (family, t) in &by_family {
        println!(
            "  {family:<20} {:>4}/{:<4} {:6.2}%",
            t.hits,
            t.total,
            pct(t)
        );
    }
    println!("false positives by category:");
    for (category, t) in &by_category {
        println!(
            "  {category:<20} {:>4}/{:<4} {:6.2}%",
            t.hits,
            t.total,
            pct(t)
        );
    }
    println!(
        "recall {:.2}% ({}/{} positives); false positives {:.2}% ({}/{} negatives)",
        pct(&recall),
        recall.hits,
        recall.total,
        pct(&fp),
        fp.hits,
        fp.total
    );
    if !misses.is_empty() {
        println!("missed:\n{}", misses.join("\n"));
    }
    if !changed.is_empty() {
        println!("changed negatives:\n{}", changed.join("\n"));
    }
    assert!(recall.total >= 400 && fp.total >= 300, "corpus too small");
    assert!(pct(&recall) >= 99.0, "recall below 99%");
    assert!(pct(&fp) <= 1.0, "false positives above 1%");
}
