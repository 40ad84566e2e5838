//! Corpus tests for the latency-signal parsers: every file under
//! `tests/corpus/{cyclictest,histogram,cyclictest_json,rtla,ftrace}/` is
//! parsed with its format's recognizer and checked against values read off
//! the file by hand. Files named `seed*` are blocks cut from the seed mail
//! threads; `docs-*` come from the kernel's ftrace and rtla documentation;
//! `fmt-*` follow the printf formats of rt-tests; `mangled-*` / `quoted-*`
//! are seed blocks damaged the way mailers damage them.
//!
//! Every corpus file must have a case here (checked), and single-report
//! files must give the same result through the streaming parsers.

use std::path::{Path, PathBuf};

use reclaimlab_formats::lines::{self, Line};
use reclaimlab_formats::{
    BlockBody, Cyclictest, FtraceLatency, Limits, ParseError, Rtla, cyclictest, cyclictest_json,
    ftrace, histogram, parse_reader, rtla,
};

type Recognizer = fn(&[Line<'_>], usize) -> Option<Result<(usize, BlockBody), ParseError>>;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn recognizer(dir: &str) -> Recognizer {
    match dir {
        "cyclictest" => cyclictest::recognize,
        "histogram" => histogram::recognize,
        "cyclictest_json" => cyclictest_json::recognize,
        "rtla" => rtla::recognize,
        "ftrace" => ftrace::recognize,
        other => panic!("no recognizer for corpus dir {other}"),
    }
}

/// Every block the format's recognizer finds in the file, with its span.
fn blocks(rel: &str) -> Vec<(usize, usize, BlockBody)> {
    let dir = rel.split('/').next().unwrap();
    let text = std::fs::read_to_string(corpus_dir().join(rel)).unwrap();
    let lines = lines::split(&text);
    let rec = recognizer(dir);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match rec(&lines, i) {
            Some(Ok((n, body))) => {
                assert!(n > 0 && i + n <= lines.len(), "{rel}: bad span {i}+{n}");
                out.push((i, n, body));
                i += n;
            }
            Some(Err(e)) => panic!("{rel}: {e}"),
            None => i += 1,
        }
    }
    assert!(!out.is_empty(), "{rel}: no block recognised");
    out
}

fn one(rel: &str) -> BlockBody {
    let b = blocks(rel);
    assert_eq!(b.len(), 1, "{rel}: expected one block, got {}", b.len());
    b.into_iter().next().unwrap().2
}

fn trace(rel: &str) -> FtraceLatency {
    match one(rel) {
        BlockBody::FtraceLatency(f) => f,
        other => panic!("{rel}: {other:?}"),
    }
}

fn ct(rel: &str) -> Cyclictest {
    match one(rel) {
        BlockBody::Cyclictest(c) => c,
        other => panic!("{rel}: {other:?}"),
    }
}

fn rt(rel: &str) -> Rtla {
    match one(rel) {
        BlockBody::Rtla(r) => r,
        other => panic!("{rel}: {other:?}"),
    }
}

fn maxes(c: &Cyclictest) -> Vec<f64> {
    c.threads.iter().map(|t| t.max_us).collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ------------------------------------------------------------------ ftrace

fn seed000_before() {
    let f = trace("ftrace/seed000-wakeup_rt-before.txt");
    assert_eq!(f.tracer, "wakeup_rt");
    assert_eq!(f.latency_us, 1969.0);
    assert_eq!(f.cpu, Some(1));
    assert_eq!(f.nr_cpus, Some(4));
    assert_eq!(f.preempt_model.as_deref(), Some("preempt_rt"));
    assert_eq!(
        f.kernel.as_deref(),
        Some("6.5.0-rt6-r1208-00003-g999d221864bf")
    );
    assert_eq!(f.entries, Some((6, 6)));
    let t = f.task.as_ref().unwrap();
    assert_eq!((t.comm.as_str(), t.pid), ("cyclictest", 250));
    assert_eq!(
        (t.uid, t.nice, t.policy, t.rt_prio),
        (Some(0), Some(0), Some(1), Some(99))
    );
    assert_eq!(f.flag_columns, Some(8));
    assert_eq!(f.events.len(), 6);
    assert_eq!(f.events[0].flags, "dn.h511");
    assert_eq!(
        (f.events[0].comm.as_str(), f.events[0].pid, f.events[0].cpu),
        ("stress-n", 264, 1)
    );
    assert_eq!(
        f.events[0].text,
        "264:120:R   + [001]     250:  0:R cyclictest"
    );
    assert_eq!(f.events[2].delay_marker, "#");
    assert_eq!(f.events[3].flags, "d...3..");
    assert_eq!(f.events[3].function.as_deref(), Some("__schedule"));
    assert_eq!(f.events[4].delay_marker, "+");
    assert_eq!(f.events[5].time_us, 1968.0);
    assert_eq!(f.stacks.len(), 2);
    assert_eq!(f.stacks[0].len(), 15);
    assert_eq!(f.stacks[1][7], "madvise_cold_or_pageout_pte_range");
    assert_eq!(
        f.culprit.as_deref(),
        Some("madvise_cold_or_pageout_pte_range")
    );
    assert_eq!(
        f.culprit_path.first().map(String::as_str),
        Some("madvise_cold_or_pageout_pte_range")
    );
    assert_eq!(f.culprit_path[1], "walk_pgd_range");
    assert_eq!(
        f.culprit_path.last().map(String::as_str),
        Some("ret_from_exception")
    );
    assert_eq!(f.culprit_path.len(), 10);
}

fn seed000_after() {
    let f = trace("ftrace/seed000-wakeup_rt-after.txt");
    assert_eq!(f.tracer, "wakeup_rt");
    assert_eq!(f.latency_us, 879.0);
    assert_eq!(f.cpu, Some(2));
    assert_eq!(f.nr_cpus, Some(4));
    assert_eq!(f.preempt_model.as_deref(), Some("preempt_rt"));
    assert_eq!(
        f.kernel.as_deref(),
        Some("6.5.0-rt6-r1208-00003-g999d221864bf-dirty")
    );
    let t = f.task.as_ref().unwrap();
    assert_eq!(
        (t.comm.as_str(), t.pid, t.policy, t.rt_prio),
        ("cyclictest", 212, Some(1), Some(99))
    );
    assert_eq!(f.flag_columns, Some(8));
    assert_eq!(f.events.len(), 6);
    assert_eq!(f.events[2].delay_marker, "!");
    assert_eq!(f.culprit.as_deref(), Some("free_unref_page_list"));
    assert_eq!(
        f.culprit_path[..3],
        strings(&[
            "free_unref_page_list",
            "release_pages",
            "free_pages_and_swap_cache"
        ])
    );
    assert!(
        f.culprit_path
            .contains(&"do_vmi_align_munmap.constprop.0".to_string())
    );
}

fn seed003_irqsoff() {
    let f = trace("ftrace/seed003-irqsoff.txt");
    check_seed003(&f);
}

fn check_seed003(f: &FtraceLatency) {
    assert_eq!(f.tracer, "irqsoff");
    assert_eq!(f.latency_us, 77766.0);
    assert_eq!(f.cpu, Some(5));
    assert_eq!(f.nr_cpus, Some(8));
    assert_eq!(f.preempt_model.as_deref(), Some("unknown"));
    assert_eq!(f.kernel.as_deref(), Some("6.12.0.g4236f913-master"));
    assert_eq!(f.entries, Some((12, 12)));
    let t = f.task.as_ref().unwrap();
    assert_eq!(
        (t.comm.as_str(), t.pid, t.policy, t.rt_prio),
        ("kswapd0", 90, Some(0), Some(0))
    );
    assert_eq!(
        f.started_at.as_deref(),
        Some("_raw_spin_lock_irq+0x16/0x40")
    );
    assert_eq!(
        f.ended_at.as_deref(),
        Some("_raw_spin_unlock_irq+0x10/0x30")
    );
    assert_eq!(f.flag_columns, Some(6));
    assert_eq!(f.events.len(), 12);
    let e = &f.events[2];
    assert_eq!(
        (e.flags.as_str(), e.time_us, e.delay_marker.as_str()),
        ("d..1.", 0.0, "*")
    );
    assert_eq!(e.function.as_deref(), Some("isolate_lru_folios"));
    assert_eq!(e.caller.as_deref(), Some("shrink_inactive_list"));
    assert_eq!(f.events[3].time_us, 77765.0);
    assert_eq!(f.stacks.len(), 1);
    assert_eq!(f.stacks[0].len(), 8);
    assert_eq!(f.culprit.as_deref(), Some("isolate_lru_folios"));
    assert_eq!(
        f.culprit_path,
        strings(&[
            "isolate_lru_folios",
            "shrink_inactive_list",
            "shrink_lruvec",
            "shrink_node",
            "balance_pgdat",
            "kswapd",
            "kthread",
            "ret_from_fork",
            "ret_from_fork_asm",
        ])
    );
}

/// A report without the input line numbers its events carry (a mangled
/// copy has other line numbers).
fn without_lines(mut f: FtraceLatency) -> FtraceLatency {
    f.events.iter_mut().for_each(|e| e.line = None);
    for g in &mut f.gaps {
        g.line = 0;
        g.events.iter_mut().for_each(|e| e.line = None);
    }
    f
}

fn mangled_seed003() {
    let f = trace("ftrace/mangled-seed003-irqsoff.txt");
    check_seed003(&f);
    assert_eq!(
        without_lines(f),
        without_lines(trace("ftrace/seed003-irqsoff.txt"))
    );
}

fn docs_irqsoff_nofunc() {
    let f = trace("ftrace/docs-irqsoff-nofunc-5col.txt");
    assert_eq!(
        (f.tracer.as_str(), f.latency_us, f.cpu, f.nr_cpus),
        ("irqsoff", 16.0, Some(0), Some(4))
    );
    assert_eq!(f.preempt_model.as_deref(), Some("preempt"));
    assert_eq!(f.kernel.as_deref(), Some("3.8.0-test+"));
    let t = f.task.as_ref().unwrap();
    assert_eq!((t.comm.as_str(), t.pid), ("swapper/0", 0));
    assert_eq!(f.flag_columns, Some(5));
    assert_eq!(f.events.len(), 4);
    assert_eq!(f.events[0].comm, "<idle>");
    assert_eq!(f.events[0].flags, "d.s2");
    assert_eq!(f.stacks[0].len(), 14);
    // `_raw_spin_lock_irq` precedes the 17 us gap; it is lock plumbing, so its caller.
    assert_eq!(f.culprit.as_deref(), Some("run_timer_softirq"));
    assert_eq!(
        f.culprit_path[..2],
        strings(&["run_timer_softirq", "__do_softirq"])
    );
}

fn docs_preemptoff() {
    let f = trace("ftrace/docs-preemptoff-5col.txt");
    assert_eq!(
        (f.tracer.as_str(), f.latency_us, f.cpu),
        ("preemptoff", 46.0, Some(1))
    );
    assert_eq!(f.task.as_ref().map(|t| t.pid), Some(1991));
    assert_eq!(f.started_at.as_deref(), Some("do_IRQ"));
    assert_eq!(f.events[0].flags, "d.h.");
    // Nothing but interrupt entry and preempt-count plumbing: no culprit.
    assert_eq!(f.culprit, None);
    assert!(f.culprit_path.is_empty());
}

fn docs_preemptirqsoff() {
    let f = trace("ftrace/docs-preemptirqsoff-5col.txt");
    assert_eq!(
        (f.tracer.as_str(), f.latency_us, f.cpu),
        ("preemptirqsoff", 100.0, Some(3))
    );
    assert_eq!(
        f.task.as_ref().map(|t| (t.comm.as_str(), t.pid)),
        Some(("ls", 2230))
    );
    assert_eq!(f.stacks[0].len(), 19);
    assert_eq!(f.culprit.as_deref(), Some("ata_scsi_queuecmd"));
    assert_eq!(f.culprit_path[1], "scsi_dispatch_cmd");
}

fn docs_wakeup_rt_two_tracer_lines() {
    let f = trace("ftrace/docs-wakeup_rt-two-tracer-lines.txt");
    assert_eq!(f.tracer, "wakeup_rt");
    assert_eq!(
        (f.latency_us, f.cpu, f.entries),
        (5.0, Some(3), Some((4, 4)))
    );
    let t = f.task.as_ref().unwrap();
    assert_eq!(
        (t.comm.as_str(), t.pid, t.policy, t.rt_prio),
        ("sleep", 2389, Some(1), Some(5))
    );
    assert_eq!(f.events.len(), 4);
    assert_eq!(f.events[0].text, "0:120:R   + [003]  2389: 94:R sleep");
    assert_eq!(f.events[0].function, None);
    assert_eq!(
        f.events[1].function.as_deref(),
        Some("ttwu_do_activate.constprop.87")
    );
    assert_eq!(f.events[1].caller.as_deref(), Some("try_to_wake_up"));
    assert!(f.stacks.is_empty());
    assert_eq!(f.culprit, None);
}

fn docs_wakeup_rt_events() {
    let f = trace("ftrace/docs-wakeup_rt-events.txt");
    assert_eq!((f.latency_us, f.entries), (6.0, Some((12, 12))));
    assert_eq!(f.events.len(), 12);
    assert!(
        f.events[2]
            .text
            .starts_with("sched_wakeup: comm=sleep pid=5882")
    );
    assert_eq!(f.events[2].function, None);
    assert_eq!(f.events[4].flags, ".N.2");
}

fn docs_irqsoff_function_elided() {
    let f = trace("ftrace/docs-irqsoff-function-elided.txt");
    assert_eq!((f.latency_us, f.entries), (71.0, Some((168, 168))));
    assert_eq!(f.events.len(), 18);
    assert_eq!(
        f.events[4].function.as_deref(),
        Some("ata_find_dev.part.14")
    );
    assert_eq!(f.stacks[0].len(), 25);
    // The 63 us hole hidden by `[...]` is not a gap; `trace_hardirqs_on`
    // (48 us before the stack) is plumbing, so its caller is blamed.
    assert_eq!(f.culprit.as_deref(), Some("ata_scsi_queuecmd"));
}

fn mail_preemptirqsoff_quoted() {
    let b = blocks("ftrace/mail-preemptirqsoff-quoted-6col.txt");
    assert_eq!(b.len(), 1);
    let (start, n, _) = &b[0];
    assert_eq!(
        (*start, *n),
        (0, 32),
        "block stops at the quoted blank line"
    );
    let f = trace("ftrace/mail-preemptirqsoff-quoted-6col.txt");
    assert_eq!(
        (f.tracer.as_str(), f.latency_us, f.cpu, f.nr_cpus),
        ("preemptirqsoff", 7813.0, Some(1), Some(2))
    );
    assert_eq!(
        f.kernel.as_deref(),
        Some("5.15.148-21853-g165fd2387469-dirty")
    );
    assert_eq!(f.entries, Some((60, 60)));
    assert_eq!(f.flag_columns, Some(6));
    assert_eq!(f.events.len(), 4);
    assert_eq!((f.events[0].comm.as_str(), f.events[0].pid), ("<...>", 1));
    assert_eq!(f.events[0].delay_marker, "!");
    assert_eq!(f.stacks[0].len(), 7);
    // The 7.8 ms were spent spinning on the rwsem's owner (started and
    // ended at name it too): the spinner is the culprit, its caller path
    // says who wanted the lock.
    assert_eq!(f.culprit.as_deref(), Some("rwsem_optimistic_spin"));
    assert_eq!(
        f.culprit_path[..3],
        strings(&[
            "rwsem_optimistic_spin",
            "rwsem_down_write_slowpath",
            "copy_process"
        ])
    );
}

fn mail_wrapped_512cpu() {
    let f = trace("ftrace/mail-preemptirqsoff-wrapped-512cpu.txt");
    assert_eq!(
        (f.latency_us, f.cpu, f.nr_cpus),
        (10382682.0, Some(128), Some(512))
    );
    assert_eq!(f.preempt_model.as_deref(), Some("desktop"));
    assert_eq!(f.kernel.as_deref(), Some("6.10.0-rc3-mglru-irqstrc"));
    assert_eq!(f.task.as_ref().map(|t| t.pid), Some(2701523));
    assert_eq!(f.events.len(), 4);
    let e = &f.events[0];
    assert_eq!(
        (e.cpu, e.flags.as_str(), e.delay_marker.as_str()),
        (128, "...1.", "$")
    );
    assert_eq!(
        e.caller.as_deref(),
        Some("deactivate_file_folio"),
        "wrapped `<-caller` line"
    );
    assert_eq!(f.events[1].time_us, 10382681.0);
    assert_eq!(f.stacks[0].len(), 10);
    assert_eq!(f.culprit.as_deref(), Some("deactivate_file_folio"));
    assert_eq!(
        f.culprit_path[..2],
        strings(&["deactivate_file_folio", "mapping_try_invalidate"])
    );
}

fn mail_hash_wrap() {
    let f = trace("ftrace/mail-preemptirqsoff-hash-wrap.txt");
    assert_eq!(
        (f.latency_us, f.cpu, f.nr_cpus),
        (10620430.0, Some(260), Some(512))
    );
    assert_eq!(f.events.len(), 4);
    assert_eq!(f.stacks[0].len(), 13);
    // `_raw_spin_lock <-ilookup` precedes the 10 s gap: the lock's caller.
    assert_eq!(f.culprit.as_deref(), Some("ilookup"));
    assert_eq!(
        f.culprit_path[..2],
        strings(&["ilookup", "blkdev_get_no_open"])
    );
}

// -------------------------------------------------------------- cyclictest

fn seed003_before() {
    let c = ct("cyclictest/seed003-before.txt");
    assert_eq!(c.printed_unit, "us");
    assert_eq!(c.threads.len(), 8);
    let t = &c.threads[0];
    assert_eq!(
        (t.thread, t.tid, t.priority, t.interval_us, t.cycles),
        (0, Some(4541), Some(99), Some(1000), Some(773124))
    );
    assert_eq!(
        (t.min_us, t.act_us, t.avg_us, t.max_us),
        (1.0, Some(6.0), 3.0, 53381.0)
    );
    assert_eq!(
        maxes(&c),
        vec![
            53381.0, 60119.0, 67469.0, 65534.0, 57776.0, 64737.0, 52567.0, 52606.0
        ]
    );
    assert_eq!(c.threads[7].interval_us, Some(4500));
    assert_eq!(c.threads[7].cycles, Some(171799));
}

fn seed003_after() {
    let c = ct("cyclictest/seed003-after.txt");
    check_seed003_after(&c);
}

fn check_seed003_after(c: &Cyclictest) {
    assert_eq!(c.threads.len(), 8);
    assert_eq!(
        maxes(c),
        vec![
            4449.0, 2075.0, 2987.0, 2425.0, 1466.0, 3844.0, 3291.0, 3516.0
        ]
    );
    assert_eq!(c.threads[0].cycles, Some(1031230));
    assert_eq!(c.threads[0].tid, Some(6078));
    assert_eq!(c.threads[2].act_us, Some(334.0));
    assert_eq!(c.threads[5].avg_us, 5.0);
}

fn quoted_wrapped_seed003_after() {
    let c = ct("cyclictest/quoted-wrapped-seed003-after.txt");
    check_seed003_after(&c);
    assert_eq!(c, ct("cyclictest/seed003-after.txt"));
}

fn nonquiet_policy_dma() {
    let b = blocks("cyclictest/fmt-nonquiet-policy-dma.txt");
    assert_eq!((b.len(), b[0].0, b[0].1), (1, 0, 5));
    let c = ct("cyclictest/fmt-nonquiet-policy-dma.txt");
    assert_eq!(c.threads.len(), 2);
    assert_eq!(c.threads[1].policy.as_deref(), Some("fifo"));
    assert_eq!(
        (c.threads[1].cycles, c.threads[1].max_us),
        (Some(39997), 31.0)
    );
}

fn escape_codes() {
    let c = ct("cyclictest/fmt-escape-codes.txt");
    assert_eq!(c.threads.len(), 2);
    assert_eq!(c.threads[0].max_us, 28.0);
}

fn nsecs() {
    let c = ct("cyclictest/fmt-nsecs.txt");
    assert_eq!(c.printed_unit, "ns");
    let t = &c.threads[0];
    assert_eq!(
        (t.min_us, t.act_us, t.avg_us, t.max_us),
        (1.184, Some(2.315), 2.102, 17.446)
    );
    let o = t.original.as_ref().unwrap();
    assert_eq!(
        (o["min"].as_i64(), o["max"].as_i64()),
        (Some(1184), Some(17446))
    );
    assert_eq!(c.threads[1].max_us, 20.391);
}

fn old_spaced() {
    let c = ct("cyclictest/old-spaced-layout.txt");
    let t = &c.threads[0];
    assert_eq!(
        (t.tid, t.priority, t.interval_us, t.cycles),
        (Some(1234), Some(80), Some(1000), Some(1000))
    );
    assert_eq!(
        (t.min_us, t.act_us, t.avg_us, t.max_us),
        (5.0, Some(7.0), 8.0, 30.0)
    );
    assert_eq!(c.printed_unit, "us");
}

fn very_old_compact() {
    let c = ct("cyclictest/very-old-compact-layout.txt");
    assert_eq!(c.threads.len(), 2);
    let t = &c.threads[1];
    assert_eq!(
        (t.tid, t.priority, t.interval_us, t.cycles, t.max_us),
        (Some(1235), Some(79), Some(10500), Some(953), 41.0)
    );
}

fn smi() {
    let c = ct("cyclictest/fmt-smi.txt");
    assert_eq!(c.threads[0].max_us, 19.0);
    assert_eq!(
        c.threads[0].original.as_ref().unwrap()["SMI"].as_i64(),
        Some(2)
    );
}

fn cpu_policy_fields() {
    let c = ct("cyclictest/fmt-cpu-policy-fields.txt");
    assert_eq!(c.threads[0].cpu, Some(2));
    assert_eq!(c.threads[0].policy.as_deref(), Some("rr"));
    assert_eq!(c.threads[0].interval_us, Some(500));
}

// --------------------------------------------------------------- histogram

fn hist_quiet_4threads() {
    let c = ct("histogram/fmt-q-h25-4threads.txt");
    assert!(c.threads.is_empty());
    let h = c.histogram.as_ref().unwrap();
    assert_eq!(h.bucket_us, 1.0);
    assert_eq!(h.per_thread.len(), 4);
    let totals: Vec<_> = h.per_thread.iter().map(|t| t.total).collect();
    assert_eq!(
        totals,
        vec![Some(9275), Some(9945), Some(9061), Some(10634)]
    );
    for t in &h.per_thread {
        let sum: u64 = t.buckets.iter().map(|b| b.1).sum();
        assert_eq!(Some(sum), t.total, "thread {}", t.thread);
        assert!(t.buckets.iter().all(|b| b.1 > 0));
    }
    assert!(h.per_thread[0].buckets.contains(&(1.0, 827)));
    let max: Vec<_> = h.per_thread.iter().map(|t| t.max_us).collect();
    assert_eq!(max, vec![Some(9.0), Some(61.0), Some(9.0), Some(1207.0)]);
    let ovf: Vec<_> = h.per_thread.iter().map(|t| t.overflows).collect();
    assert_eq!(ovf, vec![0, 2, 0, 1]);
    assert_eq!(h.per_thread[1].overflow_cycles, vec![4711, 9001]);
    assert_eq!(h.per_thread[3].overflow_cycles, vec![123]);
    assert_eq!(h.per_thread[2].min_us, Some(1.0));
}

fn hist_allthreads_then_t() {
    let c = ct("histogram/fmt-H-allthreads-then-T.txt");
    assert_eq!(c.threads.len(), 2);
    assert_eq!(c.threads[0].cycles, Some(10957));
    let h = c.histogram.as_ref().unwrap();
    assert_eq!(
        h.per_thread.len(),
        2,
        "the -H all-threads column is not a thread"
    );
    assert_eq!(h.per_thread[0].total, Some(10957));
    assert_eq!(h.per_thread[1].total, Some(10036));
    let sum: u64 = h.per_thread[1].buckets.iter().map(|b| b.1).sum();
    assert_eq!(sum, 10036);
}

// ---------------------------------------------------------- cyclictest_json

fn json_two_threads() {
    let c = ct("cyclictest_json/fmt-2.x-two-threads.json");
    assert_eq!(c.printed_unit, "us");
    assert_eq!(c.rt_tests_version.as_deref(), Some("2.60"));
    assert!(
        c.cmdline
            .as_deref()
            .unwrap()
            .starts_with("cyclictest --mlockall --smp")
    );
    assert_eq!(c.threads.len(), 2);
    let t = &c.threads[0];
    assert_eq!(
        (t.cycles, t.min_us, t.avg_us, t.max_us, t.cpu),
        (Some(299900), 1.0, 1.63, 17.0, Some(0))
    );
    assert_eq!(c.threads[1].cpu, Some(1));
    let h = c.histogram.as_ref().unwrap();
    assert_eq!(
        h.per_thread[0].buckets,
        vec![
            (1.0, 120377),
            (2.0, 172088),
            (3.0, 7101),
            (4.0, 330),
            (9.0, 3),
            (17.0, 1)
        ]
    );
    assert_eq!(h.per_thread[0].total, Some(299900));
    assert_eq!(h.per_thread[1].total, Some(299899));
}

fn json_nsecs() {
    let c = ct("cyclictest_json/fmt-nsecs-no-histogram.json");
    assert_eq!(c.printed_unit, "ns");
    let t = &c.threads[0];
    assert_eq!((t.min_us, t.max_us), (1.873, 48.311));
    assert!((t.avg_us - 2.51427).abs() < 1e-9);
    assert_eq!(t.original.as_ref().unwrap()["max"].as_i64(), Some(48311));
    assert!(c.histogram.is_none());
    assert_eq!(c.rt_tests_version.as_deref(), Some("2.11"));
}

// -------------------------------------------------------------------- rtla

fn timerlat_top_aa() {
    let r = rt("rtla/docs-timerlat-top-aa.txt");
    assert_eq!((r.tool.as_str(), r.mode.as_str()), ("timerlat", "top"));
    assert_eq!(r.per_cpu.len(), 23);
    let c23 = r.per_cpu.last().unwrap();
    assert_eq!((c23.cpu, c23.count), (23, Some(12320)));
    assert_eq!(
        (c23.irq_min_us, c23.irq_avg_us, c23.irq_max_us),
        (Some(0.0), Some(1.0), Some(28.0))
    );
    assert_eq!(
        (c23.thread_min_us, c23.thread_avg_us, c23.thread_max_us),
        (Some(3.0), Some(11.0), Some(41.0))
    );
    assert_eq!(r.per_cpu[0].thread_max_us, Some(31.0));
    let a = r.analysis.as_ref().unwrap();
    assert_eq!(a.cpu, Some(23));
    assert_eq!(a.irq_handler_delay_us, Some(27.49));
    assert_eq!(a.irq_latency_us, Some(28.13));
    assert_eq!(a.blocking_thread.as_deref(), Some("objtool:49256"));
    assert_eq!(a.max_latency_us, Some(41.96));
    assert_eq!(a.stack.len(), 19);
    assert_eq!(a.stack[0], "timerlat_irq");
    assert_eq!(a.stack[7], "cgroup_rstat_flush_locked");
    assert!(
        a.items
            .contains(&("Timerlat IRQ duration".to_string(), 9.59))
    );
    assert!(
        a.items
            .contains(&("Max timerlat IRQ latency from idle".to_string(), 17.48))
    );
}

fn osnoise_top() {
    let r = rt("rtla/docs-osnoise-top.txt");
    assert_eq!((r.tool.as_str(), r.mode.as_str()), ("osnoise", "top"));
    assert_eq!(r.per_cpu.len(), 4);
    let c3 = &r.per_cpu[3];
    assert_eq!((c3.cpu, c3.count), (3, Some(59)));
    let get = |name: &str| c3.fields.iter().find(|f| f.0 == name).map(|f| f.1);
    assert_eq!(get("Noise"), Some(204935.0));
    assert_eq!(get("% CPU Aval"), Some(99.61405));
    assert_eq!(get("Max Single"), Some(33.0));
    assert_eq!(get("Thread"), Some(12.0));
}

fn osnoise_hist() {
    let r = rt("rtla/docs-osnoise-hist.txt");
    assert_eq!((r.tool.as_str(), r.mode.as_str()), ("osnoise", "hist"));
    assert_eq!(r.columns.len(), 12);
    assert_eq!(r.columns[11], "CPU-011");
    assert_eq!(r.histogram.len(), 6);
    assert_eq!(r.histogram[1].0, 10.0);
    assert_eq!(r.histogram[1].1[..3], [12224, 8356, 2912]);
    assert_eq!(r.per_cpu.len(), 12);
    assert_eq!(r.per_cpu[11].count, Some(54880));
    assert!(
        r.per_cpu[11]
            .fields
            .contains(&("cpu_max".to_string(), 50.0))
    );
}

fn timerlat_hist() {
    let r = rt("rtla/docs-timerlat-hist.txt");
    assert_eq!((r.tool.as_str(), r.mode.as_str()), ("timerlat", "hist"));
    assert_eq!(r.columns.len(), 10);
    assert_eq!(r.histogram.len(), 47);
    assert_eq!(r.histogram.last().unwrap().0, 58.0);
    assert_eq!(r.histogram[0].1[0], 276489);
    assert_eq!(r.per_cpu.len(), 5);
    let c1 = &r.per_cpu[1];
    assert_eq!((c1.cpu, c1.count), (1, Some(600002)));
    assert_eq!(
        (c1.irq_max_us, c1.thread_max_us, c1.thread_avg_us),
        (Some(15.0), Some(58.0), Some(5.0))
    );
}

fn aa_tabs() {
    let r = rt("rtla/aa-tabs-thread-case.txt");
    assert_eq!((r.tool.as_str(), r.mode.as_str()), ("timerlat", "analysis"));
    let a = r.analysis.as_ref().unwrap();
    assert_eq!(a.cpu, Some(7));
    assert_eq!(a.irq_handler_delay_us, Some(0.98));
    assert_eq!(a.irq_latency_us, Some(2.95));
    assert_eq!(a.items[0], ("Previous IRQ interference".to_string(), 8.93));
    assert_eq!(a.items.len(), 4);
}

fn markdown_and_short_header() {
    let b = blocks("ftrace/fmt-markdown-escaped-and-short-header.txt");
    assert_eq!(b.len(), 2);
    let BlockBody::FtraceLatency(f) = &b[0].2 else {
        panic!("{:?}", b[0].2)
    };
    assert_eq!(f.started_at.as_deref(), Some("__irq_svc"));
    assert_eq!(f.ended_at.as_deref(), Some("__do_softirq"));
    assert_eq!(f.events.len(), 3);
    assert_eq!(f.events[0].caller.as_deref(), Some("ret_fast"));
    let BlockBody::FtraceLatency(g) = &b[1].2 else {
        panic!("{:?}", b[1].2)
    };
    assert_eq!((g.latency_us, g.nr_cpus), (15.0, Some(24)));
    assert_eq!(g.events.len(), 2);
    assert_eq!(g.stacks.len(), 1);
}

fn hist_footers_first() {
    let b = blocks("histogram/fmt-footers-first-wide-counts.txt");
    let BlockBody::Cyclictest(c) = &b[0].2 else {
        panic!("{:?}", b[0].2)
    };
    assert_eq!((b[0].0, b[0].1), (0, 10));
    let h = c.histogram.as_ref().unwrap();
    assert_eq!(h.per_thread[0].total, Some(2493036));
    assert!(h.per_thread[0].buckets.contains(&(8.0, 2493021)));
}

const CASES: &[(&str, fn())] = &[
    ("ftrace/seed000-wakeup_rt-before.txt", seed000_before),
    ("ftrace/seed000-wakeup_rt-after.txt", seed000_after),
    ("ftrace/seed003-irqsoff.txt", seed003_irqsoff),
    (
        "ftrace/mail-preemptirqsoff-wrapped-512cpu.txt",
        mail_wrapped_512cpu,
    ),
    ("ftrace/mail-preemptirqsoff-hash-wrap.txt", mail_hash_wrap),
    ("ftrace/mangled-seed003-irqsoff.txt", mangled_seed003),
    ("ftrace/docs-irqsoff-nofunc-5col.txt", docs_irqsoff_nofunc),
    ("ftrace/docs-preemptoff-5col.txt", docs_preemptoff),
    ("ftrace/docs-preemptirqsoff-5col.txt", docs_preemptirqsoff),
    (
        "ftrace/docs-wakeup_rt-two-tracer-lines.txt",
        docs_wakeup_rt_two_tracer_lines,
    ),
    ("ftrace/docs-wakeup_rt-events.txt", docs_wakeup_rt_events),
    (
        "ftrace/docs-irqsoff-function-elided.txt",
        docs_irqsoff_function_elided,
    ),
    (
        "ftrace/mail-preemptirqsoff-quoted-6col.txt",
        mail_preemptirqsoff_quoted,
    ),
    ("cyclictest/seed003-before.txt", seed003_before),
    ("cyclictest/seed003-after.txt", seed003_after),
    (
        "cyclictest/quoted-wrapped-seed003-after.txt",
        quoted_wrapped_seed003_after,
    ),
    (
        "cyclictest/fmt-nonquiet-policy-dma.txt",
        nonquiet_policy_dma,
    ),
    ("cyclictest/fmt-escape-codes.txt", escape_codes),
    ("cyclictest/fmt-nsecs.txt", nsecs),
    ("cyclictest/old-spaced-layout.txt", old_spaced),
    ("cyclictest/very-old-compact-layout.txt", very_old_compact),
    ("cyclictest/fmt-smi.txt", smi),
    ("cyclictest/fmt-cpu-policy-fields.txt", cpu_policy_fields),
    ("histogram/fmt-q-h25-4threads.txt", hist_quiet_4threads),
    (
        "histogram/fmt-H-allthreads-then-T.txt",
        hist_allthreads_then_t,
    ),
    ("cyclictest_json/fmt-2.x-two-threads.json", json_two_threads),
    ("cyclictest_json/fmt-nsecs-no-histogram.json", json_nsecs),
    ("rtla/docs-timerlat-top-aa.txt", timerlat_top_aa),
    ("rtla/docs-osnoise-top.txt", osnoise_top),
    ("rtla/docs-osnoise-hist.txt", osnoise_hist),
    ("rtla/docs-timerlat-hist.txt", timerlat_hist),
    ("rtla/aa-tabs-thread-case.txt", aa_tabs),
    (
        "ftrace/fmt-markdown-escaped-and-short-header.txt",
        markdown_and_short_header,
    ),
    (
        "histogram/fmt-footers-first-wide-counts.txt",
        hist_footers_first,
    ),
];

#[test]
fn corpus_cases() {
    for (rel, check) in CASES {
        eprintln!("corpus: {rel}");
        check();
    }
}

/// Every file in the corpus directories has a case above.
pub fn corpus_files() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [
        "cyclictest",
        "histogram",
        "cyclictest_json",
        "rtla",
        "ftrace",
    ] {
        for e in std::fs::read_dir(corpus_dir().join(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            out.push(format!("{dir}/{name}"));
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_file_has_a_case() {
    for f in corpus_files() {
        assert!(
            CASES.iter().any(|(rel, _)| *rel == f),
            "no case for corpus file {f}"
        );
    }
}

/// The one parse path agrees with the recognizers on single reports, with
/// scan windows small enough that the report is handed to its streaming
/// accumulator in the middle (24 and 31 lines: just more than a header)
/// and with the default window.
#[test]
fn streaming_matches_recognizers() {
    for (rel, _) in CASES {
        if !(rel.starts_with("ftrace/")
            || rel.starts_with("cyclictest/")
            || rel.starts_with("histogram/"))
        {
            continue;
        }
        let bytes = std::fs::read(corpus_dir().join(rel)).unwrap();
        let expect = blocks(rel);
        for window_lines in [24, 31, 4096] {
            let limits = Limits {
                window_lines,
                ..Default::default()
            };
            let doc = parse_reader(&bytes[..], None, &limits).unwrap();
            let got: Vec<_> = doc
                .blocks
                .iter()
                .filter(|b| matches!(b.kind(), "ftrace_latency" | "cyclictest"))
                .collect();
            assert_eq!(got.len(), expect.len(), "{rel} window {window_lines}");
            for (b, (i, n, body)) in got.iter().zip(&expect) {
                assert_eq!(&b.body, body, "{rel} window {window_lines}");
                let first = *i as u64 + 1;
                assert_eq!(
                    b.lines,
                    [first, first + *n as u64 - 1],
                    "{rel} window {window_lines}"
                );
            }
        }
    }
}

/// A short trace keeps every event; the longest gap names the culprit's
/// function, with the events around it and its self time.
#[test]
fn seed_irqsoff_gaps_and_functions() {
    let f = trace("ftrace/seed003-irqsoff.txt");
    assert_eq!(f.events.len(), 12);
    assert_eq!(f.events_total, None);
    assert_eq!(f.events[2].line, Some(24));
    let g = &f.gaps[0];
    assert_eq!((g.gap_us, g.event, g.line), (77765.0, 3, 24));
    assert_eq!(g.function.as_deref(), Some("isolate_lru_folios"));
    let lines: Vec<u64> = g.events.iter().filter_map(|e| e.line).collect();
    assert_eq!(lines, (22..=33).collect::<Vec<u64>>());
    assert!(f.gaps.windows(2).all(|w| w[0].gap_us >= w[1].gap_us));
    let top = &f.functions[0];
    assert_eq!(
        (top.function.as_str(), top.count, top.self_us),
        ("isolate_lru_folios", 1, 77765.0)
    );
    let unlock = f
        .functions
        .iter()
        .find(|r| r.function == "_raw_spin_unlock_irq")
        .unwrap();
    assert_eq!(unlock.count, 2);
    assert_eq!(f.functions_other, None);
}
