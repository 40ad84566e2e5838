//! API tokens: stored as SHA-256 hashes only.

use chrono::{DateTime, Utc};
use sqlx::{FromRow, PgExecutor};

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct TokenRecord {
    pub id: i64,
    pub name: String,
    pub prefix: String,
    pub scope: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
}

pub async fn create(
    db: impl PgExecutor<'_>,
    name: &str,
    scope: &str,
    hash: &[u8],
    prefix: &str,
    expires_at: Option<DateTime<Utc>>,
) -> sqlx::Result<TokenRecord> {
    sqlx::query_as(
        "INSERT INTO tokens (name, scope, hash, prefix, expires_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING id, name, prefix, scope, created_at, expires_at, revoked_at, last_used_at",
    )
    .bind(name)
    .bind(scope)
    .bind(hash)
    .bind(prefix)
    .bind(expires_at)
    .fetch_one(db)
    .await
}

/// The token with this hash, if it is neither revoked nor expired. Marks it used.
pub async fn find_active(
    db: impl PgExecutor<'_>,
    hash: &[u8],
) -> sqlx::Result<Option<TokenRecord>> {
    sqlx::query_as(
        "UPDATE tokens SET last_used_at = now()
         WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
         RETURNING id, name, prefix, scope, created_at, expires_at, revoked_at, last_used_at",
    )
    .bind(hash)
    .fetch_optional(db)
    .await
}

/// Revoke by id, exact name or prefix. Returns how many were revoked.
pub async fn revoke(db: impl PgExecutor<'_>, which: &str) -> sqlx::Result<u64> {
    let id: Option<i64> = which.parse().ok();
    let r = sqlx::query(
        "UPDATE tokens SET revoked_at = now()
         WHERE revoked_at IS NULL AND (id = $1 OR name = $2 OR prefix = $2)",
    )
    .bind(id)
    .bind(which)
    .execute(db)
    .await?;
    Ok(r.rows_affected())
}

pub async fn list(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<TokenRecord>> {
    sqlx::query_as(
        "SELECT id, name, prefix, scope, created_at, expires_at, revoked_at, last_used_at
         FROM tokens ORDER BY id",
    )
    .fetch_all(db)
    .await
}
