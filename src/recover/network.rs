//! The model as the recovery simulation walks it: one flat list of links
//! (one per edge target), each component's relative capacity, and the
//! order in which load flows (callers before the components they call).
//!
//! Loads are relative: a component's offered load `x` is a multiple of its
//! steady `load` (1 = steady). An edge carries its caller's processed load
//! times `calls × (1 − hit rate × fill)` times the attempts per call; a
//! component's intake is the sum over its incoming links, each weighted by
//! its share of the steady load (`caller load × calls × (1 − hit_rate)`).

#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "step counts, retries and component indices are small and non-negative: horizons are at most a day of seconds, retries are capped at 64, and a model has far fewer than 2^32 components or edges"
)]

use crate::model::{Backoff, Component, ComponentId, Edge, EdgeKind, Model};

/// Timeout assumed on an edge that gives none, seconds.
pub const DEFAULT_TIMEOUT_S: f64 = 1.0;
/// Refill time of a cache whose component gives no `warmup`, seconds.
pub const DEFAULT_REFILL_S: f64 = 600.0;

/// One edge target.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    pub caller: usize,
    pub target: usize,
    /// Index of the edge among all edges (an `any_of` edge has several links).
    pub edge: usize,
    pub kind: EdgeKind,
    /// Relative intake of the target per unit of the caller's relative
    /// processed load, before the miss factor and the attempts.
    pub scale: f64,
    pub hit_rate: f64,
    /// Fill gained per second per unit of answered misses (the caller's
    /// processed load × the miss share × the share answered), so that a
    /// cold cache whose every miss is answered at the steady rate fills in
    /// its refill time (the cache component's `warmup`, default 10m):
    /// `ln(1 / (1 − h)) / (h × refill)` (docs/recovery.md,
    /// "Caches").
    pub refill_rate: f64,
    /// The component that caches this edge, if it has a hit rate.
    pub cache: Option<usize>,
    pub retries: u32,
    pub budget: Option<f64>,
    pub timeout_s: f64,
    /// How the caller spaces its retries on this edge.
    pub backoff: Backoff,
    pub required: bool,
}

impl Link {
    /// Attempts per call when a share `f` of attempts fails.
    pub fn attempts(&self, f: f64) -> f64 {
        attempts(self.retries, self.budget.unwrap_or(f64::INFINITY), f)
    }
}

/// Attempts per call when a share `f` of attempts fails:
/// `1 + f + … + f^retries`, at most `1 + budget`.
pub(crate) fn attempts(retries: u32, budget: f64, f: f64) -> f64 {
    let mut total = 1.0;
    let mut term = 1.0;
    for _ in 0..retries.min(64) {
        term *= f;
        if term < 1e-12 {
            break;
        }
        total += term;
    }
    total.min(1.0 + budget)
}

/// The hot figures of a link, stored by target (`Network::inbound`) so one
/// step reads them in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InLink {
    pub caller: u32,
    /// A degradable edge carries load only while both ends are healthy.
    pub degradable: bool,
    pub link: u32,
    pub retries: u32,
    pub scale: f64,
    pub hit_rate: f64,
    pub budget: f64,
    /// How the caller spaces its retries, and its timeout in steps (the
    /// base of an exponential backoff).
    pub backoff: Backoff,
    pub timeout_steps: u32,
}

/// The figures of a required link the request success needs, stored by
/// caller (`Network::outbound`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutLink {
    pub target: u32,
    pub link: u32,
    pub edge: u32,
    pub any_of: bool,
    pub attempts: i32,
    pub hit_rate: f64,
}

/// The walkable model (build it once with [`Network::new`]).
#[derive(Debug, Clone)]
pub struct Network {
    /// Component names, in model order.
    pub names: Vec<String>,
    /// Components, callers before the components they call.
    pub order: Vec<usize>,
    /// Start wave of each component.
    pub wave: Vec<usize>,
    /// Whether each component is an entrypoint.
    pub entry: Vec<bool>,
    pub(crate) links: Vec<Link>,
    /// Links into each component.
    pub into: Vec<Vec<usize>>,
    /// Links out of each component.
    pub out: Vec<Vec<usize>>,
    /// Steady load, when known.
    pub load: Vec<Option<f64>>,
    /// Per-instance capacity over the steady load (`None`: not limited).
    pub per_instance: Vec<Option<f64>>,
    /// Instances of each component.
    pub instances: Vec<u32>,
    /// Warm-up of each component, seconds.
    pub warmup_s: Vec<Option<f64>>,
    /// Whether each component sheds load.
    pub shedding: Vec<bool>,
    /// Each component's `rate_limit` over its steady load (`None`: no
    /// limit): past it the excess is refused at once, as shedding does.
    pub limit: Vec<Option<f64>>,
    /// Whether each component refuses connections while down (`down:
    /// refuse`) rather than holding them to the callers' timeout.
    pub refuses: Vec<bool>,
    /// Whether each component restores its cache contents on its own
    /// (`prewarm: snapshot`).
    pub prewarmed: Vec<bool>,
    /// Shortest timeout of the incoming links: how long callers wait.
    pub timeout_s: Vec<f64>,
    /// Links by target: those of component c are `inbound[in_start[c]..in_start[c + 1]]`.
    pub(crate) inbound: Vec<InLink>,
    pub(crate) in_start: Vec<usize>,
    /// Required links by caller, likewise.
    pub(crate) outbound: Vec<OutLink>,
    pub(crate) out_start: Vec<usize>,
    /// Links with a hit rate.
    pub(crate) cached: Vec<usize>,
}

/// The component whose `warmup` is the refill time of the cache on an edge
/// with a `hit_rate`: the edge's `cached_by`, else the caller itself (a
/// cache in its process).
pub(crate) fn cache_of(caller: ComponentId, edge: &Edge) -> ComponentId {
    edge.cached_by.unwrap_or(caller)
}

/// The highest hit rate the refill works with: at 100% the hot set would
/// be infinite (no miss ever fills it).
const MAX_HIT_RATE: f64 = 0.999_999;

/// Fill per second per unit of answered misses of a cache with hit rate
/// `h` and refill time `refill_s`. The cache stores a key when its miss is
/// answered: `dφ/dt = answered misses / hot set`. With every miss answered
/// at the steady request rate the misses are `1 − hφ` and
/// `φ(t) = (1 − (1 − h)^(t / refill)) / h`, full (φ = 1) at `refill`
/// exactly when the hot set is `refill × h / ln(1 / (1 − h))` requests:
/// the rate is its inverse. A small hit rate gives `1 / refill`, the
/// fill by time.
fn refill_rate(h: f64, refill_s: f64) -> f64 {
    if h <= 0.0 || refill_s <= 0.0 {
        return 0.0;
    }
    let h = h.min(MAX_HIT_RATE);
    (1.0 / (1.0 - h)).ln() / (h * refill_s)
}

/// Share of an edge's calls that reach one of its targets.
fn share(edge: &Edge) -> f64 {
    let n = edge.targets.len().max(1) as f64;
    match edge.kind {
        EdgeKind::Target => 1.0,
        EdgeKind::AnyOf => 1.0 / n,
        EdgeKind::AtLeast => f64::from(edge.at_least) / n,
    }
}

/// The steady load of every component: the load flow's intact load (its
/// `load` when given, else what its callers with a known load send it,
/// `caller load × calls × (1 − hit_rate)`), else unknown.
pub(crate) fn steady_loads(model: &Model) -> Vec<Option<f64>> {
    crate::engine::state::Flow::new(model)
        .intact_loads()
        .to_vec()
}

fn relative_capacity(component: &Component, load: Option<f64>) -> Option<f64> {
    let figures = component.capacity?;
    let load = load.filter(|&l| l > 0.0)?;
    Some(figures.per_instance / load)
}

/// The wave of each component, and the order load flows in: the waves
/// from the last started (callers) to the first, by index within a wave so
/// a step walks the state in memory order.
fn wave_order(n: usize, waves: &[Vec<ComponentId>]) -> (Vec<usize>, Vec<usize>) {
    let mut wave = vec![0; n];
    for (w, members) in waves.iter().enumerate() {
        for m in members {
            wave[m.0] = w;
        }
    }
    let order: Vec<usize> = waves
        .iter()
        .rev()
        .flat_map(|w| {
            let mut ids: Vec<usize> = w.iter().map(|c| c.0).collect();
            ids.sort_unstable();
            ids
        })
        .collect();
    (wave, order)
}

/// One link per edge target, in model order, each scaled by its caller's
/// steady load (1 when unknown) before [`explain_unknown_callers`] and
/// [`normalise`].
fn links(model: &Model, load: &[Option<f64>]) -> Vec<Link> {
    let mut links = Vec::new();
    let mut edge_index = 0;
    for (caller, component) in model.components.iter().enumerate() {
        for edge in &component.depends_on {
            let cache = edge.hit_rate.map(|_| cache_of(ComponentId(caller), edge).0);
            let refill_s = cache.map_or(0.0, |c| {
                model.components[c]
                    .warmup
                    .map_or(DEFAULT_REFILL_S, |w| w.seconds().max(1.0))
            });
            for &t in &edge.targets {
                links.push(Link {
                    caller,
                    target: t.0,
                    edge: edge_index,
                    kind: edge.kind,
                    scale: load[caller].unwrap_or(1.0) * edge.calls * share(edge),
                    hit_rate: edge.hit_rate.unwrap_or(0.0),
                    refill_rate: refill_rate(edge.hit_rate.unwrap_or(0.0), refill_s),
                    cache,
                    retries: edge.retries,
                    budget: edge.retry_budget,
                    timeout_s: edge
                        .timeout
                        .map_or(DEFAULT_TIMEOUT_S, crate::model::Duration::seconds),
                    backoff: edge.backoff,
                    required: !edge.degradable,
                });
            }
            edge_index += 1;
        }
    }
    links
}

/// A caller without a known load gets the part of the target's load its
/// callers with a load do not explain, split by calls.
fn explain_unknown_callers(links: &mut [Link], into: &[Vec<usize>], load: &[Option<f64>]) {
    for (t, links_in) in into.iter().enumerate() {
        let Some(target_load) = load[t] else { continue };
        let known: f64 = links_in
            .iter()
            .filter(|&&i| load[links[i].caller].is_some())
            .map(|&i| links[i].scale * (1.0 - links[i].hit_rate))
            .sum();
        let unknown: Vec<usize> = links_in
            .iter()
            .copied()
            .filter(|&i| load[links[i].caller].is_none())
            .collect();
        let weight: f64 = unknown
            .iter()
            .map(|&i| links[i].scale * (1.0 - links[i].hit_rate))
            .sum();
        let rest = (target_load - known).max(0.0);
        for &i in &unknown {
            let miss = 1.0 - links[i].hit_rate;
            let warm = if weight > 0.0 {
                rest * links[i].scale * miss / weight
            } else {
                0.0
            };
            links[i].scale = if miss > 0.0 { warm / miss } else { 0.0 };
        }
    }
}

/// Normalises each target's links so that steady traffic (processed 1, warm
/// caches, no retries) sums to 1.
fn normalise(links: &mut [Link], into: &[Vec<usize>]) {
    for links_in in into {
        let warm: f64 = links_in
            .iter()
            .map(|&i| links[i].scale * (1.0 - links[i].hit_rate))
            .sum();
        let cold: f64 = links_in.iter().map(|&i| links[i].scale).sum();
        let norm = if warm > 0.0 { warm } else { cold };
        for &i in links_in {
            links[i].scale = if norm > 0.0 {
                links[i].scale / norm
            } else {
                1.0 / links_in.len() as f64
            };
        }
    }
}

/// The hot figures of the links in flat arrays: every link by target
/// (`inbound`, from `in_start[c]`) and the required ones by caller
/// (`outbound`, from `out_start[c]`).
struct Flat {
    inbound: Vec<InLink>,
    in_start: Vec<usize>,
    outbound: Vec<OutLink>,
    out_start: Vec<usize>,
}

impl Flat {
    fn new(links: &[Link], into: &[Vec<usize>], out: &[Vec<usize>]) -> Self {
        let n = into.len();
        let mut flat = Self {
            inbound: Vec::with_capacity(links.len()),
            in_start: Vec::with_capacity(n + 1),
            outbound: Vec::new(),
            out_start: Vec::with_capacity(n + 1),
        };
        for c in 0..n {
            flat.in_start.push(flat.inbound.len());
            flat.inbound.extend(into[c].iter().map(|&i| {
                let l: &Link = &links[i];
                InLink {
                    caller: l.caller as u32,
                    degradable: !l.required,
                    link: i as u32,
                    retries: l.retries,
                    scale: l.scale,
                    hit_rate: l.hit_rate,
                    budget: l.budget.unwrap_or(f64::INFINITY),
                    backoff: l.backoff,
                    timeout_steps: l.timeout_s.round().clamp(1.0, 86_400.0) as u32,
                }
            }));
            flat.out_start.push(flat.outbound.len());
            flat.outbound
                .extend(out[c].iter().filter(|&&i| links[i].required).map(|&i| {
                    let l: &Link = &links[i];
                    OutLink {
                        target: l.target as u32,
                        link: i as u32,
                        edge: l.edge as u32,
                        any_of: l.kind == EdgeKind::AnyOf,
                        attempts: 1 + l.retries.min(64) as i32,
                        hit_rate: l.hit_rate,
                    }
                }));
        }
        flat.in_start.push(flat.inbound.len());
        flat.out_start.push(flat.outbound.len());
        flat
    }
}

impl Network {
    /// Builds the network of a model, with its start waves.
    pub fn new(model: &Model, waves: &[Vec<ComponentId>]) -> Self {
        let n = model.components.len();
        let (wave, order) = wave_order(n, waves);
        let load = steady_loads(model);
        let mut entry = vec![false; n];
        for e in &model.entrypoints {
            entry[e.0] = true;
        }
        let mut links = links(model, &load);
        let mut into = vec![Vec::new(); n];
        let mut out = vec![Vec::new(); n];
        for (i, link) in links.iter().enumerate() {
            into[link.target].push(i);
            out[link.caller].push(i);
        }
        explain_unknown_callers(&mut links, &into, &load);
        normalise(&mut links, &into);
        let timeout_s = (0..n)
            .map(|c| {
                into[c]
                    .iter()
                    .map(|&i| links[i].timeout_s)
                    .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.min(t))))
                    .unwrap_or(DEFAULT_TIMEOUT_S)
            })
            .collect();
        let flat = Flat::new(&links, &into, &out);
        let cached = (0..links.len())
            .filter(|&i| links[i].hit_rate > 0.0)
            .collect();
        Self {
            inbound: flat.inbound,
            in_start: flat.in_start,
            outbound: flat.outbound,
            out_start: flat.out_start,
            cached,
            names: model.components.iter().map(|c| c.name.clone()).collect(),
            order,
            wave,
            entry,
            per_instance: model
                .components
                .iter()
                .zip(&load)
                .map(|(c, &l)| relative_capacity(c, l))
                .collect(),
            instances: model.components.iter().map(|c| c.instances).collect(),
            warmup_s: model
                .components
                .iter()
                .map(|c| {
                    c.warmup
                        .map(crate::model::Duration::seconds)
                        .filter(|&s| s > 0.0)
                })
                .collect(),
            shedding: model.components.iter().map(|c| c.load_shedding).collect(),
            limit: model
                .components
                .iter()
                .zip(&load)
                .map(|(c, &l)| Some(c.rate_limit? / l.filter(|&l| l > 0.0)?))
                .collect(),
            refuses: model
                .components
                .iter()
                .map(|c| c.down == crate::model::Down::Refuse)
                .collect(),
            prewarmed: model
                .components
                .iter()
                .map(|c| c.prewarm == crate::model::Prewarm::Snapshot)
                .collect(),
            load,
            links,
            into,
            out,
            timeout_s,
        }
    }

    /// The calls per second `caller` sends `target` with its caches cold,
    /// before retries, as the load flow infers them: a caller without a
    /// load sends the part of the target's load that its callers with a
    /// load do not explain. `None` when the target's load is unknown.
    pub fn cold_calls(&self, caller: usize, target: usize) -> Option<f64> {
        let load = self.load[target]?;
        Some(
            self.out[caller]
                .iter()
                .map(|&i| &self.links[i])
                .filter(|l| l.target == target)
                .map(|l| load * l.scale)
                .sum(),
        )
    }

    /// Each component's intake at total failure after an outage: every
    /// caller retrying at its limit, every cache cold, nothing capped, the
    /// entrypoints admitting `entry` (1 + the clients' retries). Relative to
    /// the steady load; `(cold, worst)` where `cold` is the intake with no
    /// failures and cold caches.
    pub fn worst_intake(&self, entry: f64) -> Vec<(f64, f64)> {
        let n = self.names.len();
        let mut cold = vec![0.0; n];
        let mut worst = vec![0.0; n];
        for &c in &self.order {
            if self.entry[c] {
                cold[c] += 1.0;
                worst[c] += entry;
            }
            for &i in &self.out[c] {
                let link = &self.links[i];
                cold[link.target] += cold[c] * link.scale;
                // A degradable call is switched off while its target is
                // collapsed: only the required ones keep a collapse going.
                if link.required {
                    worst[link.target] += worst[c] * link.scale * link.attempts(1.0);
                }
            }
        }
        cold.into_iter().zip(worst).collect()
    }
}
