//! Permalink snapshots: insert once, read many, tombstone on removal.

use chrono::{DateTime, Utc};
use sqlx::{FromRow, PgExecutor};

use crate::storage::ids::{PermalinkId, RunId, UploadId};

#[derive(Debug, Clone, FromRow)]
pub struct Snapshot {
    pub id: PermalinkId,
    pub slug: String,
    pub title: String,
    pub body_html: String,
    pub body_txt: String,
    /// The whole text; `None` for permalinks made before replies were short.
    pub body_full_txt: Option<String>,
    pub body_json: String,
    pub body_svg: Option<String>,
    pub token_id: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub removed_at: Option<DateTime<Utc>>,
}

pub struct NewSnapshot<'a> {
    pub slug: &'a str,
    pub title: &'a str,
    pub spec: &'a serde_json::Value,
    pub run_ids: &'a [RunId],
    pub comparison: &'a serde_json::Value,
    pub body_html: &'a str,
    pub body_txt: &'a str,
    pub body_full_txt: &'a str,
    pub body_json: &'a str,
    pub body_svg: Option<&'a str>,
    pub token_id: Option<i64>,
    pub message_id: Option<&'a str>,
}

/// Insert; `false` when the slug is taken (the caller draws another).
pub async fn insert(db: impl PgExecutor<'_>, s: &NewSnapshot<'_>) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO snapshots (slug, title, spec, run_ids, comparison, body_html, body_txt, body_json,
                                body_svg, token_id, message_id, body_full_txt)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (slug) DO NOTHING",
    )
    .bind(s.slug)
    .bind(s.title)
    .bind(s.spec)
    .bind(s.run_ids)
    .bind(s.comparison)
    .bind(s.body_html)
    .bind(s.body_txt)
    .bind(s.body_json)
    .bind(s.body_svg)
    .bind(s.token_id)
    .bind(s.message_id)
    .bind(s.body_full_txt)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub async fn get(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<Option<Snapshot>> {
    sqlx::query_as(
        "SELECT id, slug, title, body_html, body_txt, body_full_txt, body_json, body_svg, token_id,
                created_at, removed_at
         FROM snapshots WHERE slug = $1",
    )
    .bind(slug)
    .fetch_optional(db)
    .await
}

/// The newest live permalink frozen from exactly this request, if any (a
/// request that names its runs by id names the same runs).
pub async fn find_same(
    db: impl PgExecutor<'_>,
    spec: &serde_json::Value,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar(
        "SELECT slug FROM snapshots
         WHERE spec = $1 AND removed_at IS NULL
         ORDER BY id DESC LIMIT 1",
    )
    .bind(spec)
    .fetch_optional(db)
    .await
}

/// Tombstone a snapshot: its bodies are erased, the slug stays taken.
pub async fn remove(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE snapshots SET removed_at = now(), body_html = '', body_txt = '', body_full_txt = NULL, body_json = '', body_svg = NULL
         WHERE slug = $1 AND removed_at IS NULL",
    )
    .bind(slug)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Soft-delete an upload and its runs. Returns the owning token id, or
/// `None` when there is no such upload.
pub async fn upload_owner(
    db: impl PgExecutor<'_>,
    upload_id: UploadId,
) -> sqlx::Result<Option<Option<i64>>> {
    sqlx::query_scalar("SELECT token_id FROM uploads WHERE id = $1 AND deleted_at IS NULL")
        .bind(upload_id)
        .fetch_optional(db)
        .await
}

pub async fn delete_upload(
    conn: &mut sqlx::PgConnection,
    upload_id: UploadId,
) -> sqlx::Result<u64> {
    sqlx::query("UPDATE uploads SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL")
        .bind(upload_id)
        .execute(&mut *conn)
        .await?;
    let ids: Vec<i64> = sqlx::query_scalar(
        "UPDATE runs SET deleted_at = now() WHERE upload_id = $1 AND deleted_at IS NULL RETURNING id",
    )
    .bind(upload_id)
    .fetch_all(&mut *conn)
    .await?;
    crate::storage::overview::rebuild_for_runs(conn, &ids).await?;
    Ok(ids.len() as u64)
}
