//! Run a scenario and print the text (or JSON) report.
//!
//! `cargo run --release -p reclaimlab-sim --example run_scenario -- NAME|FILE.toml
//!  [--seed N] [--replications N] [--duration 30s] [--variant NAME]... [--json]`
//!
//! Used for the peak-memory and V4 wall-time figures in docs/PERFORMANCE.md.

use reclaimlab_sim::{Control, RunOptions, load_scenario, parse_duration, run};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut opts = RunOptions::default();
    let mut name = None;
    let mut json = false;
    let mut variants = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => opts.seed = args.next().and_then(|s| s.parse().ok()).expect("--seed N"),
            "--replications" => {
                opts.replications = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--replications N")
            }
            "--duration" => {
                opts.duration_ns = Some(
                    args.next()
                        .as_deref()
                        .and_then(parse_duration)
                        .expect("--duration 30s"),
                )
            }
            "--variant" => variants.push(args.next().expect("--variant NAME")),
            "--json" => json = true,
            other => name = Some(other.to_string()),
        }
    }
    if !variants.is_empty() {
        opts.variants = Some(variants);
    }
    let name = name.expect("usage: run_scenario NAME|FILE.toml [options]");
    let text = std::fs::read_to_string(&name).unwrap_or(name);
    let sc = match load_scenario(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let started = std::time::Instant::now();
    let mut events = 0;
    let report = match run(&sc, &opts, &mut |p| {
        events = p.events;
        Control::Continue
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let wall = started.elapsed();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("serializable")
        );
    } else {
        print!("{}", report.to_text());
    }
    let total: u64 = report.variants.iter().map(|v| v.events).sum();
    eprintln!(
        "wall {:.3} s, {} events, {:.2} M events/s",
        wall.as_secs_f64(),
        total,
        total as f64 / wall.as_secs_f64() / 1e6
    );
}
