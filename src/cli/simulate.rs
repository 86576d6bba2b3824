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
    /// Trials to run (at most 1,000,000,000; fewer on a large model, with a note).
    #[arg(long, default_value_t = 1_000_000)]
    pub trials: u64,
    /// Seed of the random streams: the same seed gives the same result.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Table)]
    pub format: SimulateFormat,
    /// Skip the analytic figure of `check` (bounded in work, but seconds on
    /// a hostile model): only the simulation runs, `analytic` is null.
    #[arg(long)]
    pub no_exact: bool,
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
    /// The exact (or bounded) figure of `check` (null with `--no-exact`).
    pub analytic: Option<f64>,
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
    let bar = terminal.progress.then(|| {
        let bar = indicatif::ProgressBar::new(trials);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} trials ({eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    // The analytic figure and the simulation share the cores: the wall time
    // is the longer of the two, not their sum.
    let (figures, simulation) = rayon::join(
        || (!args.no_exact).then(|| engine::availability(&model)),
        || {
            montecarlo::simulate(&model, trials, args.seed, &|done| {
                if let Some(bar) = &bar {
                    bar.inc(done);
                }
            })
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut rows: BTreeMap<String, SimulatedRow> = BTreeMap::new();
    for (index, (entrypoint, failures)) in simulation.down.iter().enumerate() {
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
                analytic: figures
                    .as_ref()
                    .and_then(|f| f.get(index))
                    .map(|(_, figure)| (figure.availability + figure.switchover).min(1.0)),
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
        match row.analytic {
            Some(analytic) => {
                let _ = writeln!(out, "{name}: analytic {}", percent(analytic));
            }
            None => {
                let _ = writeln!(out, "{name}: analytic figure not computed (--no-exact)");
            }
        }
        if let (Some(lower), Some(upper)) = (row.lower, row.upper) {
            let verdict = match row.analytic {
                Some(a) if lower <= a && a <= upper => ": contains the analytic figure",
                Some(_) => ": does NOT contain the analytic figure",
                None => "",
            };
            let _ = writeln!(
                out,
                "  simulated {} over {} trials ({} down), 95% interval [{}, {}]{verdict}",
                percent(row.estimate),
                row.trials,
                row.failures,
                percent(lower),
                percent(upper)
            );
            continue;
        }
        let Some(analytic) = row.analytic else {
            let _ = writeln!(
                out,
                "  failures are too rare to measure: {} down in {} trials (fewer than {}); run more trials, or without --no-exact for the analytic figure",
                row.failures,
                row.trials,
                montecarlo::MIN_FAILURES
            );
            continue;
        };
        let expected = (1.0 - analytic) * row.trials as f64;
        // Enough trials to expect ten times the minimum number of failures.
        let needed = (montecarlo::MIN_FAILURES as f64 * 10.0 / (1.0 - analytic)).ceil();
        let advice = if analytic < 1.0 && needed <= montecarlo::MAX_TRIALS as f64 {
            format!("run about --trials {needed:.0} to see enough of them")
        } else if analytic < 1.0 {
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
