//! Answers of the heavy read-only pages, kept per PostgreSQL snapshot.
//!
//! A page listed in [`CACHED_ROUTES`] depends only on its URI and on the
//! committed data of the database. Before it is computed, the server
//! reads `pg_current_snapshot()`: two reads that get the same snapshot
//! see the same committed rows, because any commit of a transaction that
//! wrote (and so has an id) changes the snapshot's `xmax` or its list of
//! transactions in progress. The answer computed after reading snapshot
//! `S` is kept under (URI, `S`). A later request whose snapshot is still
//! `S` is answered from it: nothing was committed since `S`, and the
//! answer saw at least everything committed before `S` (its own
//! statements read snapshots taken after `S`). A request made after a
//! commit reads a new snapshot and computes the page again, whichever
//! process the commit went through: processes share nothing but the
//! database, and the snapshot is the database's.
//!
//! Requests that arrive together with the same key compute the page once
//! (single flight): the first computes it, the others wait for its answer.
//! A request that finds a computation of its URI running that started
//! before it arrived (under an older snapshot) waits for it to end, then
//! shares the next computation with the other requests that waited: that
//! one starts after they all arrived, so its answer is fresh for each. So
//! one computation per URI runs at a time, however often commits come,
//! and a request usually waits for two at most.
//! Only `200` answers of at most [`MAX_ENTRY_BYTES`] are kept; the others
//! go to each request as computed. One entry per URI (the newest
//! snapshot), at most [`MAX_ENTRIES`] URIs and [`MAX_TOTAL_BYTES`] in all,
//! the least recently used dropped first.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Body as _;
use sqlx::PgPool;
use tokio::sync::OnceCell;

/// The routes whose answers are kept: each reads nothing but its URI and
/// the database (no headers, no clock, no process state).
pub const CACHED_ROUTES: &[&str] = &[
    "/",
    "/variants/{name}",
    "/history",
    "/history.svg",
    "/compare",
    "/compare/chart.svg",
    "/heatmap",
    "/heatmap.svg",
    "/simulations/{id}",
    // The catalogue pages sum the per-board, kernel and variant counts,
    // whose rows grow with every kernel build tested (1.1 ms at 10^5 runs
    // where 10^3 took 0.35).
    "/boards",
    "/kernels",
    "/variants",
];

pub const MAX_ENTRY_BYTES: u64 = 4 * 1024 * 1024;
pub const MAX_ENTRIES: usize = 256;
pub const MAX_TOTAL_BYTES: usize = 64 * 1024 * 1024;

/// An answer as kept: status 200, the handler's headers and body.
#[derive(Clone)]
struct Kept {
    headers: HeaderMap,
    body: Bytes,
}

impl Kept {
    fn response(&self) -> Response {
        let mut r = Response::new(Body::from(self.body.clone()));
        *r.headers_mut() = self.headers.clone();
        r
    }
}

/// `None` once the first request's answer was not kept: each request
/// then computes its own.
type Slot = Arc<OnceCell<Option<Kept>>>;

/// Held by the request that made an entry until its answer is in the
/// slot (or the request is dropped): requests that find the entry's
/// computation running wait on it, without racing its start.
type Gate = Arc<tokio::sync::Mutex<()>>;

struct Entry {
    snapshot: String,
    slot: Slot,
    gate: Gate,
    used: u64,
    /// The tick at which its computation started.
    started: u64,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Entry>,
    clock: u64,
}

/// Counts since the process started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    /// Answers computed by a handler under the cache.
    pub computed: u64,
    /// Answers served from a kept one (or from one computed by another
    /// request of the same key at the same time).
    pub shared: u64,
}

#[derive(Default)]
pub struct PageCache {
    entries: Mutex<Entries>,
    computed: AtomicU64,
    shared: AtomicU64,
    disabled: bool,
}

impl PageCache {
    /// A cache that keeps nothing (every request computes its answer).
    pub fn disabled() -> Self {
        PageCache {
            disabled: true,
            ..Default::default()
        }
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            computed: self.computed.load(Ordering::Relaxed),
            shared: self.shared.load(Ordering::Relaxed),
        }
    }

    /// A tick of the cache's clock: the order of arrivals and starts.
    fn tick(&self) -> u64 {
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        e.clock += 1;
        e.clock
    }

    /// What a request of `uri` that read `snapshot` and arrived at tick
    /// `arrival` does: share the entry of its snapshot, or one whose
    /// computation started after it arrived (that answer saw everything
    /// committed before the request); wait while a computation that
    /// started earlier runs; else start a new entry.
    fn pick(&self, uri: &str, snapshot: &str, arrival: u64) -> Pick {
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        e.clock += 1;
        let now = e.clock;
        if let Some(entry) = e.map.get_mut(uri) {
            if entry.snapshot == snapshot || entry.started > arrival {
                entry.used = now;
                return Pick::Share(entry.slot.clone(), None);
            }
            // Running, and its leader still there: wait for it. A leader
            // dropped before it answered left its slot empty and its gate
            // open: start a new entry.
            if !entry.slot.initialized() && entry.gate.try_lock().is_err() {
                return Pick::Wait(entry.gate.clone());
            }
        }
        let slot: Slot = Arc::new(OnceCell::new());
        let gate: Gate = Arc::new(tokio::sync::Mutex::new(()));
        let Ok(lead) = gate.clone().try_lock_owned() else {
            unreachable!("a new gate is open")
        };
        e.map.insert(
            uri.to_owned(),
            Entry {
                snapshot: snapshot.to_owned(),
                slot: slot.clone(),
                gate,
                used: now,
                started: now,
            },
        );
        evict(&mut e.map);
        Pick::Share(slot, Some(lead))
    }

    /// The slot a request of (`uri`, `snapshot`) reads its answer from,
    /// after waiting for at most a few computations that started before
    /// it arrived. At most one computation per URI runs at a time, and
    /// the requests that arrive during it share the next one.
    /// The guard, when given, is the new entry's gate: the caller holds
    /// it until the slot is filled.
    async fn slot(&self, uri: &str, snapshot: String) -> (Slot, Option<Lead>) {
        let arrival = self.tick();
        for _ in 0..4 {
            match self.pick(uri, &snapshot, arrival) {
                Pick::Share(slot, lead) => return (slot, lead),
                // Opens when the leader has answered or was dropped.
                Pick::Wait(gate) => drop(gate.lock().await),
            }
        }
        // Still busy after as many computations: compute alone.
        (Arc::new(OnceCell::new()), None)
    }
}

type Lead = tokio::sync::OwnedMutexGuard<()>;

enum Pick {
    Share(Slot, Option<Lead>),
    Wait(Gate),
}

fn kept_bytes(entry: &Entry) -> usize {
    match entry.slot.get() {
        Some(Some(k)) => k.body.len(),
        _ => 0,
    }
}

/// Drop the least recently used entries past the count or byte bounds.
fn evict(map: &mut HashMap<String, Entry>) {
    loop {
        let total: usize = map.values().map(kept_bytes).sum();
        if map.len() <= MAX_ENTRIES && total <= MAX_TOTAL_BYTES {
            return;
        }
        let Some(oldest) = map
            .iter()
            .min_by_key(|(_, e)| e.used)
            .map(|(k, _)| k.clone())
        else {
            return;
        };
        map.remove(&oldest);
    }
}

async fn current_snapshot(pool: &PgPool) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("SELECT pg_current_snapshot()::text")
        .fetch_one(pool)
        .await
}

/// Middleware (on the whole router): answers GETs of [`CACHED_ROUTES`]
/// through the cache, passes everything else on.
pub async fn serve(State(state): State<super::AppState>, req: Request, next: Next) -> Response {
    let cache = state.page_cache.clone();
    let cached_route = req
        .extensions()
        .get::<MatchedPath>()
        .is_some_and(|m| CACHED_ROUTES.contains(&m.as_str()));
    if cache.disabled || req.method() != Method::GET || !cached_route {
        return next.run(req).await;
    }
    let uri = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |pq| pq.as_str().to_owned());
    let snapshot = match current_snapshot(&state.pool).await {
        Ok(s) => s,
        // The handler reports the database's trouble in its own words.
        Err(_) => return next.run(req).await,
    };
    cache.answer(&uri, snapshot, move || next.run(req)).await
}

impl PageCache {
    /// The answer to `uri` at `snapshot`: the kept one, the one another
    /// request is computing for the same key, or `compute`'s.
    pub async fn answer<F, Fut>(&self, uri: &str, snapshot: String, compute: F) -> Response
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Response>,
    {
        let (slot, lead) = self.slot(uri, snapshot).await;
        let mut pending = Some(compute);
        let mut own: Option<Response> = None;
        let (p, o) = (&mut pending, &mut own);
        let kept = slot
            .get_or_init(move || async move {
                let compute = p.take()?;
                self.computed.fetch_add(1, Ordering::Relaxed);
                let (kept, r) = keep(compute().await).await;
                *o = Some(r);
                kept
            })
            .await
            .clone();
        drop(lead);
        if let Some(r) = own {
            return r;
        }
        if let Some(k) = kept {
            self.shared.fetch_add(1, Ordering::Relaxed);
            return k.response();
        }
        // The first answer of this key was not kept: compute this one.
        match pending.take() {
            Some(compute) => {
                self.computed.fetch_add(1, Ordering::Relaxed);
                compute().await
            }
            None => crate::error::AppError::Internal(anyhow::anyhow!("page cache")).into_response(),
        }
    }
}

/// The kept form of a 200 answer of at most [`MAX_ENTRY_BYTES`] (its
/// body read whole), and the answer itself to send.
async fn keep(r: Response) -> (Option<Kept>, Response) {
    let small = r
        .body()
        .size_hint()
        .upper()
        .is_some_and(|n| n <= MAX_ENTRY_BYTES);
    if r.status() != StatusCode::OK || !small {
        return (None, r);
    }
    let (parts, body) = r.into_parts();
    match axum::body::to_bytes(body, MAX_ENTRY_BYTES as usize).await {
        Ok(bytes) => {
            let kept = Kept {
                headers: parts.headers.clone(),
                body: bytes.clone(),
            };
            (Some(kept), Response::from_parts(parts, Body::from(bytes)))
        }
        Err(_) => (
            None,
            crate::error::AppError::Internal(anyhow::anyhow!("page body")).into_response(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn page(text: &str) -> Response {
        ([("content-type", "text/plain")], text.to_owned()).into_response()
    }

    async fn text(r: Response) -> (StatusCode, String) {
        let status = r.status();
        let b = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, String::from_utf8(b.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn requests_of_one_key_at_once_compute_once() {
        let cache = Arc::new(PageCache::default());
        let runs = Arc::new(AtomicU64::new(0));
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let (cache, runs) = (cache.clone(), runs.clone());
            tasks.push(tokio::spawn(async move {
                let r = cache
                    .answer("/heatmap", "10:12:".into(), || async move {
                        let n = runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        page(&format!("computed {n}"))
                    })
                    .await;
                (r.headers().get("content-type").cloned(), text(r).await)
            }));
        }
        for t in tasks {
            let (ct, (status, body)) = t.await.unwrap();
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body, "computed 0");
            assert_eq!(ct.unwrap(), "text/plain");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(
            cache.stats(),
            CacheStats {
                computed: 1,
                shared: 15
            }
        );
    }

    #[tokio::test]
    async fn requests_during_an_older_computation_share_the_next_one() {
        let cache = Arc::new(PageCache::default());
        let runs = Arc::new(AtomicU64::new(0));
        let ask = |snap: String| {
            let (cache, runs) = (cache.clone(), runs.clone());
            tokio::spawn(async move {
                let r = cache
                    .answer("/compare?chain=x", snap, || async move {
                        let n = runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(80)).await;
                        page(&format!("computed {n}"))
                    })
                    .await;
                text(r).await.1
            })
        };
        let first = ask("1:1:".into());
        tokio::time::sleep(Duration::from_millis(20)).await;
        // Eight requests after eight commits, each with its own snapshot,
        // while the first computation runs.
        let later: Vec<_> = (2..10).map(|i| ask(format!("{i}:{i}:"))).collect();
        assert_eq!(first.await.unwrap(), "computed 0");
        for t in later {
            assert_eq!(t.await.unwrap(), "computed 1");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // A request after those computations, with a snapshot of its own,
        // does not take their answer (it may be older than the request).
        assert_eq!(ask("10:10:".into()).await.unwrap(), "computed 2");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_waits_for_a_leader_that_has_not_started_computing() {
        let cache = Arc::new(PageCache::default());
        let (running, most) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let compute = |running: Arc<AtomicU64>, most: Arc<AtomicU64>, name: &'static str| {
            move || async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(40)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                page(name)
            }
        };
        // The leader has its entry but has not begun its computation when
        // a request with a newer snapshot arrives.
        let (slot, lead) = cache.slot("/heatmap", "1:1:".into()).await;
        assert!(lead.is_some());
        let waiter = {
            let (cache, c) = (cache.clone(), compute(running.clone(), most.clone(), "b"));
            tokio::spawn(async move {
                text(cache.answer("/heatmap", "2:2:".into(), c).await)
                    .await
                    .1
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let a = compute(running.clone(), most.clone(), "a");
        let kept = slot
            .get_or_init(|| async move { keep(a().await).await.0 })
            .await
            .clone();
        drop(lead);
        assert_eq!(kept.map(|k| k.body), Some(Bytes::from("a")));
        assert_eq!(waiter.await.unwrap(), "b");
        assert_eq!(
            most.load(Ordering::SeqCst),
            1,
            "two computations of one URI ran at once"
        );
    }

    #[tokio::test]
    async fn a_new_snapshot_or_another_uri_computes_again() {
        let cache = PageCache::default();
        let get = |uri: &'static str, snap: &'static str, body: &'static str| {
            cache.answer(uri, snap.into(), move || async move { page(body) })
        };
        assert_eq!(text(get("/a", "5:5:", "one").await).await.1, "one");
        assert_eq!(text(get("/a", "5:5:", "two").await).await.1, "one");
        assert_eq!(text(get("/a", "5:6:5", "three").await).await.1, "three");
        assert_eq!(text(get("/b", "5:6:5", "four").await).await.1, "four");
        assert_eq!(text(get("/a", "5:6:5", "five").await).await.1, "three");
        // Only the newest snapshot of a URI is kept.
        assert_eq!(text(get("/a", "5:5:", "six").await).await.1, "six");
        assert_eq!(cache.entries.lock().unwrap().map.len(), 2);
    }

    #[tokio::test]
    async fn answers_other_than_200_are_not_kept() {
        let cache = PageCache::default();
        for i in 0..3 {
            let r = cache
                .answer("/simulations/9", "7:7:".into(), move || async move {
                    (StatusCode::NOT_FOUND, format!("missing {i}")).into_response()
                })
                .await;
            assert_eq!(
                text(r).await,
                (StatusCode::NOT_FOUND, format!("missing {i}"))
            );
        }
        assert_eq!(cache.stats().computed, 3);
        let big = "x".repeat(MAX_ENTRY_BYTES as usize + 1);
        for _ in 0..2 {
            let b = big.clone();
            let r = cache
                .answer("/compare", "7:7:".into(), move || async move { page(&b) })
                .await;
            assert_eq!(text(r).await.1.len(), big.len());
        }
        assert_eq!(
            cache.stats(),
            CacheStats {
                computed: 5,
                shared: 0
            }
        );
    }

    #[tokio::test]
    async fn the_least_recently_used_uris_go_first() {
        let cache = PageCache::default();
        for i in 0..MAX_ENTRIES + 10 {
            let _ = cache.slot(&format!("/u{i}"), "1:1:".into()).await;
        }
        let e = cache.entries.lock().unwrap();
        assert_eq!(e.map.len(), MAX_ENTRIES);
        assert!(!e.map.contains_key("/u0") && !e.map.contains_key("/u9"));
        assert!(e.map.contains_key("/u10"));
    }
}
