//! The tables of slowness (docs/slow.md), for the terminal views of
//! `check` and `what-if`: the pools at normal latency, and what a slow
//! dependency does to every pool and entrypoint. Built by `analyze::slow`
//! and the `pool` and `bulkhead` rules; this file only formats it.

use std::io::{self, Write};

use super::table::{Style, align_right, table, wrap};
use crate::analyze::results::{PoolChange, PoolRow, SlowEvent};
use crate::analyze::wording::{amount, whole_percent};

/// Pools shown in the terminal; the JSON report has them all.
const POOL_ROWS: usize = 20;

/// The pools at normal latency, those short of room first.
///
/// # Errors
/// When writing fails.
pub fn pools(rows: &[PoolRow], style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Pools at normal latency (in flight = rate × time held)"
    )?;
    let mut shown: Vec<&PoolRow> = rows.iter().collect();
    shown.sort_by_key(|r| r.ok);
    let mut t = table(style, &["pool", "size", "in flight", "needs", ""]);
    for row in shown.iter().take(POOL_ROWS) {
        t.add_row([
            pool_name(&row.component, row.target.as_deref()),
            row.size.to_string(),
            amount(row.in_flight),
            amount(row.required),
            if row.ok { "ok" } else { "SHORT" }.to_owned(),
        ]);
    }
    align_right(&mut t, 1..=3);
    writeln!(out, "{t}")?;
    if rows.len() > POOL_ROWS {
        writeln!(
            out,
            "… and {} more pool(s) in `--format json`.",
            rows.len() - POOL_ROWS
        )?;
    }
    Ok(())
}

/// One slow event: a title, every pool before → after, the drained ones
/// and the entrypoints that lose service.
///
/// # Errors
/// When writing fails.
pub fn event(event: &SlowEvent, title: &str, style: Style, out: &mut dyn Write) -> io::Result<()> {
    for line in wrap(title, style.width) {
        writeln!(out, "{line}")?;
    }
    if event.pools.is_empty() {
        writeln!(out, "No pool holds more in flight.")?;
    } else {
        let mut t = table(
            style,
            &["pool", "size", "held", "in flight", "full in", "serves"],
        );
        for row in &event.pools {
            t.add_row(cells(row));
        }
        align_right(&mut t, 1..=5);
        writeln!(out, "{t}")?;
    }
    if !event.drained.is_empty() {
        for line in wrap(
            &format!(
                "Drained (serve nothing; counted lost, their load moves): {}",
                event.drained.join(", ")
            ),
            style.width,
        ) {
            writeln!(out, "{line}")?;
        }
    }
    if event.lose_service.is_empty() {
        // Against the same state at normal latency: what a loss or a load
        // factor in the same scenario costs is the served column's.
        writeln!(out, "No entrypoint loses service to the slowness.")?;
    }
    for loss in &event.lose_service {
        let how = match loss.calls {
            "never" => " (never calls it)",
            "degradable" => " (calls it only through degradable edges)",
            _ => "",
        };
        for line in wrap(
            &format!(
                "Loses service: {}, serves {} → {}{how}",
                loss.entrypoint,
                whole_percent(loss.served_before),
                whole_percent(loss.served_after)
            ),
            style.width,
        ) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// What was slowed, in words: `db hangs`, `db answers in 5 s`.
#[must_use]
pub fn slowed(event: &SlowEvent) -> String {
    event
        .slow
        .iter()
        .map(|s| match s.latency_s {
            None => format!("{} hangs", s.component),
            Some(l) => format!("{} answers in {}", s.component, held_duration(l)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A time held in a table cell, as every duration reads: `18ms`, `6s`,
/// `forever`.
fn short(seconds: f64) -> String {
    crate::human::duration(seconds)
}

/// A slowed latency as the model writes durations (`7s`, `300ms`): it
/// came from one.
fn held_duration(seconds: f64) -> String {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a duration read from the command line, below 1e15 ms"
    )]
    let ms = (seconds * 1000.0).round().max(0.0) as u64;
    crate::model::Duration(ms).to_string()
}

fn pool_name(component: &str, target: Option<&str>) -> String {
    match target {
        Some(t) => format!("{component}>{t}"),
        None => component.to_owned(),
    }
}

fn cells(row: &PoolChange) -> [String; 6] {
    let after = row.in_flight_after.map_or_else(|| "∞".to_owned(), amount);
    let held = row.held_after_s.map_or_else(|| "∞".to_owned(), short);
    [
        pool_name(&row.component, row.target.as_deref()),
        row.size.map_or_else(|| "-".to_owned(), |s| s.to_string()),
        format!("{} → {held}", short(row.held_before_s)),
        format!("{} → {after}", amount(row.in_flight_before)),
        match (row.exhausted_in_s, row.breaker_opens_in_s) {
            (_, Some(open)) => format!("breaker {}", short(open)),
            (Some(t), None) => short(t),
            (None, None) if row.saturated => "full".to_owned(),
            (None, None) => "-".to_owned(),
        },
        whole_percent(row.served),
    ]
}
