//! Parse one big latency report from a file with the streaming parsers and
//! print a one-line summary; used by `bench/parse-throughput.sh`.
//!
//! Usage: `parse_file ftrace|cyclictest FILE [MAX_EVENTS_KEPT]`

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;

use reclaimlab_formats::{cyclictest, ftrace};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(kind), Some(path)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: parse_file ftrace|cyclictest FILE [MAX_EVENTS_KEPT]");
        return ExitCode::from(2);
    };
    let max_events: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    // 128 KiB reads: large enough to amortise the syscalls, small enough that
    // the data is still in L2 when it is parsed.
    let reader = BufReader::with_capacity(1 << 17, file);
    match kind.as_str() {
        "ftrace" => match ftrace::parse_reader(reader, max_events) {
            Ok(f) => {
                println!(
                    "tracer={} latency_us={} events_total={} events_kept={} stacks={} culprit={}",
                    f.tracer,
                    f.latency_us,
                    f.events_total.unwrap_or(0),
                    f.events.len(),
                    f.stacks.len(),
                    f.culprit.as_deref().unwrap_or("-")
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(1)
            }
        },
        "cyclictest" | "histogram" => match cyclictest::parse_reader(reader) {
            Ok(c) => {
                let (threads, buckets, total) = c.histogram.as_ref().map_or((0, 0, 0), |h| {
                    (
                        h.per_thread.len(),
                        h.per_thread.iter().map(|t| t.buckets.len()).sum::<usize>(),
                        h.per_thread
                            .iter()
                            .map(|t| t.buckets.iter().map(|b| b.1).sum::<u64>())
                            .sum::<u64>(),
                    )
                });
                println!(
                    "t_lines={} hist_threads={threads} nonempty_buckets={buckets} samples={total} unit={}",
                    c.threads.len(),
                    c.printed_unit
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(1)
            }
        },
        other => {
            eprintln!("unknown kind {other}");
            ExitCode::from(2)
        }
    }
}
