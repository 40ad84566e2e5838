//! `/c/{slug}`: a permalink's stored renderings, served as first made.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::PageError;
use crate::error::AppError;
use crate::web::AppState;
use crate::web::extract::page::Path;

/// `/c/{slug}`, `/c/{slug}.txt`, `.json`, `.svg`: the stored bytes, as they
/// were first served, with a strong ETag and `immutable` caching.
#[tracing::instrument(skip_all, fields(permalink = %name))]
pub async fn show_snapshot(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let (slug, ext) = match name.strip_suffix(".full.txt") {
        Some(s) => (s, "full.txt"),
        None => match name.rsplit_once('.') {
            Some((s, e)) => (s, e),
            None => (name.as_str(), "html"),
        },
    };
    let snap = state
        .snapshots
        .load(&state.pool, slug)
        .await?
        .ok_or_else(|| AppError::not_found(format!("permalink /c/{slug}")))?;
    if snap.removed_at.is_some() {
        return Err(AppError::Gone(format!("permalink /c/{slug} was removed")).into());
    }
    let (ctype, body) = match ext {
        "html" => ("text/html; charset=utf-8", snap.body_html.clone()),
        "txt" => ("text/plain; charset=utf-8", snap.body_txt.clone()),
        "full.txt" => (
            "text/plain; charset=utf-8",
            snap.body_full_txt
                .clone()
                .unwrap_or_else(|| snap.body_txt.clone()),
        ),
        "json" => ("application/json", snap.body_json.clone()),
        "svg" => (
            "image/svg+xml",
            snap.body_svg
                .clone()
                .ok_or_else(|| AppError::NotFound("this comparison has no chart".into()))?,
        ),
        other => {
            return Err(AppError::NotFound(format!(
                "no '.{other}' rendering; try .txt, .full.txt, .json or .svg"
            ))
            .into());
        }
    };
    let etag = format!(
        "\"{}\"",
        hex::encode(&crate::ingest::sha256(body.as_bytes())[..16])
    );
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::ETAG, etag),
            (
                header::CACHE_CONTROL,
                "public, max-age=31536000, immutable".to_string(),
            ),
        ],
        body,
    )
        .into_response())
}
