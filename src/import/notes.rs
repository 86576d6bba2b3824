//! The notes an import owes the user about what the manifests could not
//! show: no dependency found at all (and the discovery service or mesh the
//! services find each other through instead), a discovery service whose
//! callers' own calls are invisible, `--zones` that declared nothing, and
//! how the system was named. Each note says what `check` will then report
//! and how to complete the model.

use std::path::Path;

use super::draft::{Part, sanitize};
use super::k8s::Manifests;
use super::recognise::Role;
use super::{Note, Options, Source};

/// Notes when the calls between services are not in the manifests: no
/// dependency at all between the `served` workloads (those a Service
/// selects), or a discovery service that the services find each other
/// through.
pub(crate) fn unseen_calls(
    manifests: &Manifests,
    names: &[String],
    roles: &[Role],
    parts: &[Part],
    served: usize,
    notes: &mut Vec<Note>,
) {
    let discovery: Vec<(usize, &str)> = roles
        .iter()
        .enumerate()
        .filter_map(|(i, role)| match role {
            Role::Discovery(why) => Some((i, why.as_str())),
            _ => None,
        })
        .collect();
    let mesh = manifests.workloads.iter().find_map(|w| w.mesh);
    // Services that could call each other, and no call between them.
    let no_edges = served > 1 && parts.iter().all(|p| p.edges.is_empty());
    let through = discovery
        .iter()
        .map(|&(i, why)| format!("{} ({why})", names[i]))
        .collect::<Vec<_>>()
        .join(", ");
    if no_edges {
        let why = match (discovery.is_empty(), mesh) {
            (false, Some(mesh)) => format!(
                "{through} is a discovery service and the pods carry {mesh} sidecar annotations: the services find each other at run time, by names the manifests need not write"
            ),
            (false, None) => format!(
                "{through} is a discovery service: the services find each other through it at run time"
            ),
            (true, Some(mesh)) => format!(
                "the pods carry {mesh} sidecar annotations and no variable holds an address: the mesh routes calls by names written in the code"
            ),
            (true, None) => {
                "the addresses are probably in the code or in files these manifests do not show"
                    .to_owned()
            }
        };
        notes.push(Note {
            origin: discovery
                .first()
                .map(|&(i, _)| manifests.workloads[i].origin),
            message: format!(
                "no dependency found: no workload names another Service in its variables, arguments or ConfigMaps; {why}. The model has no edge, so `nines check` judges each component alone and lists what no entrypoint reaches (`unreachable/`): add the calls by hand, or from traces with `nines import traces --merge`"
            ),
        });
    } else if !discovery.is_empty() {
        notes.push(Note {
            origin: Some(manifests.workloads[discovery[0].0].origin),
            message: format!(
                "{through} is a discovery service: the services that find each other through it name only it, so their calls to each other are not in the manifests; `nines check` lists what no entrypoint reaches (`unreachable/`), and `nines import traces --merge` adds the measured calls"
            ),
        });
    }
}

/// A note when `--zones` was given and no workload spreads by zone.
pub(crate) fn zones_unused(options: &Options, zone_spread: bool, notes: &mut Vec<Note>) {
    if options.zones.is_empty() || zone_spread {
        return;
    }
    notes.push(Note {
        origin: None,
        message: format!(
            "--zones {} had no effect: no workload spreads its pods by zone (`topologySpreadConstraints` or pod anti-affinity on topology.kubernetes.io/zone), so no zone is declared and nothing is placed; write the `domains` and `placement` by hand",
            options.zones.join(",")
        ),
    });
}

/// Folder names that say nothing of the system: the one above is used.
const GENERIC_FOLDERS: &[&str] = &[
    "kubernetes",
    "k8s",
    "kube",
    "manifests",
    "manifest",
    "deploy",
    "deployment",
    "deployments",
    "base",
    "overlays",
    "yaml",
    "config",
    "helm",
    "templates",
    "charts",
    "resources",
    "src",
    ".",
];

/// The system's name, and a note when it comes from a path: `--system`,
/// else the first namespace a workload is in, else the folder the inputs
/// share (above a generic one such as `kubernetes/`), else the first
/// input's file stem.
pub(crate) fn system_name(
    manifests: &Manifests,
    sources: &[Source],
    options: &Options,
) -> (String, Option<String>) {
    if let Some(system) = &options.system {
        return (system.clone(), None);
    }
    if let Some(namespace) = manifests
        .workloads
        .iter()
        .find_map(|w| w.namespace.as_ref())
    {
        return (sanitize(namespace), None);
    }
    if sources.len() > 1
        && let Some(folder) = shared_folder(sources)
    {
        let name = sanitize(&folder);
        return (
            name.clone(),
            Some(format!(
                "the system is named `{name}` after the folder the manifests are in; `--system NAME` names it"
            )),
        );
    }
    let stem = sources
        .first()
        .map(|s| {
            let path = Path::new(&s.name);
            path.file_stem().map_or_else(
                || s.name.clone(),
                |stem| stem.to_string_lossy().into_owned(),
            )
        })
        .unwrap_or_default();
    let name = sanitize(&stem);
    let why = format!("the system is named `{name}` after the file; `--system NAME` names it");
    (name, Some(why))
}

/// The last folder all sources share that is not a generic one.
fn shared_folder(sources: &[Source]) -> Option<String> {
    let mut common: Option<Vec<String>> = None;
    for source in sources {
        let parts: Vec<String> = Path::new(&source.name)
            .parent()?
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        common = Some(match common {
            None => parts,
            Some(before) => before
                .into_iter()
                .zip(parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common?
        .into_iter()
        .rev()
        .find(|part| !GENERIC_FOLDERS.contains(&part.to_ascii_lowercase().as_str()) && part != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(names: &[&str]) -> Vec<Source> {
        names
            .iter()
            .map(|n| Source {
                name: (*n).to_owned(),
                text: String::new(),
            })
            .collect()
    }

    #[test]
    fn the_shared_folder_skips_generic_names() {
        assert_eq!(
            shared_folder(&sources(&[
                "DeathStarBench/hotelReservation/kubernetes/consul.yaml",
                "DeathStarBench/hotelReservation/kubernetes/frontend/frontend.yaml",
            ]))
            .as_deref(),
            Some("hotelReservation")
        );
        assert_eq!(
            shared_folder(&sources(&["shop/a.yaml", "shop/b.yaml"])).as_deref(),
            Some("shop")
        );
        assert_eq!(shared_folder(&sources(&["a.yaml", "b.yaml"])), None);
    }
}
