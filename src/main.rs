//! The `ftl` binary: parse the command line, run it, map the result to an exit code.
use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = ftl::cli::Cli::parse();
    ftl::cli::exit_code(ftl::cli::run(cli))
}
