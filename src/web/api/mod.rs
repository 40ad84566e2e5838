//! JSON endpoints, one file per resource, plus health and metrics.

pub mod comparisons;
pub mod runs;
pub mod simulations;
pub mod uploads;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::json;

use super::AppState;

pub async fn healthz() -> impl IntoResponse {
    Json(json!({"status": "ok"}))
}

/// Ready only when the database answers.
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match sqlx::query_scalar::<_, i32>("SELECT 1")
        .fetch_one(&state.pool)
        .await
    {
        Ok(_) => (
            StatusCode::OK,
            Json(json!({"status": "ready", "database": "ok"})),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"status": "unavailable", "database": "unreachable"})),
            )
        }
    }
}

pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}

#[tracing::instrument(skip_all)]
pub async fn openapi() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        include_str!("../../../docs/openapi.json"),
    )
}

/// The parse document's schema, which `openapi.json` refers to.
#[tracing::instrument(skip_all)]
pub async fn formats_schema() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/schema+json")],
        include_str!("../../../docs/formats.schema.json"),
    )
}
