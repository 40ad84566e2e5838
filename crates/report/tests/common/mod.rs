//! Inputs shared by the integration tests, transcribed from the seed mails
//! in /work/shared/seeds (004: Mel Gorman's tree_lock series, 000: Jiexun
//! Wang's madvise cond_resched, 003: Mike Galbraith's isolate_lru_folios).

#![allow(dead_code, reason = "each test binary uses a different subset")]

pub mod xml;

use reclaimlab_report::compare::*;
use reclaimlab_report::stats::SplitMix64;

pub const METRICS: [&str; 10] = [
    "System-1", "System-3", "System-5", "System-7", "System-8", "Elapsd-1", "Elapsd-3", "Elapsd-5",
    "Elapsd-7", "Elapsd-8",
];

/// Seed 004: usemem Amean per variant, and the delta printed against the
/// previous variant (each mail compares a link with the one before it).
pub const CHAIN: [(&str, [f64; 10], [f64; 10]); 5] = [
    (
        "vanilla",
        [
            260.53, 179.59, 205.71, 146.46, 275.37, 292.89, 69.47, 54.12, 34.28, 57.98,
        ],
        [0.0; 10],
    ),
    (
        "batch-v1",
        [
            192.98, 198.33, 105.22, 97.79, 149.39, 219.95, 79.02, 29.88, 24.06, 33.34,
        ],
        [
            25.93, -10.43, 48.85, 33.23, 45.75, 24.90, -13.74, 44.79, 29.81, 42.50,
        ],
    ),
    (
        "ramdisknonrot-v1",
        [
            181.00, 86.19, 67.43, 89.55, 102.92, 209.23, 36.93, 19.52, 21.93, 23.63,
        ],
        [
            6.21, 56.54, 35.91, 8.42, 31.11, 4.88, 53.26, 34.69, 8.84, 29.12,
        ],
    ),
    (
        "waitqueue-v1",
        [
            179.61, 68.91, 93.09, 90.98, 299.81, 210.41, 33.89, 25.19, 18.45, 48.80,
        ],
        [
            0.77, 20.05, -38.05, -1.60, -191.30, -0.57, 8.25, -29.08, 15.88, -106.51,
        ],
    ),
    (
        "directcongest-v1",
        [
            202.21, 105.14, 80.98, 81.07, 227.08, 236.56, 46.78, 23.33, 17.18, 38.09,
        ],
        [
            -12.58, -52.59, 13.01, 10.90, 24.26, -12.43, -38.06, 7.38, 6.91, 21.93,
        ],
    ),
];

/// Seed 004 as the service builds it: each patch mail printed one table
/// of two columns (the previous link and the new one), so each column holds
/// the rows of the table that introduced it and of the table that compared
/// the next link with it. Each table is its own scope.
pub fn seed004_chain() -> ComparisonInput {
    let row = |mail: usize, i: usize, name: &str, v: f64, d: f64| MetricSamples {
        scope: format!("mail {mail}: usemem"),
        section: format!("usemem (PATCH {mail}/4)"),
        direction_source: reclaimlab_report::direction::DirectionSource::Printed,
        name: name.to_string(),
        unit: "seconds".into(),
        better: Better::Lower,
        samples: vec![],
        printed: Some(PrintedSummary {
            stat: "Amean".into(),
            value: v,
            printed_delta_pct: Some(d),
            printed_convention: DeltaConvention::Gain,
            relative_to: Some(i.saturating_sub(1)),
        }),
        printed_spread_pct: None,
        mean: None,
    };
    let columns = CHAIN
        .iter()
        .enumerate()
        .map(|(i, (label, values, deltas))| {
            let mut metrics = Vec::new();
            // The table of mail i (i >= 1) compares column i - 1 with i.
            if i >= 1 {
                for (k, name) in METRICS.iter().enumerate() {
                    metrics.push(row(i, i, name, values[k], deltas[k]));
                }
            }
            // The next mail's table starts with this column again (0.00%).
            if i + 1 < CHAIN.len() {
                // As the service builds it: the table's own first column
                // carries no printed delta (its "0.00%" is against itself).
                for (k, name) in METRICS.iter().enumerate() {
                    let mut r = row(i + 1, 0, name, values[k], 0.0);
                    if let Some(p) = r.printed.as_mut() {
                        p.printed_delta_pct = None;
                        p.relative_to = None;
                    }
                    metrics.push(r);
                }
            }
            ColumnInput {
                label: label.to_string(),
                runs: vec![RunRef {
                    id: 40 + i as i64,
                    board: "UMA 4 fake nodes".into(),
                    kernel: "4.8.0-rc5".into(),
                    variant: label.to_string(),
                }],
                metrics,
                ..ColumnInput::default()
            }
        })
        .collect();
    ComparisonInput {
        title: "usemem on 4.8.0-rc5: mm-reclaim-contention-v1 chain".into(),
        columns,
        baseline: 0,
        chain_previous: true,
    }
}

pub fn seed000_madvise() -> ComparisonInput {
    let col = |label: &str, lat: f64, culprit: &str, path: &[&str]| ColumnInput {
        label: label.into(),
        runs: vec![RunRef {
            id: 1,
            board: "LicheePi 4A".into(),
            kernel: "6.5.0-rt6".into(),
            variant: label.into(),
        }],
        latency: Some(LatencyColumn {
            traces: vec![TraceSummary {
                tracer: "wakeup_rt".into(),
                latency_us: lat,
                culprit: Some(culprit.into()),
                culprit_path: path.iter().map(|s| s.to_string()).collect(),
                n_runs: 1,
            }],
            ..LatencyColumn::default()
        }),
        ..ColumnInput::default()
    };
    ComparisonInput {
        title: "mm/madvise: add cond_resched() in madvise_cold_or_pageout_pte_range()".into(),
        columns: vec![
            col(
                "vanilla",
                1969.0,
                "madvise_cold_or_pageout_pte_range",
                &[
                    "madvise_cold_or_pageout_pte_range",
                    "walk_pgd_range",
                    "sys_madvise",
                ],
            ),
            col(
                "cond_resched",
                879.0,
                "free_unref_page_list",
                &["free_unref_page_list", "release_pages", "sys_munmap"],
            ),
        ],
        baseline: 0,
        chain_previous: false,
    }
}

pub const SEED003_BEFORE: [(u32, f64, f64, f64); 8] = [
    (0, 1.0, 3.0, 53381.0),
    (1, 1.0, 3.0, 60119.0),
    (2, 1.0, 4.0, 67469.0),
    (3, 1.0, 4.0, 65534.0),
    (4, 1.0, 4.0, 57776.0),
    (5, 1.0, 4.0, 64737.0),
    (6, 1.0, 4.0, 52567.0),
    (7, 1.0, 5.0, 52606.0),
];

pub const SEED003_AFTER: [(u32, f64, f64, f64); 8] = [
    (0, 1.0, 4.0, 4449.0),
    (1, 1.0, 4.0, 2075.0),
    (2, 1.0, 5.0, 2987.0),
    (3, 1.0, 5.0, 2425.0),
    (4, 1.0, 5.0, 1466.0),
    (5, 1.0, 5.0, 3844.0),
    (6, 1.0, 5.0, 3291.0),
    (7, 1.0, 5.0, 3516.0),
];

pub fn seed003_isolate() -> ComparisonInput {
    let col =
        |label: &str, rows: &[(u32, f64, f64, f64)], culprit: Option<&str>, lat: Option<f64>| {
            ColumnInput {
                label: label.into(),
                runs: vec![RunRef {
                    id: 3,
                    board: "i7-4790".into(),
                    kernel: "6.12.0-rc5".into(),
                    variant: label.into(),
                }],
                latency: Some(LatencyColumn {
                    per_thread: rows
                        .iter()
                        .map(|&(thread, min_us, avg_us, max_us)| ThreadLatency {
                            thread,
                            min_us,
                            avg_us,
                            max_us,
                            n_runs: 1,
                        })
                        .collect(),
                    traces: lat
                        .map(|l| TraceSummary {
                            tracer: "irqsoff".into(),
                            latency_us: l,
                            culprit: culprit.map(str::to_string),
                            culprit_path: vec![],
                            n_runs: 1,
                        })
                        .into_iter()
                        .collect(),
                    ..LatencyColumn::default()
                }),
                ..ColumnInput::default()
            }
        };
    ComparisonInput {
        title: "mm: vmscan: Limit isolate_lru_folios() IRQ holdoff latency impact".into(),
        columns: vec![
            col("6.12.0-rc5", &SEED003_BEFORE, None, None),
            col("isolate-cap", &SEED003_AFTER, None, None),
        ],
        baseline: 0,
        chain_previous: false,
    }
}

/// Repeated runs with real spread, for significance marks.
pub fn repeated_runs() -> ComparisonInput {
    let col = |label: &str, system: &[f64], tput: &[f64]| ColumnInput {
        label: label.into(),
        metrics: vec![
            MetricSamples {
                name: "System-1".into(),
                unit: "seconds".into(),
                better: Better::Lower,
                samples: system.to_vec(),
                ..MetricSamples::default()
            },
            MetricSamples {
                name: "pwrite-throughput".into(),
                unit: "MB/s".into(),
                better: Better::Higher,
                samples: tput.to_vec(),
                ..MetricSamples::default()
            },
        ],
        ..ColumnInput::default()
    };
    ComparisonInput {
        title: "Repeated runs".into(),
        columns: vec![
            col(
                "vanilla",
                &[292.89, 301.2, 285.4, 296.7, 290.1],
                &[1203.5, 1187.2, 1250.9, 1199.0],
            ),
            col(
                "batch-v1",
                &[219.95, 231.0, 210.3, 225.8, 214.4],
                &[1302.1, 1288.7, 1275.4, 1311.0, 1290.2],
            ),
            col("one-run", &[250.0], &[1250.0]),
        ],
        baseline: 0,
        chain_previous: false,
    }
}

fn pick<'a>(rng: &mut SplitMix64, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len())]
}

fn label(rng: &mut SplitMix64) -> String {
    let parts = [
        "vanilla",
        "batch-v1",
        "ramdisknonrot-v1",
        "µs",
        "überlong",
        "a",
        "",
        "x<y&z",
        "\t\n",
        "6.12.0-rc5-g4236f913-master-dirty",
        "madvise_cold_or_pageout_pte_range",
        "do_vmi_align_munmap.constprop.0",
        "日本語",
        " ",
    ];
    let n = rng.below(6);
    (0..n)
        .map(|_| pick(rng, &parts))
        .collect::<Vec<_>>()
        .join(pick(rng, &["-", " ", "", "_"]))
}

fn value(rng: &mut SplitMix64) -> f64 {
    match rng.below(12) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => 0.0,
        3 => -123.456,
        4 => 1e300,
        5 => 1e-300,
        6 => f64::MAX,
        _ => (rng.next_u64() % 1_000_000) as f64 / 100.0,
    }
}

/// A random comparison input with hostile values: NaN, infinities, huge
/// and tiny numbers, empty and non-ASCII labels, up to 8 columns.
pub fn random_input(rng: &mut SplitMix64) -> ComparisonInput {
    let ncols = rng.below(9);
    let nmetrics = rng.below(5);
    let names: Vec<String> = (0..nmetrics).map(|_| label(rng)).collect();
    let columns = (0..ncols)
        .map(|_| ColumnInput {
            label: label(rng),
            simulated: rng.below(2) == 0,
            runs: (0..rng.below(3))
                .map(|i| RunRef {
                    id: i as i64,
                    board: label(rng),
                    kernel: label(rng),
                    variant: label(rng),
                })
                .collect(),
            metrics: names
                .iter()
                .filter_map(|name| {
                    if rng.below(5) == 0 {
                        return None;
                    }
                    let n = rng.below(7);
                    Some(MetricSamples {
                        scope: pick(rng, &["", "a", "b"]).into(),
                        section: label(rng),
                        direction_source: Default::default(),
                        name: name.clone(),
                        unit: label(rng),
                        better: match rng.below(3) {
                            0 => Better::Lower,
                            1 => Better::Higher,
                            _ => Better::Neutral,
                        },
                        samples: (0..n).map(|_| value(rng)).collect(),
                        printed: (rng.below(3) == 0).then(|| PrintedSummary {
                            stat: pick(rng, &["Amean", "Min", "Hmean", "BAmean-99", ""]).into(),
                            value: value(rng),
                            printed_delta_pct: (rng.below(2) == 0).then(|| value(rng)),
                            printed_convention: if rng.below(2) == 0 {
                                DeltaConvention::Gain
                            } else {
                                DeltaConvention::Change
                            },
                            relative_to: (rng.below(2) == 0).then(|| rng.below(10)),
                        }),
                        printed_spread_pct: (rng.below(3) == 0).then(|| value(rng).abs()),
                        mean: None,
                    })
                })
                .collect(),
            latency: (rng.below(3) == 0).then(|| LatencyColumn {
                per_thread: (0..rng.below(5))
                    .map(|t| ThreadLatency {
                        thread: t as u32 * 7,
                        min_us: value(rng),
                        avg_us: value(rng),
                        max_us: value(rng),
                        n_runs: rng.below(5) as u32,
                    })
                    .collect(),
                histogram: (0..rng.below(6))
                    .map(|_| (value(rng), rng.next_u64() % 1000))
                    .collect(),
                thread_histograms: (0..rng.below(3))
                    .map(|t| ThreadHistogram {
                        thread: t as u32,
                        buckets: (0..rng.below(4))
                            .map(|_| (value(rng), rng.next_u64() % 100))
                            .collect(),
                        overflows: rng.next_u64() % 3,
                        max_us: (rng.below(2) == 0).then(|| value(rng)),
                    })
                    .collect(),
                overflows: rng.next_u64() % 3,
                histogram_max_us: (rng.below(2) == 0).then(|| value(rng)),
                bucket_us: (rng.below(2) == 0).then(|| value(rng)),
                traces: (0..rng.below(3))
                    .map(|_| TraceSummary {
                        tracer: pick(rng, &["wakeup_rt", "irqsoff"]).into(),
                        latency_us: value(rng),
                        culprit: (rng.below(2) == 0).then(|| label(rng)),
                        culprit_path: vec![],
                        n_runs: rng.below(4) as u32,
                    })
                    .collect(),
            }),
        })
        .collect();
    ComparisonInput {
        title: label(rng).repeat(rng.below(4)),
        columns,
        baseline: rng.below(10),
        chain_previous: rng.below(2) == 0,
    }
}
