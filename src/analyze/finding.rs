//! What an analysis reports: a [`Finding`] with a stable id, a severity, the
//! numbers that matter, a fix, and where in the model it is about.

use serde::{Deserialize, Serialize};

use crate::model::{Rule, Span};

/// How bad a finding is. Ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing.
    Note,
    /// Should be fixed.
    Warning,
    /// Breaks a promise or takes an entrypoint down.
    Error,
}

impl Severity {
    /// Every severity, most severe first: the order findings are listed in.
    pub const WORST_FIRST: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

    /// The heading of a group of findings: `Errors`, `Warnings`, `Notes`.
    #[must_use]
    pub const fn heading(self) -> &'static str {
        match self {
            Severity::Note => "Notes",
            Severity::Warning => "Warnings",
            Severity::Error => "Errors",
        }
    }

    /// The word used in every output.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// `findings` grouped by severity, most severe first, each group in the
/// order given; severities without findings are left out.
pub fn by_severity(findings: &[Finding]) -> Vec<(Severity, Vec<&Finding>)> {
    Severity::WORST_FIRST
        .into_iter()
        .map(|severity| {
            let group: Vec<&Finding> = findings.iter().filter(|f| f.severity == severity).collect();
            (severity, group)
        })
        .filter(|(_, group)| !group.is_empty())
        .collect()
}

/// Whether a finding counts against the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not known before: it counts.
    New,
    /// Present in the `--baseline` file.
    Baseline,
    /// Matched by an `accepted` entry that has not expired.
    Accepted,
}

/// One risk found in the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable id, `<rule>/<subject>`; never contains load-dependent numbers.
    pub id: String,
    /// The rule that raised it.
    pub rule: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// Whether it counts.
    pub status: Status,
    /// One line with the numbers that matter.
    pub message: String,
    /// What to change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Line and column in the model.
    pub location: Location,
    /// The accepted entry's reason, when accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
    /// Where in the model text (resolved into `location`).
    #[serde(skip)]
    pub span: Span,
}

/// A 1-based line and column in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl Finding {
    /// A new finding about `subject` at `span`; the location is filled in
    /// when the report is assembled.
    #[must_use]
    pub fn new(rule: Rule, subject: &str, severity: Severity, span: Span, message: String) -> Self {
        Self {
            id: format!("{}/{subject}", rule.name()),
            rule: rule.name(),
            severity,
            status: Status::New,
            message,
            help: None,
            location: Location::default(),
            justification: None,
            span,
        }
    }

    /// Adds the fix.
    #[must_use]
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}
