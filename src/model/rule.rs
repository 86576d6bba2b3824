//! The registry of rules: every rule of the format, named once, in report
//! order. Finding ids are `<rule>/<subject>`; `accepted` ids, `--only`,
//! `explain` and each analyzer's [`RuleDoc`](crate::analyze::RuleDoc) take
//! the name from here. It lives in `model/` because `accepted:` entries are
//! checked against it while the model is validated.
//!
//! Adding a rule adds one line below; the compiler then asks for its
//! analyzer (`analyze::rules`) and a test for its documentation.

use std::fmt;

macro_rules! rules {
    ($($variant:ident = $name:literal,)*) => {
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

rules! {
    Slo = "slo",
    Spof = "spof",
    Placement = "placement",
    SharedFate = "shared-fate",
    CommonCause = "common-cause",
    Expiry = "expiry",
    Overload = "overload",
    Headroom = "headroom",
    Cascade = "cascade",
    Fallback = "fallback",
    RetryAmplification = "retry-amplification",
    RetryLayers = "retry-layers",
    RetryStorm = "retry-storm",
    RetryJitter = "retry-jitter",
    RetryBudget = "retry-budget",
    Timeout = "timeout",
    Deadline = "deadline",
    RecoveryOrder = "recovery-order",
    ColdStart = "cold-start",
    Metastable = "metastable",
    Rpo = "rpo",
    Rto = "rto",
    Drill = "drill",
    RecoveryAccess = "recovery-access",
    StaleAcceptance = "stale-acceptance",
    Drift = "drift",
}

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
