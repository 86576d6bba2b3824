//! The command line: clap types, resolution of arguments into a typed run
//! configuration before any work starts, and the mapping of outcomes to exit
//! codes. This is the only part of the crate that prints.

mod baseline;
mod budget;
mod check;
mod error;
mod experiments;
mod explain;
mod export;
mod graph;
mod import;
mod input;
mod recover;
mod review;
mod schema;
mod simulate;
mod traces;
mod verify;
mod what_if;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};

pub use baseline::BaselineArgs;
pub use budget::{BudgetArgs, BudgetFormat};
pub use check::{CheckArgs, FailOn, Format, audit_of, audit_selected, check_source};
pub use error::CliError;
pub use explain::{rule_list, rule_text, rules_markdown};
pub use graph::{GraphFormat, graph};
pub use import::{ImportArgs, ImportFrom, K8sArgs};
pub use recover::{RecoverArgs, RecoverFormat};
pub use review::{DIAGRAM_LIMIT, ReviewFormat, render as review};
pub use schema::schema_json;
pub use traces::TracesArgs;
pub use what_if::{WhatIfArgs, WhatIfFormat, what_if_source};

/// Reliability planning and audit for a distributed system described in one YAML file.
#[derive(Debug, Parser)]
#[command(name = "nines", version, about, long_about = None, max_term_width = 80)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Audit a model: every analysis, findings, and an exit code for CI.
    Check(CheckArgs),
    /// Write the current findings as a baseline file, for `check --baseline`.
    ///
    /// With the baseline, only findings that are not in it fail the run.
    /// Accepted findings are left out: they fail again when their
    /// acceptance expires.
    Baseline(BaselineArgs),
    /// What a rule checks, why it matters and how to fix it; without RULE, list the rules.
    Explain {
        /// A rule name such as `placement`, or a finding id such as `placement/api`.
        rule: Option<String>,
    },
    /// Print the JSON Schema (draft-07) of the model format, for editors.
    Schema,
    /// Write the model in another format (an Open-PSA MEF fault tree for SCRAM).
    Export(export::ExportArgs),
    /// Monte Carlo availability per entrypoint with a 95% interval, beside the analytic figure.
    Simulate(simulate::SimulateArgs),
    /// Write a first model from what already describes the system (Kubernetes manifests, traces).
    Import(ImportArgs),
    /// The review document: summary, availability, findings, headroom,
    /// cascades, retries, recovery order, DR and a dependency diagram.
    Report(review::ReviewArgs),
    /// Simulate the way back after an outage: start waves, the retry herd,
    /// warming capacity and cache refill; the admission ramp that keeps
    /// every component within capacity, and whether it converges without one.
    Recover(recover::RecoverArgs),
    /// The chaos experiments worth running, each with the model's
    /// prediction inside: as a game-day table, JSON, or files for Chaos
    /// Toolkit, Chaos Mesh and AWS FIS.
    Experiments(experiments::ExperimentsArgs),
    /// A chaos experiment's outcome against the model's prediction: as
    /// predicted, better (the key most likely wrong) or worse (exit 1).
    Verify(verify::VerifyArgs),
    /// Re-run the analyses on a changed copy (a lost zone, more load, another
    /// size) and print before → after; exit 1 when it introduces an error.
    WhatIf(WhatIfArgs),
    /// The dependency graph: domains as clusters, degradable edges dashed, SPOFs marked.
    Graph(graph::GraphArgs),
    /// The downtime a target allows per year, month, week and window, and its burn-rate alerts.
    Budget(BudgetArgs),
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing at or above the threshold.
    Pass,
    /// At least one new finding at or above the threshold.
    Fail,
    /// The input or the command line could not be used.
    Invalid,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(match outcome {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::Invalid => 2,
        })
    }
}

/// Where output goes and how it may look.
pub struct Terminal<'a> {
    /// Results.
    pub out: &'a mut dyn Write,
    /// Diagnostics and progress.
    pub err: &'a mut dyn Write,
    /// Whether colour is allowed on stdout.
    pub color_out: bool,
    /// Whether colour is allowed on stderr.
    pub color_err: bool,
    /// Width for tables and diagnostics.
    pub width: usize,
    /// Whether progress bars may be drawn (stderr is a terminal).
    pub progress: bool,
}

impl<'a> Terminal<'a> {
    /// Output into two buffers, as to files: no colour, 80 columns, no
    /// progress bars (tests and benches run commands in process so).
    pub fn plain(out: &'a mut dyn Write, err: &'a mut dyn Write) -> Self {
        Terminal {
            out,
            err,
            color_out: false,
            color_err: false,
            width: 80,
            progress: false,
        }
    }

    /// The outcome of a command: an error is printed to stderr (write
    /// failures are ignored: there is nowhere left to report them) and ends
    /// as [`Outcome::Invalid`].
    pub fn outcome(&mut self, result: Result<Outcome, CliError>) -> Outcome {
        result.unwrap_or_else(|error| {
            let _ = self.err.write_all(error.text().as_bytes());
            Outcome::Invalid
        })
    }
}

/// The width of the terminal on standard output: `COLUMNS` when set (a user
/// or a script asking for a width), else the terminal's own size, else 80;
/// never below 40.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout())
                .map(|(terminal_size::Width(w), _)| usize::from(w))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(80)
}

/// Set by [`main`]: the process ends when the command returns, so what a
/// command built need not be freed piece by piece (see [`discard`]).
static PROCESS_ENDS_AFTER_RUN: AtomicBool = AtomicBool::new(false);

/// Drops `value`, or, in the binary (whose process ends right after the
/// command), leaves it to the operating system: freeing the model and audit
/// of 100,000 components one allocation at a time costs about 0.3 s of CPU
/// for nothing. Library callers (tests, embedding) free as usual.
fn discard<T>(value: T) {
    if PROCESS_ENDS_AFTER_RUN.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// Runs the binary.
#[must_use]
pub fn main() -> ExitCode {
    PROCESS_ENDS_AFTER_RUN.store(true, Ordering::Relaxed);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let width = if stdout.is_terminal() {
        terminal_width()
    } else {
        80
    };
    let (color_out, color_err) = (
        !no_color && stdout.is_terminal(),
        !no_color && stderr.is_terminal(),
    );
    // Buffered: reports are written in many small pieces (one per JSON token).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    // Not locked for the whole run: the progress bar of `simulate` is drawn
    // from the worker threads, which would wait forever for a lock held
    // here while this thread waits for them.
    let mut err = std::io::stderr();
    let mut terminal = Terminal {
        out: &mut out,
        err: &mut err,
        color_out,
        color_err,
        width,
        progress: stderr.is_terminal(),
    };
    run(cli, &mut terminal).into()
}

/// Reads and validates a model for a subcommand.
fn read_model(
    path: &str,
    terminal: &Terminal,
) -> Result<(input::ModelText, crate::model::Model), CliError> {
    let source = input::read(path)?;
    let model = parse_model(&source.name, &source.text, terminal)?;
    Ok((source, model))
}

/// Validates a model text read from `name`; the error carries its located
/// problems.
fn parse_model(
    name: &str,
    text: &str,
    terminal: &Terminal,
) -> Result<crate::model::Model, CliError> {
    crate::model::parse(text).map_err(|problems| {
        CliError::Diagnostics(crate::render::diagnostics::render(
            name,
            text,
            &problems,
            terminal.width,
            terminal.color_err,
        ))
    })
}

/// `--today` resolved: the given date, or today in UTC.
fn today(arg: Option<&str>) -> Result<crate::model::Date, String> {
    match arg {
        Some(text) => crate::model::Date::parse(text)
            .ok_or_else(|| format!("--today `{text}` is not a date: write YYYY-MM-DD")),
        None => Ok(crate::analyze::today_utc()),
    }
}

/// Runs a parsed command line against the given terminal.
pub fn run(cli: Cli, terminal: &mut Terminal) -> Outcome {
    let result = match cli.command {
        Command::Check(args) => check::run(&args, terminal),
        Command::Baseline(args) => baseline::run(&args, terminal),
        Command::Explain { rule } => explain::run(rule.as_deref(), terminal),
        Command::Schema => schema::run(terminal),
        Command::Export(args) => export::run(&args, terminal),
        Command::Simulate(args) => simulate::run(&args, terminal),
        Command::Import(args) => import::run(&args, terminal),
        Command::Report(args) => review::run(&args, terminal),
        Command::WhatIf(args) => what_if::run(&args, terminal),
        Command::Experiments(args) => experiments::run(&args, terminal),
        Command::Verify(args) => verify::run(&args, terminal),
        Command::Recover(args) => recover::run(&args, terminal),
        Command::Graph(args) => graph::run(&args, terminal),
        Command::Budget(args) => budget::run(&args, terminal),
    };
    let outcome = terminal.outcome(result);
    if terminal.out.flush().is_err() {
        return Outcome::Invalid;
    }
    outcome
}
