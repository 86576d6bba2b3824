//! The service graph that tracing systems measure, read from what their APIs
//! return: which service calls which, how often and how often in error over
//! a window, and for the service-graph connector's histograms, how long.
//!
//! The format is told by the content, not the file name:
//!
//! | format | shape |
//! |---|---|
//! | Jaeger `/api/dependencies` | `{"data": [{"parent", "child", "callCount"}]}` |
//! | Zipkin `/api/v2/dependencies` | `[{"parent", "child", "callCount", "errorCount"}]` |
//! | Prometheus `/api/v1/query` | `{"status", "data": {"resultType": "vector", "result": [{"metric": {"client", "server"}, "value": [t, "v"]}]}}` |
//! | Prometheus text exposition | `traces_service_graph_request_total{client="a",server="b"} 12` |
//!
//! Every count is the number of calls over the window the user gives
//! (`--window`); nothing here divides by time.

use std::collections::{BTreeMap, BTreeSet};

mod exposition;

use super::json::{self, Json, JsonValue};
use super::{Note, Origin, Source};
use crate::model::Problem;
use crate::model::error::printable;
use crate::model::span::Span;
use exposition::{classify, parse_sample};

/// What was measured on one caller → callee edge, summed over the inputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Link {
    /// Calls over the window.
    pub calls: f64,
    /// Calls that failed, when the format counts them.
    pub errors: Option<f64>,
    /// Latency histogram of the server side, `(upper bound in seconds,
    /// cumulative count)`, sorted by bound, when the format has one.
    pub buckets: Vec<(f64, f64)>,
}

impl Link {
    /// The share of calls that did not fail, when errors are counted.
    pub fn success(&self) -> Option<f64> {
        let errors = self.errors?;
        (self.calls > 0.0).then(|| (1.0 - errors / self.calls).clamp(0.0, 1.0))
    }

    /// The 99th percentile of the latency, as the upper bound of the bucket
    /// it falls in (`None` without buckets, or when it falls in `+Inf`).
    pub fn p99(&self) -> Option<f64> {
        bucket_quantile(&self.buckets, 0.99)
    }
}

/// The `q` quantile of a cumulative histogram `(upper bound, count)`,
/// sorted by bound: the bound of the first bucket that holds it (`None`
/// when empty, or when it falls in `+Inf`).
#[must_use]
pub fn bucket_quantile(buckets: &[(f64, f64)], q: f64) -> Option<f64> {
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let wanted = total * q;
    buckets
        .iter()
        .find(|(_, count)| *count >= wanted)
        .map(|(bound, _)| *bound)
        .filter(|bound| bound.is_finite())
}

/// The formats read, by the name notes and headers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// Jaeger's `/api/dependencies`.
    Jaeger,
    /// Zipkin's `/api/v2/dependencies`.
    Zipkin,
    /// A Prometheus instant-query result.
    PrometheusQuery,
    /// Prometheus text exposition.
    PrometheusText,
    /// Jaeger's `/api/traces` (spans).
    JaegerTraces,
    /// Zipkin's `/api/v2/traces` (spans).
    ZipkinTraces,
}

impl Format {
    /// How the format is named in the header and the summary.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Jaeger => "Jaeger dependencies",
            Format::Zipkin => "Zipkin dependencies",
            Format::PrometheusQuery => "Prometheus query result",
            Format::PrometheusText => "Prometheus text exposition",
            Format::JaegerTraces => "Jaeger traces",
            Format::ZipkinTraces => "Zipkin traces",
        }
    }
}

/// The graph read from every input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// Every edge seen with at least one call, by `(caller, callee)` as the
    /// traces name them.
    pub links: BTreeMap<(String, String), Link>,
    /// The format of each input, in input order.
    pub formats: Vec<Format>,
    /// Each service's own times from spans, in seconds (`import::spans`).
    pub own: BTreeMap<String, Vec<f64>>,
}

/// The largest input read, in bytes (a dependency list of ten thousand
/// edges is about a megabyte).
pub const MAX_TRACE_BYTES: usize = 64 * 1024 * 1024;

/// Reads every input. Edges with no call in the window and calls of a
/// service to itself are left out (the latter with a note).
///
/// # Errors
/// Every problem found, by source index, in input order.
pub fn read(sources: &[Source], notes: &mut Vec<Note>) -> Result<Observed, Vec<(usize, Problem)>> {
    let mut observed = Observed::default();
    let mut problems = Vec::new();
    let mut samples: Vec<(usize, Sample)> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        if source.text.len() > MAX_TRACE_BYTES {
            problems.push((index, Problem::input_too_large(source.text.len())));
            continue;
        }
        let mut reader = Reader {
            samples: Vec::new(),
            problems: Vec::new(),
            own: BTreeMap::new(),
        };
        let format = reader.source(&source.text);
        observed.formats.extend(format);
        for (service, times) in reader.own {
            observed.own.entry(service).or_default().extend(times);
        }
        problems.extend(reader.problems.into_iter().map(|p| (index, p)));
        samples.extend(reader.samples.into_iter().map(|s| (index, s)));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let sums = add_up(&mut observed, samples, notes);
    problems.extend(sums);
    if !problems.is_empty() {
        return Err(problems);
    }
    observed.links.retain(|_, link| link.calls > 0.0);
    Ok(observed)
}

/// The largest sum of counts read: a rate over any window (at least 1 ms)
/// and a count of calls per request stay finite numbers a model can hold.
/// Inputs that add up to more (each edge twice at 1e308) are refused where
/// the sum overflows instead of writing `calls: inf`.
pub const MAX_SUM: f64 = 1e300;

fn over(origin: Origin, what: &str, sum: f64, problems: &mut Vec<(usize, Problem)>) {
    problems.push((origin.source, Problem::trace_sum(origin.span, what, sum)));
}

/// An edge as the traces name it: `(caller, callee)`.
type Key = (String, String);

/// Latency bucket samples of each edge: `(bound, count, where)`.
type Buckets = BTreeMap<Key, Vec<(f64, f64, Origin)>>;

/// Adds the samples up into the links (calls of a service to itself left
/// out with a note); the problems of sums over [`MAX_SUM`], located at the
/// sample that passed it, once per sum.
fn add_up(
    observed: &mut Observed,
    samples: Vec<(usize, Sample)>,
    notes: &mut Vec<Note>,
) -> Vec<(usize, Problem)> {
    let mut problems = Vec::new();
    let mut buckets = Buckets::new();
    // Where each edge was last read, to locate a sum that involves it.
    let mut last: BTreeMap<Key, Origin> = BTreeMap::new();
    // The services noted as calling themselves: one note each, where the
    // first sample is (a link's calls, failed calls and buckets are
    // samples of their own).
    let mut own: BTreeSet<String> = BTreeSet::new();
    for (source, sample) in samples {
        let origin = Origin {
            source,
            span: sample.span,
        };
        if sample.parent == sample.child {
            if !own.insert(sample.parent.clone()) {
                continue;
            }
            notes.push(Note {
                origin: Some(origin),
                message: format!(
                    "`{}` calls itself; a component cannot depend on itself, so this edge is left out",
                    sample.parent
                ),
            });
            continue;
        }
        let key = (sample.parent, sample.child);
        last.insert(key.clone(), origin);
        let link = observed.links.entry(key.clone()).or_default();
        let (sum, n, what) = match sample.measure {
            Measure::Calls(n) => (&mut link.calls, n, "calls"),
            Measure::Errors(n) => (link.errors.get_or_insert(0.0), n, "failed calls"),
            Measure::Bucket(le, n) => {
                buckets.entry(key).or_default().push((le, n, origin));
                continue;
            }
        };
        let was = *sum;
        *sum += n;
        if was <= MAX_SUM && *sum > MAX_SUM {
            let what = format!("the {what} of {}", shown(&key));
            over(origin, &what, *sum, &mut problems);
        }
    }
    merge_buckets(observed, buckets, &mut problems);
    if problems.is_empty() {
        per_request(observed, &last, &mut problems);
    }
    problems.sort_by_key(|(source, p)| (*source, p.span.offset));
    problems
}

/// `` `a` → `b` ``, for messages.
fn shown(key: &Key) -> String {
    format!("`{}` → `{}`", printable(&key.0), printable(&key.1))
}

/// The buckets of each edge sorted by bound, the counts of one bound
/// added: a sort, where looking each bound up in the list was quadratic in
/// the bounds.
fn merge_buckets(observed: &mut Observed, buckets: Buckets, problems: &mut Vec<(usize, Problem)>) {
    for (key, mut list) in buckets {
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut merged: Vec<(f64, f64)> = Vec::new();
        for (le, n, origin) in list {
            match merged.last_mut() {
                Some(entry) if entry.0.total_cmp(&le).is_eq() => {
                    let was = entry.1;
                    entry.1 += n;
                    if was <= MAX_SUM && entry.1 > MAX_SUM {
                        let what = format!("the latency bucket `le=\"{le}\"` of {}", shown(&key));
                        over(origin, &what, entry.1, problems);
                    }
                }
                _ => merged.push((le, n)),
            }
        }
        if let Some(link) = observed.links.get_mut(&key) {
            link.buckets = merged;
        }
    }
}

/// What each service received, as the graph adds it up, and the calls per
/// request that follow from it: over [`MAX_SUM`], or not a finite number,
/// a problem at the edge's last sample.
fn per_request(
    observed: &Observed,
    last: &BTreeMap<Key, Origin>,
    problems: &mut Vec<(usize, Problem)>,
) {
    let mut received: BTreeMap<&str, f64> = BTreeMap::new();
    for (key, link) in &observed.links {
        let sum = received.entry(key.1.as_str()).or_default();
        let was = *sum;
        *sum += link.calls;
        if was <= MAX_SUM && *sum > MAX_SUM {
            let what = format!("the calls `{}` receives", printable(&key.1));
            over(last[key], &what, *sum, problems);
        }
    }
    for (key, link) in &observed.links {
        let own = received.get(key.0.as_str()).copied().unwrap_or(0.0);
        if own > 0.0 && !(link.calls / own).is_finite() {
            problems.push((
                last[key].source,
                Problem::trace_per_request(last[key].span, &key.0, &key.1, link.calls, own),
            ));
        }
    }
}

/// One measured number about one edge.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    parent: String,
    child: String,
    measure: Measure,
    span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Measure {
    Calls(f64),
    Errors(f64),
    Bucket(f64, f64),
}

struct Reader {
    samples: Vec<Sample>,
    problems: Vec<Problem>,
    /// Own times of the services, from spans.
    own: BTreeMap<String, Vec<f64>>,
}

impl Reader {
    /// Reads one input; its format, when it is one.
    fn source(&mut self, text: &str) -> Option<Format> {
        let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
        if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
            self.exposition(text);
            return Some(Format::PrometheusText);
        }
        let root = match json::parse(text) {
            Ok(root) => root,
            Err(err) if err.duplicate => {
                self.problems
                    .push(Problem::trace_duplicate_key(err.span, &err.message));
                return None;
            }
            Err(err) => {
                self.problems
                    .push(Problem::trace_json(err.span, &err.message));
                return None;
            }
        };
        match &root.value {
            JsonValue::Array(items) if super::spans::is_zipkin(items) => {
                let spans = super::spans::zipkin(items, &mut self.problems);
                self.spans(spans);
                Some(Format::ZipkinTraces)
            }
            JsonValue::Array(items) => {
                self.links(items, "", Format::Zipkin);
                Some(Format::Zipkin)
            }
            JsonValue::Object(_) => match root.get("data") {
                Some(data) if root.get("status").is_some() => {
                    self.query(&root, data);
                    Some(Format::PrometheusQuery)
                }
                Some(Json {
                    value: JsonValue::Array(items),
                    ..
                }) if super::spans::is_jaeger(items) => {
                    let spans = super::spans::jaeger(items, &mut self.problems);
                    self.spans(spans);
                    Some(Format::JaegerTraces)
                }
                Some(Json {
                    value: JsonValue::Array(items),
                    ..
                }) => {
                    self.links(items, "data", Format::Jaeger);
                    Some(Format::Jaeger)
                }
                // Jaeger answers `"data": null` when it has no dependency.
                Some(Json {
                    value: JsonValue::Null,
                    ..
                }) => Some(Format::Jaeger),
                Some(data) => {
                    self.problems.push(Problem::trace_value(
                        data.span,
                        "data",
                        "an array of dependency links (Jaeger)",
                        data.kind(),
                    ));
                    None
                }
                None => {
                    self.problems.push(Problem::not_dependencies(
                        root.span.widen_to_token(text),
                        "a JSON object without `data`",
                    ));
                    None
                }
            },
            _ => {
                self.problems.push(Problem::not_dependencies(
                    root.span,
                    &format!("JSON {}", root.kind()),
                ));
                None
            }
        }
    }

    /// Jaeger or Zipkin links: `[{parent, child, callCount, errorCount}]`.
    fn links(&mut self, items: &[Json], prefix: &str, format: Format) {
        let name = match format {
            Format::Zipkin => "Zipkin dependency link",
            _ => "Jaeger dependency link",
        };
        for (index, item) in items.iter().enumerate() {
            let path = format!("{prefix}[{index}]");
            if !matches!(item.value, JsonValue::Object(_)) {
                self.problems.push(Problem::trace_value(
                    item.span,
                    &path,
                    "an object with `parent`, `child` and `callCount`",
                    item.kind(),
                ));
                continue;
            }
            let parent = self.name(item, &path, "parent", name);
            let child = self.name(item, &path, "child", name);
            let calls = self.count(item, &path, "callCount", name, true);
            // Zipkin leaves `errorCount` out when it is zero; Jaeger has none.
            let errors = if format == Format::Zipkin {
                self.count(item, &path, "errorCount", name, false)
                    .or(Some(0.0))
            } else {
                None
            };
            let (Some(parent), Some(child), Some(calls)) = (parent, child, calls) else {
                continue;
            };
            self.push(&parent, &child, Measure::Calls(calls), item.span);
            if let Some(errors) = errors {
                self.push(&parent, &child, Measure::Errors(errors), item.span);
            }
        }
    }

    /// The calls and own times read from spans.
    fn spans(&mut self, spans: super::spans::Spans) {
        for (parent, child, span) in spans.calls {
            self.push(&parent, &child, Measure::Calls(1.0), span);
        }
        for (service, times) in spans.own {
            self.own.entry(service).or_default().extend(times);
        }
    }

    fn push(&mut self, parent: &str, child: &str, measure: Measure, span: Span) {
        self.samples.push(Sample {
            parent: parent.to_owned(),
            child: child.to_owned(),
            measure,
            span,
        });
    }

    /// A non-empty string member.
    fn name(&mut self, item: &Json, path: &str, key: &str, format: &str) -> Option<String> {
        let Some(value) = item.get(key) else {
            self.problems
                .push(Problem::trace_missing(item.span, path, key, format));
            return None;
        };
        match &value.value {
            JsonValue::Str(s) if !s.trim().is_empty() => Some(s.clone()),
            _ => {
                self.problems.push(Problem::trace_value(
                    value.span,
                    &format!("{path}.{key}"),
                    "a service name",
                    if matches!(value.value, JsonValue::Str(_)) {
                        "an empty string"
                    } else {
                        value.kind()
                    },
                ));
                None
            }
        }
    }

    /// A count member: a finite number of at least 0.
    fn count(
        &mut self,
        item: &Json,
        path: &str,
        key: &str,
        format: &str,
        required: bool,
    ) -> Option<f64> {
        let Some(value) = item.get(key) else {
            if required {
                self.problems
                    .push(Problem::trace_missing(item.span, path, key, format));
            }
            return None;
        };
        match value.value {
            JsonValue::Number(n) if n.is_finite() && n >= 0.0 => Some(n),
            JsonValue::Number(n) => {
                self.problems.push(Problem::trace_value(
                    value.span,
                    &format!("{path}.{key}"),
                    "a count of at least 0",
                    &n.to_string(),
                ));
                None
            }
            _ => {
                self.problems.push(Problem::trace_value(
                    value.span,
                    &format!("{path}.{key}"),
                    "a count of at least 0",
                    value.kind(),
                ));
                None
            }
        }
    }

    /// A Prometheus instant-query result.
    fn query(&mut self, root: &Json, data: &Json) {
        if let Some(status) = root.get("status")
            && status.value != JsonValue::Str("success".into())
        {
            self.problems.push(Problem::trace_value(
                status.span,
                "status",
                "\"success\" (the query failed)",
                &json_text(status),
            ));
            return;
        }
        match data.get("resultType") {
            Some(Json {
                value: JsonValue::Str(kind),
                ..
            }) if kind == "vector" => {}
            Some(other) => {
                self.problems.push(Problem::trace_value(
                    other.span,
                    "data.resultType",
                    "\"vector\" (an instant query, such as `sum by (client, server) (increase(traces_service_graph_request_total[1h]))`)",
                    &json_text(other),
                ));
                return;
            }
            None => {
                self.problems.push(Problem::trace_missing(
                    data.span,
                    "data",
                    "resultType",
                    "Prometheus query result",
                ));
                return;
            }
        }
        let Some(result) = data.get("result") else {
            self.problems.push(Problem::trace_missing(
                data.span,
                "data",
                "result",
                "Prometheus query result",
            ));
            return;
        };
        let JsonValue::Array(series) = &result.value else {
            self.problems.push(Problem::trace_value(
                result.span,
                "data.result",
                "an array of series",
                result.kind(),
            ));
            return;
        };
        for (index, item) in series.iter().enumerate() {
            let path = format!("data.result[{index}]");
            self.series(item, &path);
        }
    }

    fn series(&mut self, item: &Json, path: &str) {
        let what = "Prometheus series";
        let Some(metric) = item.get("metric") else {
            self.problems
                .push(Problem::trace_missing(item.span, path, "metric", what));
            return;
        };
        let mpath = format!("{path}.metric");
        let client = self.name(metric, &mpath, "client", "service-graph series");
        let server = self.name(metric, &mpath, "server", "service-graph series");
        let label = |key: &str| match metric.get(key).map(|v| &v.value) {
            Some(JsonValue::Str(s)) => Some(s.clone()),
            _ => None,
        };
        let name = label("__name__").unwrap_or_default();
        let le = label("le");
        let Some(value) = item.get("value") else {
            self.problems
                .push(Problem::trace_missing(item.span, path, "value", what));
            return;
        };
        let vpath = format!("{path}.value");
        let number = match &value.value {
            JsonValue::Array(pair) if pair.len() == 2 => {
                if let JsonValue::Str(text) = &pair[1].value {
                    let number = parse_sample(text);
                    if number.is_none() {
                        self.problems.push(Problem::trace_value(
                            pair[1].span,
                            &format!("{vpath}[1]"),
                            "a count of at least 0",
                            &json_text(&pair[1]),
                        ));
                    }
                    number
                } else {
                    self.problems.push(Problem::trace_value(
                        pair[1].span,
                        &format!("{vpath}[1]"),
                        "the sample value as a string",
                        pair[1].kind(),
                    ));
                    None
                }
            }
            _ => {
                self.problems.push(Problem::trace_value(
                    value.span,
                    &vpath,
                    "`[timestamp, \"value\"]`",
                    value.kind(),
                ));
                None
            }
        };
        let (Some(client), Some(server), Some(number)) = (client, server, number) else {
            return;
        };
        let measure = match classify(&name, le.as_deref()) {
            Ok(Some(series)) => series.measure(number),
            Ok(None) => return,
            Err(why) => {
                self.problems.push(Problem::trace_value(
                    metric.span,
                    &mpath,
                    "a service-graph series",
                    &why,
                ));
                return;
            }
        };
        self.push(&client, &server, measure, item.span);
    }
}

/// The value as JSON text, for messages.
fn json_text(value: &Json) -> String {
    match &value.value {
        JsonValue::Str(s) => format!("\"{}\"", crate::model::error::printable(s)),
        JsonValue::Number(n) => n.to_string(),
        _ => value.kind().to_owned(),
    }
}

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "the counts are small integers, exact in f64"
)]
mod tests {
    use super::*;

    fn observed(text: &str) -> Result<Observed, Vec<Problem>> {
        let sources = [Source {
            name: "t".into(),
            text: text.into(),
        }];
        read(&sources, &mut Vec::new())
            .map_err(|problems| problems.into_iter().map(|(_, p)| p).collect())
    }

    fn link<'a>(observed: &'a Observed, a: &str, b: &str) -> &'a Link {
        &observed.links[&(a.to_owned(), b.to_owned())]
    }

    #[test]
    fn zipkin_counts_errors_and_leaves_zero_out() {
        let graph = observed(
            r#"[{"parent":"a","child":"b","callCount":200,"errorCount":3},{"parent":"b","child":"c","callCount":5},{"parent":"c","child":"d","callCount":0}]"#,
        )
        .expect("valid");
        assert_eq!(graph.formats, [Format::Zipkin]);
        // 3 errors in 200 calls: 197/200 = 98.5% succeeded.
        assert_eq!(link(&graph, "a", "b").success(), Some(0.985));
        assert_eq!(link(&graph, "b", "c").errors, Some(0.0));
        assert_eq!(graph.links.len(), 2, "c → d had no call");
    }

    #[test]
    fn exposition_sums_series_and_finds_the_p99_bucket() {
        let graph = observed(
            "# TYPE traces_service_graph_request_total counter\n\
             traces_service_graph_request_total{client=\"a\",server=\"b\",connection_type=\"\"} 60\n\
             traces_service_graph_request_total{client=\"a\",server=\"b\",connection_type=\"messaging_system\"} 40\n\
             traces_service_graph_request_failed_total{client=\"a\",server=\"b\"} 2\n\
             traces_service_graph_request_server_seconds_bucket{client=\"a\",server=\"b\",le=\"0.1\"} 90\n\
             traces_service_graph_request_server_seconds_bucket{client=\"a\",server=\"b\",le=\"0.25\"} 99\n\
             traces_service_graph_request_server_seconds_bucket{client=\"a\",server=\"b\",le=\"+Inf\"} 100\n\
             go_goroutines 12\n",
        )
        .expect("valid");
        let ab = link(&graph, "a", "b");
        assert_eq!(ab.calls, 100.0);
        // 2 failed of 100: 98%.
        assert_eq!(ab.success(), Some(0.98));
        // 99% of 100 is 99 calls, reached at le=0.25.
        assert_eq!(ab.p99(), Some(0.25));
    }

    #[test]
    fn errors_name_the_json_path() {
        let problems =
            observed(r#"{"data":[{"parent":"a","child":"b","callCount":1},{"parent":"a","child":"c","callCount":"x"}]}"#)
                .expect_err("invalid");
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].message,
            "`data[1].callCount` must be a count of at least 0, found a string"
        );
        // The underline covers `"x"`: 50 bytes of `{"data":[`, the first
        // link and its comma, then `{"parent":"a","child":"c","callCount":`
        // (38 bytes): offset 88.
        assert_eq!(problems[0].span, Span::new(88, 3));
    }

    #[test]
    fn exposition_errors_point_into_the_line() {
        let problems =
            observed("traces_service_graph_request_total{client=\"a\",server=\"b\"} -4\n")
                .expect_err("invalid");
        assert_eq!(
            problems[0].message,
            "cannot read this sample: `-4` is not a count of at least 0"
        );
        // After `…"b"} `: the name (34) + labels (23) + a space = offset 58.
        assert_eq!(problems[0].span, Span::new(58, 2));
    }

    #[test]
    fn query_results_read_calls_and_buckets() {
        let graph = observed(
            r#"{"status":"success","data":{"resultType":"vector","result":[
              {"metric":{"client":"a","server":"b"},"value":[1700000000,"36"]},
              {"metric":{"__name__":"traces_service_graph_request_failed_total","client":"a","server":"b"},"value":[1700000000,"1"]}]}}"#,
        )
        .expect("valid");
        assert_eq!(link(&graph, "a", "b").calls, 36.0);
        assert_eq!(link(&graph, "a", "b").errors, Some(1.0));
        let problems =
            observed(r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#)
                .expect_err("a range query");
        assert!(
            problems[0]
                .message
                .starts_with("`data.resultType` must be \"vector\"")
        );
    }
}
