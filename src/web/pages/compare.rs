//! `/compare` (live comparison with a Share button), `/c/{slug}` permalinks
//! in four renderings, the heatmap, the culprit leaderboard, metric history
//! and variant chains.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use reclaimlab_report::compare::{Comparison, Significance};
use serde::Deserialize;

use super::{PageError, PageResult, fmt_us};
use crate::compare::{self, ColumnSpec, CompareRequest};
use crate::error::AppError;
use crate::web::AppState;

// ------------------------------------------------------------- view model

pub struct ColView {
    pub label: String,
    pub simulated: bool,
    pub runs: Vec<i64>,
    pub baseline: bool,
}

pub struct CellView {
    pub value: String,
    pub spread: String,
    pub n: String,
    pub delta: String,
    pub delta_prev: String,
    pub class: &'static str,
    pub verdict: String,
}

pub struct MetricRowView {
    pub stat: String,
    pub name: String,
    pub unit: String,
    pub cells: Vec<CellView>,
    pub noise: String,
}

pub struct ComparisonView {
    pub title: String,
    pub columns: Vec<ColView>,
    pub metrics: Vec<MetricRowView>,
    pub threads: Vec<(u32, Vec<String>)>,
    pub tails: Vec<(String, String, String, String, String)>,
    /// Per thread (CPU): "p99 / max" in each column, from histograms.
    pub thread_tails: Vec<(u32, Vec<String>)>,
    pub max_row: Vec<String>,
    pub culprit_row: Vec<String>,
    pub culprit_diffs: Vec<String>,
    pub notes: Vec<String>,
    pub has_latency: bool,
}

fn num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => {
            if x.abs() >= 100.0 || x.fract() == 0.0 {
                format!("{x:.2}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            } else {
                format!("{x:.3}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            }
        }
        _ => "-".into(),
    }
}

/// Per column "a / b / c" in microseconds, "-" where the column has none.
fn triples<T>(cells: &[Option<T>], pick: impl Fn(&T) -> [f64; 3]) -> Vec<String> {
    cells
        .iter()
        .map(|c| match c {
            Some(x) => pick(x).map(fmt_us).join(" / "),
            None => "-".into(),
        })
        .collect()
}

impl ComparisonView {
    pub fn new(c: &Comparison) -> Self {
        let columns = c
            .columns
            .iter()
            .enumerate()
            .map(|(i, col)| ColView {
                label: col.label.clone(),
                simulated: col.simulated,
                runs: col.runs.iter().map(|r| r.id).collect(),
                baseline: i == c.baseline,
            })
            .collect();
        let metrics = c
            .metrics
            .iter()
            .map(|m| MetricRowView {
                stat: m.stat.clone(),
                name: m.name.clone(),
                unit: m.unit.clone(),
                noise: m
                    .noise_floor_pct
                    .map(|p| format!("noise ±{p:.1}%"))
                    .unwrap_or_default(),
                cells: m
                    .cells
                    .iter()
                    .map(|cell| {
                        let d = cell.vs_baseline.as_ref();
                        let delta_prev = cell
                            .vs_previous
                            .as_ref()
                            .filter(|p| {
                                Some(p.against) != cell.vs_baseline.as_ref().map(|b| b.against)
                            })
                            .and_then(|p| {
                                p.pct.map(|x| {
                                    format!(
                                        "{x:+.2}%{} vs prev{}",
                                        p.significance.mark(),
                                        if p.printed { " as printed" } else { "" }
                                    )
                                })
                            })
                            .unwrap_or_default();
                        let (delta, class, verdict) = match d {
                            Some(d) => {
                                let mark = d.significance.mark();
                                let pct = d
                                    .pct
                                    .map(|p| {
                                        let how = if d.printed { " as printed" } else { "" };
                                        format!("{p:+.2}%{mark}{how}")
                                    })
                                    .unwrap_or_else(|| "-".into());
                                let class = match (d.pct, d.significance) {
                                    (
                                        Some(p),
                                        Significance::Significant | Significance::HighlySignificant,
                                    ) if p > 0.0 => "better",
                                    (
                                        Some(p),
                                        Significance::Significant | Significance::HighlySignificant,
                                    ) if p < 0.0 => "worse",
                                    _ => "",
                                };
                                (pct, class, d.verdict.clone())
                            }
                            None => (String::new(), "", String::new()),
                        };
                        CellView {
                            value: num(cell.mean),
                            spread: cell
                                .stddev
                                .filter(|_| cell.n > 1)
                                .map(|s| format!("±{}", num(Some(s))))
                                .unwrap_or_default(),
                            n: if cell.single_summary {
                                "summary".into()
                            } else {
                                format!("n={}", cell.n)
                            },
                            delta,
                            delta_prev,
                            class,
                            verdict,
                        }
                    })
                    .collect(),
            })
            .collect();
        let mut v = ComparisonView {
            title: c.title.clone(),
            columns,
            metrics,
            threads: Vec::new(),
            tails: Vec::new(),
            thread_tails: Vec::new(),
            max_row: Vec::new(),
            culprit_row: Vec::new(),
            culprit_diffs: Vec::new(),
            notes: c.notes.clone(),
            has_latency: false,
        };
        if let Some(l) = &c.latency {
            v.has_latency = true;
            v.threads = l
                .threads
                .iter()
                .map(|t| {
                    let cells = triples(&t.cells, |x| [x.min_us, x.avg_us, x.max_us]);
                    (t.thread, cells)
                })
                .collect();
            v.tails = c
                .columns
                .iter()
                .zip(&l.tails)
                .filter_map(|(col, t)| {
                    t.as_ref().map(|t| {
                        (
                            col.label.clone(),
                            fmt_us(t.p50),
                            fmt_us(t.p99),
                            fmt_us(t.p99_9),
                            fmt_us(t.max),
                        )
                    })
                })
                .collect();
            v.thread_tails = l
                .thread_tails
                .iter()
                .map(|t| (t.thread, triples(&t.cells, |x| [x.p99, x.p99_9, x.max])))
                .collect();
            v.max_row = l
                .max_us
                .iter()
                .map(|m| m.map(fmt_us).unwrap_or_else(|| "-".into()))
                .collect();
            v.culprit_row = l
                .culprits
                .iter()
                .map(|c| c.clone().unwrap_or_else(|| "-".into()))
                .collect();
            v.culprit_diffs = l
                .culprit_diffs
                .iter()
                .map(|d| {
                    format!(
                        "{} vs {}: {}",
                        c.columns
                            .get(d.column)
                            .map(|x| x.label.as_str())
                            .unwrap_or("?"),
                        c.columns
                            .get(d.against)
                            .map(|x| x.label.as_str())
                            .unwrap_or("?"),
                        d.sentence
                    )
                })
                .collect();
        }
        v
    }
}

// ------------------------------------------------------------- /compare

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
    pub chains: Vec<(String, usize)>,
}

pub async fn show_compare(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> PageResult<ComparePage> {
    let chains = crate::storage::catalog::chain_heads(&state.pool).await?;
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
    match compare::resolve(&state.pool, req).await {
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

pub async fn show_compare_chart(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> Result<Response, PageError> {
    let p = parse_compare_params(uri.query().unwrap_or(""))?;
    let req = request_from(&state, &p)
        .await?
        .ok_or_else(|| AppError::BadRequest("no columns".into()))?;
    let r = compare::resolve(&state.pool, req).await?;
    let svg = compare::chart(&r.comparison)
        .ok_or_else(|| AppError::NotFound("nothing to chart".into()))?;
    Ok(svg_response(svg, false))
}

pub fn svg_response(svg: String, immutable: bool) -> Response {
    let mut r = ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response();
    if immutable {
        r.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
    }
    r
}

/// State-changing forms accept only same-origin posts (CSRF).
pub fn same_origin(headers: &HeaderMap) -> Result<(), AppError> {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site != "same-origin" && site != "none" {
            return Err(AppError::Forbidden(
                "cross-site form posts are refused".into(),
            ));
        }
        return Ok(());
    }
    if let (Some(origin), Some(host)) = (
        headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    ) {
        let o = origin
            .trim_start_matches("http://")
            .trim_start_matches("https://");
        if o != host {
            return Err(AppError::Forbidden(
                "cross-site form posts are refused".into(),
            ));
        }
    }
    Ok(())
}

/// A permalink is permanent and costs storage, so making one takes an
/// upload token (the form's `token` field), which it records as its owner.
pub async fn share_compare(
    State(state): State<AppState>,
    peer: crate::auth::ClientAddr,
    headers: HeaderMap,
    body: String,
) -> Result<Response, PageError> {
    same_origin(&headers)?;
    let caller = super::form_caller(&state, peer, &super::form_fields(&body)).await?;
    let rest: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(url::form_urlencoded::parse(body.as_bytes()).filter(|(k, _)| k != "token"))
        .finish();
    let p = parse_compare_params(&rest)?;
    let req = request_from(&state, &p)
        .await?
        .ok_or_else(|| AppError::BadRequest("no columns to share".into()))?;
    let slug = create_snapshot(&state, req, Some(caller.token.id), None).await?;
    Ok(Redirect::to(&format!("/c/{slug}")).into_response())
}

// ------------------------------------------------------------- permalinks

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

const SLUG_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// 12 characters from the OS CSPRNG: about 71 bits.
pub fn new_slug() -> String {
    use rand::TryRngCore;
    let mut bytes = [0u8; 12];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .expect("OS random number generator");
    bytes
        .iter()
        .map(|b| SLUG_CHARS[(*b as usize) % SLUG_CHARS.len()] as char)
        .collect()
}

/// Freeze a comparison: render every form once and store the bytes.
pub async fn create_snapshot(
    state: &AppState,
    req: CompareRequest,
    token_id: Option<i64>,
    message_id: Option<&str>,
) -> Result<String, AppError> {
    let resolved = compare::resolve(&state.pool, req).await?;
    let c = &resolved.comparison;
    let created = chrono::Utc::now();
    let svg = compare::chart(c);
    let comparison_json = serde_json::to_value(c).map_err(|e| AppError::Internal(e.into()))?;
    let spec = serde_json::to_value(&resolved.request).map_err(|e| AppError::Internal(e.into()))?;
    for _ in 0..5 {
        let slug = new_slug();
        let url = state.url(&format!("/c/{slug}"));
        let text = reclaimlab_report::text::render_text(c, &url);
        let json = serde_json::to_string_pretty(&serde_json::json!({
            "slug": slug,
            "url": url,
            "created_at": created.to_rfc3339(),
            "request": spec,
            "run_ids": resolved.run_ids,
            "message_id": message_id,
            "comparison": comparison_json,
        }))
        .map_err(|e| AppError::Internal(e.into()))?;
        let html = SnapshotPage {
            view: ComparisonView::new(c),
            slug: &slug,
            url: &url,
            created: created.format("%Y-%m-%d %H:%M UTC").to_string(),
            has_svg: svg.is_some(),
            text: &text,
            message_id,
        }
        .render()
        .map_err(|e| AppError::Internal(anyhow::anyhow!("render snapshot: {e}")))?;
        let inserted = crate::storage::snapshots::insert(
            &state.pool,
            &crate::storage::snapshots::NewSnapshot {
                slug: &slug,
                title: &c.title,
                spec: &spec,
                run_ids: &resolved.run_ids,
                comparison: &comparison_json,
                body_html: &html,
                body_txt: &text,
                body_json: &json,
                body_svg: svg.as_deref(),
                token_id,
                message_id,
            },
        )
        .await?;
        if inserted {
            return Ok(slug);
        }
    }
    Err(AppError::Internal(anyhow::anyhow!(
        "could not draw an unused permalink slug"
    )))
}

/// `/c/{slug}`, `/c/{slug}.txt`, `.json`, `.svg`: the stored bytes, as they
/// were first served, with a strong ETag and `immutable` caching.
pub async fn show_snapshot(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let (slug, ext) = match name.rsplit_once('.') {
        Some((s, e)) => (s, e),
        None => (name.as_str(), "html"),
    };
    let snap = match state.snapshots.get(slug) {
        Some(s) => s,
        None => {
            let s = crate::storage::snapshots::get(&state.pool, slug)
                .await?
                .ok_or_else(|| AppError::not_found(format!("permalink /c/{slug}")))?;
            if s.removed_at.is_some() {
                return Err(AppError::Gone(format!("permalink /c/{slug} was removed")).into());
            }
            let s = std::sync::Arc::new(s);
            state.snapshots.put(s.clone());
            s
        }
    };
    let (ctype, body) = match ext {
        "html" => ("text/html; charset=utf-8", snap.body_html.clone()),
        "txt" => ("text/plain; charset=utf-8", snap.body_txt.clone()),
        "json" => ("application/json", snap.body_json.clone()),
        "svg" => (
            "image/svg+xml",
            snap.body_svg
                .clone()
                .ok_or_else(|| AppError::NotFound("this comparison has no chart".into()))?,
        ),
        other => {
            return Err(AppError::NotFound(format!(
                "no '.{other}' rendering; try .txt, .json or .svg"
            ))
            .into());
        }
    };
    let etag = format!(
        "\"{}\"",
        hex::encode(&crate::ingest::sha256(body.as_bytes())[..16])
    );
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::ETAG, etag),
            (
                header::CACHE_CONTROL,
                "public, max-age=31536000, immutable".to_string(),
            ),
        ],
        body,
    )
        .into_response())
}

// ------------------------------------------------------------- overviews

#[derive(Debug, Default, Deserialize)]
pub struct HeatmapParams {
    pub metric: Option<String>,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/heatmap.html")]
pub struct HeatmapPage {
    pub metric: String,
    pub metrics: Vec<String>,
    pub svg_url: String,
    pub rows: Vec<(String, String, String, i64, String)>,
}

async fn heatmap_data(
    state: &AppState,
    metric: Option<&str>,
) -> Result<
    (
        reclaimlab_report::svg::Heatmap,
        Vec<crate::storage::compare::Cell>,
    ),
    AppError,
> {
    let cells = match metric {
        None => crate::storage::compare::heatmap_worst_latency(&state.pool).await?,
        Some(m) => crate::storage::compare::heatmap_metric(&state.pool, m).await?,
    };
    let mut boards: Vec<String> = cells.iter().map(|c| c.board.clone()).collect();
    boards.sort();
    boards.dedup();
    let mut kernels: Vec<String> = cells.iter().map(|c| c.kernel.clone()).collect();
    kernels.sort();
    kernels.dedup();
    let values = boards
        .iter()
        .map(|b| {
            kernels
                .iter()
                .map(|k| {
                    cells
                        .iter()
                        .find(|c| &c.board == b && &c.kernel == k)
                        .and_then(|c| c.value)
                })
                .collect()
        })
        .collect();
    let (title, unit, better) = match metric {
        None => (
            "Worst-case latency, boards x kernels".to_string(),
            "us".to_string(),
            reclaimlab_report::compare::Better::Lower,
        ),
        Some(m) => (
            format!("{m}, boards x kernels (mean over runs)"),
            String::new(),
            compare::better_for(m, None, None),
        ),
    };
    Ok((
        reclaimlab_report::svg::Heatmap {
            title,
            unit,
            better,
            row_labels: boards,
            col_labels: kernels,
            values,
        },
        cells,
    ))
}

pub async fn show_heatmap(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> PageResult<HeatmapPage> {
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let (_, cells) = heatmap_data(&state, metric.as_deref()).await?;
    let q = metric
        .as_deref()
        .map(|m| format!("?metric={}", urlencode(m)))
        .unwrap_or_default();
    Ok(HeatmapPage {
        metric: metric.clone().unwrap_or_else(|| "worst_latency".into()),
        metrics: crate::storage::compare::metric_names(&state.pool).await?,
        svg_url: format!("/heatmap.svg{q}"),
        rows: cells
            .into_iter()
            .map(|c| {
                let link = format!(
                    "/compare?c={}",
                    urlencode(&format!("board:{};kernel:{}", c.board, c.kernel))
                );
                (
                    c.board,
                    c.kernel,
                    c.value.map(fmt_us).unwrap_or_default(),
                    c.runs,
                    link,
                )
            })
            .collect(),
    })
}

pub async fn show_heatmap_svg(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> Result<Response, PageError> {
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let (h, _) = heatmap_data(&state, metric.as_deref()).await?;
    Ok(svg_response(reclaimlab_report::svg::heatmap(&h), false))
}

pub fn urlencode(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                o.push(b as char)
            }
            _ => o.push_str(&format!("%{b:02X}")),
        }
    }
    o
}

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

impl CulpritsPage {
    pub fn us(&self, v: &f64) -> String {
        fmt_us(*v)
    }
}

pub async fn show_culprits(
    State(state): State<AppState>,
    Query(p): Query<CulpritParams>,
) -> PageResult<CulpritsPage> {
    let board = p.board.filter(|b| !b.is_empty());
    let kernel = p.kernel.filter(|k| !k.is_empty());
    Ok(CulpritsPage {
        rows: crate::storage::compare::culprits(&state.pool, board.as_deref(), kernel.as_deref())
            .await?,
        board: board.unwrap_or_default(),
        kernel: kernel.unwrap_or_default(),
    })
}

#[derive(Debug, Default, Deserialize)]
pub struct HistoryParams {
    pub board: Option<String>,
    pub metric: Option<String>,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/history.html")]
pub struct HistoryPage {
    pub board: String,
    pub metric: String,
    pub boards: Vec<String>,
    pub svg_url: Option<String>,
    pub points: Vec<(i64, String, String, String)>,
}

pub async fn show_history(
    State(state): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> PageResult<HistoryPage> {
    let boards = crate::storage::catalog::boards(&state.pool)
        .await?
        .into_iter()
        .map(|b| b.name)
        .collect();
    let board = p.board.clone().filter(|b| !b.is_empty());
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let mut page = HistoryPage {
        board: board.clone().unwrap_or_default(),
        metric: metric.clone().unwrap_or_else(|| "worst_latency".into()),
        boards,
        svg_url: None,
        points: Vec::new(),
    };
    if let Some(b) = &board {
        let pts = crate::storage::compare::history(&state.pool, b, metric.as_deref()).await?;
        page.points = pts
            .iter()
            .map(|p| {
                (
                    p.run_id,
                    p.kernel.clone(),
                    fmt_us(p.value),
                    p.created_at.format("%Y-%m-%d %H:%M").to_string(),
                )
            })
            .collect();
        if !pts.is_empty() {
            page.svg_url = Some(format!(
                "/history.svg?board={}&metric={}",
                urlencode(b),
                urlencode(metric.as_deref().unwrap_or("worst_latency"))
            ));
        }
    }
    Ok(page)
}

pub async fn show_history_svg(
    State(state): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> Result<Response, PageError> {
    let board = p
        .board
        .clone()
        .filter(|b| !b.is_empty())
        .ok_or_else(|| AppError::BadRequest("board is required".into()))?;
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let pts = crate::storage::compare::history(&state.pool, &board, metric.as_deref()).await?;
    // One line per kernel, x = upload order.
    let mut series: Vec<reclaimlab_report::svg::Series> = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        match series.iter_mut().find(|s| s.label == p.kernel) {
            Some(s) => s.points.push((i as f64 + 1.0, p.value)),
            None => series.push(reclaimlab_report::svg::Series {
                label: p.kernel.clone(),
                points: vec![(i as f64 + 1.0, p.value)],
            }),
        }
    }
    let y = metric
        .clone()
        .unwrap_or_else(|| "worst latency (us)".into());
    Ok(svg_response(
        reclaimlab_report::svg::line_plot(
            &format!("{y} on {board}"),
            "run (upload order)",
            &y,
            &series,
        ),
        false,
    ))
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/variant.html")]
pub struct VariantPage {
    pub name: String,
    pub chain: Vec<String>,
    pub compare_url: String,
    pub runs: Vec<crate::storage::runs::RunSummary>,
    pub message_id: Option<String>,
}

pub async fn show_variant(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> PageResult<VariantPage> {
    let chain = crate::storage::compare::variant_chain(&state.pool, &name).await?;
    if chain.is_empty() {
        return Err(AppError::not_found(format!("variant '{name}'")).into());
    }
    let runs = crate::storage::runs::recent(
        &state.pool,
        &crate::storage::runs::RunFilter {
            variant: Some(name.clone()),
            ..Default::default()
        },
        200,
    )
    .await?;
    let message_id = crate::storage::catalog::variants(&state.pool)
        .await?
        .into_iter()
        .find(|v| v.name == name)
        .and_then(|v| v.series_message_id.or(v.message_id));
    Ok(VariantPage {
        compare_url: format!("/compare?chain={}", urlencode(&name)),
        name,
        chain,
        runs,
        message_id,
    })
}
