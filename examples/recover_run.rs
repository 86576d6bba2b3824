//! Times one simulated hour of `nines recover` (everything admitted at
//! once) on a model file: `cargo run --release --example recover_run -- FILE
//! [SECONDS]` (default 3600).

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::time::Instant;

use nines::recover::{Admission, Network, Scenario, Settings, simulate};

fn main() {
    let path = std::env::args().nth(1).expect("a model file");
    let text = std::fs::read_to_string(path).expect("readable");
    let model = nines::model::parse(&text).expect("valid");
    let start = Instant::now();
    let net = Network::new(&model, &nines::engine::start_order::waves(&model));
    let built = start.elapsed();
    let horizon = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3600.0);
    let settings = Settings::of(&model, horizon);
    let run = simulate(
        &net,
        &Scenario::full_outage(&model, 1800.0),
        &settings,
        Admission::Open,
    );
    let done = start.elapsed();
    println!(
        "network {built:?}, simulation {:?}, converged {}",
        done.saturating_sub(built),
        run.converged
    );
}
