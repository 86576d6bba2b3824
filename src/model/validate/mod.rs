//! The raw model to the validated [`Model`]: names resolved to ids, defaults
//! applied, and every cross-reference and cross-field rule checked. All
//! problems are collected before giving up, in source order.

mod accepted;
mod components;
mod domains;
mod pieces;
mod slow;

pub(in crate::model) use pieces::read;
#[cfg(test)]
pub(in crate::model) use pieces::{built, reported};

use std::collections::HashMap;

pub use components::QUEUE_KINDS;

use super::decode::{Cx, Spanned};
use super::error::Problem;
use super::graph::ComponentGraph;
use super::intact::{self, DependencyOrder};
use super::load::{Node, Value};
use super::raw::{RawComponent, RawEntrypoints, RawModel};
use super::span::Span;
use super::units::Duration;
use super::{ComponentId, DomainId, GroupId, Model, Objective, Policy};

/// What a name in the shared namespace refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A component.
    Component(ComponentId),
    /// A failure domain.
    Domain(DomainId),
    /// A shared-fate group.
    Group(GroupId),
    /// An entry that had errors of its own: references to it are not reported again.
    Unreadable(&'static str),
}

impl Named {
    fn noun(self) -> &'static str {
        match self {
            Named::Component(_) => "component",
            Named::Domain(_) => "domain",
            Named::Group(_) => "shared-fate group",
            Named::Unreadable(noun) => noun,
        }
    }
}

/// The shared namespace of components, domains and groups: the names are
/// borrowed from the raw model, not copied.
pub struct Names<'r> {
    entries: Vec<(&'r str, Named)>,
    index: HashMap<&'r str, usize>,
}

impl Names<'_> {
    fn get(&self, name: &str) -> Option<Named> {
        self.index.get(name).map(|&i| self.entries[i].1)
    }

    fn of_kind(&self, noun: &str) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(move |(_, named)| named.noun() == noun)
            .map(|(name, _)| *name)
    }

    /// Resolves a reference that must name something of one kind; reports
    /// and returns `None` otherwise (silently for unreadable entries).
    fn resolve<T>(
        &self,
        name: &Spanned<super::units::Name>,
        noun: &'static str,
        pick: impl Fn(Named) -> Option<T>,
        cx: &mut Cx,
    ) -> Option<T> {
        match self.get(&name.value.0) {
            Some(Named::Unreadable(_)) => None,
            Some(named) => {
                let found = pick(named);
                if found.is_none() {
                    cx.report(Problem::unknown_reference(
                        name.span,
                        &name.value.0,
                        noun,
                        self.of_kind(noun),
                        Some(named.noun()),
                    ));
                }
                found
            }
            None => {
                // The closest name is looked for once every problem is
                // known, for the first few hundred only (see `suggest`).
                cx.report(Problem::unknown_reference_unsuggested(
                    name.span,
                    &name.value.0,
                    noun,
                ));
                None
            }
        }
    }

    fn component(&self, name: &Spanned<super::units::Name>, cx: &mut Cx) -> Option<ComponentId> {
        self.resolve(
            name,
            "component",
            |n| match n {
                Named::Component(id) => Some(id),
                _ => None,
            },
            cx,
        )
    }

    fn domain(&self, name: &Spanned<super::units::Name>, cx: &mut Cx) -> Option<DomainId> {
        self.resolve(
            name,
            "domain",
            |n| match n {
                Named::Domain(id) => Some(id),
                _ => None,
            },
            cx,
        )
    }

    fn group(&self, name: &Spanned<super::units::Name>, cx: &mut Cx) -> Option<GroupId> {
        self.resolve(
            name,
            "shared-fate group",
            |n| match n {
                Named::Group(id) => Some(id),
                _ => None,
            },
            cx,
        )
    }
}

/// Validates the spanned tree of a model.
///
/// # Errors
/// Every problem found, sorted by position.
pub fn validate(text: &str, root: Node) -> Result<Model, Vec<Problem>> {
    let mut cx = Cx::new(text);
    let raw = match &root.value {
        Value::Null => {
            cx.report(Problem::empty(Span::new(0, 0).widen_to_token(text)));
            None
        }
        Value::Map(_) => RawModel::decode_in(&root, "the model", &mut cx),
        _ => {
            cx.report(Problem::wrong_type(
                cx.point(&root),
                "the model",
                "a mapping of keys such as `system:` and `components:`",
                root.value.kind(),
            ));
            None
        }
    };
    // The tree is no longer needed: free it before the model is built, so a
    // large model does not hold the tree, the raw model and the model at once.
    free(root, text.len());
    let model = raw.map(|mut raw| {
        let blocks = vec![std::mem::take(&mut raw.components.items)];
        // The raw components are consumed as the model's are built.
        let model = build(&raw, blocks, &mut cx);
        free(raw, text.len());
        model
    });
    outcome(model, cx.problems)
}

/// The model when there is no problem, else every problem sorted by
/// position (those at one place by code, as reported otherwise).
fn outcome(model: Option<Model>, mut problems: Vec<Problem>) -> Result<Model, Vec<Problem>> {
    problems.sort_by_key(|p| (p.span.offset, p.code));
    problems.dedup();
    match model {
        Some(model) if problems.is_empty() => Ok(model),
        _ => Err(problems),
    }
}

/// The raw components in blocks, in model order, with their names.
type Blocks = Vec<Vec<(Spanned<String>, RawComponent)>>;

/// Above this many bytes of model text, a tree is freed on a thread of its
/// own: freeing the spanned tree of a 30 MB model takes longer than building
/// the model from the raw one, and nothing waits for it.
const FREE_APART_BYTES: usize = 1 << 20;

/// Frees `value` (the spanned tree or the raw model of a `len`-byte text),
/// on another thread when it is large.
fn free<T: Send + 'static>(value: T, len: usize) {
    if len < FREE_APART_BYTES {
        drop(value);
    } else {
        // When no thread can be started, the failed spawn drops its closure,
        // and the value with it, here.
        let _ = std::thread::Builder::new()
            .name("nines-free".to_owned())
            .spawn(move || drop(value));
    }
}

/// The model from the raw one, whose components (`raw.components.items`
/// is empty) are given in `blocks` and consumed block by block.
fn build(raw: &RawModel, mut blocks: Blocks, cx: &mut Cx) -> Model {
    if let Some(version) = raw.version.as_ref().filter(|v| v.value.0 != 1) {
        cx.report(Problem::version(version.span, &version.value.0.to_string()));
    }
    // The names move out of the raw components (the namespace borrows
    // them), and into the components once the namespace is done with.
    let component_names: Vec<Spanned<String>> = blocks
        .iter_mut()
        .flatten()
        .map(|(name, _)| Spanned {
            value: std::mem::take(&mut name.value),
            span: name.span,
        })
        .collect();
    let names = declare(raw, &component_names, cx);
    let domains = domains::domains(raw, &names, cx);
    let components = components::components(raw, blocks, &component_names, &names, &domains, cx);
    let mut model = finish(raw, names, &component_names, domains, components, cx);
    name_components(&mut model, component_names);
    derive_loads(&mut model, cx);
    model
}

/// Moves each component's name in.
fn name_components(model: &mut Model, names: Vec<Spanned<String>>) {
    for (component, name) in model.components.iter_mut().zip(names) {
        component.name = name.value;
    }
}

/// The model from its parts once every component is built: entrypoints,
/// objective, policy and acceptances resolved and the namespace dropped.
/// The components' names are still to be moved in (the namespace borrowed
/// them) and the loads derived (which [`derive_loads`] does).
fn finish(
    raw: &RawModel,
    names: Names<'_>,
    component_names: &[Spanned<String>],
    domains: Vec<super::Domain>,
    mut components: Vec<super::Component>,
    cx: &mut Cx,
) -> Model {
    components::default_degradable(&mut components);
    components::default_pull(&mut components);
    slow::hedge_targets(&components, component_names, cx);
    let groups = domains::groups(raw);
    let (entrypoints, entrypoint_shares) = entrypoints(raw, &names, &components, cx);
    let mut is_entrypoint = vec![false; components.len()];
    for &ComponentId(e) in &entrypoints {
        is_entrypoint[e] = true;
    }
    for (i, c) in components.iter().enumerate() {
        if let Some((_, span)) = c.objective
            && !is_entrypoint[i]
        {
            cx.report(Problem::entrypoint_only(
                span,
                "objective",
                &component_names[i].value,
                "an objective is what an entrypoint promises its users; a component inside the system has none of its own",
            ));
        }
    }
    let objective = objective(raw, cx);
    let policy = policy(raw, cx);
    let accepted = accepted::accepted(raw, &names, cx);
    suggest(&mut cx.problems, &names);
    drop(names);
    Model {
        system: raw.system.value.clone(),
        objective,
        entrypoints,
        entrypoint_shares,
        policy,
        domains,
        groups,
        components,
        accepted,
        span: raw.key_span("system").unwrap_or(raw.span),
    }
}

/// How many unknown names get a "did you mean" (the first by position):
/// diagnostics draw the first 500 problems (`render::diagnostics`), so each
/// one drawn keeps it, and the search, a scan of every name of the kind,
/// stays bounded: for each of 100,000 broken references among a million
/// components it would take hours.
pub const SUGGESTED_REFERENCES: usize = 500;

/// Gives the unknown names at the first [`SUGGESTED_REFERENCES`] places
/// their "did you mean" (each a scan of the names of its kind, in
/// parallel), and the rest none.
fn suggest(problems: &mut [Problem], names: &Names) {
    use rayon::prelude::*;
    let mut pending: Vec<usize> = (0..problems.len())
        .filter(|&i| problems[i].unsuggested.is_some())
        .collect();
    pending.sort_by_key(|&i| problems[i].span.offset);
    // Every problem at one place alike (so equal ones stay equal).
    let mut places = 0;
    let mut last = None;
    let mut chosen = vec![false; problems.len()];
    for &i in &pending {
        let offset = problems[i].span.offset;
        if last != Some(offset) {
            if places == SUGGESTED_REFERENCES {
                break;
            }
            places += 1;
            last = Some(offset);
        }
        chosen[i] = true;
    }
    let (now, later): (Vec<(bool, &mut Problem)>, Vec<_>) = chosen
        .into_iter()
        .zip(problems.iter_mut())
        .filter(|(_, p)| p.unsuggested.is_some())
        .partition(|(chosen, _)| *chosen);
    for (_, problem) in later {
        problem.unsuggested = None;
    }
    now.into_par_iter().for_each(|(_, problem)| {
        let noun = problem.unsuggested.as_ref().map_or("", |(_, noun)| *noun);
        problem.suggest(names.of_kind(noun));
    });
}

/// Fills in the intact load of every component given `capacity` without
/// `load` from what its callers send it, and reports those that no known
/// load reaches.
fn derive_loads(model: &mut Model, cx: &mut Cx) {
    if !model
        .components
        .iter()
        .any(|c| c.capacity.is_some_and(|cap| cap.derived))
    {
        return;
    }
    let order = DependencyOrder::new(&ComponentGraph::new(model));
    let loads = intact::loads(model, &order);
    for (component, load) in model.components.iter_mut().zip(loads) {
        let Some(capacity) = component.capacity.as_mut().filter(|c| c.derived) else {
            continue;
        };
        if let Some(load) = load {
            capacity.load = load;
        } else {
            let span = component.fields.get("capacity").unwrap_or(component.span);
            cx.report(Problem::needs_partner(
                span,
                "capacity",
                "load",
                "headroom compares the peak `load` with `capacity`, and no caller with a known load calls this component",
            ));
        }
    }
}

/// Registers every declared name, reporting reuse across kinds and the
/// reserved word.
fn declare<'r>(
    raw: &'r RawModel,
    component_names: &'r [Spanned<String>],
    cx: &mut Cx,
) -> Names<'r> {
    let count = raw
        .domains
        .as_ref()
        .map_or(0, |d| d.items.len() + d.unreadable.len())
        + raw
            .shared_fate
            .as_ref()
            .map_or(0, |g| g.items.len() + g.unreadable.len())
        + component_names.len()
        + raw.components.unreadable.len();
    let mut names = Names {
        entries: Vec::with_capacity(count),
        index: HashMap::with_capacity(count),
    };
    let mut spans: Vec<Span> = Vec::with_capacity(count);
    let mut add = |name: &'r Spanned<String>, named: Named, cx: &mut Cx| {
        if name.value == "instance" {
            cx.report(Problem::reserved_name(name.span, &name.value));
        }
        if let Some(&index) = names.index.get(name.value.as_str()) {
            let first = names.entries[index].1;
            if !matches!(first, Named::Unreadable(_)) {
                cx.report(Problem::duplicate_name(
                    name.span,
                    &name.value,
                    named.noun(),
                    spans[index],
                    first.noun(),
                ));
            }
            // References to an ambiguous name would only repeat this error.
            names.entries[index].1 = Named::Unreadable(first.noun());
            return;
        }
        names.index.insert(&name.value, names.entries.len());
        names.entries.push((&name.value, named));
        spans.push(name.span);
    };
    // Each kind in model order; an entry with errors of its own still holds
    // its name, so references to it are not reported a second time.
    let mut add_all = |items: &mut dyn Iterator<Item = (&'r Spanned<String>, Named)>,
                       cx: &mut Cx| {
        for (name, named) in items {
            add(name, named, cx);
        }
    };
    if let Some(domains) = &raw.domains {
        let readable = domains
            .items
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n, Named::Domain(DomainId(i))));
        add_all(
            &mut readable.chain(
                domains
                    .unreadable
                    .iter()
                    .map(|n| (n, Named::Unreadable("domain"))),
            ),
            cx,
        );
    }
    if let Some(groups) = &raw.shared_fate {
        let readable = groups
            .items
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n, Named::Group(GroupId(i))));
        add_all(
            &mut readable.chain(
                groups
                    .unreadable
                    .iter()
                    .map(|n| (n, Named::Unreadable("shared-fate group"))),
            ),
            cx,
        );
    }
    let readable = component_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n, Named::Component(ComponentId(i))));
    add_all(
        &mut readable.chain(
            raw.components
                .unreadable
                .iter()
                .map(|n| (n, Named::Unreadable("component"))),
        ),
        cx,
    );
    names
}

fn objective(raw: &RawModel, cx: &mut Cx) -> Option<Objective> {
    let objective = raw.objective.as_ref()?;
    let window = objective
        .window
        .as_ref()
        .map_or(Duration(30 * 86_400_000), |w| {
            if w.value.0 == 0 {
                cx.report(Problem::zero_duration(w.span, "window"));
            }
            w.value
        });
    let Some(availability) = &objective.availability else {
        cx.report(Problem::missing_key(
            objective.span,
            "availability",
            "`objective`",
            "availability: 99.95%",
        ));
        return None;
    };
    Some(Objective {
        availability: availability.value.0,
        window,
        span: objective.key_span("availability").unwrap_or(objective.span),
    })
}

fn policy(raw: &RawModel, cx: &mut Cx) -> Policy {
    let defaults = Policy::default();
    let Some(policy) = &raw.policy else {
        return defaults;
    };
    recovery_figures(policy, cx);
    Policy {
        max_utilization: policy
            .max_utilization
            .as_ref()
            .map_or(defaults.max_utilization, |v| v.value.0),
        survive: policy
            .survive
            .as_ref()
            .map_or(defaults.survive, |v| v.value.0),
        max_retry_amplification: policy
            .max_retry_amplification
            .as_ref()
            .map_or(defaults.max_retry_amplification, |v| v.value.0),
        fallback_headroom: policy
            .fallback_headroom
            .as_ref()
            .map_or(defaults.fallback_headroom, |v| v.value.0),
        drill_max_age: policy
            .drill_max_age
            .as_ref()
            .map_or(defaults.drill_max_age, |v| v.value),
        slow: policy.slow.as_ref().map(|v| v.value),
        pool_headroom: policy
            .pool_headroom
            .as_ref()
            .map_or(defaults.pool_headroom, |v| v.value.0),
        recovery: super::RecoveryPolicy {
            cold_capacity: policy.cold_capacity.as_ref().map(|v| v.value.0),
            ramp_start: policy.ramp_start.as_ref().map(|v| v.value.0),
            ramp_increase: policy.ramp_increase.as_ref().map(|v| v.value.0),
            ramp_step: policy.ramp_step.as_ref().map(|v| v.value.0),
            ramp_decrease: policy.ramp_decrease.as_ref().map(|v| v.value.0),
            ramp_interval: policy.ramp_interval.as_ref().map(|v| v.value),
            client_retries: policy.client_retries.as_ref().map(|v| v.value.0),
            client_timeout: policy.client_timeout.as_ref().map(|v| v.value),
            client_backoff: policy.client_backoff.as_ref().map(|v| v.value),
            ramp_ceiling: policy.ramp_ceiling.as_ref().map(|v| v.value.0),
        },
    }
}

/// The recovery figures at which `nines recover` could never converge:
/// a ramp that starts at 0% or cannot grow, a breach that drops the share
/// to 0, a cold instance with no capacity (it never serves, so never warms).
fn recovery_figures(policy: &super::raw::RawPolicy, cx: &mut Cx) {
    let zero = |v: &Option<Spanned<super::units::Probability>>| {
        v.as_ref().filter(|v| v.value.0 <= 0.0).map(|v| v.span)
    };
    let checks = [
        (
            zero(&policy.cold_capacity),
            "cold_capacity",
            "a restarted instance at 0% of its capacity serves nothing, and warms only by serving",
        ),
        (
            zero(&policy.ramp_start),
            "ramp_start",
            "a ramp from 0% admits nothing, and 0 × ramp_increase stays 0",
        ),
        (
            zero(&policy.ramp_step),
            "ramp_step",
            "from half the target on the ramp adds ramp_step: with 0 it never reaches 100%",
        ),
        (
            zero(&policy.ramp_ceiling),
            "ramp_ceiling",
            "the ramp raises a share only while the loads stay within ramp_ceiling of capacity: at 0% it never raises",
        ),
        (
            zero(&policy.ramp_decrease),
            "ramp_decrease",
            "after a breach the share is multiplied by ramp_decrease: 0 admits nothing again",
        ),
    ];
    for (span, key, why) in checks {
        if let Some(span) = span {
            cx.report(Problem::never_recovers(
                span,
                key,
                &written(cx, span),
                "above 0%, such as `10%`",
                why,
            ));
        }
    }
    if let Some(v) = policy.ramp_increase.as_ref().filter(|v| v.value.0 <= 1.0) {
        cx.report(Problem::never_recovers(
            v.span,
            "ramp_increase",
            &written(cx, v.span),
            "above 1, such as `1.5`",
            "below half the target the ramp multiplies the share by ramp_increase: at 1 or less it never grows",
        ));
    }
}

/// The text of `span` as written.
fn written(cx: &Cx, span: Span) -> String {
    cx.text
        .get(span.offset..span.offset + span.len)
        .unwrap_or_default()
        .to_owned()
}

/// The declared entrypoints, or every component that no `depends_on` names,
/// with their shares of the requests where the model gives them (adding up
/// to 100%).
fn entrypoints(
    raw: &RawModel,
    names: &Names,
    components: &[super::Component],
    cx: &mut Cx,
) -> (Vec<ComponentId>, Vec<f64>) {
    if let Some(declared) = &raw.entrypoints {
        let (listed_names, shares): (
            Vec<Spanned<super::units::Name>>,
            Vec<&Spanned<super::units::Probability>>,
        ) = match &declared.value {
            RawEntrypoints::Names(list) => (list.clone(), Vec::new()),
            RawEntrypoints::Shares(entries) => entries
                .items
                .iter()
                .map(|(name, share)| {
                    (
                        Spanned {
                            value: super::units::Name(name.value.clone()),
                            span: name.span,
                        },
                        share,
                    )
                })
                .unzip(),
        };
        if listed_names.is_empty() {
            cx.report(Problem::empty_list(declared.span, "`entrypoints`"));
        }
        no_repeats(&listed_names, "entrypoints", cx);
        // A repeat is reported by `no_repeats` and kept once; `listed`
        // finds it in one step (a scan of `out` was quadratic: 50,000
        // declared entrypoints compared 1.25e9 pairs).
        let mut listed = vec![false; components.len()];
        let mut out: Vec<ComponentId> = Vec::new();
        let mut out_shares = Vec::new();
        for (i, name) in listed_names.iter().enumerate() {
            if let Some(id) = names.component(name, cx)
                && !std::mem::replace(&mut listed[id.0], true)
            {
                out.push(id);
                if let Some(share) = shares.get(i) {
                    out_shares.push(share.value.0);
                }
            }
        }
        let sum: f64 = shares.iter().map(|s| s.value.0).sum();
        if !shares.is_empty() && (sum - 1.0).abs() > 1e-6 {
            cx.report(Problem::share_sum(
                declared.span,
                "entrypoints' shares of the requests",
                sum,
                "100% (every request enters at one of them)",
            ));
        }
        if out_shares.len() != out.len() {
            out_shares.clear();
        }
        return (out, out_shares);
    }
    let mut called = vec![false; components.len()];
    for target in components
        .iter()
        .flat_map(|c| &c.depends_on)
        .flat_map(|e| &e.targets)
    {
        called[target.0] = true;
    }
    let out: Vec<ComponentId> = (0..components.len())
        .filter(|&i| !called[i])
        .map(ComponentId)
        .collect();
    if out.is_empty() && !components.is_empty() && raw.components.unreadable.is_empty() {
        cx.report(Problem::no_entrypoint(
            raw.key_span("components").unwrap_or(raw.span),
        ));
    }
    (out, Vec::new())
}

/// Reports a name listed twice in one list.
pub(super) fn no_repeats(list: &[Spanned<super::units::Name>], key: &str, cx: &mut Cx) {
    /// Up to this long, a list is scanned; longer, its names are looked up
    /// in a map (a scan of 50,000 declared entrypoints compared 1.25e9
    /// pairs).
    const SCANNED: usize = 16;
    if list.len() <= SCANNED {
        for (index, name) in list.iter().enumerate() {
            if let Some(first) = list[..index].iter().find(|other| other.value == name.value) {
                cx.report(Problem::repeated(name.span, &name.value.0, key, first.span));
            }
        }
        return;
    }
    let mut first: HashMap<&str, Span> = HashMap::with_capacity(list.len());
    for name in list {
        match first.entry(name.value.0.as_str()) {
            std::collections::hash_map::Entry::Occupied(seen) => {
                cx.report(Problem::repeated(
                    name.span,
                    &name.value.0,
                    key,
                    *seen.get(),
                ));
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(name.span);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::SUGGESTED_REFERENCES;

    #[test]
    fn the_first_unknown_names_by_place_get_a_suggestion_and_the_rest_none() {
        // `alpha` and 502 components each calling `alpah` (a transposition,
        // distance 1): 502 unknown names, the first 500 by place told
        // "did you mean `alpha`?", the last two (c500 and c501, the last
        // lines) only to declare it.
        let mut text = String::from("system: s\ncomponents:\n  alpha: {}\n");
        for i in 0..SUGGESTED_REFERENCES + 2 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [alpah]}}");
        }
        let problems = crate::model::parse(&text).unwrap_err();
        assert_eq!(problems.len(), 502);
        let helps: Vec<&str> = problems.iter().filter_map(|p| p.help.as_deref()).collect();
        assert!(helps[..500].iter().all(|h| *h == "did you mean `alpha`?"));
        assert_eq!(
            helps[500..],
            ["declare the component `alpah`, or fix the name"; 2]
        );
        // c500 is on line 3 + 500 + 1 = 504.
        assert_eq!(problems[500].span.line_column(&text).0, 504);
        assert!(problems.iter().all(|p| p.unsuggested.is_none()));
    }

    #[test]
    fn repeats_in_a_long_list_are_each_reported_against_the_first() {
        // 20 entrypoints (past the 16 a scan handles), `e3` listed twice
        // more and `e19` once more: three `model::repeated`, in list order,
        // each pointing back at the first listing (line 2).
        let names: Vec<String> = (0..20).map(|i| format!("e{i}")).collect();
        let mut text = format!(
            "system: s\nentrypoints: [{}, e3, e19, e3]\ncomponents:\n",
            names.join(", ")
        );
        for name in &names {
            let _ = writeln!(text, "  {name}: {{}}");
        }
        let problems = crate::model::parse(&text).unwrap_err();
        let repeated: Vec<(&str, usize, usize)> = problems
            .iter()
            .filter(|p| p.code == "model::repeated")
            .map(|p| {
                let (line, column) = p.span.line_column(&text);
                let first = p.related[0].0.line_column(&text);
                assert_eq!(first.0, 2);
                (&text[p.span.offset..p.span.end()], line, column - first.1)
            })
            .collect();
        // "entrypoints: [" is 14 characters; e0..e9 take 4 each with ", ",
        // e10..e19 5 each: the repeats start at columns 15 + 40 + 50 = 105,
        // 109 and 114; the first e3 at 15 + 12 = 27, the first e19 at
        // 15 + 40 + 45 = 100.
        assert_eq!(
            repeated,
            [
                ("e3", 2, 105 - 27),
                ("e19", 2, 109 - 100),
                ("e3", 2, 114 - 27)
            ]
        );
    }

    #[test]
    #[ignore = "slow: 200,000 components each calling an unknown name (seconds in a debug build; it did not end before the suggestions were bounded)"]
    fn two_hundred_thousand_unknown_names_are_reported_in_bounded_work() {
        // c0 … c199999, each calling x<i>: 200,000 unknown names among
        // 200,000 components (5.6 MB, read in pieces). A scan of every name
        // for each would compare 4 * 10^10 pairs; the first 500 places get
        // theirs: x<i> is one substitution from c<i> and two or more from
        // any other name, so "did you mean `c<i>`?".
        let mut text = String::from("system: s\nentrypoints: [c0]\ncomponents:\n");
        for i in 0..200_000 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [x{i}]}}");
        }
        assert!(text.len() > 4 << 20, "{}", text.len());
        let problems = crate::model::parse(&text).unwrap_err();
        assert_eq!(problems.len(), 200_000);
        for (i, problem) in problems.iter().enumerate().take(SUGGESTED_REFERENCES) {
            let help = format!("did you mean `c{i}`?");
            assert_eq!(problem.help.as_deref(), Some(help.as_str()));
        }
        assert_eq!(
            problems[SUGGESTED_REFERENCES].help.as_deref(),
            Some("declare the component `x500`, or fix the name")
        );
    }
}
