//! `headroom/<component>/<lost>`: after a credible loss (a domain, two
//! domains of one kind with `policy.survive: 2`, a shared-fate group, a
//! component lost whole, or one instance), a component runs above
//! `policy.max_utilization`. Every contingency, passing or not, becomes a
//! row of the report's `headroom` section for every component whose
//! instances fall or whose load rises in it, named after its loss.
//!
//! N-k is the analysis of each loss's state ([`contingency`]): survivors
//! and the load the flow brings them there; under a `what-if` scenario the
//! rows are the next losses from the changed state.

use super::wording::{amount, percent_against, whole_percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use std::fmt;
use std::sync::Arc;

use crate::analyze::advice::sizing::{self, Counts, Need, Sizing};
use crate::analyze::contingency::{self, Contingency, Lost};
use crate::analyze::results::{Audit, HeadroomRow};
use crate::engine::state::{Bound, State};
use crate::model::Rule;
use crate::model::{Component, DomainId, Model};

// ---- finding constructors ----

/// `headroom/<component>/<lost>`: the survivors of a loss above the
/// ceiling, with the row of the contingency and what its sizing needs.
#[derive(Debug)]
struct Overloaded {
    row: HeadroomRow,
    loss: LossWords,
    /// Instances up and load before the loss.
    before: (u32, f64),
    load: f64,
    per_instance: f64,
    max: f64,
    load_shedding: bool,
    managed: bool,
    /// Whether it pulls from a queue: below its input it lags.
    consumer: bool,
    /// Its `rate_limit`, where that is below what the survivors carry.
    limit: Option<f64>,
    /// What serves less than its capacity per instance, where something
    /// does: its request pool (`workers` per instance, each request held
    /// `held` seconds: the per-instance figure is then `workers / held`),
    /// or in a slow scenario the bulkheads that refuse its slowed calls.
    pool: Option<Bound>,
    /// Its written `capacity` per instance, which binds once a pool no
    /// longer does.
    written_capacity: Option<f64>,
    /// Why it is a primary rather than a fleet, when it is one.
    role: Option<Arc<str>>,
    sizing: Sizing,
    /// `policy.survive`, when the loss is beyond it.
    beyond_survive: Option<u32>,
}

/// Seconds a request holds a worker, where its own request pool holds a
/// component ([`Bound::Pool`]; a request pool that serves less than the
/// written capacity is what the state and the figures count instead,
/// docs/slow.md "A pool is a capacity").
fn held_of(bound: Bound) -> Option<f64> {
    match bound {
        Bound::Pool { held, .. } => Some(held),
        Bound::Bulkheads | Bound::Failing => None,
    }
}

/// What a loss is, in words.
#[derive(Debug)]
enum LossWords {
    /// Domains of one kind (two for a pair).
    Domains { kind: Arc<str>, pair: bool },
    /// A shared-fate group.
    Group,
    /// A component lost whole, with its instances up before.
    Component(u32),
    /// One instance.
    Instance,
}

/// What one finding needs beyond its row.
struct Judged<'a> {
    c: &'a Component,
    cap: f64,
    pool: Option<Bound>,
    before: (u32, f64),
    load: f64,
    loss: LossWords,
    role: Option<Arc<str>>,
    sizing: Sizing,
    beyond_survive: bool,
}

fn overloaded(model: &Model, judged: Judged<'_>, row: &HeadroomRow) -> Finding {
    let c = judged.c;
    let consumer = c.depends_on.iter().any(|e| e.pull);
    let limit = limit_of(c, row.survivors, judged.cap);
    // A consumer behind lags, a rate limit refuses the excess and a pool
    // admits what it serves: none collapses the way a request path
    // without shedding does.
    Finding::new(
        DOC.rule,
        Subject::pair(Arc::clone(&row.component), Arc::clone(&row.lost)),
        if c.load_shedding
            || consumer
            || limit.is_some()
            || judged.pool.is_some()
            || judged.beyond_survive
        {
            Severity::Warning
        } else {
            Severity::Error
        },
        c.span,
        Overloaded {
            row: row.clone(),
            loss: judged.loss,
            before: judged.before,
            load: judged.load,
            per_instance: judged.cap,
            max: model.policy.max_utilization,
            load_shedding: c.load_shedding,
            managed: c.managed,
            consumer,
            limit,
            pool: judged.pool,
            written_capacity: c.capacity.map(|k| k.per_instance),
            role: judged.role,
            sizing: judged.sizing,
            beyond_survive: judged.beyond_survive.then_some(model.policy.survive),
        },
    )
}

impl Wording for Overloaded {
    #[allow(clippy::too_many_lines, reason = "one message per kind of loss and verdict, each a few lines")]
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = &self.row;
        match &self.loss {
            LossWords::Instance => out.write_str("losing one instance")?,
            LossWords::Domains { kind, pair } => write!(
                out,
                "losing {} ({kind}{})",
                row.lost.replace('+', " and "),
                if *pair { "s" } else { "" }
            )?,
            LossWords::Group => write!(out, "losing {} (shared-fate group)", row.lost)?,
            LossWords::Component(n) => write!(
                out,
                "losing {} whole ({n} instance{})",
                row.lost,
                if *n == 1 { "" } else { "s" }
            )?,
        }
        if let Some(survive) = self.beyond_survive {
            write!(out, ", beyond policy.survive ({survive}),")?;
        }
        let (up_before, load_before) = self.before;
        let rose = crate::engine::component_loss::rose(Some(load_before), self.load);
        let already = row.instances.saturating_sub(up_before);
        if row.survivors < up_before {
            if already > 0 {
                write!(
                    out,
                    " takes {} of the {up_before} instances of {} still up ({already} of {} already down), leaving {}",
                    up_before - row.survivors,
                    row.component,
                    row.instances,
                    row.survivors
                )?;
            } else {
                write!(
                    out,
                    " leaves {} {} of {} instances",
                    row.component, row.survivors, row.instances
                )?;
            }
            if rose {
                write!(
                    out,
                    " and raises its load from {} to {}",
                    amount(load_before),
                    amount(self.load)
                )?;
            }
        } else {
            write!(
                out,
                " raises the load on {} from {} to {}, on {} of its {} instances",
                row.component,
                amount(load_before),
                amount(self.load),
                row.survivors,
                row.instances
            )?;
        }
        if let Some(limit) = self.limit {
            write!(
                out,
                ": {} against its rate_limit of {}: {} of its limit, above the {} ceiling; ",
                amount(self.load),
                amount(limit),
                percent_against(row.utilization, self.max),
                whole_percent(self.max),
            )?;
        } else {
            let of = match self.pool {
                Some(Bound::Bulkheads) => "what its bulkheads admit of its slowed calls".to_owned(),
                // Not carried (it serves nothing): no row reaches here.
                Some(Bound::Failing) => "what its failing calls let it serve".to_owned(),
                Some(Bound::Pool { workers, held }) => format!(
                    "what its request pool serves ({workers} workers / {} held per request)",
                    crate::analyze::slow::seconds(held),
                ),
                None => "capacity".to_owned(),
            };
            write!(
                out,
                ": {} / ({} × {}) = {} of {of}, above the {} ceiling; ",
                amount(self.load),
                row.survivors,
                amount(self.per_instance),
                percent_against(row.utilization, self.max),
                whole_percent(self.max),
            )?;
        }
        self.consequence(out)
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &*self.row.component;
        if self.managed {
            // The team does not run its instances: the sizing is what to buy
            // or configure from the provider.
            write!(
                out,
                "{name} is a managed service: the provider runs its nodes, so buy or configure the equivalent of what this takes (",
            )?;
            self.sizing(out)?;
            out.write_str("), or cut the load reaching it")
        } else if let Some(why) = &self.role {
            sizing::write_role(
                out,
                name,
                why,
                (self.load, self.per_instance, self.row.survivors, self.max),
            )
        } else if self.limit.is_some() {
            let survivors = self.row.survivors;
            let carried = f64::from(survivors) * self.per_instance;
            let fleet = |out: &mut fmt::Formatter<'_>| self.sizing(out);
            sizing::write_rate_limit(out, (self.load, self.max), (survivors, carried), &fleet)
        } else {
            self.sizing(out)?;
            // More workers help only while the capacity and a rate limit
            // behind the pool still carry the load.
            let beyond = self.written_capacity.is_some_and(|cap| {
                self.load > f64::from(self.row.survivors) * cap * self.max + 1e-9
            }) || self.limit.is_some();
            if matches!(self.pool, Some(Bound::Bulkheads)) {
                out.write_str("; or raise the bulkheads (`pool:` or `connections:` per instance) on its slowed calls, or cut the time they hold a slot (a shorter timeout, a breaker)")?;
            }
            if let Some(held) = self.pool.and_then(held_of).filter(|_| !beyond) {
                // Little's law on the survivors: load × held in flight.
                let in_flight = self.load * held / (f64::from(self.row.survivors) * self.max);
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a positive count of workers, far below 2^32"
                )]
                let workers = (in_flight - 1e-9).ceil().max(1.0) as u64;
                write!(
                    out,
                    "; or give each instance `workers: {workers}` ({} × {} / {} survivors",
                    amount(self.load),
                    crate::analyze::slow::seconds(held),
                    self.row.survivors,
                )?;
                if (self.max - 1.0).abs() > 1e-12 {
                    write!(out, " / {}", whole_percent(self.max))?;
                }
                write!(
                    out,
                    " = {} in flight each), or cut the time a request holds a worker",
                    amount(in_flight)
                )?;
            }
            Ok(())
        }
    }
}

impl Overloaded {
    /// What the survivors do past the ceiling: a consumer lags, a limit
    /// refuses, shedding serves what fits, anything else cascades.
    fn consequence(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = &self.row;
        let capacity = self
            .limit
            .unwrap_or(f64::from(row.survivors) * self.per_instance);
        if self.consumer {
            if self.load > capacity + 1e-9 {
                write!(
                    out,
                    "a consumer, it lags: the backlog grows by {} an hour ({} × 3600 s) while the loss lasts",
                    amount((self.load - capacity) * 3600.0),
                    amount(self.load - capacity)
                )
            } else {
                out.write_str("a consumer, it keeps up but with no room for a burst")
            }
        } else if let Some(limit) = self.limit {
            write!(
                out,
                "the limit serves {} / {} = {} and refuses the rest",
                amount(limit),
                amount(self.load),
                whole_percent((limit / self.load).min(1.0))
            )
        } else if matches!(self.pool, Some(Bound::Bulkheads)) {
            write!(
                out,
                "its bulkheads refuse the calls past them, and the requests that need those fail at once: {} / {} = {} of peak served",
                amount(capacity),
                amount(self.load),
                whole_percent((capacity / self.load).min(1.0))
            )
        } else if self.pool.is_some() {
            write!(
                out,
                "the pool admits what it serves and refuses or queues the rest: {} / {} = {} of peak served",
                amount(capacity),
                amount(self.load),
                whole_percent((capacity / self.load).min(1.0))
            )
        } else if self.load_shedding {
            let served = capacity;
            write!(
                out,
                "with load_shedding the survivors shed the excess and still serve {} / {} = {} of peak",
                amount(served),
                amount(self.load),
                whole_percent(served / self.load)
            )
        } else {
            out.write_str("without load_shedding the survivors overload and fail in turn, each failure moving its load onto fewer instances until none is left (a capacity redistribution cascade)")
        }
    }

    fn sizing(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = &self.row;
        if row.required_instances > LARGEST_SENSIBLE_FLEET {
            return write!(
                out,
                "no fleet of a sensible size passes: a peak of {} over {} per instance needs more than {LARGEST_SENSIBLE_FLEET} instances; check that `load` and `capacity` are in the same unit",
                amount(self.load),
                amount(self.per_instance),
            );
        }
        self.sizing
            .write_headroom(&row.component, row.required_steady_utilization, out)
    }
}

/// Sizing advice above this many instances is not advice: the figures are
/// most likely in different units (a load in requests per second against a
/// capacity per millisecond).
pub(crate) const LARGEST_SENSIBLE_FLEET: u32 = 100_000;

/// `headroom/<component>/untried`: the work bound stopped the whole-
/// component losses before this one.
#[derive(Debug)]
struct Untried {
    component: Arc<str>,
    count: usize,
    bound: u64,
}

impl Wording for Untried {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "losing {} whole, and {} more {} after it in model order, was not judged: N-k over whole components stopped at its work bound ({} units, 50 per component and edge and a million more); their domain, group and instance losses are judged",
            self.component,
            self.count.saturating_sub(1),
            if self.count == 2 { "component" } else { "components" },
            self.bound
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("check the components named in `nines what-if --lose NAME` one at a time, or split the model")
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Headroom,
    id: "headroom/<component>/<lost>",
    severity: "error",
    summary: "After a credible loss (a domain, a shared-fate group, a component whole, an instance), a component runs above `policy.max_utilization`.",
    checks: "Every credible next loss from the state being checked (intact for `check`, the changed one for `what-if`): each domain (when `policy.survive` is at least 1; under a `what-if` scenario that lost something, every remaining domain, beyond `survive` a warning), each pair of same-kind domains when `policy.survive` is 2 or more, each shared-fate group, each component lost whole (unless its loss takes an entrypoint down, which is the SPOF rules' question, or it has `failover_to` and `capacity`, which is `cascade`'s), and one instance of each component with at least two up. Each loss is a state of its own, judged on every running component with `capacity` (or a request pool that serves less, see below) whose instances fall or whose load rises in it, not only on those the lost thing holds: survivors = instances up after it, and the load is the load flow of that state (a lost cache's share moves onto the store behind it through `cached_by`, a lost alternative's onto the others, a standby takes the active one's); utilization = load / (survivors × capacity). Where a component's request pool serves less than its capacity at normal latency (`workers / time held` per instance, docs/slow.md \"A pool is a capacity\"), that throughput is the capacity here, as every state and the availability figure count it, and the help also gives the `workers` that would carry the load (load × time held / survivors). In a slow scenario a held pool is judged on what it serves there, and where its bulkheads (`pool`, `connections` on its slowed calls) cut what it serves while its own pool is not full, on what they admit: they refuse the rest. Above `policy.max_utilization` is an error, or a warning for a component with `load_shedding`, such a pool or such bulkheads (the message then gives the share of peak still served). Each contingency, passing or not, is a row of the `headroom` section with the sizing that would pass, counted from what is deployed: at_peak = ceil(load / (capacity × max_utilization)); over the d domains of the lost kind that the component uses, g of them lost (by the scenario and this loss), per_domain = ceil((at_peak + instances failed on their own) / (d − g)), required = per_domain × d; otherwise required = at_peak + the instances the losses took (one more for one instance: N+1).",
    why: "Capacity planned for a normal day is not capacity for the day a zone goes away, or a cache, or one of two providers. When the survivors of a loss run above what they can carry and nothing sheds load, they slow down, time out, fail health checks and drop out one by one, each dropping its share onto fewer instances: the capacity redistribution cascade that turns one loss into a full outage. The component that fails is often not the one lost: a database behind a cache whose nodes share a zone, a provider taking its peer's traffic. Power grids are planned the same way (N-1 and N-2 contingencies): every credible loss is checked, and the worst comes first.",
    example: "domains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\n  az-c: {kind: zone}\ncomponents:\n  checkout:\n    instances: 4\n    placement: {az-a: 2, az-b: 1, az-c: 1}\n    capacity: 40\n    load: 100   # headroom/checkout/az-a: 100 / (2 × 40) = 125%",
    fix: "Add instances as the row's sizing says (`required_instances`, spread `per_domain`), or spread the existing ones so no domain holds more than its share; for a store behind a cache, place the cache nodes apart or size the store for the misses. A primary (the active side of a standby `any_of`, or a `recovery` that fails over) gets a read replica or a larger instance, not more instances. Where overload is acceptable for a while, `load_shedding: true` (admission control, 503s past capacity) turns the collapse into a partial service, and the finding into a warning.",
};

// ---- the check ----

/// The `headroom` rule.
pub struct Headroom;

impl Analyzer for Headroom {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        check_within(cx, audit, contingency::work_bound(cx.model));
    }
}

/// What one instance of each component carries: its capacity, or what
/// holds it below that in the checked state ([`State::bound`]: its request
/// pool, as every state and the figures count it, or a slowness's
/// bulkheads), with what holds it; `None` without either, or at 0 (held:
/// it serves nothing, whatever is lost next).
fn carried_per_instance(cx: &Context) -> Vec<Option<(f64, Option<Bound>)>> {
    let model = cx.model;
    let state = cx.state();
    model
        .component_ids()
        .map(|id| match state.bound(model, cx.flow(), id) {
            Some((per, bound)) => (per > 0.0).then_some((per, Some(bound))),
            None => model
                .component(id)
                .capacity
                .map(|cap| (cap.per_instance, None))
                .filter(|(per, _)| *per > 0.0),
        })
        .collect()
}

/// The check, with the work bound of whole-component losses given.
fn check_within(cx: &Context, audit: &mut Audit, bound: u64) {
    let model = cx.model;
    let state = cx.state();
    let per_instance_of = carried_per_instance(cx);
    // A capacity of 0 carries nothing in any contingency; a component not
    // running in the checked state has no survivors to judge.
    let judged: Vec<bool> = model
        .component_ids()
        .map(|id| {
            per_instance_of[id.0].is_some() && state.of(id).running && state.of(id).offered.is_some()
        })
        .collect();
    if !judged.iter().any(|j| *j) {
        return;
    }
    let found = contingency::every(cx, &judged, bound);
    let mut roles: Option<Vec<Option<Arc<str>>>> = None;
    let instance: Arc<str> = Arc::from("instance");
    for id in model.component_ids().filter(|id| judged[id.0]) {
        let c = model.component(id);
        let Some((per_instance, pool)) = per_instance_of[id.0] else {
            continue;
        };
        let now = state.of(id);
        let Some(load_now) = now.offered else { continue };
        let component: Arc<str> = Arc::from(c.name.as_str());
        let mut rows = found
            .of(id)
            .iter()
            .map(|ch| (Some(&found.list[ch.contingency]), ch.survivors, ch.load))
            .collect::<Vec<_>>();
        if now.instances_up >= 2 {
            rows.push((None, now.instances_up - 1, load_now));
        }
        for (loss, survivors, load) in rows {
            let domains: &[DomainId] = match loss.map(|l| &l.lost) {
                Some(Lost::Domains(d)) => d,
                _ => &[],
            };
            let need = Need {
                load,
                per_instance,
                survivors,
                spare: loss.is_none(),
                domains,
            };
            let counts = Counts::new(model, &cx.scenario, id, need);
            let carried = limit_of(c, survivors, per_instance)
                .unwrap_or(f64::from(survivors) * per_instance);
            let utilization = load / carried;
            let row = HeadroomRow {
                component: Arc::clone(&component),
                lost: loss.map_or_else(|| Arc::clone(&instance), |l| Arc::clone(&l.name)),
                instances: c.instances,
                survivors,
                utilization,
                ok: utilization <= model.policy.max_utilization + 1e-12,
                required_instances: counts.required,
                per_domain: counts.per_domain,
                required_steady_utilization: load_now
                    / (f64::from(counts.required) * per_instance),
            };
            if !row.ok {
                let roles = roles.get_or_insert_with(|| sizing::roles(model));
                let judged = Judged {
                    c,
                    cap: per_instance,
                    pool,
                    before: (now.instances_up, load_now),
                    load,
                    loss: words(model, state, loss),
                    role: roles[id.0].clone(),
                    sizing: Sizing::new(model, &cx.scenario, id, need),
                    beyond_survive: loss.is_some_and(|l| l.beyond_survive),
                };
                audit.findings.push(overloaded(model, judged, &row));
            }
            audit.headroom.push(row);
        }
    }
    if let Some((id, count)) = found.untried {
        let c = model.component(id);
        let name: Arc<str> = Arc::from(c.name.as_str());
        audit.findings.push(Finding::new(
            DOC.rule,
            Subject::pair(Arc::clone(&name), Arc::from("untried")),
            Severity::Note,
            c.span,
            Untried {
                component: name,
                count,
                bound,
            },
        ));
    }
}

/// `c`'s `rate_limit` where it is at most what `survivors` instances of
/// `per_instance` carry: the rate it accepts then, which they carry (the
/// state sheds the rest; it does not collapse).
fn limit_of(c: &Component, survivors: u32, per_instance: f64) -> Option<f64> {
    c.rate_limit
        .filter(|&l| l <= f64::from(survivors) * per_instance * (1.0 + 1e-12))
}

/// What a contingency is, in words (`None`: one instance).
fn words(model: &Model, state: &State, loss: Option<&Contingency>) -> LossWords {
    match loss.map(|l| &l.lost) {
        None => LossWords::Instance,
        Some(Lost::Domains(domains)) => LossWords::Domains {
            kind: Arc::from(model.domain(domains[0]).kind.as_str()),
            pair: domains.len() > 1,
        },
        Some(Lost::Group(_)) => LossWords::Group,
        Some(Lost::Component(gone)) => LossWords::Component(state.of(*gone).instances_up),
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::Scenario;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&Headroom, text)
    }

    const FOUR_ZONES: &str = r"domains:
  az-a: {kind: zone}
  az-b: {kind: zone}
  az-c: {kind: zone}
  az-d: {kind: zone}
";

    #[test]
    fn a_managed_service_is_not_told_to_run_instances_itself() {
        // A managed store with 2 nodes of 100, load 150: losing one leaves
        // 150 / 100 = 150%. N+1 sizing: ceil(150 / 100) = 2, plus one = 3;
        // the advice is what to buy from the provider, not "run 3 instances".
        let audit = run(
            "system: s\ncomponents:\n  web: {depends_on: [rds]}\n  rds: {managed: true, instances: 2, capacity: 100, load: 150}\n",
        );
        let f = audit
            .findings
            .iter()
            .find(|f| f.id().to_string() == "headroom/rds/instance")
            .expect("headroom/rds/instance");
        let help = f.help().map(|help| help.to_string()).unwrap();
        assert!(
            help.starts_with("rds is a managed service: the provider runs its nodes, so buy or configure the equivalent of what this takes (run 3 instances of rds (N+1"),
            "{help}"
        );
    }

    #[test]
    fn a_request_pool_that_serves_less_than_capacity_is_what_a_loss_is_judged_against() {
        // 10 workers per instance at 50 ms: 10 / 0.05 = 200/s per instance,
        // below the written 1000. Intact 500 / (3 × 200) = 83%; losing a zone
        // leaves 2 × 200 = 400 for 500: 125%, and the pool serves 80% (the
        // figures count the same: api needs all 3 instances, 0.999³). Against
        // the capacity it would read 500 / 2000 = 25% and pass.
        let audit = run(
            "system: s\ndomains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\n  az-c: {kind: zone}\ncomponents:\n  api: {instances: 3, placement: [az-a, az-b, az-c], capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}}\n",
        );
        let a = &audit.headroom[0];
        assert_eq!((a.lost.as_ref(), a.survivors, a.ok), ("az-a", 2, false));
        assert!((a.utilization - 1.25).abs() < 1e-12, "{}", a.utilization);
        // at_peak = ceil(500 / 200) = 3; per_domain = ceil(3 / 2) = 2;
        // required = 6, steady 500 / (6 × 200) = 42%.
        assert_eq!((a.required_instances, a.per_domain), (6, Some(2)));
        let f = &audit.findings[0];
        assert_eq!(f.id().to_string(), "headroom/api/az-a");
        // The pool admits what it serves: a partial service, as shedding.
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(
            f.message().to_string(),
            "losing az-a (zone) leaves api 2 of 3 instances: 500 / (2 × 200) = 125% of what its request pool serves (10 workers / 50ms held per request), above the 100% ceiling; the pool admits what it serves and refuses or queues the rest: 400 / 500 = 80% of peak served"
        );
        // Little's law on the 2 survivors: 500 × 0.05 / 2 = 12.5 → 13.
        let help = f.help().map(|h| h.to_string()).unwrap_or_default();
        assert!(
            help.ends_with("; or give each instance `workers: 13` (500 × 50ms / 2 survivors = 12.5 in flight each), or cut the time a request holds a worker"),
            "{help}"
        );
        // Twice the workers: 400/s per instance, 500 / 800 = 63% after a
        // zone; no finding.
        let roomy = run(
            "system: s\ndomains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\n  az-c: {kind: zone}\ncomponents:\n  api: {instances: 3, placement: [az-a, az-b, az-c], capacity: 1000, load: 500, workers: 20, latency: {p99: 50ms}}\n",
        );
        assert!(roomy.findings.is_empty(), "{:?}", roomy.findings);
        assert!((roomy.headroom[0].utilization - 0.625).abs() < 1e-12);
        // Capacity 220 under the same pool (from a review): 13 workers
        // would serve 260/s, but 2 × 220 = 440 < 500 then binds, so no
        // `workers:` is offered; the instances are.
        let tight = run(
            "system: s\ndomains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\n  az-c: {kind: zone}\ncomponents:\n  api: {instances: 3, placement: [az-a, az-b, az-c], capacity: 220, load: 500, workers: 10, latency: {p99: 50ms}}\n",
        );
        let help = tight.findings[0].help().map(|h| h.to_string()).unwrap_or_default();
        assert!(!help.contains("workers:"), "{help}");
        assert!(help.starts_with("run 6 instances"), "{help}");
    }

    #[test]
    fn four_zones_without_enough_instances() {
        let audit = run(&format!(
            r"system: s
{FOUR_ZONES}components:
  api: {{instances: 4, placement: [az-a, az-b, az-c, az-d], capacity: 100, load: 350}}
"
        ));
        // 4 zone rows and 1 instance row, each 350 / (3 × 100) = 117% > 100%.
        assert_eq!(audit.headroom.len(), 5);
        assert_eq!(audit.findings.len(), 5);
        let a = &audit.headroom[0];
        assert_eq!((a.lost.as_ref(), a.survivors, a.ok), ("az-a", 3, false));
        assert!((a.utilization - 350.0 / 300.0).abs() < 1e-12);
        // at_peak = ceil(350 / 100) = 4; per_domain = ceil(4 / (4 - 1)) = 2; required = 8;
        // steady 350 / 800 = 44%.
        assert_eq!((a.required_instances, a.per_domain), (8, Some(2)));
        assert!((a.required_steady_utilization - 0.4375).abs() < 1e-12);
        let f = &audit.findings[0];
        assert_eq!(f.id().to_string(), "headroom/api/az-a");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(
            f.message().to_string(),
            "losing az-a (zone) leaves api 3 of 4 instances: 350 / (3 × 100) = 117% of capacity, above the 100% ceiling; without load_shedding the survivors overload and fail in turn, each failure moving its load onto fewer instances until none is left (a capacity redistribution cascade)"
        );
        assert_eq!(
            f.help().map(|help| help.to_string()).as_deref(),
            Some(
                "run 8 instances, 2 per zone over 4 zones: at peak 4 instances are needed at 100% (ceil(350 / (100 × 1))), and they must fit in the 3 zones left after losing 1; that fleet runs at 44% in steady state"
            )
        );
        // The instance row: N+1 = 4 + 1 = 5, no per_domain.
        let i = &audit.headroom[4];
        assert_eq!(
            (i.lost.as_ref(), i.required_instances, i.per_domain),
            ("instance", 5, None)
        );
    }

    #[test]
    fn four_zones_with_enough_instances_and_a_stricter_ceiling() {
        let model = |policy: &str| {
            format!(
                r"system: s
{policy}{FOUR_ZONES}components:
  api: {{instances: 8, placement: [az-a, az-b, az-c, az-d], capacity: 100, load: 500}}
"
            )
        };
        // Losing a zone: 500 / (6 × 100) = 83% <= 100%; an instance: 500 / 700 = 71%.
        let audit = run(&model(""));
        assert!(audit.findings.is_empty());
        assert_eq!(audit.headroom.len(), 5);
        // With max_utilization 0.7: 83% > 70% for every zone, 71.4% > 70% for an instance.
        let audit = run(&model("policy: {max_utilization: 0.7}\n"));
        assert_eq!(audit.findings.len(), 5);
        // at_peak = ceil(500 / 70) = 8; per_domain = ceil(8 / 3) = 3; required = 12 (500/1200 = 42%).
        assert_eq!(audit.headroom[0].required_instances, 12);
        assert!(
            audit.findings[4]
                .message().to_string()
                .contains("= 71% of capacity, above the 70% ceiling"),
            "{}",
            audit.findings[4].message().to_string()
        );
    }

    #[test]
    fn survive_two_checks_pairs_of_zones() {
        let audit = run(&format!(
            r"system: s
policy: {{survive: 2}}
{FOUR_ZONES}components:
  api: {{instances: 8, placement: [az-a, az-b, az-c, az-d], capacity: 100, load: 500}}
"
        ));
        // 4 singles (83%), 6 pairs (500 / 400 = 125%), 1 instance (71%).
        assert_eq!(audit.headroom.len(), 11);
        let ids: Vec<String> = audit.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(
            ids,
            [
                "headroom/api/az-a+az-b",
                "headroom/api/az-a+az-c",
                "headroom/api/az-a+az-d",
                "headroom/api/az-b+az-c",
                "headroom/api/az-b+az-d",
                "headroom/api/az-c+az-d",
            ]
        );
        // at_peak = ceil(500 / 100) = 5; per_domain = ceil(5 / (4 - 2)) = 3; required = 12.
        let pair = &audit.headroom[4];
        assert_eq!(
            (pair.survivors, pair.required_instances, pair.per_domain),
            (4, 12, Some(3))
        );
    }

    #[test]
    fn a_three_node_fleet_losing_one_node() {
        let fleet = |load: u32| {
            run(&format!(
                r"system: s
components:
  db: {{instances: 3, capacity: 100, load: {load}}}
"
            ))
        };
        // At 70%: 210 / (2 × 100) = 105% > 100%. N+1: ceil(210 / 100) + 1 = 4.
        let hot = fleet(210);
        assert_eq!(hot.findings.len(), 1);
        assert_eq!(hot.findings[0].id().to_string(), "headroom/db/instance");
        assert_eq!(hot.headroom[0].required_instances, 4);
        assert!(hot.findings[0].message().to_string().starts_with(
            "losing one instance leaves db 2 of 3 instances: 210 / (2 × 100) = 105% of capacity"
        ));
        // At 60%: 180 / 200 = 90%.
        let cool = fleet(180);
        assert!(cool.findings.is_empty());
        assert!(cool.headroom[0].ok);
    }

    #[test]
    fn load_shedding_makes_it_a_warning_with_the_share_served() {
        let audit = run(r"system: s
domains: {a: {kind: zone}, b: {kind: zone}, c: {kind: zone}}
components:
  redirect: {instances: 6, placement: [a, b, c], capacity: 2000, load: 9000, load_shedding: true}
");
        // 9000 / (4 × 2000) = 112.5%; served 8000 / 9000 = 89%.
        let f = &audit.findings[0];
        assert_eq!(f.severity, Severity::Warning);
        assert!(
            f.message().to_string().ends_with("still serve 8000 / 9000 = 89% of peak"),
            "{}",
            f.message().to_string()
        );
    }

    #[test]
    fn degenerate_figures_do_not_panic() {
        // Capacity 0 is skipped; load 0 runs at 0% (validation keeps
        // max_utilization above 0).
        let audit = run(r"system: s
components:
  a: {instances: 2, capacity: 0, load: 5}
  b: {instances: 2, capacity: 10, load: 5}
  c: {instances: 2, capacity: 10, load: 0}
");
        let lost: Vec<(&str, bool)> = audit
            .headroom
            .iter()
            .map(|r| (r.component.as_ref(), r.ok))
            .collect();
        // b: 5 / (1 × 10) = 50%.
        assert_eq!(lost, [("b", true), ("c", true)]);
    }

    #[test]
    fn whole_losses_and_unused_domains_are_not_rows() {
        // All in az-a: losing it is a SPOF question, not a headroom row; az-b holds nothing.
        let audit = run(r"system: s
domains: {az-a: {kind: zone}, az-b: {kind: zone}}
components:
  api: {instances: 2, placement: [az-a], capacity: 10, load: 5}
");
        let lost: Vec<&str> = audit.headroom.iter().map(|r| r.lost.as_ref()).collect();
        assert_eq!(lost, ["instance"]);
    }

    fn run_under(text: &str, lost: &[usize]) -> Audit {
        let model = crate::model::parse(text).unwrap();
        let figures = crate::engine::availability(&model);
        let scenario = Scenario {
            domains: lost.iter().map(|&d| DomainId(d)).collect(),
            ..Scenario::default()
        };
        let today = crate::model::Date::parse("2026-11-30").unwrap();
        let cx = Context::under(&model, today, &figures, scenario);
        let mut audit = Audit::new(String::new(), Vec::new());
        Headroom.check(&cx, &mut audit);
        audit
    }

    #[test]
    fn under_a_lost_zone_every_next_zone_is_a_row_whatever_survive_says() {
        let model = |survive: u32| {
            format!(
                r"system: s
policy: {{survive: {survive}}}
domains: {{az-a: {{kind: zone}}, az-b: {{kind: zone}}, az-c: {{kind: zone}}}}
components:
  api: {{instances: 6, placement: [az-a, az-b, az-c], capacity: 100, load: 300}}
"
            )
        };
        // After az-a: 4 of 6 up. Losing az-b or az-c too leaves 2: 300 /
        // (2 × 100) = 150%, errors with survive 1 (the next loss from the
        // changed state is what survive asks of it); one more instance
        // leaves 3: 300 / 300 = 100%, ok.
        let one = run_under(&model(1), &[0]);
        let rows: Vec<(&str, u32, bool)> = one
            .headroom
            .iter()
            .map(|r| (r.lost.as_ref(), r.survivors, r.ok))
            .collect();
        assert_eq!(
            rows,
            [("az-b", 2, false), ("az-c", 2, false), ("instance", 3, true)]
        );
        let ids: Vec<String> = one.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["headroom/api/az-b", "headroom/api/az-c"]);
        assert_eq!(one.findings[0].severity, Severity::Error);
        assert!((one.headroom[0].utilization - 1.5).abs() < 1e-12);
        // The message counts what this loss takes (2 of the 4 still up) and
        // says what was already down; the sizing counts from the 6
        // deployed: 3 needed up in the 2 zones left after az-a and az-b,
        // ceil(3 / 1) = 3 per zone, 9 in all, never fewer than 6.
        assert_eq!(
            one.findings[0].message().to_string(),
            "losing az-b (zone) takes 2 of the 4 instances of api still up (2 of 6 already down), leaving 2: 300 / (2 × 100) = 150% of capacity, above the 100% ceiling; without load_shedding the survivors overload and fail in turn, each failure moving its load onto fewer instances until none is left (a capacity redistribution cascade)"
        );
        assert_eq!(
            (one.headroom[0].required_instances, one.headroom[0].per_domain),
            (9, Some(3))
        );
        assert_eq!(
            one.findings[0].help().map(|h| h.to_string()).as_deref(),
            Some(
                "run 9 instances, 3 per zone over 3 zones (6 are deployed): at peak 3 instances are needed at 100% (ceil(300 / (100 × 1))), and they must fit in the 1 zone left after losing 1 more (az-a already lost); that fleet runs at 33% in steady state"
            )
        );
        // survive 0 asks for no zone loss: the next zone is still a row,
        // beyond survive a warning.
        let zero = run_under(&model(0), &[0]);
        assert_eq!(zero.findings.len(), 2);
        assert!(zero.findings.iter().all(|f| f.severity == Severity::Warning));
        assert!(
            zero.findings[0]
                .message()
                .to_string()
                .starts_with("losing az-b (zone), beyond policy.survive (0), takes 2"),
            "{}",
            zero.findings[0].message()
        );
        // check with survive 0 tries no zone at all.
        let intact = run(&model(0));
        assert!(intact.headroom.iter().all(|r| &*r.lost == "instance"));
    }

    #[test]
    fn whole_component_losses_past_the_work_bound_are_said_not_tried() {
        // One of two providers lost whole sends the other all 400 on 300
        // (headroom/pay-b/pay-a). With a bound of 0 units, losing checkout
        // (nothing calls it: its loss moves no load) costs nothing; pay-a's
        // is the first that costs work: one note, at pay-a, counting it and
        // pay-b after it.
        let text = "system: s\nentrypoints: [checkout]\ncomponents:\n  checkout: {instances: 2, capacity: 500, load: 400, depends_on: [{any_of: [pay-a, pay-b]}]}\n  pay-a: {capacity: 300}\n  pay-b: {capacity: 300}\n";
        let model = crate::model::parse(text).unwrap();
        let today = crate::model::Date::parse("2026-11-30").unwrap();
        let run = |bound: u64| {
            let cx = Context::new(&model, today, &[]);
            let mut audit = Audit::new(String::new(), Vec::new());
            check_within(&cx, &mut audit, bound);
            audit
                .findings
                .iter()
                .map(|f| (f.id().to_string(), f.severity))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            run(contingency::work_bound(&model)),
            [
                ("headroom/pay-a/pay-b".to_owned(), Severity::Error),
                ("headroom/pay-b/pay-a".to_owned(), Severity::Error)
            ]
        );
        let cx = Context::new(&model, today, &[]);
        let mut audit = Audit::new(String::new(), Vec::new());
        check_within(&cx, &mut audit, 0);
        assert_eq!(audit.findings.len(), 1);
        let f = &audit.findings[0];
        assert_eq!(
            (f.id().to_string().as_str(), f.severity),
            ("headroom/pay-a/untried", Severity::Note)
        );
        assert!(
            f.message()
                .to_string()
                .starts_with("losing pay-a whole, and 1 more component after it in model order, was not judged"),
            "{}",
            f.message()
        );
    }
}
