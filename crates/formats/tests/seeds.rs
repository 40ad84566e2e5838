//! One test per seed thread: every result block of the seed, parsed through
//! the re-written copies in `corpus/mail/seed_*.txt` (the seeds' numbers,
//! traces and tables with new prose around them, keeping each seed's layout:
//! web-archive threads, RFC 822 headers, quoted-printable flattened onto one
//! line, quote levels and attachment separators).

use reclaimlab_formats::{Block, BlockBody, Document, Table, parse};

fn corpus(name: &str) -> Document {
    let path = format!("{}/tests/corpus/mail/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&bytes, Some(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn table(b: &Block) -> &Table {
    match &b.body {
        BlockBody::Table(t) => t,
        other => panic!("expected a table at {:?}, found {}", b.lines, other.kind()),
    }
}

/// A plain table row: metric, values and cells as printed.
type PlainRow<'a> = (&'a str, Vec<Option<f64>>, Vec<&'a str>);

fn non_duplicates(doc: &Document) -> Vec<&Block> {
    doc.blocks
        .iter()
        .filter(|b| b.duplicate_of.is_none())
        .collect()
}

#[test]
fn seed_000_wakeup_rt_before_and_after() {
    let doc = corpus("seed_000.txt");
    assert_eq!(doc.source.format, "mail");
    assert_eq!(doc.blocks.len(), 2, "{:#?}", doc.blocks);
    let expect = [
        (
            "before",
            1969.0,
            "madvise_cold_or_pageout_pte_range",
            1,
            "cyclictest",
            250,
            "6.5.0-rt6-r1208-00003-g999d221864bf",
        ),
        (
            "after",
            879.0,
            "free_unref_page_list",
            2,
            "cyclictest",
            212,
            "6.5.0-rt6-r1208-00003-g999d221864bf-dirty",
        ),
    ];
    for (b, (label, latency, culprit, cpu, comm, pid, kernel)) in doc.blocks.iter().zip(expect) {
        let BlockBody::FtraceLatency(f) = &b.body else {
            panic!("expected ftrace_latency, found {}", b.kind())
        };
        assert_eq!(b.label.as_deref(), Some(label));
        assert_eq!(f.tracer, "wakeup_rt");
        assert_eq!(f.latency_us, latency);
        assert_eq!(f.culprit.as_deref(), Some(culprit));
        assert_eq!(f.cpu, Some(cpu));
        assert_eq!(f.nr_cpus, Some(4));
        assert_eq!(f.preempt_model.as_deref(), Some("preempt_rt"));
        let task = f.task.as_ref().expect("task line");
        assert_eq!((task.comm.as_str(), task.pid), (comm, pid));
        assert_eq!(task.rt_prio, Some(99));
        assert_eq!(b.board.as_deref(), Some("LicheePi 4A"));
        // The report's header names the kernel; the block carries no second copy.
        assert_eq!(f.kernel.as_deref(), Some(kernel));
        assert_eq!(b.kernel, None);
        assert_eq!(b.quote_level, Some(0));
        assert_eq!(b.message, Some(0));
    }
    // Line spans point at the fixture's own lines: the header line to the last frame.
    assert_eq!(doc.blocks[0].lines, [12, 69]);
    let ctx = doc.context.as_ref().unwrap();
    assert_eq!(ctx.messages.len(), 2);
    assert_eq!(ctx.from.as_deref(), Some("Jiexun Wang"));
}

#[test]
fn seed_001_munmap_and_throughput_tables() {
    let doc = corpus("seed_001.txt");
    assert_eq!(doc.blocks.len(), 3, "{:#?}", doc.blocks);
    let ctx = doc.context.as_ref().unwrap();
    assert_eq!(
        ctx.subject.as_deref(),
        Some("[RFC PATCH 1/8] mm: mmap: unmap big mappings in steps")
    );
    assert_eq!(
        ctx.message_id.as_deref(),
        Some("20180321-1-sender@example.org")
    );
    assert_eq!(
        ctx.in_reply_to.as_deref(),
        Some("20180321-0-sender@example.org")
    );
    assert!(
        doc.blocks
            .iter()
            .all(|b| b.board.as_deref() == Some("E5-2680"))
    );

    let munmap = table(&doc.blocks[0]);
    assert_eq!(munmap.style, "plain");
    assert_eq!(
        munmap.title.as_deref(),
        Some("Measurement of SyS_munmap() execution time")
    );
    // `size` labels the rows and `delta` is the mail's own change: the
    // result columns are pristine and patched only.
    assert_eq!(munmap.columns, ["pristine", "patched"]);
    assert_eq!(munmap.label_columns, ["size"]);
    assert_eq!(munmap.delta_columns, ["delta"]);
    let rows: Vec<PlainRow> = munmap
        .rows
        .iter()
        .map(|r| {
            (
                r.metric.as_str(),
                r.values.clone(),
                r.printed.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "size=80GB",
                vec![Some(5008377.0), Some(4905841.0)],
                vec!["5008377 us", "4905841 us"]
            ),
            (
                "size=160GB",
                vec![Some(9129243.0), Some(9145306.0)],
                vec!["9129243 us", "9145306 us"]
            ),
            (
                "size=320GB",
                vec![Some(17915310.0), Some(17990174.0)],
                vec!["17915310 us", "17990174 us"]
            ),
        ]
    );
    assert_eq!(
        munmap
            .rows
            .iter()
            .map(|r| r.printed_deltas_pct.clone())
            .collect::<Vec<_>>(),
        vec![
            vec![None, Some(-2.0)],
            vec![None, Some(0.18)],
            vec![None, Some(0.42)]
        ]
    );
    assert!(munmap.rows.iter().all(|r| r.unit.as_deref() == Some("us")));

    let vmscal = table(&doc.blocks[1]);
    assert_eq!(
        vmscal.title.as_deref(),
        Some("Throughput of page faults (#/s) with vm-scalability")
    );
    assert_eq!(vmscal.columns, ["pristine", "patched"]);
    assert_eq!(vmscal.unit.as_deref(), Some("#/s"));
    type Row<'a> = (&'a str, Vec<Option<f64>>, Vec<Option<f64>>);
    let rows: Vec<Row> = vmscal
        .rows
        .iter()
        .map(|r| {
            (
                r.metric.as_str(),
                r.values.clone(),
                r.printed_deltas_pct.clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "mmap-pread-seq",
                vec![Some(554894.0), Some(563517.0)],
                vec![None, Some(1.6)]
            ),
            (
                "mmap-pread-seq-mt",
                vec![Some(581232.0), Some(580772.0)],
                vec![None, Some(-0.079)]
            ),
            (
                "mmap-xread-seq-mt",
                vec![Some(99182.0), Some(105400.0)],
                vec![None, Some(6.3)]
            ),
        ]
    );

    // One unlabelled row: it is named by the table's title, never by its
    // own first value; the title two lines up (above the command) counts.
    let stress = table(&doc.blocks[2]);
    assert_eq!(stress.columns, ["pristine", "patched"]);
    assert_eq!(stress.rows.len(), 1);
    assert_eq!(
        stress.title.as_deref(),
        Some("Throughput of page faults (#/s) with stress-ng mmap")
    );
    assert_eq!(stress.rows[0].metric, stress.title.clone().unwrap());
    assert_eq!(stress.unit.as_deref(), Some("#/s"));
    assert_eq!(stress.rows[0].values, vec![Some(100165.0), Some(108396.0)]);
    assert_eq!(stress.rows[0].printed_deltas_pct, vec![None, Some(8.2)]);
    assert_eq!(stress.rows[0].printed, ["100165", "108396"]);
}

fn check_seed_002(doc: &Document) {
    assert_eq!(doc.blocks.len(), 2, "{:#?}", doc.blocks);
    let expect = [
        ("before", 49.634, 0.637, 47.434),
        ("after", 46.334, 0.648, 44.265),
    ];
    for (b, (label, real, user, sys)) in doc.blocks.iter().zip(expect) {
        let BlockBody::Time(t) = &b.body else {
            panic!("expected time, found {}", b.kind())
        };
        assert_eq!(b.label.as_deref(), Some(label));
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.sys_s),
            (real, Some(user), Some(sys))
        );
        assert_eq!(t.style.as_deref(), Some("bash"));
        assert_eq!(t.command.as_deref(), Some("./a.out"));
        assert_eq!(b.quote_level, Some(2));
    }
    // Side by side: both runs share one span.
    assert_eq!(doc.blocks[0].lines, doc.blocks[1].lines);
    let ctx = doc.context.as_ref().unwrap();
    assert_eq!(
        ctx.from.as_deref().map(|f| f.starts_with("Barry Song")),
        Some(true)
    );
    assert_eq!(ctx.date.as_deref(), Some("Sat, 24 Feb 2024 11:20:36 +1300"));
    assert_eq!(
        ctx.subject.as_deref(),
        Some("Re: [PATCH RFC] mm: madvise: pageout: ignore references")
    );
}

#[test]
fn seed_002_time_side_by_side_after_qp_flattened() {
    // The archive copy: one line, quoted-printable, soft breaks turned into `= `.
    let doc = corpus("seed_002.txt");
    check_seed_002(&doc);
    assert_eq!(doc.source.lines, 1);
    assert_eq!(doc.blocks[0].lines, [1, 1]);
}

#[test]
fn seed_002_time_side_by_side_after_qp_lines() {
    let doc = corpus("seed_002_lines.txt");
    check_seed_002(&doc);
    // The `real` line to the `sys` line, numbered as in the encoded input.
    assert_eq!(doc.blocks[0].lines, [33, 35]);
}

#[test]
fn seed_003_cyclictest_before_after_and_irqsoff() {
    let doc = corpus("seed_003.txt");
    let before_max = [
        53381.0, 60119.0, 67469.0, 65534.0, 57776.0, 64737.0, 52567.0, 52606.0,
    ];
    let after_max = [
        4449.0, 2075.0, 2987.0, 2425.0, 1466.0, 3844.0, 3291.0, 3516.0,
    ];
    let cyc: Vec<&Block> = non_duplicates(&doc)
        .into_iter()
        .filter(|b| matches!(b.body, BlockBody::Cyclictest(_)))
        .collect();
    let threads = |b: &Block| match &b.body {
        BlockBody::Cyclictest(c) => c.threads.clone(),
        _ => Vec::new(),
    };
    // The two full runs of the first message: sixteen threads.
    let first_two: Vec<&&Block> = cyc.iter().filter(|b| b.message == Some(0)).collect();
    assert_eq!(first_two.len(), 2, "{:#?}", doc.blocks);
    for (b, (label, maxes, tid0, cycles0)) in first_two.iter().zip([
        ("before", before_max, 4541, 773124),
        ("after", after_max, 6078, 1031230),
    ]) {
        let t = threads(b);
        assert_eq!(b.label.as_deref(), Some(label));
        assert_eq!(
            t.iter().map(|t| t.thread).collect::<Vec<_>>(),
            (0..8).collect::<Vec<_>>()
        );
        assert_eq!(t.iter().map(|t| t.max_us).collect::<Vec<_>>(), maxes);
        assert_eq!(t[0].tid, Some(tid0));
        assert_eq!(t[0].cycles, Some(cycles0));
        assert_eq!(t[0].priority, Some(99));
        assert_eq!(t[7].interval_us, Some(4500));
        assert!(t.iter().all(|t| t.min_us == 1.0));
        assert_eq!(b.kernel.as_deref(), Some("6.12.0-rc5"));
        assert_eq!(b.board.as_deref(), Some("i7-4790"));
    }
    assert_eq!(threads(first_two[1])[2].act_us, Some(334.0));

    let irq: Vec<&Block> = doc
        .blocks
        .iter()
        .filter(|b| b.kind() == "ftrace_latency")
        .collect();
    assert_eq!(irq.len(), 1);
    let BlockBody::FtraceLatency(f) = &irq[0].body else {
        unreachable!()
    };
    assert_eq!(f.tracer, "irqsoff");
    assert_eq!(f.latency_us, 77766.0);
    assert_eq!(f.cpu, Some(5));
    assert_eq!(f.nr_cpus, Some(8));
    let task = f.task.as_ref().unwrap();
    assert_eq!((task.comm.as_str(), task.pid), ("kswapd0", 90));
    assert_eq!(f.culprit.as_deref(), Some("isolate_lru_folios"));
    assert_eq!(f.kernel.as_deref(), Some("6.12.0.g4236f913-master"));
    assert_eq!(irq[0].kernel, None);

    // The reply quotes one new run and one line of the "after" run.
    let quoted: Vec<&Block> = doc
        .blocks
        .iter()
        .filter(|b| b.quote_level == Some(1))
        .collect();
    assert_eq!(quoted.len(), 2, "{:#?}", doc.blocks);
    assert_eq!(threads(quoted[0])[0].max_us, 66696.0);
    assert_eq!(quoted[0].label.as_deref(), Some("before"));
    assert_eq!(quoted[0].duplicate_of, None);
    assert_eq!(threads(quoted[1])[0].max_us, 4449.0);
    assert_eq!(quoted[1].label.as_deref(), Some("after"));
    let after_index = doc
        .blocks
        .iter()
        .position(|b| std::ptr::eq(b, *first_two[1]))
        .unwrap();
    assert_eq!(quoted[1].duplicate_of, Some(after_index));
    assert_eq!(doc.blocks.len(), 5);
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

struct MmTable {
    title: Option<&'static str>,
    variants: [&'static str; 2],
    rows: &'static [(&'static str, &'static str, [f64; 4])],
}

/// Every mmtests table of seed 004: first line (in the fixture), title, kernels/variants, rows `(stat, metric, [value, delta]...)`.
const SEED_004_TABLES: &[MmTable] = &[
    MmTable {
        title: None,
        variants: ["vanilla", "batch-v1"],
        rows: &[
            ("Amean", "System-1", [260.53, 0.00, 192.98, 25.93]),
            ("Amean", "System-3", [179.59, 0.00, 198.33, -10.43]),
            ("Amean", "System-5", [205.71, 0.00, 105.22, 48.85]),
            ("Amean", "System-7", [146.46, 0.00, 97.79, 33.23]),
            ("Amean", "System-8", [275.37, 0.00, 149.39, 45.75]),
            ("Amean", "Elapsd-1", [292.89, 0.00, 219.95, 24.90]),
            ("Amean", "Elapsd-3", [69.47, 0.00, 79.02, -13.74]),
            ("Amean", "Elapsd-5", [54.12, 0.00, 29.88, 44.79]),
            ("Amean", "Elapsd-7", [34.28, 0.00, 24.06, 29.81]),
            ("Amean", "Elapsd-8", [57.98, 0.00, 33.34, 42.50]),
        ],
    },
    MmTable {
        title: Some("xfsio Time"),
        variants: ["vanilla", "batch-v1r18"],
        rows: &[
            (
                "Amean",
                "pwrite-single-rewrite-async-System",
                [49.19, 0.00, 49.49, -0.60],
            ),
            (
                "Amean",
                "pwrite-single-rewrite-async-Elapsd",
                [322.87, 0.00, 322.72, 0.05],
            ),
        ],
    },
    MmTable {
        title: None,
        variants: ["batch-v1", "ramdisknonrot-v1"],
        rows: &[
            ("Amean", "System-1", [192.98, 0.00, 181.00, 6.21]),
            ("Amean", "System-3", [198.33, 0.00, 86.19, 56.54]),
            ("Amean", "System-5", [105.22, 0.00, 67.43, 35.91]),
            ("Amean", "System-7", [97.79, 0.00, 89.55, 8.42]),
            ("Amean", "System-8", [149.39, 0.00, 102.92, 31.11]),
            ("Amean", "Elapsd-1", [219.95, 0.00, 209.23, 4.88]),
            ("Amean", "Elapsd-3", [79.02, 0.00, 36.93, 53.26]),
            ("Amean", "Elapsd-5", [29.88, 0.00, 19.52, 34.69]),
            ("Amean", "Elapsd-7", [24.06, 0.00, 21.93, 8.84]),
            ("Amean", "Elapsd-8", [33.34, 0.00, 23.63, 29.12]),
        ],
    },
    MmTable {
        title: None,
        variants: ["ramdisknonrot-v1", "waitqueue-v1"],
        rows: &[
            ("Min", "Elapsd-8", [18.31, 0.00, 28.32, -54.67]),
            ("Amean", "System-1", [181.00, 0.00, 179.61, 0.77]),
            ("Amean", "System-3", [86.19, 0.00, 68.91, 20.05]),
            ("Amean", "System-5", [67.43, 0.00, 93.09, -38.05]),
            ("Amean", "System-7", [89.55, 0.00, 90.98, -1.60]),
            ("Amean", "System-8", [102.92, 0.00, 299.81, -191.30]),
            ("Amean", "Elapsd-1", [209.23, 0.00, 210.41, -0.57]),
            ("Amean", "Elapsd-3", [36.93, 0.00, 33.89, 8.25]),
            ("Amean", "Elapsd-5", [19.52, 0.00, 25.19, -29.08]),
            ("Amean", "Elapsd-7", [21.93, 0.00, 18.45, 15.88]),
            ("Amean", "Elapsd-8", [23.63, 0.00, 48.80, -106.51]),
        ],
    },
    MmTable {
        title: None,
        variants: ["ramdisknonrot-v1", "waitqueue-v1"],
        rows: &[
            (
                "Min",
                "pwrite-single-rewrite-async-System",
                [3.12, 0.00, 3.06, 1.92],
            ),
            (
                "Min",
                "pwrite-single-rewrite-async-Elapsd",
                [3.25, 0.00, 3.17, 2.46],
            ),
            (
                "Amean",
                "pwrite-single-rewrite-async-System",
                [3.32, 0.00, 3.23, 2.67],
            ),
            (
                "Amean",
                "pwrite-single-rewrite-async-Elapsd",
                [3.42, 0.00, 3.33, 2.71],
            ),
        ],
    },
    MmTable {
        title: Some("usemem"),
        variants: ["waitqueue-v1", "directcongest-v1"],
        rows: &[
            ("Amean", "System-1", [179.61, 0.00, 202.21, -12.58]),
            ("Amean", "System-3", [68.91, 0.00, 105.14, -52.59]),
            ("Amean", "System-5", [93.09, 0.00, 80.98, 13.01]),
            ("Amean", "System-7", [90.98, 0.00, 81.07, 10.90]),
            ("Amean", "System-8", [299.81, 0.00, 227.08, 24.26]),
            ("Amean", "Elapsd-1", [210.41, 0.00, 236.56, -12.43]),
            ("Amean", "Elapsd-3", [33.89, 0.00, 46.78, -38.06]),
            ("Amean", "Elapsd-5", [25.19, 0.00, 23.33, 7.38]),
            ("Amean", "Elapsd-7", [18.45, 0.00, 17.18, 6.91]),
            ("Amean", "Elapsd-8", [48.80, 0.00, 38.09, 21.93]),
        ],
    },
    MmTable {
        title: None,
        variants: ["waitqueue-v1r24", "directcongest-v1r24"],
        rows: &[
            (
                "Amean",
                "pwrite-single-rewrite-async-System",
                [3.23, 0.00, 3.21, 0.80],
            ),
            (
                "Amean",
                "pwrite-single-rewrite-async-Elapsd",
                [3.33, 0.00, 3.31, 0.67],
            ),
        ],
    },
];

/// The four duration tables: variants and `[User, System, Elapsed]` per column.
const SEED_004_DURATIONS: &[([&str; 2], [[f64; 2]; 3])] = &[
    (
        ["amdisknonrot-v1", "waitqueue-v1"],
        [[473.24, 462.40], [3690.20, 5127.32], [2186.05, 2364.08]],
    ),
    (
        ["ramdisknonrot-v1", "waitqueue-v1"],
        [[9.06, 8.76], [402.67, 392.31], [416.91, 406.29]],
    ),
    (
        ["waitqueue-v1", "directcongest-v1"],
        [[462.40, 468.18], [5127.32, 4875.92], [2364.08, 2539.77]],
    ),
    (
        ["waitqueue-v1", "directcongest-v1"],
        [[8.76, 9.25], [392.31, 389.10], [406.29, 403.74]],
    ),
];

#[test]
fn seed_004_seven_mmtests_tables_and_four_durations() {
    let doc = corpus("seed_004.txt");
    assert_eq!(doc.blocks.len(), 11, "{:#?}", doc.blocks);
    let mm: Vec<&Table> = doc
        .blocks
        .iter()
        .map(table)
        .filter(|t| t.style == "mmtests")
        .collect();
    let dur: Vec<&Table> = doc
        .blocks
        .iter()
        .map(table)
        .filter(|t| t.style == "duration")
        .collect();
    assert_eq!(mm.len(), 7);
    assert_eq!(dur.len(), 4);
    for (got, want) in mm.iter().zip(SEED_004_TABLES) {
        assert_eq!(got.title.as_deref(), want.title);
        assert_eq!(got.column_kernels, ["4.8.0-rc5", "4.8.0-rc5"]);
        assert_eq!(got.column_variants, want.variants);
        assert_eq!(got.columns, want.variants.map(|v| format!("4.8.0-rc5 {v}")));
        assert_eq!(got.rows.len(), want.rows.len());
        for (r, (stat, metric, [v1, d1, v2, d2])) in got.rows.iter().zip(want.rows) {
            assert_eq!(r.stat.as_deref(), Some(*stat));
            assert_eq!(r.metric, *metric);
            assert_eq!(r.values, vec![Some(*v1), Some(*v2)], "{metric}");
            assert_eq!(r.printed_deltas_pct, vec![Some(*d1), Some(*d2)], "{metric}");
        }
    }
    // Cells as printed, spacing and sign included.
    assert_eq!(
        mm[3].rows[5].printed,
        ["102.92 (  0.00%)", "299.81 (-191.30%)"]
    );
    for (got, (variants, values)) in dur.iter().zip(SEED_004_DURATIONS) {
        // The first one keeps the truncated `amdisknonrot-v1` header as printed.
        assert_eq!(got.column_variants, variants);
        let names: Vec<&str> = got.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(names, ["User", "System", "Elapsed"]);
        for (r, [a, b]) in got.rows.iter().zip(values) {
            assert_eq!(r.values, vec![Some(*a), Some(*b)]);
        }
    }
    assert!(
        doc.blocks
            .iter()
            .all(|b| b.kernel.as_deref() == Some("4.8.0-rc5"))
    );
    let ctx = doc.context.as_ref().unwrap();
    assert_eq!(ctx.messages.len(), 6);
    assert_eq!(
        ctx.messages[3].subject.as_deref(),
        Some("[PATCH 3/4] mm, vmscan: Stall kswapd if contending on tree_lock")
    );
    assert_eq!(doc.blocks[3].message, Some(3));
}

/// An ftrace block whose mail names a kernel round-trips through JSON: the
/// block-level hint and the report's own `kernel` never both appear.
#[test]
fn ftrace_kernel_hint_does_not_collide_with_the_report_kernel() {
    let trace = include_str!("corpus/ftrace/seed003-irqsoff.txt");
    for header in [true, false] {
        // Without its header line the report names no kernel; the mail's does.
        let body: String = if header {
            trace.to_string()
        } else {
            trace
                .lines()
                .filter(|l| !l.contains("latency trace v1.1.5 on"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mail = format!(
            "From: a@example.org\nSubject: test\nMessage-ID: <x@example.org>\n\nOn 6.12.0-rc5 (i7-4790), before the patch:\n\n{body}\n"
        );
        let doc = reclaimlab_formats::parse(mail.as_bytes(), None).unwrap();
        let json = serde_json::to_string(&doc).unwrap();
        let back: reclaimlab_formats::Document = serde_json::from_str(&json).expect("round trip");
        assert_eq!(back, doc);
        let b = doc
            .blocks
            .iter()
            .find(|b| b.kind() == "ftrace_latency")
            .expect("trace found");
        assert!(b.kernel.is_none());
        let reclaimlab_formats::BlockBody::FtraceLatency(t) = &b.body else {
            unreachable!()
        };
        let want = if header {
            "6.12.0.g4236f913-master"
        } else {
            "6.12.0-rc5"
        };
        assert_eq!(t.kernel.as_deref(), Some(want));
    }
}
