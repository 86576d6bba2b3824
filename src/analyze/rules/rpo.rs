//! `rpo/<component>`: the worst-case data loss exceeds the `rpo` target, or
//! no durable copy of the data exists at all.

use super::disaster_recovery::{self, Rpo};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Component, Duration, Recovery, Span};

// ---- finding constructors ----

/// `rpo/<component>`: the worst-case data loss against the target, or why
/// it cannot be judged.
#[derive(Debug)]
enum DataLoss {
    OverTarget {
        component: Arc<str>,
        rpo: Rpo,
        worst: Duration,
        target: Duration,
    },
    NoCopy {
        component: Arc<str>,
        target: Option<Duration>,
    },
    UnknownLag {
        component: Arc<str>,
        target: Duration,
    },
}

fn finding(span: Span, wording: DataLoss) -> Finding {
    let (DataLoss::OverTarget { component, .. }
    | DataLoss::NoCopy { component, .. }
    | DataLoss::UnknownLag { component, .. }) = &wording;
    Finding::new(DOC.rule, Arc::clone(component), Severity::Error, span, wording)
}

fn over_target(
    component: &Component,
    recovery: &Recovery,
    rpo: Rpo,
    worst: Duration,
    target: Duration,
) -> Finding {
    let wording = DataLoss::OverTarget {
        component: Arc::from(component.name.as_str()),
        rpo,
        worst,
        target,
    };
    finding(recovery.fields.get("rpo").unwrap_or(recovery.span), wording)
}

fn no_copy(component: &Component, recovery: &Recovery) -> Finding {
    let wording = DataLoss::NoCopy {
        component: Arc::from(component.name.as_str()),
        target: recovery.rpo,
    };
    finding(recovery.fields.get("rpo").unwrap_or(recovery.span), wording)
}

fn unknown_lag(component: &Component, recovery: &Recovery, target: Duration) -> Finding {
    let wording = DataLoss::UnknownLag {
        component: Arc::from(component.name.as_str()),
        target,
    };
    finding(recovery.fields.get("replication").unwrap_or(recovery.span), wording)
}

impl Wording for DataLoss {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataLoss::OverTarget {
                component,
                rpo,
                worst,
                target,
            } => write!(
                out,
                "worst-case data loss for {component} is {} > rpo {target} ({} over)",
                rpo.working(),
                Duration(worst.0 - target.0)
            ),
            DataLoss::NoCopy { component, target } => {
                write!(
                    out,
                    "{component} has no durable copy of its data: no replication, no log shipping, no backup_interval"
                )?;
                if let Some(target) = target {
                    write!(out, " against an rpo of {target}")?;
                }
                out.write_str("; losing it loses everything")
            }
            DataLoss::UnknownLag { component, target } => write!(
                out,
                "{component} replicates asynchronously with no `replication_lag` and has no other copy: its worst-case data loss cannot be checked against rpo {target}"
            ),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataLoss::OverTarget { target, rpo, .. } => {
                let has = |key: &str| {
                    matches!(rpo, Rpo::Copies(copies) if copies.iter().any(|(k, _)| *k == key))
                };
                let logs = if has("log_shipping") {
                    format!("ship logs at least every {target} (`log_shipping: {target}`)")
                } else {
                    "ship logs (`log_shipping`)".to_owned()
                };
                let standby = if has("replication_lag") {
                    format!("keep the async standby's lag under {target}, or replicate synchronously (`replication: sync`) for no loss")
                } else {
                    "replicate to a standby (`replication: async` with its lag, or `sync` for no loss)".to_owned()
                };
                write!(
                    out,
                    "keep a copy at most {target} old: {logs} or {standby}, or agree a longer rpo"
                )
            }
            DataLoss::NoCopy { .. } => out.write_str("take backups (`backup_interval`), ship logs (`log_shipping`) or replicate to a standby (`replication`); if the data may be lost, say so in an `accepted` entry"),
            DataLoss::UnknownLag { .. } => out.write_str("write the worst lag the standby has shown (`replication_lag: 10s`), or add log shipping or backups"),
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Rpo,
    id: "rpo/<component>",
    severity: "error",
    summary: "The worst-case data loss exceeds the `rpo` target, or no durable copy exists.",
    checks: "For every component with `recovery`: the worst-case data loss is 0 with `replication: sync`; otherwise the shortest of `replication_lag` (with `replication: async`), `log_shipping` and `backup_interval` that are given. Above the `rpo` target is an error. With none of them there is no durable copy at all, which is an error with or without a target.",
    why: "The RPO is the promise of how much recent data may be lost in a disaster. A nightly backup behind a 1-hour promise breaks it by up to 23 hours on a bad day; nobody notices until the restore.",
    example: "components:\n  db:\n    recovery: {rpo: 1h, backup_interval: 6h}   # rpo/db: 6h > 1h (5h over)",
    fix: "Add a copy that is at most the target old: continuous log shipping (`log_shipping: 5m`), an async standby (`replication: async`, `replication_lag`), or synchronous replication for no loss. Or agree a longer target with the data's owners.",
};

// ---- the check ----

/// The `rpo` rule.
pub struct RecoveryPoint;

impl Analyzer for RecoveryPoint {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for component in &cx.model.components {
            let Some(recovery) = &component.recovery else {
                continue;
            };
            let rpo = disaster_recovery::rpo(recovery);
            let finding = match (&rpo, rpo.worst(), recovery.rpo) {
                (Rpo::NoCopy, _, _) => Some(no_copy(component, recovery)),
                (Rpo::UnknownLag, _, Some(target)) => {
                    Some(unknown_lag(component, recovery, target))
                }
                (_, Some(worst), Some(target)) if worst > target => {
                    Some(over_target(component, recovery, rpo.clone(), worst, target))
                }
                _ => None,
            };
            audit.findings.extend(finding);
        }
        disaster_recovery::fill(cx.model, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&RecoveryPoint, text)
    }

    #[test]
    fn six_hourly_snapshots_miss_a_one_hour_rpo() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rpo: 1h, backup_interval: 6h}
");
        assert_eq!(audit.findings.len(), 1);
        // 6h − 1h = 5h over
        assert_eq!(
            audit.findings[0].message().to_string(),
            "worst-case data loss for db is backup_interval 6h > rpo 1h (5h over)"
        );
        assert_eq!(audit.recovery[0].worst_rpo_s, Some(21_600.0));
        assert_eq!(audit.recovery[0].rpo_margin_s, Some(-18_000.0));
    }

    #[test]
    fn no_copy_is_an_error_even_without_a_target() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rto: 1h, restore: 10m}
");
        assert_eq!(audit.findings.len(), 1);
        assert!(audit.findings[0].message().to_string().contains("no durable copy"));
        assert_eq!(audit.recovery[0].worst_rpo_s, None);
    }

    #[test]
    fn sync_replication_loses_nothing() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rpo: 0s, replication: sync}
");
        assert!(audit.findings.is_empty());
        assert_eq!(audit.recovery[0].rpo_ok, Some(true));
    }
}
