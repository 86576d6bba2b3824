//! `nines what-if`: the reports of a model before and after a change, the
//! state of every component before and after, and the findings the change
//! introduces and resolves. Built by the command line; this file only
//! formats it (and turns a [`State`] into its rows).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::table::{Style, align_right, finding_block, row_downtime, table, wrap};
use super::{Audit, HeadroomRow};
use crate::analyze::wording::{amount, whole_percent};
use crate::analyze::{Finding, Severity};
use crate::engine::state::State;
use crate::model::Model;

/// One component in one state, as the JSON `state` section gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateRow {
    /// The component.
    #[serde(skip)]
    pub component: String,
    /// Whether it is up.
    pub up: bool,
    /// Instances up.
    pub instances_up: u32,
    /// Load reaching it while it runs (a component down only because a
    /// dependency is down still receives its callers' requests), 0 when it
    /// is not running; absent when nothing says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// What its instances up can carry; absent without `capacity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<f64>,
    /// Load reaching it over that capacity, while it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
}

/// The rows of every component of `model` in `state`, in model order.
#[must_use]
pub fn state_rows(model: &Model, state: &State) -> Vec<StateRow> {
    model
        .component_ids()
        .map(|id| StateRow {
            component: model.component(id).name.clone(),
            up: state.of(id).up,
            instances_up: state.of(id).instances_up,
            load: if state.of(id).running {
                state.of(id).offered
            } else {
                state.load(id)
            },
            capacity: state.capacity(model, id),
            utilization: state.utilization(model, id),
        })
        .collect()
}

/// A scenario's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct WhatIf {
    /// What was changed, one phrase each (`lose az-a (zone)`, `load × 2`).
    pub scenario: Vec<String>,
    /// The model as written.
    pub before: Audit,
    /// The changed copy.
    pub after: Audit,
    /// Ids found after and not before, sorted.
    pub introduced: Vec<String>,
    /// Ids found before and not after, sorted.
    pub resolved: Vec<String>,
    /// Every component's state before and after, in model order.
    pub states: (Vec<StateRow>, Vec<StateRow>),
    /// Load no running component serves, before and after.
    pub unserved: (f64, f64),
}

impl WhatIf {
    /// The components whose state changed: (before, after, worst next loss
    /// from the after state), in model order.
    #[must_use]
    pub fn changed(&self) -> Vec<(&StateRow, &StateRow, Option<&HeadroomRow>)> {
        self.states
            .0
            .iter()
            .zip(&self.states.1)
            .filter(|(b, a)| {
                b.up != a.up
                    || b.instances_up != a.instances_up
                    || match (b.load, a.load) {
                        (Some(x), Some(y)) => (x - y).abs() > 1e-9,
                        (x, y) => x.is_some() != y.is_some(),
                    }
            })
            .map(|(b, a)| {
                let worst = self
                    .after
                    .headroom
                    .iter()
                    .filter(|r| *r.component == *a.component)
                    .max_by(|x, y| x.utilization.total_cmp(&y.utilization));
                (b, a, worst)
            })
            .collect()
    }

    /// The introduced findings, in id order.
    pub fn introduced_findings(&self) -> impl Iterator<Item = &Finding> {
        self.after.findings.iter().filter(|f| {
            self.introduced
                .binary_search_by(|id| f.cmp_with(id).reverse())
                .is_ok()
        })
    }

    /// The resolved findings (as they were before), in id order.
    pub fn resolved_findings(&self) -> impl Iterator<Item = &Finding> {
        self.before.findings.iter().filter(|f| {
            self.resolved
                .binary_search_by(|id| f.cmp_with(id).reverse())
                .is_ok()
        })
    }
}

/// The JSON wire format (CLI.md): both reports, each with the state of
/// every component, and the two id lists.
#[derive(Serialize)]
struct Wire<'a> {
    before: Side<'a>,
    after: Side<'a>,
    introduced: &'a [String],
    resolved: &'a [String],
}

/// A report and the state it judged.
#[derive(Serialize)]
struct Side<'a> {
    #[serde(flatten)]
    audit: &'a Audit,
    /// Per component name: `up`, `instances_up`, `load`, `capacity`, `utilization`.
    state: BTreeMap<&'a str, &'a StateRow>,
    /// Load no running component serves.
    unserved: f64,
}

fn side<'a>(audit: &'a Audit, rows: &'a [StateRow], unserved: f64) -> Side<'a> {
    Side {
        audit,
        state: rows.iter().map(|r| (r.component.as_str(), r)).collect(),
        unserved,
    }
}

/// Writes the outcome as JSON.
///
/// # Errors
/// When writing fails.
pub fn render_json(what_if: &WhatIf, out: &mut dyn Write) -> io::Result<()> {
    let wire = Wire {
        before: side(&what_if.before, &what_if.states.0, what_if.unserved.0),
        after: side(&what_if.after, &what_if.states.1, what_if.unserved.1),
        introduced: &what_if.introduced,
        resolved: &what_if.resolved,
    };
    serde_json::to_writer_pretty(&mut *out, &wire)?;
    out.write_all(b"\n")
}

/// Writes the outcome for a terminal: the components whose state changed,
/// availability before → after, then the findings introduced and resolved.
///
/// # Errors
/// When writing fails.
pub fn render_table(
    what_if: &WhatIf,
    file: &str,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    for line in wrap(
        &format!(
            "{} ({file}), what if: {}",
            what_if.before.system,
            what_if.scenario.join("; ")
        ),
        style.width,
    ) {
        writeln!(out, "{line}")?;
    }
    writeln!(out)?;
    state_table(what_if, style, out)?;
    if !what_if.after.availability.is_empty() {
        writeln!(out)?;
        let mut availability = table(
            style,
            &[
                "entrypoint",
                "before",
                "after",
                "downtime/yr before → after",
            ],
        );
        for (name, after) in &what_if.after.availability {
            let before = what_if.before.availability.get(name);
            availability.add_row([
                name.clone(),
                before.map_or_else(|| "-".to_owned(), super::AvailabilityRow::figure_text),
                after.figure_text(),
                format!(
                    "{} → {}",
                    before.map_or_else(
                        || "-".to_owned(),
                        |b| row_downtime(b, b.downtime_per_year_s)
                    ),
                    row_downtime(after, after.downtime_per_year_s)
                ),
            ]);
        }
        align_right(&mut availability, 1..=3);
        writeln!(out, "{availability}")?;
    }
    writeln!(out)?;
    let introduced: Vec<&Finding> = what_if.introduced_findings().collect();
    if introduced.is_empty() {
        writeln!(out, "Introduced: none")?;
    } else {
        writeln!(out, "Introduced ({})", introduced.len())?;
        for finding in &introduced {
            finding_block(finding, style, out)?;
        }
    }
    writeln!(out)?;
    let resolved: Vec<&Finding> = what_if.resolved_findings().collect();
    if resolved.is_empty() {
        writeln!(out, "Resolved: none")?;
    } else {
        writeln!(out, "Resolved ({})", resolved.len())?;
        for finding in &resolved {
            finding_block(finding, style, out)?;
        }
    }
    writeln!(out)?;
    let errors = introduced
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    writeln!(
        out,
        "{} introduced ({errors} error(s)), {} resolved",
        introduced.len(),
        resolved.len()
    )
}

/// The components whose state changed: instances up, load and utilization
/// before → after, and the worst next loss from the after state.
fn state_table(what_if: &WhatIf, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let changed = what_if.changed();
    if changed.is_empty() {
        writeln!(out, "State: no component changed (instances up, load)")?;
    } else {
        writeln!(out, "State of the components that changed (before → after)")?;
        let mut rows = table(
            style,
            &[
                "component",
                "up",
                "instances",
                "load",
                "util",
                "worst next loss",
            ],
        );
        for (b, a, worst) in changed {
            rows.add_row([
                a.component.clone(),
                format!("{} → {}", yes(b.up), yes(a.up)),
                format!("{} → {}", b.instances_up, a.instances_up),
                format!("{} → {}", load(b.load), load(a.load)),
                format!("{} → {}", util(b.utilization), util(a.utilization)),
                worst.map_or_else(
                    || "-".to_owned(),
                    |w| {
                        format!(
                            "{}: {}{}",
                            super::review::lost(w),
                            whole_percent(w.utilization),
                            if w.ok { "" } else { " OVER" }
                        )
                    },
                ),
            ]);
        }
        align_right(&mut rows, 2..=4);
        writeln!(out, "{rows}")?;
    }
    let (before, after) = what_if.unserved;
    if (before - after).abs() > 1e-9 {
        writeln!(out, "Unserved load: {} → {}", amount(before), amount(after))?;
    }
    Ok(())
}

fn yes(up: bool) -> &'static str {
    if up { "up" } else { "down" }
}

fn load(load: Option<f64>) -> String {
    load.map_or_else(|| "-".to_owned(), amount)
}

fn util(utilization: Option<f64>) -> String {
    utilization.map_or_else(
        || "-".to_owned(),
        |u| {
            if u.is_finite() {
                whole_percent(u)
            } else {
                "all".to_owned()
            }
        },
    )
}
