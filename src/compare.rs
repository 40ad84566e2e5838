//! Comparisons: column specs (what the user asks for), and turning stored
//! runs into the report crate's `ComparisonInput`. No SQL here (see
//! `storage::compare`); statistics live in `reclaimlab_report`.
//!
//! A column is written `variant:batch-v1;board:i7-4790;kernel:6.12.0-rc5`
//! (any subset of board, kernel, variant, kind, plus `label:`), or
//! `runs:1,2,3`. Fields are separated by `;` because board names may
//! contain commas.

use std::collections::BTreeMap;

use reclaimlab_report::compare::{
    ColumnInput, ComparisonInput, DeltaConvention, LatencyColumn, MetricSamples, PrintedSummary,
    RunRef, ThreadHistogram, ThreadLatency, TraceSummary,
};
use reclaimlab_report::direction::{self, DirectionSource, MetricFacts};
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::storage::compare::{ColumnRuns, RunData};

pub const MAX_COLUMNS: usize = 12;
/// Most runs one column holds: the newest ones, with a note on the
/// comparison when older ones are left out. Enough for any test's power;
/// a dashboard column reads a bounded number of rows at any database size.
pub const MAX_RUNS_PER_COLUMN: i64 = 200;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Column)]
pub struct ColumnSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// "measured" or "simulated".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::web::api::doc::run_kind)]
    pub kind: Option<String>,
    /// Runs of one simulation job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulation: Option<i64>,
}

impl ColumnSpec {
    pub fn parse(s: &str) -> Result<ColumnSpec, AppError> {
        let mut c = ColumnSpec::default();
        for part in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once(':').ok_or_else(|| {
                AppError::BadRequest(format!("column field '{part}' must be key:value"))
            })?;
            let v = v.trim().to_string();
            match k.trim() {
                "runs" => {
                    c.runs = v
                        .split(',')
                        .filter(|x| !x.trim().is_empty())
                        .map(|x| {
                            x.trim()
                                .trim_start_matches('#')
                                .parse::<i64>()
                                .map_err(|_| {
                                    AppError::BadRequest(format!("'{x}' in runs: is not a run id"))
                                })
                        })
                        .collect::<Result<_, _>>()?
                }
                "board" => c.board = Some(v),
                "kernel" => c.kernel = Some(v),
                "variant" => c.variant = Some(v),
                "kind" => {
                    if v != "measured" && v != "simulated" {
                        return Err(AppError::BadRequest(format!(
                            "kind must be measured or simulated, not '{v}'"
                        )));
                    }
                    c.kind = Some(v)
                }
                "label" => c.label = Some(v),
                "simulation" => {
                    c.simulation = Some(v.trim().parse().map_err(|_| {
                        AppError::BadRequest(format!("simulation:{v} is not a simulation id"))
                    })?)
                }
                other => {
                    return Err(AppError::BadRequest(format!(
                        "unknown column field '{other}' (expected runs, board, kernel, variant, kind, simulation, label)"
                    )));
                }
            }
        }
        if c.runs.is_empty()
            && c.board.is_none()
            && c.kernel.is_none()
            && c.variant.is_none()
            && c.simulation.is_none()
        {
            return Err(AppError::BadRequest(format!(
                "column '{s}' selects nothing: give runs: or at least one of board, kernel, variant, simulation"
            )));
        }
        Ok(c)
    }

    pub fn to_param(&self) -> String {
        let mut parts = Vec::new();
        if !self.runs.is_empty() {
            parts.push(format!(
                "runs:{}",
                self.runs
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        for (k, v) in [
            ("variant", &self.variant),
            ("board", &self.board),
            ("kernel", &self.kernel),
            ("kind", &self.kind),
            ("label", &self.label),
        ] {
            if let Some(v) = v {
                parts.push(format!("{k}:{v}"));
            }
        }
        if let Some(s) = self.simulation {
            parts.push(format!("simulation:{s}"));
        }
        parts.join(";")
    }

    /// A label when none was given: what distinguishes the column.
    pub fn default_label(&self, runs: &[RunData]) -> String {
        if let Some(l) = &self.label {
            return l.clone();
        }
        let mut parts: Vec<String> = Vec::new();
        let mut variants: Vec<&str> = runs.iter().map(|r| r.variant.as_str()).collect();
        variants.sort();
        variants.dedup();
        match (&self.variant, variants.as_slice()) {
            (Some(v), _) => parts.push(v.clone()),
            (None, [one]) => parts.push(one.to_string()),
            _ => {}
        }
        if let Some(k) = &self.kernel {
            parts.push(k.clone());
        }
        if let Some(b) = self.board.as_ref().filter(|_| parts.is_empty()) {
            parts.push(b.clone());
        }
        if parts.is_empty() {
            parts.push(format!(
                "runs {}",
                runs.iter()
                    .map(|r| r.id.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        parts.join(" ")
    }
}

/// Which way is better for a stored metric: the upload's or the printed
/// table's word when stored, else the report crate's direction table.
pub fn direction_of(
    m: &crate::ingest::MetricRow,
    tool: Option<&str>,
) -> (reclaimlab_report::compare::Better, DirectionSource) {
    direction_from(
        m.direction,
        m.direction_source.as_deref(),
        facts(&m.name, m.unit.as_deref(), m.stat.as_deref(), tool),
    )
}

/// [`direction_of`] for a metric identity of a loaded column (its words as
/// stored).
fn direction_of_ident(
    m: &crate::storage::compare::MetricIdent,
    tool: Option<&str>,
) -> (reclaimlab_report::compare::Better, DirectionSource) {
    direction_from(
        m.direction
            .as_deref()
            .and_then(crate::ingest::better_from_str),
        m.direction_source.as_deref(),
        facts(&m.name, m.unit.as_deref(), m.stat.as_deref(), tool),
    )
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

/// The stored direction with whose word it is, else the direction table's.
fn direction_from(
    stored: Option<reclaimlab_report::compare::Better>,
    source: Option<&str>,
    facts: MetricFacts<'_>,
) -> (reclaimlab_report::compare::Better, DirectionSource) {
    match stored {
        Some(b) => (b, source_of(source)),
        None => direction::lookup(facts),
    }
}

/// Whose word a stored direction is: the printed table's or the uploader's.
fn source_of(stored: Option<&str>) -> DirectionSource {
    match stored {
        Some("printed") => DirectionSource::Printed,
        _ => DirectionSource::Upload,
    }
}

/// Build the report input from the runs of each column.
pub fn build_input(
    title: &str,
    specs: &[ColumnSpec],
    columns: &[ColumnRuns],
    baseline: usize,
    chain_previous: bool,
) -> ComparisonInput {
    // Where each (upload, block) table's first column landed, so printed
    // deltas can name the column they are relative to.
    let mut first_col_of: BTreeMap<(i64, i32), usize> = BTreeMap::new();
    for (ci, col) in columns.iter().enumerate() {
        for r in &col.runs {
            if let Some(u) = r.upload_id.filter(|_| r.column_index == 0) {
                first_col_of.entry((u, r.block_index)).or_insert(ci);
            }
        }
    }
    let cols = specs
        .iter()
        .zip(columns)
        .map(|(spec, col)| build_column(spec, col, &first_col_of))
        .collect();
    ComparisonInput {
        title: title.to_string(),
        columns: cols,
        baseline,
        chain_previous,
    }
}

fn build_column(
    spec: &ColumnSpec,
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
                        let (better, direction_source) =
                            direction_of_ident(ident, Some(r.tool.as_str()));
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
                            printed_convention: match ident.delta_convention.as_deref() {
                                Some("gain") => DeltaConvention::Gain,
                                _ => DeltaConvention::Change,
                            },
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
                            printed_convention: match ident.delta_convention.as_deref() {
                                Some("gain") => DeltaConvention::Gain,
                                _ => DeltaConvention::Change,
                            },
                            relative_to: first_col_of.get(&(u, r.block_index)).copied(),
                        });
                    }
                }
            }
        }
    }
    ColumnInput {
        label: spec.default_label(runs),
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
        for t in &r.threads {
            any = true;
            let th = t.thread.max(0) as u32;
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
        for h in r.hist_threads.iter().filter(|_| cyclictest) {
            any = true;
            let pt = per_thread_hist.entry(h.thread.max(0) as u32).or_default();
            pt.1 = pt.1.saturating_add(h.overflows.max(0) as u64);
            if let Some(m) = h.max_us.filter(|m| m.is_finite()) {
                pt.2 = Some(pt.2.map_or(m, |x: f64| x.max(m)));
            }
            if h.bucket_us.is_finite() && h.bucket_us > 0.0 {
                bucket_us = Some(bucket_us.map_or(h.bucket_us, |b: f64| b.min(h.bucket_us)));
            }
        }
        if let Some(t) = &r.trace {
            any = true;
            traces.push(TraceSummary {
                tracer: t.tracer.clone(),
                latency_us: t.latency_us,
                culprit: t.culprit.clone(),
                culprit_path: t.culprit_path.clone(),
                n_runs: 1,
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
        e.1 += b.count.max(0) as u64;
        let pt = per_thread_hist.entry(b.thread.max(0) as u32).or_default();
        let e = pt.0.entry(key).or_insert((b.lower_us, 0));
        e.1 += b.count.max(0) as u64;
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

/// The columns of a variant chain: from the root ancestor down to `variant`.
pub fn chain_specs(chain: &[String], board: Option<&str>) -> Vec<ColumnSpec> {
    chain
        .iter()
        .map(|v| ColumnSpec {
            variant: Some(v.clone()),
            board: board.map(str::to_string),
            ..ColumnSpec::default()
        })
        .collect()
}

/// A comparison request, from the API or the compare page.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ComparisonRequest)]
pub struct CompareRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[schema(max_items = 12)]
    pub columns: Vec<ColumnSpec>,
    /// The column the others are compared with.
    #[serde(default)]
    pub baseline: usize,
    /// Also compare each column with the previous one (default: true for
    /// chains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_previous: Option<bool>,
    /// Runs shown beside the comparison and compared with nothing (at most
    /// [`MAX_CONTEXT_RUNS`]): evidence no variant was named for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 20)]
    pub context: Vec<i64>,
}

/// At most this many runs beside a comparison.
pub const MAX_CONTEXT_RUNS: usize = 20;

/// A resolved comparison: the runs of each column and the statistics.
pub struct Resolved {
    pub request: CompareRequest,
    pub comparison: reclaimlab_report::compare::Comparison,
    pub run_ids: Vec<i64>,
}

/// What a resolved comparison is for: a live page shows tests, deltas and
/// verdicts but no bootstrap interval, so it is not computed there (it is
/// most of the CPU time of a column of hundreds of runs); a permalink and
/// the JSON forms carry every statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Page,
    Full,
}

pub async fn resolve(
    pool: &sqlx::PgPool,
    req: CompareRequest,
    detail: Detail,
) -> Result<Resolved, AppError> {
    if req.columns.is_empty() {
        return Err(AppError::BadRequest(
            "a comparison needs at least one column".into(),
        ));
    }
    if req.columns.len() > MAX_COLUMNS {
        return Err(AppError::BadRequest(format!(
            "at most {MAX_COLUMNS} columns"
        )));
    }
    if req.baseline >= req.columns.len() {
        return Err(AppError::BadRequest(format!(
            "baseline {} is not a column (0 to {})",
            req.baseline,
            req.columns.len() - 1
        )));
    }
    if req.context.len() > MAX_CONTEXT_RUNS {
        return Err(AppError::BadRequest(format!(
            "at most {MAX_CONTEXT_RUNS} context runs"
        )));
    }
    for (i, spec) in req.columns.iter().enumerate() {
        if !spec.runs.is_empty() && spec.runs.len() as i64 > MAX_RUNS_PER_COLUMN {
            return Err(AppError::BadRequest(format!(
                "column {i} names more than {MAX_RUNS_PER_COLUMN} runs"
            )));
        }
    }
    // The columns load side by side, each on its own pooled connection.
    let columns: Vec<ColumnRuns> = futures_util::future::try_join_all(
        req.columns
            .iter()
            .map(|spec| crate::storage::compare::column_runs(pool, spec)),
    )
    .await?;
    for (i, (spec, col)) in req.columns.iter().zip(&columns).enumerate() {
        if !spec.runs.is_empty() {
            let found: std::collections::BTreeSet<i64> = col.runs.iter().map(|r| r.id).collect();
            if let Some(missing) = spec.runs.iter().find(|id| !found.contains(id)) {
                return Err(AppError::NotFound(format!(
                    "run {missing} (column {i}) not found"
                )));
            }
        }
    }
    let title = req.title.clone().unwrap_or_else(|| {
        req.columns
            .iter()
            .zip(&columns)
            .map(|(s, c)| s.default_label(&c.runs))
            .collect::<Vec<_>>()
            .join(" vs ")
    });
    let chain_previous = req.chain_previous.unwrap_or(false);
    let run_ids = columns.iter().flat_map(|c| &c.runs).map(|r| r.id).collect();
    let more: Vec<bool> = columns.iter().map(|c| c.more).collect();
    let mut opts = reclaimlab_report::compare::CompareOptions::default();
    if detail == Detail::Page {
        opts.bootstrap_resamples = 0;
    }
    // Building the input walks every metric row: it runs with the
    // statistics, off the async runtime.
    let (specs, baseline) = (req.columns.clone(), req.baseline);
    let mut comparison = tokio::task::spawn_blocking(move || {
        let input = build_input(&title, &specs, &columns, baseline, chain_previous);
        drop(columns);
        reclaimlab_report::compare::compare_with(&input, &opts)
    })
    .await
    .map_err(|e| AppError::Internal(anyhow::anyhow!("comparison task failed: {e}")))?;
    comparison.context = context_runs(pool, &req.context).await?;
    for (c, more) in comparison.columns.iter().zip(more) {
        if more {
            comparison.notes.push(format!(
                "{}: the newest {MAX_RUNS_PER_COLUMN} runs; older ones are left out",
                c.label
            ));
        }
    }
    Ok(Resolved {
        request: req,
        comparison,
        run_ids,
    })
}

/// The runs named in a request's `context`, in the order given.
async fn context_runs(
    pool: &sqlx::PgPool,
    ids: &[i64],
) -> Result<Vec<reclaimlab_report::compare::ContextRun>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = crate::storage::runs::context_rows(pool, ids).await?;
    ids.iter()
        .map(|id| {
            let r = rows
                .iter()
                .find(|r| r.id == *id)
                .ok_or_else(|| AppError::NotFound(format!("run {id} (context) not found")))?;
            let what = match (r.block_kind.as_str(), &r.tracer, &r.title) {
                ("ftrace_latency", Some(t), _) => format!("{t} trace"),
                (_, _, Some(t)) if !t.is_empty() => format!("table \"{t}\""),
                (k, _, _) => k.replace('_', " "),
            };
            Ok(reclaimlab_report::compare::ContextRun {
                run: reclaimlab_report::compare::RunRef {
                    id: r.id,
                    board: r.board.clone(),
                    kernel: r.kernel.clone(),
                    variant: r.variant.clone(),
                },
                what,
                worst_us: r.worst_us,
                culprit: r.culprit.clone(),
            })
        })
        .collect()
}

/// The chart that best shows a comparison: the latency histogram overlay,
/// else the first metric as bars.
pub fn chart(c: &reclaimlab_report::compare::Comparison) -> Option<String> {
    use reclaimlab_report::svg;
    if let Some(h) = svg::latency_histogram_chart(c) {
        return Some(h);
    }
    if let Some(w) = c.latency.as_ref().and_then(|l| l.worst.first()) {
        let bars: Vec<svg::Bar> = c
            .short_labels()
            .into_iter()
            .zip(&w.cells)
            .map(|(label, m)| svg::Bar {
                label,
                value: m.map(|p| p.value_us),
                error: None,
            })
            .collect();
        return Some(svg::bar_chart(
            &format!("Worst latency: {}", w.label),
            "us",
            &bars,
        ));
    }
    (!c.metrics.is_empty())
        .then(|| svg::metric_bar_chart(c, 0))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(s: &str) -> String {
        match ColumnSpec::parse(s) {
            Err(AppError::BadRequest(m)) => m,
            other => panic!("{s}: expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn a_column_parameter_reads_every_field() {
        let c = ColumnSpec::parse(
            " runs:#3, 4 ;board:LicheePi 4A;kernel:6.12.0-rc5;variant:a/b;kind:simulated;simulation:7;label:x",
        )
        .unwrap();
        assert_eq!(c.runs, vec![3, 4]);
        assert_eq!(c.board.as_deref(), Some("LicheePi 4A"));
        assert_eq!(c.kernel.as_deref(), Some("6.12.0-rc5"));
        assert_eq!(c.variant.as_deref(), Some("a/b"));
        assert_eq!(c.kind.as_deref(), Some("simulated"));
        assert_eq!(c.simulation, Some(7));
        assert_eq!(c.label.as_deref(), Some("x"));
        // What a page link carries parses back to the same column.
        let again = ColumnSpec::parse(&c.to_param()).unwrap();
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&c).unwrap()
        );
    }

    #[test]
    fn a_bad_column_parameter_says_what_is_wrong() {
        assert!(bad("runs:1,x").contains("'x' in runs: is not a run id"));
        assert!(bad("kind:both;board:a").contains("kind must be measured or simulated"));
        assert!(bad("colour:red").contains("unknown column field 'colour'"));
        assert!(bad("board").contains("must be key:value"));
        assert!(bad("simulation:seven").contains("simulation:seven is not a simulation id"));
        // A label alone selects no runs.
        assert!(bad("label:x").contains("selects nothing"));
    }
}
