//! Memory-quality figures for BENCHMARKS.md (issue 13): memkit's default
//! backends over the generated corpus (or any corpus with its own
//! `key.json`), scored against the answer key.
//!
//! ```sh
//! cargo bench --bench quality                          # the generated corpus
//! cargo bench --bench quality -- --corpus DIR          # another corpus and key
//! cargo bench --bench quality -- --work /tmp/memkit-quality
//! ```

#[path = "../tests/quality/mod.rs"]
mod quality;

use quality::key::Key;
use quality::run::Memkit;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn main() {
    let mut corpus: Option<PathBuf> = None;
    let mut work = std::env::temp_dir().join("memkit-quality");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--corpus" => corpus = args.next().map(PathBuf::from),
            "--work" => work = args.next().map(PathBuf::from).unwrap_or(work),
            "--bench" => {}
            other => {
                eprintln!("unknown argument {other} (use --corpus DIR, --work DIR)");
                std::process::exit(2);
            }
        }
    }
    let generated = corpus.is_none();
    let corpus = corpus.unwrap_or_else(|| work.join("corpus"));
    let memkit = Memkit::new(
        Path::new(env!("CARGO_BIN_EXE_memkit")),
        &corpus,
        &work.join("run"),
    )
    .expect("work directory ready");
    if generated {
        if corpus.exists() {
            std::fs::remove_dir_all(&corpus).expect("old corpus removed");
        }
        let written =
            quality::generator::generate(&corpus, SystemTime::now()).expect("corpus written");
        eprintln!(
            "generated {} sessions, {} facts, {} noise items in {}",
            written.sessions.len(),
            written.key.facts.len(),
            written.key.noise.len(),
            corpus.display()
        );
        if let Err(e) = memkit.check_catalog(&written.sessions) {
            eprintln!("memkit does not read the corpus as written: {e}");
            std::process::exit(1);
        }
    }
    let key = Key::read(&corpus).expect("the corpus has a key.json");
    let memory = match memkit.run() {
        Ok(memory) => memory,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let report = quality::score::score(&key, &memory).expect("memory folder scored");
    println!("{}", report.table());
    eprint!("{}", report.details());
    let unmet = report.unmet();
    if !unmet.is_empty() {
        eprintln!("targets missed: {}", unmet.join(", "));
    }
    eprintln!("memory folder: {}", memory.display());
}
