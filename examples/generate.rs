//! Writes a generated microservice model: `cargo run --example generate -- 10000 > big.yaml`
//! (add `layered` for the layered generator with many small entrypoints, or
//! `hostile` to write the hostile corpus's shape whose name contains the
//! size's text, e.g. `-- hostile 10x10`).

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "hostile") {
        let wanted = args.get(1).map_or("", String::as_str);
        if let Some((_, text)) = nines::generate::hostile_corpus()
            .into_iter()
            .find(|(name, _)| name.contains(wanted))
        {
            print!("{text}");
        }
        return;
    }
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
