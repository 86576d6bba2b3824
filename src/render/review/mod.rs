//! The review document of `nines report`: one [`Document`] of sections,
//! tables and findings, laid out once from an [`Audit`] and its
//! [`Diagram`], then written as Markdown ([`markdown`]) or as a
//! self-contained HTML page ([`html`]). Both formats hold the same sections
//! in the same order; an empty section says "none".

pub mod html;
pub mod markdown;
mod recovery;

use super::diagram::Diagram;
use super::table::{
    cascade_line, downtime, recovery_cells, retry_cells, row_downtime, seconds, stampede_cells,
};
use super::{Audit, HeadroomRow};
use crate::analyze::wording::whole_percent;
use crate::analyze::{Finding, Severity, Status, by_severity};

/// Improvement rows shown per entrypoint; the JSON report has them all.
const IMPROVEMENT_ROWS: usize = 10;

/// The review, format-independent.
pub struct Document<'a> {
    /// The title (`Reliability review: web-shop`).
    pub title: String,
    /// Sections in order.
    pub sections: Vec<Section<'a>>,
    /// The dependency diagram.
    pub diagram: &'a Diagram,
}

/// One titled section.
pub struct Section<'a> {
    /// Its title.
    pub title: &'static str,
    /// Its content, in order.
    pub blocks: Vec<Block<'a>>,
}

/// A piece of a section. Text may hold `code` spans in backticks, as the
/// findings' messages do.
pub enum Block<'a> {
    /// A paragraph.
    Text(String),
    /// A small heading inside a section.
    Heading(String),
    /// A table; `right` lists the columns aligned right.
    Table {
        /// Column titles.
        header: Vec<&'static str>,
        /// Cells, row by row.
        rows: Vec<Vec<String>>,
        /// Columns to align right (figures).
        right: Vec<usize>,
    },
    /// A bulleted list.
    List(Vec<String>),
    /// Findings with their ids, places, messages and help lines.
    Findings(Vec<&'a Finding>),
    /// The dependency diagram.
    Diagram,
    /// The recovery plot (an SVG document; markdown says where to get it).
    Plot(String),
}

/// Lays out the review of `report` for the model file `file`.
#[must_use]
pub fn document<'a>(
    audit: &'a Audit,
    file: &str,
    diagram: &'a Diagram,
    plan: Option<&crate::recover::Plan>,
) -> Document<'a> {
    Document {
        title: format!("Reliability review: {}", audit.system),
        sections: vec![
            summary(audit, file),
            availability(audit),
            findings(audit),
            headroom(audit),
            cascades(audit),
            retries(audit),
            recovery_order(audit),
            recovery::section(plan),
            disaster_recovery(audit),
            diagram_section(diagram),
        ],
        diagram,
    }
}

fn diagram_section(diagram: &Diagram) -> Section<'static> {
    let mut blocks = vec![Block::Text("Callers above what they call; failure domains as boxes; dashed calls are degradable (the caller works without them); `any of` and `k of n` mark the alternatives of one `any_of` or `at_least`; failover (`failover_to`) is drawn apart from the calls; a red border marks a single point of failure.".to_owned())];
    if diagram.hidden > 0 {
        blocks.push(Block::Text(format!(
            "The model is too large to draw whole: the diagram shows {} components, those named by the most serious findings (errors first) each with a shortest call path from an entrypoint; the other {} are left out (`nines graph` draws them all).",
            diagram.nodes.len(),
            diagram.hidden
        )));
    }
    blocks.push(Block::Diagram);
    Section {
        title: "Dependency diagram",
        blocks,
    }
}

fn none() -> Block<'static> {
    Block::Text("none".to_owned())
}

fn summary(audit: &Audit, file: &str) -> Section<'static> {
    let count = |s: Severity| audit.findings.iter().filter(|f| f.severity == s).count();
    let failing = audit.failing(Some(Severity::Error)).count();
    let verdict = if failing == 0 {
        "**Verdict: passes.** No new error-level finding.".to_owned()
    } else {
        format!(
            "**Verdict: does not pass.** {failing} new error-level finding(s) to fix or accept with a reason."
        )
    };
    let accepted = audit
        .findings
        .iter()
        .filter(|f| f.status == Status::Accepted)
        .count();
    let mut blocks = vec![
        Block::Text(format!("Model `{file}`.")),
        Block::Text(verdict),
        Block::Text(format!(
            "{} error(s), {} warning(s), {} note(s); {accepted} accepted.",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Note)
        )),
    ];
    let lines: Vec<String> = audit
        .availability
        .iter()
        .map(|(name, row)| {
            let against = match (row.objective, row.availability) {
                (Some(o), Some(a)) if a < o => {
                    format!(", misses the objective of {}", objective(o))
                }
                (Some(o), _) if !row.complete() => {
                    format!(
                        ", cannot be judged against the objective of {}",
                        objective(o)
                    )
                }
                (Some(o), _) => format!(", meets the objective of {}", objective(o)),
                (None, _) => String::new(),
            };
            let weakest = row
                .improvement
                .first()
                .map_or_else(String::new, |i| format!("; weakest link {}", i.component));
            format!(
                "`{name}`: {} ({} nines){against}{weakest}",
                row.figure_text(),
                row.nines_text()
            )
        })
        .collect();
    if !lines.is_empty() {
        blocks.push(Block::List(lines));
    }
    Section {
        title: "Summary",
        blocks,
    }
}

/// An objective as the model writes it: `99.9%`.
fn objective(value: f64) -> String {
    let text = format!("{:.4}", value * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// The improvement table's rows of one entrypoint, its gain column in one
/// notation.
fn improvement_rows(row: &crate::analyze::results::AvailabilityRow) -> Vec<Vec<String>> {
    let shown: Vec<_> = row.improvement.iter().take(IMPROVEMENT_ROWS).collect();
    let gains: Vec<f64> = shown.iter().map(|i| i.gain).collect();
    shown
        .iter()
        .zip(crate::human::gains(&gains))
        .map(|(i, gain)| {
            vec![
                i.component.clone(),
                i.kind.to_owned(),
                gain,
                downtime(i.gain * row.window_s),
            ]
        })
        .collect()
}

fn availability(audit: &Audit) -> Section<'static> {
    if audit.availability.is_empty() {
        return Section {
            title: "Availability",
            blocks: vec![none()],
        };
    }
    let rows = audit
        .availability
        .iter()
        .map(|(name, row)| {
            vec![
                name.clone(),
                if row.method == "exact" || row.availability.is_none() {
                    row.figure_text()
                } else {
                    format!(
                        "{} (between {} and {})",
                        row.figure_text(),
                        crate::human::availability_of(row.lower, row.unavailability_upper),
                        crate::human::availability_of(row.upper, row.unavailability_lower)
                    )
                },
                row.nines_text(),
                row_downtime(row, row.downtime_per_year_s),
                format!(
                    "{} per {}",
                    row_downtime(row, row.downtime_per_window_s),
                    seconds(row.window_s)
                ),
                row.objective.map_or_else(|| "-".to_owned(), objective),
                row.error_budget_s.map_or_else(|| "-".to_owned(), downtime),
            ]
        })
        .collect();
    let mut blocks = vec![Block::Table {
        header: vec![
            "entrypoint",
            "availability",
            "nines",
            "downtime/year",
            "downtime/window",
            "objective",
            "budget/window",
        ],
        rows,
        right: vec![1, 2, 3, 4, 5, 6],
    }];
    for (name, row) in &audit.availability {
        blocks.push(Block::Heading(format!("Improvement potential of `{name}`")));
        if row.availability.is_none() {
            blocks.push(Block::Text(
                "none: nothing it needs has a figure (n/a)".to_owned(),
            ));
        } else if row.improvement.is_empty() {
            blocks.push(Block::Text(
                "none: nothing it needs has a figure below 100%".to_owned(),
            ));
        } else {
            blocks.push(Block::Text(
                "The entrypoint's availability if one thing never failed, minus the current one; largest first.".to_owned(),
            ));
            blocks.push(Block::Table {
                header: vec!["never fails", "kind", "gain", "downtime saved/window"],
                rows: improvement_rows(row),
                right: vec![2, 3],
            });
            let hidden = row.improvement.len().saturating_sub(IMPROVEMENT_ROWS);
            if hidden > 0 {
                blocks.push(Block::Text(format!(
                    "… and {hidden} more in `nines check --format json`."
                )));
            }
        }
        if !row.unquantified.is_empty() {
            blocks.push(Block::Text(format!(
                "No figure, counted as never failing: {}.",
                row.unquantified.join(", ")
            )));
        }
    }
    let notes = super::table::availability_notes(audit);
    if !notes.is_empty() {
        blocks.push(Block::List(notes));
    }
    Section {
        title: "Availability",
        blocks,
    }
}

fn findings(audit: &Audit) -> Section<'_> {
    let mut blocks = Vec::new();
    for (severity, group) in by_severity(&audit.findings) {
        blocks.push(Block::Heading(format!(
            "{} ({})",
            severity.heading(),
            group.len()
        )));
        blocks.push(Block::Findings(group));
    }
    if blocks.is_empty() {
        blocks.push(none());
    }
    Section {
        title: "Findings",
        blocks,
    }
}

/// Rows with the highest utilization first, as in the terminal table.
#[must_use]
pub fn worst_first(rows: &[HeadroomRow]) -> Vec<&HeadroomRow> {
    let mut rows: Vec<&HeadroomRow> = rows.iter().collect();
    rows.sort_by(|a, b| worse(a, b));
    rows
}

/// The first `n` rows of [`worst_first`], without sorting the others (a
/// large model has hundreds of thousands of rows).
#[must_use]
pub fn worst_n(rows: &[HeadroomRow], n: usize) -> Vec<&HeadroomRow> {
    let mut rows: Vec<&HeadroomRow> = rows.iter().collect();
    if n == 0 {
        return Vec::new();
    }
    if n < rows.len() {
        rows.select_nth_unstable_by(n - 1, |a, b| worse(a, b));
        rows.truncate(n);
    }
    // A component and a loss name one row: no two rows compare equal, so
    // an unstable sort gives the order of the stable one.
    rows.sort_unstable_by(|a, b| worse(a, b));
    rows
}

/// Higher utilization first, then by component and loss.
fn worse(a: &HeadroomRow, b: &HeadroomRow) -> std::cmp::Ordering {
    b.utilization
        .total_cmp(&a.utilization)
        .then_with(|| a.component.cmp(&b.component))
        .then_with(|| a.lost.cmp(&b.lost))
}

/// The sizing that would pass: `6 (2 per domain), 42%` or `4, 63%`.
#[must_use]
pub fn sizing(row: &HeadroomRow) -> String {
    sizing_with(row, true)
}

/// [`sizing`], with or without the steady-state utilization (the terminal
/// leaves it to the finding's help, to fit in 80 columns).
#[must_use]
pub fn sizing_with(row: &HeadroomRow, steady: bool) -> String {
    if row.ok {
        return "-".to_owned();
    }
    let limit = crate::analyze::LARGEST_SENSIBLE_FLEET;
    if row.required_instances > limit {
        return format!("over {limit}: check units");
    }
    let add = row.required_instances.saturating_sub(row.instances);
    let spread = row
        .per_domain
        .map_or_else(String::new, |n| format!(", {n} per domain"));
    let steady = if steady {
        format!(", {}", whole_percent(row.required_steady_utilization))
    } else {
        String::new()
    };
    if add == 0 {
        format!("respread: {}{spread}{steady}", row.required_instances)
    } else {
        format!("+{add} → {}{spread}{steady}", row.required_instances)
    }
}

/// What a headroom row loses, as a reader says it: `az-a`, `az-a+az-b`,
/// `1 instance` (the JSON keeps the key `instance`).
#[must_use]
pub fn lost(row: &HeadroomRow) -> String {
    if &*row.lost == "instance" {
        "1 instance".to_owned()
    } else {
        row.lost.to_string()
    }
}

fn headroom(audit: &Audit) -> Section<'static> {
    if audit.headroom.is_empty() {
        return Section {
            title: "Headroom (N-k)",
            blocks: vec![none()],
        };
    }
    let rows = worst_first(&audit.headroom)
        .into_iter()
        .map(|row| {
            vec![
                row.component.to_string(),
                lost(row),
                format!("{} of {}", row.survivors, row.instances),
                whole_percent(row.utilization),
                (if row.ok { "ok" } else { "OVER" }).to_owned(),
                sizing(row),
            ]
        })
        .collect();
    Section {
        title: "Headroom (N-k)",
        blocks: vec![
            Block::Text("Peak load over the capacity left after each loss, worst first; for a loss that is over, the instances to add, the fleet that would pass and its steady-state utilization.".to_owned()),
            Block::Table {
                header: vec!["component", "lost", "left", "utilization", "verdict", "to pass (add → fleet, steady)"],
                rows,
                right: vec![2, 3],
            },
        ],
    }
}

fn cascades(audit: &Audit) -> Section<'static> {
    let blocks = if audit.cascades.is_empty() {
        vec![none()]
    } else {
        vec![
            Block::Text("Each component failing at peak, its load moving along `failover_to` (load asked / capacity).".to_owned()),
            Block::List(audit.cascades.iter().map(cascade_line).collect()),
        ]
    };
    Section {
        title: "Failover cascades",
        blocks,
    }
}

/// The worst-case latency lines, under the retry table.
fn latency(audit: &Audit, blocks: &mut Vec<Block<'static>>) {
    if !audit.latency.is_empty() {
        blocks.push(Block::Heading(
            "Worst-case latency per entrypoint (Σ timeout × attempts on its slowest path)"
                .to_owned(),
        ));
        blocks.push(Block::List(super::table::latency_lines(audit)));
    }
}

fn retries(audit: &Audit) -> Section<'static> {
    if audit.retries.is_empty() {
        let mut blocks = vec![none()];
        latency(audit, &mut blocks);
        return Section {
            title: "Retry paths",
            blocks,
        };
    }
    // A path whose retries do not double its attempts and whose last hop no
    // failure rate overloads carries nothing worth a row (`- ┆ - ┆ -`).
    let shown: Vec<&crate::render::RetryPath> = audit
        .retries
        .iter()
        .filter(|row| crate::render::table::matters(row))
        .collect();
    let storm = shown.iter().any(|row| !row.storm_load.is_empty());
    let columns = if storm {
        crate::render::table::RETRY_COLUMNS.len()
    } else {
        2
    };
    let mut blocks = vec![Block::Text(if storm {
        "Worst-case attempts reaching the last hop (A), the failure rate from which retries alone overload it, and its load at failure rate f: L × (1 − f) + L × f × A.".to_owned()
    } else {
        "Worst-case attempts reaching the last hop (A) per request.".to_owned()
    })];
    if !shown.is_empty() {
        blocks.push(Block::Table {
            header: crate::render::table::RETRY_COLUMNS[..columns].to_vec(),
            rows: shown
                .iter()
                .map(|row| {
                    let mut cells = retry_cells(row);
                    cells.truncate(columns);
                    cells
                })
                .collect(),
            right: (1..columns).collect(),
        });
    }
    let dropped = audit.retries.len() - shown.len();
    if dropped > 0 {
        let worst = audit
            .retries
            .iter()
            .filter(|row| !crate::render::table::matters(row))
            .map(|row| row.amplification)
            .fold(0.0, f64::max);
        blocks.push(Block::Text(format!(
            "{dropped} more path(s) left out: none amplifies more than {} and no failure rate overloads their last hop (all in `--format json`).",
            crate::render::table::compact(worst)
        )));
    }
    if audit.retries_omitted > 0 {
        blocks.push(Block::Text(format!(
            "{} more amplifying path(s) are left out (the list stops at 1000 rows or 20000 component names; the worst are listed).",
            audit.retries_omitted
        )));
    }
    if audit.retries_truncated {
        blocks.push(Block::Text("The walk stopped after 10000 call paths: each row is the worst path visited into its last hop.".to_owned()));
    }
    latency(audit, &mut blocks);
    Section {
        title: "Retry paths",
        blocks,
    }
}

fn recovery_order(audit: &Audit) -> Section<'static> {
    let section = &audit.cold_start;
    if section.waves.is_empty() {
        return Section {
            title: "Recovery order",
            blocks: vec![none()],
        };
    }
    // Without any `warmup` the time to full service is unknown, not zero.
    let timed = section.wave_warmup_s.iter().any(|&w| w > 0.0);
    let intro = if timed {
        format!(
            "After a full outage, start in waves, dependencies first (degradable edges dropped); about {} to full service (the longest warmup of each wave, summed).",
            seconds(section.time_to_full_service_s)
        )
    } else {
        "After a full outage, start in waves, dependencies first (degradable edges dropped). Warm-up times are not modelled: no component declares `warmup`.".to_owned()
    };
    let rows = section
        .waves
        .iter()
        .enumerate()
        .map(|(index, wave)| {
            let mut row = vec![index.to_string()];
            if timed {
                row.push(
                    seconds(section.wave_warmup_s.get(index).copied().unwrap_or(0.0)).to_string(),
                );
            }
            row.push(wave.join(", "));
            row
        })
        .collect();
    let mut blocks = vec![
        Block::Text(intro),
        Block::Table {
            header: if timed {
                vec!["wave", "warmup", "components"]
            } else {
                vec!["wave", "components"]
            },
            rows,
            right: if timed { vec![0, 1] } else { vec![0] },
        },
    ];
    if !section.cycles.is_empty() {
        blocks.push(Block::Text(
            "No order exists for these cycles of required edges:".to_owned(),
        ));
        blocks.push(Block::List(
            section.cycles.iter().map(|c| c.join(", ")).collect(),
        ));
    }
    if !section.stampedes.is_empty() {
        blocks.push(Block::Heading(
            "Behind caches, when they start empty".to_owned(),
        ));
        blocks.push(Block::Table {
            header: vec!["component", "steady", "cold", "capacity", "admit first"],
            rows: section.stampedes.iter().map(stampede_cells).collect(),
            right: vec![1, 2, 3, 4],
        });
    }
    Section {
        title: "Recovery order",
        blocks,
    }
}

fn disaster_recovery(audit: &Audit) -> Section<'static> {
    if audit.recovery.is_empty() {
        return Section {
            title: "Disaster recovery",
            blocks: vec![none()],
        };
    }
    let rows = audit.recovery.iter().map(recovery_cells).collect();
    Section {
        title: "Disaster recovery",
        blocks: vec![
            Block::Text("Worst-case data loss (RPO) and recovery time (RTO) against their targets, and the share of the RTO spent detecting and deciding.".to_owned()),
            Block::Table {
                header: vec!["component", "standby", "RPO", "RTO", "detect+decide"],
                rows,
                right: vec![4],
            },
        ],
    }
}
