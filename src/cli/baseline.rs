//! `nines baseline MODEL [-o FILE]`: the current findings as a baseline file,
//! for `check --baseline` to tell known findings from new ones.

use clap::Args;

use super::{CliError, Outcome, Terminal, input, read_model};
use crate::render::baseline::BaselineFile;

/// Arguments of `nines baseline`.
#[derive(Debug, Clone, Args)]
pub struct BaselineArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// The baseline file to write, or `-` for standard output.
    #[arg(
        short = 'o',
        long,
        value_name = "FILE",
        default_value = "nines-baseline.json"
    )]
    pub output: String,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &BaselineArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let today = super::today(args.today.as_deref())?;
    let (source, model) = read_model(&args.model, terminal)?;
    let audit = crate::analyze::audit(
        &model,
        &source.text,
        crate::engine::scenario::Scenario::default(),
        crate::analyze::Options::new(today),
    );
    let baseline = BaselineFile::of(&audit);
    let to_file = args.output != "-";
    input::write_output(
        to_file.then_some(args.output.as_str()),
        &baseline.to_json(),
        &[args.model.as_str()],
        terminal,
    )?;
    if to_file {
        let _ = writeln!(
            terminal.err,
            "wrote {} known finding(s) to {}",
            baseline.findings.len(),
            args.output
        );
    }
    Ok(Outcome::Pass)
}
