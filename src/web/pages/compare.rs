//! `/compare` (live comparison with a Share button), `/c/{slug}` permalinks
//! in four renderings, the heatmap, the culprit leaderboard, metric history
//! and variant chains.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;

use crate::web::extract::page::{Form, Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use reclaimlab_report::compare::{Comparison, Judgement, Significance};
use reclaimlab_report::fmt;
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
    /// The mail's own delta for this cell, as printed.
    pub printed: String,
    pub class: &'static str,
    pub verdict: String,
}

pub struct MetricRowView {
    /// The table or test the row belongs to, set on its first row.
    pub section: Option<String>,
    pub stat: String,
    pub name: String,
    pub unit: String,
    /// "lower is better", "higher is better", "not judged", and where the
    /// direction came from.
    pub direction: String,
    pub cells: Vec<CellView>,
    pub noise: String,
}

/// One kind of worst latency (cyclictest max, or one tracer) per column.
pub struct WorstView {
    pub label: String,
    pub cells: Vec<String>,
    pub culprits: Vec<String>,
    pub has_culprits: bool,
}

pub struct TailView {
    pub column: String,
    pub p50: String,
    pub p99: String,
    pub p99_9: String,
    pub max: String,
    pub samples: String,
    pub overflows: String,
}

pub struct ComparisonView {
    pub title: String,
    pub columns: Vec<ColView>,
    pub metrics: Vec<MetricRowView>,
    pub threads: Vec<(u32, Vec<String>)>,
    pub tails: Vec<TailView>,
    /// Per thread (CPU): "p99 / p99.9 / max" in each column, from histograms.
    pub thread_tails: Vec<(u32, Vec<String>)>,
    pub worst: Vec<WorstView>,
    pub culprit_diffs: Vec<String>,
    pub family: String,
    pub notes: Vec<String>,
    pub has_latency: bool,
}

/// Per column "a / b / c", "-" where the column has none.
fn triples<T>(cells: &[Option<T>], pick: impl Fn(&T) -> [String; 3]) -> Vec<String> {
    cells
        .iter()
        .map(|c| match c {
            Some(x) => pick(x).join(" / "),
            None => "-".into(),
        })
        .collect()
}

fn direction_words(m: &reclaimlab_report::compare::MetricComparison) -> String {
    use reclaimlab_report::direction::DirectionSource;
    let src = match m.direction_source {
        DirectionSource::Rule => "",
        DirectionSource::Upload => " (as uploaded)",
        DirectionSource::Printed => " (from the printed gain)",
        DirectionSource::Unknown => " (direction unknown)",
    };
    format!("{}{src}", m.better.words())
}

fn delta_text(d: &reclaimlab_report::compare::Delta) -> String {
    let Some(p) = d.pct else {
        return "-".into();
    };
    let word = d.judgement.word();
    let how = if d.printed { " as printed" } else { "" };
    let mut s = format!("{}{}{how}", fmt::pct(Some(p)), d.significance.mark());
    if !word.is_empty() && word != "no change" {
        s.push(' ');
        s.push_str(word);
    }
    s
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
        let mut last_scope: Option<&str> = None;
        let metrics = c
            .metrics
            .iter()
            .map(|m| MetricRowView {
                section: if last_scope != Some(m.scope.as_str()) {
                    last_scope = Some(m.scope.as_str());
                    Some(if m.section.is_empty() {
                        "metrics".to_string()
                    } else {
                        m.section.clone()
                    })
                } else {
                    None
                },
                stat: m.stat.clone(),
                name: m.name.clone(),
                unit: m.unit.clone(),
                direction: direction_words(m),
                noise: m
                    .noise_floor_pct
                    .map(|p| format!("noise ±{}%", fmt::compact(p)))
                    .unwrap_or_default(),
                cells: m
                    .cells
                    .iter()
                    .map(|cell| {
                        let d = cell.vs_baseline.as_ref().filter(|d| d.pct.is_some());
                        let prev = cell.vs_previous.as_ref().filter(|p| p.pct.is_some());
                        // Shown beside the baseline delta only: when there is
                        // none, the previous column's delta is the main one.
                        let delta_prev = prev
                            .filter(|p| d.is_some_and(|b| b.against != p.against))
                            .map(|p| format!("{} vs prev", delta_text(p)))
                            .unwrap_or_default();
                        // The delta shown first: against the baseline when the
                        // baseline has this row, else against the previous
                        // column (a chain's link, as its mail printed it).
                        let main = d.or(prev);
                        let main_is_prev = d.is_none() && prev.is_some();
                        let printed = main
                            .and_then(|d| d.printed_pct.map(|p| (p, d.printed_convention)))
                            .map(|(p, conv)| {
                                let conv = match conv {
                                    Some(reclaimlab_report::compare::DeltaConvention::Gain) => {
                                        " gain"
                                    }
                                    _ => "",
                                };
                                format!("mail: {}{conv}", fmt::pct(Some(p)))
                            })
                            .unwrap_or_default();
                        let (delta, class, verdict) = match main {
                            Some(d) => {
                                let judged = matches!(
                                    d.significance,
                                    Significance::Significant
                                        | Significance::HighlySignificant
                                        | Significance::NoVariance
                                );
                                let class = match d.judgement {
                                    Judgement::Better if judged => "better",
                                    Judgement::Worse if judged => "worse",
                                    _ => "",
                                };
                                let mut t = delta_text(d);
                                if main_is_prev {
                                    t.push_str(" vs prev");
                                }
                                (t, class, d.verdict.clone())
                            }
                            None => (String::new(), "", String::new()),
                        };
                        CellView {
                            value: cell.mean.map(fmt::value).unwrap_or_else(|| "-".into()),
                            spread: match cell.stddev.filter(|_| cell.n > 1) {
                                Some(0.0) => "no spread".into(),
                                Some(s) => format!("±{}", fmt::compact(s)),
                                None => String::new(),
                            },
                            n: if cell.single_summary {
                                "summary".into()
                            } else if cell.n == 0 {
                                String::new()
                            } else {
                                format!("n={}", cell.n)
                            },
                            delta,
                            delta_prev,
                            printed,
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
            worst: Vec::new(),
            culprit_diffs: Vec::new(),
            family: c.family.sentence.clone(),
            notes: c.notes.clone(),
            has_latency: false,
        };
        if let Some(l) = &c.latency {
            v.has_latency = true;
            v.threads = l
                .threads
                .iter()
                .map(|t| {
                    let cells = triples(&t.cells, |x| {
                        [fmt::us(x.min_us), fmt::us(x.avg_us), fmt::us(x.max_us)]
                    });
                    (t.thread, cells)
                })
                .collect();
            v.tails = c
                .columns
                .iter()
                .zip(&l.tails)
                .filter_map(|(col, t)| {
                    t.as_ref().map(|t| TailView {
                        column: col.label.clone(),
                        p50: t.p50.show(),
                        p99: t.p99.show(),
                        p99_9: t.p99_9.show(),
                        max: t.max.show(),
                        samples: t.count.to_string(),
                        overflows: t.overflows.to_string(),
                    })
                })
                .collect();
            v.thread_tails = l
                .thread_tails
                .iter()
                .map(|t| {
                    (
                        t.thread,
                        triples(&t.cells, |x| [x.p99.show(), x.p99_9.show(), x.max.show()]),
                    )
                })
                .collect();
            v.worst = l
                .worst
                .iter()
                .map(|w| WorstView {
                    label: w.label.clone(),
                    cells: w
                        .cells
                        .iter()
                        .map(|m| m.map(|p| p.show()).unwrap_or_else(|| "-".into()))
                        .collect(),
                    culprits: w
                        .culprits
                        .iter()
                        .map(|c| c.clone().unwrap_or_else(|| "-".into()))
                        .collect(),
                    has_culprits: w.culprits.iter().any(Option::is_some),
                })
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
    pub permalinks: Vec<crate::storage::overview::PermalinkRow>,
}

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
    Form(form): Form,
) -> Result<Response, PageError> {
    same_origin(&headers)?;
    let caller = super::form_caller(&state, peer, &form.map).await?;
    let rest: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            url::form_urlencoded::parse(form.raw.as_bytes()).filter(|(k, _)| k != "token"),
        )
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
    let resolved = compare::resolve(&state.pool, req, compare::Detail::Full).await?;
    // A permalink of nothing would be a permanent claim about nothing.
    if let Some(i) = resolved
        .comparison
        .columns
        .iter()
        .position(|c| c.runs.is_empty())
    {
        return Err(AppError::Unprocessable {
            message: format!(
                "column {i} ({}) selects no runs: nothing to freeze",
                resolved.comparison.columns[i].label
            ),
            line: None,
        });
    }
    let c = &resolved.comparison;
    let created = chrono::Utc::now();
    let svg = compare::chart(c);
    let comparison_json = serde_json::to_value(c).map_err(|e| AppError::Internal(e.into()))?;
    let spec = serde_json::to_value(&resolved.request).map_err(|e| AppError::Internal(e.into()))?;
    for _ in 0..5 {
        let slug = new_slug();
        let url = state.url(&format!("/c/{slug}"));
        let full_url = state.url(&format!("/c/{slug}.full.txt"));
        let full_text = reclaimlab_report::text::render_text(c, &url);
        let text = reclaimlab_report::text::render_reply(c, &url, &full_url);
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
                body_full_txt: &full_text,
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
    let (slug, ext) = match name.strip_suffix(".full.txt") {
        Some(s) => (s, "full.txt"),
        None => match name.rsplit_once('.') {
            Some((s, e)) => (s, e),
            None => (name.as_str(), "html"),
        },
    };
    let snap = state
        .snapshots
        .load(&state.pool, slug)
        .await?
        .ok_or_else(|| AppError::not_found(format!("permalink /c/{slug}")))?;
    if snap.removed_at.is_some() {
        return Err(AppError::Gone(format!("permalink /c/{slug} was removed")).into());
    }
    let (ctype, body) = match ext {
        "html" => ("text/html; charset=utf-8", snap.body_html.clone()),
        "txt" => ("text/plain; charset=utf-8", snap.body_txt.clone()),
        "full.txt" => (
            "text/plain; charset=utf-8",
            snap.body_full_txt
                .clone()
                .unwrap_or_else(|| snap.body_txt.clone()),
        ),
        "json" => ("application/json", snap.body_json.clone()),
        "svg" => (
            "image/svg+xml",
            snap.body_svg
                .clone()
                .ok_or_else(|| AppError::NotFound("this comparison has no chart".into()))?,
        ),
        other => {
            return Err(AppError::NotFound(format!(
                "no '.{other}' rendering; try .txt, .full.txt, .json or .svg"
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
    /// Latency kind: "cyclictest" or a tracer.
    pub kind: Option<String>,
    /// Show this variant's cells; by default each cell shows the variant
    /// measured last on its board and kernel.
    pub variant: Option<String>,
}

pub struct HeatmapRow {
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub value: String,
    pub runs: i64,
    pub link: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/heatmap.html")]
pub struct HeatmapPage {
    pub metric: String,
    pub metrics: Vec<String>,
    pub kind: String,
    pub kinds: Vec<String>,
    pub variant: String,
    pub svg_url: String,
    pub rows: Vec<HeatmapRow>,
}

/// What a heatmap request asks for, with defaults filled in.
struct HeatmapQuery {
    metric: Option<String>,
    kind: String,
    kinds: Vec<String>,
    variant: Option<String>,
}

async fn heatmap_query(state: &AppState, p: &HeatmapParams) -> Result<HeatmapQuery, AppError> {
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let kinds = crate::storage::compare::heatmap_kinds(&state.pool).await?;
    let kind = p
        .kind
        .clone()
        .filter(|k| !k.is_empty())
        .or_else(|| kinds.first().cloned())
        .unwrap_or_else(|| "cyclictest".into());
    let variant = p.variant.clone().filter(|v| !v.is_empty());
    Ok(HeatmapQuery {
        metric,
        kind,
        kinds,
        variant,
    })
}

async fn heatmap_data(
    state: &AppState,
    q: &HeatmapQuery,
) -> Result<
    (
        reclaimlab_report::svg::Heatmap,
        Vec<crate::storage::compare::Cell>,
    ),
    AppError,
> {
    let cells = match &q.metric {
        None => {
            crate::storage::compare::heatmap_worst_latency(
                &state.pool,
                &q.kind,
                q.variant.as_deref(),
            )
            .await?
        }
        Some(m) => {
            crate::storage::compare::heatmap_metric(&state.pool, m, q.variant.as_deref()).await?
        }
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
    let which = match &q.variant {
        Some(v) => format!("variant {v}"),
        None => "each cell: the variant measured last".to_string(),
    };
    let (title, unit, better) = match &q.metric {
        None => (
            format!("Worst {} latency, boards x kernels ({which})", q.kind),
            "us".to_string(),
            reclaimlab_report::compare::Better::Lower,
        ),
        Some(m) => (
            format!("{m}, boards x kernels, mean over runs ({which})"),
            String::new(),
            reclaimlab_report::direction::lookup(reclaimlab_report::direction::MetricFacts {
                name: m,
                ..Default::default()
            })
            .0,
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

fn heatmap_qs(q: &HeatmapQuery) -> String {
    let mut parts = Vec::new();
    if let Some(m) = &q.metric {
        parts.push(format!("metric={}", urlencode(m)));
    } else {
        parts.push(format!("kind={}", urlencode(&q.kind)));
    }
    if let Some(v) = &q.variant {
        parts.push(format!("variant={}", urlencode(v)));
    }
    format!("?{}", parts.join("&"))
}

pub async fn show_heatmap(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> PageResult<HeatmapPage> {
    let q = heatmap_query(&state, &p).await?;
    let (_, cells) = heatmap_data(&state, &q).await?;
    Ok(HeatmapPage {
        metric: q.metric.clone().unwrap_or_else(|| "worst_latency".into()),
        metrics: crate::storage::compare::metric_names(&state.pool).await?,
        kind: q.kind.clone(),
        kinds: q.kinds.clone(),
        variant: q.variant.clone().unwrap_or_default(),
        svg_url: format!("/heatmap.svg{}", heatmap_qs(&q)),
        rows: cells
            .into_iter()
            .map(|c| {
                let link = format!(
                    "/compare?c={}",
                    urlencode(&format!(
                        "board:{};kernel:{};variant:{}",
                        c.board, c.kernel, c.variant
                    ))
                );
                HeatmapRow {
                    value: c.value.map(fmt_us).unwrap_or_default(),
                    board: c.board,
                    kernel: c.kernel,
                    variant: c.variant,
                    runs: c.runs,
                    link,
                }
            })
            .collect(),
    })
}

pub async fn show_heatmap_svg(
    State(state): State<AppState>,
    Query(p): Query<HeatmapParams>,
) -> Result<Response, PageError> {
    let q = heatmap_query(&state, &p).await?;
    let (h, _) = heatmap_data(&state, &q).await?;
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
    /// Latency kind of the worst-latency history: cyclictest or a tracer.
    pub kind: Option<String>,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/history.html")]
pub struct HistoryPage {
    pub board: String,
    pub metric: String,
    pub kind: String,
    pub boards: Vec<String>,
    pub svg_url: Option<String>,
    pub points: Vec<HistoryRow>,
    pub note: Option<String>,
}

pub struct HistoryRow {
    pub run_id: i64,
    pub kernel: String,
    pub variant: String,
    pub value: String,
    pub uploaded: String,
}

pub async fn show_history(
    State(state): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> PageResult<HistoryPage> {
    let rows = crate::storage::catalog::boards(&state.pool).await?;
    let metric = p
        .metric
        .clone()
        .filter(|m| !m.is_empty() && m != "worst_latency");
    let kind = p
        .kind
        .clone()
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| "cyclictest".into());
    let mut board = p.board.clone().filter(|b| !b.is_empty());
    if board.is_none() {
        // Open on a board that has this history: the busiest few are tried.
        let mut busiest: Vec<_> = rows.iter().filter(|b| b.runs > 0).collect();
        busiest.sort_by_key(|b| std::cmp::Reverse(b.runs));
        for b in busiest.into_iter().take(5) {
            let (pts, _) =
                crate::storage::compare::history(&state.pool, &b.name, metric.as_deref(), &kind)
                    .await?;
            if !pts.is_empty() {
                board = Some(b.name.clone());
                break;
            }
        }
    }
    let boards = rows.into_iter().map(|b| b.name).collect();
    let mut page = HistoryPage {
        board: board.clone().unwrap_or_default(),
        metric: metric.clone().unwrap_or_else(|| "worst_latency".into()),
        kind: kind.clone(),
        boards,
        svg_url: None,
        points: Vec::new(),
        note: None,
    };
    if let Some(b) = &board {
        let (pts, cut) =
            crate::storage::compare::history(&state.pool, b, metric.as_deref(), &kind).await?;
        if cut {
            page.note = Some(format!(
                "The newest {} days are shown; older ones are left out.",
                crate::storage::compare::HISTORY_DAYS
            ));
        }
        page.points = pts
            .iter()
            .map(|p| HistoryRow {
                run_id: p.max_run,
                kernel: p.kernel.clone(),
                variant: p.max_variant.clone(),
                value: match (p.runs, metric.is_some()) {
                    (1, _) => fmt_us(p.max_value),
                    (n, false) => format!(
                        "{} (worst of {n} runs; mean {})",
                        fmt_us(p.max_value),
                        fmt_us(p.mean)
                    ),
                    (n, true) => format!(
                        "{} (mean of {n} runs; highest {})",
                        fmt_us(p.mean),
                        fmt_us(p.max_value)
                    ),
                },
                uploaded: p.day.format("%Y-%m-%d").to_string(),
            })
            .collect();
        if !pts.is_empty() {
            page.svg_url = Some(format!(
                "/history.svg?board={}&metric={}&kind={}",
                urlencode(b),
                urlencode(metric.as_deref().unwrap_or("worst_latency")),
                urlencode(&kind)
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
    let kind = p
        .kind
        .clone()
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| "cyclictest".into());
    let (pts, _) =
        crate::storage::compare::history(&state.pool, &board, metric.as_deref(), &kind).await?;
    // One line per kernel, x = the UTC day the runs were stored (days since
    // the first day shown), so a gap between test nights shows as a gap;
    // y = the day's worst latency, or the day's mean of a metric.
    let t0 = pts.first().map(|p| p.day);
    let day = |p: &crate::storage::compare::HistoryPoint| {
        t0.map_or(0.0, |t| (p.day - t).num_days() as f64)
    };
    let value = |p: &crate::storage::compare::HistoryPoint| {
        if metric.is_some() {
            p.mean
        } else {
            p.max_value
        }
    };
    let mut series: Vec<reclaimlab_report::svg::Series> = Vec::new();
    for p in &pts {
        match series.iter_mut().find(|s| s.label == p.kernel) {
            Some(s) => s.points.push((day(p), value(p))),
            None => series.push(reclaimlab_report::svg::Series {
                label: p.kernel.clone(),
                points: vec![(day(p), value(p))],
            }),
        }
    }
    let x_label = match t0 {
        Some(t) => format!("days since {} (upload date, UTC)", t.format("%Y-%m-%d")),
        None => "days (upload date)".to_string(),
    };
    let y = metric
        .clone()
        .unwrap_or_else(|| format!("worst {kind} latency (us)"));
    Ok(svg_response(
        reclaimlab_report::svg::line_plot(&format!("{y} on {board}"), &x_label, &y, &series),
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
    let (runs, _more) = crate::storage::overview::run_page(
        &state.pool,
        &crate::storage::overview::RunListing {
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
