//! `/culprits`: the functions that most often hold the worst latency.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use serde::Deserialize;

use super::PageResult;
use crate::web::AppState;
use crate::web::extract::page::Query;
use crate::web::numbers::Numbers;

#[derive(Debug, Default, Deserialize)]
pub struct CulpritParams {
    pub board: Option<String>,
    pub kernel: Option<String>,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/culprits.html")]
pub struct CulpritsPage {
    pub rows: Vec<crate::storage::compare::CulpritRow>,
    pub board: String,
    pub kernel: String,
}

impl Numbers for CulpritsPage {}

#[tracing::instrument(skip_all)]
pub async fn show_culprits(
    State(state): State<AppState>,
    Query(p): Query<CulpritParams>,
) -> PageResult<CulpritsPage> {
    let board = crate::boards::canonical_opt(p.board.as_deref());
    let kernel = p.kernel.filter(|k| !k.is_empty());
    Ok(CulpritsPage {
        rows: crate::storage::compare::culprits(&state.pool, board.as_deref(), kernel.as_deref())
            .await?,
        board: board.unwrap_or_default(),
        kernel: kernel.unwrap_or_default(),
    })
}
