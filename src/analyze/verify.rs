//! `nines verify`: a chaos experiment's outcome against the model's
//! prediction for its loss (docs/experiments.md, "nines verify").
//!
//! The experiment file (`nines experiments` wrote it: Chaos Toolkit JSON,
//! Chaos Mesh YAML, an AWS FIS template, the experiment's own JSON or an
//! `index.json` of one) only says which loss was injected. The prediction
//! is worked out again from the model as it is now ([`experiments::plan`]
//! with `only`): one truth, and a note when the file's copy differs.
//!
//! The outcome is what was measured while the loss lasted: Prometheus query
//! results (each entrypoint's success ratio, and optionally its latency),
//! or a Chaos Toolkit journal whose probes returned them. Per entrypoint
//! the observed served share is judged against the prediction within the
//! margin: *as predicted*, *worse* (a `drift/experiment/<loss>` finding:
//! the system has a weakness the model does not know) or *better* (the
//! model is pessimistic: the key most likely wrong is searched for, as the
//! value of a capacity, an instance count or a hit rate that would make the
//! model predict what was observed).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::experiments::{self, Experiment, Injection};
use super::finding::{Finding, Location};
use super::rules::drift::{self, ExperimentRow};
use crate::import::json::{self, Json, JsonValue};
use crate::model::error::{Problem, closest, printable};
use crate::model::load::{self, Node, Value};
use crate::model::{ComponentId, Date, Model, Span, set};

/// How to judge.
#[derive(Debug, Clone)]
pub struct Options {
    /// "Now", for expiry dates (the prediction is `experiments`' own).
    pub today: Date,
    /// An entrypoint is as predicted while its observed served share is
    /// within this of the prediction (0.02: two points).
    pub margin: f64,
}

// ---- the experiment file ----

/// The kinds of experiment file read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// A Chaos Toolkit experiment with the `nines` extension.
    Chaostoolkit,
    /// A Chaos Toolkit journal (the experiment it ran is inside).
    Journal,
    /// Chaos Mesh manifests with the `nines.dev/loss` annotation.
    ChaosMesh,
    /// An AWS FIS experiment template with the `nines-loss` tag.
    Fis,
    /// One experiment as `nines experiments` writes it in JSON.
    Experiment,
    /// A plan (`index.json`, or `--format json`) of one experiment.
    Plan,
}

impl FileFormat {
    /// How messages name it, with its article.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            FileFormat::Chaostoolkit => "a Chaos Toolkit experiment",
            FileFormat::Journal => "a Chaos Toolkit journal",
            FileFormat::ChaosMesh => "Chaos Mesh manifests",
            FileFormat::Fis => "an AWS FIS template",
            FileFormat::Experiment => "an experiment file of nines",
            FileFormat::Plan => "a plan of nines",
        }
    }
}

/// What an experiment file says: the loss it injects (by name, or by slug
/// alone for FIS) and the predictions written into it, when it has them.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentFile {
    /// The format read.
    pub format: FileFormat,
    /// The loss as `check` names it (`az-a`).
    pub loss: Option<String>,
    /// Its slug (`az-a`).
    pub slug: Option<String>,
    /// The served share each entrypoint was predicted when the file was
    /// written.
    pub predictions: Option<Vec<(String, f64)>>,
}

/// A problem of an input file other than the model.
fn problem(code: &'static str, message: String, span: Span, label: &str, help: &str) -> Problem {
    Problem {
        code,
        message,
        span,
        label: label.to_owned(),
        help: Some(help.to_owned()),
        related: Vec::new(),
        unsuggested: None,
    }
}

const EXPERIMENT_HELP: &str = "give a file `nines experiments MODEL -o DIR` wrote: a Chaos Toolkit experiment (the `nines` extension), Chaos Mesh manifests (the `nines.dev/loss` annotation), an AWS FIS template (the `nines-loss` tag) or the experiment's JSON";

/// Whether a text is JSON rather than YAML (after a byte-order mark and
/// blank space).
fn looks_json(text: &str) -> bool {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// Parses JSON with located errors (a byte-order mark skipped, a key
/// written twice refused).
fn parse_json(text: &str, code: &'static str, help: &str) -> Result<Json, Problem> {
    json::parse(text).map_err(|err| {
        if err.duplicate {
            problem(
                code,
                format!(
                    "the key \"{}\" is written twice in one object",
                    printable(&err.message)
                ),
                err.span,
                "the second time",
                "which of the two values is meant cannot be told: give the file as the tool wrote it",
            )
        } else {
            problem(
                code,
                format!("invalid JSON: {}", err.message),
                err.span,
                "here",
                help,
            )
        }
    })
}

/// A string member.
fn text_of<'a>(value: &'a Json, key: &str) -> Option<&'a str> {
    match &value.get(key)?.value {
        JsonValue::Str(s) => Some(s),
        _ => None,
    }
}

/// Reads an experiment file: its format is told by the content.
///
/// # Errors
/// A located problem: not JSON or YAML, or none of the files nines writes.
pub fn read_experiment(text: &str) -> Result<ExperimentFile, Problem> {
    if looks_json(text) {
        let root = parse_json(text, "verify::experiment", EXPERIMENT_HELP)?;
        return experiment_json(&root, 0);
    }
    let documents = load::parse_documents(text)?;
    for document in &documents {
        if let Some(found) = annotations(document, 0) {
            return Ok(found);
        }
    }
    Err(problem(
        "verify::experiment",
        "this is not an experiment nines wrote: no `nines.dev/loss` annotation in a YAML file"
            .to_owned(),
        Span::new(0, 0).widen_to_token(text),
        "not an experiment file",
        EXPERIMENT_HELP,
    ))
}

fn experiment_json(root: &Json, depth: usize) -> Result<ExperimentFile, Problem> {
    let not_ours = |why: &str| {
        problem(
            "verify::experiment",
            format!("this is not an experiment nines wrote: {why}"),
            root.span,
            "not an experiment file",
            EXPERIMENT_HELP,
        )
    };
    if !matches!(root.value, JsonValue::Object(_)) {
        return Err(not_ours(&format!("JSON {}", root.kind())));
    }
    // A journal holds the experiment it ran.
    if depth == 0
        && root.get("steady_states").is_some()
        && let Some(inner) = root.get("experiment")
    {
        let mut file = experiment_json(inner, depth + 1)?;
        file.format = FileFormat::Journal;
        return Ok(file);
    }
    if let Some(Json {
        value: JsonValue::Array(extensions),
        ..
    }) = root.get("extensions")
        && let Some(ours) = extensions
            .iter()
            .find(|e| text_of(e, "name") == Some("nines"))
    {
        return named(ours, FileFormat::Chaostoolkit)
            .ok_or_else(|| not_ours("the `nines` extension names no `loss` or `slug`"));
    }
    for holder in [Some(root), root.get("experimentTemplate")]
        .into_iter()
        .flatten()
    {
        if let Some(tags) = holder.get("tags")
            && let Some(slug) = text_of(tags, "nines-loss")
        {
            return Ok(ExperimentFile {
                format: FileFormat::Fis,
                loss: None,
                slug: Some(slug.to_owned()),
                predictions: fis_predictions(tags),
            });
        }
    }
    let plan = match (root.get("plan"), root.get("experiments")) {
        (Some(plan), _) if root.get("files").is_some() => Some(plan),
        (_, Some(_)) if root.get("system").is_some() => Some(root),
        _ => None,
    };
    if let Some(plan) = plan {
        return plan_file(plan).map_err(|why| {
            why.unwrap_or_else(|| not_ours("a plan without one experiment naming its `loss`"))
        });
    }
    if root.get("loss").is_some() {
        return named(root, FileFormat::Experiment).ok_or_else(|| not_ours("`loss` is not a name"));
    }
    Err(not_ours(
        "a JSON object without the `nines` extension, the `nines-loss` tag or a `loss`",
    ))
}

/// The predictions an AWS FIS template tags, `nines-served/<entrypoint>`:
/// `predicted=0.888… tolerance=0.868…`.
fn fis_predictions(tags: &Json) -> Option<Vec<(String, f64)>> {
    let JsonValue::Object(members) = &tags.value else {
        return None;
    };
    let found: Vec<(String, f64)> = members
        .iter()
        .filter_map(|(key, _, value)| {
            let entrypoint = key.strip_prefix("nines-served/")?;
            let JsonValue::Str(text) = &value.value else {
                return None;
            };
            let served = text
                .split_whitespace()
                .find_map(|w| w.strip_prefix("predicted="))?
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())?;
            Some((entrypoint.to_owned(), served))
        })
        .collect();
    (!found.is_empty()).then_some(found)
}

/// The one experiment of a plan; `Err(None)` for a plan without
/// `experiments` or whose experiment names no loss, `Err(Some)` for a plan
/// of several (or none).
fn plan_file(plan: &Json) -> Result<ExperimentFile, Option<Problem>> {
    let Some(Json {
        value: JsonValue::Array(items),
        span,
    }) = plan.get("experiments")
    else {
        return Err(None);
    };
    if let [one] = items.as_slice() {
        return named(one, FileFormat::Plan).ok_or(None);
    }
    let names: Vec<String> = items
        .iter()
        .filter_map(|e| text_of(e, "loss"))
        .take(5)
        .map(|l| format!("`{}`", printable(l)))
        .collect();
    let listed = if names.is_empty() {
        String::new()
    } else {
        let more = if items.len() > names.len() {
            ", …"
        } else {
            ""
        };
        format!(" ({}{more})", names.join(", "))
    };
    Err(Some(problem(
        "verify::experiment",
        format!(
            "this plan holds {} experiments{listed}: which one ran cannot be told",
            items.len()
        ),
        Span::new(span.offset, 1),
        "not one experiment",
        "give the file of the one that ran (`NN-slug.json` beside index.json), or a plan of one (`nines experiments MODEL --only LOSS --format json`)",
    )))
}

/// The loss, slug and predictions of an object that carries them (the
/// Chaos Toolkit extension, an experiment).
fn named(value: &Json, format: FileFormat) -> Option<ExperimentFile> {
    let loss = text_of(value, "loss").filter(|l| !l.is_empty());
    let slug = text_of(value, "slug").filter(|s| !s.is_empty());
    if loss.is_none() && slug.is_none() {
        return None;
    }
    Some(ExperimentFile {
        format,
        loss: loss.map(str::to_owned),
        slug: slug.map(str::to_owned),
        predictions: value.get("predictions").and_then(predictions),
    })
}

/// Predictions written in a file: `[{"entrypoint", "served"}]`, `{"E":
/// served}`, or an object with `predictions`; `None` for any other shape
/// (nothing to compare, not an error).
fn predictions(value: &Json) -> Option<Vec<(String, f64)>> {
    match &value.value {
        JsonValue::Array(items) => items
            .iter()
            .map(|p| {
                let entrypoint = text_of(p, "entrypoint")?;
                match p.get("served")?.value {
                    JsonValue::Number(n) if n.is_finite() => Some((entrypoint.to_owned(), n)),
                    _ => None,
                }
            })
            .collect(),
        JsonValue::Object(members) => {
            if let Some(inner) = value.get("predictions") {
                return predictions(inner);
            }
            members
                .iter()
                .map(|(k, _, v)| match v.value {
                    JsonValue::Number(n) if n.is_finite() => Some((k.clone(), n)),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    }
}

/// The first mapping under an `annotations` key holding `nines.dev/loss`,
/// depth first.
fn annotations(node: &Node, depth: usize) -> Option<ExperimentFile> {
    if depth > 64 {
        return None;
    }
    let entry = |map: &[(Node, Node)], key: &str| -> Option<String> {
        map.iter().find_map(|(k, v)| match (&k.value, &v.value) {
            (Value::Str(k), Value::Str(v)) if k == key && !v.is_empty() => Some(v.clone()),
            _ => None,
        })
    };
    match &node.value {
        Value::Map(members) => {
            for (key, value) in members {
                if let (Value::Str(k), Value::Map(inner)) = (&key.value, &value.value)
                    && k == "annotations"
                    && let Some(loss) = entry(inner, "nines.dev/loss")
                {
                    return Some(ExperimentFile {
                        format: FileFormat::ChaosMesh,
                        loss: Some(loss),
                        slug: entry(inner, "nines.dev/slug"),
                        predictions: entry(inner, "nines.dev/prediction")
                            .and_then(|p| json::parse(&p).ok())
                            .as_ref()
                            .and_then(predictions),
                    });
                }
            }
            members.iter().find_map(|(_, v)| annotations(v, depth + 1))
        }
        Value::Seq(items) => items.iter().find_map(|v| annotations(v, depth + 1)),
        _ => None,
    }
}

// ---- the observed outcome ----

/// The kinds of result read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultFormat {
    /// A Prometheus instant query (`resultType: vector`).
    PrometheusVector,
    /// A Prometheus range query (`resultType: matrix`).
    PrometheusMatrix,
    /// A Chaos Toolkit journal.
    Journal,
}

impl ResultFormat {
    /// How the output names it, with its article.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            ResultFormat::PrometheusVector => "a Prometheus instant query",
            ResultFormat::PrometheusMatrix => "a Prometheus range query",
            ResultFormat::Journal => "a Chaos Toolkit journal",
        }
    }
}

/// What one entrypoint was measured at: the samples of its success ratio
/// and of its latency (seconds), in the order read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    /// Success ratios, each in [0, 1].
    pub success: Vec<f64>,
    /// Latencies, seconds.
    pub latency: Vec<f64>,
    /// Checks that found the success ratio under a threshold, without its
    /// value: the threshold of each. The probes `nines experiments` writes
    /// for Chaos Toolkit query `(ratio) >= tolerance`, which Prometheus
    /// answers with no sample when the ratio is under it.
    pub below: Vec<f64>,
}

/// Everything read from the result files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// Each file's format, in order.
    pub formats: Vec<ResultFormat>,
    /// By entrypoint.
    pub entrypoints: BTreeMap<String, Samples>,
    /// What was left out and why (series of other services, samples
    /// without a value).
    pub notes: Vec<String>,
}

/// One result file read.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedFile {
    /// Its format.
    pub format: ResultFormat,
    /// By entrypoint.
    pub entrypoints: BTreeMap<String, Samples>,
    /// What was left out.
    pub notes: Vec<String>,
}

/// What a series measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Measure {
    Success,
    Latency,
}

impl Measure {
    fn words(self) -> &'static str {
        match self {
            Measure::Success => "success-ratio",
            Measure::Latency => "latency",
        }
    }
}

/// What a journal's probe says about its output when the series do not:
/// the entrypoint (from the probe's name or query) and the measure.
#[derive(Debug, Clone, Default)]
struct Hint {
    entrypoint: Option<String>,
    measure: Option<Measure>,
}

/// The labels that name an entrypoint, in the order they are looked at:
/// `label`, its Prometheus form (every character other than a letter, a
/// digit or `_` as `_`), then `entrypoint`, `service`, `app`, `job`.
#[must_use]
pub fn entrypoint_labels(label: &str) -> Vec<String> {
    let prometheus: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut keys = vec![label.to_owned()];
    for key in [prometheus.as_str(), "entrypoint", "service", "app", "job"] {
        if !keys.iter().any(|k| k == key) {
            keys.push(key.to_owned());
        }
    }
    keys
}

const RESULT_HELP: &str = "give the response of Prometheus' /api/v1/query or /api/v1/query_range as it is (`curl -s 'http://prometheus:9090/api/v1/query?query=…' > result.json`), or the journal.json of a Chaos Toolkit run";

struct Reader<'a> {
    entrypoints: &'a [String],
    keys: Vec<String>,
    problems: Vec<Problem>,
    /// Services named by series that are not entrypoints.
    others: BTreeSet<String>,
    /// Samples without a value (`NaN`: no request in the step).
    empty: usize,
    notes: Vec<String>,
}

/// One series read.
struct Series {
    entrypoint: String,
    measure: Measure,
    samples: Vec<f64>,
    /// A check that found the ratio under this threshold, with no sample.
    below: Option<f64>,
    span: Span,
}

/// Reads one result file: a Prometheus query response or a Chaos Toolkit
/// journal; `entrypoints` are the model's, `label` the `--label` key.
///
/// # Errors
/// Every problem found, located in `text`.
pub fn read_observed(
    text: &str,
    entrypoints: &[String],
    label: &str,
) -> Result<ObservedFile, Vec<Problem>> {
    if !looks_json(text) {
        return Err(vec![problem(
            "verify::result",
            "this is not a result nines reads: it is not JSON".to_owned(),
            Span::new(0, 0).widen_to_token(text),
            "not JSON",
            RESULT_HELP,
        )]);
    }
    let root = parse_json(text, "verify::result", RESULT_HELP).map_err(|p| vec![p])?;
    let mut reader = Reader {
        entrypoints,
        keys: entrypoint_labels(label),
        problems: Vec::new(),
        others: BTreeSet::new(),
        empty: 0,
        notes: Vec::new(),
    };
    let (format, series) = if root.get("steady_states").is_some() {
        (ResultFormat::Journal, reader.journal(&root))
    } else if root.get("data").is_some() && root.get("status").is_some() {
        let (format, series) = reader.response(&root, "", &Hint::default());
        (
            format.unwrap_or(ResultFormat::PrometheusVector),
            reader.unique(series),
        )
    } else {
        reader.problems.push(problem(
            "verify::result",
            "this is not a result nines reads: a JSON object without `status` and `data` (Prometheus) or `steady_states` (a Chaos Toolkit journal)".to_owned(),
            root.span.widen_to_token(text),
            "not a query result or a journal",
            RESULT_HELP,
        ));
        (ResultFormat::PrometheusVector, Vec::new())
    };
    if !reader.problems.is_empty() {
        return Err(reader.problems);
    }
    let mut entrypoints: BTreeMap<String, Samples> = BTreeMap::new();
    for s in series {
        let samples = entrypoints.entry(s.entrypoint).or_default();
        match s.measure {
            Measure::Success => samples.success.extend(s.samples),
            Measure::Latency => samples.latency.extend(s.samples),
        }
        if let Some(t) = s.below {
            samples.below.push(t);
        }
    }
    let mut notes = reader.notes;
    if !reader.others.is_empty() {
        let names: Vec<String> = reader.others.iter().map(|n| printable(n)).collect();
        notes.push(format!(
            "left out the series of {}: not an entrypoint of the model",
            super::wording::capped_list(&names, names.len(), 8)
        ));
    }
    if reader.empty > 0 {
        notes.push(format!(
            "left out {} sample{} without a value (NaN: no request in the step)",
            reader.empty,
            if reader.empty == 1 { "" } else { "s" }
        ));
    }
    Ok(ObservedFile {
        format,
        entrypoints,
        notes,
    })
}

/// Adds one file's samples to `into`; `name` names the file in messages.
///
/// # Errors
/// Two files measure the same thing of one entrypoint.
pub fn merge(into: &mut Observed, name: &str, file: ObservedFile) -> Result<(), String> {
    for (entrypoint, samples) in file.entrypoints {
        let known = into.entrypoints.entry(entrypoint.clone()).or_default();
        let ratios = |s: &Samples| !s.success.is_empty() || !s.below.is_empty();
        let twice = (ratios(known) && ratios(&samples))
            .then_some("success ratio")
            .or((!known.latency.is_empty() && !samples.latency.is_empty()).then_some("latency"));
        if let Some(what) = twice {
            return Err(format!(
                "{name} gives the {what} of {} again (an earlier --observed file gave it): give each once",
                printable(&entrypoint)
            ));
        }
        known.success.extend(samples.success);
        known.latency.extend(samples.latency);
        known.below.extend(samples.below);
    }
    into.formats.push(file.format);
    into.notes
        .extend(file.notes.into_iter().map(|n| format!("{name}: {n}")));
    Ok(())
}

impl Reader<'_> {
    /// Series of one response whose (entrypoint, measure) repeat are refused:
    /// which one is meant cannot be told.
    fn unique(&mut self, series: Vec<Series>) -> Vec<Series> {
        let mut seen: BTreeMap<(String, Measure), Span> = BTreeMap::new();
        let mut out = Vec::new();
        for s in series {
            if let Some(first) = seen.get(&(s.entrypoint.clone(), s.measure)) {
                let mut p = problem(
                    "verify::result",
                    format!(
                        "a second {} series of {}",
                        s.measure.words(),
                        printable(&s.entrypoint)
                    ),
                    s.span,
                    "the second",
                    "give one series per entrypoint: aggregate the query by its label, such as `sum by (app) (rate(http_requests_total{code!~\"5..\"}[1m])) / sum by (app) (rate(http_requests_total[1m]))`",
                );
                p.related.push((*first, "the first".to_owned()));
                self.problems.push(p);
                continue;
            }
            seen.insert((s.entrypoint.clone(), s.measure), s.span);
            out.push(s);
        }
        out
    }

    /// A Prometheus response: its format (`None` when unreadable) and series.
    fn response(
        &mut self,
        root: &Json,
        prefix: &str,
        hint: &Hint,
    ) -> (Option<ResultFormat>, Vec<Series>) {
        let path = |p: &str| {
            if prefix.is_empty() {
                p.to_owned()
            } else {
                format!("{prefix}.{p}")
            }
        };
        if let Some(status) = root.get("status")
            && status.value != JsonValue::Str("success".into())
        {
            let why =
                text_of(root, "error").map_or_else(String::new, |e| format!(": {}", printable(e)));
            self.problems.push(problem(
                "verify::result",
                format!(
                    "`{}` is not \"success\": the query failed{why}",
                    path("status")
                ),
                status.span,
                "the query failed",
                "fix the query and save the response again",
            ));
            return (None, Vec::new());
        }
        let Some(data) = root.get("data") else {
            self.problems
                .push(missing(root.span, &path("data"), "a Prometheus response"));
            return (None, Vec::new());
        };
        let format = match text_of(data, "resultType") {
            Some("vector") => ResultFormat::PrometheusVector,
            Some("matrix") => ResultFormat::PrometheusMatrix,
            Some("scalar") => {
                // One number, no labels: the probe says whose it is.
                let Some(result) = data.get("result") else {
                    self.problems.push(missing(
                        data.span,
                        &path("data.result"),
                        "a Prometheus response",
                    ));
                    return (None, Vec::new());
                };
                let Some(entrypoint) = hint.entrypoint.clone() else {
                    self.problems.push(no_entrypoint(
                        result.span,
                        &path("data.result"),
                        &self.keys,
                    ));
                    return (None, Vec::new());
                };
                let measure = hint.measure.unwrap_or(Measure::Success);
                let samples = self.pair(result, &path("data.result"), measure);
                return (
                    Some(ResultFormat::PrometheusVector),
                    samples
                        .map(|samples| Series {
                            entrypoint,
                            measure,
                            samples,
                            below: None,
                            span: result.span,
                        })
                        .into_iter()
                        .collect(),
                );
            }
            _ => {
                let at = data.get("resultType").map_or(data.span, |t| t.span);
                self.problems.push(problem(
                    "verify::result",
                    format!("`{}` must be \"vector\" or \"matrix\"", path("data.resultType")),
                    at,
                    "expected \"vector\" or \"matrix\"",
                    "query the success ratio per entrypoint: an instant query (/api/v1/query) gives a vector, a range query (/api/v1/query_range) a matrix",
                ));
                return (None, Vec::new());
            }
        };
        let Some(Json {
            value: JsonValue::Array(items),
            ..
        }) = data.get("result")
        else {
            let at = data.get("result").map_or(data.span, |r| r.span);
            self.problems.push(problem(
                "verify::result",
                format!("`{}` must be an array of series", path("data.result")),
                at,
                "expected an array",
                RESULT_HELP,
            ));
            return (None, Vec::new());
        };
        let mut out = Vec::new();
        for (index, item) in items.iter().enumerate() {
            if let Some(series) = self.series(item, &path(&format!("data.result[{index}]")), hint) {
                out.push(series);
            }
        }
        (Some(format), out)
    }

    /// One series of a vector (`value`) or a matrix (`values`).
    fn series(&mut self, item: &Json, path: &str, hint: &Hint) -> Option<Series> {
        let Some(metric) = item.get("metric") else {
            self.problems.push(missing(
                item.span,
                &format!("{path}.metric"),
                "a Prometheus series",
            ));
            return None;
        };
        let label = |key: &str| text_of(metric, key);
        let mut named_other = None;
        let mut entrypoint = None;
        for key in &self.keys {
            if let Some(value) = label(key) {
                if self.entrypoints.iter().any(|e| e == value) {
                    entrypoint = Some(value.to_owned());
                    break;
                }
                named_other.get_or_insert(value.to_owned());
            }
        }
        let entrypoint = match (entrypoint, hint.entrypoint.clone(), named_other) {
            (Some(e), _, _) | (None, Some(e), _) => e,
            (None, None, Some(other)) => {
                self.others.insert(other);
                return None;
            }
            (None, None, None) => {
                self.problems.push(no_entrypoint(
                    metric.span,
                    &format!("{path}.metric"),
                    &self.keys,
                ));
                return None;
            }
        };
        let measure = measure(metric).or(hint.measure).unwrap_or(Measure::Success);
        let samples = if let Some(value) = item.get("value") {
            self.pair(value, &format!("{path}.value"), measure)?
        } else if let Some(values) = item.get("values") {
            let JsonValue::Array(pairs) = &values.value else {
                self.problems.push(problem(
                    "verify::result",
                    format!("`{path}.values` must be an array of `[timestamp, \"value\"]`"),
                    values.span,
                    "expected an array",
                    RESULT_HELP,
                ));
                return None;
            };
            let mut samples = Vec::new();
            for (index, pair) in pairs.iter().enumerate() {
                samples.extend(self.pair(pair, &format!("{path}.values[{index}]"), measure)?);
            }
            samples
        } else {
            self.problems.push(missing(
                item.span,
                &format!("{path}.value"),
                "a Prometheus series (`value`, or `values` in a range query)",
            ));
            return None;
        };
        Some(Series {
            entrypoint,
            measure,
            samples,
            below: None,
            span: item.span,
        })
    }

    /// `[timestamp, "value"]`: the value, none when it is `NaN`.
    fn pair(&mut self, pair: &Json, path: &str, measure: Measure) -> Option<Vec<f64>> {
        let JsonValue::Array(items) = &pair.value else {
            self.problems.push(problem(
                "verify::result",
                format!(
                    "`{path}` must be `[timestamp, \"value\"]`, found {}",
                    pair.kind()
                ),
                pair.span,
                "expected `[timestamp, \"value\"]`",
                RESULT_HELP,
            ));
            return None;
        };
        let Some(value) = items.get(1).filter(|_| items.len() == 2) else {
            self.problems.push(problem(
                "verify::result",
                format!("`{path}` must be `[timestamp, \"value\"]`"),
                pair.span,
                "expected two items",
                RESULT_HELP,
            ));
            return None;
        };
        let number = match &value.value {
            JsonValue::Str(s) => s.trim().parse::<f64>().ok(),
            JsonValue::Number(n) => Some(*n),
            _ => None,
        };
        match number {
            Some(n) if n.is_nan() => {
                self.empty += 1;
                Some(Vec::new())
            }
            Some(n) => self.sample(n, value.span, &format!("{path}[1]"), measure),
            None => {
                self.problems.push(problem(
                    "verify::result",
                    format!("`{path}[1]` must be the sample value, such as \"0.97\""),
                    value.span,
                    "not a number",
                    RESULT_HELP,
                ));
                None
            }
        }
    }

    /// A sample in range: a success ratio in [0, 1], a latency of at least
    /// 0 seconds.
    fn sample(&mut self, n: f64, span: Span, path: &str, measure: Measure) -> Option<Vec<f64>> {
        match measure {
            // A ratio computed by Prometheus may pass 1 by a rounding.
            Measure::Success if (0.0..=1.0 + 1e-9).contains(&n) => Some(vec![n.min(1.0)]),
            Measure::Success => {
                self.problems.push(problem(
                    "verify::result",
                    format!(
                        "`{path}` is {}, not a success ratio between 0 and 1",
                        crate::human::amount(n)
                    ),
                    span,
                    "expected a ratio in [0, 1]",
                    "query the share of requests served (a percent divided by 100); a latency series is told by its name (`…latency…`, `…duration…`) or the label `nines_measure=\"latency\"`",
                ));
                None
            }
            Measure::Latency if n.is_finite() && n >= 0.0 => Some(vec![n]),
            Measure::Latency => {
                self.problems.push(problem(
                    "verify::result",
                    format!(
                        "`{path}` is {}, not a latency of at least 0 seconds",
                        crate::human::amount(n)
                    ),
                    span,
                    "expected seconds",
                    "query the latency in seconds, such as `histogram_quantile(0.99, sum by (app, le) (rate(http_request_duration_seconds_bucket[1m])))`",
                ));
                None
            }
        }
    }

    /// A Chaos Toolkit journal: the probes of `steady_states.during`, else
    /// of `steady_states.after`.
    fn journal(&mut self, root: &Json) -> Vec<Series> {
        let Some(states) = root.get("steady_states") else {
            return Vec::new();
        };
        let during: Vec<&Json> = match states.get("during").map(|d| &d.value) {
            Some(JsonValue::Array(items)) => items.iter().collect(),
            Some(JsonValue::Object(_)) => states.get("during").into_iter().collect(),
            _ => Vec::new(),
        };
        let after: Vec<&Json> = states.get("after").into_iter().collect();
        for (phase, checks) in [("during", during), ("after", after)] {
            let mut series = Vec::new();
            for (index, check) in checks.iter().enumerate() {
                let Some(Json {
                    value: JsonValue::Array(probes),
                    ..
                }) = check.get("probes")
                else {
                    continue;
                };
                let place = if phase == "during" {
                    format!("steady_states.during[{index}]")
                } else {
                    "steady_states.after".to_owned()
                };
                for (p, probe) in probes.iter().enumerate() {
                    let found = self.probe(probe, &format!("{place}.probes[{p}]"));
                    series.extend(self.unique(found));
                }
            }
            if !self.problems.is_empty() {
                return Vec::new();
            }
            if !series.is_empty() {
                self.notes.push(format!(
                    "read the probes of steady_states.{phase} ({} check{})",
                    checks.len(),
                    if checks.len() == 1 { "" } else { "s" }
                ));
                return series;
            }
        }
        self.problems.push(problem(
            "verify::result",
            "the journal has no probe output during or after the experiment that names an entrypoint".to_owned(),
            states.span,
            "no probe output read",
            "run the experiment `nines experiments` wrote (its probes `served-<entrypoint>` query each entrypoint's success ratio), or give the Prometheus query results",
        ));
        Vec::new()
    }

    /// One probe: its output read as a Prometheus response (or a bare
    /// number), the entrypoint told by the series, else by the probe's name
    /// (`served-<entrypoint>`, `latency-<entrypoint>`) or query.
    fn probe(&mut self, probe: &Json, path: &str) -> Vec<Series> {
        let activity = probe.get("activity");
        let name = activity.and_then(|a| text_of(a, "name")).unwrap_or("");
        let query = activity
            .and_then(|a| a.get("provider"))
            .map(|p| {
                let arguments = p.get("arguments");
                let q = arguments.and_then(|a| text_of(a, "query")).unwrap_or("");
                let url = text_of(p, "url").unwrap_or("");
                if q.is_empty() { url } else { q }.to_owned()
            })
            .unwrap_or_default();
        let hint = self.hint(name, &query);
        let Some(output) = probe.get("output") else {
            return Vec::new();
        };
        // An HTTP provider's output is `{status, headers, body}`; the body
        // may be the response as a string.
        let body = output.get("body").filter(|_| {
            output.get("headers").is_some()
                || output
                    .get("status")
                    .is_some_and(|s| matches!(s.value, JsonValue::Number(_)))
        });
        let parsed;
        let output = match body {
            Some(Json {
                value: JsonValue::Str(text),
                span,
            }) => match json::parse(text) {
                Ok(mut inner) => {
                    respan(&mut inner, *span);
                    parsed = inner;
                    &parsed
                }
                Err(_) => return Vec::new(),
            },
            Some(body) => body,
            None => output,
        };
        match &output.value {
            JsonValue::Number(n) => {
                let Some(entrypoint) = hint.entrypoint.clone() else {
                    return Vec::new();
                };
                let measure = hint.measure.unwrap_or(Measure::Success);
                if n.is_nan() {
                    return Vec::new();
                }
                self.sample(*n, output.span, &format!("{path}.output"), measure)
                    .map(|samples| Series {
                        entrypoint,
                        measure,
                        samples,
                        below: None,
                        span: output.span,
                    })
                    .into_iter()
                    .collect()
            }
            JsonValue::Object(_) if output.get("data").is_some() => {
                let (format, series) = self.response(output, &format!("{path}.output"), &hint);
                // No sample from `(ratio) >= t`: the ratio was under t.
                match (format, hint.entrypoint, threshold(&query)) {
                    (Some(_), Some(entrypoint), Some(t)) if series.is_empty() => vec![Series {
                        entrypoint,
                        measure: Measure::Success,
                        samples: Vec::new(),
                        below: Some(t),
                        span: output.span,
                    }],
                    _ => series,
                }
            }
            _ => Vec::new(),
        }
    }

    /// What a probe's name or query says: `served-E`, `latency-E`,
    /// `E-serves-at-least-T` (the probes `nines experiments` writes), or a
    /// query selecting one entrypoint by a label (`app="E"`).
    fn hint(&self, name: &str, query: &str) -> Hint {
        let known = |e: &str| self.entrypoints.iter().any(|x| x == e);
        if let Some((e, _)) = name.split_once("-serves-at-least-")
            && known(e)
        {
            return Hint {
                entrypoint: Some(e.to_owned()),
                measure: Some(Measure::Success),
            };
        }
        for (prefix, measure) in [
            ("served-", Measure::Success),
            ("success-", Measure::Success),
            ("latency-", Measure::Latency),
        ] {
            if let Some(e) = name.strip_prefix(prefix)
                && known(e)
            {
                return Hint {
                    entrypoint: Some(e.to_owned()),
                    measure: Some(measure),
                };
            }
        }
        let lower = query.to_ascii_lowercase();
        let measure = ["latency", "duration", "histogram_quantile"]
            .iter()
            .any(|w| lower.contains(w))
            .then_some(Measure::Latency);
        let selected: BTreeSet<&String> = self
            .entrypoints
            .iter()
            .filter(|e| {
                query.contains(&format!("=\"{e}\"")) || query.contains(&format!("=~\"{e}\""))
            })
            .collect();
        Hint {
            entrypoint: (selected.len() == 1)
                .then(|| selected.into_iter().next().cloned())
                .flatten(),
            measure,
        }
    }
}

/// The threshold of a query `(…) >= t`: `t`, when the query ends so.
fn threshold(query: &str) -> Option<f64> {
    let (_, t) = query.trim().rsplit_once(">=")?;
    let t: f64 = t.split_whitespace().next()?.parse().ok()?;
    (0.0..=1.0).contains(&t).then_some(t)
}

/// Every span of a value parsed from a string inside the file set to the
/// string's: a problem inside points at the string.
fn respan(value: &mut Json, span: Span) {
    value.span = span;
    match &mut value.value {
        JsonValue::Array(items) => items.iter_mut().for_each(|i| respan(i, span)),
        JsonValue::Object(members) => {
            for (_, key, v) in members {
                *key = span;
                respan(v, span);
            }
        }
        _ => {}
    }
}

/// What a series' labels say it measures: `nines_measure`, `measure` or
/// `quantity` naming latency or success, else a metric name with
/// `latency` or `duration` in it.
fn measure(metric: &Json) -> Option<Measure> {
    for key in ["nines_measure", "measure", "quantity"] {
        if let Some(value) = text_of(metric, key) {
            let value = value.to_ascii_lowercase();
            if value.contains("latency") || value.contains("duration") {
                return Some(Measure::Latency);
            }
            if ["success", "served", "availability", "ratio"]
                .iter()
                .any(|w| value.contains(w))
            {
                return Some(Measure::Success);
            }
        }
    }
    let name = text_of(metric, "__name__")?.to_ascii_lowercase();
    (name.contains("latency") || name.contains("duration")).then_some(Measure::Latency)
}

fn missing(span: Span, path: &str, what: &str) -> Problem {
    problem(
        "verify::result",
        format!("`{path}` is missing"),
        span,
        &format!("{what} needs it"),
        RESULT_HELP,
    )
}

fn no_entrypoint(span: Span, path: &str, keys: &[String]) -> Problem {
    let keys: Vec<String> = keys.iter().map(|k| format!("`{}`", printable(k))).collect();
    problem(
        "verify::result",
        format!(
            "`{path}` names no entrypoint: none of the labels {} is there",
            super::wording::or_list(&keys)
        ),
        span,
        "whose series is this?",
        "keep the entrypoint's label in the query (`sum by (app) (…)`), or name the label with --label KEY",
    )
}

// ---- the verdict ----

/// How an observation compares with the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Within the margin of the prediction.
    AsPredicted,
    /// Above it by more than the margin: the model is pessimistic.
    Better,
    /// Below it by more than the margin: the system has a weakness the
    /// model does not know.
    Worse,
    /// No observation of the entrypoint (not a verdict).
    NotObserved,
}

impl Verdict {
    /// In words.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Verdict::AsPredicted => "as predicted",
            Verdict::Better => "better than predicted",
            Verdict::Worse => "worse than predicted",
            Verdict::NotObserved => "not observed",
        }
    }
}

/// One entrypoint, predicted against observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The entrypoint.
    pub entrypoint: String,
    /// The served share the model predicts while the loss lasts.
    pub predicted: f64,
    /// The least share within the margin (the prediction less the margin,
    /// at least 0).
    pub tolerance: f64,
    /// The observed success ratio: the mean of its samples.
    pub observed: Option<f64>,
    /// The least sample.
    pub observed_min: Option<f64>,
    /// The lowest threshold a check found the success ratio under, without
    /// its value (a Chaos Toolkit probe `(ratio) >= t` that returned no
    /// sample).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_below: Option<f64>,
    /// How many samples (1 for an instant query).
    pub samples: usize,
    /// The mean of the latency samples, seconds, when given (shown, not
    /// judged: the prediction is a served share).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
}

/// A key of the model the prediction depends on, and the value that would
/// make the model predict what was observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyTrial {
    /// As `--set` writes it: `links-db.capacity`,
    /// `redirect.depends_on[links-db].hit_rate`.
    pub key: String,
    /// Its value in the model.
    pub written: f64,
    /// The least value (the most, for none of these keys) at which the model
    /// predicts at least the observed share; `None` when no value within
    /// the search range does.
    pub needed: Option<f64>,
    /// The served share the model predicts at `needed`.
    pub predicted: Option<f64>,
    /// How far `needed` is from `written`, as a factor of at least 1
    /// (capacity, instances: needed ÷ written; hit rate: the miss rate
    /// written ÷ the miss rate needed).
    pub factor: Option<f64>,
    /// Whether the prediction at `needed` is within the margin of the
    /// observation (the model jumps past it otherwise: no value of this key
    /// alone gives what was observed).
    pub explains: bool,
    /// How many predictions the search worked out.
    pub evaluations: usize,
}

/// Why the model is pessimistic, as far as its keys tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The entrypoint explained: the one observed furthest above its
    /// prediction.
    pub entrypoint: String,
    /// Its observed served share.
    pub observed: f64,
    /// Its predicted one.
    pub predicted: f64,
    /// Every key tried, the most likely wrong first: those that explain the
    /// observation, by factor, then those that pass it, by factor, then
    /// those that cannot reach it.
    pub keys: Vec<KeyTrial>,
}

/// The verdict of one experiment.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// The model's system name.
    pub system: String,
    /// The loss.
    pub loss: String,
    /// Its slug.
    pub slug: String,
    /// The loss in words.
    pub title: String,
    /// The experiment file's format.
    pub file_format: FileFormat,
    /// Each result file's format.
    pub result_formats: Vec<ResultFormat>,
    /// The margin.
    pub margin: f64,
    /// The `nines what-if` arguments that compute the same prediction.
    pub what_if: Vec<String>,
    /// Per entrypoint, in the model's order.
    pub entrypoints: Vec<Row>,
    /// Worse when any entrypoint is, else better when any is, else as
    /// predicted.
    pub verdict: Verdict,
    /// When better: the key most likely wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
    /// When worse: `drift/experiment/<loss>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// The model changed since the file was written, results left out.
    pub notes: Vec<String>,
}

impl Verification {
    /// Whether the run fails: worse than predicted.
    #[must_use]
    pub fn fails(&self) -> bool {
        self.verdict == Verdict::Worse
    }
}

/// The loss an experiment file names, resolved against the model's
/// candidates (by name, else by slug).
fn resolve(model: &Model, file: &ExperimentFile) -> Result<String, String> {
    let losses = experiments::losses(model);
    if let Some(loss) = &file.loss
        && losses.iter().any(|(l, _)| l == loss)
    {
        return Ok(loss.clone());
    }
    if let Some(slug) = &file.slug
        && let Some((loss, _)) = losses.iter().find(|(_, s)| s == slug)
    {
        return Ok(loss.clone());
    }
    let (asked, what, hint) = match (&file.loss, &file.slug) {
        (Some(loss), _) => (
            loss,
            "loss",
            closest(loss, losses.iter().map(|(l, _)| l.as_str())),
        ),
        (None, Some(slug)) => (
            slug,
            "slug",
            closest(slug, losses.iter().map(|(_, s)| s.as_str()))
                .and_then(|s| losses.iter().find(|(_, x)| x == s))
                .map(|(l, _)| l.as_str()),
        ),
        (None, None) => return Err("the experiment file names no loss".to_owned()),
    };
    let hint = hint.map_or_else(String::new, |h| {
        format!(" (did you mean `{}`?)", printable(h))
    });
    Err(format!(
        "the experiment's {what} `{}` is no credible loss of this model{hint}: the model changed since the file was written, or it is another model's; `nines experiments MODEL --top 0` lists every loss",
        printable(asked)
    ))
}

/// The plan options that give one loss's experiment.
fn only(options: &Options, loss: &str) -> experiments::Options {
    experiments::Options {
        today: options.today,
        margin: options.margin,
        duration_s: 300.0,
        only: Some(loss.to_owned()),
        top: 1,
    }
}

/// Judges an experiment of `model` (whose text is `text`) on what was
/// observed.
///
/// # Errors
/// The file's loss is not one of the model's (with the closest name), or
/// nothing observed is about an entrypoint of the model.
pub fn verify(
    model: &Model,
    text: &str,
    file: &ExperimentFile,
    observed: &Observed,
    options: &Options,
) -> Result<Verification, String> {
    let loss = resolve(model, file)?;
    let plan = experiments::plan(model, text, &only(options, &loss))?;
    let Some(experiment) = plan.experiments.into_iter().next() else {
        return Err(format!(
            "the loss `{}` gives no experiment",
            printable(&loss)
        ));
    };
    let mut notes: Vec<String> = changed(file, &experiment).into_iter().collect();
    let margin = options.margin;
    let rows: Vec<Row> = experiment
        .predictions
        .iter()
        .map(|p| {
            let samples = observed.entrypoints.get(&p.entrypoint);
            let success = samples.map_or(&[][..], |s| s.success.as_slice());
            let latency = samples.map_or(&[][..], |s| s.latency.as_slice());
            let observed = mean(success);
            let below = samples.and_then(|s| s.below.iter().copied().reduce(f64::min));
            let verdict = match (observed, below) {
                // A check saw it under the hypothesis' tolerance.
                (_, Some(t)) if t <= p.tolerance + 1e-9 => Verdict::Worse,
                (Some(o), _) => judge(p.served, o, margin),
                (None, _) => Verdict::NotObserved,
            };
            Row {
                entrypoint: p.entrypoint.clone(),
                predicted: p.served,
                tolerance: p.tolerance,
                observed,
                observed_min: success.iter().copied().reduce(f64::min),
                observed_below: below,
                samples: success.len(),
                latency_s: mean(latency),
                verdict,
            }
        })
        .collect();
    if rows
        .iter()
        .all(|r| r.observed.is_none() && r.observed_below.is_none())
    {
        let names: Vec<String> = rows.iter().map(|r| printable(&r.entrypoint)).collect();
        let seen: Vec<String> = observed.entrypoints.keys().map(|e| printable(e)).collect();
        return Err(format!(
            "the results give no success ratio of an entrypoint of the model ({}){}: query each entrypoint's success ratio, labelled by its name",
            names.join(", "),
            if seen.is_empty() {
                String::new()
            } else {
                format!("; they have only latencies of {}", seen.join(", "))
            }
        ));
    }
    let verdict = if rows.iter().any(|r| r.verdict == Verdict::Worse) {
        Verdict::Worse
    } else if rows.iter().any(|r| r.verdict == Verdict::Better) {
        Verdict::Better
    } else {
        Verdict::AsPredicted
    };
    let finding =
        (verdict == Verdict::Worse).then(|| drift_finding(model, text, &experiment, &rows));
    let explanation = (verdict == Verdict::Better)
        .then(|| explain(model, text, &experiment, &rows, options))
        .flatten();
    notes.extend(observed.notes.iter().cloned());
    Ok(Verification {
        system: model.system.clone(),
        loss: experiment.loss.clone(),
        slug: experiment.slug.clone(),
        title: experiment.title.clone(),
        file_format: file.format,
        result_formats: observed.formats.clone(),
        margin,
        what_if: experiment.what_if.clone(),
        entrypoints: rows,
        verdict,
        explanation,
        finding,
        notes,
    })
}

/// The note that the model changed since the file was written: the
/// predictions it carries differ from the model's now.
fn changed(file: &ExperimentFile, experiment: &Experiment) -> Option<String> {
    let written = file.predictions.as_ref()?;
    let now: Vec<(String, f64)> = experiment
        .predictions
        .iter()
        .map(|p| (p.entrypoint.clone(), p.served))
        .collect();
    // A FIS template tags at most a few entrypoints: those it has.
    let complete = file.format != FileFormat::Fis;
    let same = (!complete || written.len() == now.len())
        && written
            .iter()
            .all(|(a, x)| now.iter().any(|(b, y)| a == b && (x - y).abs() <= 1e-6));
    if same {
        return None;
    }
    let shown = |list: &[(String, f64)]| {
        list.iter()
            .map(|(e, s)| format!("{} {}", printable(e), super::wording::percent(*s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!(
        "the model changed since the experiment file was written: it predicted {}, the model now predicts {}; the verdict is against the model now",
        shown(written),
        shown(&now)
    ))
}

/// The mean of the samples, in one pass without overflow.
fn mean(samples: &[f64]) -> Option<f64> {
    let mut m = 0.0;
    for (n, x) in samples.iter().enumerate() {
        m += (x - m) / (n as f64 + 1.0);
    }
    (!samples.is_empty()).then_some(m)
}

/// One entrypoint's verdict; a difference of exactly the margin is within
/// it (a hair of rounding allowed).
fn judge(predicted: f64, observed: f64, margin: f64) -> Verdict {
    const HAIR: f64 = 1e-9;
    if observed < predicted - margin - HAIR {
        Verdict::Worse
    } else if observed > predicted + margin + HAIR {
        Verdict::Better
    } else {
        Verdict::AsPredicted
    }
}

/// `drift/experiment/<loss>` at the definition of what was lost, with its
/// line and column. (`accepted` cannot name it: the model's validation
/// reads the subject of an accepted id as a component, domain or group.)
fn drift_finding(model: &Model, text: &str, experiment: &Experiment, rows: &[Row]) -> Finding {
    let component_span = |name: &str| {
        model
            .components
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.span)
    };
    let span = match &experiment.injection {
        Injection::StopDomains { domains, .. } => domains
            .first()
            .and_then(|d| model.domains.iter().find(|m| m.name == d.name))
            .map(|d| d.span),
        Injection::KillGroup { group, .. } => model
            .groups
            .iter()
            .find(|g| g.name == *group)
            .map(|g| g.span),
        Injection::KillInstances { component, .. } | Injection::Delay { component, .. } => {
            component_span(component)
        }
    }
    .unwrap_or(model.span);
    let observed: Vec<ExperimentRow> = rows
        .iter()
        .filter(|r| r.observed.is_some() || r.observed_below.is_some())
        .map(|r| ExperimentRow {
            entrypoint: r.entrypoint.clone(),
            predicted: r.predicted,
            tolerance: r.tolerance,
            observed: r.observed,
            below: r.observed_below,
            worse: r.verdict == Verdict::Worse,
        })
        .collect();
    let mut finding = drift::experiment(
        span,
        &experiment.loss,
        &experiment.title,
        observed,
        experiment
            .overloaded
            .iter()
            .map(|o| (o.component.clone(), o.utilization))
            .collect(),
    );
    let (line, column) = span.line_column(text);
    finding.location = Location { line, column };
    finding
}

// ---- the key most likely wrong ----

/// At most this many keys are searched (the most overloaded components'
/// first), each with at most [`EVALUATIONS`] predictions.
const MAX_KEYS: usize = 8;

/// The most predictions one key's search works out.
pub const EVALUATIONS: usize = 40;

/// The most predictions the search of every key works out in all.
const TOTAL_EVALUATIONS: usize = 4 * EVALUATIONS;

/// How a key's value follows the search factor `f` (at least 1).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    /// `written × f` (a capacity per instance).
    Times(f64),
    /// `written × f`, a whole number (instances), at most 10,000.
    Whole(u32),
    /// A hit rate whose miss rate is divided by `f`, at most 99.99%.
    Misses(f64),
}

impl Scale {
    fn written(self) -> f64 {
        match self {
            Scale::Times(w) | Scale::Misses(w) => w,
            Scale::Whole(w) => f64::from(w),
        }
    }

    /// The largest factor searched.
    fn ceiling(self) -> f64 {
        match self {
            Scale::Times(_) => 1024.0,
            Scale::Whole(w) => (10_000.0 / f64::from(w.max(1))).max(1.0),
            Scale::Misses(h) => ((1.0 - h) / 1e-4).max(1.0),
        }
    }

    fn value(self, f: f64) -> f64 {
        match self {
            Scale::Times(w) => w * f,
            // Less a hair: `w × (k / w)` may round just above `k`.
            Scale::Whole(w) => (f64::from(w) * f - 1e-9).ceil(),
            Scale::Misses(h) => 1.0 - (1.0 - h) / f,
        }
    }

    /// The factor of a value.
    fn factor(self, value: f64) -> f64 {
        match self {
            Scale::Times(w) => value / w,
            Scale::Whole(w) => value / f64::from(w.max(1)),
            Scale::Misses(h) => (1.0 - h) / (1.0 - value),
        }
    }
}

/// A search's outcome: the least value reaching the goal and the share
/// predicted there, and how many predictions it took.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    at: Option<(f64, f64)>,
    evaluations: usize,
}

/// The least value of a key (along `scale`, above its written value, which
/// does not reach) at which `served(value)` reaches `goal`: doubling the
/// factor up to the scale's ceiling, then bisecting on the logarithm of
/// the factor until it is known within 0.01% (whole numbers: exactly), in
/// at most `budget` calls of `served` (a value it cannot judge, `None`,
/// counts as not reaching). The served share is taken to grow with the
/// value.
fn least_reaching(
    scale: Scale,
    goal: f64,
    budget: usize,
    served: &mut dyn FnMut(f64) -> Option<f64>,
) -> Found {
    let mut evaluations = 0;
    let mut seen: BTreeMap<u64, Option<f64>> = BTreeMap::new();
    let mut probe = |value: f64, evaluations: &mut usize| -> Option<Option<f64>> {
        if let Some(known) = seen.get(&value.to_bits()) {
            return Some(*known);
        }
        if *evaluations >= budget {
            return None;
        }
        *evaluations += 1;
        let got = served(value);
        seen.insert(value.to_bits(), got);
        Some(got)
    };
    let reaches = |s: Option<f64>| s.is_some_and(|s| s >= goal - 1e-9);
    let ceiling = scale.ceiling();
    let (mut lo, mut hi) = (1.0_f64, None);
    let mut f = 1.0_f64;
    while f < ceiling {
        f = (f * 2.0).min(ceiling);
        let Some(s) = probe(scale.value(f), &mut evaluations) else {
            return Found {
                at: None,
                evaluations,
            };
        };
        if reaches(s) {
            hi = Some((f, s.unwrap_or(0.0)));
            break;
        }
        lo = f;
    }
    let Some((mut hi_f, mut hi_s)) = hi else {
        return Found {
            at: None,
            evaluations,
        };
    };
    loop {
        let done = match scale {
            Scale::Whole(_) => scale.value(hi_f) - scale.value(lo) <= 1.0,
            _ => hi_f / lo <= 1.0001,
        };
        if done {
            break;
        }
        let mid = match scale {
            // The whole number halfway, as a factor.
            Scale::Whole(w) => {
                let (a, b) = (scale.value(lo), scale.value(hi_f));
                f64::midpoint(a, b).floor() / f64::from(w.max(1))
            }
            _ => (lo * hi_f).sqrt(),
        };
        let Some(s) = probe(scale.value(mid), &mut evaluations) else {
            break;
        };
        if reaches(s) {
            hi_f = mid;
            hi_s = s.unwrap_or(0.0);
        } else {
            lo = mid;
        }
    }
    Found {
        at: Some((scale.value(hi_f), hi_s)),
        evaluations,
    }
}

/// The keys the prediction depends on: each overloaded component's
/// `capacity` (its `workers` where its request pool binds) and
/// `instances`, and the `hit_rate` of every edge with one into an
/// overloaded component, the most overloaded first.
fn keys(model: &Model, experiment: &Experiment) -> Vec<(String, Scale)> {
    let mut overloaded: Vec<&experiments::Overload> = experiment.overloaded.iter().collect();
    overloaded.sort_by(|a, b| b.utilization.total_cmp(&a.utilization));
    let mut out: Vec<(String, Scale)> = Vec::new();
    for o in overloaded {
        let Some(at) = model.components.iter().position(|c| c.name == o.component) else {
            continue;
        };
        let id = ComponentId(at);
        let c = model.component(id);
        // A pool that binds is what carries less: its size, not the
        // capacity, is the key to try.
        if o.pool
            && let Some(workers) = c.workers
            && workers > 0
        {
            out.push((format!("{}.workers", c.name), Scale::Whole(workers)));
        } else if let Some(capacity) = &c.capacity
            && capacity.per_instance > 0.0
        {
            out.push((
                format!("{}.capacity", c.name),
                Scale::Times(capacity.per_instance),
            ));
        }
        if c.instances > 0 {
            out.push((format!("{}.instances", c.name), Scale::Whole(c.instances)));
        }
        for caller in &model.components {
            for edge in &caller.depends_on {
                if let Some(h) = edge.hit_rate
                    && h < 1.0 - 1e-4
                    && edge.targets.contains(&id)
                {
                    out.push((
                        format!("{}.depends_on[{}].hit_rate", caller.name, c.name),
                        Scale::Misses(h),
                    ));
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|(k, _)| seen.insert(k.clone()));
    out.truncate(MAX_KEYS);
    out
}

/// A value as `--set` reads it: a hit rate as a percent, a whole number
/// plain, a capacity with as many digits as it has.
fn setting(scale: Scale, value: f64) -> String {
    match scale {
        Scale::Misses(_) => format!("{}%", value * 100.0),
        Scale::Whole(_) | Scale::Times(_) => format!("{value}"),
    }
}

/// The served share of `entrypoint` the model predicts for `loss` with
/// `key` set to `value`.
fn predicted_with(
    model: &Model,
    text: &str,
    loss: &str,
    entrypoint: &str,
    key: &str,
    value: &str,
    options: &Options,
) -> Option<f64> {
    let (text, changed) = set::apply(text, model, &[format!("{key}={value}")]).ok()?;
    let plan = experiments::plan(&changed, &text, &only(options, loss)).ok()?;
    let experiment = plan.experiments.into_iter().next()?;
    experiment
        .predictions
        .iter()
        .find(|p| p.entrypoint == entrypoint)
        .map(|p| p.served)
}

/// The key most likely wrong, for the entrypoint observed furthest above
/// its prediction.
fn explain(
    model: &Model,
    text: &str,
    experiment: &Experiment,
    rows: &[Row],
    options: &Options,
) -> Option<Explanation> {
    let (row, observed) = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Better)
        .filter_map(|r| Some((r, r.observed?)))
        .max_by(|(a, x), (b, y)| (x - a.predicted).total_cmp(&(y - b.predicted)))?;
    // A bound on the whole search too: on a large model each prediction
    // is two audits.
    let mut left = TOTAL_EVALUATIONS;
    let mut trials: Vec<KeyTrial> = Vec::new();
    for (key, scale) in keys(model, experiment) {
        let mut served = |value: f64| {
            predicted_with(
                model,
                text,
                &experiment.loss,
                &row.entrypoint,
                &key,
                &setting(scale, value),
                options,
            )
        };
        let found = least_reaching(scale, observed, EVALUATIONS.min(left), &mut served);
        left = left.saturating_sub(found.evaluations);
        let (needed, predicted) = found.at.map_or((None, None), |(v, s)| (Some(v), Some(s)));
        trials.push(KeyTrial {
            written: scale.written(),
            needed,
            predicted,
            factor: needed.map(|v| scale.factor(v)),
            explains: predicted.is_some_and(|p| p <= observed + options.margin + 1e-9),
            evaluations: found.evaluations,
            key,
        });
    }
    // Explaining first, then passing the observation, then the rest; by
    // factor within each; the key order (most overloaded first) breaks ties.
    trials.sort_by(|a, b| {
        let class = |t: &KeyTrial| match (t.needed, t.explains) {
            (Some(_), true) => 0,
            (Some(_), false) => 1,
            (None, _) => 2,
        };
        class(a).cmp(&class(b)).then(
            a.factor
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.factor.unwrap_or(f64::INFINITY)),
        )
    });
    Some(Explanation {
        entrypoint: row.entrypoint.clone(),
        observed,
        predicted: row.predicted,
        keys: trials,
    })
}

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "the searched values are exact by construction"
)]
mod tests {
    use super::*;

    /// redirect's share after az-b: 4 instances of `c` for 9,000 a second.
    fn shed(c: f64) -> f64 {
        (4.0 * c / 9000.0).min(1.0)
    }

    #[test]
    fn a_capacity_is_found_within_a_hundredth_of_a_percent() {
        // 4c / 9000 = 0.98889 at c = 2225.0025: between 2000 (written) and
        // the first doubling, 4000 (served 100%).
        let found = least_reaching(Scale::Times(2000.0), 0.98889, EVALUATIONS, &mut |c| {
            Some(shed(c))
        });
        let (c, s) = found.at.expect("found");
        assert!((2225.0025..=2225.0025 * 1.0001).contains(&c), "{c}");
        assert!(s >= 0.98889, "{s}");
        // One doubling, then log2(ln 2 / ln 1.0001) ≈ 12.8 → 13 halvings.
        assert!(found.evaluations <= 14, "{}", found.evaluations);
    }

    #[test]
    fn a_step_is_found_where_it_is() {
        // links-db carries 8,050 on 2 nodes from a capacity of 4,025 per
        // node; below it nothing is served, above it 88.9%.
        let mut step = |c: f64| Some(if 2.0 * c >= 8050.0 { 8.0 / 9.0 } else { 0.0 });
        let found = least_reaching(Scale::Times(1000.0), 0.10, EVALUATIONS, &mut step);
        let (c, s) = found.at.expect("found");
        assert!((4025.0..=4025.0 * 1.0001).contains(&c), "{c}");
        assert_eq!(s, 8.0 / 9.0);
    }

    #[test]
    fn whole_numbers_are_found_exactly() {
        // 9 nodes of 1,000 needed for 8,050 after losing a third of n:
        // n − ceil(n / 3) ≥ 9 first at n = 14 (14 − 5 = 9; 13 − 5 = 8).
        let mut nodes = |n: f64| {
            let up = n - (n / 3.0).ceil();
            Some(if up * 1000.0 >= 8050.0 { 1.0 } else { 0.0 })
        };
        let found = least_reaching(Scale::Whole(3), 0.5, EVALUATIONS, &mut nodes);
        assert_eq!(found.at, Some((14.0, 1.0)));
        // Doublings 6, 12, 24; then 18, 15, 13, 14.
        assert!(found.evaluations <= 8, "{}", found.evaluations);
    }

    #[test]
    fn a_hit_rate_searches_the_miss_rate() {
        // The load behind a 95% cache: 9000 × (1 − h) on a capacity of 225
        // is served while the misses are at most 2.5%: h = 97.5%.
        let mut cache = |h: f64| {
            Some(if 9000.0 * (1.0 - h) <= 225.0 + 1e-9 {
                1.0
            } else {
                0.0
            })
        };
        let found = least_reaching(Scale::Misses(0.95), 1.0, EVALUATIONS, &mut cache);
        let (h, _) = found.at.expect("found");
        assert!((0.975..=0.975 + 1e-5).contains(&h), "{h}");
        // A factor of 2 on the miss rate: 5% / 2.5%.
        assert!((Scale::Misses(0.95).factor(h) - 2.0).abs() < 1e-3);
    }

    #[test]
    fn a_key_that_cannot_reach_is_said_so_within_the_budget() {
        let found = least_reaching(Scale::Times(1000.0), 0.5, EVALUATIONS, &mut |_| Some(0.0));
        assert_eq!(found.at, None);
        // Doublings to 1024×: 10 predictions.
        assert_eq!(found.evaluations, 10);
        let mut calls = 0;
        let found = least_reaching(Scale::Times(1.0), 0.5, 3, &mut |_| {
            calls += 1;
            None
        });
        assert_eq!((found.at, calls), (None, 3));
    }

    #[test]
    fn the_verdict_keeps_the_margin() {
        assert_eq!(judge(0.8889, 0.8889, 0.02), Verdict::AsPredicted);
        assert_eq!(judge(0.8889, 0.8689, 0.02), Verdict::AsPredicted);
        assert_eq!(judge(0.8889, 0.7889, 0.02), Verdict::Worse);
        assert_eq!(judge(0.8889, 0.9889, 0.02), Verdict::Better);
        assert_eq!(judge(0.0, 0.0, 0.02), Verdict::AsPredicted);
    }

    #[test]
    fn labels_include_the_prometheus_form() {
        assert_eq!(
            entrypoint_labels("app.kubernetes.io/name"),
            [
                "app.kubernetes.io/name",
                "app_kubernetes_io_name",
                "entrypoint",
                "service",
                "app",
                "job"
            ]
        );
        assert_eq!(
            entrypoint_labels("app"),
            ["app", "entrypoint", "service", "job"]
        );
    }
}
