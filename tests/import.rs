//! The mail import page: paste, check the blocks, store runs + permalink.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn post(path: &str, body: String) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap()
}

#[sqlx::test]
async fn paste_check_and_store_a_mail(pool: PgPool) {
    let app = app(&pool);
    let mail = String::from_utf8(fixture("mail-s4.txt")).unwrap();
    assert_eq!(get(&app, "/import").await.status, 200);
    let preview = send(&app, post("/import/preview", form(&[("mail", &mail)]))).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let html = preview.text();
    assert!(
        html.contains("cyclictest, 8 threads, worst Max 67469 us"),
        "{html}"
    );
    assert!(html.contains("cyclictest, 8 threads, worst Max 4449 us"));
    assert!(html.contains("irqsoff latency 77766 us, culprit isolate_lru_folios"));
    assert!(
        html.contains("value=\"before\"") && html.contains("value=\"after\""),
        "labels guessed"
    );
    assert!(html.contains("20241031-isolate-cap-test@example.org"));
    // Board and kernel come from the prose line above the blocks, and the
    // preview says which line that was.
    assert!(
        html.contains("value=\"6.12.0-rc5\"") && html.contains("guessed from line 7"),
        "{html}"
    );
    assert_eq!(counts(&pool).await, (0, 0, 0, 0), "preview stores nothing");

    // Commit with corrections: name the variants, give the board.
    let tok = token(&pool, Scope::Upload).await;
    let fields = [
        ("mail", mail.as_str()),
        ("token", tok.as_str()),
        ("board", "i7-4790"),
        ("kernel", "6.12.0-rc5"),
        ("message_id", "20241031-isolate-cap-test@example.org"),
        ("b0_kind", "cyclictest"),
        ("b0_variant", "vanilla"),
        ("b1_kind", "cyclictest"),
        ("b1_variant", "isolate-cap-v1"),
        ("b2_kind", "ftrace_latency"),
        ("b2_variant", "vanilla"),
    ];
    let no_token = send(&app, post("/import/commit", form(&fields[..1]))).await;
    assert_eq!(no_token.status, 401);
    let r = send(&app, post("/import/commit", form(&fields))).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let loc = r.headers["location"].to_str().unwrap().to_string();
    let page = get(&app, &loc).await.text();
    assert!(page.contains("isolate-cap-v1") && page.contains("vanilla"));
    assert!(
        page.contains("20241031-isolate-cap-test@example.org"),
        "thread linked"
    );
    let txt = get(&app, &format!("{loc}.txt")).await.text();
    assert!(txt.lines().all(|l| l.chars().count() <= 72));
    assert!(txt.contains("67469") && txt.contains("4449"), "{txt}");
    let variants: Vec<(String, i64)> = sqlx::query_as(
        "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id GROUP BY v.name ORDER BY v.name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        variants,
        vec![("isolate-cap-v1".into(), 1), ("vanilla".into(), 2)]
    );
    let series: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM series WHERE message_id = '20241031-isolate-cap-test@example.org'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(series, 1);
}

#[sqlx::test]
async fn prose_only_paste_says_so(pool: PgPool) {
    let app = app(&pool);
    let r = send(
        &app,
        post(
            "/import/preview",
            form(&[("mail", "Hello,\n\nno numbers here.\n")]),
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("no known result format"), "{}", r.text());
}

/// Variants are named per thread by default, so two threads' "before" and
/// "after" never merge, and a block quoted from an earlier message is
/// skipped unless the user keeps it.
#[sqlx::test]
async fn variants_are_named_per_thread(pool: PgPool) {
    let app = app(&pool);
    let mail = String::from_utf8(fixture("mail-s4.txt")).unwrap();
    let preview = send(&app, post("/import/preview", form(&[("mail", &mail)]))).await;
    let html = preview.text();
    let prefix = html
        .split("name=\"variant_prefix\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a variant prefix field")
        .to_string();
    assert!(prefix.ends_with('/') && prefix.len() > 3, "{prefix}");
    assert!(!prefix.contains("patch"), "{prefix}");
    let tok = token(&pool, Scope::Upload).await;
    for (i, kernel) in [(0, "6.12.0-rc5"), (1, "6.12.0-rc6")] {
        // The same mail as two threads: a second prefix keeps them apart.
        let p = if i == 0 {
            prefix.clone()
        } else {
            "another-thread/".to_string()
        };
        let fields = [
            ("mail", mail.as_str()),
            ("token", tok.as_str()),
            ("board", "i7-4790"),
            ("kernel", kernel),
            ("variant_prefix", p.as_str()),
            ("b0_kind", "cyclictest"),
            ("b1_kind", "cyclictest"),
            ("b2_kind", "ftrace_latency"),
        ];
        let r = send(&app, post("/import/commit", form(&fields))).await;
        assert_eq!(r.status, 303, "{}", r.text());
    }
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT v.name FROM runs r JOIN variants v ON v.id = r.variant_id ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with(&prefix) || n.starts_with("another-thread/")),
        "{names:?}"
    );
    assert!(names.contains(&format!("{prefix}before")), "{names:?}");
    assert!(
        names.contains(&"another-thread/before".to_string()),
        "{names:?}"
    );
}

/// The form fields of a preview page as the browser would send them with
/// every default kept: text inputs with their values, checked boxes only.
/// The mail itself is added by the caller.
fn default_fields(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for tag in html.split("<input").skip(1) {
        let tag = tag.split('>').next().unwrap_or_default();
        let attr = |name: &str| {
            tag.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|s| s.split('"').next())
                .map(str::to_string)
        };
        let Some(name) = attr("name") else { continue };
        if name == "mail" || name == "token" {
            continue;
        }
        let kind = attr("type").unwrap_or_else(|| "text".into());
        if kind == "checkbox" {
            if tag.contains(" checked") {
                out.push((name, "on".into()));
            }
            continue;
        }
        out.push((name, attr("value").unwrap_or_default()));
    }
    out
}

async fn import_with_defaults(app: &axum::Router, mail: &str, tok: &str) -> (String, String) {
    let preview = send(app, post("/import/preview", form(&[("mail", mail)]))).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let mut fields = default_fields(&preview.text());
    fields.push(("mail".into(), mail.into()));
    fields.push(("token".into(), tok.into()));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = send(app, post("/import/commit", form(&pairs))).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let loc = r.headers["location"].to_str().unwrap().to_string();
    let txt = get(app, &format!("{loc}.txt")).await.text();
    (loc, txt)
}

#[sqlx::test]
async fn defaults_keep_an_unlabelled_trace_beside_the_comparison(pool: PgPool) {
    let app = app(&pool);
    // Seed 003's result blocks, the trace attached without a word on which
    // side it was taken.
    let mail = String::from_utf8(fixture("mail-s3-attachment.txt")).unwrap();
    let tok = token(&pool, Scope::Upload).await;
    let (loc, txt) = import_with_defaults(&app, &mail, &tok).await;
    // The thread's conclusion, in a reply of at most 40 lines.
    assert!(txt.lines().count() <= 40, "{txt}");
    assert!(txt.lines().all(|l| l.chars().count() <= 72), "{txt}");
    let words = txt.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("- after vs before: cyclictest max: max 67469 us -> 4449 us (-93%, better)"),
        "{txt}"
    );
    // The trace the mail shows for the unpatched kernel is evidence, not a
    // third column compared with the baseline.
    assert!(
        txt.contains("Also posted, not compared")
            && txt.contains("- irqsoff trace: 77766 us in isolate_lru_folios"),
        "{txt}"
    );
    let columns: Vec<&str> = txt
        .lines()
        .skip_while(|l| *l != "Columns:")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        columns.iter().filter(|l| l.starts_with(' ')).count(),
        2,
        "two columns: {columns:?}"
    );
    assert!(!txt.contains("/unknown"), "{txt}");
    // Table headers name the columns without the thread's prefix, never
    // cut in the middle of a word.
    assert!(!txt.contains('~'), "{txt}");
    let page = get(&app, &loc).await.text();
    assert!(page.contains("id=\"context\""), "{page}");
    // The same thread imported again: the same runs and the same permalink.
    let runs_before = counts(&pool).await;
    let (again, _) = import_with_defaults(&app, &mail, &tok).await;
    assert_eq!(again, loc);
    assert_eq!(counts(&pool).await, runs_before);
}

#[sqlx::test]
async fn a_reply_that_only_quotes_results_keeps_them(pool: PgPool) {
    let app = app(&pool);
    // A reply whose only results are quoted from the message it answers
    // (the `time` pair of seed 002, quoted twice).
    let mail = "\
From: A Reviewer <reviewer@example.org>
Subject: Re: [PATCH RFC] mm: madvise: pageout: ignore references
Message-ID: <quoted-only@example.org>

On Sat, someone wrote:
> > A microbench as below has shown 6% decrement on the latency:
> >
> > w/o patch                    w/ patch
> > root@10:~# time ./a.out      root@10:~# time ./a.out
> > real 0m49.634s               real 0m46.334s
> > user 0m0.637s                user 0m0.648s
> > sys 0m47.434s                sys 0m44.265s
> >
> Does the gain hold with more runs?

I will rerun it.
";
    let preview = send(&app, post("/import/preview", form(&[("mail", mail)]))).await;
    let html = preview.text();
    assert!(
        html.contains("kept, as the paste has no results of its own"),
        "{html}"
    );
    let tok = token(&pool, Scope::Upload).await;
    let (_, txt) = import_with_defaults(&app, mail, &tok).await;
    assert!(txt.contains("49.63") && txt.contains("46.33"), "{txt}");
}

/// A real LKP table (Huang Ying's THP swap series, in the formats corpus):
/// each side is the table's one printed value, so the reply prints the
/// table's own `%change` (computed from unrounded means) and its `± N%`.
#[sqlx::test]
async fn a_table_s_own_change_and_spread_are_what_the_text_prints(pool: PgPool) {
    let app = app(&pool);
    let mail = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/formats/tests/real/lkp/kvack-20161116031057-ying.huang-thp-swap-lkp-table.txt"
    ))
    .unwrap();
    let tok = token(&pool, Scope::Upload).await;
    let (loc, _) = import_with_defaults(&app, &mail, &tok).await;
    let full = get(&app, &format!("{loc}.full.txt")).await.text();
    let ipc: Vec<&str> = full
        .lines()
        .filter(|l| l.contains("perf-stat.ipc"))
        .collect();
    // 0.70 -> 0.77 printed as +8.7%: not the +10% of the rounded values.
    assert!(ipc.iter().any(|l| l.contains("0.77   +8.70%")), "{full}");
    assert!(!ipc.iter().any(|l| l.contains("+10.00%")), "{full}");
    // `0.70 ± 3%` and `0.77 ± 5%`.
    let cov: Vec<&str> = ipc
        .iter()
        .filter(|l| l.starts_with("CoeffVar"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    assert_eq!(cov, ["3", "5"], "{full}");
}

/// Result blocks of one mail (cyclictest runs of Mike Galbraith's
/// isolate_lru_folios() report), each headed by the kernel it ran on: a
/// column per kernel, never one pooled column.
#[sqlx::test]
async fn results_headed_by_their_kernels_are_a_column_each(pool: PgPool) {
    let app = app(&pool);
    let run = |tid: u32, maxes: [u32; 2]| {
        format!(
            "T: 0 ( {tid}) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   {}\n\
             T: 1 ( {}) P:99 I:1500 C: 515381 Min:      1 Act:    7 Avg:    3 Max:   {}\n",
            maxes[0],
            tid + 1,
            maxes[1]
        )
    };
    let mail = format!(
        "From: Tester <tester@example.org>\n\
         Subject: isolate_lru_folios() holds IRQs off longer since v6.10\n\n\
         Three kernels on the same i7-4790 box, same load:\n\n\
         6.12.0-rc5\n{}\n6.10.14-stable\n{}\n6.9.12-stable\n{}\n\
         Only the last one is fine.\n",
        run(4541, [53381, 60119]),
        run(5100, [64231, 52044]),
        run(5300, [6327, 4213]),
    );
    let tok = token(&pool, Scope::Upload).await;
    let (_, txt) = import_with_defaults(&app, &mail, &tok).await;
    let words = txt.split_whitespace().collect::<Vec<_>>().join(" ");
    for k in ["6.12.0-rc5", "6.10.14-stable", "6.9.12-stable"] {
        assert!(words.contains(&format!("{k} (")), "no column {k}:\n{txt}");
    }
    // The regression the mail shows: 60119 us against 6327 us, worse.
    assert!(
        words.contains("max 60119 us -> 6327 us (-89%, better)"),
        "{txt}"
    );
    assert!(!txt.contains("n=3"), "runs of three kernels pooled:\n{txt}");
}

/// Real threads (tests/fixtures/threads, sources in its SOURCES.md)
/// imported with the form's defaults: a table's two columns are the two
/// sides, blocks under different headings are never pooled, a repeated
/// row is kept, and a table's printed change is the change where its
/// values are too rounded to give it.
#[sqlx::test]
async fn real_threads_keep_their_sides_apart(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let thread = |name: &str| String::from_utf8(fixture(&format!("threads/{name}.eml"))).unwrap();
    let full = |loc: &str| {
        let app = app.clone();
        let loc = loc.to_string();
        async move {
            let t = get(&app, &format!("{loc}.full.txt")).await.text();
            t.split_whitespace().collect::<Vec<_>>().join(" ")
        }
    };

    // mmtests vmstat tables of vanilla and the series: compared, not two
    // metrics of one run; the header-less table below a paragraph takes
    // the header above it, not the paragraph's last words.
    let (loc, _) =
        import_with_defaults(&app, &thread("02-reclaimcongest-v4-cover-mel"), &tok).await;
    let words = full(&loc).await;
    assert!(
        words.contains("Ops Dir~t pages scanned 76886196.00 -92.72%"),
        "{words}"
    );
    assert!(
        words.contains("Amean mmap-32 #2 7542.28 512.18 -93.21% better"),
        "{words}"
    );
    assert!(
        !words.contains("/more on") && !words.contains("memory on"),
        "{words}"
    );
    assert!(!words.contains("data in only one column"), "{words}");

    // LKP: 5.11 -> 4.52 printed as -11.5%, 1.85 -> 1.73 as -7.0%.
    let (loc, _) = import_with_defaults(&app, &thread("03-lkp-db86f55bf8-lmbench-wis"), &tok).await;
    let words = full(&loc).await;
    assert!(words.contains("4.52 -11.50% better"), "{words}");
    assert!(
        words.contains("subject lmbench3.PIPE.latency.us -11.50% better"),
        "{words}"
    );
    // Both tables compare the same two commits: two columns, the release
    // tag on its kernel and the commit under test on none guessed.
    assert!(words.contains("v6.18-rc3 (baseline, 6.18-rc3,"), "{words}");
    assert!(!words.contains(" 3. "), "{words}");
    // will-it-scale runs for a set time: its CPU time is not judged.
    assert!(
        words.contains("will-it~.time.user_time 1469.00 +4.20%"),
        "{words}"
    );
    assert!(!words.contains("+4.20% worse"), "{words}");
    assert!(
        words.contains("perf-stat.overall.cpi 1.73 -7.00%"),
        "{words}"
    );
    // The will-it-scale table has no data in the comparison's baseline: its
    // change is stored against its own first column, as the text shows it.
    let json: serde_json::Value =
        serde_json::from_str(&get(&app, &format!("{loc}.json")).await.text()).unwrap();
    let ops = json["comparison"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "will-it-scale.per_process_ops")
        .expect("per_process_ops row");
    let last = ops["cells"].as_array().unwrap().last().unwrap();
    let pct = last["vs_baseline"]["pct"]
        .as_f64()
        .expect("a stored change");
    assert!((pct - 13.51).abs() < 0.01, "{last}");
    assert_eq!(last["vs_baseline"]["judgement"], "better");

    // perf stat under `Config=n` and `Config=y`: two columns, not one
    // column whose spread is the difference between them.
    let (loc, txt) =
        import_with_defaults(&app, &thread("07-perfstat-page_cgroup-kamezawa"), &tok).await;
    let words = full(&loc).await;
    assert!(words.contains("config-n -> config-y"), "{txt}");
    assert!(
        words.contains("time elapsed 71.35 71.61 +0.37% worse"),
        "{words}"
    );
    assert!(!words.contains("Noise floor"), "{words}");

    // cyclictest on the regressed kernel and with the commit reverted.
    let (_, txt) =
        import_with_defaults(&app, &thread("08-cyclictest-6.12.87-revert-beckmann"), &tok).await;
    let words = txt.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("max 51965 us -> 81 us (-99.8%, better)"),
        "{txt}"
    );
    assert!(!txt.contains("2 runs"), "{txt}");
}
