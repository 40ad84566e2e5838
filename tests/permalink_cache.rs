//! Permalinks answered from memory after their first request, and a
//! removal made elsewhere (another process, straight in the database)
//! seen within the cache's TTL.

mod common;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use common::*;
use reclaimlab::storage::snapshots::{self, NewSnapshot};
use reclaimlab::web::permalink_cache::PermalinkCache;
use reclaimlab::web::router;
use sqlx::PgPool;

async fn make(pool: &PgPool, slug: &str, svg: Option<&str>) {
    let made = snapshots::insert(
        pool,
        &NewSnapshot {
            slug,
            title: "cyclictest max, vanilla vs patched",
            spec: &serde_json::json!({"columns": [{"runs": [1]}, {"runs": [2]}]}),
            run_ids: &[],
            comparison: &serde_json::json!({}),
            body_html: "<!doctype html><title>compare</title><p>T:0 Max 260.53</p>",
            body_txt: "T:0 Max 260.53 -> 192.98 (-25.93%)\n",
            body_full_txt: "T:0 Max 260.53 -> 192.98 (-25.93%)\nT:1 Max 181 -> 179.61\n",
            body_json: r#"{"rows":[{"metric":"max","values":[260.53,192.98]}]}"#,
            body_svg: svg,
            token_id: None,
            message_id: None,
        },
    )
    .await
    .expect("insert snapshot");
    assert!(made, "slug {slug} was free");
}

fn app_with_ttl(pool: &PgPool, ttl: Duration) -> (Router, Arc<PermalinkCache>) {
    let mut st = state(pool);
    let cache = Arc::new(PermalinkCache::new(ttl));
    st.snapshots = cache.clone();
    (router(st), cache)
}

async fn remove_elsewhere(pool: &PgPool, slug: &str) {
    sqlx::query("UPDATE snapshots SET removed_at = now(), body_html = '' WHERE slug = $1")
        .bind(slug)
        .execute(pool)
        .await
        .unwrap();
}

#[sqlx::test]
async fn a_served_permalink_needs_no_database(pool: PgPool) {
    make(
        &pool,
        "Mem0ry0Hit1",
        Some("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
    )
    .await;
    let (app, cache) = app_with_ttl(&pool, Duration::from_secs(60));
    let first = get(&app, "/c/Mem0ry0Hit1").await;
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(cache.len(), 1);
    // Every rendering came with that one read: with the database closed
    // they are all still answered, byte for byte.
    pool.close().await;
    let again = get(&app, "/c/Mem0ry0Hit1").await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, first.body);
    assert_eq!(again.headers["etag"], first.headers["etag"]);
    assert_eq!(
        again.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(again.headers["content-type"], "text/html; charset=utf-8");
    for (ext, ctype, body) in [
        (
            "txt",
            "text/plain; charset=utf-8",
            "T:0 Max 260.53 -> 192.98 (-25.93%)\n",
        ),
        (
            "full.txt",
            "text/plain; charset=utf-8",
            "T:0 Max 260.53 -> 192.98 (-25.93%)\nT:1 Max 181 -> 179.61\n",
        ),
        (
            "json",
            "application/json",
            r#"{"rows":[{"metric":"max","values":[260.53,192.98]}]}"#,
        ),
        (
            "svg",
            "image/svg+xml",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        ),
    ] {
        let r = get(&app, &format!("/c/Mem0ry0Hit1.{ext}")).await;
        assert_eq!(r.status, 200, ".{ext}");
        assert_eq!(r.headers["content-type"], ctype, ".{ext}");
        assert_eq!(r.text(), body, ".{ext}");
        assert_ne!(
            r.headers["etag"], first.headers["etag"],
            ".{ext} has its own ETag"
        );
    }
    assert_eq!(get(&app, "/c/Mem0ry0Hit1.pdf").await.status, 404);
}

#[sqlx::test]
async fn etags_answer_not_modified(pool: PgPool) {
    make(&pool, "Etag0Check1", None).await;
    let app = app(&pool);
    let r = get(&app, "/c/Etag0Check1.txt").await;
    let etag = r.headers["etag"].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() == 34,
        "{etag}"
    );
    let with = |v: String| {
        let app = app.clone();
        async move {
            send(
                &app,
                Request::get("/c/Etag0Check1.txt")
                    .header("if-none-match", v)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
        }
    };
    for v in [etag.clone(), format!("\"other\", {etag}"), "*".to_owned()] {
        let r = with(v.clone()).await;
        assert_eq!(r.status, 304, "{v}");
        assert_eq!(r.headers["etag"].to_str().unwrap(), etag);
        assert!(r.body.is_empty());
    }
    let r = with("\"0123\"".to_owned()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "T:0 Max 260.53 -> 192.98 (-25.93%)\n");
    // The HTML's ETag does not match the text.
    let html = get(&app, "/c/Etag0Check1").await;
    assert_eq!(
        send(
            &app,
            Request::get("/c/Etag0Check1.txt")
                .header("if-none-match", html.headers["etag"].clone())
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .status,
        200
    );
    // No chart: 404, whether kept or not.
    assert_eq!(get(&app, "/c/Etag0Check1.svg").await.status, 404);
}

#[sqlx::test]
async fn a_removal_made_elsewhere_is_seen_within_the_ttl(pool: PgPool) {
    let ttl = Duration::from_millis(600);
    make(&pool, "Busy0Remove1", None).await;
    make(&pool, "Idle0Remove1", None).await;
    let (app, _) = app_with_ttl(&pool, ttl);
    assert_eq!(get(&app, "/c/Busy0Remove1").await.status, 200);
    assert_eq!(get(&app, "/c/Idle0Remove1").await.status, 200);
    let removed = std::time::Instant::now();
    remove_elsewhere(&pool, "Busy0Remove1").await;
    remove_elsewhere(&pool, "Idle0Remove1").await;

    // Asked for all along: answered from memory until a background check
    // (started past half the TTL) sees the removal, within the TTL.
    let kept = get(&app, "/c/Busy0Remove1").await;
    assert_eq!(kept.status, 200, "kept, not read again");
    assert!(kept.text().contains("260.53"));
    let seen = loop {
        let r = get(&app, "/c/Busy0Remove1").await;
        if r.status == 410 {
            break removed.elapsed();
        }
        assert_eq!(r.status, 200);
        assert!(
            removed.elapsed() < ttl + Duration::from_secs(2),
            "removal not seen"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        seen >= ttl / 4,
        "seen after {seen:?}: not from memory at first"
    );
    assert!(
        seen < ttl + Duration::from_millis(500),
        "seen after {seen:?}"
    );

    // Not asked for during the TTL: read again on the next request.
    tokio::time::sleep(ttl.saturating_sub(removed.elapsed())).await;
    assert_eq!(get(&app, "/c/Idle0Remove1").await.status, 410);
    assert_eq!(get(&app, "/c/Idle0Remove1.txt").await.status, 410);
}

#[sqlx::test]
async fn a_missing_permalink_is_not_kept(pool: PgPool) {
    let (app, cache) = app_with_ttl(&pool, Duration::from_secs(60));
    assert_eq!(get(&app, "/c/Late0Comer12").await.status, 404);
    assert!(cache.is_empty());
    make(&pool, "Late0Comer12", None).await;
    assert_eq!(get(&app, "/c/Late0Comer12").await.status, 200);
}

#[sqlx::test]
async fn concurrent_first_requests_read_the_row_once(pool: PgPool) {
    make(&pool, "Many0First1", None).await;
    let (app, cache) = app_with_ttl(&pool, Duration::from_secs(60));
    // Hold the table so that every read of it waits, then count the
    // backends waiting to read it while 32 first requests are in flight.
    let mut lock = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { get(&app, "/c/Many0First1.json").await })
        })
        .collect();
    let mut waiting = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waiting = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE '%FROM snapshots WHERE slug%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if waiting > 0 {
            break;
        }
    }
    // Give the other requests time to send their own reads, if they would.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waiting_later: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND query LIKE '%FROM snapshots WHERE slug%'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    lock.commit().await.unwrap();
    assert_eq!(waiting, 1, "one read of the row");
    assert_eq!(waiting_later, 1, "still one read of the row");
    for t in tasks {
        let r = t.await.unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(
            r.text(),
            r#"{"rows":[{"metric":"max","values":[260.53,192.98]}]}"#
        );
    }
    assert_eq!(cache.len(), 1);
}
