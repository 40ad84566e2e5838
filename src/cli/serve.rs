//! `reclaimlab serve`: migrate, optionally load the demo, then serve until
//! SIGTERM or SIGINT, with a hard deadline on draining.

use std::time::Duration;

use crate::config::ServeArgs;
use crate::web::{self, AppState, Limits};

pub async fn run(a: ServeArgs) -> anyhow::Result<()> {
    let pool = crate::db::connect(&a.db).await?;
    crate::db::migrate(&pool).await?;
    // The parse limits first: the demo load parses through the same gate.
    let permits = match a.max_parses {
        0 => crate::ingest::default_parse_permits(),
        n => n,
    };
    let mut gate = crate::ingest::ParseGate::new(permits, Duration::from_secs(a.parse_wait_secs))
        .with_memory(a.parse_memory_mb, a.parse_memory_factor);
    gate.anonymous_per_minute = a.anonymous_parses_per_minute;
    gate.anonymous_max_bytes = a.anonymous_parse_bytes;
    let gate = std::sync::Arc::new(gate);
    if a.demo {
        let n = super::demo::load_with(&pool, &gate).await?;
        tracing::info!(uploads = n, "demo data loaded");
    }
    let listener = tokio::net::TcpListener::bind(a.bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", a.bind))?;
    let addr = listener.local_addr()?;
    let public = a
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let mut state = AppState::new(pool, &public);
    state.parse_gate = gate;
    state.limits = std::sync::Arc::new(Limits {
        max_upload_bytes: a.max_upload_bytes,
        max_decoded_bytes: a.max_decoded_bytes,
        ..Limits::default()
    });
    state.request_timeout = Duration::from_secs(a.request_timeout_secs);
    let (tx, rx) = tokio::sync::watch::channel(false);
    let jobs = a.job_config();
    state.jobs = std::sync::Arc::new(jobs.clone());
    let workers = crate::jobs::start(&state.pool, &jobs, a.sim_workers, rx.clone());
    println!("reclaimlab listening on {public}");
    let shutdown = async move {
        shutdown_signal().await;
        let _ = tx.send(true);
    };
    let opts = web::ServeOptions {
        header_read_timeout: Duration::from_secs(a.header_read_timeout_secs),
        idle_timeout: Duration::from_secs(a.idle_timeout_secs.max(1)),
        max_connection_age: Duration::from_secs(a.max_connection_age_secs.max(1)),
        max_connections: a.max_connections,
        ..web::ServeOptions::default()
    };
    let server = web::serve_opts(listener, state, opts, shutdown);
    server.await?;
    for w in workers {
        let _ = tokio::time::timeout(Duration::from_secs(10), w).await;
    }
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}
