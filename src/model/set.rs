//! `--set COMPONENT.FIELD=VALUE` for `what-if` (a change of the model, so
//! it lives with the model): the value is read by the
//! model's own rules. Each setting is written into the model's spanned tree
//! (replacing the field or adding it), with the spans of the new key and
//! value pointing into a copy of the argument appended to the model text;
//! the tree is then validated like any model. A problem inside a setting is
//! shown against the argument itself, so `--set api.availability=99.9`
//! gets the model's "did you mean 99.9%?" with the argument underlined.
//!
//! `COMPONENT.depends_on[TARGET].FIELD=VALUE` sets one field of the edge of
//! COMPONENT that names TARGET (as a name, `target`, or a member of
//! `any_of` or `of`): `redirect.depends_on[links-db].hit_rate=95%`. A name
//! written alone becomes `{target: NAME, FIELD: VALUE}`.

use crate::model::error::{Problem, closest};
use crate::model::load::{self, Node, Value};
use crate::model::{Model, Span, validate};

/// One `--set` argument, split.
struct Setting<'a> {
    arg: &'a str,
    component: &'a str,
    field: &'a str,
    /// Byte offset of FIELD in `arg`.
    field_at: usize,
    /// Byte offset of VALUE in `arg`.
    value_at: usize,
    /// For `COMPONENT.depends_on[TARGET].FIELD`: TARGET and its offset.
    edge: Option<(&'a str, usize)>,
}

/// `.depends_on[` between a component and the target of one of its edges.
const EDGE_PATH: &str = ".depends_on[";

/// Why settings could not be applied.
pub enum SetError {
    /// The argument itself is malformed or names no component: one sentence.
    Usage(String),
    /// The changed model is invalid: problems in the model text, and problems
    /// in each argument (its text and the problems pointing into it).
    Invalid {
        /// Problems located in the model text.
        model: Vec<Problem>,
        /// `(argument, problems located in it)`.
        settings: Vec<(String, Vec<Problem>)>,
    },
}

/// What a malformed `--set` argument should look like, after the reason
/// (empty when there is none more precise than the forms themselves).
fn usage(arg: &str, why: &str) -> String {
    let why = if why.is_empty() {
        String::new()
    } else {
        format!("{why}; ")
    };
    format!(
        "--set `{arg}`: {why}write COMPONENT.FIELD=VALUE or COMPONENT.depends_on[TARGET].FIELD=VALUE, such as `api.instances=4`, `db.availability=99.95%` or `web.depends_on[db].timeout=300ms`"
    )
}

fn split(arg: &str) -> Result<Setting<'_>, String> {
    let (path, _) = arg
        .split_once('=')
        .ok_or_else(|| usage(arg, "no `=` before the value"))?;
    if let Some(at) = path.find(EDGE_PATH) {
        let target_at = at + EDGE_PATH.len();
        if at == 0 {
            return Err(usage(arg, "no component before `.depends_on[`"));
        }
        let (target, after) = path[target_at..]
            .split_once(']')
            .ok_or_else(|| usage(arg, "the `[` of `depends_on[` is not closed with `]`"))?;
        if target.is_empty() {
            return Err(usage(arg, "no target between `depends_on[` and `]`"));
        }
        let field = after
            .strip_prefix('.')
            .filter(|f| !f.is_empty())
            .ok_or_else(|| usage(arg, "no `.FIELD` after `depends_on[TARGET]`"))?;
        if field.contains(['.', '[', ']']) {
            return Err(usage(
                arg,
                &format!("`{field}` is not one field of the edge"),
            ));
        }
        return Ok(Setting {
            arg,
            component: &path[..at],
            field,
            field_at: path.len() - field.len(),
            value_at: path.len() + 1,
            edge: Some((target, target_at)),
        });
    }
    let (component, field) = path
        .rsplit_once('.')
        .ok_or_else(|| usage(arg, "no `.` between the component and the field"))?;
    if component.is_empty() || field.is_empty() {
        return Err(usage(arg, ""));
    }
    Ok(Setting {
        arg,
        component,
        field,
        field_at: component.len() + 1,
        value_at: path.len() + 1,
        edge: None,
    })
}

/// Applies every setting to the model `text` (already known valid as
/// `model`): the changed text (with the arguments appended, for locating
/// findings) and the validated changed model.
pub fn apply(text: &str, model: &Model, args: &[String]) -> Result<(String, Model), SetError> {
    let settings = args
        .iter()
        .map(|arg| split(arg))
        .collect::<Result<Vec<_>, _>>()
        .map_err(SetError::Usage)?;
    for setting in &settings {
        if !model.components.iter().any(|c| c.name == setting.component) {
            let hint = closest(
                setting.component,
                model.components.iter().map(|c| c.name.as_str()),
            )
            .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
            return Err(SetError::Usage(format!(
                "--set `{}`: no component is called `{}`{hint}",
                setting.arg, setting.component
            )));
        }
    }
    let mut root = load::parse(text).map_err(|problem| SetError::Invalid {
        model: vec![problem],
        settings: Vec::new(),
    })?;
    let mut combined = text.to_owned();
    let mut bases = Vec::new();
    let mut early: Vec<Problem> = Vec::new();
    for setting in &settings {
        combined.push_str("\n# --set ");
        let base = combined.len();
        bases.push(base);
        combined.push_str(setting.arg);
        let key = Node {
            value: Value::Str(setting.field.to_owned()),
            span: Span::new(base + setting.field_at, setting.field.len()),
        };
        match load::parse(&setting.arg[setting.value_at..]) {
            Ok(mut value) => {
                shift(&mut value, base + setting.value_at);
                match setting.edge {
                    None => insert(&mut root, setting.component, key, value),
                    Some((target, at)) => {
                        let span = Span::new(base + at, target.len());
                        if let Err(problem) =
                            insert_edge(&mut root, setting.component, (target, span), key, value)
                        {
                            early.push(problem);
                        }
                    }
                }
            }
            Err(mut problem) => {
                problem.span.offset += base + setting.value_at;
                early.push(problem);
            }
        }
    }
    let result = if early.is_empty() {
        validate::validate(&combined, root)
    } else {
        Err(early)
    };
    match result {
        Ok(changed) => Ok((combined, changed)),
        Err(problems) => Err(split_problems(text, &settings, &bases, problems)),
    }
}

/// Sorts problems into the model text and the arguments, moving the spans
/// of those in an argument to the argument's own offsets.
fn split_problems(
    text: &str,
    settings: &[Setting],
    bases: &[usize],
    problems: Vec<Problem>,
) -> SetError {
    let region = |offset: usize| -> Option<usize> {
        (0..settings.len()).rev().find(|&i| offset >= bases[i])
    };
    let mut model = Vec::new();
    let mut per_setting: Vec<Vec<Problem>> = vec![Vec::new(); settings.len()];
    for mut problem in problems {
        match region(problem.span.offset) {
            None => {
                problem
                    .related
                    .retain(|(span, _)| span.offset <= text.len());
                model.push(problem);
            }
            Some(i) => {
                let base = bases[i];
                let end = base + settings[i].arg.len();
                problem.span.offset -= base;
                problem.span.len = problem
                    .span
                    .len
                    .min(end.saturating_sub(base + problem.span.offset));
                problem
                    .related
                    .retain(|(span, _)| span.offset >= base && span.offset <= end);
                for (span, _) in &mut problem.related {
                    span.offset -= base;
                }
                per_setting[i].push(problem);
            }
        }
    }
    SetError::Invalid {
        model,
        settings: settings
            .iter()
            .zip(per_setting)
            .filter(|(_, problems)| !problems.is_empty())
            .map(|(s, problems)| (s.arg.to_owned(), problems))
            .collect(),
    }
}

/// Moves every span of a tree parsed from an argument to where the
/// argument sits in the changed text.
fn shift(node: &mut Node, by: usize) {
    node.span.offset += by;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| shift(n, by)),
        Value::Map(pairs) => {
            for (k, v) in pairs {
                shift(k, by);
                shift(v, by);
            }
        }
        _ => {}
    }
}

fn is_key(node: &Node, name: &str) -> bool {
    match &node.value {
        Value::Str(s) => s == name,
        Value::Int(i) => i.to_string() == name,
        Value::Bool(b) => b.to_string() == name,
        _ => false,
    }
}

/// The mapping of `components.<component>` in the tree (an empty one
/// made for `name: ~`), when the tree has it.
fn component_fields<'a>(root: &'a mut Node, component: &str) -> Option<&'a mut Vec<(Node, Node)>> {
    let Value::Map(pairs) = &mut root.value else {
        return None;
    };
    let (_, components) = pairs.iter_mut().find(|(k, _)| is_key(k, "components"))?;
    let Value::Map(items) = &mut components.value else {
        return None;
    };
    let (_, entry) = items.iter_mut().find(|(k, _)| is_key(k, component))?;
    if matches!(entry.value, Value::Null) {
        entry.value = Value::Map(Vec::new());
    }
    match &mut entry.value {
        Value::Map(fields) => Some(fields),
        _ => None,
    }
}

/// Sets `components.<component>.<key>` to `value` in the tree.
fn insert(root: &mut Node, component: &str, key: Node, value: Node) {
    let Some(fields) = component_fields(root, component) else {
        return;
    };
    let Value::Str(name) = &key.value else {
        return;
    };
    // The key is replaced too, so that every span of the setting, key and
    // value, points into the argument.
    match fields.iter_mut().find(|(k, _)| is_key(k, name)) {
        Some(pair) => *pair = (key, value),
        None => fields.push((key, value)),
    }
}

/// The names an entry of `depends_on` calls: the name itself, its
/// `target`, or the members of its `any_of` or `of`.
fn entry_targets(entry: &Node) -> Vec<&str> {
    fn as_str(n: &Node) -> Option<&str> {
        match &n.value {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }
    match &entry.value {
        Value::Str(s) => vec![s.as_str()],
        Value::Map(pairs) => pairs
            .iter()
            .flat_map(|(k, v)| {
                if is_key(k, "target") {
                    as_str(v).into_iter().collect::<Vec<_>>()
                } else if is_key(k, "any_of") || is_key(k, "of") {
                    match &v.value {
                        Value::Seq(items) => items.iter().filter_map(as_str).collect(),
                        _ => Vec::new(),
                    }
                } else {
                    Vec::new()
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Sets `key` to `value` on the edge of `component` that names `target`
/// (`span`: where the argument writes it): a name alone becomes a
/// mapping with its `target`. No edge, or several, is a located problem.
fn insert_edge(
    root: &mut Node,
    component: &str,
    (target, span): (&str, Span),
    key: Node,
    value: Node,
) -> Result<(), Problem> {
    let fields = component_fields(root, component)
        .ok_or_else(|| Problem::no_such_edge(span, component, target, &[]))?;
    let Some((_, list)) = fields.iter_mut().find(|(k, _)| is_key(k, "depends_on")) else {
        return Err(Problem::no_such_edge(span, component, target, &[]));
    };
    let Value::Seq(entries) = &mut list.value else {
        return Err(Problem::no_such_edge(span, component, target, &[]));
    };
    let matching: Vec<usize> = (0..entries.len())
        .filter(|&i| entry_targets(&entries[i]).contains(&target))
        .collect();
    let index = match matching.as_slice() {
        [one] => *one,
        [] => {
            let called: Vec<&str> = entries.iter().flat_map(entry_targets).collect();
            return Err(Problem::no_such_edge(span, component, target, &called));
        }
        several => {
            return Err(Problem::ambiguous_edge(
                span,
                component,
                target,
                several.len(),
            ));
        }
    };
    let entry = &mut entries[index];
    if matches!(entry.value, Value::Str(_)) {
        let name = entry.clone();
        let target_key = Node {
            value: Value::Str("target".to_owned()),
            span: name.span,
        };
        entry.value = Value::Map(vec![(target_key, name)]);
    }
    let Value::Map(pairs) = &mut entry.value else {
        return Err(Problem::no_such_edge(span, component, target, &[]));
    };
    let Value::Str(name) = &key.value else {
        return Ok(());
    };
    match pairs.iter_mut().find(|(k, _)| is_key(k, name)) {
        Some(pair) => *pair = (key, value),
        None => pairs.push((key, value)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r"system: s
components:
  api: {instances: 2, placement: [a, b], depends_on: [db]}
  db: {}
domains: {a: {kind: zone}, b: {kind: zone}}
";

    fn apply_to(args: &[&str]) -> Result<(String, Model), SetError> {
        let model = crate::model::parse(TEXT).unwrap();
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        apply(TEXT, &model, &args)
    }

    #[test]
    fn settings_replace_and_add_fields() {
        let Ok((_, model)) = apply_to(&[
            "api.instances=4",
            "db.availability=99.5%",
            "db.placement=[a, b]",
            "db.instances=2",
        ]) else {
            panic!("valid settings");
        };
        assert_eq!(model.components[0].instances, 4);
        // placement [a, b] spreads 4 instances evenly: 2 + 2.
        assert_eq!(
            model.components[0]
                .placement
                .iter()
                .map(|p| p.1)
                .collect::<Vec<_>>(),
            [2, 2]
        );
        assert_eq!(model.components[1].availability, Some(0.995));
        assert_eq!(model.components[1].instances, 2);
    }

    #[test]
    fn a_bad_value_points_into_its_argument() {
        let Err(SetError::Invalid { model, settings }) =
            apply_to(&["api.instances=2", "db.availability=99.9"])
        else {
            panic!("a bare percent is an error");
        };
        assert!(model.is_empty());
        assert_eq!(settings.len(), 1);
        let (arg, problems) = &settings[0];
        assert_eq!(arg, "db.availability=99.9");
        // `99.9` starts after `db.availability=` (16 bytes).
        assert_eq!((problems[0].span.offset, problems[0].span.len), (16, 4));
        assert!(
            problems[0]
                .help
                .as_deref()
                .unwrap()
                .starts_with("did you mean 99.9%?")
        );
    }

    #[test]
    fn an_unknown_field_or_component_is_named() {
        let Err(SetError::Invalid { settings, .. }) = apply_to(&["api.instnaces=3"]) else {
            panic!("unknown key");
        };
        assert_eq!(settings[0].1[0].span.offset, 4);
        assert_eq!(
            settings[0].1[0].help.as_deref(),
            Some("did you mean `instances`?")
        );
        let Err(SetError::Usage(message)) = apply_to(&["apj.instances=3"]) else {
            panic!("unknown component");
        };
        assert!(message.contains("did you mean `api`?"), "{message}");
        assert!(matches!(apply_to(&["api=3"]), Err(SetError::Usage(_))));
    }

    const EDGES: &str = r"system: s
components:
  redirect: {load: 9000, capacity: 2000, instances: 6, depends_on: [{target: links-db, hit_rate: 99%, cached_by: cache}, cache]}
  api: {depends_on: [{any_of: [db-east, db-west], timeout: 1s}, links-db]}
  links-db: {instances: 3, capacity: 1000}
  cache: {}
  db-east: {}
  db-west: {}
";

    fn apply_edges(args: &[&str]) -> Result<(String, Model), SetError> {
        let model = crate::model::parse(EDGES).unwrap();
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        apply(EDGES, &model, &args)
    }

    #[test]
    fn an_edge_field_is_set_on_the_edge_naming_the_target() {
        let Ok((_, model)) = apply_edges(&[
            "redirect.depends_on[links-db].hit_rate=95%",
            "redirect.depends_on[cache].timeout=50ms",
            "api.depends_on[db-west].retries=2",
        ]) else {
            panic!("valid settings");
        };
        let redirect = &model.components[0];
        // The written 99% becomes 95%; the rest of the edge stays.
        assert_eq!(redirect.depends_on[0].hit_rate, Some(0.95));
        assert!(redirect.depends_on[0].cached_by.is_some());
        // `cache` written alone became {target: cache, timeout: 50ms}.
        assert_eq!(redirect.depends_on[1].timeout.map(|t| t.0), Some(50));
        // db-west is a member of the any_of: the edge gets the retries.
        let api = &model.components[1];
        assert_eq!(
            (api.depends_on[0].retries, api.depends_on[1].retries),
            (2, 0)
        );
    }

    #[test]
    fn a_bad_edge_setting_points_into_its_argument() {
        // No edge of redirect names `links-dbb`: underlined where the
        // argument writes it, 21 bytes in (`redirect.depends_on[`).
        let Err(SetError::Invalid { settings, .. }) =
            apply_edges(&["redirect.depends_on[links-dbb].hit_rate=95%"])
        else {
            panic!("no such edge");
        };
        let problem = &settings[0].1[0];
        assert_eq!((problem.span.offset, problem.span.len), (20, 9));
        assert_eq!(problem.help.as_deref(), Some("did you mean `links-db`?"));
        // The value is read as in the model: 95 is no probability.
        let Err(SetError::Invalid { settings, .. }) =
            apply_edges(&["redirect.depends_on[links-db].hit_rate=95"])
        else {
            panic!("a bare percent is an error");
        };
        assert!(
            settings[0].1[0]
                .help
                .as_deref()
                .unwrap()
                .starts_with("did you mean 95%?")
        );
        // An unknown edge key gets the model's own "did you mean".
        let Err(SetError::Invalid { settings, .. }) =
            apply_edges(&["redirect.depends_on[links-db].hit_rat=95%"])
        else {
            panic!("unknown key");
        };
        assert_eq!(settings[0].1[0].span.offset, 30);
        assert!(matches!(
            apply_edges(&["redirect.depends_on[links-db]hit_rate=1"]),
            Err(SetError::Usage(_))
        ));
    }
}
