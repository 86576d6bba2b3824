//! `placement/<component>`: a component outside every declared failure domain.

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::scenario::is_lost;
use crate::model::Rule;
use crate::model::{ComponentId, DomainId, Model};

// ---- finding constructors ----

/// `placement/<component>`: a component without placement, what the
/// model's domains are (one text per run, shared by its findings), and
/// where it could go.
#[derive(Debug)]
struct Unplaced {
    component: Arc<str>,
    instances: u32,
    domains: Arc<Domains>,
    /// Leaf domains to suggest: where its callers or dependencies run
    /// (their side of a standby edge), none lost in the scenario.
    suggested: Vec<Arc<str>>,
    /// The neighbours the suggestion follows, when it follows any.
    near: Option<Arc<str>>,
}

/// What the message names of the model's domains: how many, their kinds.
#[derive(Debug)]
struct Domains {
    count: usize,
    kinds: String,
}

impl Domains {
    fn of(model: &Model) -> Self {
        Self {
            count: model.domains.len(),
            kinds: domain_kinds(model),
        }
    }
}

fn unplaced(cx: &Context, id: ComponentId, domains: &Arc<Domains>) -> Finding {
    let component = cx.model.component(id);
    let name: Arc<str> = Arc::from(component.name.as_str());
    let (suggested, near) = suggestion(cx, id);
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.span,
        Unplaced {
            component: name,
            instances: component.instances,
            domains: Arc::clone(domains),
            suggested,
            near,
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
        if self.suggested.is_empty() {
            return out.write_str(
                "every declared domain is lost in this scenario: add `placement:` with the domains it runs in once they are back",
            );
        }
        write!(
            out,
            "add `placement: [{}]` (a list spreads the instances evenly) or a map of exact counts",
            self.suggested.join(", ")
        )?;
        if let Some(near) = &self.near {
            let verb = if near.contains(" and ") { "run" } else { "runs" };
            write!(out, ", where {near} {verb}")?;
        }
        Ok(())
    }
}

/// Up to three leaf domains for `id`: those under the outermost domain
/// (a region) where its callers, else its dependencies, run (those that
/// run in one region), so that a
/// component on the standby side of a DR edge is placed in the DR region
/// and nothing is stretched across regions; else those under the first
/// outermost domain. Domains lost in the scenario are left out.
fn suggestion(cx: &Context, id: ComponentId) -> (Vec<Arc<str>>, Option<Arc<str>>) {
    let model = cx.model;
    let callers = cx.flow().callers()[id.0].iter().copied();
    let dependencies = model
        .component(id)
        .depends_on
        .iter()
        .flat_map(|e| e.targets.iter().copied());
    let mut near = Vec::new();
    let mut root = None;
    for n in callers.chain(dependencies) {
        // A neighbour outside every region, or one that spans regions (a
        // global load balancer), says nothing of where this one runs.
        let mut regions = model
            .component(n)
            .placement
            .iter()
            .map(|&(d, _)| region(model, d));
        let Some(Some(r)) = regions.next() else {
            continue;
        };
        if regions.any(|other| other != Some(r)) {
            continue;
        }
        if root.is_none_or(|chosen| chosen == r) {
            root = Some(r);
            let name = model.component(n).name.as_str();
            if !near.contains(&name) {
                near.push(name);
            }
        }
    }
    let lost = |d: DomainId| is_lost(model, d, &cx.scenario.domains);
    let leaves: Vec<DomainId> = leaf_domains(model).filter(|&d| !lost(d)).collect();
    // Without neighbours to follow, the first region with a leaf still up.
    let root = root
        .filter(|&r| leaves.iter().any(|&d| region(model, d) == Some(r)))
        .or_else(|| leaves.iter().find_map(|&d| region(model, d)));
    let chosen: Vec<Arc<str>> = leaves
        .iter()
        .filter(|&&d| root.is_none() || region(model, d) == root)
        .take(3)
        .map(|&d| Arc::from(model.domain(d).name.as_str()))
        .collect();
    let near = (!near.is_empty() && !chosen.is_empty())
        .then(|| Arc::from(super::wording::and_list(&near).as_str()));
    (chosen, near)
}

/// The region of `domain`: the outermost domain holding it (itself when
/// it is in none), when that one holds other domains; `None` for a domain
/// outside every region (zones declared without one).
fn region(model: &Model, domain: DomainId) -> Option<DomainId> {
    let outermost = model
        .domain(domain)
        .ancestors
        .last()
        .copied()
        .unwrap_or(domain);
    model
        .domains
        .iter()
        .any(|d| d.parent == Some(outermost))
        .then_some(outermost)
}

/// Domains that contain no other domain: where instances are usually placed.
fn leaf_domains(model: &Model) -> impl Iterator<Item = DomainId> {
    (0..model.domains.len()).map(DomainId).filter(|&d| {
        !model
            .domains
            .iter()
            .any(|x| x.parent.is_some_and(|p| p == d))
    })
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
    checks: "When the model declares failure domains, every component should say where its instances run. A component without `placement` is in no declared domain. Managed services (`managed: true`, or `kind: saas`/`external`) are skipped: the team cannot place them. The help suggests up to three leaf domains under the outermost domain (the region) where the component's callers, else its dependencies, run: a component behind the standby side of a DR edge is placed in the DR region, and nothing is stretched across regions; domains a `what-if` scenario lost are never suggested.",
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
        for id in cx.model.component_ids() {
            let component = cx.model.component(id);
            // A managed service runs where its provider runs it.
            if component.placement.is_empty() && !component.managed {
                let domains = domains.get_or_insert_with(|| Arc::new(Domains::of(cx.model)));
                audit.findings.push(unplaced(cx, id, domains));
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

    #[test]
    fn the_suggestion_follows_the_neighbours_region_and_the_scenario() {
        let text = r"system: s
domains:
  east: {kind: region}
  west: {kind: region}
  e1: {kind: zone, in: east}
  e2: {kind: zone, in: east}
  w1: {kind: zone, in: west}
  w2: {kind: zone, in: west}
components:
  gateway: {instances: 4, placement: [e1, e2, w1, w2], depends_on: [{any_of: [api, api-dr], switchover: 20m}]}
  api: {instances: 2, placement: [e1, e2]}
  api-dr: {instances: 2, depends_on: [db-dr]}
  db-dr: {instances: 2, placement: [w1, w2]}
";
        let found = findings(text);
        assert_eq!(found.len(), 1);
        // gateway spans both regions and says nothing; db-dr runs in west.
        assert_eq!(
            found[0].help().unwrap().to_string(),
            "add `placement: [w1, w2]` (a list spreads the instances evenly) or a map of exact counts, where db-dr runs"
        );
        // Losing w1 in a what-if leaves w2 alone to suggest.
        let model = crate::model::parse(text).unwrap();
        let scenario = crate::engine::scenario::Scenario {
            domains: vec![DomainId(4)],
            ..Default::default()
        };
        let audit = crate::analyze::audit(
            &model,
            text,
            scenario,
            crate::analyze::Options {
                selected: &|rule: &str| rule == "placement",
                ..crate::analyze::Options::new(crate::model::Date::parse("2026-01-01").unwrap())
            },
        );
        assert_eq!(
            audit.findings[0].help().unwrap().to_string(),
            "add `placement: [w2]` (a list spreads the instances evenly) or a map of exact counts, where db-dr runs"
        );
    }
}
