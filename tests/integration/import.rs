//! `nines import k8s`: Online Boutique's manifests imported and checked, one
//! small fixture per rule (`tests/fixtures/import/`, each beginning with what
//! must come out), the errors, and no panic on any input.

use std::collections::BTreeSet;

use nines::cli::{Format, Outcome};
use nines::import::{self, Options, Source};
use nines::model::{Model, parse};
use proptest::prelude::*;

use crate::{Run, check, settings};

const FIXTURES: &str = "tests/fixtures/import";

/// `nines import k8s ARGS…` in process, at 80 columns without colour.
fn import_k8s(args: &[&str]) -> Run {
    let command_line: Vec<&str> = ["import", "k8s"].iter().chain(args).copied().collect();
    crate::nines(&command_line)
}

/// The fixture imported, checked to be a valid model.
fn imported(fixture: &str) -> (Model, Run) {
    let run = import_k8s(&[&format!("{FIXTURES}/{fixture}")]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let model = parse(&run.stdout).unwrap_or_else(|p| panic!("{p:?}\n{}", run.stdout));
    (model, run)
}

fn component<'a>(model: &'a Model, name: &str) -> &'a nines::model::Component {
    model
        .components
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no component {name}"))
}

fn depends_on(model: &Model, name: &str) -> Vec<String> {
    component(model, name)
        .depends_on
        .iter()
        .flat_map(|e| e.targets.iter().map(|&t| model.component(t).name.clone()))
        .collect()
}

fn names(model: &Model, ids: &[nines::model::ComponentId]) -> Vec<String> {
    ids.iter()
        .map(|&id| model.component(id).name.clone())
        .collect()
}

#[test]
fn every_fixture_imports_as_its_comment_says() {
    settings().bind(|| {
        insta::glob!("../fixtures/import", "*.yaml", |path| {
            let name = format!("{FIXTURES}/{}", path.file_name().unwrap().to_string_lossy());
            let run = import_k8s(&[&name]);
            if run.outcome == Outcome::Pass {
                let model = parse(&run.stdout);
                assert!(model.is_ok(), "{:?}\n{}", model.err(), run.stdout);
                let checked = check(&name, &run.stdout, Format::Table);
                assert_ne!(checked.outcome, Outcome::Invalid, "{}", checked.stderr);
                assert_eq!(import_k8s(&[&name]).stdout, run.stdout, "not deterministic");
            } else {
                assert_eq!(run.outcome, Outcome::Invalid);
                assert_eq!(run.stdout, "");
            }
            insta::assert_snapshot!(
                "import",
                format!(
                    "exit: {:?}\n---- stderr ----\n{}---- model ----\n{}",
                    run.outcome, run.stderr, run.stdout
                )
            );
        });
    });
}

#[test]
fn online_boutique_has_a_spof_for_every_service_frontend_needs() {
    let (model, run) = imported("online-boutique.yaml");
    assert_eq!(model.system, "online-boutique");
    assert_eq!(model.components.len(), 12);
    assert!(model.components.iter().all(|c| c.instances == 1));
    assert_eq!(names(&model, &model.entrypoints), ["frontend"]);
    assert_eq!(depends_on(&model, "loadgenerator"), ["frontend"]);
    assert_eq!(depends_on(&model, "cartservice"), ["redis-cart"]);
    assert_eq!(
        component(&model, "redis-cart").kind.as_deref(),
        Some("datastore")
    );
    assert!(run.stdout.contains("# - shoppingassistantservice"));
    assert!(
        run.stderr
            .contains("frontend: SHOPPING_ASSISTANT_SERVICE_ADDR names `shoppingassistantservice`")
    );

    let checked = check("online-boutique.yaml", &run.stdout, Format::Table);
    assert_eq!(checked.outcome, Outcome::Fail);
    for service in [
        "adservice",
        "cartservice",
        "checkoutservice",
        "currencyservice",
        "emailservice",
        "frontend",
        "paymentservice",
        "productcatalogservice",
        "recommendationservice",
        "redis-cart",
        "shippingservice",
    ] {
        assert!(
            checked.stdout.contains(&format!("spof/{service} ")),
            "no spof/{service}"
        );
    }
    // loadgenerator calls frontend; frontend does not need it.
    assert!(!checked.stdout.contains("spof/loadgenerator"));
    settings().bind(|| {
        insta::assert_snapshot!("import-check@online-boutique.yaml", checked.stdout);
    });
}

#[test]
fn the_boutique_fixture_is_the_shared_copy() {
    // The fixture is the public manifests with a comment on top, so the
    // suite runs anywhere; where the shared copy exists, they must agree.
    let shared = std::path::Path::new("../shared/data/online-boutique/kubernetes-manifests.yaml");
    let Ok(original) = std::fs::read_to_string(shared) else {
        return;
    };
    let fixture = std::fs::read_to_string(format!("{FIXTURES}/online-boutique.yaml")).unwrap();
    let body: String = fixture.split_inclusive('\n').skip(6).collect();
    assert_eq!(body, original);
}

#[test]
fn replicas_become_instances() {
    let (model, _) = imported("replicas.yaml");
    assert_eq!(component(&model, "api").instances, 3);
    assert_eq!(component(&model, "worker").instances, 1);
    let paused = component(&model, "paused");
    assert_eq!((paused.instances, paused.availability), (1, Some(0.0)));
}

#[test]
fn an_autoscaler_minimum_wins_over_replicas() {
    let (model, run) = imported("hpa-min-replicas.yaml");
    assert_eq!(component(&model, "web").instances, 4);
    assert_eq!(component(&model, "batch").instances, 1);
    assert!(
        run.stdout
            .contains("HorizontalPodAutoscaler web: minReplicas 4, maxReplicas 10")
    );
}

#[test]
fn statefulsets_and_database_images_are_datastores() {
    let (model, run) = imported("statefulset-datastore.yaml");
    let db = component(&model, "db");
    assert_eq!((db.kind.as_deref(), db.instances), (Some("datastore"), 3));
    assert_eq!(depends_on(&model, "app"), ["db"]);
    assert!(run.stdout.contains("data on persistent volume claims"));

    let (model, _) = imported("database-image.yaml");
    for name in ["pg", "my", "cache", "docs", "pg2"] {
        assert_eq!(
            component(&model, name).kind.as_deref(),
            Some("datastore"),
            "{name}"
        );
    }
    assert_eq!(component(&model, "metrics").kind.as_deref(), Some("worker"));
}

#[test]
fn disruption_budgets_are_offered_as_min_healthy_comments() {
    let (model, run) = imported("pdb-min-available.yaml");
    // A disruption budget is not the functional minimum: nothing is set,
    // so every component keeps the default min_healthy of 1 ...
    for name in ["a", "b", "c", "d", "e", "f"] {
        assert_eq!(component(&model, name).min_healthy, 1, "{name}");
    }
    // ... and each budget's figure is written as a comment to confirm:
    // a minAvailable 2; b 50% of 4 = 2; c 5 - maxUnavailable 1 = 4;
    // d 30% of 3 = 0.9, rounded up to 1; e capped at its 2 instances; f
    // lets every pod go, so no figure.
    let offered: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("# min_healthy: "))
        .map(|rest| rest.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(offered, ["2", "2", "4", "1", "2", "N"], "{}", run.stdout);
    assert!(
        run.stdout
            .contains("; a disruption budget, not the fewest instances")
    );
}

#[test]
fn workloads_spread_by_zone_are_placed_across_the_zones() {
    let (model, run) = imported("zone-spread.yaml");
    let zones: Vec<&str> = model.domains.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(zones, ["zone-a", "zone-b", "zone-c"]);
    let placed = |name: &str| -> Vec<(String, u32)> {
        component(&model, name)
            .placement
            .iter()
            .map(|&(d, n)| (model.domain(d).name.clone(), n))
            .collect()
    };
    assert_eq!(placed("web").len(), 3);
    assert_eq!(
        placed("api"),
        [("zone-a".to_owned(), 1), ("zone-b".to_owned(), 1)]
    );
    assert!(placed("cron").is_empty());
    assert!(run.stdout.contains("# placement unknown"));
    let checked = check("zone-spread.yaml", &run.stdout, Format::Table);
    assert!(checked.stdout.contains("placement/cron"));

    let run = import_k8s(&[
        &format!("{FIXTURES}/zone-spread.yaml"),
        "--zones",
        "eu-1,eu-2",
    ]);
    let model = parse(&run.stdout).unwrap();
    let zones: Vec<&str> = model.domains.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(zones, ["eu-1", "eu-2"]);
}

#[test]
fn anti_affinity_on_hostname_spreads_over_nodes_only() {
    let (model, run) = imported("host-anti-affinity.yaml");
    assert!(model.domains.is_empty());
    assert!(
        run.stdout
            .contains("# placement unknown: spread over nodes (podAntiAffinity), not by zone")
    );
    assert_eq!(run.stdout.matches("spread over nodes").count(), 1);
}

#[test]
fn variables_and_arguments_that_name_a_service_are_dependencies() {
    let (model, _) = imported("env-address.yaml");
    assert_eq!(depends_on(&model, "shop"), ["cart", "catalog"]);
    assert_eq!(names(&model, &model.entrypoints), ["shop"]);

    let (model, _) = imported("cluster-dns.yaml");
    assert_eq!(model.system, "front");
    assert_eq!(depends_on(&model, "web"), ["orders", "users"]);
}

#[test]
fn config_map_values_the_workload_reads_are_followed() {
    let (model, run) = imported("configmap-ref.yaml");
    assert_eq!(depends_on(&model, "api"), ["queue", "search"]);
    assert!(
        run.stdout
            .contains("BACKEND_HOST (ConfigMap api-config, key backend)")
    );
    assert!(
        run.stderr
            .contains("ConfigMap `absent`, which is not in the inputs")
    );
}

#[test]
fn services_with_nothing_behind_them_are_commented_out() {
    let (model, run) = imported("missing-service.yaml");
    assert!(component(&model, "checkout").depends_on.is_empty());
    for line in [
        "#   - geo",
        "#   - mail",
        "#   - payments",
        "ExternalName Service: outside the cluster (geo.example.com)",
        "Service mail selects no workload in these manifests",
    ] {
        assert!(run.stdout.contains(line), "missing {line}");
    }
    assert!(!run.stdout.contains("fast"));
    assert!(run.stderr.contains("PAYMENTS_ADDR names `payments`"));
}

#[test]
fn lists_are_read_like_documents_and_ingresses_give_entrypoints() {
    let (model, run) = imported("list-kind.yaml");
    assert_eq!(names(&model, &model.entrypoints), ["front"]);
    assert_eq!(depends_on(&model, "front"), ["back"]);
    assert!(run.stdout.contains("front: Ingress public (Service front)"));
}

#[test]
fn unknown_kinds_are_counted_and_skipped() {
    let (model, run) = imported("unknown-kind.yaml");
    assert_eq!(model.components.len(), 1);
    assert!(run.stdout.contains("# instances: N"));
    assert!(
        run.stderr
            .contains("CronJob ×1, ServiceAccount ×1, Widget ×1")
    );
    assert!(run.stderr.contains(
        "unknown-kind.yaml:19:1: skipped: this YAML document is not a Kubernetes manifest"
    ));
}

#[test]
fn shared_names_get_suffixes() {
    let (model, _) = imported("name-collisions.yaml");
    let found: BTreeSet<&str> = model.components.iter().map(|c| c.name.as_str()).collect();
    let expected: BTreeSet<&str> = [
        "api.a",
        "api.b",
        "cache-deployment",
        "cache-statefulset",
        "instance-2",
        "zone-a",
    ]
    .into();
    assert_eq!(found, expected);
}

#[test]
fn what_is_not_a_manifest_is_a_located_error() {
    for (fixture, expected) in [
        ("not-kubernetes.yaml", "not-kubernetes.yaml:3:1]"),
        ("helm-template.yaml", "helm-template.yaml:6:9]"),
        ("syntax-error.yaml", "syntax-error.yaml:"),
    ] {
        let run = import_k8s(&[&format!("{FIXTURES}/{fixture}")]);
        assert_eq!(run.outcome, Outcome::Invalid, "{fixture}");
        assert!(run.stderr.contains(expected), "{fixture}: {}", run.stderr);
    }
}

#[test]
fn folders_are_read_recursively_and_sorted() {
    let run = import_k8s(&["tests/fixtures/import-folder"]);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let model = parse(&run.stdout).unwrap();
    assert_eq!(depends_on(&model, "web"), ["db"]);
    assert_eq!(names(&model, &model.entrypoints), ["web"]);
    assert!(run.stderr.contains("import-folder/notes.yaml:2:1: skipped"));
    assert!(!run.stderr.contains("broken"));
    assert!(run.stdout.contains("from\n#   3 files"));
}

#[test]
fn bad_arguments_and_missing_files_exit_2() {
    let bad_zone = import_k8s(&[&format!("{FIXTURES}/replicas.yaml"), "--zones", "a,b c"]);
    assert_eq!(bad_zone.outcome, Outcome::Invalid);
    assert!(
        bad_zone
            .stderr
            .contains("--zones: `b c` is not a valid name")
    );
    let missing = import_k8s(&["tests/fixtures/import/nothing-here.yaml"]);
    assert_eq!(missing.outcome, Outcome::Invalid);
    assert!(missing.stderr.contains("cannot read the manifest"));
    let empty = import_k8s(&["tests/fixtures/rules"]);
    assert_eq!(empty.outcome, Outcome::Invalid);
}

#[test]
fn the_system_name_can_be_given() {
    let run = import_k8s(&[&format!("{FIXTURES}/replicas.yaml"), "--system", "my shop"]);
    assert_eq!(parse(&run.stdout).unwrap().system, "my shop");
}

#[test]
fn the_binary_imports_to_a_file_that_check_reads() {
    let out = std::env::temp_dir().join(format!("nines-import-{}.yaml", std::process::id()));
    let nines = |args: &[&str]| crate::binary().args(args).output().unwrap();
    let out_path = out.to_string_lossy().into_owned();
    let imported = nines(&[
        "import",
        "k8s",
        "tests/fixtures/import/online-boutique.yaml",
        "-o",
        &out_path,
    ]);
    assert_eq!(imported.status.code(), Some(0));
    assert!(imported.stdout.is_empty());
    assert!(String::from_utf8_lossy(&imported.stderr).contains("imported 12 workloads"));
    let checked = nines(&["check", &out_path]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(checked.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&checked.stdout).contains("spof/redis-cart"));
    let invalid = nines(&["import", "k8s", "tests/fixtures/import/not-kubernetes.yaml"]);
    assert_eq!(invalid.status.code(), Some(2));
}

/// Fragments of manifests, so random text reaches deep into the importer
/// instead of failing at the first byte.
fn manifest_like_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("---\n".to_owned()),
        Just("apiVersion: apps/v1\n".to_owned()),
        Just("kind: Deployment\n".to_owned()),
        Just("kind: StatefulSet\n".to_owned()),
        Just("kind: DaemonSet\n".to_owned()),
        Just("kind: Service\n".to_owned()),
        Just("kind: List\nitems:\n- kind: Deployment\n  apiVersion: v1\n  metadata: {name: x}\n".to_owned()),
        Just("kind: HorizontalPodAutoscaler\nspec: {scaleTargetRef: {kind: Deployment, name: a}, minReplicas: 0}\n".to_owned()),
        Just("kind: PodDisruptionBudget\nspec: {minAvailable: 150%, selector: {matchLabels: {app: a}}}\n".to_owned()),
        Just("kind: ConfigMap\ndata: {k: \"a:80\", j: 'http://b.ns.svc'}\n".to_owned()),
        Just("kind: Ingress\nspec: {defaultBackend: {service: {name: a}}}\n".to_owned()),
        Just("metadata: {name: a, namespace: ns}\n".to_owned()),
        Just("metadata: {name: \"null\"}\n".to_owned()),
        Just("metadata: {name: \"b\\n\\u00e9 \\ufeff\\uffff\"}\n".to_owned()),
        Just("metadata: {name: instance}\n".to_owned()),
        Just("metadata: {name: zone-a}\n".to_owned()),
        Just("spec: {replicas: 3, selector: {app: a}, type: LoadBalancer}\n".to_owned()),
        Just("spec: {replicas: -1}\n".to_owned()),
        Just("spec: {replicas: 99999999999}\n".to_owned()),
        Just("spec:\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n      topologySpreadConstraints: [{topologyKey: topology.kubernetes.io/zone}]\n      containers: [{image: redis, env: [{name: \"X\\n\", value: \"a:1 b:2 http://a.ns.svc\"}, {name: Y, valueFrom: {configMapKeyRef: {name: c, key: k}}}], envFrom: [{configMapRef: {name: c}}], args: [\"--x=a\"]}]\n".to_owned()),
        Just("replicas: {{ .Values.n }}\n".to_owned()),
        Just("{[\"'&*!|>%@`\n".to_owned()),
        "[ -~]{0,12}\n",
        "[a-zA-Z]{1,8}: [0-9a-z.%:/-]{0,12}\n",
    ];
    prop::collection::vec(token, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_manifest_makes_the_importer_panic(
        texts in prop::collection::vec(manifest_like_text(), 1..3),
        zones in prop::sample::select(vec![Vec::new(), vec!["a".to_owned()], vec!["x".to_owned(), "y".to_owned()]]),
    ) {
        let sources: Vec<Source> = texts
            .into_iter()
            .enumerate()
            .map(|(i, text)| Source { name: format!("f{i}.yaml"), text })
            .collect();
        let options = Options { zones, system: None };
        if let Ok(imported) = import::kubernetes(&sources, &options) {
            let model = parse(&imported.model);
            prop_assert!(model.is_ok(), "{:?}\n{}", model.err(), imported.model);
            let again = import::kubernetes(&sources, &options).map(|i| i.model);
            prop_assert_eq!(again.ok(), Some(imported.model));
        }
    }
}

/// `import k8s` of `path` and `check` of the model it writes: the ids of
/// the `unreachable/` findings and their severities, with the import's
/// standard error and model.
fn unreached(path: &str, extra: &[&str]) -> (Vec<(String, String)>, Run, Model) {
    let args: Vec<&str> = std::iter::once(path).chain(extra.iter().copied()).collect();
    let run = import_k8s(&args);
    assert_eq!(run.outcome, Outcome::Pass, "{}", run.stderr);
    let model = parse(&run.stdout).unwrap_or_else(|p| panic!("{p:?}\n{}", run.stdout));
    let checked = check("imported.yaml", &run.stdout, Format::Json);
    let audit: serde_json::Value = serde_json::from_str(&checked.stdout).unwrap();
    let ids = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "unreachable")
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (ids, run, model)
}

fn kind_of<'a>(model: &'a Model, name: &str) -> Option<&'a str> {
    component(model, name).kind.as_deref()
}

#[test]
fn sock_shop_says_what_it_never_judges_and_knows_its_datastores() {
    // 14 workloads; the only address in a variable is user's
    // mongo=user-db:27017, so from front-end (NodePort) nothing is reached:
    // 14 - 1 = 13 unreachable, each a warning (none calls into front-end).
    let (ids, run, model) = unreached(&format!("{FIXTURES}/sock-shop.yaml"), &[]);
    assert_eq!(names(&model, &model.entrypoints), ["front-end"]);
    assert_eq!(ids.len(), 13, "{ids:?}");
    assert!(ids.iter().all(|(_, severity)| severity == "warning"));
    assert!(ids.iter().any(|(id, _)| id == "unreachable/user-db"));
    // By image (mongo, redis), by port (3306 named mysql; 27017 named
    // mongo on weaveworksdemos/user-db), and rabbitmq as a queue.
    for db in [
        "carts-db",
        "orders-db",
        "session-db",
        "catalogue-db",
        "user-db",
    ] {
        assert_eq!(kind_of(&model, db), Some("datastore"), "{db}");
    }
    assert_eq!(kind_of(&model, "rabbitmq"), Some("queue"));
    assert_eq!(kind_of(&model, "carts"), Some("service"));
    assert!(run.stdout.contains("# recovery: {rto: 1h, rpo: 5m}"));
    assert_eq!(model.system, "sock-shop");
}

#[test]
fn teastore_judges_nothing_behind_its_registry_and_says_why() {
    // webui (NodePort) names only REGISTRY_HOST: from it the registry is
    // reached, and auth, image, persistence, recommender and teastore-db
    // (behind persistence's DB_HOST) are not: 5 warnings. Calling the
    // registry (a discovery service, plane control) is no sign of a worker.
    let (ids, run, model) = unreached(&format!("{FIXTURES}/teastore.yaml"), &[]);
    let mut unreached_ids: Vec<&str> = ids.iter().map(|(id, _)| id.as_str()).collect();
    unreached_ids.sort_unstable();
    assert_eq!(
        unreached_ids,
        [
            "unreachable/teastore-auth",
            "unreachable/teastore-db",
            "unreachable/teastore-image",
            "unreachable/teastore-persistence",
            "unreachable/teastore-recommender",
        ]
    );
    assert!(ids.iter().all(|(_, severity)| severity == "warning"));
    // teastore-db listens on 3306 (MariaDB): a datastore, judged nowhere
    // before this.
    assert_eq!(kind_of(&model, "teastore-db"), Some("datastore"));
    let registry = component(&model, "teastore-registry");
    assert_eq!(registry.kind.as_deref(), Some("discovery"));
    assert_eq!(registry.plane, nines::model::Plane::Control);
    assert!(
        run.stderr
            .contains("teastore-registry (image descartesresearch/teastore-registry: a service registry) is a discovery service"),
        "{}",
        run.stderr
    );
}

#[test]
fn deathstarbench_notes_consul_names_the_folder_and_guesses_entrypoints() {
    let folder = "tests/fixtures/import-sets/hotelReservation/kubernetes";
    let (ids, run, model) = unreached(folder, &["--zones", "a,b,c"]);
    // 19 workloads and no address in any variable: the Consul note, and the
    // system after the folder above `kubernetes/`.
    assert!(
        run.stderr.contains(
            "no dependency found: no workload names another Service in its variables, arguments or ConfigMaps; consul (image consul:latest: Consul) is a discovery service and the pods carry Istio sidecar annotations"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(model.system, "hotelReservation");
    assert!(run.stderr.contains("after the folder the manifests are in"));
    assert!(run.stderr.contains("--zones a,b,c had no effect"));
    assert!(model.domains.is_empty());
    // Entrypoints: the 8 services; the 6 mongodb, 3 memcached, consul and
    // jaeger (11) are left out of the guess, and each is unreachable.
    assert_eq!(
        names(&model, &model.entrypoints),
        [
            "frontend",
            "geo",
            "profile",
            "rate",
            "recommendation",
            "reservation",
            "search",
            "user"
        ]
    );
    assert_eq!(ids.len(), 19 - 8, "{ids:?}");
    for store in ["mongodb-geo", "memcached-rate"] {
        assert_eq!(kind_of(&model, store), Some("datastore"), "{store}");
    }
    assert_eq!(kind_of(&model, "jaeger"), Some("tracing"));
}
