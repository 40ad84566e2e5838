//! `/boards`, `/kernels`, `/variants`: what exists.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use super::PageResult;
use crate::storage::catalog::{self, BoardRow, KernelRow, VariantRow};
use crate::web::AppState;

#[derive(Template, WebTemplate)]
#[template(path = "pages/boards.html")]
pub struct BoardsPage {
    pub boards: Vec<BoardRow>,
}

pub async fn show_boards(State(state): State<AppState>) -> PageResult<BoardsPage> {
    Ok(BoardsPage {
        boards: catalog::boards(&state.pool).await?,
    })
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/kernels.html")]
pub struct KernelsPage {
    pub kernels: Vec<KernelRow>,
}

pub async fn show_kernels(State(state): State<AppState>) -> PageResult<KernelsPage> {
    Ok(KernelsPage {
        kernels: catalog::kernels(&state.pool).await?,
    })
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/variants.html")]
pub struct VariantsPage {
    pub variants: Vec<VariantRow>,
}

pub async fn show_variants(State(state): State<AppState>) -> PageResult<VariantsPage> {
    Ok(VariantsPage {
        variants: catalog::variants(&state.pool).await?,
    })
}
