//! memkit's benchmark suite (a plain bench binary, no criterion): every figure
//! is a ratio against a baseline measured in the same run on the same data.
//!
//! ```sh
//! cargo bench --bench pipeline                 # full size (several GB of corpus, minutes)
//! cargo bench --bench pipeline -- --tiny       # seconds; what CI's harness test runs
//! cargo bench --bench pipeline -- --only input --work /tmp/memkit-bench
//! ```

#[path = "support/codex_v1.rs"]
mod codex_v1;
#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/harness.rs"]
mod harness;
#[path = "../tests/common/mock.rs"]
mod mock;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut work = std::env::temp_dir().join("memkit-bench");
    let mut tiny = false;
    let mut only = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--tiny" => tiny = true,
            "--work" => {
                i += 1;
                work = args[i].clone().into();
            }
            "--only" => {
                i += 1;
                only = Some(args[i].clone());
            }
            "--bench" => {}
            other => {
                eprintln!(
                    "unknown argument {other} (use --tiny, --work DIR, --only input|scan|extract|syncdiff|rss|tokens)"
                );
                std::process::exit(2);
            }
        }
        i += 1;
    }
    std::fs::create_dir_all(&work).unwrap();
    let mut opts = if tiny {
        harness::Options::tiny(work)
    } else {
        harness::Options::full(work)
    };
    opts.only = only;
    let rows = harness::run_all(&opts);
    harness::print_table(&rows);
}
