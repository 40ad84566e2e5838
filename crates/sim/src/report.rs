//! Aggregation across replications and the two renderings of a run: the
//! formats crate's `Document` per variant (JSON) and text that reads like
//! cyclictest, ftrace latency tracers, lock_stat, vmstat and mmtests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use reclaimlab_formats::{
    Block, BlockBody, Cyclictest, CyclictestThread, Document, FtraceLatency, Histogram,
    HistogramThread, Metric, Metrics, Source, Table, TableRow, Time, TraceTask,
};
use serde::{Deserialize, Serialize};

use crate::config::Scenario;
use crate::model::{LatOut, RunOut};

/// The result of [`crate::run`]: one section per variant plus a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    pub sim_version: String,
    pub scenario: String,
    pub description: String,
    pub board: String,
    pub kernel: String,
    pub preempt_models: Vec<String>,
    pub seed: u64,
    pub replications: u32,
    pub duration_ns: u64,
    pub variants: Vec<VariantReport>,
    pub comparison: Comparison,
}

/// One variant: the tool-shaped document plus simulator-only sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantReport {
    pub name: String,
    pub description: String,
    /// The blocks of every replication, in the shape of the seed's
    /// measurements (cyclictest, ftrace_latency, time, the munmap table,
    /// mmtests rows, vmstat / lockstat metrics), each labelled with its
    /// replication and seed: one stored run per replication.
    /// `source.format = "simulated"`.
    pub document: Document,
    /// The same blocks merged over replications (the text report).
    pub merged: Vec<Block>,
    pub summary: Summary,
    pub locks: Vec<LockRow>,
    /// Top-10 maxima per tracer (the kernel keeps only the max).
    pub latency_top: Vec<LatencyRow>,
    pub vmstat: Vec<(String, f64)>,
    /// Events processed, summed over replications (and sweep points).
    pub events: u64,
    pub sim_ns: u64,
}

/// Headline numbers of a variant, for comparisons and tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub cyclictest_max_us: Option<f64>,
    pub cyclictest_thread_max_us: Vec<f64>,
    pub cyclictest_avg_us: Option<f64>,
    pub irqsoff_max_us: Option<f64>,
    pub irqsoff_culprit: Option<String>,
    pub preemptoff_max_us: Option<f64>,
    pub preemptoff_culprit: Option<String>,
    pub wakeup_rt_max_us: Option<f64>,
    /// The preemption point of the task running when the RT task got the CPU.
    pub wakeup_rt_culprit: Option<String>,
    pub wakeup_rt_path: Vec<String>,
    /// Amean and stddev across replications of every duration metric.
    pub metrics: Vec<MetricStat>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricStat {
    pub name: String,
    pub mean: f64,
    pub stddev: f64,
    pub n: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockRow {
    pub class: String,
    pub contentions: u64,
    pub acquisitions: u64,
    pub waittime_max_us: f64,
    pub waittime_p99_us: f64,
    pub waittime_total_us: f64,
    pub holdtime_max_us: f64,
    pub holdtime_p99_us: f64,
    pub holdtime_total_us: f64,
    pub holder_at_max: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyRow {
    pub tracer: String,
    pub latency_us: f64,
    pub cpu: u32,
    pub task: String,
    pub culprit: String,
    pub path: Vec<String>,
    pub at_ms: f64,
}

/// Comparison across variants, mmtests compare-kernels style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// style "mmtests": one column per variant; `printed_deltas_pct` use the
    /// mmtests convention (positive = lower than the first variant).
    pub table: Table,
    /// Signed % change of each row against the first variant, per column.
    pub pct_change: Vec<Vec<Option<f64>>>,
}

impl SimReport {
    pub fn variant(&self, name: &str) -> Option<&VariantReport> {
        self.variants.iter().find(|v| v.name == name)
    }
}

impl VariantReport {
    /// Amean of a duration metric ("System-8", "Elapsed", "munmap-syscall-s", ...).
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.summary
            .metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.mean)
    }
    /// Mean of a vmstat counter across replications.
    pub fn vmstat(&self, name: &str) -> Option<f64> {
        self.vmstat.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Most specific frame that is not lock / scheduler plumbing.
fn culprit(path: &[String]) -> String {
    const PLUMBING: &[&str] = &[
        "native_queued_spin_lock_slowpath",
        "__schedule",
        "preempt_schedule",
        "preempt_schedule_irq",
        "migrate_enable",
        "rt_spin_unlock",
        "_raw_spin_unlock",
        "_raw_spin_unlock_irq",
        "__cond_resched",
    ];
    path.iter()
        .find(|f| !PLUMBING.contains(&f.as_str()))
        .cloned()
        .unwrap_or_default()
}

/// The culprit of a record and its call path (culprit first): the section
/// that held the CPU (`holder`), falling back to the printed stack.
fn blame(r: &LatOut, stack: &[String]) -> (String, Vec<String>) {
    let from = if r.holder.is_empty() {
        stack
    } else {
        &r.holder[..]
    };
    let cul = culprit(from);
    let pos = from.iter().position(|f| *f == cul).unwrap_or(0);
    (cul, from[pos..].to_vec())
}

fn stack_of(r: &LatOut, tracer: &str) -> Vec<String> {
    let mut s = Vec::new();
    if tracer == "wakeup_rt" {
        s.push("__schedule".to_string());
        if !r.ended_at.is_empty() {
            s.push(r.ended_at.clone());
        }
    }
    s.extend(r.path.iter().cloned());
    s
}

struct Agg {
    cyclic: Vec<crate::model::CyclicOut>,
    tracers: [Vec<LatOut>; 3],
    locks: BTreeMap<String, crate::model::LockOut>,
    vmstat: Vec<(String, f64)>,
    durations: BTreeMap<String, Vec<f64>>,
    order: Vec<String>,
    /// (GiB, SyS_munmap us per replication).
    munmap: Vec<(f64, Vec<f64>)>,
    reps: usize,
    events: u64,
    sim_ns: u64,
}

fn aggregate(runs: &[Vec<RunOut>]) -> Agg {
    let mut a = Agg {
        cyclic: Vec::new(),
        tracers: [Vec::new(), Vec::new(), Vec::new()],
        locks: BTreeMap::new(),
        vmstat: Vec::new(),
        durations: BTreeMap::new(),
        order: Vec::new(),
        munmap: Vec::new(),
        reps: runs.len(),
        events: 0,
        sim_ns: 0,
    };
    let reps = runs.len().max(1) as f64;
    let mut vm: Vec<(String, f64)> = Vec::new();
    for rep in runs {
        for r in rep {
            a.events += r.events;
            a.sim_ns += r.sim_ns;
            for c in &r.cyclic {
                match a.cyclic.iter_mut().find(|x| x.thread == c.thread) {
                    None => a.cyclic.push(c.clone()),
                    Some(x) => {
                        x.cycles += c.cycles;
                        x.sum += c.sum;
                        x.min = x.min.min(c.min);
                        x.max = x.max.max(c.max);
                        x.act = c.act;
                        x.overflows += c.overflows;
                        for (h, v) in x.hist.iter_mut().zip(&c.hist) {
                            *h += v;
                        }
                    }
                }
            }
            for (i, tr) in [&r.irqsoff, &r.preemptoff, &r.wakeup_rt]
                .into_iter()
                .enumerate()
            {
                a.tracers[i].extend(tr.iter().cloned());
            }
            for l in &r.locks {
                match a.locks.get_mut(&l.name) {
                    None => {
                        a.locks.insert(l.name.clone(), l.clone());
                    }
                    Some(x) => {
                        x.acq += l.acq;
                        x.contentions += l.contentions;
                        x.wait_sum += l.wait_sum;
                        x.hold_sum += l.hold_sum;
                        x.wait_max = x.wait_max.max(l.wait_max);
                        x.wait_p99 = x.wait_p99.max(l.wait_p99);
                        x.hold_p99 = x.hold_p99.max(l.hold_p99);
                        if l.hold_max > x.hold_max {
                            x.hold_max = l.hold_max;
                            x.hold_max_path = l.hold_max_path.clone();
                        }
                    }
                }
            }
            for (k, v) in &r.vmstat {
                match vm.iter_mut().find(|(n, _)| n == k) {
                    Some((_, x)) => *x += v,
                    None => vm.push((k.clone(), *v)),
                }
            }
        }
        // Duration metrics: one value per metric per replication.
        for r in rep {
            for &(g, t) in &r.munmap_us {
                match a.munmap.iter_mut().find(|(x, _)| *x == g) {
                    Some((_, v)) => v.push(t),
                    None => a.munmap.push((g, vec![t])),
                }
            }
            for (k, v) in &r.durations {
                if !a.order.contains(k) {
                    a.order.push(k.clone());
                }
                a.durations.entry(k.clone()).or_default().push(*v);
            }
        }
    }
    a.vmstat = vm.into_iter().map(|(k, v)| (k, v / reps)).collect();
    for t in a.tracers.iter_mut() {
        t.sort_by(|x, y| y.lat_ns.cmp(&x.lat_ns).then(x.at_ns.cmp(&y.at_ns)));
        t.truncate(10);
    }
    a
}

/// Sort key of an mmtests usemem row: System-N before Elapsd-N, by N.
fn usemem_key(name: &str) -> Option<(u8, u32)> {
    let (kind, n) = name.split_once('-')?;
    let k = match kind {
        "System" => 0,
        "Elapsd" => 1,
        _ => return None,
    };
    Some((k, n.parse().ok()?))
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

const TRACERS: [&str; 3] = ["irqsoff", "preemptoff", "wakeup_rt"];

/// Blocks and headline numbers of one variant over `a` (one replication,
/// or all of them merged for the text report).
struct Rendered {
    blocks: Vec<Block>,
    summary: Summary,
    locks: Vec<LockRow>,
    latency_top: Vec<LatencyRow>,
}

fn render(sc: &Scenario, v: &crate::config::Variant, a: &Agg, label: &str) -> Rendered {
    let model = v.knobs.preempt.trace_name().to_string();
    let mut blocks = Vec::new();
    let mut summary = Summary::default();
    let label = |body: BlockBody| {
        // FtraceLatency has its own `kernel` field; the block-level hint
        // would serialize as a duplicate key next to it (flatten).
        let ftrace = matches!(body, BlockBody::FtraceLatency(_));
        let mut b = Block::new([0, 0], body);
        b.label = Some(label.to_string());
        b.board = Some(sc.machine.board.clone());
        b.kernel = (!ftrace).then(|| sc.kernel.clone());
        b
    };
    if !a.cyclic.is_empty() {
        let threads: Vec<CyclictestThread> = a
            .cyclic
            .iter()
            .map(|c| CyclictestThread {
                thread: c.thread,
                tid: Some(c.tid),
                priority: Some(c.prio as i32),
                interval_us: Some(c.interval_us),
                cycles: Some(c.cycles),
                min_us: (c.min / 1000) as f64,
                act_us: Some((c.act / 1000) as f64),
                avg_us: c
                    .sum
                    .checked_div(c.cycles)
                    .map_or(0.0, |a| (a / 1000) as f64),
                max_us: (c.max / 1000) as f64,
                cpu: Some(c.cpu),
                policy: Some("fifo".into()),
                ..Default::default()
            })
            .collect();
        summary.cyclictest_thread_max_us = threads.iter().map(|t| t.max_us).collect();
        summary.cyclictest_max_us = threads.iter().map(|t| t.max_us).reduce(f64::max);
        let cyc: u64 = a.cyclic.iter().map(|c| c.cycles).sum();
        let sum: u64 = a.cyclic.iter().map(|c| c.sum).sum();
        summary.cyclictest_avg_us = Some(sum.checked_div(cyc).map_or(0.0, us));
        let histogram = (a.cyclic.iter().any(|c| !c.hist.is_empty())).then(|| Histogram {
            bucket_us: 1.0,
            per_thread: a
                .cyclic
                .iter()
                // `..Default::default()` keeps this compiling when the
                // formats crate adds optional fields.
                .map(|c| {
                    #[allow(
                        clippy::needless_update,
                        reason = "fields may be added to the contract"
                    )]
                    HistogramThread {
                        thread: c.thread,
                        buckets: c
                            .hist
                            .iter()
                            .enumerate()
                            .filter(|(_, n)| **n > 0)
                            .map(|(i, n)| (i as f64, *n))
                            .collect(),
                        overflows: c.overflows,
                        overflow_cycles: Vec::new(),
                        total: Some(c.cycles),
                        min_us: Some((c.min / 1000) as f64),
                        avg_us: Some(
                            c.sum
                                .checked_div(c.cycles)
                                .map_or(0.0, |a| (a / 1000) as f64),
                        ),
                        max_us: Some((c.max / 1000) as f64),
                        ..Default::default()
                    }
                })
                .collect(),
        });
        blocks.push(label(BlockBody::Cyclictest(Cyclictest {
            threads,
            histogram,
            printed_unit: "us".into(),
            ..Default::default()
        })));
    }
    let mut latency_top = Vec::new();
    for (i, name) in TRACERS.iter().enumerate() {
        let top = &a.tracers[i];
        for r in top {
            let st = stack_of(r, name);
            latency_top.push(LatencyRow {
                tracer: name.to_string(),
                latency_us: us(r.lat_ns),
                cpu: r.cpu,
                task: format!("{}-{}", r.comm, r.pid),
                culprit: blame(r, &st).0,
                path: st,
                at_ms: r.at_ns as f64 / 1e6,
            });
        }
        let Some(r) = top.first() else { continue };
        let st = stack_of(r, name);
        let (cul, cul_path) = blame(r, &st);
        let task = match (&r.woken, *name) {
            (Some((comm, pid, prio)), "wakeup_rt") => TraceTask {
                comm: comm.clone(),
                pid: *pid,
                uid: Some(0),
                nice: Some(0),
                policy: Some(1),
                rt_prio: Some(*prio),
            },
            _ => TraceTask {
                comm: r.comm.clone(),
                pid: r.pid,
                uid: Some(0),
                nice: Some(0),
                policy: Some(0),
                rt_prio: Some(0),
            },
        };
        let lat = us(r.lat_ns);
        match *name {
            "irqsoff" => {
                summary.irqsoff_max_us = Some(lat);
                summary.irqsoff_culprit = Some(cul.clone());
            }
            "preemptoff" => {
                summary.preemptoff_max_us = Some(lat);
                summary.preemptoff_culprit = Some(cul.clone());
            }
            _ => {
                summary.wakeup_rt_max_us = Some(lat);
                summary.wakeup_rt_culprit = Some(cul.clone());
                summary.wakeup_rt_path = st.clone();
            }
        }
        blocks.push(label(BlockBody::FtraceLatency(FtraceLatency {
            tracer: name.to_string(),
            latency_us: lat.round(),
            cpu: Some(r.cpu),
            nr_cpus: Some(sc.machine.cpus),
            preempt_model: Some(model.clone()),
            kernel: Some(sc.kernel.clone()),
            entries: None,
            task: Some(task),
            started_at: (*name != "wakeup_rt").then(|| r.started_at.clone()),
            ended_at: (*name != "wakeup_rt").then(|| r.ended_at.clone()),
            flag_columns: None,
            events: Vec::new(),
            stacks: vec![st.clone()],
            culprit: Some(cul),
            culprit_path: cul_path,
            ..Default::default()
        })));
    }
    for k in &a.order {
        let (m, sd) = mean_sd(&a.durations[k]);
        summary.metrics.push(MetricStat {
            name: k.clone(),
            mean: m,
            stddev: sd,
            n: a.durations[k].len() as u32,
        });
    }
    let stat = |name: &str| summary.metrics.iter().find(|m| m.name == name);
    let spread = a.reps > 1;
    let mut used: Vec<String> = Vec::new();
    // V3: time(1) of the microbenchmark, as bash prints it.
    if let (Some(r), Some(u), Some(y)) = (stat("Elapsed"), stat("User"), stat("System")) {
        let ms = |x: f64| (x * 1000.0).round() / 1000.0;
        blocks.push(label(BlockBody::Time(Time {
            real_s: Some(ms(r.mean)),
            user_s: Some(ms(u.mean)),
            sys_s: Some(ms(y.mean)),
            style: Some("bash".into()),
            ..Default::default()
        })));
        used.extend(["Elapsed", "User", "System"].map(String::from));
    }
    // V2: SyS_munmap() time per size, as S2's table.
    if !a.munmap.is_empty() {
        let rows = a
            .munmap
            .iter()
            .map(|(g, v)| {
                let (m, _) = mean_sd(v);
                TableRow {
                    metric: format!("{g}GB"),
                    values: vec![Some(*g), Some(m.round())],
                    printed: vec![format!("{g}GB"), format!("{:.0} us", m)],
                    unit: Some("us".into()),
                    ..Default::default()
                }
            })
            .collect();
        blocks.push(label(BlockBody::Table(Table {
            style: "plain".into(),
            title: Some("Measurement of SyS_munmap() execution time".into()),
            columns: vec!["size".into(), v.name.clone()],
            rows,
            unit: Some("us".into()),
            ..Default::default()
        })));
        used.extend(
            summary
                .metrics
                .iter()
                .filter(|m| m.name.starts_with("munmap-syscall-s"))
                .map(|m| m.name.clone()),
        );
    }
    // V5: usemem System-N / Elapsd-N rows, mmtests compare-kernels style.
    let mut usemem: Vec<&MetricStat> = summary
        .metrics
        .iter()
        .filter(|m| usemem_key(&m.name).is_some())
        .collect();
    usemem.sort_by_key(|m| usemem_key(&m.name));
    let rows_of = |ms: &[&MetricStat], used: &mut Vec<String>| {
        let mut rows = Vec::new();
        for m in ms {
            rows.push(TableRow {
                stat: Some("Amean".into()),
                metric: m.name.clone(),
                values: vec![Some(m.mean)],
                ..Default::default()
            });
        }
        if spread {
            for m in ms {
                rows.push(TableRow {
                    stat: Some("Stddev".into()),
                    metric: m.name.clone(),
                    values: vec![Some(m.stddev)],
                    ..Default::default()
                });
            }
        }
        used.extend(ms.iter().map(|m| m.name.clone()));
        rows
    };
    if !usemem.is_empty() {
        let rows = rows_of(&usemem, &mut used);
        blocks.push(label(one_column_table("usemem", &sc.kernel, &v.name, rows)));
    }
    let rest: Vec<&MetricStat> = summary
        .metrics
        .iter()
        .filter(|m| !used.contains(&m.name))
        .collect();
    if !rest.is_empty() {
        let rows = rows_of(&rest, &mut used);
        blocks.push(label(one_column_table(
            "duration", &sc.kernel, &v.name, rows,
        )));
    }
    if !a.vmstat.is_empty() {
        blocks.push(label(BlockBody::Metrics(Metrics {
            tool: "vmstat".into(),
            metrics: a
                .vmstat
                .iter()
                .map(|(k, v)| Metric::new(k.clone(), *v, None))
                .collect(),
            runs: None,
        })));
    }
    let mut locks = Vec::new();
    for l in a.locks.values() {
        locks.push(LockRow {
            class: l.name.clone(),
            contentions: l.contentions,
            acquisitions: l.acq,
            waittime_max_us: us(l.wait_max),
            waittime_p99_us: us(l.wait_p99),
            waittime_total_us: us(l.wait_sum),
            holdtime_max_us: us(l.hold_max),
            holdtime_p99_us: us(l.hold_p99),
            holdtime_total_us: us(l.hold_sum),
            holder_at_max: l.hold_max_path.clone(),
        });
    }
    if !locks.is_empty() {
        let mut ms = Vec::new();
        for l in &locks {
            for (k, v, u) in [
                ("contentions", l.contentions as f64, None),
                ("acquisitions", l.acquisitions as f64, None),
                ("waittime-max", l.waittime_max_us, Some("us")),
                ("waittime-total", l.waittime_total_us, Some("us")),
                ("holdtime-max", l.holdtime_max_us, Some("us")),
                ("holdtime-total", l.holdtime_total_us, Some("us")),
            ] {
                ms.push(Metric::new(format!("{}:{k}", l.class), v, u));
            }
        }
        blocks.push(label(BlockBody::Metrics(Metrics {
            tool: "lockstat".into(),
            metrics: ms,
            runs: None,
        })));
        // The same contention as `perf lock contention -l` prints it (keyed
        // by lock), so a prediction and a measured table meet row by row.
        blocks.push(label(BlockBody::LockContention(
            reclaimlab_formats::LockContention {
                tool: "perf-lock".into(),
                key: "lock".into(),
                rows: locks
                    .iter()
                    .filter(|l| l.contentions > 0)
                    .map(|l| reclaimlab_formats::LockRow {
                        contended: l.contentions,
                        total_wait_us: l.waittime_total_us,
                        max_wait_us: Some(l.waittime_max_us),
                        avg_wait_us: Some(l.waittime_total_us / l.contentions as f64),
                        lock: Some(l.class.clone()),
                        ..Default::default()
                    })
                    .collect(),
            },
        )));
    }
    Rendered {
        blocks,
        summary,
        locks,
        latency_top,
    }
}

/// An mmtests-style table of one variant's column (one per replication).
fn one_column_table(title: &str, kernel: &str, variant: &str, rows: Vec<TableRow>) -> BlockBody {
    BlockBody::Table(Table {
        style: "mmtests".into(),
        title: Some(title.into()),
        columns: vec![format!("{kernel} {variant}")],
        column_kernels: vec![kernel.to_string()],
        column_variants: vec![variant.to_string()],
        rows,
        unit: None,
        ..Table::default()
    })
}

pub(crate) fn build(
    sc: &Scenario,
    seed: u64,
    replications: u32,
    duration_ns: u64,
    variants: &[usize],
    runs: Vec<Vec<Vec<RunOut>>>,
) -> SimReport {
    let mut out = Vec::new();
    for (vi, runs) in variants.iter().zip(runs) {
        let v = &sc.variants[*vi];
        let a = aggregate(&runs);
        let merged = render(sc, v, &a, &v.name);
        let mut blocks = Vec::new();
        let n = runs.len();
        for (r, rep) in runs.iter().enumerate() {
            let ar = aggregate(std::slice::from_ref(rep));
            let rseed = crate::replication_seed(seed, r as u32);
            let label = format!("{} rep {}/{n} seed {rseed}", v.name, r + 1);
            blocks.extend(render(sc, v, &ar, &label).blocks);
        }
        let Rendered {
            blocks: merged_blocks,
            summary,
            locks,
            latency_top,
        } = merged;
        let document = Document {
            source: Source {
                name: Some(format!("{}/{}", sc.name, v.name)),
                format: "simulated".into(),
                bytes: 0,
                lines: 0,
                parser_version: crate::SIM_VERSION.to_string(),
            },
            context: None,
            blocks,
            warnings: Vec::new(),
        };
        out.push(VariantReport {
            name: v.name.clone(),
            description: v.description.clone(),
            document,
            merged: merged_blocks,
            summary,
            locks,
            latency_top,
            vmstat: a.vmstat.clone(),
            events: a.events,
            sim_ns: a.sim_ns,
        });
    }
    let comparison = compare(sc, &out);
    let mut models: Vec<String> = Vec::new();
    for vi in variants {
        let m = sc.variants[*vi].knobs.preempt.trace_name().to_string();
        if !models.contains(&m) {
            models.push(m);
        }
    }
    SimReport {
        sim_version: crate::SIM_VERSION.to_string(),
        scenario: sc.name.clone(),
        description: sc.description.clone(),
        board: sc.machine.board.clone(),
        kernel: sc.kernel.clone(),
        preempt_models: models,
        seed,
        replications,
        duration_ns,
        variants: out,
        comparison,
    }
}

/// Signed % change from `base` to `x` (`sign` -1 gives the mmtests gain).
/// A change away from 0 has no percentage: None, printed as "from 0".
fn pct(base: Option<f64>, x: Option<f64>, sign: f64) -> Option<f64> {
    match (base, x) {
        // `+ 0.0` turns -0.0 into 0.0, so no "-0.00%" is printed.
        (Some(b), Some(x)) if b != 0.0 => Some(sign * (x - b) / b * 100.0 + 0.0),
        (Some(_), Some(0.0)) => Some(0.0),
        _ => None,
    }
}

fn compare(sc: &Scenario, vs: &[VariantReport]) -> Comparison {
    let mut names: Vec<(String, String)> = Vec::new();
    let mut push = |stat: &str, metric: &str| {
        let k = (stat.to_string(), metric.to_string());
        if !names.contains(&k) {
            names.push(k);
        }
    };
    for v in vs {
        let s = &v.summary;
        if s.cyclictest_max_us.is_some() {
            push("Max", "cyclictest-us");
            push("Amean", "cyclictest-us");
        }
        if s.irqsoff_max_us.is_some() {
            push("Max", "irqsoff-us");
        }
        if s.preemptoff_max_us.is_some() {
            push("Max", "preemptoff-us");
        }
        if s.wakeup_rt_max_us.is_some() {
            push("Max", "wakeup_rt-us");
        }
    }
    for v in vs {
        for m in &v.summary.metrics {
            push("Amean", &m.name);
        }
    }
    for v in vs {
        for (k, _) in &v.vmstat {
            if [
                "pgscan_kswapd",
                "pgscan_direct",
                "pgskip",
                "allocstall",
                "tlb_flush_madvise",
            ]
            .contains(&k.as_str())
            {
                push("Mean", k);
            }
        }
    }
    let value = |v: &VariantReport, stat: &str, metric: &str| -> Option<f64> {
        let s = &v.summary;
        match (stat, metric) {
            ("Max", "cyclictest-us") => s.cyclictest_max_us,
            ("Amean", "cyclictest-us") => s.cyclictest_avg_us,
            ("Max", "irqsoff-us") => Some(s.irqsoff_max_us.unwrap_or(0.0)),
            ("Max", "preemptoff-us") => Some(s.preemptoff_max_us.unwrap_or(0.0)),
            ("Max", "wakeup_rt-us") => Some(s.wakeup_rt_max_us.unwrap_or(0.0)),
            ("Mean", m) => v.vmstat(m),
            (_, m) => v.metric(m),
        }
    };
    let mut rows = Vec::new();
    let mut pct_change = Vec::new();
    for (stat, metric) in &names {
        let values: Vec<Option<f64>> = vs.iter().map(|v| value(v, stat, metric)).collect();
        let base = values.first().copied().flatten();
        let gains: Vec<Option<f64>> = values.iter().map(|x| pct(base, *x, -1.0)).collect();
        pct_change.push(values.iter().map(|x| pct(base, *x, 1.0)).collect());
        rows.push(TableRow {
            stat: Some(stat.clone()),
            metric: metric.clone(),
            values,
            printed_deltas_pct: gains,
            ..Default::default()
        });
    }
    Comparison {
        table: Table {
            style: "mmtests".into(),
            title: Some(format!("{} compare", sc.name)),
            columns: vs
                .iter()
                .map(|v| format!("{} {}", sc.kernel, v.name))
                .collect(),
            column_kernels: vs.iter().map(|_| sc.kernel.clone()).collect(),
            column_variants: vs.iter().map(|v| v.name.clone()).collect(),
            rows,
            unit: None,
            ..Table::default()
        },
        pct_change,
    }
}

// ------------------------------------------------------------------- text

fn tracer_text(s: &mut String, f: &FtraceLatency) {
    let _ = writeln!(s, "# tracer: {}", f.tracer);
    let _ = writeln!(s, "#");
    let _ = writeln!(
        s,
        "# {} latency trace v1.1.5 on {} (simulated)",
        f.tracer,
        f.kernel.as_deref().unwrap_or("")
    );
    let _ = writeln!(
        s,
        "# --------------------------------------------------------------------"
    );
    let _ = writeln!(
        s,
        "# latency: {} us, #1/1, CPU#{} | (M:{} VP:0, KP:0, SP:0 HP:0 #P:{})",
        f.latency_us,
        f.cpu.unwrap_or(0),
        f.preempt_model.as_deref().unwrap_or("unknown"),
        f.nr_cpus.unwrap_or(0)
    );
    let _ = writeln!(s, "#    -----------------");
    if let Some(t) = &f.task {
        let _ = writeln!(
            s,
            "#    | task: {}-{} (uid:0 nice:0 policy:{} rt_prio:{})",
            t.comm,
            t.pid,
            t.policy.unwrap_or(0),
            t.rt_prio.unwrap_or(0)
        );
    }
    let _ = writeln!(s, "#    -----------------");
    if let Some(a) = &f.started_at {
        let _ = writeln!(s, "#  => started at: {a}");
    }
    if let Some(b) = &f.ended_at {
        let _ = writeln!(s, "#  => ended at:   {b}");
    }
    let _ = writeln!(s, "#");
    if let Some(st) = f.stacks.first() {
        for fr in st {
            let _ = writeln!(s, " => {fr}");
        }
    }
    let _ = writeln!(s);
}

impl SimReport {
    /// Text that reads like the tools the simulator imitates: one section
    /// per variant, then a compare-kernels style table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# {} | scenario {} | board {} | kernel {} | seed {} | {} replication(s) x {:.3} s simulated",
            self.sim_version,
            self.scenario,
            self.board,
            self.kernel,
            self.seed,
            self.replications,
            self.duration_ns as f64 / 1e9
        );
        if !self.description.is_empty() {
            let _ = writeln!(s, "# {}", self.description);
        }
        for (i, v) in self.variants.iter().enumerate() {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "===== variant {}/{}: {}{}",
                i + 1,
                self.variants.len(),
                v.name,
                if v.description.is_empty() {
                    String::new()
                } else {
                    format!(" -- {}", v.description)
                }
            );
            for b in &v.merged {
                match &b.body {
                    BlockBody::Cyclictest(c) => {
                        let _ = writeln!(
                            s,
                            "# cyclictest (merged over {} replication(s))",
                            self.replications
                        );
                        for t in &c.threads {
                            let _ = writeln!(
                                s,
                                "T:{:2} ({:5}) P:{} I:{} C:{:7} Min:{:7} Act:{:5} Avg:{:5} Max:{:8}",
                                t.thread,
                                t.tid.unwrap_or(0),
                                t.priority.unwrap_or(0),
                                t.interval_us.unwrap_or(0),
                                t.cycles.unwrap_or(0),
                                t.min_us,
                                t.act_us.unwrap_or(0.0),
                                t.avg_us,
                                t.max_us
                            );
                        }
                        if let Some(h) = &c.histogram {
                            let line = |name: &str, f: &dyn Fn(&HistogramThread) -> String| {
                                let cells: Vec<String> = h.per_thread.iter().map(f).collect();
                                format!("# {name}: {}\n", cells.join(" "))
                            };
                            let _ = writeln!(
                                s,
                                "# Histogram: 1 us buckets, non-empty buckets in the JSON output"
                            );
                            s.push_str(&line("Total", &|t| format!("{:09}", t.total.unwrap_or(0))));
                            s.push_str(&line("Min Latencies", &|t| {
                                format!("{:05}", t.min_us.unwrap_or(0.0))
                            }));
                            s.push_str(&line("Avg Latencies", &|t| {
                                format!("{:05}", t.avg_us.unwrap_or(0.0))
                            }));
                            s.push_str(&line("Max Latencies", &|t| {
                                format!("{:05}", t.max_us.unwrap_or(0.0))
                            }));
                            s.push_str(&line("Histogram Overflows", &|t| {
                                format!("{:05}", t.overflows)
                            }));
                        }
                        let _ = writeln!(s);
                    }
                    BlockBody::FtraceLatency(f) => tracer_text(&mut s, f),
                    BlockBody::Time(t) => {
                        let mmss = |x: f64| format!("{}m{:.3}s", (x / 60.0).floor(), x % 60.0);
                        let _ = writeln!(s, "# time (bash; mean over replications)");
                        if let Some(real) = t.real_s {
                            let _ = writeln!(s, "real\t{}", mmss(real));
                        }
                        let _ = writeln!(s, "user\t{}", mmss(t.user_s.unwrap_or(0.0)));
                        let _ = writeln!(s, "sys\t{}", mmss(t.sys_s.unwrap_or(0.0)));
                        let _ = writeln!(s);
                    }
                    BlockBody::Table(t) if t.style == "plain" => {
                        let _ = writeln!(
                            s,
                            "# {} (mean over replications)",
                            t.title.as_deref().unwrap_or("")
                        );
                        let _ = writeln!(s, "  {:10} {:>16}", "size", v.name);
                        for r in &t.rows {
                            let _ = writeln!(
                                s,
                                "  {:10} {:>16}",
                                r.metric,
                                r.printed.get(1).map_or("", String::as_str)
                            );
                        }
                        let _ = writeln!(s);
                    }
                    BlockBody::Table(t) => {
                        let _ = writeln!(
                            s,
                            "# {} (mmtests style, Amean/Stddev over replications)",
                            t.title.as_deref().unwrap_or("duration")
                        );
                        let _ = writeln!(s, "{:28} {:>16}", "", v.name);
                        for r in &t.rows {
                            let _ = writeln!(
                                s,
                                "{:7} {:20} {:>16.4}",
                                r.stat.as_deref().unwrap_or(""),
                                r.metric,
                                r.values[0].unwrap_or(0.0)
                            );
                        }
                        let _ = writeln!(s);
                    }
                    BlockBody::Metrics(m) if m.tool == "vmstat" => {
                        let _ = writeln!(s, "# vmstat (reclaim counters, mean per replication)");
                        for x in &m.metrics {
                            let _ = writeln!(s, "{:24} {:.0}", x.name, x.value);
                        }
                        let _ = writeln!(s);
                    }
                    _ => {}
                }
            }
            if !v.locks.is_empty() {
                let _ = writeln!(s, "# lock_stat (simulated; times in us)");
                let _ = writeln!(
                    s,
                    "{:44} {:>11} {:>12} {:>12} {:>12} {:>14} {:>12} {:>12} {:>14}",
                    "class name",
                    "contentions",
                    "waittime-max",
                    "waittime-p99",
                    "waittime-total",
                    "acquisitions",
                    "holdtime-max",
                    "holdtime-p99",
                    "holdtime-total"
                );
                for l in &v.locks {
                    let _ = writeln!(
                        s,
                        "{:44} {:>11} {:>12.2} {:>12.2} {:>14.2} {:>14} {:>12.2} {:>12.2} {:>14.2}",
                        l.class,
                        l.contentions,
                        l.waittime_max_us,
                        l.waittime_p99_us,
                        l.waittime_total_us,
                        l.acquisitions,
                        l.holdtime_max_us,
                        l.holdtime_p99_us,
                        l.holdtime_total_us
                    );
                    if !l.holder_at_max.is_empty() {
                        let _ = writeln!(
                            s,
                            "{:44}   holder at max: {}",
                            "",
                            l.holder_at_max.join(" < ")
                        );
                    }
                }
                let _ = writeln!(s);
            }
            if !v.latency_top.is_empty() {
                let _ = writeln!(s, "# latency top-10 per tracer (us)");
                for r in &v.latency_top {
                    let _ = writeln!(
                        s,
                        "{:10} {:>10.1}  CPU#{:<3} {:20} at {:>10.3} ms  {}",
                        r.tracer, r.latency_us, r.cpu, r.task, r.at_ms, r.culprit
                    );
                }
                let _ = writeln!(s);
            }
            let _ = writeln!(
                s,
                "# events processed: {} over {:.3} s simulated (all replications)",
                v.events,
                v.sim_ns as f64 / 1e9
            );
        }
        let t = &self.comparison.table;
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "===== comparison (mmtests compare-kernels style; (x%) = gain vs {}, positive = lower)",
            self.variants.first().map_or("", |v| v.name.as_str())
        );
        let mut head = format!("{:30}", "");
        for v in &t.column_variants {
            let _ = write!(head, " {:>24}", v);
        }
        let _ = writeln!(s, "{}", head.trim_end());
        for r in &t.rows {
            let mut line = format!("{:6} {:23}", r.stat.as_deref().unwrap_or(""), r.metric);
            for (i, v) in r.values.iter().enumerate() {
                let d = r.printed_deltas_pct.get(i).copied().flatten();
                match (v, d) {
                    (Some(v), Some(d)) => {
                        let _ = write!(line, " {:>14.2} ({:7.2}%)", v, d);
                    }
                    (Some(v), None) if i > 0 && r.values[0] == Some(0.0) => {
                        let _ = write!(line, " {:>14.2} ( from 0)", v);
                    }
                    (Some(v), None) => {
                        let _ = write!(line, " {:>14.2}           ", v);
                    }
                    _ => {
                        let _ = write!(line, " {:>24}", "-");
                    }
                }
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
        s
    }
}
