//! One state, one figure (issue 28, "What is wrong today" 1 to 4): the
//! availability agrees with what the load flow says the survivors carry,
//! standbys carry nothing until the active side is down, a shedding
//! component or a rate limit passes on only what it serves, and a consumer
//! pulls from its queue. Each reproducer through `nines check` or `nines
//! what-if`, with the numbers worked by hand.

use std::path::Path;

use nines::cli::{WhatIfArgs, WhatIfFormat, what_if_source};

use crate::scenarios::{check_json, finding};

fn what_if(text: &str, lose: &[&str], cold: bool, scale: Option<f64>) -> serde_json::Value {
    let run = what_if_as(text, lose, (cold, scale), WhatIfFormat::Json);
    serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr))
}

/// `nines what-if` of `text` in `format`, the whole run.
fn what_if_as(
    text: &str,
    lose: &[&str],
    (cold, scale): (bool, Option<f64>),
    format: WhatIfFormat,
) -> crate::Run {
    let args = WhatIfArgs {
        model: "model.yaml".to_owned(),
        lose: lose.iter().map(|s| (*s).to_owned()).collect(),
        cold,
        scale_load: scale,
        set: Vec::new(),
        slow: Vec::new(),
        format,
        today: Some("2026-11-30".to_owned()),
    };
    crate::capture(|terminal| what_if_source("model.yaml", text, &args, terminal))
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models")
            .join(name),
    )
    .unwrap()
}

fn ids(findings: &serde_json::Value) -> Vec<&str> {
    findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().or_else(|| f.as_str()).unwrap())
        .collect()
}

fn close(got: &serde_json::Value, want: f64, tolerance: f64) {
    let got = got
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {got}"));
    assert!((got - want).abs() <= tolerance, "{got} against {want}");
}

/// Reproducer 1b: one cache node nothing requires, in front of a database
/// sized for the misses only.
const CACHE_SPOF: &str = r"system: cachespof
objective: {availability: 99.9%}
components:
  web:
    instances: 3
    availability: 99.9%
    capacity: 1000
    load: 1500
    depends_on:
      - {target: cache, degradable: true, timeout: 10ms}
      - {target: db, hit_rate: 95%, cached_by: cache, timeout: 100ms}
  cache: {kind: cache, criticality: important, instances: 1, availability: 99%}
  db: {instances: 2, availability: 99.95%, capacity: 100}
";

#[test]
fn a_cache_nothing_requires_takes_the_entrypoint_down_with_it() {
    let report = check_json("cachespof.yaml", CACHE_SPOF);
    let web = &report["availability"]["web"];
    // Structurally web needs 1 of its 3 instances and 1 of 2 db nodes:
    // 1 - (1e-9 + 2.5e-7) = 0.99999975. With capacity: the cache down
    // (0.01) sends db all 1500 on 2 × 100: web is down. Cache up: db gets
    // 1500 × 5% = 75, one node carries it; web needs ceil(1500 / 1000) = 2
    // of 3 (2 or 3 down: 3 × 1e-6 = 3.0e-6) and a db node (2.5e-7).
    // U = 0.01 + 0.99 × (3.0e-6 + 2.5e-7) = 0.0100032: 98.99968%.
    close(&web["structural_availability"], 0.999_999_75, 1e-9);
    close(&web["availability"], 1.0 - 0.010_003_2, 1e-7);
    assert_eq!(web["method"], "exact");
    // The objective 99.9% is then missed, and the cache is a SPOF by load.
    let found = ids(&report["findings"]);
    assert!(found.contains(&"slo/web"), "{found:?}");
    let spof = finding(&report, "spof/cache");
    assert!(
        spof["message"].as_str().unwrap().contains("1500"),
        "{}",
        spof["message"]
    );
    // db's capacity is nearly all of it: 15 nodes (1500 / 100) would take
    // 99% of it off.
    let cost = &web["capacity"][0];
    assert_eq!(cost["component"], "db");
    assert_eq!(cost["fleet"], 15);
    close(&cost["unavailability"], 0.01, 1e-4);
    // what-if --lose cache agrees: db 1500 on 200, web down.
    let lost = what_if(CACHE_SPOF, &["cache"], false, None);
    assert_eq!(lost["after"]["state"]["db"]["load"], 1500.0);
    close(
        &lost["after"]["availability"]["web"]["availability"],
        0.0,
        1e-12,
    );
    // --cold is the same loss of the hits.
    let cold = what_if(CACHE_SPOF, &[], true, None);
    close(
        &cold["after"]["availability"]["web"]["availability"],
        0.0,
        1e-12,
    );
}

#[test]
fn the_url_shortener_reaches_no_more_than_its_cache_zone_allows() {
    let report = check_json("url-shortener.yaml", &example("url-shortener.yaml"));
    let redirect = &report["availability"]["redirect"];
    // az-a holds both cache nodes: its loss (5e-4) floods links-db, so
    // redirect is at most 1 - 5e-4 = 99.95%; with any zone leaving it
    // 4 × 2000 < 9000 it is 1 - (1.5e-3 + 1.5e-5 + 1.0e-6 + 3.0e-6) =
    // 0.998484 (the header of models/url-shortener.yaml).
    close(&redirect["availability"], 0.998_484, 2e-6);
    assert!(redirect["availability"].as_f64().unwrap() <= 0.9995);
    close(&redirect["structural_availability"], 1.0 - 3.0e-6, 1e-7);
    let found = ids(&report["findings"]);
    assert!(found.contains(&"slo/redirect"), "{found:?}");
    assert!(found.contains(&"slo/api"), "{found:?}");
    assert!(found.contains(&"headroom/links-db/az-a"), "{found:?}");
}

#[test]
fn the_cells_ring_needs_every_cell() {
    let text = example("cells.yaml");
    let report = check_json("cells.yaml", &text);
    let router = report["availability"]["router"]["availability"]
        .as_f64()
        .unwrap();
    // Any cell short hands its load along the ring and every cell fails
    // (cascade/cell-a: 1180 and 1660 > 1000), so the router's any_of adds
    // nothing: it is at most the product of what each cell alone reaches.
    let mut model = nines::model::parse(&text).unwrap();
    let cells: Vec<_> = ["cell-a", "cell-b", "cell-c"]
        .iter()
        .map(|n| {
            model
                .component_ids()
                .find(|&id| model.component(id).name == *n)
                .unwrap()
        })
        .collect();
    model.entrypoints = cells;
    let product: f64 = nines::engine::availability(&model)
        .iter()
        .map(|(_, f)| f.availability)
        .product();
    assert!(router <= product + 1e-12, "{router} > {product}");
    // By hand (the header): 0.999897 - 1.0e-5 = 0.999887.
    assert!((router - 0.999_887).abs() < 1e-6, "{router}");
}

/// Reproducer 2: an active/standby pair written as `any_of` + `switchover`.
const STANDBY: &str = r"system: standby
components:
  api:
    instances: 4
    capacity: 1000
    load: 1000
    depends_on:
      - {any_of: [db-primary, db-standby], switchover: 30s, timeout: 100ms}
  db-primary: {availability: 99.95%, mttr: 30m, capacity: 600}
  db-standby: {availability: 99.95%, mttr: 30m, capacity: 600}
";

#[test]
fn a_standby_carries_nothing_until_the_active_side_is_down() {
    let report = check_json("standby.yaml", STANDBY);
    // The primary carries all of api's 1000 on 600: 167%, an error with
    // nothing lost; the standby carries 0 and, once the primary is lost,
    // the same 1000 / 600.
    let over = finding(&report, "overload/db-primary");
    assert_eq!(over["severity"], "error");
    assert!(
        over["message"]
            .as_str()
            .unwrap()
            .starts_with("db-primary gets 1000 against 1 × 600 = 600: 167% of capacity"),
        "{}",
        over["message"]
    );
    assert_eq!(
        finding(&report, "headroom/db-standby/db-primary")["severity"],
        "error"
    );
    let state = what_if(STANDBY, &["api:1"], false, None);
    assert_eq!(state["after"]["state"]["db-primary"]["load"], 1000.0);
    assert_eq!(state["after"]["state"]["db-standby"]["load"], 0.0);
    // Neither can carry 1000: the capacity-aware figure is 0.
    close(&report["availability"]["api"]["availability"], 0.0, 1e-12);
}

/// Reproducer 3: a shedding edge in front of a database.
const SHEDDING_EDGE: &str = r"system: shed
components:
  edge: {instances: 2, capacity: 500, load: 800, load_shedding: true, depends_on: [{target: db, timeout: 100ms}]}
  db: {instances: 1, capacity: 1000}
";

#[test]
fn a_shedding_component_passes_on_only_what_it_serves() {
    // At twice the load edge is offered 1600 and serves 2 × 500 = 1000:
    // db gets 1000, never the 1600 edge refuses.
    let out = what_if(SHEDDING_EDGE, &[], false, Some(2.0));
    assert_eq!(out["after"]["state"]["edge"]["load"], 1600.0);
    assert_eq!(out["after"]["state"]["db"]["load"], 1000.0);
    let introduced = ids(&out["introduced"]);
    assert!(!introduced.contains(&"overload/db"), "{introduced:?}");
    // And db's load is never above what edge serves, with an instance of
    // edge lost on top: 1 × 500.
    let one = what_if(SHEDDING_EDGE, &["edge:1"], false, Some(2.0));
    assert_eq!(one["after"]["state"]["db"]["load"], 500.0);
}

#[test]
fn a_rate_limit_is_the_whole_components_and_does_not_shrink_with_it() {
    // A global 60 creates/s over 3 instances of 50: the limit binds (60 <
    // 150) and stays 60 with one instance lost (60 < 100). 100 offered:
    // 60 pass on to db, the rest is refused.
    let text = r"system: limit
components:
  api: {instances: 3, capacity: 50, load: 100, rate_limit: 60, depends_on: [{target: db, timeout: 100ms}]}
  db: {instances: 2, capacity: 40}
";
    let out = what_if(text, &["api:1"], false, None);
    assert_eq!(out["after"]["state"]["db"]["load"], 60.0);
    let report = check_json("limit.yaml", text);
    let over = finding(&report, "overload/api");
    // Judged against the limit, not 3 × 50: 100 / 60 = 167%.
    assert!(
        over["message"]
            .as_str()
            .unwrap()
            .starts_with("api gets 100 against its rate_limit of 60: 167% of its limit"),
        "{}",
        over["message"]
    );
    // The help raises the limit: the 3 instances carry 3 × 50 = 150 of
    // the 100, and instances do not raise a limit (it once said "run 2
    // instances" beside a fleet of 3).
    let help = over["help"].as_str().unwrap();
    assert!(
        help.starts_with("raise its rate_limit to at least 100, or cut the load reaching it: the 3 instances up carry 150"),
        "{help}"
    );
}

/// A rate limit above what the instances carry, and below the load:
/// 4 × 100 = 400 carry less than the 500 offered and the limit of 300 lets
/// through less still. Losing one instance leaves 3 × 100 = 300, exactly
/// the limit: the survivors carry all it admits, so the state sheds and
/// does not collapse, and the headroom row judges the limit (500 / 300 =
/// 167%, a warning; it once read "a capacity redistribution cascade").
/// The help needs both: 5 instances for the 500 and a limit of 500.
#[test]
fn a_rate_limit_the_survivors_carry_is_what_refuses() {
    let text = r"system: limit
components:
  api: {instances: 4, capacity: 100, load: 500, rate_limit: 300}
";
    let lost = what_if(text, &["api:1"], false, None);
    assert_eq!(
        lost["after"]["state"]["api"]["up"], true,
        "{}",
        lost["after"]["state"]
    );
    let report = check_json("limit.yaml", text);
    let row = finding(&report, "headroom/api/instance");
    assert_eq!(row["severity"], "warning");
    let message = row["message"].as_str().unwrap();
    assert!(
        message.contains("500 against its rate_limit of 300: 167% of its limit"),
        "{message}"
    );
    assert!(
        message.contains("the limit serves 300 / 500 = 60%"),
        "{message}"
    );
    let over = finding(&report, "overload/api");
    let help = over["help"].as_str().unwrap();
    assert!(
        help.starts_with("run 5 instances (ceil(500 / (100 × 1)))")
            && help.ends_with("and raise its rate_limit to at least 500: the limit is the whole component's and does not grow with instances"),
        "{help}"
    );
}

/// Reproducer 4: a producer and a pull consumer on one queue.
const QUEUE: &str = r"system: q
entrypoints: [api]
components:
  api: {instances: 3, capacity: 6000, load: 12000, depends_on: [{target: clicks-queue, timeout: 50ms}]}
  clicks-queue: {kind: queue, instances: 3, capacity: 10000}
  click-workers: {kind: worker, instances: 3, capacity: 5000, load: 12000, depends_on: [clicks-queue]}
";

#[test]
fn a_consumer_pulls_from_its_queue_and_lags() {
    let out = what_if(QUEUE, &["click-workers:1"], false, None);
    // The queue's load is what api produces, 12000 on 3 × 10000 (40%), not
    // 12000 + the 12000 the workers pull.
    assert_eq!(out["after"]["state"]["clicks-queue"]["load"], 12000.0);
    // Two workers of 5000 behind 12000 lag by 2000/s: 7.2 million an hour,
    // a warning, not a collapse.
    let over = &out["introduced"];
    assert_eq!(ids(over), ["overload/click-workers"]);
    let report = check_json("q.yaml", QUEUE);
    let row = finding(&report, "headroom/click-workers/instance");
    assert_eq!(row["severity"], "warning");
    assert!(
        row["message"]
            .as_str()
            .unwrap()
            .contains("a consumer, it lags: the backlog grows by 7200000 an hour (2000 × 3600 s)"),
        "{}",
        row["message"]
    );
    assert!(
        !ids(&report["findings"])
            .iter()
            .any(|f| f.starts_with("overload/clicks-queue"))
    );
}

/// A keyed partition over four shards, and a request mix of two
/// entrypoints.
const SHARDS: &str = r"system: sharded
entrypoints: {api: 90%, admin: 10%}
components:
  api:
    instances: 3
    availability: 99.9%
    capacity: 1000
    load: 1200
    depends_on:
      - {shards: [s0, s1, s2, s3], timeout: 100ms}
  admin: {instances: 2, availability: 99.9%, depends_on: [{target: s0, timeout: 1s}]}
  s0: {instances: 1, availability: 99%, capacity: 400}
  s1: {instances: 1, availability: 99%, capacity: 400}
  s2: {instances: 1, availability: 99%, capacity: 400}
  s3: {instances: 1, availability: 99%, capacity: 400}
";

#[test]
fn a_shard_down_fails_its_share_of_the_requests_not_all_of_them() {
    let report = check_json("sharded.yaml", SHARDS);
    let api = &report["availability"]["api"];
    // api needs ceil(1200 / 1000) = 2 of its 3 instances: 1 - (3 × 1e-6 ×
    // 0.999 + 1e-9) = 0.999997002. Each shard gets 1200 / 4 = 300 of its
    // 400. The whole peak needs every shard: 0.999997002 × 0.99^4 =
    // 0.96059313. A request needs only its own shard: served 0.999997002
    // × 0.99 = 0.98999703.
    close(&api["availability"], 0.999_997_002 * 0.99_f64.powi(4), 1e-9);
    close(&api["served"], 0.999_997_002 * 0.99, 1e-9);
    assert_eq!(api["served_method"], "exact");
    // admin: 2 instances (1 - 1e-6) and s0: 0.99 × 0.999999 = 0.98999901.
    close(
        &report["availability"]["admin"]["served"],
        0.99 * 0.999_999,
        1e-9,
    );
    // The request mix: 0.9 × 0.98999703 + 0.1 × 0.98999901 = 0.98999723.
    let mix = &report["request_mix"];
    close(
        &mix["served"],
        0.9 * 0.999_997_002 * 0.99 + 0.1 * 0.99 * 0.999_999,
        1e-9,
    );
    assert_eq!(mix["shares"]["api"], 0.9);
    // Losing s1 leaves 1200 / 4 = 300 requests a second unserved, not 1200.
    let lost = what_if(SHARDS, &["s1"], false, None);
    assert_eq!(lost["after"]["state"]["s0"]["load"], 300.0);
    close(
        &lost["after"]["availability"]["api"]["availability"],
        0.0,
        1e-12,
    );
    close(
        &lost["after"]["availability"]["api"]["served"],
        0.999_997_002 * 0.99 * 0.75,
        1e-9,
    );
}

/// A load no fleet worth running carries: 5,000,000 rps on 10 per
/// instance wants 500,000 instances.
const STORM: &str = r"system: storm
entrypoints: [web]
components:
  web: {instances: 2, availability: 99.9%, capacity: 10, load: 5000000}
";

#[test]
fn a_fleet_past_a_hundred_thousand_is_not_offered_and_not_searched() {
    // web is over its capacity in every state: down always, U = 1, all of
    // it capacity (the structural U is 1e-6, both instances down). The
    // fleet that carries 5,000,000 at 10 each is 500,000 instances, past
    // `MAX_FLEET` (100,000): the row says what capacity costs and offers
    // no fleet. (Searching it spread 500,000 instances one at a time,
    // 31 times over; on a failover ring with retries the worst load is
    // billions and the search did not end: the CI run that timed out.)
    let report = check_json("storm.yaml", STORM);
    let web = &report["availability"]["web"];
    close(&web["availability"], 0.0, 1e-12);
    let cost = &web["capacity"][0];
    assert_eq!(cost["component"], "web");
    close(&cost["unavailability"], 1.0 - 1e-6, 1e-9);
    assert!(cost.get("fleet").is_none(), "{cost}");
}

#[test]
fn a_fleet_between_the_last_doubling_and_the_cap_is_found() {
    // 600,000 rps on 10 per instance wants 60,000 instances, all up: at
    // 99.9% each that is never, so the capacity costs U = 1 - 1e-6 (the
    // structural U is both instances down, 1e-6). The search tries 60,000
    // (too few: every one must be up), then the cap, 100,000 (4 x 60,000
    // is past it), and bisects between. The fleet n takes off P(at most
    // n - 60,000 of n fail) at 0.1% each, and must take 99% of the cost,
    // 0.98999901. Summed binomial terms by hand (Python, log space):
    // n = 60,078 gives 0.988999 (too little), n = 60,079 gives 0.991977.
    let text = "system: bigfleet\nentrypoints: [web]\ncomponents:\n  web: {instances: 2, availability: 99.9%, capacity: 10, load: 600000}\n";
    let report = check_json("bigfleet.yaml", text);
    let cost = &report["availability"]["web"]["capacity"][0];
    close(&cost["unavailability"], 1.0 - 1e-6, 1e-9);
    assert_eq!(cost["fleet"], 60_079, "{cost}");
    close(&cost["fleet_gain"], 0.991_977, 1e-6);
}

/// A request pool that serves less than the written capacity: 10 workers
/// per instance at 50 ms serve 10 / 0.05 = 200/s, not 1000.
const POOLED_FLEET: &str = r"system: pooled
domains:
  az-a: {kind: zone}
  az-b: {kind: zone}
  az-c: {kind: zone}
components:
  api: {instances: 3, placement: [az-a, az-b, az-c], availability: 99.9%, capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}}
";

#[test]
fn a_loss_that_saturates_a_pool_is_judged_where_the_figure_counts_it() {
    // check: api needs ceil(500 / 200) = 3 of its 3 instances, so its
    // figure is 0.999³ = 0.997002999; losing a zone leaves 2 × 200 = 400
    // for 500 (125%), and its headroom row says so, a warning (the pool
    // admits 80%). Against the capacity it read 25% and passed.
    let out = check_json("pooled.yaml", POOLED_FLEET);
    close(
        &out["availability"]["api"]["availability"],
        0.997_002_999,
        1e-12,
    );
    let row = out["headroom"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["lost"] == "az-a")
        .expect("an az-a row");
    close(&row["utilization"], 1.25, 1e-12);
    assert_eq!(row["ok"], false);
    let f = finding(&out, "headroom/api/az-a");
    assert_eq!(f["severity"], "warning");
    // what-if --lose az-a: the same state. The whole peak is never served
    // (figure 0), and the served share is 400 / 500 with both left up,
    // 200 / 500 with one: 0.999² × 0.8 + 2 × 0.999 × 0.001 × 0.4 = 0.7992.
    let lost = what_if(POOLED_FLEET, &["az-a"], false, None);
    close(
        &lost["after"]["availability"]["api"]["availability"],
        0.0,
        1e-12,
    );
    close(
        &lost["after"]["availability"]["api"]["served"],
        0.7992,
        1e-12,
    );
    // The state row reads the same ceiling: 2 × 200 = 400 carried, 125%
    // (it read the capacity, 2 × 1000 = 2000 and 25%).
    close(&lost["after"]["state"]["api"]["capacity"], 400.0, 1e-9);
    close(&lost["after"]["state"]["api"]["utilization"], 1.25, 1e-12);
}

/// What-if's served shares and unserved load are the settled state's, as
/// the figure counts it. c4 (4 × 70 = 280 carries its 196) has a rate
/// limit of 100: it refuses 96 of 196, so it is not ok and fails over to
/// c6, which then gets 94 + 196 = 290 > 120 and collapses, taking c0 (it
/// requires c6) down. check's figure is 0; what-if's "before" served c0
/// 100%, from the state before anything collapsed.
#[test]
fn what_if_serves_what_the_figure_counts() {
    let text = r"system: s
entrypoints: [c0]
components:
  c0: {instances: 1, availability: 99%, depends_on: [c6, {target: c1, degradable: true}]}
  c1: {instances: 1, depends_on: [{target: c6, hit_rate: 70%, cached_by: c4}]}
  c4: {instances: 4, capacity: 70, load: 196, rate_limit: 100, failover_to: c6}
  c6: {instances: 1, capacity: 120, load: 94}
";
    close(
        &check_json("s.yaml", text)["availability"]["c0"]["availability"],
        0.0,
        0.0,
    );
    let out = what_if(text, &[], false, Some(1.0));
    close(&out["before"]["served"]["c0"], 0.0, 0.0);
    close(&out["after"]["served"]["c0"], 0.0, 0.0);
    // models/cells.yaml: losing cell-a fails its 620 over to cell-b, which
    // then carries 560 + 620 = 1180 on 5 × 200 = 1000 and collapses; the
    // ring walks on, and the router's 1660 goes unserved.
    let out = what_if(&example("cells.yaml"), &["cell-a"], false, None);
    close(&out["after"]["served"]["router"], 0.0, 0.0);
    close(&out["after"]["unserved"], 1660.0, 1e-9);
    close(
        &out["after"]["availability"]["router"]["availability"],
        0.0,
        0.0,
    );
}

/// With nothing lost, what-if's served share of an entrypoint is the
/// settled state the figure counts with probability P(nothing fails): where
/// it does not serve everything, the figure's lower end leaves that weight
/// out; where it serves everything without a failover (which serves the
/// requests of what is not ok), the figure's upper end counts it.
/// Checked on 400 random capacity models (a served share of 1 reads "ok").
#[test]
fn the_intact_served_share_is_the_state_the_figure_counts() {
    let mut compared = 0;
    for seed in 0..400 {
        // Loads written on called components too: a rate limit that
        // refuses and fails over is more common there.
        let text = if seed % 2 == 0 {
            crate::capacity::random_capacity_model(seed / 2)
        } else {
            crate::capacity::random_loaded_model(seed / 2)
        };
        let Ok(model) = nines::model::parse(&text) else {
            continue;
        };
        let mut nothing_fails = 1.0;
        for d in &model.domains {
            nothing_fails *= d.availability.unwrap_or(1.0);
        }
        for g in &model.groups {
            nothing_fails *= g.availability.unwrap_or(1.0);
        }
        for c in &model.components {
            nothing_fails *= c.availability.unwrap_or(1.0).powf(f64::from(c.instances));
        }
        let out = what_if(&text, &[], false, Some(1.0));
        // Losing nothing changes nothing, severity included.
        assert_eq!(out["worsened"], serde_json::json!([]), "seed {seed}");
        assert_eq!(out["introduced"], serde_json::json!([]), "seed {seed}");
        for &e in &model.entrypoints {
            let name = &model.component(e).name;
            let served = out["before"]["served"][name].as_f64().unwrap();
            let figure = &out["before"]["availability"][name];
            let (lower, upper) = (
                figure["lower"].as_f64().unwrap() + figure["switchover"].as_f64().unwrap(),
                figure["upper"].as_f64().unwrap() + figure["switchover"].as_f64().unwrap(),
            );
            // A failover serves the requests of what is not ok: the share
            // is then whole while the entrypoint is not ok.
            let fails_over = model.components.iter().any(|c| c.failover_to.is_some());
            if served >= 1.0 - 1e-12 && !fails_over {
                assert!(
                    upper >= nothing_fails - 1e-12,
                    "seed {seed} {name}: serves all intact, figure at most {upper} < {nothing_fails}\n{text}"
                );
            } else if served < 1.0 - 1e-12 {
                assert!(
                    lower <= 1.0 - nothing_fails + 1e-12,
                    "seed {seed} {name}: serves {served} intact, figure at least {lower}\n{text}"
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared}");
}

/// A finding on both sides that the change makes more severe is listed
/// as worsened. Three instances of 10 workers at 50ms with 500/s: 25 in
/// flight on 30 workers, short of 25 × 1.5 = 37.5 (`pool/api`, a warning);
/// losing az-a leaves 20 < 25, full at peak (an error). The instances
/// behind the pool work on the 2 × 200 = 400 it admits, within 2 × 220
/// = 440: no overload.
#[test]
fn a_finding_the_change_makes_an_error_is_worsened() {
    let text = "system: p
domains:
  az-a: {kind: zone}
  az-b: {kind: zone}
  az-c: {kind: zone}
components:
  api: {instances: 3, placement: [az-a, az-b, az-c], capacity: 220, load: 500, workers: 10, latency: {p99: 50ms}}
";
    let out = what_if(text, &["az-a"], false, None);
    assert_eq!(out["worsened"], serde_json::json!(["pool/api"]));
    assert_eq!(out["introduced"], serde_json::json!([]));
    let severity = |side: &str| {
        out[side]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == "pool/api")
            .map(|f| f["severity"].clone())
    };
    assert_eq!(severity("before"), Some("warning".into()));
    assert_eq!(severity("after"), Some("error".into()));
    close(&out["after"]["served"]["api"], 0.8, 1e-12);
    // A worsened error fails the run, as an introduced one does.
    let run = what_if_as(text, &["az-a"], (false, None), WhatIfFormat::Table);
    assert_eq!(run.outcome, nines::cli::Outcome::Fail, "{}", run.stdout);
    assert!(run.stdout.contains("Worsened (1)"), "{}", run.stdout);
    assert!(
        run.stdout.contains("a warning before, an error now:"),
        "{}",
        run.stdout
    );
}

/// What `what-if --lose ZONE` says of each entrypoint after the loss is the
/// brute-force enumeration of the model with that zone down for certain:
/// exact figures equal it, bounded ones bracket it. On 200 random models
/// with loads written on called components, some with `at_least` gates.
/// (A written load below a shedding component that lost instances once
/// stayed as written in the figures' copy: b read [0, 0.0219] after losing
/// z0 against the truth 0.9805; see `a_written_load_falls_with_what_a_loss_stops_sending`.)
#[test]
fn what_if_after_a_zone_is_the_enumeration_with_that_zone_down() {
    let mut compared = 0;
    for seed in 0..200 {
        let text = if seed % 2 == 0 {
            crate::capacity::random_loaded_model(seed)
        } else {
            crate::capacity::random_gated_model(seed)
        };
        let Ok(model) = nines::model::parse(&text) else {
            continue;
        };
        for (z, domain) in model.domains.iter().enumerate() {
            let mut down = model.clone();
            down.domains[z].availability = Some(0.0);
            let truth = crate::capacity::oracle(&down);
            let out = what_if(&text, &[domain.name.as_str()], false, None);
            for (e, t) in &truth {
                let name = &model.component(*e).name;
                let figure = &out["after"]["availability"][name];
                let at = |key: &str| {
                    figure[key].as_f64().unwrap() + figure["switchover"].as_f64().unwrap()
                };
                let (lower, upper) = (at("lower"), at("upper"));
                assert!(
                    t.availability >= lower - 1e-9 && t.availability <= upper + 1e-9,
                    "seed {seed}, losing {}: {name} truth {} outside [{lower}, {upper}] ({})\n{text}",
                    domain.name,
                    t.availability,
                    figure["method"]
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 150, "{compared}");
}

/// Three instances of `a` (100 each, shedding) pass 300 to `b`, whose
/// written load is 320. Losing z0 leaves two of `a`: it serves and passes
/// 200, so `b` gets 320 − 100 = 220 on its two instances left (240): both
/// must be up, (0.99 × 0.999)² = 0.978141 without relief, and the truth
/// with one `a` down passing only 100 is higher. Before, the figures' copy
/// kept b's 320 (its own intact flow took a's 200 as normal): b never
/// fitted on two instances and read [0, 0.0219].
#[test]
fn a_written_load_falls_with_what_a_loss_stops_sending() {
    let text = "system: ab
domains:
  z0: {kind: zone, availability: 99.9%}
  z1: {kind: zone, availability: 99.9%}
  z2: {kind: zone, availability: 99.9%}
entrypoints: [a, b]
components:
  a: {instances: 3, placement: [z0, z1, z2], availability: 99%, capacity: 100, load: 300, load_shedding: true, depends_on: [b]}
  b: {instances: 3, placement: [z0, z1, z2], availability: 99%, capacity: 120, load: 320}
";
    let out = what_if(text, &["z0"], false, None);
    let b = &out["after"]["availability"]["b"];
    // (0.99 × 0.999)² = 0.98901² = 0.9781407801.
    close(&b["lower"], 0.978_140_780_1, 1e-9);
    let mut down = nines::model::parse(text).unwrap();
    down.domains[0].availability = Some(0.0);
    let truth = crate::capacity::oracle(&down);
    let b_truth = truth[1].1.availability;
    assert!(
        b_truth > 0.978_141 && b_truth <= b["upper"].as_f64().unwrap(),
        "{b_truth}"
    );
}
