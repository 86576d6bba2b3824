//! `nines import`: a first model written from what a system already
//! describes elsewhere, for the user to complete: Kubernetes manifests
//! (below), or the service graph a tracing backend measured ([`traces`]
//! reads it, [`service_graph`] writes it, [`merge`] adds it to a model).
//!
//! ```text
//! manifest text ──k8s──▶ Manifests ──draft──▶ Draft ──writer──▶ model text
//!   (load::parse_documents)  (objects)   (components, edges,   (YAML with comments
//!                                          entrypoints, notes)   saying what to fill in)
//! ```
//!
//! - [`k8s`] reads every YAML document into the objects the importer uses
//!   (workloads, Services, autoscalers, disruption budgets, ConfigMaps,
//!   Ingresses) and counts the rest;
//! - [`address`] decides which text in an environment variable, argument or
//!   ConfigMap value names a Service;
//! - [`draft`] turns the objects into the model: names, instances,
//!   `min_healthy`, placement, dependencies and entrypoints, each with the
//!   reason it is written;
//! - [`writer`] prints the draft as model text, deterministic and sorted,
//!   with comments where the manifests cannot tell.
//!
//! Nothing here prints: the command line shows the notes, the summary and
//! any problem. The rules are documented in `docs/import.md`.

pub mod address;
pub mod draft;
pub mod json;
pub mod k8s;
pub mod merge;
mod notes;
pub mod recognise;
pub mod service_graph;
pub mod traces;
pub mod writer;

use std::collections::BTreeMap;
use std::fmt;

use crate::model::Problem;
use crate::model::span::Span;

/// One input file.
#[derive(Debug, Clone)]
pub struct Source {
    /// The name shown in notes and diagnostics.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// Where something was read: a source and a span in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Index of the source in the inputs.
    pub source: usize,
    /// The span in that source.
    pub span: Span,
}

/// Something the user should know about the import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Where it comes from, when it comes from one place.
    pub origin: Option<Origin>,
    /// What to know.
    pub message: String,
}

/// The placeholder zones used when `--zones` is not given.
pub const DEFAULT_ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The zones a zone-spread workload is placed across; empty for
    /// [`DEFAULT_ZONES`].
    pub zones: Vec<String>,
    /// The system's name; by default the first namespace, or the first
    /// input's file stem.
    pub system: Option<String>,
}

/// A model written from the inputs.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The model text.
    pub model: String,
    /// What the user should know, in input order.
    pub notes: Vec<Note>,
    /// What was imported and what was skipped.
    pub summary: Summary,
}

/// Why nothing was imported.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Located problems, by source index, in input order.
    pub problems: Vec<(usize, Problem)>,
    /// Whether the inputs hold no workload at all.
    pub no_workload: bool,
}

/// Counts of what was read, for the closing line on standard error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Workloads imported, by kind.
    pub workloads: BTreeMap<&'static str, usize>,
    /// Components written.
    pub components: usize,
    /// Objects read for what they say about the workloads, by kind.
    pub used: BTreeMap<String, usize>,
    /// Objects of other kinds, skipped, by kind.
    pub other: BTreeMap<String, usize>,
    /// Documents skipped because they are not manifests.
    pub rejected: usize,
}

/// What each kind of object is read for.
const USED_FOR: &[(&str, &str)] = &[
    ("Service", "dependencies and entrypoints"),
    ("ConfigMap", "dependencies"),
    ("HorizontalPodAutoscaler", "instances"),
    ("PodDisruptionBudget", "min_healthy"),
    ("Ingress", "entrypoints"),
    ("Namespace", "namespaces"),
];

fn plural(count: usize, kind: &str) -> String {
    if count == 1 {
        format!("1 {kind}")
    } else if kind.ends_with('s') {
        format!("{count} {kind}es")
    } else {
        format!("{count} {kind}s")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total: usize = self.workloads.values().sum();
        let kinds: Vec<String> = self
            .workloads
            .iter()
            .map(|(kind, count)| plural(*count, kind))
            .collect();
        write!(
            f,
            "imported {} ({}) as {}",
            plural(total, "workload"),
            kinds.join(", "),
            plural(self.components, "component")
        )?;
        let mut skipped: Vec<String> = Vec::new();
        for (kind, purpose) in USED_FOR {
            if let Some(&count) = self.used.get(*kind) {
                skipped.push(format!("{} (read for {purpose})", plural(count, kind)));
            }
        }
        let others: usize = self.other.values().sum();
        if others > 0 {
            let list: Vec<String> = self
                .other
                .iter()
                .map(|(kind, count)| format!("{kind} ×{count}"))
                .collect();
            skipped.push(format!(
                "{} of other kinds ({})",
                plural(others, "object"),
                list.join(", ")
            ));
        }
        if self.rejected > 0 {
            skipped.push(if self.rejected == 1 {
                "1 document that is not a Kubernetes manifest".to_owned()
            } else {
                format!(
                    "{} documents that are not Kubernetes manifests",
                    self.rejected
                )
            });
        }
        if !skipped.is_empty() {
            write!(f, "; skipped {}", skipped.join(", "))?;
        }
        Ok(())
    }
}

/// Writes a model from Kubernetes manifests.
///
/// # Errors
/// A [`Failure`] when a file is not YAML, or when no input holds a workload
/// (with the documents that are not manifests, located).
pub fn kubernetes(sources: &[Source], options: &Options) -> Result<Imported, Failure> {
    let manifests = k8s::read(sources);
    if !manifests.fatal.is_empty() || manifests.workloads.is_empty() {
        let mut problems = manifests.fatal;
        problems.extend(manifests.rejected);
        problems.sort_by_key(|(source, problem)| (*source, problem.span.offset));
        return Err(Failure {
            no_workload: manifests.workloads.is_empty(),
            problems,
        });
    }
    let mut notes = manifests.notes.clone();
    for (source, problem) in &manifests.rejected {
        notes.push(Note {
            origin: Some(Origin {
                source: *source,
                span: problem.span,
            }),
            message: format!("skipped: {}", problem.message),
        });
    }
    let draft = draft::draft(&manifests, sources, options, &mut notes);
    notes.sort_by_key(|note| note.origin.map(|o| (o.source, o.span.offset)));
    let mut summary = Summary {
        components: draft.components.len(),
        rejected: manifests.rejected.len(),
        ..Summary::default()
    };
    for workload in &manifests.workloads {
        *summary.workloads.entry(workload.kind.as_str()).or_default() += 1;
    }
    for (kind, &count) in &manifests.kinds {
        if k8s::WorkloadKind::is_workload(kind) {
            continue;
        }
        if USED_FOR.iter().any(|(used, _)| used == kind) {
            summary.used.insert(kind.clone(), count);
        } else {
            summary.other.insert(kind.clone(), count);
        }
    }
    Ok(Imported {
        model: writer::write(&draft),
        notes,
        summary,
    })
}

/// How to import traces.
#[derive(Debug, Clone, Default)]
pub struct TraceOptions {
    /// The window the counts cover, in seconds.
    pub window: f64,
    /// The window as written (`1h`), for comments.
    pub window_text: String,
    /// `--entrypoint`: names in the traces or as written in the model.
    pub entrypoints: Vec<String>,
    /// The system's name; by default the first input's file stem.
    pub system: Option<String>,
}

/// A model written from traces.
#[derive(Debug, Clone)]
pub struct TraceImport {
    /// The model text.
    pub model: String,
    /// The graph it was written from (for `--merge`).
    pub graph: service_graph::Graph,
    /// What the user should know, in input order.
    pub notes: Vec<Note>,
    /// One line: what was read.
    pub summary: String,
}

/// Why nothing was imported from traces.
#[derive(Debug, Clone)]
pub enum TraceFailure {
    /// Located problems, by source index, in input order.
    Problems(Vec<(usize, Problem)>),
    /// The inputs hold no call between two services; what the user should
    /// know (calls of a service to itself).
    Empty(Vec<Note>),
    /// An `--entrypoint` names no service of the traces.
    UnknownEntrypoint(String, Vec<String>),
}

/// Reads the service graph from dependency lists and service-graph metrics.
///
/// # Errors
/// A [`TraceFailure`] when an input cannot be read, when the inputs hold no
/// call, or when an `--entrypoint` is not in them.
pub fn observed(
    sources: &[Source],
    options: &TraceOptions,
    notes: &mut Vec<Note>,
) -> Result<service_graph::Graph, TraceFailure> {
    let observed = traces::read(sources, notes).map_err(TraceFailure::Problems)?;
    if observed.links.is_empty() {
        return Err(TraceFailure::Empty(std::mem::take(notes)));
    }
    Ok(service_graph::Graph::new(
        &observed,
        options.window,
        &options.window_text,
    ))
}

/// Writes a model from traces.
///
/// # Errors
/// As [`observed`].
pub fn traces(sources: &[Source], options: &TraceOptions) -> Result<TraceImport, TraceFailure> {
    let mut notes = Vec::new();
    let observed = traces::read(sources, &mut notes).map_err(TraceFailure::Problems)?;
    if observed.links.is_empty() {
        return Err(TraceFailure::Empty(notes));
    }
    let graph = service_graph::Graph::new(&observed, options.window, &options.window_text);
    let mut entrypoints = Vec::new();
    for name in &options.entrypoints {
        match graph.find(name) {
            Some(found) => {
                if !entrypoints.iter().any(|e| e == found) {
                    entrypoints.push(found.to_owned());
                }
            }
            None => {
                return Err(TraceFailure::UnknownEntrypoint(
                    name.clone(),
                    graph.services.keys().cloned().collect(),
                ));
            }
        }
    }
    let mut formats: Vec<&'static str> = observed.formats.iter().map(|f| f.describe()).collect();
    formats.sort_unstable();
    formats.dedup();
    let system = options.system.clone().unwrap_or_else(|| {
        let stem = sources.first().map_or_else(String::new, |s| {
            std::path::Path::new(&s.name)
                .file_stem()
                .map_or_else(|| s.name.clone(), |x| x.to_string_lossy().into_owned())
        });
        draft::sanitize(&stem)
    });
    let header = service_graph::Header {
        system,
        formats,
        inputs: match sources {
            [one] => one.name.clone(),
            _ => format!("{} files", sources.len()),
        },
        entrypoints,
    };
    let model = service_graph::write(&graph, &header);
    notes.sort_by_key(|note| note.origin.map(|o| (o.source, o.span.offset)));
    let summary = format!(
        "imported {} services and {} calls ({}) over {}",
        graph.services.len(),
        graph.edge_count(),
        header.formats.join(", "),
        graph.window_text
    );
    Ok(TraceImport {
        model,
        graph,
        notes,
        summary,
    })
}
