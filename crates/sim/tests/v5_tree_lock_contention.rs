//! V5 (S5): swap tree_lock contention with four kswapds, spec §3 V5.
//!
//! The model reproduces the direction at the higher thread counts but not
//! the seed's sign at 1 and 3 instances, nor the 10x shift to direct
//! reclaim under patch 3 (docs/SIMULATOR.md, "What is not reproduced").
//! The assertions below state what the model does reproduce; the
//! test prints the full sign table.
mod common;

use reclaimlab_sim::{SimReport, load_scenario};

const COUNTS: [u32; 5] = [1, 3, 5, 7, 8];

fn run_small() -> SimReport {
    // A quarter of the default RAM keeps the CI run short; ratios, not
    // absolute seconds, are compared.
    let text = include_str!("../data/scenarios/v5-tree-lock-contention.toml")
        .replace("gb = 1 }", "gb = 0.25 }");
    let sc = load_scenario(&text).unwrap();
    common::run_scenario(&sc, 600.0, 2, 1)
}

fn sys(r: &SimReport, v: &str, n: u32) -> f64 {
    r.variant(v)
        .unwrap()
        .metric(&format!("System-{n}"))
        .unwrap()
}

/// Signs of the change from `a` to `b` per thread count (-1, 0, +1).
fn signs(r: &SimReport, a: &str, b: &str) -> Vec<i32> {
    COUNTS
        .iter()
        .map(|&n| {
            let (x, y) = (sys(r, a, n), sys(r, b, n));
            let d = (y - x) / x;
            if d.abs() < 0.005 {
                0
            } else if d > 0.0 {
                1
            } else {
                -1
            }
        })
        .collect()
}

fn matches(got: &[i32], seed: &[i32]) -> usize {
    got.iter().zip(seed).filter(|(g, s)| g == s).count()
}

#[test]
fn v5_patch_directions() {
    let r = run_small();
    // Seed, System: P1 -26% +10% -49% -33% -46%.
    let p1 = signs(&r, "vanilla", "p1-batch");
    // Seed, System: P2 -6% -57% -36% -8% -31%.
    let p2 = signs(&r, "p1-batch", "p2-nonrot");
    // Seed, System: P3 -1% -20% +38% +2% +191%.
    let p3 = signs(&r, "p2-nonrot", "p3-kswapd-backoff");
    eprintln!("P1 signs {p1:?}, P2 signs {p2:?}, P3 signs {p3:?}");
    // Batching helps wherever several reclaimers contend (5, 7, 8 threads).
    assert_eq!(&p1[2..], &[-1, -1, -1], "P1 {p1:?}");
    assert!(matches(&p1, &[-1, 1, -1, -1, -1]) >= 3, "P1 {p1:?}");
    // The kswapd backoff costs system time at 5, 7 and 8 threads.
    assert_eq!(&p3[2..], &[1, 1, 1], "P3 {p3:?}");
    assert!(matches(&p3, &[-1, -1, 1, 1, 1]) >= 3, "P3 {p3:?}");
    // P2 never makes things worse where there is contention.
    assert!(p2[1..].iter().all(|s| *s <= 0), "P2 {p2:?}");

    // P3 moves reclaim from kswapd to direct reclaim (seed: about 10x more
    // direct scanning; the model shows the direction, see the docs).
    let d2 = r
        .variant("p2-nonrot")
        .unwrap()
        .vmstat("pgscan_direct")
        .unwrap();
    let d3 = r
        .variant("p3-kswapd-backoff")
        .unwrap()
        .vmstat("pgscan_direct")
        .unwrap();
    let k2 = r
        .variant("p2-nonrot")
        .unwrap()
        .vmstat("pgscan_kswapd")
        .unwrap();
    let k3 = r
        .variant("p3-kswapd-backoff")
        .unwrap()
        .vmstat("pgscan_kswapd")
        .unwrap();
    assert!(
        d3 > d2 * 1.15 && k3 < k2,
        "direct {d2} -> {d3}, kswapd {k2} -> {k3}"
    );
    assert!(
        r.variant("p3-kswapd-backoff")
            .unwrap()
            .vmstat("kswapd_backoffs")
            .unwrap()
            > 0.0
    );

    // The spec's acceptance asks for the right sign at >= 4 of 5 thread
    // counts for P1 and P3. The model gets 3 of 5 for each (wrong at 1 and
    // 3 instances); recorded here instead of tuning constants to force it.
    let (m1, m3) = (
        matches(&p1, &[-1, 1, -1, -1, -1]),
        matches(&p3, &[-1, -1, 1, 1, 1]),
    );
    eprintln!("sign matches: P1 {m1}/5, P3 {m3}/5 (spec target 4/5)");
    assert!(
        m1 < 4 || m3 < 4,
        "the model now meets the spec target: update docs/SIMULATOR.md and this test"
    );

    // The tree_lock is the contended lock of the vanilla kernel.
    let top = r.variants[0]
        .locks
        .iter()
        .max_by(|a, b| a.waittime_total_us.total_cmp(&b.waittime_total_us))
        .unwrap();
    assert!(top.class.contains("tree_lock"), "{}", top.class);
}
