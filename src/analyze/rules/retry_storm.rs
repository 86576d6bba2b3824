//! `retry-storm/<component>`: a failure rate under 10% already pushes a
//! component's load, retries included, over its capacity.

use std::collections::BTreeMap;

use super::call_paths::{self, CallPath, critical_failure_rate, storm_load};
use super::wording::{number, percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity};
use crate::analyze::results::Report;
use crate::model::Rule;
use crate::model::{ComponentId, Model};

/// Below this critical failure rate, a storm can outlive its trigger.
const STORM_THRESHOLD: f64 = 0.10;

// ---- finding constructors ----

fn storm(model: &Model, path: &CallPath, load: f64, capacity: f64, critical: f64) -> Finding {
    let component = model.component(path.last());
    let a = path.amplification;
    let per_instance = component.capacity.map_or(0.0, |c| c.per_instance);
    let up = if per_instance > 0.0 {
        (capacity / per_instance).round()
    } else {
        f64::from(component.instances)
    };
    let curve = if critical > 0.0 {
        format!(
            "over it from f = ({} / {} − 1) / ({} − 1) = {}; at 5% it carries {}, at 25% {}",
            number(capacity),
            number(load),
            number(a),
            percent(critical),
            number(storm_load(load, 0.05, a)),
            number(storm_load(load, 0.25, a)),
        )
    } else {
        "already over it before any failure".to_owned()
    };
    Finding::new(
        DOC.rule,
        &component.name,
        Severity::Warning,
        path.innermost_retries_span(),
        format!(
            "{} (capacity {} × {} = {}, load {}) gets up to {} attempts per call on {}: at failure rate f it carries {} × (1 − f) + {} × f × {}, {curve}",
            component.name,
            up,
            number(per_instance),
            number(capacity),
            number(load),
            number(a),
            path.id(model),
            number(load),
            number(load),
            number(a),
        ),
    )
    .help(format!(
        "cap the retries into {} with a `retry_budget` (or a circuit breaker), retry at fewer layers, or give it the capacity to absorb the retries of {} failures",
        component.name,
        percent(STORM_THRESHOLD)
    ))
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryStorm,
    id: "retry-storm/<component>",
    severity: "warning",
    summary: "A small failure rate already pushes a component's retry load over its capacity.",
    checks: "For every component with `capacity` and `load` at the end of a call path that retries, with the worst amplification `A` of the paths reaching it, its load `L` and total capacity `C = instances × capacity`: the load at failure rate `f` is `L × (1 − f) + L × f × A`, which reaches `C` at `f = (C / L − 1) / (A − 1)`. Below 10% is reported.",
    why: "Past that failure rate, the retries alone keep the component over capacity: it fails more, which makes the callers retry more. The overload then sustains itself after the fault that started it is gone (a metastable failure), and only shedding load or stopping the retries ends it.",
    example: "components:\n  checkout: {depends_on: [{target: payments, retries: 2}]}\n  payments: {capacity: 110, load: 100}   # retry-storm/payments: (110/100 − 1) / (3 − 1) = 5%",
    fix: "Cap the retries into the component with a `retry_budget` (10% keeps the multiplier at 1.1) or a circuit breaker, retry at one layer only, or give the component headroom for the retries: `C ≥ L × (1 + 0.1 × (A − 1))` keeps the critical rate at 10% or more.",
};

// ---- the check ----

/// The `retry-storm` rule.
pub struct RetryStorm;

impl Analyzer for RetryStorm {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, report: &mut Report) {
        let paths = cx.call_paths();
        // The worst path into each component (first in walk order on ties).
        let mut worst: BTreeMap<ComponentId, &CallPath> = BTreeMap::new();
        for path in &paths.paths {
            let entry = worst.entry(path.last()).or_insert(path);
            if path.amplification > entry.amplification {
                *entry = path;
            }
        }
        let state = cx.state();
        for (id, path) in worst {
            // The load and the capacity of the instances up in the checked state.
            let (Some(capacity), Some(load)) = (state.capacity(cx.model, id), state.of(id).offered)
            else {
                continue;
            };
            if !state.of(id).running {
                continue;
            }
            if let Some(critical) = critical_failure_rate(load, capacity, path.amplification)
                && critical < STORM_THRESHOLD
            {
                report
                    .findings
                    .push(storm(cx.model, path, load, capacity, critical));
            }
        }
        call_paths::fill(cx.model, paths, report);
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
        assert_eq!(found[0].id, "retry-storm/payments");
        // (110 / 100 − 1) / (3 − 1) = 0.05; at 5%: 95 + 15 = 110; at 25%: 75 + 75 = 150
        assert!(
            found[0].message.contains(
                "from f = (110 / 100 − 1) / (3 − 1) = 5%; at 5% it carries 110, at 25% 150"
            ),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn the_worst_path_into_a_component_counts() {
        // Via a: 2; via b: 4 → (150 / 100 − 1) / (4 − 1) = 16.7%, no storm;
        // with 120 capacity: 0.2 / 3 = 6.7%, a storm on the b path.
        let text = r"system: s
components:
  e: {depends_on: [a, {target: b, retries: 3}]}
  a: {depends_on: [{target: db, retries: 1}]}
  b: {depends_on: [db]}
  db: {capacity: 150, load: 100}
";
        assert!(findings(text).is_empty());
        let found = findings(&text.replace("capacity: 150", "capacity: 120"));
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("on e>b>db"),
            "{}",
            found[0].message
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
