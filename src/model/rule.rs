//! The registry of rules: every rule of the format, named once, in report
//! order. Finding ids are `<rule>/<subject>`; `accepted` ids, `--only`,
//! `explain` and each analyzer's [`RuleDoc`](crate::analyze::RuleDoc) take
//! the name from here. It lives in `model/` because `accepted:` entries are
//! checked against it while the model is validated.
//!
//! Adding a rule adds its file in `analyze/rules/` and one line to
//! [`registry`]: that line declares the variant, the name, the module and
//! the analyzer's place in the report; tests then ask for its documentation.

use std::fmt;

macro_rules! rule_enum {
    ($($variant:ident = $name:literal $(=> $module:ident :: $analyzer:ident)?,)*) => {
        /// A rule of the format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Rule {
            $(
                #[doc = concat!("`", $name, "`: `nines explain ", $name, "` says what it checks.")]
                $variant,
            )*
        }

        impl Rule {
            /// Every rule, in report order.
            pub const ALL: &[Rule] = &[$(Rule::$variant,)*];

            /// The name: the first part of its finding ids.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $(Rule::$variant => $name,)*
                }
            }
        }
    };
}

/// The registry, one line per rule in report order: the variant of
/// [`Rule`], the name, and for a rule an analyzer finds, its file in
/// `src/analyze/rules/` and the analyzer in it (`slo::Slo` is
/// `analyze/rules/slo.rs`). The list is handed to `$callback`, a macro
/// taking `Variant = "name" [=> module::Analyzer],`…: here it becomes
/// [`Rule`]; in `analyze::rules` the rule modules and `ANALYZERS`. Only
/// names are written here, nothing is imported from above `model/`: the
/// module paths are resolved where `analyze` expands the list.
macro_rules! registry {
    ($callback:ident) => {
        $callback! {
            Slo = "slo" => slo::Slo,
            Spof = "spof" => single_point_of_failure::SinglePointOfFailure,
            Placement = "placement" => placement::Placement,
            Unreachable = "unreachable" => unreachable::Unreachable,
            SharedFate = "shared-fate" => shared_fate::SharedFate,
            CommonCause = "common-cause" => common_cause::CommonCauseFailure,
            Expiry = "expiry" => expiry::Expiry,
            Overload = "overload" => overload::Overload,
            Headroom = "headroom" => headroom::Headroom,
            Cascade = "cascade" => cascade::FailoverCascade,
            Fallback = "fallback" => fallback::Fallback,
            RetryAmplification = "retry-amplification" => retry_amplification::RetryAmplification,
            RetryLayers = "retry-layers" => retry_layers::RetryLayers,
            RetryStorm = "retry-storm" => retry_storm::RetryStorm,
            RetryJitter = "retry-jitter" => retry_jitter::RetryJitter,
            RetryBudget = "retry-budget" => retry_budget::RetryBudget,
            Timeout = "timeout" => timeout::Timeout,
            Deadline = "deadline" => deadline::Deadline,
            RecoveryOrder = "recovery-order" => recovery_order::RecoveryOrder,
            ColdStart = "cold-start" => cold_start::ColdStart,
            Metastable = "metastable" => metastable::Metastable,
            Rpo = "rpo" => rpo::RecoveryPoint,
            Rto = "rto" => rto::RecoveryTime,
            DrPath = "dr-path" => dr_path::DrPath,
            Drill = "drill" => drill::Drill,
            RecoveryAccess = "recovery-access" => recovery_access::RecoveryAccess,
            // Found outside the analyzers: by the acceptances
            // (`analyze/status.rs`) and by `check --observed`
            // (`analyze/rules/drift.rs`).
            StaleAcceptance = "stale-acceptance",
            Drift = "drift",
        }
    };
}
pub(crate) use registry;

registry!(rule_enum);

impl Rule {
    /// The rule called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Rule> {
        Self::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// Every rule's name, in report order.
    pub fn names() -> impl Iterator<Item = &'static str> + Clone {
        Self::ALL.iter().map(|r| r.name())
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
