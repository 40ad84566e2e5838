//! The plain-text rendering: exact snapshots of the seed comparisons, and
//! the 72-column promise over many generated inputs.

mod common;

use reclaimlab_report::compare::*;
use reclaimlab_report::stats::SplitMix64;
use reclaimlab_report::text::{WIDTH, layout, render_text};

const URL: &str = "https://reclaimlab.example/c/k3Jq9xW2aZ";

fn check_width(text: &str, lines: &[String]) {
    for l in lines {
        assert!(
            l.len() <= WIDTH,
            "layout line of {} columns:\n{l}\n---\n{text}",
            l.len()
        );
    }
    for l in text.lines() {
        assert!(l.is_ascii(), "non-ASCII line: {l}");
        assert!(l.len() <= WIDTH);
    }
}

/// The rendering of `input` against `tests/snapshots/{name}.snap`.
/// `INSTA_UPDATE=always` (or `cargo insta review`) rewrites it; review the
/// diff before keeping it.
fn snapshot(name: &str, input: &ComparisonInput) {
    let c = compare(input);
    let got = render_text(&c, URL);
    check_width(&got, &layout(&c, URL));
    insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, got);
    });
}

#[test]
fn seed_004_variant_chain() {
    snapshot("seed004_chain", &common::seed004_chain());
}

#[test]
fn seed_000_culprit_diff() {
    snapshot("seed000_culprit", &common::seed000_madvise());
}

#[test]
fn seed_003_per_thread() {
    snapshot("seed003_threads", &common::seed003_isolate());
}

#[test]
fn repeated_runs_with_marks() {
    snapshot("repeated_runs", &common::repeated_runs());
}

#[test]
fn six_columns_with_long_labels_and_histograms() {
    let mut input = common::repeated_runs();
    input.title = "A very long title that goes on and on about mm/vmscan: \
                   isolate_lru_folios() holdoff and what it does to RT latency on small boards"
        .into();
    input.chain_previous = true;
    let proto = input.columns[1].clone();
    input.columns.truncate(2);
    for i in 0..4 {
        let mut c = proto.clone();
        c.label =
            format!("6.12.0-rc5-mm-everything-2024-11-0{i}-with-a-very-long-variant-name-v{i}");
        c.simulated = i % 2 == 0;
        for m in &mut c.metrics {
            for s in &mut m.samples {
                *s *= 1.0 + 0.03 * f64::from(i);
            }
        }
        input.columns.push(c);
    }
    for (i, col) in input.columns.iter_mut().enumerate() {
        col.latency = Some(LatencyColumn {
            per_thread: (0..4)
                .map(|t| ThreadLatency {
                    thread: t,
                    min_us: 1.0,
                    avg_us: 3.5,
                    max_us: 1000.0 * (i + 1) as f64 + f64::from(t),
                    n_runs: 3,
                })
                .collect(),
            histogram: vec![
                (1.0, 1000),
                (2.0, 50_000),
                (3.0, 7000),
                (90.0 * (i + 1) as f64, 1),
            ],
            traces: vec![TraceSummary {
                tracer: "irqsoff".into(),
                latency_us: 500.0 * (i + 1) as f64,
                culprit: Some(
                    if i % 2 == 0 {
                        "shrink_inactive_list"
                    } else {
                        "isolate_lru_folios"
                    }
                    .into(),
                ),
                culprit_path: vec![],
                n_runs: 1,
            }],
            ..LatencyColumn::default()
        });
    }
    snapshot("six_columns", &input);
}

// ------------------------------------------------------------ property

#[test]
fn always_fits_in_72_columns() {
    let mut rng = SplitMix64::new(72);
    for i in 0..800 {
        let input = common::random_input(&mut rng);
        // The bootstrap does not change the layout; keep the test cheap.
        let opts = CompareOptions {
            bootstrap_resamples: 50,
            bootstrap_seed: 1,
        };
        let c = compare_with(&input, &opts);
        let url = "https://reclaimlab.example/c/".to_string() + &"x".repeat(rng.below(3) * 40);
        let text = render_text(&c, &url);
        check_width(&text, &layout(&c, &url));
        assert!(
            text.ends_with(&format!("{}\n", &url[url.len().saturating_sub(10)..])),
            "case {i}"
        );
    }
}

// ------------------------------------------------------------- reply text

#[test]
fn reply_text_states_the_verdict_first_within_forty_lines() {
    use reclaimlab_report::text::{REPLY_LINES, render_reply, reply_layout};
    for (name, input) in [
        ("seed000", common::seed000_madvise()),
        ("seed003", common::seed003_isolate()),
        ("seed004", common::seed004_chain()),
        ("repeated", common::repeated_runs()),
    ] {
        let c = compare(&input);
        let lines = reply_layout(
            &c,
            URL,
            "https://reclaimlab.example/c/k3Jq9xW2aZ.full.txt",
            REPLY_LINES,
        );
        let text = render_reply(&c, URL, "https://reclaimlab.example/c/k3Jq9xW2aZ.full.txt");
        assert!(
            lines.len() <= REPLY_LINES,
            "{name}: {} lines\n{text}",
            lines.len()
        );
        for l in &lines {
            assert!(l.len() <= WIDTH && l.is_ascii(), "{name}: {l}");
        }
        let verdict = text.find("Verdict:").expect("verdict");
        let first_table = text.find("Columns:").unwrap_or(text.len());
        assert!(verdict < first_table, "{name}: verdict first\n{text}");
        assert!(
            text.contains("Permalink: ") && text.contains(".full.txt"),
            "{text}"
        );
    }
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let c = compare(&common::seed003_isolate());
    let text = words(&render_reply(&c, URL, "u"));
    assert!(
        text.contains(
            "cyclictest max: max 67469 us -> 4449 us (-93%, better); n=1 each, not assessed"
        ),
        "{text}"
    );
    let c = compare(&common::seed004_chain());
    let text = words(&render_reply(&c, URL, "u"));
    // Link by link, each from its own table.
    assert!(
        text.contains("usemem (PATCH 3/4), ramdisknonrot-v1 -> waitqueue-v1: 10 rows"),
        "{text}"
    );
    assert!(text.contains("more table"), "{text}");
}

#[test]
fn long_row_names_share_a_prefix_instead_of_being_cut() {
    let mut input = common::repeated_runs();
    for col in &mut input.columns {
        for (i, m) in col.metrics.iter_mut().enumerate() {
            m.name = format!(
                "pwrite-single-rewrite-async-{}",
                ["System", "Elapsd"][i % 2]
            );
        }
    }
    let c = compare(&input);
    let text = render_text(&c, URL);
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("rows are pwrite-single-rewrite-async-..."),
        "{text}"
    );
    assert!(!text.contains('~'), "{text}");
}

/// Two LKP rows that differ only in the middle of long names (a real
/// robot report's perf-sched rows) never print under one label.
#[test]
fn rows_cut_alike_are_told_apart() {
    let names = [
        "perf-sched.wait_and_delay.avg.ms.schedule_hrtimeout_range_clock.poll_schedule_timeout.constprop.0.do_poll",
        "perf-sched.wait_and_delay.count.schedule_hrtimeout_range_clock.poll_schedule_timeout.constprop.0.do_poll",
        "perf-sched.wait_time.avg.ms.schedule_hrtimeout_range_clock.poll_schedule_timeout.constprop.0.do_poll",
        "vmstat.system.cs",
    ];
    let col = |label: &str, scale: f64| ColumnInput {
        label: label.into(),
        metrics: names
            .iter()
            .enumerate()
            .map(|(i, n)| MetricSamples {
                scope: "lkp".into(),
                name: (*n).into(),
                samples: vec![(i as f64 + 1.0) * scale],
                ..MetricSamples::default()
            })
            .collect(),
        ..ColumnInput::default()
    };
    let input = ComparisonInput {
        columns: vec![col("v6.18-rc3", 10.0), col("db86f55bf8", 12.0)],
        ..ComparisonInput::default()
    };
    let c = compare(&input);
    let text = render_text(&c, URL);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(' ') && l.contains(|c: char| c.is_ascii_digit()))
        .filter(|l| !l.contains("n=1"))
        .map(|l| l.trim_start().split("  ").next().unwrap_or(l))
        .collect();
    let mut distinct = rows.clone();
    distinct.sort();
    distinct.dedup();
    assert!(rows.len() >= names.len(), "{text}");
    assert_eq!(distinct.len(), rows.len(), "labels printed alike:\n{text}");
}

/// The reply keeps whole tables, and says how many of the full text's it
/// left out: the count is of tables, as the full text has them.
#[test]
fn the_reply_counts_the_tables_it_leaves_out() {
    let heading = |l: &&str| l.contains("; % = change vs");
    let mut left_out = Vec::new();
    for input in [common::seed004_chain(), common::seed003_isolate()] {
        let c = compare(&input);
        let full = render_text(&c, URL);
        let reply = reclaimlab_report::text::render_reply(&c, URL, "u");
        let in_full = full.lines().filter(heading).count();
        let in_reply = reply.lines().filter(heading).count();
        let said = reply
            .lines()
            .find_map(|l| {
                l.split(" more table")
                    .next()
                    .filter(|_| l.contains(" more table"))
            })
            .map_or(0, |n| n.parse::<usize>().unwrap());
        assert_eq!(in_full - in_reply, said, "{reply}");
        assert!(reply.lines().count() <= 40, "{reply}");
        left_out.push(said);
    }
    // The chain's four tables do not all fit; seed 003 has none.
    assert_eq!(left_out, [3, 0]);
}
