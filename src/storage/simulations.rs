//! Simulation jobs: submit, lease (`FOR UPDATE SKIP LOCKED`), heartbeat,
//! complete exactly once (fenced by the lease token), fail, cancel.

use chrono::{DateTime, Utc};
use sqlx::{FromRow, PgConnection, PgExecutor};
use uuid::Uuid;

use crate::storage::ids::{BoardId, JobId, RunId, UploadId};

/// Where a simulation job is in its life (`simulations.state`, a `TEXT`
/// column with a `CHECK` on these five words).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    sqlx::Type,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Waiting for a worker (or for its retry time).
    Queued,
    /// Leased by a worker.
    Running,
    /// Finished; its result is stored.
    Done,
    /// Gave up: the error says why.
    Failed,
    /// Cancelled by its submitter or an admin.
    Cancelled,
}

impl JobState {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    /// Queued or running: the job may still change.
    pub fn is_active(self) -> bool {
        matches!(self, JobState::Queued | JobState::Running)
    }
}

impl std::fmt::Display for JobState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct Job {
    pub id: JobId,
    pub token_id: Option<i64>,
    pub scenario_name: Option<String>,
    pub scenario_toml: String,
    pub variants: Vec<String>,
    pub seed: i64,
    pub replications: i32,
    pub duration_ns: Option<i64>,
    pub board_id: Option<BoardId>,
    pub board_class: Option<String>,
    pub costs_toml: Option<String>,
    pub sweep_id: Option<i64>,
    pub sweep_value: Option<f64>,
    pub knobs: serde_json::Value,
    pub sim_version: String,
    pub state: JobState,
    pub cancel_requested: bool,
    pub attempts: i32,
    pub max_attempts: i32,
    pub lease_token: Option<Uuid>,
    pub lease_until: Option<DateTime<Utc>>,
    pub worker: Option<String>,
    pub progress_sim_ns: i64,
    pub progress_events: i64,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

const JOB_COLS: &str = "id, token_id, scenario_name, scenario_toml, variants, seed, replications,
    duration_ns, board_id, board_class, costs_toml, sweep_id, sweep_value, knobs, sim_version, state,
    cancel_requested, attempts, max_attempts, lease_token, lease_until, worker, progress_sim_ns,
    progress_events, error, created_at, started_at, finished_at";

#[derive(Debug, Clone)]
pub struct NewJob {
    pub token_id: Option<i64>,
    pub scenario_name: Option<String>,
    pub scenario_toml: String,
    pub variants: Vec<String>,
    pub seed: i64,
    pub replications: i32,
    pub duration_ns: Option<i64>,
    pub board_id: Option<BoardId>,
    pub board_class: Option<String>,
    pub costs_toml: Option<String>,
    pub sweep_id: Option<i64>,
    pub sweep_value: Option<f64>,
    pub knobs: serde_json::Value,
    pub input_hash: Vec<u8>,
    pub sim_version: String,
    pub max_attempts: i32,
}

pub async fn insert(db: impl PgExecutor<'_>, j: &NewJob) -> sqlx::Result<JobId> {
    sqlx::query_scalar(
        "INSERT INTO simulations (token_id, scenario_name, scenario_toml, variants, seed, replications,
            duration_ns, board_id, board_class, costs_toml, sweep_id, sweep_value, knobs, input_hash,
            sim_version, max_attempts)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16) RETURNING id",
    )
    .bind(j.token_id)
    .bind(&j.scenario_name)
    .bind(&j.scenario_toml)
    .bind(&j.variants)
    .bind(j.seed)
    .bind(j.replications)
    .bind(j.duration_ns)
    .bind(j.board_id)
    .bind(&j.board_class)
    .bind(&j.costs_toml)
    .bind(j.sweep_id)
    .bind(j.sweep_value)
    .bind(&j.knobs)
    .bind(&j.input_hash)
    .bind(&j.sim_version)
    .bind(j.max_attempts)
    .fetch_one(db)
    .await
}

/// A finished job with the same inputs and simulator version, if any.
pub async fn cached(
    db: impl PgExecutor<'_>,
    input_hash: &[u8],
    sim_version: &str,
) -> sqlx::Result<Option<JobId>> {
    sqlx::query_scalar(
        "SELECT id FROM simulations WHERE input_hash = $1 AND sim_version = $2 AND state = 'done'
         ORDER BY id LIMIT 1",
    )
    .bind(input_hash)
    .bind(sim_version)
    .fetch_optional(db)
    .await
}

/// Jobs of a token that are still queued or running.
pub async fn active_for_token(db: impl PgExecutor<'_>, token_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM simulations WHERE token_id = $1 AND state IN ('queued', 'running')",
    )
    .bind(token_id)
    .fetch_one(db)
    .await
}

/// Serialize submissions: held until the caller's transaction ends, so the
/// quota counts a submit reads and the jobs it inserts are one atomic step
/// (two concurrent submits can never both see the last free slot).
pub async fn lock_submissions(conn: &mut PgConnection) -> sqlx::Result<()> {
    // Any constant works; this one is the ASCII of "rl-sims".
    sqlx::query("SELECT pg_advisory_xact_lock(32207089810632051)")
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn queue_depth(db: impl PgExecutor<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM simulations WHERE state IN ('queued', 'running')")
        .fetch_one(db)
        .await
}

pub async fn get(db: impl PgExecutor<'_>, id: JobId) -> sqlx::Result<Option<Job>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {JOB_COLS} FROM simulations WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(db)
    .await
}

pub async fn recent(db: impl PgExecutor<'_>, limit: i64) -> sqlx::Result<Vec<Job>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {JOB_COLS} FROM simulations ORDER BY id DESC LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(db)
    .await
}

pub async fn by_sweep(db: impl PgExecutor<'_>, sweep_id: i64) -> sqlx::Result<Vec<Job>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {JOB_COLS} FROM simulations WHERE sweep_id = $1 ORDER BY sweep_value, id"
    )))
    .bind(sweep_id)
    .fetch_all(db)
    .await
}

/// Lease the next runnable job: a queued one whose backoff has passed, or a
/// running one whose lease expired (its worker died). Concurrent claimers
/// skip each other's locked rows, so no job is handed out twice.
pub async fn claim(
    db: impl PgExecutor<'_>,
    worker: &str,
    lease_secs: f64,
) -> sqlx::Result<Option<Job>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE simulations SET state = 'running', lease_token = gen_random_uuid(),
             lease_until = now() + make_interval(secs => $2), attempts = attempts + 1,
             worker = $1, started_at = COALESCE(started_at, now()), error = NULL
         FROM (SELECT id FROM simulations
               WHERE ((state = 'queued' AND not_before <= now())
                      OR (state = 'running' AND lease_until < now()))
                 AND NOT cancel_requested
               ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) AS next
         WHERE simulations.id = next.id
         RETURNING {}",
        JOB_COLS
            .split(',')
            .map(|c| format!("simulations.{}", c.trim()))
            .collect::<Vec<_>>()
            .join(", ")
    )))
    .bind(worker)
    .bind(lease_secs)
    .fetch_optional(db)
    .await
}

/// Jobs whose lease expired and that asked to be cancelled, or whose
/// attempts are used up: settle them so they do not wait forever.
pub async fn sweep_expired(db: impl PgExecutor<'_>) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE simulations SET
            state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'failed' END,
            error = CASE WHEN cancel_requested THEN error
                         ELSE 'the worker stopped answering ' || attempts || ' times; giving up' END,
            finished_at = now(), lease_token = NULL
         WHERE state = 'running' AND lease_until < now()
           AND (cancel_requested OR attempts >= max_attempts)",
    )
    .execute(db)
    .await?;
    Ok(r.rows_affected())
}

/// Extend the lease and record progress. Returns `None` when the lease was
/// lost, else whether a cancel was requested.
pub async fn heartbeat(
    db: impl PgExecutor<'_>,
    id: JobId,
    lease: Uuid,
    lease_secs: f64,
    sim_ns: i64,
    events: i64,
) -> sqlx::Result<Option<bool>> {
    sqlx::query_scalar(
        "UPDATE simulations SET lease_until = now() + make_interval(secs => $3),
             progress_sim_ns = GREATEST(progress_sim_ns, $4), progress_events = GREATEST(progress_events, $5)
         WHERE id = $1 AND lease_token = $2 AND state = 'running'
         RETURNING cancel_requested",
    )
    .bind(id)
    .bind(lease)
    .bind(lease_secs)
    .bind(sim_ns)
    .bind(events)
    .fetch_optional(db)
    .await
}

/// Mark done, fenced by the lease. Call inside the transaction that stores
/// the result; 0 rows means a stale worker, whose result must be discarded.
pub async fn mark_done(
    conn: &mut PgConnection,
    id: JobId,
    lease: Uuid,
    events: i64,
    sim_ns: i64,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE simulations SET state = 'done', finished_at = now(), lease_token = NULL,
             progress_events = $3, progress_sim_ns = $4
         WHERE id = $1 AND lease_token = $2 AND state = 'running' AND NOT cancel_requested",
    )
    .bind(id)
    .bind(lease)
    .bind(events)
    .bind(sim_ns)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Fail (terminally, or back to the queue with backoff when attempts remain
/// and the failure may be transient).
pub async fn mark_failed(
    db: impl PgExecutor<'_>,
    id: JobId,
    lease: Uuid,
    error: &str,
    retry: bool,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE simulations SET
            state = CASE WHEN $4 AND attempts < max_attempts THEN 'queued' ELSE 'failed' END,
            not_before = now() + make_interval(secs => LEAST(60, power(2, attempts))::float8),
            finished_at = CASE WHEN $4 AND attempts < max_attempts THEN NULL ELSE now() END,
            lease_token = NULL, error = $3
         WHERE id = $1 AND lease_token = $2 AND state = 'running'",
    )
    .bind(id)
    .bind(lease)
    .bind(error)
    .bind(retry)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub async fn mark_cancelled(db: impl PgExecutor<'_>, id: JobId, lease: Uuid) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE simulations SET state = 'cancelled', finished_at = now(), lease_token = NULL
         WHERE id = $1 AND lease_token = $2 AND state = 'running'",
    )
    .bind(id)
    .bind(lease)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Release a lease on shutdown so another process picks the job up at once.
pub async fn release(db: impl PgExecutor<'_>, id: JobId, lease: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE simulations SET state = 'queued', lease_token = NULL, attempts = GREATEST(attempts - 1, 0)
         WHERE id = $1 AND lease_token = $2 AND state = 'running'",
    )
    .bind(id)
    .bind(lease)
    .execute(db)
    .await?;
    Ok(())
}

/// Request cancellation. Queued jobs are cancelled at once; running ones
/// when their worker next heartbeats. Returns the new state.
pub async fn request_cancel(db: impl PgExecutor<'_>, id: JobId) -> sqlx::Result<Option<JobState>> {
    sqlx::query_scalar(
        "UPDATE simulations SET
            cancel_requested = state IN ('queued', 'running'),
            state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
            finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END
         WHERE id = $1 RETURNING state",
    )
    .bind(id)
    .fetch_optional(db)
    .await
}

pub async fn result_runs(db: impl PgExecutor<'_>, id: JobId) -> sqlx::Result<Vec<RunId>> {
    sqlx::query_scalar("SELECT id FROM runs WHERE simulation_id = $1 ORDER BY id")
        .bind(id)
        .fetch_all(db)
        .await
}

/// The report text of a finished simulation, without its JSON report
/// (about 200 KiB for one scenario: read and parsed, it was most of the
/// simulation page's time, which shows only the text).
pub async fn result_report_text(
    db: impl PgExecutor<'_>,
    id: JobId,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT report_text FROM simulation_results WHERE simulation_id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn result_text(
    db: impl PgExecutor<'_>,
    id: JobId,
) -> sqlx::Result<Option<(String, serde_json::Value)>> {
    sqlx::query_as("SELECT report_text, report FROM simulation_results WHERE simulation_id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn insert_sweep(
    db: impl PgExecutor<'_>,
    knob: &str,
    variant: &str,
    output: &str,
    token_id: Option<i64>,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO sweeps (knob, variant, output, token_id) VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(knob)
    .bind(variant)
    .bind(output)
    .bind(token_id)
    .fetch_one(db)
    .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct Sweep {
    pub id: i64,
    pub knob: String,
    pub variant: String,
    pub output: String,
    pub created_at: DateTime<Utc>,
}

pub async fn sweep(db: impl PgExecutor<'_>, id: i64) -> sqlx::Result<Option<Sweep>> {
    sqlx::query_as("SELECT id, knob, variant, output, created_at FROM sweeps WHERE id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn board_costs(
    db: impl PgExecutor<'_>,
    board: &str,
) -> sqlx::Result<Option<(BoardId, String, String)>> {
    sqlx::query_as(
        "SELECT b.id, c.board_class, c.costs_toml FROM boards b JOIN board_costs c ON c.board_id = b.id
         WHERE b.name = $1",
    )
    .bind(board)
    .fetch_optional(db)
    .await
}

/// Store a board's cost table for `owner`. The first token to store one
/// owns it; later writes by another token change nothing and return
/// `None` (an admin, `owner = None`, may overwrite any). Check and write are
/// one statement, so two tokens racing for a new board cannot both win.
pub async fn set_board_costs(
    conn: &mut PgConnection,
    board: &str,
    class: &str,
    toml: &str,
    owner: Option<i64>,
) -> sqlx::Result<Option<BoardId>> {
    let id = crate::storage::catalog::board_id(conn, board).await?;
    let stored: Option<i64> = sqlx::query_scalar(
        "INSERT INTO board_costs (board_id, board_class, costs_toml, token_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (board_id) DO UPDATE SET board_class = EXCLUDED.board_class,
             costs_toml = EXCLUDED.costs_toml, updated_at = now()
         WHERE $4::bigint IS NULL OR board_costs.token_id = $4
         RETURNING board_id",
    )
    .bind(id)
    .bind(class)
    .bind(toml)
    .bind(owner)
    .fetch_optional(&mut *conn)
    .await?;
    if stored.is_none() {
        return Ok(None);
    }
    sqlx::query("UPDATE boards SET board_class = $2 WHERE id = $1")
        .bind(id)
        .bind(class)
        .execute(&mut *conn)
        .await?;
    Ok(Some(id))
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct BoardCostRow {
    pub board: String,
    pub board_class: String,
    pub costs_toml: String,
    pub updated_at: DateTime<Utc>,
}

pub async fn all_board_costs(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<BoardCostRow>> {
    sqlx::query_as(
        "SELECT b.name AS board, c.board_class, c.costs_toml, c.updated_at
         FROM board_costs c JOIN boards b ON b.id = c.board_id ORDER BY b.name",
    )
    .fetch_all(db)
    .await
}

pub async fn board_name(db: impl PgExecutor<'_>, id: BoardId) -> sqlx::Result<String> {
    sqlx::query_scalar("SELECT name FROM boards WHERE id = $1")
        .bind(id)
        .fetch_one(db)
        .await
}

/// The one result of a job; the primary key makes a second one impossible.
pub async fn insert_result(
    conn: &mut PgConnection,
    id: JobId,
    upload_id: UploadId,
    report: &serde_json::Value,
    text: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO simulation_results (simulation_id, upload_id, report, report_text) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(upload_id)
    .bind(report)
    .bind(text)
    .execute(conn)
    .await?;
    Ok(())
}
