//! `nines verify` (issue 26): an experiment's outcome against the model's
//! prediction, on models/url-shortener.yaml. Its experiments predict (from
//! `nines experiments models/url-shortener.yaml --top 0 --format json`):
//!
//! - az-b (and az-c): redirect keeps 4 of its 6 instances, which shed to
//!   4 × 2000 = 8000 of its 9000 a second: served 8000 / 9000 = 88.9%
//!   (redirect at 112.5%); api 100% (links-db keeps 2 × 1000 for 450).
//! - az-a: the cache (both nodes in az-a) goes too: links-db is offered
//!   500 − 450 + 8000 = 8050 on 2 × 1000 = 402.5% and fails, taking
//!   redirect and api to 0%.

use nines::cli::Outcome;
use serde_json::Value;

use crate::{Run, Scratch, nines};

const MODEL: &str = "models/url-shortener.yaml";

/// The experiment file `nines experiments MODEL --only LOSS -o DIR` writes
/// (`01-<slug>.json`, the experiment's own JSON), in `dir`.
fn experiment(dir: &Scratch, loss: &str) -> String {
    let out = dir.join(format!("plan-{loss}"));
    let run = nines(&[
        "experiments",
        MODEL,
        "--only",
        loss,
        "-o",
        out.to_str().unwrap(),
        "--today",
        "2026-11-30",
    ]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let slug = loss.replace([':', '+'], "-");
    out.join(format!("01-{slug}.json"))
        .to_str()
        .unwrap()
        .to_owned()
}

/// A Prometheus instant-query response of `(app, success ratio)`.
fn vector(series: &[(&str, &str)]) -> String {
    let items: Vec<String> = series
        .iter()
        .map(|(app, v)| format!(r#"{{"metric":{{"app":"{app}"}},"value":[1767225600,"{v}"]}}"#))
        .collect();
    format!(
        r#"{{"status":"success","data":{{"resultType":"vector","result":[{}]}}}}"#,
        items.join(",")
    )
}

/// Writes `text` as `name` in `dir`; its path.
fn file(dir: &Scratch, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn verify(experiment: &str, observed: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "verify",
        MODEL,
        "--experiment",
        experiment,
        "--observed",
        observed,
        "--today",
        "2026-11-30",
    ];
    args.extend_from_slice(extra);
    nines(&args)
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The text with every run of blank space one space: sentences wrapped
/// at 80 columns read whole.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn close(a: f64, b: f64, within: f64) -> bool {
    (a - b).abs() <= within
}

#[test]
fn an_observation_at_the_prediction_is_as_predicted() {
    let dir = Scratch::new("verify-as-predicted");
    // az-b: redirect predicted 8000 / 9000 = 0.8889, observed 0.8889
    // (|0.8889 − 0.88889| = 0.00001 ≤ 0.02); api predicted 1, observed 1.
    let e = experiment(&dir, "az-b");
    let o = file(
        &dir,
        "r.json",
        &vector(&[("redirect", "0.8889"), ("api", "1")]),
    );
    let run = verify(&e, &o, &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}{}", run.stdout, run.stderr);
    assert!(
        flat(&run.stdout)
            .contains("as predicted: every entrypoint observed served within 2% of the prediction"),
        "{}",
        run.stdout
    );
    // az-a: redirect and api predicted 0 (links-db at 402.5% fails),
    // observed 0: as predicted, the breakage confirmed.
    let e = experiment(&dir, "az-a");
    let o = file(&dir, "a.json", &vector(&[("redirect", "0"), ("api", "0")]));
    let run = verify(&e, &o, &["--format", "json"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let v = json(&run);
    assert_eq!(v["verdict"], "as-predicted");
    assert_eq!(v["loss"], "az-a");
    assert_eq!(v["entrypoints"][0]["predicted"], 0.0);
    assert!(v.get("finding").is_none() && v.get("explanation").is_none());
}

#[test]
fn ten_points_worse_fails_with_a_drift_finding() {
    let dir = Scratch::new("verify-worse");
    // az-b: redirect predicted 0.88889, tolerance 0.88889 − 0.02 = 0.86889;
    // observed 0.78889, 10 points under the prediction: worse, exit 1.
    let e = experiment(&dir, "az-b");
    let o = file(
        &dir,
        "r.json",
        &vector(&[("redirect", "0.78889"), ("api", "1")]),
    );
    let run = verify(&e, &o, &[]);
    assert_eq!(run.outcome, Outcome::Fail, "{}{}", run.stdout, run.stderr);
    assert!(flat(&run.stdout).contains("worse than predicted: redirect served 78.9%, below the 86.9% the hypothesis allows (predicted 88.9%)"), "{}", run.stdout);
    // At the definition of az-b: `  az-b: {kind: zone, …}` on line 143.
    assert!(
        flat(&run.stdout).contains("drift/experiment/az-b")
            && flat(&run.stdout).contains("line 143:3"),
        "{}",
        run.stdout
    );
    let run = verify(&e, &o, &["--format", "json"]);
    assert_eq!(run.outcome, Outcome::Fail);
    let v = json(&run);
    assert_eq!(v["verdict"], "worse");
    assert_eq!(v["entrypoints"][0]["verdict"], "worse");
    assert_eq!(v["entrypoints"][1]["verdict"], "as-predicted");
    let f = &v["finding"];
    assert_eq!(f["id"], "drift/experiment/az-b");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["location"]["line"], 143);
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("redirect served 78.9% where the model predicts 88.9% (at least 86.9% within the margin)"),
        "{message}"
    );
    assert!(
        f["help"].as_str().unwrap().contains("redirect at 112.5%"),
        "{}",
        f["help"]
    );
}

#[test]
fn ten_points_better_names_the_key_most_likely_wrong() {
    let dir = Scratch::new("verify-better");
    // az-b: redirect predicted 0.88889, observed 0.98889 (10 points more).
    // The overloaded component is redirect (112.5%): its capacity c with 4
    // instances left serves 4c / 9000 = 0.98889 at c = 2225.0025, a factor
    // 2225 / 2000 = 1.1125; its instances: 7 (placed 3, 2, 2) keep 5 after
    // az-b, 5 × 2000 = 10000 ≥ 9000, served 100%, a factor 7 / 6 = 1.167.
    // The smaller factor is the capacity's.
    let e = experiment(&dir, "az-b");
    let o = file(
        &dir,
        "r.json",
        &vector(&[("redirect", "0.98889"), ("api", "1")]),
    );
    let run = verify(&e, &o, &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}{}", run.stdout, run.stderr);
    assert!(
        flat(&run.stdout).contains(
            "better than predicted: redirect served 98.9% where the model predicts 88.9%"
        ),
        "{}",
        run.stdout
    );
    assert!(
        flat(&run.stdout).contains("The key most likely wrong: redirect.capacity 2000 → 2225 per instance would explain the 98.9% redirect served"),
        "{}",
        run.stdout
    );
    let v = json(&verify(&e, &o, &["--format", "json"]));
    assert_eq!(v["verdict"], "better");
    let x = &v["explanation"];
    assert_eq!(x["entrypoint"], "redirect");
    let best = &x["keys"][0];
    assert_eq!(best["key"], "redirect.capacity");
    assert_eq!(best["written"], 2000.0);
    let needed = best["needed"].as_f64().unwrap();
    // Within the search's 0.01% above the threshold.
    assert!(
        (2225.0025..=2225.0025 * 1.0001).contains(&needed),
        "{needed}"
    );
    assert!(close(best["factor"].as_f64().unwrap(), 1.1125, 2e-4));
    assert_eq!(best["explains"], true);
    assert!(best["evaluations"].as_u64().unwrap() <= 40);
    let second = &x["keys"][1];
    assert_eq!(second["key"], "redirect.instances");
    assert_eq!(second["needed"], 7.0);
    assert_eq!(second["predicted"], 1.0);
}

#[test]
fn a_range_query_is_averaged_and_a_step_is_said_to_be_one() {
    let dir = Scratch::new("verify-matrix");
    // az-a, a range query: redirect 0.05, 0.15 and a NaN step (no request):
    // mean (0.05 + 0.15) / 2 = 0.10, minimum 0.05; api 0 and 0.01: mean
    // 0.005, as predicted (0 within 0.02). redirect is 10 points better
    // than its 0%. links-db (402.5%) carries its 8050 on 2 nodes from a
    // capacity of 8050 / 2 = 4025 per node, factor 4.025: there redirect
    // serves 8000 / 9000 = 88.9% at once (its own shedding), more than the
    // 10% observed: no key alone gives 10%, the nearest is named. Its
    // instances: n − ceil(n / 3) ≥ 9 first at n = 14 (factor 4.67).
    let e = experiment(&dir, "az-a");
    let o = file(
        &dir,
        "m.json",
        r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"app_kubernetes_io_name":"redirect"},"values":[[1,"0.05"],[2,"0.15"],[3,"NaN"]]},
 {"metric":{"app_kubernetes_io_name":"api"},"values":[[1,"0"],[2,"0.01"]]},
 {"metric":{"__name__":"redirect_latency_p99_seconds","app_kubernetes_io_name":"redirect"},"values":[[1,"0.2"],[2,"0.4"]]}
]}}"#,
    );
    let run = verify(&e, &o, &["--format", "json"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let v = json(&run);
    assert_eq!(v["result_formats"][0], "prometheus-matrix");
    let redirect = &v["entrypoints"][0];
    assert!(close(redirect["observed"].as_f64().unwrap(), 0.10, 1e-12));
    assert_eq!(redirect["observed_min"], 0.05);
    assert_eq!(redirect["samples"], 2);
    // Latency (0.2 + 0.4) / 2 = 0.3 s: shown, not judged.
    assert!(close(redirect["latency_s"].as_f64().unwrap(), 0.3, 1e-12));
    assert_eq!(redirect["verdict"], "better");
    assert!(close(
        v["entrypoints"][1]["observed"].as_f64().unwrap(),
        0.005,
        1e-12
    ));
    assert_eq!(v["entrypoints"][1]["verdict"], "as-predicted");
    let best = &v["explanation"]["keys"][0];
    assert_eq!(best["key"], "links-db.capacity");
    let needed = best["needed"].as_f64().unwrap();
    assert!((4025.0..=4025.0 * 1.0001).contains(&needed), "{needed}");
    assert!(close(best["predicted"].as_f64().unwrap(), 8.0 / 9.0, 1e-9));
    assert_eq!(best["explains"], false);
    let instances = v["explanation"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "links-db.instances")
        .unwrap();
    assert_eq!(instances["needed"], 14.0);
    assert!(
        v["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("left out 1 sample without a value")),
        "{}",
        v["notes"]
    );
    let run = verify(&e, &o, &[]);
    assert!(
        flat(&run.stdout).contains("No key alone gives the 10% redirect served: the nearest, links-db.capacity 1000 → 4025 per instance, makes the model predict 88.9%"),
        "{}",
        run.stdout
    );
}

/// A Chaos Toolkit journal of the az-b experiment as `nines experiments
/// --format chaostoolkit` writes its probes: `E-serves-at-least-T`, a
/// `chaosprometheus` query `(ratio) >= T` whose answer has the ratio's
/// sample only when it is at least T (`None`: no sample).
fn journal(redirect: [Option<&str>; 2]) -> String {
    let probe = |entrypoint: &str, t: &str, v: Option<&str>| {
        let selector = format!(r#"app_kubernetes_io_name=\"{entrypoint}\""#);
        let query = format!(
            r#"(sum(rate(http_requests_total{{{selector},code!~\"5..\"}}[1m])) / sum(rate(http_requests_total{{{selector}}}[1m]))) >= {t}"#
        );
        let result = v.map_or_else(String::new, |v| {
            format!(r#"{{"metric":{{}},"value":[1767225600,"{v}"]}}"#)
        });
        format!(
            r#"{{"activity":{{"type":"probe","name":"{entrypoint}-serves-at-least-{t}","tolerance":{{"type":"jsonpath","path":"$.data.result[*]","count":1}},"provider":{{"type":"python","module":"chaosprometheus.probes","func":"query","arguments":{{"query":"{query}"}}}}}},"output":{{"status":"success","data":{{"resultType":"vector","result":[{result}]}}}},"status":"succeeded","tolerance_met":{}}}"#,
            v.is_some()
        )
    };
    let (r, a) = ("0.8688888888888888", "0.98");
    format!(
        r#"{{"chaoslib-version":"1.42.0","status":"completed","deviated":false,
"experiment":{{"title":"snip: lose az-b (zone)","extensions":[{{"name":"nines","loss":"az-b","slug":"az-b"}}]}},
"steady_states":{{
 "before":{{"steady_state_met":true,"probes":[{},{}]}},
 "during":[{{"probes":[{},{}]}},{{"probes":[{}]}}],
 "after":{{"steady_state_met":true,"probes":[{}]}}}}}}"#,
        probe("redirect", r, Some("1")),
        probe("api", a, Some("1")),
        probe("redirect", r, redirect[0]),
        probe("api", a, Some("1")),
        probe("redirect", r, redirect[1]),
        probe("redirect", r, Some("1")),
    )
}

#[test]
fn a_chaos_toolkit_journal_is_read_during_the_experiment() {
    let dir = Scratch::new("verify-journal");
    // During: redirect 0.88 and 0.90, mean 0.89 against 0.8889 (as
    // predicted); before and after (1.0) are not the experiment. The
    // journal names its experiment too: it is both files.
    let j = file(&dir, "journal.json", &journal([Some("0.88"), Some("0.90")]));
    let run = verify(&j, &j, &["--format", "json"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let v = json(&run);
    assert_eq!(v["file_format"], "journal");
    assert_eq!(v["result_formats"][0], "journal");
    assert_eq!(v["verdict"], "as-predicted");
    assert!(close(
        v["entrypoints"][0]["observed"].as_f64().unwrap(),
        0.89,
        1e-12
    ));
    assert_eq!(v["entrypoints"][0]["samples"], 2);
    assert_eq!(v["entrypoints"][1]["observed"], 1.0);
    // No sample at either check: the ratio was under 0.86889 both times,
    // under the tolerance: worse, with the threshold as the number.
    let j = file(&dir, "worse.json", &journal([None, None]));
    let run = verify(&j, &j, &[]);
    assert_eq!(run.outcome, Outcome::Fail, "{}", run.stdout);
    assert!(
        flat(&run.stdout).contains(
            "redirect served under 86.9%, below the 86.9% the hypothesis allows (predicted 88.9%)"
        ),
        "{}",
        run.stdout
    );
    assert!(
        flat(&run.stdout).contains("drift/experiment/az-b"),
        "{}",
        run.stdout
    );
    let v = json(&verify(&j, &j, &["--format", "json"]));
    assert!(v["entrypoints"][0]["observed"].is_null());
    assert!(close(
        v["entrypoints"][0]["observed_below"].as_f64().unwrap(),
        0.868_888_888_888_888_8,
        1e-15
    ));
    // One check with 0.95, one without a sample: worse (the hypothesis
    // failed once), the mean of what has a value shown beside it.
    let j = file(&dir, "once.json", &journal([Some("0.95"), None]));
    let run = verify(&j, &j, &[]);
    assert_eq!(run.outcome, Outcome::Fail, "{}", run.stdout);
    assert!(
        flat(&run.stdout).contains("redirect served 95% on average and under 86.9% at a check"),
        "{}",
        run.stdout
    );
}

#[test]
fn every_experiment_format_names_its_loss() {
    let dir = Scratch::new("verify-formats");
    let o = file(
        &dir,
        "r.json",
        &vector(&[("redirect", "0.8889"), ("api", "1")]),
    );
    let cases = [
        (
            "ctk.json",
            r#"{"title":"x","extensions":[{"name":"nines","loss":"az-b","slug":"az-b"}]}"#,
            "chaostoolkit",
        ),
        (
            "mesh.yaml",
            "apiVersion: chaos-mesh.org/v1alpha1\nkind: PodChaos\nmetadata:\n  name: nines-az-b\n  annotations:\n    nines.dev/loss: \"az-b\"\nspec: {action: pod-kill}\n",
            "chaos-mesh",
        ),
        (
            "fis.json",
            r#"{"description":"x","tags":{"nines-loss":"az-b"},"actions":{}}"#,
            "fis",
        ),
    ];
    for (name, text, format) in cases {
        let e = file(&dir, name, text);
        let run = verify(&e, &o, &["--format", "json"]);
        assert_eq!(run.outcome, Outcome::Pass, "{name}: {}", run.stderr);
        let v = json(&run);
        assert_eq!(v["file_format"], format, "{name}");
        assert_eq!(v["loss"], "az-b", "{name}");
        assert!(
            v["notes"].as_array().unwrap().is_empty(),
            "{name}: {}",
            v["notes"]
        );
    }
    // A file written when the model predicted otherwise: judged against the
    // model now, with a note.
    let e = file(
        &dir,
        "old.json",
        r#"{"extensions":[{"name":"nines","loss":"az-b","slug":"az-b","predictions":[{"entrypoint":"redirect","served":0.5},{"entrypoint":"api","served":1.0}]}]}"#,
    );
    let run = verify(&e, &o, &[]);
    assert_eq!(run.outcome, Outcome::Pass);
    assert!(
        flat(&run.stdout).contains("the model changed since the experiment file was written: it predicted redirect 50%, api 100%, the model now predicts redirect 88.9%, api 100%"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unknown_loss_ends_with_exit_2_naming_the_closest() {
    let dir = Scratch::new("verify-bad-loss");
    let good = file(&dir, "good.json", &vector(&[("redirect", "0.8889")]));
    // A loss the model does not have: the closest one named.
    let unknown = file(
        &dir,
        "u.json",
        r#"{"loss":"az-d","slug":"az-d","predictions":[]}"#,
    );
    let run = verify(&unknown, &good, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains(
            "the experiment's loss `az-d` is no credible loss of this model (did you mean `az-a`?)"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_results_end_with_exit_2_and_say_why() {
    let dir = Scratch::new("verify-bad-results");
    let e = experiment(&dir, "az-b");
    // Malformed JSON, located.
    let bad = file(
        &dir,
        "bad.json",
        r#"{"status":"success","data":{"resultType":"vector","result":[,]}}"#,
    );
    let run = verify(&e, &bad, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("invalid JSON") && flat(&run.stderr).contains("bad.json:1:"),
        "{}",
        run.stderr
    );
    // A byte-order mark is skipped, as `import traces` skips it.
    let bom = file(
        &dir,
        "bom.json",
        &format!("\u{feff}{}", vector(&[("redirect", "0.8889")])),
    );
    let run = verify(&e, &bom, &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(
        flat(&run.stdout).contains("api") && flat(&run.stdout).contains("not observed"),
        "{}",
        run.stdout
    );
    // A key written twice.
    let twice = file(
        &dir,
        "twice.json",
        r#"{"status":"success","status":"error","data":{}}"#,
    );
    let run = verify(&e, &twice, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("written twice"),
        "{}",
        run.stderr
    );
    // A series whose labels name no entrypoint.
    let nameless = file(
        &dir,
        "nameless.json",
        r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"10.0.0.1:80"},"value":[1,"0.9"]}]}}"#,
    );
    let run = verify(&e, &nameless, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("`data.result[0].metric` names no entrypoint"),
        "{}",
        run.stderr
    );
    // A success ratio that is a percent.
    let percent = file(&dir, "percent.json", &vector(&[("redirect", "88.9")]));
    let run = verify(&e, &percent, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("not a success ratio between 0 and 1"),
        "{}",
        run.stderr
    );
    // Only series of other services: nothing to judge.
    let others = file(&dir, "others.json", &vector(&[("links-db", "1")]));
    let run = verify(&e, &others, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("no success ratio of an entrypoint"),
        "{}",
        run.stderr
    );
}

#[test]
fn experiment_files_that_tell_no_loss_end_with_exit_2() {
    let dir = Scratch::new("verify-bad-files");
    let good = file(&dir, "good.json", &vector(&[("redirect", "0.8889")]));
    // A plan of many experiments: which one ran cannot be told.
    let index = dir.join("all");
    let run = nines(&[
        "experiments",
        MODEL,
        "--top",
        "3",
        "-o",
        index.to_str().unwrap(),
    ]);
    assert_eq!(run.outcome, Outcome::Pass);
    let index = index.join("index.json");
    let run = verify(index.to_str().unwrap(), &good, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("this plan holds 3 experiments"),
        "{}",
        run.stderr
    );
    // Not an experiment at all.
    let run = verify(&good, &good, &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        flat(&run.stderr).contains("this is not an experiment nines wrote"),
        "{}",
        run.stderr
    );
}

#[test]
fn hostile_names_reach_the_terminal_escaped() {
    // Component names are letters, digits, `.`, `_` and `-` (the model
    // refuses others); what reaches the terminal from elsewhere is the
    // system's name and the labels of the series left out.
    let dir = Scratch::new("verify-hostile");
    let model = file(
        &dir,
        "m.yaml",
        "system: \"s\\e[2J\\e]52;c;aGk=\\a\"\ndomains:\n  az-a: {kind: zone}\n  az-b: {kind: zone}\ncomponents:\n  web:\n    instances: 2\n    placement: [az-a, az-b]\n    capacity: 100\n    load: 150\n    load_shedding: true\n",
    );
    let o = file(
        &dir,
        "r.json",
        r#"{"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"app":"web"},"value":[1,"0.2"]},
 {"metric":{"app":"x\u001b[2J\u001b]52;c;aGk=\u0007"},"value":[1,"1"]}]}}"#,
    );
    let e = file(
        &dir,
        "e.json",
        r#"{"extensions":[{"name":"nines","loss":"az-a","slug":"az-a"}]}"#,
    );
    let run = nines(&[
        "verify",
        &model,
        "--experiment",
        &e,
        "--observed",
        &o,
        "--today",
        "2026-11-30",
    ]);
    // Losing az-a leaves 1 × 100 for 150: served 100 / 150 = 66.7%;
    // observed 20%, under 64.7%: worse.
    assert_eq!(run.outcome, Outcome::Fail, "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{7}'),
        "{:?}",
        run.stdout
    );
    assert!(run.stdout.starts_with("s\\u{1b}[2J"), "{}", run.stdout);
    assert!(
        flat(&run.stdout).contains("left out the series of x\\u{1b}[2J"),
        "{}",
        run.stdout
    );
    assert!(flat(&run.stdout).contains("66.7%"), "{}", run.stdout);
}
