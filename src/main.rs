//! The `memkit` binary: parse arguments, run the command, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = memkit::cli::Cli::parse();
    let code = match memkit::cmd::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("memkit: error: {err}");
            err.exit_code()
        }
    };
    std::process::exit(code);
}
