//! The graph read from traces turned into components, rates and calls per
//! request ([`Graph`]), and written as a first model with the writer's
//! lines and comments. [`Graph`] is also what `--merge` and `check
//! --observed` compare a model with.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use super::draft::{Taken, is_database_image, sanitize};
use super::traces::Observed;
use super::writer::{line, preamble, scalar, wrapped};

/// The service graph in the model's names and units.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Every service seen, by component name.
    pub services: BTreeMap<String, Service>,
    /// The window the counts cover, in seconds.
    pub window: f64,
    /// The window as the user wrote it (`1h`).
    pub window_text: String,
    /// The component name of each traced name that differs from it, so
    /// [`Graph::find`] takes one step (a scan per component made merge and
    /// drift quadratic).
    traced: HashMap<String, String>,
}

/// One service of the traces.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    /// Its name in the traces.
    pub traced: String,
    /// Calls it received over the window.
    pub received: f64,
    /// Who calls it, by component name.
    pub callers: BTreeSet<String>,
    /// What it calls, by component name.
    pub calls: BTreeMap<String, Call>,
}

/// One measured call edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Call {
    /// Calls over the window.
    pub count: f64,
    /// Calls per request the caller receives, when it receives any.
    pub per_request: Option<f64>,
    /// Share of calls without error, when errors are counted.
    pub success: Option<f64>,
    /// 99th percentile latency in seconds (bucket bound), when measured.
    pub p99: Option<f64>,
}

impl Service {
    /// Its measured rate, requests per second over the window, when
    /// anything calls it.
    pub fn load(&self, window: f64) -> Option<f64> {
        (self.received > 0.0).then(|| self.received / window)
    }
}

impl Graph {
    /// The graph of what was read, with counts over `window` seconds.
    pub fn new(observed: &Observed, window: f64, window_text: &str) -> Self {
        let mut traced: BTreeSet<&str> = BTreeSet::new();
        for (parent, child) in observed.links.keys() {
            traced.insert(parent);
            traced.insert(child);
        }
        let names = names(&traced);
        let mut services: BTreeMap<String, Service> = BTreeMap::new();
        for raw in &traced {
            services.insert(
                names[*raw].clone(),
                Service {
                    traced: (*raw).to_owned(),
                    received: 0.0,
                    callers: BTreeSet::new(),
                    calls: BTreeMap::new(),
                },
            );
        }
        for ((parent, child), link) in &observed.links {
            let (from, to) = (&names[parent.as_str()], &names[child.as_str()]);
            if let Some(service) = services.get_mut(to) {
                service.received += link.calls;
                service.callers.insert(from.clone());
            }
        }
        let received: BTreeMap<String, f64> = services
            .iter()
            .map(|(name, s)| (name.clone(), s.received))
            .collect();
        for ((parent, child), link) in &observed.links {
            let (from, to) = (&names[parent.as_str()], &names[child.as_str()]);
            let own = received[from];
            if let Some(service) = services.get_mut(from) {
                service.calls.insert(
                    to.clone(),
                    Call {
                        count: link.calls,
                        per_request: (own > 0.0).then(|| link.calls / own),
                        success: link.success(),
                        p99: link.p99(),
                    },
                );
            }
        }
        let traced = services
            .iter()
            .filter(|(name, s)| s.traced != **name)
            .map(|(name, s)| (s.traced.clone(), name.clone()))
            .collect();
        Self {
            services,
            window,
            window_text: window_text.to_owned(),
            traced,
        }
    }

    /// The services nothing calls, sorted.
    pub fn roots(&self) -> Vec<String> {
        self.services
            .iter()
            .filter(|(_, s)| s.callers.is_empty())
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The component name of a service named in the traces or in the model.
    pub fn find(&self, name: &str) -> Option<&str> {
        if self.services.contains_key(name) {
            return self.services.get_key_value(name).map(|(k, _)| k.as_str());
        }
        self.traced.get(name).map(String::as_str)
    }

    /// Number of call edges.
    pub fn edge_count(&self) -> usize {
        self.services.values().map(|s| s.calls.len()).sum()
    }
}

/// Component names for traced service names: made to fit the model's name
/// rule; a name taken (by another service, or the reserved `instance`) gets
/// `-2`, `-3` … in sorted order of the traced names.
fn names<'a>(traced: &BTreeSet<&'a str>) -> BTreeMap<&'a str, String> {
    let mut taken = Taken::new(["instance".to_owned()]);
    traced
        .iter()
        .map(|raw| (*raw, taken.claim(sanitize(raw))))
        .collect()
}

/// A rate or ratio as the model writes it: whole numbers as they are, others
/// to four significant digits.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{value:.0}");
    }
    // The clamp keeps the exponent within -12..=3, so the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let digits = 3 - value.abs().log10().floor().clamp(-12.0, 3.0) as i32;
    let text = format!(
        "{value:.prec$}",
        prec = usize::try_from(digits).unwrap_or(0)
    );
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A latency in seconds, in the model's duration syntax.
pub fn duration(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{}ms", number(seconds * 1000.0))
    } else {
        format!("{}s", number(seconds))
    }
}

/// A share as a percentage.
pub fn percent(share: f64) -> String {
    format!("{}%", number(share * 100.0))
}

/// What `import traces` writes besides the graph.
#[derive(Debug, Clone)]
pub struct Header {
    /// The system's name.
    pub system: String,
    /// The formats read, as described in the header.
    pub formats: Vec<&'static str>,
    /// The inputs, for the header.
    pub inputs: String,
    /// `--entrypoint`, resolved to component names; empty for the roots.
    pub entrypoints: Vec<String>,
}

/// The model text.
pub fn write(graph: &Graph, header: &Header) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Imported by `nines import traces` ({}) from\n#   {}",
        header.formats.join(", "),
        super::writer::comment(&header.inputs)
    );
    wrapped(
        &mut out,
        &format!(
            "{} services and {} calls between them, counted over a window of {}.",
            graph.services.len(),
            graph.edge_count(),
            graph.window_text
        ),
    );
    out.push_str(
        "# A first model: check it against what you know, then fill in what
# traces cannot tell, on the lines marked \"fill in\":
#   - how many instances run and the availability of one (`instances`,
#     `availability`);
#   - what one instance can carry (`capacity`): `load` is written commented
#     out with the measured rate, and comes into the model with `capacity`;
#   - recovery targets of the datastores (`recovery`);
#   - which calls a caller can do without: every traced call is written
#     required; add `degradable: true` where the caller still works.
# Loads are requests per second averaged over the window, not peaks. For a
# peak, import counts of the busiest hour, or take the highest 5-minute
# rate: max_over_time(sum by (server) (rate(
#   traces_service_graph_request_total[5m]))[7d:5m]).
# Success ratios are of calls, not availability: an error is not an outage.

",
    );
    preamble(&mut out, &header.system);

    let roots = graph.roots();
    let entrypoints = if !header.entrypoints.is_empty() {
        wrapped(&mut out, "Entrypoints: from `--entrypoint`.");
        header.entrypoints.clone()
    } else if roots.is_empty() {
        wrapped(
            &mut out,
            "Entrypoints: every service is called by another in the traces, so all are listed: keep the ones users call.",
        );
        graph.services.keys().cloned().collect()
    } else {
        wrapped(
            &mut out,
            "Entrypoints: the services nothing calls in the traces.",
        );
        roots
    };
    let list: Vec<String> = entrypoints.iter().map(|n| scalar(n)).collect();
    line(
        &mut out,
        0,
        &format!("entrypoints: [{}]", list.join(", ")),
        "",
    );
    out.push('\n');

    out.push_str("components:\n");
    for (index, (name, service)) in graph.services.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        component_text(&mut out, graph, (name, service), Indent::IMPORT, &|n| {
            n.to_owned()
        });
    }
    out
}

/// Where a component's lines start and how much deeper each level goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Indent {
    /// The column of the component's name.
    pub key: usize,
    /// The columns one level of the block adds.
    pub step: usize,
}

impl Indent {
    /// What `import traces` writes: names at 2, two more per level.
    pub const IMPORT: Indent = Indent { key: 2, step: 2 };
}

/// One component's lines: `name` as the model names it, the service it
/// is, at `indent`; `component` names a callee as the model does.
pub(super) fn component_text(
    out: &mut String,
    graph: &Graph,
    (name, service): (&str, &Service),
    indent: Indent,
    component: &dyn Fn(&str) -> String,
) {
    let from = if service.traced == name {
        String::new()
    } else {
        format!("`{}` in the traces", service.traced)
    };
    let (key, inner) = (indent.key, indent.key + indent.step);
    line(out, key, &format!("{}:", scalar(name)), &from);
    let datastore = is_database_image(name) || is_database_image(&service.traced);
    if datastore {
        line(
            out,
            inner,
            "kind: datastore",
            "the name of a well-known database",
        );
    } else {
        line(out, inner, "kind: service", "");
    }
    line(
        out,
        inner,
        "# instances: N",
        "fill in: traces do not count instances",
    );
    line(
        out,
        inner,
        "# availability: 99.9%",
        "fill in: availability of one instance",
    );
    line(
        out,
        inner,
        "# capacity: N",
        "fill in: what one instance can carry",
    );
    match service.load(graph.window) {
        Some(rate) => line(
            out,
            inner,
            &format!("# load: {}", number(rate)),
            &load_reason(service, graph),
        ),
        None => line(
            out,
            inner,
            "# load: N",
            "fill in: nothing in the traces calls it, so its request rate is not in them",
        ),
    }
    if datastore {
        line(
            out,
            inner,
            "# recovery: {rto: 1h, rpo: 5m}",
            "fill in: recovery targets",
        );
    }
    if service.calls.is_empty() {
        return;
    }
    line(out, inner, "depends_on:", "");
    for (target, call) in &service.calls {
        let entry = format!("- {}", edge_entry(&component(target), call, false));
        line(
            out,
            inner + indent.step,
            &entry,
            &call_reason(name, call, graph),
        );
    }
}

/// A `depends_on` entry for a measured call to `target`: its name, or
/// `{target: …, calls: N}` when the calls per request are known; in JSON
/// when `json`.
pub(super) fn edge_entry(target: &str, call: &Call, json: bool) -> String {
    let name = if json {
        serde_json::Value::from(target).to_string()
    } else {
        scalar(target)
    };
    match (call.per_request, json) {
        (Some(per), false) => format!("{{target: {name}, calls: {}}}", number(per)),
        (Some(per), true) => format!("{{\"target\": {name}, \"calls\": {}}}", number(per)),
        (None, _) => name,
    }
}

/// Why a load is what it is.
pub fn load_reason(service: &Service, graph: &Graph) -> String {
    format!(
        "measured: {} calls in {}, a window average, not a peak; uncomment with `capacity`",
        number(service.received),
        graph.window_text
    )
}

/// What was measured on a call, for its comment.
pub fn call_reason(caller: &str, call: &Call, graph: &Graph) -> String {
    let mut parts = vec![format!(
        "{} calls in {}",
        number(call.count),
        graph.window_text
    )];
    if call.per_request.is_none() {
        parts.push(format!(
            "calls per request unknown: {caller}'s own rate is not in the traces"
        ));
    }
    if let Some(success) = call.success {
        parts.push(format!("{} without error", percent(success)));
    }
    if let Some(p99) = call.p99 {
        parts.push(format!(
            "p99 ≤ {}: a starting point for `timeout`",
            duration(p99)
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
impl Graph {
    /// A graph of `(caller, target, calls)` counted over one hour: the
    /// shared fixture of the drift and merge tests.
    pub(crate) fn from_counts(edges: &[(&str, &str, f64)]) -> Self {
        let mut observed = Observed::default();
        for (a, b, n) in edges {
            observed.links.insert(
                ((*a).to_owned(), (*b).to_owned()),
                super::traces::Link {
                    calls: *n,
                    ..super::traces::Link::default()
                },
            );
        }
        Self::new(&observed, 3600.0, "1h")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(number(100.0), "100");
        // 100 calls in 3600 s = 0.027777… per second.
        assert_eq!(number(100.0 / 3600.0), "0.02778");
        assert_eq!(number(1400.0 / 100.0), "14");
        assert_eq!(number(1.0 / 3.0), "0.3333");
        assert_eq!(number(1234.5678), "1235");
        assert_eq!(duration(0.25), "250ms");
        assert_eq!(duration(2.5), "2.5s");
        assert_eq!(percent(0.985), "98.5%");
    }
}
