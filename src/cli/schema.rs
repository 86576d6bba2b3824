//! `nines schema`: the JSON Schema of the model format, from the raw types.

use super::{Outcome, Terminal};

/// The schema, pretty-printed with a final newline.
#[must_use]
pub fn schema_json() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<crate::model::raw::RawModel>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

pub(super) fn run(terminal: &mut Terminal) -> Outcome {
    match terminal.out.write_all(schema_json().as_bytes()) {
        Ok(()) => Outcome::Pass,
        Err(_) => Outcome::Invalid,
    }
}
