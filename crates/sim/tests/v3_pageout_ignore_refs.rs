//! V3 (S3): MADV_PAGEOUT ignoring references, spec §3 V3.
//!
//! Fitted (calibrate.rs): the guest's global cost scale from the baseline
//! real 49.634 s. Predicted, asserted on three seeds: the patched real and
//! sys, the baseline sys, user time, and the change.
mod common;

use reclaimlab_formats::BlockBody;

fn within_2x(x: f64, seed: f64) -> bool {
    x >= seed / 2.0 && x <= seed * 2.0
}

#[test]
fn v3_ignore_references_is_predicted_on_three_seeds() {
    for seed in [1, 2, 3] {
        let r = common::run_builtin("v3-pageout-ignore-refs", 200.0, 1, seed);
        let base = r.variant("baseline").unwrap();
        let pat = r.variant("ignore-references").unwrap();
        let time = |v: &reclaimlab_sim::VariantReport| {
            v.document
                .blocks
                .iter()
                .find_map(|b| match &b.body {
                    BlockBody::Time(t) => Some(t.clone()),
                    _ => None,
                })
                .expect("a time block")
        };
        let (t0, t1) = (time(base), time(pat));
        // Fitted.
        assert!((t0.real_s.unwrap() / 49.634 - 1.0).abs() < 0.05);
        // Predicted, in the shape of seed 002's `time` runs.
        assert!(within_2x(t0.sys_s.unwrap(), 47.434));
        assert!(within_2x(t0.user_s.unwrap(), 0.637));
        assert!(within_2x(t1.real_s.unwrap(), 46.334));
        assert!(within_2x(t1.sys_s.unwrap(), 44.265));
        assert!(within_2x(t1.user_s.unwrap(), 0.648));
        // Seed: real -6.65 %, sys -6.68 %: the direction and within 2x.
        let de = (t1.real_s.unwrap() / t0.real_s.unwrap() - 1.0) * 100.0;
        let ds = (t1.sys_s.unwrap() / t0.sys_s.unwrap() - 1.0) * 100.0;
        assert!((-13.3..=-3.3).contains(&de), "seed {seed}: real {de}%");
        assert!((-13.4..=-3.3).contains(&ds), "seed {seed}: sys {ds}%");
        // User time unchanged.
        let (u0, u1) = (t0.user_s.unwrap(), t1.user_s.unwrap());
        assert!((u1 - u0).abs() / u0 < 0.05);
        // No TLB flushes from the madvise walk when references are ignored.
        assert_eq!(pat.vmstat("tlb_flush_madvise"), Some(0.0));
        assert!(base.vmstat("tlb_flush_madvise").unwrap() > 0.0);
    }
}
