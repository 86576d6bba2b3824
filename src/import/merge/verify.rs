//! The check a merged text passes before it is written: read back, every
//! value of the model is still there at the same path with the same value
//! (aliases expanded, as the model means them), every addition the summary
//! lists is in the merged model, and nothing else was added. Insertions by
//! the text's structure should always pass; this is what makes a mistake
//! of theirs a refusal with nothing written instead of a model changed in
//! silence.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::model::load::{Node, Value};
use crate::model::{Model, Problem, Span};

/// What the merge says it added, by component name.
#[derive(Debug, Default)]
pub(super) struct Additions {
    /// Components added.
    pub components: BTreeSet<String>,
    /// Targets added to each caller's `depends_on`.
    pub edges: BTreeMap<String, Vec<String>>,
    /// `entrypoints` written (the model had none).
    pub entrypoints: Vec<String>,
}

/// One step of a path into the tree.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

struct Check<'a> {
    additions: &'a Additions,
    /// Where each merged offset was in the model text.
    locate: &'a dyn Fn(usize) -> usize,
    problems: Vec<Problem>,
}

/// The problems of a merged tree against the model's (`locate` maps an
/// offset of the merged text to the model text), and of the merged model
/// against the additions.
pub(super) fn check(
    original: &Node,
    merged: &Node,
    model: &Model,
    additions: &Additions,
    locate: &dyn Fn(usize) -> usize,
) -> Vec<Problem> {
    let mut check = Check {
        additions,
        locate,
        problems: Vec::new(),
    };
    check.kept(&mut Vec::new(), original, merged);
    check.added(&mut Vec::new(), original, merged);
    check.present(merged, model);
    check.problems
}

impl Check<'_> {
    /// Every value of `a` (the model's) is in `b` (the merged one's).
    fn kept(&mut self, path: &mut Vec<Step>, a: &Node, b: &Node) {
        match (&a.value, &b.value) {
            (Value::Map(left), Value::Map(right)) => {
                let right_keys = index(right);
                for (key, value) in left {
                    match find(right, &right_keys, &key.value) {
                        Some((_, other)) => {
                            path.push(Step::Key(text(&key.value)));
                            self.kept(path, value, other);
                            path.pop();
                        }
                        None => self.problems.push(Problem::merge_changes(
                            key.span,
                            &shown(path, Some(&text(&key.value))),
                            "removed",
                        )),
                    }
                }
            }
            (Value::Seq(left), Value::Seq(right)) => {
                for (index, item) in left.iter().enumerate() {
                    path.push(Step::Index(index));
                    match right.get(index) {
                        Some(other) => self.kept(path, item, other),
                        None => self.problems.push(Problem::merge_changes(
                            item.span,
                            &shown(path, None),
                            "removed",
                        )),
                    }
                    path.pop();
                }
            }
            (x, y) if same(x, y) => {}
            (_, y) => self.problems.push(Problem::merge_changes(
                a.span,
                &shown(path, None),
                &format!("written as {}", describe(y)),
            )),
        }
    }

    /// Everything in `b` that is not in `a` is an addition listed.
    fn added(&mut self, path: &mut Vec<Step>, a: &Node, b: &Node) {
        match (&a.value, &b.value) {
            (Value::Map(left), Value::Map(right)) => {
                let left_keys = index(left);
                for (key, value) in right {
                    let name = text(&key.value);
                    match find(left, &left_keys, &key.value) {
                        Some((_, before)) => {
                            path.push(Step::Key(name));
                            self.added(path, before, value);
                            path.pop();
                        }
                        None if self.listed_key(path, &name) => {
                            if name == "depends_on" {
                                path.push(Step::Key(name));
                                let items = match &value.value {
                                    Value::Seq(items) => items.as_slice(),
                                    _ => std::slice::from_ref(value),
                                };
                                self.extra_items(path, items);
                                path.pop();
                            }
                        }
                        None => self.unlisted(key.span, path, Some(&name)),
                    }
                }
            }
            (Value::Seq(left), Value::Seq(right)) if right.len() > left.len() => {
                for (index, (before, item)) in left.iter().zip(right).enumerate() {
                    path.push(Step::Index(index));
                    self.added(path, before, item);
                    path.pop();
                }
                self.extra_items(path, &right[left.len()..]);
            }
            (Value::Seq(left), Value::Seq(right)) => {
                for (index, (before, item)) in left.iter().zip(right).enumerate() {
                    path.push(Step::Index(index));
                    self.added(path, before, item);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// Items at the end of the list at `path` that the model lacks: only
    /// the targets listed for a caller's `depends_on`, in order.
    fn extra_items(&mut self, path: &mut Vec<Step>, new: &[Node]) {
        let caller = match path.as_slice() {
            [Step::Key(c), Step::Key(caller), Step::Key(d)]
                if c == "components" && d == "depends_on" =>
            {
                Some(caller.clone())
            }
            _ => None,
        };
        let listed = caller.and_then(|c| self.additions.edges.get(&c));
        let ok = listed.is_some_and(|targets| {
            targets.len() == new.len()
                && new
                    .iter()
                    .zip(targets)
                    .all(|(item, t)| target(item) == Some(t))
        });
        if !ok && let Some(first) = new.first() {
            self.unlisted(first.span, path, None);
        }
    }

    /// Whether a key the model lacks at `path` is one the merge lists.
    fn listed_key(&self, path: &[Step], key: &str) -> bool {
        let additions = self.additions;
        match path {
            [] => key == "entrypoints" && !additions.entrypoints.is_empty(),
            [Step::Key(c)] if c == "components" => additions.components.contains(key),
            [Step::Key(c), Step::Key(caller)] if c == "components" => {
                key == "depends_on" && additions.edges.contains_key(caller)
            }
            _ => false,
        }
    }

    fn unlisted(&mut self, merged: Span, path: &[Step], key: Option<&str>) {
        let at = (self.locate)(merged.offset);
        self.problems
            .push(Problem::merge_adds(Span::new(at, 0), &shown(path, key)));
    }

    /// Every listed addition is in the merged model (`merged` its tree):
    /// listed entrypoints in an `entrypoints` key, as the components
    /// nothing calls are the entrypoints of a model without one.
    fn present(&mut self, merged: &Node, model: &Model) {
        let index: BTreeMap<&str, usize> = model
            .components
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        let at = Span::new((self.locate)(model.span.offset), 0);
        for name in &self.additions.components {
            if !index.contains_key(name.as_str()) {
                self.problems
                    .push(Problem::merge_misses(at, &format!("the component {name}")));
            }
        }
        for (caller, targets) in &self.additions.edges {
            let Some(&c) = index.get(caller.as_str()) else {
                continue;
            };
            let component = &model.components[c];
            for t in targets {
                let found = component
                    .depends_on
                    .iter()
                    .any(|e| e.targets.iter().any(|&id| model.component(id).name == *t));
                if !found {
                    let at = Span::new((self.locate)(component.span.offset), 0);
                    self.problems.push(Problem::merge_misses(
                        at,
                        &format!("the edge {caller} → {t}"),
                    ));
                }
            }
        }
        let written = matches!(&merged.value, Value::Map(entries)
            if entries.iter().any(|(k, _)| matches!(&k.value, Value::Str(s) if s == "entrypoints")));
        for name in &self.additions.entrypoints {
            if !written
                || !model
                    .entrypoints
                    .iter()
                    .any(|&id| model.component(id).name == *name)
            {
                self.problems
                    .push(Problem::merge_misses(at, &format!("the entrypoint {name}")));
            }
        }
    }
}

/// The entries of a mapping by key (the first of a key written twice), so
/// that matching two mappings is linear in their keys: a scan per key of
/// a model's 10,000 components was quadratic.
fn index(entries: &[(Node, Node)]) -> HashMap<String, usize> {
    let mut out = HashMap::with_capacity(entries.len());
    for (at, (key, _)) in entries.iter().enumerate() {
        out.entry(key_of(&key.value)).or_insert(at);
    }
    out
}

/// The entry of `entries` whose key is `key`.
fn find<'a>(
    entries: &'a [(Node, Node)],
    index: &HashMap<String, usize>,
    key: &Value,
) -> Option<&'a (Node, Node)> {
    index
        .get(&key_of(key))
        .map(|&at| &entries[at])
        .filter(|(k, _)| same(&k.value, key))
}

/// A key as the index holds it: its kind and text, so `1` and `"1"` differ.
fn key_of(value: &Value) -> String {
    match value {
        Value::Str(s) => format!("s{s}"),
        other => format!("v{}", describe(other)),
    }
}

/// Whether two values are the same (floats by their bits: NaN is itself).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Map(_) | Value::Seq(_), _) | (_, Value::Map(_) | Value::Seq(_)) => false,
        _ => a == b,
    }
}

/// The target a `depends_on` item names (`x` or `{target: x, …}`).
fn target(item: &Node) -> Option<&String> {
    match &item.value {
        Value::Str(name) => Some(name),
        Value::Map(entries) => entries
            .iter()
            .find_map(|(k, v)| match (&k.value, &v.value) {
                (Value::Str(k), Value::Str(t)) if k == "target" => Some(t),
                _ => None,
            }),
        _ => None,
    }
}

/// A key as a path shows it.
fn text(value: &Value) -> String {
    match value {
        Value::Str(s) => s.clone(),
        other => describe(other),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Str(s) => format!("\"{}\"", crate::model::error::printable(s)),
        Value::Seq(_) => "a list".to_owned(),
        Value::Map(_) => "a mapping".to_owned(),
    }
}

/// `components.web.depends_on[2]`.
fn shown(path: &[Step], key: Option<&str>) -> String {
    let mut out = String::new();
    for step in path
        .iter()
        .cloned()
        .chain(key.map(|k| Step::Key(k.to_owned())))
    {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&crate::model::error::printable(&k));
            }
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    if out.is_empty() {
        "the model".to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{Additions, check};
    use crate::model::load::parse;

    /// The problems of merging `before` into `after` with `additions`
    /// listed, as (message, offset): offsets of `after` stay where they
    /// are (no edit to map back through).
    fn refused(before: &str, after: &str, additions: &Additions) -> Vec<(String, usize)> {
        let original = parse(before).expect("before parses");
        let merged = parse(after).expect("after parses");
        let model = crate::model::parse(after).expect("after is a model");
        check(&original, &merged, &model, additions, &|offset| offset)
            .into_iter()
            .map(|p| {
                assert_eq!(p.code, "import::merge");
                assert!(p.help.is_some_and(|h| h.contains("a bug of nines")));
                (p.message, p.span.offset)
            })
            .collect()
    }

    const BEFORE: &str = "system: s\ncomponents:\n  web:\n    kind: service\n    instances: 2\n    depends_on: [db]\n  db: {}\n";

    fn listed(components: &[&str], edges: &[(&str, &str)], entrypoints: &[&str]) -> Additions {
        let mut out = Additions::default();
        out.components
            .extend(components.iter().map(|c| (*c).to_owned()));
        for (caller, target) in edges {
            out.edges
                .entry((*caller).to_owned())
                .or_default()
                .push((*target).to_owned());
        }
        out.entrypoints = entrypoints.iter().map(|e| (*e).to_owned()).collect();
        out
    }

    #[test]
    fn what_the_merge_lists_and_wrote_passes() {
        // The control: web → q and the component q added, both listed, and
        // the entrypoints written; nothing else changed.
        let after = "system: s\nentrypoints: [web]\ncomponents:\n  web:\n    kind: service\n    instances: 2\n    depends_on: [db, q]\n  db: {}\n  q: {kind: service}\n";
        let additions = listed(&["q"], &[("web", "q")], &["web"]);
        assert_eq!(refused(BEFORE, after, &additions), []);
    }

    #[test]
    fn a_changed_value_is_refused_where_the_model_has_it() {
        // instances 2 written as 3: the problem is at the model's `2`, the
        // 8th byte of line 5 (offset of "2\n    depends_on" in BEFORE).
        let after = BEFORE.replace("instances: 2", "instances: 3");
        let at = BEFORE.find("2\n    depends_on").unwrap();
        assert_eq!(
            refused(BEFORE, &after, &Additions::default()),
            [(
                "merging would change `components.web.instances` of this model (written as 3): nothing was written".to_owned(),
                at
            )]
        );
        // A list item changed: db's place holds "q".
        let after = BEFORE
            .replace("[db]", "[q]")
            .replace("  db: {}\n", "  db: {}\n  q: {}\n");
        let problems = refused(BEFORE, &after, &listed(&["q"], &[], &[]));
        assert_eq!(
            problems[0].0,
            "merging would change `components.web.depends_on[0]` of this model (written as \"q\"): nothing was written"
        );
    }

    #[test]
    fn a_removed_key_or_item_is_refused() {
        // web's `kind` is gone: located at the key in the model's text.
        let after = BEFORE.replace("    kind: service\n", "");
        assert_eq!(
            refused(BEFORE, &after, &Additions::default()),
            [(
                "merging would change `components.web.kind` of this model (removed): nothing was written".to_owned(),
                BEFORE.find("kind").unwrap()
            )]
        );
        // web's only edge is gone: the item, at `db` inside the brackets.
        let after = BEFORE.replace("[db]", "[]");
        assert_eq!(
            refused(BEFORE, &after, &Additions::default()),
            [(
                "merging would change `components.web.depends_on[0]` of this model (removed): nothing was written".to_owned(),
                BEFORE.find("db]").unwrap()
            )]
        );
    }

    #[test]
    fn an_addition_the_summary_does_not_list_is_refused() {
        // A key of a component (never an addition), at its place in the
        // merged text.
        let after = BEFORE.replace("  db: {}", "  db: {instances: 3}");
        assert_eq!(
            refused(BEFORE, &after, &Additions::default()),
            [(
                "merging would add `components.db.instances`, which the merge does not list: nothing was written".to_owned(),
                after.find("instances: 3").unwrap()
            )]
        );
        // A component, an edge and entrypoints, none listed.
        let after = BEFORE
            .replace("[db]", "[db, q]")
            .replace("  db: {}\n", "  db: {}\n  q: {}\n")
            .replace("components:", "entrypoints: [web]\ncomponents:");
        let messages: Vec<String> = refused(BEFORE, &after, &Additions::default())
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert_eq!(
            messages,
            [
                "merging would add `entrypoints`, which the merge does not list: nothing was written",
                "merging would add `components.web.depends_on`, which the merge does not list: nothing was written",
                "merging would add `components.q`, which the merge does not list: nothing was written",
            ]
        );
        // An edge listed with another target than the one written: web → q
        // listed, web → r written.
        let after = BEFORE
            .replace("[db]", "[db, r]")
            .replace("  db: {}\n", "  db: {}\n  r: {}\n");
        let messages: Vec<String> = refused(BEFORE, &after, &listed(&["r"], &[("web", "q")], &[]))
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert!(
            messages.contains(
                &"merging would add `components.web.depends_on`, which the merge does not list: nothing was written".to_owned()
            ),
            "{messages:?}"
        );
    }

    #[test]
    fn a_listed_addition_that_is_missing_is_refused() {
        // The summary lists the component q, the edge db → web and the
        // entrypoint web; the merged text is the model unchanged. web is
        // an entrypoint of it all the same (nothing calls it, and there is
        // no `entrypoints`), but the key the summary says it wrote is not.
        let messages: Vec<String> =
            refused(BEFORE, BEFORE, &listed(&["q"], &[("db", "web")], &["web"]))
                .into_iter()
                .map(|(m, _)| m)
                .collect();
        assert_eq!(
            messages,
            [
                "the merged model would lack the component q, which the merge adds: nothing was written",
                "the merged model would lack the edge db → web, which the merge adds: nothing was written",
                "the merged model would lack the entrypoint web, which the merge adds: nothing was written",
            ]
        );
    }
}
