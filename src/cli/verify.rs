//! `nines verify MODEL --experiment FILE --observed RESULT… [--margin 2%] [--label KEY] [--format table|json]`:
//! a chaos experiment's outcome against the model's prediction
//! (docs/experiments.md, "nines verify"). The judging is
//! `analyze::verify`; this file reads the files, renders, and exits 1 when
//! the experiment did worse than predicted.

use clap::{Args, ValueEnum};

use super::budget::argument;
use super::{CliError, Outcome, Terminal, input, today};
use crate::analyze::verify::{self, Observed, Options, Verification};
use crate::model::units::Probability;
use crate::render::verify as render;
use crate::render::{diagnostics, table};

/// Output formats of `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    /// Predicted against observed for a terminal.
    Table,
    /// The verification as JSON (docs/json.md).
    Json,
}

/// Arguments of `nines verify`.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// The experiment that ran, as `nines experiments` wrote it (Chaos
    /// Toolkit, Chaos Mesh, AWS FIS, the experiment's JSON), or the Chaos
    /// Toolkit journal of the run.
    #[arg(long, value_name = "FILE")]
    pub experiment: String,
    /// What was measured while it ran: a Prometheus query result (JSON)
    /// of each entrypoint's success ratio (and latency), or the Chaos
    /// Toolkit journal (repeatable).
    #[arg(long, value_name = "RESULT", required = true)]
    pub observed: Vec<String>,
    /// How far from the prediction an observation is still as predicted.
    #[arg(long, default_value = "2%")]
    pub margin: String,
    /// The series label whose value is an entrypoint's name (also in its
    /// Prometheus form, and `entrypoint`, `service`, `app`, `job`).
    #[arg(long, value_name = "KEY", default_value = "app.kubernetes.io/name")]
    pub label: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Table)]
    pub format: VerifyFormat,
    /// "Now" for expiry dates, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &VerifyArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let margin = argument::<Probability>("--margin", &args.margin, "margin", terminal)?;
    let today = today(args.today.as_deref())?;
    let stdin = std::iter::once(&args.model)
        .chain(std::iter::once(&args.experiment))
        .chain(&args.observed)
        .filter(|p| *p == "-")
        .count();
    if stdin > 1 {
        return Err(
            "standard input (`-`) can be only one of the model, --experiment and --observed"
                .to_owned()
                .into(),
        );
    }
    let source = input::read(&args.model)?;
    let model = super::parse_model(&source.name, &source.text, terminal)?;
    let experiment = input::read_text(
        &args.experiment,
        "the experiment",
        "give a file `nines experiments` wrote",
    )?;
    let file = verify::read_experiment(&experiment.text)
        .map_err(|problem| located(&experiment.name, &experiment.text, &[problem], terminal))?;
    let entrypoints: Vec<String> = model
        .entrypoints
        .iter()
        .map(|&id| model.component(id).name.clone())
        .collect();
    let mut observed = Observed::default();
    for path in &args.observed {
        let result = input::read_text(
            path,
            "the result",
            "give a Prometheus query result (JSON) or a Chaos Toolkit journal",
        )?;
        let part = verify::read_observed(&result.text, &entrypoints, &args.label)
            .map_err(|problems| located(&result.name, &result.text, &problems, terminal))?;
        verify::merge(&mut observed, &result.name, part)?;
    }
    let options = Options {
        today,
        margin: margin.0,
    };
    let mut verification = verify::verify(&model, &source.text, &file, &observed, &options)?;
    match args.format {
        VerifyFormat::Table => {
            escape_for_terminal(&mut verification);
            let shown = crate::render::escape::terminal(&source.name);
            render::render_table(
                &verification,
                &shown,
                table::Style {
                    width: terminal.width,
                    color: terminal.color_out,
                },
                terminal.out,
            )
        }
        VerifyFormat::Json => render::render_json(&verification, terminal.out),
    }?;
    Ok(if verification.fails() {
        Outcome::Fail
    } else {
        Outcome::Pass
    })
}

/// Problems located in an input file, then the line that closes them.
fn located(
    name: &str,
    text: &str,
    problems: &[crate::model::Problem],
    terminal: &Terminal,
) -> CliError {
    let rendered =
        diagnostics::render_problems(name, text, problems, terminal.width, terminal.color_err);
    CliError::diagnostics_then(
        rendered,
        &format!(
            "{name}: {} problem{} found; nothing was verified",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ),
    )
}

/// Names in the verification shown as escapes, for a terminal (the
/// finding escapes its own text when shown).
fn escape_for_terminal(v: &mut Verification) {
    let esc = |s: &mut String| *s = crate::render::escape::terminal(s).into_owned();
    esc(&mut v.system);
    esc(&mut v.loss);
    esc(&mut v.slug);
    esc(&mut v.title);
    v.what_if.iter_mut().for_each(esc);
    v.notes.iter_mut().for_each(esc);
    for r in &mut v.entrypoints {
        esc(&mut r.entrypoint);
    }
    if let Some(e) = &mut v.explanation {
        esc(&mut e.entrypoint);
        for k in &mut e.keys {
            esc(&mut k.key);
        }
    }
}
