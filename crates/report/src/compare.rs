//! The model of a comparison (columns of runs, metrics, latency) and the
//! verdict logic: which mean, % change and whether it is better or worse,
//! significance with family-wise error control, noise floor, latency per
//! tool and tracer, and the culprit diff.
//!
//! Owns the meaning of the numbers; renderers (`text`, `svg`, the web pages)
//! only lay them out, through [`crate::fmt`]. Pure and total: any input,
//! including NaN, empty samples, zero baselines or an out-of-range baseline
//! index, yields a `Comparison` whose verdict strings say what could not be
//! computed.
//!
//! # Metric identity
//!
//! A metric is identified by its **scope** (the table or test it came
//! from: one printed table of one message, or a tool such as `time` or
//! `stress-ng` for run-to-run uploads), its printed statistic, its name
//! and its unit. Rows are compared only with the same identity: a
//! comparison never pools values of different tables, tests or units.
//!
//! # Sign convention
//!
//! Every % is the raw change of the value, `(new - old) / |old|`, as mails
//! write it ("-2%" for a time that went down). Whether that is better or
//! worse is a separate [`Judgement`] from the metric's [`Better`], which
//! comes from data ([`crate::direction`]), never from guessing.

use serde::{Deserialize, Serialize};

use crate::direction::DirectionSource;
use crate::fmt;
pub use crate::model::{Better, DeltaConvention};
use crate::stats::{self, Interval};

/// Adjusted p-value below which a change gets one mark (`*`): the
/// family-wise error rate of a whole comparison.
pub const P_SIGNIFICANT: f64 = 0.05;
/// Adjusted p-value below which a change gets two marks (`**`).
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
    /// Identity of the table or test the metric belongs to (see the module
    /// docs). Metrics of different scopes are never compared.
    #[serde(default)]
    pub scope: String,
    /// What a reader calls that table or test: its printed title, the tool,
    /// and where it was posted.
    #[serde(default)]
    pub section: String,
    pub name: String,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub better: Better,
    #[serde(default)]
    pub direction_source: DirectionSource,
    #[serde(default)]
    pub samples: Vec<f64>,
    /// A value taken from a printed table when no samples exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<PrintedSummary>,
    /// The spread a table printed beside a single value (LKP's `± 29%`,
    /// perf stat's `( +- 2.40% )`) as a coefficient of variation in %:
    /// the cell's spread while it holds that one value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_spread_pct: Option<f64>,
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
    /// The delta the table printed for this cell, exactly as printed (its
    /// sign convention is `printed_convention`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_delta_pct: Option<f64>,
    #[serde(default)]
    pub printed_convention: DeltaConvention,
    /// Column index the printed delta was relative to (the first column of
    /// the printed table). `None` means the comparison's baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<usize>,
}

/// Latency results of one column: cyclictest threads and histograms, and
/// the worst report of each latency tracer. Each tool and tracer is kept
/// apart: they measure different things.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyColumn {
    /// cyclictest `T:` lines, aggregated per thread.
    #[serde(default)]
    pub per_thread: Vec<ThreadLatency>,
    /// `(bucket_lower_us, count)`, all threads merged. When empty, the sum
    /// of `thread_histograms` is used.
    #[serde(default)]
    pub histogram: Vec<(f64, u64)>,
    /// Per-thread (per-CPU) histograms, for per-CPU tails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_histograms: Vec<ThreadHistogram>,
    /// Samples beyond the last bucket of `histogram` (cyclictest
    /// `# Histogram Overflows`), all threads. Ignored when
    /// `thread_histograms` is given: theirs are summed.
    #[serde(default)]
    pub overflows: u64,
    /// The largest `# Max Latencies` a histogram footer printed: the real
    /// maximum, overflows included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram_max_us: Option<f64>,
    /// Width of one histogram bucket (1 us for cyclictest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket_us: Option<f64>,
    /// The worst report of each latency tracer (wakeup_rt, irqsoff, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<TraceSummary>,
}

/// The worst report of one latency tracer in a column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    pub tracer: String,
    pub latency_us: f64,
    /// The function that held the CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub culprit: Option<String>,
    /// The culprit and its callers, innermost first.
    #[serde(default)]
    pub culprit_path: Vec<String>,
    /// Reports of this tracer in the column.
    #[serde(default = "one")]
    pub n_runs: u32,
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
    /// Samples beyond the last bucket.
    #[serde(default)]
    pub overflows: u64,
    /// The thread's real maximum as the footer printed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_us: Option<f64>,
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
    /// How significance was controlled over all the tests of this
    /// comparison.
    pub family: FamilyWise,
    /// Problems with the input as a whole (bad baseline index, ...).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Runs shown beside the comparison and compared with nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextRun>,
}

impl Comparison {
    /// The column labels without the prefix they all share up to a `/` (a
    /// thread's variant prefix), for table headers and chart labels; the
    /// full labels are said once in a legend. A label cut in the middle of
    /// a name says nothing.
    pub fn short_labels(&self) -> Vec<String> {
        let labels: Vec<&str> = self.columns.iter().map(|c| c.label.as_str()).collect();
        if labels.len() < 2 {
            return labels.iter().map(|l| l.to_string()).collect();
        }
        let first = labels[0].as_bytes();
        let mut len = first.len();
        for l in &labels[1..] {
            len = len.min(
                first
                    .iter()
                    .zip(l.as_bytes())
                    .take_while(|(a, b)| a == b)
                    .count(),
            );
        }
        match first[..len].iter().rposition(|&b| b == b'/') {
            Some(i) if labels.iter().all(|l| l.len() > i + 1) => {
                labels.iter().map(|l| l[i + 1..].to_string()).collect()
            }
            _ => labels.iter().map(|l| l.to_string()).collect(),
        }
    }
}

/// A run shown beside a comparison and compared with nothing: evidence
/// from the same thread that no variant was named for (the trace that
/// motivated a patch, a run whose kernel side nobody stated). Putting it
/// in a column of its own would compare it with the baseline on a guess.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextRun {
    pub run: RunRef,
    /// What the run is: `irqsoff trace`, `cyclictest`, a table's title.
    pub what: String,
    /// Its worst latency, when it is a latency measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_us: Option<f64>,
    /// The function a trace blames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub culprit: Option<String>,
}

impl ContextRun {
    /// `irqsoff trace: 77766 us in isolate_lru_folios`.
    pub fn headline(&self) -> String {
        let mut s = self.what.clone();
        if let Some(w) = self.worst_us {
            s.push_str(&format!(": {} us", crate::fmt::us(w)));
            if let Some(c) = &self.culprit {
                s.push_str(&format!(" in {c}"));
            }
        } else if let Some(c) = &self.culprit {
            s.push_str(&format!(", culprit {c}"));
        }
        s
    }
}

/// Family-wise error control: every test of a comparison (each metric,
/// each column against the baseline and, in a chain, against the previous
/// column) is one family, adjusted with Holm-Bonferroni.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilyWise {
    /// "holm-bonferroni".
    pub method: String,
    /// The family-wise error rate the marks keep (0.05).
    pub alpha: f64,
    /// Number of tests in the family.
    pub tests: usize,
    /// One line for readers, the same in HTML and text.
    pub sentence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnSummary {
    pub label: String,
    pub simulated: bool,
    pub runs: Vec<RunRef>,
}

/// One metric across all columns. Metrics are matched across columns by
/// identity `(scope, printed stat, name, unit)`, in order of first
/// appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricComparison {
    pub scope: String,
    pub section: String,
    pub name: String,
    pub unit: String,
    pub better: Better,
    pub direction_source: DirectionSource,
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
    /// Adjusted Welch p ≥ 0.05.
    NotSignificant,
    /// Adjusted Welch p < 0.05.
    Significant,
    /// Adjusted Welch p < 0.01.
    HighlySignificant,
    /// n ≥ 3 on both sides, every run of each side identical, and the two
    /// sides differ: no test applies, and none is needed to see the change
    /// in these runs.
    NoVariance,
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

/// Whether a change is an improvement, from the metric's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Better,
    Worse,
    /// No change at all.
    Same,
    /// The metric has no direction, or the change is unknown.
    NotJudged,
}

impl Judgement {
    pub fn of(pct: Option<f64>, better: Better) -> Judgement {
        match (pct, better) {
            (None, _) | (_, Better::Neutral) => Judgement::NotJudged,
            (Some(0.0), _) => Judgement::Same,
            (Some(p), Better::Lower) if p < 0.0 => Judgement::Better,
            (Some(p), Better::Higher) if p > 0.0 => Judgement::Better,
            (Some(_), _) => Judgement::Worse,
        }
    }

    /// "better", "worse", "no change", "" (not judged).
    pub fn word(self) -> &'static str {
        match self {
            Judgement::Better => "better",
            Judgement::Worse => "worse",
            Judgement::Same => "no change",
            Judgement::NotJudged => "",
        }
    }
}

/// A change of one metric between two columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// Column compared against.
    pub against: usize,
    /// Raw change of the mean in %, `(this - against) / |against|`.
    /// `None` when undefined (zero or missing reference value).
    pub pct: Option<f64>,
    /// `pct` is the delta printed in the imported table (converted to a
    /// raw change): the values were missing, or each side is that table's
    /// one printed value and their change disagrees with the table's own
    /// beyond its rounding (the table's delta came from unrounded values).
    pub printed: bool,
    /// The delta the imported table printed for this very pair of columns,
    /// as printed, and how it is signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_convention: Option<DeltaConvention>,
    /// Better or worse, from the metric's direction.
    pub judgement: Judgement,
    /// Samples on this side and on the side compared against.
    pub n: usize,
    pub n_against: usize,
    /// One side is a single summary copied from a printed table.
    pub summary_only: bool,
    /// Welch's two-sided p, unadjusted.
    pub welch_p: Option<f64>,
    /// Welch's p adjusted over the comparison's family of tests (Holm);
    /// the marks and the significance come from this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjusted_p: Option<f64>,
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
    /// Every cyclictest thread seen in any column, ascending.
    pub threads: Vec<ThreadRow>,
    /// Per column: p50/p99/p99.9/max of its cyclictest histogram.
    pub tails: Vec<Option<LatencyTails>>,
    /// Per thread (CPU) seen in any column's `thread_histograms`, ascending:
    /// its tails in each column.
    #[serde(default)]
    pub thread_tails: Vec<ThreadTailsRow>,
    /// The worst latency of each kind (cyclictest, then each tracer), one
    /// row per kind; kinds are never mixed.
    pub worst: Vec<WorstRow>,
    /// Per column: the merged histogram, kept for the overlay chart.
    pub histograms: Vec<Vec<(f64, u64)>>,
    /// Per kind and non-baseline column with data of that kind in both:
    /// the sentence against the baseline, e.g. "wakeup_rt: max 1969 us ->
    /// 879 us (-55%); culprit changed from madvise_cold_or_pageout_pte_range
    /// to free_unref_page_list".
    pub culprit_diffs: Vec<CulpritDiff>,
}

/// A percentile of a histogram; `beyond` when it falls past the last
/// bucket (among the overflows): the value is then the last bucket's upper
/// bound and the percentile is larger than it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    pub value_us: f64,
    #[serde(default)]
    pub beyond: bool,
}

impl Percentile {
    /// `23`, or `> 25` past the last bucket.
    pub fn show(&self) -> String {
        if self.beyond {
            format!("> {}", fmt::us(self.value_us))
        } else {
            fmt::us(self.value_us)
        }
    }
}

/// Tails of a cyclictest histogram with everything the output says:
/// buckets, overflows and the printed maximum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTails {
    /// Samples in the buckets plus overflows.
    pub count: u64,
    pub overflows: u64,
    pub p50: Percentile,
    pub p99: Percentile,
    pub p99_9: Percentile,
    /// The real maximum when printed (`# Max Latencies`), else the highest
    /// non-empty bucket (`beyond` when overflows exist and no maximum was
    /// printed).
    pub max: Percentile,
}

/// The worst latency of one kind in each column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorstRow {
    /// "cyclictest" or the tracer's name ("wakeup_rt", "irqsoff", ...).
    pub kind: String,
    /// "cyclictest max" or "wakeup_rt trace".
    pub label: String,
    /// One per column; `None` where the column has none of this kind.
    pub cells: Vec<Option<Percentile>>,
    /// Culprit per column (tracers only).
    pub culprits: Vec<Option<String>>,
    /// Runs (cyclictest) or reports (tracers) behind each cell.
    pub n_runs: Vec<u32>,
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
    pub cells: Vec<Option<LatencyTails>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CulpritDiff {
    pub column: usize,
    pub against: usize,
    /// The [`WorstRow::kind`] compared.
    pub kind: String,
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
        Better::Lower | Better::Neutral => MeanKind::Arithmetic,
    })
}

/// Raw change from `reference` to `value` in %: `(value - reference) /
/// |reference|`. `None` for a zero or non-finite reference.
pub fn pct_change(reference: f64, value: f64) -> Option<f64> {
    if !reference.is_finite() || !value.is_finite() || reference == 0.0 {
        return None;
    }
    let raw = (value - reference) / reference.abs() * 100.0;
    raw.is_finite().then_some(raw)
}

/// Half a unit of the last decimal a printed number shows (`8.7` ->
/// 0.05, `-57` -> 0.5): how far the exact value may be from it.
fn rounding_of(printed: f64) -> f64 {
    let s = format!("{}", printed.abs());
    let decimals = s.split_once('.').map_or(0, |(_, f)| f.len()).min(9);
    0.5 * 10f64.powi(-(decimals as i32))
}

/// How far the change from `reference` to `value` (in %) may be from the
/// change of the exact numbers, when both are rounded as they print.
fn change_rounding(reference: f64, value: f64) -> f64 {
    if reference == 0.0 || !reference.is_finite() || !value.is_finite() {
        return f64::INFINITY;
    }
    let r = reference.abs();
    100.0 * (rounding_of(value) / r + value.abs() * rounding_of(reference) / (r * r))
}

/// A printed delta as a raw change: mmtests' gain is the raw change with
/// the sign flipped for lower-is-better tests.
fn printed_as_change(printed: f64, conv: DeltaConvention, better: Better) -> Option<f64> {
    match (conv, better) {
        (DeltaConvention::Change, _) => Some(printed),
        (DeltaConvention::Gain, Better::Higher) => Some(printed),
        (DeltaConvention::Gain, Better::Lower) => Some(-printed),
        (DeltaConvention::Gain, Better::Neutral) => None,
    }
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

    let index = MetricIndex::new(input);
    let mut metrics: Vec<MetricComparison> = index
        .keys
        .iter()
        .enumerate()
        .map(|(k, key)| compare_metric(input, key, &index.found(k), baseline, opts))
        .collect();
    let family = adjust_family(&mut metrics);

    Comparison {
        title: input.title.clone(),
        columns,
        baseline,
        chain_previous: input.chain_previous,
        metrics,
        latency: compare_latency(input, baseline),
        family,
        notes,
        context: Vec::new(),
    }
}

/// A metric's identity: scope, printed statistic, name and unit. A printed
/// "Min Elapsd-8" and "Amean Elapsd-8" stay separate rows, and so do two
/// tables that happen to share a metric name. Borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MetricKey<'a> {
    scope: &'a str,
    printed_stat: Option<&'a str>,
    name: &'a str,
    unit: &'a str,
}

fn key_of(m: &MetricSamples) -> MetricKey<'_> {
    MetricKey {
        scope: &m.scope,
        printed_stat: if m.samples.is_empty() {
            m.printed.as_ref().map(|p| p.stat.as_str())
        } else {
            None
        },
        name: &m.name,
        unit: &m.unit,
    }
}

/// Every metric identity of a comparison in order of first appearance, and
/// for each column the first of its metrics with each identity: one pass
/// over the input instead of a search of every column for every identity.
struct MetricIndex<'a> {
    keys: Vec<MetricKey<'a>>,
    /// `per_column[c][k]`: column `c`'s metric of identity `keys[k]`.
    per_column: Vec<Vec<Option<&'a MetricSamples>>>,
}

impl<'a> MetricIndex<'a> {
    fn new(input: &'a ComparisonInput) -> MetricIndex<'a> {
        let mut keys: Vec<MetricKey<'a>> = Vec::new();
        let mut position: std::collections::HashMap<MetricKey<'a>, usize> =
            std::collections::HashMap::new();
        let mut per_column: Vec<Vec<Option<&'a MetricSamples>>> =
            Vec::with_capacity(input.columns.len());
        for c in &input.columns {
            let mut found: Vec<Option<&'a MetricSamples>> = vec![None; keys.len()];
            for m in &c.metrics {
                let k = key_of(m);
                let pos = *position.entry(k).or_insert_with(|| {
                    keys.push(k);
                    keys.len() - 1
                });
                if found.len() <= pos {
                    found.resize(pos + 1, None);
                }
                if found[pos].is_none() {
                    found[pos] = Some(m);
                }
            }
            per_column.push(found);
        }
        MetricIndex { keys, per_column }
    }

    /// Each column's metric of identity `k`, in column order.
    fn found(&self, k: usize) -> Vec<Option<&'a MetricSamples>> {
        self.per_column
            .iter()
            .map(|f| f.get(k).copied().flatten())
            .collect()
    }
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
    // One value with the spread its table printed (the runs behind it).
    let printed_spread = m
        .printed_spread_pct
        .filter(|c| c.is_finite() && *c >= 0.0 && samples.len() == 1);
    let constant = samples.windows(2).all(|w| w[0] == w[1]);
    let mean = match kind {
        _ if constant && !samples.is_empty() => Some(samples[0]),
        MeanKind::Arithmetic => stats::amean(&samples),
        // A zero or negative rate has no harmonic mean; fall back rather than
        // show nothing.
        MeanKind::Harmonic => stats::hmean(&samples).or_else(|| stats::amean(&samples)),
    };
    // Identical values have no spread at all, whatever rounding says.
    let (stddev, cov_pct) = if let Some(c) = printed_spread {
        (Some(samples[0].abs() * c / 100.0), Some(c))
    } else if constant && samples.len() >= 2 {
        (Some(0.0), Some(0.0))
    } else {
        (
            stats::stddev(&samples),
            stats::coefficient_of_variation(&samples).map(|c| c * 100.0),
        )
    };
    Side {
        cell: MetricCell {
            n: samples.len(),
            single_summary: false,
            mean,
            stddev,
            cov_pct,
            min: stats::min(&samples),
            max: stats::max(&samples),
            median: stats::median(&samples),
            dropped,
            vs_baseline: None,
            vs_previous: None,
        },
        samples,
        // A delta the table printed next to run-to-run values is kept too.
        printed: m.printed.as_ref(),
    }
}

fn compare_metric(
    input: &ComparisonInput,
    key: &MetricKey<'_>,
    found: &[Option<&MetricSamples>],
    baseline: usize,
    opts: &CompareOptions,
) -> MetricComparison {
    let first = found.iter().flatten().next().copied();
    // The first column that knows a direction decides for the row.
    let (better, direction_source) = found
        .iter()
        .flatten()
        .find(|m| m.direction_source != DirectionSource::Unknown)
        .or(first.as_ref())
        .map_or((Better::default(), DirectionSource::default()), |m| {
            (m.better, m.direction_source)
        });
    let kind = first.and_then(|m| m.mean).unwrap_or(match better {
        Better::Higher => MeanKind::Harmonic,
        Better::Lower | Better::Neutral => MeanKind::Arithmetic,
    });
    let sides: Vec<Side> = found.iter().map(|m| summarize(*m, kind)).collect();
    let mut cells: Vec<MetricCell> = sides.iter().map(|s| s.cell.clone()).collect();
    // Outside a chain (where `vs_previous` compares each link), a row the
    // baseline has no data for is compared with its first column that has
    // (as the table printed it), so the change the text shows is the one
    // stored; the delta's `against` names that column.
    let reference = match sides.get(baseline) {
        Some(b) if b.cell.n > 0 || input.chain_previous => baseline,
        _ => sides.iter().position(|s| s.cell.n > 0).unwrap_or(baseline),
    };
    for (i, cell) in cells.iter_mut().enumerate() {
        if i != baseline && baseline < sides.len() {
            let against = if i > reference { reference } else { baseline };
            cell.vs_baseline = Some(delta(&sides, i, against, against, better, opts));
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
        scope: key.scope.to_string(),
        section: first.map(|m| m.section.clone()).unwrap_or_default(),
        name: key.name.to_string(),
        unit: key.unit.to_string(),
        better,
        direction_source,
        mean_kind: kind,
        // A mean of single values is no mean: such rows have no statistic.
        stat: key.printed_stat.map(str::to_string).unwrap_or_else(|| {
            if cells.iter().any(|c| c.n >= 2) {
                kind.label().to_string()
            } else {
                String::new()
            }
        }),
        cells,
        noise_floor_pct,
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
    let printed = new
        .printed
        .filter(|p| p.relative_to.unwrap_or(baseline) == against)
        .and_then(|p| {
            p.printed_delta_pct
                .filter(|d| d.is_finite())
                .map(|d| (d, p.printed_convention))
        });
    let computed = match (old.cell.mean, new.cell.mean) {
        (Some(o), Some(n)) => pct_change(o, n),
        _ => None,
    };
    let from_print = printed.and_then(|(d, conv)| printed_as_change(d, conv, better));
    // One printed value a side: the table's own delta is the figure when
    // it is the more precise of the two, or when the change the values
    // give disagrees with it by more than its rounding. Tables print
    // rounded values and compute their delta from unrounded ones: LKP's
    // `0.70 -> 0.77` is +8.7% (the rounded values give +10%), and its
    // `1.85 -> 1.73` is -7.0% (they give -6.49%, anywhere from -7.0% to
    // -6.0% as rounded). Where the values are printed finely enough the
    // two agree and the values' change is the more precise (mmtests'
    // `13.74%` for 13.7437%). Pooled runs are compared from their values.
    let one_value_each = new.cell.n <= 1 && old.cell.n <= 1;
    let pct = match (computed, from_print, printed) {
        (Some(c), Some(p), Some((raw, _))) if one_value_each => {
            let printed_rounding = rounding_of(raw);
            let values_rounding = match (old.cell.mean, new.cell.mean) {
                (Some(o), Some(n)) => change_rounding(o, n),
                _ => f64::INFINITY,
            };
            if (c - p).abs() > printed_rounding + 1e-9 || values_rounding > printed_rounding {
                Some(p)
            } else {
                Some(c)
            }
        }
        (Some(c), _, _) => Some(c),
        (None, p, _) => p,
    };
    let mut d = Delta {
        against,
        pct,
        printed: from_print.is_some() && pct == from_print && pct != computed,
        printed_pct: printed.map(|p| p.0),
        printed_convention: printed.map(|p| p.1),
        judgement: Judgement::of(pct, better),
        n: new.cell.n,
        n_against: old.cell.n,
        summary_only: new.cell.single_summary || old.cell.single_summary,
        welch_p: None,
        adjusted_p: None,
        mann_whitney_p: None,
        median_diff_ci: None,
        significance: Significance::NotAssessed,
        verdict: String::new(),
    };
    let (nn, no) = (new.cell.n, old.cell.n);
    if nn == 0
        || no == 0
        || new.cell.single_summary
        || old.cell.single_summary
        || nn < MIN_SAMPLES_FOR_TESTS
        || no < MIN_SAMPLES_FOR_TESTS
    {
        d.verdict = verdict(&d);
        return d;
    }
    if new.cell.stddev == Some(0.0) && old.cell.stddev == Some(0.0) {
        // Every run identical within each side: no test applies.
        if new.cell.mean != old.cell.mean {
            d.significance = Significance::NoVariance;
        }
        d.verdict = verdict(&d);
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
    // Significance of tested deltas is set by `adjust_family`, which then
    // writes the verdict again.
    d.verdict = verdict(&d);
    d
}

/// The human sentence of a delta, after its significance is known.
fn verdict(d: &Delta) -> String {
    let (nn, no) = (d.n, d.n_against);
    let change = match d.pct {
        Some(p) => {
            let j = d.judgement.word();
            if j.is_empty() || d.judgement == Judgement::Same {
                fmt::pct(Some(p))
            } else {
                format!("{} {j}", fmt::pct(Some(p)))
            }
        }
        None if nn > 0 && no > 0 => "reference value is 0, % change undefined".to_string(),
        None => "no data".to_string(),
    };
    if nn == 0 || no == 0 {
        return format!("{change}; no data, cannot assess");
    }
    if d.summary_only {
        return format!("{change}; n=1 (printed summary), cannot assess");
    }
    if nn < MIN_SAMPLES_FOR_TESTS || no < MIN_SAMPLES_FOR_TESTS {
        let n = if nn == no {
            format!("n={nn}")
        } else {
            format!("n={no}/{nn}")
        };
        return format!("{change}; {n}, cannot assess");
    }
    let mut v = format!("{change}; n={no}/{nn}");
    match (d.welch_p, d.significance) {
        (None, Significance::NoVariance) => {
            v.push_str(
                ", every run identical within each side: the change is exact, no test applies",
            );
            return v;
        }
        (None, _) if d.pct == Some(0.0) => {
            v.push_str(", identical runs on both sides");
            return v;
        }
        (None, _) => v.push_str(", no variance on either side, Welch undefined"),
        (Some(p), _) => {
            v.push_str(&format!(", Welch p={}", fmt::p_value(p)));
            if let Some(a) = d.adjusted_p.filter(|a| *a != p) {
                v.push_str(&format!(" (adjusted {})", fmt::p_value(a)));
            }
        }
    }
    if let Some(p) = d.mann_whitney_p {
        v.push_str(&format!(", Mann-Whitney p={}", fmt::p_value(p)));
    }
    v.push_str(match d.significance {
        Significance::HighlySignificant => " (significant, adjusted p<0.01)",
        Significance::Significant => " (significant, adjusted p<0.05)",
        Significance::NotSignificant => " (not significant)",
        Significance::NotAssessed | Significance::NoVariance => " (not assessed)",
    });
    if matches!(
        d.significance,
        Significance::Significant | Significance::HighlySignificant
    ) && d.mann_whitney_p.is_some_and(|p| p >= P_SIGNIFICANT)
    {
        v.push_str("; the rank test does not confirm it");
    }
    v
}

/// Holm-Bonferroni over every Welch test of the comparison: sort the m
/// p-values ascending, adjusted p(i) = max over j <= i of min(1, (m - j + 1)
/// p(j)). Keeps the family-wise error rate at [`P_SIGNIFICANT`] whatever the
/// dependence between tests. Sets each tested delta's significance and
/// verdict.
pub fn holm_adjust(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let a = ((m - rank) as f64 * ps[i]).min(1.0);
        running = running.max(a);
        adjusted[i] = running;
    }
    adjusted
}

fn adjust_family(metrics: &mut [MetricComparison]) -> FamilyWise {
    let mut ps: Vec<f64> = Vec::new();
    for m in metrics.iter() {
        for c in &m.cells {
            for d in [&c.vs_baseline, &c.vs_previous].into_iter().flatten() {
                if let Some(p) = d.welch_p {
                    ps.push(p);
                }
            }
        }
    }
    let adjusted = holm_adjust(&ps);
    let mut k = 0;
    for m in metrics.iter_mut() {
        for c in m.cells.iter_mut() {
            for d in [&mut c.vs_baseline, &mut c.vs_previous]
                .into_iter()
                .flatten()
            {
                if d.welch_p.is_some() {
                    let a = adjusted[k];
                    k += 1;
                    d.adjusted_p = Some(a);
                    d.significance = if a < P_HIGHLY_SIGNIFICANT {
                        Significance::HighlySignificant
                    } else if a < P_SIGNIFICANT {
                        Significance::Significant
                    } else {
                        Significance::NotSignificant
                    };
                    d.verdict = verdict(d);
                }
            }
        }
    }
    let tests = ps.len();
    let exact = metrics
        .iter()
        .flat_map(|m| &m.cells)
        .flat_map(|c| [&c.vs_baseline, &c.vs_previous])
        .flatten()
        .any(|d| d.significance == Significance::NoVariance);
    let sentence = if tests == 0 && exact {
        "No p-value applies: runs are identical within each side (the change is exact), \
         or a side has fewer than 3 runs or only a printed summary."
            .to_string()
    } else if tests == 0 {
        "No change could be tested (fewer than 3 runs on a side, or printed summaries).".to_string()
    } else {
        format!(
            "Significance: Welch's t-test on n>=3 runs a side, p-values adjusted with \
             Holm-Bonferroni over the {tests} test{} of this comparison \
             (family-wise error 5%): * adjusted p<0.05, ** adjusted p<0.01.",
            if tests == 1 { "" } else { "s" }
        )
    };
    FamilyWise {
        method: "holm-bonferroni".to_string(),
        alpha: P_SIGNIFICANT,
        tests,
        sentence,
    }
}

// ---------------------------------------------------------------- latency

/// Tails of a histogram with its overflows and printed maximum.
pub fn latency_tails(
    buckets: &[(f64, u64)],
    overflows: u64,
    printed_max_us: Option<f64>,
    bucket_us: f64,
) -> Option<LatencyTails> {
    let v = stats::clean_buckets(buckets);
    let in_buckets: u128 = v.iter().map(|&(_, c)| u128::from(c)).sum();
    let total = in_buckets + u128::from(overflows);
    if total == 0 {
        return None;
    }
    let width = if bucket_us.is_finite() && bucket_us > 0.0 {
        bucket_us
    } else {
        1.0
    };
    // Upper bound of the histogram's range: cyclictest counts a latency of
    // N or more (N buckets) as an overflow.
    let last_upper = v.last().map_or(0.0, |&(lo, _)| lo + width);
    let pct = |q: f64| -> Percentile {
        let rank = ((total as f64) * (q / 100.0)).ceil();
        let rank = if rank.is_finite() && rank >= 1.0 {
            rank as u128
        } else {
            1
        };
        if rank > in_buckets {
            return Percentile {
                value_us: last_upper,
                beyond: true,
            };
        }
        let mut seen = 0u128;
        for &(lo, c) in &v {
            seen += u128::from(c);
            if seen >= rank {
                return Percentile {
                    value_us: lo,
                    beyond: false,
                };
            }
        }
        Percentile {
            value_us: last_upper,
            beyond: true,
        }
    };
    let highest = v.last().map(|&(lo, _)| lo);
    let max = match (printed_max_us.filter(|m| m.is_finite()), highest) {
        (Some(m), Some(h)) => Percentile {
            value_us: m.max(h),
            beyond: false,
        },
        (Some(m), None) => Percentile {
            value_us: m,
            beyond: false,
        },
        (None, _) if overflows > 0 => Percentile {
            value_us: last_upper,
            beyond: true,
        },
        (None, Some(h)) => Percentile {
            value_us: h,
            beyond: false,
        },
        (None, None) => return None,
    };
    Some(LatencyTails {
        count: u64::try_from(total).unwrap_or(u64::MAX),
        overflows,
        p50: pct(50.0),
        p99: pct(99.0),
        p99_9: pct(99.9),
        max,
    })
}

fn column_tails(l: &LatencyColumn) -> Option<LatencyTails> {
    let merged = merged_histogram(l);
    let (overflows, printed_max) = if l.thread_histograms.is_empty() {
        (l.overflows, l.histogram_max_us)
    } else {
        let o = l
            .thread_histograms
            .iter()
            .fold(0u64, |a, h| a.saturating_add(h.overflows));
        let m = l
            .thread_histograms
            .iter()
            .filter_map(|h| h.max_us)
            .chain(l.histogram_max_us)
            .filter(|x| x.is_finite())
            .reduce(f64::max);
        (o, m)
    };
    latency_tails(&merged, overflows, printed_max, l.bucket_us.unwrap_or(1.0))
}

/// The largest cyclictest latency a column knows: thread maxima, the
/// histogram footer, the highest bucket (a lower bound when overflows
/// exist without a printed maximum).
fn cyclictest_worst(l: &LatencyColumn, tails: Option<&LatencyTails>) -> Option<Percentile> {
    let threads = l
        .per_thread
        .iter()
        .map(|t| t.max_us)
        .filter(|x| x.is_finite())
        .reduce(f64::max);
    match (threads, tails.map(|t| t.max)) {
        (Some(t), Some(h)) if h.beyond && h.value_us > t => Some(h),
        (Some(t), Some(h)) => Some(Percentile {
            value_us: t.max(h.value_us),
            beyond: false,
        }),
        (Some(t), None) => Some(Percentile {
            value_us: t,
            beyond: false,
        }),
        (None, h) => h,
    }
}

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
    let tails: Vec<Option<LatencyTails>> = lat.iter().map(|l| l.and_then(column_tails)).collect();
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
                    let l = (*l)?;
                    let h = l.thread_histograms.iter().find(|h| h.thread == thread)?;
                    latency_tails(
                        &h.buckets,
                        h.overflows,
                        h.max_us,
                        l.bucket_us.unwrap_or(1.0),
                    )
                })
                .collect(),
        })
        .collect();

    let mut worst: Vec<WorstRow> = Vec::new();
    // cyclictest first, then each tracer in order of first appearance.
    let cyc: Vec<Option<Percentile>> = lat
        .iter()
        .zip(&tails)
        .map(|(l, t)| l.and_then(|l| cyclictest_worst(l, t.as_ref())))
        .collect();
    if cyc.iter().any(Option::is_some) {
        worst.push(WorstRow {
            kind: "cyclictest".to_string(),
            label: "cyclictest max".to_string(),
            n_runs: lat
                .iter()
                .map(|l| {
                    l.map_or(0, |l| {
                        l.per_thread
                            .iter()
                            .map(|t| t.n_runs)
                            .max()
                            .unwrap_or(u32::from(
                                !l.histogram.is_empty() || !l.thread_histograms.is_empty(),
                            ))
                    })
                })
                .collect(),
            culprits: vec![None; lat.len()],
            cells: cyc,
        });
    }
    let mut tracers: Vec<String> = Vec::new();
    for l in lat.iter().flatten() {
        for t in &l.traces {
            if !tracers.contains(&t.tracer) {
                tracers.push(t.tracer.clone());
            }
        }
    }
    for tracer in tracers {
        let of = |l: &Option<&LatencyColumn>| -> Option<TraceSummary> {
            l.and_then(|l| {
                l.traces
                    .iter()
                    .filter(|t| t.tracer == tracer && t.latency_us.is_finite())
                    .max_by(|a, b| a.latency_us.total_cmp(&b.latency_us))
                    .cloned()
            })
        };
        let per: Vec<Option<TraceSummary>> = lat.iter().map(of).collect();
        let kind_name = tracer.clone();
        worst.push(WorstRow {
            label: format!("{tracer} trace"),
            kind: tracer,
            cells: per
                .iter()
                .map(|t| {
                    t.as_ref().map(|t| Percentile {
                        value_us: t.latency_us,
                        beyond: false,
                    })
                })
                .collect(),
            culprits: per
                .iter()
                .map(|t| {
                    t.as_ref()
                        .and_then(|t| t.culprit.clone())
                        .filter(|c| !c.is_empty())
                })
                .collect(),
            n_runs: lat
                .iter()
                .map(|l| {
                    l.map_or(0, |l| {
                        l.traces
                            .iter()
                            .filter(|t| t.tracer == kind_name)
                            .map(|t| t.n_runs)
                            .sum()
                    })
                })
                .collect(),
        });
    }
    let mut culprit_diffs = Vec::new();
    for row in &worst {
        let Some(Some(base)) = row.cells.get(baseline) else {
            continue;
        };
        for (i, cell) in row.cells.iter().enumerate() {
            let Some(cell) = cell.filter(|_| i != baseline) else {
                continue;
            };
            let mut sentence = format!(
                "{}: {}",
                row.label,
                culprit_sentence_p(
                    Some(*base),
                    Some(cell),
                    row.culprits[baseline].as_deref(),
                    row.culprits[i].as_deref(),
                )
            );
            let (nb, na) = (row.n_runs[baseline], row.n_runs[i]);
            if nb < MIN_SAMPLES_FOR_TESTS as u32 || na < MIN_SAMPLES_FOR_TESTS as u32 {
                let n = if nb == na {
                    format!("n={nb} each")
                } else {
                    format!("n={nb}/{na}")
                };
                sentence.push_str(&format!("; {n}, not assessed"));
            }
            culprit_diffs.push(CulpritDiff {
                column: i,
                against: baseline,
                kind: row.kind.clone(),
                sentence,
            });
        }
    }
    Some(LatencyComparison {
        threads,
        tails,
        thread_tails,
        worst,
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

/// The culprit diff sentence:
/// `max 1969 us -> 879 us (-55%); culprit changed from A to B`, or
/// `...; culprit unchanged: A`. The % is the raw change of the maximum
/// (negative = lower latency), as written in mails.
pub fn culprit_sentence(
    before_us: Option<f64>,
    after_us: Option<f64>,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let p = |v: Option<f64>| {
        v.map(|value_us| Percentile {
            value_us,
            beyond: false,
        })
    };
    culprit_sentence_p(p(before_us), p(after_us), before, after)
}

fn culprit_sentence_p(
    before_us: Option<Percentile>,
    after_us: Option<Percentile>,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let show =
        |v: Option<Percentile>| v.map_or_else(|| "?".to_string(), |v| format!("{} us", v.show()));
    let mut s = format!("max {} -> {}", show(before_us), show(after_us));
    if let (Some(b), Some(a)) = (before_us, after_us)
        && !b.beyond
        && !a.beyond
        && b.value_us != 0.0
        && b.value_us.is_finite()
        && a.value_us.is_finite()
    {
        let pct = pct_change(b.value_us, a.value_us);
        // Latency: lower is better, as for every latency metric.
        let word = match Judgement::of(pct, Better::Lower) {
            _ if pct.is_none_or(|p| p.abs() < 0.5) => "",
            Judgement::Better => ", better",
            Judgement::Worse => ", worse",
            _ => "",
        };
        s.push_str(&format!(" ({}{word})", fmt::pct_whole(pct)));
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
