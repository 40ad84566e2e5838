//! `/api/v1/runs`: read runs as JSON. No token needed.

use axum::Json;
use axum::extract::State;

use crate::error::{AppError, AppResult};
use crate::storage::overview::{self, RunListing};
use crate::storage::runs::{self, RunDetail, RunSummary};
use crate::web::AppState;
use crate::web::extract::api::{Path, Query};

#[derive(Debug, serde::Deserialize)]
pub struct ListRunsParams {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    pub kind: Option<String>,
    pub block_kind: Option<String>,
    /// Runs older than this id (keyset paging: the last id of a page).
    pub before: Option<i64>,
    pub limit: Option<i64>,
}

#[tracing::instrument(skip_all)]
pub async fn list_runs(
    State(state): State<AppState>,
    Query(p): Query<ListRunsParams>,
) -> AppResult<Json<Vec<RunSummary>>> {
    let limit = p.limit.unwrap_or(100).clamp(1, 1000);
    let q = RunListing {
        board: p.board,
        kernel: p.kernel,
        variant: p.variant,
        kind: p.kind,
        block_kind: p.block_kind,
        before: p.before,
    };
    let (rows, _more) = overview::run_page(&state.pool, &q, limit).await?;
    Ok(Json(rows))
}

#[tracing::instrument(skip_all, fields(run.id = id))]
pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> AppResult<Json<RunDetail>> {
    runs::detail(&state.pool, id)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::not_found(format!("run {id}")))
}
