//! `nines recover`'s simulation on the generated microservice models: one
//! simulated hour (3,600 one-second steps) after a full outage of 30
//! minutes, everything admitted at once, and the network built from the
//! model once per iteration (`simulate`); and the whole plan (every
//! admission policy, the search, the backlogs) against `check`'s audit on
//! the same model (`plan_vs_check`).
//!
//! Targets on a 2-core machine: the 10,000-component simulation under 2 s;
//! the plan of the 100,000-component model under 10× its `check`. Run with
//! `cargo bench --bench recover`; the 100k size only with
//! `NINES_BENCH_LARGE=1` (one iteration takes seconds).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::model::Date;
use nines::recover::{Admission, Network, Scenario, Settings, plan, simulate};

fn bench_recover(c: &mut Criterion) {
    let mut group = c.benchmark_group("recover");
    group.sample_size(10);
    for size in [1_000, 10_000] {
        let model = nines::model::parse(&nines::generate::microservices(size, 42)).expect("valid");
        let settings = Settings::of(&model, 3600.0);
        let scenario = Scenario::full_outage(&model, 1800.0);
        group.bench_with_input(BenchmarkId::from_parameter(size), &model, |b, model| {
            b.iter(|| {
                let net = Network::new(model, &nines::engine::start_order::waves(model));
                let run = simulate(&net, &scenario, &settings, Admission::Open);
                black_box(run.converged)
            });
        });
    }
    group.finish();
}

fn sizes() -> Vec<usize> {
    let mut sizes = vec![10_000];
    if std::env::var_os("NINES_BENCH_LARGE").is_some() {
        sizes.push(100_000);
    }
    sizes
}

/// `nines recover MODEL` (the plan after a full outage of 30 minutes, one
/// simulated hour) and `nines check MODEL` (the audit) on the same model,
/// each from the parsed model.
fn bench_plan_vs_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("plan_vs_check");
    group.sample_size(10);
    for size in sizes() {
        let text = nines::generate::microservices(size, 42);
        let model = nines::model::parse(&text).expect("valid");
        let settings = Settings::of(&model, 3600.0);
        let scenario = Scenario::full_outage(&model, 1800.0);
        group.bench_with_input(BenchmarkId::new("recover", size), &model, |b, model| {
            b.iter(|| black_box(plan(model, &scenario, &settings, None).ramp.converges));
        });
        let today = Date::parse("2026-11-30").expect("a date");
        group.bench_with_input(BenchmarkId::new("check", size), &model, |b, model| {
            b.iter(|| {
                let audit = nines::analyze::audit(
                    model,
                    &text,
                    nines::engine::scenario::Scenario::default(),
                    nines::analyze::Options::new(today),
                );
                black_box(audit.findings.len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_recover, bench_plan_vs_check);
criterion_main!(benches);
