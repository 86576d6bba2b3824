//! `nines check`: read, validate, analyse, render, and decide the exit code.

use clap::{Args, ValueEnum};

use super::input;
use super::{Outcome, Terminal};
use crate::analyze::{self, Severity};
use crate::engine::scenario::Scenario;
use crate::import::service_graph::Graph;
use crate::model::error::closest;
use crate::model::{self, Date, Rule};
use crate::report::baseline::BaselineFile;
use crate::report::{Report, diagnostics, github, json, markdown, sarif, table};

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Availability and findings for a terminal.
    Table,
    /// The JSON report (docs/json.md).
    Json,
    /// A pull-request comment: verdict, new findings, the rest folded.
    Markdown,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions annotations (`::error file=…::`).
    Github,
}

/// The severity threshold for a failing exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Errors fail the run (the default).
    Error,
    /// Warnings and errors fail the run.
    Warning,
    /// Every finding fails the run.
    Note,
    /// Never fail on findings.
    Never,
}

/// Arguments of `nines check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Known findings (written by `nines baseline`): they are marked
    /// `baseline` and only new findings fail the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<String>,
    /// Lowest severity of a new finding that fails the run (exit code 1).
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Run only these rules (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip these rules (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
    /// The service graph measured by traces (files `nines import traces`
    /// reads): where it disagrees with the model is reported as `drift/…`.
    #[arg(long, value_name = "FILE")]
    pub observed: Vec<String>,
    /// With --observed: the time the counts cover.
    #[arg(long, default_value = "1h")]
    pub window: String,
    /// With --observed: a measured rate more than this many times the
    /// model's `load` is drift.
    #[arg(long, default_value_t = 2.0, value_name = "FACTOR")]
    pub load_factor: f64,
}

/// `check` arguments resolved and checked before any work starts.
struct CheckConfig {
    format: Format,
    /// The `--baseline` file as given, and its contents.
    baseline: Option<(String, BaselineFile)>,
    threshold: Option<Severity>,
    only: Vec<String>,
    skip: Vec<String>,
    today: Date,
    /// `--observed`, read, and `--load-factor`.
    observed: Option<(Graph, f64)>,
}

impl CheckConfig {
    fn resolve(args: &CheckArgs) -> Result<Self, String> {
        for rule in args.only.iter().chain(&args.skip) {
            if Rule::from_name(rule).is_none() {
                let hint = closest(rule, Rule::names())
                    .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
                return Err(format!(
                    "no rule is called `{rule}`{hint}; `nines explain` lists the rules"
                ));
            }
        }
        let today = super::today(args.today.as_deref())?;
        let baseline = match &args.baseline {
            Some(path) => Some((path.clone(), read_baseline(path)?)),
            None => None,
        };
        Ok(Self {
            format: args.format,
            baseline,
            threshold: match args.fail_on {
                FailOn::Error => Some(Severity::Error),
                FailOn::Warning => Some(Severity::Warning),
                FailOn::Note => Some(Severity::Note),
                FailOn::Never => None,
            },
            only: args.only.clone(),
            skip: args.skip.clone(),
            today,
            observed: None,
        })
    }

    fn selected(&self, rule: &str) -> bool {
        (self.only.is_empty() || self.only.iter().any(|r| r == rule))
            && !self.skip.iter().any(|r| r == rule)
    }
}

/// The report of a valid model with every rule, as `nines check` builds it
/// (for benchmarks and embedding).
#[must_use]
pub fn report_of(model: &model::Model, text: &str, today: Date) -> Report {
    analyze::audit(
        model,
        text,
        Scenario::default(),
        analyze::Options::new(today),
    )
}

/// Reads and parses a `--baseline` file (at most 64 MiB, like the model).
fn read_baseline(path: &str) -> Result<BaselineFile, String> {
    let text = input::read_text(
        path,
        "the baseline",
        "a baseline is the JSON file `nines baseline` writes",
    )
    .map_err(|message| {
        if message.ends_with("no such file") {
            format!("{message}; write one with `nines baseline MODEL -o FILE`")
        } else {
            message
        }
    })?
    .text;
    BaselineFile::parse(&text).map_err(|why| {
        format!("cannot use the baseline {path}: {why}; write it again with `nines baseline MODEL -o {path}`")
    })
}

/// The report of a valid model with the rules `selected`: a shorthand for
/// [`analyze::audit`] in the empty scenario.
#[must_use]
pub fn report(
    model: &model::Model,
    text: &str,
    today: Date,
    selected: &(dyn Fn(&str) -> bool + Sync),
) -> Report {
    let options = analyze::Options {
        selected,
        ..analyze::Options::new(today)
    };
    analyze::audit(model, text, Scenario::default(), options)
}

/// Checks `text` as if it were read from the file `name`: the whole of
/// `nines check` but the reading, for tests and embedding.
pub fn check_source(name: &str, text: &str, args: &CheckArgs, terminal: &mut Terminal) -> Outcome {
    match CheckConfig::resolve(args) {
        Ok(mut config) => {
            if !observe(&mut config, args, terminal) {
                return Outcome::Invalid;
            }
            let source = input::ModelText {
                name: name.to_owned(),
                text: text.to_owned(),
            };
            check_text(&source, &config, terminal)
        }
        Err(message) => {
            terminal.error(&message);
            Outcome::Invalid
        }
    }
}

/// Reads `--observed` into the configuration; false when it cannot be
/// read (the problems are printed).
fn observe(config: &mut CheckConfig, args: &CheckArgs, terminal: &mut Terminal) -> bool {
    if args.observed.is_empty() {
        return true;
    }
    let factor = match super::traces::factor(args.load_factor) {
        Ok(f) => f,
        Err(message) => {
            terminal.error(&message);
            return false;
        }
    };
    match super::traces::observed(&args.observed, &args.window, terminal) {
        Some(graph) => {
            config.observed = Some((graph, factor));
            true
        }
        None => false,
    }
}

pub(super) fn run(args: &CheckArgs, terminal: &mut Terminal) -> Outcome {
    let mut config = match CheckConfig::resolve(args) {
        Ok(config) => config,
        Err(message) => {
            terminal.error(&message);
            return Outcome::Invalid;
        }
    };
    if !observe(&mut config, args, terminal) {
        return Outcome::Invalid;
    }
    let source = match input::read(&args.model) {
        Ok(source) => source,
        Err(message) => {
            terminal.error(&message);
            return Outcome::Invalid;
        }
    };
    check_text(&source, &config, terminal)
}

/// Checks a model already read, with resolved arguments.
fn check_text(source: &input::ModelText, config: &CheckConfig, terminal: &mut Terminal) -> Outcome {
    let model = match model::parse(&source.text) {
        Ok(model) => model,
        Err(problems) => {
            let text = diagnostics::render(
                &source.name,
                &source.text,
                &problems,
                terminal.width,
                terminal.color_err,
            );
            let _ = terminal.err.write_all(text.as_bytes());
            return Outcome::Invalid;
        }
    };
    let selected = |rule: &str| config.selected(rule);
    let drift = config
        .observed
        .as_ref()
        .map(|(graph, factor)| analyze::drift::findings(&model, graph, *factor))
        .unwrap_or_default();
    let options = analyze::Options {
        selected: &selected,
        extra: drift,
        ..analyze::Options::new(config.today)
    };
    let mut report = analyze::audit(&model, &source.text, Scenario::default(), options);
    if let Some((path, baseline)) = &config.baseline {
        baseline.apply(path, &mut report, selected);
    }
    let written = match config.format {
        Format::Table => {
            crate::report::terminal_report(&mut report);
            let style = table::Style {
                width: terminal.width,
                color: terminal.color_out,
            };
            table::render(&report, &source.name, style, terminal.out)
        }
        Format::Json => json::render(&report, terminal.out),
        Format::Markdown => markdown::render(&report, &source.name, config.threshold, terminal.out),
        Format::Sarif => sarif::render(&report, &source.name, terminal.out),
        Format::Github => github::render(&report, &source.name, terminal.out),
    };
    if written.is_err() {
        return Outcome::Invalid;
    }
    if report.failing(config.threshold).next().is_some() {
        Outcome::Fail
    } else {
        Outcome::Pass
    }
}
