//! `drift/<caller>><target>` and `drift/<component>`: where the model and the
//! service graph the traces measured disagree. Raised by `check --observed`
//! rather than by an analyzer, because it needs the observed graph.
//! `drift/experiment/<loss>`: a chaos experiment served less than the
//! model predicts for its loss, raised by `nines verify`.

use std::collections::BTreeSet;

use std::fmt;
use std::sync::Arc;

use super::{Finding, RuleDoc, Severity, Subject, Wording};
use crate::import::service_graph::{Graph, number};
use crate::model::Rule;
use crate::model::{Component, Edge, Model};

// ---- finding constructors ----

/// `drift/…`: what the traces show against what the model says; `window`
/// is the traces' window in words (`over 1h`), shared by every finding of
/// the run.
#[derive(Debug)]
enum Drift {
    /// A traced call the model has no dependency for.
    Undeclared {
        edge: Subject,
        count: f64,
        window: Arc<str>,
    },
    /// A traced service the model lacks: its callers and calls.
    Unknown {
        name: Arc<str>,
        callers: Vec<String>,
        calls: Vec<String>,
    },
    /// A measured rate above the model's load.
    Overload {
        component: Arc<str>,
        declared: f64,
        measured: f64,
        window: Arc<str>,
    },
    /// A dependency of the model the traces never saw (`traced`: the caller
    /// is in the traces).
    Unseen {
        edge: Subject,
        traced: bool,
        window: Arc<str>,
    },
    /// An experiment that served less than the model predicts.
    Experiment {
        loss: Arc<str>,
        /// The loss in words (`lose az-b (zone)`).
        title: String,
        /// The entrypoints observed, in the model's order.
        rows: Vec<ExperimentRow>,
        /// The components the model puts over capacity in this loss, with
        /// their utilization.
        overloaded: Vec<(String, f64)>,
    },
}

/// One entrypoint of an experiment [`experiment`] reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentRow {
    /// The entrypoint.
    pub entrypoint: String,
    /// The served share the model predicts while the loss lasts.
    pub predicted: f64,
    /// The least share the hypothesis accepts (the prediction less the margin).
    pub tolerance: f64,
    /// The served share observed (the mean of its samples), when a check
    /// gave its value.
    pub observed: Option<f64>,
    /// The lowest threshold a check found it under, without its value.
    pub below: Option<f64>,
    /// Whether it did worse than predicted.
    pub worse: bool,
}

/// `drift/experiment/<loss>` (error): an experiment of `loss` served less
/// than the model predicts on at least one entrypoint (`rows` are the
/// observed ones; those below their tolerance are the drift), at `span`,
/// the definition of what was lost.
#[must_use]
pub fn experiment(
    span: crate::model::Span,
    loss: &str,
    title: &str,
    rows: Vec<ExperimentRow>,
    overloaded: Vec<(String, f64)>,
) -> Finding {
    let loss: Arc<str> = Arc::from(loss);
    Finding::new(
        DOC.rule,
        Subject::pair(Arc::from("experiment"), Arc::clone(&loss)),
        Severity::Error,
        span,
        Drift::Experiment {
            loss,
            title: title.to_owned(),
            rows,
            overloaded,
        },
    )
}

fn undeclared(caller: &Component, target: &str, count: f64, window: &Arc<str>) -> Finding {
    let edge = Subject::edge(&caller.name, target);
    Finding::new(
        DOC.rule,
        edge.clone(),
        Severity::Error,
        caller.fields.get("depends_on").unwrap_or(caller.span),
        Drift::Undeclared {
            edge,
            count,
            window: Arc::clone(window),
        },
    )
}

fn unknown(model: &Model, name: &str, graph: &Graph) -> Finding {
    let service = &graph.services[name];
    let name: Arc<str> = Arc::from(name);
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        model.span,
        Drift::Unknown {
            name,
            callers: service.callers.iter().cloned().collect(),
            calls: service.calls.keys().cloned().collect(),
        },
    )
}

fn overload(component: &Component, declared: f64, measured: f64, window: &Arc<str>) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.fields.get("load").unwrap_or(component.span),
        Drift::Overload {
            component: name,
            declared,
            measured,
            window: Arc::clone(window),
        },
    )
}

fn unseen(
    caller: &Component,
    target: &Component,
    edge: &Edge,
    traced: bool,
    window: &Arc<str>,
) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Note,
        edge.span,
        Drift::Unseen {
            edge: subject,
            traced,
            window: Arc::clone(window),
        },
    )
}

impl Wording for Drift {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drift::Undeclared {
                edge,
                count,
                window,
            } => write!(
                out,
                "the traces show {} calling {} ({} calls in {window}), but the model has no such dependency: an undeclared dependency is an undeclared single point of failure",
                edge.name(),
                edge.then().unwrap_or(""),
                number(*count),
            ),
            Drift::Unknown {
                name,
                callers,
                calls,
            } => {
                let mut how = Vec::new();
                if !callers.is_empty() {
                    how.push(format!("called by {}", callers.join(", ")));
                }
                if !calls.is_empty() {
                    how.push(format!("calling {}", calls.join(", ")));
                }
                write!(
                    out,
                    "the traces show a service {name} ({}), which the model does not have",
                    how.join(", ")
                )
            }
            Drift::Overload {
                component,
                declared,
                measured,
                window,
            } => write!(
                out,
                "{component} received {} requests per second on average over {window}, {}× the model's load of {}: its headroom is computed from a load it no longer has",
                number(*measured),
                number(measured / declared),
                number(*declared)
            ),
            Drift::Experiment {
                loss, title, rows, ..
            } => experiment_message(out, loss, title, rows),
            Drift::Unseen {
                edge,
                traced,
                window,
            } => {
                let (caller, target) = (edge.name(), edge.then().unwrap_or(""));
                write!(out, "the model says {caller} calls {target}, but ")?;
                if *traced {
                    write!(
                        out,
                        "the traces saw no call from {caller} to {target} in {window}: the path is dead, or too rare for the window"
                    )
                } else {
                    write!(
                        out,
                        "{caller} is not in the traces at all, so its call to {target} cannot be confirmed"
                    )
                }
            }
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drift::Undeclared { edge, .. } => {
                let (caller, target) = (edge.name(), edge.then().unwrap_or(""));
                write!(
                    out,
                    "add `{target}` to the `depends_on` of {caller} (`nines import traces FILE --merge MODEL` writes it), or `degradable: true` if {caller} works without it"
                )
            }
            Drift::Unknown { .. } => out.write_str("add it as a component (`nines import traces FILE --merge MODEL` writes it with its calls), or rename the component the traces call by this name"),
            Drift::Overload { .. } => out.write_str("raise `load` to the measured peak (an average over the window is a floor for the peak), and `capacity` or `instances` with it if headroom falls short"),
            Drift::Unseen { .. } => out.write_str("remove the dependency if the call is gone; keep it if it is a rare path (failover, batch) and accept the finding with the reason"),
            Drift::Experiment { overloaded, .. } => {
                out.write_str("look for what the model lacks and write it in: a dependency it does not have (`nines check MODEL --observed TRACES` compares the calls the traces saw), a `capacity` written higher than the system carries")?;
                if !overloaded.is_empty() {
                    let shown: Vec<String> = overloaded
                        .iter()
                        .map(|(c, u)| {
                            if u.is_finite() {
                                format!("{c} at {}", crate::analyze::wording::percent(*u))
                            } else {
                                format!("{c} with nothing left to carry its load")
                            }
                        })
                        .collect();
                    write!(out, " (the model puts {} in this loss)", shown.join(", "))?;
                }
                out.write_str(", retries or timeouts that add load the model does not count, a fallback that does not work; then run the experiment again and `nines verify` it")
            }
        }
    }
}

/// The message of `drift/experiment/<loss>`.
fn experiment_message(
    out: &mut fmt::Formatter<'_>,
    loss: &str,
    title: &str,
    rows: &[ExperimentRow],
) -> fmt::Result {
    let share = |x: f64| crate::analyze::wording::percent(x);
    let (worse, kept): (Vec<&ExperimentRow>, Vec<&ExperimentRow>) =
        rows.iter().partition(|r| r.worse);
    let served = |r: &ExperimentRow| match (r.observed, r.below) {
        (Some(o), _) => share(o),
        (None, Some(t)) => format!("under {}", share(t)),
        (None, None) => "nothing observed".to_owned(),
    };
    let worse: Vec<String> = worse
        .iter()
        .map(|r| {
            let under = match (r.observed, r.below) {
                (Some(_), Some(t)) => format!(", and under {} at a check", share(t)),
                _ => String::new(),
            };
            format!(
                "{} served {}{under} where the model predicts {} (at least {} within the margin)",
                r.entrypoint,
                served(r),
                share(r.predicted),
                share(r.tolerance)
            )
        })
        .collect();
    write!(
        out,
        "the experiment {loss} ({title}) did worse than the model predicts: {}",
        crate::analyze::wording::and_list(&worse)
    )?;
    if !kept.is_empty() {
        let kept: Vec<String> = kept
            .iter()
            .map(|r| format!("{} {}", r.entrypoint, served(r)))
            .collect();
        write!(out, "; {} as predicted or better", kept.join(", "))?;
    }
    out.write_str(": the system has a weakness the model does not know")
}

// ---- documentation ----

/// The documentation of `drift`.
pub static DOC: RuleDoc = RuleDoc {
    rule: Rule::Drift,
    id: "drift/<caller>><target>, drift/<component>, drift/experiment/<loss>",
    severity: "error",
    summary: "The model and what was measured disagree: the service graph of traces (`check --observed`), or a chaos experiment (`verify`).",
    checks: "Only with `nines check MODEL --observed FILE…`, where the files are what `nines import traces` reads. A call seen in the traces that no `depends_on` entry has (error), a traced service the model lacks (error), a component whose measured rate is more than `--load-factor` (default 2) times its `load` (warning), and an edge of the model the traces never saw over `--window` (note). Rates are requests per second, averaged over the window. With `nines verify MODEL --experiment FILE --observed RESULT`: an experiment whose observed served share of an entrypoint is below the model's prediction for its loss by more than `--margin` (default 2%), `drift/experiment/<loss>` (error), at the definition of what was lost.",
    why: "The model is only as good as its edges: a call nobody wrote down is a dependency no analysis sees, so a single point of failure behind it goes unreported. A load that grew past the model's makes every headroom figure optimistic. An edge that no longer exists makes findings about it noise. An experiment that serves less than predicted shows a weakness no analysis of the model can see until the model is corrected.",
    example: "components:\n  web: {depends_on: [db]}    # traces: web → db, web → cache\n  db: {}\n  cache: {}                  # drift/web>cache",
    fix: "Run `nines import traces FILE --merge MODEL` to add what the traces saw, then review the diff; correct `load`; remove dead edges or accept them with the reason; after an experiment that did worse, find the dependency, capacity or retries the model lacks, correct it and run the experiment again.",
};

// ---- the check ----

/// The drift findings of a model against a measured graph; `factor` is how
/// far above the model's load a measured rate may be.
pub fn findings(model: &Model, graph: &Graph, factor: f64) -> Vec<Finding> {
    // Services and components matched as the merge matches them (a
    // service named like a domain is the component `-2` it would add), in
    // maps: a scan per component was quadratic.
    let names = crate::import::merge::names::resolve(model, graph);
    let known: BTreeSet<&str> = model.components.iter().map(|c| c.name.as_str()).collect();
    let window: Arc<str> = Arc::from(graph.window_text.as_str());
    let mut out = Vec::new();
    for (service, _) in &names.added {
        out.push(unknown(model, service, graph));
    }
    for component in &model.components {
        let service = names
            .service
            .get(&component.name)
            .map(|s| &graph.services[s]);
        let mut declared: BTreeSet<&str> = BTreeSet::new();
        for edge in &component.depends_on {
            for &target in &edge.targets {
                let target = model.component(target);
                declared.insert(&target.name);
                let seen = service.is_some_and(|s| {
                    names
                        .service
                        .get(&target.name)
                        .is_some_and(|t| s.calls.contains_key(t))
                });
                if !seen {
                    out.push(unseen(component, target, edge, service.is_some(), &window));
                }
            }
        }
        let Some(service) = service else {
            continue;
        };
        for (target, call) in &service.calls {
            let target = names.of(target);
            if !declared.contains(target) && known.contains(target) {
                out.push(undeclared(component, target, call.count, &window));
            }
        }
        if let (Some(capacity), Some(rate)) = (&component.capacity, service.load(graph.window))
            && rate > factor * capacity.load
        {
            out.push(overload(component, capacity.load, rate, &window));
        }
    }
    out.sort_by(Finding::cmp_id);
    out.dedup_by(|a, b| a.cmp_id(b).is_eq());
    out
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str, f64)]) -> Graph {
        Graph::from_counts(edges)
    }

    #[test]
    fn each_kind_of_disagreement_is_found() {
        let model = crate::model::parse(
            r"system: s
components:
  web: {depends_on: [db, old]}
  db: {capacity: 10, load: 1}
  old: {}
  cache: {}
",
        )
        .expect("valid");
        // web → db 36,000 calls in 1 h = 10 per second, 10× the load of 1.
        let found = findings(
            &model,
            &graph(&[
                ("web", "db", 36_000.0),
                ("web", "cache", 5.0),
                ("web", "queue", 1.0),
            ]),
            2.0,
        );
        let ids: Vec<(String, Severity)> = found
            .iter()
            .map(|f| (f.id().to_string(), f.severity))
            .collect();
        let ids: Vec<(&str, Severity)> = ids.iter().map(|(id, s)| (id.as_str(), *s)).collect();
        assert_eq!(
            ids,
            [
                ("drift/db", Severity::Warning),
                ("drift/queue", Severity::Error),
                ("drift/web>cache", Severity::Error),
                ("drift/web>old", Severity::Note),
            ]
        );
        assert!(
            found[0]
                .message()
                .to_string()
                .contains("10 requests per second"),
            "{}",
            found[0].message().to_string()
        );
        assert!(
            found[0]
                .message()
                .to_string()
                .contains("10× the model's load of 1"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn an_agreeing_model_has_no_drift() {
        let model = crate::model::parse(
            r"system: s
components:
  web: {depends_on: [db]}
  db: {capacity: 10, load: 1}
",
        )
        .expect("valid");
        // 7,200 calls in 1 h = 2 per second: 2× the load, not above the factor.
        assert!(findings(&model, &graph(&[("web", "db", 7200.0)]), 2.0).is_empty());
    }
}
