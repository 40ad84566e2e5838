//! sysbench's run summary (`cpu`, `memory`, `threads`, `mutex`, `fileio`
//! and the OLTP Lua tests), as people paste it:
//!
//! ```text
//! sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)
//!
//! Running the test with following options:
//! Number of threads: 2
//! ...
//! CPU speed:
//!     events per second:  5035.97
//!
//! General statistics:
//!     total time:                          3.0003s
//!     total number of events:              15117
//!
//! Latency (ms):
//!          min:                                    0.39
//!          95th percentile:                        0.42
//!
//! Threads fairness:
//!     events (avg/stddev):           7558.5000/38.50
//! ```
//!
//! One [`Metrics`] block (tool `sysbench`) per run. A run starts at the
//! `sysbench X.Y` banner, at a statistics heading (`General statistics:`,
//! `SQL statistics:`, `CPU speed:`, `File operations:`, `Test execution
//! summary:`, 0.5's `OLTP test statistics:`) or at a `total time:` line followed by `total number of
//! events:` (sysbench 0.4/0.5, or a paste whose headings were mangled).
//! Every `key: value` line under a heading is a metric named by the key in
//! lower case, prefixed by its heading where the key alone says too little:
//! `latency min` ... `latency 95th percentile` (`Latency (ms):`, and the
//! old `response time:` / `per-request statistics:` whose `approx.  95
//! percentile` is the same value, `approx.  99 percentile` the 99th), `queries performed read`. Values are
//! read as printed with their unit (`10.0005s` is 10.0005 `s`, `37.56ms`
//! 37.56 `ms`, a latency without a unit is in the heading's `ms`):
//! `events (avg/stddev): 7558.5/38.50` is `events avg` and `events
//! stddev`, `transactions: 620 (30.94 per sec.)` is `transactions` and
//! `transactions per sec`, `read, MiB/s: 0.00` is `read` in `MiB/s`, and
//! the memory test's `2048.00 MiB transferred (5928.19 MiB/sec)` is
//! `transferred` and `transferred per second`. `Number of threads: N`
//! above the results is `threads`. The options, start-up lines and
//! `--report-interval` lines (`[ 10s ] thds: ...`) belong to the block and
//! are not read; a `--histogram` is skipped.

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "sysbench";

/// Lines a run may span (options, interval reports, histogram, summary).
const MAX_LINES: usize = 2000;

/// Blank lines a run may hold in a row (sysbench prints two).
const MAX_BLANKS: usize = 2;

/// Headings at which a run may start.
const START_HEADINGS: &[&str] = &[
    "General statistics:",
    "SQL statistics:",
    "CPU speed:",
    "File operations:",
    "Test execution summary:",
    // sysbench 0.5's oltp.lua.
    "OLTP test statistics:",
];

/// `sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)`.
fn is_banner(text: &str) -> bool {
    // `sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta3)`; 0.4 and 0.5:
    // `sysbench 0.4.12:  multi-threaded system evaluation benchmark`.
    text.trim().strip_prefix("sysbench ").is_some_and(|r| {
        r.starts_with(|c: char| c.is_ascii_digit())
            && (r.contains('(') || r.contains(":  multi-threaded system evaluation benchmark"))
    })
}

/// `key: value` with a non-empty key and value.
fn key_value(text: &str) -> Option<(String, &str)> {
    let (k, v) = text.trim().split_once(':')?;
    let v = v.trim();
    let k: Vec<&str> = k.split_whitespace().collect();
    if k.is_empty() || v.is_empty() {
        return None;
    }
    Some((k.join(" "), v))
}

/// A heading: `Latency (ms):`, `Threads fairness:`, `queries performed:`.
fn heading(text: &str) -> Option<&str> {
    let t = text.trim().strip_suffix(':')?;
    (!t.is_empty()
        && !t.contains(':')
        && t.starts_with(|c: char| c.is_ascii_alphabetic())
        && t.len() < 60)
        .then_some(t)
}

/// The prefix of a heading's keys, and the unit of its unit-less values.
fn section(heading: &str) -> (String, Option<&'static str>) {
    let h = heading.trim().to_lowercase();
    match h.as_str() {
        "latency (ms)" | "response time" | "per-request statistics" => {
            ("latency".into(), Some("ms"))
        }
        "queries performed" => ("queries performed".into(), None),
        _ => (String::new(), None),
    }
}

/// A number as sysbench prints it, with an optional time unit (`10.0005s`,
/// `37.56ms`).
fn number(text: &str) -> Option<(f64, Option<&'static str>)> {
    let t = text.trim();
    for (suffix, unit) in [("ms", "ms"), ("s", "s")] {
        if let Some(v) = t.strip_suffix(suffix).and_then(|n| units::scaled(n, 0)) {
            return Some((v, Some(unit)));
        }
    }
    units::scaled(t, 0).map(|v| (v, None))
}

/// The metrics of one `key: value` line under `prefix`.
fn values(prefix: &str, default_unit: Option<&str>, key: &str, value: &str) -> Option<Vec<Metric>> {
    // `read, MiB/s: 0.00`: the unit keeps its printed case.
    let (key, key_unit) = match key.split_once(", ") {
        Some((k, u)) if !u.contains(' ') => (k, Some(u)),
        _ => (key, None),
    };
    let key = key.to_lowercase();
    // sysbench 0.4/0.5's `approx.  99 percentile` is 1.0's `99th percentile`.
    let key = match key
        .strip_prefix("approx. ")
        .and_then(|k| k.strip_suffix(" percentile"))
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    {
        Some(n) => format!("{n}th percentile"),
        None => key,
    };
    let key = key.as_str();
    let named = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix} {k}")
        }
    };
    // `events (avg/stddev): 7558.5000/38.50`
    if let Some(base) = key.strip_suffix(" (avg/stddev)") {
        let (a, s) = value.split_once('/')?;
        let (a, ua) = number(a)?;
        let (s, us) = number(s)?;
        return Some(vec![
            Metric::new(named(&format!("{base} avg")), a, ua),
            Metric::new(named(&format!("{base} stddev")), s, us),
        ]);
    }
    // `620    (30.94 per sec.)`, `2097152 (6070469.03 per second)`
    if let Some((n, rate)) = value.split_once('(') {
        let rate = rate.trim().strip_suffix(')')?;
        let (r, per) = rate.split_once(' ')?;
        let per = per.trim().trim_end_matches('.');
        if !per.starts_with("per ") {
            return None;
        }
        let (n, unit) = number(n)?;
        return Some(vec![
            Metric::new(named(key), n, unit),
            Metric::new(named(&format!("{key} {per}")), units::scaled(r, 0)?, None),
        ]);
    }
    let (v, unit) = number(value)?;
    let unit = unit.or(key_unit).or(default_unit);
    Some(vec![Metric::new(named(key), v, unit)])
}

/// The memory test's `2048.00 MiB transferred (5928.19 MiB/sec)`.
fn transferred(text: &str) -> Option<Vec<Metric>> {
    let (amount, rate) = text.trim().split_once(" transferred (")?;
    let (n, unit) = amount.trim().split_once(' ')?;
    let (r, runit) = rate.strip_suffix(')')?.trim().split_once(' ')?;
    Some(vec![
        Metric::new("transferred", units::scaled(n, 0)?, Some(unit)),
        Metric::new("transferred per second", units::scaled(r, 0)?, Some(runit)),
    ])
}

/// Lines of the start-up and of `--report-interval` / `--histogram` that
/// belong to the run and carry nothing read here.
fn is_noise(text: &str) -> bool {
    let t = text.trim();
    t == "--"
        || t == "..."
        || t == "Done."
        || t == "Threads started!"
        || t.starts_with("Initializing ")
        || t.starts_with("Running the test with following options")
        || t.starts_with("Time limit exceeded")
        // sysbench 0.4's log of its own repeated messages.
        || (t.starts_with("(last message repeated ") && t.ends_with(" times)"))
        || t.starts_with("WARNING: ")
        || (t.starts_with('[') && t.contains("] thds:"))
        || t.starts_with("Latency histogram")
        || (t.starts_with("value") && t.contains("distribution"))
        || is_histogram_row(t)
}

fn indent(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

/// `  12.752 |****                                     1`.
fn is_histogram_row(t: &str) -> bool {
    let Some((v, rest)) = t.split_once(" |") else {
        return false;
    };
    units::scaled(v, 0).is_some()
        && rest
            .trim_end()
            .rsplit(' ')
            .next()
            .is_some_and(|c| units::int(c).is_some())
}

/// Recognise one sysbench run starting at `start`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let t = first.text.trim();
    let banner = is_banner(t);
    // Cheap tests first: the scan calls this at every line of any input.
    let starts = banner
        || START_HEADINGS.contains(&t)
        || (t
            .get(..10)
            .is_some_and(|p| p.eq_ignore_ascii_case("total time"))
            && key_value(t).is_some_and(|(k, _)| k.eq_ignore_ascii_case("total time"))
            && lines
                .get(start + 1)
                .and_then(|l| key_value(l.text))
                .is_some_and(|(k, _)| k.eq_ignore_ascii_case("total number of events")));
    if !starts {
        return None;
    }
    let quote = first.quote;
    // Before the results: options and start-up lines (read: the threads).
    let mut preamble = banner;
    let mut metrics: Vec<Metric> = Vec::new();
    let mut prefix = String::new();
    let mut default_unit: Option<&'static str> = None;
    // Indentation of the heading that set `prefix`: a key printed at or left
    // of an indented heading is out of its section (`transactions:` after
    // `queries performed:`).
    let mut heading_indent = 0;
    let mut consumed = 0;
    let mut blanks = 0;
    let mut results = false;
    for (k, l) in lines.iter().enumerate().skip(start).take(MAX_LINES) {
        if l.quote != quote {
            break;
        }
        let text = l.text;
        let t = text.trim();
        if t.is_empty() {
            blanks += 1;
            if blanks > MAX_BLANKS {
                break;
            }
            continue;
        }
        blanks = 0;
        if k > start && is_banner(t) {
            break;
        }
        if k == start && banner {
            consumed = 1;
            continue;
        }
        if preamble {
            if let Some((_, v)) = key_value(t).filter(|(k, _)| k == "Number of threads") {
                if let Some(n) = units::scaled(v, 0) {
                    metrics.push(Metric::new("threads", n, None));
                }
                consumed = k + 1 - start;
                continue;
            }
            let is_results = START_HEADINGS.contains(&t)
                || t.starts_with("Total operations:")
                || transferred(t).is_some();
            if !is_results {
                if k - start > 60 {
                    break;
                }
                consumed = k + 1 - start;
                if t == "Threads started!" {
                    preamble = false;
                }
                continue;
            }
            preamble = false;
        }
        if is_noise(t) {
            consumed = k + 1 - start;
            continue;
        }
        if let Some(ms) = transferred(t) {
            metrics.extend(ms);
        } else if let Some(h) = heading(t) {
            (prefix, default_unit) = section(h);
            heading_indent = indent(text);
        } else if let Some((key, v)) = key_value(t) {
            if heading_indent > 0 && indent(text) <= heading_indent {
                (prefix, default_unit) = (String::new(), None);
                heading_indent = 0;
            }
            let Some(ms) = values(&prefix, default_unit, &key, v) else {
                // Prose with a colon ends the run; a number sysbench would
                // print that cannot be read is an error on its line.
                if !v.starts_with(|c: char| c.is_ascii_digit()) {
                    break;
                }
                // The last line of a paste cut short (`execution time
                // (avg/stddev):   6.20`, its `/stddev` gone) ends the run.
                let cut = key.ends_with("(avg/stddev)")
                    && units::scaled(v.trim(), 0).is_some()
                    && lines
                        .get(k + 1..)
                        .is_some_and(|after| after.iter().all(|a| a.text.trim().is_empty()));
                if results && cut {
                    break;
                }
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    "a number (`10.0005s`, `7558.5/38.50`, `620 (30.94 per sec.)`)",
                    l.text,
                )));
            };
            metrics.extend(ms);
            results = true;
        } else {
            break;
        }
        consumed = k + 1 - start;
    }
    if !results {
        // A banner or a heading without any result under it: prose, or a
        // run cut before its summary.
        return None;
    }
    Some(Ok((
        consumed,
        BlockBody::Metrics(Metrics {
            tool: FORMAT.into(),
            metrics,
            runs: None,
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<(usize, Vec<Metric>)> {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0)? {
            Ok((n, BlockBody::Metrics(m))) => Some((n, m.metrics)),
            _ => None,
        }
    }

    fn value(ms: &[Metric], name: &str) -> Option<(f64, Option<String>)> {
        ms.iter()
            .find(|m| m.name == name)
            .map(|m| (m.value, m.unit.clone()))
    }

    #[test]
    fn shapes_of_values() {
        let text = "SQL statistics:\n    queries performed:\n        read:   8680\n    \
                    transactions:   620    (30.94 per sec.)\n\nThroughput:\n    read, MiB/s:   1.50\n\n\
                    Latency (ms):\n         min:   0.39\n\nThreads fairness:\n    \
                    events (avg/stddev):           7558.5000/38.50\nprose after\n";
        let (n, ms) = run(text).unwrap();
        assert_eq!(n, 13);
        assert_eq!(value(&ms, "queries performed read"), Some((8680.0, None)));
        assert_eq!(value(&ms, "transactions per sec"), Some((30.94, None)));
        assert_eq!(value(&ms, "read"), Some((1.5, Some("MiB/s".into()))));
        assert_eq!(value(&ms, "latency min"), Some((0.39, Some("ms".into()))));
        assert_eq!(value(&ms, "events stddev"), Some((38.5, None)));
    }

    #[test]
    fn sysbench_0_4_banner_and_its_run_log() {
        let text = "sysbench 0.4.12:  multi-threaded system evaluation benchmark\n\nNo DB drivers specified, using mysql\nRunning the test with following options:\nNumber of threads: 2\n\nDoing OLTP test.\nThreads started!\nTime limit exceeded, exiting...\n(last message repeated 1 times)\nDone.\n\nOLTP test statistics:\n    transactions:                        626454 (10440.85 per sec.)\n\nTest execution summary:\n    total time:                          60.0003s\n";
        assert!(is_banner(
            "sysbench 0.4.12:  multi-threaded system evaluation benchmark"
        ));
        assert!(!is_banner("sysbench 0.4.12: a note"));
        let (n, ms) = run(text).unwrap();
        assert_eq!(n, 17);
        assert_eq!(value(&ms, "threads"), Some((2.0, None)));
        assert_eq!(value(&ms, "transactions per sec"), Some((10440.85, None)));
    }

    #[test]
    fn sysbench_0_5_oltp() {
        let text = "OLTP test statistics:\n    queries performed:\n        read:    34367116\n    \
                    transactions:   2454794 (8128.29 per sec.)\n\nGeneral statistics:\n    \
                    response time:\n         min:   1.98ms\n         approx.  99 percentile:   15.66ms\n";
        let (n, ms) = run(text).unwrap();
        assert_eq!(n, 9);
        assert_eq!(
            value(&ms, "queries performed read"),
            Some((34367116.0, None))
        );
        assert_eq!(value(&ms, "transactions per sec"), Some((8128.29, None)));
        assert_eq!(
            value(&ms, "latency 99th percentile"),
            Some((15.66, Some("ms".into())))
        );
    }

    #[test]
    fn a_banner_without_results_is_not_a_run() {
        assert!(
            run("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nFATAL: no such test\n")
                .is_none()
        );
        assert!(run("General statistics:\nprose\n").is_none());
    }

    #[test]
    fn a_bad_value_is_an_error_on_its_line() {
        let lines = crate::lines::split(
            "General statistics:\n    total time:   10.0s\n    total number of events:  12 many\n",
        );
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 3);
        // A paste cut inside its last line ends the run there.
        let text = "General statistics:\n    total time:   20.0094s\n\nThreads fairness:\n    events (avg/stddev):  1503.2500/36.30\n    execution time (avg/stddev):   6.20\n";
        let (n, ms) = run(text).unwrap();
        assert_eq!(n, 5);
        assert_eq!(value(&ms, "events stddev"), Some((36.3, None)));
        let cut_early = format!("{text}prose\n");
        let lines = crate::lines::split(&cut_early);
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 6);
    }
}
