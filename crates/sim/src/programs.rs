//! Task programs: explicit state machines that yield [`Step`]s (spec §2.2
//! task table). Each program knows the kernel path it models and cuts its
//! work into segments only where the kernel's IRQ / preempt / lock state
//! changes or where the kernel has a real break point.

use crate::config::{DropIf, MadviseResched, MunmapMode, Preempt};
use crate::engine::{Brk, Ctx, Cx, Label, LockId, Mode, Path, Seg, St, Step, call_path};
use crate::mem::IsolateReq;

// --------------------------------------------------------------- call paths

pub(crate) const P_CYCLIC: Path = call_path![
    "do_nanosleep",
    "hrtimer_nanosleep",
    "__x64_sys_clock_nanosleep",
];
pub(crate) const P_USER: Path = call_path!["user"];
pub(crate) const P_TOY: Path = call_path!["toy_critical_section", "toy_worker"];
const P_ISO_K: Path = call_path![
    "isolate_lru_folios",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "balance_pgdat",
    "kswapd",
    "kthread",
];
const P_ISO_D: Path = call_path![
    "isolate_lru_folios",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "do_try_to_free_pages",
    "try_to_free_pages",
    "__alloc_pages_slowpath",
];
const P_ISO_ACT_K: Path = call_path![
    "isolate_lru_folios",
    "shrink_active_list",
    "shrink_lruvec",
    "shrink_node",
    "balance_pgdat",
    "kswapd",
    "kthread",
];
const P_ISO_ACT_D: Path = call_path![
    "isolate_lru_folios",
    "shrink_active_list",
    "shrink_lruvec",
    "shrink_node",
    "do_try_to_free_pages",
    "try_to_free_pages",
    "__alloc_pages_slowpath",
];
const P_ACTIVE_K: Path = call_path![
    "folio_referenced",
    "shrink_active_list",
    "shrink_lruvec",
    "shrink_node",
    "balance_pgdat",
    "kswapd",
];
const P_ACTIVE_D: Path = call_path![
    "folio_referenced",
    "shrink_active_list",
    "shrink_lruvec",
    "shrink_node",
    "do_try_to_free_pages",
];
const P_SHRINK_K: Path = call_path![
    "shrink_folio_list",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "balance_pgdat",
    "kswapd",
];
const P_SHRINK_D: Path = call_path![
    "shrink_folio_list",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "do_try_to_free_pages",
    "try_to_free_pages",
];
const P_PUTBACK_K: Path = call_path![
    "move_folios_to_lru",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "balance_pgdat",
    "kswapd",
];
const P_PUTBACK_D: Path = call_path![
    "move_folios_to_lru",
    "shrink_inactive_list",
    "shrink_lruvec",
    "shrink_node",
    "do_try_to_free_pages",
];
const P_SLOT: Path = call_path![
    "scan_swap_map",
    "get_swap_page",
    "add_to_swap",
    "shrink_folio_list",
];
const P_ADD_SC: Path = call_path![
    "__add_to_swap_cache",
    "add_to_swap_cache",
    "add_to_swap",
    "shrink_folio_list",
];
const P_REMOVE: Path = call_path!["__remove_mapping", "shrink_folio_list"];
const P_REMOVE_BATCH: Path = call_path!["__remove_mapping_list", "shrink_folio_list"];
const P_KSWAPD_LOOP: Path = call_path!["shrink_lruvec", "shrink_node", "balance_pgdat", "kswapd"];
const P_WRITE: Path = call_path![
    "generic_perform_write",
    "ext4_buffered_write_iter",
    "vfs_write",
    "ksys_write",
];
const P_DMA32: Path = call_path!["__alloc_pages", "dma_alloc_attrs"];
const P_MOVE_EXPIRED: Path = call_path![
    "move_expired_inodes",
    "queue_io",
    "wb_writeback",
    "wb_do_writeback",
    "wb_workfn",
    "process_one_work",
    "worker_thread",
];
const P_WB_SUBMIT: Path = call_path![
    "writeback_sb_inodes",
    "__writeback_inodes_wb",
    "wb_writeback",
    "wb_workfn",
];
const P_FAULT: Path = call_path!["handle_mm_fault", "do_user_addr_fault", "exc_page_fault"];
const P_MADV: Path = call_path![
    "madvise_cold_or_pageout_pte_range",
    "walk_pgd_range",
    "__walk_page_range",
    "walk_page_range",
    "madvise_pageout",
    "madvise_vma_behavior",
    "do_madvise",
    "sys_madvise",
];
const P_RECLAIM_PAGES: Path = call_path![
    "shrink_folio_list",
    "reclaim_folio_list",
    "reclaim_pages",
    "madvise_cold_or_pageout_pte_range",
    "walk_pgd_range",
    "madvise_pageout",
    "sys_madvise",
];
const P_ZAP: Path = call_path![
    "zap_pte_range",
    "zap_pmd_range",
    "unmap_page_range",
    "unmap_vmas",
    "unmap_region",
    "do_vmi_align_munmap",
    "do_vmi_munmap",
    "__vm_munmap",
    "sys_munmap",
];
const P_FREE: Path = call_path![
    "free_unref_page_list",
    "release_pages",
    "free_pages_and_swap_cache",
    "tlb_batch_pages_flush",
    "tlb_flush_mmu",
    "unmap_page_range",
    "unmap_vmas",
    "unmap_region",
    "do_vmi_align_munmap",
    "do_vmi_munmap",
    "__vm_munmap",
    "sys_munmap",
];
const P_DETACH: Path = call_path![
    "detach_vmas_to_be_unmapped",
    "do_munmap",
    "vm_munmap",
    "SyS_munmap",
];
const P_UNMAP_WHOLE: Path = call_path![
    "unmap_page_range",
    "unmap_vmas",
    "unmap_region",
    "do_munmap",
    "vm_munmap",
    "SyS_munmap",
];
const P_PROC: Path = call_path![
    "access_remote_vm",
    "proc_pid_cmdline_read",
    "__vfs_read",
    "vfs_read",
    "SyS_read",
];
const P_USEMEM: Path = call_path!["handle_mm_fault", "__do_page_fault", "page_fault"];
const P_SWAPIN_SC: Path = call_path![
    "__add_to_swap_cache",
    "read_swap_cache_async",
    "swapin_readahead",
    "do_swap_page",
    "handle_mm_fault",
];
const P_SWAP_FREE: Path = call_path![
    "swap_info_get",
    "swap_free",
    "do_swap_page",
    "handle_mm_fault"
];
const P_SWAPIN_DEL: Path = call_path![
    "__delete_from_swap_cache",
    "delete_from_swap_cache",
    "try_to_free_swap",
    "do_swap_page",
    "handle_mm_fault",
];
const P_SWAPIN: Path = call_path![
    "swap_readpage",
    "read_swap_cache_async",
    "swapin_readahead",
    "do_swap_page",
    "handle_mm_fault",
];

fn unlock_label(cx: &Cx<'_>, irq: bool) -> Label {
    match (cx.core.knobs.preempt == Preempt::Rt, irq) {
        (true, _) => &"rt_spin_unlock",
        (false, true) => &"_raw_spin_unlock_irq",
        (false, false) => &"_raw_spin_unlock",
    }
}

// --------------------------------------------------------------- cyclictest

/// Where a cyclictest thread is in its loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CyclicSt {
    Start,
    Woken,
    Record,
}

/// cyclictest thread, measured as rt-tests does (spec §1.13): absolute
/// timer, diff = now - next, skip missed periods.
#[derive(Debug, Clone)]
pub(crate) struct Cyclic {
    pub interval: u64,
    pub next: u64,
    pub pc: CyclicSt,
    pub cycles: u64,
    pub min: u64,
    pub max: u64,
    pub sum: u64,
    pub act: u64,
    pub hist: Vec<u64>,
    pub overflows: u64,
    pub max_at: u64,
}

impl Cyclic {
    pub(crate) fn new(interval: u64, hist_us: u64) -> Self {
        Cyclic {
            interval,
            next: 0,
            pc: CyclicSt::Start,
            cycles: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            act: 0,
            hist: vec![0; hist_us as usize],
            overflows: 0,
            max_at: 0,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        match self.pc {
            CyclicSt::Start => {
                self.next = cx.now + self.interval;
                self.pc = CyclicSt::Woken;
                Step::SleepUntil(self.next)
            }
            CyclicSt::Woken => {
                // IRQ entry + hrtimer + ttwu, context switch, return to
                // user and clock_gettime (spec §4.2).
                let c = cx.core.costs.irq_wakeup + cx.core.costs.ctx_switch_user;
                // A short fixed path: a third of the usual dispersion.
                let d = cx.rng.cost(1.0, c, cx.core.cv / 3.0);
                self.pc = CyclicSt::Record;
                Step::Run(Seg::kernel(d, P_CYCLIC))
            }
            CyclicSt::Record => {
                let diff = cx.now.saturating_sub(self.next);
                self.cycles += 1;
                self.sum += diff;
                self.act = diff;
                self.min = self.min.min(diff);
                if diff > self.max {
                    self.max = diff;
                    self.max_at = cx.now;
                }
                let us = (diff / 1000) as usize;
                if !self.hist.is_empty() {
                    if us < self.hist.len() {
                        self.hist[us] += 1;
                    } else {
                        self.overflows += 1;
                    }
                }
                self.next += self.interval;
                while cx.now > self.next {
                    self.next += self.interval;
                }
                self.pc = CyclicSt::Woken;
                Step::SleepUntil(self.next)
            }
        }
    }
}

// ------------------------------------------------------------------ toy lock

/// The toy worker's cycle: think, lock, hold, unlock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToySt {
    Think,
    Lock,
    Hold,
    Unlock,
}

#[derive(Debug, Clone)]
pub(crate) struct Toy {
    pub lock: LockId,
    pub hold_ns: f64,
    pub think_ns: f64,
    pub pc: ToySt,
}

impl Toy {
    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        self.pc = match self.pc {
            ToySt::Think => ToySt::Lock,
            ToySt::Lock => ToySt::Hold,
            ToySt::Hold => ToySt::Unlock,
            ToySt::Unlock => ToySt::Think,
        };
        match self.pc {
            ToySt::Lock => Step::Lock(self.lock, Mode::Excl),
            ToySt::Hold => {
                let d = cx.rng.exp(self.hold_ns) as u64;
                let end = unlock_label(cx, false);
                Step::Run(Seg::kernel(d, P_TOY).ctx(Ctx::Spin, end))
            }
            ToySt::Unlock => Step::Unlock(self.lock),
            ToySt::Think => {
                let d = cx.rng.exp(self.think_ns) as u64;
                Step::Run(Seg::user(d, P_USER))
            }
        }
    }
}

// ------------------------------------------------------------ shrink (reclaim)

/// Folios in a per-CPU folio batch (PAGEVEC_SIZE / folio_batch, 15).
const PAGEVEC: f64 = 15.0;
const P_DRAIN: Path = call_path!["lru_add_drain", "shrink_inactive_list", "shrink_lruvec"];
const P_DRAIN_ACT: Path = call_path!["lru_add_drain", "shrink_active_list", "shrink_lruvec"];

/// The line transfer of a radix-tree leaf node written on this CPU after
/// another (spec §2.2c): one `lock_handoff`.
fn leaf_xfer(cx: &mut Cx<'_>, slot: u64) -> u64 {
    if cx.core.mem.swap.touch_leaf(slot, cx.cpu) {
        cx.core.costs.lock_handoff as u64
    } else {
        0
    }
}

/// Which LRU list a shrink works on (spec §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LruList {
    #[default]
    InactiveFile,
    /// shrink_active_list: isolate, check references, deactivate.
    ActiveFile,
    InactiveAnon,
}

/// Where a `shrink_inactive_list()` / `shrink_active_list()` call is
/// (spec §1.4 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ShrinkSt {
    /// lru_add_drain(): this CPU's folio batch onto the LRU, IRQs on
    /// (between two isolate calls this is where a held-off timer fires).
    #[default]
    Drain,
    LockForIsolate,
    Isolate,
    UnlockAfterIsolate,
    /// Clean file folios: references, __remove_mapping, free.
    FreeFile,
    /// shrink_active_list: folio_referenced per folio, cond_resched.
    Deactivate,
    /// Anon to swap, one folio at a time (4.8-era swap path).
    NextAnon,
    SlotAlloc,
    SlotUnlock,
    SwapCacheLock,
    SwapCacheInsert,
    SwapCacheUnlock,
    Pageout,
    RemoveLock,
    Remove,
    RemoveUnlock,
    /// S5 patch 1: one tree_lock hold for the batch.
    BatchLock,
    /// S5 patch 3: kswapd's spin_trylock_irqsave of the batch failed or not.
    BatchTried,
    /// After the stall on kswapd_contended_wait: take the lock.
    BatchLockAfterStall,
    BatchRemove,
    BatchUnlock,
    PutbackLock,
    Putback,
    PutbackUnlock,
    Done,
}

/// One `shrink_inactive_list()` (or, for the active file list,
/// `shrink_active_list()`) call, shared by kswapd and direct reclaim
/// (spec §1.4, §2.2b).
/// Drives itself through `step()` until it returns `None`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shrink {
    pub node: usize,
    pub idx: u8,
    pub list: LruList,
    pub direct: bool,
    st: ShrinkSt,
    pub taken: u64,
    by_zone: [u64; 4],
    i: u64,
    tree: LockId,
    slot: u64,
    /// tree_lock was contended during this call (S5 patches 3 and 4).
    pub contended: bool,
    /// nr_to_scan of this call: SWAP_CLUSTER_MAX, or less when the scan
    /// target of shrink_node_memcg's loop has fewer left (0 = 32).
    pub nr: u64,
    /// Swap slots of the pages of this call (S5 patch 1's batch removes
    /// them under one hold).
    slots: [u64; 32],
}

impl Shrink {
    pub(crate) fn new(node: usize, idx: u8, list: LruList, direct: bool) -> Self {
        Shrink {
            node,
            idx,
            list,
            direct,
            ..Default::default()
        }
    }

    fn path(&self, k: Path, d: Path) -> Path {
        if self.direct { d } else { k }
    }

    pub(crate) fn step(&mut self, cx: &mut Cx<'_>) -> Option<Step> {
        use ShrinkSt as S;
        let lru_lock = cx.core.mem.nodes[self.node].lru_lock;
        let c = cx.core.costs.clone();
        loop {
            match self.st {
                S::Drain => {
                    if self.direct && self.list == LruList::InactiveAnon {
                        // too_many_isolated(): measured, not applied; it
                        // never reaches its threshold in the scenarios
                        // (see Vmstat::isolated_ratio_max).
                        let n = &cx.core.mem.nodes[self.node];
                        let r = n.isolated_anon * 8 * 1000 / n.anon.len.max(1);
                        let vm = &mut cx.core.mem.vm;
                        vm.isolated_ratio_max = vm.isolated_ratio_max.max(r);
                    }
                    self.st = S::LockForIsolate;
                    let d = cx.cost(PAGEVEC, c.lru_add_drain);
                    let path = match self.list {
                        LruList::ActiveFile => P_DRAIN_ACT,
                        _ => P_DRAIN,
                    };
                    return Some(Step::Run(Seg::kernel(d, path)));
                }
                S::LockForIsolate => {
                    self.st = S::Isolate;
                    return Some(Step::Lock(lru_lock, Mode::Excl));
                }
                S::Isolate => {
                    let k = &cx.core.knobs;
                    let mut max_visit = None;
                    if let Some(cap) = k.isolate_time_cap_us {
                        // local_clock() is read every `every` folios: the
                        // cap trips at the first check past cap_us.
                        let every = k.isolate_time_cap_every.max(1);
                        let per = (c.lru_visit_skip).max(1.0);
                        let pages = ((cap * 1000.0 / per) / every as f64).ceil() as u64 * every;
                        max_visit = Some(pages.max(every));
                    }
                    if k.lru == crate::config::LruBackend::Mglru {
                        // MAX_LRU_BATCH: every visited folio counts.
                        max_visit = Some(max_visit.map_or(4096, |m: u64| m.min(4096)));
                    }
                    let req = IsolateReq {
                        nr_to_scan: if self.nr == 0 { 32 } else { self.nr },
                        reclaim_idx: self.idx,
                        skip_counts: k.isolate_skip_counts,
                        max_skipped: k.isolate_max_skipped,
                        max_visit,
                    };
                    let node = &mut cx.core.mem.nodes[self.node];
                    let lru = match self.list {
                        LruList::InactiveFile => &mut node.file,
                        LruList::ActiveFile => &mut node.file_active,
                        LruList::InactiveAnon => &mut node.anon,
                    };
                    let r = lru.isolate(req);
                    let vm = &mut cx.core.mem.vm;
                    vm.pgskip += r.skipped;
                    vm.isolate_max_visited = vm.isolate_max_visited.max(r.visited);
                    if self.list == LruList::ActiveFile {
                        vm.pgrefill += r.taken;
                    } else if self.direct {
                        vm.pgscan_direct += r.taken;
                    } else {
                        vm.pgscan_kswapd += r.taken;
                    }
                    if self.list == LruList::InactiveAnon {
                        cx.core.mem.nodes[self.node].isolated_anon += r.taken;
                    }
                    self.taken = r.taken;
                    self.by_zone = r.by_zone;
                    let d = cx.cost(r.visited as f64, c.lru_visit_skip)
                        + cx.cost(r.taken as f64, c.lru_isolate_take)
                        + c.spin_lock as u64;
                    self.st = S::UnlockAfterIsolate;
                    let path = match self.list {
                        LruList::ActiveFile => self.path(P_ISO_ACT_K, P_ISO_ACT_D),
                        _ => self.path(P_ISO_K, P_ISO_D),
                    };
                    let end = unlock_label(cx, true);
                    return Some(Step::Run(Seg::kernel(d, path).ctx(Ctx::SpinIrq, end)));
                }
                S::UnlockAfterIsolate => {
                    self.st = if self.taken == 0 {
                        S::Done
                    } else {
                        match self.list {
                            LruList::InactiveFile => S::FreeFile,
                            LruList::ActiveFile => S::Deactivate,
                            LruList::InactiveAnon => S::NextAnon,
                        }
                    };
                    return Some(Step::Unlock(lru_lock));
                }
                S::FreeFile => {
                    let per = c.shrink_folio_fixed
                        + c.folio_referenced * 0.25
                        + c.remove_mapping
                        + c.page_free;
                    let d = cx.cost(self.taken as f64, per);
                    self.st = S::PutbackLock;
                    let path = self.path(P_SHRINK_K, P_SHRINK_D);
                    return Some(Step::Run(
                        Seg::kernel(d, path).brk(Brk::Points(per as u64, &"__cond_resched")),
                    ));
                }
                S::Deactivate => {
                    // Unmapped page-cache folios: folio_referenced returns
                    // early; cond_resched() per folio.
                    let per = c.folio_referenced * 0.25 + c.cond_resched;
                    let d = cx.cost(self.taken as f64, per);
                    self.st = S::PutbackLock;
                    let path = self.path(P_ACTIVE_K, P_ACTIVE_D);
                    return Some(Step::Run(
                        Seg::kernel(d, path).brk(Brk::Points(per as u64, &"__cond_resched")),
                    ));
                }
                S::NextAnon => {
                    if self.i >= self.taken {
                        self.st = if cx.core.knobs.remove_mapping_batched {
                            S::BatchLock
                        } else {
                            S::PutbackLock
                        };
                        continue;
                    }
                    self.st = S::SlotAlloc;
                    let l = cx.core.mem.swap_info_lock.expect("swap configured");
                    return Some(Step::Lock(l, Mode::Excl));
                }
                S::SlotAlloc => {
                    let rot = cx.core.knobs.swap_rotational;
                    self.slot = cx.core.mem.swap.alloc(cx.cpu, rot);
                    if let Some(s) = self.slots.get_mut(self.i as usize) {
                        *s = self.slot;
                    }
                    let per = if rot {
                        c.swap_slot_rotational
                    } else {
                        c.swap_slot_ssd
                    };
                    self.st = S::SlotUnlock;
                    let end = unlock_label(cx, false);
                    return Some(Step::Run(
                        Seg::kernel(cx.cost(1.0, per), P_SLOT).ctx(Ctx::Spin, end),
                    ));
                }
                S::SlotUnlock => {
                    self.st = S::SwapCacheLock;
                    return Some(Step::Unlock(cx.core.mem.swap_info_lock.expect("swap")));
                }
                S::SwapCacheLock => {
                    self.tree = cx.core.mem.swap.lock_of(self.slot);
                    self.st = S::SwapCacheInsert;
                    return Some(Step::Lock(self.tree, Mode::Excl));
                }
                S::SwapCacheInsert => {
                    self.contended |= cx.core.tasks[cx.tid].lock_waited;
                    self.st = S::SwapCacheUnlock;
                    let end = unlock_label(cx, true);
                    let d = cx.cost(1.0, c.swapcache_insert) + leaf_xfer(cx, self.slot);
                    return Some(Step::Run(Seg::kernel(d, P_ADD_SC).ctx(Ctx::SpinIrq, end)));
                }
                S::SwapCacheUnlock => {
                    self.st = S::Pageout;
                    return Some(Step::Unlock(self.tree));
                }
                S::Pageout => {
                    let per = c.shrink_folio_fixed
                        + c.folio_referenced
                        + c.try_to_unmap
                        + c.brd_write
                        + c.page_free;
                    let d = cx.cost(1.0, per);
                    self.st = if cx.core.knobs.remove_mapping_batched {
                        S::NextAnon
                    } else {
                        S::RemoveLock
                    };
                    self.i += 1;
                    let path = self.path(P_SHRINK_K, P_SHRINK_D);
                    return Some(Step::Run(Seg::kernel(d, path).resched()));
                }
                S::RemoveLock => {
                    self.st = S::Remove;
                    return Some(Step::Lock(self.tree, Mode::Excl));
                }
                S::Remove => {
                    self.contended |= cx.core.tasks[cx.tid].lock_waited;
                    self.st = S::RemoveUnlock;
                    let end = unlock_label(cx, true);
                    let d = cx.cost(1.0, c.remove_mapping) + leaf_xfer(cx, self.slot);
                    return Some(Step::Run(Seg::kernel(d, P_REMOVE).ctx(Ctx::SpinIrq, end)));
                }
                S::RemoveUnlock => {
                    self.st = S::NextAnon;
                    return Some(Step::Unlock(self.tree));
                }
                S::BatchLock => {
                    // remove_mapping_list with S5 patch 3: a kswapd that is
                    // not the exclusive one only trylocks.
                    let backoff = cx.core.knobs.kswapd_backoff_on_tree_lock_ms.is_some();
                    if !self.direct && backoff && cx.core.mem.kswapd_exclusive != Some(self.node) {
                        self.st = S::BatchTried;
                        return Some(Step::TryLock(self.tree));
                    }
                    self.st = S::BatchRemove;
                    return Some(Step::Lock(self.tree, Mode::Excl));
                }
                S::BatchTried => {
                    if cx.core.tasks[cx.tid].try_ok {
                        self.st = S::BatchRemove;
                        continue;
                    }
                    self.contended = true;
                    if cx.core.mem.kswapd_exclusive.is_none() {
                        // cmpxchg(&kswapd_exclusive, NUMA_NO_NODE, nid)
                        // won: this kswapd keeps going.
                        cx.core.mem.kswapd_exclusive = Some(self.node);
                        self.st = S::BatchRemove;
                        return Some(Step::Lock(self.tree, Mode::Excl));
                    }
                    // Another node is exclusive: io_schedule_timeout(HZ/100)
                    // on kswapd_contended_wait, woken early when the
                    // exclusive node is balanced.
                    let ms = cx.core.knobs.kswapd_backoff_on_tree_lock_ms.unwrap_or(10.0);
                    cx.core.mem.vm.kswapd_backoffs += 1;
                    if cx.core.knobs.direct_congest_on_tree_lock {
                        // S5 patch 4: set_bit(PGDAT_CONGESTED) before the
                        // stall, for direct reclaim's wait_iff_congested().
                        cx.core.mem.nodes[self.node].congested = true;
                        cx.core.mem.vm.pgdat_congested_marks += 1;
                    }
                    if !cx.core.mem.contended_wait.contains(&cx.tid) {
                        cx.core.mem.contended_wait.push(cx.tid);
                    }
                    self.st = S::BatchLockAfterStall;
                    return Some(Step::SleepUntil(cx.now + (ms * 1e6) as u64));
                }
                S::BatchLockAfterStall => {
                    // finish_wait(&kswapd_contended_wait): off the queue
                    // whether the timeout or a wake ended the stall, so
                    // wakeup_kswapd() reaches this kswapd again once it
                    // sleeps on kswapd_wait.
                    let q = &mut cx.core.mem.contended_wait;
                    if let Some(i) = q.iter().position(|&t| t == cx.tid) {
                        q.swap_remove(i);
                    }
                    self.st = S::BatchRemove;
                    return Some(Step::Lock(self.tree, Mode::Excl));
                }
                S::BatchRemove => {
                    self.contended |= cx.core.tasks[cx.tid].lock_waited;
                    self.st = S::BatchUnlock;
                    let end = unlock_label(cx, true);
                    let mut d = cx.cost(self.taken as f64, c.remove_mapping);
                    let n = (self.taken as usize).min(self.slots.len());
                    let slots = self.slots;
                    for s in &slots[..n] {
                        d += leaf_xfer(cx, *s);
                    }
                    return Some(Step::Run(
                        Seg::kernel(d, P_REMOVE_BATCH).ctx(Ctx::SpinIrq, end),
                    ));
                }
                S::BatchUnlock => {
                    self.st = S::PutbackLock;
                    return Some(Step::Unlock(self.tree));
                }
                S::PutbackLock => {
                    self.st = S::Putback;
                    return Some(Step::Lock(lru_lock, Mode::Excl));
                }
                S::Putback => {
                    // move_folios_to_lru: the few folios kept, or (active
                    // list) every deactivated folio, plus the counters.
                    let n = if self.list == LruList::ActiveFile {
                        self.taken as f64
                    } else {
                        4.0
                    };
                    let d = cx.cost(n, c.lru_putback) + c.spin_lock as u64;
                    self.st = S::PutbackUnlock;
                    let path = self.path(P_PUTBACK_K, P_PUTBACK_D);
                    let end = unlock_label(cx, true);
                    return Some(Step::Run(Seg::kernel(d, path).ctx(Ctx::SpinIrq, end)));
                }
                S::PutbackUnlock => {
                    self.st = S::Done;
                    let node = &mut cx.core.mem.nodes[self.node];
                    if self.list == LruList::ActiveFile {
                        // Deactivated: to the inactive list's head.
                        for (z, n) in self.by_zone.iter().enumerate() {
                            node.file.push_head(*n, z as u8, 1);
                        }
                        cx.core.mem.vm.pgdeactivate += self.taken;
                        return Some(Step::Unlock(lru_lock));
                    }
                    for (z, n) in self.by_zone.iter().enumerate() {
                        if *n > 0 && z < node.zones.len() {
                            node.zones[z].free += *n as i64;
                        }
                    }
                    let exclusive = cx.core.mem.kswapd_exclusive == Some(self.node);
                    let vm = &mut cx.core.mem.vm;
                    if self.direct {
                        vm.pgsteal_direct += self.taken;
                    } else {
                        vm.pgsteal_kswapd += self.taken;
                        if exclusive {
                            vm.pgsteal_kswapd_exclusive += self.taken;
                        }
                    }
                    if self.list == LruList::InactiveAnon {
                        vm.pswpout += self.taken;
                        let n = &mut cx.core.mem.nodes[self.node];
                        n.isolated_anon = n.isolated_anon.saturating_sub(self.taken);
                    }
                    return Some(Step::Unlock(lru_lock));
                }
                S::Done => return None,
            }
        }
    }
}

// ---------------------------------------------------------------- kswapd

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KswapdSt {
    /// kswapd_try_to_sleep: wait for a wakeup.
    Sleep,
    Woken,
    /// balance_pgdat: check the watermarks, start a shrink_lruvec round.
    Balance,
    /// shrink_lruvec: one shrink_list per evictable list of the round.
    Shrinking,
    /// The cond_resched() at the end of each round of shrink_lruvec.
    RoundEnd,
}

#[derive(Debug, Clone)]
pub(crate) struct Kswapd {
    pub node: usize,
    st: KswapdSt,
    idx: u8,
    fails: u32,
    shrink: Shrink,
    /// The lists of the current round and the next one to shrink.
    round: [Option<LruList>; 3],
    ri: usize,
    round_taken: u64,
}

impl Kswapd {
    pub(crate) fn new(node: usize) -> Self {
        Kswapd {
            node,
            st: KswapdSt::Sleep,
            idx: 0,
            fails: 0,
            shrink: Shrink::default(),
            round: [None; 3],
            ri: 0,
            round_taken: 0,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        use KswapdSt as K;
        loop {
            match self.st {
                K::Sleep => {
                    self.st = K::Woken;
                    return Step::Wait;
                }
                K::Woken => {
                    let Some(idx) = cx.core.mem.nodes[self.node].kswapd_idx.take() else {
                        self.st = K::Sleep;
                        continue;
                    };
                    self.idx = idx;
                    self.fails = 0;
                    cx.core.mem.vm.kswapd_wakeups += 1;
                    self.st = K::Balance;
                }
                K::Balance => {
                    if let Some(i) = cx.core.mem.nodes[self.node].kswapd_idx.take() {
                        self.idx = self.idx.max(i);
                    }
                    if cx.core.mem.balanced(self.node, self.idx) {
                        // zone_balanced with S5 patch 3: the exclusive node
                        // gives up exclusivity and wakes the stalled kswapds.
                        // 4.8 zone_balanced() clears PGDAT_CONGESTED.
                        cx.core.mem.nodes[self.node].congested = false;
                        if cx.core.mem.kswapd_exclusive == Some(self.node) {
                            cx.core.mem.kswapd_exclusive = None;
                            for t in std::mem::take(&mut cx.core.mem.contended_wait) {
                                if cx.core.tasks[t].state == St::Sleeping {
                                    cx.core.mem.vm.kswapd_backoff_wakes += 1;
                                    cx.core.wake(t);
                                }
                            }
                        }
                        self.st = K::Sleep;
                        continue;
                    }
                    // for_each_evictable_lru with nr[lru] > 0: the inactive
                    // file list, the active one (deactivation), anon.
                    let n = &cx.core.mem.nodes[self.node];
                    self.round = [
                        (n.file.len > 0).then_some(LruList::InactiveFile),
                        (n.file_active.len > 0).then_some(LruList::ActiveFile),
                        (n.anon.len > 0).then_some(LruList::InactiveAnon),
                    ];
                    self.ri = 0;
                    self.round_taken = 0;
                    self.st = K::Shrinking;
                    self.shrink.st = ShrinkSt::Done;
                }
                K::Shrinking => {
                    if self.shrink.st != ShrinkSt::Done
                        && let Some(s) = self.shrink.step(cx)
                    {
                        return s;
                    }
                    if self.shrink.st == ShrinkSt::Done && self.shrink.list != LruList::ActiveFile {
                        self.round_taken += self.shrink.taken;
                    }
                    self.shrink.taken = 0;
                    self.shrink.contended = false;
                    match self.round[self.ri..].iter().position(Option::is_some) {
                        Some(k) => {
                            let list = self.round[self.ri + k].expect("is_some");
                            self.ri += k + 1;
                            self.shrink = Shrink::new(self.node, self.idx, list, false);
                        }
                        None => self.st = K::RoundEnd,
                    }
                }
                K::RoundEnd => {
                    if self.round_taken == 0 {
                        self.fails += 1;
                    } else {
                        self.fails = 0;
                    }
                    if self.fails >= 16 {
                        // Nothing reclaimable: nap HZ/10 (kswapd_try_to_sleep).
                        self.st = K::Sleep;
                        return Step::SleepUntil(cx.now + 100_000_000);
                    }
                    self.st = K::Balance;
                    let d = cx.core.costs.cond_resched as u64;
                    return Step::Run(Seg::kernel(d, P_KSWAPD_LOOP).resched());
                }
            }
        }
    }
}

// ------------------------------------------------------------ V4 background

/// The page-cache writer: write a tick's pages, then account and sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriterSt {
    Write,
    Account,
}

/// Page-cache writer (bonnie-like): dirties pages at a rate; new folios go
/// to the file LRU head in zone bands (see `FileLruCfg`).
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    pub pages_per_tick: u64,
    pub tick: u64,
    pub normal_band: [u64; 2],
    pub dma32_band: [u64; 2],
    pub band_zone: u8,
    pub band_left: u64,
    pub next: u64,
    pub pc: WriterSt,
}

impl Writer {
    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        if self.pc == WriterSt::Write {
            self.pc = WriterSt::Account;
            self.next = cx.now;
            let per = cx.core.costs.file_write_page;
            let d = cx.cost(self.pages_per_tick as f64, per);
            return Step::Run(
                Seg::kernel(d, P_WRITE).brk(Brk::Points(per as u64, &"__cond_resched")),
            );
        }
        self.pc = WriterSt::Write;
        let mut left = self.pages_per_tick;
        while left > 0 {
            if self.band_left == 0 {
                self.band_zone = if self.band_zone == 1 { 0 } else { 1 };
                let b = if self.band_zone == 1 {
                    self.normal_band
                } else {
                    self.dma32_band
                };
                self.band_left = cx.rng.range(b[0], b[1]);
            }
            let k = left.min(self.band_left);
            self.band_left -= k;
            left -= k;
            let node = &mut cx.core.mem.nodes[0];
            let z = (self.band_zone as usize).min(node.zones.len() - 1);
            node.zones[z].free -= k as i64;
            node.file.push_head(k, z as u8, 1);
            cx.core.mem.vm.pgalloc += k;
        }
        let node = &cx.core.mem.nodes[0];
        let low = node.zones.iter().any(|z| z.free < z.low);
        let throttle = node.zones.iter().all(|z| z.free < z.min);
        self.next += self.tick;
        if throttle {
            // balance_dirty_pages-like throttle instead of direct reclaim.
            self.next += self.tick;
        }
        if low {
            let top = (cx.core.mem.nodes[0].zones.len() - 1) as u8;
            if let Some(k) = cx.core.mem.wake_kswapd(0, top) {
                cx.core.wake_from(k, cx.cpu);
            }
        }
        Step::SleepUntil(self.next)
    }
}

/// The DMA32 allocator: allocate, then account and sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrickleSt {
    Alloc,
    Account,
}

/// A driver allocating DMA32 pages (highest_zoneidx = DMA32) every period
/// and freeing the previous batch: the source of kswapd wakeups with
/// reclaim_idx = DMA32 in S4 (spec V4).
#[derive(Debug, Clone)]
pub(crate) struct Trickle {
    pub period: u64,
    pub pages: u64,
    pub held: u64,
    pub pc: TrickleSt,
    pub next: u64,
}

impl Trickle {
    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        if self.pc == TrickleSt::Alloc {
            self.pc = TrickleSt::Account;
            if self.next == 0 {
                self.next = cx.now;
            }
            return Step::Run(Seg::kernel(cx.cost(1.0, 2000.0), P_DMA32));
        }
        self.pc = TrickleSt::Alloc;
        let z = &mut cx.core.mem.nodes[0].zones[0];
        z.free += self.held as i64;
        z.free -= self.pages as i64;
        self.held = self.pages;
        cx.core.mem.vm.pgalloc += self.pages;
        if z.free < z.low
            && let Some(k) = cx.core.mem.wake_kswapd(0, 0)
        {
            cx.core.wake_from(k, cx.cpu);
        }
        self.next += self.period;
        Step::SleepUntil(self.next)
    }
}

/// Where the writeback flusher is in wb_writeback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlusherSt {
    Lock,
    MoveExpired,
    Unlock,
    Submit,
    Sleep,
}

/// Writeback flusher: move_expired_inodes() under wb->list_lock (a plain
/// spin_lock, so preempt-off on !RT), S4 patch 2.
#[derive(Debug, Clone)]
pub(crate) struct Flusher {
    pub period: u64,
    pub inodes: [u64; 2],
    pub lock: LockId,
    pub pc: FlusherSt,
    pub next: u64,
}

impl Flusher {
    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        match self.pc {
            FlusherSt::Lock => {
                self.pc = FlusherSt::MoveExpired;
                if self.next == 0 {
                    self.next = cx.now;
                }
                Step::Lock(self.lock, Mode::Excl)
            }
            FlusherSt::MoveExpired => {
                self.pc = FlusherSt::Unlock;
                let n = cx.rng.range(self.inodes[0], self.inodes[1]);
                let per = cx.core.costs.inode_move;
                let d = cx.cost(n as f64, per);
                let end = unlock_label(cx, false);
                let mut seg = Seg::kernel(d, P_MOVE_EXPIRED).ctx(Ctx::Spin, end);
                if let Some(cap) = cx.core.knobs.writeback_move_expired_cap_us {
                    // `if (iter++ < 100 || !need_resched()) continue; if
                    // (local_clock() - then > NSEC_PER_MSEC) break;`
                    seg = seg.brk(Brk::CapOnResched {
                        every: (100.0 * per) as u64,
                        min: (cap * 1000.0) as u64,
                        label: end,
                    });
                }
                Step::Run(seg)
            }
            FlusherSt::Unlock => {
                self.pc = FlusherSt::Submit;
                Step::Unlock(self.lock)
            }
            FlusherSt::Submit => {
                self.pc = FlusherSt::Sleep;
                let d = cx.cost(1.0, 200_000.0);
                Step::Run(Seg::kernel(d, P_WB_SUBMIT).brk(Brk::Points(20_000, &"__cond_resched")))
            }
            FlusherSt::Sleep => {
                self.pc = FlusherSt::Lock;
                self.next += self.period;
                Step::SleepUntil(self.next)
            }
        }
    }
}

// ------------------------------------------------------------- V1 stress-ng vm

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VmPhase {
    Touch,
    Madvise,
    Munmap,
}

/// stress-ng --vm worker: touch its buffer, MADV_PAGEOUT part of it, then
/// munmap and remap (spec V1). PMD (512-PTE) granularity.
#[derive(Debug, Clone)]
pub(crate) struct VmWorker {
    pub pmds: u64,
    pub madv_pmds: u64,
    phase: VmPhase,
    i: u64,
    sub: u8,
    started: bool,
}

impl VmWorker {
    pub(crate) fn new(pmds: u64, madv_pmds: u64) -> Self {
        VmWorker {
            pmds,
            madv_pmds,
            phase: VmPhase::Touch,
            i: 0,
            sub: 0,
            started: false,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        if !self.started {
            // Start at a random point of the cycle so that short runs see
            // every phase (same draw in every variant).
            self.started = true;
            let total = self.pmds * 2 + self.madv_pmds;
            let at = cx.rng.range(0, total - 1);
            (self.phase, self.i) = if at < self.pmds {
                (VmPhase::Touch, at)
            } else if at < self.pmds + self.madv_pmds {
                (VmPhase::Madvise, at - self.pmds)
            } else {
                (VmPhase::Munmap, at - self.pmds - self.madv_pmds)
            };
        }
        let c = cx.core.costs.clone();
        let k = cx.core.knobs.clone();
        loop {
            match self.phase {
                VmPhase::Touch => {
                    if self.i >= self.pmds {
                        self.phase = VmPhase::Madvise;
                        self.i = 0;
                        continue;
                    }
                    self.i += 1;
                    if self.sub == 0 {
                        self.sub = 1;
                        let d = cx.cost(512.0, c.user_touch_page);
                        self.i -= 1;
                        return Step::Run(Seg::user(d, P_USER));
                    }
                    self.sub = 0;
                    let d = cx.cost(512.0, c.page_fault);
                    return Step::Run(Seg::kernel(d, P_FAULT).brk(Brk::Points(
                        c.page_fault as u64,
                        &"irqentry_exit_to_user_mode",
                    )));
                }
                VmPhase::Madvise => {
                    if self.i >= self.madv_pmds {
                        self.phase = VmPhase::Munmap;
                        self.i = 0;
                        continue;
                    }
                    if self.sub == 0 {
                        self.sub = 1;
                        let young = if k.madvise_ignore_references {
                            0.0
                        } else {
                            c.madvise_young_clear
                        };
                        let per = c.madvise_pte + young;
                        let every = k.madvise_resched_every;
                        let breaks = 512 / every.max(1);
                        // v1 (unconditional): unlock + cond_resched + relock
                        // at every break, needed or not.
                        let extra = if k.madvise_resched == MadviseResched::Unconditional {
                            breaks as f64 * (c.spin_lock + c.cond_resched)
                        } else {
                            0.0
                        };
                        let d = cx.cost(512.0, per) + extra as u64;
                        let end = unlock_label(cx, false);
                        let mut seg = Seg::kernel(d, P_MADV).ctx(Ctx::Spin, end);
                        if k.madvise_resched != MadviseResched::None {
                            seg = seg.brk(Brk::Points((every as f64 * per) as u64, end));
                        }
                        if !k.madvise_ignore_references {
                            cx.core.mem.vm.tlb_flush_madvise += 1;
                        }
                        return Step::Run(seg);
                    }
                    self.sub = 0;
                    self.i += 1;
                    let refs = if k.madvise_ignore_references {
                        0.0
                    } else {
                        c.folio_referenced
                    };
                    let per = c.shrink_folio_fixed
                        + refs
                        + c.swapcache_insert
                        + c.swap_slot_ssd
                        + c.try_to_unmap
                        + c.zram_compress
                        + c.remove_mapping
                        + c.page_free;
                    let d = cx.cost(512.0, per);
                    cx.core.mem.vm.pswpout += 512;
                    return Step::Run(
                        Seg::kernel(d, P_RECLAIM_PAGES)
                            .brk(Brk::Points(per as u64, &"__cond_resched"))
                            .resched(),
                    );
                }
                VmPhase::Munmap => {
                    if self.i >= self.pmds {
                        self.phase = VmPhase::Touch;
                        self.i = 0;
                        continue;
                    }
                    if self.sub == 0 {
                        self.sub = 1;
                        let d = cx.cost(512.0, c.zap_page);
                        let end = unlock_label(cx, false);
                        return Step::Run(Seg::kernel(d, P_ZAP).ctx(Ctx::Spin, end));
                    }
                    self.sub = 0;
                    self.i += 1;
                    // One mmu_gather batch (~510 pages) freed through
                    // release_pages under the pcp lock (a local_lock /
                    // spinlock_t on RT).
                    let d = cx.cost(510.0, c.munmap_free_page);
                    let end: Label = if cx.core.knobs.preempt == Preempt::Rt {
                        &"migrate_enable"
                    } else {
                        &"_raw_spin_unlock"
                    };
                    return Step::Run(Seg::kernel(d, P_FREE).ctx(Ctx::Spin, end).resched());
                }
            }
        }
    }
}

// ------------------------------------------------------------ V2 munmap

/// Where the munmap caller is in do_munmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MunmapSt {
    Start,
    LockWrite,
    Detach,
    MaybeDowngrade,
    Zap,
    SectionEnd,
    Resched,
    Relock,
    Unlock,
    Exit,
}

#[derive(Debug, Clone)]
pub(crate) struct Munmap {
    pub pages: u64,
    pub start: u64,
    pub mmap_lock: LockId,
    pc: MunmapSt,
    done: u64,
    pub t0: u64,
    pub syscall_ns: Option<u64>,
    pub drops: u64,
}

impl Munmap {
    pub(crate) fn new(pages: u64, start: u64, mmap_lock: LockId) -> Self {
        Munmap {
            pages,
            start,
            mmap_lock,
            pc: MunmapSt::Start,
            done: 0,
            t0: 0,
            syscall_ns: None,
            drops: 0,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        let c = cx.core.costs.clone();
        let k = cx.core.knobs.clone();
        let pmd_ns = (512.0 * c.zap_page) as u64;
        let section = ((k.munmap_section_gb * (1u64 << 30) as f64) / 4096.0) as u64;
        loop {
            match self.pc {
                MunmapSt::Start => {
                    self.pc = MunmapSt::LockWrite;
                    return Step::SleepUntil(self.start);
                }
                MunmapSt::LockWrite => {
                    self.t0 = cx.now;
                    self.pc = MunmapSt::Detach;
                    return Step::Lock(self.mmap_lock, Mode::Excl);
                }
                MunmapSt::Detach => {
                    self.pc = MunmapSt::MaybeDowngrade;
                    return Step::Run(Seg::kernel(cx.cost(1.0, c.munmap_detach), P_DETACH));
                }
                MunmapSt::MaybeDowngrade => {
                    self.pc = MunmapSt::Zap;
                    if k.munmap_mode == MunmapMode::Downgrade {
                        // dd2283f2605e: zap under the read lock.
                        return Step::Downgrade(self.mmap_lock);
                    }
                }
                MunmapSt::Zap => {
                    if self.done >= self.pages {
                        self.pc = MunmapSt::Unlock;
                        continue;
                    }
                    let n = if k.munmap_mode == MunmapMode::Section {
                        section.min(self.pages - self.done)
                    } else {
                        self.pages - self.done
                    };
                    self.done += n;
                    self.pc = MunmapSt::SectionEnd;
                    let d = cx.cost(n as f64, c.zap_page);
                    // zap_pmd_range: cond_resched() once per PMD.
                    return Step::Run(
                        Seg::kernel(d, P_UNMAP_WHOLE).brk(Brk::Points(pmd_ns, &"__cond_resched")),
                    );
                }
                MunmapSt::SectionEnd => {
                    if k.munmap_mode != MunmapMode::Section || self.done >= self.pages {
                        self.pc = MunmapSt::Zap;
                        continue;
                    }
                    let contended = cx.core.locks[self.mmap_lock].contended();
                    let nr = cx.core.cpus[cx.cpu].need_resched;
                    let drop = contended && (k.munmap_drop_if == DropIf::Contended || nr);
                    if !drop {
                        self.pc = MunmapSt::Zap;
                        continue;
                    }
                    self.drops += 1;
                    self.pc = MunmapSt::Resched;
                    return Step::Unlock(self.mmap_lock);
                }
                MunmapSt::Resched => {
                    self.pc = MunmapSt::Relock;
                    return Step::Run(Seg::kernel(c.cond_resched as u64, P_UNMAP_WHOLE).resched());
                }
                MunmapSt::Relock => {
                    self.pc = MunmapSt::Zap;
                    return Step::Lock(self.mmap_lock, Mode::Excl);
                }
                MunmapSt::Unlock => {
                    self.pc = MunmapSt::Exit;
                    return Step::Unlock(self.mmap_lock);
                }
                MunmapSt::Exit => {
                    self.syscall_ns = Some(cx.now - self.t0);
                    return Step::Exit;
                }
            }
        }
    }
}

/// Where `ps` is: down_read, read cmdline, up_read, sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReaderSt {
    Lock,
    Read,
    Unlock,
    Sleep,
}

/// `ps` reading /proc/<pid>/cmdline: mmap_lock for read (spec V2).
#[derive(Debug, Clone)]
pub(crate) struct Reader {
    pub period: u64,
    pub mmap_lock: LockId,
    pc: ReaderSt,
    next: u64,
    req: u64,
    pub waits: u64,
    pub wait_max: u64,
    pub wait_sum: u64,
}

impl Reader {
    fn record(&mut self, w: u64) {
        self.waits += 1;
        self.wait_sum += w;
        self.wait_max = self.wait_max.max(w);
    }

    /// Close a wait still open when the run ends (the munmap task exited,
    /// or time ran out): granted but not yet run, or still queued.
    pub(crate) fn finish(&mut self, now: u64, granted_at: Option<u64>) {
        if self.pc == ReaderSt::Read {
            let end = granted_at.filter(|&g| g >= self.req).unwrap_or(now);
            self.record(end - self.req);
            self.pc = ReaderSt::Unlock;
        }
    }

    pub(crate) fn new(period: u64, mmap_lock: LockId) -> Self {
        Reader {
            period,
            mmap_lock,
            pc: ReaderSt::Lock,
            next: 0,
            req: 0,
            waits: 0,
            wait_max: 0,
            wait_sum: 0,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        match self.pc {
            ReaderSt::Lock => {
                self.pc = ReaderSt::Read;
                self.req = cx.now;
                if self.next == 0 {
                    self.next = cx.now;
                }
                Step::Lock(self.mmap_lock, Mode::Read)
            }
            ReaderSt::Read => {
                // The wait ends when the lock is granted, not when ps next
                // gets a CPU.
                let w = cx.core.tasks[cx.tid].granted_at.max(self.req) - self.req;
                self.record(w);
                self.pc = ReaderSt::Unlock;
                Step::Run(Seg::kernel(cx.cost(1.0, cx.core.costs.proc_read), P_PROC))
            }
            ReaderSt::Unlock => {
                self.pc = ReaderSt::Sleep;
                Step::Unlock(self.mmap_lock)
            }
            ReaderSt::Sleep => {
                self.pc = ReaderSt::Lock;
                self.next += self.period;
                Step::SleepUntil(self.next)
            }
        }
    }
}

// ------------------------------------------------------------ V3 pageout

/// Where the MADV_PAGEOUT microbenchmark is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageoutSt {
    Touch,
    Fault,
    Walk,
    Reclaim,
    Done,
}

/// S3 microbenchmark: touch N pages, then MADV_PAGEOUT the range.
#[derive(Debug, Clone)]
pub(crate) struct Pageout {
    pub pmds: u64,
    pc: PageoutSt,
    i: u64,
    pub t0: u64,
    pub real_ns: Option<u64>,
}

impl Pageout {
    pub(crate) fn new(pmds: u64) -> Self {
        Pageout {
            pmds,
            pc: PageoutSt::Touch,
            i: 0,
            t0: 0,
            real_ns: None,
        }
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        let c = cx.core.costs.clone();
        let ignore = cx.core.knobs.madvise_ignore_references;
        loop {
            match self.pc {
                PageoutSt::Touch => {
                    self.t0 = cx.now;
                    self.pc = PageoutSt::Fault;
                    let n = (self.pmds * 512) as f64;
                    return Step::Run(Seg::user(cx.cost(n, c.user_touch_page), P_USER));
                }
                PageoutSt::Fault => {
                    self.pc = PageoutSt::Walk;
                    let n = (self.pmds * 512) as f64;
                    return Step::Run(Seg::kernel(cx.cost(n, c.page_fault), P_FAULT).brk(
                        Brk::Points(c.page_fault as u64, &"irqentry_exit_to_user_mode"),
                    ));
                }
                PageoutSt::Walk => {
                    if self.i >= self.pmds {
                        self.pc = PageoutSt::Done;
                        continue;
                    }
                    self.pc = PageoutSt::Reclaim;
                    // The walk: young clear + PTE rewrite + batched TLB flush
                    // unless the S3 patch ignores references.
                    let per = c.madvise_pte + if ignore { 0.0 } else { c.madvise_young_clear };
                    let mut d = cx.cost(512.0, per);
                    if !ignore {
                        d += c.tlb_flush_local as u64;
                        cx.core.mem.vm.tlb_flush_madvise += 1;
                    }
                    let end = unlock_label(cx, false);
                    return Step::Run(Seg::kernel(d, P_MADV).ctx(Ctx::Spin, end));
                }
                PageoutSt::Reclaim => {
                    self.pc = PageoutSt::Walk;
                    self.i += 1;
                    let refs = if ignore { 0.0 } else { c.folio_referenced };
                    let per = c.shrink_folio_fixed
                        + refs
                        + c.swapcache_insert
                        + c.swap_slot_ssd
                        + c.try_to_unmap
                        + c.zram_compress
                        + c.remove_mapping
                        + c.page_free;
                    cx.core.mem.vm.pswpout += 512;
                    return Step::Run(
                        Seg::kernel(cx.cost(512.0, per), P_RECLAIM_PAGES)
                            .brk(Brk::Points(per as u64, &"__cond_resched"))
                            .resched(),
                    );
                }
                PageoutSt::Done => {
                    self.real_ns = Some(cx.now - self.t0);
                    return Step::Exit;
                }
            }
        }
    }
}

// ------------------------------------------------------------ V5 usemem

/// Where a usemem instance is: allocate and touch, direct reclaim, swap-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UsememSt {
    Start,
    Alloc,
    Touched,
    DirectReclaim,
    SwapIn,
    SwapInInsert,
    SwapInUnlock,
    SwapInRead,
    /// do_swap_page: swap_free() under si->lock.
    SwapFree,
    SwapFreeRun,
    SwapFreeUnlock,
    /// try_to_free_swap() when vm_swap_full(): delete_from_swap_cache()
    /// under the tree_lock.
    FreeSwapLock,
    FreeSwapDelete,
    FreeSwapUnlock,
}

/// mmtests usemem instance: allocate and touch anonymous memory in chunks;
/// allocations follow the fast/slow path of spec §1.6 and may enter direct
/// reclaim. Elapsed = time to touch everything.
#[derive(Debug, Clone)]
pub(crate) struct Usemem {
    pub pages: u64,
    pub node: usize,
    done: u64,
    /// Pages touched in the current later pass (swap-ins happen here).
    read: u64,
    /// The later pass being walked (1 = the first after populating).
    pass: u32,
    /// Passes over the memory (`usemem -r`), the first included.
    loops: u32,
    want: u64,
    k: u64,
    tree: LockId,
    /// Swap slot of the page being swapped in.
    slot: u64,
    pc: UsememSt,
    chunk_node: usize,
    shrink: Shrink,
    pub t0: u64,
    pub finish: Option<u64>,
    stalls: u32,
    dr: DirectReclaim,
}

/// SWAP_CLUSTER_MAX: direct reclaim's `sc.nr_to_reclaim`.
const SWAP_CLUSTER_MAX: u64 = 32;
/// DEF_PRIORITY: the first pass scans `lru_size >> 12`.
const DEF_PRIORITY: u32 = 12;

/// One `try_to_free_pages()` call (mm/vmscan.c, 4.8): the priority loop of
/// `do_try_to_free_pages()`, `shrink_zones()` over the zonelist's nodes
/// (local node first), and per node the scan target of `get_scan_count()`
/// (`lru_size >> priority`) taken in SWAP_CLUSTER_MAX chunks by
/// `shrink_node_memcg()`. At DEF_PRIORITY the node's whole target is
/// scanned (`scan_adjusted`: direct reclaim "does a batch of work at
/// once"); at lower priorities a node stops once it reclaimed
/// `nr_to_reclaim`. The call ends after the priority pass in which
/// `sc.nr_reclaimed >= nr_to_reclaim`, or after priority 0. A reclaimer
/// that reclaims little per pass therefore scans twice as much on each
/// further pass (spec §2.2d).
#[derive(Debug, Clone, Copy, Default)]
struct DirectReclaim {
    prio: u32,
    /// Offset of the node being shrunk in the zonelist.
    off: usize,
    /// Scan target left on this node at this priority.
    left: u64,
    node_reclaimed: u64,
    reclaimed: u64,
}

impl Usemem {
    pub(crate) fn new(pages: u64, node: usize, loops: u32) -> Self {
        Usemem {
            pages,
            node,
            done: 0,
            read: 0,
            pass: 1,
            loops: loops.max(1),
            want: 0,
            k: 0,
            tree: 0,
            slot: 0,
            pc: UsememSt::Start,
            chunk_node: 0,
            shrink: Shrink::default(),
            t0: 0,
            finish: None,
            stalls: 0,
            dr: DirectReclaim::default(),
        }
    }

    /// Start shrinking the zonelist's `off`-th node at the current priority.
    fn dr_node(&mut self, cx: &Cx<'_>) {
        let n = (self.node + self.dr.off) % cx.core.mem.nodes.len();
        self.dr.left = cx.core.mem.nodes[n].anon.len >> self.dr.prio;
        self.dr.node_reclaimed = 0;
    }

    /// The next shrink_inactive_list() of this try_to_free_pages() call,
    /// or false when the call is over.
    fn dr_next(&mut self, cx: &mut Cx<'_>) -> bool {
        let nodes = cx.core.mem.nodes.len();
        loop {
            let scan_adjusted = self.dr.prio == DEF_PRIORITY;
            if self.dr.left > 0 && (scan_adjusted || self.dr.node_reclaimed < SWAP_CLUSTER_MAX) {
                let nr = self.dr.left.min(SWAP_CLUSTER_MAX);
                self.dr.left -= nr;
                let n = (self.node + self.dr.off) % nodes;
                let top = (cx.core.mem.nodes[n].zones.len() - 1) as u8;
                self.shrink = Shrink::new(n, top, LruList::InactiveAnon, true);
                self.shrink.nr = nr;
                return true;
            }
            self.dr.off += 1;
            if self.dr.off < nodes {
                self.dr_node(cx);
                continue;
            }
            if self.dr.reclaimed >= SWAP_CLUSTER_MAX || self.dr.prio == 0 {
                return false;
            }
            self.dr.prio -= 1;
            cx.core.mem.vm.reclaim_prio_drops += 1;
            self.dr.off = 0;
            self.dr_node(cx);
        }
    }

    const CHUNK: u64 = 32;

    /// Try to take a chunk at watermark `level` (0 = min, 1 = low):
    /// local node first, then the others.
    fn alloc(&self, cx: &mut Cx<'_>, level: u8) -> Option<usize> {
        let nodes = cx.core.mem.nodes.len();
        for off in 0..nodes {
            let n = (self.node + off) % nodes;
            let z = cx.core.mem.nodes[n].zones.last_mut().expect("zone");
            let mark = if level == 0 { z.min } else { z.low };
            if z.free - self.want as i64 >= mark {
                z.free -= self.want as i64;
                return Some(n);
            }
        }
        None
    }

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        let c = cx.core.costs.clone();
        loop {
            match self.pc {
                UsememSt::Start => {
                    self.t0 = cx.now;
                    self.pc = UsememSt::Alloc;
                }
                UsememSt::Alloc => {
                    if self.done >= self.pages {
                        // Later passes: read each page (usemem verifies the
                        // last write) and write it again. Pages reclaimed
                        // meanwhile come back through swap-in.
                        if self.want == 0 && self.read >= self.pages {
                            self.pass += 1;
                            self.read = 0;
                        }
                        if self.pass >= self.loops {
                            self.finish = Some(cx.now);
                            return Step::Exit;
                        }
                        if self.want == 0 {
                            // The walk is cyclic and the anon LRU is aged in
                            // the order pages were touched (4.8 activates a
                            // swapped-in page and deactivates from the
                            // active list's tail), so the pages this walk
                            // reaches next are its oldest: while any of the
                            // workload is out, the next page is out too.
                            let vm = &cx.core.mem.vm;
                            let in_swap = vm.pswpout.saturating_sub(vm.pswpin);
                            let k = in_swap.min(Self::CHUNK);
                            self.read += Self::CHUNK;
                            if k == 0 {
                                let d = cx.cost(Self::CHUNK as f64, c.user_touch_page);
                                return Step::Run(Seg::user(d, P_USER));
                            }
                            self.want = k;
                        }
                    } else if self.want == 0 {
                        self.want = Self::CHUNK;
                    }
                    let got = match self.alloc(cx, 1) {
                        Some(n) => Some(n),
                        None => {
                            // Slow path (4.8 __alloc_pages_slowpath()):
                            // wake_all_kswapds() calls wakeup_kswapd() for
                            // every zone of the zonelist, which wakes a node's
                            // kswapd unless the node is balanced (a zone at or
                            // above high), then retries at min.
                            let top = (cx.core.mem.nodes[0].zones.len() - 1) as u8;
                            for n in 0..cx.core.mem.nodes.len() {
                                if !cx.core.mem.balanced(n, top)
                                    && let Some(k) = cx.core.mem.wake_kswapd(n, top)
                                {
                                    cx.core.wake_from(k, cx.cpu);
                                }
                            }
                            self.alloc(cx, 0)
                        }
                    };
                    match got {
                        Some(n) => {
                            self.chunk_node = n;
                            self.stalls = 0;
                            cx.core.mem.vm.pgalloc += self.want;
                            if self.done >= self.pages {
                                self.k = self.want;
                                self.pc = UsememSt::SwapIn;
                                continue;
                            }
                            self.pc = UsememSt::Touched;
                            let d = cx.cost(Self::CHUNK as f64, c.page_fault);
                            return Step::Run(Seg::kernel(d, P_USEMEM).resched());
                        }
                        None => {
                            cx.core.mem.vm.allocstall += 1;
                            self.dr = DirectReclaim {
                                prio: DEF_PRIORITY,
                                ..Default::default()
                            };
                            self.dr_node(cx);
                            self.shrink = Shrink::default();
                            self.shrink.st = ShrinkSt::Done;
                            self.pc = UsememSt::DirectReclaim;
                        }
                    }
                }
                // swap-in of one page: swap-cache insert under the tree_lock,
                // read from the device, map it.
                UsememSt::SwapIn => {
                    if self.k == 0 {
                        let top = (cx.core.mem.nodes[0].zones.len() - 1) as u8;
                        cx.core.mem.nodes[self.chunk_node]
                            .anon
                            .push_head(self.want, top, 0);
                        cx.core.mem.vm.pswpin += self.want;
                        self.want = 0;
                        self.pc = UsememSt::Alloc;
                        let d = cx.cost(Self::CHUNK as f64, c.user_touch_page);
                        return Step::Run(Seg::user(d, P_USER));
                    }
                    self.k -= 1;
                    // The page comes back from wherever it was swapped to.
                    let slot = cx.rng.range(0, cx.core.mem.swap.pages.max(1) - 1);
                    self.slot = slot;
                    self.tree = cx.core.mem.swap.lock_of(slot);
                    self.pc = UsememSt::SwapInInsert;
                    return Step::Lock(self.tree, Mode::Excl);
                }
                UsememSt::SwapInInsert => {
                    self.pc = UsememSt::SwapInUnlock;
                    let end = unlock_label(cx, true);
                    let d = cx.cost(1.0, c.swapcache_insert) + leaf_xfer(cx, self.slot);
                    return Step::Run(Seg::kernel(d, P_SWAPIN_SC).ctx(Ctx::SpinIrq, end));
                }
                UsememSt::SwapInUnlock => {
                    self.pc = UsememSt::SwapInRead;
                    return Step::Unlock(self.tree);
                }
                UsememSt::SwapInRead => {
                    self.pc = UsememSt::SwapFree;
                    // The read fault, then usemem's write: a write-protect
                    // fault on the page mapped read-only (do_wp_page).
                    let d = cx.cost(1.0, c.brd_write + 2.0 * c.page_fault);
                    return Step::Run(Seg::kernel(d, P_SWAPIN).resched());
                }
                // do_swap_page() after the read (mm/memory.c, 4.8):
                // swap_free(entry), then try_to_free_swap(page) if
                // vm_swap_full() (less than half the swap free), which
                // deletes the page from the swap cache under tree_lock.
                UsememSt::SwapFree => {
                    let l = cx.core.mem.swap_info_lock.expect("swap configured");
                    self.pc = UsememSt::SwapFreeRun;
                    return Step::Lock(l, Mode::Excl);
                }
                UsememSt::SwapFreeRun => {
                    self.pc = UsememSt::SwapFreeUnlock;
                    let end = unlock_label(cx, false);
                    let d = cx.cost(1.0, c.swap_slot_ssd);
                    return Step::Run(Seg::kernel(d, P_SWAP_FREE).ctx(Ctx::Spin, end));
                }
                UsememSt::SwapFreeUnlock => {
                    // The page leaves the swap cache under tree_lock either
                    // way: in do_swap_page()'s try_to_free_swap() when
                    // vm_swap_full(), else in the write fault, where
                    // reuse_swap_page() calls delete_from_swap_cache().
                    self.pc = UsememSt::FreeSwapLock;
                    return Step::Unlock(cx.core.mem.swap_info_lock.expect("swap configured"));
                }
                UsememSt::FreeSwapLock => {
                    self.pc = UsememSt::FreeSwapDelete;
                    return Step::Lock(self.tree, Mode::Excl);
                }
                UsememSt::FreeSwapDelete => {
                    self.pc = UsememSt::FreeSwapUnlock;
                    let end = unlock_label(cx, true);
                    let d = cx.cost(1.0, c.remove_mapping) + leaf_xfer(cx, self.slot);
                    return Step::Run(Seg::kernel(d, P_SWAPIN_DEL).ctx(Ctx::SpinIrq, end));
                }
                UsememSt::FreeSwapUnlock => {
                    self.pc = UsememSt::SwapIn;
                    return Step::Unlock(self.tree);
                }
                UsememSt::Touched => {
                    let top = (cx.core.mem.nodes[0].zones.len() - 1) as u8;
                    cx.core.mem.nodes[self.chunk_node]
                        .anon
                        .push_head(Self::CHUNK, top, 0);
                    self.done += Self::CHUNK;
                    self.want = 0;
                    self.pc = UsememSt::Alloc;
                    let d = cx.cost(Self::CHUNK as f64, c.user_touch_page);
                    return Step::Run(Seg::user(d, P_USER));
                }
                UsememSt::DirectReclaim => {
                    if self.shrink.st != ShrinkSt::Done
                        && let Some(s) = self.shrink.step(cx)
                    {
                        return s;
                    }
                    // The end of 4.8 shrink_inactive_list() in direct
                    // reclaim: wait_iff_congested(pgdat, BLK_RW_ASYNC,
                    // HZ/10) sleeps only while a backing device is write
                    // congested *and* the node is PGDAT_CONGESTED (spec
                    // §1.6); otherwise it is a cond_resched().
                    let ran = self.shrink.st == ShrinkSt::Done && self.shrink.nr > 0;
                    if ran
                        && cx.core.mem.wb_congested()
                        && cx.core.mem.nodes[self.shrink.node].congested
                    {
                        cx.core.mem.vm.congestion_waits += 1;
                        self.shrink.nr = 0;
                        return Step::SleepUntil(cx.now + 100_000_000);
                    }
                    self.dr.reclaimed += self.shrink.taken;
                    self.dr.node_reclaimed += self.shrink.taken;
                    self.shrink.taken = 0;
                    self.shrink.contended = false;
                    if self.dr_next(cx) {
                        continue;
                    }
                    self.pc = UsememSt::Alloc;
                    if self.dr.reclaimed == 0 {
                        self.stalls += 1;
                        // reclaim_throttle(NOPROGRESS): one jiffy.
                        let j = 1_000_000_000 / u64::from(cx.core.hz);
                        return Step::SleepUntil(cx.now + j * u64::from(self.stalls.min(25)));
                    }
                }
            }
        }
    }
}

// -------------------------------------------------------------- CPU hogs

/// A CPU hog: a loop that never sleeps, or (with `jobs`) a stream of
/// build jobs, each `job` ns of CPU, then `gap` ns without a runnable job
/// (the process exits; make forks and execs the next one, which the
/// wakeup is placed like: its previous CPU if idle, else an idle one,
/// else the least loaded).
#[derive(Debug, Clone)]
pub(crate) struct Hog {
    pub jobs: Option<([u64; 2], [u64; 2])>,
    left: u64,
}

impl Hog {
    pub(crate) fn new(jobs: Option<([u64; 2], [u64; 2])>) -> Self {
        Hog { jobs, left: 0 }
    }

    /// The slice a hog runs between checks: 10 ms of user time.
    const RUN: u64 = 10_000_000;

    #[inline(never)]
    fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        let Some((job, gap)) = self.jobs else {
            let d = cx.cost(1.0, Self::RUN as f64);
            return Step::Run(Seg::user(d, P_USER));
        };
        if self.left == 0 {
            // The job ended: the next one starts after make's fork + exec.
            self.left = cx.rng.range(job[0], job[1]).max(1);
            let g = cx.rng.range(gap[0], gap[1]);
            return Step::SleepUntil(cx.now + g);
        }
        let d = self.left.min(Self::RUN);
        self.left -= d;
        Step::Run(Seg::user(d, P_USER))
    }
}

// ------------------------------------------------------------------- Prog

#[derive(Debug, Clone)]
pub(crate) enum Prog {
    Cyclic(Cyclic),
    Hog(Hog),
    Toy(Toy),
    Kswapd(Kswapd),
    Writer(Writer),
    Trickle(Trickle),
    Flusher(Flusher),
    Vm(VmWorker),
    Munmap(Munmap),
    Reader(Reader),
    Pageout(Pageout),
    Usemem(Usemem),
}

impl Prog {
    /// Each program's step is a separate function, so this dispatch is a
    /// jump table of tail calls that inlines into the engine loop.
    #[inline]
    pub(crate) fn step(&mut self, cx: &mut Cx<'_>) -> Step {
        match self {
            Prog::Cyclic(p) => p.step(cx),
            Prog::Hog(h) => h.step(cx),
            Prog::Toy(p) => p.step(cx),
            Prog::Kswapd(p) => p.step(cx),
            Prog::Writer(p) => p.step(cx),
            Prog::Trickle(p) => p.step(cx),
            Prog::Flusher(p) => p.step(cx),
            Prog::Vm(p) => p.step(cx),
            Prog::Munmap(p) => p.step(cx),
            Prog::Reader(p) => p.step(cx),
            Prog::Pageout(p) => p.step(cx),
            Prog::Usemem(p) => p.step(cx),
        }
    }
}
