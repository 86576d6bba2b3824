//! The structure SARIF 2.1.0 requires, checked in Rust so CI needs no schema
//! download: for every object `check --format sarif` writes, the keys the
//! official schema allows there (it sets `additionalProperties: false`), the
//! keys it requires, and its enumerations. Property lists are copied from
//! `sarif-schema-2.1.0.json`.

use serde_json::{Map, Value};

/// `(allowed keys, required keys)` of the schema definitions nines uses.
#[expect(
    clippy::too_many_lines,
    reason = "a table copied from the schema, one arm per definition"
)]
fn definition(name: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match name {
        "log" => (
            &[
                "$schema",
                "inlineExternalProperties",
                "properties",
                "runs",
                "version",
            ],
            &["version", "runs"],
        ),
        "run" => (
            &[
                "addresses",
                "artifacts",
                "automationDetails",
                "baselineGuid",
                "columnKind",
                "conversion",
                "defaultEncoding",
                "defaultSourceLanguage",
                "externalPropertyFileReferences",
                "graphs",
                "invocations",
                "language",
                "logicalLocations",
                "newlineSequences",
                "originalUriBaseIds",
                "policies",
                "properties",
                "redactionTokens",
                "results",
                "runAggregates",
                "specialLocations",
                "taxonomies",
                "threadFlowLocations",
                "tool",
                "translations",
                "versionControlProvenance",
                "webRequests",
                "webResponses",
            ],
            &["tool"],
        ),
        "tool" => (&["driver", "extensions", "properties"], &["driver"]),
        "toolComponent" => (
            &[
                "associatedComponent",
                "contents",
                "dottedQuadFileVersion",
                "downloadUri",
                "fullDescription",
                "fullName",
                "globalMessageStrings",
                "guid",
                "informationUri",
                "isComprehensive",
                "language",
                "localizedDataSemanticVersion",
                "locations",
                "minimumRequiredLocalizedDataSemanticVersion",
                "name",
                "notifications",
                "organization",
                "product",
                "productSuite",
                "properties",
                "releaseDateUtc",
                "rules",
                "semanticVersion",
                "shortDescription",
                "supportedTaxonomies",
                "taxa",
                "translationMetadata",
                "version",
            ],
            &["name"],
        ),
        "reportingDescriptor" => (
            &[
                "defaultConfiguration",
                "deprecatedGuids",
                "deprecatedIds",
                "deprecatedNames",
                "fullDescription",
                "guid",
                "help",
                "helpUri",
                "id",
                "messageStrings",
                "name",
                "properties",
                "relationships",
                "shortDescription",
            ],
            &["id"],
        ),
        "multiformatMessageString" => (&["markdown", "properties", "text"], &["text"]),
        "reportingConfiguration" => (
            &["enabled", "level", "parameters", "properties", "rank"],
            &[],
        ),
        "result" => (
            &[
                "analysisTarget",
                "attachments",
                "baselineState",
                "codeFlows",
                "correlationGuid",
                "fingerprints",
                "fixes",
                "graphTraversals",
                "graphs",
                "guid",
                "hostedViewerUri",
                "kind",
                "level",
                "locations",
                "message",
                "occurrenceCount",
                "partialFingerprints",
                "properties",
                "provenance",
                "rank",
                "relatedLocations",
                "rule",
                "ruleId",
                "ruleIndex",
                "stacks",
                "suppressions",
                "taxa",
                "webRequest",
                "webResponse",
                "workItemUris",
            ],
            &["message"],
        ),
        // `message` requires `text` or `id`; nines always writes `text`.
        "message" => (
            &["arguments", "id", "markdown", "properties", "text"],
            &["text"],
        ),
        "location" => (
            &[
                "annotations",
                "id",
                "logicalLocations",
                "message",
                "physicalLocation",
                "properties",
                "relationships",
            ],
            &[],
        ),
        "physicalLocation" => (
            &[
                "address",
                "artifactLocation",
                "contextRegion",
                "properties",
                "region",
            ],
            &[],
        ),
        "artifactLocation" => (
            &["description", "index", "properties", "uri", "uriBaseId"],
            &[],
        ),
        // `region` requires one of startLine, charOffset, byteOffset.
        "region" => (
            &[
                "byteLength",
                "byteOffset",
                "charLength",
                "charOffset",
                "endColumn",
                "endLine",
                "message",
                "properties",
                "snippet",
                "sourceLanguage",
                "startColumn",
                "startLine",
            ],
            &["startLine"],
        ),
        "suppression" => (
            &[
                "guid",
                "justification",
                "kind",
                "location",
                "properties",
                "status",
            ],
            &["kind"],
        ),
        other => panic!("no definition {other}"),
    }
}

/// The object at `value`, with only the keys `name` allows and all it requires.
fn object<'a>(value: &'a Value, name: &str) -> &'a Map<String, Value> {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{name} is not an object: {value}"));
    let (allowed, required) = definition(name);
    for key in object.keys() {
        assert!(
            allowed.contains(&key.as_str()),
            "{name} has no property `{key}`"
        );
    }
    for key in required {
        assert!(object.contains_key(*key), "{name} lacks `{key}`");
    }
    object
}

fn string<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value}"))
}

fn one_of(value: &Value, what: &str, allowed: &[&str]) {
    let text = string(value, what);
    assert!(
        allowed.contains(&text),
        "{what} `{text}` is not one of {allowed:?}"
    );
}

fn positive(value: &Value, what: &str) -> u64 {
    let number = value
        .as_u64()
        .unwrap_or_else(|| panic!("{what} is not an integer: {value}"));
    assert!(number >= 1, "{what} must be at least 1");
    number
}

const LEVELS: &[&str] = &["none", "note", "warning", "error"];

fn text_object(value: &Value, what: &str) {
    plain_text(string(
        &object(value, "multiformatMessageString")["text"],
        what,
    ));
}

/// A plain-text message holds no embedded link (SARIF 2.1.0 §3.11.6):
/// every `[` and `]` is escaped, by an odd run of backslashes before it.
fn plain_text(text: &str) {
    let mut backslashes = 0;
    for c in text.chars() {
        if matches!(c, '[' | ']') {
            assert!(backslashes % 2 == 1, "unescaped `{c}` in {text:?}");
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
}

/// Panics with the first departure from the SARIF 2.1.0 structure.
pub(crate) fn assert_valid(log: &Value) {
    let root = object(log, "log");
    assert_eq!(root["version"], "2.1.0");
    string(&root["$schema"], "$schema");
    let runs = root["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1, "nines writes one run");
    let run = object(&runs[0], "run");
    if let Some(kind) = run.get("columnKind") {
        one_of(kind, "columnKind", &["utf16CodeUnits", "unicodeCodePoints"]);
    }
    let driver = object(&object(&run["tool"], "tool")["driver"], "toolComponent");
    assert!(!string(&driver["name"], "driver.name").is_empty());
    let rules = driver["rules"].as_array().expect("rules is an array");
    let mut ids = Vec::new();
    for rule in rules {
        let rule = object(rule, "reportingDescriptor");
        ids.push(string(&rule["id"], "rule id"));
        for key in ["shortDescription", "fullDescription", "help"] {
            if let Some(text) = rule.get(key) {
                text_object(text, key);
            }
        }
        if let Some(configuration) = rule.get("defaultConfiguration") {
            let configuration = object(configuration, "reportingConfiguration");
            one_of(
                &configuration["level"],
                "defaultConfiguration.level",
                LEVELS,
            );
        }
    }
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "rule ids repeat");
    for result in run["results"].as_array().expect("results is an array") {
        let result = object(result, "result");
        plain_text(string(
            &object(&result["message"], "message")["text"],
            "message.text",
        ));
        let rule_id = string(&result["ruleId"], "ruleId");
        let index = usize::try_from(result["ruleIndex"].as_u64().expect("ruleIndex")).unwrap();
        assert_eq!(
            ids.get(index),
            Some(&rule_id),
            "ruleIndex points at another rule"
        );
        one_of(&result["level"], "level", LEVELS);
        let locations = result["locations"]
            .as_array()
            .expect("locations is an array");
        assert_eq!(locations.len(), 1);
        let physical = object(
            &object(&locations[0], "location")["physicalLocation"],
            "physicalLocation",
        );
        let artifact = object(&physical["artifactLocation"], "artifactLocation");
        let uri = string(&artifact["uri"], "uri");
        assert!(
            uri.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~/%".contains(&b)),
            "uri `{uri}` is not a plain relative reference"
        );
        let region = object(&physical["region"], "region");
        positive(&region["startLine"], "startLine");
        positive(&region["startColumn"], "startColumn");
        let fingerprints = result["partialFingerprints"]
            .as_object()
            .expect("fingerprints");
        assert!(
            fingerprints.values().all(Value::is_string),
            "partialFingerprints values are strings"
        );
        if let Some(state) = result.get("baselineState") {
            one_of(
                state,
                "baselineState",
                &["new", "unchanged", "updated", "absent"],
            );
        }
        for suppression in result
            .get("suppressions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let suppression = object(suppression, "suppression");
            one_of(
                &suppression["kind"],
                "suppression.kind",
                &["inSource", "external"],
            );
            one_of(
                &suppression["status"],
                "suppression.status",
                &["accepted", "underReview", "rejected"],
            );
            plain_text(string(&suppression["justification"], "justification"));
        }
    }
}

#[test]
fn the_checker_rejects_what_the_schema_rejects() {
    let good: Value = serde_json::from_str(
        r#"{"$schema": "s", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "nines", "rules": [{"id": "spof"}]}},
            "results": [{"ruleId": "spof", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.yaml"}, "region": {"startLine": 1, "startColumn": 1}}}],
            "partialFingerprints": {"k": "spof/a"}}]}]}"#,
    )
    .unwrap();
    assert_valid(&good);
    for (pointer, bad) in [
        ("/version", Value::from("2.0.0")),
        ("/runs/0/results/0/level", Value::from("fatal")),
        ("/runs/0/results/0/ruleIndex", Value::from(3)),
        ("/runs/0/results/0/message", serde_json::json!({"txt": "m"})),
        (
            "/runs/0/results/0/locations/0/physicalLocation/region/startLine",
            Value::from(0),
        ),
    ] {
        let mut broken = good.clone();
        *broken.pointer_mut(pointer).unwrap() = bad;
        assert!(
            std::panic::catch_unwind(|| assert_valid(&broken)).is_err(),
            "{pointer} was not caught"
        );
    }
}

#[test]
fn user_text_cannot_become_an_embedded_link() {
    // The reason of an acceptance and a component's name in messages:
    // before, `justification` kept `[runbook](javascript:…)` and messages
    // kept nines' own `[az-a, az-b]`, which SARIF viewers read as links.
    let text = r#"system: s
components:
  db: {}
accepted:
  - id: spof/db
    reason: "[runbook](javascript:alert(1)) and \\[x\\]"
    expires: 2099-01-01
"#;
    let run = crate::check("m.yaml", text, nines::cli::Format::Sarif);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let accepted = results
        .iter()
        .find(|r| r.get("suppressions").is_some())
        .expect("the accepted spof");
    // `[` → `\[`, `]` → `\]`; the user's `\[` keeps its backslash as `\\`.
    assert_eq!(
        accepted["suppressions"][0]["justification"],
        r"\[runbook\](javascript:alert(1)) and \\\[x\\\]"
    );
    // nines' own text too: the rule's help quotes a flow list.
    let help = log["runs"][0]["tool"]["driver"]["rules"][0]["help"]["text"]
        .as_str()
        .unwrap();
    assert!(
        help.contains(r"`instances: 2, placement: \[az-a, az-b\]`"),
        "{help}"
    );
}

#[test]
fn links_in_user_text_are_escaped_in_every_message_and_justification() {
    // One text with a web link and a script link, written where the model
    // lets a user write free text that reaches a result: the kind of the
    // domains (placement's message), of a shared-fate group (expiry's and
    // shared-fate's) and the reason of an acceptance (the justification).
    let links = "[click](https://evil.example) [runbook](javascript:alert(1))";
    let text = format!(
        r#"system: s
domains:
  az-a: {{kind: "{links}"}}
  az-b: {{kind: "{links}"}}
shared_fate:
  cert: {{kind: "{links}", expires: 2020-01-01}}
components:
  api: {{instances: 2, placement: [az-a, az-b], shares: [cert], depends_on: [db]}}
  db: {{instances: 2}}
accepted:
  - id: expiry/cert
    reason: "{links}"
"#
    );
    let run = crate::check("m.yaml", &text, nines::cli::Format::Sarif);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid(&log);
    let escaped = r"\[click\](https://evil.example) \[runbook\](javascript:alert(1))";
    let results = log["runs"][0]["results"].as_array().unwrap();
    let mut messages = std::collections::BTreeMap::new();
    for result in results {
        let message = result["message"]["text"].as_str().unwrap();
        // No text, the user's or nines' own, keeps a bracket unescaped.
        plain_text(message);
        assert!(!message.contains("[click]"), "{message}");
        assert!(!message.contains("[runbook]"), "{message}");
        messages.insert(result["ruleId"].as_str().unwrap(), message);
        for suppression in result["suppressions"].as_array().into_iter().flatten() {
            assert_eq!(suppression["justification"], escaped);
        }
    }
    assert_eq!(
        messages.keys().copied().collect::<Vec<_>>(),
        ["expiry", "placement", "shared-fate", "timeout"]
    );
    // 2020-01-01 to the tests' fixed day, 2026-11-30: 6 years with two
    // leap days (2192 days) and 333 more.
    assert!(
        messages["expiry"].starts_with(&format!(
            "cert ({escaped}) expired on 2020-01-01, 2525 days ago (today is 2026-11-30)"
        )),
        "{}",
        messages["expiry"]
    );
    assert!(
        messages["shared-fate"].starts_with(&format!("cert ({escaped}) firing takes down")),
        "{}",
        messages["shared-fate"]
    );
    // The domains' kind in the message, nines' own flow list in its help.
    assert_eq!(
        messages["placement"],
        format!(
            "db (2 instances) has no placement, while the model declares 2 domains ({escaped}): no zone or region loss can be judged for it\nhelp: add `placement: \\[az-a, az-b\\]` (a list spreads the instances evenly) or a map of exact counts"
        )
    );
    let expiry = results.iter().find(|r| r["ruleId"] == "expiry").unwrap();
    assert_eq!(expiry["suppressions"][0]["status"], "accepted");
    assert_eq!(expiry["suppressions"][0]["justification"], escaped);
}
