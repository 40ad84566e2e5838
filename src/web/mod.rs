//! HTTP: one function builds the whole `Router` ([`router`]); tests call it
//! directly. [`serve`] binds it with timeouts and graceful shutdown.
//!
//! Every URL the service answers is listed in [`router`].

pub mod api;
pub mod pages;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath};
use axum::http::{HeaderName, HeaderValue, Request, StatusCode, header};
use axum::routing::{delete, get, post};
use sqlx::PgPool;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::metrics::Metrics;

/// Limits that handlers enforce themselves (so the answer is our JSON error).
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_upload_bytes: usize,
    pub max_decoded_bytes: usize,
    pub max_json_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_upload_bytes: 64 * 1024 * 1024,
            max_decoded_bytes: 256 * 1024 * 1024,
            max_json_bytes: 1024 * 1024,
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub limits: Arc<Limits>,
    /// Base URL for links in API answers and permalinks, without trailing slash.
    pub public_url: Arc<str>,
    pub metrics: Arc<Metrics>,
    pub request_timeout: Duration,
    pub jobs: Arc<crate::jobs::JobConfig>,
    pub snapshots: Arc<crate::storage::snapshots::SnapshotCache>,
    pub auth_failures: Arc<crate::auth::AuthFailures>,
}

impl AppState {
    pub fn new(pool: PgPool, public_url: &str) -> Self {
        AppState {
            pool,
            limits: Arc::new(Limits::default()),
            public_url: public_url.trim_end_matches('/').into(),
            metrics: Arc::new(Metrics::default()),
            request_timeout: Duration::from_secs(60),
            jobs: Arc::new(crate::jobs::JobConfig::default()),
            snapshots: Arc::new(crate::storage::snapshots::SnapshotCache::default()),
            auth_failures: Arc::new(crate::auth::AuthFailures::default()),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.public_url, path)
    }
}

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn router(state: AppState) -> Router {
    let static_dir = std::env::var("RECLAIMLAB_STATIC_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/static").to_string());
    // Uploads read their body themselves within the upload limits (so the
    // answer to an oversized body is our JSON 413); every other route gets
    // the small JSON limit.
    let uploads = Router::new()
        .route("/api/v1/uploads", post(api::uploads::create_upload))
        .route("/api/v1/parse", post(api::uploads::parse_upload))
        .layer(DefaultBodyLimit::disable());
    let api = Router::new()
        .route("/api/v1/runs", get(api::runs::list_runs))
        .route(
            "/api/v1/uploads/{id}",
            delete(api::comparisons::delete_upload),
        )
        .route("/api/v1/runs/{id}", get(api::runs::get_run))
        .route(
            "/api/v1/comparisons",
            post(api::comparisons::create_comparison),
        )
        .route(
            "/api/v1/comparisons/{slug}",
            delete(api::comparisons::delete_comparison),
        )
        .route(
            "/api/v1/simulations",
            post(api::simulations::create_simulation),
        )
        .route(
            "/api/v1/simulations/{id}",
            get(api::simulations::get_simulation),
        )
        .route(
            "/api/v1/simulations/{id}/cancel",
            post(api::simulations::cancel_simulation),
        )
        .route(
            "/api/v1/simulations/{id}/rerun",
            post(api::simulations::rerun_simulation),
        )
        .route(
            "/api/v1/boards/{name}/costs",
            axum::routing::put(api::simulations::put_board_costs),
        )
        .route("/api/openapi.json", get(api::openapi))
        .layer(DefaultBodyLimit::max(state.limits.max_json_bytes));
    let pages = Router::new()
        .route("/", get(pages::home::show_home))
        .route("/runs/{id}", get(pages::runs::show_run))
        .route("/runs/{id}/raw", get(pages::runs::show_raw))
        .route("/runs/{id}/histogram.svg", get(pages::runs::show_histogram))
        .route("/boards", get(pages::catalog::show_boards))
        .route("/kernels", get(pages::catalog::show_kernels))
        .route("/variants", get(pages::catalog::show_variants))
        .route("/variants/{name}", get(pages::compare::show_variant))
        .route("/compare", get(pages::compare::show_compare))
        .route(
            "/compare/chart.svg",
            get(pages::compare::show_compare_chart),
        )
        .route("/compare/share", post(pages::compare::share_compare))
        .route("/c/{slug}", get(pages::compare::show_snapshot))
        .route("/heatmap", get(pages::compare::show_heatmap))
        .route("/heatmap.svg", get(pages::compare::show_heatmap_svg))
        .route("/culprits", get(pages::compare::show_culprits))
        .route("/history", get(pages::compare::show_history))
        .route("/history.svg", get(pages::compare::show_history_svg))
        .route(
            "/simulations",
            get(pages::simulations::show_simulations).post(pages::simulations::submit_simulation),
        )
        .route("/simulations/costs", post(pages::simulations::submit_costs))
        .route(
            "/simulations/{id}",
            get(pages::simulations::show_simulation),
        )
        .route(
            "/simulations/{id}/cancel",
            post(pages::simulations::cancel_from_page),
        )
        .route(
            "/simulations/{id}/rerun",
            post(pages::simulations::rerun_from_page),
        )
        .route(
            "/simulations/sweeps/{id}",
            get(pages::simulations::show_sweep),
        )
        .route(
            "/simulations/sweeps/{id}/plot.svg",
            get(pages::simulations::show_sweep_svg),
        )
        .route("/import", get(pages::import::show_import))
        .route("/import/preview", post(pages::import::preview_import))
        .route("/import/commit", post(pages::import::commit_import))
        .layer(DefaultBodyLimit::max(32 * 1024 * 1024));
    let ops = Router::new()
        .route("/healthz", get(api::healthz))
        .route("/readyz", get(api::readyz))
        .route("/metrics", get(api::metrics));
    let routes = Router::new()
        .merge(uploads)
        .merge(api)
        .merge(pages)
        .merge(ops)
        .nest_service("/static", ServeDir::new(static_dir))
        .fallback(pages::not_found);
    with_layers(routes, state)
}

/// The middleware every route gets: request ids, a tracing span per
/// request, security headers, the timeout, panic recovery, metrics.
pub fn with_layers(routes: Router<AppState>, state: AppState) -> Router {
    let timeout = state.request_timeout;
    routes
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::metrics::track))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panic_response))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            ),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .layer(PropagateRequestIdLayer::new(X_REQUEST_ID))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let route = req
                    .extensions()
                    .get::<MatchedPath>()
                    .map(|m| m.as_str().to_owned())
                    .unwrap_or_else(|| req.uri().path().to_owned());
                let id = req
                    .headers()
                    .get(X_REQUEST_ID)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-")
                    .to_owned();
                tracing::info_span!("request", http.method = %req.method(), http.route = %route, request.id = %id)
            }),
        )
        .layer(SetRequestIdLayer::new(X_REQUEST_ID, MakeRequestUuid))
        .with_state(state)
}

/// A handler that panics answers 500 in the usual error shape; the
/// process and its other connections carry on.
fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let what = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic = %what, "handler panicked");
    axum::response::IntoResponse::into_response(crate::error::AppError::Internal(anyhow::anyhow!(
        "panic"
    )))
}

/// Serve until `shutdown` resolves, then drain in-flight requests (at most
/// 30 s). Clients get `header_read_timeout` to send their request headers;
/// a slow-headers client is disconnected instead of holding a connection.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, state, Duration::from_secs(10), shutdown).await
}

pub async fn serve_with(
    listener: tokio::net::TcpListener,
    state: AppState,
    header_read_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;

    let app = router(state);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let svc = app
            .clone()
            .layer(axum::Extension(axum::extract::ConnectInfo(peer)));
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(svc));
        let conn = graceful.watch(conn.into_owned());
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_secs(30)) => {
            tracing::warn!("requests still running after 30 s; closing anyway");
        }
    }
    Ok(())
}
