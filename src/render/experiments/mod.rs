//! `nines experiments`: the plan for a terminal (a game-day table) and as
//! JSON, and each experiment as the file of a chaos tool
//! (`chaostoolkit.rs`, `chaos_mesh.rs`, `fis.rs`). Every file carries the
//! model's prediction inside it and the loss it injects, which
//! `nines verify` reads back.

use std::io::{self, Write};

use super::table::{Style, align_right, table, wrap};
use super::what_if::share;
use crate::analyze::experiments::{Experiment, Injection, Plan};
use crate::analyze::wording::{number, percent};

pub mod chaos_mesh;
pub mod chaostoolkit;
mod common;
pub mod fis;

/// What the chaos tools' files need beyond the plan: how the model's names
/// select pods and instances, and where the probes read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The label (Kubernetes) or tag (AWS) whose value is a component's
    /// name: `app.kubernetes.io/name` by default.
    pub label: String,
    /// The Kubernetes namespace the components run in.
    pub namespace: String,
    /// The `CloudWatch` alarm that stops a FIS experiment (`--alarm`).
    pub alarm: Option<String>,
    /// The Prometheus base URL the probes query.
    pub prometheus: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            label: "app.kubernetes.io/name".to_owned(),
            namespace: "default".to_owned(),
            alarm: None,
            prometheus: "http://prometheus:9090".to_owned(),
        }
    }
}

/// What the experiment injects, in words.
#[must_use]
pub fn injection_text(e: &Experiment) -> String {
    let pods = |pods: &[crate::analyze::experiments::Pods]| {
        pods.iter()
            .map(|p| format!("{} ×{}", p.component, p.count))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &e.injection {
        Injection::StopDomains { domains, pods: p } => format!(
            "stop every instance in {} ({})",
            domains
                .iter()
                .map(|d| format!("{} {}", d.kind, d.name))
                .collect::<Vec<_>>()
                .join(" and "),
            pods(p)
        ),
        Injection::KillGroup { group, pods: p } => {
            format!("kill every instance sharing {group} ({})", pods(p))
        }
        Injection::KillInstances {
            component,
            count,
            instances,
        } if count == instances => format!("kill all {count} instances of {component}"),
        Injection::KillInstances {
            component,
            count,
            instances,
        } => format!("kill {count} of the {instances} instances of {component}"),
        Injection::Delay {
            component,
            latency_s,
            callers,
        } => format!(
            "delay every answer of {component} by {} (calls from {})",
            super::table::seconds(*latency_s),
            callers.join(", ")
        ),
    }
}

/// The prediction in one cell: each entrypoint's served share (when it
/// changes), then the overloaded components.
fn prediction_text(e: &Experiment) -> String {
    let mut parts: Vec<String> = e
        .predictions
        .iter()
        .filter(|p| (p.served - p.served_before).abs() > 1e-12)
        .map(|p| {
            format!(
                "{} served {} → {}",
                p.entrypoint,
                share(p.served_before),
                share(p.served)
            )
        })
        .collect();
    if parts.is_empty() {
        parts.push("every entrypoint fully served".to_owned());
    }
    for o in &e.overloaded {
        parts.push(match (o.pool, o.utilization.is_finite()) {
            (false, true) => format!(
                "{} at {} ({} / {})",
                o.component,
                percent(o.utilization),
                number(o.load),
                number(o.capacity)
            ),
            (false, false) => format!(
                "{} offered {} with nothing left to carry it",
                o.component,
                number(o.load)
            ),
            (true, true) => format!(
                "{} at {} of {} ({} / {})",
                o.component,
                percent(o.utilization),
                o.held_to(),
                number(o.load),
                number(o.capacity)
            ),
            (true, false) => format!(
                "{}{} of the {} offered",
                o.component,
                o.serves_none(),
                number(o.load)
            ),
        });
    }
    parts.join("; ")
}

/// The hypothesis in one cell: each entrypoint's served share stays at or
/// above its tolerance.
fn hypothesis_text(e: &Experiment) -> String {
    e.predictions
        .iter()
        .map(|p| format!("{} ≥ {}", p.entrypoint, share(p.tolerance)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The plan as a game-day table: one row per experiment, then what each
/// injects.
///
/// # Errors
/// The writer's.
pub fn render_table(plan: &Plan, file: &str, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let shown = plan.experiments.len();
    let head = format!(
        "{} ({file}): {shown} experiment{} of {} credible loss{}, most informative first; each runs {}, hypothesis within {} of the prediction",
        plan.system,
        if shown == 1 { "" } else { "s" },
        plan.candidates,
        if plan.candidates == 1 { "" } else { "es" },
        super::table::seconds(plan.duration_s),
        percent(plan.margin),
    );
    for line in wrap(&head, style.width) {
        writeln!(out, "{line}")?;
    }
    if plan.experiments.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let mut t = table(
        style,
        &["#", "loss", "prediction while it lasts", "why run it"],
    );
    for e in &plan.experiments {
        t.add_row(vec![
            e.rank.to_string(),
            e.loss.clone(),
            prediction_text(e),
            e.why.clone(),
        ]);
    }
    align_right(&mut t, 0..=0);
    writeln!(out, "{t}")?;
    writeln!(out)?;
    for e in &plan.experiments {
        let stake = e.at_stake_s.map_or_else(String::new, |s| {
            format!(
                "; at stake {} of full outage per window",
                super::table::downtime(s)
            )
        });
        for line in wrap(
            &format!(
                "{}. {}: {}. Hypothesis: {}. Abort when an error ratio passes its prediction by {}{stake}. Same numbers: nines what-if {file} {}",
                e.rank,
                e.title,
                injection_text(e),
                hypothesis_text(e),
                percent(plan.margin),
                e.what_if.join(" "),
            ),
            style.width,
        ) {
            writeln!(out, "{line}")?;
        }
    }
    if plan.untried > 0 {
        writeln!(out)?;
        for line in wrap(
            &format!(
                "{} of the {} losses were not judged (the work bound of a large model): the domains and the losses check names went first",
                plan.untried, plan.candidates
            ),
            style.width,
        ) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The plan as JSON (docs/json.md, "experiments").
///
/// # Errors
/// The writer's.
pub fn render_json(plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, plan)?;
    out.write_all(b"\n")
}
