//! Durable backlogs after an outage: what a queue (a component of a queue
//! kind) holds when the outage ends, how fast its consumers drain it, when
//! they have caught up, the lag at its worst and what a retention limit
//! loses (docs/recovery.md, "Backlogs").
//!
//! A backlog forms in two ways, each while the producers stay up:
//!
//! - the queue was down and its producers kept their messages for later
//!   (an outbox: the queue is `criticality: deferrable`): they hold what
//!   they would have sent, `λ × D`, and send it when the queue is back;
//! - the queue stayed up and its consumers were down (or too few survived):
//!   it keeps what they did not take, `(λ − surviving consumer capacity) × D`.
//!
//! After the restart the consumers drain it at their capacity minus the
//! live input, `K − λ`; the oldest event has waited the whole outage, so
//! the lag is at its worst at the restart: `D` and the backlog itself.
//! Figures are in the model's unit of load (events per second).

use serde::Serialize;

use super::Scenario;
use crate::model::{ComponentId, Criticality, Model};

/// One queue's backlog after the outage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Backlog {
    /// The queue.
    pub component: String,
    /// Where it waits: `queue` (its consumers were down) or `producers`
    /// (the queue was down; its producers kept it for later).
    pub held_by: &'static str,
    /// The input that accumulated, per second.
    pub input: f64,
    /// Events waiting when the outage ends (after the retention limit).
    pub events: f64,
    /// The consumers' capacity after the restart, per second (`None`: no
    /// consumer gives a capacity).
    pub consumer_capacity: Option<f64>,
    /// Consumer capacity minus the live input, per second.
    pub drain_rate: Option<f64>,
    /// Seconds from the restart until the consumers have caught up
    /// (`None`: they never do, or no capacity is known).
    pub catch_up_s: Option<f64>,
    /// The lag at its worst (at the restart), seconds: the age of the
    /// oldest waiting event.
    pub worst_lag_s: f64,
    /// The queue's `retention`, seconds, when written.
    pub retention_s: Option<f64>,
    /// Events older than the retention, lost (0 without a limit or within it).
    pub lost: f64,
}

/// The backlog of every queue the scenario leaves one in, in model order.
#[must_use]
pub fn backlogs(model: &Model, scenario: &Scenario) -> Vec<Backlog> {
    let loads = crate::engine::state::Flow::new(model)
        .intact_loads()
        .to_vec();
    let whole = |id: ComponentId| scenario.restarts(model, id);
    let mut out = Vec::new();
    for q in model.component_ids() {
        let queue = model.component(q);
        if !queue.is_queue() {
            continue;
        }
        let Some(input) = loads[q.0].filter(|&l| l > 0.0) else {
            continue;
        };
        // The producers' shares of the input, and those that stayed up.
        let (mut all, mut up) = (0.0, 0.0);
        // The consumers' capacity after the restart and through the outage.
        let (mut capacity, mut surviving, mut known) = (0.0, 0.0, false);
        for caller in model.component_ids() {
            let c = model.component(caller);
            for edge in c.depends_on.iter().filter(|e| e.targets.contains(&q)) {
                if edge.pull {
                    if let Some(figures) = c.capacity {
                        known = true;
                        let instances = f64::from(c.instances);
                        let lost = f64::from(scenario.restarted[caller.0].min(c.instances));
                        capacity += figures.per_instance * instances;
                        surviving += figures.per_instance * (instances - lost);
                    }
                    continue;
                }
                let weight = loads[caller.0].unwrap_or(1.0) * edge.calls;
                all += weight;
                if !whole(caller) {
                    up += weight;
                }
            }
        }
        if all <= 0.0 || up <= 0.0 {
            continue;
        }
        let live = input * up / all;
        let (held_by, rate) = if whole(q) {
            if queue.criticality != Criticality::Deferrable {
                // The producers fail their requests instead of keeping them.
                continue;
            }
            ("producers", live)
        } else if known && surviving < live {
            ("queue", live - surviving)
        } else {
            continue;
        };
        let outage = scenario.outage_s;
        let retention_s = queue.retention.map(crate::model::Duration::seconds);
        // The retention counts from when an event reaches the queue: held
        // by the producers, nothing has reached it yet.
        let kept_s = match retention_s {
            Some(r) if held_by == "queue" => r.min(outage),
            _ => outage,
        };
        let events = rate * kept_s;
        let lost = rate * (outage - kept_s);
        let drain_rate = known.then_some(capacity - input);
        let catch_up_s = drain_rate.filter(|&d| d > 0.0).map(|d| events / d);
        out.push(Backlog {
            component: queue.name.clone(),
            held_by,
            input: rate,
            events,
            consumer_capacity: known.then_some(capacity),
            drain_rate,
            catch_up_s,
            worst_lag_s: kept_s,
            retention_s,
            lost,
        });
    }
    out
}
