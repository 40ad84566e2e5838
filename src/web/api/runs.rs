//! `/api/v1/runs`: read runs as JSON. No token needed.

use axum::Json;
use axum::extract::State;

use crate::error::{AppError, AppResult};
use crate::storage::runs::{self, RunDetail, RunFilter, RunSummary};
use crate::web::AppState;
use crate::web::extract::api::{Path, Query};

#[derive(Debug, serde::Deserialize)]
pub struct ListRunsParams {
    #[serde(flatten)]
    pub filter: RunFilter,
    pub limit: Option<i64>,
}

pub async fn list_runs(
    State(state): State<AppState>,
    Query(p): Query<ListRunsParams>,
) -> AppResult<Json<Vec<RunSummary>>> {
    let limit = p.limit.unwrap_or(100).clamp(1, 1000);
    Ok(Json(runs::recent(&state.pool, &p.filter, limit).await?))
}

pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> AppResult<Json<RunDetail>> {
    runs::detail(&state.pool, id)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::not_found(format!("run {id}")))
}
