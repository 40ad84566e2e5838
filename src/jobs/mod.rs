//! Background simulation jobs on PostgreSQL.
//!
//! Each worker (a tokio task; `serve --sim-workers N`) leases one job at a
//! time with `FOR UPDATE SKIP LOCKED`, runs the simulator in a child process
//! (`reclaimlab sim-exec`, under `ulimit -v` and `ulimit -t`, at the lowest
//! CPU priority so the service keeps answering, killed at the wall-clock
//! deadline), heartbeats the lease while it runs, and writes the
//! result in the same transaction that marks the job done, fenced by the
//! lease token. A worker that dies loses its lease; another process picks
//! the job up when the lease expires. The child never touches the database,
//! so a stale simulation can never write a result.

pub mod exec;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use sqlx::PgPool;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::watch;
use tracing::Instrument;

use crate::ingest::{self, UploadMeta};
use crate::storage::ingest::NewUpload;
use crate::storage::simulations::{self as jobs, Job};
use exec::{ExecInput, ExecLine, ExecOutput};

/// Limits and timings for simulation jobs.
#[derive(Debug, Clone)]
pub struct JobConfig {
    pub lease_secs: f64,
    pub heartbeat: Duration,
    pub poll: Duration,
    pub wall_secs: u64,
    pub cpu_secs: u64,
    pub mem_mb: u64,
    pub max_events: u64,
    pub max_sim_ns: u64,
    pub per_token_active: i64,
    pub max_queue: i64,
    pub max_replications: u32,
    /// Nice value of the simulator process (0-19; 19 = lowest priority).
    pub nice: u8,
    /// The `reclaimlab` binary that runs `sim-exec`.
    pub exe: PathBuf,
}

/// The simulation limits' defaults, in one place: [`JobConfig::default`]
/// and the `serve --sim-*` flags both read them.
pub mod defaults {
    pub const LEASE_SECS: f64 = 15.0;
    pub const WALL_SECS: u64 = 600;
    pub const CPU_SECS: u64 = 1200;
    pub const MEM_MB: u64 = 2048;
    pub const MAX_EVENTS: u64 = 2_000_000_000;
    /// Two hours of simulated time.
    pub const MAX_SIM_NS: u64 = 2 * 3600 * 1_000_000_000;
    pub const PER_TOKEN_ACTIVE: i64 = 4;
    pub const MAX_QUEUE: i64 = 200;
    pub const MAX_REPLICATIONS: u32 = 32;
    pub const NICE: u8 = 19;
}

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            lease_secs: defaults::LEASE_SECS,
            heartbeat: Duration::from_secs(3),
            poll: Duration::from_millis(500),
            wall_secs: defaults::WALL_SECS,
            cpu_secs: defaults::CPU_SECS,
            mem_mb: defaults::MEM_MB,
            max_events: defaults::MAX_EVENTS,
            max_sim_ns: defaults::MAX_SIM_NS,
            per_token_active: defaults::PER_TOKEN_ACTIVE,
            max_queue: defaults::MAX_QUEUE,
            max_replications: defaults::MAX_REPLICATIONS,
            nice: defaults::NICE,
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("reclaimlab")),
        }
    }
}

/// Start `n` workers; they stop claiming when `stop` turns true.
pub fn start(
    pool: &PgPool,
    cfg: &JobConfig,
    n: usize,
    stop: watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    (0..n)
        .map(|i| {
            let name = format!("{host}-{}-{i}", std::process::id());
            let pool = pool.clone();
            let cfg = cfg.clone();
            let stop = stop.clone();
            tokio::spawn(async move { worker_loop(pool, cfg, name, stop).await })
        })
        .collect()
}

async fn worker_loop(pool: PgPool, cfg: JobConfig, name: String, mut stop: watch::Receiver<bool>) {
    tracing::info!(worker = %name, "simulation worker started");
    while !*stop.borrow() {
        let _ = jobs::sweep_expired(&pool).await;
        let job = match jobs::claim(&pool, &name, cfg.lease_secs).await {
            Ok(Some(job)) => job,
            Ok(None) => {
                tokio::select! {
                    _ = tokio::time::sleep(cfg.poll) => {}
                    _ = stop.changed() => {}
                }
                continue;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot claim a job");
                tokio::time::sleep(Duration::from_secs(2)).await;
                continue;
            }
        };
        // The span covers the whole job, every await included: log lines
        // of the run, its heartbeats and its outcome carry the job's id.
        let span = tracing::info_span!(
            "simulation",
            worker = %name,
            simulation.id = job.id.0,
            attempt = job.attempts
        );
        run_job(&pool, &cfg, job, &mut stop).instrument(span).await;
    }
    tracing::info!(worker = %name, "simulation worker stopped");
}

enum Outcome {
    Done(Box<ExecOutput>),
    Failed(String, bool),
    Cancelled,
    LeaseLost,
    Shutdown,
}

async fn run_job(pool: &PgPool, cfg: &JobConfig, job: Job, stop: &mut watch::Receiver<bool>) {
    let Some(lease) = job.lease_token else { return };
    let outcome = execute(pool, cfg, &job, lease, stop).await;
    let result = match outcome {
        Outcome::Done(out) => complete(pool, &job, lease, *out).await.map(|_| ()),
        Outcome::Failed(msg, retry) => {
            tracing::warn!(simulation.id = job.id.0, error = %msg, "simulation failed");
            jobs::mark_failed(pool, job.id, lease, &msg, retry)
                .await
                .map(|_| ())
                .map_err(Into::into)
        }
        Outcome::Cancelled => jobs::mark_cancelled(pool, job.id, lease)
            .await
            .map(|_| ())
            .map_err(Into::into),
        Outcome::LeaseLost => {
            tracing::warn!(simulation.id = job.id.0, "lease lost; result discarded");
            Ok(())
        }
        Outcome::Shutdown => jobs::release(pool, job.id, lease).await.map_err(Into::into),
    };
    if let Err(e) = result {
        tracing::error!(simulation.id = job.id.0, error = %e, "cannot record the job's outcome");
    }
}

fn exec_input(cfg: &JobConfig, job: &Job) -> ExecInput {
    ExecInput {
        scenario: job.scenario_toml.clone(),
        variants: job.variants.clone(),
        seed: job.seed as u64,
        replications: job.replications as u32,
        duration_ns: job.duration_ns.map(|d| d as u64),
        board_class: job.board_class.clone(),
        costs_toml: job.costs_toml.clone(),
        knobs: serde_json::from_value(job.knobs.clone()).unwrap_or_default(),
        max_events: cfg.max_events,
        max_sim_ns: cfg.max_sim_ns,
        nice: cfg.nice,
    }
}

/// Seconds of CPU time past the soft limit before the kernel's SIGKILL:
/// the soft limit's SIGXCPU is what tells a CPU-limit failure apart.
const CPU_HARD_GRACE_SECS: u64 = 5;

async fn execute(
    pool: &PgPool,
    cfg: &JobConfig,
    job: &Job,
    lease: uuid::Uuid,
    stop: &mut watch::Receiver<bool>,
) -> Outcome {
    let input = match serde_json::to_vec(&exec_input(cfg, job)) {
        Ok(v) => v,
        Err(e) => return Outcome::Failed(format!("cannot encode the job: {e}"), false),
    };
    let mut child = match tokio::process::Command::new("sh")
        .arg("-c")
        .arg(
            "ulimit -v \"$1\" && ulimit -S -t \"$2\" && ulimit -H -t \"$3\" && exec \"$0\" sim-exec",
        )
        .arg(&cfg.exe)
        .arg((cfg.mem_mb * 1024).to_string())
        .arg(cfg.cpu_secs.to_string())
        .arg((cfg.cpu_secs + CPU_HARD_GRACE_SECS).to_string())
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(format!("cannot start the simulator process: {e}"), true),
    };
    if let Some(mut stdin) = child.stdin.take() {
        if let Err(e) = stdin.write_all(&input).await {
            return Outcome::Failed(format!("cannot send the job to the simulator: {e}"), true);
        }
        drop(stdin);
    }
    let Some(stdout) = child.stdout.take() else {
        return Outcome::Failed("simulator has no stdout".into(), true);
    };
    let stderr = child.stderr.take();
    let stderr_task = tokio::spawn(async move {
        let mut buf = String::new();
        if let Some(s) = stderr {
            let mut lines = BufReader::new(s).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                if buf.len() < 4000 {
                    buf.push_str(&l);
                    buf.push('\n');
                }
            }
        }
        buf
    });
    let mut lines = BufReader::new(stdout).lines();
    let deadline = tokio::time::sleep(Duration::from_secs(cfg.wall_secs));
    tokio::pin!(deadline);
    let mut beat = tokio::time::interval(cfg.heartbeat);
    let (mut sim_ns, mut events) = (0i64, 0i64);
    let mut result: Option<Result<ExecOutput, String>> = None;
    loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(l)) => match serde_json::from_str::<ExecLine>(&l) {
                    Ok(ExecLine::Progress { sim_ns: s, events: e }) => { sim_ns = s as i64; events = e as i64; }
                    Ok(ExecLine::Done(out)) => { result = Some(Ok(*out)); }
                    Ok(ExecLine::Error(msg)) => { result = Some(Err(msg)); }
                    Err(_) => {}
                },
                Ok(None) | Err(_) => break,
            },
            _ = beat.tick() => {
                match jobs::heartbeat(pool, job.id, lease, cfg.lease_secs, sim_ns, events).await {
                    Ok(Some(false)) => {}
                    Ok(Some(true)) => { let _ = child.kill().await; return Outcome::Cancelled; }
                    Ok(None) => { let _ = child.kill().await; return Outcome::LeaseLost; }
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
                }
            }
            _ = &mut deadline => {
                let _ = child.kill().await;
                return Outcome::Failed(format!("wall-clock limit of {} s exceeded", cfg.wall_secs), false);
            }
            _ = stop.changed() => {
                let _ = child.kill().await;
                return Outcome::Shutdown;
            }
        }
    }
    let status = child.wait().await;
    let stderr = stderr_task.await.unwrap_or_default();
    match result {
        Some(Ok(out)) => Outcome::Done(Box::new(out)),
        Some(Err(msg)) => Outcome::Failed(msg, false),
        None => {
            let why = match status {
                Ok(s) => {
                    use std::os::unix::process::ExitStatusExt;
                    failure_reason(cfg, s.signal(), s.code(), &stderr)
                }
                Err(e) => format!("cannot wait for the simulator: {e}"),
            };
            Outcome::Failed(why, false)
        }
    }
}

/// Why a simulator process ended without a result, in the job's terms.
/// The limits show up as: SIGXCPU (the soft CPU limit), an allocation
/// failure under the address-space limit (Rust prints "memory allocation
/// of N bytes failed" and aborts with SIGABRT; a thread or mmap that cannot
/// get memory reports ENOMEM), or SIGKILL from the kernel (the hard CPU
/// limit or the out-of-memory killer; the worker itself kills only on the
/// wall-clock deadline, cancel or shutdown, which are reported elsewhere).
pub fn failure_reason(
    cfg: &JobConfig,
    signal: Option<i32>,
    code: Option<i32>,
    stderr: &str,
) -> String {
    let out_of_memory = stderr.contains("memory allocation of")
        || stderr.contains("out of memory")
        || stderr.contains("Cannot allocate memory")
        || stderr.contains("os error 12")
        // glibc reports a thread stack it cannot map as EAGAIN.
        || (stderr.contains("spawn") && stderr.contains("os error 11"));
    let detail = stderr.trim();
    let detail = match detail.char_indices().nth(300) {
        Some((i, _)) => &detail[..i],
        None => detail,
    };
    match signal {
        Some(24) => format!("CPU time limit of {} s exceeded", cfg.cpu_secs),
        _ if out_of_memory => format!(
            "memory limit of {} MiB exceeded (address space)",
            cfg.mem_mb
        ),
        Some(9) => format!(
            "the simulator was killed by the kernel: the CPU time limit of {} s (hard limit {} s) or the system's out-of-memory killer",
            cfg.cpu_secs,
            cfg.cpu_secs + CPU_HARD_GRACE_SECS
        ),
        Some(6) => format!("the simulator aborted: {detail}"),
        Some(11) if detail.is_empty() => format!(
            "the simulator crashed (SIGSEGV) before printing anything; an address-space limit of {} MiB may be too small to start it",
            cfg.mem_mb
        ),
        Some(sig) => format!("the simulator process died on signal {sig}: {detail}"),
        None => format!(
            "the simulator exited with code {}: {detail}",
            code.map(|c| c.to_string()).unwrap_or_else(|| "?".into())
        ),
    }
}

/// Store every variant's document as a simulated upload + runs, and mark the
/// job done, in one transaction fenced by the lease.
async fn complete(
    pool: &PgPool,
    job: &Job,
    lease: uuid::Uuid,
    out: ExecOutput,
) -> anyhow::Result<bool> {
    let mut tx = pool.begin().await?;
    if !jobs::mark_done(&mut tx, job.id, lease, out.events as i64, out.sim_ns as i64).await? {
        tx.rollback().await?;
        tracing::warn!(
            simulation.id = job.id.0,
            "job no longer ours (lease lost or cancelled); result discarded"
        );
        return Ok(false);
    }
    let board = job_board(pool, job, &out.board).await?;
    let mut first_upload = None;
    let mut prev: Option<String> = None;
    for v in &out.variants {
        let content = serde_json::to_vec(&v.document)?;
        let meta = UploadMeta {
            board: Some(board.clone()),
            kernel: Some(v.kernel.clone()),
            variant: Some(v.name.clone()),
            parent: prev.clone().filter(|p| *p != v.name),
            tool_args: Some(format!(
                "reclaimlab simulate {} --variant {} --seed {} --replications {}",
                job.scenario_name.as_deref().unwrap_or("(scenario)"),
                v.name,
                job.seed,
                job.replications
            )),
            filename: Some(format!("simulation-{}-{}.json", job.id, v.name)),
            ..UploadMeta::default()
        };
        prev = Some(v.name.clone());
        let sha = ingest::sha256(&content);
        let fp = ingest::fingerprint(&sha, &meta);
        let mut runs = ingest::plan_runs(&v.document, &meta).map_err(|e| anyhow::anyhow!("{e}"))?;
        // The chain follows the scenario's variant order, which a user's
        // scenario may reverse: never fail a finished job over it.
        for r in &mut runs {
            r.parent_inferred = true;
            // A simulated table is the model's output for a named test, one
            // per replication: replications of it are samples of one scope,
            // not tables of their own.
            if r.scope == ingest::Scope::Table {
                r.scope = ingest::Scope::Tool(format!("simulated {}", r.section));
            }
        }
        let document = serde_json::to_value(&v.document)?;
        let key = format!("simulation-{}-{}", job.id, v.name);
        let stored = crate::storage::ingest::write_upload(
            &mut tx,
            &NewUpload {
                content: crate::blob::Blob::Bytes(&content),
                content_sha: &sha,
                fingerprint: &fp,
                idempotency_key: &key,
                content_type: Some("application/json"),
                meta: &meta,
                token_id: job.token_id,
                parser_version: &job.sim_version,
                document: &document,
                message_id: None,
                subject: None,
                runs: &runs,
                kind: crate::storage::runs::RunKind::Simulated,
            },
            Some(job.id),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| anyhow::anyhow!("simulation {} already has stored results", job.id))?;
        first_upload.get_or_insert(stored.upload_id);
    }
    let upload_id =
        first_upload.ok_or_else(|| anyhow::anyhow!("the simulation produced no variant"))?;
    jobs::insert_result(&mut tx, job.id, upload_id, &out.report, &out.text).await?;
    tx.commit().await?;
    tracing::info!(
        simulation.id = job.id.0,
        variants = out.variants.len(),
        "simulation done"
    );
    Ok(true)
}

async fn job_board(pool: &PgPool, job: &Job, simulated: &str) -> anyhow::Result<String> {
    Ok(match job.board_id {
        Some(id) => jobs::board_name(pool, id).await?,
        None => simulated.to_string(),
    })
}
