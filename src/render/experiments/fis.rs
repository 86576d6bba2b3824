//! One experiment as an AWS FIS experiment template: the input of
//! `CreateExperimentTemplate` (`aws fis create-experiment-template
//! --cli-input-json file://FILE`; the CLI fills the idempotency token).
//!
//! Instances are EC2 instances tagged `Settings::label` = the component's
//! name, one target per component. A zone's loss filters them on
//! `Placement.AvailabilityZone`; a region's is the whole template (FIS
//! runs in one region); another kind's is the tag
//! `topology.nines.dev/<kind>` = the domain's name. Kills are
//! `aws:ec2:stop-instances`, started again after the experiment's
//! duration; a slow component is `aws:ssm:send-command` running the
//! `AWSFIS-Run-Network-Latency` document on its instances. The stop
//! condition is `--alarm`, or none (the description says so). The role is
//! a placeholder to replace. Every string keeps to the service model's
//! limits: the description at most 512 characters, tag values at most 256.

use serde_json::{Value, json};

use super::Settings;
use super::common;
use crate::analyze::experiments::{Experiment, Injection, Plan};
use crate::escape;

/// The file name's extension.
pub const EXTENSION: &str = "json";

/// The role FIS runs as: a placeholder the user replaces with a role
/// allowed to stop the instances and send the commands.
pub const ROLE_PLACEHOLDER: &str = "arn:aws:iam::123456789012:role/nines-fis";

/// The region and account written into ARNs nines cannot know (the SSM
/// document's, an alarm given by name): placeholders to replace.
const REGION_PLACEHOLDER: &str = "us-east-1";
const ACCOUNT_PLACEHOLDER: &str = "123456789012";

/// The longest description the API takes, in characters.
const DESCRIPTION_MAX: usize = 512;

/// The longest names of targets and actions, and tag values.
const NAME_MAX: usize = 64;
const TAG_KEY_MAX: usize = 128;
const TAG_VALUE_MAX: usize = 256;
const FILTER_VALUE_MAX: usize = 128;
/// FIS takes at most 50 tags; the loss and the system use two.
const PREDICTION_TAGS_MAX: usize = 48;

/// The shortest and longest durations FIS's EC2 and SSM actions take,
/// seconds (one minute, twelve hours).
const DURATION_MIN_S: u64 = 60;
const DURATION_MAX_S: u64 = 12 * 3600;

/// The experiment as a FIS experiment template.
#[must_use]
pub fn render(plan: &Plan, experiment: &Experiment, settings: &Settings) -> String {
    let asked = common::whole_seconds(plan.duration_s);
    let seconds = asked.clamp(DURATION_MIN_S, DURATION_MAX_S);
    let mut targets = serde_json::Map::new();
    let mut actions = serde_json::Map::new();
    let mut skipped = Vec::new();
    for (i, t) in target_list(experiment).into_iter().enumerate() {
        if !t.fits() {
            skipped.push(escape::truncate(&t.component, 40).into_owned());
            continue;
        }
        let name = name(i + 1, &t.component);
        let (target, action) = target_and_action(&t, &name, settings, seconds);
        targets.insert(name.clone(), target);
        actions.insert(name, action);
    }
    if actions.is_empty() {
        // Nothing can be targeted within the limits: a template that only
        // waits stays valid and stops nothing it should not.
        actions.insert(
            "wait".to_owned(),
            json!({
                "actionId": "aws:fis:wait",
                "description": "nothing to stop: every name is past FIS's limits",
                "parameters": {"duration": common::iso_duration(seconds)},
            }),
        );
    }
    let stop = settings.alarm.as_deref().map_or_else(
        || json!([{"source": "none"}]),
        |alarm| json!([{"source": "aws:cloudwatch:alarm", "value": alarm_arn(alarm)}]),
    );
    let mut tags = serde_json::Map::new();
    tags.insert("nines-loss".to_owned(), json!(experiment.slug));
    tags.insert(
        "nines-system".to_owned(),
        json!(escape::truncate(
            &escape::terminal(&plan.system),
            TAG_VALUE_MAX
        )),
    );
    for p in experiment.predictions.iter().take(PREDICTION_TAGS_MAX) {
        let key =
            escape::truncate(&format!("nines-served/{}", p.entrypoint), TAG_KEY_MAX).into_owned();
        tags.entry(key).or_insert_with(|| {
            json!(format!(
                "predicted={} tolerance={}",
                common::ratio(p.served),
                common::ratio(p.tolerance)
            ))
        });
    }
    let template = json!({
        "description": description(plan, experiment, settings, (seconds, asked), &skipped),
        "targets": Value::Object(targets),
        "actions": Value::Object(actions),
        "stopConditions": stop,
        "roleArn": ROLE_PLACEHOLDER,
        "tags": Value::Object(tags),
    });
    let mut text = serde_json::to_string_pretty(&template).unwrap_or_default();
    text.push('\n');
    text
}

/// A target's JSON (its instances: by tag, zone and state; how many) and
/// the action on it (stop them, or delay what they send).
fn target_and_action(t: &Target, name: &str, settings: &Settings, seconds: u64) -> (Value, Value) {
    let mut target = serde_json::Map::new();
    target.insert("resourceType".to_owned(), json!("aws:ec2:instance"));
    let mut tags = serde_json::Map::new();
    tags.insert(
        escape::truncate(&settings.label, TAG_KEY_MAX).into_owned(),
        json!(t.component),
    );
    for (key, value) in &t.tags {
        tags.insert(key.clone(), json!(value));
    }
    target.insert("resourceTags".to_owned(), Value::Object(tags));
    let mut filters = vec![json!({"path": "State.Name", "values": ["running"]})];
    if !t.zones.is_empty() {
        filters.push(json!({"path": "Placement.AvailabilityZone", "values": t.zones}));
    }
    target.insert("filters".to_owned(), Value::Array(filters));
    target.insert(
        "selectionMode".to_owned(),
        json!(
            t.count
                .map_or_else(|| "ALL".to_owned(), |n| format!("COUNT({n})"))
        ),
    );
    let action = match t.delay_ms {
        None => json!({
            "actionId": "aws:ec2:stop-instances",
            "description": escape::truncate(&t.why, DESCRIPTION_MAX),
            "parameters": {"startInstancesAfterDuration": common::iso_duration(seconds)},
            "targets": {"Instances": name},
        }),
        Some(ms) => {
            let document = json!({
                "DelayMilliseconds": ms.to_string(),
                "DurationSeconds": seconds.to_string(),
                "InstallDependencies": "True",
                "Interface": "eth0",
            });
            json!({
                "actionId": "aws:ssm:send-command",
                "description": escape::truncate(&t.why, DESCRIPTION_MAX),
                "parameters": {
                    "documentArn": format!("arn:aws:ssm:{REGION_PLACEHOLDER}::document/AWSFIS-Run-Network-Latency"),
                    "documentParameters": document.to_string(),
                    "duration": common::iso_duration(seconds),
                },
                "targets": {"Instances": name},
            })
        }
    };
    (Value::Object(target), action)
}

/// An alarm's ARN: `alarm` itself when it is one, else the ARN of an
/// alarm of that name in the placeholder region and account.
fn alarm_arn(alarm: &str) -> String {
    if alarm.starts_with("arn:") {
        alarm.to_owned()
    } else {
        format!("arn:aws:cloudwatch:{REGION_PLACEHOLDER}:{ACCOUNT_PLACEHOLDER}:alarm:{alarm}")
    }
}

/// A target's and its action's name: its number and the component's name
/// as a slug, at most 64 characters.
fn name(n: usize, component: &str) -> String {
    let full = format!("{n}-{}", crate::analyze::experiments::slug(component));
    full.chars()
        .take(NAME_MAX)
        .collect::<String>()
        .trim_end_matches('-')
        .to_owned()
}

/// One target: a component's instances, where and how many.
struct Target {
    component: String,
    /// The availability zones they are in (empty: anywhere).
    zones: Vec<String>,
    /// More tags they carry (another kind of domain).
    tags: Vec<(String, String)>,
    /// How many (`None`: all of them).
    count: Option<u32>,
    /// The delay to add to their answers, milliseconds (`None`: stop them).
    delay_ms: Option<u64>,
    /// The action's description.
    why: String,
}

impl Target {
    /// Whether its selector values keep to the service model's limits: a
    /// target cut short would select other instances, so one that does
    /// not fit is left out.
    fn fits(&self) -> bool {
        self.component.chars().count() <= TAG_VALUE_MAX
            && self
                .zones
                .iter()
                .all(|z| z.chars().count() <= FILTER_VALUE_MAX)
            && self
                .tags
                .iter()
                .all(|(_, v)| v.chars().count() <= TAG_VALUE_MAX)
    }
}

fn target_list(e: &Experiment) -> Vec<Target> {
    let stop = |component: &str, count: Option<u32>, why: String| Target {
        component: component.to_owned(),
        zones: Vec::new(),
        tags: Vec::new(),
        count,
        delay_ms: None,
        why,
    };
    match &e.injection {
        Injection::StopDomains { domains, pods } => {
            let zones: Vec<String> = domains
                .iter()
                .filter(|d| d.kind == "zone")
                .map(|d| d.name.clone())
                .collect();
            // A domain of another kind than zone and region is a tag; one
            // value per key, so a pair of them is two keys' worth only
            // when the kinds differ (pairs are of one kind: the first).
            let tags: Vec<(String, String)> = domains
                .iter()
                .filter(|d| d.kind != "zone" && d.kind != "region")
                .take(1)
                .map(|d| {
                    (
                        escape::truncate(&common::domain_label(&d.kind), TAG_KEY_MAX).into_owned(),
                        d.name.clone(),
                    )
                })
                .collect();
            pods.iter()
                .map(|p| Target {
                    zones: zones.clone(),
                    tags: tags.clone(),
                    ..stop(
                        &p.component,
                        None,
                        format!(
                            "stop the {} instances of {} there",
                            p.count,
                            escape::terminal(&p.component)
                        ),
                    )
                })
                .collect()
        }
        Injection::KillGroup { group, pods } => pods
            .iter()
            .map(|p| {
                stop(
                    &p.component,
                    None,
                    format!(
                        "stop every instance of {}, which shares {}",
                        escape::terminal(&p.component),
                        escape::terminal(group)
                    ),
                )
            })
            .collect(),
        Injection::KillInstances {
            component,
            count,
            instances,
        } => vec![stop(
            component,
            (count < instances).then_some(*count),
            format!(
                "stop {count} of the {instances} instances of {}",
                escape::terminal(component)
            ),
        )],
        Injection::Delay {
            component,
            latency_s,
            callers,
        } => {
            vec![Target {
                delay_ms: Some(common::whole_millis(*latency_s)),
                ..stop(
                    component,
                    None,
                    format!(
                        "delay everything {} sends by {} (its callers: {})",
                        escape::terminal(component),
                        common::go_duration(*latency_s),
                        callers
                            .iter()
                            .map(|c| escape::terminal(c).into_owned())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            }]
        }
    }
}

/// What the template does, the prediction, and the placeholders; at most
/// 512 characters, the placeholders first so that a cut never hides them.
fn description(
    plan: &Plan,
    e: &Experiment,
    settings: &Settings,
    (seconds, asked): (u64, u64),
    skipped: &[String],
) -> String {
    let what = format!(
        "nines: {}: {}.",
        escape::terminal(&plan.system),
        escape::terminal(&e.title)
    );
    let mut parts = vec![escape::truncate(&what, 160).into_owned()];
    parts.push(format!(
        "Replace roleArn ({ROLE_PLACEHOLDER}) with your FIS role."
    ));
    if !skipped.is_empty() {
        parts.push(format!(
            "Not targeted, a name past FIS's limits (tag value 256, filter value 128 characters): {}.",
            skipped.join(", ")
        ));
    }
    match settings.alarm.as_deref() {
        None => parts.push("No stop condition: give --alarm to stop on a CloudWatch alarm.".to_owned()),
        Some(alarm) if !alarm.starts_with("arn:") => parts.push(format!(
            "The alarm ARN's region and account ({REGION_PLACEHOLDER}, {ACCOUNT_PLACEHOLDER}) are placeholders."
        )),
        Some(_) => {}
    }
    match &e.injection {
        Injection::Delay { .. } => parts.push(format!(
            "The SSM document's region ({REGION_PLACEHOLDER}) is a placeholder; the delay is on eth0, to every destination."
        )),
        Injection::StopDomains { domains, .. } if domains.iter().any(|d| d.kind == "region") => parts.push(
            "A region's loss: run the template in that region (FIS targets one region).".to_owned(),
        ),
        _ => {}
    }
    if seconds != asked {
        parts.push(format!(
            "Lasts {} (FIS takes 1 minute to 12 hours; {} asked).",
            common::iso_duration(seconds),
            common::iso_duration(asked)
        ));
    }
    parts.push(format!("Prediction: {}.", common::predictions_text(e)));
    escape::truncate(&parts.join(" "), DESCRIPTION_MAX).into_owned()
}
