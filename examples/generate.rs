//! Writes a generated microservice model: `cargo run --example generate -- 10000 > big.yaml`
//! (add `layered` for the layered generator with many small entrypoints).

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

fn main() {
    let layered = std::env::args().any(|a| a == "layered");
    let size = std::env::args()
        .skip(1)
        .find_map(|s| s.parse().ok())
        .unwrap_or(1000);
    if layered {
        print!("{}", nines::generate::layered(size, 42));
    } else {
        print!("{}", nines::generate::microservices(size, 42));
    }
}
