//! One renderer per output format. Renderers read a [`Report`] (built by
//! `analyze/`, re-exported here for them) and never compute; the escapers
//! they share are [`crate::escape`] (re-exported here as `report::escape`),
//! which the MEF export below them uses too.

use std::borrow::Cow;

pub use crate::escape;

pub mod baseline;
pub mod budget;
pub mod diagnostics;
pub mod diagram;
pub mod github;
pub mod json;
pub mod markdown;
pub mod recovery;
pub mod recovery_plot;
pub mod review;
pub mod sarif;
pub mod table;
pub mod what_if;

#[cfg(test)]
pub(crate) mod sample;

pub use crate::analyze::results::{
    AvailabilityRow, Cascade, CascadeStep, ColdStart, HeadroomRow, Improvement, LatencyRow,
    RecoveryRow, Report, RetryPath, Stampede, StormPoint,
};

/// Every user-supplied string of a report made safe for a terminal (see
/// [`escape::terminal`]): the system's name, finding ids, messages, help texts and
/// reasons (which quote kinds), the baseline's fixed ids and the headroom's
/// lost domains. Names are safe already (validation allows letters, digits,
/// `.`, `_` and `-`).
pub fn terminal_report(report: &mut Report) {
    fn clean(text: &mut String) {
        if let Cow::Owned(safe) = escape::terminal_lines(text) {
            *text = safe;
        }
    }
    clean(&mut report.system);
    for finding in &mut report.findings {
        clean(&mut finding.id);
        clean(&mut finding.message);
        if let Some(help) = &mut finding.help {
            clean(help);
        }
        if let Some(reason) = &mut finding.justification {
            clean(reason);
        }
    }
    for id in &mut report.fixed {
        clean(id);
    }
    for row in &mut report.headroom {
        clean(&mut row.lost);
    }
}
