//! The availability figure against SCRAM, an independent Open-PSA fault-tree
//! engine: every example model and 60 random models are exported as MEF,
//! SCRAM computes each top event's probability with its BDD, and the
//! unavailability of every entrypoint must agree to SCRAM's printed
//! precision (relative 1e-5). Without `scram` on the PATH the test says it
//! skipped and why; `.ci/run` installs it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use nines::engine::{self, mef};
use nines::model::{self, Model};
use rayon::prelude::*;

/// SCRAM's probability per top gate, read from its XML report.
fn scram_probabilities(file: &Path) -> Vec<(String, f64)> {
    scram_run(file, &["--limit-order", "1"])
}

/// SCRAM's probability of each top gate with `extra` arguments. The
/// probability comes from the BDD and does not depend on `--limit-order`;
/// the products (cut sets) do, and this test does not read them: the
/// `same-zone` ring has 25,019,280 of them, which took SCRAM 72 s to list.
/// [`unavailability_agrees_with_scram`] checks on one model that the
/// figures are the same without the limit.
fn scram_run(file: &Path, extra: &[&str]) -> Vec<(String, f64)> {
    let out = Command::new("scram")
        .args(["--bdd", "--probability", "true"])
        .args(extra)
        .arg(file)
        .output()
        .expect("scram runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "scram failed on {}:\n{report}\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    report
        .split("<sum-of-products ")
        .skip(1)
        .map(|element| {
            let attribute = |key: &str| {
                let start = element
                    .find(&format!("{key}=\""))
                    .unwrap_or_else(|| panic!("no {key} in {element}"))
                    + key.len()
                    + 2;
                element[start..].split('"').next().unwrap().to_owned()
            };
            (attribute("name"), attribute("probability").parse().unwrap())
        })
        .collect()
}

fn scram_available() -> bool {
    Command::new("scram")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Compares one model; returns how many entrypoints were compared.
fn compare(name: &str, model: &Model, dir: &Path) -> usize {
    let file = dir.join(format!("{name}.xml"));
    std::fs::write(&file, mef::export(model)).unwrap();
    let scram = scram_probabilities(&file);
    // The export counts capacity where every need is static; elsewhere it
    // is the capacity-blind structure.
    let figures = if mef::counts_capacity(model) {
        engine::availability(model)
    } else {
        engine::structural_availability(model)
    };
    assert_eq!(
        scram.len(),
        figures.len(),
        "{name}: one top gate per entrypoint"
    );
    for (entrypoint, figure) in figures {
        let top = mef::top_gate(&model.component(entrypoint).name);
        let theirs = scram
            .iter()
            .find(|(n, _)| *n == top)
            .unwrap_or_else(|| panic!("{name}: no {top}"))
            .1;
        // The bracket of the unavailability (carried in failure space, so
        // a figure of 1e-20 is compared to its digits, not to 1e-15 of an
        // availability near 1) must contain SCRAM's figure to its
        // precision.
        let (low, high) = (figure.unavailability_lower, figure.unavailability_upper);
        let tolerance = 1e-5 * theirs.abs().max(low.abs());
        assert!(
            theirs >= low - tolerance && theirs <= high + tolerance,
            "{name}/{top}: nines unavailability [{low:e}, {high:e}], SCRAM {theirs:e}"
        );
    }
    scram.len()
}

#[test]
#[expect(
    clippy::disallowed_macros,
    reason = "says how many entrypoints it compared (shown with --nocapture)"
)]
#[ignore = "slow: runs the external SCRAM engine on every example model; .ci/run runs it with --include-ignored"]
fn unavailability_agrees_with_scram() {
    if !scram_available() {
        crate::skip("`scram` is not installed here (Debian package `scram`; .ci/run installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("nines-scram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The products' limit does not change SCRAM's figures, on a model
    // with products of order 4 and more (5 of 8 ring members, each failing
    // by its own, its dependency's or a zone's event).
    let text = crate::bounds::ring(8, 5, "95%", "95%", "99%", 1);
    let file = dir.join("limit-order.xml");
    std::fs::write(&file, mef::export(&model::parse(&text).unwrap())).unwrap();
    let (limited, whole) = (scram_probabilities(&file), scram_run(&file, &[]));
    assert!(!whole.is_empty());
    assert_eq!(limited, whole, "--limit-order 1 changed SCRAM's figures");
    // Every model first, then SCRAM on all of them, two at a time (each
    // run is its own process; the machine has two cores).
    let mut jobs: Vec<(String, Model)> = Vec::new();
    for path in crate::example_models() {
        let model = model::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        jobs.push((
            path.file_stem().unwrap().to_string_lossy().into_owned(),
            model,
        ));
    }
    for seed in 0..60 {
        let text = nines::generate::random_small(seed);
        let model = model::parse(&text).unwrap();
        jobs.push((format!("random-{seed}"), model));
    }
    // More than 14 correlated events, most of them zones that hold one
    // instance of one component: nines folds those into the component
    // instead of conditioning on them, and must still agree.
    for (zones, needed) in [(16, 10), (20, 15)] {
        let mut text = String::from(
            r"system: wide
entrypoints: [api]
domains:
  region: {kind: region, availability: 99.9%}
",
        );
        for z in 0..zones {
            let _ = writeln!(
                text,
                "  z{z}: {{kind: zone, in: region, availability: 9{}%}}",
                z % 9
            );
        }
        let list: Vec<String> = (0..zones).map(|z| format!("z{z}")).collect();
        let _ = writeln!(
            text,
            r"components:
  api: {{instances: 2, placement: [z0, z1], availability: 99%, depends_on: [store]}}
  store: {{instances: {zones}, min_healthy: {needed}, availability: 99.5%, placement: [{}]}}",
            list.join(", ")
        );
        let model = model::parse(&text).unwrap();
        jobs.push((format!("wide-{zones}"), model));
    }
    // 16 zones each holding two components that a gate counts (the joint
    // diagram of events and components, not conditioning): neighbours in
    // one zone, and a ring where t_i needs z_i and z_{i+1}.
    for (name, shift) in [("same-zone", 0), ("ring", 1)] {
        let text = crate::bounds::ring(16, 10, "95%", "95%", "99%", shift);
        let model = model::parse(&text).unwrap();
        jobs.push((name.to_owned(), model));
    }
    // Two components over 16 shared zones, each needing 14 of its 16
    // instances: each depends on 16 events, more than the joint diagram
    // expands as a tree (12), so they enter it instance by instance.
    let model = model::parse(&nines::generate::zone_pairs(16, 14)).unwrap();
    jobs.push(("zone-pairs".to_owned(), model));
    // A 10 x 10 grid of `any_of` rows and columns over 20 zones: bounded
    // (best-first over the larger structure), SCRAM's 9.99996e-6 must lie
    // in the bracket, about 4e-9 wide.
    let model = model::parse(&nines::generate::grid(
        10,
        20,
        nines::generate::Grid::RowsAndColumns,
    ))
    .unwrap();
    jobs.push(("grid".to_owned(), model));
    // Two components over 60 shared zones, any one instance needed: an
    // unavailability of 1e-120 (every zone down), 1 as an availability;
    // compared in failure space to SCRAM's digits. (Nested `at_least`
    // gates are left out: SCRAM prints their probability, then lists
    // cut sets for minutes, gigabytes of report.)
    let model = model::parse(&nines::generate::shared_zones(60)).unwrap();
    jobs.push(("shared-zones".to_owned(), model));
    let mut compared: usize = jobs
        .par_iter()
        .map(|(name, model)| compare(name, model, &dir))
        .sum();
    // The union of gates in failure space (engine::gates), run on small
    // grids SCRAM finishes (16 zones): its bracket must hold SCRAM's figure.
    for (name, shape, side) in [
        ("gates-every-row", nines::generate::Grid::EveryRow, 6),
        (
            "gates-rows-columns",
            nines::generate::Grid::RowsAndColumns,
            5,
        ),
    ] {
        let model = model::parse(&nines::generate::grid(side, 16, shape)).unwrap();
        let file = dir.join(format!("{name}.xml"));
        std::fs::write(&file, mef::export(&model)).unwrap();
        let theirs = scram_probabilities(&file)[0].1;
        let b = engine::gates::bracket(&model, model.entrypoints[0], engine::RETRY_VISIT_WORK)
            .expect("every gate an any_of of leaves");
        let tolerance = 1e-5 * theirs;
        assert!(
            b.lower - tolerance <= theirs && theirs <= b.upper + tolerance,
            "{name}: gates [{:e}, {:e}], SCRAM {theirs:e}",
            b.lower,
            b.upper
        );
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared >= 76, "compared {compared} entrypoints");
    println!("compared {compared} entrypoints with SCRAM");
}
