//! The discrete-event core: event queue, CPUs and run queues, preemption
//! models, IRQ deferral, locks, and the latency tracers.
//!
//! Spec §2.1-2.2. Tasks are explicit state machines ([`crate::programs`])
//! that yield [`Step`]s; work is a [`Seg`]ment whose IRQ / preempt / lock
//! state is constant, so events happen only at segment boundaries, lock
//! handoffs, timer expiries and preemption points. No IO, no clock.

use std::collections::VecDeque;

use crate::config::{Costs, Knobs, Preempt};
use crate::mem::Mem;
use crate::programs::Prog;
use crate::rng::Rng;

pub(crate) type TaskId = usize;
pub(crate) type LockId = usize;
/// A call path, innermost frame first (e.g. `isolate_lru_folios`,
/// `shrink_inactive_list`, ...), as a thin pointer to a static slice: 8
/// bytes in every segment instead of 16.
pub(crate) type Path = &'static &'static [&'static str];

/// A [`Path`] from frame names: `call_path!["f", "caller"]`.
macro_rules! call_path {
    ($($f:expr),* $(,)?) => {{
        const P: &[&str] = &[$($f),*];
        &P
    }};
}
pub(crate) use call_path;

/// A function name in a segment (its end, a break point), as a thin
/// pointer to a static `&str`.
pub(crate) type Label = &'static &'static str;

/// Lock context of a segment (spec §2.2 lock table). `Spin`/`SpinIrq` are
/// `spinlock_t`: preempt-off (and IRQs off) on !RT, sleeping on RT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    None,
    Spin,
    SpinIrq,
    Raw,
    #[expect(
        dead_code,
        reason = "local_irq_disable sections: part of the model, unused by the built-in scenarios"
    )]
    IrqOff,
}

/// Where a long segment may be interrupted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Brk {
    None,
    /// A real break point (cond_resched or lock drop) every `ns`; a pending
    /// preemption is honoured at the next one and the rest resumes later.
    Points(u64, Label),
    /// Checked every `every` ns: once need_resched is set and `min` ns have
    /// passed, the section ends early (S4 patch 2, S2 sections).
    CapOnResched {
        every: u64,
        min: u64,
        label: Label,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Seg {
    pub dur: u64,
    pub user: bool,
    pub ctx: Ctx,
    pub brk: Brk,
    pub path: Path,
    /// Function that ends the segment (e.g. `_raw_spin_unlock_irq`).
    pub end: Label,
    /// A cond_resched() follows the segment.
    pub resched: bool,
}

impl Seg {
    pub(crate) fn kernel(dur: u64, path: Path) -> Seg {
        Seg {
            dur,
            user: false,
            ctx: Ctx::None,
            brk: Brk::None,
            path,
            end: &"",
            resched: false,
        }
    }
    pub(crate) fn user(dur: u64, path: Path) -> Seg {
        Seg {
            user: true,
            ..Seg::kernel(dur, path)
        }
    }
    pub(crate) fn ctx(mut self, c: Ctx, end: Label) -> Seg {
        self.ctx = c;
        self.end = end;
        self
    }
    pub(crate) fn brk(mut self, b: Brk) -> Seg {
        self.brk = b;
        self
    }
    pub(crate) fn resched(mut self) -> Seg {
        self.resched = true;
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Excl,
    Read,
}

/// What a program asks the engine to do next.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    Run(Seg),
    Lock(LockId, Mode),
    /// Result in `Core::tasks[tid].try_ok`.
    TryLock(LockId),
    Unlock(LockId),
    Downgrade(LockId),
    SleepUntil(u64),
    /// Block until another task wakes this one.
    Wait,
    #[expect(dead_code, reason = "programs wake tasks through Core::wake directly")]
    Wake(TaskId),
    Exit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LockKind {
    SpinIrq,
    Spin,
    #[expect(
        dead_code,
        reason = "raw_spinlock_t: part of the lock model, unused by the built-in scenarios"
    )]
    Raw,
    RwSem,
    #[expect(
        dead_code,
        reason = "mutex: part of the lock model, unused by the built-in scenarios"
    )]
    Mutex,
}

#[derive(Debug, Clone, Copy)]
struct Waiter {
    tid: TaskId,
    mode: Mode,
    since: u64,
    spinning: bool,
}

/// Log2 histogram of nanosecond values (for p99).
#[derive(Debug, Clone)]
pub(crate) struct LogHist(pub [u64; 48]);

impl LogHist {
    fn add(&mut self, ns: u64) {
        let b = (64 - ns.max(1).leading_zeros()) as usize;
        self.0[b.min(47)] += 1;
    }
    /// Upper bound of the bucket holding quantile `q`.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        let total: u64 = self.0.iter().sum();
        if total == 0 {
            return 0;
        }
        let want = (total as f64 * q).ceil() as u64;
        let mut acc = 0;
        for (i, c) in self.0.iter().enumerate() {
            acc += c;
            if acc >= want {
                return 1u64 << i;
            }
        }
        1u64 << 47
    }
}

#[derive(Debug, Clone)]
pub(crate) struct LockStats {
    pub acq: u64,
    pub contentions: u64,
    pub wait_sum: u64,
    pub wait_max: u64,
    pub hold_sum: u64,
    pub hold_max: u64,
    pub hold_max_path: Path,
    pub wait_hist: LogHist,
    pub hold_hist: LogHist,
}

#[derive(Debug)]
pub(crate) struct Lock {
    pub name: &'static str,
    pub kind: LockKind,
    /// CPU of the last holder: a grant on another CPU pays a cache-line
    /// transfer of the lock and the data it protects.
    last_cpu: Option<usize>,
    /// Cache lines a holder's section writes (the lock word's line
    /// included): a grant on another CPU pulls each of them over, one
    /// `lock_handoff` apiece.
    lines: u32,
    pub owner: Option<TaskId>,
    pub readers: u32,
    waiters: VecDeque<Waiter>,
    pub stats: LockStats,
}

impl Lock {
    pub(crate) fn contended(&self) -> bool {
        !self.waiters.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Rt(u32),
    Fair,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum St {
    Running,
    Runnable,
    /// Waiting for an explicit wakeup (`Step::Wait`).
    Blocked,
    /// Waiting for a sleeping lock.
    LockWait,
    Sleeping,
    Dead,
}

#[derive(Debug)]
pub(crate) struct Task {
    pub comm: String,
    pub pid: u32,
    pub class: Class,
    pub cpu: usize,
    pub pinned: bool,
    pub state: St,
    resume: Option<Seg>,
    woken_at: Option<u64>,
    wake_pending: bool,
    pub sys_ns: u64,
    pub user_ns: u64,
    held: Vec<(LockId, u64)>,
    /// Cache-line transfer cost added to the next segment (the hold).
    xfer_ns: u64,
    pub try_ok: bool,
    /// The last Lock step had to wait.
    pub lock_waited: bool,
    pub last_path: Path,
    sleep_gen: u32,
    pub finite: bool,
    /// When the last lock this task asked for was granted (the end of its
    /// wait, even if the task has not run since).
    pub granted_at: u64,
    /// CFS vruntime (every fair task is nice 0, so it is its runtime),
    /// on the clock of the CPU it is on.
    vruntime: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ActKind {
    Normal,
    Spin,
    /// Cut at a break point; `Some(rest)` resumes later, `None` drops it.
    Cut(Option<u64>, Label),
}

#[derive(Debug, Clone, Copy)]
struct Active {
    seg: Seg,
    start: u64,
    end: u64,
    kind: ActKind,
    irq_off: bool,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: u64,
    task: TaskId,
    started_at: &'static str,
    path: Path,
    longest: u64,
}

#[derive(Debug)]
pub(crate) struct Cpu {
    pub curr: Option<TaskId>,
    rt_q: Vec<TaskId>,
    fair_q: VecDeque<TaskId>,
    pub need_resched: bool,
    slice_expired: bool,
    slice_armed: bool,
    slice_owner: Option<TaskId>,
    act: Option<Active>,
    generation: u32,
    slice_gen: u32,
    pending_irqs: Vec<TaskId>,
    irqoff: Option<Span>,
    preemptoff: Option<Span>,
    last_path: Path,
    last_label: &'static str,
    /// An RT task woken onto this CPU has been waiting since then.
    rt_wait_since: Option<u64>,
    /// The segment that held the CPU longest during that wait (overlap
    /// ns, call path): the section a wakeup_rt report blames.
    rt_holder: (u64, Path),
    /// cfs_rq->min_vruntime: never falls; follows the lower vruntime of
    /// the running task and the next queued one.
    min_vruntime: u64,
}

/// One latency-tracer record (the kernel keeps the max; we keep a top-10).
#[derive(Debug, Clone)]
pub(crate) struct LatRec {
    pub lat_ns: u64,
    pub cpu: usize,
    pub task: TaskId,
    pub started_at: &'static str,
    pub ended_at: &'static str,
    pub path: Path,
    /// The section blamed: for irqsoff / preemptoff the longest segment of
    /// the span, for wakeup_rt the segment that held the CPU longest while
    /// the RT task waited (not the preemption point).
    pub holder: Path,
    pub at_ns: u64,
    /// wakeup_rt: the woken task.
    pub woken: Option<TaskId>,
}

#[derive(Debug, Default)]
pub(crate) struct Tracer {
    pub top: Vec<LatRec>,
}

impl Tracer {
    fn offer(&mut self, r: LatRec) {
        if self.top.len() == 10 && self.top[9].lat_ns >= r.lat_ns {
            return;
        }
        let pos = self.top.partition_point(|x| x.lat_ns >= r.lat_ns);
        self.top.insert(pos, r);
        self.top.truncate(10);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    SegEnd {
        cpu: u32,
        generation: u32,
    },
    Timer {
        task: u32,
        generation: u32,
    },
    Slice {
        cpu: u32,
        generation: u32,
    },
    /// Periodic load balance (rebalance_domains), system-wide.
    Balance,
}

impl Ev {
    /// Packed into one word (kind, id, generation) so a heap entry is 24
    /// bytes: the heap is a fifth of the run time on small models.
    fn pack(self) -> u64 {
        let (k, id, g) = match self {
            Ev::SegEnd { cpu, generation } => (0u64, cpu, generation),
            Ev::Timer { task, generation } => (1, task, generation),
            Ev::Slice { cpu, generation } => (2, cpu, generation),
            Ev::Balance => (3, 0, 0),
        };
        (k << 62) | (u64::from(id) << 32) | u64::from(g)
    }
    fn unpack(w: u64) -> Ev {
        let id = ((w >> 32) & 0x3FFF_FFFF) as u32;
        let generation = w as u32;
        match w >> 62 {
            0 => Ev::SegEnd {
                cpu: id,
                generation,
            },
            1 => Ev::Timer {
                task: id,
                generation,
            },
            2 => Ev::Slice {
                cpu: id,
                generation,
            },
            _ => Ev::Balance,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    t: u64,
    seq: u64,
    ev: u64,
}

impl Entry {
    /// (time, sequence) as one integer: compared without branches.
    #[inline]
    fn key(&self) -> u128 {
        (u128::from(self.t) << 64) | u128::from(self.seq)
    }

    #[inline]
    fn before(&self, o: &Entry) -> bool {
        // Earliest time first; ties in insertion order, which keeps runs
        // deterministic.
        self.key() < o.key()
    }
}

/// A binary min-heap that keeps the moving entry in registers while it
/// sifts (std's `BinaryHeap` reads the just-written entry back, a
/// store-forwarding stall that showed up as a fifth of the run time).
/// Keys are unique, so the pop order is fully determined.
#[derive(Debug, Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    fn with_capacity(n: usize) -> Self {
        Heap {
            v: Vec::with_capacity(n),
        }
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let p = (i - 1) / 2;
            let pe = self.v[p];
            if !e.before(&pe) {
                break;
            }
            self.v[i] = pe;
            i = p;
        }
        self.v[i] = e;
    }

    /// Sift-down pop; the smaller child is picked without a branch.
    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        let n = self.v.len();
        if n == 0 {
            return Some(last);
        }
        let v = &mut self.v[..];
        let top = v[0];
        let mut i = 0;
        let mut l = 1;
        while l + 1 < n {
            let c = l + usize::from(v[l + 1].key() < v[l].key());
            let ce = v[c];
            if !ce.before(&last) {
                v[i] = last;
                return Some(top);
            }
            v[i] = ce;
            i = c;
            l = 2 * i + 1;
        }
        if l < n && v[l].before(&last) {
            v[i] = v[l];
            i = l;
        }
        v[i] = last;
        Some(top)
    }
}

/// Everything but the programs and their random streams (so a program can
/// borrow the core mutably while it is being stepped).
pub(crate) struct Core {
    pub now: u64,
    heap: Heap,
    seq: u64,
    pub cpus: Vec<Cpu>,
    pub tasks: Vec<Task>,
    pub locks: Vec<Lock>,
    pub costs: Costs,
    pub cv: f64,
    pub knobs: Knobs,
    pub hz: u32,
    pub mem: Mem,
    kicks: VecDeque<usize>,
    pub finite_left: u32,
    pub stop: bool,
    pub events: u64,
    pub irqsoff: Tracer,
    pub preemptoff: Tracer,
    pub wakeup_rt: Tracer,
    sched_rng: Rng,
    /// Tasks moved by the load balancer (periodic and newidle).
    pub migrations: u64,
    /// CPU of the task doing the current wakeup, if a task does it.
    waker: Option<usize>,
}

/// CFS's tunables scale with the CPU count (4.8 `get_update_sysctl_factor`,
/// SCHED_TUNABLESCALING_LOG): 1 + ilog2(min(CPUs, 8)).
fn cfs_factor(cpus: usize) -> u64 {
    1 + u64::from(cpus.clamp(1, 8).ilog2())
}

/// Sleeper credit (4.8 `place_entity()`, GENTLE_FAIR_SLEEPERS): a woken
/// task's vruntime is at least min_vruntime - sysctl_sched_latency / 2,
/// sched_latency being 6 ms x the factor.
fn sleeper_credit_ns(cpus: usize) -> u64 {
    6_000_000 * cfs_factor(cpus) / 2
}

/// `wakeup_gran()`: a woken task preempts the running one when its
/// vruntime is more than sysctl_sched_wakeup_granularity (1 ms x the
/// factor, nice 0) behind (`wakeup_preempt_entity()`).
fn wakeup_gran_ns(cpus: usize) -> u64 {
    1_000_000 * cfs_factor(cpus)
}

/// Period of the system-wide load balance (a few ms, as the kernel's
/// sd->balance_interval for a small domain).
const BALANCE_INTERVAL_NS: u64 = 4_000_000;

/// Where a task runs: bound to one CPU (cyclictest -a), or placed and
/// migrated by the load balancer starting from a preferred CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Pinned(usize),
    Balanced(usize),
    /// Balanced, starting from CPU (task id mod CPUs).
    Any,
}

/// Program-side view: the core plus this task's random stream.
pub(crate) struct Cx<'a> {
    pub now: u64,
    pub tid: TaskId,
    pub cpu: usize,
    pub rng: &'a mut Rng,
    pub core: &'a mut Core,
}

impl Cx<'_> {
    /// Aggregated cost of `n` items of mean `mu` ns (spec §2.3).
    pub(crate) fn cost(&mut self, n: f64, mu: f64) -> u64 {
        self.rng.cost(n, mu, self.core.cv)
    }
}

pub(crate) struct Sim {
    pub core: Core,
    pub progs: Vec<Prog>,
    pub rngs: Vec<Rng>,
}

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    EventLimit,
}

impl Core {
    pub(crate) fn new(
        cpus: usize,
        costs: Costs,
        cv: f64,
        knobs: Knobs,
        hz: u32,
        seed: u64,
    ) -> Core {
        Core {
            now: 0,
            heap: Heap::with_capacity(1024),
            seq: 0,
            cpus: (0..cpus)
                .map(|_| Cpu {
                    curr: None,
                    rt_q: Vec::new(),
                    fair_q: VecDeque::new(),
                    need_resched: false,
                    slice_expired: false,
                    slice_armed: false,
                    slice_owner: None,
                    min_vruntime: 0,
                    act: None,
                    generation: 0,
                    slice_gen: 0,
                    pending_irqs: Vec::new(),
                    irqoff: None,
                    preemptoff: None,
                    last_path: call_path!["do_idle"],
                    last_label: "",
                    rt_wait_since: None,
                    rt_holder: (0, call_path![]),
                })
                .collect(),
            tasks: Vec::new(),
            locks: Vec::new(),
            costs,
            cv,
            knobs,
            hz,
            mem: Mem::default(),
            kicks: VecDeque::new(),
            finite_left: 0,
            stop: false,
            events: 0,
            irqsoff: Tracer::default(),
            preemptoff: Tracer::default(),
            wakeup_rt: Tracer::default(),
            sched_rng: Rng::new(crate::rng::derive(seed, "sched")),
            migrations: 0,
            waker: None,
        }
    }

    pub(crate) fn add_lock(&mut self, name: &'static str, kind: LockKind) -> LockId {
        self.add_lock_lines(name, kind, 1)
    }

    /// A lock whose sections write `lines` cache lines (spec §2.2c).
    pub(crate) fn add_lock_lines(
        &mut self,
        name: &'static str,
        kind: LockKind,
        lines: u32,
    ) -> LockId {
        self.locks.push(Lock {
            name,
            kind,
            last_cpu: None,
            lines: lines.max(1),
            owner: None,
            readers: 0,
            waiters: VecDeque::new(),
            stats: LockStats {
                acq: 0,
                contentions: 0,
                wait_sum: 0,
                wait_max: 0,
                hold_sum: 0,
                hold_max: 0,
                hold_max_path: call_path![],
                wait_hist: LogHist([0; 48]),
                hold_hist: LogHist([0; 48]),
            },
        });
        self.locks.len() - 1
    }

    fn arm_slice(&mut self, cpu: usize, owner: TaskId, after: u64) {
        // A simplified fair class: round robin with a 3 ms slice (CFS
        // sysctl_sched_base_slice order of magnitude), checked at the tick.
        let c = &mut self.cpus[cpu];
        c.slice_gen = c.slice_gen.wrapping_add(1);
        c.slice_armed = true;
        c.slice_owner = Some(owner);
        let g = c.slice_gen;
        let t = self.now + after;
        self.push(
            t,
            Ev::Slice {
                cpu: cpu as u32,
                generation: g,
            },
        );
    }

    fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Entry {
            t,
            seq: self.seq,
            ev: ev.pack(),
        });
    }

    fn rt(&self) -> bool {
        self.knobs.preempt == Preempt::Rt
    }

    /// (irqs off, preempt_count > 0, preemptible mid-segment) per the
    /// preemption-model table of spec §1.12.
    fn flags(&self, seg: &Seg) -> (bool, bool, bool) {
        let rt = self.rt();
        let (irq, pre) = match seg.ctx {
            Ctx::None => (false, false),
            Ctx::Spin => (false, !rt),
            Ctx::SpinIrq => (!rt, !rt),
            Ctx::Raw => (false, true),
            Ctx::IrqOff => (true, true),
        };
        if seg.user {
            return (false, false, true);
        }
        let preemptible = !irq
            && match self.knobs.preempt {
                Preempt::None | Preempt::Voluntary => false,
                Preempt::Full | Preempt::Lazy => !pre,
                Preempt::Rt => {
                    !(pre
                        || matches!(seg.ctx, Ctx::Spin | Ctx::SpinIrq)
                            && self.knobs.rt_sleeping_spinlock_defers_preemption)
                }
            };
        (irq, pre, preemptible)
    }

    fn prio(&self, t: TaskId) -> i64 {
        match self.tasks[t].class {
            Class::Rt(p) => i64::from(p),
            Class::Fair => -1,
        }
    }

    fn should_preempt(&self, cpu: usize) -> bool {
        let c = &self.cpus[cpu];
        let Some(cur) = c.curr else {
            return !c.rt_q.is_empty() || !c.fair_q.is_empty();
        };
        if let Some(&best) = c.rt_q.first()
            && self.prio(best) > self.prio(cur)
        {
            return true;
        }
        c.slice_expired && self.tasks[cur].class == Class::Fair && !c.fair_q.is_empty()
    }

    fn enqueue(&mut self, cpu: usize, t: TaskId, front: bool) {
        self.tasks[t].state = St::Runnable;
        self.tasks[t].cpu = cpu;
        match self.tasks[t].class {
            Class::Rt(p) => {
                let q = &self.cpus[cpu].rt_q;
                // FIFO within a priority; a preempted task goes first.
                let pos = if front {
                    q.partition_point(|&x| match self.tasks[x].class {
                        Class::Rt(px) => px > p,
                        Class::Fair => false,
                    })
                } else {
                    q.partition_point(|&x| match self.tasks[x].class {
                        Class::Rt(px) => px >= p,
                        Class::Fair => false,
                    })
                };
                self.cpus[cpu].rt_q.insert(pos, t);
            }
            Class::Fair => {
                if front {
                    self.cpus[cpu].fair_q.push_front(t)
                } else {
                    self.cpus[cpu].fair_q.push_back(t)
                }
            }
        }
    }

    /// Tasks running or queued on `cpu` (its nr_running).
    pub(crate) fn nr_running(&self, cpu: usize) -> usize {
        let c = &self.cpus[cpu];
        usize::from(c.curr.is_some()) + c.rt_q.len() + c.fair_q.len()
    }

    /// select_task_rq_fair in outline (spec §2.2a): the previous
    /// CPU if it is idle (cache hot), else a random idle CPU
    /// (select_idle_sibling), else the least loaded CPU, the previous one
    /// on a tie (wake_affine keeps it).
    fn select_cpu(&mut self, t: TaskId) -> usize {
        let prev = self.tasks[t].cpu;
        if self.tasks[t].pinned {
            return prev;
        }
        let mut prev = prev;
        if let Some(w) = self.waker
            && w < self.cpus.len()
            && self.nr_running(w) <= self.nr_running(prev)
        {
            prev = w;
        }
        if self.nr_running(prev) == 0 {
            return prev;
        }
        let n = self.cpus.len();
        let idle = (0..n).filter(|&c| self.nr_running(c) == 0).count();
        if idle > 0 {
            // The k-th idle CPU, without collecting them.
            let k = self.sched_rng.range(0, idle as u64 - 1) as usize;
            return (0..n)
                .filter(|&c| self.nr_running(c) == 0)
                .nth(k)
                .expect("k < idle");
        }
        (0..n)
            .min_by_key(|&c| (self.nr_running(c), c != prev, c))
            .unwrap_or(prev)
    }

    /// A queued (not running) fair task that may migrate, taken from the
    /// tail of `src`'s queue (the one least likely to be cache hot).
    fn detach_movable(&mut self, src: usize) -> Option<TaskId> {
        let q = &self.cpus[src].fair_q;
        let pos = q.iter().rposition(|&x| !self.tasks[x].pinned)?;
        self.cpus[src].fair_q.remove(pos)
    }

    /// newidle_balance: `dst` is about to go idle; pull one queued fair
    /// task from the busiest CPU that has one to spare.
    fn pull_task(&mut self, dst: usize) -> Option<TaskId> {
        let n = self.cpus.len();
        let src = (0..n)
            .filter(|&c| c != dst && self.cpus[c].fair_q.iter().any(|&x| !self.tasks[x].pinned))
            .max_by_key(|&c| (self.nr_running(c), std::cmp::Reverse(c)))?;
        let t = self.detach_movable(src)?;
        self.renormalise(t, src, dst);
        self.tasks[t].cpu = dst;
        self.migrations += 1;
        Some(t)
    }

    /// Periodic load balance (rebalance_domains, one flat domain): move
    /// queued fair tasks from the busiest to the idlest CPU while their
    /// nr_running differ by two or more; an idle destination is kicked.
    fn balance(&mut self) {
        let n = self.cpus.len();
        for _ in 0..n {
            let load: Vec<usize> = (0..n).map(|c| self.nr_running(c)).collect();
            let Some(src) = (0..n)
                .filter(|&c| self.cpus[c].fair_q.iter().any(|&x| !self.tasks[x].pinned))
                .max_by_key(|&c| (load[c], std::cmp::Reverse(c)))
            else {
                break;
            };
            let dst = (0..n)
                .min_by_key(|&c| (load[c], c))
                .expect("at least one CPU");
            if load[src] < load[dst] + 2 {
                break;
            }
            let Some(t) = self.detach_movable(src) else {
                break;
            };
            self.renormalise(t, src, dst);
            self.migrations += 1;
            self.enqueue(dst, t, false);
            self.note_arrival(dst, t);
        }
        self.push(self.now + BALANCE_INTERVAL_NS, Ev::Balance);
    }

    /// A task was queued on `cpu`: arm the slice of a running fair task
    /// and request a reschedule if the newcomer should run first. A slice
    /// still armed for a task that no longer runs here (it slept, or it
    /// was queued and another task picked with nothing else waiting) is
    /// not the running task's: without a slice of its own the running task
    /// would keep the CPU from the newcomer until it slept, where CFS's
    /// tick (check_preempt_tick) ends its share.
    fn note_arrival(&mut self, cpu: usize, t: TaskId) {
        if self.tasks[t].class == Class::Fair
            && let Some(c) = self.cpus[cpu].curr
            && self.tasks[c].class == Class::Fair
            && (!self.cpus[cpu].slice_armed || self.cpus[cpu].slice_owner != Some(c))
        {
            self.arm_slice(cpu, c, 3_000_000);
        }
        if self.should_preempt(cpu) {
            self.cpus[cpu].need_resched = true;
            self.kicks.push_back(cpu);
        }
    }

    /// try_to_wake_up from a task running on `waker_cpu` (a kthread woken
    /// by an allocation): wake_affine may move the wakee next to the waker
    /// when the waker's CPU is no busier than the wakee's previous one.
    pub(crate) fn wake_from(&mut self, t: TaskId, waker_cpu: usize) {
        self.waker = Some(waker_cpu);
        self.wake(t);
        self.waker = None;
    }

    /// try_to_wake_up.
    pub(crate) fn wake(&mut self, t: TaskId) {
        match self.tasks[t].state {
            St::Blocked | St::Sleeping => self.make_runnable(t),
            St::Running | St::Runnable | St::LockWait => self.tasks[t].wake_pending = true,
            St::Dead => {}
        }
    }

    fn make_runnable(&mut self, t: TaskId) {
        self.tasks[t].sleep_gen = self.tasks[t].sleep_gen.wrapping_add(1);
        let prev = self.tasks[t].cpu;
        let cpu = self.select_cpu(t);
        if matches!(self.tasks[t].class, Class::Rt(_)) {
            self.tasks[t].woken_at = Some(self.now);
            let now = self.now;
            self.cpus[cpu].rt_wait_since.get_or_insert(now);
        }
        let mut preempt = false;
        if self.tasks[t].class == Class::Fair {
            // place_entity() for a wakeup, then check_preempt_wakeup().
            self.renormalise(t, prev, cpu);
            let n = self.cpus.len();
            let floor = self.cpus[cpu]
                .min_vruntime
                .saturating_sub(sleeper_credit_ns(n));
            let v = self.tasks[t].vruntime.max(floor);
            self.tasks[t].vruntime = v;
            if let Some(c) = self.cpus[cpu].curr
                && self.tasks[c].class == Class::Fair
                && self.tasks[c].vruntime > v + wakeup_gran_ns(n)
            {
                preempt = true;
            }
        }
        self.enqueue(cpu, t, preempt);
        if preempt {
            // resched_curr(): the running task's turn ends at its next
            // preemption point, and the woken task is leftmost.
            self.cpus[cpu].slice_expired = true;
        }
        self.note_arrival(cpu, t);
    }

    /// The tracers' view of a state change on `cpu`: IRQs / preemption
    /// now off or on. Nothing to do (inlined check) when everything stays
    /// on and no span is open.
    #[inline]
    fn trace_state(&mut self, cpu: usize, irq: bool, pre: bool, seg: Option<&Seg>, task: TaskId) {
        let c = &self.cpus[cpu];
        if !irq && !pre && c.irqoff.is_none() && c.preemptoff.is_none() && c.pending_irqs.is_empty()
        {
            return;
        }
        self.trace_state_slow(cpu, irq, pre, seg, task);
    }

    #[inline(never)]
    fn trace_state_slow(
        &mut self,
        cpu: usize,
        irq: bool,
        pre: bool,
        seg: Option<&Seg>,
        task: TaskId,
    ) {
        let now = self.now;
        let label = self.cpus[cpu].last_label;
        let c = &mut self.cpus[cpu];
        span_step(
            &mut c.irqoff,
            irq,
            &mut self.irqsoff,
            now,
            cpu,
            task,
            label,
            seg,
        );
        span_step(
            &mut c.preemptoff,
            pre,
            &mut self.preemptoff,
            now,
            cpu,
            task,
            label,
            seg,
        );
        if !irq && !c.pending_irqs.is_empty() {
            let pend = std::mem::take(&mut c.pending_irqs);
            for t in pend {
                self.wake(t);
            }
        }
    }

    fn account(&mut self, t: TaskId, a: &Active, until: u64) {
        let cpu = self.tasks[t].cpu;
        if let Some(since) = self.cpus[cpu].rt_wait_since {
            let ov = until.saturating_sub(a.start.max(since));
            if ov > self.cpus[cpu].rt_holder.0 {
                // A spinning waiter holds the CPU on behalf of its caller.
                let path = if a.kind == ActKind::Spin {
                    self.tasks[t].last_path
                } else {
                    a.seg.path
                };
                self.cpus[cpu].rt_holder = (ov, path);
            }
        }
        let d = until.saturating_sub(a.start);
        if a.seg.user {
            self.tasks[t].user_ns += d;
        } else {
            self.tasks[t].sys_ns += d;
        }
        if self.tasks[t].class == Class::Fair {
            // update_curr(), then update_min_vruntime() from the running
            // task and the next one queued.
            self.tasks[t].vruntime += d;
            let mut m = self.tasks[t].vruntime;
            if let Some(&n) = self.cpus[cpu].fair_q.front() {
                m = m.min(self.tasks[n].vruntime);
            }
            let c = &mut self.cpus[cpu];
            c.min_vruntime = c.min_vruntime.max(m);
        }
    }

    /// A fair task leaves `src`'s clock for `dst`'s (4.8
    /// `migrate_task_rq_fair()` / `task_waking_fair()` subtract the old
    /// min_vruntime, `enqueue_entity()` adds the new one).
    fn renormalise(&mut self, t: TaskId, src: usize, dst: usize) {
        if src != dst {
            let v = self.tasks[t].vruntime as i64 - self.cpus[src].min_vruntime as i64
                + self.cpus[dst].min_vruntime as i64;
            self.tasks[t].vruntime = v.max(0) as u64;
        }
    }

    // ------------------------------------------------------------ locks

    fn sleeping(&self, kind: LockKind) -> bool {
        match kind {
            LockKind::RwSem | LockKind::Mutex => true,
            LockKind::Spin | LockKind::SpinIrq => self.rt(),
            LockKind::Raw => false,
        }
    }

    fn grant(&mut self, l: LockId, t: TaskId, mode: Mode, at: u64) {
        let cpu = self.tasks[t].cpu;
        let spin = !matches!(self.locks[l].kind, LockKind::RwSem | LockKind::Mutex);
        if spin && self.locks[l].last_cpu.is_some_and(|c| c != cpu) {
            let lines = u64::from(self.locks[l].lines);
            self.tasks[t].xfer_ns += lines * self.costs.lock_handoff as u64;
        }
        let lk = &mut self.locks[l];
        lk.last_cpu = Some(cpu);
        match mode {
            Mode::Read => lk.readers += 1,
            Mode::Excl => lk.owner = Some(t),
        }
        lk.stats.acq += 1;
        self.tasks[t].held.push((l, at));
        self.tasks[t].granted_at = at;
    }

    /// Returns true when acquired at once.
    fn try_lock(&mut self, l: LockId, t: TaskId, mode: Mode, queue: bool) -> bool {
        let now = self.now;
        let lk = &self.locks[l];
        let free = match mode {
            Mode::Excl => lk.owner.is_none() && lk.readers == 0,
            Mode::Read => {
                // Readers may steal a reader-owned rwsem ahead of a queued
                // writer until that writer sets HANDOFF (4 ms, or at once
                // for an RT waiter), spec §1.9.
                lk.owner.is_none()
                    && lk.waiters.iter().all(|w| {
                        w.mode == Mode::Read
                            || (now - w.since < 4_000_000
                                && !matches!(self.tasks[w.tid].class, Class::Rt(_)))
                    })
            }
        };
        if free {
            self.grant(l, t, mode, now);
            return true;
        }
        if queue {
            let spinning = !self.sleeping(self.locks[l].kind);
            self.locks[l].stats.contentions += 1;
            self.locks[l].waiters.push_back(Waiter {
                tid: t,
                mode,
                since: now,
                spinning,
            });
        }
        false
    }

    fn unlock(&mut self, l: LockId, t: TaskId) {
        let now = self.now;
        if let Some(i) = self.tasks[t].held.iter().rposition(|h| h.0 == l) {
            let (_, since) = self.tasks[t].held.remove(i);
            let hold = now.saturating_sub(since);
            let path = self.tasks[t].last_path;
            let st = &mut self.locks[l].stats;
            st.hold_sum += hold;
            st.hold_hist.add(hold);
            if hold > st.hold_max {
                st.hold_max = hold;
                st.hold_max_path = path;
            }
        }
        let lk = &mut self.locks[l];
        if lk.owner == Some(t) {
            lk.owner = None;
        } else if lk.readers > 0 {
            lk.readers -= 1;
        }
        self.handoff(l);
    }

    fn downgrade(&mut self, l: LockId, t: TaskId) {
        let lk = &mut self.locks[l];
        if lk.owner == Some(t) {
            lk.owner = None;
            lk.readers += 1;
        }
        self.handoff(l);
    }

    /// Hand the lock to the head waiter: one writer, or the readers at the
    /// head (up to MAX_READERS_WAKEUP = 256), spec §1.9; FIFO handoff with
    /// a cache-line transfer cost for spinners (qspinlock).
    fn handoff(&mut self, l: LockId) {
        let mut woken = 0;
        loop {
            let lk = &self.locks[l];
            let Some(w) = lk.waiters.front().copied() else {
                break;
            };
            let ok = match w.mode {
                Mode::Excl => lk.owner.is_none() && lk.readers == 0,
                Mode::Read => lk.owner.is_none() && woken < 256,
            };
            if !ok {
                break;
            }
            self.locks[l].waiters.pop_front();
            let at = if w.spinning {
                self.now + self.costs.lock_handoff as u64
            } else {
                self.now
            };
            let wait = at - w.since;
            let st = &mut self.locks[l].stats;
            st.wait_sum += wait;
            st.wait_hist.add(wait);
            st.wait_max = st.wait_max.max(wait);
            self.grant(l, w.tid, w.mode, at);
            if w.spinning {
                let cpu = self.tasks[w.tid].cpu;
                let c = &mut self.cpus[cpu];
                if let Some(a) = c.act.as_mut() {
                    a.end = at;
                    c.generation = c.generation.wrapping_add(1);
                    let g = c.generation;
                    self.push(
                        at,
                        Ev::SegEnd {
                            cpu: cpu as u32,
                            generation: g,
                        },
                    );
                }
            } else {
                self.make_runnable(w.tid);
            }
            woken += 1;
            if w.mode == Mode::Excl {
                break;
            }
        }
    }
}

impl Sim {
    pub(crate) fn new(core: Core) -> Sim {
        Sim {
            core,
            progs: Vec::new(),
            rngs: Vec::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn spawn(
        &mut self,
        seed: u64,
        key: String,
        comm: String,
        class: Class,
        place: Place,
        finite: bool,
        prog: Prog,
        start_at: u64,
    ) -> TaskId {
        let (cpu, pinned) = match place {
            Place::Pinned(c) => (c, true),
            Place::Balanced(c) => (c, false),
            Place::Any => (self.core.tasks.len(), false),
        };
        let c = &mut self.core;
        let id = c.tasks.len();
        c.tasks.push(Task {
            comm,
            pid: 100 + id as u32,
            class,
            cpu: cpu % c.cpus.len(),
            pinned,
            state: St::Sleeping,
            resume: None,
            woken_at: None,
            wake_pending: false,
            sys_ns: 0,
            user_ns: 0,
            held: Vec::new(),
            xfer_ns: 0,
            try_ok: false,
            lock_waited: false,
            last_path: call_path![],
            sleep_gen: 0,
            finite,
            granted_at: 0,
            vruntime: 0,
        });
        if finite {
            c.finite_left += 1;
        }
        self.progs.push(prog);
        self.rngs.push(Rng::new(crate::rng::derive(seed, &key)));
        c.push(
            start_at,
            Ev::Timer {
                task: id as u32,
                generation: 0,
            },
        );
        id
    }

    /// Run until `end_ns`, the last finite task exits, or `check` says stop.
    pub(crate) fn run(
        &mut self,
        end_ns: u64,
        max_events: u64,
        check: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(), Stop> {
        if self.core.cpus.len() > 1 && self.core.tasks.iter().any(|t| !t.pinned) {
            self.core.push(BALANCE_INTERVAL_NS, Ev::Balance);
        }
        while let Some(e) = self.core.heap.pop() {
            if e.t > end_ns {
                self.core.now = end_ns;
                break;
            }
            self.core.now = e.t;
            self.core.events += 1;
            if self.core.events & 0xFFFF == 0 && !check(self.core.now, self.core.events) {
                return Err(Stop::Cancelled);
            }
            if self.core.events > max_events {
                return Err(Stop::EventLimit);
            }
            match Ev::unpack(e.ev) {
                Ev::SegEnd { cpu, generation } => {
                    if self.core.cpus[cpu as usize].generation == generation {
                        self.seg_end(cpu as usize);
                    }
                }
                Ev::Timer { task, generation } => {
                    let t = task as usize;
                    if self.core.tasks[t].sleep_gen == generation
                        && self.core.tasks[t].state == St::Sleeping
                    {
                        let cpu = self.core.tasks[t].cpu;
                        let irq_off = self.core.cpus[cpu].act.is_some_and(|a| a.irq_off);
                        if irq_off {
                            // Timer IRQ held off until IRQs are enabled.
                            self.core.cpus[cpu].pending_irqs.push(t);
                        } else {
                            self.core.wake(t);
                        }
                    }
                }
                Ev::Balance => self.core.balance(),
                Ev::Slice { cpu, generation } => {
                    let c = cpu as usize;
                    if self.core.cpus[c].slice_gen == generation {
                        let cpu = &mut self.core.cpus[c];
                        cpu.slice_armed = false;
                        let owner = cpu.slice_owner;
                        let curr = cpu.curr;
                        if curr.is_some() && curr == owner {
                            self.core.cpus[c].slice_expired = true;
                            if self.core.should_preempt(c) {
                                self.core.cpus[c].need_resched = true;
                                self.core.kicks.push_back(c);
                            }
                        } else if let (Some(o), Some(cur)) = (owner, curr)
                            && matches!(self.core.tasks[cur].class, Class::Rt(_))
                            && self.core.tasks[o].state == St::Runnable
                        {
                            // The slice owner was preempted by an RT task:
                            // look again shortly after.
                            self.core.arm_slice(c, o, 1_000_000);
                        }
                    }
                }
            }
            while let Some(c) = self.core.kicks.pop_front() {
                self.kick(c);
            }
            if self.core.stop {
                break;
            }
        }
        // Close open spans so a section still running at the end counts.
        for cpu in 0..self.core.cpus.len() {
            if let Some(t) = self.core.cpus[cpu].curr {
                self.core.trace_state(cpu, false, false, None, t);
            }
        }
        Ok(())
    }

    /// A preemption was requested on `cpu`: act on it now if the running
    /// segment allows, or arrange a cut at its next break point.
    fn kick(&mut self, cpu: usize) {
        let now = self.core.now;
        let c = &self.core.cpus[cpu];
        let Some(cur) = c.curr else {
            if !c.rt_q.is_empty() || !c.fair_q.is_empty() {
                self.schedule(cpu);
            }
            return;
        };
        if !self.core.should_preempt(cpu) {
            return;
        }
        let Some(a) = c.act else { return };
        if a.kind != ActKind::Normal {
            return;
        }
        let (irq, _, preemptible) = self.core.flags(&a.seg);
        if preemptible {
            // Preempted at IRQ exit / preempt_enable.
            let rest = a.end - now;
            self.core.account(cur, &a, now);
            let c = &mut self.core.cpus[cpu];
            c.act = None;
            c.generation = c.generation.wrapping_add(1);
            c.last_path = a.seg.path;
            c.last_label = if a.seg.user {
                "irqentry_exit_to_user_mode"
            } else {
                "preempt_schedule_irq"
            };
            let mut seg = a.seg;
            seg.dur = rest;
            self.core.tasks[cur].resume = Some(seg);
            self.core.tasks[cur].last_path = a.seg.path;
            self.preempt_switch(cpu, cur);
            return;
        }
        if irq {
            return;
        }
        let cut = match a.seg.brk {
            Brk::None => None,
            Brk::Points(every, label) => {
                let every = every.max(1);
                let k = (now - a.start).div_ceil(every).max(1);
                let at = a.start + k * every;
                (at < a.end).then(|| (at, ActKind::Cut(Some(a.end - at), label)))
            }
            Brk::CapOnResched { every, min, label } => {
                let every = every.max(1);
                let from = now.max(a.start + min);
                let k = (from - a.start).div_ceil(every).max(1);
                let at = a.start + k * every;
                (at < a.end).then_some((at, ActKind::Cut(None, label)))
            }
        };
        if let Some((at, kind)) = cut {
            let c = &mut self.core.cpus[cpu];
            let a = c.act.as_mut().expect("active");
            a.end = at;
            a.kind = kind;
            c.generation = c.generation.wrapping_add(1);
            let g = c.generation;
            self.core.push(
                at,
                Ev::SegEnd {
                    cpu: cpu as u32,
                    generation: g,
                },
            );
        }
    }

    fn seg_end(&mut self, cpu: usize) {
        let now = self.core.now;
        let Some(a) = self.core.cpus[cpu].act.take() else {
            return;
        };
        let t = self.core.cpus[cpu].curr.expect("a segment has a task");
        self.core.account(t, &a, now);
        {
            let c = &mut self.core.cpus[cpu];
            if a.kind != ActKind::Spin {
                c.last_path = a.seg.path;
                c.last_label = a.seg.end;
                self.core.tasks[t].last_path = a.seg.path;
            }
        }
        match a.kind {
            ActKind::Cut(rest, label) => {
                self.core.cpus[cpu].last_label = label;
                if let Some(r) = rest {
                    let mut s = a.seg;
                    s.dur = r;
                    self.core.tasks[t].resume = Some(s);
                }
                // The break point: IRQs on, preemptible.
                self.core.trace_state(cpu, false, false, None, t);
                if self.core.should_preempt(cpu) {
                    self.preempt_switch(cpu, t);
                    return;
                }
                self.continue_task(cpu);
            }
            ActKind::Normal => {
                let vol = matches!(self.core.knobs.preempt, Preempt::None | Preempt::Voluntary);
                // Releasing a lock ends with preempt_enable() (or, on RT,
                // rt_spin_unlock -> migrate_enable): a preemption point on
                // preemptible kernels even when another section follows.
                if !vol && a.seg.ctx != Ctx::None && self.core.cpus[cpu].need_resched {
                    self.core.trace_state(cpu, false, false, None, t);
                    if self.core.should_preempt(cpu) {
                        self.preempt_switch(cpu, t);
                        return;
                    }
                }
                if a.seg.resched && vol && self.core.cpus[cpu].need_resched {
                    self.core.trace_state(cpu, false, false, None, t);
                    if self.core.should_preempt(cpu) {
                        self.core.cpus[cpu].last_label = "__cond_resched";
                        self.preempt_switch(cpu, t);
                        return;
                    }
                }
                self.continue_task(cpu);
            }
            ActKind::Spin => self.continue_task(cpu),
        }
    }

    fn preempt_switch(&mut self, cpu: usize, t: TaskId) {
        let front = !self.core.cpus[cpu].slice_expired;
        self.core.trace_state(cpu, false, false, None, t);
        self.core.enqueue(cpu, t, front);
        self.schedule(cpu);
    }

    fn schedule(&mut self, cpu: usize) {
        let now = self.core.now;
        let c = &mut self.core.cpus[cpu];
        c.need_resched = false;
        c.slice_expired = false;
        c.act = None;
        c.generation = c.generation.wrapping_add(1);
        let mut next = if !c.rt_q.is_empty() {
            Some(c.rt_q.remove(0))
        } else {
            c.fair_q.pop_front()
        };
        if next.is_none() {
            next = self.core.pull_task(cpu);
        }
        self.core.cpus[cpu].curr = next;
        let Some(n) = next else { return };
        if let Some(w) = self.core.tasks[n].woken_at.take() {
            let c = &mut self.core.cpus[cpu];
            let prev = c.last_path;
            let label = c.last_label;
            let holder = if c.rt_holder.0 > 0 {
                c.rt_holder.1
            } else {
                prev
            };
            c.rt_holder = (0, call_path![]);
            c.rt_wait_since = None;
            if c.rt_q
                .iter()
                .any(|&x| self.core.tasks[x].woken_at.is_some())
            {
                c.rt_wait_since = Some(now);
            }
            // sched_switch is traced after __schedule() picked the task:
            // half of the context-switch path (spec §4.2).
            let switch = (self.core.costs.ctx_switch_user * 0.5) as u64;
            self.core.wakeup_rt.offer(LatRec {
                lat_ns: now - w + switch,
                cpu,
                task: n,
                started_at: "try_to_wake_up",
                ended_at: label,
                path: prev,
                holder,
                at_ns: w,
                woken: Some(n),
            });
        }
        self.core.tasks[n].state = St::Running;
        self.core.tasks[n].cpu = cpu;
        let c = &mut self.core.cpus[cpu];
        c.last_path = call_path!["__schedule"];
        c.last_label = "";
        let c = &self.core.cpus[cpu];
        if self.core.tasks[n].class == Class::Fair
            && !c.fair_q.is_empty()
            && (!c.slice_armed || c.slice_owner != Some(n))
        {
            self.core.arm_slice(cpu, n, 3_000_000);
        }
        self.continue_task(cpu);
    }

    fn step(&mut self, t: TaskId, cpu: usize) -> Step {
        let core = &mut self.core;
        let mut cx = Cx {
            now: core.now,
            tid: t,
            cpu,
            rng: &mut self.rngs[t],
            core,
        };
        self.progs[t].step(&mut cx)
    }

    /// Run the current task's program until it needs simulated time.
    fn continue_task(&mut self, cpu: usize) {
        let Some(t) = self.core.cpus[cpu].curr else {
            return;
        };
        for _ in 0..100_000 {
            // Check before taking: the common path then does not write
            // the task's resume slot.
            let step = if self.core.tasks[t].resume.is_some() {
                Step::Run(self.core.tasks[t].resume.take().expect("checked"))
            } else {
                self.step(t, cpu)
            };
            match step {
                Step::Run(mut seg) => {
                    seg.dur += std::mem::take(&mut self.core.tasks[t].xfer_ns);
                    if seg.dur == 0 {
                        seg.dur = 1;
                    }
                    let (irq, pre, preemptible) = self.core.flags(&seg);
                    self.core.trace_state(cpu, irq, pre, Some(&seg), t);
                    if self.core.cpus[cpu].need_resched
                        && preemptible
                        && self.core.should_preempt(cpu)
                    {
                        self.core.tasks[t].resume = Some(seg);
                        self.preempt_switch(cpu, t);
                        return;
                    }
                    let now = self.core.now;
                    let c = &mut self.core.cpus[cpu];
                    c.generation = c.generation.wrapping_add(1);
                    let g = c.generation;
                    c.act = Some(Active {
                        seg,
                        start: now,
                        end: now + seg.dur,
                        kind: ActKind::Normal,
                        irq_off: irq,
                    });
                    self.core.push(
                        now + seg.dur,
                        Ev::SegEnd {
                            cpu: cpu as u32,
                            generation: g,
                        },
                    );
                    // A preemption requested before this segment began
                    // (e.g. at a non-preemptible boundary) may be honoured
                    // at one of its break points.
                    if self.core.cpus[cpu].need_resched {
                        self.core.kicks.push_back(cpu);
                    }
                    return;
                }
                Step::Lock(l, mode) => {
                    if self.core.try_lock(l, t, mode, true) {
                        self.core.tasks[t].lock_waited = false;
                        continue;
                    }
                    self.core.tasks[t].lock_waited = true;
                    let kind = self.core.locks[l].kind;
                    if self.core.sleeping(kind) {
                        self.core.tasks[t].state = St::LockWait;
                        self.core.trace_state(cpu, false, false, None, t);
                        self.schedule(cpu);
                        return;
                    }
                    // Spin on this CPU with the lock kind's IRQ state.
                    let ctx = match kind {
                        LockKind::SpinIrq => Ctx::SpinIrq,
                        LockKind::Raw => Ctx::Raw,
                        _ => Ctx::Spin,
                    };
                    let seg = Seg::kernel(u64::MAX, call_path!["native_queued_spin_lock_slowpath"])
                        .ctx(ctx, &"");
                    let (irq, pre, _) = self.core.flags(&seg);
                    self.core.trace_state(cpu, irq, pre, Some(&seg), t);
                    let now = self.core.now;
                    let c = &mut self.core.cpus[cpu];
                    c.generation = c.generation.wrapping_add(1);
                    c.act = Some(Active {
                        seg,
                        start: now,
                        end: u64::MAX,
                        kind: ActKind::Spin,
                        irq_off: irq,
                    });
                    return;
                }
                Step::TryLock(l) => {
                    let ok = self.core.try_lock(l, t, Mode::Excl, false);
                    self.core.tasks[t].try_ok = ok;
                }
                Step::Unlock(l) => self.core.unlock(l, t),
                Step::Downgrade(l) => self.core.downgrade(l, t),
                Step::Wake(o) => self.core.wake(o),
                Step::SleepUntil(at) => {
                    let task = &mut self.core.tasks[t];
                    task.state = St::Sleeping;
                    task.sleep_gen = task.sleep_gen.wrapping_add(1);
                    let g = task.sleep_gen;
                    let at = at.max(self.core.now);
                    self.core.push(
                        at,
                        Ev::Timer {
                            task: t as u32,
                            generation: g,
                        },
                    );
                    self.core.trace_state(cpu, false, false, None, t);
                    self.schedule(cpu);
                    return;
                }
                Step::Wait => {
                    if std::mem::take(&mut self.core.tasks[t].wake_pending) {
                        continue;
                    }
                    self.core.tasks[t].state = St::Blocked;
                    self.core.trace_state(cpu, false, false, None, t);
                    self.schedule(cpu);
                    return;
                }
                Step::Exit => {
                    self.core.tasks[t].state = St::Dead;
                    if self.core.tasks[t].finite {
                        self.core.finite_left -= 1;
                        if self.core.finite_left == 0 {
                            self.core.stop = true;
                        }
                    }
                    self.core.trace_state(cpu, false, false, None, t);
                    self.schedule(cpu);
                    return;
                }
            }
        }
        panic!(
            "task {} made no progress in 100000 steps",
            self.core.tasks[t].comm
        );
    }
}

/// One tracer's span on one CPU (irqsoff or preemptoff): open it, extend
/// it, or close it and offer its length to the tracer.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn span_step(
    span: &mut Option<Span>,
    on: bool,
    tr: &mut Tracer,
    now: u64,
    cpu: usize,
    task: TaskId,
    label: &'static str,
    seg: Option<&Seg>,
) {
    match (span.as_mut(), on) {
        (None, true) => {
            let s = seg.expect("a segment opens a span");
            *span = Some(Span {
                start: now,
                task,
                started_at: match s.ctx {
                    Ctx::SpinIrq => "_raw_spin_lock_irq",
                    Ctx::Spin | Ctx::Raw => "_raw_spin_lock",
                    Ctx::IrqOff => "local_irq_disable",
                    Ctx::None => "preempt_disable",
                },
                path: s.path,
                longest: if s.dur == u64::MAX { 0 } else { s.dur },
            })
        }
        (Some(sp), true) => {
            if let Some(s) = seg
                && s.dur > sp.longest
                && s.dur != u64::MAX
            {
                sp.longest = s.dur;
                sp.path = s.path;
            }
        }
        (Some(sp), false) => {
            let lat = now - sp.start;
            if lat >= 1000 {
                tr.offer(LatRec {
                    lat_ns: lat,
                    cpu,
                    task: sp.task,
                    started_at: sp.started_at,
                    ended_at: if label.is_empty() {
                        "preempt_enable"
                    } else {
                        label
                    },
                    path: sp.path,
                    holder: sp.path,
                    at_ns: sp.start,
                    woken: None,
                });
            }
            *span = None;
        }
        (None, false) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_pops_in_time_then_insertion_order() {
        // Against a sorted reference; few distinct times, so ties are
        // frequent.
        let mut r = Rng::new(5);
        let mut h = Heap::with_capacity(4);
        let mut reference = std::collections::BTreeSet::new();
        let mut seq = 0;
        for round in 0..5000 {
            for _ in 0..r.range(0, 3) {
                seq += 1;
                let e = Entry {
                    t: r.range(0, 50) + round,
                    seq,
                    ev: seq,
                };
                h.push(e);
                reference.insert((e.t, e.seq));
            }
            for _ in 0..r.range(0, 3) {
                let want = reference.pop_first();
                assert_eq!(h.pop().map(|e| (e.t, e.seq)), want);
            }
        }
        while let Some(want) = reference.pop_first() {
            assert_eq!(h.pop().map(|e| (e.t, e.seq)), Some(want));
        }
        assert!(h.pop().is_none());
    }
}
