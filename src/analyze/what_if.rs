//! What-if: `check` of a changed state against `check` of the intact one.
//! The command line resolves its arguments into a [`Change`] (the changed
//! model, what is lost, the scenario); [`compare`] audits both and says which
//! findings the change introduces and which it resolves, leaving out the
//! scenario's own consequences (docs/what-if.md). `render/what_if.rs`
//! writes the outcome.

use crate::analyze::results::{Audit, HeadroomRow, SlowEvent};
use crate::analyze::slow::{self, Before};
use crate::analyze::{Finding, Severity};
use crate::engine::concurrency::{Plan, Slowed, Slowness};
use crate::engine::scenario::{Scenario, failed_per_component, is_lost, surviving_instances};
use crate::engine::state::{Flow, State};
use crate::model::error::closest;
use crate::model::units::parse_duration;
use crate::model::{ComponentId, Date, DomainId, GroupId, Model, Rule};
use serde::Serialize;
use std::collections::HashMap;

/// One component in one state, as the JSON `state` section gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateRow {
    /// The component.
    #[serde(skip)]
    pub component: String,
    /// Whether it is up.
    pub up: bool,
    /// Instances up.
    pub instances_up: u32,
    /// Load reaching it while it runs (a component down only because a
    /// dependency is down still receives its callers' requests), 0 when it
    /// is not running; absent when nothing says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// What its instances up can carry: their `capacity`, or less where a
    /// concurrency ceiling holds it (its request pool, or a slow
    /// scenario's), as the state serves it; absent without either.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<f64>,
    /// Load reaching it over that capacity, while it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
}

/// The rows of every component of `model` in `state`, in model order.
#[must_use]
pub fn state_rows(model: &Model, state: &State) -> Vec<StateRow> {
    model
        .component_ids()
        .map(|id| {
            let capacity = match (state.capacity(model, id), state.ceiling(id)) {
                (Some(cap), Some(ceiling)) => Some(cap.min(ceiling.serves)),
                (cap, ceiling) => cap.or(ceiling.map(|c| c.serves)),
            };
            let now = state.of(id);
            StateRow {
                component: model.component(id).name.clone(),
                up: now.up,
                instances_up: now.instances_up,
                load: if now.running {
                    now.offered
                } else {
                    state.load(id)
                },
                capacity,
                utilization: match (now.running, now.offered, capacity) {
                    (true, Some(offered), Some(cap)) if cap > 0.0 => Some(offered / cap),
                    (true, Some(offered), Some(_)) => {
                        Some(if offered > 0.0 { f64::INFINITY } else { 0.0 })
                    }
                    _ => None,
                },
            }
        })
        .collect()
}

/// Whether a component's state differs between two rows: up or down,
/// instances up, load, or what its instances carry (a pool a slowness
/// holds carries less at the same load).
#[must_use]
pub fn row_changed(before: &StateRow, after: &StateRow) -> bool {
    let differ = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() > 1e-9,
        (x, y) => x.is_some() != y.is_some(),
    };
    before.up != after.up
        || before.instances_up != after.instances_up
        || differ(before.load, after.load)
        || differ(before.capacity, after.capacity)
}

/// The state a change leads to, without the audit of it: what
/// [`compare_with`] judges, for a caller that only needs the state (the
/// experiments' ranking). `scenario` is the change's, with the pools a
/// slowness drains lost and its ceilings (docs/slow.md).
pub struct Changed {
    /// The slow judgement, with `--slow`.
    pub slow: Option<SlowEvent>,
    /// The scenario the state is in.
    pub scenario: Scenario,
    /// The state.
    pub state: State,
    /// The state once it settles ([`State::settle`]): what the served
    /// shares and the unserved load are read from, as the figures are.
    pub settled: State,
    /// Each entrypoint's served share, before and after (settled).
    pub served: Vec<Served>,
}

/// What a change does to the state, borrowed: the changed model, its
/// scenario and what it slows (a [`Change`] without its text and words, so
/// that a caller judging many losses of one model copies nothing).
#[derive(Clone, Copy)]
pub struct Event<'a> {
    /// The changed model (the model itself for a loss or a slowness).
    pub model: &'a Model,
    /// What is lost.
    pub scenario: &'a Scenario,
    /// What is slowed.
    pub slow: &'a Slowed,
}

impl Change {
    /// The change as an [`Event`].
    #[must_use]
    pub fn event(&self) -> Event<'_> {
        Event {
            model: &self.model,
            scenario: &self.scenario,
            slow: &self.slow,
        }
    }
}

/// The state `change` leads to from `intact` (see [`Changed`]). `flow` is
/// the changed model's load flow when the caller has it (the intact one,
/// when the change leaves the model as it is: a loss or a slowness only).
#[must_use]
pub fn changed_state(
    model: &Model,
    intact: &Intact,
    change: Event,
    flow: Option<&Flow>,
) -> Changed {
    let changed = change.model;
    let own;
    let flow = if let Some(flow) = flow {
        flow
    } else {
        own = Flow::new(changed);
        &own
    };
    let (slow, scenario) = slowness(changed, flow, change);
    // Read with the intact flow, the model is the one as written: its
    // state is worked out from the intact one.
    let state = if std::ptr::eq(flow, &raw const intact.flow) {
        State::after(changed, flow, &intact.state, &scenario)
    } else {
        State::new(changed, flow, &scenario)
    };
    // What is served once the state settles (what collapses goes, load is
    // routed around what refuses it): the state the figures count.
    let settled = state.clone().settle(changed, flow);
    // A `--set` can change which components are entrypoints.
    let before = if changed.entrypoints == model.entrypoints {
        intact.served.clone()
    } else {
        intact.settled.served_shares(model, &changed.entrypoints)
    };
    let after = settled.served_shares(changed, &changed.entrypoints);
    let served = changed
        .entrypoints
        .iter()
        .zip(before.into_iter().zip(after))
        .map(|(&e, (before, after))| Served {
            entrypoint: changed.component(e).name.clone(),
            offered: state.of(e).offered,
            before,
            after,
        })
        .collect();
    Changed {
        slow,
        scenario,
        state,
        settled,
        served,
    }
}

/// A scenario's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct WhatIf {
    /// What was changed, one phrase each (`lose az-a (zone)`, `load × 2`).
    pub scenario: Vec<String>,
    /// The model as written.
    pub before: Audit,
    /// The changed copy.
    pub after: Audit,
    /// Ids found after and not before, sorted.
    pub introduced: Vec<String>,
    /// Ids found before and not after, sorted.
    pub resolved: Vec<String>,
    /// Ids found before and after that are more severe after (a full pool
    /// a warning before a loss, an error after it), sorted, each with its
    /// severity before.
    pub worsened: Vec<(String, Severity)>,
    /// Ids found after and not before about a component the change takes
    /// down (it was up before): the scenario itself, not introduced; sorted.
    pub taken_down: Vec<String>,
    /// Every component's state before and after, in model order.
    pub states: (Vec<StateRow>, Vec<StateRow>),
    /// Load entering at the entrypoints that is not served, before and
    /// after ([`State::unserved_entering`]: never a sum of internal calls).
    pub unserved: (f64, f64),
    /// Each entrypoint's served share in the intact state and in the
    /// changed one, in the model's entrypoint order.
    pub served: Vec<Served>,
    /// With `--slow`: every pool before and after, the drained ones, and
    /// the entrypoints that lose service (docs/slow.md).
    pub slow: Option<SlowEvent>,
}

/// One entrypoint's share of its requests served, before and after a
/// change ([`State::served_share`]: shedding and rate limits serve a part,
/// a component down serves none).
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    /// The entrypoint.
    pub entrypoint: String,
    /// Its load after the change, when the model gives one.
    pub offered: Option<f64>,
    /// Share served with nothing changed.
    pub before: f64,
    /// Share served in the changed state.
    pub after: f64,
}

impl WhatIf {
    /// The components whose state changed: (before, after, worst next loss
    /// from the after state), in model order.
    #[must_use]
    pub fn changed(&self) -> Vec<(&StateRow, &StateRow, Option<&HeadroomRow>)> {
        // Each component's worst row, in one pass over the rows (a scan of
        // every row per changed component was quadratic: 10k components
        // all changed by --scale-load against their 30k rows). Of equal
        // utilizations the last row, as `max_by` keeps it.
        let mut worst: HashMap<&str, &HeadroomRow> = HashMap::new();
        for row in &self.after.headroom {
            let at = worst.entry(&*row.component).or_insert(row);
            if row.utilization.total_cmp(&at.utilization).is_ge() {
                *at = row;
            }
        }
        self.states
            .0
            .iter()
            .zip(&self.states.1)
            .filter(|(b, a)| row_changed(b, a))
            .map(|(b, a)| (b, a, worst.get(&*a.component).copied()))
            .collect()
    }

    /// The introduced findings, in id order.
    pub fn introduced_findings(&self) -> impl Iterator<Item = &Finding> {
        self.after.findings.iter().filter(|f| {
            self.introduced
                .binary_search_by(|id| f.cmp_with(id).reverse())
                .is_ok()
        })
    }

    /// The worsened findings (as they are after), in id order, each with
    /// its severity before.
    pub fn worsened_findings(&self) -> impl Iterator<Item = (&Finding, Severity)> {
        self.after.findings.iter().filter_map(|f| {
            let at = self
                .worsened
                .binary_search_by(|(id, _)| f.cmp_with(id).reverse())
                .ok()?;
            Some((f, self.worsened[at].1))
        })
    }

    /// The resolved findings (as they were before), in id order.
    pub fn resolved_findings(&self) -> impl Iterator<Item = &Finding> {
        self.before.findings.iter().filter(|f| {
            self.resolved
                .binary_search_by(|id| f.cmp_with(id).reverse())
                .is_ok()
        })
    }
}

/// The changed copy of the model and the scenario it is judged in.
pub struct Change {
    /// The model text with the `--set` values written in.
    pub text: String,
    /// The changed model (`--set`, `--scale-load`).
    pub model: Model,
    /// What `--lose` takes down.
    pub lost: Lost,
    /// `--lose` and `--cold` as a scenario.
    pub scenario: Scenario,
    /// `--slow`: the components slowed, and how.
    pub slow: Slowed,
    /// The change in words, one phrase per argument.
    pub phrases: Vec<String>,
    /// Whether `model` is the model as written (no `--set`, no
    /// `--scale-load`): the intact side's load flow and state then serve
    /// the changed side too.
    pub as_written: bool,
}

/// What the `--lose` arguments take down.
#[derive(Debug, Default)]
pub struct Lost {
    /// The scenario (domains, groups, failed instances).
    pub scenario: Scenario,
    /// The names lost: findings about them are the scenario itself, neither
    /// introduced nor resolved by it.
    pub names: Vec<String>,
}

impl Lost {
    /// Whether a finding id is about a lost thing (`common-cause/links-cache`
    /// when links-cache is lost, `headroom/checkout/az-a` when az-a is).
    #[must_use]
    pub fn is_subject(&self, id: &str) -> bool {
        id.split('/')
            .skip(1)
            .flat_map(|part| part.split('+'))
            .any(|subject| self.names.iter().any(|n| n == subject))
    }
}

/// Resolves every `--lose` argument: `NAME` (a domain, group or component,
/// all of it) or `COMPONENT:N` (N of its instances); each adds its phrase.
///
/// # Errors
/// An unknown name (with the closest one), a bad count, or more instances
/// than the component has.
pub fn lose(model: &Model, args: &[String], phrases: &mut Vec<String>) -> Result<Lost, String> {
    let mut lost = Lost::default();
    for arg in args {
        let (name, count) = crate::engine::scenario::lose_arg(model, arg)?;
        if let Some(c) = model.components.iter().position(|c| c.name == name) {
            let component = &model.components[c];
            let n = count.unwrap_or(component.instances);
            // Earlier `--lose` arguments of the same component add up.
            let earlier = lost
                .scenario
                .failed_instances
                .iter()
                .position(|(id, _)| id.0 == c);
            let before = earlier.map_or(0, |at| lost.scenario.failed_instances[at].1);
            if n > component.instances - before {
                let plural = |k: u32| if k == 1 { "" } else { "s" };
                return Err(if before == 0 {
                    format!(
                        "--lose `{arg}`: {name} has {} instance{}",
                        component.instances,
                        plural(component.instances)
                    )
                } else {
                    format!(
                        "--lose `{arg}`: {name} has {} instance{}, and earlier --lose arguments already take {before}",
                        component.instances,
                        plural(component.instances)
                    )
                });
            }
            match earlier {
                Some(at) => lost.scenario.failed_instances[at].1 += n,
                None => lost.scenario.failed_instances.push((ComponentId(c), n)),
            }
            if before + n == component.instances && before > 0 {
                lost.names.push(name.to_owned());
                phrases.push(format!(
                    "lose {n} more of {} instances of {name} (all of them)",
                    component.instances
                ));
            } else if n == component.instances {
                lost.names.push(name.to_owned());
                phrases.push(format!("lose {name} (component)"));
            } else {
                phrases.push(format!(
                    "lose {n} of {} instances of {name}",
                    component.instances
                ));
            }
            continue;
        }
        if count.is_some() {
            return Err(format!(
                "--lose `{arg}`: `:N` counts instances of a component, and no component is called `{name}`"
            ));
        }
        if let Some(d) = model.domains.iter().position(|d| d.name == name) {
            lost.scenario.domains.push(DomainId(d));
            lost.names.push(name.to_owned());
            phrases.push(format!("lose {name} ({})", model.domains[d].kind));
        } else if let Some(g) = model.groups.iter().position(|g| g.name == name) {
            lost.scenario.groups.push(GroupId(g));
            lost.names.push(name.to_owned());
            phrases.push(format!("lose {name} (shared-fate group)"));
        } else {
            return Err(crate::engine::scenario::unknown_loss(model, name));
        }
    }
    Ok(lost)
}

/// `check` of the intact model against `check` of the changed one: the
/// findings the change introduces and those it resolves.
#[must_use]
pub fn compare(model: &Model, text: &str, change: &Change, today: Date) -> WhatIf {
    compare_with(model, &Intact::new(model, text, today), change, today)
}

/// The intact model's audit and state: the "before" side of every
/// comparison, worked out once when many changes of one model are compared
/// (`nines experiments`).
pub struct Intact {
    /// `check` of the model as written.
    pub audit: Audit,
    /// Its state: nothing lost.
    pub state: State,
    /// Its state once settled ([`State::settle`]).
    pub settled: State,
    /// Its load flow.
    pub flow: Flow,
    /// The share of its peak each entrypoint serves, in
    /// `model.entrypoints` order ([`State::served_shares`] of `settled`),
    /// worked out once for every change compared with it.
    pub served: Vec<f64>,
}

impl Intact {
    /// The audit and state of `model` as written.
    #[must_use]
    pub fn new(model: &Model, text: &str, today: Date) -> Self {
        let flow = Flow::new(model);
        let state = State::intact(model, &flow);
        let settled = state.clone().settle(model, &flow);
        Intact {
            audit: super::audit(model, text, Scenario::default(), super::Options::new(today)),
            served: settled.served_shares(model, &model.entrypoints),
            state,
            settled,
            flow,
        }
    }
}

/// [`compare`] against an intact side already worked out for `model`.
#[must_use]
pub fn compare_with(model: &Model, intact: &Intact, change: &Change, today: Date) -> WhatIf {
    let changed = &change.model;
    let own;
    let flow = if change.as_written {
        &intact.flow
    } else {
        own = Flow::new(changed);
        &own
    };
    let Changed {
        slow,
        scenario,
        state: after_state,
        settled: after_settled,
        served,
    } = changed_state(model, intact, change.event(), Some(flow));
    let scenario = &scenario;
    let before = intact.audit.clone();
    let before_state = &intact.state;
    // Request pools are read off the changed model before what the
    // scenario lost is taken out of it: as every state of it reads them.
    let counted = crate::engine::throughput::limited_with(changed, flow);
    let after_figures = crate::engine::availability_as_given(
        &figures_model(counted.as_ref().unwrap_or(changed), scenario),
        scenario.cold,
    );
    let after_options = super::Options {
        figures: Some(&after_figures),
        ..super::Options::new(today)
    };
    let after = super::audit(changed, &change.text, scenario.clone(), after_options);
    let ids = |r: &Audit| -> Vec<String> {
        r.findings
            .iter()
            .map(|f| f.id().to_string())
            .filter(|id| !change.lost.is_subject(id))
            .collect()
    };
    let (before_ids, after_ids) = (ids(&before), ids(&after));
    // A finding about a component the change takes down (overload of a
    // frontend whose database is gone) is the scenario itself: listed
    // apart, not introduced.
    // The changed model's components by name, once (a scan of them per
    // finding was quadratic on a 10k model whose every component changed).
    let named: HashMap<&str, ComponentId> = changed
        .component_ids()
        .map(|id| (changed.component(id).name.as_str(), id))
        .collect();
    let is_down = |id: &str| {
        named
            .get(subject_component(id))
            .is_some_and(|&c| !after_state.of(c).up && before_state.of(c).up)
    };
    let (taken_down, introduced): (Vec<String>, Vec<String>) = after_ids
        .iter()
        .filter(|id| before_ids.binary_search(id).is_err())
        .cloned()
        .partition(|id| is_down(id));
    let gone = Gone {
        named: &named,
        after: &after_state,
        entrypoint_lost: changed
            .entrypoints
            .iter()
            .any(|e| before_state.of(*e).up && !after_state.of(*e).up),
        lost_something: super::contingency::lost_something(scenario),
        held_back: (!scenario.ceilings.is_empty() || !scenario.admitted.is_empty())
            .then_some(before_state),
    };
    let resolved: Vec<String> = before_ids
        .iter()
        .filter(|id| {
            after_ids.binary_search(id).is_err()
                && !gone.taken_down(id)
                && !gone.further_loss(id)
                && !gone.relieved(id)
        })
        .cloned()
        .collect();
    let worsened = worsened(&before, &after, &change.lost);
    WhatIf {
        scenario: change.phrases.clone(),
        before,
        after,
        introduced,
        resolved,
        worsened,
        taken_down,
        states: (
            state_rows(model, before_state),
            state_rows(changed, &after_state),
        ),
        unserved: (
            intact.settled.unserved_entering(model),
            after_settled.unserved_entering(changed),
        ),
        served,
        slow,
    }
}

/// The `--slow` judgement of the changed model in the change's scenario,
/// and the slow scenario: that one with the pools it drains lost and every
/// pool it saturates at its concurrency ceiling (docs/slow.md).
fn slowness(changed: &Model, flow: &Flow, change: Event) -> (Option<SlowEvent>, Scenario) {
    if change.slow.is_empty() {
        return (None, change.scenario.clone());
    }
    let plan = Plan::new(changed, flow);
    let (state, base) = slow::normal(changed, flow, &plan, change.scenario);
    let before = Before {
        scenario: change.scenario,
        state: &state,
        base: &base,
        steady: None,
    };
    let judged = slow::judge(changed, (flow, &plan), &before, change.slow.clone());
    (Some(slow::event(changed, &judged, true)), judged.scenario)
}

/// Resolves every `--slow NAME=DURATION` or `--slow NAME=hang`: NAME a
/// component, or a domain (every component placed in it); the phrases say
/// what each does.
///
/// # Errors
/// An argument without `=`, a value that is neither a duration nor `hang`,
/// an unknown name (with the closest one), a domain that holds no
/// component, or a component slowed twice.
pub fn slow_args(
    model: &Model,
    args: &[String],
    phrases: &mut Vec<String>,
) -> Result<Slowed, String> {
    let mut slowed = Slowed::default();
    for arg in args {
        let Some((name, value)) = arg.rsplit_once('=') else {
            return Err(format!(
                "--slow `{arg}`: give NAME=DURATION or NAME=hang, such as `--slow db=5s`"
            ));
        };
        let how = if value.trim() == "hang" {
            Slowness::Hang
        } else {
            Slowness::Latency(parse_duration(value).map_err(|why| {
                format!("--slow `{arg}`: `{value}` is not a duration ({why}) nor `hang`: such as `5s`, `300ms` or `hang`")
            })?)
        };
        let Some(ids) = slow::slowed_by_name(model, name) else {
            let all = model
                .components
                .iter()
                .map(|c| c.name.as_str())
                .chain(model.domains.iter().map(|d| d.name.as_str()));
            let hint =
                closest(name, all).map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
            return Err(format!(
                "--slow `{arg}`: no component or domain is called `{name}`{hint}"
            ));
        };
        if ids.is_empty() {
            return Err(format!(
                "--slow `{arg}`: no component is placed in the domain `{name}`"
            ));
        }
        for &id in &ids {
            if slowed.of(id).is_some() {
                return Err(format!(
                    "--slow `{arg}`: {} is slowed twice",
                    model.component(id).name
                ));
            }
            slowed.components.push((id, how));
        }
        let whom = if model.components.iter().any(|c| c.name == name) {
            name.to_owned()
        } else {
            format!("{name} ({} components)", ids.len())
        };
        phrases.push(match how {
            Slowness::Hang => format!("{whom} hangs"),
            Slowness::Latency(d) => format!("{whom} answers in {d}"),
        });
    }
    Ok(slowed)
}

/// The component (or domain, or group) a finding id is about: its
/// subject's first name (`checkout` of `headroom/checkout/az-a`, `web` of
/// `timeout/web>db`).
fn subject_component(id: &str) -> &str {
    let subject = id.split_once('/').map_or("", |(_, s)| s);
    subject.split(['/', '>', '+']).next().unwrap_or_default()
}

/// Why a finding of the intact model can be gone after the change without
/// being resolved.
struct Gone<'a> {
    /// The changed model's components by name.
    named: &'a HashMap<&'a str, ComponentId>,
    /// Its state in the scenario.
    after: &'a State,
    /// Whether the scenario takes down an entrypoint that was up.
    entrypoint_lost: bool,
    /// Whether the scenario loses something (domains, groups, instances,
    /// the caches' hits).
    lost_something: bool,
    /// In a slow scenario that holds load back (pools at their ceilings,
    /// edge limits refusing calls), the state before it.
    held_back: Option<&'a State>,
}

impl Gone<'_> {
    /// A finding about a component a slowness relieves (offered less
    /// because the calls to it are refused or held back upstream) or holds
    /// (its pool serves less than it is offered, checkout's none left
    /// while payments hangs: its next-loss rows are gone) is not resolved:
    /// the refusals are the outage, not a fix.
    fn relieved(&self, id: &str) -> bool {
        let Some(before) = self.held_back else {
            return false;
        };
        self.named.get(subject_component(id)).is_some_and(|&c| {
            let load = |s: &State| s.of(c).offered.unwrap_or(0.0);
            let held = self
                .after
                .ceiling(c)
                .is_some_and(|ceiling| ceiling.serves < load(self.after) * (1.0 - 1e-9));
            held || load(self.after) < load(before) * (1.0 - 1e-9)
        })
    }

    /// An entrypoint the scenario itself takes down has no single point of
    /// failure left to find: its spof and shared-fate findings vanish
    /// without being resolved; so do findings about a component it downs.
    fn taken_down(&self, id: &str) -> bool {
        let rule = id.split('/').next().unwrap_or_default();
        let subject = subject_component(id);
        (self.entrypoint_lost
            && matches!(Rule::from_name(rule), Some(Rule::Spof | Rule::SharedFate)))
            || self
                .named
                .get(subject)
                .is_some_and(|&c| !self.after.of(c).up)
    }

    /// A finding about what a further loss would do (`headroom`, `spof`,
    /// `shared-fate`, `cascade`) is never resolved by a loss: gone after
    /// one, the further loss became total (losing z1 leaves everything in
    /// z2, a spof now), or what it judged is lost or relieved by the loss,
    /// which fixes nothing.
    fn further_loss(&self, id: &str) -> bool {
        let rule = id.split('/').next().unwrap_or_default();
        self.lost_something
            && matches!(
                Rule::from_name(rule),
                Some(Rule::Headroom | Rule::Spof | Rule::SharedFate | Rule::Cascade)
            )
    }
}

/// The ids of findings present before and after whose severity rose,
/// sorted; a finding about what the change lost is the scenario itself.
fn worsened(before: &Audit, after: &Audit, lost: &Lost) -> Vec<(String, Severity)> {
    let was: HashMap<String, Severity> = before
        .findings
        .iter()
        .map(|f| (f.id().to_string(), f.severity))
        .collect();
    let mut out: Vec<(String, Severity)> = after
        .findings
        .iter()
        .filter_map(|f| {
            let id = f.id().to_string();
            let before = *was.get(&id)?;
            (f.severity > before && !lost.is_subject(&id)).then_some((id, before))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The model whose figures are the scenario's: [`down_for_figures`], with
/// each written load moved by what the scenario stops reaching it (a
/// shedding caller that lost instances passes less), as the scenario's
/// load flow moves it. Without it the copy's own intact flow would take
/// the degraded pass as normal and keep the written load behind it.
#[must_use]
pub fn figures_model(model: &Model, scenario: &Scenario) -> Model {
    crate::model::intact::with_loads_moved(model, down_for_figures(model, scenario)).0
}

/// A copy of `model` for the availability figures of the scenario: the
/// instances it takes are gone from the copy, so that what is left is
/// counted as it is (its switchover frequency `q / mttr` from the
/// instances left, the domain now holding all of a component as one whose
/// loss takes it down). The instances in lost domains leave the
/// placement and the count; instances failed on their own are taken from
/// the last domains first; a component left with fewer than `min_healthy`
/// (or a member of a fired group) is down for certain (availability 0,
/// which the switchover terms read as "the standby has taken over"), and
/// lost domains and groups are down for certain too.
#[must_use]
pub fn down_for_figures(model: &Model, scenario: &Scenario) -> Model {
    let mut copy = model.clone();
    for d in &scenario.domains {
        copy.domains[d.0].availability = Some(0.0);
    }
    for g in &scenario.groups {
        copy.groups[g.0].availability = Some(0.0);
    }
    let failed_per_component = failed_per_component(model, scenario);
    for id in model.component_ids() {
        let original = model.component(id);
        let failed = failed_per_component[id.0];
        let fired = original.shares.iter().any(|g| scenario.groups.contains(g));
        let placed = surviving_instances(model, id, &scenario.domains);
        if failed == 0 && !fired && placed == original.instances {
            continue;
        }
        let c = &mut copy.components[id.0];
        let left = placed.saturating_sub(failed);
        if fired || left < c.min_healthy || left == 0 {
            c.availability = Some(0.0);
            continue;
        }
        c.placement
            .retain(|&(d, count)| count > 0 && !is_lost(model, d, &scenario.domains));
        let mut take = failed;
        for entry in c.placement.iter_mut().rev() {
            let off = entry.1.min(take);
            entry.1 -= off;
            take -= off;
        }
        c.placement.retain(|&(_, count)| count > 0);
        c.instances = left;
    }
    // A concurrency ceiling serves as a rate limit would: at most that many
    // requests a second, the rest refused (docs/slow.md).
    for &(id, ceiling) in &scenario.ceilings {
        let c = &mut copy.components[id.0];
        let serves = ceiling.serves;
        c.rate_limit = Some(c.rate_limit.map_or(serves, |l| l.min(serves)));
    }
    // A call an edge limit refuses is not made: the edge carries the
    // admitted share of its calls.
    for &(caller, at, share) in &scenario.admitted {
        if let Some(edge) = copy.components[caller.0].depends_on.get_mut(at) {
            edge.calls *= share.clamp(0.0, 1.0);
        }
    }
    copy
}
