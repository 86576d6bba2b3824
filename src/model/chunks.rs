//! Reading a large model in pieces, in parallel, each piece decoded and
//! freed as soon as it is read. The YAML parser is serial, and on a model
//! of 100,000 components reading is the largest serial part of `check`. A
//! model is almost all `components:`, one entry per component, each
//! beginning on a line of its own at the same indentation, so the text is
//! cut at those lines: the text before the components (with `components:`
//! itself), pieces of about [`CHUNK_BYTES`] holding whole components, and
//! the top-level keys after them. Each piece is read from the parser's
//! events (spans into the whole text), its components decoded into raw
//! components, and its tree dropped, all on the thread that read it: the
//! whole tree never exists, and each thread frees what it allocated (a
//! tree built on one thread and freed later left the system allocator's
//! arenas of the pool's threads full of freed values, and the availability
//! work that runs there next 30% slower).
//!
//! A piece begins at a line the parser reads as a key of the components
//! mapping, or reading the piece before it fails (an unclosed quote or
//! bracket, a block that does not end): any piece that the event builder
//! cannot read, that is not a mapping, or that starts a document, hands the
//! whole text back to the one-pass reader, which then reads it (or reports
//! its problem) exactly as before. The depth and node limits are counted
//! as in one pass, and the entries' problems are merged in source order
//! (`tests::pieces_give_the_model_and_problems_of_one_pass` checks the
//! result equals one pass on every model and fixture).
//!
//! The components are then built piece by piece too (`validate::read`,
//! through [`layout`], [`read_around`], [`read_pieces`] and
//! [`map_pieces`]), so the raw entries never exist whole either: when the
//! entries' lines give their names, in one pass that builds each piece's
//! components as it is read and collects every problem; otherwise (an
//! entry that does not read, a name written twice or not plain) in two,
//! the first taking each entry's name, whether it reads and its own
//! problems, the second building the components. A model over
//! `load::MAX_MODEL_BYTES` (up to `load::MAX_LARGE_MODEL_BYTES`) is read
//! only this way; the cuts are computed once (`model::parse`).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::decode::{Decoded, decode_entry};
use super::error::Problem;
use super::load::{MAX_LARGE_MODEL_BYTES, Node, Value, part_from_events};
use super::raw::RawComponent;
use super::span::Span;

/// The size of a piece; a text under twice this size is read in one pass.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// The most values a text read in pieces may hold (the one-pass reader's
/// budget, `load::MAX_NODES`, scaled to the larger cap).
pub(super) const MAX_NODES: usize = MAX_LARGE_MODEL_BYTES / 2;

/// Where the text is cut.
pub(super) struct Cuts {
    /// Where the components' entries begin (after the `components:` line).
    body: usize,
    /// Where each piece of the entries begins, the first at `body`.
    pieces: Vec<usize>,
    /// Where the entries end (the next top-level key, or the end).
    end: usize,
    /// The span of each entry's name as its line reads, when every one is
    /// a plain name followed by `:` (what the parser must then confirm).
    keys: Option<Vec<Span>>,
    /// The index in `keys` of each piece's first entry.
    firsts: Vec<usize>,
}

impl Cuts {
    /// Where each piece of the entries begins and ends, in order.
    fn piece_ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let ends = self.pieces.iter().skip(1).copied().chain([self.end]);
        self.pieces.iter().copied().zip(ends)
    }

    /// The spans of the entries' names, when every one is plain.
    pub(super) fn keys(&self) -> Option<&[Span]> {
        self.keys.as_deref()
    }

    /// Where the first piece begins (the line after `components:`).
    pub(super) fn start(&self) -> usize {
        self.pieces[0]
    }

    /// How many pieces the entries are cut into.
    pub(super) fn count(&self) -> usize {
        self.pieces.len()
    }
}

/// What one part of the text gave.
enum Part {
    /// The text before or after the components: its tree and value count.
    Around(Node, usize),
    /// A piece of the components: its mapping's span, its entries and its
    /// value count.
    Entries(Span, Vec<Decoded<RawComponent>>, usize),
}

/// The first YAML syntax error of a text that is cut into pieces but could
/// not be read in them, located in the whole text: each part (the text
/// before the components, each piece of entries, the text after) is parsed
/// on its own, so no more than one piece is held at a time, and the first
/// part that fails gives the problem, its span moved to where the part
/// starts. `None` when every part parses (the text is then refused for its
/// layout: an alias to an anchor in another piece, say).
pub(super) fn syntax_error(text: &str, cuts: &Cuts) -> Option<Problem> {
    let mut parts = vec![(0, cuts.body)];
    parts.extend(cuts.piece_ranges());
    parts.push((cuts.end, text.len()));
    parts.into_iter().find_map(|(start, end)| {
        let mut problem = super::load::parse(&text[start..end]).err()?;
        problem.span.offset += start;
        for (span, _) in &mut problem.related {
            span.offset += start;
        }
        Some(problem)
    })
}

/// How `text` is cut into pieces of about `chunk` bytes, or `None` when it
/// is small, over the size cap, or not cut this way.
pub(super) fn layout(text: &str, chunk: usize) -> Option<Cuts> {
    if text.len() < 2 * chunk || text.len() > MAX_LARGE_MODEL_BYTES {
        return None;
    }
    cut(text, chunk)
}

/// The tree of the text around the components, with `components:` an
/// empty mapping with `span` (the entries' mapping's), and its value
/// count; `None` when it cannot be read or is not laid out as expected.
pub(super) fn read_around(text: &str, cuts: &Cuts, span: Span) -> Option<(Node, usize)> {
    let after = (!only_comments(&text[cuts.end..])).then_some((cuts.end, text.len()));
    let (before, after) = rayon::join(
        || read_part(text, 0, cuts.body, 0),
        || after.map(|(start, end)| read_part(text, start, end, 0)),
    );
    let Some(Part::Around(mut root, mut nodes)) = before else {
        return None;
    };
    let suffix = match after {
        Some(Some(part)) => Some(part),
        Some(None) => return None,
        None => None,
    };
    attach(text, cuts, &mut root, span, suffix, &mut nodes)?;
    Some((root, nodes))
}

/// Puts an empty components mapping with `span` under `components:` in
/// `root` (the text before the components) and the keys of the text after
/// them (`suffix`) after it, counting the suffix's values in `nodes`.
fn attach(
    text: &str,
    cuts: &Cuts,
    root: &mut Node,
    span: Span,
    suffix: Option<Part>,
    nodes: &mut usize,
) -> Option<()> {
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
        value: Value::Map(Vec::new()),
        span,
    };
    if let Some(suffix) = suffix {
        let Part::Around(suffix, count) = suffix else {
            return None;
        };
        let Value::Map(pairs) = suffix.value else {
            return None;
        };
        top.extend(pairs);
        *nodes += count - 1;
    }
    Some(())
}

/// What [`map_pieces`] gave: what `each` gave for every piece, in order,
/// the span of the first piece's mapping (the components mapping's, in
/// one pass) and the pieces' value count (each piece's own mapping counted
/// once, as the one components mapping is in one pass).
pub(super) struct Pieces<R> {
    pub each: Vec<R>,
    pub span: Span,
    pub nodes: usize,
}

/// Reads every piece of the components on the pool and hands its entries,
/// decoded, to `each` with the piece's index and its share of `shares`
/// (one per piece); each piece's tree and entries are dropped on the
/// thread that read them. `None` when a piece cannot be read or `each`
/// gives up (the pieces not yet started are then skipped).
pub(super) fn map_pieces<S: Send, R: Send>(
    text: &str,
    cuts: &Cuts,
    shares: Vec<S>,
    each: impl Fn(usize, Vec<Decoded<RawComponent>>, S) -> Option<R> + Sync,
) -> Option<Pieces<R>> {
    if shares.len() != cuts.pieces.len() {
        return None;
    }
    let failed = AtomicBool::new(false);
    let parts: Vec<(usize, usize)> = cuts.piece_ranges().collect();
    let read: Vec<Option<(Span, usize, R)>> = parts
        .into_par_iter()
        .zip(shares)
        .enumerate()
        .map(|(index, ((start, end), share))| {
            // Any failure gives `None` whatever the other pieces give.
            if failed.load(Ordering::Relaxed) {
                return None;
            }
            let done = match read_part(text, start, end, 1) {
                Some(Part::Entries(span, entries, count)) => {
                    each(index, entries, share).map(|r| (span, count, r))
                }
                _ => None,
            };
            if done.is_none() {
                failed.store(true, Ordering::Relaxed);
            }
            done
        })
        .collect();
    let mut out = Vec::with_capacity(read.len());
    let mut first = None;
    let mut nodes = 0;
    for part in read {
        let (span, count, r) = part?;
        first.get_or_insert(span);
        nodes += count;
        out.push(r);
    }
    let span = first?;
    Some(Pieces {
        nodes: nodes + 1 - out.len(),
        each: out,
        span,
    })
}

/// Reads every piece of the components as [`map_pieces`] does, handing
/// `each` the index of the piece's first entry and its entries' slots in
/// `out` (one per name in [`Cuts::keys`]). `None` when a piece cannot be
/// read, holds another number of entries than its lines, or `each` gives
/// up.
pub(super) fn read_pieces<C: Send, R: Send>(
    text: &str,
    cuts: &Cuts,
    out: &mut [C],
    each: impl Fn(usize, Vec<Decoded<RawComponent>>, &mut [C]) -> Option<R> + Sync,
) -> Option<Pieces<R>> {
    let slots = split_slots(out, &cuts.firsts)?;
    map_pieces(text, cuts, slots, |_, entries, (first, slot)| {
        if entries.len() != slot.len() {
            return None;
        }
        each(first, entries, slot)
    })
}

/// `out` split into one run of slots per piece, the `i`-th starting at
/// `firsts[i]`, each with its first slot's index; `None` when the runs do
/// not cover `out` exactly.
pub(super) fn split_slots<'o, C>(
    out: &'o mut [C],
    firsts: &[usize],
) -> Option<Vec<(usize, &'o mut [C])>> {
    let mut slots = Vec::with_capacity(firsts.len());
    let mut rest = out;
    let lasts = firsts.iter().skip(1).copied();
    for (&first, last) in firsts.iter().zip(lasts.chain([usize::MAX])) {
        let len = last.checked_sub(first)?.min(rest.len());
        let (slot, tail) = rest.split_at_mut(len);
        slots.push((first, slot));
        rest = tail;
    }
    rest.is_empty().then_some(slots)
}

/// Reads the part `start..end` of `text` nested `depth` levels deep: the
/// text around the components as a tree, a piece of them decoded (its
/// tree dropped here, on the thread that built it).
fn read_part(text: &str, start: usize, end: usize, depth: usize) -> Option<Part> {
    let (tree, count) = part_from_events(&text[start..end], start, depth)?;
    if depth == 0 {
        return Some(Part::Around(tree, count));
    }
    let Value::Map(pairs) = &tree.value else {
        return None;
    };
    let entries = pairs
        .iter()
        .map(|(key, value)| decode_entry(key, value, "components", text))
        .collect();
    Some(Part::Entries(tree.span, entries, count))
}

/// Where the components' entries are cut, or `None` when the text is not
/// laid out as one column-0 `components:` line followed by entries at one
/// indentation, each beginning with a name.
fn cut(text: &str, chunk: usize) -> Option<Cuts> {
    let mut body = None;
    for (_, line, next) in lines(text) {
        if let Some(rest) = line.strip_prefix("components:") {
            let rest = rest.trim_start_matches(' ');
            if body.is_some() || !(rest.is_empty() || rest.starts_with('#')) {
                return None;
            }
            body = Some(next);
        }
    }
    let body = body.filter(|&b| b <= text.len())?;
    let mut indent = None;
    let mut pieces = vec![body];
    let mut end = text.len();
    let mut keys = Some(Vec::new());
    let mut firsts = vec![0];
    let mut count = 0;
    for (at, line, _) in lines(&text[body..]) {
        let at = body + at;
        // (A carriage return ending the line is part of its break; one
        // inside it is a line break to YAML but not to this cutting.)
        if line.contains('\r') || line.trim_start_matches(' ').starts_with('\t') {
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
            firsts.push(count);
        }
        count += 1;
        let key = plain_key(content).map(|len| Span::new(at + depth, len));
        keys = keys.zip(key).map(|(mut keys, key)| {
            keys.push(key);
            keys
        });
    }
    indent.filter(|&i| i > 0)?;
    Some(Cuts {
        body,
        pieces,
        end,
        keys,
        firsts,
    })
}

/// The length of the plain name that begins `line` when a `:` and a space
/// (or the end of the line) follow it.
fn plain_key(line: &str) -> Option<usize> {
    let len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(line.len());
    let rest = line[len..].strip_prefix(':')?;
    let first = line.as_bytes().first()?;
    (first.is_ascii_alphanumeric() && (rest.is_empty() || rest.starts_with(' '))).then_some(len)
}

/// The offset of the `components:` line that ends at `body`.
fn components_line(text: &str, body: usize) -> Option<usize> {
    let before = text.get(..body.checked_sub(1)?)?;
    Some(before.rfind('\n').map_or(0, |at| at + 1))
}

/// Each line of `text` with its offset, without its line break (`\n` or
/// `\r\n`), and the offset of the next line.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str, usize)> {
    text.split_inclusive('\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        let bare = line
            .strip_suffix('\n')
            .map_or(line, |l| l.strip_suffix('\r').unwrap_or(l));
        Some((start, bare, *at))
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
    use std::fmt::Write as _;

    use super::*;
    use crate::model::{Model, error::Problem, load, validate};

    fn one_pass(text: &str) -> Result<Model, Vec<Problem>> {
        let root = load::parse(text).map_err(|p| vec![p])?;
        validate::validate(text, root)
    }

    fn in_pieces(text: &str, chunk: usize) -> Option<Result<Model, Vec<Problem>>> {
        validate::reported(text, &layout(text, chunk)?)
    }

    fn built(text: &str, chunk: usize) -> Option<Result<Model, Vec<Problem>>> {
        validate::built(text, &layout(text, chunk)?)
    }

    use crate::model::load::tests::yaml_files;

    #[test]
    fn pieces_give_the_model_and_problems_of_one_pass() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["models", "tests/fixtures"] {
            yaml_files(&root.join(dir), &mut files);
        }
        let mut texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        texts.push(crate::generate::microservices(400, 7));
        texts.push(crate::generate::layered(300, 3));
        let mut cut_up = 0;
        let mut invalid = 0;
        let mut in_one = 0;
        let mut invalid_in_one = 0;
        for text in &texts {
            // Pieces of 64 bytes: nearly every component is a piece. Read
            // in two passes (names first, then the components)…
            if let Some(result) = in_pieces(text, 64) {
                cut_up += 1;
                invalid += usize::from(result.is_err());
                assert_eq!(result, one_pass(text), "{text}");
            }
            // … and in one, the names taken from the entries' lines.
            if let Some(result) = built(text, 64) {
                in_one += 1;
                invalid_in_one += usize::from(result.is_err());
                assert_eq!(result, one_pass(text), "{text}");
            }
        }
        assert!(cut_up > 50, "most models are cut into pieces ({cut_up})");
        assert!(invalid > 10, "invalid models too ({invalid})");
        assert!(in_one > 30, "most are read in one pass ({in_one})");
        assert!(
            invalid_in_one > 10,
            "invalid ones too, when each entry reads ({invalid_in_one})"
        );
        let text = &texts[texts.len() - 2];
        let cuts = cut(text, 64).unwrap();
        assert!(cuts.pieces.len() > 300, "{}", cuts.pieces.len());
    }

    #[test]
    fn a_syntax_error_in_one_piece_is_located_in_the_whole_text() {
        let mut text = String::from("system: s\ncomponents:\n");
        for i in 0..40 {
            let _ = writeln!(text, "  c{i}: {{availability: 99.9%}}");
        }
        // Line 3 + 30 = 33 holds c30; its flow mapping is left open, so the
        // piece holding it cannot be read. The parser notices at the next
        // entry, line 34, in one pass and in the piece alike.
        let broken = text.replacen(
            "  c30: {availability: 99.9%}",
            "  c30: {availability: 99.9%",
            1,
        );
        let whole = load::parse(&broken).unwrap_err();
        let piecewise =
            syntax_error(&broken, &cut(&broken, 64).unwrap()).expect("a piece fails to parse");
        assert_eq!(piecewise.code, "model::yaml");
        assert_eq!(
            piecewise.span.line_column(&broken),
            whole.span.line_column(&broken)
        );
        assert_eq!(piecewise.span.line_column(&broken).0, 34, "{piecewise:?}");
        // Every part of the valid text parses: no syntax error to report.
        assert!(syntax_error(&text, &cut(&text, 64).unwrap()).is_none());
    }

    #[test]
    fn texts_that_pieces_would_misread_go_to_one_pass() {
        let name = "x".repeat(40);
        let entries = |n: usize| -> String {
            let mut text = String::new();
            for i in 0..n {
                let _ = writeln!(text, "  c{i}: {{availability: 99.9%, kind: {name}}}");
            }
            text
        };
        let reads = |text: &str| in_pieces(text, 64).is_some();
        // Problems in several pieces, a duplicate across pieces, and a key
        // after the components: as one pass reports them.
        let plain = format!(
            "system: s\ncomponents:\n{}  c1: {{}}\n  d: {{depends_on: [nowhere]}}\nother: 1\n",
            entries(8)
        );
        assert!(reads(&plain));
        assert_eq!(in_pieces(&plain, 64), Some(one_pass(&plain)));
        // The same with CRLF line breaks (a model written on Windows): cut
        // the same way, the same problems at the same places.
        let crlf = plain.replace('\n', "\r\n");
        assert!(reads(&crlf));
        assert_eq!(in_pieces(&crlf, 64), Some(one_pass(&crlf)));
        let valid = format!("system: s\ncomponents:\n{}", entries(8)).replace('\n', "\r\n");
        let cuts = cut(&valid, 64).unwrap();
        assert!(cuts.pieces.len() > 3, "{}", cuts.pieces.len());
        assert_eq!(built(&valid, 64), Some(one_pass(&valid)));
        // A lone carriage return inside a line is a line break to YAML,
        // not to the cutting: one pass reads it.
        let lone =
            format!("system: s\ncomponents:\n{}", entries(8)).replacen("}\n  c3", "}\r  c3", 1);
        assert!(lone.contains('\r'));
        assert!(!reads(&lone));
        let codes: Vec<&str> = one_pass(&plain)
            .unwrap_err()
            .iter()
            .map(|p| p.code)
            .collect();
        assert_eq!(
            codes,
            [
                "model::duplicate-key",
                "model::unknown-reference",
                "model::unknown-key"
            ]
        );
        // A quote left open across a cut: the piece before it cannot be read.
        let quoted = format!("system: s\ncomponents:\n  a: \"open\n{}\"\n", entries(8));
        assert!(!reads(&quoted));
        // A second document after the components.
        let second = format!("system: s\ncomponents:\n{}---\nb: 1\n", entries(8));
        assert!(!reads(&second));
        // An alias into another piece (the one-pass reader hands aliases over).
        let alias = format!(
            "system: s\ncomponents:\n  a: &x {{}}\n{}  b: *x\n",
            entries(8)
        );
        assert!(!reads(&alias));
        // Entries at a smaller indentation than the first one.
        let ragged = format!("system: s\ncomponents:\n    a: {{}}\n{}", entries(8));
        assert!(!reads(&ragged));
        // Two `components:` keys: validation reports the duplicate.
        let twice = format!("components:\n{}components:\n{}", entries(4), entries(4));
        assert!(!reads(&twice));
        // A flow mapping for the components.
        assert!(!reads(&format!(
            "system: s\ncomponents: {{}}\n{}",
            "#\n".repeat(80)
        )));
        // Nested within one level of the depth limit: the event builder hands
        // it over in pieces as in one pass, and the deserializer reads it.
        let deep = format!(
            "system: s\ncomponents:\n{}  z: {}{}\n",
            entries(8),
            "[".repeat(62),
            "]".repeat(62)
        );
        assert!(!reads(&deep));
        assert!(load::parse(&deep).is_ok());
    }
}
