//! Trace files and manifests as untrusted input (issue 23, items 7 and 10):
//! a service name is written by whoever deploys a service, so it reaches
//! the terminal and the comments of an imported model escaped; counts that
//! overflow are refused where they overflow; carriage returns alone, a
//! byte-order mark, keys and labels written twice are read as the format
//! means or refused, never half-read.

use nines::cli::Outcome;

use crate::{Run, nines};

/// `nines import traces FILE …ARGS` of `text` written to a scratch file.
fn import(scratch: &str, name: &str, text: &[u8], args: &[&str]) -> Run {
    let dir = crate::Scratch::new(scratch);
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let mut all = vec!["import", "traces", file.to_str().unwrap()];
    all.extend_from_slice(args);
    nines(&all)
}

/// The terminal controls and invisible characters of the hostile names.
const HOSTILE: [&str; 9] = [
    "\u{1b}]52;c;aGk=\u{7}",    // OSC 52: a clipboard write
    "\u{1b}[2J",                // a screen clear
    "\u{1b}]8;;https://e\u{7}", // OSC 8: a link
    "\u{9b}31m",                // C1 CSI: red text, without ESC
    "\u{202e}",                 // a right-to-left override
    "\u{202a}",                 // a left-to-right embedding
    "\u{2066}",                 // a left-to-right isolate
    "\u{200b}",                 // a zero-width space
    "\u{200f}",                 // a right-to-left mark
];

/// A character no terminal output may hold raw: a control (C0 but line
/// feed and tab, DEL, C1; ESC among them) or a bidirectional or invisible
/// format character.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}')
}

#[test]
fn check_observed_shows_hostile_service_names_escaped() {
    // The model has web → db; the traces bring a caller it lacks, a target_name
    // it lacks and a service calling itself, each named with one hostile
    // sequence: drift findings and the note name all three.
    let dir = crate::Scratch::new("observed-hostile");
    let model = dir.join("m.yaml");
    std::fs::write(
        &model,
        "system: s\nentrypoints: [web]\ncomponents:\n  web:\n    depends_on: [db]\n  db: {}\n",
    )
    .unwrap();
    for (at, hostile) in HOSTILE.iter().enumerate() {
        let (caller, target_name, own) = (
            format!("lb{hostile}x"),
            format!("q{hostile}y"),
            format!("s{hostile}z"),
        );
        let json = serde_json::json!([
            {"parent": "web", "child": "db", "callCount": 3},
            {"parent": caller, "child": "web", "callCount": 3},
            {"parent": "web", "child": target_name, "callCount": 3},
            {"parent": own, "child": own, "callCount": 3},
        ]);
        let traces = dir.join(format!("t{at}.json"));
        std::fs::write(&traces, json.to_string()).unwrap();
        // Every terminal and CI format, then the table's notes and names.
        for format in ["markdown", "github", "sarif"] {
            let run = nines(&[
                "check",
                model.to_str().unwrap(),
                "--observed",
                traces.to_str().unwrap(),
                "--format",
                format,
            ]);
            assert_eq!(run.outcome, Outcome::Fail, "{format}: {}", run.stderr);
            for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                let raw: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
                assert!(
                    raw.is_empty(),
                    "{format}, {hostile:?}: {raw:?} raw on {what}:\n{text}"
                );
            }
        }
        let run = nines(&[
            "check",
            model.to_str().unwrap(),
            "--observed",
            traces.to_str().unwrap(),
        ]);
        // Findings: drift at least for the new caller and target_name.
        assert_eq!(run.outcome, Outcome::Fail, "{}", run.stderr);
        assert!(run.stderr.contains("calls itself"), "{}", run.stderr);
        // The drift findings name the services by the name rule (`lb`, the
        // sequence's letters and digits, `x`), the note by the traced name,
        // escaped.
        assert!(
            run.stdout.contains("the traces show a service lb")
                && run.stdout.contains("the traces show a service q"),
            "{hostile:?}: {}",
            run.stdout
        );
        assert!(run.stderr.contains("`s\\u{"), "{hostile:?}: {}", run.stderr);
        for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            let raw: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
            assert!(
                raw.is_empty(),
                "{hostile:?}: {raw:?} raw on {what}:\n{text}"
            );
        }
    }
}

#[test]
fn a_service_that_calls_itself_is_noted_once() {
    // Zipkin: one link with a call count and an error count is two samples
    // (calls, failed calls) of the edge web → web: one note, not two.
    let json = r#"[{"parent":"web","child":"web","callCount":3,"errorCount":1},{"parent":"a","child":"b","callCount":3}]"#;
    let run = import("self-once", "t.json", json.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("calls itself").count(),
        1,
        "{}",
        run.stderr
    );
    // Prometheus text: requests, failed requests and 2 buckets of web →
    // web, 4 samples, and 1 request of db → db: one note per edge, 2.
    let text = "traces_service_graph_request_total{client=\"web\",server=\"web\"} 3\n\
        traces_service_graph_request_failed_total{client=\"web\",server=\"web\"} 1\n\
        traces_service_graph_request_server_seconds_bucket{client=\"web\",server=\"web\",le=\"0.1\"} 2\n\
        traces_service_graph_request_server_seconds_bucket{client=\"web\",server=\"web\",le=\"+Inf\"} 3\n\
        traces_service_graph_request_total{client=\"db\",server=\"db\"} 1\n\
        traces_service_graph_request_total{client=\"a\",server=\"b\"} 3\n";
    let run = import("self-once-prom", "t.txt", text.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("calls itself").count(),
        2,
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("`web` calls itself").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn a_service_that_calls_itself_is_named_escaped_on_standard_error() {
    for hostile in HOSTILE {
        let name = format!("web{hostile}x");
        let json = serde_json::json!([
            {"parent": name, "child": name, "callCount": 3},
            {"parent": "a", "child": "b", "callCount": 3},
        ]);
        let run = import("self-call", "t.json", json.to_string().as_bytes(), &[]);
        assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
        // Before, the note printed the name raw: the sequence reached the
        // terminal of `import traces` (and of `check --observed`).
        assert!(run.stderr.contains("calls itself"), "{}", run.stderr);
        for c in hostile.chars().filter(|c| c.is_control() || !c.is_ascii()) {
            assert!(!run.stderr.contains(c), "{:?} in {:?}", c, run.stderr);
        }
        assert!(run.stderr.contains("note: "), "{}", run.stderr);
    }
}

#[test]
fn hidden_and_reordering_characters_are_escaped_in_the_comments_written() {
    // Traces: the traced name is in the comment of its component.
    let json = serde_json::json!([
        {"parent": "web\u{202e}gpj.exe", "child": "db\u{2066}\u{200b}", "callCount": 3},
    ]);
    let run = import("bidi", "t.json", json.to_string().as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(
        run.stdout.contains("# `web\\u{202e}gpj.exe` in the traces"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("# `db\\u{2066}\\u{200b}` in the traces")
    );
    for c in ['\u{202e}', '\u{2066}', '\u{200b}'] {
        assert!(!run.stdout.contains(c), "{c:?} written raw");
    }
    // Manifests: the workload's name is in the comment of its component.
    let dir = crate::Scratch::new("bidi-k8s");
    let file = dir.join("m.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"api\u{202e}\u{2069}x\"\nspec:\n  replicas: 2\n",
    )
    .unwrap();
    let run = nines(&["import", "k8s", file.to_str().unwrap()]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(
        run.stdout.contains("api\\u{202e}\\u{2069}x"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains('\u{202e}') && !run.stdout.contains('\u{2069}'));
}

#[test]
fn counts_that_overflow_are_refused_where_they_overflow() {
    // Each edge twice at 1e308: the sum is infinite, and `calls: inf` was
    // written with exit 0, a model `check` refuses.
    let text = r#"[{"parent":"a","child":"b","callCount":1e308},
{"parent":"b","child":"c","callCount":1},
{"parent":"a","child":"b","callCount":1e308}]"#;
    let run = import("overflow", "t.json", text.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stdout);
    assert_eq!(run.stdout, "", "nothing is written");
    assert!(
        run.stderr
            .contains("the calls of `a` → `b` add up to 1 × 10³⁰⁸ over the inputs"),
        "{}",
        run.stderr
    );
    // Located at the first sample, the one whose sum passes 10^300.
    assert!(run.stderr.contains("t.json:1:2"), "{}", run.stderr);
    // Calls per request that no number holds: 1e300 calls of b against
    // the 1e-300 requests b receives.
    let text = r#"[{"parent":"a","child":"b","callCount":1e-300},{"parent":"b","child":"c","callCount":1e300}]"#;
    let run = import("per-request", "t.json", text.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the calls per request are more than a number holds"),
        "{}",
        run.stderr
    );
}

#[test]
fn carriage_returns_alone_end_exposition_lines() {
    // Three samples on lines ended by `\r` alone: before, the file was one
    // line and every sample after the first was silently dropped.
    let text = "traces_service_graph_request_total{client=\"a\",server=\"b\"} 3\r\
                traces_service_graph_request_total{client=\"a\",server=\"c\"} 4\r\
                traces_service_graph_request_total{client=\"b\",server=\"c\"} 5\r";
    let run = import("cr", "t.txt", text.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(
        run.stderr.contains("imported 3 services and 3 calls"),
        "{}",
        run.stderr
    );
    // An error on the third line is on line 3: the name (34 bytes), the
    // labels (23) and a space put `x5` at column 59.
    let bad = text.replace("} 5", "} x5");
    let run = import("cr-bad", "t.txt", bad.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("t.txt:3:59"), "{}", run.stderr);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let json = b"\xef\xbb\xbf{\"data\":[{\"parent\":\"a\",\"child\":\"b\",\"callCount\":3}]}";
    let run = import("bom", "t.json", json, &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(run.stdout.contains("  a:\n"), "{}", run.stdout);
    let text = b"\xef\xbb\xbftraces_service_graph_request_total{client=\"a\",server=\"b\"} 3\n";
    let run = import("bom-text", "t.txt", text, &[]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    assert!(run.stdout.contains("  a:\n"), "{}", run.stdout);
    // A syntax error after the mark is still located on its character:
    // `x` is byte 12 (the mark's 3, then `{"data": `), column 13 as the
    // diagnostics count.
    let run = import("bom-bad", "t.json", b"\xef\xbb\xbf{\"data\": x}", &[]);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("expected value"), "{}", run.stderr);
    assert!(run.stderr.contains("t.json:1:13"), "{}", run.stderr);
}

#[test]
fn keys_and_labels_written_twice_are_errors() {
    // serde_json keeps the last `parent`, the reader took the first: which
    // one the file means cannot be told.
    let json = r#"{"data":[{"parent":"a","child":"b","parent":"x","callCount":3}]}"#;
    let run = import("dup-key", "t.json", json.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the key \"parent\" is written twice in one object"),
        "{}",
        run.stderr
    );
    // `{"data":[{"parent":"a","child":"b",` is 35 bytes: the second
    // `"parent"` at column 36.
    assert!(run.stderr.contains("t.json:1:36"), "{}", run.stderr);
    // Prometheus refuses a sample with a label twice.
    let text = "traces_service_graph_request_total{client=\"a\",server=\"b\",client=\"c\"} 3\n";
    let run = import("dup-label", "t.txt", text.as_bytes(), &[]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stdout);
    assert!(
        run.stderr.contains("the label `client` is given twice"),
        "{}",
        run.stderr
    );
    // `traces_service_graph_request_total{` is 35 bytes and
    // `client="a",server="b",` 22 more: the second `client` at column 58.
    assert!(run.stderr.contains("t.txt:1:58"), "{}", run.stderr);
}
