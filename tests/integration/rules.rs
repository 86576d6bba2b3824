//! Rule fixtures: `tests/fixtures/rules/<rule>/<case>.yaml`. Each begins with
//! `# expect: <id>, <id>` (or `# expect: none`): exactly those findings of
//! that rule must fire. The check runs with `--only <rule>` (plus the rules
//! of an optional second line `# with: <rule>, <rule>`, for a rule that
//! judges others' findings), so the table output snapshotted as
//! `rule@<rule>__<case>.yaml.snap` shows that rule alone: a change to one
//! rule's wording rewrites only its own snapshots.

use std::collections::BTreeSet;

use nines::cli::{Format, Outcome};

use crate::{check_only, settings};

/// The rules a fixture runs: its own, and those its `# with:` line names.
fn run_rules(rule: &str, text: &str) -> Vec<String> {
    let with = text
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("# with:"))
        .unwrap_or("");
    std::iter::once(rule)
        .chain(with.split(',').map(str::trim).filter(|s| !s.is_empty()))
        .map(str::to_owned)
        .collect()
}

/// The ids a fixture's first line promises.
fn expected(text: &str) -> BTreeSet<String> {
    let first = text.lines().next().unwrap_or("");
    let list = first
        .strip_prefix("# expect:")
        .unwrap_or_else(|| panic!("fixture must begin with `# expect:`, found {first:?}"));
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "none")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_rule_fixture_fires_exactly_what_it_promises() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rules");
    let mut seen = 0;
    let mut rules: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    rules.sort();
    for rule_dir in rules {
        let rule = rule_dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut cases: Vec<_> = std::fs::read_dir(&rule_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        for case in cases {
            let text = std::fs::read_to_string(&case).unwrap();
            let name = format!("{rule}/{}", case.file_name().unwrap().to_string_lossy());
            let only = run_rules(&rule, &text);
            let json = check_only(&name, &text, Format::Json, &only);
            assert_ne!(
                json.outcome,
                Outcome::Invalid,
                "{name} is invalid:\n{}",
                json.stderr
            );
            let audit: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
            let fired: BTreeSet<String> = audit["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["rule"] == rule.as_str())
                .map(|f| f["id"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(
                fired,
                expected(&text),
                "{name}: the `{rule}` findings differ from `# expect:`"
            );
            let table = check_only(&name, &text, Format::Table, &only);
            settings().bind(|| {
                let snapshot = format!(
                    "rule@{rule}__{}",
                    case.file_name().unwrap().to_string_lossy()
                );
                insta::assert_snapshot!(snapshot, table.stdout);
            });
            seen += 1;
        }
    }
    assert!(seen >= 3, "rule fixtures were not found");
}
