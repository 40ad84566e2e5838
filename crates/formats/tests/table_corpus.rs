//! Table-driven corpus test: each case names a file under `tests/corpus/`,
//! the detected format, the block count, and values picked out of the JSON
//! document by JSON pointer. A new real-world variant is a new file plus a
//! row here.

use reclaimlab_formats::{ErrorKind, parse, parse_str};
use serde_json::{Value, json};

struct Case {
    file: &'static str,
    format: &'static str,
    blocks: usize,
    checks: &'static [(&'static str, &'static str)],
}

/// `(JSON pointer, expected value as JSON text)`.
const CASES: &[Case] = &[
    Case {
        file: "mmtests/three_kernels.txt",
        format: "mmtests",
        blocks: 1,
        checks: &[
            ("/blocks/0/style", r#""mmtests""#),
            ("/blocks/0/title", r#""pgbench""#),
            (
                "/blocks/0/columns",
                r#"["6.8.0 vanilla", "6.9.0 vanilla", "6.9.0 mglru-off-v2"]"#,
            ),
            ("/blocks/0/rows/0/stat", r#""Hmean""#),
            ("/blocks/0/rows/0/metric", r#""1""#),
            ("/blocks/0/rows/0/values", "[12034.55, 11987.1, 12250.01]"),
            ("/blocks/0/rows/0/printed_deltas_pct", "[0.0, -0.39, 1.79]"),
            ("/blocks/0/rows/1/printed_deltas_pct", "[0.0, -2.74, 2.23]"),
            (
                "/blocks/0/rows/1/printed",
                r#"["40110.02 (   0.00%)", "39012.44 *  -2.74%*", "41002.98 (   2.23%)"]"#,
            ),
            ("/blocks/0/rows/4/stat", r#""BAmean-50""#),
            ("/blocks/0/rows/6/stat", r#""Amean""#),
            ("/blocks/0/rows/6/metric", r#""95""#),
            ("/blocks/0/rows/6/values", "[1.25, 1.31, null]"),
            ("/blocks/0/rows/6/printed_deltas_pct", "[0.0, -4.8, null]"),
        ],
    },
    Case {
        file: "mmtests/variants_only.txt",
        format: "mmtests",
        blocks: 1,
        checks: &[
            ("/blocks/0/columns", r#"["vanilla", "patched"]"#),
            ("/blocks/0/column_variants", r#"["vanilla", "patched"]"#),
            ("/blocks/0/rows/2/stat", r#""Max""#),
            ("/blocks/0/rows/2/values", "[12.21, 10.02]"),
            ("/blocks/0/rows/2/printed_deltas_pct", "[0.0, 17.94]"),
        ],
    },
    Case {
        file: "mmtests/duration.txt",
        format: "mmtests",
        blocks: 1,
        checks: &[
            ("/blocks/0/style", r#""duration""#),
            ("/blocks/0/kernel", r#""6.9.0-rc1""#),
            ("/blocks/0/rows/1/metric", r#""System""#),
            ("/blocks/0/rows/2/values", "[2186.05, 2101.47]"),
        ],
    },
    Case {
        file: "lkp/vm_scalability.txt",
        format: "lkp",
        blocks: 1,
        checks: &[
            ("/blocks/0/lines", "[9, 18]"),
            ("/blocks/0/style", r#""lkp""#),
            (
                "/blocks/0/columns",
                r#"["1a2b3c4d5e6f7a8b", "9f8e7d6c5b4a39281706f5e4d3c"]"#,
            ),
            ("/blocks/0/rows/0/metric", r#""vm-scalability.median""#),
            ("/blocks/0/rows/0/values", "[128617.0, 89267.0]"),
            ("/blocks/0/rows/0/spread_pct", "[2.0, 4.0]"),
            ("/blocks/0/rows/0/printed_deltas_pct", "[null, -30.6]"),
            ("/blocks/0/rows/2/metric", r#""vm-scalability.throughput""#),
            ("/blocks/0/rows/2/spread_pct", "[null, 2.0]"),
            ("/blocks/0/rows/3/values", "[7967000000.0, 7082000000.0]"),
            ("/blocks/0/rows/4/printed_deltas_pct", "[null, 61380.1]"),
            ("/blocks/0/rows/4/spread_pct", "[160.0, 185.0]"),
            ("/blocks/0/rows/5/printed_deltas_pct", "[null, null]"),
            ("/blocks/0/rows/5/values", "[3.32, 4.82]"),
        ],
    },
    Case {
        file: "lkp/header_only.txt",
        format: "lkp",
        blocks: 1,
        checks: &[
            (
                "/blocks/0/rows/0/metric",
                r#""will-it-scale.per_thread_ops""#,
            ),
            ("/blocks/0/rows/0/printed_deltas_pct", "[null, -37.0]"),
        ],
    },
    Case {
        file: "plain/units.txt",
        format: "plain",
        blocks: 1,
        checks: &[
            ("/blocks/0/title", r#""Compaction latency per order""#),
            ("/blocks/0/columns", r#"["base", "patched"]"#),
            ("/blocks/0/label_columns", r#"["order"]"#),
            ("/blocks/0/delta_columns", r#"["speedup"]"#),
            ("/blocks/0/rows/2/metric", r#""order=9""#),
            ("/blocks/0/rows/2/printed", r#"["2.4s", "1.1s"]"#),
            ("/blocks/0/rows/2/values", "[2.4, 1.1]"),
            ("/blocks/0/rows/2/unit", r#""s""#),
            ("/blocks/0/rows/0/unit", r#""ms""#),
        ],
    },
    Case {
        file: "plain/label_column.txt",
        format: "plain",
        blocks: 1,
        checks: &[
            ("/blocks/0/rows/2/metric", r#""threads=64""#),
            ("/blocks/0/rows/2/values", "[201334.0, 260001.0]"),
            ("/blocks/0/columns", r#"["vanilla", "patched"]"#),
        ],
    },
    Case {
        file: "plain/vmstat.txt",
        format: "plain",
        blocks: 1,
        checks: &[
            ("/blocks/0/lines", "[2, 4]"),
            ("/blocks/0/columns/16", r#""st""#),
            ("/blocks/0/rows/1/values/7", "64.0"),
            ("/blocks/0/rows/1/values/15", "10.0"),
        ],
    },
    Case {
        file: "time/bash.txt",
        format: "time",
        blocks: 1,
        checks: &[
            ("/blocks/0/real_s", "49.634"),
            ("/blocks/0/user_s", "0.637"),
            ("/blocks/0/sys_s", "47.434"),
            ("/blocks/0/style", r#""bash""#),
        ],
    },
    Case {
        file: "time/gnu_default.txt",
        format: "time",
        blocks: 1,
        checks: &[
            ("/blocks/0/lines", "[1, 2]"),
            ("/blocks/0/real_s", "49.63"),
            ("/blocks/0/style", r#""gnu""#),
        ],
    },
    Case {
        file: "time/gnu_verbose.txt",
        format: "time",
        blocks: 1,
        checks: &[
            ("/blocks/0/real_s", "49.63"),
            ("/blocks/0/user_s", "0.63"),
            ("/blocks/0/command", r#""./a.out""#),
            ("/blocks/0/style", r#""gnu-verbose""#),
            (
                "/blocks/0/fields/2",
                r#"["Maximum resident set size (kbytes)", 524532.0]"#,
            ),
        ],
    },
    Case {
        file: "time/zsh.txt",
        format: "time",
        blocks: 1,
        checks: &[
            ("/blocks/0/real_s", "49.634"),
            ("/blocks/0/command", r#""./a.out""#),
        ],
    },
    Case {
        file: "time/two_runs.txt",
        format: "time",
        blocks: 2,
        checks: &[
            ("/blocks/0/real_s", "62.5"),
            ("/blocks/1/real_s", "58.125"),
            ("/blocks/0/label", r#""before""#),
            ("/blocks/1/label", r#""after""#),
            ("/blocks/1/lines", "[2, 4]"),
        ],
    },
    Case {
        file: "metrics/stress_ng_brief.txt",
        format: "metrics",
        blocks: 1,
        checks: &[
            ("/blocks/0/tool", r#""stress-ng""#),
            ("/blocks/0/lines", "[3, 6]"),
            (
                "/blocks/0/metrics/0",
                r#"{"name": "cpu bogo ops", "value": 195446.0, "unit": "ops"}"#,
            ),
            (
                "/blocks/0/metrics/10/name",
                r#""vm bogo ops/s (real time)""#,
            ),
            ("/blocks/0/metrics/10/value", "398.29"),
        ],
    },
    Case {
        file: "metrics/stress_ng_journal.txt",
        format: "metrics",
        blocks: 1,
        checks: &[
            (
                "/blocks/0/metrics/7",
                r#"{"name": "mmap RSS Max", "value": 7504.0, "unit": "KB"}"#,
            ),
            ("/blocks/0/metrics/8/name", r#""mmap page faults per sec""#),
            ("/blocks/0/metrics/8/value", "600923.8"),
        ],
    },
    Case {
        file: "metrics/perf_stat.txt",
        format: "metrics",
        blocks: 1,
        checks: &[
            ("/blocks/0/tool", r#""perf-stat""#),
            (
                "/blocks/0/metrics/0",
                r#"{"name": "task-clock", "value": 47430.12, "unit": "msec"}"#,
            ),
            ("/blocks/0/metrics/4/name", r#""cycles""#),
            ("/blocks/0/metrics/4/value", "151776384021.0"),
            (
                "/blocks/0/metrics/6",
                r#"{"name": "time elapsed", "value": 49.634, "unit": "s"}"#,
            ),
            ("/blocks/0/metrics/8/name", r#""sys""#),
        ],
    },
    Case {
        file: "metrics/usemem.txt",
        format: "metrics",
        blocks: 1,
        checks: &[
            ("/blocks/0/tool", r#""vm-scalability""#),
            (
                "/blocks/0/metrics/2",
                r#"{"name": "usemem[1] throughput", "value": 1818233.0, "unit": "KB/s"}"#,
            ),
            ("/blocks/0/metrics/6/name", r#""usemem[1] free time""#),
        ],
    },
    Case {
        file: "mail/mbox_two_messages.txt",
        format: "mail",
        blocks: 3,
        checks: &[
            (
                "/context/messages/1/in_reply_to",
                r#""v2-alice@example.org""#,
            ),
            (
                "/context/messages/1/from",
                r#""kernel test robot <lkp@intel.com>""#,
            ),
            // Quoted-printable soft breaks joined: the row keeps its first line number.
            ("/blocks/0/lines", "[12, 16]"),
            ("/blocks/0/label", r#""before""#),
            ("/blocks/0/board", r#""Xeon Gold 6348""#),
            (
                "/blocks/0/metrics/3",
                r#"{"name": "mlockmany sys time", "value": 9524.58, "unit": "s"}"#,
            ),
            ("/blocks/1/label", r#""after""#),
            ("/blocks/1/metrics/4/value", "26836.08"),
            ("/blocks/2/style", r#""lkp""#),
            ("/blocks/2/message", "1"),
            ("/blocks/2/rows/2/values", "[0.37, 2.25]"),
        ],
    },
    Case {
        file: "mail/broken_block.txt",
        format: "mail",
        blocks: 1,
        checks: &[
            ("/warnings/0/line", "11"),
            ("/blocks/0/kind", r#""time""#),
            ("/blocks/0/real_s", "12.001"),
        ],
    },
    // https://lore.kernel.org/r/c633b107-845a-1c70-b8bb-5d4163bfa274@linux.alibaba.com
    // (quoting Daniel Jordan's thpscale run): newer compare-kernels prints
    // `Duration User` and the vmstat `Ops ...` section.
    Case {
        file: "mmtests/lore-thpscale-duration-ops.txt",
        format: "mmtests",
        blocks: 2,
        checks: &[
            ("/blocks/0/style", r#""duration""#),
            ("/blocks/0/rows/0/metric", r#""User""#),
            ("/blocks/0/rows/0/values", "[93.79, 93.26, 93.61, 97.02]"),
            ("/blocks/0/rows/2/metric", r#""Elapsed""#),
            ("/blocks/1/style", r#""mmtests""#),
            ("/blocks/1/columns/0", r#""thp base1""#),
            ("/blocks/1/rows/0/metric", r#""Ops Minor Faults""#),
            ("/blocks/1/rows/0/values/0", "2532126.0"),
            ("/blocks/1/rows/11/metric", r#""Ops Kswapd pages scanned""#),
            ("/blocks/1/rows/11/values/1", "3517190.0"),
            ("/blocks/1/rows/14/metric", r#""Ops Kswapd efficiency %""#),
            ("/blocks/1/rows/14/values/2", "0.6"),
        ],
    },
    // https://lore.kernel.org/r/20241022192451.38138-13-ryncsn@gmail.com:
    // GNU time's default two lines, m:ss elapsed, no `swaps`.
    Case {
        file: "time/lore-kairui-gnu-default-two-runs.txt",
        format: "time",
        blocks: 2,
        checks: &[
            ("/blocks/0/style", r#""gnu""#),
            ("/blocks/0/real_s", "2382.9"),
            ("/blocks/0/user_s", "114.44"),
            ("/blocks/0/sys_s", "29.11"),
            ("/blocks/0/fields/0", r#"["Percent of CPU", 6.0]"#),
            ("/blocks/0/fields/3", r#"["maxresident", 157284.0]"#),
            ("/blocks/1/real_s", "2291.77"),
            ("/blocks/1/fields/7", r#"["minor", 4238110.0]"#),
        ],
    },
    // https://lore.kernel.org/r/20241022192451.38138-1-ryncsn@gmail.com
    // (the cover letter): the same runs without the avgtext part.
    Case {
        file: "time/lore-kairui-gnu-default-short.txt",
        format: "time",
        blocks: 2,
        checks: &[
            ("/blocks/0/real_s", "2382.9"),
            ("/blocks/0/fields/0", r#"["Percent of CPU", 6.0]"#),
            ("/blocks/0/fields/1", r#"["inputs", 2901232.0]"#),
            ("/blocks/1/real_s", "2291.77"),
            ("/blocks/1/sys_s", "23.81"),
        ],
    },
    // GNU time 1.9 (Debian): `/usr/bin/time perf bench sched pipe -l 5000`.
    Case {
        file: "time/tool-gnu-time-default.txt",
        format: "time",
        blocks: 1,
        checks: &[
            ("/blocks/0/real_s", "0.02"),
            ("/blocks/0/user_s", "0.01"),
            ("/blocks/0/fields/3", r#"["maxresident", 12040.0]"#),
        ],
    },
];

fn load(file: &str) -> Vec<u8> {
    let path = format!("{}/tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn corpus_cases() {
    for case in CASES {
        let doc = parse(&load(case.file), Some(case.file))
            .unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let v = serde_json::to_value(&doc).unwrap();
        assert_eq!(doc.source.format, case.format, "{}", case.file);
        assert_eq!(
            doc.blocks.len(),
            case.blocks,
            "{}: {:#?}",
            case.file,
            doc.blocks
        );
        for (pointer, want) in case.checks {
            let want: Value = serde_json::from_str(want).unwrap_or_else(|e| panic!("{want}: {e}"));
            assert_eq!(v.pointer(pointer), Some(&want), "{} {pointer}", case.file);
        }
    }
}

#[test]
fn every_corpus_file_of_mine_is_in_the_table() {
    for dir in ["mmtests", "lkp", "plain", "time", "metrics"] {
        let path = format!("{}/tests/corpus/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&path).unwrap() {
            let name = format!("{dir}/{}", entry.unwrap().file_name().to_string_lossy());
            assert!(CASES.iter().any(|c| c.file == name), "{name} has no case");
        }
    }
}

#[test]
fn unrecognised_input_is_415_shaped() {
    let e = parse_str("just some prose\nwith no numbers in it\n", None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unrecognized);
    assert_eq!(e.line, 1);
    assert_eq!(e.format, "unknown");
    let e = parse(b"", None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unrecognized);
}

#[test]
fn broken_single_format_input_is_422_shaped_with_its_line() {
    let text = "                   vanilla   patched\nAmean   x   1.00 (  0.00%)   2.00 ( -100.00%)\nAmean   y   1.00 (  0.00%)\n";
    let e = parse_str(text, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert_eq!((e.format, e.line), ("mmtests", 3));
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["kind"], json!("invalid"));
    let e = parse_str(
        "\tCommand being timed: \"x\"\n\tUser time (seconds): 0.10\n",
        None,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.format), (ErrorKind::Invalid, "time"));
}

#[test]
fn limits_are_too_large_errors() {
    let long = "x".repeat(reclaimlab_formats::MAX_LINE_LEN + 1);
    let e = parse_str(&format!("real 0m1.0s\n{long}\n"), None).unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::TooLarge, 2));
    let many = "real 0m1.000s\n\n".repeat(reclaimlab_formats::MAX_BLOCKS + 1);
    let e = parse_str(&many, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooLarge);
}

#[test]
fn several_formats_in_plain_text() {
    let text = "before:\nreal 0m2.000s\nuser 0m0.100s\nsys 0m1.500s\n\nafter:\n0.10user 1.20system 0:01.50elapsed 86%CPU (0avgtext+0avgdata 1000maxresident)k\n";
    let doc = parse_str(text, None).unwrap();
    assert_eq!(doc.source.format, "time");
    let labels: Vec<_> = doc.blocks.iter().map(|b| b.label.as_deref()).collect();
    assert_eq!(labels, [Some("before"), Some("after")]);
    let text = "real 0m2.000s\n\n         %stddev     %change         %stddev\n     1 ±  2%     +1.0%      2 ±  3%  a.b\n";
    assert_eq!(parse_str(text, None).unwrap().source.format, "text");
}
