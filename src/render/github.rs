//! GitHub Actions workflow commands: one `::error`, `::warning` or
//! `::notice` line per finding, so each appears as an annotation on the
//! model's line in a pull request. New findings come first, most severe
//! first, because GitHub shows only the first few of each level.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{Audit, Target};
use crate::analyze::{Finding, Severity, Status};

/// Annotations of one level GitHub shows per step; the rest are dropped.
pub const SHOWN_PER_LEVEL: usize = 10;

/// Writes one workflow command per finding, then a summary line when
/// GitHub will not show them all.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, target: &Target, out: &mut dyn Write) -> io::Result<()> {
    let file = target.file;
    let mut ordered: Vec<&Finding> = audit.findings.iter().collect();
    // New before known, then errors before warnings before notes, then by id
    // (the findings are already sorted by id and the sort is stable).
    ordered.sort_by_key(|f| (f.status != Status::New, std::cmp::Reverse(f.severity)));
    let mut per_level = [0_usize; 3];
    for finding in ordered {
        let (level, index) = level(finding);
        per_level[index] += 1;
        let mut text = finding.message().to_string();
        match finding.status {
            Status::New => {}
            Status::Baseline => text.push_str(" (in baseline)"),
            Status::Accepted => {
                let reason = finding.justification.as_deref().unwrap_or("");
                text.push_str(" (accepted: ");
                text.push_str(reason);
                text.push(')');
            }
        }
        if let Some(help) = finding.help() {
            let _ = write!(text, "\nhelp: {help}");
        }
        writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            property(file),
            finding.location.line,
            finding.location.column,
            property(&format!("{} ({})", finding.id(), finding.severity.as_str())),
            data(&text)
        )?;
    }
    if per_level.iter().any(|&n| n > SHOWN_PER_LEVEL) {
        let [errors, warnings, notices] = per_level;
        writeln!(
            out,
            "nines: {} findings ({errors} error, {warnings} warning and {notices} notice annotations); GitHub shows {SHOWN_PER_LEVEL} of each level per step, so the rest are only in the full report (`nines check {} --format sarif` or `--format markdown`).",
            audit.findings.len(),
            // A plain log line: a newline in the path would start a forged
            // workflow command.
            crate::render::escape::terminal(file)
        )?;
    }
    Ok(())
}

/// The command for a finding and its slot in the per-level count. Known
/// findings (baseline, accepted) are notices whatever their severity: they
/// do not fail the run and must not crowd out the new ones.
fn level(finding: &Finding) -> (&'static str, usize) {
    match (finding.status, finding.severity) {
        (Status::New, Severity::Error) => ("error", 0),
        (Status::New, Severity::Warning) => ("warning", 1),
        _ => ("notice", 2),
    }
}

/// Escapes the message part of a workflow command.
#[must_use]
pub fn data(text: &str) -> String {
    // Escape sequences in a model's strings would reach the Actions log.
    let mut visible = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\r' | '\n') || !crate::render::escape::is_unsafe_char(c) {
            visible.push(c);
        } else {
            visible.push_str(&crate::render::escape::terminal(c.encode_utf8(&mut [0; 4])));
        }
    }
    visible
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file=…`, `title=…`): as the message, and
/// also `:` and `,`, which end a property.
#[must_use]
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;

    fn render_to_string(audit: &Audit, file: &str) -> String {
        let mut out = Vec::new();
        render(audit, &Target::file(file), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn messages_escape_percent_and_line_breaks() {
        assert_eq!(data("100% up:\r\nsee a, b"), "100%25 up:%0D%0Asee a, b");
        // `%` first, so the escapes themselves are not escaped again
        assert_eq!(data("%0A"), "%250A");
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        assert_eq!(property("C:\\models\\a,b.yaml"), "C%3A\\models\\a%2Cb.yaml");
        assert_eq!(property("50%:\n,"), "50%25%3A%0A%2C");
    }

    #[test]
    fn one_command_per_finding_new_first_and_most_severe_first() {
        let text = render_to_string(&sample::audit(), "models/shop,v2.yaml");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6, "{text}");
        let heads: Vec<&str> = lines
            .iter()
            .map(|l| l.split_once(" file=").unwrap().0)
            .collect();
        assert_eq!(
            heads,
            [
                "::error",
                "::error",
                "::error",
                "::warning",
                "::notice",
                "::notice"
            ]
        );
        assert_eq!(
            lines[0],
            "::error file=models/shop%2Cv2.yaml,line=5,col=3,title=headroom/api/az-a (error)::losing az-a leaves 2 of 4 api instances at 125%25 of capacity%0Ahelp: run 6 instances, 2 per zone"
        );
        assert!(
            lines[3].ends_with(
                "::cache: 100%25 of traffic, in no domain | <none>, see a*b%0Asecond line"
            )
        );
        assert!(lines[4].contains("title=retry-budget/api>db (note)::"));
        assert!(lines[5].ends_with(
            "::config has 1 instance and api needs it (accepted: single-region by design; runbook R-12)"
        ));
    }

    #[test]
    fn a_summary_follows_when_github_would_hide_annotations() {
        let mut audit = sample::audit();
        assert!(!render_to_string(&audit, "m.yaml").contains("GitHub shows"));
        let template = audit.findings[0].clone();
        for index in 0..SHOWN_PER_LEVEL {
            let mut extra = template.clone();
            extra.rule = "spof";
            extra.subject = format!("extra-{index}").into();
            audit.findings.push(extra);
        }
        let text = render_to_string(&audit, "m.yaml");
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("nines: 16 findings (13 error,"), "{last}");
        assert!(!last.starts_with("::"));
    }
}
