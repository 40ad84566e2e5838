//! `/`: the runs, newest first, a page at a time, filtered by board,
//! kernel, variant, measured/simulated and tool. A plain GET form: works
//! without JavaScript, and every page of results has its own address.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use super::PageResult;
use crate::storage::overview::{self, RunListing};
use crate::storage::runs::RunSummary;
use crate::web::AppState;
use crate::web::extract::page::Query;

/// Runs per page.
pub const PAGE: i64 = 50;

/// The tools a run's block can come from (the parse document's kinds).
pub const TOOLS: [&str; 10] = [
    "cyclictest",
    "ftrace_latency",
    "rtla",
    "table",
    "time",
    "metrics",
    "counters",
    "lock_contention",
    "distribution",
    "profile",
];

/// The query of the home page; blank fields (an untouched form) are unset.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct HomeParams {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    /// `measured` or `simulated`.
    pub kind: Option<String>,
    /// The block kind: one of [`TOOLS`].
    pub tool: Option<String>,
    /// Runs older than this id.
    pub before: Option<i64>,
}

fn set(v: &Option<String>) -> Option<String> {
    v.as_ref()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

impl HomeParams {
    pub fn listing(&self) -> RunListing {
        RunListing {
            board: set(&self.board).map(|b| crate::boards::canonical(&b)),
            kernel: set(&self.kernel),
            variant: set(&self.variant),
            kind: set(&self.kind),
            block_kind: set(&self.tool),
            before: self.before,
        }
    }
}

/// One page of a listing, with the links to the pages around it.
pub struct Listing {
    pub runs: Vec<RunSummary>,
    /// The next (older) page, when there is one.
    pub older: Option<String>,
    /// The first page of the same filter, when this is not it.
    pub newest: Option<String>,
}

/// The query string of a listing's filters (without `before`).
pub fn filter_query(l: &RunListing) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in [
        ("board", &l.board),
        ("kernel", &l.kernel),
        ("variant", &l.variant),
        ("kind", &l.kind),
        ("tool", &l.block_kind),
    ] {
        if let Some(v) = v {
            q.append_pair(k, v);
        }
    }
    q.finish()
}

/// Fetch one page of `l`; links go to `base` (the page's own path).
pub async fn listing(state: &AppState, l: &RunListing, base: &str) -> PageResult<Listing> {
    let (runs, more) = overview::run_page(&state.pool, l, PAGE).await?;
    let q = filter_query(l);
    let with = |extra: String| {
        let all: Vec<&str> = [q.as_str(), extra.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        if all.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", all.join("&"))
        }
    };
    let older = match (more, runs.last()) {
        (true, Some(last)) => Some(with(format!("before={}", last.id))),
        _ => None,
    };
    let newest = l.before.map(|_| with(String::new()));
    Ok(Listing {
        runs,
        older,
        newest,
    })
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/home.html")]
pub struct HomePage {
    pub list: Listing,
    pub filter: RunListing,
    pub filtered: bool,
    pub boards: Vec<String>,
    pub kernels: Vec<String>,
    pub variants: Vec<String>,
    pub tools: &'static [&'static str],
}

/// The filter choices are the boards, kernels and variants with listed
/// runs: an unlisted upload's names appear nowhere.
#[tracing::instrument(skip_all)]
pub async fn show_home(
    State(state): State<AppState>,
    Query(p): Query<HomeParams>,
) -> PageResult<HomePage> {
    let filter = p.listing();
    let list = listing(&state, &filter, "/").await?;
    let (boards, kernels, variants) =
        crate::storage::catalog::names_with_listed_runs(&state.pool).await?;
    let filtered = !filter_query(&filter).is_empty();
    Ok(HomePage {
        list,
        filter,
        filtered,
        boards,
        kernels,
        variants,
        tools: &TOOLS,
    })
}

impl HomePage {
    pub fn is(&self, field: &str, v: &str) -> bool {
        let f = match field {
            "board" => &self.filter.board,
            "kernel" => &self.filter.kernel,
            "kind" => &self.filter.kind,
            "tool" => &self.filter.block_kind,
            _ => &self.filter.variant,
        };
        f.as_deref() == Some(v)
    }
    pub fn variant_value(&self) -> String {
        self.filter.variant.clone().unwrap_or_default()
    }
}
