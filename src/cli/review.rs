//! `nines report MODEL [-o FILE] [--format markdown|html]`: the review
//! document for a design review, from the same analyses as `check`.

use clap::{Args, ValueEnum};

use super::{CliError, Outcome, Terminal, input, read_model, today};
use crate::render::diagram::Diagram;
use crate::render::review::{self, html, markdown};

/// Components drawn at most in the review's diagram: past this, a wall of
/// boxes helps no reviewer, so the diagram keeps the components with the
/// most serious findings and the calls from an entrypoint that reach them.
/// Up to this many, wrapped onto rows that fit the page
/// (`render::diagram::wrap`), boxes and labels stay legible.
pub const DIAGRAM_LIMIT: usize = 30;

/// Formats of the review document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReviewFormat {
    /// Markdown with a Mermaid diagram (GitHub, GitLab, wikis).
    Markdown,
    /// One self-contained HTML page with an inline SVG diagram.
    Html,
}

/// Arguments of `nines report`.
#[derive(Debug, Clone, Args)]
pub struct ReviewArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// Document format.
    #[arg(long, value_enum, default_value_t = ReviewFormat::Markdown)]
    pub format: ReviewFormat,
    /// Write to this file instead of standard output (`-`: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<String>,
    /// "Now" for expiry dates and drill ages, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub today: Option<String>,
}

pub(super) fn run(args: &ReviewArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let today = today(args.today.as_deref())?;
    let (source, model) = read_model(&args.model, terminal)?;
    let text = render(&source.name, &source.text, &model, today, args.format);
    input::write_output(
        args.output.as_deref(),
        &text,
        &[args.model.as_str()],
        terminal,
    )?;
    Ok(Outcome::Pass)
}

/// The outage the review's recovery section simulates: 30 minutes, as
/// `nines recover` by default.
const RECOVERY_OUTAGE_S: f64 = 1800.0;
/// Simulated time of the review's recovery section: one hour.
const RECOVERY_HORIZON_S: f64 = 3600.0;

/// The review document of a valid model, for tests and embedding.
#[must_use]
pub fn render(
    name: &str,
    text: &str,
    model: &crate::model::Model,
    today: crate::model::Date,
    format: ReviewFormat,
) -> String {
    // The audit and the recovery plan are independent: side by side.
    let (audit, plan) = rayon::join(
        || {
            crate::analyze::audit(
                model,
                text,
                crate::engine::scenario::Scenario::default(),
                crate::analyze::Options::new(today),
            )
        },
        || {
            let settings = crate::recover::Settings::of(model, RECOVERY_HORIZON_S);
            let scenario = crate::recover::Scenario::full_outage(model, RECOVERY_OUTAGE_S);
            crate::recover::plan(model, &scenario, &settings, None)
        },
    );
    let diagram = Diagram::new(model, &audit.findings).focus(&audit.findings, DIAGRAM_LIMIT);
    let document = review::document(&audit, name, &diagram, Some(&plan));
    match format {
        ReviewFormat::Markdown => markdown::render(&document),
        ReviewFormat::Html => html::render(&document),
    }
}
