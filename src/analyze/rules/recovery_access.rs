//! `recovery-access/<component>/<need>`: one event takes down both a
//! component and something its recovery procedure needs.

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Component, ComponentId, Model, Recovery};

// ---- finding constructors ----

/// `recovery-access/<component>/<need>`: an event that takes down a
/// component and what its recovery needs.
#[derive(Debug)]
struct LockedOut {
    /// `losing az-a`, `vault firing`: the event's name, and whether it is a
    /// group.
    event: (Arc<str>, bool),
    component: Arc<str>,
    /// Instances lost, of how many.
    own: (u32, u32),
    need: Arc<str>,
    needed: (u32, u32),
}

fn locked_out(
    model: &Model,
    (component, recovery): (&Component, &Recovery),
    need: ComponentId,
    event: &Event,
) -> Finding {
    let need = model.component(need);
    let (own_lost, need_lost) = (event.lost(model, component), event.lost(model, need));
    let (name, needed): (Arc<str>, Arc<str>) = (
        Arc::from(component.name.as_str()),
        Arc::from(need.name.as_str()),
    );
    Finding::new(
        DOC.rule,
        Subject::pair(Arc::clone(&name), Arc::clone(&needed)),
        Severity::Error,
        recovery.fields.get("needs").unwrap_or(recovery.span),
        LockedOut {
            event: event.name(model),
            component: name,
            own: (own_lost, component.instances),
            need: needed,
            needed: (need_lost, need.instances),
        },
    )
}

impl Wording for LockedOut {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (event, group) = &self.event;
        if *group {
            write!(out, "{event} firing")?;
        } else {
            write!(out, "losing {event}")?;
        }
        write!(
            out,
            " takes down {} ({} of {} instances) and {} ({} of {}), which its recovery needs",
            self.component, self.own.0, self.own.1, self.need, self.needed.0, self.needed.1,
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "keep what the recovery of {} needs outside its failure domains and groups: run {} elsewhere too (another region, a break-glass account), or remove it from the runbook",
            self.component, self.need
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RecoveryAccess,
    id: "recovery-access/<component>/<need>",
    severity: "error",
    summary: "A single event that takes a component down also takes down something its recovery needs.",
    checks: "For every component with `recovery` and every component its recovery `needs`, and every single event: the loss of one domain (it takes down the instances placed in it or in a domain inside it) and one shared-fate group firing (every member's instances). A component is down when fewer than `min_healthy` instances survive. When one event takes both down, the pair is reported once, naming the narrowest such event (the most deeply nested domain, then model order, then groups). Events are judged as `spof` judges them: only those that break an entrypoint (an `any_of` between regions that survives the loss means no recovery is needed to serve; a loss that takes the active side of a standby edge counts, since the switchover is the recovery), and no domain of a kind the model has only one of.",
    why: "Recovery runbooks depend on things: single sign-on to reach the console, a VPN, a secrets store, the deploy pipeline. When the disaster that destroys the database also destroys the login needed to restore it, the recovery cannot start, whatever the RTO says.",
    example: "domains:\n  eu-central: {kind: region}\ncomponents:\n  db:\n    placement: [eu-central]\n    recovery: {rto: 1h, backup_interval: 1h, restore: 30m, needs: [sso]}   # recovery-access/db/sso\n  sso: {placement: [eu-central]}",
    fix: "Make the needed service survive the events that take the component down: run it in another region or outside the shared group, or keep a break-glass path (local accounts, offline credentials) and take it out of `needs`.",
};

// ---- the check ----

/// One single event.
enum Event {
    /// A domain is lost.
    Domain(crate::model::DomainId),
    /// A shared-fate group fires.
    Group(crate::model::GroupId),
}

impl Event {
    /// Instances of `component` the event takes down.
    fn lost(&self, model: &Model, component: &Component) -> u32 {
        match *self {
            Event::Domain(domain) => component
                .placement
                .iter()
                .filter(|&&(d, _)| d == domain || model.domain(d).ancestors.contains(&domain))
                .map(|&(_, n)| n)
                .sum(),
            Event::Group(group) => {
                if component.shares.contains(&group) {
                    component.instances
                } else {
                    0
                }
            }
        }
    }

    /// Whether `component` is down under the event.
    fn takes_down(&self, model: &Model, component: &Component) -> bool {
        let lost = self.lost(model, component);
        lost > 0 && component.instances.saturating_sub(lost) < component.min_healthy
    }

    fn judged(&self, cx: &Context, judge: &super::loss::LossJudge) -> bool {
        match *self {
            Event::Domain(d) => super::loss::judged_kind(cx.model, d) && judge.domain_breaks(cx, d),
            Event::Group(g) => judge.group_breaks(cx.model, g),
        }
    }

    /// The name of what is lost, and whether it is a group (`vault
    /// firing`) rather than a domain (`losing az-a`).
    fn name(&self, model: &Model) -> (Arc<str>, bool) {
        match *self {
            Event::Domain(d) => (Arc::from(model.domain(d).name.as_str()), false),
            Event::Group(g) => (Arc::from(model.group(g).name.as_str()), true),
        }
    }
}

/// The `recovery-access` rule.
pub struct RecoveryAccess;

impl Analyzer for RecoveryAccess {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        let judge = cx.loss_judge();
        // The narrowest event first: a zone says more than its region.
        let mut domains: Vec<usize> = (0..model.domains.len()).collect();
        domains.sort_by_key(|&d| std::cmp::Reverse(model.domains[d].ancestors.len()));
        let events: Vec<Event> = domains
            .into_iter()
            .map(|d| Event::Domain(crate::model::DomainId(d)))
            .chain((0..model.groups.len()).map(|g| Event::Group(crate::model::GroupId(g))))
            // As for spof: only losses that break an entrypoint (redundancy
            // one level up counts), and no domain of a kind the model has
            // only one of (a single-region design is on purpose).
            .filter(|event| event.judged(cx, judge))
            .collect();
        for component in &model.components {
            let Some(recovery) = &component.recovery else {
                continue;
            };
            let mut needs = recovery.needs.clone();
            needs.dedup();
            for need in needs {
                let needed = model.component(need);
                if needed.name == component.name {
                    continue;
                }
                if let Some(event) = events
                    .iter()
                    .find(|e| e.takes_down(model, component) && e.takes_down(model, needed))
                {
                    audit
                        .findings
                        .push(locked_out(model, (component, recovery), need, event));
                }
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&RecoveryAccess, text).findings
    }

    const SAME_REGION: &str = r"system: s
domains:
  eu-central: {kind: region}
  eu-west: {kind: region}
  fra-a: {kind: zone, in: eu-central}
  fra-b: {kind: zone, in: eu-central}
components:
  db:
    instances: 2
    placement: [fra-a, fra-b]
    recovery: {backup_interval: 1h, needs: [sso]}
  sso: {instances: 2, placement: [fra-a, fra-b]}
";

    #[test]
    fn losing_the_region_takes_the_login_with_the_database() {
        let found = findings(SAME_REGION);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "recovery-access/db/sso");
        // eu-central holds fra-a and fra-b: 2 of 2 instances of each.
        assert_eq!(
            found[0].message().to_string(),
            "losing eu-central takes down db (2 of 2 instances) and sso (2 of 2), which its recovery needs"
        );
    }

    #[test]
    fn a_need_elsewhere_or_a_surviving_quorum_is_fine() {
        assert!(
            findings(&SAME_REGION.replace(
                "sso: {instances: 2, placement: [fra-a, fra-b]}",
                "sso: {instances: 2, placement: [eu-west]}"
            ))
            .is_empty()
        );
        // One zone lost leaves one db instance: db stays up.
        assert!(
            findings(
                &SAME_REGION
                    .replace(
                        "eu-central: {kind: region}",
                        "eu-central: {kind: region}\n  dub: {kind: region}"
                    )
                    .replace(
                        "placement: [fra-a, fra-b]\n    recovery",
                        "placement: [fra-a, dub]\n    recovery"
                    )
            )
            .is_empty()
        );
    }

    #[test]
    fn a_shared_group_counts_as_one_event() {
        let found = findings(
            r"system: s
shared_fate:
  okta-tenant: {kind: identity}
components:
  db:
    shares: [okta-tenant]
    recovery: {backup_interval: 1h, needs: [vpn]}
  vpn: {shares: [okta-tenant]}
",
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message().to_string()
                .starts_with("okta-tenant firing takes down db (1 of 1 instances)")
        );
    }
}
