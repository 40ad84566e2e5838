//! `reclaimlab upload` over https: the router behind rustls with a
//! certificate made for this test, and the CLI binary as the client. The
//! CLI refuses the unknown certificate until `--ca-cert` names it.

mod common;

use std::process::Command;
use std::sync::Arc;

use reclaimlab::auth::Scope;
use sqlx::PgPool;
use tokio_rustls::rustls;

/// Serve the whole router over TLS on 127.0.0.1 with `cert`; answers
/// until the task is aborted. Handshakes the client breaks off (it did
/// not trust the certificate) end that connection only.
async fn serve_tls(
    state: reclaimlab::web::AppState,
    listener: tokio::net::TcpListener,
    cert: &rcgen::CertifiedKey<rcgen::KeyPair>,
) -> tokio::task::JoinHandle<()> {
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let app = reclaimlab::web::router(state);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _peer)) = listener.accept().await else {
                continue;
            };
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                )
                .serve_connection(
                    hyper_util::rt::TokioIo::new(tls),
                    hyper_util::service::TowerToHyperService::new(app),
                )
                .await;
            });
        }
    })
}

fn upload(server: String, token: String, extra: Vec<String>) -> std::process::Output {
    let file = format!(
        "{}/tests/fixtures/cyclictest-s4-before.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
        .args(["upload", &file, "--server", &server, "--token", &token])
        .args(["--board", "licheepi-4a", "--kernel", "6.5.0-rt6"])
        .args(extra)
        .env_remove("RECLAIMLAB_CA_CERT")
        .output()
        .unwrap()
}

#[sqlx::test]
async fn cli_upload_over_https_trusts_the_ca_it_is_given(pool: PgPool) {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("server.pem");
    std::fs::write(&ca, cert.cert.pem()).unwrap();
    let not_pem = dir.path().join("not.pem");
    std::fs::write(&not_pem, "no certificate in here\n").unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let base = format!("https://{addr}");
    let state = reclaimlab::web::AppState::new(pool.clone(), &base);
    let server = serve_tls(state, listener, &cert).await;
    let tok = common::token(&pool, Scope::Upload).await;
    let run = |extra: Vec<String>| {
        let (base, tok) = (base.clone(), tok.clone());
        tokio::task::spawn_blocking(move || upload(base, tok, extra))
    };

    // The certificate is signed by nobody the CLI knows: refused, and
    // the message says why.
    let refused = run(vec![]).await.unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        err.contains("cannot reach") && err.contains("certificate"),
        "{err}"
    );

    // A file that holds no certificate is an error of its own.
    let bad = run(vec!["--ca-cert".into(), not_pem.display().to_string()])
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(
        err.contains("--ca-cert") && err.contains("no PEM certificate"),
        "{err}"
    );

    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(runs, 0, "nothing was sent over the refused connections");

    // Trusted through --ca-cert: stored, and the links it prints are https.
    let out = run(vec!["--ca-cert".into(), ca.display().to_string()])
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id: i64 = sqlx::query_scalar("SELECT id FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(stdout.contains(&format!("{base}/runs/{id}")), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("created"));
    server.abort();
}
