//! Shared helpers for the scenario tests.
#![allow(dead_code)]

use reclaimlab_sim::{Control, RunOptions, Scenario, SimReport, load_scenario, run};

pub fn run_builtin(name: &str, duration_s: f64, reps: u32, seed: u64) -> SimReport {
    let sc = load_scenario(name).expect("built-in scenario loads");
    run_scenario(&sc, duration_s, reps, seed)
}

pub fn run_scenario(sc: &Scenario, duration_s: f64, reps: u32, seed: u64) -> SimReport {
    let opts = RunOptions {
        seed,
        replications: reps,
        duration_ns: Some((duration_s * 1e9) as u64),
        ..Default::default()
    };
    run(sc, &opts, &mut |_| Control::Continue).expect("simulation runs")
}
