//! Prometheus text exposition of the service-graph connector's series
//! (`traces_service_graph_request_total{client="a",server="b"} 12`), and
//! what a series measures by its name, shared with query results.

use super::{Measure, Reader};
use crate::model::Problem;
use crate::model::span::Span;

impl Reader {
    /// Prometheus text exposition: the service-graph samples, other metrics
    /// skipped.
    pub(super) fn exposition(&mut self, text: &str) {
        let mut found = false;
        for (line_start, line) in lines(text) {
            let content = line.trim_start();
            if content.is_empty() || content.starts_with('#') {
                // `# TYPE traces_service_graph_request_total counter` with no
                // sample yet: the right file, with no call in it.
                found |= content.starts_with("# TYPE") && content.contains("service_graph_request");
                continue;
            }
            let start = line_start + (line.len() - content.len());
            let name_len = content
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(content.len());
            let name = &content[..name_len];
            if !is_service_graph(name) {
                continue;
            }
            found = true;
            match sample_line(content, name_len) {
                Ok((labels, value)) => {
                    let span = Span::new(start, content.len());
                    let get = |key: &str| {
                        labels
                            .iter()
                            .find(|(k, _)| k == key)
                            .map(|(_, v)| v.clone())
                    };
                    let (Some(client), Some(server)) = (get("client"), get("server")) else {
                        self.problems.push(Problem::exposition_line(
                            span,
                            "a service-graph sample needs the labels `client` and `server`",
                        ));
                        continue;
                    };
                    if client.trim().is_empty() || server.trim().is_empty() {
                        self.problems.push(Problem::exposition_line(
                            span,
                            "`client` or `server` is empty",
                        ));
                        continue;
                    }
                    match classify(name, get("le").as_deref()) {
                        Ok(Some(series)) => {
                            self.push(&client, &server, series.measure(value), span);
                        }
                        Ok(None) => {}
                        Err(why) => self.problems.push(Problem::exposition_line(span, &why)),
                    }
                }
                Err((at, why)) => {
                    let span = Span::new(start + at, 0).widen_to_token(text);
                    self.problems.push(Problem::exposition_line(span, &why));
                }
            }
        }
        if !found && self.problems.is_empty() {
            let span = Span::new(0, 0).widen_to_token(text);
            self.problems.push(Problem::not_dependencies(
                span,
                "not JSON, and no `traces_service_graph_request_total` sample in it",
            ));
        }
    }
}

/// The lines of a text and where each starts, without their line breaks:
/// `\n`, `\r\n` and a `\r` alone all end a line (the format says `\n`; a
/// file saved with carriage returns alone would otherwise be one line, every
/// sample after the first lost), and a byte-order mark at the start is
/// skipped.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut at = bom;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let start = at;
        let rest = &text[start..];
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        at = start + end;
        if text[at..].starts_with("\r\n") {
            at += 2;
        } else if at < text.len() {
            at += 1;
        }
        Some((start, &rest[..end]))
    })
}

/// Whether a metric name is one of the service-graph series read (a
/// namespace prefix such as `otelcol_` is allowed).
pub(super) fn is_service_graph(name: &str) -> bool {
    name.ends_with("service_graph_request_total")
        || name.ends_with("service_graph_request_failed_total")
        || name.ends_with("service_graph_request_server_seconds_bucket")
}

/// What a series measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Series {
    Calls,
    Errors,
    Bucket(f64),
}

impl Series {
    pub(super) fn measure(self, n: f64) -> Measure {
        match self {
            Series::Calls => Measure::Calls(n),
            Series::Errors => Measure::Errors(n),
            Series::Bucket(le) => Measure::Bucket(le, n),
        }
    }
}

/// What a series measures, by its name (`""` when a query dropped it) and
/// its `le` label: calls, failures, a histogram bucket, or nothing used
/// (`Ok(None)`: sums and counts of the histogram, client-side latency).
pub(super) fn classify(name: &str, le: Option<&str>) -> Result<Option<Series>, String> {
    if name.ends_with("service_graph_request_failed_total") {
        return Ok(Some(Series::Errors));
    }
    let bucket = name.ends_with("service_graph_request_server_seconds_bucket")
        || (name.is_empty() && le.is_some());
    if bucket {
        let Some(le) = le else {
            return Err("a histogram bucket without an `le` label".to_owned());
        };
        let Some(bound) = parse_bound(le) else {
            return Err(format!(
                "the bucket bound `le=\"{}\"` is not a number",
                crate::model::error::printable(le)
            ));
        };
        return Ok(Some(Series::Bucket(bound)));
    }
    if name.is_empty() || name.ends_with("service_graph_request_total") {
        return Ok(Some(Series::Calls));
    }
    Ok(None)
}

fn parse_bound(text: &str) -> Option<f64> {
    let bound: f64 = text.trim().parse().ok()?;
    (bound >= 0.0 && !bound.is_nan()).then_some(bound)
}

/// A sample value: a finite count of at least 0.
pub(super) fn parse_sample(text: &str) -> Option<f64> {
    let n: f64 = text.trim().parse().ok()?;
    (n.is_finite() && n >= 0.0).then_some(n)
}

/// The labels and value of a sample.
type Parsed = (Vec<(String, String)>, f64);

/// The labels and value of an exposition line whose name is `name_len`
/// bytes long; an error gives the byte offset in the line and why.
fn sample_line(line: &str, name_len: usize) -> Result<Parsed, (usize, String)> {
    let bytes = line.as_bytes();
    let mut at = name_len;
    let mut labels = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if bytes.get(at) == Some(&b'{') {
        at += 1;
        loop {
            while bytes.get(at).is_some_and(|b| *b == b' ' || *b == b',') {
                at += 1;
            }
            match bytes.get(at) {
                Some(b'}') => {
                    at += 1;
                    break;
                }
                None => return Err((at, "the labels are not closed with `}`".to_owned())),
                _ => {}
            }
            let key_start = at;
            while bytes
                .get(at)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                at += 1;
            }
            if at == key_start {
                return Err((at, "expected a label name".to_owned()));
            }
            let key = line[key_start..at].to_owned();
            if !seen.insert(key.clone()) {
                // Prometheus refuses a sample with a label twice; taking
                // the first (or the last) would be a guess.
                return Err((key_start, format!("the label `{key}` is given twice")));
            }
            if bytes.get(at) != Some(&b'=') || bytes.get(at + 1) != Some(&b'"') {
                return Err((at, format!("expected `=\"` after the label `{key}`")));
            }
            at += 2;
            let mut value = String::new();
            loop {
                let Some(c) = line[at..].chars().next() else {
                    return Err((at, format!("the value of `{key}` is not closed with `\"`")));
                };
                at += c.len_utf8();
                match c {
                    '"' => break,
                    '\\' => {
                        let escaped = line[at..].chars().next();
                        at += escaped.map_or(0, char::len_utf8);
                        match escaped {
                            Some('n') => value.push('\n'),
                            Some(other) => value.push(other),
                            None => {}
                        }
                    }
                    c => value.push(c),
                }
            }
            labels.push((key, value));
        }
    }
    let rest = &line[at..];
    let value_start = at + (rest.len() - rest.trim_start().len());
    let token = line[value_start..]
        .split_whitespace()
        .next()
        .ok_or((value_start, "no value after the name".to_owned()))?;
    let value = parse_sample(token).ok_or((
        value_start,
        format!(
            "`{}` is not a count of at least 0",
            crate::model::error::printable(token)
        ),
    ))?;
    Ok((labels, value))
}
