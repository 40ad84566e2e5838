//! `/variants/{name}`: one variant, its chain and its runs.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use super::PageResult;
use crate::error::AppError;
use crate::web::AppState;
use crate::web::extract::page::{Path, Query};
use crate::web::percent::urlencode;

#[derive(Template, WebTemplate)]
#[template(path = "pages/variant.html")]
pub struct VariantPage {
    pub name: String,
    pub chain: Vec<String>,
    pub compare_url: String,
    /// Its runs, newest first, a page at a time.
    pub list: super::home::Listing,
    pub message_id: Option<String>,
}

#[tracing::instrument(skip_all, fields(variant = %name))]
pub async fn show_variant(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(p): Query<super::catalog::ScopeParams>,
) -> PageResult<VariantPage> {
    let chain = crate::storage::compare::variant_chain(&state.pool, &name).await?;
    if chain.is_empty() {
        return Err(AppError::not_found(format!("variant '{name}'")).into());
    }
    let filter = crate::storage::overview::RunListing {
        variant: Some(name.clone()),
        before: p.before,
        ..Default::default()
    };
    let base = format!("/variants/{}", urlencode(&name));
    let list = super::home::listing(&state, &filter, &base).await?;
    let message_id = crate::storage::catalog::variant_message_id(&state.pool, &name).await?;
    Ok(VariantPage {
        compare_url: format!("/compare?chain={}", urlencode(&name)),
        name,
        chain,
        list,
        message_id,
    })
}
