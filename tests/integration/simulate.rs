//! `nines simulate`: the Monte Carlo interval contains the analytic figure
//! on every example model, and the result does not depend on the number of
//! threads.

use nines::engine::{self, montecarlo};

/// The figure the simulation samples: `check`'s before the switchover
/// term (the simulation samples the static structure), as bounds.
fn static_figure(figure: &engine::Figure) -> (f64, f64) {
    (
        (figure.lower + figure.switchover).min(1.0),
        (figure.upper + figure.switchover).min(1.0),
    )
}

#[test]
#[ignore = "slow: ten million Monte Carlo trials per example model; .ci/run runs it with --include-ignored"]
fn the_interval_contains_the_analytic_figure_on_every_example() {
    let paths = crate::example_models();
    let mut measured = Vec::new();
    for path in paths {
        let model = nines::model::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let figures = engine::availability(&model);
        // 10^7 trials, seed 1, of what `nines simulate` samples: each
        // component's capacity need through the capacity compilation.
        let sampled = montecarlo::sampled_model(&model);
        let simulation = montecarlo::simulate(&sampled, 10_000_000, 1, &|_| {});
        for ((entrypoint, down), (_, figure)) in simulation.down.iter().zip(&figures) {
            if *down < montecarlo::MIN_FAILURES || !figure.quantified {
                continue; // too rare to measure at this trial count: the CLI says so
            }
            let (low, high) = montecarlo::interval(*down, simulation.trials);
            let (lower, upper) = static_figure(figure);
            let name = &model.component(*entrypoint).name;
            assert!(
                low <= upper && lower <= high,
                "{}/{name}: analytic [{lower}, {upper}] outside [{low}, {high}]",
                path.display(),
            );
            measured.push(format!("{}/{name}", path.file_stem().unwrap().display()));
        }
    }
    // Every example whose entrypoints fail often enough at 10^7 trials:
    // cells (router: any_of over a ring of cells, at_least 2 of 3
    // ZooKeeper, shared-fate groups, each cell needing 3 or 4 of its 5
    // instances; 1 − A = 1.13e-4, about 1,130 down), minimal (web: 5.0e-4,
    // about 5,000), url-shortener (redirect 1.5e-3 and api 5.0e-4: a lost
    // zone leaves redirect short, az-a takes the cache and links-db with
    // it) and web-shop (lb, zones: 1.5e-3, about 15,000). active-passive
    // fails about 1e-8 of the time, online-boutique has no figures.
    assert_eq!(
        measured,
        [
            "cells/router",
            "minimal/web",
            "url-shortener/redirect",
            "url-shortener/api",
            "web-shop/lb"
        ],
        "measured entrypoints"
    );
}

#[test]
fn the_interval_covers_the_analytic_figure_on_random_models() {
    // 80 random models using every structural feature (nested domains,
    // shared-fate groups, any_of, at_least 2 of 3, degradable edges, cycles
    // of required edges), 200,000 trials each. A 95% interval misses the
    // truth one time in twenty by chance, so at least 90% of them must
    // contain the analytic figure, and every estimate must be within five
    // standard deviations of it (a miss by chance: about 6e-7 each).
    let (mut measured, mut covered) = (0, 0);
    for seed in 0..80 {
        let model = nines::model::parse(&nines::generate::random_small(seed)).unwrap();
        let figure = engine::availability(&model).remove(0).1;
        assert_eq!(figure.method, engine::Method::Exact, "seed {seed}");
        let trials = 200_000;
        let down = montecarlo::simulate(&model, trials, seed, &|_| {}).down[0].1;
        if down < montecarlo::MIN_FAILURES {
            continue;
        }
        measured += 1;
        let (availability, _) = static_figure(&figure);
        let (low, high) = montecarlo::interval(down, trials);
        covered += usize::from(low <= availability && availability <= high);
        let estimate = 1.0 - down as f64 / trials as f64;
        let sigma = (availability * (1.0 - availability) / trials as f64).sqrt();
        assert!(
            (estimate - availability).abs() <= 5.0 * sigma,
            "seed {seed}: simulated {estimate}, analytic {availability} (σ {sigma})"
        );
    }
    assert!(measured >= 60, "only {measured} of 80 measurable");
    assert!(
        covered * 10 >= measured * 9,
        "{covered} of {measured} intervals contain the analytic figure"
    );
}

#[test]
fn ten_million_trials_of_url_shortener_give_an_interval() {
    // The count that once hung for more than ten minutes in statrs's
    // inverse beta: 31 of 10^7 down gives the failure interval about
    // [2.1e-6, 4.4e-6] (31 ± 1.96√31 = [20, 42] per 10^7).
    let (low, high) = montecarlo::interval(31, 10_000_000);
    assert!(
        (1.0 - high - 2.1e-6).abs() < 1e-7 && (1.0 - low - 4.4e-6).abs() < 1e-7,
        "{low} {high}"
    );
    // Capacity-aware, redirect fails with 1 − A = 1.516e-3 (a lost zone
    // leaves it 4 × 2000 < 9000, az-a also takes the cache and with it
    // links-db): about 15,160 of 10^7, within the interval of the run.
    let out = simulate(&["models/url-shortener.yaml", "--trials", "10000000"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "redirect: analytic 99.848407%, as `check`\n  simulated 99.84719% over 10000000 trials (15281 down), 95% interval [99.84475%, 99.84960%]: contains the analytic figure"
        ),
        "{text}"
    );
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

#[test]
fn no_exact_skips_the_analytic_figure_and_keeps_the_simulation() {
    let run = |extra: &[&str]| {
        let out = crate::binary()
            .args([
                "simulate",
                "models/web-shop.yaml",
                "--trials",
                "20000",
                "--format",
                "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let with = run(&[]);
    let without = run(&["--no-exact"]);
    // Exactly the trials asked (no rounding to chunks), the same draws.
    assert_eq!(with["lb"]["trials"], 20_000);
    assert_eq!(with["lb"]["failures"], without["lb"]["failures"]);
    assert!(with["lb"]["analytic"].is_f64());
    assert!(without["lb"]["analytic"].is_null());
}

/// On a terminal `simulate` draws a progress bar from the worker threads.
/// The CLI once held the lock on stderr for the whole run, so the first
/// draw waited for the main thread, which waited for the workers: the run
/// never ended. `script` gives the binary a pseudo-terminal; without it the
/// test says so and passes.
#[test]
fn simulate_on_a_terminal_draws_its_progress_and_ends() {
    let Ok(status) = std::process::Command::new("script")
        .arg("--version")
        .output()
    else {
        crate::skip("`script` (util-linux) is not installed, so no pseudo-terminal");
        return;
    };
    if !status.status.success() {
        crate::skip("`script --version` failed, so no pseudo-terminal");
        return;
    }
    let binary = insta_cmd::get_cargo_bin("nines");
    let command = format!(
        "{} simulate models/url-shortener.yaml --trials 2000000 --no-exact",
        binary.display()
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Two million trials of three components take milliseconds; a minute
    // means the run is stuck (this is a hang guard, not a timing).
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("`nines simulate` on a terminal did not end within a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert!(status.success(), "{out}");
    // 2,000,000 trials at seed 1: 3,105 redirects fail (1 − A = 1.5e-3,
    // about 3,030), and that line comes after the bar.
    assert!(
        out.contains("simulated 99.84475% over 2000000 trials (3105 down)"),
        "{out}"
    );
}

#[test]
fn the_interval_contains_the_analytic_figure_of_a_fleet_held_by_its_pool() {
    // docs/slow.md "A pool is a capacity": 4 instances of 10 workers held
    // 50 ms serve 200 a second each; 500 a second needs 3 of the 4 up:
    // 0.99^4 + 4 × 0.99^3 × 0.01 = 0.99940797, so 1 − A = 5.9203e-4,
    // about 592 of 10^6 trials down. The simulation samples the same
    // pool, through the CLI's own `sampled_model`.
    let text = "system: four\ncomponents:\n  api: {instances: 4, availability: 99%, capacity: 1000, load: 500, workers: 10, latency: {p99: 50ms}}\n";
    let model = nines::model::parse(text).unwrap();
    let figure = engine::availability(&model).remove(0).1;
    assert!((figure.availability - 0.999_407_97).abs() < 1e-12);
    let simulation =
        montecarlo::simulate(&montecarlo::sampled_model(&model), 1_000_000, 1, &|_| {});
    let (_, down) = simulation.down[0];
    let (low, high) = montecarlo::interval(down, simulation.trials);
    let (lower, upper) = static_figure(&figure);
    assert!(
        low <= upper && lower <= high,
        "analytic [{lower}, {upper}] outside [{low}, {high}] ({down} down)"
    );
    // Without the pool counted it is down only when all four are (0.01^4 =
    // 1e-8: no trial in 10^6), so this many down is the pool's doing.
    assert!(down > 400, "{down}");
}
