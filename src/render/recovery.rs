//! `nines recover` for a terminal and as JSON: the waves, the three ways of
//! coming back (everything at once, the largest safe share, the ramp) and a
//! short load-against-capacity table per plotted component. The picture is
//! in [`super::recovery_plot`].

use std::io::{self, Write};

use super::table::{Style, align_right, seconds, table, wrap};
use crate::analyze::wording::{number, percent};
use crate::recover::{Plan, RunSummary};

/// `3m10s`, or `never` when the run does not converge.
pub(crate) fn when(time: Option<f64>) -> String {
    time.map_or_else(|| "never".to_owned(), |t| seconds(t).to_string())
}

/// One sentence per way of coming back, for the terminal and the review.
pub(crate) fn verdicts(plan: &Plan) -> Vec<String> {
    let open = &plan.without_ramp;
    let mut lines = vec![if open.converges {
        format!(
            "Everything admitted at once converges: full service after {}.",
            when(open.time_to_full_service_s)
        )
    } else {
        format!(
            "Everything admitted at once does not converge within {}: {} stay{} collapsed{}.",
            seconds(plan.horizon_s),
            if open.stuck.is_empty() {
                "the entrypoints".to_owned()
            } else {
                open.stuck.join(", ")
            },
            if open.stuck.len() == 1 { "s" } else { "" },
            open.first_breach
                .as_ref()
                .map_or_else(String::new, |c| format!(
                    " (first over capacity: {c} at {})",
                    when(open.first_breach_s)
                )),
        )
    }];
    if !open.converges {
        lines.push(match plan.largest_safe_share {
            Some(share) => format!(
                "Largest share admitted without a ramp that converges: {} (shed {} at the edge until warm).",
                percent(share),
                percent(1.0 - share)
            ),
            None => "No share admitted without a ramp converges.".to_owned(),
        });
    }
    if let Some(admitted) = &plan.admitted {
        lines.push(format!(
            "Admitting {} until warm {}.",
            percent(admitted.share.unwrap_or(1.0)),
            if admitted.converges {
                format!(
                    "converges: full service after {}",
                    when(admitted.time_to_full_service_s)
                )
            } else {
                "does not converge".to_owned()
            }
        ));
    }
    let ramp = &plan.ramp;
    lines.push(if ramp.converges {
        format!(
            "The ramp (each raise below the target keeping every load within {} of capacity, a margin for the variance of arrivals) reaches full service after {}{}.",
            percent(plan.ramp_ceiling),
            when(ramp.time_to_full_service_s),
            ramp.first_breach.as_ref().map_or_else(
                || " without any component over its capacity".to_owned(),
                |c| format!(" ({c} went over capacity at {})", when(ramp.first_breach_s))
            )
        )
    } else {
        format!(
            "The ramp does not reach full service within {}.",
            seconds(plan.horizon_s)
        )
    });
    lines.extend(plan.backlogs.iter().map(backlog));
    lines
}

/// A count of events: `5.4 M` from a million on, else as the model writes it.
fn events(n: f64) -> String {
    if n >= 1e6 {
        format!("{} M", crate::human::significant(n / 1e6, 3))
    } else {
        number(n)
    }
}

/// One queue's backlog in a sentence.
fn backlog(b: &crate::recover::Backlog) -> String {
    let held = if b.held_by == "producers" {
        format!(
            "{}'s producers hold {} events for it ({} of {}/s)",
            b.component,
            events(b.events),
            seconds(b.worst_lag_s),
            number(b.input)
        )
    } else {
        format!(
            "{} holds {} events its consumers did not take ({} of {}/s)",
            b.component,
            events(b.events),
            seconds(b.worst_lag_s),
            number(b.input)
        )
    };
    let lost = match b.retention_s {
        Some(r) if b.lost > 0.0 => format!(
            "; {} events older than its retention of {} are lost",
            events(b.lost),
            seconds(r)
        ),
        _ => String::new(),
    };
    let drain = match (b.consumer_capacity, b.drain_rate, b.catch_up_s) {
        (Some(k), Some(d), Some(t)) => format!(
            "drained at {} − {} = {}/s: caught up after {}, the lag at its worst {} at the restart",
            number(k),
            number(k - d),
            number(d),
            seconds(t),
            seconds(b.worst_lag_s)
        ),
        (Some(k), Some(_), None) => format!(
            "its consumers' {}/s do not exceed the live input, so they never catch up",
            number(k)
        ),
        _ => "no consumer gives a capacity, so the time to catch up is unknown".to_owned(),
    };
    format!("Backlog: {held} when the outage ends{lost}; {drain}.")
}

/// `10s 10%, 20s 15%, …, 1m41s all`.
pub(crate) fn shares(schedule: &[(f64, Option<f64>)]) -> String {
    schedule
        .iter()
        .map(|(t, s)| {
            format!(
                "{} {}",
                seconds(*t),
                s.map_or_else(|| "all".to_owned(), percent)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn peaks_table(style: Style, runs: &[&RunSummary]) -> String {
    let mut header = vec!["component"];
    header.extend(runs.iter().map(|r| match r.admission {
        "open" => "peak, all at once",
        "admit" => "peak, admitted",
        _ => "peak, ramp",
    }));
    let mut t = table(style, &header);
    let mut names: Vec<&str> = runs[0].peaks.iter().map(|p| p.component.as_str()).collect();
    names.truncate(8);
    for name in names {
        let mut row = vec![name.to_owned()];
        for run in runs {
            row.push(run.peaks.iter().find(|p| p.component == name).map_or_else(
                || "-".to_owned(),
                |p| format!("{} at {}", percent(p.utilization), seconds(p.at_s)),
            ));
        }
        t.add_row(row);
    }
    align_right(&mut t, 1..=runs.len());
    t.to_string()
}

/// The plan for a terminal.
pub fn render_table(plan: &Plan, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Recovery of {} after a {}",
        crate::render::escape::terminal_lines(&plan.system),
        crate::render::escape::terminal_lines(&plan.scenario)
    )?;
    writeln!(out)?;
    for (w, wave) in plan.waves.iter().enumerate() {
        let line = format!(
            "wave {} at {}{}: {}",
            w + 1,
            wave.start_s
                .map_or_else(|| "never".to_owned(), |s| seconds(s).to_string()),
            wave.verified_s
                .map_or_else(String::new, |v| format!(", verified {}", seconds(v))),
            wave.members.join(", ")
        );
        for part in wrap(&line, style.width.saturating_sub(2)) {
            writeln!(out, "  {part}")?;
        }
        if wave.admitted_at == "callers" {
            let line = format!("admitted at the edge into it: {}", shares(&wave.schedule));
            for part in wrap(&line, style.width.saturating_sub(4)) {
                writeln!(out, "    {part}")?;
            }
        }
    }
    writeln!(out)?;
    for line in verdicts(plan) {
        for part in wrap(&line, style.width) {
            writeln!(out, "{part}")?;
        }
    }
    writeln!(out)?;
    for part in wrap(
        &format!(
            "Ramp schedule at the entrypoints: {}",
            shares(&plan.ramp.schedule)
        ),
        style.width,
    ) {
        writeln!(out, "{part}")?;
    }
    writeln!(out)?;
    let mut runs = vec![&plan.without_ramp];
    runs.extend(plan.admitted.iter());
    runs.push(&plan.ramp);
    if !plan.without_ramp.peaks.is_empty() {
        writeln!(out, "Peak load over capacity")?;
        writeln!(out, "{}", peaks_table(style, &runs))?;
    }
    let shown = plan.admitted.as_ref().unwrap_or(&plan.without_ramp);
    for series in shown.series.iter().take(2) {
        writeln!(out)?;
        writeln!(
            out,
            "{}: load / capacity, {}",
            series.component,
            if shown.admission == "open" {
                "everything at once"
            } else {
                "admitted"
            }
        )?;
        let points = series.load.len();
        let picks: Vec<usize> = (0..6).map(|i| (i * points.saturating_sub(1)) / 5).collect();
        let cells: Vec<String> = picks
            .iter()
            .map(|&i| {
                format!(
                    "{} {} / {}",
                    seconds((i + 1) as f64 * series.step_s),
                    number(series.load[i]),
                    number(series.capacity[i])
                )
            })
            .collect();
        for part in wrap(&cells.join("; "), style.width.saturating_sub(2)) {
            writeln!(out, "  {part}")?;
        }
    }
    if !plan.defaults.is_empty() {
        writeln!(out)?;
        for part in wrap(
            &format!("Defaults used: {}.", plan.defaults.join(", ")),
            style.width,
        ) {
            writeln!(out, "{part}")?;
        }
    }
    writeln!(out)?;
    writeln!(out, "The plot: `nines recover MODEL --format svg`.")
}

/// The plan as JSON.
pub fn render_json(plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, plan).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
