//! `nines what-if MODEL [--lose NAME[:N]]… [--cold] [--scale-load F] [--set C.FIELD=V]…`:
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
use crate::analyze::what_if::{Change, Lost, compare};
use crate::analyze::{Severity, Status};
use crate::engine::scenario::Scenario;
use crate::model::error::closest;
use crate::model::set::{self, SetError};
use crate::model::{ComponentId, Date, DomainId, GroupId, Model};
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
    let fails = outcome
        .introduced_findings()
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
        phrases,
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
    if args.lose.is_empty() && args.scale_load.is_none() && args.set.is_empty() && !args.cold {
        return Err(
            "nothing to change: give --lose NAME, --lose COMPONENT:N, --cold, --scale-load F or --set COMPONENT.FIELD=VALUE"
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

/// Resolves every `--lose` argument: `NAME` (a domain, group or component,
/// all of it) or `COMPONENT:N` (N of its instances).
fn lose(model: &Model, args: &[String], phrases: &mut Vec<String>) -> Result<Lost, String> {
    let mut lost = Lost::default();
    for arg in args {
        let (name, count) = match arg.rsplit_once(':') {
            Some((name, n)) if !model.components.iter().any(|c| c.name == *arg) => {
                let count: u32 = n.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    format!("--lose `{arg}`: the count after `:` must be a whole number above 0, such as `api:1`")
                })?;
                (name, Some(count))
            }
            _ => (arg.as_str(), None),
        };
        if let Some(c) = model.components.iter().position(|c| c.name == name) {
            let component = &model.components[c];
            let n = count.unwrap_or(component.instances);
            // Earlier `--lose` arguments of the same component add up.
            let earlier = lost
                .scenario
                .failed_instances
                .iter()
                .position(|(id, _)| id.0 == c);
            let before = earlier.map_or(0, |at| lost.scenario.failed_instances[at].1);
            if n > component.instances - before {
                let plural = |k: u32| if k == 1 { "" } else { "s" };
                return Err(if before == 0 {
                    format!(
                        "--lose `{arg}`: {name} has {} instance{}",
                        component.instances,
                        plural(component.instances)
                    )
                } else {
                    format!(
                        "--lose `{arg}`: {name} has {} instance{}, and earlier --lose arguments already take {before}",
                        component.instances,
                        plural(component.instances)
                    )
                });
            }
            match earlier {
                Some(at) => lost.scenario.failed_instances[at].1 += n,
                None => lost.scenario.failed_instances.push((ComponentId(c), n)),
            }
            if before + n == component.instances && before > 0 {
                lost.names.push(name.to_owned());
                phrases.push(format!(
                    "lose {n} more of {} instances of {name} (all of them)",
                    component.instances
                ));
            } else if n == component.instances {
                lost.names.push(name.to_owned());
                phrases.push(format!("lose {name} (component)"));
            } else {
                phrases.push(format!(
                    "lose {n} of {} instances of {name}",
                    component.instances
                ));
            }
            continue;
        }
        if count.is_some() {
            return Err(format!(
                "--lose `{arg}`: `:N` counts instances of a component, and no component is called `{name}`"
            ));
        }
        if let Some(d) = model.domains.iter().position(|d| d.name == name) {
            lost.scenario.domains.push(DomainId(d));
            lost.names.push(name.to_owned());
            phrases.push(format!("lose {name} ({})", model.domains[d].kind));
        } else if let Some(g) = model.groups.iter().position(|g| g.name == name) {
            lost.scenario.groups.push(GroupId(g));
            lost.names.push(name.to_owned());
            phrases.push(format!("lose {name} (shared-fate group)"));
        } else {
            let all = model
                .domains
                .iter()
                .map(|d| d.name.as_str())
                .chain(model.groups.iter().map(|g| g.name.as_str()))
                .chain(model.components.iter().map(|c| c.name.as_str()));
            let hint =
                closest(name, all).map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
            return Err(format!(
                "--lose `{name}`: no domain, shared-fate group or component is called that{hint}"
            ));
        }
    }
    Ok(lost)
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
