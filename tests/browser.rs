//! Pages in a real headless Chromium (Debian's `chromium`): each key page
//! renders with its key numbers, without console errors (CSP violations
//! included), and leaves a screenshot in target/screenshots/ to look at.
//! Skipped, saying so, when no chromium is installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use reclaimlab::auth::Scope;
use sqlx::PgPool;

fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

struct Visit {
    dom: String,
    console_errors: Vec<String>,
}

fn visit(bin: &Path, url: &str, shot: &Path) -> Visit {
    let profile = tempfile::tempdir().unwrap();
    let base = |cmd: &mut Command| {
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,1800",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()));
    };
    let mut dump = Command::new(bin);
    base(&mut dump);
    let out = dump
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("run chromium");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console_errors = stderr
        .lines()
        .filter(|l| {
            l.contains("CONSOLE")
                || l.contains("Content Security Policy")
                || l.contains("Refused to")
        })
        .map(str::to_string)
        .collect();
    let mut snap = Command::new(bin);
    base(&mut snap);
    let s = snap
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(s.status.success(), "screenshot of {url} failed");
    Visit {
        dom: String::from_utf8_lossy(&out.stdout).into_owned(),
        console_errors,
    }
}

#[sqlx::test]
async fn key_pages_render_in_chromium(pool: PgPool) {
    let Some(bin) = chromium() else {
        eprintln!("chromium not installed: page checks skipped (scripts/test.sh installs it)");
        return;
    };
    reclaimlab::cli::demo::load(&pool).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let base = format!("http://{addr}");
    let state = reclaimlab::web::AppState::new(pool.clone(), &base);
    let app = reclaimlab::web::router(state.clone());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(reclaimlab::web::serve(listener, state, async {
        let _ = rx.await;
    }));
    // A permalink to look at.
    let tok = token(&pool, Scope::Upload).await;
    let created = post_comparison(
        &app,
        &tok,
        serde_json::json!({"columns": [
                    {"label": "vanilla", "variant": "vanilla", "board": "LicheePi 4A"},
                    {"label": "madvise-resched-v1", "variant": "madvise-resched-v1"}]}),
    )
    .await;
    let slug = created.json()["slug"].as_str().unwrap().to_string();
    // A finished simulation and its job page.
    let mut st = reclaimlab::web::AppState::new(pool.clone(), &base);
    st.jobs = std::sync::Arc::new(reclaimlab::jobs::JobConfig {
        exe: env!("CARGO_BIN_EXE_reclaimlab").into(),
        poll: std::time::Duration::from_millis(100),
        ..reclaimlab::jobs::JobConfig::default()
    });
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let workers = reclaimlab::jobs::start(&pool, &st.jobs, 1, stop);
    let sim = reclaimlab::simulate::submit(
        &st,
        serde_json::from_value(
            serde_json::json!({"scenario": "toy-lock", "duration": "1s", "replications": 1}),
        )
        .unwrap(),
        None,
    )
    .await
    .unwrap();
    let sim_id = sim.ids[0];
    let start = std::time::Instant::now();
    loop {
        let s: String = sqlx::query_scalar("SELECT state FROM simulations WHERE id = $1")
            .bind(sim_id)
            .fetch_one(&pool)
            .await
            .unwrap();
        if s == "done" {
            break;
        }
        assert!(
            s != "failed" && start.elapsed().as_secs() < 120,
            "simulation {s}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
    let cyclictest_run: i64 =
        sqlx::query_scalar("SELECT run_id FROM latency_threads WHERE max_us = 53381")
            .fetch_one(&pool)
            .await
            .unwrap();
    let pages: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "home",
            "/".into(),
            vec!["<h1>Runs</h1>", "name=\"tool\"", "77766"],
        ),
        (
            "run-cyclictest",
            format!("/runs/{cyclictest_run}"),
            vec!["53381", "52606", "i7-4790"],
        ),
        (
            "compare-chain",
            "/compare?chain=directcongest-v1".into(),
            vec!["260.53", "directcongest-v1", "+25.93%"],
        ),
        (
            "permalink",
            format!("/c/{slug}"),
            vec!["1969", "879", "free_unref_page_list"],
        ),
        (
            "heatmap",
            "/heatmap".into(),
            vec!["i7-4790", "4449", "isolate-writeback-cap-v1"],
        ),
        (
            "heatmap-wakeup_rt",
            "/heatmap?kind=wakeup_rt".into(),
            vec!["LicheePi 4A", "879", "madvise-resched-v1"],
        ),
        ("culprits", "/culprits".into(), vec!["isolate_lru_folios"]),
        ("import", "/import".into(), vec!["Import a mail"]),
        (
            "simulations",
            "/simulations".into(),
            vec![
                "v4-isolate-irq-holdoff",
                "x86-desktop",
                "Recent simulations",
            ],
        ),
        (
            "simulation-job",
            format!("/simulations/{sim_id}"),
            vec!["done", "T: 0", "toy-lock/base", "Compare these variants"],
        ),
    ];
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, path, needles) in pages {
        let url = format!("{base}{path}");
        let shot = dir.join(format!("{name}.png"));
        let bin = bin.clone();
        let v = tokio::task::spawn_blocking(move || visit(&bin, &url, &shot))
            .await
            .unwrap();
        for n in needles {
            assert!(v.dom.contains(n), "{name}: rendered page lacks {n}");
        }
        assert!(
            v.console_errors.is_empty(),
            "{name}: console errors: {:?}",
            v.console_errors
        );
        let png = std::fs::metadata(dir.join(format!("{name}.png")))
            .unwrap()
            .len();
        assert!(
            png > 10_000,
            "{name}: screenshot is suspiciously small ({png} bytes)"
        );
    }
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
