//! One fixture per kind of model error: each exits 2 and its rendering (file,
//! line, column, underline, help) is snapshotted. A span test pins the exact
//! place and text of a selection of them.

use nines::cli::{Format, Outcome};
use nines::model;

use crate::{check, settings};

#[test]
fn every_invalid_fixture_is_rejected_with_a_located_diagnostic() {
    settings().bind(|| {
        insta::glob!("../fixtures/invalid", "*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            assert!(
                text.starts_with("# must fail:"),
                "fixture must say what fails"
            );
            let name = format!("invalid/{}", path.file_name().unwrap().to_string_lossy());
            let run = check(&name, &text, Format::Table);
            assert_eq!(run.outcome, Outcome::Invalid);
            assert_eq!(run.stdout, "", "nothing is analysed");
            assert!(
                run.stderr.contains(&format!("[{name}:")),
                "no file:line:col in\n{}",
                run.stderr
            );
            assert!(run.stderr.contains("help:"), "no help in\n{}", run.stderr);
            insta::assert_snapshot!("invalid", run.stderr);
        });
    });
}

/// The line, column and underlined text of every problem in a fixture.
fn spans(fixture: &str) -> Vec<(usize, usize, String)> {
    let path = format!(
        "{}/tests/fixtures/invalid/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let problems = model::parse(&text).expect_err("fixture must be invalid");
    problems
        .iter()
        .map(|p| {
            let (line, column) = p.span.line_column(&text);
            (line, column, p.span.text(&text).to_owned())
        })
        .collect()
}

#[test]
fn errors_point_at_the_offending_text() {
    let at = |line, column, text: &str| (line, column, text.to_owned());
    assert_eq!(spans("unknown-key.yaml"), [at(6, 5, "instnaces")]);
    assert_eq!(spans("bare-percent.yaml"), [at(6, 19, "99.9")]);
    assert_eq!(spans("duration-no-unit.yaml"), [at(8, 18, "300")]);
    assert_eq!(spans("unknown-dependency.yaml"), [at(6, 24, "postgress")]);
    assert_eq!(
        spans("placement-sum.yaml"),
        [at(9, 16, "{az-a: 2, az-b: 2}")]
    );
    assert_eq!(spans("duplicate-key.yaml"), [at(7, 5, "instances")]);
    assert_eq!(spans("domain-cycle.yaml"), [at(4, 27, "in")]);
    assert_eq!(
        spans("unknown-accepted-subject.yaml"),
        [at(10, 9, "spof/postgress")]
    );
    assert_eq!(spans("pool-above-workers.yaml"), [at(8, 15, "300")]);
    assert_eq!(spans("latency-out-of-order.yaml"), [at(7, 32, "20ms")]);
    assert_eq!(spans("hedge-one-instance.yaml"), [at(7, 9, "hedge")]);
    assert_eq!(spans("hedge-bad-percentile.yaml"), [at(7, 24, "p96")]);
    assert_eq!(
        spans("several-errors.yaml"),
        [
            at(9, 5, "replicas"),
            at(10, 16, "{az-a: 2, az-b: 2}"),
            at(13, 18, "30")
        ]
    );
}

#[test]
fn suggestions_name_the_intended_word() {
    let help = |fixture: &str| {
        let path = format!(
            "{}/tests/fixtures/invalid/{fixture}",
            env!("CARGO_MANIFEST_DIR")
        );
        let problems = model::parse(&std::fs::read_to_string(path).unwrap()).unwrap_err();
        problems[0].help.clone().unwrap_or_default()
    };
    assert!(help("unknown-key.yaml").contains("did you mean `instances`?"));
    assert!(help("unknown-top-level-key.yaml").contains("did you mean `objective`?"));
    assert!(help("bare-percent.yaml").contains("did you mean 99.9%?"));
    assert!(help("unknown-dependency.yaml").contains("did you mean `postgres`?"));
    assert!(help("unknown-accepted-rule.yaml").contains("did you mean `spof`?"));
    // Words of other tools, and a scalar where a list belongs.
    assert!(help("replicas-for-instances.yaml").contains("did you mean `instances`?"));
    assert!(help("placement-single-domain.yaml").contains("`placement: [az-a]`"));
}

#[test]
fn a_group_named_where_a_component_belongs_gets_one_story() {
    let path = format!(
        "{}/tests/fixtures/invalid/needs-a-group.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let problems = model::parse(&std::fs::read_to_string(path).unwrap()).unwrap_err();
    assert_eq!(problems.len(), 1);
    let p = &problems[0];
    // Message, label and help all say what `vault` is; none says it is
    // undeclared.
    assert_eq!(p.message, "`vault` is a shared-fate group, not a component");
    let text = format!("{p:?}");
    assert!(!text.contains("nothing of that name is declared"), "{text}");
    assert!(
        p.help
            .as_deref()
            .unwrap_or("")
            .contains("`shares: [vault]`")
    );
}
