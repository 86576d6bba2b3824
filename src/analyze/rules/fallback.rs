//! `fallback/<component>`: a dedicated failover target (one that carries no
//! load of its own) smaller than `policy.fallback_headroom` times the largest
//! load failing over to it, or smaller than that load itself.

use super::wording::amount;
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::state::State;
use crate::model::Rule;
use crate::model::{Component, ComponentId, Model};

// ---- finding constructors ----

/// `fallback/<component>`: a dedicated fallback's sizing against what
/// fails over to it.
#[derive(Debug)]
struct Undersized {
    target: Arc<str>,
    size: Sizing,
    headroom: f64,
}

fn undersized(model: &Model, target: &Component, size: Sizing) -> Finding {
    let severity = if size.capacity < size.largest {
        Severity::Error
    } else {
        Severity::Warning
    };
    let name: Arc<str> = Arc::from(target.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        severity,
        target.span,
        Undersized {
            target: name,
            size,
            headroom: model.policy.fallback_headroom,
        },
    )
}

impl Wording for Undersized {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (size, headroom) = (&self.size, self.headroom);
        let have = format!(
            "{} × {} = {}",
            size.instances,
            amount(size.per_instance),
            amount(size.capacity)
        );
        write!(
            out,
            "{} carries no load of its own and takes over from {}: ",
            self.target,
            super::wording::capped_list(
                &size.sources,
                size.sources.len(),
                crate::engine::outage::LISTED
            ),
        )?;
        if size.capacity < size.largest {
            write!(
                out,
                "{have} < {}, the load of {} alone: taking it over overloads {} at once",
                amount(size.largest),
                size.source,
                self.target
            )
        } else {
            write!(
                out,
                "{have} < {headroom} × {} = {} (policy.fallback_headroom), though it holds {}'s load of {} without headroom",
                amount(size.largest),
                amount(headroom * size.largest),
                size.source,
                amount(size.largest)
            )
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (size, headroom) = (&self.size, self.headroom);
        if size.per_instance <= 0.0 {
            return write!(
                out,
                "give {} a capacity per instance: it has none, so it can take over nothing",
                self.target
            );
        }
        let n = needed_instances(headroom * size.largest, size.per_instance);
        write!(
            out,
            "give {} at least {n} instances of {}: {n} × {} = {} ≥ {headroom} × {} = {}",
            self.target,
            amount(size.per_instance),
            amount(size.per_instance),
            amount(n as f64 * size.per_instance),
            amount(size.largest),
            amount(headroom * size.largest)
        )
    }
}

fn needed_instances(capacity: f64, per_instance: f64) -> u64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative count; `as` saturates"
    )]
    let n = (capacity / per_instance).ceil() as u64;
    n
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Fallback,
    id: "fallback/<component>",
    severity: "warning",
    summary: "A dedicated failover target is smaller than `policy.fallback_headroom` × the largest load failing over to it.",
    checks: "Every running component that is some component's `failover_to` and carries no load of its own in the checked state (its load from the load flow is 0, apart from what already failed over to it): the capacity of its instances up (`instances × capacity`) against the largest load, in the same state, among the components that fail over to it (a component that is down counts with the load it moves). Below `policy.fallback_headroom` (default 1.5) times that load is a warning; below the load itself, an error. Targets that carry traffic of their own are peers: the `cascade` rule judges them.",
    why: "A dedicated fallback (a spare cell, a warm standby region) is only ever used on a bad day, so nobody notices when it stops being big enough: the fleet grows, the spare does not. Taking over exactly the peak load leaves no room for the retry surge and the cold caches of a failover, which is why the fallback is sized with headroom.",
    example: "policy: {fallback_headroom: 1.5}\ncomponents:\n  app-fra: {instances: 4, capacity: 500, load: 800, failover_to: app-dub}\n  app-dub: {instances: 2, capacity: 500, load: 0}   # fallback/app-dub: 1000 < 1.5 × 800 = 1200",
    fix: "Add instances to the fallback (or raise their capacity) until `instances × capacity` reaches `fallback_headroom` × the largest load failing over to it; automate scaling it up on failover when keeping it warm at full size is too dear, and model the size it has before the scale-up.",
};

// ---- the check ----

/// A dedicated fallback against what fails over to it.
#[derive(Debug)]
struct Sizing {
    /// Instances up.
    instances: u32,
    per_instance: f64,
    /// `instances × per_instance`.
    capacity: f64,
    /// Components failing over to it, with their loads, in model order.
    sources: Vec<String>,
    /// The largest load among them, and whose it is.
    largest: f64,
    source: String,
}

/// The sizing of `target` in `state`, when it is a running dedicated
/// fallback: its load apart from what already failed over to it is 0.
fn sizing(model: &Model, state: &State, target: ComponentId) -> Option<Sizing> {
    let t = model.component(target);
    let cap = t.capacity?;
    let here = state.of(target);
    if !here.running {
        return None;
    }
    let moved_in: f64 = state
        .moves
        .iter()
        .filter(|(_, to, _)| *to == target)
        .map(|(_, _, load)| load)
        .sum();
    if here.offered.is_some_and(|l| l - moved_in > LOAD_EPSILON) {
        return None;
    }
    let mut sources = Vec::new();
    let mut largest: Option<(f64, &str)> = None;
    for id in model.component_ids() {
        let c = model.component(id);
        if c.failover_to != Some(target) {
            continue;
        }
        // Its load in the state: what it serves, or what moves when it is down.
        let Some(load) = state.of(id).offered else {
            continue;
        };
        sources.push(format!("{} ({})", c.name, amount(load)));
        if largest.is_none_or(|(l, _)| load > l) {
            largest = Some((load, c.name.as_str()));
        }
    }
    let (largest, source) = largest?;
    let instances = here.instances_up;
    Some(Sizing {
        instances,
        per_instance: cap.per_instance,
        capacity: f64::from(instances) * cap.per_instance,
        sources,
        largest,
        source: source.to_owned(),
    })
}

/// Loads below this are 0 (what is left of a sum of moved loads).
const LOAD_EPSILON: f64 = 1e-9;

/// The `fallback` rule.
pub struct Fallback;

impl Analyzer for Fallback {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let state = cx.state();
        for id in cx.model.component_ids() {
            let Some(size) = sizing(cx.model, state, id) else {
                continue;
            };
            if size.capacity < cx.model.policy.fallback_headroom * size.largest {
                audit
                    .findings
                    .push(undersized(cx.model, cx.model.component(id), size));
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(spare_instances: u32) -> Vec<Finding> {
        crate::analyze::check_one(
            &Fallback,
            &format!(
                r"system: s
components:
  cell-a: {{instances: 5, capacity: 200, load: 620, failover_to: spare}}
  cell-b: {{instances: 5, capacity: 200, load: 560, failover_to: spare}}
  spare: {{instances: {spare_instances}, capacity: 200, load: 0}}
"
            ),
        )
        .findings
    }

    #[test]
    fn big_enough_a_bit_small_and_too_small() {
        // 5 × 200 = 1000 >= 1.5 × 620 = 930: fine.
        assert!(findings(5).is_empty());
        // 4 × 200 = 800 < 930 but >= 620: a warning.
        let small = findings(4);
        assert_eq!(small[0].id().to_string(), "fallback/spare");
        assert_eq!(small[0].severity, Severity::Warning);
        assert_eq!(
            small[0].message().to_string(),
            "spare carries no load of its own and takes over from cell-a (620), cell-b (560): 4 × 200 = 800 < 1.5 × 620 = 930 (policy.fallback_headroom), though it holds cell-a's load of 620 without headroom"
        );
        // ceil(930 / 200) = 5 instances.
        assert_eq!(
            small[0].help().map(|help| help.to_string()).as_deref(),
            Some("give spare at least 5 instances of 200: 5 × 200 = 1000 ≥ 1.5 × 620 = 930")
        );
        assert_eq!((small[0].location.line, small[0].location.column), (5, 3));
        // 3 × 200 = 600 < 620: an error.
        let tiny = findings(3);
        assert_eq!(tiny[0].severity, Severity::Error);
        assert!(tiny[0].message().to_string().ends_with(
            "600 < 620, the load of cell-a alone: taking it over overloads spare at once"
        ));
    }

    #[test]
    fn peers_with_load_of_their_own_are_not_fallbacks() {
        let found = crate::analyze::check_one(
            &Fallback,
            r"system: s
components:
  a: {instances: 5, capacity: 200, load: 300, failover_to: b}
  b: {instances: 5, capacity: 200, load: 300, failover_to: a}
",
        )
        .findings;
        assert!(found.is_empty());
    }

    /// The rule run on the state of `scenario`.
    fn under(text: &str, scenario: crate::engine::scenario::Scenario) -> Vec<Finding> {
        let model = crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"));
        let figures = crate::engine::availability(&model);
        let today = crate::model::Date::parse("2026-11-30").unwrap();
        let cx = Context::under(&model, today, &figures, scenario);
        let mut audit = Audit::new(model.system.clone(), Vec::new());
        Fallback.check(&cx, &mut audit);
        audit.findings
    }

    const CELLS: &str = "system: s\ncomponents:\n  cell-a: {instances: 5, capacity: 200, load: 620, failover_to: spare}\n  cell-b: {instances: 5, capacity: 200, load: 560, failover_to: spare}\n  spare: {instances: 5, capacity: 200, load: 0}\n";

    #[test]
    fn the_loads_are_those_of_the_checked_state() {
        use crate::engine::scenario::Scenario;
        // Twice the load: cell-a 1240; 5 × 200 = 1000 < 1240, an error.
        let doubled = under(
            CELLS,
            Scenario {
                load_factor: 2.0,
                ..Scenario::default()
            },
        );
        assert_eq!(doubled.len(), 1);
        assert_eq!(doubled[0].severity, Severity::Error);
        assert!(
            doubled[0]
                .message().to_string()
                .contains("from cell-a (1240), cell-b (1120): 5 × 200 = 1000 < 1240"),
            "{}",
            doubled[0].message().to_string()
        );
        // Two spare instances lost: 3 × 200 = 600 < 620, an error.
        let smaller = under(
            CELLS,
            Scenario {
                failed_instances: vec![(ComponentId(2), 2)],
                ..Scenario::default()
            },
        );
        assert!(
            smaller[0].message().to_string().ends_with(
                "3 × 200 = 600 < 620, the load of cell-a alone: taking it over overloads spare at once"
            ),
            "{}",
            smaller[0].message().to_string()
        );
        // cell-a down: its 620 moved onto the spare is not load of its own;
        // 1000 ≥ 1.5 × 620 = 930 still holds.
        let moved = under(
            CELLS,
            Scenario {
                failed_instances: vec![(ComponentId(0), 5)],
                ..Scenario::default()
            },
        );
        assert!(moved.is_empty(), "{moved:?}");
        // The spare itself down: nothing to size.
        let gone = under(
            &CELLS.replace("spare: {instances: 5", "spare: {instances: 3"),
            Scenario {
                failed_instances: vec![(ComponentId(2), 3)],
                ..Scenario::default()
            },
        );
        assert!(gone.is_empty(), "{gone:?}");
    }

    #[test]
    fn a_source_without_written_load_counts_with_its_flow() {
        // lb 1200 calls cell-a once: cell-a's derived load is 1200;
        // 5 × 200 = 1000 < 1200, an error (no written load on cell-a).
        let found = crate::analyze::check_one(
            &Fallback,
            "system: s\ncomponents:\n  lb: {instances: 2, capacity: 1000, load: 1200, depends_on: [cell-a]}\n  cell-a: {instances: 8, capacity: 200, failover_to: spare}\n  spare: {instances: 5, capacity: 200, load: 0}\n",
        )
        .findings;
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message().to_string()
                .contains("from cell-a (1200): 5 × 200 = 1000 < 1200"),
            "{}",
            found[0].message().to_string()
        );
    }
}
