//! `--set COMPONENT.FIELD=VALUE` for `what-if` (a change of the model, so
//! it lives with the model): the value is read by the
//! model's own rules. Each setting is written into the model's spanned tree
//! (replacing the field or adding it), with the spans of the new key and
//! value pointing into a copy of the argument appended to the model text;
//! the tree is then validated like any model. A problem inside a setting is
//! shown against the argument itself, so `--set api.availability=99.9`
//! gets the model's "did you mean 99.9%?" with the argument underlined.

use crate::model::error::{Problem, closest};
use crate::model::load::{self, Node, Value};
use crate::model::{Model, Span, validate};

/// One `--set` argument, split.
struct Setting<'a> {
    arg: &'a str,
    component: &'a str,
    field: &'a str,
    /// Byte offset of VALUE in `arg`.
    value_at: usize,
}

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

fn split(arg: &str) -> Result<Setting<'_>, String> {
    let usage = || {
        format!(
            "--set `{arg}`: write COMPONENT.FIELD=VALUE, such as `api.instances=4` or `db.availability=99.95%`"
        )
    };
    let (path, _) = arg.split_once('=').ok_or_else(usage)?;
    let (component, field) = path.rsplit_once('.').ok_or_else(usage)?;
    if component.is_empty() || field.is_empty() {
        return Err(usage());
    }
    Ok(Setting {
        arg,
        component,
        field,
        value_at: path.len() + 1,
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
            span: Span::new(base + setting.component.len() + 1, setting.field.len()),
        };
        match load::parse(&setting.arg[setting.value_at..]) {
            Ok(mut value) => {
                shift(&mut value, base + setting.value_at);
                insert(&mut root, setting.component, key, value);
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

/// Sets `components.<component>.<key>` to `value` in the tree.
fn insert(root: &mut Node, component: &str, key: Node, value: Node) {
    let Value::Map(pairs) = &mut root.value else {
        return;
    };
    let Some((_, components)) = pairs.iter_mut().find(|(k, _)| is_key(k, "components")) else {
        return;
    };
    let Value::Map(items) = &mut components.value else {
        return;
    };
    let Some((_, entry)) = items.iter_mut().find(|(k, _)| is_key(k, component)) else {
        return;
    };
    if matches!(entry.value, Value::Null) {
        entry.value = Value::Map(Vec::new());
    }
    let Value::Map(fields) = &mut entry.value else {
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
}
