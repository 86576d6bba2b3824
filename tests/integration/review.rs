//! `nines report`, `graph`, `what-if` and `budget` on the example models.

use std::path::Path;

use insta_cmd::assert_cmd_snapshot;
use nines::cli::{
    GraphFormat, Outcome, ReviewFormat, WhatIfArgs, WhatIfFormat, graph, review, what_if_source,
};
use nines::model::Date;

use crate::{Run, settings};

fn model_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models")
            .join(name),
    )
    .unwrap()
}

fn name(path: &Path) -> String {
    format!("models/{}", path.file_name().unwrap().to_string_lossy())
}

fn today() -> Date {
    Date::parse("2026-11-30").unwrap()
}

#[test]
fn examples_render_as_a_markdown_review() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let model = nines::model::parse(&text).unwrap();
            let markdown = review(&name(path), &text, &model, today(), ReviewFormat::Markdown);
            for section in [
                "## Summary",
                "## Availability",
                "## Findings",
                "## Headroom (N-k)",
                "## Failover cascades",
                "## Retry paths",
                "## Recovery order",
                "## Disaster recovery",
                "## Dependency diagram",
                "```mermaid\nflowchart TD\n",
            ] {
                assert!(markdown.contains(section), "missing {section}");
            }
            insta::assert_snapshot!("report-markdown", markdown);
        });
    });
}

#[test]
fn the_html_review_is_self_contained() {
    let text = model_text("web-shop.yaml");
    let model = nines::model::parse(&text).unwrap();
    let html = review(
        "models/web-shop.yaml",
        &text,
        &model,
        today(),
        ReviewFormat::Html,
    );
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg class=\"diagram\""));
    for forbidden in ["<script", "http://", "https://", "<link", "@import", "src="] {
        assert!(!html.contains(forbidden), "{forbidden}");
    }
    // The help of a finding, with its code span as an element.
    assert!(html.contains("Add a second provider behind an <code>any_of</code>"));
}

#[test]
fn examples_render_as_graphs() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let model = nines::model::parse(&text).unwrap();
            insta::assert_snapshot!("graph-mermaid", graph(&model, &text, GraphFormat::Mermaid));
            insta::assert_snapshot!("graph-dot", graph(&model, &text, GraphFormat::Dot));
        });
    });
}

fn what_if(lose: &[&str], scale_load: Option<f64>, set: &[&str], format: WhatIfFormat) -> Run {
    let args = WhatIfArgs {
        model: "models/web-shop.yaml".to_owned(),
        lose: lose.iter().map(|s| (*s).to_owned()).collect(),
        cold: false,
        scale_load,
        set: set.iter().map(|s| (*s).to_owned()).collect(),
        format,
        today: Some("2026-11-30".to_owned()),
    };
    crate::capture(|terminal| {
        what_if_source(
            "models/web-shop.yaml",
            &model_text("web-shop.yaml"),
            &args,
            terminal,
        )
    })
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn losing_a_zone_lowers_the_availability_and_shows_its_headroom_rows() {
    let run = what_if(&["az-a"], None, &[], WhatIfFormat::Json);
    assert_eq!(run.stderr, "");
    let out = json(&run);
    // postgres-primary runs only in az-a and checkout requires it: with az-a
    // down, lb (which needs checkout through frontend) is down: 0.
    let before = out["before"]["availability"]["lb"]["availability"]
        .as_f64()
        .unwrap();
    let after = out["after"]["availability"]["lb"]["availability"]
        .as_f64()
        .unwrap();
    // Before: the structural 0.99849925, less what checkout's capacity
    // costs: it needs 3 of its 4 instances (100 / 40 = 2.5 -> 3), so it
    // fails with 2 of 4 down, 6 q² = 6e-6 (q = 0.001), or with az-b or
    // az-c down (2 × 5e-4) and one of its 3 others down (3e-3): 3e-6;
    // about 9e-6: 0.99849925 - 9.0e-6 = 0.9984902.
    assert!((before - 0.998_490_02).abs() < 1e-8, "{before}");
    assert!(after.abs() < 1e-12, "{after}");
    // slo/lb and spof/az-a were already there. New in the state after: checkout
    // runs on 2 of 4 instances at 100 / (2 × 40) = 125% (overload), and losing
    // one more leaves 100 / 40 = 250%; but checkout is down (postgres-primary
    // went with az-a), so those two are the scenario itself: not introduced,
    // listed as taken down. headroom/checkout/az-a is about the lost zone and
    // the spof findings about an entrypoint already down: neither is
    // "resolved". The next loss after az-a (az-b or az-c) would leave
    // checkout 1 instance at 250% and frontend fewer: rows of the state
    // after, about components already down, so taken down as well.
    assert_eq!(out["introduced"], serde_json::json!([]));
    assert_eq!(
        out["taken_down"],
        serde_json::json!([
            "headroom/checkout/az-b",
            "headroom/checkout/az-c",
            "headroom/checkout/instance",
            "headroom/frontend/az-b",
            "headroom/frontend/az-c",
            "overload/checkout"
        ])
    );
    assert_eq!(out["resolved"], serde_json::json!([]));
    // checkout is down (postgres-primary went with az-a) but still runs and
    // receives frontend's 100: load and utilization agree, 100 / 80 = 125%.
    assert_eq!(
        out["after"]["state"]["checkout"],
        serde_json::json!({"up": false, "instances_up": 2, "load": 100.0, "capacity": 80.0, "utilization": 1.25})
    );
    let table = what_if(&["az-a"], None, &[], WhatIfFormat::Table);
    // Nothing introduced: exit 0.
    assert_eq!(table.outcome, Outcome::Pass);
    // The state table: frontend keeps 6 of 9 (2000 / 2400 = 83%), checkout 2 of 4.
    assert!(table.stdout.contains("9 → 6"), "{}", table.stdout);
    assert!(table.stdout.contains("56% → 83%"), "{}", table.stdout);
    assert!(table.stdout.contains("63% → 125%"), "{}", table.stdout);
    settings().bind(|| {
        insta::assert_snapshot!("what-if-table@web-shop-lose-az-a", table.stdout);
        insta::assert_snapshot!("what-if-json@web-shop-lose-az-a", run.stdout);
    });
}

#[test]
fn doubling_the_load_introduces_headroom_findings() {
    let run = what_if(&[], Some(2.0), &[], WhatIfFormat::Json);
    let out = json(&run);
    // frontend: 4000 / (6 × 400) = 167% after a zone, 4000 / (8 × 400) = 125%
    // after an instance; checkout: 200 / (3 × 40) = 167% after az-b, az-c or
    // an instance (az-a was already over at 125%). With nothing lost the
    // overload rule finds frontend at 4000 / 3600 = 111%, checkout at
    // 200 / 160 = 125% and payments at 200 / 110 = 182%.
    assert_eq!(
        out["introduced"],
        serde_json::json!([
            "headroom/checkout/az-b",
            "headroom/checkout/az-c",
            "headroom/checkout/instance",
            "headroom/frontend/az-a",
            "headroom/frontend/az-b",
            "headroom/frontend/az-c",
            "headroom/frontend/instance",
            "metastable/checkout",
            "metastable/frontend",
            "overload/checkout",
            "overload/frontend",
            "overload/payments"
        ])
    );
    assert_eq!(run.outcome, Outcome::Fail);
    let table = what_if(&[], Some(2.0), &[], WhatIfFormat::Table);
    // checkout 100 → 200 on 4 × 40: 63% → 125%; its worst next loss az-a, 250%.
    assert!(table.stdout.contains("63% → 125%"), "{}", table.stdout);
    assert!(table.stdout.contains("az-a: 250%"), "{}", table.stdout);
    settings().bind(|| {
        insta::assert_snapshot!("what-if-table@web-shop-scale-load-2", table.stdout);
        insta::assert_snapshot!("what-if-json@web-shop-scale-load-2", run.stdout);
    });
}

#[test]
fn setting_a_field_resolves_what_it_fixes() {
    // checkout at 6 instances over {az-a: 2, az-b: 1, az-c: 1} does not add up,
    // so set the placement too: 2 per zone. Losing a zone leaves 4 × 40 = 160
    // for 100: 63%, and headroom/checkout/az-a is resolved.
    let run = what_if(
        &[],
        None,
        &[
            "checkout.instances=6",
            "checkout.placement=[az-a, az-b, az-c]",
        ],
        WhatIfFormat::Json,
    );
    assert_eq!(run.stderr, "");
    assert_eq!(
        json(&run)["resolved"],
        serde_json::json!(["headroom/checkout/az-a"])
    );
    assert_eq!(run.outcome, Outcome::Pass);
}

#[test]
fn bad_settings_and_names_are_located_errors() {
    let run = what_if(
        &[],
        None,
        &["payments.availability=99.9"],
        WhatIfFormat::Table,
    );
    assert_eq!(run.outcome, Outcome::Invalid);
    assert_eq!(run.stdout, "");
    // The model's own wording, pointing into the argument.
    assert!(
        run.stderr.contains("`99.9` is not a probability"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[--set:1:23]"), "{}", run.stderr);
    assert!(run.stderr.contains("did you mean 99.9%?"));
    let run = what_if(&["az-q"], None, &[], WhatIfFormat::Table);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(
        run.stderr.contains("(did you mean `az-a`?)"),
        "{}",
        run.stderr
    );
    let run = what_if(&[], None, &[], WhatIfFormat::Table);
    assert_eq!(run.outcome, Outcome::Invalid);
    assert!(run.stderr.contains("nothing to change"));
}

#[test]
fn budgets_of_three_nines_and_a_half() {
    settings().bind(|| {
        assert_cmd_snapshot!("budget@99.9", crate::binary().args(["budget", "99.9%"]));
        assert_cmd_snapshot!("budget@99.95", crate::binary().args(["budget", "99.95%"]));
        assert_cmd_snapshot!(
            "budget-json@99.95-7d",
            crate::binary().args(["budget", "0.9995", "--window", "7d", "--format", "json"])
        );
        assert_cmd_snapshot!(
            "budget@bare-percent",
            crate::binary().args(["budget", "99.9"])
        );
    });
}

#[test]
fn the_report_writes_to_a_file() {
    let dir = std::env::temp_dir().join(format!("nines-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("review.md");
    let status = crate::binary()
        .args([
            "report",
            "models/minimal.yaml",
            "--today",
            "2026-11-30",
            "-o",
        ])
        .arg(&file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.starts_with("# Reliability review: "));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The review of a 2,000-component model stays readable: its diagram draws
/// at most `DIAGRAM_LIMIT` components (the entrypoints, those with findings
/// and the calls reaching them), says how many it left out, and every
/// arrow still stays out of every box.
#[test]
fn a_large_models_diagram_is_focused() {
    // 300 components, far past the limit of 30 (2,000 tested the same and
    // took seconds in a debug build).
    let text = nines::generate::microservices(300, 7);
    let model = nines::model::parse(&text).unwrap();
    let html = review("big.yaml", &text, &model, today(), ReviewFormat::Html);
    let start = html.find("<svg class=\"diagram\"").unwrap();
    let svg = &html[start..html[start..].find("</svg>").unwrap() + start];
    let boxes = svg.matches("<g class=\"node").count();
    assert!(
        (1..=nines::cli::DIAGRAM_LIMIT).contains(&boxes),
        "{boxes} boxes"
    );
    assert!(html.contains("too large to draw whole"), "no summary line");
    // Wrapped to fit the page: at most 1100 px wide at its natural size.
    let width: f64 = svg
        .split("viewBox=\"0 0 ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|w| w.parse().ok())
        .unwrap();
    assert!(width <= 1100.0, "{width}");
    assert!(html.contains(&format!("the other {} are left out", 300 - boxes)));
}
