//! What the merge adds besides edges and loads: the traced services the
//! model lacks, as components at the end of `components` (block or flow, at
//! the model's indentation), and `entrypoints` when the model has none and
//! the traced calls leave no component uncalled.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::super::service_graph::{Indent, Service, call_reason, component_text, edge_entry};
use super::super::writer::{line, scalar};
use super::Unwritten;
use super::plan::Plan;
use crate::model::layout::Kind;

impl Plan<'_> {
    /// The traced services the model lacks, as components at the end of
    /// `components`.
    pub fn added_components(&mut self) {
        let names = self.names;
        if names.added.is_empty() {
            return;
        }
        if self.shared() {
            for (_, name) in &names.added {
                self.changes.by_hand.push(format!(
                    "add the component {name} (`nines import traces FILE` writes it)"
                ));
            }
            return;
        }
        let (ckey, map) = self.components;
        let rename = |target: &str| names.of(target).to_owned();
        let declared = self.root.get("entrypoints").is_some();
        let mut block = String::new();
        let mut flow: Vec<String> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let first = match &map.kind {
            Kind::Map { entries, .. } => entries.first(),
            _ => None,
        };
        // The entries' column (an explicit key's `?`, not its scalar).
        let key_column = first.map_or(self.step, |(k, _)| self.entry_column(k));
        for (traced, name) in &names.added {
            let service = &self.graph.services[traced];
            if map.is_flow() {
                flow.push(self.flow_component(name, service, &mut notes));
            } else {
                block.push('\n');
                let indent = Indent {
                    key: key_column,
                    step: self.step,
                };
                component_text(&mut block, self.graph, (name, service), indent, &rename);
                if let Some(rate) = service.load(self.graph.window) {
                    self.changes.loads.push((name.clone(), rate));
                }
            }
            self.changes.components.push(name.clone());
            self.additions.components.insert(name.clone());
            for target in service.calls.keys() {
                let target = names.of(target).to_owned();
                self.changes.edges.push((name.clone(), target.clone()));
                self.additions
                    .edges
                    .entry(name.clone())
                    .or_default()
                    .push(target);
            }
            if service.callers.is_empty() && declared {
                self.changes.uncalled.push(name.clone());
            }
            if traced != name {
                self.changes.renamed.push((traced.clone(), name.clone()));
            }
        }
        if map.is_flow() {
            self.editor.flow_entry(map, &flow.join(", "));
            self.editor
                .comments_above(self.flow_top().unwrap_or(map), &notes);
        } else {
            let at = self
                .editor
                .after_block(map, self.editor.column(ckey.span.offset));
            self.editor.insert_lines(at, &block);
        }
    }

    /// A component in flow style (`q: {kind: service, depends_on: […]}`),
    /// what it is in comments; its load is listed, not written.
    fn flow_component(&mut self, name: &str, service: &Service, notes: &mut Vec<String>) -> String {
        let json = self.editor.json;
        let quote = |text: &str| {
            if json {
                serde_json::Value::from(text).to_string()
            } else {
                scalar(text)
            }
        };
        let datastore = super::super::draft::is_database_image(name)
            || super::super::draft::is_database_image(&service.traced);
        let kind = if datastore { "datastore" } else { "service" };
        let mut fields = vec![format!("{}: {}", quote("kind"), quote(kind))];
        let mut from = format!("added from traces: {name}");
        if service.traced != name {
            let _ = write!(from, " (`{}` in the traces)", service.traced);
        }
        notes.push(from);
        if !service.calls.is_empty() {
            let entries: Vec<String> = service
                .calls
                .iter()
                .map(|(t, call)| {
                    let target = self.names.of(t);
                    notes.push(format!(
                        "added from traces: {name} → {target}: {}",
                        call_reason(name, call, self.graph)
                    ));
                    edge_entry(target, call, json)
                })
                .collect();
            fields.push(format!("{}: [{}]", quote("depends_on"), entries.join(", ")));
        }
        if let Some(rate) = service.load(self.graph.window) {
            self.changes.unwritten.push(Unwritten {
                component: name.to_owned(),
                rate,
                why: if json {
                    "JSON has no comments"
                } else {
                    "the component is written on one line"
                },
            });
        }
        format!("{}: {{{}}}", quote(name), fields.join(", "))
    }

    /// When the model has no `entrypoints` (they are the components nothing
    /// calls) and the merged edges leave no such component, the roots the
    /// model had are written as its `entrypoints`; when they leave other
    /// roots, the summary says which.
    pub fn entrypoints(&mut self) {
        if self.root.get("entrypoints").is_some() {
            return;
        }
        let mut called: BTreeSet<&str> = BTreeSet::new();
        for c in &self.model.components {
            for e in &c.depends_on {
                called.extend(
                    e.targets
                        .iter()
                        .map(|&t| self.model.component(t).name.as_str()),
                );
            }
        }
        called.extend(self.changes.edges.iter().map(|(_, t)| t.as_str()));
        let all = self
            .model
            .components
            .iter()
            .map(|c| c.name.as_str())
            .chain(self.changes.components.iter().map(String::as_str));
        let roots: Vec<&str> = all.filter(|n| !called.contains(n)).collect();
        let before: Vec<String> = self
            .model
            .entrypoints
            .iter()
            .map(|&id| self.model.component(id).name.clone())
            .collect();
        if !roots.is_empty() {
            if roots != before {
                self.changes.roots =
                    Some((before, roots.iter().map(|r| (*r).to_owned()).collect()));
            }
            return;
        }
        let json = self.editor.json;
        let list: Vec<String> = before
            .iter()
            .map(|n| {
                if json {
                    serde_json::Value::from(n.as_str()).to_string()
                } else {
                    scalar(n)
                }
            })
            .collect();
        let why = "added by the merge: the traces call every component, so these roots of the model before the merge are written";
        if self.root.is_flow() {
            let key = if json {
                "\"entrypoints\""
            } else {
                "entrypoints"
            };
            self.editor
                .flow_entry(self.root, &format!("{key}: [{}]", list.join(", ")));
            self.editor.comments_above(self.root, &[why.to_owned()]);
        } else {
            let column = self.editor.column(self.root.span.offset);
            let mut lines = String::new();
            line(
                &mut lines,
                column,
                &format!("entrypoints: [{}]", list.join(", ")),
                why,
            );
            let at =
                crate::model::layout::line_start(self.editor.text, self.components.0.span.offset);
            self.editor.insert_lines(at, &lines);
        }
        self.additions.entrypoints.clone_from(&before);
        self.changes.entrypoints = before;
    }
}
