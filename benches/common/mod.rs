//! What several benches run: `check` as the command line runs it (the
//! whole pipeline to JSON), the yardstick of issue 29's per-command budget.

use nines::analyze::Severity;
use nines::model::Date;

/// `nines check --format json` on `text`, in process: the output's length
/// plus its error count (so nothing is optimized away).
#[must_use]
pub fn check(text: &str) -> usize {
    let model = nines::model::parse(text).expect("a valid generated model");
    let today = Date::parse("2026-11-30").expect("a date");
    let audit = nines::analyze::audit(
        &model,
        text,
        nines::engine::scenario::Scenario::default(),
        nines::analyze::Options::new(today),
    );
    let mut out = Vec::new();
    let target = nines::render::Target::file("generated.yaml");
    nines::render::json::render(&audit, &target, &mut out).expect("in memory");
    out.len() + audit.failing(Some(Severity::Error)).count()
}
