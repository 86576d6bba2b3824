//! Inputs that took quadratic time before issue 23, for its benchmark and
//! its linearity test: traced services and workloads whose names the name
//! rule maps to one base, a model and traces of the same size to merge and
//! compare (the traces name some services otherwise than the model), and a
//! chain of retrying components with capacity.

use std::fmt::Write as _;

/// The `i`-th name that the name rule maps to `base-`: `base` and a CJK
/// character, which becomes `-`.
fn one_base(base: &str, i: usize) -> String {
    let c = u32::try_from(i % 20_000).map_or('x', |i| char::from_u32(0x4E00 + i).unwrap_or('x'));
    format!("{base}{c}{}", i / 20_000)
}

/// A Jaeger dependency list of `n` calls `a… → b…`, every name mapping to
/// `a-…` or `b-…`: `n` names per base to number.
#[must_use]
pub fn one_base_traces(n: usize) -> String {
    let mut out = String::from("{\"data\": [");
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"parent\": \"{}\", \"child\": \"{}\", \"callCount\": 5}}",
            one_base("a", i),
            one_base("b", i)
        );
    }
    out.push_str("]}");
    out
}

/// `n` Deployments whose names map to one base.
#[must_use]
pub fn one_base_manifests(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let _ = write!(
            out,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"{}\"\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: c\n          image: nginx\n",
            one_base("a", i)
        );
    }
    out
}

/// A model of `2n` components in two chains, `c…` and `d…`, and a Jaeger
/// dependency list of the `c` chain, `n` more calls across it, and `n`
/// calls to services the model lacks (`new i` in the traces, `new-i` once
/// named): what `--merge` and `check --observed` compare. The `d`
/// components are not in the traces, so finding their service takes a
/// look-up that finds nothing (it was a scan of every service).
#[must_use]
pub fn merge_inputs(n: usize) -> (String, String) {
    let mut model = String::from("system: s\ncomponents:\n");
    for chain in ["c", "d"] {
        for i in 0..n {
            let _ = writeln!(model, "  {chain}{i}:\n    kind: service\n    instances: 2");
            if i + 1 < n {
                let _ = writeln!(model, "    depends_on: [{chain}{}]", i + 1);
            }
        }
    }
    let mut traces = String::from("{\"data\": [");
    let mut link = |parent: String, child: String, first: &mut bool| {
        if !*first {
            traces.push(',');
        }
        *first = false;
        let _ = write!(
            traces,
            "{{\"parent\": \"{parent}\", \"child\": \"{child}\", \"callCount\": 5}}"
        );
    };
    let mut first = true;
    for i in 0..n {
        if i + 1 < n {
            link(format!("c{i}"), format!("c{}", i + 1), &mut first);
        }
        let across = (i * 7 + 3) % n;
        if across != i {
            link(format!("c{i}"), format!("c{across}"), &mut first);
        }
        link(format!("c{i}"), format!("new {i}"), &mut first);
    }
    traces.push_str("]}");
    (model, traces)
}

/// `n` components in a chain, each retrying the next once and carrying
/// capacity: every prefix of the chain is a call path that `retry-storm`
/// judges.
#[must_use]
pub fn retry_chain(n: usize) -> String {
    let mut text = String::from("system: s\nentrypoints: [c0]\ncomponents:\n");
    for i in 0..n {
        let _ = writeln!(
            text,
            "  c{i}: {{capacity: 1000, load: 10, depends_on: [{{target: c{}, retries: 1}}]}}",
            i + 1
        );
    }
    let _ = writeln!(text, "  c{n}: {{capacity: 1000, load: 10}}");
    text
}
