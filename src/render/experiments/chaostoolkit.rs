//! One experiment as a Chaos Toolkit experiment (JSON): a steady-state
//! hypothesis of one Prometheus probe per entrypoint (its success ratio at
//! least the predicted served share less the margin), the injection as
//! chaostoolkit-kubernetes actions, rollbacks, and the prediction itself
//! in the `nines` extension.
//!
//! Kills are `chaosk8s.pod.actions.terminate_pods`, one action per
//! component (`label_selector` `LABEL=component`, `qty` its instances lost,
//! or `all`). `terminate_pods` cannot select pods by their node's labels,
//! so a domain's loss kills the right number of each component's pods at
//! random and the description says which domain's pods they stand for
//! (the Chaos Mesh file selects the domain's nodes). A slow component is
//! `chaosk8s.chaosmesh.network.actions.add_latency` (a Chaos Mesh
//! `NetworkChaos` created through the Kubernetes API, one per caller),
//! removed by `delete_network_fault` in the rollbacks.
//!
//! The probe's query keeps the ratio only when it is at or above the
//! tolerance (`(ratio) >= t`), so the Prometheus answer holds one sample
//! exactly when the hypothesis holds: the tolerance is a JSON path
//! counting that sample (chaoslib's `range` tolerance reads a number, and
//! `chaosprometheus.probes.query` returns Prometheus' whole answer).

use serde_json::{Value, json};

use super::Settings;
use super::common;
use crate::analyze::experiments::{Experiment, Injection, Plan};
use crate::escape;

/// The file name's extension.
pub const EXTENSION: &str = "json";

/// The experiment as a Chaos Toolkit experiment.
#[must_use]
pub fn render(plan: &Plan, experiment: &Experiment, settings: &Settings) -> String {
    let (mut method, rollbacks) = method(experiment, settings);
    // The loss lasts the experiment's duration: the last action waits.
    if let Some(last) = method.last_mut().and_then(Value::as_object_mut) {
        last.insert(
            "pauses".to_owned(),
            json!({ "after": common::whole_seconds(plan.duration_s) }),
        );
    }
    let mut document = serde_json::Map::new();
    document.insert("version".to_owned(), json!("1.0.0"));
    document.insert(
        "title".to_owned(),
        json!(format!(
            "{}: {}",
            escape::terminal(&plan.system),
            escape::terminal(&experiment.title)
        )),
    );
    document.insert(
        "description".to_owned(),
        json!(description(plan, experiment, settings)),
    );
    document.insert(
        "tags".to_owned(),
        json!(["nines", experiment.slug, action_name(&experiment.injection)]),
    );
    document.insert(
        "configuration".to_owned(),
        json!({ "prometheus_base_url": settings.prometheus }),
    );
    document.insert(
        "extensions".to_owned(),
        json!([common::prediction(plan, experiment)]),
    );
    let probes = probes(experiment, settings);
    if !probes.is_empty() {
        document.insert(
            "steady-state-hypothesis".to_owned(),
            json!({
                "title": "every entrypoint serves at least its predicted share less the margin",
                "probes": probes,
            }),
        );
    }
    document.insert("method".to_owned(), Value::Array(method));
    document.insert("rollbacks".to_owned(), Value::Array(rollbacks));
    let mut text = serde_json::to_string_pretty(&Value::Object(document)).unwrap_or_default();
    text.push('\n');
    text
}

/// The injection's kind as the plan's JSON names it.
fn action_name(injection: &Injection) -> &'static str {
    match injection {
        Injection::StopDomains { .. } => "stop-domains",
        Injection::KillGroup { .. } => "kill-group",
        Injection::KillInstances { .. } => "kill-instances",
        Injection::Delay { .. } => "delay",
    }
}

/// What the experiment does, what it predicts, what the user must check
/// or replace, and how to run it so the hypothesis is checked while the
/// loss lasts.
fn description(plan: &Plan, e: &Experiment, settings: &Settings) -> String {
    let mut parts = vec![format!(
        "nines experiment {} of {}: {}; {}.",
        e.rank,
        escape::terminal(&plan.system),
        escape::terminal(&e.title),
        escape::terminal(&super::injection_text(e)),
    )];
    match &e.injection {
        Injection::StopDomains { domains, .. } => {
            let which = domains
                .iter()
                .map(|d| {
                    format!(
                        "{} (node label {}={})",
                        escape::terminal(&d.name),
                        escape::terminal(&common::domain_label(&d.kind)),
                        escape::terminal(&d.name)
                    )
                })
                .collect::<Vec<_>>()
                .join(" and ");
            parts.push(format!(
                "terminate_pods cannot select pods by their node's labels: each action terminates as many of the component's pods as it runs in {which}, picked at random; make sure those are the pods there, or use the Chaos Mesh file, which selects the nodes."
            ));
        }
        Injection::Delay { .. } => parts.push(
            "The delay is a Chaos Mesh NetworkChaos created by chaostoolkit-kubernetes (Chaos Mesh must be installed); the rollbacks delete it."
                .to_owned(),
        ),
        Injection::KillGroup { .. } | Injection::KillInstances { .. } => {}
    }
    if matches!(
        e.injection,
        Injection::StopDomains { .. }
            | Injection::KillGroup { .. }
            | Injection::KillInstances { .. }
    ) {
        parts.push(
            "Terminated pods come back as their controllers replace them: the loss lasts until then, the pause after it lets the probes read the state that follows."
                .to_owned(),
        );
    }
    parts.push(format!("Prediction: {}.", common::predictions_text(e)));
    parts.push(format!(
        "Each probe reads the success ratio of {} by the label {} from the Prometheus at configuration.prometheus_base_url ({}); change the metric if yours is named otherwise.",
        common::REQUESTS_METRIC,
        escape::terminal(&common::prometheus_label(&settings.label)),
        escape::terminal(&settings.prometheus),
    ));
    parts.push(format!(
        "Run it with `chaos run --hypothesis-strategy continuously --hypothesis-frequency 15 --fail-fast FILE` to check the hypothesis while the loss lasts ({}) and stop at the first miss.",
        common::go_duration(plan.duration_s)
    ));
    parts.join(" ")
}

/// One Prometheus probe per entrypoint.
fn probes(e: &Experiment, settings: &Settings) -> Vec<Value> {
    e.predictions
        .iter()
        .map(|p| {
            let query = format!(
                "({}) >= {}",
                common::success_ratio(&settings.label, &p.entrypoint),
                common::ratio(p.tolerance)
            );
            json!({
                "type": "probe",
                "name": format!(
                    "{}-serves-at-least-{}",
                    escape::terminal(&p.entrypoint),
                    common::ratio(p.tolerance)
                ),
                "tolerance": {
                    "type": "jsonpath",
                    "path": "$.data.result[*]",
                    "count": 1,
                },
                "provider": {
                    "type": "python",
                    "module": "chaosprometheus.probes",
                    "func": "query",
                    "arguments": { "query": query },
                },
            })
        })
        .collect()
}

/// `terminate_pods` of `count` pods of `component` (all of them when
/// `count` is `None`).
fn terminate(component: &str, count: Option<u32>, settings: &Settings, why: &str) -> Value {
    let mut arguments = serde_json::Map::new();
    arguments.insert(
        "label_selector".to_owned(),
        json!(format!("{}={component}", settings.label)),
    );
    arguments.insert("ns".to_owned(), json!(settings.namespace));
    match count {
        Some(n) => {
            arguments.insert("qty".to_owned(), json!(n));
            arguments.insert("rand".to_owned(), json!(true));
        }
        None => {
            arguments.insert("all".to_owned(), json!(true));
        }
    }
    json!({
        "type": "action",
        "name": format!("terminate-{}", escape::terminal(component)),
        "provider": {
            "type": "python",
            "module": "chaosk8s.pod.actions",
            "func": "terminate_pods",
            "arguments": Value::Object(arguments),
        },
        "description": why,
    })
}

/// The method's actions and the rollbacks that undo them.
fn method(e: &Experiment, settings: &Settings) -> (Vec<Value>, Vec<Value>) {
    match &e.injection {
        Injection::StopDomains { domains, pods } => {
            let place = domains
                .iter()
                .map(|d| {
                    format!(
                        "{} {}",
                        escape::terminal(&d.kind),
                        escape::terminal(&d.name)
                    )
                })
                .collect::<Vec<_>>()
                .join(" and ");
            let actions = pods
                .iter()
                .map(|p| {
                    terminate(
                        &p.component,
                        Some(p.count),
                        settings,
                        &format!(
                            "the {} pods of {} in {place}",
                            p.count,
                            escape::terminal(&p.component)
                        ),
                    )
                })
                .collect();
            (actions, Vec::new())
        }
        Injection::KillGroup { group, pods } => {
            let actions = pods
                .iter()
                .map(|p| {
                    terminate(
                        &p.component,
                        None,
                        settings,
                        &format!(
                            "every pod of {}, which shares {}",
                            escape::terminal(&p.component),
                            escape::terminal(group)
                        ),
                    )
                })
                .collect();
            (actions, Vec::new())
        }
        Injection::KillInstances {
            component,
            count,
            instances,
        } => {
            let count_arg = (count < instances).then_some(*count);
            let why = format!(
                "{count} of the {instances} pods of {}",
                escape::terminal(component)
            );
            (
                vec![terminate(component, count_arg, settings, &why)],
                Vec::new(),
            )
        }
        Injection::Delay {
            component,
            latency_s,
            callers,
        } => delay(e, component, *latency_s, callers, settings),
    }
}

/// One `add_latency` per caller (a `NetworkChaos` each: chaosk8s takes one
/// label value per key), and the rollbacks deleting them.
fn delay(
    e: &Experiment,
    component: &str,
    latency_s: f64,
    callers: &[String],
    settings: &Settings,
) -> (Vec<Value>, Vec<Value>) {
    let mut actions = Vec::new();
    let mut rollbacks = Vec::new();
    for (i, caller) in callers.iter().enumerate() {
        let name = common::dns_name(&e.slug, (callers.len() > 1).then_some(i + 1));
        actions.push(json!({
            "type": "action",
            "name": format!("delay-{}-to-{}", escape::terminal(component), escape::terminal(caller)),
            "description": format!(
                "every answer of {} to {} delayed by {}",
                escape::terminal(component),
                escape::terminal(caller),
                common::go_duration(latency_s)
            ),
            "provider": {
                "type": "python",
                "module": "chaosk8s.chaosmesh.network.actions",
                "func": "add_latency",
                "arguments": {
                    "name": name,
                    "ns": settings.namespace,
                    "namespaces_selectors": [settings.namespace],
                    "label_selectors": { settings.label.clone(): component },
                    "mode": "all",
                    "direction": "to",
                    "latency": common::go_duration(latency_s),
                    "target_mode": "all",
                    "target_namespaces_selectors": [settings.namespace],
                    "target_label_selectors": { settings.label.clone(): caller },
                },
            },
        }));
        rollbacks.push(json!({
            "type": "action",
            "name": format!("remove-delay-{}-to-{}", escape::terminal(component), escape::terminal(caller)),
            "provider": {
                "type": "python",
                "module": "chaosk8s.chaosmesh.network.actions",
                "func": "delete_network_fault",
                "arguments": { "name": name, "ns": settings.namespace },
            },
        }));
    }
    (actions, rollbacks)
}
