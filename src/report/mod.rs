//! One renderer per output format, and the escapers they share. Renderers
//! read a [`Report`] (built by `analyze/`, re-exported here for them) and
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

pub use crate::analyze::results::{
    AvailabilityRow, Cascade, CascadeStep, ColdStart, HeadroomRow, Improvement, LatencyRow,
    RecoveryRow, Report, RetryPath, Stampede, StormPoint,
};
