//! The SPOFs as order-1 minimal cut sets. `spof` findings must be exactly the
//! single events of `single_point_of_failure::single_events`, the list a
//! fault-tree tool's order-1 cut sets of the exported model will be compared
//! with once the export exists (issue #4, item 5).

use std::collections::BTreeSet;

use nines::analyze::single_point_of_failure::single_events;
use nines::cli::Format;

use crate::check;

#[test]
fn spof_findings_are_the_single_events_of_every_example() {
    let mut models: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    models.sort();
    for path in models {
        let text = std::fs::read_to_string(&path).unwrap();
        let model = nines::model::parse(&text).unwrap();
        let events: BTreeSet<String> = single_events(&model)
            .iter()
            .map(|(event, _)| format!("spof/{}", event.subject(&model)))
            .collect();
        let run = check("model.yaml", &text, Format::Json);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let findings: BTreeSet<String> = report["findings"]
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
