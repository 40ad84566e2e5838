//! The culprit of an ftrace latency report: which kernel function to blame.
//!
//! Owns the rule and the plumbing list (`data/plumbing.txt`, compiled in with
//! `include_str!`); it does not parse traces (that is [`crate::ftrace`]).
//!
//! # The rule
//!
//! A *plumbing* frame is one that records the trace, runs the scheduler,
//! takes or releases a lock, or enters or leaves an interrupt or syscall: it
//! is on every latency stack and says nothing about who held the CPU. The
//! list is data: one function name per line, `prefix*` or `*suffix`
//! patterns, compiler suffixes (`.constprop.0`, `.isra.1`, `.part.2`,
//! `.cold`) ignored when matching.
//!
//! The *interesting stack* is the last `<stack trace>` of the report: for the
//! wakeup tracers (`wakeup`, `wakeup_rt`, `wakeup_dl`) it is recorded at the
//! sched switch that ends the latency; for `irqsoff`, `preemptoff` and
//! `preemptirqsoff` it is recorded where interrupts or preemption were
//! enabled again.
//!
//! 1. Wakeup tracers: the culprit is the innermost frame of the interesting
//!    stack that is not plumbing. The frames from it outwards are the
//!    `culprit_path`. (Seed 000: `__ftrace_trace_stack`, `__trace_stack`,
//!    `probe_wakeup_sched_switch`, `__schedule`, `preempt_schedule`,
//!    `migrate_enable`, `rt_spin_unlock` are skipped, the culprit is
//!    `madvise_cold_or_pageout_pte_range`.)
//! 2. irqsoff / preemptoff / preemptirqsoff: the stack at the end only shows
//!    who re-enabled interrupts, often a caller of the function that spent
//!    the time. So the traced events are consulted first: the event followed
//!    by the largest time gap (the one carrying the big delay marker) names
//!    the function that was entered just before the CPU went quiet. If that
//!    function is not plumbing it is the culprit; if it is plumbing (a
//!    `_raw_spin_lock_irq`), its caller is. The path is the culprit followed
//!    by the interesting stack from the caller outwards. (Seed 003:
//!    `isolate_lru_folios <-shrink_inactive_list` precedes a 77 ms gap, the
//!    stack begins at `shrink_inactive_list`, so the culprit is
//!    `isolate_lru_folios` and the path `isolate_lru_folios,
//!    shrink_inactive_list, shrink_lruvec, ...`.) A sleeping lock's
//!    optimistic spinner (`mutex_spin_on_owner`, `rwsem_optimistic_spin`,
//!    `osq_lock`) spins with preemption off, so a gap in it, or in
//!    plumbing it called, names the spinner. Gaps are not measured
//!    across `[...]` elisions. When no event names a non-plumbing function,
//!    rule 1 is applied to the stack.
//! 3. Any other tracer, or a wakeup trace without a usable stack, falls back
//!    to whichever of the two sources gives an answer. When every frame is
//!    plumbing there is no culprit rather than a wrong one.

use std::collections::HashSet;
use std::sync::OnceLock;

const PLUMBING_TXT: &str = include_str!("../data/plumbing.txt");

struct Plumbing {
    exact: HashSet<&'static str>,
    prefixes: Vec<&'static str>,
    suffixes: Vec<&'static str>,
}

fn plumbing() -> &'static Plumbing {
    static P: OnceLock<Plumbing> = OnceLock::new();
    P.get_or_init(|| {
        let mut p = Plumbing {
            exact: HashSet::new(),
            prefixes: Vec::new(),
            suffixes: Vec::new(),
        };
        for line in PLUMBING_TXT.lines() {
            let entry = line.split('#').next().unwrap_or("").trim();
            if entry.is_empty() {
                continue;
            }
            if let Some(prefix) = entry.strip_suffix('*') {
                p.prefixes.push(prefix);
            } else if let Some(suffix) = entry.strip_prefix('*') {
                p.suffixes.push(suffix);
            } else {
                p.exact.insert(entry);
            }
        }
        p
    })
}

/// Function name without the compiler's clone suffixes, for matching only.
fn base_name(name: &str) -> &str {
    let mut n = name;
    for marker in [".constprop", ".isra", ".part", ".cold", ".llvm"] {
        if let Some(pos) = n.find(marker) {
            n = &n[..pos];
        }
    }
    n
}

/// Whether `name` (offsets already stripped) is tracing, scheduler, lock or
/// entry plumbing according to `data/plumbing.txt`.
pub fn is_plumbing(name: &str) -> bool {
    let p = plumbing();
    let n = base_name(name);
    p.exact.contains(n)
        || p.prefixes.iter().any(|pre| n.starts_with(pre))
        || p.suffixes.iter().any(|suf| n.ends_with(suf))
}

/// The optimistic spinners of the sleeping locks: they wait for a lock's
/// owner by spinning with preemption disabled, so a preempt-off latency
/// spent in one of them is the spin's. They stay plumbing on a stack.
const SPIN_WAIT: &[&str] = &[
    "mutex_spin_on_owner",
    "mutex_optimistic_spin",
    "rwsem_optimistic_spin",
    "rwsem_spin_on_owner",
    "osq_lock",
];

/// Whether `name` is one of [`SPIN_WAIT`].
pub fn is_spin_wait(name: &str) -> bool {
    SPIN_WAIT.contains(&base_name(name))
}

/// `shrink_node+0x1d6/0x4a0 [mod]` -> `shrink_node`.
pub fn strip_offset(frame: &str) -> &str {
    let f = frame.trim();
    let f = f.split_whitespace().next().unwrap_or("");
    match f.find("+0x") {
        Some(pos) => &f[..pos],
        None => f,
    }
}

/// The event followed by the largest time gap, as seen by the parser.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GapCandidate {
    pub function: String,
    pub caller: Option<String>,
    pub gap_us: f64,
}

/// Whether the tracer measures wakeup latency (stack at the sched switch).
pub fn is_wakeup_tracer(tracer: &str) -> bool {
    tracer.starts_with("wakeup")
}

/// Apply the rule of this module: returns the culprit and its path
/// (innermost first). `stacks` are the report's stacks, innermost frame
/// first, offsets stripped.
pub fn choose(
    tracer: &str,
    stacks: &[Vec<String>],
    gap: Option<&GapCandidate>,
) -> (Option<String>, Vec<String>) {
    let empty = Vec::new();
    let stack = stacks.last().unwrap_or(&empty);
    let from_stack = || -> Option<(String, Vec<String>)> {
        let pos = stack.iter().position(|f| !is_plumbing(f))?;
        Some((stack[pos].clone(), stack[pos..].to_vec()))
    };
    let from_gap = || -> Option<(String, Vec<String>)> {
        let g = gap?;
        if g.gap_us <= 0.0 {
            return None;
        }
        let find = |name: &str| stack.iter().position(|f| f == name);
        if !g.function.is_empty() && !is_plumbing(&g.function) {
            let mut path = vec![g.function.clone()];
            match g.caller.as_deref() {
                Some(c) => match find(c) {
                    Some(pos) => path.extend_from_slice(&stack[pos..]),
                    None => path.push(c.to_string()),
                },
                None => {
                    if let Some(pos) = find(&g.function) {
                        path.extend_from_slice(&stack[pos + 1..]);
                    }
                }
            }
            return Some((g.function.clone(), path));
        }
        // A spinner spends the latency itself, with preemption off: it is
        // named before a caller (`rwsem_optimistic_spin` over the
        // `copy_process` that took the rwsem), and after a plumbing frame
        // it called (`__rcu_read_lock <-mutex_spin_on_owner`).
        let from = |c: &str| {
            let path = match find(c) {
                Some(pos) => stack[pos..].to_vec(),
                None => vec![c.to_string()],
            };
            (c.to_string(), path)
        };
        if is_spin_wait(&g.function) {
            return Some(from(&g.function));
        }
        let c = g.caller.as_deref()?;
        (!is_plumbing(c) || is_spin_wait(c)).then(|| from(c))
    };
    let picked = if is_wakeup_tracer(tracer) {
        from_stack().or_else(from_gap)
    } else {
        from_gap().or_else(from_stack)
    };
    match picked {
        Some((c, mut path)) => {
            // `f <-f` (a function tracing inside itself) would repeat it.
            path.dedup();
            (Some(c), path)
        }
        None => (None, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn plumbing_entries() {
        assert!(is_plumbing("__ftrace_trace_stack"));
        assert!(is_plumbing("probe_wakeup_sched_switch"));
        assert!(is_plumbing("rt_spin_unlock"));
        assert!(is_plumbing("_raw_spin_unlock_irqrestore"));
        assert!(is_plumbing("hrtimer_interrupt"));
        assert!(is_plumbing("ttwu_do_activate.constprop.87"));
        assert!(!is_plumbing("madvise_cold_or_pageout_pte_range"));
        assert!(!is_plumbing("isolate_lru_folios"));
        assert!(!is_plumbing("do_vmi_align_munmap.constprop.0"));
    }

    #[test]
    fn strip() {
        assert_eq!(strip_offset(" shrink_node+0x1d6/0x4a0"), "shrink_node");
        assert_eq!(strip_offset("foo+0x1/0x2 [xfs]"), "foo");
        assert_eq!(strip_offset("bar"), "bar");
    }

    #[test]
    fn wakeup_uses_stack() {
        let s = v(&[
            "__trace_stack",
            "__schedule",
            "migrate_enable",
            "rt_spin_unlock",
            "work",
            "outer",
        ]);
        let (c, p) = choose("wakeup_rt", &[s], None);
        assert_eq!(c.as_deref(), Some("work"));
        assert_eq!(p, v(&["work", "outer"]));
    }

    #[test]
    fn irqsoff_prefers_gap_then_caller() {
        let s = v(&["_raw_spin_unlock_irq", "run_timer_softirq", "__do_softirq"]);
        let g = GapCandidate {
            function: "_raw_spin_lock_irq".into(),
            caller: Some("run_timer_softirq".into()),
            gap_us: 17.0,
        };
        let (c, p) = choose("irqsoff", std::slice::from_ref(&s), Some(&g));
        assert_eq!(c.as_deref(), Some("run_timer_softirq"));
        assert_eq!(p, v(&["run_timer_softirq", "__do_softirq"]));
        let (c, _) = choose("irqsoff", &[v(&["do_IRQ"])], None);
        assert_eq!(c, None);
    }

    #[test]
    fn a_spin_on_a_lock_owner_is_named_by_the_spinner() {
        let s = v(&[
            "rwsem_optimistic_spin",
            "rwsem_down_write_slowpath",
            "copy_process",
        ]);
        let inside = |f: &str, c: &str| GapCandidate {
            function: f.into(),
            caller: Some(c.into()),
            gap_us: 7813.0,
        };
        let g = inside("rwsem_optimistic_spin", "rwsem_optimistic_spin");
        let (c, p) = choose("preemptirqsoff", std::slice::from_ref(&s), Some(&g));
        assert_eq!(c.as_deref(), Some("rwsem_optimistic_spin"));
        assert_eq!(p, s);
        let g = inside("__rcu_read_lock", "mutex_spin_on_owner");
        let (c, p) = choose("preemptoff", &[], Some(&g));
        assert_eq!(c.as_deref(), Some("mutex_spin_on_owner"));
        assert_eq!(p, v(&["mutex_spin_on_owner"]));
        // Other lock plumbing still hands the blame to its caller, and a
        // wakeup trace still reads its stack past the spinner.
        let g = inside("_raw_spin_lock", "mutex_lock");
        assert_eq!(choose("preemptoff", &[], Some(&g)).0, None);
        let (c, _) = choose("wakeup_rt", std::slice::from_ref(&s), Some(&g));
        assert_eq!(c.as_deref(), Some("copy_process"));
    }
}
