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
    pub slug: &'a str,
    pub url: &'a str,
    pub created: String,
    pub has_svg: bool,
    pub text: &'a str,
    pub message_id: Option<&'a str>,
}

/// Render the page of a permalink being made.
pub fn render(f: &Frozen<'_>) -> Result<String, AppError> {
    SnapshotPage {
        view: ComparisonView::new(f.comparison),
        slug: f.slug,
        url: f.url,
        created: f.created.clone(),
        has_svg: f.has_svg,
        text: f.text,
        message_id: f.message_id,
    }
    .render()
    .map_err(|e| AppError::Internal(anyhow::anyhow!("render snapshot: {e}")))
}
