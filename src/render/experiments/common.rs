//! What the three chaos formats share: how a model's names become
//! selectors (label values, node labels per domain kind, object names),
//! the success-ratio query of each entrypoint, durations in each tool's
//! notation, the prediction as it is carried inside every file, and a
//! small YAML writer whose every string is double-quoted.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::analyze::experiments::{Experiment, Plan};
use crate::escape;

/// The metric the success-ratio probes read: a request counter with a
/// `code` label holding the HTTP status (docs/experiments.md, "The files
/// for each tool", says how to change it).
pub(super) const REQUESTS_METRIC: &str = "http_requests_total";

/// A Prometheus label name for a Kubernetes label key, as kube-state-metrics
/// and the `labelmap` relabelling write it: every character outside
/// `[a-zA-Z0-9_]` becomes `_`, and a name that would start with a digit (or
/// be empty) gets a leading `_`.
pub(super) fn prometheus_label(key: &str) -> String {
    let mut out: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `text` as a `PromQL` double-quoted string literal (Go escapes: `\\`, `\"`,
/// `\n`, `\r`, `\t`, other control characters as `\u…`).
pub(super) fn promql_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escape::is_unsafe_char(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number for `PromQL` and the descriptions: finite, in [0, 1], in
/// decimal notation (Rust never writes an exponent for an `f64`).
pub(super) fn ratio(x: f64) -> String {
    let x = if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    };
    format!("{x}")
}

/// The success ratio of `entrypoint` over the last minute: its requests
/// answered without a 5xx over all of its requests, on the pods whose
/// `label` is its name.
pub(super) fn success_ratio(label: &str, entrypoint: &str) -> String {
    let selector = format!("{}={}", prometheus_label(label), promql_string(entrypoint));
    format!(
        "sum(rate({REQUESTS_METRIC}{{{selector},code!~\"5..\"}}[1m])) / sum(rate({REQUESTS_METRIC}{{{selector}}}[1m]))"
    )
}

/// Why `value` cannot be a Kubernetes label value (at most 63 characters,
/// empty or alphanumeric at both ends with `-`, `_`, `.` between), or
/// `None` when it can.
pub(super) fn label_value_problem(value: &str) -> Option<String> {
    let chars = value.chars().count();
    if chars > 63 {
        return Some(format!(
            "`{}` is {chars} characters: a Kubernetes label value has at most 63, so no pod can carry it",
            escape::truncate(value, 40)
        ));
    }
    let inner = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let ends = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && value.ends_with(|c: char| c.is_ascii_alphanumeric());
    if value.is_empty() || (ends && value.chars().all(inner)) {
        None
    } else {
        Some(format!(
            "`{}` is not a valid Kubernetes label value (alphanumeric at both ends, `-`, `_`, `.` between), so no pod can carry it",
            escape::terminal(value)
        ))
    }
}

/// The problems of every value in `values` as a label value, in order,
/// each once.
pub(super) fn label_problems<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if let Some(p) = label_value_problem(v)
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
    out
}

/// A Kubernetes label name segment from free text: characters outside
/// `[A-Za-z0-9._-]` become `-`, non-alphanumeric ends are trimmed, at
/// most 63 characters, `domain` when nothing is left.
fn label_segment(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = mapped.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let mut out: String = trimmed.chars().take(63).collect();
    while out.ends_with(|c: char| !c.is_ascii_alphanumeric()) {
        out.pop();
    }
    if out.is_empty() {
        "domain".to_owned()
    } else {
        out
    }
}

/// The node label whose value names a failure domain of this kind: the
/// well-known topology labels for `zone` and `region`,
/// `kubernetes.io/hostname` for `host` and `node`, else
/// `topology.nines.dev/<kind>` (the kind made a valid label name).
pub(super) fn domain_label(kind: &str) -> String {
    match kind {
        "zone" => "topology.kubernetes.io/zone".to_owned(),
        "region" => "topology.kubernetes.io/region".to_owned(),
        "host" | "node" => "kubernetes.io/hostname".to_owned(),
        other => format!("topology.nines.dev/{}", label_segment(other)),
    }
}

/// A DNS-1123 label (lower-case alphanumerics and `-`, alphanumeric at both
/// ends, at most 63 characters) from a slug and an optional part number:
/// `nines-<slug>` or `nines-<slug>-<n>`, the slug cut to fit.
pub(super) fn dns_name(slug: &str, part: Option<usize>) -> String {
    let suffix = part.map_or_else(String::new, |n| format!("-{n}"));
    let clean: String = slug
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let room = 63 - "nines-".len() - suffix.len();
    let mut body: String = clean.trim_matches('-').chars().take(room).collect();
    while body.ends_with('-') {
        body.pop();
    }
    if body.is_empty() {
        body.push_str("loss");
    }
    format!("nines-{body}{suffix}")
}

/// Whole milliseconds of `seconds` (0 for a negative or non-finite value).
fn millis(seconds: f64) -> u64 {
    if seconds.is_finite() && seconds > 0.0 {
        // Saturating float-to-int: durations are far below 2^64 ms.
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "positive, finite and rounded; `as` saturates"
        )]
        let ms = (seconds * 1000.0).round() as u64;
        ms
    } else {
        0
    }
}

/// A Go duration (`300s`, `1500ms`), as Chaos Mesh and chaosk8s read them.
pub(super) fn go_duration(seconds: f64) -> String {
    let ms = millis(seconds);
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Whole milliseconds of `seconds`, rounded.
pub(super) fn whole_millis(seconds: f64) -> u64 {
    millis(seconds)
}

/// Whole seconds, rounded up (a fraction of a second still counts).
pub(super) fn whole_seconds(seconds: f64) -> u64 {
    millis(seconds).div_ceil(1000)
}

/// An ISO-8601 duration of whole seconds (`PT5M`, `PT1H30M`, `PT45S`).
pub(super) fn iso_duration(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let mut out = "PT".to_owned();
    if h > 0 {
        let _ = write!(out, "{h}H");
    }
    if m > 0 {
        let _ = write!(out, "{m}M");
    }
    if s > 0 || (h == 0 && m == 0) {
        let _ = write!(out, "{s}S");
    }
    out
}

/// The prediction as every file carries it (the Chaos Toolkit extension,
/// the Chaos Mesh annotation): the loss, its slug, the `what-if` arguments
/// of the same numbers, each entrypoint's predicted served share with its
/// tolerance and abort ratio, the overloaded components, the margin and
/// the duration.
pub(super) fn prediction(plan: &Plan, e: &Experiment) -> Value {
    json!({
        "name": "nines",
        "system": plan.system,
        "loss": e.loss,
        "slug": e.slug,
        "title": e.title,
        "what_if": e.what_if,
        "injection": e.injection,
        "predictions": e.predictions,
        "overloaded": e.overloaded,
        "unserved": e.unserved,
        "margin": plan.margin,
        "duration_s": plan.duration_s,
    })
}

/// Each entrypoint's predicted share in words: `redirect 89% (at least 87%)`.
pub(super) fn predictions_text(e: &Experiment) -> String {
    if e.predictions.is_empty() {
        return "no entrypoint to predict".to_owned();
    }
    e.predictions
        .iter()
        .map(|p| {
            format!(
                "{} serves {} (hypothesis: at least {})",
                escape::terminal(&p.entrypoint),
                percent(p.served),
                percent(p.tolerance)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A share as a percentage with at most two decimals (`87%`, `99.95%`).
fn percent(x: f64) -> String {
    let x = if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let text = format!("{:.2}", x * 100.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// A YAML value written by [`yaml`]: mappings keep their order.
#[derive(Debug, Clone)]
pub(super) enum Yaml {
    /// A string, always written double-quoted.
    Str(String),
    /// A sequence.
    Seq(Vec<Yaml>),
    /// A mapping, in this order.
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    /// A string value.
    pub(super) fn str(text: impl Into<String>) -> Self {
        Yaml::Str(text.into())
    }

    /// A mapping from `(key, value)` pairs.
    pub(super) fn map<K: Into<String>>(entries: impl IntoIterator<Item = (K, Yaml)>) -> Self {
        Yaml::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

/// `text` as a YAML double-quoted scalar: `"` and `\` escaped, and every
/// character outside YAML's printable set, every line break and every
/// invisible format character (bidirectional overrides, zero-width
/// characters, line separators) written as an escape, so a hostile name
/// can neither end the string, start a new line or document, nor read
/// differently from what the parser sees.
pub(super) fn yaml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if escape::is_unsafe_char(c) || !yaml_printable(c) => {
                let code = u32::from(c);
                if code <= 0xff {
                    let _ = write!(out, "\\x{code:02x}");
                } else if code <= 0xffff {
                    let _ = write!(out, "\\u{code:04x}");
                } else {
                    let _ = write!(out, "\\U{code:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// YAML 1.2's `c-printable` less the byte-order mark and `\x85`.
fn yaml_printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// `value` as block YAML (one document, no leading `---`), each line ending
/// in a newline.
pub(super) fn yaml(value: &Yaml) -> String {
    let mut out = String::new();
    write_block(&mut out, value, 0);
    out
}

fn write_block(out: &mut String, value: &Yaml, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Yaml::Map(entries) if !entries.is_empty() => {
            for (key, v) in entries {
                let _ = write!(out, "{pad}{}:", yaml_string(key));
                write_after_key(out, v, indent);
            }
        }
        Yaml::Seq(items) if !items.is_empty() => {
            for item in items {
                match item {
                    Yaml::Map(entries) if !entries.is_empty() => {
                        // `- key: value` then the other keys under it.
                        let _ = write!(out, "{pad}-");
                        for (i, (key, v)) in entries.iter().enumerate() {
                            if i == 0 {
                                let _ = write!(out, " {}:", yaml_string(key));
                            } else {
                                let _ = write!(out, "{pad}  {}:", yaml_string(key));
                            }
                            write_after_key(out, v, indent + 2);
                        }
                    }
                    other => {
                        let _ = write!(out, "{pad}-");
                        write_after_key(out, other, indent);
                    }
                }
            }
        }
        scalar => {
            let _ = writeln!(out, "{pad}{}", inline(scalar));
        }
    }
}

/// What follows `key:` (or `-`): a scalar or an empty collection on the
/// same line, else a newline and the block indented under it.
fn write_after_key(out: &mut String, value: &Yaml, indent: usize) {
    match value {
        Yaml::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            write_block(out, value, indent + 2);
        }
        Yaml::Seq(items) if !items.is_empty() => {
            out.push('\n');
            write_block(out, value, indent + 2);
        }
        scalar => {
            let _ = writeln!(out, " {}", inline(scalar));
        }
    }
}

fn inline(value: &Yaml) -> String {
    match value {
        Yaml::Str(s) => yaml_string(s),
        Yaml::Seq(_) => "[]".to_owned(),
        Yaml::Map(_) => "{}".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_names_are_prometheus_names() {
        assert_eq!(
            prometheus_label("app.kubernetes.io/name"),
            "app_kubernetes_io_name"
        );
        assert_eq!(prometheus_label("9lives"), "_9lives");
        assert_eq!(prometheus_label(""), "_");
        assert_eq!(prometheus_label("é-x"), "__x");
    }

    #[test]
    fn promql_strings_cannot_end_early() {
        assert_eq!(promql_string(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(promql_string("a\nb\u{202e}"), r#""a\nb\u202e""#);
    }

    #[test]
    fn names_are_dns_labels() {
        assert_eq!(dns_name("az-a", None), "nines-az-a");
        assert_eq!(dns_name("az-a", Some(2)), "nines-az-a-2");
        let long = dns_name(&"x-".repeat(100), Some(12));
        assert!(long.len() <= 63, "{long}");
        assert!(long.ends_with("-12"));
        assert!(!long.contains("--"));
        assert_eq!(dns_name("---", None), "nines-loss");
    }

    #[test]
    fn durations_in_each_notation() {
        assert_eq!(go_duration(300.0), "300s");
        assert_eq!(go_duration(1.5), "1500ms");
        assert_eq!(go_duration(f64::NAN), "0s");
        assert_eq!(iso_duration(300), "PT5M");
        assert_eq!(iso_duration(5430), "PT1H30M30S");
        assert_eq!(iso_duration(0), "PT0S");
        assert_eq!(whole_seconds(0.2), 1);
    }

    #[test]
    fn domain_labels_by_kind() {
        assert_eq!(domain_label("zone"), "topology.kubernetes.io/zone");
        assert_eq!(domain_label("rack"), "topology.nines.dev/rack");
        assert_eq!(
            domain_label("\"a b\"\n$(rm -rf /)"),
            "topology.nines.dev/a-b----rm--rf"
        );
        assert_eq!(domain_label("---"), "topology.nines.dev/domain");
    }

    #[test]
    fn label_values_are_checked() {
        assert_eq!(label_value_problem("links-db"), None);
        assert!(label_value_problem(&"a".repeat(64)).is_some());
        assert!(label_value_problem("a-").is_some());
    }

    #[test]
    fn yaml_strings_escape_everything_hostile() {
        assert_eq!(yaml_string("a\"b"), r#""a\"b""#);
        assert_eq!(
            yaml_string("x\u{7f}\u{85}\u{202e}\u{feff}"),
            r#""x\x7f\x85\u202e\ufeff""#
        );
        let doc = yaml(&Yaml::map([
            ("a", Yaml::str("---\n&a *a {} []")),
            (
                "b",
                Yaml::Seq(vec![Yaml::map([
                    ("k", Yaml::str("1")),
                    ("l", Yaml::Seq(Vec::new())),
                ])]),
            ),
            ("c", Yaml::Map(Vec::new())),
        ]));
        assert_eq!(
            doc,
            "\"a\": \"---\\n&a *a {} []\"\n\"b\":\n  - \"k\": \"1\"\n    \"l\": []\n\"c\": {}\n"
        );
    }
}
