//! `reclaimlab parse FILE` and `POST /api/v1/uploads` agree on every file
//! of the formats crate's corpora: the same format, the same blocks (kind,
//! lines, label, hints, duplicates), the same warnings, and every stored
//! run holds the block the command prints, with the same values in its
//! typed rows (threads, metrics).
//!
//! The corpus directories are found by walking `crates/formats/tests/real`
//! and `crates/formats/tests/pastes` for `manifest.toml`; every other file
//! of such a directory (samples and the tool JSON they were checked
//! against) is one case. One database, one router, all files.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use reclaimlab::auth::Scope;
use serde_json::Value;
use sqlx::PgPool;

/// Relative difference two printed numbers may have after a trip through
/// `jsonb` (which keeps decimals, not binary floats).
const NUMBER_TOLERANCE: f64 = 1e-12;

fn corpus_roots() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/tests");
    vec![base.join("real"), base.join("pastes")]
}

/// Every file next to a `manifest.toml` below `roots`, sorted.
fn corpus_files(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let mut here = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                here.push(path);
            }
        }
        if dir.join("manifest.toml").is_file() {
            files.extend(here.into_iter().filter(|p| !p.ends_with("manifest.toml")));
        }
    }
    files.sort();
    files
}

fn same_number(a: f64, b: f64) -> bool {
    a == b || ((a - b) / a.abs().max(b.abs())).abs() <= NUMBER_TOLERANCE
}

/// Where `a` and `b` differ (first difference), numbers compared as
/// numbers.
fn diff(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64()?, y.as_f64()?);
            (!same_number(x, y)).then(|| format!("{at}: {x} != {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: {} elements != {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| diff(p, q, &format!("{at}[{i}]")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => diff(p, q, &format!("{at}.{k}")),
                (p, q) => Some(format!(
                    "{at}.{k}: {} != {}",
                    p.map_or("absent".into(), Value::to_string),
                    q.map_or("absent".into(), Value::to_string)
                )),
            })
        }
        _ => (a != b).then(|| format!("{at}: {a} != {b}")),
    }
}

/// Every number in `v`.
fn numbers(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Number(n) => out.extend(n.as_f64()),
        Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
        Value::Object(o) => o.values().for_each(|x| numbers(x, out)),
        _ => {}
    }
}

/// What `reclaimlab parse FILE` gives: the document, or the error it prints.
fn cli_parse(file: &Path) -> Result<Value, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_reclaimlab"))
        .arg("parse")
        .arg(file)
        .output()
        .expect("run reclaimlab parse");
    if out.status.success() {
        serde_json::from_slice(&out.stdout).map_err(|e| format!("parse printed no JSON: {e}"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The thread rows the run API gives, against the block's threads.
fn check_threads(block: &Value, run: &Value) -> Result<(), String> {
    let want = block["threads"].as_array().cloned().unwrap_or_default();
    let got = run["threads"].as_array().cloned().unwrap_or_default();
    if want.len() != got.len() {
        return Err(format!(
            "{} thread rows for {} threads",
            got.len(),
            want.len()
        ));
    }
    for (w, g) in want.iter().zip(&got) {
        for k in [
            "thread",
            "tid",
            "priority",
            "interval_us",
            "cycles",
            "min_us",
            "avg_us",
            "max_us",
        ] {
            let (a, b) = (&w[k], &g[k]);
            let same = match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => same_number(x, y),
                _ => a.is_null() == b.is_null(),
            };
            if !same {
                return Err(format!("thread {}: {k} {a} stored as {b}", w["thread"]));
            }
        }
    }
    Ok(())
}

/// Every metric row of the run holds a value the block prints (or, for
/// kinds whose rows are derived, such as a distribution's percentiles, at
/// least as many rows as the block has values to derive them from).
fn check_metrics(kind: &str, block: &Value, run: &Value) -> Result<(), String> {
    let rows = run["metrics"].as_array().cloned().unwrap_or_default();
    if kind == "distribution" {
        return Ok(());
    }
    let mut printed = Vec::new();
    numbers(block, &mut printed);
    for r in &rows {
        let v = r["value"]
            .as_f64()
            .ok_or_else(|| format!("metric {} has no number", r["name"]))?;
        if !printed.iter().any(|p| same_number(*p, v)) {
            return Err(format!(
                "metric {} = {v} is not a value of the block",
                r["name"]
            ));
        }
    }
    Ok(())
}

async fn api_case(
    app: &axum::Router,
    pool: &PgPool,
    tok: &str,
    file: &Path,
    cli: &Result<Value, String>,
) -> Result<(), String> {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("filename", &name)
        .finish();
    let bytes = std::fs::read(file).expect("read sample");
    let r = upload(app, Some(tok), &query, bytes).await;
    let doc = match (cli, r.status) {
        (Err(cli_err), 200 | 201) => {
            return Err(format!("parse failed ({cli_err}) but the upload stored it"));
        }
        (Err(cli_err), _) => {
            // The command prints `error: <parse error>`; the API says what
            // failed around the same parse error, and gives its line.
            let err = r.json()["error"].clone();
            let msg = err["message"].as_str().unwrap_or_default().to_string();
            let reason = cli_err.strip_prefix("error: ").unwrap_or(cli_err);
            let line = err["line"].as_u64().map(|l| format!("line {l},"));
            let same =
                msg.contains(reason) && line.as_ref().is_none_or(|l| reason.contains(l.as_str()));
            return if same && r.status == 422 {
                Ok(())
            } else {
                Err(format!(
                    "both refuse, with different reasons: parse {cli_err:?}, upload {} {msg:?}",
                    r.status
                ))
            };
        }
        (Ok(_), 200 | 201) => r.json(),
        (Ok(_), s) => {
            return Err(format!(
                "parse gives a document, the upload {s}: {}",
                r.text()
            ));
        }
    };
    let cli = cli.as_ref().unwrap();
    let cli_blocks = cli["blocks"].as_array().cloned().unwrap_or_default();
    if doc["format"] != cli["source"]["format"] {
        return Err(format!(
            "format {} != {}",
            doc["format"], cli["source"]["format"]
        ));
    }
    if doc["blocks"].as_u64() != Some(cli_blocks.len() as u64) {
        return Err(format!(
            "{} blocks uploaded, {} parsed",
            doc["blocks"],
            cli_blocks.len()
        ));
    }
    if let Some(d) = diff(&doc["warnings"], &cli["warnings"], "warnings") {
        return Err(d);
    }
    let upload_id = doc["upload_id"].as_i64().ok_or("no upload_id")?;
    let outline: Value = sqlx::query_scalar("SELECT document FROM uploads WHERE id = $1")
        .bind(upload_id)
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())?;
    let stored = outline["blocks"].as_array().cloned().unwrap_or_default();
    if stored.len() != cli_blocks.len() {
        return Err(format!(
            "outline has {} blocks, parse {}",
            stored.len(),
            cli_blocks.len()
        ));
    }
    for (i, (s, c)) in stored.iter().zip(&cli_blocks).enumerate() {
        // The outline's own fields but the index, which `parse` does not print.
        for k in reclaimlab::storage::ingest::OUTLINE_BLOCK_FIELDS
            .into_iter()
            .filter(|k| *k != "index")
        {
            if let Some(d) = diff(&s[k], &c[k], &format!("block {i}.{k}")) {
                return Err(d);
            }
        }
    }
    // Every block that is not a quoted copy is stored as runs, whole.
    let rows: Vec<(i64, i32, i32, String, i32, i32)> = sqlx::query_as(
        "SELECT id, block_index, column_index, block_kind, first_line, last_line
         FROM runs WHERE upload_id = $1 ORDER BY block_index, column_index",
    )
    .bind(upload_id)
    .fetch_all(pool)
    .await
    .map_err(|e| e.to_string())?;
    for (i, c) in cli_blocks.iter().enumerate() {
        let has_run = rows.iter().any(|r| r.1 as usize == i);
        if c["duplicate_of"].is_null() != has_run {
            return Err(format!(
                "block {i} ({}, duplicate_of {}) has {}runs",
                c["kind"],
                c["duplicate_of"],
                if has_run { "" } else { "no " }
            ));
        }
    }
    for (id, index, column, kind, first, last) in rows {
        let c = cli_blocks
            .get(index as usize)
            .ok_or_else(|| format!("run {id} names block {index}"))?;
        let at = format!("block {index} column {column}");
        if c["kind"] != kind.as_str() {
            return Err(format!("{at}: stored as {kind}, parsed as {}", c["kind"]));
        }
        if c["lines"] != serde_json::json!([first, last]) {
            return Err(format!("{at}: lines {first}-{last}, parsed {}", c["lines"]));
        }
        let run = get(app, &format!("/api/v1/runs/{id}")).await;
        if run.status != 200 {
            return Err(format!("{at}: GET run {id}: {}", run.status));
        }
        let run = run.json();
        let mut block = run["block"].clone();
        if let Some(o) = block.as_object_mut() {
            o.remove(reclaimlab::ingest::DIGEST_KEY);
        }
        if let Some(d) = diff(&block, c, &at) {
            return Err(format!("stored block differs from parse: {d}"));
        }
        check_threads(c, &run).map_err(|e| format!("{at}: {e}"))?;
        check_metrics(&kind, c, &run).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(())
}

#[sqlx::test]
async fn parse_and_upload_agree_on_every_corpus_file(pool: PgPool) {
    let files = corpus_files(&corpus_roots());
    assert!(
        files.len() >= 150,
        "the corpora hold {} files; the walk lost some",
        files.len()
    );
    // The command runs beside the server, a few files at a time.
    let parsed: Vec<Result<Value, String>> = {
        let files = files.clone();
        tokio::task::spawn_blocking(move || {
            let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
            let chunk = files.len().div_ceil(workers);
            std::thread::scope(|s| {
                let handles: Vec<_> = files
                    .chunks(chunk)
                    .map(|c| s.spawn(move || c.iter().map(|f| cli_parse(f)).collect::<Vec<_>>()))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("parse worker"))
                    .collect()
            })
        })
        .await
        .unwrap()
    };
    let app = app(&pool);
    let tok = token(&pool, Scope::Upload).await;
    let mut failures = Vec::new();
    let mut documents = 0;
    for (file, cli) in files.iter().zip(&parsed) {
        documents += usize::from(cli.is_ok());
        if let Err(e) = api_case(&app, &pool, &tok, file, cli).await {
            let rel = file
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(file);
            failures.push(format!("{}: {e}", rel.display()));
        }
    }
    eprintln!(
        "corpus agreement: {} files, {documents} parsed to a document, {} disagree",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "parse and upload disagree on {} of {} files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
