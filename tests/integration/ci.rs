//! `nines check` in a pull-request pipeline, through the binary: a baseline
//! keeps known findings from failing, a new single point of failure fails
//! with exactly its finding marked new, an acceptance fails again once it
//! expires, and a baseline that cannot be used is a clear error.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

const WEB_SHOP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models/web-shop.yaml");

/// A fresh folder for one test's files, removed when the test ends.
fn scratch(test: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("ci-{test}"))
}

fn nines(args: &[&str]) -> Output {
    crate::binary().args(args).output().unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `nines baseline MODEL -o FILE --today DATE`, which must succeed.
fn write_baseline(model: &Path, file: &Path, today: &str) {
    let out = nines(&["baseline", path(model), "-o", path(file), "--today", today]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `check --format json` against a baseline: the exit code and the report.
fn check_json(model: &Path, baseline: &Path, today: &str) -> (i32, Value) {
    let out = nines(&[
        "check",
        path(model),
        "--baseline",
        path(baseline),
        "--today",
        today,
        "--format",
        "json",
    ]);
    let audit = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), audit)
}

/// `(id, status)` of every finding that is not `baseline`.
fn not_in_baseline(audit: &Value) -> Vec<(String, String)> {
    audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] != "baseline")
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// web-shop with `fraud`, one instance in az-a, required by checkout.
fn with_fraud_check() -> String {
    let text = std::fs::read_to_string(WEB_SHOP).unwrap();
    let edge = "      - target: payments\n";
    assert!(text.contains(edge));
    let text = text.replacen(
        edge,
        &format!("      - target: fraud\n        timeout: 300ms\n{edge}"),
        1,
    );
    format!("{text}\n  fraud:\n    kind: service\n    placement: [az-a]\n    availability: 99.9%\n")
}

#[test]
fn a_baseline_run_passes_on_the_known_findings() {
    let dir = scratch("known");
    let file = dir.join("nines-baseline.json");
    write_baseline(Path::new(WEB_SHOP), &file, "2026-11-30");
    let baseline: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(baseline["version"], 1);
    assert_eq!(baseline["tool"], "nines");
    let ids: Vec<&str> = baseline["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted, "sorted by id");
    assert!(ids.contains(&"spof/payments"));
    assert_eq!(
        baseline["findings"][1]["figures"]["utilization"], 1.25,
        "headroom/checkout/az-a keeps its utilization for context"
    );

    let (code, audit) = check_json(Path::new(WEB_SHOP), &file, "2026-11-30");
    assert_eq!(code, 0);
    assert_eq!(not_in_baseline(&audit), []);
    assert!(audit.get("fixed").is_none(), "nothing was fixed");
    // Even with warnings and notes failing the run.
    let out = nines(&[
        "check",
        WEB_SHOP,
        "--baseline",
        path(&file),
        "--today",
        "2026-11-30",
        "--fail-on",
        "note",
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_new_single_instance_dependency_fails_with_exactly_its_finding() {
    let dir = scratch("new-spof");
    let file = dir.join("nines-baseline.json");
    write_baseline(Path::new(WEB_SHOP), &file, "2026-11-30");
    let changed = dir.join("web-shop.yaml");
    std::fs::write(&changed, with_fraud_check()).unwrap();
    let (code, audit) = check_json(&changed, &file, "2026-11-30");
    assert_eq!(code, 1);
    assert_eq!(
        not_in_baseline(&audit),
        [("spof/fraud".to_owned(), "new".to_owned())]
    );
    // The same in the formats CI reads.
    let args = |format| {
        vec![
            "check".to_owned(),
            path(&changed).to_owned(),
            "--baseline".to_owned(),
            path(&file).to_owned(),
            "--today".to_owned(),
            "2026-11-30".to_owned(),
            "--format".to_owned(),
            format,
        ]
    };
    let run = |format: &str| {
        let args = args(format.to_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = nines(&args);
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    let github = run("github");
    let errors: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{github}");
    assert!(errors[0].contains("title=spof/fraud (error)::"));
    assert!(
        github.lines().next().unwrap().starts_with("::error"),
        "new first"
    );
    let markdown = run("markdown");
    assert!(markdown.contains("**nines**: ❌ 1 new finding at or above error"));
    assert!(markdown.contains("| error | `spof/fraud` |"));
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    crate::sarif::assert_valid(&sarif);
    let new: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["baselineState"] == "new")
        .map(|r| {
            r["partialFingerprints"]["ninesFindingId/v1"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(new, ["spof/fraud"]);
}

#[test]
fn fixed_findings_are_reported_with_a_hint_to_refresh_the_baseline() {
    let dir = scratch("fixed");
    let file = dir.join("known.json");
    write_baseline(Path::new(WEB_SHOP), &file, "2026-11-30");
    let text = std::fs::read_to_string(WEB_SHOP).unwrap();
    let fixed = dir.join("web-shop.yaml");
    // Two payment connections: no longer a single point of failure, and
    // twice the rate limit, so no retry storm either.
    std::fs::write(
        &fixed,
        text.replacen(
            "    kind: external\n",
            "    kind: external\n    instances: 2\n",
            1,
        ),
    )
    .unwrap();
    let (code, audit) = check_json(&fixed, &file, "2026-11-30");
    assert_eq!(code, 0);
    assert_eq!(
        audit["fixed"],
        serde_json::json!(["retry-storm/payments", "spof/payments"])
    );
    let out = nines(&[
        "check",
        path(&fixed),
        "--baseline",
        path(&file),
        "--today",
        "2026-11-30",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    // Against a baseline the summary says what is new: web-shop has 5
    // errors, 4 warnings and 1 note (payments is a managed service, so no
    // placement warning); with payments doubled spof/payments and
    // retry-storm/payments are gone (1 error and 1 warning fewer;
    // metastable/payments stays: 100 × 3 = 300 > 2 × 110), and every
    // remaining finding is in the baseline.
    assert!(
        table.contains("4 error(s), 3 warning(s), 1 note(s); 0 new, 8 in the baseline"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "\n  nines baseline {} -o {}\n",
            path(&fixed),
            path(&file)
        )),
        "{table}"
    );
}

#[test]
fn an_expired_acceptance_fails_again_even_with_a_baseline() {
    let dir = scratch("expired");
    let model = dir.join("web-shop.yaml");
    let text = std::fs::read_to_string(WEB_SHOP).unwrap();
    std::fs::write(
        &model,
        format!(
            r"{text}
accepted:
  - id: spof/payments
    reason: second provider contracted, live in Q3 (PAY-7)
    expires: 2026-09-30
"
        ),
    )
    .unwrap();
    // Written while the acceptance is live: spof/payments is not in it.
    let file = dir.join("nines-baseline.json");
    write_baseline(&model, &file, "2026-06-01");
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("spof/payments")
    );

    let (code, audit) = check_json(&model, &file, "2026-09-30");
    assert_eq!(code, 0, "the last day of the acceptance still counts");
    assert_eq!(
        not_in_baseline(&audit),
        [("spof/payments".to_owned(), "accepted".to_owned())]
    );
    let (code, audit) = check_json(&model, &file, "2026-10-01");
    assert_eq!(code, 1);
    assert_eq!(
        not_in_baseline(&audit),
        [("spof/payments".to_owned(), "new".to_owned())]
    );
}

#[test]
fn an_acceptance_that_matches_nothing_is_stale() {
    let dir = scratch("stale");
    let model = dir.join("web-shop.yaml");
    let text = std::fs::read_to_string(WEB_SHOP).unwrap();
    std::fs::write(
        &model,
        format!(
            r"{text}
accepted:
  - id: spof/cart
    reason: two nodes since March
"
        ),
    )
    .unwrap();
    let out = nines(&[
        "check",
        path(&model),
        "--today",
        "2026-11-30",
        "--format",
        "json",
    ]);
    let audit: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stale: Vec<&Value> = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "stale-acceptance")
        .collect();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0]["id"], "stale-acceptance/spof/cart");
    assert_eq!(stale[0]["severity"], "warning");
    assert_eq!(stale[0]["status"], "new");
}

#[test]
fn a_baseline_that_cannot_be_used_is_an_error_with_exit_2() {
    let dir = scratch("unusable");
    let missing = dir.join("missing.json");
    let out = nines(&["check", WEB_SHOP, "--baseline", path(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot read the baseline") && stderr.contains("nines baseline MODEL"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no report on a bad command line");

    for (name, text, why) in [
        (
            "garbled.json",
            "{\"version\": 1,",
            "not a nines baseline file",
        ),
        (
            "sarif.json",
            "{\"version\": \"2.1.0\", \"runs\": []}",
            "not a nines baseline file",
        ),
        (
            "future.json",
            "{\"version\": 9, \"tool\": \"nines\", \"findings\": []}",
            "version 9",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let out = nines(&["check", WEB_SHOP, "--baseline", path(&file)]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("error: cannot use the baseline"),
            "{stderr}"
        );
        assert!(stderr.contains(why), "{name}: {stderr}");
    }
    // `baseline` on an invalid model writes nothing and exits 2.
    let file = dir.join("never.json");
    let invalid = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/invalid/bare-percent.yaml"
    );
    let out = nines(&["baseline", invalid, "-o", path(&file)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!file.exists());
}

#[test]
fn a_comment_on_thousands_of_findings_stays_under_the_size_limit() {
    let text = nines::generate::microservices(2000, 1);
    let run = crate::check("generated.yaml", &text, nines::cli::Format::Markdown);
    assert!(
        run.stdout.len() < nines::render::markdown::LIMIT,
        "{} bytes",
        run.stdout.len()
    );
    assert!(run.stdout.contains(" more, in `--format sarif`"));
    assert!(run.stdout.trim_end().ends_with("</sub>"));
    let opened = run.stdout.matches("<details>").count();
    assert_eq!(opened, run.stdout.matches("</details>").count());
}
