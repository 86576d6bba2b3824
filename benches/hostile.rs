//! Small hostile shapes (issue 16 section 1, issue 12 item 4), each of
//! which used to take from seconds to minutes: the availability engine on
//! interleaved `any_of` gates in the bad and the good written order,
//! `at_least: 2500` of 5,000, two components over 256 shared zones, and the
//! `spof` rule on a 20,000-component chain. Targets: every one in seconds
//! (see docs/performance.md, "Hostile shapes").
//!
//! Run briefly: `cargo bench --bench hostile -- --warm-up-time 1
//! --measurement-time 5`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn interleaved(n: usize, swap: bool) -> String {
    let mut text = String::from("system: s\ndomains:\n");
    for z in 0..14 {
        let _ = writeln!(text, "  z{z}: {{kind: zone, availability: 99%}}");
    }
    let list = |p: &str| {
        (0..n)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (g1, g2) = (
        format!("{{any_of: [{}]}}", list("x")),
        format!("{{any_of: [{}]}}", list("p")),
    );
    let gates = if swap { [g2, g1] } else { [g1, g2] };
    let _ = writeln!(
        text,
        "components:\n  e: {{depends_on: [{}]}}",
        gates.join(", ")
    );
    for i in 0..n {
        let _ = writeln!(
            text,
            "  x{i}: {{availability: 99%, placement: [z{}]}}\n  p{i}: {{availability: 99%, depends_on: [x{i}, y{i}]}}\n  y{i}: {{availability: 99%, placement: [z{}]}}",
            i % 14,
            (i + 7) % 14
        );
    }
    text
}

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

fn shared_zones(n: usize) -> String {
    let mut text = String::from("system: s\ndomains:\n");
    for z in 0..n {
        let _ = writeln!(text, "  z{z}: {{kind: zone, availability: 99%}}");
    }
    let zones: Vec<String> = (0..n).map(|z| format!("z{z}")).collect();
    let zones = zones.join(", ");
    let _ = writeln!(
        text,
        "components:\n  a: {{instances: {n}, placement: [{zones}], depends_on: [b]}}\n  b: {{instances: {n}, placement: [{zones}]}}"
    );
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
    for (name, text) in [
        ("any_of-interleaved-bad-order", interleaved(16, false)),
        ("any_of-interleaved-good-order", interleaved(16, true)),
        ("at_least-2500-of-5000", at_least(2500, 5000)),
        ("256-shared-zones", shared_zones(256)),
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
