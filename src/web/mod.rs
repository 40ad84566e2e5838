//! HTTP: one function builds the whole `Router` ([`router`]); tests call it
//! directly. [`serve`] binds it with timeouts and graceful shutdown.
//!
//! Every URL the service answers is listed in [`router`].

pub mod api;
pub mod auth;
pub mod comparison_view;
pub mod extract;
pub mod numbers;
pub mod page_cache;
pub mod pages;
pub mod percent;
pub mod permalink_cache;
pub mod permalink_html;
pub mod same_origin;
pub mod svg;

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
    /// Permalinks served from memory after their first request.
    pub snapshots: Arc<permalink_cache::PermalinkCache>,
    /// Ids of the boards, kernels and variants uploads named so far.
    pub catalogue: Arc<crate::storage::catalog::KnownCache>,
    pub auth_failures: Arc<crate::auth::AuthFailures>,
    /// Parses at once, their memory budget, and the anonymous parse limits
    /// (docs/RELIABILITY.md); every parse of the service goes through it.
    pub parse_gate: Arc<crate::ingest::ParseGate>,
    /// Answers of the heavy read-only pages per database snapshot
    /// ([`page_cache`]); `RECLAIMLAB_PAGE_CACHE=off` keeps none.
    pub page_cache: Arc<page_cache::PageCache>,
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
            snapshots: Arc::new(permalink_cache::PermalinkCache::default()),
            catalogue: Arc::default(),
            auth_failures: Arc::new(crate::auth::AuthFailures::default()),
            parse_gate: Arc::new(crate::ingest::ParseGate::default()),
            page_cache: Arc::new(
                if std::env::var("RECLAIMLAB_PAGE_CACHE").is_ok_and(|v| v == "off") {
                    page_cache::PageCache::disabled()
                } else {
                    page_cache::PageCache::default()
                },
            ),
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
        .route("/api/formats.schema.json", get(api::formats_schema))
        .layer(DefaultBodyLimit::max(state.limits.max_json_bytes));
    let pages = Router::new()
        .route("/", get(pages::home::show_home))
        .route("/runs/{id}", get(pages::runs::show_run))
        .route("/runs/{id}/raw", get(pages::runs::show_raw))
        .route("/runs/{id}/histogram.svg", get(pages::runs::show_histogram))
        .route("/boards", get(pages::catalog::show_boards))
        .route("/boards/{name}", get(pages::catalog::show_board))
        .route("/kernels", get(pages::catalog::show_kernels))
        .route("/kernels/{version}", get(pages::catalog::show_kernel))
        .route("/variants", get(pages::catalog::show_variants))
        .route("/variants/{name}", get(pages::variant::show_variant))
        .route("/compare", get(pages::compare::show_compare))
        .route(
            "/compare/chart.svg",
            get(pages::compare::show_compare_chart),
        )
        .route("/compare/share", post(pages::compare::share_compare))
        .route("/c/{slug}", get(pages::permalinks::show_snapshot))
        .route("/heatmap", get(pages::heatmap::show_heatmap))
        .route("/heatmap.svg", get(pages::heatmap::show_heatmap_svg))
        .route("/culprits", get(pages::culprits::show_culprits))
        .route("/history", get(pages::history::show_history))
        .route("/history.svg", get(pages::history::show_history_svg))
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
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            page_cache::serve,
        ));
    with_layers(routes, state)
}

/// The middleware every route gets: request ids, a tracing span per
/// request, security headers, the timeout, panic recovery, metrics.
pub fn with_layers(routes: Router<AppState>, state: AppState) -> Router {
    let timeout = state.request_timeout;
    routes
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            crate::metrics::track,
        ))
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
            })
            // One access-log line per request: status and latency, inside
            // the request's span (method, route, request id).
            .on_response(
                tower_http::trace::DefaultOnResponse::new()
                    .level(tracing::Level::INFO)
                    .latency_unit(tower_http::LatencyUnit::Micros),
            ),
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

/// Per-connection limits of the server (see docs/RELIABILITY.md).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Time a client has to send its request headers.
    pub header_read_timeout: Duration,
    /// A connection with no request in flight and no byte read or written
    /// for this long is closed, whether it never sent a byte, sits idle
    /// between keep-alive requests, or trickles a body too slowly.
    pub idle_timeout: Duration,
    /// Any connection is asked to finish after this long (the request in
    /// flight completes), and is cut `drain` later at the latest.
    pub max_connection_age: Duration,
    /// Open connections at most. At the limit the longest-idle connection
    /// is closed to make room; when none is idle the new one is answered
    /// 503 and closed. 0 = derived from the open-file limit.
    pub max_connections: usize,
    /// How long in-flight requests may take to finish on shutdown (and
    /// after `max_connection_age`).
    pub drain: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connection_age: Duration::from_secs(600),
            max_connections: 0,
            drain: Duration::from_secs(30),
        }
    }
}

/// Raise the soft open-file limit to the hard one (the default soft limit
/// of 1024 is small for a server) and return how many connections fit,
/// leaving room for the database pool, blobs, simulator pipes and logs.
pub fn connection_budget() -> usize {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let lim = getrlimit(Resource::Nofile);
    let mut soft = lim.current.unwrap_or(1 << 20);
    if let Some(hard) = lim.maximum.or(Some(1 << 20)) {
        let want = hard.min(1 << 16);
        if want > soft
            && setrlimit(
                Resource::Nofile,
                Rlimit {
                    current: Some(want),
                    maximum: lim.maximum,
                },
            )
            .is_ok()
        {
            soft = want;
        }
    }
    (soft.saturating_sub(128) as usize).clamp(16, 1 << 16)
}

/// Serve until `shutdown` resolves, then drain in-flight requests (at most
/// 30 s). Clients get `header_read_timeout` to send their request headers;
/// a slow-headers client is disconnected instead of holding a connection.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_opts(listener, state, ServeOptions::default(), shutdown).await
}

pub async fn serve_with(
    listener: tokio::net::TcpListener,
    state: AppState,
    header_read_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let opts = ServeOptions {
        header_read_timeout,
        ..ServeOptions::default()
    };
    serve_opts(listener, state, opts, shutdown).await
}

/// One open connection, as the accept loop and its own task see it.
struct Conn {
    id: u64,
    /// Milliseconds since [`Conns::epoch`] of the last byte in or out.
    last_active: std::sync::atomic::AtomicU64,
    inflight: std::sync::atomic::AtomicUsize,
    /// A handler is waiting for request body bytes that the client has not
    /// sent: the idle deadline applies even though a request is in flight.
    awaiting_body: std::sync::atomic::AtomicBool,
    /// Set to make room at the connection limit: close if still idle.
    evict: std::sync::atomic::AtomicBool,
    wake: tokio::sync::Notify,
}

struct Conns {
    epoch: std::time::Instant,
    open: std::sync::Mutex<std::collections::HashMap<u64, Arc<Conn>>>,
    next: std::sync::atomic::AtomicU64,
    all_closed: tokio::sync::Notify,
}

impl Conns {
    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }
    fn touch(&self, c: &Conn) {
        c.last_active
            .store(self.now_ms(), std::sync::atomic::Ordering::Relaxed);
    }
    fn idle_for(&self, c: &Conn) -> Duration {
        Duration::from_millis(
            self.now_ms()
                .saturating_sub(c.last_active.load(std::sync::atomic::Ordering::Relaxed)),
        )
    }
    /// Nothing the server is doing for this client: no request in flight,
    /// or one whose handler waits for body bytes that do not come.
    fn is_idle(c: &Conn) -> bool {
        c.inflight.load(std::sync::atomic::Ordering::Relaxed) == 0
            || c.awaiting_body.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn len(&self) -> usize {
        self.open.lock().map(|m| m.len()).unwrap_or(0)
    }
    fn add(&self) -> Arc<Conn> {
        let c = Arc::new(Conn {
            id: self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            last_active: std::sync::atomic::AtomicU64::new(self.now_ms()),
            inflight: Default::default(),
            awaiting_body: Default::default(),
            evict: Default::default(),
            wake: tokio::sync::Notify::new(),
        });
        if let Ok(mut m) = self.open.lock() {
            m.insert(c.id, c.clone());
        }
        c
    }
    fn remove(&self, id: u64) {
        if let Ok(mut m) = self.open.lock() {
            m.remove(&id);
            if m.is_empty() {
                self.all_closed.notify_waiters();
            }
        }
    }
    /// At the limit: ask the longest-idle connection to close. False when
    /// every connection has a request in flight.
    fn evict_one(&self) -> bool {
        let Ok(m) = self.open.lock() else {
            return false;
        };
        let victim = m
            .values()
            .filter(|c| Self::is_idle(c) && !c.evict.load(std::sync::atomic::Ordering::Relaxed))
            // Equal idle times (accepted in one burst): the first accepted.
            .min_by_key(|c| {
                (
                    c.last_active.load(std::sync::atomic::Ordering::Relaxed),
                    c.id,
                )
            })
            .cloned();
        drop(m);
        match victim {
            Some(c) => {
                c.evict.store(true, std::sync::atomic::Ordering::Relaxed);
                c.wake.notify_one();
                true
            }
            None => false,
        }
    }
    fn wake_all(&self) {
        if let Ok(m) = self.open.lock() {
            for c in m.values() {
                c.wake.notify_one();
            }
        }
    }
}

/// A request body that tells its connection when the handler is waiting
/// for bytes from the client.
struct WatchedBody {
    inner: hyper::body::Incoming,
    conn: Arc<Conn>,
}

impl hyper::body::Body for WatchedBody {
    type Data = bytes::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        self.conn
            .awaiting_body
            .store(r.is_pending(), std::sync::atomic::Ordering::Relaxed);
        r
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for WatchedBody {
    fn drop(&mut self) {
        self.conn
            .awaiting_body
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Counts a request as in flight until its response is produced.
struct InFlight(Arc<Conns>, Arc<Conn>);

impl InFlight {
    fn new(conns: Arc<Conns>, c: Arc<Conn>) -> Self {
        c.inflight
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        conns.touch(&c);
        InFlight(conns, c)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch(&self.1);
        self.1
            .inflight
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

pub async fn serve_opts(
    listener: tokio::net::TcpListener,
    state: AppState,
    opts: ServeOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use tower::ServiceExt;

    let max_connections = if opts.max_connections == 0 {
        connection_budget()
    } else {
        opts.max_connections
    };
    let app = router(state);
    let conns = Arc::new(Conns {
        epoch: std::time::Instant::now(),
        open: Default::default(),
        next: Default::default(),
        all_closed: tokio::sync::Notify::new(),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(opts.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: make room, back
                    // off, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    conns.evict_one();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        if conns.len() >= max_connections && !conns.evict_one() {
            tracing::warn!(
                max_connections,
                "connection limit reached; refusing a connection"
            );
            refuse(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        let c = conns.add();
        let io = TokioIo::new(Tracked {
            inner: stream,
            conns: conns.clone(),
            conn: c.clone(),
            pending: Vec::new(),
        });
        let (app, c2, conns2) = (app.clone(), c.clone(), conns.clone());
        let svc = hyper::service::service_fn(move |mut req: Request<hyper::body::Incoming>| {
            let guard = InFlight::new(conns2.clone(), c2.clone());
            req.extensions_mut()
                .insert(axum::extract::ConnectInfo(peer));
            let conn = c2.clone();
            let fut = app
                .clone()
                .oneshot(req.map(|inner| axum::body::Body::new(WatchedBody { inner, conn })));
            async move {
                let r = fut.await;
                drop(guard);
                r
            }
        });
        let conn = builder.serve_connection_with_upgrades(io, svc).into_owned();
        let (conns, opts, mut stop) = (conns.clone(), opts.clone(), stop_rx.clone());
        tokio::spawn(async move {
            tokio::pin!(conn);
            let born = tokio::time::Instant::now();
            let tick =
                (opts.idle_timeout / 4).clamp(Duration::from_millis(20), Duration::from_secs(1));
            let mut check = tokio::time::interval(tick);
            check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut cut_at: Option<tokio::time::Instant> = None;
            loop {
                tokio::select! {
                    r = conn.as_mut() => {
                        if let Err(e) = r {
                            tracing::debug!(error = %e, "connection ended with an error");
                        }
                        break;
                    }
                    _ = check.tick() => {}
                    _ = c.wake.notified() => {}
                    _ = stop.changed(), if cut_at.is_none() => {}
                }
                let idle = Conns::is_idle(&c);
                if idle
                    && (conns.idle_for(&c) >= opts.idle_timeout
                        || c.evict.load(std::sync::atomic::Ordering::Relaxed)
                        || cut_at.is_some())
                {
                    break;
                }
                let now = tokio::time::Instant::now();
                if cut_at.is_some_and(|t| now >= t) {
                    tracing::warn!("connection still busy after its drain time; closing it");
                    break;
                }
                if cut_at.is_none() && (*stop.borrow() || born.elapsed() >= opts.max_connection_age)
                {
                    conn.as_mut().graceful_shutdown();
                    cut_at = Some(now + opts.drain);
                }
            }
            conns.remove(c.id);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    conns.wake_all();
    let drained = async {
        loop {
            let notified = conns.all_closed.notified();
            if conns.len() == 0 {
                break;
            }
            notified.await;
        }
    };
    if tokio::time::timeout(opts.drain + Duration::from_secs(1), drained)
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the drain time; closing anyway");
    }
    Ok(())
}

/// Answer a connection over the limit with a 503 (best effort, without
/// waiting) and close it.
fn refuse(stream: tokio::net::TcpStream) {
    let body = r#"{"error":{"code":"busy","message":"too many open connections; retry shortly"}}"#;
    let resp = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(resp.as_bytes());
}

/// The socket of one connection: records activity for the idle deadline,
/// and gives hyper's own error answers (400, 414, 431, sent before any
/// handler runs) the JSON body every other error has.
struct Tracked {
    inner: tokio::net::TcpStream,
    conns: Arc<Conns>,
    conn: Arc<Conn>,
    /// Bytes accepted from hyper but not yet written (a rewritten answer).
    pending: Vec<u8>,
}

impl Tracked {
    fn drain_pending(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use tokio::io::AsyncWrite;
        while !self.pending.is_empty() {
            match std::pin::Pin::new(&mut self.inner).poll_write(cx, &self.pending) {
                std::task::Poll::Ready(Ok(0)) => {
                    return std::task::Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
                }
                std::task::Poll::Ready(Ok(n)) => {
                    self.pending.drain(..n);
                    self.conns.touch(&self.conn);
                }
                std::task::Poll::Ready(Err(e)) => return std::task::Poll::Ready(Err(e)),
                std::task::Poll::Pending => return std::task::Poll::Pending,
            }
        }
        std::task::Poll::Ready(Ok(()))
    }
}

/// hyper's automatic answer to a request it could not parse, with a body.
fn with_error_body(head: &[u8]) -> Option<Vec<u8>> {
    // Exactly hyper's shape: a short head with no body and no header but
    // these (a response of ours always has a body and a content type).
    if head.len() > 512 {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ")?;
    let lower = text.to_ascii_lowercase();
    let only_known_headers = lower
        .trim_end_matches("\r\n")
        .split("\r\n")
        .skip(1)
        .all(|h| {
            h.starts_with("content-length: ")
                || h.starts_with("date: ")
                || h.starts_with("connection: ")
        });
    if !text.ends_with("\r\n\r\n")
        || !lower.contains("\r\ncontent-length: 0\r\n")
        || !only_known_headers
    {
        return None;
    }
    let (code, message) = match rest.get(..3)? {
        "400" => ("bad_request", "the request could not be parsed as HTTP"),
        "414" => (
            "uri_too_long",
            "the request target (path and query) is longer than 65534 bytes",
        ),
        "431" => (
            "request_header_fields_too_large",
            "the request headers are too large",
        ),
        _ => return None,
    };
    let body = serde_json::json!({"error": {"code": code, "message": message}}).to_string();
    let mut out = String::new();
    for line in text.trim_end_matches("\r\n").split("\r\n") {
        if line.to_ascii_lowercase().starts_with("content-length:") {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("content-type: application/json\r\n");
    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    out.push_str(&body);
    Some(out.into_bytes())
}

impl tokio::io::AsyncRead for Tracked {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            let this = &*self;
            this.conns.touch(&this.conn);
        }
        r
    }
}

impl tokio::io::AsyncWrite for Tracked {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if let std::task::Poll::Ready(Err(e)) = self.drain_pending(cx) {
            return std::task::Poll::Ready(Err(e));
        }
        if !self.pending.is_empty() {
            return std::task::Poll::Pending;
        }
        if buf.starts_with(b"HTTP/1.1 4")
            && let Some(out) = with_error_body(buf)
        {
            self.pending = out;
            let _ = self.drain_pending(cx);
            return std::task::Poll::Ready(Ok(buf.len()));
        }
        let r = std::pin::Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, std::task::Poll::Ready(Ok(n)) if n > 0) {
            let this = &*self;
            this.conns.touch(&this.conn);
        }
        r
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let first = bufs.iter().position(|b| !b.is_empty());
        let only = first.filter(|&i| bufs[i + 1..].iter().all(|b| b.is_empty()));
        if !self.pending.is_empty() || only.is_some_and(|i| bufs[i].starts_with(b"HTTP/1.1 4")) {
            // Rare: the error path, or a rewritten answer still going out.
            let Some(i) = first else {
                return std::task::Poll::Ready(Ok(0));
            };
            return self.poll_write(cx, &bufs[i]);
        }
        let r = std::pin::Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, std::task::Poll::Ready(Ok(n)) if n > 0) {
            let this = &*self;
            this.conns.touch(&this.conn);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.drain_pending(cx) {
            std::task::Poll::Ready(Ok(())) => std::pin::Pin::new(&mut self.inner).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.drain_pending(cx) {
            std::task::Poll::Ready(Ok(())) => std::pin::Pin::new(&mut self.inner).poll_shutdown(cx),
            other => other,
        }
    }
}
