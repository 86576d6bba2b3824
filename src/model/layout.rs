//! How a model's text is laid out, as the parser read it: every mapping and
//! sequence with its style (block or flow) and its extent, every scalar's
//! span, anchors and aliases as written (not expanded). `import traces
//! --merge` edits a model by this structure, never by its indentation or
//! its line breaks as text: an insertion point is the end of a node, a line
//! start is never inside a scalar, a `#` is a comment only outside every
//! scalar. [`load::layout`](super::load::layout) builds it.

use super::span::Span;

/// The layout of one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The document's node (`None` for a text of comments only).
    pub root: Option<Shape>,
    /// The span of every scalar and alias, in text order (they never
    /// overlap): what an edit must not cut into.
    pub(super) atoms: Vec<Span>,
}

/// One node of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Where it is: a scalar's text (a block scalar's content, after its
    /// `|` or `>` line), a flow collection from its bracket to its closing
    /// bracket, a block collection from its first token to the end of its
    /// last node.
    pub span: Span,
    /// Whether it carries an anchor (`&name`) that an alias repeats.
    pub anchored: bool,
    /// The parser's id of its anchor (0 for none), until [`Layout`] knows
    /// which anchors are repeated.
    pub(super) anchor: usize,
    /// What it is.
    pub kind: Kind,
}

/// The kinds of node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A scalar, its value with quotes and escapes resolved.
    Scalar {
        /// The value.
        value: String,
        /// Whether it is a block scalar (`|`, `>`), whose span ends after
        /// its last line break.
        block: bool,
    },
    /// An alias (`*name`).
    Alias,
    /// A mapping, entries in text order.
    Map {
        /// `{…}` rather than indented keys.
        flow: bool,
        /// The keys and values.
        entries: Vec<(Shape, Shape)>,
    },
    /// A sequence, items in text order.
    Seq {
        /// `[…]` rather than `- ` items.
        flow: bool,
        /// The items.
        items: Vec<Shape>,
    },
}

impl Shape {
    /// Whether it is a flow collection.
    pub fn is_flow(&self) -> bool {
        matches!(
            self.kind,
            Kind::Map { flow: true, .. } | Kind::Seq { flow: true, .. }
        )
    }

    /// The entry of a mapping whose key is the string `key` (the first).
    pub fn get(&self, key: &str) -> Option<(&Shape, &Shape)> {
        match &self.kind {
            Kind::Map { entries, .. } => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// A scalar's value.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Whether an entry written into it would be written into other nodes
    /// too, or not be what it means: it carries an anchor an alias repeats
    /// (the alias would change with it), it is an alias, or it is a mapping with a
    /// merge key (`<<`), whose merged keys an own key overrides.
    pub fn shared(&self) -> bool {
        self.anchored || matches!(self.kind, Kind::Alias) || self.get("<<").is_some()
    }

    /// Where a flow collection's next entry is written (a comma and the
    /// entry): after its last node, or after its opening bracket when it is
    /// empty. For a block collection or a scalar, its end (a block
    /// collection's next line starts after the line break that follows).
    pub fn content_end(&self) -> usize {
        match &self.kind {
            Kind::Map {
                flow: true,
                entries,
            } => entries.last().map_or(self.span.offset + 1, |(k, v)| {
                k.span.end().max(v.span.end())
            }),
            Kind::Seq { flow: true, items } => items
                .last()
                .map_or(self.span.offset + 1, |item| item.span.end()),
            _ => self.span.end(),
        }
    }
}

impl Layout {
    /// Marks the nodes whose anchor an alias repeats (`aliased`: their ids).
    pub(super) fn mark_aliased(&mut self, aliased: &std::collections::HashSet<usize>) {
        let mut stack: Vec<&mut Shape> = self.root.iter_mut().collect();
        while let Some(shape) = stack.pop() {
            shape.anchored = shape.anchor != 0 && aliased.contains(&shape.anchor);
            match &mut shape.kind {
                Kind::Map { entries, .. } => {
                    for (k, v) in entries {
                        stack.push(k);
                        stack.push(v);
                    }
                }
                Kind::Seq { items, .. } => stack.extend(items.iter_mut()),
                _ => {}
            }
        }
    }

    /// Whether `offset` falls strictly inside a scalar or alias (an edit
    /// there would change its value).
    pub fn inside_atom(&self, offset: usize) -> bool {
        let after = self.atoms.partition_point(|s| s.offset < offset);
        after > 0 && self.atoms[after - 1].end() > offset
    }

    /// The comment that makes up the line starting at `line_start`, if the
    /// line holds nothing else (blanks, then `#` to the line break), and
    /// the line is not inside a scalar.
    pub fn comment_line(&self, text: &str, line_start: usize) -> Option<Span> {
        if self.inside_atom(line_start) {
            return None;
        }
        let rest = text.get(line_start..)?;
        let line = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
        let content = line.trim_start_matches([' ', '\t', '\u{feff}']);
        content.starts_with('#').then(|| {
            let start = line_start + (line.len() - content.len());
            Span::new(start, content.len())
        })
    }
}

/// The start of the line holding `offset`: after the last `\n` or `\r`
/// before it, the line breaks YAML reads.
pub fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .and_then(|before| before.rfind(['\n', '\r']))
        .map_or(0, |at| at + 1)
}

/// Just past the line break that ends the line holding `offset` (`\n`,
/// `\r\n` or `\r`); the end of the text on the last line.
pub fn next_line(text: &str, offset: usize) -> usize {
    let Some(rest) = text.get(offset..) else {
        return text.len();
    };
    match rest.find(['\n', '\r']) {
        None => text.len(),
        Some(at) if rest[at..].starts_with("\r\n") => offset + at + 2,
        Some(at) => offset + at + 1,
    }
}

/// The column of `offset` on its line, in characters from 0 (a byte-order
/// mark at the start of the text is not counted).
pub fn column(text: &str, offset: usize) -> usize {
    let start = line_start(text, offset);
    text.get(start..offset)
        .map_or(0, |s| s.trim_start_matches('\u{feff}').chars().count())
}

/// The line break the text uses (its first), `\n` for a text with none.
pub fn line_break(text: &str) -> &'static str {
    match text.find(['\n', '\r']) {
        Some(at) if text[at..].starts_with("\r\n") => "\r\n",
        Some(at) if text.as_bytes()[at] == b'\r' => "\r",
        _ => "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::super::load::layout;
    use super::*;

    #[test]
    fn block_collections_end_at_their_last_node_and_flow_ones_at_their_bracket() {
        let text = "a:\n  b: 1\n  c:\n    - x\n    - \"y\n  z\"\n  # tail\nd: {e: [1, 2], f: 3}\n";
        let root = layout(text).unwrap().root.unwrap();
        let (_, a) = root.get("a").unwrap();
        // `b: 1` starts the mapping; its last node is the quoted `"y  z"`,
        // which ends after its closing quote (byte 36), before `# tail`.
        assert_eq!(a.span.text(text).lines().next(), Some("b: 1"));
        assert_eq!(&text[a.content_end() - 2..a.content_end()], "z\"");
        let (_, d) = root.get("d").unwrap();
        assert!(d.is_flow());
        assert_eq!(d.span.text(text), "{e: [1, 2], f: 3}");
        // The next entry of `d` goes after `3`.
        assert_eq!(&text[..d.content_end()], &text[..text.len() - 2]);
        let (_, e) = d.get("e").unwrap();
        assert_eq!(e.span.text(text), "[1, 2]");
        // A line inside the quoted scalar is not a comment line, the one
        // after it is.
        let l = layout(text).unwrap();
        let quoted = text.find("  z\"").unwrap();
        assert!(l.inside_atom(quoted));
        let tail = text.find("  # tail").unwrap();
        assert_eq!(l.comment_line(text, tail).unwrap().text(text), "# tail");
    }

    #[test]
    fn empty_flow_collections_take_entries_after_their_bracket() {
        let text = "a: {}\nb: [ ]\n";
        let root = layout(text).unwrap().root.unwrap();
        assert_eq!(root.get("a").unwrap().1.content_end(), 4);
        assert_eq!(root.get("b").unwrap().1.content_end(), 10);
    }

    #[test]
    fn anchors_aliases_and_merge_keys_are_seen() {
        let text = "a: &x {b: 1}\nc: *x\nd: {<<: *x, e: 2}\nf: {g: &y 1, h: *y}\ni: &z {j: 1}\n";
        let root = layout(text).unwrap().root.unwrap();
        // An anchor no alias repeats changes nothing elsewhere.
        assert!(!root.get("i").unwrap().1.shared());
        assert!(root.get("a").unwrap().1.shared());
        assert!(root.get("c").unwrap().1.shared());
        assert!(root.get("d").unwrap().1.shared());
        // An anchor or alias inside does not make a new entry repeat.
        assert!(!root.get("f").unwrap().1.shared());
    }

    #[test]
    fn lines_break_as_yaml_breaks_them() {
        let text = "a\r\nb\rc\nd";
        assert_eq!(line_break(text), "\r\n");
        assert_eq!(line_break("a\rb"), "\r");
        assert_eq!(line_break("a"), "\n");
        assert_eq!(next_line(text, 0), 3);
        assert_eq!(next_line(text, 3), 5);
        assert_eq!(next_line(text, 8), 8);
        assert_eq!(line_start(text, 6), 5);
        assert_eq!(column("\u{feff}  a", 5), 2);
    }
}
