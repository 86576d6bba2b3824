//! The binary as a user runs it: help, exit codes, standard input, and input
//! that is not a model at all.

use std::process::Command;

use insta_cmd::assert_cmd_snapshot;

use crate::settings;

fn code(command: &mut Command) -> i32 {
    command.output().unwrap().status.code().unwrap()
}

#[test]
fn help_lists_the_commands() {
    settings().bind(|| {
        assert_cmd_snapshot!("cli-help", crate::binary().arg("--help"));
        assert_cmd_snapshot!("cli-check-help", crate::binary().args(["check", "--help"]));
    });
}

#[test]
fn exit_codes_follow_the_contract() {
    // 0: findings below the threshold (a placement warning, failing on errors).
    let warning_only = "tests/fixtures/rules/placement/unplaced-replicas.yaml";
    assert_eq!(
        code(crate::binary().args(["check", warning_only, "--today", "2026-11-30"])),
        0
    );
    // 1: the same warning fails the run once warnings count; errors fail by default.
    assert_eq!(
        code(crate::binary().args(["check", "models/web-shop.yaml", "--today", "2026-11-30"])),
        1
    );
    assert_eq!(
        code(crate::binary().args([
            "check",
            warning_only,
            "--fail-on",
            "warning",
            "--today",
            "2026-11-30"
        ])),
        1
    );
    // never: nothing fails.
    assert_eq!(
        code(crate::binary().args(["check", "models/web-shop.yaml", "--fail-on", "never"])),
        0
    );
    // 2: an invalid model, a wrong flag, an unknown rule.
    assert_eq!(
        code(crate::binary().args(["check", "tests/fixtures/invalid/bare-percent.yaml"])),
        2
    );
    assert_eq!(
        code(crate::binary().args(["check", "models/web-shop.yaml", "--format", "yaml"])),
        2
    );
    assert_eq!(
        code(crate::binary().args(["check", "models/web-shop.yaml", "--only", "spoof"])),
        2
    );
    assert_eq!(
        code(crate::binary().args(["check", "models/web-shop.yaml", "--today", "yesterday"])),
        2
    );
    assert_eq!(code(crate::binary().args(["explain", "nonsense"])), 2);
}

#[test]
fn skipping_a_rule_removes_its_findings() {
    let out = crate::binary()
        .args([
            "check",
            "tests/fixtures/rules/placement/unplaced-replicas.yaml",
            "--fail-on",
            "warning",
            "--skip",
            // every rule that raises a warning or an error on web-shop
            "placement,retry-storm,retry-jitter,deadline",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("placement/cache"));
}

#[test]
fn standard_input_is_read_for_a_dash() {
    settings().bind(|| {
        let model = r"system: tiny
domains: {az-a: {kind: zone}}
components:
  api: {instances: 2}
";
        assert_cmd_snapshot!(
            "cli-stdin",
            crate::binary()
                .args(["check", "-", "--today", "2026-11-30"])
                .pass_stdin(model)
        );
        assert_cmd_snapshot!(
            "cli-stdin-invalid",
            crate::binary().args(["check", "-"]).pass_stdin(
                r"system: x
components:
  api: {availability: 99.9}
"
            )
        );
    });
}

#[test]
fn unreadable_input_exits_2_without_a_panic() {
    settings().bind(|| {
        assert_cmd_snapshot!(
            "cli-missing-file",
            crate::binary().args(["check", "no/such/model.yaml"])
        );
        assert_cmd_snapshot!("cli-directory", crate::binary().args(["check", "models"]));
        assert_cmd_snapshot!(
            "cli-binary",
            crate::binary()
                .args(["check", "-"])
                .pass_stdin(vec![0u8, 159, 146, 150, 255, 0, 1])
        );
        assert_cmd_snapshot!(
            "cli-empty",
            crate::binary().args(["check", "-"]).pass_stdin("")
        );
    });
}

#[test]
fn explain_prints_a_rule_and_lists_them_all() {
    settings().bind(|| {
        assert_cmd_snapshot!(
            "cli-explain-placement",
            crate::binary().args(["explain", "placement"])
        );
        assert_cmd_snapshot!("cli-explain-list", crate::binary().arg("explain"));
        assert_cmd_snapshot!(
            "cli-explain-typo",
            crate::binary().args(["explain", "placment"])
        );
    });
}

#[test]
fn no_colour_when_not_a_terminal() {
    let out = crate::binary()
        .args(["check", "tests/fixtures/invalid/several-errors.yaml"])
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(!out.stderr.contains(&0x1b), "escape codes in piped output");
}
