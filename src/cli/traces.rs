//! `nines import traces FILE… [--window 1h] [-o FILE] [--entrypoint NAME…]
//! [--merge MODEL]`: a model written from the service graph a tracing
//! backend measured, or that graph added to an existing model; notes and a
//! summary on standard error. Also reads `check --observed` files.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Outcome, Terminal, input};
use crate::import::service_graph::Graph;
use crate::import::{self, Source, TraceFailure, TraceOptions};
use crate::render::{diagnostics, escape};

/// Arguments of `nines import traces`.
#[derive(Debug, Clone, Args)]
pub struct TracesArgs {
    /// Jaeger or Zipkin dependency lists, Prometheus query results or text
    /// exposition of the service-graph metrics (told apart by content), or `-`.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// The time the counts cover (the `lookback` of the dependency query,
    /// the range of `increase(…[1h])`).
    #[arg(long, default_value = "1h")]
    pub window: String,
    /// Write the model to this file instead of standard output.
    #[arg(short = 'o', long)]
    pub output: Option<String>,
    /// Where requests enter (repeatable; default: the services nothing calls).
    #[arg(long, value_name = "NAME")]
    pub entrypoint: Vec<String>,
    /// The system's name (default: the first file's name).
    #[arg(long)]
    pub system: Option<String>,
    /// Add what the traces know to this model instead of writing a new one;
    /// nothing written in it is changed.
    #[arg(long, value_name = "MODEL")]
    pub merge: Option<String>,
    /// With --merge: report loads that differ from the measured rate by more
    /// than this factor, either way.
    #[arg(long, default_value_t = 2.0, value_name = "FACTOR")]
    pub load_factor: f64,
}

/// `--window` in seconds, checked.
pub(super) fn window(text: &str) -> Result<f64, String> {
    match crate::model::units::parse_duration(text) {
        Ok(d) if d.0 > 0 => Ok(d.seconds()),
        Ok(_) => Err("--window must be longer than 0".to_owned()),
        Err(why) => Err(format!(
            "--window `{}` is not a duration ({why}); write e.g. `1h` or `30m`",
            crate::model::error::printable(text)
        )),
    }
}

/// `--load-factor`, checked.
pub(super) fn factor(value: f64) -> Result<f64, String> {
    if value.is_finite() && value > 1.0 {
        Ok(value)
    } else {
        Err(format!(
            "--load-factor must be a number above 1 (2 reports loads off by more than 2×), found {value}"
        ))
    }
}

/// Reads the files named.
pub(super) fn sources(files: &[String]) -> Result<Vec<Source>, CliError> {
    let mut sources = Vec::new();
    for file in files {
        let text = input::read_text(
            file,
            "the dependency list",
            "give the JSON or text the tracing backend serves",
        )?;
        sources.push(Source {
            name: text.name,
            text: text.text,
        });
    }
    Ok(sources)
}

/// Why nothing was read.
pub(super) fn failed(failure: &TraceFailure, sources: &[Source], terminal: &Terminal) -> CliError {
    match failure {
        TraceFailure::Problems(problems) => {
            let mut out = String::new();
            for (index, source) in sources.iter().enumerate() {
                let mine: Vec<_> = problems
                    .iter()
                    .filter(|(s, _)| *s == index)
                    .map(|(_, p)| p.clone())
                    .collect();
                if !mine.is_empty() {
                    out.push_str(&diagnostics::render_problems(
                        &source.name,
                        &source.text,
                        &mine,
                        terminal.width,
                        terminal.color_err,
                    ));
                }
            }
            let count = problems.len();
            let _ = writeln!(
                out,
                "{count} problem{} found; nothing was imported",
                if count == 1 { "" } else { "s" }
            );
            CliError::Diagnostics(out)
        }
        TraceFailure::Empty(notes) => CliError::diagnostics_then(
            notes_text(notes, sources),
            "no call between two services in the inputs (or none with a count above 0): nothing to import; widen the query's window",
        ),
        TraceFailure::UnknownEntrypoint(name, known) => CliError::Message(format!(
            "--entrypoint `{}` is not a service of the traces; they have: {}",
            crate::model::error::printable(name),
            known.join(", ")
        )),
    }
}

/// The observed graph of `files`, for `check --observed`.
pub(super) fn observed(
    files: &[String],
    window_text: &str,
    terminal: &mut Terminal,
) -> Result<Graph, CliError> {
    let seconds = window(window_text)?;
    let sources = sources(files)?;
    let options = TraceOptions {
        window: seconds,
        window_text: window_text.trim().to_owned(),
        ..TraceOptions::default()
    };
    let mut notes = Vec::new();
    let graph = import::observed(&sources, &options, &mut notes)
        .map_err(|failure| failed(&failure, &sources, terminal))?;
    let _ = terminal
        .err
        .write_all(notes_text(&notes, &sources).as_bytes());
    Ok(graph)
}

/// One `note: file:line:column: …` line per note.
fn notes_text(notes: &[import::Note], sources: &[Source]) -> String {
    let mut out = String::new();
    for note in notes {
        let at = note.origin.map_or_else(String::new, |origin| {
            let source = &sources[origin.source];
            let (line, column) = origin.span.line_column(&source.text);
            format!("{}:{line}:{column}: ", source.name)
        });
        // Service names come from whoever writes to the tracing backend:
        // escaped, as every trace-derived text that reaches the terminal.
        let _ = writeln!(
            out,
            "note: {}{}",
            escape::terminal(&at),
            escape::terminal(&note.message)
        );
    }
    out
}

pub(super) fn run(args: &TracesArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let seconds = window(&args.window)?;
    let factor = factor(args.load_factor)?;
    let sources = sources(&args.files)?;
    let options = TraceOptions {
        window: seconds,
        window_text: args.window.trim().to_owned(),
        entrypoints: args.entrypoint.clone(),
        system: args.system.clone(),
    };
    let imported = import::traces(&sources, &options)
        .map_err(|failure| failed(&failure, &sources, terminal))?;
    let _ = terminal
        .err
        .write_all(notes_text(&imported.notes, &sources).as_bytes());
    let Some(path) = &args.merge else {
        let _ = writeln!(terminal.err, "{}", escape::terminal(&imported.summary));
        let inputs: Vec<&str> = args.files.iter().map(String::as_str).collect();
        input::write_output(args.output.as_deref(), &imported.model, &inputs, terminal)?;
        return Ok(Outcome::Pass);
    };
    let (model, _) = super::read_model(path, terminal)?;
    match import::merge::merge(&model.text, &imported.graph, factor) {
        Ok(merged) => {
            let _ = writeln!(terminal.err, "{}", escape::terminal(&imported.summary));
            let changes = merged.changes.to_string();
            let _ = write!(terminal.err, "{}", escape::terminal_lines(&changes));
            let mut inputs: Vec<&str> = args.files.iter().map(String::as_str).collect();
            inputs.push(path);
            input::write_output(args.output.as_deref(), &merged.model, &inputs, terminal)?;
            Ok(Outcome::Pass)
        }
        Err(refusal) => {
            let (problems, closing) = match &refusal {
                import::merge::Refusal::Invalid(problems) => {
                    (problems, "the model is not valid; nothing was written")
                }
                import::merge::Refusal::Unsafe(problems) => (
                    problems,
                    "the merge would not keep the model as written; nothing was written",
                ),
            };
            Err(CliError::diagnostics_then(
                diagnostics::render_problems(
                    &model.name,
                    &model.text,
                    problems,
                    terminal.width,
                    terminal.color_err,
                ),
                closing,
            ))
        }
    }
}
