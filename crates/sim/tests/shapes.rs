//! Each scenario's document has blocks of the same kinds as its seed's
//! measurements, one set per replication, each naming its seed; and the
//! mechanism fixes of the scheduler and reporting hold.
mod common;

use reclaimlab_formats::BlockBody;
use reclaimlab_sim::{SimReport, load_scenario, replication_seed};

fn kinds(r: &SimReport, variant: usize) -> Vec<(String, String)> {
    r.variants[variant]
        .document
        .blocks
        .iter()
        .map(|b| {
            let sub = match &b.body {
                BlockBody::FtraceLatency(f) => f.tracer.clone(),
                BlockBody::Table(t) => t.title.clone().unwrap_or_default(),
                BlockBody::Metrics(m) => m.tool.clone(),
                _ => String::new(),
            };
            (b.kind().to_string(), sub)
        })
        .collect()
}

fn count(k: &[(String, String)], kind: &str, sub: &str) -> usize {
    k.iter().filter(|(a, b)| a == kind && b == sub).count()
}

#[test]
fn v3_one_time_block_per_replication_with_its_seed() {
    let r = common::run_builtin("v3-pageout-ignore-refs", 200.0, 3, 5);
    for (vi, v) in r.variants.iter().enumerate() {
        let k = kinds(&r, vi);
        assert_eq!(count(&k, "time", ""), 3, "{k:?}");
        let times: Vec<(f64, String)> = v
            .document
            .blocks
            .iter()
            .filter_map(|b| match &b.body {
                BlockBody::Time(t) => Some((t.real_s.unwrap(), b.label.clone().unwrap())),
                _ => None,
            })
            .collect();
        for (i, (real, label)) in times.iter().enumerate() {
            let seed = replication_seed(5, i as u32);
            assert!(
                label.ends_with(&format!("rep {}/3 seed {seed}", i + 1)),
                "{label}"
            );
            assert!(*real > 20.0 && *real < 100.0, "{real}");
        }
        // Samples, not copies: the replications differ.
        assert!(times[0].0 != times[1].0 || times[1].0 != times[2].0);
    }
}

#[test]
fn v2_munmap_table_rows_are_the_seed_sizes() {
    let r = common::run_builtin("v2-munmap-sections", 25.0, 2, 1);
    let v = &r.variants[0];
    let tables: Vec<_> = v
        .document
        .blocks
        .iter()
        .filter_map(|b| match &b.body {
            BlockBody::Table(t) if t.style == "plain" => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(tables.len(), 2);
    for t in tables {
        let sizes: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(sizes, ["80GB", "160GB", "320GB"]);
        assert!(t.rows.iter().all(|r| r.unit.as_deref() == Some("us")));
        assert!(t.rows[2].printed[1].ends_with(" us"));
    }
}

#[test]
fn v1_and_v4_emit_cyclictest_and_ftrace_per_replication() {
    let r = common::run_builtin("v1-madvise-pte-walk", 3.0, 2, 1);
    let k = kinds(&r, 0);
    assert_eq!(count(&k, "cyclictest", ""), 2);
    assert_eq!(count(&k, "ftrace_latency", "wakeup_rt"), 2);
    let r = common::run_builtin("v4-isolate-irq-holdoff", 3.0, 2, 1);
    let k = kinds(&r, 0);
    assert_eq!(count(&k, "cyclictest", ""), 2);
    assert_eq!(count(&k, "ftrace_latency", "irqsoff"), 2);
}

#[test]
fn v5_emits_mmtests_usemem_rows() {
    let mut sc = load_scenario("v5-tree-lock-contention").unwrap();
    let u = sc.workload.usemem.as_mut().unwrap();
    u.instances = vec![1, 3];
    // The rows' shape does not depend on the number of passes.
    u.loops = 2;
    sc.variants.truncate(2);
    let r = common::run_scenario(&sc, 600.0, 2, 1);
    let v = &r.variants[1];
    let t: Vec<_> = v
        .document
        .blocks
        .iter()
        .filter_map(|b| match &b.body {
            BlockBody::Table(t) if t.title.as_deref() == Some("usemem") => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(t.len(), 2, "one usemem table per replication");
    let rows: Vec<(&str, &str)> = t[0]
        .rows
        .iter()
        .map(|r| (r.stat.as_deref().unwrap(), r.metric.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("Amean", "System-1"),
            ("Amean", "System-3"),
            ("Amean", "Elapsd-1"),
            ("Amean", "Elapsd-3")
        ]
    );
    assert_eq!(t[0].style, "mmtests");
    assert_eq!(t[0].column_variants, ["p1-batch"]);
}

#[test]
fn reader_wait_is_recorded_after_the_munmap_task_exits() {
    // Under load the reader is granted mmap_lock when munmap releases it,
    // and the run ends when munmap exits: the wait must still count.
    let text = load_scenario("v2-munmap-sections").unwrap();
    let mut sc = text.clone();
    sc.workload.cpu_hogs = 64;
    sc.workload.munmap.as_mut().unwrap().size_gb = vec![20.0];
    sc.variants.truncate(1);
    let r = common::run_scenario(&sc, 60.0, 1, 1);
    let v = &r.variants[0];
    let t = v.metric("munmap-syscall-s-20GB").unwrap();
    let w = v.metric("ps-max-wait-ms-20GB").unwrap() / 1000.0;
    assert!(t > 1.0, "munmap {t} s");
    assert!(w > 0.5 * t, "reader wait {w} s vs munmap {t} s");
    let lock = v
        .locks
        .iter()
        .find(|l| l.class == "&mm->mmap_lock")
        .unwrap();
    assert!((lock.waittime_max_us / 1e6 - w).abs() < 0.01 * w + 0.01);
}

#[test]
fn cpu_count_matters_for_balanced_load() {
    let base = load_scenario("v1-madvise-pte-walk").unwrap();
    let mut four = base.clone();
    four.variants.truncate(1);
    let mut eight = four.clone();
    eight.machine.cpus = 8;
    let a = common::run_scenario(&four, 5.0, 1, 1);
    let b = common::run_scenario(&eight, 5.0, 1, 1);
    let (ma, mb) = (
        a.variants[0].summary.cyclictest_avg_us.unwrap(),
        b.variants[0].summary.cyclictest_avg_us.unwrap(),
    );
    // Four more CPUs take the load off the cyclictest CPUs.
    assert!(mb < ma, "avg with 8 CPUs {mb} vs 4 CPUs {ma}");
    assert_ne!(a.to_text(), b.to_text());
}

#[test]
fn a_change_from_zero_is_not_printed_as_zero_percent() {
    let r = common::run_builtin("v2-munmap-sections", 25.0, 1, 1);
    let t = &r.comparison.table;
    let i = t
        .rows
        .iter()
        .position(|x| x.metric == "mmap_lock-drops-320GB")
        .unwrap();
    let row = &t.rows[i];
    assert_eq!(row.values[0], Some(0.0));
    let c = r
        .variants
        .iter()
        .position(|v| v.name == "sections-contended")
        .unwrap();
    assert!(row.values[c].unwrap() > 0.0);
    assert_eq!(row.printed_deltas_pct[c], None);
    assert_eq!(r.comparison.pct_change[i][c], None);
    let text = r.to_text();
    let (_, cmp) = text.split_once("===== comparison").unwrap();
    let line = cmp
        .lines()
        .find(|l| l.contains("mmap_lock-drops-320GB") && l.starts_with("Amean"))
        .unwrap()
        .to_string();
    assert!(line.contains("from 0"), "{line}");
}
