//! `spof/<component>` and `spof/<domain>`: one event, one instance failing
//! or one domain lost, that takes an entrypoint down.
//!
//! [`single_events`] is public so that the SPOFs can be compared with the
//! order-1 minimal cut sets of a fault tree exported from the same model.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::advice::spread::{DomainHelp, InstanceHelp};
use super::wording::{OutageWords, amount, whole_percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::outage::{LISTED, Outage, outage_after, required_closure};
use crate::engine::scenario::{Baseline, Scenario};
use crate::model::Rule;
use crate::model::graph::ComponentGraph;
use crate::model::{ComponentId, DomainId, Model, Plane};

// ---- finding constructors ----

/// `spof/<component>` and `spof/<domain>`: the event and what it takes
/// down.
#[derive(Debug)]
enum Spof {
    /// One instance of a managed service failing.
    Managed { name: Arc<str>, outage: OutageWords },
    /// One instance failing.
    Instance {
        name: Arc<str>,
        control: bool,
        outage: OutageWords,
        /// What the model and the scenario allow to do about it.
        advice: InstanceHelp,
    },
    /// One instance failing takes nothing down structurally, but its loss
    /// moves load onto a component that cannot carry it: by load.
    Load {
        name: Arc<str>,
        /// The component that cannot carry what it is then sent.
        onto: Arc<str>,
        /// What it is sent, and what its instances up carry.
        load: f64,
        capacity: f64,
        /// The entrypoints that lose their whole peak.
        entrypoints: Vec<Arc<str>>,
        /// Instances of `onto` that would carry it.
        needed: Option<u32>,
        instances: u32,
    },
    /// A domain lost.
    Domain {
        name: Arc<str>,
        kind: Arc<str>,
        outage: OutageWords,
        /// Whether the one component it takes down on its own is managed.
        lone_managed: bool,
        /// What the model and the scenario allow to do about it.
        advice: DomainHelp,
    },
}

/// The advice for a service the team does not run.
fn managed_help(name: &str, out: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(
        out,
        "{name} is a managed service: it cannot be given instances or a placement. Add a second provider behind an `any_of`, serve a cached or stale copy when it fails (a cache with `hit_rate` and a degradable edge), make the edges to {name} degradable, or accept the risk under `accepted:` with the provider's SLA as its `availability`"
    )
}

fn instance_spof(cx: &Context, id: ComponentId, outage: &Outage) -> Finding {
    let model = cx.model;
    let c = model.component(id);
    let name: Arc<str> = Arc::from(c.name.as_str());
    let outage = OutageWords::new(model, outage);
    let wording = if c.managed {
        Spof::Managed {
            name: Arc::clone(&name),
            outage,
        }
    } else {
        Spof::Instance {
            name: Arc::clone(&name),
            control: c.plane == Plane::Control,
            outage,
            advice: InstanceHelp::new(model, &cx.scenario, id),
        }
    };
    Finding::new(DOC.rule, name, Severity::Error, c.span, wording)
}

fn domain_spof(cx: &Context, needed: &[bool], id: DomainId, outage: &Outage) -> Finding {
    let model = cx.model;
    let d = model.domain(id);
    let name: Arc<str> = Arc::from(d.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        d.span,
        Spof::Domain {
            name,
            kind: Arc::from(d.kind.as_str()),
            lone_managed: outage.lost.len() == 1 && model.component(outage.lost[0].0).managed,
            outage: OutageWords::with_needed(model, outage, needed),
            advice: DomainHelp::new(model, &cx.scenario, needed, id, outage),
        },
    )
}

impl Wording for Spof {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spof::Managed { name, outage } => {
                write!(out, "{name} (managed) failing takes down {outage}")
            }
            Spof::Instance {
                name,
                control,
                outage,
                ..
            } => {
                let plane = if *control { " (control plane)" } else { "" };
                write!(out, "one instance of {name}{plane} failing takes down {outage}")
            }
            Spof::Domain {
                name, kind, outage, ..
            } => write!(out, "losing {name} ({kind}) takes down {outage}"),
            Spof::Load {
                name,
                onto,
                load,
                capacity,
                entrypoints,
                ..
            } => write!(
                out,
                "one instance of {name} failing takes nothing down by itself, but its loss sends {onto} {} against the {} its instances carry ({}): {onto} cannot carry it, and {} {} {} whole load (a single point of failure by load)",
                amount(*load),
                amount(*capacity),
                if *capacity > 0.0 {
                    whole_percent(*load / *capacity)
                } else {
                    "no capacity left".to_owned()
                },
                if entrypoints.len() == 1 { "entrypoint" } else { "entrypoints" },
                entrypoints.join(", "),
                if entrypoints.len() == 1 { "loses its" } else { "lose their" }
            ),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spof::Managed { name, .. } => managed_help(name, out),
            Spof::Instance { advice, .. } => advice.write(out),
            Spof::Load {
                name,
                onto,
                needed,
                instances,
                ..
            } => {
                write!(out, "run a second instance of {name} in another domain")?;
                match needed {
                    Some(n) if n > instances => write!(
                        out,
                        ", or size {onto} for the load it gets without {name}: {n} instances instead of {instances}"
                    ),
                    _ => write!(out, ", or give {onto} the capacity to carry what {name} takes off it"),
                }
            }
            Spof::Domain {
                outage,
                lone_managed,
                advice,
                ..
            } => match outage.lost_names().next() {
                Some(first) if *lone_managed => managed_help(first, out),
                _ => advice.write(out),
            },
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Spof,
    id: "spof/<component or domain>",
    severity: "error",
    summary: "One instance failing, or one domain lost, takes an entrypoint down.",
    checks: "Every single event that could happen on its own: one instance of a component failing (for components whose instances can fail, that is with an availability below 100% or none given), and the loss of one failure domain (for kinds with at least two domains in the model, so a design that is single-region on purpose is not flooded). For each, it works out what is still up, following required edges, `any_of` and `at_least` alike, and reports the event when an entrypoint that was up goes down. Degradable edges never count. Control-plane components (`plane: control`) are checked like the rest, and the message says so. A component nothing requires can still be one *by load*: when one instance failing takes it out (no spare instance) and the load its loss moves (a cache's misses onto its store, an alternative's share onto the others, a failover) lands on a component that cannot carry it, an entrypoint loses its whole load in the settled state (docs/availability.md), and the finding gives the load against the capacity.",
    why: "A single point of failure is an outage waiting for one bad disk, one kernel panic or one zone event, and no amount of per-instance reliability removes it: the system is never more available than that one thing. Alternatives that share a zone (`any_of: [db-a, db-b]` with both in az-a) look redundant but fail together, and a control plane (a config store, a secrets service) is as much a SPOF as the database when requests cannot be served without it.",
    example: "domains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\ncomponents:\n  checkout: {instances: 4, placement: [az-a, az-b], depends_on: [postgres]}\n  postgres: {instances: 1, placement: [az-a]}   # spof/postgres and spof/az-a",
    fix: "Give the component more instances than `min_healthy` needs, in different domains (`instances: 2, placement: [az-a, az-b]`); place alternatives of an `any_of` in different domains; or, when callers really can work without it, make the edge `degradable: true`. A component that must stay single (a licence server) can be accepted with a reason under `accepted:`. A managed service (`managed: true`, or `kind: saas`/`external`) gets other advice: a second provider, a cached or stale fallback, a degradable edge, or the provider's SLA as its `availability` and an accepted risk.",
};

// ---- the check ----

/// A single event the check considers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// One instance of the component fails on its own.
    Instance(ComponentId),
    /// The domain is lost, with everything in it.
    Domain(DomainId),
}

impl Event {
    /// The component's or domain's name: the subject of its `spof/` id, and
    /// the basic event a fault tree of the same model would name.
    pub fn subject(self, model: &Model) -> &str {
        match self {
            Event::Instance(id) => &model.component(id).name,
            Event::Domain(id) => &model.domain(id).name,
        }
    }
}

/// Every single event that takes an entrypoint down, with what it takes
/// down: instance failures in model order, then domain losses in model order.
///
/// Only components that an entrypoint needs (through non-degradable edges)
/// and domains holding such components are tried, so the cost is the size
/// of that closure times one scenario evaluation.
pub fn single_events(model: &Model) -> Vec<(Event, Outage)> {
    single_events_under(model, &Scenario::default())
}

/// [`single_events`] from the state of `scenario`: the events on top of what
/// is already lost that take down an entrypoint still up (after losing z1,
/// losing z2 is one).
pub fn single_events_under(model: &Model, scenario: &Scenario) -> Vec<(Event, Outage)> {
    let baseline = Baseline::under(model, scenario);
    single_events_from(model, scenario, &baseline, &ComponentGraph::new(model))
}

/// [`single_events_under`] with the scenario's baseline and the model's
/// component graph already built (the analyzers' [`Context`] shares them).
fn single_events_from(
    model: &Model,
    scenario: &Scenario,
    baseline: &Baseline,
    graph: &ComponentGraph,
) -> Vec<(Event, Outage)> {
    let needed = required_closure(model, graph);
    let mut events = Vec::new();
    let mut effects = Effects::new(model, baseline);
    for id in model.component_ids().filter(|id| needed[id.0]) {
        let c = model.component(id);
        if c.availability.is_some_and(|a| a >= 1.0) {
            continue;
        }
        let event = scenario.and(&Scenario {
            failed_instances: vec![(id, 1)],
            ..Scenario::default()
        });
        // One instance failing takes the component down only when it is
        // up and left with too few (of the instances up in the scenario);
        // what follows is the effect of its loss.
        let found = if effects.sole_caller[id.0].is_some() {
            let up = crate::engine::scenario::instances_up(model, id, scenario);
            (baseline.is_up(id) && up.saturating_sub(1) < c.min_healthy)
                .then(|| effects.outage(model, baseline, id))
                .flatten()
                .map(|mut outage| {
                    if up < c.instances {
                        outage.already_down = vec![(id, c.instances - up)];
                    }
                    outage
                })
        } else {
            outage_after(model, baseline, scenario, &event)
        };
        if let Some(outage) = found {
            events.push((Event::Instance(id), outage));
        }
    }
    for id in candidate_domains(model, &needed) {
        if crate::engine::scenario::is_lost(model, id, &scenario.domains) {
            continue;
        }
        let event = scenario.and(&Scenario {
            domains: vec![id],
            ..Scenario::default()
        });
        if let Some(outage) = outage_after(model, baseline, scenario, &event) {
            events.push((Event::Domain(id), outage));
        }
    }
    events
}

/// What the loss of one component takes down, shared along chains: when a
/// component's only caller through required edges needs it through a
/// single-target edge, its loss takes down exactly itself and what its
/// caller's loss takes down. A chain of n components then costs n steps,
/// not n²/2 walks up the chain, and each effect is kept as a summary (the
/// first names in model order, a count, the entrypoints), not a list.
struct Effects {
    /// For each component: its one caller, when that caller is up in the
    /// baseline and needs it through a single-target edge.
    sole_caller: Vec<Option<ComponentId>>,
    /// Memoised effect of each component's loss.
    memo: Vec<Option<Effect>>,
    /// Whether each component is an entrypoint.
    entrypoint: Vec<bool>,
}

#[derive(Clone)]
struct Effect {
    /// The smallest ids of the components down (the lost one included),
    /// at most `LISTED + 1`.
    first: Vec<ComponentId>,
    /// How many are down.
    total: usize,
    /// The entrypoints down, sorted by id.
    entrypoints: Vec<ComponentId>,
}

impl Effects {
    fn new(model: &Model, baseline: &Baseline) -> Self {
        let mut callers: Vec<Vec<(ComponentId, bool)>> = vec![Vec::new(); model.components.len()];
        // Every caller counts, needed or not: a component outside the
        // entrypoints' closure still goes down with what it requires, and
        // the message names it.
        for id in model.component_ids() {
            for edge in model
                .component(id)
                .depends_on
                .iter()
                .filter(|e| !e.degradable)
            {
                let single = edge.kind == crate::model::EdgeKind::Target;
                for &t in &edge.targets {
                    callers[t.0].push((id, single));
                }
            }
        }
        let sole_caller = callers
            .iter()
            .map(|list| match list.as_slice() {
                [(caller, true)] if baseline.is_up(*caller) => Some(*caller),
                _ => None,
            })
            .collect();
        let mut entrypoint = vec![false; model.components.len()];
        for e in &model.entrypoints {
            entrypoint[e.0] = true;
        }
        Self {
            sole_caller,
            memo: vec![None; model.components.len()],
            entrypoint,
        }
    }

    /// The effect of `id`'s loss (`id` up in the baseline).
    fn effect(&mut self, model: &Model, baseline: &Baseline, id: ComponentId) -> Effect {
        // Walk up the chain of sole callers to the first known effect (or
        // one computed by a full walk), then fill the memo back down.
        let mut chain = vec![id];
        let mut at = id;
        while self.memo[at.0].is_none() {
            match self.sole_caller[at.0] {
                Some(caller) if !chain.contains(&caller) => {
                    chain.push(caller);
                    at = caller;
                }
                _ => break,
            }
        }
        let top = *chain.last().unwrap_or(&id);
        if self.memo[top.0].is_none() {
            let event = Scenario {
                failed_instances: vec![(top, model.component(top).instances)],
                ..Scenario::default()
            };
            let down = baseline.down_under(model, &event);
            let mut entrypoints: Vec<ComponentId> = model
                .entrypoints
                .iter()
                .copied()
                .filter(|e| down.binary_search(e).is_ok())
                .collect();
            entrypoints.sort_unstable();
            self.memo[top.0] = Some(Effect {
                total: down.len(),
                first: down.into_iter().take(LISTED + 1).collect(),
                entrypoints,
            });
        }
        for pair in chain.windows(2).rev() {
            let (below, above) = (pair[0], pair[1]);
            if self.memo[below.0].is_some() {
                continue;
            }
            let Some(up) = self.memo[above.0].clone() else {
                continue;
            };
            let mut first = up.first;
            if let Err(at) = first.binary_search(&below) {
                first.insert(at, below);
            }
            first.truncate(LISTED + 1);
            let mut entrypoints = up.entrypoints;
            if self.entrypoint[below.0]
                && let Err(at) = entrypoints.binary_search(&below)
            {
                entrypoints.insert(at, below);
            }
            self.memo[below.0] = Some(Effect {
                first,
                total: up.total + 1,
                entrypoints,
            });
        }
        self.memo[id.0].clone().unwrap_or(Effect {
            first: vec![id],
            total: 1,
            entrypoints: Vec::new(),
        })
    }

    /// The outage of `id` failing on its own: `id` lost (one instance),
    /// the rest of its effect dragged.
    fn outage(&mut self, model: &Model, baseline: &Baseline, id: ComponentId) -> Option<Outage> {
        let effect = self.effect(model, baseline, id);
        if effect.entrypoints.is_empty() {
            return None;
        }
        let position = |e: &ComponentId| model.entrypoints.iter().position(|x| x == e);
        let mut entrypoints = effect.entrypoints;
        entrypoints.sort_by_key(position);
        let mut dragged: Vec<ComponentId> = effect.first.into_iter().filter(|&c| c != id).collect();
        dragged.truncate(LISTED);
        Some(Outage {
            lost: vec![(id, 1)],
            already_down: Vec::new(),
            dragged,
            dragged_total: effect.total - 1,
            entrypoints,
        })
    }
}

/// Domains whose kind has at least two domains in the model and that hold
/// (directly or through a domain inside them) an instance of a needed
/// component.
fn candidate_domains(model: &Model, needed: &[bool]) -> Vec<DomainId> {
    let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &model.domains {
        *per_kind.entry(d.kind.as_str()).or_default() += 1;
    }
    let mut holds = vec![false; model.domains.len()];
    for id in model.component_ids().filter(|id| needed[id.0]) {
        for &(domain, count) in &model.component(id).placement {
            if count == 0 {
                continue;
            }
            holds[domain.0] = true;
            for a in &model.domain(domain).ancestors {
                holds[a.0] = true;
            }
        }
    }
    (0..model.domains.len())
        .map(DomainId)
        .filter(|d| holds[d.0] && per_kind[model.domain(*d).kind.as_str()] >= 2)
        .collect()
}

/// The `spof` rule.
pub struct SinglePointOfFailure;

impl Analyzer for SinglePointOfFailure {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let events = single_events_from(
            cx.model,
            &cx.scenario,
            cx.baseline(),
            cx.flow().graph(),
        );
        let needed = required_closure(cx.model, cx.flow().graph());
        let mut structural = Vec::new();
        for (event, outage) in events {
            if let Event::Instance(id) = event {
                structural.push(id);
            }
            audit.findings.push(match event {
                Event::Instance(id) => instance_spof(cx, id, &outage),
                Event::Domain(id) => domain_spof(cx, &needed, id, &outage),
            });
        }
        structural.sort_unstable();
        audit.findings.extend(by_load(cx, &structural));
    }
}

/// `spof/<component>` by load: a component whose one instance failing
/// takes it down (it has no spare instance) but no entrypoint structurally,
/// while the load its loss moves (a cache's misses, a sibling's share, a
/// failover) lands on a component that cannot carry it and takes an
/// entrypoint's whole load with it, in the settled state.
fn by_load(cx: &Context, structural: &[ComponentId]) -> Vec<Finding> {
    use crate::engine::state::Verdict;
    let model = cx.model;
    let flow = cx.flow();
    let before = cx.state_with(&Scenario::default()).settle(model, flow);
    let mut found = Vec::new();
    for id in model.component_ids() {
        let c = model.component(id);
        if structural.binary_search(&id).is_ok()
            || c.instances.saturating_sub(1) >= c.min_healthy
            || c.availability.is_some_and(|a| a >= 1.0)
        {
            continue;
        }
        let event = Scenario {
            failed_instances: vec![(id, 1)],
            ..Scenario::default()
        };
        let after = cx.state_with(&event);
        let settled = after.clone().settle(model, flow);
        let lost: Vec<Arc<str>> = model
            .entrypoints
            .iter()
            .filter(|&&e| before.of(e).ok && !settled.of(e).ok && after.of(e).up)
            .map(|&e| Arc::from(model.component(e).name.as_str()))
            .collect();
        if lost.is_empty() {
            continue;
        }
        // The component the move overloads: the one whose load rose most
        // over what its instances carry, in the first pass.
        let Some((onto, load, capacity)) = model
            .component_ids()
            .filter(|&o| o != id && matches!(after.of(o).verdict, Verdict::Collapsing | Verdict::Shedding))
            .filter_map(|o| Some((o, after.of(o).offered?, after.limit(model, o)?)))
            .filter(|&(o, load, _)| load > before.of(o).offered.unwrap_or(0.0) + 1e-9)
            .max_by(|a, b| (a.1 / a.2.max(f64::MIN_POSITIVE)).total_cmp(&(b.1 / b.2.max(f64::MIN_POSITIVE))).then(b.0.cmp(&a.0)))
        else {
            continue;
        };
        let target = model.component(onto);
        let needed = target.capacity.and_then(|cap| {
            (cap.per_instance > 0.0 && load.is_finite()).then(|| {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a count of instances")]
                let n = (load / cap.per_instance).ceil().min(f64::from(u32::MAX)) as u32;
                n
            })
        });
        let name: Arc<str> = Arc::from(c.name.as_str());
        found.push(Finding::new(
            DOC.rule,
            Arc::clone(&name),
            Severity::Error,
            c.span,
            Spof::Load {
                name,
                onto: Arc::from(target.name.as_str()),
                load,
                capacity,
                entrypoints: lost,
                needed,
                instances: target.instances,
            },
        ));
    }
    found
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&SinglePointOfFailure, text).findings
    }

    fn ids(text: &str) -> Vec<String> {
        findings(text).into_iter().map(|f| f.id().to_string()).collect()
    }

    const ZONES: &str = r"system: s
domains: {az-a: {kind: zone}, az-b: {kind: zone}}
";

    #[test]
    fn a_single_instance_database_and_its_zone() {
        let found = findings(&format!(
            r"{ZONES}components:
  checkout: {{instances: 4, placement: [az-a, az-b], depends_on: [postgres]}}
  postgres: {{placement: [az-a]}}
"
        ));
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["spof/postgres", "spof/az-a"]);
        // postgres: 1 instance - 1 failed = 0 < min_healthy 1; checkout keeps
        // all 4 instances but requires it.
        assert_eq!(
            found[0].message().to_string(),
            "one instance of postgres failing takes down postgres (1 of 1 instances) and with it checkout; entrypoint checkout goes down"
        );
        // az-a holds postgres's only instance and 2 of checkout's 4.
        assert_eq!(
            found[1].message().to_string(),
            "losing az-a (zone) takes down postgres (1 of 1 instances) and with it checkout; entrypoint checkout goes down"
        );
        // The domain finding points at the domain: line 2, column 11 (`az-a`
        // after the 10 characters of `domains: {`); the component finding at
        // `postgres` on line 5, column 3.
        assert_eq!((found[1].location.line, found[1].location.column), (2, 11));
        assert_eq!((found[0].location.line, found[0].location.column), (5, 3));
    }

    #[test]
    fn replicas_in_one_zone_of_two_share_it() {
        // 20 replicas: one failing leaves 19 >= 1; az-a takes all 20.
        assert_eq!(
            ids(&format!(
                r"{ZONES}components:
  api: {{instances: 20, placement: [az-a]}}
  web: {{instances: 2, placement: [az-a, az-b], depends_on: [api]}}
"
            )),
            ["spof/az-a"]
        );
    }

    #[test]
    fn a_lone_zone_is_not_reported() {
        // Only one domain of kind zone: single-zone by design.
        assert!(
            ids(r"system: s
domains: {az-a: {kind: zone}}
components:
  api: {instances: 3, placement: [az-a]}
")
            .is_empty()
        );
    }

    #[test]
    fn alternatives_and_quorums_count_like_required_edges() {
        let any_of = format!(
            r"{ZONES}components:
  web: {{instances: 2, placement: [az-a, az-b], depends_on: [{{any_of: [db-1, db-2]}}]}}
  db-1: {{placement: [az-a]}}
  db-2: {{placement: [az-a]}}
"
        );
        assert_eq!(ids(&any_of), ["spof/az-a"]);
        // 2 of 3 with zk-1 and zk-2 in az-a: losing az-a leaves 1 < 2.
        let quorum = format!(
            r"{ZONES}components:
  web: {{instances: 2, placement: [az-a, az-b], depends_on: [{{at_least: 2, of: [zk-1, zk-2, zk-3]}}]}}
  zk-1: {{placement: [az-a]}}
  zk-2: {{placement: [az-a]}}
  zk-3: {{placement: [az-b]}}
"
        );
        assert_eq!(ids(&quorum), ["spof/az-a"]);
    }

    #[test]
    fn control_plane_components_say_so() {
        let found = findings(
            r"system: s
components:
  app: {instances: 3, depends_on: [config-store]}
  config-store: {plane: control}
",
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message().to_string()
                .starts_with("one instance of config-store (control plane) failing takes down config-store (control plane, 1 of 1 instances)"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn degradable_paths_and_perfect_components_never_count() {
        assert!(
            ids(r"system: s
components:
  web: {instances: 2, depends_on: [{target: cache, degradable: true}, path]}
  cache: {}
  path: {availability: 100%}
")
            .is_empty()
        );
    }

    #[test]
    fn min_healthy_equal_to_instances_is_a_spof() {
        // 3 instances, all needed: one failing leaves 2 < 3.
        let found = findings(
            r"system: s
components:
  db: {instances: 3, min_healthy: 3}
",
        );
        assert_eq!(found[0].id().to_string(), "spof/db");
        assert!(found[0].message().to_string().contains("db (1 of 3 instances, needs 3)"));
    }
}
