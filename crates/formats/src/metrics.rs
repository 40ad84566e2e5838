//! Named metrics printed by load generators and counters:
//!
//! - stress-ng `--metrics` / `--metrics-brief` (`stress-ng: metrc: [1566] cpu
//!   195446 30.22 ...`, older versions say `info:`), including the
//!   "miscellaneous metrics" lines, also when each line carries a journal
//!   prefix;
//! - vm-scalability's `usemem` lines (`2097152000 bytes / 1126372 usecs =
//!   1818233 KB/s`, `1234 usecs to free memory`);
//! - `perf stat` (`  1,234,567      cycles   #  3.2 GHz`, `49.63 seconds time
//!   elapsed`).
//!
//! Each block becomes one [`Metrics`] with `{name, value, unit}` entries.

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::plain::parse_number_unit;

/// stress-ng metric columns in print order, with their units.
const STRESS_NG_COLUMNS: &[(&str, &str)] = &[
    ("bogo ops", "ops"),
    ("real time", "s"),
    ("usr time", "s"),
    ("sys time", "s"),
    ("bogo ops/s (real time)", "ops/s"),
    ("bogo ops/s (usr+sys time)", "ops/s"),
    ("CPU used per instance", "%"),
    ("RSS Max", "KB"),
];

/// Recognise a stress-ng metrics table, a run of usemem lines, or a
/// `perf stat` report.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let line = lines.get(start)?;
    if let Some(r) = stress_ng_in_kernel_log(lines, start) {
        return Some(r);
    }
    if let Some(rest) = stress_ng_payload(line.text)
        && rest.trim_start().starts_with("stressor")
        && rest.contains("bogo ops")
    {
        return stress_ng(lines, start, stress_ng_payload).map(Ok);
    }
    if let Some(rest) = stress_ng_payload(line.text)
        && perf_counter(rest).is_some()
    {
        return stress_ng_perf(lines, start).map(Ok);
    }
    // Miscellaneous metrics without the table above them (cut by the
    // poster): the heading, or two metric lines in a row.
    if let Some(rest) = stress_ng_payload(line.text)
        && (rest.trim_start().starts_with("miscellaneous metrics")
            || (is_misc_metric(rest)
                && lines
                    .get(start + 1)
                    .filter(|l| l.quote == line.quote)
                    .and_then(|l| stress_ng_payload(l.text))
                    .is_some_and(is_misc_metric)))
    {
        return stress_ng_from(lines, start, stress_ng_payload, true).map(Ok);
    }
    // `stress-ng: stressor  bogo ops ...`: the program's name without a
    // level or a pid in front of each line.
    if let Some(rest) = unlevelled(line.text)
        && rest.trim_start().starts_with("stressor ")
        && rest.contains("bogo ops")
    {
        return stress_ng(lines, start, unlevelled).map(Ok);
    }
    // `--log-brief`: the same table without any prefix (indented when
    // the poster cut the prefix off and kept the column).
    if line.text.trim_start().starts_with("stressor ") && line.text.contains("bogo ops") {
        return stress_ng(lines, start, bare).map(Ok);
    }
    if usemem_line(line.text).is_some() {
        return usemem(lines, start).map(Ok);
    }
    if line
        .text
        .trim_start()
        .starts_with("Performance counter stats for")
    {
        return perf_stat(lines, start).map(Ok);
    }
    if perf_csv_line(line.text).is_some() {
        return perf_csv(lines, start).map(Ok);
    }
    if perf_json_line(line.text).is_some() {
        return perf_json(lines, start).map(Ok);
    }
    None
}

/// One `perf stat -j` line: `{"counter-value" : "81.667138", "unit" :
/// "msec", "event" : "task-clock", ...}`. `Some(vec![])` for an event that
/// was not counted.
fn perf_json_line(text: &str) -> Option<Vec<Metric>> {
    let t = text.trim();
    if !t.starts_with('{') || !t.contains("\"counter-value\"") || t.len() > 4096 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    let event = v.get("event")?.as_str()?.to_string();
    let raw = v.get("counter-value")?;
    let value = match raw {
        serde_json::Value::String(s) if s.starts_with("<not ") => return Some(Vec::new()),
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok()?,
        other => other.as_f64()?,
    };
    let unit = v
        .get("unit")
        .and_then(|u| u.as_str())
        .filter(|u| !u.is_empty())
        .map(str::to_string);
    Some(vec![Metric {
        name: event,
        value,
        unit,
        spread_pct: v.get("variance").and_then(|x| x.as_f64()),
        spread: None,
    }])
}

/// A run of `perf stat -j` lines.
fn perf_json(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut n = 0;
    while let Some(l) = lines.get(start + n).filter(|l| l.quote == quote) {
        match perf_json_line(l.text) {
            Some(m) => metrics.extend(m),
            None => break,
        }
        n += 1;
    }
    (!metrics.is_empty()).then(|| {
        (
            n,
            BlockBody::Metrics(Metrics {
                tool: "perf-stat".into(),
                metrics,
                runs: None,
            }),
        )
    })
}

/// [`recognize`], and `perf stat -I` output, whose intervals are one block
/// each.
pub fn recognize_blocks(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<crate::detect::Found, ParseError>> {
    if let Some(found) = counts_over_elapsed(lines, start) {
        return Some(Ok(found));
    }
    if let Some(line) = lines.get(start)
        && !line
            .text
            .trim_start()
            .starts_with("Performance counter stats")
        && let Some((label, mut metrics)) = elapsed_line(line.text)
    {
        // The elapsed time alone (`-r N` results cut down to it), and the
        // `user` / `sys` lines under it.
        let n = 1 + user_sys_lines(lines, start + 1, line.quote, &mut metrics);
        return Some(Ok(perf_found(n, metrics, label)));
    }
    if let Some((consumed, blocks)) = perf_intervals(lines, start) {
        return Some(Ok(crate::detect::Found {
            fallback: None,
            consumed,
            bodies: blocks
                .into_iter()
                .map(|m| (BlockBody::Metrics(m), None))
                .collect(),
        }));
    }
    recognize(lines, start).map(|r| {
        r.map(|(consumed, body)| crate::detect::Found {
            fallback: None,
            consumed,
            bodies: vec![(body, None)],
        })
    })
}

/// Most lines of a kernel log searched past for a stress-ng run's next
/// line.
const KMSG_SPAN: usize = 512;

/// `user  :notice: [  109.926459] stress-ng: metrc: [6575] ...` (or
/// `[  109.926459] stress-ng: ...`): stress-ng's lines in a kernel log
/// (dmesg, LKP's kmsg), where the kernel's own lines (a warning, its
/// stack, an objdump listing) come between them.
fn kmsg_stress_ng(text: &str) -> bool {
    let Some(at) = text.find("] stress-ng: ") else {
        return false;
    };
    let Some(open) = text[..at].rfind('[') else {
        return false;
    };
    let stamp = text[open + 1..at].trim();
    stamp.contains('.') && stamp.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// A stress-ng run read out of a kernel log whose other lines come between
/// its own: its lines are read as if printed together, and the block
/// spans from its first line to its last. `None` when the line at `start`
/// is no such line, or the next line is one of the run's (the lines are
/// together; the usual reading applies).
fn stress_ng_in_kernel_log(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    if !kmsg_stress_ng(first.text)
        || lines
            .get(start + 1)
            .is_some_and(|n| n.quote == first.quote && kmsg_stress_ng(n.text))
    {
        return None;
    }
    let at: Vec<usize> = (start..lines.len().min(start + KMSG_SPAN))
        .filter(|&i| {
            lines
                .get(i)
                .is_some_and(|l| l.quote == first.quote && kmsg_stress_ng(l.text))
        })
        .collect();
    if at.len() < 2 {
        return None;
    }
    let own: Vec<Line<'_>> = at.iter().filter_map(|&i| lines.get(i).copied()).collect();
    match recognize(&own, 0)? {
        Ok((n, body)) => {
            let last = *at.get(n.checked_sub(1)?)?;
            Some(Ok((last + 1 - start, body)))
        }
        Err(e) => Some(Err(e)),
    }
}

/// A `--log-brief` line is all payload.
fn bare(text: &str) -> Option<&str> {
    Some(text)
}

/// The text after `stress-ng: <level>: [pid] `, wherever the line starts
/// (journal lines carry a date and `stress-ng[pid]:` prefix).
fn stress_ng_payload(text: &str) -> Option<&str> {
    let at = text.find("stress-ng: ")?;
    let mut rest = text.get(at + "stress-ng: ".len()..)?;
    // `--timestamp`: `stress-ng: 08:40:54.91 metrc: [23074] ...`.
    if let Some((ts, after)) = rest.split_once(' ')
        && ts.len() >= 8
        && ts
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
        && ts.matches(':').count() == 2
    {
        rest = after;
    }
    let (level, rest) = rest.split_once(':')?;
    if !matches!(level, "info" | "metrc" | "debug") {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('[')?;
    let (pid, rest) = rest.split_once(']')?;
    pid.chars().all(|c| c.is_ascii_digit()).then_some(rest)
}

/// The text after a line's leading `stress-ng:` when no level and pid
/// follow it.
fn unlevelled(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("stress-ng:")?;
    stress_ng_payload(text).is_none().then_some(rest)
}

/// `matrix   9990.65 add matrix ops per sec (geometric mean of 8 instances)`:
/// a stressor's own metric, as stress-ng prints it under its table.
fn is_misc_metric(rest: &str) -> bool {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let tail = rest.trim_end();
    words.len() >= 4
        && words
            .get(1)
            .and_then(|w| parse_number_unit(w))
            .is_some_and(|(_, u)| u.is_none())
        && tail.ends_with(')')
        && (tail.contains("mean of ") || tail.contains("per stressor)"))
}

fn stress_ng(
    lines: &[Line<'_>],
    start: usize,
    payload: fn(&str) -> Option<&str>,
) -> Option<(usize, BlockBody)> {
    stress_ng_from(lines, start, payload, false)
}

/// A stress-ng metrics table from its header line, or with `misc_only`
/// its miscellaneous metrics from their first line (or heading).
fn stress_ng_from(
    lines: &[Line<'_>],
    start: usize,
    payload: fn(&str) -> Option<&str>,
    misc_only: bool,
) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut stressors: Vec<String> = Vec::new();
    let mut misc = misc_only;
    let mut i = if misc_only {
        start
    } else {
        start + stress_ng_logical(lines, start, payload)?.1
    };
    while let Some((joined, n)) = lines
        .get(i)
        .filter(|l| l.quote == quote)
        .and_then(|_| stress_ng_logical(lines, i, payload))
    {
        let rest = joined.trim();
        if rest.starts_with("(secs)") {
            i += n;
            continue;
        }
        if rest.starts_with("miscellaneous metrics") {
            misc = true;
            i += n;
            continue;
        }
        let mut words = rest.split_whitespace();
        let Some(stressor) = words.next() else { break };
        // An older layout prints a stressor's own metric under the table
        // without a `miscellaneous metrics:` heading (`vdso  9.88
        // nanoseconds per call (...)`).
        let one_number_then_words = {
            let mut w = rest.split_whitespace().skip(1);
            w.next().and_then(parse_number_unit).is_some()
                && w.next().is_some_and(|x| parse_number_unit(x).is_none())
        };
        if misc || (stressors.iter().any(|s| s == stressor) && one_number_then_words) {
            // `close   600923.80 close calls per sec (harmonic mean of 192 instances)`
            let Some((v, _)) = words.next().and_then(parse_number_unit) else {
                break;
            };
            let desc: Vec<&str> = words.take_while(|w| !w.starts_with('(')).collect();
            metrics.push(Metric::new(
                format!("{stressor} {}", desc.join(" ")),
                v,
                None,
            ));
            i += n;
            continue;
        }
        let values: Vec<f64> = words
            .map_while(|w| {
                parse_number_unit(w)
                    .filter(|(_, u)| u.is_none())
                    .map(|(v, _)| v)
            })
            .collect();
        if values.len() < 4 {
            break;
        }
        for (v, (name, unit)) in values.iter().zip(STRESS_NG_COLUMNS) {
            metrics.push(Metric::new(format!("{stressor} {name}"), *v, Some(unit)));
        }
        stressors.push(stressor.to_string());
        i += n;
    }
    if metrics.is_empty() {
        return None;
    }
    if let Some((times, n)) = stress_ng_times(lines, i, quote, payload) {
        metrics.extend(times);
        i += n;
    } else if let end = perf_list_end(lines, i, quote, payload)
        && end > i
        && let Some((times, n)) = stress_ng_times(lines, end, quote, payload)
    {
        // `--perf` prints its counters between the table and the
        // `--times` summary: the summary is the run's, the counters are
        // a block of their own (which also covers the summary's lines).
        metrics.extend(times);
        // Only headings and SMI counts between them (`ramfs:` over `1
        // System Management Interrupt`): no counters' block, so the
        // table covers them and the summary.
        let counters = (i..end).any(|k| {
            lines
                .get(k)
                .and_then(|l| payload(l.text))
                .is_some_and(|r| perf_counter(r).is_some() && !is_smi_count(r))
        });
        if !counters {
            i = end + n;
        }
    }
    Some((
        i - start,
        BlockBody::Metrics(Metrics {
            tool: "stress-ng".into(),
            metrics,
            runs: None,
        }),
    ))
}

/// How many status lines (`skipped: 0`, `passed: ...`) may stand between a
/// metrics table and the `--times` summary of the same run.
const STRESS_NG_TIMES_GAP: usize = 8;

/// The `--times` summary after a run's table:
///
/// ```text
/// stress-ng: info:  [13015] for a 2.40s run time:
/// stress-ng: info:  [13015]       4.80s available CPU time
/// stress-ng: info:  [13015]       1.27s user time   ( 26.44%)
/// ```
///
/// `run time`, `available CPU time`, `user time`, `system time`, `total
/// time` (s), and each share of the available CPU time as `<name> share`
/// (%). `None` when no `for a ... run time:` line follows within a few
/// status lines; the lines consumed otherwise.
fn stress_ng_times(
    lines: &[Line<'_>],
    from: usize,
    quote: u32,
    payload: fn(&str) -> Option<&str>,
) -> Option<(Vec<Metric>, usize)> {
    let mut i = from;
    let head = loop {
        let l = lines.get(i).filter(|l| l.quote == quote)?;
        let rest = payload(l.text)?.trim();
        if let Some(run) = rest
            .strip_prefix("for a ")
            .and_then(|r| r.strip_suffix(" run time:"))
        {
            break run;
        }
        if i - from >= STRESS_NG_TIMES_GAP
            || rest.is_empty()
            || is_perf_heading(rest)
            || perf_counter(rest).is_some()
        {
            return None;
        }
        i += 1;
    };
    let secs = |w: &str| w.strip_suffix('s').and_then(|n| crate::units::scaled(n, 0));
    let mut metrics = vec![Metric::new("run time", secs(head)?, Some("s"))];
    i += 1;
    while let Some(rest) = lines
        .get(i)
        .filter(|l| l.quote == quote)
        .and_then(|l| payload(l.text))
    {
        let t = rest.trim();
        let (body, share) = match t.split_once('(') {
            Some((b, p)) => (b.trim(), p.trim().strip_suffix("%)")),
            None => (t, None),
        };
        let Some((value, name)) = body.split_once(' ') else {
            break;
        };
        let name = name.trim();
        let (Some(v), true) = (secs(value), name.ends_with(" time")) else {
            break;
        };
        metrics.push(Metric::new(name, v, Some("s")));
        if let Some(p) = share.and_then(|p| crate::units::scaled(p.trim(), 0)) {
            metrics.push(Metric::new(format!("{name} share"), p, Some("%")));
        }
        i += 1;
    }
    (metrics.len() > 1).then_some((metrics, i - from))
}

/// A stress-ng line with the lines a mailer wrapped it onto: the payload
/// joined, and how many lines it took. A wrapped line is long and the
/// rest has no `stress-ng:` prefix of its own (so `--log-brief` lines,
/// which have none, are never joined).
fn stress_ng_logical(
    lines: &[Line<'_>],
    i: usize,
    payload: fn(&str) -> Option<&str>,
) -> Option<(String, usize)> {
    let first = lines.get(i)?;
    let mut joined = payload(first.text)?.trim_end().to_string();
    let mut n = 1;
    let mut prev_len = first.text.trim_end().len();
    while let Some(l) = lines.get(i + n).filter(|l| l.quote == first.quote) {
        let t = l.text.trim();
        let wrapped = prev_len >= 60
            && !t.is_empty()
            && payload(l.text).is_none()
            && !l.text.contains("stress-ng")
            && t.len() <= 80;
        if !wrapped {
            break;
        }
        joined.push(' ');
        joined.push_str(t);
        prev_len = l.text.trim_end().len();
        n += 1;
    }
    Some((joined, n))
}

/// A `stress-ng --perf` counter: `  3,993,235,331,584 CPU Cycles   59.767 B/sec`
/// (the rate may be missing: wrapped onto the next line).
fn perf_counter(rest: &str) -> Option<Vec<Metric>> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let first = words.first()?;
    if !first.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value = perf_number(first)?;
    let name_end = words
        .iter()
        .skip(1)
        .position(|w| w.starts_with(|c: char| c.is_ascii_digit()) || w.starts_with('('))
        .map_or(words.len(), |p| p + 1);
    let name = words.get(1..name_end)?;
    let named = !name.is_empty()
        && name.len() <= 6
        && name.iter().all(|w| {
            w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_/.".contains(c))
        })
        && name
            .first()
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
    if !named {
        return None;
    }
    let name = name.join(" ");
    let mut out = vec![Metric::new(name.clone(), value, None)];
    if let Some(rate) = perf_rate(&words[name_end..].join(" ")) {
        out.push(Metric::new(format!("{name} rate"), rate.0, Some(&rate.1)));
    }
    Some(out)
}

/// `59.767 B/sec (0.369 instr. per cycle)` → (59.767, "B/sec").
fn perf_rate(text: &str) -> Option<(f64, String)> {
    let mut w = text.split_whitespace();
    let v = perf_number(w.next()?)?;
    let unit = w.next().filter(|u| u.ends_with("/sec"))?;
    Some((v, unit.to_string()))
}

/// A run of `stress-ng --perf` counter lines, with rates a mailer wrapped
/// onto the next line.
fn stress_ng_perf(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics: Vec<Metric> = Vec::new();
    let mut i = start;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if let Some(m) = stress_ng_payload(l.text).and_then(perf_counter) {
            metrics.extend(m);
            i += 1;
            continue;
        }
        let wrapped_rate = stress_ng_payload(l.text).is_none()
            && metrics.last().is_some_and(|m| !m.name.ends_with(" rate"))
            && perf_rate(l.text).is_some();
        if let (true, Some((v, unit)), Some(last)) =
            (wrapped_rate, perf_rate(l.text), metrics.last().cloned())
        {
            metrics.push(Metric::new(format!("{} rate", last.name), v, Some(&unit)));
            i += 1;
            continue;
        }
        break;
    }
    if let Some((times, n)) = stress_ng_times(lines, i, quote, stress_ng_payload) {
        // The run's `--times` summary after its counters: the table above
        // took its values; with no table above they are the counters'.
        if !after_stress_ng_table(lines, start, quote) {
            metrics.extend(times);
        }
        i += n;
    }
    (metrics.len() >= 2).then(|| {
        (
            i - start,
            BlockBody::Metrics(Metrics {
                tool: "stress-ng".into(),
                metrics,
                runs: None,
            }),
        )
    })
}

/// `zlib:` over a stressor's `--perf` counters.
fn is_perf_heading(rest: &str) -> bool {
    let t = rest.trim();
    t.len() > 1 && t.ends_with(':') && !t.contains(char::is_whitespace)
}

/// `1 System Management Interrupt` (`4 ... Interrupts`): the SMI count
/// stress-ng prints under a stressor's name on x86 after its run.
fn is_smi_count(rest: &str) -> bool {
    rest.trim().split_once(' ').is_some_and(|(n, what)| {
        n.bytes().all(|b| b.is_ascii_digit())
            && matches!(
                what.trim(),
                "System Management Interrupt" | "System Management Interrupts"
            )
    })
}

/// Where the `--perf` counter lists (each under its stressor's heading)
/// that start at `from` end; `from` when none starts there.
fn perf_list_end(
    lines: &[Line<'_>],
    from: usize,
    quote: u32,
    payload: fn(&str) -> Option<&str>,
) -> usize {
    let mut i = from;
    // The lines [`stress_ng_perf`] reads, and the headings between lists,
    // so that the table finds the summary exactly when the counters'
    // block leaves it to a table above.
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        let read = match payload(l.text) {
            Some(rest) => {
                is_perf_heading(rest) || perf_counter(rest).is_some() || is_smi_count(rest)
            }
            None => i > from && perf_rate(l.text).is_some(),
        };
        if !read {
            break;
        }
        i += 1;
    }
    // Headings alone are no counter list.
    if (from..i).all(|k| {
        lines
            .get(k)
            .and_then(|l| payload(l.text))
            .is_some_and(is_perf_heading)
    }) {
        from
    } else {
        i
    }
}

/// Whether the counter list at `start` (under its headings) follows a
/// stress-ng metrics table or its miscellaneous metrics, as `--perf`
/// prints it: the table then holds the run's `--times` summary.
fn after_stress_ng_table(lines: &[Line<'_>], start: usize, quote: u32) -> bool {
    let mut k = start;
    while k > 0 {
        k -= 1;
        let Some(rest) = lines
            .get(k)
            .filter(|l| l.quote == quote)
            .and_then(|l| stress_ng_payload(l.text))
        else {
            return false;
        };
        if is_perf_heading(rest) {
            continue;
        }
        let numbers = rest
            .split_whitespace()
            .skip(1)
            .filter(|w| parse_number_unit(w).is_some_and(|(_, u)| u.is_none()))
            .count();
        return is_misc_metric(rest) || numbers >= 4;
    }
    false
}

enum Usemem {
    Throughput { bytes: f64, usecs: f64, kbps: f64 },
    Free { usecs: f64 },
}

fn usemem_line(text: &str) -> Option<Usemem> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let num = |i: usize| w.get(i).and_then(|s| s.parse::<f64>().ok());
    match w.as_slice() {
        [_, "bytes", "/", _, "usecs", "=", _, "KB/s"] => Some(Usemem::Throughput {
            bytes: num(0)?,
            usecs: num(3)?,
            kbps: num(6)?,
        }),
        [_, "usecs", "to", "free", "memory"] => Some(Usemem::Free { usecs: num(0)? }),
        _ => None,
    }
}

fn usemem(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut i = start;
    let (mut run, mut freed) = (0, 0);
    while let Some(u) = lines
        .get(i)
        .filter(|l| l.quote == quote)
        .and_then(|l| usemem_line(l.text))
    {
        match u {
            Usemem::Throughput { bytes, usecs, kbps } => {
                run += 1;
                let m = |name: &str, value, unit: &str| {
                    Metric::new(format!("usemem[{run}] {name}"), value, Some(unit))
                };
                metrics.push(m("bytes", bytes, "B"));
                metrics.push(m("time", usecs, "us"));
                metrics.push(m("throughput", kbps, "KB/s"));
            }
            // The k-th `usecs to free memory` line is process k's, both
            // when each follows its throughput line and when all of them
            // follow the throughput lines (as each process exits).
            Usemem::Free { usecs } => {
                freed += 1;
                metrics.push(Metric::new(
                    format!("usemem[{freed}] free time"),
                    usecs,
                    Some("us"),
                ));
            }
        }
        i += 1;
    }
    (i > start).then(|| {
        (
            i - start,
            BlockBody::Metrics(Metrics {
                tool: "vm-scalability".into(),
                metrics,
                runs: None,
            }),
        )
    })
}

/// `( +-  0.09% )` at the end of a `perf stat -r` line: the spread in %,
/// also with a decimal comma (`( +-  2,40% )`).
fn perf_spread_pct(text: &str) -> Option<f64> {
    let at = text.rfind("( +-")?;
    let rest = text.get(at + 4..)?.trim_start();
    let end = rest.find('%')?;
    let pct = rest.get(..end)?.trim();
    match pct.split_once(',') {
        Some((a, b)) if !pct.contains('.') => format!("{a}.{b}").parse().ok(),
        _ => pct.parse().ok(),
    }
}

/// `  1,234.56 msec task-clock   #  0.998 CPUs utilized   ( +-  0.09% )`,
/// `  <not counted>  cycles`, `  49.634 seconds time elapsed`,
/// `  0.1200 +- 0.0155 seconds time elapsed  ( +- 12.95% )`. The metric,
/// with its spread over the runs when `-r N` printed one: `spread_pct`
/// from `( +- x% )`, `spread` from `+- y` in the metric's unit.
fn perf_line(text: &str) -> Option<Vec<Metric>> {
    perf_line_in(text, false)
}

/// [`perf_line`] with the block's locale: under `european`, `306.500` is
/// three hundred thousand.
fn perf_line_in(text: &str, european: bool) -> Option<Vec<Metric>> {
    let t = text.trim();
    if let Some((agg, rest)) = perf_aggregation(t) {
        let mut metrics = perf_line_in(rest, european)?;
        for m in &mut metrics {
            m.name = format!("{} {agg}", m.name);
        }
        return Some(metrics);
    }
    // The line's own decimal commas (`88,427 +- 0,618 seconds time
    // elapsed  ( +-  0,70% )`) say its locale when the block's do not.
    // A note the poster set after the event in place of perf's comment
    // (`cycles   ← total cycles`, `<-- this one`) is not part of the line.
    let t = match t
        .find(['←', '⟵'])
        .or_else(|| t.find(" <-"))
        .or_else(|| t.find(" <="))
    {
        Some(at) if at > 0 => t[..at].trim_end(),
        _ => t,
    };
    let european = european || has_decimal_comma(t);
    let spread_pct = perf_spread_pct(t);
    let body = t.split(" # ").next().unwrap_or(t).trim();
    let body = match body.find("( +-") {
        Some(at) => body.get(..at).unwrap_or(body).trim(),
        None => body,
    };
    if let Some(rest) = body
        .strip_prefix("<not counted>")
        .or(body.strip_prefix("<not supported>"))
    {
        // Printed but not measured: recognised, no value.
        return rest.split_whitespace().next().map(|_| Vec::new());
    }
    // `(99.30%)` at the end: the share of time the event was counted.
    let body = match body.rsplit_once(char::is_whitespace) {
        Some((head, last)) if is_multiplex_share(last) => head.trim_end(),
        _ => body,
    };
    let mut words = body.split_whitespace().peekable();
    let first = words.next()?;
    let value = perf_value(first, european)?;
    let mut abs_spread = None;
    if words.peek() == Some(&"+-") {
        words.next();
        // The spread is printed like the value: `0,0018904 +- 0,0000454`.
        abs_spread = Some(perf_value(words.next()?, european)?);
    }
    let rest: Vec<&str> = words.collect();
    let (unit, name) = match rest.as_slice() {
        ["seconds", tail @ ..] if !tail.is_empty() => (Some("s"), tail.join(" ")),
        ["msec", name] => (Some("msec"), (*name).to_string()),
        [name] => (None, (*name).to_string()),
        [unit, name] if matches!(*unit, "Joules" | "MiB" | "ns" | "us" | "ms") => {
            (Some(*unit), (*name).to_string())
        }
        // Older perf prints the unit after the event: `task-clock:u (msec)`.
        [name, "(msec)"] => (Some("msec"), (*name).to_string()),
        ["msec", name, cgroup] if is_cgroup(cgroup) => (Some("msec"), format!("{name} {cgroup}")),
        // `--for-each-cgroup`: the cgroup after the event (`cycles  A`).
        [name, cgroup] if is_cgroup(cgroup) => (None, format!("{name} {cgroup}")),
        // `--no-merge`: the PMU instance after the event (`cpa_cycles
        // [hisi_sicl0_cpa0]`), part of the name since instances repeat it.
        [name, pmu] if is_pmu_instance(pmu) => (None, format!("{name} {pmu}")),
        ["msec", name, pmu] if is_pmu_instance(pmu) => (Some("msec"), format!("{name} {pmu}")),
        _ => return None,
    };
    Some(vec![Metric {
        name,
        value,
        unit: unit.map(str::to_string),
        spread_pct,
        spread: abs_spread,
    }])
}

/// `[hisi_sicl0_cpa0]`, `[uncore_imc_1]`: a PMU's name in brackets.
fn is_pmu_instance(w: &str) -> bool {
    w.strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .is_some_and(|n| {
            !n.is_empty()
                && n.starts_with(|c: char| c.is_ascii_alphabetic())
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The aggregation column of `-A` / `--per-core` / `--per-socket` /
/// `--per-die` / `--per-node` (`CPU0`, `S0-D0-C1  1`, `S0  2`, `N0  4`):
/// the id, and the rest of the line after it and after the count of CPUs
/// that the per-core/socket/die/node forms print next to it.
fn perf_aggregation(t: &str) -> Option<(&str, &str)> {
    let (id, rest) = t.split_once(char::is_whitespace)?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if id.strip_prefix("CPU").is_some_and(digits) {
        return Some((id, rest.trim_start()));
    }
    // `--per-thread`: `sort-30102   146.44 msec task-clock`, the comm and
    // the pid before the count.
    if let Some((comm, pid)) = id.rsplit_once('-')
        && digits(pid)
        && comm.chars().any(|c| c.is_ascii_alphabetic())
        && !comm.starts_with('#')
        && rest
            .split_whitespace()
            .next()
            .is_some_and(|w| perf_number(w).is_some() || w.starts_with("<not"))
    {
        return Some((id, rest.trim_start()));
    }
    let grouped = id.split('-').all(|part| {
        part.len() >= 2
            && matches!(part.as_bytes()[0], b'S' | b'D' | b'C' | b'N' | b'T' | b'L')
            && digits(&part[1..])
    }) && matches!(id.as_bytes().first(), Some(b'S' | b'N'));
    if !grouped {
        return None;
    }
    let (count, after) = rest.trim_start().split_once(char::is_whitespace)?;
    digits(count).then_some((id, after.trim_start()))
}

/// The end of a `# 0.956 CPUs utilized` comment that a mailer wrapped onto
/// its own line.
fn is_comment_tail(text: &str, prev: Option<&str>) -> bool {
    // What a mailer moved to the next line may end with the counter's
    // spread and multiplexing share (`M/sec   ( +-  1.58% )`).
    let mut t = text.trim();
    if let Some(at) = t.find("( +-") {
        t = t.get(..at).unwrap_or(t).trim_end();
    }
    if let Some((head, last)) = t.rsplit_once(char::is_whitespace)
        && is_multiplex_share(last)
    {
        t = head.trim_end();
    }
    prev.is_some_and(|p| p.contains(" # ") && p.len() >= 40)
        && !t.is_empty()
        && t.split_whitespace().count() <= 4
        // Words, not numbers: `L1-dcache hits` is a tail, `1.10 of` is not.
        && !t
            .split_whitespace()
            .any(|w| w.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
}

/// The `( +- x% )` of a wrapped comment tail belongs to the counter above.
fn attach_spread(metrics: &mut [Metric], tail: &str) {
    if let Some(p) = perf_spread_pct(tail)
        && let Some(m) = metrics.last_mut()
        && m.spread_pct.is_none()
    {
        m.spread_pct = Some(p);
    }
}

/// A cgroup name as `perf stat --for-each-cgroup` prints it after an event.
fn is_cgroup(w: &str) -> bool {
    w.len() <= 64
        && !w.starts_with('#')
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_-.:@".contains(c))
}

/// Most counter lines read above an elapsed line without a header.
const MAX_BARE_COUNTS: usize = 64;

/// Counter lines pasted without their `Performance counter stats` header
/// (`3,723,554  context-switches  ( +-  0.56% )`): ended by the `seconds
/// time elapsed` line of the same run, right below them or one blank line
/// below, or else read only as [`bare_counts`] allows.
fn counts_over_elapsed(lines: &[Line<'_>], start: usize) -> Option<crate::detect::Found> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let mut metrics = Vec::new();
    let mut n = 0;
    let mut commented = 0;
    while let Some(l) = lines.get(start + n).filter(|l| l.quote == quote) {
        if elapsed_line(l.text).is_some() || n >= MAX_BARE_COUNTS {
            break;
        }
        match perf_line(l.text).filter(|m| !m.is_empty()) {
            Some(m) => metrics.extend(m),
            None if n > 0 && is_shadow_metric(l.text) => attach_spread(&mut metrics, l.text),
            None if n > 0 && is_perf_continuation(l.text) => {}
            None if n > 0 && is_comment_tail(l.text, lines.get(start + n - 1).map(|p| p.text)) => {
                attach_spread(&mut metrics, l.text);
            }
            None => break,
        }
        commented += usize::from(l.text.contains(" # ") || l.text.contains("( +-"));
        n += 1;
    }
    if n == 0 {
        return None;
    }
    // perf prints one blank line over the elapsed line; a paste may keep
    // it or not.
    let elapsed_at = |at: usize| {
        lines
            .get(at)
            .filter(|l| l.quote == quote)
            .and_then(|l| elapsed_line(l.text))
    };
    let blank = lines
        .get(start + n)
        .is_some_and(|l| l.quote == quote && l.text.trim().is_empty());
    let (skip, found) = match elapsed_at(start + n) {
        Some(found) => (0, Some(found)),
        None if blank => (1, elapsed_at(start + n + 1)),
        None => (0, None),
    };
    let Some((label, more)) = found else {
        return bare_counts(n, commented, metrics);
    };
    metrics.extend(more);
    n += skip + 1;
    n += user_sys_lines(lines, start + n, quote, &mut metrics);
    Some(perf_found(n, metrics, label))
}

/// Counter lines with neither their header nor their elapsed line (rows
/// pasted alone, or a copy cut before the end): read only when they are
/// unmistakably perf's: at least three rows, at least half of them in
/// perf's layout (a `#` comment or a `( +- x% )` spread), naming at least
/// two of perf's own events.
fn bare_counts(n: usize, commented: usize, metrics: Vec<Metric>) -> Option<crate::detect::Found> {
    let mut known: Vec<&str> = metrics
        .iter()
        .map(|m| m.name.split([':', ' ']).next().unwrap_or(""))
        .filter(|name| is_perf_event(name))
        .collect();
    known.sort_unstable();
    known.dedup();
    (n >= 3 && 2 * commented >= n && known.len() >= 2).then(|| perf_found(n, metrics, None))
}

/// One of the events `perf list` names among its hardware, software and
/// cache events (without a `:u` / `:k` modifier).
fn is_perf_event(name: &str) -> bool {
    const EVENTS: &[&str] = &[
        "task-clock",
        "cpu-clock",
        "context-switches",
        "cs",
        "cpu-migrations",
        "migrations",
        "page-faults",
        "faults",
        "minor-faults",
        "major-faults",
        "cycles",
        "instructions",
        "branches",
        "branch-misses",
        "branch-instructions",
        "cache-references",
        "cache-misses",
        "bus-cycles",
        "ref-cycles",
        "stalled-cycles-frontend",
        "stalled-cycles-backend",
        "alignment-faults",
        "emulation-faults",
    ];
    EVENTS.contains(&name)
        || [
            "L1-dcache-",
            "L1-icache-",
            "LLC-",
            "dTLB-",
            "iTLB-",
            "branch-load",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// One perf stat block of `consumed` lines, with its label.
fn perf_found(
    consumed: usize,
    metrics: Vec<Metric>,
    label: Option<String>,
) -> crate::detect::Found {
    crate::detect::Found {
        fallback: None,
        consumed,
        bodies: vec![(
            BlockBody::Metrics(Metrics {
                tool: "perf-stat".into(),
                metrics,
                runs: None,
            }),
            label,
        )],
    }
}

/// A `seconds time elapsed` line printed on its own, maybe after a label
/// (`ATOMIC_TIMING:   46.50451 +- 0.00134 seconds time elapsed ( +- 0.00% )`):
/// the label and the metrics of the line.
fn elapsed_line(text: &str) -> Option<(Option<String>, Vec<Metric>)> {
    let at = text.find(" seconds time elapsed")?;
    let head = text.get(..at)?;
    let words: Vec<&str> = head.split_whitespace().collect();
    let n = words.len();
    let value_at = match words.as_slice() {
        [.., _, "+-", _] => n - 3,
        [..] if n >= 1 => n - 1,
        _ => return None,
    };
    let value_word = *words.get(value_at)?;
    parse_number_unit(value_word).filter(|(_, u)| u.is_none())?;
    // Byte offset of that word: words are sub-slices of `head`.
    let from = (value_word.as_ptr() as usize).checked_sub(head.as_ptr() as usize)?;
    let rest = text.get(from..)?;
    let metrics = perf_line(rest)?;
    let label = head
        .get(..from)
        .map(|l| l.trim().trim_end_matches(':').trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string);
    Some((label, metrics))
}

/// `(99.30%)` / `(99,30%)`: how long a multiplexed event was counted;
/// perf before 3.13 printed it in brackets (`[100.00%]`).
fn is_multiplex_share(w: &str) -> bool {
    w.strip_prefix('(')
        .and_then(|w| w.strip_suffix("%)"))
        .or_else(|| w.strip_prefix('[').and_then(|w| w.strip_suffix("%]")))
        .is_some_and(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        })
}

/// The rest of a counter line a narrow terminal or a mailer wrapped: the
/// metric's name and the multiplexing share (`tma_l3_bound  (99,30%)`).
fn is_perf_continuation(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    match words.as_slice() {
        [share] => is_multiplex_share(share),
        [name, share] => is_multiplex_share(share) && !name.chars().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// A second derived metric perf prints under a counter, in the comment
/// column alone (`                 #    0.18  stalled cycles per insn`).
fn is_shadow_metric(text: &str) -> bool {
    // The indent in columns: a tab reaches the next multiple of 8.
    let indent = text
        .chars()
        .take_while(|c| c.is_whitespace())
        .fold(
            0,
            |col, c| if c == '\t' { col / 8 * 8 + 8 } else { col + 1 },
        );
    indent >= 16 && text.trim_start().starts_with('#')
}

/// A second derived metric at the left margin under a counter line at the
/// left margin too (`# 1.48 stalled cycles per insn`): a page that dropped
/// the report's indent.
fn flattened_shadow_metric(text: &str, prev: Option<&str>) -> bool {
    let flat = |t: &str| !t.starts_with(char::is_whitespace);
    prev.is_some_and(|p| flat(p) && p.contains(" # "))
        && flat(text)
        && text
            .strip_prefix("# ")
            .and_then(|r| r.split_whitespace().next())
            .is_some_and(|w| w.trim_end_matches('%').parse::<f64>().is_ok())
}

/// A perf counter value in any locale: `1,234,567` and `2.058.892`
/// (thousands), `1.001989022` and `1,001989022` (decimals). A single
/// separator followed by exactly three digits is read as thousands only
/// when it is a comma (perf's English output).
fn perf_number(tok: &str) -> Option<f64> {
    let dots = tok.matches('.').count();
    let commas = tok.matches(',').count();
    // A grouped number never starts with a group `0` (`0,618` is a
    // decimal comma).
    let groups_of_three = |sep: char| {
        let mut parts = tok.split(sep);
        let first = parts.next().unwrap_or("");
        !first.is_empty()
            && first != "0"
            && first.len() <= 3
            && parts.all(|p| p.len() == 3 && p.chars().all(|c| c.is_ascii_digit()))
    };
    let normalized = if dots >= 2 && commas == 0 && groups_of_three('.') {
        tok.replace('.', "")
    } else if dots >= 1 && commas == 1 && tok.rfind(',') > tok.rfind('.') {
        // `2.058,5`: German thousands and decimals.
        tok.replace('.', "").replace(',', ".")
    } else if commas == 1 && dots == 0 && !groups_of_three(',') {
        tok.replace(',', ".")
    } else {
        return parse_number_unit(tok)
            .filter(|(_, u)| u.is_none())
            .map(|(v, _)| v);
    };
    normalized.parse().ok().filter(|v: &f64| v.is_finite())
}

/// A counter's value in the block's locale: under `european`, `306.500`
/// is three hundred thousand and `88,427` is 88.427.
fn perf_value(tok: &str, european: bool) -> Option<f64> {
    if european && is_thousands_dot(tok) {
        return tok.replace('.', "").parse().ok();
    }
    if european && tok.matches(',').count() == 1 && !tok.contains('.') {
        return tok
            .replace(',', ".")
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite());
    }
    perf_number(tok)
}

/// Whether a line prints a number with a decimal comma no other locale
/// could mean: `0,618`, `( +-  0,70% )`, `#  0,017 M/sec`.
fn has_decimal_comma(text: &str) -> bool {
    text.split_whitespace().skip(1).any(|w| {
        let w = w.trim_matches(|c| matches!(c, '(' | ')' | '%'));
        w.strip_prefix("0,")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// `306.500`: one dot and three digits after it.
fn is_thousands_dot(w: &str) -> bool {
    matches!(w.split_once('.'), Some((a, b)) if !a.is_empty() && a.len() <= 3
        && a.chars().all(|c| c.is_ascii_digit()) && b.len() == 3 && b.chars().all(|c| c.is_ascii_digit()))
}

/// Whether a counter value is printed the German way (`2.058.892`,
/// `1,001989022`).
fn is_european(w: &str) -> bool {
    if !w.starts_with(|c: char| c.is_ascii_digit())
        || !w
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
    {
        return false;
    }
    let dots = w.matches('.').count();
    let commas = w.matches(',').count();
    (dots >= 2 && commas == 0)
        || (commas == 1 && dots == 0 && w.split(',').nth(1).is_some_and(|d| d.len() != 3))
}

/// `Performance counter stats for 'cmd' (3 runs):` → 3.
fn perf_runs(text: &str) -> Option<u64> {
    let t = text
        .trim()
        .strip_suffix(':')?
        .trim_end()
        .strip_suffix("runs)")?;
    let at = t.rfind('(')?;
    t.get(at + 1..)?.trim().parse().ok()
}

/// A counter line without the note a poster appended after an arrow
/// (`6,491  r8000000000000005  (52.59%) --> SBI_PMU_FW_SET_TIMER`,
/// `Cached:  4294741680 kB     <------ This is impossible`).
pub(crate) fn without_arrow_note(text: &str) -> &str {
    // `->`, `-->`, `==>`, `<-`, `<------`, `<==`: a head and a shaft.
    let arrow = |w: &str| {
        let shaft = |s: &str| !s.is_empty() && s.chars().all(|c| c == '-' || c == '=');
        w.strip_prefix('<').is_some_and(shaft) || w.strip_suffix('>').is_some_and(shaft)
    };
    let mut at = 0;
    for w in text.split_whitespace() {
        let Some(off) = text[at..].find(w) else { break };
        let start = at + off;
        if arrow(w) && start > 0 {
            return text[..start].trim_end();
        }
        at = start + w.len();
    }
    text
}

fn perf_stat(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    // The header's command may go on over a few lines (a shell's `\` at
    // the end of one, or a mailer's wrap) up to the `... (5 runs):` that
    // ends it.
    let mut header = lines.get(start)?.text.trim_end().to_string();
    let mut body_at = start + 1;
    while !header.ends_with(':') && body_at < start + 4 {
        let Some(next) = lines
            .get(body_at)
            .filter(|l| l.quote == quote && !l.text.trim().is_empty())
        else {
            break;
        };
        header.push(' ');
        header.push_str(next.text.trim());
        body_at += 1;
    }
    if !header.ends_with(':') {
        header = lines.get(start)?.text.to_string();
        body_at = start + 1;
    }
    let runs = perf_runs(&header);
    let european = lines
        .iter()
        .skip(body_at)
        .take(64)
        .take_while(|l| l.quote == quote)
        .filter_map(|l| l.text.split_whitespace().next())
        .any(is_european);
    let mut i = body_at;
    let mut end = i;
    let mut blanks = 0;
    let mut skipped = 0;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if l.text.trim().is_empty() {
            blanks += 1;
            if blanks > 1 && !metrics.is_empty() {
                break;
            }
            i += 1;
            continue;
        }
        blanks = 0;
        if is_measurement_table_line(l.text) {
            // `--table`: the runs' times, then `# Final result:` over the
            // elapsed line, which is read as ever.
            i += 1;
            continue;
        }
        // A spread a mailer wrapped after its parenthesis (`cycles  test
        // (` / `+-  1.84% )`): the counter's line and its spread, joined.
        let wrapped = lines
            .get(i + 1)
            .filter(|n| n.quote == quote)
            .and_then(|n| spread_wrapped_after_paren(l.text, n.text));
        let text = without_arrow_note(wrapped.as_deref().unwrap_or(l.text));
        match perf_line_in(text, european) {
            Some(m) if wrapped.is_some() => {
                metrics.extend(m);
                i += 1;
            }
            Some(m) => metrics.extend(m),
            None if is_comment_tail(l.text, lines.get(i - 1).map(|p| p.text)) => {
                attach_spread(&mut metrics, l.text);
            }
            None if is_perf_continuation(l.text) => {}
            // Its `( +- x% )` is the counter's above.
            None if is_shadow_metric(l.text)
                || flattened_shadow_metric(l.text, lines.get(i - 1).map(|p| p.text)) =>
            {
                attach_spread(&mut metrics, l.text)
            }
            // A side's name or a fence between the header and its counts
            // (`PR`, then a fence opening): at most two such lines.
            None if metrics.is_empty() && skipped < 2 && is_label_between(l.text) => {
                skipped += 1;
                i += 1;
                continue;
            }
            None => break,
        }
        i += 1;
        end = i;
    }
    if metrics.is_empty() {
        return None;
    }
    Some((
        end - start,
        BlockBody::Metrics(Metrics {
            tool: "perf-stat".into(),
            metrics,
            runs,
        }),
    ))
}

/// A counter line ending in `(` and the next line holding the rest of its
/// `( +- x% )`: the two joined.
fn spread_wrapped_after_paren(text: &str, next: &str) -> Option<String> {
    let head = text.trim_end().strip_suffix('(')?.trim_end();
    let rest = next.trim();
    (rest.starts_with("+-") && rest.contains("%") && rest.contains(')'))
        .then(|| format!("{head}  ( {rest}"))
}

/// A short line without digits (`PR:`, `after`) or a fence: what may stand
/// between a perf stat header and its first counter.
fn is_label_between(text: &str) -> bool {
    let t = text.trim();
    crate::hints::is_fence(t)
        || (t.len() <= 40
            && t.split_whitespace().count() <= 3
            && !t.chars().any(|c| c.is_ascii_digit()))
}

/// The lines `perf stat -r N --table` prints between the counts and the
/// elapsed time: `# Table of individual measurements:`, a row per run
/// (`9.078223741 (+0.139870049) ##`) and `# Final result:`. The rows are
/// not kept: the elapsed line under them holds their mean and spread.
fn is_measurement_table_line(text: &str) -> bool {
    let t = text.trim();
    if t == "# Table of individual measurements:" || t == "# Final result:" {
        return true;
    }
    let Some((time, rest)) = t.split_once(' ') else {
        return false;
    };
    let Some((delta, bar)) = rest
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
    else {
        return false;
    };
    time.parse::<f64>().is_ok()
        && delta.starts_with(['+', '-'])
        && delta[1..].parse::<f64>().is_ok()
        && bar.trim().starts_with('#')
}

/// One `perf stat -x,` line: `82.09,msec,task-clock,82091888,100.00,0.437,CPUs utilized`
/// (with `-r N` a variance field `0.37%` follows the event). `None` when
/// the line is not one; `Some(vec![])` for `<not supported>` events.
fn perf_csv_line(text: &str) -> Option<Vec<Metric>> {
    let t = text.trim();
    // `-x ';'` as well as `-x,` (a `:` or a tab would clash with event
    // names and tables): the first of the two the line holds.
    let sep = [',', ';'].into_iter().find(|c| t.contains(*c))?;
    perf_csv_fields(t, sep)
}

/// One `-x` line after its separator is known (and after `-I`'s time).
fn perf_csv_fields(t: &str, sep: char) -> Option<Vec<Metric>> {
    let mut f: Vec<&str> = t.split(sep).collect();
    // `-A`: `CPU0,552.04,msec,task-clock,...`, the CPU first.
    let cpu = f
        .first()
        .filter(|w| {
            w.strip_prefix("CPU")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|w| w.to_string());
    if cpu.is_some() {
        f.remove(0);
    }
    if f.len() < 4 {
        return None;
    }
    let (value, unit, event) = (f.first()?.trim(), f.get(1)?.trim(), f.get(2)?.trim());
    let event_ok = !event.is_empty()
        && event.len() <= 128
        && event
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:./=@[]".contains(c))
        && event.starts_with(|c: char| c.is_ascii_alphabetic());
    let unit_ok =
        unit.is_empty() || (unit.len() <= 8 && unit.chars().all(|c| c.is_ascii_alphabetic()));
    if !event_ok || !unit_ok {
        return None;
    }
    if value.starts_with("<not ") {
        return Some(Vec::new());
    }
    let value: f64 = value.parse().ok().filter(|v: &f64| v.is_finite())?;
    let unit = (!unit.is_empty()).then(|| unit.to_string());
    let spread_pct = f
        .get(3)
        .and_then(|v| v.trim().strip_suffix('%'))
        .and_then(|v| v.parse::<f64>().ok());
    let name = match cpu {
        Some(cpu) => format!("{event} {cpu}"),
        None => event.to_string(),
    };
    Some(vec![Metric {
        name,
        value,
        unit,
        spread_pct,
        spread: None,
    }])
}

/// A run of `perf stat -x,` lines (at least two).
fn perf_csv(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut n = 0;
    while let Some(l) = lines.get(start + n).filter(|l| l.quote == quote) {
        match perf_csv_line(l.text) {
            Some(m) => metrics.extend(m),
            None => break,
        }
        n += 1;
    }
    (n >= 2 && !metrics.is_empty()).then(|| {
        (
            n,
            BlockBody::Metrics(Metrics {
                tool: "perf-stat".into(),
                metrics,
                runs: None,
            }),
        )
    })
}

/// `     0.503483555             191.47 msec task-clock   # ...`: the
/// interval's end time and the rest of the line.
fn perf_interval_line(text: &str) -> Option<(f64, &str)> {
    let t = text.trim_start();
    let (ts, rest) = t.split_once(char::is_whitespace)?;
    let (secs, frac) = ts.split_once('.')?;
    if frac.len() != 9
        || !secs.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    Some((ts.parse().ok()?, rest))
}

/// `perf stat -I N -x SEP`: `     0.200935102,203.18,msec,task-clock,...`,
/// the interval's end time as the first field. The separator is the
/// character after the time: `,`, `;` or `'` (`-x"'"`).
fn perf_csv_interval_line(text: &str) -> Option<(f64, Vec<Metric>)> {
    let t = text.trim();
    let at = t.find([',', ';', '\''])?;
    let sep = t[at..].chars().next()?;
    let (secs, frac) = t[..at].split_once('.')?;
    if frac.len() != 9
        || secs.is_empty()
        || !secs.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let ms = perf_csv_fields(&t[at + 1..], sep)?;
    Some((t[..at].parse().ok()?, ms))
}

/// `perf stat -I N`: one block per interval, each with an `interval end`
/// metric (seconds since the start) and the counts of that interval.
pub fn perf_intervals(lines: &[Line<'_>], start: usize) -> Option<(usize, Vec<Metrics>)> {
    let first = lines.get(start)?;
    let header = first.text.trim_start().starts_with('#')
        && first.text.contains("time")
        && first.text.contains("counts")
        && first.text.contains("events");
    let quote = first.quote;
    let mut i = start + usize::from(header);
    let mut blocks: Vec<(f64, Metrics)> = Vec::new();
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        let read = perf_csv_interval_line(l.text).or_else(|| {
            let (ts, rest) = perf_interval_line(l.text)?;
            Some((ts, perf_line(rest)?))
        });
        let Some((ts, ms)) = read else { break };
        if blocks.last().is_none_or(|(t, _)| *t != ts) {
            blocks.push((
                ts,
                Metrics {
                    tool: "perf-stat".into(),
                    metrics: vec![Metric::new("interval end", ts, Some("s"))],
                    runs: None,
                },
            ));
        }
        if let Some((_, b)) = blocks.last_mut() {
            b.metrics.extend(ms);
        }
        i += 1;
    }
    let lines_read = i - start - usize::from(header);
    if lines_read < 2 {
        return None;
    }
    Some((i - start, blocks.into_iter().map(|(_, m)| m).collect()))
}

/// The `user` / `sys` lines perf prints under `seconds time elapsed`,
/// from `at` on at quote level `quote`: added to `metrics`; returns how
/// many lines they take.
fn user_sys_lines(lines: &[Line<'_>], at: usize, quote: u32, metrics: &mut Vec<Metric>) -> usize {
    let mut n = 0;
    while let Some(l) = lines.get(at + n).filter(|l| l.quote == quote) {
        match perf_line(l.text) {
            Some(m)
                if m.first()
                    .is_some_and(|m| m.name == "user" || m.name == "sys") =>
            {
                metrics.extend(m);
                n += 1;
            }
            _ => break,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    #[test]
    fn perf_aggregated_lines() {
        let m =
            perf_line("CPU1                   502.15 msec task-clock   #    1.000 CPUs utilized")
                .unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("task-clock CPU1", 502.15)
        );
        let m = perf_line(
            "S0-D0-C1           1             303.51 msec task-clock   #  1.000 CPUs utilized",
        )
        .unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("task-clock S0-D0-C1", 303.51)
        );
        let m = perf_line("S0        2          5,081      context-switches").unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("context-switches S0", 5081.0)
        );
        // `--no-merge`: each PMU instance is a counter of its own.
        let m = perf_line(
            "CPU0        1,001,121,239      cpa_cycles [hisi_sicl0_cpa0]     #     0.00 cpa_p0_avg_bw",
        )
        .unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("cpa_cycles [hisi_sicl0_cpa0] CPU0", 1001121239.0)
        );
        assert!(perf_line("12 cycles [not a pmu]").is_none());
        let m = perf_line("     4,197,830,552      cycles                    ← ①总周期").unwrap();
        assert_eq!((m[0].name.as_str(), m[0].value), ("cycles", 4197830552.0));
        let m = perf_line("  914  page-faults   # 0.1 K/sec  <-- up").unwrap();
        assert_eq!(m[0].name, "page-faults");
        assert!(perf_line("← 12 cycles").is_none());
        // A per-socket id without its CPU count is not one.
        assert!(perf_aggregation("S0 cycles").is_none());
        assert!(perf_aggregation("Samples 12").is_none());
    }

    #[test]
    fn a_spread_wrapped_after_its_parenthesis_is_the_counters() {
        let text = "  Performance counter stats for 'system wide' (5 runs):\n\n\
            \x20      841954709443      cycles                    test                    (\n\
            +- 15.80% )  (98.69%)\n\
            \x20      527258677936      instructions              test\n\n\
            \x20          10.01064 +- 0.00831 seconds time elapsed  ( +-  0.08% )\n";
        let (n, BlockBody::Metrics(m)) = perf_stat(&split(text), 0).unwrap() else {
            panic!()
        };
        assert_eq!((n, m.runs), (7, Some(5)));
        assert_eq!(m.metrics[0].name, "cycles test");
        assert_eq!(m.metrics[0].spread_pct, Some(15.8));
        assert_eq!(m.metrics[1].spread_pct, None);
        // A line ending in `(` over anything else is no wrapped spread.
        assert!(spread_wrapped_after_paren("1 cycles (", "foo 2").is_none());
        assert!(spread_wrapped_after_paren("1 cycles", "+- 2% )").is_none());
    }

    #[test]
    fn a_tab_indented_second_comment_line_keeps_the_report_and_its_spread() {
        let text = " Performance counter stats for 'perf bench sched pipe' (10 runs):\n\n\
            \t\t84,456,137      instructions:u            #    0.25  insn per cycle\n\
            \t\t\t\t\t\t\t  #    0.83  stalled cycles per insn  ( +-  0.02% )  (83.01%)\n\
            \t\t34,097,544      branches:u                #    2.058 M/sec                    ( +-  0.02% )  (83.52%)\n\n\
            \t\t   14.5464 +- 0.0758 seconds time elapsed  ( +-  0.52% )\n";
        let (n, BlockBody::Metrics(m)) = perf_stat(&split(text), 0).unwrap() else {
            panic!()
        };
        assert_eq!(n, 7);
        let got: Vec<(&str, Option<f64>)> = m
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.spread_pct))
            .collect();
        assert_eq!(
            got,
            [
                ("instructions:u", Some(0.02)),
                ("branches:u", Some(0.02)),
                ("time elapsed", Some(0.52))
            ]
        );
        // Eight spaces and a `#` are a comment column too short for perf's.
        assert!(!is_shadow_metric("        # 0.83 stalled"));
        assert!(is_shadow_metric("\t\t# 0.83 stalled"));
        let counter = Some("2,603,501,247 instructions # 0.50 insns per cycle");
        assert!(flattened_shadow_metric(
            "# 1.48 stalled cycles per insn",
            counter
        ));
        assert!(!flattened_shadow_metric("# perf stat -a", counter));
        assert!(!flattened_shadow_metric(
            "# 1.48 stalled cycles per insn",
            Some("   2,603,501,247 instructions # 0.50 insns per cycle")
        ));
    }

    #[test]
    fn a_wrapped_tail_with_digits_in_its_words_stays_in_the_report() {
        let text = " Performance counter stats for './bench' (8 runs):\n\n\
            \x20     1120091414      L1-dcache-load-misses     #    1.46% of all \n\
            L1-dcache hits    ( +-  0.08% )\n\n\
            \x20          23.8854 +- 0.0804 seconds time elapsed  ( +-  0.34% )\n";
        let lines = split(text);
        let (n, BlockBody::Metrics(m)) = perf_stat(&lines, 0).unwrap() else {
            panic!()
        };
        assert_eq!(n, 6);
        assert_eq!(m.metrics[0].spread_pct, Some(0.08));
        assert_eq!(
            (m.metrics[1].name.as_str(), m.metrics[1].value),
            ("time elapsed", 23.8854)
        );
        // A wrapped line that starts with a number is no comment's tail.
        assert!(!is_comment_tail(
            "1.46 of all",
            Some("      1120091414      L1-dcache-load-misses     #    1.46% of all ")
        ));
    }

    #[test]
    fn counts_pasted_alone_are_read_when_perf_printed_them() {
        let text = "   21,606.85 msec task-clock        #    0.322 CPUs utilized\n\
            \x20      1,670      context-switches  #    0.077 K/sec\n\
            \x20 78,571,991,365  cycles            #    3.636 GHz\n\
            \x20 77,694,405      branch-misses     #    0.84% of all\n\
            branches   ( +-  0.56% )\n\nAfter:\n";
        let lines = crate::lines::split(text);
        let found = counts_over_elapsed(&lines, 0).unwrap();
        assert_eq!(found.consumed, 5);
        let Some((BlockBody::Metrics(m), None)) = found.bodies.first() else {
            panic!()
        };
        let names: Vec<&str> = m.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            ["task-clock", "context-switches", "cycles", "branch-misses"]
        );
        // The wrapped tail's spread is the counter's above it.
        assert_eq!(m.metrics[3].spread_pct, Some(0.56));
        // Two rows, or rows without perf's comment column, or names that
        // are not perf's events: not read without a header or an elapsed
        // line.
        for text in [
            "  1,670  context-switches  # 0.077 K/sec\n  52  cpu-migrations  # 0.002 K/sec\n",
            "  1,670  context-switches\n  52  cpu-migrations\n  9  page-faults\n",
            "  10 apples  # red\n  12 pears  # green\n  3 plums  # blue\n",
        ] {
            let lines = crate::lines::split(text);
            assert!(counts_over_elapsed(&lines, 0).is_none(), "{text}");
        }
    }

    #[test]
    fn counts_pasted_over_their_elapsed_line() {
        let text = "\t3,723,554        context-switches      ( +-  0.56% )\n\t9.5136 +- 0.0394 seconds time elapsed  ( +-  0.41% )\n";
        let lines = crate::lines::split(text);
        let found = counts_over_elapsed(&lines, 0).unwrap();
        assert_eq!(found.consumed, 2);
        let Some((BlockBody::Metrics(m), None)) = found.bodies.first() else {
            panic!()
        };
        let got: Vec<(&str, f64, Option<f64>)> = m
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.value, m.spread_pct))
            .collect();
        assert_eq!(
            got,
            [
                ("context-switches", 3723554.0, Some(0.56)),
                ("time elapsed", 9.5136, Some(0.41))
            ]
        );
        // perf's own blank line over the elapsed line may be kept; two
        // blank lines part them.
        let text = "\t3,723,554        context-switches      ( +-  0.56% )\n\n\t9.5136 +- 0.0394 seconds time elapsed  ( +-  0.41% )\n";
        let found = counts_over_elapsed(&crate::lines::split(text), 0).unwrap();
        assert_eq!(found.consumed, 3);
        let text = "\t3,723,554        context-switches      ( +-  0.56% )\n\n\n\t9.5136 seconds time elapsed\n";
        assert!(counts_over_elapsed(&crate::lines::split(text), 0).is_none());
        // Without the elapsed line under them they are not read this way.
        let lines = crate::lines::split("\t3,723,554        context-switches\n\nprose\n");
        assert!(counts_over_elapsed(&lines, 0).is_none());
    }

    #[test]
    fn perf_lines() {
        let m =
            perf_line("         1,234,567      cycles                    #    3.200 GHz").unwrap();
        assert_eq!((m[0].name.as_str(), m[0].value), ("cycles", 1234567.0));
        let m = perf_line("      49.634000000 seconds time elapsed").unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].unit.as_deref()),
            ("time elapsed", Some("s"))
        );
        let m = perf_line("          1,234.56 msec task-clock   #    0.998 CPUs utilized").unwrap();
        assert_eq!(m[0].value, 1234.56);
        assert!(perf_line("Some prose here").is_none());
    }

    #[test]
    fn perf_spreads() {
        let m =
            perf_line("            0.1200 +- 0.0155 seconds time elapsed  ( +- 12.95% )").unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].name.as_str(), m[0].value), ("time elapsed", 0.12));
        assert_eq!(
            (m[0].spread, m[0].spread_pct, m[0].unit.as_deref()),
            (Some(0.0155), Some(12.95), Some("s"))
        );
        let m = perf_line(
            "   146      context-switches      #    2.613 K/sec                    ( +- 13.64% )",
        )
        .unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].name.as_str(), m[0].value, m[0].spread_pct, m[0].spread),
            ("context-switches", 146.0, Some(13.64), None)
        );
        // A German locale prints the spreads with a decimal comma.
        let m = perf_line_in(
            "         0,0018904 +- 0,0000454 seconds time elapsed  ( +-  2,40% )",
            true,
        )
        .unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].value, m[0].spread, m[0].spread_pct),
            (0.0018904, Some(0.0000454), Some(2.40))
        );
        let m = perf_line_in(
            "           278.788      cycles:u                  #    0,246 GHz                      ( +- 10,28% )  (32,41%)",
            true,
        )
        .unwrap();
        assert_eq!((m[0].value, m[0].spread_pct), (278788.0, Some(10.28)));
        assert_eq!(
            perf_runs(" Performance counter stats for 'sh -c x' (3 runs):"),
            Some(3)
        );
    }

    #[test]
    fn labelled_elapsed_lines() {
        let (label, m) = elapsed_line("    REFCOUNT_TIMING (REFCOUNT_FULL, mainline):\t\t1 +- 0.1 seconds time elapsed  ( +-  0.01% )").unwrap();
        assert_eq!(
            label.as_deref(),
            Some("REFCOUNT_TIMING (REFCOUNT_FULL, mainline)")
        );
        assert_eq!((m[0].value, m[0].spread), (1.0, Some(0.1)));
        let (label, m) =
            elapsed_line("  6.5681 +- 0.0225 seconds time elapsed  ( +-  0.34% )").unwrap();
        assert_eq!((label, m[0].value), (None, 6.5681));
    }

    #[test]
    fn perf_numbers_in_any_locale() {
        assert_eq!(perf_number("2.058.892"), Some(2058892.0));
        assert_eq!(perf_number("1,001989022"), Some(1.001989022));
        assert_eq!(perf_number("1,234,567"), Some(1234567.0));
        assert_eq!(perf_number("83723.452481"), Some(83723.452481));
        assert_eq!(perf_number("1,5"), Some(1.5));
        assert_eq!(perf_number("0,618"), Some(0.618));
        // A line's own decimal commas say how its grouped-looking value reads.
        let m = perf_line("88,427 +- 0,618 seconds time elapsed  ( +-  0,70% )").unwrap();
        assert_eq!((m[0].value, m[0].spread), (88.427, Some(0.618)));
        let m = perf_line("88,427 +- 1,618 seconds time elapsed").unwrap();
        assert_eq!(m[0].value, 88427.0);
        assert_eq!(perf_number("abc"), None);
        assert!(is_perf_continuation("tma_l3_bound             (99,30%)"));
        assert!(is_perf_continuation("                        (99,10%)"));
        assert!(!is_perf_continuation("Some prose (here)"));
    }

    #[test]
    fn old_shares_threads_and_other_separators() {
        let m = perf_line("       20      sched:sched_process_free      [100.00%]").unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("sched:sched_process_free", 20.0)
        );
        let m =
            perf_line("  sort-30102      146.44 msec task-clock   #  0.234 CPUs utilized").unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("task-clock sort-30102", 146.44)
        );
        assert!(perf_line("gcc-12 was used").is_none());
        let m = perf_csv_line("58.64;msec;task-clock;0.63%;58639063;100.00;0.226;CPUs utilized")
            .unwrap();
        assert_eq!((m[0].value, m[0].spread_pct), (58.64, Some(0.63)));
        let m = perf_csv_line("CPU1,316,,context-switches,517176937,100.00,611.007,/sec").unwrap();
        assert_eq!(
            (m[0].name.as_str(), m[0].value),
            ("context-switches CPU1", 316.0)
        );
    }

    #[test]
    fn perf_table_of_measurements() {
        assert!(is_measurement_table_line(
            "          # Table of individual measurements:"
        ));
        assert!(is_measurement_table_line(
            "       9.078223741 (+0.139870049) ##"
        ));
        assert!(is_measurement_table_line("0.037849 (-0.001171) #"));
        assert!(is_measurement_table_line("  # Final result:"));
        assert!(!is_measurement_table_line("0.037849 (-0.001171)"));
        assert!(!is_measurement_table_line(
            "38.14 msec task-clock  #  0.977 CPUs utilized"
        ));
        let lines = split(
            " Performance counter stats for 'sh' (3 runs):\n\n   38.14 msec task-clock   #    0.977 CPUs utilized   ( +-  2.03% )\n\n   # Table of individual measurements:\n   0.040932 (+0.001912) #\n   0.038279 (-0.000741) #\n\n   # Final result:\n   0.039020 +- 0.000964 seconds time elapsed  ( +-  2.47% )\n",
        );
        let Some((n, BlockBody::Metrics(m))) = perf_stat(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 10);
        let elapsed = m.metrics.iter().find(|m| m.name == "time elapsed").unwrap();
        assert_eq!((elapsed.value, elapsed.spread_pct), (0.039020, Some(2.47)));
    }

    #[test]
    fn perf_csv_and_intervals() {
        let m = perf_csv_line("57.08,msec,task-clock,0.37%,57076211,100.00,0.439,CPUs utilized")
            .unwrap();
        assert_eq!((m[0].value, m[0].spread_pct), (57.08, Some(0.37)));
        assert_eq!(
            perf_csv_line("<not supported>,,cycles,0,100.00,,"),
            Some(vec![])
        );
        assert!(perf_csv_line("a,b,c").is_none());
        assert!(perf_csv_line("1,2,3,4").is_none());
        let lines = split(
            "#           time             counts unit events\n     0.503483555             191.47 msec task-clock  # 0.383 CPUs utilized\n     0.503483555               1906      page-faults\n     0.859980489             170.99 msec task-clock\n",
        );
        let (n, blocks) = perf_intervals(&lines, 0).unwrap();
        assert_eq!((n, blocks.len()), (4, 2));
        assert_eq!(blocks[0].metrics[2].value, 1906.0);
        assert_eq!(blocks[1].metrics[0].value, 0.859980489);
        // `-I` with `-x,` and with `-x"'"` and `-A`.
        let lines = split(
            "     0.200935102,203.18,msec,task-clock,203181712,100.00,1.016,CPUs utilized\n     0.200935102,1935,,page-faults,203181712,100.00,9.523,K/sec\n     0.368488008,162.44,msec,task-clock,162441676,100.00,0.812,CPUs utilized\n",
        );
        let (n, blocks) = perf_intervals(&lines, 0).unwrap();
        assert_eq!((n, blocks.len()), (3, 2));
        assert_eq!(blocks[0].metrics[2].name, "page-faults");
        assert_eq!(blocks[1].metrics[1].value, 162.44);
        let (ts, m) = perf_csv_interval_line(
            "  0.250336972'CPU0'5''context-switches'253382550'100.00'19.733'/sec",
        )
        .unwrap();
        assert_eq!(
            (ts, m[0].name.as_str(), m[0].value),
            (0.250336972, "context-switches CPU0", 5.0)
        );
        assert!(perf_csv_interval_line("0.25,1,,x,1").is_none());
    }

    #[test]
    fn a_note_after_an_arrow_is_no_part_of_the_counter() {
        assert_eq!(
            without_arrow_note(
                "   6,491      r8000000000000005      (52.59%) --> SBI_PMU_FW_SET_TIMER"
            ),
            "   6,491      r8000000000000005      (52.59%)"
        );
        assert_eq!(
            without_arrow_note("  12 cycles  <- this one"),
            "  12 cycles"
        );
        assert_eq!(
            without_arrow_note("Cached:  4294741680 kB     <------ This is impossible"),
            "Cached:  4294741680 kB"
        );
        assert_eq!(without_arrow_note("a - b"), "a - b");
        assert_eq!(
            without_arrow_note("  12 cycles # 1.0 GHz"),
            "  12 cycles # 1.0 GHz"
        );
        assert_eq!(without_arrow_note("-> 12"), "-> 12");
    }

    #[test]
    fn a_perf_stat_header_whose_command_goes_on_below() {
        let text = "Before:\n\n Performance counter stats for './src/bpftrace -ve kfunc:__x64_sys_s* \\\n   { printf(\"test\\n\"); } i:ms:10 { exit();}' (5 runs):\n\n     2,535,458,767      cycles:k                         ( +-  0.55% )\n\n             33.60 +- 3.27 seconds time elapsed  ( +-  9.73% )\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{doc:?}");
        let b = &doc.blocks[0];
        assert_eq!(b.label.as_deref(), Some("before"));
        assert_eq!(b.lines[0], 3);
        let BlockBody::Metrics(m) = &b.body else {
            panic!("{b:?}")
        };
        assert_eq!(m.runs, Some(5));
        assert_eq!(m.metrics[0].value, 2535458767.0);
    }

    #[test]
    fn stress_ng_brief() {
        let text = "stress-ng: metrc: [1566] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\nstress-ng: metrc: [1566]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: metrc: [1566] cpu              195446     30.22    101.30     17.38      6466.63        1646.88\nstress-ng: info:  [1566] skipped: 0\n";
        let lines = split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 3);
        let BlockBody::Metrics(m) = body else {
            panic!()
        };
        assert_eq!(m.metrics.len(), 6);
        assert_eq!(m.metrics[4].name, "cpu bogo ops/s (real time)");
        assert_eq!(m.metrics[4].value, 6466.63);
    }

    /// `--perf --times`: the counters between a table and its summary are
    /// their own block; the summary is the table's, or the counters' when
    /// no table is above them.
    #[test]
    fn stress_ng_without_prefix_keeps_its_times_past_the_smi_count() {
        let text = "1) Before:\n\n  setting to a 60 second run per stressor\n  dispatching hogs: 9 ramfs\n  stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n                            (secs)    (secs)    (secs)   (real time) (usr+sys time)\n  ramfs            880623     60.02      7.71    226.93     14671.45        3753.09\n  ramfs:\n           1 System Management Interrupt\n  for a 60.03s run time:\n     5762.40s available CPU time\n        7.71s user time   (  0.13%)\n      226.93s system time (  3.94%)\n      234.64s total time  (  4.07%)\n  load average: 8.54 3.06 2.11\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{doc:?}");
        let b = &doc.blocks[0];
        assert_eq!(b.label.as_deref(), Some("before"));
        assert_eq!(b.lines, [5, 14]);
        let BlockBody::Metrics(m) = &b.body else {
            panic!("{b:?}")
        };
        let get = |n: &str| m.metrics.iter().find(|x| x.name == n).map(|x| x.value);
        assert_eq!(get("ramfs bogo ops"), Some(880623.0));
        assert_eq!(get("run time"), Some(60.03));
        assert_eq!(get("total time"), Some(234.64));
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    #[test]
    fn stress_ng_times_after_perf_list() {
        let head = "stress-ng: metrc: [7] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\nstress-ng: metrc: [7]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: metrc: [7] zlib                128      3.73      1.96      0.01        34.33          64.83\n";
        let perf = "stress-ng: info:  [7] zlib:\nstress-ng: info:  [7]                 1945804541 CPU Clock                      0.522 B/sec\nstress-ng: info:  [7]                        562 Context Switches             150.681 /sec\n";
        let times = "stress-ng: info:  [7] for a 3.73s run time:\nstress-ng: info:  [7]       7.46s available CPU time\nstress-ng: info:  [7]       1.96s user time   ( 26.28%)\n";
        let text = format!("{head}{perf}{times}");
        let lines = split(&text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 3, "the table stops at the counters");
        let BlockBody::Metrics(table) = body else {
            panic!()
        };
        let names: Vec<&str> = table.metrics.iter().map(|m| m.name.as_str()).collect();
        assert!(names.contains(&"run time") && names.contains(&"user time share"));
        let (n, body) = recognize(&lines, 4).unwrap().unwrap();
        assert_eq!(n, 5, "the counters cover the summary's lines");
        let BlockBody::Metrics(counters) = body else {
            panic!()
        };
        assert!(counters.metrics.iter().all(|m| !m.name.contains("time")));
        let alone = format!("{perf}{times}");
        let lines = split(&alone);
        let (_, body) = recognize(&lines, 1).unwrap().unwrap();
        let BlockBody::Metrics(counters) = body else {
            panic!()
        };
        assert!(counters.metrics.iter().any(|m| m.name == "run time"));
    }
}
