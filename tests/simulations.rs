//! Simulation jobs end to end against a real PostgreSQL: submit -> done ->
//! runs visible, cancel, validation, limits, a worker killed mid-job, and
//! two service processes sharing one queue.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::auth::Scope;
use reclaimlab::jobs::JobConfig;
use reclaimlab::web::{AppState, router};
use sqlx::PgPool;

const EXE: &str = env!("CARGO_BIN_EXE_reclaimlab");

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
    s.jobs = std::sync::Arc::new(cfg);
    s
}

async fn submit(app: &axum::Router, tok: &str, body: serde_json::Value) -> TestResponse {
    send(
        app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap(),
    )
    .await
}

#[sqlx::test]
async fn submit_runs_and_results_compare_with_measurements(pool: PgPool) {
    let st = state_with(&pool, job_config());
    let app = router(st.clone());
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    let tok = token(&pool, Scope::Upload).await;
    let r = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 7, "replications": 1, "duration": "1s"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_i64().unwrap();
    assert_eq!(r.json()["status"], "queued");
    assert_eq!(
        wait_state(&pool, id, &["done", "failed"], 120).await,
        "done"
    );
    let s = get(&app, &format!("/api/v1/simulations/{id}")).await.json();
    assert_eq!(s["status"], "done");
    assert_eq!(s["attempts"], 1);
    let runs = s["run_ids"].as_array().unwrap();
    assert!(!runs.is_empty());
    let run = get(&app, &format!("/api/v1/runs/{}", runs[0])).await.json();
    assert_eq!(run["kind"], "simulated");
    assert_eq!(run["variant"], "toy-lock/base");
    assert!(
        run["threads"].as_array().unwrap().len() == 8,
        "cyclictest-like threads stored"
    );
    // The job page shows the report and links a comparison.
    let page = get(&app, &format!("/simulations/{id}")).await.text();
    assert!(
        page.contains("T: 0") && page.contains("/compare?c="),
        "{page}"
    );
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "no refresh once done"
    );

    // Predicted beside measured in one comparison.
    demo_upload(&app, &tok).await;
    let cmp = post_comparison(
        &app,
        &tok,
        serde_json::json!({"columns": [
                    {"label": "measured", "variant": "baseline", "board": "licheepi-4a"},
                    {"label": "predicted", "simulation": id, "variant": "toy-lock/base"}]}),
    )
    .await;
    assert_eq!(cmp.status, 201, "{}", cmp.text());
    let slug = cmp.json()["slug"].as_str().unwrap().to_string();
    let j = get(&app, &format!("/c/{slug}.json")).await.json();
    assert_eq!(j["comparison"]["columns"][1]["simulated"], true);
    assert_eq!(j["comparison"]["columns"][0]["simulated"], false);
    assert_eq!(
        j["comparison"]["columns"][1]["runs"]
            .as_array()
            .unwrap()
            .len(),
        runs.len()
    );
    let html = get(&app, &format!("/c/{slug}")).await.text();
    assert!(html.contains("badge sim"), "simulated columns are marked");

    // Same inputs again: answered from the cache; `force` re-runs, and the
    // same seed gives the same report.
    let again = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 7, "replications": 1, "duration": "1s"}),
    )
    .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["id"], id);
    let rerun = send(
        &app,
        Request::post(format!("/api/v1/simulations/{id}/rerun"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(rerun.status, 202, "{}", rerun.text());
    let id2 = rerun.json()["id"].as_i64().unwrap();
    assert_eq!(
        wait_state(&pool, id2, &["done", "failed"], 120).await,
        "done"
    );
    let texts: Vec<String> = sqlx::query_scalar("SELECT report_text FROM simulation_results WHERE simulation_id = ANY($1) ORDER BY simulation_id")
        .bind(vec![id, id2])
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(texts[0], texts[1], "deterministic for the same seed");
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
}

async fn demo_upload(app: &axum::Router, tok: &str) {
    let r = upload(
        app,
        Some(tok),
        "board=licheepi-4a&kernel=6.5.0-rt6&variant=baseline",
        fixture("cyclictest-s4-before.txt"),
    )
    .await;
    assert_eq!(r.status, 201);
}

#[sqlx::test]
async fn validation_errors_name_the_field(pool: PgPool) {
    let app = router(state_with(&pool, job_config()));
    let tok = token(&pool, Scope::Upload).await;
    let cases = [
        (
            serde_json::json!({"scenario": "no-such-scenario"}),
            "toy-lock",
        ),
        (
            serde_json::json!({"scenario": "toy-lock", "variants": ["nope"]}),
            "variants",
        ),
        (
            serde_json::json!({"scenario": "v4-isolate-irq-holdoff", "knobs": {"isolate-time-cap.isolate_time_cap_uss": 5}}),
            "unknown knob",
        ),
        (
            serde_json::json!({"scenario": "toy-lock", "duration": "ten"}),
            "duration",
        ),
        (
            serde_json::json!({"scenario": "toy-lock", "board_class": "vax"}),
            "board_class",
        ),
        (
            serde_json::json!({"scenario": "name = \"x\"\n[machine]\nboard = \"x86-desktop\"\ncpus = -3\n"}),
            "cpus",
        ),
    ];
    for (body, needle) in cases {
        let r = submit(&app, &tok, body.clone()).await;
        assert_eq!(r.status, 422, "{body}: {}", r.text());
        let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(msg.contains(needle), "{body}: {msg}");
    }
    let bad_json = send(
        &app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from("{\"scenario\": 3}"))
            .unwrap(),
    )
    .await;
    assert_eq!(bad_json.status, 400);
    let no_token = send(
        &app,
        Request::post("/api/v1/simulations")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(no_token.status, 401);
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM simulations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
}

#[sqlx::test]
async fn limits_and_cancel(pool: PgPool) {
    // No worker: jobs stay queued.
    let cfg = JobConfig {
        per_token_active: 2,
        ..job_config()
    };
    let app = router(state_with(&pool, cfg));
    let tok = token(&pool, Scope::Upload).await;
    let a = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 1}),
    )
    .await;
    let b = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 2}),
    )
    .await;
    assert_eq!((a.status, b.status), (202, 202));
    let c = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 3}),
    )
    .await;
    assert_eq!(c.status, 429, "{}", c.text());
    assert!(c.headers.contains_key("retry-after"));
    // Cancel a queued job: at once.
    let id = a.json()["id"].as_i64().unwrap();
    let other = token(&pool, Scope::Upload).await;
    let denied = send(
        &app,
        Request::post(format!("/api/v1/simulations/{id}/cancel"))
            .header("authorization", format!("Bearer {other}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(denied.status, 403);
    let r = send(
        &app,
        Request::post(format!("/api/v1/simulations/{id}/cancel"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["status"], "cancelled");
    // A slot is free again.
    let d = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 4}),
    )
    .await;
    assert_eq!(d.status, 202);

    // Cancel a running job: the worker kills the simulation.
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    sqlx::query("UPDATE simulations SET state = 'cancelled' WHERE state = 'queued'")
        .execute(&pool)
        .await
        .unwrap();
    let long = submit(&app, &tok, serde_json::json!({"scenario": "toy-lock", "seed": 5, "duration": "30m", "replications": 1})).await;
    assert_eq!(long.status, 202, "{}", long.text());
    let lid = long.json()["id"].as_i64().unwrap();
    let workers = reclaimlab::jobs::start(&pool, &std::sync::Arc::new(job_config()), 1, stop);
    wait_state(&pool, lid, &["running"], 30).await;
    let r = send(
        &app,
        Request::post(format!("/api/v1/simulations/{lid}/cancel"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        wait_state(&pool, lid, &["cancelled", "done", "failed"], 30).await,
        "cancelled"
    );
    let results: i64 = sqlx::query_scalar("SELECT count(*) FROM simulation_results")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(results, 0);
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
}

#[sqlx::test]
async fn jobs_over_their_limits_fail_with_the_reason(pool: PgPool) {
    let cfg = JobConfig {
        max_events: 5_000,
        ..job_config()
    };
    let st = state_with(&pool, cfg.clone());
    let app = router(st.clone());
    let tok = token(&pool, Scope::Upload).await;
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    let r = submit(
        &app,
        &tok,
        serde_json::json!({"scenario": "toy-lock", "duration": "10s", "replications": 1}),
    )
    .await;
    let id = r.json()["id"].as_i64().unwrap();
    assert_eq!(
        wait_state(&pool, id, &["failed", "done"], 60).await,
        "failed"
    );
    let s = get(&app, &format!("/api/v1/simulations/{id}")).await.json();
    assert!(s["error"].as_str().unwrap().contains("5000 events"), "{s}");
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }

    let cfg = JobConfig {
        wall_secs: 1,
        ..job_config()
    };
    let st = state_with(&pool, cfg);
    let app = router(st.clone());
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    let r = submit(&app, &tok, serde_json::json!({"scenario": "toy-lock", "duration": "30m", "replications": 1, "seed": 9})).await;
    let id = r.json()["id"].as_i64().unwrap();
    assert_eq!(
        wait_state(&pool, id, &["failed", "done"], 60).await,
        "failed"
    );
    let s = get(&app, &format!("/api/v1/simulations/{id}")).await.json();
    assert!(
        s["error"].as_str().unwrap().contains("wall-clock limit"),
        "{s}"
    );
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
}

fn database_url(pool: &PgPool) -> String {
    let o = pool.connect_options();
    format!(
        "postgres://{}@{}:{}/{}",
        o.get_username(),
        o.get_host(),
        o.get_port(),
        o.get_database().unwrap()
    )
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(url: &str) -> Server {
    Server(
        Command::new(EXE)
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                "--sim-workers",
                "1",
                "--sim-lease-secs",
                "2",
            ])
            .env("DATABASE_URL", url)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start reclaimlab serve"),
    )
}

#[sqlx::test]
async fn a_killed_worker_s_job_completes_exactly_once(pool: PgPool) {
    let url = database_url(&pool);
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    // Long enough (about 5 s of CPU; the simulator is built optimised in
    // tests too) to be killed in the middle.
    let r = submit(&app, &tok, serde_json::json!({"scenario": "toy-lock", "duration": "600s", "replications": 1, "seed": 3})).await;
    assert_eq!(r.status, 202);
    let id = r.json()["id"].as_i64().unwrap();
    let mut a = serve(&url);
    let a_pid = a.0.id();
    wait_state(&pool, id, &["running"], 60).await;
    let worker: String = sqlx::query_scalar("SELECT worker FROM simulations WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(worker.contains(&format!("-{a_pid}-")), "{worker}");
    // Let it make progress, then kill -9 the whole service process.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    a.0.kill().unwrap();
    a.0.wait().unwrap();
    let _b = serve(&url);
    assert_eq!(
        wait_state(&pool, id, &["done", "failed"], 180).await,
        "done"
    );
    let (attempts, w): (i32, String) =
        sqlx::query_as("SELECT attempts, worker FROM simulations WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(attempts, 2, "retried once after the lease lapsed");
    assert!(!w.contains(&format!("-{a_pid}-")));
    let results: i64 =
        sqlx::query_scalar("SELECT count(*) FROM simulation_results WHERE simulation_id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(results, 1);
    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM runs WHERE simulation_id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(runs, 5, "one run per block of the one variant, stored once");
}

#[sqlx::test]
async fn two_processes_share_the_queue_without_running_a_job_twice(pool: PgPool) {
    let url = database_url(&pool);
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let tok2 = token(&pool, Scope::Upload).await;
    let mut ids = Vec::new();
    for seed in 0..6u64 {
        let t = if seed % 2 == 0 { &tok } else { &tok2 };
        let r = submit(&app, t, serde_json::json!({"scenario": "toy-lock", "duration": "2s", "replications": 1, "seed": seed})).await;
        assert_eq!(r.status, 202, "{}", r.text());
        ids.push(r.json()["id"].as_i64().unwrap());
    }
    let _a = serve(&url);
    let _b = serve(&url);
    for id in &ids {
        assert_eq!(
            wait_state(&pool, *id, &["done", "failed"], 180).await,
            "done"
        );
    }
    let attempts: Vec<i32> = sqlx::query_scalar("SELECT attempts FROM simulations ORDER BY id")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(attempts, vec![1; 6], "no job was claimed twice");
    let results: i64 = sqlx::query_scalar("SELECT count(*) FROM simulation_results")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(results, 6);
    let uploads: i64 = sqlx::query_scalar("SELECT count(DISTINCT simulation_id) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(uploads, 6);
}
