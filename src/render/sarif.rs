//! SARIF 2.1.0, the format code-scanning services read: one run, the rules
//! that fired with their documentation, one result per finding located in
//! the model file, the stable id as a fingerprint, the baseline state, and
//! accepted findings as suppressions with their reason.

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;

use super::{Audit, Target, escape};
use crate::analyze::finding::Id;
use crate::analyze::{Finding, Severity, Status, doc};

/// The schema every SARIF 2.1.0 log names.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where users learn about the tool: the package's `repository`, when
/// `Cargo.toml` names one (`informationUri` is left out otherwise).
const INFORMATION_URI: &str = env!("CARGO_PKG_REPOSITORY");

/// The fingerprint key of a finding's stable id.
pub const FINGERPRINT: &str = "ninesFindingId/v1";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    /// Columns count characters, as in every other output.
    column_kind: &'static str,
    results: Results<'a>,
}

/// One result per finding, each built as it is written: a large model's
/// 50,000 results are never held at once.
struct Results<'a> {
    audit: &'a Audit,
    /// The rules that fired, sorted (a result names its rule's index).
    rule_ids: &'a [&'static str],
    /// The model file's URI.
    uri: &'a str,
}

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.audit
                .findings
                .iter()
                .map(|finding| sarif_result(self.audit, self.rule_ids, self.uri, finding)),
        )
    }
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    version: &'static str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    short_description: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_description: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<Text<'a>>,
    default_configuration: Configuration,
}

/// A plain-text message of SARIF (§3.11.6): literal brackets escaped, so
/// no text of the model (or of nines) reads as an embedded link.
#[derive(Serialize)]
struct Text<'a> {
    #[serde(serialize_with = "plain_text")]
    text: &'a str,
}

fn plain_text<S: serde::Serializer>(text: &&str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&escape::sarif(text))
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: ResultText<'a>,
    locations: [Location<'a>; 1],
    partial_fingerprints: BTreeMap<&'static str, Id<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression<'a>>,
}

#[derive(Serialize)]
struct ResultText<'a> {
    text: FindingText<'a>,
}

/// The message, and the finding's own fix when it has one, written
/// straight into the log.
struct FindingText<'a>(&'a Finding);

impl fmt::Display for FindingText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.message())?;
        match self.0.help() {
            Some(help) => write!(f, "\nhelp: {help}"),
            None => Ok(()),
        }
    }
}

impl Serialize for FindingText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&escape::sarif(&self.to_string()))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: ArtifactLocation<'a>,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
struct Suppression<'a> {
    kind: &'static str,
    status: &'static str,
    /// The model's reason, escaped as a message (viewers show it as one).
    #[serde(serialize_with = "plain_text")]
    justification: &'a str,
}

/// Writes the report as a SARIF 2.1.0 log, results in id order.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, target: &Target, out: &mut dyn Write) -> io::Result<()> {
    let uri = uri(target.file);
    let mut rule_ids: Vec<&'static str> = audit.findings.iter().map(|f| f.rule).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    let rules = rule_ids.iter().map(|&id| rule(id)).collect();
    let results = Results {
        audit,
        rule_ids: &rule_ids,
        uri: &uri,
    };
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "nines",
                    information_uri: Some(INFORMATION_URI).filter(|u| !u.is_empty()),
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}

/// The result of one finding.
fn sarif_result<'a>(
    audit: &Audit,
    rule_ids: &[&'static str],
    uri: &'a str,
    finding: &'a Finding,
) -> SarifResult<'a> {
    SarifResult {
        rule_id: finding.rule,
        rule_index: rule_ids.binary_search(&finding.rule).unwrap_or(0),
        level: level(finding.severity),
        message: ResultText {
            text: FindingText(finding),
        },
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation { uri },
                region: Region {
                    start_line: finding.location.line.max(1),
                    start_column: finding.location.column.max(1),
                },
            },
        }],
        partial_fingerprints: BTreeMap::from([(FINGERPRINT, finding.id())]),
        baseline_state: audit
            .in_baseline(&finding.id().to_string())
            .map(|known| if known { "unchanged" } else { "new" }),
        suppressions: match (finding.status, &finding.justification) {
            (Status::Accepted, Some(reason)) => vec![Suppression {
                kind: "inSource",
                status: "accepted",
                justification: reason,
            }],
            _ => Vec::new(),
        },
    }
}

/// A rule's descriptor, from the documentation `nines explain` prints.
fn rule(id: &str) -> Rule<'_> {
    match doc(id) {
        Some(doc) => Rule {
            id,
            short_description: Text { text: doc.summary },
            full_description: Some(Text { text: doc.checks }),
            help: Some(Text { text: doc.fix }),
            default_configuration: Configuration {
                level: default_level(doc.severity),
            },
        },
        // Every rule that raises findings is documented; keep the log valid anyway.
        None => Rule {
            id,
            short_description: Text { text: id },
            full_description: None,
            help: None,
            default_configuration: Configuration { level: "warning" },
        },
    }
}

/// The SARIF level of a documented default severity (`error`, `warning`,
/// `note`, or a sentence starting with one of them).
fn default_level(severity: &str) -> &'static str {
    ["error", "warning", "note"]
        .into_iter()
        .find(|level| severity.starts_with(level))
        .unwrap_or("warning")
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The model path as a relative URI reference: forward slashes, and every
/// byte outside the unreserved set and `/` percent-encoded.
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for byte in file.replace('\\', "/").bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use serde_json::Value;

    fn log(audit: &Audit) -> Value {
        let mut out = Vec::new();
        render(audit, &Target::file("models/shop v2.yaml"), &mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn paths_become_relative_uris() {
        assert_eq!(uri("models/web-shop.yaml"), "models/web-shop.yaml");
        assert_eq!(uri("my models\\shop.yaml"), "my%20models/shop.yaml");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri("é.yaml"), "%C3%A9.yaml");
    }

    #[test]
    fn each_rule_that_fired_is_described_once() {
        let log = log(&sample::audit());
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["headroom", "placement", "retry-budget", "slo", "spof"]
        );
        assert_eq!(rules[1]["defaultConfiguration"]["level"], "warning");
        assert_eq!(rules[2]["defaultConfiguration"]["level"], "note");
        assert!(rules[4]["help"]["text"].as_str().unwrap().len() > 10);
    }

    #[test]
    fn results_carry_location_fingerprint_and_suppression() {
        let log = log(&sample::audit());
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 6);
        let first = &results[0];
        assert_eq!(first["ruleId"], "headroom");
        assert_eq!(first["ruleIndex"], 0);
        assert_eq!(
            first["partialFingerprints"][FINGERPRINT],
            "headroom/api/az-a"
        );
        let place = &first["locations"][0]["physicalLocation"];
        assert_eq!(place["artifactLocation"]["uri"], "models/shop%20v2.yaml");
        assert_eq!(place["region"]["startLine"], 5);
        assert_eq!(place["region"]["startColumn"], 3);
        assert!(first.get("baselineState").is_none(), "no baseline given");
        let accepted = &results[4];
        assert_eq!(accepted["suppressions"][0]["kind"], "inSource");
        assert_eq!(
            accepted["suppressions"][0]["justification"],
            "single-region by design; runbook R-12"
        );
    }

    #[test]
    fn with_a_baseline_every_result_has_a_state() {
        let mut audit = sample::audit();
        audit.baseline = Some(crate::render::baseline::Known {
            file: "b.json".to_owned(),
            ids: ["slo/api".to_owned()].into(),
        });
        let log = log(&audit);
        let states: Vec<&str> = log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["baselineState"].as_str().unwrap())
            .collect();
        assert_eq!(states, ["new", "new", "new", "unchanged", "new", "new"]);
    }
}
