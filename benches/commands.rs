//! Every command issue 29 gives a budget of 3× `check` that has no bench of
//! its own, against `check` in the same run, each as the command line runs
//! it (`nines::cli::run`, the model read from a file): `experiments` (the
//! plan as JSON), `graph` (Mermaid and dot), `baseline` (to standard
//! output) and `simulate --trials 1000000` (on a large model it runs the
//! fewer trials its work bound allows: 78,848 at 10k), on the generated
//! microservice model of `benches/check.rs`. `check` here frees its model
//! and audit, which the binary skips, so the others' ratios to it read
//! slightly low. The ratio to `check` is the figure
//! (docs/performance.md). `what-if`, `report` and `recover` have their own
//! benches. Run briefly:
//! `cargo bench --bench commands -- --warm-up-time 1 --measurement-time 5`;
//! 100,000 components only with `NINES_BENCH_LARGE=1`.

use std::hint::black_box;
use std::path::PathBuf;

use clap::Parser;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nines::cli::{Cli, Outcome, Terminal, run};

fn sizes() -> Vec<usize> {
    let mut sizes = vec![10_000];
    if std::env::var_os("NINES_BENCH_LARGE").is_some() {
        sizes.push(100_000);
    }
    sizes
}

/// The command line `args` (after `nines`): its outcome and its output's
/// length.
fn command(args: &[&str]) -> (Outcome, usize) {
    let cli = Cli::try_parse_from(std::iter::once("nines").chain(args.iter().copied()))
        .expect("a valid command line");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut terminal = Terminal::plain(&mut out, &mut err);
    let outcome = run(cli, &mut terminal);
    (outcome, out.len() + err.len())
}

/// The generated model of `size` components, written once to the
/// system's temporary folder.
fn model_file(size: usize) -> PathBuf {
    let path = std::env::temp_dir().join(format!("nines-bench-commands-{size}.yaml"));
    std::fs::write(&path, nines::generate::microservices(size, 42)).expect("a writable temp dir");
    path
}

fn bench_commands(c: &mut Criterion) {
    let mut group = c.benchmark_group("commands");
    group.sample_size(10);
    for size in sizes() {
        let path = model_file(size);
        let model = path.to_str().expect("a UTF-8 temp path");
        let today = "2026-11-30";
        let runs: [(&str, Vec<&str>); 6] = [
            (
                "check",
                vec!["check", model, "--format", "json", "--today", today],
            ),
            (
                "experiments",
                vec!["experiments", model, "--format", "json", "--today", today],
            ),
            ("graph_mermaid", vec!["graph", model, "--format", "mermaid"]),
            ("graph_dot", vec!["graph", model, "--format", "dot"]),
            (
                "baseline",
                vec!["baseline", model, "-o", "-", "--today", today],
            ),
            (
                "simulate_1e6",
                vec!["simulate", model, "--trials", "1000000"],
            ),
        ];
        for (name, args) in runs {
            // A command that cannot run would be timed as if it did.
            let (outcome, _) = command(&args);
            assert_ne!(outcome, Outcome::Invalid, "{name} {args:?}");
            group.bench_with_input(BenchmarkId::new(name, size), &args, |b, args| {
                b.iter(|| black_box(command(args)));
            });
        }
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

criterion_group!(benches, bench_commands);
criterion_main!(benches);
