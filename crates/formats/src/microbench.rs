//! Scheduler and memory microbenchmarks that print a few numbers each:
//!
//! - schbench, both layouts: `Wakeup Latencies percentiles (usec) runtime
//!   30 (s) (209403 total samples)` / `Request Latencies ...` / `RPS
//!   percentiles (requests) ...` sections of `  50.0th: 8   (43672
//!   samples)` lines, `min=1, max=8400` and `average rps: 6984.77`; and the
//!   first one, `Latency percentiles (usec)` with `50.0000th: 22` lines
//!   (wakeup latency only);
//! - hackbench: `Running in process mode with 10 groups ...` then `Time: 1.234`;
//!   the old layout `Running with 100*40 (== 4000) tasks.` then `Time:`; and
//!   a `Time: 1.234` line alone when a line next to it names hackbench (a
//!   `hackbench:` label, the command, or `perf stat`'s `Performance counter
//!   stats for 'hackbench ...'` right below it);
//! - `perf bench sched messaging` / `sched pipe`: `# Running 'sched/pipe'
//!   benchmark:`, `Total time: 0.075 [sec]`, `7.563000 usecs/op`,
//!   `132222 ops/sec`.
//!
//! Each becomes a [`Metrics`] block with the tool and metric names of the
//! document contract (`wakeup_latency.p99`, `time`, `total_time`, ...).

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "microbench";

/// Lines one schbench report may span (three sections, a few extras).
const MAX_SCHBENCH_LINES: usize = 64;

/// Recognise a schbench report, a hackbench run or a perf bench result.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let line = lines.get(start)?;
    if schbench_section(line.text).is_some() {
        return schbench(lines, start);
    }
    if hackbench_header(line.text) || hackbench_old_header(line.text) {
        return hackbench(lines, start);
    }
    if let Some(v) = hackbench_time(line.text)
        && names_hackbench(lines, start)
    {
        return Some(Ok((1, hackbench_block(Vec::new(), v))));
    }
    if let Some(bench) = perf_bench_header(line.text) {
        return perf_bench(lines, start, bench);
    }
    None
}

fn metric(name: impl Into<String>, value: f64, unit: Option<&str>) -> Metric {
    Metric::new(name, value, unit)
}

// ----------------------------------------------------------------- schbench

/// The metric prefix and unit of a section title.
fn schbench_section(text: &str) -> Option<(&'static str, &'static str)> {
    let t = text.trim();
    // A poster's copy may name the program first (`schbench RPS
    // percentiles (requests) ...`).
    let t = t.strip_prefix("schbench ").map_or(t, str::trim_start);
    if t.starts_with("Wakeup Latencies percentiles (usec)") {
        Some(("wakeup_latency", "us"))
    } else if t.starts_with("Request Latencies percentiles (usec)") {
        Some(("request_latency", "us"))
    } else if t.starts_with("RPS percentiles (requests)") {
        Some(("rps", "requests/s"))
    } else if t == "Latency percentiles (usec)"
        || t.starts_with("Latency percentiles (usec) runtime ")
    {
        // schbench of 2017-2022, with or without `runtime 30 (s) (4562
        // total samples)` after the title.
        Some(("wakeup_latency", "us"))
    } else {
        None
    }
}

/// `* 99.0th: 20   (18323 samples)`, `*99.0000th: 1090` -> (`99`, 20).
fn percentile_line(text: &str) -> Option<(String, f64)> {
    let t = text.trim().trim_start_matches('*').trim_start();
    let (p, rest) = t.split_once("th:")?;
    let p = units::scaled(p, 0)?;
    let value = rest.split_whitespace().next()?;
    let value = units::scaled(value, 0)?;
    Some((format_percentile(p), value))
}

/// 50.0 -> "p50", 99.9 -> "p99.9", 99.5000 -> "p99.5".
fn format_percentile(p: f64) -> String {
    let s = format!("{p:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("p{s}")
}

/// `min=1, max=8400`.
fn min_max(text: &str) -> Option<(f64, f64)> {
    let t = text.trim();
    let (a, b) = t.split_once(',')?;
    let min = units::scaled(a.trim().strip_prefix("min=")?, 0)?;
    let max = units::scaled(b.trim().strip_prefix("max=")?, 0)?;
    Some((min, max))
}

fn schbench(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, BlockBody), ParseError>> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut section: Option<(&str, &str)> = None;
    let mut seen: Vec<&str> = Vec::new();
    let mut runtime: Option<&str> = None;
    let mut i = start;
    let mut end = start;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if i - start > MAX_SCHBENCH_LINES {
            break;
        }
        let t = l.text.trim();
        if let Some(s) = schbench_section(t) {
            // A section seen twice starts the next report.
            if seen.contains(&s.0) {
                break;
            }
            seen.push(s.0);
            section = Some(s);
            runtime = runtime.or_else(|| section_runtime(t));
            if let Some(n) = total_samples(t) {
                metrics.push(metric(format!("{}.samples", s.0), n, None));
            }
        } else if let Some((p, v)) = percentile_line(t) {
            let Some((prefix, unit)) = section else { break };
            metrics.push(metric(format!("{prefix}.{p}"), v, Some(unit)));
        } else if let Some((min, max)) = min_max(t) {
            let Some((prefix, unit)) = section else { break };
            metrics.push(metric(format!("{prefix}.min"), min, Some(unit)));
            metrics.push(metric(format!("{prefix}.max"), max, Some(unit)));
        } else if let Some(v) = t.strip_prefix("average rps:") {
            // A poster's note may follow the number after spaces
            // (`average rps: 907530.10      <<< close to 40% drop`).
            let v = v.trim_start();
            let (number, note) = v.split_once(char::is_whitespace).unwrap_or((v, ""));
            let noted = note.trim_start().starts_with(|c: char| !c.is_ascii_digit());
            let v = if noted { number } else { v };
            let Some(v) = units::scaled(v, 0) else {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    14,
                    "a number after `average rps:`",
                    l.text,
                )));
            };
            metrics.push(metric("rps.average", v, Some("requests/s")));
            end = i + 1;
            break;
        } else if t.is_empty() && section.is_some() {
            // schbench -L prints a blank line between sections.
            let next_is_section = lines
                .get(i + 1)
                .filter(|n| n.quote == quote)
                .is_some_and(|n| schbench_section(n.text).is_some());
            if !next_is_section {
                match annotated_section(lines, i, quote, &seen, runtime) {
                    Some(next) => {
                        i = next;
                        continue;
                    }
                    None => break,
                }
            }
        } else {
            break;
        }
        i += 1;
        end = i;
    }
    if metrics.iter().all(|m| m.name.ends_with(".samples")) {
        let l = lines.get(end.min(lines.len().saturating_sub(1)))?;
        return Some(Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "percentile lines (`50.0th: 8`) under the schbench section title",
            l.text,
        )));
    }
    Some(Ok((
        end - start,
        BlockBody::Metrics(Metrics {
            tool: "schbench".into(),
            metrics,
            runs: None,
        }),
    )))
}

/// Lines of a poster's note between two sections of one report.
const NOTE_LINES: usize = 8;

/// `runtime 90 (s)` of a section title, as printed.
fn section_runtime(t: &str) -> Option<&str> {
    let (_, rest) = t.split_once(" runtime ")?;
    let (n, _) = rest.split_once(" (s)")?;
    n.parse::<f64>().is_ok().then_some(n)
}

/// A poster's note (one paragraph, at most [`NOTE_LINES`] lines) set
/// between two sections of one report, as an announcement explains each
/// in turn: the index of the section title after it, when that section
/// was not seen yet in this report and names the same runtime as the
/// sections above (`runtime 90 (s)`). Without a runtime on both sides two
/// reports cannot be told from one annotated, and the note ends it.
fn annotated_section(
    lines: &[Line<'_>],
    blank: usize,
    quote: u32,
    seen: &[&str],
    runtime: Option<&str>,
) -> Option<usize> {
    let runtime = runtime?;
    let mut k = blank + 1;
    let mut prose = 0;
    while lines
        .get(k)
        .is_some_and(|l| l.quote == quote && !l.text.trim().is_empty())
    {
        prose += 1;
        if prose > NOTE_LINES || schbench_section(lines[k].text.trim()).is_some() {
            return None;
        }
        k += 1;
    }
    while lines
        .get(k)
        .is_some_and(|l| l.quote == quote && l.text.trim().is_empty())
    {
        k += 1;
    }
    let title = lines.get(k).filter(|l| l.quote == quote)?.text.trim();
    let s = schbench_section(title)?;
    (prose > 0 && !seen.contains(&s.0) && section_runtime(title) == Some(runtime)).then_some(k)
}

/// `... runtime 30 (s) (209403 total samples)` -> 209403.
fn total_samples(t: &str) -> Option<f64> {
    let at = t.rfind(" total samples)")?;
    let head = t.get(..at)?;
    let open = head.rfind('(')?;
    units::scaled(head.get(open + 1..)?, 0)
}

// ---------------------------------------------------------------- hackbench

/// `Running in process mode with 10 groups using 40 file descriptors each (== 400 tasks)`.
fn hackbench_header(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with("Running in process mode with ")
        || t.starts_with("Running in threaded mode with "))
        && t.contains(" groups using ")
}

/// The old hackbench's `Running with 100*40 (== 4000) tasks.` (groups times
/// 40 file descriptors).
fn hackbench_old_header(text: &str) -> bool {
    let t = text.trim();
    t.strip_prefix("Running with ")
        .and_then(|r| r.split_once("*40 (== "))
        .is_some_and(|(g, r)| units::int(g).is_some() && r.ends_with(" tasks."))
}

/// `Time: 1.234` (hackbench's only result line), its seconds.
fn hackbench_time(text: &str) -> Option<f64> {
    let v = text.trim().strip_prefix("Time:")?.trim();
    if v.contains(char::is_whitespace) {
        return None;
    }
    v.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// Whether a line next to `start` (up to two non-blank lines above, or the
/// next non-blank line below) names hackbench: a `Time:` line means nothing
/// on its own.
fn names_hackbench(lines: &[Line<'_>], start: usize) -> bool {
    let quote = lines[start].quote;
    let names =
        |l: &Line<'_>| l.quote == quote && l.text.to_ascii_lowercase().contains("hackbench");
    let above = lines[..start]
        .iter()
        .rev()
        .filter(|l| !l.text.trim().is_empty())
        .take(2)
        .any(names);
    let below = lines[start + 1..]
        .iter()
        .find(|l| !l.text.trim().is_empty())
        .is_some_and(names);
    above || below
}

fn hackbench_block(mut metrics: Vec<Metric>, time: f64) -> BlockBody {
    metrics.push(metric("time", time, Some("s")));
    BlockBody::Metrics(Metrics {
        tool: "hackbench".into(),
        metrics,
        runs: None,
    })
}

fn hackbench(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let mut metrics = Vec::new();
    // The old layout's groups are the N of `N*40`; its tasks are read below.
    if let Some(g) = first
        .text
        .trim()
        .strip_prefix("Running with ")
        .and_then(|r| r.split_once("*40 (== "))
        .and_then(|(g, _)| units::int(g))
    {
        metrics.push(metric("groups", g as f64, None));
    }
    // A mailer or the poster's terminal may have moved the end of the
    // header (`each (== 400 tasks)`) to the next line.
    let tail = lines
        .get(start + 1)
        .filter(|l| l.quote == quote && !first.text.contains("(== "))
        .map(|l| l.text.trim())
        .filter(|t| t.starts_with("(== ") || t.starts_with("each (== "));
    let wrapped = usize::from(tail.is_some());
    let header: std::borrow::Cow<'_, str> = match tail {
        Some(t) => format!("{} {t}", first.text.trim_end()).into(),
        None => first.text.into(),
    };
    let words: Vec<&str> = header.split_whitespace().collect();
    let after = |w: &str| {
        words
            .iter()
            .position(|x| *x == w)
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| words.get(k))
            .and_then(|v| units::int(v))
    };
    if let Some(g) = after("groups") {
        metrics.push(metric("groups", g as f64, None));
    }
    if let Some(tasks) = header
        .split_once("(== ")
        .and_then(|(_, r)| r.split_whitespace().next())
        // `(== 400 tasks)`, and the old layout's `(== 4000) tasks.`
        .and_then(|n| units::int(n.trim_end_matches(')')))
    {
        metrics.push(metric("tasks", tasks as f64, None));
    }
    // `Each sender will pass 100 messages of 100 bytes`, then `Time: 1.234`.
    for k in 1 + wrapped..=3 + wrapped {
        let Some(l) = lines.get(start + k).filter(|l| l.quote == quote) else {
            break;
        };
        let t = l.text.trim();
        if let Some(v) = t.strip_prefix("Time:") {
            let v = v.split_whitespace().next().unwrap_or("");
            let Some(v) = units::scaled(v, 0) else {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    6,
                    "seconds after `Time:`",
                    l.text,
                )));
            };
            return Some(Ok((k + 1, hackbench_block(metrics, v))));
        }
        if !t.starts_with("Each sender will pass") {
            break;
        }
    }
    None
}

// --------------------------------------------------------------- perf bench

/// `# Running 'sched/pipe' benchmark:` -> `sched/pipe`.
fn perf_bench_header(text: &str) -> Option<&str> {
    // The command itself after a prompt, as perf's own documentation
    // shows it: `% perf bench sched pipe  # with no style specified`.
    if let Some(cmd) = crate::lines::after_prompt(text) {
        let mut w = cmd.split_whitespace();
        if (w.next(), w.next()) == (Some("perf"), Some("bench")) {
            return match (w.next(), w.next()) {
                (Some("sched"), Some("pipe")) => Some("sched/pipe"),
                (Some("sched"), Some("messaging")) => Some("sched/messaging"),
                _ => None,
            };
        }
        return None;
    }
    let t = text.trim().strip_prefix('#')?.trim();
    // `sched messaging`'s own first line, when the `# Running` line is
    // elsewhere (or other output came between the two).
    if t.ends_with(" sender and receiver processes per group")
        && t.split_whitespace()
            .next()
            .is_some_and(|n| n.parse::<u32>().is_ok())
    {
        return Some("sched/messaging");
    }
    let rest = t.strip_prefix("Running '")?;
    let (bench, tail) = rest.split_once('\'')?;
    (tail.trim() == "benchmark:" && bench.contains('/')).then_some(bench)
}

/// Lines a `perf bench` report may span (`mem/memcpy` prints four lines
/// per function, `futex/hash` one per thread).
const PERF_BENCH_MAX_LINES: usize = 160;

/// `3.088352 GB/sec` under `# function 'default'` (`mem/memcpy`,
/// `mem/memset`): `default throughput` in the printed unit;
/// `0.36 cycles/byte` is `default cycles per byte`. Without a function
/// line the name is `throughput`.
fn perf_bench_rate(t: &str, function: Option<&str>) -> Option<Metric> {
    let (v, unit) = t.split_once(char::is_whitespace)?;
    let unit = unit.trim();
    let what = if unit.ends_with("B/sec") && !unit.contains(' ') {
        "throughput"
    } else if unit.eq_ignore_ascii_case("cycles/byte") {
        "cycles per byte"
    } else {
        return None;
    };
    let name = match function {
        Some(f) => format!("{f} {what}"),
        None => what.to_string(),
    };
    let unit = (what == "throughput").then_some(unit);
    Some(metric(name, units::scaled(v, 0)?, unit))
}

/// `futex/hash`: `[thread  0] futexes: 0x... ... [ 1754112 ops/sec ]` is
/// `thread 0 ops_per_sec`; `Averaged 1702400 operations/sec (+- 3.04%),
/// total secs = 1` is `ops_per_sec` with its spread.
fn futex_summary(t: &str) -> Option<Metric> {
    if let Some(rest) = t.strip_prefix("Averaged ") {
        let (v, tail) = rest.split_once(' ')?;
        let tail = tail.trim_start().strip_prefix("operations/sec")?;
        let mut m = metric("ops_per_sec", units::scaled(v, 0)?, Some("ops/s"));
        m.spread_pct = tail
            .trim_start()
            .strip_prefix("(+-")
            .and_then(|r| r.split_once("%)"))
            .and_then(|(p, _)| units::scaled(p.trim(), 0));
        return Some(m);
    }
    let rest = t.strip_prefix("[thread")?;
    let (n, rest) = rest.split_once(']')?;
    let n: u32 = n.trim().parse().ok()?;
    let inner = rest.trim_end().strip_suffix(']')?;
    let (_, rate) = inner.rsplit_once('[')?;
    let v = rate.trim().strip_suffix("ops/sec")?.trim();
    Some(metric(
        format!("thread {n} ops_per_sec"),
        units::scaled(v, 0)?,
        Some("ops/s"),
    ))
}

fn perf_bench(
    lines: &[Line<'_>],
    start: usize,
    bench: &str,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let quote = lines.get(start)?.quote;
    let mut metrics = vec![];
    let mut i = start + 1;
    let mut end = start + 1;
    let mut blanks = 0;
    // `mem/memcpy` / `mem/memset`: the function whose rate follows.
    let mut function: Option<String> = None;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if i - start > PERF_BENCH_MAX_LINES {
            break;
        }
        let t = l.text.trim();
        if t.is_empty() {
            blanks += 1;
            if blanks > 1 {
                break;
            }
        } else if let Some(f) = t
            .strip_prefix("# function '")
            .and_then(|r| r.split_once('\''))
            .map(|(f, _)| f)
        {
            function = Some(f.to_string());
        } else if metrics.is_empty() && crate::cyclictest::is_start(t) {
            // Another tool's output printed into the run (`cyclictest -q`
            // footers while the benchmark is the load): the report picks up
            // at its `# 20 sender and receiver processes per group` line.
            return None;
        } else if t.starts_with('#') {
            // `# 20 sender and receiver processes per group`.
        } else if let Some(m) = perf_bench_rate(t, function.as_deref()) {
            metrics.push(m);
            blanks = 0;
        } else if let Some(m) = futex_summary(t) {
            metrics.push(m);
            blanks = 0;
        } else if metrics.is_empty() && t.ends_with(')') && t.contains('(') {
            // The old layout's notes above the time: `(executing 1000000
            // pipe operations between two tasks)`, `(20 groups == 800
            // threads run)`, and the end of a command's comment the
            // documentation wrapped (`options (20 sender ... per group)`).
        } else if t.starts_with("Run summary [PID ") {
            // `Run summary [PID 29967]: 2 threads, each operating on ...`.
        } else if let Some(v) = t.strip_prefix("Total time:") {
            // `Total time: 4.180 [sec]`, or the old `Total time:8.091 sec`.
            let v = v.trim();
            let v = v
                .strip_suffix("[sec]")
                .or_else(|| v.strip_suffix(" sec"))
                .map(str::trim);
            // A time the poster blanked out (`Total time: 10X.XXX [sec]`,
            // the command shown as an example) is no result: the report
            // ends there, and what it read before stays.
            let Some(v) = v.and_then(|v| units::scaled(v, 0)) else {
                break;
            };
            metrics.push(metric("total_time", v, Some("s")));
            blanks = 0;
        } else if let Some((v, unit)) = t.split_once(char::is_whitespace) {
            let (name, unit) = match unit.trim() {
                "usecs/op" => ("usecs_per_op", "us"),
                "ops/sec" => ("ops_per_sec", "ops/s"),
                _ => break,
            };
            let Some(v) = units::scaled(v, 0) else { break };
            metrics.push(metric(name, v, Some(unit)));
            blanks = 0;
        } else {
            break;
        }
        i += 1;
        if blanks == 0 {
            end = i;
        }
    }
    if metrics.is_empty() {
        return None;
    }
    let _ = bench;
    Some(Ok((
        end - start,
        BlockBody::Metrics(Metrics {
            tool: "perf-bench".into(),
            metrics,
            runs: None,
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_bench_mem_and_futex_lines() {
        let m = perf_bench_rate("3.088352 GB/sec", Some("default")).unwrap();
        assert_eq!(
            (m.name.as_str(), m.value, m.unit.as_deref()),
            ("default throughput", 3.088352, Some("GB/sec"))
        );
        assert_eq!(
            perf_bench_rate("0.36 cycles/byte", None).unwrap().name,
            "cycles per byte"
        );
        assert!(perf_bench_rate("12 apples", None).is_none());
        let m =
            futex_summary("Averaged 1702400 operations/sec (+- 3.04%), total secs = 1").unwrap();
        assert_eq!((m.value, m.spread_pct), (1702400.0, Some(3.04)));
        let m =
            futex_summary("[thread  1] futexes: 0x55d3 ... 0x55d4 [ 1650688 ops/sec ]").unwrap();
        assert_eq!(
            (m.name.as_str(), m.value),
            ("thread 1 ops_per_sec", 1650688.0)
        );
        assert!(futex_summary("[thread x] nothing").is_none());
    }

    #[test]
    fn perf_bench_as_its_documentation_shows_it() {
        let text = "% perf bench sched messaging -t -g 20        # be multi-thread, with 20 groups\n(20 sender and receiver threads per group)\n(20 groups == 800 threads run)\n\n      Total time:0.582 sec\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Metrics(m)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 5);
        assert_eq!(
            (m.metrics[0].name.as_str(), m.metrics[0].value),
            ("total_time", 0.582)
        );
        assert!(perf_bench_header("% perf bench mem memcpy").is_none());
        assert!(perf_bench_header("$ perf stat -a").is_none());
    }

    #[test]
    fn a_note_between_two_sections_of_one_report() {
        let report = |runtime_b: &str| {
            format!(
                "Wakeup Latencies percentiles (usec) runtime 90 (s) (10 total samples)\n  * 99.0th: 1266       (3 samples)\n    min=1, max=12449\n\nThe time a woken worker waits.\nIt matters most.\n\nRequest Latencies percentiles (usec) runtime {runtime_b} (s) (10 total samples)\n  * 99.0th: 22304      (3 samples)\n    min=5818, max=57747\n\nafter\n"
            )
        };
        let names = |text: &str| -> Vec<Vec<String>> {
            crate::parse_str(text, None)
                .unwrap()
                .blocks
                .iter()
                .map(|b| match &b.body {
                    BlockBody::Metrics(m) => m.metrics.iter().map(|m| m.name.clone()).collect(),
                    _ => Vec::new(),
                })
                .collect()
        };
        let one = names(&report("90"));
        assert_eq!(one.len(), 1, "{one:?}");
        assert!(one[0].contains(&"request_latency.p99".to_string()));
        // Another runtime is another run: two reports.
        assert_eq!(names(&report("30")).len(), 2);
    }

    #[test]
    fn percentiles() {
        assert_eq!(
            percentile_line("\t* 99.0th: 20         (18323 samples)"),
            Some(("p99".into(), 20.0))
        );
        assert_eq!(
            percentile_line("        *99.0000th: 1090"),
            Some(("p99".into(), 1090.0))
        );
        assert_eq!(
            percentile_line("  99.9th: 775"),
            Some(("p99.9".into(), 775.0))
        );
        assert_eq!(
            percentile_line("  99.5000th: 6232"),
            Some(("p99.5".into(), 6232.0))
        );
        assert_eq!(min_max("\t  min=1, max=8400"), Some((1.0, 8400.0)));
        assert_eq!(
            schbench_section(
                "schbench RPS percentiles (requests) runtime 60 (s) (61 total samples)"
            ),
            Some(("rps", "requests/s"))
        );
        assert_eq!(schbench_section("schbench results"), None);
        assert_eq!(
            perf_bench_header("# Running 'sched/pipe' benchmark:"),
            Some("sched/pipe")
        );
    }

    #[test]
    fn errors_carry_their_line() {
        let lines = crate::lines::split(
            "Running in process mode with 10 groups using 40 file descriptors each (== 400 tasks)\nEach sender will pass 100 messages of 100 bytes\nTime: fast\n",
        );
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 3);
        let lines = crate::lines::split(
            "Wakeup Latencies percentiles (usec) runtime 30 (s) (5 total samples)\nprose\n",
        );
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 2);
        // A time the poster blanked out is no result, and no error that
        // would refuse the whole post.
        let lines = crate::lines::split(
            "# Running 'sched/pipe' benchmark:\n     Total time: 10X.XXX [sec]\n",
        );
        assert!(recognize(&lines, 0).is_none());
        let lines = crate::lines::split(
            "# Running 'sched/pipe' benchmark:\n     Total time: 4.180 [sec]\n     Total time: ? [sec]\n",
        );
        assert!(recognize(&lines, 0).unwrap().is_ok());
        // A hackbench header without a Time line is not a result.
        let lines = crate::lines::split(
            "Running in threaded mode with 2 groups using 40 file descriptors each (== 80 tasks)\n",
        );
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn the_old_banner_gives_groups_and_tasks() {
        let lines = crate::lines::split("Running with 100*40 (== 4000) tasks.\nTime: 52.736\n");
        let Some(Ok((_, BlockBody::Metrics(m)))) = recognize(&lines, 0) else {
            panic!()
        };
        let get = |n: &str| m.metrics.iter().find(|x| x.name == n).map(|x| x.value);
        assert_eq!((get("groups"), get("tasks")), (Some(100.0), Some(4000.0)));
    }

    #[test]
    fn a_time_line_is_hackbench_only_next_to_its_name() {
        let time = |text: &str, at: usize| -> Option<f64> {
            let lines = crate::lines::split(text);
            match recognize(&lines, at)?.ok()?.1 {
                BlockBody::Metrics(m) => {
                    m.metrics.iter().find(|m| m.name == "time").map(|m| m.value)
                }
                _ => None,
            }
        };
        assert_eq!(time("hackbench:\n    Time: 28.896\n", 1), Some(28.896));
        assert_eq!(
            time(
                "    Time: 1.5\n    Performance counter stats for 'hackbench -g 4':\n",
                0
            ),
            Some(1.5)
        );
        assert_eq!(time("build:\nTime: 28.896\n", 1), None);
        assert_eq!(time("hackbench:\nTime: 12 minutes\n", 1), None);
        assert_eq!(
            time("Running with 100*40 (== 4000) tasks.\nTime: 52.736\n", 0),
            Some(52.736)
        );
    }

    #[test]
    fn sched_messaging_report_under_other_output() {
        assert_eq!(
            perf_bench_header("# 20 sender and receiver processes per group"),
            Some("sched/messaging")
        );
        // Footers of a cyclictest run printed under the `# Running` line
        // are not the benchmark's: the report starts at its own line.
        let text = "# Running 'sched/messaging' benchmark:\n# /dev/cpu_dma_latency set to 0us\n# Min Latencies: 00060\n# 20 sender and receiver processes per group\n# 40 groups == 1600 processes run\n\n     Total time: 38.246 [sec]\n";
        let lines = crate::lines::split(text);
        assert!(recognize(&lines, 0).is_none());
        assert!(matches!(recognize(&lines, 3), Some(Ok((4, _)))));
    }
}
