//! `nines verify`: predicted against observed per entrypoint, the verdict,
//! the key most likely wrong (better than predicted) or the drift finding
//! (worse), for a terminal and as JSON (docs/json.md, "verify").

use std::io::{self, Write};

use super::table::{Style, align_right, finding_block, table, wrap};
use crate::analyze::verify::{KeyTrial, Row, Verdict, Verification};
use crate::analyze::wording::{percent, percent_against};

/// A served share: one decimal, more where one would read 100% for a share
/// below it.
fn share(x: f64) -> String {
    let text = percent(x);
    if x < 1.0 && text == "100%" {
        percent_against(x, 1.0)
    } else {
        text
    }
}

/// A value of a key as a reader writes it: a hit rate as a percent, an
/// instance count whole, a capacity to 4 significant digits.
fn value(key: &str, x: f64) -> String {
    if key.ends_with(".hit_rate") {
        let text = format!("{:.2}", x * 100.0);
        return format!("{}%", text.trim_end_matches('0').trim_end_matches('.'));
    }
    if key.ends_with(".instances") {
        return format!("{x:.0}");
    }
    crate::human::amount(significant(x, 4))
}

/// `x` rounded to `digits` significant digits.
fn significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the exponent of a finite f64 is within ±308"
    )]
    let magnitude = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - magnitude);
    (x * scale).round() / scale
}

/// `links-db.capacity 1000 → 4025 per instance`.
fn change(t: &KeyTrial) -> String {
    let unit = if t.key.ends_with(".capacity") {
        " per instance"
    } else {
        ""
    };
    match t.needed {
        Some(needed) => format!(
            "{} {} → {}{unit}",
            t.key,
            value(&t.key, t.written),
            value(&t.key, needed)
        ),
        None => format!("{} {}{unit}", t.key, value(&t.key, t.written)),
    }
}

/// The verification for a terminal; `file` is the model's name as shown.
///
/// # Errors
/// The writer's.
pub fn render_table(
    v: &Verification,
    file: &str,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let results = v
        .result_formats
        .iter()
        .map(|f| f.describe())
        .collect::<Vec<_>>()
        .join(", ");
    for line in wrap(
        &format!(
            "{} ({file}): the experiment {} ({}) from {}, observed in {results}; as predicted within {}",
            v.system,
            v.loss,
            v.title,
            v.file_format.describe(),
            percent(v.margin)
        ),
        style.width,
    ) {
        writeln!(out, "{line}")?;
    }
    writeln!(out)?;
    let with_min = v
        .entrypoints
        .iter()
        .any(|r| r.samples > 1 || (r.observed.is_some() && r.observed_below.is_some()));
    let with_latency = v.entrypoints.iter().any(|r| r.latency_s.is_some());
    let mut header = vec!["entrypoint", "predicted", "tolerance", "observed"];
    if with_min {
        header.push("min");
    }
    if with_latency {
        header.push("latency");
    }
    header.push("verdict");
    let mut t = table(style, &header);
    for r in &v.entrypoints {
        let mut cells = vec![
            r.entrypoint.clone(),
            share(r.predicted),
            share(r.tolerance),
            observed(r),
        ];
        if with_min {
            cells.push(match (r.observed_min, r.observed_below) {
                (_, Some(t)) => format!("< {}", share(t)),
                (Some(m), None) => share(m),
                (None, None) => "–".to_owned(),
            });
        }
        if with_latency {
            cells.push(
                r.latency_s
                    .map_or_else(|| "–".to_owned(), |s| super::table::seconds(s).to_string()),
            );
        }
        cells.push(
            match r.verdict {
                Verdict::Better => "better",
                Verdict::Worse => "worse",
                other => other.words(),
            }
            .to_owned(),
        );
        t.add_row(cells);
    }
    align_right(&mut t, 1..=header.len() - 2);
    writeln!(out, "{t}")?;
    writeln!(out)?;
    for line in wrap(&sentence(v, file), style.width) {
        writeln!(out, "{line}")?;
    }
    if let Some(explanation) = &v.explanation {
        for line in explanation_lines(explanation) {
            for line in wrap(&line, style.width) {
                writeln!(out, "{line}")?;
            }
        }
    }
    if let Some(finding) = &v.finding {
        writeln!(out)?;
        finding_block(finding, style, out)?;
    }
    if !v.notes.is_empty() {
        writeln!(out)?;
        for note in &v.notes {
            for (index, line) in wrap(note, style.width.saturating_sub(6))
                .into_iter()
                .enumerate()
            {
                let lead = if index == 0 { "note: " } else { "      " };
                writeln!(out, "{lead}{line}")?;
            }
        }
    }
    Ok(())
}

/// The observed share in a cell: the mean, or `< t` when the only checks
/// found it under a threshold without its value.
fn observed(r: &Row) -> String {
    match (r.observed, r.observed_below) {
        (Some(o), _) => share(o),
        (None, Some(t)) => format!("< {}", share(t)),
        (None, None) => "–".to_owned(),
    }
}

/// The verdict in one sentence.
fn sentence(v: &Verification, file: &str) -> String {
    let of = |verdict: Verdict| -> Vec<&Row> {
        v.entrypoints
            .iter()
            .filter(|r| r.verdict == verdict)
            .collect()
    };
    let unobserved = of(Verdict::NotObserved);
    let tail = if unobserved.is_empty() {
        String::new()
    } else {
        format!(
            " ({} not observed)",
            unobserved
                .iter()
                .map(|r| r.entrypoint.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let same = format!("nines what-if {file} {}", v.what_if.join(" "));
    match v.verdict {
        Verdict::Worse => {
            let worse: Vec<String> = of(Verdict::Worse)
                .iter()
                .map(|r| {
                    let what = match (r.observed, r.observed_below) {
                        (Some(o), Some(t)) => {
                            format!("{} on average and under {} at a check", share(o), share(t))
                        }
                        (None, Some(t)) => format!("under {}", share(t)),
                        _ => observed(r),
                    };
                    format!(
                        "{} served {what}, below the {} the hypothesis allows (predicted {})",
                        r.entrypoint,
                        share(r.tolerance),
                        share(r.predicted)
                    )
                })
                .collect();
            format!(
                "worse than predicted: {}{tail}: the system has a weakness the model does not know. The prediction: {same}",
                worse.join("; ")
            )
        }
        Verdict::Better => {
            let better: Vec<String> = of(Verdict::Better)
                .iter()
                .map(|r| {
                    format!(
                        "{} served {} where the model predicts {}",
                        r.entrypoint,
                        share(r.observed.unwrap_or(0.0)),
                        share(r.predicted)
                    )
                })
                .collect();
            format!(
                "better than predicted: {}{tail}: the model is pessimistic (or the experiment ran below the model's peak load). The prediction: {same}",
                better.join("; ")
            )
        }
        Verdict::AsPredicted | Verdict::NotObserved => format!(
            "as predicted: every entrypoint observed served within {} of the prediction{tail}",
            percent(v.margin)
        ),
    }
}

/// The key most likely wrong, then the others tried.
fn explanation_lines(e: &crate::analyze::verify::Explanation) -> Vec<String> {
    let mut lines = Vec::new();
    let observed = share(e.observed);
    let best = e.keys.first().filter(|t| t.needed.is_some());
    match best {
        Some(t) if t.explains => lines.push(format!(
            "The key most likely wrong: {} would explain the {observed} {} served (the model would predict {}).",
            change(t),
            e.entrypoint,
            share(t.predicted.unwrap_or(0.0))
        )),
        Some(t) => lines.push(format!(
            "No key alone gives the {observed} {} served: the nearest, {}, makes the model predict {}, more than observed (the prediction jumps there); more than one thing is probably wrong, or what the model lacks is none of these keys.",
            e.entrypoint,
            change(t),
            share(t.predicted.unwrap_or(0.0))
        )),
        None if e.keys.is_empty() => lines.push(format!(
            "No key to search: nothing is overloaded in this loss, so no capacity, instance count or hit rate explains the {observed} {} served; look for a dependency the system does not have, or a fallback the model does not know (`degradable`).",
            e.entrypoint
        )),
        None => lines.push(format!(
            "No key explains the {observed} {} served within its search range ({}); look for a dependency the system does not have, or a fallback the model does not know (`degradable`).",
            e.entrypoint,
            e.keys.iter().map(|t| t.key.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
    let others: Vec<String> = e
        .keys
        .iter()
        .skip(usize::from(best.is_some()))
        .map(|t| match (t.needed, t.predicted) {
            (Some(_), Some(p)) if t.explains => format!("{} ({})", change(t), share(p)),
            (Some(_), Some(p)) => format!("{} ({}, more than observed)", change(t), share(p)),
            _ => format!("{} (no value reaches it)", t.key),
        })
        .collect();
    if !others.is_empty() {
        lines.push(format!("Also tried: {}.", others.join("; ")));
    }
    lines
}

/// The verification as JSON (docs/json.md, "verify").
///
/// # Errors
/// The writer's.
pub fn render_json(v: &Verification, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, v)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_written() {
        assert_eq!(value("links-db.capacity", 4_025.000_4), "4025");
        assert_eq!(value("redirect.capacity", 2225.0025), "2225");
        assert_eq!(value("links-db.instances", 14.0), "14");
        assert_eq!(
            value("redirect.depends_on[links-db].hit_rate", 0.975_004),
            "97.5%"
        );
    }
}
