//! JSON with the span of every value, so an import error can underline the
//! value it is about and name its path (`data[3].callCount`).
//!
//! The text is first checked by `serde_json` (its syntax errors carry a line
//! and column, and its nesting limit of 128 bounds the walk below); the walk
//! then only records where each value is.

use std::collections::HashSet;

use super::super::model::span::Span;

/// A JSON value with where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    /// What the value is.
    pub value: JsonValue,
    /// Its text.
    pub span: Span,
}

/// The shape of a JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (as `f64`; counts beyond 2^53 lose precision, which a rate
    /// does not mind).
    Number(f64),
    /// A string, escapes resolved.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in order with the span of each key.
    Object(Vec<(String, Span, Json)>),
}

impl Json {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match &self.value {
            JsonValue::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|m| &m.2),
            _ => None,
        }
    }

    /// What kind of value it is, as messages name it.
    pub fn kind(&self) -> &'static str {
        match self.value {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::Str(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }
}

/// A syntax error: message and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What `serde_json` says, or the key written twice.
    pub message: String,
    /// The point it is about.
    pub span: Span,
    /// Whether it is a key written twice in one object (`message` is the
    /// key), which `serde_json` accepts.
    pub duplicate: bool,
}

/// Parses JSON text.
///
/// # Errors
/// The first syntax error, located.
pub fn parse(text: &str) -> Result<Json, SyntaxError> {
    // A byte-order mark is not JSON, but editors on Windows write one: it is
    // skipped, and spans still count it.
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        let at = at_line_column(body, err.line(), err.column());
        let span = Span::new(at.offset + bom, 0).widen_to_token(text);
        let message = err.to_string();
        // serde_json appends " at line L column C"; the span says it.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_owned();
        return Err(SyntaxError {
            message,
            span,
            duplicate: false,
        });
    }
    let mut walk = Walk {
        text,
        at: bom,
        twice: None,
    };
    let root = walk.value();
    match walk.twice {
        // serde_json keeps the last of two equal keys, `get` would take the
        // first: neither is what the file means, so it is refused.
        Some((key, span)) => Err(SyntaxError {
            message: key,
            span,
            duplicate: true,
        }),
        None => Ok(root),
    }
}

/// The point at `serde_json`'s 1-based line and column: JSON ends lines at
/// `\n` only (a `\r` alone is blank space), unlike YAML, whose line
/// breaks [`Span::at_line_column`] counts.
fn at_line_column(text: &str, line: usize, column: usize) -> Span {
    let start = if line <= 1 {
        Some(0)
    } else {
        text.match_indices('\n').nth(line - 2).map(|(at, _)| at + 1)
    };
    let Some(start) = start else {
        return Span::new(text.len(), 0);
    };
    let rest = &text[start..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let within = rest[..end]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(end, |(at, _)| at);
    Span::new(start + within, 0)
}

/// A walk over text already known to be valid JSON.
struct Walk<'a> {
    text: &'a str,
    at: usize,
    /// The first key written twice in one object, and where.
    twice: Option<(String, Span)>,
}

impl Walk<'_> {
    fn blank(&mut self) {
        let rest = &self.text.as_bytes()[self.at..];
        let n = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        self.at += n;
    }

    fn peek(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(0)
    }

    fn value(&mut self) -> Json {
        self.blank();
        let start = self.at;
        let value = match self.peek() {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                let mut keys: HashSet<String> = HashSet::new();
                loop {
                    self.blank();
                    match self.peek() {
                        b'}' => {
                            self.at += 1;
                            break;
                        }
                        b',' => self.at += 1,
                        _ => {
                            let key_start = self.at;
                            let key = self.string();
                            let key_span = Span::new(key_start, self.at - key_start);
                            if self.twice.is_none() && !keys.insert(key.clone()) {
                                self.twice = Some((key.clone(), key_span));
                            }
                            self.blank();
                            self.at += 1; // ':'
                            let value = self.value();
                            members.push((key, key_span, value));
                        }
                    }
                }
                JsonValue::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.blank();
                    match self.peek() {
                        b']' => {
                            self.at += 1;
                            break;
                        }
                        b',' => self.at += 1,
                        _ => items.push(self.value()),
                    }
                }
                JsonValue::Array(items)
            }
            b'"' => JsonValue::Str(self.string()),
            b't' => {
                self.at += 4;
                JsonValue::Bool(true)
            }
            b'f' => {
                self.at += 5;
                JsonValue::Bool(false)
            }
            b'n' => {
                self.at += 4;
                JsonValue::Null
            }
            _ => {
                let rest = &self.text.as_bytes()[self.at..];
                let n = rest
                    .iter()
                    .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count()
                    .max(1);
                let number = self.text[self.at..self.at + n].parse().unwrap_or(f64::NAN);
                self.at += n;
                JsonValue::Number(number)
            }
        };
        Json {
            value,
            span: Span::new(start, self.at - start),
        }
    }

    /// A string token, at its opening quote.
    fn string(&mut self) -> String {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut at = start + 1;
        while at < bytes.len() && bytes[at] != b'"' {
            at += if bytes[at] == b'\\' { 2 } else { 1 };
        }
        self.at = (at + 1).min(bytes.len());
        serde_json::from_str(&self.text[start..self.at]).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_after_a_carriage_return_alone_is_on_serde_jsons_line() {
        // `\r` alone is blank space in JSON: serde_json puts the stray `x`
        // on line 2 (after the one `\n`), column 5 ("  \r x": the fifth
        // character, counting the `\r`): line 2 starts at byte 6 (after
        // `{"a":` and the `\n`), so byte 6 + 4 = 10.
        let text = "{\"a\":\n  \r x}";
        let err = parse(text).unwrap_err();
        assert_eq!(err.span.offset, text.find('x').unwrap());
        assert_eq!(err.span.offset, 10);
    }

    #[test]
    fn every_value_knows_its_span() {
        let text = r#" {"a": [1, "x\"y", {"b": null}], "c": -2.5e1}"#;
        let json = parse(text).expect("valid");
        let a = json.get("a").expect("a");
        let JsonValue::Array(items) = &a.value else {
            panic!("array")
        };
        assert_eq!(
            &text[items[1].span.offset..items[1].span.end()],
            r#""x\"y""#
        );
        assert_eq!(items[1].value, JsonValue::Str("x\"y".into()));
        assert_eq!(items[2].get("b").map(|b| &b.value), Some(&JsonValue::Null));
        assert_eq!(
            json.get("c").map(|c| &c.value),
            Some(&JsonValue::Number(-25.0))
        );
    }

    #[test]
    fn syntax_errors_are_located() {
        let err = parse("{\n  \"a\": 1,\n  \"b\" 2\n}").expect_err("invalid");
        // Line 3 starts at byte 12 (`{\n` is 2 bytes, `  "a": 1,\n` 10);
        // its column 7 is the `2` after the missing colon: offset 12 + 6.
        assert_eq!(err.span.offset, 18);
        assert!(err.message.contains("expected `:`"), "{}", err.message);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }
}
