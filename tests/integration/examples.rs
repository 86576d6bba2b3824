//! Every example model in `models/` is valid and rendered in every format.

use std::path::Path;

use nines::cli::{Format, Outcome};

use crate::{check, settings};

fn name(path: &Path) -> String {
    format!("models/{}", path.file_name().unwrap().to_string_lossy())
}

#[test]
fn examples_render_as_a_table() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let run = check(&name(path), &text, Format::Table);
            assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
            assert_eq!(run.stderr, "");
            for line in run.stdout.lines() {
                assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
            }
            insta::assert_snapshot!("check-table", run.stdout);
        });
    });
}

#[test]
fn examples_render_as_json() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let run = check(&name(path), &text, Format::Json);
            assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
            let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            for key in [
                "system",
                "availability",
                "findings",
                "headroom",
                "cascades",
                "retries",
                "cold_start",
                "recovery",
            ] {
                assert!(audit.get(key).is_some(), "missing `{key}`");
            }
            insta::assert_snapshot!("check-json", run.stdout);
        });
    });
}

#[test]
fn examples_render_as_a_pull_request_comment() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let run = check(&name(path), &text, Format::Markdown);
            assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
            assert!(run.stdout.starts_with("<!-- nines-report -->\n**nines**: "));
            assert!(run.stdout.len() < nines::render::markdown::LIMIT);
            insta::assert_snapshot!("check-markdown", run.stdout);
        });
    });
}

#[test]
fn examples_render_as_sarif() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let run = check(&name(path), &text, Format::Sarif);
            assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
            let log: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            crate::sarif::assert_valid(&log);
            let findings = check(&name(path), &text, Format::Json);
            let audit: serde_json::Value = serde_json::from_str(&findings.stdout).unwrap();
            assert_eq!(
                log["runs"][0]["results"].as_array().unwrap().len(),
                audit["findings"].as_array().unwrap().len(),
                "one result per finding"
            );
            insta::assert_snapshot!("check-sarif", run.stdout);
        });
    });
}

#[test]
fn examples_render_as_github_annotations() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let run = check(&name(path), &text, Format::Github);
            assert_ne!(run.outcome, Outcome::Invalid, "{}", run.stderr);
            for line in run.stdout.lines() {
                assert!(
                    [
                        "::error file=",
                        "::warning file=",
                        "::notice file=",
                        "nines: "
                    ]
                    .iter()
                    .any(|start| line.starts_with(start)),
                    "not a workflow command: {line}"
                );
            }
            insta::assert_snapshot!("check-github", run.stdout);
        });
    });
}

#[test]
fn examples_start_with_a_comment_saying_what_they_show() {
    for path in crate::example_models() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with('#'),
            "{} does not start with a comment",
            path.display()
        );
    }
}

#[test]
fn output_is_byte_identical_across_runs() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/web-shop.yaml"))
            .unwrap();
    for format in [
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Sarif,
        Format::Github,
    ] {
        let first = check("models/web-shop.yaml", &text, format).stdout;
        for _ in 0..3 {
            assert_eq!(check("models/web-shop.yaml", &text, format).stdout, first);
        }
    }
}

#[test]
fn examples_export_as_mef() {
    settings().bind(|| {
        insta::glob!("../../models", "*.yaml", |path| {
            let model = nines::model::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
            insta::assert_snapshot!("export-mef", nines::engine::mef::export(&model));
        });
    });
}
