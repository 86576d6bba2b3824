//! `nines report` (the review document) on the generated microservice
//! models of `benches/check.rs`, at growing sizes: the whole document
//! (every analyzer, the recovery simulation, the focused diagram,
//! Markdown), and the dependency diagram alone (built for every component,
//! then cut down to the components the findings name), which used to be
//! quadratic (issue 16: each component scanned every finding).
//!
//! The time should grow about linearly with the size (docs/performance.md,
//! "The review document"). Run briefly:
//! `cargo bench --bench report -- --warm-up-time 1 --measurement-time 5`;
//! 20,000 and 100,000 components only with `NINES_BENCH_LARGE=1`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::cli::{DIAGRAM_LIMIT, ReviewFormat, review};
use nines::model::Date;
use nines::render::diagram::Diagram;

fn sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 5_000, 10_000];
    if std::env::var_os("NINES_BENCH_LARGE").is_some() {
        sizes.extend([20_000, 100_000]);
    }
    sizes
}

fn today() -> Date {
    Date::parse("2026-11-30").expect("a date")
}

fn bench_report(c: &mut Criterion) {
    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        let model = nines::model::parse(&text).expect("a valid generated model");
        group.bench_with_input(BenchmarkId::from_parameter(size), &text, |b, text| {
            b.iter(|| {
                let out = review(
                    "generated.yaml",
                    text,
                    &model,
                    today(),
                    ReviewFormat::Markdown,
                );
                black_box(out.len())
            });
        });
    }
    group.finish();
}

fn bench_diagram(c: &mut Criterion) {
    let mut group = c.benchmark_group("report_diagram");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        let model = nines::model::parse(&text).expect("a valid generated model");
        let audit = nines::analyze::audit(
            &model,
            &text,
            nines::engine::scenario::Scenario::default(),
            nines::analyze::Options::new(today()),
        );
        group.bench_with_input(BenchmarkId::from_parameter(size), &model, |b, model| {
            b.iter(|| {
                let diagram =
                    Diagram::new(model, &audit.findings).focus(&audit.findings, DIAGRAM_LIMIT);
                black_box(diagram.nodes.len() + diagram.hidden)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_report, bench_diagram);
criterion_main!(benches);
