//! `/runs/{id}`: what was parsed from one block; `/runs/{id}/raw`: the bytes.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use reclaimlab_report::model::MetricValue;

use super::{PageError, PageResult};
use crate::error::AppError;
use crate::ingest::{FunctionTotal, TraceDigest};
use crate::storage::ids::RunId;
use crate::storage::runs::{self, RunDetail};
use crate::web::AppState;
use crate::web::extract::page::{Path, Query};
use crate::web::numbers::Numbers;

#[derive(Template, WebTemplate)]
#[template(path = "pages/run.html")]
pub struct RunPage {
    pub run: RunDetail,
    /// Pretty JSON of the parsed block, for kinds without a dedicated
    /// view; `None` when it is longer than [`MAX_INLINE_JSON`].
    pub block_json: Option<String>,
    pub block_json_bytes: usize,
    /// A function trace's longest gaps and time per function.
    pub digest: Option<TraceDigest>,
    /// This page's slice of the long lists (functions, metrics).
    pub functions: Vec<FunctionTotal>,
    pub metrics: Vec<MetricValue>,
    pub pager: Pager,
}

/// Rows of a long list per page.
pub const PAGE_ROWS: usize = 100;
/// The parsed block is shown inline up to this size; beyond, the API has it.
pub const MAX_INLINE_JSON: usize = 64 * 1024;

#[derive(Debug, Default, serde::Deserialize)]
pub struct RunQuery {
    pub page: Option<usize>,
}

/// `?page=N` (1-based) through the run's long lists.
#[derive(Debug, Clone)]
pub struct Pager {
    pub page: usize,
    pub pages: usize,
}

impl Pager {
    fn new(page: usize, longest: usize) -> Self {
        let pages = longest.div_ceil(PAGE_ROWS).max(1);
        Pager {
            page: page.clamp(1, pages),
            pages,
        }
    }
    fn slice<T: Clone>(&self, all: &[T]) -> Vec<T> {
        let start = (self.page - 1) * PAGE_ROWS;
        all.iter().skip(start).take(PAGE_ROWS).cloned().collect()
    }
    /// Index of the first row of this page in its list.
    pub fn first(&self) -> usize {
        (self.page - 1) * PAGE_ROWS
    }
    pub fn has_prev(&self) -> bool {
        self.page > 1
    }
    pub fn has_next(&self) -> bool {
        self.page < self.pages
    }
    pub fn prev(&self) -> usize {
        self.page.saturating_sub(1).max(1)
    }
    pub fn next(&self) -> usize {
        (self.page + 1).min(self.pages)
    }
}

impl Numbers for RunPage {}

impl RunPage {
    /// Row number (1-based) of the `i`-th row of this page.
    pub fn row(&self, i: &usize) -> usize {
        self.pager.first() + i + 1
    }
    pub fn event_line(&self, gap: &crate::ingest::TraceGap, i: &usize) -> bool {
        gap.window_start + *i as u64 == gap.event
    }
}

#[tracing::instrument(skip_all, fields(run.id = id.0))]
pub async fn show_run(
    State(state): State<AppState>,
    Path(id): Path<RunId>,
    Query(query): Query<RunQuery>,
) -> PageResult<RunPage> {
    let page = query.page.unwrap_or(1);
    let mut run = runs::detail(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("run {id}")))?;
    let digest: Option<TraceDigest> = run
        .block
        .get(crate::ingest::DIGEST_KEY)
        .and_then(|d| serde_json::from_value(d.clone()).ok());
    let nfunctions = digest.as_ref().map_or(0, |d| d.functions.len());
    let pager = Pager::new(page, nfunctions.max(run.metrics.len()));
    let functions = digest
        .as_ref()
        .map(|d| pager.slice(&d.functions))
        .unwrap_or_default();
    let metrics = pager.slice(&run.metrics);
    let block_json_bytes = crate::ingest::json_size(&run.block);
    let block_json = (block_json_bytes <= MAX_INLINE_JSON)
        .then(|| serde_json::to_string_pretty(&run.block).unwrap_or_default());
    // The page shows its own slices; the whole lists stay in the API.
    run.metrics = Vec::new();
    run.block = serde_json::Value::Null;
    Ok(RunPage {
        run,
        block_json,
        block_json_bytes,
        digest,
        functions,
        metrics,
        pager,
    })
}

/// Raw text, as an attachment with a sandbox CSP: it is untrusted data.
#[tracing::instrument(skip_all, fields(run.id = id.0))]
pub async fn show_raw(
    State(state): State<AppState>,
    Path(id): Path<RunId>,
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
#[tracing::instrument(skip_all, fields(run.id = id.0))]
pub async fn show_histogram(
    State(state): State<AppState>,
    Path(id): Path<RunId>,
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
    Ok(crate::web::svg::svg_response(svg, false))
}
