//! `nines check`: read, validate, analyse, render, and decide the exit code.

use clap::{Args, ValueEnum};

use super::input;
use super::{CliError, Outcome, Terminal};
use crate::analyze::{self, Severity};
use crate::engine::scenario::Scenario;
use crate::import::service_graph::Graph;
use crate::model::error::closest;
use crate::model::{self, Date, Rule};
use crate::render::baseline::BaselineFile;
use crate::render::{Audit, Render, Target, github, json, markdown, sarif, table};

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
    fn resolve(args: &CheckArgs, terminal: &mut Terminal) -> Result<Self, CliError> {
        for rule in args.only.iter().chain(&args.skip) {
            if Rule::from_name(rule).is_none() {
                let hint = closest(rule, Rule::names())
                    .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
                return Err(format!(
                    "no rule is called `{rule}`{hint}; `nines explain` lists the rules"
                )
                .into());
            }
        }
        let today = super::today(args.today.as_deref())?;
        let baseline = match &args.baseline {
            Some(path) => Some((path.clone(), read_baseline(path)?)),
            None => None,
        };
        let observed = if args.observed.is_empty() {
            None
        } else {
            let factor = super::traces::factor(args.load_factor)?;
            Some((
                super::traces::observed(&args.observed, &args.window, terminal)?,
                factor,
            ))
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
            observed,
        })
    }

    fn selected(&self, rule: &str) -> bool {
        (self.only.is_empty() || self.only.iter().any(|r| r == rule))
            && !self.skip.iter().any(|r| r == rule)
    }
}

/// The audit of a valid model with every rule, as `nines check` builds it
/// (for benchmarks and embedding).
#[must_use]
pub fn audit_of(model: &model::Model, text: &str, today: Date) -> Audit {
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

/// The audit of a valid model with the rules `selected`: a shorthand for
/// [`analyze::audit`] in the empty scenario.
#[must_use]
pub fn audit_selected(
    model: &model::Model,
    text: &str,
    today: Date,
    selected: &(dyn Fn(&str) -> bool + Sync),
) -> Audit {
    let options = analyze::Options {
        selected,
        ..analyze::Options::new(today)
    };
    analyze::audit(model, text, Scenario::default(), options)
}

/// Checks `text` as if it were read from the file `name`: the whole of
/// `nines check` but the reading, for tests and embedding.
pub fn check_source(name: &str, text: &str, args: &CheckArgs, terminal: &mut Terminal) -> Outcome {
    let result = CheckConfig::resolve(args, terminal).and_then(|config| {
        let source = input::ModelText {
            name: name.to_owned(),
            text: text.to_owned(),
        };
        check_text(&source, &config, terminal)
    });
    terminal.outcome(result)
}

pub(super) fn run(args: &CheckArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let config = CheckConfig::resolve(args, terminal)?;
    let source = input::read(&args.model)?;
    let outcome = check_text(&source, &config, terminal);
    super::discard(source);
    outcome
}

/// Checks a model already read, with resolved arguments.
fn check_text(
    source: &input::ModelText,
    config: &CheckConfig,
    terminal: &mut Terminal,
) -> Result<Outcome, CliError> {
    let model = super::parse_model(&source.name, &source.text, terminal)?;
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
    let mut audit = analyze::audit(&model, &source.text, Scenario::default(), options);
    if let Some((path, baseline)) = &config.baseline {
        baseline.apply(path, &mut audit, selected);
    }
    let render: Render = match config.format {
        Format::Table => {
            crate::render::terminal_audit(&mut audit);
            table::render
        }
        Format::Json => json::render,
        Format::Markdown => markdown::render,
        Format::Sarif => sarif::render,
        Format::Github => github::render,
    };
    let target = Target {
        file: &source.name,
        threshold: config.threshold,
        style: table::Style {
            width: terminal.width,
            color: terminal.color_out,
        },
    };
    render(&audit, &target, terminal.out)?;
    let outcome = if audit.failing(config.threshold).next().is_some() {
        Outcome::Fail
    } else {
        Outcome::Pass
    };
    super::discard((model, audit));
    Ok(outcome)
}
