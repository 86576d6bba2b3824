//! How figures are written in finding messages, so every analyzer prints
//! the same number the same way and a reviewer can redo the arithmetic.

/// A number with at most three decimals and no trailing zeros: `27`, `1.1`,
/// `0.333`.
pub(crate) fn number(value: f64) -> String {
    if !value.is_finite() {
        return "∞".to_owned();
    }
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// A ratio as a percentage with at most one decimal: `5%`, `33.1%`.
pub(crate) fn percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "∞".to_owned();
    }
    let text = format!("{:.1}", ratio * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => format!(
            "{} and {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => format!(
            "{} or {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

/// `once`, `twice`, `3 times`.
pub(crate) fn times(count: u32) -> String {
    match count {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(27.0), "27");
        assert_eq!(number(1.1), "1.1");
        assert_eq!(number(1.0 / 3.0), "0.333");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(percent(0.05), "5%");
        assert_eq!(percent(3000.0 / 9050.0), "33.1%");
        assert_eq!(and_list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(or_list(&["a", "b"]), "a or b");
        assert_eq!(times(1), "once");
        assert_eq!(times(3), "3 times");
    }
}
