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
    let cpu_before = cpu_seconds();
    let mut fastest = std::time::Duration::MAX;
    for _ in 0..repeat {
        let again = Instant::now();
        let more = nines::engine::availability(&model);
        fastest = fastest.min(again.elapsed());
        assert_eq!(more, figures, "the same figures every time");
    }
    if repeat > 0 {
        // CPU time of every thread, from /proc (Linux): on a loaded machine
        // it moves far less than wall time.
        let cpu = cpu_seconds()
            .zip(cpu_before)
            .map(|(after, before)| after - before);
        eprintln!(
            "availability repeated {repeat} times: fastest {fastest:?} wall, {} CPU per run",
            cpu.map_or_else(
                || "n/a".to_string(),
                |c| format!("{:.1} ms", c * 1e3 / repeat as f64)
            )
        );
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

/// User and system CPU time of this process so far, from `/proc/self/stat`
/// (in clock ticks of 1/100 s); `None` where there is no `/proc`.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) begin after ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime, fields 14 and 15 of the line (11 and 12 from 0 here).
    Some((ticks(11)? + ticks(12)?) / 100.0)
}
