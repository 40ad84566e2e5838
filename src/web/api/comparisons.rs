//! `/api/v1/comparisons`: freeze a comparison into a permalink, or remove
//! one (a 410 tombstone); `/api/v1/uploads/{id}` DELETE by its owner.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::auth::{Caller, Scope};
use crate::compare::CompareRequest;
use crate::error::{AppError, AppResult, ErrorBody};
use crate::storage::ids::UploadId;
use crate::web::AppState;
use crate::web::extract::api::{self, Path};

/// A frozen comparison: its permalink and the permalink's other forms.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Comparison)]
pub struct ComparisonCreated {
    pub slug: String,
    pub url: String,
    /// The reply text (72 columns).
    pub txt: String,
    pub json: String,
    pub svg: String,
}

/// What a delete of an upload removed.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct UploadDeleted {
    #[schema(value_type = i64)]
    pub upload_id: UploadId,
    pub runs_deleted: u64,
}

/// Body: `{"columns": [{"label": "...", "runs": [1, 2]}, ...], "baseline": 0}`;
/// a column may also filter by `board`, `kernel`, `variant`, `kind`.
/// Needs an upload token (the snapshot records who made it).
#[utoipa::path(
    post,
    path = "/api/v1/comparisons",
    summary = "Freeze a comparison into a permalink.",
    request_body = CompareRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = ComparisonCreated),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 404, response = ErrorBody),
        (status = 413, response = ErrorBody),
        (status = 422, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all)]
pub async fn create_comparison(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<api::Json<CompareRequest>, AppError>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let api::Json(req) = body?;
    let slug = crate::web::permalink_html::freeze(&state, req, Some(caller.token.id), None).await?;
    let url = state.url(&format!("/c/{slug}"));
    Ok((
        StatusCode::CREATED,
        Json(ComparisonCreated {
            txt: format!("{url}.txt"),
            json: format!("{url}.json"),
            svg: format!("{url}.svg"),
            slug,
            url,
        }),
    )
        .into_response())
}

/// Remove a permalink (its maker or admin); it answers 410 afterwards.
///
/// Only the token that made a snapshot, or an admin token, may remove it.
#[utoipa::path(
    delete,
    path = "/api/v1/comparisons/{slug}",
    params(("slug" = String, Path, description = "the permalink's slug")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 404, response = ErrorBody),
        (status = 410, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(comparison.slug = %slug))]
pub async fn delete_comparison(
    State(state): State<AppState>,
    caller: Caller,
    Path(slug): Path<String>,
) -> AppResult<StatusCode> {
    caller.require(Scope::Upload)?;
    let snap = crate::storage::snapshots::get(&state.pool, &slug)
        .await?
        .ok_or_else(|| AppError::not_found(format!("permalink {slug}")))?;
    if snap.removed_at.is_some() {
        return Err(AppError::Gone(format!(
            "permalink {slug} was already removed"
        )));
    }
    if caller.scope() != Scope::Admin && snap.token_id != Some(caller.token.id) {
        return Err(AppError::Forbidden(
            "only the token that made this permalink, or an admin, may remove it".into(),
        ));
    }
    crate::storage::snapshots::remove(&state.pool, &slug).await?;
    state.snapshots.forget(&slug);
    Ok(StatusCode::NO_CONTENT)
}

/// Delete an upload and its runs (the token that made it, or admin).
///
/// A soft delete: permalinks that used the runs keep their frozen copy (a
/// permalink never changes); the runs vanish from listings, comparisons
/// and run pages (404).
#[utoipa::path(
    delete,
    path = "/api/v1/uploads/{id}",
    params(("id" = i64, Path, description = "upload id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Deleted", body = UploadDeleted),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 404, response = ErrorBody),
    )
)]
#[tracing::instrument(skip_all, fields(upload.id = id.0))]
pub async fn delete_upload(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<UploadId>,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let owner = crate::storage::snapshots::upload_owner(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("upload {id}")))?;
    if caller.scope() != Scope::Admin && owner != Some(caller.token.id) {
        return Err(AppError::Forbidden(
            "only the token that made this upload, or an admin, may delete it".into(),
        ));
    }
    let mut tx = state.pool.begin().await?;
    let runs = crate::storage::snapshots::delete_upload(&mut tx, id).await?;
    tx.commit().await?;
    Ok(Json(UploadDeleted {
        upload_id: id,
        runs_deleted: runs,
    })
    .into_response())
}
