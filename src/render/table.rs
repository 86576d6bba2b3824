//! The terminal view: availability per entrypoint, then the findings grouped
//! by severity, each with its model line and fix, fitted to a fixed width.

use std::fmt::Write as _;
use std::io::{self, Write};

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use rayon::prelude::*;

use super::baseline::refresh_command;
use super::escape::terminal_lines;
use super::{Audit, Cascade, ColdStart, RecoveryRow, RetryPath, Target};
use crate::analyze::wording::{amount, number, percent, whole_percent};
use crate::analyze::{Finding, Severity, Status, by_severity};
use crate::model::Duration;

/// Call paths shown in the terminal; the JSON report has them all.
const RETRY_ROWS: usize = 10;
/// Headroom rows shown in the terminal, worst first; the JSON has them all.
const HEADROOM_ROWS: usize = 20;
/// From this many warnings or notes of one rule on, the terminal lists them
/// under one heading.
const GROUP_FROM: usize = 4;

/// How to lay the table out.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Total width in columns.
    pub width: usize,
    /// Whether to use ANSI colour.
    pub color: bool,
}

/// Writes the report for a terminal.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, target: &Target, out: &mut dyn Write) -> io::Result<()> {
    let (file, style) = (target.file, target.style);
    writeln!(out, "{} ({file})", audit.system)?;
    if !audit.availability.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", availability(audit, style))?;
        for line in availability_notes(audit) {
            for line in wrap(&line, style.width) {
                writeln!(out, "{line}")?;
            }
        }
    }
    if !audit.headroom.is_empty() {
        writeln!(out)?;
        writeln!(out, "Headroom (N-k), worst first")?;
        writeln!(out, "{}", headroom(audit, style))?;
        let hidden = audit.headroom.len().saturating_sub(HEADROOM_ROWS);
        if hidden > 0 {
            writeln!(out, "… and {hidden} more row(s) in `--format json`.")?;
        }
    }
    if !audit.cascades.is_empty() {
        writeln!(out)?;
        cascades(audit, style, out)?;
    }
    if !audit.retries.is_empty() || audit.retries_truncated {
        writeln!(out)?;
        retries(audit, style, out)?;
    }
    if !audit.latency.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Worst-case latency per entrypoint (Σ timeout × attempts on its slowest path)"
        )?;
        for line in latency_lines(audit) {
            for line in wrap(&line, style.width) {
                writeln!(out, "{line}")?;
            }
        }
    }
    slowness(audit, style, out)?;
    if !audit.cold_start.waves.is_empty() {
        writeln!(out)?;
        cold_start(&audit.cold_start, style, out)?;
    }
    if !audit.recovery.is_empty() {
        writeln!(out)?;
        recovery(&audit.recovery, style, out)?;
    }
    writeln!(out)?;
    if audit.findings.is_empty() {
        writeln!(out, "No findings.")?;
    }
    for (severity, group) in by_severity(&audit.findings) {
        let title = format!("{} ({})", severity.heading(), group.len());
        writeln!(out, "{}", paint(&title, severity, style.color))?;
        findings(&group, style, out)?;
        writeln!(out)?;
    }
    writeln!(out, "{}", summary(audit))?;
    fixed(audit, file, style, out)
}

/// The findings of one severity in id order; a rule with many warnings or
/// notes is written once, as its summary and fix over the list of its
/// subjects (each finding keeps its own id in every other format).
fn findings(group: &[&Finding], style: Style, out: &mut dyn Write) -> io::Result<()> {
    let mut at = 0;
    while at < group.len() {
        let rule = group[at].rule;
        let end = at + group[at..].iter().take_while(|f| f.rule == rule).count();
        let doc = crate::analyze::doc(rule);
        match doc {
            Some(doc) if end - at >= GROUP_FROM && group[at].severity != Severity::Error => {
                grouped(&group[at..end], doc, style, out)?;
            }
            _ => blocks(&group[at..end], style, out)?,
        }
        at = end;
    }
    Ok(())
}

/// One [`finding_block`] per finding, in order. Tens of thousands of them
/// (a large model) are wrapped in parallel, a chunk at a time, and the
/// chunks written in order: the same text.
fn blocks(findings: &[&Finding], style: Style, out: &mut dyn Write) -> io::Result<()> {
    const CHUNK: usize = 256;
    if findings.len() <= CHUNK {
        for finding in findings {
            finding_block(finding, style, out)?;
        }
        return Ok(());
    }
    let texts = findings
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut text = Vec::new();
            for finding in chunk {
                finding_block(finding, style, &mut text)?;
            }
            Ok(text)
        })
        .collect::<io::Result<Vec<Vec<u8>>>>()?;
    for text in texts {
        out.write_all(&text)?;
    }
    Ok(())
}

/// Many findings of one rule: the rule's summary and fix, then one line per
/// subject with its place in the model.
fn grouped(
    findings: &[&Finding],
    doc: &crate::analyze::RuleDoc,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "  {} ({}): {}",
        doc.name(),
        findings.len(),
        doc.summary
    )?;
    for (index, line) in wrap(doc.fix, style.width.saturating_sub(10))
        .into_iter()
        .enumerate()
    {
        let lead = if index == 0 { "help: " } else { "      " };
        writeln!(out, "    {lead}{line}")?;
    }
    for finding in findings {
        let subject = finding.subject.to_string();
        let head = format!("{}{}", terminal_lines(&subject), status_tag(finding.status));
        let place = format!("line {}:{}", finding.location.line, finding.location.column);
        let gap = style
            .width
            .saturating_sub(4 + text_width(&head) + text_width(&place))
            .max(1);
        writeln!(out, "    {head}{}{place}", " ".repeat(gap))?;
    }
    Ok(())
}

/// The baseline's ids that no longer occur, and the command that refreshes it.
fn fixed(audit: &Audit, file: &str, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let Some(known) = &audit.baseline else {
        return Ok(());
    };
    if audit.fixed.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let text = format!(
        "Fixed since the baseline ({}): {}.",
        audit.fixed.len(),
        audit.fixed.join(", ")
    );
    for line in wrap(&text, style.width) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "To stop tracking them, refresh the baseline:")?;
    writeln!(out, "  {}", refresh_command(file, &known.file))
}

fn availability(audit: &Audit, style: Style) -> String {
    let mut table = table(
        style,
        &[
            "entrypoint",
            "availability",
            "nines",
            "downtime/yr",
            "weakest link",
        ],
    );
    // The weakest links' gains in one notation, as a column.
    let gains: Vec<f64> = audit
        .availability
        .values()
        .filter_map(|row| row.improvement.first().map(|i| i.gain))
        .collect();
    let mut gains = crate::human::gains(&gains).into_iter();
    for (name, row) in &audit.availability {
        let weakest = row.improvement.first().map_or_else(
            || "-".to_owned(),
            |i| format!("{} ({})", i.component, gains.next().unwrap_or_default()),
        );
        table.add_row([
            name.clone(),
            row.figure_text(),
            row.nines_text(),
            row_downtime(row, row.downtime_per_year_s),
            weakest,
        ]);
    }
    align_right(&mut table, 1..=3);
    let mut text = table.to_string();
    // A bounded figure says how wide its bracket is and why.
    for (name, row) in audit
        .availability
        .iter()
        .filter(|(_, r)| r.method != "exact")
    {
        let why = row
            .why_bounded
            .as_deref()
            .unwrap_or("the correlated events had too many states to visit within the work limit");
        let (low, high) = (row.unavailability_lower, row.unavailability_upper);
        let relative = if high > 0.0 {
            format!(
                ", {:.1}% of the unavailability",
                100.0 * (high - low) / high
            )
        } else {
            String::new()
        };
        let note = format!(
            "{name}: bounded: the truth is between {} and {} (unavailability between {:.2e} and {:.2e}, {:.2e} wide{relative}); {why} (docs/performance.md)",
            crate::human::availability_of(row.lower, high),
            crate::human::availability_of(row.upper, low),
            low,
            high,
            high - low
        );
        for line in wrap(&note, style.width) {
            text.push('\n');
            text.push_str(&line);
        }
    }
    text
}

/// The lines under the availability table: what switchovers cost and what
/// the figures assume (caveats), per entrypoint.
pub(crate) fn availability_notes(audit: &Audit) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, row) in &audit.availability {
        if let Some(line) = capacity_note(name, row) {
            lines.push(line);
        } else if let Some(served) = row
            .served
            .filter(|s| *s > row.availability.unwrap_or(1.0) + 1e-12)
        {
            lines.push(format!(
                "{name}: {} of its requests are served{} (its whole peak {}).",
                crate::human::availability_of(served, 1.0 - served),
                if row.served_method == "exact" {
                    ""
                } else {
                    " at least"
                },
                row.availability
                    .map_or_else(|| "n/a".to_owned(), crate::human::availability)
            ));
        }
        if row.switchover > 0.0 {
            lines.push(format!(
                "{name}: includes {:.2e} of switchovers to standbys ({} per {}).",
                row.switchover,
                downtime(row.switchover * row.window_s),
                seconds(row.window_s)
            ));
        }
        for caveat in &row.caveats {
            lines.push(format!("Caveat, {name}: {caveat}."));
        }
    }
    if let Some(mix) = &audit.request_mix {
        let shares: Vec<String> = mix
            .shares
            .iter()
            .map(|(name, share)| format!("{name} {}", crate::human::percent(*share, 3)))
            .collect();
        let figure =
            |f: Option<f64>| f.map_or_else(|| "n/a".to_owned(), crate::human::availability);
        lines.push(format!(
            "Over the request mix ({}): {} of all requests are served{}; {} enter where the whole peak is served.",
            shares.join(", "),
            figure(mix.served),
            if mix.served_method == "exact" { "" } else { " at least" },
            figure(mix.availability)
        ));
    }
    lines
}

/// `redirect: capacity costs 1.5e-3 of its 1.5e-3 unavailability (99.9997%
/// without it): redirect 1.5e-3 (7 instances would take 1.5e-3 off)`, when
/// capacity is more than 10% of the unavailability; and what the
/// requests served come to when it is less than whole.
fn capacity_note(name: &str, row: &super::AvailabilityRow) -> Option<String> {
    let (Some(u), Some(structural)) = (row.unavailability, row.structural_unavailability) else {
        return None;
    };
    let cost = u - structural;
    if !(cost > 0.1 * u && cost > 0.0) {
        return None;
    }
    let mut line = format!(
        "{name}: capacity costs {:.2e} of its {:.2e} unavailability ({} without it)",
        cost,
        u,
        crate::human::availability_of(1.0 - structural, structural)
    );
    let parts: Vec<String> = row
        .capacity
        .iter()
        .take(3)
        .map(|c| {
            let fleet = match (c.fleet, c.fleet_gain) {
                (Some(n), Some(g)) => format!(", {n} instances would take {g:.2e} off"),
                _ => String::new(),
            };
            format!("{} {:.2e}{fleet}", c.component, c.unavailability)
        })
        .collect();
    if !parts.is_empty() {
        line.push_str(": ");
        line.push_str(&parts.join("; "));
    }
    if let Some(served) = row
        .served
        .filter(|s| *s > row.availability.unwrap_or(0.0) + 1e-12)
    {
        let _ = write!(
            line,
            "; {} of its requests are served{}",
            crate::human::availability_of(served, 1.0 - served),
            if row.served_method == "exact" {
                ""
            } else {
                " at least"
            }
        );
    }
    line.push('.');
    Some(line)
}

/// A downtime of an availability row: `n/a` without a figure, `≥ 4h 23m`
/// when unquantified things count as never failing.
pub(crate) fn row_downtime(row: &super::AvailabilityRow, seconds: Option<f64>) -> String {
    match seconds {
        None => "n/a".to_owned(),
        Some(s) if !row.upper_bound() => downtime(s),
        // A floor under a second says nothing ("≥ 32ms" a year): the
        // unknown part is all there is.
        Some(s) if s < 0.5 => "unknown".to_owned(),
        Some(s) => format!("≥ {}", downtime(s)),
    }
}

pub(crate) fn table(style: Style, header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(style.width).unwrap_or(u16::MAX))
        .set_header(header);
    table
}

/// The columns of a retry path (the review's table too): the path, its
/// worst-case attempts, the failure rate from which retries alone overload
/// the last hop, its capacity, and its load at four failure rates.
pub(crate) const RETRY_COLUMNS: [&str; 8] = [
    "call path",
    "A",
    "critical f",
    "capacity",
    "1%",
    "5%",
    "25%",
    "100%",
];

pub(crate) fn align_right(table: &mut Table, columns: std::ops::RangeInclusive<usize>) {
    for column in columns {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

fn retries(audit: &Audit, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let shown: Vec<&RetryPath> = audit
        .retries
        .iter()
        .filter(|row| matters(row))
        .take(RETRY_ROWS)
        .collect();
    // The storm columns only when a shown path has the figures for them.
    let storm = shown.iter().any(|row| !row.storm_load.is_empty());
    let header: &[&str] = if storm {
        &RETRY_COLUMNS
    } else {
        &RETRY_COLUMNS[..2]
    };
    writeln!(
        out,
        "{}",
        if storm {
            "Retry amplification (worst first; storm load on the last hop at failure rate f)"
        } else {
            "Retry amplification (worst first; A = attempts on the last hop per request)"
        }
    )?;
    let mut table = table(style, header);
    for row in &shown {
        let mut cells = retry_cells(row);
        cells.truncate(header.len());
        table.add_row(cells);
    }
    align_right(&mut table, 1..=header.len() - 1);
    if !shown.is_empty() {
        writeln!(out, "{table}")?;
    }
    let hidden = audit.retries.len() - shown.len();
    if hidden > 0 {
        let worst = audit
            .retries
            .iter()
            .filter(|row| !shown.iter().any(|s| std::ptr::eq(*s, *row)))
            .map(|row| row.amplification)
            .fold(0.0, f64::max);
        let text = format!(
            "… and {hidden} more path(s), none amplifying more than {} (all in `--format json`).",
            compact(worst)
        );
        for line in wrap(&text, style.width) {
            writeln!(out, "{line}")?;
        }
    }
    if audit.retries_omitted > 0 {
        writeln!(
            out,
            "… and {} more amplifying path(s), left out of every format (the worst are listed).",
            audit.retries_omitted
        )?;
    }
    if audit.retries_truncated {
        for line in wrap(
            "The walk stopped after 10000 call paths (the graph has more): each row is the worst path visited into its last hop, and the retry findings cover the paths visited.",
            style.width,
        ) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Whether a call path is worth a row of its own in the terminal: its
/// retries at least double the attempts, or a failure rate of 100% or
/// less overloads its last hop. Budgeted paths (`A` about 1.1) are not.
pub(crate) fn matters(row: &RetryPath) -> bool {
    row.amplification >= 2.0 || row.critical_failure_rate.is_some_and(|f| f <= 1.0)
}

/// The pools at normal latency and each credible slow dependency
/// (docs/slow.md), when the model has pools.
fn slowness(audit: &Audit, style: Style, out: &mut dyn Write) -> io::Result<()> {
    if !audit.pools.is_empty() {
        writeln!(out)?;
        super::slow::pools(&audit.pools, style, out)?;
    }
    for event in &audit.slow {
        writeln!(out)?;
        let title = format!("If {} (policy.slow)", super::slow::slowed(event));
        super::slow::event(event, &title, style, out)?;
    }
    if audit.slow_truncated {
        writeln!(
            out,
            "The slow dependencies judged stopped at their bound; the rest were not judged."
        )?;
    }
    Ok(())
}

/// `web: web > api > db: 8s (clients wait 10s: within)`, one per entrypoint.
pub(crate) fn latency_lines(audit: &Audit) -> Vec<String> {
    audit
        .latency
        .iter()
        .map(|row| {
            let untimed = match row.untimed_hops {
                0 => String::new(),
                n => format!(", {n} hop(s) without a timeout not counted"),
            };
            let against = match (row.timeout_s, row.over) {
                (Some(t), Some(true)) => format!(" (clients wait {}: too short)", seconds(t)),
                (Some(t), _) => format!(" (clients wait {}: within)", seconds(t)),
                _ => String::new(),
            };
            let p99 = match (row.p99_latency_s, &row.p99_path) {
                (Some(p99), Some(path)) if *path == row.path => {
                    format!("; at p99 {}", crate::analyze::slow::seconds(p99))
                }
                (Some(p99), Some(path)) => format!(
                    "; at p99 {}: {}",
                    path.join(" > "),
                    crate::analyze::slow::seconds(p99)
                ),
                _ => String::new(),
            };
            format!(
                "{}: {}: {}{untimed}{against}{p99}",
                row.entrypoint,
                row.path.join(" > "),
                seconds(row.worst_latency_s)
            )
        })
        .collect()
}

/// A figure for a narrow column: `1.1`, `9050`, `5.4 × 10⁸`.
pub(crate) fn compact(value: f64) -> String {
    if value.abs() >= 1e6 {
        crate::human::significant(value, 2)
    } else {
        number(value)
    }
}

/// A component behind caches (the terminal table and the review): its
/// steady and cold load, its capacity, and the share to admit first.
pub(crate) fn stampede_cells(row: &super::Stampede) -> Vec<String> {
    vec![
        row.component.clone(),
        number(row.steady_load),
        number(row.cold_load),
        number(row.capacity),
        if row.overloaded {
            percent(row.admit_fraction)
        } else {
            "all".to_owned()
        },
    ]
}

pub(crate) fn retry_cells(row: &RetryPath) -> Vec<String> {
    let dash = || "-".to_owned();
    let critical = row.critical_failure_rate.map_or_else(dash, |f| {
        if f > 1.0 {
            "never".to_owned()
        } else if f > 0.0 && f < 0.001 {
            "<0.1%".to_owned()
        } else {
            percent(f)
        }
    });
    let mut cells = vec![
        // Spaced, so a long path wraps between components.
        row.path.join(" > "),
        compact(row.amplification),
        critical,
        row.capacity.map_or_else(dash, compact),
    ];
    if row.storm_load.is_empty() {
        cells.extend(std::iter::repeat_n(dash(), 4));
    } else {
        cells.extend(row.storm_load.iter().map(|p| compact(p.load)));
    }
    cells
}

pub(crate) fn seconds(value: f64) -> Duration {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "durations in a report are non-negative and far below u64::MAX ms"
    )]
    Duration((value.max(0.0) * 1000.0).round() as u64)
}

fn cold_start(section: &ColdStart, style: Style, out: &mut dyn Write) -> io::Result<()> {
    // Without any `warmup` the time to full service is unknown, not zero.
    let timed = section.wave_warmup_s.iter().any(|&w| w > 0.0);
    let title = if timed {
        format!(
            "Cold start: {} wave(s), dependencies first; about {} to full service (the longest warmup of each wave, summed)",
            section.waves.len(),
            seconds(section.time_to_full_service_s)
        )
    } else {
        format!(
            "Cold start: {} wave(s), dependencies first; warm-up times are not modelled (no component declares `warmup`)",
            section.waves.len(),
        )
    };
    for line in wrap(&title, style.width) {
        writeln!(out, "{line}")?;
    }
    for (index, wave) in section.waves.iter().enumerate() {
        let warmup = section.wave_warmup_s.get(index).copied().unwrap_or(0.0);
        let head = if timed {
            format!("  {index}. ({}) ", seconds(warmup))
        } else {
            format!("  {index}. ")
        };
        let lines = wrap(&wave.join(", "), style.width.saturating_sub(head.len()));
        for (line_index, line) in lines.iter().enumerate() {
            let lead = if line_index == 0 {
                head.clone()
            } else {
                " ".repeat(head.len())
            };
            writeln!(out, "{lead}{line}")?;
        }
    }
    for cycle in &section.cycles {
        for line in wrap(
            &format!("no order (a cycle of required edges): {}", cycle.join(", ")),
            style.width.saturating_sub(2),
        ) {
            writeln!(out, "  {line}")?;
        }
    }
    if !section.stampedes.is_empty() {
        let mut table = table(
            style,
            &["behind caches", "steady", "cold", "capacity", "admit first"],
        );
        for row in &section.stampedes {
            table.add_row(stampede_cells(row));
        }
        align_right(&mut table, 1..=4);
        writeln!(out, "{table}")?;
    }
    Ok(())
}

/// `30s ≤ 1m`, `45m > 30m (15m over)`, or the figure alone without a target.
fn against(worst: Option<f64>, target: Option<f64>, missing: &str) -> String {
    match (worst, target) {
        (None, Some(t)) => format!("{missing} (target {})", seconds(t)),
        (None, None) => missing.to_owned(),
        (Some(w), None) => seconds(w).to_string(),
        (Some(w), Some(t)) if w <= t => format!("{} ≤ {}", seconds(w), seconds(t)),
        (Some(w), Some(t)) => format!("{} > {}", seconds(w), seconds(t)),
    }
}

fn recovery(rows: &[RecoveryRow], style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Disaster recovery (worst case against the targets)")?;
    let mut table = table(
        style,
        &["component", "standby", "RPO", "RTO", "detect+decide"],
    );
    for row in rows {
        table.add_row(recovery_cells(row));
    }
    align_right(&mut table, 4..=4);
    writeln!(out, "{table}")
}

/// One disaster-recovery row as cells: component, standby, RPO and RTO
/// against their targets, the share spent detecting and deciding.
pub(crate) fn recovery_cells(row: &RecoveryRow) -> Vec<String> {
    vec![
        row.component.clone(),
        if row.standby { "yes" } else { "no" }.to_owned(),
        against(
            row.worst_rpo_s,
            row.rpo_target_s,
            if row.standby { "unknown" } else { "no copy" },
        ),
        against(
            row.worst_rto_s,
            row.rto_target_s,
            if row.restore_without_backup {
                "no backup"
            } else {
                "unknown"
            },
        ),
        row.detect_decide_share
            .map_or_else(|| "-".to_owned(), percent),
    ]
}

/// The N-k contingencies, highest utilization first, each named by its loss.
fn headroom(audit: &Audit, style: Style) -> String {
    let rows = super::review::worst_n(&audit.headroom, HEADROOM_ROWS);
    let mut table = table(
        style,
        &[
            "component",
            "lost",
            "left",
            "util",
            "verdict",
            "add to pass",
        ],
    );
    for row in rows.into_iter().take(HEADROOM_ROWS) {
        let sizing = super::review::sizing_with(row, false);
        table.add_row([
            row.component.to_string(),
            super::review::lost(row),
            format!("{} of {}", row.survivors, row.instances),
            whole_percent(row.utilization),
            (if row.ok { "ok" } else { "OVER" }).to_owned(),
            sizing,
        ]);
    }
    for column in [2, 3] {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.to_string()
}

/// Each failover walk on one wrapped line: the origin's load, every step
/// with the load it is asked to carry over its capacity, and what is left.
fn cascades(audit: &Audit, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Failover cascades (load asked / capacity)")?;
    for walk in &audit.cascades {
        let line = cascade_line(walk);
        for (index, text) in wrap(&line, style.width.saturating_sub(6))
            .into_iter()
            .enumerate()
        {
            let lead = if index == 0 { "  " } else { "      " };
            writeln!(out, "{lead}{text}")?;
        }
    }
    Ok(())
}

/// One failover walk on one line: the origin's load, every step with the
/// load it is asked to carry over its capacity, and what is left.
pub(crate) fn cascade_line(walk: &Cascade) -> String {
    let mut line = format!("{} {}", walk.origin, amount(walk.load));
    for step in &walk.steps {
        let verdict = match (step.capacity, step.failed) {
            (None, _) => format!("{} (no capacity figures)", amount(step.load)),
            (Some(c), true) => format!("{}/{} fails", amount(step.load), amount(c)),
            (Some(c), false) => format!("{}/{} holds", amount(step.load), amount(c)),
        };
        line.push_str(" -> ");
        line.push_str(&step.component);
        line.push(' ');
        line.push_str(&verdict);
    }
    if walk.unserved > 0.0 {
        line.push_str("; unserved ");
        line.push_str(&amount(walk.unserved));
        line.push_str(", dedicated fallback ");
        line.push_str(&amount(walk.recommended_fallback_capacity));
    }
    line
}

/// A duration in seconds, as every duration reads ([`crate::human::duration`]).
pub(crate) fn downtime(seconds: f64) -> String {
    crate::human::duration(seconds.max(0.0))
}

/// One finding as the table shows it: id and place, message, fix and
/// accepted reason, its id, message and fix escaped for a terminal as they
/// are written.
pub(crate) fn finding_block(
    finding: &Finding,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let place = format!("line {}:{}", finding.location.line, finding.location.column);
    let id = finding.id().to_string();
    let head = format!("{}{}", terminal_lines(&id), status_tag(finding.status));
    let gap = style
        .width
        .saturating_sub(2 + text_width(&head) + text_width(&place))
        .max(1);
    writeln!(out, "  {head}{}{place}", " ".repeat(gap))?;
    let message = finding.message().to_string();
    for line in wrap(&terminal_lines(&message), style.width.saturating_sub(4)) {
        writeln!(out, "    {line}")?;
    }
    if let Some(help) = finding.help() {
        let help = help.to_string();
        for (index, line) in wrap(&terminal_lines(&help), style.width.saturating_sub(10))
            .into_iter()
            .enumerate()
        {
            let lead = if index == 0 { "help: " } else { "      " };
            writeln!(out, "    {lead}{line}")?;
        }
    }
    if let Some(reason) = &finding.justification {
        for (index, line) in wrap(reason, style.width.saturating_sub(14))
            .into_iter()
            .enumerate()
        {
            let lead = if index == 0 {
                "accepted: "
            } else {
                "          "
            };
            writeln!(out, "    {lead}{line}")?;
        }
    }
    Ok(())
}

fn status_tag(status: Status) -> &'static str {
    match status {
        Status::New => "",
        Status::Baseline => " [baseline]",
        Status::Accepted => " [accepted]",
    }
}

/// Columns a text takes in a terminal.
fn text_width(text: &str) -> usize {
    textwrap::core::display_width(text)
}

fn summary(audit: &Audit) -> String {
    let count = |s: Severity| audit.findings.iter().filter(|f| f.severity == s).count();
    let mut text = format!(
        "{} error(s), {} warning(s), {} note(s)",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note)
    );
    // "New" means something only against a baseline.
    if audit.baseline.is_some() {
        let status = |s: Status| audit.findings.iter().filter(|f| f.status == s).count();
        let _ = write!(
            text,
            "; {} new, {} in the baseline",
            status(Status::New),
            status(Status::Baseline)
        );
    }
    text
}

fn paint(text: &str, severity: Severity, color: bool) -> String {
    if !color {
        return text.to_owned();
    }
    let code = match severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
        Severity::Note => "1;36",
    };
    format!("\u{1b}[{code}m{text}\u{1b}[0m")
}

/// Word wrap to `width` terminal columns (at least 20), by Unicode width;
/// a word longer than the width gets a line of its own, unbroken (an id or
/// a path must stay searchable).
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let options = textwrap::Options::new(width.max(20))
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(text, options)
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .filter(|line| !line.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_lines_within_the_width() {
        let text = "losing az-a takes down postgres (1 of 1 instances) and with it checkout and the whole shop";
        for line in wrap(text, 30) {
            assert!(line.chars().count() <= 30, "{line}");
        }
        assert_eq!(wrap(text, 30).join(" "), text);
    }

    #[test]
    fn downtime_uses_the_two_largest_units() {
        // 0.999 over a year: 0.001 * 365.25 * 86400 = 31557.6 s = 8h 45m
        // 57.6s, rounded in minutes; 200000 s = 2d 7h 33m 20s, in hours.
        assert_eq!(downtime(31_557.6), "8h46m");
        assert_eq!(downtime(59.0), "59s");
        assert_eq!(downtime(200_000.0), "2d8h");
    }
}
