//! Reading runs and their typed results.

use chrono::{DateTime, Utc};
use reclaimlab_report::model::{Better, DeltaConvention, MetricIdent, MetricValue};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgExecutor, PgPool, Row};

use crate::storage::ids::{RunId, UploadId};

#[derive(Debug, Clone, FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct RunSummary {
    #[schema(value_type = i64)]
    pub id: RunId,
    #[schema(value_type = Option<i64>)]
    pub upload_id: Option<UploadId>,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    #[schema(schema_with = run_kind_schema)]
    pub kind: RunKind,
    pub block_kind: String,
    pub label: Option<String>,
    pub created_at: DateTime<Utc>,
    pub unlisted: bool,
    /// Worst latency of the run in us (cyclictest max over threads, or trace latency).
    pub worst_us: Option<f64>,
    pub culprit: Option<String>,
}

/// Measured on a machine or predicted by the simulator (`runs.kind`, a
/// `TEXT` column with a `CHECK` on these two words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type, serde::Serialize, serde::Deserialize)]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    Measured,
    Simulated,
}

impl RunKind {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Measured => "measured",
            RunKind::Simulated => "simulated",
        }
    }
}

/// The OpenAPI schema of a [`RunKind`] field: one of its two words.
pub fn run_kind_schema() -> utoipa::openapi::schema::ObjectBuilder {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(["measured", "simulated"]))
}

impl std::fmt::Display for RunKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

const SUMMARY_SELECT: &str = "
    SELECT r.id, r.upload_id, b.name AS board, k.version AS kernel, v.name AS variant,
           r.kind, r.block_kind, r.label, r.created_at, r.unlisted,
           r.worst_us,
           t.culprit
    FROM runs r
    JOIN boards b ON b.id = r.board_id
    JOIN kernels k ON k.id = r.kernel_id
    JOIN variants v ON v.id = r.variant_id
    LEFT JOIN traces t ON t.run_id = r.id";

/// Filters for run listings. All optional.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct RunFilter {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    pub kind: Option<String>,
    pub block_kind: Option<String>,
}

pub async fn recent(
    db: impl PgExecutor<'_>,
    filter: &RunFilter,
    limit: i64,
) -> sqlx::Result<Vec<RunSummary>> {
    let sql = format!(
        "{SUMMARY_SELECT}
         WHERE r.deleted_at IS NULL AND NOT r.unlisted
           AND ($1::text IS NULL OR b.name = $1)
           AND ($2::text IS NULL OR k.version = $2)
           AND ($3::text IS NULL OR v.name = $3)
           AND ($4::text IS NULL OR r.kind = $4)
           AND ($5::text IS NULL OR r.block_kind = $5)
         ORDER BY r.created_at DESC, r.id DESC LIMIT $6"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(&filter.board)
        .bind(&filter.kernel)
        .bind(&filter.variant)
        .bind(&filter.kind)
        .bind(&filter.block_kind)
        .bind(limit)
        .fetch_all(db)
        .await
}

pub async fn count(db: impl PgExecutor<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM runs WHERE deleted_at IS NULL")
        .fetch_one(db)
        .await
}

pub async fn summary(db: impl PgExecutor<'_>, id: RunId) -> sqlx::Result<Option<RunSummary>> {
    let sql = format!("{SUMMARY_SELECT} WHERE r.id = $1 AND r.deleted_at IS NULL");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn summaries(db: impl PgExecutor<'_>, ids: &[RunId]) -> sqlx::Result<Vec<RunSummary>> {
    let sql =
        format!("{SUMMARY_SELECT} WHERE r.id = ANY($1) AND r.deleted_at IS NULL ORDER BY r.id");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(ids)
        .fetch_all(db)
        .await
}

/// What a run beside a comparison is: its place, its worst latency and
/// culprit, the tracer of a trace and the title of a table.
#[derive(Debug, Clone, FromRow)]
pub struct ContextRow {
    pub id: RunId,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub block_kind: String,
    pub worst_us: Option<f64>,
    pub culprit: Option<String>,
    pub tracer: Option<String>,
    pub title: Option<String>,
}

pub async fn context_rows(db: impl PgExecutor<'_>, ids: &[RunId]) -> sqlx::Result<Vec<ContextRow>> {
    sqlx::query_as(
        "SELECT r.id, b.name AS board, k.version AS kernel, v.name AS variant, r.block_kind,
                r.worst_us, t.culprit, t.tracer, r.title
         FROM runs r
         JOIN boards b ON b.id = r.board_id
         JOIN kernels k ON k.id = r.kernel_id
         JOIN variants v ON v.id = r.variant_id
         LEFT JOIN traces t ON t.run_id = r.id
         WHERE r.id = ANY($1) AND r.deleted_at IS NULL",
    )
    .bind(ids)
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct ThreadRow {
    pub thread: i32,
    pub tid: Option<i32>,
    pub priority: Option<i32>,
    pub interval_us: Option<i64>,
    pub cycles: Option<i64>,
    pub cpu: Option<i32>,
    pub min_us: f64,
    pub act_us: Option<f64>,
    pub avg_us: f64,
    pub max_us: f64,
}

#[derive(Debug, Clone, FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct TraceRow {
    pub tracer: String,
    pub latency_us: f64,
    pub cpu: Option<i32>,
    pub nr_cpus: Option<i32>,
    pub preempt_model: Option<String>,
    pub task_comm: Option<String>,
    pub task_pid: Option<i32>,
    pub culprit: Option<String>,
    pub culprit_path: Vec<String>,
    pub stack: Vec<String>,
}

/// A stored metric read back as `storage::ingest::store` wrote it.
pub fn metric_value(row: PgRow) -> sqlx::Result<MetricValue> {
    Ok(metric_ident(&row)?.with_numbers(
        row.try_get("value")?,
        row.try_get("printed_delta_pct")?,
        row.try_get("spread_pct")?,
    ))
}

/// A stored metric's identity (of `metrics` or `metric_idents`); a word
/// this version does not know reads as not set.
pub fn metric_ident(row: &PgRow) -> sqlx::Result<MetricIdent> {
    let word = |col: &str| row.try_get::<Option<String>, _>(col);
    Ok(MetricIdent {
        name: row.try_get("name")?,
        stat: row.try_get("stat")?,
        unit: row.try_get("unit")?,
        scope: row.try_get("scope")?,
        section: row.try_get("section")?,
        direction: word("direction")?.as_deref().and_then(Better::from_word),
        direction_source: row.try_get("direction_source")?,
        delta_convention: word("delta_convention")?
            .as_deref()
            .and_then(DeltaConvention::from_word),
    })
}

/// The columns of [`MetricValue`], in order.
pub const METRIC_COLUMNS: &str = "name, stat, value, unit, printed_delta_pct, spread_pct, scope, \
     section, direction, direction_source, delta_convention";

/// One thread's histogram footer: overflows and the printed statistics.
#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct HistThreadRow {
    pub thread: i32,
    pub bucket_us: f64,
    pub overflows: i64,
    pub total: Option<i64>,
    pub min_us: Option<f64>,
    pub avg_us: Option<f64>,
    pub max_us: Option<f64>,
}

/// One `perf lock contention` row.
#[derive(Debug, Clone, FromRow, serde::Serialize, utoipa::ToSchema)]
#[schema(as = LockRow)]
pub struct LockRowRow {
    pub lock_type: Option<String>,
    pub caller: Option<String>,
    pub lock: Option<String>,
    pub address: Option<String>,
    pub task: Option<String>,
    pub pid: Option<i64>,
    pub cgroup: Option<String>,
    pub contended: i64,
    pub total_wait_us: f64,
    pub max_wait_us: Option<f64>,
    pub min_wait_us: Option<f64>,
    pub avg_wait_us: Option<f64>,
    pub stack: Vec<String>,
}

impl LockRowRow {
    /// What the row is keyed by, as printed.
    pub fn key(&self) -> String {
        let mut parts: Vec<String> = [&self.lock, &self.caller, &self.address, &self.cgroup]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        if let Some(t) = &self.task {
            parts.push(match self.pid {
                Some(p) => format!("{t}-{p}"),
                None => t.clone(),
            });
        }
        parts.join(" ")
    }
}

#[derive(Debug, Clone, FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct BucketRow {
    pub thread: i32,
    pub lower_us: f64,
    pub count: i64,
}

#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct RunDetail {
    #[serde(flatten)]
    pub summary: RunSummary,
    pub tool_args: Option<String>,
    /// First and last line of the block in the upload.
    #[schema(min_items = 2, max_items = 2)]
    pub lines: [i32; 2],
    pub blob_sha256: Option<String>,
    pub message_id: Option<String>,
    pub threads: Vec<ThreadRow>,
    pub trace: Option<TraceRow>,
    pub metrics: Vec<MetricValue>,
    pub histogram: Vec<BucketRow>,
    /// Lock contention rows, most total wait first.
    pub locks: Vec<LockRowRow>,
    #[schema(schema_with = crate::web::api::doc::block)]
    pub block: serde_json::Value,
}

type DetailRow = (
    Option<String>,
    i32,
    i32,
    serde_json::Value,
    Option<Vec<u8>>,
    Option<String>,
);

pub async fn detail(pool: &PgPool, id: RunId) -> sqlx::Result<Option<RunDetail>> {
    let Some(summary) = summary(pool, id).await? else {
        return Ok(None);
    };
    let (tool_args, first, last, mut block, sha, message_id): DetailRow = sqlx::query_as(
        "SELECT r.tool_args, r.first_line, r.last_line, r.block, u.blob_sha256,
                u.message_id
         FROM runs r LEFT JOIN uploads u ON u.id = r.upload_id JOIN variants v ON v.id = r.variant_id
         WHERE r.id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await?;
    // A table's columns after the first refer to the run holding the block.
    if let Some(holder) = block
        .get(crate::storage::ingest::SHARED_BLOCK_KEY)
        .and_then(|v| v.as_i64())
    {
        let whole: Option<serde_json::Value> =
            sqlx::query_scalar("SELECT block FROM runs WHERE id = $1")
                .bind(holder)
                .fetch_optional(pool)
                .await?;
        if let Some(w) = whole {
            block = w;
        }
    }
    let threads = sqlx::query_as(
        "SELECT thread, tid, priority, interval_us, cycles, cpu, min_us, act_us, avg_us, max_us
         FROM latency_threads WHERE run_id = $1 ORDER BY thread",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    let trace = sqlx::query_as(
        "SELECT tracer, latency_us, cpu, nr_cpus, preempt_model, task_comm, task_pid, culprit,
                culprit_path, stack FROM traces WHERE run_id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    let metrics = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {METRIC_COLUMNS} FROM metrics WHERE run_id = $1 ORDER BY id"
    )))
    .bind(id)
    .try_map(metric_value)
    .fetch_all(pool)
    .await?;
    let histogram = sqlx::query_as(
        "SELECT thread, lower_us, count FROM histogram_buckets WHERE run_id = $1 ORDER BY thread, lower_us",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    let locks = sqlx::query_as(
        "SELECT lock_type, caller, lock, address, task, pid, cgroup, contended, total_wait_us,
                max_wait_us, min_wait_us, avg_wait_us, stack
         FROM lock_rows WHERE run_id = $1 ORDER BY total_wait_us DESC, position",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    Ok(Some(RunDetail {
        summary,
        locks,
        tool_args,
        lines: [first, last],
        blob_sha256: sha.map(hex::encode),
        message_id,
        threads,
        trace,
        metrics,
        histogram,
        block,
    }))
}

/// The raw bytes of the upload a run came from.
pub async fn raw(
    db: impl PgExecutor<'_>,
    run_id: RunId,
) -> sqlx::Result<Option<(Vec<u8>, Option<String>)>> {
    sqlx::query_as(
        "SELECT b.content, u.filename FROM runs r JOIN uploads u ON u.id = r.upload_id
         JOIN blobs b ON b.sha256 = u.blob_sha256 WHERE r.id = $1 AND r.deleted_at IS NULL",
    )
    .bind(run_id)
    .fetch_optional(db)
    .await
}
