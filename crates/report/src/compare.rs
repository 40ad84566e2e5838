//! The model of a comparison (columns of runs, metrics, latency) and the
//! verdict logic: which mean, % change with the direction of "better",
//! significance, noise floor, per-thread latency and the culprit diff.
//!
//! Owns the meaning of the numbers; renderers (`text`, `svg`, the web pages)
//! only lay them out. Pure and total: any input, including NaN, empty
//! samples, zero baselines or an out-of-range baseline index, yields a
//! `Comparison` whose verdict strings say what could not be computed.

use serde::{Deserialize, Serialize};

use crate::stats::{self, Interval, Tails};

/// p-value below which a change gets one mark (`*`).
pub const P_SIGNIFICANT: f64 = 0.05;
/// p-value below which a change gets two marks (`**`).
pub const P_HIGHLY_SIGNIFICANT: f64 = 0.01;
/// Fewest samples on each side before any test is run.
pub const MIN_SAMPLES_FOR_TESTS: usize = 3;
/// Bootstrap rounds for the difference-of-medians interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// Confidence of the bootstrap interval.
pub const BOOTSTRAP_CONFIDENCE: f64 = 0.95;
/// Fixed seed: the same input always gives the same interval, which keeps
/// frozen permalinks byte-identical when re-rendered.
pub const BOOTSTRAP_SEED: u64 = 0x5EED_2EC1_A1AB;

// ------------------------------------------------------------------ input

/// What to compare: columns of runs and the baseline among them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ComparisonInput {
    pub title: String,
    pub columns: Vec<ColumnInput>,
    /// Index into `columns` of the column every other is compared to.
    #[serde(default)]
    pub baseline: usize,
    /// Also compare each column with the one before it (a variant chain).
    #[serde(default)]
    pub chain_previous: bool,
}

/// One column: a set of runs (one variant on one kernel and board, or any
/// filter) with their samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ColumnInput {
    pub label: String,
    /// Predicted by the simulator rather than measured.
    #[serde(default)]
    pub simulated: bool,
    #[serde(default)]
    pub runs: Vec<RunRef>,
    #[serde(default)]
    pub metrics: Vec<MetricSamples>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyColumn>,
}

/// A run that contributed to a column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRef {
    pub id: i64,
    #[serde(default)]
    pub board: String,
    #[serde(default)]
    pub kernel: String,
    #[serde(default)]
    pub variant: String,
}

/// Which direction is an improvement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Times, latencies, CPU usage.
    #[default]
    Lower,
    /// Throughput, rates.
    Higher,
}

/// Which mean summarises a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeanKind {
    Arithmetic,
    Harmonic,
}

impl MeanKind {
    /// The mmtests row label.
    pub fn label(self) -> &'static str {
        match self {
            MeanKind::Arithmetic => "Amean",
            MeanKind::Harmonic => "Hmean",
        }
    }
}

/// Samples of one metric in one column: one value per run (run-to-run), or
/// only a summary printed in a mail.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricSamples {
    pub name: String,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub better: Better,
    #[serde(default)]
    pub samples: Vec<f64>,
    /// A value taken from a printed table when no samples exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<PrintedSummary>,
    /// Overrides the mean chosen from `better` (see [`mean_kind_for`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<MeanKind>,
}

/// A summary value copied from a printed table (mmtests compare-kernels).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrintedSummary {
    /// The row's statistic as printed: "Amean", "Hmean", "Min", ...
    pub stat: String,
    pub value: f64,
    /// The printed `( x.xx%)`, positive = better.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_delta_pct: Option<f64>,
    /// Column index the printed delta was relative to (the first column of
    /// the printed table). `None` means the comparison's baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<usize>,
}

/// Latency results of one column (cyclictest threads, histogram, trace).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyColumn {
    #[serde(default)]
    pub per_thread: Vec<ThreadLatency>,
    /// `(bucket_lower_us, count)`, all threads merged. When empty, the sum
    /// of `thread_histograms` is used.
    #[serde(default)]
    pub histogram: Vec<(f64, u64)>,
    /// Per-thread (per-CPU) histograms, for per-CPU tails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_histograms: Vec<ThreadHistogram>,
    /// The function that held the CPU at the worst traced latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub culprit: Option<String>,
    /// The culprit and its callers, innermost first.
    #[serde(default)]
    pub culprit_path: Vec<String>,
    /// Latency reported by the ftrace latency tracer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_latency_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracer: Option<String>,
}

/// One cyclictest thread (or CPU), aggregated over `n_runs` runs: min of
/// mins, mean of averages, max of maxima.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadLatency {
    pub thread: u32,
    pub min_us: f64,
    pub avg_us: f64,
    pub max_us: f64,
    #[serde(default = "one")]
    pub n_runs: u32,
}

/// The histogram of one cyclictest thread (or one CPU).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadHistogram {
    pub thread: u32,
    /// `(bucket_lower_us, count)`.
    pub buckets: Vec<(f64, u64)>,
}

fn one() -> u32 {
    1
}

// ----------------------------------------------------------------- output

/// The computed comparison, ready to render.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub title: String,
    pub columns: Vec<ColumnSummary>,
    /// Baseline index, valid for `columns` whenever `columns` is non-empty.
    pub baseline: usize,
    pub chain_previous: bool,
    pub metrics: Vec<MetricComparison>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyComparison>,
    /// Problems with the input as a whole (bad baseline index, ...).
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnSummary {
    pub label: String,
    pub simulated: bool,
    pub runs: Vec<RunRef>,
}

/// One metric across all columns. Metrics are matched across columns by
/// `(name, printed stat)`, in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricComparison {
    pub name: String,
    pub unit: String,
    pub better: Better,
    pub mean_kind: MeanKind,
    /// Row label: the mean's label, or the printed statistic for metrics that
    /// only exist as printed summaries ("Min", "Amean", ...).
    pub stat: String,
    /// One cell per column, in column order.
    pub cells: Vec<MetricCell>,
    /// Coefficient of variation (%) of the baseline's repeated runs: changes
    /// smaller than this are within run-to-run noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_floor_pct: Option<f64>,
}

/// One metric in one column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricCell {
    /// Number of finite samples (1 for a printed summary, 0 when missing).
    pub n: usize,
    /// The value is a single summary copied from a printed table.
    pub single_summary: bool,
    pub mean: Option<f64>,
    pub stddev: Option<f64>,
    pub cov_pct: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub median: Option<f64>,
    /// Non-finite samples that were dropped.
    #[serde(default)]
    pub dropped: usize,
    /// Against the baseline column; `None` for the baseline itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_baseline: Option<Delta>,
    /// Against the previous column, when `chain_previous` and this is not the
    /// first column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_previous: Option<Delta>,
}

/// How sure we are that a change is real.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Significance {
    /// Too few samples (or no data): no test was run.
    NotAssessed,
    /// Welch's p ≥ 0.05.
    NotSignificant,
    /// Welch's p < 0.05.
    Significant,
    /// Welch's p < 0.01.
    HighlySignificant,
}

impl Significance {
    /// `*` / `**` as printed next to a value; empty otherwise.
    pub fn mark(self) -> &'static str {
        match self {
            Significance::Significant => "*",
            Significance::HighlySignificant => "**",
            _ => "",
        }
    }
}

/// A change of one metric between two columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// Column compared against.
    pub against: usize,
    /// Change of the mean in %, positive = better (mmtests convention).
    /// `None` when undefined (zero or missing reference value).
    pub pct: Option<f64>,
    /// `pct` is the delta printed in the imported table, not recomputed.
    pub printed: bool,
    pub welch_p: Option<f64>,
    pub mann_whitney_p: Option<f64>,
    /// 95% percentile-bootstrap interval of median(this) - median(against).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_diff_ci: Option<Interval>,
    pub significance: Significance,
    /// One sentence for humans: "+25.93% better, Welch p=0.0032 **, ..."
    /// or "n=1, cannot assess".
    pub verdict: String,
}

/// Latency across columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyComparison {
    /// Every thread seen in any column, ascending.
    pub threads: Vec<ThreadRow>,
    /// Per column: p50/p99/p99.9/max of its histogram.
    pub tails: Vec<Option<Tails>>,
    /// Per thread (CPU) seen in any column's `thread_histograms`, ascending:
    /// its tails in each column.
    #[serde(default)]
    pub thread_tails: Vec<ThreadTailsRow>,
    /// Per column: the worst latency known (trace latency, else the largest
    /// per-thread max, else the histogram max).
    pub max_us: Vec<Option<f64>>,
    pub culprits: Vec<Option<String>>,
    /// Per column: the merged histogram, kept for the overlay chart.
    pub histograms: Vec<Vec<(f64, u64)>>,
    /// Per non-baseline column with data: the culprit diff sentence against
    /// the baseline, e.g. "max 1969 us -> 879 us (-55%); culprit changed from
    /// madvise_cold_or_pageout_pte_range to free_unref_page_list".
    pub culprit_diffs: Vec<CulpritDiff>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRow {
    pub thread: u32,
    /// One per column; `None` where the column has no such thread.
    pub cells: Vec<Option<ThreadLatency>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadTailsRow {
    pub thread: u32,
    /// One per column; `None` where the column has no histogram for it.
    pub cells: Vec<Option<Tails>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CulpritDiff {
    pub column: usize,
    pub against: usize,
    pub sentence: String,
}

// ------------------------------------------------------------------ logic

/// The mean for a metric: harmonic for higher-is-better metrics (rates such as
/// ops/s or jobs/min, where averaging the rates arithmetically would overweight
/// the fast runs; mmtests prints Hmean for these), arithmetic for
/// lower-is-better metrics (times, latencies, CPU seconds: Amean). An explicit
/// `mean` on the metric wins.
pub fn mean_kind_for(m: &MetricSamples) -> MeanKind {
    m.mean.unwrap_or(match m.better {
        Better::Higher => MeanKind::Harmonic,
        Better::Lower => MeanKind::Arithmetic,
    })
}

/// Change from `reference` to `value` in %, positive = better.
pub fn pct_change(reference: f64, value: f64, better: Better) -> Option<f64> {
    if !reference.is_finite() || !value.is_finite() || reference == 0.0 {
        return None;
    }
    let raw = (value - reference) / reference.abs() * 100.0;
    let pct = match better {
        Better::Lower => -raw,
        Better::Higher => raw,
    };
    pct.is_finite().then_some(pct)
}

/// Knobs of [`compare_with`]; [`compare`] uses the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareOptions {
    /// Bootstrap rounds for the median-difference interval; 0 skips it
    /// (it dominates the cost of a comparison with many samples).
    pub bootstrap_resamples: usize,
    pub bootstrap_seed: u64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            bootstrap_resamples: BOOTSTRAP_RESAMPLES,
            bootstrap_seed: BOOTSTRAP_SEED,
        }
    }
}

/// Computes the whole comparison with default options. Never panics.
pub fn compare(input: &ComparisonInput) -> Comparison {
    compare_with(input, &CompareOptions::default())
}

/// Computes the whole comparison. Never panics.
pub fn compare_with(input: &ComparisonInput, opts: &CompareOptions) -> Comparison {
    let mut notes = Vec::new();
    let ncols = input.columns.len();
    let baseline = if input.baseline < ncols || ncols == 0 {
        input.baseline.min(ncols.saturating_sub(1))
    } else {
        notes.push(format!(
            "baseline index {} is out of range ({} columns); using column 0",
            input.baseline, ncols
        ));
        0
    };
    if ncols == 0 {
        notes.push("no columns to compare".to_string());
    }
    let columns = input
        .columns
        .iter()
        .map(|c| ColumnSummary {
            label: c.label.clone(),
            simulated: c.simulated,
            runs: c.runs.clone(),
        })
        .collect();

    let metrics = metric_keys(input)
        .into_iter()
        .map(|key| compare_metric(input, &key, baseline, opts))
        .collect();

    Comparison {
        title: input.title.clone(),
        columns,
        baseline,
        chain_previous: input.chain_previous,
        metrics,
        latency: compare_latency(input, baseline),
        notes,
    }
}

/// Metrics are identified by name plus printed statistic, so that a printed
/// "Min Elapsd-8" and "Amean Elapsd-8" stay separate rows.
#[derive(Debug, Clone, PartialEq)]
struct MetricKey {
    name: String,
    printed_stat: Option<String>,
}

fn key_of(m: &MetricSamples) -> MetricKey {
    MetricKey {
        name: m.name.clone(),
        printed_stat: if m.samples.is_empty() {
            m.printed.as_ref().map(|p| p.stat.clone())
        } else {
            None
        },
    }
}

fn metric_keys(input: &ComparisonInput) -> Vec<MetricKey> {
    let mut keys: Vec<MetricKey> = Vec::new();
    for c in &input.columns {
        for m in &c.metrics {
            let k = key_of(m);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys
}

fn find<'a>(col: &'a ColumnInput, key: &MetricKey) -> Option<&'a MetricSamples> {
    col.metrics.iter().find(|m| key_of(m) == *key)
}

/// A column's metric reduced to what the deltas need.
struct Side<'a> {
    samples: Vec<f64>,
    cell: MetricCell,
    printed: Option<&'a PrintedSummary>,
}

fn summarize<'a>(m: Option<&'a MetricSamples>, kind: MeanKind) -> Side<'a> {
    let Some(m) = m else {
        return Side {
            samples: Vec::new(),
            cell: MetricCell::default(),
            printed: None,
        };
    };
    let samples: Vec<f64> = m
        .samples
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    let dropped = m.samples.len() - samples.len();
    if samples.is_empty()
        && let Some(p) = m.printed.as_ref().filter(|p| p.value.is_finite())
    {
        return Side {
            samples: Vec::new(),
            cell: MetricCell {
                n: 1,
                single_summary: true,
                mean: Some(p.value),
                min: Some(p.value),
                max: Some(p.value),
                median: Some(p.value),
                dropped,
                ..MetricCell::default()
            },
            printed: Some(p),
        };
    }
    let mean = match kind {
        MeanKind::Arithmetic => stats::amean(&samples),
        // A zero or negative rate has no harmonic mean; fall back rather than
        // show nothing.
        MeanKind::Harmonic => stats::hmean(&samples).or_else(|| stats::amean(&samples)),
    };
    Side {
        cell: MetricCell {
            n: samples.len(),
            single_summary: false,
            mean,
            stddev: stats::stddev(&samples),
            cov_pct: stats::coefficient_of_variation(&samples).map(|c| c * 100.0),
            min: stats::min(&samples),
            max: stats::max(&samples),
            median: stats::median(&samples),
            dropped,
            vs_baseline: None,
            vs_previous: None,
        },
        samples,
        printed: None,
    }
}

fn compare_metric(
    input: &ComparisonInput,
    key: &MetricKey,
    baseline: usize,
    opts: &CompareOptions,
) -> MetricComparison {
    let first = input
        .columns
        .iter()
        .find_map(|c| find(c, key))
        .cloned()
        .unwrap_or_default();
    let kind = mean_kind_for(&first);
    let better = first.better;
    let sides: Vec<Side> = input
        .columns
        .iter()
        .map(|c| summarize(find(c, key), kind))
        .collect();
    let mut cells: Vec<MetricCell> = sides.iter().map(|s| s.cell.clone()).collect();
    for (i, cell) in cells.iter_mut().enumerate() {
        if i != baseline && baseline < sides.len() {
            cell.vs_baseline = Some(delta(&sides, i, baseline, baseline, better, opts));
        }
        if input.chain_previous && i > 0 {
            cell.vs_previous = Some(delta(&sides, i, i - 1, baseline, better, opts));
        }
    }
    let noise_floor_pct = sides
        .get(baseline)
        .and_then(|s| s.cell.cov_pct)
        .filter(|_| sides[baseline].cell.n >= 2);
    MetricComparison {
        name: key.name.clone(),
        unit: first.unit.clone(),
        better,
        mean_kind: kind,
        stat: key
            .printed_stat
            .clone()
            .unwrap_or_else(|| kind.label().to_string()),
        cells,
        noise_floor_pct,
    }
}

fn fmt_p(p: f64) -> String {
    if p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn delta(
    sides: &[Side],
    i: usize,
    against: usize,
    baseline: usize,
    better: Better,
    opts: &CompareOptions,
) -> Delta {
    let (new, old) = (&sides[i], &sides[against]);
    // A printed delta is kept when it was printed against this very column.
    let printed_pct = new
        .printed
        .filter(|p| p.relative_to.unwrap_or(baseline) == against)
        .and_then(|p| p.printed_delta_pct)
        .filter(|d| d.is_finite());
    let computed = match (old.cell.mean, new.cell.mean) {
        (Some(o), Some(n)) => pct_change(o, n, better),
        _ => None,
    };
    let pct = printed_pct.or(computed);
    let mut d = Delta {
        against,
        pct,
        printed: printed_pct.is_some(),
        welch_p: None,
        mann_whitney_p: None,
        median_diff_ci: None,
        significance: Significance::NotAssessed,
        verdict: String::new(),
    };
    let change = match pct {
        Some(p) => format!("{p:+.2}%"),
        None => match old.cell.mean {
            Some(0.0) => "reference value is 0, % change undefined".to_string(),
            _ => "no data".to_string(),
        },
    };
    let (nn, no) = (new.cell.n, old.cell.n);
    if nn == 0 || no == 0 {
        d.verdict = format!("{change}; no data, cannot assess");
        return d;
    }
    if new.cell.single_summary || old.cell.single_summary {
        d.verdict = format!("{change}; n=1 (printed summary), cannot assess");
        return d;
    }
    if nn < MIN_SAMPLES_FOR_TESTS || no < MIN_SAMPLES_FOR_TESTS {
        let n = if nn == no {
            format!("n={nn}")
        } else {
            format!("n={no}/{nn}")
        };
        d.verdict = format!("{change}; {n}, cannot assess");
        return d;
    }
    d.welch_p = stats::welch_t_test(&new.samples, &old.samples).map(|t| t.p);
    d.mann_whitney_p = stats::mann_whitney_u(&new.samples, &old.samples).map(|m| m.p);
    d.median_diff_ci = stats::bootstrap_median_diff_ci(
        &old.samples,
        &new.samples,
        opts.bootstrap_resamples,
        BOOTSTRAP_CONFIDENCE,
        opts.bootstrap_seed,
    );
    d.significance = match d.welch_p {
        Some(p) if p < P_HIGHLY_SIGNIFICANT => Significance::HighlySignificant,
        Some(p) if p < P_SIGNIFICANT => Significance::Significant,
        Some(_) => Significance::NotSignificant,
        // Both sides constant: Welch is undefined. Identical constants are
        // plainly no change; different constants are a change we cannot put
        // a p-value on.
        None => Significance::NotAssessed,
    };
    let direction = match pct {
        Some(p) if p > 0.0 => " better",
        Some(p) if p < 0.0 => " worse",
        _ => "",
    };
    let mut v = format!("{change}{direction}; n={no}/{nn}");
    match d.welch_p {
        Some(p) => v.push_str(&format!(", Welch p={}", fmt_p(p))),
        None => v.push_str(", no variance on either side, Welch undefined"),
    }
    if let Some(p) = d.mann_whitney_p {
        v.push_str(&format!(", Mann-Whitney p={}", fmt_p(p)));
    }
    v.push_str(match d.significance {
        Significance::HighlySignificant => " (significant, p<0.01)",
        Significance::Significant => " (significant, p<0.05)",
        Significance::NotSignificant => " (not significant)",
        Significance::NotAssessed => " (not assessed)",
    });
    if matches!(
        d.significance,
        Significance::Significant | Significance::HighlySignificant
    ) && d.mann_whitney_p.is_some_and(|p| p >= P_SIGNIFICANT)
    {
        v.push_str("; the rank test does not confirm it");
    }
    d.verdict = v;
    d
}

// ---------------------------------------------------------------- latency

fn compare_latency(input: &ComparisonInput, baseline: usize) -> Option<LatencyComparison> {
    if input.columns.iter().all(|c| c.latency.is_none()) {
        return None;
    }
    let lat: Vec<Option<&LatencyColumn>> =
        input.columns.iter().map(|c| c.latency.as_ref()).collect();
    let mut ids: Vec<u32> = lat
        .iter()
        .flatten()
        .flat_map(|l| l.per_thread.iter().map(|t| t.thread))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let threads = ids
        .into_iter()
        .map(|thread| ThreadRow {
            thread,
            cells: lat
                .iter()
                .map(|l| l.and_then(|l| l.per_thread.iter().find(|t| t.thread == thread).cloned()))
                .collect(),
        })
        .collect();
    let histograms: Vec<Vec<(f64, u64)>> = lat
        .iter()
        .map(|l| l.map(merged_histogram).unwrap_or_default())
        .collect();
    let tails: Vec<Option<Tails>> = histograms
        .iter()
        .map(|h| stats::histogram_tails(h))
        .collect();
    let mut hist_ids: Vec<u32> = lat
        .iter()
        .flatten()
        .flat_map(|l| l.thread_histograms.iter().map(|h| h.thread))
        .collect();
    hist_ids.sort_unstable();
    hist_ids.dedup();
    let thread_tails = hist_ids
        .into_iter()
        .map(|thread| ThreadTailsRow {
            thread,
            cells: lat
                .iter()
                .map(|l| {
                    let h = (*l)?
                        .thread_histograms
                        .iter()
                        .find(|h| h.thread == thread)?;
                    stats::histogram_tails(&h.buckets)
                })
                .collect(),
        })
        .collect();
    let max_us: Vec<Option<f64>> = lat
        .iter()
        .zip(&tails)
        .map(|(l, t)| {
            let l = (*l)?;
            l.trace_latency_us
                .filter(|x| x.is_finite())
                .or_else(|| {
                    let m: Vec<f64> = l.per_thread.iter().map(|t| t.max_us).collect();
                    stats::max(&m)
                })
                .or(t.map(|t| t.max))
        })
        .collect();
    let culprits: Vec<Option<String>> = lat
        .iter()
        .map(|l| l.and_then(|l| l.culprit.clone()).filter(|c| !c.is_empty()))
        .collect();
    let culprit_diffs = (0..lat.len())
        .filter(|&i| {
            i != baseline && lat[i].is_some() && lat.get(baseline).is_some_and(|b| b.is_some())
        })
        .map(|i| CulpritDiff {
            column: i,
            against: baseline,
            sentence: culprit_sentence(
                max_us[baseline],
                max_us[i],
                culprits[baseline].as_deref(),
                culprits[i].as_deref(),
            ),
        })
        .collect();
    Some(LatencyComparison {
        threads,
        tails,
        thread_tails,
        max_us,
        culprits,
        histograms,
        culprit_diffs,
    })
}

/// The column's merged histogram, or the sum of its per-thread ones.
fn merged_histogram(l: &LatencyColumn) -> Vec<(f64, u64)> {
    if !l.histogram.is_empty() || l.thread_histograms.is_empty() {
        return l.histogram.clone();
    }
    let mut all: Vec<(f64, u64)> = l
        .thread_histograms
        .iter()
        .flat_map(|h| h.buckets.iter().copied())
        .filter(|(x, _)| x.is_finite())
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, u64)> = Vec::with_capacity(all.len());
    for (x, n) in all {
        match out.last_mut() {
            Some(last) if last.0 == x => last.1 = last.1.saturating_add(n),
            _ => out.push((x, n)),
        }
    }
    out
}

/// Microseconds as a kernel developer writes them: whole numbers stay whole,
/// fractions get one decimal.
pub fn fmt_us(v: f64) -> String {
    if !v.is_finite() {
        "?".to_string()
    } else if v.abs() >= 1e9 {
        format!("{v:.3e}")
    } else if (v - v.round()).abs() < 0.05 || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The culprit diff sentence:
/// `max 1969 us -> 879 us (-55%); culprit changed from A to B`, or
/// `...; culprit unchanged: A`. The % here is the raw change of the maximum
/// (negative = lower latency), as written in mails, not "positive = better".
pub fn culprit_sentence(
    before_us: Option<f64>,
    after_us: Option<f64>,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let show = |v: Option<f64>| v.map_or_else(|| "?".to_string(), |v| format!("{} us", fmt_us(v)));
    let mut s = format!("max {} -> {}", show(before_us), show(after_us));
    if let (Some(b), Some(a)) = (before_us, after_us)
        && b != 0.0
        && b.is_finite()
        && a.is_finite()
    {
        let pct = ((a - b) / b.abs() * 100.0).round();
        if pct == 0.0 {
            s.push_str(" (0%)");
        } else {
            s.push_str(&format!(" ({pct:+.0}%)"));
        }
    }
    match (before, after) {
        (Some(b), Some(a)) if a == b => s.push_str(&format!("; culprit unchanged: {a}")),
        (Some(b), Some(a)) => s.push_str(&format!("; culprit changed from {b} to {a}")),
        (Some(b), None) => s.push_str(&format!("; culprit was {b}, now unknown")),
        (None, Some(a)) => s.push_str(&format!("; culprit now {a}")),
        (None, None) => {}
    }
    s
}
