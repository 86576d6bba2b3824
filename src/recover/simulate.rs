//! One run of the recovery simulation: one-second steps from the restart to
//! the horizon. Each step starts the waves that are due, lets the
//! entrypoints admit their share, pushes load from callers to the
//! components they call (retries at last step's failure rate, caches at
//! their fill), updates every component's queue, failure rate and warm-up,
//! refills the caches, and lets the admission ramp decide.

#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "step counts, retries and component indices are small and non-negative: horizons are at most a day of seconds, retries are capped at 64, and a model has far fewer than 2^32 components or edges"
)]

use super::Scenario;
use super::herd::Herd;
use super::network::{Network, attempts};
use super::retry::RetryLine;
use super::waves::{Waves, next_share};
use crate::model::{Backoff, Model};

/// The recovery figures, resolved from the model's `policy` and the
/// command line, with the names of the defaults that were used.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Share of capacity an instance with a `warmup` restarts at.
    pub cold_capacity: f64,
    /// First admitted share.
    pub ramp_start: f64,
    /// Growth factor below half the target.
    pub ramp_increase: f64,
    /// Additive growth from half the target.
    pub ramp_step: f64,
    /// Factor after a breach.
    pub ramp_decrease: f64,
    /// Seconds between ramp steps and between start waves.
    pub ramp_interval_s: f64,
    /// Retries of the clients outside.
    pub client_retries: u32,
    /// The clients' timeout, seconds.
    pub client_timeout_s: f64,
    /// The clients' backoff.
    pub client_backoff: Backoff,
    /// `policy.max_utilization`.
    pub max_utilization: f64,
    /// `policy.ramp_ceiling`: the highest share of its capacity a raise of
    /// the ramp below the target may load a component to.
    pub ramp_ceiling: f64,
    /// Simulated time, seconds.
    pub horizon_s: f64,
    /// Whether the callers' retries arrive after their edge's backoff
    /// (`retry.rs`) rather than in the same step at last step's failure
    /// rate (the memoryless factor `1 + f + … + f^retries`, kept for
    /// comparison). On by default.
    pub retry_timing: bool,
    /// Every default that was used, as `key = value`.
    pub defaults: Vec<String>,
}

impl Settings {
    /// The share of capacity a raise of the ramp to `share` may load a
    /// component to: the ceiling below the target, `max_utilization` at it
    /// (the steady state is judged as `check` judges it).
    #[must_use]
    pub fn raise_limit(&self, share: Option<f64>) -> f64 {
        match share {
            Some(a) if a < 1.0 - 1e-12 => self.max_utilization.min(self.ramp_ceiling),
            _ => self.max_utilization,
        }
    }

    /// The model's figures, each missing one replaced by its default (and
    /// named in [`Settings::defaults`]).
    #[must_use]
    pub fn of(model: &Model, horizon_s: f64) -> Self {
        let p = model.policy.recovery;
        let mut defaults = Vec::new();
        let mut pick = |key: &str, given: Option<f64>, default: f64, shown: &str| {
            given.unwrap_or_else(|| {
                defaults.push(format!("policy.{key} = {shown} (default)"));
                default
            })
        };
        let cold_capacity = pick("cold_capacity", p.cold_capacity, 0.5, "50%");
        let ramp_start = pick("ramp_start", p.ramp_start, 0.1, "10%");
        let ramp_increase = pick("ramp_increase", p.ramp_increase, 1.5, "1.5");
        let ramp_step = pick("ramp_step", p.ramp_step, 0.1, "10%");
        let ramp_decrease = pick("ramp_decrease", p.ramp_decrease, 0.5, "50%");
        let ramp_ceiling = pick("ramp_ceiling", p.ramp_ceiling, 0.9, "90%");
        let ramp_interval_s = pick(
            "ramp_interval",
            p.ramp_interval.map(crate::model::Duration::seconds),
            10.0,
            "10s",
        )
        .max(1.0);
        let client_retries =
            pick("client_retries", p.client_retries.map(f64::from), 0.0, "0") as u32;
        let client_timeout_s = if client_retries > 0 {
            pick(
                "client_timeout",
                p.client_timeout.map(crate::model::Duration::seconds),
                10.0,
                "10s",
            )
        } else {
            p.client_timeout
                .map_or(10.0, crate::model::Duration::seconds)
        };
        let client_backoff = p.client_backoff.unwrap_or_else(|| {
            if client_retries > 0 {
                defaults.push("policy.client_backoff = jittered (default)".to_owned());
            }
            Backoff::Jittered
        });
        Self {
            cold_capacity,
            ramp_start,
            ramp_increase,
            ramp_step,
            ramp_decrease,
            ramp_interval_s,
            client_retries,
            client_timeout_s,
            client_backoff,
            max_utilization: model.policy.max_utilization,
            ramp_ceiling,
            horizon_s,
            retry_timing: true,
            defaults,
        }
    }
}

/// How the entrypoints admit traffic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admission {
    /// Everything, at once.
    Open,
    /// At most this share of the steady rate until every component is warm
    /// and healthy, then everything.
    Hold(f64),
    /// The ramp of [`Settings`].
    Ramp,
}

/// What one run shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Whether the last step is at full service.
    pub converged: bool,
    /// Seconds from the restart to the step from which service stays full.
    pub full_service_s: Option<f64>,
    /// The first component whose load went over `max_utilization` of its
    /// capacity, and when (seconds).
    pub first_breach: Option<(usize, f64)>,
    /// Per component: peak load over capacity, and when (seconds); `None`
    /// without a capacity or without traffic.
    pub peak: Vec<Option<(f64, f64)>>,
    /// Components collapsed at the horizon.
    pub stuck: Vec<usize>,
    /// Admission changes: (second, admitted share; `None` = unlimited).
    pub schedule: Vec<(f64, Option<f64>)>,
    /// When each component started, seconds.
    pub started_s: Vec<Option<f64>>,
    /// The restarted waves in start order, with their admission.
    pub waves: Vec<WaveRun>,
    /// Clients' arrivals at the entrypoints per step (relative, summed).
    pub arrivals: Vec<f64>,
    /// Sampled load (max in the window) and capacity per component, as
    /// multiples of the steady load; `sample_s` apart.
    pub samples: Vec<Vec<(f64, f64)>>,
    /// Seconds between samples.
    pub sample_s: f64,
}

/// One start wave in a run.
#[derive(Debug, Clone, PartialEq)]
pub struct WaveRun {
    /// Its members (component indices).
    pub members: Vec<usize>,
    /// When it started, seconds (`None`: not within the horizon).
    pub start_s: Option<f64>,
    /// When it was verified serving (started, nothing collapsed, its gate
    /// open or not yet reached by traffic), seconds.
    pub verified_s: Option<f64>,
    /// Whether callers in other waves reach it: the ramp has a gate at the
    /// edge into it.
    pub gated: bool,
    /// The gate's changes under the ramp: (second, share; `None` = open).
    pub schedule: Vec<(f64, Option<f64>)>,
}

/// Mutable state of one component.
#[derive(Debug, Clone, Copy, Default)]
struct State {
    started: bool,
    traffic: bool,
    warm_s: f64,
    queue: f64,
    collapsed: bool,
    failure: f64,
    processed: f64,
    offered: f64,
    success: f64,
}

const FULL_SUCCESS: f64 = 0.999;
const SAMPLES: usize = 120;

/// Runs the simulation of `scenario` under `admission`.
#[must_use]
pub fn simulate(
    net: &Network,
    scenario: &Scenario,
    settings: &Settings,
    admission: Admission,
) -> Run {
    run_steps(net, scenario, settings, admission, true)
}

/// The simulation; `skip`: stop stepping at a fixed point (the tests
/// compare both).
pub(crate) fn run_steps(
    net: &Network,
    scenario: &Scenario,
    settings: &Settings,
    admission: Admission,
    skip: bool,
) -> Run {
    let mut sim = Sim::new(net, scenario, settings, admission);
    for step in 0..sim.steps {
        // Whether this step differs from the one before (see `settled`).
        let mut changed = sim.unstarted > 0;
        let admissions = sim.run.schedule.len() + sim.waves.changes();
        sim.start_due_waves(step);
        let (arrivals_total, entry_flow) = sim.flow(step, &mut changed);
        sim.run.arrivals.push(arrivals_total);
        changed |= sim.refill_caches();
        success(net, &mut sim.state, &mut sim.success_of, &sim.fill);
        sim.retry_failed_clients(step, &entry_flow);
        let healthy = sim.unstarted == 0 && sim.state.iter().all(|s| !s.collapsed);
        let warm = sim.warm(step, healthy);
        // A gate moved at the end of this step admits from the next one.
        let gates_open = sim.waves.open();
        let shut: Vec<bool> = sim.waves.list.iter().map(|w| w.share.is_some()).collect();
        sim.count_in_flight(step);
        admit_waves(
            &mut sim.waves,
            &sim.state,
            Demand {
                outside: &sim.demand,
                fresh: &sim.fresh,
                inside: &sim.inside,
                in_flight: &sim.in_flight,
                timeout_s: &net.timeout_s,
            },
            step,
            sim.interval,
            sim.entries_up,
            |c, s| capacity(net, c, s, scenario, settings),
            settings,
        );
        sim.end_refusals(&shut);
        let at_full = sim.entries_up
            && gates_open
            && sim.limit.is_none_or(|l| l >= 1.0 - 1e-12)
            && healthy
            && entry_flow
                .iter()
                .all(|&(c, _, _)| sim.state[c].success >= FULL_SUCCESS);
        if !at_full {
            sim.last_not_full = Some(step);
        }
        sim.admit(step, healthy, warm);
        sim.sample(step);
        if skip
            && !changed
            && sim.inert(healthy, warm, admissions)
            && sim.herds.iter().flatten().all(Herd::is_empty)
            && step + 1 < sim.steps
        {
            sim.fast_forward(step, arrivals_total, at_full);
            break;
        }
    }
    sim.finish()
}

/// A component before the first step: a restarted one not started (it
/// starts with its wave), any other up, serving, and warm unless `cold`.
fn initial_state(restarted: bool, cold: bool) -> State {
    if restarted {
        State {
            failure: 1.0,
            ..State::default()
        }
    } else {
        State {
            started: true,
            traffic: true,
            warm_s: if cold { 0.0 } else { f64::INFINITY },
            success: 1.0,
            ..State::default()
        }
    }
}

/// One run between two steps: the network and settings it runs on, and
/// everything a step changes.
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent flags of one run (entrypoints up, the clients' ramp, a breach, a drain under way), not a state machine"
)]
struct Sim<'a> {
    net: &'a Network,
    scenario: &'a Scenario,
    settings: &'a Settings,
    admission: Admission,
    /// Steps to the horizon.
    steps: usize,
    /// Steps between ramp moves and between start waves.
    interval: usize,
    /// Whether each component restarts with cold capacity and caches.
    cold: Vec<bool>,
    waves: Waves,
    /// Per component: the calls from outside its wave before the gate, and
    /// the share of them the gate refused (last step's).
    demand: Vec<f64>,
    refused: Vec<f64>,
    /// Per component: the load from inside its wave (and its clients).
    inside: Vec<f64>,
    /// Per component: the calls from outside its wave without their
    /// retries (what they would be once nothing fails).
    fresh: Vec<f64>,
    state: Vec<State>,
    /// Each link's cache fill (1: warm).
    fill: Vec<f64>,
    /// Whether each component has a caller that stayed up through the
    /// outage: those callers have been failing and retrying all along, so
    /// its first traffic is at their retry limit.
    held: Vec<bool>,
    /// The first step of the current run of healthy steps.
    healthy_since: Option<usize>,
    /// Whether the ramp admits at the entrypoints (one of them restarted).
    entry_ramp: bool,
    /// Whether a healthy run has begun that is not yet a whole interval
    /// long (the hold waits for it: the drain).
    drain_pending: bool,
    /// The retrying clients of each entrypoint.
    herds: Vec<Option<Herd>>,
    /// The share the entrypoints admit (`None`: all).
    limit: Option<f64>,
    run: Run,
    sample_every: usize,
    /// Each component's highest load in the sample window.
    window_max: Vec<f64>,
    last_not_full: Option<usize>,
    breach_in_interval: bool,
    /// The step every entrypoint had started.
    open_step: Option<usize>,
    retries_now: Vec<f64>,
    pending: Vec<Vec<f64>>,
    processed: Vec<f64>,
    success_of: Vec<f64>,
    unstarted: usize,
    entries_up: bool,
    /// Whether each component restarted whole.
    restarted: Vec<bool>,
    /// Per link: the retries on their way (`None`: none since the last
    /// failure, allocated when its target first fails it), and this step's
    /// first attempts.
    lines: Vec<Option<Box<RetryLine>>>,
    first_of: Vec<f64>,
    /// Per component: how many of its incoming links have a retry line.
    lines_into: Vec<u32>,
    /// Per member of a closed gate: the most of the retries from outside
    /// its wave still on their way that arrive in one step.
    in_flight: Vec<f64>,
    scratch: Vec<f64>,
}

impl<'a> Sim<'a> {
    /// The state before the first step: restarted components not started
    /// (by wave), the others up and warm.
    #[allow(
        clippy::too_many_lines,
        reason = "one initial value per field of the run, each with its reason"
    )]
    fn new(
        net: &'a Network,
        scenario: &'a Scenario,
        settings: &'a Settings,
        admission: Admission,
    ) -> Self {
        let n = net.names.len();
        let steps = settings.horizon_s.max(1.0) as usize;
        let interval = settings.ramp_interval_s.round().max(1.0) as usize;
        // Restarted components start by wave; the others are up and warm.
        let restarted: Vec<bool> = (0..n)
            .map(|c| scenario.restarted[c] >= net.instances[c])
            .collect();
        let cold: Vec<bool> = (0..n).map(|c| scenario.restarted[c] > 0).collect();
        let waves = Waves::new(
            &net.wave,
            &restarted,
            |c| {
                net.inbound[net.in_start[c]..net.in_start[c + 1]]
                    .iter()
                    .map(|l| l.caller as usize)
                    .collect()
            },
            |c| net.per_instance[c].is_some(),
            matches!(admission, Admission::Ramp).then_some(settings.ramp_start),
        );
        let state: Vec<State> = (0..n)
            .map(|c| initial_state(restarted[c], cold[c]))
            .collect();
        // A cache is cold in the share of its instances that restarted (an
        // in-process cache is its caller's); one restored from a snapshot,
        // or one that did not restart, is warm.
        let fill: Vec<f64> = net
            .links
            .iter()
            .map(|l| match l.cache {
                Some(cache) if !net.prewarmed[cache] => {
                    let lost = scenario.restarted[cache].min(net.instances[cache]);
                    1.0 - f64::from(lost) / f64::from(net.instances[cache].max(1))
                }
                _ => 1.0,
            })
            .collect();
        let held: Vec<bool> = (0..n)
            .map(|c| {
                net.inbound[net.in_start[c]..net.in_start[c + 1]]
                    .iter()
                    .any(|l| !restarted[l.caller as usize])
            })
            .collect();
        let timeout_steps = settings.client_timeout_s.round().max(1.0) as usize;
        let herds: Vec<Option<Herd>> = (0..n)
            .map(|c| {
                (net.entry[c] && settings.client_retries > 0).then(|| {
                    let retries = settings.client_retries;
                    Herd::new(retries, timeout_steps, settings.client_backoff, steps)
                })
            })
            .collect();
        // The clients' ramp is for entrypoints that restarted: when they
        // stayed up, the gates at the edges into the restarted waves admit.
        let entry_ramp = (0..n).any(|c| net.entry[c] && restarted[c]);
        let limit: Option<f64> = match admission {
            Admission::Open => None,
            Admission::Hold(share) => Some(share),
            Admission::Ramp => entry_ramp.then_some(settings.ramp_start),
        };
        let run = Run {
            converged: false,
            full_service_s: None,
            first_breach: None,
            peak: vec![None; n],
            stuck: Vec::new(),
            schedule: vec![(0.0, limit)],
            started_s: vec![None; n],
            waves: Vec::new(),
            arrivals: Vec::with_capacity(steps),
            samples: vec![Vec::with_capacity(SAMPLES + 1); n],
            sample_s: (steps.div_ceil(SAMPLES)).max(1) as f64,
        };
        let sample_every = run.sample_s as usize;
        let success_of: Vec<f64> = state.iter().map(|s| s.success).collect();
        let unstarted = state.iter().filter(|s| !s.started).count();
        Self {
            net,
            scenario,
            settings,
            admission,
            steps,
            interval,
            cold,
            waves,
            demand: vec![0.0f64; n],
            inside: vec![0.0f64; n],
            fresh: vec![0.0f64; n],
            refused: vec![0.0f64; n],
            state,
            fill,
            held,
            entry_ramp,
            drain_pending: false,
            healthy_since: None,
            herds,
            limit,
            run,
            sample_every,
            window_max: vec![0.0f64; n],
            last_not_full: None,
            breach_in_interval: false,
            open_step: None,
            retries_now: Vec::new(),
            pending: vec![Vec::new(); n],
            processed: vec![0.0f64; n],
            success_of,
            unstarted,
            entries_up: false,
            restarted,
            lines: vec![None; net.links.len()],
            first_of: vec![0.0f64; net.links.len()],
            lines_into: vec![0; n],
            in_flight: vec![0.0f64; n],
            scratch: Vec::new(),
        }
    }

    /// The capacity of component `c` in its current state.
    fn capacity_of(&self, c: usize) -> Option<f64> {
        capacity(self.net, c, &self.state[c], self.scenario, self.settings)
    }

    /// Starts the members of the waves due at `step`, and notes when every
    /// entrypoint has started.
    fn start_due_waves(&mut self, step: usize) {
        let now = step as f64;
        let n = self.net.names.len();
        for wave in &self.waves.list {
            if self.unstarted == 0 {
                break;
            }
            if wave.due != Some(step) {
                continue;
            }
            for &c in &wave.members {
                self.unstarted -= 1;
                self.state[c].started = true;
                if !self.held[c] {
                    // Every caller was down too and starts a wave later,
                    // with no attempt in flight: it meets an idle server.
                    self.state[c].failure = 0.0;
                }
                self.run.started_s[c] = Some(now);
                if self.net.entry[c]
                    && let Some(herd) = &mut self.herds[c]
                {
                    herd.after_outage(step, self.scenario.outage_s);
                }
            }
        }
        if !self.entries_up {
            self.entries_up = (0..n).all(|c| !self.net.entry[c] || self.state[c].started);
        }
        if self.entries_up && self.open_step.is_none() {
            self.open_step = Some(step);
        }
    }

    /// Load flows from callers to the components they call; sets `changed`
    /// when a component did not settle. Returns the arrivals at the
    /// entrypoints and, per entrypoint, (component, arriving, admitted).
    fn flow(&mut self, step: usize, changed: &mut bool) -> (f64, Vec<(usize, f64, f64)>) {
        let net = self.net;
        let mut arrivals_total = 0.0;
        let mut entry_flow: Vec<(usize, f64, f64)> = Vec::new();
        for &c in &net.order {
            let mut offered = 0.0;
            if net.entry[c] {
                let (arriving, admitted) = self.arrive(c, step);
                arrivals_total += arriving;
                entry_flow.push((c, arriving, admitted));
                offered += admitted;
            }
            let offered = self.intake(c, step, offered);
            if !self.serve(c, step, offered) {
                *changed = true;
            }
        }
        (arrivals_total, entry_flow)
    }

    /// The requests arriving at entrypoint `c` (one, plus the clients'
    /// retries due now) and the part of them admitted.
    fn arrive(&mut self, c: usize, step: usize) -> (f64, f64) {
        let mut arriving = 1.0;
        if let Some(herd) = &mut self.herds[c] {
            herd.arrivals(step, &mut self.retries_now);
            arriving += self.retries_now.iter().sum::<f64>();
        } else {
            self.retries_now.clear();
        }
        let admitted = if self.state[c].started {
            self.limit.map_or(arriving, |l| arriving.min(l))
        } else {
            0.0
        };
        self.pending[c] = std::mem::take(&mut self.retries_now);
        (arriving, admitted)
    }

    /// `offered` plus the calls into `c` (those from outside its wave up to
    /// the gate's share of its steady intake).
    fn intake(&mut self, c: usize, step: usize, mut offered: f64) -> f64 {
        let net = self.net;
        let fail_c = self.state[c].failure;
        let own_wave = self.waves.of[c];
        let gate = self.waves.share(c);
        let (mut outside, mut fresh) = (0.0, 0.0);
        for l in &net.inbound[net.in_start[c]..net.in_start[c + 1]] {
            let li = l.link as usize;
            let p = self.processed[l.caller as usize];
            // A degradable call (one that can break a cycle) is re-enabled
            // only once both ends are up and not collapsed.
            let carried = !(l.degradable
                && (!self.state[c].started
                    || self.state[c].collapsed
                    || self.state[l.caller as usize].collapsed));
            let miss = 1.0 - l.hit_rate * self.fill[li];
            let first = if carried && p > 0.0 {
                l.scale * p * miss
            } else {
                0.0
            };
            self.first_of[li] = first;
            if step == 0
                && self.settings.retry_timing
                && carried
                && l.retries > 0
                && first > 0.0
                && fail_c > 0.0
                && self.restarted[c]
                && !self.restarted[l.caller as usize]
            {
                // A caller that stayed up has seen every attempt fail
                // through the outage: its retries of every generation are
                // on their way (at most its budget).
                let mut line = self.new_line(l);
                line.prefill(step, first * (l.budget / f64::from(l.retries)).min(1.0));
                self.lines[li] = Some(line);
                self.lines_into[c] += 1;
            }
            let load = if self.settings.retry_timing {
                let retries = match &mut self.lines[li] {
                    Some(line) => line.take(step, first, l.budget, carried),
                    None => 0.0,
                };
                first + retries
            } else {
                first * attempts(l.retries, l.budget, fail_c)
            };
            if load <= 0.0 {
                continue;
            }
            if gate.is_some() && self.waves.of[l.caller as usize] != own_wave {
                outside += load;
                fresh += first;
            } else {
                offered += load;
            }
        }
        // The gate at the edge into the wave admits the calls from
        // outside it up to its share of the steady intake.
        self.demand[c] = outside;
        self.fresh[c] = fresh;
        self.inside[c] = offered;
        let admitted = match gate {
            None => outside,
            // At the full steady intake the gate lets the retries left
            // from its closed shares through up to the member's room, so
            // the surplus drains at the spare capacity.
            Some(share) if share >= 1.0 - 1e-12 => {
                let room = self.capacity_of(c).map_or(f64::INFINITY, |cap| {
                    self.settings.max_utilization * cap - offered
                });
                outside.min(share.max(room))
            }
            Some(share) => outside.min(share),
        };
        self.refused[c] = if outside > 0.0 {
            1.0 - admitted / outside
        } else {
            0.0
        };
        offered + admitted
    }

    /// Steps component `c` under `offered`; whether it settled.
    fn serve(&mut self, c: usize, step: usize, offered: f64) -> bool {
        let net = self.net;
        let cap = self.capacity_of(c);
        let before = self.state[c];
        let held_attempts = self.held[c] && !net.refuses[c];
        update(net, c, &mut self.state[c], offered, cap, held_attempts);
        if self.refused[c] > 0.0 {
            self.state[c].failure = 1.0 - (1.0 - self.refused[c]) * (1.0 - self.state[c].failure);
        }
        let lines_settled = self.send_retries(c, step);
        let horizon = Drain {
            steps_left: (self.steps - step) as f64,
            timeout_s: net.timeout_s[c],
        };
        let settled = settled(
            &before,
            &self.state[c],
            cap,
            net.warmup_s[c].filter(|_| self.cold[c]),
            horizon,
        );
        self.processed[c] = self.state[c].processed;
        self.record(c, step as f64, offered, cap);
        settled && lines_settled
    }

    /// The most of the retries on their way into each member of a closed
    /// gate from outside its wave that arrive in one step (0 elsewhere,
    /// and without retry timing).
    fn count_in_flight(&mut self, step: usize) {
        if !self.settings.retry_timing {
            return;
        }
        let net = self.net;
        for c in 0..net.names.len() {
            self.in_flight[c] = 0.0;
            if self.lines_into[c] == 0 || self.waves.share(c).is_none() {
                continue;
            }
            let own = self.waves.of[c];
            let mut per_step = std::mem::take(&mut self.scratch);
            per_step.clear();
            for l in &net.inbound[net.in_start[c]..net.in_start[c + 1]] {
                if self.waves.of[l.caller as usize] != own
                    && let Some(line) = &self.lines[l.link as usize]
                {
                    line.add_in_flight(step, &mut per_step);
                }
            }
            self.in_flight[c] = per_step.iter().copied().fold(0.0, f64::max);
            self.scratch = per_step;
        }
    }

    /// A retry line for link `l`.
    fn new_line(&self, l: &super::network::InLink) -> Box<RetryLine> {
        Box::new(RetryLine::new(
            l.retries,
            l.backoff,
            l.timeout_steps,
            self.steps,
        ))
    }

    /// The callers of `c` send the attempts that failed in this step on to
    /// their next retry, each after its edge's backoff; whether every line
    /// into `c` is settled (see `RetryLine::settled`). A line with nothing
    /// on its way is dropped.
    fn send_retries(&mut self, c: usize, step: usize) -> bool {
        let net = self.net;
        let failure = self.state[c].failure;
        if !self.settings.retry_timing || (failure <= 0.0 && self.lines_into[c] == 0) {
            return true;
        }
        let mut settled = true;
        for l in &net.inbound[net.in_start[c]..net.in_start[c + 1]] {
            let li = l.link as usize;
            if self.lines[li].is_none() {
                if failure <= 0.0 || l.retries == 0 || self.first_of[li] <= 0.0 {
                    continue;
                }
                let mut line = self.new_line(l);
                line.take(step, self.first_of[li], l.budget, true);
                self.lines[li] = Some(line);
                self.lines_into[c] += 1;
            }
            if let Some(line) = &mut self.lines[li] {
                line.fail(step, failure);
                if line.idle() {
                    self.lines[li] = None;
                    self.lines_into[c] -= 1;
                } else {
                    settled &= line.settled();
                }
            }
        }
        settled
    }

    /// Notes a breach of `max_utilization` or a collapse, the peak
    /// utilization and the sample window's highest load.
    fn record(&mut self, c: usize, now: f64, offered: f64, cap: Option<f64>) {
        let max_util = self.settings.max_utilization;
        let s = &self.state[c];
        if s.started
            && s.traffic
            && let Some(cap) = cap
        {
            let utilization = if cap > 0.0 {
                offered / cap
            } else {
                f64::INFINITY
            };
            if (offered > max_util * cap * (1.0 + 1e-9) || s.collapsed)
                && let Some(w) = self.waves.of[c]
            {
                self.waves.list[w].breach = true;
            }
            if offered > max_util * cap * (1.0 + 1e-9) {
                self.breach_in_interval = true;
                if self.run.first_breach.is_none() {
                    self.run.first_breach = Some((c, now));
                }
            }
            if self.run.peak[c].is_none_or(|(p, _)| utilization > p) {
                self.run.peak[c] = Some((utilization, now));
            }
        }
        self.window_max[c] = self.window_max[c].max(offered);
    }

    /// Caches refill by the misses their target answered in this step
    /// (the caller's processed load × its miss share × the share of
    /// requests whose attempts did not all fail); whether one did.
    fn refill_caches(&mut self) -> bool {
        let mut changed = false;
        for &i in &self.net.cached {
            if self.fill[i] >= 1.0 {
                continue;
            }
            let link = &self.net.links[i];
            let (caller, target) = (&self.state[link.caller], &self.state[link.target]);
            let p = caller.processed;
            // A degradable call is off while either end is collapsed.
            if p <= 0.0
                || !target.started
                || (!link.required && (target.collapsed || caller.collapsed))
            {
                continue;
            }
            let all_fail = target.failure.powi(1 + link.retries.min(64) as i32);
            let answered = p * (1.0 - link.hit_rate * self.fill[i]) * (1.0 - all_fail);
            if answered > 0.0 {
                self.fill[i] = (self.fill[i] + answered * link.refill_rate).min(1.0);
                changed = true;
            }
        }
        changed
    }

    /// Clients whose request failed (refused at the edge, or failed
    /// inside) wait their backoff and retry.
    fn retry_failed_clients(&mut self, step: usize, entry_flow: &[(usize, f64, f64)]) {
        for &(c, arriving, admitted) in entry_flow {
            if let Some(herd) = &mut self.herds[c] {
                let served = admitted * self.state[c].success;
                let failed_share = if arriving > 0.0 {
                    (1.0 - served / arriving).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                herd.failed(step, 1.0, &self.pending[c], failed_share);
            }
        }
    }

    /// A gate that opened in this step refuses nothing from the next: its
    /// members' failure, which the callers' retries follow, is their own
    /// again. The retries of this step's refusals are not carried over:
    /// with the memoryless retry factor they would keep a surplus that a
    /// request's few attempts do not (each gives up after its retries).
    fn end_refusals(&mut self, shut: &[bool]) {
        for (w, wave) in self.waves.list.iter().enumerate() {
            if !shut[w] || wave.share.is_some() {
                continue;
            }
            for &c in &wave.members {
                let r = self.refused[c];
                if r > 0.0 && r < 1.0 {
                    let s = &mut self.state[c];
                    s.failure = (1.0 - (1.0 - s.failure) / (1.0 - r)).clamp(0.0, 1.0);
                }
                self.refused[c] = 0.0;
            }
        }
    }

    /// Whether a held admission may open: everything healthy (every queue
    /// within one timeout of work) for a whole ramp interval, so the
    /// backlog has drained, warmed up and its caches full.
    fn warm(&mut self, step: usize, healthy: bool) -> bool {
        let n = self.net.names.len();
        self.healthy_since = if healthy {
            self.healthy_since.or(Some(step))
        } else {
            None
        };
        let drained = self
            .healthy_since
            .is_some_and(|since| step + 1 - since >= self.interval);
        self.drain_pending = self.healthy_since.is_some() && !drained;
        let holding = matches!(self.admission, Admission::Hold(_)) && self.limit.is_some();
        holding
            && drained
            && (0..n).all(|c| {
                self.net.warmup_s[c].is_none_or(|w| self.state[c].warm_s >= w) || !self.cold[c]
            })
            && self.fill.iter().all(|&f| f >= 1.0)
    }

    /// The admission policy at the end of `step`.
    fn admit(&mut self, step: usize, healthy: bool, warm: bool) {
        let now = step as f64;
        let settings = self.settings;
        match self.admission {
            Admission::Hold(_) if warm && self.limit.is_some() => {
                self.limit = None;
                self.run.schedule.push((now + 1.0, None));
            }
            Admission::Ramp if self.entry_ramp => {
                if let Some(open) = self.open_step
                    && step > open
                    && (step - open).is_multiple_of(self.interval)
                {
                    let current = self.limit.unwrap_or(1.0);
                    if self.breach_in_interval {
                        let lowered = (current * settings.ramp_decrease).max(1e-6);
                        self.limit = Some(lowered);
                        self.run.schedule.push((now + 1.0, self.limit));
                    } else if healthy && current < 1.0 {
                        let raised = if current < 0.5 {
                            current * settings.ramp_increase
                        } else {
                            current + settings.ramp_step
                        }
                        .min(1.0);
                        // Past the ceiling, straight to the target when the
                        // steady state fits (`next_share` does the same).
                        let next = if self.fits(current, raised) {
                            Some(raised)
                        } else {
                            (raised < 1.0 && self.fits(current, 1.0)).then_some(1.0)
                        };
                        if let Some(next) = next.filter(|&n| n > current) {
                            self.limit = Some(next);
                            self.run.schedule.push((now + 1.0, self.limit));
                        }
                    }
                    self.breach_in_interval = false;
                }
            }
            // Without the clients' ramp a breach is the gates' to act on.
            _ => self.breach_in_interval = false,
        }
    }

    /// Whether every component stays within `max_utilization` when the
    /// admitted share goes from `current` to `raised`.
    fn fits(&self, current: f64, raised: f64) -> bool {
        let max_util = self.settings.raise_limit(Some(raised));
        (0..self.net.names.len()).all(|c| {
            let s = &self.state[c];
            self.capacity_of(c).is_none_or(|cap| {
                !s.traffic
                    || current <= 0.0
                    || s.offered * raised / current <= max_util * cap * (1.0 + 1e-9)
            })
        })
    }

    /// At the end of a sample window, each component's highest load and
    /// its capacity.
    fn sample(&mut self, step: usize) {
        if step % self.sample_every == self.sample_every - 1 || step + 1 == self.steps {
            for c in 0..self.net.names.len() {
                let cap = self.capacity_of(c).unwrap_or(f64::NAN);
                let started = self.state[c].started;
                self.run.samples[c].push((self.window_max[c], if started { cap } else { 0.0 }));
                self.window_max[c] = 0.0;
            }
        }
    }

    /// Whether the admission cannot move any more: a fluid model at a fixed
    /// point stays there, so when nothing else changed in this step either
    /// (no wave due, no cache filling, no capacity warming, no retry cohort
    /// on its way, loads and failures as in the step before), every later
    /// step is this one again and the rest of the run is written out
    /// without simulating it. `admissions`: the count of admission changes
    /// before this step (one that moved in this step moves the next one).
    fn inert(&self, healthy: bool, warm: bool, admissions: usize) -> bool {
        let inert = match self.admission {
            Admission::Open => true,
            // Holding, it stays held unless a drain interval is running.
            Admission::Hold(_) => self.limit.is_none() || (!warm && !self.drain_pending),
            Admission::Ramp => {
                !self.breach_in_interval
                    && self.waves.open()
                    // A breach noted at a gate closes it at its next tick.
                    && self.waves.list.iter().all(|w| !w.breach)
                    && (self.limit.is_none_or(|l| l >= 1.0 - 1e-12) || !healthy)
            }
        };
        inert && self.run.schedule.len() + self.waves.changes() == admissions
    }

    /// Writes out the rest of a run at a fixed point after `step`.
    fn fast_forward(&mut self, step: usize, arrivals_total: f64, at_full: bool) {
        let (net, scenario, settings, state) =
            (self.net, self.scenario, self.settings, &self.state);
        fast_forward(
            &mut self.run,
            step,
            self.steps,
            self.sample_every,
            &self.window_max,
            arrivals_total,
            at_full,
            &mut self.last_not_full,
            |c| {
                let cap = capacity(net, c, &state[c], scenario, settings).unwrap_or(f64::NAN);
                (state[c].offered, if state[c].started { cap } else { 0.0 })
            },
        );
    }

    /// The run's verdicts once the steps are done.
    fn finish(self) -> Run {
        let steps = self.steps;
        let mut run = self.run;
        run.converged = self.last_not_full != Some(steps - 1);
        run.full_service_s = if run.converged {
            Some(self.last_not_full.map_or(0.0, |s| (s + 1) as f64))
        } else {
            None
        };
        run.stuck = (0..self.state.len())
            .filter(|&c| self.state[c].collapsed)
            .collect();
        run.waves = self
            .waves
            .list
            .into_iter()
            .map(|w| WaveRun {
                members: w.members,
                start_s: w.due.filter(|&d| d < steps).map(|d| d as f64),
                verified_s: w.verified.map(|v| (v + 1) as f64),
                gated: w.gated,
                schedule: w.schedule,
            })
            .collect();
        run
    }
}

/// The end of a step for the waves: a started wave with no member
/// collapsed and its gate open (or not yet reached by traffic) is
/// verified, and the next wave is due one interval later; every interval
/// after traffic reaches a gated wave, its gate moves by the ramp.
#[allow(
    clippy::too_many_arguments,
    reason = "the loop's own state, passed once"
)]
fn admit_waves(
    waves: &mut Waves,
    state: &[State],
    demand: Demand<'_>,
    step: usize,
    interval: usize,
    entries_up: bool,
    capacity: impl Fn(usize, &State) -> Option<f64>,
    settings: &Settings,
) {
    let now = step as f64;
    let count = waves.list.len();
    for w in 0..count {
        let wave = &mut waves.list[w];
        let Some(due) = wave.due else { break };
        if due > step {
            break;
        }
        let healthy = wave.members.iter().all(|&c| !state[c].collapsed);
        let reached = wave.members.iter().any(|&c| demand.outside[c] > 0.0);
        if wave.ticking.is_none() && wave.share.is_some() && (entries_up || reached) {
            wave.ticking = Some(step);
        }
        if let Some(start) = wave.ticking
            && step > start
            && (step - start).is_multiple_of(interval)
        {
            let fits = |share: Option<f64>| {
                wave.members.iter().all(|&c| {
                    let s = &state[c];
                    capacity(c, s).is_none_or(|cap| {
                        let limit = settings.raise_limit(share) * cap * (1.0 + 1e-9);
                        let outside = demand.outside[c];
                        let load = demand.inside[c] + share.map_or(outside, |g| outside.min(g));
                        // Opening also ends the refusals whose retries
                        // make up the surplus: it may open once the calls
                        // without them fit, when this step's surplus fits
                        // in one timeout's queue.
                        // With the retries timed, those still on their way
                        // arrive at the open gate too: the most that
                        // arrives in one step must fit beside the calls
                        // without retries.
                        let flying = demand.in_flight[c];
                        let absorbed =
                            flying <= 0.0 || demand.inside[c] + demand.fresh[c] + flying <= limit;
                        (load <= limit
                            || (share.is_none()
                                && demand.inside[c] + demand.fresh[c] <= limit
                                && load <= cap * (1.0 + demand.timeout_s[c])))
                            && (share.is_some() || absorbed)
                    })
                })
            };
            if let Some(next) = next_share(wave.share, wave.breach, healthy, settings, fits) {
                wave.share = next;
                wave.schedule.push((now + 1.0, next));
            }
            wave.breach = false;
        }
        if wave.verified.is_none() && healthy && (wave.share.is_none() || !reached) {
            wave.verified = Some(step);
            if let Some(next) = waves.list.get_mut(w + 1) {
                next.due = Some(step + interval);
            }
        }
    }
}

/// What reaches each member of a gated wave in a step: the calls from
/// outside it (retries included), the same without their retries, the load
/// from inside it, and its callers' timeout.
#[derive(Clone, Copy)]
struct Demand<'a> {
    outside: &'a [f64],
    fresh: &'a [f64],
    inside: &'a [f64],
    in_flight: &'a [f64],
    timeout_s: &'a [f64],
}

/// Whether a component's step left it where the next step will find it
/// again: the same load, output, failure and success, no capacity still
/// warming, and a queue that is either empty or, collapsed, growing by the
/// same amount every step (a stuck component stays stuck), or draining so
/// slowly that it stays collapsed to the horizon (with a 1% margin).
fn settled(
    before: &State,
    after: &State,
    cap: Option<f64>,
    warmup: Option<f64>,
    horizon: Drain,
) -> bool {
    let same = before.started == after.started
        && before.traffic == after.traffic
        && before.collapsed == after.collapsed
        && before.offered.to_bits() == after.offered.to_bits()
        && before.processed.to_bits() == after.processed.to_bits()
        && before.failure.to_bits() == after.failure.to_bits()
        && before.success.to_bits() == after.success.to_bits();
    let warming = warmup.is_some_and(|w| after.warm_s < w)
        && after.warm_s.to_bits() != before.warm_s.to_bits();
    let queue_steady = after.queue.to_bits() == before.queue.to_bits()
        || (after.collapsed
            && cap.is_some_and(|k| {
                after.offered >= k
                    || after.queue - (k - after.offered) * horizon.steps_left * 1.01
                        > horizon.timeout_s * k * (1.0 + 1e-9)
            }));
    same && !warming && queue_steady
}

/// What a collapsed queue must outlast to count as settled.
#[derive(Debug, Clone, Copy)]
struct Drain {
    /// Steps to the horizon.
    steps_left: f64,
    /// The callers' timeout, seconds (collapsed while the queue holds more).
    timeout_s: f64,
}

/// Writes out the steps after `step` of a run at a fixed point: the same
/// arrivals, the same full-service verdict, and each sample window's load
/// and capacity as in `step` (`now(c)`).
#[allow(
    clippy::too_many_arguments,
    reason = "the loop's own state, passed once"
)]
fn fast_forward(
    run: &mut Run,
    step: usize,
    steps: usize,
    sample_every: usize,
    window_max: &[f64],
    arrivals: f64,
    at_full: bool,
    last_not_full: &mut Option<usize>,
    now: impl Fn(usize) -> (f64, f64),
) {
    run.arrivals.resize(steps, arrivals);
    if !at_full {
        *last_not_full = Some(steps - 1);
    }
    // Samples still due: one at every window end after `step`, and the last step.
    let mut due = (step + 1..steps)
        .filter(|s| s % sample_every == sample_every - 1)
        .count();
    if (steps - 1) % sample_every != sample_every - 1 {
        due += 1;
    }
    let partial = step % sample_every != sample_every - 1;
    for (c, samples) in run.samples.iter_mut().enumerate() {
        let (offered, cap) = now(c);
        for k in 0..due {
            // The window open at `step` also saw the steps before it.
            let load = if k == 0 && partial {
                window_max[c].max(offered)
            } else {
                offered
            };
            samples.push((load, cap));
        }
    }
}

/// A component's capacity over its steady load now, `None` when unlimited.
fn capacity(
    net: &Network,
    c: usize,
    s: &State,
    scenario: &Scenario,
    settings: &Settings,
) -> Option<f64> {
    let per = net.per_instance[c]?;
    let instances = f64::from(net.instances[c]);
    let cold = f64::from(scenario.restarted[c].min(net.instances[c]));
    let share = match net.warmup_s[c] {
        Some(w) if cold > 0.0 => {
            settings.cold_capacity + (1.0 - settings.cold_capacity) * (s.warm_s / w).min(1.0)
        }
        _ => 1.0,
    };
    if !s.started {
        return Some(per * (instances - cold));
    }
    Some(per * ((instances - cold) + cold * share))
}

/// One step of one component with `offered` arriving and capacity `cap`.
/// A `rate_limit` first refuses what is above it, at once; of what it
/// admits, without load shedding the excess queues; once the queue holds
/// more than the callers' timeout of work, every answer is late (failure
/// of one) and the instance does not warm. With shedding the excess is
/// refused at once.
fn update(
    net: &Network,
    c: usize,
    s: &mut State,
    offered: f64,
    cap: Option<f64>,
    held_attempts: bool,
) {
    match net.limit[c] {
        Some(limit) if offered > limit => {
            admit(net, c, s, limit, cap, held_attempts);
            s.offered = offered;
            // The refused share fails; of the admitted, what `admit` says.
            let refused = 1.0 - limit / offered;
            s.failure = refused + (1.0 - refused) * s.failure;
        }
        _ => admit(net, c, s, offered, cap, held_attempts),
    }
}

/// [`update`] on what the rate limit admits.
fn admit(
    net: &Network,
    c: usize,
    s: &mut State,
    offered: f64,
    cap: Option<f64>,
    held_attempts: bool,
) {
    s.offered = offered;
    if !s.started {
        s.failure = 1.0;
        s.processed = 0.0;
        return;
    }
    let Some(cap) = cap else {
        s.traffic |= offered > 0.0;
        s.failure = 0.0;
        s.processed = offered;
        if s.traffic {
            s.warm_s += 1.0;
        }
        return;
    };
    if offered <= 0.0 && !s.traffic {
        s.processed = 0.0;
        return;
    }
    let timeout = net.timeout_s[c];
    if !s.traffic {
        // The first traffic after the restart. Callers that stayed up have
        // been failing for the whole outage, so `offered` is at their retry
        // limit, and against a blackhole the attempts of their last timeout
        // are already waiting (`held_attempts`); callers that were down
        // too bring no history.
        s.traffic = true;
        if held_attempts && !net.shedding[c] {
            s.queue = offered * timeout;
        }
    }
    if net.shedding[c] {
        s.processed = offered.min(cap);
        s.failure = if offered > cap {
            1.0 - cap / offered
        } else {
            0.0
        };
        s.collapsed = false;
    } else {
        s.queue = (s.queue + offered - cap).max(0.0);
        s.collapsed = if cap > 0.0 {
            s.queue > timeout * cap * (1.0 + 1e-12)
        } else {
            s.queue > 0.0
        };
        s.processed = if s.queue > 0.0 { cap } else { offered.min(cap) };
        s.failure = if s.collapsed { 1.0 } else { 0.0 };
    }
    if !s.collapsed {
        s.warm_s += 1.0;
    }
}

/// Request-level success of every component, dependencies first: its own
/// share of attempts that succeed times, for each required edge, the chance
/// that not every attempt fails (a cache hit always succeeds).
fn success(net: &Network, state: &mut [State], success_of: &mut [f64], fill: &[f64]) {
    for &c in net.order.iter().rev() {
        if !state[c].started {
            state[c].success = 0.0;
            success_of[c] = 0.0;
            continue;
        }
        let mut ok = 1.0 - state[c].failure;
        // (edge, combined failure, targets counted)
        let mut edge_fail: Option<(u32, f64, u32)> = None;
        for l in &net.outbound[net.out_start[c]..net.out_start[c + 1]] {
            let target_fail = 1.0 - success_of[l.target as usize];
            let fail = if target_fail <= 0.0 {
                0.0
            } else {
                target_fail.powi(l.attempts) * (1.0 - l.hit_rate * fill[l.link as usize])
            };
            edge_fail = match edge_fail {
                Some((edge, acc, count)) if edge == l.edge => Some((
                    edge,
                    if l.any_of {
                        acc * fail
                    } else {
                        (acc * f64::from(count) + fail) / f64::from(count + 1)
                    },
                    count + 1,
                )),
                other => {
                    if let Some((_, acc, _)) = other {
                        ok *= 1.0 - acc;
                    }
                    Some((l.edge, fail, 1))
                }
            };
        }
        if let Some((_, acc, _)) = edge_fail {
            ok *= 1.0 - acc;
        }
        let ok = ok.clamp(0.0, 1.0);
        state[c].success = ok;
        success_of[c] = ok;
    }
}
