//! The draft as model text: a header saying what was imported and what to
//! fill in, then the model with a comment on every line that says where its
//! value comes from, and commented-out keys where the manifests say nothing.
//! The text is deterministic and always a valid model.

use std::fmt::Write as _;

use super::draft::{Draft, Part};
use crate::model::units::is_name;

/// The column comments start at, when the line leaves room.
const COMMENT_COLUMN: usize = 40;

/// Writes the model.
pub fn write(draft: &Draft) -> String {
    let mut out = String::new();
    header(&mut out, draft);
    preamble(&mut out, &draft.system);

    for (index, reason) in draft.entry_reasons.iter().enumerate() {
        if index == 0 {
            wrapped(&mut out, &format!("Entrypoints: {reason}"));
        } else {
            wrapped(&mut out, &format!("  {reason}"));
        }
    }
    let entrypoints: Vec<String> = draft.entrypoints.iter().map(|n| scalar(n)).collect();
    line(
        &mut out,
        0,
        &format!("entrypoints: [{}]", entrypoints.join(", ")),
        "",
    );
    out.push('\n');

    if !draft.zones.is_empty() {
        if draft.placeholder_zones {
            out.push_str(
                "# Zones for the workloads spread by zone: placeholders, since manifests do\n",
            );
            out.push_str("# not name zones. Rename them (or import with `--zones a,b,c`).\n");
        } else {
            out.push_str("# Zones for the workloads spread by zone, from `--zones`.\n");
        }
        out.push_str("domains:\n");
        for zone in &draft.zones {
            line(
                &mut out,
                2,
                &format!("{}: {{kind: zone}}", scalar(zone)),
                "fill in: `availability` of the zone",
            );
        }
        out.push('\n');
    }

    out.push_str("components:\n");
    for (index, part) in draft.components.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        component(&mut out, part);
    }
    out
}

fn header(out: &mut String, draft: &Draft) {
    let kinds: Vec<String> = draft
        .workloads
        .iter()
        .map(|(kind, count)| format!("{count} {kind}{}", if *count == 1 { "" } else { "s" }))
        .collect();
    let _ = writeln!(
        out,
        "# Imported by `nines import k8s` ({}) from\n#   {}",
        kinds.join(", "),
        comment(&draft.inputs),
    );
    out.push_str(
        "# A first model: check it against what you know, then fill in what
# manifests cannot tell, on the lines marked \"fill in\":
#   - the availability of one instance of each component (`availability`);
#   - what one instance can carry and the peak load (`capacity`, `load`);
#   - recovery targets of the datastores (`recovery`);
#   - which calls a caller can do without: every imported dependency is
#     required; add `degradable: true` where the caller still works.
# Commented-out keys show the syntax; their values are examples, not estimates.

",
    );
}

fn component(out: &mut String, part: &Part) {
    line(out, 2, &format!("{}:", scalar(&part.name)), &part.from);
    let (kind, why) = &part.kind;
    line(
        out,
        4,
        &format!("kind: {kind}"),
        why.as_deref().unwrap_or(""),
    );
    if let Some(why) = &part.control {
        line(out, 4, "plane: control", why);
    }
    match part.instances.0 {
        Some(n) => line(out, 4, &format!("instances: {n}"), &part.instances.1),
        None => line(out, 4, "# instances: N", &part.instances.1),
    }
    if part.scaled_to_zero {
        line(
            out,
            4,
            "availability: 0%",
            "nothing runs: every call to it fails",
        );
    }
    match &part.min_healthy {
        // A disruption budget bounds voluntary evictions; the functional
        // minimum may be higher or lower, so the figure is only offered.
        Some((Some(k), why)) => line(
            out,
            4,
            &format!("# min_healthy: {k}"),
            &format!("fill in: {why}; a disruption budget, not the fewest instances that serve"),
        ),
        Some((None, why)) => line(out, 4, "# min_healthy: N", why),
        None => {}
    }
    let (zones, why) = &part.placement;
    if zones.is_empty() {
        line(out, 4, &format!("# {why}"), "");
    } else {
        let zones: Vec<String> = zones.iter().map(|z| scalar(z)).collect();
        line(out, 4, &format!("placement: [{}]", zones.join(", ")), why);
    }
    if !part.scaled_to_zero {
        line(
            out,
            4,
            "# availability: 99.9%",
            "fill in: availability of one instance",
        );
    }
    line(
        out,
        4,
        "# capacity: N",
        "fill in: what one instance can carry",
    );
    line(
        out,
        4,
        "# load: N",
        "fill in: peak load on the whole component",
    );
    if let Some(storage) = &part.datastore {
        line(
            out,
            4,
            "# recovery: {rto: 1h, rpo: 5m}",
            &format!("fill in: recovery targets ({storage})"),
        );
    }
    dependencies(out, part);
}

/// The `depends_on` lines: the edges, then the Services with nothing
/// behind them, commented out.
fn dependencies(out: &mut String, part: &Part) {
    if part.edges.is_empty() && part.absent.is_empty() {
        return;
    }
    let (open, item) = if part.edges.is_empty() {
        ("# depends_on:", "#   - ")
    } else {
        ("depends_on:", "  - ")
    };
    line(out, 4, open, "");
    for edge in &part.edges {
        let targets: Vec<String> = edge.targets.iter().map(|t| scalar(t)).collect();
        let entry = match targets.as_slice() {
            [one] => one.clone(),
            _ => format!("any_of: [{}]", targets.join(", ")),
        };
        let why = if targets.len() > 1 {
            format!("{}; one Service selects all of them", edge.via.join(", "))
        } else {
            edge.via.join(", ")
        };
        line(out, 4, &format!("  - {entry}"), &why);
    }
    for absent in &part.absent {
        let item = if part.edges.is_empty() {
            item
        } else {
            "  # - "
        };
        line(
            out,
            4,
            &format!("{item}{}", absent.name),
            &format!("{} ({})", absent.why, absent.via.join(", ")),
        );
    }
}

/// One line: `indent` spaces, the content, and a comment at
/// [`COMMENT_COLUMN`] when there is one.
/// The lines every imported model begins with: the format version, the
/// system's name, and the objective left for the user to fill in.
pub(super) fn preamble(out: &mut String, system: &str) {
    line(out, 0, "version: 1", "");
    line(out, 0, &format!("system: {}", scalar(system)), "");
    line(
        out,
        0,
        "# objective: {availability: 99.9%, window: 30d}",
        "fill in: what the system promises",
    );
    out.push('\n');
}

pub(super) fn line(out: &mut String, indent: usize, content: &str, why: &str) {
    let start = out.len();
    out.push_str(&" ".repeat(indent));
    out.push_str(content);
    if !why.is_empty() {
        let used = out[start..].chars().count();
        let pad = COMMENT_COLUMN.saturating_sub(used).max(2);
        out.push_str(&" ".repeat(pad));
        out.push_str("# ");
        out.push_str(&comment(why));
    }
    out.push('\n');
}

/// A comment block wrapped at 80 columns (by display width, first fit;
/// a word longer than a line keeps a line of its own), continuation lines
/// indented two more; runs of spaces between words read as one.
pub(super) fn wrapped(out: &mut String, text: &str) {
    let indent = text.len() - text.trim_start().len();
    let words = comment(text);
    let words: Vec<&str> = words.split(' ').filter(|w| !w.is_empty()).collect();
    let first = format!("#{}", " ".repeat(indent + 1));
    let rest = format!("#{}", " ".repeat(indent + 3));
    let options = textwrap::Options::new(80)
        .initial_indent(&first)
        .subsequent_indent(&rest)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
    if words.is_empty() {
        out.push_str("#\n");
        return;
    }
    for line in textwrap::wrap(&words.join(" "), options) {
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// Whether YAML takes the character as it is (its printable set, less the
/// byte-order mark, which may not appear inside a document).
fn is_printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// Text made safe for a YAML comment: one line, only characters YAML
/// allows (line breaks, controls and non-characters are escaped), and none
/// that hides or reorders text in review (bidirectional overrides,
/// zero-width characters: [`crate::escape::is_invisible`]), escaped as a
/// terminal shows them (`\u{202e}`). Names in traces and manifests are
/// written by whoever deploys a service.
pub(super) fn comment(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if is_printable(c) && !crate::escape::is_invisible(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    out
}

/// A name or free text as a YAML scalar: plain when it is a name YAML reads
/// as text, double-quoted otherwise (`null`, spaces, punctuation).
pub(super) fn scalar(text: &str) -> String {
    if is_name(text) && !matches!(text, "null" | "Null" | "NULL") {
        return text.to_owned();
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_printable(c) && !crate::escape::is_invisible(c) => out.push(c),
            c if u32::from(c) > 0xffff => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_stay_on_one_line() {
        assert_eq!(
            comment("a\nb\r\u{feff}c\u{ffff}"),
            "a\\u{a}b\\u{d}\\u{feff}c\\u{ffff}"
        );
        assert_eq!(comment("é ✓"), "é ✓");
        // Trojan Source: an override that would reorder the line in review.
        assert_eq!(
            comment("web\u{202e}\u{2066}x\u{200b}"),
            "web\\u{202e}\\u{2066}x\\u{200b}"
        );
    }

    #[test]
    fn scalars_that_yaml_would_misread_are_quoted() {
        assert_eq!(scalar("web"), "web");
        assert_eq!(scalar("null"), "\"null\"");
        assert_eq!(scalar("my shop"), "\"my shop\"");
        assert_eq!(scalar("a\"b"), "\"a\\\"b\"");
        // YAML escapes: the value reads back the same, the file shows no
        // hidden character.
        assert_eq!(scalar("a\u{202e}b\u{e0041}"), "\"a\\u202eb\\U000e0041\"");
    }

    #[test]
    fn comment_blocks_wrap_at_eighty_columns() {
        let mut out = String::new();
        // Indent 2: "#" and 3 spaces, then k words of 4 letters take
        // 4 + 5k - 1 columns; k = 15 gives 78 and 16 would give 83, so 15
        // words fit and the other 5 follow after "#" and 5 spaces.
        wrapped(&mut out, &format!("  {}", ["abcd"; 20].join("  ")));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0].len(), 78);
        assert_eq!(lines[1], format!("#     {}", ["abcd"; 5].join(" ")));
        // A word longer than a line gets a line of its own, unbroken.
        let mut out = String::new();
        wrapped(&mut out, &format!("a {} b", "x".repeat(100)));
        assert_eq!(out, format!("# a\n#   {}\n#   b\n", "x".repeat(100)));
        let mut out = String::new();
        wrapped(&mut out, "");
        assert_eq!(out, "#\n");
    }

    #[test]
    fn comments_line_up() {
        let mut out = String::new();
        line(&mut out, 4, "kind: service", "why");
        assert_eq!(out.find('#'), Some(COMMENT_COLUMN));
    }
}
