//! `expiry/<group>`: a shared-fate group with an `expires` date (a
//! certificate, a token, a licence) that lapses soon or has lapsed, taking
//! every member down at once.

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Date, Group, GroupId, Model};

/// Days ahead within which an expiry is a warning.
const WARN_DAYS: i64 = 30;

// ---- finding constructors ----

/// `expiry/<group>`: a group that expires soon or has expired, and the
/// components that share it.
#[derive(Debug)]
struct Lapsing {
    group: Arc<str>,
    kind: Option<Arc<str>>,
    expires: Date,
    today: Date,
    /// `name (n instances)` of the first members, and how many there are.
    members: Vec<(Arc<str>, u32)>,
    total: usize,
}

fn lapsing(model: &Model, id: GroupId, expires: Date, today: Date) -> Finding {
    let g = model.group(id);
    let members: Vec<(Arc<str>, u32)> = model
        .components
        .iter()
        .filter(|c| c.shares.contains(&id))
        .map(|c| (Arc::from(c.name.as_str()), c.instances))
        .collect();
    let severity = if expires.days() - today.days() > 0 {
        Severity::Warning
    } else {
        Severity::Error
    };
    let name: Arc<str> = Arc::from(g.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        severity,
        g.fields.get("expires").unwrap_or(g.span),
        Lapsing {
            group: name,
            kind: g.kind.as_deref().map(Arc::from),
            expires,
            today,
            total: members.len(),
            members,
        },
    )
}

impl Wording for Lapsing {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (expires, today) = (self.expires, self.today);
        out.write_str(&self.group)?;
        if let Some(kind) = &self.kind {
            write!(out, " ({kind})")?;
        }
        let left = expires.days() - today.days();
        match left {
            ..0 => write!(
                out,
                " expired on {expires}, {} day{} ago (today is {today})",
                -left,
                if left == -1 { "" } else { "s" }
            )?,
            0 => write!(out, " expires today, {expires}")?,
            _ => write!(
                out,
                " expires on {expires}, in {left} day{} (within {WARN_DAYS}; today is {today})",
                if left == 1 { "" } else { "s" }
            )?,
        }
        if self.members.is_empty() {
            return out.write_str(": no component shares it");
        }
        let names: Vec<String> = self
            .members
            .iter()
            .map(|(name, instances)| format!("{name} ({instances} instances)"))
            .collect();
        write!(
            out,
            ": every member fails with it at once: {}",
            super::wording::capped_list(&names, self.total, crate::engine::outage::LISTED)
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "renew {} and update `expires`, and automate the renewal with an alert well before the date",
            self.group
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Expiry,
    id: "expiry/<group>",
    severity: "warning",
    summary: "A shared-fate group with `expires` lapses soon, or has lapsed.",
    checks: "Every shared-fate group with an `expires` date, against today (or `--today`): a warning when it lapses within 30 days, an error on the day itself and after.",
    why: "A certificate, an API token or a licence does not fail at random: it fails on a known date, everywhere at once, for every component that uses it. Expired certificates are one of the most common causes of complete outages precisely because redundancy does not help and the date is easy to forget.",
    example: "shared_fate:\n  wildcard-cert: {kind: certificate, expires: 2026-12-24}   # expiry/wildcard-cert\ncomponents:\n  router: {instances: 6, shares: [wildcard-cert]}",
    fix: "Renew it and update `expires` in the model. Better, automate the renewal (ACME, short-lived tokens) and alert well before the date, so the model's date is a backstop rather than the only reminder.",
};

// ---- the check ----

/// The `expiry` rule.
pub struct Expiry;

impl Analyzer for Expiry {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for (index, group) in cx.model.groups.iter().enumerate() {
            if let Some(expires) = soon(group, cx.today) {
                audit
                    .findings
                    .push(lapsing(cx.model, GroupId(index), expires, cx.today));
            }
        }
    }
}

/// The expiry date, when it is within [`WARN_DAYS`] of `today` or past.
fn soon(group: &Group, today: Date) -> Option<Date> {
    group
        .expires
        .filter(|e| e.days() - today.days() <= WARN_DAYS)
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    // check_one runs on 2026-11-30.
    fn findings(expires: &str) -> Vec<Finding> {
        crate::analyze::check_one(
            &Expiry,
            &format!(
                r"system: s
shared_fate:
  cert:
    kind: certificate
    expires: {expires}
components:
  web: {{instances: 2, shares: [cert]}}
"
            ),
        )
        .findings
    }

    #[test]
    fn next_week_is_a_warning() {
        let found = findings("2026-12-07");
        // 2026-12-07 - 2026-11-30 = 7 days.
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(
            found[0].message().to_string(),
            "cert (certificate) expires on 2026-12-07, in 7 days (within 30; today is 2026-11-30): every member fails with it at once: web (2 instances)"
        );
        // Points at the `expires` key: line 5, column 5.
        assert_eq!((found[0].location.line, found[0].location.column), (5, 5));
    }

    #[test]
    fn past_and_today_are_errors() {
        let found = findings("2026-11-18");
        // 2026-11-30 - 2026-11-18 = 12 days ago.
        assert_eq!(found[0].severity, Severity::Error);
        assert!(
            found[0]
                .message().to_string()
                .contains("expired on 2026-11-18, 12 days ago"),
            "{}",
            found[0].message().to_string()
        );
        assert_eq!(findings("2026-11-30")[0].severity, Severity::Error);
    }

    #[test]
    fn the_boundary_is_thirty_days() {
        // 2026-12-30 is 30 days ahead: warned. 2026-12-31 is 31: not yet.
        assert_eq!(findings("2026-12-30").len(), 1);
        assert!(findings("2026-12-31").is_empty());
    }
}
