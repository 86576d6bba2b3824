//! Monte Carlo throughput (issue 16 section 4): `montecarlo::simulate` on
//! the example models, on generated microservice models of 100, 1,000 and
//! 10,000 components and on a 5,000-wide `any_of`, on a pool of one thread
//! and on a pool of two. Throughput is in component-samples (trials × the
//! components a trial samples, those the entrypoints reach); the target is
//! 1e8 per second per core, and the two-thread figure over the one-thread
//! figure is the speed-up (see docs/performance.md, "Monte Carlo").
//!
//! Run briefly: `cargo bench --bench montecarlo -- --warm-up-time 1
//! --measurement-time 3` (a filter such as `url-shortener` picks one model).

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use nines::engine::montecarlo;

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

fn example(name: &str) -> String {
    let path = format!("{}/models/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    // (name, model, trials per iteration): about 1e8 component-samples each.
    let models = [
        ("url-shortener", example("url-shortener"), 4_000_000),
        ("web-shop", example("web-shop"), 4_000_000),
        ("cells", example("cells"), 4_000_000),
        (
            "generated-100",
            nines::generate::microservices(100, 42),
            1_000_000,
        ),
        (
            "generated-1000",
            nines::generate::microservices(1000, 42),
            100_000,
        ),
        (
            "generated-10000",
            nines::generate::microservices(10_000, 42),
            16_384,
        ),
        ("any_of-5000", wide_any_of(5000), 16_384),
    ];
    for (name, text, trials) in models {
        let model = nines::model::parse(&text).unwrap_or_else(|p| panic!("{p:#?}"));
        let sampled = montecarlo::sampled_components(&model) as u64;
        group.throughput(Throughput::Elements(trials * sampled));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            group.bench_function(BenchmarkId::new(name, format!("{threads}-thread")), |b| {
                b.iter(|| {
                    pool.install(|| montecarlo::simulate(black_box(&model), trials, 1, &|_| {}))
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
