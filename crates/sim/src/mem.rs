//! Memory: nodes, zones with watermarks, run-length-encoded LRU lists and
//! the reclaim counters (spec §1.1-1.6, §2.2 "Memory").
//!
//! An LRU is a deque of runs of identical folios (count, zone, mapping), so
//! a 16 GB or 384 GB machine needs a handful to thousands of runs, and an
//! isolate scan that skips a million folios costs O(runs), not O(folios).

use std::collections::VecDeque;

use crate::engine::{LockId, TaskId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub n: u64,
    pub zone: u8,
    pub mapping: u32,
}

/// Front = head (most recently added), back = tail (reclaimed first).
#[derive(Debug, Default, Clone)]
pub(crate) struct Lru {
    runs: VecDeque<Run>,
    pub len: u64,
}

/// Limits on one `isolate_lru_folios()` call (spec §1.3 knobs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IsolateReq {
    pub nr_to_scan: u64,
    pub reclaim_idx: u8,
    /// Pre-791b48b64232: skipped folios count toward nr_to_scan.
    pub skip_counts: bool,
    pub max_skipped: Option<u64>,
    /// Stop after this many visited folios (time cap converted to folios,
    /// rounded up to its check interval; or MGLRU's MAX_LRU_BATCH).
    pub max_visit: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct IsoResult {
    pub visited: u64,
    pub skipped: u64,
    pub taken: u64,
    /// Taken folios per zone.
    pub by_zone: [u64; 4],
}

impl Lru {
    pub(crate) fn push_head(&mut self, n: u64, zone: u8, mapping: u32) {
        if n == 0 {
            return;
        }
        self.len += n;
        if let Some(f) = self.runs.front_mut()
            && f.zone == zone
            && f.mapping == mapping
        {
            f.n += n;
            return;
        }
        self.runs.push_front(Run { n, zone, mapping });
    }

    #[cfg(test)]
    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Isolate from the tail: eligible folios are taken, folios of zones
    /// above `reclaim_idx` are skipped and spliced back to the head.
    pub(crate) fn isolate(&mut self, req: IsolateReq) -> IsoResult {
        let mut r = IsoResult::default();
        let mut skipped: Vec<Run> = Vec::new();
        let mut scan = 0u64;
        let visit_left = |r: &IsoResult| {
            req.max_visit
                .map_or(u64::MAX, |m| m.saturating_sub(r.visited))
        };
        while scan < req.nr_to_scan {
            let Some(run) = self.runs.back_mut() else {
                break;
            };
            let left = visit_left(&r);
            if left == 0 {
                break;
            }
            if run.zone > req.reclaim_idx {
                let mut k = run.n.min(left);
                if req.skip_counts {
                    k = k.min(req.nr_to_scan - scan);
                    scan += k;
                }
                if let Some(m) = req.max_skipped {
                    k = k.min(m.saturating_sub(r.skipped));
                }
                if k == 0 {
                    break;
                }
                run.n -= k;
                let (zone, mapping) = (run.zone, run.mapping);
                if run.n == 0 {
                    self.runs.pop_back();
                }
                r.visited += k;
                r.skipped += k;
                match skipped.last_mut() {
                    Some(s) if s.zone == zone && s.mapping == mapping => s.n += k,
                    _ => skipped.push(Run {
                        n: k,
                        zone,
                        mapping,
                    }),
                }
                if req.max_skipped.is_some_and(|m| r.skipped >= m) {
                    break;
                }
            } else {
                let k = run.n.min(req.nr_to_scan - scan).min(left);
                run.n -= k;
                let zone = run.zone;
                if run.n == 0 {
                    self.runs.pop_back();
                }
                r.visited += k;
                r.taken += k;
                r.by_zone[zone as usize] += k;
                scan += k;
            }
        }
        self.len -= r.taken + r.skipped;
        // list_splice(&folios_skipped, src): back to the head.
        for s in skipped.into_iter().rev() {
            self.push_head(s.n, s.zone, s.mapping);
        }
        r
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Zone {
    pub managed: i64,
    pub free: i64,
    pub min: i64,
    pub low: i64,
    pub high: i64,
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub zones: Vec<Zone>,
    /// Inactive file LRU.
    pub file: Lru,
    /// Active file LRU (shrink_active_list deactivates from its tail).
    pub file_active: Lru,
    pub anon: Lru,
    pub lru_lock: LockId,
    pub kswapd: Option<TaskId>,
    /// Highest zone index requested since kswapd last looked.
    pub kswapd_idx: Option<u8>,
    /// NR_ISOLATED_ANON: anon folios taken off the LRU by shrinks in flight.
    pub isolated_anon: u64,
    /// PGDAT_CONGESTED (4.8): set by S5 patch 4, cleared by zone_balanced().
    pub congested: bool,
}

/// vmstat-like counters (spec §2.5 item 4).
#[derive(Debug, Clone, Default)]
pub(crate) struct Vmstat {
    pub pgscan_kswapd: u64,
    pub pgscan_direct: u64,
    pub pgsteal_kswapd: u64,
    pub pgsteal_direct: u64,
    pub pgskip: u64,
    /// Folios isolated from the active list (pgrefill) and deactivated.
    pub pgrefill: u64,
    pub pgdeactivate: u64,
    pub allocstall: u64,
    pub pswpout: u64,
    pub pswpin: u64,
    pub kswapd_wakeups: u64,
    pub kswapd_backoffs: u64,
    /// Backed-off kswapds woken early: the exclusive node was balanced.
    pub kswapd_backoff_wakes: u64,
    /// S5 patch 3: pages reclaimed by the exclusive node's kswapd while
    /// its node was `kswapd_exclusive` (part of `pgsteal_kswapd`).
    pub pgsteal_kswapd_exclusive: u64,
    /// do_try_to_free_pages() passes that went to a lower priority.
    pub reclaim_prio_drops: u64,
    pub congestion_waits: u64,
    /// S5 patch 4: PGDAT_CONGESTED set by a stalling kswapd.
    pub pgdat_congested_marks: u64,
    /// 4.8 too_many_isolated() in direct reclaim throttles (congestion_wait
    /// HZ/10 in a loop) while `NR_ISOLATED_ANON > NR_INACTIVE_ANON / 8`:
    /// the largest `8 · isolated / anon LRU` seen, in thousandths. The
    /// model's anon LRU holds every anon folio and 4.8's inactive list at
    /// least half of them on nodes under 1 GB (inactive_ratio 1), so the
    /// test value is at most twice this; throttling starts at 1000.
    pub isolated_ratio_max: u64,
    pub pgalloc: u64,
    pub tlb_flush_madvise: u64,
    pub isolate_max_visited: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Mem {
    pub nodes: Vec<Node>,
    pub vm: Vmstat,
    pub swap: SwapMap,
    pub swap_info_lock: Option<LockId>,
    /// S5 patch 3: the node whose kswapd may keep taking tree_lock
    /// (`kswapd_exclusive`), and the kswapds stalled on
    /// `kswapd_contended_wait`.
    pub kswapd_exclusive: Option<usize>,
    pub contended_wait: Vec<TaskId>,
}

/// Pages per swap cluster (SWAPFILE_CLUSTER).
const SWAPFILE_CLUSTER: u64 = 256;

/// Cache lines of `struct address_space` every swap-cache tree_lock
/// section writes (4.8, x86_64; include/linux/fs.h): the line holding
/// `tree_lock` and the `page_tree` root, and the next one holding
/// `nrpages` (offset 80, after `i_mmap_rwsem`). A holder on another CPU
/// than the last pulls both over. The radix-tree leaf node the section
/// writes is a third line, tracked per leaf (`SwapMap::touch_leaf`),
/// spec §2.2c.
pub(crate) const SWAP_TREE_LOCK_LINES: u32 = 2;

/// Slots per radix-tree leaf node (RADIX_TREE_MAP_SHIFT = 6).
const RADIX_LEAF_SLOTS: u64 = 64;

/// Swap slots and the swap-cache address_space that covers each (spec
/// §1.11). One tree_lock for the whole device before 4b3ef9daa4fc, one per
/// `trunk_pages` of swap after it. Which trunk a swap-out hits depends on
/// the slot allocator: the rotational scan_swap_map hands out slots from
/// one device-wide cursor (every CPU lands in the same trunk), the SSD
/// cluster allocator gives each CPU its own cluster, taken from a free
/// cluster list that churn has scattered over the device.
#[derive(Debug, Default)]
pub(crate) struct SwapMap {
    pub pages: u64,
    pub trunk_pages: Option<u64>,
    pub locks: Vec<LockId>,
    /// si->cluster_next of scan_swap_map.
    cursor: u64,
    /// Per-CPU cluster: (next slot, slots left).
    percpu: Vec<(u64, u64)>,
    clusters_taken: u64,
    /// CPU that last wrote each radix-tree leaf node (u16::MAX: none).
    leaf_cpu: Vec<u16>,
}

impl SwapMap {
    /// Number of swap-cache address spaces for a device of `pages`.
    pub(crate) fn spaces(pages: u64, trunk_pages: Option<u64>) -> usize {
        match trunk_pages {
            Some(t) => pages.div_ceil(t.max(1)).clamp(1, 4096) as usize,
            None => 1,
        }
    }

    /// get_swap_page on `cpu`.
    pub(crate) fn alloc(&mut self, cpu: usize, rotational: bool) -> u64 {
        let pages = self.pages.max(SWAPFILE_CLUSTER);
        if rotational {
            let s = self.cursor % pages;
            self.cursor += 1;
            return s;
        }
        if self.percpu.len() <= cpu {
            self.percpu.resize(cpu + 1, (0, 0));
        }
        if self.percpu[cpu].1 == 0 {
            let clusters = pages / SWAPFILE_CLUSTER;
            // The k-th free cluster: a fixed scatter of the device.
            let k = self.clusters_taken;
            self.clusters_taken += 1;
            let c = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) % clusters;
            self.percpu[cpu] = (c * SWAPFILE_CLUSTER, SWAPFILE_CLUSTER);
        }
        let pc = &mut self.percpu[cpu];
        let s = pc.0;
        pc.0 += 1;
        pc.1 -= 1;
        s
    }

    /// `__add_to_swap_cache` / `__delete_from_swap_cache` on `cpu` writes
    /// the radix-tree leaf node of `slot`: true when that line was last
    /// written on another CPU and has to be pulled over. With the
    /// rotational allocator's one cursor every CPU inserts into the same
    /// leaf; with per-CPU clusters each CPU mostly writes its own.
    pub(crate) fn touch_leaf(&mut self, slot: u64, cpu: usize) -> bool {
        let leaf = (slot / RADIX_LEAF_SLOTS) as usize;
        if self.leaf_cpu.len() <= leaf {
            self.leaf_cpu.resize(leaf + 1, u16::MAX);
        }
        let c = cpu as u16;
        let moved = self.leaf_cpu[leaf] != u16::MAX && self.leaf_cpu[leaf] != c;
        self.leaf_cpu[leaf] = c;
        moved
    }

    /// The tree_lock of the address space holding `slot`.
    pub(crate) fn lock_of(&self, slot: u64) -> LockId {
        match self.trunk_pages {
            Some(t) if self.locks.len() > 1 => {
                self.locks[((slot / t.max(1)) as usize) % self.locks.len()]
            }
            _ => self.locks[0],
        }
    }
}

/// Watermarks per zone as `__setup_per_zone_wmarks` sets them (spec §1.6):
/// min_free_kbytes = sqrt(16 * lowmem_kB) clamped to [128 kB, 256 MB],
/// split by managed size; tmp = max(min/4, managed * wsf / 10000).
pub(crate) fn watermarks(managed_pages: &[i64]) -> Vec<(i64, i64, i64)> {
    let total: i64 = managed_pages.iter().sum();
    let kb = (total * 4) as f64;
    let min_free_kb = (16.0 * kb).sqrt().clamp(128.0, 262_144.0);
    let min_pages = (min_free_kb / 4.0) as i64;
    managed_pages
        .iter()
        .map(|&m| {
            let min = min_pages * m / total.max(1);
            let tmp = (min / 4).max(m * 10 / 10_000);
            (min, min + tmp, min + 2 * tmp)
        })
        .collect()
}

/// Watermarks of every zone of `nodes` nodes, each with the zones
/// `managed_pages`: init_per_zone_wmark_min() takes one min_free_kbytes
/// from the lowmem of the whole machine (nr_free_buffer_pages() over every
/// node), and __setup_per_zone_wmarks() walks every zone of every node, so
/// each zone's min is its share of that one figure (spec §1.6). Returned
/// per node, in zone order.
pub(crate) fn node_watermarks(nodes: usize, managed_pages: &[i64]) -> Vec<Vec<(i64, i64, i64)>> {
    let all: Vec<i64> = (0..nodes)
        .flat_map(|_| managed_pages.iter().copied())
        .collect();
    watermarks(&all)
        .chunks(managed_pages.len().max(1))
        .map(<[_]>::to_vec)
        .collect()
}

impl Mem {
    /// pgdat_balanced(): true when any zone up to `idx` is at or above its
    /// high watermark. A DMA32-only request therefore needs DMA32 itself.
    /// A lower zone must also keep its lowmem_reserve for allocations that
    /// could use higher zones (managed pages above it / 256, the default
    /// lowmem_reserve_ratio), so for a Normal request DMA32 rarely counts.
    pub(crate) fn balanced(&self, node: usize, idx: u8) -> bool {
        let zones = &self.nodes[node].zones;
        (0..=(idx as usize).min(zones.len() - 1)).any(|i| {
            let reserve: i64 = zones[i + 1..=(idx as usize).min(zones.len() - 1)]
                .iter()
                .map(|z| z.managed / 256)
                .sum();
            zones[i].free >= zones[i].high + reserve
        })
    }

    /// `nr_wb_congested[BLK_RW_ASYNC] != 0`: some backing device is write
    /// congested. Only request-based block queues set it
    /// (`blk_set_congested()` once `nr_requests` fills); brd and zram are
    /// bio-based (`make_request_fn`) and never do, and the model has no
    /// request-based swap device, so `wait_iff_congested()` never sleeps
    /// here (spec §1.6).
    pub(crate) fn wb_congested(&self) -> bool {
        false
    }

    /// wakeup_kswapd: returns the kswapd to wake.
    pub(crate) fn wake_kswapd(&mut self, node: usize, idx: u8) -> Option<TaskId> {
        let n = &mut self.nodes[node];
        n.kswapd_idx = Some(n.kswapd_idx.map_or(idx, |i| i.max(idx)));
        // wakeup_kswapd() wakes pgdat->kswapd_wait only: a kswapd stalled
        // on kswapd_contended_wait (S5 patch 3) sleeps on, until its
        // timeout or the exclusive node's zone_balanced() wakes it.
        n.kswapd.filter(|k| !self.contended_wait.contains(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(n: u64, idx: u8) -> IsolateReq {
        IsolateReq {
            nr_to_scan: n,
            reclaim_idx: idx,
            skip_counts: false,
            max_skipped: None,
            max_visit: None,
        }
    }

    #[test]
    fn isolate_skips_ineligible_tail_and_splices_to_head() {
        let mut l = Lru::default();
        l.push_head(100, 0, 1); // DMA32, oldest
        l.push_head(1_000_000, 1, 1); // Normal
        l.push_head(10, 0, 1);
        // The tail is the DMA32 run of 100: nothing to skip.
        let r = l.isolate(req(32, 0));
        assert_eq!((r.taken, r.skipped), (32, 0));
        let r = l.isolate(req(68, 0));
        assert_eq!((r.taken, r.skipped), (68, 0));
        // Now the Normal run is at the tail: a DMA32 scan walks it all.
        let r = l.isolate(req(32, 0));
        assert_eq!(r.skipped, 1_000_000);
        assert_eq!(r.taken, 10);
        assert_eq!(l.len, 1_000_000);
        assert!(l.runs() <= 2);
    }

    #[test]
    fn isolate_caps() {
        let mut l = Lru::default();
        l.push_head(10, 0, 1);
        l.push_head(1_000_000, 1, 1);
        l.push_head(1, 0, 1);
        let mut q = req(32, 0);
        q.max_skipped = Some(32768);
        // tail is 10 DMA32 first
        let r = l.isolate(q);
        assert_eq!(r.taken, 10);
        assert_eq!(r.skipped, 32768);
        let mut q = req(32, 0);
        q.skip_counts = true;
        let r = l.isolate(q);
        assert_eq!(r.visited, 32);
        assert_eq!(r.taken, 0);
    }

    #[test]
    fn radix_leaf_bounces_only_with_one_cursor() {
        // Two CPUs swapping out in turn: the rotational cursor puts their
        // slots in the same leaf, so almost every insert pulls the line
        // over; per-CPU clusters keep each CPU in its own leaves.
        let moved = |rot: bool| {
            let mut m = SwapMap {
                pages: 1 << 20,
                ..Default::default()
            };
            (0..4096)
                .filter(|i| {
                    let cpu = i % 2;
                    let s = m.alloc(cpu, rot);
                    m.touch_leaf(s, cpu)
                })
                .count()
        };
        assert!(moved(true) > 4000, "{}", moved(true));
        assert!(moved(false) < 40, "{}", moved(false));
    }

    #[test]
    fn swap_trunks_spread_only_with_per_cpu_clusters() {
        let mut m = SwapMap {
            pages: 1 << 20,
            trunk_pages: Some(16384),
            locks: (0..64).collect(),
            ..Default::default()
        };
        let distinct = |m: &mut SwapMap, rot: bool| {
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..4000 {
                let s = m.alloc(i % 4, rot);
                seen.insert(m.lock_of(s));
            }
            seen.len()
        };
        assert_eq!(distinct(&mut m, true), 1);
        assert!(distinct(&mut m, false) >= 8);
        m.trunk_pages = None;
        m.locks = vec![7];
        assert_eq!(distinct(&mut m, false), 1);
    }

    #[test]
    fn four_nodes_share_one_min_free_kbytes() {
        // 1 GB in four 256 MB nodes: min_free_kbytes = sqrt(16 * 1048576)
        // = 4096 kB = 1024 pages for the machine, 256 a node; tmp =
        // max(256 / 4, 65536 * 10 / 10000) = 65.
        let w = node_watermarks(4, &[1 << 16]);
        assert_eq!(w.len(), 4);
        for n in &w {
            assert_eq!(n, &vec![(256, 321, 386)]);
        }
        // One node alone is the whole machine.
        assert_eq!(node_watermarks(1, &[1 << 18]), vec![watermarks(&[1 << 18])]);
        // A node's own size would give it twice that min.
        assert_eq!(watermarks(&[1 << 16])[0].0, 512);
    }

    #[test]
    fn watermarks_16g() {
        let w = watermarks(&[3 << 18, 13 << 18]);
        // min_free_kbytes for 16 GB = 16384 kB = 4096 pages in total.
        assert!((4095..=4096).contains(&(w[0].0 + w[1].0)));
        assert!(w[1].1 > w[1].0 && w[1].2 > w[1].1);
    }
}
