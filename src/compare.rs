//! Comparisons: column specs (what the user asks for), and turning stored
//! runs into the report crate's `ComparisonInput`. No SQL here (see
//! `storage::compare`); statistics live in `reclaimlab_report`.
//!
//! A column is written `variant:batch-v1;board:i7-4790;kernel:6.12.0-rc5`
//! (any subset of board, kernel, variant, kind, plus `label:`), or
//! `runs:1,2,3`. Fields are separated by `;` because board names may
//! contain commas.

use reclaimlab_report::compare::ComparisonInput;
use reclaimlab_report::model::{self, ColumnRuns, RunData};
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::storage::ids::{JobId, RunId};

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
    #[schema(value_type = Vec<i64>)]
    pub runs: Vec<RunId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// "measured" or "simulated".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::storage::runs::run_kind_schema)]
    pub kind: Option<String>,
    /// Runs of one simulation job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub simulation: Option<JobId>,
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
                                .map(RunId)
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
                    c.simulation = Some(JobId(v.trim().parse().map_err(|_| {
                        AppError::BadRequest(format!("simulation:{v} is not a simulation id"))
                    })?))
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
                    .map(RunId::to_string)
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

/// Build the report input from the runs of each column, each labelled
/// by its spec.
pub fn build_input(
    title: &str,
    specs: &[ColumnSpec],
    columns: &[ColumnRuns],
    baseline: usize,
    chain_previous: bool,
) -> ComparisonInput {
    let labelled: Vec<(String, &ColumnRuns)> = specs
        .iter()
        .zip(columns)
        .map(|(spec, col)| (spec.default_label(&col.runs), col))
        .collect();
    model::comparison_input(title, &labelled, baseline, chain_previous)
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
    #[schema(max_items = 20, value_type = Vec<i64>)]
    pub context: Vec<RunId>,
}

/// At most this many runs beside a comparison.
pub const MAX_CONTEXT_RUNS: usize = 20;

/// A resolved comparison: the runs of each column and the statistics.
pub struct Resolved {
    pub request: CompareRequest,
    pub comparison: reclaimlab_report::compare::Comparison,
    pub run_ids: Vec<RunId>,
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
            let found: std::collections::BTreeSet<RunId> =
                col.runs.iter().map(|r| RunId(r.id)).collect();
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
    let run_ids = columns
        .iter()
        .flat_map(|c| &c.runs)
        .map(|r| RunId(r.id))
        .collect();
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
    ids: &[RunId],
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
                    id: r.id.0,
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
        assert_eq!(c.runs, vec![RunId(3), RunId(4)]);
        assert_eq!(c.board.as_deref(), Some("LicheePi 4A"));
        assert_eq!(c.kernel.as_deref(), Some("6.12.0-rc5"));
        assert_eq!(c.variant.as_deref(), Some("a/b"));
        assert_eq!(c.kind.as_deref(), Some("simulated"));
        assert_eq!(c.simulation, Some(JobId(7)));
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
