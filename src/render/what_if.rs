//! `nines what-if`: the reports of a model before and after a change, the
//! state of every component before and after, and the findings the change
//! introduces and resolves. Built by `analyze::what_if`; this file only
//! formats it.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::Audit;
use super::table::{Style, align_right, finding_block, row_downtime, table, wrap};
pub use crate::analyze::what_if::{StateRow, WhatIf, state_rows};
use crate::analyze::wording::{amount, whole_percent};
use crate::analyze::{Finding, Severity};

/// The JSON wire format (CLI.md): both reports, each with the state of
/// every component, and the two id lists.
#[derive(Serialize)]
struct Wire<'a> {
    before: Side<'a>,
    after: Side<'a>,
    introduced: &'a [String],
    resolved: &'a [String],
    worsened: Vec<&'a str>,
    taken_down: &'a [String],
    /// With `--slow`: every pool before and after, and who loses service.
    #[serde(skip_serializing_if = "Option::is_none")]
    slow: Option<&'a crate::analyze::results::SlowEvent>,
}

/// A report and the state it judged.
#[derive(Serialize)]
struct Side<'a> {
    #[serde(flatten)]
    audit: &'a Audit,
    /// Per component name: `up`, `instances_up`, `load`, `capacity`, `utilization`.
    state: BTreeMap<&'a str, &'a StateRow>,
    /// Load entering at the entrypoints that is not served.
    unserved: f64,
    /// Per entrypoint: the share of its requests served in this state.
    served: BTreeMap<&'a str, f64>,
}

fn side<'a>(
    audit: &'a Audit,
    rows: &'a [StateRow],
    unserved: f64,
    served: impl Iterator<Item = (&'a str, f64)>,
) -> Side<'a> {
    Side {
        audit,
        state: rows.iter().map(|r| (r.component.as_str(), r)).collect(),
        unserved,
        served: served.collect(),
    }
}

/// Writes the outcome as JSON.
///
/// # Errors
/// When writing fails.
pub fn render_json(what_if: &WhatIf, out: &mut dyn Write) -> io::Result<()> {
    let wire = Wire {
        before: side(
            &what_if.before,
            &what_if.states.0,
            what_if.unserved.0,
            what_if
                .served
                .iter()
                .map(|s| (s.entrypoint.as_str(), s.before)),
        ),
        after: side(
            &what_if.after,
            &what_if.states.1,
            what_if.unserved.1,
            what_if
                .served
                .iter()
                .map(|s| (s.entrypoint.as_str(), s.after)),
        ),
        introduced: &what_if.introduced,
        resolved: &what_if.resolved,
        worsened: what_if.worsened.iter().map(|(id, _)| id.as_str()).collect(),
        taken_down: &what_if.taken_down,
        slow: what_if.slow.as_ref(),
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
    if let Some(slow) = &what_if.slow {
        writeln!(out)?;
        let title = format!(
            "Pools (in flight before → after, against the pool) when {}",
            super::slow::slowed(slow)
        );
        super::slow::event(slow, &title, style, out)?;
    }
    if !what_if.after.availability.is_empty() {
        writeln!(out)?;
        availability_table(what_if, style, out)?;
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
    let worsened: Vec<(&Finding, Severity)> = what_if.worsened_findings().collect();
    if !worsened.is_empty() {
        writeln!(out)?;
        writeln!(out, "Worsened ({})", worsened.len())?;
        for (finding, before) in &worsened {
            writeln!(
                out,
                "  {} before, {} now:",
                severity_word(*before),
                severity_word(finding.severity)
            )?;
            finding_block(finding, style, out)?;
        }
    }
    if !what_if.taken_down.is_empty() {
        for line in wrap(
            &format!(
                "Not counted ({}), about components the change takes down: {}",
                what_if.taken_down.len(),
                what_if.taken_down.join(", ")
            ),
            style.width,
        ) {
            writeln!(out, "{line}")?;
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
    let worse = if worsened.is_empty() {
        String::new()
    } else {
        format!(", {} worsened", worsened.len())
    };
    writeln!(
        out,
        "{} introduced ({errors} error(s)){worse}, {} resolved",
        introduced.len(),
        resolved.len()
    )
}

/// A severity in words: `an error`, `a warning`, `a note`.
fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "an error",
        Severity::Warning => "a warning",
        Severity::Note => "a note",
    }
}

/// Each entrypoint's availability before → after, its downtime, and the
/// share of its requests served now in each state.
fn availability_table(what_if: &WhatIf, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let mut availability = table(
        style,
        &[
            "entrypoint",
            "before",
            "after",
            "downtime/yr before → after",
            "served now",
        ],
    );
    // Each entrypoint's served shares by name, once (a scan per row was
    // quadratic in the entrypoints).
    let shares: BTreeMap<&str, &crate::analyze::what_if::Served> = what_if
        .served
        .iter()
        .map(|s| (s.entrypoint.as_str(), s))
        .collect();
    for (name, after) in &what_if.after.availability {
        let before = what_if.before.availability.get(name);
        let served = shares.get(name.as_str()).map_or_else(
            || "-".to_owned(),
            |s| format!("{} → {}", share(s.before), share(s.after)),
        );
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
            served,
        ]);
    }
    align_right(&mut availability, 1..=4);
    writeln!(out, "{availability}")?;
    Ok(())
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
        writeln!(
            out,
            "Unserved load entering at the entrypoints: {} → {}",
            amount(before),
            amount(after)
        )?;
    }
    Ok(())
}

/// A served share: one decimal, more where one would read 100% for a
/// share below it.
pub(crate) fn share(x: f64) -> String {
    if x < 1.0 {
        crate::analyze::wording::percent_against(x, 1.0)
    } else {
        crate::analyze::wording::percent(x)
    }
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
                // A load against nothing left to carry it (a pool a
                // slowness holds whole).
                "none left".to_owned()
            }
        },
    )
}
