//! `import traces --merge MODEL`: what the traces know added to a model a
//! person wrote, as insertions into its own text, so every comment, key
//! order, blank line, line break and indentation stays and the review diff
//! shows only the additions. The places come from the model's layout as
//! the parser reads it ([`crate::model::layout`]), never from its lines as
//! text, and the result is read back and compared value by value before it
//! is returned ([`verify`]): nothing written is changed or lost, and every
//! addition listed is there, or the merge is refused with nothing written.
//!
//! - a traced call the model lacks is added to the caller's `depends_on`
//!   (a block list gets a new item with the measurements as a comment; a
//!   flow list `[a, b]` gets the name inside its brackets, with the comment
//!   on a line above); a component without `depends_on` gets one, also one
//!   written in flow style (`web: {instances: 2}`);
//! - a traced service the model lacks is added as a component at the end of
//!   `components` (named `-2` when a domain or group has its name);
//! - a block component without `capacity`/`load` gets the measured rate as
//!   a commented-out `# load:` line, replacing only one an importer wrote:
//!   `load` needs `capacity`, which traces cannot know;
//! - a model without `entrypoints` whose traced edges leave no component
//!   uncalled gets the roots it had written as `entrypoints`;
//! - edges the traces never saw and loads that differ from the measured
//!   rate by more than the factor are reported, not changed.

use std::fmt;

mod added;
mod edit;
pub mod names;
mod plan;
mod verify;

use super::service_graph::{Graph, number};
use crate::model::{self, Problem};

/// What the merge changed and found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// Components added.
    pub components: Vec<String>,
    /// Services added under another name, `(name in the traces' graph,
    /// component name)`: a domain or group of the model has theirs.
    pub renamed: Vec<(String, String)>,
    /// Edges added, `(caller, callee)`.
    pub edges: Vec<(String, String)>,
    /// Loads written as comments, with the rate.
    pub loads: Vec<(String, f64)>,
    /// Loads measured but not written, and why.
    pub unwritten: Vec<Unwritten>,
    /// `entrypoints` written: the model had none, and the traces call every
    /// component.
    pub entrypoints: Vec<String>,
    /// The components nothing calls before and after the merge, when they
    /// differ: the model has no `entrypoints`, so they are its entrypoints.
    pub roots: Option<(Vec<String>, Vec<String>)>,
    /// Edges of the model not seen: caller, callee, whether the caller is
    /// in the traces at all.
    pub unseen: Vec<(String, String, bool)>,
    /// Loads off by more than the factor: component, model, measured.
    pub differing: Vec<(String, f64, f64)>,
    /// What could not be written (into a mapping or list that is an alias,
    /// carries an anchor or merges keys with `<<`, whose edit would change
    /// another or be overridden): for the user.
    pub by_hand: Vec<String>,
    /// Added components nothing calls, which are not entrypoints.
    pub uncalled: Vec<String>,
    /// The factor loads were compared with.
    pub factor: f64,
}

/// A measured load the merge did not write.
#[derive(Debug, Clone, PartialEq)]
pub struct Unwritten {
    /// The component.
    pub component: String,
    /// Requests per second, over the window.
    pub rate: f64,
    /// Why it is not written.
    pub why: &'static str,
}

/// The merged model text and what changed.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The model text.
    pub model: String,
    /// What changed.
    pub changes: Changes,
}

/// Why nothing was merged; the problems are located in the model's text.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// The model is not valid.
    Invalid(Vec<Problem>),
    /// The merged text would not keep the model as written, or would lack
    /// what the merge lists (a bug of the merge, caught before writing).
    Unsafe(Vec<Problem>),
}

/// Merges the graph into the model text (a valid model).
///
/// # Errors
/// [`Refusal::Invalid`] with the model's problems; [`Refusal::Unsafe`] when
/// the merged text fails the check, located at the values it would change.
pub fn merge(text: &str, graph: &Graph, factor: f64) -> Result<Merged, Refusal> {
    let model = model::parse(text).map_err(Refusal::Invalid)?;
    let layout = model::load::layout(text).map_err(|p| Refusal::Invalid(vec![p]))?;
    let Some((root, components)) = layout.root.as_ref().and_then(|root| {
        let (key, value) = root.get("components")?;
        Some((root, (key, value)))
    }) else {
        return Err(Refusal::Unsafe(vec![Problem::merge_invalid(
            model.span,
            "the model's `components` could not be found in its text",
        )]));
    };
    let names = names::resolve(&model, graph);
    let editor = edit::Editor::new(text, &layout);
    let step = plan::step(components, &|offset| editor.column(offset));
    let mut plan = plan::Plan {
        editor,
        model: &model,
        graph,
        names: &names,
        root,
        components,
        shapes: plan::shapes(components.1),
        step,
        shared: root.anchored || components.1.shared(),
        changes: Changes {
            factor,
            ..Changes::default()
        },
        additions: verify::Additions::default(),
    };
    for component in &model.components {
        plan.component(component);
    }
    plan.added_components();
    plan.entrypoints();
    let plan::Plan {
        editor,
        mut changes,
        additions,
        ..
    } = plan;
    let edits = editor.finish();
    let Some(out) = edit::apply(text, &edits) else {
        return Err(Refusal::Unsafe(vec![Problem::merge_invalid(
            model.span,
            "two insertions overlap",
        )]));
    };
    let locate = |offset: usize| edit::original_offset(&edits, offset);
    let problems = match (
        model::load::parse(text),
        model::load::parse(&out),
        model::parse(&out),
    ) {
        (Ok(before), Ok(after), Ok(merged)) => {
            verify::check(&before, &after, &merged, &additions, &locate)
        }
        (_, Err(problem), _) => vec![invalid(&problem, &locate)],
        (_, _, Err(problems)) => problems
            .iter()
            .take(1)
            .map(|p| invalid(p, &locate))
            .collect(),
        (Err(problem), _, _) => vec![problem],
    };
    if !problems.is_empty() {
        return Err(Refusal::Unsafe(problems));
    }
    changes.edges.sort();
    changes.unseen.sort();
    Ok(Merged {
        model: out,
        changes,
    })
}

/// A problem of the merged text, placed where its text comes from.
fn invalid(problem: &Problem, locate: &dyn Fn(usize) -> usize) -> Problem {
    Problem::merge_invalid(
        model::Span::new(locate(problem.span.offset), 0),
        &problem.message,
    )
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |n: usize, what: &str| {
            if n == 1 {
                format!("1 {what}")
            } else {
                format!("{n} {what}s")
            }
        };
        writeln!(
            f,
            "merged: added {}, {}; wrote {} as comments",
            count(self.components.len(), "component"),
            count(self.edges.len(), "edge"),
            count(self.loads.len(), "measured load")
        )?;
        for name in &self.components {
            writeln!(f, "  added component {name}")?;
        }
        for (a, b) in &self.edges {
            writeln!(f, "  added edge {a} → {b}")?;
        }
        for (traced, name) in &self.renamed {
            writeln!(
                f,
                "  added {traced} as {name}: a domain or group of the model is named {traced}"
            )?;
        }
        for (name, rate) in &self.loads {
            writeln!(f, "  measured load of {name}: {} per second", number(*rate))?;
        }
        for u in &self.unwritten {
            writeln!(
                f,
                "  measured load of {}: {} per second, not written ({})",
                u.component,
                number(u.rate),
                u.why
            )?;
        }
        if !self.entrypoints.is_empty() {
            writeln!(
                f,
                "  wrote entrypoints: [{}]: the model had none, and the traces call every component",
                self.entrypoints.join(", ")
            )?;
        }
        if let Some((before, after)) = &self.roots {
            writeln!(
                f,
                "  the model has no `entrypoints`, so they are the components nothing calls: {} before the merge, {} after; write `entrypoints` to keep them",
                before.join(", "),
                after.join(", ")
            )?;
        }
        for (a, b, traced) in &self.unseen {
            if *traced {
                writeln!(
                    f,
                    "  not seen: {a} → {b} is in the model but not in the traces (a dead path, or one too rare for the window)"
                )?;
            } else {
                writeln!(
                    f,
                    "  not seen: {a} → {b} is in the model, and {a} is not in the traces at all (is it traced?)"
                )?;
            }
        }
        for (name, declared, measured) in &self.differing {
            writeln!(
                f,
                "  load differs: {name} has load {} in the model, {} per second measured (more than {}× apart); left as written",
                number(*declared),
                number(*measured),
                number(self.factor)
            )?;
        }
        for name in &self.uncalled {
            writeln!(
                f,
                "  {name} is called by nothing in the traces: add it to `entrypoints` if users call it"
            )?;
        }
        for text in &self.by_hand {
            writeln!(
                f,
                "  to write by hand (an alias, an anchor or `<<` repeats it): {text}"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str, f64)]) -> Graph {
        Graph::from_counts(edges)
    }

    #[test]
    fn a_new_edge_goes_after_the_last_item_of_a_block_list() {
        let text = r"system: s
components:
  web:
    depends_on:
      - target: db
        timeout: 1s
      - cache
    instances: 2
  db: {}
  cache: {}
  queue: {}
";
        let merged = merge(
            text,
            &graph(&[
                ("web", "db", 1.0),
                ("web", "cache", 1.0),
                ("web", "queue", 7.0),
            ]),
            2.0,
        )
        .expect("valid");
        // web's own rate is not traced: a plain name, the count in the comment.
        assert_eq!(
            merged.model,
            r"system: s
components:
  web:
    depends_on:
      - target: db
        timeout: 1s
      - cache
      - queue                           # added from traces: 7 calls in 1h; calls per request unknown: web's own rate is not in the traces
    instances: 2
  db: {}
  cache: {}
  queue: {}
"
        );
        assert_eq!(
            merged.changes.edges,
            [("web".to_owned(), "queue".to_owned())]
        );
    }

    #[test]
    fn items_at_the_key_indentation_and_multi_line_flow_lists() {
        let text = r"system: s
components:
  web:
    depends_on:
    - db
    instances: 2
  api:
    depends_on: [
      db]
  db: {}
  q: {}
";
        let merged =
            merge(text, &graph(&[("web", "q", 1.0), ("api", "q", 1.0)]), 2.0).expect("valid");
        assert!(
            merged.model.contains("    - db\n    - q  "),
            "{}",
            merged.model
        );
        // A flow list over several lines takes the name after its last
        // item, inside its brackets; the measurements go on a comment line
        // above the line the list starts on.
        assert!(
            merged
                .model
                .contains("  api:\n    # added from traces: api → q: 1 calls in 1h;"),
            "{}",
            merged.model
        );
        assert!(merged.model.contains("    depends_on: [\n      db, q]\n"));
        assert!(merged.changes.by_hand.is_empty());
        // q, on one line, takes no `# load:` line: 2 calls in 3600 s is
        // 0.000555… per second, listed.
        assert_eq!(
            merged.changes.unwritten,
            [Unwritten {
                component: "q".to_owned(),
                rate: 2.0 / 3600.0,
                why: "the component is written on one line"
            }]
        );
    }

    #[test]
    fn a_file_without_a_final_newline_and_a_quoted_name() {
        let text = r"system: s
components:
  web:
    instances: 1";
        let merged = merge(text, &graph(&[("web", "null", 3.0)]), 2.0).expect("valid");
        assert!(
            merged.model.contains("    depends_on:\n      - \"null\""),
            "{}",
            merged.model
        );
        assert!(merged.model.contains("\n  \"null\":\n    kind: service\n"));
    }
}
