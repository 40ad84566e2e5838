//! The counter, lock-contention, distribution, profile, will-it-scale and
//! microbenchmark recognizers never panic and never claim lines that are not
//! there: arbitrary bytes, lines built from each format's own alphabet, and
//! real samples with lines dropped, repeated or cut.

use proptest::prelude::*;
use reclaimlab_formats::lines::{Line, split};
use reclaimlab_formats::{
    BlockBody, ParseError, counters, distribution, microbench, parse, perf_lock, profile,
    willitscale,
};

type Recognizer = fn(&[Line<'_>], usize) -> Option<Result<(usize, BlockBody), ParseError>>;

const RECOGNIZERS: &[(&str, Recognizer)] = &[
    ("counters", counters::recognize),
    ("perf_lock", perf_lock::recognize),
    ("distribution", distribution::recognize),
    ("profile", profile::recognize),
    ("willitscale", willitscale::recognize),
    ("microbench", microbench::recognize),
];

fn check_all(text: &str) {
    let lines = split(text);
    for (name, recognize) in RECOGNIZERS {
        for start in 0..=lines.len() {
            match recognize(&lines, start) {
                Some(Ok((n, _))) => assert!(
                    n > 0 && start + n <= lines.len(),
                    "{name}: consumed {n} lines at {start} of {}",
                    lines.len()
                ),
                Some(Err(e)) => {
                    let last = lines.last().map(|l| l.no).unwrap_or(0);
                    assert!(e.line <= last, "{name}: error line {} > {last}", e.line);
                }
                None => {}
            }
        }
    }
    if let Ok(doc) = parse(text.as_bytes(), None) {
        serde_json::to_string(&doc).unwrap();
    }
}

fn samples() -> Vec<String> {
    let root = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        "counters",
        "perf_lock",
        "distribution",
        "profile",
        "will_it_scale",
        "microbench",
    ] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                let t = std::fs::read_to_string(&p).unwrap();
                // Keep the cases small: the first 60 lines of each sample.
                out.push(t.lines().take(60).collect::<Vec<_>>().join("\n"));
            }
        }
    }
    out.sort();
    out
}

/// Lines in the shape of each format, with its punctuation and units.
fn format_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,20}:? {0,4}[-0-9.,]{0,12}( kB)?( \\(?[-+0-9.]{0,5}%\\)?)?( ± [0-9]{1,3}%)?",
        "(some|full|memory:|/proc/pressure/io:) ?(avg10|avg60|avg300|total)=[0-9.]{0,8}( (avg10|avg60|avg300|total)=[0-9.]{0,8}){0,4}",
        " *contended( +(total|max|min|avg) wait){0,4}( +(type +caller|pid +comm|pid +owner|address +symbol|cgroup))?",
        " *[0-9]{0,8} +[0-9.]{0,8} (ns|us|ms|s|ps) +[0-9.]{0,6} (ns|us|ms|s) +[0-9.]{0,6} (ns|us|ms|s)( +[a-z:]{0,9} +[a-z_+0-9x]{0,20})?",
        " *0x[0-9a-f]{0,16} +[a-z_+0-9x]{0,20}",
        "@[a-z]{0,6}(\\[[a-z0-9, ]{0,10}\\])?: ?",
        "[\\[(]([0-9]{0,4}[KMG]?|\\.\\.\\.)(, ([0-9]{0,4}[KMG]?|\\.\\.\\.))?[\\])] +[0-9]{0,6} \\|[@ ]{0,10}\\|?",
        " *[a-z]{0,6} +: count +distribution",
        " *[0-9]{0,10}( -> [0-9]{0,10})? +: [0-9]{0,8} +\\|[* +]{0,10}\\|?",
        "avg = [0-9]{0,5} [a-z]{0,5}, total: [0-9]{0,8} [a-z]{0,5}, count: [0-9]{0,6}",
        "[a-z]{0,4} = '?[a-z0-9 \\[\\]]{0,12}'?",
        "#? ?(Samples: [0-9]{0,4}[KM]? of event '[a-z:-]{0,10}'(, Event count \\(approx.\\): [0-9]{0,10})?)?",
        "#? ?(Overhead|Children)(  (Self|Command|Shared Object|Symbol|Pid)){0,4}",
        "#? ?[. ]{0,30}",
        " *[+-]?[0-9.]{0,6}%( +[0-9.]{0,5}%)? +[a-z-]{0,10} +\\[?[a-z.]{0,12}\\]? +\\[[k.]\\] [a-z_]{0,20}",
        " *[|`-]{0,3}[0-9.%-]{0,8}[a-z_]{0,12}",
        "tasks(,(processes|processes_idle|threads|threads_idle|linear)){0,5}",
        "[0-9]{0,4}(,[0-9.]{0,8}){0,6}( \\([a-z -]{0,10}\\))?",
        "\\.\\.\\.",
        "(Wakeup|Request) Latencies percentiles \\(usec\\) runtime [0-9]{0,3} \\(s\\) \\([0-9]{0,7} total samples\\)",
        "RPS percentiles \\(requests\\) runtime [0-9]{0,3} \\(s\\) \\([0-9]{0,3} total samples\\)",
        "Latency percentiles \\(usec\\)",
        "\t? *\\*? ?[0-9.]{0,8}th: [0-9]{0,7}( +\\([0-9]{0,7} samples\\))?",
        "\t? *min=[0-9]{0,5}, max=[0-9]{0,6}",
        "average rps: [0-9.]{0,9}",
        "Running in (process|threaded) mode with [0-9]{0,3} groups using [0-9]{0,3} file descriptors each \\(== [0-9]{0,5} tasks\\)",
        "Each sender will pass [0-9]{0,6} messages of [0-9]{0,4} bytes",
        "Time: [0-9.]{0,8}",
        "# Running '[a-z]{0,6}/[a-z]{0,9}' benchmark:",
        " *Total time: [0-9.]{0,6} \\[sec\\]",
        " *[0-9.]{0,9} (usecs/op|ops/sec)",
        "",
        "[ -~\t±µ>]{0,60}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        check_all(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn format_shaped_lines(lines in proptest::collection::vec(format_line(), 0..24), quote in 0usize..3) {
        let prefix = "> ".repeat(quote);
        let text: Vec<String> = lines.iter().map(|l| format!("{prefix}{l}")).collect();
        check_all(&text.join("\n"));
    }

    #[test]
    fn mangled_samples(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u16>()), 0..8),
    ) {
        let all = samples();
        let text = &all[pick.index(all.len())];
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (at, op, n) in edits {
            if lines.is_empty() {
                break;
            }
            let i = at.index(lines.len());
            match op {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                2 => {
                    let cut = (n as usize) % (lines[i].len() + 1);
                    let mut end = cut;
                    while !lines[i].is_char_boundary(end) { end -= 1; }
                    lines[i].truncate(end);
                }
                _ => { lines[i].push_str(&format!(" {n}")); }
            }
        }
        check_all(&lines.join("\n"));
    }
}
