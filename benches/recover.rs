//! `nines recover`'s simulation on the generated microservice models: one
//! simulated hour (3,600 one-second steps) after a full outage of 30
//! minutes, everything admitted at once, and the network built from the
//! model once per iteration.
//!
//! Target on a 2-core machine: the 10,000-component model under 2 s.
//! Run with `cargo bench --bench recover`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::recover::{Admission, Network, Scenario, Settings, simulate};

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

criterion_group!(benches, bench_recover);
criterion_main!(benches);
