//! How figures are written in finding messages and tables, so every
//! analyzer prints the same number the same way and a reviewer can redo the
//! arithmetic: loads as the model gives them, ratios as percents with as
//! many decimals as it takes to tell them from their threshold.

use std::fmt::Write as _;

use crate::engine::outage::{LISTED, Outage};
use crate::model::{ComponentId, Model, Plane};

/// A number with at most three decimals and no trailing zeros: `27`, `1.1`,
/// `0.333`.
pub(crate) fn number(value: f64) -> String {
    if !value.is_finite() || value.abs() >= 1e15 || (value != 0.0 && value.abs() < 1e-4) {
        return crate::human::significant(value, 3);
    }
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// A ratio as a percentage with at most one decimal: `5%`, `33.1%`.
pub(crate) fn percent(ratio: f64) -> String {
    if !ratio.is_finite() || ratio.abs() >= 1e4 {
        return crate::human::percent(ratio, 3);
    }
    let text = format!("{:.1}", ratio * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    list(items, "and")
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    list(items, "or")
}

/// `a, b, c` for at most `cap` of `total` items, `a, b, c and 3 more` past
/// it (`items` holds at least the first `cap`, or all of them).
pub(crate) fn capped_list<S: AsRef<str>>(items: &[S], total: usize, cap: usize) -> String {
    let shown: Vec<&str> = items.iter().take(cap).map(AsRef::as_ref).collect();
    if total <= cap {
        return shown.join(", ");
    }
    format!("{} and {} more", shown.join(", "), total - shown.len())
}

/// The items joined by commas, the last one by `conjunction`.
fn list<S: AsRef<str>>(items: &[S], conjunction: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => format!(
            "{} {conjunction} {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

/// `once`, `twice`, `3 times`.
pub(crate) fn times(count: u32) -> String {
    match count {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

/// A load or capacity as the model gives it: `1660`, `12.5`.
pub(crate) fn amount(x: f64) -> String {
    crate::human::amount(x)
}

/// A ratio as a whole percent, halves rounded up as by hand: `0.8333` →
/// `83%`, `0.625` → `63%`.
pub(crate) fn whole_percent(ratio: f64) -> String {
    if !ratio.is_finite() || ratio.abs() >= 1e4 {
        return crate::human::percent(ratio, 3);
    }
    format!("{:.0}%", (ratio * 100.0).round())
}

/// A ratio as a percent with as many decimals (up to 2) as it takes to tell
/// it apart from `limit`: `0.8004` against `0.8` is `80.04%`, never `80%`.
/// Halves are rounded up, as by hand.
pub(crate) fn percent_against(ratio: f64, limit: f64) -> String {
    if !ratio.is_finite() || ratio.abs() >= 1e4 {
        return crate::human::percent(ratio, 3);
    }
    for (decimals, scale) in [(0, 1.0), (1, 10.0), (2, 100.0)] {
        let round = |x: f64| format!("{:.*}", decimals, (x * 100.0 * scale).round() / scale);
        let (a, b) = (round(ratio), round(limit));
        if a != b {
            return format!("{a}%");
        }
    }
    whole_percent(ratio)
}

/// What an event takes down, in words: "postgres (1 of 1 instances) and
/// with it checkout, lb; entrypoint lb goes down".
pub fn describe_outage(model: &Model, outage: &Outage) -> String {
    let names = |ids: &[ComponentId]| -> Vec<String> {
        ids.iter()
            .map(|&id| model.component(id).name.clone())
            .collect()
    };
    let lost: Vec<String> = outage
        .lost
        .iter()
        .map(|&(id, n)| {
            let c = model.component(id);
            let plane = if c.plane == Plane::Control {
                "control plane, "
            } else {
                ""
            };
            let needs = if c.min_healthy > 1 {
                format!(", needs {}", c.min_healthy)
            } else {
                String::new()
            };
            format!(
                "{} ({plane}{n} of {} instances{needs})",
                c.name, c.instances
            )
        })
        .collect();
    let mut text = capped_list(&lost, lost.len(), LISTED);
    if !outage.dragged.is_empty() {
        text.push_str(" and with it ");
        text.push_str(&capped_list(
            &names(&outage.dragged),
            outage.dragged_total,
            LISTED,
        ));
    }
    let (word, verb) = if outage.entrypoints.len() == 1 {
        ("entrypoint", "goes")
    } else {
        ("entrypoints", "go")
    };
    let entrypoints = names(&outage.entrypoints);
    let _ = write!(
        text,
        "; {word} {} {verb} down",
        capped_list(&entrypoints, entrypoints.len(), LISTED)
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(27.0), "27");
        assert_eq!(number(1.1), "1.1");
        assert_eq!(number(1.0 / 3.0), "0.333");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(percent(0.05), "5%");
        assert_eq!(percent(3000.0 / 9050.0), "33.1%");
        assert_eq!(and_list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(or_list(&["a", "b"]), "a or b");
        assert_eq!(times(1), "once");
        assert_eq!(times(3), "3 times");
    }

    #[test]
    fn numbers_read_like_the_model() {
        assert_eq!(amount(1660.0), "1660");
        assert_eq!(amount(12.5), "12.5");
        assert_eq!(amount(0.333_333), "0.33");
        assert_eq!(whole_percent(100.0 / 120.0), "83%");
        assert_eq!(whole_percent(0.625), "63%");
        assert_eq!(percent_against(1.125, 1.0), "113%");
        assert_eq!(percent_against(0.8004, 0.8), "80.04%");
        assert_eq!(percent_against(1.25, 1.0), "125%");
        assert_eq!(percent_against(0.8, 0.8), "80%");
    }

    #[test]
    fn an_outage_names_what_it_takes_and_what_follows() {
        use crate::engine::scenario::{Baseline, Scenario};
        let m = crate::model::parse(
            r"system: s
domains: {az-a: {kind: zone}, az-b: {kind: zone}}
components:
  lb: {instances: 2, placement: [az-a, az-b], depends_on: [checkout]}
  checkout: {instances: 2, placement: [az-a, az-b], depends_on: [postgres]}
  postgres: {placement: [az-a]}
",
        )
        .unwrap();
        let lose_a = Scenario {
            domains: vec![crate::model::DomainId(0)],
            ..Scenario::default()
        };
        let outage = crate::engine::outage::outage(&m, &Baseline::new(&m), &lose_a).unwrap();
        // postgres has its only instance in az-a; checkout and lb keep one
        // instance each but need postgres.
        assert_eq!(
            describe_outage(&m, &outage),
            "postgres (1 of 1 instances) and with it lb, checkout; entrypoint lb goes down"
        );
    }

    #[test]
    fn long_lists_are_cut() {
        let items: Vec<String> = (0..8).map(|i| format!("c{i}")).collect();
        assert_eq!(
            capped_list(&items, items.len(), LISTED),
            "c0, c1, c2, c3, c4, c5 and 2 more"
        );
    }
}
