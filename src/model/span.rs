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

    /// The point at a 1-based line and character column, clamped to the text.
    #[must_use]
    pub fn at_line_column(text: &str, line: usize, column: usize) -> Self {
        let mut offset = 0;
        for (index, chunk) in text.split_inclusive('\n').enumerate() {
            if index + 1 == line {
                let within = chunk
                    .char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(chunk.trim_end_matches('\n').len(), |(at, _)| at);
                return Self::new(offset + within, 0);
            }
            offset += chunk.len();
        }
        Self::new(text.len(), 0)
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

    /// 1-based line and character column of the span's start.
    #[must_use]
    pub fn line_column(self, source: &str) -> (usize, usize) {
        let before = source.get(..self.offset).unwrap_or(source);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }
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
    fn widening_covers_one_token() {
        let text = "x: [1, 2\ny: 3";
        assert_eq!(Span::new(9, 0).widen_to_token(text).text(text), "y:");
    }
}
