//! `nines budget TARGET [--window 30d] [--format table|json]`: the downtime
//! a target allows and the burn-rate alerts for it. TARGET and the window
//! are read by the model's own scalar rules, so `99.9` gets the same error
//! and hint as in a model.

use clap::{Args, ValueEnum};

use super::{CliError, Outcome, Terminal};
use crate::model::decode::{Cx, Decode};
use crate::model::units::Probability;
use crate::model::{Duration, Problem, load};
use crate::render::budget::{self, Budget};
use crate::render::{diagnostics, table};

/// Output formats of `budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BudgetFormat {
    /// Two tables for a terminal.
    Table,
    /// The figures as JSON (docs/budget.md).
    Json,
}

/// Arguments of `nines budget`.
#[derive(Debug, Clone, Args)]
pub struct BudgetArgs {
    /// The availability target, as in a model: `99.9%` or `0.999`.
    pub target: String,
    /// The budget window, as in a model: `30d`, `7d`, `28d`.
    #[arg(long, default_value = "30d")]
    pub window: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = BudgetFormat::Table)]
    pub format: BudgetFormat,
}

pub(super) fn run(args: &BudgetArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let target = argument::<Probability>("TARGET", &args.target, "TARGET", terminal);
    let window = argument::<Duration>("--window", &args.window, "window", terminal);
    let (target, window) = both(target, window)?;
    if target.0 >= 1.0 {
        return Err(
            "a target of 100% leaves no error budget: give one below 100%, such as `99.99%`"
                .to_owned()
                .into(),
        );
    }
    if window.0 == 0 {
        return Err("--window must be longer than 0s, such as `30d`"
            .to_owned()
            .into());
    }
    let budget = Budget::new(target.0, window);
    match args.format {
        BudgetFormat::Table => budget::render(
            &budget,
            table::Style {
                width: terminal.width,
                color: terminal.color_out,
            },
            terminal.out,
        )?,
        BudgetFormat::Json => {
            serde_json::to_writer_pretty(&mut *terminal.out, &budget)?;
            terminal.out.write_all(b"\n")?;
        }
    }
    Ok(Outcome::Pass)
}

/// Both arguments, or the problems of every one that cannot be read (all
/// of them reported, not only the first).
pub(super) fn both<A, B>(
    a: Result<A, CliError>,
    b: Result<B, CliError>,
) -> Result<(A, B), CliError> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(a), Err(b)) => Err(CliError::Diagnostics(a.text() + &b.text())),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// Reads a command-line value with the model's rules for `T`; on failure
/// prints the located problems (pointing into the argument, shown under
/// `name`) and returns `None`.
pub(super) fn argument<T: Decode>(
    name: &str,
    text: &str,
    key: &str,
    terminal: &Terminal,
) -> Result<T, CliError> {
    let mut cx = Cx::new(text);
    let value = match load::parse(text) {
        Ok(node) => T::decode(&node, key, &mut cx),
        Err(problem) => {
            cx.report(problem);
            None
        }
    };
    value.ok_or_else(|| {
        let problems: Vec<Problem> = cx.problems;
        CliError::Diagnostics(diagnostics::render_problems(
            name,
            text,
            &problems,
            terminal.width,
            terminal.color_err,
        ))
    })
}
