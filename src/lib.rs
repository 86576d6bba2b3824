//! `nines`: reliability planning and audit for a distributed system described
//! in one YAML file.
//!
//! The crate is a pipeline that data flows through in one direction:
//!
//! ```text
//! YAML text ──load──▶ raw model ──validate──▶ Model ──analyzers──▶ Audit ──render──▶ table | json | markdown | sarif | github | review (markdown, html)
//! ```
//!
//! - [`model`] reads the text into a validated [`model::Model`], or every
//!   problem with its location;
//! - [`analyze`] runs the registered analyzers over the model and collects
//!   their findings;
//! - [`import`] writes a first model from Kubernetes manifests or from the
//!   service graph measured by traces, for the user to complete, and merges
//!   the traced graph into a model;
//! - [`render`] holds one renderer per format, reading the [`analyze::Audit`];
//! - [`cli`] resolves arguments into a run and is the only part that prints.

pub mod analyze;
pub mod cli;
pub mod engine;
pub mod escape;
// Generated models for the benches and the differential tests: support
// code, not API, so hidden from the documentation; public only because
// `benches/` and `tests/` see nothing else.
#[doc(hidden)]
pub mod generate;
pub mod human;
pub mod import;
pub mod model;
pub mod recover;
pub mod render;
