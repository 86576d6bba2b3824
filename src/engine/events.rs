//! The correlated events of the availability figure (domains and shared-fate
//! groups that have an `availability`), and how each component's health
//! depends on them.

use crate::model::{ComponentId, DomainId, GroupId, Model};

/// A correlated event: a domain or a group that can fail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// What fails.
    pub subject: Subject,
    /// Probability it is up.
    pub up: f64,
}

/// Something whose failure the figure accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// A component's own instance failures.
    Component(ComponentId),
    /// A failure domain.
    Domain(DomainId),
    /// A shared-fate group.
    Group(GroupId),
}

impl Subject {
    /// The subject's name in the model.
    #[must_use]
    pub fn name(self, model: &Model) -> &str {
        match self {
            Subject::Component(c) => &model.component(c).name,
            Subject::Domain(d) => &model.domain(d).name,
            Subject::Group(g) => &model.group(g).name,
        }
    }
}

/// How one component's health depends on the events (by index into the
/// entrypoint's event list) and on its own instance failures.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// Instances and the events that must all be up for them to run.
    pub entries: Vec<(u32, Vec<usize>)>,
    /// Events of its groups: any one down takes every instance down.
    pub groups: Vec<usize>,
    /// Availability of one instance (1 when not given).
    pub availability: f64,
    /// Instances that must be up.
    pub min_healthy: u32,
    /// Every event it depends on, sorted.
    pub footprint: Vec<usize>,
}

/// The events relevant to a set of components, and each component's leaf.
pub struct EventModel {
    /// The events, in model order (domains, then groups).
    pub events: Vec<Event>,
    /// One leaf per component of the set, in the same order.
    pub leaves: Vec<Leaf>,
}

/// Collects the events that can affect `components`.
#[must_use]
pub fn collect(model: &Model, components: &[ComponentId]) -> EventModel {
    let mut domain_event: Vec<Option<usize>> = vec![None; model.domains.len()];
    let mut group_event: Vec<Option<usize>> = vec![None; model.groups.len()];
    let mut relevant_domains = vec![false; model.domains.len()];
    let mut relevant_groups = vec![false; model.groups.len()];
    for &c in components {
        let component = model.component(c);
        for &(d, _) in &component.placement {
            relevant_domains[d.0] = true;
            for a in &model.domain(d).ancestors {
                relevant_domains[a.0] = true;
            }
        }
        for g in &component.shares {
            relevant_groups[g.0] = true;
        }
    }
    let mut events = Vec::new();
    for (index, domain) in model.domains.iter().enumerate() {
        if let Some(up) = domain
            .availability
            .filter(|&a| relevant_domains[index] && a < 1.0)
        {
            domain_event[index] = Some(events.len());
            events.push(Event {
                subject: Subject::Domain(DomainId(index)),
                up,
            });
        }
    }
    for (index, group) in model.groups.iter().enumerate() {
        if let Some(up) = group
            .availability
            .filter(|&a| relevant_groups[index] && a < 1.0)
        {
            group_event[index] = Some(events.len());
            events.push(Event {
                subject: Subject::Group(GroupId(index)),
                up,
            });
        }
    }
    let leaves = components
        .iter()
        .map(|&c| {
            let component = model.component(c);
            let mut entries: Vec<(u32, Vec<usize>)> = component
                .placement
                .iter()
                .map(|&(d, count)| {
                    let mut needs: Vec<usize> = std::iter::once(d)
                        .chain(model.domain(d).ancestors.iter().copied())
                        .filter_map(|x| domain_event[x.0])
                        .collect();
                    needs.sort_unstable();
                    (count, needs)
                })
                .collect();
            if entries.is_empty() {
                entries.push((component.instances, Vec::new()));
            }
            let mut groups: Vec<usize> = component
                .shares
                .iter()
                .filter_map(|g| group_event[g.0])
                .collect();
            groups.sort_unstable();
            groups.dedup();
            let mut footprint: Vec<usize> = entries
                .iter()
                .flat_map(|(_, e)| e.iter().copied())
                .chain(groups.iter().copied())
                .collect();
            footprint.sort_unstable();
            footprint.dedup();
            Leaf {
                entries,
                groups,
                availability: component.availability.unwrap_or(1.0),
                min_healthy: component.min_healthy,
                footprint,
            }
        })
        .collect();
    EventModel { events, leaves }
}

impl Leaf {
    /// Probability the component is healthy given which events are down;
    /// with `perfect`, its instances never fail on their own.
    pub fn probability(&self, down: impl Fn(usize) -> bool, perfect: bool) -> f64 {
        if self.groups.iter().any(|&g| down(g)) {
            return 0.0;
        }
        let running: u64 = self
            .entries
            .iter()
            .filter(|(_, needs)| !needs.iter().any(|&e| down(e)))
            .map(|&(count, _)| u64::from(count))
            .sum();
        let availability = if perfect { 1.0 } else { self.availability };
        at_least(running, u64::from(self.min_healthy), availability)
    }
}

/// Terms summed directly before the tail is taken from the incomplete beta
/// function instead.
const DIRECT_TERMS: u64 = 1_000;

/// `P(X ≥ k)` for `X ~ Binomial(n, p)`. With few terms, one minus the lower
/// tail summed term by term (k is `min_healthy`, small in practice); with
/// thousands, the regularized incomplete beta function
/// `P(X ≥ k) = I_p(k, n − k + 1)`, so a fleet of millions costs the same.
#[must_use]
pub fn at_least(n: u64, k: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if n < k {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    if p <= 0.0 {
        return 0.0;
    }
    let q = 1.0 - p;
    if k == n {
        return p.powf(n as f64);
    }
    if k > DIRECT_TERMS {
        return statrs::function::beta::checked_beta_reg(k as f64, (n - k + 1) as f64, p)
            .unwrap_or(0.0)
            .clamp(0.0, 1.0);
    }
    // term(j) = C(n, j) p^j q^(n−j); start from j = 0 in log space.
    let mut log_term = (n as f64) * q.ln();
    let mut lower = 0.0;
    for j in 0..k {
        lower += log_term.exp();
        let j = j as f64;
        log_term += ((n as f64) - j).ln() - (j + 1.0).ln() + p.ln() - q.ln();
    }
    (1.0 - lower).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tails_match_hand_figures() {
        // 1 of 3 at 0.99: 1 − 0.01³ = 0.999999
        assert!((at_least(3, 1, 0.99) - 0.999_999).abs() < 1e-15);
        // 2 of 3 at 0.9: 0.972
        assert!((at_least(3, 2, 0.9) - 0.972).abs() < 1e-12);
        // 3 of 3 at 0.999: 0.999³ = 0.997002999
        assert!((at_least(3, 3, 0.999) - 0.997_002_999).abs() < 1e-15);
        assert!((at_least(2, 3, 0.9)).abs() < 1e-15);
        // Past the direct sum the incomplete beta gives the same tail:
        // 1500 of 3000 at 50% is just over one half (the median term counts).
        let direct: f64 = {
            // Symmetry: P(X ≥ 1500) = (1 + P(X = 1500)) / 2 for n = 3000, p = 0.5;
            // P(X = 1500) = C(3000, 1500) / 2^3000 ≈ 0.014566.
            f64::midpoint(1.0, 0.014_566)
        };
        assert!(
            (at_least(3000, 1500, 0.5) - direct).abs() < 1e-5,
            "{}",
            at_least(3000, 1500, 0.5)
        );
        // A fleet of four billion needing three billion at 80%: certain, and instant.
        assert!((at_least(4_000_000_000, 3_000_000_000, 0.8) - 1.0).abs() < 1e-12);
    }
}
