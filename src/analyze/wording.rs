//! How figures are written in finding messages and tables, so every
//! analyzer prints the same number the same way and a reviewer can redo the
//! arithmetic: loads as the model gives them, ratios as percents with as
//! many decimals as it takes to tell them from their threshold.

use std::fmt;
use std::sync::Arc;

use crate::engine::outage::{LISTED, Outage};
use crate::model::{ComponentId, Model, Plane};

/// A figure in a message or a table cell: [`amount`], the one way a load,
/// a capacity, an attempt count or a ratio of them is written (`27`,
/// `1.1`, `0.33`, `338.13`), so that one column never mixes `338.129`
/// with `12.5`.
pub(crate) fn number(value: f64) -> String {
    amount(value)
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
    OutageWords::new(model, outage).to_string()
}

/// The facts [`describe_outage`] writes, kept by findings that write them
/// only when shown: the first [`LISTED`] names of each list and how many
/// there are.
#[derive(Debug, Clone)]
pub(crate) struct OutageWords {
    lost: Vec<LostWords>,
    lost_total: usize,
    dragged: Vec<Arc<str>>,
    dragged_total: usize,
    entrypoints: Vec<Arc<str>>,
    entrypoints_total: usize,
    /// Components down on their own that no entrypoint needs (an optional
    /// tracer on the lost node): named apart, never as a cause.
    unneeded: Vec<Arc<str>>,
    unneeded_total: usize,
}

/// A component down on its own: `postgres (control plane, 1 of 1
/// instances, needs 2)`, or after a scenario that already took some,
/// `redis (2 of 6 instances, after 2 already down: 2 left, needs 3)`.
#[derive(Debug, Clone)]
struct LostWords {
    name: Arc<str>,
    control: bool,
    lost: u32,
    /// Instances already down before the event (a what-if's scenario).
    already: u32,
    instances: u32,
    min_healthy: u32,
}

impl OutageWords {
    pub(crate) fn new(model: &Model, outage: &Outage) -> Self {
        Self::with_needed(model, outage, &[])
    }

    /// [`OutageWords::new`], naming apart the components down on their own
    /// that `needed` (the entrypoints' required closure; empty: all count)
    /// does not mark.
    pub(crate) fn with_needed(model: &Model, outage: &Outage, needed: &[bool]) -> Self {
        let is_needed = |id: ComponentId| needed.get(id.0).copied().unwrap_or(true);
        let names = |ids: &[ComponentId]| -> Vec<Arc<str>> {
            ids.iter()
                .take(LISTED)
                .map(|&id| Arc::from(model.component(id).name.as_str()))
                .collect()
        };
        let unneeded: Vec<ComponentId> = outage
            .lost
            .iter()
            .map(|&(id, _)| id)
            .filter(|&id| !is_needed(id))
            .collect();
        let lost = outage
            .lost
            .iter()
            .filter(|&&(id, _)| is_needed(id))
            .take(LISTED)
            .map(|&(id, lost)| {
                let c = model.component(id);
                let already = outage
                    .already_down
                    .iter()
                    .find(|(down, _)| *down == id)
                    .map_or(0, |&(_, n)| n);
                LostWords {
                    name: Arc::from(c.name.as_str()),
                    control: c.plane == Plane::Control,
                    lost,
                    already,
                    instances: c.instances,
                    min_healthy: c.min_healthy,
                }
            })
            .collect();
        Self {
            lost,
            lost_total: outage.lost.len() - unneeded.len(),
            dragged: names(&outage.dragged),
            dragged_total: outage.dragged_total,
            entrypoints: names(&outage.entrypoints),
            entrypoints_total: outage.entrypoints.len(),
            unneeded_total: unneeded.len(),
            unneeded: names(&unneeded),
        }
    }

    /// The names of the components down on their own (at most [`LISTED`]).
    pub(crate) fn lost_names(&self) -> impl Iterator<Item = &str> {
        self.lost.iter().map(|l| &*l.name)
    }
}

impl fmt::Display for OutageWords {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lost: Vec<String> = self
            .lost
            .iter()
            .map(|l| {
                let plane = if l.control { "control plane, " } else { "" };
                let needs = if l.min_healthy > 1 {
                    format!(", needs {}", l.min_healthy)
                } else {
                    String::new()
                };
                let before = if l.already > 0 {
                    let left = l.instances.saturating_sub(l.already + l.lost);
                    format!(", after {} already down: {left} left", l.already)
                } else {
                    String::new()
                };
                format!(
                    "{} ({plane}{} of {} instances{before}{needs})",
                    l.name, l.lost, l.instances
                )
            })
            .collect();
        out.write_str(&capped_list(&lost, self.lost_total, LISTED))?;
        if !self.dragged.is_empty() {
            out.write_str(" and with it ")?;
            out.write_str(&capped_list(&self.dragged, self.dragged_total, LISTED))?;
        }
        let (word, verb) = if self.entrypoints_total == 1 {
            ("entrypoint", "goes")
        } else {
            ("entrypoints", "go")
        };
        write!(
            out,
            "; {word} {} {verb} down",
            capped_list(&self.entrypoints, self.entrypoints_total, LISTED)
        )?;
        if !self.unneeded.is_empty() {
            write!(
                out,
                "; also down, needed by no entrypoint: {}",
                capped_list(&self.unneeded, self.unneeded_total, LISTED)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(27.0), "27");
        assert_eq!(number(1.1), "1.1");
        assert_eq!(number(1.0 / 3.0), "0.33");
        assert_eq!(number(338.129), "338.13");
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
