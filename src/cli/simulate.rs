//! `nines simulate MODEL [--trials N] [--seed S]`: Monte Carlo beside the
//! analytic figure, with a 95% interval, or a plain statement that failures
//! are too rare for the trial count to see.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{Outcome, Terminal, read_model};
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
    /// Trials to run (rounded up to a multiple of 10,000).
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
    /// The exact (or bounded) figure of `check`.
    pub analytic: f64,
}

pub(super) fn run(args: &SimulateArgs, terminal: &mut Terminal) -> Outcome {
    let Some((_, model)) = read_model(&args.model, terminal) else {
        return Outcome::Invalid;
    };
    if args.trials == 0 {
        terminal.error("--trials must be at least 1");
        return Outcome::Invalid;
    }
    if args.trials > montecarlo::MAX_TRIALS {
        terminal.error(&format!(
            "--trials {} is above the limit of {} (a 95% interval that narrow needs exact figures, not sampling: `nines check` gives them)",
            args.trials,
            montecarlo::MAX_TRIALS
        ));
        return Outcome::Invalid;
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
                analytic: (figure.availability + figure.switchover).min(1.0),
            },
        );
    }
    let text = match args.format {
        SimulateFormat::Json => serde_json::to_string_pretty(&rows)
            .map(|t| t + "\n")
            .unwrap_or_default(),
        SimulateFormat::Table => table(&rows, args.seed),
    };
    match terminal.out.write_all(text.as_bytes()) {
        Ok(()) => Outcome::Pass,
        Err(_) => Outcome::Invalid,
    }
}

fn table(rows: &BTreeMap<String, SimulatedRow>, seed: u64) -> String {
    let mut out = String::new();
    for (name, row) in rows {
        let _ = writeln!(out, "{name}: analytic {}", percent(row.analytic));
        if let (Some(lower), Some(upper)) = (row.lower, row.upper) {
            let verdict = if lower <= row.analytic && row.analytic <= upper {
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
        let expected = (1.0 - row.analytic) * row.trials as f64;
        // Enough trials to expect ten times the minimum number of failures.
        let needed = (montecarlo::MIN_FAILURES as f64 * 10.0 / (1.0 - row.analytic)).ceil();
        let advice = if row.analytic < 1.0 && needed <= montecarlo::MAX_TRIALS as f64 {
            format!("run about --trials {needed:.0} to see enough of them")
        } else if row.analytic < 1.0 {
            format!(
                "seeing enough of them would take more than the limit of {} trials: the analytic figure is the one to use",
                montecarlo::MAX_TRIALS
            )
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
