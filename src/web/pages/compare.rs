//! `/compare`: the live comparison, its chart, and the Share button that
//! freezes it into a permalink.

use axum::extract::State;

use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::{PageError, PageResult};
use crate::compare::{self, ColumnSpec, CompareRequest};
use crate::error::AppError;
use crate::web::AppState;
use crate::web::auth::SignedForm;
use crate::web::comparison_view::ComparisonView;
use crate::web::svg::svg_response;
use askama::Template;
use askama_web::WebTemplate;

#[derive(Debug, Default, Deserialize)]
pub struct CompareParams {
    /// Column specs: repeated `c=` (links) ...
    #[serde(default)]
    pub c: Vec<String>,
    /// ... or one per line (the form).
    #[serde(default)]
    pub columns: Option<String>,
    pub baseline: Option<usize>,
    /// Compare the chain ending at this variant.
    pub chain: Option<String>,
    pub board: Option<String>,
    pub title: Option<String>,
    pub previous: Option<String>,
}

/// Parse a query string or form body. `serde_urlencoded` cannot collect
/// repeated keys, so this is done by hand; unknown keys are refused.
pub fn parse_compare_params(raw: &str) -> Result<CompareParams, AppError> {
    let mut p = CompareParams::default();
    for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
        let v = v.into_owned();
        match k.as_ref() {
            "c" => p.c.push(v),
            "columns" => p.columns = Some(v),
            "baseline" => {
                p.baseline = Some(v.trim().parse().map_err(|_| {
                    AppError::BadRequest(format!("baseline must be a column number, not '{v}'"))
                })?)
            }
            "chain" => p.chain = Some(v),
            "board" => p.board = Some(v),
            "title" => p.title = Some(v),
            "previous" => p.previous = Some(v),
            other => return Err(AppError::BadRequest(format!("unknown parameter '{other}'"))),
        }
    }
    Ok(p)
}

impl CompareParams {
    fn specs(&self) -> Result<Vec<ColumnSpec>, AppError> {
        let mut lines: Vec<&str> = self.c.iter().map(String::as_str).collect();
        if let Some(cols) = &self.columns {
            lines.extend(cols.lines());
        }
        lines
            .into_iter()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(ColumnSpec::parse)
            .collect()
    }
}

/// Turn query parameters into a request (a chain, or explicit columns).
pub async fn request_from(
    state: &AppState,
    p: &CompareParams,
) -> Result<Option<CompareRequest>, AppError> {
    let board = p.board.clone().filter(|b| !b.trim().is_empty());
    if let Some(chain) = p.chain.as_deref().filter(|c| !c.trim().is_empty()) {
        let names = crate::storage::compare::variant_chain(&state.pool, chain.trim()).await?;
        if names.is_empty() {
            return Err(AppError::NotFound(format!("variant '{chain}' not found")));
        }
        // A variant name can recur across threads ("vanilla"): pin the
        // chain to the board its last link was measured on, when unique.
        let board = match board {
            Some(b) => Some(b),
            None => {
                crate::storage::compare::only_board_of_variant(&state.pool, chain.trim()).await?
            }
        };
        return Ok(Some(CompareRequest {
            title: p.title.clone().filter(|t| !t.is_empty()),
            columns: compare::chain_specs(&names, board.as_deref()),
            baseline: 0,
            chain_previous: Some(true),
            context: Vec::new(),
        }));
    }
    let specs = p.specs()?;
    if specs.is_empty() {
        return Ok(None);
    }
    Ok(Some(CompareRequest {
        title: p.title.clone().filter(|t| !t.is_empty()),
        baseline: p.baseline.unwrap_or(0),
        chain_previous: Some(
            p.previous
                .as_deref()
                .is_some_and(|v| v == "on" || v == "true" || v == "1"),
        ),
        columns: specs,
        context: Vec::new(),
    }))
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/compare.html")]
pub struct ComparePage {
    pub columns_text: String,
    pub baseline: usize,
    pub previous: bool,
    pub title: String,
    pub view: Option<ComparisonView>,
    pub chart_url: Option<String>,
    pub error: Option<String>,
    pub chains: Vec<crate::storage::catalog::ChainHead>,
    pub permalinks: Vec<crate::storage::overview::PermalinkRow>,
}

#[tracing::instrument(skip_all)]
pub async fn show_compare(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> PageResult<ComparePage> {
    let chains = crate::storage::catalog::chain_heads(&state.pool).await?;
    let permalinks = crate::storage::overview::recent_permalinks(&state.pool, 20).await?;
    let p = match parse_compare_params(uri.query().unwrap_or("")) {
        Ok(p) => p,
        Err(e) => {
            return Ok(ComparePage {
                columns_text: String::new(),
                baseline: 0,
                previous: false,
                title: String::new(),
                view: None,
                chart_url: None,
                error: Some(e.public_message()),
                chains,
                permalinks,
            });
        }
    };
    let mut page = ComparePage {
        columns_text: String::new(),
        baseline: p.baseline.unwrap_or(0),
        previous: false,
        title: p.title.clone().unwrap_or_default(),
        view: None,
        chart_url: None,
        error: None,
        chains,
        permalinks,
    };
    let req = match request_from(&state, &p).await {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(page),
        Err(e @ (AppError::BadRequest(_) | AppError::NotFound(_))) => {
            page.error = Some(e.public_message());
            return Ok(page);
        }
        Err(e) => return Err(e.into()),
    };
    page.columns_text = req
        .columns
        .iter()
        .map(ColumnSpec::to_param)
        .collect::<Vec<_>>()
        .join("\n");
    page.baseline = req.baseline;
    page.previous = req.chain_previous.unwrap_or(false);
    match compare::resolve(&state.pool, req, compare::Detail::Page).await {
        Ok(r) => {
            page.view = Some(ComparisonView::new(&r.comparison));
            if compare::chart(&r.comparison).is_some() {
                page.chart_url = Some(format!("/compare/chart.svg?{}", uri.query().unwrap_or("")));
            }
        }
        Err(e @ (AppError::BadRequest(_) | AppError::NotFound(_))) => {
            page.error = Some(e.public_message())
        }
        Err(e) => return Err(e.into()),
    }
    Ok(page)
}

#[tracing::instrument(skip_all)]
pub async fn show_compare_chart(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> Result<Response, PageError> {
    let p = parse_compare_params(uri.query().unwrap_or(""))?;
    let req = request_from(&state, &p)
        .await?
        .ok_or_else(|| AppError::BadRequest("no columns".into()))?;
    let r = compare::resolve(&state.pool, req, compare::Detail::Page).await?;
    let svg = compare::chart(&r.comparison)
        .ok_or_else(|| AppError::NotFound("nothing to chart".into()))?;
    Ok(svg_response(svg, false))
}

/// A permalink is permanent and costs storage, so making one takes an
/// upload token (the form's `token` field), which it records as its owner.
#[tracing::instrument(skip_all)]
pub async fn share_compare(
    State(state): State<AppState>,
    SignedForm {
        caller,
        fields: form,
    }: SignedForm,
) -> Result<Response, PageError> {
    let rest: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            url::form_urlencoded::parse(form.raw.as_bytes()).filter(|(k, _)| k != "token"),
        )
        .finish();
    let p = parse_compare_params(&rest)?;
    let req = request_from(&state, &p)
        .await?
        .ok_or_else(|| AppError::BadRequest("no columns to share".into()))?;
    let slug = crate::web::permalink_html::freeze(&state, req, Some(caller.token.id), None).await?;
    Ok(Redirect::to(&format!("/c/{slug}")).into_response())
}
