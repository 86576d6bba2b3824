//! `nines recover MODEL [--outage 30m | --lose NAME[:N]…] [--admit 30%]
//! [--format table|json|svg]`: the recovery plan after an outage and its
//! simulation (docs/recovery.md). The outage, the share and the horizon are
//! read by the model's own scalar rules.

use clap::{Args, ValueEnum};

use super::budget::{argument, both};
use super::{CliError, Outcome, Terminal, read_model};
use crate::model::Duration;
use crate::model::units::Probability;
use crate::recover::{self, Scenario, Settings};
use crate::render::{recovery, recovery_plot, table};

/// Output formats of `recover`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecoverFormat {
    /// The plan and a short load table for a terminal.
    Table,
    /// The plan and its series as JSON (docs/recovery.md).
    Json,
    /// The plot of load against capacity over time.
    Svg,
}

/// Arguments of `nines recover`.
#[derive(Debug, Clone, Args)]
pub struct RecoverArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// How long everything was down (a full outage), as in a model: `30m`, `2h`.
    #[arg(long, default_value = "30m")]
    pub outage: String,
    /// Instead of a full outage: a domain, component or shared-fate group
    /// that was down for `--outage`, or `COMPONENT:N` for N of its
    /// instances (repeatable).
    #[arg(long, value_name = "NAME")]
    pub lose: Vec<String>,
    /// Also simulate admitting only this share of the traffic until every
    /// component is warm (`30%`).
    #[arg(long, value_name = "SHARE")]
    pub admit: Option<String>,
    /// Simulated time after the restart.
    #[arg(long, default_value = "1h")]
    pub horizon: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RecoverFormat::Table)]
    pub format: RecoverFormat,
}

/// The longest simulated time: one day of one-second steps.
const MAX_HORIZON_S: f64 = 86_400.0;

pub(super) fn run(args: &RecoverArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let outage = argument::<Duration>("--outage", &args.outage, "outage", terminal);
    let horizon = argument::<Duration>("--horizon", &args.horizon, "horizon", terminal);
    let admit = match &args.admit {
        Some(text) => {
            argument::<Probability>("--admit", text, "admit", terminal).map(|p| Some(p.0))
        }
        None => Ok(None),
    };
    let ((outage, horizon), admit) = both(both(outage, horizon), admit)?;
    let horizon_s = horizon.seconds();
    if !(1.0..=MAX_HORIZON_S).contains(&horizon_s) {
        return Err("--horizon must be from 1s to 1d, such as `1h`"
            .to_owned()
            .into());
    }
    if admit == Some(0.0) {
        return Err(
            "--admit 0% admits nothing: give a share above 0, such as `30%`"
                .to_owned()
                .into(),
        );
    }
    let (_, model) = read_model(&args.model, terminal)?;
    let scenario = if args.lose.is_empty() {
        Scenario::full_outage(&model, outage.seconds())
    } else {
        Scenario::losing(&model, &args.lose, outage.seconds())?
    };
    let settings = Settings::of(&model, horizon_s);
    let plan = recover::plan(&model, &scenario, &settings, admit);
    match args.format {
        RecoverFormat::Table => recovery::render_table(
            &plan,
            table::Style {
                width: terminal.width,
                color: terminal.color_out,
            },
            terminal.out,
        ),
        RecoverFormat::Json => recovery::render_json(&plan, terminal.out),
        RecoverFormat::Svg => terminal
            .out
            .write_all(recovery_plot::render(&plan).as_bytes()),
    }?;
    Ok(Outcome::Pass)
}
