//! Kubernetes manifests to the few objects the importer uses: workloads
//! (Deployments, StatefulSets, DaemonSets), Services, autoscalers,
//! disruption budgets, ConfigMaps and Ingress backends. Everything else is
//! counted by kind and skipped. Reading never fails on an odd value: a field
//! of the wrong shape is read as absent, and what matters is said in a note.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Note, Origin, Source};
use crate::model::Problem;
use crate::model::load::{self, Node, Value};
use crate::model::span::Span;

/// The kinds of workload that become components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkloadKind {
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` DaemonSet.
    DaemonSet,
}

impl WorkloadKind {
    /// The kind as manifests write it.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
        }
    }

    /// Whether a manifest kind is one of the workloads.
    pub fn is_workload(kind: &str) -> bool {
        Self::from_kind(kind).is_some()
    }

    fn from_kind(kind: &str) -> Option<Self> {
        match kind {
            "Deployment" => Some(WorkloadKind::Deployment),
            "StatefulSet" => Some(WorkloadKind::StatefulSet),
            "DaemonSet" => Some(WorkloadKind::DaemonSet),
            _ => None,
        }
    }
}

/// What `spec.replicas` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replicas {
    /// A count.
    Count(u32),
    /// Not written: Kubernetes runs one.
    Unset,
    /// Written, but not a count (the text as written).
    Unreadable(String),
}

/// How a workload's pods are spread over one topology key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spread {
    /// The manifest field that spreads them.
    pub by: &'static str,
    /// Whether the scheduler must (`true`) or only tries to (`false`).
    pub required: bool,
}

/// Where a workload keeps its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// No volume that holds data.
    None,
    /// An `emptyDir`: lost when the pod moves.
    EmptyDir,
    /// Persistent volume claims.
    Persistent,
}

/// Where an environment variable's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    /// `value: …`.
    Literal(String),
    /// `valueFrom.configMapKeyRef`.
    ConfigMapKey {
        /// The ConfigMap's name.
        map: String,
        /// The key in it.
        key: String,
    },
}

/// One environment variable of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Env {
    /// The variable's name.
    pub name: String,
    /// Its value.
    pub value: EnvValue,
    /// Where it is written.
    pub span: Span,
}

/// A container or init container of a pod template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Container {
    /// Its image, as written.
    pub image: Option<String>,
    /// Whether it is an init container.
    pub init: bool,
    /// Its environment variables.
    pub env: Vec<Env>,
    /// ConfigMaps whose every key becomes a variable (`envFrom`).
    pub env_from: Vec<(String, Span)>,
    /// Its arguments and command, as written.
    pub args: Vec<(String, Span)>,
    /// Its `ports`: `containerPort` (when a number) and `name`.
    pub ports: Vec<(Option<u32>, Option<String>)>,
}

/// A Deployment, StatefulSet or DaemonSet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// Which kind.
    pub kind: WorkloadKind,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when written.
    pub namespace: Option<String>,
    /// `spec.replicas`.
    pub replicas: Replicas,
    /// The pod template's labels.
    pub labels: BTreeMap<String, String>,
    /// Containers and init containers.
    pub containers: Vec<Container>,
    /// Spread over zones, when it is.
    pub zone_spread: Option<Spread>,
    /// Spread over nodes, when it is.
    pub host_spread: Option<Spread>,
    /// Where it keeps data.
    pub storage: Storage,
    /// The service mesh whose sidecar its pod template asks for (by its
    /// annotations or labels: `sidecar.istio.io/…`, `linkerd.io/…`,
    /// `consul.hashicorp.com/connect-…`), when one does.
    pub mesh: Option<&'static str>,
    /// Where it is written.
    pub origin: Origin,
}

/// The mesh a pod template annotation or label key belongs to.
fn mesh_of(key: &str) -> Option<&'static str> {
    if key.starts_with("sidecar.istio.io/") || key.starts_with("istio.io/") {
        Some("Istio")
    } else if key.starts_with("linkerd.io/") || key.starts_with("config.linkerd.io/") {
        Some("Linkerd")
    } else if key.starts_with("consul.hashicorp.com/connect") {
        Some("Consul Connect")
    } else {
        None
    }
}

/// A Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when written.
    pub namespace: Option<String>,
    /// `spec.selector`; empty for a Service without one.
    pub selector: BTreeMap<String, String>,
    /// `spec.type`, when written.
    pub service_type: Option<String>,
    /// `spec.externalName`, when written.
    pub external_name: Option<String>,
    /// Where it is written.
    pub origin: Origin,
}

/// A HorizontalPodAutoscaler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Autoscaler {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when written.
    pub namespace: Option<String>,
    /// `spec.scaleTargetRef.kind`.
    pub target_kind: String,
    /// `spec.scaleTargetRef.name`.
    pub target_name: String,
    /// `spec.minReplicas` (Kubernetes defaults it to 1).
    pub min_replicas: Option<u32>,
    /// `spec.maxReplicas`.
    pub max_replicas: Option<u32>,
    /// Where it is written.
    pub origin: Origin,
}

/// An absolute number of pods or a percentage of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    /// A number of pods.
    Count(u32),
    /// A percentage of the pods.
    Percent(u32),
}

/// A PodDisruptionBudget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisruptionBudget {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when written.
    pub namespace: Option<String>,
    /// `spec.selector.matchLabels`.
    pub selector: BTreeMap<String, String>,
    /// Whether the selector also has `matchExpressions` (not evaluated).
    pub expressions: bool,
    /// `spec.minAvailable`.
    pub min_available: Option<Amount>,
    /// `spec.maxUnavailable`.
    pub max_unavailable: Option<Amount>,
    /// Where it is written.
    pub origin: Origin,
}

/// A ConfigMap's string data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigMap {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when written.
    pub namespace: Option<String>,
    /// `data`, by key.
    pub data: BTreeMap<String, String>,
}

/// A Service that an Ingress sends traffic to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngressBackend {
    /// The Ingress's name.
    pub ingress: String,
    /// The Ingress's namespace, when written.
    pub namespace: Option<String>,
    /// The backend Service's name.
    pub service: String,
}

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub struct Manifests {
    /// Workloads, in input order, later duplicates replacing earlier ones.
    pub workloads: Vec<Workload>,
    /// Services.
    pub services: Vec<Service>,
    /// HorizontalPodAutoscalers.
    pub autoscalers: Vec<Autoscaler>,
    /// PodDisruptionBudgets.
    pub budgets: Vec<DisruptionBudget>,
    /// ConfigMaps.
    pub config_maps: Vec<ConfigMap>,
    /// Ingress backends.
    pub ingress_backends: Vec<IngressBackend>,
    /// Every namespace the inputs name (`metadata.namespace`, Namespace objects).
    pub namespaces: BTreeSet<String>,
    /// Objects read, by kind.
    pub kinds: BTreeMap<String, usize>,
    /// Documents that are not manifests (or Helm templates): skipped when
    /// other inputs give workloads, fatal otherwise.
    pub rejected: Vec<(usize, Problem)>,
    /// YAML that cannot be read at all: always fatal.
    pub fatal: Vec<(usize, Problem)>,
    /// What the user should know about what was read.
    pub notes: Vec<Note>,
}

/// Reads every document of every source.
pub fn read(sources: &[Source]) -> Manifests {
    let mut manifests = Manifests::default();
    let mut seen = Seen::default();
    for (index, source) in sources.iter().enumerate() {
        let mut reader = Reader {
            source: index,
            text: &source.text,
            out: &mut manifests,
            seen: &mut seen,
        };
        reader.source_text();
    }
    // Workloads given again were replaced: the later one is at its own
    // place in input order, the earlier one is dropped.
    let mut live = seen.replaced.iter();
    manifests
        .workloads
        .retain(|_| !live.next().copied().unwrap_or(false));
    manifests.config_maps = last_of_each(std::mem::take(&mut manifests.config_maps));
    manifests
}

/// The workloads read so far, by kind, name and namespace, so a workload
/// given twice is found in one step (a scan of all of them per workload
/// was quadratic: 20,000 workloads took 2 s), and which were replaced.
#[derive(Default)]
struct Seen {
    at: HashMap<(WorkloadKind, String, Option<String>), usize>,
    replaced: Vec<bool>,
}

/// The last ConfigMap of each name and namespace, in the order of those last
/// ones: a later duplicate replaces an earlier one. One pass over the list
/// (dropping the earlier copy at each push was quadratic: 20,000 maps took
/// seconds).
fn last_of_each(maps: Vec<ConfigMap>) -> Vec<ConfigMap> {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<ConfigMap> = maps
        .into_iter()
        .rev()
        .filter(|m| seen.insert((m.name.clone(), m.namespace.clone())))
        .collect();
    kept.reverse();
    kept
}

/// One source being read.
struct Reader<'a> {
    source: usize,
    text: &'a str,
    out: &'a mut Manifests,
    seen: &'a mut Seen,
}

/// How deep `List` objects may nest (a `List` of `List`s …).
const MAX_LIST_DEPTH: usize = 8;

impl Reader<'_> {
    fn source_text(&mut self) {
        let documents = match load::parse_documents(self.text) {
            Ok(documents) => documents,
            Err(problem) => {
                match template_expression(self.text) {
                    Some(span) => self.reject(Problem::helm_template(span)),
                    None => self.out.fatal.push((self.source, problem)),
                }
                return;
            }
        };
        if documents.is_empty() {
            self.note(Span::new(0, 0), "no YAML document in this file".to_owned());
        }
        for document in &documents {
            // `{{ .Values.x }}` can parse as a mapping used as a key.
            if let Some(span) = complex_key(document) {
                let span = template_expression(self.text).unwrap_or(span);
                self.reject(Problem::helm_template(span));
                return;
            }
        }
        for document in &documents {
            self.object(document, 0);
        }
    }

    fn reject(&mut self, problem: Problem) {
        self.out.rejected.push((self.source, problem));
    }

    fn note(&mut self, span: Span, message: String) {
        self.out.notes.push(Note {
            origin: Some(Origin {
                source: self.source,
                span: span.widen_to_token(self.text),
            }),
            message,
        });
    }

    fn origin(&self, node: &Node) -> Origin {
        Origin {
            source: self.source,
            span: node.span.widen_to_token(self.text),
        }
    }

    /// One Kubernetes object (or a `List` of them).
    fn object(&mut self, node: &Node, depth: usize) {
        let span = node.span.widen_to_token(self.text);
        let Value::Map(_) = node.value else {
            let found = format!("it is {}, not a mapping", node.value.kind());
            self.reject(Problem::not_kubernetes(span, &found));
            return;
        };
        let Some(kind) = get(node, "kind").and_then(text) else {
            self.reject(Problem::not_kubernetes(span, "it has no `kind`"));
            return;
        };
        if get(node, "apiVersion").and_then(text).is_none() {
            self.reject(Problem::not_kubernetes(span, "it has no `apiVersion`"));
            return;
        }
        let kind = kind.to_owned();
        if kind == "List" || (kind.ends_with("List") && get(node, "items").is_some()) {
            self.list(node, &kind, depth);
            return;
        }
        *self.out.kinds.entry(kind.clone()).or_default() += 1;
        let namespace = get_path(node, &["metadata", "namespace"])
            .and_then(text)
            .map(str::to_owned);
        if let Some(namespace) = &namespace {
            self.out.namespaces.insert(namespace.clone());
        }
        let name = get_path(node, &["metadata", "name"]).and_then(|n| self.scalar(n));
        let interesting = WorkloadKind::from_kind(&kind).is_some()
            || matches!(
                kind.as_str(),
                "Service"
                    | "HorizontalPodAutoscaler"
                    | "PodDisruptionBudget"
                    | "ConfigMap"
                    | "Ingress"
                    | "Namespace"
            );
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            if interesting {
                self.note(span, format!("skipped a {kind} without `metadata.name`"));
            }
            return;
        };
        match kind.as_str() {
            "Service" => self.service(node, name, namespace),
            "HorizontalPodAutoscaler" => self.autoscaler(node, name, namespace),
            "PodDisruptionBudget" => self.budget(node, name, namespace),
            "ConfigMap" => self.config_map(node, name, namespace),
            "Ingress" => self.ingress(node, &name, namespace.as_ref()),
            "Namespace" => {
                self.out.namespaces.insert(name);
            }
            _ => {
                if let Some(kind) = WorkloadKind::from_kind(&kind) {
                    self.workload(node, kind, name, namespace);
                }
            }
        }
    }

    fn list(&mut self, node: &Node, kind: &str, depth: usize) {
        let span = node.span.widen_to_token(self.text);
        if depth >= MAX_LIST_DEPTH {
            self.note(
                span,
                format!("skipped a {kind} nested more than {MAX_LIST_DEPTH} deep"),
            );
            return;
        }
        match get(node, "items").map(|n| &n.value) {
            Some(Value::Seq(items)) => {
                for item in items {
                    self.object(item, depth + 1);
                }
            }
            Some(Value::Null) | None => {}
            Some(_) => self.note(
                span,
                format!("skipped a {kind} whose `items` is not a list"),
            ),
        }
    }

    fn workload(
        &mut self,
        node: &Node,
        kind: WorkloadKind,
        name: String,
        namespace: Option<String>,
    ) {
        let spec = get(node, "spec");
        let replicas = match spec.and_then(|s| get(s, "replicas")) {
            None
            | Some(Node {
                value: Value::Null, ..
            }) => Replicas::Unset,
            Some(n) => match count(n) {
                Some(c) => Replicas::Count(c),
                None => Replicas::Unreadable(
                    self.scalar(n).unwrap_or_else(|| n.value.kind().to_owned()),
                ),
            },
        };
        let template = spec.and_then(|s| get(s, "template"));
        let labels = template
            .and_then(|t| get_path(t, &["metadata", "labels"]))
            .map(|l| self.labels(l))
            .unwrap_or_default();
        let annotations = template
            .and_then(|t| get_path(t, &["metadata", "annotations"]))
            .map(|a| self.labels(a))
            .unwrap_or_default();
        let mesh = annotations
            .keys()
            .chain(labels.keys())
            .find_map(|key| mesh_of(key));
        let pod = template.and_then(|t| get(t, "spec"));
        let mut containers = Vec::new();
        for (key, init) in [("initContainers", true), ("containers", false)] {
            for container in items(pod.and_then(|p| get(p, key))) {
                containers.push(self.container(container, init));
            }
        }
        let mut storage = match pod.map(|p| volumes(items(get(p, "volumes")))) {
            Some(storage) => storage,
            None => Storage::None,
        };
        if kind == WorkloadKind::StatefulSet
            && !items(spec.and_then(|s| get(s, "volumeClaimTemplates"))).is_empty()
        {
            storage = Storage::Persistent;
        }
        let (zone_spread, host_spread) = pod.map_or((None, None), |p| spreads(p, &labels));
        let workload = Workload {
            kind,
            name,
            namespace,
            replicas,
            labels,
            containers,
            zone_spread,
            host_spread,
            storage,
            mesh,
            origin: self.origin(node),
        };
        let key = (
            workload.kind,
            workload.name.clone(),
            workload.namespace.clone(),
        );
        let at = self.out.workloads.len();
        if let Some(before) = self.seen.at.insert(key, at) {
            self.note(
                workload.origin.span,
                format!(
                    "{} `{}` is given twice; the later one is used, as `kubectl apply` would",
                    kind.as_str(),
                    workload.name
                ),
            );
            self.seen.replaced[before] = true;
        }
        self.seen.replaced.push(false);
        self.out.workloads.push(workload);
    }

    fn container(&self, node: &Node, init: bool) -> Container {
        let mut container = Container {
            image: get(node, "image").and_then(|n| self.scalar(n)),
            init,
            ..Container::default()
        };
        for var in items(get(node, "env")) {
            let Some(name) = get(var, "name").and_then(|n| self.scalar(n)) else {
                continue;
            };
            let value = if let Some(value) = get(var, "value").and_then(|n| self.scalar(n)) {
                EnvValue::Literal(value)
            } else if let Some(reference) = get_path(var, &["valueFrom", "configMapKeyRef"]) {
                let map = get(reference, "name").and_then(|n| self.scalar(n));
                let key = get(reference, "key").and_then(|n| self.scalar(n));
                match (map, key) {
                    (Some(map), Some(key)) => EnvValue::ConfigMapKey { map, key },
                    _ => continue,
                }
            } else {
                continue;
            };
            container.env.push(Env {
                name,
                value,
                span: var.span.widen_to_token(self.text),
            });
        }
        for source in items(get(node, "envFrom")) {
            if let Some(map) =
                get_path(source, &["configMapRef", "name"]).and_then(|n| self.scalar(n))
            {
                container
                    .env_from
                    .push((map, source.span.widen_to_token(self.text)));
            }
        }
        for port in items(get(node, "ports")) {
            let number = get(port, "containerPort").and_then(count);
            let name = get(port, "name").and_then(|n| self.scalar(n));
            container.ports.push((number, name));
        }
        for key in ["command", "args"] {
            for arg in items(get(node, key)) {
                if let Some(text) = self.scalar(arg) {
                    container
                        .args
                        .push((text, arg.span.widen_to_token(self.text)));
                }
            }
        }
        container
    }

    fn service(&mut self, node: &Node, name: String, namespace: Option<String>) {
        let spec = get(node, "spec");
        let service = Service {
            selector: spec
                .and_then(|s| get(s, "selector"))
                .map(|s| self.labels(s))
                .unwrap_or_default(),
            service_type: spec
                .and_then(|s| get(s, "type"))
                .and_then(text)
                .map(str::to_owned),
            external_name: spec
                .and_then(|s| get(s, "externalName"))
                .and_then(text)
                .map(str::to_owned),
            name,
            namespace,
            origin: self.origin(node),
        };
        self.out
            .services
            .retain(|s| !(s.name == service.name && s.namespace == service.namespace));
        self.out.services.push(service);
    }

    fn autoscaler(&mut self, node: &Node, name: String, namespace: Option<String>) {
        let spec = get(node, "spec");
        let target = spec.and_then(|s| get(s, "scaleTargetRef"));
        let target_kind = target
            .and_then(|t| get(t, "kind"))
            .and_then(|n| self.scalar(n));
        let target_name = target
            .and_then(|t| get(t, "name"))
            .and_then(|n| self.scalar(n));
        let (Some(target_kind), Some(target_name)) = (target_kind, target_name) else {
            self.note(
                node.span,
                format!("HorizontalPodAutoscaler `{name}` names no `scaleTargetRef`; skipped"),
            );
            return;
        };
        self.out.autoscalers.push(Autoscaler {
            name,
            namespace,
            target_kind,
            target_name,
            min_replicas: spec.and_then(|s| get(s, "minReplicas")).and_then(count),
            max_replicas: spec.and_then(|s| get(s, "maxReplicas")).and_then(count),
            origin: self.origin(node),
        });
    }

    fn budget(&mut self, node: &Node, name: String, namespace: Option<String>) {
        let spec = get(node, "spec");
        let selector = spec.and_then(|s| get(s, "selector"));
        self.out.budgets.push(DisruptionBudget {
            name,
            namespace,
            selector: selector
                .and_then(|s| get(s, "matchLabels"))
                .map(|l| self.labels(l))
                .unwrap_or_default(),
            expressions: selector
                .and_then(|s| get(s, "matchExpressions"))
                .is_some_and(|e| !items(Some(e)).is_empty()),
            min_available: spec
                .and_then(|s| get(s, "minAvailable"))
                .and_then(|n| self.amount(n)),
            max_unavailable: spec
                .and_then(|s| get(s, "maxUnavailable"))
                .and_then(|n| self.amount(n)),
            origin: self.origin(node),
        });
    }

    fn config_map(&mut self, node: &Node, name: String, namespace: Option<String>) {
        let data = match get(node, "data").map(|d| &d.value) {
            Some(Value::Map(pairs)) => pairs
                .iter()
                .filter_map(|(k, v)| Some((self.scalar(k)?, self.scalar(v)?)))
                .collect(),
            _ => BTreeMap::new(),
        };
        // Duplicates are dropped once every source is read (`read`).
        self.out.config_maps.push(ConfigMap {
            name,
            namespace,
            data,
        });
    }

    fn ingress(&mut self, node: &Node, name: &str, namespace: Option<&String>) {
        let spec = get(node, "spec");
        let mut backends: Vec<&Node> = Vec::new();
        if let Some(default) =
            spec.and_then(|s| get(s, "defaultBackend").or_else(|| get(s, "backend")))
        {
            backends.push(default);
        }
        for rule in items(spec.and_then(|s| get(s, "rules"))) {
            for path in items(get_path(rule, &["http", "paths"])) {
                if let Some(backend) = get(path, "backend") {
                    backends.push(backend);
                }
            }
        }
        for backend in backends {
            // networking.k8s.io/v1 `service.name`, or the older `serviceName`.
            let service = get_path(backend, &["service", "name"])
                .or_else(|| get(backend, "serviceName"))
                .and_then(|n| self.scalar(n));
            if let Some(service) = service {
                self.out.ingress_backends.push(IngressBackend {
                    ingress: name.to_owned(),
                    namespace: namespace.cloned(),
                    service,
                });
            }
        }
    }

    /// A scalar as text: strings as resolved, numbers and booleans as written.
    fn scalar(&self, node: &Node) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                Some(node.span.text(self.text).trim().to_owned())
            }
            Value::Null | Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// A mapping of labels; entries that are not scalars are left out.
    fn labels(&self, node: &Node) -> BTreeMap<String, String> {
        match &node.value {
            Value::Map(pairs) => pairs
                .iter()
                .filter_map(|(k, v)| Some((self.scalar(k)?, self.scalar(v)?)))
                .collect(),
            _ => BTreeMap::new(),
        }
    }

    /// An int-or-percent: `2` or `"50%"`.
    fn amount(&self, node: &Node) -> Option<Amount> {
        if let Some(n) = count(node) {
            return Some(Amount::Count(n));
        }
        let text = self.scalar(node)?;
        let text = text.trim();
        match text.strip_suffix('%') {
            Some(percent) => percent.trim().parse().ok().map(Amount::Percent),
            None => text.parse().ok().map(Amount::Count),
        }
    }
}

/// The value under `key` in a mapping (the last one when written twice, as
/// Kubernetes reads it).
pub fn get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    match &node.value {
        Value::Map(pairs) => pairs
            .iter()
            .rev()
            .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key))
            .map(|(_, v)| v),
        _ => None,
    }
}

fn get_path<'a>(node: &'a Node, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(node, |node, key| get(node, key))
}

fn text(node: &Node) -> Option<&str> {
    match &node.value {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// The items of a list; nothing for anything else.
fn items(node: Option<&Node>) -> &[Node] {
    match node.map(|n| &n.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

fn count(node: &Node) -> Option<u32> {
    match node.value {
        Value::Int(n) => u32::try_from(n).ok(),
        _ => None,
    }
}

fn volumes(volumes: &[Node]) -> Storage {
    let mut storage = Storage::None;
    for volume in volumes {
        if get(volume, "persistentVolumeClaim").is_some() {
            return Storage::Persistent;
        }
        if get(volume, "emptyDir").is_some() {
            storage = Storage::EmptyDir;
        }
    }
    storage
}

const ZONE_KEYS: &[&str] = &[
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/zone",
];
const HOST_KEYS: &[&str] = &["kubernetes.io/hostname"];

/// Spread over zones and over nodes, from `topologySpreadConstraints` and
/// pod anti-affinity whose label selector takes in the workload's own pods.
fn spreads(pod: &Node, labels: &BTreeMap<String, String>) -> (Option<Spread>, Option<Spread>) {
    let mut terms: Vec<(&Node, &'static str, bool)> = Vec::new();
    for constraint in items(get(pod, "topologySpreadConstraints")) {
        let required = get(constraint, "whenUnsatisfiable")
            .and_then(text)
            .is_none_or(|w| w != "ScheduleAnyway");
        terms.push((constraint, "topologySpreadConstraints", required));
    }
    let anti = get_path(pod, &["affinity", "podAntiAffinity"]);
    for term in items(anti.and_then(|a| get(a, "requiredDuringSchedulingIgnoredDuringExecution"))) {
        terms.push((term, "podAntiAffinity", true));
    }
    for weighted in
        items(anti.and_then(|a| get(a, "preferredDuringSchedulingIgnoredDuringExecution")))
    {
        if let Some(term) = get(weighted, "podAffinityTerm") {
            terms.push((term, "podAntiAffinity", false));
        }
    }
    let mut zone: Option<Spread> = None;
    let mut host: Option<Spread> = None;
    for (term, by, required) in terms {
        if !selects_own_pods(term, labels) {
            continue;
        }
        let Some(key) = get(term, "topologyKey").and_then(text) else {
            continue;
        };
        let slot = if ZONE_KEYS.contains(&key) {
            &mut zone
        } else if HOST_KEYS.contains(&key) {
            &mut host
        } else {
            continue;
        };
        // A required spread outranks a preferred one.
        if slot.as_ref().is_none_or(|s| !s.required && required) {
            *slot = Some(Spread { by, required });
        }
    }
    (zone, host)
}

/// Whether a spread term's `labelSelector.matchLabels` takes in the pod's
/// own labels (a term without `matchLabels` is taken to).
fn selects_own_pods(term: &Node, labels: &BTreeMap<String, String>) -> bool {
    let Some(Value::Map(pairs)) =
        get_path(term, &["labelSelector", "matchLabels"]).map(|n| &n.value)
    else {
        return true;
    };
    pairs.iter().all(|(k, v)| match (&k.value, &v.value) {
        (Value::Str(k), Value::Str(v)) => labels.get(k) == Some(v),
        _ => false,
    })
}

/// The first `{{` outside a comment, where a Helm template expression starts.
fn template_expression(text: &str) -> Option<Span> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim_start().starts_with('#')
            && let Some(at) = line.find("{{")
        {
            let end = line[at..].find("}}").map_or(2, |e| e + 2);
            return Some(Span::new(offset + at, end));
        }
        offset += line.len();
    }
    None
}

/// A mapping or list used as a key, which only Helm's `{{ … }}` produces
/// in practice.
fn complex_key(node: &Node) -> Option<Span> {
    match &node.value {
        Value::Map(pairs) => pairs.iter().find_map(|(k, v)| {
            if matches!(k.value, Value::Map(_) | Value::Seq(_)) {
                Some(k.span)
            } else {
                complex_key(v)
            }
        }),
        Value::Seq(items) => items.iter().find_map(complex_key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_config_map_replaces_an_earlier_one_of_the_same_name_and_namespace() {
        let sources = [Source {
            name: "m.yaml".to_owned(),
            text: r"apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data: {url: old}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: other}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data: {url: new}
"
            .to_owned(),
        }];
        let maps = read(&sources).config_maps;
        // `a` in no namespace is kept once, with the later data, after `b`
        // and `a` in `other` (a different map).
        let keys: Vec<_> = maps
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.namespace.as_deref(),
                    m.data.get("url").map(String::as_str),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("b", None, None),
                ("a", Some("other"), None),
                ("a", None, Some("new"))
            ]
        );
    }
}
