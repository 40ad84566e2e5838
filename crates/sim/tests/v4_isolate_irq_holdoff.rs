//! V4 (S4): isolate_lru_folios() IRQ holdoff on a desktop, spec §3 V4.
mod common;

#[test]
fn v4_irqsoff_in_isolate_from_kswapd_and_caps_fix_it() {
    let r = common::run_builtin("v4-isolate-irq-holdoff", 20.0, 1, 1);
    let base = &r.variants[0].summary;
    let both = &r.variants.last().unwrap().summary;
    assert_eq!(r.variants[0].name, "baseline");
    assert_eq!(r.variants.last().unwrap().name, "both-caps");

    // irqsoff max "tens of ms" (seed: 77.8 ms and 49.0 ms), in
    // isolate_lru_folios from kswapd, started at _raw_spin_lock_irq.
    let irq = base.irqsoff_max_us.unwrap();
    assert!(
        (20_000.0..=155_000.0).contains(&irq),
        "irqsoff max {irq} us"
    );
    assert_eq!(base.irqsoff_culprit.as_deref(), Some("isolate_lru_folios"));
    let top = r.variants[0]
        .latency_top
        .iter()
        .find(|l| l.tracer == "irqsoff")
        .unwrap();
    assert!(top.task.starts_with("kswapd0"), "{}", top.task);
    assert!(top.path.contains(&"shrink_inactive_list".to_string()));

    // cyclictest Max 52.6-67.5 ms in the seed: the worst thread within 2x.
    let ct = base.cyclictest_max_us.unwrap();
    assert!(
        (26_000.0..=135_000.0).contains(&ct),
        "cyclictest max {ct} us"
    );
    // The seed saw it on all 8 threads over 773 s; 20 simulated seconds
    // hit several CPUs, not necessarily all (kswapd and the flusher move).
    let hit = base
        .cyclictest_thread_max_us
        .iter()
        .filter(|m| **m > 10_000.0)
        .count();
    assert!(hit >= 2, "threads above 10 ms: {hit}");

    // Both caps: a few ms at most (seed 1.47-4.45 ms). The model has no
    // noise process, so its residual is the ~1 ms cap itself (see
    // docs/SIMULATOR.md); require the direction and the < 2x upper bound.
    let ct2 = both.cyclictest_max_us.unwrap();
    assert!(ct2 < 8_900.0, "both caps cyclictest max {ct2} us");
    assert!(ct2 < ct / 10.0);
    assert!(both.irqsoff_max_us.unwrap() < 2_000.0);
    assert!(both.preemptoff_max_us.unwrap() < base.preemptoff_max_us.unwrap() / 10.0);
}

#[test]
fn v4_isolate_cap_alone_leaves_move_expired_inodes() {
    let r = common::run_builtin("v4-isolate-irq-holdoff", 20.0, 1, 1);
    let cap = r.variant("isolate-time-cap").unwrap();
    // irqsoff capped near 1 ms ...
    let irq = cap.summary.irqsoff_max_us.unwrap();
    assert!((900.0..=1_500.0).contains(&irq), "{irq}");
    // ... but the flusher's wb->list_lock section remains (seed: 66 ms).
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
