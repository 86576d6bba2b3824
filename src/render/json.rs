//! The JSON wire format: the [`Audit`] serialized with stable keys, two-space
//! indentation and a final newline.
//!
//! A large model's report is mostly two arrays (100,000 components give
//! about 50,000 findings and 375,000 headroom rows, 170 MB of JSON). Their
//! elements are serialized in parallel, a window at a time, and written in
//! order: the bytes are those of `serde_json::to_writer_pretty` on the whole
//! audit, which smaller reports still use.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;

use super::{Audit, Target};

/// From this many findings and headroom rows on, the two arrays are
/// serialized in parallel.
const PARALLEL_FROM: usize = 4_096;

/// Elements serialized by one task.
const CHUNK: usize = 512;

/// Elements held in memory at once (then written, then the next window).
const WINDOW: usize = 32 * CHUNK;

/// Writes the report as JSON.
///
/// # Errors
/// When writing fails.
pub fn render(audit: &Audit, _target: &Target, out: &mut dyn Write) -> io::Result<()> {
    if audit.findings.len() + audit.headroom.len() < PARALLEL_FROM {
        // Straight to the writer: no string of the whole document is built.
        serde_json::to_writer_pretty(&mut *out, audit)?;
    } else {
        write_spliced(audit, out)?;
    }
    out.write_all(b"\n")
}

/// The audit with its findings and headroom rows serialized in parallel:
/// everything else is serialized as usual with those two arrays empty, and
/// the arrays are written where their `[]` stands.
fn write_spliced(audit: &Audit, out: &mut dyn Write) -> io::Result<()> {
    let skeleton = serde_json::to_vec_pretty(&skeleton(audit))?;
    let (before, rest) = split_at_empty(&skeleton, "findings")?;
    out.write_all(before)?;
    write_array(&audit.findings, out)?;
    let (between, after) = split_at_empty(rest, "headroom")?;
    out.write_all(between)?;
    write_array(&audit.headroom, out)?;
    out.write_all(after)
}

/// Everything of `audit` but its findings and headroom rows. Every field is
/// named, so that a new one cannot be forgotten here.
fn skeleton(audit: &Audit) -> Audit {
    Audit {
        system: audit.system.clone(),
        availability: audit.availability.clone(),
        request_mix: audit.request_mix.clone(),
        findings: Vec::new(),
        fixed: audit.fixed.clone(),
        baseline: None,
        headroom: Vec::new(),
        cascades: audit.cascades.clone(),
        retries: audit.retries.clone(),
        retries_truncated: audit.retries_truncated,
        retries_omitted: audit.retries_omitted,
        latency: audit.latency.clone(),
        cold_start: audit.cold_start.clone(),
        recovery: audit.recovery.clone(),
    }
}

/// `text` split around the empty array of the top-level `key`: what comes
/// before `[]` and what comes after it. A top-level key is the only text
/// on a line indented by exactly two spaces and followed by a quote
/// (strings never hold a raw newline).
fn split_at_empty<'t>(text: &'t [u8], key: &str) -> io::Result<(&'t [u8], &'t [u8])> {
    let needle = format!("\n  \"{key}\": []");
    // `str::find` searches with Two-Way (a byte-window scan compared each
    // position: 80M instructions on the skeleton of a 10k model).
    let at = std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.find(&needle))
        .ok_or_else(|| io::Error::other(format!("no top-level `{key}` in the JSON report")))?;
    let open = at + needle.len() - 2;
    Ok((&text[..open], &text[open + 2..]))
}

/// A non-empty array of the top-level object as `to_writer_pretty` writes
/// it: each element on lines of its own, indented by four spaces.
fn write_array<T: Serialize + Sync>(items: &[T], out: &mut dyn Write) -> io::Result<()> {
    if items.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[\n")?;
    for (index, window) in items.chunks(WINDOW).enumerate() {
        let texts = window
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut text = Vec::new();
                for (at, item) in chunk.iter().enumerate() {
                    if at > 0 {
                        text.extend_from_slice(b",\n");
                    }
                    indented(item, &mut text)?;
                }
                Ok(text)
            })
            .collect::<io::Result<Vec<Vec<u8>>>>()?;
        for (at, text) in texts.iter().enumerate() {
            if index > 0 || at > 0 {
                out.write_all(b",\n")?;
            }
            out.write_all(text)?;
        }
    }
    out.write_all(b"\n  ]")
}

/// One element, pretty, every line indented by four spaces (its depth in
/// the report).
fn indented<T: Serialize>(item: &T, text: &mut Vec<u8>) -> io::Result<()> {
    let alone = serde_json::to_vec_pretty(item)?;
    text.extend_from_slice(b"    ");
    for line in alone.split_inclusive(|&b| b == b'\n') {
        text.extend_from_slice(line);
        if line.ends_with(b"\n") {
            text.extend_from_slice(b"    ");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Text;
    use crate::render::HeadroomRow;
    use std::sync::Arc;

    fn whole(audit: &Audit) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(audit).unwrap();
        out.push(b'\n');
        out
    }

    fn spliced(audit: &Audit) -> Vec<u8> {
        let mut out = Vec::new();
        write_spliced(audit, &mut out).unwrap();
        out.push(b'\n');
        out
    }

    fn row(index: usize) -> HeadroomRow {
        HeadroomRow {
            component: format!("api-{index}").into(),
            lost: "az-a".into(),
            instances: 3,
            survivors: 2,
            utilization: 0.75,
            ok: true,
            required_instances: 3,
            per_domain: Some(1),
            required_steady_utilization: 0.5,
        }
    }

    #[test]
    fn the_spliced_report_is_byte_for_byte_the_whole_one() {
        let mut audit = crate::render::sample::audit();
        assert_eq!(spliced(&audit), whole(&audit));
        // Several chunks and windows of both arrays, the last ones partial:
        // the separators between chunks and windows are those of one array.
        let finding = audit.findings[0].clone();
        audit.findings = (0..WINDOW + CHUNK + 7)
            .map(|i| {
                let mut f = finding.clone();
                f.rule = "spof";
                f.subject = format!("c-{i:06}").into();
                f.wording = Arc::new(Text::new(format!(
                    "line one \"quoted\"\nstill one string {i}"
                )));
                f
            })
            .collect();
        audit.headroom = (0..2 * WINDOW + 3).map(row).collect();
        assert_eq!(spliced(&audit), whole(&audit));
        let mut out = Vec::new();
        render(&audit, &Target::file("m.yaml"), &mut out).unwrap();
        assert_eq!(out, whole(&audit));
    }

    #[test]
    fn empty_arrays_stay_empty() {
        let mut audit = crate::render::sample::audit();
        audit.findings.clear();
        audit.headroom.clear();
        assert_eq!(spliced(&audit), whole(&audit));
        audit.headroom = vec![row(1)];
        assert_eq!(spliced(&audit), whole(&audit));
    }
}
