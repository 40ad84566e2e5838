//! V1 (S1): MADV_PAGEOUT PTE walk on a small RT board, spec §3 V1.
mod common;

#[test]
fn v1_wakeup_rt_falls_2x_and_culprit_moves_to_munmap_free_path() {
    let r = common::run_builtin("v1-madvise-pte-walk", 10.0, 1, 1);
    let base = &r.variants[0];
    let merged = r.variants.last().unwrap();
    assert_eq!(merged.name, "merged-need-resched");

    // Seed: 1969 us, switch at rt_spin_unlock in madvise_cold_or_pageout_pte_range.
    let b = base.summary.wakeup_rt_max_us.unwrap();
    assert!((985.0..=3_940.0).contains(&b), "baseline wakeup_rt {b}");
    assert_eq!(
        base.summary.wakeup_rt_culprit.as_deref(),
        Some("madvise_cold_or_pageout_pte_range")
    );
    assert!(
        base.summary
            .wakeup_rt_path
            .contains(&"rt_spin_unlock".to_string())
    );

    // Seed: 879 us in free_unref_page_list < release_pages < ... < sys_munmap.
    let m = merged.summary.wakeup_rt_max_us.unwrap();
    assert!((440.0..=1_760.0).contains(&m), "patched wakeup_rt {m}");
    assert_eq!(
        merged.summary.wakeup_rt_culprit.as_deref(),
        Some("free_unref_page_list")
    );
    assert!(
        merged
            .summary
            .wakeup_rt_path
            .contains(&"sys_munmap".to_string())
    );

    // Ratio about 2.2x (within 2x: 1.1x .. 4.4x).
    let ratio = b / m;
    assert!((1.1..=4.4).contains(&ratio), "ratio {ratio}");

    // v1 (unconditional) gains the same on this kernel.
    let v1 = r
        .variant("v1-unconditional")
        .unwrap()
        .summary
        .wakeup_rt_max_us
        .unwrap();
    assert!(v1 < b / 1.5);
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
