//! `nines experiments --format chaostoolkit|chaos-mesh|fis`: every file of
//! every example model checked by its own tool where it is installed
//! (`chaos validate`, botocore's validator of FIS's
//! `CreateExperimentTemplate` through `validate_fis.py`), the Chaos Mesh
//! manifests against the fields of their CRDs here, a model of hostile
//! names whose files stay valid and select only its names, and snapshots
//! of each format. Without a tool its check prints that it skipped and why
//! (`.ci/run` installs them).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use nines::model::load::{Node, Value, parse_documents};
use serde_json::Value as Json;

use super::{Scratch, example_models, nines, settings, skip};

const FORMATS: [&str; 3] = ["chaostoolkit", "chaos-mesh", "fis"];

/// The files of every experiment of `model` (`--top 0`) in `format`,
/// written under `dir/<format>`, with the plan of `index.json`.
fn generate(model: &Path, format: &str, dir: &Path, extra: &[&str]) -> (Vec<PathBuf>, Json) {
    let out = dir.join(format);
    let model = model.to_string_lossy();
    let out_text = out.to_string_lossy();
    let mut args = vec![
        "experiments",
        model.as_ref(),
        "--top",
        "0",
        "--today",
        "2026-11-30",
        "--format",
        format,
        "-o",
        out_text.as_ref(),
    ];
    args.extend_from_slice(extra);
    let run = nines(&args);
    assert_eq!(
        run.outcome,
        nines::cli::Outcome::Pass,
        "{model} {format}: {}",
        run.stderr
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "index.json"))
        .collect();
    files.sort();
    let index: Json =
        serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
    (files, index)
}

/// Every example model's files in `format`.
fn every_example(format: &str, dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for (i, model) in example_models().iter().enumerate() {
        let (files, _) = generate(model, format, &dir.join(i.to_string()), &[]);
        assert!(!files.is_empty(), "{}: no experiment", model.display());
        all.extend(files);
    }
    all
}

/// Tells what a validator checked, on the process's standard error (as
/// [`skip`] does: visible in every run).
fn say(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// Whether `program --version` runs (in the temporary folder: `chaos`
/// writes `chaostoolkit.log` where it runs without `--no-log-file`).
fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .current_dir(std::env::temp_dir())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What a process printed, standard output then standard error.
fn printed(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `chaos validate FILE` (no log file written): its success and output.
fn chaos_validate(file: &Path) -> (bool, String) {
    let out = Command::new("chaos")
        .args(["--no-log-file", "validate"])
        .arg(file)
        .output()
        .unwrap();
    (out.status.success(), printed(&out))
}

/// `chaos validate` of each file in one interpreter (`chaos_validate.py`:
/// the command's own entry point, once per file): whether every file
/// passes, with what it printed.
fn chaos_validate_all(files: &[PathBuf]) -> (bool, String) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/integration/chaos_validate.py"
    );
    let out = Command::new("python3")
        .arg(script)
        .args(files)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(3),
        "`chaos` runs but chaostoolkit does not import for python3"
    );
    (out.status.success(), printed(&out))
}

/// Every file through `chaos validate` (the command itself for the first,
/// then all of them in one interpreter), failing on any it rejects;
/// `false` when `chaos` is not installed.
fn all_pass_chaos_validate(files: &[PathBuf]) -> bool {
    if !installed("chaos") {
        skip(
            "`chaos` (pip install chaostoolkit chaostoolkit-kubernetes chaostoolkit-prometheus logzero jsonpath2) is not on PATH: Chaos Toolkit files not validated",
        );
        return false;
    }
    // The activities' modules must import for `chaos validate` to check
    // their arguments: without them it would reject every file.
    let extensions = Command::new("python3")
        .args([
            "-c",
            "import chaosk8s.pod.actions, chaosk8s.chaosmesh.network.actions, chaosprometheus.probes, jsonpath2",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !extensions {
        skip(
            "chaostoolkit-kubernetes, chaostoolkit-prometheus (with logzero) or jsonpath2 is not installed for python3: Chaos Toolkit files not validated",
        );
        return false;
    }
    let Some(first) = files.first() else {
        return true;
    };
    let (ok, output) = chaos_validate(first);
    assert!(ok, "chaos validate {}:\n{output}", first.display());
    let (ok, output) = chaos_validate_all(files);
    assert!(ok, "chaos validate rejects files:\n{output}");
    say(&format!(
        "chaos validate: {} Chaos Toolkit files valid",
        files.len()
    ));
    true
}

/// `validate_fis.py` over `files`; `false` when python3 or botocore is
/// missing.
fn all_pass_botocore(files: &[PathBuf]) -> bool {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/integration/validate_fis.py"
    );
    let Ok(out) = Command::new("python3").arg(script).args(files).output() else {
        skip("python3 is not on PATH: FIS templates not validated");
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) {
        skip("botocore (pip install botocore) is not installed: FIS templates not validated");
        return false;
    }
    assert!(
        out.status.success(),
        "botocore rejects FIS templates:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    say(&format!("botocore: {}", text.trim()));
    true
}

// --- Chaos Mesh: the CRDs' fields, checked here ---------------------------

fn str_of(node: &Node) -> Option<&str> {
    match &node.value {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

fn get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    match &node.value {
        Value::Map(entries) => entries
            .iter()
            .find(|(k, _)| str_of(k) == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

fn keys(node: &Node) -> Vec<&str> {
    match &node.value {
        Value::Map(entries) => entries.iter().filter_map(|(k, _)| str_of(k)).collect(),
        _ => Vec::new(),
    }
}

fn strings(node: &Node) -> Vec<&str> {
    match &node.value {
        Value::Seq(items) => items.iter().filter_map(str_of).collect(),
        _ => Vec::new(),
    }
}

/// Every scalar of the document is a string (the writer quotes them all:
/// nothing is read as a number, a boolean or null).
fn only_strings(node: &Node, at: &str) {
    match &node.value {
        Value::Str(_) => {}
        Value::Seq(items) => items.iter().for_each(|i| only_strings(i, at)),
        Value::Map(entries) => entries.iter().for_each(|(k, v)| {
            only_strings(k, at);
            only_strings(v, at);
        }),
        other => panic!("{at}: a {} where the writer writes strings", other.kind()),
    }
}

fn dns_label(name: &str) -> bool {
    name.len() <= 63
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A Go duration as Chaos Mesh parses it (`300s`, `1500ms`, `1h30m`).
fn go_duration(text: &str) -> bool {
    let mut rest = text;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "ms", "s", "m", "h"]
            .into_iter()
            .filter(|u| rest.starts_with(u))
            .max_by_key(|u| u.len());
        let Some(unit) = unit else { return false };
        rest = &rest[unit.len()..];
    }
    true
}

/// What a selector selects: the namespaces, the label values by key, the
/// node label values by key.
#[derive(Debug, Default, PartialEq, Eq)]
struct Selected {
    namespaces: BTreeSet<String>,
    labels: BTreeSet<(String, String)>,
    nodes: BTreeSet<(String, String)>,
}

fn check_selector(node: &Node, at: &str) -> Selected {
    let allowed = [
        "namespaces",
        "labelSelectors",
        "expressionSelectors",
        "nodeSelectors",
        "annotationSelectors",
        "fieldSelectors",
        "podPhaseSelectors",
        "nodes",
        "pods",
    ];
    for k in keys(node) {
        assert!(allowed.contains(&k), "{at}: selector key {k}");
    }
    let mut selected = Selected::default();
    let namespaces = get(node, "namespaces").unwrap_or_else(|| panic!("{at}: no namespaces"));
    selected.namespaces = strings(namespaces).into_iter().map(str::to_owned).collect();
    if let Some(labels) = get(node, "labelSelectors") {
        for k in keys(labels) {
            let v = str_of(get(labels, k).unwrap()).unwrap();
            selected.labels.insert((k.to_owned(), v.to_owned()));
        }
    }
    if let Some(Value::Seq(exprs)) = get(node, "expressionSelectors").map(|n| &n.value) {
        for e in exprs {
            assert_eq!(keys(e), ["key", "operator", "values"], "{at}");
            assert_eq!(str_of(get(e, "operator").unwrap()), Some("In"), "{at}");
            let key = str_of(get(e, "key").unwrap()).unwrap();
            let values = strings(get(e, "values").unwrap());
            assert!(!values.is_empty(), "{at}: In with no values");
            for v in values {
                selected.labels.insert((key.to_owned(), v.to_owned()));
            }
        }
    }
    assert!(
        !selected.labels.is_empty(),
        "{at}: a selector of no label selects the whole namespace"
    );
    if let Some(nodes) = get(node, "nodeSelectors") {
        for k in keys(nodes) {
            let v = str_of(get(nodes, k).unwrap()).unwrap();
            selected.nodes.insert((k.to_owned(), v.to_owned()));
        }
    }
    selected
}

const MODES: [&str; 5] = ["one", "all", "fixed", "fixed-percent", "random-max-percent"];

/// One manifest against its CRD: what it kills or delays, its selectors.
fn check_manifest(doc: &Node, at: &str) -> (String, Vec<Selected>) {
    only_strings(doc, at);
    assert_eq!(
        keys(doc),
        ["apiVersion", "kind", "metadata", "spec"],
        "{at}"
    );
    assert_eq!(
        str_of(get(doc, "apiVersion").unwrap()),
        Some("chaos-mesh.org/v1alpha1"),
        "{at}"
    );
    let kind = str_of(get(doc, "kind").unwrap()).unwrap().to_owned();
    let metadata = get(doc, "metadata").unwrap();
    let name = str_of(get(metadata, "name").unwrap()).unwrap();
    assert!(
        dns_label(name),
        "{at}: name {name:?} is not a DNS-1123 label"
    );
    assert!(
        get(metadata, "namespace").and_then(str_of).is_some(),
        "{at}"
    );
    let annotations = get(metadata, "annotations").unwrap();
    assert!(
        get(annotations, "nines.dev/loss")
            .and_then(str_of)
            .is_some(),
        "{at}"
    );
    let prediction: Json =
        serde_json::from_str(str_of(get(annotations, "nines.dev/prediction").unwrap()).unwrap())
            .unwrap_or_else(|e| panic!("{at}: the prediction annotation is not JSON: {e}"));
    assert!(prediction["predictions"].is_array(), "{at}");
    let spec = get(doc, "spec").unwrap();
    let action = str_of(get(spec, "action").unwrap()).unwrap();
    let mode = str_of(get(spec, "mode").unwrap()).unwrap();
    assert!(MODES.contains(&mode), "{at}: mode {mode}");
    if mode == "fixed" {
        let value = str_of(get(spec, "value").unwrap()).unwrap();
        assert!(
            value.parse::<u32>().is_ok_and(|n| n > 0),
            "{at}: value {value}"
        );
    } else {
        assert!(get(spec, "value").is_none(), "{at}: a value without fixed");
    }
    let mut selectors = vec![check_selector(get(spec, "selector").unwrap(), at)];
    match kind.as_str() {
        "PodChaos" => check_pod_chaos(spec, action, at),
        "NetworkChaos" => selectors.push(check_network_chaos(spec, action, at)),
        other => panic!("{at}: kind {other}"),
    }
    (kind, selectors)
}

/// A `PodChaos` spec: its action and keys in the CRD's.
fn check_pod_chaos(spec: &Node, action: &str, at: &str) {
    assert!(
        ["pod-kill", "pod-failure", "container-kill"].contains(&action),
        "{at}: action {action}"
    );
    for k in keys(spec) {
        assert!(
            [
                "action",
                "mode",
                "value",
                "selector",
                "duration",
                "gracePeriod",
                "containerNames"
            ]
            .contains(&k),
            "{at}: PodChaos spec key {k}"
        );
    }
}

/// A `NetworkChaos` spec: its action, keys, delay, direction and duration
/// in the CRD's; what its target selects.
fn check_network_chaos(spec: &Node, action: &str, at: &str) -> Selected {
    assert!(
        [
            "netem",
            "delay",
            "loss",
            "duplicate",
            "corrupt",
            "partition",
            "bandwidth"
        ]
        .contains(&action),
        "{at}: action {action}"
    );
    for k in keys(spec) {
        assert!(
            [
                "action",
                "mode",
                "value",
                "selector",
                "delay",
                "direction",
                "target",
                "duration",
                "externalTargets"
            ]
            .contains(&k),
            "{at}: NetworkChaos spec key {k}"
        );
    }
    let latency = str_of(get(get(spec, "delay").unwrap(), "latency").unwrap()).unwrap();
    assert!(go_duration(latency), "{at}: latency {latency}");
    let direction = str_of(get(spec, "direction").unwrap()).unwrap();
    assert!(["to", "from", "both"].contains(&direction), "{at}");
    let duration = str_of(get(spec, "duration").unwrap()).unwrap();
    assert!(go_duration(duration), "{at}: duration {duration}");
    let target = get(spec, "target").unwrap();
    assert_eq!(keys(target), ["mode", "selector"], "{at}");
    assert!(MODES.contains(&str_of(get(target, "mode").unwrap()).unwrap()));
    check_selector(get(target, "selector").unwrap(), at)
}

/// Every manifest of a file, with the names unique in it.
fn check_manifest_file(path: &Path) -> Vec<(String, Vec<Selected>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let at = path.display().to_string();
    let docs = parse_documents(&text).unwrap_or_else(|p| panic!("{at}: {p:?}"));
    assert!(!docs.is_empty(), "{at}: no manifest");
    let mut names = BTreeSet::new();
    docs.iter()
        .map(|d| {
            let name = get(get(d, "metadata").unwrap(), "name")
                .and_then(str_of)
                .unwrap();
            assert!(names.insert(name.to_owned()), "{at}: {name} twice");
            check_manifest(d, &at)
        })
        .collect()
}

#[test]
fn chaos_mesh_manifests_keep_to_their_crds() {
    let dir = Scratch::new("experiments-chaos-mesh");
    let files = every_example("chaos-mesh", &dir);
    let documents: usize = files.iter().map(|f| check_manifest_file(f).len()).sum();
    say(&format!(
        "chaos mesh: {documents} manifests in {} files keep to the PodChaos and NetworkChaos CRDs",
        files.len()
    ));
}

#[test]
fn fis_templates_pass_botocores_validator() {
    let dir = Scratch::new("experiments-fis");
    let files = every_example("fis", &dir);
    let with_alarm = {
        let model = &example_models()[0];
        let (files, _) = generate(
            model,
            "fis",
            &dir.join("alarm"),
            &["--alarm", "high-errors"],
        );
        files
    };
    for file in files.iter().chain(&with_alarm) {
        check_fis_references(file);
    }
    let mut all = files;
    all.extend(with_alarm);
    all_pass_botocore(&all);
}

/// Each action of a FIS template names a target of the template, and each
/// target one action's.
fn check_fis_references(file: &Path) {
    let t: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let targets = t["targets"].as_object().unwrap();
    let actions = t["actions"].as_object().unwrap();
    assert!(!actions.is_empty(), "{}: no action", file.display());
    let mut used = BTreeSet::new();
    for (name, action) in actions {
        if action["actionId"] == "aws:fis:wait" {
            assert!(
                targets.is_empty(),
                "{}: a wait among targets",
                file.display()
            );
            continue;
        }
        let target = action["targets"]["Instances"].as_str().unwrap();
        assert!(targets.contains_key(target), "{}: {name}", file.display());
        used.insert(target.to_owned());
        let id = action["actionId"].as_str().unwrap();
        assert!(
            ["aws:ec2:stop-instances", "aws:ssm:send-command"].contains(&id),
            "{id}"
        );
    }
    assert_eq!(used.len(), targets.len(), "{}", file.display());
    for target in targets.values() {
        let mode = target["selectionMode"].as_str().unwrap();
        assert!(
            mode == "ALL"
                || mode
                    .strip_prefix("COUNT(")
                    .and_then(|m| m.strip_suffix(')'))
                    .is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n > 0)),
            "{mode}"
        );
    }
}

/// One experiment of each kind of injection: stop a domain, kill a group,
/// kill some and all instances, delay.
fn one_of_each_kind(dir: &Path) -> Vec<PathBuf> {
    let mut chosen = Vec::new();
    let mut kinds = BTreeSet::new();
    for (i, model) in example_models().iter().enumerate() {
        let (files, index) = generate(model, "chaostoolkit", &dir.join(i.to_string()), &[]);
        for (file, e) in files
            .iter()
            .zip(index["plan"]["experiments"].as_array().unwrap())
        {
            let kind = e["injection"]["action"].as_str().unwrap().to_owned();
            let some = e["injection"]["count"] != e["injection"]["instances"];
            if kinds.insert((kind, some)) {
                chosen.push(file.clone());
            }
        }
    }
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    chosen
}

#[test]
fn chaos_toolkit_experiments_of_each_kind_pass_chaos_validate_and_a_broken_one_does_not() {
    let dir = Scratch::new("experiments-chaostoolkit");
    let files = one_of_each_kind(&dir);
    if !all_pass_chaos_validate(&files) {
        return;
    }
    // The check can fail: an argument terminate_pods does not take, and a
    // tolerance without its path.
    let text = std::fs::read_to_string(&files[0]).unwrap();
    for (from, to) in [
        ("\"ns\":", "\"namespace\":"),
        ("\"path\": \"$.data.result[*]\",", ""),
    ] {
        assert!(text.contains(from), "{from}");
        let broken = dir.join("broken.json");
        std::fs::write(&broken, text.replacen(from, to, 1)).unwrap();
        let (ok, output) = chaos_validate(&broken);
        assert!(
            !ok,
            "chaos validate accepts a broken file ({from}):\n{output}"
        );
        // The batch rejects it too, after and before good files, and
        // counts the good ones.
        let mut batch = files.clone();
        batch.insert(1, broken.clone());
        let (ok, output) = chaos_validate_all(&batch);
        assert!(
            !ok && output.contains("broken.json")
                && output.contains(&format!("\nvalid {}\n", files.len())),
            "the batched chaos validate accepts a broken file ({from}):\n{output}"
        );
    }
}

#[test]
#[ignore = "slow: `chaos validate` of every experiment of every example (one interpreter, about 0.1 s a file)"]
fn every_chaos_toolkit_experiment_passes_chaos_validate() {
    let dir = Scratch::new("experiments-chaostoolkit-all");
    let files = every_example("chaostoolkit", &dir);
    all_pass_chaos_validate(&files);
}

// --- Hostile names ---------------------------------------------------------

/// The most hostile names the model accepts (`[A-Za-z0-9][A-Za-z0-9._-]*`:
/// YAML's booleans, nulls and numbers, `---` inside a name, 300
/// characters) and free text where it takes any (the system, a domain's
/// kind: quotes, line breaks, `$(rm -rf /)`, anchors and aliases, a
/// document marker, flow collections, bidirectional overrides).
fn hostile_model() -> (String, Vec<String>, Vec<String>) {
    let long = format!("a{}", "-b".repeat(150))
        .chars()
        .take(300)
        .collect::<String>();
    let long_zone = format!("z{}", "9".repeat(299));
    let kind = "rack\" \n\t$(rm -rf /) &a *a\n---\n{} [] \u{202e}evil\u{202c} #x";
    let text = format!(
        r#"system: "snip \"x\"\n---\n&a *a $(rm -rf /) {{}} [] \u202e"
domains:
  "0x1F": {{kind: zone}}
  "no": {{kind: zone}}
  "{long_zone}": {{kind: zone}}
  "r.1_-": {{kind: "{kind_escaped}"}}
shared_fate:
  "on": {{kind: "&a *a"}}
components:
  "true":
    instances: 3
    placement: ["0x1F", "no", "{long_zone}"]
    depends_on: ["null", "1e3"]
  "null":
    instances: 2
    placement: ["0x1F", "r.1_-"]
    shares: ["on"]
    depends_on: [{{target: "{long}", timeout: 1s}}]
  "1e3":
    instances: 2
    placement: ["no", "0x1F"]
    shares: ["on"]
  "{long}":
    instances: 2
    placement: ["r.1_-", "no"]
"#,
        kind_escaped = kind
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
            .replace('\t', "\\t"),
    );
    let components = ["true", "null", "1e3", long.as_str()]
        .map(str::to_owned)
        .to_vec();
    let domains = ["0x1F", "no", long_zone.as_str(), "r.1_-"]
        .map(str::to_owned)
        .to_vec();
    (text, components, domains)
}

/// The components and domains an experiment of the plan takes.
fn taken(e: &Json) -> (BTreeSet<String>, BTreeSet<String>) {
    let i = &e["injection"];
    let mut components = BTreeSet::new();
    let mut domains = BTreeSet::new();
    for p in i["pods"].as_array().into_iter().flatten() {
        components.insert(p["component"].as_str().unwrap().to_owned());
    }
    if let Some(c) = i["component"].as_str() {
        components.insert(c.to_owned());
    }
    for d in i["domains"].as_array().into_iter().flatten() {
        domains.insert(d["name"].as_str().unwrap().to_owned());
    }
    (components, domains)
}

#[test]
fn hostile_names_stay_inside_their_strings_and_select_only_themselves() {
    let dir = Scratch::new("experiments-hostile");
    let (text, components, domains) = hostile_model();
    let model = dir.join("hostile.yaml");
    std::fs::write(&model, &text).unwrap();
    let label = "app.kubernetes.io/name";
    let namespace = "ns\"\n---\n&a *a {}";
    let extra = [
        "--namespace",
        namespace,
        "--alarm",
        "errors \"$(rm -rf /)\"",
    ];
    let all_components: BTreeSet<&str> = components.iter().map(String::as_str).collect();
    let all_domains: BTreeSet<&str> = domains.iter().map(String::as_str).collect();

    // Chaos Mesh: parsed back, each selector selects the experiment's own
    // components (and domain's nodes), the callers the target.
    let (files, index) = generate(&model, "chaos-mesh", &dir, &extra);
    let experiments = index["plan"]["experiments"].as_array().unwrap();
    assert_eq!(files.len(), experiments.len());
    let mut kinds = BTreeSet::new();
    for (file, e) in files.iter().zip(experiments) {
        let (want_components, want_domains) = taken(e);
        let manifests = check_manifest_file(file);
        let mut got_components = BTreeSet::new();
        let mut got_domains = BTreeSet::new();
        for (_, selectors) in &manifests {
            for (n, s) in selectors.iter().enumerate() {
                assert_eq!(s.namespaces, BTreeSet::from([namespace.to_owned()]));
                for (k, v) in &s.labels {
                    assert_eq!(k, label);
                    assert!(all_components.contains(v.as_str()), "{v:?}");
                    if n == 0 {
                        got_components.insert(v.clone());
                    }
                }
                for (k, v) in &s.nodes {
                    assert!(k.starts_with("topology."), "{k:?}");
                    assert!(!k.contains(['"', '\n', ' ', '$']), "{k:?}");
                    assert!(all_domains.contains(v.as_str()), "{v:?}");
                    got_domains.insert(v.clone());
                }
            }
        }
        assert_eq!(got_components, want_components, "{}", file.display());
        assert_eq!(got_domains, want_domains, "{}", file.display());
        kinds.insert(e["injection"]["action"].as_str().unwrap().to_owned());
    }
    assert_eq!(kinds.len(), 4, "every kind of injection: {kinds:?}");

    // Chaos Toolkit: the label selectors name the experiment's components.
    let (files, index) = generate(&model, "chaostoolkit", &dir, &extra);
    let experiments = index["plan"]["experiments"].as_array().unwrap();
    for (file, e) in files.iter().zip(experiments) {
        let x: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let (want, _) = taken(e);
        let mut got = BTreeSet::new();
        for action in x["method"].as_array().unwrap() {
            let args = &action["provider"]["arguments"];
            assert_eq!(args["ns"], namespace);
            if let Some(selector) = args["label_selector"].as_str() {
                let value = selector.strip_prefix(&format!("{label}=")).unwrap();
                got.insert(value.to_owned());
            } else {
                got.insert(args["label_selectors"][label].as_str().unwrap().to_owned());
                let caller = args["target_label_selectors"][label].as_str().unwrap();
                assert!(all_components.contains(caller));
            }
        }
        assert_eq!(got, want, "{}", file.display());
        assert_eq!(x["extensions"][0]["loss"], e["loss"]);
    }
    all_pass_chaos_validate(&files[..files.len().min(6)]);

    // FIS: the tags and zone filters name the experiment's components and
    // zones; a name past FIS's limits is left out, not cut short.
    let (files, index) = generate(&model, "fis", &dir, &extra);
    let experiments = index["plan"]["experiments"].as_array().unwrap();
    for (file, e) in files.iter().zip(experiments) {
        check_fis_references(file);
        let t: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let (want, want_domains) = taken(e);
        let mut got = BTreeSet::new();
        for target in t["targets"].as_object().unwrap().values() {
            let c = target["resourceTags"][label].as_str().unwrap();
            assert!(all_components.contains(c));
            got.insert(c.to_owned());
            for f in target["filters"].as_array().unwrap() {
                if f["path"] == "Placement.AvailabilityZone" {
                    for z in f["values"].as_array().unwrap() {
                        assert!(want_domains.contains(z.as_str().unwrap()), "{z}");
                    }
                }
            }
        }
        let fits = |c: &String| c.chars().count() <= 256;
        let zones_fit = want_domains.iter().all(|d| d.chars().count() <= 128);
        let expected: BTreeSet<String> = if zones_fit {
            want.iter().filter(|c| fits(c)).cloned().collect()
        } else {
            BTreeSet::new()
        };
        assert_eq!(got, expected, "{}", file.display());
        assert!(t["description"].as_str().unwrap().chars().count() <= 512);
    }
    all_pass_botocore(&files);
}

// --- Snapshots ------------------------------------------------------------

#[test]
fn each_format_of_two_url_shortener_experiments() {
    for format in FORMATS {
        for only in ["az-a", "slow:links-db"] {
            let run = nines(&[
                "experiments",
                "models/url-shortener.yaml",
                "--today",
                "2026-11-30",
                "--format",
                format,
                "--only",
                only,
            ]);
            assert_eq!(run.outcome, nines::cli::Outcome::Pass, "{}", run.stderr);
            let mut s = settings();
            s.set_snapshot_suffix(format!("{format}-{}", only.replace(':', "-")));
            s.bind(|| insta::assert_snapshot!("experiments-format", run.stdout));
        }
    }
}
