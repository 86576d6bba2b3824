//! The cases of issue 27, each worked by hand in its comments and in
//! docs/recovery.md ("Worked cases"): who retries after what, the gate's
//! drain at 100%, caches that refill by answered misses, a partial outage
//! that leaves the caches warm, a durable backlog, and the fluid model's
//! steady states against the M/M/c queue (Erlang C).

use nines::recover::{Admission, Network, Plan, Run, Scenario, Settings, plan, simulate};
use statrs::distribution::{Discrete, DiscreteCDF, Poisson};

fn model(text: &str) -> nines::model::Model {
    nines::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
}

fn full(text: &str, outage_s: f64) -> Plan {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    plan(&m, &Scenario::full_outage(&m, outage_s), &settings, None)
}

fn losing(text: &str, names: &[&str], outage_s: f64) -> Plan {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    let names: Vec<String> = names.iter().map(|&n| n.to_owned()).collect();
    let scenario = Scenario::losing(&m, &names, outage_s).unwrap();
    plan(&m, &scenario, &settings, None)
}

fn run(
    text: &str,
    scenario: impl Fn(&nines::model::Model) -> Scenario,
    admission: Admission,
) -> Run {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    let net = Network::new(&m, &nines::engine::start_order::waves(&m));
    simulate(&net, &scenario(&m), &settings, admission)
}

fn peak(plan_run: &nines::recover::RunSummary, component: &str) -> f64 {
    plan_run
        .peaks
        .iter()
        .find(|p| p.component == component)
        .map_or(0.0, |p| p.utilization)
}

/// The probability that an arrival waits in an M/M/c queue with offered
/// load `a = λ / μ` (Erlang C), from the Poisson distribution:
/// `Σ_{k<c} aᵏ/k! = eᵃ P(X ≤ c − 1)` and `aᶜ/c! = eᵃ P(X = c)`.
fn erlang_c(c: u64, a: f64) -> f64 {
    let poisson = Poisson::new(a).unwrap();
    let top = poisson.pmf(c) * (c as f64) / (c as f64 - a);
    top / (poisson.cdf(c - 1) + top)
}

/// P(wait > t) in an M/M/c queue: `C(c, a) × e^(−(cμ − λ) t)`.
fn wait_above(c: u64, mu: f64, lambda: f64, t: f64) -> f64 {
    erlang_c(c, lambda / mu) * (-(c as f64 * mu - lambda) * t).exp()
}

/// One server at C = 200, offered λ = 180, behind callers with 3 retries
/// (k = 4) and a 1s timeout.
const ONE_SERVER: &str = "system: one\ncomponents:\n  edge: {depends_on: [{target: app, retries: 3, timeout: 1s}]}\n  app: {capacity: 200, load: 180}\n";

#[test]
fn after_a_full_outage_the_callers_restart_after_the_server_and_no_herd_forms() {
    // app starts at 0s, edge one wave later (10s) with nothing in flight:
    // its first traffic is λ = 180 at no failure, 180 ≤ 200, no queue.
    // Everything at once converges when edge comes up; the herd of λk =
    // 720 the fluid model used to assume never forms.
    let plan = full(ONE_SERVER, 600.0);
    let open = &plan.without_ramp;
    assert!(open.converges, "{open:?}");
    assert!(open.stuck.is_empty());
    assert_eq!(plan.largest_safe_share, Some(1.0));
    // Peak 180 / 200 = 90%, at 10s.
    assert!((peak(open, "app") - 0.9).abs() < 1e-9, "{open:?}");
    assert_eq!(open.time_to_full_service_s, Some(10.0));
    // The M/M/1 steady state agrees that nothing times out: with μ = 200
    // and λ = 180, P(wait > 1s) = ρ e^(−(μ − λ)) = 0.9 e^(−20) = 1.9 × 10⁻⁹.
    let late = wait_above(1, 200.0, 180.0, 1.0);
    assert!(
        (late / (0.9 * (-20.0f64).exp()) - 1.0).abs() < 1e-9,
        "{late}"
    );
    assert!(late < 1e-8);
}

#[test]
fn after_losing_the_server_alone_its_callers_herd_and_the_safe_share_is_c_over_k_lambda() {
    // edge stayed up and kept retrying into a blackhole (`down` defaults
    // to blackhole): app's first traffic is λk = 180 × 4 = 720 with λkτ =
    // 720 already queued: Q = 720 + (720 − 200) = 1240 > τC = 200:
    // collapsed, and 720 > 200 keeps it there.
    let plan = losing(ONE_SERVER, &["app"], 600.0);
    assert!(!plan.without_ramp.converges);
    assert_eq!(plan.without_ramp.stuck, ["app"]);
    // Admitting a share s: Q = 720s + (720s − 200) ≤ 200 ⇔ s ≤ 400 / 1440
    // = C / (kλ) = 200 / 720 = 27.8%; the bisection to 1/1024 gives the
    // largest k/1024 below it, 284/1024 = 27.73%.
    let share = plan.largest_safe_share.unwrap();
    assert!((share - 284.0 / 1024.0).abs() < 1e-12, "{share}");
    assert!((share - 200.0 / 720.0).abs() < 1.0 / 1024.0);
    // The ramp comes back: the edge stayed up, so its clients are not
    // ramped (the schedule is open from 0s) and app's gate admits.
    assert_eq!(plan.ramp.schedule, [(0.0, None)]);
    assert!(plan.ramp.converges, "{:?}", plan.ramp);
    assert_eq!(plan.waves[0].admitted_at, "callers");
}

#[test]
fn a_server_that_refuses_while_down_has_no_attempts_in_flight() {
    // `down: refuse`: the callers' attempts failed at once, none is held:
    // the first step is offered 720 with an empty queue, Q = 720 − 200 =
    // 520 > 200: still collapsed (the herd is λk, held or not). With a
    // share s the threshold is 720s − 200 ≤ 200: s ≤ 400 / 720 = 55.6%,
    // twice the blackhole's, because nothing waits from the outage: the
    // bisection gives 568/1024 = 55.47%.
    let refusing = ONE_SERVER.replace("load: 180}", "load: 180, down: refuse}");
    let plan = losing(&refusing, &["app"], 600.0);
    assert!(!plan.without_ramp.converges);
    let share = plan.largest_safe_share.unwrap();
    assert!((share - 568.0 / 1024.0).abs() < 1e-12, "{share}");
}

/// A shedding server at 90% of its capacity (900 of 1000) behind callers
/// with 3 retries and a 1s timeout.
const NINETY: &str = "system: ninety\ncomponents:\n  edge: {depends_on: [{target: app, retries: 3, timeout: 1s}]}\n  app: {capacity: 1000, load: 900, load_shedding: true}\n";

#[test]
fn the_gate_at_full_intake_drains_its_retry_surplus_within_one_interval() {
    // app alone restarts; edge kept retrying: its demand at the gate
    // starts at λk = 4 (relative) against the gate's 10%. The gate ramps
    // 10% → 100% in 9 ticks (1m31s); the refused attempts come back as
    // retries, so its demand at 100% is above the steady 1. At 100% the
    // gate lets them through up to app's room, 1000 / 900 = 1.11: the
    // surplus drains at 0.11 a second within the 3 retries × 1s of one
    // request's attempts, and the gate opens at the next tick, 101s. (The
    // memoryless decay f ← f − f⁴ it replaces opened such a gate 290–300 s
    // after it reached 100%: issue 27.)
    let plan = losing(NINETY, &["app"], 600.0);
    let gate = &plan.waves[0].schedule;
    let full_at = gate
        .iter()
        .find(|(_, s)| *s == Some(1.0))
        .map(|(t, _)| *t)
        .unwrap();
    let open_at = gate
        .iter()
        .find(|(_, s)| s.is_none())
        .map(|(t, _)| *t)
        .unwrap();
    assert_eq!(Some(full_at), Some(91.0), "{gate:?}");
    assert!(open_at - full_at <= 3.0 * 1.0 + 10.0, "{gate:?}");
    assert_eq!(Some(open_at), Some(101.0));
    assert!(plan.ramp.converges);
    assert!(plan.ramp.time_to_full_service_s.unwrap() <= open_at + 1.0);
}

/// A 95% cache (5m warm-up) in front of a shedding store of 20/s, against
/// a cold demand of 10 / (1 − 0.95) = 200/s.
const REFILL: &str = "system: refill\ncomponents:\n  api: {depends_on: [{target: store, hit_rate: 95%, cached_by: cache}, cache]}\n  cache: {kind: cache, warmup: 5m}\n  store: {capacity: 20, load: 10, load_shedding: true}\n";

#[test]
fn a_cache_refills_by_the_misses_its_store_answers() {
    // The cache stores a key when the store answers its miss. Its hot set
    // is what a 5m refill with every miss answered implies:
    // dφ/dt = (1 − hφ) ln(1/(1 − h)) / (h W), full at W = 300 s. Here the
    // store answers 20 of api's 200 calls a second, a tenth of api's
    // requests, whatever the fill: dφ/dt = 0.1 × ln 20 / (0.95 × 300) =
    // 0.1 × 2.9957 / 285 = 1.0511 × 10⁻³ per second. api's requests reach
    // 99.9% once the shed share of its misses, x − 0.1 with x = 1 − 0.95 φ,
    // is at most 0.001: φ ≥ 0.9463, 0.9463 / 1.0511 × 10⁻³ = 900.3 s after
    // api starts at 10s: full service at 911 s (the store fits at φ ≥
    // 0.9474, a second later), not the 10 + 0.9474 × 300 = 294 s of a
    // refill by time.
    let plan = full(REFILL, 600.0);
    let open = &plan.without_ramp;
    assert_eq!(open.time_to_full_service_s, Some(911.0));
    // Cold, the store is offered 200 / 20 = 10× its capacity.
    assert!((peak(open, "store") - 10.0).abs() < 1e-9);
    // A snapshot restores the cache on its own: warm at once.
    let snapshot = REFILL.replace("warmup: 5m}", "warmup: 5m, prewarm: snapshot}");
    let warm = full(&snapshot, 600.0);
    assert_eq!(warm.without_ramp.time_to_full_service_s, Some(10.0));
    assert!((peak(&warm.without_ramp, "store") - 0.5).abs() < 1e-9);
}

#[test]
fn a_cache_behind_a_store_that_answers_nothing_does_not_refill() {
    // Without load shedding the cold store is offered 200 > 20 and
    // collapses: it answers nothing, so the cache never fills and the
    // store never comes back (10 × 20 > 20 for ever).
    let collapsing = REFILL.replace(", load_shedding: true}", "}");
    let r = run(
        &collapsing,
        |m| Scenario::full_outage(m, 600.0),
        Admission::Open,
    );
    assert!(!r.converged);
}

/// Three zones: web in each, the cache in z2 and z3, db one per zone at
/// 100 each with a load of 150 (web's calls 150 / (1 − 0.9) = 1500).
const ZONES: &str = "system: zones\ndomains:\n  z1: {kind: zone}\n  z2: {kind: zone}\n  z3: {kind: zone}\ncomponents:\n  web:\n    instances: 3\n    placement: [z1, z2, z3]\n    depends_on: [{target: db, hit_rate: 90%, cached_by: cache}, cache]\n  cache: {kind: cache, instances: 2, placement: [z2, z3]}\n  db: {instances: 3, capacity: 100, load: 150, placement: [z1, z2, z3]}\n";

#[test]
fn losing_a_zone_restarts_its_instances_only_and_the_cache_stays_warm() {
    // z1 holds one web, one db and no cache: the cache did not restart,
    // so it stays full and db keeps its 150 (what-if's 150 / 200 = 75%
    // with two db up; the third is back at the restart: 150 / 300 = 50%).
    // The entrypoint stayed up: no ramp at the edge. Converges at once.
    let plan = losing(ZONES, &["z1"], 600.0);
    let open = &plan.without_ramp;
    assert!(open.converges, "{open:?}");
    assert_eq!(open.time_to_full_service_s, Some(0.0));
    assert!((peak(open, "db") - 0.5).abs() < 1e-9, "{open:?}");
    assert_eq!(plan.ramp.time_to_full_service_s, Some(0.0));
    assert_eq!(plan.ramp.schedule, [(0.0, None)]);
    // The M/M/3 steady state at λ = 150, μ = 100: a = 1.5, Erlang C =
    // 0.2368 (by hand: (1.5³/3!)(3/1.5) = 1.125 over 1 + 1.5 + 1.125 +
    // 1.125 = 4.75), and P(wait > 1s) = 0.2368 e^(−150): nothing times out.
    let c = erlang_c(3, 1.5);
    assert!((c - 1.125 / 4.75).abs() < 1e-12, "{c}");
    assert!(wait_above(3, 100.0, 150.0, 1.0) < 1e-60);
}

#[test]
fn losing_instances_by_count_is_the_same_partial_restart() {
    // `--lose db:1` as in what-if: one of three db restarts, the others
    // and the cache stay up and warm.
    let plan = losing(ZONES, &["db:1"], 600.0);
    assert_eq!(plan.without_ramp.time_to_full_service_s, Some(0.0));
    assert!(plan.waves.is_empty());
    let m = model(ZONES);
    assert!(
        Scenario::losing(&m, &["db:4".to_owned()], 60.0)
            .unwrap_err()
            .contains("db has 3 instances")
    );
}

/// Payments behind an outbox: Kafka is deferrable (the producers keep
/// their events while it is down), the ledger consumes it at 3 × 1500.
const OUTBOX: &str = "system: payments\ncomponents:\n  payments: {capacity: 5000, load: 3000, depends_on: [kafka]}\n  kafka: {kind: kafka, instances: 3, criticality: deferrable}\n  ledger: {kind: consumer, instances: 3, capacity: 1500, load: 3000, depends_on: [kafka]}\n";

#[test]
fn a_queue_down_behind_an_outbox_leaves_a_backlog_that_takes_an_hour_to_drain() {
    // 30 minutes × 60 × 3000/s = 5.4 M events wait in the outbox; the
    // ledger drains them at 3 × 1500 − 3000 = 1500/s spare: 5.4 M / 1500
    // = 3600 s, an hour behind at the restart by 30 minutes.
    let plan = losing(OUTBOX, &["kafka"], 1800.0);
    assert_eq!(plan.backlogs.len(), 1, "{:?}", plan.backlogs);
    let b = &plan.backlogs[0];
    assert_eq!(b.component, "kafka");
    assert_eq!(b.held_by, "producers");
    assert!((b.events - 5.4e6).abs() < 1e-6);
    assert_eq!(b.consumer_capacity, Some(4500.0));
    assert_eq!(b.drain_rate, Some(1500.0));
    assert_eq!(b.catch_up_s, Some(3600.0));
    assert_eq!(Some(b.worst_lag_s), Some(1800.0));
    assert!(b.lost.abs() < 1e-9);
}

#[test]
fn consumers_down_fill_the_queue_and_its_retention_drops_the_oldest() {
    // The ledger down 30 minutes, Kafka up with a 20-minute retention:
    // 3000/s for 1800 s, of which the first 600 s (1.8 M) expire; 3000 ×
    // 1200 = 3.6 M remain, drained at 1500/s: 2400 s. The oldest kept
    // event is 20 minutes old at the restart.
    let kept = OUTBOX.replace(
        "criticality: deferrable}",
        "criticality: deferrable, retention: 20m}",
    );
    let plan = losing(&kept, &["ledger"], 1800.0);
    let b = &plan.backlogs[0];
    assert_eq!(b.held_by, "queue");
    assert!((b.events - 3.6e6).abs() < 1e-6);
    assert!((b.lost - 1.8e6).abs() < 1e-6);
    assert_eq!(b.catch_up_s, Some(2400.0));
    assert_eq!(Some(b.worst_lag_s), Some(1200.0));
    // A full outage takes the producers down too: nothing accumulates.
    assert!(full(&kept, 1800.0).backlogs.is_empty());
}

/// A shedding server with room for twice its load (360 for 180), behind
/// callers with 3 retries and a 1s timeout, spaced by `BACKOFF`.
const ROOMY: &str = "system: roomy\ncomponents:\n  edge: {depends_on: [{target: app, retries: 3, timeout: 1s, backoff: BACKOFF}]}\n  app: {capacity: 360, load: 180, load_shedding: true}\n";

fn roomy_open(backoff: &str) -> Run {
    let m = model(&ROOMY.replace("BACKOFF", backoff));
    let mut settings = Settings::of(&m, 3600.0);
    settings.retry_timing = true;
    let net = Network::new(&m, &nines::engine::start_order::waves(&m));
    let scenario = Scenario::losing(&m, &["app".to_owned()], 600.0).unwrap();
    simulate(&net, &scenario, &settings, Admission::Open)
}

#[test]
fn retries_arrive_after_their_backoff_and_none_burns_its_attempts_first() {
    // `--lose app`, everything at once. edge kept retrying through the
    // outage, so every retry generation is on its way: app's first step
    // is offered 1 + 3 = 4 (relative) against its room of 2, and sheds
    // f0 = 1 − 2/4 = 0.5. A generation's failures come back one delay
    // later; the third's give up.
    //
    // `none` (the next step): step 1 gets gen 1 = 1 × 0.5 (the new calls
    // of step 0), gen 2 = 1 × 0.5, gen 3 = 1 × 0.5 (the held ones of step
    // 0): 1 + 1.5 = 2.5, f1 = 1 − 2/2.5 = 0.2. Step 2: gen 1 = 0.2, gen 2
    // = 0.5 × 0.2 = 0.1, gen 3 = 0.1: 1.4 ≤ 2, f2 = 0. Requests fail
    // with f^4 = 0.2^4 = 0.0016 > 0.1% at 1s: full service at 2s.
    let none = roomy_open("none");
    assert_eq!(none.full_service_s, Some(2.0), "{:?}", none.full_service_s);
    // `exponential` (1, 2 and 4 s): the held generations keep arriving
    // at 1 a step for their delay. Step 1: 1 + 0.5 + 1 + 1 = 3.5, f1 =
    // 1 − 2/3.5 = 0.4286. Step 2: 1 + 0.4286 + 0.5 + 1 = 2.9286, f2 =
    // 0.3171. Step 3: 1 + 0.3171 + 0.5 × 0.4286 + 1 = 2.5314, f3 =
    // 0.2099 (0.2099^4 = 0.0019 > 0.1%). Step 4: 1 + 0.2099 + 1 × 0.3171
    // ... no: gen 2 at 4 is gen 1 of 2 (0.4286) × f2 = 0.1359, gen 3 at 4
    // is gen 2 of 0 (1) × f0 = 0.5: 1 + 0.2099 + 0.1359 + 0.5 = 1.8458 ≤
    // 2, f4 = 0, and nothing later exceeds 2 (step 5: 1 + 0 + 0.3171 ×
    // 0.2099 + 1 × 0.4286 = 1.495): full service at 4s, within the 1 + 2
    // + 4 = 7 s of one request's retries.
    let exponential = roomy_open("exponential");
    assert_eq!(exponential.full_service_s, Some(4.0));
    assert!(none.converged && exponential.converged);
    // The memoryless factor (attempts(f) = 1 + f + f² + f³ at last step's
    // f, the rule before retries were timed) gives 1 + 0.5 + 0.25 + 0.125 = 1.875 ≤ 2 at
    // step 1 whatever the backoff: full service at 1s.
    let memoryless = {
        let m = model(&ROOMY.replace("BACKOFF", "exponential"));
        let mut settings = Settings::of(&m, 3600.0);
        settings.retry_timing = false;
        let net = Network::new(&m, &nines::engine::start_order::waves(&m));
        let scenario = Scenario::losing(&m, &["app".to_owned()], 600.0).unwrap();
        simulate(&net, &scenario, &settings, Admission::Open)
    };
    assert_eq!(memoryless.full_service_s, Some(1.0));
    // `jittered` spreads each generation over 1..=its delay: slower to
    // drain than `none`, and never later than the exponential's 7 s.
    let jittered = roomy_open("jittered");
    let t = jittered.full_service_s.unwrap();
    assert!((2.0..=7.0).contains(&t), "{t}");
}

#[test]

fn the_gate_on_one_server_drains_within_retries_times_backoff_and_one_interval() {
    // One server at C = 200, λ = 180 (room 200/180 = 1.11), 3 retries
    // with exponential backoff after a 1s timeout (1, 2, 4 s), `--lose
    // app`, the retries timed. The gate ramps 10% → 100% in 9 ticks
    // (91 s). At 100% it admits up to app's room, 1.11, of a demand of
    // 2.14 (the fresh 1 and the retries of its refusals): it refuses less
    // every second, the last time in the step at 103 s (demand 1.14 >
    // 1.11; 1.06 at 104 s), and the last retries of those refusals land
    // one backoff later, the third at 103 + 4 = 107 s: the surplus is gone
    // 7 s after the last refusal, as `retries × backoff` says. The gate
    // opens when the most that is still to arrive in one step fits beside
    // the fresh calls (at 100 s 1 + 0.30 > 1.11 still), so at its tick at
    // 110 s: open from 111 s, two intervals after it reached 100%, and
    // nothing breaches after. (Opening at 101 s, as the memoryless model
    // does, lets 0.30 a step more in, 1.30 > 1.11: a breach that closes
    // the gate again at every tick.)
    let m = model(&ONE_SERVER.replace("timeout: 1s}", "timeout: 1s, backoff: exponential}"));
    let mut settings = Settings::of(&m, 3600.0);
    settings.retry_timing = true;
    let scenario = Scenario::losing(&m, &["app".to_owned()], 600.0).unwrap();
    let plan = plan(&m, &scenario, &settings, None);
    let gate = &plan.waves[0].schedule;
    let at = |pred: &dyn Fn(Option<f64>) -> bool| {
        gate.iter()
            .find(|(_, s)| pred(*s))
            .map(|(t, _)| *t)
            .unwrap()
    };
    let full_at = at(&|s| s == Some(1.0));
    let open_at = at(&|s| s.is_none());
    assert_eq!(Some(full_at), Some(91.0), "{gate:?}");
    assert_eq!(Some(open_at), Some(111.0), "{gate:?}");
    assert!(open_at <= full_at + 2.0 * 10.0, "{gate:?}");
    assert!(plan.ramp.converges);
    // With `none` (the edge's default) the retries come back the next
    // second and the last of them land within 3 s of the last refusal:
    // the gate opens at its first tick after 100%, 101 s (case 5).
    let none = losing(ONE_SERVER, &["app"], 600.0);
    let gate = &none.waves[0].schedule;
    let open_none = gate.iter().find(|(_, s)| s.is_none()).map(|(t, _)| *t);
    assert_eq!(open_none, Some(101.0), "{gate:?}");
}
