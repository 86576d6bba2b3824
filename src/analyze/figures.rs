//! How numbers are written in finding messages: loads as given, ratios as
//! whole percents unless that would hide the difference from a threshold.

/// A load or capacity as the model gives it: `1660`, `12.5`.
pub fn amount(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let text = format!("{x:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A ratio as a whole percent, halves rounded up as by hand: `0.8333` →
/// `83%`, `0.625` → `63%`.
pub fn percent(ratio: f64) -> String {
    format!("{:.0}%", (ratio * 100.0).round())
}

/// A ratio as a percent with as many decimals (up to 2) as it takes to tell
/// it apart from `limit`: `0.8004` against `0.8` is `80.04%`, never `80%`.
/// Halves are rounded up, as by hand.
pub fn percent_against(ratio: f64, limit: f64) -> String {
    for (decimals, scale) in [(0, 1.0), (1, 10.0), (2, 100.0)] {
        let round = |x: f64| format!("{:.*}", decimals, (x * 100.0 * scale).round() / scale);
        let (a, b) = (round(ratio), round(limit));
        if a != b {
            return format!("{a}%");
        }
    }
    percent(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_the_model() {
        assert_eq!(amount(1660.0), "1660");
        assert_eq!(amount(12.5), "12.5");
        assert_eq!(amount(0.333_333), "0.33");
        assert_eq!(percent(100.0 / 120.0), "83%");
        assert_eq!(percent(0.625), "63%");
        assert_eq!(percent_against(1.125, 1.0), "113%");
        assert_eq!(percent_against(0.8004, 0.8), "80.04%");
        assert_eq!(percent_against(1.25, 1.0), "125%");
        assert_eq!(percent_against(0.8, 0.8), "80%");
    }
}
