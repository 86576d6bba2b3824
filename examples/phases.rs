//! Times the phases of `check` on one model: `cargo run --release --example phases -- model.yaml`.

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
    eprintln!(
        "load {parsed:?}, validate {:?}, availability {:?} ({} entrypoints)",
        validated.saturating_sub(parsed),
        computed.saturating_sub(validated),
        figures.len()
    );
}
