//! Slow, not down (docs/slow.md): the worked cases of issue 25 through the
//! command line, each with its hand calculation next to the figures.

use nines::cli::Outcome;
use serde_json::Value;

use crate::scenarios::finding;
use crate::{Scratch, nines};

/// `nines what-if MODEL --slow SLOW… --format json` on `text`.
fn what_if(scratch: &str, text: &str, slow: &[&str]) -> Value {
    let args: Vec<&str> = slow.iter().flat_map(|s| ["--slow", s]).collect();
    what_if_with(scratch, text, &args).1
}

/// `nines what-if MODEL --format json` on `text` with `extra` arguments:
/// its outcome and its report.
fn what_if_with(scratch: &str, text: &str, extra: &[&str]) -> (Outcome, Value) {
    let dir = Scratch::new(scratch);
    let path = dir.join("m.yaml");
    std::fs::write(&path, text).unwrap();
    let path = path.to_string_lossy().into_owned();
    let mut args = vec![
        "what-if",
        path.as_str(),
        "--format",
        "json",
        "--today",
        "2026-11-30",
    ];
    args.extend_from_slice(extra);
    let run = nines(&args);
    assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    (run.outcome, serde_json::from_str(&run.stdout).unwrap())
}

/// `nines check MODEL --format json` on `text`.
fn check(scratch: &str, text: &str) -> Value {
    let dir = Scratch::new(scratch);
    let path = dir.join("m.yaml");
    std::fs::write(&path, text).unwrap();
    let path = path.to_string_lossy().into_owned();
    let run = nines(&["check", &path, "--format", "json", "--today", "2026-11-30"]);
    assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// The `slow` row of a pool (`target` for an edge's).
fn pool<'a>(slow: &'a Value, component: &str, target: Option<&str>) -> &'a Value {
    slow["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["component"] == component && p["target"].as_str() == target)
        .unwrap_or_else(|| panic!("no pool {component} {target:?} in {slow:#}"))
}

fn near(value: &Value, expected: f64) -> bool {
    value
        .as_f64()
        .is_some_and(|v| (v - expected).abs() <= 1e-9 * expected.abs().max(1.0))
}

#[test]
fn a_hang_behind_a_30s_timeout_takes_50_in_flight_to_30000() {
    // 1000 rps on a 50 ms dependency: 1000 × 0.05 = 50 in flight. It hangs
    // and each call waits its 30 s timeout: 1000 × 30 = 30,000 wanted, on a
    // pool of 200. The 150 free workers go at 1000 new hanging calls a
    // second: 150 / 1000 = 0.15 s (the source's "0.2 s" counts all 200).
    let out = what_if(
        "slow-30000",
        "system: s\ncomponents:\n  api: {capacity: 2000, load: 1000, workers: 200, depends_on: [{target: dep, timeout: 30s}]}\n  dep: {latency: {p99: 50ms}}\n",
        &["dep=hang"],
    );
    let api = pool(&out["slow"], "api", None);
    assert!(near(&api["in_flight_before"], 50.0), "{api}");
    assert!(near(&api["in_flight_after"], 30_000.0), "{api}");
    assert_eq!(api["size"], 200);
    assert_eq!(api["saturated"], true);
    assert!(near(&api["exhausted_in_s"], 0.15), "{api}");
    // It serves 200 / 30,000 of its arrivals, at most 200 / 30 s = 6.67 a
    // second, and every one of those times out.
    assert!(near(&api["served"], 200.0 / 30_000.0));
    assert!(near(&api["ceiling"], 200.0 / 30.0));
    let lost = &out["slow"]["lose_service"][0];
    assert_eq!(lost["entrypoint"], "api");
    assert!(near(&lost["served_after"], 0.0));
}

/// Two cells: cell-a calls dep without a timeout and fails over to cell-b,
/// which never calls it.
const CELLS: &str = "system: cells
entrypoints: [cell-a, cell-b]
components:
  cell-a: {capacity: 1000, load: 500, workers: 100, failover_to: cell-b, depends_on: [EDGE]}
  cell-b: {capacity: 800, load: 400, workers: 100}
  dep: {latency: {p99: 40ms}}
";

#[test]
fn a_hang_drains_100_workers_in_016_s_and_a_cell_that_never_calls_it_loses_service() {
    // 500 rps × 40 ms = 20 of cell-a's 100 workers in flight. dep hangs:
    // no timeout, so every call holds its worker forever; the 80 free ones
    // are gone in 80 / 500 = 0.16 s and cell-a serves nothing, including
    // the requests that would never have reached dep. Drained, it fails
    // over: cell-b gets 400 + 500 = 900 > 800 and, without load shedding,
    // collapses: cell-b loses service although it never calls dep.
    let out = what_if("slow-016", &CELLS.replace("EDGE", "dep"), &["dep=hang"]);
    let slow = &out["slow"];
    let a = pool(slow, "cell-a", None);
    assert!(near(&a["in_flight_before"], 20.0), "{a}");
    assert_eq!(a["in_flight_after"], Value::Null, "unbounded");
    assert!(near(&a["exhausted_in_s"], 0.16), "{a}");
    assert!(near(&a["served"], 0.0));
    assert_eq!(slow["drained"], serde_json::json!(["cell-a"]));
    let lost: Vec<(&str, &str)> = slow["lose_service"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["entrypoint"].as_str().unwrap(),
                l["calls"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(lost, [("cell-a", "required"), ("cell-b", "never")]);
    assert_eq!(out["after"]["state"]["cell-b"]["load"], 900.0);
    assert!(
        out["introduced"]
            .as_array()
            .unwrap()
            .contains(&Value::from("overload/cell-b")),
        "{}",
        out["introduced"]
    );
    // `check` judges dep hanging (called without a timeout: credible by
    // default) and says the same as a finding.
    let report = check("slow-016-check", &CELLS.replace("EDGE", "dep"));
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "bulkhead/cell-a>dep")
        .expect("bulkhead/cell-a>dep");
    assert_eq!(finding["severity"], "error");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("every one gone in 160ms") && message.contains("cell-b never calls dep"),
        "{message}"
    );
}

#[test]
fn a_300ms_timeout_still_exhausts_100_workers_and_a_bulkhead_of_20_keeps_80() {
    // With a 300 ms timeout and no retries: 500 × 0.3 = 150 > 100, still
    // exhausted; the pool serves 100 / 150 = 67% and those time out too.
    let timed = CELLS.replace("EDGE", "{target: dep, timeout: 300ms, degradable: true}");
    let out = what_if("slow-300ms", &timed, &["dep=hang"]);
    let a = pool(&out["slow"], "cell-a", None);
    assert!(near(&a["in_flight_after"], 150.0), "{a}");
    assert_eq!(a["saturated"], true);
    assert!(near(&a["served"], 100.0 / 150.0));
    // A bulkhead of 20 for dep: its calls hold at most 20 workers, the
    // other 80 keep serving what does not need dep (the edge is degradable).
    let pooled = CELLS.replace(
        "EDGE",
        "{target: dep, timeout: 300ms, degradable: true, pool: 20}",
    );
    let out = what_if("slow-bulkhead-20", &pooled, &["dep=hang"]);
    let slow = &out["slow"];
    // cell-a holds 20 before and after (its only time held is dep's): its
    // row is not listed, only the compartment's.
    assert!(
        !slow["pools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["component"] == "cell-a" && p["target"].is_null())
    );
    let edge = pool(slow, "cell-a", Some("dep"));
    assert!(near(&edge["in_flight_before"], 20.0), "{edge}");
    assert!(near(&edge["in_flight_after"], 20.0), "{edge}");
    assert_eq!(edge["size"], 20);
    assert_eq!(edge["saturated"], true);
    // 20 of the 150 calls that want a slot are admitted.
    assert!(near(&edge["served"], 20.0 / 150.0));
    assert_eq!(slow["lose_service"], serde_json::json!([]));
}

const GATEWAY: &str = "system: gw
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
      - {target: e, timeout: 10s}
  a: {latency: {p99: 20ms}}
  b: {latency: {p99: 20ms}}
  c: {latency: {p99: 20ms}}
  d: {latency: {p99: 20ms}}
  e: {latency: {p99: 20ms}}
";

#[test]
fn one_of_five_dependencies_250_times_slower_takes_a_shared_pool_and_only_its_compartment() {
    // One shared pool of 200, five dependencies of 20 ms: 400 × 5 × 0.02 =
    // 40 in flight. a slows to 5 s (250×): its calls hold threads 250
    // times longer, 400 × 5 = 2000, and take all 200: 2000 + 4 × 8 = 2032.
    let shared = GATEWAY
        .replace(" POOL_A", "")
        .replace(" POOL_B", "")
        .replace(" POOL_C", "")
        .replace(" POOL_D", "");
    let out = what_if("slow-gateway", &shared, &["a=5s"]);
    let gw = pool(&out["slow"], "gateway", None);
    assert!(near(&gw["in_flight_before"], 40.0), "{gw}");
    assert!(near(&gw["in_flight_after"], 2032.0), "{gw}");
    assert_eq!(gw["saturated"], true);
    // Bulkheads 40/40/40/30 and 50 left for e: a's compartment holds its
    // 40, the others 8 each: 40 + 4 × 8 = 72 of 200, and only a's
    // compartment saturates.
    let pooled = GATEWAY
        .replace(" POOL_A", ", pool: 40")
        .replace(" POOL_B", ", pool: 40")
        .replace(" POOL_C", ", pool: 40")
        .replace(" POOL_D", ", pool: 30");
    let out = what_if("slow-gateway-bulkheads", &pooled, &["a=5s"]);
    let slow = &out["slow"];
    let gw = pool(slow, "gateway", None);
    assert!(near(&gw["in_flight_after"], 72.0), "{gw}");
    assert_eq!(gw["saturated"], false);
    let saturated: Vec<&str> = slow["pools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["saturated"] == true)
        .map(|p| {
            p["target"]
                .as_str()
                .unwrap_or(p["component"].as_str().unwrap())
        })
        .collect();
    assert_eq!(saturated, ["a"]);
}

#[test]
fn a_bulkhead_for_30_percent_of_1200_rps_at_a_250ms_p99_is_sized_at_90_plus_room() {
    // 1200 × 0.3 × 0.25 = 90 concurrent; with policy.pool_headroom 1.5,
    // ceil(135) = 135 > the bulkhead of 100: pool/api>dep.
    let out = check(
        "slow-sizing",
        "system: s\ncomponents:\n  api: {capacity: 2000, load: 1200, workers: 400, depends_on: [{target: dep, calls: 0.3, timeout: 1s, pool: 100}]}\n  dep: {latency: {p50: 60ms, p99: 250ms}}\n",
    );
    let row = out["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["target"] == "dep")
        .unwrap();
    assert!(near(&row["in_flight"], 90.0), "{row}");
    assert!(near(&row["required"], 135.0), "{row}");
    assert_eq!(row["ok"], false);
    let finding = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "pool/api>dep")
        .unwrap();
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("360 calls/s × 250ms held = 90 are in flight"),
        "{finding}"
    );
}

#[test]
fn hedging_at_p95_costs_5_percent_and_unbounded_doubles_in_a_slowdown() {
    // Steady: 5% of 1000 calls are slower than the p95: 50 more a second.
    // Broad slowdown: every call passes the p95: 1000 more, the load
    // doubles. A cap of 5% bounds it at 50.
    let text = "system: s\ncomponents:\n  web: {capacity: 2000, load: 1000, depends_on: [{target: search, timeout: 1s, hedge: HEDGE}]}\n  search: {instances: 3, latency: {p50: 10ms, p95: 40ms, p99: 90ms}}\n";
    let out = check("slow-hedge", &text.replace("HEDGE", "{after: p95}"));
    let finding = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "hedge/web>search")
        .unwrap();
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("at normal latency 5% of 1000 calls/s = 50/s more")
            && message.contains("1000 → 2000/s"),
        "{message}"
    );
    // The same in a what-if: search slowed, 1000 + 1000 calls reach it.
    let slowed = what_if(
        "slow-hedge-what-if",
        &text.replace("HEDGE", "{after: p95}"),
        &["search=500ms"],
    );
    let search = pool(&slowed["slow"], "search", None);
    // 2000 calls × 0.5 s = 1000 in flight at search, from 1050 × 0.09.
    assert!(near(&search["in_flight_before"], 1050.0 * 0.09), "{search}");
    assert!(near(&search["in_flight_after"], 2000.0 * 0.5), "{search}");
    let capped = check(
        "slow-hedge-capped",
        &text.replace("HEDGE", "{after: p95, max: 5%}"),
    );
    assert!(
        !capped["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "hedge")
    );
}

#[test]
fn a_breaker_turns_a_drained_pool_into_a_degraded_edge() {
    // Without a breaker the 300 ms timeouts hold 500 × 0.3 = 150 > 100
    // (above). With one, the timed-out calls open it: calls fail in
    // microseconds, the pool holds nothing for dep, and cell-a serves every
    // request by its fallback (the degradable edge). It opens after the
    // 300 ms timeout and the 20 calls of its window: 0.3 + 20 / 500 = 0.34 s.
    let text = CELLS.replace(
        "EDGE",
        "{target: dep, timeout: 300ms, degradable: true, breaker: {after: 50%, window: 20, open: 10s}}",
    );
    let out = what_if("slow-breaker", &text, &["dep=hang"]);
    let slow = &out["slow"];
    let a = pool(slow, "cell-a", None);
    assert!(near(&a["in_flight_after"], 0.0), "{a}");
    assert_eq!(a["saturated"], false);
    let edge = pool(slow, "cell-a", Some("dep"));
    assert!(near(&edge["breaker_opens_in_s"], 0.34), "{edge}");
    assert_eq!(slow["lose_service"], serde_json::json!([]));
}

/// In the slowed state, losing one more instance of a component leaves
/// the same load on one instance fewer of what the state says each
/// carries: the row's utilization is the state's × up / (up − 1). (Its
/// rows read the pools at normal latency: redirect held at 495% read 113%
/// after losing a zone.)
fn next_instance_is_the_state_less_one(after: &Value) -> Result<(), String> {
    for row in after["headroom"].as_array().into_iter().flatten() {
        if row["lost"] != "instance" {
            continue;
        }
        let component = row["component"].as_str().unwrap_or_default();
        let state = &after["state"][component];
        let (Some(now), Some(up), Some(next), Some(left)) = (
            state["utilization"].as_f64(),
            state["instances_up"].as_f64(),
            row["utilization"].as_f64(),
            row["survivors"].as_f64(),
        ) else {
            continue;
        };
        if (left + 1.0 - up).abs() > 0.5 || !now.is_finite() || now <= 0.0 {
            continue;
        }
        let want = now * up / left;
        if (next - want).abs() > 1e-9 * want.max(1.0) {
            return Err(format!(
                "{component}: {now} on {up} up, {next} on {left} after one instance more (want {want})"
            ));
        }
    }
    Ok(())
}

#[test]
fn what_if_slow_runs_on_every_example_model() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let model = nines::model::parse(&text).unwrap();
        let path = path.to_string_lossy().into_owned();
        for component in &model.components {
            for how in ["hang", "5s"] {
                let slow = format!("{}={how}", component.name);
                let run = nines(&[
                    "what-if",
                    &path,
                    "--slow",
                    &slow,
                    "--format",
                    "json",
                    "--today",
                    "2026-11-30",
                ]);
                assert_ne!(
                    run.outcome,
                    Outcome::Invalid,
                    "{path} {slow}: {}",
                    run.stderr
                );
                let out: Value = serde_json::from_str(&run.stdout).unwrap();
                assert!(out["slow"]["slow"][0]["component"] == component.name.as_str());
                next_instance_is_the_state_less_one(&out["after"])
                    .unwrap_or_else(|why| panic!("{path} {slow}: {why}"));
            }
        }
    }
}

#[test]
fn a_bad_slow_argument_is_a_usage_error() {
    let dir = Scratch::new("slow-bad-arg");
    let path = dir.join("m.yaml");
    std::fs::write(&path, CELLS.replace("EDGE", "dep")).unwrap();
    let path = path.to_string_lossy().into_owned();
    for (arg, says) in [
        ("dep", "give NAME=DURATION or NAME=hang"),
        ("dpe=hang", "did you mean `dep`?"),
        ("dep=5", "`5` is not a duration"),
    ] {
        let run = nines(&["what-if", &path, "--slow", arg]);
        assert_eq!(run.outcome, Outcome::Invalid, "{arg}");
        assert!(run.stderr.contains(says), "{arg}: {}", run.stderr);
    }
}

#[test]
fn what_if_slow_on_the_examples_is_snapshotted() {
    // web-shop, payments at 5 s (docs/what-if.md): past checkout's 2 s
    // timeout each call is tried 3 times, 6 s held: 100 × 6 = 600 want a
    // slot in the bulkhead of 4 × 32 = 128, full in (128 − 80) / 100 =
    // 0.48 s; checkout holds 85.5 − 80 + 128 = 133.5 of 160.
    let web_shop = nines(&[
        "what-if",
        "models/web-shop.yaml",
        "--slow",
        "payments=5s",
        "--today",
        "2026-11-30",
    ]);
    assert_eq!(web_shop.stderr, "");
    assert!(
        web_shop.stdout.contains("85.5 → 133.5"),
        "{}",
        web_shop.stdout
    );
    assert!(web_shop.stdout.contains("480ms"), "{}", web_shop.stdout);
    // url-shortener, clicks-queue hanging: redirect's 288 threads are gone
    // in (288 − 164.25) / 9000 = 0.0138 s; it serves 288 / 1424.25 = 20%.
    let shortener = nines(&[
        "what-if",
        "models/url-shortener.yaml",
        "--slow",
        "clicks-queue=hang",
        "--format",
        "json",
        "--today",
        "2026-11-30",
    ]);
    let out: Value = serde_json::from_str(&shortener.stdout).unwrap();
    let redirect = pool(&out["slow"], "redirect", None);
    assert!(near(&redirect["exhausted_in_s"], 0.01375), "{redirect}");
    assert!(near(&redirect["served"], 288.0 / 1424.25), "{redirect}");
    crate::settings().bind(|| {
        insta::assert_snapshot!("what-if-table@web-shop-slow-payments", web_shop.stdout);
        insta::assert_snapshot!(
            "what-if-json@url-shortener-slow-clicks-queue",
            shortener.stdout
        );
    });
}

#[test]
fn bookinfo_with_a_7s_delay_on_ratings_errors_after_6s() {
    // Istio's fault-injection task: a 7 s delay on ratings; reviews waits
    // 10 s for ratings (its hard-coded timeout), so reviews answers in
    // 7 s; productpage waits 3 s for reviews and tries once more: 3 s × 2
    // = 6 s, then shows the reviews as unavailable. The import reads the
    // timeouts and retries from the VirtualServices, the pool and breaker
    // from the DestinationRule, and notes the injected delay.
    let run = nines(&["import", "k8s", "tests/fixtures/import/bookinfo.yaml"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "VirtualService ratings injects a 7s delay into 100% of the calls to ratings: `nines what-if MODEL --slow ratings-v1=7s`"
        ),
        "{}",
        run.stderr
    );
    let model = nines::model::parse(&run.stdout).expect("a valid model");
    let id = |name: &str| {
        model
            .components
            .iter()
            .position(|c| c.name == name)
            .unwrap()
    };
    let productpage = &model.components[id("productpage-v1")];
    let to = |name: &str| {
        productpage
            .depends_on
            .iter()
            .find(|e| e.targets == [nines::model::ComponentId(id(name))])
            .unwrap()
    };
    let reviews = to("reviews-v2");
    assert_eq!(reviews.timeout, Some(nines::model::Duration(3_000)));
    assert_eq!(reviews.retries, 1);
    let details = to("details-v1").limits.as_deref().unwrap();
    // 1 connection + 1 pending request per caller pod.
    assert_eq!(details.pool, Some(2));
    let breaker = details.breaker.unwrap();
    assert_eq!(
        (breaker.window, breaker.open),
        (1, nines::model::Duration(180_000))
    );
    let reviews_to_ratings = &model.components[id("reviews-v2")].depends_on[0];
    assert_eq!(
        reviews_to_ratings.timeout,
        Some(nines::model::Duration(10_000))
    );
    let out = what_if("slow-bookinfo", &run.stdout, &["ratings-v1=7s"]);
    let slow = &out["slow"];
    assert!(near(&pool(slow, "reviews-v2", None)["held_after_s"], 7.0));
    assert!(near(
        &pool(slow, "productpage-v1", None)["held_after_s"],
        6.0
    ));
    let lost = &slow["lose_service"][0];
    assert_eq!(lost["entrypoint"], "productpage-v1");
    assert_eq!(lost["calls"], "required");
}

#[test]
fn a_slow_domain_slows_every_component_placed_in_it() {
    // url-shortener, az-b at 2s: its components there are analytics-db
    // (placed only in az-b) and every spread one (redirect, api, links-db,
    // clicks-queue, click-workers: one third of their instances in az-b,
    // counted as the whole component slowed).
    let out = what_if(
        "slow-domain",
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/models/url-shortener.yaml"
        ))
        .unwrap(),
        &["az-b=2s"],
    );
    let slowed: Vec<&str> = out["slow"]["slow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["component"].as_str().unwrap())
        .collect();
    assert_eq!(
        slowed,
        [
            "redirect",
            "api",
            "links-db",
            "clicks-queue",
            "click-workers",
            "analytics-db"
        ]
    );
    assert!(
        out["slow"]["slow"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| near(&s["latency_s"], 2.0))
    );
}

/// A chain `c0 → c1 → … → c{n-1}`, each with workers and a latency, no
/// timeouts: every component hangs credibly.
fn chain(n: usize) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "system: chain\nentrypoints: [c0]\ncomponents:\n  c0: {capacity: 1000, load: 100, workers: 50, latency: {p99: 1ms}, depends_on: [c1]}\n",
    );
    for i in 1..n {
        let calls = if i + 1 < n {
            format!(", depends_on: [c{}]", i + 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            text,
            "  c{i}: {{workers: 50, latency: {{p99: 1ms}}{calls}}}"
        );
    }
    text
}

#[test]
#[ignore = "slow: check and what-if --slow on a 20,000-long chain with pools (seconds in a debug build); .ci/run runs it"]
fn a_twenty_thousand_long_chain_with_pools_is_judged_without_overflow_and_within_bounds() {
    // Every one of the 20,000 components is credibly slow: the bulkhead
    // rule's budget (20 million visits) stops well before all are judged,
    // and says so; the served shares and the call paths are walked
    // without recursion. At normal latency c0 already holds 100 rps ×
    // 20,000 × 1 ms = 2,000 requests in flight on 50 workers (c1 1,999.9,
    // …): every pool is full before anything slows, so `pool` says so for
    // c0 and no slowness fills a pool further (no `slow` rows).
    let text = chain(20_000);
    let out = check("slow-chain-check", &text);
    assert_eq!(out["slow_truncated"], true);
    assert!(out.get("slow").is_none(), "{}", out["slow"]);
    let c0 = out["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["component"] == "c0")
        .unwrap();
    assert_eq!(c0["ok"], false);
    assert!(
        out["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "pool/c0")
    );
    // The last one hanging drains the chain; c0 served nothing at normal
    // latency already (its full pool looks hung to nothing above it, but
    // c1's full pool, without load shedding, looks hung to c0), so no
    // entrypoint serves less than it did. On 5,000 (the same walk without
    // recursion; 20,000 takes about 9 minutes in a debug build, past the
    // budget of .ci/run): c0 holds 100 × 5,000 × 1 ms = 500 on 50.
    let text = chain(5_000);
    let slowed = what_if("slow-chain-what-if", &text, &["c4999=hang"]);
    assert_eq!(slowed["slow"]["lose_service"], serde_json::json!([]));
}

#[test]
fn a_short_chain_with_pools_drains_every_pool_on_the_way() {
    // c0 → c1 → c2 → c3, no timeouts: c3 hangs, so every pool on the
    // chain holds its requests forever and every one drains. At 100 rps
    // with 1 ms each, c0 holds 100 × 4 ms = 0.4 in flight before and is
    // full in (50 − 0.4) / 100 = 0.496 s; c3 holds 100 × 1 ms = 0.1 and is
    // full in (50 − 0.1) / 100 = 0.499 s.
    let out = what_if("slow-chain-short", &chain(4), &["c3=hang"]);
    let c0 = pool(&out["slow"], "c0", None);
    assert!(near(&c0["in_flight_before"], 0.4), "{c0}");
    assert!(near(&c0["exhausted_in_s"], 0.496), "{c0}");
    let c3 = pool(&out["slow"], "c3", None);
    assert!(near(&c3["in_flight_before"], 0.1), "{c3}");
    assert!(near(&c3["exhausted_in_s"], 0.499), "{c3}");
    assert_eq!(
        out["slow"]["drained"],
        serde_json::json!(["c0", "c1", "c2", "c3"])
    );
}

#[test]
fn two_refusing_calls_below_one_caller_are_relieved_by_a_holdback() {
    // docs/slow.md "Refusals are independent", pinned. api (100 workers)
    // gets 480 rps and calls a (10 workers) and b (12), each shedding.
    // a and b slowed to 100 ms: a holds 480 × 0.1 = 48 for 10, serving
    // 10 / 0.1 = 100 a second, b 120; api holds 480 × (0.1 + 0.1) = 96 of
    // its 100. Served: 100/480 × 120/480 = 5.2%.
    // api slowed to 200 ms as well: 480 × 0.4 = 192 want its 100, so it
    // takes in 480 × 100/192 = 250 a second, and a and b, offered 250,
    // serve 100/250 and 120/250: 250/480 × 0.4 × 0.48 = 10%. Independent
    // refusals make the holdback admission control; fail-fast would give
    // 100/480 both times (not built).
    let text = "system: relief\nentrypoints: [api]\ncomponents:\n  \
        api: {capacity: 100000, load: 480, workers: 100, depends_on: [{target: a}, {target: b}]}\n  \
        a: {latency: {p99: 10ms}, workers: 10, load_shedding: true}\n  \
        b: {latency: {p99: 10ms}, workers: 12, load_shedding: true}\n";
    let both = what_if("slow-relief-both", text, &["a=100ms", "b=100ms"]);
    let served = &both["after"]["served"]["api"];
    assert!(near(served, 100.0 / 480.0 * 120.0 / 480.0), "{served}");
    let more = what_if(
        "slow-relief-more",
        text,
        &["a=100ms", "b=100ms", "api=200ms"],
    );
    let api = pool(&more["slow"], "api", None);
    assert!(near(&api["in_flight_after"], 192.0), "{api}");
    assert!(near(&api["ceiling"], 250.0), "{api}");
    let served = &more["after"]["served"]["api"];
    assert!(near(served, 250.0 / 480.0 * 0.4 * 0.48), "{served}");
    // The list of who loses service reads the same state as the figure.
    for (out, after) in [(&both, 100.0 / 480.0 * 120.0 / 480.0), (&more, 0.1)] {
        let lost = &out["slow"]["lose_service"][0];
        assert_eq!(lost["entrypoint"], "api", "{lost}");
        assert!(near(&lost["served_before"], 1.0), "{lost}");
        assert!(near(&lost["served_after"], after), "{lost}");
    }
}

#[test]
fn a_bulkhead_in_front_of_a_small_pool_queues_there_and_gets_its_throughput() {
    // docs/slow.md "A pool fed over edge limits queues". api (400 workers,
    // 500 rps) calls db over a bulkhead of 50; db has 10 workers. db slowed
    // to 40 ms wants 500 × 0.04 = 20 of its 10, but only api's 50 slots can
    // wait for them: the queue is bounded, and db answers in R = 0.04 ×
    // 50 / 10 = 0.2 s (Little's law on the 50 held). api's calls want 500
    // × 0.2 = 100 slots of 50: half are refused at once, and a refused call
    // is not made, so db is offered 250 a second = 10 / 0.04, what its
    // workers serve. Served: 50%. (Counted as a hang, as before, db's
    // queue grew without bound and api, without a timeout, served 0.)
    let text = "system: queue\nentrypoints: [api]\ncomponents:\n  \
        api: {capacity: 100000, load: 500, workers: 400, depends_on: [{target: db, pool: 50, timeout: 300ms}]}\n  \
        db: {latency: {p99: 10ms}, workers: 10}\n";
    let out = what_if("slow-bounded-queue", text, &["db=40ms"]);
    assert!(
        near(&out["after"]["served"]["api"], 0.5),
        "{:#}",
        out["after"]["served"]
    );
    assert!(
        near(&out["after"]["state"]["db"]["load"], 250.0),
        "{:#}",
        out["after"]["state"]
    );
    let db = pool(&out["slow"], "db", None);
    // 50 held at db: its 10 workers busy, 40 waiting.
    assert!(near(&db["in_flight_after"], 50.0), "{db}");
    assert_eq!(db["saturated"], true, "{db}");
    let edge = pool(&out["slow"], "api", Some("db"));
    assert!(near(&edge["in_flight_after"], 50.0), "{edge}");
    // With a 150 ms timeout the 0.2 s wait is past it: every call times
    // out (the queue is as long, the answers too late), and api serves 0.
    let short = what_if(
        "slow-bounded-queue-timeout",
        &text.replace("timeout: 300ms", "timeout: 150ms"),
        &["db=40ms"],
    );
    assert!(
        near(&short["after"]["served"]["api"], 0.0),
        "{:#}",
        short["after"]["served"]
    );
}

#[test]
fn what_fails_as_a_slowness_starts_stays_failed() {
    // docs/slow.md "Rounds": api calls mid over a bulkhead of 144; mid
    // calls db (9 workers, 100 ms) with a 103 ms timeout. At normal
    // latency db is offered 254 a second, wants 254 × 0.1 = 25.4 of its 9
    // and queues without bound (mid has no limit): every call of mid
    // times out, and api serves 0. Slow mid to 5 s: api's calls want 254
    // × (5 + 0.103) = 1296 slots and 144 are admitted (11.1%), so db is
    // offered 28.2 a second and could answer; but mid failed as the
    // slowness started, and a pool never serves more in a later round
    // (the metastable reading: nothing here models how it recovers), so
    // api still serves 0, and db is offered what the bulkhead admits.
    let text = "system: relief\nentrypoints: [api]\ncomponents:\n  \
        api: {capacity: 100000, load: 254, workers: 200, depends_on: [{target: mid, pool: 144}]}\n  \
        mid: {latency: {p99: 10ms}, depends_on: [{target: db, timeout: 103ms}]}\n  \
        db: {latency: {p99: 100ms}, workers: 9}\n";
    let normal = what_if("slow-stays-normal", text, &["mid=10ms"]);
    assert!(
        near(&normal["after"]["served"]["api"], 0.0),
        "{:#}",
        normal["after"]["served"]
    );
    let slow = what_if("slow-stays", text, &["mid=5s"]);
    assert!(
        near(&slow["after"]["served"]["api"], 0.0),
        "{:#}",
        slow["after"]["served"]
    );
    let admitted = 144.0 / (254.0 * 5.103);
    assert!(
        near(&slow["after"]["state"]["db"]["load"], 254.0 * admitted),
        "{:#}",
        slow["after"]["state"]
    );
}

#[test]
fn a_chain_of_bulkheads_serves_what_reaches_its_end() {
    // The chain of docs/slow.md: c1 (146 workers, shedding, 765 rps) -> c2
    // -> (bulkhead 25) c3 -> (bulkhead 29) c4. A request is served when
    // it gets through to c4, so the served share is c4's load over 765:
    // one state, one figure. Slowing c1 from 50 ms to 300 ms fills its
    // pool (it takes in less) and serves less, never more.
    let text = "system: chain\nentrypoints: [c1]\ncomponents:\n  \
        c1: {latency: {p99: 29ms}, capacity: 100000, load: 765, workers: 146, load_shedding: true, depends_on: [{target: c2, timeout: 342ms, retries: 1}]}\n  \
        c2: {latency: {p99: 54ms}, workers: 197, depends_on: [{target: c3, pool: 25}]}\n  \
        c3: {latency: {p99: 56ms}, workers: 76, depends_on: [{target: c4, pool: 29}]}\n  \
        c4: {latency: {p99: 87ms}, workers: 83}\n";
    let mut last = 1.0;
    for latency in ["c1=50ms", "c1=300ms"] {
        let out = what_if("slow-chain", text, &[latency]);
        let served = out["after"]["served"]["c1"].as_f64().unwrap();
        let reaching = out["after"]["state"]["c4"]["load"].as_f64().unwrap();
        assert!(
            (served - reaching / 765.0).abs() < 1e-9,
            "{latency}: {served} vs {reaching} / 765"
        );
        assert!(served <= last + 1e-12, "{latency}: {served} after {last}");
        last = served;
    }
    // At 300 ms it serves less than at 50 ms (9.96%: c4 is offered 76.2).
    assert!(last < 0.0996, "{last}");
}

// ---- the slow scenario's state: one truth, monotone in the slowness ----

mod monotone {
    use nines::analyze::slow::{self, Before};
    use nines::engine::concurrency::{Plan, Slowed, Slowness};
    use nines::engine::scenario::Scenario;
    use nines::engine::state::Flow;
    use nines::model::{ComponentId, Duration, Model};
    use proptest::prelude::*;
    use std::fmt::Write as _;

    /// A random tree of calls under two entrypoints (`c0`, `c1`): each
    /// other component has one caller before it, so no component serves
    /// two callers (a drained pool upstream relieving a shared one is a
    /// real gain, not this property's subject). Components have `workers`
    /// or not, a p99, `load_shedding` or not (entrypoints only); edges a timeout or not,
    /// retries, a `pool` within the caller's workers, degradable or not.
    fn tree() -> impl Strategy<Value = String> {
        trees(true)
    }

    /// [`tree`], with edge `pool`s and `load_shedding` (the limits that
    /// refuse requests) only when `refusals`.
    fn trees(refusals: bool) -> impl Strategy<Value = String> {
        (3usize..9, any::<u64>()).prop_map(move |(n, seed)| {
            let mut rng = seed;
            let mut next = |k: u64| {
                rng = rng
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (rng >> 33) % k.max(1)
            };
            let workers: Vec<Option<u64>> = (0..n)
                .map(|_| (next(4) != 0).then(|| 5 + next(200)))
                .collect();
            let mut calls: Vec<Vec<usize>> = vec![Vec::new(); n];
            for j in 2..n {
                let caller = usize::try_from(next(j as u64)).unwrap();
                calls[caller].push(j);
            }
            let mut text = String::from("system: tree\nentrypoints: [c0, c1]\ncomponents:\n");
            for i in 0..n {
                let _ = write!(text, "  c{i}: {{latency: {{p99: {}ms}}", 1 + next(100));
                if i < 2 {
                    let _ = write!(text, ", capacity: 100000, load: {}", 10 + next(1000));
                }
                if let Some(w) = workers[i] {
                    let _ = write!(text, ", workers: {w}");
                }
                // Shedding only at the entrypoints: a shedding component
                // below another one is relieved when the one above is held
                // back (it passes on less), so end-to-end goodput can rise
                // with a slowness upstream (found by this test: c1 → c2 →
                // c3 all shedding), which is real admission control, not
                // this property's subject.
                if next(2) == 0 && i < 2 && refusals {
                    text.push_str(", load_shedding: true");
                }
                let edges: Vec<String> = calls[i]
                    .iter()
                    .map(|&j| {
                        let mut e = format!("{{target: c{j}");
                        if next(2) == 0 {
                            let _ = write!(e, ", timeout: {}ms", 50 + next(2000));
                            if next(2) == 0 {
                                let _ = write!(e, ", retries: {}", 1 + next(2));
                            }
                        }
                        if let Some(w) = workers[i].filter(|_| next(3) == 0 && refusals) {
                            let _ = write!(e, ", pool: {}", 1 + next(w));
                        }
                        if next(3) == 0 {
                            e.push_str(", degradable: true");
                        }
                        e.push('}');
                        e
                    })
                    .collect();
                if !edges.is_empty() {
                    let _ = write!(text, ", depends_on: [{}]", edges.join(", "));
                }
                text.push_str("}\n");
            }
            text
        })
    }

    /// Each entrypoint's served share with `slowed` (nothing slowed when
    /// `None`), from the slow scenario's state; and that scenario.
    fn served(
        model: &Model,
        slowed: Option<(ComponentId, Slowness)>,
    ) -> (Vec<f64>, Scenario, usize) {
        let flow = Flow::new(model);
        let plan = Plan::new(model, &flow);
        let scenario = Scenario::default();
        let (state, base) = slow::normal(model, &flow, &plan, &scenario);
        let before = Before {
            scenario: &scenario,
            state: &state,
            base: &base,
            steady: None,
        };
        let slowed = Slowed {
            components: slowed.into_iter().collect(),
            drained: Vec::new(),
        };
        let judged = slow::judge(model, (&flow, &plan), &before, slowed);
        let shares = model
            .entrypoints
            .iter()
            .map(|&e| judged.state.served_share(model, e))
            .collect();
        (shares, judged.scenario, judged.losses.len())
    }

    /// Slower and slower: 1 ms, 50 ms, 300 ms, 1 s, 5 s, 30 s, then a hang.
    const STEPS: [Option<u64>; 7] = [
        Some(1),
        Some(50),
        Some(300),
        Some(1_000),
        Some(5_000),
        Some(30_000),
        None,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)))]

        #[test]
        // Without the limits that refuse (an edge `pool`, `load_shedding`):
        // with them a holdback is admission control, and a slower component
        // can serve more (docs/slow.md "Monotone in latency, where nothing refuses"; pinned by
        // hand in two_refusing_calls_below_one_caller_are_relieved_by_a_holdback).
        fn without_refusing_limits_slowing_a_component_more_never_serves_an_entrypoint_more(
            text in trees(false),
            pick in any::<usize>(),
        ) {
            let model = nines::model::parse(&text).map_err(|p| TestCaseError::fail(format!("{p:?}\n{text}")))?;
            let slow = ComponentId(pick % model.components.len());
            let mut last: Option<Vec<f64>> = None;
            for step in STEPS {
                let how = step.map_or(Slowness::Hang, |ms| Slowness::Latency(Duration(ms)));
                let (now, ..) = served(&model, Some((slow, how)));
                if let Some(last) = &last {
                    for (e, (&was, &is)) in last.iter().zip(&now).enumerate() {
                        prop_assert!(
                            is <= was + 1e-9,
                            "c{e} serves {was} then {is} as {} slows to {step:?} ms\n{text}",
                            model.component(slow).name
                        );
                    }
                }
                last = Some(now);
            }
        }

        #[test]
        fn slowing_nothing_changes_nothing(text in tree()) {
            // Nothing slowed: no entrypoint is listed as losing service;
            // and where no pool saturates at normal latency (where one
            // does, `pool` says so, and the slow scenario keeps it at its
            // ceiling, drained or not), nothing is drained, nothing has a
            // ceiling, and every served share is the scenario's own.
            let model = nines::model::parse(&text).map_err(|p| TestCaseError::fail(format!("{p:?}\n{text}")))?;
            let flow = Flow::new(&model);
            let plan = Plan::new(&model, &flow);
            let (state, base) = slow::normal(&model, &flow, &plan, &Scenario::default());
            let (shares, scenario, losses) = served(&model, None);
            prop_assert_eq!(losses, 0);
            let saturated = model.component_ids().any(|id| {
                base.of(id).saturated || base.edges_of(id).iter().any(|e| e.saturated)
            });
            if !saturated {
                prop_assert!(scenario.is_intact(), "{scenario:?}");
                for (&e, share) in model.entrypoints.iter().zip(&shares) {
                    let was = state.served_share(&model, e);
                    prop_assert!((share - was).abs() < 1e-12, "{share} vs {was}");
                }
            }
        }
    }
}

/// The figures of `check` (JSON): availability and served of `api`.
fn figures(json: &Value, entrypoint: &str) -> (f64, f64) {
    let row = &json["availability"][entrypoint];
    (
        row["availability"].as_f64().unwrap(),
        row["served"].as_f64().unwrap(),
    )
}

#[test]
fn a_pool_counts_as_the_capacity_it_stands_for() {
    // docs/slow.md "A pool is a capacity". Each instance serves 10 workers
    // / 0.05 s held = 200 a second, under its capacity of 1,000: 500 a
    // second needs ⌈500 / 200⌉ = 3 of the 4 up.
    //   availability = 0.99^4 + 4 × 0.99^3 × 0.01
    //                = 0.96059601 + 0.03881196 = 0.99940797
    //   served = 0.99940797 + 0.8 × (6 × 0.99² × 0.01²) + 0.4 × (4 × 0.99 × 0.01³)
    //          = 0.99940797 + 0.8 × 5.8806e-4 + 0.4 × 3.96e-6 = 0.999880002
    // (structurally one of four is enough: 1 − 0.01^4 = 0.99999999).
    let text = "system: four\nobjective: {availability: 99.9%}\ncomponents:\n  api: {instances: 4, availability: 99%, capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}}\n";
    let json = check("pool-capacity-check", text);
    let (availability, served) = figures(&json, "api");
    assert!(
        (availability - 0.999_407_97).abs() < 1e-12,
        "{availability}"
    );
    assert!((served - 0.999_880_002).abs() < 1e-12, "{served}");
    let row = &json["availability"]["api"];
    assert!(near(&row["structural_availability"], 0.999_999_99), "{row}");
    // `what-if --lose api:2`: 2 × 200 = 400 of 500, never the whole peak;
    // the state serves 80% (100 a second unserved), and the figure of the
    // two left serves 0.99² × 0.8 + 2 × 0.99 × 0.01 × 0.4 = 0.78408 +
    // 0.00792 = 0.792.
    let (_, out) = what_if_with("pool-capacity-what-if", text, &["--lose", "api:2"]);
    assert!(
        near(&out["after"]["served"]["api"], 0.8),
        "{}",
        out["after"]["served"]
    );
    assert!(
        near(&out["after"]["unserved"], 100.0),
        "{}",
        out["after"]["unserved"]
    );
    assert!(near(&out["before"]["served"]["api"], 1.0));
    let (after, after_served) = figures(&out["after"], "api");
    assert!(after.abs() < 1e-12, "{after}");
    assert!((after_served - 0.792).abs() < 1e-12, "{after_served}");
}

#[test]
fn a_pool_too_small_at_normal_latency_is_down_in_the_figure_the_pool_rule_names() {
    // Two instances of 10 workers at 50 ms: 2 × 200 = 400 a second of
    // 500: `pool/api` is an error (25 in flight on 20), and the figure
    // agrees: never the whole peak (0%), served 80% with both up (0.999²
    // = 0.998001) and 40% with one (2 × 0.999 × 0.001 = 0.001998):
    //   served = 0.998001 × 0.8 + 0.001998 × 0.4 = 0.7984008 + 0.0007992 = 0.79920
    let text = "system: sat\nobjective: {availability: 99.9%}\ncomponents:\n  api: {instances: 2, availability: 99.9%, capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}}\n";
    let json = check("pool-capacity-short", text);
    let (availability, served) = figures(&json, "api");
    assert!(availability.abs() < 1e-12, "{availability}");
    assert!((served - 0.7992).abs() < 1e-12, "{served}");
    let ids: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"pool/api"), "{ids:?}");
    assert!(ids.contains(&"slo/api"), "{ids:?}");
}

#[test]
fn a_pool_saturated_at_normal_latency_serves_its_share_to_its_callers_in_every_state() {
    // db has 1 worker held 100 ms: it serves 10 a second of the 100 api
    // sends it. Every state holds db at that ceiling, so api serves 10%
    // of its requests whenever both are up, and never its whole peak:
    //   served = 0.999 × 0.999 × 10 / 100 = 0.0998001, availability 0
    // (structurally 0.999² = 0.998001). api's own pool leans on db's
    // queue (its calls wait on a saturated pool), so no ceiling is kept
    // for it: that its 50 ms timeout then fails every call is the slow
    // scenario's reading (docs/slow.md "A pool is a capacity").
    let text = "system: late\ncomponents:\n  api: {availability: 99.9%, capacity: 1000, load: 100, workers: 100, depends_on: [{target: db, timeout: 50ms}]}\n  db: {availability: 99.9%, workers: 1, latency: {p99: 100ms}}\n";
    let json = check("pool-capacity-late", text);
    let (availability, served) = figures(&json, "api");
    assert!(availability.abs() < 1e-12, "{availability}");
    assert!((served - 0.099_800_1).abs() < 1e-12, "{served}");
    let row = &json["availability"]["api"];
    assert!(near(&row["structural_availability"], 0.998_001), "{row}");
}

mod pool_figures {
    //! The figure of a fleet with a request pool against a brute-force
    //! enumeration of its instance states (each instance serves `min(capacity,
    //! workers / held)` a second), and losing more never serving more.
    use proptest::prelude::*;

    /// (instances, workers, p99 in ms, capacity, load, availability in 1e-3).
    fn fleet() -> impl Strategy<Value = (u32, u32, u32, u32, u32, u32)> {
        (
            1u32..=6,
            1u32..=40,
            5u32..=400,
            50u32..=2000,
            1u32..=3000,
            900u32..=999,
        )
    }

    fn text((n, w, ms, cap, load, a): (u32, u32, u32, u32, u32, u32)) -> String {
        format!(
            "system: p\ncomponents:\n  api: {{instances: {n}, availability: {}%, capacity: {cap}, load: {load}, workers: {w}, latency: {{p99: {ms}ms}}}}\n",
            f64::from(a) / 10.0
        )
    }

    /// By enumeration: k instances up with probability C(n, k) p^k
    /// (1 − p)^(n − k) serve min(1, k × t / load) when the pool binds (t =
    /// w / held below the capacity: it sheds past it), else all when k ×
    /// capacity carries the load and nothing when it does not (no
    /// `load_shedding`: it collapses); the whole peak when that is 1.
    fn by_hand((n, w, ms, cap, load, a): (u32, u32, u32, u32, u32, u32)) -> (f64, f64) {
        let p = f64::from(a) / 1000.0;
        let pool = f64::from(w) / (f64::from(ms) / 1000.0);
        let binds = pool < f64::from(cap) * (1.0 - 1e-12);
        let (mut availability, mut served) = (0.0, 0.0);
        for k in 0..=n {
            let mut choose = 1.0;
            for i in 0..k {
                choose = choose * f64::from(n - i) / f64::from(i + 1);
            }
            let pk = choose * p.powi(k.cast_signed()) * (1.0 - p).powi((n - k).cast_signed());
            let share = if binds {
                (f64::from(k) * pool / f64::from(load)).min(1.0)
            } else if f64::from(k) * f64::from(cap) * (1.0 + 1e-12) >= f64::from(load) {
                1.0
            } else {
                0.0
            };
            if k > 0 && share >= 1.0 - 1e-12 {
                availability += pk;
            }
            if k > 0 {
                served += pk * share;
            }
        }
        (availability, served)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)))]

        #[test]
        fn a_pooled_fleet_agrees_with_the_enumeration(f in fleet()) {
            let model = nines::model::parse(&text(f)).map_err(|p| TestCaseError::fail(format!("{p:?}")))?;
            let figure = nines::engine::availability(&model).remove(0).1;
            let (availability, served) = by_hand(f);
            prop_assert!((figure.availability - availability).abs() < 1e-9, "{} vs {availability}", figure.availability);
            let got = figure.capacity.as_ref().map_or(figure.availability, |c| c.served);
            prop_assert!((got - served).abs() < 1e-9, "{got} vs {served}");
        }

        #[test]
        fn losing_an_instance_of_a_pooled_fleet_never_serves_more(f in fleet()) {
            // One instance fewer (the same fleet with n − 1): never a higher
            // figure or served share.
            prop_assume!(f.0 > 1);
            let fewer = (f.0 - 1, f.1, f.2, f.3, f.4, f.5);
            let of = |f| {
                let model = nines::model::parse(&text(f)).unwrap();
                let figure = nines::engine::availability(&model).remove(0).1;
                let served = figure.capacity.as_ref().map_or(figure.availability, |c| c.served);
                (figure.availability, served)
            };
            let (a, s) = of(f);
            let (a1, s1) = of(fewer);
            prop_assert!(a1 <= a + 1e-12 && s1 <= s + 1e-12, "{a1} {s1} after {a} {s}");
        }
    }
}

/// From a review: a slowness that holds a pool back does not lift the
/// capacity of a component whose pool is larger than its capacity. api's
/// 20 workers at 50 ms serve 400/s an instance, more than its capacity of
/// 100: the state judges the 300 it is offered at twice the load against
/// 2 × 100 = 200, and it collapses (150%), with db slowed to 200 ms
/// (40 workers / 250 ms = 160 admitted) or not. overload says so.
#[test]
fn a_slowness_does_not_hide_an_overload_the_state_counts() {
    let text = "system: s\nentrypoints: [api]\ncomponents:\n  api: {instances: 2, capacity: 100, load: 150, workers: 20, latency: {p99: 50ms}, timeout: 1s, depends_on: [db]}\n  db: {instances: 2, capacity: 1000}\n";
    let (outcome, out) = what_if_with(
        "slow-overload",
        text,
        &["--slow", "db=200ms", "--scale-load", "2"],
    );
    assert_eq!(outcome, Outcome::Fail);
    let overload = finding(&out["after"], "overload/api");
    assert_eq!(overload["severity"], "error");
    assert!(
        overload["message"]
            .as_str()
            .unwrap()
            .starts_with("api gets 300 against 2 × 100 = 200: 150% of capacity"),
        "{overload}"
    );
}

/// From a review: a bulkhead that refuses calls cuts what api serves, but
/// api's own pool is not full: the next-loss row reads what the state
/// serves, with no "time held" made of the refusals and no `workers:`
/// advice. The bulkhead of 2 an instance admits 4 × 2 / 100 ms = 80/s of
/// the 400 to the slowed db (the state: 400 / 80 = 500%); those hold a
/// worker 110 ms and the refused ones fail after api's own 10 ms:
/// 80 × 0.11 + 320 × 0.01 = 12 in flight of 4 × 50 = 200. One instance
/// fewer leaves 3 × 20 = 60: 400 / 60 = 667% = 500% × 4 / 3, which the
/// bulkheads refuse (it once read as a capacity redistribution cascade).
#[test]
fn a_bulkheads_refusals_are_not_a_pool_held_longer() {
    let text = "system: s\nentrypoints: [api]\ncomponents:\n  api: {instances: 4, capacity: 1000, load: 400, workers: 50, latency: {p99: 10ms}, depends_on: [{target: db, pool: 2, timeout: 2s}]}\n  db: {instances: 2, capacity: 5000, latency: {p99: 5ms}}\n";
    let out = what_if("slow-bulkhead-rows", text, &["db=100ms"]);
    let state = &out["after"]["state"]["api"];
    assert!(near(&state["capacity"], 80.0), "{state}");
    let row = out["after"]["headroom"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["component"] == "api" && r["lost"] == "instance")
        .expect("api's instance row");
    assert!(near(&row["utilization"], 400.0 / 60.0), "{row}");
    let finding = finding(&out["after"], "headroom/api/instance");
    let text = format!("{} {}", finding["message"], finding["help"]);
    assert!(!text.contains("held per request"), "{text}");
    assert!(!text.contains("workers:"), "{text}");
    // The bulkheads refuse, as the state says (it serves 80 of 400): not a
    // redistribution cascade, and a warning, as a full pool is. The next
    // loss leaves 3 × 20 = 60 of 400 served: 15%.
    assert!(
        text.contains("= 667% of what its bulkheads admit of its slowed calls")
            && text.contains("60 / 400 = 15% of peak served")
            && text.contains("raise the bulkheads")
            && !text.contains("cascade"),
        "{text}"
    );
    assert_eq!(finding["severity"], "warning");
}

/// From a review: in a slow scenario, a component the slowness does not
/// reach keeps its own pool's reading. api's 10 workers at 50 ms serve 200
/// a second an instance, below its capacity of 1,000, at normal latency
/// as with db slowed (api does not call db): losing one of its 3
/// instances leaves 500 / (2 × 200) = 125% of what its request pool
/// serves, never "what its bulkheads admit of its slowed calls" (it has
/// none), and the help offers workers: 500 × 50 ms / 2 survivors = 12.5
/// in flight each, so `workers: 13`.
#[test]
fn a_pool_the_slowness_does_not_reach_keeps_its_reading() {
    let text = "system: s\nentrypoints: [api, web]\ncomponents:\n  api: {instances: 3, capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}, load_shedding: true}\n  web: {instances: 2, capacity: 1000, load: 100, workers: 50, latency: {p99: 10ms}, depends_on: [{target: db, pool: 2, timeout: 1s}]}\n  db: {instances: 2, capacity: 5000, latency: {p99: 5ms}}\n";
    let out = what_if("slow-unreached-pool", text, &["db=500ms"]);
    let finding = finding(&out["after"], "headroom/api/instance");
    let text = format!("{} {}", finding["message"], finding["help"]);
    assert!(
        text.contains("500 / (2 × 200) = 125% of what its request pool serves (10 workers / 50ms held per request)")
            && text.contains("workers: 13")
            && !text.contains("bulkheads"),
        "{text}"
    );
}
