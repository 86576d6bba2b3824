//! `nines what-if`: the reports of a model before and after a change, the
//! findings the change introduces and resolves, and the headroom rows that
//! matter under it. Built by the command line; this file only formats it.

use std::io::{self, Write};

use serde::Serialize;

use super::review::sizing;
use super::table::{Style, align_right, finding_block, row_downtime, table, wrap};
use super::{HeadroomRow, Report};
use crate::analyze::wording::whole_percent;
use crate::analyze::{Finding, Severity};

/// A scenario's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct WhatIf {
    /// What was changed, one phrase each (`lose az-a (zone)`, `load × 2`).
    pub scenario: Vec<String>,
    /// The model as written.
    pub before: Report,
    /// The changed copy.
    pub after: Report,
    /// Ids found after and not before, sorted.
    pub introduced: Vec<String>,
    /// Ids found before and not after, sorted.
    pub resolved: Vec<String>,
    /// Headroom rows under the scenario, worst first, with the row of the
    /// same component and loss before the change.
    pub headroom: Vec<(Option<HeadroomRow>, HeadroomRow)>,
}

impl WhatIf {
    /// The introduced findings, in id order.
    pub fn introduced_findings(&self) -> impl Iterator<Item = &Finding> {
        self.after
            .findings
            .iter()
            .filter(|f| self.introduced.binary_search(&f.id).is_ok())
    }

    /// The resolved findings (as they were before), in id order.
    pub fn resolved_findings(&self) -> impl Iterator<Item = &Finding> {
        self.before
            .findings
            .iter()
            .filter(|f| self.resolved.binary_search(&f.id).is_ok())
    }
}

/// The JSON wire format (CLI.md): both reports and the two id lists.
#[derive(Serialize)]
struct Wire<'a> {
    before: &'a Report,
    after: &'a Report,
    introduced: &'a [String],
    resolved: &'a [String],
}

/// Writes the outcome as JSON.
///
/// # Errors
/// When writing fails.
pub fn render_json(what_if: &WhatIf, out: &mut dyn Write) -> io::Result<()> {
    let wire = Wire {
        before: &what_if.before,
        after: &what_if.after,
        introduced: &what_if.introduced,
        resolved: &what_if.resolved,
    };
    serde_json::to_writer_pretty(&mut *out, &wire)?;
    out.write_all(b"\n")
}

/// Writes the outcome for a terminal: availability before → after, the
/// headroom rows of the scenario, then the findings introduced and resolved.
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
    if what_if.headroom.is_empty() {
        writeln!(
            out,
            "Headroom under the scenario: no rows (nothing with capacity and load is affected)"
        )?;
    } else {
        writeln!(
            out,
            "Headroom under the scenario (utilization before → after), worst first"
        )?;
        let mut rows = table(
            style,
            &["component", "lost", "left", "util", "", "sized to pass"],
        );
        for (before, after) in &what_if.headroom {
            rows.add_row([
                after.component.clone(),
                after.lost.clone(),
                format!("{} of {}", after.survivors, after.instances),
                format!(
                    "{} → {}",
                    before
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), |b| whole_percent(b.utilization)),
                    whole_percent(after.utilization)
                ),
                (if after.ok { "ok" } else { "OVER" }).to_owned(),
                sizing(after),
            ]);
        }
        align_right(&mut rows, 2..=3);
        writeln!(out, "{rows}")?;
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
