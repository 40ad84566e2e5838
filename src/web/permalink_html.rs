//! The HTML rendering of a permalink, frozen once when the permalink is
//! made (see [`crate::permalinks`]); the API and the pages hand it over.

use askama::Template;

use crate::error::AppError;
use crate::permalinks::Frozen;
use crate::web::comparison_view::ComparisonView;

#[derive(Template)]
#[template(path = "pages/snapshot.html")]
pub struct SnapshotPage<'a> {
    pub view: ComparisonView,
    pub f: &'a Frozen<'a>,
}

/// Render the page of a permalink being made.
pub fn render(f: &Frozen<'_>) -> Result<String, AppError> {
    SnapshotPage {
        view: ComparisonView::new(f.comparison),
        f,
    }
    .render()
    .map_err(|e| AppError::Internal(anyhow::anyhow!("render snapshot: {e}")))
}

/// Freeze a comparison with the state's pool and public URL, the page
/// rendered by [`render`]; answers the new slug.
pub async fn freeze(
    state: &crate::web::AppState,
    req: crate::compare::CompareRequest,
    token_id: Option<i64>,
    message_id: Option<&str>,
) -> Result<String, AppError> {
    crate::permalinks::create(
        &state.pool,
        &state.public_url,
        req,
        token_id,
        message_id,
        render,
    )
    .await
}
