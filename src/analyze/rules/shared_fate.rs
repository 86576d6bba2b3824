//! `shared-fate/<group>`: one shared-fate group firing (a release, a config
//! push, a certificate) takes an entrypoint down.

use std::fmt;
use std::sync::Arc;

use super::wording::OutageWords;
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::outage::{Outage, outage_after};
use crate::engine::scenario::Scenario;
use crate::model::Rule;
use crate::model::{GroupId, Model};

// ---- finding constructors ----

/// `shared-fate/<group>`: the group and what its firing takes down.
#[derive(Debug)]
struct GroupTakesDown {
    name: Arc<str>,
    kind: Option<Arc<str>>,
    outage: OutageWords,
}

fn group_takes_down(model: &Model, id: GroupId, outage: &Outage) -> Finding {
    let g = model.group(id);
    let name: Arc<str> = Arc::from(g.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        g.span,
        GroupTakesDown {
            name,
            kind: g.kind.as_deref().map(Arc::from),
            outage: OutageWords::new(model, outage),
        },
    )
}

impl Wording for GroupTakesDown {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&self.name)?;
        if let Some(kind) = &self.kind {
            write!(out, " ({kind})")?;
        }
        write!(out, " firing takes down every member at once: {}", self.outage)
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "split {} so that one firing reaches only part of the fleet ({}), or add an alternative that does not share it",
            self.name,
            remedy(self.kind.as_deref())
        )
    }
}

/// The usual way to split a cause of this kind.
fn remedy(kind: Option<&str>) -> &'static str {
    match kind {
        Some("software" | "release" | "deploy") => {
            "per-cell release trains with a canary and a bake time"
        }
        Some("config") => "config pushed cell by cell, with automatic rollback",
        Some("certificate") => "one certificate per endpoint, renewed automatically",
        Some("credential" | "token" | "secret") => {
            "one credential per service or cell, rotated one at a time"
        }
        Some("dns") => "a second DNS provider",
        _ => "per-cell releases, staged config pushes, one certificate per endpoint",
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::SharedFate,
    id: "shared-fate/<group>",
    severity: "error",
    summary: "One shared-fate group firing takes an entrypoint down.",
    checks: "For every group under `shared_fate:`, the scenario in which it fires: every component that `shares` it is down at once, whatever its instance count and placement. The check follows required edges, `any_of` and `at_least` from there, and reports the group when an entrypoint goes down.",
    why: "Redundancy protects against independent failures only. A bad release rolled out everywhere, one global config push, one expired certificate or one DNS provider stops every replica in every zone at the same moment, so three cells in three zones behind an `any_of` are still one event away from a full outage. These causes are not places, so the domain checks cannot see them.",
    example: "shared_fate:\n  release-train: {kind: software}\ncomponents:\n  router: {instances: 3, depends_on: [{any_of: [cell-a, cell-b]}]}\n  cell-a: {instances: 5, shares: [release-train]}\n  cell-b: {instances: 5, shares: [release-train]}   # shared-fate/release-train",
    fix: "Break the group up so that one firing reaches only part of the system: per-cell release trains with a canary and a bake time, config pushed cell by cell, one certificate per endpoint with monitored renewal, a second DNS provider. Then model each part as its own group. A risk taken on purpose can be accepted with a reason under `accepted:`.",
};

// ---- the check ----

/// The `shared-fate` rule.
pub struct SharedFate;

impl Analyzer for SharedFate {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let baseline = cx.baseline();
        for index in 0..cx.model.groups.len() {
            let id = GroupId(index);
            if cx.scenario.groups.contains(&id) {
                continue;
            }
            let event = cx.scenario.and(&Scenario {
                groups: vec![id],
                ..Scenario::default()
            });
            if let Some(outage) = outage_after(cx.model, baseline, &cx.scenario, &event) {
                audit
                    .findings
                    .push(group_takes_down(cx.model, id, &outage));
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&SharedFate, text).findings
    }

    #[test]
    fn a_release_train_stops_every_cell() {
        let found = findings(
            r"system: s
shared_fate:
  release-train: {kind: software}
components:
  router: {instances: 3, depends_on: [{any_of: [cell-a, cell-b]}]}
  cell-a: {instances: 5, shares: [release-train]}
  cell-b: {instances: 5, shares: [release-train]}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "shared-fate/release-train");
        // Both alternatives lose all 5 instances, so the any_of has 0 >= 1: router is down.
        assert_eq!(
            found[0].message().to_string(),
            "release-train (software) firing takes down every member at once: cell-a (5 of 5 instances), cell-b (5 of 5 instances) and with it router; entrypoint router goes down"
        );
        // The group's name: line 3, column 3.
        assert_eq!((found[0].location.line, found[0].location.column), (3, 3));
    }

    #[test]
    fn a_group_on_a_degradable_path_or_one_alternative_is_fine() {
        assert!(
            findings(
                r"system: s
shared_fate:
  push: {}
components:
  router: {depends_on: [{any_of: [cell-a, cell-b]}, {target: flags, degradable: true}]}
  cell-a: {shares: [push]}
  cell-b: {}
  flags: {shares: [push]}
",
            )
            .is_empty()
        );
    }
}
