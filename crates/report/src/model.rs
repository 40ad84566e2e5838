//! The measurement model, from ingest to page: one metric value with its
//! identity, unit and direction ([`Metric`]), as stored under its table
//! ([`MetricValue`]), and what a comparison reads of a run ([`RunData`])
//! and of a column of runs ([`ColumnRuns`]), turned into the comparison's
//! input by [`comparison_input`].
//!
//! Ingest plans [`Metric`]s, storage writes and reads them, the run page
//! shows them and the comparison pools them: a field of a measurement is
//! added here once. The database reads into these types in the service's
//! `storage` module; nothing here does IO.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::compare::{
    ColumnInput, ComparisonInput, LatencyColumn, MetricSamples, PrintedSummary, RunRef,
    ThreadHistogram, ThreadLatency, TraceSummary,
};
use crate::direction::{self, DirectionSource, MetricFacts};

/// Which direction is an improvement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Times, latencies, CPU usage.
    Lower,
    /// Throughput, rates.
    Higher,
    /// No direction: activity counters (`pgscan`), or a metric the
    /// direction table does not know. Shown, never judged.
    #[default]
    Neutral,
}

impl Better {
    /// "lower is better", "higher is better", "not judged".
    pub fn words(self) -> &'static str {
        match self {
            Better::Lower => "lower is better",
            Better::Higher => "higher is better",
            Better::Neutral => "not judged",
        }
    }

    /// The stored word: `higher`, `lower`, `neutral`.
    pub fn word(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
            Better::Neutral => "neutral",
        }
    }

    /// Reads a stored word; a word this version does not know is not set.
    pub fn from_word(s: &str) -> Option<Better> {
        match s {
            "higher" => Some(Better::Higher),
            "lower" => Some(Better::Lower),
            "neutral" => Some(Better::Neutral),
            _ => None,
        }
    }
}

/// How a printed delta is signed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaConvention {
    /// The raw change of the value (LKP `%change`, hand-made `delta`).
    #[default]
    Change,
    /// mmtests' gain: positive = better, signed by the test's direction.
    Gain,
}

impl DeltaConvention {
    /// The stored word: `change`, `gain`.
    pub fn word(self) -> &'static str {
        match self {
            DeltaConvention::Change => "change",
            DeltaConvention::Gain => "gain",
        }
    }

    /// Reads a stored word; a word this version does not know is not set.
    pub fn from_word(s: &str) -> Option<DeltaConvention> {
        match s {
            "change" => Some(DeltaConvention::Change),
            "gain" => Some(DeltaConvention::Gain),
            _ => None,
        }
    }
}

/// One metric value of a run: what ingest plans and stores, and what the
/// run page and comparisons read back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Metric {
    pub name: String,
    pub stat: Option<String>,
    pub value: f64,
    pub unit: Option<String>,
    pub printed_delta_pct: Option<f64>,
    pub spread_pct: Option<f64>,
    /// Set where the upload said so or a printed mmtests gain tells;
    /// otherwise the direction table decides when the metric is read.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::direction))]
    pub direction: Option<Better>,
    /// "upload" or "printed" when `direction` is set.
    pub direction_source: Option<String>,
    /// How `printed_delta_pct` is signed.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::delta_convention))]
    pub delta_convention: Option<DeltaConvention>,
}

/// A stored metric: the value as ingest planned it and the table it was
/// stored under. Reads as the [`Metric`] it holds (`m.name`, `m.value`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetricValue {
    #[serde(flatten)]
    pub metric: Metric,
    /// The table or test the value belongs to (its identity scope).
    pub scope: String,
    pub section: Option<String>,
}

impl std::ops::Deref for MetricValue {
    type Target = Metric;
    fn deref(&self) -> &Metric {
        &self.metric
    }
}

/// The strings of a stored metric, kept once per column for all the rows
/// that share them (a chain comparison has about 10 000 metric rows and a
/// few hundred distinct identities).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricIdent {
    pub name: String,
    pub stat: Option<String>,
    pub unit: Option<String>,
    /// The table or test the value belongs to (its identity scope).
    pub scope: String,
    pub section: Option<String>,
    pub direction: Option<Better>,
    pub direction_source: Option<String>,
    pub delta_convention: Option<DeltaConvention>,
}

impl MetricIdent {
    /// The stored metric of this identity with its numbers.
    pub fn with_numbers(
        self,
        value: f64,
        printed_delta_pct: Option<f64>,
        spread_pct: Option<f64>,
    ) -> MetricValue {
        MetricValue {
            metric: Metric {
                name: self.name,
                stat: self.stat,
                value,
                unit: self.unit,
                printed_delta_pct,
                spread_pct,
                direction: self.direction,
                direction_source: self.direction_source,
                delta_convention: self.delta_convention,
            },
            scope: self.scope,
            section: self.section,
        }
    }

    /// Which way is better, in a block of `tool`: see [`direction_of`].
    pub fn direction_in(&self, tool: Option<&str>) -> (Better, DirectionSource) {
        direction_of(
            self.direction,
            self.direction_source.as_deref(),
            facts(&self.name, self.unit.as_deref(), self.stat.as_deref(), tool),
        )
    }
}

/// One metric row of a run: its numbers and the index of its strings in
/// [`ColumnRuns::metric_idents`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricSample {
    pub ident: u32,
    pub value: f64,
    pub printed_delta_pct: Option<f64>,
    pub spread_pct: Option<f64>,
}

/// Which way is better for a stored metric: the upload's or the printed
/// table's word when stored (with whose word it is), else the direction
/// table's.
pub fn direction_of(
    stored: Option<Better>,
    source: Option<&str>,
    facts: MetricFacts<'_>,
) -> (Better, DirectionSource) {
    match stored {
        Some(b) => (
            b,
            match source {
                Some("printed") => DirectionSource::Printed,
                _ => DirectionSource::Upload,
            },
        ),
        None => direction::lookup(facts),
    }
}

/// What the direction table looks at for a stored metric.
fn facts<'a>(
    name: &'a str,
    unit: Option<&'a str>,
    stat: Option<&'a str>,
    tool: Option<&'a str>,
) -> MetricFacts<'a> {
    MetricFacts {
        name,
        unit: unit.unwrap_or(""),
        stat,
        tool,
    }
}

/// A run's histogram footer for one thread: bucket width, overflows and
/// the printed maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistFooter {
    pub thread: u32,
    pub bucket_us: f64,
    pub overflows: u64,
    pub max_us: Option<f64>,
}

/// A run's latency summary: its cyclictest thread lines (each with
/// `n_runs` 1), histogram footers and latency trace (without its stack).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunLatency {
    /// By thread.
    pub threads: Vec<ThreadLatency>,
    /// By thread.
    pub hist_footers: Vec<HistFooter>,
    pub trace: Option<TraceSummary>,
}

/// One run with what a comparison reads of its results.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    pub id: i64,
    pub upload_id: Option<i64>,
    pub block_index: i32,
    pub column_index: i32,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    /// `measured` or `simulated`.
    pub kind: String,
    pub title: Option<String>,
    /// The block's tool (`stress-ng`, `vmstat`, ...) or table style
    /// (`mmtests`, `lkp`, `plain`), else its kind: an input of the
    /// direction table.
    pub tool: String,
    /// `cyclictest`, `ftrace_latency`, `distribution`, ...
    pub block_kind: String,
    pub latency: RunLatency,
    /// The run's metric rows in stored order; their strings are in the
    /// column's [`ColumnRuns::metric_idents`].
    pub metrics: Vec<MetricSample>,
}

/// One histogram bucket of one thread, summed over a column's cyclictest
/// runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketSum {
    pub thread: u32,
    pub lower_us: f64,
    pub count: u64,
}

/// The runs of one column and their cyclictest histograms, summed per
/// thread and bucket (a column of 500 runs has tens of thousands of
/// bucket rows; the comparison needs only their sums).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnRuns {
    /// Oldest first.
    pub runs: Vec<RunData>,
    /// More runs matched than a column holds: the older ones are left out.
    pub more: bool,
    /// Ordered by thread, then bucket.
    pub cyclictest_buckets: Vec<BucketSum>,
    /// The distinct strings of the runs' metric rows.
    pub metric_idents: Vec<MetricIdent>,
}

/// The comparison's input from the runs of each column, each with its
/// label.
pub fn comparison_input(
    title: &str,
    columns: &[(String, &ColumnRuns)],
    baseline: usize,
    chain_previous: bool,
) -> ComparisonInput {
    // Where each (upload, block) table's first column landed, so printed
    // deltas can name the column they are relative to.
    let mut first_col_of: BTreeMap<(i64, i32), usize> = BTreeMap::new();
    for (ci, (_, col)) in columns.iter().enumerate() {
        for r in &col.runs {
            if let Some(u) = r.upload_id.filter(|_| r.column_index == 0) {
                first_col_of.entry((u, r.block_index)).or_insert(ci);
            }
        }
    }
    let cols = columns
        .iter()
        .map(|(label, col)| column_input(label, col, &first_col_of))
        .collect();
    ComparisonInput {
        title: title.to_string(),
        columns: cols,
        baseline,
        chain_previous,
    }
}

fn column_input(
    label: &str,
    col: &ColumnRuns,
    first_col_of: &BTreeMap<(i64, i32), usize>,
) -> ColumnInput {
    let mut metrics: Vec<MetricSamples> = Vec::new();
    // Metric identity: scope, printed statistic, name, unit. Several
    // stored identities (rows that differ in section or direction) may be
    // one metric: each maps to the metric of the first row seen.
    type Key<'a> = (&'a str, Option<&'a str>, &'a str, &'a str);
    let mut index: BTreeMap<Key<'_>, usize> = BTreeMap::new();
    let mut of_ident: Vec<Option<usize>> = vec![None; col.metric_idents.len()];
    let runs = &col.runs;
    for r in runs {
        for m in &r.metrics {
            let ident = &col.metric_idents[m.ident as usize];
            let pos = match of_ident[m.ident as usize] {
                Some(pos) => pos,
                None => {
                    let key = (
                        ident.scope.as_str(),
                        ident.stat.as_deref(),
                        ident.name.as_str(),
                        ident.unit.as_deref().unwrap_or(""),
                    );
                    let pos = *index.entry(key).or_insert_with(|| {
                        // A printed statistic (Min, Stddev, ...) is part of
                        // the identity and shown in its own column, not in
                        // the name.
                        let (better, direction_source) = ident.direction_in(Some(r.tool.as_str()));
                        metrics.push(MetricSamples {
                            scope: ident.scope.clone(),
                            section: ident.section.clone().unwrap_or_default(),
                            better,
                            direction_source,
                            name: ident.name.clone(),
                            unit: ident.unit.clone().unwrap_or_default(),
                            ..MetricSamples::default()
                        });
                        metrics.len() - 1
                    });
                    of_ident[m.ident as usize] = Some(pos);
                    pos
                }
            };
            let ms = &mut metrics[pos];
            match &ident.stat {
                Some(stat) => {
                    // A printed summary: keep the first one seen (the same
                    // table seen twice, e.g. quoted).
                    if ms.printed.is_none() {
                        let relative_to = if r.column_index > 0 {
                            r.upload_id
                                .and_then(|u| first_col_of.get(&(u, r.block_index)).copied())
                        } else {
                            None
                        };
                        ms.printed = Some(PrintedSummary {
                            stat: stat.clone(),
                            value: m.value,
                            printed_delta_pct: if r.column_index > 0 {
                                m.printed_delta_pct
                            } else {
                                None
                            },
                            printed_convention: ident.delta_convention.unwrap_or_default(),
                            relative_to,
                        });
                    }
                }
                None => {
                    ms.samples.push(m.value);
                    // The printed spread describes the one value it was
                    // printed beside; pooled values have their own.
                    ms.printed_spread_pct = if ms.samples.len() == 1 {
                        m.spread_pct
                    } else {
                        None
                    };
                    // A hand-made or LKP table's own delta column, kept as
                    // printed beside the value.
                    if let (Some(d), Some(u)) = (m.printed_delta_pct, r.upload_id)
                        && r.column_index > 0
                        && ms.printed.is_none()
                    {
                        ms.printed = Some(PrintedSummary {
                            stat: String::new(),
                            value: m.value,
                            printed_delta_pct: Some(d),
                            printed_convention: ident.delta_convention.unwrap_or_default(),
                            relative_to: first_col_of.get(&(u, r.block_index)).copied(),
                        });
                    }
                }
            }
        }
    }
    ColumnInput {
        label: label.to_string(),
        simulated: !runs.is_empty() && runs.iter().all(|r| r.kind == "simulated"),
        runs: runs
            .iter()
            .map(|r| RunRef {
                id: r.id,
                board: r.board.clone(),
                kernel: r.kernel.clone(),
                variant: r.variant.clone(),
            })
            .collect(),
        metrics,
        latency: latency_column(col),
    }
}

fn latency_column(col: &ColumnRuns) -> Option<LatencyColumn> {
    let runs = &col.runs;
    let mut threads: BTreeMap<u32, ThreadLatency> = BTreeMap::new();
    let mut avg_sum: BTreeMap<u32, f64> = BTreeMap::new();
    let mut merged: BTreeMap<u64, (f64, u64)> = BTreeMap::new();
    /// Buckets by lower bound, overflows, printed maximum.
    type ThreadHist = (BTreeMap<u64, (f64, u64)>, u64, Option<f64>);
    let mut per_thread_hist: BTreeMap<u32, ThreadHist> = BTreeMap::new();
    let mut traces: Vec<TraceSummary> = Vec::new();
    let mut bucket_us: Option<f64> = None;
    let mut any = false;
    for r in runs {
        for t in &r.latency.threads {
            any = true;
            let th = t.thread;
            let e = threads.entry(th).or_insert(ThreadLatency {
                thread: th,
                min_us: f64::INFINITY,
                avg_us: 0.0,
                max_us: f64::NEG_INFINITY,
                n_runs: 0,
            });
            e.min_us = e.min_us.min(t.min_us);
            e.max_us = e.max_us.max(t.max_us);
            e.n_runs += 1;
            *avg_sum.entry(th).or_default() += t.avg_us;
        }
        let cyclictest = r.block_kind == "cyclictest";
        for h in r.latency.hist_footers.iter().filter(|_| cyclictest) {
            any = true;
            let pt = per_thread_hist.entry(h.thread).or_default();
            pt.1 = pt.1.saturating_add(h.overflows);
            if let Some(m) = h.max_us.filter(|m| m.is_finite()) {
                pt.2 = Some(pt.2.map_or(m, |x: f64| x.max(m)));
            }
            if h.bucket_us.is_finite() && h.bucket_us > 0.0 {
                bucket_us = Some(bucket_us.map_or(h.bucket_us, |b: f64| b.min(h.bucket_us)));
            }
        }
        if let Some(t) = &r.latency.trace {
            any = true;
            traces.push(TraceSummary {
                n_runs: 1,
                ..t.clone()
            });
        }
    }
    // Only cyclictest histograms are cyclictest latency (a bpftrace or BCC
    // distribution is its own scope: its percentiles are metrics); the
    // database summed them per thread and bucket.
    for b in &col.cyclictest_buckets {
        any = true;
        let key = b.lower_us.to_bits();
        let e = merged.entry(key).or_insert((b.lower_us, 0));
        e.1 += b.count;
        let pt = per_thread_hist.entry(b.thread).or_default();
        let e = pt.0.entry(key).or_insert((b.lower_us, 0));
        e.1 += b.count;
    }
    if !any {
        return None;
    }
    for (th, e) in threads.iter_mut() {
        e.avg_us = avg_sum.get(th).copied().unwrap_or(0.0) / f64::from(e.n_runs.max(1));
    }
    let sort = |m: BTreeMap<u64, (f64, u64)>| {
        let mut v: Vec<(f64, u64)> = m.into_values().collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    Some(LatencyColumn {
        per_thread: threads.into_values().collect(),
        histogram: sort(merged),
        thread_histograms: per_thread_hist
            .into_iter()
            .map(|(thread, (m, overflows, max_us))| ThreadHistogram {
                thread,
                buckets: sort(m),
                overflows,
                max_us,
            })
            .collect(),
        overflows: 0,
        histogram_max_us: None,
        bucket_us,
        traces,
    })
}

/// The OpenAPI schemas of the stored words (`None`: not set).
#[cfg(feature = "openapi")]
mod openapi {
    use serde_json::{Value, json};
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};

    /// `schema_with` of a metric's stored direction (none: the direction
    /// table decides).
    pub fn direction() -> ObjectBuilder {
        ObjectBuilder::new()
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .enum_values(Some([
                json!("higher"),
                json!("lower"),
                json!("neutral"),
                Value::Null,
            ]))
    }

    /// `schema_with` of how a metric's printed delta is signed.
    pub fn delta_convention() -> ObjectBuilder {
        ObjectBuilder::new()
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .enum_values(Some([json!("gain"), json!("change"), Value::Null]))
    }
}
