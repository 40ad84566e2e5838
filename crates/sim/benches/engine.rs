//! Engine benchmarks, as ratios measured in the same run (plain std timing,
//! median of repeated runs):
//!
//! 1. events/s of the full simulator on `toy-lock` vs a bare binary-heap
//!    event loop written here that simulates the same toy model;
//! 2. wall time per simulated second on `toy-lock` (bench/sim/run.sh
//!    compares it with the SimPy model in bench/sim/toy_lock_simpy.py);
//! 3. the full V4 scenario (baseline variant) for 30 simulated minutes on
//!    8 CPUs, one core.
//!
//! `cargo bench -p reclaimlab-sim --bench engine [-- --quick]`

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use reclaimlab_sim::{Control, RunOptions, load_scenario, run};

/// CPU time of this process (every thread, live or exited), seconds:
/// utime + stime of /proc/self/stat at USER_HZ = 100 (Linux). Falls back
/// to None where /proc is missing.
fn cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Run `f`, returning its result, wall seconds and CPU seconds (CPU falls
/// back to wall without /proc).
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (c0, t0) = (cpu_s(), Instant::now());
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_s()) {
        (Some(a), Some(b)) => (b - a).max(0.01),
        _ => wall,
    };
    (out, wall, cpu)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// xoshiro256** seeded by splitmix64, as in the simulator.
struct Rng([u64; 4]);
impl Rng {
    fn new(mut s: u64) -> Self {
        let mut n = || reclaimlab_splitmix::step(&mut s);
        Rng([n(), n(), n(), n()])
    }
    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let r = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }
    fn exp(&mut self, mean: f64) -> u64 {
        let u = 1.0 - (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (-mean * u.ln()) as u64
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    TimerFire(u8),
    TimerDone(u8),
    HoldEnd(u8),
    ThinkEnd(u8),
}

/// The toy model on a bare heap: 8 periodic timers (1000 + 500*i us) on 4
/// CPUs, 4 workers on one FIFO spinlock (hold ~Exp(20 us), think ~Exp(5 us),
/// 100 ns handoff). A timer whose CPU is inside a lock section (spinning or
/// holding, preemption off) runs when the section ends. Returns
/// (events, max latency ns).
fn bare_toy(sim_ns: u64, seed: u64) -> (u64, u64) {
    let mut heap: BinaryHeap<Reverse<(u64, u64, Ev)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |heap: &mut BinaryHeap<Reverse<(u64, u64, Ev)>>, t: u64, e: Ev| {
        seq += 1;
        heap.push(Reverse((t, seq, e)));
    };
    let mut rng = Rng::new(seed);
    let mut owner: Option<u8> = None;
    let mut waiters: VecDeque<u8> = VecDeque::new();
    let mut in_section = [false; 4];
    let mut deferred: [Vec<u8>; 4] = Default::default();
    let mut next = [0u64; 8];
    let mut max_lat = 0u64;
    for i in 0..8u8 {
        next[i as usize] = (1000 + 500 * u64::from(i)) * 1000;
        push(&mut heap, next[i as usize], Ev::TimerFire(i));
    }
    for w in 0..4u8 {
        push(&mut heap, rng.exp(5000.0), Ev::ThinkEnd(w));
    }
    let mut events = 0u64;
    while let Some(Reverse((t, _, e))) = heap.pop() {
        if t > sim_ns {
            break;
        }
        events += 1;
        match e {
            Ev::TimerFire(i) => {
                let cpu = (i % 4) as usize;
                if in_section[cpu] {
                    deferred[cpu].push(i);
                } else {
                    push(&mut heap, t + 1800, Ev::TimerDone(i));
                }
            }
            Ev::TimerDone(i) => {
                let n = &mut next[i as usize];
                max_lat = max_lat.max(t - *n);
                let iv = (1000 + 500 * u64::from(i)) * 1000;
                *n += iv;
                while t > *n {
                    *n += iv;
                }
                push(&mut heap, *n, Ev::TimerFire(i));
            }
            Ev::ThinkEnd(w) => {
                in_section[w as usize] = true;
                if owner.is_none() {
                    owner = Some(w);
                    push(&mut heap, t + rng.exp(20_000.0), Ev::HoldEnd(w));
                } else {
                    waiters.push_back(w);
                }
            }
            Ev::HoldEnd(w) => {
                owner = None;
                if let Some(n) = waiters.pop_front() {
                    owner = Some(n);
                    push(&mut heap, t + 100 + rng.exp(20_000.0), Ev::HoldEnd(n));
                }
                in_section[w as usize] = false;
                for i in std::mem::take(&mut deferred[w as usize]) {
                    push(&mut heap, t + 1800, Ev::TimerDone(i));
                }
                push(&mut heap, t + rng.exp(5000.0), Ev::ThinkEnd(w));
            }
        }
    }
    (events, max_lat)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 3 } else { 7 };
    let toy_s = if quick { 10.0 } else { 60.0 };
    let sc = load_scenario("toy-lock").expect("toy-lock");
    let opts = RunOptions {
        seed: 1,
        replications: 1,
        duration_ns: Some((toy_s * 1e9) as u64),
        ..Default::default()
    };

    let mut sim_rates = Vec::new();
    let mut bare_rates = Vec::new();
    let mut sim_walls = Vec::new();
    let mut events = 0;
    for r in 0..reps {
        // Measured by CPU time: the machine may be shared, and CPU time
        // does not count the time other processes hold the core.
        let (rep, wall, cpu) =
            timed(|| run(&sc, &opts, &mut |_| Control::Continue).expect("toy-lock runs"));
        events = rep.variants[0].events;
        sim_rates.push(events as f64 / cpu);
        sim_walls.push(wall);
        let ((bev, _), _, bcpu) = timed(|| bare_toy((toy_s * 1e9) as u64, 1 + r));
        bare_rates.push(bev as f64 / bcpu);
    }
    let (sim, bare) = (median(sim_rates), median(bare_rates));
    println!("toy-lock: {toy_s} s simulated, {events} events, median of {reps}");
    println!(
        "  simulator        {:8.2} M events per CPU second",
        sim / 1e6
    );
    println!(
        "  bare heap loop   {:8.2} M events per CPU second",
        bare / 1e6
    );
    println!(
        "  ratio            {:8.2} x by CPU time (goal >= 0.7)",
        sim / bare
    );
    println!(
        "  wall per simulated second: {:.6} s (toy_wall_per_sim_s={:.6})",
        median(sim_walls.clone()) / toy_s,
        median(sim_walls) / toy_s
    );

    let v4 = load_scenario("v4-isolate-irq-holdoff").expect("v4");
    let v4_s = if quick { 60.0 } else { 1800.0 };
    let opts = RunOptions {
        seed: 1,
        replications: 1,
        duration_ns: Some((v4_s * 1e9) as u64),
        variants: Some(vec!["baseline".into()]),
        ..Default::default()
    };
    let (rep, wall, cpu) = timed(|| run(&v4, &opts, &mut |_| Control::Continue).expect("v4 runs"));
    let ev = rep.variants[0].events;
    println!(
        "v4-isolate-irq-holdoff baseline: {v4_s} s simulated on 8 CPUs in {cpu:.2} s CPU ({wall:.2} s wall), {ev} events, {:.2} M events per CPU second (goal <= 10 s CPU for 1800 s)",
        ev as f64 / cpu / 1e6
    );
}
