//! reclaimlab-sim: a pure discrete-event simulator of Linux memory reclaim
//! latency and throughput (model and results: `docs/SIMULATOR.md`; the
//! specification cited as "spec §n": `docs/SIM-MODEL.md`).
//!
//! No IO, no async, no wall clock; randomness only from the seed passed in.
//! The same (scenario, seed) gives byte-identical reports. Every task owns a
//! random stream keyed by its name, so variants share random numbers
//! (common random numbers) and paired comparisons have low variance.
//!
//! # API
//!
//! - [`builtin_scenarios`], [`builtin_boards`], [`builtin_presets`]: what
//!   `reclaimlab simulate --list` shows.
//! - [`load_scenario`]: a built-in name (`"v4-isolate-irq-holdoff"`) or a
//!   full TOML text; errors name the field (`variants[1].knobs.
//!   isolate_time_cap_us: expected a positive number, found -3`).
//! - [`run`] with [`RunOptions`] and a progress hook returning
//!   [`Control`]: the caller owns the clock and may cancel. Replications
//!   run in parallel on scoped threads; results are merged by index so
//!   parallelism never changes the output.
//! - [`SimReport`]: per variant a `reclaimlab_formats::Document`
//!   (`source.format = "simulated"`) plus locks, top-10 latencies, vmstat
//!   and events processed; a comparison table; [`SimReport::to_text`].
//!
//! # Layout
//!
//! `config` (TOML, boards, presets, knobs) → `model` (builds one run) →
//! `engine` (event loop, CPUs, preemption, locks, tracers) driving
//! `programs` (task state machines) over `mem` (zones, RLE LRU) → `report`.

mod config;
mod engine;
mod mem;
mod model;
mod programs;
mod report;
mod rng;
mod zig;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

pub use config::{
    Board, Costs, CyclictestCfg, DropIf, HogJobsCfg, KnobSpec, KnobType, KnobValue, Knobs,
    LruBackend, Machine, MadviseResched, MunmapMode, Preempt, Preset, Scenario, ScenarioError,
    SwapKind, Variant, Workload, ZoneCfg, knob_table, parse_duration,
};
pub use report::{Comparison, LatencyRow, LockRow, MetricStat, SimReport, Summary, VariantReport};

/// Simulator (kernel-model) version, stamped into every document.
pub const SIM_VERSION: &str = concat!("reclaimlab-sim ", env!("CARGO_PKG_VERSION"));

/// Built-in scenarios: (name, description).
pub fn builtin_scenarios() -> Vec<(&'static str, &'static str)> {
    config::scenarios()
}

/// Built-in board classes (costs per operation, spec §4).
pub fn builtin_boards() -> Vec<Board> {
    config::boards()
}

/// Built-in kernel presets (structural knobs per kernel version).
pub fn builtin_presets() -> Vec<Preset> {
    config::presets()
}

/// Load a built-in scenario by name, or parse a full scenario TOML text.
pub fn load_scenario(name_or_toml: &str) -> Result<Scenario, ScenarioError> {
    config::load(name_or_toml)
}

/// Hard limits a caller (the web service) imposes on one [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Events per single simulation (one variant, replication, sweep point).
    pub max_events: u64,
    /// Largest simulated duration accepted.
    pub max_sim_ns: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_events: 2_000_000_000,
            max_sim_ns: 3 * 3600 * 1_000_000_000,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    pub seed: u64,
    /// 0 = the scenario's own count.
    pub replications: u32,
    /// None = the scenario's own duration.
    pub duration_ns: Option<u64>,
    /// None = every variant, in scenario order.
    pub variants: Option<Vec<String>>,
    pub limits: Limits,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 1,
            replications: 0,
            duration_ns: None,
            variants: None,
            limits: Limits::default(),
        }
    }
}

/// Reported to the progress hook about every 65,536 events per simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time so far, summed over all simulations of the run.
    pub sim_ns: u64,
    /// Events processed so far, summed over all simulations.
    pub events: u64,
    pub runs_done: u32,
    pub runs_total: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("cancelled by the caller")]
    Cancelled,
    #[error(
        "variant {variant:?} replication {replication}: more than {limit} events (raise limits.max_events or shorten the duration)"
    )]
    EventLimit {
        variant: String,
        replication: u32,
        limit: u64,
    },
    #[error("duration {requested_ns} ns exceeds the limit of {limit_ns} ns")]
    SimTimeLimit { requested_ns: u64, limit_ns: u64 },
    #[error("unknown variant {name:?}; the scenario has: {available}")]
    UnknownVariant { name: String, available: String },
}

/// The seed replication `rep` (0-based) of a run with `seed` simulates
/// with; every variant of a replication shares it (common random numbers).
pub fn replication_seed(seed: u64, rep: u32) -> u64 {
    rng::derive(seed, &format!("replication/{rep}"))
}

struct Job {
    variant: usize,
    rep: u32,
    sweep: model::Point,
    slot: (usize, usize, usize),
}

/// Run every selected variant of `scenario` with `opts.replications`
/// replications (in parallel), returning the merged report.
pub fn run(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<SimReport, SimError> {
    let duration = opts.duration_ns.unwrap_or(scenario.duration_ns);
    if duration > opts.limits.max_sim_ns {
        return Err(SimError::SimTimeLimit {
            requested_ns: duration,
            limit_ns: opts.limits.max_sim_ns,
        });
    }
    let reps = if opts.replications == 0 {
        scenario.replications
    } else {
        opts.replications
    };
    let variants: Vec<usize> = match &opts.variants {
        None => (0..scenario.variants.len()).collect(),
        Some(names) => names
            .iter()
            .map(|n| {
                scenario
                    .variants
                    .iter()
                    .position(|v| &v.name == n)
                    .ok_or_else(|| SimError::UnknownVariant {
                        name: n.clone(),
                        available: scenario
                            .variants
                            .iter()
                            .map(|v| v.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let sweeps: Vec<model::Point> = match (&scenario.workload.usemem, &scenario.workload.munmap) {
        (Some(u), _) => u
            .instances
            .iter()
            .map(|&n| model::Point::Instances(n))
            .collect(),
        (None, Some(m)) => m
            .size_gb
            .iter()
            .map(|&g| model::Point::MunmapGb(g))
            .collect(),
        (None, None) => vec![model::Point::Single],
    };
    let mut jobs = Vec::new();
    for (vi, &v) in variants.iter().enumerate() {
        for r in 0..reps {
            for (si, &s) in sweeps.iter().enumerate() {
                jobs.push(Job {
                    variant: v,
                    rep: r,
                    sweep: s,
                    slot: (vi, r as usize, si),
                });
            }
        }
    }
    let total = jobs.len();
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let done_events = AtomicU64::new(0);
    let done_ns = AtomicU64::new(0);
    let runs_done = AtomicUsize::new(0);
    type Slot = Option<Result<model::RunOut, SimError>>;
    let results: Mutex<Vec<Slot>> = Mutex::new((0..total).map(|_| None).collect());
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total)
        .max(1);
    let (tx, rx) = mpsc::channel::<(u64, u64)>();

    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (jobs, next, cancel, results) = (&jobs, &next, &cancel, &results);
            let (done_events, done_ns, runs_done) = (&done_events, &done_ns, &runs_done);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs.len() || cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let j = &jobs[i];
                    let v = &scenario.variants[j.variant];
                    // Same seed for every variant of a replication: common
                    // random numbers.
                    let seed = replication_seed(opts.seed, j.rep);
                    let mut last = (0u64, 0u64);
                    let mut check = |ns: u64, ev: u64| {
                        let _ = tx.send((ns - last.0, ev - last.1));
                        last = (ns, ev);
                        !cancel.load(Ordering::Relaxed)
                    };
                    let r = model::run_one(
                        scenario,
                        v,
                        seed,
                        duration,
                        j.sweep,
                        opts.limits.max_events,
                        &mut check,
                    );
                    let r = match r {
                        Ok(out) => {
                            done_events.fetch_add(out.events - last.1, Ordering::Relaxed);
                            done_ns.fetch_add(out.sim_ns.saturating_sub(last.0), Ordering::Relaxed);
                            Ok(out)
                        }
                        Err(engine::Stop::Cancelled) => Err(SimError::Cancelled),
                        Err(engine::Stop::EventLimit) => Err(SimError::EventLimit {
                            variant: v.name.clone(),
                            replication: j.rep,
                            limit: opts.limits.max_events,
                        }),
                    };
                    if r.is_err() {
                        cancel.store(true, Ordering::Relaxed);
                    }
                    results.lock().expect("no panics while holding the lock")[i] = Some(r);
                    runs_done.fetch_add(1, Ordering::Relaxed);
                    let _ = tx.send((0, 0));
                }
            });
        }
        drop(tx);
        let (mut ns, mut ev) = (0u64, 0u64);
        while let Ok((dns, dev)) = rx.recv() {
            ns += dns;
            ev += dev;
            let p = Progress {
                sim_ns: ns + done_ns.load(Ordering::Relaxed),
                events: ev + done_events.load(Ordering::Relaxed),
                runs_done: runs_done.load(Ordering::Relaxed) as u32,
                runs_total: total as u32,
            };
            if progress(p) == Control::Cancel {
                cancel.store(true, Ordering::Relaxed);
            }
        }
    });

    let results = results.into_inner().expect("workers finished");
    let mut grid: Vec<Vec<Vec<model::RunOut>>> = variants
        .iter()
        .map(|_| (0..reps).map(|_| Vec::new()).collect())
        .collect();
    // Report the first error in job order, so the error is deterministic.
    let mut first_err = None;
    for (j, r) in jobs.iter().zip(results) {
        match r {
            Some(Ok(out)) => grid[j.slot.0][j.slot.1].push(out),
            Some(Err(e)) => {
                if first_err.is_none()
                    || (e != SimError::Cancelled && first_err == Some(SimError::Cancelled))
                {
                    first_err = Some(e);
                }
            }
            None => {
                if first_err.is_none() {
                    first_err = Some(SimError::Cancelled);
                }
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    Ok(report::build(
        scenario, opts.seed, reps, duration, &variants, grid,
    ))
}
