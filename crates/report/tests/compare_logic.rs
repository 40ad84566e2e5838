//! The verdict logic: means, signs, significance thresholds, "cannot assess",
//! printed deltas, noise floor, latency and the culprit diff.

mod common;

use reclaimlab_report::compare::*;
use reclaimlab_report::stats;

fn metric(name: &str, better: Better, samples: &[f64]) -> MetricSamples {
    MetricSamples {
        name: name.into(),
        unit: "u".into(),
        better,
        samples: samples.to_vec(),
        ..MetricSamples::default()
    }
}

fn two(a: MetricSamples, b: MetricSamples) -> Comparison {
    compare(&ComparisonInput {
        title: "t".into(),
        columns: vec![
            ColumnInput {
                label: "a".into(),
                metrics: vec![a],
                ..ColumnInput::default()
            },
            ColumnInput {
                label: "b".into(),
                metrics: vec![b],
                ..ColumnInput::default()
            },
        ],
        baseline: 0,
        chain_previous: false,
    })
}

#[test]
fn culprit_diff_sentence_for_seed_000() {
    let c = compare(&common::seed000_madvise());
    let lat = c.latency.expect("latency");
    assert_eq!(lat.culprit_diffs.len(), 1);
    assert_eq!(lat.culprit_diffs[0].kind, "wakeup_rt");
    assert_eq!(
        lat.culprit_diffs[0].sentence,
        "wakeup_rt trace: max 1969 us -> 879 us (-55%, better); culprit changed from \
         madvise_cold_or_pageout_pte_range to free_unref_page_list; n=1 each, not assessed"
    );
    assert_eq!(
        culprit_sentence(Some(100.0), Some(150.0), Some("f"), Some("f")),
        "max 100 us -> 150 us (+50%, worse); culprit unchanged: f"
    );
    assert_eq!(
        culprit_sentence(Some(0.0), Some(2.5), None, Some("g")),
        "max 0 us -> 2.5 us; culprit now g"
    );
    assert_eq!(culprit_sentence(None, None, None, None), "max ? -> ?");
}

#[test]
fn seed_003_per_thread_rows_and_honest_n() {
    let c = compare(&common::seed003_isolate());
    let lat = c.latency.expect("latency");
    assert_eq!(lat.threads.len(), 8);
    let maxes = |col: usize| -> Vec<f64> {
        lat.threads
            .iter()
            .map(|t| t.cells[col].as_ref().unwrap().max_us)
            .collect()
    };
    assert_eq!(stats::min(&maxes(0)), Some(52567.0));
    assert_eq!(stats::max(&maxes(0)), Some(67469.0));
    assert_eq!(stats::min(&maxes(1)), Some(1466.0));
    assert_eq!(stats::max(&maxes(1)), Some(4449.0));
    let cyc = &lat.worst[0];
    assert_eq!(cyc.kind, "cyclictest");
    assert_eq!(
        cyc.cells
            .iter()
            .map(|c| c.unwrap().value_us)
            .collect::<Vec<_>>(),
        vec![67469.0, 4449.0]
    );
    assert_eq!(
        lat.culprit_diffs[0].sentence,
        "cyclictest max: max 67469 us -> 4449 us (-93%, better); n=1 each, not assessed"
    );
}

#[test]
fn seed_004_chain_compares_each_table_link_by_link() {
    let c = compare(&common::seed004_chain());
    // Four tables (one per link) of ten rows each; no row mixes tables.
    assert_eq!(c.metrics.len(), 40);
    let sys1 = &c.metrics[0];
    assert_eq!(sys1.scope, "mail 1: usemem");
    assert_eq!(sys1.name, "System-1");
    assert_eq!(sys1.stat, "Amean");
    assert_eq!(sys1.noise_floor_pct, None);
    // Only vanilla and batch-v1 are in the first table.
    assert_eq!(
        sys1.cells.iter().map(|x| x.n).collect::<Vec<_>>(),
        [1, 1, 0, 0, 0]
    );
    for cell in &sys1.cells[..2] {
        assert!(cell.single_summary);
    }
    // batch-v1 against vanilla: the raw change computed from the values
    // (it agrees with the printed gain to the gain's rounding), the printed
    // gain kept beside it as printed.
    let b = sys1.cells[1].vs_baseline.as_ref().unwrap();
    assert!(!b.printed);
    assert!((b.pct.unwrap() - (192.98 - 260.53) / 260.53 * 100.0).abs() < 1e-9);
    assert_eq!(b.printed_pct, Some(25.93));
    assert_eq!(b.printed_convention, Some(DeltaConvention::Gain));
    assert_eq!(b.judgement, Judgement::Better);
    assert_eq!(b.significance, Significance::NotAssessed);
    assert_eq!(
        b.verdict,
        "-25.93% better; n=1 (printed summary), cannot assess"
    );
    // The third link (mail 3: ramdisknonrot-v1 -> waitqueue-v1): System-8
    // got worse by 191%, as the mail printed (-191.30% gain).
    let s8 = c
        .metrics
        .iter()
        .find(|m| m.scope == "mail 3: usemem" && m.name == "System-8")
        .unwrap();
    assert_eq!(
        s8.cells.iter().map(|x| x.n).collect::<Vec<_>>(),
        [0, 0, 1, 1, 0]
    );
    let vp = s8.cells[3].vs_previous.as_ref().unwrap();
    assert!((vp.pct.unwrap() - (299.81 - 102.92) / 102.92 * 100.0).abs() < 1e-9);
    assert_eq!(vp.printed_pct, Some(-191.30));
    assert_eq!(vp.judgement, Judgement::Worse);
    // No baseline in that table: nothing against vanilla is claimed.
    assert!(s8.cells[3].vs_baseline.as_ref().unwrap().pct.is_none());
    // The first column has no previous one, the baseline no baseline delta.
    assert!(sys1.cells[0].vs_previous.is_none());
    assert!(sys1.cells[0].vs_baseline.is_none());
}

#[test]
fn sign_is_the_raw_change_and_the_judgement_follows_the_direction() {
    assert_eq!(pct_change(200.0, 150.0), Some(-25.0));
    assert_eq!(pct_change(200.0, 250.0), Some(25.0));
    assert_eq!(pct_change(0.0, 1.0), None);
    assert_eq!(pct_change(f64::NAN, 1.0), None);
    assert_eq!(Judgement::of(Some(-25.0), Better::Lower), Judgement::Better);
    assert_eq!(Judgement::of(Some(25.0), Better::Lower), Judgement::Worse);
    assert_eq!(Judgement::of(Some(25.0), Better::Higher), Judgement::Better);
    assert_eq!(
        Judgement::of(Some(25.0), Better::Neutral),
        Judgement::NotJudged
    );
    assert_eq!(Judgement::of(Some(0.0), Better::Higher), Judgement::Same);
}

#[test]
fn mean_follows_the_direction_of_better() {
    let c = two(
        metric("ops", Better::Higher, &[100.0, 200.0, 400.0]),
        metric("ops", Better::Higher, &[100.0, 100.0, 100.0]),
    );
    let m = &c.metrics[0];
    assert_eq!(m.mean_kind, MeanKind::Harmonic);
    assert_eq!(m.stat, "Hmean");
    assert!(
        (m.cells[0].mean.unwrap() - stats::hmean(&[100.0, 200.0, 400.0]).unwrap()).abs() < 1e-12
    );
    let c = two(
        metric("t", Better::Lower, &[1.0, 2.0, 3.0]),
        metric("t", Better::Lower, &[1.0]),
    );
    assert_eq!(c.metrics[0].mean_kind, MeanKind::Arithmetic);
    assert_eq!(c.metrics[0].cells[0].mean, Some(2.0));
    // An explicit choice wins; a zero rate falls back to the arithmetic mean.
    let mut g = metric("r", Better::Higher, &[0.0, 2.0]);
    g.mean = None;
    let c = two(g, metric("r", Better::Higher, &[1.0]));
    assert_eq!(c.metrics[0].cells[0].mean, Some(1.0));
}

#[test]
fn significance_thresholds_and_tests() {
    let a = [292.89, 301.2, 285.4, 296.7, 290.1];
    let b = [219.95, 231.0, 210.3, 225.8, 214.4];
    let c = two(
        metric("t", Better::Lower, &a),
        metric("t", Better::Lower, &b),
    );
    let cell = &c.metrics[0].cells[1];
    let d = cell.vs_baseline.as_ref().unwrap();
    assert_eq!(d.significance, Significance::HighlySignificant);
    assert_eq!(d.welch_p, stats::welch_t_test(&b, &a).map(|t| t.p));
    assert_eq!(d.mann_whitney_p, stats::mann_whitney_u(&b, &a).map(|m| m.p));
    let ci = d.median_diff_ci.unwrap();
    assert!(ci.lo < ci.estimate && ci.estimate < ci.hi && ci.hi < 0.0);
    assert!(
        d.verdict
            .starts_with("-24.88% better; n=5/5, Welch p=6.6e-7"),
        "{}",
        d.verdict
    );
    assert!(
        d.verdict.contains("(significant, adjusted p<0.01)"),
        "{}",
        d.verdict
    );
    assert_eq!(c.metrics[0].noise_floor_pct, c.metrics[0].cells[0].cov_pct);
    assert!(c.metrics[0].noise_floor_pct.is_some());

    // Overlapping samples: not significant.
    let c = two(
        metric("t", Better::Lower, &[10.0, 12.0, 11.0, 13.0]),
        metric("t", Better::Lower, &[11.0, 12.5, 10.5, 12.0]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.significance, Significance::NotSignificant);

    // n=3 each, clearly apart: Welch significant, the exact rank test
    // cannot go below p=0.1 with 3 vs 3, and the verdict says so.
    let c = two(
        metric("t", Better::Lower, &[10.0, 10.1, 10.2]),
        metric("t", Better::Lower, &[5.0, 5.1, 5.2]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.significance, Significance::HighlySignificant);
    assert_eq!(d.mann_whitney_p, Some(0.1));
    assert!(
        d.verdict.ends_with("the rank test does not confirm it"),
        "{}",
        d.verdict
    );
}

#[test]
fn too_few_runs_cannot_be_assessed() {
    let c = two(
        metric("t", Better::Lower, &[10.0]),
        metric("t", Better::Lower, &[5.0]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.verdict, "-50.00% better; n=1, cannot assess");
    assert_eq!(d.significance, Significance::NotAssessed);
    assert_eq!(d.welch_p, None);
    let c = two(
        metric("t", Better::Lower, &[10.0, 11.0, 12.0, 13.0, 14.0]),
        metric("t", Better::Lower, &[5.0, 6.0]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.verdict, "-54.17% better; n=5/2, cannot assess");
}

#[test]
fn hostile_inputs_never_panic_and_say_why() {
    // Zero baseline.
    let c = two(
        metric("t", Better::Lower, &[0.0, 0.0, 0.0]),
        metric("t", Better::Lower, &[1.0, 2.0, 3.0]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.pct, None);
    assert!(
        d.verdict
            .starts_with("reference value is 0, % change undefined"),
        "{}",
        d.verdict
    );
    // NaN and infinities are dropped and counted.
    let c = two(
        metric("t", Better::Lower, &[f64::NAN, 1.0, f64::INFINITY]),
        metric("t", Better::Lower, &[]),
    );
    assert_eq!(c.metrics[0].cells[0].n, 1);
    assert_eq!(c.metrics[0].cells[0].dropped, 2);
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.verdict, "no data; no data, cannot assess");
    // Constant samples on both sides that differ: the change is exact and
    // said so; identical constants are no change.
    let c = two(
        metric("t", Better::Lower, &[2.0; 4]),
        metric("t", Better::Lower, &[1.0; 4]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.significance, Significance::NoVariance);
    assert_eq!(
        d.verdict,
        "-50.00% better; n=4/4, every run identical within each side: \
         the change is exact, no test applies"
    );
    assert_eq!(c.metrics[0].cells[0].stddev, Some(0.0));
    let c = two(
        metric("t", Better::Lower, &[0.1; 3]),
        metric("t", Better::Lower, &[0.1; 3]),
    );
    let d = c.metrics[0].cells[1].vs_baseline.as_ref().unwrap();
    assert_eq!(d.pct, Some(0.0));
    assert_eq!(c.metrics[0].cells[0].stddev, Some(0.0));
    assert_eq!(d.verdict, "0%; n=3/3, identical runs on both sides");
    // Bad baseline index, no columns, metric missing in a column.
    let mut input = common::repeated_runs();
    input.baseline = 9;
    input.columns[1].metrics.clear();
    let c = compare(&input);
    assert_eq!(c.baseline, 0);
    assert_eq!(c.notes.len(), 1);
    assert_eq!(c.metrics[0].cells[1].n, 0);
    let empty = compare(&ComparisonInput::default());
    assert!(empty.metrics.is_empty() && !empty.notes.is_empty());
}

#[test]
fn comparison_round_trips_through_json() {
    let input = common::seed004_chain();
    let json = serde_json::to_string(&input).unwrap();
    let back: ComparisonInput = serde_json::from_str(&json).unwrap();
    assert_eq!(back, input);
    let c = compare(&input);
    // serde_json's default float parser may be one ulp off, so compare the
    // re-serialized text rather than the floats.
    let text = serde_json::to_string(&c).unwrap();
    let out: Comparison = serde_json::from_str(&text).unwrap();
    assert_eq!(out.metrics.len(), c.metrics.len());
    assert_eq!(out.columns, c.columns);
    // The minimal API body: labels and runs only.
    let min: ComparisonInput = serde_json::from_str(
        r#"{"title":"","columns":[{"label":"a","runs":[{"id":1}]}],"baseline":0}"#,
    )
    .unwrap();
    assert_eq!(compare(&min).columns[0].runs[0].id, 1);
}

#[test]
fn per_thread_histograms_give_per_cpu_tails_and_a_merged_histogram() {
    let col = |label: &str, tail: f64| ColumnInput {
        label: label.into(),
        latency: Some(LatencyColumn {
            thread_histograms: vec![
                ThreadHistogram {
                    thread: 1,
                    buckets: vec![(2.0, 990), (3.0, 9), (tail, 1)],
                    ..ThreadHistogram::default()
                },
                ThreadHistogram {
                    thread: 0,
                    buckets: vec![(2.0, 500), (4.0, 500)],
                    ..ThreadHistogram::default()
                },
            ],
            ..LatencyColumn::default()
        }),
        ..ColumnInput::default()
    };
    let c = compare(&ComparisonInput {
        title: "t".into(),
        columns: vec![col("a", 1969.0), col("b", 879.0)],
        baseline: 0,
        chain_previous: false,
    });
    let lat = c.latency.unwrap();
    assert_eq!(
        lat.thread_tails
            .iter()
            .map(|r| r.thread)
            .collect::<Vec<_>>(),
        [0, 1]
    );
    // 1000 samples: numpy's p99.9 rank is ceil(1000 * 0.9990000000000001),
    // the 1000th sample.
    let t1 = lat.thread_tails[1].cells[0].unwrap();
    assert_eq!(
        (
            t1.p50.value_us,
            t1.p99.value_us,
            t1.p99_9.value_us,
            t1.max.value_us,
            t1.count
        ),
        (2.0, 2.0, 1969.0, 1969.0, 1000)
    );
    assert_eq!(
        lat.histograms[0],
        vec![(2.0, 1490), (3.0, 9), (4.0, 500), (1969.0, 1)]
    );
    assert_eq!(lat.tails[1].unwrap().max.value_us, 879.0);
    // No trace, no per-thread summary: the worst latency is the histogram max.
    assert_eq!(
        lat.worst[0]
            .cells
            .iter()
            .map(|c| c.unwrap().value_us)
            .collect::<Vec<_>>(),
        vec![1969.0, 879.0]
    );
    assert_eq!(
        lat.culprit_diffs[0].sentence,
        "cyclictest max: max 1969 us -> 879 us (-55%, better); n=1 each, not assessed"
    );
    let text = reclaimlab_report::text::render_text(
        &Comparison {
            latency: Some(lat),
            ..c
        },
        "u",
    );
    assert!(
        text.contains("Latency tails per thread, p99/p99.9/max us"),
        "{text}"
    );
    assert!(text.contains("T1  2/1969/1969  2/879/879"), "{text}");
}

/// A printed delta is the change only when the values printed beside it
/// are too rounded to give it: LKP's `0.70 -> 0.77` is +8.7% (the
/// table's), a hand-made `-57%` beside full values is the values' -57.14%.
#[test]
fn a_printed_delta_wins_where_it_is_more_precise_than_the_values() {
    let col = |label: &str, v: f64, d: Option<f64>| ColumnInput {
        label: label.into(),
        metrics: vec![MetricSamples {
            scope: "t".into(),
            name: "m".into(),
            better: Better::Higher,
            samples: vec![v],
            printed: d.map(|d| PrintedSummary {
                stat: String::new(),
                value: v,
                printed_delta_pct: Some(d),
                printed_convention: DeltaConvention::Change,
                relative_to: Some(0),
            }),
            ..MetricSamples::default()
        }],
        ..ColumnInput::default()
    };
    let pct = |a: (f64, Option<f64>), b: (f64, Option<f64>)| {
        let c = compare(&ComparisonInput {
            columns: vec![col("a", a.0, a.1), col("b", b.0, b.1)],
            ..ComparisonInput::default()
        });
        let d = c.metrics[0].cells[1].vs_baseline.clone().unwrap();
        (d.pct.unwrap(), d.printed)
    };
    // LKP: the rounded values give +10%, the table +8.7%.
    assert_eq!(pct((0.70, None), (0.77, Some(8.7))), (8.7, true));
    // LKP: 1.85 -> 1.73 gives -6.49%, anywhere in -7.0..-6.0% as rounded;
    // the table's -7.0% is the finer figure.
    assert_eq!(pct((1.85, None), (1.73, Some(-7.0))), (-7.0, true));
    assert_eq!(pct((5.11, None), (4.52, Some(-11.5))), (-11.5, true));
    // Integers with a whole-percent delta: the values are no finer.
    assert_eq!(pct((70.0, None), (30.0, Some(-57.0))), (-57.0, true));
    // mmtests prints four decimals and a two-decimal gain: the values'
    // change agrees with it and is the more precise.
    let (p, printed) = pct((7542.2844, None), (555.6236, Some(-92.63)));
    assert!((p - -92.633_1).abs() < 1e-3 && !printed, "{p}");
}
