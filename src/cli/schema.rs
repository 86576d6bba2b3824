//! `nines schema`: the JSON Schema of the model format, from the raw types.

use serde_json::Value;

use super::{CliError, Outcome, Terminal};

/// The schema, pretty-printed with a final newline.
#[must_use]
pub fn schema_json() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<crate::model::raw::RawModel>();
    let mut value = schema.to_value();
    not_nullable(&mut value);
    if let Some(root) = value.as_object_mut() {
        root.insert(
            "title".into(),
            Value::from("nines model (format version 1)"),
        );
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// Optional keys may be left out, but not written empty (`key:` is an error
/// in nines), so the `null` that schemars adds for `Option` is removed.
fn not_nullable(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(options)) = map.get_mut("anyOf") {
                options.retain(|o| o.get("type").is_none_or(|t| t != "null"));
                if options.len() == 1 {
                    let only = options.remove(0);
                    map.remove("anyOf");
                    if let Value::Object(inner) = only {
                        // draft-07 ignores the siblings of `$ref`: keep the
                        // description beside it through `allOf`.
                        if inner.contains_key("$ref") {
                            map.insert("allOf".into(), Value::Array(vec![Value::Object(inner)]));
                        } else {
                            map.extend(inner);
                        }
                    }
                }
            }
            map.values_mut().for_each(not_nullable);
        }
        Value::Array(items) => items.iter_mut().for_each(not_nullable),
        _ => {}
    }
}

pub(super) fn run(terminal: &mut Terminal) -> Result<Outcome, CliError> {
    terminal.out.write_all(schema_json().as_bytes())?;
    Ok(Outcome::Pass)
}
