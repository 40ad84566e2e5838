//! End to end over a real socket: the server bound to port 0 in-process,
//! the `reclaimlab upload` binary as the client, and `reclaimlab token`.

mod common;

use std::process::Command;

use reclaimlab::auth::Scope;
use sqlx::PgPool;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
}

#[sqlx::test]
async fn cli_upload_over_a_real_socket(pool: PgPool) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = reclaimlab::web::AppState::new(pool.clone(), &format!("http://{addr}"));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(reclaimlab::web::serve(listener, state, async {
        let _ = rx.await;
    }));
    let tok = common::token(&pool, Scope::Upload).await;
    let file = format!(
        "{}/tests/fixtures/cyclictest-s4-before.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |token: String, file: String| {
        let server = format!("http://{addr}");
        tokio::task::spawn_blocking(move || {
            bin()
                .args(["upload", &file, "--server", &server, "--token", &token])
                .args([
                    "--board",
                    "licheepi-4a",
                    "--kernel",
                    "6.5.0-rt6",
                    "--variant",
                    "baseline",
                ])
                .output()
                .unwrap()
        })
    };
    let out = run(tok.clone(), file.clone()).await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("http://{addr}/runs/")), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("created"));

    let again = run(tok.clone(), file.clone()).await.unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already stored"));
    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(runs, 1);

    let denied = run("rl_upload_nope".into(), file).await.unwrap();
    assert!(!denied.status.success());
    assert!(String::from_utf8_lossy(&denied.stderr).contains("401"));

    // The page is served over the socket too.
    let id: i64 = sqlx::query_scalar("SELECT id FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    let page = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET /runs/{id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut buf = String::new();
        s.read_to_string(&mut buf).unwrap();
        buf
    })
    .await
    .unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("53381"));
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[sqlx::test]
async fn token_cli_creates_lists_and_revokes(pool: PgPool) {
    let opts = pool.connect_options();
    let url = format!(
        "postgres://{}@{}:{}/{}",
        opts.get_username(),
        opts.get_host(),
        opts.get_port(),
        opts.get_database().unwrap()
    );
    let cmd = move |args: &[&str]| {
        let out = bin().args(args).env("DATABASE_URL", &url).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let cmd2 = cmd.clone();
    let (ok, secret, err) =
        tokio::task::spawn_blocking(move || cmd(&["token", "create", "--name", "rig-1"]))
            .await
            .unwrap();
    assert!(ok, "{err}");
    let secret = secret.trim().to_string();
    assert!(
        secret.starts_with("rl_upload_") && secret.len() == 10 + 64,
        "{secret}"
    );
    // Only the hash is stored.
    let stored: Vec<u8> = sqlx::query_scalar("SELECT hash FROM tokens WHERE name = 'rig-1'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, reclaimlab::auth::hash_token(&secret));
    let leaked: i64 =
        sqlx::query_scalar("SELECT count(*) FROM tokens WHERE prefix = $1 OR name = $1")
            .bind(&secret)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(leaked, 0);
    let (ok, list, _) = tokio::task::spawn_blocking({
        let c = cmd2.clone();
        move || c(&["token", "list"])
    })
    .await
    .unwrap();
    assert!(ok);
    assert!(list.contains("rig-1") && list.contains("active") && !list.contains(&secret));
    let (ok, _, err) = tokio::task::spawn_blocking({
        let c = cmd2.clone();
        move || c(&["token", "revoke", "rig-1"])
    })
    .await
    .unwrap();
    assert!(ok, "{err}");
    let found =
        reclaimlab::storage::tokens::find_active(&pool, &reclaimlab::auth::hash_token(&secret))
            .await
            .unwrap();
    assert!(found.is_none(), "revoked token is refused at once");
    let (ok, _, err) = tokio::task::spawn_blocking(move || {
        cmd2(&["token", "create", "--name", "x", "--scope", "root"])
    })
    .await
    .unwrap();
    assert!(!ok && err.contains("--scope"));
}

#[sqlx::test]
async fn slow_headers_are_cut_off(pool: PgPool) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = reclaimlab::web::AppState::new(pool.clone(), &format!("http://{addr}"));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(reclaimlab::web::serve_with(
        listener,
        state,
        std::time::Duration::from_millis(300),
        async {
            let _ = rx.await;
        },
    ));
    let (closed, fast) = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1200));
        s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut buf = Vec::new();
        let closed =
            s.read_to_end(&mut buf).is_ok() && !String::from_utf8_lossy(&buf).contains("200 OK");
        // A client that sends its headers in time is served.
        let mut f = std::net::TcpStream::connect(addr).unwrap();
        f.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut out = String::new();
        f.read_to_string(&mut out).unwrap();
        (closed, out)
    })
    .await
    .unwrap();
    assert!(closed, "slow client was not disconnected");
    assert!(fast.starts_with("HTTP/1.1 200"), "{fast}");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
