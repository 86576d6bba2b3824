//! Monte Carlo over the same events as the exact figure: a separate check,
//! never the main figure. Each trial draws every domain, group and instance
//! failure independently, then asks which entrypoints are up.
//!
//! Trials are bit-parallel: 64 trials share one `u64` per component, bit `i`
//! being trial `i`. Each domain and group is drawn once per 64 trials as a
//! word of "down" bits; each component's local health (enough instances up,
//! outside the lost domains, none of its groups fired) is one word drawn
//! against the binomial tail of its instances; gates are bitwise: required
//! dependencies AND, `any_of` OR, `at_least: k` a bit-sliced counter compared
//! with `k`. Cycles of required edges take the greatest fixed point, as in
//! [`super::scenario`]: the words of a cycle start at the members' local
//! health and are re-evaluated until none changes.
//!
//! A word of 64 independent `Bernoulli(p)` bits costs about 7 random words,
//! whatever `p`: a uniform 64-bit fraction is compared with `p` bit by bit
//! from the top, for 64 trials at once, and a trial is decided at the first
//! bit where the two differ (half of the undecided trials each step).
//!
//! Trials run in chunks of [`CHUNK`] (a multiple of 64); chunk `i` draws from
//! a `ChaCha8` stream seeded with the run's seed and stream number `i`, so
//! the counts, and the interval, are the same whatever the number of threads.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rand::SeedableRng as _;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::model::{ComponentId, EdgeKind, Model};

mod interval;
mod words;

pub use interval::interval;
use words::{Chance, Gate};

/// Trials per `u64` word.
pub const LANES: u64 = 64;

/// Trials per chunk (the unit of parallel work and of progress): 16 words,
/// so that even 10,000 trials split into ten chunks across the cores.
pub const CHUNK: u64 = 1024;

/// The most trials one run may ask for: 10^8 trials of a small model take
/// about a minute and a half on one loaded core of the reference machine
/// (10^7 of `models/web-shop.yaml`: 10.5 s); beyond that, the analytic
/// figure is the check.
pub const MAX_TRIALS: u64 = 100_000_000;

/// Most component-trials (trials × [`size`]) one run performs: a few
/// seconds of one core at the bit-parallel rate (about 1 ns each on a
/// hostile wide gate, far less on ordinary models).
pub const MAX_WORK: u64 = 5_000_000_000;

/// What one trial costs: every component, dependency link, placement
/// entry, domain (with its enclosing domains), shared-fate group and group
/// membership is drawn or evaluated once per trial at most.
#[must_use]
pub fn size(model: &Model) -> u64 {
    let per_component: usize = model
        .components
        .iter()
        .map(|c| {
            1 + c.depends_on.iter().map(|e| e.targets.len()).sum::<usize>()
                + c.placement.len()
                + c.shares.len()
        })
        .sum();
    let domains: usize = model.domains.iter().map(|d| 1 + d.ancestors.len()).sum();
    (per_component + domains + model.groups.len()) as u64
}

/// The components one trial samples: those the entrypoints reach through
/// required edges (the others are never drawn). Throughput figures count
/// these.
#[must_use]
pub fn sampled_components(model: &Model) -> usize {
    Plan::new(model).locals.len()
}

/// The chunks a run of `trials` trials is split into: the units the threads
/// share, so even a run of 10,000 trials keeps ten of them apart.
#[must_use]
pub fn chunks(trials: u64) -> u64 {
    trials.div_ceil(CHUNK)
}

/// The trials a run of `requested` trials performs on `model`: all of
/// them up to [`MAX_WORK`] component-trials, else as many whole chunks as
/// fit (at least one).
#[must_use]
pub fn affordable_trials(model: &Model, requested: u64) -> u64 {
    let fit = (MAX_WORK / size(model).max(1)) / CHUNK * CHUNK;
    requested.min(fit.max(CHUNK))
}

/// Failures an entrypoint must show before its interval means anything.
pub const MIN_FAILURES: u64 = 10;

/// Down counts per entrypoint over a number of trials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    /// Trials run.
    pub trials: u64,
    /// For each entrypoint (model order), the trials in which it was down.
    pub down: Vec<(ComponentId, u64)>,
}

/// The model a simulation of `model` samples: its request pools counted as
/// the capacities they stand for, and each component's capacity need
/// compiled, so that a trial's movers set its need as in the analytic
/// figure (docs/availability.md).
#[must_use]
pub fn sampled_model(model: &Model) -> Model {
    let limited = crate::engine::throughput::limited(model);
    let counted = limited.as_ref().unwrap_or(model);
    let compiled = crate::engine::capacity::compile_with(counted, false, false);
    if compiled.is_structural() {
        counted.clone()
    } else {
        compiled.model
    }
}

/// Runs exactly `trials` trials from `seed`; `progress` is called with the
/// trials done after each chunk.
pub fn simulate(
    model: &Model,
    trials: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Simulation {
    let plan = Plan::new(model);
    let counts = (0..chunks(trials))
        .into_par_iter()
        .map_init(
            || Scratch::new(&plan),
            |scratch, chunk| {
                let in_chunk = CHUNK.min(trials - chunk * CHUNK);
                let counts = plan.run_chunk(scratch, seed, chunk, in_chunk);
                progress(in_chunk);
                counts
            },
        )
        .reduce(
            || vec![0u64; plan.entrypoints.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    Simulation {
        trials,
        down: model.entrypoints.iter().copied().zip(counts).collect(),
    }
}

/// How a component's own health is drawn.
#[derive(Debug, Clone)]
enum Health {
    /// Placed nowhere: the same chance every trial.
    Fixed(Chance),
    /// Placed in domains: `full` when all of them are up; otherwise the
    /// binomial tail over the instances whose domains are up.
    Placed {
        placement: Vec<(usize, u32)>,
        full: Chance,
        min_healthy: u32,
        availability: f64,
        pseudo: Option<crate::model::Pseudo>,
    },
}

#[derive(Debug, Clone)]
struct Local {
    component: usize,
    groups: Vec<usize>,
    health: Health,
}

/// One step of the evaluation, dependencies first.
#[derive(Debug, Clone)]
enum Step {
    One(usize),
    /// A cycle of required edges: iterated to its greatest fixed point.
    Cycle(Vec<usize>),
}

/// What a run evaluates, built once: the chances of every event, and the
/// components the entrypoints need, in dependency order.
#[derive(Debug, Clone)]
struct Plan {
    domains: Vec<Chance>,
    ancestors: Vec<Vec<usize>>,
    groups: Vec<Chance>,
    locals: Vec<Local>,
    gates: Vec<Vec<Gate>>,
    steps: Vec<Step>,
    entrypoints: Vec<usize>,
}

/// Per-thread buffers (their contents never carry from one chunk to the
/// next, except the memo of pure functions).
struct Scratch {
    own: Vec<u64>,
    lost: Vec<u64>,
    fired: Vec<u64>,
    local: Vec<u64>,
    up: Vec<u64>,
    planes: Vec<u64>,
    classes: Vec<(u64, u64)>,
    /// Per local, the chance of enough instances for each reachable count seen.
    memo: Vec<Vec<(u64, Chance)>>,
}

impl Scratch {
    fn new(plan: &Plan) -> Self {
        let components = plan.gates.len();
        Self {
            own: vec![0; plan.domains.len()],
            lost: vec![0; plan.domains.len()],
            fired: vec![0; plan.groups.len()],
            local: vec![0; components],
            up: vec![0; components],
            planes: Vec::new(),
            classes: Vec::new(),
            memo: vec![Vec::new(); plan.locals.len()],
        }
    }
}

impl Plan {
    fn new(model: &Model) -> Self {
        let n = model.components.len();
        let mut gates: Vec<Vec<Gate>> = vec![Vec::new(); n];
        let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (id, c) in model.components.iter().enumerate() {
            for edge in c.depends_on.iter().filter(|e| !e.degradable) {
                let targets: Vec<usize> = edge.targets.iter().map(|t| t.0).collect();
                let k = match edge.kind {
                    EdgeKind::Target => targets.len(),
                    EdgeKind::AnyOf | EdgeKind::AtLeast => edge.at_least as usize,
                };
                deps[id].extend(&targets);
                gates[id].push(Gate { targets, k });
            }
            deps[id].sort_unstable();
            deps[id].dedup();
        }
        let entrypoints: Vec<usize> = model.entrypoints.iter().map(|e| e.0).collect();
        let steps = dependency_order(&deps, &entrypoints);
        let mut needed: Vec<usize> = steps
            .iter()
            .flat_map(|s| match s {
                Step::One(c) => std::slice::from_ref(c),
                Step::Cycle(members) => members.as_slice(),
            })
            .copied()
            .collect();
        needed.sort_unstable();
        let locals = needed
            .into_iter()
            .map(|id| {
                let c = &model.components[id];
                let availability = c.availability.unwrap_or(1.0);
                let min_healthy = c.min_healthy;
                let chance =
                    |n: u64| super::events::count_chance(n, min_healthy, availability, c.pseudo);
                let health = if c.placement.is_empty() {
                    Health::Fixed(Chance::of(chance(u64::from(c.instances))))
                } else {
                    let all: u64 = c.placement.iter().map(|&(_, n)| u64::from(n)).sum();
                    Health::Placed {
                        placement: c.placement.iter().map(|&(d, n)| (d.0, n)).collect(),
                        full: Chance::of(chance(all)),
                        min_healthy,
                        availability,
                        pseudo: c.pseudo,
                    }
                };
                Local {
                    component: id,
                    groups: c.shares.iter().map(|g| g.0).collect(),
                    health,
                }
            })
            .collect();
        let down = |a: Option<f64>| a.map_or(Chance::Never, |a| Chance::of(1.0 - a));
        Self {
            domains: model.domains.iter().map(|d| down(d.availability)).collect(),
            ancestors: model
                .domains
                .iter()
                .map(|d| d.ancestors.iter().map(|a| a.0).collect())
                .collect(),
            groups: model.groups.iter().map(|g| down(g.availability)).collect(),
            locals,
            gates,
            steps,
            entrypoints,
        }
    }

    fn run_chunk(&self, scratch: &mut Scratch, seed: u64, chunk: u64, trials: u64) -> Vec<u64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(chunk);
        let mut counts = vec![0u64; self.entrypoints.len()];
        let mut left = trials;
        while left > 0 {
            let valid = if left >= LANES {
                !0
            } else {
                (1u64 << left) - 1
            };
            left = left.saturating_sub(LANES);
            self.draw(scratch, &mut rng);
            self.evaluate(scratch);
            for (count, &e) in counts.iter_mut().zip(&self.entrypoints) {
                *count += u64::from((!scratch.up[e] & valid).count_ones());
            }
        }
        counts
    }

    /// Draws 64 trials of every event and of every needed component's own
    /// health into `scratch.local`.
    fn draw(&self, s: &mut Scratch, rng: &mut ChaCha8Rng) {
        for (word, chance) in s.own.iter_mut().zip(&self.domains) {
            *word = chance.draw(rng);
        }
        for (d, ancestors) in self.ancestors.iter().enumerate() {
            s.lost[d] = ancestors.iter().fold(s.own[d], |w, &a| w | s.own[a]);
        }
        for (word, chance) in s.fired.iter_mut().zip(&self.groups) {
            *word = chance.draw(rng);
        }
        for (index, local) in self.locals.iter().enumerate() {
            let fired = local.groups.iter().fold(0, |w, &g| w | s.fired[g]);
            let healthy = match &local.health {
                Health::Fixed(chance) => chance.draw(rng),
                Health::Placed {
                    placement,
                    full,
                    min_healthy,
                    availability,
                    pseudo,
                } => {
                    let lost = placement.iter().fold(0, |w, &(d, _)| w | s.lost[d]);
                    let mut healthy = full.draw(rng) & !lost;
                    // Trials with some of its domains down: group them by
                    // the instances left, one draw per distinct count.
                    let mut rest = lost & !fired;
                    s.classes.clear();
                    while rest != 0 {
                        let bit = rest.trailing_zeros();
                        rest &= rest - 1;
                        let reachable: u64 = placement
                            .iter()
                            .filter(|&&(d, _)| s.lost[d] >> bit & 1 == 0)
                            .map(|&(_, n)| u64::from(n))
                            .sum();
                        match s.classes.iter_mut().find(|(r, _)| *r == reachable) {
                            Some((_, mask)) => *mask |= 1 << bit,
                            None => s.classes.push((reachable, 1 << bit)),
                        }
                    }
                    for &(reachable, mask) in &s.classes {
                        let memo = &mut s.memo[index];
                        let chance =
                            if let Some(&(_, c)) = memo.iter().find(|(r, _)| *r == reachable) {
                                c
                            } else {
                                let c = Chance::of(super::events::count_chance(
                                    reachable,
                                    *min_healthy,
                                    *availability,
                                    *pseudo,
                                ));
                                memo.push((reachable, c));
                                c
                            };
                        healthy |= chance.draw(rng) & mask;
                    }
                    healthy
                }
            };
            s.local[local.component] = healthy & !fired;
        }
    }

    /// Which of the 64 trials each needed component is up in, from
    /// `scratch.local`, dependencies first; a cycle starts from its members'
    /// own health and is re-evaluated until nothing changes (the greatest
    /// fixed point).
    fn evaluate(&self, s: &mut Scratch) {
        let Scratch {
            local, up, planes, ..
        } = s;
        let word = |c: usize, up: &[u64], planes: &mut Vec<u64>| {
            self.gates[c].iter().fold(local[c], |w, gate| {
                if w == 0 {
                    0
                } else {
                    w & gate.holds(up, planes)
                }
            })
        };
        for step in &self.steps {
            match step {
                Step::One(c) => up[*c] = word(*c, up, planes),
                Step::Cycle(members) => {
                    for &c in members {
                        up[c] = local[c];
                    }
                    loop {
                        let mut changed = false;
                        for &c in members {
                            let w = word(c, up, planes);
                            if w != up[c] {
                                up[c] = w;
                                changed = true;
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// The components reachable from `roots` through `deps`, as strongly
/// connected components in dependency order (dependencies first), each
/// cycle's members sorted. petgraph's `kosaraju_scc` walks without
/// recursion (a 20,000-long chain needs no stack) and lists the components
/// in post-order; which valid order it is does not matter, since each step
/// reads only what comes before it and the draws go in component order.
fn dependency_order(deps: &[Vec<usize>], roots: &[usize]) -> Vec<Step> {
    let mut reachable = vec![false; deps.len()];
    let mut todo: Vec<usize> = roots.to_vec();
    while let Some(v) = todo.pop() {
        if !std::mem::replace(&mut reachable[v], true) {
            todo.extend(deps[v].iter().filter(|&&w| !reachable[w]));
        }
    }
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(deps.len(), 0);
    for _ in deps {
        graph.add_node(());
    }
    for (v, targets) in deps.iter().enumerate().filter(|&(v, _)| reachable[v]) {
        for &w in targets {
            graph.add_edge(NodeIndex::new(v), NodeIndex::new(w), ());
        }
    }
    kosaraju_scc(&graph)
        .into_iter()
        .filter(|members| reachable[members[0].index()])
        .map(|members| {
            let mut members: Vec<usize> = members.into_iter().map(NodeIndex::index).collect();
            if members.len() == 1 && deps[members[0]].binary_search(&members[0]).is_err() {
                Step::One(members[0])
            } else {
                members.sort_unstable();
                Step::Cycle(members)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn the_interval_contains_the_truth_and_is_reproducible() {
        // Two 90% instances of a, min_healthy 2: A = 0.81.
        let model = crate::model::parse(
            r"system: s
components:
  a: {instances: 2, min_healthy: 2, availability: 90%}
",
        )
        .unwrap();
        let first = simulate(&model, 100_000, 7, &|_| {});
        let again = simulate(&model, 100_000, 7, &|_| {});
        assert_eq!(first, again);
        let (low, high) = interval(first.down[0].1, first.trials);
        assert!(low <= 0.81 && 0.81 <= high, "[{low}, {high}]");
        assert!(high - low < 0.01);
    }

    #[test]
    fn runs_exactly_the_trials_asked_and_draws_domains_once_per_trial() {
        // a has one instance in each of two zones at 50%, needs one:
        // down only when both zones are down, 1 − 0.5 × 0.5 = 0.75 up.
        let model = crate::model::parse(
            "system: s\ndomains:\n  z1: {kind: zone, availability: 50%}\n  z2: {kind: zone, availability: 50%}\ncomponents:\n  a: {instances: 2, min_healthy: 1, placement: [z1, z2]}\n",
        )
        .unwrap();
        let run = simulate(&model, 100_001, 3, &|_| {});
        assert_eq!(run.trials, 100_001);
        let (low, high) = interval(run.down[0].1, run.trials);
        assert!(low <= 0.75 && 0.75 <= high, "[{low}, {high}]");
        // One trial more is one more bit: the first 100,001 are the same.
        let more = simulate(&model, 100_002, 3, &|_| {});
        assert!(more.down[0].1 - run.down[0].1 <= 1);
    }

    #[test]
    fn small_runs_split_into_chunks_and_no_thread_count_changes_the_counts() {
        // 10,000 trials are ten chunks (nine of 1,024 and one of 784), so a
        // run that small still keeps both cores busy.
        assert_eq!(chunks(10_000), 10);
        assert_eq!((chunks(1), chunks(1024), chunks(1025)), (1, 1, 2));
        // Every structural feature, failing often enough to be seen.
        let model = crate::model::parse(&crate::generate::random_small(4)).unwrap();
        for trials in [1, 63, 5_000, 10_000, 100_001] {
            let runs: Vec<(Simulation, u64)> = [1, 2, 3]
                .into_iter()
                .map(|threads| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let done = std::sync::atomic::AtomicU64::new(0);
                    let run = pool.install(|| {
                        simulate(&model, trials, 9, &|n| {
                            done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                        })
                    });
                    (run, done.into_inner())
                })
                .collect();
            assert_eq!(runs[0].0.trials, trials);
            assert_eq!(runs[0].1, trials, "progress reports every trial once");
            assert_eq!(runs[0], runs[1], "{trials} trials, 1 vs 2 threads");
            assert_eq!(runs[0], runs[2], "{trials} trials, 1 vs 3 threads");
        }
        let failures = simulate(&model, 100_001, 9, &|_| {}).down[0].1;
        assert!(failures > 100, "{failures}: too few to tell runs apart");
    }

    #[test]
    fn the_work_bound_counts_everything_drawn_per_trial() {
        // Two zones in a region (1 + 2 × (1 + 1) = 5 with their enclosing
        // region), one group (1), a: placed in both zones (1 + 2 placements
        // + 1 membership = 4), b: needs a (1 + 1 link = 2): 12 per trial.
        let model = crate::model::parse(
            "system: s\ndomains:\n  r: {kind: region}\n  z1: {kind: zone, in: r, availability: 99%}\n  z2: {kind: zone, in: r, availability: 99%}\nshared_fate:\n  g: {availability: 99%}\ncomponents:\n  a: {instances: 2, placement: [z1, z2], shares: [g]}\n  b: {depends_on: [a]}\n",
        )
        .unwrap();
        assert_eq!(size(&model), 12);
        // One component placed over 5,000 zones draws 5,000 zones and reads
        // 5,000 placement entries per trial: 1 + 5,000 + 5,000 = 10,001, so
        // 5e9 / 10,001 = 499,950 trials fit, 488 whole chunks of 1,024.
        let zones: Vec<String> = (0..5000).map(|z| format!("z{z}")).collect();
        let text = format!(
            "system: s\ndomains:\n{}components:\n  e: {{instances: 5000, min_healthy: 4900, placement: [{}]}}\n",
            zones
                .iter()
                .map(|z| format!("  {z}: {{kind: zone, availability: 99%}}\n"))
                .collect::<Vec<_>>()
                .concat(),
            zones.join(", ")
        );
        let model = crate::model::parse(&text).unwrap();
        assert_eq!(size(&model), 10_001);
        assert_eq!(affordable_trials(&model, 1_000_000), 499_712);
    }

    #[test]
    fn bitwise_gates_agree_with_the_scenario_fixed_point() {
        // Random models with any_of, at_least, degradable edges and cycles:
        // for random local health, every lane of the bitwise evaluation is
        // what scenario::up_given finds for that lane's trial.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut cycles = 0;
        for seed in 0..300 {
            let model = crate::model::parse(&crate::generate::random_small(seed)).unwrap();
            let plan = Plan::new(&model);
            cycles += plan
                .steps
                .iter()
                .filter(|s| matches!(s, Step::Cycle(_)))
                .count();
            let mut scratch = Scratch::new(&plan);
            for word in &mut scratch.local {
                // Mostly up, so that gates matter.
                *word = rng.next_u64() | rng.next_u64();
            }
            plan.evaluate(&mut scratch);
            for lane in 0..64 {
                let local: Vec<bool> = scratch.local.iter().map(|w| w >> lane & 1 == 1).collect();
                let up = super::super::scenario::up_given(&model, local);
                for step in &plan.steps {
                    let members = match step {
                        Step::One(c) => std::slice::from_ref(c),
                        Step::Cycle(m) => m.as_slice(),
                    };
                    for &c in members {
                        assert_eq!(scratch.up[c] >> lane & 1 == 1, up[c], "seed {seed} c{c}");
                    }
                }
            }
        }
        assert!(cycles > 0, "no cycle exercised");
    }
}
