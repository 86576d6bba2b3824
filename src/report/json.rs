//! The JSON wire format: the [`Report`] serialized with stable keys, two-space
//! indentation and a final newline.

use std::io::{self, Write};

use super::{Report, Target};

/// Writes the report as JSON.
///
/// # Errors
/// When writing fails.
pub fn render(report: &Report, _target: &Target, out: &mut dyn Write) -> io::Result<()> {
    // Straight to the writer: no string of the whole document is built.
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}
