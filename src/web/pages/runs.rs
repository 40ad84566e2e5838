//! `/runs/{id}`: what was parsed from one block; `/runs/{id}/raw`: the bytes.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::IntoResponse;

use super::{PageError, PageResult, fmt_opt, fmt_us};
use crate::error::AppError;
use crate::storage::runs::{self, RunDetail};
use crate::web::AppState;

#[derive(Template, WebTemplate)]
#[template(path = "pages/run.html")]
pub struct RunPage {
    pub run: RunDetail,
    /// Pretty JSON of the parsed block, for kinds without a dedicated view.
    pub block_json: String,
}

impl RunPage {
    pub fn us(&self, v: &f64) -> String {
        fmt_us(*v)
    }
    pub fn opt(&self, v: &Option<f64>) -> String {
        fmt_opt(*v)
    }
    pub fn opt_i(&self, v: &Option<i64>) -> String {
        v.map(|x| x.to_string()).unwrap_or_default()
    }
    pub fn opt_i32(&self, v: &Option<i32>) -> String {
        v.map(|x| x.to_string()).unwrap_or_default()
    }
    pub fn pct(&self, v: &Option<f64>) -> String {
        v.map(|x| format!("{x:.2}%")).unwrap_or_default()
    }
    pub fn num(&self, v: &f64) -> String {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{}", *v as i64)
        } else {
            format!("{v}")
        }
    }
}

pub async fn show_run(State(state): State<AppState>, Path(id): Path<i64>) -> PageResult<RunPage> {
    let run = runs::detail(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("run {id}")))?;
    let block_json = serde_json::to_string_pretty(&run.block).unwrap_or_default();
    Ok(RunPage { run, block_json })
}

/// Raw text, as an attachment with a sandbox CSP: it is untrusted data.
pub async fn show_raw(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> Result<impl IntoResponse, PageError> {
    let (content, _name) = runs::raw(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("raw text of run {id}")))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"run-{id}.txt\""),
            ),
            (header::CONTENT_SECURITY_POLICY, "sandbox".to_string()),
        ],
        content,
    ))
}

/// `/runs/{id}/histogram.svg`: one line per thread, log counts.
pub async fn show_histogram(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> Result<axum::response::Response, PageError> {
    let run = runs::detail(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("run {id}")))?;
    if run.histogram.is_empty() {
        return Err(AppError::NotFound(format!("run {id} has no histogram")).into());
    }
    let distribution = run.summary.block_kind == "distribution";
    let name = run.block["name"]
        .as_str()
        .unwrap_or("distribution")
        .to_string();
    let mut series: Vec<reclaimlab_report::svg::HistogramSeries> = Vec::new();
    for b in &run.histogram {
        let label = if distribution {
            name.clone()
        } else {
            format!("T:{}", b.thread)
        };
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.buckets.push((b.lower_us, b.count.max(0) as u64)),
            None => series.push(reclaimlab_report::svg::HistogramSeries {
                label,
                buckets: vec![(b.lower_us, b.count.max(0) as u64)],
            }),
        }
    }
    let title = if distribution {
        format!("Run #{id}: {name} (bucket lower bounds)")
    } else {
        format!("Run #{id}: latency histogram per thread")
    };
    let svg = reclaimlab_report::svg::histogram_overlay(&title, &series);
    Ok(super::compare::svg_response(svg, false))
}
