//! V1 (S1): MADV_PAGEOUT PTE walk on a small RT board, spec §3 V1.
//!
//! Fitted (calibrate.rs): the per-PTE cost from the unpatched wakeup_rt
//! (1969 us). Predicted, asserted here on three seeds: the patched
//! wakeup_rt (seed 879 us), its culprit, and the ratio (2.24x).
mod common;

#[test]
fn v1_patched_wakeup_rt_and_culprit_are_predicted_on_three_seeds() {
    for seed in [1, 2, 3] {
        let r = common::run_builtin("v1-madvise-pte-walk", 10.0, 1, seed);
        let base = &r.variants[0];
        let merged = r.variant("merged-need-resched").unwrap();

        // Fitted quantity: close to the seed by construction.
        let b = base.summary.wakeup_rt_max_us.unwrap();
        assert!(
            (1_500.0..=2_500.0).contains(&b),
            "seed {seed}: baseline {b}"
        );
        assert_eq!(
            base.summary.wakeup_rt_culprit.as_deref(),
            Some("madvise_cold_or_pageout_pte_range")
        );
        assert!(
            base.summary
                .wakeup_rt_path
                .contains(&"rt_spin_unlock".to_string())
        );

        // Prediction: 879 us within 2x, in the munmap free path.
        let m = merged.summary.wakeup_rt_max_us.unwrap();
        assert!((440.0..=1_758.0).contains(&m), "seed {seed}: patched {m}");
        assert_eq!(
            merged.summary.wakeup_rt_culprit.as_deref(),
            Some("free_unref_page_list")
        );
        let top = merged
            .latency_top
            .iter()
            .find(|l| l.tracer == "wakeup_rt")
            .unwrap();
        assert_eq!(top.culprit, "free_unref_page_list");
        assert!(top.path.contains(&"sys_munmap".to_string()));

        // Prediction: the ratio 2.24x within 2x.
        let ratio = b / m;
        assert!((1.12..=4.48).contains(&ratio), "seed {seed}: ratio {ratio}");

        // v1 (unconditional) gains the same on this kernel.
        let v1 = r
            .variant("v1-unconditional")
            .unwrap()
            .summary
            .wakeup_rt_max_us
            .unwrap();
        assert!(v1 < b / 1.5, "seed {seed}: v1 {v1}");
    }
}

#[test]
fn v1_mainline_rt_baseline_is_already_small() {
    // Sensitivity check 1 of spec V1: with preemptible spinlock_t sections
    // the RT task preempts the lock holder at once.
    let r = common::run_builtin("v1-madvise-pte-walk", 5.0, 1, 2);
    let ml = r
        .variant("mainline-rt")
        .unwrap()
        .summary
        .wakeup_rt_max_us
        .unwrap();
    let b = r.variants[0].summary.wakeup_rt_max_us.unwrap();
    assert!(ml < 100.0 && ml < b / 10.0, "mainline {ml} vs baseline {b}");
}
