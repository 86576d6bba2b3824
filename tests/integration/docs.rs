//! Generated documents must match what the code would generate now:
//! `docs/nines.schema.json` and `docs/rules.md`. `UPDATE_DOCS=1 cargo test`
//! rewrites them.

fn assert_fresh(relative: &str, generated: &str) {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{relative} is stale: run `UPDATE_DOCS=1 cargo test` and commit it"
    );
}

#[test]
fn the_committed_schema_is_current() {
    assert_fresh("docs/nines.schema.json", &nines::cli::schema_json());
}

#[test]
fn the_rules_page_is_current() {
    assert_fresh("docs/rules.md", &nines::cli::rules_markdown());
}

#[test]
fn the_schema_is_draft_07_and_describes_the_format() {
    let schema: serde_json::Value = serde_json::from_str(&nines::cli::schema_json()).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema["additionalProperties"], false);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["system", "components"]);
    let component = &schema["definitions"]["RawComponent"];
    assert!(
        component["properties"]["instances"]["description"]
            .as_str()
            .unwrap()
            .contains("instances")
    );
    assert!(
        schema["definitions"]["RawDomain"]["properties"]
            .get("in")
            .is_some(),
        "`in` keeps its YAML name"
    );
}
