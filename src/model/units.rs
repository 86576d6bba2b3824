//! The scalar kinds of the format (probabilities, durations, dates, names,
//! counts, rates, choices): how each is written, read and described in the
//! JSON Schema.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::decode::{Cx, Decode};
use super::error::Problem;
use super::load::{Node, Value};

/// The pattern every name matches.
pub const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9._-]*$";

macro_rules! schema {
    ($ty:ty, $name:literal, $schema:tt) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

/// A name of a component, domain or shared-fate group.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(pub String);

/// Whether `text` is a valid name.
#[must_use]
pub fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl Decode for Name {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let text = cx
            .scalar_text(node)
            .or_else(|| cx.wrong(node, key, "a name"))?;
        if is_name(&text) {
            Some(Name(text))
        } else {
            cx.report(Problem::bad_name(cx.point(node), &text));
            None
        }
    }
}
schema!(Name, "Name", {
    "type": "string",
    "pattern": NAME_PATTERN,
    "description": "A name: a letter or digit, then letters, digits, `.`, `_` or `-`."
});

/// The chance of being up, in [0, 1].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Probability(pub f64);

impl Decode for Probability {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let span = cx.point(node);
        let text = cx.scalar_text(node).unwrap_or_default();
        let (number, percent) = match &node.value {
            Value::Int(_) | Value::Float(_) => (text.parse::<f64>().ok(), false),
            // `99.9%` is read as `99.9e-2`, which rounds once (to 0.999)
            // instead of twice (99.9 / 100 = 0.9990000000000001).
            Value::Str(s) => match s.trim().strip_suffix('%') {
                Some(n) => (
                    n.trim()
                        .parse::<f64>()
                        .ok()
                        .and(format!("{}e-2", n.trim()).parse::<f64>().ok()),
                    true,
                ),
                None => (s.trim().parse::<f64>().ok(), false),
            },
            _ => return cx.wrong(node, key, "a probability such as `99.9%` or `0.999`"),
        };
        let Some(number) = number.filter(|n| n.is_finite()) else {
            cx.report(Problem::bad_probability(span, &text));
            return None;
        };
        let value = number;
        if !percent && number > 1.0 && number <= 100.0 {
            cx.report(Problem::bare_percent(span, &text));
            return None;
        }
        if !(0.0..=1.0).contains(&value) {
            cx.report(Problem::probability_range(span, &text));
            return None;
        }
        Some(Probability(value))
    }
}
schema!(Probability, "Probability", {
    "description": "The chance of being up: a number in [0, 1] (`0.999`) or a percentage (`99.9%`).",
    "anyOf": [
        {"type": "number", "minimum": 0, "maximum": 1},
        {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*%$"}
    ]
});

/// A duration, kept in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Duration {
    /// Seconds, for reports.
    #[must_use]
    #[allow(
        clippy::cast_precision_loss,
        reason = "durations stay far below 2^53 ms"
    )]
    pub fn seconds(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 5] = [
            ("d", 86_400_000),
            ("h", 3_600_000),
            ("m", 60_000),
            ("s", 1000),
            ("ms", 1),
        ];
        if self.0 == 0 {
            return f.write_str("0s");
        }
        let mut rest = self.0;
        for (unit, size) in UNITS {
            if rest >= size {
                write!(f, "{}{unit}", rest / size)?;
                rest %= size;
            }
        }
        Ok(())
    }
}

/// Parses `1h30m`, `300ms`, `1.5h`; units largest first, each once.
///
/// # Errors
/// A short reason when the text is not a duration.
pub fn parse_duration(text: &str) -> Result<Duration, &'static str> {
    const UNITS: [(&str, f64); 5] = [
        ("ms", 1.0),
        ("d", 86_400_000.0),
        ("h", 3_600_000.0),
        ("m", 60_000.0),
        ("s", 1000.0),
    ];
    let text = text.trim();
    if text.is_empty() {
        return Err("it is empty");
    }
    let mut rest = text;
    let mut total = 0.0_f64;
    let mut last_size = f64::INFINITY;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err("each part starts with a number");
        }
        let number: f64 = rest[..digits]
            .parse()
            .map_err(|_| "a number is malformed")?;
        rest = &rest[digits..];
        let Some(&(unit, size)) = UNITS.iter().find(|(unit, _)| rest.starts_with(unit)) else {
            return Err(if rest.is_empty() {
                "the last number has no unit"
            } else {
                "the units are ms, s, m, h and d"
            });
        };
        if size >= last_size {
            return Err("units go largest first, each once (`1h30m`)");
        }
        last_size = size;
        rest = &rest[unit.len()..];
        total += number * size;
    }
    if !total.is_finite() || total > 1e15 {
        return Err("it is too long");
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "checked finite, non-negative and below 1e15"
    )]
    Ok(Duration(total.round() as u64))
}

impl Decode for Duration {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let span = cx.point(node);
        match &node.value {
            Value::Int(0) => Some(Duration(0)),
            Value::Int(_) | Value::Float(_) => {
                let text = cx.scalar_text(node).unwrap_or_default();
                cx.report(Problem::duration_unit(span, &text));
                None
            }
            Value::Str(text) => match parse_duration(text) {
                Ok(duration) => Some(duration),
                Err(why) => {
                    cx.report(Problem::bad_duration(span, text, why));
                    None
                }
            },
            _ => cx.wrong(node, key, "a duration such as `30s` or `1h30m`"),
        }
    }
}
schema!(Duration, "Duration", {
    "description": "A duration with units ms, s, m, h, d, largest first: `300ms`, `30s`, `1h30m`, `7d`.",
    "anyOf": [
        {"type": "string", "pattern": "^([0-9]+(\\.[0-9]+)?d)?([0-9]+(\\.[0-9]+)?h)?([0-9]+(\\.[0-9]+)?m)?([0-9]+(\\.[0-9]+)?s)?([0-9]+(\\.[0-9]+)?ms)?$"},
        {"const": 0}
    ]
});

/// A calendar date.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// Year.
    pub year: i32,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month.
    pub day: u32,
}

impl Date {
    /// Parses `YYYY-MM-DD`, checking the day exists.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return None;
        }
        let digits = |range: std::ops::Range<usize>| -> Option<u32> {
            let part = &text[range];
            part.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        let year = i32::try_from(digits(0..4)?).ok()?;
        let (month, day) = (digits(5..7)?, digits(8..10)?);
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        let max = *days.get(usize::try_from(month).ok()?.checked_sub(1)?)?;
        (1..=max)
            .contains(&day)
            .then_some(Date { year, month, day })
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    #[must_use]
    pub fn days(self) -> i64 {
        let (y, m) = if self.month <= 2 {
            (i64::from(self.year) - 1, i64::from(self.month) + 9)
        } else {
            (i64::from(self.year), i64::from(self.month) - 3)
        };
        let era = y.div_euclid(400);
        let year_of_era = y - era * 400;
        let day_of_year = (153 * m + 2) / 5 + i64::from(self.day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` after 1970-01-01.
    #[must_use]
    pub fn from_days(days: i64) -> Self {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let mp = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        Date {
            year: i32::try_from(year).unwrap_or(i32::MAX),
            month: u32::try_from(month).unwrap_or(1),
            day: u32::try_from(day).unwrap_or(1),
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Decode for Date {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let text = cx
            .scalar_text(node)
            .or_else(|| cx.wrong(node, key, "a date"))?;
        let date = Date::parse(text.trim());
        if date.is_none() {
            cx.report(Problem::bad_date(cx.point(node), &text));
        }
        date
    }
}
schema!(Date, "Date", {
    "type": "string",
    "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "description": "An ISO 8601 calendar date, `YYYY-MM-DD`."
});

/// A whole number of things (instances, retries, calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Count(pub u32);

impl Decode for Count {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let span = cx.point(node);
        match &node.value {
            Value::Int(n) if *n >= 0 => {
                if let Ok(n) = u32::try_from(*n) {
                    Some(Count(n))
                } else {
                    cx.report(Problem::huge_count(span, key));
                    None
                }
            }
            Value::Int(_) | Value::Float(_) | Value::Str(_) | Value::Bool(_) => {
                let text = cx.scalar_text(node).unwrap_or_default();
                cx.report(Problem::bad_count(span, key, &text));
                None
            }
            _ => cx.wrong(node, key, "a whole number"),
        }
    }
}
schema!(Count, "Count", {
    "type": "integer",
    "minimum": 0,
    "maximum": 4_294_967_295_u64,
    "description": "A whole number of at least 0."
});

/// A non-negative rate or amount in the model's own unit of load.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

/// Reads a finite number, integer or not; `None` for anything else.
fn number(node: &Node, cx: &Cx) -> Option<f64> {
    match &node.value {
        Value::Int(_) | Value::Float(_) => cx
            .scalar_text(node)?
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .or(
                // hexadecimal and octal integers: the resolved value
                match node.value {
                    #[allow(
                        clippy::cast_precision_loss,
                        reason = "only magnitude matters for a rate"
                    )]
                    Value::Int(n) => Some(n as f64),
                    _ => None,
                },
            ),
        _ => None,
    }
    .filter(|n| n.is_finite())
}

impl Decode for Rate {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match number(node, cx) {
            Some(n) if n >= 0.0 => Some(Rate(n)),
            Some(_) => {
                let text = cx.scalar_text(node).unwrap_or_default();
                cx.report(Problem::bad_rate(cx.point(node), key, &text));
                None
            }
            None => match cx.scalar_text(node) {
                Some(text) => {
                    cx.report(Problem::bad_rate(cx.point(node), key, &text));
                    None
                }
                None => cx.wrong(node, key, "a number"),
            },
        }
    }
}
schema!(Rate, "Rate", {
    "type": "number",
    "minimum": 0,
    "description": "A non-negative number in the model's own unit (requests/s, messages/s …)."
});

/// A positive ratio such as `max_utilization` (0 < r <= 1) or
/// `fallback_headroom` (r >= 1): the range is checked by the field.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Ratio(pub f64);

impl Decode for Ratio {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        let (range, ok): (&str, fn(f64) -> bool) = match key {
            "max_utilization" => ("above 0 and at most 1 (0.8 = 80%)", |r| r > 0.0 && r <= 1.0),
            "fallback_headroom" => ("at least 1 (1.5 = 50% spare)", |r| r >= 1.0),
            _ => ("at least 1", |r| r >= 1.0),
        };
        match number(node, cx) {
            Some(n) if ok(n) => Some(Ratio(n)),
            _ => match cx.scalar_text(node) {
                Some(text) => {
                    cx.report(Problem::bad_ratio(cx.point(node), key, &text, range));
                    None
                }
                None => cx.wrong(node, key, "a number"),
            },
        }
    }
}
schema!(Ratio, "Ratio", {
    "type": "number",
    "exclusiveMinimum": 0,
    "description": "A plain positive number (a ratio, not a percentage)."
});

macro_rules! choice {
    ($(#[$meta:meta])* $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)? } default $default:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// The word as written in the model.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text, )+ }
            }
            const CHOICES: &'static [&'static str] = &[$($text),+];
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }

        impl Decode for $name {
            fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
                let text = cx.scalar_text(node).or_else(|| cx.wrong(node, key, "a word"))?;
                match text.as_str() {
                    $( $text => Some($name::$variant), )+
                    _ => {
                        cx.report(Problem::bad_choice(cx.point(node), key, &text, Self::CHOICES));
                        None
                    }
                }
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({"type": "string", "enum": Self::CHOICES})
            }
        }
    };
}

choice!(
    /// Whether a component serves requests or runs the platform.
    Plane { /** Serves requests. */ Data = "data", /** Config, secrets, deploys, DNS, discovery. */ Control = "control" } default Data
);
choice!(
    /// What the callers lose when the component is down.
    Criticality {
        /** Fails the request. */ Critical = "critical",
        /** Served stale, then omitted. */ Important = "important",
        /** Omitted silently. */ Optional = "optional",
        /** Queued for later. */ Deferrable = "deferrable",
    } default Critical
);
choice!(
    /// How retries are spaced.
    Backoff { /** Immediately. */ None = "none", /** Exponentially growing waits. */ Exponential = "exponential", /** Exponential with random jitter. */ Jittered = "jittered" } default None
);
choice!(
    /// A percentile of a latency distribution.
    Percentile {
        /** The median. */ P50 = "p50",
        /** The 90th percentile. */ P90 = "p90",
        /** The 95th percentile. */ P95 = "p95",
        /** The 99th percentile. */ P99 = "p99",
        /** The 99.9th percentile. */ P999 = "p999",
    } default P99
);

impl Percentile {
    /// Every percentile, lowest first.
    pub const ALL: [Percentile; 5] = [
        Percentile::P50,
        Percentile::P90,
        Percentile::P95,
        Percentile::P99,
        Percentile::P999,
    ];

    /// The share of a distribution below it (0.95 for p95).
    #[must_use]
    pub const fn quantile(self) -> f64 {
        match self {
            Percentile::P50 => 0.5,
            Percentile::P90 => 0.9,
            Percentile::P95 => 0.95,
            Percentile::P99 => 0.99,
            Percentile::P999 => 0.999,
        }
    }

    /// The share above it: `1 − quantile`, written as a decimal (0.05 for p95).
    #[must_use]
    pub const fn above(self) -> f64 {
        match self {
            Percentile::P50 => 0.5,
            Percentile::P90 => 0.1,
            Percentile::P95 => 0.05,
            Percentile::P99 => 0.01,
            Percentile::P999 => 0.001,
        }
    }
}

choice!(
    /// What a down component does with its callers' connections (`nines recover`).
    Down { /** Holds them until the callers time out: a lost host, a partition. */ Blackhole = "blackhole", /** Refuses them at once: a stopped process on a live host. */ Refuse = "refuse" } default Blackhole
);
choice!(
    /// How a cache's contents come back after a restart (`nines recover`).
    Prewarm { /** Empty: filled by the misses its store answers. */ None = "none", /** Restored from a snapshot on its own: warm at restart. */ Snapshot = "snapshot" } default None
);
choice!(
    /// How data reaches a standby.
    Replication { /** No standby. */ None = "none", /** Asynchronous, with lag. */ Async = "async", /** Synchronous: no committed write is lost. */ Sync = "sync" } default None
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration("1h30m"), Ok(Duration(5_400_000)));
        assert_eq!(parse_duration("300ms"), Ok(Duration(300)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration(5_400_000)));
        assert_eq!(parse_duration("7d"), Ok(Duration(604_800_000)));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("5 minutes").is_err());
        assert!(parse_duration("30m1h").is_err());
        assert_eq!(Duration(5_400_000).to_string(), "1h30m");
        assert_eq!(Duration(1_500).to_string(), "1s500ms");
    }

    #[test]
    fn dates_round_trip_through_day_numbers() {
        let date = Date::parse("2026-07-14").unwrap();
        // 2026-07-14 is day 20648 since 1970-01-01 (56 years, 14 leap days: 56*365+14 = 20454, + 194 days into 2026).
        assert_eq!(date.days(), 20_648);
        assert_eq!(Date::from_days(20_648), date);
        assert!(Date::parse("2026-02-29").is_none());
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2026-13-45").is_none());
    }

    #[test]
    fn names_follow_the_pattern() {
        assert!(is_name("postgres-primary"));
        assert!(is_name("az-a.1_b"));
        assert!(!is_name("-api"));
        assert!(!is_name("api!"));
        assert!(!is_name(""));
    }
}
