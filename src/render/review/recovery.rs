//! The review's "Recovery after an outage" section: what `nines recover`
//! finds after a full outage of 30 minutes, the ramp schedule, the peaks,
//! and the plot of load against capacity.

use super::{Block, Section};
use crate::analyze::wording::percent;
use crate::recover::Plan;
use crate::render::recovery::{verdicts, when};
use crate::render::table::seconds;

const TITLE: &str = "Recovery after an outage";

/// The section, or "none" without a plan.
pub(super) fn section(plan: Option<&Plan>) -> Section<'static> {
    let Some(plan) = plan else {
        return Section {
            title: TITLE,
            blocks: vec![Block::Text("none".to_owned())],
        };
    };
    let mut blocks = vec![Block::Text(format!(
        "Simulated after a {}, for {} (`nines recover`; docs/recovery.md gives the model).",
        plan.scenario,
        seconds(plan.horizon_s)
    ))];
    blocks.push(Block::List(verdicts(plan)));
    blocks.push(Block::Text(format!(
        "Ramp schedule (second after the restart, admitted share): {}.",
        plan.ramp
            .schedule
            .iter()
            .map(|(t, s)| format!(
                "{} {}",
                seconds(*t),
                s.map_or_else(|| "all".to_owned(), percent)
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )));
    if plan.waves.iter().any(|w| w.admitted_at == "callers") {
        blocks.push(Block::Table {
            header: vec!["wave", "starts", "members", "admitted at the edge into it"],
            rows: plan
                .waves
                .iter()
                .enumerate()
                .map(|(w, wave)| {
                    vec![
                        (w + 1).to_string(),
                        when(wave.start_s),
                        wave.members.join(", "),
                        if wave.admitted_at == "callers" {
                            crate::render::recovery::shares(&wave.schedule)
                        } else {
                            "-".to_owned()
                        },
                    ]
                })
                .collect(),
            right: vec![0, 1],
        });
    }
    if !plan.without_ramp.peaks.is_empty() {
        blocks.push(Block::Table {
            header: vec!["component", "peak, all at once", "peak, ramp"],
            rows: plan
                .without_ramp
                .peaks
                .iter()
                .take(8)
                .map(|p| {
                    let ramp = plan.ramp.peaks.iter().find(|r| r.component == p.component);
                    vec![
                        p.component.clone(),
                        format!("{} at {}", percent(p.utilization), seconds(p.at_s)),
                        ramp.map_or_else(
                            || "-".to_owned(),
                            |r| format!("{} at {}", percent(r.utilization), seconds(r.at_s)),
                        ),
                    ]
                })
                .collect(),
            right: vec![1, 2],
        });
    }
    blocks.push(Block::Text(format!(
        "Full service: {} with everything admitted at once, {} with the ramp.",
        when(plan.without_ramp.time_to_full_service_s),
        when(plan.ramp.time_to_full_service_s)
    )));
    if !plan.defaults.is_empty() {
        blocks.push(Block::Text(format!(
            "Defaults used: {}.",
            plan.defaults.join(", ")
        )));
    }
    // Inline in HTML the SVG needs no namespace (and the page names no URL).
    let svg = crate::render::recovery_plot::render(plan).replacen(
        " xmlns=\"http://www.w3.org/2000/svg\"",
        "",
        1,
    );
    blocks.push(Block::Plot(svg));
    Section {
        title: TITLE,
        blocks,
    }
}
