//! Command line and environment configuration: one clap struct per
//! subcommand, every field also readable from the environment
//! (documented in `.env.example`). Secrets are never printed.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::jobs::defaults as sim;

#[derive(Debug, Parser)]
#[command(
    name = "reclaimlab",
    version,
    about = "Store, compare and simulate Linux reclaim latency results"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web site and the API.
    Serve(ServeArgs),
    /// Apply database migrations and exit.
    Migrate(DbArgs),
    /// Create, list or revoke API tokens.
    Token(TokenArgs),
    /// Upload a result file to a server.
    Upload(UploadArgs),
    /// Parse a file (or `-` for stdin) and print the document as JSON.
    Parse(ParseArgs),
    /// Load the demo data (result blocks from the seed threads).
    Demo(DbArgs),
    /// Run the reclaim simulator on a scenario.
    Simulate(SimulateArgs),
    /// Recompute the overview aggregates (heatmap, culprit and metric
    /// cells) from the stored runs: after a restore or a bulk load in SQL.
    RebuildOverview(DbArgs),
    /// Print the API's OpenAPI document (`docs/openapi.json` is this
    /// output: `reclaimlab openapi > docs/openapi.json`).
    Openapi,
    /// Internal: run one simulation job read from stdin (used by workers).
    #[command(hide = true)]
    SimExec,
}

#[derive(Debug, Clone, Args)]
pub struct DbArgs {
    /// PostgreSQL connection string.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: String,
    /// Maximum connections in the pool.
    #[arg(long, env = "RECLAIMLAB_DB_MAX_CONNECTIONS", default_value_t = 10)]
    pub db_max_connections: u32,
    /// Seconds to wait for a pooled connection before failing the request.
    #[arg(long, env = "RECLAIMLAB_DB_ACQUIRE_TIMEOUT", default_value_t = 3)]
    pub db_acquire_timeout_secs: u64,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Address to listen on.
    #[arg(long, env = "RECLAIMLAB_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Public base URL used in permalinks and API answers.
    #[arg(long, env = "RECLAIMLAB_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Largest accepted upload body, in bytes (as sent, possibly gzip).
    #[arg(long, env = "RECLAIMLAB_MAX_UPLOAD_BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_upload_bytes: usize,
    /// Largest decompressed upload, in bytes, for `Content-Encoding: gzip`.
    #[arg(long, env = "RECLAIMLAB_MAX_DECODED_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub max_decoded_bytes: usize,
    /// Parses (and uploads being stored) at once; 0 = two per core.
    #[arg(long, env = "RECLAIMLAB_MAX_PARSES", default_value_t = 0)]
    pub max_parses: usize,
    /// Memory budget of the parses in flight, in MiB.
    #[arg(long, env = "RECLAIMLAB_PARSE_MEMORY_MB", default_value_t = crate::ingest::DEFAULT_PARSE_MEMORY_MIB)]
    pub parse_memory_mb: u32,
    /// Memory per byte of an input held in memory (pasted mails), for its
    /// share of the budget; streamed uploads take a fixed share.
    #[arg(long, env = "RECLAIMLAB_PARSE_MEMORY_FACTOR", default_value_t = crate::ingest::DEFAULT_PARSE_MEMORY_FACTOR)]
    pub parse_memory_factor: f64,
    /// Seconds a request waits for a parse slot before its 503.
    #[arg(long, env = "RECLAIMLAB_PARSE_WAIT", default_value_t = 10)]
    pub parse_wait_secs: u64,
    /// Anonymous `POST /api/v1/parse` requests per client address per minute.
    #[arg(long, env = "RECLAIMLAB_ANON_PARSES_PER_MINUTE", default_value_t = 30)]
    pub anonymous_parses_per_minute: u32,
    /// Largest anonymous `POST /api/v1/parse` body, as sent and decoded.
    #[arg(long, env = "RECLAIMLAB_ANON_PARSE_BYTES", default_value_t = 8 * 1024 * 1024)]
    pub anonymous_parse_bytes: usize,
    /// Seconds a request may take before it is answered 408.
    #[arg(long, env = "RECLAIMLAB_REQUEST_TIMEOUT", default_value_t = 60)]
    pub request_timeout_secs: u64,
    /// Seconds a client may take to send the request headers.
    #[arg(long, env = "RECLAIMLAB_HEADER_READ_TIMEOUT", default_value_t = 10)]
    pub header_read_timeout_secs: u64,
    /// Seconds a connection may sit with no request in flight and no byte
    /// moving before it is closed.
    #[arg(long, env = "RECLAIMLAB_IDLE_TIMEOUT", default_value_t = 30)]
    pub idle_timeout_secs: u64,
    /// Seconds after which any connection is asked to finish (its request
    /// in flight completes first).
    #[arg(long, env = "RECLAIMLAB_MAX_CONNECTION_AGE", default_value_t = 600)]
    pub max_connection_age_secs: u64,
    /// Open connections at most (0 = from the open-file limit).
    #[arg(long, env = "RECLAIMLAB_MAX_CONNECTIONS", default_value_t = 0)]
    pub max_connections: usize,
    /// Load the demo data before serving.
    #[arg(long, env = "RECLAIMLAB_DEMO", default_value_t = false)]
    pub demo: bool,
    /// Simulation workers in this process (0 = none).
    #[arg(long, env = "RECLAIMLAB_SIM_WORKERS", default_value_t = default_workers())]
    pub sim_workers: usize,
    /// Wall-clock limit of one simulation job, in seconds.
    #[arg(long, env = "RECLAIMLAB_SIM_WALL_SECS", default_value_t = sim::WALL_SECS)]
    pub sim_wall_secs: u64,
    /// CPU-time limit of one simulation job (all its threads), in seconds.
    #[arg(long, env = "RECLAIMLAB_SIM_CPU_SECS", default_value_t = sim::CPU_SECS)]
    pub sim_cpu_secs: u64,
    /// Address-space limit of one simulation process, in MiB.
    #[arg(long, env = "RECLAIMLAB_SIM_MEM_MB", default_value_t = sim::MEM_MB)]
    pub sim_mem_mb: u64,
    /// Events limit of one simulation (per variant and replication).
    #[arg(
        long,
        env = "RECLAIMLAB_SIM_MAX_EVENTS",
        default_value_t = sim::MAX_EVENTS
    )]
    pub sim_max_events: u64,
    /// Lease length in seconds; a dead worker's job is retried after it.
    #[arg(long, env = "RECLAIMLAB_SIM_LEASE_SECS", default_value_t = sim::LEASE_SECS)]
    pub sim_lease_secs: f64,
    /// Queued or running jobs one token may have.
    #[arg(long, env = "RECLAIMLAB_SIM_PER_TOKEN", default_value_t = sim::PER_TOKEN_ACTIVE)]
    pub sim_per_token: i64,
    /// Queued or running jobs in all.
    #[arg(long, env = "RECLAIMLAB_SIM_MAX_QUEUE", default_value_t = sim::MAX_QUEUE)]
    pub sim_max_queue: i64,
    /// Nice value of simulator processes (0-19): the service keeps the CPU
    /// it needs to answer while simulations run.
    #[arg(long, env = "RECLAIMLAB_SIM_NICE", default_value_t = sim::NICE,
          value_parser = clap::value_parser!(u8).range(0..=19))]
    pub sim_nice: u8,
}

impl ServeArgs {
    pub fn job_config(&self) -> crate::jobs::JobConfig {
        let lease = self.sim_lease_secs.max(1.0);
        crate::jobs::JobConfig {
            lease_secs: lease,
            heartbeat: std::time::Duration::from_secs_f64((lease / 4.0).max(0.25)),
            wall_secs: self.sim_wall_secs,
            cpu_secs: self.sim_cpu_secs,
            mem_mb: self.sim_mem_mb,
            max_events: self.sim_max_events,
            per_token_active: self.sim_per_token,
            max_queue: self.sim_max_queue,
            nice: self.sim_nice,
            ..crate::jobs::JobConfig::default()
        }
    }
}

fn default_workers() -> usize {
    // Leave a core for serving.
    std::thread::available_parallelism()
        .map(|n| n.get().saturating_sub(1).max(1))
        .unwrap_or(1)
}

#[derive(Debug, Clone, Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    pub action: TokenAction,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum TokenAction {
    /// Create a token and print it once.
    Create {
        /// A name for the token holder, e.g. the rig.
        #[arg(long)]
        name: String,
        /// What the token may do: read, upload or admin.
        #[arg(long, default_value = "upload")]
        scope: String,
        /// Days until the token expires (never, when absent).
        #[arg(long)]
        expires_days: Option<i64>,
    },
    /// Revoke a token by id, name or printed prefix; effective immediately.
    Revoke {
        /// Token id, name, or the prefix shown by `token list`.
        which: String,
    },
    /// List tokens (never their secret).
    List,
}

#[derive(Debug, Clone, Args)]
pub struct UploadArgs {
    /// File to upload (`-` for stdin).
    pub file: PathBuf,
    /// Server base URL.
    #[arg(
        long,
        env = "RECLAIMLAB_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    pub server: String,
    /// Upload token.
    #[arg(long, env = "RECLAIMLAB_TOKEN", hide_env_values = true)]
    pub token: String,
    /// PEM file of certificates to trust for an `https://` server, besides
    /// the bundled public roots (a private CA, or a self-signed server).
    #[arg(long, env = "RECLAIMLAB_CA_CERT", value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    #[arg(long)]
    pub board: Option<String>,
    #[arg(long)]
    pub kernel: Option<String>,
    #[arg(long)]
    pub variant: Option<String>,
    /// Parent variant (chains like vanilla -> batch-v1).
    #[arg(long)]
    pub parent: Option<String>,
    /// lore Message-ID of the patch or thread.
    #[arg(long)]
    pub message_id: Option<String>,
    /// Load recipe or tool arguments, e.g. "cyclictest -Smp99".
    #[arg(long)]
    pub tool_args: Option<String>,
    /// Reachable only by link, not listed on pages.
    #[arg(long, default_value_t = false)]
    pub unlisted: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ParseArgs {
    /// File to parse (`-` for stdin).
    pub file: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// Scenario: a built-in name or a TOML file.
    pub scenario: Option<String>,
    /// Only these variants (repeatable).
    #[arg(long = "variant")]
    pub variants: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub replications: Option<u32>,
    /// Simulated duration, e.g. 30s, 5m, 30m.
    #[arg(long)]
    pub duration: Option<String>,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// List built-in scenarios, boards and presets.
    #[arg(long, default_value_t = false)]
    pub list: bool,
}
