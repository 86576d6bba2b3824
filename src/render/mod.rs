//! One renderer per output format. Renderers read an [`Audit`] (built by
//! `analyze/`, re-exported here for them) and never compute; the escapers
//! they share are [`crate::escape`] (re-exported here as `render::escape`),
//! which the MEF export below them uses too.

pub mod baseline;
pub mod budget;
pub mod diagnostics;
pub mod diagram;
pub mod experiments;
pub mod github;
pub mod json;
pub mod markdown;
pub mod recovery;
pub mod recovery_plot;
pub mod review;
pub mod sarif;
pub mod slow;
pub mod table;
pub mod verify;
pub mod what_if;

#[cfg(test)]
pub(crate) mod sample;

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

use rayon::prelude::*;

pub use crate::escape;

use crate::analyze::Severity;

pub use crate::analyze::results::{
    Audit, AvailabilityRow, Cascade, CascadeStep, ColdStart, HeadroomRow, Improvement, LatencyRow,
    RecoveryRow, RetryPath, Stampede, StormPoint,
};

/// What a renderer of `check`'s report is given besides the report and the
/// writer. Every `check` format (table, json, markdown, sarif, github) is a
/// [`Render`]: one signature, so the CLI picks a function and calls it.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The model file as shown to the reader (locations, headings).
    pub file: &'a str,
    /// The lowest severity of a new finding that fails the run (the
    /// markdown verdict says whether this run fails).
    pub threshold: Option<Severity>,
    /// Width and colour of the terminal (the table).
    pub style: table::Style,
}

impl<'a> Target<'a> {
    /// The file `file`, the default threshold (errors fail), 80 columns
    /// without colour: for tests and embedding.
    #[must_use]
    pub fn file(file: &'a str) -> Self {
        Self {
            file,
            threshold: Some(Severity::Error),
            style: table::Style {
                width: 80,
                color: false,
            },
        }
    }
}

/// A renderer of `check`'s report: writes `report` to `out` in one format,
/// streaming (nothing but the format's own small pieces is built in memory
/// first).
///
/// # Errors
/// When writing fails.
pub type Render = fn(audit: &Audit, target: &Target, out: &mut dyn Write) -> io::Result<()>;

/// Every user-supplied string of an audit made safe for a terminal (see
/// [`escape::terminal`]): the system's name, the accepted reasons, the
/// baseline's fixed ids and the headroom's lost domains. Names are safe
/// already (validation allows letters, digits, `.`, `_` and `-`). A
/// finding's id, message and fix (which quote kinds, traced service names
/// and accepted ids) are written only when shown: the table escapes them
/// as it writes them ([`table::finding_block`]).
pub fn terminal_audit(audit: &mut Audit) {
    fn clean(text: &mut String) {
        if let Cow::Owned(safe) = escape::terminal_lines(text) {
            *text = safe;
        }
    }
    clean(&mut audit.system);
    // Tens of thousands of findings on a large model: in parallel.
    audit.findings.par_iter_mut().for_each(|finding| {
        if let Some(reason) = &mut finding.justification {
            clean(reason);
        }
    });
    for id in &mut audit.fixed {
        clean(id);
    }
    audit.headroom.par_iter_mut().for_each(|row| {
        if let Cow::Owned(safe) = escape::terminal_lines(&row.lost) {
            row.lost = Arc::from(safe);
        }
    });
}
