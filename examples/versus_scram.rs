//! Side-by-side timing of nines and SCRAM on the same generated models:
//! `cargo run --release --example versus_scram -- 100 1000` (add `layered`
//! for the layered generator with many small entrypoints).
//!
//! For each size it writes the model as MEF, runs `scram --bdd --probability
//! true` on it, and times nines reading the YAML and computing every
//! entrypoint's availability. It checks that every unavailability agrees to
//! SCRAM's printed precision (relative 1e-5) and prints the ratio.

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::process::Command;
use std::time::Instant;

fn main() {
    let layered = std::env::args().any(|a| a == "layered");
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100, 1000]
    } else {
        sizes
    };
    let dir = std::env::temp_dir().join("nines-versus-scram");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    println!("| components | entrypoints | nines | SCRAM | ratio | largest relative difference |");
    println!("|---|---|---|---|---|---|");
    for size in sizes {
        let text = if layered {
            nines::generate::layered(size, 42)
        } else {
            nines::generate::microservices(size, 42)
        };
        let start = Instant::now();
        let model = nines::model::parse(&text).expect("valid");
        let figures = nines::engine::availability(&model);
        let ours = start.elapsed();
        let file = dir.join(format!("m{size}{}.xml", if layered { "l" } else { "" }));
        std::fs::write(&file, nines::engine::mef::export(&model)).expect("writable");
        let start = Instant::now();
        let out = Command::new("scram")
            .args(["--bdd", "--probability", "true"])
            .arg(&file)
            .output()
            .expect("scram on the PATH");
        let theirs = start.elapsed();
        let audit = String::from_utf8_lossy(&out.stdout);
        // One pass over the report: top gate name to probability.
        let results: std::collections::HashMap<&str, f64> = audit
            .split("<sum-of-products name=\"")
            .skip(1)
            .filter_map(|element| {
                let name = element.split('"').next()?;
                let probability = element
                    .split("probability=\"")
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse()
                    .ok()?;
                Some((name, probability))
            })
            .collect();
        let mut worst: f64 = 0.0;
        for (entrypoint, figure) in &figures {
            let top = nines::engine::mef::top_gate(&model.component(*entrypoint).name);
            let probability = *results.get(top.as_str()).expect("a result per top gate");
            let mine = 1.0 - figure.availability;
            worst = worst.max((mine - probability).abs() / probability.max(1e-300));
        }
        println!(
            "| {size} | {} | {:.3} s | {:.3} s | {:.0}× | {worst:.1e} |",
            figures.len(),
            ours.as_secs_f64(),
            theirs.as_secs_f64(),
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }
}
