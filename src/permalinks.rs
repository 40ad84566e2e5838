//! Permalinks: freeze a comparison into stored bytes under a fresh slug.
//! One path for the API (`POST /api/v1/comparisons`), the compare page's
//! Share button and the import form. The HTML rendering is handed in by
//! the caller, so this module knows nothing of the web layer.

use reclaimlab_report::compare::Comparison;
use sqlx::PgPool;

use crate::compare::{self, CompareRequest};
use crate::error::AppError;

/// What a permalink's HTML page is rendered from.
pub struct Frozen<'a> {
    pub comparison: &'a Comparison,
    pub slug: &'a str,
    pub url: &'a str,
    /// When it was made, as shown ("2026-01-31 12:00 UTC").
    pub created: String,
    pub has_svg: bool,
    /// The reply text (`/c/{slug}.txt`).
    pub text: &'a str,
    pub message_id: Option<&'a str>,
}

const SLUG_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// 12 characters from the OS CSPRNG: about 71 bits.
pub fn new_slug() -> String {
    use rand::TryRng;
    let mut bytes = [0u8; 12];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .expect("OS random number generator");
    bytes
        .iter()
        .map(|b| SLUG_CHARS[(*b as usize) % SLUG_CHARS.len()] as char)
        .collect()
}

/// Freeze a comparison: render every form once and store the bytes under
/// a fresh slug (drawn again, at most five times, if it is taken). Links
/// in the renderings start with `public_url`; `html` renders the page.
pub async fn create(
    pool: &PgPool,
    public_url: &str,
    req: CompareRequest,
    token_id: Option<i64>,
    message_id: Option<&str>,
    html: fn(&Frozen<'_>) -> Result<String, AppError>,
) -> Result<String, AppError> {
    let resolved = compare::resolve(pool, req, compare::Detail::Full).await?;
    // A permalink of nothing would be a permanent claim about nothing.
    if let Some(i) = resolved
        .comparison
        .columns
        .iter()
        .position(|c| c.runs.is_empty())
    {
        return Err(AppError::Unprocessable {
            message: format!(
                "column {i} ({}) selects no runs: nothing to freeze",
                resolved.comparison.columns[i].label
            ),
            line: None,
        });
    }
    let c = &resolved.comparison;
    let created = chrono::Utc::now();
    let svg = compare::chart(c);
    let comparison_json = serde_json::to_value(c).map_err(|e| AppError::Internal(e.into()))?;
    let spec = serde_json::to_value(&resolved.request).map_err(|e| AppError::Internal(e.into()))?;
    for _ in 0..5 {
        let slug = new_slug();
        let url = format!("{public_url}/c/{slug}");
        let full_url = format!("{public_url}/c/{slug}.full.txt");
        let full_text = reclaimlab_report::text::render_text(c, &url);
        let text = reclaimlab_report::text::render_reply(c, &url, &full_url);
        let json = serde_json::to_string_pretty(&serde_json::json!({
            "slug": slug,
            "url": url,
            "created_at": created.to_rfc3339(),
            "request": spec,
            "run_ids": resolved.run_ids,
            "message_id": message_id,
            "comparison": comparison_json,
        }))
        .map_err(|e| AppError::Internal(e.into()))?;
        let html = html(&Frozen {
            comparison: c,
            slug: &slug,
            url: &url,
            created: created.format("%Y-%m-%d %H:%M UTC").to_string(),
            has_svg: svg.is_some(),
            text: &text,
            message_id,
        })?;
        let inserted = crate::storage::snapshots::insert(
            pool,
            &crate::storage::snapshots::NewSnapshot {
                slug: &slug,
                title: &c.title,
                spec: &spec,
                run_ids: &resolved.run_ids,
                comparison: &comparison_json,
                body_html: &html,
                body_txt: &text,
                body_full_txt: &full_text,
                body_json: &json,
                body_svg: svg.as_deref(),
                token_id,
                message_id,
            },
        )
        .await?;
        if inserted {
            return Ok(slug);
        }
    }
    Err(AppError::Internal(anyhow::anyhow!(
        "could not draw an unused permalink slug"
    )))
}
