//! `reclaimlab simulate` and the simulation workers of `serve`.

use crate::config::SimulateArgs;
use crate::web::AppState;

pub fn run(_a: SimulateArgs) -> anyhow::Result<()> {
    anyhow::bail!("the simulator is not available in this build")
}

pub fn start_workers(
    _state: &AppState,
    _n: usize,
    _stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    Vec::new()
}
