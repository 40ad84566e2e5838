//! `/api/v1/simulations`: submit (token), status, cancel, re-run; board
//! cost tables.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};

use crate::auth::{Caller, Scope};
use crate::error::{AppError, AppResult, ErrorBody};
use crate::simulate::{self, SimulationRequest};
use crate::storage::ids::{JobId, RunId};
use crate::storage::simulations as jobs;
use crate::web::AppState;
use crate::web::extract::api::{self, Path};

/// The one state a job is in right after it is submitted.
#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Queued {
    Queued,
}

/// One job queued.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SimulationQueued {
    #[schema(value_type = i64)]
    pub id: JobId,
    /// Its status page.
    pub url: String,
    pub status: Queued,
}

impl SimulationQueued {
    fn new(state: &AppState, id: JobId) -> Self {
        SimulationQueued {
            id,
            url: state.url(&format!("/simulations/{id}")),
            status: Queued::Queued,
        }
    }
}

/// A sweep's jobs queued, one per value.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SweepQueued {
    pub sweep_id: i64,
    /// The sweep's page.
    pub url: String,
    #[schema(value_type = Vec<i64>)]
    pub ids: Vec<JobId>,
}

/// What a submit queued: one job, or a sweep's jobs.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Submission {
    One(SimulationQueued),
    Sweep(SweepQueued),
}

/// How far a running job is.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Progress {
    pub sim_ns: i64,
    pub events: i64,
}

/// A run a finished job stored.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SimulationRun {
    #[schema(value_type = i64)]
    pub id: RunId,
    /// The run's page.
    pub url: String,
    pub variant: String,
    /// The run's block kind.
    pub kind: String,
}

/// A job: its inputs, state, progress, and the runs it stored when done.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Simulation)]
pub struct SimulationStatus {
    #[schema(value_type = i64)]
    pub id: JobId,
    /// Its status page.
    pub url: String,
    pub status: crate::storage::simulations::JobState,
    pub scenario: Option<String>,
    pub variants: Vec<String>,
    pub seed: i64,
    #[schema(minimum = 1)]
    pub replications: u32,
    pub duration_ns: Option<i64>,
    pub board_class: Option<String>,
    /// Knob overrides, `"variant.knob": value`.
    #[schema(value_type = std::collections::BTreeMap<String, f64>)]
    pub knobs: serde_json::Value,
    pub sweep_id: Option<i64>,
    pub sweep_value: Option<f64>,
    pub sim_version: String,
    pub attempts: i32,
    pub cancel_requested: bool,
    pub progress: Progress,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    #[schema(value_type = Vec<i64>)]
    pub run_ids: Vec<RunId>,
    pub runs: Vec<SimulationRun>,
}

/// The answer to a cancel.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SimulationCancel {
    #[schema(value_type = i64)]
    pub id: JobId,
    /// The job's state now.
    pub status: crate::storage::simulations::JobState,
    pub cancel_requested: bool,
}

/// The answer to a stored cost table.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct BoardCosts {
    pub board: String,
    pub board_class: String,
    pub stored: bool,
}

/// Submit a simulation (or a sweep). 202 queued; 200 when an identical
/// finished job answers.
#[utoipa::path(
    post,
    path = "/api/v1/simulations",
    request_body = SimulationRequest,
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Queued: one job, or a sweep's jobs", body = Submission),
        (status = 200, description = "An identical finished job answers", body = SimulationStatus),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 413, response = ErrorBody),
        (status = 422, response = ErrorBody),
        (status = 429, response = ErrorBody),
        (status = 503, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all)]
pub async fn create_simulation(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<api::Json<SimulationRequest>, AppError>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let api::Json(mut req) = body?;
    req.board = req.board.map(|b| crate::boards::canonical(&b));
    let s = simulate::submit(&state.pool, &state.jobs, req, Some(caller.token.id)).await?;
    if let Some(sweep) = s.sweep_id {
        let body = Submission::Sweep(SweepQueued {
            sweep_id: sweep,
            url: state.url(&format!("/simulations/sweeps/{sweep}")),
            ids: s.ids,
        });
        return Ok((StatusCode::ACCEPTED, Json(body)).into_response());
    }
    let id = s.ids[0];
    if s.cached {
        return Ok((StatusCode::OK, Json(status(&state, id).await?)).into_response());
    }
    let body = Submission::One(SimulationQueued::new(&state, id));
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

/// A job's status as the API answers it.
pub async fn status(state: &AppState, id: JobId) -> AppResult<SimulationStatus> {
    let job = jobs::get(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("simulation {id}")))?;
    let run_ids = jobs::result_runs(&state.pool, id).await?;
    let runs = crate::storage::runs::summaries(&state.pool, &run_ids)
        .await?
        .into_iter()
        .map(|r| SimulationRun {
            id: r.id,
            url: state.url(&format!("/runs/{}", r.id)),
            variant: r.variant,
            kind: r.block_kind,
        })
        .collect();
    Ok(SimulationStatus {
        id: job.id,
        url: state.url(&format!("/simulations/{}", job.id)),
        replications: simulate::effective_replications(&job)
            .unwrap_or(job.replications.max(1) as u32),
        status: job.state,
        scenario: job.scenario_name,
        variants: job.variants,
        seed: job.seed,
        duration_ns: job.duration_ns,
        board_class: job.board_class,
        knobs: job.knobs,
        sweep_id: job.sweep_id,
        sweep_value: job.sweep_value,
        sim_version: job.sim_version,
        attempts: job.attempts,
        cancel_requested: job.cancel_requested,
        progress: Progress {
            sim_ns: job.progress_sim_ns,
            events: job.progress_events,
        },
        error: job.error,
        created_at: job.created_at,
        started_at: job.started_at,
        finished_at: job.finished_at,
        run_ids,
        runs,
    })
}

/// Status: queued|running|done|failed|cancelled, progress, error, run_ids
/// when done.
#[utoipa::path(
    get,
    path = "/api/v1/simulations/{id}",
    params(("id" = i64, Path, description = "simulation id")),
    responses(
        (status = 200, description = "OK", body = SimulationStatus),
        (status = 400, response = ErrorBody),
        (status = 404, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn get_simulation(
    State(state): State<AppState>,
    Path(id): Path<JobId>,
) -> AppResult<Json<SimulationStatus>> {
    Ok(Json(status(&state, id).await?))
}

/// Cancel a queued or running simulation.
#[utoipa::path(
    post,
    path = "/api/v1/simulations/{id}/cancel",
    params(("id" = i64, Path, description = "simulation id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "OK", body = SimulationCancel),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 404, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn cancel_simulation(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<JobId>,
) -> AppResult<Json<SimulationCancel>> {
    caller.require(Scope::Upload)?;
    let state_now = simulate::cancel(&state.pool, &caller, id).await?;
    Ok(Json(SimulationCancel {
        id,
        status: state_now,
        cancel_requested: true,
    }))
}

/// Run the same inputs again, bypassing the cache.
///
/// E.g. to check that the same seed gives the same numbers.
#[utoipa::path(
    post,
    path = "/api/v1/simulations/{id}/rerun",
    params(("id" = i64, Path, description = "simulation id")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Queued", body = SimulationQueued),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 404, response = ErrorBody),
        (status = 429, response = ErrorBody),
        (status = 503, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(simulation.id = id.0))]
pub async fn rerun_simulation(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<JobId>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let req = simulate::rerun_request(&state.pool, id).await?;
    let s = simulate::submit(&state.pool, &state.jobs, req, Some(caller.token.id)).await?;
    let body = SimulationQueued::new(&state, s.ids[0]);
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CostsParams {
    /// x86-server|x86-desktop|riscv-small
    pub board_class: String,
}

/// Store a calibrated cost table (TOML: cost = ns) for a board.
///
/// `PUT /api/v1/boards/{name}/costs?board_class=x86-desktop` with a TOML
/// table of `cost_name = nanoseconds` as the body. The first token to
/// store one owns it; only that token or an admin may change it.
#[utoipa::path(
    put,
    path = "/api/v1/boards/{name}/costs",
    params(("name" = String, Path, description = "board name"), CostsParams),
    request_body(content = String, content_type = "text/plain"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Stored", body = BoardCosts),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 413, response = ErrorBody),
        (status = 422, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(board = %board))]
pub async fn put_board_costs(
    State(state): State<AppState>,
    caller: Caller,
    Path(board): Path<String>,
    params: Result<api::Query<CostsParams>, AppError>,
    body: Result<api::Text, AppError>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let api::Query(p) = params?;
    let api::Text(body) = body?;
    let board = crate::boards::canonical(&board);
    simulate::set_board_costs(&state.pool, &caller, &board, &p.board_class, &body).await?;
    Ok(Json(BoardCosts {
        board,
        board_class: p.board_class,
        stored: true,
    })
    .into_response())
}
