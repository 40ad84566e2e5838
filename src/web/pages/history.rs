//! `/history` and its SVG: one metric of one board over upload dates.

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
pub struct HistoryParams {
    pub board: Option<String>,
    pub metric: Option<String>,
    /// Latency kind of the worst-latency history: cyclictest or a tracer.
    pub kind: Option<String>,
}

impl HistoryParams {
    /// The metric asked for; none for the worst latency.
    fn metric(&self) -> Option<String> {
        self.metric
            .clone()
            .filter(|m| !m.is_empty() && m != "worst_latency")
    }

    /// The latency kind asked for, cyclictest by default.
    fn kind(&self) -> String {
        self.kind
            .clone()
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| "cyclictest".into())
    }
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/history.html")]
pub struct HistoryPage {
    pub board: String,
    pub metric: String,
    pub kind: String,
    pub boards: Vec<String>,
    pub svg_url: Option<String>,
    pub points: Vec<HistoryRow>,
    pub note: Option<String>,
}

pub struct HistoryRow {
    pub run_id: i64,
    pub kernel: String,
    pub variant: String,
    pub value: String,
    pub uploaded: String,
}

#[tracing::instrument(skip_all)]
pub async fn show_history(
    State(state): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> PageResult<HistoryPage> {
    let rows = crate::storage::catalog::boards(&state.pool).await?;
    let metric = p.metric();
    let kind = p.kind();
    let mut board = crate::boards::canonical_opt(p.board.as_deref());
    if board.is_none() {
        // Open on a board that has this history: the busiest few are tried.
        let mut busiest: Vec<_> = rows.iter().filter(|b| b.runs > 0).collect();
        busiest.sort_by_key(|b| std::cmp::Reverse(b.runs));
        for b in busiest.into_iter().take(5) {
            let (pts, _) =
                crate::storage::compare::history(&state.pool, &b.name, metric.as_deref(), &kind)
                    .await?;
            if !pts.is_empty() {
                board = Some(b.name.clone());
                break;
            }
        }
    }
    let boards = rows.into_iter().map(|b| b.name).collect();
    let mut page = HistoryPage {
        board: board.clone().unwrap_or_default(),
        metric: metric.clone().unwrap_or_else(|| "worst_latency".into()),
        kind: kind.clone(),
        boards,
        svg_url: None,
        points: Vec::new(),
        note: None,
    };
    if let Some(b) = &board {
        let (pts, cut) =
            crate::storage::compare::history(&state.pool, b, metric.as_deref(), &kind).await?;
        if cut {
            page.note = Some(format!(
                "The newest {} days are shown; older ones are left out.",
                crate::storage::compare::HISTORY_DAYS
            ));
        }
        page.points = pts
            .iter()
            .map(|p| HistoryRow {
                run_id: p.max_run,
                kernel: p.kernel.clone(),
                variant: p.max_variant.clone(),
                value: match (p.runs, metric.is_some()) {
                    (1, _) => fmt_us(p.max_value),
                    (n, false) => format!(
                        "{} (worst of {n} runs; mean {})",
                        fmt_us(p.max_value),
                        fmt_us(p.mean)
                    ),
                    (n, true) => format!(
                        "{} (mean of {n} runs; highest {})",
                        fmt_us(p.mean),
                        fmt_us(p.max_value)
                    ),
                },
                uploaded: p.day.format("%Y-%m-%d").to_string(),
            })
            .collect();
        if !pts.is_empty() {
            page.svg_url = Some(format!(
                "/history.svg?board={}&metric={}&kind={}",
                urlencode(b),
                urlencode(metric.as_deref().unwrap_or("worst_latency")),
                urlencode(&kind)
            ));
        }
    }
    Ok(page)
}

#[tracing::instrument(skip_all)]
pub async fn show_history_svg(
    State(state): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> Result<Response, PageError> {
    let board = crate::boards::canonical_opt(p.board.as_deref())
        .ok_or_else(|| AppError::BadRequest("board is required".into()))?;
    let metric = p.metric();
    let kind = p.kind();
    let (pts, _) =
        crate::storage::compare::history(&state.pool, &board, metric.as_deref(), &kind).await?;
    // One line per kernel, x = the UTC day the runs were stored (days since
    // the first day shown), so a gap between test nights shows as a gap;
    // y = the day's worst latency, or the day's mean of a metric.
    let t0 = pts.first().map(|p| p.day);
    let day = |p: &crate::storage::compare::HistoryPoint| {
        t0.map_or(0.0, |t| (p.day - t).num_days() as f64)
    };
    let value = |p: &crate::storage::compare::HistoryPoint| {
        if metric.is_some() {
            p.mean
        } else {
            p.max_value
        }
    };
    let mut series: Vec<reclaimlab_report::svg::Series> = Vec::new();
    for p in &pts {
        match series.iter_mut().find(|s| s.label == p.kernel) {
            Some(s) => s.points.push((day(p), value(p))),
            None => series.push(reclaimlab_report::svg::Series {
                label: p.kernel.clone(),
                points: vec![(day(p), value(p))],
            }),
        }
    }
    let x_label = match t0 {
        Some(t) => format!("days since {} (upload date, UTC)", t.format("%Y-%m-%d")),
        None => "days (upload date)".to_string(),
    };
    let y = metric
        .clone()
        .unwrap_or_else(|| format!("worst {kind} latency (us)"));
    Ok(svg_response(
        reclaimlab_report::svg::line_plot(&format!("{y} on {board}"), &x_label, &y, &series),
        false,
    ))
}
