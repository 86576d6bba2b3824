//! The correlated events of the availability figure (domains and shared-fate
//! groups that have an `availability`), and how each component's health
//! depends on them.

use crate::model::{ComponentId, DomainId, GroupId, Model, Pseudo};

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
    /// Per entry, the folded events (indices into
    /// [`EventModel::folded`]) that must also be up: domains that hold this
    /// entry and nothing else, integrated into the leaf instead of
    /// conditioned on.
    pub private: Vec<Vec<usize>>,
    /// What the leaf's health stands for when it is not "at least
    /// `min_healthy` up" (a component of the capacity compilation), with
    /// the capacity of one instance for a share.
    pub pseudo: Option<(Pseudo, f64)>,
}

/// The events relevant to a set of components, and each component's leaf.
#[derive(Debug, Clone)]
pub struct EventModel {
    /// The events conditioned on, in model order (domains, then groups).
    pub events: Vec<Event>,
    /// Events folded into a single leaf's entry (see [`Leaf::private`]).
    pub folded: Vec<Event>,
    /// One leaf per component of the set, in the same order.
    pub leaves: Vec<Leaf>,
}

/// Above this many events, domains that hold a single entry of a single
/// component are folded into that component instead of conditioned on.
/// (Below it every state is enumerated anyway, and folding would only
/// change the order of floating-point sums.)
pub const FOLD_ABOVE: usize = 14;

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
                private: vec![Vec::new(); entries.len()],
                entries,
                groups,
                availability: component.availability.unwrap_or(1.0),
                min_healthy: component.min_healthy,
                footprint,
                pseudo: component
                    .pseudo
                    .map(|p| (p, component.capacity.map_or(0.0, |c| c.per_instance))),
            }
        })
        .collect();
    let model = EventModel {
        events,
        folded: Vec::new(),
        leaves,
    };
    if model.events.len() > FOLD_ABOVE {
        fold(model)
    } else {
        model
    }
}

/// Moves every domain event that holds exactly one entry of one leaf (and
/// appears nowhere else) out of the conditioned events and into that entry.
/// Given the other events, such an event is independent of everything but
/// its entry, so integrating it there is exact and removes a factor of two
/// from the number of states.
fn fold(mut model: EventModel) -> EventModel {
    let mut uses = vec![0usize; model.events.len()];
    for leaf in &model.leaves {
        for (_, needs) in &leaf.entries {
            for &e in needs {
                uses[e] += 1;
            }
        }
        for &g in &leaf.groups {
            uses[g] += 2; // groups are never folded
        }
    }
    let foldable: Vec<bool> = model
        .events
        .iter()
        .zip(&uses)
        .map(|(e, &n)| n == 1 && matches!(e.subject, Subject::Domain(_)))
        .collect();
    let mut new_index = vec![usize::MAX; model.events.len()];
    let mut folded_index = vec![usize::MAX; model.events.len()];
    let mut kept = Vec::new();
    for (i, event) in model.events.iter().enumerate() {
        if foldable[i] {
            folded_index[i] = model.folded.len();
            model.folded.push(*event);
        } else {
            new_index[i] = kept.len();
            kept.push(*event);
        }
    }
    model.events = kept;
    for leaf in &mut model.leaves {
        for (entry, (_, needs)) in leaf.entries.iter_mut().enumerate() {
            leaf.private[entry] = needs
                .iter()
                .filter(|&&e| foldable[e])
                .map(|&e| folded_index[e])
                .collect();
            needs.retain(|&e| !foldable[e]);
            for e in needs.iter_mut() {
                *e = new_index[*e];
            }
        }
        for g in &mut leaf.groups {
            *g = new_index[*g];
        }
        leaf.footprint = leaf
            .entries
            .iter()
            .flat_map(|(_, e)| e.iter().copied())
            .chain(leaf.groups.iter().copied())
            .collect();
        leaf.footprint.sort_unstable();
        leaf.footprint.dedup();
    }
    model
}

/// The probability that at least `k` of independent events with the given
/// probabilities hold (the Poisson-binomial tail), in `O(n × k)` with one
/// row of `k + 1` reused from call to call.
pub fn tail(k: usize, p: impl Iterator<Item = f64>, row: &mut Vec<f64>) -> f64 {
    if k == 0 {
        return 1.0;
    }
    // row[j] = P(exactly j held so far) for j < k; row[k] = P(at least k).
    row.clear();
    row.resize(k + 1, 0.0);
    row[0] = 1.0;
    for pi in p {
        row[k] += row[k - 1] * pi;
        for j in (1..k).rev() {
            row[j] = row[j] * (1.0 - pi) + row[j - 1] * pi;
        }
        row[0] *= 1.0 - pi;
    }
    row[k]
}

/// The buffers of [`Leaf::healthy_in`]: the distribution of running
/// instances (count, probability) and the next one.
#[derive(Debug, Default)]
pub struct Running {
    running: Vec<(u64, f64)>,
    next: Vec<(u64, f64)>,
}

impl Running {
    /// Entries the larger of its two buffers can hold.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.running.capacity().max(self.next.capacity())
    }
}

impl Leaf {
    /// Probability the component is healthy given which conditioned events
    /// are down, integrating its folded events (`folded` gives their up
    /// probabilities); with `perfect`, its instances never fail on their own.
    pub fn healthy(&self, down: impl Fn(usize) -> bool, folded: &[Event], perfect: bool) -> f64 {
        self.healthy_in(down, folded, perfect, &mut Running::default())
    }

    /// [`Leaf::healthy`] with the distribution of running instances kept in
    /// `running`, reused from call to call (a leaf with folded events is
    /// evaluated per state when it is too wide to table; it then allocates
    /// nothing).
    pub fn healthy_in(
        &self,
        down: impl Fn(usize) -> bool,
        folded: &[Event],
        perfect: bool,
        buffers: &mut Running,
    ) -> f64 {
        let availability = if perfect { 1.0 } else { self.availability };
        match self.pseudo {
            None => self.count_healthy(&down, folded, perfect, buffers, self.min_healthy),
            Some((Pseudo::Band { below }, _)) => {
                let from = self.count_healthy(&down, folded, perfect, buffers, self.min_healthy);
                let above = self.count_healthy(&down, folded, perfect, buffers, below);
                band(from, above)
            }
            Some((Pseudo::Share { load, limit, sheds }, per_instance)) => {
                let k = u64::from(self.min_healthy);
                let serving = Serving {
                    per_instance,
                    load,
                    limit,
                    sheds,
                };
                self.mix(&down, folded, buffers, |m| {
                    serving.expected(m, k, availability)
                })
            }
        }
    }

    /// The probability that at least `k` instances are up, given which
    /// conditioned events are down (integrating the folded ones).
    fn count_healthy(
        &self,
        down: &impl Fn(usize) -> bool,
        folded: &[Event],
        perfect: bool,
        buffers: &mut Running,
        k: u32,
    ) -> f64 {
        if self.private.iter().all(Vec::is_empty) {
            return self.probability(down, perfect, k);
        }
        let availability = if perfect { 1.0 } else { self.availability };
        self.mix(down, folded, buffers, |m| {
            at_least(m, u64::from(k), availability)
        })
    }

    /// `Σ P(m running) × f(m)` over the distribution of running instances
    /// (outside the lost domains, folded domains integrated), 0 when a
    /// group is down.
    fn mix(
        &self,
        down: &impl Fn(usize) -> bool,
        folded: &[Event],
        buffers: &mut Running,
        f: impl Fn(u64) -> f64,
    ) -> f64 {
        if self.groups.iter().any(|&g| down(g)) {
            return 0.0;
        }
        // The distribution of running instances, entry by entry: an entry
        // whose folded domains are all up (probability Π up) adds its count.
        let Running { running, next } = buffers;
        running.clear();
        running.push((0, 1.0));
        for ((count, needs), private) in self.entries.iter().zip(&self.private) {
            if needs.iter().any(|&e| down(e)) {
                continue;
            }
            let up: f64 = private.iter().map(|&f| folded[f].up).product();
            next.clear();
            for &(m, p) in running.iter() {
                next.push((m + u64::from(*count), p * up));
                if up < 1.0 {
                    next.push((m, p * (1.0 - up)));
                }
            }
            next.sort_by_key(|&(m, _)| m);
            next.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            std::mem::swap(running, next);
        }
        running
            .iter()
            .map(|&(m, p)| p * f(m))
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }

    /// Probability the component is *not* healthy given which conditioned
    /// events are down: `1 − healthy`, computed in failure space so that a
    /// failure of 1e-20 is not lost next to 1 (see [`below`]).
    pub fn failing(&self, down: impl Fn(usize) -> bool, folded: &[Event]) -> f64 {
        self.failing_in(down, folded, &mut Running::default())
    }

    /// [`Leaf::failing`] with reused buffers (see [`Leaf::healthy_in`]).
    pub fn failing_in(
        &self,
        down: impl Fn(usize) -> bool,
        folded: &[Event],
        buffers: &mut Running,
    ) -> f64 {
        match self.pseudo {
            None => self.count_failing(&down, folded, buffers, self.min_healthy),
            Some((Pseudo::Band { below }, _)) => {
                // 1 − (H(k) − H(b)) / (1 − H(b)) = F(k) / F(b), F = 1 − H.
                let from = self.count_failing(&down, folded, buffers, self.min_healthy);
                let above = self.count_failing(&down, folded, buffers, below);
                if above > 0.0 {
                    (from / above).clamp(0.0, 1.0)
                } else {
                    1.0
                }
            }
            Some((Pseudo::Share { .. }, _)) => 1.0 - self.healthy_in(down, folded, false, buffers),
        }
    }

    /// The probability that fewer than `k` instances are up, in failure
    /// space.
    fn count_failing(
        &self,
        down: &impl Fn(usize) -> bool,
        folded: &[Event],
        buffers: &mut Running,
        k: u32,
    ) -> f64 {
        if self.groups.iter().any(|&g| down(g)) {
            return 1.0;
        }
        let k = u64::from(k);
        if self.private.iter().all(Vec::is_empty) {
            let running: u64 = self
                .entries
                .iter()
                .filter(|(_, needs)| !needs.iter().any(|&e| down(e)))
                .map(|&(count, _)| u64::from(count))
                .sum();
            return below(running, k, self.availability);
        }
        // The distribution of running instances as in `mix`, each
        // count weighted by its failure; an entry's folded domains are
        // down with probability 1 − Π up, taken as −expm1(Σ ln up).
        let Running { running, next } = buffers;
        running.clear();
        running.push((0, 1.0));
        for ((count, needs), private) in self.entries.iter().zip(&self.private) {
            if needs.iter().any(|&e| down(e)) {
                continue;
            }
            let log_up: f64 = private
                .iter()
                .map(|&f| (-(1.0 - folded[f].up)).ln_1p())
                .sum();
            let (up, gone) = (log_up.exp(), -log_up.exp_m1());
            next.clear();
            for &(m, p) in running.iter() {
                next.push((m + u64::from(*count), p * up));
                if gone > 0.0 {
                    next.push((m, p * gone));
                }
            }
            next.sort_by_key(|&(m, _)| m);
            next.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            std::mem::swap(running, next);
        }
        running
            .iter()
            .map(|&(m, p)| p * below(m, k, self.availability))
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }

    /// Probability at least `k` instances are up given which events are
    /// down, when it has no folded events; with `perfect`, its instances
    /// never fail on their own.
    fn probability(&self, down: &impl Fn(usize) -> bool, perfect: bool, k: u32) -> f64 {
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
        at_least(running, u64::from(k), availability)
    }
}

/// The chance that a component with `reachable` instances in domains that
/// are up is healthy on its own: at least `min_healthy` of them up, or for
/// a band of the capacity compilation, the band given the bands above
/// (what the Monte Carlo draws per trial).
#[must_use]
pub fn count_chance(
    reachable: u64,
    min_healthy: u32,
    availability: f64,
    pseudo: Option<Pseudo>,
) -> f64 {
    let from = at_least(reachable, u64::from(min_healthy), availability);
    match pseudo {
        Some(Pseudo::Band { below }) => {
            band(from, at_least(reachable, u64::from(below), availability))
        }
        _ => from,
    }
}

/// The probability of a band `[k, b)` of a count given that the count is
/// below `b`: `(H(k) − H(b)) / (1 − H(b))` from the tails `H`; 0 when the
/// count is certainly at least `b` (the band above holds).
fn band(from: f64, above: f64) -> f64 {
    if above >= 1.0 {
        return 0.0;
    }
    ((from - above) / (1.0 - above)).clamp(0.0, 1.0)
}

/// What a shedding or rate-limited component serves of its load.
struct Serving {
    per_instance: f64,
    load: f64,
    limit: f64,
    sheds: bool,
}

impl Serving {
    /// The share served with `n` instances up: what its instances and its
    /// rate limit carry, over its load; nothing past its capacity when it
    /// does not shed (it collapses).
    fn share(&self, n: u64) -> f64 {
        if self.load <= 0.0 {
            return 1.0;
        }
        let capacity = if self.per_instance > 0.0 {
            n as f64 * self.per_instance
        } else {
            f64::INFINITY
        };
        if !self.sheds && capacity * (1.0 + 1e-12) < self.load {
            return 0.0;
        }
        (capacity.min(self.limit) / self.load).min(1.0)
    }

    /// `E[share(n)]` over `n ~ Binomial(m, p)` counted from `k` up (fewer
    /// than `k` up serve nothing): term by term below the count that
    /// carries the load, the tail from there.
    fn expected(&self, m: u64, k: u64, p: f64) -> f64 {
        let full = if self.per_instance > 0.0 {
            // From this count up the share is constant: the limit (or all)
            // for a shedding one, and for one that collapses, from the
            // count that carries its whole load.
            let carried = if self.sheds {
                self.load.min(self.limit)
            } else {
                self.load
            };
            let needed = (carried / self.per_instance).ceil();
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "clamped to m + 1"
            )]
            let full = needed.clamp(0.0, (m + 1) as f64) as u64;
            full
        } else {
            0
        };
        let from = full.max(k);
        let mut served = if from <= m {
            at_least(m, from, p) * self.share(m)
        } else {
            0.0
        };
        for n in k..from.min(m + 1) {
            served += pmf(m, n, p) * self.share(n);
        }
        served.clamp(0.0, 1.0)
    }
}

/// `P(X = n)` for `X ~ Binomial(m, p)`, by logarithms.
fn pmf(m: u64, n: u64, p: f64) -> f64 {
    if n > m {
        return 0.0;
    }
    if p <= 0.0 {
        return if n == 0 { 1.0 } else { 0.0 };
    }
    if p >= 1.0 {
        return if n == m { 1.0 } else { 0.0 };
    }
    let (m, n) = (m as f64, n as f64);
    let ln = statrs::function::gamma::ln_gamma(m + 1.0)
        - statrs::function::gamma::ln_gamma(n + 1.0)
        - statrs::function::gamma::ln_gamma(m - n + 1.0)
        + n * p.ln()
        + (m - n) * (-p).ln_1p();
    ln.exp()
}

/// Terms summed directly before the tail is taken from the incomplete beta
/// function instead.
const DIRECT_TERMS: u64 = 1_000;

/// `P(X ≥ k)` for `X ~ Binomial(n, p)`. With few terms, one minus the lower
/// tail summed term by term (k is `min_healthy`, small in practice); with
/// thousands, the regularized incomplete beta function
/// `P(X ≥ k) = I_p(k, n − k + 1)`, so a fleet of millions costs the same.
/// The beta's continued fraction runs to convergence (`engine::beta`):
/// `statrs`'s stops at 140 terms, and near the middle of a large fleet
/// that is too few (half of 200,000 at 50% was off by 3e-7, of a million
/// by 1.2e-3, of two million by 8.6e-3).
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
        return super::beta::regularized(k as f64, (n - k + 1) as f64, p).clamp(0.0, 1.0);
    }
    (1.0 - lower_tail(n, k, p, q)).clamp(0.0, 1.0)
}

/// `P(X < k)` summed term by term, `term(j) = C(n, j) p^j q^(n−j)` from
/// j = 0 in log space: the direct branch of [`at_least`] and [`below`].
fn lower_tail(n: u64, k: u64, p: f64, q: f64) -> f64 {
    let mut log_term = (n as f64) * q.ln();
    let mut lower = 0.0;
    for j in 0..k {
        lower += log_term.exp();
        let j = j as f64;
        log_term += ((n as f64) - j).ln() - (j + 1.0).ln() + p.ln() - q.ln();
    }
    lower
}

/// `P(X < k)` for `X ~ Binomial(n, p)`: the complement of [`at_least`],
/// summed directly (the lower tail term by term; `1 − p^n` as
/// `−expm1(n ln p)` when every instance is needed), so that a failure
/// probability of 1e-30 keeps its digits instead of vanishing next to 1.
#[must_use]
pub fn below(n: u64, k: u64, p: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    if n < k {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    if p <= 0.0 {
        return 1.0;
    }
    let q = 1.0 - p;
    if k == n {
        return (-((n as f64) * (-q).ln_1p()).exp_m1()).clamp(0.0, 1.0);
    }
    if k > DIRECT_TERMS {
        return (1.0 - super::beta::regularized(k as f64, (n - k + 1) as f64, p)).clamp(0.0, 1.0);
    }
    lower_tail(n, k, p, q).clamp(0.0, 1.0)
}

/// The probability that fewer than `k` of independent events hold, each
/// given as (probability it holds, probability it does not): the
/// complement of [`tail`], from the same row of counts, exact in relative
/// terms however small.
pub fn tail_failure(k: usize, pu: impl Iterator<Item = (f64, f64)>, row: &mut Vec<f64>) -> f64 {
    if k == 0 {
        return 0.0;
    }
    // row[j] = P(exactly j held so far) for j < k; row[k] = P(at least k).
    row.clear();
    row.resize(k + 1, 0.0);
    row[0] = 1.0;
    for (pi, ui) in pu {
        row[k] += row[k - 1] * pi;
        for j in (1..k).rev() {
            row[j] = row[j] * ui + row[j - 1] * pi;
        }
        row[0] *= ui;
    }
    row[..k].iter().sum::<f64>().clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_tails_keep_their_digits_next_to_one() {
        // 1 of 3 at 99%: 0.01³ = 1e-6 (0.99 is 0.01 × (1 + 9e-16) short of
        // 1 in binary, so to 1e-14 relative).
        assert!((below(3, 1, 0.99) / 1e-6 - 1.0).abs() < 1e-14);
        // 1 of 10 at 99%: 0.01^10 = 1e-20, where 1 − at_least gives 0.
        assert!((below(10, 1, 0.99) / 1e-20 - 1.0).abs() < 1e-13);
        assert!((1.0 - at_least(10, 1, 0.99)).to_bits() == 0.0_f64.to_bits());
        // 3 of 3 at 99.9%: 1 − 0.999³ = 0.002997001; 2 of 3 at 90%: 0.028.
        assert!((below(3, 3, 0.999) - 0.002_997_001).abs() < 1e-16);
        assert!((below(3, 2, 0.9) - 0.028).abs() < 1e-15);
        assert!(below(3, 0, 0.5).abs() < 1e-300 && (below(2, 3, 0.9) - 1.0).abs() < 1e-300);
        // At least 2 of 3 items that each fail with 1e-10: fewer than 2
        // hold when two or three fail, 3u²(1 − u) + u³ = 3e-20 − 2e-30.
        let u = 1e-10;
        let lost = tail_failure(2, std::iter::repeat_n((1.0 - u, u), 3), &mut Vec::new());
        assert!((lost / 3e-20 - 1.0).abs() < 1e-9, "{lost:e}");
        // And it is the complement of the tail where both can be told apart:
        // 2 of 3 at 90%: 1 − 0.972 = 0.028.
        let lost = tail_failure(2, std::iter::repeat_n((0.9, 0.1), 3), &mut Vec::new());
        assert!((lost - 0.028).abs() < 1e-15);
    }

    #[test]
    fn a_leaf_fails_in_failure_space_with_and_without_folded_zones() {
        // Three instances at 99%, one needed, one per zone: with zone 0
        // down, 0.01² = 1e-4; none down, 1e-6; all down, 1.
        let leaf = Leaf {
            entries: vec![(1, vec![0]), (1, vec![1]), (1, vec![2])],
            groups: Vec::new(),
            availability: 0.99,
            min_healthy: 1,
            footprint: vec![0, 1, 2],
            private: vec![Vec::new(); 3],
            pseudo: None,
        };
        assert!((leaf.failing(|e| e == 0, &[]) / 1e-4 - 1.0).abs() < 1e-14);
        assert!((leaf.failing(|_| false, &[]) / 1e-6 - 1.0).abs() < 1e-14);
        assert!((leaf.failing(|_| true, &[]) - 1.0).abs() < 1e-15);
        // The same three entries each in a folded 99.9% zone, no event:
        // an instance runs with 0.999 × 0.99, so all three fail with
        // (1 − 0.98901)³ = 0.01099³ = 1.327373299e-6.
        let folded = Leaf {
            entries: vec![(1, Vec::new()); 3],
            footprint: Vec::new(),
            private: vec![vec![0], vec![1], vec![2]],
            ..leaf
        };
        let zone = Event {
            subject: Subject::Domain(DomainId(0)),
            up: 0.999,
        };
        let u = folded.failing(|_| false, &[zone; 3]);
        assert!((u / 0.010_99_f64.powi(3) - 1.0).abs() < 1e-12, "{u:e}");
        let h = folded.healthy(|_| false, &[zone; 3], false);
        assert!((h + u - 1.0).abs() < 1e-15);
    }

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
        // Tails of millions by the converged incomplete beta, against sums of
        // the binomial terms in 40-digit arithmetic (mpmath). Half of two
        // million at 50%: by symmetry (1 + C(2e6, 1e6) / 2^2e6) / 2
        // ≈ 0.5 + 0.5 / √(π × 10^6) = 0.5 + 0.000282095; statrs's
        // incomplete beta (140 terms) gave 0.491650, below one half.
        let tail = at_least(2_000_000, 1_000_000, 0.5);
        assert!((tail - 0.500_282_094_756_512).abs() < 1e-8, "{tail}");
        // Half of a million: 0.5 + 0.5 / √(π × 5 × 10^5) = 0.500398942
        // (statrs: 0.499206).
        let tail = at_least(1_000_000, 500_000, 0.5);
        assert!((tail - 0.500_398_942_180_666).abs() < 1e-8, "{tail}");
        // Off the middle: 999,000 of a million at 99.9% (mean 999,000,
        // σ = √999 ≈ 31.6, so just over one half).
        let tail = at_least(1_000_000, 999_000, 0.999);
        assert!((tail - 0.508_409_368_220_765).abs() < 1e-8, "{tail}");
        // A fleet of four billion needing three billion at 80%: certain, and instant.
        assert!((at_least(4_000_000_000, 3_000_000_000, 0.8) - 1.0).abs() < 1e-12);
    }
}
