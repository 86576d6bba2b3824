//! `unreachable/<component>`: a component no entrypoint reaches. No
//! availability figure counts it and no single event through it takes an
//! entrypoint down, so every rule that follows calls from the entrypoints
//! passes it by without a word. An import whose edges live in code (a
//! frontend whose calls no manifest names) leaves most of a system in that
//! state; this says so, once per component.

use std::fmt;
use std::sync::Arc;

use super::wording::capped_list;
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::engine::outage::LISTED;
use crate::model::{ComponentId, Model, Plane, Rule};

// ---- finding constructors ----

/// `unreachable/<component>`: the component and the entrypoints that do
/// not reach it (one list per run, shared by its findings).
#[derive(Debug)]
struct Unreached {
    component: Arc<str>,
    /// Whether it calls something an entrypoint reaches (a client, a load
    /// generator): then it may be an entrypoint itself.
    calls_in: bool,
    /// The unreached component calling in through which it is reached (a
    /// queue worker's database), when it is.
    via: Option<Arc<str>>,
    entrypoints: Arc<Entrypoints>,
}

/// The entrypoints, for the message.
#[derive(Debug)]
struct Entrypoints {
    names: Vec<Arc<str>>,
    total: usize,
}

fn unreached(
    model: &Model,
    id: ComponentId,
    (calls_in, via): (bool, Option<ComponentId>),
    entrypoints: &Arc<Entrypoints>,
) -> Finding {
    let c = model.component(id);
    let name: Arc<str> = Arc::from(c.name.as_str());
    // A worker or a client that calls into the system, and what only it
    // calls, are often left out on purpose: a note. One cut off entirely is
    // a warning.
    let severity = if calls_in || via.is_some() {
        Severity::Note
    } else {
        Severity::Warning
    };
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        severity,
        c.span,
        Unreached {
            component: name,
            calls_in,
            via: via.map(|v| Arc::from(model.component(v).name.as_str())),
            entrypoints: Arc::clone(entrypoints),
        },
    )
}

impl Wording for Unreached {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.entrypoints;
        write!(
            out,
            "no entrypoint ({}) reaches {} through `depends_on`, `failover_to` or a recovery's `needs`",
            capped_list(&e.names, e.total, LISTED),
            self.component
        )?;
        if let Some(via) = &self.via {
            write!(out, " (it is reached only through {via}, which no entrypoint reaches)")?;
        }
        out.write_str(
            ": no availability figure counts it and no finding judges what its failure does",
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.component;
        if let Some(via) = &self.via {
            return write!(
                out,
                "judged with {via}: add {via} to `entrypoints` if its work matters, and the findings about {c} follow"
            );
        }
        if self.calls_in {
            write!(
                out,
                "{c} calls into what the entrypoints reach (a worker, a client): if its work matters, add it to `entrypoints` so that its own dependencies are judged; if it is a load generator or a tool, remove it or accept it"
            )
        } else {
            write!(
                out,
                "add the edge of the component that calls {c} (an address kept in code or a discovery service is not in the manifests: `nines import traces --merge` adds the measured calls), add {c} to `entrypoints` if users call it, or remove it"
            )
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Unreachable,
    id: "unreachable/<component>",
    severity: "warning",
    summary: "No entrypoint reaches the component: it is never judged.",
    checks: "Every component that no entrypoint reaches by following `depends_on` edges (required or degradable, `target`, `any_of` and `at_least` alike), `failover_to` and the `needs` of a `recovery` block, from each entrypoint. One finding per component: a warning, or a note when the component itself calls a data-plane component an entrypoint reaches (a queue worker, a load generator: often left out on purpose, though its own dependencies then go unjudged) or is reached only from such a one (the worker's database). A call to a `plane: control` component (a discovery service every service registers with) is no sign of a worker. With the default entrypoints (every component nothing calls) only a cycle of components that call each other and nothing else can be unreached.",
    why: "The availability of an entrypoint, its single points of failure and its N-k headroom follow the calls it makes. A component outside them fails without changing any figure, so a model with missing edges (an import from manifests whose services find each other through code or a discovery service) looks clean where it has not been judged at all. Saying so once per component turns silence into a list of edges to add.",
    example: "entrypoints: [front-end]\ncomponents:\n  front-end: {}\n  catalogue: {depends_on: [catalogue-db]}   # unreachable/catalogue\n  catalogue-db: {}                          # unreachable/catalogue-db",
    fix: "Add the missing edges (`depends_on` on the caller: its address may live in code; `nines import traces --merge` adds the calls a tracing backend measured), list the component under `entrypoints` if users call it, or remove it from the model.",
};

// ---- the check ----

/// Which components the entrypoints reach.
fn reached(model: &Model) -> Vec<bool> {
    let mut seen = vec![false; model.components.len()];
    let mut stack: Vec<ComponentId> = model.entrypoints.clone();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.0], true) {
            continue;
        }
        let c = model.component(id);
        let next = c
            .depends_on
            .iter()
            .flat_map(|e| e.targets.iter().copied().chain(e.cached_by))
            .chain(c.failover_to)
            .chain(c.recovery.iter().flat_map(|r| r.needs.iter().copied()));
        stack.extend(next.filter(|n| !seen[n.0]));
    }
    seen
}

/// For each component the entrypoints do not reach, the first unreached
/// component that calls in (in model order) from which it is reached.
fn reached_via(model: &Model, seen: &[bool], calls_in: &[bool]) -> Vec<Option<ComponentId>> {
    let mut via: Vec<Option<ComponentId>> = vec![None; model.components.len()];
    for start in model.component_ids().filter(|id| calls_in[id.0]) {
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            if seen[id.0] || via[id.0].is_some() {
                continue;
            }
            via[id.0] = Some(start);
            let c = model.component(id);
            stack.extend(
                c.depends_on
                    .iter()
                    .flat_map(|e| e.targets.iter().copied().chain(e.cached_by))
                    .chain(c.failover_to),
            );
        }
    }
    via
}

/// The `unreachable` rule.
pub struct Unreachable;

impl Analyzer for Unreachable {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        let seen = reached(model);
        if seen.iter().all(|&s| s) {
            return;
        }
        let entrypoints = Arc::new(Entrypoints {
            names: model
                .entrypoints
                .iter()
                .take(LISTED)
                .map(|&e| Arc::from(model.component(e).name.as_str()))
                .collect(),
            total: model.entrypoints.len(),
        });
        // Calling a reached control-plane component (a discovery service
        // every service registers with) is no sign of a worker.
        let calls_in: Vec<bool> = model
            .component_ids()
            .map(|id| {
                !seen[id.0]
                    && model.component(id).depends_on.iter().any(|e| {
                        e.targets
                            .iter()
                            .any(|t| seen[t.0] && model.component(*t).plane == Plane::Data)
                    })
            })
            .collect();
        let via = reached_via(model, &seen, &calls_in);
        for id in model.component_ids().filter(|id| !seen[id.0]) {
            let how = (calls_in[id.0], via[id.0].filter(|_| !calls_in[id.0]));
            audit
                .findings
                .push(unreached(model, id, how, &entrypoints));
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        crate::analyze::check_one(&Unreachable, text)
            .findings
            .iter()
            .map(|f| f.id().to_string())
            .collect()
    }

    #[test]
    fn what_no_entrypoint_calls_is_named_once_each() {
        // front-end calls nothing the manifests name; user calls user-db.
        // Reached from front-end: front-end alone, so the other three are
        // unreached, each once.
        let text = r"system: shop
entrypoints: [front-end]
components:
  front-end: {}
  user: {depends_on: [user-db]}
  user-db: {}
  load-test: {depends_on: [front-end]}
";
        // In model order.
        assert_eq!(
            ids(text),
            ["unreachable/user", "unreachable/user-db", "unreachable/load-test"]
        );
        let audit = crate::analyze::check_one(&Unreachable, text);
        let load_test = audit
            .findings
            .iter()
            .find(|f| f.subject.name() == "load-test")
            .unwrap();
        // load-test calls front-end (reached): perhaps an entrypoint.
        assert!(
            load_test
                .help()
                .unwrap()
                .to_string()
                .starts_with("load-test calls into what the entrypoints reach"),
        );
    }

    #[test]
    fn degradable_failover_cache_and_recovery_needs_all_reach() {
        assert!(
            ids(r"system: s
entrypoints: [web]
components:
  web: {failover_to: web-b, depends_on: [{target: db, degradable: true, hit_rate: 90%, cached_by: cache}]}
  web-b: {}
  db: {recovery: {needs: [sso]}}
  cache: {}
  sso: {}
")
            .is_empty()
        );
        // Default entrypoints: everything nothing calls, so nothing is left.
        assert!(ids("system: s\ncomponents:\n  a: {depends_on: [b]}\n  b: {}\n  c: {}\n").is_empty());
    }
}
