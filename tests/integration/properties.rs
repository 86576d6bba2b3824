//! No input makes `nines check` panic, and every structurally valid model is
//! accepted: properties over random text, random bytes and random models.

use std::fmt::Write as _;

use nines::cli::{Format, Outcome};
use proptest::prelude::*;

use crate::check;

/// Fragments that look like a model, so random text reaches deep into
/// decoding and validation instead of failing at the first byte.
pub(crate) fn model_like_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("system: s\n".to_owned()),
        Just("components:\n".to_owned()),
        Just("domains:\n".to_owned()),
        Just("shared_fate:\n".to_owned()),
        Just(
            r"accepted:
  - id: spof/a
    reason: r
"
            .to_owned()
        ),
        Just("  a:\n".to_owned()),
        Just("  b: {instances: 3, placement: [z1, z2]}\n".to_owned()),
        Just("    depends_on: [b, {any_of: [a, c]}, {at_least: 2, of: [a, b, c]}]\n".to_owned()),
        Just("    availability: 99.9\n".to_owned()),
        Just("    availability: 99.9%\n".to_owned()),
        Just("    placement: {z1: 2}\n".to_owned()),
        Just("  z1: {kind: zone, in: z2}\n".to_owned()),
        Just("  z2: {kind: region, in: z1}\n".to_owned()),
        Just("    mtbf: 10h\n".to_owned()),
        Just("    recovery: {rto: 1h, needs: [a]}\n".to_owned()),
        Just("entrypoints: [a]\n".to_owned()),
        Just("- x\n".to_owned()),
        Just("{[\"'&*!|>%@`\n".to_owned()),
        "[ -~]{0,12}\n",
        "[a-z_]{1,8}: [0-9a-z.%-]{0,6}\n",
    ];
    prop::collection::vec(token, 0..24).prop_map(|parts| parts.concat())
}

/// A random model that obeys every rule of the format.
pub(crate) fn valid_model() -> impl Strategy<Value = String> {
    (1usize..4, 1usize..12, any::<u64>()).prop_map(|(zones, components, seed)| {
        let mut rng = seed;
        let mut next = |n: usize| {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(rng >> 33).unwrap() % n.max(1)
        };
        let mut text = String::from(
            r"system: generated
entrypoints: [c0]
domains:
  region: {kind: region, availability: 99.99%}
",
        );
        for z in 0..zones {
            let _ = writeln!(text, "  z{z}: {{kind: zone, in: region, availability: 99.9%}}");
        }
        text.push_str("shared_fate:\n  push: {kind: config, availability: 99.95%, expires: 2027-01-01}\n");
        text.push_str("components:\n");
        for c in 0..components {
            let instances = 1 + next(5);
            let spread = 1 + next(zones.min(instances));
            let placement: Vec<String> = (0..spread).map(|z| format!("z{z}")).collect();
            let _ = writeln!(text, "  c{c}:\n    instances: {instances}\n    min_healthy: {}", 1 + next(instances));
            let _ = writeln!(text, "    placement: [{}]", placement.join(", "));
            let _ = writeln!(text, "    availability: {}%", 90.0 + next(1000) as f64 / 100.0);
            if next(3) == 0 {
                let _ = writeln!(text, "    capacity: {}\n    load: {}", 10 + next(500), next(2000));
                if next(2) == 0 && components > 1 {
                    let other = (c + 1 + next(components - 1)) % components;
                    let _ = writeln!(text, "    failover_to: c{other}");
                }
            }
            if next(4) == 0 {
                text.push_str("    shares: [push]\n");
            }
            let later: Vec<usize> = (c + 1..components).collect();
            if later.is_empty() {
                continue;
            }
            let (a, b) = (later[next(later.len())], later[next(later.len())]);
            let edge = match next(4) {
                0 => format!("c{a}"),
                1 if a != b => format!("{{any_of: [c{a}, c{b}], retries: {}}}", next(3)),
                2 if a != b => format!("{{at_least: 1, of: [c{a}, c{b}], timeout: 300ms}}"),
                _ => format!("{{target: c{a}, retries: 2, backoff: jittered, retry_budget: 10%, degradable: true}}"),
            };
            let _ = writeln!(text, "    depends_on:\n      - {edge}");
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_model_like_text_never_panics(text in model_like_text()) {
        let run = check("random.yaml", &text, Format::Table);
        prop_assert!(matches!(run.outcome, Outcome::Pass | Outcome::Fail | Outcome::Invalid));
        if run.outcome == Outcome::Invalid {
            prop_assert!(run.stderr.contains("problem"), "an invalid model explains itself:\n{}", run.stderr);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let run = check("bytes.yaml", &text, Format::Json);
        prop_assert!(matches!(run.outcome, Outcome::Pass | Outcome::Fail | Outcome::Invalid));
    }

    #[test]
    fn structurally_valid_models_are_accepted(text in valid_model()) {
        let run = check("valid.yaml", &text, Format::Json);
        prop_assert!(run.outcome != Outcome::Invalid, "rejected:\n{}\n{}", text, run.stderr);
        let audit: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        prop_assert_eq!(&audit["system"], "generated");
        for finding in audit["findings"].as_array().unwrap() {
            prop_assert!(finding["location"]["line"].as_u64().unwrap() >= 1, "unlocated: {}", finding);
        }
        for row in audit["headroom"].as_array().unwrap() {
            prop_assert!(row["survivors"].as_u64().unwrap() >= 1, "{}", row);
            prop_assert!(row["utilization"].is_f64() || row["utilization"].is_u64(), "{}", row);
            prop_assert!(row["required_instances"].as_u64().unwrap() >= 1, "{}", row);
        }
        for walk in audit["cascades"].as_array().unwrap() {
            prop_assert!(walk["unserved"].as_f64().unwrap() >= 0.0, "{}", walk);
        }
    }
}
