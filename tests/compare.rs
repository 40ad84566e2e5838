//! Comparisons and permalinks over the demo data (the seed blocks).

mod common;

use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

async fn demo(pool: &PgPool) {
    let n = reclaimlab::cli::demo::load(pool).await.expect("demo loads");
    assert_eq!(n, 11, "every demo file is stored");
}

#[sqlx::test]
async fn demo_load_is_idempotent(pool: PgPool) {
    demo(&pool).await;
    let before = counts(&pool).await;
    demo(&pool).await;
    assert_eq!(counts(&pool).await, before);
}

#[sqlx::test]
async fn seed_004_chain_is_one_table_with_both_baselines(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let r = get(&app, "/compare?chain=directcongest-v1").await;
    assert_eq!(r.status, 200);
    let html = r.text();
    // The five links of the chain, in order, as columns.
    let pos: Vec<usize> = [
        "vanilla",
        "batch-v1",
        "ramdisknonrot-v1",
        "waitqueue-v1",
        "directcongest-v1",
    ]
    .iter()
    .map(|v| {
        html.find(&format!("<th class=\"num col-head\">{v}</th>"))
            .unwrap_or_else(|| panic!("column {v} missing"))
    })
    .collect();
    assert!(
        pos.windows(2).all(|w| w[0] < w[1]),
        "columns in chain order"
    );
    // Values and the printed deltas survive as printed.
    for needle in [
        "260.53", "192.98", "181", "179.61", "202.21", "+25.93%", "+6.21%", "-12.58%", "printed",
    ] {
        assert!(html.contains(needle), "chain table lacks {needle}");
    }

    // The same through a permalink, in text.
    let tok = token(&pool, Scope::Upload).await;
    let columns: Vec<serde_json::Value> = [
        "vanilla",
        "batch-v1",
        "ramdisknonrot-v1",
        "waitqueue-v1",
        "directcongest-v1",
    ]
    .iter()
    .map(|v| serde_json::json!({"variant": v, "board": "x86 UMA, 4 fake NUMA nodes"}))
    .collect();
    let req = serde_json::json!({"columns": columns, "baseline": 0, "chain_previous": true});
    let created = post_comparison(&app, &tok, req).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    let txt = get(&app, &format!("/c/{slug}.txt")).await.text();
    assert!(txt.lines().all(|l| l.chars().count() <= 72), "{txt}");
    assert!(txt.contains(&format!("http://reclaimlab.test/c/{slug}")));
    // The reply text states each link's verdict within 40 lines; the
    // whole tables are in the full text.
    assert!(txt.lines().count() <= 40, "{txt}");
    assert!(
        txt.contains("vanilla -> batch-v1") && txt.contains("directcongest"),
        "{txt}"
    );
    let full = get(&app, &format!("/c/{slug}.full.txt")).await.text();
    assert!(full.contains("260.53") && full.contains("192.98"), "{full}");
    assert!(full.lines().all(|l| l.len() <= 72), "{full}");
}

#[sqlx::test]
async fn seed_000_culprit_diff(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let r = get(
        &app,
        "/compare?columns=variant%3Avanilla%3Bboard%3ALicheePi+4A%0Avariant%3Amadvise-resched-v1",
    )
    .await;
    assert_eq!(r.status, 200);
    let html = r.text().replace("&#62;", ">").replace("&gt;", ">");
    assert!(
        html.contains("max 1969 us -> 879 us (-55%, better); culprit changed from madvise_cold_or_pageout_pte_range to free_unref_page_list"),
        "{html}"
    );
}

#[sqlx::test]
async fn seed_003_per_thread_max_with_n1_honesty(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let req = serde_json::json!({"columns": [
        {"label": "vanilla", "variant": "vanilla", "board": "i7-4790", "kernel": "6.12.0-rc5"},
        {"label": "capped", "variant": "isolate-writeback-cap-v1", "board": "i7-4790"}], "baseline": 0});
    let created = post_comparison(&app, &tok, req).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    let json = get(&app, &format!("/c/{slug}.json")).await.json();
    let threads = json["comparison"]["latency"]["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 8);
    let before: Vec<f64> = threads
        .iter()
        .map(|t| t["cells"][0]["max_us"].as_f64().unwrap())
        .collect();
    let after: Vec<f64> = threads
        .iter()
        .map(|t| t["cells"][1]["max_us"].as_f64().unwrap())
        .collect();
    assert_eq!(
        before,
        vec![
            53381.0, 60119.0, 67469.0, 65534.0, 57776.0, 64737.0, 52567.0, 52606.0
        ]
    );
    assert_eq!(
        after,
        vec![
            4449.0, 2075.0, 2987.0, 2425.0, 1466.0, 3844.0, 3291.0, 3516.0
        ]
    );
    let txt = get(&app, &format!("/c/{slug}.txt")).await.text();
    let words = txt.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("capped vs vanilla: cyclictest max: max 67469 us -> 4449 us (-93%, better); n=1 each, not assessed"),
        "honest about a single run: {txt}"
    );
    assert!(txt.lines().all(|l| l.chars().count() <= 72));
}

#[sqlx::test]
async fn permalinks_are_immutable_and_removable(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    // A run of our own that we will delete afterwards.
    let up = upload(
        &app,
        Some(&tok),
        "board=i7-4790&kernel=6.12.0-rc5&variant=vanilla",
        fixture("cyclictest-s4-before.txt")
            .iter()
            .map(|b| if *b == b'3' { b'4' } else { *b })
            .collect::<Vec<u8>>(),
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.text());
    let upload_id = up.json()["upload_id"].as_i64().unwrap();
    let req = serde_json::json!({"columns": [
        {"variant": "vanilla", "board": "i7-4790"},
        {"variant": "isolate-writeback-cap-v1", "board": "i7-4790"}]});
    let post = |body: String| {
        Request::post("/api/v1/comparisons")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap()
    };
    let created = send(&app, post(req.to_string())).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    assert!((8..=12).contains(&slug.len()));
    let paths = [
        format!("/c/{slug}"),
        format!("/c/{slug}.txt"),
        format!("/c/{slug}.json"),
        format!("/c/{slug}.svg"),
    ];
    let mut first = Vec::new();
    for p in &paths {
        let r = get(&app, p).await;
        assert_eq!(r.status, 200, "{p}");
        assert!(
            r.headers["cache-control"]
                .to_str()
                .unwrap()
                .contains("immutable")
        );
        first.push((r.body, r.headers["etag"].clone()));
    }
    // Later uploads and a deletion do not change a byte.
    let more = upload(
        &app,
        Some(&tok),
        "board=i7-4790&kernel=6.12.0-rc5&variant=isolate-writeback-cap-v1",
        "T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 9\n",
    )
    .await;
    assert_eq!(more.status, 201);
    let del = send(
        &app,
        Request::delete(format!("/api/v1/uploads/{upload_id}"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(del.status, 200, "{}", del.text());
    for (p, (body, etag)) in paths.iter().zip(&first) {
        let r = get(&app, p).await;
        assert_eq!(&r.body, body, "{p} changed");
        assert_eq!(&r.headers["etag"], etag);
        let cached = send(
            &app,
            Request::get(p)
                .header("if-none-match", etag)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(cached.status, 304);
    }
    // The live comparison does change: the deleted run is gone.
    let run_pages = get(
        &app,
        &format!("/api/v1/runs/{}", up.json()["runs"][0]["id"]),
    )
    .await;
    assert_eq!(run_pages.status, 404);

    // Another token may not remove it; its maker may; then 410, slug kept.
    let other = token(&pool, Scope::Upload).await;
    let denied = send(
        &app,
        Request::delete(format!("/api/v1/comparisons/{slug}"))
            .header("authorization", format!("Bearer {other}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(denied.status, 403);
    let gone = send(
        &app,
        Request::delete(format!("/api/v1/comparisons/{slug}"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(gone.status, 204);
    for p in &paths {
        assert_eq!(get(&app, p).await.status, 410, "{p}");
    }
    // Bad requests.
    assert_eq!(
        send(&app, post(r#"{"columns": []}"#.into())).await.status,
        400
    );
    assert_eq!(
        send(&app, post(r#"{"columns": [{"runs": [999999]}]}"#.into()))
            .await
            .status,
        404
    );
    assert_eq!(
        send(
            &app,
            post(r#"{"columns": [{"runs": [1]}], "baseline": 3}"#.into())
        )
        .await
        .status,
        400
    );
    assert_eq!(get(&app, "/c/doesnotexist").await.status, 404);
}

#[sqlx::test]
async fn overview_pages(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    // One kind and one variant per cell: by default cyclictest, and on
    // i7-4790 / 6.12.0-rc5 the variant measured last (the patched run,
    // 4449 us), never the vanilla 67469 us nor the irqsoff trace's 77766.
    let heat = get(&app, "/heatmap").await;
    assert_eq!(heat.status, 200);
    let text = heat.text();
    let row = text
        .lines()
        .find(|l| l.contains("<td>i7-4790</td>"))
        .expect("i7-4790 row");
    assert!(
        row.contains("isolate-writeback-cap-v1") && row.contains(">4449<"),
        "{row}"
    );
    assert!(!text.contains("67469") && !text.contains("77766"), "{text}");
    let vanilla = get(&app, "/heatmap?kind=cyclictest&variant=vanilla")
        .await
        .text();
    assert!(vanilla.contains(">67469<") && !vanilla.contains(">4449<"));
    let irqsoff = get(&app, "/heatmap?kind=irqsoff").await.text();
    assert!(irqsoff.contains(">77766<") && !irqsoff.contains(">67469<"));
    let svg = get(&app, "/heatmap.svg").await;
    assert_eq!(svg.status, 200);
    common::svg(&svg.text());
    // Run-to-run metrics make metric heatmaps; rows of printed tables are
    // scoped to their table and do not.
    let metric = get(&app, "/heatmap?metric=real").await;
    assert!(metric.text().contains("arm64 phone"));
    let table_row = get(&app, "/heatmap?metric=System-1").await;
    assert!(!table_row.text().contains("x86 UMA"));
    let culprits = get(&app, "/culprits").await.text();
    let iso = culprits
        .find("isolate_lru_folios")
        .expect("isolate_lru_folios listed");
    let mad = culprits
        .find("madvise_cold_or_pageout_pte_range")
        .expect("madvise listed");
    assert!(iso < mad, "worst culprit first");
    let hist = get(&app, "/history?board=i7-4790").await;
    assert_eq!(hist.status, 200);
    assert!(hist.text().contains("/history.svg"));
    let svg = get(&app, "/history.svg?board=i7-4790").await;
    assert_eq!(svg.status, 200);
    // Plotted against when the runs were stored, not their upload order.
    assert!(
        svg_texts(&svg.text())
            .iter()
            .any(|t| t.contains("days since ")),
        "{}",
        svg.text()
    );
    let v = get(&app, "/variants/waitqueue-v1").await.text();
    assert!(
        v.contains("ramdisknonrot-v1") && v.contains("/compare?chain=waitqueue-v1"),
        "{v}"
    );
    let cmp = get(&app, "/compare").await;
    assert_eq!(cmp.status, 200);
    assert!(
        cmp.text().contains("directcongest-v1"),
        "chains are offered"
    );
    let bad = get(&app, "/compare?c=colour%3Ablue").await;
    assert_eq!(bad.status, 200);
    assert!(bad.text().contains("unknown column field"));
}

#[sqlx::test]
async fn share_form_redirects_to_a_permalink(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let form = format!(
        "columns=variant%3Avanilla%3Bboard%3Ai7-4790%0Avariant%3Aisolate-writeback-cap-v1&baseline=0&token={tok}"
    );
    let form = form.as_str();
    let r = send(
        &app,
        Request::post("/compare/share")
            .header("content-type", "application/x-www-form-urlencoded")
            .header("sec-fetch-site", "same-origin")
            .body(Body::from(form.to_owned()))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let loc = r.headers["location"].to_str().unwrap().to_string();
    assert!(loc.starts_with("/c/"));
    assert_eq!(get(&app, &loc).await.status, 200);
    let cross = send(
        &app,
        Request::post("/compare/share")
            .header("content-type", "application/x-www-form-urlencoded")
            .header("sec-fetch-site", "cross-site")
            .body(Body::from(form.to_owned()))
            .unwrap(),
    )
    .await;
    assert_eq!(cross.status, 403);
}

#[sqlx::test]
async fn overviews_follow_uploads_and_deletions(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let spike = "T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 987654\n";
    let up = upload(
        &app,
        Some(&tok),
        "board=i7-4790&kernel=6.12.0-rc5&variant=vanilla",
        spike,
    )
    .await;
    assert_eq!(up.status, 201);
    let trace = std::fs::read_to_string(format!(
        "{}/demo/s4-irqsoff-before.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("latency: 77766 us", "latency: 876543 us")
    .replace("isolate_lru_folios+0x0/0x3e0", "spike_culprit_fn+0x0/0x3e0");
    let up2 = upload(&app, Some(&tok), "board=i7-4790&variant=vanilla", trace).await;
    assert_eq!(up2.status, 201, "{}", up2.text());
    let heat = get(&app, "/heatmap").await.text();
    assert!(heat.contains("987654"), "new worst latency shown");
    let traced = get(&app, "/heatmap?kind=irqsoff").await.text();
    assert!(traced.contains("876543"), "new worst trace shown");
    let culprits = get(&app, "/culprits").await.text();
    assert!(culprits.contains("spike_culprit_fn"), "{culprits}");
    // Unlisted runs never count.
    let hidden = upload(
        &app,
        Some(&tok),
        "board=i7-4790&kernel=6.12.0-rc5&variant=vanilla&unlisted=true",
        spike.replace("987654", "999999"),
    )
    .await;
    assert_eq!(hidden.status, 201);
    assert!(
        !get(&app, "/heatmap?variant=vanilla")
            .await
            .text()
            .contains("999999")
    );
    for u in [&up, &up2] {
        let id = u.json()["upload_id"].as_i64().unwrap();
        let del = send(
            &app,
            Request::delete(format!("/api/v1/uploads/{id}"))
                .header("authorization", format!("Bearer {tok}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(del.status, 200);
    }
    let heat = get(&app, "/heatmap?variant=vanilla").await.text();
    let traced = get(&app, "/heatmap?kind=irqsoff").await.text();
    assert!(!heat.contains("987654") && !traced.contains("876543"));
    assert!(
        heat.contains("67469") && traced.contains("77766"),
        "the demo runs are still counted"
    );
    assert!(
        !get(&app, "/culprits")
            .await
            .text()
            .contains("spike_culprit_fn")
    );
    // The per-board culprit cells, kept at ingest and rebuilt after the
    // deletions, equal what the per-kernel cells add up to.
    let per_board = "SELECT culprit, board_id, traces, worst_us, worst_run, worst_kernel
                     FROM culprit_board_cells";
    let from_kernels = "SELECT culprit, board_id, sum(traces)::bigint, max(worst_us),
                        (array_agg(worst_run ORDER BY worst_us DESC, worst_run))[1],
                        (array_agg(kernel_id ORDER BY worst_us DESC, worst_run))[1]
                        FROM culprit_cells GROUP BY culprit, board_id";
    for (a, b) in [(per_board, from_kernels), (from_kernels, per_board)] {
        let differ: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM ({a} EXCEPT {b}) d"
        )))
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(differ, 0, "{a}\nEXCEPT\n{b}");
    }
    let cells: i64 = sqlx::query_scalar("SELECT count(*) FROM culprit_board_cells")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(cells > 0);
    // Filtered by kernel, the leaderboard reads that kernel's cells.
    let kernel: String = sqlx::query_scalar(
        "SELECT k.version FROM culprit_cells c JOIN kernels k ON k.id = c.kernel_id
         WHERE c.culprit = 'isolate_lru_folios' LIMIT 1",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let one = get(&app, &format!("/culprits?kernel={kernel}"))
        .await
        .text();
    assert!(one.contains("isolate_lru_folios"), "{one}");
    assert!(
        !get(&app, "/culprits?kernel=0.0.0-none")
            .await
            .text()
            .contains("isolate_lru_folios")
    );
    let metric = get(&app, "/heatmap?metric=real").await.text();
    assert!(metric.contains("arm64 phone"));
}

/// A permalink made by an older version is served byte for byte: pages are
/// never re-rendered from their data, so upgrades cannot change them.
#[sqlx::test]
async fn permalinks_from_older_versions_are_served_verbatim(pool: PgPool) {
    let app = app(&pool);
    sqlx::query(
        "INSERT INTO snapshots (slug, title, spec, run_ids, comparison, body_html, body_txt, body_json)
         VALUES ('Old0Version1', 'old', '{}', '{}', '{}', $1, $2, $3)",
    )
    .bind("<!doctype html><p>rendered by reclaimlab 0.0.1</p>\n")
    .bind("a 0.0.1 text rendering\n")
    .bind("{\"v\": \"0.0.1\"}")
    .execute(&pool)
    .await
    .unwrap();
    let html = get(&app, "/c/Old0Version1").await;
    assert_eq!(
        html.text(),
        "<!doctype html><p>rendered by reclaimlab 0.0.1</p>\n"
    );
    assert_eq!(
        get(&app, "/c/Old0Version1.txt").await.text(),
        "a 0.0.1 text rendering\n"
    );
    assert_eq!(
        get(&app, "/c/Old0Version1.json").await.text(),
        "{\"v\": \"0.0.1\"}"
    );
    assert_eq!(
        get(&app, "/c/Old0Version1.svg").await.status,
        404,
        "it had no chart"
    );
}

/// A column holds the newest runs up to its cap and says so when older
/// ones are left out: a statistic over part of the data must not look like
/// one over all of it.
#[sqlx::test]
async fn a_full_column_keeps_the_newest_runs_and_says_so(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let cap = reclaimlab::compare::MAX_RUNS_PER_COLUMN as usize;
    // cap + 1 runs of bash `time`, one upload each, the oldest the slowest.
    for i in 0..=cap {
        let body = format!(
            "real\t{}m{}.000s\nuser\t0m1.000s\nsys\t0m2.000s\n",
            9 - i / 60,
            59 - i % 60
        );
        let r = upload(
            &app,
            Some(&tok),
            "board=b1&kernel=6.12&variant=capped",
            body,
        )
        .await;
        assert!(
            r.status == 201 || r.status == 200,
            "upload {i}: {}",
            r.text()
        );
    }
    let ids: Vec<reclaimlab::storage::ids::RunId> =
        sqlx::query_scalar("SELECT id FROM runs ORDER BY created_at, id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(ids.len(), cap + 1);
    let req = reclaimlab::compare::CompareRequest {
        title: None,
        columns: vec![reclaimlab::compare::ColumnSpec::parse("variant:capped").unwrap()],
        baseline: 0,
        chain_previous: None,
        context: Vec::new(),
    };
    let r = reclaimlab::compare::resolve(&pool, req, reclaimlab::compare::Detail::Page)
        .await
        .unwrap();
    assert_eq!(r.run_ids.len(), cap);
    assert!(
        !r.run_ids.contains(&ids[0]),
        "the oldest run is the one left out"
    );
    assert_eq!(r.run_ids.first(), Some(&ids[1]));
    assert!(
        r.comparison
            .notes
            .iter()
            .any(|n| n.contains(&format!("the newest {cap} runs; older ones are left out"))),
        "notes: {:?}",
        r.comparison.notes
    );
    let html = get(&app, "/compare?c=variant%3Acapped").await.text();
    assert!(html.contains("older ones are left out"));
}

/// The overview aggregates kept at ingest equal the ones recomputed from
/// every stored run (`reclaimlab rebuild-overview`), and the catalogue's
/// counts read from them equal a count over the runs.
#[sqlx::test]
async fn aggregates_kept_at_ingest_equal_a_rebuild(pool: PgPool) {
    demo(&pool).await;
    async fn cells(pool: &PgPool) -> Vec<String> {
        let mut out = Vec::new();
        for t in [
            "heatmap_cells",
            "culprit_cells",
            "culprit_board_cells",
            "metric_cells",
            "run_cells",
            "history_cells",
        ] {
            // A sum of floats depends on its order: history totals are
            // compared to 6 decimals.
            let row = match t {
                "history_cells" => {
                    "json_build_array(c.board_id, c.metric, c.kind, c.day, \
                                    c.kernel_id, c.runs, round(c.total::numeric, 6), \
                                    c.max_value, c.max_run, c.max_variant_id)"
                }
                _ => "row_to_json(c)",
            };
            let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT {row}::text FROM {t} c ORDER BY 1"
            )))
            .fetch_all(pool)
            .await
            .unwrap();
            assert!(!rows.is_empty(), "{t} is empty after the demo");
            out.extend(rows);
        }
        out
    }
    let kept = cells(&pool).await;
    let mut tx = pool.begin().await.unwrap();
    reclaimlab::storage::overview::rebuild_all(&mut tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(kept, cells(&pool).await);
    let counted: Vec<(String, i64)> = sqlx::query_as(
        "SELECT b.name, count(r.id) FROM boards b
         LEFT JOIN runs r ON r.board_id = b.id AND r.deleted_at IS NULL AND NOT r.unlisted
         GROUP BY b.name ORDER BY b.name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let shown: Vec<(String, i64)> = reclaimlab::storage::catalog::boards(&pool)
        .await
        .unwrap()
        .into_iter()
        .map(|b| (b.name, b.runs))
        .collect();
    assert_eq!(shown, counted);
}

/// /history reads one row per day x kernel: the day's worst latency with
/// its run, the mean and the count, and a deleted run leaves the day.
#[sqlx::test]
async fn history_is_per_day_and_follows_deletions(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let mut uploads = Vec::new();
    for max in [300, 900, 600] {
        let body = format!("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: {max}\n");
        let up = upload(
            &app,
            Some(&tok),
            "board=hist-b&kernel=6.12&variant=vanilla",
            body,
        )
        .await;
        assert_eq!(up.status, 201, "{}", up.text());
        uploads.push(up.json());
    }
    let worst_run = uploads[1]["runs"][0]["id"].as_i64().unwrap();
    let page = get(&app, "/history?board=hist-b").await.text();
    assert!(page.contains("900 (worst of 3 runs; mean 600)"), "{page}");
    assert!(
        page.contains(&format!("href=\"/runs/{worst_run}\"")),
        "{page}"
    );
    let svg = get(&app, "/history.svg?board=hist-b").await.text();
    assert!(
        svg_texts(&svg).iter().any(|t| t.contains("days since ")),
        "{svg}"
    );
    let del = send(
        &app,
        Request::delete(format!(
            "/api/v1/uploads/{}",
            uploads[1]["upload_id"].as_i64().unwrap()
        ))
        .header("authorization", format!("Bearer {tok}"))
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(del.status, 200);
    let page = get(&app, "/history?board=hist-b").await.text();
    assert!(page.contains("600 (worst of 2 runs; mean 450)"), "{page}");
    assert!(!page.contains(&format!("href=\"/runs/{worst_run}\"")));
    // A metric's history is the mean of the day's runs.
    let metric = get(&app, "/history?board=hist-b&metric=max_us").await;
    assert_eq!(metric.status, 200);
}

/// A comparison column of exactly these runs, as the compare page loads it.
async fn column_of(pool: &PgPool, ids: &[i64]) -> reclaimlab_report::model::ColumnRuns {
    let spec = reclaimlab::compare::ColumnSpec {
        runs: ids
            .iter()
            .map(|&id| reclaimlab::storage::ids::RunId(id))
            .collect(),
        ..Default::default()
    };
    reclaimlab::storage::compare::column_runs(pool, &spec)
        .await
        .unwrap()
}

/// What a comparison reads of a run comes from its one `run_compare`
/// row, packed in the ingest transaction: read back through a column, it
/// holds exactly the run's latency threads, histogram footers, metric rows
/// (in their order, each identity stored once) and trace.
#[sqlx::test]
async fn compare_rows_kept_at_ingest_equal_the_child_rows(pool: PgPool) {
    use sqlx::Row;
    demo(&pool).await;
    // And a cyclictest run with histogram footers.
    let tok = token(&pool, Scope::Upload).await;
    let up = upload(
        &app(&pool),
        Some(&tok),
        "board=i7-4790&kernel=6.12.0-rc5&variant=hist-a",
        fixture("histogram-4threads.txt"),
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.text());
    let missing: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM run_compare c WHERE c.run_id = r.id)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(missing, 0, "every run has its row");
    let ids: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM runs WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    let (mut threads, mut footers, mut metrics, mut traces) = (0, 0, 0, 0);
    for chunk in ids.chunks(100) {
        let col = column_of(&pool, chunk).await;
        assert_eq!(col.runs.len(), chunk.len());
        for run in &col.runs {
            let want: Vec<(i32, f64, f64, f64)> = sqlx::query_as(
                "SELECT thread, min_us, avg_us, max_us FROM latency_threads
                 WHERE run_id = $1 ORDER BY thread",
            )
            .bind(run.id)
            .fetch_all(&pool)
            .await
            .unwrap();
            let got: Vec<(i32, f64, f64, f64)> = run
                .latency
                .threads
                .iter()
                .map(|t| (t.thread as i32, t.min_us, t.avg_us, t.max_us))
                .collect();
            assert_eq!(got, want, "run {}: latency threads", run.id);
            threads += got.len();
            let want: Vec<(i32, f64, i64, Option<f64>)> = sqlx::query_as(
                "SELECT thread, bucket_us, overflows, max_us FROM histogram_threads
                 WHERE run_id = $1 ORDER BY thread",
            )
            .bind(run.id)
            .fetch_all(&pool)
            .await
            .unwrap();
            let got: Vec<(i32, f64, i64, Option<f64>)> = run
                .latency
                .hist_footers
                .iter()
                .map(|f| (f.thread as i32, f.bucket_us, f.overflows as i64, f.max_us))
                .collect();
            assert_eq!(got, want, "run {}: histogram footers", run.id);
            footers += got.len();
            let want: Vec<_> = sqlx::query(
                "SELECT name, stat, unit, scope, section, direction, direction_source,
                        delta_convention, value, printed_delta_pct, spread_pct
                 FROM metrics WHERE run_id = $1 ORDER BY id",
            )
            .bind(run.id)
            .fetch_all(&pool)
            .await
            .unwrap()
            .iter()
            .map(|row| {
                (
                    reclaimlab::storage::runs::metric_ident(row).unwrap(),
                    row.get::<f64, _>("value"),
                    row.get::<Option<f64>, _>("printed_delta_pct"),
                    row.get::<Option<f64>, _>("spread_pct"),
                )
            })
            .collect();
            let got: Vec<_> = run
                .metrics
                .iter()
                .map(|m| {
                    (
                        col.metric_idents[m.ident as usize].clone(),
                        m.value,
                        m.printed_delta_pct,
                        m.spread_pct,
                    )
                })
                .collect();
            assert_eq!(got, want, "run {}: metric rows", run.id);
            metrics += got.len();
            let want: Option<(String, f64, Option<String>, Vec<String>)> = sqlx::query_as(
                "SELECT tracer, latency_us, culprit, culprit_path FROM traces WHERE run_id = $1",
            )
            .bind(run.id)
            .fetch_optional(&pool)
            .await
            .unwrap();
            let got = run.latency.trace.as_ref().map(|t| {
                (
                    t.tracer.clone(),
                    t.latency_us,
                    t.culprit.clone(),
                    t.culprit_path.clone(),
                )
            });
            assert_eq!(got, want, "run {}: trace", run.id);
            traces += usize::from(got.is_some());
        }
    }
    assert!(
        threads > 10 && footers > 0 && metrics > 50 && traces > 0,
        "the demo has each kind: {threads} threads, {footers} footers, {metrics} metrics, {traces} traces"
    );
    let idents: i64 = sqlx::query_scalar("SELECT count(*) FROM metric_idents")
        .fetch_one(&pool)
        .await
        .unwrap();
    let distinct: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT DISTINCT name, stat, unit, scope, section, direction,
                                               direction_source, delta_convention FROM metrics) d",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(idents, distinct, "each identity is stored once");
}

#[sqlx::test]
async fn histograms_kept_at_ingest_sum_like_the_bucket_rows(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    // Two cyclictest runs with histograms (the second file ends in one more
    // newline, so it is an upload of its own).
    let mut text = fixture("histogram-4threads.txt");
    for variant in ["hist-a", "hist-b"] {
        let up = upload(
            &app,
            Some(&tok),
            &format!("board=i7-4790&kernel=6.12.0-rc5&variant={variant}"),
            text.clone(),
        )
        .await;
        assert_eq!(up.status, 201, "{}", up.text());
        text.push(b'\n');
    }
    let with_rows: Vec<i64> =
        sqlx::query_scalar("SELECT DISTINCT run_id FROM histogram_buckets ORDER BY run_id")
            .fetch_all(&pool)
            .await
            .unwrap();
    let kept: Vec<i64> = sqlx::query_scalar(
        "SELECT run_id FROM run_compare WHERE buckets <> ''::bytea ORDER BY run_id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(!with_rows.is_empty(), "the demo has histograms");
    assert_eq!(kept, with_rows, "every run with buckets has its packed row");
    // A column of the cyclictest runs sums their packed buckets as SQL sums
    // the rows.
    let cyclictest: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT r.id FROM runs r JOIN histogram_buckets b ON b.run_id = r.id
         WHERE r.block_kind = 'cyclictest' ORDER BY r.id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(cyclictest.len() >= 2, "{cyclictest:?}");
    let summed: Vec<(i32, f64, i64)> = sqlx::query_as(
        "SELECT thread, lower_us, sum(count)::bigint FROM histogram_buckets
         WHERE run_id = ANY($1) GROUP BY thread, lower_us ORDER BY thread, lower_us",
    )
    .bind(&cyclictest)
    .fetch_all(&pool)
    .await
    .unwrap();
    let col = column_of(&pool, &cyclictest).await;
    let got: Vec<(i32, f64, i64)> = col
        .cyclictest_buckets
        .iter()
        .map(|b| (b.thread as i32, b.lower_us, b.count as i64))
        .collect();
    assert_eq!(got, summed);
}

/// A variant's page lists its runs a page at a time, never a silent cut.
#[sqlx::test]
async fn a_variant_page_pages_through_its_runs(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let mut text = fixture("cyclictest-s4-before.txt");
    for _ in 0..51 {
        // Each file a newline longer: an upload of its own.
        text.push(b'\n');
        let up = upload(
            &app,
            Some(&tok),
            "board=i7-4790&kernel=6.12.0-rc5&variant=paged-v1",
            text.clone(),
        )
        .await;
        assert_eq!(up.status, 201, "{}", up.text());
    }
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT r.id FROM runs r JOIN variants v ON v.id = r.variant_id
         WHERE v.name = 'paged-v1' ORDER BY r.id DESC",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(ids.len(), 51);
    let first = get(&app, "/variants/paged-v1").await.text();
    let listed = |page: &str, id: i64| page.contains(&format!("href=\"/runs/{id}\""));
    assert!(listed(&first, ids[0]) && listed(&first, ids[49]));
    assert!(!listed(&first, ids[50]), "the 51st is on the next page");
    let older = format!(
        "href=\"/variants/paged-v1?variant=paged-v1&#38;before={}\"",
        ids[49]
    );
    assert!(first.contains(&older), "{first}");
    let second = get(
        &app,
        &format!("/variants/paged-v1?variant=paged-v1&before={}", ids[49]),
    )
    .await;
    assert_eq!(second.status, 200, "{}", second.text());
    let second = second.text();
    assert!(listed(&second, ids[50]) && !listed(&second, ids[49]));
    assert!(second.contains("« Newest"));
}

/// The heatmap shows the kernels measured last, and says how many older
/// ones it leaves out.
#[sqlx::test]
async fn the_heatmap_shows_the_kernels_measured_last(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let n = reclaimlab::web::pages::heatmap::KERNEL_COLUMNS + 2;
    for i in 0..n {
        let text = format!(
            "T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: {}\n",
            100 + i
        );
        let up = upload(
            &app,
            Some(&tok),
            &format!("board=i7-4790&kernel=6.13.0-n{i:03}&variant=nightly"),
            text,
        )
        .await;
        assert_eq!(up.status, 201, "{}", up.text());
    }
    let page = get(&app, "/heatmap?kind=cyclictest").await.text();
    // The two measured first are left out; the last one is shown.
    assert!(!page.contains(">6.13.0-n000<") && !page.contains(">6.13.0-n001<"));
    assert!(page.contains(">6.13.0-n002<") && page.contains(&format!(">6.13.0-n{:03}<", n - 1)));
    assert!(page.contains("2 older kernels are not shown"), "{page}");
    let svg = get(&app, "/heatmap.svg?kind=cyclictest").await.text();
    assert!(
        svg.contains(&format!("the {} measured last of {n} kernels", n - 2))
            && !svg.contains("6.13.0-n000")
    );
    // A kernel measured again is among the newest again.
    let up = upload(
        &app,
        Some(&tok),
        "board=i7-4790&kernel=6.13.0-n000&variant=nightly",
        "T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 999\n",
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.text());
    let page = get(&app, "/heatmap?kind=cyclictest").await.text();
    assert!(page.contains(">6.13.0-n000<") && !page.contains(">6.13.0-n002<"));
}
