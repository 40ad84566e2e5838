//! Two `reclaimlab serve` processes on one database, sharing nothing else:
//! an upload through one is a run, a page and an idempotent replay through
//! the other; rigs uploading through both at once make one kernel row; a
//! permalink made on one is served byte for byte by both; a simulation
//! submitted to the process that runs no workers is leased and run by the
//! other, and both report the same job.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reclaimlab::auth::Scope;
use sqlx::PgPool;

/// A server process, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start(db: &str, sim_workers: usize) -> Server {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--sim-workers", &sim_workers.to_string()])
        .args(["--sim-lease-secs", "5"])
        .env("DATABASE_URL", db)
        .env("RECLAIMLAB_PUBLIC_URL", &base)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start reclaimlab serve");
    let server = Server { child, base };
    let client = reqwest::Client::new();
    let start = Instant::now();
    loop {
        if let Ok(r) = client.get(format!("{}/healthz", server.base)).send().await
            && r.status().is_success()
        {
            return server;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} did not come up",
            server.base
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn get_text(c: &reqwest::Client, url: &str) -> (u16, String) {
    let r = c.get(url).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn get_json(c: &reqwest::Client, url: &str) -> serde_json::Value {
    let r = c.get(url).send().await.unwrap();
    assert!(r.status().is_success(), "GET {url}: {}", r.status());
    json(r).await
}

async fn json(r: reqwest::Response) -> serde_json::Value {
    serde_json::from_str(&r.text().await.unwrap()).unwrap()
}

fn post_json(
    c: &reqwest::Client,
    url: String,
    tok: &str,
    body: serde_json::Value,
) -> reqwest::RequestBuilder {
    c.post(url)
        .bearer_auth(tok)
        .header("content-type", "application/json")
        .body(body.to_string())
}

#[sqlx::test]
async fn two_processes_on_one_database_agree(pool: PgPool) {
    let db = common::database_url(&pool).await;
    // `a` runs no simulation workers: its jobs can only run in `b`.
    let a = start(&db, 0).await;
    let b = start(&db, 1).await;
    let tok = common::token(&pool, Scope::Upload).await;
    let c = reqwest::Client::new();
    let post_upload = |server: &str, query: &str, body: String, key: Option<&str>| {
        let mut r = c
            .post(format!("{server}/api/v1/uploads?{query}"))
            .bearer_auth(&tok)
            .header("content-type", "text/plain")
            .body(body);
        if let Some(k) = key {
            r = r.header("idempotency-key", k);
        }
        r.send()
    };

    // An upload through `a` is a run that `b` shows, and replaying it with
    // its idempotency key through `b` stores nothing new.
    let r = post_upload(
        &a.base,
        "board=two-proc&kernel=6.14.0&variant=base",
        common::cyclictest_rig(0, 2, 5000, 200),
        Some("two-proc-1"),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let first = json(r).await;
    let run_id = first["runs"][0]["id"].as_i64().unwrap();
    let (status, page) = get_text(&c, &format!("{}/runs/{run_id}", b.base)).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("two-proc") && page.contains("6.14.0"),
        "{page}"
    );
    let r = post_upload(
        &b.base,
        "board=two-proc&kernel=6.14.0&variant=base",
        common::cyclictest_rig(0, 2, 5000, 200),
        Some("two-proc-1"),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200, "a replay, not a second upload");
    let replay = json(r).await;
    assert_eq!(replay["upload_id"], first["upload_id"]);

    // Eight rigs upload for one new kernel, half through each process.
    let mut tasks = Vec::new();
    for rig in 0..8 {
        let server = if rig % 2 == 0 { &a.base } else { &b.base };
        tasks.push(post_upload(
            server,
            &format!(
                "board=two-proc-{}&kernel=6.15.0-rc1&variant=v{}",
                rig % 4,
                rig % 2
            ),
            common::cyclictest_rig(rig + 1, 2, 5000, 200),
            None,
        ));
    }
    for r in futures_util::future::join_all(tasks).await {
        assert_eq!(r.unwrap().status(), 201);
    }
    let kernels: i64 =
        sqlx::query_scalar("SELECT count(*) FROM kernels WHERE version = '6.15.0-rc1'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(kernels, 1);
    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(runs, 9);

    // Pages and the API list the same runs from either process.
    for path in [
        "/api/v1/runs",
        "/api/v1/runs?board=two-proc-1",
        "/api/v1/runs?kernel=6.15.0-rc1",
    ] {
        let (ja, jb) = (
            get_json(&c, &format!("{}{path}", a.base)).await,
            get_json(&c, &format!("{}{path}", b.base)).await,
        );
        assert_eq!(
            ja.to_string().replace(&a.base, "X"),
            jb.to_string().replace(&b.base, "X"),
            "{path}"
        );
    }
    for path in ["/", "/kernels", "/history?board=two-proc-1", "/heatmap"] {
        let (sa, pa) = get_text(&c, &format!("{}{path}", a.base)).await;
        let (sb, pb) = get_text(&c, &format!("{}{path}", b.base)).await;
        assert_eq!((sa, sb), (200, 200), "{path}");
        assert_eq!(pa.replace(&a.base, "X"), pb.replace(&b.base, "X"), "{path}");
    }
    let (_, kernels_page) = get_text(&c, &format!("{}/kernels", b.base)).await;
    assert!(kernels_page.contains("6.15.0-rc1"));

    // `b` keeps its heatmap per database snapshot; an upload through `a`
    // changes the snapshot, so `b`'s next heatmap shows it.
    let (_, kept) = get_text(&c, &format!("{}/heatmap", b.base)).await;
    assert!(!kept.contains("two-proc-late"));
    let r = post_upload(
        &a.base,
        "board=two-proc-late&kernel=6.16.0&variant=base",
        common::cyclictest_rig(9, 2, 5000, 700),
        None,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let (_, pb) = get_text(&c, &format!("{}/heatmap", b.base)).await;
    let (_, pa) = get_text(&c, &format!("{}/heatmap", a.base)).await;
    assert!(pb.contains("two-proc-late"), "{pb}");
    assert_eq!(pa.replace(&a.base, "X"), pb.replace(&b.base, "X"));

    // A permalink made on `b` is the same bytes from both processes.
    let r = post_json(
        &c,
        format!("{}/api/v1/comparisons", b.base),
        &tok,
        serde_json::json!({"columns": [{"variant": "v0"}, {"variant": "v1"}]}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let slug = json(r).await["slug"].as_str().unwrap().to_string();
    for ext in ["", ".txt", ".json"] {
        let (sa, pa) = get_text(&c, &format!("{}/c/{slug}{ext}", a.base)).await;
        let (sb, pb) = get_text(&c, &format!("{}/c/{slug}{ext}", b.base)).await;
        assert_eq!((sa, sb), (200, 200));
        assert_eq!(pa, pb, "permalink{ext} differs between the processes");
        assert!(pa.contains("v0"));
    }

    // A simulation submitted to `a` (no workers) is run by `b`; both
    // processes report the same finished job and its runs.
    let r = post_json(
        &c,
        format!("{}/api/v1/simulations", a.base),
        &tok,
        serde_json::json!({"scenario": "toy-lock", "seed": 3, "replications": 1, "duration": "1s"}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 202);
    let id = json(r).await["id"].as_i64().unwrap();
    let started = Instant::now();
    let done = loop {
        let s = get_json(&c, &format!("{}/api/v1/simulations/{id}", a.base)).await;
        match s["status"].as_str().unwrap() {
            "done" => break s,
            "failed" | "cancelled" => panic!("job {id}: {s}"),
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "job {id} not done: {s}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(done["attempts"], 1);
    let from_b = get_json(&c, &format!("{}/api/v1/simulations/{id}", b.base)).await;
    assert_eq!(from_b["status"], "done");
    assert_eq!(from_b["run_ids"], done["run_ids"]);
    let sim_run = done["run_ids"][0].as_i64().unwrap();
    let run = get_json(&c, &format!("{}/api/v1/runs/{sim_run}", a.base)).await;
    assert_eq!(run["kind"], "simulated");
    // Leased by a worker of process `b` (worker names carry the pid).
    let worker: Option<String> = sqlx::query_scalar("SELECT worker FROM simulations WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    let worker = worker.expect("the job records its worker");
    assert!(
        worker.contains(&format!("-{}-", b.child.id())),
        "worker {worker}, process b is {}",
        b.child.id()
    );
}
