//! `nines graph MODEL [--format dot|mermaid]`: the dependency graph alone,
//! from the same diagram data as the review document.

use clap::{Args, ValueEnum};

use super::{CliError, Outcome, Terminal, input, read_model};
use crate::model::Rule;
use crate::render::diagram::{Diagram, dot, mermaid};

/// Graph formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// A Mermaid flowchart.
    Mermaid,
    /// Graphviz DOT (`| dot -Tsvg`).
    Dot,
}

/// Arguments of `nines graph`.
#[derive(Debug, Clone, Args)]
pub struct GraphArgs {
    /// The model file, or `-` for standard input.
    pub model: String,
    /// Graph format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
    pub format: GraphFormat,
}

pub(super) fn run(args: &GraphArgs, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let (source, model) = read_model(&args.model, terminal)?;
    let text = graph(&model, &source.text, args.format);
    input::write_output(None, &text, &[], terminal)?;
    Ok(Outcome::Pass)
}

/// The graph of a valid model in `format`, SPOFs marked.
#[must_use]
pub fn graph(model: &crate::model::Model, text: &str, format: GraphFormat) -> String {
    // Only the SPOF marks come from the findings, and they do not depend on the date.
    let today = crate::model::Date::from_days(0);
    let audit = super::check::audit_selected(model, text, today, &|rule| rule == Rule::Spof.name());
    let diagram = Diagram::new(model, &audit.findings);
    match format {
        GraphFormat::Mermaid => mermaid::render(&diagram),
        GraphFormat::Dot => dot::render(&diagram),
    }
}
