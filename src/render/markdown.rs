//! A pull-request comment: a hidden marker so CI can find and update its own
//! comment, a one-line verdict, availability per entrypoint, the new findings
//! that fail the run in a table, and everything else folded away. The
//! comment stays under GitHub's size limit however many findings there are.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::baseline::refresh_command;
use super::escape;
use super::table::row_downtime;
use super::{Audit, Target};
use crate::analyze::wording::number;
use crate::analyze::{Finding, Severity, Status};

/// The first line of every comment, for CI to find the one to update.
pub const MARKER: &str = "<!-- nines-report -->";

/// Upper bound on the comment's size in bytes (so also in characters);
/// GitHub refuses comments over 65,536 characters.
pub const LIMIT: usize = 60_000;

/// Room kept for what follows a table: later headings, closing tags, the
/// "… more" lines, the fixed ids and the footer.
const RESERVE: usize = 4_000;

/// Longest user string shown whole (the system's name, a file name, an id);
/// longer ones are cut with `…`.
const NAME_CHARS: usize = 200;

/// Longest table cell (a message, a help text, a reason), in characters.
const CELL_CHARS: usize = 600;

/// Entrypoints listed before the rest are counted.
const ENTRYPOINT_ROWS: usize = 10;

/// Writes the comment.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, target: &Target, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(comment(audit, target.file, target.threshold).as_bytes())
}

/// The comment's text.
#[must_use]
pub fn comment(audit: &Audit, file: &str, threshold: Option<Severity>) -> String {
    let mut page = String::new();
    let _ = writeln!(page, "{MARKER}");
    let _ = writeln!(page, "{}\n", verdict(audit, threshold));
    let _ = writeln!(
        page,
        "{} ({})\n",
        escape::markdown_code(&escape::truncate(&audit.system, NAME_CHARS)),
        cell(file)
    );
    availability(audit, &mut page);
    // Without a threshold nothing fails; errors still lead.
    let shown = threshold.unwrap_or(Severity::Error);
    let is_new = |f: &&Finding| f.status == Status::New;
    let headline: Vec<&Finding> = audit
        .findings
        .iter()
        .filter(is_new)
        .filter(|f| f.severity >= shown)
        .collect();
    if !headline.is_empty() {
        let _ = writeln!(page, "### New findings at or above {}\n", shown.as_str());
        findings_table(&headline, false, &mut page);
    }
    let below: Vec<&Finding> = audit
        .findings
        .iter()
        .filter(is_new)
        .filter(|f| f.severity < shown)
        .collect();
    let summary = format!("New below {}: {}", shown.as_str(), below.len());
    folded(&summary, &below, false, &mut page);
    let known: Vec<&Finding> = audit
        .findings
        .iter()
        .filter(|f| f.status == Status::Baseline)
        .collect();
    folded(
        &format!("In the baseline: {}", known.len()),
        &known,
        false,
        &mut page,
    );
    let accepted: Vec<&Finding> = audit
        .findings
        .iter()
        .filter(|f| f.status == Status::Accepted)
        .collect();
    folded(
        &format!("Accepted: {}", accepted.len()),
        &accepted,
        true,
        &mut page,
    );
    fixed(audit, file, &mut page);
    let _ = writeln!(page, "<sub>{}</sub>", footer(audit, threshold));
    page
}

/// `**nines**: ❌ 3 new findings at or above error`, or a pass.
fn verdict(audit: &Audit, threshold: Option<Severity>) -> String {
    let failing = audit.failing(threshold).count();
    match threshold {
        None => "**nines**: ✅ nothing fails the run (`--fail-on never`)".to_owned(),
        Some(t) if failing == 0 => {
            format!("**nines**: ✅ no new findings at or above {}", t.as_str())
        }
        Some(t) => format!(
            "**nines**: ❌ {failing} new finding{} at or above {}",
            if failing == 1 { "" } else { "s" },
            t.as_str()
        ),
    }
}

fn availability(audit: &Audit, page: &mut String) {
    if audit.availability.is_empty() {
        return;
    }
    page.push_str("| entrypoint | availability | nines | objective | downtime/yr |\n");
    page.push_str("|---|---:|---:|---:|---:|\n");
    for (name, row) in audit.availability.iter().take(ENTRYPOINT_ROWS) {
        let objective = row
            .objective
            .map_or_else(|| "-".to_owned(), |o| format!("{}%", number(o * 100.0)));
        let _ = writeln!(
            page,
            "| {} | {} | {} | {objective} | {} |",
            cell(name),
            row.figure_text(),
            row.nines_text(),
            row_downtime(row, row.downtime_per_year_s)
        );
    }
    let hidden = audit.availability.len().saturating_sub(ENTRYPOINT_ROWS);
    if hidden > 0 {
        let _ = writeln!(
            page,
            "\n… and {hidden} more entrypoint(s) in `--format json`."
        );
    }
    let notes = super::table::availability_notes(audit);
    if !notes.is_empty() {
        page.push('\n');
        for note in notes {
            let _ = writeln!(page, "- {note}");
        }
    }
    page.push('\n');
}

/// A table of findings, most severe first, as many rows as the size limit
/// allows.
fn findings_table(findings: &[&Finding], reasons: bool, page: &mut String) {
    let mut findings = findings.to_vec();
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    if reasons {
        page.push_str("| severity | id | line | message | reason |\n|---|---|---:|---|---|\n");
    } else {
        page.push_str("| severity | id | line | message |\n|---|---|---:|---|\n");
    }
    for (index, finding) in findings.iter().enumerate() {
        let mut message = cell(&finding.message().to_string());
        if let Some(help) = finding.help() {
            message.push_str("<br>fix: ");
            message.push_str(&cell(&help.to_string()));
        }
        let mut row = format!(
            "| {} | {} | {} | {message} |",
            finding.severity.as_str(),
            cell(&format!("`{}`", finding.id())),
            finding.location.line
        );
        if reasons {
            let reason = finding.justification.as_deref().unwrap_or("");
            let _ = write!(row, " {} |", cell(reason));
        }
        row.push('\n');
        if page.len() + row.len() + RESERVE > LIMIT {
            let _ = writeln!(
                page,
                "\n… and {} more, in `--format sarif` or `--format json`.",
                findings.len() - index
            );
            break;
        }
        page.push_str(&row);
    }
    page.push('\n');
}

/// A `<details>` block with a table, or nothing when there are no findings.
fn folded(summary: &str, findings: &[&Finding], reasons: bool, page: &mut String) {
    if findings.is_empty() {
        return;
    }
    let _ = writeln!(page, "<details><summary>{summary}</summary>\n");
    findings_table(findings, reasons, page);
    page.push_str("</details>\n\n");
}

/// The baseline's ids that no longer occur, with the hint to refresh it.
fn fixed(audit: &Audit, file: &str, page: &mut String) {
    let Some(known) = &audit.baseline else {
        return;
    };
    if audit.fixed.is_empty() {
        return;
    }
    let _ = write!(
        page,
        "**Fixed** since the baseline ({}):",
        audit.fixed.len()
    );
    for (index, id) in audit.fixed.iter().enumerate() {
        let comma = if index == 0 { "" } else { "," };
        let item = format!(
            "{comma} {}",
            escape::markdown_code(&escape::truncate(id, NAME_CHARS))
        );
        if page.len() + item.len() + RESERVE / 2 > LIMIT {
            let _ = write!(page, " … and {} more", audit.fixed.len() - index);
            break;
        }
        page.push_str(&item);
    }
    let _ = writeln!(
        page,
        ". To stop tracking them, refresh the baseline with `{}`.\n",
        refresh_command(file, &known.file)
    );
}

/// `4 errors, 3 warnings, 1 note; 2 new, 5 in the baseline, 1 accepted`.
fn footer(audit: &Audit, threshold: Option<Severity>) -> String {
    let severity = |s: Severity| audit.findings.iter().filter(|f| f.severity == s).count();
    let status = |s: Status| audit.findings.iter().filter(|f| f.status == s).count();
    let mut text = format!(
        "{} error(s), {} warning(s), {} note(s); {} new",
        severity(Severity::Error),
        severity(Severity::Warning),
        severity(Severity::Note),
        status(Status::New)
    );
    if audit.baseline.is_some() {
        let _ = write!(text, ", {} in the baseline", status(Status::Baseline));
    }
    let _ = write!(
        text,
        ", {} accepted · fails on {}",
        status(Status::Accepted),
        threshold.map_or("nothing", Severity::as_str)
    );
    text
}

/// Text safe in a table cell (see [`escape::markdown`]): no HTML, no
/// column breaks, one line, at most [`CELL_CHARS`] characters.
fn cell(text: &str) -> String {
    escape::markdown_cell(&escape::truncate(text, CELL_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;

    #[test]
    fn the_comment_starts_with_the_marker_and_a_verdict() {
        let text = comment(&sample::audit(), "shop.yaml", Some(Severity::Error));
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(MARKER));
        assert_eq!(
            lines.next(),
            Some("**nines**: ❌ 3 new findings at or above error")
        );
        let pass = comment(&sample::audit(), "shop.yaml", None);
        assert!(pass.contains("✅ nothing fails the run"));
    }

    #[test]
    fn new_findings_lead_and_the_rest_is_folded() {
        let text = comment(&sample::audit(), "shop.yaml", Some(Severity::Error));
        let (open, folded) = text.split_once("<details>").unwrap();
        assert!(open.contains("`spof/db`"));
        assert!(open.contains("`slo/api`"));
        assert!(!open.contains("placement/cache"));
        assert!(folded.contains("<summary>New below error: 2</summary>"));
        assert!(folded.contains("<summary>Accepted: 1</summary>"));
        assert!(folded.contains("| single-region by design; runbook R-12 |"));
    }

    #[test]
    fn cells_cannot_break_the_table() {
        let text = comment(&sample::audit(), "shop.yaml", Some(Severity::Error));
        assert!(text.contains(
            "cache: 100% of traffic, in no domain \\| &lt;none>, see a\\*b<br>second line"
        ));
        assert!(text.contains("| `retry-budget/api>db` |"));
        assert_eq!(cell("a `x<y|z` <b>"), "a `x<y\\|z` &lt;b>");
    }

    #[test]
    fn fixed_ids_come_with_the_command_that_refreshes_the_baseline() {
        let mut audit = sample::audit();
        audit.fixed = vec!["spof/gone".to_owned(), "spof/old".to_owned()];
        audit.baseline = Some(crate::render::baseline::Known {
            file: "ci/known.json".to_owned(),
            ids: std::collections::BTreeSet::new(),
        });
        let text = comment(&audit, "shop.yaml", Some(Severity::Error));
        assert!(text.contains(
            "**Fixed** since the baseline (2): `spof/gone`, `spof/old`. To stop tracking them, refresh the baseline with `nines baseline shop.yaml -o ci/known.json`."
        ));
    }

    #[test]
    fn a_huge_report_stays_under_the_limit() {
        let mut audit = sample::audit();
        let template = audit.findings[0].clone();
        for index in 0..5_000 {
            let mut extra = template.clone();
            extra.rule = "spof";
            extra.subject = format!("extra-{index:05}").into();
            extra.wording = std::sync::Arc::new(crate::analyze::Text::new("x".repeat(100)));
            extra.status = if index % 2 == 0 {
                Status::New
            } else {
                Status::Baseline
            };
            audit.findings.push(extra);
        }
        let text = comment(&audit, "shop.yaml", Some(Severity::Error));
        assert!(text.len() < LIMIT, "{} bytes", text.len());
        assert!(text.contains("more, in `--format sarif`"));
        assert!(text.trim_end().ends_with("</sub>"));
    }
}
