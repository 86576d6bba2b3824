//! Failure domains (nesting, cycles, ancestry) and shared-fate groups.

use super::super::decode::Cx;
use super::super::error::Problem;
use super::super::raw::RawModel;
use super::super::{Domain, DomainId, Fields, Group};
use super::Names;

/// The validated domains, with parents resolved and ancestry computed.
pub(super) fn domains(raw: &RawModel, names: &Names, cx: &mut Cx) -> Vec<Domain> {
    let Some(entries) = &raw.domains else {
        return Vec::new();
    };
    let mut domains: Vec<Domain> = entries
        .items
        .iter()
        .map(|(name, domain)| Domain {
            name: name.value.clone(),
            kind: domain.kind.value.clone(),
            parent: domain
                .r#in
                .as_ref()
                .and_then(|parent| names.domain(parent, cx)),
            ancestors: Vec::new(),
            availability: domain.availability.as_ref().map(|a| a.value.0),
            mttr: domain.mttr.as_ref().map(|m| m.value),
            span: name.span,
            fields: Fields(domain.keys.clone()),
        })
        .collect();
    // Walk each parent chain; a chain that comes back to where it started is
    // a cycle, reported once at its first member in model order.
    let mut reported = vec![false; domains.len()];
    for start in 0..domains.len() {
        let mut chain = vec![start];
        let mut at = domains[start].parent;
        while let Some(DomainId(next)) = at {
            if next == start {
                if !reported[start] {
                    for &member in &chain {
                        reported[member] = true;
                    }
                    let names: Vec<String> = chain
                        .iter()
                        .chain(std::iter::once(&start))
                        .map(|&i| domains[i].name.clone())
                        .collect();
                    let link = |i: usize| domains[i].fields.get("in").unwrap_or(domains[i].span);
                    let others = chain[1..].iter().map(|&i| link(i)).collect();
                    cx.report(Problem::domain_cycle(link(start), &names, others));
                }
                break;
            }
            if chain.contains(&next) {
                break; // a cycle further up, reported from its own members
            }
            chain.push(next);
            at = domains[next].parent;
        }
    }
    if reported.iter().any(|&r| r) {
        for domain in &mut domains {
            domain.parent = None;
        }
        return domains;
    }
    for index in 0..domains.len() {
        let mut ancestors = Vec::new();
        let mut at = domains[index].parent;
        while let Some(parent) = at {
            ancestors.push(parent);
            at = domains[parent.0].parent;
        }
        domains[index].ancestors = ancestors;
    }
    domains
}

/// The validated shared-fate groups.
pub(super) fn groups(raw: &RawModel) -> Vec<Group> {
    let Some(entries) = &raw.shared_fate else {
        return Vec::new();
    };
    entries
        .items
        .iter()
        .map(|(name, group)| Group {
            name: name.value.clone(),
            kind: group.kind.as_ref().map(|k| k.value.clone()),
            availability: group.availability.as_ref().map(|a| a.value.0),
            expires: group.expires.as_ref().map(|e| e.value),
            span: name.span,
            fields: Fields(group.keys.clone()),
        })
        .collect()
}
