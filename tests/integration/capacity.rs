//! Capacity-aware availability (issue 28) against an independent oracle:
//! a brute-force evaluator, deliberately simple, that enumerates every
//! up/down combination of every domain, group and instance of a small
//! model, runs the load flow in each ([`State::settle`]), and sums the
//! probabilities of the combinations in which an entrypoint serves its
//! whole load (and the expected share it serves). The engine's figure comes
//! from a different computation (the capacity compilation, binomial bands,
//! the structural engine's conditioning and diagrams); they must agree to
//! 1e-12 where the engine says it is exact, and the oracle must lie inside
//! the engine's bracket where it says bounded.

use std::fmt::Write as _;

use nines::engine::scenario::Scenario;
use nines::engine::state::{Flow, State};
use nines::engine::{self, Figure, Method};
use nines::model::{ComponentId, DomainId, GroupId, Model};

/// What the oracle finds for one entrypoint.
#[derive(Debug, Clone, Copy)]
pub struct Truth {
    /// P(the entrypoint serves its whole load).
    pub availability: f64,
    /// E[the share of its load served].
    pub served: f64,
}

/// One failure that can happen, with its probability of *not* happening.
enum Failure {
    Domain(DomainId, f64),
    Group(GroupId, f64),
    /// One instance of a component, placed in these domains (its own and
    /// every one around it).
    Instance(ComponentId, Vec<DomainId>, f64),
}

/// Every combination of failures, the settled state of each, summed.
/// Panics past 2^20 combinations (a test model too large for the oracle).
pub fn oracle(model: &Model) -> Vec<(ComponentId, Truth)> {
    let mut failures = Vec::new();
    for (i, d) in model.domains.iter().enumerate() {
        if let Some(a) = d.availability.filter(|&a| a < 1.0) {
            failures.push(Failure::Domain(DomainId(i), a));
        }
    }
    for (i, g) in model.groups.iter().enumerate() {
        if let Some(a) = g.availability.filter(|&a| a < 1.0) {
            failures.push(Failure::Group(GroupId(i), a));
        }
    }
    for id in model.component_ids() {
        let c = model.component(id);
        let Some(a) = c.availability.filter(|&a| a < 1.0) else {
            continue;
        };
        let homes: Vec<Vec<DomainId>> = if c.placement.is_empty() {
            vec![Vec::new(); c.instances as usize]
        } else {
            c.placement
                .iter()
                .flat_map(|&(d, n)| {
                    let mut around = vec![d];
                    around.extend(model.domain(d).ancestors.iter().copied());
                    std::iter::repeat_n(around, n as usize)
                })
                .collect()
        };
        for home in homes {
            failures.push(Failure::Instance(id, home, a));
        }
    }
    assert!(
        failures.len() <= 20,
        "{} failures: too many to enumerate",
        failures.len()
    );
    let flow = Flow::new(model);
    let mut truth: Vec<(ComponentId, Truth)> = model
        .entrypoints
        .iter()
        .map(|&e| {
            (
                e,
                Truth {
                    availability: 0.0,
                    served: 0.0,
                },
            )
        })
        .collect();
    for combination in 0..1u64 << failures.len() {
        let down = |i: usize| combination & (1 << i) != 0;
        let mut p = 1.0;
        let mut scenario = Scenario::default();
        for (i, failure) in failures.iter().enumerate() {
            let up = match failure {
                Failure::Domain(_, a) | Failure::Group(_, a) | Failure::Instance(_, _, a) => *a,
            };
            p *= if down(i) { 1.0 - up } else { up };
            if !down(i) {
                continue;
            }
            match failure {
                Failure::Domain(d, _) => scenario.domains.push(*d),
                Failure::Group(g, _) => scenario.groups.push(*g),
                Failure::Instance(..) => {}
            }
        }
        if p == 0.0 {
            continue;
        }
        // An instance that failed on its own counts only where its domains
        // are up (in a lost domain it is down anyway).
        for (i, failure) in failures.iter().enumerate() {
            if let Failure::Instance(c, home, _) = failure
                && down(i)
                && !home.iter().any(|d| scenario.domains.contains(d))
            {
                scenario.failed_instances.push((*c, 1));
            }
        }
        let state = State::new(model, &flow, &scenario).settle(model, &flow);
        for (e, t) in &mut truth {
            if state.of(*e).ok {
                t.availability += p;
            }
            t.served += p * state.served_share(model, *e);
        }
    }
    truth
}

/// A small random model: two or three zones with figures, now and then a
/// group, four to seven components calling later ones, with capacity and
/// load, caches (`cached_by`), alternatives hot and with standbys,
/// failover, load shedding and rate limits; at most 12 instances that can
/// fail, so the oracle enumerates at most 2^16 combinations.
#[allow(clippy::too_many_lines, reason = "one generator, read top to bottom")]
pub fn random_capacity_model(seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |n: usize| -> usize {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n.max(1) as u64).unwrap_or(0)
    };
    let zones = 2 + next(2);
    let group = next(3) == 0;
    let n = 4 + next(4);
    let mut text = String::from("system: random\ndomains:\n");
    for z in 0..zones {
        let _ = writeln!(
            text,
            "  z{z}: {{kind: zone, availability: {}%}}",
            90 + next(10)
        );
    }
    if group {
        let _ = writeln!(
            text,
            "shared_fate:\n  g: {{availability: {}%}}",
            95 + next(5)
        );
    }
    text.push_str("entrypoints: [c0]\ncomponents:\n");
    let mut failable = 0;
    // Whether a component's load is known: c0's is written, the others'
    // are derived from known callers (edges only go to later components).
    let mut known = vec![false; n];
    known[0] = true;
    for i in 0..n {
        let instances = 1 + next(3);
        let quantified = failable + instances <= 12 && next(6) != 0;
        if quantified {
            failable += instances;
        }
        let _ = write!(text, "  c{i}: {{instances: {instances}");
        let spread = 1 + next(zones.min(instances));
        let start = next(zones);
        let placement: Vec<String> = (0..spread)
            .map(|k| format!("z{}", (start + k) % zones))
            .collect();
        let _ = write!(text, ", placement: [{}]", placement.join(", "));
        if quantified {
            let _ = write!(text, ", availability: {}%", 80 + next(20));
        }
        if group && next(4) == 0 {
            text.push_str(", shares: [g]");
        }
        // Capacity: the intact load fits, and a loss may not. A component
        // whose load is not known gets a written one.
        if next(3) != 0 {
            let per = 50 + 10 * next(10);
            let load = if i == 0 || !known[i] {
                format!(", load: {}", per * instances * (50 + next(50)) / 100)
            } else {
                String::new()
            };
            if i == 0 || next(2) == 0 {
                let _ = write!(text, ", capacity: {per}{load}");
            }
        } else if i == 0 {
            text.push_str(", capacity: 100, load: 60");
        }
        if next(5) == 0 {
            text.push_str(", load_shedding: true");
        }
        if next(8) == 0 {
            let _ = write!(text, ", rate_limit: {}", 40 + 20 * next(5));
        }
        if i > 0 && i + 1 < n && next(5) == 0 {
            let _ = write!(text, ", failover_to: c{}", i + 1 + next(n - i - 1));
        }
        let later: Vec<usize> = (i + 1..n).collect();
        let mut deps = Vec::new();
        for _ in 0..next(3) {
            if later.is_empty() {
                break;
            }
            let a = later[next(later.len())];
            let b = later[next(later.len())];
            let (dep, targets) = match next(8) {
                0 if a != b => (format!("{{any_of: [c{a}, c{b}]}}"), vec![a, b]),
                1 if a != b => (
                    format!("{{any_of: [c{a}, c{b}], switchover: 1m}}"),
                    vec![a, b],
                ),
                2 => {
                    // A cache in front of the target: another later one.
                    let cache = later[next(later.len())];
                    if cache == a {
                        (format!("c{a}"), vec![a])
                    } else {
                        (
                            format!(
                                "{{target: c{a}, hit_rate: {}%, cached_by: c{cache}}}",
                                50 + 10 * next(5)
                            ),
                            vec![a],
                        )
                    }
                }
                3 => (
                    format!("{{target: c{a}, degradable: true, calls: 2}}"),
                    vec![a],
                ),
                // A keyed partition: each shard serves half the requests.
                4 if a != b => (format!("{{shards: [c{a}, c{b}]}}"), vec![a, b]),
                // A share of the requests (three at most: 90%).
                5 => (format!("{{target: c{a}, share: 30%}}"), vec![a]),
                _ => (format!("{{target: c{a}, calls: {}}}", 1 + next(2)), vec![a]),
            };
            if !deps.contains(&dep) {
                if known[i] {
                    for t in targets {
                        known[t] = true;
                    }
                }
                deps.push(dep);
            }
        }
        if !deps.is_empty() {
            let _ = write!(text, ", depends_on: [{}]", deps.join(", "));
        }
        text.push_str("}\n");
    }
    text
}

/// A xorshift stream for a generator's variant: each call draws a number
/// below `n` (`mix` keeps the variants' streams apart for one seed).
fn draws(seed: u64, mix: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed.wrapping_mul(mix) | 1;
    move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n.max(1)
    }
}

/// [`random_capacity_model`] with a request pool on about half the
/// components (1 to 10 workers per instance, a p99 of 20, 50 or 100 ms):
/// each serves at most `workers / held` a second per instance, which the
/// state counts as a concurrency ceiling in every state and the figure as
/// the capacity it stands for (docs/slow.md "A pool is a capacity").
pub fn random_pooled_model(seed: u64) -> String {
    let mut next = draws(seed, 0xD1B5_4A32_D192_ED03);
    let mut text = String::new();
    for line in random_capacity_model(seed).lines() {
        if line.starts_with("  c") && next(2) == 0 {
            let (head, rest) = line.split_once('{').unwrap_or((line, ""));
            let _ = writeln!(
                text,
                "{head}{{workers: {}, latency: {{p99: {}ms}}, {rest}",
                1 + next(10),
                [20, 50, 100][usize::try_from(next(3)).unwrap_or(0)]
            );
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// [`random_capacity_model`] with a load written on every component that
/// has a capacity, including those whose callers' loads are known (a
/// written load is moved by what reaches it in each state), and now and
/// then a second entrypoint.
pub fn random_loaded_model(seed: u64) -> String {
    let mut next = draws(seed, 0xA076_1D64_78BD_642F);
    let base = random_capacity_model(seed);
    let components = base.lines().filter(|l| l.starts_with("  c")).count() as u64;
    let mut text = String::new();
    for line in base.lines() {
        if line == "entrypoints: [c0]" && next(3) == 0 {
            let _ = writeln!(text, "entrypoints: [c0, c{}]", 1 + next(components - 1));
            continue;
        }
        let number = |key: &str| -> Option<u64> {
            let at = line.find(key)? + key.len();
            let digits: String = line[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        };
        match (number("capacity: "), number("instances: ")) {
            (Some(per), Some(instances)) if !line.contains("load: ") => {
                let load = per * instances * (40 + next(60)) / 100;
                let at = line.find("capacity: ").unwrap_or(0);
                let end = at + "capacity: ".len() + per.to_string().len();
                let _ = writeln!(text, "{}, load: {load}{}", &line[..end], &line[end..]);
            }
            _ => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    text
}

/// [`random_loaded_model`] with its `any_of` edges turned, half the time,
/// into `at_least` gates: 2 of the two alternatives and a third later
/// component, or 2 of the two. Where fewer alternatives are ok than the
/// gate needs, the load flow sends its load to those still running
/// (`State::routed`), so one alternative can carry all of it.
pub fn random_gated_model(seed: u64) -> String {
    let mut next = draws(seed, 0x8EBC_6AF0_9C88_C6E3);
    let base = random_loaded_model(seed);
    let components = base.lines().filter(|l| l.starts_with("  c")).count();
    let mut text = String::new();
    for line in base.lines() {
        let own: Option<usize> = line
            .strip_prefix("  c")
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok());
        let mut line = line.to_owned();
        while let (Some(i), Some(at)) = (own, line.find("{any_of: [c")) {
            let list_end = line[at..].find(']').map_or(line.len(), |e| at + e);
            let targets: Vec<usize> = line[at + "{any_of: [".len()..list_end]
                .split(", ")
                .filter_map(|t| t.trim_start_matches('c').parse().ok())
                .collect();
            let third: Vec<usize> = (i + 1..components)
                .filter(|t| !targets.contains(t))
                .collect();
            let gate = match next(3) {
                0 if !third.is_empty() => {
                    let x = third[usize::try_from(next(third.len() as u64)).unwrap_or(0)];
                    format!(
                        "{{at_least: 2, of: [c{}, c{}, c{x}]",
                        targets[0], targets[1]
                    )
                }
                1 => format!("{{at_least: 2, of: [c{}, c{}]", targets[0], targets[1]),
                // Left an `any_of`, written so that the loop moves on.
                _ => format!("{{any_of: [c{}, c{}]", targets[0], targets[1])
                    .replace("any_of", "any_of "),
            };
            line = format!("{}{gate}{}", &line[..at], &line[list_end + 1..]);
        }
        text.push_str(&line.replace("any_of :", "any_of:"));
        text.push('\n');
    }
    text
}

/// Checks the engine against the oracle on one model; `Err` says where
/// they part.
pub fn agrees(text: &str) -> Result<(), String> {
    agrees_by(text, engine::availability)
}

/// [`agrees`], with the figures `figures` works out.
fn agrees_by(
    text: &str,
    figures: impl Fn(&Model) -> Vec<(ComponentId, Figure)>,
) -> Result<(), String> {
    let Ok(model) = nines::model::parse(text) else {
        return Ok(()); // a generated model the format refuses: not a case
    };
    let truth = oracle(&model);
    let figures = figures(&model);
    for ((e, t), (_, f)) in truth.iter().zip(&figures) {
        let name = &model.component(*e).name;
        // The oracle knows nothing of switchover time: add it back.
        let a = f.availability + f.switchover;
        let cap = f.capacity.as_ref().expect("capacity part");
        match f.method {
            Method::Exact => {
                if (a - t.availability).abs() > 1e-12 {
                    return Err(format!(
                        "{name}: engine {a:.15} ({:?}), oracle {:.15}\n{text}",
                        f.method, t.availability
                    ));
                }
                // A served figure that is not exact is a lower bound.
                if !cap.served_exact && cap.served + f.switchover > t.served + 1e-12 {
                    return Err(format!(
                        "{name}: served lower bound {:.15} above the oracle's {:.15}\n{text}",
                        cap.served + f.switchover,
                        t.served
                    ));
                }
                if cap.served_exact && (cap.served + f.switchover - t.served).abs() > 1e-12 {
                    return Err(format!(
                        "{name}: served engine {:.15}, oracle {:.15}\n{text}",
                        cap.served + f.switchover,
                        t.served
                    ));
                }
            }
            Method::Bounded => {
                let (lo, hi) = (f.lower + f.switchover, f.upper + f.switchover);
                if t.availability < lo - 1e-12 || t.availability > hi + 1e-12 {
                    return Err(format!(
                        "{name}: oracle {:.15} outside [{lo:.15}, {hi:.15}]\n{text}",
                        t.availability
                    ));
                }
                // A bounded figure's served share is a lower bound too.
                if cap.served + f.switchover > t.served + 1e-12 {
                    return Err(format!(
                        "{name}: served lower bound {:.15} of a bounded figure above the oracle's {:.15}\n{text}",
                        cap.served + f.switchover,
                        t.served
                    ));
                }
            }
        }
        // Capacity never improves on the structure.
        if a > cap.structural + f.switchover + 1e-12 {
            return Err(format!(
                "{name}: capacity-aware {a} above structural {}\n{text}",
                cap.structural
            ));
        }
    }
    Ok(())
}

fn run_oracle(models: u64) {
    run_oracle_on(models, random_capacity_model);
}

fn run_oracle_on(models: u64, generate: fn(u64) -> String) {
    let mut exact = 0;
    for seed in 0..models {
        let text = generate(seed);
        if let Err(why) = agrees(&text) {
            let _ = std::fs::write(
                std::env::temp_dir().join("nines-oracle-failure.yaml"),
                &text,
            );
            panic!("seed {seed}: {why}");
        }
        if let Ok(model) = nines::model::parse(&text) {
            exact += engine::availability(&model)
                .iter()
                .filter(|(_, f)| f.method == Method::Exact)
                .count();
        }
    }
    // Most generated models are small enough to be exact.
    if exact * 10 < usize::try_from(models).unwrap_or(usize::MAX) * 8 {
        let mut why = std::collections::BTreeMap::new();
        for seed in 0..models {
            if let Ok(model) = nines::model::parse(&generate(seed)) {
                for (_, f) in engine::availability(&model) {
                    if let Some(w) = f.why {
                        *why.entry(w.chars().take(60).collect::<String>())
                            .or_insert(0) += 1;
                    }
                }
            }
        }
        panic!("only {exact} of {models} exact: {why:#?}");
    }
}

#[test]
fn generated_models_are_valid() {
    let mut invalid = Vec::new();
    for seed in 0..150 {
        if let Err(problems) = nines::model::parse(&random_capacity_model(seed)) {
            invalid.push(format!("{seed}: {}", problems[0].message));
        }
    }
    assert!(
        invalid.len() <= 3,
        "{} invalid: {:#?}",
        invalid.len(),
        &invalid[..invalid.len().min(8)]
    );
}

#[test]
fn the_engine_agrees_with_a_brute_force_enumeration() {
    run_oracle(150);
}

#[test]
#[ignore = "slow: 1,000 models enumerated state by state"]
fn the_engine_agrees_with_a_brute_force_enumeration_on_a_thousand_models() {
    run_oracle(1000);
    // Pools on about half the components (seed 523 parted from the oracle
    // until a partial server's share counted joint relief).
    run_oracle_on(1000, random_pooled_model);
    // Loads written on called components, now and then two entrypoints.
    run_oracle_on(1000, random_loaded_model);
    // `at_least` gates over alternatives that can carry it all.
    run_oracle_on(1000, random_gated_model);
}

#[test]
fn with_request_pools_the_engine_agrees_with_a_brute_force_enumeration() {
    // The oracle runs the engine's own state in each combination: this
    // ties the figure's pools (a capacity) to the state's (a ceiling).
    let pooled = (0..300)
        .filter(|&seed| nines::model::parse(&random_pooled_model(seed)).is_ok())
        .count();
    assert!(pooled >= 280, "{pooled} of 300 valid");
    run_oracle_on(300, random_pooled_model);
}

/// A caller whose failover chain has no ok component keeps passing its
/// load on: the load tables must read the chain's okness (it decides
/// whether the caller hands its load on or passes it to its dependencies).
///
/// By hand: c5 gets 176 (from c4, which gets c1's written 176) against
/// 3 × 50 = 150, so it always collapses; c4 and c2 (which require c5) are
/// never ok, so c1 (which requires c4) is never ok and its failover target
/// c2 is not ok either. So c1's cache is lost (c0 sends its whole 95 to
/// c3) and c1 still passes its load (its failover chain has no ok
/// component), half of it (88) to c3 over the `any_of` (c6 and c3 both
/// ok). c3 then carries 95 + 88 = 183 > 160: it needs both instances,
/// 0.87² = 0.7569 (not 1 − 0.13² = 0.9831, its figure were c1's load
/// taken as handed on to c2).
#[test]
fn a_caller_whose_failover_chain_is_down_still_passes_its_load_on() {
    let text = r"system: random
domains:
  z1: {kind: zone}
entrypoints: [c0]
components:
  c0: {instances: 2, capacity: 50, load: 95, depends_on: [{target: c3, hit_rate: 50%, cached_by: c1}]}
  c1: {instances: 2, capacity: 110, load: 176, failover_to: c2, depends_on: [{target: c4}, {any_of: [c6, c3]}]}
  c2: {instances: 1, depends_on: [{target: c5}]}
  c3: {capacity: 160, instances: 2, availability: 87%}
  c4: {instances: 3, depends_on: [c5]}
  c5: {instances: 3, capacity: 50}
  c6: {instances: 2}
";
    let model = nines::model::parse(text).expect("valid model");
    let truth = oracle(&model);
    assert!(
        (truth[0].1.availability - 0.7569).abs() < 1e-12,
        "{truth:?}"
    );
    let figures = engine::availability(&model);
    let f = &figures[0].1;
    // The figure is the truth: c3 needs both instances unless c1 is ok or
    // hands its load on to an ok c2, and neither ever is.
    assert!(
        (f.availability - 0.87 * 0.87).abs() < 1e-12,
        "engine {} against 0.7569: {f:?}",
        f.availability
    );
    // c3's load falls when c1 is lost and hands its load on to c2 (a
    // relief the figure does not count on), so the figure is the lower end
    // of a bracket whose upper end is the capacity-blind 1 − 0.13².
    assert_eq!(f.method, Method::Bounded, "{f:?}");
    assert!((f.lower - 0.7569).abs() < 1e-12, "{f:?}");
    assert!((f.upper - (1.0 - 0.13 * 0.13)).abs() < 1e-12, "{f:?}");
    let why = f.why.as_deref().unwrap_or_default();
    assert!(
        why.contains("c3") && why.contains("capacity-blind"),
        "{why}"
    );
    agrees(text).unwrap();
    // The same cause in a generated model past the thousand of the ignored
    // test (a cache, c3, that fails over to c5 and calls c4: c4's load was
    // tabled as if c3's load always reached c5): the oracle lay below the
    // engine's bracket.
    agrees(&random_capacity_model(5915)).unwrap();
}

/// Relievers that relieve only together (seed 3662 of the generator). c0
/// needs c6 (one instance of 60). By hand, what reaches c6: c0 60; c4 (a
/// shedding cache, load 151 on 2 × 110) 151 × 2 = 302; c5, which passes
/// on what reaches it: c4's 151 × 2 = 302 and c3's misses, 210 × 10% = 21,
/// so 323. In all 60 + 302 + 323 = 685 > 60: with everything up c0 is
/// down. c4 lost alone: c3's whole 210 goes to c5, 60 + 210 = 270 > 60;
/// c3 lost alone: 60 + 302 + 302 = 664 > 60. Both lost: 60 ≤ 60, c0 is
/// up. Neither loss takes c0 down (c0 does not need them), so the figure
/// (0: it counts no relief) is only the lower end of a bracket whose
/// upper end the oracle stays under. Tried one at a time, neither
/// relieved c6, and the figure claimed to be exact.
#[test]
fn relievers_that_relieve_only_together_bound_the_figure() {
    let text = random_capacity_model(3662);
    let model = nines::model::parse(&text).expect("valid model");
    let c6 = model
        .component_ids()
        .find(|&c| model.component(c).name == "c6")
        .expect("c6");
    let flow = nines::engine::state::Flow::new(&model);
    let load = flow.intact_loads()[c6.0].expect("c6 is loaded");
    assert!((load - 685.0).abs() < 1e-9, "{load}");
    let figures = engine::availability(&model);
    let f = &figures[0].1;
    assert_eq!(f.method, Method::Bounded, "{f:?}");
    assert!(f.lower.abs() < 1e-12, "{f:?}");
    let truth = oracle(&model)[0].1.availability;
    assert!(truth > 0.0 && truth <= f.upper + 1e-12, "{truth} {f:?}");
    agrees(&text).unwrap();
}

/// Generated models past the thousand of the ignored test on which the
/// engine once parted from the oracle, one cause each: relievers that
/// relieve only together (3662, 9173); a failover target relieved by
/// the callers of what fails over to it (15928); a written load that
/// falls when its callers stop (3374); a cache in front of a required
/// call that moves load when lost (4761, 13528); a rate-limited or
/// shedding server whose share moves with any change of its load, not
/// only a change of its need (2237, 3319, 3964, 9806); a shedding series
/// caller relieving jointly with one outside (16287, 18244); an oracle
/// above the bracket (2007).
#[test]
fn the_engine_agrees_with_the_oracle_where_it_once_parted() {
    for seed in [
        2007, 2140, 2237, 3319, 3374, 3662, 3964, 3992, 4625, 4761, 9173, 9806, 13528, 15928,
        16054, 16287, 18244, 18326,
    ] {
        if let Err(why) = agrees(&random_capacity_model(seed)) {
            panic!("seed {seed}: {why}");
        }
    }
}

/// The same with a load written on components that are called, and a
/// second entrypoint ([`random_loaded_model`]): a written load that
/// quieting would move below 0 (3662, 4904, 8982, 12126, 12186); a
/// refusing mover whose misses or `any_of` share land on a component an
/// entrypoint needs, wherever the mover's caller stands (909, 2189, 5213,
/// 12168, 12920); a failover that stops handing load on when its callers
/// stop (12599).
#[test]
fn the_engine_agrees_with_the_oracle_on_written_loads_where_it_once_parted() {
    for seed in [
        909, 2189, 3662, 4904, 5213, 8982, 12126, 12168, 12186, 12599, 12920,
    ] {
        if let Err(why) = agrees(&random_loaded_model(seed)) {
            panic!("loaded seed {seed}: {why}");
        }
    }
    // A review's variant of the generator: c0's figure was "exact" 0
    // against the oracle's 0.152 (c4 rate-limited at 100 of its 196 fails
    // over to c6, which its callers relieve).
    agrees(REVIEW_23944).unwrap();
    // A pooled model whose bracketed figure's served share, 0.229, lay
    // above the oracle's 0.164.
    agrees(REVIEW_38790).unwrap();
}

/// An `at_least` gate with fewer alternatives ok than it needs sends its
/// load to those still running (`State::routed`), so one alternative can
/// carry all of it. The tables know only who is ok, and took every other
/// alternative as running: the smallest share, and "exact" figures above
/// the truth (gated seeds 2639, 2839, 3322: 0.7154 against 0.6958; 3983:
/// a bracket above it). They now also take the largest share and call the
/// need a bound where the two differ.
#[test]
fn an_at_least_gate_short_of_alternatives_sends_its_load_to_who_runs() {
    for seed in [2639, 2779, 2839, 3322, 3379, 3874, 3983] {
        if let Err(why) = agrees(&random_gated_model(seed)) {
            panic!("gated seed {seed}: {why}");
        }
    }
    // The review's case, by hand. c2 needs its 3 instances for its 153 + 20
    // (a third of c0's 60) = 173 ≤ 180: 0.99³ = 0.970299. With c1 (both
    // instances, 0.2² = 0.04) and c3 (0.11) down, c0's whole 60 goes to
    // c2: 213 > 180, and c2 fails. Up in neither case it counts, so
    // c2 = 0.970299 × (1 − 0.04 × 0.11) = 0.970299 × 0.9956 = 0.9660296844.
    let text = r"system: gate
entrypoints: [c0, c2]
components:
  c0: {instances: 2, capacity: 100, load: 60, depends_on: [{at_least: 2, of: [c2, c1, c3]}]}
  c1: {instances: 2, availability: 80%}
  c2: {instances: 3, availability: 99%, capacity: 60, load: 153}
  c3: {instances: 1, availability: 89%}
";
    agrees(text).unwrap();
    let model = nines::model::parse(text).unwrap();
    let figures = engine::availability(&model);
    let (_, c2) = figures
        .iter()
        .find(|(e, _)| model.component(*e).name == "c2")
        .expect("c2 is an entrypoint");
    assert_eq!(c2.method, Method::Bounded, "{c2:?}");
    assert!(
        (c2.lower - 0.970_299 * 0.9956).abs() < 1e-12,
        "{}",
        c2.lower
    );
    assert!(c2.why.as_deref().unwrap_or("").contains("still running"));
}

const REVIEW_23944: &str = r"system: random
domains:
  z0: {kind: zone, availability: 98%}
  z1: {kind: zone, availability: 97%}
entrypoints: [c0]
components:
  c0: {instances: 1, placement: [z1], capacity: 100, load: 60, depends_on: [{target: c2, share: 30%}, {target: c5, degradable: true, calls: 2}]}
  c1: {instances: 2, placement: [z1], availability: 90%, depends_on: [{target: c3, share: 30%}, {target: c2, hit_rate: 70%, cached_by: c4}]}
  c2: {instances: 1, placement: [z0], availability: 88%, depends_on: [{target: c6, share: 30%}, {target: c6, calls: 1}, {target: c3, calls: 1}]}
  c3: {instances: 4, placement: [z0, z1], availability: 92%}
  c4: {instances: 4, placement: [z0], capacity: 70, load: 196, rate_limit: 100, failover_to: c6, depends_on: [c6]}
  c5: {instances: 3, placement: [z1], availability: 93%, capacity: 50, depends_on: [{target: c6, degradable: true, calls: 2}, {target: c6, calls: 1}, {target: c6, calls: 2}]}
  c6: {instances: 1, placement: [z0], availability: 93%, capacity: 120, load: 94}
";

const REVIEW_38790: &str = r"system: random
domains:
  z0: {kind: zone, availability: 91%}
  z1: {kind: zone, availability: 92%}
entrypoints: [c0]
components:
  c0: {workers: 8, latency: {p99: 20ms}, instances: 1, placement: [z0], availability: 99%, capacity: 90, load: 87, load_shedding: true, rate_limit: 100, depends_on: [c2, {target: c1, degradable: true, calls: 2}]}
  c1: {workers: 3, latency: {p99: 100ms}, instances: 1, placement: [z1], availability: 87%, depends_on: [{target: c3, calls: 2}, {any_of: [c3, c2], switchover: 1m}]}
  c2: {instances: 1, placement: [z0], availability: 91%, capacity: 130}
  c3: {workers: 9, latency: {p99: 100ms}, instances: 2, placement: [z0], availability: 81%, load_shedding: true}
";

/// A failover whose source is relieved by its own caller (from seed
/// 12599). s takes what f fails over only when both f instances are out
/// (0.02² = 4e-4), and then 180 > its limit 100 while e passes its load:
/// an overloaded e still passes what reaches it, so only e with none of
/// its 3 instances up passes nothing, P = 0.18³ = 0.005832. So s is out
/// with 4e-4 × (1 − 0.005832) = 3.976672e-4. The figure counted no
/// relief: 1 − 4e-4, exact; it is now a bracket around the truth.
#[test]
fn a_failover_its_callers_relieve_bounds_the_figure() {
    let text = r"system: s
entrypoints: [e, s]
components:
  e: {instances: 3, availability: 82%, capacity: 90, load: 180, depends_on: [f]}
  f: {instances: 2, availability: 98%, failover_to: s}
  s: {instances: 1, rate_limit: 100}
";
    let model = nines::model::parse(text).expect("valid model");
    let truth = oracle(&model)[1].1.availability;
    assert!((truth - (1.0 - 3.976_672e-4)).abs() < 1e-12, "{truth}");
    let f = &engine::availability(&model)[1].1;
    assert_eq!(f.method, Method::Bounded, "{f:?}");
    assert!((f.lower - (1.0 - 4e-4)).abs() < 1e-12, "{f:?}");
    assert!(f.lower <= truth && truth <= f.upper, "{f:?}");
    agrees(text).unwrap();
}

/// Past the needs compiled exactly, each changing need is taken at its
/// likeliest case: one count of its instances with the movers that count
/// needs ok, a part of the states in which it carries its load. So the
/// figure is a lower bound, and the capacity-blind figure an upper one.
/// Bracketing past 0 needs instead of 32, so that every model the oracle
/// can enumerate with a need that changes takes the bracket (161 and 226
/// of the first 1,000 seeds of the plain generator and of the one with
/// loads written on called components and a second entrypoint, when
/// written; the third generator has `at_least` gates), the truth
/// lies between the two, and the lower end says something: where the
/// truth is above 0 the lower end is within 10% of it on at least 80% of
/// the figures the cases bracket (208 of 232 on the first two generators'
/// 1,000 seeds when written; the median is the truth itself).
/// This found a figure called exact at 0 whose truth was 14%: a need a
/// failure elsewhere relieves (a caller lost sends it less) counted as
/// never met, and the bracket, which works out no relief, called it exact.
#[test]
fn the_likeliest_cases_bracket_the_oracle() {
    likeliest_cases_bracket(0..150);
}

#[test]
#[ignore = "slow: 2,000 models enumerated state by state, twice"]
fn the_likeliest_cases_bracket_the_oracle_on_a_thousand_models() {
    likeliest_cases_bracket(0..1000);
}

/// [`the_likeliest_cases_bracket_the_oracle`] on the models of `seeds`.
fn likeliest_cases_bracket(seeds: std::ops::Range<u64>) {
    let models = seeds.end - seeds.start;
    let (mut bracketed, mut positive, mut close) = (0_u64, 0_u64, 0_u64);
    for seed in seeds {
        for text in [
            random_capacity_model(seed),
            random_loaded_model(seed),
            random_gated_model(seed),
        ] {
            agrees_by(&text, |m| engine::availability_bracketed_past(m, false, 0))
                .unwrap_or_else(|why| panic!("seed {seed}: {why}"));
            let Ok(model) = nines::model::parse(&text) else {
                continue;
            };
            bracketed +=
                u64::from(engine::capacity::compile_past(&model, false, true, 0).bracketed);
            let truth = oracle(&model);
            let figures = engine::availability_bracketed_past(&model, false, 0);
            for ((_, f), (_, t)) in figures.iter().zip(&truth) {
                let cased = f
                    .why
                    .as_deref()
                    .is_some_and(|w| w.contains("likeliest case"));
                if cased && t.availability > 0.0 {
                    positive += 1;
                    close += u64::from(f.lower >= 0.9 * t.availability);
                }
            }
        }
    }
    // About one model in five is bracketed, and about one figure in nine
    // of the first two generators' is, with a truth above 0.
    assert!(bracketed * 8 >= models * 3, "{bracketed} models bracketed");
    assert!(
        positive * 12 >= models,
        "{positive} bracketed figures above 0"
    );
    assert!(
        close * 100 >= positive * 80,
        "{close} of {positive} within 10% of the truth"
    );
}

/// `n` alternatives of 3 instances at 99% and 100 each, sharing 100 × n.
fn alternatives(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let mut text = format!(
        "system: s\nentrypoints: [e]\ncomponents:\n  e: {{capacity: 100000, load: {}, depends_on: [{{any_of: [{}]}}]}}\n",
        100 * n,
        names.join(", ")
    );
    for name in &names {
        let _ = writeln!(
            text,
            "  {name}: {{instances: 3, availability: 99%, capacity: 100}}"
        );
    }
    text
}

/// What each component's capacity costs is worked out where its needs
/// form no cycle of more than 32 compiled components: each cost rebuilds
/// the structure for every fleet it tries. Two alternatives carrying 100
/// each: k0, k1 instances up; with both up each needs 1, with one out the
/// other carries 200 and needs 2. U = P(k0 = k1 = 0) + 2 P(k0 = 0)
/// P(k1 = 1) = 1e-12 + 2 × 1e-6 × (3 × 0.99 × 0.01²) = 1e-12 + 5.94e-10. a0's
/// capacity never binding takes off P(k0 = 1) P(k1 = 0) = 2.97e-10, and
/// so does a1's. Twelve such alternatives need each other in a cycle of 36
/// compiled components: no cost is given. (On the generated layered
/// 100-component model, whose compiled model holds a cycle of 120, the
/// costs did not finish in 15 minutes; the figures take 5 s.)
#[test]
fn capacity_costs_are_worked_out_where_the_needs_form_no_large_cycle() {
    let model = nines::model::parse(&alternatives(2)).expect("valid model");
    let f = &engine::availability(&model)[0].1;
    assert_eq!(f.method, Method::Exact, "{f:?}");
    assert!(
        (f.unavailability - (1e-12 + 5.94e-10)).abs() < 1e-18,
        "{f:?}"
    );
    let costs = &f.capacity.as_ref().expect("a capacity part").costs;
    let named: Vec<(&str, f64)> = costs
        .iter()
        .map(|c| (model.component(c.component).name.as_str(), c.added))
        .collect();
    assert_eq!(named.len(), 2, "{named:?}");
    for (name, (want, added)) in ["a0", "a1"].iter().zip(&named) {
        assert_eq!(name, want);
        assert!((added - 2.97e-10).abs() < 1e-18, "{named:?}");
    }
    let model = nines::model::parse(&alternatives(12)).expect("valid model");
    let f = &engine::availability(&model)[0].1;
    assert!(
        f.capacity
            .as_ref()
            .expect("a capacity part")
            .costs
            .is_empty()
    );
}

/// A lone shedding reliever with more counts than are tried (from a
/// review). id carries e's 100 and r's: r (capacity 50 an instance, load
/// 100 from e, shedding) passes 100 with 2 or more up, 50 with 1 and 0
/// with none, so id (2 × 75 = 150) carries 100 + 50 only when at most 1
/// of r's 18 instances is up: P(Bin(18, ½) ≤ 1) = 19 / 2¹⁸ = 7.25e-5.
/// The bound counted only r's top 16 counts, so P(none up) = 2⁻¹⁸: the
/// truth lay above the bracket.
#[test]
fn a_lone_reliever_with_more_counts_than_are_tried_still_bounds_the_figure() {
    let text = r"system: s
entrypoints: [e]
components:
  e: {instances: 1, capacity: 10000, load: 100, depends_on: [id, {target: r, degradable: true}]}
  r: {instances: 18, availability: 50%, capacity: 50, load_shedding: true, depends_on: [id]}
  id: {instances: 2, capacity: 75}
";
    let model = nines::model::parse(text).expect("valid model");
    let truth = oracle(&model)[0].1.availability;
    assert!((truth - 19.0 / 262_144.0).abs() < 1e-15, "{truth}");
    let f = &engine::availability(&model)[0].1;
    assert_eq!(f.method, Method::Bounded, "{f:?}");
    assert!(f.upper >= truth - 1e-15, "{f:?}");
    agrees(text).unwrap();
    for seed in [38981, 42648] {
        agrees(&random_capacity_model(seed)).unwrap_or_else(|why| panic!("seed {seed}: {why}"));
    }
    agrees(&random_pooled_model(7186)).unwrap_or_else(|why| panic!("pooled 7186: {why}"));
}

/// Two slow scenarios on `model` (ceilings and the shares edge limits
/// admit), each built by `State::after` from the intact state and from the
/// other, and the first with each of `losses` on top of it, against the
/// state that works out everything.
fn slow_states_agree(model: &Model, flow: &Flow, intact: &State, losses: &[Scenario], seed: u64) {
    let slow = [slow_scenario(model, seed, 1), slow_scenario(model, seed, 2)];
    let slowed = State::new(model, flow, &slow[0]);
    for (base, scenario) in [(intact, &slow[0]), (intact, &slow[1]), (&slowed, &slow[1])] {
        let after = State::after(model, flow, base, scenario);
        let full = State::new_recomputing_everything(model, flow, scenario);
        assert_eq!(
            format!("{after:?}"),
            format!("{full:?}"),
            "seed {seed}, {scenario:?}"
        );
        assert_eq!(
            format!("{:?}", after.settle(model, flow)),
            format!("{:?}", full.settle_recomputing_everything(model, flow)),
            "seed {seed}, {scenario:?}"
        );
    }
    for loss in losses {
        let deeper = slow[0].and(loss);
        let after = State::after(model, flow, &slowed, &deeper);
        let full = State::new_recomputing_everything(model, flow, &deeper);
        assert_eq!(
            format!("{after:?}"),
            format!("{full:?}"),
            "seed {seed}, {deeper:?}"
        );
    }
}

/// One of `values`, drawn.
fn pick<T: Copy>(draw: &mut impl FnMut(u64) -> u64, values: &[T]) -> T {
    let len = u64::try_from(values.len()).unwrap_or(u64::MAX);
    values[usize::try_from(draw(len)).unwrap_or(0)]
}

/// A slow scenario on `model` as `analyze::slow` writes one: a ceiling
/// (what a component serves and takes in a second) on about a third of
/// the components and an admitted share on about a third of the edges.
fn slow_scenario(model: &Model, seed: u64, variant: u64) -> Scenario {
    let mut draw = draws(seed.wrapping_add(variant), 0x2545_f491_4f6c_dd1d);
    let mut scenario = Scenario::default();
    for id in model.component_ids() {
        if draw(3) == 0 {
            let serves = pick(&mut draw, &[0.0, 5.0, 20.0, 40.0, 80.0, 200.0]);
            let admits = serves + pick(&mut draw, &[0.0, 10.0, 50.0]);
            scenario
                .ceilings
                .push((id, nines::engine::scenario::Ceiling { serves, admits }));
        }
        for e in 0..model.component(id).depends_on.len() {
            if draw(3) == 0 {
                scenario
                    .admitted
                    .push((id, e, pick(&mut draw, &[0.0, 0.25, 0.5, 0.9])));
            }
        }
    }
    scenario
}

/// `State::settle`, `State::new` and `State::after` work out again only
/// what a change reaches (the targets of a component whose passing moved,
/// the readers of an alternative or cache whose flags changed, what a
/// failover moves into, and who is up and ok upward of what stopped
/// running or is not within). Each must give exactly what working out
/// every load, and who is up and ok, over the whole model gives: on 4 ×
/// 150 random models, every domain lost, every component lost whole, one
/// instance of each, and the caches cold at twice the load; `after` from
/// the intact state, the settled one, a lost zone's, and slow scenarios
/// (ceilings and edge admissions) from the intact state and from another
/// slow scenario (a base read under other admitted shares once kept its
/// loads: b offered 40 where 80 × 0.25 = 20 reaches it).
#[test]
fn a_settle_that_works_out_only_what_changed_is_the_full_settle() {
    let generators: [fn(u64) -> String; 4] = [
        random_capacity_model,
        random_pooled_model,
        random_loaded_model,
        random_gated_model,
    ];
    let mut compared = 0;
    for generate in generators {
        for seed in 0..150 {
            let Ok(model) = nines::model::parse(&generate(seed)) else {
                continue;
            };
            let flow = Flow::new(&model);
            let mut scenarios: Vec<Scenario> = (0..model.domains.len())
                .map(|d| Scenario {
                    domains: vec![DomainId(d)],
                    ..Scenario::default()
                })
                .collect();
            for id in model.component_ids() {
                let instances = model.component(id).instances;
                for lost in [instances, 1] {
                    scenarios.push(Scenario {
                        failed_instances: vec![(id, lost)],
                        ..Scenario::default()
                    });
                }
            }
            scenarios.push(Scenario {
                load_factor: 2.0,
                cold: true,
                ..Scenario::default()
            });
            let intact = State::new(&model, &flow, &Scenario::default());
            let settled = intact.clone().settle(&model, &flow);
            let first_zone = scenarios.first().cloned().unwrap_or_default();
            let zone = State::new(&model, &flow, &first_zone);
            slow_states_agree(&model, &flow, &intact, &scenarios, seed);
            for scenario in &scenarios {
                let full_new = State::new_recomputing_everything(&model, &flow, scenario);
                let state = State::new(&model, &flow, scenario);
                let reference = format!("{full_new:?}");
                assert_eq!(format!("{state:?}"), reference, "seed {seed}, {scenario:?}");
                // Built from the intact state, from the settled one (which
                // may have stopped what the scenario runs), and from a
                // lost zone's state with more lost on top of it.
                for base in [&intact, &settled] {
                    let after = State::after(&model, &flow, base, scenario);
                    assert_eq!(format!("{after:?}"), reference, "seed {seed}, {scenario:?}");
                }
                let deeper = first_zone.and(scenario);
                let after = State::after(&model, &flow, &zone, &deeper);
                assert_eq!(
                    format!("{after:?}"),
                    format!(
                        "{:?}",
                        State::new_recomputing_everything(&model, &flow, &deeper)
                    ),
                    "seed {seed}, {deeper:?} from {first_zone:?}"
                );
                let tracked = state.clone().settle(&model, &flow);
                let full = full_new.settle_recomputing_everything(&model, &flow);
                assert_eq!(
                    format!("{tracked:?}"),
                    format!("{full:?}"),
                    "seed {seed}, {scenario:?}"
                );
                let after = State::after(&model, &flow, &intact, scenario).settle(&model, &flow);
                assert_eq!(
                    format!("{after:?}"),
                    format!("{full:?}"),
                    "seed {seed}, {scenario:?}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 5000, "{compared}");
}

/// Seventeen pairs, each an `any_of` of two single instances of 60 that
/// share 100 of web's load: 50 each with both ok, 100 on one alone, which
/// 60 cannot carry. So each alternative needs the other ok, a need that
/// changes with what is lost in 34 components, past the 32 compiled
/// exactly: the bracket. Taken at its largest need (the other out), each
/// was never up and the lower end was 0. Each has one case only (1
/// instance, the other ok), so its likeliest case is the truth, and the
/// lower end is exact by hand: web (99.9%) needs every one of the 34,
/// 0.999 × 0.999^34 = 0.999^35 = 0.965605.... The upper end is the
/// capacity-blind figure: web and one of each pair, 0.999 × (1 − 0.001²)^17.
#[test]
fn a_bracket_past_the_needs_compiled_exactly_takes_each_at_its_likeliest_case() {
    let mut text = String::from(
        "system: pairs\nentrypoints: [web]\ncomponents:\n  web:\n    availability: 99.9%\n    capacity: 1000\n    load: 100\n    depends_on:\n",
    );
    for i in 0..17 {
        let _ = writeln!(text, "      - {{any_of: [a{i}, b{i}]}}");
    }
    for i in 0..17 {
        for side in ["a", "b"] {
            let _ = writeln!(text, "  {side}{i}: {{availability: 99.9%, capacity: 60}}");
        }
    }
    let model = nines::model::parse(&text).expect("valid model");
    let compiled = engine::capacity::compile(&model, false);
    assert!(compiled.bracketed, "34 needs that change, past 32");
    let figures = engine::availability(&model);
    let f = &figures[0].1;
    assert_eq!(f.method, Method::Bounded, "{f:?}");
    let by_hand = 0.999_f64.powi(35);
    assert!(
        (f.lower - by_hand).abs() < 1e-12,
        "{} against {by_hand}",
        f.lower
    );
    let blind = 0.999 * (1.0 - 0.001_f64 * 0.001).powi(17);
    assert!(
        (f.upper - blind).abs() < 1e-12,
        "{} against {blind}",
        f.upper
    );
    assert!(
        f.why
            .as_deref()
            .is_some_and(|w| w.contains("likeliest case")),
        "{:?}",
        f.why
    );
}
