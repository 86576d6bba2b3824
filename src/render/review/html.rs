//! The review as one self-contained HTML page: inline CSS, the diagram as
//! inline SVG, no script, no external font, image or link, every text
//! escaped. It opens from a file and prints as it shows.

use std::fmt::Write as _;

use super::{Block, Document};
use crate::analyze::{Severity, Status};
use crate::render::diagram::svg;
use crate::render::escape::xml as escape_xml;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2733;line-height:1.45}
h1{font-size:1.6rem;border-bottom:2px solid #34495e;padding-bottom:.3rem}
h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ccd;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-bottom:.4rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.92rem}
th,td{border:1px solid #ccd;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#eef3f9}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;background:#f3f4f6;padding:0 .2rem;border-radius:3px}
.finding{border-left:4px solid #999;padding:.3rem .8rem;margin:.6rem 0;background:#fafbfc}
.finding.error{border-color:#c0392b}.finding.warning{border-color:#d68910}.finding.note{border-color:#2e86c1}
.finding p{margin:.2rem 0}.finding .help{color:#34495e}
.where{color:#666;font-size:.85rem}
.diagram-box{border:1px solid #ccd;padding:.5rem;background:#fff}
.diagram-box svg{display:block;max-width:100%;height:auto}
td.over{background:#c0392b;color:#fff;font-weight:bold}
@media print{body{margin:0;max-width:none}.diagram-box{break-inside:avoid}}
.plot-box{overflow-x:auto;border:1px solid #ccd;padding:.5rem;background:#fff}
";

/// The HTML page, ending with a newline.
#[must_use]
pub fn render(document: &Document) -> String {
    let mut out =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape_xml(&document.title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape_xml(&document.title));
    for section in &document.sections {
        let _ = writeln!(out, "<section>\n<h2>{}</h2>", escape_xml(section.title));
        for block in &section.blocks {
            block_html(block, document, &mut out);
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn block_html(block: &Block, document: &Document, out: &mut String) {
    match block {
        Block::Text(text) => {
            let _ = writeln!(out, "<p>{}</p>", inline(text));
        }
        Block::Heading(text) => {
            let _ = writeln!(out, "<h3>{}</h3>", inline(text));
        }
        Block::List(items) => {
            out.push_str("<ul>\n");
            for item in items {
                let _ = writeln!(out, "<li>{}</li>", inline(item));
            }
            out.push_str("</ul>\n");
        }
        Block::Table {
            header,
            rows,
            right,
        } => {
            out.push_str("<table>\n<thead><tr>");
            for h in header {
                let _ = write!(out, "<th>{}</th>", escape_xml(h));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in rows {
                out.push_str("<tr>");
                for (column, c) in row.iter().enumerate() {
                    // A headroom verdict that fails stands out.
                    let class = if c == "OVER" {
                        " class=\"over\""
                    } else if right.contains(&column) {
                        " class=\"num\""
                    } else {
                        ""
                    };
                    let _ = write!(out, "<td{class}>{}</td>", inline(c));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n");
        }
        Block::Findings(findings) => {
            for finding in findings {
                let id = finding.id().to_string();
                let status = match finding.status {
                    Status::New => "",
                    Status::Baseline => " (baseline)",
                    Status::Accepted => " (accepted)",
                };
                let severity = match finding.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                };
                let _ = writeln!(
                    out,
                    "<div class=\"finding {severity}\" id=\"{}\">\n<p><code>{}</code>{status} <span class=\"where\">{severity}, line {}:{}</span></p>\n<p>{}</p>",
                    escape_xml(&id),
                    escape_xml(&id),
                    finding.location.line,
                    finding.location.column,
                    inline(&finding.message().to_string())
                );
                if let Some(help) = finding.help() {
                    let _ = writeln!(
                        out,
                        "<p class=\"help\"><strong>Help:</strong> {}</p>",
                        inline(&help.to_string())
                    );
                }
                if let Some(reason) = &finding.justification {
                    let _ = writeln!(
                        out,
                        "<p class=\"help\"><strong>Accepted:</strong> {}</p>",
                        inline(reason)
                    );
                }
                out.push_str("</div>\n");
            }
        }
        Block::Diagram => {
            let _ = write!(
                out,
                "<div class=\"diagram-box\">\n{}</div>\n",
                svg::render(document.diagram)
            );
        }
        Block::Plot(svg) => {
            let _ = write!(out, "<div class=\"plot-box\">\n{svg}</div>\n");
        }
    }
}

/// Escaped text with `code` spans and `**strong**` spans as elements.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut code, mut strong) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
            rest = &rest[1..];
        } else if !code && rest.starts_with("**") {
            out.push_str(if strong { "</strong>" } else { "<strong>" });
            strong = !strong;
            rest = &rest[2..];
        } else {
            out.push_str(&escape_xml(&rest[..c.len_utf8()]));
            rest = &rest[c.len_utf8()..];
        }
    }
    if code {
        out.push_str("</code>");
    }
    if strong {
        out.push_str("</strong>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_marks_become_elements_and_the_rest_is_escaped() {
        assert_eq!(
            inline("**Verdict** set `a<b` & go"),
            "<strong>Verdict</strong> set <code>a&lt;b</code> &amp; go"
        );
        assert_eq!(inline("`open"), "<code>open</code>");
    }
}
