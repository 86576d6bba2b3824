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

/// The registry, `docs/rules.md` and `nines explain` name the same rules,
/// checked in both directions: a rule missing from any of them, or one of
/// them naming a rule the registry lacks, fails here.
#[test]
fn the_registry_the_rules_page_and_explain_agree() {
    let registry: Vec<&str> = nines::model::Rule::names().collect();
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    let mut documented: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`'))
        .collect();
    let list = nines::cli::rule_list(200);
    let mut listed: Vec<&str> = list
        .lines()
        .filter_map(|l| l.strip_prefix("  ").filter(|rest| !rest.starts_with(' ')))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for rule in &registry {
        let text = nines::cli::rule_text(nines::analyze::doc(rule).unwrap(), 80);
        assert!(
            text.starts_with(&format!("{rule} (")),
            "explain {rule}: {text}"
        );
    }
    let mut sorted = registry.clone();
    sorted.sort_unstable();
    documented.sort_unstable();
    listed.sort_unstable();
    assert_eq!(documented, sorted, "docs/rules.md against the registry");
    assert_eq!(listed, sorted, "`nines explain` against the registry");
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

/// YAML blocks in the user documentation that are whole models must be valid,
/// so a reader who copies one gets a model that runs.
#[test]
fn models_in_the_documentation_are_valid() {
    for page in [
        "README.md",
        "docs/model.md",
        "docs/structural.md",
        "docs/import.md",
    ] {
        let text =
            std::fs::read_to_string(format!("{}/{page}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let mut checked = 0;
        for block in text.split("```yaml\n").skip(1) {
            let block = block.split("```").next().unwrap();
            let whole = block.lines().any(|l| l.starts_with("system:"))
                && block.lines().any(|l| l.starts_with("components:"));
            if !whole {
                continue;
            }
            if let Err(problems) = nines::model::parse(block) {
                panic!("a model in {page} is invalid: {problems:#?}\n{block}");
            }
            checked += 1;
        }
        assert!(checked > 0, "no whole model found in {page}");
    }
}
