//! Capacity-aware availability, compiled into a structural model.
//!
//! A component is up for an entrypoint only when it is up structurally and
//! its running instances carry the load the load flow sends it in that
//! state: `load ≤ running × capacity` (and `≤ rate_limit`), so it needs at
//! least `k(load) = max(min_healthy, ⌈load / capacity⌉)` instances up. The
//! load reaching a component changes only through a few *movers*: caches
//! (`cached_by`), the alternatives of `any_of`/`at_least` edges (routing
//! follows who is ok, standbys in order), and `failover_to` sources and
//! targets. Given which movers are ok, every component's load is fixed
//! ([`Table`]), hence its `k`.
//!
//! **The compilation.** A component whose `k` never changes gets
//! `min_healthy = k` (a static threshold; never up when `k` exceeds its
//! instances). One whose `k` takes the levels `k_1 < … < k_m` as the movers
//! change is ok exactly when `∨_i (n ≥ k_i ∧ G_i)`, `G_i` the (monotone)
//! set of mover states under which `k_i` instances carry its load. With
//! the count split into bands (`Pseudo::Band`: "at least `k_i`, given fewer
//! than `k_{i+1}`", independent given the correlated events, so that
//! `n ≥ k_j` is "some band from `j` up holds"), that is
//! `∨_i (band_i ∧ G_i)`, and `G_i` is an `any_of` of the minimal sets of
//! movers that must be ok, each a required edge to the movers' own nodes.
//! Cycles (two alternatives each carrying the other's share when it is
//! out) take the greatest fixed point, as the structure does, which is the
//! settled state of [`crate::engine::state::State::settle`]. The compiled model is
//! then evaluated by the structural engine unchanged: exact, joint
//! diagram, bounds, improvement.
//!
//! **What it assumes.** Components that are not movers count at their full
//! strength: a lost caller's load is not taken off what it calls ("no
//! relief"), nor a shedding component's lost instances off what it passes
//! on. Where that could matter, and where a component's movers are too
//! many to table ([`MAX_VARS`]: its load is then bounded by the worst case
//! of every mover, [`worst_loads`]), the figure is a lower bound and the
//! entrypoint's figure says so.

use rayon::prelude::*;

use super::state::Flow;
use crate::model::{ComponentId, Model};

mod compile;
mod costs;
mod needs;
mod relief;
mod served;
mod tables;

#[allow(
    clippy::wildcard_imports,
    reason = "the submodules share their helpers through the parent"
)]
use compile::{add_levels, largest_need, likeliest_case, never, single_case};
pub use costs::{MAX_COSTED, MAX_FLEET, costed, with_instances, without_capacity};
use needs::{need_of, truncated_need};
use relief::{MAX_RELIEF_MODEL, Relieving};
pub use relief::{Relief, relief_in, share_relief};
pub use served::Served;
use tables::tables;

/// Most movers one component's load is tabled over (`2^MAX_VARS` entries).
pub const MAX_VARS: usize = 10;

/// Most movers collected for one component (past [`MAX_VARS`] its load
/// is not tabled: the movers are kept for the bound that requires them).
pub const MAX_MOVERS: usize = 512;

/// Most components whose need changes with the movers that are compiled
/// exactly; past it the figure is bracketed: below by each need taken at
/// one case (see [`likeliest_cases`]), above by the capacity-blind
/// figure, both at the structural engine's usual cost.
pub const MAX_DYNAMIC: usize = 32;

/// The largest model whose bracketed needs are each taken at their
/// likeliest case (a count and the movers it needs ok, which adds required
/// edges to the movers, and cycles: a component needing its caller ok, two
/// alternatives each needing the other); a larger one takes each at its
/// largest need, which adds none. Measured on the generators: check on the
/// layered 300-component model 0.04 s, on the layered 500 6 s (its cycles
/// hold 200 components), on the generated 10k 2.5 s instead of 0.55 s,
/// and at 100k it did not finish.
pub const MAX_CASED_MODEL: usize = 300;

/// Whether a bracketed compilation of `model` takes each need at its
/// likeliest case (up to [`MAX_CASED_MODEL`] components) rather than at
/// its largest need.
#[must_use]
pub fn likeliest_cases(model: &Model) -> bool {
    model.components.len() <= MAX_CASED_MODEL
}

/// A component's offered load as a function of which of a few movers are
/// ok: entry `i` has `vars[j]` ok when bit `j` of `i` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The movers, ascending.
    pub vars: Vec<ComponentId>,
    /// The offered load for each combination (`None`: nothing says).
    pub offered: Vec<Option<f64>>,
}

impl Table {
    fn constant(load: Option<f64>) -> Self {
        Self {
            vars: Vec::new(),
            offered: vec![load],
        }
    }
}

/// How a component's capacity enters the figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// No capacity figures, or they never need more than `min_healthy`.
    Structural,
    /// Always `k` instances (`k` above `min_healthy`).
    Static(u32),
    /// More than it has in every state: never serves its whole load.
    Never,
    /// Levels that depend on the movers: `(k_i, minimal sets of movers
    /// that must be ok for k_i to suffice)`, ascending in `k_i`; an empty
    /// set means "always".
    Levels(Vec<(u32, Vec<Vec<ComponentId>>)>),
}

/// The compilation of one model.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The structural model whose figures are the capacity-aware ones (a
    /// lower bound when `upper` is given).
    pub model: Model,
    /// Whether the needs that change were too many to compile exactly:
    /// `model` then has each such need at one case (see
    /// [`likeliest_cases`]) and its figures are lower bounds (the
    /// structural figures the upper ends).
    pub bracketed: bool,
    /// For every component of `model`, the component of the original it
    /// stands for.
    pub origin: Vec<ComponentId>,
    /// What each original component needs.
    pub needs: Vec<Need>,
    /// Original components whose threshold is a bound (movers too many to
    /// table, or a table that was not monotone): figures that reach them
    /// are lower bounds.
    pub approximate: Vec<ComponentId>,
    /// Those of `approximate` whose need is a bound because an
    /// `at_least` edge with fewer alternatives ok than it needs routes by
    /// who still runs, which the tables do not say ([`tables::Routing`]).
    pub unrouted: Vec<ComponentId>,
    /// The load tables, per original component.
    pub tables: Vec<Table>,
    /// What can relieve each need, worked out when first asked
    /// ([`Compiled::critical`]).
    relief: Option<Relieving>,
}

impl Compiled {
    /// Whether capacity changes nothing: the compiled model is the model.
    #[must_use]
    pub fn is_structural(&self) -> bool {
        self.needs.iter().all(|n| *n == Need::Structural)
    }
}

/// Compiles `model` (with every cache cold when `cold`).
#[must_use]
pub fn compile(model: &Model, cold: bool) -> Compiled {
    compile_with(model, cold, true)
}

/// [`compile`], working out what can relieve each need only when
/// `relief` (a figure that only needs the compiled model skips it).
#[must_use]
pub fn compile_with(model: &Model, cold: bool, relief: bool) -> Compiled {
    compile_past(model, cold, relief, MAX_DYNAMIC)
}

/// [`compile_with`], bracketing past `max_dynamic` changing needs instead
/// of [`MAX_DYNAMIC`]: the tests hold the bracket to the brute-force
/// oracle on models small enough to enumerate.
#[doc(hidden)]
#[must_use]
pub fn compile_past(model: &Model, cold: bool, relief: bool, max_dynamic: usize) -> Compiled {
    let flow = Flow::new(model);
    let (tables, truncated, all_movers, least) = tables(model, &flow, cold);
    // Each need reads only its own table: worked out on every core, kept
    // in component order. Where routing the tables cannot settle gave
    // them a least and a most load, the need is the most's, and it is a
    // bound unless the least needs as much.
    let worked: Vec<(Need, bool, bool)> = (0..model.components.len())
        .into_par_iter()
        .map(|i| {
            let id = ComponentId(i);
            if truncated[i] {
                let (need, bound) =
                    truncated_need(model, &flow, id, &tables[i], all_movers[i].as_deref());
                (need, bound, false)
            } else {
                let (need, relief) = need_of(model, id, &tables[i]);
                let open = least
                    .as_ref()
                    .is_some_and(|least| need_of(model, id, &least[i]).0 != need);
                (need, relief, open)
            }
        })
        .collect();
    let mut needs = Vec::with_capacity(model.components.len());
    let mut approximate = Vec::new();
    let mut unrouted = Vec::new();
    for (i, (need, relief, open)) in worked.into_iter().enumerate() {
        if need != Need::Structural && (relief || open || truncated[i]) {
            approximate.push(ComponentId(i));
        }
        if open && need != Need::Structural {
            unrouted.push(ComponentId(i));
        }
        needs.push(need);
    }
    let mut compiled = model.clone();
    let mut origin: Vec<ComponentId> = model.component_ids().collect();
    let dynamic = needs
        .iter()
        .filter(|n| matches!(n, Need::Levels(_)))
        .count();
    // Past MAX_DYNAMIC, each component is taken at one case of its need,
    // a part of the states in which it carries its load, so the figure is
    // a lower bound at the structural engine's usual cost (a static
    // threshold, and required edges); the structural figure is the upper
    // end. Where [`likeliest_cases`], the case is the likeliest one (one
    // count of its instances with the movers that count needs ok); past
    // it, the largest need (every mover that can shift load onto it out:
    // never up when that is more than it has), which adds no edge to any
    // closure.
    let bracketed = dynamic > max_dynamic;
    let cased = likeliest_cases(model);
    let mut row = Vec::new();
    for id in model.component_ids() {
        match &needs[id.0] {
            Need::Structural => {}
            Need::Static(k) => compiled.components[id.0].min_healthy = *k,
            Need::Never => never(&mut compiled.components[id.0]),
            Need::Levels(levels) if !bracketed => {
                add_levels(&mut compiled, &mut origin, id, levels);
            }
            Need::Levels(levels) => {
                let (k, movers) = if cased {
                    likeliest_case(model, id, levels, &mut row)
                } else {
                    largest_need(model, id, levels)
                };
                single_case(&mut compiled.components[id.0], k, movers);
            }
        }
    }
    if bracketed {
        // Every need is a bound in a bracket: one that changes is taken at
        // one case, and what relieves a fixed one (a count, or never: a
        // caller lost sends it less) is not worked out (a walk per
        // entrypoint: 0.9 s -> 39 s on the generated 10k model). Where
        // nothing relieves it the bracket is closed all the same.
        approximate.extend(
            model
                .component_ids()
                .filter(|id| needs[id.0] != Need::Structural),
        );
        // A need already listed as a bound was pushed again just above.
        approximate.sort_unstable();
        approximate.dedup();
        return Compiled {
            model: compiled,
            bracketed: true,
            origin,
            needs,
            approximate,
            unrouted,
            tables,
            relief: None,
        };
    }
    let relief =
        (relief && model.components.len() <= MAX_RELIEF_MODEL).then(|| Relieving::new(cold));
    Compiled {
        model: compiled,
        bracketed: false,
        origin,
        needs,
        approximate,
        unrouted,
        tables,
        relief,
    }
}
