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
    Better, ColumnInput, ComparisonInput, LatencyColumn, MetricSamples, PrintedSummary, RunRef,
    ThreadHistogram, ThreadLatency,
};
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::storage::compare::RunData;

pub const MAX_COLUMNS: usize = 12;
pub const MAX_RUNS_PER_COLUMN: i64 = 500;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// Which way is better for a metric, from its name, unit and table title.
pub fn better_for(name: &str, unit: Option<&str>, title: Option<&str>) -> Better {
    let hay = format!(
        "{} {} {}",
        name.to_ascii_lowercase(),
        unit.unwrap_or("").to_ascii_lowercase(),
        title.unwrap_or("").to_ascii_lowercase()
    );
    const HIGHER: &[&str] = &[
        "throughput",
        "tput",
        "ops/s",
        "ops_per",
        "bogo ops",
        "per-min",
        "per_min",
        "/s",
        "#/s",
        "rate",
        "bandwidth",
        "iops",
        "jobs-per",
        "mb/s",
        "gb/s",
        "transactions",
        "faults/s",
    ];
    if HIGHER.iter().any(|h| hay.contains(h)) {
        Better::Higher
    } else {
        Better::Lower
    }
}

/// Build the report input from the runs of each column.
pub fn build_input(
    title: &str,
    specs: &[ColumnSpec],
    columns: &[Vec<RunData>],
    baseline: usize,
    chain_previous: bool,
) -> ComparisonInput {
    // Where each (upload, block) table's first column landed, so printed
    // deltas can name the column they are relative to.
    let mut first_col_of: BTreeMap<(i64, i32), usize> = BTreeMap::new();
    for (ci, runs) in columns.iter().enumerate() {
        for r in runs {
            if let Some(u) = r.upload_id.filter(|_| r.column_index == 0) {
                first_col_of.entry((u, r.block_index)).or_insert(ci);
            }
        }
    }
    let cols = specs
        .iter()
        .zip(columns)
        .map(|(spec, runs)| build_column(spec, runs, &first_col_of))
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
    runs: &[RunData],
    first_col_of: &BTreeMap<(i64, i32), usize>,
) -> ColumnInput {
    let mut metrics: Vec<MetricSamples> = Vec::new();
    let mut index: BTreeMap<(String, Option<String>), usize> = BTreeMap::new();
    for r in runs {
        for m in &r.metrics {
            // Printed means keep the metric's own name; other printed
            // statistics (Min, Stddev, ...) are metrics of their own.
            let printed_stat = m.stat.clone();
            let key = (m.name.clone(), printed_stat.clone());
            let pos = *index.entry(key).or_insert_with(|| {
                let name = match printed_stat.as_deref() {
                    Some(s) if !matches!(s, "Amean" | "Hmean" | "Gmean") => {
                        format!("{s} {}", m.name)
                    }
                    _ => m.name.clone(),
                };
                metrics.push(MetricSamples {
                    better: better_for(&m.name, m.unit.as_deref(), r.title.as_deref()),
                    name,
                    unit: m.unit.clone().unwrap_or_default(),
                    ..MetricSamples::default()
                });
                metrics.len() - 1
            });
            let ms = &mut metrics[pos];
            match &m.stat {
                Some(stat) => {
                    // A printed summary: keep the first one seen (the same
                    // variant often appears in two adjacent tables).
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
                            relative_to,
                        });
                    }
                }
                None => ms.samples.push(m.value),
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
        latency: latency_column(runs),
    }
}

fn latency_column(runs: &[RunData]) -> Option<LatencyColumn> {
    let mut threads: BTreeMap<u32, ThreadLatency> = BTreeMap::new();
    let mut avg_sum: BTreeMap<u32, f64> = BTreeMap::new();
    let mut merged: BTreeMap<u64, (f64, u64)> = BTreeMap::new();
    let mut per_thread_hist: BTreeMap<u32, BTreeMap<u64, (f64, u64)>> = BTreeMap::new();
    let mut worst_trace: Option<&crate::storage::runs::TraceRow> = None;
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
        for b in &r.histogram {
            any = true;
            let key = b.lower_us.to_bits();
            let e = merged.entry(key).or_insert((b.lower_us, 0));
            e.1 += b.count.max(0) as u64;
            let pt = per_thread_hist.entry(b.thread.max(0) as u32).or_default();
            let e = pt.entry(key).or_insert((b.lower_us, 0));
            e.1 += b.count.max(0) as u64;
        }
        if let Some(t) = &r.trace {
            any = true;
            if worst_trace.is_none_or(|w| t.latency_us > w.latency_us) {
                worst_trace = Some(t);
            }
        }
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
            .map(|(thread, m)| ThreadHistogram {
                thread,
                buckets: sort(m),
            })
            .collect(),
        culprit: worst_trace.and_then(|t| t.culprit.clone()),
        culprit_path: worst_trace
            .map(|t| t.culprit_path.clone())
            .unwrap_or_default(),
        trace_latency_us: worst_trace.map(|t| t.latency_us),
        tracer: worst_trace.map(|t| t.tracer.clone()),
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
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub columns: Vec<ColumnSpec>,
    #[serde(default)]
    pub baseline: usize,
    /// Also compare each column with the previous one (default: true for
    /// chains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_previous: Option<bool>,
}

/// A resolved comparison: the runs of each column and the statistics.
pub struct Resolved {
    pub request: CompareRequest,
    pub comparison: reclaimlab_report::compare::Comparison,
    pub run_ids: Vec<i64>,
}

pub async fn resolve(pool: &sqlx::PgPool, req: CompareRequest) -> Result<Resolved, AppError> {
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
    let mut columns = Vec::with_capacity(req.columns.len());
    for (i, spec) in req.columns.iter().enumerate() {
        if !spec.runs.is_empty() && spec.runs.len() as i64 > MAX_RUNS_PER_COLUMN {
            return Err(AppError::BadRequest(format!(
                "column {i} names more than {MAX_RUNS_PER_COLUMN} runs"
            )));
        }
        let runs = crate::storage::compare::column_runs(pool, spec).await?;
        if !spec.runs.is_empty() {
            let found: std::collections::BTreeSet<i64> = runs.iter().map(|r| r.id).collect();
            if let Some(missing) = spec.runs.iter().find(|id| !found.contains(id)) {
                return Err(AppError::NotFound(format!(
                    "run {missing} (column {i}) not found"
                )));
            }
        }
        columns.push(runs);
    }
    let title = req.title.clone().unwrap_or_else(|| {
        req.columns
            .iter()
            .zip(&columns)
            .map(|(s, r)| s.default_label(r))
            .collect::<Vec<_>>()
            .join(" vs ")
    });
    let chain_previous = req.chain_previous.unwrap_or(false);
    let input = build_input(&title, &req.columns, &columns, req.baseline, chain_previous);
    let run_ids = columns.iter().flatten().map(|r| r.id).collect();
    let comparison =
        tokio::task::spawn_blocking(move || reclaimlab_report::compare::compare(&input))
            .await
            .map_err(|e| AppError::Internal(anyhow::anyhow!("comparison task failed: {e}")))?;
    Ok(Resolved {
        request: req,
        comparison,
        run_ids,
    })
}

/// The chart that best shows a comparison: the latency histogram overlay,
/// else the first metric as bars.
pub fn chart(c: &reclaimlab_report::compare::Comparison) -> Option<String> {
    use reclaimlab_report::svg;
    if let Some(h) = svg::latency_histogram_chart(c) {
        return Some(h);
    }
    if let Some(l) = c
        .latency
        .as_ref()
        .filter(|l| l.max_us.iter().any(Option::is_some))
    {
        let bars: Vec<svg::Bar> = c
            .columns
            .iter()
            .zip(&l.max_us)
            .map(|(col, m)| svg::Bar {
                label: col.label.clone(),
                value: *m,
                error: None,
            })
            .collect();
        return Some(svg::bar_chart("Worst-case latency", "us", &bars));
    }
    (!c.metrics.is_empty())
        .then(|| svg::metric_bar_chart(c, 0))
        .flatten()
}
