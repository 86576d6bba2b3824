//! `headroom/<component>/<lost>`: after losing a domain, two domains of one
//! kind (`policy.survive: 2`) or one instance, the survivors of a component
//! run above `policy.max_utilization`. Every contingency, passing or not,
//! becomes a row of the report's `headroom` section, named after its loss.
//!
//! N-k is the analysis of each k-loss scenario: a domain loss is the
//! [`State`] of the checked scenario with that domain lost too (its
//! survivors, and the load the flow brings them there); under a `what-if`
//! scenario the rows are the next losses from the changed state.

use super::wording::{amount, percent_against, whole_percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use crate::analyze::results::{HeadroomRow, Audit};
use crate::engine::scenario::{self, Scenario, surviving_instances};
use crate::engine::state::State;
use crate::model::Rule;
use crate::model::{Capacity, Component, ComponentId, DomainId, Model};

// ---- finding constructors ----

/// `headroom/<component>/<lost>`: the survivors of a loss above the
/// ceiling, with the row of the contingency and what its sizing needs.
#[derive(Debug)]
struct Overloaded {
    row: HeadroomRow,
    /// The kind of the lost domains; `None` for one instance.
    kind: Option<Arc<str>>,
    /// Whether two domains are lost.
    pair: bool,
    load: f64,
    per_instance: f64,
    max: f64,
    load_shedding: bool,
    managed: bool,
    /// Domains lost at once, and domains of that kind in use.
    k: u32,
    used: u32,
}

fn overloaded(
    model: &Model,
    c: &Component,
    (cap, load): (Capacity, f64),
    loss: &Loss,
    kind: Option<Arc<str>>,
    row: &HeadroomRow,
) -> Finding {
    Finding::new(
        DOC.rule,
        Subject::pair(Arc::clone(&row.component), Arc::clone(&row.lost)),
        if c.load_shedding {
            Severity::Warning
        } else {
            Severity::Error
        },
        c.span,
        Overloaded {
            row: row.clone(),
            kind,
            pair: matches!(&loss.lost, Lost::Domains(domains) if domains.len() > 1),
            load,
            per_instance: cap.per_instance,
            max: model.policy.max_utilization,
            load_shedding: c.load_shedding,
            managed: c.managed,
            k: loss.k,
            used: loss.used,
        },
    )
}

impl Wording for Overloaded {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = &self.row;
        match &self.kind {
            None => out.write_str("losing one instance")?,
            Some(kind) => write!(
                out,
                "losing {} ({kind}{})",
                row.lost.replace('+', " and "),
                if self.pair { "s" } else { "" }
            )?,
        }
        write!(
            out,
            " leaves {} {} of {} instances: {} / ({} × {}) = {} of capacity, above the {} ceiling; ",
            row.component,
            row.survivors,
            row.instances,
            amount(self.load),
            row.survivors,
            amount(self.per_instance),
            percent_against(row.utilization, self.max),
            whole_percent(self.max),
        )?;
        if self.load_shedding {
            let served = f64::from(row.survivors) * self.per_instance;
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

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.managed {
            // The team does not run its instances: the sizing is what to buy
            // or configure from the provider.
            write!(
                out,
                "{} is a managed service: the provider runs its nodes, so buy or configure the equivalent of what this takes (",
                self.row.component,
            )?;
            self.sizing(out)?;
            out.write_str("), or cut the load reaching it")
        } else {
            self.sizing(out)
        }
    }
}

impl Overloaded {
    fn sizing(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (row, load, per_instance, max) = (&self.row, self.load, self.per_instance, self.max);
        if row.required_instances > LARGEST_SENSIBLE_FLEET {
            return write!(
                out,
                "no fleet of a sensible size passes: a peak of {} over {} per instance needs more than {LARGEST_SENSIBLE_FLEET} instances; check that `load` and `capacity` are in the same unit",
                amount(load),
                amount(per_instance),
            );
        }
        let at_peak = at_peak(per_instance, load, max);
        let steady = whole_percent(row.required_steady_utilization);
        let head = format!(
            "at peak {at_peak} instances are needed at {} (ceil({} / ({} × {})))",
            whole_percent(max),
            amount(load),
            amount(per_instance),
            max
        );
        match (&self.kind, row.per_domain) {
            (Some(kind), Some(per_domain)) => write!(
                out,
                "run {} instances, {per_domain} per {kind} over {} {kind}s: {head}, and they must fit in the {} left after losing {}; that fleet runs at {steady} in steady state",
                row.required_instances,
                self.used,
                count(self.used - self.k, kind),
                self.k
            ),
            _ => write!(
                out,
                "run {} instances of {} (N+1: {head}, plus one spare); that fleet runs at {steady} in steady state",
                row.required_instances, row.component
            ),
        }
    }
}

/// Sizing advice above this many instances is not advice: the figures are
/// most likely in different units (a load in requests per second against a
/// capacity per millisecond).
pub(crate) const LARGEST_SENSIBLE_FLEET: u32 = 100_000;

/// `1 zone`, `2 zones`.
fn count(n: u32, kind: &str) -> String {
    format!("{n} {kind}{}", if n == 1 { "" } else { "s" })
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Headroom,
    id: "headroom/<component>/<lost>",
    severity: "error",
    summary: "After losing a domain or an instance, the survivors run above `policy.max_utilization`.",
    checks: "For every running component with `capacity`, every next contingency from the state being checked (intact for `check`, the changed one for `what-if`): the loss of each domain holding some of its instances up (when it also has instances elsewhere), of each pair of same-kind domains when `policy.survive` is 2 or more (domains already lost count towards `survive`), and of one instance (for components with at least two up). Each domain loss is a state of its own: survivors = instances up after it, and the load is the load flow of that state (which moves a lost cache's share onto the store behind it, through `cached_by`); utilization = load / (survivors × capacity). Above `policy.max_utilization` is an error, or a warning for a component with `load_shedding` (the message then gives the share of peak still served). Each contingency, passing or not, is a row of the `headroom` section with the sizing that would pass: at_peak = ceil(load / (capacity × max_utilization)), per_domain = ceil(at_peak / (d − k)) over the d domains of that kind the component uses, required = per_domain × d; for one instance, required = at_peak + 1.",
    why: "Capacity planned for a normal day is not capacity for the day a zone goes away. When the survivors of a loss run above what they can carry and nothing sheds load, they slow down, time out, fail health checks and drop out one by one, each dropping its share onto fewer instances: the capacity redistribution cascade that turns one zone loss into a full outage. Power grids are planned the same way (N-1 and N-2 contingencies): every credible loss is checked, and the worst comes first.",
    example: "domains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\n  az-c: {kind: zone}\ncomponents:\n  checkout:\n    instances: 4\n    placement: {az-a: 2, az-b: 1, az-c: 1}\n    capacity: 40\n    load: 100   # headroom/checkout/az-a: 100 / (2 × 40) = 125%",
    fix: "Add instances as the row's sizing says (`required_instances`, spread `per_domain`), or spread the existing ones so no domain holds more than its share. Where overload is acceptable for a while, `load_shedding: true` (admission control, 503s past capacity) turns the collapse into a partial service, and the finding into a warning.",
};

// ---- the check ----

/// What a contingency takes away.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lost {
    /// These domains (one, or a same-kind pair).
    Domains(Vec<DomainId>),
    /// One instance.
    Instance,
}

/// One contingency for one component.
#[derive(Debug, Clone)]
struct Loss {
    lost: Lost,
    /// `az-a`, `az-a+az-b` (sorted), or `instance`.
    name: String,
    /// Domains lost at once (1 or 2; 1 for an instance).
    k: u32,
    /// Domains of the lost kind that hold instances of the component.
    used: u32,
}

/// Every next contingency of `id` from the checked state, in model order:
/// single domains still holding some of its instances up, pairs (when
/// `survive` is 2 or more), then one instance.
fn losses(cx: &Context, id: ComponentId) -> Vec<Loss> {
    let model = cx.model;
    let up_now = cx.state().of(id).instances_up;
    let left = |lost: &[DomainId]| {
        let event = Scenario {
            domains: lost.to_vec(),
            ..Scenario::default()
        };
        scenario::instances_up(model, id, &cx.scenario.and(&event))
    };
    let holds: Vec<DomainId> = (0..model.domains.len())
        .map(DomainId)
        .filter(|d| !scenario::is_lost(model, *d, &cx.scenario.domains))
        .filter(|&d| surviving_instances(model, id, &[d]) < model.component(id).instances)
        .collect();
    let used = |kind: &str| -> u32 {
        let n = holds
            .iter()
            .filter(|d| model.domain(**d).kind == kind)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    // `policy.survive` counts the domains of one kind lost at once,
    // including those the checked scenario already lost.
    let already = |kind: &str| -> u32 {
        let n = cx
            .scenario
            .domains
            .iter()
            .filter(|d| model.domain(**d).kind == kind)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let takes_some = |lost: &[DomainId]| {
        let n = left(lost);
        let kind = &model.domain(lost[0]).kind;
        let k = u32::try_from(lost.len()).unwrap_or(u32::MAX);
        n < up_now && n > 0 && already(kind).saturating_add(k) <= model.policy.survive
    };
    let mut out = Vec::new();
    for &d in &holds {
        if takes_some(&[d]) {
            out.push(Loss {
                lost: Lost::Domains(vec![d]),
                name: model.domain(d).name.clone(),
                k: 1,
                used: used(&model.domain(d).kind),
            });
        }
    }
    if model.policy.survive >= 2 {
        for (i, &a) in holds.iter().enumerate() {
            for &b in &holds[i + 1..] {
                let kind = &model.domain(a).kind;
                if model.domain(b).kind != *kind || !takes_some(&[a, b]) {
                    continue;
                }
                let mut names = [model.domain(a).name.as_str(), model.domain(b).name.as_str()];
                names.sort_unstable();
                out.push(Loss {
                    lost: Lost::Domains(vec![a, b]),
                    name: names.join("+"),
                    k: 2,
                    used: used(kind),
                });
            }
        }
    }
    if up_now >= 2 {
        out.push(Loss {
            lost: Lost::Instance,
            name: "instance".to_owned(),
            k: 1,
            used: 0,
        });
    }
    out
}

/// Instances needed to carry `load` within `max_utilization` (at least 1).
fn at_peak(per_instance: f64, load: f64, max_utilization: f64) -> u32 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative count; `as` saturates at u32::MAX when the ceiling is 0"
    )]
    let n = (load / (per_instance * max_utilization)).ceil() as u32;
    n.max(1)
}

/// The states after each domain loss, computed once per loss (by the
/// [`Context`], which shares them with the loss judge) and kept at hand for
/// every component that loses instances in it.
#[derive(Default)]
struct LossStates(BTreeMap<Vec<DomainId>, Arc<State>>);

impl LossStates {
    fn get(&mut self, cx: &Context, domains: &[DomainId]) -> &State {
        self.0
            .entry(domains.to_vec())
            .or_insert_with(|| cx.state_losing(domains))
    }
}

/// The names a row carries, shared with the other rows of the component
/// and of the loss.
struct RowNames<'a> {
    component: &'a Arc<str>,
    lost: Arc<str>,
}

/// One shared copy of each loss's name (`az-a`, `az-a+az-b`, `instance`)
/// for every row of the run.
#[derive(Default)]
struct LostNames(HashMap<String, Arc<str>>);

impl LostNames {
    fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(shared) = self.0.get(name) {
            return Arc::clone(shared);
        }
        let shared: Arc<str> = Arc::from(name);
        self.0.insert(name.to_owned(), Arc::clone(&shared));
        shared
    }
}

/// The row of one contingency: survivors and the load that reaches them in
/// the state after it, and the sizing that would pass.
fn row(
    cx: &Context,
    states: &mut LossStates,
    names: RowNames<'_>,
    id: ComponentId,
    cap: Capacity,
    loss: &Loss,
) -> Option<(HeadroomRow, f64)> {
    let model = cx.model;
    let max = model.policy.max_utilization;
    let c = model.component(id);
    let now = cx.state().of(id);
    let (survivors, load) = match &loss.lost {
        Lost::Instance => (now.instances_up - 1, now.offered?),
        Lost::Domains(domains) => {
            let after = states.get(cx, domains).of(id);
            (after.instances_up, after.offered?)
        }
    };
    let utilization = load / (f64::from(survivors) * cap.per_instance);
    let at_peak = at_peak(cap.per_instance, load, max);
    let (required_instances, per_domain) = match loss.lost {
        Lost::Instance => (at_peak.saturating_add(1), None),
        Lost::Domains(_) if loss.used > loss.k => {
            let per_domain = at_peak.div_ceil(loss.used - loss.k);
            (per_domain.saturating_mul(loss.used), Some(per_domain))
        }
        // Some instances sit outside every domain of this kind: keep the
        // lost ones and add enough elsewhere to carry the peak alone.
        Lost::Domains(_) => (at_peak.saturating_add(c.instances - survivors), None),
    };
    Some((
        HeadroomRow {
            component: Arc::clone(names.component),
            lost: names.lost,
            instances: c.instances,
            survivors,
            utilization,
            ok: utilization <= max + 1e-12,
            required_instances,
            per_domain,
            required_steady_utilization: load / (f64::from(required_instances) * cap.per_instance),
        },
        load,
    ))
}

/// The `headroom` rule.
pub struct Headroom;

impl Analyzer for Headroom {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let mut states = LossStates::default();
        let mut lost_names = LostNames::default();
        // The kind of each domain, shared by the findings that lose it.
        let mut kinds: Vec<Option<Arc<str>>> = vec![None; cx.model.domains.len()];
        for id in cx.model.component_ids() {
            let c = cx.model.component(id);
            let Some(cap) = c.capacity else { continue };
            // A capacity of 0 carries nothing in any contingency; a component
            // not running in the checked state has no survivors to judge.
            if cap.per_instance <= 0.0 || !cx.state().of(id).running {
                continue;
            }
            let mut component: Option<Arc<str>> = None;
            for loss in losses(cx, id) {
                let names = RowNames {
                    component: component.get_or_insert_with(|| Arc::from(c.name.as_str())),
                    lost: lost_names.get(&loss.name),
                };
                let Some((row, load)) = row(cx, &mut states, names, id, cap, &loss) else {
                    continue;
                };
                if !row.ok {
                    let kind = match &loss.lost {
                        Lost::Domains(domains) => Some(Arc::clone(
                            kinds[domains[0].0].get_or_insert_with(|| {
                                Arc::from(cx.model.domain(domains[0]).kind.as_str())
                            }),
                        )),
                        Lost::Instance => None,
                    };
                    audit
                        .findings
                        .push(overloaded(cx.model, c, (cap, load), &loss, kind, &row));
                }
                audit.headroom.push(row);
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

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
    fn under_a_lost_zone_the_rows_are_the_next_losses_policy_allows() {
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
        // After az-a: 4 of 6 up. survive 1 is spent: only one more instance,
        // 300 / (3 × 100) = 100%, ok.
        let one = run_under(&model(1), &[0]);
        let rows: Vec<(&str, u32, bool)> = one
            .headroom
            .iter()
            .map(|r| (r.lost.as_ref(), r.survivors, r.ok))
            .collect();
        assert_eq!(rows, [("instance", 3, true)]);
        // survive 2: losing az-b or az-c too leaves 2: 300 / 200 = 150%.
        let two = run_under(&model(2), &[0]);
        let ids: Vec<String> = two.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["headroom/api/az-b", "headroom/api/az-c"]);
        assert!((two.headroom[0].utilization - 1.5).abs() < 1e-12);
    }
}
