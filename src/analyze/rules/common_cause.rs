//! `common-cause/<component>`: a redundant component whose instances all sit
//! in one domain or share one group that fails more often than the instances
//! fail together on their own. Its replicas buy nothing.

use super::loss::{Loss, LossJudge};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::scenario::surviving_instances;
use crate::model::Rule;
use crate::analyze::advice;
use crate::model::{Component, ComponentId, DomainId, Model};

// ---- finding constructors ----

/// `common-cause/<component>`: the causes every instance shares, and the
/// two probabilities compared.
#[derive(Debug)]
struct Dominated {
    component: Arc<str>,
    instances: u32,
    min_healthy: u32,
    risk: CommonCause,
    /// When the spread would cross regions: why that costs every write a
    /// round trip (synchronous replication, a quorum).
    stretch_cost: Option<Arc<str>>,
}

fn dominated(model: &Model, c: &Component, risk: CommonCause) -> Finding {
    let component: Arc<str> = Arc::from(c.name.as_str());
    let stretch_cost = risk
        .spread
        .as_deref()
        .filter(|kind| advice::crosses_regions(model, kind))
        .and_then(|_| advice::stretch_cost(c));
    Finding::new(
        DOC.rule,
        Arc::clone(&component),
        Severity::Warning,
        c.span,
        Dominated {
            component,
            instances: c.instances,
            min_healthy: c.min_healthy,
            risk,
            stretch_cost,
        },
    )
}

impl Wording for Dominated {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let risk = &self.risk;
        write!(
            out,
            "all {} instances of {} share {}, {} with probability {}; on their own, ",
            self.instances,
            self.component,
            risk.causes.join(", "),
            if risk.causes.len() == 1 {
                "which fails"
            } else {
                "one of which fails"
            },
            probability(risk.common),
        )?;
        if self.min_healthy == 1 {
            write!(out, "all {} fail together", self.instances)?;
        } else {
            write!(out, "fewer than {} of {} are up", self.min_healthy, self.instances)?;
        }
        write!(
            out,
            " with probability {}: the common cause is {}, and adding replicas buys nothing",
            probability(risk.independent),
            crate::human::likelier(risk.common, risk.independent),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (c, risk) = (&self.component, &self.risk);
        match (&risk.spread, risk.groups.is_empty()) {
            (Some(kind), true) => write!(
                out,
                "spread {c} over several {kind}s that fail independently; more replicas in the same place do not help"
            ),
            (Some(kind), false) => write!(
                out,
                "spread {c} over several {kind}s and take it out of {}, so that no single cause holds every instance",
                risk.groups.join(", ")
            ),
            (None, _) => write!(
                out,
                "take {c} out of {} (one certificate per endpoint, staged releases, a second provider), so that no single cause holds every instance",
                risk.groups.join(", ")
            ),
        }?;
        match &self.stretch_cost {
            Some(cost) => write!(out, "; {}", advice::latency_words(&[cost])),
            None => Ok(()),
        }
    }
}

/// A probability for prose: `0.05%`, `1 × 10⁻²⁴`.
fn probability(p: f64) -> String {
    crate::human::probability(p)
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::CommonCause,
    id: "common-cause/<component>",
    severity: "warning",
    summary: "A redundant component's common-cause failure outweighs its independent one.",
    checks: "For every component that can lose an instance (`instances` above `min_healthy`) and whose instance availability is known, two probabilities. The common-cause one: that at least one domain holding all of its instances (a zone, and the region around it) or one of its shared-fate groups is down, from their `availability` (those without a figure count as never failing). Only domains and groups whose loss breaks an entrypoint count, as for `spof`: when an `any_of` between regions survives the loss of one region, that region is no common cause, and neither is one whose loss only costs a standby's switchover (a region a DR standby covers: the switchover is counted once, at the entrypoint, in its availability); one that, in the state after it, overloads a component an entrypoint needs does count (two cache nodes in one zone in front of a store). When the spread would cross regions (the kind is called a region, or its domains are outermost and hold zones) and the component replicates synchronously or needs a quorum (`min_healthy` above 1), the help names the cost: a cross-region round trip in every write. The independent one: that fewer than `min_healthy` instances are up from their own failures alone (the binomial tail). A finding when the first is larger.",
    why: "Replicas protect against independent failures. When they all sit in one zone, or all share one certificate or one release, the system fails whenever that one thing fails, however many replicas there are: the redundancy is on paper only. The comparison says how much the common cause dominates, so the fix goes where it pays.",
    example: "domains:\n  az-a: {kind: zone, availability: 99.95%}\ncomponents:\n  cache:\n    instances: 3\n    availability: 99.9%\n    placement: [az-a]   # common-cause/cache: 0.05% against 1 × 10⁻⁹",
    fix: "Spread the instances over domains that fail independently (`placement: [az-a, az-b, az-c]`), or take them out of the shared cause (one certificate per endpoint, staged releases). Adding replicas inside the same domain or group does not help.",
};

// ---- the check ----

/// Why a redundant component fails together.
#[derive(Debug)]
struct CommonCause {
    /// Names of the domains and groups that hold every instance and have a figure.
    causes: Vec<String>,
    /// The kind of the innermost domain that holds every instance and has a
    /// figure (what to spread over), if any.
    spread: Option<String>,
    /// The groups among the causes.
    groups: Vec<String>,
    /// P(at least one cause is down).
    common: f64,
    /// P(fewer than `min_healthy` instances up from own failures).
    independent: f64,
}

fn common_cause(cx: &Context, judge: &LossJudge, id: ComponentId) -> Option<CommonCause> {
    let model = cx.model;
    let c = model.component(id);
    let availability = c.availability?;
    if c.instances <= c.min_healthy || availability >= 1.0 {
        return None;
    }
    let mut causes = Vec::new();
    let mut all_up = 1.0;
    let mut spread: Option<(usize, String)> = None;
    let mut groups = Vec::new();
    if !c.placement.is_empty() {
        for index in 0..model.domains.len() {
            let d = model.domain(DomainId(index));
            if surviving_instances(model, id, &[DomainId(index)]) != 0 {
                continue;
            }
            // A loss an entrypoint survives (redundancy one level up, such
            // as an `any_of` between regions) is no common cause for it, and
            // neither is one a standby covers: the switchover is counted
            // once, in the entrypoint's availability.
            if let Some(a) = d.availability
                && judge.domain_loss(cx, DomainId(index)) == Loss::Breaks
            {
                all_up *= a;
                causes.push(format!("{} ({})", d.name, d.kind));
                if spread
                    .as_ref()
                    .is_none_or(|(depth, _)| d.ancestors.len() > *depth)
                {
                    spread = Some((d.ancestors.len(), d.kind.clone()));
                }
            }
        }
    }
    for &g in &c.shares {
        let group = model.group(g);
        if let Some(a) = group.availability
            && judge.group_loss(model, g) == Loss::Breaks
        {
            all_up *= a;
            causes.push(group.name.clone());
            groups.push(group.name.clone());
        }
    }
    if causes.is_empty() {
        return None;
    }
    let common = 1.0 - all_up;
    let independent = fewer_than(c.min_healthy, c.instances, availability);
    (common > independent).then_some(CommonCause {
        causes,
        spread: spread.map(|(_, kind)| kind),
        groups,
        common,
        independent,
    })
}

/// P(fewer than `k` of `n` independent instances are up), each up with `p`:
/// the sum over i < k of C(n, i) p^i (1 − p)^(n − i), term by term in logs
/// so that large fleets neither overflow nor lose the small terms.
fn fewer_than(k: u32, n: u32, p: f64) -> f64 {
    let q = 1.0 - p;
    if q <= 0.0 {
        return 0.0;
    }
    if p <= 0.0 {
        return 1.0;
    }
    let (ln_p, ln_q) = (p.ln(), q.ln());
    let mut ln_choose = 0.0;
    let mut sum = 0.0;
    for i in 0..k.min(n + 1) {
        if i > 0 {
            ln_choose += f64::from(n - i + 1).ln() - f64::from(i).ln();
        }
        sum += (ln_choose + f64::from(i) * ln_p + f64::from(n - i) * ln_q).exp();
    }
    sum.min(1.0)
}

/// The `common-cause` rule.
pub struct CommonCauseFailure;

impl Analyzer for CommonCauseFailure {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let judge = cx.loss_judge();
        for id in cx.model.component_ids() {
            if let Some(risk) = common_cause(cx, judge, id) {
                audit
                    .findings
                    .push(dominated(cx.model, cx.model.component(id), risk));
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&CommonCauseFailure, text).findings
    }

    #[test]
    fn a_zone_dominates_three_replicas() {
        let found = findings(
            r"system: s
domains:
  az-a: {kind: zone, availability: 99.95%}
  az-b: {kind: zone}
components:
  cache: {instances: 3, availability: 99.9%, placement: [az-a]}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "common-cause/cache");
        // common: 1 - 0.9995 = 5.0e-4; independent: all 3 down = 0.001^3 = 1.0e-9;
        // 5e-4 / 1e-9 = 5e5, about 10^6 (log10 5e5 = 5.7 rounds to 6).
        assert_eq!(
            found[0].message().to_string(),
            "all 3 instances of cache share az-a (zone), which fails with probability 0.05%; on their own, all 3 fail together with probability 1 × 10⁻⁹: the common cause is vastly more likely (10⁶×), and adding replicas buys nothing"
        );
        assert_eq!((found[0].location.line, found[0].location.column), (6, 3));
    }

    #[test]
    fn a_group_counts_and_ratios_stay_readable() {
        let found = findings(
            r"system: s
shared_fate:
  cert: {availability: 99.999%}
components:
  router: {instances: 2, availability: 99%, shares: [cert]}
",
        );
        // common 1 - 0.99999 = 1.0e-5 against 0.01^2 = 1.0e-4: the replicas dominate, no finding.
        assert!(found.is_empty());
        let found = findings(
            r"system: s
shared_fate:
  cert: {availability: 99.9%}
components:
  router: {instances: 2, availability: 99%, shares: [cert]}
",
        );
        // common 1.0e-3 against 1.0e-4: 10 times.
        assert!(
            found[0].message().to_string().contains("is 10 times as likely"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn spread_replicas_unknown_figures_and_single_instances_are_silent() {
        // Spread over two zones: no domain holds all instances.
        assert!(
            findings(
                r"system: s
domains:
  az-a: {kind: zone, availability: 99.95%}
  az-b: {kind: zone, availability: 99.95%}
components:
  db: {instances: 2, availability: 99.9%, placement: [az-a, az-b]}
"
            )
            .is_empty()
        );
        // The zone has no figure.
        assert!(
            findings(
                r"system: s
domains:
  az-a: {kind: zone}
components:
  db: {instances: 2, availability: 99.9%, placement: [az-a]}
"
            )
            .is_empty()
        );
        // Not redundant: 1 instance (that is a SPOF question).
        assert!(
            findings(
                r"system: s
domains:
  az-a: {kind: zone, availability: 99%}
components:
  db: {availability: 99.9%, placement: [az-a]}
"
            )
            .is_empty()
        );
        // No instance figure: the independent side is unknown.
        assert!(
            findings(
                r"system: s
domains:
  az-a: {kind: zone, availability: 99%}
components:
  db: {instances: 2, placement: [az-a]}
"
            )
            .is_empty()
        );
    }

    #[test]
    fn a_degradable_cache_counts_when_its_zone_overloads_the_store() {
        // Both cache nodes in az-a (99.95%): common cause 1 − 0.9995 = 5e-4
        // against 0.001 × 0.001 = 1e-6 on their own. Nothing requires the
        // cache, so only load can make the zone matter: web sends 1000 × 0.9
        // = 900 to the cache and 100 to db; losing az-a sends all 1000 to db.
        let model = |db_capacity: u32| {
            format!(
                r"system: s
domains:
  az-a: {{kind: zone, availability: 99.95%}}
  az-b: {{kind: zone, availability: 99.95%}}
components:
  web:
    instances: 2
    capacity: 1000
    load: 1000
    depends_on:
      - target: db
        hit_rate: 90%
        cached_by: cache
      - target: cache
        degradable: true
  cache: {{instances: 2, placement: [az-a], availability: 99.9%}}
  db: {{instances: 2, placement: [az-b], capacity: {db_capacity}}}
"
            )
        };
        // db 2 × 300 = 600: 100 intact (17%), 1000 after the loss (167%).
        let found = findings(&model(300));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].id().to_string(), "common-cause/cache");
        // db 2 × 600 = 1200 carries the 1000: the zone breaks nothing.
        assert!(findings(&model(600)).is_empty());
    }

    #[test]
    fn the_binomial_tail() {
        // 2 of 3 needed, q = 0.001: P(0 or 1 up) = q^3 + 3 p q^2 = 1e-9 + 2.997e-6.
        let tail = fewer_than(2, 3, 0.999);
        assert!((tail - 2.998e-6).abs() < 1e-12, "{tail}");
        // 1 of 1000 needed with q = 0.5: 0.5^1000 underflows to 0 without harm.
        assert!(fewer_than(1, 1000, 0.5) < 1e-300);
        assert!((fewer_than(1, 1, 0.25) - 0.75).abs() < 1e-15);
    }
}
