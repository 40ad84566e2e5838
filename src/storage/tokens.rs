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

/// How stale `last_used_at` may get before a use writes it again.
pub const LAST_USED_GRANULARITY_SECS: i64 = 60;

/// The token with this hash, if it is neither revoked nor expired. Marks it
/// used, to the minute: the row is written only when its `last_used_at` is
/// older than [`LAST_USED_GRANULARITY_SECS`], so rigs sharing a token do not
/// each write (and lock, and commit) the same row on every upload.
pub async fn find_active(
    db: impl PgExecutor<'_>,
    hash: &[u8],
) -> sqlx::Result<Option<TokenRecord>> {
    sqlx::query_as(
        "WITH t AS (
             SELECT id, name, prefix, scope, created_at, expires_at, revoked_at, last_used_at
             FROM tokens
             WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())),
         u AS (
             UPDATE tokens SET last_used_at = now() FROM t
             WHERE tokens.id = t.id
               AND (t.last_used_at IS NULL OR t.last_used_at < now() - make_interval(secs => $2))
             RETURNING tokens.id, tokens.last_used_at)
         SELECT t.id, t.name, t.prefix, t.scope, t.created_at, t.expires_at, t.revoked_at,
                coalesce(u.last_used_at, t.last_used_at) AS last_used_at
         FROM t LEFT JOIN u ON u.id = t.id",
    )
    .bind(hash)
    .bind(LAST_USED_GRANULARITY_SECS as f64)
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
