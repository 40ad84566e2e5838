//! Builds one simulation (scenario x variant x replication x sweep point)
//! from the configuration, runs it, and extracts its raw results.

use crate::config::{Scenario, SwapKind, Variant};
use crate::engine::{Class, Core, LatRec, LockKind, Place, Sim, St, Stop, Tracer};
use crate::mem::{Lru, Node, Zone, node_watermarks};
use crate::programs::{
    Cyclic, Flusher, FlusherSt, Hog, Kswapd, Munmap, Pageout, Prog, Reader, Toy, ToySt, Trickle,
    TrickleSt, Usemem, VmWorker, Writer, WriterSt,
};
use crate::rng::{Rng, derive};

/// One cyclictest thread's figures (ns).
#[derive(Debug, Clone)]
pub(crate) struct CyclicOut {
    pub thread: u32,
    pub tid: u32,
    pub prio: u32,
    pub interval_us: u64,
    pub cpu: u32,
    pub cycles: u64,
    pub min: u64,
    pub act: u64,
    pub sum: u64,
    pub max: u64,
    pub hist: Vec<u64>,
    pub overflows: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct LatOut {
    pub lat_ns: u64,
    pub cpu: u32,
    pub comm: String,
    pub pid: u32,
    pub started_at: String,
    pub ended_at: String,
    pub path: Vec<String>,
    /// The section blamed (see `engine::LatRec::holder`).
    pub holder: Vec<String>,
    pub at_ns: u64,
    pub woken: Option<(String, u32, u32)>,
}

#[derive(Debug, Clone)]
pub(crate) struct LockOut {
    pub name: String,
    pub acq: u64,
    pub contentions: u64,
    pub wait_sum: u64,
    pub wait_max: u64,
    pub wait_p99: u64,
    pub hold_sum: u64,
    pub hold_max: u64,
    pub hold_p99: u64,
    pub hold_max_path: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RunOut {
    pub events: u64,
    pub sim_ns: u64,
    pub cyclic: Vec<CyclicOut>,
    pub irqsoff: Vec<LatOut>,
    pub preemptoff: Vec<LatOut>,
    pub wakeup_rt: Vec<LatOut>,
    pub locks: Vec<LockOut>,
    pub vmstat: Vec<(String, f64)>,
    /// (metric, value) in seconds or the unit in the metric name.
    pub durations: Vec<(String, f64)>,
    /// (GiB unmapped, SyS_munmap time in us): S2's table rows.
    pub munmap_us: Vec<(f64, f64)>,
}

fn lat_out(core: &Core, tr: &Tracer) -> Vec<LatOut> {
    tr.top
        .iter()
        .map(|r: &LatRec| {
            let t = &core.tasks[r.task];
            LatOut {
                lat_ns: r.lat_ns,
                cpu: r.cpu as u32,
                comm: t.comm.clone(),
                pid: t.pid,
                started_at: r.started_at.to_string(),
                ended_at: r.ended_at.to_string(),
                path: r.path.iter().map(|s| s.to_string()).collect(),
                holder: r.holder.iter().map(|s| s.to_string()).collect(),
                at_ns: r.at_ns,
                woken: r.woken.map(|w| {
                    let wt = &core.tasks[w];
                    let prio = match wt.class {
                        Class::Rt(p) => p,
                        Class::Fair => 0,
                    };
                    (wt.comm.clone(), wt.pid, prio)
                }),
            }
        })
        .collect()
}

/// One point of a scenario's built-in sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Point {
    Single,
    /// usemem instances (V5's thread counts).
    Instances(u32),
    /// GiB unmapped (V2's table rows).
    MunmapGb(f64),
}

/// Build and run one simulation at one sweep point.
pub(crate) fn run_one(
    sc: &Scenario,
    v: &Variant,
    seed: u64,
    duration_ns: u64,
    point: Point,
    max_events: u64,
    check: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<RunOut, Stop> {
    let m = &sc.machine;
    let w = &sc.workload;
    let cpus = m.cpus as usize;
    let core = Core::new(
        cpus,
        sc.costs.clone(),
        m.cost_cv,
        v.knobs.clone(),
        m.hz,
        seed,
    );
    let mut sim = Sim::new(core);

    // Memory: every zone is split evenly across the (fake NUMA) nodes; the
    // watermarks split one machine-wide min_free_kbytes over all of them.
    let nodes = m.nodes as usize;
    let managed: Vec<i64> = m
        .zones
        .iter()
        .map(|z| ((z.gb * (1u64 << 18) as f64) / nodes as f64) as i64)
        .collect();
    let node_wm = node_watermarks(nodes, &managed);
    for wm in node_wm {
        let lru_lock = sim.core.add_lock("&lruvec->lru_lock", LockKind::SpinIrq);
        // A preallocated brd swap device holds its pages from boot: each
        // node gives its share of them.
        let held = if m.swap_prealloc && m.swap != SwapKind::None {
            swap_pages(m) as i64 / (nodes * managed.len()) as i64
        } else {
            0
        };
        let zones = m
            .zones
            .iter()
            .zip(managed.iter().zip(wm))
            .map(|(_, (&mg, (min, low, high)))| Zone {
                managed: mg,
                free: if w.usemem.is_some() {
                    mg - mg / 50 - held
                } else {
                    high
                },
                min,
                low,
                high,
            })
            .collect();
        sim.core.mem.nodes.push(Node {
            zones,
            file: Lru::default(),
            file_active: Lru::default(),
            anon: Lru::default(),
            lru_lock,
            kswapd: None,
            kswapd_idx: None,
            isolated_anon: 0,
            congested: false,
        });
    }
    if m.swap != SwapKind::None {
        sim.core.mem.swap_info_lock =
            Some(sim.core.add_lock("&(&si->lock)->rlock", LockKind::Spin));
        let pages = swap_pages(m);
        let trunk = v.knobs.swapcache_trunk_pages;
        sim.core.mem.swap.pages = pages;
        sim.core.mem.swap.trunk_pages = trunk;
        for _ in 0..crate::mem::SwapMap::spaces(pages, trunk) {
            let l = sim.core.add_lock_lines(
                "&(&mapping->tree_lock)->rlock [swap]",
                LockKind::SpinIrq,
                crate::mem::SWAP_TREE_LOCK_LINES,
            );
            sim.core.mem.swap.locks.push(l);
        }
    }

    let spawn =
        |sim: &mut Sim,
         key: String,
         comm: String,
         class: Class,
         cpu: Place,
         finite: bool,
         prog: Prog,
         at: u64| { sim.spawn(seed, key, comm, class, cpu, finite, prog, at) };

    if let Some(c) = &w.cyclictest {
        for i in 0..c.threads {
            let interval = (c.interval_us + u64::from(i) * c.distance_us) * 1000;
            spawn(
                &mut sim,
                format!("cyclictest/{i}"),
                "cyclictest".into(),
                Class::Rt(c.prio),
                Place::Pinned(i as usize % cpus),
                false,
                Prog::Cyclic(Cyclic::new(interval, c.histogram_us)),
                0,
            );
        }
    }
    let jobs = w.hog_jobs.as_ref().map(|h| {
        let ns = |r: [f64; 2]| [(r[0] * 1e6) as u64, (r[1] * 1e6) as u64];
        (ns(h.job_ms), ns(h.gap_ms))
    });
    for i in 0..w.cpu_hogs {
        spawn(
            &mut sim,
            format!("hog/{i}"),
            "stress-ng-cpu".into(),
            Class::Fair,
            Place::Balanced(i as usize % cpus),
            false,
            Prog::Hog(Hog::new(jobs)),
            0,
        );
    }
    if let Some(t) = &w.toy_lock {
        let l = sim.core.add_lock("toy_lock", LockKind::Spin);
        for i in 0..t.workers {
            let p = Prog::Toy(Toy {
                lock: l,
                hold_ns: t.hold_us * 1000.0,
                think_ns: t.think_us * 1000.0,
                pc: ToySt::Think,
            });
            spawn(
                &mut sim,
                format!("toy/{i}"),
                "worker".into(),
                Class::Fair,
                Place::Balanced(i as usize % cpus),
                false,
                p,
                0,
            );
        }
    }
    let mem_workload = w.file_lru.is_some() || w.usemem.is_some() || w.dma32_trickle.is_some();
    if mem_workload {
        for n in 0..nodes {
            let k = spawn(
                &mut sim,
                format!("kswapd/{n}"),
                format!("kswapd{n}"),
                Class::Fair,
                Place::Any,
                false,
                Prog::Kswapd(Kswapd::new(n)),
                0,
            );
            sim.core.mem.nodes[n].kswapd = Some(k);
        }
    }
    if let Some(f) = &w.file_lru {
        // Fill the inactive file LRU with alternating zone bands, oldest at
        // the tail, from a stream shared by all variants.
        let mut rng = Rng::new(derive(seed, "lru-init"));
        let mb = 256u64;
        let nb = [
            (f.normal_band_mb[0] * mb as f64) as u64,
            (f.normal_band_mb[1] * mb as f64) as u64,
        ];
        let db = [
            (f.dma32_band_mb[0] * mb as f64) as u64,
            (f.dma32_band_mb[1] * mb as f64) as u64,
        ];
        let node = &mut sim.core.mem.nodes[0];
        let total: i64 = node.zones.iter().map(|z| z.managed).sum();
        let target = (total as f64 * 0.85) as u64;
        let mut filled = 0;
        let mut zone_normal = true;
        let top = (node.zones.len() - 1) as u8;
        while filled < target {
            let (z, n) = if zone_normal {
                (top, rng.range(nb[0], nb[1]))
            } else {
                (0, rng.range(db[0], db[1]))
            };
            if rng.f64() < f.active_fraction {
                node.file_active.push_head(n, z, 1);
            } else {
                node.file.push_head(n, z, 1);
            }
            filled += n;
            zone_normal = !zone_normal;
        }
        let pages_per_tick = ((f.write_mb_s * mb as f64) / 100.0).max(1.0) as u64;
        let wr = Writer {
            pages_per_tick,
            tick: 10_000_000,
            normal_band: nb,
            dma32_band: db,
            band_zone: 1,
            band_left: 0,
            next: 0,
            pc: WriterSt::Write,
        };
        spawn(
            &mut sim,
            "writer".into(),
            "bonnie".into(),
            Class::Fair,
            Place::Any,
            false,
            Prog::Writer(wr),
            1_000_000,
        );
    }
    if let Some(d) = &w.dma32_trickle {
        let t = Trickle {
            period: (d.period_ms * 1e6) as u64,
            pages: d.pages,
            held: 0,
            pc: TrickleSt::Alloc,
            next: 0,
        };
        spawn(
            &mut sim,
            "dma32".into(),
            "dma32-user".into(),
            Class::Fair,
            Place::Any,
            false,
            Prog::Trickle(t),
            7_000_000,
        );
    }
    if let Some(f) = &w.flusher {
        let l = sim.core.add_lock("&wb->list_lock", LockKind::Spin);
        let p = Prog::Flusher(Flusher {
            period: (f.period_ms * 1e6) as u64,
            inodes: f.inodes,
            lock: l,
            pc: FlusherSt::Lock,
            next: 0,
        });
        // First flush somewhere in the first period (same draw for all variants).
        let at = Rng::new(derive(seed, "flusher-start")).range(0, (f.period_ms * 1e6) as u64);
        spawn(
            &mut sim,
            "flusher".into(),
            "kworker/u16:3".into(),
            Class::Fair,
            Place::Any,
            false,
            p,
            at,
        );
    }
    if let Some(s) = &w.stress_vm {
        let pmds = (s.bytes_mb / 2.0).max(1.0) as u64;
        let madv = ((pmds as f64) * s.madvise_fraction) as u64;
        for i in 0..s.workers {
            let p = Prog::Vm(VmWorker::new(pmds, madv));
            spawn(
                &mut sim,
                format!("vm/{i}"),
                "stress-ng-vm".into(),
                Class::Fair,
                Place::Balanced(i as usize % cpus),
                false,
                p,
                0,
            );
        }
    }
    if let Some(mu) = &w.munmap {
        let l = sim.core.add_lock("&mm->mmap_lock", LockKind::RwSem);
        let gb = match point {
            Point::MunmapGb(g) => g,
            _ => mu.size_gb.first().copied().unwrap_or(320.0),
        };
        let pages = (gb * (1u64 << 18) as f64) as u64;
        let p = Prog::Munmap(Munmap::new(pages, (mu.start_ms * 1e6) as u64, l));
        spawn(
            &mut sim,
            "munmap".into(),
            "time_unmap".into(),
            Class::Fair,
            Place::Balanced(0),
            true,
            p,
            0,
        );
        if let Some(r) = &w.proc_reader {
            let p = Prog::Reader(Reader::new((r.period_ms * 1e6) as u64, l));
            spawn(
                &mut sim,
                "ps".into(),
                "ps".into(),
                Class::Fair,
                Place::Any,
                false,
                p,
                0,
            );
        }
    }
    if let Some(po) = &w.pageout {
        let pmds = (po.size_mb / 2.0).max(1.0) as u64;
        spawn(
            &mut sim,
            "pageout".into(),
            "madvise-pageout".into(),
            Class::Fair,
            Place::Balanced(0),
            true,
            Prog::Pageout(Pageout::new(pmds)),
            0,
        );
    }
    if let (Some(u), Point::Instances(n)) = (&w.usemem, point) {
        let ram: i64 = sim
            .core
            .mem
            .nodes
            .iter()
            .flat_map(|nd| nd.zones.iter().map(|z| z.managed))
            .sum();
        let total = (ram as f64 * u.ram_factor) as u64;
        let per = total / u64::from(n);
        for i in 0..n {
            let p = Prog::Usemem(Usemem::new(per, i as usize % nodes, u.loops));
            spawn(
                &mut sim,
                format!("usemem/{i}"),
                "usemem".into(),
                Class::Fair,
                Place::Balanced(i as usize % cpus),
                true,
                p,
                0,
            );
        }
    }

    sim.run(duration_ns, max_events, check)?;
    let now = sim.core.now;
    for (i, p) in sim.progs.iter_mut().enumerate() {
        if let Prog::Reader(r) = p {
            let t = &sim.core.tasks[i];
            let granted = (t.state != St::LockWait).then_some(t.granted_at);
            r.finish(now, granted);
        }
    }
    let repeat = w.usemem.as_ref().map_or(1.0, |u| u.repeat);
    Ok(extract(&sim, point, repeat))
}

fn extract(sim: &Sim, point: Point, repeat: f64) -> RunOut {
    let core = &sim.core;
    let mut out = RunOut {
        events: core.events,
        sim_ns: core.now,
        ..Default::default()
    };
    let mut thread = 0;
    let mut usemem_sys = 0u64;
    let mut usemem_user = 0u64;
    let mut usemem_t0 = u64::MAX;
    let mut usemem_end = 0u64;
    let mut kswapd_sys = 0u64;
    // Metrics of a V2 size sweep are named by size ("munmap-syscall-s-320GB").
    let sfx = match point {
        Point::MunmapGb(g) => format!("-{g}GB"),
        _ => String::new(),
    };
    for (i, p) in sim.progs.iter().enumerate() {
        let t = &core.tasks[i];
        match p {
            Prog::Cyclic(c) => {
                out.cyclic.push(CyclicOut {
                    thread,
                    tid: t.pid,
                    prio: match t.class {
                        Class::Rt(p) => p,
                        Class::Fair => 0,
                    },
                    interval_us: c.interval / 1000,
                    cpu: t.cpu as u32,
                    cycles: c.cycles,
                    min: if c.cycles == 0 { 0 } else { c.min },
                    act: c.act,
                    sum: c.sum,
                    max: c.max,
                    hist: c.hist.clone(),
                    overflows: c.overflows,
                });
                thread += 1;
            }
            Prog::Munmap(mu) => {
                if let Some(ns) = mu.syscall_ns {
                    out.durations
                        .push((format!("munmap-syscall-s{sfx}"), ns as f64 / 1e9));
                    if let Point::MunmapGb(g) = point {
                        out.munmap_us.push((g, ns as f64 / 1e3));
                    }
                }
                out.durations
                    .push((format!("mmap_lock-drops{sfx}"), mu.drops as f64));
            }
            Prog::Reader(r) => {
                out.durations
                    .push((format!("ps-max-wait-ms{sfx}"), r.wait_max as f64 / 1e6));
                out.durations.push((
                    format!("ps-mean-wait-ms{sfx}"),
                    r.wait_sum as f64 / r.waits.max(1) as f64 / 1e6,
                ));
            }
            Prog::Pageout(po) => {
                if let Some(ns) = po.real_ns {
                    out.durations.push(("Elapsed".into(), ns as f64 / 1e9));
                }
                out.durations.push(("System".into(), t.sys_ns as f64 / 1e9));
                out.durations.push(("User".into(), t.user_ns as f64 / 1e9));
            }
            Prog::Usemem(u) => {
                usemem_sys += t.sys_ns;
                usemem_user += t.user_ns;
                usemem_t0 = usemem_t0.min(u.t0);
                usemem_end = usemem_end.max(u.finish.unwrap_or(core.now));
            }
            Prog::Kswapd(_) => kswapd_sys += t.sys_ns,
            _ => {}
        }
    }
    if let Point::Instances(n) = point {
        // The measured run is `repeat` times the simulated one.
        let k = repeat / 1e9;
        out.durations
            .push((format!("System-{n}"), usemem_sys as f64 * k));
        out.durations.push((
            format!("Elapsd-{n}"),
            usemem_end.saturating_sub(usemem_t0) as f64 * k,
        ));
        out.durations
            .push((format!("User-{n}"), usemem_user as f64 * k));
        out.durations
            .push((format!("kswapd-sys-{n}"), kswapd_sys as f64 * k));
    }
    out.irqsoff = lat_out(core, &core.irqsoff);
    out.preemptoff = lat_out(core, &core.preemptoff);
    out.wakeup_rt = lat_out(core, &core.wakeup_rt);
    for l in &core.locks {
        let s = &l.stats;
        if s.acq == 0 {
            continue;
        }
        out.locks.push(LockOut {
            name: l.name.to_string(),
            acq: s.acq,
            contentions: s.contentions,
            wait_sum: s.wait_sum,
            wait_max: s.wait_max,
            wait_p99: s.wait_hist.quantile(0.99).min(s.wait_max),
            hold_sum: s.hold_sum,
            hold_max: s.hold_max,
            hold_p99: s.hold_hist.quantile(0.99).min(s.hold_max),
            hold_max_path: s.hold_max_path.iter().map(|x| x.to_string()).collect(),
        });
    }
    let vm = &core.mem.vm;
    let has_mem = !core.mem.nodes.is_empty() && (vm.pgalloc > 0 || vm.pswpout > 0);
    if has_mem || vm.tlb_flush_madvise > 0 {
        out.vmstat = vec![
            ("pgalloc".into(), vm.pgalloc as f64),
            ("pgscan_kswapd".into(), vm.pgscan_kswapd as f64),
            ("pgscan_direct".into(), vm.pgscan_direct as f64),
            ("pgsteal_kswapd".into(), vm.pgsteal_kswapd as f64),
            ("pgsteal_direct".into(), vm.pgsteal_direct as f64),
            ("pgskip".into(), vm.pgskip as f64),
            ("pgrefill".into(), vm.pgrefill as f64),
            ("pgdeactivate".into(), vm.pgdeactivate as f64),
            ("allocstall".into(), vm.allocstall as f64),
            ("pswpout".into(), vm.pswpout as f64),
            ("pswpin".into(), vm.pswpin as f64),
            ("kswapd_wakeups".into(), vm.kswapd_wakeups as f64),
            ("kswapd_backoffs".into(), vm.kswapd_backoffs as f64),
            (
                "kswapd_backoff_wakes".into(),
                vm.kswapd_backoff_wakes as f64,
            ),
            (
                "pgsteal_kswapd_exclusive".into(),
                vm.pgsteal_kswapd_exclusive as f64,
            ),
            ("reclaim_prio_drops".into(), vm.reclaim_prio_drops as f64),
            ("congestion_waits".into(), vm.congestion_waits as f64),
            (
                "isolated_ratio_max".into(),
                vm.isolated_ratio_max as f64 / 1000.0,
            ),
            (
                "pgdat_congested_marks".into(),
                vm.pgdat_congested_marks as f64,
            ),
            ("isolate_max_visited".into(), vm.isolate_max_visited as f64),
            ("tlb_flush_madvise".into(), vm.tlb_flush_madvise as f64),
            ("kswapd_cpu_s".into(), kswapd_sys as f64 / 1e9),
        ];
    }
    out
}

/// Pages of the swap device: `machine.swap_gb`, or as large as RAM.
fn swap_pages(m: &crate::config::Machine) -> u64 {
    let gb = m
        .swap_gb
        .unwrap_or_else(|| m.zones.iter().map(|z| z.gb).sum::<f64>());
    (gb * (1u64 << 18) as f64) as u64
}
