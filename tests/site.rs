//! The site as a whole: every route of the router answers a bad path
//! segment and a bad query in the documented error shape (JSON under
//! `/api`, the HTML error page elsewhere), never a framework's plain text.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{TestResponse, send};
use sqlx::PgPool;

/// Every `.route("PATH", METHODS)` of `src/web/mod.rs`, read from the
/// source so a new route is covered without editing this test.
fn routes() -> Vec<(String, Vec<&'static str>)> {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/web/mod.rs"))
        .expect("router source");
    let mut out = Vec::new();
    let mut rest = src.as_str();
    while let Some(i) = rest.find(".route(") {
        rest = &rest[i + ".route(".len()..];
        let Some(q1) = rest.find('"') else { break };
        let after = &rest[q1 + 1..];
        let q2 = after.find('"').expect("closing quote");
        let path = after[..q2].to_string();
        // The handler expression: up to the parenthesis closing `.route(`.
        let mut depth = 1;
        let mut end = 0;
        for (j, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let expr = &rest[q1 + q2 + 2..end];
        let mut methods = Vec::new();
        for (word, m) in [
            ("get(", "GET"),
            ("post(", "POST"),
            ("put(", "PUT"),
            ("delete(", "DELETE"),
        ] {
            let hit = expr.match_indices(word).any(|(k, _)| {
                k == 0
                    || !expr.as_bytes()[k - 1].is_ascii_alphanumeric()
                        && expr.as_bytes()[k - 1] != b'_'
            });
            if hit {
                methods.push(m);
            }
        }
        assert!(!methods.is_empty(), "no method found for {path}: {expr}");
        out.push((path, methods));
        rest = &rest[end..];
    }
    assert!(out.len() >= 30, "parsed only {} routes", out.len());
    out
}

/// The documented error: `{"error": {"code": "...", "message": "..."}}`.
fn assert_api_error(what: &str, r: &TestResponse) {
    let ctype = r
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(
        ctype.starts_with("application/json"),
        "{what}: {} with content-type {ctype:?}: {}",
        r.status,
        r.text()
    );
    let v: serde_json::Value = serde_json::from_slice(&r.body)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", r.text()));
    let err = v
        .get("error")
        .and_then(|e| e.as_object())
        .unwrap_or_else(|| panic!("{what}: no error object: {v}"));
    assert!(
        err.get("code")
            .and_then(|c| c.as_str())
            .is_some_and(|c| !c.is_empty()),
        "{what}: no code: {v}"
    );
    assert!(
        err.get("message")
            .and_then(|c| c.as_str())
            .is_some_and(|c| !c.is_empty()),
        "{what}: no message: {v}"
    );
    for k in err.keys() {
        assert!(
            ["code", "message", "line"].contains(&k.as_str()),
            "{what}: undocumented field {k}: {v}"
        );
    }
}

/// The HTML error page: the site's layout, the status in the heading.
fn assert_page_error(what: &str, r: &TestResponse) {
    let ctype = r
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let text = r.text();
    assert!(
        ctype.starts_with("text/html"),
        "{what}: {} with content-type {ctype:?}: {text}",
        r.status
    );
    assert!(
        text.contains("<!doctype html>") && text.contains(&r.status.to_string()),
        "{what}: not the error page: {text}"
    );
    assert!(text.contains("href=\"/\""), "{what}: no way back: {text}");
}

fn assert_error_shape(what: &str, path: &str, r: &TestResponse) {
    assert!(
        (400..500).contains(&r.status),
        "{what}: expected a 4xx, got {}: {}",
        r.status,
        r.text()
    );
    if path.starts_with("/api/") {
        assert_api_error(what, r);
    } else {
        assert_page_error(what, r);
    }
}

/// Repeating a field is a deserialization error for any typed query; a
/// non-number where a number goes is another.
const BAD_QUERY: &str = "limit=abc&before=abc&board=a&board=b&kernel=a&kernel=b&variant=a&variant=b\
     &kind=a&kind=b&metric=a&metric=b&tool=a&tool=b&board_class=a&board_class=b";

async fn request(app: &axum::Router, method: &str, uri: &str) -> TestResponse {
    let mut b = Request::builder().method(method).uri(uri);
    if method != "GET" {
        b = b
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", "http://reclaimlab.test")
            .header("host", "reclaimlab.test");
    }
    send(app, b.body(Body::empty()).unwrap()).await
}

#[sqlx::test]
async fn every_route_answers_bad_paths_and_queries_in_the_documented_shape(pool: PgPool) {
    let app = common::app(&pool);
    let mut checked = 0;
    for (path, methods) in routes() {
        let bad = path
            .split('/')
            .map(|seg| if seg.starts_with('{') { "abc" } else { seg })
            .collect::<Vec<_>>()
            .join("/");
        for method in methods {
            if bad != path {
                let r = request(&app, method, &bad).await;
                assert_error_shape(&format!("{method} {bad}"), &path, &r);
                checked += 1;
            }
            // A bad query: a typed query answers 400; a route without one
            // ignores it. Either way never a 5xx or a bare text.
            let uri = format!("{}?{BAD_QUERY}", if bad != path { &bad } else { &path });
            let r = request(&app, method, &uri).await;
            assert!(r.status < 500, "{method} {uri}: {} {}", r.status, r.text());
            if r.status >= 400 {
                assert_error_shape(&format!("{method} {uri}"), &path, &r);
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} requests");

    // The cases that used to answer the framework's plain text.
    for (uri, status) in [
        ("/api/v1/runs?limit=abc", 400),
        ("/api/v1/simulations/abc", 400),
        ("/api/v1/runs/abc", 400),
        ("/api/v1/runs/99999999999999999999", 400),
        ("/api/v1/runs/12", 404),
        ("/api/v1/nothing-here", 404),
        ("/simulations/abc", 400),
        ("/simulations/sweeps/abc", 400),
        (&format!("/heatmap?{BAD_QUERY}"), 400),
        (&format!("/history?{BAD_QUERY}"), 400),
        (&format!("/culprits?{BAD_QUERY}"), 400),
        ("/nothing-here", 404),
        ("/?before=abc", 400),
        ("/boards/abc?before=abc", 400),
        ("/boards/no-such-board", 404),
        ("/kernels/no-such-kernel", 404),
    ] {
        let r = request(&app, "GET", uri).await;
        assert_eq!(r.status, status, "GET {uri}: {}", r.text());
        assert_error_shape(&format!("GET {uri}"), uri, &r);
    }
    let r = request(&app, "GET", "/api/v1/runs?limit=abc").await;
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("limit")
    );

    // A method the route does not answer.
    let r = request(&app, "GET", "/api/v1/comparisons").await;
    assert_eq!(r.status, 405);
    assert_api_error("GET /api/v1/comparisons", &r);
    let r = request(&app, "DELETE", "/compare").await;
    assert_eq!(r.status, 405);
    assert_page_error("DELETE /compare", &r);

    // A body that is not JSON where JSON goes, with a valid token.
    let token = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
    let r = send(
        &app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from("{not json"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_api_error("POST /api/v1/simulations with bad JSON", &r);
}

/// The links of a page whose text contains `needle`, HTML-unescaped.
fn link_with(html: &str, needle: &str) -> Option<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split_once('"'))
        .find(|(_, rest)| {
            rest.split("</a>")
                .next()
                .is_some_and(|t| t.contains(needle))
        })
        .map(|(href, _)| href.replace("&amp;", "&").replace("&#38;", "&"))
}

/// The run ids a listing page shows, in order.
fn run_ids(html: &str) -> Vec<i64> {
    html.split("<a href=\"/runs/")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .collect()
}

#[sqlx::test]
async fn home_pages_and_filters_without_javascript(pool: PgPool) {
    let app = common::app(&pool);
    let tok = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
    let cyc = common::fixture("cyclictest-s4-before.txt");
    // 53 cyclictest runs on rig-a over two kernels, one histogram run on rig-b.
    for i in 0..53 {
        let kernel = if i % 2 == 0 { "6.6" } else { "6.12" };
        let q = format!("board=rig-a&kernel={kernel}&variant=v{i}");
        let r = common::upload(&app, Some(&tok), &q, cyc.clone()).await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let r = common::upload(
        &app,
        Some(&tok),
        "board=rig-b&kernel=6.12&variant=hist",
        common::fixture("histogram-4threads.txt"),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let hist_run = r.json()["runs"][0]["id"].as_i64().unwrap();

    // The first page: the newest 50, a GET form, a link to the older runs.
    let home = common::get(&app, "/").await;
    assert_eq!(home.status, 200);
    let html = home.text();
    assert!(html.contains(r#"<form class="filters" method="get" action="/">"#));
    for field in ["board", "kernel", "variant", "kind", "tool"] {
        assert!(
            html.contains(&format!("name=\"{field}\"")),
            "no {field} field"
        );
    }
    let first = run_ids(&html);
    assert_eq!(first.len(), 50);
    assert_eq!(first[0], hist_run, "newest first");
    assert!(first.windows(2).all(|w| w[0] > w[1]));
    let older = link_with(&html, "Older runs").expect("a link to older runs");
    assert_eq!(older, format!("/?before={}", first[49]));
    let page2 = common::get(&app, &older).await.text();
    let second = run_ids(&page2);
    assert_eq!(second.len(), 4);
    assert!(second[0] < first[49]);
    assert!(link_with(&page2, "Older runs").is_none());
    assert_eq!(link_with(&page2, "Newest").as_deref(), Some("/"));

    // Filters, alone and together; a blank field (untouched form) is no filter.
    let count = |q: &'static str| {
        let app = app.clone();
        async move {
            let r = common::get(&app, q).await;
            assert_eq!(r.status, 200, "{q}: {}", r.text());
            run_ids(&r.text()).len()
        }
    };
    assert_eq!(count("/?board=rig-b&kernel=&variant=&kind=&tool=").await, 1);
    assert_eq!(count("/?board=rig-a&kernel=6.6").await, 27);
    assert_eq!(
        count("/?tool=cyclictest&kernel=6.12").await,
        27,
        "the histogram run is cyclictest too"
    );
    assert_eq!(count("/?variant=v7").await, 1);
    assert_eq!(count("/?kind=simulated").await, 0);
    assert_eq!(count("/?board=rig-a&tool=ftrace_latency").await, 0);
    // Paging keeps the filter.
    let r = common::get(&app, "/?board=rig-a").await.text();
    let next = link_with(&r, "Older runs").unwrap();
    assert!(next.starts_with("/?board=rig-a&before="), "{next}");
    assert_eq!(run_ids(&common::get(&app, &next).await.text()).len(), 3);
    // The chosen filter is shown selected.
    let r = common::get(&app, "/?kernel=6.12").await.text();
    assert!(r.contains("<option selected>6.12</option>"));

    // Board and kernel pages list their own runs and link onwards.
    let b = common::get(&app, "/boards/rig-b").await;
    assert_eq!(b.status, 200);
    assert_eq!(run_ids(&b.text()), vec![hist_run]);
    assert!(b.text().contains("href=\"/history?board=rig-b\""));
    let k = common::get(&app, "/kernels/6.6").await.text();
    assert_eq!(run_ids(&k).len(), 27);
    let boards = common::get(&app, "/boards").await.text();
    assert!(boards.contains("href=\"/boards/rig-a\""));
}

fn form_post(path: &str, pairs: &[(&str, &str)]) -> Request<Body> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    Request::post(path)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap()
}

/// Spellings of one board typed into the import form and the cost-table
/// form (`data/board-aliases.tsv`) are stored as one board.
#[sqlx::test]
async fn board_spellings_entered_on_forms_are_one_board(pool: PgPool) {
    let app = common::app(&pool);
    let tok = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
    let mail = String::from_utf8(common::fixture("mail-s4.txt")).unwrap();
    for (board, prefix) in [
        ("licheepi-4a", "t1/"),
        ("LicheePi 4A", "t2/"),
        ("lpi4a", "t3/"),
    ] {
        let r = send(
            &app,
            form_post(
                "/import/commit",
                &[
                    ("mail", mail.as_str()),
                    ("token", tok.as_str()),
                    ("board", board),
                    ("kernel", "6.12.0-rc5"),
                    ("variant_prefix", prefix),
                    ("b0_kind", "cyclictest"),
                    ("b1_kind", "cyclictest"),
                    ("b1_board", board),
                ],
            ),
        )
        .await;
        assert_eq!(r.status, 303, "{board}: {}", r.text());
    }
    let r = send(
        &app,
        form_post(
            "/simulations/costs",
            &[
                ("token", tok.as_str()),
                ("board", "Sipeed LicheePi 4A"),
                ("board_class", "x86-desktop"),
                ("costs", "page_fault = 900"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let boards: Vec<String> = sqlx::query_scalar("SELECT name FROM boards ORDER BY name")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(boards, vec!["LicheePi 4A"]);
    let page = common::get(&app, "/boards").await.text();
    assert!(page.contains("href=\"/boards/LicheePi%204A\""), "{page}");
    assert_eq!(common::get(&app, "/boards/LicheePi%204A").await.status, 200);
}

/// The simulate page's examples, submitted as the page gives them with a
/// fresh token, are accepted; a sweep simulates only the chosen variants;
/// a job reports the replications it runs.
#[sqlx::test]
async fn the_simulate_page_examples_run_as_given(pool: PgPool) {
    let app = common::app(&pool);
    let page = common::get(&app, "/simulations").await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("id=\"quotas\"") && html.contains("4 jobs queued or running"));
    let v1 = reclaimlab::web::pages::validation::for_scenario("v1-madvise-pte-walk").unwrap();
    assert!(
        html.contains(&format!(
            "v1-madvise-pte-walk {} of {}",
            v1.predictions_within(),
            v1.predictions()
        )),
        "validation summary on the page"
    );
    let links: Vec<String> = html
        .split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|h| h.starts_with("/simulations?"))
        .map(|h| h.replace("&amp;", "&").replace("&#38;", "&"))
        .collect();
    assert!(links.len() >= 2, "{links:?}");
    for link in &links {
        let filled = common::get(&app, link).await;
        assert_eq!(filled.status, 200, "{link}");
        let query = link.split_once('?').unwrap().1.split('#').next().unwrap();
        let fields: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        for (k, v) in &fields {
            if k != "scenario" && k != "sweep_output" {
                let shown = format!("name=\"{k}\" value=\"{v}\"");
                assert!(filled.text().contains(&shown), "{link}: form lacks {shown}");
            }
        }
        let tok = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
        let mut pairs: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        pairs.push(("token", &tok));
        let r = send(&app, form_post("/simulations", &pairs)).await;
        assert_eq!(r.status, 303, "{link}: {}", r.text());
    }
    // The sweep example: four jobs, each of the swept variant only.
    let jobs: Vec<(Vec<String>, Option<f64>)> = sqlx::query_as(
        "SELECT variants, sweep_value FROM simulations WHERE sweep_id IS NOT NULL ORDER BY id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(jobs.len(), 4);
    for (variants, value) in &jobs {
        assert_eq!(variants, &vec!["isolate-time-cap".to_string()]);
        assert!(value.is_some());
    }
    // A job that did not give replications reports the scenario's.
    let id: i64 = sqlx::query_scalar("SELECT id FROM simulations WHERE sweep_id IS NULL")
        .fetch_one(&pool)
        .await
        .unwrap();
    let status = common::get(&app, &format!("/api/v1/simulations/{id}"))
        .await
        .json();
    assert_eq!(status["replications"], 1, "{status}");
    // Its page says how far the scenario's predictions are from the seed.
    let job = common::get(&app, &format!("/simulations/{id}"))
        .await
        .text();
    assert!(job.contains("id=\"validation\""), "{job}");
    assert!(
        job.contains("predictions of this scenario are within 2x"),
        "{job}"
    );
    assert!(job.contains("1.47-4.45 ms"), "the both-caps range is shown");
    // Without replications in the request: the scenario's own (toy-lock: 1).
    let tok = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
    let r = send(
        &app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(r#"{"scenario": "toy-lock", "duration": "1s"}"#))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_i64().unwrap();
    let status = common::get(&app, &format!("/api/v1/simulations/{id}"))
        .await
        .json();
    assert_eq!(status["replications"], 1, "{status}");
}

/// From `/`, every same-site link of the demo data set: every page route
/// of the router is reached, nothing answers 4xx/5xx, and every HTML page
/// links back in (`common::pages`).
#[sqlx::test]
async fn a_crawl_of_the_demo_site_reaches_every_page_type(pool: PgPool) {
    let loaded = reclaimlab::cli::demo::load(&pool).await.unwrap();
    assert!(loaded >= 10, "demo uploads loaded: {loaded}");
    let app = common::app(&pool);
    let tok = common::token(&pool, reclaimlab::auth::Scope::Upload).await;
    // A permalink and a simulation job, as a user would make them.
    let r = common::post_comparison(
        &app,
        &tok,
        serde_json::json!({"title": "wakeup_rt, LicheePi 4A", "columns": [
            {"label": "vanilla", "variant": "vanilla", "board": "LicheePi 4A"},
            {"label": "madvise-resched-v1", "variant": "madvise-resched-v1"}]}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let r = send(
        &app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(r#"{"scenario": "toy-lock", "duration": "1s"}"#))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());

    // A sweep, reached from its jobs' pages.
    let r = send(
        &app,
        Request::post("/api/v1/simulations")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-type", "application/json")
            .body(Body::from(
                r#"{"scenario": "v4-isolate-irq-holdoff", "duration": "1s",
                    "variants": ["isolate-time-cap"], "sweep": {"variant": "isolate-time-cap",
                    "knob": "isolate_time_cap_us", "values": [10, 20]}}"#,
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());

    // The navigation's History opens on a board with data, not an empty page.
    let h = common::get(&app, "/history").await.text();
    assert!(h.contains("/history.svg?board="), "{h}");

    let c = common::pages::crawl(&app, "http://reclaimlab.test").await;
    let missing = common::pages::unreached(&c);
    assert!(
        missing.is_empty(),
        "{}\nreached {:?}",
        missing.join("\n"),
        c.reached
    );
    eprintln!(
        "crawl: {} addresses fetched, pages {:?}",
        c.fetched, c.reached
    );
}
