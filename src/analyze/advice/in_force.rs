//! The settings a help proposes, written in backticks as in the model
//! (`` `load_shedding: true` ``, `` `retry_budget: 10%` ``, `` `timeout:` ``),
//! checked against what the component or edge the finding is about already
//! has. [`in_force`] lists the proposals already in force (the test over
//! every example and fixture asks for none); [`guard`] wraps the wording
//! of a finding whose subject writes one of the settings help proposes, so
//! that a clause of its help (the text between `; `) proposing one already
//! in force is left out when the help is written.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use crate::analyze::{Finding, Subject, Wording};
use crate::model::units::parse_duration;
use crate::model::{Component, ComponentId, Edge, Model};

/// What a help may propose of a component, of its `recovery`, and of an
/// edge: the keys looked for in backticks.
const COMPONENT_KEYS: &[&str] = &[
    "load_shedding",
    "min_healthy",
    "placement",
    "warmup",
    "failover_to",
];
const RECOVERY_KEYS: &[&str] = &[
    "replication",
    "replication_lag",
    "log_shipping",
    "backup_interval",
    "detect",
    "decide",
    "failover",
    "restore",
];
const EDGE_KEYS: &[&str] = &[
    "retries",
    "backoff",
    "retry_budget",
    "timeout",
    "degradable",
    "switchover",
    "hit_rate",
    "cached_by",
];

/// Component, domain and group names to their index, built once per run
/// (names are one namespace: a domain never has a component's name).
struct Names<'a> {
    components: HashMap<&'a str, usize>,
    domains: HashMap<&'a str, usize>,
    groups: HashMap<&'a str, usize>,
}

fn names(model: &Model) -> Names<'_> {
    fn index<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
        names.enumerate().map(|(i, n)| (n, i)).collect()
    }
    Names {
        components: index(model.components.iter().map(|c| c.name.as_str())),
        domains: index(model.domains.iter().map(|d| d.name.as_str())),
        groups: index(model.groups.iter().map(|g| g.name.as_str())),
    }
}

/// The components with an instance in each domain (in it or in a domain
/// inside it), and those of each group, in model order: what a finding
/// about a domain or group (`spof/az-a`) proposes changes to.
struct Members {
    domains: Vec<Vec<usize>>,
    groups: Vec<Vec<usize>>,
}

impl Members {
    fn of(model: &Model) -> Self {
        let mut domains = vec![Vec::new(); model.domains.len()];
        let mut groups = vec![Vec::new(); model.groups.len()];
        for (i, c) in model.components.iter().enumerate() {
            let mut inside: Vec<usize> = Vec::new();
            for &(d, _) in &c.placement {
                inside.push(d.0);
                inside.extend(model.domain(d).ancestors.iter().map(|a| a.0));
            }
            inside.sort_unstable();
            inside.dedup();
            for d in inside {
                domains[d].push(i);
            }
            for g in &c.shares {
                groups[g.0].push(i);
            }
        }
        Self { domains, groups }
    }
}

/// One setting as the model has it, in a form a proposal compares with.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Bool(bool),
    Count(u32),
    Ms(u64),
    Share(f64),
    Word(&'static str),
    Names(Vec<Arc<str>>),
}

/// The settings of the finding's subject that a help could propose, each
/// with its value (absent keys are left out; a default counts only where
/// the model writes it).
#[derive(Debug, Clone, Default, PartialEq)]
struct Settings {
    /// `(key, value)` for each edge of the subject: a proposal of an edge
    /// key is in force when every edge has it.
    edges: Vec<Vec<(&'static str, Value)>>,
    /// `(key, value)` of the component (and of its `recovery`).
    component: Vec<(&'static str, Value)>,
    /// Of a finding about a domain or a group (`spof/az-a`), each component
    /// in it by name with its settings: a clause's proposal is about the
    /// components the clause names.
    members: Vec<(Arc<str>, Keyed)>,
}

/// Settings by key, as the model has them.
type Keyed = Vec<(&'static str, Value)>;

impl Settings {
    /// Of the component, the edge or the path a finding is about, its
    /// components found by name through `index`; of a domain or a group,
    /// the components in it (`members`, built on the first such finding).
    fn of(model: &Model, index: &Names, members: &mut Option<Members>, subject: &Subject) -> Self {
        let find = |name: &str| index.components.get(name).copied();
        // A name or a pair `name/loss` (headroom, recovery-access) is about
        // `name`; an edge `a>b`, a path `a>b>c` or a cycle `a+b` (names
        // never hold `>` or `+`) about its edges. A bare name that is no
        // component's may be a domain's or a group's (`spof/az-a`).
        let id = subject.to_string();
        if !id.contains(['>', '+']) {
            if let Some(c) = find(subject.name()) {
                return Self::component(model, Some(c));
            }
            if subject.then().is_some() {
                return Self::default();
            }
            let (domain, group) = (
                index.domains.get(subject.name()).copied(),
                index.groups.get(subject.name()).copied(),
            );
            if domain.is_none() && group.is_none() {
                // An accepted id, or a name no longer in the model.
                return Self::default();
            }
            let members = members.get_or_insert_with(|| Members::of(model));
            let ids = match (domain, group) {
                (Some(d), _) => &members.domains[d],
                (None, Some(g)) => &members.groups[g],
                (None, None) => return Self::default(),
            };
            return Self {
                members: ids
                    .iter()
                    .map(|&c| {
                        let component = &model.components[c];
                        (
                            Arc::from(component.name.as_str()),
                            component_settings(model, component),
                        )
                    })
                    .filter(|(_, settings)| !settings.is_empty())
                    .collect(),
                ..Self::default()
            };
        }
        let names: Vec<&str> = id.split(['>', '+']).collect();
        let Some(ids) = names
            .iter()
            .map(|n| find(n))
            .collect::<Option<Vec<usize>>>()
        else {
            return Self::default();
        };
        let mut pairs: Vec<(usize, usize)> = ids.windows(2).map(|w| (w[0], w[1])).collect();
        if id.contains('+') && ids.len() >= 2 {
            pairs.push((ids[ids.len() - 1], ids[0]));
        }
        let edges = pairs
            .into_iter()
            .filter_map(|(caller, target)| {
                model.components[caller]
                    .depends_on
                    .iter()
                    .find(|e| e.targets.contains(&ComponentId(target)))
            })
            .map(|edge| edge_settings(model, edge))
            .collect();
        Self {
            edges,
            ..Self::default()
        }
    }

    fn component(model: &Model, id: Option<usize>) -> Self {
        match id {
            Some(c) => Self {
                component: component_settings(model, &model.components[c]),
                ..Self::default()
            },
            None => Self::default(),
        }
    }

    fn is_empty(&self) -> bool {
        self.component.is_empty() && self.edges.iter().all(Vec::is_empty) && self.members.is_empty()
    }

    /// Whether `clause` proposes `key: value` in force: of a domain's or
    /// group's finding, in force for every member the clause names (and it
    /// names one); else as [`Settings::has`].
    fn has_in(&self, clause: &str, key: &str, value: &str) -> bool {
        if self.members.is_empty() {
            return self.has(key, value);
        }
        let mut named = self
            .members
            .iter()
            .filter(|(name, _)| names_word(clause, name))
            .peekable();
        named.peek().is_some()
            && named.all(|(_, settings)| matches(settings.iter().find(|(k, _)| *k == key), value))
    }

    /// Whether `key: value` (or `key` alone, `value` empty) is in force.
    fn has(&self, key: &str, value: &str) -> bool {
        if EDGE_KEYS.contains(&key) {
            return !self.edges.is_empty()
                && self
                    .edges
                    .iter()
                    .all(|edge| matches(edge.iter().find(|(k, _)| *k == key), value));
        }
        matches(self.component.iter().find(|(k, _)| *k == key), value)
    }
}

/// Whether a setting as the model has it is the one proposed.
fn matches(current: Option<&(&'static str, Value)>, proposed: &str) -> bool {
    let Some((_, current)) = current else {
        return false;
    };
    let proposed = proposed.trim();
    if proposed.is_empty() {
        return true;
    }
    match current {
        Value::Bool(b) => proposed == if *b { "true" } else { "false" },
        Value::Count(n) => proposed.parse::<u32>().is_ok_and(|p| p == *n),
        Value::Ms(ms) => parse_duration(proposed).is_ok_and(|d| d.0 == *ms),
        Value::Share(x) => share(proposed).is_some_and(|p| (p - x).abs() < 1e-9),
        Value::Word(w) => proposed == *w,
        Value::Names(names) => {
            let mut listed: Vec<&str> = proposed
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            let mut have: Vec<&str> = names.iter().map(|n| &**n).collect();
            listed.sort_unstable();
            have.sort_unstable();
            listed == have
        }
    }
}

/// `10%` or `0.1`.
fn share(text: &str) -> Option<f64> {
    match text.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => text.parse().ok(),
    }
}

/// Whether `text` holds `name` as a whole name (not inside `api-dr` for
/// `api`).
fn names_word(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(name).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(part)
            && !text[at + name.len()..].chars().next().is_some_and(part)
    })
}

fn component_settings(model: &Model, c: &Component) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let written = |key: &str| c.fields.get(key).is_some();
    if c.load_shedding || written("load_shedding") {
        out.push(("load_shedding", Value::Bool(c.load_shedding)));
    }
    if written("min_healthy") {
        out.push(("min_healthy", Value::Count(c.min_healthy)));
    }
    if !c.placement.is_empty() {
        let names = c
            .placement
            .iter()
            .map(|&(d, _)| Arc::from(model.domain(d).name.as_str()))
            .collect();
        out.push(("placement", Value::Names(names)));
    }
    if let Some(w) = c.warmup {
        out.push(("warmup", Value::Ms(w.0)));
    }
    if let Some(t) = c.failover_to {
        let name = Arc::from(model.component(t).name.as_str());
        out.push(("failover_to", Value::Names(vec![name])));
    }
    if let Some(r) = &c.recovery {
        out.push(("replication", Value::Word(r.replication.as_str())));
        for (key, d) in [
            ("replication_lag", r.replication_lag),
            ("log_shipping", r.log_shipping),
            ("backup_interval", r.backup_interval),
            ("detect", r.detect),
            ("decide", r.decide),
            ("failover", r.failover),
            ("restore", r.restore),
        ] {
            if let Some(d) = d {
                out.push((key, Value::Ms(d.0)));
            }
        }
    }
    out
}

/// An edge's settings: a default only where the model writes it (a help
/// proposing `retries: 0` to an edge that never retries is the rule's own
/// business, not one this check can catch without the edge's every key).
fn edge_settings(model: &Model, e: &Edge) -> Vec<(&'static str, Value)> {
    let written = |key: &str| e.fields.get(key).is_some();
    let mut out = Vec::new();
    if e.retries > 0 || written("retries") {
        out.push(("retries", Value::Count(e.retries)));
    }
    if e.backoff != crate::model::Backoff::None || written("backoff") {
        out.push(("backoff", Value::Word(e.backoff.as_str())));
    }
    if e.degradable || written("degradable") {
        out.push(("degradable", Value::Bool(e.degradable)));
    }
    if let Some(b) = e.retry_budget {
        out.push(("retry_budget", Value::Share(b)));
    }
    if let Some(t) = e.timeout {
        out.push(("timeout", Value::Ms(t.0)));
    }
    if let Some(s) = e.switchover {
        out.push(("switchover", Value::Ms(s.0)));
    }
    if let Some(h) = e.hit_rate {
        out.push(("hit_rate", Value::Share(h)));
    }
    if let Some(c) = e.cached_by {
        let name = Arc::from(model.component(c).name.as_str());
        out.push(("cached_by", Value::Names(vec![name])));
    }
    out
}

/// The `key: value` settings written in backticks in `text`, as
/// `(key, value)` (`value` empty for a key alone, `` `timeout:` ``).
fn proposals(text: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    for (index, quoted) in text.split('`').enumerate() {
        if index % 2 == 0 {
            continue;
        }
        let mut rest = quoted;
        while let Some((key, value, tail)) = next_setting(rest) {
            found.push((key, value));
            rest = tail;
        }
    }
    found
}

/// The first `key: value` of `text` whose key is one a help proposes, the
/// value up to the next `, ` or `}` (a `[…]` list whole), and what follows.
fn next_setting(text: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(at) = text[from..].find(':') {
        let colon = from + at;
        // After the last character that is no key's (any character: a
        // hostile kind may put one of four bytes before a backtick).
        let key_start = text[..colon]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let key = &text[key_start..colon];
        from = colon + 1;
        let known = COMPONENT_KEYS.contains(&key)
            || RECOVERY_KEYS.contains(&key)
            || EDGE_KEYS.contains(&key);
        if !known {
            continue;
        }
        let after = text[from..].trim_start();
        let offset = text.len() - after.len();
        let end = if after.starts_with('[') {
            after.find(']').map_or(after.len(), |i| i + 1)
        } else {
            after.find([',', '}']).unwrap_or(after.len())
        };
        return Some((key, after[..end].trim(), &text[offset + end..]));
    }
    None
}

/// The settings proposed in `finding`'s help that its subject already has,
/// as written in the help: none in a finding worth its help.
#[must_use]
pub fn in_force(model: &Model, finding: &Finding) -> Vec<String> {
    let Some(help) = finding.help().map(|h| h.to_string()) else {
        return Vec::new();
    };
    let settings = Settings::of(model, &names(model), &mut None, &finding.subject);
    help.split("; ")
        .flat_map(|clause| proposals(clause).into_iter().map(move |p| (clause, p)))
        .filter(|(clause, (key, value))| settings.has_in(clause, key, value))
        .map(|(_, proposal)| proposal)
        .map(|(key, value)| {
            if value.is_empty() {
                format!("{key}:")
            } else {
                format!("{key}: {value}")
            }
        })
        .collect()
}

/// The changes `finding`'s help proposes to its subject that the team
/// cannot make because the subject is a managed service (`managed: true`,
/// `kind: saas`/`external`): a component key in backticks, or running
/// more instances. None in a finding worth its help: a managed service gets
/// what its callers can do instead.
#[must_use]
pub fn managed_changes(model: &Model, finding: &Finding) -> Vec<String> {
    let Some(c) = model
        .components
        .iter()
        .find(|c| c.name == finding.subject.name() && finding.subject.then().is_none())
    else {
        return Vec::new();
    };
    if !c.managed {
        return Vec::new();
    }
    let Some(help) = finding.help().map(|h| h.to_string()) else {
        return Vec::new();
    };
    let mut found: Vec<String> = proposals(&help)
        .into_iter()
        .filter(|(key, _)| COMPONENT_KEYS.contains(key))
        .map(|(key, value)| format!("{key}: {value}"))
        .collect();
    if help.starts_with("run ") && help.contains(" instances") {
        found.push("more instances".to_owned());
    }
    found
}

/// Wraps the wording of every finding whose subject writes a setting a
/// help may propose, so that its help leaves out the clauses that propose
/// one already in force.
pub(crate) fn guard(model: &Model, findings: &mut [Finding]) {
    if findings.is_empty() {
        return;
    }
    let index = names(model);
    let mut members = None;
    for finding in findings {
        if !finding.wording.has_help() {
            continue;
        }
        let settings = Settings::of(model, &index, &mut members, &finding.subject);
        if settings.is_empty() {
            continue;
        }
        finding.wording = Arc::new(Checked {
            inner: Arc::clone(&finding.wording),
            settings,
        });
    }
}

/// A wording whose help is checked against its subject's settings.
#[derive(Debug)]
struct Checked {
    inner: Arc<dyn Wording>,
    settings: Settings,
}

impl Wording for Checked {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.message(out)
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        write!(text, "{}", crate::analyze::finding::Help(&*self.inner))?;
        let clauses: Vec<&str> = text.split("; ").collect();
        let kept: Vec<&str> = clauses
            .iter()
            .copied()
            .filter(|clause| {
                !proposals(clause)
                    .iter()
                    .any(|(key, value)| self.settings.has_in(clause, key, value))
            })
            .collect();
        if kept.is_empty() {
            out.write_str(&text)
        } else {
            out.write_str(&kept.join("; "))
        }
    }

    fn has_help(&self) -> bool {
        self.inner.has_help()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{Severity, Text};
    use crate::model::{Rule, Span};

    const MODEL: &str = r"system: s
components:
  api: {capacity: 100, load: 150, load_shedding: true, depends_on: [{target: db, retry_budget: 10%, retries: 2, timeout: 1s}]}
  db: {}
";

    fn finding(subject: Subject, help: &str) -> Finding {
        Finding::new(
            Rule::Overload,
            subject,
            Severity::Error,
            Span::default(),
            Text::new("m").help(help),
        )
    }

    #[test]
    fn proposals_are_read_from_backticks() {
        assert_eq!(
            proposals(
                "set `timeout:` (e.g. `timeout: 500ms`) or `- {target: db, retries: 0}`, not `nines recover`"
            ),
            [("timeout", ""), ("timeout", "500ms"), ("retries", "0")]
        );
        assert_eq!(
            proposals("add `placement: [az-a, az-b]`"),
            [("placement", "[az-a, az-b]")]
        );
        // A four-byte character before a key (a kind written with a
        // backtick): the key starts after it, not one byte in.
        assert_eq!(proposals("in `\u{10ba9}timeout: 1s`"), [("timeout", "1s")]);
        assert!(proposals("`\u{10ba9}s: a lone instance`").is_empty());
    }

    #[test]
    fn a_setting_in_force_is_named_and_its_clause_left_out() {
        let m = crate::model::parse(MODEL).unwrap();
        let over = finding(
            Subject::from("api"),
            "run 2 instances; where overload must be survived, `load_shedding: true` serves what fits",
        );
        assert_eq!(in_force(&m, &over), ["load_shedding: true"]);
        let mut findings = vec![over];
        guard(&m, &mut findings);
        assert_eq!(findings[0].help().unwrap().to_string(), "run 2 instances");
        // The edge api>db has a 10% budget and a timeout, not jittered backoff.
        let edge = finding(
            Subject::edge("api", "db"),
            "add `retry_budget: 10%`; set `timeout:`; set `backoff: jittered`",
        );
        assert_eq!(in_force(&m, &edge), ["retry_budget: 10%", "timeout:"]);
        let mut findings = vec![edge];
        guard(&m, &mut findings);
        assert_eq!(
            findings[0].help().unwrap().to_string(),
            "set `backoff: jittered`"
        );
    }

    #[test]
    fn a_domains_finding_is_checked_against_the_components_its_clauses_name() {
        // spof/z1 is about the domain z1, which no component is named: its
        // help was never checked. cache (in z1's zone z1-a) sheds load
        // already, web (in z1) does not, db (in z2) is not in z1.
        let m = crate::model::parse(
            r"system: s
domains: {z1: {kind: region}, z1-a: {kind: zone, in: z1}, z2: {kind: region}}
components:
  web: {instances: 2, placement: [z1], depends_on: [cache, db]}
  cache: {instances: 2, load_shedding: true, placement: [z1-a]}
  db: {instances: 2, load_shedding: true, placement: [z2]}
",
        )
        .unwrap();
        let spof = finding(
            Subject::from("z1"),
            "give cache `load_shedding: true`; give web `load_shedding: true`; give db `load_shedding: true`",
        );
        assert_eq!(in_force(&m, &spof), ["load_shedding: true"]);
        let mut findings = vec![spof];
        guard(&m, &mut findings);
        assert_eq!(
            findings[0].help().unwrap().to_string(),
            "give web `load_shedding: true`; give db `load_shedding: true`"
        );
        // A name is matched whole: `web-2` is not `web`.
        assert!(names_word("run web-2 and web", "web"));
        assert!(!names_word("run web-2", "web"));
    }
}
