//! Figures for people: the one place that decides how a number reads in a
//! sentence or a table cell (`+6 s`, `+0.05%`, `1.7 × 10³⁰⁸`, `vastly more
//! likely (10²⁰×)`). Prose never shows `9.69e-2` or a 309-digit integer;
//! the JSON report keeps the exact `f64` for machines.

/// Plain decimal notation is used between these magnitudes; outside them a
/// figure reads `m × 10ⁿ`.
const PLAIN_BELOW: f64 = 1e15;
const PLAIN_ABOVE: f64 = 1e-4;

/// `value` with at most `digits` significant figures, trailing zeros
/// dropped: `0.0499` → `0.05` (1), `1234.6` → `1235` (integers are never
/// rounded away), `1e308` → `1 × 10³⁰⁸`, `1e-308` → `1 × 10⁻³⁰⁸`.
#[must_use]
pub fn significant(value: f64, digits: u32) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "∞" } else { "-∞" }.to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let digits = digits.clamp(1, 15);
    // Plain or scientific is decided on the figure as it will read, rounded
    // to its digits: 9.6e-5 to one digit is 1e-4, written `0.0001` like
    // 1e-4 itself, never `1 × 10⁻⁴` beside it in the same column.
    let rounded: f64 = format!("{value:.*e}", (digits - 1) as usize)
        .parse()
        .unwrap_or(value);
    let magnitude = rounded.abs();
    if !(PLAIN_ABOVE..PLAIN_BELOW).contains(&magnitude) {
        return scientific(value, digits);
    }
    #[allow(
        clippy::cast_possible_truncation,
        reason = "log10 of a figure between 1e-4 and 1e15 is between -4 and 15"
    )]
    let exponent = magnitude.log10().floor() as i32;
    let decimals = (i32::try_from(digits).unwrap_or(15) - 1 - exponent).max(0);
    let text = format!("{value:.*}", usize::try_from(decimals).unwrap_or(0));
    trim(&text)
}

/// `m × 10ⁿ` with `digits` significant figures in the mantissa.
fn scientific(value: f64, digits: u32) -> String {
    let text = format!("{value:.*e}", (digits - 1) as usize);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!("{} × 10{}", trim(mantissa), superscript(exponent))
}

fn trim(text: &str) -> String {
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    };
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// An exponent in superscript digits: `20` → `²⁰`, `-308` → `⁻³⁰⁸`.
#[must_use]
pub fn superscript(exponent: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut out = String::new();
    if exponent < 0 {
        out.push('⁻');
    }
    for c in exponent.unsigned_abs().to_string().chars() {
        out.push(DIGITS[c.to_digit(10).unwrap_or(0) as usize]);
    }
    out
}

/// A load, capacity or count as the model gives it when it is an ordinary
/// figure (`1660`, `12.5`, `0.33`), else with three significant figures
/// (`1 × 10³⁰⁸`, `1 × 10⁻³⁰⁸`).
#[must_use]
pub fn amount(x: f64) -> String {
    let magnitude = x.abs();
    if x == 0.0 || !x.is_finite() || !(0.01..PLAIN_BELOW).contains(&magnitude) {
        return significant(x, 3);
    }
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        trim(&format!("{x:.2}"))
    }
}

/// A ratio as a percentage with `digits` significant figures: `0.000499`
/// → `0.05%` (1 or 2 digits), `0.8333` → `83%` (2). Above a million
/// percent the figure is written `m × 10ⁿ%`.
#[must_use]
pub fn percent(ratio: f64, digits: u32) -> String {
    format!("{}%", significant(ratio * 100.0, digits))
}

/// An availability as a percentage with six decimals (`99.950000%`), and
/// more where six would round a figure below 1 up to `100.000000%`
/// (`0.999999999` → `99.9999999%`): a figure that is not 100% never reads
/// as 100%.
#[must_use]
pub fn availability(a: f64) -> String {
    for decimals in 6..=12 {
        let text = format!("{:.*}", decimals, a * 100.0);
        if a >= 1.0 || !text.starts_with("100.") {
            return format!("{text}%");
        }
    }
    // Closer to 1 than 12 decimals show: the largest figure below 100%.
    "99.999999999999%".to_owned()
}

/// An availability whose unavailability `u` was carried apart (in failure
/// space): [`availability`] while its decimals can show it, else
/// `1 − 5.25 × 10⁻²⁷` (a figure so close to 1 that a percentage would read
/// `100.000000000000%`); `100.000000%` only when nothing can fail.
#[must_use]
pub fn availability_of(a: f64, u: f64) -> String {
    let text = availability(a);
    if u > 0.0 && (a >= 1.0 || text == "99.999999999999%") {
        return format!("1 − {}", significant(u, 3));
    }
    text
}

/// An availability gain as percentage points for prose, one significant
/// figure: `+0.05%` for `4.99e-4`, `+0.0001%` for `1e-6`, `+8 × 10⁻⁸%` for
/// `7.6e-10`.
#[must_use]
pub fn gain(ratio: f64) -> String {
    if ratio <= 0.0 {
        "+0%".to_owned()
    } else {
        format!("+{}", percent(ratio, 1))
    }
}

/// The gains of one table column, in one notation: the one its smallest
/// gain needs (`+0.05%`, `+0.0001%` while that reads plainly; `+5 × 10⁻²%`,
/// `+7 × 10⁻⁵%` for the whole column once it does not), so that a column
/// never holds `+0.0001%` beside `+7 × 10⁻⁵%`.
#[must_use]
pub fn gains(ratios: &[f64]) -> Vec<String> {
    let scientific_column = ratios
        .iter()
        .filter(|&&r| r > 0.0)
        .any(|&r| gain(r).contains('×'));
    ratios
        .iter()
        .map(|&r| {
            if r <= 0.0 || !scientific_column {
                gain(r)
            } else {
                format!("+{}%", scientific(r * 100.0, 1))
            }
        })
        .collect()
}

/// Every length of time in a table or a sentence, in the notation the
/// model is written in (`300ms`, `2s600ms`, `10m30s`, `8h45m`, `3d4h`), to
/// its two largest units: `0.0294` → `29ms`, `250.2` → `4m10s`, `3153.6` →
/// `52m34s` (rounded in the smaller unit; under a minute to three
/// significant figures, `4.227` → `4s230ms`, `36.1` → `36s`), `<1ms` for a
/// positive time that rounds to nothing, `forever` for an infinite one. A
/// model's own durations read as written (`2s600ms`, `10m30s`).
#[must_use]
pub fn duration(seconds: f64) -> String {
    const UNITS: [(&str, f64); 5] = [
        ("d", 86_400_000.0),
        ("h", 3_600_000.0),
        ("m", 60_000.0),
        ("s", 1000.0),
        ("ms", 1.0),
    ];
    if seconds.is_nan() {
        return "NaN".to_owned();
    }
    if seconds.is_infinite() {
        return if seconds > 0.0 { "forever" } else { "-forever" }.to_owned();
    }
    let sign = if seconds < 0.0 { "-" } else { "" };
    let ms = (seconds.abs() * 1000.0).round();
    if ms == 0.0 {
        return if seconds == 0.0 { "0s" } else { "<1ms" }.to_owned();
    }
    // The largest unit it reaches, and the next one it is rounded in (which
    // may carry it into a larger unit: 59.9996 s is 1m); seconds keep three
    // significant figures (`4s230ms`, `36s`), not a millisecond count.
    let largest = UNITS.iter().position(|&(_, size)| ms >= size).unwrap_or(4);
    let next = (largest + 1).min(4);
    let step = match ms {
        ms if (1000.0..10_000.0).contains(&ms) => 10.0,
        ms if (10_000.0..60_000.0).contains(&ms) => 1000.0,
        _ => UNITS[next].1,
    };
    let rounded = (ms / step).round() * step;
    let largest = UNITS
        .iter()
        .position(|&(_, size)| rounded >= size)
        .unwrap_or(4);
    let next = (largest + 1).min(4);
    let (unit, size) = UNITS[largest];
    let whole = (rounded / size).floor();
    let rest = ((rounded - whole * size) / UNITS[next].1).round();
    let mut text = format!("{sign}{}{unit}", significant(whole, 15));
    if next != largest && rest > 0.0 {
        text.push_str(&significant(rest, 15));
        text.push_str(UNITS[next].0);
    }
    text
}

/// How much likelier one thing is than another, for prose: `3 times as
/// likely`, `500 times as likely`, `vastly more likely (10²⁰×)`.
#[must_use]
pub fn likelier(a: f64, b: f64) -> String {
    if b <= 0.0 || !(a / b).is_finite() {
        return "infinitely more likely".to_owned();
    }
    let r = a / b;
    if r < 10_000.0 {
        format!("{} times as likely", significant(r, 2))
    } else {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "a finite ratio's log10 is below 309"
        )]
        let exponent = r.log10().round() as i32;
        format!("vastly more likely (10{}×)", superscript(exponent))
    }
}

/// A probability for prose: `0.01%` for `1e-4`, `1 × 10⁻²⁴` for the
/// tiny ones where a percentage would be a string of zeros.
#[must_use]
pub fn probability(p: f64) -> String {
    if p == 0.0 {
        "0".to_owned()
    } else if p >= 1e-6 {
        percent(p, 2)
    } else {
        significant(p, 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_availability_below_one_never_reads_as_a_hundred_percent() {
        // 1 − 1e-6 × 1e-3 = 0.999999999: six decimals round to 100.000000,
        // seven show 99.9999999.
        assert_eq!(availability(0.999_999_999), "99.9999999%");
        assert_eq!(availability(0.9995), "99.950000%");
        assert_eq!(availability(1.0), "100.000000%");
        assert_eq!(availability(1.0 - 1e-15), "99.999999999999%");
    }

    #[test]
    fn significant_figures_read_like_a_person_wrote_them() {
        assert_eq!(significant(0.0499, 1), "0.05");
        assert_eq!(significant(0.0499, 2), "0.05");
        assert_eq!(significant(1234.6, 2), "1235");
        assert_eq!(significant(1.0 / 3.0, 3), "0.333");
        assert_eq!(significant(1e308, 3), "1 × 10³⁰⁸");
        assert_eq!(significant(1e-308, 3), "1 × 10⁻³⁰⁸");
        assert_eq!(significant(f64::INFINITY, 3), "∞");
        assert_eq!(significant(-0.000_01, 2), "-1 × 10⁻⁵");
    }

    #[test]
    fn amounts_keep_the_models_figures() {
        assert_eq!(amount(1660.0), "1660");
        assert_eq!(amount(12.5), "12.5");
        assert_eq!(amount(0.333_333), "0.33");
        // 1e308 has 309 digits written out: three significant figures instead.
        assert_eq!(amount(1e308), "1 × 10³⁰⁸");
        assert_eq!(amount(1e-308), "1 × 10⁻³⁰⁸");
        assert_eq!(amount(0.0), "0");
    }

    #[test]
    fn prose_figures() {
        // 9.69e-2 min = 5.814 s; 0.0294 s = 29.4 ms; 250.2 s = 4 min 10.2 s.
        assert_eq!(duration(0.0969 * 60.0), "5s810ms");
        assert_eq!(duration(4.227), "4s230ms");
        assert_eq!(duration(36.137), "36s");
        assert_eq!(duration(9.996), "10s");
        assert_eq!(duration(0.0294), "29ms");
        assert_eq!(duration(0.2), "200ms");
        assert_eq!(duration(0.0001), "<1ms");
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(250.2), "4m10s");
        assert_eq!(duration(630.0), "10m30s");
        assert_eq!(duration(2.6), "2s600ms");
        // 52.56 min a year: 52 min 33.6 s, rounded in seconds.
        assert_eq!(duration(3153.6), "52m34s");
        // 59.9996 s rounds in milliseconds to a whole minute.
        assert_eq!(duration(59.9996), "1m");
        assert_eq!(duration(31_500.0), "8h45m");
        assert_eq!(duration(86_400.0 * 3.0 + 3600.0 * 4.4), "3d4h");
        assert_eq!(duration(-90.0), "-1m30s");
        assert_eq!(duration(f64::INFINITY), "forever");
        // A model's durations read as written.
        for written in ["300ms", "2s600ms", "10m30s", "1h", "45m", "1d12h"] {
            let d = crate::model::units::parse_duration(written).unwrap();
            assert_eq!(duration(d.seconds()), written);
            assert_eq!(duration(d.seconds()), d.to_string());
        }
        assert_eq!(gain(7.6e-10), "+8 × 10⁻⁸%");
        // Rounded to one digit both are 1e-4 %: one notation in a column.
        assert_eq!(gain(9.6e-7), "+0.0001%");
        assert_eq!(gain(1.0e-6), "+0.0001%");
        // A column takes the notation of its smallest gain.
        assert_eq!(gains(&[1.0e-6, 7.0e-7]), ["+1 × 10⁻⁴%", "+7 × 10⁻⁵%"]);
        assert_eq!(
            gains(&[4.99e-4, 1.0e-6, 0.0]),
            ["+0.05%", "+0.0001%", "+0%"]
        );
        // 4.99e-4 = 0.0499% → one significant figure.
        assert_eq!(gain(4.99e-4), "+0.05%");
        assert_eq!(gain(1.0e-4), "+0.01%");
        // 1e-4 against 1e-24: 1e20 times.
        assert_eq!(likelier(1e-4, 1e-24), "vastly more likely (10²⁰×)");
        assert_eq!(likelier(5e-4, 1e-6), "500 times as likely");
        assert_eq!(probability(1e-4), "0.01%");
        assert_eq!(probability(1e-24), "1 × 10⁻²⁴");
        assert_eq!(percent(0.8333, 2), "83%");
    }
}
