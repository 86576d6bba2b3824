//! One experiment as Chaos Mesh manifests (`chaos-mesh.org/v1alpha1`): a
//! `PodChaos` `pod-kill` per lost domain, per shared-fate group or per
//! component, and a `NetworkChaos` `delay` for a slow component. Several
//! manifests are YAML documents of one file, separated by `---`.
//!
//! Pods are selected by the label `Settings::label` whose value is the
//! component's name, in `Settings::namespace`; a domain by the node label
//! of its kind ([`common::domain_label`]). Each manifest carries the loss
//! (`nines.dev/loss`) and the prediction as JSON (`nines.dev/prediction`)
//! in its annotations. Every string is written double-quoted and escaped
//! ([`common::yaml_string`]), so no name can change the document's shape.

use super::Settings;
use super::common::{self, Yaml};
use crate::analyze::experiments::{Experiment, Injection, Plan};

/// The file name's extension.
pub const EXTENSION: &str = "yaml";

/// The experiment as Chaos Mesh manifests.
#[must_use]
pub fn render(plan: &Plan, experiment: &Experiment, settings: &Settings) -> String {
    let specs = specs(plan, experiment, settings);
    let several = specs.len() > 1;
    let prediction =
        serde_json::to_string(&common::prediction(plan, experiment)).unwrap_or_default();
    let mut out = String::new();
    for (i, (kind, spec, names)) in specs.into_iter().enumerate() {
        let name = common::dns_name(&experiment.slug, several.then_some(i + 1));
        let mut annotations = vec![
            ("nines.dev/loss", Yaml::str(experiment.loss.clone())),
            ("nines.dev/title", Yaml::str(experiment.title.clone())),
            ("nines.dev/prediction", Yaml::str(prediction.clone())),
        ];
        let problems = common::label_problems(names.iter().map(String::as_str));
        if !problems.is_empty() {
            annotations.push(("nines.dev/warnings", Yaml::str(problems.join("; "))));
        }
        let doc = Yaml::map([
            ("apiVersion", Yaml::str("chaos-mesh.org/v1alpha1")),
            ("kind", Yaml::str(kind)),
            (
                "metadata",
                Yaml::map([
                    ("name", Yaml::str(name)),
                    ("namespace", Yaml::str(settings.namespace.clone())),
                    ("annotations", Yaml::map(annotations)),
                ]),
            ),
            ("spec", spec),
        ]);
        out.push_str("---\n");
        out.push_str(&common::yaml(&doc));
    }
    out
}

/// A selector of the pods whose label is one of `components`, in the
/// namespace, on the nodes whose labels are `nodes`.
fn selector(settings: &Settings, components: &[String], nodes: Vec<(String, Yaml)>) -> Yaml {
    let mut entries = vec![(
        "namespaces".to_owned(),
        Yaml::Seq(vec![Yaml::str(settings.namespace.clone())]),
    )];
    if let [one] = components {
        entries.push((
            "labelSelectors".to_owned(),
            Yaml::map([(settings.label.clone(), Yaml::str(one.clone()))]),
        ));
    } else {
        entries.push((
            "expressionSelectors".to_owned(),
            Yaml::Seq(vec![Yaml::map([
                ("key", Yaml::str(settings.label.clone())),
                ("operator", Yaml::str("In")),
                (
                    "values",
                    Yaml::Seq(components.iter().map(|c| Yaml::str(c.clone())).collect()),
                ),
            ])]),
        ));
    }
    if !nodes.is_empty() {
        entries.push(("nodeSelectors".to_owned(), Yaml::Map(nodes)));
    }
    Yaml::Map(entries)
}

/// A `pod-kill` of the selected pods: all of them, or `count`.
fn pod_kill(selector: Yaml, count: Option<u32>) -> Yaml {
    let mut entries = vec![
        ("action".to_owned(), Yaml::str("pod-kill")),
        (
            "mode".to_owned(),
            Yaml::str(if count.is_some() { "fixed" } else { "all" }),
        ),
    ];
    if let Some(n) = count {
        entries.push(("value".to_owned(), Yaml::str(n.to_string())));
    }
    entries.push(("selector".to_owned(), selector));
    Yaml::Map(entries)
}

/// Each manifest: its kind, its spec, and the names its selectors use as
/// label values (to warn of those no pod can carry).
fn specs(
    plan: &Plan,
    e: &Experiment,
    settings: &Settings,
) -> Vec<(&'static str, Yaml, Vec<String>)> {
    let mut specs = match &e.injection {
        Injection::StopDomains { domains, pods } => {
            let components: Vec<String> = pods.iter().map(|p| p.component.clone()).collect();
            if components.is_empty() {
                return Vec::new();
            }
            domains
                .iter()
                .map(|d| {
                    let nodes = vec![(common::domain_label(&d.kind), Yaml::str(d.name.clone()))];
                    let mut names = components.clone();
                    names.push(d.name.clone());
                    (
                        "PodChaos",
                        pod_kill(selector(settings, &components, nodes), None),
                        names,
                    )
                })
                .collect()
        }
        Injection::KillGroup { pods, .. } => {
            let components: Vec<String> = pods.iter().map(|p| p.component.clone()).collect();
            vec![(
                "PodChaos",
                pod_kill(selector(settings, &components, Vec::new()), None),
                components,
            )]
        }
        Injection::KillInstances {
            component,
            count,
            instances,
        } => {
            let components = vec![component.clone()];
            let count = (count < instances).then_some(*count);
            vec![(
                "PodChaos",
                pod_kill(selector(settings, &components, Vec::new()), count),
                components,
            )]
        }
        Injection::Delay {
            component,
            latency_s,
            callers,
        } => {
            let slowed = vec![component.clone()];
            // The slowed component's pods hold the delay; `direction: to`
            // with the callers as the target delays what they send to
            // their callers: every answer.
            let spec = Yaml::map([
                ("action", Yaml::str("delay")),
                ("mode", Yaml::str("all")),
                ("selector", selector(settings, &slowed, Vec::new())),
                (
                    "delay",
                    Yaml::map([("latency", Yaml::str(common::go_duration(*latency_s)))]),
                ),
                ("direction", Yaml::str("to")),
                (
                    "target",
                    Yaml::map([
                        ("mode", Yaml::str("all")),
                        ("selector", selector(settings, callers, Vec::new())),
                    ]),
                ),
                ("duration", Yaml::str(common::go_duration(plan.duration_s))),
            ]);
            if callers.is_empty() {
                return Vec::new();
            }
            let mut names = slowed;
            names.extend(callers.iter().cloned());
            vec![("NetworkChaos", spec, names)]
        }
    };
    // A selector of no component would select the whole namespace.
    specs.retain(|(_, _, names)| !names.is_empty());
    specs
}
