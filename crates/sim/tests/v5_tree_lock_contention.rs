//! V5 (S5): swap tree_lock contention with four kswapds, spec §3 V5.
//!
//! The setup is mmtests' usemem-swap-ramdisk configuration: one usemem
//! process of N threads writing 90 % of MemTotal 30 times, swapping to a
//! preallocated brd of a third of MemTotal. Fitted (calibrate.rs):
//! `workload.usemem.repeat`, from the geometric mean of the vanilla System
//! column (it scales every duration alike, so it fits no sign). Predicted,
//! asserted on seeds 1, 2 and 3: the sign of P1 (batching) and P3 (kswapd
//! backoff) per thread count, and the shift of reclaim from kswapd to
//! direct reclaim under P3. P4 changes nothing on brd (no congested
//! backing device for wait_iff_congested), and 4.8's too_many_isolated()
//! throttle never starts.
mod common;

use reclaimlab_sim::{SimReport, load_scenario};

const COUNTS: [u32; 5] = [1, 3, 5, 7, 8];

fn run_small(seed: u64) -> SimReport {
    // A quarter of the default RAM and swap keeps the CI run short;
    // ratios, not absolute seconds, are compared.
    let text = include_str!("../data/scenarios/v5-tree-lock-contention.toml")
        .replace("gb = 1.5 }", "gb = 0.375 }")
        .replace("swap_gb = 0.5", "swap_gb = 0.125");
    let sc = load_scenario(&text).unwrap();
    assert_eq!(sc.machine.swap_gb, Some(0.125));
    common::run_scenario(&sc, 600.0, 1, seed)
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

fn vm(r: &SimReport, v: &str, k: &str) -> f64 {
    r.variant(v).unwrap().vmstat(k).unwrap()
}

#[test]
fn v5_patch_directions_on_three_seeds() {
    // Seed, System: P1 -26% +10% -49% -33% -46%.
    const P1: [i32; 5] = [-1, 1, -1, -1, -1];
    // Seed, System: P3 -1% -20% +38% +2% +191%.
    const P3: [i32; 5] = [-1, -1, 1, 1, 1];
    let runs: Vec<(u64, SimReport)> = [1, 2, 3].into_iter().map(|s| (s, run_small(s))).collect();
    // Every seed's figures first, so one run shows them all.
    for (seed, r) in &runs {
        let p1 = signs(r, "vanilla", "p1-batch");
        let p2 = signs(r, "p1-batch", "p2-nonrot");
        let p3 = signs(r, "p2-nonrot", "p3-kswapd-backoff");
        eprintln!(
            "seed {seed}: P1 {p1:?} {}/5, P2 {p2:?}, P3 {p3:?} {}/5; direct x{:.2}, kswapd x{:.2}; exclusive kswapd {} of {} pages",
            matches(&p1, &P1),
            matches(&p3, &P3),
            vm(r, "p3-kswapd-backoff", "pgscan_direct") / vm(r, "p2-nonrot", "pgscan_direct"),
            vm(r, "p3-kswapd-backoff", "pgscan_kswapd") / vm(r, "p2-nonrot", "pgscan_kswapd"),
            vm(r, "p3-kswapd-backoff", "pgsteal_kswapd_exclusive"),
            vm(r, "p3-kswapd-backoff", "pgsteal_kswapd"),
        );
        for v in ["p2-nonrot", "p3-kswapd-backoff"] {
            let d: Vec<String> = COUNTS
                .iter()
                .map(|&n| format!("{:.1}", sys(r, v, n)))
                .collect();
            eprintln!("seed {seed}: {v} System {}", d.join(" "));
        }
    }
    for (seed, r) in &runs {
        let seed = *seed;
        let p1 = signs(r, "vanilla", "p1-batch");
        let p2 = signs(r, "p1-batch", "p2-nonrot");
        let p3 = signs(r, "p2-nonrot", "p3-kswapd-backoff");
        let (m1, m3) = (matches(&p1, &P1), matches(&p3, &P3));

        // Batching saves a tree_lock section per page in favour of one per
        // batch: System falls at every thread count but where the seed's
        // +10 % is its column's outlier.
        assert!(m1 >= 4, "seed {seed}: P1 {p1:?}");
        // The kswapd backoff: at 3 threads usemem spins less on the
        // tree_lock than it reclaims more (the seed: -20 %); at 5 and 7
        // direct reclaim takes over the stalled kswapds' nodes.
        assert_eq!(p3[1], -1, "seed {seed}: P3 {p3:?}");
        assert_eq!(&p3[2..4], &[1, 1], "seed {seed}: P3 {p3:?}");
        // At 8 threads the stalled kswapds' nodes are reclaimed directly
        // too (+12 % at this size); at 1 thread the change is under 0.5 %
        // (no sign; the seed's -1 %).
        assert_eq!(p3[4], 1, "seed {seed}: P3 {p3:?}");
        assert!(m3 >= 4, "seed {seed}: P3 {p3:?}");
        // P2 never makes things worse where there is contention.
        assert!(p2[1..].iter().all(|s| *s <= 0), "seed {seed}: P2 {p2:?}");

        // P3 moves reclaim from kswapd to direct reclaim (seed: about 10x
        // more direct scanning).
        let (d2, d3) = (
            vm(r, "p2-nonrot", "pgscan_direct"),
            vm(r, "p3-kswapd-backoff", "pgscan_direct"),
        );
        let (k2, k3) = (
            vm(r, "p2-nonrot", "pgscan_kswapd"),
            vm(r, "p3-kswapd-backoff", "pgscan_kswapd"),
        );
        assert!(
            d3 > d2 * 1.2 && k3 < k2 * 0.95,
            "seed {seed}: direct {d2} -> {d3}, kswapd {k2} -> {k3}"
        );
        assert!(vm(r, "p3-kswapd-backoff", "kswapd_backoffs") > 0.0);
        // Under P3 most of the kswapd reclaim left is the exclusive
        // node's: a stalled kswapd gets about one batch through per stall.
        // Without the patch no node is exclusive.
        let (kx, kall) = (
            vm(r, "p3-kswapd-backoff", "pgsteal_kswapd_exclusive"),
            vm(r, "p3-kswapd-backoff", "pgsteal_kswapd"),
        );
        assert!(kx > 0.5 * kall, "seed {seed}: exclusive {kx} of {kall}");
        assert_eq!(vm(r, "p2-nonrot", "pgsteal_kswapd_exclusive"), 0.0);

        // P4 on brd: the stalling kswapds mark their nodes congested, but
        // wait_iff_congested() sleeps only while a backing device is
        // congested and bio-based brd never is, so no direct reclaimer
        // sleeps and System is P3's at every thread count.
        assert!(vm(r, "p4-congest", "pgdat_congested_marks") > 0.0);
        assert_eq!(vm(r, "p3-kswapd-backoff", "pgdat_congested_marks"), 0.0);
        assert_eq!(vm(r, "p4-congest", "congestion_waits"), 0.0);
        for n in COUNTS {
            assert_eq!(
                sys(r, "p3-kswapd-backoff", n),
                sys(r, "p4-congest", n),
                "seed {seed}: System-{n}"
            );
        }
        // too_many_isolated() (isolated > inactive / 8) never starts
        // throttling: a few reclaimers' 32-folio batches against a full LRU.
        for v in ["p2-nonrot", "p3-kswapd-backoff"] {
            let x = vm(r, v, "isolated_ratio_max");
            assert!(x > 0.0 && x < 0.5, "seed {seed}: {v} isolated ratio {x}");
        }
        // Direct reclaim is do_try_to_free_pages: at these node sizes
        // lru_size >> DEF_PRIORITY over the zonelist is below
        // SWAP_CLUSTER_MAX, so calls go on to priority 11.
        assert!(vm(r, "vanilla", "reclaim_prio_drops") > 0.0);
        assert!(vm(r, "vanilla", "pgscan_direct") > 32.0 * vm(r, "vanilla", "allocstall"));

        // The tree_lock is the contended lock of the vanilla kernel.
        let top = r.variants[0]
            .locks
            .iter()
            .max_by(|a, b| a.waittime_total_us.total_cmp(&b.waittime_total_us))
            .unwrap();
        assert!(top.class.contains("tree_lock"), "{}", top.class);
    }
}

/// The seed's setup fields each move the run: more passes mean more
/// swap-ins; a preallocated brd takes its pages from free memory, so more
/// of the workload is out, the more so the larger the device. (Every page
/// of a later pass is a swap-in while any of the workload is out, so the
/// swap-in count itself follows only the passes.)
#[test]
fn usemem_loops_and_swap_device_move_the_run() {
    let base = include_str!("../data/scenarios/v5-tree-lock-contention.toml")
        .replace("gb = 1.5 }", "gb = 0.375 }")
        .replace("swap_gb = 0.5", "swap_gb = 0.125")
        .replace("loops = 30", "loops = 3")
        .replace("instances = [1, 3, 5, 7, 8]", "instances = [3]");
    let run1 = |text: &str| {
        let mut sc = load_scenario(text).unwrap();
        sc.variants.truncate(1);
        common::run_scenario(&sc, 600.0, 1, 1)
    };
    let a = run1(&base);
    let pswpin = |r: &SimReport| vm(r, "vanilla", "pswpin");
    let out = |r: &SimReport| vm(r, "vanilla", "pswpout") - pswpin(r);
    let more = run1(&base.replace("loops = 3", "loops = 5"));
    assert!(
        pswpin(&more) > 1.3 * pswpin(&a),
        "{} vs {}",
        pswpin(&more),
        pswpin(&a)
    );
    assert!(sys(&more, "vanilla", 3) > sys(&a, "vanilla", 3));
    let not_held = run1(&base.replace("swap_prealloc = true", "swap_prealloc = false"));
    assert!(
        out(&not_held) < out(&a),
        "{} vs {}",
        out(&not_held),
        out(&a)
    );
    let big = run1(&base.replace("swap_gb = 0.125", "swap_gb = 0.25"));
    assert!(out(&big) > out(&a), "{} vs {}", out(&big), out(&a));
}
