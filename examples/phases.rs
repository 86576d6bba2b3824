//! Times the phases of `check` on one model: `cargo run --release --example phases -- model.yaml`
//! (`NINES_PHASES_REPEAT=n` runs the availability phase n more times, each timed).

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a model file");
    let text = std::fs::read_to_string(path).expect("readable");
    let start = Instant::now();
    let root = nines::model::load::parse(&text).expect("yaml");
    let parsed = start.elapsed();
    let model = nines::model::validate::validate(&text, root).expect("valid");
    let validated = start.elapsed();
    let figures = nines::engine::availability(&model);
    let computed = start.elapsed();
    // NINES_PHASES_REPEAT=n: the availability phase n more times, each
    // timed (a profile of that phase alone, and a minimum of several runs).
    let repeat: usize = std::env::var("NINES_PHASES_REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    for _ in 0..repeat {
        let again = Instant::now();
        let more = nines::engine::availability(&model);
        eprintln!("availability again {:?}", again.elapsed());
        assert_eq!(more, figures, "the same figures every time");
    }
    let start = start + start.elapsed().saturating_sub(computed);
    let today = nines::model::Date::parse("2026-11-30").expect("a date");
    let audit = nines::analyze::audit(
        &model,
        &text,
        nines::engine::scenario::Scenario::default(),
        nines::analyze::Options::new(today),
    );
    let reported = start.elapsed();
    let mut out = Vec::new();
    let target = nines::render::Target::file("generated.yaml");
    nines::render::json::render(&audit, &target, &mut out).expect("in memory");
    let rendered = start.elapsed();
    eprintln!(
        "load {parsed:?}, validate {:?}, availability {:?} ({} entrypoints), full report {:?} ({} findings), json {:?} ({} bytes)",
        validated.saturating_sub(parsed),
        computed.saturating_sub(validated),
        figures.len(),
        reported.saturating_sub(computed),
        audit.findings.len(),
        rendered.saturating_sub(reported),
        out.len()
    );
    if std::env::var_os("NINES_PHASES_RULES").is_some() {
        let cx = nines::analyze::Context::new(&model, today, &figures);
        for analyzer in nines::analyze::ANALYZERS {
            let start = Instant::now();
            let mut part = nines::render::Audit::new(String::new(), Vec::new());
            analyzer.check(&cx, &mut part);
            eprintln!(
                "  {:<22} {:?} ({} findings)",
                analyzer.doc().name(),
                start.elapsed(),
                part.findings.len()
            );
        }
    }
}
