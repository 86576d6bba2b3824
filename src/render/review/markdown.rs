//! The review as GitHub-flavoured Markdown: a heading per section, pipe
//! tables, findings as list items with their help, and the diagram as a
//! ```` ```mermaid ```` block.

use std::fmt::Write as _;

use super::{Block, Document};
use crate::analyze::Status;
use crate::render::diagram::mermaid;
use crate::render::escape;

/// The Markdown text, ending with a newline.
#[must_use]
pub fn render(document: &Document) -> String {
    let mut out = format!("# {}\n", inline(&document.title));
    for section in &document.sections {
        let _ = write!(out, "\n## {}\n", section.title);
        for block in &section.blocks {
            out.push('\n');
            block_text(block, document, &mut out);
        }
    }
    out
}

fn block_text(block: &Block, document: &Document, out: &mut String) {
    match block {
        Block::Text(text) => {
            let _ = writeln!(out, "{}", inline(text));
        }
        Block::Heading(text) => {
            let _ = writeln!(out, "### {}", inline(text));
        }
        Block::List(items) => {
            for item in items {
                let _ = writeln!(out, "- {}", inline(item));
            }
        }
        Block::Table {
            header,
            rows,
            right,
        } => {
            let _ = writeln!(
                out,
                "| {} |",
                header
                    .iter()
                    .map(|h| cell(h))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
            let rule: Vec<&str> = (0..header.len())
                .map(|c| if right.contains(&c) { "--:" } else { "---" })
                .collect();
            let _ = writeln!(out, "|{}|", rule.join("|"));
            for row in rows {
                let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
        }
        Block::Findings(findings) => {
            for finding in findings {
                let status = match finding.status {
                    Status::New => "",
                    Status::Baseline => " (baseline)",
                    Status::Accepted => " (accepted)",
                };
                let _ = writeln!(
                    out,
                    "- **`{}`**{status} (line {}): {}",
                    finding.id(),
                    finding.location.line,
                    inline(&finding.message().to_string())
                );
                if let Some(help) = finding.help() {
                    let _ = writeln!(out, "  - Help: {}", inline(&help.to_string()));
                }
                if let Some(reason) = &finding.justification {
                    let _ = writeln!(out, "  - Accepted: {}", inline(reason));
                }
            }
        }
        Block::Diagram => {
            let _ = write!(
                out,
                "```mermaid\n{}```\n",
                mermaid::render(document.diagram)
            );
        }
        Block::Plot(_) => {
            out.push_str(
                "The plot of load against capacity is in the HTML report and in `nines recover MODEL --format svg`.\n",
            );
        }
    }
}

/// Inline text: user strings cannot open HTML, links or new blocks (see
/// [`escape::markdown`]); a figure such as `<0.1%` is never read as a tag.
fn inline(text: &str) -> String {
    escape::markdown(text)
}

/// A table cell: inline text with `|` escaped.
fn cell(text: &str) -> String {
    escape::markdown_cell(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_and_angle_brackets_outside_code() {
        assert_eq!(cell("a|b <0.1% `x<y`"), "a\\|b &lt;0.1% `x<y`");
    }
}
