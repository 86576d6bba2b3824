//! `cascade/<component>`: a component failing at peak sends its whole load
//! along its `failover_to` chain, and the chain fails too. Every walk, failing
//! or not, becomes a row of the report's `cascades` section.
//!
//! The walk is the load flow of [`State`] step by step ([`settle`]): the
//! origin fails, the state is computed, whatever it overloads fails, and so
//! on until nothing more fails.

use std::fmt;
use std::sync::Arc;

use super::wording::amount;
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::{Cascade, CascadeStep, Audit};
use crate::engine::scenario::Scenario;
use crate::engine::state::{State, overloaded};
use crate::model::Rule;
use crate::model::{Component, ComponentId, Model};

// ---- finding constructors ----

/// `cascade/<component>`: the walk of its load along `failover_to`, step
/// by step, and how it ends.
#[derive(Debug)]
struct ChainFails {
    origin: Arc<str>,
    load: f64,
    steps: Steps,
    end: End,
    fallback_headroom: f64,
    recommended_fallback_capacity: f64,
}

/// How a failover walk ends.
#[derive(Debug)]
enum End {
    /// The last target holds, but what failed on the way has no running
    /// failover: this much is left unserved.
    Stranded(f64),
    /// The walk stops at a failed target whose `failover_to` has already
    /// failed (`Some`) or that has none (`None`, the name of the last one).
    Stopped {
        already_failed: Option<Arc<str>>,
        last: Arc<str>,
        unserved: f64,
    },
    /// The last target absorbs it, after this many failed on the way.
    Absorbed(usize),
}

fn chain_fails(model: &Model, before: &State, origin: &Component, walk: &Cascade) -> Finding {
    let name: Arc<str> = Arc::from(origin.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        origin.span,
        ChainFails {
            origin: name,
            load: walk.load,
            steps: Steps::new(before, &walk.steps),
            end: end(model, origin, walk),
            fallback_headroom: model.policy.fallback_headroom,
            recommended_fallback_capacity: walk.recommended_fallback_capacity,
        },
    )
}

impl Wording for ChainFails {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "{} failing at peak moves its load of {} along failover_to:{}",
            self.origin,
            amount(self.load),
            self.steps
        )?;
        match &self.end {
            End::Stranded(unserved) => write!(
                out,
                " {} is left unserved: what failed on the way has no running failover",
                amount(*unserved)
            ),
            End::Stopped {
                already_failed,
                last,
                unserved,
            } => {
                match already_failed {
                    Some(next) => write!(out, " {next} has already failed")?,
                    None => write!(out, " {last} has no failover_to")?,
                }
                write!(out, ": {} is left unserved", amount(*unserved))
            }
            End::Absorbed(failed) => write!(
                out,
                " the last target absorbs it, but {failed} failed on the way"
            ),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "fail {} over to a dedicated fallback that carries no traffic of its own, sized {} × {} = {} (policy.fallback_headroom × the load that fails over into it), or give each target in the chain room for the load it takes over",
            self.origin,
            self.fallback_headroom,
            amount(self.load),
            amount(self.recommended_fallback_capacity)
        )
    }
}

/// ` cell-b 560 + 620 = 1180 > 1000, fails; …`: each step with the load it
/// had before and the load it took over.
pub fn steps_text(before: &State, steps: &[CascadeStep]) -> String {
    Steps::new(before, steps).to_string()
}

/// The steps of a walk as [`steps_text`] writes them.
#[derive(Debug)]
struct Steps(Vec<StepWords>);

/// One step: the target, its own load and what it took over, against its
/// capacity (`None`: no capacity figures, the walk stops).
#[derive(Debug)]
struct StepWords {
    component: Arc<str>,
    own: f64,
    load: f64,
    capacity: Option<f64>,
    failed: bool,
}

impl Steps {
    fn new(before: &State, steps: &[CascadeStep]) -> Self {
        Self(
            steps
                .iter()
                .map(|step| StepWords {
                    component: Arc::from(step.component.as_str()),
                    own: before
                        .load(step.id)
                        .unwrap_or(0.0)
                        .min(step.load),
                    load: step.load,
                    capacity: step.capacity,
                    failed: step.failed,
                })
                .collect(),
        )
    }
}

impl fmt::Display for Steps {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step.capacity {
                Some(capacity) => write!(
                    out,
                    " {} {} + {} = {} {} {}{};",
                    step.component,
                    amount(step.own),
                    amount(step.load - step.own),
                    amount(step.load),
                    if step.failed { ">" } else { "<=" },
                    amount(capacity),
                    if step.failed { ", fails" } else { ", holds" },
                )?,
                None => write!(
                    out,
                    " {} has no capacity figures, so the walk stops;",
                    step.component
                )?,
            }
        }
        Ok(())
    }
}

/// How the walk ends: what is left unserved, or who absorbed it.
fn end(model: &Model, origin: &Component, walk: &Cascade) -> End {
    let last = walk.steps.last();
    if walk.unserved > 0.0 && last.is_some_and(|s| !s.failed) {
        End::Stranded(walk.unserved)
    } else if walk.unserved > 0.0 {
        let next = last.and_then(|s| model.component(s.id).failover_to);
        End::Stopped {
            already_failed: next.map(|next| Arc::from(model.component(next).name.as_str())),
            last: Arc::from(last.map_or(origin.name.as_str(), |s| s.component.as_str())),
            unserved: walk.unserved,
        }
    } else {
        End::Absorbed(walk.steps.iter().filter(|s| s.failed).count())
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Cascade,
    id: "cascade/<component>",
    severity: "error",
    summary: "A component failing at peak makes its `failover_to` chain fail too.",
    checks: "For every running component with `failover_to` and `capacity`: it fails at peak, and the walk is the load flow of that state step by step. Its load moves to the first component that is up along its `failover_to` chain (one down through a dependency is passed), which now carries its own load plus the incoming one; every component whose load rose above what its instances up carry (`instances × capacity`), without `load_shedding`, fails too, and the next state moves its load on along its own `failover_to`. The walk stops when nothing more fails; what reaches no running component is unserved. Every step is listed in the `cascades` section with the unserved load and the size of a dedicated fallback that would stop the walk: `policy.fallback_headroom` × the load that fails over into it.",
    why: "Failover only helps when the target has room. Peers that each run at 60% cannot take each other's load, so one failure at peak overloads the next peer, which fails and passes everything on: a ring of cells goes down one after the other, and the failover mechanism itself spreads the outage. This is how one cell's incident becomes a regional one.",
    example: "components:\n  cell-a: {instances: 5, capacity: 200, load: 620, failover_to: cell-b}   # cascade/cell-a, and -b, -c\n  cell-b: {instances: 5, capacity: 200, load: 560, failover_to: cell-c}\n  cell-c: {instances: 5, capacity: 200, load: 480, failover_to: cell-a}",
    fix: "Point `failover_to` at a dedicated fallback that carries no traffic of its own, sized as recommended (the `fallback` rule checks its size), or keep enough spare capacity in each peer for the largest load that can fail over to it. `load_shedding` on the targets limits the damage but still leaves load unserved.",
};

// ---- the check ----

/// The failures that follow `failed` in the checked scenario, step by step,
/// each step one [`State`]: a running component without `load_shedding`
/// whose load rose above `reference` and above what its instances up can
/// carry fails, and its load moves along its `failover_to`; until nothing
/// more fails. Returns the steps (the components that failed, in order,
/// then those that absorbed failover load) and the final state.
pub fn settle(
    cx: &Context,
    reference: &State,
    mut failed: Vec<ComponentId>,
) -> (Vec<CascadeStep>, State) {
    let model = cx.model;
    let mut steps = Vec::new();
    // `failed` in order (the scenario lists it so), and as a set.
    let mut is_failed = vec![false; model.components.len()];
    for &id in &failed {
        is_failed[id.0] = true;
    }
    loop {
        let event = Scenario {
            failed_instances: failed
                .iter()
                .map(|&c| (c, model.component(c).instances))
                .collect(),
            ..Scenario::default()
        };
        let state = cx.state_with(&event);
        let newly: Vec<ComponentId> = model
            .component_ids()
            .filter(|&id| {
                let c = model.component(id);
                !c.load_shedding
                    && !is_failed[id.0]
                    && overloaded(model, &state, id)
                    && state.of(id).offered.unwrap_or(0.0)
                        > reference.of(id).offered.unwrap_or(0.0) + 1e-9
            })
            .collect();
        if newly.is_empty() || failed.len() >= model.components.len() {
            let mut absorbing: Vec<ComponentId> = state
                .moves
                .iter()
                .map(|&(_, to, _)| to)
                .filter(|to| !is_failed[to.0])
                .collect();
            absorbing.sort_unstable();
            absorbing.dedup();
            for id in absorbing {
                steps.push(CascadeStep {
                    component: model.component(id).name.clone(),
                    id,
                    load: state.of(id).offered.unwrap_or(0.0),
                    capacity: state.capacity(model, id),
                    failed: false,
                });
            }
            return (steps, state);
        }
        for &id in &newly {
            steps.push(CascadeStep {
                component: model.component(id).name.clone(),
                id,
                load: state.of(id).offered.unwrap_or(0.0),
                capacity: state.capacity(model, id),
                failed: true,
            });
        }
        for &id in &newly {
            is_failed[id.0] = true;
        }
        failed.extend(newly);
    }
}

/// The failover walk from `origin` at peak in the checked state, or `None`
/// when it has no `failover_to`, no capacity figures or is not running.
pub fn walk(cx: &Context, origin: ComponentId) -> Option<Cascade> {
    let model = cx.model;
    let o = model.component(origin);
    o.capacity?;
    o.failover_to?;
    let now = cx.state();
    if !now.of(origin).running {
        return None;
    }
    let load = now.of(origin).offered?;
    let (steps, after) = settle(cx, now, vec![origin]);
    Some(Cascade {
        origin: o.name.clone(),
        load,
        steps,
        unserved: (after.unserved - now.unserved).max(0.0),
        recommended_fallback_capacity: model.policy.fallback_headroom * load,
    })
}

/// The `cascade` rule.
pub struct FailoverCascade;

impl Analyzer for FailoverCascade {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for id in cx.model.component_ids() {
            let Some(walk) = walk(cx, id) else {
                continue;
            };
            let origin = cx.model.component(id);
            if walk.steps.iter().any(|s| s.failed) || walk.unserved > 0.0 {
                audit
                    .findings
                    .push(chain_fails(cx.model, cx.state(), origin, &walk));
            }
            audit.cascades.push(walk);
        }
    }
}

// ---- tests ----

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "the loads are whole numbers, exact in f64"
)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&FailoverCascade, text)
    }

    const RING: &str = r"system: s
components:
  cell-a: {instances: 5, capacity: 200, load: 620, failover_to: cell-b}
  cell-b: {instances: 5, capacity: 200, load: 560, failover_to: cell-c}
  cell-c: {instances: 5, capacity: 200, load: 480, failover_to: cell-a}
";

    #[test]
    fn a_peer_ring_cascades_all_the_way_round() {
        let audit = run(RING);
        let ids: Vec<String> = audit.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["cascade/cell-a", "cascade/cell-b", "cascade/cell-c"]);
        // a fails at 620: b 560 + 620 = 1180 > 5 × 200 = 1000 fails; c 480 + 1180 = 1660 > 1000
        // fails; a is already down: 1660 unserved. Fallback 1.5 × 620 = 930.
        let a = &audit.cascades[0];
        let steps: Vec<(&str, f64, bool)> = a
            .steps
            .iter()
            .map(|s| (s.component.as_str(), s.load, s.failed))
            .collect();
        assert_eq!(steps, [("cell-b", 1180.0, true), ("cell-c", 1660.0, true)]);
        assert_eq!(a.unserved, 1660.0);
        assert_eq!(a.recommended_fallback_capacity, 930.0);
        assert_eq!(
            audit.findings[0].message().to_string(),
            "cell-a failing at peak moves its load of 620 along failover_to: cell-b 560 + 620 = 1180 > 1000, fails; cell-c 480 + 1180 = 1660 > 1000, fails; cell-a has already failed: 1660 is left unserved"
        );
        // b first: c 480 + 560 = 1040 > 1000; a 620 + 1040 = 1660. c first: a 620 + 480 = 1100; b 560 + 1100 = 1660.
        assert_eq!(audit.cascades[1].steps[0].load, 1040.0);
        assert_eq!(audit.cascades[2].steps[0].load, 1100.0);
        assert_eq!(audit.cascades[2].unserved, 1660.0);
        // 1.5 × 560 = 840, 1.5 × 480 = 720.
        assert_eq!(audit.cascades[1].recommended_fallback_capacity, 840.0);
        assert_eq!(audit.cascades[2].recommended_fallback_capacity, 720.0);
    }

    #[test]
    fn peers_that_can_absorb_each_other_raise_nothing() {
        // a fails at 300: b 300 + 300 = 600 <= 1000.
        let audit = run(r"system: s
components:
  a: {instances: 5, capacity: 200, load: 300, failover_to: b}
  b: {instances: 5, capacity: 200, load: 300, failover_to: a}
");
        assert!(audit.findings.is_empty());
        assert_eq!(audit.cascades.len(), 2);
        assert_eq!(audit.cascades[0].unserved, 0.0);
        assert!(!audit.cascades[0].steps[0].failed);
    }

    #[test]
    fn a_dedicated_fallback_that_is_too_small_leaves_the_load_unserved() {
        // spare: 0 + 620 > 2 × 200 = 400, fails, and has nowhere to go.
        let audit = run(r"system: s
components:
  cell-a: {instances: 5, capacity: 200, load: 620, failover_to: spare}
  spare: {instances: 2, capacity: 200, load: 0}
");
        assert_eq!(audit.cascades[0].unserved, 620.0);
        assert!(
            audit.findings[0].message().to_string().ends_with(
                "spare 0 + 620 = 620 > 400, fails; spare has no failover_to: 620 is left unserved"
            ),
            "{}",
            audit.findings[0].message().to_string()
        );
    }

    #[test]
    fn a_target_without_capacity_ends_the_walk_unjudged() {
        let audit = run(r"system: s
components:
  a: {capacity: 10, load: 5, failover_to: b}
  b: {}
");
        assert!(audit.findings.is_empty());
        assert_eq!(audit.cascades[0].steps[0].capacity, None);
    }

    #[test]
    fn the_walk_follows_the_load_flow_downstream() {
        // a fails: b takes its 50 (100 <= 2 × 100), and b's calls bring db
        // 50 + 50 = 100 > 80: db fails. b now runs but is down (it requires
        // db), so it takes nothing over: a's 50 and b's 50 (at db) are
        // unserved, 100 in all (the walk used to say "b 100 <= 200, holds"
        // of a cell that fails everything it takes).
        let audit = run(
            "system: s\nentrypoints: [a, b]\ncomponents:\n  a: {capacity: 100, load: 50, failover_to: b}\n  b: {instances: 2, capacity: 100, load: 50, depends_on: [db]}\n  db: {capacity: 80}\n",
        );
        let a = &audit.cascades[0];
        let steps: Vec<(&str, f64, bool)> = a
            .steps
            .iter()
            .map(|s| (s.component.as_str(), s.load, s.failed))
            .collect();
        assert_eq!(steps, [("db", 100.0, true)]);
        assert_eq!(a.unserved, 100.0);
        assert_eq!(
            audit.findings[0].message().to_string(),
            "a failing at peak moves its load of 50 along failover_to: db 50 + 50 = 100 > 80, fails; db has no failover_to: 100 is left unserved"
        );
    }
}
