//! `/api/v1/runs`: read runs as JSON. No token needed.

use axum::Json;
use axum::extract::State;

use crate::error::{AppError, AppResult, ErrorBody};
use crate::storage::ids::RunId;
use crate::storage::overview::{self, RunListing};
use crate::storage::runs::{self, RunDetail, RunSummary};
use crate::web::AppState;
use crate::web::extract::api::{Path, Query};

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListRunsParams {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    /// measured|simulated
    #[param(schema_with = crate::web::api::doc::run_kind)]
    pub kind: Option<String>,
    /// cyclictest|ftrace_latency|table|time|metrics|rtla
    pub block_kind: Option<String>,
    /// Only runs with a smaller id: pass the last id of a page for the
    /// next one.
    pub before: Option<i64>,
    /// Runs per page (values outside 1..1000 are clamped).
    #[param(minimum = 1, maximum = 1000, default = 100)]
    pub limit: Option<i64>,
}

/// Recent runs, filtered.
#[utoipa::path(
    get,
    path = "/api/v1/runs",
    params(ListRunsParams),
    responses(
        (status = 200, description = "Newest first", body = Vec<RunSummary>),
        (status = 400, response = ErrorBody),
    )
)]
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

/// One run with its typed results.
#[utoipa::path(
    get,
    path = "/api/v1/runs/{id}",
    params(("id" = i64, Path, description = "run id")),
    responses(
        (status = 200, description = "OK", body = RunDetail),
        (status = 400, response = ErrorBody),
        (status = 404, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(run.id = id.0))]
pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<RunId>,
) -> AppResult<Json<RunDetail>> {
    runs::detail(&state.pool, id)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::not_found(format!("run {id}")))
}
