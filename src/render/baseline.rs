//! The baseline file: the findings a team already knows about, written by
//! `nines baseline` and read by `check --baseline`, so CI fails only on what
//! a change introduces. Keyed by stable finding ids, never by line numbers,
//! sorted, versioned and without timestamps, so it diffs well in review.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::Audit;
use crate::analyze::{Finding, Severity, Status};
use crate::model::Rule;

/// The only version of the file format.
pub const VERSION: u32 = 1;

pub use crate::analyze::results::Known;

/// The command that rewrites a baseline once findings are fixed.
#[must_use]
pub fn refresh_command(model: &str, baseline: &str) -> String {
    format!("nines baseline {model} -o {baseline}")
}

/// A baseline file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineFile {
    /// The format version, [`VERSION`].
    pub version: u32,
    /// Always `nines`, so a stray JSON file is recognised as foreign.
    pub tool: String,
    /// The known findings, sorted by id.
    pub findings: Vec<BaselineEntry>,
}

/// One known finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// The finding's stable id.
    pub id: String,
    /// Its rule.
    pub rule: String,
    /// Its severity when the baseline was written.
    pub severity: Severity,
    /// The figures the finding was about when the baseline was written
    /// (utilization, availability …), for a reviewer reading the file; they
    /// play no part in matching.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, f64>,
}

impl BaselineFile {
    /// The baseline of a report: every finding except the accepted ones
    /// (those are covered by `accepted:` and must fail again when their
    /// acceptance expires), sorted by id.
    #[must_use]
    pub fn of(audit: &Audit) -> Self {
        let mut findings: Vec<BaselineEntry> = audit
            .findings
            .iter()
            .filter(|f| f.status != Status::Accepted)
            .map(|f| BaselineEntry {
                id: f.id().to_string(),
                rule: f.rule.to_owned(),
                severity: f.severity,
                figures: figures(audit, f),
            })
            .collect();
        findings.sort_by(|a, b| a.id.cmp(&b.id));
        findings.dedup_by(|a, b| a.id == b.id);
        Self {
            version: VERSION,
            tool: "nines".to_owned(),
            findings,
        }
    }

    /// Reads a baseline from its JSON text.
    ///
    /// # Errors
    /// A sentence saying why the text is not a baseline of this version.
    pub fn parse(text: &str) -> Result<Self, String> {
        let file: Self = serde_json::from_str(text)
            .map_err(|err| format!("it is not a nines baseline file ({err})"))?;
        if file.tool != "nines" {
            return Err(format!("it was written by `{}`, not by nines", file.tool));
        }
        if file.version != VERSION {
            return Err(format!(
                "it has version {}, and this nines reads version {VERSION}",
                file.version
            ));
        }
        Ok(file)
    }

    /// The file's text: two-space JSON with a final newline.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Strings, integers and finite floats: serializing cannot fail.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Marks the report's new findings that the baseline knows as
    /// `baseline`, and lists in `report.fixed` the baseline's ids that no
    /// longer occur. An id whose rule did not run (`--only`, `--skip`)
    /// cannot be judged fixed and is left out.
    pub fn apply(&self, file: &str, audit: &mut Audit, ran: impl Fn(&str) -> bool) {
        let known: BTreeSet<String> = self.findings.iter().map(|e| e.id.clone()).collect();
        let mut found: BTreeSet<&str> = BTreeSet::new();
        let mut id = String::new();
        for finding in &mut audit.findings {
            id.clear();
            let _ = write!(id, "{}", finding.id());
            if let Some(entry) = known.get(id.as_str()) {
                found.insert(entry);
                if finding.status == Status::New {
                    finding.status = Status::Baseline;
                }
            }
        }
        let fixed = known
            .iter()
            .filter(|id| !found.contains(id.as_str()))
            .filter(|id| ran(id.split('/').next().unwrap_or("")))
            .cloned()
            .collect();
        audit.fixed = fixed;
        audit.baseline = Some(Known {
            file: file.to_owned(),
            ids: known,
        });
    }
}

/// The figures a finding's message is about, looked up in the report's
/// sections by the finding's subject.
fn figures(audit: &Audit, finding: &Finding) -> BTreeMap<String, f64> {
    let subject = finding.subject.to_string();
    let subject = subject.as_str();
    let mut figures = BTreeMap::new();
    let rule = Rule::from_name(finding.rule);
    match rule {
        Some(Rule::Slo) => {
            if let Some(a) = audit.availability.get(subject).and_then(|r| r.availability) {
                figures.insert("availability".to_owned(), a);
            }
        }
        Some(Rule::Headroom) => {
            if let Some((component, lost)) = subject.split_once('/')
                && let Some(row) = audit
                    .headroom
                    .iter()
                    .find(|r| &*r.component == component && &*r.lost == lost)
            {
                figures.insert("utilization".to_owned(), row.utilization);
            }
        }
        Some(Rule::Cascade) => {
            if let Some(walk) = audit.cascades.iter().find(|c| c.origin == subject) {
                figures.insert("unserved".to_owned(), walk.unserved);
            }
        }
        Some(Rule::RetryAmplification) => {
            let path: Vec<&str> = subject.split('>').collect();
            if let Some(row) = audit.retries.iter().find(|r| r.path == path) {
                figures.insert("amplification".to_owned(), row.amplification);
            }
        }
        Some(Rule::RetryStorm) => {
            let critical = audit
                .retries
                .iter()
                .filter(|r| r.path.last().is_some_and(|last| last == subject))
                .filter_map(|r| r.critical_failure_rate)
                .min_by(f64::total_cmp);
            if let Some(critical) = critical {
                figures.insert("critical_failure_rate".to_owned(), critical);
            }
        }
        Some(Rule::ColdStart) => {
            if let Some(row) = audit
                .cold_start
                .stampedes
                .iter()
                .find(|s| s.component == subject)
            {
                figures.insert("cold_load".to_owned(), row.cold_load);
                figures.insert("capacity".to_owned(), row.capacity);
            }
        }
        Some(Rule::Rpo | Rule::Rto) => {
            if let Some(row) = audit.recovery.iter().find(|r| r.component == subject) {
                let (key, value) = if rule == Some(Rule::Rpo) {
                    ("worst_rpo_s", row.worst_rpo_s)
                } else {
                    ("worst_rto_s", row.worst_rto_s)
                };
                if let Some(value) = value {
                    figures.insert(key.to_owned(), value);
                }
            }
        }
        _ => {}
    }
    // JSON has no infinity: a figure that is not finite is left out.
    figures.retain(|_, value| value.is_finite());
    figures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;

    #[test]
    fn a_baseline_lists_known_findings_by_id_with_their_figures() {
        let file = BaselineFile::of(&sample::audit());
        let ids: Vec<&str> = file.findings.iter().map(|e| e.id.as_str()).collect();
        // sorted, and without the accepted spof/config
        assert_eq!(
            ids,
            [
                "headroom/api/az-a",
                "placement/cache",
                "retry-budget/api>db",
                "slo/api",
                "spof/db"
            ]
        );
        assert!((file.findings[0].figures["utilization"] - 1.25).abs() < 1e-12);
        assert!((file.findings[3].figures["availability"] - 0.9985).abs() < 1e-12);
        assert!(file.findings[4].figures.is_empty());
        let text = file.to_json();
        assert!(!text.contains("line"), "no line numbers in a baseline");
        assert_eq!(BaselineFile::parse(&text).unwrap(), file);
    }

    #[test]
    fn applying_a_baseline_marks_known_findings_and_lists_fixed_ones() {
        let mut file = BaselineFile::of(&sample::audit());
        file.findings.retain(|e| e.id != "spof/db");
        file.findings.push(BaselineEntry {
            id: "spof/gone".to_owned(),
            rule: "spof".to_owned(),
            severity: Severity::Error,
            figures: BTreeMap::new(),
        });
        file.findings.push(BaselineEntry {
            id: "drill/skipped".to_owned(),
            rule: "drill".to_owned(),
            severity: Severity::Warning,
            figures: BTreeMap::new(),
        });
        let mut audit = sample::audit();
        file.apply("known.json", &mut audit, |rule| rule != "drill");
        let status = |id: &str| audit.findings.iter().find(|f| f.has_id(id)).unwrap().status;
        assert_eq!(status("spof/db"), Status::New);
        assert_eq!(status("slo/api"), Status::Baseline);
        assert_eq!(status("spof/config"), Status::Accepted);
        assert_eq!(audit.fixed, ["spof/gone"]);
        assert_eq!(audit.in_baseline("slo/api"), Some(true));
        assert_eq!(audit.in_baseline("spof/db"), Some(false));
    }

    #[test]
    fn foreign_or_garbled_files_are_refused_with_a_reason() {
        assert!(
            BaselineFile::parse("{")
                .unwrap_err()
                .contains("not a nines baseline")
        );
        assert!(
            BaselineFile::parse(r#"{"version": 2, "tool": "nines", "findings": []}"#)
                .unwrap_err()
                .contains("version 2")
        );
        assert!(
            BaselineFile::parse(r#"{"version": 1, "tool": "eslint", "findings": []}"#)
                .unwrap_err()
                .contains("eslint")
        );
        assert!(
            BaselineFile::parse(r#"[{"id": "spof/db"}]"#)
                .unwrap_err()
                .contains("not a nines baseline")
        );
    }
}
