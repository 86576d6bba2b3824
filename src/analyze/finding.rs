//! What an analysis reports: a [`Finding`] with a stable id, a severity, the
//! numbers that matter, a fix, and where in the model it is about.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::model::{Rule, Span};

/// How bad a finding is. Ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing.
    Note,
    /// Should be fixed.
    Warning,
    /// Breaks a promise or takes an entrypoint down.
    Error,
}

impl Severity {
    /// Every severity, most severe first: the order findings are listed in.
    pub const WORST_FIRST: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

    /// The heading of a group of findings: `Errors`, `Warnings`, `Notes`.
    #[must_use]
    pub const fn heading(self) -> &'static str {
        match self {
            Severity::Note => "Notes",
            Severity::Warning => "Warnings",
            Severity::Error => "Errors",
        }
    }

    /// The word used in every output.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// `findings` grouped by severity, most severe first, each group in the
/// order given; severities without findings are left out.
pub fn by_severity(findings: &[Finding]) -> Vec<(Severity, Vec<&Finding>)> {
    Severity::WORST_FIRST
        .into_iter()
        .map(|severity| {
            let group: Vec<&Finding> = findings.iter().filter(|f| f.severity == severity).collect();
            (severity, group)
        })
        .filter(|(_, group)| !group.is_empty())
        .collect()
}

/// Whether a finding counts against the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not known before: it counts.
    New,
    /// Present in the `--baseline` file.
    Baseline,
    /// Matched by an `accepted` entry that has not expired.
    Accepted,
}

/// One risk found in the model. It keeps the facts its text is written
/// from (a [`Wording`]) and its subject, shared with the analysis that found
/// it: the id, message and help are written when a renderer asks for them,
/// not when the finding is made (a large model has tens of thousands).
#[derive(Debug, Clone)]
pub struct Finding {
    /// The rule that raised it.
    pub rule: &'static str,
    /// What it is about: the id is `<rule>/<subject>`.
    pub subject: Subject,
    /// How bad it is.
    pub severity: Severity,
    /// Whether it counts.
    pub status: Status,
    /// The facts its message and help are written from.
    pub wording: Arc<dyn Wording>,
    /// Line and column in the model.
    pub location: Location,
    /// The accepted entry's reason, when accepted.
    pub justification: Option<String>,
    /// Where in the model text (resolved into `location`).
    pub span: Span,
}

/// Two findings are equal when everything shown of them is: their written
/// message and fix are compared (for tests; the report never compares).
impl PartialEq for Finding {
    fn eq(&self, other: &Self) -> bool {
        let help = |f: &Finding| f.help().map(|help| help.to_string());
        self.rule == other.rule
            && self.subject == other.subject
            && self.severity == other.severity
            && self.status == other.status
            && self.message().to_string() == other.message().to_string()
            && help(self) == help(other)
            && self.location == other.location
            && self.justification == other.justification
            && self.span == other.span
    }
}

/// What a finding is about: a name (a component, a domain, an accepted id),
/// an edge (`caller>target`), or for `headroom` a name and the loss after
/// it (`api/az-a`). The names are shared, not copied, and joined only when
/// written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Subject {
    name: Arc<str>,
    /// The separator (`/` or `>`) and the second name.
    then: Option<(&'static str, Arc<str>)>,
}

impl Subject {
    /// `name/then`, written when shown.
    #[must_use]
    pub fn pair(name: Arc<str>, then: Arc<str>) -> Self {
        Self {
            name,
            then: Some(("/", then)),
        }
    }

    /// The edge `caller>target`, written when shown.
    #[must_use]
    pub fn edge(caller: &str, target: &str) -> Self {
        Self {
            name: Arc::from(caller),
            then: Some((">", Arc::from(target))),
        }
    }

    /// The first name (the component, or an edge's caller).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The second name (the loss after the component, or an edge's
    /// target), if any.
    #[must_use]
    pub fn then(&self) -> Option<&str> {
        self.then.as_ref().map(|(_, then)| &**then)
    }

    /// The order of the subjects as written, comparing the names first (one
    /// comparison decides unless a name is a prefix of the other).
    fn cmp_written(&self, other: &Subject) -> Ordering {
        let (a, b) = (self.name.as_bytes(), other.name.as_bytes());
        let n = a.len().min(b.len());
        match a[..n].cmp(&b[..n]) {
            Ordering::Equal if a.len() == b.len() => match (&self.then, &other.then) {
                (Some((x, then)), Some((y, other_then))) if x == y => then.cmp(other_then),
                _ => cmp_joined(&self.parts()[1..], &other.parts()[1..]),
            },
            Ordering::Equal => cmp_joined(&self.parts(), &other.parts()),
            unequal => unequal,
        }
    }

    /// The parts of the subject as written (`name`, or `name`, separator,
    /// second name).
    fn parts(&self) -> [&str; 3] {
        match &self.then {
            Some((separator, then)) => [&self.name, separator, then],
            None => [&self.name, "", ""],
        }
    }
}

impl From<Arc<str>> for Subject {
    fn from(name: Arc<str>) -> Self {
        Self { name, then: None }
    }
}

impl From<&str> for Subject {
    fn from(name: &str) -> Self {
        Self::from(Arc::<str>::from(name))
    }
}

impl From<String> for Subject {
    fn from(name: String) -> Self {
        Self::from(Arc::<str>::from(name))
    }
}

impl From<&String> for Subject {
    fn from(name: &String) -> Self {
        Self::from(name.as_str())
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.parts().iter().try_for_each(|part| f.write_str(part))
    }
}

/// The text of a finding, kept as the facts it is written from: each rule
/// has a type holding the names (shared `Arc<str>`) and numbers its message
/// needs, and writes the message and the fix on demand.
pub trait Wording: fmt::Debug + Send + Sync {
    /// One line with the numbers that matter.
    ///
    /// # Errors
    /// When the formatter fails.
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// What to change (only called when [`Wording::has_help`]).
    ///
    /// # Errors
    /// When the formatter fails.
    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Whether there is a fix to show.
    fn has_help(&self) -> bool {
        true
    }
}

/// A wording given as finished text: for findings built from text that is
/// already at hand (tests, samples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    message: String,
    help: Option<String>,
}

impl Text {
    /// The message `message`, without a fix.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            help: None,
        }
    }

    /// Adds the fix.
    #[must_use]
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl Wording for Text {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&self.message)
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(self.help.as_deref().unwrap_or(""))
    }

    fn has_help(&self) -> bool {
        self.help.is_some()
    }
}

/// A 1-based line and column in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl Finding {
    /// A new finding about `subject` at `span`, worded by `wording`; the
    /// location is filled in when the report is assembled.
    #[must_use]
    pub fn new(
        rule: Rule,
        subject: impl Into<Subject>,
        severity: Severity,
        span: Span,
        wording: impl Wording + 'static,
    ) -> Self {
        Self {
            rule: rule.name(),
            subject: subject.into(),
            severity,
            status: Status::New,
            wording: Arc::new(wording),
            location: Location::default(),
            justification: None,
            span,
        }
    }

    /// Its stable id, `<rule>/<subject>`, written when shown; never
    /// contains load-dependent numbers.
    #[must_use]
    pub fn id(&self) -> Id<'_> {
        Id(self)
    }

    /// One line with the numbers that matter, written when shown.
    #[must_use]
    pub fn message(&self) -> Message<'_> {
        Message(&*self.wording)
    }

    /// What to change, written when shown; `None` when the rule has no fix
    /// to give.
    #[must_use]
    pub fn help(&self) -> Option<Help<'_>> {
        self.wording.has_help().then_some(Help(&*self.wording))
    }

    /// The id in pieces whose concatenation is the id.
    fn id_parts(&self) -> [&str; 5] {
        let [name, slash, then] = self.subject.parts();
        [self.rule, "/", name, slash, then]
    }

    /// The order of the ids as strings (byte order of `<rule>/<subject>`),
    /// without writing them.
    #[must_use]
    pub fn cmp_id(&self, other: &Finding) -> Ordering {
        // Rule names are the registry's statics: one rule, one pointer.
        if !(std::ptr::eq(self.rule, other.rule) || self.rule == other.rule) {
            return cmp_joined(&self.id_parts(), &other.id_parts());
        }
        self.subject.cmp_written(&other.subject)
    }

    /// The order of its id against the id `id` (as strings), without
    /// writing it.
    #[must_use]
    pub fn cmp_with(&self, id: &str) -> Ordering {
        cmp_joined(&self.id_parts(), &[id])
    }

    /// Whether its id is `id`, without writing it.
    #[must_use]
    pub fn has_id(&self, id: &str) -> bool {
        self.cmp_with(id).is_eq()
    }
}

/// The byte order of the concatenations of `a` and `b`, comparing slices
/// rather than bytes one by one.
fn cmp_joined(a: &[&str], b: &[&str]) -> Ordering {
    let (mut a, mut b) = (
        a.iter().map(|s| s.as_bytes()),
        b.iter().map(|s| s.as_bytes()),
    );
    let (mut left, mut right): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while left.is_empty() {
            match a.next() {
                Some(next) => left = next,
                None => break,
            }
        }
        while right.is_empty() {
            match b.next() {
                Some(next) => right = next,
                None => break,
            }
        }
        if left.is_empty() || right.is_empty() {
            return left.len().cmp(&right.len());
        }
        let n = left.len().min(right.len());
        match left[..n].cmp(&right[..n]) {
            Ordering::Equal => (left, right) = (&left[n..], &right[n..]),
            unequal => return unequal,
        }
    }
}

/// A finding's id, written as `<rule>/<subject>`.
#[derive(Clone, Copy)]
pub struct Id<'a>(&'a Finding);

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.0.rule, self.0.subject)
    }
}

/// A finding's message, written from its wording.
#[derive(Clone, Copy)]
pub struct Message<'a>(&'a dyn Wording);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.message(f)
    }
}

/// A finding's fix, written from its wording.
#[derive(Clone, Copy)]
pub struct Help<'a>(pub(crate) &'a dyn Wording);

impl fmt::Display for Help<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.help(f)
    }
}

/// Serializes `Display` text as a string: written into a buffer kept per
/// thread, then escaped once. (Written piece by piece through
/// `collect_str`, each piece of a message is escaped and copied on its own:
/// 0.3% more instructions for the JSON of the 100k model.)
macro_rules! serialize_as_text {
    ($($ty:ident),*) => {$(
        impl Serialize for $ty<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serialize_written(self, serializer)
            }
        }
    )*};
}

thread_local! {
    /// The text being serialized, reused from one finding to the next.
    static WRITTEN: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `value` written into this thread's buffer and serialized as a string;
/// straight through `collect_str` should the buffer be in use.
fn serialize_written<S: Serializer>(
    value: &dyn fmt::Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    WRITTEN.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut text) => {
            text.clear();
            fmt::write(&mut *text, format_args!("{value}")).map_err(serde::ser::Error::custom)?;
            serializer.serialize_str(&text)
        }
        Err(_) => serializer.collect_str(value),
    })
}

serialize_as_text!(Id, Message, Help);

/// The wire format of a finding (docs/output.md): `id`, `rule`,
/// `severity`, `status`, `message`, `help` (when there is a fix),
/// `location` and `justification` (when accepted), in that order.
impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let help = self.help();
        let fields = 6 + usize::from(help.is_some()) + usize::from(self.justification.is_some());
        let mut out = serializer.serialize_struct("Finding", fields)?;
        out.serialize_field("id", &self.id())?;
        out.serialize_field("rule", self.rule)?;
        out.serialize_field("severity", &self.severity)?;
        out.serialize_field("status", &self.status)?;
        out.serialize_field("message", &self.message())?;
        match help {
            Some(help) => out.serialize_field("help", &help)?,
            None => out.skip_field("help")?,
        }
        out.serialize_field("location", &self.location)?;
        match &self.justification {
            Some(reason) => out.serialize_field("justification", reason)?,
            None => out.skip_field("justification")?,
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static str, subject: Subject) -> Finding {
        let mut f = Finding::new(
            Rule::Spof,
            subject,
            Severity::Error,
            Span::default(),
            Text::new("m"),
        );
        f.rule = rule;
        f
    }

    #[test]
    fn ids_sort_as_their_strings_do() {
        // `-` (0x2d) < `.` (0x2e) < `/` (0x2f) < `>` (0x3e) < `b` (0x62):
        // a subject that is a prefix of another, a separator inside a name
        // (an accepted id as a subject), an edge, a pair, and rules one of
        // which is a prefix of the other.
        let mut findings = Vec::new();
        for rule in ["r", "r-x", "ra", "r/"] {
            for name in ["a", "a-b", "a/b", "a.b", "ab", "a>b", ""] {
                findings.push(finding(rule, Subject::from(name)));
            }
            findings.push(finding(rule, Subject::pair("a".into(), "b".into())));
            findings.push(finding(rule, Subject::pair("a".into(), "".into())));
            findings.push(finding(rule, Subject::edge("a", "b")));
            findings.push(finding(rule, Subject::edge("a-", "b")));
        }
        let mut by_string: Vec<String> = findings.iter().map(|f| f.id().to_string()).collect();
        by_string.sort();
        findings.reverse();
        findings.sort_by(Finding::cmp_id);
        let sorted: Vec<String> = findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(sorted, by_string);
        // By hand: rule `r-x` first (`-` < `/` in `r-x/` against `r/…`),
        // its empty subject, then `a`, then `a->b` before `a-b` (`>` < `b`).
        assert_eq!(by_string[..4], ["r-x/", "r-x/a", "r-x/a->b", "r-x/a-b"]);
        // The pair a/b and the name "a/b" are the same id.
        let pair = finding("r", Subject::pair("a".into(), "b".into()));
        assert!(pair.cmp_id(&finding("r", Subject::from("a/b"))).is_eq());
        for f in &findings {
            for g in &findings {
                let id = g.id().to_string();
                assert_eq!(
                    f.cmp_with(&id),
                    f.id().to_string().cmp(&id),
                    "{} vs {id}",
                    f.id()
                );
                assert_eq!(f.has_id(&id), f.id().to_string() == id);
            }
        }
    }

    #[test]
    fn a_finding_serializes_its_written_text() {
        let mut f = Finding::new(
            Rule::Headroom,
            Subject::pair("api".into(), "az-a".into()),
            Severity::Warning,
            Span::default(),
            Text::new("line \"one\"\nline two").help("fix\tit"),
        );
        f.location = Location { line: 3, column: 5 };
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(
            json,
            r#"{"id":"headroom/api/az-a","rule":"headroom","severity":"warning","status":"new","message":"line \"one\"\nline two","help":"fix\tit","location":{"line":3,"column":5}}"#
        );
        f.wording = Arc::new(Text::new("m"));
        f.justification = Some("known".to_owned());
        let json = serde_json::to_string(&f).unwrap();
        assert!(
            json.ends_with(
                r#""message":"m","location":{"line":3,"column":5},"justification":"known"}"#
            ),
            "{json}"
        );
    }
}
