//! Text to a spanned YAML tree. This is the only file that knows the YAML crate:
//! everything after it works on [`Node`], whose every value carries the byte
//! span of its source text, so any later error can underline it.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

use super::error::Problem;
use super::span::Span;

/// A YAML value with the span of the text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the value is.
    pub value: Value,
    /// Where it is in the source (for block collections, the first token).
    pub span: Span,
}

/// The shape of a YAML value. Scalars keep their resolved value; the source
/// text is always available through the span.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `~`, `null` or an empty value.
    Null,
    /// `true` or `false` (YAML 1.2: `yes` and `no` are strings).
    Bool(bool),
    /// An integer that fits in `i128`.
    Int(i128),
    /// A floating-point number, possibly non-finite.
    Float(f64),
    /// A string, with quotes and escapes resolved.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, duplicates kept (validation reports them).
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// The kind of value, as error messages name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "nothing",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

/// The largest text read in one pass (a model, a manifest, a baseline), in
/// bytes. Real models are a few kilobytes; the cap keeps a stray
/// multi-gigabyte file from exhausting memory while leaving room for
/// generated models of 200,000 components (about 61 MiB): reading in one
/// pass holds the whole tree, about 26 bytes per byte of text.
pub const MAX_MODEL_BYTES: usize = 64 * 1024 * 1024;

/// The largest model read in pieces (`model::parse` of a text laid out as
/// one column-0 `components:` mapping with one entry per line at one
/// indentation; see `model::chunks`), in bytes: 1,000,000 components of
/// the benchmark generator are 321 MB (306 MiB). Memory stays bounded: a
/// valid model is built piece by piece and `check` peaks at about 12 bytes
/// per byte of text (3.82 GB at 1M components; the analyzers' share is
/// half of it), so at most about 4.1 GB under this cap; an invalid one is
/// read with its raw entries whole, to report every problem located, at
/// about 14 bytes per byte, so at most about 4.8 GB (docs/performance.md).
/// A larger text, or one over [`MAX_MODEL_BYTES`] not laid out so, is
/// refused.
pub const MAX_LARGE_MODEL_BYTES: usize = 320 * 1024 * 1024;

/// The deepest nesting of lists and mappings read: a model nests a few
/// levels; the bound keeps a runaway `[[[[…` from exhausting the stack.
pub const MAX_DEPTH: usize = 64;

/// Parses YAML text into a spanned tree.
///
/// # Errors
/// A [`Problem`] pointing at the syntax error, or at the start of the file
/// when the text is too large.
pub fn parse(text: &str) -> Result<Node, Problem> {
    if text.len() > MAX_MODEL_BYTES {
        return Err(Problem::too_large(text.len()));
    }
    if let Some(root) = from_events(text) {
        return Ok(root);
    }
    match serde_saphyr::from_str_with_options::<serde_saphyr::Spanned<Value>>(text, options()) {
        Ok(root) => Ok(node(root)),
        Err(err) => Err(syntax_problem(text, &err)),
    }
}

/// Parses a stream of YAML documents (separated by `---`) into spanned
/// trees, in source order. Empty and null documents are left out, so a file
/// of comments only gives no document. Spans are offsets into the whole text.
///
/// # Errors
/// A [`Problem`] pointing at the first syntax error in any document, or at
/// the start of the text when it is too large.
pub fn parse_documents(text: &str) -> Result<Vec<Node>, Problem> {
    if text.len() > MAX_MODEL_BYTES {
        return Err(Problem::input_too_large(text.len()));
    }
    match serde_saphyr::from_multiple_with_options::<serde_saphyr::Spanned<Value>>(text, options())
    {
        Ok(documents) => Ok(documents.into_iter().map(node).collect()),
        Err(err) => Err(syntax_problem(text, &err)),
    }
}

/// Builds the tree straight from the parser's events, about three times
/// faster than the deserializer's `Spanned<Value>` (no serde visitor and no
/// location wrapper per value). It reads the plain subset models are written
/// in: one document of mappings, sequences and scalars. `None` hands the text
/// to the deserializer, which then reads it (or reports its problem) exactly
/// as before: a syntax error, anchors and aliases (so the alias limits stay
/// the deserializer's), tags, merge keys (`<<`), a second document, nesting
/// within one level of [`MAX_DEPTH`], more values than the deserializer's
/// node budget, and plain scalars whose type needs its full resolver (radix
/// and signed numbers, exponents, leading zeros, `.inf`). The size cap is
/// checked before; duplicate keys are kept in order, as the deserializer's
/// pass-through policy does. Spans are the events' byte ranges, which is
/// where the deserializer's locations come from too
/// (`tests::events_and_deserializer_build_the_same_tree` compares them).
fn from_events(text: &str) -> Option<Node> {
    part_from_events(text, 0, 0).map(|(root, _)| root)
}

/// The tree of `part`, a piece of the model text starting at byte `base`
/// (spans are offsets into the whole text) and nested `depth` levels deep
/// in it, with its number of values; `None` as for [`from_events`]. A piece
/// (`base` or `depth` not zero) must not start a document with `---` or a
/// directive: only the whole text may.
pub(super) fn part_from_events(part: &str, base: usize, depth: usize) -> Option<(Node, usize)> {
    use serde_saphyr::granit_parser::{Event, Options, Parser};
    let mut options = Options::default();
    options.set_emit_comments(false);
    let whole = base == 0 && depth == 0;
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Node> = None;
    let mut nodes = 0usize;
    for item in Parser::new_from_str_with_options(part, options) {
        let (event, at) = item.ok()?;
        let start = at.start.byte_offset()?;
        let span = Span::new(start + base, at.end.byte_offset()?.checked_sub(start)?);
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(explicit, version)
                if root.is_none() && (whole || (!explicit && version.is_none())) =>
            {
                continue;
            }
            Event::Scalar(value, style, 0, None) => Node {
                value: scalar(value, style)?,
                span,
            },
            Event::SequenceStart(_, 0, None) | Event::MappingStart(_, 0, None)
                if depth + stack.len() + 1 < MAX_DEPTH =>
            {
                let map = matches!(event, Event::MappingStart(..));
                stack.push(Frame {
                    span,
                    items: Vec::new(),
                    entries: Vec::new(),
                    key: None,
                    map,
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => stack.pop()?.into_node()?,
            _ => return None,
        };
        nodes += 1;
        if nodes > MAX_NODES {
            return None;
        }
        match stack.last_mut() {
            None if root.is_none() => root = Some(node),
            None => return None,
            Some(frame) if !frame.map => frame.items.push(node),
            Some(frame) => match frame.key.take() {
                None => frame.key = Some(node),
                Some(key) => frame.entries.push((key, node)),
            },
        }
    }
    Some((root?, nodes))
}

/// The layout of `text` as the parser reads it (see [`super::layout`]):
/// collections with their style and extent, scalars and aliases with their
/// spans, anchors noted, nothing expanded.
///
/// # Errors
/// A [`Problem`] at the syntax error, at nesting past [`MAX_DEPTH`], or for
/// a text of more than one document (a model is one).
pub fn layout(text: &str) -> Result<super::layout::Layout, Problem> {
    use serde_saphyr::granit_parser::{Event, Options, Parser, StructureStyle};
    if text.len() > MAX_LARGE_MODEL_BYTES {
        return Err(Problem::too_large(text.len()));
    }
    let mut options = Options::default();
    options.set_emit_comments(false);
    let mut build = LayoutBuilder {
        text,
        stack: Vec::new(),
        root: None,
        atoms: Vec::new(),
        aliased: std::collections::HashSet::new(),
    };
    for item in Parser::new_from_str_with_options(text, options) {
        let (event, at) = item.map_err(|err| {
            let at = err.marker().index();
            Problem::syntax(&err.info().clone(), Span::new(at, 0).widen_to_token(text))
        })?;
        let start = at.start.byte_offset().unwrap_or(0);
        let end = at.end.byte_offset().unwrap_or(start).max(start);
        let shape = match event {
            Event::Scalar(value, style, anchor, _) => {
                build.scalar(value.into_owned(), style, anchor, start, end)
            }
            Event::Alias(id) => build.alias(id, start, end),
            Event::MappingStart(style, anchor, _) | Event::SequenceStart(style, anchor, _) => {
                let map = matches!(event, Event::MappingStart(..));
                build.open(map, style == StructureStyle::Flow, anchor, start, end)?;
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match build.close(end) {
                Some(shape) => shape,
                None => continue,
            },
            Event::DocumentStart(..) if build.root.is_some() => {
                return Err(Problem::syntax(
                    "the file holds more than one YAML document (a second `---` line)",
                    Span::new(start, end - start).widen_to_token(text),
                ));
            }
            _ => continue,
        };
        build.push(shape);
    }
    let mut layout = super::layout::Layout {
        root: build.root,
        atoms: build.atoms,
    };
    layout.mark_aliased(&build.aliased);
    Ok(layout)
}

/// The layout being read from the parser's events (see [`layout`]).
struct LayoutBuilder<'a> {
    text: &'a str,
    /// The collections open, outermost first.
    stack: Vec<Open>,
    root: Option<super::layout::Shape>,
    atoms: Vec<Span>,
    /// The anchors an alias repeats.
    aliased: std::collections::HashSet<usize>,
}

/// A collection being read.
struct Open {
    start: usize,
    anchor: usize,
    map: bool,
    flow: bool,
    items: Vec<super::layout::Shape>,
    key: Option<super::layout::Shape>,
    entries: Vec<(super::layout::Shape, super::layout::Shape)>,
}

impl LayoutBuilder<'_> {
    fn scalar(
        &mut self,
        value: String,
        style: serde_saphyr::granit_parser::ScalarStyle,
        anchor: usize,
        start: usize,
        end: usize,
    ) -> super::layout::Shape {
        use serde_saphyr::granit_parser::ScalarStyle;
        let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
        let text = self.text;
        // A block scalar's span runs to the next token, over the
        // indentation of its line: it ends after its last break.
        let end = match text[start..end].rfind(['\n', '\r']) {
            Some(at)
                if block
                    && text[start + at + 1..end]
                        .trim_matches([' ', '\t'])
                        .is_empty() =>
            {
                start + at + 1
            }
            _ => end,
        };
        self.atoms.push(Span::new(start, end - start));
        super::layout::Shape {
            span: Span::new(start, end - start),
            anchored: false,
            anchor,
            kind: super::layout::Kind::Scalar { value, block },
        }
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> super::layout::Shape {
        self.atoms.push(Span::new(start, end - start));
        self.aliased.insert(id);
        super::layout::Shape {
            span: Span::new(start, end - start),
            anchored: false,
            anchor: 0,
            kind: super::layout::Kind::Alias,
        }
    }

    fn open(
        &mut self,
        map: bool,
        flow: bool,
        anchor: usize,
        start: usize,
        end: usize,
    ) -> Result<(), Problem> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Problem::syntax(
                &format!("lists and mappings are nested more than {MAX_DEPTH} levels deep here"),
                Span::new(start, end - start).widen_to_token(self.text),
            ));
        }
        self.stack.push(Open {
            // A sequence indented no deeper than its key starts at its
            // first item's text: its `-` is what takes a column.
            start: if map || flow {
                start
            } else {
                dash_before(self.text, start)
            },
            anchor,
            map,
            flow,
            items: Vec::new(),
            key: None,
            entries: Vec::new(),
        });
        Ok(())
    }

    /// The collection that ends at `end` (a flow collection's closing
    /// bracket; a block one ends with its last node).
    fn close(&mut self, end: usize) -> Option<super::layout::Shape> {
        use super::layout::Kind;
        let open = self.stack.pop()?;
        let last = if open.map {
            open.entries
                .iter()
                .map(|(k, v)| k.span.end().max(v.span.end()))
                .max()
        } else {
            open.items.iter().map(|i| i.span.end()).max()
        };
        let close = if open.flow {
            end
        } else {
            last.unwrap_or(open.start)
        };
        let kind = if open.map {
            Kind::Map {
                flow: open.flow,
                entries: open.entries,
            }
        } else {
            Kind::Seq {
                flow: open.flow,
                items: open.items,
            }
        };
        Some(super::layout::Shape {
            span: Span::new(open.start, close.max(open.start) - open.start),
            anchored: false,
            anchor: open.anchor,
            kind,
        })
    }

    /// `shape` into the collection open around it (or as the root).
    fn push(&mut self, shape: super::layout::Shape) {
        match self.stack.last_mut() {
            None => self.root = Some(shape),
            Some(open) if !open.map => open.items.push(shape),
            Some(open) => match open.key.take() {
                None => open.key = Some(shape),
                Some(key) => open.entries.push((key, shape)),
            },
        }
    }
}

/// The `-` that opens the block sequence item at `at` (`at` itself when it
/// is one, else the last `-` before it on its line past blanks).
fn dash_before(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(at) == Some(&b'-') {
        return at;
    }
    let mut i = at;
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    if i > 0 && bytes[i - 1] == b'-' {
        i - 1
    } else {
        at
    }
}

/// The deserializer's node budget (see [`options`]).
pub(super) const MAX_NODES: usize = MAX_MODEL_BYTES / 2;

/// A collection being read from the events.
struct Frame {
    span: Span,
    items: Vec<Node>,
    entries: Vec<(Node, Node)>,
    key: Option<Node>,
    map: bool,
}

impl Frame {
    fn into_node(self) -> Option<Node> {
        if self.key.is_some() {
            return None;
        }
        let value = if self.map {
            Value::Map(self.entries)
        } else {
            Value::Seq(self.items)
        };
        Some(Node {
            value,
            span: self.span,
        })
    }
}

/// A scalar's value as the deserializer resolves it for an untyped value
/// (YAML 1.2 core schema with strict booleans), or `None` for the spellings
/// left to the deserializer. Quoted and block scalars are strings; plain
/// ones are null, a boolean, a decimal integer or float, or a string when no
/// number can be read from them (a character that no integer or float
/// spelling has, such as the unit of `30s`).
fn scalar(
    value: std::borrow::Cow<'_, str>,
    style: serde_saphyr::granit_parser::ScalarStyle,
) -> Option<Value> {
    if style != serde_saphyr::granit_parser::ScalarStyle::Plain {
        return Some(Value::Str(value.into_owned()));
    }
    let text = value.as_ref();
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        "<<" => return None,
        _ if text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) => {
            number(text)?
        }
        // Letters first: never a number (`inf` and `nan` are read as
        // strings by the deserializer too), so a string.
        _ => Value::Str(value.into_owned()),
    })
}

/// A plain scalar that starts like a number: `-?digits` is an integer,
/// `-?digits.digits` a float, text with a character no number spelling has a
/// string; `None` for the rest.
fn number(text: &str) -> Option<Value> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let decimal = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
    };
    if decimal(unsigned) {
        return text.parse::<i64>().ok().map(|v| Value::Int(i128::from(v)));
    }
    if let Some((whole, fraction)) = unsigned.split_once('.')
        && decimal(whole)
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return text.parse::<f64>().ok().map(Value::Float);
    }
    let numeric = |b: u8| b.is_ascii_hexdigit() || b"xXoObB._+-".contains(&b);
    if text.bytes().all(numeric) {
        return None;
    }
    Some(Value::Str(text.to_owned()))
}

/// The parser's options, the same for a model and for a stream of documents.
fn options() -> serde_saphyr::Options {
    // The parser's default budget (250,000 nodes) is sized for configuration
    // files; a model of 100,000 components has about 2.5 million nodes. The
    // alias limits stay at their defaults, which stop "billion laughs".
    // Documents: a Kubernetes dump holds tens of thousands; the size cap
    // bounds them (a document takes at least `---` and a line break).
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: MAX_MODEL_BYTES / 2,
            max_events: MAX_MODEL_BYTES,
            max_documents: MAX_MODEL_BYTES / 4,
            max_depth: MAX_DEPTH,
        },
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::PassThrough,
        non_finite_float_policy: serde_saphyr::options::NonFiniteFloatPolicy::AsString,
        strict_booleans: true,
    }
}

/// Locations from a string source always carry byte offsets (the crate
/// documents it); the start of the file is the fallback should one not.
fn node(spanned: serde_saphyr::Spanned<Value>) -> Node {
    let location = spanned.referenced;
    let span = location.span();
    let span = match (span.byte_offset(), span.byte_len()) {
        (Some(offset), Some(len)) => Span::new(to_usize(offset), to_usize(len)),
        _ => Span::new(0, 0),
    };
    Node {
        value: spanned.value,
        span,
    }
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

fn syntax_problem(text: &str, err: &serde_saphyr::Error) -> Problem {
    let span = err.location().map_or(Span::new(0, 0), |loc| {
        Span::at_line_column(text, to_usize(loc.line()), to_usize(loc.column()))
    });
    let span = span.widen_to_token(text);
    if let Some((message, help)) = limit_message(err) {
        let mut problem = Problem::syntax(&message, span);
        problem.help = Some(help);
        return problem;
    }
    Problem::syntax(&parser_sentence(&err.without_snippet().to_string()), span)
}

/// The parser's own limits, as sentences about the user's file (its
/// messages name its internals: `budget breached: Depth { depth: 65 }`,
/// `use from_str_multiple`). The crate words them as
/// `budget breached: <Limit> { … }`, whichever error wraps them.
fn limit_message(err: &serde_saphyr::Error) -> Option<(String, String)> {
    let text = err.without_snippet().to_string();
    if text.contains("multiple YAML documents") || text.contains("multiple documents") {
        return Some((
            "the file holds more than one YAML document (a second `---` line)".to_owned(),
            "a model is one document: remove the `---` line, or split the file in two".to_owned(),
        ));
    }
    let (_, breach) = text.split_once("budget breached: ")?;
    let limit: String = breach
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    Some(match limit.as_str() {
        "Depth" => (
            format!("lists and mappings are nested more than {MAX_DEPTH} levels deep here"),
            "a model nests a few levels: check for an unclosed `[` or `{`, or indentation that keeps growing".to_owned(),
        ),
        "Documents" => (
            "the file holds more YAML documents than nines reads".to_owned(),
            "split the documents over several files".to_owned(),
        ),
        "Aliases" | "Anchors" | "AliasAnchorRatio" | "RecordedAnchorEvents" | "RecordedAnchorBytes" => (
            "the file repeats anchored values (`&name` … `*name`) more than nines expands".to_owned(),
            "write the values out instead of repeating them through aliases".to_owned(),
        ),
        _ => (
            "the file holds more YAML values than nines reads".to_owned(),
            "a model describes components, not data: check that this is the right file".to_owned(),
        ),
    })
}

/// The parser's message without the locations it adds (the diagnostic
/// shows the place): a `line L column C: ` prefix, ` at line L, column C`
/// suffixes and `(defined at …)` / `(used at …)` notes about aliases.
fn parser_sentence(message: &str) -> String {
    let mut message = message.trim();
    // The crate prefixes "line L column C: "; the diagnostic shows that already.
    if let Some((head, rest)) = message.split_once(": ")
        && (head.starts_with("line ") || head.starts_with("error: line "))
    {
        message = rest.trim();
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        // Notes in brackets that only give a place: `(used at line 3, column 7)`.
        if let Some(open) = rest.find(" (") {
            let after = &rest[open + 2..];
            if let Some(close) = after.find(')')
                && after[..close].contains(" at line ")
            {
                out.push_str(&rest[..open]);
                rest = &after[close + 1..];
                continue;
            }
            out.push_str(&rest[..open + 2]);
            rest = after;
            continue;
        }
        out.push_str(rest);
        break;
    }
    if let Some(at) = out.rfind(" at line ") {
        out.truncate(at);
    }
    out.trim().to_owned()
}

/// Rebuilds serde's view of a value into the spanned tree. Children come in
/// through `serde_saphyr::Spanned`, which is how the crate hands out locations.
struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(i128::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(i128::from(v)))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(i128::try_from(v).map_or(Value::Float(f64::INFINITY), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<serde_saphyr::Spanned<Value>>()? {
            items.push(item);
        }
        Ok(Value::Seq(items.into_iter().map(node).collect()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<serde_saphyr::Spanned<Value>>()? {
            let value = map.next_value::<serde_saphyr::Spanned<Value>>()?;
            entries.push((node(key), node(value)));
        }
        Ok(Value::Map(entries))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, _data: A) -> Result<Value, A::Error> {
        Err(de::Error::custom(
            "tagged values are not part of the model format",
        ))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The deserializer's tree, for comparing with the events' one.
    fn deserialized(text: &str) -> Option<Node> {
        serde_saphyr::from_str_with_options::<serde_saphyr::Spanned<Value>>(text, options())
            .ok()
            .map(node)
    }

    /// Every `.yaml`/`.yml` file under `dir`, recursively (the example models
    /// and the fixtures the reading tests compare on).
    pub(crate) fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }

    #[test]
    fn events_and_deserializer_build_the_same_tree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        yaml_files(&root.join("models"), &mut files);
        yaml_files(&root.join("tests/fixtures"), &mut files);
        assert!(files.len() > 100, "{} fixtures", files.len());
        let mut texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        texts.push(crate::generate::microservices(400, 7));
        texts.extend(
            [
                "a: 1\nb: -2\nc: 0.5\nd: -0.25\ne: 30s\nf: ~\ng:\nh: True\ni: 'x'\nj: \"1\"\n",
                "a: 007\nb: 0x1F\nc: 1e3\nd: .inf\ne: +5\nf: 1.\ng: 99999999999999999999\n",
                "a: nan\nb: inf\nc: yes\nd: [1, {x: y}, []]\ne: {}\nf: |\n  text\na: dup\n",
                "- 1\n- - 2\n  - 3\n- k: v\n  l: 2.50\n",
                "a: &x 1\nb: *x\n<<: {c: 2}\n",
                "a: !!str 1\n",
                "",
                "# only a comment\n",
                "a: [1, 2\n",
            ]
            .map(str::to_owned),
        );
        let mut fast = 0;
        for text in &texts {
            if let Some(tree) = from_events(text) {
                fast += 1;
                assert_eq!(Some(tree), deserialized(text), "{text}");
            }
        }
        assert!(fast > 100, "the events build most trees ({fast})");
        // The generated model is read from the events, not handed over.
        assert!(from_events(&crate::generate::microservices(100, 1)).is_some());
    }

    #[test]
    fn documents_keep_spans_into_the_whole_text() {
        let text = "# c\n---\na: 1\n---\n---\nb: [x]\n";
        let documents = parse_documents(text).unwrap();
        assert_eq!(documents.len(), 2, "empty documents are left out");
        let Value::Map(pairs) = &documents[1].value else {
            panic!("not a mapping");
        };
        assert_eq!(pairs[0].0.span.text(text), "b");
        assert_eq!(parse_documents("# only a comment\n").unwrap(), Vec::new());
    }

    #[test]
    fn parser_limits_read_as_sentences_about_the_file() {
        let deep = format!(
            r"system: s
x: {}{}
",
            "[".repeat(70),
            "]".repeat(70)
        );
        let problem = parse(&deep).unwrap_err();
        assert_eq!(
            problem.message,
            "invalid YAML: lists and mappings are nested more than 64 levels deep here"
        );
        assert!(!format!("{problem:?}").contains("Depth {"));
        let two = parse(
            r"system: s
---
system: t
",
        )
        .unwrap_err();
        assert!(
            two.message.contains("more than one YAML document"),
            "{}",
            two.message
        );
        assert!(!two.message.contains("from_str"), "{}", two.message);
    }

    #[test]
    fn thousands_of_documents_are_read() {
        let text = "---\nn: 1\n".repeat(5_000);
        assert_eq!(parse_documents(&text).unwrap().len(), 5_000);
    }

    #[test]
    fn location_notes_are_removed_whole() {
        assert_eq!(
            parser_sentence(
                "line 3 column 7: invalid u16 (defined at line 1, column 10) (used at line 3, column 7)"
            ),
            "invalid u16"
        );
        assert_eq!(
            parser_sentence("bad (a note) at line 2, column 1"),
            "bad (a note)"
        );
    }

    #[test]
    fn a_syntax_error_in_a_later_document_is_located() {
        let text = "a: 1\n---\nb: [x\n";
        let problem = parse_documents(text).unwrap_err();
        assert_eq!(problem.code, "model::yaml");
        assert_eq!(problem.span.line_column(text).0, 3);
    }
}
