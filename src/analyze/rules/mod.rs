//! The rules: one file per rule, named after the risk it finds, each in
//! the same order (finding constructors, documentation, the check, its
//! tests). The registry (`model::rule::registry`, one line per rule) names
//! them, declares their modules here and orders [`ANALYZERS`], the order of
//! the report. The call-path walk and the wording they share stay in
//! `analyze/`, reached from here as `super::…`; the graph questions (start
//! order, outages) are the engine's.

#[allow(
    clippy::wildcard_imports,
    reason = "the rule files name what they share with analyze/ as super::…"
)]
use super::*;

/// Declares each analyzer's module and [`ANALYZERS`] from the registry
/// (`model::rule::registry`, one line per rule).
macro_rules! analyzers {
    ($($variant:ident = $name:literal $(=> $module:ident :: $analyzer:ident)?,)*) => {
        $($(pub mod $module;)?)*

        /// Every analyzer, in report order (the registry's).
        pub static ANALYZERS: &[&dyn super::Analyzer] = &[$($(&$module::$analyzer,)?)*];
    };
}

crate::model::rule::registry!(analyzers);

// Not an analyzer: the comparison with the observed graph behind
// `check --observed`, whose rule is the registry line without a module.
pub mod drift;
