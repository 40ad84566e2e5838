//! Rigs uploading at once: uploads for one kernel do not wait on each
//! other's transactions for the shared catalogue rows, and no row is made
//! twice. Parses beyond the gate, anonymous parses and timed-out uploads.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use reclaimlab::auth::Scope;
use reclaimlab::ingest::ParseGate;
use sqlx::PgPool;

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[sqlx::test]
async fn eight_rigs_upload_for_one_new_kernel_at_once(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let mut tasks = Vec::new();
    for rig in 0..8 {
        let (app, tok) = (app.clone(), tok.clone());
        tasks.push(tokio::spawn(async move {
            let query = format!(
                "board=rig-{}&kernel=6.13.0-rc1&variant=v{}",
                rig % 2,
                rig % 3
            );
            upload(&app, Some(&tok), &query, cyclictest_rig(rig, 4, 4000, 100)).await
        }));
    }
    for t in tasks {
        let r = t.await.unwrap();
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM kernels WHERE version = '6.13.0-rc1'"
        )
        .await,
        1
    );
    assert_eq!(count(&pool, "SELECT count(*) FROM boards").await, 2);
    assert_eq!(count(&pool, "SELECT count(*) FROM variants").await, 3);
    assert_eq!(count(&pool, "SELECT count(*) FROM runs").await, 8);
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.version = '6.13.0-rc1'"
        )
        .await,
        8
    );
}

#[sqlx::test]
async fn an_open_upload_transaction_does_not_hold_the_kernel_for_others(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let meta = "board=rig-a&kernel=6.13.0&variant=base&parent=vanilla";
    let r = upload(&app, Some(&tok), meta, cyclictest_rig(0, 4, 4000, 100)).await;
    assert_eq!(r.status, 201, "{}", r.text());
    // An upload in the middle of its transaction, having taken the same
    // board, kernel and variant rows an upload takes.
    let mut tx = pool.begin().await.unwrap();
    reclaimlab::storage::catalog::board_id(&mut tx, "rig-a")
        .await
        .unwrap();
    reclaimlab::storage::catalog::kernel_id(&mut tx, "6.13.0")
        .await
        .unwrap();
    reclaimlab::storage::catalog::variant_id(&mut tx, "base", Some("vanilla"), true, None, None)
        .await
        .unwrap();
    // Another rig's upload for the same rows completes while it is open.
    let t = Instant::now();
    let other = tokio::time::timeout(
        Duration::from_secs(10),
        upload(&app, Some(&tok), meta, cyclictest_rig(1, 4, 4000, 100)),
    )
    .await
    .expect("the second upload waited for the open transaction");
    assert_eq!(other.status, 201, "{}", other.text());
    assert!(t.elapsed() < Duration::from_secs(10));
    tx.commit().await.unwrap();
    assert_eq!(count(&pool, "SELECT count(*) FROM kernels").await, 1);
    assert_eq!(count(&pool, "SELECT count(*) FROM variants").await, 2);
}

fn parse_request(body: impl Into<axum::body::Body>) -> axum::http::Request<axum::body::Body> {
    axum::http::Request::post("/api/v1/parse")
        .header("content-type", "text/plain")
        .body(body.into())
        .unwrap()
}

#[sqlx::test]
async fn parses_beyond_the_gate_wait_then_get_503_with_retry_after(pool: PgPool) {
    let gate = Arc::new(ParseGate::new(1, Duration::from_millis(200)));
    let mut st = state(&pool);
    st.parse_gate = gate.clone();
    let app = reclaimlab::web::router(st);
    // Another parse holds the only permit.
    let held = gate.acquire(0).await.unwrap();
    assert_eq!(gate.running(), 1);
    let t = Instant::now();
    let r = send(&app, parse_request(cyclictest_rig(0, 4, 4000, 100))).await;
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(t.elapsed() >= Duration::from_millis(200), "it waited first");
    assert_eq!(r.json()["error"]["code"], "busy");
    assert!(r.headers.get("retry-after").is_some());
    // Once the permit is back, the same request parses.
    drop(held);
    let r = send(&app, parse_request(cyclictest_rig(0, 4, 4000, 100))).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(gate.running(), 0);
}

#[sqlx::test]
async fn anonymous_parses_are_limited_in_size_and_rate(pool: PgPool) {
    let mut gate = ParseGate::new(2, Duration::from_secs(1));
    gate.anonymous_max_bytes = 4096;
    gate.anonymous_per_minute = 3;
    let mut st = state(&pool);
    st.parse_gate = Arc::new(gate);
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Read).await;
    let mut big = String::new();
    while big.len() <= 4096 {
        big.push_str(&cyclictest_rig(big.len(), 4, 4000, 100));
    }
    // One byte past the anonymous limit: 413; with a token, parsed.
    let r = send(&app, parse_request(big.clone())).await;
    assert_eq!(r.status, 413, "{}", r.text());
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4096")
    );
    let mut req = parse_request(big.clone());
    req.headers_mut()
        .insert("authorization", format!("Bearer {tok}").parse().unwrap());
    let r = send(&app, req).await;
    assert_eq!(r.status, 200, "{}", r.text());
    // The rate: the 413 above counted; two more pass, then 429.
    for _ in 0..2 {
        let r = send(&app, parse_request(cyclictest_rig(1, 4, 4000, 100))).await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let r = send(&app, parse_request(cyclictest_rig(1, 4, 4000, 100))).await;
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.headers.get("retry-after").is_some());
    // A bad token is refused, not taken for anonymous.
    let mut req = parse_request(cyclictest_rig(1, 4, 4000, 100));
    req.headers_mut()
        .insert("authorization", "Bearer rl_read_nope".parse().unwrap());
    assert_eq!(send(&app, req).await.status, 401);
}

#[sqlx::test]
async fn a_timed_out_upload_stops_decoding_and_frees_its_parse_slot(pool: PgPool) {
    use std::io::Write;
    // Text that takes a while to gunzip: decoding all of it is timed first.
    let text = cyclictest_rig(0, 4, 4000, 100).repeat(400_000);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let t = Instant::now();
    let full = reclaimlab::web::api::uploads::gunzip(&gz, 1 << 30).unwrap();
    let decode = t.elapsed();
    assert_eq!(full.len(), text.len());
    let gate = Arc::new(ParseGate::new(1, Duration::from_secs(1)));
    let mut st = state(&pool);
    st.parse_gate = gate.clone();
    st.request_timeout = decode / 10;
    st.limits = Arc::new(reclaimlab::web::Limits {
        max_decoded_bytes: 1 << 30,
        ..reclaimlab::web::Limits::default()
    });
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let t = Instant::now();
    let r = send(
        &app,
        axum::http::Request::post("/api/v1/uploads?board=rig-slow")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-encoding", "gzip")
            .body(axum::body::Body::from(gz))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 408, "{}", r.text());
    // The decode on the blocking pool sees the flag within a chunk and
    // gives its permit back long before a whole decode would end.
    while gate.running() > 0 {
        assert!(
            t.elapsed() < decode / 2,
            "the slot is still held {:?} after the timeout; a whole decode takes {decode:?}",
            t.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(count(&pool, "SELECT count(*) FROM uploads").await, 0);
}

#[tokio::test]
async fn big_parses_take_the_memory_budget_one_at_a_time() {
    let gate = ParseGate::new(4, Duration::from_millis(100))
        .with_memory(100, 2.0)
        .with_parse_bound(10);
    // A streamed body takes the parse's bound, whatever its size; 40 MiB
    // held in memory at 2 bytes per byte take 80 more.
    assert_eq!(gate.weight(0), 10);
    assert_eq!(gate.weight(40 << 20), 90);
    assert_eq!(gate.weight(1 << 30), 100, "at most the whole budget");
    let big = gate.acquire(40 << 20).await.unwrap();
    assert_eq!(gate.memory_free(), 10);
    // A second big one waits, then 503; a streamed one still fits beside it.
    assert!(matches!(
        gate.acquire(40 << 20).await,
        Err(reclaimlab::error::AppError::Busy(_))
    ));
    let small = gate.acquire(0).await.unwrap();
    assert_eq!(gate.memory_free(), 0);
    drop(big);
    let again = gate.acquire(40 << 20).await.unwrap();
    drop((small, again));
    assert_eq!(gate.memory_free(), 100);
}
