//! Many layouts of one model: the same values written with another
//! indentation (1, 2, 3, 4 or 8 spaces, sequences indented or not), line
//! break (`\n`, `\r\n`, `\r`), style (flow from any depth down, flow lists
//! broken over lines, trailing commas), quoting (plain, single, double,
//! multi-line quoted or plain at any indentation, literal and folded block
//! scalars), with comments everywhere they can go, anchors and aliases,
//! quoted keys, a byte-order mark or `---`; or as JSON. Each layout reads
//! back as the same tree ([`same_tree`]), which the merge property test
//! checks before merging into it.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use nines::model::load::{Node, Value, parse};

/// How to lay a model out.
#[derive(Debug, Clone)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "each is one independent choice of layout"
)]
pub(crate) struct Style {
    indent: usize,
    eol: &'static str,
    /// Collections at this depth and below are written in flow style (0:
    /// the whole document; `usize::MAX`: none but the empty ones).
    flow_from: usize,
    /// Flow collections broken over lines, and with a trailing comma.
    flow_breaks: bool,
    trailing_comma: bool,
    /// Sequences at the indentation of their key.
    indentless: bool,
    comments: bool,
    anchors: bool,
    quoted_keys: bool,
    bom: bool,
    document_start: bool,
    json: bool,
    /// Components' kinds (free text) with words added, so that they can be
    /// written over several lines.
    long_kinds: bool,
    seed: u64,
}

impl Style {
    /// The layout of case `case`: its fields cycle at different periods,
    /// so a few hundred cases cover every pair of choices.
    pub(crate) fn case(case: u64) -> Self {
        let pick =
            |period: u64, salt: u64| (case.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) % period;
        Style {
            indent: [2, 1, 3, 4, 8][usize::try_from(case % 5).unwrap()],
            eol: ["\n", "\r\n", "\r"][usize::try_from(case / 5 % 3).unwrap()],
            flow_from: [usize::MAX, 3, 2, 4, 1, 0, usize::MAX]
                [usize::try_from(case / 15 % 7).unwrap()],
            flow_breaks: pick(3, 1) == 0,
            trailing_comma: pick(4, 2) == 0,
            indentless: pick(3, 3) == 0,
            comments: pick(4, 4) != 0,
            anchors: pick(3, 5) == 0,
            quoted_keys: pick(5, 6) == 0,
            bom: pick(11, 7) == 0,
            document_start: pick(7, 8) == 0,
            json: case % 13 == 12,
            long_kinds: false,
            seed: case,
        }
    }

    /// The model as a plain block layout, its components' kinds made
    /// longer (not `saas` and `external`, which mean a managed service).
    pub(crate) fn long_kinds() -> Self {
        Style {
            indent: 2,
            eol: "\n",
            flow_from: usize::MAX,
            flow_breaks: false,
            trailing_comma: false,
            indentless: false,
            comments: false,
            anchors: false,
            quoted_keys: false,
            bom: false,
            document_start: false,
            json: false,
            long_kinds: true,
            seed: 0,
        }
    }
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap()
    }
    fn chance(&mut self, in_n: usize) -> bool {
        self.below(in_n) == 0
    }
}

struct Writer<'a> {
    source: &'a str,
    style: &'a Style,
    rng: Rng,
    out: String,
    /// Anchors given to values, by their value.
    anchors: HashMap<String, String>,
}

/// `text` (a model) written in `style`.
pub(crate) fn lay_out(text: &str, style: &Style) -> String {
    let root = parse(text).expect("an example model parses");
    if style.json {
        let json = to_json(text, &root);
        return if style.seed.is_multiple_of(2) {
            serde_json::to_string_pretty(&json).unwrap()
        } else {
            json.to_string()
        };
    }
    let mut w = Writer {
        source: text,
        style,
        rng: Rng(style.seed),
        out: String::new(),
        anchors: HashMap::new(),
    };
    if style.bom {
        w.out.push('\u{feff}');
    }
    if style.document_start {
        w.out.push_str("---\n");
    }
    if style.comments {
        w.out.push_str("# a layout of the model: - x: [y] #\n");
    }
    let Value::Map(entries) = &root.value else {
        panic!("a model is a mapping");
    };
    if style.flow_from == 0 {
        let flow = w.flow(&root, 0, &[]);
        w.out.push_str(&flow);
        w.out.push('\n');
    } else {
        w.block_map(entries, 0, 1, &[]);
    }
    w.out.replace('\n', style.eol)
}

impl Writer<'_> {
    fn block_map(
        &mut self,
        entries: &[(Node, Node)],
        column: usize,
        depth: usize,
        path: &[String],
    ) {
        for (key, value) in entries {
            self.comment_line(column);
            let name = key_text(&key.value);
            let mut here = path.to_vec();
            here.push(name.clone());
            let key = self.key(&name);
            let _ = write!(self.out, "{}{key}:", " ".repeat(column));
            self.value(value, column, depth, &here);
        }
    }

    /// What follows `key:` at `column`.
    fn value(&mut self, value: &Node, column: usize, depth: usize, path: &[String]) {
        let empty = matches!(&value.value, Value::Map(m) if m.is_empty())
            || matches!(&value.value, Value::Seq(s) if s.is_empty());
        let collection = matches!(value.value, Value::Map(_) | Value::Seq(_));
        if collection && (empty || depth >= self.style.flow_from) {
            let flow = self.flow(value, column, path);
            self.out.push(' ');
            self.out.push_str(&flow);
            self.end_line();
            return;
        }
        match &value.value {
            Value::Map(entries) => {
                let anchor = self.anchor(value, path);
                if !anchor.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(anchor.trim_end());
                }
                self.end_line();
                if !anchor.starts_with('*') {
                    self.block_map(entries, column + self.style.indent, depth + 1, path);
                }
            }
            Value::Seq(items) => {
                self.end_line();
                let at = if self.style.indentless {
                    column
                } else {
                    column + self.style.indent
                };
                for (index, item) in items.iter().enumerate() {
                    self.comment_line(at);
                    let mut here = path.to_vec();
                    here.push(index.to_string());
                    self.item(item, at, depth + 1, &here);
                }
            }
            _ => {
                self.out.push(' ');
                let text = self.scalar(value, column, false, path);
                let multi = text.contains('\n');
                self.out.push_str(&text);
                if multi {
                    self.out.push('\n');
                } else {
                    self.end_line();
                }
            }
        }
    }

    /// A `- item` at `column`.
    fn item(&mut self, item: &Node, column: usize, depth: usize, path: &[String]) {
        self.out.push_str(&" ".repeat(column));
        self.out.push('-');
        match &item.value {
            Value::Map(entries) if !entries.is_empty() && depth < self.style.flow_from => {
                // Compact: the first key after the dash, the others under it.
                let inner = column + 2;
                for (index, (key, value)) in entries.iter().enumerate() {
                    let name = key_text(&key.value);
                    let mut here = path.to_vec();
                    here.push(name.clone());
                    if index == 0 {
                        self.out.push(' ');
                    } else {
                        self.out.push_str(&" ".repeat(inner));
                    }
                    let key = self.key(&name);
                    let _ = write!(self.out, "{key}:");
                    self.value(value, inner, depth + 1, &here);
                }
            }
            Value::Map(_) | Value::Seq(_) => {
                let flow = self.flow(item, column + 2, path);
                self.out.push(' ');
                self.out.push_str(&flow);
                self.end_line();
            }
            _ => {
                self.out.push(' ');
                let text = self.scalar(item, column + 2, false, path);
                let multi = text.contains('\n');
                self.out.push_str(&text);
                if multi {
                    self.out.push('\n');
                } else {
                    self.end_line();
                }
            }
        }
    }

    /// A flow collection; continuation lines (when broken) at `column`
    /// plus the indentation.
    fn flow(&mut self, node: &Node, column: usize, path: &[String]) -> String {
        let anchor = self.anchor(node, path);
        if anchor.starts_with('*') {
            return anchor;
        }
        let (open, close, parts): (char, char, Vec<String>) = match &node.value {
            Value::Map(entries) => (
                '{',
                '}',
                entries
                    .iter()
                    .map(|(k, v)| {
                        let name = key_text(&k.value);
                        let mut here = path.to_vec();
                        here.push(name.clone());
                        let value = self.flow_value(v, column, &here);
                        format!("{}: {value}", self.key(&name))
                    })
                    .collect(),
            ),
            Value::Seq(items) => (
                '[',
                ']',
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let mut here = path.to_vec();
                        here.push(i.to_string());
                        self.flow_value(v, column, &here)
                    })
                    .collect(),
            ),
            _ => unreachable!("a collection"),
        };
        let mut out = format!("{anchor}{open}");
        let broken = self.style.flow_breaks && parts.len() > 1;
        let pad = " ".repeat(column + self.style.indent);
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                out.push(',');
                if broken && self.rng.chance(2) {
                    if self.style.comments && self.rng.chance(3) {
                        out.push_str(" # inside the brackets, ]\n");
                    } else {
                        out.push('\n');
                    }
                    out.push_str(&pad);
                } else {
                    out.push(' ');
                }
            }
            out.push_str(part);
        }
        if self.style.trailing_comma && !parts.is_empty() {
            out.push(',');
        }
        out.push(close);
        out
    }

    fn flow_value(&mut self, node: &Node, column: usize, path: &[String]) -> String {
        match &node.value {
            Value::Map(_) | Value::Seq(_) => self.flow(node, column, path),
            _ => self.scalar(node, column + self.style.indent, true, path),
        }
    }

    /// A scalar as written after `key: ` (`column` is the key's), in a flow
    /// collection when `flow`.
    fn scalar(&mut self, node: &Node, column: usize, flow: bool, path: &[String]) -> String {
        let Value::Str(text) = &node.value else {
            // Numbers, booleans and null as the model writes them.
            return node.span.text(self.source).to_owned();
        };
        let longer;
        let text = if self.style.long_kinds
            && matches!(path, [c, _, k] if c == "components" && k == "kind")
            && !matches!(text.as_str(), "saas" | "external")
        {
            longer = format!("{text} of this example, its kind described at some length");
            &longer
        } else {
            text
        };
        let anchor = self.anchor(node, path);
        if anchor.starts_with('*') {
            return anchor;
        }
        let continuation = " ".repeat(match self.rng.below(3) {
            0 => 0,
            1 => column,
            _ => column + self.style.indent + 1,
        });
        let split = split_point(text).filter(|_| !self.rng.chance(3));
        let deeper = " ".repeat(column + self.style.indent);
        let written = match (self.rng.below(7), split) {
            (0, Some(at)) => format!(
                "\"{}\n{continuation}{}\"",
                double(&text[..at]),
                double(&text[at + 1..])
            ),
            (1, Some(at)) if !text.contains('\'') => {
                format!("'{}\n{continuation}{}'", &text[..at], &text[at + 1..])
            }
            (2, Some(at))
                if !flow && plain_ok(&text[..at], false) && plain_ok(&text[at + 1..], false) =>
            {
                format!("{}\n{deeper}{}", &text[..at], &text[at + 1..])
            }
            (3, _)
                if !flow && !text.contains('\n') && !text.starts_with(' ') && !text.is_empty() =>
            {
                format!("|-\n{deeper}{text}")
            }
            (4, Some(at)) if !flow && !text.starts_with(' ') => {
                format!(">-\n{deeper}{}\n{deeper}{}", &text[..at], &text[at + 1..])
            }
            (5, _) if !text.contains('\'') && !text.contains('\n') => format!("'{text}'"),
            _ if plain_ok(text, flow) && self.rng.chance(2) => text.clone(),
            _ => format!("\"{}\"", double(text)),
        };
        format!("{anchor}{written}")
    }

    /// `&aN ` for a value met the first time, `*aN` for one met again
    /// (scalars, and mappings below a component's keys), or nothing; never
    /// in `depends_on` (an edit there could change the repeated list).
    fn anchor(&mut self, node: &Node, path: &[String]) -> String {
        let allowed = self.style.anchors
            && !path.iter().any(|p| p == "depends_on")
            && match &node.value {
                Value::Str(_) => true,
                // Not a whole component: two equal ones would be one alias.
                Value::Map(m) => path.len() >= 3 && !m.is_empty(),
                _ => false,
            };
        if !allowed {
            return String::new();
        }
        let key = repr(node);
        if let Some(name) = self.anchors.get(&key) {
            return if self.rng.chance(2) {
                format!("*{name}")
            } else {
                String::new()
            };
        }
        if !self.rng.chance(2) {
            return String::new();
        }
        let name = format!("a{}", self.anchors.len());
        self.anchors.insert(key, name.clone());
        format!("&{name} ")
    }

    fn key(&mut self, name: &str) -> String {
        if self.style.quoted_keys && self.rng.chance(3) || !plain_ok(name, true) {
            format!("\"{}\"", double(name))
        } else {
            name.to_owned()
        }
    }

    /// Ends the line, with a trailing comment sometimes.
    fn end_line(&mut self) {
        if self.style.comments && self.rng.chance(4) {
            self.out.push_str("   # a note: x, [y] # z");
        }
        self.out.push('\n');
    }

    /// A comment line before an entry at `column`, at a column left of it,
    /// at it or right of it: `# load:` lines too, which are the user's.
    fn comment_line(&mut self, column: usize) {
        if !self.style.comments || !self.rng.chance(4) {
            return;
        }
        let at = match self.rng.below(3) {
            0 => 0,
            1 => column,
            _ => column.saturating_sub(1),
        };
        let text = match self.rng.below(3) {
            0 => "# load: 3000   # peak from the load test, keep",
            1 => "# - commented: [out]",
            _ => "#",
        };
        let _ = writeln!(self.out, "{}{text}", " ".repeat(at));
    }
}

/// Where a string can be cut over two lines without changing it: a single
/// space between two non-spaces (line folding makes the break a space).
fn split_point(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (1..bytes.len().saturating_sub(1))
        .find(|&i| bytes[i] == b' ' && bytes[i - 1] != b' ' && bytes[i + 1] != b' ')
}

/// Whether YAML reads `text` written plain as that string, in block
/// context or in a flow collection.
fn plain_ok(text: &str, flow: bool) -> bool {
    if text.is_empty() || text.contains(['\n', '\r', '\t', '"', '\'', '\\']) {
        return false;
    }
    let doc = if flow {
        format!("k: [{text}]\n")
    } else {
        format!("k: {text}\n")
    };
    let Ok(root) = parse(&doc) else {
        return false;
    };
    let Value::Map(entries) = root.value else {
        return false;
    };
    let value = &entries[0].1;
    let value = match (&value.value, flow) {
        (Value::Seq(items), true) if items.len() == 1 => &items[0].value,
        (v, false) => v,
        _ => return false,
    };
    *value == Value::Str(text.to_owned())
}

fn double(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

fn key_text(value: &Value) -> String {
    match value {
        Value::Str(s) => s.clone(),
        other => panic!("a key that is not a string: {other:?}"),
    }
}

/// A value without its spans, to find repeats.
fn repr(node: &Node) -> String {
    match &node.value {
        Value::Map(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{}", repr(k), repr(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Seq(items) => {
            format!("[{}]", items.iter().map(repr).collect::<Vec<_>>().join(","))
        }
        other => format!("{other:?}"),
    }
}

fn to_json(source: &str, node: &Node) -> serde_json::Value {
    match &node.value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => serde_json::from_str(&i.to_string()).unwrap(),
        Value::Float(_) => serde_json::from_str(node.span.text(source)).unwrap_or_else(|_| {
            let Value::Float(f) = node.value else {
                unreachable!()
            };
            f.into()
        }),
        Value::Str(s) => s.clone().into(),
        Value::Seq(items) => items.iter().map(|i| to_json(source, i)).collect(),
        Value::Map(entries) => serde_json::Value::Object(
            entries
                .iter()
                .map(|(k, v)| (key_text(&k.value), to_json(source, v)))
                .collect(),
        ),
    }
}

/// The values of a text by path, for comparing two layouts.
pub(crate) fn values(text: &str) -> Option<BTreeMap<String, String>> {
    let root = parse(text).ok()?;
    let mut out = BTreeMap::new();
    super::merge::leaves(&root, "", &mut out);
    Some(out)
}

/// Whether two texts hold the same values.
pub(crate) fn same_tree(a: &str, b: &str) -> bool {
    values(a).is_some() && values(a) == values(b)
}

#[test]
fn the_layouts_cover_what_they_claim() {
    // Over the first 60 cases of one example with long kinds: strings over
    // two lines (a quoted line break, a plain continuation), block scalars,
    // anchors and aliases, flow collections broken over lines, comments at
    // column 0 inside blocks, every line break, JSON.
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/web-shop.yaml"))
            .unwrap();
    let source = lay_out(&example, &Style::long_kinds());
    let all: Vec<String> = (0..60)
        .map(|case| lay_out(&source, &Style::case(case)))
        .collect();
    let any = |test: &dyn Fn(&str) -> bool| all.iter().filter(|l| test(l)).count();
    let two_lines = |open: char| {
        move |l: &str| {
            l.split(['\n', '\r'])
                .any(|line| line.matches(open).count() % 2 == 1 && line.contains("kind: "))
        }
    };
    assert!(any(&two_lines('"')) > 5, "double-quoted over two lines");
    assert!(any(&two_lines('\'')) > 5, "single-quoted over two lines");
    assert!(any(&|l: &str| l.contains("kind: |-") || l.contains("kind: &a")) > 10);
    assert!(any(&|l: &str| l.contains(">-")) > 3, "folded");
    assert!(any(&|l: &str| l.contains(": *a")) > 5, "aliases");
    assert!(any(&|l: &str| l.contains("# inside the brackets")) > 3);
    assert!(any(&|l: &str| l.contains("\n# load:") || l.contains("\r# load:")) > 5);
    assert!(any(&|l: &str| l.contains('\r') && !l.contains('\n')) > 10);
    assert!(any(&|l: &str| l.starts_with('{')) > 3, "JSON");
    for layout in &all {
        assert!(same_tree(&source, layout), "{layout}");
    }
}
