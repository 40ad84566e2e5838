//! The data set the page benchmarks measure (`bench/scale.sh`), built at a
//! small size exactly as the benchmark builds it: `bench/scale/gen.py`
//! uploads through a running server's API, `bench/scale/replicate.sql`
//! copies those uploads with every row hanging off them, `reclaimlab
//! rebuild-overview` recomputes the aggregates. What makes it realistic is
//! asserted here: histograms with their buckets and overflows, irqsoff
//! traces with stacks and culprits, five-link variant chains compared
//! link by link, several boards and kernels, and copies that carry all of
//! it (a copy without its buckets would make every page look cheap).

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reclaimlab::auth::Scope;
use sqlx::PgPool;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Run `cmd` off the async runtime; panic with its stderr unless it
/// succeeds.
async fn run(what: &str, mut cmd: Command) {
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[sqlx::test]
async fn the_benchmark_data_set_is_realistic_at_small_size(pool: PgPool) {
    let db = common::database_url(&pool).await;
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env("DATABASE_URL", &db)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start reclaimlab serve"),
    );
    let client = reqwest::Client::new();
    let start = Instant::now();
    while !client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(start.elapsed() < Duration::from_secs(60), "no server");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let token = common::token(&pool, Scope::Upload).await;

    // Forty uploads: four chains of five links, each link on two boards.
    let mut fill = Command::new("python3");
    fill.args([&repo("bench/scale/gen.py"), &base, &token, "40", "2"]);
    run("gen.py", fill).await;

    let kinds: Vec<(String, i64)> = sqlx::query_as(
        "SELECT block_kind, count(*) FROM runs WHERE simulation_id IS NULL
         GROUP BY 1 ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let of = |k: &str| kinds.iter().find(|(n, _)| n == k).map_or(0, |(_, c)| *c);
    assert_eq!(of("cyclictest"), 40, "{kinds:?}");
    assert_eq!(of("ftrace_latency"), 40, "{kinds:?}");
    assert_eq!(of("time"), 40, "{kinds:?}");
    // Links 2..5 carry a compare table against their parent.
    assert!(of("table") >= 32, "{kinds:?}");

    // Every cyclictest run has four threads, each with buckets; some
    // threads overflow the histogram.
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM runs r WHERE r.block_kind = 'cyclictest'
             AND (SELECT count(*) FROM histogram_threads h WHERE h.run_id = r.id) = 4
             AND (SELECT count(DISTINCT thread) FROM histogram_buckets b WHERE b.run_id = r.id) = 4"
        )
        .await,
        40
    );
    assert!(count(&pool, "SELECT count(*) FROM histogram_buckets").await > 40 * 4 * 10);
    assert!(
        count(
            &pool,
            "SELECT count(*) FROM histogram_threads WHERE overflows > 0"
        )
        .await
            > 0
    );
    // Every trace is an irqsoff report with a stack and a culprit; the
    // culprits differ.
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM traces WHERE tracer = 'irqsoff' AND culprit IS NOT NULL
             AND cardinality(stack) >= 5"
        )
        .await,
        40
    );
    assert!(count(&pool, "SELECT count(DISTINCT culprit) FROM traces").await >= 4);
    assert!(count(&pool, "SELECT count(DISTINCT board_id) FROM runs").await >= 6);
    assert!(count(&pool, "SELECT count(DISTINCT kernel_id) FROM runs").await >= 4);
    // Four chains of five links: the fifth link's ancestry is five long.
    assert_eq!(
        count(
            &pool,
            "WITH RECURSIVE up(id, parent_id, depth) AS (
                 SELECT id, parent_id, 1 FROM variants WHERE name LIKE 'rig%-v5'
                 UNION ALL
                 SELECT v.id, v.parent_id, up.depth + 1 FROM variants v JOIN up ON v.id = up.parent_id)
             SELECT count(*) FROM up WHERE depth = 5"
        )
        .await,
        4
    );
    let chain = client
        .get(format!("{base}/compare?chain=rig01-v5"))
        .send()
        .await
        .unwrap();
    assert_eq!(chain.status(), 200);
    let html = chain.text().await.unwrap();
    for link in 1..=5 {
        assert!(html.contains(&format!("rig01-v{link}")), "link {link}");
    }

    // Copies up to 600 runs (three times the uploaded ones) carry every child row in proportion.
    let runs = count(&pool, "SELECT count(*) FROM runs").await;
    let buckets = count(&pool, "SELECT count(*) FROM histogram_buckets").await;
    let per_run = |rows: i64, runs: i64| rows as f64 / runs as f64;
    let before = per_run(buckets, runs);
    let mut replicate = Command::new("psql");
    replicate.args([
        db.as_str(),
        "-q",
        "-v",
        "target=600",
        "-f",
        &repo("bench/scale/replicate.sql"),
    ]);
    run("replicate.sql", replicate).await;
    let mut rebuild = Command::new(env!("CARGO_BIN_EXE_reclaimlab"));
    rebuild.arg("rebuild-overview").env("DATABASE_URL", &db);
    run("rebuild-overview", rebuild).await;

    let grown = count(&pool, "SELECT count(*) FROM runs").await;
    assert!((600..800).contains(&grown), "{grown} runs");
    let after = per_run(
        count(&pool, "SELECT count(*) FROM histogram_buckets").await,
        grown,
    );
    assert!(
        (after / before - 1.0).abs() < 0.25,
        "buckets a run {before:.1} -> {after:.1}"
    );
    for table in [
        "traces",
        "histogram_threads",
        "latency_threads",
        "metrics",
        "run_compare",
    ] {
        let rows = count(
            &pool,
            &format!("SELECT count(DISTINCT run_id) FROM {table}"),
        )
        .await;
        let orig = count(
            &pool,
            &format!(
                "SELECT count(DISTINCT t.run_id) FROM {table} t JOIN runs r ON r.id = t.run_id
                 WHERE NOT EXISTS (SELECT 1 FROM bench_copies c WHERE c.upload_id = r.upload_id)"
            ),
        )
        .await;
        assert!(
            rows > 2 * orig,
            "{table}: {orig} runs before, {rows} after copying"
        );
    }
    // The copies are later builds of the same kernels on the same boards,
    // and the aggregates the pages read count them.
    assert!(
        count(
            &pool,
            "SELECT count(*) FROM kernels WHERE version LIKE '%+n%'"
        )
        .await
            >= 4
    );
    assert!(count(&pool, "SELECT count(DISTINCT board_id) FROM runs").await <= 10);
    assert_eq!(
        count(
            &pool,
            "SELECT coalesce(sum(runs), 0)::bigint FROM run_cells"
        )
        .await,
        count(
            &pool,
            "SELECT count(*) FROM runs WHERE deleted_at IS NULL AND NOT unlisted"
        )
        .await
    );
}
