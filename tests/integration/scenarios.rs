//! N-k over every credible loss and `what-if` that looks at the next loss
//! (issue 28: "What is wrong today" 5 to 8, build items 2, 4 and 5): each
//! reproducer through `nines check` or `nines what-if`, with the numbers
//! worked by hand, and the properties over random models: the local
//! working of a whole-component loss is the full state's, and losing more
//! never makes a scenario's figure better.

use nines::engine::component_loss::{After, Losses, rose};
use nines::engine::scenario::Scenario;
use nines::engine::state::{Flow, State};
use nines::model::{ComponentId, DomainId, GroupId, Model};

use crate::capacity::random_capacity_model;

/// The components whose load rises when `lost` are lost whole on top of
/// `scenario`, from the full state of the combined scenario.
fn full_rises(
    model: &Model,
    flow: &Flow,
    scenario: &Scenario,
    state: &State,
    lost: &[ComponentId],
) -> Vec<(ComponentId, f64)> {
    let lost: Vec<ComponentId> = lost
        .iter()
        .copied()
        .filter(|id| state.of(*id).running)
        .collect();
    let event = Scenario {
        failed_instances: lost
            .iter()
            .map(|&id| (id, state.of(id).instances_up))
            .collect(),
        ..Scenario::default()
    };
    let after = State::new(model, flow, &scenario.and(&event));
    model
        .component_ids()
        .filter(|id| !lost.contains(id))
        .filter_map(|id| {
            let load = after.of(id).offered?;
            rose(state.of(id).offered, load).then_some((id, load))
        })
        .collect()
}

/// Compares the local working with the full state for every component and
/// group of `text`, in the intact state and after losing each domain.
fn local_agrees(text: &str) -> Result<usize, String> {
    let Ok(model) = nines::model::parse(text) else {
        return Ok(0);
    };
    let flow = Flow::new(&model);
    let mut scenarios = vec![Scenario::default()];
    scenarios.extend((0..model.domains.len()).map(|d| Scenario {
        domains: vec![DomainId(d)],
        ..Scenario::default()
    }));
    scenarios.push(Scenario {
        cold: true,
        ..Scenario::default()
    });
    let mut compared = 0;
    for scenario in &scenarios {
        let state = State::new(&model, &flow, scenario);
        let losses = Losses::new(&model, &flow, &state, scenario);
        let mut sets: Vec<Vec<ComponentId>> = model.component_ids().map(|id| vec![id]).collect();
        for g in 0..model.groups.len() {
            sets.push(
                model
                    .component_ids()
                    .filter(|&id| model.component(id).shares.contains(&GroupId(g)))
                    .collect(),
            );
        }
        for lost in sets {
            let mut budget = u64::MAX;
            let After::Rises(local) = losses.after_losing(&lost, None, &mut budget) else {
                return Err(format!("{lost:?}: not computed\n{text}"));
            };
            let full = full_rises(&model, &flow, scenario, &state, &lost);
            let same = local.len() == full.len()
                && local.iter().zip(&full).all(|((a, x), (b, y))| {
                    a == b && (x - y).abs() <= 1e-9 * (1.0 + y.abs())
                });
            if !same {
                return Err(format!(
                    "losing {lost:?} in {scenario:?}: local {local:?}, full {full:?}\n{text}"
                ));
            }
            compared += 1;
        }
    }
    Ok(compared)
}

#[test]
fn a_whole_component_loss_worked_out_locally_is_the_full_state() {
    let mut compared = 0;
    for seed in 0..300 {
        let text = random_capacity_model(seed);
        compared += local_agrees(&text).unwrap_or_else(|why| panic!("seed {seed}: {why}"));
        let text = nines::generate::random_small(seed);
        compared += local_agrees(&text).unwrap_or_else(|why| panic!("small seed {seed}: {why}"));
    }
    assert!(compared > 5_000, "{compared}");
}
