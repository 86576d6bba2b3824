//! `nines budget`: the downtime an availability target allows, and the
//! multi-window burn-rate alerts for it (the Google SRE workbook's
//! "multiwindow, multi-burn-rate alerts"). The figures are computed once in
//! [`Budget::new`]; the renderers only format them.

use std::io::{self, Write};

use serde::Serialize;

use super::table::{Style, align_right, table, wrap};
use crate::model::Duration;

/// Seconds in a year of 365.25 days.
pub const YEAR_S: f64 = 365.25 * 86_400.0;
/// Seconds in a month, taken as 30 days.
pub const MONTH_S: f64 = 30.0 * 86_400.0;
/// Seconds in a week.
pub const WEEK_S: f64 = 7.0 * 86_400.0;

/// The alert policies: (long window, short window, share of the window's
/// budget spent over the long window when the alert fires), in seconds.
/// With a 30-day window they are the workbook's burn rates 14.4, 6, 3 and 1.
const POLICIES: [(f64, f64, f64); 4] = [
    (3_600.0, 300.0, 0.02),
    (21_600.0, 1_800.0, 0.05),
    (86_400.0, 7_200.0, 0.10),
    (259_200.0, 21_600.0, 0.10),
];

/// A target's error budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    /// The availability target.
    pub target: f64,
    /// `1 − target`: the share of time (or requests) that may fail.
    pub error_budget: f64,
    /// The budget window, seconds.
    pub window_s: f64,
    /// The budget window as given.
    #[serde(skip)]
    pub window: Duration,
    /// Allowed downtime per period.
    pub downtime: Downtime,
    /// Burn-rate alerts, fastest first.
    pub burn_rates: Vec<BurnRate>,
}

/// Allowed downtime, seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Downtime {
    /// Per year of 365.25 days.
    pub year_s: f64,
    /// Per month of 30 days.
    pub month_s: f64,
    /// Per week.
    pub week_s: f64,
    /// Per budget window.
    pub window_s: f64,
}

/// One multi-window alert: page (or ticket) when the error rate over both
/// the long and the short window is above `error_rate`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BurnRate {
    /// How many times faster than "exactly on budget" the budget burns.
    pub burn_rate: f64,
    /// The long window, seconds.
    pub long_window_s: f64,
    /// The short window (a twelfth of the long one), seconds: it stops the
    /// alert soon after the burn stops.
    pub short_window_s: f64,
    /// Share of the window's budget spent over the long window at that rate.
    pub budget_consumed: f64,
    /// The error rate that fires it: `burn_rate × (1 − target)`; above 1
    /// the alert can never fire.
    pub error_rate: f64,
    /// Time to spend the whole window's budget at that rate, seconds.
    pub exhausts_budget_s: f64,
}

/// `x` to 12 significant digits, so that `1 − 0.9995` is written 0.0005
/// and not 0.0004999999999999449.
fn tidy(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

impl Budget {
    /// The budget of `target` over `window`. Policies whose long window is
    /// longer than the budget window are left out (they would look back
    /// further than the budget reaches).
    #[must_use]
    pub fn new(target: f64, window: Duration) -> Self {
        let error_budget = tidy(1.0 - target);
        let window_s = window.seconds();
        let burn_rates = POLICIES
            .iter()
            .filter(|(long, _, _)| *long <= window_s)
            .map(|&(long, short, consumed)| {
                let burn_rate = tidy(consumed * window_s / long);
                BurnRate {
                    burn_rate,
                    long_window_s: long,
                    short_window_s: short,
                    budget_consumed: consumed,
                    error_rate: tidy(burn_rate * error_budget),
                    exhausts_budget_s: tidy(window_s / burn_rate),
                }
            })
            .collect();
        Self {
            target,
            error_budget,
            window_s,
            window,
            downtime: Downtime {
                year_s: tidy(error_budget * YEAR_S),
                month_s: tidy(error_budget * MONTH_S),
                week_s: tidy(error_budget * WEEK_S),
                window_s: tidy(error_budget * window_s),
            },
            burn_rates,
        }
    }
}

/// A duration to the tenth of a second, every unit shown: `8h 45m 57.6s`.
#[must_use]
pub fn exact_duration(seconds: f64) -> String {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "budgets are non-negative and far below u64::MAX tenths of a second"
    )]
    let tenths = (seconds.max(0.0) * 10.0).round() as u64;
    let (whole, tenth) = (tenths / 10, tenths % 10);
    let mut parts = Vec::new();
    for (value, unit) in [
        (whole / 86_400, "d"),
        (whole % 86_400 / 3_600, "h"),
        (whole % 3_600 / 60, "m"),
    ] {
        if value > 0 {
            parts.push(format!("{value}{unit}"));
        }
    }
    let s = whole % 60;
    if tenth > 0 {
        parts.push(format!("{s}.{tenth}s"));
    } else if s > 0 || parts.is_empty() {
        parts.push(format!("{s}s"));
    }
    parts.join(" ")
}

/// A target as a percentage with up to four decimals: `99.95%`.
#[must_use]
pub fn target_percent(value: f64) -> String {
    let text = format!("{:.4}", value * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// A burn rate with up to two decimals: `14.4`, `0.33`.
fn rate(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// An error rate as a percentage with up to four decimals.
fn error_rate(value: f64) -> String {
    if value > 1.0 {
        return "over 100%: never fires".to_owned();
    }
    target_percent(value)
}

/// Writes the budget as two tables.
///
/// # Errors
/// When writing fails.
pub fn render(budget: &Budget, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "Error budget of {}: {} of the time may fail",
        target_percent(budget.target),
        target_percent(budget.error_budget)
    )?;
    writeln!(out)?;
    let mut downtime = table(style, &["period", "allowed downtime"]);
    let window = budget.window;
    for (period, seconds) in [
        ("year (365.25 days)".to_owned(), budget.downtime.year_s),
        ("month (30 days)".to_owned(), budget.downtime.month_s),
        ("week".to_owned(), budget.downtime.week_s),
        (format!("window ({window})"), budget.downtime.window_s),
    ] {
        downtime.add_row([period, exact_duration(seconds)]);
    }
    align_right(&mut downtime, 1..=1);
    writeln!(out, "{downtime}")?;
    writeln!(out)?;
    for line in wrap(
        &format!(
            "Burn-rate alerts over a {window} window: each fires when the error rate over both its long and its short window is above the threshold"
        ),
        style.width,
    ) {
        writeln!(out, "{line}")?;
    }
    if budget.burn_rates.is_empty() {
        writeln!(
            out,
            "none: every alert window is longer than the budget window"
        )?;
        return Ok(());
    }
    let mut alerts = table(
        style,
        &[
            "burn rate",
            "long window",
            "short window",
            "budget spent",
            "error rate above",
            "budget gone in",
        ],
    );
    for row in &budget.burn_rates {
        alerts.add_row([
            rate(row.burn_rate),
            exact_duration(row.long_window_s),
            exact_duration(row.short_window_s),
            target_percent(row.budget_consumed),
            error_rate(row.error_rate),
            exact_duration(row.exhausts_budget_s),
        ]);
    }
    align_right(&mut alerts, 0..=5);
    writeln!(out, "{alerts}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_nines_over_thirty_days() {
        let b = Budget::new(0.999, Duration(30 * 86_400_000));
        // 0.001 × 365.25 × 86400 = 31557.6 s; × 30 days = 2592 s; × 7 days = 604.8 s.
        assert!((b.downtime.year_s - 31_557.6).abs() < 1e-6);
        assert_eq!(exact_duration(b.downtime.year_s), "8h 45m 57.6s");
        assert_eq!(exact_duration(b.downtime.month_s), "43m 12s");
        assert_eq!(exact_duration(b.downtime.week_s), "10m 4.8s");
        // 2% of a 30-day budget in 1h: 0.02 × 720h / 1h = 14.4, error rate 1.44%.
        let rates: Vec<String> = b.burn_rates.iter().map(|r| rate(r.burn_rate)).collect();
        assert_eq!(rates, ["14.4", "6", "3", "1"]);
        assert!((b.burn_rates[0].error_rate - 0.0144).abs() < 1e-12);
        // At 14.4 the 30-day budget is gone in 720h / 14.4 = 50h.
        assert_eq!(exact_duration(b.burn_rates[0].exhausts_budget_s), "2d 2h");
    }

    #[test]
    fn a_short_window_drops_the_longer_alerts() {
        // 1-day window: 2% in 1h is 0.02 × 24 = 0.48; 3d looks back too far.
        let b = Budget::new(0.99, Duration(86_400_000));
        assert_eq!(b.burn_rates.len(), 3);
        assert_eq!(rate(b.burn_rates[0].burn_rate), "0.48");
    }

    #[test]
    fn durations_show_every_unit() {
        assert_eq!(exact_duration(0.0), "0s");
        assert_eq!(exact_duration(90_061.0), "1d 1h 1m 1s");
        assert_eq!(exact_duration(3_600.0), "1h");
    }
}
