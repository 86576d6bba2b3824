//! Model problems rendered with miette: file, line and column, the text
//! underlined, a label and a help line; one block per problem.

use std::fmt::Write as _;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::model::{Problem, Span};

/// Lines longer than this (in bytes) are shown as a window around the
/// problem: a minified manifest is one line of megabytes, and the renderer
/// cannot draw an underline past column 65,535.
const LONG_LINE: usize = 400;

/// Bytes of context kept on each side of the problem in a clipped line.
const WINDOW: usize = 80;

/// Problems drawn in full; the rest are counted (a generated file can hold
/// a million mistakes).
const MAX_SHOWN: usize = 500;

// Every unknown name drawn has its "did you mean" looked for.
const _: () = assert!(MAX_SHOWN <= crate::model::validate::SUGGESTED_REFERENCES);

/// Longest underline drawn in a clipped line, in bytes.
const MAX_UNDERLINE: usize = 120;

/// Most lines one underline spans before it is cut to its first line: a
/// label on a whole object of a trace file would print every line of it.
const MAX_UNDERLINED_LINES: usize = 6;

/// A [`Problem`] with the source it points into, as miette wants it.
struct Located<'a> {
    problem: &'a Problem,
    source: &'a dyn SourceCode,
}

impl std::fmt::Debug for Located<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Located")
            .field("problem", self.problem)
            .finish_non_exhaustive()
    }
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
    let shown = printable_source(text);
    let text = shown.as_ref();
    let source = Indexed::new(file, text);
    let mut out = String::new();
    for (index, problem) in problems.iter().enumerate() {
        let short;
        let problem = match shortened(text, problem) {
            Some(cut) => {
                short = cut;
                &short
            }
            None => problem,
        };
        if index == MAX_SHOWN {
            let _ = writeln!(
                out,
                "… and {} more problem(s) not shown: fix these first\n",
                problems.len() - MAX_SHOWN
            );
            break;
        }
        let rendered = if let Some((clipped, problem)) = clip(&source, problem) {
            let located = Located {
                problem: &problem,
                source: &clipped,
            };
            handler.render_report(&mut out, &located)
        } else {
            let located = Located {
                problem,
                source: &source,
            };
            handler.render_report(&mut out, &located)
        };
        if rendered.is_err() {
            let _ = writeln!(out, "{file}: {}", problem.message);
        }
        out.push('\n');
    }
    out
}

/// One line of the source cut down to a window around a problem, standing
/// in for the whole text: miette reads it as line `line` starting at byte
/// column `column`, so the header keeps the true `file:line:column`.
struct Clipped {
    name: String,
    window: String,
    /// 0-based line of the window in the whole text.
    line: usize,
    /// Byte column in that line where the window's text starts.
    column: usize,
    /// Bytes of the `…` the window starts with (0 at the start of a line).
    marker: usize,
}

impl SourceCode for Clipped {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .window
            .read_span(span, context_lines_before, context_lines_after)?;
        let column = if inner.line() == 0 {
            (inner.column() + self.column).saturating_sub(self.marker)
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.line,
            column,
            inner.line_count(),
        )))
    }
}

/// The byte range of the line holding `offset` (without its line break).
fn line_around(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |at| at + 1);
    let end = text[offset..]
        .find('\n')
        .map_or(text.len(), |at| offset + at);
    (start, end)
}

/// A span over more than [`MAX_UNDERLINED_LINES`] lines cut to the end of
/// its first line; any other span unchanged.
fn first_line_of_tall(text: &str, span: Span) -> Span {
    let start = span.offset.min(text.len());
    let end = span.end().min(text.len());
    let Some(underlined) = text.get(start..end) else {
        return span;
    };
    if underlined.matches('\n').count() < MAX_UNDERLINED_LINES {
        return span;
    }
    let (_, line_end) = line_around(text, start);
    Span::new(start, line_end - start)
}

/// The problem with its tall underlines cut to their first line; `None`
/// when none is tall.
fn shortened(text: &str, problem: &Problem) -> Option<Problem> {
    let tall = |span: Span| first_line_of_tall(text, span) != span;
    if !tall(problem.span) && !problem.related.iter().any(|(span, _)| tall(*span)) {
        return None;
    }
    let mut cut = problem.clone();
    cut.span = first_line_of_tall(text, cut.span);
    for (span, _) in &mut cut.related {
        *span = first_line_of_tall(text, *span);
    }
    Some(cut)
}

/// Moves `at` back to the nearest character boundary of `text`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// When a problem points into a line too long to draw, or next to one (the
/// lines around it are drawn too), the line cut to a window around the
/// problem and the problem moved into it (labels outside the window are
/// left out, and no line around it is drawn); `None` when every labelled
/// line and the lines around the problem are short.
fn clip(source: &Indexed, problem: &Problem) -> Option<(Clipped, Problem)> {
    let (file, text) = (source.name.as_str(), source.text);
    let long_line = |offset: usize| {
        let (start, end) = line_around(text, offset);
        end - start > LONG_LINE
    };
    let (line_start, line_end) = line_around(text, problem.span.offset);
    let next_to_long = (line_start > 0 && long_line(line_start - 1))
        || (line_end < text.len() && long_line(line_end + 1));
    let long = std::iter::once(problem.span)
        .chain(problem.related.iter().map(|(span, _)| *span))
        .any(|span| long_line(span.offset));
    if !long && !next_to_long {
        return None;
    }
    let offset = problem.span.offset.clamp(line_start, line_end);
    let end = problem
        .span
        .end()
        .min(line_end)
        .min(offset.saturating_add(MAX_UNDERLINE));
    // A short line is drawn whole.
    let short = line_end - line_start <= LONG_LINE;
    let start = if short {
        line_start
    } else {
        floor_boundary(text, offset.saturating_sub(WINDOW).max(line_start))
    };
    let stop = if short {
        line_end
    } else {
        floor_boundary(text, end.saturating_add(WINDOW).min(line_end))
    };
    let marker = if start > line_start { "…" } else { "" };
    let window = format!(
        "{marker}{}{}",
        &text[start..stop],
        if stop < line_end { "…" } else { "" }
    );
    let end = floor_boundary(text, end).max(offset);
    let inside = |span: Span| span.offset >= start && span.end() <= stop;
    let shift = |at: usize| at - start + marker.len();
    let mut clipped = problem.clone();
    clipped.span = Span::new(shift(offset), end - offset);
    clipped.related = problem
        .related
        .iter()
        .filter(|(span, _)| inside(*span))
        .map(|(span, label)| (Span::new(shift(span.offset), span.len), label.clone()))
        .collect();
    let line = source.line_of(line_start);
    Some((
        Clipped {
            name: file.to_owned(),
            window,
            line,
            column: start - line_start,
            marker: marker.len(),
        },
        clipped,
    ))
}

/// The source with every character that would act on a terminal (escape
/// sequences, C1 controls, bidirectional overrides) replaced by a visible
/// one of the same length in bytes, so spans stay valid: `?` for one byte,
/// `¿` for two, `\u{fffd}` for three. A `\r` alone is a line break to
/// YAML (a file saved on an old Mac) and to `Span::line_column`: it is
/// drawn as `\n`, so the excerpt's lines are the model's.
fn printable_source(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_at = |text: &str, at: usize, c: char| {
        c != '\n'
            && c != '\t'
            && !(c == '\r' && text[at + 1..].starts_with('\n'))
            && crate::render::escape::is_unsafe_char(c)
    };
    if !text.char_indices().any(|(at, c)| unsafe_at(text, at, c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        if c == '\r' && unsafe_at(text, at, c) {
            out.push('\n');
        } else if unsafe_at(text, at, c) {
            out.push(match c.len_utf8() {
                1 => '?',
                2 => '¿',
                _ => '\u{fffd}',
            });
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The source as miette reads it, with the start of every line indexed:
/// miette finds a span's line by scanning from the start of the text, which
/// made a file with many problems quadratic; here each read looks at the
/// lines around the span only.
struct Indexed<'t> {
    name: String,
    text: &'t str,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
}

impl<'t> Indexed<'t> {
    fn new(name: &str, text: &'t str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self {
            name: name.to_owned(),
            text,
            line_starts,
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) - 1
    }
}

impl SourceCode for Indexed<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let len = self.text.len();
        let start = span.offset().min(len);
        let end = (span.offset() + span.len()).min(len);
        let first = self.line_of(start);
        let last = self.line_of(end.saturating_sub(1).max(start));
        let base_line = first.saturating_sub(context_lines_before);
        let base = self.line_starts[base_line];
        let stop = self
            .line_starts
            .get(last + context_lines_after + 2)
            .copied()
            .unwrap_or(len);
        let local = SourceSpan::new((start - base).into(), end - start);
        let inner = self.text.as_bytes()[base..stop].read_span(
            &local,
            context_lines_before,
            context_lines_after,
        )?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + base).into(), inner.span().len()),
            inner.line() + base_line,
            inner.column(),
            inner.line_count() + base_line,
        )))
    }
}
