//! Write a large synthetic latency input for `bench/parse-throughput.sh`:
//! an irqsoff report with function-trace events (seed 003's layout) or a
//! cyclictest `-h` histogram (rt-tests `print_hist()` layout).
//!
//! Usage: `gen_signal_inputs ftrace|histogram OUT SIZE_MB`

use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

const FUNCS: [(&str, &str); 8] = [
    ("__rcu_read_lock+0x0/0x20", "isolate_lru_folios+0x160/0x3e0"),
    (
        "__rcu_read_unlock+0x0/0x180",
        "isolate_lru_folios+0x199/0x3e0",
    ),
    (
        "__mod_node_page_state+0x0/0x70",
        "isolate_lru_folios+0x2ee/0x3e0",
    ),
    (
        "__mod_zone_page_state+0x0/0x60",
        "isolate_lru_folios+0x2fc/0x3e0",
    ),
    (
        "folio_lruvec_lock_irq+0x0/0x90",
        "shrink_inactive_list+0x10f/0x440",
    ),
    (
        "__isolate_lru_page_prepare+0x0/0x120",
        "isolate_lru_folios+0x1a1/0x3e0",
    ),
    ("preempt_count_add+0x0/0x50", "_raw_spin_lock_irq+0x20/0x40"),
    ("list_move+0x0/0x40", "isolate_lru_folios+0x2a0/0x3e0"),
];

fn ftrace(out: &mut impl Write, bytes: u64) -> std::io::Result<()> {
    let header = "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 6.12.0-bench\n# --------------------------------------------------------------------\n# latency: 99999999 us, #1/1, CPU#5 | (M:unknown VP:0, KP:0, SP:0 HP:0 #P:8)\n#    -----------------\n#    | task: kswapd0-90 (uid:0 nice:0 policy:0 rt_prio:0)\n#    -----------------\n#  => started at: _raw_spin_lock_irq+0x16/0x40\n#  => ended at:   _raw_spin_unlock_irq+0x10/0x30\n#\n#\n#                    _------=> CPU#\n#                   / _-----=> irqs-off/BH-disabled\n#                  | / _----=> need-resched\n#                  || / _---=> hardirq/softirq\n#                  ||| / _--=> preempt-depth\n#                  |||| / _-=> migrate-disable\n#                  ||||| /     delay\n#  cmd     pid     |||||| time  |   caller\n#     \\   /        ||||||  \\    |    /\n";
    out.write_all(header.as_bytes())?;
    let mut written = header.len() as u64;
    let mut i: u64 = 0;
    let mut t: u64 = 0;
    while written < bytes {
        let (f, c) = FUNCS[(i % FUNCS.len() as u64) as usize];
        // One long stall in the middle, the shape of a real irqsoff hit.
        let big = i == 1_000_000;
        let marker = if big { '*' } else { ' ' };
        let line = if big {
            format!(
                " kswapd0-90        5d..1. {t:>5}us{marker}: isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440\n"
            )
        } else {
            format!(" kswapd0-90        5d..1. {t:>5}us{marker}: {f} <-{c}\n")
        };
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        i += 1;
        t += if big {
            70_000
        } else {
            u64::from(i.is_multiple_of(3))
        };
    }
    let tail = format!(
        " kswapd0-90        5d..1. {t:>5}us : <stack trace>\n => shrink_inactive_list+0x16a/0x440\n => shrink_lruvec+0x2fc/0x470\n => shrink_node+0x1d6/0x4a0\n => balance_pgdat+0x280/0x5c0\n => kswapd+0x10f/0x350\n => kthread+0xfa/0x130\n => ret_from_fork+0x2d/0x50\n"
    );
    out.write_all(tail.as_bytes())
}

fn histogram(out: &mut impl Write, bytes: u64) -> std::io::Result<()> {
    const THREADS: usize = 14;
    let row_len = 7 + THREADS * 7;
    let rows = (bytes / row_len as u64).clamp(1, 1_000_000);
    let mut totals = [0u64; THREADS];
    let mut maxs = [0u64; THREADS];
    out.write_all(b"# Histogram\n")?;
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut line = String::with_capacity(row_len + 1);
    for r in 0..rows {
        line.clear();
        line.push_str(&format!("{r:06} "));
        for (j, (tot, mx)) in totals.iter_mut().zip(maxs.iter_mut()).enumerate() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Dense below 20 us, a sparse tail beyond: a realistic shape.
            let count = if r < 20 {
                (state % 100_000) / (r + 1)
            } else if state.is_multiple_of(20_000) {
                1
            } else {
                0
            };
            if count > 0 {
                *tot += count;
                *mx = r;
            }
            line.push_str(&format!("{count:06}"));
            line.push(if j + 1 < THREADS { '\t' } else { '\n' });
        }
        out.write_all(line.as_bytes())?;
    }
    let join = |v: &[u64], w: usize| v.iter().map(|x| format!(" {x:0w$}")).collect::<String>();
    writeln!(out, "# Total:{}", join(&totals, 9))?;
    writeln!(out, "# Min Latencies:{}", join(&[1; THREADS], 5))?;
    writeln!(out, "# Avg Latencies:{}", join(&[3; THREADS], 5))?;
    writeln!(out, "# Max Latencies:{}", join(&maxs, 5))?;
    writeln!(out, "# Histogram Overflows:{}", join(&[0; THREADS], 5))?;
    writeln!(out, "# Histogram Overflow at cycle number:")?;
    for j in 0..THREADS {
        writeln!(out, "# Thread {j}:")?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(kind), Some(path), Some(mb)) = (
        args.get(1),
        args.get(2),
        args.get(3).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: gen_signal_inputs ftrace|histogram OUT SIZE_MB");
        return ExitCode::from(2);
    };
    let result = File::create(path).and_then(|f| {
        let mut w = BufWriter::with_capacity(1 << 20, f);
        match kind.as_str() {
            "ftrace" => ftrace(&mut w, mb << 20),
            _ => histogram(&mut w, mb << 20),
        }?;
        w.flush()
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(1)
        }
    }
}
