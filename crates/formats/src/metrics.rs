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
    if let Some(rest) = stress_ng_payload(line.text)
        && rest.trim_start().starts_with("stressor")
        && rest.contains("bogo ops")
    {
        return stress_ng(lines, start).map(Ok);
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
    None
}

/// The text after `stress-ng: <level>: [pid] `, wherever the line starts
/// (journal lines carry a date and `stress-ng[pid]:` prefix).
fn stress_ng_payload(text: &str) -> Option<&str> {
    let at = text.find("stress-ng: ")?;
    let rest = text.get(at + "stress-ng: ".len()..)?;
    let (level, rest) = rest.split_once(':')?;
    if !matches!(level, "info" | "metrc" | "debug") {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('[')?;
    let (pid, rest) = rest.split_once(']')?;
    pid.chars().all(|c| c.is_ascii_digit()).then_some(rest)
}

fn stress_ng(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut misc = false;
    let mut i = start + 1;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        let Some(rest) = stress_ng_payload(l.text) else {
            break;
        };
        let rest = rest.trim();
        if rest.starts_with("(secs)") {
            i += 1;
            continue;
        }
        if rest.starts_with("miscellaneous metrics") {
            misc = true;
            i += 1;
            continue;
        }
        let mut words = rest.split_whitespace();
        let Some(stressor) = words.next() else { break };
        if misc {
            // `close   600923.80 close calls per sec (harmonic mean of 192 instances)`
            let Some((v, _)) = words.next().and_then(parse_number_unit) else {
                break;
            };
            let desc: Vec<&str> = words.take_while(|w| !w.starts_with('(')).collect();
            metrics.push(Metric {
                name: format!("{stressor} {}", desc.join(" ")),
                value: v,
                unit: None,
            });
            i += 1;
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
            metrics.push(Metric {
                name: format!("{stressor} {name}"),
                value: *v,
                unit: Some((*unit).to_string()),
            });
        }
        i += 1;
    }
    if metrics.is_empty() {
        return None;
    }
    Some((
        i - start,
        BlockBody::Metrics(Metrics {
            tool: "stress-ng".into(),
            metrics,
        }),
    ))
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
    let mut run = 0;
    while let Some(u) = lines
        .get(i)
        .filter(|l| l.quote == quote)
        .and_then(|l| usemem_line(l.text))
    {
        match u {
            Usemem::Throughput { bytes, usecs, kbps } => {
                run += 1;
                let m = |name: &str, value, unit: &str| Metric {
                    name: format!("usemem[{run}] {name}"),
                    value,
                    unit: Some(unit.into()),
                };
                metrics.push(m("bytes", bytes, "B"));
                metrics.push(m("time", usecs, "us"));
                metrics.push(m("throughput", kbps, "KB/s"));
            }
            Usemem::Free { usecs } => metrics.push(Metric {
                name: format!("usemem[{run}] free time"),
                value: usecs,
                unit: Some("us".into()),
            }),
        }
        i += 1;
    }
    (i > start).then(|| {
        (
            i - start,
            BlockBody::Metrics(Metrics {
                tool: "vm-scalability".into(),
                metrics,
            }),
        )
    })
}

/// `  1,234.56 msec task-clock   #  0.998 CPUs utilized`,
/// `  <not counted>  cycles`, `  49.634 seconds time elapsed`.
fn perf_line(text: &str) -> Option<Option<Metric>> {
    let t = text.trim();
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
        return rest.split_whitespace().next().map(|_| None);
    }
    let mut words = body.split_whitespace();
    let (value, _) = parse_number_unit(words.next()?).filter(|(_, u)| u.is_none())?;
    let rest: Vec<&str> = words.collect();
    let (unit, name) = match rest.as_slice() {
        ["seconds", tail @ ..] if !tail.is_empty() => (Some("s"), tail.join(" ")),
        ["msec", name] => (Some("msec"), (*name).to_string()),
        [name] => (None, (*name).to_string()),
        [unit, name] if matches!(*unit, "Joules" | "MiB" | "ns" | "us" | "ms") => {
            (Some(*unit), (*name).to_string())
        }
        _ => return None,
    };
    Some(Some(Metric {
        name,
        value,
        unit: unit.map(str::to_string),
    }))
}

fn perf_stat(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut metrics = Vec::new();
    let mut i = start + 1;
    let mut end = i;
    let mut blanks = 0;
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
        match perf_line(l.text) {
            Some(Some(m)) => metrics.push(m),
            Some(None) => {}
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
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    #[test]
    fn perf_lines() {
        let m = perf_line("         1,234,567      cycles                    #    3.200 GHz")
            .unwrap()
            .unwrap();
        assert_eq!((m.name.as_str(), m.value), ("cycles", 1234567.0));
        let m = perf_line("      49.634000000 seconds time elapsed")
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.name.as_str(), m.unit.as_deref()),
            ("time elapsed", Some("s"))
        );
        let m = perf_line("          1,234.56 msec task-clock   #    0.998 CPUs utilized")
            .unwrap()
            .unwrap();
        assert_eq!(m.value, 1234.56);
        assert!(perf_line("Some prose here").is_none());
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
}
