//! The bracket of every hostile shape under 200 components, with SCRAM's
//! figure beside it where SCRAM finishes: `cargo run --release --example
//! hostile_corpus` (add `scram` to run SCRAM too, `SHAPE` text to keep only
//! the shapes whose name contains it).
//!
//! Prints one markdown row per shape: components, correlated events, how
//! the figure was obtained, the bracket of the unavailability (carried in
//! failure space, so 5e-27 keeps its digits), its width relative to the
//! unavailability, the wall time of `engine::availability`, the peak
//! memory of the process, and SCRAM's unavailability. Each shape runs in a
//! child process of its own (`--shape=N`), so its peak resident memory
//! (`VmHWM` in `/proc/self/status`, parsing included) is its own.

#![allow(
    clippy::disallowed_macros,
    reason = "a command-line example: printing is its job"
)]

use std::process::Command;
use std::time::{Duration, Instant};

use nines::generate;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scram = args.iter().any(|a| a == "scram");
    if let Some(index) = args
        .iter()
        .find_map(|a| a.strip_prefix("--shape=")?.parse().ok())
    {
        row(index, scram);
        return;
    }
    let filter: Vec<&String> = args.iter().filter(|a| *a != "scram").collect();
    println!(
        "| shape | components | events | method | unavailability from | to | width / unavailability | time | peak memory | SCRAM unavailability |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let me = std::env::current_exe().expect("the example's own path");
    for (index, (name, _)) in generate::hostile_corpus().iter().enumerate() {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let mut child = Command::new(&me);
        child.arg(format!("--shape={index}"));
        if scram {
            child.arg("scram");
        }
        let out = child.output().expect("the example runs itself");
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            println!("| {name} | failed: {} |||||||||", out.status);
        }
    }
}

/// The row of shape `index`, in this process.
fn row(index: usize, scram: bool) {
    let (name, text) = generate::hostile_corpus().swap_remove(index);
    let model = nines::model::parse(&text).expect("a valid generated model");
    let start = Instant::now();
    let figures = nines::engine::availability(&model);
    let elapsed = start.elapsed();
    let peak = peak_memory();
    let (_, f) = &figures[0];
    let relative = if f.unavailability_upper > 0.0 {
        (f.unavailability_upper - f.unavailability_lower) / f.unavailability_upper
    } else {
        0.0
    };
    let theirs = if scram {
        let dir = std::env::temp_dir().join("nines-hostile-corpus");
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let file = dir.join(format!("{}.xml", name.replace([' ', ','], "-")));
        std::fs::write(&file, nines::engine::mef::export(&model)).expect("writable");
        run_scram(&file)
    } else {
        String::from("-")
    };
    println!(
        "| {name} | {} | {} | {:?} | {:.4e} | {:.4e} | {relative:.2e} | {:.2} s | {peak} | {theirs} |",
        model.components.len(),
        f.events,
        f.method,
        f.unavailability_lower,
        f.unavailability_upper,
        elapsed.as_secs_f64(),
    );
    if let Some(why) = &f.why {
        println!("|  why: {why} ||||||||||");
    }
}

/// This process's peak resident memory so far (`VmHWM`), in MB, or `-`
/// where `/proc` has none.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} MB", kib * 1024.0 / 1e6))
        })
        .unwrap_or_else(|| String::from("-"))
}

/// SCRAM's probability of the first top gate, or why there is none (60 s
/// at most).
fn run_scram(file: &std::path::Path) -> String {
    let child = Command::new("timeout")
        .args(["60", "scram", "--bdd", "--probability", "true"])
        .arg(file)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("timeout and scram on the PATH");
    let start = Instant::now();
    let out = child.wait_with_output().expect("scram ran");
    if !out.status.success() {
        return format!(
            "none ({:.0} s)",
            start.elapsed().max(Duration::ZERO).as_secs_f64()
        );
    }
    let report = String::from_utf8_lossy(&out.stdout);
    report
        .split("probability=\"")
        .nth(1)
        .and_then(|p| p.split('"').next())
        .map_or_else(
            || "unread".to_owned(),
            |p| format!("{p} ({:.1} s)", start.elapsed().as_secs_f64()),
        )
}
