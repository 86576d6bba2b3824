//! What the merge writes where, component by component: the edges a caller
//! lacks (into its `depends_on`, block or flow, or a new `depends_on`) and
//! its measured load as a `# load:` comment (replacing only the one an
//! importer wrote). The services the model lacks and `entrypoints` are in
//! [`super::added`].

use std::collections::{BTreeSet, HashMap};

use super::super::service_graph::{
    Call, Graph, Service, call_reason, edge_entry, load_reason, number,
};
use super::super::writer::line;
use super::edit::Editor;
use super::names::Names;
use super::verify::Additions;
use super::{Changes, Unwritten};
use crate::model::layout::{Kind, Shape};
use crate::model::{Component, Model};

/// The merge being planned.
pub(super) struct Plan<'a> {
    pub editor: Editor<'a>,
    pub model: &'a Model,
    pub graph: &'a Graph,
    pub names: &'a Names,
    pub root: &'a Shape,
    /// The `components` key and its mapping.
    pub components: (&'a Shape, &'a Shape),
    /// Each component's key and value in the text, by name.
    pub shapes: HashMap<&'a str, (&'a Shape, &'a Shape)>,
    /// The columns one level of a block adds in this text.
    pub step: usize,
    /// Whether the root or `components` is shared ([`Plan::shared`]).
    pub shared: bool,
    pub changes: Changes,
    pub additions: Additions,
}

/// A call the model lacks: the target as the model names it, the call.
struct NewEdge<'a> {
    target: String,
    call: &'a Call,
}

impl<'a> Plan<'a> {
    /// Whether the root or the `components` mapping is anchored or an
    /// alias: whatever is written into them would be written elsewhere too
    /// (asked once per component: the answer is kept, since looking for a
    /// merge key in `components` takes a scan of it).
    pub(super) fn shared(&self) -> bool {
        self.shared
    }

    /// The outermost flow collection around the components (the root, or
    /// the `components` mapping), where comments about them go above.
    pub(super) fn flow_top(&self) -> Option<&'a Shape> {
        if self.root.is_flow() {
            Some(self.root)
        } else if self.components.1.is_flow() {
            Some(self.components.1)
        } else {
            None
        }
    }

    /// The column a component's entry starts at: where the block mapping
    /// `components` starts, which is its keys' column or, for an explicit
    /// key (`? web`), its `?`, also when the key scalar is further right
    /// (after `? `, a tag or an anchor); in flow style, the key's own.
    pub(super) fn entry_column(&self, key: &Shape) -> usize {
        let map = self.components.1;
        let at = if map.is_flow() {
            key.span.offset
        } else {
            map.span.offset
        };
        self.editor.column(at)
    }

    /// The traced edges and load of one component the model has.
    pub fn component(&mut self, component: &'a Component) {
        let declared: BTreeSet<String> = component
            .depends_on
            .iter()
            .flat_map(|e| {
                e.targets
                    .iter()
                    .map(|t| self.model.component(*t).name.clone())
            })
            .collect();
        let Some(service) = self
            .names
            .service
            .get(&component.name)
            .map(|s| &self.graph.services[s])
        else {
            for target in &declared {
                self.changes
                    .unseen
                    .push((component.name.clone(), target.clone(), false));
            }
            return;
        };
        let called: BTreeSet<&str> = service.calls.keys().map(|t| self.names.of(t)).collect();
        for target in &declared {
            if !called.contains(target.as_str()) {
                self.changes
                    .unseen
                    .push((component.name.clone(), target.clone(), true));
            }
        }
        let new: Vec<NewEdge> = service
            .calls
            .iter()
            .map(|(t, call)| NewEdge {
                target: self.names.of(t).to_owned(),
                call,
            })
            .filter(|e| !declared.contains(&e.target))
            .collect();
        if let Some(rate) = service.load(self.graph.window) {
            match &component.capacity {
                Some(capacity) => {
                    let ratio = if capacity.load > 0.0 {
                        rate / capacity.load
                    } else {
                        f64::INFINITY
                    };
                    let factor = self.changes.factor;
                    if ratio > factor || ratio < 1.0 / factor {
                        self.changes
                            .differing
                            .push((component.name.clone(), capacity.load, rate));
                    }
                }
                None => self.load(component, service, rate),
            }
        }
        if !new.is_empty() {
            self.edges(component, &new);
        }
    }

    /// Adds the calls `new` to the component's `depends_on`.
    fn edges(&mut self, component: &Component, new: &[NewEdge]) {
        let Some(&(key, value)) = self.shapes.get(component.name.as_str()) else {
            return;
        };
        let caller = component.name.as_str();
        let json = self.editor.json;
        let entries: Vec<String> = new
            .iter()
            .map(|e| edge_entry(&e.target, e.call, json))
            .collect();
        let reasons: Vec<String> = new
            .iter()
            .map(|e| call_reason(caller, e.call, self.graph))
            .collect();
        let notes: Vec<String> = new
            .iter()
            .zip(&reasons)
            .map(|(e, why)| format!("added from traces: {caller} → {}: {why}", e.target))
            .collect();
        let written = !self.shared()
            && !value.shared()
            && self.write_edges((key, value), &entries, &reasons, &notes);
        if written {
            for e in new {
                self.changes
                    .edges
                    .push((caller.to_owned(), e.target.clone()));
                self.additions
                    .edges
                    .entry(caller.to_owned())
                    .or_default()
                    .push(e.target.clone());
            }
        } else {
            for (e, entry) in new.iter().zip(&entries) {
                self.changes.by_hand.push(format!(
                    "{caller}: add `{entry}` to `depends_on` ({})",
                    call_reason(caller, e.call, self.graph)
                ));
            }
        }
    }

    /// Writes `entries` (with their `reasons` as item comments, `notes` as
    /// comment lines for a flow list) into the `depends_on` of the
    /// component `(key, value)`; whether it could.
    fn write_edges(
        &mut self,
        (key, value): (&Shape, &Shape),
        entries: &[String],
        reasons: &[String],
        notes: &[String],
    ) -> bool {
        let Kind::Map { flow, .. } = value.kind else {
            return false;
        };
        match value.get("depends_on") {
            Some((_, list)) if list.shared() => false,
            Some((list_key, list)) if matches!(list.kind, Kind::Seq { flow: false, .. }) => {
                // After the list's last item, at its items' column.
                let lines = items(self.editor.column(list.span.offset), entries, reasons);
                let at = self
                    .editor
                    .after_block(list, self.editor.column(list_key.span.offset));
                self.editor.insert_lines(at, &lines);
                true
            }
            Some((_, list)) if matches!(list.kind, Kind::Seq { flow: true, .. }) => {
                self.editor.flow_entry(list, &entries.join(", "));
                let top = self.flow_top().unwrap_or(if flow { value } else { list });
                self.editor.comments_above(top, notes);
                true
            }
            Some(_) => false,
            None if !flow => {
                // A new key after the component's last one.
                let column = self.editor.column(value.span.offset);
                let mut lines = String::new();
                line(&mut lines, column, "depends_on:", "");
                lines.push_str(&items(column + self.step, entries, reasons));
                let at = self.editor.after_block(value, self.entry_column(key));
                self.editor.insert_lines(at, &lines);
                true
            }
            None => {
                let key = if self.editor.json {
                    "\"depends_on\""
                } else {
                    "depends_on"
                };
                self.editor
                    .flow_entry(value, &format!("{key}: [{}]", entries.join(", ")));
                self.editor
                    .comments_above(self.flow_top().unwrap_or(value), notes);
                true
            }
        }
    }

    /// Writes the measured load of a component without `capacity` as a
    /// `# load:` comment: in place of one an importer wrote, else after the
    /// component's last key; a `# load:` comment of the user's stays, and
    /// a component in flow style or JSON takes no comment line.
    fn load(&mut self, component: &Component, service: &Service, rate: f64) {
        let Some(&(key, value)) = self.shapes.get(component.name.as_str()) else {
            return;
        };
        let unwritten = |why: &'static str| Unwritten {
            component: component.name.clone(),
            rate,
            why,
        };
        if self.editor.json {
            self.changes
                .unwritten
                .push(unwritten("JSON has no comments"));
            return;
        }
        if value.is_flow() || !matches!(value.kind, Kind::Map { .. }) {
            self.changes
                .unwritten
                .push(unwritten("the component is written on one line"));
            return;
        }
        let text = self.editor.text;
        let owner = self.entry_column(key);
        let inner = self.editor.column(value.span.offset);
        let end = self.editor.after_block(value, owner);
        let mut lines = String::new();
        line(
            &mut lines,
            inner,
            &format!("# load: {}", number(rate)),
            &load_reason(service, self.graph),
        );
        let mut at = crate::model::layout::line_start(text, key.span.offset);
        while at < end {
            if let Some(comment) = self.editor.layout.comment_line(text, at)
                && self.editor.column(comment.offset) == inner
                && comment.text(text).starts_with("# load:")
            {
                if is_imported_load(comment.text(text)) {
                    self.editor.replace_line(at, &lines);
                    self.changes.loads.push((component.name.clone(), rate));
                } else {
                    self.changes
                        .unwritten
                        .push(unwritten("its own `# load:` comment is kept"));
                }
                return;
            }
            at = crate::model::layout::next_line(text, at);
        }
        self.editor.insert_lines(end, &lines);
        self.changes.loads.push((component.name.clone(), rate));
    }
}

/// `- entry` lines at `column`, each with its reason as a comment.
fn items(column: usize, entries: &[String], reasons: &[String]) -> String {
    let mut lines = String::new();
    for (entry, why) in entries.iter().zip(reasons) {
        line(
            &mut lines,
            column,
            &format!("- {entry}"),
            &format!("added from traces: {why}"),
        );
    }
    lines
}

/// The notes an importer writes after `# load: N` (`import k8s`; `import
/// traces` for a service nothing calls), whole.
const FILL_IN: [&str; 2] = [
    "# fill in: peak load on the whole component",
    "# fill in: nothing in the traces calls it, so its request rate is not in them",
];

/// Whether a `# load:` comment is one an importer wrote: `# load: N` and a
/// note of [`FILL_IN`], or `# load: RATE` and the note of `import traces`
/// and the merge ([`load_reason`]: "# measured: CALLS calls in WINDOW, a
/// window average, not a peak; uncomment with `capacity`"), each phrase
/// whole, the numbers numbers and the window a duration. Any other is the
/// user's, and stays: also one that starts `# measured:` or `# fill in:`
/// in words of the user's.
fn is_imported_load(comment: &str) -> bool {
    let Some(rest) = comment.strip_prefix("# load: ") else {
        return false;
    };
    let Some((value, note)) = rest.split_once(' ') else {
        return false;
    };
    let note = note.trim_start_matches(' ').trim_end();
    if value == "N" {
        return FILL_IN.contains(&note);
    }
    let number = |text: &str| text.parse::<f64>().is_ok_and(|n| n.is_finite() && n >= 0.0);
    let measured = note
        .strip_prefix("# measured: ")
        .and_then(|m| m.strip_suffix(", a window average, not a peak; uncomment with `capacity`"))
        .and_then(|m| m.split_once(" calls in "));
    number(value)
        && measured.is_some_and(|(calls, window)| {
            number(calls) && crate::model::units::parse_duration(window).is_ok()
        })
}

/// The columns one level adds in this text's components: from a block
/// component's keys to its entry, else from the entries to `components`.
/// An entry starts where the block mapping does, at its keys' column or
/// its `?` (a key scalar after `? `, a tag or an anchor is further right;
/// a flow mapping holds no block component).
pub(super) fn step(components: (&Shape, &Shape), column: &dyn Fn(usize) -> usize) -> usize {
    let (key, map) = components;
    let Kind::Map { entries, .. } = &map.kind else {
        return 2;
    };
    let entry = column(map.span.offset);
    let inner = entries.iter().find_map(|(_, v)| match &v.kind {
        Kind::Map { flow: false, .. } => Some(column(v.span.offset).saturating_sub(entry)),
        _ => None,
    });
    let outer = (!map.is_flow() && !entries.is_empty())
        .then(|| entry.saturating_sub(column(key.span.offset)));
    inner.or(outer).filter(|&s| s > 0).unwrap_or(2)
}

/// The shapes of each component in the `components` mapping, by name (the
/// first entry of a name).
pub(super) fn shapes(map: &Shape) -> HashMap<&str, (&Shape, &Shape)> {
    let mut out = HashMap::new();
    if let Kind::Map { entries, .. } = &map.kind {
        for (key, value) in entries {
            if let Some(name) = key.as_str() {
                out.entry(name).or_insert((key, value));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::is_imported_load;

    #[test]
    fn only_the_importers_whole_phrases_mark_a_load_comment_as_theirs() {
        // What `import k8s`, `import traces` and the merge write.
        for ours in [
            "# load: N                           # fill in: peak load on the whole component",
            "# load: N   # fill in: nothing in the traces calls it, so its request rate is not in them",
            "# load: 0.01                        # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`",
            "# load: 1.5 # measured: 5400 calls in 1h30m, a window average, not a peak; uncomment with `capacity`\r",
        ] {
            assert!(is_imported_load(ours), "{ours}");
        }
        // The user's: the importer's first words, then their own; a value
        // that is no number; a window that is no duration; `N` with the
        // measured phrase (the importer writes a rate there).
        for users in [
            "# load: 3000   # measured: load test of 2026-10, peak",
            "# load: 3000   # fill in: peak from the load test",
            "# load: 3000   # peak from the load test, keep",
            "# load: lots   # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`",
            "# load: 0.01   # measured: 36 calls in a day, a window average, not a peak; uncomment with `capacity`",
            "# load: N   # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`",
            "# load: 0.01   # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`, keep",
            "# load: N",
        ] {
            assert!(!is_imported_load(users), "{users}");
        }
    }
}
