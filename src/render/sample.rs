//! One shared report for the renderers' unit tests: every status and
//! severity, and a message with the characters each format must escape.

use super::{Audit, AvailabilityRow, HeadroomRow};
use crate::analyze::{Finding, Location, Severity, Status, Text};
use crate::model::{Rule, Span};

fn finding(rule: Rule, subject: &str, severity: Severity, line: usize, text: Text) -> Finding {
    let mut finding = Finding::new(rule, subject, severity, Span::default(), text);
    finding.location = Location { line, column: 3 };
    finding
}

/// A small shop: an SLO miss, two SPOFs (one accepted), a headroom row over
/// the limit, a warning with awkward characters, and a note.
pub(crate) fn audit() -> Audit {
    let mut accepted = finding(
        Rule::Spof,
        "config",
        Severity::Error,
        20,
        Text::new("config has 1 instance and api needs it"),
    );
    accepted.status = Status::Accepted;
    accepted.justification = Some("single-region by design; runbook R-12".to_owned());
    let findings = vec![
        finding(
            Rule::Headroom,
            "api/az-a",
            Severity::Error,
            5,
            Text::new("losing az-a leaves 2 of 4 api instances at 125% of capacity")
                .help("run 6 instances, 2 per zone"),
        ),
        finding(
            Rule::Placement,
            "cache",
            Severity::Warning,
            12,
            Text::new("cache: 100% of traffic, in no domain | <none>, see a*b\nsecond line"),
        ),
        finding(
            Rule::RetryBudget,
            "api>db",
            Severity::Note,
            8,
            Text::new("api retries db without a retry_budget"),
        ),
        finding(
            Rule::Slo,
            "api",
            Severity::Error,
            2,
            Text::new("api is up 99.85% of the time, below the 99.9% objective"),
        ),
        accepted,
        finding(
            Rule::Spof,
            "db",
            Severity::Error,
            15,
            Text::new("db has 1 instance and api needs it")
                .help("run 2 instances in different zones"),
        ),
    ];
    let mut audit = Audit::new("shop".to_owned(), findings);
    audit.availability.insert(
        "api".to_owned(),
        AvailabilityRow {
            availability: Some(0.9985),
            method: "exact",
            lower: 0.9985,
            upper: 0.9985,
            unavailability: Some(0.0015),
            unavailability_lower: 0.0015,
            unavailability_upper: 0.0015,
            nines: Some(2.82),
            downtime_per_year_s: Some(47_336.4),
            window_s: 2_592_000.0,
            downtime_per_window_s: Some(3_888.0),
            objective: Some(0.999),
            error_budget_s: Some(2_592.0),
            improvement: Vec::new(),
            unquantified: Vec::new(),
            unquantified_components: 0,
            switchover: 0.0,
            caveats: Vec::new(),
            why_bounded: None,
            structural_availability: Some(0.9985),
            structural_unavailability: Some(0.0015),
            served: Some(0.9985),
            served_method: "exact",
            capacity: Vec::new(),
        },
    );
    audit.headroom.push(HeadroomRow {
        component: "api".into(),
        lost: "az-a".into(),
        instances: 4,
        survivors: 2,
        utilization: 1.25,
        ok: false,
        required_instances: 6,
        per_domain: Some(2),
        required_steady_utilization: 0.42,
    });
    audit
}
