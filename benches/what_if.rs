//! `nines what-if` against `nines check` on the generated microservice
//! models of `benches/check.rs`: losing a zone and scaling the load each
//! run two audits and the changed figures, so issue 29's budget is 3×
//! `check` on the same model (docs/performance.md, "Every command against
//! `check`": 2.5× at 10k after three quadratic spots went). Run briefly:
//! `cargo bench --bench what_if -- --warm-up-time 1 --measurement-time 5`;
//! 100,000 components only with `NINES_BENCH_LARGE=1`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::cli::{Terminal, WhatIfArgs, WhatIfFormat, what_if_source};

mod common;

fn sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 10_000];
    if std::env::var_os("NINES_BENCH_LARGE").is_some() {
        sizes.push(100_000);
    }
    sizes
}

/// `what-if` with `lose` and `scale` in JSON, its output's length.
fn run(text: &str, lose: &[&str], scale: Option<f64>) -> usize {
    let args = WhatIfArgs {
        model: "generated.yaml".to_owned(),
        lose: lose.iter().map(|s| (*s).to_owned()).collect(),
        cold: false,
        scale_load: scale,
        set: Vec::new(),
        slow: Vec::new(),
        format: WhatIfFormat::Json,
        today: Some("2026-11-30".to_owned()),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut terminal = Terminal::plain(&mut out, &mut err);
    let _ = what_if_source("generated.yaml", text, &args, &mut terminal);
    out.len()
}

fn bench_what_if(c: &mut Criterion) {
    let mut group = c.benchmark_group("what_if");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        // The yardstick, in the same run.
        group.bench_with_input(BenchmarkId::new("check", size), &text, |b, text| {
            b.iter(|| black_box(common::check(text)));
        });
        group.bench_with_input(BenchmarkId::new("lose_zone", size), &text, |b, text| {
            b.iter(|| black_box(run(text, &["az-a"], None)));
        });
        group.bench_with_input(
            BenchmarkId::new("scale_load_1.5", size),
            &text,
            |b, text| {
                b.iter(|| black_box(run(text, &[], Some(1.5))));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_what_if);
criterion_main!(benches);
