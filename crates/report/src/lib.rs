//! reclaimlab-report: pure statistics and renderings for comparisons of
//! runs (kernel patch variants, boards, kernels).
//!
//! No IO, no async, no SQL, no clock: the same input always gives the same
//! output bytes, which is what keeps a frozen permalink identical when it is
//! re-rendered. Nothing here panics on data: NaN, empty samples, zero
//! baselines or a bad baseline index end up as `None` values and verdict
//! strings that say what could not be computed.
//!
//! # Tour
//!
//! - [`compare::compare`] turns a [`compare::ComparisonInput`] (columns of
//!   runs with per-run metric samples, printed summaries and latency data,
//!   plus a baseline index and whether to chain each column to the previous
//!   one) into a [`compare::Comparison`]: per metric and column the mean,
//!   stddev, CoV, min, max, n, % change against the baseline and the
//!   previous column with verdicts; per-thread latency, histogram tails and
//!   the culprit diff sentence.
//! - [`model`] is the measurement from ingest to page: a metric with its
//!   identity, unit and direction, a run's latency summary and metric
//!   samples, a column of runs, and [`model::comparison_input`] that pools
//!   them into a `ComparisonInput`.
//! - [`text::render_text`] lays a `Comparison` out as mmtests-style plain
//!   text of at most 72 columns with the permalink in the footer.
//! - [`svg`] draws the histogram overlay, heatmap, bar chart and sweep plot.
//! - [`stats`] holds the numerical routines, checked against scipy/numpy.
//!
//! # Statistical choices
//!
//! - **Mean**: harmonic for higher-is-better metrics (rates, throughput),
//!   arithmetic for lower-is-better ones (times, latencies), as mmtests
//!   does; a metric may override it ([`compare::mean_kind_for`]).
//! - **% change**: the raw change of the mean, `(new - old) / |old|`,
//!   relative to the reference column; whether it is better or worse is a
//!   separate judgement from the metric's direction, which comes from data
//!   ([`direction`]: the uploader, an mmtests printed gain, or the direction
//!   table), never guessed. A delta printed in an imported table is kept as
//!   printed beside it.
//! - **Identity**: metrics are compared only within their scope (one
//!   printed table, or one tool's run-to-run measurements), statistic, name
//!   and unit.
//! - **Spread**: sample stddev (n-1); CoV = stddev / |mean|, shown in %.
//!   The baseline's CoV is the noise floor.
//! - **Tests**, only when both sides have n >= 3 run-to-run samples:
//!   Welch's t-test (two-sided), its p-values adjusted with Holm-Bonferroni
//!   over all the tests of a comparison, decides the marks, `*` for an
//!   adjusted p < 0.05 and `**` for < 0.01; Mann-Whitney U (two-sided; exact for small samples
//!   without ties, else normal approximation with tie and continuity
//!   corrections, as scipy) is reported beside it and the verdict says when
//!   it does not confirm a Welch result; a 95% percentile-bootstrap interval
//!   for the difference of medians (2000 resamples, fixed seed). Below
//!   n = 3 on either side, or for printed single summaries, nothing is
//!   called significant: the verdict reads "n=1, cannot assess" (with the
//!   actual n).
//! - **Percentiles**: of samples, numpy's default linear interpolation;
//!   of histograms, nearest rank on bucket lower bounds (numpy
//!   `method="inverted_cdf"` on the expanded samples).
//! - **Culprit diff**: the worst latency of each kind (cyclictest max from
//!   summaries and histogram footers; each tracer's worst report) and the
//!   culprit of each column against the baseline's of the same kind, e.g.
//!   `wakeup_rt trace: max 1969 us -> 879 us (-55%); culprit changed from
//!   madvise_cold_or_pageout_pte_range to free_unref_page_list`.
//!
//! docs/COMPARING.md explains every number for readers.

pub mod compare;
pub mod direction;
pub mod fmt;
pub mod model;
pub mod stats;
pub mod svg;
pub mod text;
