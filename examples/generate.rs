//! Writes a generated microservice model: `cargo run --example generate -- 10000 > big.yaml`.

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

fn main() {
    let size = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    print!("{}", nines::generate::microservices(size, 42));
}
