//! `/c/{slug}`: a permalink's stored renderings, served as first made.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::PageError;
use crate::error::AppError;
use crate::web::AppState;
use crate::web::extract::page::Path;
use crate::web::permalink_cache::Permalink;

/// A permalink never changes: caches may keep it for a year unasked.
fn immutable() -> HeaderValue {
    HeaderValue::from_static("public, max-age=31536000, immutable")
}

/// `/c/{slug}`, `/c/{slug}.txt`, `.full.txt`, `.json`, `.svg`: the stored
/// bytes, as they were first served, with a strong ETag and `immutable`
/// caching. After the first request they come from memory
/// ([`crate::web::permalink_cache`]).
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
    let permalink = state
        .snapshots
        .load(&state.pool, slug)
        .await?
        .ok_or_else(|| AppError::not_found(format!("permalink /c/{slug}")))?;
    let Permalink::Live(r) = &*permalink else {
        return Err(AppError::Gone(format!("permalink /c/{slug} was removed")).into());
    };
    let rendering = match ext {
        "html" => &r.html,
        "txt" => &r.txt,
        "full.txt" => &r.full_txt,
        "json" => &r.json,
        "svg" => r
            .svg
            .as_ref()
            .ok_or_else(|| AppError::NotFound("this comparison has no chart".into()))?,
        other => {
            return Err(AppError::NotFound(format!(
                "no '.{other}' rendering; try .txt, .full.txt, .json or .svg"
            ))
            .into());
        }
    };
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| rendering.matches(v.as_bytes()))
    {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, rendering.etag.clone()),
                (header::CACHE_CONTROL, immutable()),
            ],
        )
            .into_response());
    }
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(rendering.content_type),
            ),
            (header::ETAG, rendering.etag.clone()),
            (header::CACHE_CONTROL, immutable()),
        ],
        Body::from(rendering.body.clone()),
    )
        .into_response())
}
