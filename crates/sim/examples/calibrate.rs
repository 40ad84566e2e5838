//! Calibrate, then predict.
//!
//! For every built-in scenario, fit its calibration inputs from named seed
//! numbers (bisection on one simulated quantity, seed 1), then run the
//! scenario with the fitted inputs on seeds 1, 2 and 3 and print one table
//! per scenario: quantity | seed | simulated (mean of 3 seeds) | input or
//! prediction | within 2x. The fitted values are printed as TOML at the
//! end; the built-in board and scenario files carry them
//! (docs/SIMULATOR.md "Calibration").
//!
//! `cargo run --release -p reclaimlab-sim --example calibrate [-- V1 V2 ...]`

use reclaimlab_sim::{Control, RunOptions, Scenario, SimReport, load_scenario, run};

const SEEDS: [u64; 3] = [1, 2, 3];

fn sim(sc: &Scenario, seed: u64, variants: Option<&[&str]>) -> SimReport {
    let opts = RunOptions {
        seed,
        replications: 1,
        variants: variants.map(|v| v.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    };
    run(sc, &opts, &mut |_| Control::Continue).expect("simulation runs")
}

/// The scenario run once per seed (every variant).
fn runs3(sc: &Scenario) -> Vec<SimReport> {
    SEEDS.iter().map(|&s| sim(sc, s, None)).collect()
}

/// Mean over the runs of `f(report)`.
fn mean(runs: &[SimReport], f: &dyn Fn(&SimReport) -> f64) -> f64 {
    runs.iter().map(f).sum::<f64>() / runs.len() as f64
}

/// Bisection in log space for `g(x) = target`, `g` increasing in `x`.
fn fit(lo: f64, hi: f64, target: f64, g: &mut dyn FnMut(f64) -> f64) -> f64 {
    let (mut a, mut b) = (lo.ln(), hi.ln());
    for _ in 0..14 {
        let m = 0.5 * (a + b);
        if g(m.exp()) < target {
            a = m;
        } else {
            b = m;
        }
    }
    (0.5 * (a + b)).exp()
}

struct Row {
    quantity: String,
    seed: String,
    seed_value: f64,
    simulated: f64,
    unit: &'static str,
    kind: Kind,
    /// The seed gives a range `[seed_lo, seed_value]`: within 2x of it.
    seed_lo: Option<f64>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Fitted by this program from the seed number in the row.
    Fitted,
    /// Set in the scenario file, not fitted here and not a prediction.
    Set,
    Prediction,
}

fn row(
    q: &str,
    seed: &str,
    seed_value: f64,
    simulated: f64,
    unit: &'static str,
    fitted: bool,
) -> Row {
    Row {
        quantity: q.into(),
        seed: seed.into(),
        seed_value,
        simulated,
        unit,
        kind: if fitted {
            Kind::Fitted
        } else {
            Kind::Prediction
        },
        seed_lo: None,
    }
}

fn print_table(name: &str, rows: &[Row]) {
    println!("\n#### {name}\n");
    println!("| quantity | seed | simulated | input or prediction | within 2x |");
    println!("|---|---|---|---|---|");
    for r in rows {
        let ratio = r.simulated / r.seed_value;
        let ok = if let Some(lo) = r.seed_lo {
            if r.simulated >= lo / 2.0 && r.simulated <= r.seed_value * 2.0 {
                "yes (in the range x/÷ 2)".to_string()
            } else {
                "**no** (outside the range x/÷ 2)".to_string()
            }
        } else if r.seed_value == 0.0 {
            "-".to_string()
        } else if (0.5..=2.0).contains(&ratio) {
            format!("yes ({ratio:.2}x)")
        } else {
            format!("**no** ({ratio:.2}x)")
        };
        println!(
            "| {} | {} | {} | {} | {} |",
            r.quantity,
            r.seed,
            fmt(r.simulated, r.unit),
            match r.kind {
                Kind::Fitted => "input (fitted)",
                Kind::Set => "input (set in the scenario)",
                Kind::Prediction => "prediction",
            },
            ok
        );
    }
}

fn fmt(x: f64, unit: &str) -> String {
    match unit {
        "%" => format!("{x:+.2} %"),
        "x" => format!("{x:.2}x"),
        "" => format!("{x:.3}"),
        u => format!("{x:.3} {u}"),
    }
}

fn v(r: &SimReport, name: &str) -> reclaimlab_sim::VariantReport {
    r.variant(name).expect("variant").clone()
}

// ------------------------------------------------------------------ V1

/// Spec §4.2 small-board defaults (no load): madvise per present PTE
/// (young clear + folio_isolate_lru) and a batched page free.
const SMALL_MADV_PTE: f64 = 600.0;
const SMALL_PAGE_FREE: f64 = 250.0;

fn v1(fits: &mut Vec<String>) {
    let mut sc = load_scenario("v1-madvise-pte-walk").unwrap();
    let young = sc.costs.madvise_young_clear;
    // One fitted input: the per-PTE cost of the walk under S1's load, from
    // the unpatched wakeup_rt (1969 us). The load slowdown it implies over
    // the no-load default is applied to the munmap free path's page free.
    let set = |sc: &mut Scenario, pte: f64| {
        sc.costs.madvise_pte = pte;
        sc.costs.munmap_free_page = SMALL_PAGE_FREE * (pte + young) / SMALL_MADV_PTE;
    };
    let pte = fit(500.0, 20_000.0, 1969.0, &mut |x| {
        let mut s = sc.clone();
        set(&mut s, x);
        sim(&s, 1, Some(&["baseline"])).variants[0]
            .summary
            .wakeup_rt_max_us
            .unwrap_or(0.0)
    });
    set(&mut sc, pte);
    fits.push(format!(
        "# V1, board riscv-small\nmadvise_pte = {:.0}\nmunmap_free_page = {:.0}",
        pte, sc.costs.munmap_free_page
    ));
    let wk = |r: &SimReport, n: &str| v(r, n).summary.wakeup_rt_max_us.unwrap_or(0.0);
    let runs = runs3(&sc);
    let base = mean(&runs, &|r| wk(r, "baseline"));
    let merged = mean(&runs, &|r| wk(r, "merged-need-resched"));
    let v1u = mean(&runs, &|r| wk(r, "v1-unconditional"));
    let cul = v(&runs[0], "merged-need-resched")
        .summary
        .wakeup_rt_culprit
        .unwrap_or_default();
    print_table(
        "V1 (S1, LicheePi 4A, 6.5-rt6)",
        &[
            row(
                "wakeup_rt max, baseline",
                "1969 us",
                1969.0,
                base,
                "us",
                true,
            ),
            row(
                "wakeup_rt max, merged patch (b2f557a21bc8)",
                "879 us",
                879.0,
                merged,
                "us",
                false,
            ),
            row("wakeup_rt max, v1 patch", "879 us", 879.0, v1u, "us", false),
            row(
                "baseline / patched",
                "2.24x",
                1969.0 / 879.0,
                base / merged,
                "x",
                false,
            ),
        ],
    );
    println!("\npatched culprit (seed: free_unref_page_list ... sys_munmap): {cul}");
}

// ------------------------------------------------------------------ V2

fn v2(fits: &mut Vec<String>) {
    let mut sc = load_scenario("v2-munmap-sections").unwrap();
    // One fitted input: zap cost per page, from 320 GB in 17,915,310 us.
    let zap = fit(50.0, 1000.0, 17.915_310, &mut |x| {
        let mut s = sc.clone();
        s.costs.zap_page = x;
        s.workload.munmap.as_mut().unwrap().size_gb = vec![320.0];
        v(&sim(&s, 1, Some(&["write-whole"])), "write-whole")
            .metric("munmap-syscall-s-320GB")
            .unwrap_or(0.0)
    });
    sc.costs.zap_page = zap;
    fits.push(format!("# V2, board x86-server\nzap_page = {zap:.1}"));
    let runs = runs3(&sc);
    let m = |var: &'static str, k: &'static str| {
        let runs = &runs;
        move || mean(runs, &|r| v(r, var).metric(k).unwrap_or(0.0))
    };
    print_table(
        "V2 (S2, 2x E5-2680, 384 GB, 4.9)",
        &[
            row(
                "munmap 320 GB, write-whole",
                "17,915,310 us",
                17.915_310,
                m("write-whole", "munmap-syscall-s-320GB")(),
                "s",
                true,
            ),
            row(
                "munmap 80 GB, write-whole",
                "5,008,377 us",
                5.008_377,
                m("write-whole", "munmap-syscall-s-80GB")(),
                "s",
                false,
            ),
            row(
                "munmap 160 GB, write-whole",
                "9,129,243 us",
                9.129_243,
                m("write-whole", "munmap-syscall-s-160GB")(),
                "s",
                false,
            ),
            row(
                "munmap 80 GB, 1 GiB sections",
                "4,905,841 us",
                4.905_841,
                m("sections-contended", "munmap-syscall-s-80GB")(),
                "s",
                false,
            ),
            row(
                "munmap 160 GB, 1 GiB sections",
                "9,145,306 us",
                9.145_306,
                m("sections-contended", "munmap-syscall-s-160GB")(),
                "s",
                false,
            ),
            row(
                "munmap 320 GB, 1 GiB sections",
                "17,990,174 us",
                17.990_174,
                m("sections-contended", "munmap-syscall-s-320GB")(),
                "s",
                false,
            ),
            row(
                "ps max wait, sections, drop if contended",
                "~56 ms (one section, spec V2)",
                56.0,
                m("sections-contended", "ps-max-wait-ms-320GB")(),
                "ms",
                false,
            ),
        ],
    );
}

// ------------------------------------------------------------------ V3

fn v3(fits: &mut Vec<String>) {
    let mut sc = load_scenario("v3-pageout-ignore-refs").unwrap();
    let base_costs = sc.costs.clone();
    let scale0 = sc.machine.cost_scale;
    // One fitted input: the guest's global slowdown, from the baseline
    // real 49.634 s. The scenario's costs already carry its scale.
    let scale = |sc: &mut Scenario, f: f64| {
        let mut c = base_costs.clone();
        let k = f / scale0;
        for (_, val) in cost_fields(&mut c) {
            *val *= k;
        }
        sc.costs = c;
        sc.machine.cost_scale = f;
    };
    let f = fit(1.0, 100.0, 49.634, &mut |x| {
        let mut s = sc.clone();
        scale(&mut s, x);
        v(&sim(&s, 1, Some(&["baseline"])), "baseline")
            .metric("Elapsed")
            .unwrap_or(0.0)
    });
    scale(&mut sc, f);
    fits.push(format!(
        "# V3, scenario v3-pageout-ignore-refs\ncost_scale = {f:.2}"
    ));
    let runs = runs3(&sc);
    let m = |var: &str, k: &str| mean(&runs, &|r| v(r, var).metric(k).unwrap_or(0.0));
    let (r0, r1) = (m("baseline", "Elapsed"), m("ignore-references", "Elapsed"));
    let (s0, s1) = (m("baseline", "System"), m("ignore-references", "System"));
    print_table(
        "V3 (S3, emulated guest)",
        &[
            row("real, baseline", "49.634 s", 49.634, r0, "s", true),
            row("sys, baseline", "47.434 s", 47.434, s0, "s", false),
            row(
                "user, baseline",
                "0.637 s",
                0.637,
                m("baseline", "User"),
                "s",
                false,
            ),
            row(
                "real, ignore references",
                "46.334 s",
                46.334,
                r1,
                "s",
                false,
            ),
            row("sys, ignore references", "44.265 s", 44.265, s1, "s", false),
            row(
                "user, ignore references",
                "0.648 s",
                0.648,
                m("ignore-references", "User"),
                "s",
                false,
            ),
            row(
                "real change",
                "-6.65 %",
                -6.65,
                (r1 / r0 - 1.0) * 100.0,
                "%",
                false,
            ),
            row(
                "sys change",
                "-6.68 %",
                -6.68,
                (s1 / s0 - 1.0) * 100.0,
                "%",
                false,
            ),
        ],
    );
}

/// Every cost field, by name (through serde, so no field is missed).
fn cost_fields(c: &mut reclaimlab_sim::Costs) -> Vec<(String, &mut f64)> {
    // Costs is a flat struct of f64: scale through a JSON round trip is
    // not possible by reference, so list the fields explicitly.
    vec![
        ("lru_visit_skip".into(), &mut c.lru_visit_skip),
        ("lru_isolate_take".into(), &mut c.lru_isolate_take),
        ("lru_putback".into(), &mut c.lru_putback),
        ("lru_add_drain".into(), &mut c.lru_add_drain),
        ("spin_lock".into(), &mut c.spin_lock),
        ("lock_handoff".into(), &mut c.lock_handoff),
        ("shrink_folio_fixed".into(), &mut c.shrink_folio_fixed),
        ("folio_referenced".into(), &mut c.folio_referenced),
        ("madvise_pte".into(), &mut c.madvise_pte),
        ("madvise_young_clear".into(), &mut c.madvise_young_clear),
        ("swapcache_insert".into(), &mut c.swapcache_insert),
        ("swap_slot_ssd".into(), &mut c.swap_slot_ssd),
        ("swap_slot_rotational".into(), &mut c.swap_slot_rotational),
        ("try_to_unmap".into(), &mut c.try_to_unmap),
        ("zram_compress".into(), &mut c.zram_compress),
        ("brd_write".into(), &mut c.brd_write),
        ("remove_mapping".into(), &mut c.remove_mapping),
        ("page_free".into(), &mut c.page_free),
        ("zap_page".into(), &mut c.zap_page),
        ("munmap_free_page".into(), &mut c.munmap_free_page),
        ("tlb_flush_local".into(), &mut c.tlb_flush_local),
        ("irq_wakeup".into(), &mut c.irq_wakeup),
        ("ctx_switch_user".into(), &mut c.ctx_switch_user),
        ("cond_resched".into(), &mut c.cond_resched),
        ("page_fault".into(), &mut c.page_fault),
        ("inode_move".into(), &mut c.inode_move),
        ("file_write_page".into(), &mut c.file_write_page),
        ("rwsem_op".into(), &mut c.rwsem_op),
        ("proc_read".into(), &mut c.proc_read),
        ("munmap_detach".into(), &mut c.munmap_detach),
        ("user_touch_page".into(), &mut c.user_touch_page),
    ]
}

// ------------------------------------------------------------------ V4

fn v4(fits: &mut Vec<String>) {
    let mut sc = load_scenario("v4-isolate-irq-holdoff").unwrap();
    let band0 = sc.workload.file_lru.as_ref().unwrap().normal_band_mb;
    // One fitted input: the length of the Normal-zone bands at the LRU
    // tail (the zone mix the seed does not state), from the irqsoff trace
    // (77,766 us in isolate_lru_folios from kswapd0).
    let set = |sc: &mut Scenario, k: f64| {
        sc.workload.file_lru.as_mut().unwrap().normal_band_mb = [band0[0] * k, band0[1] * k];
    };
    // Fitted and judged on runs as long as the seed's (C:773124 at
    // I:1000 = 773 s): the longest skip walk grows with the run length.
    sc.duration_ns = 773_000_000_000;
    // The longest walk is a max over random bands: fit the mean of the
    // three seeds, a smoother target than one seed.
    let k = fit(0.2, 5.0, 77_766.0, &mut |x| {
        let mut s = sc.clone();
        set(&mut s, x);
        SEEDS
            .iter()
            .map(|&seed| {
                v(&sim(&s, seed, Some(&["baseline"])), "baseline")
                    .summary
                    .irqsoff_max_us
                    .unwrap_or(0.0)
            })
            .sum::<f64>()
            / SEEDS.len() as f64
    });
    set(&mut sc, k);
    let b = sc.workload.file_lru.as_ref().unwrap().normal_band_mb;
    fits.push(format!(
        "# V4, scenario v4-isolate-irq-holdoff [workload.file_lru]\nnormal_band_mb = [{:.0}, {:.0}]",
        b[0], b[1]
    ));
    let runs = runs3(&sc);
    let worst = |r: &SimReport, n: &str| v(r, n).summary.cyclictest_max_us.unwrap_or(0.0);
    let hit = |r: &SimReport, n: &str| {
        v(r, n)
            .summary
            .cyclictest_thread_max_us
            .iter()
            .filter(|m| **m > 10_000.0)
            .count() as f64
    };
    let irq = |r: &SimReport, n: &str| v(r, n).summary.irqsoff_max_us.unwrap_or(0.0);
    let pre = |r: &SimReport, n: &str| v(r, n).summary.preemptoff_max_us.unwrap_or(0.0);
    let both = mean(&runs, &|r| worst(r, "both-caps"));
    print_table(
        "V4 (S4, i7-4790, 6.12; 773 s runs)",
        &[
            row(
                "irqsoff max, baseline",
                "77,766 us",
                77_766.0,
                mean(&runs, &|r| irq(r, "baseline")),
                "us",
                true,
            ),
            row(
                "cyclictest Max, worst thread, baseline",
                "67.5 ms",
                67_500.0,
                mean(&runs, &|r| worst(r, "baseline")),
                "us",
                false,
            ),
            row(
                "cyclictest threads with Max > 10 ms, baseline",
                "8 of 8",
                8.0,
                mean(&runs, &|r| hit(r, "baseline")),
                "",
                false,
            ),
            Row {
                kind: Kind::Set,
                ..row(
                    "preemptoff max, isolate cap only (move_expired_inodes)",
                    "66.7 ms",
                    66_696.0,
                    mean(&runs, &|r| pre(r, "isolate-time-cap")),
                    "us",
                    false,
                )
            },
            Row {
                seed_lo: Some(1_470.0),
                ..row(
                    "cyclictest Max, worst thread, both caps",
                    "1.47-4.45 ms",
                    4_450.0,
                    both,
                    "us",
                    false,
                )
            },
        ],
    );
    let cul = v(&runs[0], "both-caps")
        .summary
        .wakeup_rt_culprit
        .unwrap_or_default();
    println!("\nboth caps, wakeup_rt culprit: {cul}");
}

// ------------------------------------------------------------------ V5

const V5_SEED: &[(&str, [f64; 5])] = &[
    ("vanilla System", [260.53, 179.59, 205.71, 146.46, 275.37]),
    ("vanilla Elapsd", [292.89, 69.47, 54.12, 34.28, 57.98]),
    ("p1-batch System", [192.98, 198.33, 105.22, 97.79, 149.39]),
    ("p1-batch Elapsd", [219.95, 79.02, 29.88, 24.06, 33.34]),
    ("p2-nonrot System", [181.00, 86.19, 67.43, 89.55, 102.92]),
    ("p2-nonrot Elapsd", [209.23, 36.93, 19.52, 21.93, 23.63]),
    (
        "p3-kswapd-backoff System",
        [179.61, 68.91, 93.09, 90.98, 299.81],
    ),
    (
        "p3-kswapd-backoff Elapsd",
        [210.41, 33.89, 25.19, 18.45, 48.80],
    ),
    ("p4-congest System", [202.21, 105.14, 80.98, 81.07, 227.08]),
    ("p4-congest Elapsd", [236.56, 46.78, 23.33, 17.18, 38.09]),
];

/// The seed's whole-run totals (mmtests duration over every thread count
/// and iteration): (quantity, from, to, seconds before, seconds after).
const V5_TOTALS: &[(&str, &str, &str, f64, f64)] = &[
    ("System", "p2-nonrot", "p3-kswapd-backoff", 3690.20, 5127.32),
    ("Elapsd", "p2-nonrot", "p3-kswapd-backoff", 2186.05, 2364.08),
    (
        "System",
        "p3-kswapd-backoff",
        "p4-congest",
        5127.32,
        4875.92,
    ),
    (
        "Elapsd",
        "p3-kswapd-backoff",
        "p4-congest",
        2364.08,
        2539.77,
    ),
];
const V5_N: [u32; 5] = [1, 3, 5, 7, 8];

fn v5(fits: &mut Vec<String>) {
    let mut sc = load_scenario("v5-tree-lock-contention").unwrap();
    let seed_gm = V5_SEED[0].1.iter().map(|x| x.ln()).sum::<f64>() / 5.0;
    // One fitted input: how many times the measured run repeats the
    // simulated one (the seed's usemem size and iterations are not
    // stated), from the geometric mean of the vanilla System column. The
    // durations are linear in it, so one run at repeat = 1 fits it.
    sc.workload.usemem.as_mut().unwrap().repeat = 1.0;
    let r = sim(&sc, 1, Some(&["vanilla"]));
    let vr = &r.variants[0];
    let sim_gm = V5_N
        .iter()
        .map(|n| vr.metric(&format!("System-{n}")).unwrap_or(1e-9).ln())
        .sum::<f64>()
        / 5.0;
    let f = (seed_gm - sim_gm).exp();
    sc.workload.usemem.as_mut().unwrap().repeat = f;
    fits.push(format!(
        "# V5, scenario v5-tree-lock-contention, [workload.usemem]\nrepeat = {f:.1}"
    ));
    let runs = runs3(&sc);
    let m = |var: &str, k: &str| {
        runs.iter()
            .map(|r| v(r, var).metric(k).unwrap_or(0.0))
            .sum::<f64>()
            / runs.len() as f64
    };
    let mut rows = Vec::new();
    for (label, vals) in V5_SEED {
        let (var, kind) = label.split_once(' ').unwrap();
        for (i, n) in V5_N.iter().enumerate() {
            let fitted = var == "vanilla" && kind == "System";
            rows.push(row(
                &format!("{kind}-{n}, {var}"),
                &format!("{:.2} s", vals[i]),
                vals[i],
                m(var, &format!("{kind}-{n}")),
                "s",
                fitted,
            ));
        }
    }
    // "10 times more direct reclaim scanning" under patch 3 (the seed's
    // words, over the whole run): pgscan_direct summed over the thread
    // counts and seeds, p3-kswapd-backoff over p2-nonrot.
    let scans = |var: &str| {
        runs.iter()
            .map(|r| v(r, var).vmstat("pgscan_direct").unwrap_or(0.0))
            .sum::<f64>()
    };
    rows.push(row(
        "pgscan_direct, p3-kswapd-backoff / p2-nonrot",
        "~10x",
        10.0,
        scans("p3-kswapd-backoff") / scans("p2-nonrot").max(1.0),
        "x",
        false,
    ));
    // Whole-run changes: the simulated Amean summed over the thread
    // counts (the seed's per-count Amean sums give the same change).
    for (kind, a, b, x, y) in V5_TOTALS {
        let sum = |var: &str| {
            V5_N.iter()
                .map(|n| m(var, &format!("{kind}-{n}")))
                .sum::<f64>()
        };
        rows.push(row(
            &format!("{kind} whole run, {a} -> {b}"),
            &format!("{:+.1} % ({x:.0} -> {y:.0} s)", (y / x - 1.0) * 100.0),
            (y / x - 1.0) * 100.0,
            (sum(b) / sum(a) - 1.0) * 100.0,
            "%",
            false,
        ));
    }
    print_table("V5 (S5, 4 fake nodes, 4.8-rc5)", &rows);
    // The seed's own spread: on brd patch 4 changes nothing (its flag has
    // no sleeping reader, spec §1.6), so its P3 -> P4 change per thread
    // count is run-to-run variation. A P3 change smaller than that is not
    // a measured sign.
    let spread: Vec<String> = V5_N
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let p3 = (V5_SEED[6].1[i] / V5_SEED[4].1[i] - 1.0) * 100.0;
            let p4 = (V5_SEED[8].1[i] / V5_SEED[6].1[i] - 1.0) * 100.0;
            let beyond = p3.abs() > p4.abs();
            format!(
                "{n}: P3 {p3:+.0} % vs P3->P4 {p4:+.0} % {}",
                if beyond { "beyond" } else { "within" }
            )
        })
        .collect();
    println!(
        "\nseed P3 change against the seed's P3 -> P4 spread: {}",
        spread.join("; ")
    );
    // Signs of the patch steps (System), the acceptance test of spec V5.
    let steps = [
        ("P1 (vanilla -> p1-batch)", 0, 2, "vanilla", "p1-batch"),
        (
            "P3 (p2-nonrot -> p3-kswapd-backoff)",
            4,
            6,
            "p2-nonrot",
            "p3-kswapd-backoff",
        ),
    ];
    for (name, a, b, va, vb) in steps {
        let mut right = 0;
        let mut cells = Vec::new();
        for (i, n) in V5_N.iter().enumerate() {
            let seed_d = V5_SEED[b].1[i] - V5_SEED[a].1[i];
            let k = format!("System-{n}");
            let sim_d = m(vb, &k) - m(va, &k);
            // A change under 0.5 % has no sign.
            let ok = (sim_d / m(va, &k)).abs() >= 0.005 && seed_d.signum() == sim_d.signum();
            right += usize::from(ok);
            cells.push(format!(
                "{n}: seed {:+.0} %, sim {:+.1} % {}",
                seed_d / V5_SEED[a].1[i] * 100.0,
                sim_d / m(va, &k) * 100.0,
                if ok { "ok" } else { "WRONG" }
            ));
        }
        println!("\n{name}: sign right at {right} of 5; {}", cells.join("; "));
    }
    let pd = |var: &str| {
        runs.iter()
            .map(|r| {
                let x = v(r, var);
                let d = x.vmstat("pgscan_direct").unwrap_or(0.0);
                let k = x.vmstat("pgscan_kswapd").unwrap_or(0.0);
                d / (d + k).max(1.0)
            })
            .sum::<f64>()
            / runs.len() as f64
    };
    let total = |var: &str, k: &str| {
        runs.iter()
            .map(|r| v(r, var).vmstat(k).unwrap_or(0.0))
            .sum::<f64>()
    };
    println!(
        "pgscan_direct p2 -> p3: x{:.2}; pgscan_kswapd: x{:.2}",
        total("p3-kswapd-backoff", "pgscan_direct") / total("p2-nonrot", "pgscan_direct").max(1.0),
        total("p3-kswapd-backoff", "pgscan_kswapd") / total("p2-nonrot", "pgscan_kswapd").max(1.0)
    );
    println!(
        "direct share of scanning: p2 {:.3}, p3 {:.3} (x{:.2}; seed: \"10 times more direct reclaim scanning\")",
        pd("p2-nonrot"),
        pd("p3-kswapd-backoff"),
        pd("p3-kswapd-backoff") / pd("p2-nonrot").max(1e-9)
    );
}

fn main() {
    let want: Vec<String> = std::env::args().skip(1).collect();
    let on = |s: &str| want.is_empty() || want.iter().any(|w| w.eq_ignore_ascii_case(s));
    let mut fits = Vec::new();
    if on("V1") {
        v1(&mut fits);
    }
    if on("V2") {
        v2(&mut fits);
    }
    if on("V3") {
        v3(&mut fits);
    }
    if on("V4") {
        v4(&mut fits);
    }
    if on("V5") {
        v5(&mut fits);
    }
    println!("\n```toml\n{}\n```", fits.join("\n\n"));
}
