//! Figures and advice an SRE can sign: switchover time, unquantified paths,
//! managed services, redundancy one level up, per-entrypoint objectives and
//! deadlines, each checked end to end on the JSON report with hand numbers.

use nines::cli::{Format, Outcome};
use serde_json::Value;

use crate::check;

/// `nines check --format json` on `text`, parsed.
fn json(text: &str) -> Value {
    let run = check("figures.yaml", text, Format::Json);
    assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// The ids of the findings of a JSON report.
fn ids(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn equal_timeouts_on_every_hop_do_not_compose() {
    // 5s on every hop: a waits 5s for b, whose own call to c can take 5s;
    // equal is already too short, so a>b and b>c fire (c>d has no callee call).
    let report = json(
        "system: s\ncomponents:\n  a: {timeout: 12s, depends_on: [{target: b, timeout: 5s}]}\n  b: {depends_on: [{target: c, timeout: 5s}]}\n  c: {depends_on: [{target: d, timeout: 5s}]}\n  d: {}\n",
    );
    let found = ids(&report);
    assert!(found.contains(&"deadline/a>b".to_owned()), "{found:?}");
    assert!(found.contains(&"deadline/b>c".to_owned()), "{found:?}");
    // Worst-case latency of a > b > c > d: 5s + 5s + 5s = 15s ≥ the 12s a's
    // clients wait: deadline/a.
    let row = &report["latency"][0];
    assert_eq!(row["entrypoint"], "a");
    assert_eq!(row["path"], serde_json::json!(["a", "b", "c", "d"]));
    assert_eq!(row["worst_latency_s"], 15.0);
    assert_eq!(row["timeout_s"], 12.0);
    assert_eq!(row["over"], true);
    assert!(found.contains(&"deadline/a".to_owned()), "{found:?}");
}

#[test]
fn retries_multiply_each_hops_timeout_in_the_path_latency() {
    // web > api: (1 + 2) × 2s = 6s; api > cache: 3s; api > db: (1 + 1) × 1s = 2s.
    // Slowest: web > api > cache = 9s, within the 10s web's clients wait.
    let report = json(
        "system: s\ncomponents:\n  web: {timeout: 10s, depends_on: [{target: api, retries: 2, timeout: 2s}]}\n  api: {depends_on: [{target: db, retries: 1, timeout: 1s}, {target: cache, timeout: 3s}]}\n  db: {}\n  cache: {}\n",
    );
    let row = &report["latency"][0];
    assert_eq!(row["path"], serde_json::json!(["web", "api", "cache"]));
    assert_eq!(row["worst_latency_s"], 9.0);
    assert_eq!(row["over"], false);
    assert!(!ids(&report).contains(&"deadline/web".to_owned()));
}

#[test]
fn a_path_without_figures_is_not_available_and_a_partial_one_is_a_bound() {
    // Nothing has a figure: n/a, with the three names that would need one.
    let text = "system: s\nobjective: {availability: 99.9%}\ncomponents:\n  web: {depends_on: [api]}\n  api: {depends_on: [db]}\n  db: {}\n";
    let report = json(text);
    let row = &report["availability"]["web"];
    assert_eq!(row["availability"], Value::Null);
    assert_eq!(row["nines"], Value::Null);
    assert_eq!(row["downtime_per_year_s"], Value::Null);
    assert_eq!(row["unquantified"], serde_json::json!(["web", "api", "db"]));
    // Nothing to judge: slo stays silent rather than calling it met or missed.
    assert!(!ids(&report).contains(&"slo/web".to_owned()));
    let table = check("figures.yaml", text, Format::Table).stdout;
    let line = table.lines().find(|l| l.contains("│ web")).expect("row");
    assert!(
        line.contains("n/a (3 unquantified) ┆   n/a ┆         n/a"),
        "{table}"
    );
    assert!(!line.contains("99.00") && !line.contains("0s"), "{table}");
    // db at 99.95%, web and api unquantified: at most 99.95%, 2 unquantified,
    // and since that bound is above 99.9%, no slo finding; at 99.8% the bound
    // itself misses: slo fires with "at most".
    let report = json(&text.replace("db: {}", "db: {availability: 99.95%}"));
    let row = &report["availability"]["web"];
    assert_eq!(row["availability"], 0.9995);
    assert_eq!(row["unquantified_components"], 2);
    let table = check(
        "figures.yaml",
        &text.replace("db: {}", "db: {availability: 99.95%}"),
        Format::Markdown,
    )
    .stdout;
    assert!(
        table.contains("| web | ≤ 99.950000%, 2 unquantified | ≤ 3.30 | 99.9% | ≥ 4h 22m |"),
        "{table}"
    );
    let report = json(&text.replace("db: {}", "db: {availability: 99.8%}"));
    let slo = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "slo/web")
        .expect("slo/web");
    assert!(
        slo["message"]
            .as_str()
            .unwrap()
            .contains("reaches at most 99.8%")
    );
}
