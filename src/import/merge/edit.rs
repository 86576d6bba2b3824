//! Insertions into a model's text at the places its layout gives: after the
//! last node of a block collection (and the comments indented under it), or
//! inside the brackets of a flow collection after its last entry; comment
//! lines above the line a flow collection starts on. Every line written
//! ends with the text's own line break; nothing is written inside a scalar.

use crate::model::layout::{self, Layout, Shape};

/// One insertion or replacement in the model text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edit {
    /// Where, in the model text.
    pub at: usize,
    /// Bytes of the model text it replaces (0 for an insertion).
    pub remove: usize,
    /// What is written there.
    pub text: String,
}

/// The edits of one merge, made against one text.
pub(super) struct Editor<'a> {
    /// The model text.
    pub text: &'a str,
    /// Its layout.
    pub layout: &'a Layout,
    /// Its line break.
    pub eol: &'static str,
    /// Whether it is JSON (no comment can be written).
    pub json: bool,
    /// The edits so far, in the order made (which is their order at one
    /// place).
    edits: Vec<Edit>,
}

impl<'a> Editor<'a> {
    pub fn new(text: &'a str, layout: &'a Layout) -> Self {
        let json = matches!(&layout.root, Some(root) if root.is_flow())
            && serde_json::from_str::<serde::de::IgnoredAny>(text.trim_start_matches('\u{feff}'))
                .is_ok();
        Self {
            text,
            layout,
            eol: layout::line_break(text),
            json,
            edits: Vec::new(),
        }
    }

    /// Inserts `lines` (each ended by `\n`, written with the text's line
    /// break) at `at`, a line start, or the end of a text whose last line
    /// has no break (one is written first).
    pub fn insert_lines(&mut self, at: usize, lines: &str) {
        // Never before a byte-order mark: it may only start the text.
        let at = if at == 0 && self.text.starts_with('\u{feff}') {
            3
        } else {
            at
        };
        let mut text = String::new();
        if at == self.text.len() && !self.text.is_empty() && !self.text.ends_with(['\n', '\r']) {
            text.push_str(self.eol);
        }
        text.push_str(&self.breaks(lines));
        self.edits.push(Edit {
            at,
            remove: 0,
            text,
        });
    }

    /// Replaces the line starting at `at` (up to and with its break) with
    /// `lines`.
    pub fn replace_line(&mut self, at: usize, lines: &str) {
        let end = layout::next_line(self.text, at);
        let mut text = self.breaks(lines);
        if end == self.text.len() && !self.text.ends_with(['\n', '\r']) {
            // The last line had no break: neither has its replacement.
            text.truncate(text.len() - self.eol.len());
        }
        self.edits.push(Edit {
            at,
            remove: end - at,
            text,
        });
    }

    /// Writes `entry` as the last entry of the flow collection `node`.
    pub fn flow_entry(&mut self, node: &Shape, entry: &str) {
        let empty = node.content_end() == node.span.offset + 1;
        let text = if empty {
            entry.to_owned()
        } else {
            format!(", {entry}")
        };
        self.edits.push(Edit {
            at: node.content_end(),
            remove: 0,
            text,
        });
    }

    /// Writes comment lines (`# …` each, without the `#`) above the line
    /// the flow collection `top` starts on, at that line's indentation; in
    /// JSON, nothing.
    pub fn comments_above(&mut self, top: &Shape, comments: &[String]) {
        if self.json || comments.is_empty() {
            return;
        }
        let mut at = layout::line_start(self.text, top.span.offset);
        while at > 0 && self.layout.inside_atom(at) {
            at = layout::line_start(self.text, at - 1);
        }
        if self.text[at..].starts_with('\u{feff}') {
            at += 3;
        }
        let line = &self.text[at..];
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        let mut lines = String::new();
        for comment in comments {
            lines.push_str(indent);
            lines.push_str("# ");
            lines.push_str(&super::super::writer::comment(comment));
            lines.push('\n');
        }
        self.edits.push(Edit {
            at,
            remove: 0,
            text: self.breaks(&lines),
        });
    }

    /// Where lines go after the block node `node` whose key (or item) is
    /// at column `owner`: the start of the line after its last node, moved
    /// past the comment lines right after it that are indented deeper than
    /// `owner` (commented-out keys belong to the block above them).
    pub fn after_block(&self, node: &Shape, owner: usize) -> usize {
        let text = self.text;
        let end = node.span.end();
        let starts_line = end == 0 || text[..end].ends_with(['\n', '\r']);
        let mut at = if starts_line {
            end
        } else {
            layout::next_line(text, end)
        };
        let mut point = at;
        while at < text.len() {
            let next = layout::next_line(text, at);
            if text[at..next].trim().is_empty() {
                at = next;
                continue;
            }
            match self.layout.comment_line(text, at) {
                Some(comment) if layout::column(text, comment.offset) > owner => {
                    at = next;
                    point = next;
                }
                _ => break,
            }
        }
        point
    }

    /// The column of `offset`.
    pub fn column(&self, offset: usize) -> usize {
        layout::column(self.text, offset)
    }

    /// The edits, sorted by place (stable: edits at one place stay in the
    /// order made).
    pub fn finish(mut self) -> Vec<Edit> {
        self.edits.sort_by_key(|e| e.at);
        self.edits
    }

    /// `\n` written as the text's line break.
    fn breaks(&self, lines: &str) -> String {
        if self.eol == "\n" {
            lines.to_owned()
        } else {
            lines.replace('\n', self.eol)
        }
    }
}

/// The text with the edits made, or `None` when two overlap (a bug: the
/// merge refuses then).
pub(super) fn apply(text: &str, edits: &[Edit]) -> Option<String> {
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    for edit in edits {
        if edit.at < at || edit.at + edit.remove > text.len() {
            return None;
        }
        out.push_str(&text[at..edit.at]);
        out.push_str(&edit.text);
        at = edit.at + edit.remove;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// The place in the model text of `offset` in the merged text: inside an
/// inserted text, where it was inserted.
pub(super) fn original_offset(edits: &[Edit], offset: usize) -> usize {
    let mut shift: isize = 0;
    for edit in edits {
        let start = edit.at.saturating_add_signed(shift);
        if offset < start {
            break;
        }
        if offset < start + edit.text.len() {
            return edit.at;
        }
        shift += edit.text.len().cast_signed() - edit.remove.cast_signed();
    }
    offset.saturating_add_signed(-shift)
}
