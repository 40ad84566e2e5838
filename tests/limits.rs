//! The service at its limits, against hostile or unlucky clients: quotas
//! under concurrent submits, idle and over-long connections, failed
//! authentication, gzip members and trailing bytes, caps on every source of
//! a scenario, re-uploads after a delete, ownership of board cost tables,
//! variant chains that would become cycles, and simulator processes that
//! run below the service's CPU priority and fail with the limit's name.

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::auth::Scope;
use reclaimlab::jobs::JobConfig;
use reclaimlab::web::{AppState, ServeOptions, router};
use sqlx::PgPool;

const EXE: &str = env!("CARGO_BIN_EXE_reclaimlab");
const META: &str = "board=i7-4790&kernel=6.12.0-rc5&variant=vanilla";

fn job_config() -> JobConfig {
    JobConfig {
        lease_secs: 3.0,
        heartbeat: Duration::from_millis(500),
        poll: Duration::from_millis(100),
        exe: EXE.into(),
        ..JobConfig::default()
    }
}

fn state_with(pool: &PgPool, cfg: JobConfig) -> AppState {
    let mut s = state(pool);
    s.jobs = Arc::new(cfg);
    s
}

fn json_post(uri: &str, tok: &str, body: serde_json::Value) -> Request<Body> {
    Request::post(uri)
        .header("authorization", format!("Bearer {tok}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn from_addr(mut req: Request<Body>, ip: [u8; 4]) -> Request<Body> {
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(SocketAddr::from((ip, 4000))));
    req
}

fn form_post(uri: &str, form: &str) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("sec-fetch-site", "same-origin")
        .body(Body::from(form.to_owned()))
        .unwrap()
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// 20 submits at once, each for one job; returns how many were accepted.
async fn race(app: &axum::Router, tokens: &[String], seed0: u64) -> (usize, Vec<u16>) {
    let mut tasks = Vec::new();
    for i in 0..20u64 {
        let app = app.clone();
        let tok = tokens[i as usize % tokens.len()].clone();
        tasks.push(tokio::spawn(async move {
            send(
                &app,
                json_post(
                    "/api/v1/simulations",
                    &tok,
                    serde_json::json!({"scenario": "toy-lock", "seed": seed0 + i}),
                ),
            )
            .await
            .status
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    let accepted = statuses.iter().filter(|s| **s == 202).count();
    (accepted, statuses)
}

#[sqlx::test]
async fn twenty_concurrent_submits_cannot_pass_the_per_token_limit(pool: PgPool) {
    let cfg = JobConfig {
        per_token_active: 4,
        max_queue: 10,
        ..job_config()
    };
    let app = router(state_with(&pool, cfg));
    let tok = token(&pool, Scope::Upload).await;
    let (accepted, statuses) = race(&app, std::slice::from_ref(&tok), 100).await;
    assert_eq!(accepted, 4, "{statuses:?}");
    assert!(
        statuses.iter().all(|s| *s == 202 || *s == 429),
        "{statuses:?}"
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM simulations WHERE state = 'queued'"
        )
        .await,
        4
    );
}

#[sqlx::test]
async fn twenty_concurrent_submits_cannot_pass_the_queue_cap(pool: PgPool) {
    let cfg = JobConfig {
        per_token_active: 4,
        max_queue: 10,
        ..job_config()
    };
    let app = router(state_with(&pool, cfg));
    let mut tokens = Vec::new();
    for _ in 0..5 {
        tokens.push(token(&pool, Scope::Upload).await);
    }
    let (accepted, statuses) = race(&app, &tokens, 200).await;
    assert_eq!(accepted, 10, "{statuses:?}");
    assert!(
        statuses.iter().all(|s| *s == 202 || *s == 503),
        "{statuses:?}"
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM simulations WHERE state = 'queued'"
        )
        .await,
        10
    );
    let per_token: Vec<i64> = sqlx::query_scalar(
        "SELECT count(*) FROM simulations GROUP BY token_id ORDER BY count(*) DESC",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(per_token.iter().all(|n| *n <= 4), "{per_token:?}");
}

fn toy_lock_toml(run: &str) -> String {
    let text = std::fs::read_to_string(format!(
        "{}/crates/sim/data/scenarios/toy-lock.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    text.replace(
        "[run]\nduration = \"10s\"\nreplications = 1\n",
        &format!("[run]\n{run}\n"),
    )
}

#[sqlx::test]
async fn caps_hold_for_every_source_of_a_scenario(pool: PgPool) {
    let app = router(state_with(&pool, job_config()));
    let tok = token(&pool, Scope::Upload).await;
    let reps = toy_lock_toml("duration = \"10s\"\nreplications = 100000");
    let long = toy_lock_toml("duration = \"1000h\"\nreplications = 1");
    assert_ne!(reps, long);
    let cases = [
        (serde_json::json!({"scenario": reps}), "run.replications"),
        (serde_json::json!({"scenario": long}), "run.duration"),
        (
            serde_json::json!({"scenario": "toy-lock", "replications": 100000}),
            "replications",
        ),
        (
            serde_json::json!({"scenario": "toy-lock", "duration": "1000h"}),
            "duration",
        ),
        (
            serde_json::json!({"scenario": "v4-isolate-irq-holdoff",
                               "knobs": {"isolate-time-cap.isolate_time_cap_us": -5}}),
            "found -5",
        ),
        (
            serde_json::json!({"scenario": "v4-isolate-irq-holdoff",
                               "sweep": {"variant": "isolate-time-cap", "knob": "isolate_time_cap_us",
                                         "values": [10, -1]}}),
            "found -1",
        ),
    ];
    for (body, needle) in cases {
        let r = send(&app, json_post("/api/v1/simulations", &tok, body.clone())).await;
        assert_eq!(r.status, 422, "{body}: {}", r.text());
        let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(msg.contains(needle), "{body}: {msg}");
    }
    // The form is one more source: the scenario TOML pasted into it.
    let form = format!(
        "token={tok}&scenario_toml={}",
        url_encode(&toy_lock_toml("duration = \"10s\"\nreplications = 100000"))
    );
    let r = send(&app, form_post("/simulations", &form)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("run.replications"));
    // A stored job re-run is the last: its values went through the caps.
    assert_eq!(count(&pool, "SELECT count(*) FROM simulations").await, 0);
    // Within the caps, the scenario's own values are accepted.
    let ok = toy_lock_toml("duration = \"2s\"\nreplications = 2");
    let r = send(
        &app,
        json_post(
            "/api/v1/simulations",
            &tok,
            serde_json::json!({"scenario": ok}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
}

fn url_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Serve on a real socket with these connection limits.
async fn real_server(
    pool: &PgPool,
    opts: ServeOptions,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(pool.clone(), &format!("http://{addr}"));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(reclaimlab::web::serve_opts(listener, state, opts, async {
        let _ = rx.await;
    }));
    (addr, tx, server)
}

/// True when the peer closed the socket within `within`.
fn closed_within(s: &mut std::net::TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

fn healthz(addr: SocketAddr) -> String {
    let mut f = std::net::TcpStream::connect(addr).unwrap();
    f.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    f.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut out = String::new();
    let _ = f.read_to_string(&mut out);
    out
}

#[sqlx::test]
async fn idle_connections_are_closed(pool: PgPool) {
    let opts = ServeOptions {
        idle_timeout: Duration::from_millis(600),
        ..ServeOptions::default()
    };
    let (addr, tx, server) = real_server(&pool, opts).await;
    let (silent_closed, keepalive_closed, slow_body_closed, fast) =
        tokio::task::spawn_blocking(move || {
            // Sockets that never send a byte.
            let mut silent: Vec<_> = (0..40)
                .map(|_| std::net::TcpStream::connect(addr).unwrap())
                .collect();
            // A keep-alive connection that goes quiet after one request.
            let mut ka = std::net::TcpStream::connect(addr).unwrap();
            ka.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let mut first = [0u8; 256];
            let n = ka.read(&mut first).unwrap();
            assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
            // A body that stops arriving half way.
            let mut slow = std::net::TcpStream::connect(addr).unwrap();
            slow.write_all(
                b"POST /api/v1/parse HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nT: 0",
            )
            .unwrap();
            let start = Instant::now();
            let silent_closed = silent
                .iter_mut()
                .map(|s| closed_within(s, Duration::from_secs(5)))
                .filter(|c| *c)
                .count();
            let keepalive_closed = closed_within(&mut ka, Duration::from_secs(5));
            let slow_body_closed = closed_within(&mut slow, Duration::from_secs(5));
            assert!(start.elapsed() < Duration::from_secs(5));
            (
                silent_closed,
                keepalive_closed,
                slow_body_closed,
                healthz(addr),
            )
        })
        .await
        .unwrap();
    assert_eq!(
        silent_closed, 40,
        "sockets that never sent a byte stay open"
    );
    assert!(keepalive_closed, "an idle keep-alive connection stays open");
    assert!(
        slow_body_closed,
        "a stalled request body holds its connection"
    );
    assert!(fast.starts_with("HTTP/1.1 200"), "{fast}");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[sqlx::test]
async fn idle_sockets_at_the_connection_limit_make_room(pool: PgPool) {
    // A long idle deadline: only the limit can free a slot here.
    let opts = ServeOptions {
        idle_timeout: Duration::from_secs(60),
        max_connections: 16,
        ..ServeOptions::default()
    };
    let (addr, tx, server) = real_server(&pool, opts).await;
    let (answers, oldest_closed) = tokio::task::spawn_blocking(move || {
        let mut idle: Vec<_> = (0..16)
            .map(|_| {
                let s = std::net::TcpStream::connect(addr).unwrap();
                std::thread::sleep(Duration::from_millis(5));
                s
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        let answers: Vec<String> = (0..4).map(|_| healthz(addr)).collect();
        let oldest_closed = closed_within(&mut idle[0], Duration::from_secs(2));
        (answers, oldest_closed)
    })
    .await
    .unwrap();
    for a in &answers {
        assert!(a.starts_with("HTTP/1.1 200"), "{a}");
    }
    assert!(oldest_closed, "the longest-idle socket made room");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[sqlx::test]
async fn a_connection_is_asked_to_finish_after_its_maximum_age(pool: PgPool) {
    let opts = ServeOptions {
        idle_timeout: Duration::from_secs(60),
        max_connection_age: Duration::from_millis(500),
        ..ServeOptions::default()
    };
    let (addr, tx, server) = real_server(&pool, opts).await;
    let (served, closed) = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let mut served = 0;
        let start = Instant::now();
        // Keep the connection busy with back-to-back requests.
        while start.elapsed() < Duration::from_secs(3) {
            if s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                .is_err()
            {
                break;
            }
            let mut buf = [0u8; 1024];
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) if String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200") => {
                    served += 1
                }
                Ok(_) => break,
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        (served, start.elapsed() < Duration::from_secs(3))
    })
    .await
    .unwrap();
    assert!(served >= 2, "{served}");
    assert!(closed, "a busy connection lived past its maximum age");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[sqlx::test]
async fn an_overlong_request_target_gets_414_with_a_body(pool: PgPool) {
    let (addr, tx, server) = real_server(&pool, ServeOptions::default()).await;
    let out = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let q = "x".repeat(70_000);
        let _ = s.write_all(format!("GET /runs?q={q} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes());
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    })
    .await
    .unwrap();
    assert!(out.starts_with("HTTP/1.1 414"), "{out}");
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["error"]["code"], "uri_too_long");
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("content-length: {}", body.len()))
    );
    let after = tokio::task::spawn_blocking(move || healthz(addr))
        .await
        .unwrap();
    assert!(after.starts_with("HTTP/1.1 200"), "{after}");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[sqlx::test]
async fn bad_tokens_are_limited_while_valid_ones_still_work(pool: PgPool) {
    let mut st = state(&pool);
    st.auth_failures = Arc::new(reclaimlab::auth::AuthFailures::new(
        3,
        Duration::from_secs(60),
    ));
    let app = router(st);
    let good = token(&pool, Scope::Upload).await;
    let admin = token(&pool, Scope::Admin).await;
    let up = |tok: &str, scheme: &str| {
        from_addr(
            Request::post(format!("/api/v1/uploads?{META}"))
                .header("authorization", format!("{scheme} {tok}"))
                .body(Body::from(fixture("cyclictest-s4-before.txt")))
                .unwrap(),
            [127, 0, 0, 2],
        )
    };
    let mut bad = Vec::new();
    for _ in 0..6 {
        bad.push(send(&app, up("rl_upload_wrong", "Bearer")).await.status);
    }
    assert_eq!(bad, vec![401, 401, 401, 429, 429, 429]);
    // The holder of a valid token shares the address and is not locked out.
    let ok = send(&app, up(&good, "Bearer")).await;
    assert_eq!(ok.status, 201, "{}", ok.text());
    let del = send(
        &app,
        from_addr(
            Request::delete(format!(
                "/api/v1/uploads/{}",
                ok.json()["upload_id"].as_i64().unwrap()
            ))
            .header("authorization", format!("Bearer {admin}"))
            .body(Body::empty())
            .unwrap(),
            [127, 0, 0, 2],
        ),
    )
    .await;
    assert_eq!(del.status, 200, "{}", del.text());
    // The scheme is case-insensitive.
    for scheme in ["bearer", "BEARER"] {
        let r = send(&app, up(&good, scheme)).await;
        assert!(r.status == 201 || r.status == 200, "{scheme}: {}", r.text());
    }
    // Still limited for bad tokens.
    assert_eq!(
        send(&app, up("rl_upload_wrong", "bearer")).await.status,
        429
    );

    // Failures on the HTML forms count against their address too.
    let costs = |tok: &str| {
        from_addr(
            form_post(
                "/simulations/costs",
                &format!(
                    "token={tok}&board=rig-a&board_class=x86-desktop&costs=page_fault+%3D+900"
                ),
            ),
            [127, 0, 0, 7],
        )
    };
    let mut form = Vec::new();
    for _ in 0..5 {
        form.push(send(&app, costs("rl_upload_wrong")).await.status);
    }
    assert_eq!(form, vec![401, 401, 401, 429, 429]);
    let ok = send(&app, costs(&good)).await;
    assert!(ok.status == 303 || ok.status == 422, "{}", ok.text());
    assert_ne!(ok.status, 429);
}

#[sqlx::test]
async fn sharing_a_comparison_needs_a_token(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let up = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(up.status, 201, "{}", up.text());
    let run = up.json()["runs"][0]["id"].as_i64().unwrap();
    let form = format!("columns=runs%3A{run}&baseline=0");
    let anon = send(&app, form_post("/compare/share", &form)).await;
    assert_eq!(anon.status, 401, "{}", anon.text());
    let wrong = send(
        &app,
        form_post("/compare/share", &format!("{form}&token=rl_upload_wrong")),
    )
    .await;
    assert_eq!(wrong.status, 401);
    let api = send(
        &app,
        Request::post("/api/v1/comparisons")
            .header("content-type", "application/json")
            .body(Body::from(
                serde_json::json!({"columns": [{"runs": [run]}]}).to_string(),
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(api.status, 401);
    assert_eq!(count(&pool, "SELECT count(*) FROM snapshots").await, 0);
    let ok = send(
        &app,
        form_post("/compare/share", &format!("{form}&token={tok}")),
    )
    .await;
    assert_eq!(ok.status, 303, "{}", ok.text());
    let owner: Option<i64> = sqlx::query_scalar("SELECT token_id FROM snapshots")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(owner.is_some(), "the permalink records who made it");
}

async fn delete_upload(app: &axum::Router, tok: &str, id: i64) -> TestResponse {
    send(
        app,
        Request::delete(format!("/api/v1/uploads/{id}"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

#[sqlx::test]
async fn an_upload_sent_again_after_its_delete_is_stored_again(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let body = fixture("cyclictest-s4-before.txt");
    let first = upload(&app, Some(&tok), META, body.clone()).await;
    assert_eq!(first.status, 201);
    let first_id = first.json()["upload_id"].as_i64().unwrap();
    assert_eq!(delete_upload(&app, &tok, first_id).await.status, 200);
    let again = upload(&app, Some(&tok), META, body.clone()).await;
    assert_eq!(again.status, 201, "{}", again.text());
    let j = again.json();
    assert_eq!(j["created"], true);
    assert_ne!(j["upload_id"].as_i64().unwrap(), first_id);
    let runs = j["runs"].as_array().unwrap();
    assert!(!runs.is_empty(), "{j}");
    let run = runs[0]["id"].as_i64().unwrap();
    assert_eq!(get(&app, &format!("/runs/{run}")).await.status, 200);
    // A replay of the new upload is a replay, not a third copy.
    let replay = upload(&app, Some(&tok), META, body.clone()).await;
    assert_eq!(replay.status, 200);
    assert_eq!(replay.json()["upload_id"], j["upload_id"]);
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM uploads WHERE deleted_at IS NULL"
        )
        .await,
        1
    );
    // The same holds for a client-chosen Idempotency-Key.
    let keyed = |b: Vec<u8>| {
        Request::post(format!("/api/v1/uploads?{META}&filename=k.txt"))
            .header("authorization", format!("Bearer {tok}"))
            .header("idempotency-key", "rig-7-run-42")
            .body(Body::from(b))
            .unwrap()
    };
    let k1 = send(&app, keyed(body.clone())).await;
    assert_eq!(k1.status, 201);
    let k1_id = k1.json()["upload_id"].as_i64().unwrap();
    assert_eq!(delete_upload(&app, &tok, k1_id).await.status, 200);
    let k2 = send(&app, keyed(body.clone())).await;
    assert_eq!(k2.status, 201, "{}", k2.text());
    assert!(!k2.json()["runs"].as_array().unwrap().is_empty());
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

async fn gz_upload(app: &axum::Router, tok: &str, body: Vec<u8>) -> TestResponse {
    send(
        app,
        Request::post(format!("/api/v1/uploads?{META}"))
            .header("authorization", format!("Bearer {tok}"))
            .header("content-encoding", "gzip")
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

#[sqlx::test]
async fn gzip_members_are_all_decoded_and_trailing_bytes_refused(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let text = fixture("cyclictest-s4-before.txt");
    let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
    let half = lines.len() / 2;
    let (a, b): (Vec<u8>, Vec<u8>) = (lines[..half].concat(), lines[half..].concat());
    // `cat a.gz b.gz`: two members, one text.
    let mut two = gzip(&a);
    two.extend(gzip(&b));
    let r = gz_upload(&app, &tok, two.clone()).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let stored: Vec<u8> = sqlx::query_scalar("SELECT content FROM blobs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, text, "every member is kept");
    let threads = count(&pool, "SELECT count(*) FROM latency_threads").await;
    let plain = reclaimlab_formats::parse(&text, None).unwrap();
    let want = match &plain.blocks[0].body {
        reclaimlab_formats::BlockBody::Cyclictest(c) => c.threads.len() as i64,
        other => panic!("{other:?}"),
    };
    assert_eq!(threads, want);
    // Garbage, zeros, or a torn member after the stream: 400, nothing stored.
    let before = counts(&pool).await;
    let mut torn = gzip(&text);
    torn.extend(&gzip(b"T: 9")[..8]);
    for (tail, needle) in [
        (
            b"not gzip at all".to_vec(),
            "after the end of gzip member 1",
        ),
        (vec![0u8; 512], "after the end of gzip member 1"),
        (torn[gzip(&text).len()..].to_vec(), "member 2"),
    ] {
        let mut body = gzip(&text);
        body.extend(&tail);
        let r = gz_upload(&app, &tok, body).await;
        assert_eq!(r.status, 400, "{}", r.text());
        let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(msg.contains(needle), "{msg}");
    }
    assert_eq!(counts(&pool).await, before);
    // The decoded limit holds over all members together.
    let mut st = state(&pool);
    st.limits = Arc::new(reclaimlab::web::Limits {
        max_decoded_bytes: text.len() - 1,
        ..reclaimlab::web::Limits::default()
    });
    let small = router(st);
    assert_eq!(gz_upload(&small, &tok, two).await.status, 413);
}

#[test]
fn gzip_decoding_stays_off_the_async_threads() {
    // One async thread: if decoding ran on it, /healthz would wait for it.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Zeros: once decoded, the body is refused at once (415, binary), so
    // the time measured is the decode's.
    let big = gzip(&vec![0u8; 32 * 1024 * 1024]);
    let t = Instant::now();
    reclaimlab::web::api::uploads::gunzip(&big, 64 * 1024 * 1024).unwrap();
    let decode = t.elapsed();
    rt.block_on(async move {
        // No database is touched: /api/v1/parse and /healthz need none.
        let pool = sqlx::postgres::PgPoolOptions::new()
            .connect_lazy("postgres://nobody@127.0.0.1:1/none")
            .unwrap();
        let mut st = state(&pool);
        st.limits = Arc::new(reclaimlab::web::Limits {
            max_decoded_bytes: 64 * 1024 * 1024,
            ..reclaimlab::web::Limits::default()
        });
        let app = router(st);
        let a2 = app.clone();
        let t = Instant::now();
        let parse = tokio::spawn(async move {
            send(
                &a2,
                Request::post("/api/v1/parse")
                    .header("content-encoding", "gzip")
                    .body(Body::from(big))
                    .unwrap(),
            )
            .await
        });
        // Let the upload start decoding, then ask for /healthz: answered
        // at once, not after the decode.
        tokio::time::sleep(Duration::from_millis(decode.as_millis() as u64 / 10)).await;
        assert_eq!(get(&app, "/healthz").await.status, 200);
        let health = t.elapsed();
        assert!(
            health < decode / 2,
            "healthz answered {health:?} after an upload whose gzip decode takes {decode:?}"
        );
        assert_eq!(parse.await.unwrap().status, 415);
    });
}

#[sqlx::test]
async fn board_cost_tables_belong_to_their_owner(pool: PgPool) {
    let app = app(&pool);
    let owner = token(&pool, Scope::Upload).await;
    let other = token(&pool, Scope::Upload).await;
    let admin = token(&pool, Scope::Admin).await;
    let put = |tok: &str, ns: u32| {
        Request::put("/api/v1/boards/rig-a/costs?board_class=x86-desktop")
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::from(format!("page_fault = {ns}\n")))
            .unwrap()
    };
    let r = send(&app, put(&owner, 900)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = send(&app, put(&other, 1)).await;
    assert_eq!(r.status, 403, "{}", r.text());
    let stored = || async {
        sqlx::query_scalar::<_, String>("SELECT costs_toml FROM board_costs")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    assert!(stored().await.contains("900"));
    // Nor through the form.
    let f = send(
        &app,
        form_post(
            "/simulations/costs",
            &format!("token={other}&board=rig-a&board_class=x86-desktop&costs=page_fault+%3D+2"),
        ),
    )
    .await;
    assert_eq!(f.status, 403);
    assert!(stored().await.contains("900"));
    assert_eq!(send(&app, put(&owner, 950)).await.status, 200);
    assert!(stored().await.contains("950"));
    assert_eq!(send(&app, put(&admin, 990)).await.status, 200);
    assert!(stored().await.contains("990"));
    // Another board is the other token's to claim.
    let r = send(
        &app,
        Request::put("/api/v1/boards/rig-b/costs?board_class=x86-desktop")
            .header("authorization", format!("Bearer {other}"))
            .body(Body::from("page_fault = 700\n"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
}

#[sqlx::test]
async fn variant_chains_cannot_become_cycles(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let body = fixture("cyclictest-s4-before.txt");
    let r = upload(
        &app,
        Some(&tok),
        "board=b&kernel=k&variant=batch-v2&parent=batch-v1",
        body.clone(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let r = upload(
        &app,
        Some(&tok),
        "board=b&kernel=k&variant=batch-v3&parent=batch-v2",
        body.clone(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let before = counts(&pool).await;
    let r = upload(
        &app,
        Some(&tok),
        "board=b&kernel=k&variant=batch-v1&parent=batch-v3",
        body.clone(),
    )
    .await;
    assert_eq!(r.status, 409, "{}", r.text());
    let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("batch-v1") && msg.contains("cycle"), "{msg}");
    assert_eq!(counts(&pool).await, before, "nothing of the upload stored");
    // The database refuses a cycle from any writer, too.
    let err = sqlx::query(
        "UPDATE variants SET parent_id = (SELECT id FROM variants WHERE name = 'batch-v3')
         WHERE name = 'batch-v1'",
    )
    .execute(&pool)
    .await
    .unwrap_err();
    assert!(err.to_string().contains("descends"), "{err}");
    // Concurrent uploads closing a two-variant cycle: at most one parent wins.
    let mut tasks = Vec::new();
    for (v, p) in [("x-a", "x-b"), ("x-b", "x-a")] {
        let (app, tok, body) = (app.clone(), tok.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            upload(
                &app,
                Some(&tok),
                &format!("board=b&kernel=k&variant={v}&parent={p}&filename={v}"),
                body,
            )
            .await
        }));
    }
    for t in tasks {
        let r = t.await.unwrap();
        assert!(
            r.status == 201 || r.status == 409,
            "{} {}",
            r.status,
            r.text()
        );
    }
    let both: i64 = count(
        &pool,
        "SELECT count(*) FROM variants a JOIN variants b ON a.parent_id = b.id AND b.parent_id = a.id",
    )
    .await;
    assert_eq!(both, 0);
}

/// Nice value of a child of this process running `sim-exec`, if any.
fn simulator_nice() -> Option<i64> {
    let me = std::process::id().to_string();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmd).contains("sim-exec") {
            continue;
        }
        // Fields after the ")" of the command name: state ppid ... nice is field 19.
        let rest = stat.rsplit_once(')')?.1;
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1) == Some(&me.as_str()) {
            return f.get(16).and_then(|n| n.parse().ok());
        }
    }
    None
}

#[sqlx::test]
async fn simulations_run_at_low_priority_and_fail_with_the_limit_s_name(pool: PgPool) {
    // Two CPU seconds: long enough for the child to be seen running on a
    // loaded machine, short enough to hit the limit quickly.
    let cfg = JobConfig {
        cpu_secs: 2,
        ..job_config()
    };
    let st = state_with(&pool, cfg.clone());
    let app = router(st.clone());
    let tok = token(&pool, Scope::Upload).await;
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    let r = send(
        &app,
        json_post(
            "/api/v1/simulations",
            &tok,
            serde_json::json!({"scenario": "toy-lock", "duration": "30m", "replications": 1, "seed": 5}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_i64().unwrap();
    wait_state(&pool, id, &["running", "failed", "done"], 30).await;
    let mut nice = None;
    let start = Instant::now();
    // The child lowers its own priority as the first thing it does, before
    // it simulates anything: wait for that, not for the first sight of it.
    while nice != Some(19) && start.elapsed() < Duration::from_secs(20) {
        nice = simulator_nice().or(nice);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        nice,
        Some(19),
        "the simulator runs at the lowest CPU priority"
    );
    assert_eq!(
        wait_state(&pool, id, &["failed", "done"], 60).await,
        "failed"
    );
    let s = get(&app, &format!("/api/v1/simulations/{id}")).await.json();
    assert_eq!(
        s["error"].as_str().unwrap(),
        "CPU time limit of 2 s exceeded",
        "{s}"
    );
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
}

#[test]
fn limit_failures_are_named_by_the_limit() {
    let cfg = JobConfig {
        cpu_secs: 30,
        mem_mb: 512,
        ..JobConfig::default()
    };
    let why = |sig, code, err: &str| reclaimlab::jobs::failure_reason(&cfg, sig, code, err);
    assert_eq!(why(Some(24), None, ""), "CPU time limit of 30 s exceeded");
    let oom = why(
        Some(6),
        None,
        "memory allocation of 1073741824 bytes failed\n",
    );
    assert_eq!(oom, "memory limit of 512 MiB exceeded (address space)");
    assert!(!oom.contains("signal"));
    let thread = why(
        None,
        Some(101),
        "thread 'main' panicked: failed to spawn thread: Os { code: 12, kind: OutOfMemory, message: \"Cannot allocate memory\" }",
    );
    assert!(thread.starts_with("memory limit of 512 MiB"), "{thread}");
    let killed = why(Some(9), None, "");
    assert!(
        killed.contains("CPU time limit of 30 s") && killed.contains("out-of-memory"),
        "{killed}"
    );
    let spawn = why(
        None,
        Some(101),
        "OS can't spawn worker thread: Resource temporarily unavailable (os error 11)",
    );
    assert!(spawn.starts_with("memory limit of 512 MiB"), "{spawn}");
    assert!(why(Some(11), None, "").contains("address-space limit of 512 MiB"));
    assert!(why(Some(11), None, "boom").contains("signal 11: boom"));
}

#[sqlx::test]
async fn a_simulation_over_its_memory_limit_fails_naming_it(pool: PgPool) {
    let cfg = JobConfig {
        mem_mb: 512,
        ..job_config()
    };
    let st = state_with(&pool, cfg);
    let app = router(st.clone());
    let tok = token(&pool, Scope::Upload).await;
    // 4096 cyclictest threads with a million histogram buckets each: far
    // more memory than the job may have.
    let scenario = toy_lock_toml("duration = \"1s\"\nreplications = 1")
        .replace("threads = 8", "threads = 4096\nhistogram_us = 1000000");
    let r = send(
        &app,
        json_post(
            "/api/v1/simulations",
            &tok,
            serde_json::json!({"scenario": scenario}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_i64().unwrap();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    assert_eq!(
        wait_state(&pool, id, &["failed", "done"], 60).await,
        "failed"
    );
    let s = get(&app, &format!("/api/v1/simulations/{id}")).await.json();
    assert_eq!(
        s["error"].as_str().unwrap(),
        "memory limit of 512 MiB exceeded (address space)",
        "{s}"
    );
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
}
