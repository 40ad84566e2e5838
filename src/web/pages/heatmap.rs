//! `/heatmap` and its SVG: one value per board and kernel.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use super::{PageError, PageResult};
use crate::error::AppError;
use crate::web::AppState;
use crate::web::extract::page::Query;
use crate::web::numbers::fmt_us;
use crate::web::percent::urlencode;
use crate::web::svg::svg_response;

#[derive(Debug, Default, Deserialize)]
pub struct HeatmapParams {
    pub metric: Option<String>,
    /// Latency kind: "cyclictest" or a tracer.
    pub kind: Option<String>,
    /// Show this variant's cells; by default each cell shows the variant
    /// measured last on its board and kernel.
    pub variant: Option<String>,
}

pub struct HeatmapRow {
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub value: String,
    pub runs: i64,
    pub link: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/heatmap.html")]
pub struct HeatmapPage {
    pub metric: String,
    pub metrics: Vec<String>,
    pub kind: String,
    pub kinds: Vec<String>,
    pub variant: String,
    pub svg_url: String,
    pub rows: Vec<HeatmapRow>,
    /// Kernels left out: measured before the newest [`KERNEL_COLUMNS`].
    pub older_kernels: usize,
}

/// Kernels a heatmap shows: those measured most recently. A fleet tests a
/// build a night; a map of every kernel ever tested is neither readable
/// nor cheap.
pub const KERNEL_COLUMNS: usize = 30;

/// The cells of the [`KERNEL_COLUMNS`] kernels measured most recently (by
/// each kernel's newest run), and how many kernels were left out.
fn newest_kernels(
    mut cells: Vec<crate::storage::compare::Cell>,
) -> (Vec<crate::storage::compare::Cell>, usize) {
    let mut newest: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for c in &cells {
        let e = newest.entry(c.kernel.as_str()).or_insert(c.last_run);
        *e = (*e).max(c.last_run);
    }
    if newest.len() <= KERNEL_COLUMNS {
        return (cells, 0);
    }
    let mut order: Vec<(&str, i64)> = newest.into_iter().collect();
    // Newest first; a tie by name, so the choice does not depend on order.
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let older = order.len() - KERNEL_COLUMNS;
    let kept: std::collections::HashSet<String> = order[..KERNEL_COLUMNS]
        .iter()
        .map(|(k, _)| (*k).to_owned())
        .collect();
    cells.retain(|c| kept.contains(&c.kernel));
    (cells, older)
}

/// What a heatmap request asks for, with defaults filled in.
struct HeatmapQuery {
    metric: Option<String>,
    kind: String,
    kinds: Vec<String>,
    variant: Option<String>,
}

async fn heatmap_query(state: &AppState, p: &HeatmapParams) -> Result<HeatmapQuery, AppError> {
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let kinds = crate::storage::compare::heatmap_kinds(&state.pool).await?;
    let kind = p
        .kind
        .clone()
        .filter(|k| !k.is_empty())
        .or_else(|| kinds.first().cloned())
        .unwrap_or_else(|| "cyclictest".into());
    let variant = p.variant.clone().filter(|v| !v.is_empty());
    Ok(HeatmapQuery {
        metric,
        kind,
        kinds,
        variant,
    })
}

async fn heatmap_data(
    state: &AppState,
    q: &HeatmapQuery,
) -> Result<
    (
        reclaimlab_report::svg::Heatmap,
        Vec<crate::storage::compare::Cell>,
        usize,
    ),
    AppError,
> {
    let cells = match &q.metric {
        None => {
            crate::storage::compare::heatmap_worst_latency(
                &state.pool,
                &q.kind,
                q.variant.as_deref(),
            )
            .await?
        }
        Some(m) => {
            crate::storage::compare::heatmap_metric(&state.pool, m, q.variant.as_deref()).await?
        }
    };
    let (cells, older_kernels) = newest_kernels(cells);
    let mut boards: Vec<String> = cells.iter().map(|c| c.board.clone()).collect();
    boards.sort();
    boards.dedup();
    let mut kernels: Vec<String> = cells.iter().map(|c| c.kernel.clone()).collect();
    kernels.sort();
    kernels.dedup();
    // The first cell of each board and kernel (a lookup per grid square:
    // searching the cells for each was boards x kernels x cells).
    let mut by_pair: std::collections::HashMap<(&str, &str), Option<f64>> =
        std::collections::HashMap::with_capacity(cells.len());
    for c in &cells {
        by_pair
            .entry((c.board.as_str(), c.kernel.as_str()))
            .or_insert(c.value);
    }
    let values = boards
        .iter()
        .map(|b| {
            kernels
                .iter()
                .map(|k| by_pair.get(&(b.as_str(), k.as_str())).copied().flatten())
                .collect()
        })
        .collect();
    let mut which = match &q.variant {
        Some(v) => format!("variant {v}"),
        None => "each cell: the variant measured last".to_string(),
    };
    if older_kernels > 0 {
        which.push_str(&format!(
            "; the {KERNEL_COLUMNS} measured last of {} kernels",
            KERNEL_COLUMNS + older_kernels
        ));
    }
    let (title, unit, better) = match &q.metric {
        None => (
            format!("Worst {} latency, boards x kernels ({which})", q.kind),
            "us".to_string(),
            reclaimlab_report::compare::Better::Lower,
        ),
        Some(m) => (
            format!("{m}, boards x kernels, mean over runs ({which})"),
            String::new(),
            reclaimlab_report::direction::lookup(reclaimlab_report::direction::MetricFacts {
                name: m,
                ..Default::default()
            })
            .0,
        ),
    };
    Ok((
        reclaimlab_report::svg::Heatmap {
            title,
            unit,
            better,
            row_labels: boards,
            col_labels: kernels,
            values,
        },
        cells,
        older_kernels,
    ))
}

fn heatmap_qs(q: &HeatmapQuery) -> String {
    let mut parts = Vec::new();
    if let Some(m) = &q.metric {
        parts.push(format!("metric={}", urlencode(m)));
    } else {
        parts.push(format!("kind={}", urlencode(&q.kind)));
    }
    if let Some(v) = &q.variant {
        parts.push(format!("variant={}", urlencode(v)));
    }
    format!("?{}", parts.join("&"))
}

#[tracing::instrument(skip_all)]
pub async fn show_heatmap(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> PageResult<HeatmapPage> {
    let q = heatmap_query(&state, &p).await?;
    let (_, cells, older_kernels) = heatmap_data(&state, &q).await?;
    Ok(HeatmapPage {
        metric: q.metric.clone().unwrap_or_else(|| "worst_latency".into()),
        metrics: crate::storage::compare::metric_names(&state.pool).await?,
        kind: q.kind.clone(),
        kinds: q.kinds.clone(),
        variant: q.variant.clone().unwrap_or_default(),
        svg_url: format!("/heatmap.svg{}", heatmap_qs(&q)),
        rows: cells
            .into_iter()
            .map(|c| {
                let link = format!(
                    "/compare?c={}",
                    urlencode(&format!(
                        "board:{};kernel:{};variant:{}",
                        c.board, c.kernel, c.variant
                    ))
                );
                HeatmapRow {
                    value: c.value.map(fmt_us).unwrap_or_default(),
                    board: c.board,
                    kernel: c.kernel,
                    variant: c.variant,
                    runs: c.runs,
                    link,
                }
            })
            .collect(),
        older_kernels,
    })
}

#[tracing::instrument(skip_all)]
pub async fn show_heatmap_svg(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> Result<Response, PageError> {
    let q = heatmap_query(&state, &p).await?;
    let (h, _, _) = heatmap_data(&state, &q).await?;
    Ok(svg_response(reclaimlab_report::svg::heatmap(&h), false))
}
