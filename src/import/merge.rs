//! `import traces --merge MODEL`: what the traces know added to a model a
//! person wrote, as a few inserted lines in its own text, so every comment,
//! key order and blank line stays and the review diff shows only the
//! additions. Nothing written is changed: differences are reported.
//!
//! - a traced call the model lacks is added to the caller's `depends_on`
//!   (a block list gets a new item with the measurements as a comment; a
//!   one-line flow list `[a, b]` gets the name, with the comment on a line
//!   above);
//! - a traced service the model lacks is added as a component at the end of
//!   `components`;
//! - a component without `capacity`/`load` gets the measured rate as a
//!   commented-out `# load:` line (replacing one already commented out):
//!   `load` needs `capacity`, which traces cannot know;
//! - edges the traces never saw and loads that differ from the measured
//!   rate by more than the factor are reported, not changed.
//!
//! Components written on one line (`web: {…}`) cannot take new lines: what
//! would be added there is reported for the user to write.

use std::fmt;

use super::service_graph::{Graph, call_reason, load_reason, number};
use super::writer::{comment, scalar};
use crate::model::{self, Component, Model, Problem};

/// What the merge changed and found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// Components added.
    pub components: Vec<String>,
    /// Edges added, `(caller, callee)`.
    pub edges: Vec<(String, String)>,
    /// Loads written as comments, with the rate.
    pub loads: Vec<(String, f64)>,
    /// Edges of the model not seen: caller, callee, whether the caller is
    /// in the traces at all.
    pub unseen: Vec<(String, String, bool)>,
    /// Loads off by more than the factor: component, model, measured.
    pub differing: Vec<(String, f64, f64)>,
    /// What could not be written into one-line components: for the user.
    pub by_hand: Vec<String>,
    /// Added components nothing calls, which are not entrypoints.
    pub uncalled: Vec<String>,
    /// The factor loads were compared with.
    pub factor: f64,
}

/// The merged model text and what changed.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The model text.
    pub model: String,
    /// What changed.
    pub changes: Changes,
}

/// One insertion or replacement in the model text.
struct Edit {
    at: usize,
    remove: usize,
    text: String,
}

/// The model's text cut into lines, with what the merge needs of each.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.match_indices('\n')
                .map(|(i, _)| i + 1)
                .filter(|&i| i < text.len()),
        );
        Self { text, starts }
    }

    fn index_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    fn get(&self, index: usize) -> &'a str {
        let start = self.starts[index];
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// Offset of the start of the line after `index` (the end of the text
    /// for the last line).
    fn after(&self, index: usize) -> usize {
        self.starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len())
    }

    fn len(&self) -> usize {
        self.starts.len()
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// A line's text without its comment (a ` #` outside quotes).
fn without_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous == ' ' || previous == '\t' => return line[..i].trim_end(),
            _ => {}
        }
        previous = c;
    }
    line.trim_end()
}

/// Where a block component is: its name line, its keys' indentation and
/// the last line of its block.
struct Block {
    child_indent: usize,
    last: usize,
}

fn block(lines: &Lines, component: &Component) -> Option<Block> {
    let name_line = lines.index_of(component.span.offset);
    let text = lines.get(name_line);
    let rest = text.get(component.span.end().saturating_sub(lines.starts[name_line])..)?;
    let (_, after) = rest.split_once(':')?;
    if !without_comment(after).trim().is_empty() {
        return None; // `web: {…}` on one line
    }
    let own = indent(text);
    let mut last = name_line;
    let mut child_indent = None;
    for index in name_line + 1..lines.len() {
        let line = lines.get(index);
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) <= own {
            break;
        }
        if is_content(line) && child_indent.is_none() {
            child_indent = Some(indent(line));
        }
        last = index;
    }
    Some(Block {
        child_indent: child_indent.unwrap_or(own + 2),
        last,
    })
}

/// Merges the graph into the model text (a valid model).
///
/// # Errors
/// The text that is not a valid model (the input, or the merged text, which
/// would be a bug) with its problems: nothing is written then.
pub fn merge(text: &str, graph: &Graph, factor: f64) -> Result<Merged, (String, Vec<Problem>)> {
    let model = model::parse(text).map_err(|p| (text.to_owned(), p))?;
    let text_nl = if text.is_empty() || text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    };
    let lines = Lines::new(&text_nl);
    let mut edits: Vec<Edit> = Vec::new();
    let mut changes = Changes {
        factor,
        ..Changes::default()
    };

    for component in &model.components {
        merge_component(&model, component, graph, &lines, &mut edits, &mut changes);
    }
    add_missing(
        &model,
        graph,
        &lines,
        text_nl.len(),
        &mut edits,
        &mut changes,
    );

    edits.sort_by_key(|e| e.at);
    let mut out = text_nl.clone();
    for edit in edits.iter().rev() {
        out.replace_range(edit.at..edit.at + edit.remove, &edit.text);
    }
    if let Err(problems) = model::parse(&out) {
        return Err((out, problems));
    }
    changes.edges.sort();
    changes.unseen.sort();
    Ok(Merged {
        model: out,
        changes,
    })
}

/// The traced edges and load of one component the model has: new edges
/// added, declared edges the traces did not see, the load filled in or
/// compared.
fn merge_component(
    model: &Model,
    component: &Component,
    graph: &Graph,
    lines: &Lines,
    edits: &mut Vec<Edit>,
    changes: &mut Changes,
) {
    let traced = graph.find(&component.name).map(|n| &graph.services[n]);
    let declared = declared(model, component);
    if let Some(service) = traced {
        let new: Vec<(&String, String)> = service
            .calls
            .iter()
            .filter(|(target, _)| !declared.contains(target))
            .map(|(target, call)| {
                let entry = match call.per_request {
                    Some(per) => {
                        format!("{{target: {}, calls: {}}}", scalar(target), number(per))
                    }
                    None => scalar(target),
                };
                (target, entry)
            })
            .collect();
        if !new.is_empty() {
            add_edges(lines, component, service, &new, graph, edits, changes);
        }
        for target in &declared {
            if !service.calls.contains_key(target) {
                changes
                    .unseen
                    .push((component.name.clone(), target.clone(), true));
            }
        }
        if let Some(rate) = service.load(graph.window) {
            match &component.capacity {
                Some(capacity) => {
                    let ratio = if capacity.load > 0.0 {
                        rate / capacity.load
                    } else {
                        f64::INFINITY
                    };
                    if ratio > changes.factor || ratio < 1.0 / changes.factor {
                        changes
                            .differing
                            .push((component.name.clone(), capacity.load, rate));
                    }
                }
                None => fill_load(lines, component, service, graph, rate, edits, changes),
            }
        }
    } else {
        for target in &declared {
            changes
                .unseen
                .push((component.name.clone(), target.clone(), false));
        }
    }
}

/// The traced services the model lacks, as components at the end of
/// `components` (the text is `text_len` bytes long).
fn add_missing(
    model: &Model,
    graph: &Graph,
    lines: &Lines,
    text_len: usize,
    edits: &mut Vec<Edit>,
    changes: &mut Changes,
) {
    let find = |name: &str| model.components.iter().find(|c| c.name == name);
    let missing: Vec<&String> = graph
        .services
        .keys()
        .filter(|name| find(name).is_none())
        .collect();
    if !missing.is_empty() {
        let (at, indent) = components_end(lines, model);
        let mut block = String::new();
        for name in &missing {
            let service = &graph.services[*name];
            let mut one = String::new();
            super::service_graph::component_text(&mut one, graph, name, service);
            block.push('\n');
            for line in one.lines() {
                if !line.is_empty() {
                    block.push_str(&" ".repeat(indent.saturating_sub(2)));
                }
                block.push_str(line);
                block.push('\n');
            }
            changes.components.push((*name).clone());
            for target in service.calls.keys() {
                changes.edges.push(((*name).clone(), target.clone()));
            }
            if let Some(rate) = service.load(graph.window) {
                changes.loads.push(((*name).clone(), rate));
            }
            if service.callers.is_empty() && !model.entrypoints.is_empty() {
                changes.uncalled.push((*name).clone());
            }
        }
        if at < text_len {
            block.push('\n'); // a blank line before the key that follows
        }
        edits.push(Edit {
            at,
            remove: 0,
            text: block,
        });
    }
}

/// The targets a component's edges name, by component name.
fn declared(model: &Model, component: &Component) -> Vec<String> {
    let mut out: Vec<String> = component
        .depends_on
        .iter()
        .flat_map(|e| e.targets.iter().map(|t| model.component(*t).name.clone()))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn add_edges(
    lines: &Lines,
    component: &Component,
    service: &super::service_graph::Service,
    new: &[(&String, String)],
    graph: &Graph,
    edits: &mut Vec<Edit>,
    changes: &mut Changes,
) {
    let by_hand = |changes: &mut Changes| {
        for (target, entry) in new {
            changes.by_hand.push(format!(
                "{}: add `{entry}` to `depends_on` ({})",
                component.name,
                call_reason(&component.name, &service.calls[*target], graph)
            ));
        }
    };
    let Some(block) = block(lines, component) else {
        by_hand(changes);
        return;
    };
    let items = |pad: usize| {
        let mut text = String::new();
        for (target, entry) in new {
            let why = format!(
                "added from traces: {}",
                call_reason(&component.name, &service.calls[*target], graph)
            );
            item_line(&mut text, pad, &format!("- {entry}"), &why);
        }
        text
    };
    match component.fields.get("depends_on") {
        None => {
            let pad = block.child_indent;
            let mut text = format!("{}depends_on:\n", " ".repeat(pad));
            text.push_str(&items(pad + 2));
            edits.push(Edit {
                at: lines.after(block.last),
                remove: 0,
                text,
            });
        }
        Some(key) => {
            let key_line = lines.index_of(key.offset);
            let line = lines.get(key_line);
            let value = without_comment(line)
                .split_once(':')
                .map_or("", |(_, v)| v.trim());
            if value.is_empty() {
                // A block list: after its last item.
                let key_indent = indent(line);
                let (last, item_indent) = block_list_end(lines, key_line, block.last);
                edits.push(Edit {
                    at: lines.after(last),
                    remove: 0,
                    text: items(item_indent.unwrap_or(key_indent + 2)),
                });
            } else if value.starts_with('[') && value.ends_with(']') {
                // A one-line flow list: the names inside, the measurements
                // on a comment line above.
                let close = lines.starts[key_line] + without_comment(line).len() - 1;
                let empty = value[1..value.len() - 1].trim().is_empty();
                let names: Vec<&str> = new.iter().map(|(_, e)| e.as_str()).collect();
                let inserted = if empty {
                    names.join(", ")
                } else {
                    format!(", {}", names.join(", "))
                };
                edits.push(Edit {
                    at: close,
                    remove: 0,
                    text: inserted,
                });
                let mut note = String::new();
                for (target, _) in new {
                    note.push_str(&" ".repeat(indent(line)));
                    note.push_str("# ");
                    note.push_str(&comment(&format!(
                        "added from traces: {target}: {}",
                        call_reason(&component.name, &service.calls[*target], graph)
                    )));
                    note.push('\n');
                }
                edits.push(Edit {
                    at: lines.starts[key_line],
                    remove: 0,
                    text: note,
                });
            } else {
                by_hand(changes);
                return;
            }
        }
    }
    for (target, _) in new {
        changes
            .edges
            .push((component.name.clone(), (*target).clone()));
    }
}

/// The last line of the block list under the key on `key_line` (the block
/// ends at `block_last` at the latest), and the indent of its items.
fn block_list_end(lines: &Lines, key_line: usize, block_last: usize) -> (usize, Option<usize>) {
    let key_indent = indent(lines.get(key_line));
    let mut last = key_line;
    let mut item_indent = None;
    for index in key_line + 1..=block_last {
        let l = lines.get(index);
        if !is_content(l) {
            continue;
        }
        let at = indent(l);
        let is_item = l.trim_start().starts_with('-');
        if is_item && item_indent.is_none() {
            item_indent = Some(at);
        }
        if at > key_indent || (is_item && Some(at) == item_indent) {
            last = index;
        } else {
            break;
        }
    }
    (last, item_indent)
}

fn item_line(out: &mut String, pad: usize, content: &str, why: &str) {
    super::writer::line(out, pad, content, why);
}

fn fill_load(
    lines: &Lines,
    component: &Component,
    service: &super::service_graph::Service,
    graph: &Graph,
    rate: f64,
    edits: &mut Vec<Edit>,
    changes: &mut Changes,
) {
    let Some(block) = block(lines, component) else {
        changes.by_hand.push(format!(
            "{}: measured load {} per second ({} calls in {}, an average, not a peak); write it as `load` with `capacity`",
            component.name,
            number(rate),
            number(service.received),
            graph.window_text
        ));
        return;
    };
    let name_line = lines.index_of(component.span.offset);
    let mut text = String::new();
    super::writer::line(
        &mut text,
        block.child_indent,
        &format!("# load: {}", number(rate)),
        &load_reason(service, graph),
    );
    let existing = (name_line + 1..=block.last).find(|&i| {
        let l = lines.get(i).trim_start();
        indent(lines.get(i)) == block.child_indent && l.starts_with("# load:")
    });
    match existing {
        Some(index) => edits.push(Edit {
            at: lines.starts[index],
            remove: lines.after(index) - lines.starts[index],
            text,
        }),
        None => edits.push(Edit {
            at: lines.after(block.last),
            remove: 0,
            text,
        }),
    }
    changes.loads.push((component.name.clone(), rate));
}

/// Where new components go: after the last line of the `components`
/// block, and the indentation of its component names.
fn components_end(lines: &Lines, model: &Model) -> (usize, usize) {
    let first = model
        .components
        .iter()
        .map(|c| c.span.offset)
        .min()
        .unwrap_or(0);
    let first_line = lines.index_of(first);
    let own = indent(lines.get(first_line));
    let mut last = first_line;
    for index in first_line + 1..lines.len() {
        let line = lines.get(index);
        if is_content(line) && indent(line) < own {
            break;
        }
        if is_content(line) {
            last = index;
        }
    }
    // Keep deeper comments that follow the last key (commented-out keys).
    let mut end = last;
    for index in last + 1..lines.len() {
        let line = lines.get(index);
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) > own && !is_content(line) {
            end = index;
        } else {
            break;
        }
    }
    (lines.after(end), own.max(2))
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
        for (name, rate) in &self.loads {
            writeln!(f, "  measured load of {name}: {} per second", number(*rate))?;
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
            writeln!(f, "  to write by hand (one-line component): {text}")?;
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
        // A flow list over several lines is not rewritten: it is listed.
        assert!(merged.model.contains(
            r"    depends_on: [
      db]
"
        ));
        assert!(merged.changes.by_hand[0].starts_with("api: add `q`"));
        // q, on one line, takes no `# load:` line: 2 calls in 3600 s is
        // 0.000555… per second.
        assert!(merged.changes.by_hand[1].starts_with("q: measured load 0.0005556 per second"));
        assert_eq!(merged.changes.by_hand.len(), 2);
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
