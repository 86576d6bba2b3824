//! The rules: one file per rule, named after the risk it finds, each in
//! the same order (finding constructors, documentation, the check, its
//! tests). The registry of names is `model::Rule`; the order of the report
//! is `analyze::ANALYZERS`. The call-path walk and the wording they share
//! stay in `analyze/`, reached from here as `super::…`; the graph questions
//! (start order, outages) are the engine's.

#[allow(
    clippy::wildcard_imports,
    reason = "the rule files name what they share with analyze/ as super::…"
)]
use super::*;

pub(super) mod cascade;
pub(super) mod cold_start;
pub(super) mod common_cause;
pub(super) mod deadline;
pub mod drift;
pub(super) mod drill;
pub(super) mod expiry;
pub(super) mod fallback;
pub(super) mod headroom;
pub(super) mod metastable;
pub(super) mod overload;
pub(super) mod placement;
pub(super) mod recovery_access;
pub(super) mod recovery_order;
pub(super) mod retry_amplification;
pub(super) mod retry_budget;
pub(super) mod retry_jitter;
pub(super) mod retry_layers;
pub(super) mod retry_storm;
pub(super) mod rpo;
pub(super) mod rto;
pub(super) mod shared_fate;
pub mod single_point_of_failure;
pub(super) mod slo;
pub(super) mod timeout;
