//! `nines experiments`: the plan's predictions are the what-if's numbers
//! (one state), the losses behind error findings come first, and the
//! figures move the way losses do (more lost never serves more; nothing
//! changed changes nothing).

use serde_json::Value;

use super::{Scratch, example_models, nines};
use nines::cli::Outcome;

fn plan(model: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "experiments",
        model,
        "--format",
        "json",
        "--today",
        "2026-11-30",
    ];
    args.extend_from_slice(extra);
    let run = nines(&args);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// `nines what-if` with the arguments an experiment names for its
/// prediction (`what_if`).
fn what_if(model: &str, experiment: &Value) -> Value {
    let mut all: Vec<&str> = vec![
        "what-if",
        model,
        "--format",
        "json",
        "--today",
        "2026-11-30",
    ];
    all.extend(
        experiment["what_if"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap()),
    );
    let run = nines(&all);
    assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn experiment<'a>(plan: &'a Value, loss: &str) -> &'a Value {
    plan["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["loss"] == loss)
        .unwrap_or_else(|| panic!("no experiment {loss}"))
}

fn served(e: &Value, entrypoint: &str) -> f64 {
    e["predictions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["entrypoint"] == entrypoint)
        .unwrap()["served"]
        .as_f64()
        .unwrap()
}

#[test]
#[allow(
    clippy::float_cmp,
    reason = "0, 1 and 4.025 are exact in f64 and in the JSON"
)]
fn url_shortener_az_a_predicts_what_what_if_computes() {
    let model = "models/url-shortener.yaml";
    let plan = plan(model, &["--only", "az-a"]);
    let e = experiment(&plan, "az-a");
    // Losing az-a: redirect keeps 4 of 6 instances, 4 × 2000 = 8000 for
    // 9000/s, and sheds the rest (8000 served). Both links-cache nodes are
    // in az-a: every served read reaches links-db, 8000 + api's 25 × 2 =
    // 8050 on 2 × 1000 = 2000, 402.5%, and links-db (no shedding) fails:
    // redirect and api serve nothing.
    let overloaded: Vec<(&str, f64)> = e["overloaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["component"].as_str().unwrap(),
                o["utilization"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(overloaded, [("redirect", 1.125), ("links-db", 4.025)]);
    assert_eq!(served(e, "redirect"), 0.0);
    assert_eq!(served(e, "api"), 0.0);
    assert_eq!(e["behind"], serde_json::json!(["headroom/links-db/az-a"]));
    assert_eq!(e["what_if"], serde_json::json!(["--lose", "az-a"]));
    // The hypothesis: at least the prediction less 2 points, never below 0.
    assert_eq!(e["predictions"][0]["tolerance"], 0.0);
    assert_eq!(e["predictions"][0]["abort_error_ratio"], 1.0);

    // The same numbers from what-if.
    let after = &what_if(model, e)["after"];
    assert_eq!(after["served"]["redirect"], 0.0);
    assert_eq!(after["served"]["api"], 0.0);
    assert_eq!(after["state"]["links-db"]["utilization"], 4.025);
    assert_eq!(after["state"]["redirect"]["utilization"], 1.125);

    // az-b: redirect sheds to 8000 of 9000 (8/9 = 88.9% served); the
    // cache survives, links-db has 2 × 1000 for 8000 × 5% + 50 = 450.
    let plan = self::plan(model, &["--only", "az-b"]);
    let e = experiment(&plan, "az-b");
    assert!((served(e, "redirect") - 8.0 / 9.0).abs() < 1e-12);
    assert_eq!(served(e, "api"), 1.0);
    assert!(
        (e["predictions"][0]["tolerance"].as_f64().unwrap() - (8.0 / 9.0 - 0.02)).abs() < 1e-12
    );
    // api has no load of its own, so the unserved share is the mean over
    // the entrypoints, not request-weighted: (1/9 + 0) / 2 = 1/18.
    assert!(
        (e["unserved"].as_f64().unwrap() - 1.0 / 18.0).abs() < 1e-12,
        "{e}"
    );
    // az-b is down 0.05% of the time: 1/18 × 0.0005 × 28 days (2,419,200 s)
    // = 67.2 s at stake per window.
    assert!((e["at_stake_s"].as_f64().unwrap() - 0.0005 / 18.0 * 2_419_200.0).abs() < 1e-6);
}

#[test]
fn every_example_ranks_the_losses_behind_its_error_findings_first() {
    for path in example_models() {
        let model = path.to_str().unwrap();
        let plan = plan(model, &["--top", "0"]);
        let experiments = plan["experiments"].as_array().unwrap();
        let behind: Vec<bool> = experiments
            .iter()
            .map(|e| !e["behind"].as_array().unwrap().is_empty())
            .collect();
        let first_not = behind.iter().position(|b| !b).unwrap_or(behind.len());
        assert!(
            behind[first_not..].iter().all(|b| !b),
            "{model}: an experiment behind an error finding ranks after one that is not"
        );
        // Every error finding of check about a loss is behind its experiment.
        let check = nines(&["check", model, "--format", "json", "--today", "2026-11-30"]);
        let report: Value = serde_json::from_str(&check.stdout).unwrap();
        let named: Vec<&str> = experiments
            .iter()
            .flat_map(|e| e["behind"].as_array().unwrap())
            .map(|id| id.as_str().unwrap())
            .collect();
        for f in report["findings"].as_array().unwrap() {
            let id = f["id"].as_str().unwrap();
            let rule = id.split('/').next().unwrap();
            if f["severity"] == "error"
                && ["headroom", "spof", "shared-fate", "cascade"].contains(&rule)
            {
                assert!(named.contains(&id), "{model}: {id} is behind no experiment");
            }
        }
        // What check says breaks, the prediction shows broken: an
        // entrypoint served less or a component overloaded; a single point
        // of failure takes an entrypoint down whole.
        for e in experiments {
            let behind = e["behind"].as_array().unwrap();
            if behind.is_empty() {
                continue;
            }
            let predictions = e["predictions"].as_array().unwrap();
            let served = |p: &Value| p["served"].as_f64().unwrap();
            let less = predictions
                .iter()
                .any(|p| served(p) < p["served_before"].as_f64().unwrap());
            let overloaded = !e["overloaded"].as_array().unwrap().is_empty();
            assert!(less || overloaded, "{model}: {} breaks nothing", e["loss"]);
            if behind
                .iter()
                .any(|id| id.as_str().unwrap().starts_with("spof/"))
            {
                assert!(
                    predictions.iter().any(|p| served(p) == 0.0),
                    "{model}: {} is a spof and no entrypoint goes down",
                    e["loss"]
                );
            }
        }
        // Ranks run 1, 2, 3… and slugs are unique.
        let mut slugs = std::collections::BTreeSet::new();
        for (i, e) in experiments.iter().enumerate() {
            assert_eq!(e["rank"], i + 1);
            assert!(slugs.insert(e["slug"].as_str().unwrap().to_owned()));
        }
    }
}

#[test]
fn losing_more_never_serves_more_and_losing_nothing_changes_nothing() {
    for path in example_models() {
        let model = path.to_str().unwrap();
        let plan = plan(model, &["--top", "0"]);
        let experiments = plan["experiments"].as_array().unwrap();
        let by_loss = |loss: &str| experiments.iter().find(|e| e["loss"] == loss);
        for e in experiments {
            let loss = e["loss"].as_str().unwrap();
            let predictions = e["predictions"].as_array().unwrap();
            // A pair of zones serves no more than either zone alone; a
            // whole component no more than one of its instances lost.
            let fewer: Vec<&Value> = if loss.contains('+') {
                loss.split('+').filter_map(by_loss).collect()
            } else if let Some((c, n)) = loss.split_once(':')
                && c != "slow"
                && n == "1"
            {
                Vec::new()
            } else {
                by_loss(&format!("{loss}:1")).into_iter().collect()
            };
            for smaller in fewer {
                for (p, q) in predictions
                    .iter()
                    .zip(smaller["predictions"].as_array().unwrap())
                {
                    assert!(
                        p["served"].as_f64().unwrap() <= q["served"].as_f64().unwrap() + 1e-12,
                        "{model}: losing {loss} serves {} more than losing {}",
                        p["entrypoint"],
                        smaller["loss"]
                    );
                }
            }
            // Nothing in the blast radius: every entrypoint served as before.
            if e["blast_radius"].as_array().unwrap().is_empty()
                && e["injection"]["action"] != "delay"
            {
                for p in predictions {
                    assert_eq!(p["served"], p["served_before"], "{model}: {loss}");
                }
            }
            for p in predictions {
                let (served, tolerance) = (
                    p["served"].as_f64().unwrap(),
                    p["tolerance"].as_f64().unwrap(),
                );
                assert!((0.0..=1.0).contains(&served));
                assert!((tolerance - (served - 0.02).max(0.0)).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn every_prediction_is_its_what_if() {
    for path in example_models() {
        let model = path.to_str().unwrap();
        let plan = plan(model, &["--top", "0"]);
        for e in plan["experiments"].as_array().unwrap() {
            let args = &e["what_if"];
            let out = what_if(model, e);
            for p in e["predictions"].as_array().unwrap() {
                let name = p["entrypoint"].as_str().unwrap();
                assert_eq!(
                    p["served"], out["after"]["served"][name],
                    "{model} {args:?}"
                );
            }
            let introduced = out["introduced"].clone();
            assert_eq!(e["fires"], introduced, "{model} {args:?}");
        }
    }
}

#[test]
fn only_an_unknown_loss_is_refused_with_the_closest() {
    let run = nines(&["experiments", "models/url-shortener.yaml", "--only", "az-q"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("did you mean `az-a`?"),
        "{}",
        run.stderr
    );
    let run = nines(&[
        "experiments",
        "models/url-shortener.yaml",
        "--format",
        "fis",
    ]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("give -o DIR"), "{}", run.stderr);
    let run = nines(&["experiments", "models/url-shortener.yaml", "--margin", "2"]);
    assert_eq!(run.outcome, Outcome::Invalid);
}

#[test]
fn a_folder_gets_one_file_per_experiment_and_an_index() {
    let dir = Scratch::new("experiments-folder");
    let out = dir.join("plan");
    let run = nines(&[
        "experiments",
        "models/url-shortener.yaml",
        "--top",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
    assert_eq!(
        index["files"],
        serde_json::json!(["01-az-a.json", "02-links-cache.json", "03-az-b.json"])
    );
    let first: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("01-az-a.json")).unwrap()).unwrap();
    assert_eq!(first, index["plan"]["experiments"][0]);
    assert!(run.stderr.contains("01-az-a.json"));
}

#[test]
fn examples_plan_as_a_table_and_as_json() {
    super::settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let name = format!("models/{}", path.file_name().unwrap().to_string_lossy());
            for format in ["table", "json"] {
                let run = nines(&[
                    "experiments",
                    &name,
                    "--format",
                    format,
                    "--today",
                    "2026-11-30",
                ]);
                assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
                assert_eq!(run.stderr, "");
                for line in run.stdout.lines() {
                    assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
                }
                insta::assert_snapshot!(format!("experiments-{format}"), run.stdout);
            }
        });
    });
}

#[test]
fn hostile_text_reaches_no_terminal_and_every_name_survives_in_json() {
    // Names are letters, digits, `.`, `_` and `-` (model::name); the
    // system, the kinds and a 300-character name carry the rest.
    let long = "w".repeat(300);
    let text = format!(
        "system: \"s\\e[2J\\u202e\"
shared_fate:
  cert.x: {{kind: \"cert\\e]8;;http://x\\a\", availability: 99.9%}}
domains:
  Zone.A: {{kind: \"zone\\u202e\\e[31m\", availability: 99.9%}}
  1.b_c-: {{kind: \"zone\\u202e\\e[31m\", availability: 99.9%}}
components:
  {long}: {{instances: 2, placement: [Zone.A, 1.b_c-], capacity: 100, load: 150, load_shedding: true, depends_on: [{{target: db--x, timeout: 1s}}]}}
  db--x: {{instances: 2, placement: [Zone.A, 1.b_c-], shares: [cert.x], availability: 99.9%}}
"
    );
    let dir = Scratch::new("experiments-hostile");
    let path = dir.join("m.yaml");
    std::fs::write(&path, text).unwrap();
    let model = path.to_str().unwrap();
    let run = nines(&["experiments", model, "--top", "0"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    for ch in run.stdout.chars() {
        assert!(
            ch == '\n'
                || !(ch.is_control()
                    || ('\u{202a}'..='\u{202e}').contains(&ch)
                    || ('\u{2066}'..='\u{2069}').contains(&ch)),
            "{ch:?} reached the terminal"
        );
    }
    assert!(
        run.stdout.contains("s\\u{1b}[2J\\u{202e}"),
        "{}",
        run.stdout
    );
    let plan = plan(model, &["--top", "0"]);
    let losses: Vec<&str> = plan["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["loss"].as_str().unwrap())
        .collect();
    // Two zones, one group, two components whole and one instance of
    // each, and db--x slowed (web calls it): 8 losses.
    assert_eq!(losses.len(), 8, "{losses:?}");
    assert!(losses.contains(&long.as_str()) && losses.contains(&"1.b_c-"));
    let slugs: Vec<&str> = plan["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["slug"].as_str().unwrap())
        .collect();
    for slug in slugs {
        assert!(
            slug.len() <= 60
                && slug
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{slug}"
        );
    }
    assert_eq!(plan["system"], "s\u{1b}[2J\u{202e}");
}

/// A pool a slowness holds is the pool under test, not the capacity:
/// web-shop with payments at 4 s waits out checkout's 2 s timeout on
/// every one of its 3 attempts (6 s held, every call failing), so
/// checkout serves none of the 100 a second offered and lb, whose orders
/// need it, serves nothing. Its own pool is not what is full: the
/// bulkhead on payments (32 per instance, 4 × 32 = 128) caps the calls in
/// flight below its 4 × 40 = 160 workers (100 × 6 s = 600 wanted), and
/// the calls it admits fail; so the words say its calls fail, as
/// `headroom` reads the same state (`State::bound`), never "∞%".
#[test]
fn a_held_pool_is_the_pool_under_test() {
    let plan = plan("models/web-shop.yaml", &["--only", "slow:payments"]);
    let e = experiment(&plan, "slow:payments");
    assert!(served(e, "lb") < 1e-12, "{e}");
    let o = &e["overloaded"][0];
    assert_eq!(o["component"], "checkout");
    assert_eq!(o["pool"], true);
    assert_eq!(o["held_by"], "failing_calls");
    assert_eq!(o["capacity"], 0.0);
    assert_eq!(o["utilization"], Value::Null);
    assert_eq!(
        e["why"],
        "tests the pools: checkout's calls fail or never return: it serves none of the 100 offered"
    );
    let run = nines(&[
        "experiments",
        "models/web-shop.yaml",
        "--only",
        "slow:payments",
    ]);
    assert!(run.stdout.contains("tests the pools"), "{}", run.stdout);
    assert!(!run.stdout.contains('∞'), "{}", run.stdout);
}
