//! `nines explain [RULE]`: the documentation written in each analyzer file.

use std::fmt::Write as _;

use super::{CliError, Outcome, Terminal};
use crate::analyze::{RuleDoc, doc, docs};
use crate::model::Rule;
use crate::model::error::closest;

/// The full text of one rule, as `explain` prints it and `docs/rules.md`
/// holds it, its prose wrapped to `width` columns (the example is YAML and
/// keeps its lines).
#[must_use]
pub fn rule_text(doc: &RuleDoc, width: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({}, id `{}`)\n", doc.name(), doc.severity, doc.id);
    let _ = writeln!(out, "{}\n", fill(doc.summary, width, ""));
    for (title, body) in [("What it checks", doc.checks), ("Why it matters", doc.why)] {
        let _ = writeln!(out, "{title}\n{}\n", fill(body, width, "  "));
    }
    let _ = writeln!(out, "Example\n{}\n", indent(doc.example));
    let _ = writeln!(out, "How to fix\n{}", fill(doc.fix, width, "  "));
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prose wrapped to `width` columns, every line starting with `lead`.
fn fill(text: &str, width: usize, lead: &str) -> String {
    let options = textwrap::Options::new(width.max(40))
        .initial_indent(lead)
        .subsequent_indent(lead)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(text, options)
}

/// `docs/rules.md`: every implemented rule's text, generated from the same
/// documentation `explain` prints (a test fails when the file is stale).
#[must_use]
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# Rules\n\nGenerated from the analyzer files by `UPDATE_DOCS=1 cargo test`; do not edit by hand.\n`nines explain RULE` prints the same text.\n",
    );
    for doc in docs() {
        let _ = write!(
            out,
            "\n## `{}`\n\nId `{}`, severity {}.\n\n{}\n\n### What it checks\n\n{}\n\n### Why it matters\n\n{}\n\n### Example\n\n```yaml\n{}\n```\n\n### How to fix\n\n{}\n",
            doc.name(),
            doc.id,
            doc.severity,
            doc.summary,
            doc.checks,
            doc.why,
            doc.example,
            doc.fix
        );
    }
    out
}

/// The list printed by `nines explain` without a rule, wrapped to `width`
/// columns under each summary.
#[must_use]
pub fn rule_list(width: usize) -> String {
    let mut out = String::from("Rules checked by this version:\n");
    for doc in docs() {
        let head = format!("  {:<19} {:<8} ", doc.name(), doc.severity);
        let options = textwrap::Options::new(width.max(60))
            .initial_indent(&head)
            .subsequent_indent("                               ")
            .break_words(false)
            .word_separator(textwrap::WordSeparator::AsciiSpace)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        let _ = writeln!(out, "{}", textwrap::fill(doc.summary, options));
    }
    out.push_str("\nRun `nines explain RULE` for one rule.\n");
    out
}

pub(super) fn run(rule: Option<&str>, terminal: &mut Terminal) -> Result<Outcome, CliError> {
    let text = match rule {
        None => rule_list(terminal.width),
        Some(rule) => {
            // A finding id works too: `explain spof/postgres` explains `spof`.
            let name = rule.split('/').next().unwrap_or(rule);
            let Some(doc) = doc(name) else {
                let hint = closest(name, Rule::names())
                    .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
                return Err(format!(
                    "no rule is called `{name}`{hint}; the rules are: {}",
                    Rule::names().collect::<Vec<_>>().join(", ")
                )
                .into());
            };
            rule_text(doc, terminal.width)
        }
    };
    terminal.out.write_all(text.as_bytes())?;
    Ok(Outcome::Pass)
}
