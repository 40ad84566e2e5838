//! The page cache never answers with data older than the request: an
//! upload committed after a page was kept shows on the next request of
//! the same page, and the pages it keeps are the ones it lists.

mod common;

use common::{get, token, upload};
use reclaimlab::auth::Scope;
use sqlx::PgPool;

#[sqlx::test(migrations = "./migrations")]
async fn an_upload_after_a_kept_page_shows_on_the_next_request(pool: PgPool) {
    let state = common::state(&pool);
    let cache = state.page_cache.clone();
    let app = reclaimlab::web::router(state);
    let tok = token(&pool, Scope::Upload).await;
    let r = upload(
        &app,
        Some(&tok),
        "board=cache-early&kernel=6.12.0&variant=base",
        common::cyclictest_rig(0, 2, 100, 300),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());

    let before = cache.stats();
    let first = get(&app, "/heatmap").await;
    let again = get(&app, "/heatmap").await;
    let svg = get(&app, "/heatmap.svg").await;
    assert_eq!((first.status, again.status, svg.status), (200, 200, 200));
    assert!(first.text().contains("cache-early"));
    assert_eq!(first.text(), again.text());
    let after = cache.stats();
    assert_eq!(
        after.computed + after.shared - before.computed - before.shared,
        3,
        "/heatmap and /heatmap.svg go through the cache"
    );
    // A page that is not listed does not.
    assert_eq!(get(&app, "/culprits").await.status, 200);
    let listed = cache.stats();
    assert_eq!(listed, after);
    let boards = get(&app, "/boards").await.text();
    assert!(boards.contains("cache-early") && !boards.contains("cache-late"));

    let r = upload(
        &app,
        Some(&tok),
        "board=cache-late&kernel=6.13.0&variant=base",
        common::cyclictest_rig(1, 2, 100, 900),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let page = get(&app, "/heatmap").await.text();
    assert!(
        page.contains("cache-early") && page.contains("cache-late"),
        "{page}"
    );
    let boards = get(&app, "/boards").await.text();
    assert!(
        boards.contains("cache-late"),
        "a kept /boards shows the new board"
    );
    let svg_after = get(&app, "/heatmap.svg").await.text();
    assert_ne!(svg_after, svg.text());
    assert!(svg_after.contains("cache-late"));
    let chain = get(&app, "/compare?c=board%3Acache-late").await.text();
    assert!(chain.contains("cache-late"), "{chain}");
    let changed = cache.stats();
    assert!(changed.computed >= after.computed + 2);

    // Deleting the upload is a commit too: the page stops showing it.
    let id: i64 = sqlx::query_scalar(
        "SELECT u.id FROM uploads u JOIN runs r ON r.upload_id = u.id
           JOIN boards b ON b.id = r.board_id WHERE b.name = 'cache-late'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let del = common::send(
        &app,
        axum::http::Request::delete(format!("/api/v1/uploads/{id}"))
            .header("authorization", format!("Bearer {tok}"))
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert!(del.status == 200 || del.status == 204, "{}", del.text());
    let page = get(&app, "/heatmap").await.text();
    assert!(
        page.contains("cache-early") && !page.contains("cache-late"),
        "{page}"
    );
}
