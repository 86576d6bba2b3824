//! `nines what-if MODEL [--lose NAME]… [--scale-load F] [--set C.FIELD=V]…`:
//! the analyses of `check` on the model and on a changed copy, side by side.
//!
//! Losing a domain or a shared-fate group sets its availability to 0 (it is
//! down); losing a component sets the availability of its instances to 0.
//! `--scale-load F` multiplies every component's peak `load`; `--set`
//! rewrites one field of a component and re-validates the model. The exit
//! code is 1 when the change introduces a new error-level finding, else 0.

use clap::{Args, ValueEnum};

use super::set::{self, SetError};
use super::{Outcome, Terminal, input, today};
use crate::analyze::{Severity, Status};
use crate::model::error::closest;
use crate::model::{self, Date, Model};
use crate::report::review::worst_first;
use crate::report::what_if::{self, WhatIf};
use crate::report::{HeadroomRow, diagnostics, table};

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
    /// A domain, component or shared-fate group that is down (repeatable).
    #[arg(long, value_name = "NAME")]
    pub lose: Vec<String>,
    /// Multiply every component's peak load by F (`2` doubles the traffic).
    #[arg(long, value_name = "F")]
    pub scale_load: Option<f64>,
    /// Change one field of a component, read as in the model (repeatable):
    /// `api.instances=6`, `db.availability=99.99%`, `api.placement=[az-a, az-b]`.
    #[arg(long = "set", value_name = "COMPONENT.FIELD=VALUE")]
    pub set: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = WhatIfFormat::Table)]
    pub format: WhatIfFormat,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &WhatIfArgs, terminal: &mut Terminal) -> Outcome {
    match input::read(&args.model) {
        Ok(source) => what_if_source(&source.name, &source.text, args, terminal),
        Err(message) => {
            terminal.error(&message);
            Outcome::Invalid
        }
    }
}

/// The whole of `nines what-if` on a model text read from `name`.
pub fn what_if_source(
    name: &str,
    text: &str,
    args: &WhatIfArgs,
    terminal: &mut Terminal,
) -> Outcome {
    let today = match check_args(args) {
        Ok(today) => today,
        Err(message) => {
            terminal.error(&message);
            return Outcome::Invalid;
        }
    };
    let model = match model::parse(text) {
        Ok(model) => model,
        Err(problems) => {
            let rendered =
                diagnostics::render(name, text, &problems, terminal.width, terminal.color_err);
            let _ = terminal.err.write_all(rendered.as_bytes());
            return Outcome::Invalid;
        }
    };
    let (changed_text, mut changed) = if args.set.is_empty() {
        (text.to_owned(), model.clone())
    } else {
        match set::apply(text, &model, &args.set) {
            Ok(changed) => changed,
            Err(error) => {
                report_set_error(name, text, error, terminal);
                return Outcome::Invalid;
            }
        }
    };
    let mut scenario: Vec<String> = args.set.iter().map(|s| format!("set {s}")).collect();
    let lost_domains = match lose(&mut changed, &args.lose, &mut scenario) {
        Ok(domains) => domains,
        Err(message) => {
            terminal.error(&message);
            return Outcome::Invalid;
        }
    };
    if let Some(factor) = args.scale_load {
        for component in &mut changed.components {
            if let Some(capacity) = &mut component.capacity {
                capacity.load *= factor;
            }
        }
        scenario.push(format!("load × {factor}"));
    }
    let before = super::check::report(&model, text, today, &|_| true);
    let after = super::check::report(&changed, &changed_text, today, &|_| true);
    let ids = |r: &crate::report::Report| -> Vec<String> {
        r.findings.iter().map(|f| f.id.clone()).collect()
    };
    let (before_ids, after_ids) = (ids(&before), ids(&after));
    let introduced: Vec<String> = after_ids
        .iter()
        .filter(|id| before_ids.binary_search(id).is_err())
        .cloned()
        .collect();
    let resolved: Vec<String> = before_ids
        .iter()
        .filter(|id| after_ids.binary_search(id).is_err())
        .cloned()
        .collect();
    let headroom = headroom_rows(
        &before.headroom,
        &after.headroom,
        &lost_domains,
        args.scale_load.is_some() || !args.set.is_empty(),
    );
    let mut outcome = WhatIf {
        scenario,
        before,
        after,
        introduced,
        resolved,
        headroom,
    };
    if args.format == WhatIfFormat::Table {
        crate::report::escape::terminal_report(&mut outcome.before);
        crate::report::escape::terminal_report(&mut outcome.after);
        for line in &mut outcome.scenario {
            *line = crate::report::escape::terminal(line).into_owned();
        }
    }
    let written = match args.format {
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
    };
    if written.is_err() {
        return Outcome::Invalid;
    }
    let fails = outcome
        .introduced_findings()
        .any(|f| f.severity == Severity::Error && f.status == Status::New);
    if fails { Outcome::Fail } else { Outcome::Pass }
}

fn check_args(args: &WhatIfArgs) -> Result<Date, String> {
    if args.lose.is_empty() && args.scale_load.is_none() && args.set.is_empty() {
        return Err(
            "nothing to change: give --lose NAME, --scale-load F or --set COMPONENT.FIELD=VALUE"
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

/// Marks every `--lose` name down in `model`; returns the names of the lost
/// domains and of every domain inside them.
fn lose(
    model: &mut Model,
    names: &[String],
    scenario: &mut Vec<String>,
) -> Result<Vec<String>, String> {
    let mut lost_domains: Vec<usize> = Vec::new();
    for name in names {
        if let Some(d) = model.domains.iter().position(|d| &d.name == name) {
            model.domains[d].availability = Some(0.0);
            lost_domains.push(d);
            scenario.push(format!("lose {name} ({})", model.domains[d].kind));
        } else if let Some(g) = model.groups.iter().position(|g| &g.name == name) {
            model.groups[g].availability = Some(0.0);
            scenario.push(format!("lose {name} (shared-fate group)"));
        } else if let Some(c) = model.components.iter().position(|c| &c.name == name) {
            model.components[c].availability = Some(0.0);
            scenario.push(format!("lose {name} (component)"));
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
    Ok(model
        .domains
        .iter()
        .enumerate()
        .filter(|(at, d)| {
            lost_domains.contains(at) || d.ancestors.iter().any(|a| lost_domains.contains(&a.0))
        })
        .map(|(_, d)| d.name.clone())
        .collect())
}

/// The headroom rows of the scenario, worst first, each with its row
/// before: with lost domains, the rows of those losses; otherwise, when
/// load or sizing changed, every row; otherwise none.
fn headroom_rows(
    before: &[HeadroomRow],
    after: &[HeadroomRow],
    lost_domains: &[String],
    resized: bool,
) -> Vec<(Option<HeadroomRow>, HeadroomRow)> {
    worst_first(after)
        .into_iter()
        .filter(|row| {
            if lost_domains.is_empty() {
                resized
            } else {
                row.lost
                    .split('+')
                    .any(|d| lost_domains.iter().any(|l| l == d))
            }
        })
        .map(|row| {
            let old = before
                .iter()
                .find(|b| b.component == row.component && b.lost == row.lost)
                .cloned();
            (old, row.clone())
        })
        .collect()
}

fn report_set_error(name: &str, text: &str, error: SetError, terminal: &mut Terminal) {
    match error {
        SetError::Usage(message) => terminal.error(&message),
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
            let _ = terminal.err.write_all(out.as_bytes());
            terminal.error("the model with these --set values is invalid; nothing was analysed");
        }
    }
}
