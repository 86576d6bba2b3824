//! One experiment as a file of its tool: written by the formats work (issue 26).

use super::Settings;
use crate::analyze::experiments::{Experiment, Plan};

/// The file name's extension.
pub const EXTENSION: &str = "json";

/// The experiment as its tool's file.
#[must_use]
pub fn render(plan: &Plan, experiment: &Experiment, settings: &Settings) -> String {
    let _ = (plan, settings);
    serde_json::to_string_pretty(experiment).unwrap_or_default()
}
