//! N-k over every credible loss and `what-if` that looks at the next loss
//! (issue 28: "What is wrong today" 5 to 8, build items 2, 4 and 5): each
//! reproducer through `nines check` or `nines what-if`, with the numbers
//! worked by hand, and the properties over random models: the local
//! working of a whole-component loss is the full state's, and losing more
//! never makes a scenario's figure better.

use nines::engine::component_loss::{After, Losses, rose};
use nines::engine::scenario::Scenario;
use nines::engine::state::{Flow, State};
use nines::model::{ComponentId, DomainId, GroupId, Model};

use crate::capacity::{random_capacity_model, random_pooled_model};

/// The components whose load rises when `lost` are lost whole on top of
/// `scenario`, from the full state of the combined scenario.
fn full_rises(
    model: &Model,
    flow: &Flow,
    scenario: &Scenario,
    state: &State,
    lost: &[ComponentId],
) -> Vec<(ComponentId, f64)> {
    let lost: Vec<ComponentId> = lost
        .iter()
        .copied()
        .filter(|id| state.of(*id).running)
        .collect();
    let event = Scenario {
        failed_instances: lost
            .iter()
            .map(|&id| (id, state.of(id).instances_up))
            .collect(),
        ..Scenario::default()
    };
    let after = State::new(model, flow, &scenario.and(&event));
    model
        .component_ids()
        .filter(|id| !lost.contains(id))
        .filter_map(|id| {
            let load = after.of(id).offered?;
            rose(state.of(id).offered, load).then_some((id, load))
        })
        .collect()
}

/// Compares the local working with the full state for every component and
/// group of `text`, in the intact state and after losing each domain.
fn local_agrees(text: &str) -> Result<usize, String> {
    let Ok(model) = nines::model::parse(text) else {
        return Ok(0);
    };
    let flow = Flow::new(&model);
    let mut scenarios = vec![Scenario::default()];
    scenarios.extend((0..model.domains.len()).map(|d| Scenario {
        domains: vec![DomainId(d)],
        ..Scenario::default()
    }));
    scenarios.push(Scenario {
        cold: true,
        ..Scenario::default()
    });
    let mut compared = 0;
    for scenario in &scenarios {
        let state = State::new(&model, &flow, scenario);
        let losses = Losses::new(&model, &flow, &state, scenario);
        let mut sets: Vec<Vec<ComponentId>> = model.component_ids().map(|id| vec![id]).collect();
        for g in 0..model.groups.len() {
            sets.push(
                model
                    .component_ids()
                    .filter(|&id| model.component(id).shares.contains(&GroupId(g)))
                    .collect(),
            );
        }
        for lost in sets {
            let mut budget = u64::MAX;
            let After::Rises(local) = losses.after_losing(&lost, None, &mut budget) else {
                return Err(format!("{lost:?}: not computed\n{text}"));
            };
            let full = full_rises(&model, &flow, scenario, &state, &lost);
            let same = local.len() == full.len()
                && local
                    .iter()
                    .zip(&full)
                    .all(|((a, x), (b, y))| a == b && (x - y).abs() <= 1e-9 * (1.0 + y.abs()));
            if !same {
                return Err(format!(
                    "losing {lost:?} in {scenario:?}: local {local:?}, full {full:?}\n{text}"
                ));
            }
            compared += 1;
        }
    }
    Ok(compared)
}

#[test]
fn a_whole_component_loss_worked_out_locally_is_the_full_state() {
    let mut compared = 0;
    for seed in 0..300 {
        let text = random_capacity_model(seed);
        compared += local_agrees(&text).unwrap_or_else(|why| panic!("seed {seed}: {why}"));
        let text = nines::generate::random_small(seed);
        compared += local_agrees(&text).unwrap_or_else(|why| panic!("small seed {seed}: {why}"));
        // Request pools hold components at ceilings in every state.
        let text = random_pooled_model(seed);
        compared += local_agrees(&text).unwrap_or_else(|why| panic!("pooled seed {seed}: {why}"));
    }
    assert!(compared > 5_000, "{compared}");
}

/// `text` with an `mttr` on every component and zone that has a figure,
/// so that switchover terms are known.
fn with_mttr(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("    availability: ") {
            // random_small: one key a line.
            out.push_str(line);
            out.push_str("\n    mttr: 30m\n");
        } else if line.contains(", availability: ") && line.trim_end().ends_with('}') {
            let mut line = line.trim_end().to_owned();
            line.pop();
            out.push_str(&line);
            out.push_str(", mttr: 1h}\n");
        } else if line.contains("{availability: ") && line.trim_end().ends_with('}') {
            let mut line = line.trim_end().to_owned();
            line.pop();
            out.push_str(&line);
            out.push_str(", mttr: 2h}\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A random loss of `model`: some domains, groups and instances.
fn random_loss(model: &Model, rng: &mut u64) -> Scenario {
    let mut next = |n: usize| -> usize {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        usize::try_from(*rng % n.max(1) as u64).unwrap_or(0)
    };
    let mut s = Scenario::default();
    for d in 0..model.domains.len() {
        if next(5) == 0 {
            s.domains.push(DomainId(d));
        }
    }
    for g in 0..model.groups.len() {
        if next(4) == 0 {
            s.groups.push(GroupId(g));
        }
    }
    for id in model.component_ids() {
        if next(4) == 0 {
            let n = 1 + next(model.component(id).instances as usize);
            s.failed_instances
                .push((id, u32::try_from(n).unwrap_or(u32::MAX)));
        }
    }
    s
}

/// The figures of `model` in `scenario`, as `what-if` computes them.
fn figures_in(model: &Model, scenario: &Scenario) -> Vec<(ComponentId, nines::engine::Figure)> {
    let degraded = nines::analyze::what_if::down_for_figures(model, scenario);
    nines::engine::availability_with(&degraded, scenario.cold)
}

/// Losing a superset never lowers the conservative end of the figure
/// (`unavailability_upper`, the lower end of the availability bracket)
/// without its switchover term; losing nothing changes nothing.
///
/// The lower end is the monotone one: the figure counts no relief (a lost
/// caller's load stays on what it called), so every loss removes instances
/// or makes something down for certain in a coherent structure with
/// capacity thresholds that only rise. The upper end may fall: it allows
/// for relief, and relief is real (losing one entrypoint takes its load
/// off a store another needs). The switchover term is left out because it
/// falls by design when a loss takes an active alternative for good: its
/// standby then serves, and with no standby behind it its failures are
/// outages the structure counts, not switchovers (`losing_the_active_side_ends_its_switchovers`).
fn monotone(text: &str, seed: u64) -> Result<usize, String> {
    let Ok(model) = nines::model::parse(text) else {
        return Ok(0);
    };
    let intact = nines::engine::availability(&model);
    if figures_in(&model, &Scenario::default()) != intact {
        return Err(format!("losing nothing changed the figures\n{text}"));
    }
    let mut rng = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
    let mut compared = 0;
    for _ in 0..4 {
        let a = random_loss(&model, &mut rng);
        let more = random_loss(&model, &mut rng);
        let mut b = a.and(&more);
        // Repeated counts of one component add up to at most its instances.
        let mut failed: Vec<(ComponentId, u32)> = Vec::new();
        for (id, n) in b.failed_instances {
            match failed.iter_mut().find(|(c, _)| *c == id) {
                Some((_, m)) => *m = (*m + n).min(model.component(id).instances),
                None => failed.push((id, n)),
            }
        }
        b.failed_instances = failed;
        b.domains.sort_unstable();
        b.domains.dedup();
        b.groups.sort_unstable();
        b.groups.dedup();
        for (scenario, superset) in [(&Scenario::default(), &a), (&a, &b)] {
            let (fa, fb) = (figures_in(&model, scenario), figures_in(&model, superset));
            for ((e, x), (_, y)) in fa.iter().zip(&fb) {
                // The term is added and clamped at 1: at 1 the static part
                // is only known to be at least 1 − switchover, and a
                // figure at 1 is as bad as it gets.
                let (ux, uy) = (
                    x.unavailability_upper - x.switchover,
                    y.unavailability_upper - y.switchover,
                );
                if y.unavailability_upper < 1.0 - 1e-12 && uy < ux - 1e-12 {
                    return Err(format!(
                        "{}: {ux:e} losing {scenario:?}, {uy:e} losing more {superset:?}\n{text}",
                        model.component(*e).name
                    ));
                }
                compared += 1;
            }
        }
    }
    Ok(compared)
}

#[test]
fn losing_more_never_lowers_the_unavailability_and_losing_nothing_changes_nothing() {
    let mut compared = 0;
    for seed in 0..150 {
        for text in [
            with_mttr(&random_capacity_model(seed)),
            with_mttr(&nines::generate::random_small(seed)),
            with_mttr(&random_pooled_model(seed)),
        ] {
            compared += monotone(&text, seed).unwrap_or_else(|why| panic!("seed {seed}: {why}"));
        }
    }
    assert!(compared > 1_000, "{compared}");
}

fn what_if(name: &str, text: &str, lose: &[&str]) -> (crate::Run, serde_json::Value) {
    let args = nines::cli::WhatIfArgs {
        model: name.to_owned(),
        lose: lose.iter().map(|s| (*s).to_owned()).collect(),
        cold: false,
        scale_load: None,
        set: Vec::new(),
        slow: Vec::new(),
        format: nines::cli::WhatIfFormat::Json,
        today: Some("2026-11-30".to_owned()),
    };
    let run = crate::capture(|terminal| nines::cli::what_if_source(name, text, &args, terminal));
    let json = serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr));
    (run, json)
}

pub(crate) fn check_json(name: &str, text: &str) -> serde_json::Value {
    let run = crate::check(name, text, nines::cli::Format::Json);
    serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr))
}

fn ids(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

pub(crate) fn finding<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no {id}: {:#}", report["findings"]))
}

fn row<'a>(report: &'a serde_json::Value, component: &str, lost: &str) -> &'a serde_json::Value {
    report["headroom"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["component"] == component && r["lost"] == lost)
        .unwrap_or_else(|| panic!("no row {component}/{lost}: {:#}", report["headroom"]))
}

/// Reproducer 5: both cache nodes in z1, the database only in z2 and z3.
const CACHE_IN_ONE_ZONE: &str = r"system: cache-zone
domains: {z1: {kind: zone}, z2: {kind: zone}, z3: {kind: zone}}
entrypoints: [web]
components:
  web:
    instances: 3
    placement: [z1, z2, z3]
    capacity: 1000
    load: 1500
    load_shedding: true
    depends_on:
      - {target: cache, degradable: true}
      - {target: db, hit_rate: 90%, cached_by: cache}
  cache: {instances: 2, placement: [z1]}
  db: {instances: 2, placement: [z2, z3], capacity: 200, load: 150}
";

#[test]
fn losing_the_zone_of_the_cache_overloads_the_database_it_does_not_hold() {
    let report = check_json("cache-zone.yaml", CACHE_IN_ONE_ZONE);
    // z1 takes one web instance (2 × 1000 = 2000 ≥ 1500: web sheds nothing
    // and passes all 1500) and both cache nodes: db gets its 150 plus the
    // misses that were hits, 150 + 1500 × 0.9 = 1500, on 2 × 200 = 400:
    // 375%. db holds nothing in z1, yet the row is db's.
    let z1 = row(&report, "db", "z1");
    assert_eq!(z1["survivors"], 2);
    assert_eq!(z1["utilization"], 3.75);
    assert_eq!(z1["ok"], false);
    // ceil(1500 / 200) = 8 instances, 4 per zone over db's 2 zones.
    assert_eq!(
        (z1["required_instances"].as_u64(), z1["per_domain"].as_u64()),
        (Some(8), Some(4))
    );
    let f = finding(&report, "headroom/db/z1");
    assert_eq!(f["severity"], "error");
    assert_eq!(
        f["message"],
        "losing z1 (zone) raises the load on db from 150 to 1500, on 2 of its 2 instances: 1500 / (2 × 200) = 375% of capacity, above the 100% ceiling; without load_shedding the survivors overload and fail in turn, each failure moving its load onto fewer instances until none is left (a capacity redistribution cascade)"
    );
    assert_eq!(
        f["help"],
        "run 8 instances, 4 per zone over 2 zones: at peak 8 instances are needed at 100% (ceil(1500 / (200 × 1))), spread over its 2 zones; that fleet runs at 9% in steady state"
    );
    // Losing the cache whole (both nodes) is the same flood, an N-1 row of
    // its own; one cache node is not (the other answers the hits).
    assert_eq!(row(&report, "db", "cache")["utilization"], 3.75);
    let help = finding(&report, "headroom/db/cache")["help"]
        .as_str()
        .unwrap();
    // 150 / (8 × 200) = 9% before the loss.
    assert_eq!(
        help,
        "run 8 instances of db (6 more): at peak 8 instances are needed at 100% (ceil(1500 / (200 × 1))) for the load this loss sends it; that fleet runs at 9% in steady state"
    );
    // z2 or z3 leaves db 1 of 2 with its 150: 75%, rows that pass.
    assert_eq!(row(&report, "db", "z2")["utilization"], 0.75);
}

#[test]
fn losing_one_of_two_providers_or_their_release_is_an_n_minus_one_row() {
    // checkout sends 400 to any_of [pay-a, pay-b], 200 each, of 300 each.
    // Losing pay-a whole sends pay-b all 400: 400 / 300 = 133%. pay-a shares
    // a release train with nothing else: losing it is the same 133%.
    let text = r"system: pay
shared_fate: {train: {}}
entrypoints: [checkout]
components:
  checkout: {instances: 2, capacity: 500, load: 400, depends_on: [{any_of: [pay-a, pay-b]}]}
  pay-a: {capacity: 300, shares: [train]}
  pay-b: {capacity: 300}
";
    let report = check_json("pay.yaml", text);
    for lost in ["pay-a", "train"] {
        let r = row(&report, "pay-b", lost);
        assert!((r["utilization"].as_f64().unwrap() - 400.0 / 300.0).abs() < 1e-12);
        // ceil(400 / 300) = 2: one more.
        assert_eq!(r["required_instances"], 2);
    }
    assert_eq!(
        finding(&report, "headroom/pay-b/pay-a")["message"],
        "losing pay-a whole (1 instance) raises the load on pay-b from 200 to 400, on 1 of its 1 instances: 400 / (1 × 300) = 133% of capacity, above the 100% ceiling; without load_shedding the survivors overload and fail in turn, each failure moving its load onto fewer instances until none is left (a capacity redistribution cascade)"
    );
    assert!(
        finding(&report, "headroom/pay-b/train")["message"]
            .as_str()
            .unwrap()
            .starts_with(
                "losing train (shared-fate group) raises the load on pay-b from 200 to 400"
            )
    );
    // checkout's own loss takes the entrypoint down: an outage, no rows.
    assert!(
        report["headroom"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["lost"] != "checkout")
    );
}

#[test]
fn a_primary_is_told_to_add_a_replica_or_resize_not_to_run_more_of_it() {
    // db-primary carries all of api's 1000 (the standby carries nothing
    // until it is out) on 600: overload/db-primary at 167%. It is the
    // active side of a standby any_of: "run 2 instances" would be a second
    // primary; the help is a read replica or a node of 1000 or more.
    let text = r"system: standby
entrypoints: [api]
components:
  api:
    instances: 4
    capacity: 1000
    load: 1000
    depends_on:
      - {any_of: [db-primary, db-standby], switchover: 30s}
  db-primary: {capacity: 600}
  db-standby: {capacity: 600}
  ledger: {instances: 2, capacity: 100, load: 150, recovery: {failover: 5m}}
";
    let report = check_json("standby.yaml", text);
    let help = finding(&report, "overload/db-primary")["help"]
        .as_str()
        .unwrap();
    assert_eq!(
        help,
        "db-primary is a primary (the active side of api's `any_of` with the standby db-standby), not a fleet: more instances of it are not more primaries; take reads off it with a read replica behind its callers, or resize it: carrying 1000 within 100% takes 1000 where its 1 × 600 give 600"
    );
    // A recovery that fails over makes ledger a primary too: losing one of
    // its 2 nodes leaves 150 / 100 = 150%.
    let help = finding(&report, "headroom/ledger/instance")["help"]
        .as_str()
        .unwrap();
    assert!(
        help.starts_with("ledger is a primary (its recovery fails over to a standby), not a fleet"),
        "{help}"
    );
    // Losing the primary whole hands the standby all 1000: 167%.
    assert!(
        (row(&report, "db-standby", "db-primary")["utilization"]
            .as_f64()
            .unwrap()
            - 1000.0 / 600.0)
            .abs()
            < 1e-12
    );
}

#[test]
fn overload_does_not_propose_load_shedding_to_a_component_that_sheds() {
    let report = check_json(
        "shed.yaml",
        "system: s\ncomponents:\n  edge: {instances: 2, capacity: 500, load: 1200, load_shedding: true}\n  core: {instances: 2, capacity: 500, load: 1200}\n",
    );
    // ceil(1200 / 500) = 3 for both; only core is offered load shedding.
    let edge = finding(&report, "overload/edge")["help"].as_str().unwrap();
    assert_eq!(
        edge,
        "run 3 instances (ceil(1200 / (500 × 1))) or cut the load reaching it"
    );
    let core = finding(&report, "overload/core")["help"].as_str().unwrap();
    assert!(
        core.ends_with(
            "`load_shedding: true` (admission control) serves what fits and refuses the rest"
        ),
        "{core}"
    );
}

/// Reproducers 6 and 8: six instances of 100 over three zones at 300.
const SIX: &str = r"system: fleet
domains: {az-a: {kind: zone}, az-b: {kind: zone}, az-c: {kind: zone}}
components:
  api: {instances: 6, placement: [az-a, az-b, az-c], capacity: 100, load: 300}
";

#[test]
fn what_if_looks_at_the_next_zone() {
    let (run, out) = what_if("six.yaml", SIX, &["az-a"]);
    // After az-a: 4 of 6 at 300 / 400 = 75%. The next zone leaves 2: 300 /
    // (2 × 100) = 150%, errors (survive 1 is asked of the changed state);
    // one more instance leaves 3: 100%, ok.
    assert_eq!(
        ids(&out["introduced"]),
        ["headroom/api/az-b", "headroom/api/az-c"]
    );
    assert_eq!(ids(&out["resolved"]), Vec::<&str>::new());
    assert_eq!(run.outcome, nines::cli::Outcome::Fail);
    let r = row(&out["after"], "api", "az-b");
    assert_eq!(
        (r["survivors"].as_u64(), r["utilization"].as_f64()),
        (Some(2), Some(1.5))
    );
    // The sizing counts from the 6 deployed: 3 up in the zone left after
    // az-a and az-b, 3 per zone, 9.
    assert_eq!(r["required_instances"], 9);
}

#[test]
fn after_two_zones_the_help_never_reads_as_a_scale_down() {
    let (_, out) = what_if("six.yaml", SIX, &["az-a", "az-b"]);
    let after = &out["after"];
    // 2 of 6 up at 300 / 200 = 150%: 3 needed up in az-c alone, 3 per zone
    // over the 3 zones, 9 (the old help said "run 3 instances").
    assert_eq!(
        finding(after, "overload/api")["help"],
        "run 9 instances, 3 per zone over 3 zones (6 are deployed): 3 are needed at peak (ceil(300 / (100 × 1))), and they must fit in the 1 zone left after this scenario's loss of az-a and az-b, or cut the load reaching it; where overload must be survived for a while, `load_shedding: true` (admission control) serves what fits and refuses the rest"
    );
    // One more instance: N+1 needs 4 up in az-c, 4 per zone, 12 (the old
    // help said "run 4 instances of api").
    let help = finding(after, "headroom/api/instance")["help"]
        .as_str()
        .unwrap();
    assert!(
        help.starts_with("run 12 instances, 4 per zone over 3 zones (6 are deployed): at peak 3 instances are needed at 100% (ceil(300 / (100 × 1))), plus one spare, and they must fit in the 1 zone left after this scenario's loss of az-a and az-b"),
        "{help}"
    );
    // Losing az-c counts what it takes, after what was already down.
    let spof = finding(after, "spof/az-c")["message"].as_str().unwrap();
    assert!(
        spof.contains("api (2 of 6 instances, after 4 already down: 0 left)"),
        "{spof}"
    );
    for f in after["findings"].as_array().unwrap() {
        let help = f["help"].as_str().unwrap_or_default();
        for n in 1..=6 {
            assert!(!help.contains(&format!("run {n} instances")), "{help}");
        }
    }
}

#[test]
fn a_loss_never_resolves_a_finding_about_a_further_loss() {
    // Before: losing one of db's 3 nodes leaves 210 / 200 = 105%
    // (headroom/db/instance). Losing web, db's only caller, takes its 210
    // off db: the row passes, but losing web fixed nothing.
    let text = "system: s\nentrypoints: [web, admin]\ncomponents:\n  web: {instances: 2, capacity: 500, load: 210, depends_on: [db]}\n  admin: {}\n  db: {instances: 3, capacity: 100}\n";
    let (_, out) = what_if("relief.yaml", text, &["web"]);
    assert!(
        ids(&out["before"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].clone())
            .collect::<serde_json::Value>())
        .contains(&"headroom/db/instance")
    );
    assert_eq!(ids(&out["resolved"]), Vec::<&str>::new());
}

/// Reproducer 7: a gateway over api and a DR copy, api over two databases,
/// every figure with its mttr.
const DR: &str = r"system: dr
domains:
  a: {kind: zone, availability: 99.9%, mttr: 1h}
  b: {kind: zone, availability: 99.9%, mttr: 1h}
entrypoints: [gw]
components:
  gw: {depends_on: [{any_of: [api, api-dr], switchover: 20m}]}
  api:
    instances: 2
    placement: [a, b]
    availability: 99.5%
    mttr: 2h
    depends_on: [{any_of: [db-a, db-b], switchover: 2m}]
  api-dr: {availability: 99.9%, mttr: 1h}
  db-a: {availability: 99.9%, mttr: 1h}
  db-b: {availability: 99.9%, mttr: 1h}
";

#[test]
fn losing_a_zone_costs_at_least_what_losing_its_instance_costs() {
    let unavailability = |lose: &str| {
        let (_, out) = what_if("dr.yaml", DR, &[lose]);
        let gw = &out["after"]["availability"]["gw"];
        (
            gw["unavailability"].as_f64().unwrap(),
            gw["switchover"].as_f64().unwrap(),
        )
    };
    // After zone a (or api:1, taken from the last zone): api is one
    // instance, in b. Switchover from api: q / mttr = 0.005 / 2h, and zone b
    // now holds all of api: 0.001 / 1h; (0.0025 + 0.001) / h × 20 min =
    // 1.1667e-3. From db-a (api's own edge): 0.001 / 1h × 2 min = 3.33e-5.
    // Σ 1.2e-3. The structure: gw is down when api and api-dr are: api is
    // down unless its instance, zone b and a database are up,
    // 1 − 0.995 × 0.999 × (1 − 0.001²) = 5.996e-3, api-dr 0.001: 5.996e-6.
    // U = 1.2e-3 + 6.0e-6 = 1.206e-3, 10.57 h a year (was 0.33 h intact;
    // the intact instances kept in the count gave 0.38 h after losing a).
    let (zone, zone_switchover) = unavailability("a");
    let (instance, _) = unavailability("api:1");
    assert!(
        (zone_switchover - 1.2e-3).abs() < 1e-12,
        "{zone_switchover}"
    );
    let by_hand = 1.2e-3 + (1.0 - 0.995 * 0.999 * (1.0 - 1e-6)) * 0.001;
    assert!((zone - by_hand).abs() < 1e-12, "{zone} vs {by_hand}");
    assert!(zone >= instance - 1e-15, "{zone} < {instance}");
}

#[test]
fn losing_the_active_side_ends_its_switchovers() {
    // gw over a flaky api (99%, mttr 1h) and a DR copy (99.99%), 20 min to
    // switch: intact, 0.01 / h × 1/3 h = 3.33e-3 of switchovers on top of
    // 0.01 × 1e-4 = 1e-6. With api lost for good the DR copy serves and
    // nothing is behind it: its failures are outages, 1e-4, and none is a
    // switchover. The figure falls, by design: why the monotone property
    // leaves the switchover term out.
    let text = "system: s\nentrypoints: [gw]\ncomponents:\n  gw: {depends_on: [{any_of: [api, api-dr], switchover: 20m}]}\n  api: {availability: 99%, mttr: 1h}\n  api-dr: {availability: 99.99%, mttr: 1h}\n";
    let (_, out) = what_if("s.yaml", text, &["api"]);
    let before = out["before"]["availability"]["gw"]["unavailability"]
        .as_f64()
        .unwrap();
    let after = out["after"]["availability"]["gw"]["unavailability"]
        .as_f64()
        .unwrap();
    assert!((before - (0.01 / 3.0 + 1e-6)).abs() < 1e-12, "{before}");
    assert!((after - 1e-4).abs() < 1e-12, "{after}");
    assert_eq!(out["after"]["availability"]["gw"]["switchover"], 0.0);
}

/// Each of `check`'s headroom rows for a domain lost is the state
/// `what-if --lose` that domain shows: the same survivors, and the same
/// utilization where nothing but the instances and a request pool bound
/// what they carry (a `rate_limit` row reads the limit, a state row the
/// capacity); and what-if's state overloads a component only where the
/// row is an error. Returns how many rows were compared.
fn headroom_is_the_what_if_state(name: &str, text: &str) -> Result<usize, String> {
    let Ok(model) = nines::model::parse(text) else {
        return Ok(0);
    };
    let report = check_json(name, text);
    let domains: std::collections::BTreeSet<&str> =
        model.domains.iter().map(|d| d.name.as_str()).collect();
    let mut by_loss: std::collections::BTreeMap<String, Vec<&serde_json::Value>> =
        std::collections::BTreeMap::new();
    for row in report["headroom"].as_array().into_iter().flatten() {
        let lost = row["lost"].as_str().unwrap_or_default();
        if domains.contains(lost) {
            by_loss.entry(lost.to_owned()).or_default().push(row);
        }
    }
    let mut compared = 0;
    for (lost, rows) in by_loss {
        let (_, after) = what_if(name, text, &[lost.as_str()]);
        for row in rows {
            let component = row["component"].as_str().unwrap_or_default();
            let state = &after["after"]["state"][component];
            if state["instances_up"] != row["survivors"] {
                return Err(format!(
                    "{component} after losing {lost}: {} survivors in check's row, {} up in what-if's state\n{text}",
                    row["survivors"], state["instances_up"]
                ));
            }
            let limited = model
                .components
                .iter()
                .find(|c| c.name == component)
                .is_some_and(|c| c.rate_limit.is_some());
            if limited {
                continue;
            }
            // The verdicts agree too: what-if's state overloads a
            // component (an error: it collapses) only where check's row for
            // that loss is an error. A full request pool refuses what it
            // cannot take in, which both call a warning.
            let plain = model
                .components
                .iter()
                .find(|c| c.name == component)
                .is_some_and(|c| !c.load_shedding && c.depends_on.iter().all(|e| !e.pull));
            let error = |report: &serde_json::Value, id: &str| {
                report["findings"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|f| f["id"] == id && f["severity"] == "error")
            };
            if plain
                && error(&after["after"], &format!("overload/{component}"))
                && !error(&report, &format!("headroom/{component}/{lost}"))
            {
                return Err(format!(
                    "{component} after losing {lost}: what-if's state overloads it, check's row is not an error\n{text}"
                ));
            }
            let (Some(a), Some(b)) = (row["utilization"].as_f64(), state["utilization"].as_f64())
            else {
                continue;
            };
            if (a - b).abs() > 1e-9 * a.abs().max(1.0) {
                return Err(format!(
                    "{component} after losing {lost}: {a} in check's row, {b} in what-if's state\n{text}"
                ));
            }
            compared += 1;
        }
    }
    Ok(compared)
}

#[test]
fn a_headroom_row_is_the_state_what_if_shows_for_that_loss() {
    let mut compared = 0;
    for seed in 0..60 {
        for (name, text) in [
            ("capacity", random_capacity_model(seed)),
            ("pooled", random_pooled_model(seed)),
        ] {
            compared += headroom_is_the_what_if_state(name, &text)
                .unwrap_or_else(|why| panic!("{name} seed {seed}: {why}"));
        }
    }
    assert!(compared > 100, "{compared}");
}
