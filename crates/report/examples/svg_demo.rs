//! Writes sample charts to the directory given as the first argument, for
//! looking at them in a browser.

use reclaimlab_report::compare::Better;
use reclaimlab_report::svg::{self, Bar, Heatmap, HistogramSeries, Series};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let hist = |tail: f64, scale: u64| {
        let mut v: Vec<(f64, u64)> = (1..60)
            .map(|i| {
                (
                    f64::from(i),
                    (1_000_000 / (u64::from(i as u32).pow(3))) * scale + 1,
                )
            })
            .collect();
        v.push((tail, 1));
        v
    };
    let h = svg::histogram_overlay(
        "madvise: wakeup latency",
        &[
            HistogramSeries {
                label: "vanilla".into(),
                buckets: hist(190.0, 1),
            },
            HistogramSeries {
                label: "cond_resched".into(),
                buckets: hist(88.0, 2),
            },
        ],
    );
    std::fs::write(format!("{dir}/hist.svg"), h).unwrap();
    let hm = svg::heatmap(&Heatmap {
        title: "worst-case latency (us), boards x kernels".into(),
        unit: "us".into(),
        better: Better::Lower,
        row_labels: vec!["LicheePi 4A".into(), "i7-4790".into(), "rpi5".into()],
        col_labels: vec!["6.5.0-rt6".into(), "6.12.0-rc5".into(), "6.13".into()],
        values: vec![
            vec![Some(1969.0), Some(879.0), None],
            vec![None, Some(77766.0), Some(4449.0)],
            vec![Some(35.0), Some(120.0), Some(90.0)],
        ],
    });
    std::fs::write(format!("{dir}/heatmap.svg"), hm).unwrap();
    let b = svg::bar_chart(
        "Amean System-1",
        "seconds",
        &[
            Bar {
                label: "vanilla".into(),
                value: Some(260.53),
                error: Some(8.0),
            },
            Bar {
                label: "batch-v1".into(),
                value: Some(192.98),
                error: Some(5.0),
            },
            Bar {
                label: "ramdisknonrot-v1".into(),
                value: Some(181.0),
                error: None,
            },
            Bar {
                label: "waitqueue-v1".into(),
                value: None,
                error: None,
            },
        ],
    );
    std::fs::write(format!("{dir}/bars.svg"), b).unwrap();
    let l = svg::line_plot(
        "SWAP_CLUSTER_MAX sweep",
        "batch",
        "MB/s",
        &[
            Series {
                label: "measured".into(),
                points: vec![(8.0, 900.0), (32.0, 1200.0), (128.0, 1500.0)],
            },
            Series {
                label: "simulated".into(),
                points: vec![(8.0, 950.0), (32.0, 1250.0), (128.0, 1420.0)],
            },
        ],
    );
    std::fs::write(format!("{dir}/line.svg"), l).unwrap();
}
