//! The terminal view: availability per entrypoint, then the findings grouped
//! by severity, each with its model line and fix, fitted to a fixed width.

use std::io::{self, Write};

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

use super::{HeadroomRow, Report};
use crate::analyze::{Finding, Severity, Status};

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
pub fn render(report: &Report, file: &str, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{} ({file})", report.system)?;
    if !report.availability.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", availability(report, style))?;
    }
    if !report.headroom.is_empty() {
        writeln!(out)?;
        writeln!(out, "Headroom (N-k), worst first")?;
        writeln!(out, "{}", headroom(report, style))?;
    }
    if !report.cascades.is_empty() {
        writeln!(out)?;
        cascades(report, style, out)?;
    }
    writeln!(out)?;
    if report.findings.is_empty() {
        writeln!(out, "No findings.")?;
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Note] {
        let group: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if group.is_empty() {
            continue;
        }
        let title = format!("{} ({})", plural(severity), group.len());
        writeln!(out, "{}", paint(&title, severity, style.color))?;
        for finding in group {
            finding_block(finding, style, out)?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary(report))
}

fn availability(report: &Report, style: Style) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(style.width).unwrap_or(u16::MAX))
        .set_header([
            "entrypoint",
            "availability",
            "nines",
            "downtime/yr",
            "weakest link",
        ]);
    for (name, row) in &report.availability {
        let weakest = row.improvement.first().map_or_else(
            || "-".to_owned(),
            |i| format!("{} (+{:.2e})", i.component, i.gain),
        );
        let figure = if row.method == "exact" {
            format!("{:.6}%", row.availability * 100.0)
        } else {
            format!("{:.6}% (bounded)", row.availability * 100.0)
        };
        table.add_row([
            name.clone(),
            figure,
            format!("{:.2}", row.nines),
            downtime(row.downtime_per_year_s),
            weakest,
        ]);
    }
    for column in 1..=3 {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.to_string()
}

/// The N-k contingencies, highest utilization first, each named by its loss.
fn headroom(report: &Report, style: Style) -> String {
    let mut rows: Vec<&HeadroomRow> = report.headroom.iter().collect();
    rows.sort_by(|a, b| {
        b.utilization
            .total_cmp(&a.utilization)
            .then_with(|| a.component.cmp(&b.component))
            .then_with(|| a.lost.cmp(&b.lost))
    });
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(style.width).unwrap_or(u16::MAX))
        .set_header(["component", "lost", "left", "util", "", "sized to pass"]);
    for row in rows {
        let sizing = match row.per_domain {
            Some(per_domain) => format!(
                "{} ({per_domain} per domain), {}",
                row.required_instances,
                percent(row.required_steady_utilization)
            ),
            None => format!(
                "{}, {}",
                row.required_instances,
                percent(row.required_steady_utilization)
            ),
        };
        table.add_row([
            row.component.clone(),
            row.lost.clone(),
            format!("{} of {}", row.survivors, row.instances),
            percent(row.utilization),
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
fn cascades(report: &Report, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Failover cascades (load asked / capacity)")?;
    for walk in &report.cascades {
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

/// A ratio as a whole percent, halves rounded up.
fn percent(ratio: f64) -> String {
    format!("{:.0}%", (ratio * 100.0).round())
}

/// A load as the model gives it: `1660`, `12.5`.
fn amount(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let text = format!("{x:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A duration in seconds as the largest two units (`8h 45m`).
fn downtime(seconds: f64) -> String {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a year has far fewer seconds than u64::MAX"
    )]
    let total = seconds.max(0.0).round() as u64;
    let (d, h, m, s) = (
        total / 86_400,
        total % 86_400 / 3600,
        total % 3600 / 60,
        total % 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s}s"),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

fn finding_block(finding: &Finding, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let status = match finding.status {
        Status::New => "",
        Status::Baseline => " [baseline]",
        Status::Accepted => " [accepted]",
    };
    let place = format!("line {}:{}", finding.location.line, finding.location.column);
    let head = format!("{}{status}", finding.id);
    let gap = style
        .width
        .saturating_sub(2 + head.chars().count() + place.chars().count())
        .max(1);
    writeln!(out, "  {head}{}{place}", " ".repeat(gap))?;
    for line in wrap(&finding.message, style.width.saturating_sub(4)) {
        writeln!(out, "    {line}")?;
    }
    if let Some(help) = &finding.help {
        for (index, line) in wrap(help, style.width.saturating_sub(10))
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

fn summary(report: &Report) -> String {
    let count = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
    let new = report
        .findings
        .iter()
        .filter(|f| f.status == Status::New)
        .count();
    format!(
        "{} error(s), {} warning(s), {} note(s); {new} new",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note)
    )
}

fn plural(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Note => "Notes",
    }
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

/// Greedy word wrap by characters; a word longer than the width gets a line
/// of its own.
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(20);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
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
        // 0.999 over a year: 0.001 * 365.25 * 86400 = 31557.6 s = 8h 45m 57.6s
        assert_eq!(downtime(31_557.6), "8h 45m");
        assert_eq!(downtime(59.0), "59s");
        assert_eq!(downtime(200_000.0), "2d 7h");
    }
}
