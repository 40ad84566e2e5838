//! Writing an upload: blob, upload row, runs and typed results in one
//! transaction. The caller acknowledges only after this returns Ok.

use reclaimlab_report::model::{Better, DeltaConvention};
use sqlx::{PgConnection, PgPool};

use crate::error::AppError;
use crate::ingest::{RunSpec, UploadMeta};
use crate::storage::catalog;
use crate::storage::ids::{JobId, RunId, UploadId};
use crate::storage::runs::RunKind;

/// What an upload produced (or, for a replay, had produced).
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoredUpload {
    pub upload_id: UploadId,
    pub created: bool,
    pub run_ids: Vec<RunId>,
    /// The names of each run, in the order of `run_ids`, when this upload
    /// stored them (a replay has only the ids: its runs are read back).
    #[serde(skip)]
    pub runs: Vec<StoredRun>,
}

/// A run as stored: its id and names, as a run summary reads them back.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    pub id: RunId,
    /// The board's canonical name ([`crate::boards::canonical`]).
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub block_kind: String,
    pub label: Option<String>,
}

pub struct NewUpload<'a> {
    pub content: crate::blob::Blob<'a>,
    pub content_sha: &'a [u8],
    pub fingerprint: &'a [u8],
    pub idempotency_key: &'a str,
    pub content_type: Option<&'a str>,
    pub meta: &'a UploadMeta,
    pub token_id: Option<i64>,
    pub parser_version: &'a str,
    pub document: &'a serde_json::Value,
    pub message_id: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub runs: &'a [RunSpec],
    pub kind: RunKind,
}

/// Store an upload, or answer a replay of the live upload under the same
/// idempotency key. A deleted upload does not hold its key: the same
/// content sent again after a delete is stored again, as a new upload.
pub async fn store(pool: &PgPool, up: NewUpload<'_>) -> Result<StoredUpload, AppError> {
    store_with(pool, &catalog::KnownCache::default(), up).await
}

/// [`store`], with the catalogue ids this process has seen: an upload that
/// names only known boards, kernels and variants does not send
/// [`catalog::ensure`].
pub async fn store_with(
    pool: &PgPool,
    catalogue: &catalog::KnownCache,
    up: NewUpload<'_>,
) -> Result<StoredUpload, AppError> {
    // One connection for the whole upload: each borrow from the pool costs
    // a check of the connection and a ping when it goes back.
    let mut conn = pool.acquire().await?;
    // Shared catalogue rows first, outside the transaction (see
    // `catalog::ensure`): concurrent uploads for one kernel never wait on
    // each other's transactions for them. A variant is ensured here only
    // for runs that record nothing on it (no parent, series or
    // Message-ID); the others go through `catalog::variant_id`.
    let boards: Vec<&str> = up.runs.iter().map(|r| r.board.as_str()).collect();
    let kernels: Vec<&str> = up.runs.iter().map(|r| r.kernel.as_str()).collect();
    let variants: Vec<&str> = up
        .runs
        .iter()
        .filter(|r| up.message_id.is_none() && r.parent.is_none())
        .map(|r| r.variant.as_str())
        .collect();
    let known = match catalogue.lookup(&boards, &kernels, &variants) {
        Some(known) => known,
        None => {
            let known = catalog::ensure(&mut conn, &boards, &kernels, &variants).await?;
            catalogue.remember(&known);
            known
        }
    };
    // Uploads that create the same catalogue rows in another order (two
    // variants each naming the other as parent) can deadlock; PostgreSQL
    // then aborts one transaction, which is whole, so it is tried again.
    let mut result = store_on(pool, &mut conn, &up, &known).await;
    for _ in 0..3 {
        if !result.as_ref().is_err_and(retryable) {
            break;
        }
        result = store_on(pool, &mut conn, &up, &known).await;
    }
    // A connection keeps the capacity of the buffers it sent a big blob
    // through: one that stored a big upload is closed afterwards, so the
    // memory goes back (a pooled connection would keep hundreds of MB).
    if up.content.len() >= CLOSE_AFTER_BYTES as u64 {
        let _ = sqlx::Connection::close(conn.detach()).await;
    }
    result
}

/// A deadlock or a serialization failure: the transaction was rolled
/// back whole and may be tried again.
fn retryable(e: &AppError) -> bool {
    let AppError::Internal(e) = e else {
        return false;
    };
    e.downcast_ref::<sqlx::Error>().is_some_and(|e| match e {
        sqlx::Error::Database(d) => matches!(d.code().as_deref(), Some("40P01" | "40001")),
        _ => false,
    })
}

/// Uploads at least this big are stored on a connection closed afterwards.
pub const CLOSE_AFTER_BYTES: usize = 4 * 1024 * 1024;

async fn store_on(
    pool: &PgPool,
    conn: &mut PgConnection,
    up: &NewUpload<'_>,
    known: &catalog::Known,
) -> Result<StoredUpload, AppError> {
    // Twice at most: the upload a replay points at may be deleted between
    // the conflicting insert and the lookup; then the key is free again.
    for _ in 0..2 {
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        match write_upload_known(&mut tx, up, None, known).await? {
            Some(stored) => {
                tx.commit().await?;
                return Ok(stored);
            }
            None => {
                tx.rollback().await?;
                if let Some(stored) = replay(pool, up.idempotency_key, up.fingerprint).await? {
                    return Ok(stored);
                }
            }
        }
    }
    Err(AppError::Conflict(format!(
        "idempotency key '{}' is being used and deleted concurrently; retry",
        up.idempotency_key
    )))
}

/// Write blob, upload, runs and results on `conn` (inside the caller's
/// transaction). `None` when the idempotency key already exists.
pub async fn write_upload(
    conn: &mut PgConnection,
    up: &NewUpload<'_>,
    simulation_id: Option<JobId>,
) -> Result<Option<StoredUpload>, AppError> {
    write_upload_known(conn, up, simulation_id, &catalog::Known::default()).await
}

/// [`write_upload`] with the ids of boards and kernels already looked up.
async fn write_upload_known(
    conn: &mut PgConnection,
    up: &NewUpload<'_>,
    simulation_id: Option<JobId>,
    known: &catalog::Known,
) -> Result<Option<StoredUpload>, AppError> {
    // A small content (a rig's result) goes in with the upload row, in
    // one statement; a bigger one first, on its own (`blob::store`).
    let small = small_content(up.content)?;
    if small.is_none() {
        crate::blob::store(conn, up.content_sha, up.content).await?;
    }
    let metadata = serde_json::to_value(up.meta).unwrap_or_default();
    let outline = outline(up.document);
    let sql = if small.is_some() {
        // The blob's part runs whether or not the upload row is new, as the
        // separate INSERT would (a replay keeps the blob it points at).
        "WITH b AS (INSERT INTO blobs (sha256, size, content) VALUES ($3, $12, $13)
                    ON CONFLICT (sha256) DO NOTHING)
         INSERT INTO uploads (idempotency_key, fingerprint, blob_sha256, content_type, filename,
                              metadata, token_id, parser_version, document, message_id, unlisted)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (idempotency_key) WHERE deleted_at IS NULL DO NOTHING RETURNING id"
    } else {
        "INSERT INTO uploads (idempotency_key, fingerprint, blob_sha256, content_type, filename,
                              metadata, token_id, parser_version, document, message_id, unlisted)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (idempotency_key) WHERE deleted_at IS NULL DO NOTHING RETURNING id"
    };
    let mut insert = sqlx::query_scalar(sql)
        .bind(up.idempotency_key)
        .bind(up.fingerprint)
        .bind(up.content_sha)
        .bind(up.content_type)
        .bind(up.meta.filename.as_deref())
        .bind(&metadata)
        .bind(up.token_id)
        .bind(up.parser_version)
        .bind(&outline)
        .bind(up.message_id)
        .bind(up.meta.unlisted);
    if let Some(bytes) = &small {
        insert = insert.bind(bytes.len() as i64).bind(&bytes[..]);
    }
    let inserted: Option<i64> = insert.fetch_optional(&mut *conn).await?;
    let Some(upload_id) = inserted else {
        return Ok(None);
    };
    let series = match up.message_id {
        Some(m) => Some(catalog::series_id(conn, m, up.subject).await?),
        None => None,
    };
    let cx = RunContext {
        upload_id,
        series,
        message_id: up.message_id,
        meta: up.meta,
        kind: up.kind,
        simulation_id,
        known,
    };
    let mut run_ids = Vec::with_capacity(up.runs.len());
    let mut runs = Vec::with_capacity(up.runs.len());
    // Each block is stored once, with the first run planned from it; the
    // other runs of that block (columns of a table) keep a reference.
    let mut first_of_block: Option<(usize, i64)> = None;
    for spec in up.runs {
        let shared = first_of_block
            .filter(|(b, _)| *b == spec.block_index)
            .map(|(_, id)| id);
        let id = insert_run(conn, spec, &cx, shared).await?;
        if shared.is_none() {
            first_of_block = Some((spec.block_index, id));
        }
        run_ids.push(RunId(id));
        runs.push(StoredRun {
            id: RunId(id),
            board: crate::boards::canonical(&spec.board),
            kernel: spec.kernel.clone(),
            variant: spec.variant.clone(),
            block_kind: spec.block_kind.to_string(),
            label: spec.label.clone(),
        });
    }
    // The metric identities first: the next statement packs each run's
    // metric rows with them.
    if up.runs.iter().any(|r| !r.metrics.is_empty()) {
        crate::storage::compare::add_upload_metric_idents(conn, upload_id).await?;
    }
    // These are all the upload's runs: selected by upload, the statements
    // keep one plan (by a list of ids they are planned again each time).
    // One statement folds them into the overview aggregates and stores
    // what comparisons read of each run.
    crate::storage::overview::add_upload(conn, upload_id).await?;
    Ok(Some(StoredUpload {
        upload_id: UploadId(upload_id),
        created: true,
        run_ids,
        runs,
    }))
}

/// The content, when it is small enough to be stored with one `INSERT`
/// ([`crate::blob::INSERT_AT_MOST`]): bytes in memory as they are, a small
/// spool read back (a few KiB just written, from the page cache).
fn small_content<'a>(
    content: crate::blob::Blob<'a>,
) -> Result<Option<std::borrow::Cow<'a, [u8]>>, AppError> {
    use std::io::Read;
    if content.len() > crate::blob::INSERT_AT_MOST {
        return Ok(None);
    }
    match content {
        crate::blob::Blob::Bytes(b) => Ok(Some(b.into())),
        crate::blob::Blob::Spool(s) => {
            let mut buf = Vec::with_capacity(s.len() as usize);
            s.reader().read_to_end(&mut buf).map_err(|e| {
                AppError::Internal(anyhow::anyhow!(
                    "cannot read the upload's spool file in the temporary directory: {e}"
                ))
            })?;
            Ok(Some(buf.into()))
        }
    }
}

async fn replay(
    pool: &PgPool,
    key: &str,
    fingerprint: &[u8],
) -> Result<Option<StoredUpload>, AppError> {
    let Some((upload_id, existing)): Option<(i64, Vec<u8>)> = sqlx::query_as(
        "SELECT id, fingerprint FROM uploads WHERE idempotency_key = $1 AND deleted_at IS NULL",
    )
    .bind(key)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    if existing != fingerprint {
        return Err(AppError::Conflict(format!(
            "idempotency key '{key}' was already used for different content or metadata (upload {upload_id})"
        )));
    }
    let run_ids: Vec<RunId> =
        sqlx::query_scalar("SELECT id FROM runs WHERE upload_id = $1 ORDER BY id")
            .bind(upload_id)
            .fetch_all(pool)
            .await?;
    Ok(Some(StoredUpload {
        upload_id: UploadId(upload_id),
        created: false,
        run_ids,
        runs: Vec::new(),
    }))
}

/// What every run of one upload shares.
struct RunContext<'a> {
    upload_id: i64,
    series: Option<i64>,
    message_id: Option<&'a str>,
    meta: &'a UploadMeta,
    kind: RunKind,
    simulation_id: Option<JobId>,
    known: &'a catalog::Known,
}

/// Key of a run's block that names the run holding the whole block.
pub const SHARED_BLOCK_KEY: &str = "block_of_run";

/// Keys of a block kept with a reference to the run that holds it: what
/// listings read without loading the block.
const REFERENCE_KEYS: [&str; 6] = ["kind", "lines", "title", "tool", "style", "source"];

/// The fields of each block that `uploads.document` keeps.
pub const OUTLINE_BLOCK_FIELDS: [&str; 9] = [
    "index",
    "kind",
    "lines",
    "label",
    "board",
    "kernel",
    "duplicate_of",
    "message",
    "quote_level",
];

/// What `uploads.document` keeps of a document: source, context,
/// warnings, and a reference per block (kind, lines, label, hints). Block
/// bodies are in `runs.block`. Taking the outline of an outline changes
/// nothing.
pub fn outline(doc: &serde_json::Value) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for k in ["source", "context", "warnings"] {
        if let Some(v) = doc.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    let keep = OUTLINE_BLOCK_FIELDS;
    let blocks: Vec<serde_json::Value> = doc
        .get("blocks")
        .and_then(|b| b.as_array())
        .map(|bs| {
            bs.iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut o = serde_json::Map::new();
                    o.insert("index".into(), serde_json::json!(i));
                    for k in keep {
                        if let Some(v) = b.get(k) {
                            o.insert(k.into(), v.clone());
                        }
                    }
                    serde_json::Value::Object(o)
                })
                .collect()
        })
        .unwrap_or_default();
    out.insert("blocks".into(), serde_json::Value::Array(blocks));
    serde_json::Value::Object(out)
}

/// The `INSERT` of a run, binding `$1` to `$18`.
macro_rules! run_insert {
    () => {
        "INSERT INTO runs (upload_id, block_index, column_index, board_id, kernel_id, variant_id,
                           kind, block_kind, label, labels, tool_args, first_line, last_line, block,
                           unlisted, simulation_id, worst_us, worst_kind)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
    };
}

async fn insert_run(
    conn: &mut PgConnection,
    spec: &RunSpec,
    cx: &RunContext<'_>,
    shared_block: Option<i64>,
) -> Result<i64, AppError> {
    let RunContext {
        upload_id,
        series,
        message_id,
        meta,
        kind,
        simulation_id,
        known,
    } = *cx;
    let board = known.board_id(conn, &spec.board).await?;
    let kernel = known.kernel_id(conn, &spec.kernel).await?;
    // A run that records nothing on its variant takes the id `ensure`
    // found; one that names a parent, series or Message-ID records them.
    let variant = match known.variants.get(&spec.variant) {
        Some(id) if spec.parent.is_none() && series.is_none() && message_id.is_none() => *id,
        _ => {
            catalog::variant_id(
                conn,
                &spec.variant,
                spec.parent.as_deref(),
                !spec.parent_inferred,
                series,
                message_id,
            )
            .await?
        }
    };
    let labels = serde_json::json!({});
    let reference;
    let block = match shared_block {
        None => &spec.block,
        Some(id) => {
            let mut o = serde_json::Map::new();
            for k in REFERENCE_KEYS {
                if let Some(v) = spec.block.get(k) {
                    o.insert(k.into(), v.clone());
                }
            }
            o.insert(SHARED_BLOCK_KEY.into(), serde_json::json!(id));
            reference = serde_json::Value::Object(o);
            &reference
        }
    };
    // A run's latency threads go in with it, in one statement.
    let t = &spec.threads;
    let sql = if t.is_empty() {
        concat!(run_insert!(), " RETURNING id")
    } else {
        concat!(
            "WITH r AS (",
            run_insert!(),
            " RETURNING id),
             t AS (INSERT INTO latency_threads (run_id, thread, tid, priority, interval_us, cycles,
                                                cpu, min_us, act_us, avg_us, max_us)
                   SELECT r.id, x.* FROM r, UNNEST($19::int[], $20::int[], $21::int[],
                                                   $22::bigint[], $23::bigint[], $24::int[],
                                                   $25::float8[], $26::float8[], $27::float8[],
                                                   $28::float8[]) AS x
                   ON CONFLICT (run_id, thread) DO NOTHING)
             SELECT id FROM r"
        )
    };
    let mut insert = sqlx::query_scalar(sql)
        .bind(upload_id)
        .bind(spec.block_index as i32)
        .bind(spec.column_index as i32)
        .bind(board)
        .bind(kernel)
        .bind(variant)
        .bind(kind)
        .bind(spec.block_kind)
        .bind(spec.label.as_deref())
        .bind(&labels)
        .bind(meta.tool_args.as_deref())
        .bind(spec.lines[0] as i32)
        .bind(spec.lines[1] as i32)
        .bind(block)
        .bind(meta.unlisted)
        .bind(simulation_id)
        .bind(spec.worst().map(|w| w.0))
        .bind(spec.worst().map(|w| w.1));
    if !t.is_empty() {
        insert = insert
            .bind(t.iter().map(|x| x.thread as i32).collect::<Vec<_>>())
            .bind(
                t.iter()
                    .map(|x| x.tid.map(|v| v as i32))
                    .collect::<Vec<_>>(),
            )
            .bind(t.iter().map(|x| x.priority).collect::<Vec<_>>())
            .bind(
                t.iter()
                    .map(|x| x.interval_us.map(|v| v as i64))
                    .collect::<Vec<_>>(),
            )
            .bind(
                t.iter()
                    .map(|x| x.cycles.map(|v| v as i64))
                    .collect::<Vec<_>>(),
            )
            .bind(
                t.iter()
                    .map(|x| x.cpu.map(|v| v as i32))
                    .collect::<Vec<_>>(),
            )
            .bind(t.iter().map(|x| x.min_us).collect::<Vec<_>>())
            .bind(t.iter().map(|x| x.act_us).collect::<Vec<_>>())
            .bind(t.iter().map(|x| x.avg_us).collect::<Vec<_>>())
            .bind(t.iter().map(|x| x.max_us).collect::<Vec<_>>());
    }
    let run_id: i64 = insert.fetch_one(&mut *conn).await?;
    insert_results(conn, run_id, upload_id, spec).await?;
    Ok(run_id)
}

/// The results of a run but its latency threads (stored with the run).
async fn insert_results(
    conn: &mut PgConnection,
    run_id: i64,
    upload_id: i64,
    spec: &RunSpec,
) -> Result<(), AppError> {
    if let Some(h) = &spec.histogram {
        let (mut th, mut lo, mut cnt) = (Vec::new(), Vec::new(), Vec::new());
        for pt in &h.per_thread {
            for (lower, count) in &pt.buckets {
                th.push(pt.thread as i32);
                lo.push(*lower);
                cnt.push(*count as i64);
            }
        }
        sqlx::query(
            "INSERT INTO histogram_buckets (run_id, thread, lower_us, count)
             SELECT $1, * FROM UNNEST($2::int[], $3::float8[], $4::bigint[])
             ON CONFLICT DO NOTHING",
        )
        .bind(run_id)
        .bind(&th)
        .bind(&lo)
        .bind(&cnt)
        .execute(&mut *conn)
        .await?;
        sqlx::query(
            "INSERT INTO histogram_threads (run_id, thread, bucket_us, overflows, total, min_us,
                                            avg_us, max_us)
             SELECT $1, t, $2, o, tot, mn, av, mx
             FROM UNNEST($3::int[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[],
                         $8::float8[]) AS x(t, o, tot, mn, av, mx)
             ON CONFLICT DO NOTHING",
        )
        .bind(run_id)
        .bind(h.bucket_us)
        .bind(
            h.per_thread
                .iter()
                .map(|p| p.thread as i32)
                .collect::<Vec<_>>(),
        )
        .bind(
            h.per_thread
                .iter()
                .map(|p| p.overflows as i64)
                .collect::<Vec<_>>(),
        )
        .bind(
            h.per_thread
                .iter()
                .map(|p| p.total.map(|v| v as i64))
                .collect::<Vec<_>>(),
        )
        .bind(h.per_thread.iter().map(|p| p.min_us).collect::<Vec<_>>())
        .bind(h.per_thread.iter().map(|p| p.avg_us).collect::<Vec<_>>())
        .bind(h.per_thread.iter().map(|p| p.max_us).collect::<Vec<_>>())
        .execute(&mut *conn)
        .await?;
    }
    if let Some(tr) = &spec.trace {
        let stack: Vec<String> = tr.stacks.last().cloned().unwrap_or_default();
        sqlx::query(
            "INSERT INTO traces (run_id, tracer, latency_us, cpu, nr_cpus, preempt_model, task_comm,
                                 task_pid, culprit, culprit_path, stack)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(run_id)
        .bind(&tr.tracer)
        .bind(tr.latency_us)
        .bind(tr.cpu.map(|v| v as i32))
        .bind(tr.nr_cpus.map(|v| v as i32))
        .bind(tr.preempt_model.as_deref())
        .bind(tr.task.as_ref().map(|t| t.comm.clone()))
        .bind(tr.task.as_ref().map(|t| t.pid as i32))
        .bind(tr.culprit.as_deref())
        .bind(&tr.culprit_path)
        .bind(&stack)
        .execute(&mut *conn)
        .await?;
    }
    if !spec.locks.is_empty() {
        let l = &spec.locks;
        sqlx::query(
            "INSERT INTO lock_rows (run_id, position, lock_type, caller, lock, address, task, pid,
                                    cgroup, contended, total_wait_us, max_wait_us, min_wait_us,
                                    avg_wait_us, stack)
             SELECT $1, p, ty, ca, lo, ad, ta, pi, cg, co, tw, mx, mn, av,
                    CASE WHEN st = '' THEN '{}'::text[] ELSE string_to_array(st, chr(10)) END
             FROM UNNEST($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                         $8::bigint[], $9::text[], $10::bigint[], $11::float8[], $12::float8[],
                         $13::float8[], $14::float8[], $15::text[])
                  AS x(p, ty, ca, lo, ad, ta, pi, cg, co, tw, mx, mn, av, st)",
        )
        .bind(run_id)
        .bind((0..l.len() as i32).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.lock_type.clone()).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.caller.clone()).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.lock.clone()).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.address.clone()).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.task.clone()).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.pid).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.cgroup.clone()).collect::<Vec<_>>())
        .bind(
            l.iter()
                .map(|r| r.contended.min(i64::MAX as u64) as i64)
                .collect::<Vec<_>>(),
        )
        .bind(l.iter().map(|r| r.total_wait_us).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.max_wait_us).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.min_wait_us).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.avg_wait_us).collect::<Vec<_>>())
        .bind(l.iter().map(|r| r.stack.join("\n")).collect::<Vec<_>>())
        .execute(&mut *conn)
        .await?;
    }
    if !spec.metrics.is_empty() {
        let m = &spec.metrics;
        // A printed table is a scope of its own: its rows are compared with
        // rows of the same table only.
        let scope = spec.scope.resolve(upload_id, spec.block_index);
        sqlx::query(
            "INSERT INTO metrics (run_id, name, stat, value, unit, printed_delta_pct, spread_pct,
                                  scope, section, direction, direction_source, delta_convention)
             SELECT $1, n, st, v, u, d, sp, $8, $9, dir, dsrc, conv
             FROM UNNEST($2::text[], $3::text[], $4::float8[], $5::text[], $6::float8[],
                         $7::float8[], $10::text[], $11::text[], $12::text[])
                  AS x(n, st, v, u, d, sp, dir, dsrc, conv)",
        )
        .bind(run_id)
        .bind(m.iter().map(|x| x.name.clone()).collect::<Vec<_>>())
        .bind(m.iter().map(|x| x.stat.clone()).collect::<Vec<_>>())
        .bind(m.iter().map(|x| x.value).collect::<Vec<_>>())
        .bind(m.iter().map(|x| x.unit.clone()).collect::<Vec<_>>())
        .bind(m.iter().map(|x| x.printed_delta_pct).collect::<Vec<_>>())
        .bind(m.iter().map(|x| x.spread_pct).collect::<Vec<_>>())
        .bind(&scope)
        .bind(&spec.section)
        .bind(
            m.iter()
                .map(|x| x.direction.map(Better::word))
                .collect::<Vec<_>>(),
        )
        .bind(
            m.iter()
                .map(|x| x.direction_source.clone())
                .collect::<Vec<_>>(),
        )
        .bind(
            m.iter()
                .map(|x| x.delta_convention.map(DeltaConvention::word))
                .collect::<Vec<_>>(),
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
