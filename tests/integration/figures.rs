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
fn ids(audit: &Value) -> Vec<String> {
    audit["findings"]
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
    let audit = json(
        r"system: s
components:
  a: {timeout: 12s, depends_on: [{target: b, timeout: 5s}]}
  b: {depends_on: [{target: c, timeout: 5s}]}
  c: {depends_on: [{target: d, timeout: 5s}]}
  d: {}
",
    );
    let found = ids(&audit);
    assert!(found.contains(&"deadline/a>b".to_owned()), "{found:?}");
    assert!(found.contains(&"deadline/b>c".to_owned()), "{found:?}");
    // Worst-case latency of a > b > c > d: 5s + 5s + 5s = 15s ≥ the 12s a's
    // clients wait: deadline/a.
    let row = &audit["latency"][0];
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
    let audit = json(
        r"system: s
components:
  web: {timeout: 10s, depends_on: [{target: api, retries: 2, timeout: 2s}]}
  api: {depends_on: [{target: db, retries: 1, timeout: 1s}, {target: cache, timeout: 3s}]}
  db: {}
  cache: {}
",
    );
    let row = &audit["latency"][0];
    assert_eq!(row["path"], serde_json::json!(["web", "api", "cache"]));
    assert_eq!(row["worst_latency_s"], 9.0);
    assert_eq!(row["over"], false);
    assert!(!ids(&audit).contains(&"deadline/web".to_owned()));
}

#[test]
fn a_path_without_figures_is_not_available_and_a_partial_one_is_a_bound() {
    // Nothing has a figure: n/a, with the three names that would need one.
    let text = r"system: s
objective: {availability: 99.9%}
components:
  web: {depends_on: [api]}
  api: {depends_on: [db]}
  db: {}
";
    let audit = json(text);
    let row = &audit["availability"]["web"];
    assert_eq!(row["availability"], Value::Null);
    assert_eq!(row["nines"], Value::Null);
    assert_eq!(row["downtime_per_year_s"], Value::Null);
    assert_eq!(row["unquantified"], serde_json::json!(["web", "api", "db"]));
    // Nothing to judge: slo stays silent rather than calling it met or missed.
    assert!(!ids(&audit).contains(&"slo/web".to_owned()));
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
    let audit = json(&text.replace("db: {}", "db: {availability: 99.95%}"));
    let row = &audit["availability"]["web"];
    assert_eq!(row["availability"], 0.9995);
    assert_eq!(row["unquantified_components"], 2);
    let table = check(
        "figures.yaml",
        &text.replace("db: {}", "db: {availability: 99.95%}"),
        Format::Markdown,
    )
    .stdout;
    assert!(
        table.contains("| web | ≤ 99.950000%, 2 unquantified | ≤ 3.30 | 99.9% | ≥ 4h23m |"),
        "{table}"
    );
    let audit = json(&text.replace("db: {}", "db: {availability: 99.8%}"));
    let slo = audit["findings"]
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

#[test]
fn a_standby_costs_its_switchover_time_the_worked_example() {
    // primary mtbf 720h, mttr 4h; standby perfect; switchover 45m:
    // 0.75h / 724h = 1.0359e-3, so api is at most 1 − 1.0359e-3 = 99.896%,
    // below 99.9%: slo/api fires. Static figure (hot): 100%.
    let text = r"system: s
objective: {availability: 99.9%}
components:
  api: {availability: 100%, depends_on: [{any_of: [primary, standby], switchover: 45m}]}
  primary: {mtbf: 720h, mttr: 4h}
  standby: {availability: 100%}
";
    let audit = json(text);
    let row = &audit["availability"]["api"];
    let a = row["availability"].as_f64().unwrap();
    assert!((a - (1.0 - 0.75 / 724.0)).abs() < 1e-12, "{a}");
    assert!((a * 100.0 - 99.896).abs() < 0.001, "{a}");
    assert!((row["switchover"].as_f64().unwrap() - 1.0359e-3).abs() < 1e-7);
    assert!(ids(&audit).contains(&"slo/api".to_owned()));
    // Hot (no switchover): 100%, no slo.
    let audit = json(&text.replace(", switchover: 45m", ""));
    assert_eq!(audit["availability"]["api"]["availability"], 1.0);
    assert!(!ids(&audit).contains(&"slo/api".to_owned()));
}

#[test]
fn an_unknown_switchover_frequency_is_a_caveat_not_a_pass() {
    // The active side has a figure but no mttr: the figure (1 − 0.001² =
    // 99.9999%) assumes instant failover; slo/api is a warning saying so.
    let text = r"system: s
objective: {availability: 99.9%}
components:
  api: {availability: 100%, depends_on: [{any_of: [a, b], switchover: 30m}]}
  a: {availability: 99.9%}
  b: {availability: 99.9%}
";
    let audit = json(text);
    let row = &audit["availability"]["api"];
    assert!((row["availability"].as_f64().unwrap() - 0.999_999).abs() < 1e-12);
    assert_eq!(
        row["caveats"],
        serde_json::json!([
            "assumes instant failover from a (30m of switchover in api): a has a figure but no mttr, so how often it fails over is unknown"
        ])
    );
    let slo = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "slo/api")
        .expect("slo/api");
    assert_eq!(slo["severity"], "warning");
    assert!(
        slo["message"]
            .as_str()
            .unwrap()
            .contains("only if failover is instant")
    );
    let table = check("figures.yaml", text, Format::Markdown).stdout;
    assert!(
        table.contains("≤ 99.999900%, assumes instant failover"),
        "{table}"
    );
    assert!(
        table.contains("- Caveat, api: assumes instant failover from a"),
        "{table}"
    );
    // With mttr 1h on a: (1 − 0.999) / 1h × 0.5h = 5e-4 off: 0.999999 − 0.0005 = 0.999499.
    let audit = json(&text.replace(
        "a: {availability: 99.9%}",
        "a: {availability: 99.9%, mttr: 1h}",
    ));
    let row = &audit["availability"]["api"];
    assert!((row["availability"].as_f64().unwrap() - 0.999_499).abs() < 1e-12);
    assert_eq!(row["caveats"], serde_json::json!([]));
}

#[test]
fn each_entrypoint_is_judged_against_its_own_objective() {
    // Model-wide 99.9% is the default; search promises 99.5%, reporting 99%.
    // checkout 99.95% ≥ 99.9%: fine. search 99.6% ≥ 99.5% (it would miss
    // 99.9%): fine. reporting 98.5% < 99%: slo/reporting, 1.5% × 43200 min
    // = 648 min against a budget of 1% × 43200 = 432 min, 216 over.
    let text = r"system: s
objective: {availability: 99.9%, window: 30d}
entrypoints: [checkout, search, reporting]
components:
  checkout: {availability: 99.95%}
  search: {objective: 99.5%, availability: 99.6%}
  reporting: {objective: 99%, availability: 98.5%}
";
    let audit = json(text);
    let slo: Vec<String> = ids(&audit)
        .into_iter()
        .filter(|id| id.starts_with("slo/"))
        .collect();
    assert_eq!(slo, ["slo/reporting"]);
    let rows = &audit["availability"];
    assert_eq!(rows["checkout"]["objective"], 0.999);
    assert_eq!(rows["search"]["objective"], 0.995);
    assert_eq!(rows["reporting"]["objective"], 0.99);
    // Budgets per 30d window: 0.1% → 2592s, 0.5% → 12960s, 1% → 25920s.
    for (name, budget) in [
        ("checkout", 2592.0),
        ("search", 12_960.0),
        ("reporting", 25_920.0),
    ] {
        let got = rows[name]["error_budget_s"].as_f64().unwrap();
        assert!((got - budget).abs() < 1e-6, "{name}: {got}");
    }
    let message = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "slo/reporting")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("against an objective of 99%: 10h48m of downtime per 30d window against a budget of 7h12m, 3h36m over"), "{message}");
    // The review table shows each one's own objective.
    let markdown = check("figures.yaml", text, Format::Markdown).stdout;
    assert!(
        markdown.contains("| search | 99.600000% | 2.40 | 99.5% |"),
        "{markdown}"
    );
    // Without a model-wide objective, only the entrypoints that have one are judged (30d window).
    let audit = json(&text.replace("objective: {availability: 99.9%, window: 30d}\n", ""));
    assert_eq!(audit["availability"]["checkout"].get("objective"), None);
    let budget = audit["availability"]["reporting"]["error_budget_s"]
        .as_f64()
        .unwrap();
    assert!((budget - 25_920.0).abs() < 1e-6, "{budget}");
}

#[test]
fn a_managed_service_gets_the_advice_that_applies() {
    // s3-raw is managed (one provider): spof advises a second provider, a
    // cached fallback, a degradable edge or the SLA, never "run 2 or more
    // instances"; dns (kind: saas implies managed) is not asked for a placement,
    // while the self-run api is.
    let text = r"system: s
domains: {use1-a: {kind: zone}, use1-b: {kind: zone}}
components:
  edge: {instances: 2, placement: [use1-a, use1-b], depends_on: [dns, s3-raw, api]}
  dns: {kind: saas, availability: 100%}
  s3-raw: {kind: objectstore, managed: true, availability: 99.99%}
  api: {instances: 2}
";
    let audit = json(text);
    let found = ids(&audit);
    assert!(!found.contains(&"placement/dns".to_owned()), "{found:?}");
    assert!(!found.contains(&"placement/s3-raw".to_owned()), "{found:?}");
    assert!(found.contains(&"placement/api".to_owned()), "{found:?}");
    let spof = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "spof/s3-raw")
        .expect("spof/s3-raw");
    let help = spof["help"].as_str().unwrap();
    assert!(
        help.contains("second provider") && help.contains("provider's SLA"),
        "{help}"
    );
    assert!(!help.contains("instances (min_healthy"), "{help}");
    // Self-run: the instance advice stays.
    let audit = json(&text.replace(", managed: true", ""));
    let spof = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "spof/s3-raw")
        .unwrap();
    assert!(
        spof["help"]
            .as_str()
            .unwrap()
            .starts_with("run 2 or more instances")
    );
}

#[test]
fn redundancy_between_regions_is_judged_at_the_entrypoint() {
    // Two regions, active-active: edge needs any_of [api-east, api-west],
    // each api needs its region's ddb (3 nodes at 99.9% in one 99.99% region).
    // On its own, ddb-east's region fails with 1e-4 against 0.001³ = 1e-9 for
    // its nodes (1e5 times as likely), but losing us-east leaves api-west:
    // the entrypoint stays up, so no common-cause finding and no advice to
    // spread ddb-east over regions. Availability: 1 − (1e-4 + 1e-9)² ≈ 1 − 1e-8.
    let text = r"system: s
domains:
  us-east: {kind: region, availability: 99.99%}
  us-west: {kind: region, availability: 99.99%}
components:
  edge: {availability: 100%, depends_on: [{any_of: [api-east, api-west]}]}
  api-east: {instances: 2, availability: 100%, placement: [us-east], depends_on: [ddb-east]}
  api-west: {instances: 2, availability: 100%, placement: [us-west], depends_on: [ddb-west]}
  ddb-east: {instances: 3, availability: 99.9%, placement: [us-east], recovery: {backup_interval: 1h, needs: [sso]}}
  ddb-west: {instances: 3, availability: 99.9%, placement: [us-west]}
  sso: {instances: 2, availability: 100%, placement: [us-east]}
entrypoints: [edge]
";
    let audit = json(text);
    let found = ids(&audit);
    assert!(
        !found.iter().any(|id| id.starts_with("common-cause/")),
        "{found:?}"
    );
    assert!(!found.iter().any(|id| id.starts_with("spof/")), "{found:?}");
    // Losing us-east takes ddb-east and sso down together, but the entrypoint
    // is served from us-west: no recovery is needed to serve, no finding.
    assert!(
        !found.iter().any(|id| id.starts_with("recovery-access/")),
        "{found:?}"
    );
    let a = audit["availability"]["edge"]["availability"]
        .as_f64()
        .unwrap();
    let east = 1.0 - 0.9999 * (1.0 - 0.001_f64.powi(3));
    assert!((a - (1.0 - east * east)).abs() < 1e-15, "{a}");
    // One region only (us-west gone): losing us-east breaks the entrypoint,
    // so common-cause/ddb-east fires (1.0e-4 against 1.0e-9); recovery-access
    // does not, as spof does not judge a kind the model has one domain of.
    let single = text
        .replace("  us-west: {kind: region, availability: 99.99%}\n", "")
        .replace("{any_of: [api-east, api-west]}", "api-east")
        .replace("  api-west: {instances: 2, availability: 100%, placement: [us-west], depends_on: [ddb-west]}\n", "")
        .replace("  ddb-west: {instances: 3, availability: 99.9%, placement: [us-west]}\n", "");
    let audit = json(&single);
    let found = ids(&audit);
    assert!(
        found.contains(&"common-cause/ddb-east".to_owned()),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|id| id.starts_with("recovery-access/")),
        "{found:?}"
    );
    // With a standby between the regions (switchover: 45m), losing us-east
    // stops the entrypoint for the switchover: the recovery needs sso there.
    let audit = json(&text.replace(
        "{any_of: [api-east, api-west]}",
        "{any_of: [api-east, api-west], switchover: 45m}",
    ));
    assert!(ids(&audit).contains(&"recovery-access/ddb-east/sso".to_owned()));
}

#[test]
fn a_switchover_on_a_single_target_is_an_error_with_the_fix() {
    let text = r"system: s
components:
  api: {depends_on: [{target: db, switchover: 5m}]}
  db: {}
";
    let run = check("figures.yaml", text, Format::Json);
    assert_eq!(run.outcome, Outcome::Invalid);
    // Line 3, under `switchover`, with the help to list alternatives.
    assert!(
        run.stderr
            .contains("`switchover` is given without `any_of`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[figures.yaml:3:35]"), "{}", run.stderr);
    assert!(
        run.stderr.contains("list them with `any_of`"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_nine_nines_bound_reads_below_a_hundred_percent_and_its_floor_as_unknown() {
    // api needs a or b (a 99.9%, b 99.9999%), b a standby whose switchover
    // frequency is unknown (a has no mttr): 1 − 1e-3 × 1e-6 = 0.999999999,
    // an upper bound that assumes instant failover. Six decimals would round
    // it to 100.000000%; it reads 99.9999999%, and its downtime floor,
    // 1e-9 × 365.25 d = 0.03 s a year, is not "≥ <1s" but unknown (the
    // switchover the figure leaves out is all there is).
    let text = "system: s\nobjective: {availability: 99.99%}\ncomponents:\n  api: {availability: 100%, depends_on: [{any_of: [a, b], switchover: 45m}]}\n  a: {availability: 99.9%}\n  b: {availability: 99.9999%}\n";
    let table = check("figures.yaml", text, Format::Markdown).stdout;
    assert!(
        table.contains(
            "| api | ≤ 99.9999999%, assumes instant failover | ≤ 9.00 | 99.99% | unknown |"
        ),
        "{table}"
    );
    assert!(!table.contains("100.000000%"), "{table}");
    assert!(!table.contains("≥ <1s"), "{table}");
    // The slo warning quotes the same figure, not "reaches 100%".
    assert!(
        table.contains(
            "api reaches 99.9999999% against an objective of 99.99% only if failover is instant"
        ),
        "{table}"
    );
}
