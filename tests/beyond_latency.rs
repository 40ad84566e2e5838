//! Kernel counters, lock contention, distributions, profiles and
//! microbenchmarks: each parses from an upload, shows on its run page and
//! compares between two variants with the right direction, on real samples
//! of the formats crate's corpus.

mod common;

use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

fn sample(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/crates/formats/tests/corpus/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn put(app: &axum::Router, tok: &str, variant: &str, path: &str) -> Vec<i64> {
    let q = if variant.is_empty() {
        "board=b&kernel=k".to_string()
    } else {
        format!("board=b&kernel=k&variant={variant}")
    };
    let r = upload(app, Some(tok), &q, sample(path)).await;
    assert_eq!(r.status, 201, "{path}: {}", r.text());
    r.json()["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect()
}

async fn compare(app: &axum::Router, tok: &str, a: &str, b: &str) -> serde_json::Value {
    let created = post_comparison(
        app,
        tok,
        serde_json::json!({"columns": [{"variant": a}, {"variant": b}]}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    get(app, &format!("/c/{slug}.json")).await.json()["comparison"].clone()
}

fn row<'a>(c: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {c}"))
}

#[sqlx::test]
async fn lock_contention_table_and_less_wait_is_better(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let a = put(&app, &tok, "lock-a", "perf_lock/tool-caller-messaging.txt").await;
    put(&app, &tok, "lock-b", "perf_lock/tool-top8-by-contended.txt").await;
    let page = get(&app, &format!("/runs/{}", a[0])).await.text();
    assert!(
        page.contains("Lock contention, most total wait first"),
        "{page}"
    );
    // Sorted by total wait: 7.16 ms (exit_to_user_mode_loop) before 3.13 ms.
    let first = page.find("exit_to_user_mode_loop+0x51").unwrap();
    let second = page.find("autoremove_wake_function+0x12").unwrap();
    assert!(first < second);
    assert!(page.contains(">7160<"), "{page}");
    let c = compare(&app, &tok, "lock-a", "lock-b").await;
    let m = row(&c, "total_wait [exit_to_user_mode_loop+0x51]");
    assert_eq!(m["better"], "lower");
    assert_eq!(m["unit"], "us");
    assert_eq!(m["cells"][0]["mean"], 7160.0);
    let m = row(&c, "contended [autoremove_wake_function+0x12]");
    assert_eq!(m["better"], "lower");
    // The second row with the same caller is a lock of its own.
    row(&c, "total_wait [exit_to_user_mode_loop+0x51 #2]");
}

#[sqlx::test]
async fn distributions_are_histograms_with_tails(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let a = put(
        &app,
        &tok,
        "rq-idle",
        "distribution/repo-bpftrace-runqlat-idle.txt",
    )
    .await;
    put(
        &app,
        &tok,
        "rq-busy",
        "distribution/repo-bpftrace-runqlat-contended.txt",
    )
    .await;
    let page = get(&app, &format!("/runs/{}", a[0])).await.text();
    assert!(
        page.contains(&format!("/runs/{}/histogram.svg", a[0])),
        "{page}"
    );
    let svg = get(&app, &format!("/runs/{}/histogram.svg", a[0])).await;
    assert_eq!(svg.status, 200);
    assert!(
        svg_texts(&svg.text()).iter().any(|t| t.contains("@usecs")),
        "{}",
        svg.text()
    );
    let c = compare(&app, &tok, "rq-idle", "rq-busy").await;
    let p99 = row(&c, "p99 <=");
    assert_eq!(p99["better"], "lower");
    assert_eq!(p99["unit"], "us");
    assert_eq!(p99["scope"], "bpftrace @usecs");
    // A distribution is not cyclictest: no cyclictest latency row appears.
    assert!(
        c["latency"].is_null()
            || c["latency"]["worst"]
                .as_array()
                .unwrap()
                .iter()
                .all(|w| w["kind"] != "cyclictest"),
        "{c}"
    );
}

#[sqlx::test]
async fn counter_tables_judge_only_what_has_a_direction(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let runs = put(&app, &tok, "", "counters/lore-yuzhao-mglru-refaults.txt").await;
    assert_eq!(runs.len(), 2, "one run per column (Before, After)");
    let page = get(&app, &format!("/runs/{}", runs[0])).await.text();
    assert!(page.contains("workingset_refault_file"), "{page}");
    let c = compare(&app, &tok, "Before", "After").await;
    let refault = row(&c, "workingset_refault_file");
    assert_eq!(refault["better"], "neutral");
    let d = &refault["cells"][1]["vs_baseline"];
    assert!((d["pct"].as_f64().unwrap() - (-57.14)).abs() < 0.01, "{d}");
    assert_eq!(d["judgement"], "not_judged");
    let tx = row(&c, "Executed (transactions)");
    assert_eq!(tx["better"], "higher");
    assert_eq!(tx["cells"][1]["vs_baseline"]["judgement"], "better");
    // A vmstat dump is a counters run of its own source.
    let v = put(&app, &tok, "dump", "counters/tool-proc-vmstat.txt").await;
    let page = get(&app, &format!("/runs/{}", v[0])).await.text();
    assert!(page.contains("pgscan_kswapd") && page.contains("allocstall_normal"));
}

#[sqlx::test]
async fn profiles_and_microbenchmarks_compare(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    put(
        &app,
        &tok,
        "prof-a",
        "profile/tool-report-flat-messaging.txt",
    )
    .await;
    put(&app, &tok, "prof-b", "profile/tool-report-memset.txt").await;
    let c = compare(&app, &tok, "prof-a", "prof-b").await;
    let rows = c["metrics"].as_array().unwrap();
    assert!(!rows.is_empty());
    // A profile's share is shown, never judged.
    assert!(
        rows.iter()
            .all(|m| m["better"] == "neutral" && m["unit"] == "%")
    );
    put(&app, &tok, "hb-pipe", "microbench/tool-hackbench-pipe.txt").await;
    put(
        &app,
        &tok,
        "hb-proc",
        "microbench/tool-hackbench-process.txt",
    )
    .await;
    let c = compare(&app, &tok, "hb-pipe", "hb-proc").await;
    let t = row(&c, "time");
    assert_eq!(t["better"], "lower");
    assert_eq!(t["unit"], "s");
}

#[sqlx::test]
async fn will_it_scale_columns_are_measurements_not_variants(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let a = put(
        &app,
        &tok,
        "wis-before",
        "will_it_scale/lore-peterx-pin_fast-before.txt",
    )
    .await;
    put(
        &app,
        &tok,
        "wis-after",
        "will_it_scale/lore-peterx-pin_fast-after.txt",
    )
    .await;
    // One run per printed table (this mail prints several), never one per
    // column.
    assert!(!a.is_empty());
    let variants = get(&app, "/variants").await.text();
    assert!(!variants.contains("/variants/processes\""), "{variants}");
    let c = compare(&app, &tok, "wis-before", "wis-after").await;
    let rows = c["metrics"].as_array().unwrap();
    let m = rows
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("processes [tasks="))
        .unwrap_or_else(|| panic!("{c}"));
    assert_eq!(m["better"], "higher");
    let idle = rows
        .iter()
        .find(|m| {
            m["name"]
                .as_str()
                .unwrap()
                .starts_with("processes_idle [tasks=")
        })
        .unwrap();
    assert_eq!(idle["better"], "neutral");
}

#[sqlx::test]
async fn schbench_latency_is_lower_and_rps_higher(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let body = sample("microbench/lore-sshegde-schbench-wakeup-rps.txt");
    let r = send(
        &app,
        axum::http::Request::post("/api/v1/parse")
            .header("content-type", "text/plain")
            .body(axum::body::Body::from(body))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let doc = r.json();
    let blocks = doc["blocks"].as_array().unwrap();
    assert!(blocks.iter().any(|b| b["tool"] == "schbench"), "{doc}");
    put(
        &app,
        &tok,
        "sch-a",
        "microbench/lore-sshegde-schbench-wakeup-rps.txt",
    )
    .await;
    put(
        &app,
        &tok,
        "sch-b",
        "microbench/lore-madadi-schbench-old-and-new.txt",
    )
    .await;
    let c = compare(&app, &tok, "sch-a", "sch-b").await;
    let rows = c["metrics"].as_array().unwrap();
    let lat = rows
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("wakeup_latency."))
        .unwrap_or_else(|| panic!("{c}"));
    assert_eq!(lat["better"], "lower");
    if let Some(rps) = rows
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("rps."))
    {
        assert_eq!(rps["better"], "higher");
    }
}
