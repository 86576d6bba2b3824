//! `accepted:` entries: the id must name a rule of the format and things the
//! model declares, so a typo cannot silently accept nothing.

use super::super::Accepted;
use super::super::decode::Cx;
use super::super::error::Problem;
use super::super::raw::RawModel;
use super::super::rule::Rule;
use super::Names;

pub(super) fn accepted(raw: &RawModel, names: &Names, cx: &mut Cx) -> Vec<Accepted> {
    let mut out = Vec::new();
    for entry in raw.accepted.iter().flatten() {
        let id = entry.id.value.trim();
        if entry.reason.value.trim().is_empty() {
            cx.report(Problem::empty_value(entry.reason.span, "`reason`"));
        }
        let Some((rule, subject)) = id
            .split_once('/')
            .filter(|(r, s)| !r.is_empty() && !s.is_empty())
        else {
            cx.report(Problem::accepted_id(entry.id.span, id));
            continue;
        };
        let Some(known) = Rule::from_name(rule) else {
            cx.report(Problem::accepted_rule(entry.id.span, rule, Rule::names()));
            continue;
        };
        if known != Rule::StaleAcceptance
            && !subject_is_known(known, subject, names, entry.id.span, cx)
        {
            continue;
        }
        out.push(Accepted {
            id: id.to_owned(),
            reason: entry.reason.value.clone(),
            expires: entry.expires.as_ref().map(|e| e.value),
            span: entry.id.span,
        });
    }
    out
}

/// Checks that every name in a subject is declared: `a>b>c` for call paths,
/// `a+b` for cycles and N-2 losses, `component/lost` for headroom (where
/// `instance` stands for one instance).
fn subject_is_known(
    rule: Rule,
    subject: &str,
    names: &Names,
    span: super::super::Span,
    cx: &mut Cx,
) -> bool {
    let mut pieces: Vec<&str> = subject.split(['/', '>', '+']).collect();
    if rule == Rule::Headroom && pieces.last() == Some(&"instance") {
        pieces.pop();
    }
    for piece in pieces {
        if names.get(piece).is_none() {
            let candidates = names.entries.iter().map(|(n, _)| *n);
            cx.report(Problem::unknown_reference(
                span,
                piece,
                "component, domain or group",
                candidates,
                None,
            ));
            return false;
        }
    }
    true
}
