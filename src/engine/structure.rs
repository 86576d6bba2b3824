//! The structure function of one entrypoint, split so that series models
//! stay linear: the components that must all be up (the entrypoint and
//! everything reached through required single-target edges) form the
//! `series` set, and only the alternatives hanging off it (`any_of`,
//! `at_least`) go into a BDD, with the series members fixed to "up".
//!
//! Why that is exact: the entrypoint is up exactly when every series member
//! is healthy and every alternative gate holds, so
//! `P(up) = P(series healthy) × P(gates | series healthy)`, and given the
//! correlated events each component's health is independent of the others.
//!
//! Cycles of required edges take the greatest fixed point: while unfolding
//! the dependencies of a component, a component already on the path counts
//! as up. For a monotone system this gives the greatest fixed point
//! (νx.f(x) = f(true) for one boolean variable, and Bekić's lemma for
//! several).

use std::collections::{HashMap, HashSet};

use super::bdd::{Bdd, Ref, TRUE};
use crate::model::{ComponentId, EdgeKind, Model};

/// One entrypoint's structure.
pub struct Structure {
    /// Components that must all be healthy (the entrypoint first).
    pub series: Vec<ComponentId>,
    /// The alternatives, as a BDD over `vars` (series members fixed up).
    pub bdd: Bdd,
    /// The root of the alternatives' function; `TRUE` for series models.
    pub root: Ref,
    /// BDD variable `v` is the health of component `vars[v]`.
    pub vars: Vec<ComponentId>,
    /// Whether the BDD grew too large to finish (the figure is then bounded).
    pub truncated: bool,
}

impl Structure {
    /// Every component whose health can matter to the entrypoint.
    pub fn components(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.series.iter().chain(&self.vars).copied()
    }
}

/// Builds the structure of `entrypoint`.
#[must_use]
pub fn build(model: &Model, entrypoint: ComponentId) -> Structure {
    let series = series_closure(model, entrypoint);
    // Sets, not model-sized vectors: a model has many entrypoints, each
    // with a small closure.
    let in_series: HashSet<ComponentId> = series.iter().copied().collect();
    let mut builder = Builder {
        model,
        in_series,
        bdd: Bdd::new(),
        var_of: HashMap::new(),
        vars: Vec::new(),
        memo: HashMap::new(),
        stack: Vec::new(),
        truncated: false,
    };
    let mut root = TRUE;
    for &member in &series {
        for edge in model
            .component(member)
            .depends_on
            .iter()
            .filter(|e| !e.degradable && e.kind != EdgeKind::Target)
        {
            let (gate, _) = builder.gate(edge.at_least as usize, &edge.targets);
            root = builder.bdd.and(root, gate);
            if builder.truncated {
                break;
            }
        }
    }
    let root = builder.bdd.retain(root);
    Structure {
        series,
        root,
        vars: builder.vars,
        truncated: builder.truncated,
        bdd: builder.bdd,
    }
}

/// The entrypoint and everything reached from it through required
/// single-target edges, in breadth-first order.
fn series_closure(model: &Model, entrypoint: ComponentId) -> Vec<ComponentId> {
    let mut seen: HashSet<ComponentId> = HashSet::from([entrypoint]);
    let mut order = vec![entrypoint];
    let mut next = 0;
    while let Some(&c) = order.get(next) {
        next += 1;
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable && e.kind == EdgeKind::Target)
        {
            for t in &edge.targets {
                if seen.insert(*t) {
                    order.push(*t);
                }
            }
        }
    }
    order
}

struct Builder<'a> {
    model: &'a Model,
    in_series: HashSet<ComponentId>,
    bdd: Bdd,
    var_of: HashMap<ComponentId, u32>,
    vars: Vec<ComponentId>,
    memo: HashMap<ComponentId, Ref>,
    stack: Vec<ComponentId>,
    truncated: bool,
}

impl Builder<'_> {
    /// "At least `k` of `targets` are up"; also returns the lowest stack
    /// depth the result depends on (for memoisation).
    fn gate(&mut self, k: usize, targets: &[ComponentId]) -> (Ref, usize) {
        let mut low = usize::MAX;
        let mut items = Vec::with_capacity(targets.len());
        for &t in targets {
            let (r, l) = self.value(t);
            low = low.min(l);
            items.push(r);
        }
        (self.bdd.at_least(k, &items), low)
    }

    /// The function "component `c` is up".
    fn value(&mut self, c: ComponentId) -> (Ref, usize) {
        if self.in_series.contains(&c) || self.truncated {
            return (TRUE, usize::MAX);
        }
        if let Some(depth) = self.stack.iter().position(|&s| s == c) {
            return (TRUE, depth); // greatest fixed point: on the path counts as up
        }
        if let Some(&r) = self.memo.get(&c) {
            return (r, usize::MAX);
        }
        let next = u32::try_from(self.vars.len()).unwrap_or(u32::MAX);
        let var = *self.var_of.entry(c).or_insert(next);
        if var == next {
            self.vars.push(c);
        }
        let depth = self.stack.len();
        self.stack.push(c);
        let mut result = self.bdd.var(var);
        let mut low = usize::MAX;
        let edges: Vec<(usize, Vec<ComponentId>)> = self
            .model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
            .map(|e| {
                // A single-target edge needs its (one) target: "at least all of them".
                let k = if e.kind == EdgeKind::Target {
                    e.targets.len()
                } else {
                    e.at_least as usize
                };
                (k, e.targets.clone())
            })
            .collect();
        for (k, targets) in edges {
            let (gate, l) = self.gate(k, &targets);
            low = low.min(l);
            result = self.bdd.and(result, gate);
            if self.bdd.too_large() {
                self.truncated = true;
                break;
            }
        }
        self.stack.pop();
        if low >= depth {
            self.memo.insert(c, result);
        }
        (result, low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_models_need_no_bdd() {
        let m = crate::model::parse(
            "system: s\ncomponents:\n  a: {depends_on: [b, c]}\n  b: {depends_on: [c]}\n  c: {}\n",
        )
        .unwrap();
        let s = build(&m, ComponentId(0));
        assert_eq!(s.series, [ComponentId(0), ComponentId(1), ComponentId(2)]);
        assert!(s.vars.is_empty());
        assert_eq!(s.root, TRUE);
    }

    #[test]
    fn alternatives_become_variables() {
        let m = crate::model::parse(
            "system: s\ncomponents:\n  a: {depends_on: [{any_of: [x, y]}]}\n  x: {depends_on: [db]}\n  y: {depends_on: [db]}\n  db: {}\n",
        )
        .unwrap();
        let s = build(&m, ComponentId(0));
        assert_eq!(s.series, [ComponentId(0)]);
        // x, db (under x), y: db is shared and appears once.
        assert_eq!(s.vars, [ComponentId(1), ComponentId(3), ComponentId(2)]);
    }
}
