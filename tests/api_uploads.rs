//! The upload API end to end through the router: statuses, idempotency,
//! limits and atomicity.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

const META: &str = "board=licheepi-4a&kernel=6.5.0-rt6&variant=baseline";

#[sqlx::test]
async fn cyclictest_upload_creates_a_run_with_all_threads(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let r = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let j = r.json();
    assert_eq!(j["created"], true);
    let runs = j["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let id = runs[0]["id"].as_i64().unwrap();
    assert_eq!(runs[0]["url"], format!("http://reclaimlab.test/runs/{id}"));
    assert_eq!(
        runs[0]["board"], "LicheePi 4A",
        "stored under its canonical name"
    );
    assert_eq!(runs[0]["kernel"], "6.5.0-rt6");
    assert_eq!(runs[0]["variant"], "baseline");

    let run = get(&app, &format!("/api/v1/runs/{id}")).await.json();
    let threads = run["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 8);
    assert_eq!(threads[0]["thread"], 0);
    assert_eq!(threads[0]["max_us"], 53381.0);
    assert_eq!(threads[0]["cycles"], 773124);
    assert_eq!(threads[0]["interval_us"], 1000);
    assert_eq!(threads[7]["max_us"], 52606.0);
    assert_eq!(threads[7]["tid"], 4548);
    assert_eq!(run["worst_us"], 67469.0);

    let page = get(&app, &format!("/runs/{id}")).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    for n in [
        "53381",
        "60119",
        "67469",
        "65534",
        "57776",
        "64737",
        "52567",
        "52606",
        "LicheePi 4A",
        "6.5.0-rt6",
        "baseline",
    ] {
        assert!(html.contains(n), "run page lacks {n}");
    }
    assert!(html.contains(&format!("/runs/{id}/raw")));
    let raw = get(&app, &format!("/runs/{id}/raw")).await;
    assert_eq!(raw.status, 200);
    assert_eq!(raw.body, fixture("cyclictest-s4-before.txt"));
    assert_eq!(raw.headers["content-security-policy"], "sandbox");
}

#[sqlx::test]
async fn identical_upload_is_idempotent(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let first = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(first.status, 201);
    let before = counts(&pool).await;
    let again = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["upload_id"], first.json()["upload_id"]);
    assert_eq!(again.json()["runs"][0]["id"], first.json()["runs"][0]["id"]);
    assert_eq!(again.json()["created"], false);
    assert_eq!(counts(&pool).await, before);

    // Same bytes with other metadata is another upload sharing the blob.
    let other = upload(
        &app,
        Some(&tok),
        "board=licheepi-4a&kernel=6.5.0-rt6&variant=patched",
        fixture("cyclictest-s4-before.txt"),
    )
    .await;
    assert_eq!(other.status, 201);
    let after = counts(&pool).await;
    assert_eq!(after.0, before.0, "blob is content-addressed, stored once");
    assert_eq!(after.1, before.1 + 1);
}

#[sqlx::test]
async fn reused_idempotency_key_with_other_content_conflicts(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let req = |body: &'static str| {
        Request::post(format!("/api/v1/uploads?{META}"))
            .header("authorization", format!("Bearer {tok}"))
            .header("idempotency-key", "rig-1-run-42")
            .body(Body::from(body))
            .unwrap()
    };
    let a = send(
        &app,
        req("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4\n"),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.text());
    let b = send(
        &app,
        req("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4\n"),
    )
    .await;
    assert_eq!(b.status, 200);
    let c = send(
        &app,
        req("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 5\n"),
    )
    .await;
    assert_eq!(c.status, 409, "{}", c.text());
    assert_eq!(c.json()["error"]["code"], "conflict");
}

#[sqlx::test]
async fn tokens_are_required_and_scoped(pool: PgPool) {
    let app = app(&pool);
    let body = fixture("cyclictest-s4-before.txt");
    let none = upload(&app, None, META, body.clone()).await;
    assert_eq!(none.status, 401);
    assert_eq!(none.json()["error"]["code"], "unauthorized");
    assert_eq!(none.headers["www-authenticate"], "Bearer");

    let bogus = upload(&app, Some("rl_upload_0000"), META, body.clone()).await;
    assert_eq!(bogus.status, 401);

    let read = token(&pool, Scope::Read).await;
    let r = upload(&app, Some(&read), META, body.clone()).await;
    assert_eq!(r.status, 403, "{}", r.text());

    let tok = token(&pool, Scope::Upload).await;
    let n = reclaimlab::storage::tokens::revoke(&pool, &tok[..12])
        .await
        .unwrap();
    assert_eq!(n, 1);
    let revoked = upload(&app, Some(&tok), META, body.clone()).await;
    assert_eq!(revoked.status, 401);
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));

    // Reading needs no token.
    assert_eq!(get(&app, "/").await.status, 200);
    assert_eq!(get(&app, "/api/v1/runs").await.status, 200);
}

#[sqlx::test]
async fn malformed_cyclictest_is_422_with_the_line_and_writes_nothing(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let body = "T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 Act: 6 Avg: 3 Max: 53381\n\
                T: 1 ( 4542) P:99 I:1500 C: 515381 Min: 1 Act: 7 Avg: 3 Max: 6x119\n";
    let r = upload(&app, Some(&tok), META, body).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let e = &r.json()["error"];
    assert_eq!(e["code"], "unprocessable_content");
    assert_eq!(e["line"], 2);
    assert!(e["message"].as_str().unwrap().contains("line 2"), "{e}");
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));
}

#[sqlx::test]
async fn prose_is_422_naming_the_line_and_binary_is_415(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let r = upload(
        &app,
        Some(&tok),
        META,
        "\nhello, this is just prose\nwith nothing in it\n",
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], "unprocessable_content");
    assert_eq!(r.json()["error"]["line"], 2);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 2")
    );
    let bin = upload(&app, Some(&tok), META, vec![0u8, 159, 146, 150]).await;
    assert_eq!(bin.status, 415);
    assert_eq!(bin.json()["error"]["code"], "unsupported_content");
    let png = send(
        &app,
        Request::post(format!("/api/v1/uploads?{META}"))
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "image/png")
            .body(Body::from(fixture("cyclictest-s4-before.txt")))
            .unwrap(),
    )
    .await;
    assert_eq!(png.status, 415);
    let br = send(
        &app,
        Request::post(format!("/api/v1/uploads?{META}"))
            .header("authorization", format!("Bearer {tok}"))
            .header("content-encoding", "br")
            .body(Body::from(fixture("cyclictest-s4-before.txt")))
            .unwrap(),
    )
    .await;
    assert_eq!(br.status, 415);
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));
}

#[sqlx::test]
async fn bad_metadata_is_400(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let body = fixture("cyclictest-s4-before.txt");
    let unknown = upload(&app, Some(&tok), "board=x&colour=blue", body.clone()).await;
    assert_eq!(unknown.status, 400, "{}", unknown.text());
    let ctrl = upload(&app, Some(&tok), "board=a%0Ab", body.clone()).await;
    assert_eq!(ctrl.status, 400);
    let same = upload(&app, Some(&tok), "variant=a&parent=a", body.clone()).await;
    assert_eq!(same.status, 400);
    let empty = upload(&app, Some(&tok), META, Vec::<u8>::new()).await;
    assert_eq!(empty.status, 400);
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));
}

#[sqlx::test]
async fn body_limits_and_gzip(pool: PgPool) {
    use std::io::Write;
    let mut st = state(&pool);
    st.limits = std::sync::Arc::new(reclaimlab::web::Limits {
        max_upload_bytes: 2048,
        max_decoded_bytes: 4096,
        max_json_bytes: 1024,
    });
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let text = fixture("cyclictest-s4-before.txt");
    assert!(text.len() < 2048);

    // Exactly at the limit is accepted by the reader (then parsed), one over is 413.
    let mut at_limit = text.clone();
    at_limit.resize(2048, b'\n');
    let ok = upload(&app, Some(&tok), META, at_limit).await;
    assert_eq!(ok.status, 201, "{}", ok.text());
    let mut over = text.clone();
    over.resize(2049, b'\n');
    let big = upload(&app, Some(&tok), META, over).await;
    assert_eq!(big.status, 413);
    assert_eq!(big.json()["error"]["code"], "payload_too_large");

    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let req = |body: Vec<u8>, variant: &str| {
        Request::post(format!(
            "/api/v1/uploads?board=b&kernel=k&variant={variant}"
        ))
        .header("authorization", format!("Bearer {tok}"))
        .header("content-encoding", "gzip")
        .body(Body::from(body))
        .unwrap()
    };
    let zipped = send(&app, req(gz(&text), "gz")).await;
    assert_eq!(zipped.status, 201, "{}", zipped.text());
    // Small on the wire, too large once decoded.
    let mut bomb = text.clone();
    bomb.resize(4097, b'\n');
    let b = send(&app, req(gz(&bomb), "bomb")).await;
    assert_eq!(b.status, 413, "{}", b.text());
    let broken = send(&app, req(b"not gzip".to_vec(), "broken")).await;
    assert_eq!(broken.status, 400);
}

#[sqlx::test]
async fn multipart_fields_carry_metadata(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let boundary = "XyZ123";
    let mut body = Vec::new();
    for (k, v) in [
        ("board", "licheepi-4a"),
        ("kernel", "6.5.0-rt6"),
        ("variant", "batch-v1"),
        ("parent", "vanilla"),
    ] {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ct.txt\"\r\nContent-Type: text/plain\r\n\r\n").as_bytes());
    body.extend_from_slice(&fixture("cyclictest-s4-before.txt"));
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let r = send(
        &app,
        Request::post("/api/v1/uploads")
            .header("authorization", format!("Bearer {tok}"))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(Body::from(body))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["runs"][0]["variant"], "batch-v1");
    let parent: Option<String> = sqlx::query_scalar(
        "SELECT p.name FROM variants v JOIN variants p ON p.id = v.parent_id WHERE v.name = 'batch-v1'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(parent.as_deref(), Some("vanilla"));
}

#[sqlx::test]
async fn parse_endpoint_stores_nothing(pool: PgPool) {
    let app = app(&pool);
    let r = send(
        &app,
        Request::post("/api/v1/parse")
            .body(Body::from(fixture("cyclictest-s4-before.txt")))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let j = r.json();
    assert_eq!(j["blocks"][0]["kind"], "cyclictest");
    assert_eq!(j["blocks"][0]["lines"], serde_json::json!([1, 8]));
    assert_eq!(j["blocks"][0]["threads"].as_array().unwrap().len(), 8);
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));
}

#[sqlx::test]
async fn health_and_listing_pages(pool: PgPool) {
    let app = app(&pool);
    assert_eq!(get(&app, "/healthz").await.status, 200);
    let ready = get(&app, "/readyz").await;
    assert_eq!(ready.status, 200);
    assert_eq!(ready.json()["database"], "ok");
    let tok = token(&pool, Scope::Upload).await;
    upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    let home = get(&app, "/").await;
    assert_eq!(home.status, 200);
    assert!(home.text().contains("LicheePi 4A"));
    assert!(
        home.text().contains("67469"),
        "home shows the worst latency"
    );
    let boards = get(&app, "/boards").await;
    assert!(boards.text().contains("LicheePi 4A"));
    let kernels = get(&app, "/kernels").await;
    assert!(kernels.text().contains("6.5.0-rt6"));
    assert!(!kernels.text().contains("rel=\"next\""), "one page");
    // A fleet's nightly builds: the list comes a page at a time.
    sqlx::query("INSERT INTO kernels (version) SELECT '6.13.0-n' || lpad(i::text, 3, '0') FROM generate_series(1, 60) i")
        .execute(&pool)
        .await
        .unwrap();
    let first = get(&app, "/kernels").await.text();
    assert_eq!(
        first.matches("<tr><td class=\"mono\">").count(),
        50,
        "{first}"
    );
    assert!(first.contains("6.13.0-n050") && !first.contains("6.13.0-n051"));
    assert!(
        first.contains("href=\"/kernels?after=6.13.0-n050\""),
        "{first}"
    );
    let second = get(&app, "/kernels?after=6.13.0-n050").await.text();
    assert!(second.contains("6.13.0-n051") && second.contains("6.5.0-rt6"));
    assert!(!second.contains("6.13.0-n050") && !second.contains("rel=\"next\""));
    assert!(second.contains(">« First</a>") && !first.contains(">« First</a>"));
    // A patch series' versions: the variants come a page at a time too.
    sqlx::query("INSERT INTO variants (name) SELECT 'series-n' || lpad(i::text, 3, '0') FROM generate_series(1, 60) i")
        .execute(&pool)
        .await
        .unwrap();
    let first = get(&app, "/variants").await.text();
    assert_eq!(
        first.matches("<tr><td><a href=\"/variants/").count(),
        50,
        "{first}"
    );
    assert!(first.contains(">baseline</a>") && first.contains(">series-n049</a>"));
    assert!(!first.contains(">series-n050</a>"));
    assert!(
        first.contains("href=\"/variants?after=series-n049\""),
        "{first}"
    );
    let second = get(&app, "/variants?after=series-n049").await.text();
    assert!(second.contains(">series-n050</a>") && second.contains(">series-n060</a>"));
    assert!(!second.contains(">baseline</a>") && !second.contains("rel=\"next\""));
    assert!(second.contains(">« First</a>") && !first.contains(">« First</a>"));
    let one = get(&app, "/kernels/6.5.0-rt6").await;
    assert_eq!(one.status, 200);
    assert_eq!(get(&app, "/kernels/6.13.0-none").await.status, 404);
    let nf = get(&app, "/runs/999999").await;
    assert_eq!(nf.status, 404);
    assert!(nf.text().contains("<html"));
    let nf_api = get(&app, "/api/v1/runs/999999").await;
    assert_eq!(nf_api.status, 404);
    assert_eq!(nf_api.json()["error"]["code"], "not_found");
    let m = get(&app, "/metrics").await;
    assert!(
        m.text()
            .contains("reclaimlab_uploads_total{result=\"created\"} 1")
    );
}

#[sqlx::test]
async fn histogram_upload_keeps_every_bucket_and_draws_it(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let text = fixture("histogram-4threads.txt");
    let doc: serde_json::Value =
        serde_json::to_value(reclaimlab_formats::parse(&text, None).unwrap()).unwrap();
    let per_thread = doc["blocks"][0]["histogram"]["per_thread"]
        .as_array()
        .unwrap()
        .clone();
    let expected: usize = per_thread
        .iter()
        .map(|t| t["buckets"].as_array().unwrap().len())
        .sum();
    let r = upload(&app, Some(&tok), "board=b&kernel=k&variant=v", text).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["runs"][0]["id"].as_i64().unwrap();
    let run = get(&app, &format!("/api/v1/runs/{id}")).await.json();
    assert_eq!(run["histogram"].as_array().unwrap().len(), expected);
    let svg = get(&app, &format!("/runs/{id}/histogram.svg")).await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg_elements(&svg.text(), "polyline"), per_thread.len());
    assert!(
        get(&app, &format!("/runs/{id}"))
            .await
            .text()
            .contains("histogram.svg")
    );
}

#[sqlx::test]
async fn unlisted_uploads_are_reachable_only_by_link(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let r = upload(
        &app,
        Some(&tok),
        "board=secret-board&kernel=k&variant=v&unlisted=true",
        fixture("cyclictest-s4-before.txt"),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["runs"][0]["id"].as_i64().unwrap();
    assert!(!get(&app, "/").await.text().contains("secret-board"));
    assert!(
        get(&app, "/api/v1/runs")
            .await
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(!get(&app, "/heatmap").await.text().contains("secret-board"));
    assert_eq!(get(&app, &format!("/runs/{id}")).await.status, 200);
    assert_eq!(get(&app, &format!("/api/v1/runs/{id}")).await.status, 200);
}

#[sqlx::test]
async fn a_panicking_handler_is_a_500_and_the_service_stays_up(pool: PgPool) {
    async fn boom() -> &'static str {
        panic!("boom")
    }
    let routes = axum::Router::new()
        .route("/boom", axum::routing::get(boom))
        .route("/healthz", axum::routing::get(|| async { "ok" }));
    let app = reclaimlab::web::with_layers(routes, state(&pool));
    let r = get(&app, "/boom").await;
    assert_eq!(r.status, 500);
    assert_eq!(r.json()["error"]["code"], "internal");
    assert!(
        !r.text().contains("boom"),
        "panic text is not sent to clients"
    );
    assert_eq!(get(&app, "/healthz").await.status, 200);
    let real = reclaimlab::web::router(state(&pool));
    assert_eq!(get(&real, "/runs/not-a-number").await.status, 400);
}

#[sqlx::test]
async fn repeated_bad_tokens_from_one_address_are_refused(pool: PgPool) {
    let mut st = state(&pool);
    st.auth_failures = std::sync::Arc::new(reclaimlab::auth::AuthFailures::new(
        3,
        std::time::Duration::from_secs(60),
    ));
    let app = reclaimlab::web::router(st);
    let good = token(&pool, Scope::Upload).await;
    let from = |ip: [u8; 4], tok: &str| {
        let mut req = Request::post(format!("/api/v1/uploads?{META}"))
            .header("authorization", format!("Bearer {tok}"))
            .body(Body::from(fixture("cyclictest-s4-before.txt")))
            .unwrap();
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(std::net::SocketAddr::from((
                ip, 4000,
            ))));
        req
    };
    for _ in 0..3 {
        assert_eq!(
            send(&app, from([127, 0, 0, 2], "rl_upload_wrong"))
                .await
                .status,
            401
        );
    }
    let blocked = send(&app, from([127, 0, 0, 2], "rl_upload_wrong")).await;
    assert_eq!(
        blocked.status, 429,
        "a bad token waits once the address is blocked"
    );
    assert!(blocked.headers.contains_key("retry-after"));
    // A valid token from the same address is not locked out (tests/limits.rs).
    let good_here = send(&app, from([127, 0, 0, 2], &good)).await;
    assert_eq!(good_here.status, 201, "{}", good_here.text());
    let other = send(&app, from([127, 0, 0, 3], "rl_upload_wrong")).await;
    assert_eq!(other.status, 401, "another address is not limited");
}

#[sqlx::test]
async fn json_bodies_have_a_small_limit(pool: PgPool) {
    let mut st = state(&pool);
    st.limits = std::sync::Arc::new(reclaimlab::web::Limits {
        max_json_bytes: 1024,
        ..reclaimlab::web::Limits::default()
    });
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let big = format!(
        "{{\"title\": \"{}\", \"columns\": [{{\"runs\": [1]}}]}}",
        "x".repeat(2000)
    );
    let r = send(
        &app,
        Request::post("/api/v1/comparisons")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(big))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 413, "{}", r.text());
    // Uploads keep their own, larger limit.
    let up = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(up.status, 201);
}

/// A raw body that declares its length and is small (a rig's result) is
/// received in memory, not spooled: it is refused, stored and replayed as
/// a spooled body is, and a new upload's answer names its runs as they are
/// read back from the database.
#[sqlx::test]
async fn small_bodies_with_a_length_are_stored_as_spooled_ones(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let post = |query: &str, body: Vec<u8>, declared: usize| {
        Request::post(format!("/api/v1/uploads?{query}"))
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "text/plain")
            .header("content-length", declared.to_string())
            .body(Body::from(body))
            .unwrap()
    };
    let mail = fixture("mail-s4.txt");
    let mut nul = mail.clone();
    nul[100] = 0;
    let bin = send(&app, post(META, nul.clone(), nul.len())).await;
    assert_eq!(bin.status, 415, "{}", bin.text());
    assert_eq!(bin.json()["error"]["code"], "unsupported_content");
    let long = send(&app, post(META, mail.clone(), mail.len() - 1)).await;
    assert_eq!(long.status, 400, "{}", long.text());
    assert!(long.text().contains("Content-Length"), "{}", long.text());
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));

    // Three blocks of a mail with a Message-ID, the variants named by
    // the mail's before / after (the catalogue records them).
    let q = "board=licheepi-4a&kernel=6.5.0-rt6";
    let first = send(&app, post(q, mail.clone(), mail.len())).await;
    assert_eq!(first.status, 201, "{}", first.text());
    let again = send(&app, post(q, mail.clone(), mail.len())).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["upload_id"], first.json()["upload_id"]);
    let runs = first.json()["runs"].clone();
    assert_eq!(runs.as_array().map(Vec::len), Some(3), "{runs}");
    let series: Option<i64> =
        sqlx::query_scalar("SELECT series_id FROM variants WHERE name = 'after'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        series.is_some(),
        "the mail's series is recorded on its variant"
    );
    assert_eq!(runs, again.json()["runs"], "names as stored");
    assert_eq!(runs[0]["board"], "LicheePi 4A");
    // Spooled (no length given), the same bytes are the same upload.
    let spooled = upload(&app, Some(&tok), q, mail.clone()).await;
    assert_eq!(spooled.status, 200, "{}", spooled.text());
    assert_eq!(spooled.json()["upload_id"], first.json()["upload_id"]);
    let id = runs[0]["id"].as_i64().unwrap();
    assert_eq!(get(&app, &format!("/runs/{id}/raw")).await.body, mail);

    // A run with no parent takes the variant `ensure` made; a cyclictest
    // body keeps every thread.
    let rig = cyclictest_rig(3, 4, 7000, 90).into_bytes();
    let q = "board=rig-3&kernel=6.13.0&variant=rigs-only";
    let r = send(&app, post(q, rig.clone(), rig.len())).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let replay = send(&app, post(q, rig.clone(), rig.len())).await;
    assert_eq!(replay.status, 200, "{}", replay.text());
    assert_eq!(r.json()["runs"], replay.json()["runs"]);
    assert_eq!(r.json()["runs"][0]["variant"], "rigs-only");
    let run = r.json()["runs"][0]["id"].as_i64().unwrap();
    let threads: i64 = sqlx::query_scalar("SELECT count(*) FROM latency_threads WHERE run_id = $1")
        .bind(run)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(threads, 4);
    let cells: i64 = sqlx::query_scalar(
        "SELECT runs FROM run_cells c JOIN variants v ON v.id = c.variant_id
         WHERE v.name = 'rigs-only'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(cells, 1, "the upload is counted once in the aggregates");
    // A run naming a parent records it.
    let child = cyclictest_rig(4, 2, 7100, 90).into_bytes();
    let q = "board=rig-3&kernel=6.13.0&variant=rigs-child&parent=rigs-only";
    let r = send(&app, post(q, child.clone(), child.len())).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let parent: Option<String> = sqlx::query_scalar(
        "SELECT p.name FROM variants v JOIN variants p ON p.id = v.parent_id
         WHERE v.name = 'rigs-child'",
    )
    .fetch_optional(&pool)
    .await
    .unwrap();
    assert_eq!(parent.as_deref(), Some("rigs-only"));
}

/// The second upload naming the same board (another spelling), kernel and
/// variant takes their ids from the process's catalogue cache: the runs
/// land on the same rows, and a kernel made meanwhile by another process
/// (here straight in the database) is found with its own id.
#[sqlx::test]
async fn uploads_naming_known_rows_reuse_their_ids(pool: PgPool) {
    let st = state(&pool);
    let catalogue = st.catalogue.clone();
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let run = |n: u32| format!("T: 0 ( 4000) P:99 I:1000 C: {n} Min: 1 Act: 3 Avg: 4 Max: 17\n");
    let a = upload(&app, Some(&tok), META, run(100).into_bytes()).await;
    assert_eq!(a.status, 201, "{}", a.text());
    assert!(
        catalogue
            .lookup(&["licheepi-4a"], &["6.5.0-rt6"], &["baseline"])
            .is_some(),
        "the first upload's names are kept"
    );
    let b = upload(
        &app,
        Some(&tok),
        "board=LicheePi%204A&kernel=6.5.0-rt6&variant=baseline",
        run(101).into_bytes(),
    )
    .await;
    assert_eq!(b.status, 201, "{}", b.text());
    let ids: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT board_id, kernel_id, variant_id FROM runs WHERE deleted_at IS NULL ORDER BY id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(ids.len(), 2);
    assert_eq!(
        ids[0], ids[1],
        "both runs on the same board, kernel and variant"
    );
    let (board, kernel, variant): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT id FROM boards WHERE name = 'LicheePi 4A'),
                (SELECT id FROM kernels WHERE version = '6.5.0-rt6'),
                (SELECT id FROM variants WHERE name = 'baseline')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(ids[0], (board, kernel, variant));

    let other: i64 =
        sqlx::query_scalar("INSERT INTO kernels (version) VALUES ('6.6.0-elsewhere') RETURNING id")
            .fetch_one(&pool)
            .await
            .unwrap();
    let c = upload(
        &app,
        Some(&tok),
        "board=licheepi-4a&kernel=6.6.0-elsewhere&variant=baseline",
        run(102).into_bytes(),
    )
    .await;
    assert_eq!(c.status, 201, "{}", c.text());
    let kernel_c: i64 = sqlx::query_scalar("SELECT kernel_id FROM runs ORDER BY id DESC LIMIT 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(kernel_c, other);
    assert_eq!(c.json()["runs"][0]["kernel"], "6.6.0-elsewhere");
}

/// A filter names a board the way an upload did: `licheepi-4a` lists the
/// runs stored under `LicheePi 4A`, on the API, the home page and the
/// board's own page. A name that is no board is an empty listing, not an
/// error.
#[sqlx::test]
async fn a_board_filter_finds_its_runs_under_any_spelling(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let r = upload(&app, Some(&tok), META, fixture("cyclictest-s4-before.txt")).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let other = upload(
        &app,
        Some(&tok),
        "board=x86-skylake-8&kernel=6.5.0-rt6&variant=baseline",
        fixture("cyclictest-s4-before.txt"),
    )
    .await;
    assert_eq!(other.status, 201, "{}", other.text());
    let run_of = |r: &TestResponse| r.json()["runs"][0]["id"].as_i64().unwrap();
    let (lichee, x86) = (run_of(&r), run_of(&other));
    for spelling in ["licheepi-4a", "LicheePi%204A", "lichee_pi_4a"] {
        let runs = get(&app, &format!("/api/v1/runs?board={spelling}"))
            .await
            .json();
        let runs = runs.as_array().unwrap();
        assert_eq!(runs.len(), 1, "{spelling}: {runs:?}");
        assert_eq!(runs[0]["board"], "LicheePi 4A");
    }
    let page = get(&app, "/?board=licheepi-4a").await.text();
    assert!(page.contains(&format!("/runs/{lichee}\"")), "{page}");
    assert!(!page.contains(&format!("/runs/{x86}\"")), "{page}");
    let board = get(&app, "/boards/licheepi-4a").await;
    assert_eq!(board.status, 200);
    assert!(board.text().contains("LicheePi 4A"));
    let none = get(&app, "/api/v1/runs?board=no-such-board").await;
    assert_eq!(none.status, 200);
    assert_eq!(none.json().as_array().unwrap().len(), 0);
    let none = get(&app, "/api/v1/runs?board=licheepi-4a&kernel=9.9.9").await;
    assert_eq!(none.json().as_array().unwrap().len(), 0);
}
