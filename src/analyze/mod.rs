//! The analyses. Each analyzer lives in its own file named after the risk it
//! finds, with the same order inside: finding constructors, documentation,
//! the check, its tests. [`ANALYZERS`] is the registry; its order is the
//! order of the report.

pub mod finding;
mod placement;
mod status;

pub use finding::{Finding, Location, Severity, Status};
pub use status::{apply_acceptances, today_utc};

use crate::model::{Date, Model};

/// What an analyzer sees.
pub struct Context<'a> {
    /// The validated model.
    pub model: &'a Model,
    /// "Now", for expiry dates and drill ages.
    pub today: Date,
}

/// A rule's documentation, in the fixed sections `nines explain` prints and
/// `docs/rules.md` is generated from.
#[derive(Debug)]
pub struct RuleDoc {
    /// The rule name, the first part of its finding ids.
    pub name: &'static str,
    /// The id pattern, such as `placement/<component>`.
    pub id: &'static str,
    /// Default severity, in words.
    pub severity: &'static str,
    /// One line.
    pub summary: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A model that fires it.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

/// One analysis over the model.
pub trait Analyzer: Sync {
    /// Its documentation.
    fn doc(&self) -> &'static RuleDoc;
    /// Adds its findings to `out`.
    fn check(&self, cx: &Context, out: &mut Vec<Finding>);
}

/// Every analyzer, in report order.
pub static ANALYZERS: &[&dyn Analyzer] = &[&placement::Placement];

/// The documentation of every implemented rule, in report order.
pub fn docs() -> impl Iterator<Item = &'static RuleDoc> {
    ANALYZERS
        .iter()
        .map(|a| a.doc())
        .chain(std::iter::once(&status::STALE))
}

/// The documentation of one rule, if it is implemented.
#[must_use]
pub fn doc(rule: &str) -> Option<&'static RuleDoc> {
    docs().find(|d| d.name == rule)
}

/// The analyzer of a rule, if it is implemented.
#[must_use]
pub fn analyzer(rule: &str) -> Option<&'static dyn Analyzer> {
    ANALYZERS.iter().copied().find(|a| a.doc().name == rule)
}

/// Runs the selected analyzers and returns their findings sorted by id.
#[must_use]
pub fn run(cx: &Context, selected: impl Fn(&str) -> bool) -> Vec<Finding> {
    let mut findings = Vec::new();
    for analyzer in ANALYZERS {
        if selected(analyzer.doc().name) {
            analyzer.check(cx, &mut findings);
        }
    }
    findings.sort_by(|a, b| a.id.cmp(&b.id));
    findings.dedup_by(|a, b| a.id == b.id);
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_analyzer_is_a_rule_of_the_format() {
        for doc in docs() {
            assert!(
                crate::model::validate::RULES.contains(&doc.name),
                "{} is not in RULES",
                doc.name
            );
            assert!(doc.id.starts_with(&format!("{}/", doc.name)));
        }
    }
}
