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

/// `reclaimlab parse FILE`: the document as pretty JSON on stdout. The
/// input is read in chunks through the same streaming parser the service
/// uses, so memory does not grow with the file. A reader that goes away
/// (`| head`) ends the command quietly.
pub fn parse(a: ParseArgs) -> anyhow::Result<()> {
    use std::io::{BufReader, Write};
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned());
    let limits = reclaimlab_formats::Limits::default();
    let doc = if a.file.as_os_str() == "-" {
        let stdin = std::io::stdin().lock();
        reclaimlab_formats::parse_reader(BufReader::with_capacity(1 << 17, stdin), None, &limits)
    } else {
        let f = std::fs::File::open(&a.file)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", a.file.display()))?;
        reclaimlab_formats::parse_reader(
            BufReader::with_capacity(1 << 17, f),
            name.as_deref(),
            &limits,
        )
    }
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, &doc)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            // The reader has what it wanted; the rest is not an error.
            drop(out);
            Ok(())
        }
        r => r.map_err(Into::into),
    }
}
