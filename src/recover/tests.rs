//! The four cases of `docs/recovery.md`, with the numbers worked there.

use super::*;
use crate::model::Model;

fn model(text: &str) -> Model {
    crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
}

fn plan_of(text: &str, outage_s: f64, admit: Option<f64>) -> Plan {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    plan(&m, &Scenario::full_outage(&m, outage_s), &settings, admit)
}

/// The plan after losing `names` (their callers stayed up) for `outage_s`.
fn lose_plan_of(text: &str, names: &[&str], outage_s: f64, admit: Option<f64>) -> Plan {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    let names: Vec<String> = names.iter().map(|&n| n.to_owned()).collect();
    let scenario = Scenario::losing(&m, &names, outage_s).unwrap();
    plan(&m, &scenario, &settings, admit)
}

/// One run after losing `names` for `outage_s`.
fn lose_run_of(text: &str, names: &[&str], outage_s: f64, admission: Admission) -> Run {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    let net = Network::new(&m, &crate::engine::start_order::waves(&m));
    let names: Vec<String> = names.iter().map(|&n| n.to_owned()).collect();
    let scenario = Scenario::losing(&m, &names, outage_s).unwrap();
    simulate(&net, &scenario, &settings, admission)
}

fn run_of(text: &str, outage_s: f64, admission: Admission) -> Run {
    let m = model(text);
    let settings = Settings::of(&m, 3600.0);
    let net = Network::new(&m, &crate::engine::start_order::waves(&m));
    simulate(
        &net,
        &Scenario::full_outage(&m, outage_s),
        &settings,
        admission,
    )
}

/// k = 1 + 3 = 4 attempts per call at total failure, λ = C = 1000.
const RETRY_TRAP: &str = "system: trap\ncomponents:\n  edge: {depends_on: [{target: app, retries: 3, timeout: 1s}]}\n  app: {capacity: 1000, load: 1000}\n";

#[test]
fn four_attempts_at_full_load_stay_stuck_unless_three_quarters_are_shed() {
    // app lost alone, edge up and retrying into the blackhole: app is
    // offered λk = 1000 × 4 = 4000 > 1000 at the restart with λkτ = 4000
    // already queued, its queue passes the 1s timeout, every call fails
    // and retries: 4000 for ever.
    let open = lose_run_of(RETRY_TRAP, &["app"], 600.0, Admission::Open);
    assert!(!open.converged);
    assert_eq!(open.stuck, [1]);
    // Peak: 4000 / 1000 = 4, in the first step (edge was up all along).
    assert_eq!(open.peak[1], Some((4.0, 0.0)));
    // 80% admitted: 800 × 4 = 3200 > 1000: still stuck.
    assert!(!lose_run_of(RETRY_TRAP, &["app"], 600.0, Admission::Hold(0.8)).converged);
    // 25% admitted: 250 × 4 = 1000: Q = 1000 + 0 = τC, not above: it
    // drains and opens.
    let quarter = lose_run_of(RETRY_TRAP, &["app"], 600.0, Admission::Hold(0.25));
    assert!(quarter.converged);
    assert!(lose_run_of(RETRY_TRAP, &["app"], 600.0, Admission::Hold(0.2)).converged);
    // The search finds C / (kλ) = 1000 / 4000 = 25%.
    let plan = lose_plan_of(RETRY_TRAP, &["app"], 600.0, None);
    assert_eq!(plan.largest_safe_share, Some(0.25));
    assert_eq!(plan.without_ramp.first_breach.as_deref(), Some("app"));
    // After a full outage edge restarts a wave after app with nothing in
    // flight: app's first traffic is λ = 1000 ≤ 1000, no herd, no queue.
    let full = run_of(RETRY_TRAP, 600.0, Admission::Open);
    assert!(full.converged);
    assert_eq!(full.peak[1], Some((1.0, 10.0)));
    // With load shedding the herd converges with nothing shed.
    let shedding = RETRY_TRAP.replace("load: 1000}", "load: 1000, load_shedding: true}");
    let shed = lose_run_of(&shedding, &["app"], 600.0, Admission::Open);
    assert!(shed.converged);
    assert_eq!(
        lose_plan_of(&shedding, &["app"], 600.0, None).largest_safe_share,
        Some(1.0)
    );
}

/// A 95% cache in front of a store sized at 2× its steady load.
const CACHED_STORE: &str = "system: cached\ncomponents:\n  api: {depends_on: [{target: store, hit_rate: 95%, cached_by: cache}, cache]}\n  cache: {kind: cache, warmup: 10m}\n  store: {capacity: 100, load: 50, load_shedding: true}\n";

#[test]
fn a_cold_cache_floods_the_store_ten_times_and_the_ramp_follows_the_refill() {
    let plan = plan_of(CACHED_STORE, 600.0, None);
    // Cold: api's 50 / (1 − 0.95) = 1000 calls all miss: 1000 / 100 = 10×.
    let open = &plan.without_ramp;
    let store = open.peaks.iter().find(|p| p.component == "store").unwrap();
    assert!((store.utilization - 10.0).abs() < 1e-9, "{store:?}");
    // The cache fills by the misses the store answers: it sheds to its
    // 100, a tenth of api's 1000 calls, whatever the fill (docs/recovery.md,
    // case 2): dφ/dt = 0.1 × ln(1/0.05) / (0.95 × 600) = 5.2557 × 10⁻⁴.
    // api's requests succeed to 99.9% once the shed share of its misses,
    // x − 0.1 with x = 1 − 0.95 φ, is at most 0.001: φ ≥ 0.9463, 1800.6 s
    // after api starts at 10s: full service at 1811 s (the refill by time
    // of 0.947 × 600 = 568 s said 578 s).
    assert_eq!(open.time_to_full_service_s, Some(1811.0));
    let open_full = open.time_to_full_service_s.unwrap();
    // The ramp never takes the store over its capacity, and reaches full
    // service only after the cache has refilled (10s + 600s).
    let ramp = &plan.ramp;
    assert!(ramp.converges);
    assert!(ramp.first_breach.is_none());
    let store = ramp.peaks.iter().find(|p| p.component == "store").unwrap();
    assert!(store.utilization <= 1.0 + 1e-9, "{store:?}");
    // The store's gate (docs/recovery.md, case 2): until 101s it admits
    // its share a of the steady 50, so the cache gains a / 20 of the
    // rate: Σ a dt = 0.1 × 11 + 10 × (0.15 + … + 0.90625) = 43.54 s, φ(101)
    // = 43.54 / 20 × 5.2557 × 10⁻³ = 0.0114 against 0.0478 for everything
    // at once, 0.0364 / 5.2557 × 10⁻⁴ = 69 s behind. At 100% it lets the
    // misses through up to the store's 100: the same tenth as everything
    // at once. It opens at the first tick (every 10s from 11s) after
    // 1000 (1 − 0.95 φ) ≤ 100, φ ≥ 0.9474: 1812.6 + 69 = 1881.6 s, the tick
    // at 1890s, open (and full service) at 1891s.
    let ramp_full = ramp.time_to_full_service_s.unwrap();
    assert!(ramp_full >= open_full, "{ramp_full} {open_full}");
    assert_eq!(ramp.time_to_full_service_s, Some(1891.0));
    let gate = &plan.waves[0].schedule;
    assert_eq!(gate[9], (101.0, Some(1.0)));
    assert_eq!(gate[10], (1891.0, None));
}

fn herd_model(backoff: &str) -> String {
    format!(
        "system: herd\npolicy: {{client_retries: 3, client_timeout: 10s, client_backoff: {backoff}}}\ncomponents:\n  edge: {{capacity: 2000, load: 1000, load_shedding: true}}\n"
    )
}

#[test]
fn a_fixed_backoff_herd_peaks_at_every_interval() {
    let fixed = run_of(&herd_model("none"), 600.0, Admission::Open);
    let jittered = run_of(&herd_model("jittered"), 600.0, Admission::Open);
    // At the restart each of the 3 retry generations holds min(600, 10) =
    // 10 s of requests: fixed, they all land in the first second, 1 + 30 =
    // 31× the steady rate; jittered, spread over 10 s: 1 + 3 × 10 / 10 = 4×.
    assert!((fixed.arrivals[0] - 31.0).abs() < 1e-9);
    assert!((jittered.arrivals[0] - 4.0).abs() < 1e-9);
    for interval in 0..3 {
        let window = interval * 10..(interval + 1) * 10;
        let peak = |run: &Run| {
            run.arrivals[window.clone()]
                .iter()
                .fold(0.0f64, |m, &a| m.max(a))
        };
        assert!(
            peak(&fixed) >= 3.0 * peak(&jittered),
            "interval {interval}: {} vs {}",
            peak(&fixed),
            peak(&jittered)
        );
    }
}

#[test]
fn the_ramp_takes_nine_steps_from_ten_percent() {
    let m = model("system: s\ncomponents:\n  a: {}\n");
    let settings = Settings::of(&m, 3600.0);
    let steps = ramp_steps(&settings);
    // 10, 15, 22.5, 33.75, 50.625 (×1.5 while below 50%), then +10%:
    // 60.625, 70.625, 80.625, 90.625, 100 (capped).
    let expected = [
        0.1, 0.15, 0.225, 0.3375, 0.50625, 0.60625, 0.70625, 0.80625, 0.90625, 1.0,
    ];
    assert_eq!(steps.len(), expected.len());
    for (got, want) in steps.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    // The simulation follows the same schedule, one step per 10s interval.
    let run = run_of(
        "system: s\ncomponents:\n  a: {capacity: 100, load: 10}\n",
        600.0,
        Admission::Ramp,
    );
    assert_eq!(run.schedule.len(), 10);
    assert_eq!(run.schedule[9], (91.0, Some(1.0)));
    assert_eq!(run.full_service_s, Some(91.0));
}

#[test]
fn a_degradable_call_waits_until_both_ends_are_healthy() {
    // extra lost alone, app up and retrying: 100 × 4 = 400 > 100 at the restart,
    // so extra collapses. Required, that load stays: stuck. Degradable, the
    // call is switched off while extra is collapsed, its queue drains
    // (400 × 1s + 300 = 700 at 100/s: 6 s to get back under 100), and the
    // call comes back at 100 = its capacity: it converges.
    let required = "system: s\ncomponents:\n  app: {depends_on: [{target: extra, retries: 3, timeout: 1s, degradable: false}]}\n  extra: {capacity: 100, load: 100}\n";
    assert!(!lose_run_of(required, &["extra"], 600.0, Admission::Open).converged);
    let degradable = required.replace("degradable: false", "degradable: true");
    let run = lose_run_of(&degradable, &["extra"], 600.0, Admission::Open);
    assert!(run.converged);
    assert!(run.stuck.is_empty());
    // The rule agrees: only the required call can keep extra down.
    let fired = |text: &str| {
        crate::analyze::check_one(crate::analyze::analyzer("metastable").unwrap(), text)
            .findings
            .len()
    };
    assert_eq!(fired(required), 1);
    assert_eq!(fired(&degradable), 0);
}

/// Three tiers: edge → app → db, with an in-process cache on app's calls
/// to db (50% hit rate, its refill time app's default 10 minutes).
const THREE_TIERS: &str = "system: tiers\ncomponents:\n  edge: {depends_on: [app]}\n  app: {capacity: 1000, load: 1000, depends_on: [{target: db, hit_rate: 50%}]}\n  db: {capacity: 150, load: 100, load_shedding: true}\n";

#[test]
fn three_tiers_start_in_verified_waves_and_each_gate_ramps_on_its_own() {
    let plan = plan_of(THREE_TIERS, 600.0, None);
    let names: Vec<&[String]> = plan.waves.iter().map(|w| w.members.as_slice()).collect();
    assert_eq!(names, [["db"], ["app"], ["edge"]]);
    // No traffic reaches a wave before the entrypoint is up, so each is
    // verified in the step it starts (reported at its end) and the next is
    // due one 10s interval later: 0s, 10s, 20s.
    let starts: Vec<(Option<f64>, Option<f64>)> = plan
        .waves
        .iter()
        .map(|w| (w.start_s, w.verified_s))
        .collect();
    assert_eq!(
        starts,
        [
            (Some(0.0), Some(1.0)),
            (Some(10.0), Some(11.0)),
            (Some(20.0), Some(21.0))
        ]
    );
    let ramp = [
        0.1, 0.15, 0.225, 0.3375, 0.50625, 0.60625, 0.70625, 0.80625, 0.90625, 1.0,
    ];
    // The gates start ticking when the entrypoint is up (20s) and move at
    // 30s, 40s, … (taking effect one second later).
    let raised: Vec<(f64, Option<f64>)> = std::iter::once((0.0, Some(0.1)))
        .chain((1..10).map(|k| (21.0 + 10.0 * k as f64, Some(ramp[k]))))
        .collect();
    // Wave 3, the entrypoint: the clients' ramp, 7 steps to 80.625% at
    // 91s; the next, 90.625%, would load app (capacity 1.0 × its steady
    // load) to 0.906 > the 90% ramp ceiling, but the target itself fits
    // max_utilization (1.0 ≤ 1.0): straight to 100% at the tick of 100s.
    assert_eq!(plan.waves[2].admitted_at, "entrypoints");
    assert_eq!(
        plan.waves[2].schedule,
        [&raised[..8], &[(101.0, Some(1.0))]].concat()
    );
    // Wave 2, app (capacity 1 × its steady load): the calls from edge
    // never exceed the gate's share (80.625% when the gate goes to
    // 90.625%: within the ceiling), so it rises with the 9 steps to 100%
    // at 111s and opens at the next tick (120s → 121s), when app's whole
    // demand, 1.0, fits its capacity 1.0.
    assert_eq!(plan.waves[1].admitted_at, "callers");
    let mut app = raised.clone();
    app.push((121.0, None));
    assert_eq!(plan.waves[1].schedule, app);
    // Wave 1, db (capacity 150 = 1.5 × its steady 100): cold, app's
    // cache misses every call, so db's demand is 2 × the admitted share
    // × (1 − 0.5 φ). At each raise min(demand, share) ≤ 1 ≤ 0.9 × 1.5: the
    // same 9 steps to 100% by 111s. The cache refills by answered misses,
    // dφ/dt = answered × ln 2 / (0.5 × 600) = answered × 2.3105 × 10⁻³:
    // until 111s db answers its gate's share a of app's 2 (1 − 0.5 φ),
    // answered = a / 2, Σ a dt = 43.54 s from 20s: φ(111) = 0.0503; from
    // 111s the gate lets the misses through up to db's 1.5, answered 0.75,
    // dφ/dt = 1.7329 × 10⁻³. Opening needs the whole demand within 1.5:
    // 2 (1 − 0.5 φ) ≤ 1.5 ⇔ φ ≥ 0.5, (0.5 − 0.0503) / 1.7329 × 10⁻³ =
    // 259.5 s after 111s: 370.5 s, the tick at 380s, open at 381s.
    let mut db = raised.clone();
    db.push((381.0, None));
    assert_eq!(plan.waves[0].schedule, db);
    // db was held at 100% of its steady intake (≤ 1.5, its capacity) the
    // whole time: nothing over capacity, and full service when it opens.
    assert!(
        plan.ramp.first_breach.is_none(),
        "{:?}",
        plan.ramp.first_breach
    );
    assert_eq!(plan.ramp.time_to_full_service_s, Some(381.0));
    // Everything at once: db sheds to 1.5 of app's 2 (1 − 0.5 φ) from 20s,
    // answered 0.75, φ = 0.5 after 288.5 s; app's requests reach 99.9% a
    // little before (the shed share x − 0.75 ≤ 0.001, φ ≥ 0.498): 308 s.
    assert_eq!(plan.without_ramp.time_to_full_service_s, Some(308.0));
}

#[test]
fn recovery_figures_that_never_converge_are_refused() {
    for (figure, key) in [
        ("cold_capacity: 0%", "cold_capacity"),
        ("ramp_start: 0%", "ramp_start"),
        ("ramp_step: 0%", "ramp_step"),
        ("ramp_decrease: 0%", "ramp_decrease"),
        ("ramp_increase: 1", "ramp_increase"),
        ("ramp_ceiling: 0%", "ramp_ceiling"),
    ] {
        let text = format!("system: s\npolicy: {{{figure}}}\ncomponents:\n  a: {{}}\n");
        let problems = crate::model::parse(&text).expect_err(figure);
        assert_eq!(problems.len(), 1, "{figure}");
        let problem = &problems[0];
        assert!(problem.message.contains(key), "{}", problem.message);
        // Underlines the value as written.
        let at = text.find(figure.split(": ").nth(1).unwrap()).unwrap();
        assert_eq!(problem.span.offset, at, "{figure}");
    }
}

#[test]
fn stopping_at_a_fixed_point_changes_nothing() {
    // Every run here reaches a fixed point well before its hour (a stuck
    // trap, a refilled cache, a spent herd, a generated system); the run
    // written out from there must be the stepped run, bit for bit.
    let generated = crate::generate::microservices(300, 7);
    let herd = herd_model("none");
    for text in [RETRY_TRAP, CACHED_STORE, THREE_TIERS, &herd, &generated] {
        let m = model(text);
        let settings = Settings::of(&m, 3600.0);
        let net = Network::new(&m, &crate::engine::start_order::waves(&m));
        let mut scenarios = vec![Scenario::full_outage(&m, 600.0)];
        if m.components.iter().any(|c| c.name == "app") {
            scenarios.push(Scenario::losing(&m, &["app".to_owned()], 600.0).unwrap());
        }
        for (scenario, admission) in scenarios
            .iter()
            .flat_map(|s| [Admission::Open, Admission::Hold(0.25), Admission::Ramp].map(|a| (s, a)))
        {
            let skipped = super::simulate::run_steps(&net, scenario, &settings, admission, true);
            let stepped = super::simulate::run_steps(&net, scenario, &settings, admission, false);
            let what = format!("{admission:?} on {} after {}", m.system, scenario.label);
            assert_eq!(skipped.arrivals, stepped.arrivals, "{what}");
            for (c, (a, b)) in skipped.samples.iter().zip(&stepped.samples).enumerate() {
                assert_eq!(a.len(), b.len(), "{what}: samples of {c}");
                for (k, (x, y)) in a.iter().zip(b).enumerate() {
                    assert!(
                        x.0.to_bits() == y.0.to_bits()
                            && (x.1.to_bits() == y.1.to_bits() || (x.1.is_nan() && y.1.is_nan())),
                        "{what}: sample {k} of {c}: {x:?} vs {y:?}"
                    );
                }
            }
            let (mut skipped, mut stepped) = (skipped, stepped);
            skipped.samples.clear();
            stepped.samples.clear();
            assert_eq!(skipped, stepped, "{what}");
        }
    }
}

#[test]
fn the_plan_is_the_same_on_any_number_of_threads() {
    // The runs go side by side and the bisection simulates up to
    // 2^depth - 1 shares a round (depth 1 on 1 or 2 threads, 2 on 3 to 6,
    // 3 on 7 or more); it follows the sequential search's path, so the
    // plan must not move. The trap converges from 1000 × 4 × share ≤ 1000,
    // share ≤ 1/4: 256/1024.
    let plans: Vec<Plan> = [1, 2, 3, 4, 7, 8]
        .into_iter()
        .map(|threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool")
                .install(|| lose_plan_of(RETRY_TRAP, &["app"], 600.0, Some(0.5)))
        })
        .collect();
    assert_eq!(plans[0].largest_safe_share, Some(0.25));
    assert!(!plans[0].without_ramp.converges);
    for other in &plans[1..] {
        assert_eq!(*other, plans[0]);
    }
}
