//! Comparisons say only true things: each numbered defect of the
//! comparisons issue, checked on the seeds' own blocks (the demo data)
//! through the API, the permalink's text and JSON, and the pages.

mod common;

use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

async fn demo(pool: &PgPool) {
    reclaimlab::cli::demo::load(pool).await.expect("demo loads");
}

/// A permalink of the columns, as (json, text, html).
async fn permalink(
    app: &axum::Router,
    tok: &str,
    body: serde_json::Value,
) -> (serde_json::Value, String, String) {
    let created = post_comparison(app, tok, body).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    let json = get(app, &format!("/c/{slug}.json")).await.json();
    let txt = get(app, &format!("/c/{slug}.txt")).await.text();
    let html = get(app, &format!("/c/{slug}")).await.text();
    assert!(txt.lines().all(|l| l.len() <= 72), "{txt}");
    (json, txt, html)
}

fn metric<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["comparison"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in {json}"))
}

fn change(m: &serde_json::Value, col: usize) -> (f64, String) {
    let d = &m["cells"][col]["vs_baseline"];
    (
        d["pct"].as_f64().unwrap_or(f64::NAN),
        d["judgement"].as_str().unwrap_or("").to_string(),
    )
}

/// 1 and 2: seed 001's pristine -> patched, with throughput higher-is-better
/// and the `size` column a row label, never a variant.
#[sqlx::test]
async fn seed_001_signs_directions_and_no_label_variant(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let (json, txt, html) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": [{"variant": "pristine"}, {"variant": "patched"}]}),
    )
    .await;
    let expect = [
        ("size=80GB", -2.05, "better", "lower"),
        ("size=160GB", 0.18, "worse", "lower"),
        ("size=320GB", 0.42, "worse", "lower"),
        ("mmap-pread-seq", 1.55, "better", "higher"),
        ("mmap-pread-seq-mt", -0.08, "worse", "higher"),
        ("mmap-xread-seq-mt", 6.27, "better", "higher"),
        (
            "Throughput of page faults (#/s) with the below stress-ng test",
            8.22,
            "better",
            "higher",
        ),
    ];
    for (name, pct, judgement, better) in expect {
        let m = metric(&json, name);
        let (p, j) = change(m, 1);
        assert!((p - pct).abs() < 0.005, "{name}: {p} vs {pct}");
        assert_eq!(j, judgement, "{name}");
        assert_eq!(m["better"], better, "{name}");
        let unit = if better == "lower" { "us" } else { "#/s" };
        assert_eq!(m["unit"], unit, "{name}");
    }
    // The mail's own delta column is kept as printed, never a column.
    let m = metric(&json, "size=80GB");
    assert_eq!(m["cells"][1]["vs_baseline"]["printed_pct"], -2.0);
    assert_eq!(json["comparison"]["columns"].as_array().unwrap().len(), 2);
    for text in [&txt, &html] {
        assert!(text.contains("-2.05%") && text.contains("+8.22%"), "{text}");
        assert!(!text.contains("-6260371"), "{text}");
    }
    // The stress-ng row is named by its table, not by its first value.
    assert!(!json.to_string().contains("\"name\":\"100165\""), "{json}");
    let variants = get(&app, "/variants").await.text();
    assert!(!variants.contains("/variants/size\""), "{variants}");
    let v = get(&app, "/api/v1/runs?variant=size").await.json();
    assert_eq!(v["runs"].as_array().map_or(0, Vec::len), 0, "{v}");
}

/// 3: metrics of different tables never pool; seed 004's xfs_io on
/// spinning storage (patch 1) and on a ramdisk (patch 3) are two rows.
#[sqlx::test]
async fn seed_004_tables_never_pool(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let columns: Vec<serde_json::Value> =
        ["vanilla", "batch-v1r18", "ramdisknonrot-v1", "waitqueue-v1"]
            .iter()
            .map(|v| serde_json::json!({"variant": v, "board": "x86 UMA, 4 fake NUMA nodes"}))
            .collect();
    let (json, txt, _) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": columns, "chain_previous": true}),
    )
    .await;
    let metrics = json["comparison"]["metrics"].as_array().unwrap();
    let elapsd: Vec<&serde_json::Value> = metrics
        .iter()
        .filter(|m| m["name"] == "pwrite-single-rewrite-async-Elapsd" && m["stat"] == "Amean")
        .collect();
    // One row per table, each with the two columns its table printed.
    assert!(elapsd.len() >= 2, "{json}");
    let scopes: std::collections::BTreeSet<&str> = elapsd
        .iter()
        .map(|m| m["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes.len(), elapsd.len(), "one scope per table");
    for m in &elapsd {
        let with_data = m["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["n"].as_u64() > Some(0))
            .count();
        assert_eq!(with_data, 2, "{m}");
    }
    // The +93 % "win" of 322.87 s (spinning) vs 3.33 s (ramdisk) is gone.
    assert!(!txt.contains("-98.9") && !txt.contains("+93"), "{txt}");
    // Duration totals of different tests are never averaged together.
    for m in metrics.iter().filter(|m| m["name"] == "User") {
        for c in m["cells"].as_array().unwrap() {
            assert!(c["n"].as_u64().unwrap() <= 1, "{m}");
        }
    }
    assert!(
        !txt.contains("Min      User") && !txt.contains("CoeffVar User"),
        "{txt}"
    );
}

/// 4: the worst latency of each tool and tracer is its own row; a chain's
/// headline never compares an irqsoff trace with cyclictest.
#[sqlx::test]
async fn seed_003_worst_latency_per_tool(pool: PgPool) {
    demo(&pool).await;
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let (json, txt, html) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": [
            {"variant": "vanilla", "board": "i7-4790"},
            {"variant": "isolate-writeback-cap-v1", "board": "i7-4790"}]}),
    )
    .await;
    let worst = json["comparison"]["latency"]["worst"].as_array().unwrap();
    let row = |kind: &str| worst.iter().find(|w| w["kind"] == kind).unwrap();
    let cyc = row("cyclictest");
    assert_eq!(cyc["cells"][0]["value_us"], 67469.0);
    assert_eq!(cyc["cells"][1]["value_us"], 4449.0);
    let irq = row("irqsoff");
    assert_eq!(irq["cells"][0]["value_us"], 77766.0);
    assert!(irq["cells"][1].is_null());
    assert_eq!(irq["culprits"][0], "isolate_lru_folios");
    let diffs = json["comparison"]["latency"]["culprit_diffs"]
        .as_array()
        .unwrap();
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!(diffs[0]["kind"], "cyclictest");
    assert!(
        diffs[0]["sentence"]
            .as_str()
            .unwrap()
            .starts_with("cyclictest max: max 67469 us -> 4449 us (-93%, better)"),
        "{diffs:?}"
    );
    for text in [&txt, &html] {
        assert!(!text.contains("77766 us -> 4449"), "{text}");
        assert!(!text.contains("4449 us (+406%)"), "{text}");
    }
}

/// 5: a histogram-only cyclictest run keeps its worst latency from the
/// histogram footer (`# Max Latencies`), in HTML, text and JSON.
#[sqlx::test]
async fn histogram_only_runs_keep_their_worst_latency(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let hist = String::from_utf8(fixture("histogram-4threads.txt")).unwrap();
    assert!(hist.contains("# Max Latencies: 00009 00061 00009 01207"));
    let up = upload(
        &app,
        Some(&tok),
        "board=b&kernel=k&variant=hist-a",
        hist.clone(),
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.text());
    let quieter = hist.replace("01207", "00011").replace(
        "# Histogram Overflows: 00000 00002 00000 00001",
        "# Histogram Overflows: 00000 00002 00000 00000",
    );
    let up = upload(&app, Some(&tok), "board=b&kernel=k&variant=hist-b", quieter).await;
    assert_eq!(up.status, 201, "{}", up.text());
    let (json, txt, html) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": [{"variant": "hist-a"}, {"variant": "hist-b"}]}),
    )
    .await;
    let lat = &json["comparison"]["latency"];
    assert_eq!(lat["worst"][0]["kind"], "cyclictest");
    assert_eq!(lat["worst"][0]["cells"][0]["value_us"], 1207.0);
    assert_eq!(lat["worst"][0]["cells"][1]["value_us"], 61.0);
    assert_eq!(lat["tails"][0]["max"]["value_us"], 1207.0);
    assert_eq!(lat["tails"][0]["overflows"], 3);
    assert!(txt.contains("1207"), "{txt}");
    assert!(html.contains("1207"), "{html}");
    assert!(!txt.contains("max 11 us -> 11 us"), "{txt}");
}

/// 7: one number formatter; no 0.00% for a change; zero spread in words;
/// two constant columns that differ say the change is exact.
#[sqlx::test]
async fn one_formatter_and_honest_small_numbers(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    for (variant, v) in [("flat-a", "100000.0"), ("flat-b", "100001.0")] {
        for run in 0..3 {
            let body = format!(
                " Performance counter stats for 'true':\n\n        {v}      page-faults\n\n       1.00{run} seconds time elapsed\n"
            );
            let r = upload(
                &app,
                Some(&tok),
                &format!("board=b&kernel=k&variant={variant}&direction=page-faults:lower"),
                body,
            )
            .await;
            assert_eq!(r.status, 201, "{}", r.text());
        }
    }
    let (json, txt, html) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": [{"variant": "flat-a"}, {"variant": "flat-b"}]}),
    )
    .await;
    let m = metric(&json, "page-faults");
    assert_eq!(m["better"], "lower");
    assert_eq!(m["direction_source"], "upload");
    assert_eq!(m["cells"][0]["stddev"], 0.0);
    let d = &m["cells"][1]["vs_baseline"];
    assert_eq!(d["significance"], "no_variance");
    assert!(
        d["verdict"]
            .as_str()
            .unwrap()
            .starts_with("+0.0010% worse; n=3/3, every run identical"),
        "{d}"
    );
    for text in [&txt, &html] {
        assert!(text.contains("+0.0010%"), "{text}");
        assert!(!text.contains("+0.00%"), "{text}");
        assert!(!text.contains("e-13"), "{text}");
    }
    assert!(html.contains("no spread"), "{html}");
}

/// A list mail's `perf stat --repeat` elapsed lines, each after its tree's
/// name, under a heading per benchmark (or per repetition).
fn elapsed_under_headings(headings: [&str; 2], secs: [[&str; 2]; 2]) -> String {
    let group = |h: &str, [a, b]: [&str; 2]| {
        format!(
            "{h}\n\ttree-a:   {a} +- 0.54 seconds time elapsed  ( +-  0.45% )\n\ttree-b:   {b} +- 0.39 seconds time elapsed  ( +-  0.38% )\n"
        )
    };
    format!(
        "From: A Tester <tester@example.org>\nTo: linux-mm@kvack.org\nSubject: [PATCH 0/2] mm/numa: a test series\nDate: Tue, 1 Dec 2026 10:00:00 +0000\nMessage-ID: <numa-headings@example.org>\n\nHello,\n\nelapsed time of ten repeats each:\n\n{}\n{}\nRegards\n",
        group(headings[0], secs[0]),
        group(headings[1], secs[1])
    )
}

/// The `time elapsed` rows of a comparison of `tree-a` with `tree-b`, as
/// (scope, samples per column, mean per column), by scope.
async fn elapsed_rows(pool: &PgPool, text: String) -> Vec<(String, Vec<u64>, Vec<f64>)> {
    let app = app(pool);
    let tok = token(pool, Scope::Upload).await;
    let up = upload(&app, Some(&tok), "board=b&kernel=k", text).await;
    assert_eq!(up.status, 201, "{}", up.text());
    let (json, txt, _) = permalink(
        &app,
        &tok,
        serde_json::json!({"columns": [{"variant": "tree-a"}, {"variant": "tree-b"}]}),
    )
    .await;
    let mut rows: Vec<(String, Vec<u64>, Vec<f64>)> = json["comparison"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == "time elapsed")
        .map(|m| {
            let cells = m["cells"].as_array().unwrap();
            (
                m["scope"].as_str().unwrap().to_string(),
                cells.iter().map(|c| c["n"].as_u64().unwrap()).collect(),
                cells.iter().map(|c| c["mean"].as_f64().unwrap()).collect(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!rows.is_empty(), "{json}\n{txt}");
    rows
}

/// Blocks under different headings never pool: `numa01:` and `numa02:`
/// are two benchmarks, each one sample per side, not 146.88 s and
/// 16.03 s averaged as two samples of one metric.
#[sqlx::test]
async fn blocks_under_different_headings_are_different_metrics(pool: PgPool) {
    let text = elapsed_under_headings(
        ["numa01:", "numa02:"],
        [["146.88", "147.45"], ["16.0300", "16.1281"]],
    );
    let rows = elapsed_rows(&pool, text).await;
    assert_eq!(
        rows,
        [
            (
                "perf-stat: numa01".to_string(),
                vec![1, 1],
                vec![146.88, 147.45]
            ),
            (
                "perf-stat: numa02".to_string(),
                vec![1, 1],
                vec![16.03, 16.1281]
            ),
        ]
    );
}

/// Headings that differ only in a repetition number introduce samples of
/// one measurement: `run 1:` / `run 2:` give one metric, two samples per
/// side, in the tool's own scope.
#[sqlx::test]
async fn repetitions_under_numbered_headings_pool(pool: PgPool) {
    let text = elapsed_under_headings(
        ["run 1:", "run 2:"],
        [["16.0300", "16.1281"], ["16.0500", "16.1481"]],
    );
    let rows = elapsed_rows(&pool, text).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (scope, n, mean) = &rows[0];
    assert_eq!(scope, "perf-stat");
    assert_eq!(n, &[2, 2]);
    assert!((mean[0] - 16.04).abs() < 1e-9, "{mean:?}");
    assert!((mean[1] - 16.1381).abs() < 1e-9, "{mean:?}");
}
