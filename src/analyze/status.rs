//! Accepted risks: which findings an `accepted` entry covers, which entries
//! have expired, and which match nothing (`stale-acceptance/<id>`).

use std::fmt;
use std::sync::Arc;

use super::{Context, Finding, RuleDoc, Severity, Status, Wording, analyzer};
use crate::model::Date;
use crate::model::Rule;

/// Today's date in UTC, from the system clock.
#[must_use]
pub fn today_utc() -> Date {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Date::from_days(i64::try_from(seconds / 86_400).unwrap_or(0))
}

/// `stale-acceptance/<id>`: the accepted id that matches nothing.
#[derive(Debug)]
struct Stale(Arc<str>);

impl Wording for Stale {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "the acceptance of {} matches no finding: the risk is gone or the id changed",
            self.0
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(
            "remove the entry from `accepted`, or correct its id from `nines check` output",
        )
    }
}

/// Marks findings covered by a live acceptance as `accepted`, and adds a
/// `stale-acceptance` finding for every entry that matches nothing. An entry
/// whose rule is not among `ran` cannot be judged stale and is left alone.
pub fn apply_acceptances(cx: &Context, findings: &mut Vec<Finding>, ran: impl Fn(&str) -> bool) {
    let mut stale = Vec::new();
    for entry in &cx.model.accepted {
        let live = entry.expires.is_none_or(|expires| cx.today <= expires);
        let mut matched = false;
        for finding in findings.iter_mut().filter(|f| f.has_id(&entry.id)) {
            matched = true;
            if live {
                finding.status = Status::Accepted;
                finding.justification = Some(entry.reason.clone());
            }
        }
        let rule = entry.id.split('/').next().unwrap_or("");
        if !matched && analyzer(rule).is_some() && ran(rule) && ran(STALE.name()) {
            let id: Arc<str> = Arc::from(entry.id.as_str());
            stale.push(Finding::new(
                STALE.rule,
                Arc::clone(&id),
                Severity::Warning,
                entry.span,
                Stale(id),
            ));
        }
    }
    findings.extend(stale);
    findings.sort_by(Finding::cmp_id);
}

/// The documentation of `stale-acceptance`, which is raised here rather than
/// by an analyzer because it looks at the other analyzers' findings.
pub static STALE: RuleDoc = RuleDoc {
    rule: Rule::StaleAcceptance,
    id: "stale-acceptance/<id>",
    severity: "warning",
    summary: "An `accepted` entry matches no finding.",
    checks: "Every entry under `accepted:` is compared with the findings of the run. An entry whose id matches none of them is stale.",
    why: "Acceptances are meant to be reviewed. One that outlives its risk hides nothing today, but it would silently accept the same risk if it came back, without anyone deciding so again.",
    example: "components:\n  api: {instances: 3}\naccepted:\n  - id: placement/api     # stale-acceptance/placement/api when no domains are declared\n    reason: moving to zones in Q3",
    fix: "Remove the entry, or correct its id by copying it from `nines check` output.",
};
