//! The worked cases of docs/slow.md on the concurrency of one state.

#![allow(clippy::float_cmp, reason = "figures exact in f64, checked by hand")]

use super::*;
use crate::engine::state::{Flow, State};

fn model(text: &str) -> Model {
    crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
}

fn id(m: &Model, name: &str) -> ComponentId {
    ComponentId(m.components.iter().position(|c| c.name == name).unwrap())
}

/// The concurrency of `text` at normal latency, and with `slow` slowed.
fn run(text: &str, slow: &[(&str, Slowness)]) -> (Model, Concurrency, Concurrency) {
    let m = model(text);
    let flow = Flow::new(&m);
    let plan = Plan::new(&m, &flow);
    let state = State::intact(&m, &flow);
    let base = concurrency(&m, &plan, &state, &Slowed::default(), None);
    let slowed = Slowed {
        components: slow.iter().map(|&(n, s)| (id(&m, n), s)).collect(),
        drained: Vec::new(),
    };
    let after = concurrency(&m, &plan, &state, &slowed, Some(&base));
    (m, base, after)
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_hang_behind_a_30s_timeout_wants_30000_in_flight() {
    // 1000 rps × 50 ms = 50 in flight; hanging, each call waits its 30 s
    // timeout: 1000 × 30 = 30,000, against a pool of 200.
    let (m, base, after) = run(
        "system: s\ncomponents:\n  api: {capacity: 2000, load: 1000, workers: 200, depends_on: [{target: dep, timeout: 30s}]}\n  dep: {latency: {p99: 50ms}}\n",
        &[("dep", Slowness::Hang)],
    );
    let api = id(&m, "api");
    assert!(near(base.of(api).in_flight, 50.0));
    assert!(!base.of(api).saturated);
    assert!(near(after.of(api).in_flight, 30_000.0));
    assert!(after.of(api).saturated);
    // It serves 200 / 30,000 of its requests, at most 200 / 30 s = 6.67/s,
    // and every one of them fails: the call times out.
    assert!(near(after.of(api).share, 200.0 / 30_000.0));
    assert!(near(after.of(api).ceiling().unwrap(), 200.0 / 30.0));
    assert!(after.edge(api, 0).fails);
    assert_eq!(after.served_share(&m, api), 0.0);
}

const FORTY_MS: &str = "system: s
components:
  svc: {capacity: 1000, load: 500, workers: 100, depends_on: [EDGE]}
  dep: {latency: {p99: 40ms}}
";

#[test]
fn a_hang_without_a_timeout_drains_every_worker() {
    // 500 × 0.04 = 20 in flight; hanging without a timeout, every call
    // holds its worker forever: the pool is drained, nothing is served.
    let (m, base, after) = run(&FORTY_MS.replace("EDGE", "dep"), &[("dep", Slowness::Hang)]);
    let svc = id(&m, "svc");
    assert!(near(base.of(svc).in_flight, 20.0));
    assert!(after.of(svc).in_flight.is_infinite());
    assert!(after.of(svc).saturated);
    assert_eq!(after.of(svc).share, 0.0);
    assert!(after.of(svc).seen.is_infinite());
    assert_eq!(after.served_share(&m, svc), 0.0);
}

#[test]
fn a_300ms_timeout_still_exhausts_the_pool_and_a_bulkhead_of_20_contains_it() {
    // With a 300 ms timeout and no retries: 500 × 0.3 = 150 > 100.
    let (m, _, after) = run(
        &FORTY_MS.replace("EDGE", "{target: dep, timeout: 300ms, degradable: true}"),
        &[("dep", Slowness::Hang)],
    );
    let svc = id(&m, "svc");
    assert!(near(after.of(svc).in_flight, 150.0));
    assert!(after.of(svc).saturated);
    assert!(near(after.of(svc).share, 100.0 / 150.0));
    // A bulkhead of 20 on svc>dep: at most 20 of the 100 workers wait on
    // dep; the other 80 serve, dep's calls refused (degradable: served
    // without it).
    let (m, _, after) = run(
        &FORTY_MS.replace(
            "EDGE",
            "{target: dep, timeout: 300ms, degradable: true, pool: 20}",
        ),
        &[("dep", Slowness::Hang)],
    );
    assert!(near(after.of(svc).in_flight, 20.0));
    assert!(!after.of(svc).saturated);
    let edge = after.edge(svc, 0);
    assert!(edge.saturated);
    assert!(near(edge.demand, 150.0));
    assert!(near(edge.admitted, 20.0 / 150.0));
    assert_eq!(after.served_share(&m, svc), 1.0);
    let _ = m;
}

const GATEWAY: &str = "system: s
components:
  gateway:
    capacity: 1000
    load: 400
    workers: 200
    depends_on:
      - {target: a, timeout: 10s POOL_A}
      - {target: b, timeout: 10s POOL_B}
      - {target: c, timeout: 10s POOL_C}
      - {target: d, timeout: 10s POOL_D}
      - {target: e, timeout: 10s, degradable: true}
  a: {latency: {p99: 20ms}}
  b: {latency: {p99: 20ms}}
  c: {latency: {p99: 20ms}}
  d: {latency: {p99: 20ms}}
  e: {latency: {p99: 20ms}}
";

#[test]
fn one_dependency_250_times_slower_takes_a_shared_pool_and_only_its_compartment() {
    // 400 rps, five calls of 20 ms: 400 × 5 × 0.02 = 40 in flight of 200.
    // a slows to 5 s (250×): 400 × 5 = 2000 in flight on a alone, so the
    // 200 workers are gone; the gateway serves 200 / 2032 of its requests.
    let shared = GATEWAY
        .replace(" POOL_A", "")
        .replace(" POOL_B", "")
        .replace(" POOL_C", "")
        .replace(" POOL_D", "");
    let slow = [("a", Slowness::Latency(Duration(5_000)))];
    let (m, base, after) = run(&shared, &slow);
    let gw = id(&m, "gateway");
    assert!(near(base.of(gw).in_flight, 40.0));
    assert!(near(after.edge(gw, 0).in_flight, 2000.0));
    assert!(near(after.of(gw).in_flight, 2032.0));
    assert!(after.of(gw).saturated);
    // Bulkheads 40/40/40/30 for a..d, e in the 50 left: a's compartment
    // holds its 40, the others their 8 each: 40 + 4 × 8 = 72 of 200.
    let pooled = GATEWAY
        .replace(" POOL_A", ", pool: 40")
        .replace(" POOL_B", ", pool: 40")
        .replace(" POOL_C", ", pool: 40")
        .replace(" POOL_D", ", pool: 30");
    let (m, _, after) = run(&pooled, &slow);
    let gw = id(&m, "gateway");
    assert!(near(after.of(gw).in_flight, 72.0));
    assert!(!after.of(gw).saturated);
    let saturated: Vec<usize> = after
        .edges_of(gw)
        .iter()
        .filter(|e| e.saturated)
        .map(|e| e.edge)
        .collect();
    assert_eq!(saturated, [0]);
    // a's calls are admitted 40 / 2000 = 2%: gateway needs a, so it serves 2%.
    assert!(near(after.served_share(&m, gw), 40.0 / 2000.0));
}

#[test]
fn a_bulkhead_for_30_percent_of_1200_rps_at_250ms_holds_90() {
    // 1200 × 0.3 × 0.25 = 90 calls in flight.
    let (m, base, _) = run(
        "system: s\ncomponents:\n  api: {capacity: 2000, load: 1200, depends_on: [{target: dep, calls: 0.3, timeout: 1s}]}\n  dep: {latency: {p50: 40ms, p99: 250ms}}\n",
        &[],
    );
    let edge = base.edge(id(&m, "api"), 0);
    assert!(near(edge.rate, 360.0));
    assert!(near(edge.demand, 90.0));
}

#[test]
fn hedging_after_p95_adds_five_percent_and_doubles_in_a_slowdown() {
    let text = "system: s\ncomponents:\n  api: {capacity: 2000, load: 1000, depends_on: [{target: dep, timeout: 1s, hedge: HEDGE}]}\n  dep: {instances: 3, latency: {p50: 10ms, p95: 40ms, p99: 80ms}}\n";
    let unbounded = text.replace("HEDGE", "{after: p95}");
    let (m, base, after) = run(&unbounded, &[("dep", Slowness::Latency(Duration(500)))]);
    let dep = id(&m, "dep");
    // Steady: 1000 calls, 5% of them slower than the p95: 1000 + 50.
    assert!(near(base.of(dep).arrival, 1050.0));
    // Slowed, every call passes the p95: 1000 + 1000.
    assert!(near(after.of(dep).arrival, 2000.0));
    let capped = text.replace("HEDGE", "{after: p95, max: 2%}");
    let (m, base, after) = run(&capped, &[("dep", Slowness::Latency(Duration(500)))]);
    let dep = id(&m, "dep");
    assert!(near(base.of(dep).arrival, 1020.0));
    assert!(near(after.of(dep).arrival, 1020.0));
}

#[test]
fn an_open_breaker_turns_a_300ms_hold_into_a_fast_failure() {
    // Without a breaker: 500 × 0.3 = 150 > 100 (above). With one, the
    // timed-out calls open it: they fail at once, the pool holds nothing,
    // and svc serves every request without dep (degradable).
    let (m, _, after) = run(
        &FORTY_MS.replace(
            "EDGE",
            "{target: dep, timeout: 300ms, degradable: true, breaker: {after: 50%, window: 20, open: 10s}}",
        ),
        &[("dep", Slowness::Hang)],
    );
    let svc = id(&m, "svc");
    let edge = after.edge(svc, 0);
    assert!(edge.breaker_open);
    assert!(edge.fails);
    assert_eq!(edge.in_flight, 0.0);
    assert!(!after.of(svc).saturated);
    assert_eq!(after.served_share(&m, svc), 1.0);
}

#[test]
fn a_breaker_without_a_timeout_never_sees_a_hang() {
    let (m, _, after) = run(
        &FORTY_MS.replace(
            "EDGE",
            "{target: dep, degradable: true, breaker: {after: 50%}}",
        ),
        &[("dep", Slowness::Hang)],
    );
    let svc = id(&m, "svc");
    assert!(!after.edge(svc, 0).breaker_open);
    assert!(after.of(svc).saturated);
    assert_eq!(after.served_share(&m, svc), 0.0);
}

#[test]
fn retries_multiply_the_time_a_timed_out_call_holds() {
    // 100 rps, 2 retries of 1 s each: 100 × 3 × 1 = 300 in flight.
    let (m, _, after) = run(
        "system: s\ncomponents:\n  api: {capacity: 200, load: 100, workers: 500, depends_on: [{target: dep, timeout: 1s, retries: 2}]}\n  dep: {latency: {p99: 10ms}}\n",
        &[("dep", Slowness::Hang)],
    );
    let api = id(&m, "api");
    assert_eq!(after.edge(api, 0).attempts, 3.0);
    assert!(near(after.of(api).in_flight, 300.0));
}

#[test]
fn a_saturated_pool_looks_like_a_hang_to_its_callers_unless_it_sheds() {
    // dep hangs; svc (no timeout on dep) is drained; web calls svc with a
    // 2 s timeout: it holds 2 s per call, 100 × 2 = 200 > 50 workers.
    let text = "system: s\ncomponents:\n  web: {capacity: 200, load: 100, workers: 50, depends_on: [{target: svc, timeout: 2s}]}\n  svc: {workers: 100, depends_on: [dep]}\n  dep: {latency: {p99: 10ms}}\n";
    let (m, base, after) = run(text, &[("dep", Slowness::Hang)]);
    let (web, svc) = (id(&m, "web"), id(&m, "svc"));
    assert!(near(base.of(web).in_flight, 1.0));
    assert!(after.of(svc).seen.is_infinite());
    assert!(near(after.of(web).in_flight, 200.0));
    assert!(after.of(web).saturated);
}
