//! The JSON wire format: the [`Audit`] serialized with stable keys, two-space
//! indentation and a final newline.

use std::io::{self, Write};

use super::{Audit, Target};

/// Writes the report as JSON.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, _target: &Target, out: &mut dyn Write) -> io::Result<()> {
    // Straight to the writer: no string of the whole document is built.
    serde_json::to_writer_pretty(&mut *out, audit)?;
    out.write_all(b"\n")
}
