//! The experiments worth running: every credible loss `check` judges (each
//! domain holding something, same-kind pairs when `policy.survive` is 2 or
//! more, each shared-fate group, each component lost whole, one instance
//! of each component with several, and a slow dependency), each with the
//! model's prediction of what happens while it lasts, ranked by what is at
//! stake (docs/experiments.md).
//!
//! A prediction is the `what-if` of the same loss ([`what_if::compare_with`]
//! on the same intact side): the served share of every entrypoint in the
//! state after the loss, the components it overloads, the findings it
//! introduces. One state, one figure: `nines what-if MODEL --lose az-a`
//! prints the numbers the az-a experiment predicts. `render/experiments/`
//! writes them for a terminal and as the files of the chaos tools.

use std::collections::{BTreeSet, HashMap};

use rayon::prelude::*;
use serde::Serialize;

use super::Severity;
use super::what_if::{self, Change, Intact, Lost};
use crate::engine::concurrency::{Slowed, Slowness};
use crate::engine::scenario::{Scenario, is_lost};
use crate::engine::state::Bound;
use crate::model::units::Duration;
use crate::model::{ComponentId, Date, DomainId, GroupId, Model, Rule};

/// How to plan.
#[derive(Debug, Clone)]
pub struct Options {
    /// "Now", for expiry dates and drill ages.
    pub today: Date,
    /// The hypothesis' tolerance: an entrypoint keeps to the prediction
    /// while its observed served share is at least the predicted one less
    /// this (0.02: two points).
    pub margin: f64,
    /// How long each experiment injects its loss, seconds.
    pub duration_s: f64,
    /// Only the experiment of this loss (its name as the plan gives it).
    pub only: Option<String>,
    /// At most this many experiments, most informative first.
    pub top: usize,
}

/// What an experiment does to the system.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Injection {
    /// Stop every instance placed in these failure domains (a zone, a
    /// pair of zones).
    StopDomains {
        /// The domains, by name and kind (`zone`, `region`, `rack`…).
        domains: Vec<DomainRef>,
        /// The components with instances there, and how many each.
        pods: Vec<Pods>,
    },
    /// Kill every instance of the members of a shared-fate group.
    KillGroup {
        /// The group.
        group: String,
        /// Its members and their instances.
        pods: Vec<Pods>,
    },
    /// Kill `count` of a component's instances (all of them when `count`
    /// is its `instances`).
    KillInstances {
        /// The component.
        component: String,
        /// How many to kill.
        count: u32,
        /// How many it runs.
        instances: u32,
    },
    /// Delay every call into a component by `latency_s`.
    Delay {
        /// The component slowed.
        component: String,
        /// The delay added to each of its answers, seconds.
        latency_s: f64,
        /// The components calling it, whose calls are delayed.
        callers: Vec<String>,
    },
}

/// A failure domain named by an injection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DomainRef {
    /// Its name in the model (`az-a`).
    pub name: String,
    /// Its kind (`zone`).
    pub kind: String,
}

/// Instances of one component an injection takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pods {
    /// The component.
    pub component: String,
    /// How many of its instances.
    pub count: u32,
}

/// What the model predicts for one entrypoint while the loss lasts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// The entrypoint.
    pub entrypoint: String,
    /// Its load (requests a second), when the model gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// Share of its requests served with nothing lost.
    pub served_before: f64,
    /// Share served while the loss lasts: the prediction.
    pub served: f64,
    /// The steady-state hypothesis: the observed share stays at or above
    /// this (the prediction less the margin, at least 0).
    pub tolerance: f64,
    /// Abort when the observed error ratio is above this (the predicted
    /// error ratio plus the margin, at most 1).
    pub abort_error_ratio: f64,
}

/// A component the loss overloads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overload {
    /// The component.
    pub component: String,
    /// Load offered after the loss over what its instances up carry
    /// (4.53: 453%; infinite, `null` in JSON, when they carry nothing).
    pub utilization: f64,
    /// Load offered, requests a second.
    pub load: f64,
    /// What its instances up carry, requests a second.
    pub capacity: f64,
    /// Whether what they carry is what its request pool lets through in
    /// this state (a slowness holds it, or its pool serves less than its
    /// capacity): the experiment tests the pool, not the capacity.
    pub pool: bool,
    /// What holds it below its capacity ([`crate::engine::state::State::bound`], as `headroom`
    /// reads it).
    pub held_by: HeldBy,
}

/// What holds an overloaded component below its capacity in the state of
/// an experiment ([`Bound`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldBy {
    /// Nothing but its capacity.
    Capacity,
    /// Its own request pool, full.
    RequestPool,
    /// Its bulkheads (the limits of its slowed calls).
    Bulkheads,
    /// Calls it needs fail or never return: it serves nothing.
    FailingCalls,
}

impl Overload {
    /// What it is held to, in words, as `headroom` words it: "what its
    /// request pool serves", "what its bulkheads admit of its slowed
    /// calls".
    #[must_use]
    pub fn held_to(&self) -> &'static str {
        match self.held_by {
            HeldBy::Bulkheads => "what its bulkheads admit of its slowed calls",
            HeldBy::FailingCalls => "what its failing calls let it serve",
            HeldBy::Capacity | HeldBy::RequestPool => "what its request pool serves",
        }
    }

    /// Why it serves nothing, after its name: "'s request pool serves
    /// none", "'s bulkheads admit none", "'s calls fail: it serves none".
    #[must_use]
    pub fn serves_none(&self) -> &'static str {
        match self.held_by {
            HeldBy::Bulkheads => "'s bulkheads admit none",
            HeldBy::FailingCalls => "'s calls fail or never return: it serves none",
            HeldBy::Capacity | HeldBy::RequestPool => "'s request pool serves none",
        }
    }
}

/// One experiment: a loss to inject and what the model says will happen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Experiment {
    /// Its place in the plan, from 1.
    pub rank: usize,
    /// The loss, named as `check` names it (`az-a`, `az-a+az-b`, a
    /// group's or component's name, `api:1` for one instance, `slow:db`).
    pub loss: String,
    /// A file name for it: lower-case letters, digits and `-`, at most 60
    /// characters, unique among the model's losses.
    pub slug: String,
    /// The loss in words (`lose az-a (zone)`).
    pub title: String,
    /// The `nines what-if` arguments that compute the same prediction.
    pub what_if: Vec<String>,
    /// What to do to the system.
    pub injection: Injection,
    /// The components whose state the loss changes, in model order.
    pub blast_radius: Vec<String>,
    /// Per entrypoint, in the model's order.
    pub predictions: Vec<Prediction>,
    /// The components overloaded after the loss, in model order.
    pub overloaded: Vec<Overload>,
    /// The findings the loss introduces (as `what-if` lists them), sorted.
    pub fires: Vec<String>,
    /// `check`'s error findings about this loss: the model says it breaks
    /// something, so it is run first.
    pub behind: Vec<String>,
    /// The share of the requests entering the system not served while the
    /// loss lasts (request-weighted where loads are given).
    pub unserved: f64,
    /// The chance the loss is under way at a given moment, from the
    /// availabilities of what it takes; absent when the model gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// What is at stake per window: `unserved × probability × window`,
    /// seconds of full outage expected from this loss in each window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_stake_s: Option<f64>,
    /// Why it is worth running, in one sentence.
    pub why: String,
}

/// The plan: experiments most informative first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The model's system name.
    pub system: String,
    /// The hypothesis' margin (0.02).
    pub margin: f64,
    /// Each experiment's duration, seconds.
    pub duration_s: f64,
    /// The window `at_stake_s` is counted over, seconds.
    pub window_s: f64,
    /// How many losses were judged.
    pub candidates: usize,
    /// How many of them were not judged (the work bound: the largest
    /// models judge the losses `check` names and the domains, first).
    pub untried: usize,
    /// The experiments, at most `--top`.
    pub experiments: Vec<Experiment>,
}

/// A candidate loss before it is judged.
struct Candidate {
    loss: String,
    slug: String,
    lost: Lost,
    slow: Slowed,
    phrase: String,
    what_if: Vec<String>,
    injection: Injection,
    probability: Option<f64>,
}

/// Every candidate loss of `model`, in order: domains, same-kind pairs
/// (with `policy.survive` 2 or more), groups, whole components, one
/// instance, slow dependencies.
#[allow(
    clippy::too_many_lines,
    reason = "one block per kind of loss, in the order the plan lists them"
)]
fn candidates(model: &Model) -> Vec<Candidate> {
    let mut out = Vec::new();
    let holds = |domains: &[DomainId]| -> Vec<Pods> {
        model
            .component_ids()
            .filter_map(|id| {
                let c = model.component(id);
                let count: u32 = c
                    .placement
                    .iter()
                    .filter(|&&(d, _)| is_lost(model, d, domains))
                    .map(|&(_, n)| n)
                    .sum();
                (count > 0).then(|| Pods {
                    component: c.name.clone(),
                    count,
                })
            })
            .collect()
    };
    let singles: Vec<DomainId> = (0..model.domains.len())
        .map(DomainId)
        .filter(|&d| !holds(&[d]).is_empty())
        .collect();
    let mut domain_sets: Vec<Vec<DomainId>> = singles.iter().map(|&d| vec![d]).collect();
    if model.policy.survive >= 2 {
        for (i, &a) in singles.iter().enumerate() {
            for &b in &singles[i + 1..] {
                if model.domain(a).kind == model.domain(b).kind {
                    domain_sets.push(vec![a, b]);
                }
            }
        }
    }
    for domains in domain_sets {
        let mut names: Vec<&str> = domains
            .iter()
            .map(|d| model.domain(*d).name.as_str())
            .collect();
        names.sort_unstable();
        let loss = names.join("+");
        let probability = domains
            .iter()
            .map(|d| model.domain(*d).availability.map(|a| 1.0 - a))
            .product::<Option<f64>>();
        let refs = domains
            .iter()
            .map(|d| DomainRef {
                name: model.domain(*d).name.clone(),
                kind: model.domain(*d).kind.clone(),
            })
            .collect::<Vec<_>>();
        let phrase = refs
            .iter()
            .map(|r| format!("lose {} ({})", r.name, r.kind))
            .collect::<Vec<_>>()
            .join(", ");
        let mut what_if = Vec::new();
        for r in &refs {
            what_if.extend(["--lose".to_owned(), r.name.clone()]);
        }
        out.push(Candidate {
            loss,
            slug: String::new(),
            lost: Lost {
                scenario: Scenario {
                    domains: domains.clone(),
                    ..Scenario::default()
                },
                names: refs.iter().map(|r| r.name.clone()).collect(),
            },
            slow: Slowed::default(),
            phrase,
            what_if,
            injection: Injection::StopDomains {
                pods: holds(&domains),
                domains: refs,
            },
            probability,
        });
    }
    group_candidates(model, &mut out);
    for id in model.component_ids() {
        out.push(instances_lost(model, id, model.component(id).instances));
    }
    for id in model.component_ids() {
        if model.component(id).instances > 1 {
            out.push(instances_lost(model, id, 1));
        }
    }
    slow_candidates(model, &mut out);
    unique_slugs(&mut out);
    out
}

/// Each shared-fate group with members, as a candidate.
fn group_candidates(model: &Model, out: &mut Vec<Candidate>) {
    for (g, group) in model.groups.iter().enumerate() {
        let pods: Vec<Pods> = model
            .components
            .iter()
            .filter(|c| c.shares.contains(&GroupId(g)))
            .map(|c| Pods {
                component: c.name.clone(),
                count: c.instances,
            })
            .collect();
        if pods.is_empty() {
            continue;
        }
        out.push(Candidate {
            loss: group.name.clone(),
            slug: String::new(),
            lost: Lost {
                scenario: Scenario {
                    groups: vec![GroupId(g)],
                    ..Scenario::default()
                },
                names: vec![group.name.clone()],
            },
            slow: Slowed::default(),
            phrase: format!("lose {} (shared-fate group)", group.name),
            what_if: vec!["--lose".to_owned(), group.name.clone()],
            injection: Injection::KillGroup {
                group: group.name.clone(),
                pods,
            },
            probability: group.availability.map(|a| 1.0 - a),
        });
    }
}

/// Losing `count` instances of a component (all of them, or one).
fn instances_lost(model: &Model, id: ComponentId, count: u32) -> Candidate {
    let c = model.component(id);
    let whole = count == c.instances;
    let (loss, phrase, arg) = if whole {
        (
            c.name.clone(),
            format!("lose {} (component)", c.name),
            c.name.clone(),
        )
    } else {
        (
            format!("{}:{count}", c.name),
            format!("lose {count} of {} instances of {}", c.instances, c.name),
            format!("{}:{count}", c.name),
        )
    };
    // Each instance is up with `availability`, independently: all of them
    // down with (1 − a)^n, at least one of them with 1 − a^n.
    let probability = c.availability.map(|a| {
        if whole {
            (1.0 - a).powf(f64::from(c.instances))
        } else {
            1.0 - a.powf(f64::from(c.instances))
        }
    });
    Candidate {
        loss,
        slug: String::new(),
        lost: Lost {
            scenario: Scenario {
                failed_instances: vec![(id, count)],
                ..Scenario::default()
            },
            names: if whole {
                vec![c.name.clone()]
            } else {
                Vec::new()
            },
        },
        slow: Slowed::default(),
        phrase,
        what_if: vec!["--lose".to_owned(), arg],
        injection: Injection::KillInstances {
            component: c.name.clone(),
            count,
            instances: c.instances,
        },
        probability,
    }
}

/// Each component something calls, slowed (see [`slow_candidate`]).
fn slow_candidates(model: &Model, out: &mut Vec<Candidate>) {
    // Each component's callers and the longest timeout of a call into it,
    // in one pass over the edges.
    let mut calls: Vec<(BTreeSet<ComponentId>, Option<u64>)> =
        vec![(BTreeSet::new(), None); model.components.len()];
    for caller in model.component_ids() {
        for edge in &model.component(caller).depends_on {
            for &target in &edge.targets {
                let (callers, longest) = &mut calls[target.0];
                callers.insert(caller);
                if let Some(t) = edge.timeout {
                    *longest = Some(longest.map_or(t.0, |l| l.max(t.0)));
                }
            }
        }
    }
    for id in model.component_ids() {
        let (callers, longest) = &calls[id.0];
        if let Some(slow) = slow_candidate(model, id, callers, *longest) {
            out.push(slow);
        }
    }
}

/// A component that answers slowly, when something calls it: the delay is
/// twice the longest timeout of a call into it (every timed call runs out
/// its timeout), or 10 s when no call into it has one.
/// `callers` are the components calling it, `longest` the longest timeout
/// of their calls into it (milliseconds).
fn slow_candidate(
    model: &Model,
    id: ComponentId,
    callers: &BTreeSet<ComponentId>,
    longest: Option<u64>,
) -> Option<Candidate> {
    if callers.is_empty() {
        return None;
    }
    let delay = Duration(longest.map_or(10_000, |t| t.saturating_mul(2)));
    let c = model.component(id);
    Some(Candidate {
        loss: format!("slow:{}", c.name),
        slug: String::new(),
        lost: Lost::default(),
        slow: Slowed {
            components: vec![(id, Slowness::Latency(delay))],
            drained: Vec::new(),
        },
        phrase: format!("{} answers in {delay}", c.name),
        what_if: vec!["--slow".to_owned(), format!("{}={delay}", c.name)],
        injection: Injection::Delay {
            component: c.name.clone(),
            latency_s: delay.seconds(),
            callers: callers
                .iter()
                .map(|&c| model.component(c).name.clone())
                .collect(),
        },
        probability: None,
    })
}

/// How many losses a plan judges by their state (ranking needs only the
/// state, about a fifth of a `check` each on a large model): all of them
/// on a model of up to about 250 components (four losses each at most);
/// on a larger one a million components' worth (10,000 components: 100
/// losses; at least 16), the domains and the losses `check` names first.
fn judged_at_most(model: &Model) -> usize {
    (1_000_000 / model.components.len().max(1)).max(16)
}

/// How many experiments are worked out whole (the findings each
/// introduces: an audit of the model in its state each): `--top`, and with
/// `--top 0` every one on a model of up to about 1,000 components, else
/// 200,000 components' worth (at least 8).
fn detailed_at_most(model: &Model, top: usize) -> usize {
    if top > 0 {
        top
    } else {
        (200_000 / model.components.len().max(1)).max(8)
    }
}

/// `check`'s error findings about losses, by the loss they are about:
/// `headroom/db/az-a` is about losing az-a (its last part names the loss);
/// `spof/db`, `cascade/db` and `shared-fate/g` about losing what they name.
/// (`common-cause/x` names a component whose instances share a cause, not
/// the loss of that cause.)
fn behind_by_loss(intact: &Intact) -> HashMap<String, Vec<String>> {
    let about_losses = [Rule::Headroom, Rule::Spof, Rule::SharedFate, Rule::Cascade];
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for f in &intact.audit.findings {
        if f.severity != Severity::Error
            || !Rule::from_name(f.rule).is_some_and(|r| about_losses.contains(&r))
        {
            continue;
        }
        let id = f.id().to_string();
        let mut parts = id.split('/');
        let rule = parts.next().unwrap_or_default();
        let loss = if rule == Rule::Headroom.name() {
            parts.nth(1).unwrap_or_default()
        } else {
            parts.next().unwrap_or_default()
        };
        out.entry(loss.to_owned()).or_default().push(id.clone());
    }
    out
}

/// The plan for `model` (whose text is `text`).
///
/// # Errors
/// `only` names no loss of the plan (with the closest name).
pub fn plan(model: &Model, text: &str, options: &Options) -> Result<Plan, String> {
    let mut all = candidates(model);
    if let Some(only) = &options.only {
        let Some(at) = all.iter().position(|c| c.loss == *only) else {
            let hint = crate::model::error::closest(only, all.iter().map(|c| c.loss.as_str()))
                .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
            return Err(format!(
                "--only `{only}`: no credible loss of this model is called that{hint}; `nines experiments MODEL --top 0` lists every one"
            ));
        };
        all = vec![all.swap_remove(at)];
    }
    let intact = Intact::new(model, text, options.today);
    let rows = what_if::state_rows(model, &intact.state);
    let behind = behind_by_loss(&intact);
    let behind_of = |c: &Candidate| -> Vec<String> {
        if c.lost.names.is_empty() {
            return Vec::new();
        }
        behind.get(&c.loss).cloned().unwrap_or_default()
    };
    let candidates = all.len();
    let bound = judged_at_most(model);
    // Past the bound, the losses check names and the domains go first.
    let mut order: Vec<(bool, usize)> = all
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let first =
                !behind_of(c).is_empty() || matches!(c.injection, Injection::StopDomains { .. });
            (!first, i)
        })
        .collect();
    if candidates > bound {
        order.sort_unstable();
    }
    // Judged by their state in parallel; the order is restored by the sort.
    let cx = Judging {
        model,
        text,
        intact: &intact,
        rows: &rows,
        options,
    };
    let mut judged: Vec<(usize, Experiment)> = order[..bound.min(order.len())]
        .par_iter()
        .map(|&(_, i)| (i, cx.judge(&all[i], behind_of(&all[i]))))
        .collect();
    judged.sort_by(|(i, a), (j, b)| rank_order(a, b).then(i.cmp(j)));
    judged.truncate(detailed_at_most(model, options.top));
    // The experiments kept, worked out whole: the findings each introduces.
    let mut experiments: Vec<Experiment> = judged
        .into_par_iter()
        .map(|(i, mut e)| {
            e.fires = what_if::compare_with(model, &intact, &cx.change(&all[i]), options.today)
                .introduced;
            e
        })
        .collect();
    for (rank, e) in experiments.iter_mut().enumerate() {
        e.rank = rank + 1;
    }
    Ok(Plan {
        system: model.system.clone(),
        margin: options.margin,
        duration_s: options.duration_s,
        window_s: window_s(model),
        candidates,
        untried: candidates.saturating_sub(bound),
        experiments,
    })
}

/// The model's SLO window, seconds (30 days without one).
fn window_s(model: &Model) -> f64 {
    model
        .objective
        .map_or(30.0 * 86_400.0, |o| o.window.seconds())
}

/// Most informative first: the losses `check` says break something, then
/// by what is at stake (unknown last), then by the share unserved.
fn rank_order(a: &Experiment, b: &Experiment) -> std::cmp::Ordering {
    let stake = |e: &Experiment| e.at_stake_s.unwrap_or(-1.0);
    // false (something behind) sorts before true.
    a.behind
        .is_empty()
        .cmp(&b.behind.is_empty())
        .then(stake(b).total_cmp(&stake(a)))
        .then(b.unserved.total_cmp(&a.unserved))
}

/// What judging a candidate reads: the model, its intact side, the options.
struct Judging<'a> {
    model: &'a Model,
    text: &'a str,
    intact: &'a Intact,
    /// The intact state's rows, for the blast radius.
    rows: &'a [what_if::StateRow],
    options: &'a Options,
}

impl Judging<'_> {
    /// The what-if change of a candidate's loss.
    fn change(&self, candidate: &Candidate) -> Change {
        Change {
            text: self.text.to_owned(),
            model: self.model.clone(),
            lost: Lost {
                scenario: candidate.lost.scenario.clone(),
                names: candidate.lost.names.clone(),
            },
            scenario: candidate.lost.scenario.clone(),
            slow: candidate.slow.clone(),
            phrases: vec![candidate.phrase.clone()],
            as_written: true,
        }
    }

    /// One candidate judged by the state its loss leads to (the state the
    /// what-if of the loss judges: [`what_if::changed_state`]); the
    /// findings it introduces are left for the experiments kept.
    fn judge(&self, candidate: &Candidate, behind: Vec<String>) -> Experiment {
        let (model, options) = (self.model, self.options);
        let event = what_if::Event {
            model,
            scenario: &candidate.lost.scenario,
            slow: &candidate.slow,
        };
        let changed = what_if::changed_state(model, self.intact, event, Some(&self.intact.flow));
        let predictions: Vec<Prediction> = changed
            .served
            .iter()
            .map(|s| Prediction {
                entrypoint: s.entrypoint.clone(),
                load: s.offered,
                served_before: s.before,
                served: s.after,
                tolerance: (s.after - options.margin).max(0.0),
                abort_error_ratio: (1.0 - s.after + options.margin).min(1.0),
            })
            .collect();
        let unserved = unserved_share(&predictions);
        let after_rows = what_if::state_rows(model, &changed.state);
        let overloaded = after_rows
            .iter()
            .zip(model.component_ids())
            .filter_map(|(row, id)| {
                let (u, load, capacity) = (row.utilization?, row.load?, row.capacity?);
                // What holds it below its capacity, as `headroom` reads it.
                let bound = changed.state.bound(model, &self.intact.flow, id);
                (row.up && u > 1.0 + 1e-12).then(|| Overload {
                    component: row.component.clone(),
                    utilization: u,
                    load,
                    capacity,
                    pool: bound.is_some(),
                    held_by: match bound {
                        None => HeldBy::Capacity,
                        Some((_, Bound::Pool { .. })) => HeldBy::RequestPool,
                        Some((_, Bound::Bulkheads)) => HeldBy::Bulkheads,
                        Some((_, Bound::Failing)) => HeldBy::FailingCalls,
                    },
                })
            })
            .collect::<Vec<_>>();
        let blast_radius = self
            .rows
            .iter()
            .zip(&after_rows)
            .filter(|(b, a)| what_if::row_changed(b, a))
            .map(|(_, a)| a.component.clone())
            .collect();
        let at_stake_s = candidate
            .probability
            .map(|p| p * unserved * window_s(model));
        let why = why(&behind, &predictions, &overloaded, unserved);
        Experiment {
            rank: 0,
            loss: candidate.loss.clone(),
            slug: candidate.slug.clone(),
            title: candidate.phrase.clone(),
            what_if: candidate.what_if.clone(),
            injection: candidate.injection.clone(),
            blast_radius,
            predictions,
            overloaded,
            fires: Vec::new(),
            behind,
            unserved,
            probability: candidate.probability,
            at_stake_s,
            why,
        }
    }
}

/// The share of the entering requests not served: weighted by each
/// entrypoint's load where every entrypoint has one, else the mean.
fn unserved_share(predictions: &[Prediction]) -> f64 {
    if predictions.is_empty() {
        return 0.0;
    }
    let loads: Option<Vec<f64>> = predictions.iter().map(|p| p.load).collect();
    match loads {
        Some(loads) if loads.iter().sum::<f64>() > 0.0 => {
            let total: f64 = loads.iter().sum();
            predictions
                .iter()
                .zip(&loads)
                .map(|(p, l)| l * (1.0 - p.served))
                .sum::<f64>()
                / total
        }
        _ => predictions.iter().map(|p| 1.0 - p.served).sum::<f64>() / predictions.len() as f64,
    }
}

/// Why an experiment is worth running, in a few words.
fn why(
    behind: &[String],
    predictions: &[Prediction],
    overloaded: &[Overload],
    unserved: f64,
) -> String {
    if let Some(first) = behind.first() {
        let more = if behind.len() > 1 {
            format!(" and {} more", behind.len() - 1)
        } else {
            String::new()
        };
        return format!("check says it breaks: {first}{more}");
    }
    if let Some(o) = overloaded.first() {
        let load = super::wording::amount(o.load);
        return match (o.pool, o.utilization.is_finite()) {
            (false, true) => format!(
                "tests the capacity figures: {} at {:.0}%",
                o.component,
                o.utilization * 100.0
            ),
            (false, false) => format!(
                "tests the capacity figures: {} offered {load} with nothing left to carry it",
                o.component,
            ),
            (true, true) => format!(
                "tests the pools: {} at {:.0}% of {}",
                o.component,
                o.utilization * 100.0,
                o.held_to(),
            ),
            (true, false) => format!(
                "tests the pools: {}{} of the {load} offered",
                o.component,
                o.serves_none(),
            ),
        };
    }
    let worst = predictions
        .iter()
        .min_by(|a, b| a.served.total_cmp(&b.served));
    if unserved > 0.0
        && let Some(w) = worst
    {
        return format!(
            "tests what degrades: {} serves {:.1}%",
            w.entrypoint,
            w.served * 100.0
        );
    }
    "tests the redundancy: nothing should change".to_owned()
}

/// A file name for a loss: lower-case ASCII letters and digits, every other
/// run of characters one `-`, at most 50 characters (60 with the suffix that
/// makes it unique), never empty.
#[must_use]
pub fn slug(loss: &str) -> String {
    let mut out = String::new();
    for ch in loss.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 50 {
            break;
        }
    }
    let out = out.trim_matches('-').to_owned();
    if out.is_empty() {
        "loss".to_owned()
    } else {
        out
    }
}

/// Each candidate's slug, unique in candidate order (`-2`, `-3`… on a
/// repeat), so that a loss keeps its file name whatever `--top` and
/// `--only` keep. The next suffix of each base is remembered: many names
/// folding to one base cost no rescan.
fn unique_slugs(candidates: &mut [Candidate]) {
    let mut seen = BTreeSet::new();
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in candidates {
        let base = slug(&c.loss);
        let mut name = base.clone();
        if !seen.insert(name.clone()) {
            let n = next.entry(base.clone()).or_insert(2);
            loop {
                name = format!("{base}-{n}");
                *n += 1;
                if seen.insert(name.clone()) {
                    break;
                }
            }
        }
        c.slug = name;
    }
}

// ---- for `nines verify` ----

/// Every credible loss of `model` as `(loss, slug)`, in candidate order,
/// nothing judged (cheap): `nines verify` finds the loss of a file that
/// names only its slug (an AWS FIS template's `nines-loss` tag), and the
/// closest name of one the model no longer has.
#[must_use]
pub fn losses(model: &Model) -> Vec<(String, String)> {
    candidates(model)
        .into_iter()
        .map(|c| (c.loss, c.slug))
        .collect()
}
