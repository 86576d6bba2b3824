//! Reading a large model in pieces, in parallel. The YAML parser is serial,
//! and on a model of 100,000 components reading is the largest serial part
//! of `check`. A model is almost all `components:`, one entry per
//! component, each beginning on a line of its own at the same indentation,
//! so the text is cut at those lines: the text before the components (with
//! `components:` itself), pieces of about [`CHUNK_BYTES`] holding whole
//! components, and the top-level keys after them. Each piece is read from
//! the parser's events on its own thread, with spans into the whole text,
//! and the trees are joined into the one the whole text gives.
//!
//! A piece begins at a line the parser reads as a key of the components
//! mapping, or reading the piece before it fails (an unclosed quote or
//! bracket, a block that does not end): any piece that the event builder
//! cannot read, that is not a mapping, or that starts a document, hands the
//! whole text back to the one-pass reader, which then reads it (or reports
//! its problem) exactly as before. The depth and node limits are counted
//! as in one pass (`tests::pieces_build_the_same_tree_as_one_pass` checks
//! the trees are equal, spans included, on every model and fixture).

use rayon::prelude::*;

use super::load::{MAX_NODES, Node, Value, part_from_events};

/// The size of a piece; a text under twice this size is read in one pass.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// Where the text is cut.
struct Cuts {
    /// Where the components' entries begin (after the `components:` line).
    body: usize,
    /// Where each piece of the entries begins, the first at `body`.
    pieces: Vec<usize>,
    /// Where the entries end (the next top-level key, or the end).
    end: usize,
}

/// The tree of `text` read in pieces of about `chunk` bytes, or `None` when
/// the text is small or not cut this way (the caller reads it in one pass).
pub(super) fn from_chunks(text: &str, chunk: usize) -> Option<Node> {
    if text.len() < 2 * chunk {
        return None;
    }
    let cuts = cut(text, chunk)?;
    // (start, end, depth): the text before, the pieces, the text after.
    let mut parts = vec![(0, cuts.body, 0)];
    let ends = cuts.pieces.iter().skip(1).copied().chain([cuts.end]);
    parts.extend(cuts.pieces.iter().zip(ends).map(|(&s, e)| (s, e, 1)));
    let after = !only_comments(&text[cuts.end..]);
    if after {
        parts.push((cuts.end, text.len(), 0));
    }
    let trees: Vec<Option<(Node, usize)>> = parts
        .par_iter()
        .map(|&(start, end, depth)| part_from_events(&text[start..end], start, depth))
        .collect();
    let mut trees = trees.into_iter().collect::<Option<Vec<_>>>()?.into_iter();
    let (mut root, mut nodes) = trees.next()?;
    let suffix = if after { trees.next_back() } else { None };
    let mut entries = Vec::new();
    let mut span = None;
    for (piece, count) in trees {
        let Value::Map(pairs) = piece.value else {
            return None;
        };
        span.get_or_insert(piece.span);
        entries.extend(pairs);
        // The piece's own mapping stands for the one components mapping,
        // counted in the text before as `components:`'s empty value.
        nodes += count - 1;
    }
    let Value::Map(top) = &mut root.value else {
        return None;
    };
    let (key, value) = top.last_mut()?;
    if key.value != Value::Str("components".to_owned())
        || key.span.offset != components_line(text, cuts.body)?
        || value.value != Value::Null
    {
        return None;
    }
    *value = Node {
        value: Value::Map(entries),
        span: span?,
    };
    if let Some((suffix, count)) = suffix {
        let Value::Map(pairs) = suffix.value else {
            return None;
        };
        top.extend(pairs);
        nodes += count - 1;
    }
    (nodes <= MAX_NODES).then_some(root)
}

/// Where the components' entries are cut, or `None` when the text is not
/// laid out as one column-0 `components:` line followed by entries at one
/// indentation, each beginning with a name.
fn cut(text: &str, chunk: usize) -> Option<Cuts> {
    let mut body = None;
    for (at, line) in lines(text) {
        if let Some(rest) = line.strip_prefix("components:") {
            let rest = rest.trim_start_matches(' ');
            if body.is_some() || !(rest.is_empty() || rest.starts_with('#')) {
                return None;
            }
            body = Some(at + line.len() + 1);
        }
    }
    let body = body.filter(|&b| b <= text.len())?;
    let mut indent = None;
    let mut pieces = vec![body];
    let mut end = text.len();
    for (at, line) in lines(&text[body..]) {
        let at = body + at;
        if line.ends_with('\r') || line.trim_start_matches(' ').starts_with('\t') {
            return None;
        }
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let depth = line.len() - content.len();
        let indent = *indent.get_or_insert(depth);
        if depth == 0 {
            end = at;
            break;
        }
        if depth > indent {
            continue;
        }
        let starts_a_name = content
            .starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '"' | '\''));
        if depth < indent || !starts_a_name {
            return None;
        }
        if at - pieces.last().copied().unwrap_or(body) >= chunk {
            pieces.push(at);
        }
    }
    indent.filter(|&i| i > 0)?;
    Some(Cuts { body, pieces, end })
}

/// The offset of the `components:` line that ends at `body`.
fn components_line(text: &str, body: usize) -> Option<usize> {
    let before = text.get(..body.checked_sub(1)?)?;
    Some(before.rfind('\n').map_or(0, |at| at + 1))
}

/// Each line of `text` with its offset, without its line break.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line.strip_suffix('\n').unwrap_or(line)))
    })
}

/// Whether `text` holds only blank lines and comments.
fn only_comments(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim_start_matches(' ');
        line.is_empty() || line.starts_with('#')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_pass(text: &str) -> Option<Node> {
        part_from_events(text, 0, 0).map(|(root, _)| root)
    }

    #[test]
    fn pieces_build_the_same_tree_as_one_pass() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["models", "tests/fixtures"] {
            super::super::load::tests::yaml_files(&root.join(dir), &mut files);
        }
        let mut texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        texts.push(crate::generate::microservices(400, 7));
        texts.push(crate::generate::layered(300, 3));
        let mut cut_up = 0;
        for text in &texts {
            // Pieces of 64 bytes: nearly every component is a piece.
            if let Some(tree) = from_chunks(text, 64) {
                cut_up += 1;
                assert_eq!(Some(tree), one_pass(text), "{text}");
            }
        }
        assert!(cut_up > 50, "most models are cut into pieces ({cut_up})");
        // The generated model is cut into many pieces.
        let text = &texts[texts.len() - 2];
        let cuts = cut(text, 64).unwrap();
        assert!(cuts.pieces.len() > 300, "{}", cuts.pieces.len());
    }

    #[test]
    fn texts_that_pieces_would_misread_go_to_one_pass() {
        let name = "x".repeat(40);
        let entries = |n: usize| -> String {
            (0..n)
                .map(|i| format!("  c{i}: {{availability: 99.9%, note: {name}}}\n"))
                .collect()
        };
        let reads = |text: &str| from_chunks(text, 64).is_some();
        let plain = format!("system: s\ncomponents:\n{}other: 1\n", entries(8));
        assert!(reads(&plain));
        assert_eq!(from_chunks(&plain, 64), one_pass(&plain));
        // A quote left open across a cut: the piece before it cannot be read.
        let quoted = format!("system: s\ncomponents:\n  a: \"open\n{}\"\n", entries(8));
        assert!(!reads(&quoted));
        // A second document after the components.
        let second = format!("system: s\ncomponents:\n{}---\nb: 1\n", entries(8));
        assert!(!reads(&second));
        // An alias into another piece (the one-pass reader hands aliases over).
        let alias = format!("system: s\ncomponents:\n  a: &x {{}}\n{}  b: *x\n", entries(8));
        assert!(!reads(&alias));
        // Entries at a smaller indentation than the first one.
        let ragged = format!("system: s\ncomponents:\n    a: {{}}\n{}", entries(8));
        assert!(!reads(&ragged));
        // Two `components:` keys: validation reports the duplicate.
        let twice = format!("components:\n{}components:\n{}", entries(4), entries(4));
        assert!(!reads(&twice));
        // A flow mapping for the components.
        assert!(!reads(&format!("system: s\ncomponents: {{}}\n{}", "#\n".repeat(80))));
        // Too deep for the depth limit within a piece, as in one pass.
        let deep = format!(
            "system: s\ncomponents:\n{}  z: {}{}\n",
            entries(8),
            "[".repeat(62),
            "]".repeat(62)
        );
        assert_eq!(from_chunks(&deep, 64), None);
        assert_eq!(one_pass(&deep), None);
    }
}
