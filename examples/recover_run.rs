//! Times one simulated hour of `nines recover` (everything admitted at
//! once) on a model file: `cargo run --release --example recover_run -- FILE`.

use std::time::Instant;

use nines::recover::{Admission, Network, Scenario, Settings, simulate};

fn main() {
    let path = std::env::args().nth(1).expect("a model file");
    let text = std::fs::read_to_string(path).expect("readable");
    let model = nines::model::parse(&text).expect("valid");
    let start = Instant::now();
    let net = Network::new(&model, &nines::analyze::start_order_waves(&model));
    let built = start.elapsed();
    let settings = Settings::of(&model, 3600.0);
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
