//! The objects read from the manifests turned into the model to write: one
//! component per workload, with the reason for every value, so the writer
//! can say where each line comes from. The rules are those of
//! `docs/import.md`; nothing is guessed beyond them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::address::{self, Address, Form};
use super::k8s::{Amount, EnvValue, Manifests, Replicas, Service, Storage, Workload, WorkloadKind};
pub use super::recognise::is_database_image;
use super::recognise::{Role, recognise};
use super::{DEFAULT_ZONES, Note, Options, Origin, Source};
use crate::model::span::Span;

/// The model to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The system's name.
    pub system: String,
    /// Where the inputs came from, for the header.
    pub inputs: String,
    /// Workloads imported, by kind, for the header.
    pub workloads: BTreeMap<&'static str, usize>,
    /// Zones declared as domains (empty when no workload is spread by zone).
    pub zones: Vec<String>,
    /// Whether the zones are placeholders (no `--zones`).
    pub placeholder_zones: bool,
    /// The entrypoints, sorted.
    pub entrypoints: Vec<String>,
    /// Why they are the entrypoints: comment lines.
    pub entry_reasons: Vec<String>,
    /// The components, sorted by name.
    pub components: Vec<Part>,
}

/// One component to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Its name.
    pub name: String,
    /// The workload it comes from (`Deployment web`, `… in namespace shop`).
    pub from: String,
    /// `kind:` and why.
    pub kind: (&'static str, Option<String>),
    /// `instances:` and why; no count for a DaemonSet.
    pub instances: (Option<u32>, String),
    /// Nothing runs (`replicas: 0`): written as `availability: 0%`.
    pub scaled_to_zero: bool,
    /// `min_healthy:` and why; a comment alone when it cannot be written.
    pub min_healthy: Option<(Option<u32>, String)>,
    /// `placement:` (empty when unknown) and why.
    pub placement: (Vec<String>, String),
    /// Whether it holds data (recovery targets to fill in), and where.
    pub datastore: Option<String>,
    /// `plane: control` and why (a discovery service).
    pub control: Option<String>,
    /// Its dependencies, sorted.
    pub edges: Vec<Edge>,
    /// Services it names that no workload here serves: commented out.
    pub absent: Vec<Absent>,
}

/// A dependency to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The components behind the Service (several: `any_of`).
    pub targets: Vec<String>,
    /// Where it is named: variables, `args`, ConfigMap keys.
    pub via: Vec<String>,
}

/// A named Service with no workload behind it in these manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Absent {
    /// The Service's name.
    pub name: String,
    /// Why it is commented out.
    pub why: String,
    /// Where it is named.
    pub via: Vec<String>,
}

/// Builds the draft; what the user should know goes to `notes`.
pub fn draft(
    manifests: &Manifests,
    sources: &[Source],
    options: &Options,
    notes: &mut Vec<Note>,
) -> Draft {
    let zones: Vec<String> = if options.zones.is_empty() {
        DEFAULT_ZONES.iter().map(|z| (*z).to_owned()).collect()
    } else {
        options.zones.clone()
    };
    let zone_spread = manifests.workloads.iter().any(|w| w.zone_spread.is_some());
    let names = component_names(&manifests.workloads, if zone_spread { &zones } else { &[] });
    let selected = selections(manifests);
    let roles: Vec<Role> = manifests.workloads.iter().map(recognise).collect();
    let mut parts: Vec<Part> = Vec::new();
    for (index, workload) in manifests.workloads.iter().enumerate() {
        let (edges, absent) = dependencies(manifests, &names, &selected, index, notes);
        let is_served = selected.iter().any(|(_, ws)| ws.contains(&index));
        let instances = instances(manifests, workload, notes);
        let min_healthy = min_healthy(manifests, workload, instances.0);
        let placement = placement(
            workload,
            instances.0.unwrap_or(1).max(1),
            zone_spread,
            &zones,
        );
        parts.push(Part {
            name: names[index].clone(),
            from: describe(workload),
            kind: kind(
                &roles[index],
                is_served,
                !edges.is_empty() || !absent.is_empty(),
            ),
            scaled_to_zero: instances.0 == Some(0),
            instances: (instances.0.map(|n| n.max(1)), instances.1),
            min_healthy,
            placement,
            datastore: None,
            control: None,
            edges,
            absent,
        });
    }
    for ((part, workload), role) in parts.iter_mut().zip(&manifests.workloads).zip(&roles) {
        match role {
            Role::Datastore(_) | Role::Queue(_) => {
                part.datastore = Some(storage(workload.storage).to_owned());
            }
            Role::Discovery(_) => {
                part.control =
                    Some("discovery: the services find each other through it".to_owned());
            }
            Role::Tracing(_) | Role::Service => {}
        }
    }
    let served: BTreeSet<usize> = selected
        .iter()
        .flat_map(|(_, ws)| ws.iter().copied())
        .collect();
    super::notes::unseen_calls(manifests, &names, &roles, &parts, served.len(), notes);
    super::notes::zones_unused(options, zone_spread, notes);
    let (entrypoints, entry_reasons) = entrypoints(manifests, &names, &selected, &parts);
    parts.sort_by(|a, b| a.name.cmp(&b.name));
    let mut workloads = BTreeMap::new();
    for workload in &manifests.workloads {
        *workloads.entry(workload.kind.as_str()).or_default() += 1;
    }
    Draft {
        system: {
            let (system, why) = super::notes::system_name(manifests, sources, options);
            if let Some(why) = why {
                notes.push(Note {
                    origin: None,
                    message: why,
                });
            }
            system
        },
        inputs: match sources {
            [one] => one.name.clone(),
            _ => format!("{} files", sources.len()),
        },
        workloads,
        zones: if zone_spread { zones } else { Vec::new() },
        placeholder_zones: options.zones.is_empty(),
        entrypoints,
        entry_reasons,
        components: parts,
    }
}

fn plural(count: u32, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// `Deployment web`, with the namespace when written.
fn describe(workload: &Workload) -> String {
    match &workload.namespace {
        Some(ns) => format!(
            "{} {} in namespace {ns}",
            workload.kind.as_str(),
            workload.name
        ),
        None => format!("{} {}", workload.kind.as_str(), workload.name),
    }
}

/// The longest name an import writes, Kubernetes' own limit: YAML reads a
/// plain key of at most 1,024 characters, and suffixes (`-statefulset`,
/// `.<namespace>`, `-2`) must still fit.
pub const MAX_NAME: usize = 253;

/// A name made to fit the model's rule `[A-Za-z0-9][A-Za-z0-9._-]*`, at
/// most [`MAX_NAME`] characters.
pub fn sanitize(name: &str) -> String {
    let mapped: String = name
        .chars()
        .take(MAX_NAME * 4)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = mapped.trim_start_matches(['.', '_', '-']);
    if trimmed.is_empty() {
        "workload".to_owned()
    } else {
        // ASCII only by now: bytes are characters.
        trimmed[..trimmed.len().min(MAX_NAME)].to_owned()
    }
}

/// Names already given, and for each base the next suffix to try: giving
/// `-2`, `-3` … to names that share a base takes one step each, not a count
/// from 2 every time (10,000 traced names with one base compared 50 million
/// candidates).
#[derive(Debug, Default)]
pub(crate) struct Taken {
    names: HashSet<String>,
    next: HashMap<String, u64>,
}

impl Taken {
    /// The names already taken.
    pub(crate) fn new(names: impl IntoIterator<Item = String>) -> Self {
        Self {
            names: names.into_iter().collect(),
            next: HashMap::new(),
        }
    }

    /// `base`, or `base-N` with the smallest `N` from 2 not taken, and takes
    /// it. A failed try is a name `base-N` taken before: each taken name
    /// fails at most one try (its base and `N` are its own), so the tries
    /// of all claims are linear in the names.
    pub(crate) fn claim(&mut self, base: String) -> String {
        if !self.names.contains(&base) {
            self.names.insert(base.clone());
            return base;
        }
        let n = self.next.entry(base.clone()).or_insert(2);
        let mut name = format!("{base}-{n}");
        while self.names.contains(&name) {
            *n += 1;
            name = format!("{base}-{n}");
        }
        *n += 1;
        self.names.insert(name.clone());
        name
    }
}

/// Component names, by workload index: the sanitized `metadata.name`; names
/// shared by several workloads get `-<kind>` when their kinds differ and
/// `.<namespace>` when their namespaces do; a name still taken (by a
/// declared zone, by `instance`, which is reserved, or by another suffixed
/// name) gets
/// `-2`, `-3` … in input order.
fn component_names(workloads: &[Workload], zones: &[String]) -> Vec<String> {
    let bases: Vec<String> = workloads.iter().map(|w| sanitize(&w.name)).collect();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, base) in bases.iter().enumerate() {
        groups.entry(base).or_default().push(index);
    }
    let mut names: Vec<String> = bases.clone();
    for members in groups.values().filter(|m| m.len() > 1) {
        let kinds: BTreeSet<WorkloadKind> = members.iter().map(|&i| workloads[i].kind).collect();
        let spaces: BTreeSet<&Option<String>> =
            members.iter().map(|&i| &workloads[i].namespace).collect();
        for &i in members {
            let mut name = bases[i].clone();
            if kinds.len() > 1 {
                name = format!("{name}-{}", workloads[i].kind.as_str().to_lowercase());
            }
            if spaces.len() > 1 {
                let ns = workloads[i].namespace.as_deref().unwrap_or("default");
                name = format!("{name}.{}", sanitize(ns));
            }
            names[i] = name;
        }
    }
    let mut taken = Taken::new(zones.iter().cloned().chain(["instance".to_owned()]));
    names.into_iter().map(|name| taken.claim(name)).collect()
}

/// Whether two namespaces can be the same: equal, or one not written (a
/// manifest without a namespace goes wherever it is applied).
fn same_namespace(a: Option<&String>, b: Option<&String>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// For every Service, the workloads its selector takes in.
fn selections(manifests: &Manifests) -> Vec<(&Service, Vec<usize>)> {
    manifests
        .services
        .iter()
        .map(|service| {
            let workloads = manifests
                .workloads
                .iter()
                .enumerate()
                .filter(|(_, w)| {
                    !service.selector.is_empty()
                        && same_namespace(service.namespace.as_ref(), w.namespace.as_ref())
                        && service
                            .selector
                            .iter()
                            .all(|(k, v)| w.labels.get(k) == Some(v))
                })
                .map(|(i, _)| i)
                .collect();
            (service, workloads)
        })
        .collect()
}

/// One place a workload names something: a value, what to call it in a
/// comment, and where it is written.
struct Mention {
    value: String,
    via: String,
    span: Span,
}

fn mentions(manifests: &Manifests, workload: &Workload, notes: &mut Vec<Note>) -> Vec<Mention> {
    let origin = |span: Span| {
        Some(Origin {
            source: workload.origin.source,
            span,
        })
    };
    let find_map = |name: &str| {
        manifests.config_maps.iter().find(|m| {
            m.name == name && same_namespace(m.namespace.as_ref(), workload.namespace.as_ref())
        })
    };
    let mut out = Vec::new();
    for container in &workload.containers {
        for env in &container.env {
            match &env.value {
                EnvValue::Literal(value) => out.push(Mention {
                    value: value.clone(),
                    via: env.name.clone(),
                    span: env.span,
                }),
                EnvValue::ConfigMapKey { map, key } => match find_map(map).map(|m| m.data.get(key)) {
                    Some(Some(value)) => out.push(Mention {
                        value: value.clone(),
                        via: format!("{} (ConfigMap {map}, key {key})", env.name),
                        span: env.span,
                    }),
                    Some(None) => notes.push(Note {
                        origin: origin(env.span),
                        message: format!(
                            "{}: {} reads key `{key}` of ConfigMap `{map}`, which has no such key",
                            workload.name, env.name
                        ),
                    }),
                    None => notes.push(Note {
                        origin: origin(env.span),
                        message: format!(
                            "{}: {} reads ConfigMap `{map}`, which is not in the inputs; its value was not read",
                            workload.name, env.name
                        ),
                    }),
                },
            }
        }
        for (map, span) in &container.env_from {
            match find_map(map) {
                Some(config) => {
                    for (key, value) in &config.data {
                        out.push(Mention {
                            value: value.clone(),
                            via: format!("{key} (ConfigMap {map})"),
                            span: *span,
                        });
                    }
                }
                None => notes.push(Note {
                    origin: origin(*span),
                    message: format!(
                        "{}: envFrom names ConfigMap `{map}`, which is not in the inputs; its values were not read",
                        workload.name
                    ),
                }),
            }
        }
        for (arg, span) in &container.args {
            out.push(Mention {
                value: arg.clone(),
                via: "args".to_owned(),
                span: *span,
            });
        }
    }
    out
}

/// The Service an address names, seen from `workload`: `Ok(None)` when
/// none does, `Err` when several could.
fn resolve<'a>(
    manifests: &'a Manifests,
    workload: &Workload,
    address: &Address,
) -> Result<Option<&'a Service>, Vec<&'a Service>> {
    let wanted = address.namespace.as_ref().or(workload.namespace.as_ref());
    let candidates: Vec<&Service> = manifests
        .services
        .iter()
        .filter(|s| s.name == address.name)
        .filter(|s| match (&address.namespace, &s.namespace) {
            (Some(n), Some(sn)) => n == sn,
            (Some(n), None) => address.form == Form::ServiceDns || manifests.namespaces.contains(n),
            (None, sn) => same_namespace(sn.as_ref(), workload.namespace.as_ref()),
        })
        .collect();
    if candidates.len() <= 1 {
        return Ok(candidates.first().copied());
    }
    let exact: Vec<&Service> = candidates
        .iter()
        .copied()
        .filter(|s| s.namespace.as_ref() == wanted)
        .collect();
    match exact.as_slice() {
        [one] => Ok(Some(one)),
        _ => Err(candidates),
    }
}

/// Records that `via` names `name`, a Service no workload here serves (for
/// the reason `why` gives, kept from the first mention).
fn add_absent(
    absent: &mut BTreeMap<String, (String, Vec<String>)>,
    name: &str,
    why: impl FnOnce() -> String,
    via: &str,
) {
    let entry = absent
        .entry(name.to_owned())
        .or_insert_with(|| (why(), Vec::new()));
    if !entry.1.iter().any(|v| v == via) {
        entry.1.push(via.to_owned());
    }
}

/// The dependencies of workload `index` and the Services it names that no
/// workload here serves.
fn dependencies(
    manifests: &Manifests,
    names: &[String],
    selected: &[(&Service, Vec<usize>)],
    index: usize,
    notes: &mut Vec<Note>,
) -> (Vec<Edge>, Vec<Absent>) {
    let workload = &manifests.workloads[index];
    let mut edges: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    let mut absent: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let note = |notes: &mut Vec<Note>, span: Span, message: String| {
        notes.push(Note {
            origin: Some(Origin {
                source: workload.origin.source,
                span,
            }),
            message,
        });
    };
    for mention in mentions(manifests, workload, notes) {
        for address in address::addresses(&mention.value) {
            let service = match resolve(manifests, workload, &address) {
                Ok(service) => service,
                Err(several) => {
                    let spaces: Vec<&str> = several
                        .iter()
                        .map(|s| s.namespace.as_deref().unwrap_or("(none)"))
                        .collect();
                    note(
                        notes,
                        mention.span,
                        format!(
                            "{}: {} names `{}`, a Service in several namespaces ({}); write the namespace to import it",
                            workload.name,
                            mention.via,
                            address.name,
                            spaces.join(", ")
                        ),
                    );
                    continue;
                }
            };
            let Some(service) = service else {
                if address.form.is_explicit() && address.name != workload.name {
                    add_absent(
                        &mut absent,
                        &address.name,
                        || "Service not deployed by these manifests".to_owned(),
                        &mention.via,
                    );
                    note(
                        notes,
                        mention.span,
                        format!(
                            "{}: {} names `{}`, a Service these manifests do not deploy; written as a commented-out dependency",
                            workload.name, mention.via, address.name
                        ),
                    );
                }
                continue;
            };
            let behind = selected
                .iter()
                .find(|(s, _)| std::ptr::eq(*s, service))
                .map_or(&[][..], |(_, w)| w.as_slice());
            if behind.contains(&index) {
                continue; // its own Service
            }
            if behind.is_empty() {
                let why = match (&service.service_type, &service.external_name) {
                    (Some(t), Some(external)) if t == "ExternalName" => {
                        format!("ExternalName Service: outside the cluster ({external})")
                    }
                    _ => format!(
                        "Service {} selects no workload in these manifests",
                        service.name
                    ),
                };
                note(
                    notes,
                    mention.span,
                    format!(
                        "{}: {} names `{}`: {}; written as a commented-out dependency",
                        workload.name, mention.via, service.name, why
                    ),
                );
                add_absent(&mut absent, &service.name, || why, &mention.via);
                continue;
            }
            let mut targets: Vec<String> = behind.iter().map(|&i| names[i].clone()).collect();
            targets.sort();
            let via = edges.entry(targets).or_default();
            if !via.contains(&mention.via) {
                via.push(mention.via.clone());
            }
        }
    }
    let edges = edges
        .into_iter()
        .map(|(targets, via)| Edge { targets, via })
        .collect();
    let absent = absent
        .into_iter()
        .map(|(name, (why, via))| Absent { name, why, via })
        .collect();
    (edges, absent)
}

/// `kind:` and why.
fn kind(role: &Role, served: bool, calls: bool) -> (&'static str, Option<String>) {
    if let Some((kind, why)) = role.kind() {
        return (kind, Some(why.to_owned()));
    }
    match (served, calls) {
        (true, _) => ("service", None),
        (false, true) => ("client", Some("no Service selects it".to_owned())),
        (false, false) => (
            "worker",
            Some("no Service selects it and it names no Service".to_owned()),
        ),
    }
}

/// `instances:` and why: the autoscaler's minimum, else `replicas`.
fn instances(
    manifests: &Manifests,
    workload: &Workload,
    notes: &mut Vec<Note>,
) -> (Option<u32>, String) {
    if workload.kind == WorkloadKind::DaemonSet {
        return (
            None,
            "fill in: a DaemonSet runs one pod per node; set the node count".to_owned(),
        );
    }
    let autoscalers: Vec<_> = manifests
        .autoscalers
        .iter()
        .filter(|a| {
            a.target_kind == workload.kind.as_str()
                && a.target_name == workload.name
                && same_namespace(a.namespace.as_ref(), workload.namespace.as_ref())
        })
        .collect();
    if let Some(autoscaler) = autoscalers.last() {
        if autoscalers.len() > 1 {
            notes.push(Note {
                origin: Some(autoscaler.origin),
                message: format!(
                    "{}: several HorizontalPodAutoscalers target it; `{}` is used",
                    workload.name, autoscaler.name
                ),
            });
        }
        let min = autoscaler.min_replicas.unwrap_or(1).max(1);
        let max = autoscaler
            .max_replicas
            .map_or_else(String::new, |m| format!(", maxReplicas {m}"));
        let given = autoscaler.min_replicas.map_or_else(
            || "minReplicas not set: 1".to_owned(),
            |m| format!("minReplicas {m}"),
        );
        return (
            Some(min),
            format!("HorizontalPodAutoscaler {}: {given}{max}", autoscaler.name),
        );
    }
    match &workload.replicas {
        Replicas::Count(n) => (Some(*n), format!("replicas: {n}")),
        Replicas::Unset => (Some(1), "replicas not set: Kubernetes runs 1".to_owned()),
        Replicas::Unreadable(text) => (
            Some(1),
            format!(
                "fill in: replicas `{}` is not a number",
                crate::model::error::printable(text)
            ),
        ),
    }
}

/// `min_healthy` from the PodDisruptionBudget that selects the workload.
fn min_healthy(
    manifests: &Manifests,
    workload: &Workload,
    instances: Option<u32>,
) -> Option<(Option<u32>, String)> {
    let budget = manifests.budgets.iter().rev().find(|b| {
        !b.selector.is_empty()
            && same_namespace(b.namespace.as_ref(), workload.namespace.as_ref())
            && b.selector
                .iter()
                .all(|(k, v)| workload.labels.get(k) == Some(v))
    })?;
    let (field, amount) = match (budget.min_available, budget.max_unavailable) {
        (Some(amount), _) => ("minAvailable", amount),
        (None, Some(amount)) => ("maxUnavailable", amount),
        (None, None) => return None,
    };
    let written = match amount {
        Amount::Count(n) => n.to_string(),
        Amount::Percent(p) => format!("{p}%"),
    };
    let source = format!("PodDisruptionBudget {}: {field} {written}", budget.name);
    let Some(instances) = instances.filter(|&n| n > 0) else {
        return Some((
            None,
            format!("fill in once `instances` is known ({source})"),
        ));
    };
    // Kubernetes rounds a percentage up, for both fields.
    let of = |amount: Amount| match amount {
        Amount::Count(n) => n,
        Amount::Percent(p) => {
            let p = u64::from(p.min(100));
            u32::try_from((u64::from(instances) * p).div_ceil(100)).unwrap_or(instances)
        }
    };
    let healthy = if field == "minAvailable" {
        of(amount)
    } else {
        instances.saturating_sub(of(amount))
    };
    if healthy == 0 {
        return Some((None, format!("{source}: every pod may be disrupted")));
    }
    if healthy > instances {
        return Some((
            Some(instances),
            format!("{source}, more than the {instances} instance(s): capped"),
        ));
    }
    Some((Some(healthy), source))
}

/// `placement:` and why.
fn placement(
    workload: &Workload,
    instances: u32,
    zones_declared: bool,
    zones: &[String],
) -> (Vec<String>, String) {
    let how = |spread: &super::k8s::Spread| {
        format!(
            "{}{}",
            spread.by,
            if spread.required { "" } else { ", preferred" }
        )
    };
    if let Some(spread) = &workload.zone_spread
        && zones_declared
    {
        let count = usize::try_from(instances)
            .unwrap_or(usize::MAX)
            .min(zones.len());
        let placed = zones[..count].to_vec();
        let share = if count < zones.len() {
            format!(
                " ({} in {count} of the {} zones)",
                plural(instances, "instance"),
                zones.len()
            )
        } else {
            String::new()
        };
        return (
            placed,
            format!(
                "spread by zone ({}); assumed even across the declared zones{share}",
                how(spread)
            ),
        );
    }
    let why = match &workload.host_spread {
        Some(spread) => format!(
            "placement unknown: spread over nodes ({}), not by zone",
            how(spread)
        ),
        None => "placement unknown: the manifests spread it neither by zone nor by node".to_owned(),
    };
    (Vec::new(), why)
}

fn storage(storage: Storage) -> &'static str {
    match storage {
        Storage::None => "no volume in the manifest",
        Storage::EmptyDir => "data in an emptyDir volume: lost when the pod moves",
        Storage::Persistent => "data on persistent volume claims",
    }
}

/// The entrypoints, and a comment line for each reason.
fn entrypoints(
    manifests: &Manifests,
    names: &[String],
    selected: &[(&Service, Vec<usize>)],
    parts: &[Part],
) -> (Vec<String>, Vec<String>) {
    // Exposed outside the cluster: LoadBalancer and NodePort Services, Ingress backends.
    let mut exposed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (service, workloads) in selected {
        let how = match service.service_type.as_deref() {
            Some(t @ ("LoadBalancer" | "NodePort")) => format!("Service {} ({t})", service.name),
            _ => match manifests.ingress_backends.iter().find(|b| {
                b.service == service.name
                    && same_namespace(b.namespace.as_ref(), service.namespace.as_ref())
            }) {
                Some(backend) => format!("Ingress {} (Service {})", backend.ingress, service.name),
                None => continue,
            },
        };
        for &w in workloads {
            let reasons = exposed.entry(names[w].clone()).or_default();
            if !reasons.contains(&how) {
                reasons.push(how.clone());
            }
        }
    }
    if !exposed.is_empty() {
        let mut reasons = vec!["the workloads exposed outside the cluster.".to_owned()];
        for (name, how) in &exposed {
            reasons.push(format!("{name}: {}", how.join(", ")));
        }
        return (exposed.into_keys().collect(), reasons);
    }
    let called: BTreeSet<&str> = parts
        .iter()
        .flat_map(|p| {
            p.edges
                .iter()
                .flat_map(|e| e.targets.iter().map(String::as_str))
        })
        .collect();
    let served: BTreeSet<&str> = selected
        .iter()
        .flat_map(|(_, ws)| ws.iter().map(|&w| names[w].as_str()))
        .collect();
    // Users do not call a database, a queue, a discovery service or a
    // tracer: those are left out of the guess while anything else is left.
    let infrastructure =
        |p: &Part| matches!(p.kind.0, "datastore" | "queue" | "discovery" | "tracing");
    let mut roots: Vec<&Part> = parts
        .iter()
        .filter(|p| !called.contains(p.name.as_str()))
        .collect();
    let mut left_out: Vec<String> = Vec::new();
    if roots.iter().any(|p| !infrastructure(p)) {
        left_out = roots
            .iter()
            .filter(|p| infrastructure(p))
            .map(|p| p.name.clone())
            .collect();
        roots.retain(|p| !infrastructure(p));
    }
    let served_roots: Vec<String> = roots
        .iter()
        .filter(|p| served.contains(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect();
    let (mut list, reason) = if !served_roots.is_empty() {
        (
            served_roots,
            "no workload is exposed outside the cluster (by a LoadBalancer or NodePort Service, or an Ingress), so these are the ones a Service selects and nothing here calls.",
        )
    } else if !roots.is_empty() && served.is_empty() {
        (
            roots.iter().map(|p| p.name.clone()).collect(),
            "no Service selects any workload, so these are the ones nothing here calls.",
        )
    } else if !roots.is_empty() {
        (
            roots.iter().map(|p| p.name.clone()).collect(),
            "no workload is exposed outside the cluster, and every one a Service selects has callers here, so these are the ones nothing here calls.",
        )
    } else {
        (
            parts.iter().map(|p| p.name.clone()).collect(),
            "every workload is called by another, so all are listed: keep the ones users call.",
        )
    };
    list.sort();
    let mut reasons = vec![reason.to_owned()];
    if !left_out.is_empty() {
        reasons.push(format!(
            "Left out, as users do not call them (databases, queues, discovery, tracing): {}.",
            left_out.join(", ")
        ));
    }
    (list, reasons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::units::is_name;

    #[test]
    fn names_are_made_valid() {
        assert_eq!(sanitize("web"), "web");
        assert_eq!(sanitize("web api/v2"), "web-api-v2");
        assert_eq!(sanitize("--x"), "x");
        assert_eq!(sanitize("ü"), "workload");
        assert!(is_name(&sanitize("..")));
        // Kubernetes' limit, far below YAML's 1,024 for a plain key.
        assert_eq!(sanitize(&"a".repeat(5_000)).len(), MAX_NAME);
    }
}
