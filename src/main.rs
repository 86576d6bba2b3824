//! The `nines` binary: parse the arguments, run, exit with the outcome's code.

fn main() -> std::process::ExitCode {
    nines::cli::main()
}
