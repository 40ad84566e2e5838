//! The measurement model: how stored runs of a column become the
//! comparison's input (pooled samples, printed summaries with the column
//! they were printed against, stored directions before the direction
//! table, latency aggregated per thread).

use reclaimlab_report::compare::{Better, DeltaConvention, ThreadLatency, TraceSummary};
use reclaimlab_report::direction::DirectionSource;
use reclaimlab_report::model::*;

fn ident(scope: &str, name: &str, stat: Option<&str>) -> MetricIdent {
    MetricIdent {
        name: name.into(),
        stat: stat.map(str::to_string),
        unit: Some("sec".into()),
        scope: scope.into(),
        section: Some(format!("{scope} section")),
        ..MetricIdent::default()
    }
}

fn sample(ident: u32, value: f64, printed_delta_pct: Option<f64>) -> MetricSample {
    MetricSample {
        ident,
        value,
        printed_delta_pct,
        spread_pct: None,
    }
}

fn run(id: i64, upload: Option<i64>, column_index: i32, metrics: Vec<MetricSample>) -> RunData {
    RunData {
        id,
        upload_id: upload,
        block_index: 0,
        column_index,
        board: "i7-4790".into(),
        kernel: "6.12.0".into(),
        variant: format!("v{id}"),
        kind: "measured".into(),
        title: None,
        tool: "time".into(),
        block_kind: "time".into(),
        latency: RunLatency::default(),
        metrics,
    }
}

#[test]
fn run_to_run_values_of_one_identity_pool_into_one_metric() {
    let col = ColumnRuns {
        runs: vec![
            run(
                1,
                Some(10),
                0,
                vec![sample(0, 12.5, None), sample(1, 3.0, None)],
            ),
            run(2, Some(11), 0, vec![sample(0, 13.5, None)]),
        ],
        metric_idents: vec![ident("time", "elapsed", None), ident("time", "user", None)],
        ..ColumnRuns::default()
    };
    let input = comparison_input("t", &[("a".into(), &col)], 0, false);
    let c = &input.columns[0];
    assert_eq!(c.label, "a");
    assert_eq!(c.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2]);
    assert!(!c.simulated);
    assert_eq!(c.metrics.len(), 2);
    assert_eq!(c.metrics[0].name, "elapsed");
    assert_eq!(c.metrics[0].samples, [12.5, 13.5]);
    assert_eq!(c.metrics[0].section, "time section");
    assert_eq!(c.metrics[1].samples, [3.0]);
    assert!(c.latency.is_none());
}

#[test]
fn a_stored_direction_wins_over_the_direction_table() {
    let mut printed = ident("t", "pgscan_direct", None);
    printed.direction = Some(Better::Lower);
    printed.direction_source = Some("printed".into());
    let mut uploaded = ident("t", "pgsteal_kswapd", None);
    uploaded.direction = Some(Better::Higher);
    let table = ident("t", "pgscan_kswapd", None);
    let col = ColumnRuns {
        runs: vec![run(
            1,
            None,
            0,
            vec![
                sample(0, 1.0, None),
                sample(1, 2.0, None),
                sample(2, 3.0, None),
            ],
        )],
        metric_idents: vec![printed, uploaded, table],
        ..ColumnRuns::default()
    };
    let input = comparison_input("t", &[("a".into(), &col)], 0, false);
    let got: Vec<_> = input.columns[0]
        .metrics
        .iter()
        .map(|m| (m.better, m.direction_source))
        .collect();
    assert_eq!(
        got,
        [
            (Better::Lower, DirectionSource::Printed),
            (Better::Higher, DirectionSource::Upload),
            (Better::Neutral, DirectionSource::Rule),
        ]
    );
}

#[test]
fn a_printed_summary_names_the_column_its_table_started_in() {
    let mut gain = ident("upload 10 block 0", "elapsed", Some("Amean"));
    gain.delta_convention = Some(DeltaConvention::Gain);
    let base = ColumnRuns {
        runs: vec![run(1, Some(10), 0, vec![sample(0, 100.0, Some(0.0))])],
        metric_idents: vec![gain.clone()],
        ..ColumnRuns::default()
    };
    let other = ColumnRuns {
        runs: vec![run(2, Some(10), 1, vec![sample(0, 90.0, Some(10.0))])],
        metric_idents: vec![gain],
        ..ColumnRuns::default()
    };
    // The table's first column is shown second: the printed delta of the
    // other column is relative to it, not to the comparison's baseline.
    let input = comparison_input(
        "t",
        &[("other".into(), &other), ("base".into(), &base)],
        0,
        false,
    );
    let p = input.columns[0].metrics[0].printed.as_ref().unwrap();
    assert_eq!(p.stat, "Amean");
    assert_eq!(p.value, 90.0);
    assert_eq!(p.printed_delta_pct, Some(10.0));
    assert_eq!(p.printed_convention, DeltaConvention::Gain);
    assert_eq!(p.relative_to, Some(1));
    // The first column's own printed delta is not a delta.
    let p = input.columns[1].metrics[0].printed.as_ref().unwrap();
    assert_eq!((p.printed_delta_pct, p.relative_to), (None, None));
    assert!(input.columns[1].metrics[0].samples.is_empty());
}

#[test]
fn latency_is_aggregated_per_thread_and_tracer() {
    let thread = |thread, min_us, avg_us, max_us| ThreadLatency {
        thread,
        min_us,
        avg_us,
        max_us,
        n_runs: 1,
    };
    let mut a = run(1, None, 0, Vec::new());
    a.block_kind = "cyclictest".into();
    a.latency.threads = vec![thread(0, 2.0, 5.0, 40.0), thread(1, 3.0, 6.0, 30.0)];
    a.latency.hist_footers = vec![HistFooter {
        thread: 0,
        bucket_us: 1.0,
        overflows: 2,
        max_us: Some(250.0),
    }];
    let mut b = run(2, None, 0, Vec::new());
    b.block_kind = "cyclictest".into();
    b.latency.threads = vec![thread(0, 1.0, 7.0, 35.0)];
    let mut t = run(3, None, 0, Vec::new());
    t.block_kind = "ftrace_latency".into();
    t.latency.trace = Some(TraceSummary {
        tracer: "wakeup_rt".into(),
        latency_us: 1969.0,
        culprit: Some("free_unref_page_list".into()),
        culprit_path: vec!["free_unref_page_list".into()],
        n_runs: 1,
    });
    let col = ColumnRuns {
        runs: vec![a, b, t],
        cyclictest_buckets: vec![
            BucketSum {
                thread: 0,
                lower_us: 5.0,
                count: 7,
            },
            BucketSum {
                thread: 1,
                lower_us: 5.0,
                count: 3,
            },
        ],
        ..ColumnRuns::default()
    };
    let input = comparison_input("t", &[("a".into(), &col)], 0, false);
    let l = input.columns[0].latency.as_ref().unwrap();
    assert_eq!(
        l.per_thread,
        [
            ThreadLatency {
                thread: 0,
                min_us: 1.0,
                avg_us: 6.0,
                max_us: 40.0,
                n_runs: 2
            },
            thread(1, 3.0, 6.0, 30.0),
        ]
    );
    assert_eq!(l.histogram, [(5.0, 10)]);
    assert_eq!(l.thread_histograms.len(), 2);
    assert_eq!(l.thread_histograms[0].overflows, 2);
    assert_eq!(l.thread_histograms[0].max_us, Some(250.0));
    assert_eq!(l.bucket_us, Some(1.0));
    assert_eq!(l.traces.len(), 1);
    assert_eq!(l.traces[0].latency_us, 1969.0);
}

#[test]
fn stored_words_read_back_and_unknown_ones_are_not_set() {
    for b in [Better::Higher, Better::Lower, Better::Neutral] {
        assert_eq!(Better::from_word(b.word()), Some(b));
    }
    for c in [DeltaConvention::Change, DeltaConvention::Gain] {
        assert_eq!(DeltaConvention::from_word(c.word()), Some(c));
    }
    assert_eq!(Better::from_word("faster"), None);
    assert_eq!(DeltaConvention::from_word("ratio"), None);
}
