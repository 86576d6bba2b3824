//! Times `nines recover`'s plan against `nines check`'s audit on one
//! generated microservice model: `cargo run --release --example
//! recover_vs_check -- [COMPONENTS]` (default 100000). The criterion bench
//! `plan_vs_check` (benches/recover.rs) is the target; this prints one run
//! of each, and how far the plan's runs stepped.

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::time::Instant;

use nines::model::Date;
use nines::recover::{Admission, Network, Scenario, Settings, plan, simulate};

fn main() {
    let size = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let text = nines::generate::microservices(size, 42);
    let model = nines::model::parse(&text).expect("valid");
    let settings = Settings::of(&model, 3600.0);
    let scenario = Scenario::full_outage(&model, 1800.0);
    let start = Instant::now();
    let audit = nines::analyze::audit(
        &model,
        &text,
        nines::engine::scenario::Scenario::default(),
        nines::analyze::Options::new(Date::parse("2026-11-30").expect("a date")),
    );
    let check = start.elapsed();
    let start = Instant::now();
    let p = plan(&model, &scenario, &settings, None);
    let recover = start.elapsed();
    let net = Network::new(&model, &nines::engine::start_order::waves(&model));
    let start = Instant::now();
    let open = simulate(&net, &scenario, &settings, Admission::Open);
    let one = start.elapsed();
    println!(
        "{size} components: check {check:?} ({} findings), recover {recover:?} ({:.1}× check; converges {}, ramp {:?}); one open run {one:?}, full service {:?}",
        audit.findings.len(),
        recover.as_secs_f64() / check.as_secs_f64(),
        p.without_ramp.converges,
        p.ramp.time_to_full_service_s,
        open.full_service_s,
    );
}
