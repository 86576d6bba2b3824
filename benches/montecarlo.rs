//! Monte Carlo throughput (issue 16 section 4): `montecarlo::simulate` on
//! generated microservice models of 100 and 1,000 components and on the
//! 5,000-wide `any_of`, 65,536 trials each. Throughput is in
//! component-samples (trials × components); the target is 1e8 per second
//! per core (see docs/performance.md, "Monte Carlo").
//!
//! Run briefly, on one thread for a per-core figure:
//! `RAYON_NUM_THREADS=1 cargo bench --bench montecarlo -- --warm-up-time 1
//! --measurement-time 3`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nines::engine::montecarlo;

const TRIALS: u64 = 65_536;

fn wide_any_of(n: usize) -> String {
    let mut text = String::from("system: s\ncomponents:\n  e: {depends_on: [{any_of: [");
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    text.push_str(&names.join(", "));
    text.push_str("]}]}\n");
    for name in &names {
        let _ = writeln!(text, "  {name}: {{availability: 99%}}");
    }
    text
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    let models = [
        ("generated-100", nines::generate::microservices(100, 42)),
        ("generated-1000", nines::generate::microservices(1000, 42)),
        ("any_of-5000", wide_any_of(5000)),
    ];
    for (name, text) in models {
        let model = nines::model::parse(&text).unwrap_or_else(|p| panic!("{p:#?}"));
        group.throughput(Throughput::Elements(TRIALS * model.components.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| montecarlo::simulate(black_box(&model), TRIALS, 1, &|_| {}));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
