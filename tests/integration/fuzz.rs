//! Fuzz targets, one per parser the command line exposes: the model (YAML
//! or JSON, `check`), Kubernetes manifests (`import k8s`), Jaeger and
//! Zipkin dependency lists and Prometheus query results and text
//! (`import traces`), a model to merge into (`import traces --merge`), a
//! baseline (`check --baseline`) and `--set` values (`what-if`). Inputs are
//! random bytes and structured mutations of the fixtures (bytes flipped,
//! hostile tokens inserted, ranges cut or doubled, files cut short or
//! spliced). Each input runs the built binary, so a panic, an abort or a
//! stack overflow is caught as the exit it is: every run must exit 0, 1 or
//! 2, within [`TIMEOUT`] and under [`MEMORY_KB`] of address space. `cargo
//! fuzz` needs a nightly toolchain; this runs on the stable one, in `cargo
//! test` (a few cases per target) and in full in `.ci/run`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::Scratch;

/// The longest one run may take (a debug build on a busy machine).
const TIMEOUT: Duration = Duration::from_secs(30);

/// The address space one run may use: twice the 64 MiB cap on a file times
/// the tree built from it, with room for the threads' stacks.
const MEMORY_KB: u64 = 4 * 1024 * 1024;

/// Text that parsers trip on.
const TOKENS: &[&str] = &[
    "\0",
    "\r",
    "\r\n",
    "\u{feff}",
    "\u{202e}",
    "\u{1b}[2J",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "\\",
    ",",
    ": ",
    "- ",
    "? ",
    "#",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!str ",
    "!x ",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "|\n",
    ">-\n",
    "\t",
    "    ",
    "\n  ",
    "1e308",
    "-1",
    "NaN",
    ".inf",
    "0x1F",
    "99.9%",
    "18446744073709551616",
    "\"callCount\": ",
    "\"parent\": \"",
    "{\"data\": [",
    "le=\"+Inf\"",
    "client=\"a\",",
    "} 1e308\n",
    "traces_service_graph_request_total{",
    "kind: Deployment\n",
    "apiVersion: v1\n",
    "metadata: {name: x}\n",
    "depends_on: [",
    "components:\n",
    "  x: {}\n",
    "replicas: ",
    "\"id\": \"",
    "\"findings\": [",
];

/// One change to a seed.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, &'static str),
    Delete(usize, usize),
    Double(usize, usize),
    Truncate(usize),
    Splice(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Flip(at, b)),
        (any::<usize>(), prop::sample::select(TOKENS)).prop_map(|(at, t)| Mutation::Insert(at, t)),
        (any::<usize>(), 1..64usize).prop_map(|(at, n)| Mutation::Delete(at, n)),
        (any::<usize>(), 1..256usize).prop_map(|(at, n)| Mutation::Double(at, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(seed, at)| Mutation::Splice(seed, at)),
    ]
}

/// An input: a mutated seed, or random bytes.
fn input(seeds: usize) -> impl Strategy<Value = (Option<usize>, Vec<Mutation>, Vec<u8>)> {
    prop_oneof![
        4 => (0..seeds, prop::collection::vec(mutation(), 1..8))
            .prop_map(|(seed, changes)| (Some(seed), changes, Vec::new())),
        1 => prop::collection::vec(any::<u8>(), 0..512).prop_map(|bytes| (None, Vec::new(), bytes)),
    ]
}

fn mutate(seeds: &[Vec<u8>], seed: usize, changes: &[Mutation]) -> Vec<u8> {
    let mut bytes = seeds[seed].clone();
    for change in changes {
        let at = |n: usize, len: usize| if len == 0 { 0 } else { n % (len + 1) };
        match *change {
            Mutation::Flip(n, b) if !bytes.is_empty() => {
                let i = n % bytes.len();
                bytes[i] = b;
            }
            Mutation::Insert(n, token) => {
                let i = at(n, bytes.len());
                bytes.splice(i..i, token.bytes());
            }
            Mutation::Delete(n, len) => {
                let i = at(n, bytes.len());
                let end = (i + len).min(bytes.len());
                bytes.drain(i..end);
            }
            Mutation::Double(n, len) => {
                let i = at(n, bytes.len());
                let end = (i + len).min(bytes.len());
                let part = bytes[i..end].to_vec();
                bytes.splice(end..end, part);
            }
            Mutation::Truncate(n) => bytes.truncate(at(n, bytes.len())),
            Mutation::Splice(other, n) => {
                let other = &seeds[other % seeds.len()];
                let i = at(n, bytes.len());
                let j = at(n, other.len());
                bytes.truncate(i);
                bytes.extend_from_slice(&other[j..]);
            }
            Mutation::Flip(..) => {}
        }
    }
    bytes
}

/// Runs the binary bounded in time and memory; its exit code, or why it
/// had none.
fn run_bounded(args: &[&str]) -> Result<i32, String> {
    let binary = env!("CARGO_BIN_EXE_nines");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KB} && exec \"$0\" \"$@\""))
        .arg(binary)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the binary: {e}"))?;
    // Read while it runs: a child whose errors fill the pipe would wait
    // for a reader forever (a mutated trace file once printed 85 kB).
    let reader = child.stderr.take().map(|mut err| {
        std::thread::spawn(move || {
            use std::io::Read as _;
            let mut stderr = Vec::new();
            let _ = err.read_to_end(&mut stderr);
            String::from_utf8_lossy(&stderr).into_owned()
        })
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let stderr = reader.and_then(|r| r.join().ok()).unwrap_or_default();
            return status
                .code()
                .ok_or_else(|| format!("killed by a signal: {status}\n{stderr}"));
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One parser: its seeds and the command that reads an input file.
struct Target {
    name: &'static str,
    seeds: Vec<Vec<u8>>,
    args: fn(&str) -> Vec<String>,
}

fn files(dir: &str, ends: &[&str]) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| ends.iter().any(|e| p.to_string_lossy().ends_with(e)))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn targets() -> Vec<Target> {
    let mut models = files("models", &[".yaml"]);
    models.extend(
        files("tests/fixtures/invalid", &[".yaml"])
            .into_iter()
            .take(20),
    );
    let traces = files("tests/fixtures/traces", &[".json", ".txt"]);
    let baseline = std::process::Command::new(env!("CARGO_BIN_EXE_nines"))
        .args(["baseline", "models/web-shop.yaml", "-o", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("nines baseline runs")
        .stdout;
    vec![
        Target {
            name: "model (check)",
            seeds: models.clone(),
            args: |f| vec!["check".into(), f.into()],
        },
        Target {
            name: "manifests (import k8s)",
            seeds: files("tests/fixtures/import", &[".yaml"]),
            args: |f| vec!["import".into(), "k8s".into(), f.into()],
        },
        Target {
            name: "dependency lists and metrics (import traces)",
            seeds: traces,
            args: |f| vec!["import".into(), "traces".into(), f.into()],
        },
        Target {
            name: "a model to merge into (import traces --merge)",
            seeds: models,
            args: |f| {
                vec![
                    "import".into(),
                    "traces".into(),
                    "tests/fixtures/traces/hotrod-zipkin.json".into(),
                    "--merge".into(),
                    f.into(),
                ]
            },
        },
        Target {
            name: "baseline (check --baseline)",
            seeds: vec![baseline],
            args: |f| {
                vec![
                    "check".into(),
                    "models/web-shop.yaml".into(),
                    "--baseline".into(),
                    f.into(),
                ]
            },
        },
        Target {
            name: "--set values (what-if)",
            seeds: [
                "frontend.availability=99.9%",
                "checkout.instances=4",
                "cart.load=12",
                "payments.capacity=1e308",
            ]
            .iter()
            .chain(EDGE_SETS.iter().map(|(arg, _)| arg))
            .map(|s| s.as_bytes().to_vec())
            .collect(),
            // The file holds the value: read back into the argument below.
            args: |f| {
                vec![
                    "what-if".into(),
                    "models/web-shop.yaml".into(),
                    "--set".into(),
                    format!("@{f}"),
                ]
            },
        },
    ]
}

/// `--set` in the edge form on `models/web-shop.yaml`, each with what it
/// must do: apply (`Ok`), or exit 2 with an error saying these words.
/// They are seeds of the `--set` target too.
const EDGE_SETS: &[(&str, Result<(), &[&str]>)] = &[
    ("checkout.depends_on[payments].timeout=1s", Ok(())),
    ("checkout.depends_on[payments].retries=3", Ok(())),
    (
        "checkout.depends_on[paymnts].timeout=1s",
        Err(&[
            "`checkout` has no edge to `paymnts`",
            "did you mean `payments`?",
        ]),
    ),
    (
        // A component, but not one checkout calls.
        "checkout.depends_on[postgres-replica].timeout=1s",
        Err(&[
            "`checkout` has no edge to `postgres-replica`",
            "its edges call `cart`, `postgres-primary`, `payments`",
        ]),
    ),
    (
        "checkout.depends_on[payments.timeout=1s",
        Err(&["the `[` of `depends_on[` is not closed with `]`"]),
    ),
    (
        "checkout.depends_on[].timeout=1s",
        Err(&["no target between `depends_on[` and `]`"]),
    ),
    (
        "checkout.depends_on[payments]timeout=1s",
        Err(&["no `.FIELD` after `depends_on[TARGET]`"]),
    ),
    (
        "checkout.depends_on[payments].timeout.x=1s",
        Err(&["`timeout.x` is not one field of the edge"]),
    ),
    (
        ".depends_on[payments].timeout=1s",
        Err(&["no component before `.depends_on[`"]),
    ),
    (
        "checkot.depends_on[payments].timeout=1s",
        Err(&["no component is called `checkot` (did you mean `checkout`?)"]),
    ),
    (
        "checkout.depends_on[payments].timout=1s",
        Err(&[
            "unknown key `timout` in a dependency",
            "did you mean `timeout`?",
        ]),
    ),
    (
        "checkout.depends_on[payments].timeout=fast",
        Err(&["`fast` is not a duration"]),
    ),
    (
        "checkout.depends_on[payments].timeout",
        Err(&["no `=` before the value"]),
    ),
];

/// `what-if models/web-shop.yaml --set ARG --format json` by the built
/// binary: its exit code (`None`: killed), the report and the errors.
fn what_if_set(arg: &str) -> (Option<i32>, serde_json::Value, String) {
    let output = crate::binary()
        .args([
            "what-if",
            "models/web-shop.yaml",
            "--format",
            "json",
            "--set",
            arg,
        ])
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    (output.status.code(), report, stderr)
}

/// The message of the finding `id` on one side (`before`, `after`) of a
/// what-if report.
fn message<'a>(report: &'a serde_json::Value, side: &str, id: &str) -> &'a str {
    report[side]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["id"] == id)
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no {id} {side}"))
}

#[test]
fn edge_form_set_seeds_apply_or_exit_2_naming_the_problem() {
    for &(arg, expected) in EDGE_SETS {
        let (code, report, stderr) = what_if_set(arg);
        assert!(!stderr.contains("panicked"), "{arg}: {stderr}");
        match expected {
            Ok(()) => assert_eq!(code, Some(0), "{arg}: {stderr}"),
            Err(words) => {
                assert_eq!(code, Some(2), "{arg}: {stderr}");
                assert_eq!(report, serde_json::Value::Null, "{arg}: nothing analysed");
                for words in words {
                    assert!(stderr.contains(words), "{arg}: no `{words}` in\n{stderr}");
                }
            }
        }
    }
    // A 1s timeout on checkout's call to payments: (1 + 2) × 1s = 3s is
    // within frontend's 5s, so the deadline finding is resolved, and only it.
    let (_, timeout, _) = what_if_set(EDGE_SETS[0].0);
    assert_eq!(
        timeout["resolved"],
        serde_json::json!(["deadline/frontend>checkout"])
    );
    assert_eq!(timeout["introduced"], serde_json::json!([]));
    // One retry more: 4 attempts of 2s, and payments offered 4 × 100.
    let (_, retries, _) = what_if_set(EDGE_SETS[1].0);
    let deadline = "deadline/frontend>checkout";
    assert!(
        message(&retries, "before", deadline).contains("(1 + 2) × 2s = 6s"),
        "{}",
        message(&retries, "before", deadline)
    );
    assert!(
        message(&retries, "after", deadline).contains("(1 + 3) × 2s = 8s"),
        "{}",
        message(&retries, "after", deadline)
    );
    assert!(
        message(&retries, "after", "metastable/payments")
            .contains("λ × k = 400 > C = 1 × 110 = 110"),
        "{}",
        message(&retries, "after", "metastable/payments")
    );
}

/// Runs `cases` inputs through every target; the failures, with their
/// inputs.
fn fuzz(cases: u32) {
    let dir = Scratch::new(&format!("fuzz-{cases}"));
    let file = dir.join("input");
    let file = file.to_str().unwrap().to_owned();
    for target in targets() {
        let seeds = target.seeds.clone();
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&input(seeds.len()), |(seed, changes, random)| {
            let bytes = match seed {
                Some(seed) => mutate(&seeds, seed, &changes),
                None => random,
            };
            let mut args = (target.args)(&file);
            if let Some(last) = args.last_mut()
                && last.starts_with('@')
            {
                // A `--set` value: an argument holds no NUL byte.
                let value: String = String::from_utf8_lossy(&bytes).replace('\0', "");
                *last = value;
            } else {
                std::fs::write(&file, &bytes).unwrap();
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            match run_bounded(&args) {
                Ok(0..=2) => Ok(()),
                Ok(code) => Err(TestCaseError::fail(format!("exit code {code}"))),
                Err(why) => Err(TestCaseError::fail(why)),
            }
        });
        if let Err(failure) = result {
            panic!("{}: {failure}", target.name);
        }
    }
}

#[test]
fn every_parser_takes_a_few_mutated_inputs() {
    fuzz(6);
}

#[test]
#[ignore = "slow: 800 inputs per parser, each a run of the binary (about 35 s in the test build); .ci/run runs it"]
fn every_parser_takes_hundreds_of_mutated_inputs() {
    fuzz(800);
}
