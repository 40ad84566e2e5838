//! `/`: recent runs and what the catalogue holds.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use super::PageResult;
use crate::storage::runs::{self, RunFilter, RunSummary};
use crate::web::AppState;

#[derive(Template, WebTemplate)]
#[template(path = "pages/home.html")]
pub struct HomePage {
    pub runs: Vec<RunSummary>,
    pub total: i64,
}

pub async fn show_home(State(state): State<AppState>) -> PageResult<HomePage> {
    let runs = runs::recent(&state.pool, &RunFilter::default(), 50).await?;
    let total = runs::count(&state.pool).await?;
    Ok(HomePage { runs, total })
}

impl HomePage {
    pub fn worst(&self, r: &RunSummary) -> String {
        super::fmt_opt(r.worst_us)
    }
}
