//! V4 (S4): isolate_lru_folios() IRQ holdoff on a desktop, spec §3 V4.
//!
//! Fitted (calibrate.rs): the Normal-zone band length of the LRU tail from
//! the irqsoff trace (77.8 ms). Set in the scenario: the flusher's inode
//! count (66 ms in move_expired_inodes). Predicted, asserted on three
//! seeds: cyclictest Max with no cap and with both caps (1.47-4.45 ms),
//! where the residual comes from two capped isolate calls per
//! shrink_lruvec round before its cond_resched (spec §2.2b), and how many
//! threads see the baseline's holdoffs (the build's jobs let kswapd move).
mod common;

use reclaimlab_sim::{RunOptions, load_scenario};

fn run(seed: u64, secs: f64, variants: &[&str]) -> reclaimlab_sim::SimReport {
    let sc = load_scenario("v4-isolate-irq-holdoff").unwrap();
    let opts = RunOptions {
        seed,
        replications: 1,
        duration_ns: Some((secs * 1e9) as u64),
        variants: Some(variants.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    };
    reclaimlab_sim::run(&sc, &opts, &mut |_| reclaimlab_sim::Control::Continue).unwrap()
}

#[test]
fn v4_holdoff_and_both_caps_residual_are_predicted_on_three_seeds() {
    let mut longer_than_one_cap = false;
    for seed in [1, 2, 3] {
        let r = run(seed, 300.0, &["baseline", "both-caps"]);
        let base = &r.variants[0].summary;
        let both = &r.variants[1].summary;

        // irqsoff "tens of ms" in isolate_lru_folios from kswapd, started
        // at _raw_spin_lock_irq (the fitted quantity: the band length).
        let irq = base.irqsoff_max_us.unwrap();
        assert!((20_000.0..=155_000.0).contains(&irq), "seed {seed}: {irq}");
        assert_eq!(base.irqsoff_culprit.as_deref(), Some("isolate_lru_folios"));
        let top = r.variants[0]
            .latency_top
            .iter()
            .find(|l| l.tracer == "irqsoff")
            .unwrap();
        assert!(top.task.starts_with("kswapd0"), "{}", top.task);
        // The seed's trace is under shrink_inactive_list; the active list's
        // deactivation walks the same skip path (shrink_active_list).
        assert!(
            top.path
                .iter()
                .any(|f| f == "shrink_inactive_list" || f == "shrink_active_list"),
            "{:?}",
            top.path
        );

        // Prediction: cyclictest Max 52.6-67.5 ms per thread in the seed.
        let ct = base.cyclictest_max_us.unwrap();
        assert!((26_300.0..=135_000.0).contains(&ct), "seed {seed}: {ct}");
        // Prediction: the seed has all 8 threads over 10 ms in 773 s. The
        // build's jobs end and start, so kswapd is woken onto, or pulled
        // to, CPUs the jobs left idle, and its long isolates reach most
        // CPUs: at least half of them in 300 s (within 2x of 8).
        let hit = base
            .cyclictest_thread_max_us
            .iter()
            .filter(|m| **m > 10_000.0)
            .count();
        assert!(hit >= 4, "seed {seed}: {hit} of 8 threads over 10 ms");
        // The wakeup_rt report blames a section that held the CPU (the
        // skip walk or the flusher's list walk), not the switch point.
        let cul = base.wakeup_rt_culprit.as_deref().unwrap();
        assert!(
            ["isolate_lru_folios", "move_expired_inodes"].contains(&cul),
            "seed {seed}: {cul}"
        );

        // Prediction: both caps leave 1.47-4.45 ms (x/÷ 2: 0.735-8.9 ms).
        let ct2 = both.cyclictest_max_us.unwrap();
        assert!(
            (735.0..=8_900.0).contains(&ct2),
            "seed {seed}: both caps {ct2}"
        );
        // IRQs are off for one cap at a time; the latency is longer than
        // that, because VOLUNTARY switches only at the round's cond_resched.
        let irq2 = both.irqsoff_max_us.unwrap();
        eprintln!(
            "seed {seed}: baseline irqsoff {irq:.0} us, cyclictest max {ct:.0} us; \
             both caps cyclictest max {ct2:.0} us, irqsoff {irq2:.0} us"
        );
        assert!(irq2 < 1_200.0, "seed {seed}: both caps irqsoff {irq2}");
        longer_than_one_cap |= ct2 > irq2;
        assert!(both.preemptoff_max_us.unwrap() < base.preemptoff_max_us.unwrap() / 10.0);
    }
    // Some wakeup waited through two capped isolates of one round.
    assert!(longer_than_one_cap);
}

#[test]
fn v4_isolate_cap_alone_leaves_move_expired_inodes() {
    let r = common::run_builtin("v4-isolate-irq-holdoff", 20.0, 1, 1);
    let cap = r.variant("isolate-time-cap").unwrap();
    // irqsoff capped near 1 ms ...
    let irq = cap.summary.irqsoff_max_us.unwrap();
    assert!((900.0..=1_500.0).contains(&irq), "{irq}");
    // ... but the flusher's wb->list_lock section remains (seed: 66 ms;
    // set by the scenario's inode count, not predicted).
    let pre = cap.summary.preemptoff_max_us.unwrap();
    assert!((33_000.0..=132_000.0).contains(&pre), "{pre}");
    assert_eq!(
        cap.summary.preemptoff_culprit.as_deref(),
        Some("move_expired_inodes")
    );
    // Predictions of the spec for the other variants.
    let skip = r
        .variant("max-skipped-32k")
        .unwrap()
        .summary
        .irqsoff_max_us
        .unwrap();
    assert!((1_000.0..=3_000.0).contains(&skip), "32k skip cap: {skip}");
    let mg = r.variant("mglru").unwrap().summary.irqsoff_max_us.unwrap();
    assert!(mg < 1_000.0, "mglru: {mg}");
}

#[test]
fn v4_build_jobs_spread_the_holdoffs_over_more_cpus() {
    // The same baseline with CPU hogs that never sleep: kswapd stays on
    // the CPUs it started on, so fewer cyclictest threads see a holdoff.
    let mut looped = 0;
    let mut jobs = 0;
    for seed in [1, 2] {
        let hits = |hog_jobs: bool| {
            let mut sc = load_scenario("v4-isolate-irq-holdoff").unwrap();
            if !hog_jobs {
                sc.workload.hog_jobs = None;
            }
            let opts = RunOptions {
                seed,
                replications: 1,
                duration_ns: Some(300_000_000_000),
                variants: Some(vec!["baseline".into()]),
                ..Default::default()
            };
            let r = reclaimlab_sim::run(&sc, &opts, &mut |_| reclaimlab_sim::Control::Continue)
                .unwrap();
            r.variants[0]
                .summary
                .cyclictest_thread_max_us
                .iter()
                .filter(|m| **m > 10_000.0)
                .count()
        };
        looped += hits(false);
        jobs += hits(true);
    }
    assert!(
        jobs > looped,
        "threads over 10 ms: jobs {jobs}, loops {looped}"
    );
}
