//! Model problems rendered with miette: file, line and column, the text
//! underlined, a label and a help line; one block per problem.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};

use crate::model::Problem;

/// A [`Problem`] with the source it points into, as miette wants it.
#[derive(Debug)]
struct Located<'a> {
    problem: &'a Problem,
    source: &'a NamedSource<String>,
}

impl std::fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problem.message)
    }
}

impl std::error::Error for Located<'_> {}

impl Diagnostic for Located<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        Some(Box::new(self.problem.code))
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.problem
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary =
            LabeledSpan::new_primary_with_span(Some(self.problem.label.clone()), self.problem.span);
        let related = self
            .problem
            .related
            .iter()
            .map(|(span, label)| LabeledSpan::new_with_span(Some(label.clone()), *span));
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// Renders every problem, then a closing line with the count.
#[must_use]
pub fn render(file: &str, text: &str, problems: &[Problem], width: usize, color: bool) -> String {
    let mut out = render_problems(file, text, problems, width, color);
    let _ = writeln!(
        out,
        "{file}: {} problem{} found; nothing was analysed",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    out
}

/// Renders every problem, pointing into `text` shown under the name `file`
/// (a model file, or a command-line argument such as `--set`).
#[must_use]
pub fn render_problems(
    file: &str,
    text: &str,
    problems: &[Problem],
    width: usize,
    color: bool,
) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(width);
    let source = NamedSource::new(file, text.to_owned());
    let mut out = String::new();
    for problem in problems {
        let located = Located {
            problem,
            source: &source,
        };
        if handler.render_report(&mut out, &located).is_err() {
            let _ = writeln!(out, "{file}: {}", problem.message);
        }
        out.push('\n');
    }
    out
}
