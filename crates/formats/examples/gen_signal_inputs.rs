//! Write a large synthetic latency input for `bench/parse-throughput.sh`
//! (the generators are in `bench/gen/signal_inputs.rs`).
//!
//! Usage: `gen_signal_inputs irqsoff|wakeup_rt|histogram OUT SIZE_MB`

use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

#[path = "../../../bench/gen/signal_inputs.rs"]
mod signal_inputs;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(kind), Some(path), Some(mb)) = (
        args.get(1),
        args.get(2),
        args.get(3).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: gen_signal_inputs irqsoff|wakeup_rt|histogram OUT SIZE_MB");
        return ExitCode::from(2);
    };
    let result = File::create(path).and_then(|f| {
        let mut w = BufWriter::with_capacity(1 << 20, f);
        match kind.as_str() {
            "irqsoff" | "ftrace" => signal_inputs::irqsoff(&mut w, mb << 20),
            "wakeup_rt" => signal_inputs::wakeup_rt(&mut w, mb << 20),
            "histogram" => signal_inputs::histogram(&mut w, mb << 20),
            other => Err(std::io::Error::other(format!("unknown kind {other}"))),
        }?;
        w.flush()
    });
    match result {
        Ok(()) => {
            // What the parse must find, for whoever checks it by hand.
            let planted = match kind.as_str() {
                "wakeup_rt" => Some((
                    signal_inputs::WAKEUP_RT_LATENCY_US,
                    signal_inputs::WAKEUP_RT_CULPRIT,
                )),
                "histogram" => None,
                _ => Some((
                    signal_inputs::IRQSOFF_LATENCY_US,
                    signal_inputs::IRQSOFF_CULPRIT,
                )),
            };
            if let Some((latency, culprit)) = planted {
                eprintln!(
                    "{path}: latency {latency} us, culprit {culprit}, longest gap {} us",
                    signal_inputs::STALL_US
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(1)
        }
    }
}
