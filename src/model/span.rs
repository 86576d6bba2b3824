//! Byte spans into the model text, and their line and column.

/// A byte range in the model source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    /// Byte offset of the first byte.
    pub offset: usize,
    /// Length in bytes (0 for a point).
    pub len: usize,
}

impl Span {
    /// A span from its offset and length.
    #[must_use]
    pub const fn new(offset: usize, len: usize) -> Self {
        Self { offset, len }
    }

    /// The byte just past the span.
    #[must_use]
    pub const fn end(self) -> usize {
        self.offset.saturating_add(self.len)
    }

    /// The point at a 1-based line and character column, clamped to the
    /// text; lines end as YAML ends them (see [`line_starts`]).
    #[must_use]
    pub fn at_line_column(text: &str, line: usize, column: usize) -> Self {
        let Some(start) = line_starts(text).nth(line.saturating_sub(1)) else {
            return Self::new(text.len(), 0);
        };
        let rest = &text[start..];
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let within = rest[..end]
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(end, |(at, _)| at);
        Self::new(start + within, 0)
    }

    /// A zero-length span grown to cover the word (non-blank run) it starts,
    /// so an underline shows something; at the end of a line it stays a point.
    #[must_use]
    pub fn widen_to_token(self, text: &str) -> Self {
        if self.len > 0 {
            return self;
        }
        let rest = text.get(self.offset..).unwrap_or("");
        let len = rest
            .char_indices()
            .find(|&(_, c)| c.is_whitespace())
            .map_or(rest.len(), |(at, _)| at);
        Self::new(self.offset, len)
    }

    /// The smallest span covering both.
    #[must_use]
    pub fn to(self, other: Span) -> Self {
        let start = self.offset.min(other.offset);
        Self::new(start, self.end().max(other.end()) - start)
    }

    /// The source text under the span, or "" when it falls outside.
    #[must_use]
    pub fn text(self, source: &str) -> &str {
        source.get(self.offset..self.end()).unwrap_or("")
    }

    /// 1-based line and character column of the span's start; lines end
    /// as YAML ends them (see [`line_starts`]).
    #[must_use]
    pub fn line_column(self, source: &str) -> (usize, usize) {
        let offset = self.offset.min(source.len());
        let mut line = 0;
        let mut start = 0;
        for at in line_starts(source).take_while(|&at| at <= offset) {
            line += 1;
            start = at;
        }
        let column = source.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        (line, column)
    }
}

/// Where each line of `text` starts, the first at 0. A line ends at `\n`,
/// `\r\n` or a `\r` alone (YAML 1.2 reads all three as a line break: a
/// file saved on an old Mac has only `\r`).
pub fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    std::iter::once(0).chain(
        text.match_indices(['\n', '\r'])
            .filter(move |&(at, _)| !(bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n')))
            .map(|(at, _)| at + 1),
    )
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        (span.offset, span.len).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters_not_bytes() {
        let text = "a: é\nbb: [1, 2]\n";
        // "a: é\n" is 6 bytes (é is two), so "bb" starts at byte 6.
        assert_eq!(Span::new(6, 2).line_column(text), (2, 1));
        // '[' is the 5th character of line 2: byte 6 + 4.
        assert_eq!(Span::at_line_column(text, 2, 5), Span::new(10, 0));
        assert_eq!(Span::new(3, 2).line_column(text), (1, 4));
    }

    #[test]
    fn a_carriage_return_alone_ends_a_line_and_with_a_newline_is_one_break() {
        // The same three lines with each line break YAML knows: `lots` is
        // the 21st character of line 3 ("  a: {availability: " is 20).
        for brk in ["\n", "\r\n", "\r"] {
            let text = ["system: s", "components:", "  a: {availability: lots}", ""].join(brk);
            let at = text.find("lots").unwrap();
            assert_eq!(Span::new(at, 4).line_column(&text), (3, 21), "{brk:?}");
            assert_eq!(
                Span::at_line_column(&text, 3, 21),
                Span::new(at, 0),
                "{brk:?}"
            );
            // Line 1 starts at 0; line 2 after "system: s" (9) and the
            // break, line 3 after "components:" (11) and another.
            let starts: Vec<usize> = line_starts(&text).collect();
            assert_eq!(starts[..3], [0, 9 + brk.len(), 9 + 11 + 2 * brk.len()]);
        }
        // Mixed: `\r\n`, then `\r` alone, then `\n`: lines 1 to 4.
        let text = "a\r\nb\rc\nd";
        assert_eq!(line_starts(text).collect::<Vec<_>>(), [0, 3, 5, 7]);
        assert_eq!(Span::new(7, 1).line_column(text), (4, 1));
        // A column past the end of line 2 stops at its break.
        assert_eq!(Span::at_line_column(text, 2, 9), Span::new(4, 0));
    }

    #[test]
    fn widening_covers_one_token() {
        let text = "x: [1, 2\ny: 3";
        assert_eq!(Span::new(9, 0).widen_to_token(text).text(text), "y:");
    }
}
