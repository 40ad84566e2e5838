//! Submitting simulations: validation, limits, result caching and sweeps.
//! Shared by the API and the form. No SQL here (see `storage::simulations`).
//! Takes the pool and the job limits ([`JobConfig`]), not the web state.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::storage::ids::JobId;
use crate::storage::simulations::{self as jobs, NewJob};
use sqlx::PgPool;

use crate::jobs::JobConfig;

/// `POST /api/v1/simulations` body.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulationRequest {
    /// A built-in scenario name or a whole scenario TOML text.
    pub scenario: String,
    /// Variants to run (default: all of the scenario's).
    #[serde(default)]
    pub variants: Vec<String>,
    #[serde(default = "one")]
    pub seed: u64,
    /// 0 = the scenario's own number.
    #[serde(default)]
    pub replications: u32,
    /// Simulated duration, e.g. "20s" (default: the scenario's).
    #[serde(default)]
    #[schema(example = "20s")]
    pub duration: Option<String>,
    /// A board class (x86-server, x86-desktop, riscv-small) ...
    #[serde(default)]
    pub board_class: Option<String>,
    /// ... or a stored board, whose calibrated cost table is used.
    #[serde(default)]
    pub board: Option<String>,
    /// Knob overrides, `"variant.knob": value`.
    #[serde(default)]
    pub knobs: BTreeMap<String, f64>,
    /// One knob over a range of values: one job per value.
    #[serde(default)]
    pub sweep: Option<SweepRequest>,
    /// Run again even when an identical finished job exists.
    #[serde(default)]
    pub force: bool,
}

fn one() -> u64 {
    1
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepRequest {
    pub variant: String,
    pub knob: String,
    pub values: Vec<f64>,
    /// What to plot: cyclictest_max_us, irqsoff_max_us, preemptoff_max_us,
    /// wakeup_rt_max_us, or a metric name of the duration table.
    #[serde(default = "default_output")]
    pub output: String,
}

fn default_output() -> String {
    "cyclictest_max_us".into()
}

pub const MAX_SWEEP_POINTS: usize = 24;

/// What a submit produced.
#[derive(Debug, Clone, Serialize)]
pub struct Submitted {
    pub ids: Vec<JobId>,
    pub sweep_id: Option<i64>,
    /// An identical finished job answered the request.
    pub cached: bool,
}

fn bad(msg: String) -> AppError {
    AppError::Unprocessable {
        message: msg,
        line: None,
    }
}

pub async fn submit(
    pool: &PgPool,
    cfg: &JobConfig,
    req: SimulationRequest,
    token_id: Option<i64>,
) -> Result<Submitted, AppError> {
    if req.scenario.trim().is_empty() {
        return Err(bad(
            "scenario: give a built-in name or a scenario TOML".into()
        ));
    }
    if req.scenario.len() > 256 * 1024 {
        return Err(AppError::PayloadTooLarge(
            "scenario: at most 256 KiB of TOML".into(),
        ));
    }
    if req.replications > cfg.max_replications {
        return Err(bad(format!(
            "replications: at most {}",
            cfg.max_replications
        )));
    }
    if req.seed > i64::MAX as u64 {
        return Err(bad("seed: at most 2^63-1".into()));
    }
    let duration_ns = match &req.duration {
        Some(d) if !d.trim().is_empty() => {
            let ns = reclaimlab_sim::parse_duration(d).ok_or_else(|| {
                bad(format!(
                    "duration: expected e.g. 20s, 5m or 30m, found {d:?}"
                ))
            })?;
            if ns > cfg.max_sim_ns {
                return Err(bad(format!(
                    "duration: at most {} s of simulated time",
                    cfg.max_sim_ns / 1_000_000_000
                )));
            }
            Some(ns)
        }
        _ => None,
    };
    // A stored board brings its class and calibrated costs.
    let (board_id, mut board_class, costs_toml) =
        match req.board.as_deref().filter(|b| !b.is_empty()) {
            Some(b) => match jobs::board_costs(pool, b).await? {
                Some((id, class, costs)) => (Some(id), Some(class), Some(costs)),
                None => {
                    return Err(bad(format!(
                        "board: {b:?} has no cost table; store one first, or give board_class"
                    )));
                }
            },
            None => (None, None, None),
        };
    if let Some(c) = req.board_class.clone().filter(|c| !c.is_empty()) {
        board_class = Some(c);
    }
    let points: Vec<Option<f64>> = match &req.sweep {
        Some(s) => {
            if s.values.is_empty() || s.values.len() > MAX_SWEEP_POINTS {
                return Err(bad(format!(
                    "sweep.values: give 1 to {MAX_SWEEP_POINTS} values"
                )));
            }
            if s.values.iter().any(|v| !v.is_finite()) {
                return Err(bad(
                    "sweep.values: every value must be a finite number".into()
                ));
            }
            s.values.iter().map(|v| Some(*v)).collect()
        }
        None => vec![None],
    };
    // Validate every point in-process: cheap, and errors name the field.
    let mut validated = Vec::new();
    for p in &points {
        let mut knobs = req.knobs.clone();
        if let (Some(s), Some(v)) = (&req.sweep, p) {
            knobs.insert(format!("{}.{}", s.variant, s.knob), *v);
        }
        let (scenario, variants, bc, ct) = (
            req.scenario.clone(),
            req.variants.clone(),
            board_class.clone(),
            costs_toml.clone(),
        );
        let k2 = knobs.clone();
        let v = tokio::task::spawn_blocking(move || {
            crate::jobs::exec::validate(&scenario, &variants, bc.as_deref(), ct.as_deref(), &k2)
        })
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("validation task: {e}")))?
        .map_err(bad)?;
        check_caps(cfg, &v, req.replications, duration_ns)?;
        validated.push((v, knobs, *p));
    }
    let sim_version = reclaimlab_sim::SIM_VERSION.to_string();
    let mut tx = pool.begin().await?;
    // Quotas are read and the jobs inserted under one lock, in one
    // transaction: concurrent submits cannot both take the last slot.
    jobs::lock_submissions(&mut tx).await?;
    let mut new_jobs = Vec::new();
    let sweep_id = match &req.sweep {
        Some(s) => {
            Some(jobs::insert_sweep(&mut *tx, &s.knob, &s.variant, &s.output, token_id).await?)
        }
        None => None,
    };
    let mut ids = Vec::new();
    let mut cached = false;
    for (v, knobs, point) in validated {
        let knobs_json = serde_json::to_value(&knobs).unwrap_or_default();
        let mut h = Sha256::new();
        for part in [
            v.scenario_toml.as_str(),
            &v.variants.join("\u{1f}"),
            &req.seed.to_string(),
            &req.replications.to_string(),
            &duration_ns.map(|d| d.to_string()).unwrap_or_default(),
            &v.board_class,
            costs_toml.as_deref().unwrap_or(""),
            &knobs_json.to_string(),
        ] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        let input_hash = h.finalize().to_vec();
        let cache_hit = if !req.force && sweep_id.is_none() {
            jobs::cached(&mut *tx, &input_hash, &sim_version).await?
        } else {
            None
        };
        if let Some(id) = cache_hit {
            ids.push(id);
            cached = true;
            continue;
        }
        new_jobs.push(NewJob {
            token_id,
            scenario_name: v.scenario_name.clone(),
            scenario_toml: v.scenario_toml.clone(),
            variants: v.variants.clone(),
            seed: req.seed as i64,
            replications: req.replications as i32,
            duration_ns: duration_ns.map(|d| d as i64),
            board_id,
            board_class: Some(v.board_class.clone()),
            costs_toml: costs_toml.clone(),
            sweep_id,
            sweep_value: point,
            knobs: knobs_json,
            input_hash,
            sim_version: sim_version.clone(),
            max_attempts: 3,
        });
    }
    let wanted = new_jobs.len() as i64;
    if wanted > 0 {
        if let Some(t) = token_id {
            let active = jobs::active_for_token(&mut *tx, t).await?;
            if active + wanted > cfg.per_token_active {
                return Err(AppError::TooManyRequests(format!(
                    "this token has {active} simulations queued or running and asks for {wanted} more; at most {} at once",
                    cfg.per_token_active
                )));
            }
        }
        let depth = jobs::queue_depth(&mut *tx).await?;
        if depth + wanted > cfg.max_queue {
            return Err(AppError::Busy(format!(
                "the simulation queue is full ({depth} of {} jobs queued or running); try again later",
                cfg.max_queue
            )));
        }
    }
    for job in &new_jobs {
        ids.push(jobs::insert(&mut *tx, job).await?);
    }
    tx.commit().await?;
    Ok(Submitted {
        ids,
        sweep_id,
        cached,
    })
}

/// The limits hold whichever source sets a value: the request's fields, or
/// the scenario TOML's own `[run]` table when the request leaves them out.
fn check_caps(
    cfg: &crate::jobs::JobConfig,
    v: &crate::jobs::exec::Validated,
    requested_replications: u32,
    requested_duration_ns: Option<u64>,
) -> Result<(), AppError> {
    let (reps, reps_from) = if requested_replications == 0 {
        (v.replications, "scenario run.replications")
    } else {
        (requested_replications, "replications")
    };
    if reps > cfg.max_replications {
        return Err(bad(format!(
            "{reps_from}: {reps} asked for; at most {}",
            cfg.max_replications
        )));
    }
    let (ns, ns_from) = match requested_duration_ns {
        Some(ns) => (ns, "duration"),
        None => (v.duration_ns, "scenario run.duration"),
    };
    if ns > cfg.max_sim_ns {
        return Err(bad(format!(
            "{ns_from}: {} s of simulated time asked for; at most {} s",
            ns / 1_000_000_000,
            cfg.max_sim_ns / 1_000_000_000
        )));
    }
    Ok(())
}

/// The value a sweep plots, from a finished job's report.
pub fn output_value(report: &serde_json::Value, variant: &str, output: &str) -> Option<f64> {
    let v = report["variants"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == variant)?;
    let s = &v["summary"];
    match output {
        "cyclictest_max_us" | "irqsoff_max_us" | "preemptoff_max_us" | "wakeup_rt_max_us"
        | "cyclictest_avg_us" => s[output].as_f64(),
        other => s["metrics"]
            .as_array()?
            .iter()
            .find(|m| m["name"] == other)
            .and_then(|m| m["mean"].as_f64()),
    }
}

/// Store a calibrated cost table for a board (validated against its class).
pub async fn set_board_costs(
    pool: &PgPool,
    caller: &crate::auth::Caller,
    board: &str,
    class: &str,
    toml_text: &str,
) -> Result<(), AppError> {
    let b = crate::jobs::exec::board_class(class).map_err(bad)?;
    crate::jobs::exec::apply_costs(&b.costs, toml_text).map_err(bad)?;
    if board.trim().is_empty() || board.len() > 200 {
        return Err(AppError::BadRequest(
            "board: a name of 1 to 200 bytes".into(),
        ));
    }
    let owner = (caller.scope() != crate::auth::Scope::Admin).then_some(caller.token.id);
    let mut tx = pool.begin().await?;
    if jobs::set_board_costs(&mut tx, board.trim(), class, toml_text, owner)
        .await?
        .is_none()
    {
        return Err(AppError::Forbidden(format!(
            "board {:?} has a cost table stored by another token; only that token or an admin may change it",
            board.trim()
        )));
    }
    tx.commit().await?;
    Ok(())
}

/// Cancel a job for its submitter (or an admin). Returns the state now.
pub async fn cancel(
    pool: &PgPool,
    caller: &crate::auth::Caller,
    id: JobId,
) -> Result<jobs::JobState, AppError> {
    let job = jobs::get(pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("simulation {id}")))?;
    if caller.scope() != crate::auth::Scope::Admin && job.token_id != Some(caller.token.id) {
        return Err(AppError::Forbidden(
            "only the token that submitted this simulation, or an admin, may cancel it".into(),
        ));
    }
    Ok(jobs::request_cancel(pool, id).await?.unwrap_or(job.state))
}

/// The request that runs a stored job's inputs again (bypassing the
/// result cache), e.g. to check that the same seed gives the same numbers.
pub async fn rerun_request(pool: &PgPool, id: JobId) -> Result<SimulationRequest, AppError> {
    let job = jobs::get(pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("simulation {id}")))?;
    let board = match job.board_id {
        Some(b) => Some(jobs::board_name(pool, b).await?),
        None => None,
    };
    Ok(SimulationRequest {
        scenario: job.scenario_toml,
        variants: job.variants,
        seed: job.seed as u64,
        replications: job.replications as u32,
        duration: job.duration_ns.map(|d| format!("{}ms", d / 1_000_000)),
        board_class: if board.is_some() {
            None
        } else {
            job.board_class
        },
        board,
        knobs: serde_json::from_value(job.knobs).unwrap_or_default(),
        sweep: None,
        force: true,
    })
}

/// The replications a job runs: the request's, or (0 = not given) the
/// scenario's own `[run]` value, read from the job's stored scenario.
pub fn effective_replications(job: &jobs::Job) -> Option<u32> {
    if job.replications > 0 {
        return Some(job.replications as u32);
    }
    reclaimlab_sim::load_scenario(&job.scenario_toml)
        .ok()
        .map(|s| s.replications)
}
