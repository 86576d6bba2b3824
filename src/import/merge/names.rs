//! Which component of a model each traced service is, for the merge and for
//! `check --observed` alike: a service is the component of its name (or of
//! its name in the traces); a service the model lacks becomes a component
//! of its name, unless a domain or a shared-fate group has that name (one
//! namespace holds them all), then it gets `-2`, `-3` … as `import k8s`
//! names a workload whose name is taken. Merging again finds the renamed
//! component under the same name, so a second merge adds nothing.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::super::service_graph::Graph;
use crate::model::Model;

/// The services of a graph and the components of a model, matched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    /// The component of each service, by its name in the graph: one of the
    /// model, or one to add.
    pub component: BTreeMap<String, String>,
    /// The service of each component of the model the traces know, by
    /// component name.
    pub service: HashMap<String, String>,
    /// The services to add as components, renamed where a domain or group
    /// holds their name: `(name in the graph, component name)`.
    pub added: Vec<(String, String)>,
}

impl Names {
    /// The component a service is, by its name in the graph.
    pub fn of<'a>(&'a self, service: &'a str) -> &'a str {
        self.component.get(service).map_or(service, String::as_str)
    }

    /// Whether the service is a component the model lacks.
    pub fn is_added(&self, service: &str) -> bool {
        self.component
            .get(service)
            .is_some_and(|name| !self.service.contains_key(name))
    }
}

/// Matches the services of `graph` with the components of `model`.
pub fn resolve(model: &Model, graph: &Graph) -> Names {
    let mut names = Names::default();
    let components: HashSet<&str> = model.components.iter().map(|c| c.name.as_str()).collect();
    for component in &model.components {
        if let Some(service) = graph.find(&component.name)
            && !names.component.contains_key(service)
        {
            names
                .component
                .insert(service.to_owned(), component.name.clone());
            names
                .service
                .insert(component.name.clone(), service.to_owned());
        }
    }
    let reserved: HashSet<&str> = model
        .domains
        .iter()
        .map(|d| d.name.as_str())
        .chain(model.groups.iter().map(|g| g.name.as_str()))
        .chain(["instance"])
        .collect();
    // Names given to added services, and the components matched already.
    let mut given: HashSet<String> = HashSet::new();
    let mut renamed: Vec<&str> = Vec::new();
    for service in graph.services.keys() {
        if names.component.contains_key(service) {
            continue;
        }
        if reserved.contains(service.as_str()) || components.contains(service.as_str()) {
            renamed.push(service);
        } else {
            given.insert(service.clone());
            names.component.insert(service.clone(), service.clone());
            names.added.push((service.clone(), service.clone()));
        }
    }
    // Per base, the next suffix to try: each failed try is a name taken
    // once, so the tries are linear in the names.
    let mut next: HashMap<&str, u64> = HashMap::new();
    for service in renamed {
        let n = next.entry(service).or_insert(2);
        loop {
            let candidate = format!("{service}-{n}");
            *n += 1;
            if reserved.contains(candidate.as_str()) || given.contains(&candidate) {
                continue;
            }
            if components.contains(candidate.as_str()) {
                if names.service.contains_key(&candidate) {
                    continue;
                }
                // The component a previous merge added for this service.
                names.service.insert(candidate.clone(), service.to_owned());
            } else {
                given.insert(candidate.clone());
                names.added.push((service.to_owned(), candidate.clone()));
            }
            names.component.insert(service.to_owned(), candidate);
            break;
        }
    }
    names.added.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:?}"))
    }

    #[test]
    fn a_service_named_like_a_domain_is_renamed_and_found_again() {
        let m = model(
            "system: s\ndomains:\n  zone-a: {kind: zone}\nshared_fate:\n  deploy: {}\ncomponents:\n  web: {placement: [zone-a]}\n",
        );
        let graph = Graph::from_counts(&[
            ("web", "zone-a", 1.0),
            ("web", "deploy", 1.0),
            ("web", "db", 1.0),
        ]);
        let names = resolve(&m, &graph);
        assert_eq!(names.of("zone-a"), "zone-a-2");
        assert_eq!(names.of("deploy"), "deploy-2");
        assert_eq!(names.of("db"), "db");
        assert_eq!(names.of("web"), "web");
        assert!(names.is_added("zone-a") && !names.is_added("web"));
        assert_eq!(
            names.added,
            [
                ("db".to_owned(), "db".to_owned()),
                ("deploy".to_owned(), "deploy-2".to_owned()),
                ("zone-a".to_owned(), "zone-a-2".to_owned()),
            ]
        );
        // Once added, the same service is that component.
        let m = model(
            "system: s\ndomains:\n  zone-a: {kind: zone}\ncomponents:\n  web: {placement: [zone-a]}\n  zone-a-2: {}\n",
        );
        let names = resolve(&m, &graph);
        assert_eq!(names.of("zone-a"), "zone-a-2");
        assert!(!names.is_added("zone-a"));
        assert_eq!(names.service["zone-a-2"], "zone-a");
    }

    #[test]
    fn a_traced_name_taken_by_another_added_service_moves_on() {
        // `zone-a-2` is traced too: it keeps its name, `zone-a` takes -3.
        let m = model("system: s\ndomains:\n  zone-a: {kind: zone}\ncomponents:\n  web: {}\n");
        let graph = Graph::from_counts(&[("web", "zone-a", 1.0), ("web", "zone-a-2", 1.0)]);
        let names = resolve(&m, &graph);
        assert_eq!(names.of("zone-a-2"), "zone-a-2");
        assert_eq!(names.of("zone-a"), "zone-a-3");
    }
}
