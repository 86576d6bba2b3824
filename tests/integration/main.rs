//! The one integration-test binary: example models in every format, invalid
//! models and their diagnostics, the command line, generated documents, and
//! properties over random input. Snapshots live in the top-level `snapshots/`.

mod advice;
mod bounds;
mod capacity;
mod ci;
mod cli;
mod cut_sets;
mod docs;
mod examples;
mod experiments;
mod experiments_formats;
mod figures;
mod fuzz;
mod hostile;
mod hostile_perf;
mod html;
mod import;
mod invalid;
mod layers;
mod layouts;
mod merge;
mod merge_layouts;
mod one_state;
mod properties;
mod recover;
mod recover_cases;
mod review;
mod rules;
mod sarif;
mod scenarios;
mod scram;
mod simulate;
mod slow;
mod state;
mod trace_inputs;
mod traces;
mod verify;

use clap::Parser;
use nines::cli::{CheckArgs, Cli, FailOn, Format, Outcome, Terminal, check_source, run};

/// A fresh folder under the system's temporary folder for one test
/// (`nines-<test>-<pid>`), removed when dropped, also when the test fails.
/// It reads as the folder's path (`dir.join("m.yaml")`).
pub(crate) struct Scratch(std::path::PathBuf);

impl Scratch {
    pub(crate) fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("nines-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The built `nines` binary, for the tests that need a real process (exit
/// codes, standard input, environment, threads): run from the crate root,
/// without colour and without a `COLUMNS` from the caller's shell.
pub(crate) fn binary() -> std::process::Command {
    let mut command = std::process::Command::new(insta_cmd::get_cargo_bin("nines"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS");
    command
}

/// Insta settings shared by every snapshot: the top-level folder, no module
/// prefix, so names read `check-json@web-shop.yaml.snap`.
pub(crate) fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

/// What one in-process run printed and returned.
pub(crate) struct Run {
    pub(crate) outcome: Outcome,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `body` on a terminal of 80 columns without colour and collects what
/// it wrote: the one in-process harness of every test here.
pub(crate) fn capture(body: impl FnOnce(&mut Terminal) -> Outcome) -> Run {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = {
        let mut terminal = Terminal::plain(&mut out, &mut err);
        body(&mut terminal)
    };
    Run {
        outcome,
        stdout: String::from_utf8(out).expect("utf-8 stdout"),
        stderr: String::from_utf8(err).expect("utf-8 stderr"),
    }
}

/// `nines ARGS…` in process (see [`capture`]).
pub(crate) fn nines(args: &[&str]) -> Run {
    let cli = Cli::try_parse_from(std::iter::once(&"nines").chain(args)).expect("valid arguments");
    capture(|terminal| run(cli, terminal))
}

/// The arguments of `nines check NAME --format F --only …` on a fixed day
/// (every rule when `only` is empty).
pub(crate) fn check_args(name: &str, format: Format, only: &[String]) -> CheckArgs {
    CheckArgs {
        model: name.to_owned(),
        format,
        baseline: None,
        fail_on: FailOn::Error,
        only: only.to_vec(),
        skip: Vec::new(),
        today: Some("2026-11-30".to_owned()),
        observed: Vec::new(),
        window: "1h".to_owned(),
        load_factor: 2.0,
    }
}

/// `nines check` of `text` as the file `name`, in process, on a fixed day.
pub(crate) fn check(name: &str, text: &str, format: Format) -> Run {
    check_only(name, text, format, &[])
}

/// `check` with `--only` these rules (every rule when empty).
pub(crate) fn check_only(name: &str, text: &str, format: Format, only: &[String]) -> Run {
    let args = check_args(name, format, only);
    capture(|terminal| check_source(name, text, &args, terminal))
}

/// The example models (`models/*.yaml`), sorted by name.
pub(crate) fn example_models() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
}

/// Says on the terminal that a test did not run and why. The test harness
/// captures `println!`, so this writes to the process's standard error
/// directly: a skip is visible in every `cargo test` run, never silent.
pub(crate) fn skip(reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped: {reason}");
}
