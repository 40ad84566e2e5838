//! Family-wise error control, checked by simulation through the public
//! comparison API: A/A comparisons of identical distributions must raise a
//! significance mark anywhere in at most 5 % of comparisons, however many
//! metrics they hold, while a real 10 % shift at n = 5 is still found.

use reclaimlab_report::compare::*;
use reclaimlab_report::stats::SplitMix64;

const COMPARISONS: usize = 200;
const METRICS: usize = 12;
const N: usize = 5;
/// Run-to-run noise of the simulated metrics: a coefficient of variation of
/// 3 %, typical of repeated mmtests runs on a quiet machine.
const MEAN: f64 = 100.0;
const SD: f64 = 3.0;

/// A standard normal draw (Box-Muller on two uniforms).
fn normal(rng: &mut SplitMix64) -> f64 {
    let u = |rng: &mut SplitMix64| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (a, b) = (u(rng), u(rng));
    (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
}

fn column(rng: &mut SplitMix64, label: &str, shift: &[f64]) -> ColumnInput {
    ColumnInput {
        label: label.into(),
        metrics: (0..METRICS)
            .map(|m| MetricSamples {
                scope: "sim".into(),
                name: format!("metric-{m}"),
                unit: "s".into(),
                better: Better::Lower,
                samples: (0..N)
                    .map(|_| MEAN * (1.0 + shift[m]) + SD * normal(rng))
                    .collect(),
                ..MetricSamples::default()
            })
            .collect(),
        ..ColumnInput::default()
    }
}

fn marked(c: &Comparison, metric: Option<usize>) -> bool {
    c.metrics
        .iter()
        .enumerate()
        .filter(|(i, _)| metric.is_none_or(|m| m == *i))
        .flat_map(|(_, m)| &m.cells)
        .filter_map(|cell| cell.vs_baseline.as_ref())
        .any(|d| {
            matches!(
                d.significance,
                Significance::Significant | Significance::HighlySignificant
            )
        })
}

fn raw_marked(c: &Comparison) -> bool {
    c.metrics
        .iter()
        .flat_map(|m| &m.cells)
        .filter_map(|cell| cell.vs_baseline.as_ref())
        .any(|d| d.welch_p.is_some_and(|p| p < P_SIGNIFICANT))
}

/// (comparisons with any mark, with a mark on metric 0, with any raw p < 0.05)
fn run(seed: u64, shift: &[f64]) -> (usize, usize, usize) {
    let mut rng = SplitMix64::new(seed);
    let no_shift = vec![0.0; METRICS];
    let mut any = 0;
    let mut first = 0;
    let mut raw = 0;
    for _ in 0..COMPARISONS {
        let input = ComparisonInput {
            title: "A/A".into(),
            columns: vec![
                column(&mut rng, "a", &no_shift),
                column(&mut rng, "b", shift),
            ],
            baseline: 0,
            chain_previous: false,
        };
        let c = compare_with(
            &input,
            &CompareOptions {
                bootstrap_resamples: 0,
                ..CompareOptions::default()
            },
        );
        assert_eq!(c.family.tests, METRICS);
        assert_eq!(c.family.method, "holm-bonferroni");
        if marked(&c, None) {
            any += 1;
        }
        if marked(&c, Some(0)) {
            first += 1;
        }
        if raw_marked(&c) {
            raw += 1;
        }
    }
    (any, first, raw)
}

#[test]
fn a_over_a_keeps_the_family_wise_error_at_five_percent() {
    let (any, _, raw) = run(0x00A1_A1A1, &[0.0; METRICS]);
    let rate = any as f64 / COMPARISONS as f64;
    let raw_rate = raw as f64 / COMPARISONS as f64;
    println!(
        "A/A: {any} of {COMPARISONS} comparisons with any mark ({rate:.3}); \
         unadjusted p<0.05 somewhere in {raw} ({raw_rate:.3})"
    );
    assert!(rate <= 0.05, "family-wise false alarms {rate}");
    // Without the adjustment a third or more of these comparisons would
    // claim a change that is not there.
    assert!(raw_rate > 0.25, "unadjusted rate {raw_rate}");
}

#[test]
fn a_real_ten_percent_shift_at_n5_is_detected() {
    let mut shift = vec![0.0; METRICS];
    shift[0] = 0.10;
    let (any, first, _) = run(0x5EED_0010, &shift);
    let power = first as f64 / COMPARISONS as f64;
    println!("shift: detected in {first} of {COMPARISONS} ({power:.3}), any mark in {any}");
    assert!(power >= 0.60, "power {power}");
}

#[test]
fn raw_and_adjusted_p_values_are_both_kept() {
    let mut rng = SplitMix64::new(7);
    let c = compare(&ComparisonInput {
        title: "t".into(),
        columns: vec![
            column(&mut rng, "a", &[0.0; METRICS]),
            column(&mut rng, "b", &[0.1; METRICS]),
        ],
        baseline: 0,
        chain_previous: false,
    });
    let json = serde_json::to_value(&c).unwrap();
    let d = &json["metrics"][0]["cells"][1]["vs_baseline"];
    let raw = d["welch_p"].as_f64().unwrap();
    let adj = d["adjusted_p"].as_f64().unwrap();
    assert!(adj >= raw && adj <= (raw * METRICS as f64).min(1.0) + 1e-12);
    assert!(
        c.family
            .sentence
            .contains("Holm-Bonferroni over the 12 tests")
    );
    // Holm itself on a textbook case.
    let a = holm_adjust(&[0.01, 0.04, 0.03, 0.005]);
    let want = [0.03, 0.06, 0.06, 0.02];
    for (x, y) in a.iter().zip(want) {
        assert!((x - y).abs() < 1e-12, "{a:?}");
    }
}
