//! `cold-start/<component>`: after a full restart, with the caches in front
//! of it empty, a component receives more than its capacity.

use super::wording::{number, percent};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::{Audit, Stampede};
use crate::engine::scenario::Scenario;
use crate::engine::start_order::StartOrder;
use crate::engine::state::State;
use crate::model::Rule;
use crate::model::{ComponentId, Model};

// ---- finding constructors ----

/// `cold-start/<component>`: the load with empty caches against the
/// capacity, and what each cache hides.
#[derive(Debug)]
struct ColdStampede {
    component: Arc<str>,
    /// Each cached edge into it.
    hidden: Vec<CachedCall>,
    /// Instances up, as written (`3`).
    up: f64,
    instances: u32,
    per_instance: f64,
    steady_load: f64,
    cold_load: f64,
    capacity: f64,
    admit_fraction: f64,
    /// A service the team does not run: its capacity is a quota.
    managed: bool,
}

/// A cached edge into the component: who calls, with what load, calls and
/// hit rate, spread over how many targets.
#[derive(Debug)]
struct CachedCall {
    caller: Arc<str>,
    /// The caller's load is inferred from the component's (as `nines
    /// recover` does): the caller gives none.
    inferred: bool,
    caller_load: f64,
    calls: f64,
    hit_rate: f64,
    targets: u32,
}

fn stampede(model: &Model, id: ComponentId, hidden: &[Hidden], row: &Stampede) -> Finding {
    let component = model.component(id);
    let hidden = hidden
        .iter()
        .map(|h| CachedCall {
            caller: Arc::from(model.component(h.caller).name.as_str()),
            inferred: h.inferred,
            caller_load: h.caller_load,
            calls: h.calls,
            hit_rate: h.hit_rate,
            targets: h.targets,
        })
        .collect();
    let per_instance = component.capacity.map_or(0.0, |c| c.per_instance);
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.fields.get("capacity").unwrap_or(component.span),
        ColdStampede {
            component: name,
            hidden,
            up: (row.capacity / per_instance).round(),
            instances: component.instances,
            per_instance,
            steady_load: row.steady_load,
            cold_load: row.cold_load,
            capacity: row.capacity,
            admit_fraction: row.admit_fraction,
            managed: component.managed,
        },
    )
}

impl Wording for ColdStampede {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .hidden
            .iter()
            .map(|h| {
                // An any_of/at_least edge spreads its calls over its targets.
                let split = if h.targets > 1 {
                    format!(" / {}", h.targets)
                } else {
                    String::new()
                };
                let per_target = h.caller_load * h.calls / f64::from(h.targets);
                format!(
                    "{}{} sends {} × {} × (1 − {}){split} = {} warm, {} cold",
                    h.caller,
                    if h.inferred {
                        " (no load of its own: what the component's load leaves unexplained)"
                    } else {
                        ""
                    },
                    number(h.caller_load),
                    number(h.calls),
                    percent(h.hit_rate),
                    number(per_target * (1.0 - h.hit_rate)),
                    number(per_target),
                )
            })
            .collect();
        let up = if self.per_instance > 0.0 {
            format!("{}", self.up)
        } else {
            self.instances.to_string()
        };
        write!(
            out,
            "with empty caches {} gets {} instead of its steady {} ({}), against a capacity of {} × {} = {}",
            self.component,
            number(self.cold_load),
            number(self.steady_load),
            parts.join("; "),
            up,
            number(self.per_instance),
            number(self.capacity),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "after a restart admit {} / {} = {} of the traffic first and open up as the caches warm (rate limit at the entrypoint, or pre-warm the cache), or {} {} for {}",
            number(self.capacity),
            number(self.cold_load),
            percent(self.admit_fraction),
            if self.managed {
                "raise the provider's quota of"
            } else {
                "size"
            },
            self.component,
            number(self.cold_load),
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::ColdStart,
    id: "cold-start/<component>",
    severity: "warning",
    summary: "After a full restart, with caches empty, a component receives more than its capacity.",
    checks: "For every running component with `capacity` that is called over edges with a `hit_rate` (a cache in front of it): in steady state the cache answers `caller load × calls × hit_rate` of those calls, and the component sees its load. With the caches empty (the state with every cache cold, which is also `what-if --cold`) every hit rate is 0: `cold load = load + Σ caller load × calls × hit_rate`, which is `1 / (1 − hit_rate)` times what those callers send it warm, and more when a cold cache upstream raises a caller's own load. Above the capacity of its instances up is reported, with the share of traffic to admit first (`capacity / cold load`). The report's `cold_start` section also gives the start order in waves and the waves' longest `warmup` summed into a time to full service.",
    why: "A cache sized for a 95% hit rate makes the store behind it see 5% of reads; the store is then sized for that 5%. After a full outage or a cache flush every read misses at once: the store gets twenty times its usual read load, falls over, and the cache never warms. The system cannot come back at full traffic without shedding load first.",
    example: "components:\n  api: {capacity: 1000, load: 10000, instances: 10,\n        depends_on: [{target: db, hit_rate: 95%}]}\n  db: {capacity: 300, load: 500, instances: 2}   # cold-start/db: 500 + 9500 = 10000 > 600",
    fix: "Admit a share of the traffic first after a restart (the message gives it) and open up as the caches warm: a rate limit or load shedding at the entrypoint. Pre-warm the cache from a snapshot, or size the store for the cold load.",
};

// ---- the check ----

/// The `cold-start` rule.
pub struct ColdStart;

/// Load a cache hides from a component: one edge with a `hit_rate`.
struct Hidden {
    caller: ComponentId,
    /// `caller_load` is inferred from the target's load.
    inferred: bool,
    caller_load: f64,
    calls: f64,
    hit_rate: f64,
    /// Targets the edge's calls are spread over (1 for a `target` edge).
    targets: u32,
}

/// The edges with a hit rate into each component, from callers running
/// with a known load in the checked state.
fn cached_calls(cx: &Context) -> Vec<Vec<Hidden>> {
    let model = cx.model;
    let state = cx.state();
    let mut into: Vec<Vec<Hidden>> = model.components.iter().map(|_| Vec::new()).collect();
    // Built only when a caller gives no load: the load flow of `nines
    // recover`, which infers it.
    let mut network = None;
    for (caller, target, edge) in crate::model::graph::calls(model) {
        let Some(hit_rate) = edge.hit_rate else {
            continue;
        };
        let c = state.of(caller);
        if !c.running {
            continue;
        }
        let (caller_load, inferred) = if let Some(load) = c.offered {
            (load, false)
        } else {
            let net = network.get_or_insert_with(|| {
                crate::recover::Network::new(model, &cx.start_order().waves)
            });
            // Per target of the edge, as the flow spreads it.
            let spread = f64::from(u32::try_from(edge.targets.len()).unwrap_or(1).max(1));
            let Some(calls) = net
                .cold_calls(caller.0, target.0)
                .filter(|&calls| calls > 0.0 && edge.calls > 0.0)
            else {
                continue;
            };
            (calls * spread / edge.calls, true)
        };
        into[target.0].push(Hidden {
            caller,
            inferred,
            caller_load,
            calls: edge.calls,
            hit_rate,
            // As the load flow spreads them: over the targets still reachable.
            targets: u32::try_from(
                edge.targets
                    .iter()
                    .filter(|t| state.of(**t).running || model.component(**t).failover_to.is_some())
                    .count(),
            )
            .unwrap_or(u32::MAX)
            .max(1),
        });
    }
    into
}

/// The stampede row of a component behind caches: its load in the checked
/// state against the same state with every cache cold.
fn row(cx: &Context, cold: &State, id: ComponentId, hidden: &[Hidden]) -> Option<Stampede> {
    let state = cx.state();
    if hidden.is_empty() || !state.of(id).running {
        return None;
    }
    let capacity = state.capacity(cx.model, id)?;
    let steady_load = state.of(id).offered?;
    // The engine's cold state knows only the callers with a load; the
    // inferred ones add what their caches had answered.
    let inferred: f64 = hidden
        .iter()
        .filter(|h| h.inferred)
        .map(|h| h.caller_load * h.calls / f64::from(h.targets) * h.hit_rate)
        .sum();
    let cold_load = cold.of(id).offered? + inferred;
    let overloaded = cold_load > capacity;
    Some(Stampede {
        component: cx.model.component(id).name.clone(),
        steady_load,
        cold_load,
        capacity,
        admit_fraction: if overloaded {
            capacity / cold_load
        } else {
            1.0
        },
        overloaded,
    })
}

impl Analyzer for ColdStart {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let hidden = cached_calls(cx);
        let mut rows = Vec::new();
        let mut cold = None;
        for id in cx.model.component_ids() {
            if hidden[id.0].is_empty() {
                continue;
            }
            let cold = cold.get_or_insert_with(|| {
                cx.state_with(&Scenario {
                    cold: true,
                    ..Scenario::default()
                })
            });
            let Some(row) = row(cx, cold, id, &hidden[id.0]) else {
                continue;
            };
            if row.overloaded {
                audit
                    .findings
                    .push(stampede(cx.model, id, &hidden[id.0], &row));
            }
            rows.push(row);
        }
        rows.sort_by(|a, b| a.component.cmp(&b.component));
        audit.cold_start.stampedes = rows;
        fill_start_order(cx.model, cx.start_order(), audit);
    }
}

/// Fills the waves, warmups and cycles of the report's `cold_start` section
/// once, whichever of `cold-start` and `recovery-order` runs first.
pub(super) fn fill_start_order(model: &Model, order: &StartOrder, audit: &mut Audit) {
    let section = &mut audit.cold_start;
    if !section.waves.is_empty() {
        return;
    }
    let names = |ids: &[ComponentId]| -> Vec<String> {
        ids.iter()
            .map(|&c| model.component(c).name.clone())
            .collect()
    };
    section.waves = order.waves.iter().map(|w| names(w)).collect();
    section.wave_warmup_s = order
        .waves
        .iter()
        .map(|w| {
            w.iter()
                .filter_map(|&c| model.component(c).warmup)
                .max()
                .unwrap_or_default()
                .seconds()
        })
        .collect();
    section.time_to_full_service_s = section.wave_warmup_s.iter().sum();
    section.cycles = order.cycles.iter().map(|c| names(&c.members)).collect();
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&ColdStart, text)
    }

    const CACHED: &str = r"system: s
components:
  api:
    instances: 10
    capacity: 1000
    load: 10000
    warmup: 1m
    depends_on: [{target: db, hit_rate: 95%}]
  db: {instances: 2, capacity: 300, load: 500, warmup: 5m}
";

    #[test]
    fn a_database_sized_for_the_misses_is_flooded() {
        let audit = run(CACHED);
        assert_eq!(audit.findings.len(), 1);
        let finding = &audit.findings[0];
        assert_eq!(finding.id().to_string(), "cold-start/db");
        // warm 10000 × 1 × 0.05 = 500; cold 500 + 10000 × 0.95 = 10000 > 2 × 300 = 600
        assert!(
            finding.message().to_string().contains(
                "gets 10000 instead of its steady 500 (api sends 10000 × 1 × (1 − 95%) = 500 warm, 10000 cold), against a capacity of 2 × 300 = 600"
            ),
            "{}",
            finding.message().to_string()
        );
        // admit 600 / 10000 = 6%
        assert!((audit.cold_start.stampedes[0].admit_fraction - 0.06).abs() < 1e-12);
        // waves [db] (5m), [api] (1m): 6 minutes to full service
        assert!((audit.cold_start.time_to_full_service_s - 360.0).abs() < 1e-9);
    }

    #[test]
    fn a_cached_any_of_edge_says_each_target_gets_its_share() {
        // web 800 × 1 over any_of [db-a, db-b] behind a 90% cache: each db
        // gets 800 / 2 = 400 cold, 400 × (1 − 90%) = 40 warm; 400 > 100.
        let audit = run(
            "system: s\ncomponents:\n  web:\n    capacity: 1000\n    load: 800\n    depends_on: [{any_of: [db-a, db-b], hit_rate: 90%}]\n  db-a: {capacity: 100}\n  db-b: {capacity: 100}\n",
        );
        let finding = &audit.findings[0];
        assert_eq!(finding.id().to_string(), "cold-start/db-a");
        assert!(
            finding.message().to_string().contains(
                "gets 400 instead of its steady 40 (web sends 800 × 1 × (1 − 90%) / 2 = 40 warm, 400 cold)"
            ),
            "{}",
            finding.message().to_string()
        );
    }

    #[test]
    fn a_store_sized_for_the_cold_load_is_fine() {
        let audit = run(&CACHED.replace("capacity: 300", "capacity: 5000"));
        // 10000 <= 2 × 5000
        assert!(audit.findings.is_empty());
        assert!(!audit.cold_start.stampedes[0].overloaded);
    }

    #[test]
    fn a_caller_without_a_load_is_inferred_as_recover_infers_it() {
        // docs/recovery.md case 2: api gives no load; the store's 50 at a
        // 95% hit rate is 50 / (1 − 0.95) = 1000 of api's calls, all
        // missing with the cache cold: 50 + 1000 × 0.95 = 1000 > 100.
        let audit = crate::analyze::check_one(
            &ColdStart,
            "system: cached\ncomponents:\n  api: {depends_on: [{target: store, hit_rate: 95%, cached_by: cache}, cache]}\n  cache: {kind: cache, warmup: 10m}\n  store: {capacity: 100, load: 50, load_shedding: true}\n",
        );
        assert_eq!(audit.findings.len(), 1);
        let message = audit.findings[0].message().to_string();
        assert!(
            message.contains("with empty caches store gets 1000 instead of its steady 50"),
            "{message}"
        );
        assert!(message.contains("1000 × 1 × (1 − 95%) = 50 warm, 1000 cold"), "{message}");
    }
}
