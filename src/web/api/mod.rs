//! JSON endpoints, one file per resource, plus health and metrics, and the
//! OpenAPI document generated from their types ([`doc`]).

pub mod comparisons;
pub mod doc;
pub mod runs;
pub mod simulations;
pub mod uploads;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;

use super::AppState;

/// The process is up.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    pub status: HealthStatus,
}

#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    Ok,
}

/// Whether the database answers.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Ready {
    pub status: ReadyStatus,
    pub database: DatabaseStatus,
}

#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadyStatus {
    Ready,
    Unavailable,
}

#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatabaseStatus {
    Ok,
    Unreachable,
}

/// Process is up.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    responses((status = 200, description = "OK", body = Health))
)]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: HealthStatus::Ok,
    })
}

/// Database reachable.
///
/// Ready only when the database answers.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    responses(
        (status = 200, description = "OK", body = Ready),
        (status = 503, description = "The database does not answer", body = Ready),
    )
)]
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match sqlx::query_scalar::<_, i32>("SELECT 1")
        .fetch_one(&state.pool)
        .await
    {
        Ok(_) => (
            StatusCode::OK,
            Json(Ready {
                status: ReadyStatus::Ready,
                database: DatabaseStatus::Ok,
            }),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(Ready {
                    status: ReadyStatus::Unavailable,
                    database: DatabaseStatus::Unreachable,
                }),
            )
        }
    }
}

/// Prometheus counters.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses(
        (status = 200, description = "Prometheus text format", body = String, content_type = "text/plain"),
    )
)]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}

/// The OpenAPI document, as [`doc::json`] generates it.
#[tracing::instrument(skip_all)]
pub async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], doc::json())
}

/// The parse document's schema, which `openapi.json` refers to.
#[tracing::instrument(skip_all)]
pub async fn formats_schema() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/schema+json")],
        include_str!("../../../docs/formats.schema.json"),
    )
}
