//! `nines export MODEL --format mef [-o FILE]`: the model for another tool.

use clap::{Args, ValueEnum};

use super::{CliError, Outcome, Terminal, input, read_model};
use crate::engine::mef;

/// Most instances written as basic events.
const MAX_INSTANCES: u64 = 1_000_000;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Open-PSA Model Exchange Format: a fault tree with one top gate per
    /// entrypoint (`top-<name>`), for SCRAM and other PSA engines.
    Mef,
}

/// Arguments of `nines export`.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// The format to write.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write to this file instead of standard output (`-`: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<String>,
}

pub(super) fn run(args: &ExportArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let (_, model) = read_model(&args.model, terminal)?;
    // One basic event per instance: a fleet of millions would write
    // gigabytes that no fault-tree engine can read.
    let instances: u64 = model
        .components
        .iter()
        .map(|c| u64::from(c.instances))
        .sum();
    if instances > MAX_INSTANCES {
        return Err(format!(
            "the model has {instances} instances; a fault tree gets one basic event per instance, and {MAX_INSTANCES} is the most nines exports"
        )
        .into());
    }
    let text = match args.format {
        ExportFormat::Mef => mef::export(&model),
    };
    input::write_output(
        args.output.as_deref(),
        &text,
        &[args.model.as_str()],
        terminal,
    )?;
    Ok(Outcome::Pass)
}
