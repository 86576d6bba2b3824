//! `metastable/<component>`: a component without load shedding whose
//! callers, retrying at their limit after an outage, send it more than its
//! cold capacity: once collapsed it cannot come back on its own.

use super::wording::{number, percent};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{ComponentId, Duration, Model};
use crate::recover::{Network, Settings};

// ---- finding constructors ----

/// The figures of one trapped component.
#[derive(Debug)]
struct Trap {
    /// Offered load when it restarts alone: the caches in front of it did
    /// not restart, so its steady load.
    lambda: f64,
    /// Offered load after a full outage: cold caches, no failures (its
    /// callers restart after it with nothing in flight).
    lambda_full: f64,
    /// Attempts per request at total failure.
    k: f64,
    /// Cold capacity.
    cold: f64,
    /// Share of its capacity a cold instance starts at (1 without warmup).
    share: f64,
    /// Its `rate_limit`: what is above it is refused at once, and only
    /// what it admits can queue.
    limit: Option<f64>,
}

impl Trap {
    /// What its rate limit admits of `offered`.
    fn admitted(&self, offered: f64) -> f64 {
        self.limit.map_or(offered, |l| offered.min(l))
    }

    /// What follows an offered load where the limit binds: "of which its
    /// `rate_limit` admits L".
    fn admits(&self, offered: f64) -> String {
        match self.limit {
            Some(l) if l < offered => format!(", of which its rate_limit admits {}", number(l)),
            _ => String::new(),
        }
    }
}

/// `metastable/<component>`: the trap's figures and how its cold capacity
/// is made up.
#[derive(Debug)]
struct Trapped {
    component: Arc<str>,
    trap: Trap,
    instances: u32,
    per_instance: f64,
    warmup: Duration,
    /// Whether the cold share is the default `policy.cold_capacity`.
    default_share: bool,
    /// A service the team does not run: no load shedding of its own to
    /// give it, only what its callers do.
    managed: bool,
}

fn trapped(model: &Model, id: ComponentId, trap: Trap, settings: &Settings) -> Finding {
    let component = model.component(id);
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.fields.get("load_shedding").or(component.fields.get("capacity")).unwrap_or(component.span),
        Trapped {
            component: name,
            trap,
            instances: component.instances,
            per_instance: component.capacity.map_or(0.0, |c| c.per_instance),
            warmup: component.warmup.unwrap_or_default(),
            default_share: settings
                .defaults
                .iter()
                .any(|d| d.starts_with("policy.cold_capacity")),
            managed: component.managed,
        },
    )
}

impl Wording for Trapped {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let trap = &self.trap;
        let full = if trap.admitted(trap.lambda_full) > trap.cold * (1.0 + 1e-12) {
            format!(
                "; after a full outage its callers restart after it with nothing in flight, and it is offered λ = {}{} with cold caches, above C as well: it collapses and their retries keep it there",
                number(trap.lambda_full),
                trap.admits(trap.lambda_full)
            )
        } else {
            format!(
                "; after a full outage its callers restart after it with nothing in flight, and it is offered λ = {}{} with cold caches, within C: no herd forms",
                number(trap.lambda_full),
                trap.admits(trap.lambda_full)
            )
        };
        let cold_text = if trap.share < 1.0 {
            let default = if self.default_share {
                ", the default `policy.cold_capacity`"
            } else {
                ""
            };
            format!(
                "{} × {} × {} (cold, {} warmup{default})",
                self.instances,
                number(self.per_instance),
                percent(trap.share),
                self.warmup
            )
        } else {
            format!("{} × {}", self.instances, number(self.per_instance))
        };
        let relation = if trap.admitted(trap.lambda * trap.k) > trap.cold * (1.0 + 1e-12) {
            ">"
        } else {
            "≤"
        };
        write!(
            out,
            "when {} restarts while its callers stay up (a lost host or zone) they have been failing and retrying: it is offered λ = {} and its callers make up to k = {} attempts per request while it fails: λ × k = {}{} {relation} C = {} = {}, and without load shedding a queue past the callers' timeout fails every request, so once collapsed it stays there until λ falls below C / k = {}{full}",
            self.component,
            number(trap.lambda),
            // An attempt multiplier near 1 keeps four significant figures,
            // so that λ × k checks by hand (9050 × 1.101 = 9960).
            crate::human::significant(trap.k, 4),
            number(trap.lambda * trap.k),
            trap.admits(trap.lambda * trap.k),
            cold_text,
            number(trap.cold),
            number(trap.cold / trap.k),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The share that keeps it below C: of λk when its callers stay up
        // (the trap that fires), else of λ after a full outage.
        let trap = &self.trap;
        let (admit, formula) = if trap.admitted(trap.lambda * trap.k) > trap.cold * (1.0 + 1e-12) {
            (trap.cold / (trap.k * trap.lambda), "C / (kλ)")
        } else {
            (trap.cold / trap.lambda_full, "C / λ_cold")
        };
        if self.managed {
            return write!(
                out,
                "{} is a managed service: the team cannot give it load shedding or capacity. Its callers can: put retry budgets on their calls to it (`retry_budget`), back off with jitter, shed or queue on the calling side, and after an outage admit at most {} at the edge (shed 1 − {formula} = {}) and ramp up: `nines recover` gives the schedule",
                self.component,
                percent(admit),
                percent(1.0 - admit),
            );
        }
        write!(
            out,
            "give {} `load_shedding: true`, put retry budgets on its callers, or after a restart admit at most {} at the edge (shed 1 − {formula} = {}) and ramp up as it warms: `nines recover` gives the schedule",
            self.component,
            percent(admit),
            percent(1.0 - admit),
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Metastable,
    id: "metastable/<component>",
    severity: "warning",
    summary: "After an outage a component without load shedding gets more retries than its cold capacity and cannot recover on its own.",
    checks: "For every component with `capacity` and `load` and without `load_shedding`, two restarts. Alone, while its callers stay up (a lost host or zone): they have been failing and retrying, so it is offered λ × k, λ its steady load (the caches in front of it did not restart) and k the attempts per request when every call fails (the product of `1 + retries`, or `1 + min(retries, retry_budget)`, along the required calls, weighted by the share of the load each path carries, times `1 + policy.client_retries`; a degradable call is switched off while its target is collapsed, so it does not count), and C its cold capacity: `instances × capacity`, times `policy.cold_capacity` (default 50%) when it has a `warmup`. After a full outage: its callers restart a wave after it with nothing in flight, so no herd forms unless λ_cold alone (its load with the caches in front of it empty) is above C. With a `rate_limit`, only what it admits can queue (the rest is refused at once): min(λ × k, rate_limit) and min(λ_cold, rate_limit) are compared. λ × k > C or λ_cold > C is reported, with the share to admit at the edge, C / (kλ) (or C / λ_cold). `nines recover --lose` and `nines recover --outage` simulate the same two states: a model just below each threshold converges, one above it does not.",
    why: "A server without load shedding queues what it cannot serve. After an outage every caller has been failing and is retrying, so the restarted server is offered λ × k at its lowest capacity; its queue grows past the callers' timeout, every answer comes too late, every call fails and is retried, and the load stays at λ × k: the failure sustains itself after its trigger is gone (a metastable failure). To leave it the offered load must fall below C / k, not below C: with k = 4 shedding 20% at the edge changes nothing, shedding 75% works.",
    example: "components:\n  edge: {depends_on: [{target: app, retries: 3}]}\n  app: {capacity: 1000, load: 1000}   # metastable/app: 1000 × 4 = 4000 > 1000",
    fix: "Give the component `load_shedding: true` (it then serves its capacity and refuses the rest cheaply), cap the callers' retries with `retry_budget`, or plan the restart: admit at most C / (kλ) at the edge and ramp up as capacity warms (`nines recover` gives the schedule).",
};

// ---- the check ----

/// The `metastable` rule.
pub struct Metastable;

/// Every trapped component, with its figures.
fn traps(
    model: &Model,
    waves: &[Vec<ComponentId>],
    settings: &Settings,
) -> Vec<(ComponentId, Trap)> {
    let net = Network::new(model, waves);
    let intake = net.worst_intake(1.0 + f64::from(settings.client_retries));
    let mut out = Vec::new();
    for id in model.component_ids() {
        let component = model.component(id);
        let Some(figures) = component.capacity else {
            continue;
        };
        let (cold_rel, worst_rel) = intake[id.0];
        if component.load_shedding || figures.load <= 0.0 || cold_rel <= 0.0 {
            continue;
        }
        let share = if component.warmup.is_some_and(|w| w.0 > 0) {
            settings.cold_capacity
        } else {
            1.0
        };
        let trap = Trap {
            lambda: figures.load,
            lambda_full: figures.load * cold_rel,
            k: worst_rel / cold_rel,
            cold: figures.per_instance * f64::from(component.instances) * share,
            share,
            limit: component.rate_limit,
        };
        // A rate limit refuses what is above it at once: what it admits
        // is all that can queue.
        if trap.admitted(trap.lambda * trap.k) > trap.cold * (1.0 + 1e-12)
            || trap.admitted(trap.lambda_full) > trap.cold * (1.0 + 1e-12)
        {
            out.push((id, trap));
        }
    }
    out
}

impl Analyzer for Metastable {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let settings = Settings::of(cx.model, 3600.0);
        for (id, trap) in traps(cx.model, &cx.start_order().waves, &settings) {
            audit
                .findings
                .push(trapped(cx.model, id, trap, &settings));
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recover::{Scenario, plan};

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&Metastable, text)
    }

    /// Whether everything admitted at once converges after app alone was
    /// lost for 10 minutes (`lose`, its callers up) or after a full outage.
    fn converges(text: &str, lose: bool) -> bool {
        let model = crate::model::parse(text).unwrap();
        let settings = Settings::of(&model, 3600.0);
        let scenario = if lose {
            Scenario::losing(&model, &["app".to_owned()], 600.0).unwrap()
        } else {
            Scenario::full_outage(&model, 600.0)
        };
        plan(&model, &scenario, &settings, None)
            .without_ramp
            .converges
    }

    /// app: 1 × 1000 with a 5m warmup starts at 50%: C = 500; k = 1 + 3 = 4.
    fn model(load: u32) -> String {
        format!(
            "system: s\ncomponents:\n  edge: {{depends_on: [{{target: app, retries: 3, timeout: 1s}}]}}\n  app: {{capacity: 1000, load: {load}, warmup: 5m}}\n"
        )
    }

    #[test]
    fn just_above_the_threshold_fires_and_the_simulation_stays_stuck() {
        // λ × k = 130 × 4 = 520 > 500.
        let audit = run(&model(130));
        assert_eq!(audit.findings.len(), 1);
        let finding = &audit.findings[0];
        assert_eq!(finding.id().to_string(), "metastable/app");
        assert!(
            finding.message().to_string().contains(
                "λ = 130 and its callers make up to k = 4 attempts per request while it fails: λ × k = 520 > C = 1 × 1000 × 50% (cold, 5m warmup, the default `policy.cold_capacity`) = 500"
            ) && finding.message().to_string().contains(
                "after a full outage its callers restart after it with nothing in flight, and it is offered λ = 130 with cold caches, within C: no herd forms"
            ),
            "{}",
            finding.message().to_string()
        );
        // Admit 500 / 520 = 96.2%, shed 3.8%.
        assert!(
            finding
                .help().map(|help| help.to_string())
                .as_deref()
                .unwrap_or("")
                .contains("admit at most 96.2% at the edge (shed 1 − C / (kλ) = 3.8%)")
        );
        // The simulation agrees on both: stuck when app alone restarts
        // (520 > 500), back at once after a full outage (130 ≤ 500).
        assert!(!converges(&model(130), true));
        assert!(converges(&model(130), false));
    }

    #[test]
    fn a_full_outage_traps_only_when_lambda_alone_is_above_the_cold_capacity() {
        // λ = 600 > C = 500 with the callers restarting after app: it
        // collapses on its first traffic and 600 × 4 = 2400 keeps it there.
        let audit = run(&model(600));
        assert_eq!(audit.findings.len(), 1);
        let message = audit.findings[0].message().to_string();
        assert!(
            message.contains("offered λ = 600 with cold caches, above C as well"),
            "{message}"
        );
        assert!(!converges(&model(600), false));
    }

    #[test]
    fn just_below_the_threshold_is_clean_and_the_simulation_converges() {
        // λ × k = 120 × 4 = 480 <= 500.
        assert!(run(&model(120)).findings.is_empty());
        assert!(converges(&model(120), true));
        assert!(converges(&model(120), false));
    }

    #[test]
    fn load_shedding_or_a_budget_clears_it() {
        let shedding = model(130).replace("warmup: 5m}", "warmup: 5m, load_shedding: true}");
        assert!(run(&shedding).findings.is_empty());
        assert!(converges(&shedding, true));
        // A 10% budget: k = 1.1, 130 × 1.1 = 143 <= 500.
        let budget = model(130).replace("timeout: 1s", "timeout: 1s, retry_budget: 10%");
        assert!(run(&budget).findings.is_empty());
    }

    #[test]
    fn a_rate_limit_within_the_cold_capacity_admits_no_herd() {
        // λ × k = 130 × 4 = 520 arrive; a limit of 450 admits 450 ≤ C = 500
        // and refuses the other 70 at once: nothing queues, no trap, and the
        // simulation converges (the state of `check` sheds there too).
        let limited = model(130).replace("warmup: 5m}", "warmup: 5m, rate_limit: 450}");
        assert!(run(&limited).findings.is_empty());
        assert!(converges(&limited, true));
        // A limit of 510 admits 510 > 500: the admitted excess queues,
        // the trap stands and the simulation stays stuck.
        let loose = model(130).replace("warmup: 5m}", "warmup: 5m, rate_limit: 510}");
        let audit = run(&loose);
        assert_eq!(audit.findings.len(), 1);
        let message = audit.findings[0].message().to_string();
        assert!(
            message.contains("λ × k = 520, of which its rate_limit admits 510 > C = 1 × 1000 × 50%"),
            "{message}"
        );
        assert!(!converges(&loose, true));
    }
}
