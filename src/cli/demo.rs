//! `reclaimlab demo`: load the demo data (demo/manifest.toml) through the
//! normal ingest path. Idempotent: a second load stores nothing new.

use std::path::{Path, PathBuf};

use sqlx::PgPool;

use crate::config::DbArgs;
use crate::ingest::{self, RawUpload, UploadMeta};

#[derive(Debug, serde::Deserialize)]
struct Manifest {
    upload: Vec<DemoUpload>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoUpload {
    file: String,
    board: Option<String>,
    kernel: Option<String>,
    variant: Option<String>,
    parent: Option<String>,
    message_id: Option<String>,
    tool_args: Option<String>,
}

pub fn demo_dir() -> PathBuf {
    std::env::var_os("RECLAIMLAB_DEMO_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"))
}

pub async fn run(a: DbArgs) -> anyhow::Result<()> {
    let pool = crate::db::connect(&a).await?;
    crate::db::migrate(&pool).await?;
    let n = load(&pool).await?;
    println!("demo data: {n} uploads present");
    Ok(())
}

/// Load every demo upload; returns how many are stored. A file that fails
/// to parse is reported and skipped so the rest still loads.
pub async fn load(pool: &PgPool) -> anyhow::Result<usize> {
    load_with(pool, &ingest::ParseGate::default()).await
}

/// [`load`] through the service's parse gate.
pub async fn load_with(pool: &PgPool, gate: &ingest::ParseGate) -> anyhow::Result<usize> {
    let dir = demo_dir();
    let text = std::fs::read_to_string(dir.join("manifest.toml"))
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.join("manifest.toml").display()))?;
    let manifest: Manifest = toml::from_str(&text)?;
    let mut ok = 0;
    for u in manifest.upload {
        let content = std::fs::read(dir.join(&u.file))
            .map_err(|e| anyhow::anyhow!("cannot read demo file {}: {e}", u.file))?;
        let meta = UploadMeta {
            board: u.board,
            kernel: u.kernel,
            variant: u.variant,
            parent: u.parent,
            message_id: u.message_id,
            tool_args: u.tool_args,
            filename: Some(u.file.clone()),
            ..UploadMeta::default()
        };
        match ingest::ingest(
            pool,
            gate,
            RawUpload {
                content: content.into(),
                content_type: Some("text/plain".into()),
                meta,
                idempotency_key: None,
                token_id: None,
            },
        )
        .await
        {
            Ok((stored, _)) => {
                ok += 1;
                tracing::debug!(file = %u.file, upload = stored.upload_id.0, created = stored.created, "demo upload");
            }
            Err(e) => tracing::warn!(file = %u.file, error = %e, "demo file not loaded"),
        }
    }
    Ok(ok)
}
