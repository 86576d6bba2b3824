//! `retry-storm/<component>`: a failure rate under 10% already pushes a
//! component's load, retries included, over its capacity.

use std::collections::BTreeMap;

use super::call_paths::{self, CallPath, Storm};
use super::wording::{number, percent};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{ComponentId, Model};

/// Below this critical failure rate, a storm can outlive its trigger.
const STORM_THRESHOLD: f64 = 0.10;

// ---- finding constructors ----

/// `retry-storm/<component>`: the path's figures against the capacity of
/// its last hop.
#[derive(Debug)]
struct Stormed {
    component: Arc<str>,
    /// The path, as its id (`api>db`).
    path: String,
    /// The caller of the last edge, when its flow is known.
    caller: Option<Arc<str>>,
    figures: Storm,
    amplification: f64,
    critical: f64,
    per_instance: f64,
    /// Instances up.
    up: f64,
    /// A service the team does not run: its capacity is a quota.
    managed: bool,
}

fn storm(model: &Model, path: &CallPath, figures: &Storm, critical: f64) -> Finding {
    let component = model.component(path.last());
    let per_instance = component.capacity.map_or(0.0, |c| c.per_instance);
    let up = if per_instance > 0.0 {
        (figures.capacity / per_instance).round()
    } else {
        f64::from(component.instances)
    };
    let caller = match path.last_edge_from() {
        Some((caller, _)) if figures.flow_known => {
            Some(Arc::from(model.component(caller).name.as_str()))
        }
        _ => None,
    };
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        path.innermost_retries_span(),
        Stormed {
            component: name,
            path: path.id(model),
            caller,
            figures: *figures,
            amplification: path.amplification,
            critical,
            per_instance,
            up,
            managed: component.managed,
        },
    )
}

impl Wording for Stormed {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.amplification;
        let figures = &self.figures;
        let Storm {
            load,
            flow,
            capacity,
            ..
        } = *figures;
        let source = match &self.caller {
            Some(caller) => format!(
                "{} of it is what {caller} sends over this edge (caller load × calls × (1 − hit_rate))",
                number(flow),
            ),
            None => {
                "the caller's load is unknown, so all of it is taken to come over this path".to_owned()
            }
        };
        let curve = if self.critical > 0.0 {
            format!(
                "over it from f = ({} − {}) / ({} × ({} − 1)) = {}; at 5% it carries {}, at 25% {}",
                number(capacity),
                number(load),
                number(flow),
                number(a),
                percent(self.critical),
                number(figures.load_at(0.05, a)),
                number(figures.load_at(0.25, a)),
            )
        } else {
            "already over it before any failure".to_owned()
        };
        write!(
            out,
            "{} (capacity {} × {} = {}, load {}) gets up to {} attempts per call on {}; {source}: at failure rate f of those calls it carries {} + {} × f × ({} − 1), {curve}",
            self.component,
            self.up,
            number(self.per_instance),
            number(capacity),
            number(load),
            number(a),
            self.path,
            number(load),
            number(flow),
            number(a),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "cap the retries into {} with a `retry_budget` (or a circuit breaker), retry at fewer layers, or {} to absorb the retries of {} failures",
            self.component,
            if self.managed {
                "raise the provider's quota (it is managed)"
            } else {
                "give it the capacity"
            },
            percent(STORM_THRESHOLD)
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryStorm,
    id: "retry-storm/<component>",
    severity: "warning",
    summary: "A small failure rate already pushes a component's retry load over its capacity.",
    checks: "For every call path that retries (amplification `A`) into a running component with `capacity` and a known load, in the checked state: its load `L`, the capacity of its instances up `C`, and the load `F` that this path sends it, the flow over the path's last edge (`caller load × calls × (1 − hit_rate)`, from the load flow; all of `L` when the caller's load is unknown). When a share `f` of the path's calls fail, the path sends `F × (1 − f) + F × f × A` and the rest of the load stays, so the component carries `L + F × f × (A − 1)`, which reaches `C` at `f = (C − L) / (F × (A − 1))`. The path with the lowest such rate is judged; below 10% is reported.",
    why: "Past that failure rate, the retries alone keep the component over capacity: it fails more, which makes the callers retry more. The overload then sustains itself after the fault that started it is gone (a metastable failure), and only shedding load or stopping the retries ends it.",
    example: "components:\n  checkout: {load: 100, depends_on: [{target: payments, retries: 2}]}\n  payments: {capacity: 110, load: 100}   # retry-storm/payments: (110 − 100) / (100 × (3 − 1)) = 5%",
    fix: "Cap the retries into the component with a `retry_budget` (10% keeps the multiplier at 1.1) or a circuit breaker, retry at one layer only, or give the component headroom for the retries: `C ≥ L + 0.1 × F × (A − 1)` keeps the critical rate at 10% or more.",
};

// ---- the check ----

/// The `retry-storm` rule.
pub struct RetryStorm;

impl Analyzer for RetryStorm {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let paths = cx.call_paths();
        let state = cx.state();
        // The path into each component whose retries overload it at the
        // lowest failure rate (first in walk order on ties).
        let mut worst: BTreeMap<ComponentId, (&CallPath, Storm, f64)> = BTreeMap::new();
        for path in &paths.paths {
            let Some(figures) = Storm::of(cx.model, state, path) else {
                continue;
            };
            let Some(critical) = figures.critical(path.amplification) else {
                continue;
            };
            let entry = worst
                .entry(path.last())
                .or_insert((path, figures, critical));
            if critical < entry.2 {
                *entry = (path, figures, critical);
            }
        }
        for (path, figures, critical) in worst.into_values() {
            if critical < STORM_THRESHOLD {
                audit
                    .findings
                    .push(storm(cx.model, path, &figures, critical));
            }
        }
        call_paths::fill(cx.model, state, paths, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&RetryStorm, text).findings
    }

    #[test]
    fn five_percent_headroom_with_two_retries_storms() {
        let found = findings(
            r"system: s
components:
  checkout: {depends_on: [{target: payments, retries: 2}]}
  payments: {capacity: 110, load: 100}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "retry-storm/payments");
        // (110 / 100 − 1) / (3 − 1) = 0.05; at 5%: 95 + 15 = 110; at 25%: 75 + 75 = 150
        // checkout's load is unknown: all 100 is taken to come over the path.
        assert!(
            found[0].message().to_string().contains(
                "from f = (110 − 100) / (100 × (3 − 1)) = 5%; at 5% it carries 110, at 25% 150"
            ),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn the_worst_path_into_a_component_counts() {
        // Via a: 2; via b: 4 (no caller load known, so F = L = 100 on both)
        // → (150 − 100) / (100 × (4 − 1)) = 16.7%, no storm;
        // with 120 capacity: 20 / 300 = 6.7%, a storm on the b path.
        let text = "system: s\ncomponents:\n  e: {depends_on: [a, {target: b, retries: 3}]}\n  a: {depends_on: [{target: db, retries: 1}]}\n  b: {depends_on: [db]}\n  db: {capacity: 150, load: 100}\n";
        assert!(findings(text).is_empty());
        let found = findings(&text.replace("capacity: 150", "capacity: 120"));
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message().to_string().contains("on e>b>db"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn no_capacity_or_no_load_means_no_storm() {
        assert!(
            findings(
                r"system: s
components:
  a: {depends_on: [{target: b, retries: 5}, {target: c, retries: 5}]}
  b: {}
  c: {capacity: 10, load: 0}
"
            )
            .is_empty()
        );
    }
}
