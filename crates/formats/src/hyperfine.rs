//! hyperfine's benchmark summaries (https://github.com/sharkdp/hyperfine):
//!
//! ```text
//! Benchmark 1: make -skj128 LLVM=1 allmodconfig all
//!   Time (mean ± σ):     318.172 s ±  0.730 s    [User: 31750.902 s, System: 4564.246 s]
//!   Range (min … max):   317.332 s … 318.662 s    3 runs
//!
//! Summary
//!   'sleep 0.02' ran
//!     1.81 ± 0.67 times faster than 'sleep 0.05'
//! ```
//!
//! One `metrics` block (tool `hyperfine`) per `Benchmark N:` (older
//! versions: `Benchmark #N:`): `mean` (with the standard deviation as its
//! `spread`), `stddev`, `user`, `system`, `min` and `max`, all in seconds,
//! and the number of runs as the block's `runs`. A single run prints `Time
//! (abs ≡):` and no range: `mean` alone, `runs` 1. When one hyperfine run
//! compared several commands, each block is labelled with its command; a
//! lone command is its block's label only when no words around it name
//! the side (`Found::fallback`).
//!
//! Reads what mailers and terminals make of it: `±`, `σ`, `…` and `µ`
//! turned into `?`, into spaces or into their UTF-8 bytes read as Latin-1
//! (`Â±`), the ASCII `+-` and `...`, the `User:` / `System:` part or the run
//! count wrapped onto the next line, markdown bold around `Benchmark N:`,
//! progress and `Warning:` lines. The `Summary` lines after the last
//! benchmark belong to the span (their ratios follow from the means).

use crate::detect::Found;
use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "hyperfine";

/// Most benchmarks one run may hold.
const MAX_BENCHMARKS: usize = 256;

/// Lines a `Warning:` note (wrapped by a mailer) may take.
const MAX_WARNING_LINES: usize = 4;

/// The text of a line without markdown bold and surrounding space.
fn clean(text: &str) -> String {
    text.replace("**", "").trim().to_string()
}

/// `Benchmark 1: cmd` / `Benchmark #1: cmd`: the command.
fn benchmark_header(text: &str) -> Option<String> {
    let t = clean(text);
    let rest = t.strip_prefix("Benchmark ")?;
    let rest = rest.strip_prefix('#').unwrap_or(rest);
    let (n, cmd) = rest.split_once(':')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Markdown code spans around the command (`` `make -j8` (default) ``).
    Some(cmd.replace('`', "").trim().to_string())
}

/// `Time (...):` or `Range (...):`: the text after the parenthesis.
fn labelled<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    let t = text.trim_start();
    let rest = t.strip_prefix(label)?.trim_start();
    let rest = rest.strip_prefix('(')?;
    let close = rest.find("):")?;
    // `mean ± σ`, `abs ≡`, `min … max` in any mangling: short, no digits.
    let inside = rest.get(..close)?;
    let words = match label {
        "Time" => inside.contains("mean") || inside.contains("abs"),
        _ => inside.contains("min") && inside.contains("max"),
    };
    if !words || inside.len() > 24 || inside.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    rest.get(close + 2..)
}

fn is_single_run(text: &str) -> bool {
    labelled(text, "Time").is_some_and(|_| text.contains("abs"))
}

/// Power of ten of a hyperfine time unit; `µs` may arrive as `Âµs`,
/// `?s` or `us`.
fn unit_pow10(unit: &str) -> Option<i32> {
    if let Some(p) = units::time_unit_pow10(unit) {
        return Some(p);
    }
    let u = unit.strip_suffix('s')?;
    (u.chars().count() <= 2 && !u.is_empty() && !u.chars().any(|c| c.is_ascii_alphanumeric()))
        .then_some(-6)
}

/// Every `number unit` pair of a text, in seconds, in order.
fn durations(text: &str) -> Vec<f64> {
    let toks: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let tok = toks.get(i).copied().unwrap_or("");
        // `318.172 s` or, glued, `318.172s`.
        let num_end = tok
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(tok.len());
        let (num, glued) = tok.split_at(num_end);
        if !num.is_empty() && num.starts_with(|c: char| c.is_ascii_digit()) {
            let (unit, step) = if glued.is_empty() {
                (toks.get(i + 1).copied().unwrap_or(""), 2)
            } else {
                (glued, 1)
            };
            if let Some(v) = unit_pow10(unit).and_then(|p| units::scaled(num, p)) {
                out.push(v);
                i += step;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `User: 1.8 ms` / `System: 0.1 ms` anywhere in `text`, in seconds.
fn named_duration(text: &str, name: &str) -> Option<f64> {
    let at = text.find(name)?;
    let rest = text.get(at + name.len()..)?;
    let end = rest.find([',', ']']).unwrap_or(rest.len());
    durations(rest.get(..end)?).first().copied()
}

/// `3 runs` (or `3 run`, `1 run`): the count.
fn run_count(text: &str) -> Option<u64> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    toks.windows(2).find_map(|w| match w {
        [n, r] if matches!(*r, "runs" | "run") => units::int(n),
        _ => None,
    })
}

/// One benchmark as printed.
struct Bench {
    command: Option<String>,
    metrics: Vec<Metric>,
    runs: Option<u64>,
}

/// Read one benchmark starting at `lines[i]` (its `Benchmark N:` line or
/// its `Time` line): the benchmark and the index after its last line.
fn read_bench(lines: &[Line<'_>], i: usize) -> Option<Result<(Bench, usize), ParseError>> {
    let first = lines.get(i)?;
    let quote = first.quote;
    let same = |k: usize| lines.get(k).filter(|l| l.quote == quote);
    let blank = |k: usize| same(k).is_some_and(|l| l.text.trim().is_empty());
    let mut k = i;
    let mut command = benchmark_header(first.text);
    if command.is_some() {
        k += 1;
        // Progress lines, a blank line (markdown), or the command wrapped
        // onto a line of its own.
        let mut skipped = 0;
        while skipped < 3 {
            let l = same(k)?;
            if labelled(l.text, "Time").is_some() {
                break;
            }
            let t = l.text.trim();
            let progress = t.contains("Current estimate") || t.contains("warmup");
            if skipped == 0
                && !t.is_empty()
                && !progress
                && let Some(c) = command.as_mut()
            {
                c.push(' ');
                c.push_str(&t.replace('`', ""));
            }
            skipped += 1;
            k += 1;
        }
    }
    let time_line = same(k)?;
    let after_time = labelled(time_line.text, "Time")?;
    let single = is_single_run(time_line.text);
    // The `[User: ..., System: ...]` part may be wrapped onto the next line.
    let mut time_text = after_time.to_string();
    k += 1;
    let wrapped = !time_text.contains("System")
        && same(k)
            .is_some_and(|l| l.text.contains("System:") && labelled(l.text, "Range").is_none());
    if wrapped {
        time_text.push(' ');
        time_text.push_str(same(k).map(|l| l.text).unwrap_or(""));
        k += 1;
    }
    let (before_user, _) = time_text.split_once("User").unwrap_or((&time_text, ""));
    let pair = durations(before_user);
    let Some(&mean) = pair.first() else {
        return Some(Err(ParseError::invalid(
            FORMAT,
            time_line.no,
            1,
            "`Time (mean ± σ):  1.234 s ±  0.010 s`",
            time_line.text,
        )));
    };
    let stddev = pair.get(1).copied().filter(|_| !single);
    let mut metrics = vec![Metric {
        spread: stddev,
        ..Metric::new("mean", mean, Some("s"))
    }];
    if let Some(sd) = stddev {
        metrics.push(Metric::new("stddev", sd, Some("s")));
    }
    for (key, name) in [("User:", "user"), ("System:", "system")] {
        if let Some(v) = named_duration(&time_text, key) {
            metrics.push(Metric::new(name, v, Some("s")));
        }
    }
    let mut runs = single.then_some(1);
    while blank(k) && same(k + 1).is_some_and(|l| labelled(l.text, "Range").is_some()) {
        k += 1;
    }
    if let Some(range_line) = same(k).filter(|l| labelled(l.text, "Range").is_some()) {
        let mut text = labelled(range_line.text, "Range").unwrap_or("").to_string();
        k += 1;
        if run_count(&text).is_none()
            && same(k).is_some_and(|l| {
                let t = l.text.trim();
                run_count(t).is_some() && t.split_whitespace().count() == 2
            })
        {
            text.push(' ');
            text.push_str(same(k).map(|l| l.text).unwrap_or(""));
            k += 1;
        }
        let mm = durations(&text);
        let (Some(&min), Some(&max)) = (mm.first(), mm.get(1)) else {
            return Some(Err(ParseError::invalid(
                FORMAT,
                range_line.no,
                1,
                "`Range (min … max):  1.200 s …  1.300 s    10 runs`",
                range_line.text,
            )));
        };
        metrics.push(Metric::new("min", min, Some("s")));
        metrics.push(Metric::new("max", max, Some("s")));
        runs = run_count(&text).or(runs);
    }
    // `Warning: Statistical outliers were detected. ...`, maybe wrapped.
    while same(k).is_some_and(|l| l.text.trim_start().starts_with("Warning:")) {
        k += 1;
        let mut n = 1;
        while n < MAX_WARNING_LINES
            && same(k).is_some_and(|l| {
                let t = l.text.trim();
                !t.is_empty() && !starts_part(t)
            })
        {
            k += 1;
            n += 1;
        }
    }
    Some(Ok((
        Bench {
            command,
            metrics,
            runs,
        },
        k,
    )))
}

/// A line that starts a part of hyperfine's output.
fn starts_part(t: &str) -> bool {
    benchmark_header(t).is_some()
        || labelled(t, "Time").is_some()
        || labelled(t, "Range").is_some()
        || t == "Summary"
        || t.starts_with("Warning:")
}

/// The `Summary` lines: `X ran` and `N ± s times faster than Y` lines,
/// maybe wrapped. The index after them.
fn skip_summary(lines: &[Line<'_>], k: usize, quote: u32, benches: usize) -> usize {
    let same = |k: usize| lines.get(k).filter(|l| l.quote == quote);
    if same(k).is_none_or(|l| clean(l.text) != "Summary") {
        return k;
    }
    let mut end = k + 1;
    let limit = end + 2 + 2 * benches;
    while end < limit
        && same(end).is_some_and(|l| {
            let t = l.text.trim();
            !t.is_empty() && !starts_part(t)
        })
    {
        end += 1;
    }
    end
}

/// Most `Warning:` paragraphs hyperfine prints after one benchmark
/// (outliers, a slow first run, a short command).
const MAX_WARNINGS: usize = 3;

/// What follows a benchmark ending at `k`: the index after the blank
/// lines (hyperfine prints one holding a space) and `Warning:`
/// paragraphs, maybe wrapped, and where the last paragraph ends (`k`
/// when there is none).
fn skip_between(lines: &[Line<'_>], k: usize, quote: u32) -> (usize, usize) {
    let same = |k: usize| lines.get(k).filter(|l| l.quote == quote);
    let blank = |k: usize| same(k).is_some_and(|l| l.text.trim().is_empty());
    let mut end = k;
    for _ in 0..=MAX_WARNINGS {
        let mut m = end;
        while blank(m) && m < end + 2 {
            m += 1;
        }
        if same(m).is_none_or(|l| !l.text.trim().starts_with("Warning:")) {
            return (m, end);
        }
        m += 1;
        while same(m).is_some_and(|l| {
            let t = l.text.trim();
            !t.is_empty() && !starts_part(t)
        }) {
            m += 1;
        }
        end = m;
    }
    (end, end)
}

/// Recognise a hyperfine run at a `Benchmark N:` line (or a `Time (mean ±
/// σ):` line printed without one): one block per benchmark.
pub fn recognize(lines: &[Line<'_>], start: usize) -> Option<Result<Found, ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let same = |k: usize| lines.get(k).filter(|l| l.quote == quote);
    let mut benches = Vec::new();
    let mut k = start;
    loop {
        match read_bench(lines, k) {
            Some(Ok((b, next))) => {
                benches.push(b);
                k = next;
            }
            Some(Err(e)) if benches.is_empty() => return Some(Err(e)),
            Some(Err(_)) | None => break,
        }
        if benches.len() >= MAX_BENCHMARKS {
            break;
        }
        let (n, warnings_end) = skip_between(lines, k, quote);
        if same(n).is_none_or(|l| benchmark_header(l.text).is_none()) {
            let after = skip_summary(lines, n, quote, benches.len());
            k = if after > n { after } else { warnings_end };
            break;
        }
        k = n;
    }
    if benches.is_empty() {
        return None;
    }
    let mut commands: Vec<&str> = benches
        .iter()
        .filter_map(|b| b.command.as_deref())
        .collect();
    commands.sort_unstable();
    commands.dedup();
    let distinct = benches.len() > 1 && commands.len() == benches.len();
    // One command alone is named by the words around it (`Before:`), and
    // by its command only when nothing else names it.
    let fallback = match benches.as_slice() {
        [one] => one.command.clone(),
        _ => None,
    };
    let bodies = benches
        .into_iter()
        .map(|b| {
            let label = b.command.filter(|_| distinct);
            (
                BlockBody::Metrics(Metrics {
                    tool: "hyperfine".into(),
                    metrics: b.metrics,
                    runs: b.runs,
                }),
                label,
            )
        })
        .collect();
    Some(Ok(Found {
        fallback,
        consumed: k - start,
        bodies,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    fn values(body: &BlockBody) -> Vec<(String, f64)> {
        match body {
            BlockBody::Metrics(m) => m
                .metrics
                .iter()
                .map(|m| (m.name.clone(), m.value))
                .collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn units_are_seconds() {
        assert_eq!(durations("62.0 ms ±  13.3 ms"), vec![0.062, 0.0133]);
        assert_eq!(durations("975.2 µs ? 8.1 Âµs"), vec![975.2e-6, 8.1e-6]);
        assert_eq!(durations("1.5s 2 ns"), vec![1.5, 2e-9]);
        assert_eq!(durations("1.5 s +- 0.1 s"), vec![1.5, 0.1]);
        assert!(durations("3 runs").is_empty());
    }

    #[test]
    fn mangled_signs_and_wrapped_parts() {
        let text = "Benchmark 1: make -j8\n  Time (mean ? ?):  318.172 s ?  0.730 s    [User: 31750.902 s,\n System: 4564.246 s]\n  Range (min ... max):   317.332 s ... 318.662 s\n   3 runs\n";
        let lines = split(text);
        let found = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(found.consumed, 5);
        let v = values(&found.bodies[0].0);
        let names: Vec<&str> = v.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["mean", "stddev", "user", "system", "min", "max"]);
        assert_eq!(v[3].1, 4564.246);
        assert!(matches!(&found.bodies[0].0, BlockBody::Metrics(m) if m.runs == Some(3)));
        // One command alone: no label (the prose above names the side).
        assert_eq!(found.bodies[0].1, None);
    }

    #[test]
    fn a_lone_command_names_its_block_only_when_nothing_else_does() {
        let run = |cmd: &str, ms: &str| {
            format!(
                "Benchmark 1: {cmd}\n  Time (abs ≡):        {ms} ms               [User: 11.8 ms, System: 22.3 ms]\n"
            )
        };
        let labels = |text: &str| -> Vec<Option<String>> {
            let doc = crate::parse(text.as_bytes(), None).unwrap();
            doc.blocks.iter().map(|b| b.label.clone()).collect()
        };
        let bare = format!(
            "## Init\n\n{}\n{}",
            run("xvc init", "52.0"),
            run("dvc init", "368.4")
        );
        assert_eq!(
            labels(&bare),
            [Some("xvc init".to_string()), Some("dvc init".to_string())]
        );
        let named = format!(
            "Before:\n{}\nAfter:\n{}",
            run("make", "52.0"),
            run("make", "48.0")
        );
        assert_eq!(
            labels(&named),
            [Some("before".to_string()), Some("after".to_string())]
        );
    }

    #[test]
    fn spaces_for_signs_and_single_runs() {
        let text = "Benchmark #1: sleep 1\n  Time (abs  ):        1.003 s               [User: 1.0 ms, System: 2.0 ms]\n";
        let lines = split(text);
        let found = recognize(&lines, 0).unwrap().unwrap();
        let v = values(&found.bodies[0].0);
        assert_eq!(
            v,
            [
                ("mean".into(), 1.003),
                ("user".into(), 0.001),
                ("system".into(), 0.002)
            ]
        );
        assert!(matches!(&found.bodies[0].0, BlockBody::Metrics(m) if m.runs == Some(1)));
    }

    #[test]
    fn prose_is_not_a_benchmark() {
        let lines = split("Benchmark 1: the kernel build\nIt took long.\n\n\nbye\n");
        assert!(recognize(&lines, 0).is_none());
        let lines = split("Time (mean): unknown\n");
        assert!(recognize(&split("Time (roughly): a day\n"), 0).is_none());
        assert!(matches!(recognize(&lines, 0), Some(Err(e)) if e.line == 1));
    }

    #[test]
    fn warning_paragraphs_between_benchmarks() {
        let bench = |n: u32, cmd: &str| {
            format!(
                "Benchmark {n}: {cmd}\n  Time (mean ± σ):     102.4 ms ±   1.4 ms    [User: 1.0 ms, System: 0.2 ms]\n  Range (min … max):   101.4 ms … 104.9 ms    8 runs\n \n"
            )
        };
        let warn = "  Warning: Statistical outliers were detected. Consider re-running\n  this benchmark on a quiet system.\n \n";
        let text = format!(
            "{}{warn}{}{warn}after the run\n",
            bench(1, "sleep 0.1"),
            bench(2, "sleep 0.15")
        );
        let lines = split(&text);
        let found = recognize(&lines, 0).unwrap().unwrap();
        let labels: Vec<_> = found.bodies.iter().map(|b| b.1.as_deref()).collect();
        assert_eq!(labels, [Some("sleep 0.1"), Some("sleep 0.15")]);
        // The last warning is the run's; the prose after it is not.
        assert_eq!(found.consumed, 13);
        assert_eq!(lines[found.consumed + 1].text, "after the run");
    }
}
