//! `nines simulate MODEL [--trials N] [--seed S]`: Monte Carlo beside the
//! analytic figure, with a 95% interval, or a plain statement that failures
//! are too rare for the trial count to see.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{CliError, Outcome, Terminal, read_model};
use crate::engine::montecarlo::MAX_TRIALS;
use crate::engine::{self, montecarlo};

/// Output formats of `simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimulateFormat {
    /// A table for a terminal.
    Table,
    /// `{entrypoint: {estimate, lower, upper, trials, analytic, failures}}`.
    Json,
}

/// Arguments of `nines simulate`.
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// Trials to run (rounded up to a multiple of 10,000; at most 10^8).
    #[arg(long, default_value_t = 1_000_000)]
    pub trials: u64,
    /// Seed of the random streams: the same seed gives the same result.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Table)]
    pub format: SimulateFormat,
}

/// One entrypoint's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimulatedRow {
    /// Share of trials in which the entrypoint was up.
    pub estimate: f64,
    /// 95% Clopper–Pearson lower bound (null when failures are too rare to measure).
    pub lower: Option<f64>,
    /// 95% Clopper–Pearson upper bound (null when failures are too rare to measure).
    pub upper: Option<f64>,
    /// Trials run.
    pub trials: u64,
    /// Trials in which it was down.
    pub failures: u64,
    /// The exact (or bounded) figure of `check` before switchover time (the
    /// simulation samples the static structure); null when nothing on the
    /// entrypoint's paths has a figure (n/a in `check`).
    pub analytic: Option<f64>,
    /// Components, domains and groups on its paths without a figure: both
    /// the simulation and the analytic figure count them as never failing.
    pub unquantified: usize,
}

pub(super) fn run(args: &SimulateArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let (_, model) = read_model(&args.model, terminal)?;
    if args.trials == 0 || args.trials > MAX_TRIALS {
        return Err(format!(
            "--trials must be between 1 and {MAX_TRIALS} (10^8); found {}",
            args.trials
        )
        .into());
    }
    // A run costs trials × model size: past the work bound, fewer trials
    // are run and the output says so.
    let size = montecarlo::size(&model);
    let trials = montecarlo::affordable_trials(&model, args.trials);
    if trials < args.trials {
        let _ = writeln!(
            terminal.err,
            "note: running {trials} trials instead of {}: the model has {size} components and dependency links, and a simulation is bounded at {} component-trials",
            args.trials,
            montecarlo::MAX_WORK
        );
    }
    let figures = engine::availability(&model);
    let bar = terminal.progress.then(|| {
        let bar =
            indicatif::ProgressBar::new(trials.div_ceil(montecarlo::CHUNK) * montecarlo::CHUNK);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} trials ({eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let simulation = montecarlo::simulate(&model, trials, args.seed, &|done| {
        if let Some(bar) = &bar {
            bar.inc(done);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut rows: BTreeMap<String, SimulatedRow> = BTreeMap::new();
    for ((entrypoint, failures), (_, figure)) in simulation.down.iter().zip(&figures) {
        let trials = simulation.trials;
        let measurable = *failures >= montecarlo::MIN_FAILURES;
        let (lower, upper) = montecarlo::interval(*failures, trials);
        rows.insert(
            model.component(*entrypoint).name.clone(),
            SimulatedRow {
                estimate: 1.0 - *failures as f64 / trials as f64,
                lower: measurable.then_some(lower),
                upper: measurable.then_some(upper),
                trials,
                failures: *failures,
                // The simulation samples the static structure: compare it
                // with the figure before the switchover term.
                analytic: figure
                    .quantified
                    .then(|| (figure.availability + figure.switchover).min(1.0)),
                unquantified: figure.unquantified.len(),
            },
        );
    }
    let text = match args.format {
        SimulateFormat::Json => serde_json::to_string_pretty(&rows)
            .map(|t| t + "\n")
            .unwrap_or_default(),
        SimulateFormat::Table => table(&rows, args.seed),
    };
    terminal.out.write_all(text.as_bytes())?;
    Ok(Outcome::Pass)
}

fn table(rows: &BTreeMap<String, SimulatedRow>, seed: u64) -> String {
    let mut out = String::new();
    for (name, row) in rows {
        let Some(analytic) = row.analytic else {
            let _ = writeln!(
                out,
                "{name}: analytic n/a ({} unquantified): nothing on its paths has a figure, so there is nothing to simulate",
                row.unquantified
            );
            continue;
        };
        let unquantified = if row.unquantified > 0 {
            format!(
                " ({} unquantified, counted as never failing here and in the simulation)",
                row.unquantified
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "{name}: analytic {}{unquantified}", percent(analytic));
        if let (Some(lower), Some(upper)) = (row.lower, row.upper) {
            let verdict = if lower <= analytic && analytic <= upper {
                "contains"
            } else {
                "does NOT contain"
            };
            let _ = writeln!(
                out,
                "  simulated {} over {} trials ({} down), 95% interval [{}, {}]: {verdict} the analytic figure",
                percent(row.estimate),
                row.trials,
                row.failures,
                percent(lower),
                percent(upper)
            );
            continue;
        }
        let expected = (1.0 - analytic) * row.trials as f64;
        let advice = if analytic < 1.0 {
            // Enough trials to expect ten times the minimum number of failures.
            let needed = (montecarlo::MIN_FAILURES as f64 * 10.0 / (1.0 - analytic)).ceil();
            if needed > MAX_TRIALS as f64 {
                format!(
                    "seeing enough of them takes about {needed:.0} trials, more than the {MAX_TRIALS} --trials allows: at this availability the analytic figure is the check"
                )
            } else {
                format!("run about --trials {needed:.0} to see enough of them")
            }
        } else {
            "the analytic figure says it never fails".to_owned()
        };
        let _ = writeln!(
            out,
            "  failures are too rare to measure: {} down in {} trials, {expected:.1} expected; {advice}",
            row.failures, row.trials
        );
    }
    let _ = writeln!(
        out,
        "(seed {seed}; the same seed gives the same result on any number of threads)"
    );
    out
}

fn percent(a: f64) -> String {
    format!("{:.5}%", a * 100.0)
}
