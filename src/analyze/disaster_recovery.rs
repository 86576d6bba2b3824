//! The disaster-recovery figures shared by `rpo` and `rto`: the worst-case
//! data loss and recovery time of a component's `recovery` block, and the
//! rows of the report's `recovery` section.

use super::wording::percent;
use crate::analyze::results::{Audit, RecoveryRow};
use crate::model::{Duration, Model, Recovery, Replication};

/// Worst-case data loss.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rpo {
    /// Synchronous replication: no committed write is lost.
    Sync,
    /// The shortest of the copies present: `(key, interval)` of each.
    Copies(Vec<(&'static str, Duration)>),
    /// An async standby whose lag is not given, and no other copy.
    UnknownLag,
    /// No replication, no log shipping, no backups.
    NoCopy,
}

impl Rpo {
    /// The figure, when there is one.
    pub fn worst(&self) -> Option<Duration> {
        match self {
            Rpo::Sync => Some(Duration(0)),
            Rpo::Copies(copies) => copies.iter().map(|&(_, d)| d).min(),
            Rpo::UnknownLag | Rpo::NoCopy => None,
        }
    }

    /// `min(replication_lag 30s, backup_interval 24h) = 30s`.
    pub fn working(&self) -> String {
        match self {
            Rpo::Sync => "0 (synchronous replication)".to_owned(),
            Rpo::Copies(copies) if copies.len() == 1 => {
                format!("{} {}", copies[0].0, copies[0].1)
            }
            Rpo::Copies(copies) => format!(
                "min({}) = {}",
                copies
                    .iter()
                    .map(|(key, d)| format!("{key} {d}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.worst().unwrap_or_default()
            ),
            Rpo::UnknownLag => "unknown (async replication without `replication_lag`)".to_owned(),
            Rpo::NoCopy => "everything since the start (no durable copy)".to_owned(),
        }
    }
}

/// Worst-case recovery time: detect + decide + failover or restore.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rto {
    /// Failure to knowing (0 when not given).
    pub detect: Duration,
    /// Knowing to deciding (0 when not given).
    pub decide: Duration,
    /// `failover` with a standby, else `restore`.
    pub action: &'static str,
    /// Its time.
    pub action_time: Duration,
}

impl Rto {
    /// The sum.
    pub fn total(self) -> Duration {
        Duration(self.detect.0 + self.decide.0 + self.action_time.0)
    }

    /// Share of the total spent detecting and deciding.
    pub fn detect_decide_share(self) -> f64 {
        let total = self.total().seconds();
        if total > 0.0 {
            (self.detect.seconds() + self.decide.seconds()) / total
        } else {
            0.0
        }
    }

    /// `detect 5m + decide 30m + failover 10m = 45m`.
    pub fn working(self) -> String {
        format!(
            "detect {} + decide {} + {} {} = {}",
            self.detect,
            self.decide,
            self.action,
            self.action_time,
            self.total()
        )
    }

    /// `detecting and deciding are 35m of 45m (77.8%)`.
    pub fn share_words(self) -> String {
        format!(
            "detecting and deciding are {} of {} ({})",
            Duration(self.detect.0 + self.decide.0),
            self.total(),
            percent(self.detect_decide_share())
        )
    }
}

/// Whether a standby exists.
pub(crate) fn has_standby(recovery: &Recovery) -> bool {
    recovery.replication != Replication::None
}

/// The worst-case RPO.
pub(crate) fn rpo(recovery: &Recovery) -> Rpo {
    if recovery.replication == Replication::Sync {
        return Rpo::Sync;
    }
    let lag = if recovery.replication == Replication::Async {
        recovery.replication_lag
    } else {
        None
    };
    let copies: Vec<(&'static str, Duration)> = [
        ("replication_lag", lag),
        ("log_shipping", recovery.log_shipping),
        ("backup_interval", recovery.backup_interval),
    ]
    .into_iter()
    .filter_map(|(key, d)| d.map(|d| (key, d)))
    .collect();
    if !copies.is_empty() {
        Rpo::Copies(copies)
    } else if recovery.replication == Replication::Async {
        Rpo::UnknownLag
    } else {
        Rpo::NoCopy
    }
}

/// The worst-case RTO, when the time of the recovery action is known:
/// `failover` with a standby (falling back to `restore` when no failover
/// time is given), else `restore`.
pub(crate) fn rto(recovery: &Recovery) -> Option<Rto> {
    let (action, action_time) = match (has_standby(recovery), recovery.failover) {
        (true, Some(failover)) => ("failover", failover),
        _ => ("restore", recovery.restore?),
    };
    Some(Rto {
        detect: recovery.detect.unwrap_or_default(),
        decide: recovery.decide.unwrap_or_default(),
        action,
        action_time,
    })
}

/// Whether the worst-case recovery is a restore (no standby to fail over
/// to, or no `failover` time) from a backup that does not exist (no
/// `backup_interval`): then there is no recovery time at all, whatever
/// `restore` says (shipped logs replay on top of a backup, not instead).
pub(crate) fn restores_from_nothing(recovery: &Recovery) -> bool {
    rto(recovery).is_some_and(|r| r.action == "restore") && recovery.backup_interval.is_none()
}

/// One row per component with `recovery`, in model order.
pub(crate) fn rows(model: &Model) -> Vec<RecoveryRow> {
    model
        .components
        .iter()
        .filter_map(|c| c.recovery.as_ref().map(|r| (c, r)))
        .map(|(component, recovery)| {
            let data_loss = rpo(recovery).worst().map(Duration::seconds);
            let no_backup = restores_from_nothing(recovery);
            let recovery_time = rto(recovery).filter(|_| !no_backup);
            let rpo_target = recovery.rpo.map(Duration::seconds);
            let rto_target = recovery.rto.map(Duration::seconds);
            let worst_rto_s = recovery_time.map(|r| r.total().seconds());
            let margin = |target: Option<f64>, worst: Option<f64>| Some(target? - worst?);
            RecoveryRow {
                component: component.name.clone(),
                worst_rpo_s: data_loss,
                worst_rto_s,
                rpo_ok: rpo_target.map(|t| data_loss.is_some_and(|w| w <= t)),
                rto_ok: rto_target.and_then(|t| worst_rto_s.map(|w| w <= t)),
                rpo_target_s: rpo_target,
                rto_target_s: rto_target,
                rpo_margin_s: margin(rpo_target, data_loss),
                rto_margin_s: margin(rto_target, worst_rto_s),
                detect_decide_share: recovery_time.map(Rto::detect_decide_share),
                standby: has_standby(recovery),
                restore_without_backup: no_backup,
            }
        })
        .collect()
}

/// Fills the report's `recovery` section once, whichever rule runs first.
pub(crate) fn fill(model: &Model, audit: &mut Audit) {
    if audit.recovery.is_empty() {
        audit.recovery = rows(model);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recovery(block: &str) -> Recovery {
        let text = format!(
            r"system: s
components:
  db:
    recovery: {block}
"
        );
        let model = crate::model::parse(&text).unwrap_or_else(|p| panic!("{p:#?}"));
        *model.components[0]
            .recovery
            .clone()
            .expect("a recovery block")
    }

    #[test]
    fn rpo_takes_the_shortest_copy() {
        let r = recovery(
            "{replication: async, replication_lag: 30s, log_shipping: 5m, backup_interval: 24h}",
        );
        // min(30s, 5m, 24h) = 30s
        assert_eq!(rpo(&r).worst(), Some(Duration(30_000)));
        assert_eq!(
            rpo(&r).working(),
            "min(replication_lag 30s, log_shipping 5m, backup_interval 1d) = 30s"
        );
        assert_eq!(
            rpo(&recovery("{replication: sync, backup_interval: 1h}")).worst(),
            Some(Duration(0))
        );
        assert_eq!(rpo(&recovery("{rpo: 1h}")), Rpo::NoCopy);
        assert_eq!(rpo(&recovery("{replication: async}")), Rpo::UnknownLag);
        // A lag without async replication is no copy.
        assert_eq!(
            rpo(&recovery("{replication_lag: 5s, backup_interval: 6h}")).worst(),
            Some(Duration(21_600_000))
        );
    }

    #[test]
    fn rto_uses_failover_with_a_standby_else_restore() {
        let r =
            recovery("{replication: async, detect: 5m, decide: 30m, failover: 10m, restore: 3h}");
        // 5m + 30m + 10m = 45m; (5 + 30) / 45 = 77.8%
        let figure = rto(&r).expect("a figure");
        assert_eq!(figure.total(), Duration(45 * 60_000));
        assert_eq!(
            figure.share_words(),
            "detecting and deciding are 35m of 45m (77.8%)"
        );
        let r = recovery("{detect: 5m, decide: 15m, failover: 1m, restore: 45m}");
        // no standby: 5m + 15m + 45m = 65m
        assert_eq!(rto(&r).expect("a figure").total(), Duration(65 * 60_000));
        assert_eq!(rto(&recovery("{detect: 5m}")), None);
    }

    #[test]
    fn a_restore_needs_the_backup_it_restores_from() {
        // 5m + 15m + restore 25m = 45m, but nothing to restore: no figure.
        let r = recovery("{rto: 1h, detect: 5m, decide: 15m, restore: 25m}");
        assert!(restores_from_nothing(&r));
        let text = "system: s\ncomponents:\n  db:\n    recovery: {rto: 1h, detect: 5m, decide: 15m, restore: 25m}\n";
        let row = &rows(&crate::model::parse(text).unwrap())[0];
        assert_eq!((row.worst_rto_s, row.rto_ok), (None, None));
        assert!(row.restore_without_backup);
        // With a backup every 6h, or a standby that fails over, it is fine.
        assert!(!restores_from_nothing(&recovery(
            "{backup_interval: 6h, detect: 5m, restore: 25m}"
        )));
        assert!(!restores_from_nothing(&recovery(
            "{replication: async, failover: 5m, restore: 25m}"
        )));
    }
}
