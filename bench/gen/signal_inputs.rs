//! Large synthetic latency inputs for the parse benchmark and the
//! bounded-memory test: an irqsoff report with function-trace events (seed
//! 003's layout), a wakeup_rt report with function-trace events (seed 000's
//! layout), and a cyclictest `-h` histogram (rt-tests `print_hist()`
//! layout). Each plants one stall whose size and culprit are known.
//!
//! Shared by `crates/formats/examples/gen_signal_inputs.rs` (the
//! benchmark's generator) and `tests/big_inputs.rs`, which include it with
//! `#[path]`.

use std::io::Write;

/// The header latency of the generated irqsoff report.
pub const IRQSOFF_LATENCY_US: u64 = 77766;
/// The header latency of the generated wakeup_rt report.
pub const WAKEUP_RT_LATENCY_US: u64 = 1969;
/// The planted gap of both traces.
pub const STALL_US: u64 = 70_000;
/// Who the culprit rule must blame in each trace.
pub const IRQSOFF_CULPRIT: &str = "isolate_lru_folios";
pub const WAKEUP_RT_CULPRIT: &str = "madvise_cold_or_pageout_pte_range";

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

/// A function trace body: events cycling through `funcs`, one planted
/// stall of [`STALL_US`] half way, the clock advancing 1 us every `every`
/// events.
struct Events<'a> {
    /// comm-pid, CPU and flags, up to the time column.
    prefix: &'a str,
    funcs: &'a [(&'a str, &'a str)],
    /// The stall's delay marker and its `function <-caller`.
    stall: (char, &'a str),
    /// About how long a line is, to place the stall half way.
    line_bytes: u64,
    every: u64,
    t0: u64,
}

/// Writes events until `written` reaches `bytes`; the time after them.
fn events<W: Write + ?Sized>(
    out: &mut W,
    mut written: u64,
    bytes: u64,
    e: &Events<'_>,
) -> std::io::Result<u64> {
    let stall_at = (bytes / e.line_bytes / 2).max(1);
    let mut i: u64 = 0;
    let mut t = e.t0;
    while written < bytes {
        let (f, c) = e.funcs[(i % e.funcs.len() as u64) as usize];
        let big = i == stall_at;
        let line = if big {
            format!("{}{t:>5}us{}: {}\n", e.prefix, e.stall.0, e.stall.1)
        } else {
            format!("{}{t:>5}us : {f} <-{c}\n", e.prefix)
        };
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        i += 1;
        t += if big {
            STALL_US
        } else {
            u64::from(i.is_multiple_of(e.every))
        };
    }
    Ok(t)
}

pub fn irqsoff<W: Write + ?Sized>(out: &mut W, bytes: u64) -> std::io::Result<()> {
    let header = format!(
        "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 6.12.0-bench\n# --------------------------------------------------------------------\n# latency: {IRQSOFF_LATENCY_US} us, #1/1, CPU#5 | (M:unknown VP:0, KP:0, SP:0 HP:0 #P:8)\n#    -----------------\n#    | task: kswapd0-90 (uid:0 nice:0 policy:0 rt_prio:0)\n#    -----------------\n#  => started at: _raw_spin_lock_irq+0x16/0x40\n#  => ended at:   _raw_spin_unlock_irq+0x10/0x30\n#\n#\n#                    _------=> CPU#\n#                   / _-----=> irqs-off/BH-disabled\n#                  | / _----=> need-resched\n#                  || / _---=> hardirq/softirq\n#                  ||| / _--=> preempt-depth\n#                  |||| / _-=> migrate-disable\n#                  ||||| /     delay\n#  cmd     pid     |||||| time  |   caller\n#     \\   /        ||||||  \\    |    /\n"
    );
    out.write_all(header.as_bytes())?;
    let written = header.len() as u64;
    // One long stall in the middle of the trace (2.1 M events in 200 MB),
    // the shape of a real irqsoff hit.
    let t = events(
        out,
        written,
        bytes,
        &Events {
            prefix: " kswapd0-90        5d..1. ",
            funcs: &FUNCS,
            stall: (
                '*',
                "isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440",
            ),
            line_bytes: 95,
            every: 3,
            t0: 0,
        },
    )?;
    let tail = format!(
        " kswapd0-90        5d..1. {t:>5}us : <stack trace>\n => shrink_inactive_list+0x16a/0x440\n => shrink_lruvec+0x2fc/0x470\n => shrink_node+0x1d6/0x4a0\n => balance_pgdat+0x280/0x5c0\n => kswapd+0x10f/0x350\n => kthread+0xfa/0x130\n => ret_from_fork+0x2d/0x50\n"
    );
    out.write_all(tail.as_bytes())
}

pub fn histogram<W: Write + ?Sized>(out: &mut W, bytes: u64) -> std::io::Result<()> {
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

const WAKE_FUNCS: [(&str, &str); 6] = [
    (
        "folio_isolate_lru+0x0/0x1d0",
        "madvise_cold_or_pageout_pte_range+0x6c4/0xaa0",
    ),
    ("__rcu_read_lock+0x0/0x20", "folio_isolate_lru+0x2c/0x1d0"),
    (
        "rt_spin_lock+0x0/0x70",
        "madvise_cold_or_pageout_pte_range+0x3d5/0xaa0",
    ),
    ("migrate_disable+0x0/0x90", "rt_spin_lock+0x1b/0x70"),
    (
        "rt_spin_unlock+0x0/0x60",
        "madvise_cold_or_pageout_pte_range+0x6b4/0xaa0",
    ),
    (
        "vm_normal_folio+0x0/0x80",
        "madvise_cold_or_pageout_pte_range+0x2c9/0xaa0",
    ),
];

/// A wakeup_rt report (PREEMPT_RT, 8 flag columns) whose function trace
/// runs to `bytes`, with one stall in the middle, ending in the sched
/// switch and its stack.
pub fn wakeup_rt<W: Write + ?Sized>(out: &mut W, bytes: u64) -> std::io::Result<()> {
    let header = format!(
        "# tracer: wakeup_rt\n#\n# wakeup_rt latency trace v1.1.5 on 6.5.0-rt6-bench\n# --------------------------------------------------------------------\n# latency: {WAKEUP_RT_LATENCY_US} us, #1/1, CPU#2 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:4)\n#    -----------------\n#    | task: cyclictest-250 (uid:0 nice:0 policy:1 rt_prio:99)\n#    -----------------\n#\n#                    _--------=> CPU#\n#                   / _-------=> irqs-off/BH-disabled\n#                  | / _------=> need-resched\n#                  || / _-----=> need-resched-lazy\n#                  ||| / _----=> hardirq/softirq\n#                  |||| / _---=> preempt-depth\n#                  ||||| / _--=> preempt-lazy-depth\n#                  |||||| / _-=> migrate-disable\n#                  ||||||| /     delay\n#  cmd     pid     |||||||| time  |   caller\n#     \\   /        ||||||||  \\    |    /\n   stress-n-264       2dn.h5..    0us :      264:120:R   + [002]     250:  0:R cyclictest\n"
    );
    out.write_all(header.as_bytes())?;
    let written = header.len() as u64;
    let t = events(
        out,
        written,
        bytes,
        &Events {
            prefix: "   stress-n-264       2d..1... ",
            funcs: &WAKE_FUNCS,
            stall: (
                '!',
                "vm_normal_folio+0x0/0x80 <-madvise_cold_or_pageout_pte_range+0x2c9/0xaa0",
            ),
            line_bytes: 110,
            every: 4,
            t0: 1,
        },
    )?;
    let tail = format!(
        "   stress-n-264       2d...3.. {t:>5}us : __schedule+0x7e4/0x1180\n   stress-n-264       2d...3.. {t:>5}us : 264:120:R ==> [002]     250:  0:R cyclictest\n   stress-n-264       2d...3.. {t:>5}us : <stack trace>\n => __ftrace_trace_stack+0x116/0x180\n => __trace_stack+0x4a/0x60\n => probe_wakeup_sched_switch+0x2a8/0x2e0\n => __schedule+0x7e4/0x1180\n => preempt_schedule+0x37/0x60\n => migrate_enable+0xbb/0xe0\n => rt_spin_unlock+0x48/0x60\n => madvise_cold_or_pageout_pte_range+0x6b4/0xaa0\n => walk_pgd_range+0x4e7/0xa40\n => __walk_page_range+0x17e/0x1a0\n => walk_page_range+0xdb/0x190\n => madvise_pageout+0xda/0x130\n => do_madvise+0x5e7/0x770\n => __x64_sys_madvise+0x27/0x30\n => do_syscall_64+0x3a/0x90\n => entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"
    );
    out.write_all(tail.as_bytes())
}
