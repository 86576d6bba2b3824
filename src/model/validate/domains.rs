//! Failure domains (nesting, cycles, ancestry) and shared-fate groups.

use super::super::decode::Cx;
use super::super::error::Problem;
use super::super::raw::{RawDomain, RawGroup, RawModel};
use super::super::{Domain, DomainId, Fields, Group};
use super::Names;

/// The first member (in model order) of every cycle of `in:` links, sorted.
///
/// Follows each parent chain once (colouring: unseen, on the current walk,
/// done), so the whole check is linear in the number of domains. A walk
/// that meets itself has found a cycle, reported once at its first member
/// in model order.
fn cycle_starts(domains: &[Domain]) -> Vec<usize> {
    let mut state = vec![Walk::Unseen; domains.len()];
    let mut cycles: Vec<usize> = Vec::new();
    for start in 0..domains.len() {
        let mut path = Vec::new();
        let mut at = Some(DomainId(start));
        while let Some(DomainId(next)) = at {
            match state[next] {
                Walk::Done => break,
                Walk::OnPath => {
                    let from = path.iter().position(|&p| p == next).unwrap_or(0);
                    cycles.extend(path[from..].iter().copied().min());
                    break;
                }
                Walk::Unseen => {
                    state[next] = Walk::OnPath;
                    path.push(next);
                    at = domains[next].parent;
                }
            }
        }
        for p in path {
            state[p] = Walk::Done;
        }
    }
    cycles.sort_unstable();
    cycles
}

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
            fields: Fields::new(RawDomain::KEYS, &domain.keys),
        })
        .collect();
    let cycles = cycle_starts(&domains);
    for &start in &cycles {
        let mut chain = vec![start];
        let mut at = domains[start].parent;
        while let Some(DomainId(next)) = at.filter(|d| d.0 != start) {
            chain.push(next);
            at = domains[next].parent;
        }
        let shown = chain.len().min(MAX_CYCLE_SHOWN);
        let mut names: Vec<String> = chain[..shown]
            .iter()
            .map(|&i| domains[i].name.clone())
            .collect();
        if shown < chain.len() {
            names.push(format!("… ({} more)", chain.len() - shown));
        }
        names.push(domains[start].name.clone());
        let link = |i: usize| domains[i].fields.get("in").unwrap_or(domains[i].span);
        let others = chain[1..shown].iter().map(|&i| link(i)).collect();
        cx.report(Problem::domain_cycle(link(start), &names, others));
    }
    if !cycles.is_empty() {
        for domain in &mut domains {
            domain.parent = None;
        }
        return domains;
    }
    // Depth of each domain (parents first, memoised), so that every
    // domain's ancestor list stays short and the lists linear in total.
    let mut depth: Vec<Option<usize>> = vec![None; domains.len()];
    for start in 0..domains.len() {
        let mut path = Vec::new();
        let mut at = Some(DomainId(start));
        let mut base = 0;
        while let Some(DomainId(next)) = at {
            if let Some(d) = depth[next] {
                base = d + 1;
                break;
            }
            path.push(next);
            at = domains[next].parent;
        }
        for &p in path.iter().rev() {
            depth[p] = Some(base);
            base += 1;
        }
    }
    if let Some(deep) = (0..domains.len()).find(|&i| depth[i].unwrap_or(0) > MAX_DOMAIN_DEPTH) {
        let span = domains[deep].fields.get("in").unwrap_or(domains[deep].span);
        cx.report(Problem::domain_too_deep(
            span,
            &domains[deep].name,
            MAX_DOMAIN_DEPTH,
        ));
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

/// Most domains nested in one another (a region, a zone, a rack, a host:
/// real hierarchies are a handful deep).
pub const MAX_DOMAIN_DEPTH: usize = 64;

/// Most members of a cycle named in its diagnostic.
const MAX_CYCLE_SHOWN: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    Unseen,
    OnPath,
    Done,
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
            fields: Fields::new(RawGroup::KEYS, &group.keys),
        })
        .collect()
}
