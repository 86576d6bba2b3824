//! `nines simulate MODEL [--trials N] [--seed S]`: Monte Carlo beside the
//! analytic figure, with a 95% interval, or a plain statement that failures
//! are too rare for the trial count to see.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{CliError, Outcome, Terminal, read_model};
use crate::analyze::results::AvailabilityRow;
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
    /// Trials to run (at most 10^8; fewer on a large model, with a note).
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
    /// The figure of `check` (its availability, the lower end when
    /// bounded), switchover time included; null when nothing on the
    /// entrypoint's paths has a figure (n/a in `check`) or with `--no-exact`.
    pub analytic: Option<f64>,
    /// When the analytic figure is bounded (`check` marks it `bounded`: the
    /// exact figure was beyond the work bound), the upper end of its bracket,
    /// `analytic` being the lower end; null when it is exact.
    pub analytic_upper: Option<f64>,
    /// The unavailability `check` adds for switchovers to standbys (0 when
    /// none): the simulation draws the static structure, so the interval is
    /// compared with `analytic + switchover`.
    pub switchover: f64,
    /// `check`'s figure written as `check` writes it (`99.965461%`, or
    /// `≤ 99.999999%, assumes instant failover` when it is an upper bound).
    #[serde(skip)]
    pub analytic_text: Option<String>,
    /// Whether `check` gives its figure as an upper bound (`≤`): unquantified
    /// components, or an instant failover assumed.
    pub upper_bound: bool,
    /// Why `check`'s figure assumes more than the model says (its caveats,
    /// word for word): empty when it assumes nothing.
    pub caveats: Vec<String>,
    /// Components, domains and groups on its paths without a figure: both
    /// the simulation and the analytic figure count them as never failing
    /// (0 with `--no-exact`, which does not look).
    pub unquantified: usize,
    /// Whether `--no-exact` skipped the analytic figure.
    #[serde(skip)]
    pub exact_skipped: bool,
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
            "note: running {trials} trials instead of {}: the model has {size} components, dependency links, placements, domains and groups to draw per trial, and a simulation is bounded at {} of them in all",
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
    // Each trial draws every domain, group and instance; a component's
    // capacity need follows from the movers drawn in the same trial, through
    // the capacity compilation (docs/availability.md).
    let sampled = montecarlo::sampled_model(&model);
    let (figures, simulation) = rayon::join(
        || (!args.no_exact).then(|| engine::availability(&model)),
        || {
            montecarlo::simulate(&sampled, trials, args.seed, &|done| {
                if let Some(bar) = &bar {
                    bar.inc(done);
                }
            })
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let rows = rows(&model, figures.as_deref(), &simulation);
    let text = match args.format {
        SimulateFormat::Json => serde_json::to_string_pretty(&rows)
            .map(|t| t + "\n")
            .unwrap_or_default(),
        SimulateFormat::Table => table(&rows, args.seed),
    };
    terminal.out.write_all(text.as_bytes())?;
    Ok(Outcome::Pass)
}

/// One row per entrypoint: the simulation beside `check`'s figure
/// (`figures`, `None` with `--no-exact`), written as `check` writes it.
fn rows(
    model: &crate::model::Model,
    figures: Option<&[(crate::model::ComponentId, engine::Figure)]>,
    simulation: &montecarlo::Simulation,
) -> BTreeMap<String, SimulatedRow> {
    // `check`'s rows, for its figure as it writes it (the `≤` and the why).
    let checked = figures
        .map(|f| crate::analyze::availability_rows(model, f))
        .unwrap_or_default();
    let mut rows: BTreeMap<String, SimulatedRow> = BTreeMap::new();
    for (index, (entrypoint, failures)) in simulation.down.iter().enumerate() {
        let trials = simulation.trials;
        let measurable = *failures >= montecarlo::MIN_FAILURES;
        let (lower, upper) = montecarlo::interval(*failures, trials);
        let figure = figures
            .and_then(|f| f.get(index))
            .map(|(_, figure)| figure)
            .filter(|figure| figure.quantified);
        // `check`'s figure, a bracket when bounded.
        let analytic = figure.map(|figure| match figure.method {
            engine::Method::Exact => (figure.availability, figure.availability),
            engine::Method::Bounded => (figure.lower, figure.upper),
        });
        let name = &model.component(*entrypoint).name;
        let row = checked
            .get(name.as_str())
            .filter(|r| r.availability.is_some());
        rows.insert(
            name.clone(),
            SimulatedRow {
                estimate: 1.0 - *failures as f64 / trials as f64,
                lower: measurable.then_some(lower),
                upper: measurable.then_some(upper),
                trials,
                failures: *failures,
                analytic: analytic.map(|(lower, _)| lower),
                analytic_upper: analytic
                    .and_then(|(lower, upper)| (upper > lower).then_some(upper)),
                switchover: figure.map_or(0.0, |f| f.switchover),
                analytic_text: figure.map(|f| match row {
                    Some(row) => row.figure_text(),
                    None => crate::human::availability_of(f.availability, f.unavailability),
                }),
                upper_bound: figure.is_some() && row.is_some_and(AvailabilityRow::upper_bound),
                caveats: row.map(|r| r.caveats.clone()).unwrap_or_default(),
                unquantified: figures
                    .and_then(|f| f.get(index))
                    .map_or(0, |(_, figure)| figure.unquantified.len()),
                exact_skipped: figures.is_none(),
            },
        );
    }
    rows
}

fn table(rows: &BTreeMap<String, SimulatedRow>, seed: u64) -> String {
    let mut out = String::new();
    for (name, row) in rows {
        if row.exact_skipped {
            let _ = writeln!(out, "{name}: analytic figure not computed (--no-exact)");
        } else {
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
            let figure = match row.analytic_upper {
                Some(upper) => format!(
                    "bounded in [{}, {}] (`check` says why)",
                    percent(analytic),
                    percent(upper)
                ),
                None => row
                    .analytic_text
                    .clone()
                    .unwrap_or_else(|| percent(analytic)),
            };
            let _ = writeln!(out, "{name}: analytic {figure}, as `check`{unquantified}");
            for caveat in &row.caveats {
                let _ = writeln!(out, "  ≤: {caveat}");
            }
            if row.switchover > 0.0 {
                let (low, high) = row.compared();
                let drawn = if high > low {
                    format!("[{}, {}]", percent(low), percent(high))
                } else {
                    percent(low)
                };
                let _ = writeln!(
                    out,
                    "  of which {} is switchover time to standbys, which the simulation does not draw: it samples the static structure, {drawn} without it, and is compared with that",
                    crate::human::probability(row.switchover)
                );
            }
        }
        if let (Some(lower), Some(upper)) = (row.lower, row.upper) {
            let static_figure = row.analytic.map(|_| row.compared());
            let verdict = match (static_figure, row.analytic_upper) {
                (Some((a, _)), None) if lower <= a && a <= upper => {
                    ": contains the analytic figure"
                }
                (Some(_), None) => ": does NOT contain the analytic figure",
                (Some((a, b)), Some(_)) if lower <= b && a <= upper => {
                    ": overlaps the analytic bracket"
                }
                (Some(_), Some(_)) => ": does NOT overlap the analytic bracket",
                (None, _) => "",
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
        let _ = writeln!(out, "  {}", too_rare(row));
    }
    let _ = writeln!(
        out,
        "(seed {seed}; the same seed gives the same result on any number of threads)"
    );
    out
}

impl SimulatedRow {
    /// The figure the simulation is compared with: `check`'s without the
    /// switchover term (the static structure), as a bracket.
    fn compared(&self) -> (f64, f64) {
        let lower = self.analytic.unwrap_or(1.0);
        let upper = self.analytic_upper.unwrap_or(lower);
        (
            (lower + self.switchover).min(1.0),
            (upper + self.switchover).min(1.0),
        )
    }
}

/// What to say of an entrypoint with fewer than [`montecarlo::MIN_FAILURES`]
/// failures: how many the analytic figure expects, and what would see them.
fn too_rare(row: &SimulatedRow) -> String {
    let Some(analytic) = row.analytic.map(|_| row.compared().0) else {
        return format!(
            "failures are too rare to measure: {} down in {} trials (fewer than {}); run more trials, or without --no-exact for the analytic figure",
            row.failures,
            row.trials,
            montecarlo::MIN_FAILURES
        );
    };
    let trials = row.trials as f64;
    if row.analytic_upper.is_some() {
        let upper = row.compared().1;
        return format!(
            "failures are too rare to measure: {} down in {} trials, between {:.1} and {:.1} expected by the analytic bracket; run more trials to see where in it the simulation falls",
            row.failures,
            row.trials,
            (1.0 - upper) * trials,
            (1.0 - analytic) * trials
        );
    }
    let expected = (1.0 - analytic) * trials;
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
    format!(
        "failures are too rare to measure: {} down in {} trials, {expected:.1} expected; {advice}",
        row.failures, row.trials
    )
}

fn percent(a: f64) -> String {
    format!("{:.5}%", a * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(failures: u64, analytic: f64, analytic_upper: Option<f64>) -> SimulatedRow {
        let trials = 1_000_000;
        let measurable = failures >= montecarlo::MIN_FAILURES;
        let (lower, upper) = montecarlo::interval(failures, trials);
        SimulatedRow {
            estimate: 1.0 - failures as f64 / trials as f64,
            lower: measurable.then_some(lower),
            upper: measurable.then_some(upper),
            trials,
            failures,
            analytic: Some(analytic),
            analytic_upper,
            switchover: 0.0,
            analytic_text: None,
            upper_bound: false,
            caveats: Vec::new(),
            unquantified: 0,
            exact_skipped: false,
        }
    }

    #[test]
    fn a_bounded_figure_is_shown_and_compared_as_a_bracket() {
        // 0 failures in 10^6 against the bracket [99.94321%, 100%] (at_least
        // 20 of 40 over 40 zones): its lower end alone would expect
        // (1 − 0.9994321) × 10^6 = 567.9 failures, the bracket 0 to 567.9.
        let rows = BTreeMap::from([
            ("e".to_owned(), row(0, 0.999_432_1, Some(1.0))),
            // 1,000 down: 0.1% ± 1.96 × √(0.001 / 10^6), about [99.8936%, 99.9061%] for the
            // availability, which overlaps [99.9%, 99.95%] and not [99.95%, 1].
            ("f".to_owned(), row(1_000, 0.999, Some(0.9995))),
            ("g".to_owned(), row(1_000, 0.9995, Some(1.0))),
            ("h".to_owned(), row(1_000, 0.999, None)),
        ]);
        let text = table(&rows, 1);
        assert!(
            text.contains("e: analytic bounded in [99.94321%, 100.00000%]"),
            "{text}"
        );
        assert!(
            text.contains("0 down in 1000000 trials, between 0.0 and 567.9 expected"),
            "{text}"
        );
        assert!(!text.contains("run about --trials"), "{text}");
        let line = |name: &str| {
            let at = text.find(&format!("{name}: ")).unwrap();
            text[at..].lines().nth(1).unwrap().to_owned()
        };
        assert!(
            line("f").ends_with(": overlaps the analytic bracket"),
            "{text}"
        );
        assert!(
            line("g").ends_with(": does NOT overlap the analytic bracket"),
            "{text}"
        );
        assert!(
            line("h").ends_with(": contains the analytic figure"),
            "{text}"
        );
    }
}
