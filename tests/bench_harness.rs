//! Runs the benchmark harness on a tiny corpus to prove it works end to end.
//! No timing assertions: these machines are noisy; the figures live in BENCHMARKS.md.

#[path = "../benches/support/codex_v1.rs"]
mod codex_v1;
#[path = "../benches/support/corpus.rs"]
mod corpus;
#[path = "../benches/support/harness.rs"]
mod harness;
#[path = "common/mock.rs"]
mod mock;

#[test]
fn the_harness_runs_every_benchmark_on_a_tiny_corpus() {
    let work =
        std::env::temp_dir().join(format!("memkit-bench-{}", memkit::util::ids::new_uuid_v4()));
    std::fs::create_dir_all(&work).unwrap();
    let rows = harness::run_all(&harness::Options::tiny(work.clone()));
    harness::print_table(&rows);
    let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
    for expected in [
        "input preparation vs cat",
        "catalog scan, cold",
        "catalog scan, warm",
        "no-op nightly run, whole process",
        "extraction efficiency",
        "sync + diff",
        "peak RSS, one huge rollout",
        "peak RSS, hostile folder",
    ] {
        assert!(
            names.contains(&expected),
            "missing {expected}: {names:?} (peak RSS is measured with GNU time: /usr/bin/time)"
        );
    }
    for r in &rows {
        assert!(r.ratio.is_finite() && r.ratio > 0.0, "{r:?}");
    }
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
fn the_corpus_is_deterministic_and_in_the_real_layouts() {
    let a = std::env::temp_dir().join(format!(
        "memkit-corpus-{}",
        memkit::util::ids::new_uuid_v4()
    ));
    let b = std::env::temp_dir().join(format!(
        "memkit-corpus-{}",
        memkit::util::ids::new_uuid_v4()
    ));
    let spec = corpus::Spec {
        sessions: 12,
        scale: 0.02,
        compressed_share: 0.3,
        ..corpus::Spec::default()
    };
    let ga = corpus::generate(&spec, &a);
    let gb = corpus::generate(&spec, &b);
    assert_eq!(ga.bytes, gb.bytes);
    assert_eq!(ga.files.len(), gb.files.len());
    for (x, y) in ga.files.iter().zip(&gb.files) {
        assert_eq!(x.strip_prefix(&a).unwrap(), y.strip_prefix(&b).unwrap());
        assert_eq!(std::fs::read(x).unwrap(), std::fs::read(y).unwrap());
    }
    for f in &ga.files {
        let tool = memkit::sources::detect_tool(f).expect("a known format");
        memkit::sources::read_transcript(f, tool, Default::default()).expect("readable");
    }
    assert!(
        ga.files
            .iter()
            .any(|f| f.to_string_lossy().ends_with(".jsonl.zst"))
    );
    assert!(
        ga.files
            .iter()
            .any(|f| f.to_string_lossy().contains("/projects/"))
    );
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}
