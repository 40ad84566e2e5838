//! A big function trace through the upload API: what is stored stays a few
//! MB, the culprit and the worst latency are right, the run page is small.

mod common;
// The generator the benchmarks use (bench/upload-big.sh through
// `gen_signal_inputs`), not a copy of it.
#[allow(dead_code)]
#[path = "../bench/gen/signal_inputs.rs"]
mod signal_inputs;

use std::time::Duration;

use common::*;
use reclaimlab::auth::Scope;
use signal_inputs::{IRQSOFF_CULPRIT, IRQSOFF_LATENCY_US, STALL_US};
use sqlx::PgPool;

/// An irqsoff report of about `bytes` bytes with one planted stall, and
/// the index of the event the stall follows (read from the text: the
/// event line marked `*`).
fn irqsoff_trace(bytes: u64) -> (String, u64) {
    let mut out = Vec::with_capacity(bytes as usize + 4096);
    signal_inputs::irqsoff(&mut out, bytes).unwrap();
    let text = String::from_utf8(out).unwrap();
    let stall = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .position(|l| l.contains("us*: "))
        .expect("one stall") as u64;
    (text, stall)
}

#[test]
fn the_generator_plants_one_stall_in_a_trace_the_parser_reads() {
    let (text, stall) = irqsoff_trace(200_000);
    let doc = reclaimlab_formats::parse(text.as_bytes(), None).expect("parses");
    let reclaimlab_formats::BlockBody::FtraceLatency(t) = &doc.blocks[0].body else {
        panic!("not a trace: {:?}", doc.blocks[0].kind());
    };
    assert_eq!(t.latency_us, IRQSOFF_LATENCY_US as f64);
    assert_eq!(t.culprit.as_deref(), Some(IRQSOFF_CULPRIT));
    let d = reclaimlab::ingest::trace_digest(t);
    assert_eq!(d.gaps[0].event, stall);
    assert_eq!(d.gaps[0].gap_us, STALL_US as f64);
    assert_eq!(d.gaps[0].function, IRQSOFF_CULPRIT);
    assert!((1..=reclaimlab::ingest::DIGEST_GAPS).contains(&d.gaps.len()));
    assert!(d.gaps.windows(2).all(|w| w[0].gap_us >= w[1].gap_us));
    assert_eq!(d.functions[0].name, IRQSOFF_CULPRIT);
    let events: u64 = d.functions.iter().map(|f| f.count).sum();
    // Every function-trace event is counted once; the `<stack trace>`
    // marker is an event without a function.
    assert_eq!(events, d.events_total - 1);
}

#[sqlx::test]
async fn a_50_mb_trace_is_stored_in_a_few_mb_and_its_run_page_is_small(pool: PgPool) {
    let mut st = state(&pool);
    st.request_timeout = Duration::from_secs(900);
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let (text, stall) = irqsoff_trace(50 << 20);
    assert!(text.len() >= 50 << 20);
    let sent_sha = reclaimlab::ingest::sha256(text.as_bytes());
    let sent_len = text.len() as i64;
    let r = upload(
        &app,
        Some(&tok),
        "board=rig-big&kernel=6.12.0-bench&variant=baseline",
        text,
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let j = r.json();
    let upload_id = j["upload_id"].as_i64().unwrap();
    let run_id = j["runs"][0]["id"].as_i64().unwrap();

    let run = get(&app, &format!("/api/v1/runs/{run_id}")).await;
    assert_eq!(run.status, 200);
    let run = run.json();
    assert_eq!(run["worst_us"], IRQSOFF_LATENCY_US as f64);
    assert_eq!(run["trace"]["culprit"], IRQSOFF_CULPRIT);
    assert_eq!(run["trace"]["latency_us"], IRQSOFF_LATENCY_US as f64);
    let digest = &run["block"]["digest"];
    assert_eq!(digest["gaps"][0]["event"], stall);
    assert_eq!(digest["gaps"][0]["gap_us"], STALL_US as f64);
    assert!(
        digest["events_total"].as_u64().unwrap() > 500_000,
        "{digest}"
    );

    // Everything stored as JSON for this upload: its outline and its block.
    let stored: i64 = sqlx::query_scalar(
        "SELECT (SELECT COALESCE(sum(pg_column_size(document)), 0) FROM uploads WHERE id = $1)
              + (SELECT COALESCE(sum(pg_column_size(block)), 0) FROM runs WHERE upload_id = $1)",
    )
    .bind(upload_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    eprintln!("stored JSON for the upload: {stored} bytes");
    // The raw bytes went through the spool and COPY whole, under their hash.
    let (blob_len, blob_size): (i64, i64) = sqlx::query_as(
        "SELECT length(b.content)::bigint, b.size FROM blobs b JOIN uploads u ON u.blob_sha256 = b.sha256 WHERE u.id = $1",
    )
    .bind(upload_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((blob_len, blob_size), (sent_len, sent_len));
    let stored_sha: Vec<u8> = sqlx::query_scalar(
        "SELECT sha256(b.content) FROM blobs b JOIN uploads u ON u.blob_sha256 = b.sha256 WHERE u.id = $1",
    )
    .bind(upload_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(stored_sha, sent_sha);
    assert!(stored < 4 << 20, "{stored} bytes of JSON stored");

    let page = get(&app, &format!("/runs/{run_id}")).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    eprintln!("run page: {} bytes", page.body.len());
    assert!(
        page.body.len() < 1 << 20,
        "run page is {} bytes",
        page.body.len()
    );
    assert!(html.contains(IRQSOFF_CULPRIT));
    assert!(html.contains("Longest gaps between events"));
    assert!(html.contains(&format!("{STALL_US}")), "the stall is shown");
    assert!(html.contains("shrink_lruvec"), "the stack is shown");
    // The per-function list pages when long; a page past the end shows the last.
    let last = get(&app, &format!("/runs/{run_id}?page=999")).await;
    assert_eq!(last.status, 200);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// The stored blob of an upload: its length and SHA-256, computed by the
/// database over what it holds.
async fn blob_of(pool: &PgPool, upload_id: i64) -> (i64, Vec<u8>) {
    sqlx::query_as(
        "SELECT length(b.content)::bigint, sha256(b.content) FROM blobs b
           JOIN uploads u ON u.blob_sha256 = b.sha256 WHERE u.id = $1",
    )
    .bind(upload_id)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test]
async fn gzip_and_multipart_bodies_stream_through_to_the_same_blob(pool: PgPool) {
    let mut st = state(&pool);
    st.request_timeout = Duration::from_secs(600);
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    // 12 MB: many decoded chunks, and more than a default body limit.
    let (text, _) = irqsoff_trace(12 << 20);
    let sha = reclaimlab::ingest::sha256(text.as_bytes());
    let r = send(
        &app,
        axum::http::Request::post("/api/v1/uploads?board=rig-gz")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-encoding", "gzip")
            .body(axum::body::Body::from(gzip(text.as_bytes())))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["runs"][0]["kind"], "ftrace_latency");
    let gz_id = r.json()["upload_id"].as_i64().unwrap();
    assert_eq!(
        blob_of(&pool, gz_id).await,
        (text.len() as i64, sha.clone())
    );

    // The same bytes as a multipart file part, other metadata: a new
    // upload, the same blob (content-addressed: no second copy).
    let boundary = "b0undary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"board\"\r\n\r\nrig-mp\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"irqsoff.txt\"\r\n\
         Content-Type: text/plain\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(text.as_bytes());
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let r = send(
        &app,
        axum::http::Request::post("/api/v1/uploads")
            .header("authorization", format!("Bearer {tok}"))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(axum::body::Body::from(body))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["runs"][0]["board"], "rig-mp");
    let mp_id = r.json()["upload_id"].as_i64().unwrap();
    assert_ne!(mp_id, gz_id);
    assert_eq!(blob_of(&pool, mp_id).await, (text.len() as i64, sha));
    let (blobs, uploads, _, _) = counts(&pool).await;
    assert_eq!((blobs, uploads), (1, 2));
}

#[sqlx::test]
async fn the_same_bytes_sent_at_once_are_stored_once(pool: PgPool) {
    let mut st = state(&pool);
    st.request_timeout = Duration::from_secs(600);
    let app = reclaimlab::web::router(st);
    let tok = token(&pool, Scope::Upload).await;
    let (text, _) = irqsoff_trace(8 << 20);
    let (a, b) = tokio::join!(
        upload(&app, Some(&tok), "board=rig-a", text.clone()),
        upload(&app, Some(&tok), "board=rig-b", text.clone()),
    );
    assert_eq!(
        (a.status, b.status),
        (201, 201),
        "{} {}",
        a.text(),
        b.text()
    );
    let (blobs, uploads, _, _) = counts(&pool).await;
    assert_eq!((blobs, uploads), (1, 2));
    // And again with the same metadata: a replay, nothing new.
    let again = upload(&app, Some(&tok), "board=rig-a", text.clone()).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["upload_id"], a.json()["upload_id"]);
    assert_eq!(counts(&pool).await.1, 2);
}

#[sqlx::test]
async fn a_body_cut_off_half_way_or_bad_late_stores_nothing(pool: PgPool) {
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let (text, _) = irqsoff_trace(6 << 20);
    // The client goes away after 4 MB of chunks.
    let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = text.as_bytes()[..4 << 20]
        .chunks(64 * 1024)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .chain([Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "client went away",
        ))])
        .collect();
    let r = upload(
        &app,
        Some(&tok),
        "board=rig-cut",
        axum::body::Body::from_stream(futures_util::stream::iter(chunks)),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("cannot read the request body"),
        "{}",
        r.text()
    );
    // gzip that breaks after megabytes of good text: 400 naming where.
    let mut gz = gzip(text.as_bytes());
    let cut = gz.len() * 3 / 4;
    gz.truncate(cut);
    gz.extend_from_slice(&[0xff; 64]);
    let r = send(
        &app,
        axum::http::Request::post("/api/v1/uploads?board=rig-torn")
            .header("authorization", format!("Bearer {tok}"))
            .header("content-encoding", "gzip")
            .body(axum::body::Body::from(gz))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("member 1 at byte 0"), "{msg}");
    // NUL bytes deep in a body: 415 at the chunk they are in.
    let mut binary = text.clone().into_bytes();
    binary[5 << 20] = 0;
    let r = upload(&app, Some(&tok), "board=rig-nul", binary).await;
    assert_eq!(r.status, 415, "{}", r.text());
    assert_eq!(counts(&pool).await, (0, 0, 0, 0));
}
