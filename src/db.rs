//! Connection pool and migrations.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use crate::config::DbArgs;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A bounded pool with a short acquire timeout, so a dead database turns
/// into quick 503s rather than piled-up requests.
pub async fn connect(args: &DbArgs) -> anyhow::Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(args.db_max_connections)
        .acquire_timeout(Duration::from_secs(args.db_acquire_timeout_secs))
        .test_before_acquire(true)
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
