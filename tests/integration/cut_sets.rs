//! The SPOFs as order-1 minimal cut sets. `spof` findings must be exactly the
//! single events of `single_point_of_failure::single_events`, and those must
//! be SCRAM's order-1 minimal cut sets of the exported model.

use std::collections::BTreeSet;

use nines::analyze::single_point_of_failure::single_events;
use nines::cli::Format;

use crate::check;

#[test]
fn spof_findings_are_the_single_events_of_every_example() {
    for path in crate::example_models() {
        let text = std::fs::read_to_string(&path).unwrap();
        let model = nines::model::parse(&text).unwrap();
        let events: BTreeSet<String> = single_events(&model)
            .iter()
            .map(|(event, _)| format!("spof/{}", event.subject(&model)))
            .collect();
        let run = check("model.yaml", &text, Format::Json);
        let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let findings: BTreeSet<String> = audit["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "spof")
            .map(|f| f["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(findings, events, "{}", path.display());
    }
}

/// Cut sets by hand for the model that has the most of them: the eight
/// single-replica services on online-boutique's required paths.
#[test]
fn online_boutique_has_eight_order_one_cut_sets() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/online-boutique.yaml"
    ))
    .unwrap();
    let model = nines::model::parse(&text).unwrap();
    let subjects: BTreeSet<&str> = single_events(&model)
        .iter()
        .map(|(event, _)| event.subject(&model))
        .collect();
    assert_eq!(
        subjects,
        BTreeSet::from([
            "cartservice",
            "checkoutservice",
            "currencyservice",
            "frontend",
            "paymentservice",
            "productcatalogservice",
            "redis-cart",
            "shippingservice",
        ])
    );
}

/// The single events SCRAM finds (order-1 minimal cut sets of every top
/// gate), by kind: components, domains, groups.
fn scram_single_events(
    model: &nines::model::Model,
    dir: &std::path::Path,
    name: &str,
) -> [BTreeSet<String>; 3] {
    use nines::engine::mef;
    let file = dir.join(format!("{name}.xml"));
    std::fs::write(&file, mef::export_with(model, mef::Events::Structural)).unwrap();
    let out = std::process::Command::new("scram")
        .arg("--bdd")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let audit = String::from_utf8_lossy(&out.stdout);
    let mut sets: [BTreeSet<String>; 3] = Default::default();
    for product in audit.split("<product ").skip(1) {
        if !product.starts_with("order=\"1\"") {
            continue;
        }
        let event = product
            .split("<basic-event name=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let (kind, subject) = mef::subject_of(event).unwrap();
        let index = ["component", "domain", "group"]
            .iter()
            .position(|k| *k == kind)
            .unwrap();
        sets[index].insert(subject);
    }
    sets
}

/// `spof` and `shared-fate` agree with SCRAM's order-1 minimal cut sets of
/// the exported example models (every instance, domain and group as a basic
/// event). Domains count only where their kind has two or more domains, as
/// the `spof` rule says.
#[test]
fn spof_and_shared_fate_agree_with_scram_order_one_cut_sets() {
    if std::process::Command::new("scram")
        .arg("--version")
        .output()
        .is_err()
    {
        crate::skip("`scram` is not installed here (Debian package `scram`; .ci/run installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("nines-cut-sets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for path in crate::example_models() {
        let text = std::fs::read_to_string(&path).unwrap();
        let model = nines::model::parse(&text).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let [components, domains, groups] = scram_single_events(&model, &dir, &name);
        let kinds_with_two = |d: &String| {
            let kind = &model.domains.iter().find(|x| x.name == *d).unwrap().kind;
            model.domains.iter().filter(|x| x.kind == *kind).count() >= 2
        };
        let domains: BTreeSet<String> = domains.into_iter().filter(kinds_with_two).collect();
        let run = check("model.yaml", &text, Format::Json);
        let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let subjects = |rule: &str| -> BTreeSet<String> {
            audit["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["rule"] == rule)
                .map(|f| {
                    f["id"]
                        .as_str()
                        .unwrap()
                        .split_once('/')
                        .unwrap()
                        .1
                        .to_owned()
                })
                .collect()
        };
        let spof = subjects("spof");
        let scram_spof: BTreeSet<String> = components.union(&domains).cloned().collect();
        assert_eq!(
            spof, scram_spof,
            "{name}: spof findings against SCRAM's order-1 cut sets"
        );
        assert_eq!(
            subjects("shared-fate"),
            groups,
            "{name}: shared-fate findings against SCRAM's order-1 cut sets"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
