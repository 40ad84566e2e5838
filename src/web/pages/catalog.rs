//! `/boards`, `/kernels`, `/variants`: what exists; `/boards/{name}` and
//! `/kernels/{version}`: one of them.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use super::PageResult;
use crate::error::AppError;
use crate::storage::catalog::{self, BoardRow, KernelRow, VariantRow};
use crate::storage::overview::RunListing;
use crate::web::AppState;
use crate::web::extract::page::{Path, Query};
use crate::web::percent::urlencode;

#[derive(Template, WebTemplate)]
#[template(path = "pages/boards.html")]
pub struct BoardsPage {
    pub boards: Vec<BoardRow>,
}

#[tracing::instrument(skip_all)]
pub async fn show_boards(State(state): State<AppState>) -> PageResult<BoardsPage> {
    Ok(BoardsPage {
        boards: catalog::boards(&state.pool).await?,
    })
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/kernels.html")]
pub struct KernelsPage {
    pub kernels: Vec<KernelRow>,
    /// The address of the next page, when more kernels follow.
    pub next: Option<String>,
    /// Whether this is a later page (so the first can be linked).
    pub later: bool,
}

/// A catalogue page from its rows fetched with one more than a page holds:
/// the page's rows, and the address of the next page (`next` of the last
/// row) when more follow.
fn one_page<T>(
    mut rows: Vec<T>,
    per_page: i64,
    next: impl Fn(&T) -> String,
) -> (Vec<T>, Option<String>) {
    let more = rows.len() as i64 > per_page;
    rows.truncate(per_page.max(0) as usize);
    let link = rows.last().filter(|_| more).map(next);
    (rows, link)
}

/// Kernels a page of `/kernels` lists.
pub const KERNELS_PER_PAGE: i64 = 50;

/// The query of a catalogue page that comes a page at a time.
#[derive(Debug, Default, serde::Deserialize)]
pub struct KernelsParams {
    /// The last version (or variant name) of the previous page.
    pub after: Option<String>,
}

#[tracing::instrument(skip_all)]
pub async fn show_kernels(
    State(state): State<AppState>,
    Query(p): Query<KernelsParams>,
) -> PageResult<KernelsPage> {
    let after = p.after.filter(|a| !a.is_empty());
    let rows = catalog::kernels_page(&state.pool, after.as_deref(), KERNELS_PER_PAGE + 1).await?;
    let (kernels, next) = one_page(rows, KERNELS_PER_PAGE, |k| {
        format!("/kernels?after={}", urlencode(&k.version))
    });
    Ok(KernelsPage {
        kernels,
        next,
        later: after.is_some(),
    })
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/variants.html")]
pub struct VariantsPage {
    pub variants: Vec<VariantRow>,
    /// The address of the next page, when more variants follow.
    pub next: Option<String>,
    /// Whether this is a later page (so the first can be linked).
    pub later: bool,
}

/// Variants a page of `/variants` lists.
pub const VARIANTS_PER_PAGE: i64 = 50;

#[tracing::instrument(skip_all)]
pub async fn show_variants(
    State(state): State<AppState>,
    Query(p): Query<KernelsParams>,
) -> PageResult<VariantsPage> {
    let after = p.after.filter(|a| !a.is_empty());
    let rows = catalog::variants_page(&state.pool, after.as_deref(), VARIANTS_PER_PAGE + 1).await?;
    let (variants, next) = one_page(rows, VARIANTS_PER_PAGE, |v| {
        format!("/variants?after={}", urlencode(&v.name))
    });
    Ok(VariantsPage {
        variants,
        next,
        later: after.is_some(),
    })
}

/// `/boards/{name}` and `/kernels/{version}`: one board or kernel, its
/// runs a page at a time, and the pages that look at it.
#[derive(Template, WebTemplate)]
#[template(path = "pages/scope.html")]
pub struct ScopePage {
    /// "Board" or "Kernel".
    pub what: &'static str,
    pub name: String,
    pub facts: Vec<(String, String)>,
    /// (label, address) of the pages about this board or kernel.
    pub links: Vec<(String, String)>,
    pub list: super::home::Listing,
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct ScopeParams {
    pub before: Option<i64>,
}

#[tracing::instrument(skip_all, fields(board = %name))]
pub async fn show_board(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(p): Query<ScopeParams>,
) -> PageResult<ScopePage> {
    // Any spelling of a board finds it (`/boards/rpi-5`), as uploads do.
    let name = crate::boards::canonical(&name);
    let board = catalog::boards(&state.pool)
        .await?
        .into_iter()
        .find(|b| b.name == name)
        .ok_or_else(|| AppError::not_found(format!("board '{name}'")))?;
    let filter = RunListing {
        board: Some(name.clone()),
        before: p.before,
        ..Default::default()
    };
    let base = format!("/boards/{}", urlencode(&name));
    let list = super::home::listing(&state, &filter, &base).await?;
    let mut facts = vec![("Runs".to_string(), board.runs.to_string())];
    if let Some(c) = board.board_class {
        facts.push(("Board class".into(), c));
    }
    if let Some(d) = board.description {
        facts.push(("Description".into(), d));
    }
    if let Some(t) = board.last_run {
        facts.push(("Last run".into(), t.format("%Y-%m-%d %H:%M").to_string()));
    }
    let q = urlencode(&name);
    Ok(ScopePage {
        what: "Board",
        links: vec![
            ("History".into(), format!("/history?board={q}")),
            ("Culprits".into(), format!("/culprits?board={q}")),
            ("Compare its runs".into(), format!("/compare?c=board%3A{q}")),
            ("All runs, filterable".into(), format!("/?board={q}")),
            ("All boards".into(), "/boards".into()),
        ],
        name,
        facts,
        list,
    })
}

#[tracing::instrument(skip_all, fields(kernel = %version))]
pub async fn show_kernel(
    State(state): State<AppState>,
    Path(version): Path<String>,
    Query(p): Query<ScopeParams>,
) -> PageResult<ScopePage> {
    let kernel = catalog::kernel(&state.pool, &version)
        .await?
        .ok_or_else(|| AppError::not_found(format!("kernel '{version}'")))?;
    let filter = RunListing {
        kernel: Some(version.clone()),
        before: p.before,
        ..Default::default()
    };
    let base = format!("/kernels/{}", urlencode(&version));
    let list = super::home::listing(&state, &filter, &base).await?;
    let mut facts = vec![
        ("Runs".to_string(), kernel.runs.to_string()),
        ("Boards".to_string(), kernel.boards.to_string()),
    ];
    if let Some(t) = kernel.last_run {
        facts.push(("Last run".into(), t.format("%Y-%m-%d %H:%M").to_string()));
    }
    let q = urlencode(&version);
    Ok(ScopePage {
        what: "Kernel",
        links: vec![
            ("Culprits".into(), format!("/culprits?kernel={q}")),
            (
                "Compare its runs".into(),
                format!("/compare?c=kernel%3A{q}"),
            ),
            ("All runs, filterable".into(), format!("/?kernel={q}")),
            ("All kernels".into(), "/kernels".into()),
        ],
        name: version,
        facts,
        list,
    })
}
