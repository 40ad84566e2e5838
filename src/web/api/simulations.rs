//! `/api/v1/simulations`: submit (token), status, cancel, re-run; board
//! cost tables.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::auth::{Caller, Scope};
use crate::error::{AppError, AppResult};
use crate::simulate::{self, SimulationRequest};
use crate::storage::simulations as jobs;
use crate::web::AppState;
use crate::web::extract::api::{self, Path};

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
        return Ok((
            StatusCode::ACCEPTED,
            Json(json!({
                "sweep_id": sweep,
                "url": state.url(&format!("/simulations/sweeps/{sweep}")),
                "ids": s.ids,
            })),
        )
            .into_response());
    }
    let id = s.ids[0];
    let status = if s.cached {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let body = if s.cached {
        status_json(&state, id).await?
    } else {
        json!({"id": id, "url": state.url(&format!("/simulations/{id}")), "status": "queued"})
    };
    Ok((status, Json(body)).into_response())
}

pub async fn status_json(state: &AppState, id: i64) -> AppResult<serde_json::Value> {
    let job = jobs::get(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("simulation {id}")))?;
    let run_ids = jobs::result_runs(&state.pool, id).await?;
    let runs: Vec<_> = crate::storage::runs::summaries(&state.pool, &run_ids)
        .await?
        .into_iter()
        .map(|r| json!({"id": r.id, "url": state.url(&format!("/runs/{}", r.id)), "variant": r.variant, "kind": r.block_kind}))
        .collect();
    Ok(json!({
        "id": job.id,
        "url": state.url(&format!("/simulations/{}", job.id)),
        "status": job.state,
        "scenario": job.scenario_name,
        "variants": job.variants,
        "seed": job.seed,
        "replications": simulate::effective_replications(&job)
            .unwrap_or(job.replications.max(1) as u32),
        "duration_ns": job.duration_ns,
        "board_class": job.board_class,
        "knobs": job.knobs,
        "sweep_id": job.sweep_id,
        "sweep_value": job.sweep_value,
        "sim_version": job.sim_version,
        "attempts": job.attempts,
        "cancel_requested": job.cancel_requested,
        "progress": {"sim_ns": job.progress_sim_ns, "events": job.progress_events},
        "error": job.error,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "run_ids": run_ids,
        "runs": runs,
    }))
}

#[tracing::instrument(skip_all, fields(simulation.id = id))]
pub async fn get_simulation(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> AppResult<Json<serde_json::Value>> {
    Ok(Json(status_json(&state, id).await?))
}

#[tracing::instrument(skip_all, fields(simulation.id = id))]
pub async fn cancel_simulation(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<i64>,
) -> AppResult<Json<serde_json::Value>> {
    caller.require(Scope::Upload)?;
    let state_now = simulate::cancel(&state.pool, &caller, id).await?;
    Ok(Json(
        json!({"id": id, "status": state_now, "cancel_requested": true}),
    ))
}

/// Run the same inputs again (bypassing the result cache), e.g. to check
/// that the same seed gives the same numbers.
#[tracing::instrument(skip_all, fields(simulation.id = id))]
pub async fn rerun_simulation(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<i64>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let req = simulate::rerun_request(&state.pool, id).await?;
    let s = simulate::submit(&state.pool, &state.jobs, req, Some(caller.token.id)).await?;
    let new = s.ids[0];
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"id": new, "url": state.url(&format!("/simulations/{new}")), "status": "queued"})),
    )
        .into_response())
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostsParams {
    pub board_class: String,
}

/// `PUT /api/v1/boards/{name}/costs?board_class=x86-desktop` with a TOML
/// table of `cost_name = nanoseconds` as the body.
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
    Ok(Json(json!({"board": board, "board_class": p.board_class, "stored": true})).into_response())
}
