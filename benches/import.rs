//! Issue 23's formerly quadratic cases, each at a size and twice it (the
//! linearity test `tests/linear.rs` asserts the ratio on a debug build;
//! this measures a release one): `import traces` of traced names that the
//! name rule maps to one base, `import k8s` of such workloads, `--merge`
//! and `check --observed` (drift) of a model and traces of the same size,
//! and `retry-storm` on a chain of retrying components (the 12,000
//! links, under 1 s). Before: 10,000 names took 9.2 s, 5,000 workloads
//! 4.7 s, the 12,000-link chain 5.4 s (debug builds).
//!
//! Run briefly: `cargo bench --bench import -- --warm-up-time 1
//! --measurement-time 5`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::generate::{merge_inputs, one_base_manifests, one_base_traces, retry_chain};
use nines::import::{self, Source, TraceOptions};

fn source(text: String) -> Vec<Source> {
    vec![Source {
        name: "input".to_owned(),
        text,
    }]
}

fn options() -> TraceOptions {
    TraceOptions {
        window: 3600.0,
        window_text: "1h".to_owned(),
        ..TraceOptions::default()
    }
}

fn bench_import(c: &mut Criterion) {
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    for n in [5_000, 10_000] {
        let sources = source(one_base_traces(n));
        group.bench_with_input(BenchmarkId::new("traces-one-base", n), &sources, |b, s| {
            b.iter(|| black_box(import::traces(s, &options()).expect("valid").model.len()));
        });
        let sources = source(one_base_manifests(n));
        group.bench_with_input(BenchmarkId::new("k8s-one-base", n), &sources, |b, s| {
            b.iter(|| {
                black_box(
                    import::kubernetes(s, &import::Options::default())
                        .expect("valid")
                        .model
                        .len(),
                )
            });
        });
    }
    group.finish();
}

fn bench_merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    for n in [5_000, 10_000] {
        let (model, traces) = merge_inputs(n);
        let graph = import::traces(&source(traces), &options())
            .expect("valid")
            .graph;
        group.bench_with_input(BenchmarkId::new("merge", n), &model, |b, model| {
            b.iter(|| {
                black_box(
                    import::merge::merge(model, &graph, 2.0)
                        .map(|m| m.model.len())
                        .ok(),
                )
            });
        });
        let parsed = nines::model::parse(&model).expect("valid");
        group.bench_with_input(BenchmarkId::new("drift", n), &parsed, |b, model| {
            b.iter(|| black_box(nines::analyze::drift::findings(model, &graph, 2.0).len()));
        });
    }
    group.finish();
}

fn bench_retry_storm(c: &mut Criterion) {
    let mut group = c.benchmark_group("retry-storm");
    group.sample_size(10);
    for n in [6_000, 12_000] {
        let text = retry_chain(n);
        group.bench_with_input(BenchmarkId::new("chain", n), &text, |b, text| {
            b.iter(|| {
                let model = nines::model::parse(text).expect("valid");
                let today = nines::model::Date::parse("2026-11-30").expect("a date");
                let mut options = nines::analyze::Options::new(today);
                options.selected = &|rule: &str| rule == "retry-storm";
                let audit = nines::analyze::audit(
                    &model,
                    text,
                    nines::engine::scenario::Scenario::default(),
                    options,
                );
                black_box(audit.findings.len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_import, bench_merge, bench_retry_storm);
criterion_main!(benches);
