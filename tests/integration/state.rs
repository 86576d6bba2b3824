//! The system state under failure (issue 10): each reproducer of the issue
//! through `nines what-if` and `nines check`, with the numbers worked by
//! hand, and the load-flow properties over random models and scenarios.

use std::fmt::Write as _;
use std::path::Path;

use nines::cli::{Outcome, WhatIfArgs, WhatIfFormat, what_if_source};
use nines::engine::scenario::Scenario;
use nines::engine::state::{Flow, State};
use nines::model::{ComponentId, DomainId, GroupId};
use proptest::prelude::*;

use crate::Run;

fn what_if(name: &str, text: &str, lose: &[&str], cold: bool) -> (Run, serde_json::Value) {
    let args = WhatIfArgs {
        model: name.to_owned(),
        lose: lose.iter().map(|s| (*s).to_owned()).collect(),
        cold,
        scale_load: None,
        set: Vec::new(),
        slow: Vec::new(),
        format: WhatIfFormat::Json,
        today: Some("2026-11-30".to_owned()),
    };
    let run = crate::capture(|terminal| what_if_source(name, text, &args, terminal));
    let json = serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr));
    (run, json)
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models")
            .join(name),
    )
    .unwrap()
}

fn ids(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn losing_one_of_two_zones_makes_the_other_a_spof_and_one_instance_too_many() {
    let text = r"system: s
domains: {z1: {kind: zone}, z2: {kind: zone}}
components:
  api: {instances: 4, placement: [z1, z2], capacity: 100, load: 150}
";
    let (run, out) = what_if("two-zones.yaml", text, &["z1"], false);
    // After z1: api has 2 of 4, 150 / (2 × 100) = 75%; losing z2 takes it all
    // (spof/z2); losing one more instance leaves 150 / 100 = 150% (headroom).
    assert_eq!(
        ids(&out["introduced"]),
        ["headroom/api/instance", "spof/z2"]
    );
    assert_eq!(ids(&out["resolved"]), Vec::<&str>::new());
    assert_eq!(
        out["after"]["state"]["api"],
        serde_json::json!({"up": true, "instances_up": 2, "load": 150.0, "capacity": 200.0, "utilization": 0.75})
    );
    assert_eq!(out["before"]["state"]["api"]["utilization"], 0.375);
    assert_eq!(run.outcome, Outcome::Fail);
}

#[test]
fn a_zone_loss_that_became_a_spof_is_not_resolved_headroom() {
    let text = "system: s\ndomains: {z1: {kind: zone}, z2: {kind: zone}}\ncomponents:\n  api: {instances: 4, placement: [z1, z2], capacity: 100, load: 300}\n";
    let (_, out) = what_if("two-zones-hot.yaml", text, &["z1"], false);
    // Before: losing z2 leaves 2 of 4: 300 / (2 × 100) = 150% (headroom/api/z2).
    // After z1: 300 / 200 = 150% now (overload/api), and losing z2 takes all
    // of api (spof/z2): the headroom risk became a total loss, it was not
    // resolved. One more instance lost: 300 / (1 × 100) = 300%
    // (headroom/api/instance; before, 300 / (3 × 100) = 100% passed).
    assert_eq!(
        ids(&out["introduced"]),
        ["headroom/api/instance", "overload/api", "spof/z2"]
    );
    assert_eq!(ids(&out["resolved"]), Vec::<&str>::new());
}

#[test]
fn losing_a_zone_leaves_a_two_instance_database_single() {
    let text = r"system: s
domains: {z1: {kind: zone}, z2: {kind: zone}, z3: {kind: zone}}
entrypoints: [web]
components:
  web: {instances: 3, placement: [z1, z2, z3], depends_on: [db]}
  db: {instances: 2, placement: [z1, z2]}
";
    let (_, out) = what_if("three-zones.yaml", text, &["z1"], false);
    // db keeps its z2 instance: one instance failing, or z2, takes web down.
    assert_eq!(ids(&out["introduced"]), ["spof/db", "spof/z2"]);
    assert_eq!(out["after"]["state"]["db"]["instances_up"], 1);
}

#[test]
fn losing_a_cell_introduces_the_cascade_it_starts() {
    let (_, out) = what_if(
        "models/cells.yaml",
        &example("cells.yaml"),
        &["cell-a"],
        false,
    );
    // cell-a's 620 moves to cell-b: 560 + 620 = 1180 > 5 × 200 = 1000; b fails
    // and both loads reach cell-c: 480 + 1180 = 1660 > 1000: everything lost.
    let introduced = ids(&out["introduced"]);
    assert!(introduced.contains(&"overload/cell-b"), "{introduced:?}");
    assert_eq!(out["after"]["state"]["cell-b"]["load"], 1180.0);
    assert_eq!(out["after"]["state"]["cell-b"]["capacity"], 1000.0);
    let finding = out["after"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "overload/cell-b")
        .unwrap();
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("cell-b 560 + 620 = 1180 > 1000, fails; cell-c 480 + 1180 = 1660 > 1000, fails; 1660 is left unserved"),
        "{message}"
    );
    // cascade/cell-a is about the lost cell: neither introduced nor resolved.
    assert!(!ids(&out["resolved"]).contains(&"cascade/cell-a"));
}

#[test]
fn losing_the_links_cache_floods_the_database() {
    let (_, out) = what_if(
        "models/url-shortener.yaml",
        &example("url-shortener.yaml"),
        &["links-cache"],
        false,
    );
    // links-db: 500 + 9000 × (1 − 0) − 9000 × (1 − 0.95) = 500 + 8550 = 9050
    // against 3 × 1000 = 3000 (the cold-start figure).
    assert!(ids(&out["introduced"]).contains(&"overload/links-db"));
    assert_eq!(out["after"]["state"]["links-db"]["load"], 9050.0);
    assert_eq!(out["after"]["state"]["links-db"]["capacity"], 3000.0);
    // Losing the cache does not resolve its common-cause finding.
    assert_eq!(ids(&out["resolved"]), Vec::<&str>::new());
    // --cold asks the same of every cache: 9050 again.
    let (_, cold) = what_if(
        "models/url-shortener.yaml",
        &example("url-shortener.yaml"),
        &[],
        true,
    );
    assert_eq!(cold["after"]["state"]["links-db"]["load"], 9050.0);
    assert!(ids(&cold["introduced"]).contains(&"overload/links-db"));
}

#[test]
fn one_instance_can_be_lost() {
    let text = r"system: s
components:
  api: {instances: 4, capacity: 100, load: 250}
";
    let (_, out) = what_if("api.yaml", text, &["api:1"], false);
    // 3 of 4 left: 250 / 300 = 83%; losing one more: 250 / 200 = 125%.
    assert_eq!(out["after"]["state"]["api"]["instances_up"], 3);
    assert_eq!(ids(&out["introduced"]), ["headroom/api/instance"]);
}

#[test]
fn a_count_must_fit_the_component() {
    let text = r"system: s
components:
  api: {instances: 4}
";
    for (lose, says) in [
        (&["api:5"][..], "--lose `api:5`: api has 4 instances"),
        (
            &["api:0"],
            "the count after `:` must be a whole number above 0",
        ),
        (&["apx:1"], "no component is called `apx`"),
        // 3 + 2 = 5 > 4: repeated counts add up (they were each checked
        // alone, and 5 of 4 silently became 4).
        (
            &["api:3", "api:2"],
            "--lose `api:2`: api has 4 instances, and earlier --lose arguments already take 3",
        ),
        (
            &["api", "api:1"],
            "--lose `api:1`: api has 4 instances, and earlier --lose arguments already take 4",
        ),
    ] {
        let args = WhatIfArgs {
            model: "api.yaml".to_owned(),
            lose: lose.iter().map(|l| (*l).to_owned()).collect(),
            cold: false,
            scale_load: None,
            set: Vec::new(),
            slow: Vec::new(),
            format: WhatIfFormat::Json,
            today: Some("2026-11-30".to_owned()),
        };
        let run = crate::capture(|terminal| what_if_source("api.yaml", text, &args, terminal));
        assert_eq!(run.outcome, Outcome::Invalid);
        assert!(run.stderr.contains(says), "{lose:?}: {}", run.stderr);
    }
}

#[test]
fn repeated_counts_of_one_component_add_up() {
    let text = "system: s\ncomponents:\n  api: {instances: 4, capacity: 100, load: 150}\n";
    // 1 + 1 = 2 of 4 lost: 150 / (2 × 100) = 75%.
    let (_, out) = what_if("api.yaml", text, &["api:1", "api:1"], false);
    assert_eq!(out["after"]["state"]["api"]["instances_up"], 2);
    assert_eq!(out["after"]["state"]["api"]["utilization"], 0.75);
    // 2 + 2 = all 4: api is the scenario itself, nothing about it is
    // introduced (its overload or spof would be the loss restated).
    let (_, out) = what_if("api.yaml", text, &["api:2", "api:2"], false);
    assert_eq!(out["after"]["state"]["api"]["instances_up"], 0);
    assert_eq!(ids(&out["introduced"]), Vec::<&str>::new());
}

#[test]
fn overload_at_peak_with_nothing_lost_is_reported_by_check() {
    // 500 / (4 × 100) = 125%; 1200 / 1000 = 120%.
    let run = crate::check(
        "hot.yaml",
        r"system: s
components:
  api: {instances: 4, capacity: 100, load: 500}
  server: {capacity: 1000, load: 1200}
",
        nines::cli::Format::Json,
    );
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<&str> = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(found.contains(&"overload/api"), "{found:?}");
    assert!(found.contains(&"overload/server"), "{found:?}");
}

/// A random model: a few components in layers (each calls some of the next
/// layer, with calls, hit rates and caches), loads on some, zones, groups
/// and failovers.
fn random_model() -> impl Strategy<Value = String> {
    (2_usize..9, any::<u64>()).prop_map(|(n, seed)| {
        let mut rng = seed;
        let mut next = |m: u64| {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (rng >> 33) % m
        };
        let mut text = String::from(
            r"system: p
domains: {z1: {kind: zone}, z2: {kind: zone}}
shared_fate: {g: {}}
entrypoints: [c0]
components:
",
        );
        for i in 0..n {
            let instances = 1 + next(3);
            let mut line = format!("  c{i}: {{instances: {instances}, placement: [z1, z2]");
            if instances == 1 {
                line = format!("  c{i}: {{instances: 1, placement: [z{}]", 1 + next(2));
            }
            if i == 0 || next(3) == 0 {
                let _ = write!(
                    line,
                    ", capacity: {}, load: {}",
                    50 + next(100),
                    10 + next(100)
                );
            }
            if next(4) == 0 {
                line.push_str(", shares: [g]");
            }
            if i + 1 < n && next(3) == 0 {
                let _ = write!(line, ", failover_to: c{}", i + 1);
            }
            let mut deps = Vec::new();
            for j in i + 1..n {
                if next(2) == 0 {
                    let hit = match next(4) {
                        0 => format!(", hit_rate: {}%", 10 * (1 + next(9))),
                        1 => format!(
                            ", hit_rate: {}%, cached_by: c{}",
                            10 * (1 + next(9)),
                            (i as u64 + 1 + next(n as u64 - 1)) % n as u64
                        ),
                        _ => String::new(),
                    };
                    deps.push(format!(
                        "{{target: c{j}, calls: {}, degradable: {}{hit}}}",
                        1 + next(3),
                        next(2) == 0
                    ));
                }
            }
            if !deps.is_empty() {
                let _ = write!(line, ", depends_on: [{}]", deps.join(", "));
            }
            line.push_str("}\n");
            text.push_str(&line);
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Load in a state = intact load + change of in-flows (what each caller
    /// passes on, now and intact) + what fails over into it; nothing down
    /// carries load; the empty scenario changes nothing.
    #[test]
    fn the_load_flow_adds_up(text in random_model(), lose in proptest::collection::vec(0_usize..12, 0..3), cold in any::<bool>()) {
        let model = nines::model::parse(&text).unwrap();
        let flow = Flow::new(&model);
        let intact = State::intact(&model, &flow);
        let n = model.components.len();
        let scenario = Scenario {
            domains: lose.iter().filter(|&&x| x < 2).map(|&x| DomainId(x)).collect(),
            groups: lose.iter().filter(|&&x| x == 2).map(|_| GroupId(0)).collect(),
            failed_instances: lose.iter().filter(|&&x| x >= 3 && x - 3 < n).map(|&x| (ComponentId(x - 3), 1)).collect(),
            cold,
            ..Scenario::default()
        };
        let state = State::new(&model, &flow, &scenario);
        for id in model.component_ids() {
            // Nothing that is down carries load.
            if !state.of(id).up {
                prop_assert!(state.load(id).is_none_or(|l| l == 0.0));
            }
            // Intact load + Σ (in-flow now − in-flow intact) + failover in,
            // for every running component with a known load, no cycle here
            // (edges only go to later components), clamped at 0.
            let Some(base) = intact.of(id).offered else { continue };
            if !state.of(id).running { continue; }
            let mut expected = base;
            for caller in model.component_ids() {
                for edge in &model.component(caller).depends_on {
                    if !edge.targets.contains(&id) { continue; }
                    if intact.of(caller).offered.is_none() { continue }
                    // What the caller passes on: nothing when it is not
                    // running or handed its load to a failover.
                    let before = intact.passing(&model, caller);
                    let now = state.passing(&model, caller);
                    // A cache that is down (lost, or through a dependency) answers no hits.
                    let cache_lost = cold || edge.cached_by.is_some_and(|c| !state.of(c).up);
                    let hit_now = if cache_lost { 0.0 } else { edge.hit_rate.unwrap_or(0.0) };
                    expected += now * edge.calls * (1.0 - hit_now)
                        - before * edge.calls * (1.0 - edge.hit_rate.unwrap_or(0.0));
                }
            }
            expected += state.moves.iter().filter(|m| m.1 == id).map(|m| m.2).sum::<f64>();
            let got = state.of(id).offered.unwrap();
            prop_assert!((got - expected.max(0.0)).abs() < 1e-6 * (1.0 + got.abs()), "{text}\n{id:?}: {got} vs {expected}");
        }
        // The empty scenario is the intact state.
        prop_assert_eq!(State::new(&model, &flow, &Scenario::default()), intact);
    }

    /// what-if with an empty change (losing nothing: `--scale-load 1`)
    /// introduces and resolves nothing.
    #[test]
    fn losing_nothing_changes_nothing(text in random_model()) {
        let args = WhatIfArgs {
            model: "p.yaml".to_owned(),
            lose: Vec::new(),
            cold: false,
            scale_load: Some(1.0),
            set: Vec::new(),
            slow: Vec::new(),
            format: WhatIfFormat::Json,
            today: Some("2026-11-30".to_owned()),
        };
        let run = crate::capture(|terminal| what_if_source("p.yaml", &text, &args, terminal));
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        prop_assert_eq!(&json["introduced"], &serde_json::json!([]));
        prop_assert_eq!(&json["resolved"], &serde_json::json!([]));
        prop_assert_eq!(&json["before"]["state"], &json["after"]["state"]);
    }
}

/// Kafka's 3600 is produce (api) plus consume (worker); postgres's written
/// 6000 comes from both (and 600 from elsewhere). `retry-storm` and the
/// retries table amplify only what each path sends, not the whole load.
const EVENTS: &str = r"system: events
entrypoints: [api, worker]
components:
  api:
    instances: 3
    capacity: 1000
    load: 1800
    depends_on:
      - {target: kafka, retries: 7}
      - {target: postgres, calls: 2, hit_rate: 50%, retries: 2}
  worker:
    instances: 2
    capacity: 1500
    load: 1800
    depends_on:
      - {target: kafka}
      - {target: postgres, calls: 2, retries: 2}
  kafka: {instances: 3, capacity: 2000, load: 3600}
  postgres: {instances: 2, capacity: 3300, load: 6000}
";

fn retry_row<'a>(json: &'a serde_json::Value, path: &[&str]) -> &'a serde_json::Value {
    json["retries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == serde_json::json!(path))
        .unwrap_or_else(|| panic!("no row {path:?}: {}", json["retries"]))
}

fn storm_loads(row: &serde_json::Value) -> Vec<f64> {
    row["storm_load"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["load"].as_f64().unwrap())
        .collect()
}

#[test]
#[allow(clippy::float_cmp, reason = "whole numbers, exact in f64")]
fn a_retry_storm_amplifies_the_load_its_path_sends() {
    let run = crate::check("events.yaml", EVENTS, nines::cli::Format::Json);
    let json: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr));
    // kafka: C = 3 × 2000 = 6000, L = 3600, api sends F = 1800 × 1 × (1 − 0)
    // = 1800 with A = 1 + 7 = 8. Storm load L + F × f × (A − 1):
    //   1%: 3600 + 1800 × 0.01 × 7 = 3726     5%: 3600 + 630 = 4230
    //   25%: 3600 + 3150 = 6750              100%: 3600 + 12600 = 16200
    // (the whole load amplified gave 3600 × 8 = 28,800 at 100%).
    // Critical f = (6000 − 3600) / (1800 × 7) = 2400 / 12600 = 19.05%: no
    // storm (the whole load gave (6000 / 3600 − 1) / 7 = 9.5%, a warning).
    let kafka = retry_row(&json, &["api", "kafka"]);
    assert_eq!(kafka["flow"], 1800.0);
    assert_eq!(kafka["load"], 3600.0);
    assert_eq!(storm_loads(kafka), [3726.0, 4230.0, 6750.0, 16200.0]);
    let critical = kafka["critical_failure_rate"].as_f64().unwrap();
    assert!((critical - 2400.0 / 12600.0).abs() < 1e-12, "{critical}");
    // postgres: C = 2 × 3300 = 6600, written L = 6000, A = 3 on both paths.
    // api sends 1800 × 2 × (1 − 0.5) = 1800: 6000 + 1800 × 2 = 9600 at 100%,
    //   critical (6600 − 6000) / (1800 × 2) = 16.7%;
    // worker sends 1800 × 2 × 1 = 3600: 6000 + 3600 × 2 = 13200 at 100%,
    //   critical 600 / (3600 × 2) = 8.3% < 10%: the storm, on worker's path.
    // (the whole load gave 6000 × 3 = 18,000 on both.)
    let api_pg = retry_row(&json, &["api", "postgres"]);
    assert_eq!(api_pg["flow"], 1800.0);
    assert_eq!(storm_loads(api_pg)[3], 9600.0);
    let worker_pg = retry_row(&json, &["worker", "postgres"]);
    assert_eq!(worker_pg["flow"], 3600.0);
    assert_eq!(storm_loads(worker_pg)[3], 13200.0);
    let storms: Vec<&serde_json::Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "retry-storm")
        .collect();
    assert_eq!(storms.len(), 1, "{storms:?}");
    assert_eq!(storms[0]["id"], "retry-storm/postgres");
    let message = storms[0]["message"].as_str().unwrap();
    assert!(
        message.contains("on worker>postgres; 3600 of it is what worker sends over this edge")
            && message.contains("from f = (6600 − 6000) / (3600 × (3 − 1)) = 8.3%"),
        "{message}"
    );
}

/// Every entrypoint's served share from one walk
/// ([`State::served_shares`]) equals its share alone, in either order of
/// the entrypoints.
fn one_walk_agrees(m: &nines::model::Model, state: &State) {
    let alone: Vec<f64> = m
        .entrypoints
        .iter()
        .map(|&e| state.served_share(m, e))
        .collect();
    assert_eq!(state.served_shares(m, &m.entrypoints), alone);
    let reversed: Vec<ComponentId> = m.entrypoints.iter().rev().copied().collect();
    let mut back = state.served_shares(m, &reversed);
    back.reverse();
    assert_eq!(back, alone);
}

#[test]
fn one_walk_of_served_shares_agrees_with_each_entrypoint_alone_on_random_models() {
    let mut models = 0;
    for seed in 0..300 {
        let Ok(m) = nines::model::parse(&nines::generate::random_small(seed)) else {
            continue;
        };
        models += 1;
        let flow = Flow::new(&m);
        one_walk_agrees(&m, &State::intact(&m, &flow).settle(&m, &flow));
        for lost in m.component_ids() {
            let scenario = Scenario {
                failed_instances: vec![(lost, m.component(lost).instances)],
                load_factor: 3.0,
                ..Scenario::default()
            };
            one_walk_agrees(&m, &State::new(&m, &flow, &scenario).settle(&m, &flow));
        }
    }
    assert!(models > 250, "{models}");
}

#[test]
#[allow(clippy::float_cmp, reason = "halves, exact in f64")]
fn a_cycle_entered_at_two_points_keeps_each_entrypoints_share() {
    // x enters the cycle p <-> q at p, y at q; q sheds (offered
    // 100 + 100 = 200 on 100: serves 1/2). From x: p = q's share, and
    // q = 1/2 x p cut (p up: 1) = 1/2, so p = 1/2. From y: q = 1/2 x
    // p, and p = q cut (q up: 1) = 1, so q = 1/2. Both serve 1/2, but
    // p is 1/2 from x and 1 from y: a walk that kept x's p for y would
    // give y 1/2 x 1/2 = 1/4 (it did, before shares cut by a cycle
    // were kept per entrypoint).
    let m = nines::model::parse(
        "system: s\nentrypoints: [x, y]\ncomponents:\n  x: {capacity: 1000, load: 100, depends_on: [p]}\n  y: {capacity: 1000, load: 100, depends_on: [q]}\n  p: {depends_on: [q]}\n  q: {capacity: 100, load_shedding: true, depends_on: [p]}\n",
    )
    .unwrap_or_else(|p| panic!("{p:#?}"));
    let flow = Flow::new(&m);
    let state = State::intact(&m, &flow).settle(&m, &flow);
    let (x, y) = (ComponentId(0), ComponentId(1));
    assert_eq!(state.served_share(&m, x), 0.5);
    assert_eq!(state.served_share(&m, y), 0.5);
    one_walk_agrees(&m, &state);
}
