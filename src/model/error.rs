//! Model diagnostics: every user-facing sentence about a bad model is written
//! here, so wording stays consistent and reviewable in one place. A
//! [`Problem`] points at a span of the model text with a label under the
//! underline and a help line saying how to fix it.

use std::fmt::Write as _;

use super::span::Span;

/// One thing wrong with a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Stable kind, shown as the diagnostic code (`model::unknown-key`).
    pub code: &'static str,
    /// The headline.
    pub message: String,
    /// What to underline.
    pub span: Span,
    /// Text shown under the underline.
    pub label: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Other places that explain the problem (the first definition of a
    /// duplicate name, the rest of a cycle).
    pub related: Vec<(Span, String)>,
    /// For an unknown name whose "did you mean" is still to be looked for,
    /// the name and the kind expected (`validate` looks for the first few
    /// hundred, then clears it); `None` for every other problem.
    pub unsuggested: Option<(String, &'static str)>,
}

impl Problem {
    fn new(code: &'static str, message: String, span: Span, label: impl Into<String>) -> Self {
        Self {
            code,
            message,
            span,
            label: label.into(),
            help: None,
            related: Vec::new(),
            unsuggested: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    // ---- reading the file ----

    /// The model is larger than [`super::load::MAX_MODEL_BYTES`] and cannot
    /// be read in pieces (or is over [`super::load::MAX_LARGE_MODEL_BYTES`]).
    pub fn too_large(bytes: usize) -> Self {
        Self::new(
            "model::too-large",
            format!(
                "the model is {bytes} bytes; nines reads models up to {} MiB, or up to {} MiB when `components:` is one mapping with each entry on a line of its own",
                super::load::MAX_MODEL_BYTES >> 20,
                super::load::MAX_LARGE_MODEL_BYTES >> 20
            ),
            Span::new(0, 0),
            "this file",
        )
        .help("a model describes components, not data: check that this is the right file; a model over 64 MiB is read in pieces, so it must be written in block style (`components:` at column 0, one `name:` line per component at one indentation) without anchors, aliases, tags, tabs in the indentation or a second document")
    }

    /// The YAML parser rejected the text.
    pub fn syntax(message: &str, span: Span) -> Self {
        Self::new(
            "model::yaml",
            format!("invalid YAML: {message}"),
            span,
            "here",
        )
        .help("check the indentation and that every `[`, `{` and quote is closed")
    }

    /// The file holds no YAML document at all.
    pub fn empty(span: Span) -> Self {
        Self::new(
            "model::empty",
            "the model is empty".into(),
            span,
            "nothing here",
        )
        .help("a model needs at least `system: NAME` and one component under `components:`")
    }

    // ---- shapes and keys ----

    /// A value of the wrong YAML type.
    pub fn wrong_type(span: Span, what: &str, expected: &str, found: &str) -> Self {
        Self::new(
            "model::type",
            format!("{what} must be {expected}, found {found}"),
            span,
            format!("expected {expected}"),
        )
        .help(format!(
            "write {what} as {expected}; `nines schema` describes every key"
        ))
    }

    /// A key that the format does not have.
    pub fn unknown_key(span: Span, key: &str, place: &str, known: &[&str]) -> Self {
        // Words from other tools (Kubernetes, Compose) that mean a key here.
        const SYNONYMS: &[(&str, &str)] = &[
            ("replicas", "instances"),
            ("replica", "instances"),
            ("count", "instances"),
            ("zones", "placement"),
            ("zone", "placement"),
            ("depends", "depends_on"),
            ("dependencies", "depends_on"),
            ("calls", "depends_on"),
            ("failover", "failover_to"),
        ];
        let problem = Self::new(
            "model::unknown-key",
            format!("unknown key `{key}` in {place}"),
            span,
            "not a key of the format",
        );
        let synonym = SYNONYMS
            .iter()
            .find(|(word, _)| *word == key)
            .map(|&(_, meant)| meant)
            .filter(|meant| known.contains(meant));
        match synonym.or_else(|| closest(key, known.iter().copied())) {
            Some(best) => problem.help(format!("did you mean `{best}`?")),
            None => problem.help(format!("the keys here are: {}", known.join(", "))),
        }
    }

    /// A key written twice in one mapping.
    pub fn duplicate_key(span: Span, key: &str, first: Span) -> Self {
        Self::new(
            "model::duplicate-key",
            format!("`{key}` is written twice in the same mapping"),
            span,
            "written again here",
        )
        .related(first, "first written here")
        .help("keep one of the two; YAML would otherwise silently use only one")
    }

    /// A required key is absent.
    pub fn missing_key(span: Span, key: &str, place: &str, example: &str) -> Self {
        Self::new(
            "model::missing-key",
            format!("{place} needs `{key}`"),
            span,
            format!("`{key}` is missing here"),
        )
        .help(format!("add it, for example `{example}`"))
    }

    /// An empty value where one is required (`key:` with nothing after it).
    pub fn empty_value(span: Span, what: &str) -> Self {
        Self::new(
            "model::empty-value",
            format!("{what} has no value"),
            span,
            "empty",
        )
        .help(format!(
            "give {what} a value, or remove the key to use the default"
        ))
    }

    /// A zero duration where time must pass.
    pub fn zero_duration(span: Span, key: &str) -> Self {
        Self::new(
            "model::duration",
            format!("`{key}` must be longer than 0s"),
            span,
            "zero",
        )
        .help(format!("give `{key}` a length above 0s, such as `720h`"))
    }

    /// The same name twice in one list.
    pub fn repeated(span: Span, name: &str, key: &str, first: Span) -> Self {
        Self::new(
            "model::repeated",
            format!("`{name}` is listed twice in `{key}`"),
            span,
            "listed again",
        )
        .related(first, "first listed here")
        .help("list each name once: a repeated alternative would be counted twice")
    }

    /// An unsupported format version.
    pub fn version(span: Span, found: &str) -> Self {
        Self::new(
            "model::version",
            format!("format version {found} is not supported"),
            span,
            "unsupported version",
        )
        .help("this nines reads format version 1: write `version: 1` or leave it out")
    }

    /// A collection that must not be empty.
    pub fn empty_list(span: Span, what: &str) -> Self {
        Self::new(
            "model::empty",
            format!("{what} is empty"),
            span,
            "nothing listed",
        )
        .help("list at least one entry, or remove the key to use the default")
    }

    // ---- scalars ----

    /// A name that does not match `[A-Za-z0-9][A-Za-z0-9._-]*`.
    pub fn bad_name(span: Span, name: &str) -> Self {
        let suggestion: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .trim_matches(['-', '.', '_'])
            .to_owned();
        let problem = Self::new(
            "model::name",
            format!("`{}` is not a valid name", printable(name)),
            span,
            "invalid name",
        );
        let rule =
            "names start with a letter or digit and use only letters, digits, `.`, `_` and `-`";
        if suggestion.is_empty() {
            problem.help(rule)
        } else {
            problem.help(format!("{rule}: for example `{suggestion}`"))
        }
    }

    /// The reserved word `instance` used as a name.
    pub fn reserved_name(span: Span, name: &str) -> Self {
        Self::new(
            "model::name",
            format!("`{name}` is reserved"),
            span,
            "reserved name",
        )
        .help("`instance` names the loss of one instance in finding ids (headroom/<component>/instance): choose another name")
    }

    /// A bare number where a percentage or probability is meant.
    pub fn bare_percent(span: Span, text: &str) -> Self {
        Self::new(
            "model::probability",
            format!("`{text}` is not a probability"),
            span,
            "a bare number above 1",
        )
        .help(format!(
            "did you mean {text}%? A probability is a number in [0, 1] or a percentage such as `{text}%`"
        ))
    }

    /// A probability outside [0, 1].
    pub fn probability_range(span: Span, text: &str) -> Self {
        Self::new(
            "model::probability",
            format!("`{text}` is outside 0% to 100%"),
            span,
            "out of range",
        )
        .help("a probability is the chance of being up: a number in [0, 1] such as `0.999`, or a percentage such as `99.9%`")
    }

    /// Text that is not a probability at all.
    pub fn bad_probability(span: Span, text: &str) -> Self {
        Self::new(
            "model::probability",
            format!("`{}` is not a probability", printable(text)),
            span,
            "expected a probability",
        )
        .help("write a number in [0, 1] such as `0.999`, or a percentage such as `99.9%`")
    }

    /// A number where a duration is meant.
    pub fn duration_unit(span: Span, text: &str) -> Self {
        Self::new(
            "model::duration",
            format!("the duration `{text}` has no unit"),
            span,
            "no unit",
        )
        .help(format!(
            "add a unit: `{text}ms`, `{text}s`, `{text}m`, `{text}h` or `{text}d`"
        ))
    }

    /// Text that is not a duration.
    pub fn bad_duration(span: Span, text: &str, why: &str) -> Self {
        Self::new(
            "model::duration",
            format!("`{}` is not a duration: {why}", printable(text)),
            span,
            "expected a duration",
        )
        .help("write numbers with the units ms, s, m, h, d, combined largest first: `300ms`, `30s`, `1h30m`, `7d`")
    }

    /// Text that is not an ISO 8601 date.
    pub fn bad_date(span: Span, text: &str) -> Self {
        Self::new(
            "model::date",
            format!("`{}` is not a calendar date", printable(text)),
            span,
            "expected YYYY-MM-DD",
        )
        .help("write an ISO 8601 date such as `2026-07-14`")
    }

    /// A negative or non-integer count.
    pub fn bad_count(span: Span, key: &str, text: &str) -> Self {
        Self::new(
            "model::count",
            format!(
                "`{key}` must be a whole number of at least 0, found `{}`",
                printable(text)
            ),
            span,
            "not a count",
        )
        .help(format!("write a whole number, for example `{key}: 3`"))
    }

    /// A count that must be at least 1.
    pub fn zero_count(span: Span, key: &str) -> Self {
        Self::new(
            "model::count",
            format!("`{key}` must be at least 1"),
            span,
            "zero",
        )
        .help(format!(
            "`{key}: 0` describes nothing; remove the entry or give it at least 1"
        ))
    }

    /// A count too large to be real.
    pub fn huge_count(span: Span, key: &str) -> Self {
        Self::new(
            "model::count",
            format!("`{key}` is larger than nines can count (4294967295)"),
            span,
            "too large",
        )
        .help("check the number: no fleet has billions of instances")
    }

    /// A negative or non-finite rate.
    pub fn bad_rate(span: Span, key: &str, text: &str) -> Self {
        if text
            .replace('_', "")
            .parse::<f64>()
            .is_ok_and(f64::is_infinite)
        {
            return Self::new(
                "model::rate",
                format!(
                    "`{key}` is `{}`, beyond the largest number nines can compute with (about 1.8 × 10³⁰⁸)",
                    printable(text)
                ),
                span,
                "too large",
            )
            .help("check the number and its unit: no real load or capacity comes near it");
        }
        Self::new(
            "model::rate",
            format!(
                "`{key}` must be a number of at least 0, found `{}`",
                printable(text)
            ),
            span,
            "not a rate",
        )
        .help(format!(
            "rates are non-negative numbers in the model's own unit, for example `{key}: 800`"
        ))
    }

    /// A ratio such as `max_utilization` out of its range.
    pub fn bad_ratio(span: Span, key: &str, text: &str, range: &str) -> Self {
        Self::new(
            "model::ratio",
            format!("`{key}` must be {range}, found `{}`", printable(text)),
            span,
            "out of range",
        )
        .help(format!("write `{key}` as a plain number {range}"))
    }

    /// A recovery figure at which the admission ramp never reaches the
    /// target (or a cold instance never serves): `what` says why.
    pub fn never_recovers(span: Span, key: &str, text: &str, range: &str, what: &str) -> Self {
        Self::new(
            "model::recovery",
            format!("`{key}` must be {range}, found `{}`", printable(text)),
            span,
            "never converges",
        )
        .help(format!(
            "{what}; give `{key}` a value {range} or leave it out for the default"
        ))
    }

    /// A `retention` on a component that is not a queue kind.
    pub fn retention_not_queue(span: Span, kind: Option<&str>) -> Self {
        let found = kind.map_or_else(
            || "no `kind`".to_owned(),
            |k| format!("`kind: {}`", printable(k)),
        );
        Self::new(
            "model::retention",
            format!("`retention` is for queues, and this component has {found}"),
            span,
            "only a queue keeps events",
        )
        .help("give the component a queue kind (queue, stream, topic, kafka, pubsub, broker) or leave `retention` out")
    }

    /// A value outside a fixed set of words.
    pub fn bad_choice(span: Span, key: &str, text: &str, choices: &[&str]) -> Self {
        let problem = Self::new(
            "model::choice",
            format!("`{}` is not a valid `{key}`", printable(text)),
            span,
            format!("expected {}", choices.join(" | ")),
        );
        match closest(text, choices.iter().copied()) {
            Some(best) => problem.help(format!(
                "did you mean `{best}`? The choices are {}",
                choices.join(", ")
            )),
            None => problem.help(format!("the choices are {}", choices.join(", "))),
        }
    }

    // ---- references and names ----

    /// A name that refers to nothing of the expected kind.
    pub fn unknown_reference<'a>(
        span: Span,
        name: &str,
        expected: &str,
        candidates: impl IntoIterator<Item = &'a str>,
        other_kind: Option<&str>,
    ) -> Self {
        // A name declared as something else gets one story: the label, the
        // message and the help all say what it is.
        if let Some(kind) = other_kind {
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            return Self::new(
                "model::unknown-reference",
                format!(
                    "`{}` is {article} {kind}, not a {expected}",
                    printable(name)
                ),
                span,
                format!("{article} {kind}, where a {expected} is expected"),
            )
            .help(match kind {
                k if k.contains("group") => format!(
                    "a group is not called: its members fail with it; to say a component fails with `{0}`, list it under that component's `shares: [{0}]`",
                    printable(name)
                ),
                k if k.contains("domain") => format!(
                    "a domain is not called: it holds instances; to run a component there, write `placement: [{}]`",
                    printable(name)
                ),
                _ => format!(
                    "only a {expected} can be named here; name the {expected} you mean, or remove `{}`",
                    printable(name)
                ),
            });
        }
        let problem = Self::new(
            "model::unknown-reference",
            format!("unknown {expected} `{}`", printable(name)),
            span,
            "nothing of that name is declared",
        );
        match closest(name, candidates) {
            Some(best) => problem.help(format!("did you mean `{best}`?")),
            None => problem.help(format!("declare the {expected} `{name}`, or fix the name")),
        }
    }

    /// A name that refers to nothing, its "did you mean" left for
    /// [`Problem::suggest`] (looking through a million names for each of a
    /// hundred thousand broken references would not end).
    pub fn unknown_reference_unsuggested(span: Span, name: &str, expected: &'static str) -> Self {
        let mut problem = Self::unknown_reference(span, name, expected, [], None);
        problem.unsuggested = Some((name.to_owned(), expected));
        problem
    }

    /// Gives an unknown reference left by
    /// [`Problem::unknown_reference_unsuggested`] its "did you mean" among
    /// `candidates` (the names of the kind expected), as
    /// [`Problem::unknown_reference`] would have.
    pub fn suggest<'a>(&mut self, candidates: impl IntoIterator<Item = &'a str>) {
        if let Some((name, expected)) = self.unsuggested.take() {
            *self = Self::unknown_reference(self.span, &name, expected, candidates, None);
        }
    }

    /// A name declared twice across components, domains and groups.
    pub fn duplicate_name(
        span: Span,
        name: &str,
        kind: &str,
        first: Span,
        first_kind: &str,
    ) -> Self {
        Self::new(
            "model::duplicate-name",
            format!("`{name}` names both a {first_kind} and a {kind}"),
            span,
            format!("{kind} `{name}`"),
        )
        .related(first, format!("{first_kind} `{name}` first declared here"))
        .help("components, domains and shared-fate groups share one namespace (finding ids use the bare name): rename one")
    }

    /// Domains nested in a cycle.
    pub fn domain_cycle(span: Span, cycle: &[String], others: Vec<Span>) -> Self {
        let mut problem = Self::new(
            "model::domain-cycle",
            format!("domains are nested in a cycle: {}", cycle.join(" in ")),
            span,
            "this `in` closes the cycle",
        )
        .help("a domain cannot be inside itself: remove one of the `in` links");
        for other in others {
            problem = problem.related(other, "part of the cycle");
        }
        problem
    }

    /// Domains nested deeper than the limit.
    pub fn domain_too_deep(span: Span, name: &str, limit: usize) -> Self {
        Self::new(
            "model::domain-too-deep",
            format!("domain `{name}` is nested more than {limit} domains deep"),
            span,
            format!("this `in` makes the nesting deeper than {limit}"),
        )
        .help(format!(
            "failure domains nest a few levels (region, zone, rack, host): nest at most {limit} deep"
        ))
    }

    /// A component that depends on itself.
    pub fn self_reference(span: Span, name: &str, key: &str) -> Self {
        Self::new(
            "model::self-reference",
            format!("`{name}` names itself in `{key}`"),
            span,
            "refers to itself",
        )
        .help("remove it: a component cannot depend on or fail over to itself")
    }

    // ---- cross-field rules ----

    /// A placement map whose counts do not add up.
    pub fn placement_sum(
        span: Span,
        sum: u64,
        instances: u32,
        instances_span: Option<Span>,
    ) -> Self {
        let mut problem = Self::new(
            "model::placement",
            format!("the placement counts add up to {sum}, but `instances` is {instances}"),
            span,
            format!("{sum} instances placed"),
        )
        .help(format!(
            "make the counts add up to {instances}, or set `instances: {sum}`"
        ));
        if let Some(at) = instances_span {
            problem = problem.related(at, format!("{instances} instances"));
        }
        problem
    }

    /// A placement list with more domains than instances.
    pub fn placement_spread(span: Span, domains: usize, instances: u32) -> Self {
        Self::new(
            "model::placement",
            format!(
                "{domains} domains listed for {instances} instance(s): some domain would hold none"
            ),
            span,
            "more domains than instances",
        )
        .help(format!(
            "list at most {instances} domain(s), or raise `instances` to at least {domains}"
        ))
    }

    /// A placement naming a domain and one that contains it.
    pub fn placement_nested(span: Span, inner: &str, outer: &str) -> Self {
        Self::new(
            "model::placement",
            format!("`{inner}` is inside `{outer}`, which is also listed"),
            span,
            format!("inside `{outer}`"),
        )
        .help(format!(
            "list domains of one level: an instance in `{inner}` is already in `{outer}`"
        ))
    }

    /// `min_healthy` above `instances`.
    pub fn min_healthy(span: Span, min_healthy: u32, instances: u32) -> Self {
        Self::new(
            "model::min-healthy",
            format!("`min_healthy` is {min_healthy} but there are only {instances} instance(s)"),
            span,
            "can never be met",
        )
        .help(format!(
            "`min_healthy` is at most `instances`: lower it to {instances} or add instances"
        ))
    }

    // ---- slowness: latency, pools, breakers, hedges (docs/slow.md) ----

    /// A `latency` mapping without any percentile.
    pub fn empty_latency(span: Span) -> Self {
        Self::new(
            "model::latency",
            "`latency` gives no percentile".to_owned(),
            span,
            "empty",
        )
        .help("write at least one, such as `latency: {p50: 20ms, p99: 120ms}`, or leave `latency` out")
    }

    /// A percentile of a latency below a lower one.
    pub fn latency_order(
        span: Span,
        key: &str,
        value: &str,
        (lower, lower_value): (&str, &str),
        lower_span: Span,
    ) -> Self {
        Self::new(
            "model::latency",
            format!("`{key}: {value}` is below `{lower}: {lower_value}`"),
            span,
            format!("below the {lower}"),
        )
        .related(lower_span, format!("the {lower}"))
        .help("a higher percentile is never faster: p50 ≤ p90 ≤ p95 ≤ p99 ≤ p999; check the units (`ms` or `s`)")
    }

    /// An edge's bulkhead larger than the caller's request pool.
    pub fn pool_above_workers(span: Span, pool: u32, workers: u32, workers_span: Span) -> Self {
        Self::new(
            "model::pool",
            format!("`pool: {pool}` is above the caller's `workers: {workers}`"),
            span,
            "larger than the caller's pool",
        )
        .related(workers_span, "the caller's workers")
        .help(format!(
            "a bulkhead is a share of the caller's workers: give at most {workers} (and less, so that the other calls keep some), or raise `workers`"
        ))
    }

    /// A hedge on an edge whose targets have a single instance between them.
    pub fn hedge_one_instance(span: Span, target: &str) -> Self {
        Self::new(
            "model::hedge",
            format!(
                "`hedge` sends a second attempt to another instance, but `{}` has one instance",
                printable(target)
            ),
            span,
            "no other instance to hedge to",
        )
        .help(format!(
            "give `{}` `instances: 2` or more, list alternatives with `any_of`, or remove `hedge`",
            printable(target)
        ))
    }

    /// A breaker or hedge figure that makes it do nothing, or always act.
    pub fn pointless(span: Span, what: &str, why: &str, fix: &str) -> Self {
        Self::new("model::pointless", what.to_owned(), span, why.to_owned()).help(fix.to_owned())
    }

    /// `--set COMPONENT.depends_on[TARGET].FIELD=VALUE` where no edge of
    /// the component names TARGET (as a name, `target`, `any_of` or `of`).
    pub fn no_such_edge(span: Span, component: &str, target: &str, called: &[&str]) -> Self {
        let problem = Self::new(
            "model::unknown-reference",
            format!(
                "`{}` has no edge to `{}`",
                printable(component),
                printable(target)
            ),
            span,
            "no `depends_on` entry names it",
        );
        if called.is_empty() {
            return problem.help(format!(
                "`{}` has no `depends_on`; set the whole list: `--set '{}.depends_on=[{}]'`",
                printable(component),
                printable(component),
                printable(target)
            ));
        }
        match closest(target, called.iter().copied()) {
            Some(best) => problem.help(format!("did you mean `{best}`?")),
            None => problem.help(format!(
                "its edges call {}",
                called
                    .iter()
                    .map(|c| format!("`{}`", printable(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// `--set COMPONENT.depends_on[TARGET].FIELD=VALUE` where several edges
    /// of the component name TARGET.
    pub fn ambiguous_edge(span: Span, component: &str, target: &str, edges: usize) -> Self {
        Self::new(
            "model::ambiguous-edge",
            format!(
                "{edges} edges of `{}` name `{}`",
                printable(component),
                printable(target)
            ),
            span,
            "names more than one edge",
        )
        .help(format!(
            "set the whole list instead: `--set '{}.depends_on=[…]'`",
            printable(component)
        ))
    }

    /// `at_least` above the number of alternatives.
    pub fn at_least(span: Span, at_least: u32, alternatives: usize) -> Self {
        Self::new(
            "model::at-least",
            format!("`at_least: {at_least}` but `of` lists {alternatives}"),
            span,
            "can never be met",
        )
        .help(format!(
            "lower `at_least` to at most {alternatives}, or list more alternatives in `of`"
        ))
    }

    /// Shares of requests that add up to more than all of them (`share` on
    /// one component's edges), or not to all of them (the entrypoints'
    /// request mix).
    pub fn share_sum(span: Span, what: &str, sum: f64, want: &str) -> Self {
        let percent = crate::human::percent(sum, 4);
        Self::new(
            "model::share",
            format!("the {what} add up to {percent}"),
            span,
            format!("brings the sum to {percent}"),
        )
        .help(format!(
            "shares are parts of one whole: make them add up to {want}"
        ))
    }

    /// A list that needs two entries or more to mean anything.
    pub fn at_least_two(span: Span, what: &str, why: &str) -> Self {
        Self::new(
            "model::too-few",
            format!("{what} lists fewer than two"),
            span,
            "needs two or more",
        )
        .help(why.to_owned())
    }

    /// Two keys that must come together, one missing.
    pub fn needs_partner(span: Span, key: &str, partner: &str, why: &str) -> Self {
        Self::new(
            "model::pair",
            format!("`{key}` is given without `{partner}`"),
            span,
            format!("needs `{partner}`"),
        )
        .help(format!("add `{partner}`: {why}"))
    }

    /// A key that only an entrypoint reads, on a component that is not one.
    pub fn entrypoint_only(span: Span, key: &str, component: &str, why: &str) -> Self {
        Self::new(
            "model::entrypoint-only",
            format!("`{key}` is given on {component}, which is not an entrypoint"),
            span,
            "read only on an entrypoint",
        )
        .help(format!(
            "move `{key}` to the entrypoint whose promise it is, or list {component} in `entrypoints`: {why}"
        ))
    }

    /// Two keys that exclude each other.
    pub fn exclusive(span: Span, key: &str, other: &str, other_span: Span, why: &str) -> Self {
        Self::new(
            "model::exclusive",
            format!("`{key}` and `{other}` are both given"),
            span,
            format!("conflicts with `{other}`"),
        )
        .related(other_span, format!("`{other}` given here"))
        .help(why.to_owned())
    }

    /// A dependency entry whose shape is not one of the four forms.
    pub fn edge_shape(span: Span, found: &[&str]) -> Self {
        let message = if found.is_empty() {
            "this dependency names no target".to_owned()
        } else {
            format!("this dependency has {}", found.join(" and "))
        };
        Self::new("model::dependency", message, span, "ambiguous dependency").help(
            "give exactly one of `target: NAME`, `any_of: [..]`, or `at_least: K` with `of: [..]`",
        )
    }

    /// An `accepted` id that is not `<rule>/<subject>`.
    pub fn accepted_id(span: Span, id: &str) -> Self {
        Self::new(
            "model::accepted",
            format!("`{}` is not a finding id", printable(id)),
            span,
            "expected <rule>/<subject>",
        )
        .help("copy the id from `nines check` output, for example `spof/postgres` or `headroom/api/az-a`")
    }

    /// An `accepted` entry naming an unknown rule.
    pub fn accepted_rule<'a>(
        span: Span,
        rule: &str,
        rules: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let problem = Self::new(
            "model::accepted",
            format!("no rule is called `{}`", printable(rule)),
            span,
            "unknown rule",
        );
        match closest(rule, rules) {
            Some(best) => problem.help(format!(
                "did you mean `{best}`? `nines explain` lists the rules"
            )),
            None => problem.help("`nines explain` lists the rules"),
        }
    }

    /// No entrypoint can be found.
    pub fn no_entrypoint(span: Span) -> Self {
        Self::new(
            "model::entrypoints",
            "no entrypoint: every component is called by another".into(),
            span,
            "every component here has a caller",
        )
        .help("list where requests enter with `entrypoints: [NAME, ...]`")
    }

    // ---- importing Kubernetes manifests ----

    /// A manifest file larger than [`super::load::MAX_MODEL_BYTES`].
    pub fn input_too_large(bytes: usize) -> Self {
        Self::new(
            "import::too-large",
            format!("this file is {bytes} bytes; nines reads files up to 64 MiB"),
            Span::new(0, 0),
            "this file",
        )
        .help("split the manifests into several files, or give only the workloads to import")
    }

    /// A YAML document that is not a Kubernetes object: no `kind` or no
    /// `apiVersion`, or not a mapping at all.
    pub fn not_kubernetes(span: Span, missing: &str) -> Self {
        Self::new(
            "import::not-kubernetes",
            format!("this YAML document is not a Kubernetes manifest: {missing}"),
            span,
            "not a Kubernetes object",
        )
        .help("a manifest is a mapping with `apiVersion`, `kind` and `metadata.name`; give the files `kubectl apply` takes (or `kubectl get -o yaml` output)")
    }

    /// A Helm chart template: YAML only once Helm has rendered it.
    pub fn helm_template(span: Span) -> Self {
        Self::new(
            "import::helm-template",
            "this is a Helm template, not a manifest: `{{ … }}` is filled in by Helm".into(),
            span,
            "template expression",
        )
        .help("render the chart first (`helm template RELEASE CHART > manifests.yaml`) and import the rendered file")
    }

    // ---- importing a service graph from traces ----

    /// A dependency list that is not valid JSON.
    pub fn trace_json(span: Span, message: &str) -> Self {
        Self::new(
            "import::json",
            format!("invalid JSON: {message}"),
            span,
            "here",
        )
        .help("save the response body as it is (`curl -s URL > deps.json`); check that every `[`, `{` and quote is closed")
    }

    /// A key written twice in one JSON object of a dependency list.
    pub fn trace_duplicate_key(span: Span, key: &str) -> Self {
        Self::new(
            "import::json",
            format!(
                "the key \"{}\" is written twice in one object",
                printable(key)
            ),
            span,
            "the second time",
        )
        .help("which of the two values is meant cannot be told: save the response of the tracing backend unchanged, or remove one")
    }

    /// A value of a dependency list with the wrong type or range; `path` is
    /// its JSON path (`data[3].callCount`).
    pub fn trace_value(span: Span, path: &str, expected: &str, found: &str) -> Self {
        Self::new(
            "import::trace-value",
            format!("`{path}` must be {expected}, found {found}"),
            span,
            format!("expected {expected}"),
        )
        .help("docs/import.md shows each format nines reads; give the response of the tracing backend unchanged")
    }

    /// A key a dependency entry needs is missing; `path` is the entry's
    /// JSON path.
    pub fn trace_missing(span: Span, path: &str, key: &str, format: &str) -> Self {
        Self::new(
            "import::trace-missing",
            format!("`{path}` has no `{key}`"),
            span,
            format!("a {format} entry needs `{key}`"),
        )
        .help("docs/import.md shows each format nines reads; give the response of the tracing backend unchanged")
    }

    /// A file that is none of the formats `import traces` reads.
    pub fn not_dependencies(span: Span, why: &str) -> Self {
        Self::new(
            "import::not-traces",
            format!("this is not a dependency list nines reads: {why}"),
            span,
            "not a dependency list",
        )
        .help("give a Jaeger `/api/dependencies` or Zipkin `/api/v2/dependencies` response, a Prometheus query result (`/api/v1/query`, resultType vector) or the text exposition of `traces_service_graph_request_total`")
    }

    /// Counts that add up past what nines counts (`what`: "the calls of
    /// `a` → `b`"), at the sample that passed it.
    pub fn trace_sum(span: Span, what: &str, sum: f64) -> Self {
        Self::new(
            "import::trace-overflow",
            format!(
                "{what} add up to {} over the inputs, more than the 10³⁰⁰ nines adds up",
                crate::human::amount(sum)
            ),
            span,
            "the sum passes 10³⁰⁰ here",
        )
        .help("a count is the calls of one window: check the query (a counter since the process started, summed over years, or the same series given twice), or give fewer inputs")
    }

    /// Calls per request that no number can hold: `calls` of `caller` →
    /// `target` against the `received` requests of the caller.
    pub fn trace_per_request(
        span: Span,
        caller: &str,
        target: &str,
        calls: f64,
        received: f64,
    ) -> Self {
        Self::new(
            "import::trace-overflow",
            format!(
                "`{}` calls `{}` {} times over the window but receives {} requests: the calls per request are more than a number holds",
                printable(caller),
                printable(target),
                crate::human::amount(calls),
                crate::human::amount(received)
            ),
            span,
            "these calls",
        )
        .help("the counts of one input are of one window: check that the inputs cover the same window, and that none is scaled")
    }

    /// The merged text would change or remove a value of the model (`how`:
    /// "removed", "written as …"), at the value.
    pub fn merge_changes(span: Span, path: &str, how: &str) -> Self {
        Self::new(
            "import::merge",
            format!("merging would change `{path}` of this model ({how}): nothing was written"),
            span,
            "this value",
        )
        .help(MERGE_BUG)
    }

    /// The merged text would hold something the merge does not list.
    pub fn merge_adds(span: Span, path: &str) -> Self {
        Self::new(
            "import::merge",
            format!(
                "merging would add `{path}`, which the merge does not list: nothing was written"
            ),
            span,
            "written here",
        )
        .help(MERGE_BUG)
    }

    /// The merged model would lack an addition the summary lists.
    pub fn merge_misses(span: Span, what: &str) -> Self {
        Self::new(
            "import::merge",
            format!(
                "the merged model would lack {what}, which the merge adds: nothing was written"
            ),
            span,
            "here",
        )
        .help(MERGE_BUG)
    }

    /// The merged text would not be a valid model (`why`: its first
    /// problem), at the place of the model text it comes from.
    pub fn merge_invalid(span: Span, why: &str) -> Self {
        Self::new(
            "import::merge",
            format!("the merged text would not be a valid model ({why}): nothing was written"),
            span,
            "written here",
        )
        .help(MERGE_BUG)
    }

    /// A line of Prometheus text exposition that cannot be read.
    pub fn exposition_line(span: Span, why: &str) -> Self {
        Self::new(
            "import::exposition",
            format!("cannot read this sample: {why}"),
            span,
            "here",
        )
        .help("a sample is `name{label=\"value\",…} value [timestamp]`, as `/metrics` serves it")
    }
}

/// What to do when a merge would not keep the model as written.
const MERGE_BUG: &str = "the merge checks its result before writing it, and this one failed: a bug of nines; please report it with the model. `nines import traces FILE` writes what the traces show as a model to copy from";

/// The closest candidate by edit distance, when close enough to be a typo
/// (the smallest distance, then the first in byte order).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let mut bag = Bag::of(word);
    candidates
        .into_iter()
        .filter(|candidate| bag.distance(candidate, limit) <= limit)
        .map(|candidate| (edit_distance(word, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

/// The characters of a word counted, to rule most candidates out before
/// the edit distance is computed: the bag distance (the larger of the
/// characters one has and the other lacks, counted with repeats) is never
/// more than the edit distance, as an insertion, a deletion or a
/// substitution changes each count by at most one and a transposition by
/// none. On a million names it takes a search from 0.25 s to about 0.02 s.
struct Bag {
    /// Count of each character, those past ASCII sharing slots (which only
    /// lowers the distance, so it stays a lower bound).
    counts: [i32; 256],
    /// Characters in the word.
    len: usize,
}

impl Bag {
    fn slot(c: char) -> usize {
        let code = c as usize;
        if code < 128 { code } else { 128 + code % 128 }
    }

    fn of(word: &str) -> Self {
        let mut counts = [0; 256];
        let mut len = 0;
        for c in word.chars() {
            counts[Self::slot(c)] += 1;
            len += 1;
        }
        Self { counts, len }
    }

    /// The bag distance to `other`, or some number over `limit` once it is
    /// known to be over (the counts are left as they were).
    fn distance(&mut self, other: &str, limit: usize) -> usize {
        let mut extra = 0;
        let mut seen = 0;
        let mut over = false;
        for c in other.chars() {
            let count = &mut self.counts[Self::slot(c)];
            *count -= 1;
            seen += 1;
            if *count < 0 {
                extra += 1;
                if extra > limit {
                    over = true;
                    break;
                }
            }
        }
        for c in other.chars().take(seen) {
            self.counts[Self::slot(c)] += 1;
        }
        if over {
            return extra;
        }
        // Of the word's characters, those the other matched.
        let matched = seen - extra;
        extra.max(self.len - matched)
    }
}

/// Damerau-Levenshtein distance (optimal string alignment), by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// User text made safe to echo into a terminal or CI log: control characters
/// and bidirectional overrides are escaped, and very long text is cut.
pub fn printable(text: &str) -> String {
    let mut out = String::new();
    for (index, c) in text.chars().enumerate() {
        if index == 60 {
            out.push('…');
            break;
        }
        // Control characters, and the bidirectional overrides that would
        // reorder what the reader sees around them.
        if crate::escape::is_unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos_and_transpositions() {
        assert_eq!(
            closest("instnaces", ["instances", "placement"]),
            Some("instances")
        );
        assert_eq!(closest("postgress", ["postgres", "api"]), Some("postgres"));
        assert_eq!(closest("zzz", ["postgres", "api"]), None);
    }

    #[test]
    fn the_bag_never_rules_out_a_candidate_the_distance_keeps() {
        // Every pair of words over a small alphabet, with a non-ASCII
        // letter and repeats: the bag distance is at most the edit
        // distance, so `closest` finds what a plain scan finds.
        let letters = [
            "a", "b", "é", "ab", "ba", "aab", "bé", "éa", "abé", "bbaa", "aébé",
        ];
        let words: Vec<String> = letters
            .iter()
            .flat_map(|x| letters.iter().map(move |y| format!("{x}{y}")))
            .collect();
        for word in &words {
            let mut bag = Bag::of(word);
            for other in &words {
                let distance = edit_distance(word, other);
                for limit in 0..4 {
                    let bound = bag.distance(other, limit);
                    assert!(
                        bound > limit || bound <= distance,
                        "{word} {other}: bag {bound}, edit {distance}"
                    );
                    if distance <= limit {
                        assert!(bound <= limit, "{word} {other} ruled out at {limit}");
                    }
                }
            }
            let scan = words
                .iter()
                .map(|c| (edit_distance(word, c), c.as_str()))
                .filter(|&(d, _)| d <= (word.chars().count() / 3).max(1))
                .min()
                .map(|(_, c)| c);
            assert_eq!(closest(word, words.iter().map(String::as_str)), scan);
        }
        // "m2-12345" against "l2-54321": m for l, the digits the same:
        // bag distance 1 (edit distance 3).
        assert_eq!(Bag::of("m2-12345").distance("l2-54321", 2), 1);
        // Against "l2-99999": l, 9, 9, 9, 9 extra, over the limit of 2 at
        // the third.
        assert!(Bag::of("m2-12345").distance("l2-99999", 2) > 2);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\u{1b}[31m"), "a\\u{1b}[31m");
    }
}
