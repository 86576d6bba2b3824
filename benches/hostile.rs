//! Small hostile shapes (issue 16 section 1, issue 12 item 4), each of
//! which used to take from seconds to minutes: the availability engine on
//! interleaved `any_of` gates in the bad and the good written order,
//! `at_least: 2500` of 5,000, two components over 256 shared zones (any
//! one instance, or 250 of 256, needed), a 10 x 10 grid of `any_of` rows
//! and columns over 20 zones (bounded, within 1%), `at_least` over
//! members sharing their `any_of` providers (issue 29 item 2: 16 of 32 in
//! a ring over 14 zones, 8 of 16 scattered over 7, 32 of 64 scattered over
//! 14, all exact), and the
//! `spof` rule on a 20,000-component chain. Targets: every one in seconds
//! (see docs/performance.md, "Hostile shapes"), the item-2 shapes under
//! 10 s.
//!
//! Run briefly: `cargo bench --bench hostile -- --warm-up-time 1
//! --measurement-time 5`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use nines::generate::{
    Grid, Pairing, grid, interleaved, shared_providers, shared_zones, zone_pairs,
};

fn at_least(k: usize, n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let mut text = format!(
        "system: s\ncomponents:\n  e: {{depends_on: [{{at_least: {k}, of: [{}]}}]}}\n",
        names.join(", ")
    );
    for name in &names {
        let _ = writeln!(text, "  {name}: {{availability: 50%}}");
    }
    text
}

fn chain(n: usize) -> String {
    let mut text = String::from("system: s\ncomponents:\n");
    for i in 0..n - 1 {
        let _ = writeln!(
            text,
            "  c{i}: {{availability: 99.9%, depends_on: [c{}]}}",
            i + 1
        );
    }
    let _ = writeln!(text, "  c{}: {{availability: 99.9%}}", n - 1);
    text
}

fn parse(text: &str) -> nines::model::Model {
    nines::model::parse(text).expect("a valid generated model")
}

fn bench_hostile(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    let keys: Vec<usize> = (0..16).collect();
    for (name, text) in [
        (
            "any_of-interleaved-bad-order",
            interleaved(16, false, &keys, false),
        ),
        (
            "any_of-interleaved-good-order",
            interleaved(16, true, &keys, false),
        ),
        ("at_least-2500-of-5000", at_least(2500, 5000)),
        ("256-shared-zones", shared_zones(256)),
        ("256-zones-2-components-needing-250", zone_pairs(256, 250)),
        (
            "grid-10x10-rows-and-columns-20-zones",
            grid(10, 20, Grid::RowsAndColumns),
        ),
        (
            "at_least-16-of-32-sharing-providers-in-a-ring-14-zones",
            shared_providers(16, 32, 32, 14, Pairing::Ring),
        ),
        (
            "at_least-8-of-16-sharing-providers-scattered-7-zones",
            shared_providers(8, 16, 16, 7, Pairing::Scattered),
        ),
        (
            "at_least-32-of-64-sharing-providers-scattered-14-zones",
            shared_providers(32, 64, 64, 14, Pairing::Scattered),
        ),
    ] {
        let model = parse(&text);
        group.bench_function(name, |b| {
            b.iter(|| black_box(nines::engine::availability(&model)));
        });
    }
    let model = parse(&chain(20_000));
    group.bench_function("spof-chain-20000", |b| {
        b.iter(|| black_box(nines::analyze::single_point_of_failure::single_events(&model).len()));
    });
    group.finish();
}

criterion_group!(benches, bench_hostile);
criterion_main!(benches);
