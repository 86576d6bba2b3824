//! The analyses. Each analyzer lives in its own file named after the risk it
//! finds, with the same order inside: finding constructors, documentation,
//! the check, its tests. [`ANALYZERS`] comes from the registry
//! (`model::rule::registry`, one line per rule); its order is the order of
//! the report.

pub mod advice;
pub mod audit;
mod call_paths;
mod contingency;
mod disaster_recovery;
pub mod finding;
pub(crate) use rules::headroom::LARGEST_SENSIBLE_FLEET;
pub mod experiments;
mod loss;
pub mod results;
mod rules;
pub mod slow;
mod status;
pub mod verify;
pub mod what_if;
pub(crate) mod wording;

pub use audit::{Options, audit};
pub use finding::{Finding, Location, Severity, Status, Subject, Text, Wording, by_severity};
pub use rules::slo::availability_rows;
pub use rules::{ANALYZERS, drift, single_point_of_failure};
pub use status::{apply_acceptances, today_utc};
pub use wording::describe_outage;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::prelude::*;

use crate::analyze::results::Audit;
use crate::engine::Figure;
use crate::engine::concurrency::{Concurrency, Plan, Slowed, concurrency};
use crate::engine::scenario::{Baseline, Scenario};
use crate::engine::start_order::{self, StartOrder};
use crate::engine::state::{Flow, State};
use crate::model::{ComponentId, Date, DomainId, Model, Rule};

/// The state after one loss, built by the first rule that asks for it.
type LossState = Arc<OnceLock<Arc<State>>>;

/// What an analyzer sees.
pub struct Context<'a> {
    /// The validated model.
    pub model: &'a Model,
    /// "Now", for expiry dates and drill ages.
    pub today: Date,
    /// The availability of each entrypoint, computed once for all analyzers.
    pub figures: &'a [(ComponentId, Figure)],
    /// The call paths, walked once for the three retry rules.
    call_paths: OnceLock<call_paths::CallPaths<'a>>,
    /// The start order, planned once for cold-start and recovery-order.
    start_order: OnceLock<StartOrder<'a>>,
    /// The scenario being checked (empty for `check`).
    pub scenario: Scenario,
    /// The dependency order and intact loads (built on first use).
    flow: OnceLock<Arc<Flow>>,
    /// Whether losing a domain or group breaks an entrypoint, shared by
    /// `common-cause` and `recovery-access` (built on first use).
    loss_judge: OnceLock<loss::LossJudge>,
    /// The state of the system in `scenario` (computed on first use).
    state: OnceLock<State>,
    /// What is up in `scenario` and who calls whom, from which `spof`,
    /// `shared-fate` and the loss judge walk single events (built on first
    /// use).
    baseline: OnceLock<Arc<Baseline>>,
    /// The state with some domains lost too, by the domains lost: built
    /// once per loss for `headroom` and the loss judge.
    loss_states: Mutex<BTreeMap<Vec<DomainId>, LossState>>,
    /// The concurrency plan and the checked state's concurrency at normal
    /// latency, for the rules of slowness (built on first use).
    concurrency: OnceLock<(Plan, Concurrency)>,
}

impl<'a> Context<'a> {
    /// What the analyzers of one run see.
    #[must_use]
    pub fn new(model: &'a Model, today: Date, figures: &'a [(ComponentId, Figure)]) -> Self {
        Self::under(model, today, figures, Scenario::default())
    }

    /// What the analyzers see when they judge the system in `scenario`.
    #[must_use]
    pub fn under(
        model: &'a Model,
        today: Date,
        figures: &'a [(ComponentId, Figure)],
        scenario: Scenario,
    ) -> Self {
        Self {
            model,
            today,
            figures,
            call_paths: OnceLock::new(),
            start_order: OnceLock::new(),
            scenario,
            flow: OnceLock::new(),
            loss_judge: OnceLock::new(),
            state: OnceLock::new(),
            baseline: OnceLock::new(),
            loss_states: Mutex::new(BTreeMap::new()),
            concurrency: OnceLock::new(),
        }
    }

    /// The dependency order and intact loads of the model.
    pub fn flow(&self) -> &Flow {
        self.shared_flow()
    }

    fn shared_flow(&self) -> &Arc<Flow> {
        self.flow.get_or_init(|| Arc::new(Flow::new(self.model)))
    }

    /// The judge of losses (built on first use, its answers memoised). It
    /// judges from the empty scenario: it shares the checked scenario's
    /// baseline when that is the empty one (as for `check`).
    pub(crate) fn loss_judge(&self) -> &loss::LossJudge {
        self.loss_judge.get_or_init(|| {
            let baseline = if self.scenario == Scenario::default() {
                Arc::clone(self.shared_baseline())
            } else {
                Arc::new(Baseline::with_callers(
                    self.model,
                    &Scenario::default(),
                    Arc::clone(self.flow().callers()),
                ))
            };
            loss::LossJudge::new(self.model, Arc::clone(self.shared_flow()), baseline)
        })
    }

    /// What is up in the checked scenario, and who calls whom: where
    /// single-event checks start (built on first use).
    pub fn baseline(&self) -> &Baseline {
        self.shared_baseline()
    }

    fn shared_baseline(&self) -> &Arc<Baseline> {
        self.baseline.get_or_init(|| {
            let callers = Arc::clone(self.flow().callers());
            Arc::new(Baseline::with_callers(self.model, &self.scenario, callers))
        })
    }

    /// The system in the scenario being checked: every structural and load
    /// rule reads this one state.
    pub fn state(&self) -> &State {
        self.state
            .get_or_init(|| State::new(self.model, self.flow(), &self.scenario))
    }

    /// The state of the checked scenario with `event` happening too, worked
    /// out from the checked one ([`State::after`]).
    pub fn state_with(&self, event: &Scenario) -> State {
        State::after(
            self.model,
            self.flow(),
            self.state(),
            &self.scenario.and(event),
        )
    }

    /// The state of the checked scenario with `domains` lost too: built
    /// once per set of domains and shared (a rule on another thread that
    /// asks for the same loss waits for it instead of building it again).
    pub(crate) fn state_losing(&self, domains: &[DomainId]) -> Arc<State> {
        let cell = {
            let mut states = self
                .loss_states
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::clone(states.entry(domains.to_vec()).or_default())
        };
        // Kept to be read by every rule, never built on: without the
        // record of its last offer.
        Arc::clone(cell.get_or_init(|| {
            Arc::new(
                self.state_with(&Scenario {
                    domains: domains.to_vec(),
                    ..Scenario::default()
                })
                .without_record(),
            )
        }))
    }

    /// The concurrency plan of the model and the concurrency of the checked
    /// state at normal latency (computed on first use).
    pub fn concurrency(&self) -> &(Plan, Concurrency) {
        self.concurrency.get_or_init(|| {
            let plan = Plan::new(self.model, self.flow());
            let base = concurrency(self.model, &plan, self.state(), &Slowed::default(), None);
            (plan, base)
        })
    }

    /// Every call path from the entrypoints (walked on first use).
    pub(crate) fn call_paths(&self) -> &call_paths::CallPaths<'a> {
        self.call_paths.get_or_init(|| call_paths::walk(self.model))
    }

    /// The cold-start order (planned on first use).
    pub(crate) fn start_order(&self) -> &StartOrder<'a> {
        self.start_order
            .get_or_init(|| start_order::plan(self.model, self.flow().graph()))
    }
}

/// A rule's documentation, in the fixed sections `nines explain` prints and
/// `docs/rules.md` is generated from.
#[derive(Debug)]
pub struct RuleDoc {
    /// The rule, from the registry ([`Rule`]).
    pub rule: Rule,
    /// The id pattern, such as `placement/<component>`.
    pub id: &'static str,
    /// Default severity, in words.
    pub severity: &'static str,
    /// One line.
    pub summary: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A model that fires it.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

impl RuleDoc {
    /// The rule name, the first part of its finding ids.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.rule.name()
    }
}

/// One analysis over the model.
pub trait Analyzer: Sync {
    /// Its documentation.
    fn doc(&self) -> &'static RuleDoc;
    /// Adds its findings to `report.findings`, and its figures (headroom
    /// rows, cascade walks, retry paths …) to the report's sections.
    fn check(&self, cx: &Context, audit: &mut Audit);
    /// Whether it reads the availability figures (`Context::figures`).
    /// Those that do not run while the engine computes them
    /// ([`audit()`](audit::audit)), the others after.
    fn reads_figures(&self) -> bool {
        false
    }
}

/// The documentation of every implemented rule, in report order.
pub fn docs() -> impl Iterator<Item = &'static RuleDoc> {
    ANALYZERS
        .iter()
        .map(|a| a.doc())
        .chain([&status::STALE, &drift::DOC])
}

/// The documentation of one rule, if it is implemented.
#[must_use]
pub fn doc(rule: &str) -> Option<&'static RuleDoc> {
    docs().find(|d| d.name() == rule)
}

/// The analyzer of a rule, if it is implemented.
#[must_use]
pub fn analyzer(rule: &str) -> Option<&'static dyn Analyzer> {
    ANALYZERS.iter().copied().find(|a| a.doc().name() == rule)
}

/// One analyzer's part of an audit, with its place in the registry.
pub(crate) type Part = (usize, Audit);

/// Runs the analyzers `chosen` picks, in parallel, each into a part of its
/// own. Analyzers are independent, and [`merge`] puts the parts together in
/// registry order ([`Audit::absorb`]), so the result does not depend on the
/// threads.
pub(crate) fn run_parts(cx: &Context, chosen: impl Fn(&dyn Analyzer) -> bool + Sync) -> Vec<Part> {
    ANALYZERS
        .par_iter()
        .enumerate()
        .filter(|(_, analyzer)| chosen(**analyzer))
        .map(|(index, analyzer)| {
            let mut part = Audit::new(String::new(), Vec::new());
            analyzer.check(cx, &mut part);
            (index, part)
        })
        .collect()
}

/// Merges `parts` into `audit` in registry order, then sorts its findings
/// by id (dropping repeats).
pub(crate) fn merge(mut parts: Vec<Part>, audit: &mut Audit) {
    parts.sort_by_key(|(index, _)| *index);
    for (_, part) in parts {
        audit.absorb(part);
    }
    audit.findings.sort_by(Finding::cmp_id);
    audit.findings.dedup_by(|a, b| a.cmp_id(b).is_eq());
}

/// Runs one analyzer on a model text, on 2026-11-30, for analyzer tests.
///
/// # Panics
/// When the text is not a valid model.
#[cfg(test)]
pub(crate) fn check_one(analyzer: &dyn Analyzer, text: &str) -> Audit {
    let model = crate::model::parse(text)
        .unwrap_or_else(|problems| panic!("invalid test model: {problems:#?}"));
    let figures = crate::engine::availability(&model);
    let cx = Context::new(&model, Date::parse("2026-11-30").expect("a date"), &figures);
    let mut audit = Audit::new(model.system.clone(), Vec::new());
    analyzer.check(&cx, &mut audit);
    audit.locate(text);
    audit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_that_runs_beside_the_engine_reads_no_figure() {
        // The rules that say they do not read the availability figures run
        // while the engine computes them, so they see an empty list: on
        // every example model, each must give the same audit with the
        // figures as without them (a rule that starts reading figures
        // without saying so fails here instead of silently seeing none).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let mut paths = Vec::new();
        crate::model::load::tests::yaml_files(&dir, &mut paths);
        paths.sort();
        assert!(paths.len() >= 3, "{paths:?}");
        let today = Date::parse("2026-11-30").expect("a date");
        let mut with_figures = 0;
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("readable");
            let model = crate::model::parse(&text).expect("a valid example");
            let figures = crate::engine::availability(&model);
            with_figures += usize::from(!figures.is_empty());
            for analyzer in ANALYZERS.iter().filter(|a| !a.reads_figures()) {
                let run = |figures: &[(ComponentId, Figure)]| {
                    let cx = Context::new(&model, today, figures);
                    let mut audit = Audit::new(model.system.clone(), Vec::new());
                    analyzer.check(&cx, &mut audit);
                    serde_json::to_string(&audit).expect("serializable")
                };
                assert_eq!(
                    run(&figures),
                    run(&[]),
                    "{} reads the figures on {}",
                    analyzer.doc().name(),
                    path.display()
                );
            }
        }
        assert!(with_figures >= 3);
    }

    #[test]
    fn every_rule_of_the_registry_has_one_documentation_in_registry_order() {
        let documented: Vec<Rule> = docs().map(|d| d.rule).collect();
        let mut expected = Rule::ALL.to_vec();
        // The two rules found outside the analyzers come last in `docs()`.
        expected.retain(|r| !matches!(r, Rule::StaleAcceptance | Rule::Drift));
        expected.extend([Rule::StaleAcceptance, Rule::Drift]);
        assert_eq!(documented, expected);
        for doc in docs() {
            assert!(
                doc.id.starts_with(&format!("{}/", doc.name())),
                "{}",
                doc.id
            );
            assert!(std::ptr::eq(super::doc(doc.name()).unwrap(), doc));
        }
    }

    #[test]
    fn the_registry_names_each_rule_once() {
        let mut names: Vec<&str> = Rule::names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            assert_eq!(Rule::from_name(rule.name()), Some(*rule));
        }
    }
}
