//! `nines import traces` and `check --observed`: the Jaeger `HotROD` topology
//! written by hand in every format (`tests/fixtures/traces/`) gives one
//! model; the merge into the `import k8s` skeleton of the same services;
//! drift; located errors; and no panic or invalid model on any input.
//!
//! `HotROD`: frontend → customer, driver, route; customer → mysql; driver →
//! redis. The fixtures count, over one hour, 360 requests to customer and
//! driver, 10 route calls per request (3600), one mysql query per customer
//! request (360) and 15 redis calls per driver request (5400).

use std::fmt::Write as _;

use nines::cli::{Format, Outcome};
use nines::import::{self, Source, TraceOptions};
use nines::model::{Model, parse};
use proptest::prelude::*;

use crate::{Run, check, nines, settings};

const FIXTURES: &str = "tests/fixtures/traces";
const FORMATS: [&str; 4] = [
    "hotrod-jaeger.json",
    "hotrod-zipkin.json",
    "hotrod-prometheus.json",
    "hotrod-metrics.txt",
];

fn import_traces(file: &str) -> Run {
    let path = format!("{FIXTURES}/{file}");
    nines(&["import", "traces", &path, "--system", "hotrod"])
}

/// The model text without its comments and its `latency` lines (only the
/// histograms measure latency): what the formats must agree on.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" #") {
            Some(at) => line[..at].trim_end(),
            None => line,
        })
        .filter(|line| {
            !line.trim_start().starts_with('#') && !line.trim_start().starts_with("latency:")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn edge<'a>(model: &'a Model, caller: &str, target: &str) -> &'a nines::model::Edge {
    let component = model
        .components
        .iter()
        .find(|c| c.name == caller)
        .unwrap_or_else(|| panic!("no {caller}"));
    component
        .depends_on
        .iter()
        .find(|e| e.targets.iter().any(|&t| model.component(t).name == target))
        .unwrap_or_else(|| panic!("no {caller} → {target}"))
}

#[test]
fn every_format_of_hotrod_gives_the_same_model() {
    let jaeger = import_traces(FORMATS[0]);
    assert_eq!(jaeger.outcome, Outcome::Pass, "{}", jaeger.stderr);
    let model = parse(&jaeger.stdout).unwrap_or_else(|p| panic!("{p:?}\n{}", jaeger.stdout));
    let names: Vec<&str> = model.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["customer", "driver", "frontend", "mysql", "redis", "route"]
    );
    let entrypoints: Vec<&str> = model
        .entrypoints
        .iter()
        .map(|&e| model.component(e).name.as_str())
        .collect();
    assert_eq!(entrypoints, ["frontend"], "nothing calls frontend");
    // customer receives 360 calls and makes 360 to mysql: 1 per request.
    assert!((edge(&model, "customer", "mysql").calls - 1.0).abs() < 1e-12);
    // driver receives 360 and makes 5400 to redis: 5400 / 360 = 15.
    assert!((edge(&model, "driver", "redis").calls - 15.0).abs() < 1e-12);
    // frontend's own rate is not in the traces: `calls` stays the default 1
    // and is not written.
    assert!(
        edge(&model, "frontend", "route")
            .fields
            .get("calls")
            .is_none()
    );
    // route receives 3600 calls in 3600 s: 1 per second.
    assert!(
        jaeger.stdout.contains("    # load: 1   "),
        "{}",
        jaeger.stdout
    );
    // redis: 5400 / 3600 = 1.5 per second.
    assert!(
        jaeger.stdout.contains("    # load: 1.5   "),
        "{}",
        jaeger.stdout
    );

    for file in &FORMATS[1..] {
        let other = import_traces(file);
        assert_eq!(other.outcome, Outcome::Pass, "{file}: {}", other.stderr);
        assert_eq!(
            without_comments(&other.stdout),
            without_comments(&jaeger.stdout),
            "{file} gives another model"
        );
    }
}

#[test]
fn each_format_says_what_only_it_measures() {
    settings().bind(|| {
        for file in FORMATS {
            let run = import_traces(file);
            assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
            let checked = check(file, &run.stdout, Format::Json);
            assert_ne!(checked.outcome, Outcome::Invalid, "{}", checked.stderr);
            assert_eq!(import_traces(file).stdout, run.stdout, "not deterministic");
            insta::assert_snapshot!(
                format!("import-traces@{file}"),
                format!(
                    "---- stderr ----\n{}---- model ----\n{}",
                    run.stderr, run.stdout
                )
            );
        }
    });
    // Zipkin counts 54 errors of 5400 redis calls: 99% without error.
    assert!(
        import_traces(FORMATS[1])
            .stdout
            .contains("5400 calls in 1h; 99% without error")
    );
    // The histogram: 99% of 360 is 356.4 calls, first reached at le=1 (358).
    let metrics = import_traces(FORMATS[3]).stdout;
    assert!(metrics.contains("p99 ≤ 1s: a starting point for `timeout`"));
    // And mysql's latency: half of 360 is 180, first reached at le=0.5
    // (324); the p99 at le=1.
    assert!(
        metrics.contains("    latency: {p50: 500ms, p99: 1s}"),
        "{metrics}"
    );
}

#[test]
fn spans_give_each_service_its_own_time() {
    // Ten traces frontend → customer → mysql; in trace i (1 to 10) mysql
    // answers in 10i ms, customer in 10i + 20 ms and frontend in 10i + 25 +
    // i ms. Own times: mysql 10, 20 … 100 ms (p50 by nearest rank the 5th,
    // 50 ms; p99 the 10th, 100 ms); customer 20 ms each; frontend
    // 5 + i = 6 … 15 ms (p50 10 ms, p99 15 ms). Jaeger's and Zipkin's
    // (with shared client and server spans, and mysql only as the remote
    // endpoint of customer's client span) give the same model.
    let runs: Vec<Run> = ["spans-jaeger.json", "spans-zipkin.json"]
        .iter()
        .map(|f| import_traces(f))
        .collect();
    for run in &runs {
        assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
        let model = parse(&run.stdout).unwrap();
        let latency = |name: &str| {
            let c = model.components.iter().find(|c| c.name == name).unwrap();
            let l = c.latency.as_deref().unwrap();
            (
                l.at(nines::model::Percentile::P50).unwrap().0,
                l.at(nines::model::Percentile::P99).unwrap().0,
            )
        };
        assert_eq!(latency("mysql"), (50, 100));
        assert_eq!(latency("customer"), (20, 20));
        assert_eq!(latency("frontend"), (10, 15));
        assert!((edge(&model, "customer", "mysql").calls - 1.0).abs() < 1e-12);
    }
    assert_eq!(
        without_comments(&runs[0].stdout),
        without_comments(&runs[1].stdout)
    );
}

#[test]
fn the_window_divides_the_counts() {
    let path = format!("{FIXTURES}/{}", FORMATS[0]);
    let run = nines(&["import", "traces", &path, "--window", "30m"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    // route: 3600 calls in 1800 s = 2 per second.
    assert!(run.stdout.contains("    # load: 2   "), "{}", run.stdout);
    // Calls per request do not depend on the window.
    assert!(run.stdout.contains("{target: redis, calls: 15}"));
}

#[test]
fn entrypoint_overrides_the_roots() {
    let path = format!("{FIXTURES}/{}", FORMATS[0]);
    let run = nines(&["import", "traces", &path, "--entrypoint", "driver"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(run.stdout.contains("entrypoints: [driver]"));
    let run = nines(&["import", "traces", &path, "--entrypoint", "nope"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("`nope` is not a service of the traces"),
        "{}",
        run.stderr
    );
}

/// The k8s skeleton of `HotROD`, then the metrics merged into it.
fn merged() -> (String, Run) {
    let skeleton = nines(&["import", "k8s", &format!("{FIXTURES}/hotrod-k8s.yaml")]);
    assert_eq!(skeleton.outcome, Outcome::Pass, "{}", skeleton.stderr);
    let dir = crate::Scratch::new("merge");
    let file = dir.join("hotrod.yaml");
    std::fs::write(&file, &skeleton.stdout).unwrap();
    let run = nines(&[
        "import",
        "traces",
        &format!("{FIXTURES}/hotrod-metrics.txt"),
        "--merge",
        file.to_str().unwrap(),
    ]);
    (skeleton.stdout, run)
}

#[test]
fn merging_into_the_k8s_skeleton_only_adds_lines() {
    let (skeleton, run) = merged();
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let model = parse(&run.stdout).unwrap_or_else(|p| panic!("{p:?}\n{}", run.stdout));
    // The edge k8s found stays; those only traces know are added.
    edge(&model, "customer", "mysql");
    assert!((edge(&model, "driver", "redis").calls - 15.0).abs() < 1e-12);
    edge(&model, "frontend", "route");
    // route → redis is in the manifests (REDIS_ADDR) but not in the traces:
    // kept and reported.
    edge(&model, "route", "redis");
    assert!(
        run.stderr.contains("not seen: route → redis"),
        "{}",
        run.stderr
    );
    // Every line of the skeleton is still there, in order, but the five
    // `# load: N` placeholders the measured rates replace.
    let merged: Vec<&str> = run.stdout.lines().collect();
    let mut at = 0;
    let mut replaced = 0;
    for line in skeleton.lines() {
        if line.trim_start().starts_with("# load: N") && merged[at] != line {
            assert!(
                merged[at].trim_start().starts_with("# load: "),
                "{}",
                merged[at]
            );
            replaced += 1;
            at += 1;
            continue;
        }
        let found = merged[at..].iter().position(|l| *l == line);
        at += found.unwrap_or_else(|| panic!("lost: {line}")) + 1;
    }
    assert_eq!(
        replaced, 5,
        "customer, driver, mysql, redis, route have measured loads"
    );
    settings().bind(|| {
        insta::assert_snapshot!(
            "import-traces-merge@hotrod-k8s.yaml",
            format!(
                "---- stderr ----\n{}---- diff ----\n{}",
                run.stderr,
                diff(&skeleton, &run.stdout)
            )
        );
    });
}

/// A line diff (longest common subsequence): `-` for a line of `before`
/// that is gone, `+` with its line number for a line of `after` that is
/// new. What a reviewer sees.
fn diff(before: &str, after: &str) -> String {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            let _ = writeln!(out, "     - {}", old[i]);
            i += 1;
        } else {
            let _ = writeln!(out, "{:>4} + {}", j + 1, new[j]);
            j += 1;
        }
    }
    out
}

#[test]
fn merging_twice_changes_nothing_more() {
    let (_, first) = merged();
    let dir = crate::Scratch::new("merge2");
    let file = dir.join("hotrod.yaml");
    std::fs::write(&file, &first.stdout).unwrap();
    let again = nines(&[
        "import",
        "traces",
        &format!("{FIXTURES}/hotrod-metrics.txt"),
        "--merge",
        file.to_str().unwrap(),
    ]);
    assert_eq!(again.outcome, Outcome::Pass, "{}", again.stderr);
    // The loads are rewritten in place with the same text; no edge is added.
    assert_eq!(again.stdout, first.stdout);
    assert!(
        again.stderr.contains("added 0 components, 0 edges"),
        "{}",
        again.stderr
    );
}

#[test]
fn merge_keeps_one_line_lists_and_reports_differing_loads() {
    let dir = crate::Scratch::new("merge3");
    let file = dir.join("m.yaml");
    std::fs::write(
        &file,
        r"# hand-written
system: hotrod
components:
  frontend:
    depends_on: [customer]   # the main path
  customer: {instances: 2}
  mysql: {}
  route:
    capacity: 100
    load: 10     # measured last year
",
    )
    .unwrap();
    let run = nines(&[
        "import",
        "traces",
        &format!("{FIXTURES}/hotrod-jaeger.json"),
        "--merge",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(run.stdout.starts_with("# hand-written\n"));
    // The flow list gets the names; the measurements go on a comment above.
    assert!(
        run.stdout
            .contains("    depends_on: [customer, driver, route]   # the main path\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("    # added from traces: frontend → driver: 360 calls in 1h;")
    );
    // route: 3600 calls in 1 h = 1 per second against a load of 10: 10× apart.
    assert!(
        run.stderr
            .contains("load differs: route has load 10 in the model, 1 per second measured"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("    load: 10     # measured last year\n")
    );
    // A one-line component takes the edge inside its braces, the
    // measurements on a comment line above; its load is listed, not
    // written (a comment cannot go inside the line).
    assert!(
        run.stdout.contains(
            "  # added from traces: customer → mysql: 360 calls in 1h\n  customer: {instances: 2, depends_on: [{target: mysql, calls: 1}]}\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "measured load of customer: 0.1 per second, not written (the component is written on one line)"
        ),
        "{}",
        run.stderr
    );
    // driver and redis are new: appended as components.
    let model = parse(&run.stdout).unwrap_or_else(|p| panic!("{p:?}\n{}", run.stdout));
    assert!((edge(&model, "driver", "redis").calls - 15.0).abs() < 1e-12);
}

#[test]
fn check_observed_reports_drift() {
    let (skeleton, _) = merged();
    let dir = crate::Scratch::new("drift");
    let file = dir.join("hotrod.yaml");
    std::fs::write(&file, &skeleton).unwrap();
    let run = nines(&[
        "check",
        file.to_str().unwrap(),
        "--observed",
        &format!("{FIXTURES}/hotrod-zipkin.json"),
        "--only",
        "drift",
        "--format",
        "json",
    ]);
    assert_eq!(run.outcome, Outcome::Fail, "{}", run.stderr);
    let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let ids: Vec<(&str, &str)> = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ids,
        [
            ("drift/driver>redis", "error"),
            ("drift/frontend>customer", "error"),
            ("drift/frontend>driver", "error"),
            ("drift/frontend>route", "error"),
            ("drift/route>redis", "note"),
        ]
    );
}

#[test]
fn bad_inputs_are_located_and_exit_2() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "syntax.json",
            "{\"data\": [\n  {\"parent\": \"a\" \"child\": \"b\"}\n]}\n",
            "invalid JSON",
        ),
        (
            "value.json",
            "{\"data\": [\n  {\"parent\": \"a\", \"child\": \"b\", \"callCount\": -3}\n]}\n",
            "`data[0].callCount` must be a count of at least 0, found -3",
        ),
        (
            "missing.json",
            "[\n  {\"parent\": \"a\", \"callCount\": 3}\n]\n",
            "`[0]` has no `child`",
        ),
        (
            "matrix.json",
            "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", \"result\": []}}\n",
            "`data.resultType` must be \"vector\"",
        ),
        (
            "labels.txt",
            "traces_service_graph_request_total{client=\"a\",server=\"b} 3\n",
            "the value of `server` is not closed",
        ),
        ("other.txt", "hello: world\n", "not a dependency list"),
    ];
    let dir = crate::Scratch::new("bad");
    settings().bind(|| {
        for (name, text, expected) in cases {
            let file = dir.join(name);
            std::fs::write(&file, text).unwrap();
            let run = nines(&["import", "traces", file.to_str().unwrap()]);
            assert_eq!(run.outcome, Outcome::Invalid, "{name}");
            assert_eq!(run.stdout, "", "{name}: nothing is written");
            assert!(run.stderr.contains(expected), "{name}: {}", run.stderr);
            let stderr = run.stderr.replace(dir.to_str().unwrap(), "DIR");
            insta::assert_snapshot!(format!("import-traces-error@{name}"), stderr);
        }
    });
}

#[test]
fn an_entry_of_many_lines_is_underlined_on_its_first() {
    // A Jaeger entry of 40 lines with no `parent`: the label points at its
    // opening brace (line 2, column 3) and draws a few lines, not all 40.
    // A fuzzed trace once printed 85 kB of such underlines, more than a
    // pipe holds.
    let mut text = String::from("[\n  {\n");
    for i in 0..38 {
        let _ = writeln!(text, "    \"pad{i}\": {i},");
    }
    text.push_str("    \"child\": \"b\"\n  }\n]\n");
    let dir = crate::Scratch::new("tall");
    let file = dir.join("tall.json");
    std::fs::write(&file, &text).unwrap();
    let run = nines(&["import", "traces", file.to_str().unwrap()]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    assert!(
        run.stderr.contains("`[0]` has no `parent`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("tall.json:2:3]"), "{}", run.stderr);
    assert!(!run.stderr.contains("pad5"), "{}", run.stderr);
    assert!(run.stderr.len() < 2_000, "{} bytes", run.stderr.len());
}

// ---- properties ----

const NAMES: [&str; 10] = [
    "frontend", "api", "a b", "x/y", "instance", "null", "ü", "-db", "A.b_c", "redis",
];

/// A random graph as `(parent, child, calls, errors)`.
fn graph() -> impl Strategy<Value = Vec<(usize, usize, u32, u32)>> {
    prop::collection::vec(
        (0..NAMES.len(), 0..NAMES.len(), 0u32..100_000, 0u32..100),
        0..16,
    )
}

/// The graph in one of the formats.
fn render(format: usize, edges: &[(usize, usize, u32, u32)]) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    match format {
        0 => {
            let items: Vec<String> = edges
                .iter()
                .map(|(a, b, n, _)| {
                    format!(
                        "{{\"parent\":{},\"child\":{},\"callCount\":{n}}}",
                        q(NAMES[*a]),
                        q(NAMES[*b])
                    )
                })
                .collect();
            format!("{{\"data\":[{}]}}", items.join(","))
        }
        1 => {
            let items: Vec<String> = edges
                .iter()
                .map(|(a, b, n, e)| {
                    format!(
                        "{{\"parent\":{},\"child\":{},\"callCount\":{n},\"errorCount\":{}}}",
                        q(NAMES[*a]),
                        q(NAMES[*b]),
                        e.min(n)
                    )
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        2 => {
            let items: Vec<String> = edges
                .iter()
                .map(|(a, b, n, _)| {
                    format!(
                        "{{\"metric\":{{\"client\":{},\"server\":{}}},\"value\":[1,\"{n}\"]}}",
                        q(NAMES[*a]),
                        q(NAMES[*b])
                    )
                })
                .collect();
            format!(
                "{{\"status\":\"success\",\"data\":{{\"resultType\":\"vector\",\"result\":[{}]}}}}",
                items.join(",")
            )
        }
        _ => {
            let mut out = String::from("# TYPE traces_service_graph_request_total counter\n");
            for (a, b, n, e) in edges {
                let labels = format!("client=\"{}\",server=\"{}\"", NAMES[*a], NAMES[*b]);
                let _ = writeln!(out, "traces_service_graph_request_total{{{labels}}} {n}");
                let _ = writeln!(
                    out,
                    "traces_service_graph_request_failed_total{{{labels}}} {e}"
                );
                let _ = writeln!(
                    out,
                    "traces_service_graph_request_server_seconds_bucket{{{labels},le=\"0.5\"}} {}",
                    n / 2
                );
                let _ = writeln!(
                    out,
                    "traces_service_graph_request_server_seconds_bucket{{{labels},le=\"+Inf\"}} {n}"
                );
            }
            out
        }
    }
}

fn skeleton() -> String {
    let run = nines(&["import", "k8s", &format!("{FIXTURES}/hotrod-k8s.yaml")]);
    run.stdout
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_import_is_a_valid_model_and_merges_into_one(
        edges in graph(),
        format in 0usize..4,
        entry in prop::option::of(0..NAMES.len()),
    ) {
        let text = render(format, &edges);
        let sources = [Source { name: "g".into(), text }];
        let mut options = TraceOptions {
            window: 3600.0,
            window_text: "1h".into(),
            ..TraceOptions::default()
        };
        if let Some(e) = entry {
            options.entrypoints.push(NAMES[e].to_owned());
        }
        match import::traces(&sources, &options) {
            Ok(imported) => {
                let model = parse(&imported.model);
                prop_assert!(model.is_ok(), "{:?}\n{}", model.err(), imported.model);
                let checked = check("g.yaml", &imported.model, Format::Json);
                prop_assert!(checked.outcome != Outcome::Invalid, "{}", checked.stderr);
                let again = import::traces(&sources, &options).map(|i| i.model);
                prop_assert_eq!(again.ok(), Some(imported.model.clone()));
                let merged = import::merge::merge(&skeleton(), &imported.graph, 2.0);
                prop_assert!(merged.is_ok(), "{:?}", merged.err());
                let merged = import::merge::merge(&imported.model, &imported.graph, 2.0)
                    .expect("a model merges with its own graph");
                prop_assert!(merged.changes.edges.is_empty());
            }
            Err(import::TraceFailure::Empty(_) | import::TraceFailure::UnknownEntrypoint(..)) => {}
            Err(import::TraceFailure::Problems(p)) => prop_assert!(false, "{p:?}"),
        }
    }

    #[test]
    fn no_input_makes_the_reader_panic(
        text in prop_oneof![
            "\\PC{0,200}",
            prop::collection::vec(prop::sample::select(vec![
                "{", "}", "[", "]", ",", ":", "\"data\"", "\"parent\"", "\"child\"",
                "\"callCount\"", "\"status\"", "\"resultType\"", "\"vector\"", "\"result\"",
                "\"metric\"", "\"value\"", "1", "-1", "1e999", "\"x\"", "null", "true",
                "traces_service_graph_request_total", "{client=\"a\"", ",server=\"b\"}",
                " 3", "\n", "le=\"", "\\", "#",
            ]), 0..40).prop_map(|parts| parts.concat()),
        ],
    ) {
        let sources = [Source { name: "x".into(), text }];
        let options = TraceOptions {
            window: 60.0,
            window_text: "1m".into(),
            ..TraceOptions::default()
        };
        if let Ok(imported) = import::traces(&sources, &options) {
            prop_assert!(parse(&imported.model).is_ok(), "{}", imported.model);
        }
    }
}

#[test]
fn bad_options_are_refused_before_reading() {
    let path = format!("{FIXTURES}/{}", FORMATS[0]);
    let run = nines(&["import", "traces", &path, "--window", "0s"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("--window must be longer than 0"),
        "{}",
        run.stderr
    );
    let run = nines(&["import", "traces", &path, "--window", "an hour"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("--window `an hour` is not a duration"),
        "{}",
        run.stderr
    );
    let run = nines(&["import", "traces", &path, "--load-factor", "0.5"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr
            .contains("--load-factor must be a number above 1"),
        "{}",
        run.stderr
    );
    let run = nines(&["import", "traces", "tests/fixtures/traces/none.json"]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("no such file"), "{}", run.stderr);
}

#[test]
fn a_file_with_no_call_imports_nothing() {
    let dir = crate::Scratch::new("empty");
    let file = dir.join("deps.json");
    // Jaeger answers `"data": null` when it saw no dependency; a self-call
    // is no dependency either.
    std::fs::write(&file, "{\"data\": null}").unwrap();
    let run = nines(&["import", "traces", file.to_str().unwrap()]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("no call between two services"),
        "{}",
        run.stderr
    );
    std::fs::write(
        &file,
        "[{\"parent\": \"a\", \"child\": \"a\", \"callCount\": 4}]",
    )
    .unwrap();
    let run = nines(&["import", "traces", file.to_str().unwrap()]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("`a` calls itself"), "{}", run.stderr);
}

#[test]
fn drift_findings_can_be_accepted() {
    let dir = crate::Scratch::new("accept");
    let file = dir.join("m.yaml");
    // The traces have frontend → customer → mysql, not frontend → backup.
    std::fs::write(
        &file,
        r"system: s
entrypoints: [frontend]
components:
  frontend:
    depends_on: [customer, {target: backup, degradable: true}]
  customer: {depends_on: [mysql]}
  mysql: {}
  backup: {}
accepted:
  - id: drift/frontend>backup
    reason: failover path, called only when customer is down
",
    )
    .unwrap();
    let traces = dir.join("deps.json");
    std::fs::write(
        &traces,
        r#"{"data": [{"parent": "frontend", "child": "customer", "callCount": 10}, {"parent": "customer", "child": "mysql", "callCount": 10}]}"#,
    )
    .unwrap();
    let run = nines(&[
        "check",
        file.to_str().unwrap(),
        "--observed",
        traces.to_str().unwrap(),
        "--only",
        "drift",
        "--format",
        "json",
    ]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = audit["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["id"], "drift/frontend>backup");
    assert_eq!(findings[0]["status"], "accepted");
}
