//! Subcommands other than argument parsing (which is `config`).

pub mod demo;
pub mod serve;
pub mod simulate;
pub mod token;
pub mod upload;

use std::io::Read;

use crate::config::{DbArgs, ParseArgs};

pub fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("RUST_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let json = std::env::var("RECLAIMLAB_LOG_FORMAT").is_ok_and(|v| v == "json");
    // Colours only for a person at a terminal: a log file gets plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let b = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    let _ = if json {
        b.json().try_init()
    } else {
        b.try_init()
    };
}

pub async fn migrate(a: DbArgs) -> anyhow::Result<()> {
    let pool = crate::db::connect(&a).await?;
    crate::db::migrate(&pool).await?;
    eprintln!("migrations applied");
    Ok(())
}

pub async fn rebuild_overview(a: DbArgs) -> anyhow::Result<()> {
    let pool = crate::db::connect(&a).await?;
    let mut tx = pool.begin().await?;
    crate::storage::overview::rebuild_all(&mut tx).await?;
    tx.commit().await?;
    eprintln!("overview aggregates rebuilt");
    Ok(())
}

/// Read a file, or stdin for `-`.
pub fn read_input(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
    }
}

pub fn parse(a: ParseArgs) -> anyhow::Result<()> {
    let bytes = read_input(&a.file)?;
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned());
    let doc =
        reclaimlab_formats::parse(&bytes, name.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(())
}
