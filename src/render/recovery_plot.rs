//! The recovery plot as SVG: for the components that matter, offered load
//! (solid) against warming capacity (dashed) over time, in multiples of
//! each component's steady load; one panel with everything admitted at
//! once, one with the ramp. Axes with ticks and a legend; fixed sizes and
//! rounded coordinates, so the same plan gives the same bytes.

use std::fmt::Write as _;

use crate::recover::{Plan, RunSummary};
use crate::render::escape::xml as escape;

const WIDTH: f64 = 760.0;
const PANEL_HEIGHT: f64 = 230.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 36.0;
const GAP: f64 = 64.0;
const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// A "nice" step for about `count` ticks over `span`.
fn tick_step(span: f64, count: f64) -> f64 {
    let raw = (span / count).max(1e-9);
    let magnitude = 10f64.powf(raw.log10().floor());
    let unit = raw / magnitude;
    let nice = if unit <= 1.0 {
        1.0
    } else if unit <= 2.0 {
        2.0
    } else if unit <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// A tick spacing of whole seconds below ten minutes, else whole minutes.
fn time_step(horizon: f64) -> f64 {
    const STEPS: [f64; 12] = [
        1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| horizon / s <= 8.0)
        .unwrap_or_else(|| tick_step(horizon / 3600.0, 6.0) * 3600.0)
}

fn time_label(seconds: f64) -> String {
    if seconds >= 60.0 && (seconds % 60.0).abs() < 1e-9 {
        format!("{}m", seconds / 60.0)
    } else {
        format!("{seconds}s")
    }
}

/// A panel's frame: its title (already escaped), the axes, time ticks from
/// 0 to `x_end` seconds, horizontal grid lines at `grid` (pixel y, label)
/// and the two axis titles. Both panels draw their curves inside it.
fn frame(
    svg: &mut String,
    top: f64,
    title: &str,
    x_end: f64,
    grid: &[(f64, String)],
    y_title: &str,
) {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = PANEL_HEIGHT - 50.0;
    let x = |t: f64| LEFT + plot_w * (t / x_end).clamp(0.0, 1.0);
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="{:.1}" font-size="14" font-weight="bold">{title}</text>"#,
        top - 12.0
    );
    let _ = writeln!(
        svg,
        r##"<path d="M{LEFT},{top:.1} V{:.1} H{:.1}" fill="none" stroke="#333"/>"##,
        top + plot_h,
        LEFT + plot_w
    );
    let step = time_step(x_end);
    let mut t = 0.0;
    while t <= x_end + 1e-9 {
        let _ = writeln!(
            svg,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="#333"/><text x="{0:.1}" y="{3:.1}" font-size="11" text-anchor="middle">{4}</text>"##,
            x(t),
            top + plot_h,
            top + plot_h + 5.0,
            top + plot_h + 18.0,
            time_label(t)
        );
        t += step;
    }
    for (y, label) in grid {
        let _ = writeln!(
            svg,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{2:.1}" y2="{1:.1}" stroke="#ddd"/><text x="{3:.1}" y="{4:.1}" font-size="11" text-anchor="end">{5}</text>"##,
            LEFT,
            y,
            LEFT + plot_w,
            LEFT - 6.0,
            y + 4.0,
            label
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle">time after the restart</text>"#,
        LEFT + plot_w / 2.0,
        top + plot_h + 34.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="14" y="{:.1}" font-size="11" text-anchor="middle" transform="rotate(-90 14 {:.1})">{y_title}</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
}

fn panel(svg: &mut String, run: &RunSummary, title: &str, top: f64, horizon: f64) {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = PANEL_HEIGHT - 50.0;
    let y_max = run
        .series
        .iter()
        .flat_map(|s| {
            s.load
                .iter()
                .chain(&s.capacity)
                .map(move |v| v / s.steady_load.max(1e-12))
        })
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.1;
    let x = |t: f64| LEFT + plot_w * (t / horizon).clamp(0.0, 1.0);
    let y = |v: f64| top + plot_h - plot_h * (v / y_max).clamp(0.0, 1.0);
    let y_step = tick_step(y_max, 4.0);
    let mut grid: Vec<(f64, String)> = Vec::new();
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        grid.push((y(v), format!("{}×", crate::analyze::wording::number(v))));
        v += y_step;
    }
    frame(svg, top, &escape(title), horizon, &grid, "× steady load");
    // Lines and legend.
    for (i, series) in run.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let unit = series.steady_load.max(1e-12);
        let path = |values: &[f64]| -> String {
            values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(k, v)| {
                    format!(
                        "{}{:.1},{:.1}",
                        if k == 0 { "M" } else { "L" },
                        x((k + 1) as f64 * series.step_s),
                        y(v / unit)
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(
            svg,
            r#"<path class="load" d="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
            path(&series.load)
        );
        let _ = writeln!(
            svg,
            r#"<path class="capacity" d="{}" fill="none" stroke="{color}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
            path(&series.capacity)
        );
        let ly = top + 8.0 + 34.0 * i as f64;
        let lx = LEFT + plot_w + 16.0;
        let _ = writeln!(
            svg,
            r#"<g class="legend"><line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="11">{} load</text><line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{color}" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" font-size="11">capacity</text></g>"#,
            lx + 22.0,
            lx + 28.0,
            ly + 4.0,
            escape(&series.component),
            ly + 14.0,
            lx + 22.0,
            ly + 14.0,
            lx + 28.0,
            ly + 18.0
        );
    }
    if run.series.is_empty() {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">no component with a capacity carries traffic</text>"#,
            LEFT + plot_w / 2.0,
            top + plot_h / 2.0
        );
    }
}

/// The admitted share of each wave over time (a step line per wave that
/// admits traffic: at the edge into it, or at the entrypoints), up to a
/// little after the last change; "open" is drawn at 100%.
fn schedule_panel(svg: &mut String, plan: &Plan, top: f64) {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = PANEL_HEIGHT - 50.0;
    let shown: Vec<(usize, &crate::recover::Wave)> = plan
        .waves
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.schedule.is_empty())
        .collect();
    let last = shown
        .iter()
        .flat_map(|(_, w)| w.schedule.iter().map(|&(t, _)| t))
        .fold(0.0f64, f64::max);
    let span = time_step(last.max(10.0) * 1.25);
    let end = ((last * 1.25 / span).ceil().max(1.0) * span).min(plan.horizon_s.max(1.0));
    let x = |t: f64| LEFT + plot_w * (t / end).clamp(0.0, 1.0);
    let y = |v: f64| top + plot_h - plot_h * v.clamp(0.0, 1.0);
    let grid: Vec<(f64, String)> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|v| (y(v), format!("{}%", v * 100.0)))
        .collect();
    frame(
        svg,
        top,
        "Admitted share per wave (the ramp)",
        end,
        &grid,
        "admitted share",
    );
    for (i, (index, wave)) in shown.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut d = String::new();
        for (k, &(t, share)) in wave.schedule.iter().enumerate() {
            let v = share.unwrap_or(1.0);
            if k == 0 {
                let _ = write!(d, "M{:.1},{:.1}", x(t), y(v));
            } else {
                let _ = write!(d, " H{:.1} V{:.1}", x(t), y(v));
            }
        }
        let _ = write!(d, " H{:.1}", x(end));
        let _ = writeln!(
            svg,
            r#"<path class="admitted" d="{d}" fill="none" stroke="{color}" stroke-width="2"/>"#
        );
        let ly = top + 8.0 + 20.0 * i as f64;
        let lx = LEFT + plot_w + 16.0;
        let _ = writeln!(
            svg,
            r#"<g class="legend"><line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="11">wave {} ({})</text></g>"#,
            lx + 22.0,
            lx + 28.0,
            ly + 4.0,
            index + 1,
            if wave.admitted_at == "callers" {
                "its callers"
            } else {
                "entrypoints"
            }
        );
    }
}

/// The plot of a plan, as a standalone SVG document.
#[must_use]
pub fn render(plan: &Plan) -> String {
    let scheduled = plan.waves.iter().any(|w| !w.schedule.is_empty());
    let panels = if scheduled { 3.0 } else { 2.0 };
    let height = panels * PANEL_HEIGHT + (panels - 1.0) * GAP / 2.0 + GAP / 2.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" role="img" aria-label="Recovery of {}: load against capacity">"#,
        escape(&plan.system)
    );
    svg.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    panel(
        &mut svg,
        &plan.without_ramp,
        &format!(
            "Everything admitted at once: {}",
            if plan.without_ramp.converges {
                "converges"
            } else {
                "does not converge"
            }
        ),
        TOP,
        plan.horizon_s,
    );
    panel(
        &mut svg,
        &plan.ramp,
        &format!(
            "With the admission ramp: {}",
            if plan.ramp.converges {
                "converges"
            } else {
                "does not converge"
            }
        ),
        TOP + PANEL_HEIGHT + GAP / 2.0,
        plan.horizon_s,
    );
    if scheduled {
        schedule_panel(&mut svg, plan, TOP + 2.0 * (PANEL_HEIGHT + GAP / 2.0));
    }
    svg.push_str("</svg>\n");
    svg
}
