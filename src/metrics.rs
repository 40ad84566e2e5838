//! Prometheus-style counters, kept in-process and rendered at `/metrics`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

#[derive(Debug, Default)]
pub struct Metrics {
    pub requests: AtomicU64,
    pub responses_4xx: AtomicU64,
    pub responses_5xx: AtomicU64,
    pub uploads_created: AtomicU64,
    pub uploads_replayed: AtomicU64,
}

impl Metrics {
    pub fn render(&self) -> String {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "# TYPE reclaimlab_http_requests_total counter\n\
             reclaimlab_http_requests_total {}\n\
             # TYPE reclaimlab_http_responses_total counter\n\
             reclaimlab_http_responses_total{{class=\"4xx\"}} {}\n\
             reclaimlab_http_responses_total{{class=\"5xx\"}} {}\n\
             # TYPE reclaimlab_uploads_total counter\n\
             reclaimlab_uploads_total{{result=\"created\"}} {}\n\
             reclaimlab_uploads_total{{result=\"replayed\"}} {}\n",
            g(&self.requests),
            g(&self.responses_4xx),
            g(&self.responses_5xx),
            g(&self.uploads_created),
            g(&self.uploads_replayed),
        )
    }
}

/// Middleware: count every request and its answer's class.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    metrics.requests.fetch_add(1, Ordering::Relaxed);
    let resp = next.run(req).await;
    let s = resp.status().as_u16();
    if (400..500).contains(&s) {
        metrics.responses_4xx.fetch_add(1, Ordering::Relaxed);
    } else if s >= 500 {
        metrics.responses_5xx.fetch_add(1, Ordering::Relaxed);
    }
    resp
}
