//! `slo/<entrypoint>`: an entrypoint whose availability is below the
//! objective. Also turns the engine's figures into the report's
//! availability rows.

use std::collections::BTreeMap;

use rayon::prelude::*;

use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::{Audit, AvailabilityRow, CapacityCostRow, Improvement};
use crate::engine::{Figure, Method, Subject};
use crate::model::Rule;
use crate::model::{Component, ComponentId, Model, Objective};

const YEAR_S: f64 = 365.25 * 86_400.0;

// ---- finding constructors ----

/// `slo/<entrypoint>` below its objective: the figure, the objective and
/// the three largest gains.
#[derive(Debug)]
struct BelowObjective {
    component: Arc<str>,
    /// "at most " for an upper bound, else "".
    at_most: &'static str,
    availability: f64,
    objective: Objective,
    /// The three largest gains per window: what never fails, and the
    /// downtime saved in seconds.
    top: Vec<(Arc<str>, f64)>,
}

fn below_objective(
    model: &Model,
    component: &Component,
    figure: &Figure,
    objective: &Objective,
) -> Finding {
    let window = objective.window.seconds();
    let top = figure
        .improvement
        .iter()
        .take(3)
        .map(|(subject, gain)| (Arc::from(subject.name(model)), gain * window))
        .collect();
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        component.span,
        BelowObjective {
            component: name,
            at_most: at_most(figure),
            availability: figure.availability,
            objective: *objective,
            top,
        },
    )
}

impl Wording for BelowObjective {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let objective = &self.objective;
        let window = objective.window.seconds();
        let down = (1.0 - self.availability) * window;
        let budget = (1.0 - objective.availability) * window;
        let time = crate::human::duration;
        write!(
            out,
            "{} reaches {}{} ({:.2} nines) against an objective of {}: {} of downtime per {} window against a budget of {}, {} over",
            self.component,
            self.at_most,
            percent(self.availability),
            nines(self.availability),
            percent(objective.availability),
            time(down),
            time(window),
            time(budget),
            time(down - budget),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.top.is_empty() {
            return out.write_str(
                "every figure that matters is at 100%: lower the objective or add redundancy",
            );
        }
        out.write_str("the largest gains per window if one thing never failed: ")?;
        for (index, (name, gain)) in self.top.iter().enumerate() {
            let comma = if index > 0 { ", " } else { "" };
            write!(out, "{comma}{name} (+{})", crate::human::duration(*gain))?;
        }
        Ok(())
    }
}

/// `slo/<entrypoint>` met only by assuming instant failover: the figure,
/// the objective and the caveats.
#[derive(Debug)]
struct MetOnlyIf {
    component: Arc<str>,
    at_most: &'static str,
    availability: f64,
    objective: f64,
    caveats: Vec<String>,
}

/// The figure meets the objective only by assuming instant failover.
fn met_only_if(component: &Component, figure: &Figure, objective: &Objective) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.span,
        MetOnlyIf {
            component: name,
            at_most: at_most(figure),
            availability: figure.availability,
            objective: objective.availability,
            caveats: figure.caveats.clone(),
        },
    )
}

impl Wording for MetOnlyIf {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "{} reaches {}{} against an objective of {} only if failover is instant: {}",
            self.component,
            self.at_most,
            percent(self.availability),
            percent(self.objective),
            self.caveats.join("; "),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("give the active side `mttr` (with `availability` or `mtbf`) so the switchover time can be counted, or make the alternatives hot (`switchover: 0s`)")
    }
}

/// "at most " when components on the path have no figure: the figure is
/// then an upper bound, in every sentence that quotes it.
fn at_most(figure: &Figure) -> &'static str {
    if figure
        .unquantified
        .iter()
        .any(|s| matches!(s, Subject::Component(_)))
    {
        "at most "
    } else {
        ""
    }
}

fn percent(a: f64) -> String {
    let text = crate::human::availability(a);
    let text = text.trim_end_matches('%');
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// `-log10(1 - a)`: [`nines_of`] of `1 - a` (a figure of exactly 1 shows
/// as 99 nines, docs/json.md; 0 as 0, never `-0`).
fn nines(a: f64) -> f64 {
    nines_of(1.0 - a)
}

/// `-log10(u)` of an unavailability carried in failure space (26.3 for
/// 5e-27, where `1 − a` would be 0); a perfect figure shows as 99 nines
/// (docs/json.md). A figure that is not perfect is never capped: 60 zones
/// that must all fail at 1% each give 1e-120, 120 nines, and showing it as
/// "≤ 99" would say less than the truth.
fn nines_of(u: f64) -> f64 {
    if u <= 0.0 {
        99.0
    } else {
        // `+ 0.0` turns the -0 of a figure of 0 into 0: `max` may return
        // either zero (it did by optimisation level), and "-0.00 nines" is
        // not a figure.
        (-u.log10()).max(0.0) + 0.0
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Slo,
    id: "slo/<entrypoint>",
    severity: "error",
    summary: "An entrypoint's availability is below its objective (its own `objective`, else `objective.availability`).",
    checks: "For every entrypoint, the probability that it is up, computed from the instances, domains and shared-fate groups that have a figure, with shared dependencies counted once and correlated failures (a zone, a config push) conditioned on, minus the time standbys take to switch over (docs/availability.md). The finding fires (error) when that figure is below the entrypoint's objective; it fires as a warning when the figure meets the objective only by assuming instant failover (a standby edge whose active side has no `mttr`). An entrypoint with no figure at all (n/a) is not judged.",
    why: "The objective is what the system promises. Multiplying figures along a call chain is wrong both ways: it double-counts a database two front ends share, and it treats replicas in one zone or behind one config push as independent. A design review needs the real figure and the component that limits it.",
    example: "objective: {availability: 99.95%}\ncomponents:\n  api: {instances: 3, availability: 99.9%, depends_on: [postgres]}\n  postgres: {availability: 99.9%}   # slo/api: 99.9% < 99.95%",
    fix: "Look at the improvement table: the first rows name what limits the entrypoint. Add redundancy there (a standby, a second zone), remove a shared cause, or make a dependency degradable. If the objective is wrong, change the objective.",
};

// ---- the check ----

/// The `slo` rule.
pub struct Slo;

impl Analyzer for Slo {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn reads_figures(&self) -> bool {
        true
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for (entrypoint, figure) in cx.figures {
            let Some(objective) = &cx.model.objective_of(*entrypoint) else {
                continue;
            };
            // A bounded figure misses the objective only when even its upper
            // end does: the lower end alone would blame the method. A path
            // with no figure at all cannot be judged (its row says n/a); one
            // with unquantified parts is an upper bound, so a miss stands.
            if figure.quantified && figure.upper < objective.availability {
                audit.findings.push(below_objective(
                    cx.model,
                    cx.model.component(*entrypoint),
                    figure,
                    objective,
                ));
            } else if figure.quantified && !figure.caveats.is_empty() {
                audit.findings.push(met_only_if(
                    cx.model.component(*entrypoint),
                    figure,
                    objective,
                ));
            }
        }
    }
}

/// The figures over the request mix, from the rows and the model's
/// entrypoint shares (`None` without them).
#[must_use]
pub fn request_mix(
    model: &Model,
    rows: &BTreeMap<String, AvailabilityRow>,
) -> Option<crate::analyze::results::RequestMix> {
    if model.entrypoint_shares.is_empty() {
        return None;
    }
    let mut shares = BTreeMap::new();
    let (mut availability, mut served, mut exact) = (Some(0.0), Some(0.0), true);
    for (&e, &share) in model.entrypoints.iter().zip(&model.entrypoint_shares) {
        let name = model.component(e).name.clone();
        let row = rows.get(&name)?;
        availability = availability.zip(row.availability).map(|(sum, a)| sum + share * a);
        served = served.zip(row.served).map(|(sum, s)| sum + share * s);
        exact &= row.served_method == "exact";
        shares.insert(name, share);
    }
    Some(crate::analyze::results::RequestMix {
        shares,
        availability,
        served,
        served_method: if exact { "exact" } else { "lower bound" },
    })
}

/// The report's availability section: one row per entrypoint.
#[must_use]
pub fn availability_rows(
    model: &Model,
    figures: &[(ComponentId, Figure)],
) -> BTreeMap<String, AvailabilityRow> {
    // One row per entrypoint, built in parallel (5,000 entrypoints in a
    // large model), then ordered by name.
    let rows: Vec<(String, AvailabilityRow)> = figures
        .par_iter()
        .map(|(entrypoint, figure)| {
            let unquantified_components = figure
                .unquantified
                .iter()
                .filter(|s| matches!(s, Subject::Component(_)))
                .count();
            // Quantified parts that are all perfect say nothing about the
            // unquantified rest: n/a, not "≤ 100%, ≤ 99 nines". Perfect
            // means no unavailability at all: 1e-120 is an availability
            // that rounds to 1, not a perfect one.
            let known = (figure.quantified
                && !(figure.unavailability <= 0.0 && unquantified_components > 0))
                .then_some(figure.availability);
            let unavailability = known.map(|_| figure.unavailability);
            let objective = model.objective_of(*entrypoint);
            let window = objective.map_or(30.0 * 86_400.0, |o| o.window.seconds());
            let row = AvailabilityRow {
                availability: known,
                method: match figure.method {
                    Method::Exact => "exact",
                    Method::Bounded => "bounded",
                },
                lower: figure.lower,
                upper: figure.upper,
                unavailability,
                unavailability_lower: figure.unavailability_lower,
                unavailability_upper: figure.unavailability_upper,
                nines: unavailability.map(|u| (nines_of(u) * 100.0).round() / 100.0),
                downtime_per_year_s: unavailability.map(|u| u * YEAR_S),
                window_s: window,
                downtime_per_window_s: unavailability.map(|u| u * window),
                objective: objective.map(|o| o.availability),
                error_budget_s: objective.map(|o| (1.0 - o.availability) * window),
                improvement: figure
                    .improvement
                    .iter()
                    .map(|&(subject, gain)| Improvement {
                        component: subject.name(model).to_owned(),
                        kind: match subject {
                            Subject::Component(_) => "component",
                            Subject::Domain(_) => "domain",
                            Subject::Group(_) => "group",
                        },
                        gain,
                    })
                    .collect(),
                unquantified: figure
                    .unquantified
                    .iter()
                    .map(|s| s.name(model).to_owned())
                    .collect(),
                unquantified_components,
                switchover: figure.switchover,
                caveats: figure.caveats.clone(),
                why_bounded: figure.why.clone(),
                structural_availability: known
                    .and(figure.capacity.as_ref())
                    .map(|c| c.structural),
                structural_unavailability: known
                    .and(figure.capacity.as_ref())
                    .map(|c| c.structural_unavailability),
                served: known.and(figure.capacity.as_ref()).map(|c| c.served),
                served_method: if figure.capacity.as_ref().is_none_or(|c| c.served_exact) {
                    "exact"
                } else {
                    "lower bound"
                },
                capacity: figure
                    .capacity
                    .iter()
                    .flat_map(|c| &c.costs)
                    .map(|cost| CapacityCostRow {
                        component: model.component(cost.component).name.clone(),
                        unavailability: cost.added,
                        fleet: cost.fleet.map(|(n, _)| n),
                        fleet_gain: cost.fleet.map(|(_, g)| g),
                    })
                    .collect(),
            };
            (model.component(*entrypoint).name.clone(), row)
        })
        .collect();
    rows.into_iter().collect()
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_availability_that_rounds_to_one_keeps_its_nines_and_is_not_na() {
        // `a` (no figure of its own) runs in 60 zones at 1% failure each
        // and needs one: U = 0.01^60 = 1e-120, far below what 1 − U can
        // hold. Its row is an upper bound (a is unquantified), not n/a,
        // and its nines are 120, not capped at the 99 of a perfect figure.
        let model = crate::model::parse(&crate::generate::shared_zones(60)).unwrap();
        let figures = crate::engine::availability(&model);
        let rows = availability_rows(&model, &figures);
        let row = &rows["a"];
        assert_eq!(row.availability, Some(1.0));
        let u = row.unavailability.unwrap();
        assert!((u / 1e-120 - 1.0).abs() < 1e-12, "{u:e}");
        assert_eq!(row.nines, Some(120.0));
        assert!((nines_of(0.0) - 99.0).abs() < f64::EPSILON);
    }

    #[test]
    fn a_figure_of_zero_has_zero_nines_never_minus_zero() {
        // -log10(1) = -0, and `max(0.0)` may keep either zero: the debug
        // build printed "-0.00 nines" where the release build printed
        // "0.00 nines". Both now print +0.
        for n in [nines(0.0), nines_of(1.0)] {
            assert!(n == 0.0 && n.is_sign_positive(), "{n:?}");
        }
        assert_eq!(format!("{:.2}", nines_of(1.0)), "0.00");
    }

    #[test]
    fn fires_below_the_objective_with_the_gap_in_minutes() {
        // api 99.9% × postgres 99.9% = 0.998001 < 99.95%.
        // Downtime: 0.001999 × 43200 min = 86.4 min per 30d (1h26m24s, shown
        // 1h26m); budget 0.0005 × 43200 = 21.6 min (21m36s); 64.8 over (1h5m).
        let audit = crate::analyze::check_one(
            &Slo,
            r"system: s
objective: {availability: 99.95%}
components:
  api: {availability: 99.9%, depends_on: [postgres]}
  postgres: {availability: 99.9%}
",
        );
        assert_eq!(audit.findings.len(), 1);
        let f = &audit.findings[0];
        assert_eq!(f.id().to_string(), "slo/api");
        assert!(f.message().to_string().contains("reaches 99.8001%"), "{}", f.message().to_string());
        assert!(
            f.message().to_string().contains(
                "1h26m of downtime per 30d window against a budget of 21m36s, 1h5m over"
            ),
            "{}",
            f.message().to_string()
        );
        // Each of api and postgres would give back 0.000999 × 43200 = 43.16
        // min, 43m9s.
        assert!(
            f.help().map(|help| help.to_string()).as_deref().unwrap_or("").contains("api (+43m9s)"),
            "{:?}",
            f.help().map(|help| help.to_string())
        );
    }

    #[test]
    fn met_only_if_instant_says_at_most_when_part_of_the_path_has_no_figure() {
        // api needs s3 (no figure) and db-a or db-b (standby, 10m switchover;
        // db-a's zone has no mttr, so the frequency is unknown). Quantified
        // part: z1 and z2 both down 0.0005² = 2.5e-7, so api ≤ 99.999975%,
        // an upper bound because s3 is unquantified.
        let audit = crate::analyze::check_one(
            &Slo,
            "system: s\nobjective: {availability: 99.99%}\ndomains:\n  z1: {kind: zone, availability: 99.95%}\n  z2: {kind: zone, availability: 99.95%}\ncomponents:\n  api:\n    depends_on:\n      - s3\n      - {any_of: [db-a, db-b], switchover: 10m}\n  s3: {kind: saas}\n  db-a: {placement: [z1]}\n  db-b: {placement: [z2]}\n",
        );
        assert_eq!(audit.findings.len(), 1);
        let f = &audit.findings[0];
        assert_eq!(f.severity, Severity::Warning);
        assert!(
            f.message().to_string().starts_with(
                "api reaches at most 99.999975% against an objective of 99.99% only if failover is instant"
            ),
            "{}",
            f.message().to_string()
        );
    }

    #[test]
    fn silent_when_met_or_without_objective() {
        let met = r"system: s
objective: {availability: 99%}
components:
  api: {availability: 99.9%}
";
        assert!(crate::analyze::check_one(&Slo, met).findings.is_empty());
        let none = r"system: s
components:
  api: {availability: 50%}
";
        assert!(crate::analyze::check_one(&Slo, none).findings.is_empty());
    }

    #[test]
    fn rows_carry_downtime_and_budget() {
        let model = crate::model::parse(
            r"system: s
objective: {availability: 99.9%, window: 30d}
components:
  api: {availability: 99.9%}
",
        )
        .unwrap();
        let figures = crate::engine::availability(&model);
        let rows = availability_rows(&model, &figures);
        let row = &rows["api"];
        // 0.001 × 365.25 × 86400 = 31557.6 s a year; 0.001 × 30 × 86400 = 2592 s a window.
        assert!((row.downtime_per_year_s.unwrap() - 31_557.6).abs() < 1e-6);
        assert!((row.downtime_per_window_s.unwrap() - 2592.0).abs() < 1e-6);
        assert!((row.error_budget_s.unwrap() - 2592.0).abs() < 1e-6);
        assert!((row.nines.unwrap() - 3.0).abs() < 1e-9);
    }
}
