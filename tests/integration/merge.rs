//! `import traces --merge` on the layouts that lost values, claimed
//! additions it did not write or refused valid models (issue 23, items 1
//! to 6 and the refusals): each merge here exits 0, keeps every value of
//! the model at its path, has every edge and component its summary lists,
//! and merging again changes no byte.

use std::collections::BTreeMap;

use nines::cli::Outcome;
use nines::model::load::{Node, Value, parse as tree};

use crate::{Run, nines};

/// `nines import traces TRACES --merge MODEL` on the two texts.
pub(crate) fn merge(test: &str, model: &str, traces: &str) -> Run {
    let dir = crate::Scratch::new(test);
    let (m, t) = (dir.join("m.yaml"), dir.join("t.json"));
    std::fs::write(&m, model).unwrap();
    std::fs::write(&t, traces).unwrap();
    nines(&[
        "import",
        "traces",
        t.to_str().unwrap(),
        "--merge",
        m.to_str().unwrap(),
    ])
}

/// A Zipkin dependency list of `(parent, child, calls)`.
pub(crate) fn zipkin(edges: &[(&str, &str, u32)]) -> String {
    let links: Vec<serde_json::Value> = edges
        .iter()
        .map(|(p, c, n)| serde_json::json!({"parent": p, "child": c, "callCount": n}))
        .collect();
    serde_json::Value::from(links).to_string()
}

/// Every value of a tree by its path (`components.web.kind`), aliases
/// expanded; an empty mapping or list is a value of its own (`{}`, `[]`).
pub(crate) fn leaves(node: &Node, path: &str, out: &mut BTreeMap<String, String>) {
    match &node.value {
        Value::Map(entries) if !entries.is_empty() => {
            for (key, value) in entries {
                let key = match &key.value {
                    Value::Str(s) => s.clone(),
                    other => format!("{other:?}"),
                };
                leaves(value, &format!("{path}.{key}"), out);
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                leaves(item, &format!("{path}[{index}]"), out);
            }
        }
        other => {
            out.insert(path.to_owned(), format!("{other:?}"));
        }
    }
}

/// The values of `before` that `after` lost or changed (an empty mapping
/// or list may gain entries).
pub(crate) fn lost(before: &str, after: &str) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(&tree(before).expect("the model parses"), "", &mut a);
    let Ok(merged) = tree(after) else {
        return vec!["the merged text does not parse".to_owned()];
    };
    leaves(&merged, "", &mut b);
    a.into_iter()
        .filter(|(path, value)| {
            if let Some(v) = b.get(path) {
                v != value
            } else {
                let empty = value == "Map([])" || value == "Seq([])";
                !(empty && b.keys().any(|k| k.starts_with(path.as_str())))
            }
        })
        .map(|(path, value)| format!("{path} = {value}"))
        .collect()
}

/// The edges and components the summary lists that the merged model lacks.
pub(crate) fn missing(stderr: &str, merged: &str) -> Vec<String> {
    let Ok(model) = nines::model::parse(merged) else {
        return vec!["the merged model is not valid".to_owned()];
    };
    let has = |caller: &str, target: &str| {
        model.components.iter().any(|c| {
            c.name == caller
                && c.depends_on
                    .iter()
                    .any(|e| e.targets.iter().any(|&t| model.component(t).name == target))
        })
    };
    let mut out = Vec::new();
    for line in stderr.lines() {
        if let Some(edge) = line.trim().strip_prefix("added edge ")
            && let Some((a, b)) = edge.split_once(" → ")
            && !has(a, b)
        {
            out.push(line.to_owned());
        }
        if let Some(name) = line.trim().strip_prefix("added component ")
            && !model.components.iter().any(|c| c.name == name)
        {
            out.push(line.to_owned());
        }
    }
    out
}

/// Merges, asserts the merge kept, added and settled, and returns the run.
fn merged(test: &str, model: &str, traces: &str) -> Run {
    let run = merge(test, model, traces);
    assert_eq!(run.outcome, Outcome::Pass, "refused:\n{}", run.stderr);
    assert_eq!(
        lost(model, &run.stdout),
        Vec::<String>::new(),
        "{}",
        run.stdout
    );
    assert_eq!(
        missing(&run.stderr, &run.stdout),
        Vec::<String>::new(),
        "{}",
        run.stdout
    );
    let again = merge(&format!("{test}-again"), &run.stdout, traces);
    assert_eq!(again.outcome, Outcome::Pass, "{}", again.stderr);
    assert_eq!(again.stdout, run.stdout, "merging again changed the text");
    assert!(
        again.stderr.contains("added 0 components, 0 edges"),
        "{}",
        again.stderr
    );
    run
}

fn component<'a>(model: &'a nines::model::Model, name: &str) -> &'a nines::model::Component {
    model
        .components
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no component {name}"))
}

fn targets(model: &nines::model::Model, name: &str) -> Vec<String> {
    component(model, name)
        .depends_on
        .iter()
        .flat_map(|e| e.targets.iter().map(|&t| model.component(t).name.clone()))
        .collect()
}

// ---- 1. multi-line strings ----

#[test]
fn a_string_continued_left_of_its_component_keeps_the_edge_out() {
    // The continuation line is indented no deeper than `web`: a scan by
    // indentation ended web's block there and wrote `depends_on` inside
    // the string.
    let model =
        "system: s\ncomponents:\n  web:\n    kind: \"a long\n  text that continues\"\n  db: {}\n";
    let run = merged("string-web", model, &zipkin(&[("web", "db", 3)]));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db"]);
    assert_eq!(
        component(&m, "web").kind.as_deref(),
        Some("a long text that continues")
    );
    // At the end of `components`: new components went inside the last
    // component's string.
    let model = "system: s\ncomponents:\n  web:\n    kind: \"a long\n  text that continues\"\n";
    let run = merged("string-end", model, &zipkin(&[("web", "db", 3)]));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db"]);
    component(&m, "db");
}

// ---- 2. a `# load:` line inside a string ----

#[test]
fn a_load_line_inside_a_string_is_text_not_a_comment() {
    // The string's second line reads as an importer's `# load:` comment at
    // web's keys' indentation: it was replaced, changing the string.
    let model = "system: s\ncomponents:\n  web:\n    kind: \"a\n    # load: N   # fill in: peak load\n    b\"\n  db:\n    kind: |\n      # load: N   # fill in: peak load\n      a literal\n";
    let run = merged(
        "load-in-string",
        model,
        &zipkin(&[("lb", "web", 36), ("web", "db", 36)]),
    );
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(
        component(&m, "web").kind.as_deref(),
        Some("a # load: N   # fill in: peak load b")
    );
    assert_eq!(
        component(&m, "db").kind.as_deref(),
        Some("# load: N   # fill in: peak load\na literal\n")
    );
    // web and db receive 36 calls in 1 h = 0.01 per second: lines of their
    // own, after the strings.
    assert_eq!(
        run.stdout.matches("    # load: 0.01 ").count(),
        2,
        "{}",
        run.stdout
    );
}

// ---- 3. components in flow style ----

#[test]
fn a_new_component_goes_inside_a_one_line_components_mapping() {
    let model = "system: s\ncomponents: {web: {depends_on: [db]}, db: {}}\ndomains:\n  az-a: {kind: zone}\n";
    let run = merged("flow-components", model, &zipkin(&[("web", "q", 3)]));
    assert!(
        run.stdout
            .contains("components: {web: {depends_on: [db, q]}, db: {}, q: {kind: service}}\n"),
        "{}",
        run.stdout
    );
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db", "q"]);
    assert_eq!(m.domains.len(), 1, "no domain q");
}

// ---- 4. carriage returns alone ----

#[test]
fn carriage_returns_alone_are_line_breaks_for_the_merge_too() {
    let model =
        "system: s\rcomponents:\r  web:\r    kind: service\rdomains:\r  az-a: {kind: zone}\r";
    let run = merged("cr-model", model, &zipkin(&[("web", "q", 3)]));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["q"]);
    component(&m, "q");
    assert!(!run.stdout.contains('\n'), "only the file's own breaks");
    // A bare CR inside a component: the edge went into `recovery.needs`, or
    // continued a plain scalar (`kind: service - q`).
    let model = "system: s\ncomponents:\n  web:\r    kind: service\r    recovery: {rto: 1h, rpo: 5m}\n  db: {kind: datastore}\n";
    let run = merged("cr-inside", model, &zipkin(&[("web", "db", 3)]));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db"]);
    assert_eq!(component(&m, "web").kind.as_deref(), Some("service"));
}

// ---- 5. a user's `# load:` comment ----

#[test]
fn a_hand_written_load_comment_is_kept() {
    let model = "system: s\ncomponents:\n  web:\n    kind: service\n    # load: 3000   # peak from the load test, keep\n  db: {}\n";
    let run = merged("user-load", model, &zipkin(&[("lb", "web", 36)]));
    assert!(
        run.stdout
            .contains("    # load: 3000   # peak from the load test, keep\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "measured load of web: 0.01 per second, not written (its own `# load:` comment is kept)"
        ),
        "{}",
        run.stderr
    );
    // One an importer wrote is replaced (`# fill in:` marks it).
    let model = "system: s\ncomponents:\n  web:\n    kind: service\n    # load: N                           # fill in: peak load on the whole component\n  db: {}\n";
    let run = merged("k8s-load", model, &zipkin(&[("lb", "web", 36)]));
    assert!(
        run.stdout
            .contains("    kind: service\n    # load: 0.01    "),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("# fill in: peak load"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_users_load_comment_in_the_importers_words_is_kept() {
    // The user's note starts `# measured:` like the importer's, but is not
    // its phrase (`N calls in WINDOW, a window average, not a peak; …`):
    // it was replaced by lb's 36 calls in 1 h, 0.01 per second.
    let user = "    # load: 3000   # measured: load test of 2026-10, peak\n";
    let model = format!("system: s\ncomponents:\n  web:\n    kind: service\n{user}  db: {{}}\n");
    let run = merged("user-measured", &model, &zipkin(&[("lb", "web", 36)]));
    // Byte for byte, and no second `# load:` written under web.
    assert!(run.stdout.contains(user), "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("# load: 0.01").count(),
        0,
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "measured load of web: 0.01 per second, not written (its own `# load:` comment is kept)"
        ),
        "{}",
        run.stderr
    );
    // The importers' own phrases are replaced: `import traces` (and an
    // earlier merge) wrote 0.5 = 1800 calls in 1 h, now 36 calls in 1 h
    // make 0.01; `import traces` wrote `N` for a service nothing called.
    for imported in [
        "    # load: 0.5                         # measured: 1800 calls in 1h, a window average, not a peak; uncomment with `capacity`\n",
        "    # load: N                           # fill in: nothing in the traces calls it, so its request rate is not in them\n",
    ] {
        let model =
            format!("system: s\ncomponents:\n  web:\n    kind: service\n{imported}  db: {{}}\n");
        let run = merged("imported-measured", &model, &zipkin(&[("lb", "web", 36)]));
        // web's block as a whole: the 0.01 line in place of the old one.
        assert!(
            run.stdout.contains(
                "    kind: service\n    # load: 0.01                        # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`\n  db: {}\n"
            ),
            "{}",
            run.stdout
        );
    }
}

// ---- 6. line endings and indentation ----

#[test]
fn a_crlf_model_gets_crlf_lines_and_four_spaces_stay_four() {
    let model = "system: s\r\ncomponents:\r\n    web:\r\n        kind: service\r\n    db: {}\r\n";
    let run = merged("crlf", model, &zipkin(&[("web", "db", 3), ("web", "q", 3)]));
    assert!(
        !run.stdout.replace("\r\n", "").contains('\n'),
        "mixed line endings:\n{:?}",
        run.stdout
    );
    // web's keys are 4 deeper than its name: so are depends_on's items,
    // and the new component's keys.
    assert!(
        run.stdout
            .contains("        depends_on:\r\n            - db "),
        "{:?}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("\r\n    q:\r\n        kind: service\r\n"),
        "{:?}",
        run.stdout
    );
}

// ---- refused although valid ----

#[test]
fn a_service_named_like_a_domain_or_group_is_renamed() {
    let model = "system: s\ndomains:\n  zone-a: {kind: zone}\nshared_fate:\n  deploy: {}\ncomponents:\n  web:\n    placement: [zone-a]\n";
    let traces = zipkin(&[("web", "zone-a", 3), ("web", "deploy", 3)]);
    let run = merged("domain-name", model, &traces);
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["deploy-2", "zone-a-2"]);
    assert!(
        run.stderr
            .contains("added zone-a as zone-a-2: a domain or group of the model is named zone-a"),
        "{}",
        run.stderr
    );
    // `check --observed` matches them as the merge does: no drift left.
    let dir = crate::Scratch::new("domain-drift");
    let (m, t) = (dir.join("m.yaml"), dir.join("t.json"));
    std::fs::write(&m, &run.stdout).unwrap();
    std::fs::write(&t, &traces).unwrap();
    let check = nines(&[
        "check",
        m.to_str().unwrap(),
        "--observed",
        t.to_str().unwrap(),
        "--only",
        "drift",
    ]);
    assert_eq!(check.outcome, Outcome::Pass, "{}", check.stdout);
}

#[test]
fn a_model_without_entrypoints_whose_only_root_is_called_gets_them_written() {
    // web is the only component nothing calls; the traces show db calling
    // it, so the merged model would have no entrypoint.
    let model = "system: s\ncomponents:\n  web:\n    depends_on: [db]\n  db: {}\n";
    let run = merged(
        "no-entrypoints",
        model,
        &zipkin(&[("web", "db", 3), ("db", "web", 1)]),
    );
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(m.entrypoints.len(), 1);
    assert_eq!(m.component(m.entrypoints[0]).name, "web");
    assert!(
        run.stdout.contains("\nentrypoints: [web]  "),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("wrote entrypoints: [web]"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_space_indentation_flow_lists_on_the_next_line_and_trailing_commas() {
    let model = "system: s\ncomponents:\n web:\n  kind: service\n db: {}\n";
    let run = merged(
        "one-space",
        model,
        &zipkin(&[("web", "db", 3), ("web", "q", 3)]),
    );
    assert!(
        run.stdout.contains("\n  depends_on:\n   - db "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n q:\n  kind: service\n"),
        "{}",
        run.stdout
    );
    let model = "system: s\ncomponents:\n  web:\n    depends_on:\n      [db]\n  db: {}\n  q: {}\n";
    let run = merged("next-line", model, &zipkin(&[("web", "q", 3)]));
    assert!(run.stdout.contains("      [db, q]\n"), "{}", run.stdout);
    let model = "system: s\ncomponents:\n  web:\n    depends_on: [db,]\n  db: {}\n  q: {}\n";
    let run = merged("trailing-comma", model, &zipkin(&[("web", "q", 3)]));
    assert!(
        run.stdout.contains("    depends_on: [db, q,]\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn comments_left_of_a_component_inside_its_block() {
    let model = "system: s\ncomponents:\n  web:\n    kind: service\n# a note at column 0\n  # and one at the component's\n    instances: 2\n  db: {}\n";
    let run = merged("left-comments", model, &zipkin(&[("web", "db", 3)]));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db"]);
    assert_eq!(component(&m, "web").instances, 2);
}

#[test]
fn a_model_written_as_json_or_in_flow_style() {
    let model = r#"{"system": "s", "components": {"web": {"depends_on": ["db"]}, "db": {}}}"#;
    let run = merged(
        "json",
        model,
        &zipkin(&[("web", "db", 3), ("web", "q", 3), ("q", "db", 3)]),
    );
    // Still JSON: no comment, every key quoted.
    serde_json::from_str::<serde_json::Value>(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "web"), ["db", "q"]);
    assert_eq!(targets(&m, "q"), ["db"]);
    let model = "{system: s, components: {web: {kind: service}, db: {}}}\n";
    let run = merged("flow", model, &zipkin(&[("web", "db", 3)]));
    assert!(
        run.stdout.contains(
            "{system: s, components: {web: {kind: service, depends_on: [db]}, db: {}}}\n"
        ),
        "{}",
        run.stdout
    );
}

// ---- explicit keys ----

#[test]
fn a_component_with_an_explicit_key_takes_new_components_at_its_entry() {
    // `? web` puts web's key scalar at column 4, its entry (the `?`) at
    // column 2 like db's: a new component at the key's column, 4, is no
    // entry of `components` and the merge refused as "a bug of nines".
    let model = "system: s\ncomponents:\n  ? web\n  : kind: service\n  db: {}\n";
    let run = merged("explicit-key", model, &zipkin(&[("db", "q", 3)]));
    // q at the entries' column 2, its keys 2 deeper (from `: kind` at 4,
    // the entry at 2); db's edge inside its braces.
    assert!(
        run.stdout
            .contains("  : kind: service\n  # added from traces: db → q: 3 calls in 1h; calls per request unknown: db's own rate is not in the traces; 100% without error\n  db: {depends_on: [q]}\n\n  q:\n    kind: service\n"),
        "{}",
        run.stdout
    );
    let m = nines::model::parse(&run.stdout).unwrap();
    assert_eq!(targets(&m, "db"), ["q"]);
    assert_eq!(component(&m, "web").kind.as_deref(), Some("service"));
    // web's own edge and load go after its block, below the comment
    // indented under it (deeper than the entry's column 2, not than the
    // key scalar's 4, where it would be left below the new lines).
    let model = "system: s\ncomponents:\n  ? web\n  : kind: service\n    # capacity: N   # a note of web\n  db: {}\n";
    let run = merged(
        "explicit-key-edge",
        model,
        &zipkin(&[("lb", "web", 36), ("web", "db", 36)]),
    );
    // lb's 36 calls in 1 h are 0.01 per second, and web calls db once per
    // request (36 of 36).
    assert!(
        run.stdout.contains("  : kind: service\n    # capacity: N   # a note of web\n    # load: 0.01                        # measured: 36 calls in 1h, a window average, not a peak; uncomment with `capacity`\n    depends_on:\n      - {target: db, calls: 1}          # added from traces: 36 calls in 1h; 100% without error\n  db: {}\n"),
        "{}",
        run.stdout
    );
    // A tag on the first key (`!!str web`) moved the key scalar too, to
    // column 8.
    let model = "system: s\ncomponents:\n  !!str web:\n    kind: service\n  db: {}\n";
    let run = merged("tagged-key", model, &zipkin(&[("web", "q", 3)]));
    assert!(
        run.stdout.contains("  db: {}\n\n  q:\n    kind: service\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        targets(&nines::model::parse(&run.stdout).unwrap(), "web"),
        ["q"]
    );
}

// ---- a refusal writes nothing ----

#[test]
fn a_refused_merge_exits_2_and_writes_no_file() {
    // The root merges its components in with `<<`: the text has no
    // `components` key to write into, so the merge's check refuses it
    // (exit 2) rather than write the new edge web → q somewhere else.
    let model = "system: s\n<<: {components: {web: {}, db: {}}}\n";
    let dir = crate::Scratch::new("refused-output");
    let (m, t, out) = (dir.join("m.yaml"), dir.join("t.json"), dir.join("out.yaml"));
    std::fs::write(&m, model).unwrap();
    std::fs::write(&t, zipkin(&[("web", "q", 3)])).unwrap();
    let run = nines(&[
        "import",
        "traces",
        t.to_str().unwrap(),
        "--merge",
        m.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.outcome, Outcome::Invalid, "{}", run.stderr);
    // The reason, located, and that nothing was written.
    assert!(
        run.stderr
            .contains("× the merged text would not be a valid model (the model's `components` could\n  │ not be found in its text): nothing was written"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("error: the merge would not keep the model as written; nothing was written"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("merged: added"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(!out.exists(), "{} was written", out.display());
    assert_eq!(std::fs::read_to_string(&m).unwrap(), model);
}
