//! One renderer per output format, and the escapers they share. Renderers
//! read an [`Audit`] (built by `analyze/`, re-exported here for them) and
//! never compute.

pub mod baseline;
pub mod budget;
pub mod diagnostics;
pub mod diagram;
pub mod escape;
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

use std::io::{self, Write};

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
