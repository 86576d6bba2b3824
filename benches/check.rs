//! `nines check` on generated microservice models of growing size (four
//! layers, fan-out about 3, 10% `any_of`, three zones and four shared-fate
//! groups): the whole pipeline (read, validate, availability, every
//! analyzer, JSON), and its phases alone: reading and validating
//! (`front_end`), the availability engine, and every analyzer on an
//! already computed availability (`analyzers`); and the whole pipeline on
//! the layered generator of the SCRAM comparison (`check_layered`).
//!
//! Targets on a 2-core machine: 10k components under 1 s, 100k under 10 s.
//! Run with `cargo bench --bench check`; the 100k size only with
//! `NINES_BENCH_LARGE=1` (one iteration takes seconds).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

mod common;
use common::check;
use nines::model::Date;

fn sizes() -> Vec<usize> {
    let mut sizes = vec![100, 1_000, 10_000];
    if std::env::var_os("NINES_BENCH_LARGE").is_some() {
        sizes.push(100_000);
    }
    sizes
}

fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        group.bench_with_input(BenchmarkId::from_parameter(size), &text, |b, text| {
            b.iter(|| black_box(check(text)));
        });
    }
    group.finish();
}

/// The whole `check` on the layered generator the SCRAM comparison uses
/// (many small entrypoints sharing parts of their closures; issue 16,
/// section 3): the nines side of `examples/versus_scram.rs` at its sizes.
fn bench_layered(c: &mut Criterion) {
    let mut group = c.benchmark_group("check_layered");
    group.sample_size(10);
    for size in [2_000, 10_000] {
        let text = nines::generate::layered(size, 42);
        group.bench_with_input(BenchmarkId::from_parameter(size), &text, |b, text| {
            b.iter(|| black_box(check(text)));
        });
    }
    group.finish();
}

fn bench_availability(c: &mut Criterion) {
    let mut group = c.benchmark_group("availability");
    group.sample_size(10);
    for size in sizes() {
        let model = nines::model::parse(&nines::generate::microservices(size, 42)).expect("valid");
        group.bench_with_input(BenchmarkId::from_parameter(size), &model, |b, model| {
            b.iter(|| black_box(nines::engine::availability(model)));
        });
    }
    group.finish();
}

fn bench_front_end(c: &mut Criterion) {
    let mut group = c.benchmark_group("front_end");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        group.bench_with_input(BenchmarkId::from_parameter(size), &text, |b, text| {
            b.iter(|| black_box(nines::model::parse(text).expect("valid").components.len()));
        });
    }
    group.finish();
}

fn bench_analyzers(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyzers");
    group.sample_size(10);
    let today = Date::parse("2026-11-30").expect("a date");
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        let model = nines::model::parse(&text).expect("valid");
        let figures = nines::engine::availability(&model);
        group.bench_with_input(BenchmarkId::from_parameter(size), &model, |b, model| {
            b.iter(|| {
                let options = nines::analyze::Options {
                    figures: Some(&figures),
                    ..nines::analyze::Options::new(today)
                };
                let report = nines::analyze::audit(
                    model,
                    &text,
                    nines::engine::scenario::Scenario::default(),
                    options,
                );
                black_box(report.findings.len())
            });
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_check,
    bench_layered,
    bench_front_end,
    bench_availability,
    bench_analyzers
);
criterion_main!(benches);
