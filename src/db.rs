//! Connection pool and migrations.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use crate::config::DbArgs;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A bounded pool with a short acquire timeout, so a dead database turns
/// into quick 503s rather than piled-up requests.
///
/// Every connection is checked before it is handed out, with one round
/// trip (the one a plain ping would cost): it must answer, and it must not
/// be inside a transaction. A request cancelled (timed out, or its client
/// gone) while its `BEGIN` was in flight leaves the session inside a
/// transaction that sqlx 0.9 does not know about and returns it to the
/// pool; the next borrower's `BEGIN` then fails ("unexpected connection
/// status") and its statements would run inside the stale transaction.
/// Such a connection is closed instead. Outside a transaction block a
/// simple query is its own transaction, so both start at the same time.
pub async fn connect(args: &DbArgs) -> anyhow::Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(args.db_max_connections)
        .acquire_timeout(Duration::from_secs(args.db_acquire_timeout_secs))
        .test_before_acquire(false)
        .before_acquire(|conn, _meta| {
            Box::pin(async move {
                use sqlx::Row;
                // The simple query protocol: one message, so the statement
                // and an implicit transaction start at the same instant (a
                // prepared statement's Bind would restart the statement).
                let idle: bool =
                    sqlx::raw_sql("SELECT transaction_timestamp() = statement_timestamp()")
                        .fetch_one(&mut *conn)
                        .await?
                        .try_get(0)?;
                if !idle {
                    tracing::warn!("a pooled connection was inside a transaction: closed");
                }
                Ok(idle)
            })
        })
        .connect(&args.database_url)
        .await
        .map_err(|e| anyhow::anyhow!("cannot connect to the database: {e}"))?;
    Ok(pool)
}

pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR
        .run(pool)
        .await
        .map_err(|e| anyhow::anyhow!("migrations failed: {e}"))
}
