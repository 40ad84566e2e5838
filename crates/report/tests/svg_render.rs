//! Structural checks of the SVG charts: well-formed XML, a sized root,
//! one polyline per column, labels present and escaped, log ticks.

mod common;

use common::xml::{self, Element};
use reclaimlab_report::compare::{
    Better, ColumnInput, ComparisonInput, LatencyColumn, MetricSamples, compare,
};
use reclaimlab_report::svg::{self, Bar, Heatmap, HistogramSeries, Series};

fn parse_svg(s: &str) -> Element {
    let root = xml::parse(s).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{s}"));
    assert_eq!(root.name, "svg");
    assert_eq!(root.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
    for k in ["width", "height", "viewBox"] {
        assert!(root.attr(k).is_some(), "svg lacks {k}");
    }
    assert!(root.find_all("script").is_empty(), "no script");
    assert!(!s.contains("href"), "no external resources");
    // Every number in a coordinate attribute is finite.
    for e in root.all() {
        for (k, v) in &e.attrs {
            if [
                "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "width", "height",
            ]
            .contains(&k.as_str())
            {
                let f: f64 = v
                    .parse()
                    .unwrap_or_else(|_| panic!("{k}={v} is not a number"));
                assert!(f.is_finite(), "{k}={v}");
            }
            if k == "points" {
                for p in v.split_whitespace() {
                    for n in p.split(',') {
                        assert!(n.parse::<f64>().is_ok_and(f64::is_finite), "point {p}");
                    }
                }
            }
        }
    }
    root
}

fn texts(root: &Element, class: &str) -> Vec<String> {
    root.find_all("text")
        .into_iter()
        .filter(|t| t.has_class(class))
        .map(|t| t.all_text())
        .collect()
}

fn cyclictest_like(scale: u64, tail: f64) -> Vec<(f64, u64)> {
    vec![
        (1.0, 5000 * scale),
        (2.0, 120_000 * scale),
        (3.0, 600_000 * scale),
        (4.0, 25_000 * scale),
        (8.0, 90),
        (40.0, 9),
        (tail, 1),
    ]
}

#[test]
fn histogram_overlay_has_one_polyline_per_column_and_log_ticks() {
    let series = vec![
        HistogramSeries {
            label: "vanilla".into(),
            buckets: cyclictest_like(1, 1969.0),
        },
        HistogramSeries {
            label: "cond <v2> & more".into(),
            buckets: cyclictest_like(1, 879.0),
        },
        HistogramSeries {
            label: "empty".into(),
            buckets: vec![],
        },
    ];
    let s = svg::histogram_overlay("madvise latency", &series);
    let root = parse_svg(&s);
    let lines: Vec<&Element> = root
        .find_all("polyline")
        .into_iter()
        .filter(|p| p.has_class("series-line"))
        .collect();
    assert_eq!(lines.len(), 3, "one polyline per column");
    assert_eq!(lines[1].attr("data-label"), Some("cond <v2> & more"));
    assert!(s.contains("cond &lt;v2&gt; &amp; more"), "label escaped");
    let legend = texts(&root, "legend-label");
    assert_eq!(legend, ["vanilla", "cond <v2> & more", "empty"]);
    // Max count 600000: decades 1 .. 1000000.
    let y = texts(&root, "y-tick");
    assert_eq!(y, ["1", "10", "100", "1000", "10000", "100000", "1000000"]);
    // Log scale: equal pixel spacing between decades.
    let ys: Vec<f64> = root
        .find_all("text")
        .into_iter()
        .filter(|t| t.has_class("y-tick"))
        .map(|t| t.attr("y").unwrap().parse().unwrap())
        .collect();
    let gaps: Vec<f64> = ys.windows(2).map(|w| w[0] - w[1]).collect();
    assert!(gaps.iter().all(|g| (g - gaps[0]).abs() < 0.2), "{gaps:?}");
    assert!(!texts(&root, "x-tick").is_empty());
    assert!(texts(&root, "chart-title")[0].contains("madvise latency"));
}

#[test]
fn histogram_chart_from_a_comparison() {
    let col = |label: &str, tail: f64| ColumnInput {
        label: label.into(),
        latency: Some(LatencyColumn {
            histogram: cyclictest_like(2, tail),
            ..LatencyColumn::default()
        }),
        ..ColumnInput::default()
    };
    let c = compare(&ComparisonInput {
        title: "t".into(),
        columns: (0..6)
            .map(|i| col(&format!("col{i}"), 100.0 * f64::from(i + 1)))
            .collect(),
        baseline: 0,
        chain_previous: false,
    });
    let root = parse_svg(&svg::latency_histogram_chart(&c).expect("has histograms"));
    assert_eq!(
        root.find_all("polyline")
            .iter()
            .filter(|p| p.has_class("series-line"))
            .count(),
        6
    );
}

/// Thirty kernels of five-digit latencies: every value and every kernel
/// is printed whole, never cut to fit a cell.
#[test]
fn a_wide_heatmap_prints_whole_values_and_labels() {
    let kernels: Vec<String> = (0..30).map(|i| format!("6.13.0-rc{i}+n{i}")).collect();
    let h = Heatmap {
        title: "worst latency".into(),
        unit: "us".into(),
        better: Better::Lower,
        row_labels: vec!["rpi-5".into(), "x86-epyc-64".into()],
        col_labels: kernels.clone(),
        values: vec![
            (0..30).map(|i| Some(10_000.0 + i as f64)).collect(),
            (0..30).map(|i| (i % 2 == 0).then_some(274.0)).collect(),
        ],
    };
    let root = parse_svg(&svg::heatmap(&h));
    assert_eq!(texts(&root, "col-label"), kernels);
    let values = texts(&root, "cell-value");
    assert!(values.contains(&"10000".to_string()) && values.contains(&"10029".to_string()));
    assert!(values.contains(&"274".to_string()));
    assert!(values.iter().all(|v| !v.contains('~')), "{values:?}");
    // The cells hold their numbers: at 7 px a character, 5 digits.
    let width: f64 = root
        .find_all("rect")
        .into_iter()
        .find(|r| r.has_class("cell"))
        .and_then(|r| r.attr("width"))
        .and_then(|w| w.parse().ok())
        .unwrap();
    assert!(width >= 5.0 * 7.0, "{width}");
}

#[test]
fn heatmap_marks_missing_cells_and_has_a_legend() {
    let h = Heatmap {
        title: "worst-case latency, boards x kernels".into(),
        unit: "us".into(),
        better: Better::Lower,
        row_labels: vec![
            "LicheePi 4A".into(),
            "i7-4790".into(),
            "rpi5 \"lab\"".into(),
        ],
        col_labels: vec!["6.5.0-rt6".into(), "6.12.0-rc5".into()],
        values: vec![
            vec![Some(1969.0), Some(879.0)],
            vec![None, Some(77766.0)],
            vec![Some(f64::NAN)],
        ],
    };
    let root = parse_svg(&svg::heatmap(&h));
    let cells: Vec<&Element> = root
        .find_all("rect")
        .into_iter()
        .filter(|r| r.has_class("cell"))
        .collect();
    assert_eq!(cells.len(), 6, "rows x cols cells, missing ones included");
    assert_eq!(cells.iter().filter(|r| r.has_class("nodata")).count(), 3);
    assert_eq!(
        texts(&root, "row-label"),
        ["LicheePi 4A", "i7-4790", "rpi5 \"lab\""]
    );
    assert_eq!(texts(&root, "col-label"), ["6.5.0-rt6", "6.12.0-rc5"]);
    let values = texts(&root, "cell-value");
    assert!(values.contains(&"1969".to_string()));
    assert_eq!(values.iter().filter(|v| *v == "n/a").count(), 3);
    let legend = texts(&root, "legend-label");
    assert!(legend.contains(&"no data".to_string()));
    assert!(legend.contains(&"879".to_string()) && legend.contains(&"77766".to_string()));
    // The worst value is red-ish, the best green-ish.
    let fill = |v: &str| {
        cells
            .iter()
            .zip(&values)
            .find(|(_, t)| *t == v)
            .and_then(|(r, _)| r.attr("fill"))
            .unwrap()
            .to_string()
    };
    assert_eq!(fill("77766"), "#d73027");
    assert_eq!(fill("879"), "#1a9850");
}

#[test]
fn bar_chart_of_a_metric_across_columns() {
    let input = common::repeated_runs();
    let c = compare(&input);
    let root = parse_svg(&svg::metric_bar_chart(&c, 0).expect("metric 0 exists"));
    let bars: Vec<&Element> = root
        .find_all("rect")
        .into_iter()
        .filter(|r| r.has_class("bar"))
        .collect();
    assert_eq!(bars.len(), 3);
    assert_eq!(
        texts(&root, "bar-label"),
        ["vanilla", "batch-v1", "one-run"]
    );
    assert!(texts(&root, "bar-value").contains(&"293.26".to_string()));
    assert!(svg::metric_bar_chart(&c, 99).is_none());

    let root = parse_svg(&svg::bar_chart(
        "with gaps",
        "s",
        &[
            Bar {
                label: "a".into(),
                value: Some(-3.0),
                error: Some(f64::NAN),
            },
            Bar {
                label: "b".into(),
                value: None,
                error: None,
            },
            Bar {
                label: "c".into(),
                value: Some(f64::INFINITY),
                error: None,
            },
        ],
    ));
    assert_eq!(
        root.find_all("rect")
            .into_iter()
            .filter(|r| r.has_class("bar"))
            .count(),
        1
    );
}

#[test]
fn line_plot_for_a_sweep() {
    let series = vec![
        Series {
            label: "measured".into(),
            points: vec![
                (32.0, 1200.0),
                (8.0, 900.0),
                (128.0, 1500.0),
                (f64::NAN, 1.0),
            ],
        },
        Series {
            label: "simulated".into(),
            points: vec![(8.0, 950.0), (32.0, 1250.0), (128.0, 1420.0)],
        },
    ];
    let root = parse_svg(&svg::line_plot(
        "SWAP_CLUSTER_MAX sweep",
        "batch",
        "MB/s",
        &series,
    ));
    let lines = root.find_all("polyline");
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0].attr("points").unwrap().split_whitespace().count(),
        3
    );
    assert_eq!(root.find_all("circle").len(), 6);
    assert_eq!(texts(&root, "legend-label"), ["measured", "simulated"]);
    let xt = texts(&root, "x-tick");
    assert!(
        xt.contains(&"0".to_string()) && xt.contains(&"140".to_string()),
        "{xt:?}"
    );
    assert!(texts(&root, "axis-title").contains(&"batch".to_string()));
}

#[test]
fn degenerate_inputs_still_give_valid_svg() {
    parse_svg(&svg::histogram_overlay("", &[]));
    parse_svg(&svg::heatmap(&Heatmap::default()));
    parse_svg(&svg::bar_chart("\u{1}\u{0}<&>", "", &[]));
    parse_svg(&svg::line_plot(
        "x",
        "",
        "",
        &[Series {
            label: "only".into(),
            points: vec![(1.0, 1.0)],
        }],
    ));
    parse_svg(&svg::histogram_overlay(
        "one",
        &[HistogramSeries {
            label: "z".into(),
            buckets: vec![(f64::NAN, 3), (5.0, 0), (5.0, u64::MAX)],
        }],
    ));
    let c = compare(&ComparisonInput {
        title: String::new(),
        columns: vec![ColumnInput {
            label: "x".into(),
            metrics: vec![MetricSamples {
                name: "m".into(),
                samples: vec![f64::NAN],
                ..MetricSamples::default()
            }],
            ..ColumnInput::default()
        }],
        baseline: 7,
        chain_previous: true,
    });
    parse_svg(&svg::metric_bar_chart(&c, 0).unwrap());
    assert!(svg::latency_histogram_chart(&c).is_none());
}

#[test]
fn charts_of_random_comparisons_are_valid_svg() {
    let mut rng = reclaimlab_report::stats::SplitMix64::new(4);
    for _ in 0..300 {
        let c = reclaimlab_report::compare::compare_with(
            &common::random_input(&mut rng),
            &reclaimlab_report::compare::CompareOptions {
                bootstrap_resamples: 50,
                bootstrap_seed: 1,
            },
        );
        for i in 0..c.metrics.len() {
            let root = parse_svg(&svg::metric_bar_chart(&c, i).unwrap());
            assert_eq!(
                root.find_all("text")
                    .iter()
                    .filter(|t| t.has_class("bar-label"))
                    .count(),
                c.columns.len()
            );
        }
        if let Some(s) = svg::latency_histogram_chart(&c) {
            let root = parse_svg(&s);
            assert_eq!(
                root.find_all("polyline")
                    .iter()
                    .filter(|p| p.has_class("series-line"))
                    .count(),
                c.columns.len()
            );
        }
        let h = Heatmap {
            title: c.title.clone(),
            unit: "us".into(),
            better: Better::Lower,
            row_labels: c.columns.iter().map(|x| x.label.clone()).collect(),
            col_labels: c.metrics.iter().map(|m| m.name.clone()).collect(),
            values: c
                .columns
                .iter()
                .enumerate()
                .map(|(j, _)| c.metrics.iter().map(|m| m.cells[j].mean).collect())
                .collect(),
        };
        parse_svg(&svg::heatmap(&h));
        let series: Vec<Series> = c
            .metrics
            .iter()
            .map(|m| Series {
                label: m.name.clone(),
                points: m
                    .cells
                    .iter()
                    .enumerate()
                    .filter_map(|(j, x)| Some((j as f64, x.mean?)))
                    .collect(),
            })
            .collect();
        parse_svg(&svg::line_plot(&c.title, "column", "mean", &series));
    }
}
