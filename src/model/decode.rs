//! The spanned YAML tree to the raw model types of [`super::raw`]. Decoding
//! checks shapes, keys and scalar syntax (units, ranges, names), collects
//! every problem instead of stopping at the first, and keeps a span for each
//! value and key so validation and the analyses can point at them.

use super::error::{Problem, printable};
use super::load::{Node, Value};
use super::span::Span;

/// Decoding state: the source text and the problems found so far.
pub struct Cx<'a> {
    /// The model text, for reading scalars as written.
    pub text: &'a str,
    /// Every problem found so far.
    pub problems: Vec<Problem>,
}

impl<'a> Cx<'a> {
    /// A fresh context over `text`.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            problems: Vec::new(),
        }
    }

    /// Records a problem.
    pub fn report(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    /// A scalar as the user wrote it: the resolved string for strings (quotes
    /// and escapes applied), the source text for numbers and booleans, so
    /// `0x1F` stays `0x1F` and `007` stays `007`.
    #[must_use]
    pub fn scalar_text(&self, node: &Node) -> Option<String> {
        match &node.value {
            // A number too large for a float arrives as the string `.inf`:
            // show what the user wrote.
            Value::Str(s) if matches!(s.as_str(), ".inf" | "-.inf" | "+.inf") => {
                Some(node.span.text(self.text).trim().to_owned())
            }
            Value::Str(s) => Some(s.clone()),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                Some(node.span.text(self.text).trim().to_owned())
            }
            Value::Null | Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// Reports a value of the wrong type under `key` and returns `None`.
    pub fn wrong<T>(&mut self, node: &Node, key: &str, expected: &str) -> Option<T> {
        self.wrong_in(node, &format!("`{key}`"), expected)
    }

    /// Reports a value of the wrong type for `what` (already worded, such as
    /// "component `api`") and returns `None`.
    pub fn wrong_in<T>(&mut self, node: &Node, what: &str, expected: &str) -> Option<T> {
        let problem = if matches!(node.value, Value::Null) {
            Problem::empty_value(self.point(node), what)
        } else {
            Problem::wrong_type(self.point(node), what, expected, node.value.kind())
        };
        self.report(problem);
        None
    }

    /// The span to underline for a node: block collections start with a
    /// zero-length span, widened to the first token; flow collections
    /// (`{a: 1}`, `[a, b]`) cover everything up to their closing bracket.
    #[must_use]
    pub fn point(&self, node: &Node) -> Span {
        let span = node.span.widen_to_token(self.text);
        let rest = self.text.get(span.offset..).unwrap_or("");
        match (&node.value, rest.as_bytes().first()) {
            (Value::Map(_), Some(b'{')) | (Value::Seq(_), Some(b'[')) => {
                Span::new(span.offset, flow_len(rest).unwrap_or(span.len))
            }
            _ => span,
        }
    }
}

/// The length of a flow collection starting at the first byte of `text`,
/// through its matching bracket; quotes are skipped. `None` when unclosed.
fn flow_len(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// A value of the model that can be read from the spanned tree.
pub trait Decode: Sized {
    /// Whether the key may be left out.
    const OPTIONAL: bool = false;
    /// Reads the value under `key`, or reports why it cannot and returns `None`.
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self>;
}

/// A value with the span of its text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T: Decode> Decode for Spanned<T> {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let span = cx.point(node);
        T::decode(node, key, cx).map(|value| Spanned { value, span })
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Spanned<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<T: Decode> Decode for Box<T> {
    const OPTIONAL: bool = T::OPTIONAL;
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        T::decode(node, key, cx).map(Box::new)
    }
}

impl<T: Decode> Decode for Option<T> {
    const OPTIONAL: bool = true;
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        T::decode(node, key, cx).map(Some)
    }
}

impl Decode for String {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match cx.scalar_text(node) {
            Some(text) => Some(text),
            None => cx.wrong(node, key, "text"),
        }
    }
}

impl Decode for bool {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => cx.wrong(node, key, "`true` or `false`"),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let Value::Seq(items) = &node.value else {
            if let Some(text) = cx.scalar_text(node) {
                let problem = Problem::wrong_type(
                    cx.point(node),
                    &format!("`{key}`"),
                    "a list",
                    "a single value",
                );
                let mut problem = problem;
                problem.help = Some(format!(
                    "write it as a list: `{key}: [{}]`",
                    printable(&text)
                ));
                cx.report(problem);
                return None;
            }
            return cx.wrong(node, key, "a list");
        };
        Some(
            items
                .iter()
                .filter_map(|item| T::decode(item, key, cx))
                .collect(),
        )
    }
}

/// A mapping from names to entries, in source order. Entries that could not
/// be read are dropped, but their names are kept in `unreadable` so that
/// references to them do not raise a second, misleading error.
#[derive(Debug, Clone, PartialEq)]
pub struct Entries<T> {
    /// The readable entries with their names.
    pub items: Vec<(Spanned<String>, T)>,
    /// Names whose entry had an error of its own.
    pub unreadable: Vec<Spanned<String>>,
    /// Where the mapping starts.
    pub span: Span,
}

impl<T> Default for Entries<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            unreadable: Vec::new(),
            span: Span::default(),
        }
    }
}

/// Below this many entries a mapping is decoded on the calling thread.
const PARALLEL_ENTRIES: usize = 4096;

/// `each` applied to every item of `items`, in parallel when `parallel`;
/// `first` is the index of the first item. The results are appended to
/// `out` and the problems each reports added to `cx`, both in item order,
/// as one pass would add them.
pub fn map_in_order<I: Send, O: Send>(
    items: &mut [I],
    first: usize,
    parallel: bool,
    cx: &mut Cx,
    out: &mut Vec<O>,
    each: impl Fn(usize, &mut I, &mut Cx) -> O + Sync,
) {
    use rayon::prelude::*;
    if !parallel {
        for (index, item) in items.iter_mut().enumerate() {
            out.push(each(first + index, item, cx));
        }
        return;
    }
    let text = cx.text;
    let done: Vec<(O, Vec<Problem>)> = items
        .par_iter_mut()
        .enumerate()
        .map(|(index, item)| {
            let mut own = Cx::new(text);
            let result = each(first + index, item, &mut own);
            (result, own.problems)
        })
        .collect();
    for (result, problems) in done {
        cx.problems.extend(problems);
        out.push(result);
    }
}

/// Whether a mapping of `entries` entries is decoded and built in parallel.
#[must_use]
pub fn in_parallel(entries: usize) -> bool {
    entries >= PARALLEL_ENTRIES
}

/// One entry of a mapping decoded on its own: its name, the entry (when the
/// name could be read) and the problems of each, kept apart so that the
/// merge can drop the entry's problems when the name turns out a duplicate.
pub struct Decoded<T> {
    name: Option<Spanned<String>>,
    item: Option<T>,
    name_problems: Vec<Problem>,
    item_problems: Vec<Problem>,
}

impl<T> Decoded<T> {
    /// The same entry with its item, when it was read, replaced by `f` of
    /// it (the name and the problems kept).
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Decoded<U> {
        Decoded {
            name: self.name,
            item: self.item.map(f),
            name_problems: self.name_problems,
            item_problems: self.item_problems,
        }
    }

    /// The item, when it was read (whatever its problems).
    pub fn into_item(self) -> Option<T> {
        self.item
    }

    /// The entry, when it was read under the name `expected` (value and
    /// span), its problems added to `cx` as [`merge_blocks`] adds them;
    /// otherwise `None`, and nothing added.
    pub fn read_as(self, expected: &Spanned<String>, cx: &mut Cx) -> Option<T> {
        if !self.reads_as(expected) {
            return None;
        }
        cx.problems.extend(self.name_problems);
        cx.problems.extend(self.item_problems);
        self.item
    }

    /// Whether the entry was read under the name `expected` (value and
    /// span).
    pub fn reads_as(&self, expected: &Spanned<String>) -> bool {
        self.item.is_some()
            && self
                .name
                .as_ref()
                .is_some_and(|name| name.value == expected.value && name.span == expected.span)
    }

    /// An entry read under `name` whose problems are `problems` (in the
    /// order [`merge_blocks`] adds an entry's).
    pub fn read(name: Spanned<String>, item: T, problems: Vec<Problem>) -> Self {
        Decoded {
            name: Some(name),
            item: Some(item),
            name_problems: Vec::new(),
            item_problems: problems,
        }
    }
}

/// Decodes the entry `key_node: value` of the mapping under `key` on its
/// own (`text` is the whole model text).
pub fn decode_entry<T: DecodeNamed>(
    key_node: &Node,
    value: &Node,
    key: &str,
    text: &str,
) -> Decoded<T> {
    let mut cx = Cx::new(text);
    let name = Spanned::<super::units::Name>::decode(key_node, key, &mut cx).map(|name| Spanned {
        value: name.value.0,
        span: name.span,
    });
    let name_problems = std::mem::take(&mut cx.problems);
    let item = name
        .as_ref()
        .and_then(|name| T::decode_named(value, name, &mut cx));
    Decoded {
        name,
        item,
        name_problems,
        item_problems: cx.problems,
    }
}

/// Entries decoded on their own and merged: the readable entries in
/// blocks (in source order), and the names of the unreadable ones.
pub struct Merged<T> {
    /// The readable entries with their names, one block per block given.
    pub blocks: Vec<Vec<(Spanned<String>, T)>>,
    /// Names whose entry had an error of its own.
    pub unreadable: Vec<Spanned<String>>,
}

/// Merges entries decoded on their own, given in blocks in source order:
/// the first of each name wins, later ones are reported as duplicates
/// (their own problems dropped), every problem in the order one pass
/// reports it. Each block is freed as soon as it is merged.
pub fn merge_blocks<T>(decoded: Vec<Vec<Decoded<T>>>, cx: &mut Cx) -> Merged<T> {
    let count = decoded.iter().map(Vec::len).sum();
    let mut seen: std::collections::HashMap<&str, Span> =
        std::collections::HashMap::with_capacity(count);
    let duplicate_of: Vec<Option<Span>> = decoded
        .iter()
        .flatten()
        .map(|entry| {
            let name = entry.name.as_ref()?;
            if let Some(first) = seen.get(name.value.as_str()) {
                return Some(*first);
            }
            seen.insert(&name.value, name.span);
            None
        })
        .collect();
    drop(seen);
    let mut duplicate_of = duplicate_of.into_iter();
    let mut out = Merged {
        blocks: Vec::with_capacity(decoded.len()),
        unreadable: Vec::new(),
    };
    for block in decoded {
        let mut items = Vec::with_capacity(block.len());
        for (entry, duplicate_of) in block.into_iter().zip(duplicate_of.by_ref()) {
            cx.problems.extend(entry.name_problems);
            let Some(name) = entry.name else {
                continue;
            };
            if let Some(first) = duplicate_of {
                cx.report(Problem::duplicate_key(name.span, &name.value, first));
                continue;
            }
            cx.problems.extend(entry.item_problems);
            match entry.item {
                Some(item) => items.push((name, item)),
                None => out.unreadable.push(name),
            }
        }
        out.blocks.push(items);
    }
    out
}

/// Adds entries decoded on their own, in source order, to `out` (see
/// [`merge_blocks`]).
pub fn merge<T>(decoded: Vec<Decoded<T>>, out: &mut Entries<T>, cx: &mut Cx) {
    let merged = merge_blocks(vec![decoded], cx);
    for block in merged.blocks {
        if out.items.is_empty() {
            out.items = block;
        } else {
            out.items.extend(block);
        }
    }
    out.unreadable.extend(merged.unreadable);
}

impl<T: DecodeNamed + Send> Decode for Entries<T> {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        use rayon::prelude::*;
        let Value::Map(pairs) = &node.value else {
            return cx.wrong(node, key, "a mapping of names");
        };
        let mut out = Entries {
            span: cx.point(node),
            ..Entries::default()
        };
        // Entries are independent: a large mapping (the components of a big
        // model) is decoded in parallel, then merged in source order with
        // the problems in the order one pass would report them.
        let text = cx.text;
        let decoded: Vec<Decoded<T>> = if pairs.len() < PARALLEL_ENTRIES {
            pairs
                .iter()
                .map(|(k, v)| decode_entry(k, v, key, text))
                .collect()
        } else {
            pairs
                .par_iter()
                .map(|(k, v)| decode_entry(k, v, key, text))
                .collect()
        };
        merge(decoded, &mut out, cx);
        Some(out)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Entries<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Entries_of_{}", T::schema_name()).into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let item = generator.subschema_for::<T>();
        schemars::json_schema!({
            "type": "object",
            "propertyNames": {"pattern": super::units::NAME_PATTERN},
            "additionalProperties": item,
        })
    }
}

/// A value read from under a name (a component, a domain, a placement count).
pub trait DecodeNamed: Sized {
    /// Reads the entry called `name`.
    fn decode_named(node: &Node, name: &Spanned<String>, cx: &mut Cx) -> Option<Self>;
}

impl<T: Decode> DecodeNamed for Spanned<T> {
    fn decode_named(node: &Node, name: &Spanned<String>, cx: &mut Cx) -> Option<Self> {
        Spanned::<T>::decode(node, &name.value, cx)
    }
}

/// Reads a mapping into a struct: the key names, the known keys, duplicates.
/// `field` is called for every known key with its value and returns whether
/// the value was readable; unknown keys are reported with a suggestion.
pub fn decode_fields(
    node: &Node,
    place: &str,
    known: &[&'static str],
    cx: &mut Cx,
    mut field: impl FnMut(&str, Span, &Node, &mut Cx) -> bool,
) -> Option<Vec<(&'static str, Span)>> {
    let Value::Map(pairs) = &node.value else {
        cx.wrong_in::<()>(node, place, "a mapping");
        return None;
    };
    // Sized once: the list is kept (as the entity's `fields`), and grown
    // by doubling it would hold up to twice the slots it needs.
    let mut seen: Vec<(&'static str, Span)> = Vec::with_capacity(pairs.len());
    let mut readable = true;
    for (key_node, value) in pairs {
        let key_span = cx.point(key_node);
        let Some(key) = cx.scalar_text(key_node) else {
            cx.wrong_in::<()>(key_node, &format!("a key in {place}"), "text");
            continue;
        };
        let Some(&known_key) = known.iter().find(|k| **k == key) else {
            cx.report(Problem::unknown_key(
                key_span,
                &printable(&key),
                place,
                known,
            ));
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == known_key) {
            cx.report(Problem::duplicate_key(key_span, known_key, *first));
            readable = false;
            continue;
        }
        seen.push((static_key(known, known_key), key_span));
        readable &= field(known_key, key_span, value, cx);
    }
    readable.then_some(seen)
}

fn static_key(known: &[&'static str], key: &str) -> &'static str {
    known.iter().copied().find(|k| *k == key).unwrap_or("")
}

/// Declares a raw struct: the fields with their doc comments (which become
/// the JSON Schema's descriptions), a decoder that reads exactly those keys,
/// and the span of every key that was written.
macro_rules! raw_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $place:literal {
            $( $(#[$field_meta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
            /// Where the mapping starts.
            #[schemars(skip)]
            pub span: $crate::model::span::Span,
            /// The span of every key written, by key.
            #[schemars(skip)]
            pub keys: Vec<(&'static str, $crate::model::span::Span)>,
        }

        impl $name {
            /// The keys of this mapping, as written in YAML.
            pub const KEYS: &'static [&'static str] = &[$( $crate::model::decode::key_name(stringify!($field)) ),*];

            /// The span of `key` when it was written.
            #[must_use]
            pub fn key_span(&self, key: &str) -> Option<$crate::model::span::Span> {
                self.keys.iter().find(|(k, _)| *k == key).map(|&(_, span)| span)
            }

            /// Reads the mapping; `place` names it in messages.
            pub fn decode_in(node: &$crate::model::load::Node, place: &str, cx: &mut $crate::model::decode::Cx) -> Option<Self> {
                use $crate::model::decode::Decode;
                let mut out = Self::default();
                out.span = cx.point(node);
                let keys = $crate::model::decode::decode_fields(node, place, Self::KEYS, cx, |key, _span, value, cx| {
                    match key {
                        $( k if k == $crate::model::decode::key_name(stringify!($field)) => {
                            match <$ty as Decode>::decode(value, k, cx) {
                                Some(v) => { out.$field = v; true }
                                None => false,
                            }
                        } )*
                        _ => true,
                    }
                })?;
                let mut complete = true;
                $(
                    let key = $crate::model::decode::key_name(stringify!($field));
                    if !<$ty as Decode>::OPTIONAL && !keys.iter().any(|(k, _)| *k == key) {
                        cx.report($crate::model::error::Problem::missing_key(out.span, key, place, $crate::model::decode::example(key)));
                        complete = false;
                    }
                )*
                out.keys = keys;
                complete.then_some(out)
            }
        }

        impl $crate::model::decode::Decode for $name {
            fn decode(node: &$crate::model::load::Node, key: &str, cx: &mut $crate::model::decode::Cx) -> Option<Self> {
                Self::decode_in(node, &format!("`{key}`"), cx)
            }
        }

        impl $crate::model::decode::DecodeNamed for $name {
            fn decode_named(
                node: &$crate::model::load::Node,
                name: &$crate::model::decode::Spanned<String>,
                cx: &mut $crate::model::decode::Cx,
            ) -> Option<Self> {
                Self::decode_in(node, &format!("{} `{}`", $place, $crate::model::error::printable(&name.value)), cx)
            }
        }
    };
}
pub(crate) use raw_struct;

/// A field's YAML key: the Rust name without a raw-identifier prefix.
#[must_use]
pub const fn key_name(field: &'static str) -> &'static str {
    match field.as_bytes() {
        [b'r', b'#', ..] => match field.split_at_checked(2) {
            Some((_, rest)) => rest,
            None => field,
        },
        _ => field,
    }
}

/// An example line for a required key, for the help of a missing-key error.
#[must_use]
pub fn example(key: &str) -> &'static str {
    match key {
        "system" => "system: shop",
        "components" => "components: {api: {instances: 2}}",
        "id" => "id: spof/postgres",
        "reason" => "reason: single region by design, runbook R-12",
        "kind" => "kind: zone",
        "of" => "of: [zk-1, zk-2, zk-3]",
        _ => "KEY: VALUE",
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use crate::model::error::Problem;

    /// `count` components `c0`, `c1` … each depending on the one before;
    /// `c{bad}` for each `bad` names a dependency that does not exist, and a
    /// second `c1` follows the last component.
    fn chain(count: usize, bad: &[usize]) -> String {
        let mut text = String::from("system: s\ncomponents:\n  c0: {}\n");
        for i in 1..count {
            let target = if bad.contains(&i) {
                format!("missing{i}")
            } else {
                format!("c{}", i - 1)
            };
            let _ = writeln!(text, "  c{i}: {{depends_on: [{target}]}}");
        }
        text.push_str("  c1: {}\n");
        text
    }

    fn problems(text: &str) -> Vec<Problem> {
        crate::model::parse(text).expect_err("the model has errors")
    }

    #[test]
    fn a_mapping_decoded_in_parallel_reports_as_one_pass_does() {
        // 5,000 components: over PARALLEL_ENTRIES, so decoded and built in
        // parallel. 200 components: one pass. The same three broken
        // references and the same duplicate must be reported, in source
        // order, with the same wording.
        let bad = [3, 150, 199];
        let large = problems(&chain(5_000, &bad));
        let small = problems(&chain(200, &bad));
        let codes = |ps: &[Problem]| ps.iter().map(|p| p.code).collect::<Vec<_>>();
        assert_eq!(codes(&large), codes(&small));
        assert_eq!(
            codes(&large),
            [
                "model::unknown-reference",
                "model::unknown-reference",
                "model::unknown-reference",
                "model::duplicate-key"
            ]
        );
        let texts = |ps: &[Problem], text: &str| {
            ps.iter()
                .map(|p| p.span.text(text).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            texts(&large, &chain(5_000, &bad)),
            texts(&small, &chain(200, &bad))
        );
        assert_eq!(
            texts(&large, &chain(5_000, &bad)),
            ["missing3", "missing150", "missing199", "c1"]
        );
        assert!(
            large
                .windows(2)
                .all(|w| w[0].span.offset < w[1].span.offset)
        );
    }
}
