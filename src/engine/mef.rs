//! The model as an Open-PSA MEF fault tree, so that an independent engine
//! (SCRAM) can check the availability figure.
//!
//! The tree describes failure: `top-<entrypoint>` is the entrypoint being
//! down. Basic events are the failures of single instances
//! (`inst-<component>-<i>`), of domains (`domain-<name>`) and of shared-fate
//! groups (`group-<name>`), each with its probability of being down. A
//! component is down when a group of it fires, or when more than
//! `instances − min_healthy` instances are down (an `atleast` gate), or when
//! a required dependency is down (for `any_of`/`at_least`, when too few
//! alternatives are up). Cycles are unfolded: a component already on the
//! path counts as up, the least fixed point of "down" (the greatest of "up").
//!
//! Capacity: where every component's capacity need is static (the same in
//! every state: the `k = ⌈load / capacity⌉` of the intact state, above
//! `min_healthy`), the `atleast` gates count that `k`, and the tree is the
//! capacity-aware figure's; where some need changes with what is lost (a
//! cache, a failover, a standby), the tree is the capacity-blind structure,
//! and its header comment says so ([`counts_capacity`]).
//!
//! Names are encoded so that every model name gives a valid, distinct MEF
//! identifier: `_` becomes `__` and `.` becomes `_o`.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::{ComponentId, EdgeKind, Model};

/// A fault-tree formula.
#[derive(Debug, Clone, PartialEq)]
enum Formula {
    /// Never true.
    Never,
    /// A basic event.
    Basic(String),
    /// A named gate.
    Gate(String),
    /// Any of.
    Or(Vec<Formula>),
    /// At least k of.
    AtLeast(usize, Vec<Formula>),
}

impl Formula {
    /// Simplifies: drops `Never` items, and turns k = 1 into or, k = n into and.
    fn at_least(k: usize, items: Vec<Formula>) -> Formula {
        let items: Vec<Formula> = items.into_iter().filter(|f| *f != Formula::Never).collect();
        if k == 0 {
            // "at least 0 down" would be always true; callers never ask it.
            return Formula::Never;
        }
        if k > items.len() {
            return Formula::Never;
        }
        if items.len() == 1 {
            return items.into_iter().next().unwrap_or(Formula::Never);
        }
        if k == 1 {
            return Formula::or(items);
        }
        Formula::AtLeast(k, items)
    }

    fn or(items: Vec<Formula>) -> Formula {
        let mut flat = Vec::new();
        for item in items {
            match item {
                Formula::Never => {}
                Formula::Or(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        let mut unique: Vec<Formula> = Vec::with_capacity(flat.len());
        for item in flat {
            if !unique.contains(&item) {
                unique.push(item); // x ∨ x = x; MEF rejects repeated arguments
            }
        }
        let flat = unique;
        match flat.len() {
            0 => Formula::Never,
            1 => flat.into_iter().next().unwrap_or(Formula::Never),
            _ => Formula::Or(flat),
        }
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = " ".repeat(indent);
        match self {
            Formula::Never => {
                let _ = writeln!(out, "{pad}<house-event name=\"never\"/>");
            }
            Formula::Basic(name) => {
                let _ = writeln!(out, "{pad}<basic-event name=\"{name}\"/>");
            }
            Formula::Gate(name) => {
                let _ = writeln!(out, "{pad}<gate name=\"{name}\"/>");
            }
            Formula::Or(items) => {
                let _ = writeln!(out, "{pad}<or>");
                for f in items {
                    f.write(out, indent + 2);
                }
                let _ = writeln!(out, "{pad}</or>");
            }
            Formula::AtLeast(k, items) => {
                let tag = if *k == items.len() {
                    "<and>".to_owned()
                } else {
                    format!("<atleast min=\"{k}\">")
                };
                let _ = writeln!(out, "{pad}{tag}");
                for f in items {
                    f.write(out, indent + 2);
                }
                let close = if *k == items.len() {
                    "</and>"
                } else {
                    "</atleast>"
                };
                let _ = writeln!(out, "{pad}{close}");
            }
        }
    }
}

/// Encodes a model name as a MEF identifier fragment.
#[must_use]
pub fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '_' => out.push_str("__"),
            '.' => out.push_str("_o"),
            c => out.push(c),
        }
    }
    out
}

/// The name of an entrypoint's top gate.
#[must_use]
pub fn top_gate(entrypoint: &str) -> String {
    format!("top-{}", encode(entrypoint))
}

/// Writes the model as an Open-PSA MEF document.
#[must_use]
pub fn export(model: &Model) -> String {
    export_with(model, Events::Quantified)
}

/// The instances each component needs when every capacity need is
/// static (`None` when one changes with what is lost, or never suffices).
fn static_needs(model: &Model) -> Option<Vec<u32>> {
    let limited = crate::engine::throughput::limited(model);
    let compiled = crate::engine::capacity::compile(limited.as_ref().unwrap_or(model), false);
    let mut needs: Vec<u32> = model.components.iter().map(|c| c.min_healthy).collect();
    for (i, need) in compiled.needs.iter().enumerate() {
        match need {
            crate::engine::capacity::Need::Structural => {}
            crate::engine::capacity::Need::Static(k) => needs[i] = *k,
            _ => return None,
        }
    }
    Some(needs)
}

/// Whether [`export`] counts capacity: every need is static, so its top
/// gates are the capacity-aware figures (else the structural ones).
#[must_use]
pub fn counts_capacity(model: &Model) -> bool {
    static_needs(model).is_some()
}

/// Which failures become basic events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// Only what has a figure, as the availability counts it.
    Quantified,
    /// Everything that can fail, unquantified things at a placeholder 0.5:
    /// for comparing minimal cut sets, where probabilities do not matter.
    Structural,
}

/// The probability of being down that a thing gets as a basic event, if it
/// is one.
fn down_probability(availability: Option<f64>, events: Events) -> Option<f64> {
    match (availability, events) {
        (Some(a), _) if a < 1.0 => Some(1.0 - a),
        (None, Events::Structural) => Some(0.5),
        _ => None,
    }
}

/// Writes the model as an Open-PSA MEF document with the chosen events.
#[must_use]
pub fn export_with(model: &Model, events: Events) -> String {
    let needs = static_needs(model);
    let capacity_note = if needs.is_some() {
        "; atleast gates count the instances capacity needs (every need is static)"
    } else {
        "; capacity-blind: some component's capacity need changes with what is lost, so the gates count min_healthy (nines' structural_availability)"
    };
    let mut tree = Tree {
        events,
        model,
        needs: needs.unwrap_or_else(|| model.components.iter().map(|c| c.min_healthy).collect()),
        gates: Vec::new(),
        memo: HashMap::new(),
        path: Vec::new(),
        depth: vec![None; model.components.len()],
        copies: 0,
    };
    let mut tops = Vec::new();
    for &entrypoint in &model.entrypoints {
        let (formula, _) = tree.down(entrypoint);
        tops.push((top_gate(&model.component(entrypoint).name), formula));
    }
    let mut out = String::from("<?xml version=\"1.0\"?>\n");
    let _ = writeln!(
        out,
        "<!-- {}: generated by nines export; top-<entrypoint> is the entrypoint being down{capacity_note} -->",
        crate::escape::xml_comment(&model.system)
    );
    out.push_str("<opsa-mef>\n  <define-fault-tree name=\"nines\">\n");
    for (name, formula) in tops.iter().chain(&tree.gates) {
        let _ = writeln!(out, "    <define-gate name=\"{name}\">");
        formula.write(&mut out, 6);
        out.push_str("    </define-gate>\n");
    }
    out.push_str("  </define-fault-tree>\n  <model-data>\n");
    for (name, down) in basic_events(model, events) {
        let _ = writeln!(
            out,
            "    <define-basic-event name=\"{name}\"><float value=\"{down:e}\"/></define-basic-event>"
        );
    }
    out.push_str(
        "    <define-house-event name=\"never\"><constant value=\"false\"/></define-house-event>\n",
    );
    out.push_str("  </model-data>\n</opsa-mef>\n");
    out
}

/// Every basic event with its probability of being down.
fn basic_events(model: &Model, which: Events) -> Vec<(String, f64)> {
    let mut events = Vec::new();
    for domain in &model.domains {
        if let Some(down) = down_probability(domain.availability, which) {
            events.push((format!("domain-{}", encode(&domain.name)), down));
        }
    }
    for group in &model.groups {
        if let Some(down) = down_probability(group.availability, which) {
            events.push((format!("group-{}", encode(&group.name)), down));
        }
    }
    for component in &model.components {
        if let Some(down) = down_probability(component.availability, which) {
            for i in 0..component.instances {
                events.push((format!("inst-{}-{i}", encode(&component.name)), down));
            }
        }
    }
    events
}

/// The kind and model name behind a basic event's name (`inst-api-2` →
/// `("component", "api")`, `domain-az_oa` → `("domain", "az.a")`), for
/// reading cut sets back.
#[must_use]
pub fn subject_of(event: &str) -> Option<(&'static str, String)> {
    let (kind, encoded) = if let Some(rest) = event.strip_prefix("inst-") {
        ("component", rest.rsplit_once('-')?.0)
    } else if let Some(rest) = event.strip_prefix("domain-") {
        ("domain", rest)
    } else {
        ("group", event.strip_prefix("group-")?)
    };
    Some((kind, decode(encoded)))
}

/// Undoes [`encode`].
fn decode(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut chars = encoded.chars();
    while let Some(c) = chars.next() {
        match (c, c == '_') {
            (_, true) => match chars.next() {
                Some('o') => out.push('.'),
                Some(other) => out.push(other),
                None => out.push('_'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

struct Tree<'a> {
    events: Events,
    model: &'a Model,
    /// The instances each component needs up.
    needs: Vec<u32>,
    gates: Vec<(String, Formula)>,
    memo: HashMap<ComponentId, Formula>,
    /// The path being unfolded, from the entrypoint.
    path: Vec<Unfolding>,
    /// Each component's depth on `path`, while it is on it.
    depth: Vec<Option<usize>>,
    copies: usize,
}

/// A component on the path being unfolded: its causes of being down so
/// far, and the required edge and target to unfold next.
struct Unfolding {
    c: ComponentId,
    causes: Vec<Formula>,
    /// The lowest depth on the path its formula depends on so far.
    low: usize,
    edges: Vec<(EdgeKind, u32, Vec<ComponentId>)>,
    /// The edge being unfolded; `downs` holds its targets done so far.
    edge: usize,
    downs: Vec<Formula>,
}

impl Tree<'_> {
    /// "Component `c` is down", and the lowest path depth it depends on.
    ///
    /// A depth-first unfolding of the required edges with its own rule (a
    /// component already on the path counts as up, and a formula that
    /// depends on the path is copied rather than shared), so it is
    /// hand-written; it keeps the path in `self.path` rather than on the
    /// call stack, so a chain of any length unfolds.
    fn down(&mut self, c: ComponentId) -> (Formula, usize) {
        let mut answer = self.enter(c);
        loop {
            let Some(top) = self.path.last_mut() else {
                return answer.unwrap_or((Formula::Never, usize::MAX));
            };
            if let Some((formula, low)) = answer.take() {
                top.low = top.low.min(low);
                top.downs.push(formula);
            }
            let Some((kind, at_least, targets)) = top.edges.get(top.edge) else {
                // Every required edge unfolded: the component is done.
                let Some(done) = self.path.pop() else {
                    continue;
                };
                answer = Some(self.leave(done));
                continue;
            };
            if let Some(&next) = targets.get(top.downs.len()) {
                answer = self.enter(next);
                continue;
            }
            let (kind, at_least) = (*kind, *at_least as usize);
            let downs = std::mem::take(&mut top.downs);
            top.edge += 1;
            let cause = match kind {
                EdgeKind::Target => Formula::or(downs),
                // Down when more than m − k alternatives are down.
                EdgeKind::AnyOf | EdgeKind::AtLeast => {
                    let m = downs.len();
                    let downs = self.distinct(downs);
                    Formula::at_least(m - at_least + 1, downs)
                }
            };
            if let Some(top) = self.path.last_mut() {
                top.causes.push(cause);
            }
        }
    }

    /// The answer for `c` when it needs no unfolding (it is on the path, so
    /// it counts as up; or it is done already); else puts it on the path.
    fn enter(&mut self, c: ComponentId) -> Option<(Formula, usize)> {
        if let Some(depth) = self.depth[c.0] {
            return Some((Formula::Never, depth)); // on the path: counts as up
        }
        if let Some(f) = self.memo.get(&c) {
            return Some((f.clone(), usize::MAX));
        }
        self.depth[c.0] = Some(self.path.len());
        let causes = vec![self.health(c)];
        let edges = self
            .model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
            .map(|e| (e.kind, e.at_least, e.targets.clone()))
            .collect();
        self.path.push(Unfolding {
            c,
            causes,
            low: usize::MAX,
            edges,
            edge: 0,
            downs: Vec::new(),
        });
        None
    }

    /// The formula of a component taken off the path, as a gate: shared
    /// (memoised) when it depends on nothing below it on the path, else a
    /// copy for this place in the unfolding.
    fn leave(&mut self, done: Unfolding) -> (Formula, usize) {
        let depth = self.path.len();
        self.depth[done.c.0] = None;
        let formula = Formula::or(done.causes);
        let name = self.model.component(done.c).name.as_str();
        let reference = if formula == Formula::Never {
            Formula::Never
        } else if done.low >= depth {
            let gate = format!("down-{}", encode(name));
            self.gates.push((gate.clone(), formula));
            Formula::Gate(gate)
        } else {
            self.copies += 1;
            let gate = format!("down-{}-{}", encode(name), self.copies);
            self.gates.push((gate.clone(), formula));
            Formula::Gate(gate)
        };
        if done.low >= depth {
            self.memo.insert(done.c, reference.clone());
        }
        (reference, done.low)
    }

    /// "Too few instances of `c` are up, or one of its groups fired".
    fn health(&mut self, c: ComponentId) -> Formula {
        let model = self.model;
        let component = model.component(c);
        let mut causes: Vec<Formula> = component
            .shares
            .iter()
            .filter(|g| down_probability(model.group(**g).availability, self.events).is_some())
            .map(|g| Formula::Basic(format!("group-{}", encode(&model.group(*g).name))))
            .collect();
        let own = down_probability(component.availability, self.events).is_some();
        let mut instances = Vec::new();
        let mut index = 0;
        let placement: Vec<(Option<crate::model::DomainId>, u32)> =
            if component.placement.is_empty() {
                vec![(None, component.instances)]
            } else {
                component
                    .placement
                    .iter()
                    .map(|&(d, n)| (Some(d), n))
                    .collect()
            };
        for (domain, count) in placement {
            let domains: Vec<Formula> = domain
                .into_iter()
                .flat_map(|d| std::iter::once(d).chain(model.domain(d).ancestors.iter().copied()))
                .filter(|d| down_probability(model.domain(*d).availability, self.events).is_some())
                .map(|d| Formula::Basic(format!("domain-{}", encode(&model.domain(d).name))))
                .collect();
            for _ in 0..count {
                let mut down = domains.clone();
                if own {
                    down.push(Formula::Basic(format!(
                        "inst-{}-{index}",
                        encode(&component.name)
                    )));
                }
                instances.push(Formula::or(down));
                index += 1;
            }
        }
        let need = self.needs[c.0].min(component.instances);
        let threshold = (component.instances - need + 1) as usize;
        let instances = self.distinct(instances);
        causes.push(Formula::at_least(threshold, instances));
        Formula::or(causes)
    }

    /// MEF rejects an argument repeated in one gate, but "at least k of" must
    /// count two instances that fail with the same event twice: repeats are
    /// given gates of their own that stand for the same formula.
    fn distinct(&mut self, items: Vec<Formula>) -> Vec<Formula> {
        let mut out: Vec<Formula> = Vec::with_capacity(items.len());
        for item in items {
            if item != Formula::Never && out.contains(&item) {
                self.copies += 1;
                let gate = format!("same-{}", self.copies);
                self.gates.push((gate.clone(), item));
                out.push(Formula::Gate(gate));
            } else {
                out.push(item);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_encode_injectively() {
        assert_eq!(encode("a.b"), "a_ob");
        assert_eq!(encode("a_ob"), "a__ob");
        assert_ne!(encode("a.b"), encode("a_ob"));
        assert_eq!(
            subject_of("inst-a_ob-3"),
            Some(("component", "a.b".to_owned()))
        );
        assert_eq!(
            subject_of("domain-a__ob-x"),
            Some(("domain", "a_ob-x".to_owned()))
        );
        assert_eq!(
            subject_of("group-release-1"),
            Some(("group", "release-1".to_owned()))
        );
    }

    #[test]
    fn a_static_capacity_need_is_the_atleast_count() {
        // 100 / 40 = 2.5: checkout needs 3 of its 4 instances in every
        // state, so it is down when 4 - 3 + 1 = 2 of them are.
        let model = crate::model::parse(
            "system: s\ncomponents:\n  checkout: {instances: 4, availability: 99.9%, capacity: 40, load: 100}\n",
        )
        .unwrap();
        assert!(counts_capacity(&model));
        let text = export(&model);
        assert!(text.contains("<atleast min=\"2\">"), "{text}");
        // A cache whose loss moves load makes the need change: capacity-blind.
        let cached = crate::model::parse(
            "system: s\ncomponents:\n  web: {instances: 2, capacity: 100, load: 100, depends_on: [{target: cache, degradable: true}, {target: db, hit_rate: 90%, cached_by: cache}]}\n  cache: {}\n  db: {instances: 3, availability: 99%, capacity: 50}\n",
        )
        .unwrap();
        assert!(!counts_capacity(&cached));
        assert!(export(&cached).contains("capacity-blind"));
    }

    #[test]
    fn two_of_three_becomes_an_atleast_gate_of_two() {
        let model = crate::model::parse(
            r"system: s
components:
  zk: {instances: 3, min_healthy: 2, availability: 99%}
",
        )
        .unwrap();
        let text = export(&model);
        // Down when 3 − 2 + 1 = 2 of the 3 instances are down.
        assert!(text.contains("<atleast min=\"2\">"), "{text}");
        // 1 − 0.99 in binary floating point, printed exactly.
        assert!(
            text.contains("name=\"inst-zk-2\"><float value=\"1.0000000000000009e-2\"/>"),
            "{text}"
        );
    }

    #[test]
    fn a_5000_long_chain_unfolds_without_recursion() {
        use std::fmt::Write as _;
        // c0 requires c1 … requires c5000, and c5000 requires c0 back: the
        // unfolding walks 5,001 components deep before the cycle closes.
        let mut text = String::from("system: s\nentrypoints: [c0]\ncomponents:\n");
        for i in 0..=5000 {
            let next = if i == 5000 { 0 } else { i + 1 };
            let _ = writeln!(
                text,
                "  c{i}: {{availability: 99.9%, depends_on: [c{next}]}}"
            );
        }
        let model = crate::model::parse(&text).unwrap();
        let text = export(&model);
        // One gate for the entrypoint, and c0 … c5000 each down once: c0
        // closes the cycle (on the path, so up), so every other gate
        // depends on the path and is a copy (`down-c1-…`), c0's shared.
        assert!(text.contains("<define-gate name=\"top-c0\">"));
        assert!(text.contains("<define-gate name=\"down-c0\">"));
        assert!(text.contains("<define-gate name=\"down-c5000-1\">"));
        assert!(text.contains("<define-gate name=\"down-c1-5000\">"));
        assert_eq!(text.matches("<define-gate ").count(), 1 + 5001);
    }
}
