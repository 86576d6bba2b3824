//! The resident memory of each phase of `check` on one model, from
//! `/proc/self/status` (Linux only): `cargo run --release --example memory
//! -- model.yaml`. For each phase: the peak resident size during it (the
//! peak is reset before it through `/proc/self/clear_refs`) and the
//! resident size after it, in MB.

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::time::Instant;

/// `VmRSS` and `VmHWM` of this process, in MB.
fn resident() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map_or(0, |kb| kb / 1000)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Prints the phase's time, peak and resident size, then resets the peak.
fn phase(name: &str, start: &mut Instant) {
    let (now, peak) = resident();
    eprintln!(
        "{name:<12} {:>8.0} ms  peak {peak:>6} MB  after {now:>6} MB",
        start.elapsed().as_secs_f64() * 1000.0
    );
    // Writing 5 resets VmHWM to the current resident size.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    *start = Instant::now();
}

/// The heap bytes the model's components hold (capacities times sizes;
/// the fields' spans not counted).
fn component_bytes(model: &nines::model::Model) -> usize {
    use std::mem::size_of;
    let mut bytes = model.components.capacity() * size_of::<nines::model::Component>();
    for c in &model.components {
        bytes += c.name.capacity()
            + c.kind.as_ref().map_or(0, String::capacity)
            + c.placement.capacity() * 8
            + c.shares.capacity() * 8
            + c.depends_on.capacity() * size_of::<nines::model::Edge>()
            + c.recovery.as_ref().map_or(0, |r| r.needs.capacity() * 8);
        for e in &c.depends_on {
            bytes += e.targets.capacity() * 8;
        }
    }
    bytes
}

/// The heap bytes the findings hold, about: each finding's wording (its
/// facts, without what its own lists hold), subject names and reason.
fn finding_bytes(audit: &nines::render::Audit) -> usize {
    audit.findings.capacity() * std::mem::size_of::<nines::analyze::Finding>()
        + audit
            .findings
            .iter()
            .map(|f| {
                std::mem::size_of_val(&*f.wording)
                    + f.subject.name().len()
                    + f.subject.then().map_or(0, str::len)
                    + f.justification.as_ref().map_or(0, String::capacity)
            })
            .sum::<usize>()
}

fn main() {
    let path = std::env::args().nth(1).expect("a model file");
    let mut start = Instant::now();
    let text = std::fs::read_to_string(path).expect("readable");
    phase("read", &mut start);
    let model = nines::model::parse(&text).expect("a valid model");
    phase("parse", &mut start);
    eprintln!(
        "  components hold {} MB",
        component_bytes(&model) / 1_000_000
    );
    let figures = nines::engine::availability(&model);
    phase("engine", &mut start);
    let today = nines::model::Date::parse("2026-11-30").expect("a date");
    if std::env::var_os("NINES_MEMORY_RULES").is_some() {
        // One rule after the other, instead of the audit (in parallel).
        let cx = nines::analyze::Context::new(&model, today, &figures);
        for analyzer in nines::analyze::ANALYZERS {
            let mut part = nines::render::Audit::new(String::new(), Vec::new());
            analyzer.check(&cx, &mut part);
            phase(analyzer.doc().name(), &mut start);
        }
        return;
    }
    let options = nines::analyze::Options {
        figures: Some(&figures),
        ..nines::analyze::Options::new(today)
    };
    let mut audit = nines::analyze::audit(
        &model,
        &text,
        nines::engine::scenario::Scenario::default(),
        options,
    );
    phase("audit", &mut start);
    eprintln!("  findings hold {} MB", finding_bytes(&audit) / 1_000_000);
    nines::render::terminal_audit(&mut audit);
    let target = nines::render::Target::file("generated.yaml");
    let mut sink = std::io::sink();
    nines::render::table::render(&audit, &target, &mut sink).expect("no io");
    phase("table", &mut start);
    nines::render::json::render(&audit, &target, &mut sink).expect("no io");
    phase("json", &mut start);
    eprintln!(
        "{} components, {} findings",
        model.components.len(),
        audit.findings.len()
    );
}
