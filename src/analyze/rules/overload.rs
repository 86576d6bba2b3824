//! `overload/<component>`: in the state being checked (intact for `check`,
//! the changed one for `what-if`), the load that reaches a component is
//! above what its instances up can carry.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use super::wording::{amount, whole_percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::advice::sizing::{self, Need, Sizing};
use crate::analyze::results::Audit;
use crate::engine::state::State;
use crate::model::Rule;
use crate::model::ComponentId;

// ---- finding constructors ----

/// `overload/<component>`: its load against the capacity of the instances
/// up.
#[derive(Debug)]
struct Over {
    component: Arc<str>,
    instances: u32,
    up: u32,
    load: f64,
    per_instance: f64,
    max: f64,
    managed: bool,
    load_shedding: bool,
    /// Whether it pulls from a queue: below its input it lags.
    consumer: bool,
    /// Its `rate_limit`, when it caps it below its instances' capacity.
    limit: Option<f64>,
    /// What was offered, when its request pool admits less (`load` is
    /// then what the pool lets through to its instances).
    offered: Option<f64>,
    /// What follows, step by step, for an overload without load shedding
    /// (one text per run, shared by its findings).
    follows: Option<Arc<str>>,
    /// Why it is a primary rather than a fleet, when it is one.
    role: Option<Arc<str>>,
    /// The fleet that carries the load, counted from what is deployed.
    sizing: Sizing,
}

fn over(
    cx: &Context,
    id: ComponentId,
    (up, (load, offered), per_instance): (u32, (f64, f64), f64),
    (follows, role): (Option<Arc<str>>, Option<Arc<str>>),
) -> Finding {
    let model = cx.model;
    let c = model.component(id);
    let need = Need {
        load: offered,
        per_instance,
        survivors: up,
        spare: false,
        domains: &[],
    };
    let wording = Over {
        component: Arc::from(c.name.as_str()),
        instances: c.instances,
        up,
        load,
        per_instance,
        max: model.policy.max_utilization,
        managed: c.managed,
        load_shedding: c.load_shedding,
        consumer: c.depends_on.iter().any(|e| e.pull),
        limit: c
            .rate_limit
            .filter(|&l| l <= f64::from(up) * per_instance * (1.0 + 1e-12)),
        offered: (offered > load * (1.0 + 1e-12)).then_some(offered),
        follows,
        role,
        sizing: Sizing::new(model, &cx.scenario, id, need),
    };
    // A consumer behind falls behind: a warning, not a collapse.
    let severity = if wording.utilization() > 1.0 + 1e-12 && !wording.consumer {
        Severity::Error
    } else {
        Severity::Warning
    };
    Finding::new(
        DOC.rule,
        Arc::clone(&wording.component),
        severity,
        c.fields.get("capacity").unwrap_or(c.span),
        wording,
    )
}

impl Over {
    fn capacity(&self) -> f64 {
        let instances = f64::from(self.up) * self.per_instance;
        self.limit.map_or(instances, |l| l.min(instances))
    }

    fn utilization(&self) -> f64 {
        let capacity = self.capacity();
        if capacity > 0.0 {
            self.load / capacity
        } else {
            f64::INFINITY
        }
    }
}

impl Wording for Over {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (up, load, per_instance, capacity) =
            (self.up, self.load, self.per_instance, self.capacity());
        let utilization = self.utilization();
        let fleet = if let Some(limit) = self.limit {
            format!("its rate_limit of {}", amount(limit))
        } else if up == self.instances {
            format!("{up} × {}", amount(per_instance))
        } else {
            format!(
                "{up} of {} instances up × {}",
                self.instances,
                amount(per_instance)
            )
        };
        let admitted = self.offered.map_or_else(String::new, |offered| {
            format!(
                " (what its request pool admits of the {} offered)",
                amount(offered)
            )
        });
        let percent = if utilization.is_finite() {
            whole_percent(utilization)
        } else {
            "all".to_owned()
        };
        if self.limit.is_some() {
            write!(
                out,
                "{} gets {}{admitted} against {fleet}: {percent} of its limit",
                self.component,
                amount(load),
            )?;
        } else {
            write!(
                out,
                "{} gets {}{admitted} against {fleet} = {}: {percent} of capacity",
                self.component,
                amount(load),
                amount(capacity),
            )?;
        }
        if utilization <= 1.0 + 1e-12 {
            return write!(
                out,
                ", above the {} ceiling of policy.max_utilization",
                whole_percent(self.max)
            );
        }
        if self.consumer {
            return write!(
                out,
                "; a consumer, it lags: the backlog grows by {} an hour ({} × 3600 s) while the input stays this high",
                amount((load - capacity) * 3600.0),
                amount(load - capacity)
            );
        }
        if self.load_shedding || self.limit.is_some() {
            // Of what was offered, not of what a full pool admitted.
            let offered = self.offered.unwrap_or(load);
            write!(
                out,
                "; with {} it serves {} / {} = {} and refuses the rest",
                if self.load_shedding {
                    "load_shedding"
                } else {
                    "its rate_limit"
                },
                amount(capacity),
                amount(offered),
                whole_percent(capacity / offered)
            )?;
        } else {
            write!(
                out,
                "; it falls {} behind for every unit of time at this load and, without load_shedding, queues, times out and fails",
                amount(load - capacity)
            )?;
        }
        out.write_str(self.follows.as_deref().unwrap_or(""))
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (load, max) = (self.load, self.max);
        if self.managed {
            // The team cannot add instances to a service it does not run: the
            // capacity is the provider's quota or rate limit on the account.
            let quota = sizing::within_ceiling(load, max);
            write!(
                out,
                "{} is a managed service: its capacity is the provider's limit on your account, not instances you run. Raise the quota or rate limit to at least {quota}, or cut the load reaching it (a cache in front, fewer calls per request, batching); where overload must be survived for a while, shed or queue the excess on the calling side",
                self.component
            )
        } else if let Some(why) = &self.role {
            sizing::write_role(
                out,
                &self.component,
                why,
                (load, self.per_instance, self.up, max),
            )
        } else if self.limit.is_some() {
            let carried = f64::from(self.up) * self.per_instance;
            let fleet = |out: &mut fmt::Formatter<'_>| self.sizing.write_overload(out);
            sizing::write_rate_limit(out, (load, max), (self.up, carried), &fleet)
        } else {
            self.sizing.write_overload(out)?;
            if self.consumer {
                out.write_str("; a consumer can also be left to lag while the backlog fits the queue's retention and drains once the input falls")
            } else if self.load_shedding {
                Ok(())
            } else {
                out.write_str("; where overload must be survived for a while, `load_shedding: true` (admission control) serves what fits and refuses the rest")
            }
        }
    }
}

/// What the overloads of the checked state lead to, step by step (the
/// cascade of [`super::cascade::settle`] from this state), as a sentence to
/// append, when more than one component fails or load is left unserved.
fn what_follows(cx: &Context) -> Option<String> {
    let intact = State::intact(cx.model, cx.flow());
    let (steps, after) = super::cascade::settle(cx, &intact, Vec::new());
    let unserved = after.unserved - cx.state().unserved;
    if steps.iter().filter(|s| s.failed).count() < 2 && unserved <= 1e-9 {
        return None;
    }
    let mut text = format!(
        "; step by step:{}",
        super::cascade::steps_text(&intact, &steps)
    );
    if unserved > 1e-9 {
        let _ = write!(text, " {} is left unserved", amount(unserved));
    } else {
        text.pop();
    }
    Some(text)
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Overload,
    id: "overload/<component>",
    severity: "error",
    summary: "The load reaching a component is above what its instances up can carry.",
    checks: "For every running component with `capacity`, in the state being checked: the load that reaches it (its `load`, or the sum of what its callers send it, and in a `what-if` scenario that load plus the change of its in-flows and any failover load) against `instances up × capacity`; with a request pool (`workers`) that is full, what the pool admits (the rest it refuses, as `pool` and `headroom` say). Above 100% is an error (with `load_shedding: true` the message gives the share still served); above `policy.max_utilization` a warning. `nines check` judges the intact state at peak; `nines what-if` the changed one, and `headroom` the state after each further loss.",
    why: "A component asked for more than it can serve at peak, with nothing lost, is already failing: it falls behind every second, its queues grow, callers time out and retry, and the overload spreads. This is the first sentence of a collapse, and every loss-of-capacity analysis assumes it is not already happening.",
    example: "components:\n  api: {instances: 4, capacity: 100, load: 500}   # overload/api: 500 / (4 × 100) = 125%",
    fix: "Add instances (`ceil(load / (capacity × max_utilization))`), cut the load that reaches the component (a cache in front, fewer calls per request), or, where an overload must be survived, `load_shedding: true` so that it serves what fits and refuses the rest. A `rate_limit` that refuses is the whole component's: raise it (more instances do not). A managed service (`managed: true`, or `kind: saas`/`external`) cannot be given instances: raise the provider's quota or rate limit, or cut the load.",
};

// ---- the check ----

/// The `overload` rule.
pub struct Overload;

impl Analyzer for Overload {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let state = cx.state();
        let max = cx.model.policy.max_utilization;
        let mut walk: Option<Option<Arc<str>>> = None;
        let mut roles: Option<Vec<Option<Arc<str>>>> = None;
        for id in cx.model.component_ids() {
            let Some(cap) = cx.model.component(id).capacity else {
                continue;
            };
            let (Some(limit), Some(offered)) = (state.limit(cx.model, id), state.of(id).offered)
            else {
                continue;
            };
            if !state.of(id).running {
                continue;
            }
            // A request pool that serves less than the capacity at normal
            // latency refuses what it cannot take in: its instances work on
            // what it admits, and the state never judges their capacity
            // (the full pool is `pool`'s and `headroom`'s finding). Any
            // other component's capacity is judged on all it is offered,
            // as the state judges it, whatever a slowness holds back.
            let pooled = cx.flow().pools().get(id.0).is_some_and(Option::is_some);
            let load = match state.ceiling(id) {
                Some(c) if pooled => offered.min(c.admits),
                _ => offered,
            };
            // Against its instances' capacity, or its rate limit below it.
            let utilization = if limit > 0.0 {
                load / limit
            } else if load > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
            if utilization > max + 1e-12 {
                let follows = if utilization > 1.0 + 1e-12
                    && !cx.model.component(id).load_shedding
                {
                    walk.get_or_insert_with(|| what_follows(cx).map(Arc::from))
                        .clone()
                } else {
                    None
                };
                let figures = (state.of(id).instances_up, (load, offered), cap.per_instance);
                let role = roles.get_or_insert_with(|| sizing::roles(cx.model))[id.0].clone();
                audit.findings.push(over(cx, id, figures, (follows, role)));
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&Overload, text).findings
    }

    #[test]
    fn four_instances_at_five_hundred() {
        // 500 / (4 × 100) = 125% > 100%: 100 behind.
        let found = findings(
            r"system: s
components:
  api: {instances: 4, capacity: 100, load: 500}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "overload/api");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(
            found[0].message().to_string(),
            "api gets 500 against 4 × 100 = 400: 125% of capacity; it falls 100 behind for every unit of time at this load and, without load_shedding, queues, times out and fails"
        );
        // ceil(500 / (100 × 1)) = 5.
        assert!(
            found[0]
                .help().map(|help| help.to_string())
                .as_deref()
                .unwrap()
                .starts_with("run 5 instances")
        );
    }

    #[test]
    fn a_single_server_sheds_or_falls_behind() {
        // 1200 / 1000 = 120%: 200 behind; with shedding it serves 1000 / 1200 = 83%.
        let found = findings(
            r"system: s
components:
  server: {capacity: 1000, load: 1200}
",
        );
        assert!(
            found[0].message().to_string().contains("it falls 200 behind"),
            "{}",
            found[0].message().to_string()
        );
        let shed = findings(
            r"system: s
components:
  server: {capacity: 1000, load: 1200, load_shedding: true}
",
        );
        assert!(
            shed[0]
                .message().to_string()
                .ends_with("with load_shedding it serves 1000 / 1200 = 83% and refuses the rest"),
            "{}",
            shed[0].message().to_string()
        );
    }

    #[test]
    fn above_the_ceiling_is_a_warning_and_below_is_nothing() {
        // 90 / 100 = 90% > 80%: warning; 70% passes.
        let warn = findings(
            r"system: s
policy: {max_utilization: 0.8}
components:
  a: {capacity: 100, load: 90}
  b: {capacity: 100, load: 70}
",
        );
        assert_eq!(warn.len(), 1);
        assert_eq!(
            (warn[0].id().to_string().as_str(), warn[0].severity),
            ("overload/a", Severity::Warning)
        );
        assert_eq!(
            warn[0].message().to_string(),
            "a gets 90 against 1 × 100 = 100: 90% of capacity, above the 80% ceiling of policy.max_utilization"
        );
    }

    #[test]
    fn a_managed_service_is_told_to_raise_its_quota_not_to_run_instances() {
        // A SaaS with a rate limit of 1000/s asked for 1500/s: 150%, an error.
        // It cannot be given instances: the help asks for a quota of
        // 1500 / 0.8 = 1875 (policy.max_utilization 80%), never "run 2 instances".
        let found = findings(
            "system: s\npolicy: {max_utilization: 0.8}\ncomponents:\n  s3: {kind: saas, capacity: 1000, load: 1500}\n",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Error);
        let help = found[0].help().map(|help| help.to_string()).unwrap();
        assert!(!help.contains("run 2 instances"), "{help}");
        assert!(
            help.starts_with(
                "s3 is a managed service: its capacity is the provider's limit on your account"
            ) && help.contains("Raise the quota or rate limit to at least 1875 (1500 / 80%, policy.max_utilization)"),
            "{help}"
        );
    }

    #[test]
    fn a_full_request_pool_admits_what_the_instances_work_on() {
        // 10 workers / 50ms = 200/s an instance: the pool admits 2 × 200
        // = 400 of the 500 offered and refuses 100 (pool/api's error).
        // The instances work on 400 of 2 × 220 = 440: 91%, within 100%
        // (no overload), above a 0.8 ceiling (a warning).
        let model = "components:\n  api: {instances: 2, capacity: 220, load: 500, workers: 10, latency: {p99: 50ms}}\n";
        assert!(findings(&format!("system: s\n{model}")).is_empty());
        let found = findings(&format!(
            "system: s\npolicy: {{max_utilization: 0.8}}\n{model}"
        ));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(
            found[0].message().to_string(),
            "api gets 400 (what its request pool admits of the 500 offered) against 2 × 220 = 440: 91% of capacity, above the 80% ceiling of policy.max_utilization"
        );
    }

    #[test]
    fn a_rate_limit_behind_a_full_pool_serves_its_share_of_what_was_offered() {
        // The pool admits 2 × 200 = 400 of 500; the rate limit serves 350
        // of them: 350 / 500 = 70% of the requests, as the state serves.
        let found = findings(
            "system: s\ncomponents:\n  api: {instances: 2, capacity: 300, load: 500, rate_limit: 350, workers: 10, latency: {p99: 50ms}}\n",
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message()
                .to_string()
                .ends_with("with its rate_limit it serves 350 / 500 = 70% and refuses the rest"),
            "{}",
            found[0].message()
        );
    }

    #[test]
    fn a_derived_load_is_judged_too() {
        // lb sends 3 calls per request: 3 × 400 = 1200 to db (capacity 1000, no load written).
        let found = findings(
            r"system: s
components:
  lb: {capacity: 1000, load: 400, depends_on: [{target: db, calls: 3}]}
  db: {capacity: 1000}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["overload/db"]);
    }
}
