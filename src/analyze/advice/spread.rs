//! How to stop one event from taking an entrypoint down, written for the
//! `spof` findings from what the model and the scenario allow: only the
//! components the entrypoints need (an optional tracer lost with the node
//! is no cause), more instances for a lone one (moving a single instance
//! to another node fixes nothing), a spread over the domains still up in
//! the scenario (never over those it lost), per-domain counts for a
//! component already spread, a standby for a primary, and the latency cost
//! of stretching a synchronous or quorum component across regions.

use std::fmt;
use std::sync::Arc;

use super::{crosses_regions, latency_words, left_of_kind, lost_of_kind, names, spans};
use crate::analyze::wording::{and_list, capped_list};
use crate::engine::outage::{LISTED, Outage};
use crate::engine::scenario::{Scenario, is_lost};
use crate::model::{ComponentId, DomainId, EdgeKind, Model};

/// One component a domain loss takes down on its own, that an entrypoint
/// needs.
#[derive(Debug, Clone)]
struct Cause {
    name: Arc<str>,
    instances: u32,
    min_healthy: u32,
    /// Domains of the loss's kind holding its instances.
    spans: u32,
    /// Of those, how many the scenario had already lost.
    spans_lost: u32,
    /// Why stretching it across regions costs a round trip per write.
    cost: Option<Arc<str>>,
    /// The replication of its standby, when it is a primary.
    standby: Option<&'static str>,
    managed: bool,
    /// It is an alternative of an `any_of` or `at_least` edge with another
    /// cause of the same loss: placing them apart helps.
    alternative: bool,
}

impl Cause {
    /// Every instance is needed, and it is no alternative of another
    /// cause: only more instances help.
    fn lone(&self) -> bool {
        self.instances <= self.min_healthy && !self.alternative
    }
}

/// The causes that are alternatives of one `any_of` or `at_least` edge
/// together with another cause.
fn alternatives(model: &Model, causes: &[ComponentId]) -> Vec<bool> {
    let mut marked = vec![false; causes.len()];
    for c in &model.components {
        for edge in c.depends_on.iter().filter(|e| e.kind != EdgeKind::Target) {
            let hit: Vec<usize> = (0..causes.len())
                .filter(|&i| edge.targets.contains(&causes[i]))
                .collect();
            if hit.len() >= 2 {
                for i in hit {
                    marked[i] = true;
                }
            }
        }
    }
    marked
}

/// What to write as the help of `spof/<domain>`.
#[derive(Debug, Clone)]
pub(crate) struct DomainHelp {
    kind: Arc<str>,
    causes: Vec<Cause>,
    causes_total: usize,
    /// Other domains of the kind still up in the scenario.
    left: Vec<Arc<str>>,
    /// Domains of the kind the scenario lost.
    lost_before: Vec<Arc<str>>,
    cross_region: bool,
}

impl DomainHelp {
    /// The help for losing `domain` (in `scenario`), which takes down
    /// `outage`; `needed` marks the components an entrypoint needs.
    pub(crate) fn new(
        model: &Model,
        scenario: &Scenario,
        needed: &[bool],
        domain: DomainId,
        outage: &Outage,
    ) -> Self {
        let kind = model.domain(domain).kind.as_str();
        let needed_lost: Vec<ComponentId> = outage
            .lost
            .iter()
            .map(|&(id, _)| id)
            .filter(|id| needed.get(id.0).copied().unwrap_or(true))
            .collect();
        let alternative = alternatives(model, &needed_lost);
        let causes = needed_lost
            .iter()
            .zip(alternative)
            .take(LISTED)
            .map(|(&id, alternative)| {
                let c = model.component(id);
                let held = spans(model, c, kind);
                let lost = held
                    .iter()
                    .filter(|&&d| is_lost(model, d, &scenario.domains))
                    .count();
                Cause {
                    name: Arc::from(c.name.as_str()),
                    instances: c.instances,
                    min_healthy: c.min_healthy,
                    spans: u32::try_from(held.len()).unwrap_or(u32::MAX),
                    spans_lost: u32::try_from(lost).unwrap_or(u32::MAX),
                    cost: super::stretch_cost(c),
                    standby: super::standby_of(c),
                    managed: c.managed,
                    alternative,
                }
            })
            .collect();
        Self {
            kind: Arc::from(kind),
            causes,
            causes_total: needed_lost.len(),
            left: names(model, &left_of_kind(model, scenario, kind, Some(domain))),
            lost_before: names(model, &lost_of_kind(model, scenario, kind)),
            cross_region: crosses_regions(model, kind),
        }
    }

    /// The names of the causes (at most [`LISTED`]).
    fn named<'a>(causes: impl Iterator<Item = &'a Cause>) -> Vec<&'a str> {
        causes.map(|c| &*c.name).collect()
    }

    /// Each clause of the help, in the order written.
    fn clauses(&self) -> Vec<String> {
        let kind = &self.kind;
        let mut clauses = Vec::new();
        let managed = Self::named(self.causes.iter().filter(|c| c.managed));
        if !managed.is_empty() {
            clauses.push(format!(
                "{} {} managed: the team cannot place {}; its callers can use a second provider behind an `any_of`, a cached or stale copy, or a degradable edge",
                and_list(&managed),
                if managed.len() == 1 { "is" } else { "are" },
                if managed.len() == 1 { "it" } else { "them" },
            ));
        }
        let runs = self.causes.iter().filter(|c| !c.managed);
        for c in runs.clone().filter(|c| c.standby.is_some()) {
            clauses.push(format!(
                "{} is a primary with a standby ({} replication): a second instance of a primary is not a second primary; give the standby its own component in another {kind} and call both through an `any_of` with a `switchover`",
                c.name,
                c.standby.unwrap_or_default()
            ));
        }
        let apart = Self::named(runs.clone().filter(|c| c.alternative && c.spans <= 1));
        if !apart.is_empty() {
            clauses.push(format!(
                "place {} in different {kind}s, so that no one {kind} holds all that is needed",
                capped_list(&apart, apart.len(), LISTED)
            ));
        }
        let lone = Self::named(runs.clone().filter(|c| c.lone() && c.standby.is_none()));
        if !lone.is_empty() {
            clauses.push(format!(
                "run more instances of {} than {} needs, in different {kind}s: a lone instance is lost with whichever {kind} holds it, so moving it fixes nothing",
                and_list(&lone),
                if lone.len() == 1 { "it" } else { "each" },
            ));
        }
        let unspread = Self::named(
            runs.clone()
                .filter(|c| !c.lone() && !c.alternative && c.spans <= 1),
        );
        if !unspread.is_empty() {
            clauses.push(if self.left.is_empty() {
                format!(
                    "no other {kind} is left in this scenario to spread {} over",
                    and_list(&unspread)
                )
            } else if unspread.len() == 1 {
                format!(
                    "spread {} over at least two {kind}s, so that no one {kind} is needed",
                    unspread[0]
                )
            } else {
                format!(
                    "spread each of {} over at least two {kind}s, so that no one {kind} holds all that is needed",
                    and_list(&unspread)
                )
            });
        }
        for c in runs.clone().filter(|c| !c.lone() && c.spans >= 2) {
            clauses.push(self.per_domain(c));
        }
        if !self.lost_before.is_empty() && self.left.is_empty() {
            let n = self.lost_before.len() + 1;
            clauses.push(format!(
                "every other {kind} is lost in this scenario ({}): nothing can move until one is back, and surviving {n} {kind}s lost at once takes a spread over {} or more",
                and_list(&self.lost_before),
                n + 1
            ));
        }
        let costs: Vec<&str> = runs
            .filter(|c| !c.lone())
            .filter_map(|c| c.cost.as_deref())
            .collect();
        if self.cross_region && !costs.is_empty() {
            clauses.push(latency_words(&costs));
        }
        clauses
    }

    /// A component already spread over several domains of the kind that
    /// this loss still takes below `min_healthy`: the instances per domain
    /// that would survive it.
    fn per_domain(&self, c: &Cause) -> String {
        let kind = &self.kind;
        let survivors = c.spans.saturating_sub(c.spans_lost + 1);
        let after = if c.spans_lost > 0 {
            format!(
                " with {} already lost",
                capped_list(&self.lost_before, self.lost_before.len(), LISTED)
            )
        } else {
            String::new()
        };
        if survivors == 0 {
            return format!(
                "every other {kind} holding {} is lost in this scenario{after}: it needs instances in another {kind}",
                c.name
            );
        }
        let per = c.min_healthy.div_ceil(survivors);
        format!(
            "{} runs in {} {kind}s and needs {} up: surviving this loss too{after} takes ceil({} / {survivors}) = {per} per {kind}, {} in all (or a smaller `min_healthy`)",
            c.name,
            c.spans,
            c.min_healthy,
            c.min_healthy,
            per * c.spans
        )
    }

    /// Writes the help.
    pub(crate) fn write(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clauses = self.clauses();
        if clauses.is_empty() {
            let kind = &self.kind;
            return write!(
                out,
                "place what the entrypoints need in different {kind}s, so that no one {kind} holds all of it"
            );
        }
        out.write_str(&clauses.join("; "))?;
        if self.causes_total > self.causes.len() {
            write!(
                out,
                " (and {} more components, in `--format json`'s outage)",
                self.causes_total - self.causes.len()
            )?;
        }
        Ok(())
    }
}

/// What to write as the help of `spof/<component>` (one instance failing).
#[derive(Debug, Clone)]
pub(crate) struct InstanceHelp {
    name: Arc<str>,
    instances: u32,
    min_healthy: u32,
    /// Instances the scenario already took.
    already: u32,
    standby: Option<&'static str>,
}

impl InstanceHelp {
    pub(crate) fn new(model: &Model, scenario: &Scenario, id: ComponentId) -> Self {
        let c = model.component(id);
        let up = crate::engine::scenario::instances_up(model, id, scenario);
        Self {
            name: Arc::from(c.name.as_str()),
            instances: c.instances,
            min_healthy: c.min_healthy,
            already: c.instances.saturating_sub(up),
            standby: super::standby_of(c),
        }
    }

    /// Writes the help.
    pub(crate) fn write(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, m) = (&self.name, self.min_healthy);
        if let Some(replication) = self.standby {
            return write!(
                out,
                "{name} is a primary with a standby ({replication} replication): a second instance of a primary is not a second primary; give the standby its own component and call both through an `any_of` with a `switchover` (its detect + decide + failover), or make the edges to {name} degradable if its callers can work without it"
            );
        }
        if self.already > 0 && self.instances > m {
            return write!(
                out,
                "{name} runs {} instances and needs {m}: with {} already down, one more failure takes it down; {} or more would survive it (or make the edges to {name} degradable if its callers can work without it)",
                self.instances,
                self.already,
                self.already + m + 1
            );
        }
        write!(
            out,
            "run {} or more instances (min_healthy {m}) in different failure domains, or make the edges to {name} degradable if its callers can work without it",
            m + 1,
        )
    }
}
