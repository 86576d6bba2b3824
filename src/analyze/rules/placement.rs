//! `placement/<component>`: a component outside every declared failure domain.

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Component, Model};

// ---- finding constructors ----

/// `placement/<component>`: a component without placement, and what the
/// model's domains are (one text per run, shared by its findings).
#[derive(Debug)]
struct Unplaced {
    component: Arc<str>,
    instances: u32,
    domains: Arc<Domains>,
}

/// What the advice names of the model's domains: their kinds, and the
/// first few leaf domains.
#[derive(Debug)]
struct Domains {
    count: usize,
    kinds: String,
    leaves: String,
}

impl Domains {
    fn of(model: &Model) -> Self {
        Self {
            count: model.domains.len(),
            kinds: domain_kinds(model),
            leaves: leaf_domains(model).take(3).collect::<Vec<_>>().join(", "),
        }
    }
}

fn unplaced(component: &Component, domains: &Arc<Domains>) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.span,
        Unplaced {
            component: name,
            instances: component.instances,
            domains: Arc::clone(domains),
        },
    )
}

impl Wording for Unplaced {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let domains = &self.domains;
        write!(
            out,
            "{} ({} instance{}) has no placement, while the model declares {} domain{} ({}): no zone or region loss can be judged for it",
            self.component,
            self.instances,
            if self.instances == 1 { "" } else { "s" },
            domains.count,
            if domains.count == 1 { "" } else { "s" },
            domains.kinds,
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "add `placement: [{}]` (a list spreads the instances evenly) or a map of exact counts",
            self.domains.leaves
        )
    }
}

/// Domains that contain no other domain: where instances are usually placed.
fn leaf_domains(model: &Model) -> impl Iterator<Item = &str> {
    model
        .domains
        .iter()
        .enumerate()
        .filter(|&(index, _)| {
            !model
                .domains
                .iter()
                .any(|d| d.parent.is_some_and(|p| p.0 == index))
        })
        .map(|(_, d)| d.name.as_str())
}

fn domain_kinds(model: &Model) -> String {
    let mut kinds: Vec<&str> = model.domains.iter().map(|d| d.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.join(", ")
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Placement,
    id: "placement/<component>",
    severity: "warning",
    summary: "A component is outside every declared failure domain.",
    checks: "When the model declares failure domains, every component should say where its instances run. A component without `placement` is in no declared domain. Managed services (`managed: true`, or `kind: saas`/`external`) are skipped: the team cannot place them.",
    why: "Domain-level risks (losing a zone, a region, a rack) can only be judged for components whose place is known. An unplaced component silently escapes the single-point-of-failure and N-k headroom checks, so the model looks safer than the system is.",
    example: "domains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\ncomponents:\n  api: {instances: 2, placement: [az-a, az-b], depends_on: [postgres]}\n  postgres: {instances: 1}   # placement/postgres",
    fix: "Add `placement:` with the domains the instances run in: a list to spread them evenly (`[az-a, az-b]`), or a map of exact counts (`{az-a: 2, az-b: 1}`). If the component really runs outside the modelled domains (an external SaaS), model that place as a domain of its own.",
};

// ---- the check ----

/// The `placement` rule.
pub struct Placement;

impl Analyzer for Placement {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        if cx.model.domains.is_empty() {
            return;
        }
        let mut domains: Option<Arc<Domains>> = None;
        for component in &cx.model.components {
            // A managed service runs where its provider runs it.
            if component.placement.is_empty() && !component.managed {
                let domains = domains.get_or_insert_with(|| Arc::new(Domains::of(cx.model)));
                audit.findings.push(unplaced(component, domains));
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&Placement, text).findings
    }

    #[test]
    fn fires_for_an_unplaced_component_when_domains_exist() {
        let found = findings(
            r"system: s
domains: {az-a: {kind: zone}, az-b: {kind: zone}}
components:
  api: {instances: 2, placement: [az-a, az-b], depends_on: [db]}
  db: {instances: 3}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "placement/db");
        assert_eq!(found[0].severity, Severity::Warning);
        // Points at the component's name: line 5, column 3.
        assert_eq!((found[0].location.line, found[0].location.column), (5, 3));
        assert!(
            found[0].message().to_string().contains("3 instances"),
            "{}",
            found[0].message().to_string()
        );
        assert!(
            found[0].message().to_string().contains("2 domains (zone)"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn silent_without_domains_or_when_everything_is_placed() {
        assert!(
            findings(
                r"system: s
components:
  api: {instances: 2}
"
            )
            .is_empty()
        );
        assert!(
            findings(
                r"system: s
domains: {az-a: {kind: zone}}
components:
  api: {placement: [az-a]}
"
            )
            .is_empty()
        );
    }
}
