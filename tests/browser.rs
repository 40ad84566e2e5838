//! Pages in a real headless Chromium (Debian's `chromium`): each key page
//! renders with its key numbers at 1400 and 800 px wide, without console
//! errors (CSP violations included), and leaves a screenshot per width in
//! target/screenshots/ to look at. Skipped, saying so, when no chromium is
//! installed, except in CI (`CI=true`), where a missing chromium fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::pages;
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

fn visit(bin: &Path, url: &str, shot: &Path, width: u32) -> Visit {
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
            "--force-device-scale-factor=1",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--window-size={width},1400"))
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

/// An 8-bit RGB or RGBA PNG (what Chromium writes) as rows of RGB pixels.
fn decode_png(bytes: &[u8]) -> Vec<Vec<[u8; 3]>> {
    use std::io::Read;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut width, mut height, mut channels) = (0usize, 0usize, 0usize);
    let mut idat = Vec::new();
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    c => panic!("colour type {c}"),
                };
                assert_eq!(data[12], 0, "interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width * channels;
    let mut prev = vec![0u8; stride];
    let mut rows = Vec::with_capacity(height);
    for y in 0..height {
        let line = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let mut cur = line[1..].to_vec();
        for i in 0..stride {
            let a = if i >= channels {
                cur[i - channels] as i16
            } else {
                0
            };
            let b = prev[i] as i16;
            let c = if i >= channels {
                prev[i - channels] as i16
            } else {
                0
            };
            let add = match line[0] {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            cur[i] = cur[i].wrapping_add(add as u8);
        }
        rows.push(
            cur.chunks(channels)
                .map(|p| [p[0], p[1], p[2]])
                .collect::<Vec<_>>(),
        );
        prev = cur;
    }
    rows
}

/// Rows of the screenshot in which something other than the page's
/// backgrounds (white, the header's #f6f8fa) comes within 6 px of the
/// right edge, into the page's margin (tables are not put in scroll
/// boxes, so one too wide for the window runs into the margin and past
/// the edge, and shows there). The site header's and
/// footer's full-width rules are the only lines allowed to.
fn rows_touching_right_edge(png: &Path) -> usize {
    let rows = decode_png(&std::fs::read(png).unwrap());
    rows.iter()
        .filter(|r| {
            r[r.len().saturating_sub(6)..]
                .iter()
                .any(|p| *p != [255, 255, 255] && *p != [0xf6, 0xf8, 0xfa])
        })
        .count()
}

#[sqlx::test]
async fn key_pages_render_in_chromium(pool: PgPool) {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but chromium is not installed: install it (apt-get install chromium)"
        );
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
        &st.pool,
        &st.jobs,
        serde_json::from_value(
            serde_json::json!({"scenario": "toy-lock", "duration": "1s", "replications": 1}),
        )
        .unwrap(),
        None,
    )
    .await
    .unwrap();
    let sim_id = sim.ids[0].0;
    assert_eq!(
        wait_state(&pool, sim_id, &["done", "failed"], 120).await,
        "done"
    );
    let _ = stop_tx.send(true);
    for w in workers {
        w.await.unwrap();
    }
    // A sweep, queued after the worker stopped: its page lists its jobs.
    reclaimlab::simulate::submit(
        &st.pool,
        &st.jobs,
        serde_json::from_value(serde_json::json!({"scenario": "v4-isolate-irq-holdoff",
            "duration": "1s", "variants": ["isolate-time-cap"],
            "sweep": {"variant": "isolate-time-cap", "knob": "isolate_time_cap_us",
                      "values": [10, 20]}}))
        .unwrap(),
        None,
    )
    .await
    .unwrap();
    let cyclictest_run: i64 =
        sqlx::query_scalar("SELECT run_id FROM latency_threads WHERE max_us = 53381")
            .fetch_one(&pool)
            .await
            .unwrap();
    // Every page route the crawl reaches is rendered; the list below adds
    // the numbers each key page must show, and more than one address for
    // some routes (filters, tracers).
    let crawl = pages::crawl(&app, &base).await;
    let named: Vec<(&str, String, Vec<&str>)> = vec![
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
            "home-filtered",
            "/?board=i7-4790&tool=cyclictest".into(),
            vec!["selected=\"\">i7-4790</option>", "4449", "67469"],
        ),
        (
            "board",
            "/boards/LicheePi%204A".into(),
            vec!["Board <span class=\"mono\">LicheePi 4A</span>", "History", "1969"],
        ),
        (
            "kernel",
            "/kernels/6.12.0-rc5".into(),
            vec!["Kernel <span class=\"mono\">6.12.0-rc5</span>", "i7-4790"],
        ),
        ("boards", "/boards".into(), vec!["LicheePi 4A", "i7-4790"]),
        ("kernels", "/kernels".into(), vec!["6.12.0-rc5"]),
        (
            "variant",
            "/variants/directcongest-v1".into(),
            vec!["Variant directcongest-v1", "Compare the whole chain"],
        ),
        (
            "compare-index",
            "/compare".into(),
            vec!["Recent permalinks", "Patch chains"],
        ),
        (
            "history",
            "/history?board=i7-4790".into(),
            vec!["i7-4790"],
        ),
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
            vec!["done", "T: 0", "toy-lock/base", "Compare these variants", "no validation"],
        ),
        (
            "simulations-sweep-example",
            "/simulations?scenario=v4-isolate-irq-holdoff&sweep_variant=isolate-time-cap&sweep_knob=isolate_time_cap_us&sweep_values=300%2C+1000%2C+3000%2C+10000".into(),
            vec!["Examples", "value=\"isolate_time_cap_us\"", "4 jobs queued or running"],
        ),
    ];
    let mut pages: Vec<(String, String, Vec<&str>)> = named
        .into_iter()
        .map(|(n, p, v)| (n.to_string(), p, v))
        .collect();
    for (route, url) in &crawl.reached {
        if !pages.iter().any(|(_, p, _)| pages::fits(route, p)) {
            let name = route
                .trim_matches('/')
                .replace(['{', '}'], "")
                .replace('/', "-");
            pages.push((name, url.clone(), vec!["</h1>"]));
        }
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    for ((name, path, needles), width) in pages
        .iter()
        .flat_map(|p| [(p.clone(), 1400u32), (p.clone(), 800u32)])
    {
        let url = format!("{base}{path}");
        let name = format!("{name}-{width}");
        let shot = dir.join(format!("{name}.png"));
        let bin = bin.clone();
        let v = tokio::task::spawn_blocking(move || visit(&bin, &url, &shot, width))
            .await
            .unwrap();
        for n in &needles {
            assert!(v.dom.contains(n), "{name}: rendered page lacks {n}");
        }
        assert!(
            v.console_errors.is_empty(),
            "{name}: console errors: {:?}",
            v.console_errors
        );
        if width == 800 {
            let touching = rows_touching_right_edge(&dir.join(format!("{name}.png")));
            assert!(
                touching <= 3,
                "{name}: {touching} pixel rows reach the right edge at 800 px: cut off"
            );
        }
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
