//! `nines simulate`: the Monte Carlo interval contains the analytic figure
//! on every example model, and the result does not depend on the number of
//! threads.

use nines::engine::{self, montecarlo};

#[test]
#[ignore = "slow: a million Monte Carlo trials per example model; .ci/run runs it with --include-ignored"]
fn the_interval_contains_the_analytic_figure_on_every_example() {
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/models");
    let mut paths: Vec<_> = std::fs::read_dir(models)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut measured = 0;
    for path in paths {
        let model = nines::model::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let figures = engine::availability(&model);
        // What `nines simulate MODEL` runs by default: 1,000,000 trials, seed 1.
        let simulation = montecarlo::simulate(&model, 1_000_000, 1, &|_| {});
        for ((entrypoint, down), (_, figure)) in simulation.down.iter().zip(&figures) {
            if *down < montecarlo::MIN_FAILURES {
                continue; // too rare to measure at this trial count: the CLI says so
            }
            let (low, high) = montecarlo::interval(*down, simulation.trials);
            assert!(
                low <= figure.availability && figure.availability <= high,
                "{}/{}: analytic {} outside [{low}, {high}]",
                path.display(),
                model.component(*entrypoint).name,
                figure.availability
            );
            measured += 1;
        }
    }
    // web-shop (lb) and cells (router) fail often enough to measure.
    assert!(measured >= 2, "only {measured} entrypoints measurable");
}

#[test]
fn the_result_is_the_same_on_one_thread_and_on_many() {
    let run = |threads: &str| {
        crate::binary()
            .args([
                "simulate",
                "models/web-shop.yaml",
                "--trials",
                "50000",
                "--seed",
                "9",
                "--format",
                "json",
            ])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap()
            .stdout
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("3"));
}

#[test]
fn rare_failures_are_called_too_rare() {
    let out = crate::binary()
        .args([
            "simulate",
            "models/active-passive.yaml",
            "--trials",
            "10000",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("too rare to measure"), "{text}");
    assert!(!text.contains("interval ["), "{text}");
}

fn simulate(args: &[&str]) -> std::process::Output {
    crate::binary().arg("simulate").args(args).output().unwrap()
}

#[test]
fn a_path_without_figures_is_na_not_a_hundred_percent() {
    // online-boutique: frontend and the 7 services its required paths reach
    // have no figure (check shows `n/a (8 unquantified)`): simulate must
    // not print "analytic 100%" nor say "it never fails".
    let out = simulate(&["models/online-boutique.yaml", "--trials", "10000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("frontend: analytic n/a (8 unquantified): nothing on its paths has a figure"),
        "{text}"
    );
    assert!(!text.contains("100.00000%"), "{text}");
    assert!(!text.contains("never fails"), "{text}");
    let json = simulate(&[
        "models/online-boutique.yaml",
        "--trials",
        "10000",
        "--format",
        "json",
    ]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["frontend"]["analytic"], serde_json::Value::Null);
    assert_eq!(value["frontend"]["unquantified"], 8);
}

#[test]
fn trials_are_bounded_and_the_hint_stays_within_the_bound() {
    // 10^8 + 1 trials is refused with exit 2 before any work.
    let out = simulate(&["models/minimal.yaml", "--trials", "100000001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--trials must be between 1 and 100000000"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // active-passive's gateway: 1 − A ≈ 1e-9, so seeing 10 × 10 failures
    // takes about 100 / 1e-9 = 1e11 trials, beyond 10^8: no hint to run them.
    let out = simulate(&["models/active-passive.yaml", "--trials", "10000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("more than the 100000000 --trials allows"),
        "{text}"
    );
    assert!(!text.contains("run about --trials"), "{text}");
}
