//! Shared helpers for integration tests: the real router, in-process,
//! against the per-test database `#[sqlx::test]` provides.

#![allow(dead_code)]

pub mod pages;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use http_body_util::BodyExt;
use reclaimlab::auth::{self, Scope};
use reclaimlab::storage::tokens;
use reclaimlab::web::{AppState, router};
use sqlx::PgPool;
use tower::ServiceExt;

pub fn state(pool: &PgPool) -> AppState {
    AppState::new(pool.clone(), "http://reclaimlab.test")
}

pub fn app(pool: &PgPool) -> Router {
    if std::env::var_os("RUST_LOG").is_some() {
        reclaimlab::cli::init_tracing();
    }
    router(state(pool))
}

pub async fn token(pool: &PgPool, scope: Scope) -> String {
    let (secret, hash) = auth::generate(scope);
    tokens::create(pool, "test", scope.as_str(), &hash, &secret[..12], None)
        .await
        .expect("create token");
    secret
}

pub struct TestResponse {
    pub status: u16,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl TestResponse {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

pub async fn send(app: &Router, req: Request<Body>) -> TestResponse {
    let resp: Response<Body> = app.clone().oneshot(req).await.expect("router answers");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    TestResponse {
        status,
        headers,
        body,
    }
}

pub async fn get(app: &Router, uri: &str) -> TestResponse {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub async fn upload(
    app: &Router,
    token: Option<&str>,
    query: &str,
    body: impl Into<Body>,
) -> TestResponse {
    let mut b =
        Request::post(format!("/api/v1/uploads?{query}")).header("content-type", "text/plain");
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    send(app, b.body(body.into()).unwrap()).await
}

pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture")
}

pub async fn counts(pool: &PgPool) -> (i64, i64, i64, i64) {
    let q = |t: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {t}")))
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    (
        q("blobs").await,
        q("uploads").await,
        q("runs").await,
        q("latency_threads").await,
    )
}

/// `POST /api/v1/comparisons` with a bearer token and a JSON body.
pub async fn post_comparison(app: &Router, token: &str, body: serde_json::Value) -> TestResponse {
    send(
        app,
        Request::post("/api/v1/comparisons")
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap(),
    )
    .await
}

/// Polls a simulation job until its state is one of `want`; fails the
/// test after `secs` seconds.
pub async fn wait_state(pool: &PgPool, id: i64, want: &[&str], secs: u64) -> String {
    let start = std::time::Instant::now();
    loop {
        let s: String = sqlx::query_scalar("SELECT state FROM simulations WHERE id = $1")
            .bind(id)
            .fetch_one(pool)
            .await
            .unwrap();
        if want.contains(&s.as_str()) {
            return s;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(secs),
            "job {id} still {s} after {secs} s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A cyclictest summary of `threads` threads with numbers of its own for
/// each rig (rigs send different text): thread ids from `tid0`, maxima
/// from `max0 + rig * 10`.
pub fn cyclictest_rig(rig: usize, threads: usize, tid0: usize, max0: usize) -> String {
    (0..threads)
        .map(|t| {
            format!(
                "T: {t} ( {tid}) P:99 I:1000 C: 100000 Min:      1 Act:    3 Avg:    4 Max:   {max}\n",
                tid = tid0 + t,
                max = max0 + rig * 10 + t
            )
        })
        .collect()
}

/// An SVG answer parsed as XML: a malformed one, or one whose root is not
/// `<svg>`, fails the test.
pub fn svg(text: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("SVG is not well-formed XML ({e}):\n{text}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg", "{text}");
    doc
}

/// The elements of an SVG named `name` (`polyline`, `rect`).
pub fn svg_elements(text: &str, name: &str) -> usize {
    svg(text)
        .descendants()
        .filter(|n| n.tag_name().name() == name)
        .count()
}

/// The text of an SVG's `<text>` elements, one per element.
pub fn svg_texts(text: &str) -> Vec<String> {
    svg(text)
        .descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| n.descendants().filter_map(|t| t.text()).collect::<String>())
        .collect()
}

/// A URL of the test's own database (`#[sqlx::test]` makes one per test),
/// for what connects by itself: a server process, the service's pool.
pub async fn database_url(pool: &PgPool) -> String {
    let name: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(pool)
        .await
        .unwrap();
    let mut url = url::Url::parse(&std::env::var("DATABASE_URL").expect("DATABASE_URL")).unwrap();
    url.set_path(&name);
    url.to_string()
}
