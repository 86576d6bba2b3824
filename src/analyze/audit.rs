//! The model-to-audit step, the one function `check`, `what-if`, `report`,
//! `baseline`, `graph` and the benches call: the availability figures, the
//! selected analyzers, findings raised outside them, acceptances, and the
//! line and column of every finding. The CLI only resolves its arguments
//! into [`Options`] and renders what comes back.

use super::results::Audit;
use super::{Analyzer, Context, Finding, apply_acceptances, availability_rows, merge, run_parts};
use crate::engine::scenario::Scenario;
use crate::engine::{self, Figure};
use crate::model::{ComponentId, Date, Model};

/// Every rule selected.
static EVERY_RULE: fn(&str) -> bool = |_| true;

/// How to audit: the date, which rules, and what is already known.
pub struct Options<'a> {
    /// "Now", for expiry dates and drill ages.
    pub today: Date,
    /// Which rules run, by name.
    pub selected: &'a (dyn Fn(&str) -> bool + Sync),
    /// Findings raised outside the analyzers (`drift`), added before
    /// acceptances apply (and only for selected rules).
    pub extra: Vec<Finding>,
    /// The availability figures, when already computed (what-if computes
    /// them on a copy where what is lost is down for certain); `None`
    /// computes them from the model.
    pub figures: Option<&'a [(ComponentId, Figure)]>,
    /// Whether a help's clauses proposing a setting already in force are
    /// left out ([`super::advice::in_force::guard`]): true but in tests,
    /// which turn it off to judge the help the rules themselves write.
    pub guard_help: bool,
}

impl Options<'_> {
    /// Every rule, on `today`, nothing known beforehand.
    #[must_use]
    pub fn new(today: Date) -> Self {
        Options {
            today,
            selected: &EVERY_RULE,
            extra: Vec::new(),
            figures: None,
            guard_help: true,
        }
    }
}

/// The audit of a valid `model` judged in `scenario` (the empty scenario
/// for `check`); `text` is the model text the findings are located in.
///
/// The analyzers that do not read the availability figures run while the
/// engine computes them; the others (`slo`) after.
#[must_use]
pub fn audit(model: &Model, text: &str, scenario: Scenario, options: Options) -> Audit {
    let selected = options.selected;
    let guard_help = options.guard_help;
    let chosen = |reading: bool| {
        move |analyzer: &dyn Analyzer| {
            analyzer.reads_figures() == reading && selected(analyzer.doc().name())
        }
    };
    let computed: Vec<(ComponentId, Figure)>;
    let mut cx = Context::under(model, options.today, &[], scenario);
    let parts = if let Some(figures) = options.figures {
        cx.figures = figures;
        run_parts(&cx, |analyzer| selected(analyzer.doc().name()))
    } else {
        let (figures, mut parts) = rayon::join(
            || engine::availability(model),
            || run_parts(&cx, chosen(false)),
        );
        computed = figures;
        cx.figures = &computed;
        parts.extend(run_parts(&cx, chosen(true)));
        parts
    };
    // The rows of the availability section while the findings are merged,
    // sorted and matched with acceptances; then the shared analyses are
    // freed while the findings are located.
    let (availability, mut audit) = rayon::join(
        || availability_rows(model, cx.figures),
        || {
            let mut audit = Audit::new(model.system.clone(), Vec::new());
            merge(parts, &mut audit);
            audit
                .findings
                .extend(options.extra.into_iter().filter(|f| selected(f.rule)));
            audit.findings.sort_by(Finding::cmp_id);
            apply_acceptances(&cx, &mut audit.findings, selected);
            // No help proposes a setting its subject already has: the rules
            // see to it, and this leaves out any clause that still does.
            if guard_help {
                super::advice::in_force::guard(model, &mut audit.findings);
            }
            audit
        },
    );
    audit.request_mix = super::rules::slo::request_mix(model, &availability);
    audit.availability = availability;
    rayon::join(|| drop(cx), || audit.locate(text));
    audit
}
