//! `drill/<component>`: a recovery never rehearsed, or rehearsed longer ago
//! than `policy.drill_max_age`.

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Component, Date, Duration, Recovery};

const DAY_MS: u64 = 86_400_000;

// ---- finding constructors ----

/// `drill/<component>`: a recovery never rehearsed, or last rehearsed too
/// long ago.
#[derive(Debug)]
enum Rehearsal {
    Never {
        component: Arc<str>,
    },
    Stale {
        component: Arc<str>,
        last: Date,
        age: i64,
        max: Duration,
    },
}

fn never(component: &Component, recovery: &Recovery) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        recovery.span,
        Rehearsal::Never { component: name },
    )
}

fn stale(
    component: &Component,
    recovery: &Recovery,
    last: Date,
    age: i64,
    max: Duration,
) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        recovery.fields.get("last_drill").unwrap_or(recovery.span),
        Rehearsal::Stale {
            component: name,
            last,
            age,
            max,
        },
    )
}

impl Wording for Rehearsal {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rehearsal::Never { component } => write!(
                out,
                "the recovery of {component} has never been rehearsed (no `last_drill`): its restore and failover times are guesses"
            ),
            Rehearsal::Stale {
                component,
                last,
                age,
                max,
            } => write!(
                out,
                "the recovery of {component} was last rehearsed on {last}, {age} days ago, more than policy.drill_max_age {max} ({} days)",
                max.0 / DAY_MS
            ),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(match self {
            Rehearsal::Never { .. } => "rehearse the restore or failover, measure it, and write the date as `last_drill` (and the measured times as `restore`/`failover`)",
            Rehearsal::Stale { .. } => "rehearse it again and update `last_drill`: systems, data sizes and people change, and so does the real restore time",
        })
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Drill,
    id: "drill/<component>",
    severity: "warning",
    summary: "A recovery never rehearsed, or rehearsed longer ago than `policy.drill_max_age`.",
    checks: "For every component with `recovery`: no `last_drill` is a finding; so is a `last_drill` more than `policy.drill_max_age` (default 90d) before today (`--today`, default the current UTC date).",
    why: "An unrehearsed recovery is a hope: backups that do not restore, credentials that expired, a runbook for last year's system. The `restore` and `failover` times that the RTO check uses are only as good as the last time someone measured them.",
    example: "components:\n  db:\n    recovery: {rto: 1h, backup_interval: 1h, restore: 30m, last_drill: 2026-01-10}   # drill/db: 324 days ago on 2026-11-30",
    fix: "Rehearse the restore or failover on a schedule shorter than `drill_max_age`, write the date as `last_drill`, and update `restore`/`failover` with what was measured.",
};

// ---- the check ----

/// The `drill` rule.
pub struct Drill;

impl Analyzer for Drill {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let max = cx.model.policy.drill_max_age;
        for component in &cx.model.components {
            let Some(recovery) = &component.recovery else {
                continue;
            };
            match recovery.last_drill {
                None => audit.findings.push(never(component, recovery)),
                Some(last) => {
                    let age = cx.today.days() - last.days();
                    let too_old = u64::try_from(age).is_ok_and(|days| {
                        u128::from(days) * u128::from(DAY_MS) > u128::from(max.0)
                    });
                    if too_old {
                        audit
                            .findings
                            .push(stale(component, recovery, last, age, max));
                    }
                }
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&Drill, text).findings
    }

    #[test]
    fn a_drill_older_than_the_policy_is_stale() {
        // 2026-05-12 to 2026-11-30 (the test's today): 19 + 30 + 31 + 31 + 30 + 31 + 30 = 202 days
        let found = findings(
            r"system: s
components:
  db:
    recovery: {backup_interval: 1h, last_drill: 2026-05-12}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message().to_string(),
            "the recovery of db was last rehearsed on 2026-05-12, 202 days ago, more than policy.drill_max_age 90d (90 days)"
        );
    }

    #[test]
    fn never_rehearsed_and_recent_drills() {
        let found = findings(
            r"system: s
components:
  db:
    recovery: {backup_interval: 1h}
",
        );
        assert!(found[0].message().to_string().contains("never been rehearsed"));
        // 2026-09-01 is 90 days before 2026-11-30: not older than 90d.
        assert!(
            findings(
                r"system: s
components:
  db:
    recovery: {last_drill: 2026-09-01}
"
            )
            .is_empty()
        );
        assert_eq!(
            findings(
                r"system: s
components:
  db:
    recovery: {last_drill: 2026-08-31}
"
            )
            .len(),
            1
        );
        // A drill in the future is not stale.
        assert!(
            findings(
                r"system: s
components:
  db:
    recovery: {last_drill: 2027-01-01}
"
            )
            .is_empty()
        );
    }
}
