//! The service's pool (`reclaimlab::db::connect`) never hands out a
//! connection left inside a transaction: the state a request cancelled
//! during its `BEGIN` leaves behind (the session is in a transaction the
//! driver does not know about).

mod common;

use reclaimlab::config::DbArgs;
use sqlx::PgPool;

async fn pid(c: &mut sqlx::PgConnection) -> i32 {
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(c)
        .await
        .unwrap()
}

#[sqlx::test]
async fn a_connection_left_in_a_transaction_is_not_handed_out(test_pool: PgPool) {
    let pool = reclaimlab::db::connect(&DbArgs {
        database_url: common::database_url(&test_pool).await,
        db_max_connections: 1,
        db_acquire_timeout_secs: 5,
    })
    .await
    .unwrap();
    let mut conn = pool.acquire().await.unwrap();
    let first = pid(&mut conn).await;
    // A BEGIN the driver does not count, as a cancelled `begin()` leaves.
    sqlx::query("BEGIN").execute(&mut *conn).await.unwrap();
    sqlx::query("CREATE TEMP TABLE stale (x int)")
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    // The next borrower gets a fresh session, and its own transaction works.
    let mut tx = pool.begin().await.expect("begin on a clean connection");
    let second = pid(&mut tx).await;
    assert_ne!(
        first, second,
        "the connection inside a transaction was reused"
    );
    let stale: Option<String> = sqlx::query_scalar("SELECT to_regclass('pg_temp.stale')::text")
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    assert_eq!(stale, None, "statements ran inside the stale transaction");
    tx.commit().await.unwrap();
    // A connection that is fine is reused, with no reconnect.
    let mut again = pool.acquire().await.unwrap();
    assert_eq!(pid(&mut again).await, second);
}
