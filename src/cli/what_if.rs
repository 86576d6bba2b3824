//! `nines what-if MODEL [--lose NAME[:N]]… [--cold] [--scale-load F] [--set C.FIELD=V]… [--slow NAME=5s|hang]…`:
//! `check` of the changed state against `check` of the intact one.
//!
//! `--lose` and `--cold` make a [`Scenario`]; every structural and load
//! analysis judges the [`State`] of the model in it. The availability
//! figures come from a copy in which what is lost is down for certain.
//! `--scale-load F` multiplies every written `load` (derived loads follow);
//! `--set` rewrites one field of a component and re-validates the model. The
//! exit code is 1 when the change introduces a new error-level finding,
//! else 0.

use clap::{Args, ValueEnum};

use super::{CliError, Outcome, Terminal, input, today};
use crate::analyze::what_if::{Change, compare, lose, slow_args};
use crate::analyze::{Severity, Status};
use crate::engine::scenario::Scenario;
use crate::model::set::{self, SetError};
use crate::model::{Date, Model};
use crate::render::what_if::{self, WhatIf};
use crate::render::{diagnostics, table};

/// Output formats of `what-if`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WhatIfFormat {
    /// Before → after tables for a terminal.
    Table,
    /// `{"before": report, "after": report, "introduced": [ids], "resolved": [ids]}`.
    Json,
}

/// Arguments of `nines what-if`.
#[derive(Debug, Clone, Args)]
pub struct WhatIfArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// A domain, component or shared-fate group that is down, or
    /// `COMPONENT:N` for N of its instances (repeatable).
    #[arg(long, value_name = "NAME[:N]")]
    pub lose: Vec<String>,
    /// Every cache is cold: each `hit_rate` is 0 (the cold-start question
    /// as a what-if).
    #[arg(long)]
    pub cold: bool,
    /// Multiply every component's peak load by F (`2` doubles the traffic).
    #[arg(long, value_name = "F")]
    pub scale_load: Option<f64>,
    /// Change one field of a component, read as in the model (repeatable):
    /// `api.instances=6`, `db.availability=99.99%`, `api.placement=[az-a, az-b]`;
    /// or of the edge naming TARGET: `web.depends_on[db].hit_rate=95%`.
    #[arg(
        long = "set",
        value_name = "COMPONENT[.depends_on[TARGET]].FIELD=VALUE"
    )]
    pub set: Vec<String>,
    /// A component (or every component of a domain) answers this slowly,
    /// or never (`hang`): its callers hold their workers for it (repeatable).
    #[arg(long, value_name = "NAME=DURATION|hang")]
    pub slow: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = WhatIfFormat::Table)]
    pub format: WhatIfFormat,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &WhatIfArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let source = input::read(&args.model)?;
    what_if(&source.name, &source.text, args, terminal)
}

/// The whole of `nines what-if` on a model text read from `name`.
pub fn what_if_source(
    name: &str,
    text: &str,
    args: &WhatIfArgs,
    terminal: &mut Terminal,
) -> Outcome {
    let result = what_if(name, text, args, terminal);
    terminal.outcome(result)
}

fn what_if(
    name: &str,
    text: &str,
    args: &WhatIfArgs,
    terminal: &mut Terminal,
) -> Result<Outcome, CliError> {
    let today = check_args(args)?;
    let model = super::parse_model(name, text, terminal)?;
    let change = change(name, text, &model, args, terminal)?;
    let mut outcome = compare(&model, text, &change, today);
    if args.format == WhatIfFormat::Table {
        escape_for_terminal(&mut outcome);
    }
    match args.format {
        WhatIfFormat::Table => what_if::render_table(
            &outcome,
            name,
            table::Style {
                width: terminal.width,
                color: terminal.color_out,
            },
            terminal.out,
        ),
        WhatIfFormat::Json => what_if::render_json(&outcome, terminal.out),
    }?;
    // An error the change introduces, or a finding it makes an error.
    let fails = outcome
        .introduced_findings()
        .chain(outcome.worsened_findings().map(|(f, _)| f))
        .any(|f| f.severity == Severity::Error && f.status == Status::New);
    Ok(if fails { Outcome::Fail } else { Outcome::Pass })
}

/// Applies `--set`, `--lose`, `--scale-load` and `--cold` to `model`.
fn change(
    name: &str,
    text: &str,
    model: &Model,
    args: &WhatIfArgs,
    terminal: &Terminal,
) -> Result<Change, CliError> {
    let (changed_text, mut changed) = if args.set.is_empty() {
        (text.to_owned(), model.clone())
    } else {
        set::apply(text, model, &args.set)
            .map_err(|error| set_error(name, text, error, terminal))?
    };
    let mut phrases: Vec<String> = args.set.iter().map(|s| format!("set {s}")).collect();
    let lost = lose(&changed, &args.lose, &mut phrases)?;
    let slow = slow_args(&changed, &args.slow, &mut phrases)?;
    if let Some(factor) = args.scale_load {
        // Every written load, and with them the derived ones (the flow is
        // linear in the loads that enter the system).
        for component in &mut changed.components {
            if let Some(capacity) = &mut component.capacity {
                capacity.load *= factor;
            }
        }
        phrases.push(format!("load × {factor}"));
    }
    if args.cold {
        phrases.push("every cache cold".to_owned());
    }
    let scenario = Scenario {
        cold: args.cold,
        ..lost.scenario.clone()
    };
    Ok(Change {
        text: changed_text,
        model: changed,
        lost,
        scenario,
        slow,
        phrases,
        as_written: args.set.is_empty() && args.scale_load.is_none(),
    })
}

/// Control characters in names and phrases shown as escapes, for a terminal.
fn escape_for_terminal(outcome: &mut WhatIf) {
    crate::render::terminal_audit(&mut outcome.before);
    crate::render::terminal_audit(&mut outcome.after);
    for line in outcome
        .scenario
        .iter_mut()
        .chain(outcome.taken_down.iter_mut())
    {
        *line = crate::render::escape::terminal(line).into_owned();
    }
    for row in outcome
        .states
        .0
        .iter_mut()
        .chain(outcome.states.1.iter_mut())
    {
        row.component = crate::render::escape::terminal(&row.component).into_owned();
    }
}

fn check_args(args: &WhatIfArgs) -> Result<Date, String> {
    if args.lose.is_empty()
        && args.scale_load.is_none()
        && args.set.is_empty()
        && !args.cold
        && args.slow.is_empty()
    {
        return Err(
            "nothing to change: give --lose NAME, --lose COMPONENT:N, --cold, --scale-load F, --set COMPONENT.FIELD=VALUE or --slow NAME=DURATION"
                .to_owned(),
        );
    }
    if let Some(factor) = args.scale_load
        && !(factor.is_finite() && factor > 0.0)
    {
        return Err(format!(
            "--scale-load {factor}: the factor must be a number above 0, such as 2 or 0.5"
        ));
    }
    today(args.today.as_deref())
}

/// A `--set` that cannot be applied: the usage problem, or the located
/// problems of the model and of each value, then one line saying nothing
/// was analysed.
fn set_error(name: &str, text: &str, error: SetError, terminal: &Terminal) -> CliError {
    match error {
        SetError::Usage(message) => CliError::Message(message),
        SetError::Invalid { model, settings } => {
            let mut out = String::new();
            if !model.is_empty() {
                out.push_str(&diagnostics::render_problems(
                    name,
                    text,
                    &model,
                    terminal.width,
                    terminal.color_err,
                ));
            }
            for (arg, problems) in &settings {
                out.push_str(&diagnostics::render_problems(
                    "--set",
                    arg,
                    problems,
                    terminal.width,
                    terminal.color_err,
                ));
            }
            CliError::diagnostics_then(
                out,
                "the model with these --set values is invalid; nothing was analysed",
            )
        }
    }
}
