//! fio's normal (human) output, as people paste it under a storage or
//! page-cache change:
//!
//! ```text
//! randread: (groupid=0, jobs=1): err= 0: pid=14934: Tue Dec  1 23:22:04 2026
//!   read: IOPS=11.5k, BW=45.0MiB/s (47.2MB/s)(135MiB/3001msec)
//!     clat (usec): min=43, max=11682, avg=85.84, stdev=116.74
//!     clat percentiles (usec):
//!      |  1.00th=[   51],  5.00th=[   58], 10.00th=[   62], 20.00th=[   69],
//!    bw (  KiB/s): min=35104, max=52480, per=99.53%, avg=45830.40, stdev=6577.11, samples=5
//!   cpu          : usr=1.80%, sys=43.37%, ctx=34379, majf=0, minf=11
//!
//! Run status group 0 (all jobs):
//!    READ: bw=45.0MiB/s (47.2MB/s), 45.0MiB/s-45.0MiB/s (47.2MB/s-47.2MB/s), io=135MiB (142MB), run=3001-3001msec
//! ```
//!
//! One [`Metrics`] block (tool `fio`) per job report and one per `Run
//! status group` summary. A job report starts at its `name: (groupid=N,
//! jobs=M): err= E:` line (fio 1.x: `name (g=N): err= E:`) or, when that
//! line was not pasted, at its first `read:` / `write:` / `trim:` line.
//! Every direction's values are named after it (`read iops`, `write bw`,
//! `read clat p99`), the fsync section's `sync (usec)` lines are `sync ...`,
//! and the units are fixed whatever fio printed: bandwidths in KiB/s, sizes
//! in KiB, runtimes in ms, latencies in us. fio's sizes and rates are
//! binary in both layouts (fio 2's `KB` is 1024 bytes; fio 3 prints `KiB`
//! and the decimal value in parentheses, which is not read); counts with a
//! `k` / `M` suffix (`IOPS=11.5k`, `max=1025.0k`) are decimal.
//!
//! Both layouts are read: fio 3's `IOPS=..., BW=...(io/runtime)` and fio
//! 2's `io=..., bw=..., iops=..., runt=...` with `aggrb=` / `minb=` /
//! `mint=` group summaries. A `Disk stats` list right under a group summary
//! belongs to it (`disk vda util`, %). A prefix a test harness put in front
//! of every line (`20:22:23 DEBUG| [stdout]`) is taken from the first line
//! and removed from the others.
//!
//! Not read: `--output-format=terse` / `--minimal` lines, the JSON output,
//! latency distributions (`lat (usec) : 50=0.53%, ...`) and IO depths.

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "fio";

/// Lines one job report may span (a report is 20-60 lines; percentiles of
/// several directions and the fsync section included).
const MAX_LINES: usize = 400;

const DIRECTIONS: &[&str] = &["read", "write", "trim", "mixed"];

/// A decimal count with fio's decimal suffixes (`11.5k`, `9862k`,
/// `1805.8K`, `1.2M`).
fn count(text: &str) -> Option<f64> {
    let t = text.trim();
    let (num, pow) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 3),
        'M' | 'm' => (&t[..t.len() - 1], 6),
        'G' | 'g' => (&t[..t.len() - 1], 9),
        _ => (t, 0),
    };
    units::scaled(num.trim(), pow)
}

/// A size (`135MiB`, `431739MB`, `22.0MiB`, `512B`) in KiB; binary units.
fn size_kib(text: &str) -> Option<f64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v = units::scaled(num, 0)?;
    let unit = unit.trim();
    let power = match unit.trim_end_matches('B').trim_end_matches('i') {
        "" => -1,
        "K" | "k" => 0,
        "M" => 1,
        "G" => 2,
        "T" => 3,
        "P" => 4,
        _ => return None,
    };
    if !unit.ends_with('B') && !unit.is_empty() {
        return None;
    }
    let r = v * 1024f64.powi(power);
    r.is_finite().then_some(r)
}

/// A rate (`45.0MiB/s`, `491222KB/s`, `0KB/s`) in KiB/s.
fn rate_kib(text: &str) -> Option<f64> {
    size_kib(text.trim().strip_suffix("/s")?)
}

/// A time (`3001msec`, `  28msec`, `2s`) in ms.
fn time_ms(text: &str) -> Option<f64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let pow = match unit.trim() {
        "" | "msec" | "ms" => 0,
        "usec" | "us" => -3,
        "sec" | "s" => 3,
        _ => return None,
    };
    units::scaled(num.trim(), pow)
}

/// `key=value` items of a comma-separated list (`min=43, max=11682`), with
/// the space fio 2 printed before a comma (`min=3 , max=249858 ,`).
fn items(text: &str) -> Vec<(&str, &str)> {
    text.split(',')
        .filter_map(|item| {
            let (k, v) = item.split_once('=')?;
            Some((k.trim(), v.trim()))
        })
        .collect()
}

/// The direction word and the rest of a `read: IOPS=...` (fio 3) or
/// `read : io=...` (fio 2) line.
fn direction(text: &str) -> Option<(&'static str, &str)> {
    let t = text.trim_start();
    let dir = DIRECTIONS.iter().find(|d| t.starts_with(*d))?;
    let rest = t[dir.len()..].trim_start().strip_prefix(':')?;
    let r = rest.trim_start();
    (r.starts_with("IOPS=") || r.starts_with("io=")).then_some((dir, rest))
}

/// Where a direction line starts in `text` (after a harness prefix), with
/// the prefix itself.
fn find_direction(text: &str) -> Option<(&str, &str)> {
    if !(text.contains("IOPS=") || text.contains("io=")) {
        return None;
    }
    for (pos, _) in text.char_indices() {
        let rest = &text[pos..];
        if direction(rest).is_some() && (pos == 0 || text[..pos].ends_with(char::is_whitespace)) {
            return Some((text[..pos].trim_end(), rest));
        }
    }
    None
}

/// A job report's first line: `name: (groupid=0, jobs=1): err= 0: pid=...`
/// (fio 1.x: `name (g=0): err= 0:`); returns `jobs` and `err`.
fn job_header(text: &str) -> Option<(Option<f64>, f64)> {
    let (head, after) = text
        .split_once("(groupid=")
        .or_else(|| text.split_once("(g="))?;
    if head.trim().is_empty() {
        return None;
    }
    let (inside, rest) = after.split_once(')')?;
    let err = rest
        .trim_start()
        .strip_prefix(':')
        .unwrap_or(rest)
        .trim_start();
    let err = err.strip_prefix("err=")?;
    let err_value = err.split(':').next()?.trim();
    let err = units::scaled(err_value, 0)?;
    let jobs = items(&format!("g={inside}"))
        .into_iter()
        .find(|(k, _)| *k == "jobs")
        .and_then(|(_, v)| units::scaled(v, 0));
    Some((jobs, err))
}

/// `Run status group 0 (all jobs):`; returns the group number.
fn group_heading(text: &str) -> Option<f64> {
    let rest = text.trim().strip_prefix("Run status group ")?;
    let (n, tail) = rest.split_once(' ')?;
    tail.starts_with("(all jobs)").then_some(())?;
    units::scaled(n, 0)
}

/// A statistics line `clat (usec): min=43, max=11682, avg=85.84,
/// stdev=116.74`: its name (`slat`, `clat`, `lat`, `sync`), and the values
/// in us.
fn stat_line(text: &str) -> Option<(&str, Vec<(&'static str, f64)>)> {
    let t = text.trim();
    let (name, rest) = t.split_once('(')?;
    let name = name.trim();
    if !matches!(name, "slat" | "clat" | "lat" | "sync") {
        return None;
    }
    let (unit, rest) = rest.split_once(')')?;
    let pow = units::time_unit_pow10(unit.trim())? + 6;
    let rest = rest.trim_start().strip_prefix(':')?;
    let mut out = Vec::new();
    for (k, v) in items(rest) {
        let Some(key) = stat_key(k) else { continue };
        let base = count(v)?;
        out.push((key, base * 10f64.powi(pow)));
    }
    (!out.is_empty()).then_some((name, out))
}

/// A summary statistic's key as fio prints it (`dev` in fio 1.x), in the
/// metric name's spelling.
fn stat_key(k: &str) -> Option<&'static str> {
    match k {
        "min" => Some("min"),
        "max" => Some("max"),
        "avg" => Some("avg"),
        "stdev" | "dev" => Some("stdev"),
        _ => None,
    }
}

/// `clat percentiles (usec):` (also `lat`, `slat`, `sync`); returns the
/// latency name and the unit's power of ten relative to us.
fn percentile_heading(text: &str) -> Option<(&str, i32)> {
    let t = text.trim();
    let (name, rest) = t.split_once(" percentiles (")?;
    let (unit, tail) = rest.split_once(')')?;
    if tail.trim() != ":" {
        return None;
    }
    Some((name.trim(), units::time_unit_pow10(unit.trim())? + 6))
}

/// ` |  1.00th=[   51],  5.00th=[   58],` as (percentile, value) pairs.
fn percentile_row(text: &str) -> Option<Vec<(String, f64)>> {
    let t = text.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let mut out = Vec::new();
    for item in t.split("],") {
        let item = item.trim().trim_end_matches(']');
        if item.is_empty() {
            continue;
        }
        let (pct, value) = item.split_once("th=[")?;
        let pct = pct.trim();
        units::scaled(pct, 0)?;
        let pct = if pct.contains('.') {
            pct.trim_end_matches('0').trim_end_matches('.')
        } else {
            pct
        };
        out.push((pct.to_string(), count(value)?));
    }
    (!out.is_empty()).then_some(out)
}

/// `bw (  KiB/s): min=..., max=..., per=..., avg=..., stdev=...` (fio 2:
/// `bw (KB  /s):`) as values in KiB/s.
fn bw_line(text: &str) -> Option<Vec<(&'static str, f64)>> {
    let t = text.trim();
    let rest = t.strip_prefix("bw")?.trim_start().strip_prefix('(')?;
    let (unit, rest) = rest.split_once(')')?;
    let unit: String = unit.chars().filter(|c| !c.is_whitespace()).collect();
    let factor = rate_kib(&format!("1{unit}"))?;
    let rest = rest.trim_start().strip_prefix(':')?;
    let mut out = Vec::new();
    for (k, v) in items(rest) {
        let Some(key) = stat_key(k) else { continue };
        out.push((key, units::scaled(v, 0)? * factor));
    }
    (!out.is_empty()).then_some(out)
}

/// `iops        : min= 8776, max=13120, avg=11457.60, stdev=1644.28, samples=5`.
fn iops_line(text: &str) -> Option<Vec<(&'static str, f64)>> {
    let rest = text
        .trim()
        .strip_prefix("iops")?
        .trim_start()
        .strip_prefix(':')?;
    let mut out = Vec::new();
    for (k, v) in items(rest) {
        let key = match k {
            "min" => "min",
            "max" => "max",
            "avg" => "avg",
            "stdev" => "stdev",
            _ => continue,
        };
        out.push((key, count(v)?));
    }
    (!out.is_empty()).then_some(out)
}

/// `cpu          : usr=1.80%, sys=43.37%, ctx=34379, majf=0, minf=11`.
fn cpu_line(text: &str) -> Option<Vec<Metric>> {
    let rest = text
        .trim()
        .strip_prefix("cpu")?
        .trim_start()
        .strip_prefix(':')?;
    let mut out = Vec::new();
    for (k, v) in items(rest) {
        let (name, unit) = match k {
            "usr" => ("cpu usr", Some("%")),
            "sys" => ("cpu sys", Some("%")),
            "ctx" => ("cpu ctx", None),
            "majf" | "majflt" => ("cpu majf", None),
            "minf" | "minflt" => ("cpu minf", None),
            _ => continue,
        };
        let value = units::scaled(v.trim_end_matches('%'), 0)?;
        out.push(Metric::new(name, value, unit));
    }
    (!out.is_empty()).then_some(out)
}

/// Lines of a job report that carry nothing read here.
fn is_skipped(text: &str) -> bool {
    let t = text.trim_start();
    let head = t.split(':').next().unwrap_or("").trim();
    matches!(
        head,
        "IO depths"
            | "submit"
            | "complete"
            | "issued"
            | "issued rwt"
            | "issued rwts"
            | "latency"
            | "Description"
            | "fsync/fdatasync/sync_file_range"
    ) || (t.starts_with("lat (") && !t.contains("min="))
        || (t.starts_with("clat prio") || t.starts_with("prio "))
}

/// The values of a direction line, fio 3 (`IOPS=11.5k, BW=45.0MiB/s
/// (47.2MB/s)(135MiB/3001msec); 0 zone resets`) or fio 2 (`io=431739MB,
/// bw=491222KB/s, iops=122805, runt=900001msec`).
fn direction_values(dir: &str, rest: &str) -> Option<Vec<Metric>> {
    let mut out = Vec::new();
    let mut io_runtime: Option<&str> = None;
    for (k, v) in items(rest) {
        match k {
            "IOPS" | "iops" => out.push(Metric::new(format!("{dir} iops"), count(v)?, None)),
            "BW" | "bw" => {
                let first = v.split('(').next()?.trim();
                out.push(Metric::new(
                    format!("{dir} bw"),
                    rate_kib(first)?,
                    Some("KiB/s"),
                ));
                if let Some(pos) = v.find(")(") {
                    io_runtime = Some(&v[pos + 2..]);
                }
            }
            "io" => {
                let first = v.split('(').next()?.trim();
                out.push(Metric::new(
                    format!("{dir} io"),
                    size_kib(first)?,
                    Some("KiB"),
                ));
            }
            "runt" => out.push(Metric::new(
                format!("{dir} runtime"),
                time_ms(v)?,
                Some("ms"),
            )),
            _ => {}
        }
    }
    if let Some(ior) = io_runtime {
        let inner = ior.split(')').next()?;
        let (io, rt) = inner.split_once('/')?;
        out.push(Metric::new(format!("{dir} io"), size_kib(io)?, Some("KiB")));
        out.push(Metric::new(
            format!("{dir} runtime"),
            time_ms(rt)?,
            Some("ms"),
        ));
    }
    (!out.is_empty()).then_some(out)
}

/// Strip the harness prefix of a block's lines (`""` for none).
fn body<'a>(line: &Line<'a>, prefix: &str) -> Option<&'a str> {
    if prefix.is_empty() {
        Some(line.text)
    } else {
        line.text.strip_prefix(prefix)
    }
}

/// A report a mail client double-spaced (an empty line after every line):
/// its lines from `start` without the single empty lines, up to two empty
/// lines in a row, when an empty line follows the heading (fio prints
/// none there). `None` for a report printed as fio prints it.
fn double_spaced<'a>(lines: &[Line<'a>], start: usize) -> Option<Vec<Line<'a>>> {
    let quote = lines.get(start)?.quote;
    let blank = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| l.quote == quote && l.text.trim().is_empty())
    };
    let text = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| l.quote == quote && !l.text.trim().is_empty())
    };
    if !(blank(start + 1) && text(start + 2)) {
        return None;
    }
    let mut out = Vec::new();
    let mut i = start;
    while let Some(l) = lines.get(i).filter(|_| out.len() < MAX_LINES) {
        if blank(i) && text(i + 1) {
            i += 1;
            continue;
        }
        out.push(*l);
        if blank(i) {
            break;
        }
        i += 1;
    }
    Some(out)
}

/// Recognise one job report or one group summary starting at `start`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let direction_after_blank = lines.get(start + 2).is_some_and(|l| {
        find_direction(l.text).is_some()
            || l.text
                .trim_start()
                .split_once(':')
                .is_some_and(|(w, _)| matches!(w, "READ" | "WRITE" | "TRIM" | "MIXED"))
    });
    let starts = group_heading(first.text).is_some() || job_header(first.text).is_some();
    if starts
        && direction_after_blank
        && let Some(compact) = double_spaced(lines, start)
    {
        // Read without the empty lines; the block ends at the same line.
        return recognize_at(&compact, 0).map(|found| {
            found.map(|(n, body)| {
                let last_no = compact.get(n.saturating_sub(1)).map_or(first.no, |l| l.no);
                let end = lines[start..]
                    .iter()
                    .position(|l| l.no == last_no)
                    .map_or(n, |p| p + 1);
                (end, body)
            })
        });
    }
    recognize_at(lines, start)
}

fn recognize_at(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    if let Some(n) = group_heading(first.text) {
        return Some(group(lines, start, n));
    }
    if let Some((jobs, err)) = job_header(first.text) {
        // The prefix, if any, is the one in front of the next line's
        // direction (a header's own prefix cannot be told from its name).
        let prefix = lines
            .get(start + 1)
            .and_then(|l| find_direction(l.text))
            .map(|(p, _)| p)
            .filter(|p| first.text.starts_with(p))
            .unwrap_or("");
        let mut metrics = vec![Metric::new("err", err, None)];
        if let Some(j) = jobs {
            metrics.push(Metric::new("jobs", j, None));
        }
        return Some(job(lines, start, start + 1, prefix, metrics));
    }
    let (prefix, _) = find_direction(first.text)?;
    Some(job(lines, start, start, prefix, Vec::new()))
}

fn job(
    lines: &[Line<'_>],
    start: usize,
    from: usize,
    prefix: &str,
    mut metrics: Vec<Metric>,
) -> Result<(usize, BlockBody), ParseError> {
    let quote = lines[start].quote;
    let mut dir: Option<&str> = None;
    let mut pct: Option<(String, i32)> = None;
    let mut consumed = from - start;
    let mut read_any = false;
    let mut joined_next = false;
    for (k, l) in lines.iter().enumerate().skip(from).take(MAX_LINES) {
        if std::mem::take(&mut joined_next) {
            continue;
        }
        if l.quote != quote {
            break;
        }
        let Some(text) = body(l, prefix) else { break };
        // A stat line a mailer wrapped after a comma (`avg=296354.86,` /
        // `stdev=6624.06, samples=56`) is read joined.
        let joined;
        // A percentile row cut inside a value (`20.00th=[` / `437],`).
        let cut_percentile = text.trim_end().ends_with('[');
        let next = lines
            .get(k + 1)
            .filter(|n| n.quote == quote)
            .and_then(|n| body(n, prefix));
        let wrapped = if cut_percentile {
            joined_with(text, next, "", |n| {
                n.starts_with(|c: char| c.is_ascii_digit()) && n.contains(']')
            })
        } else if text.trim_end().ends_with(',') {
            joined_with(text, next, " ", is_stat_item)
        } else {
            None
        };
        let text = match wrapped {
            Some(w) => {
                joined = w;
                joined_next = true;
                joined.as_str()
            }
            None => text,
        };
        let t = text.trim();
        if t.is_empty() {
            break;
        }
        if let Some((d, rest)) = direction(text) {
            let Some(values) = direction_values(d, rest) else {
                return Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    "`IOPS=N, BW=R(size/time)` or `io=S, bw=R, iops=N, runt=T`",
                    l.text,
                ));
            };
            metrics.extend(values);
            dir = Some(d);
            pct = None;
        } else if t.starts_with("fsync/fdatasync/sync_file_range:") {
            dir = None;
            pct = None;
        } else if let Some((name, values)) = stat_line(text) {
            let full = match (name, dir) {
                ("sync", _) => "sync".to_string(),
                (n, Some(d)) => format!("{d} {n}"),
                (_, None) => break,
            };
            for (key, v) in values {
                metrics.push(Metric::new(format!("{full} {key}"), v, Some("us")));
            }
            pct = None;
        } else if let Some((name, pow)) = percentile_heading(text) {
            let full = match (name, dir) {
                ("sync", _) => "sync".to_string(),
                (n, Some(d)) => format!("{d} {n}"),
                (_, None) => break,
            };
            pct = Some((full, pow));
        } else if t.starts_with('|') || (pct.is_some() && t.contains("th=[")) {
            // A report flattened to the left margin lost the rows' bar with
            // its indent (`| 1.00th=[ 9], ...` is taken off like a quote).
            let (Some((name, pow)), Some(row)) = (&pct, percentile_row(text)) else {
                break;
            };
            for (p, v) in row {
                metrics.push(Metric::new(
                    format!("{name} p{p}"),
                    v * 10f64.powi(*pow),
                    Some("us"),
                ));
            }
        } else if let Some(values) = bw_line(text) {
            let Some(d) = dir else { break };
            for (key, v) in values {
                metrics.push(Metric::new(format!("{d} bw {key}"), v, Some("KiB/s")));
            }
        } else if let Some(values) = iops_line(text) {
            let Some(d) = dir else { break };
            for (key, v) in values {
                metrics.push(Metric::new(format!("{d} iops {key}"), v, None));
            }
        } else if let Some(values) = cpu_line(text) {
            metrics.extend(values);
        } else if !is_skipped(text) {
            break;
        }
        read_any = true;
        consumed = k + 1 + usize::from(joined_next) - start;
    }
    if !read_any || (dir.is_none() && metrics.len() <= 2) {
        let l = &lines[(start + consumed).min(lines.len() - 1)];
        return Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "a `read:` / `write:` line of the job report",
            l.text,
        ));
    }
    Ok((
        consumed,
        BlockBody::Metrics(Metrics {
            tool: FORMAT.into(),
            metrics,
            runs: None,
        }),
    ))
}

/// `READ: bw=...` / `WRITE: io=..., aggrb=...` under a group heading.
fn group_line(text: &str) -> Option<Vec<Metric>> {
    let t = text.trim_start();
    let (word, rest) = t.split_once(':')?;
    let dir = match word.trim() {
        "READ" => "read",
        "WRITE" => "write",
        "TRIM" => "trim",
        "MIXED" => "mixed",
        _ => return None,
    };
    let mut out = Vec::new();
    let mut pending_range = false;
    for item in rest.split(", ") {
        let item = item.trim();
        let first = |v: &'static str, s: &str| -> Option<Metric> {
            let tok = s.split('(').next()?.trim();
            Some(Metric::new(
                format!("{dir} {v}"),
                rate_kib(tok)?,
                Some("KiB/s"),
            ))
        };
        if let Some((k, v)) = item.split_once('=') {
            match k.trim() {
                "bw" | "aggrb" => {
                    out.push(first("bw", v)?);
                    pending_range = k.trim() == "bw";
                    continue;
                }
                "minb" => out.push(first("minb", v)?),
                "maxb" => out.push(first("maxb", v)?),
                "io" => {
                    let tok = v.split('(').next()?.trim();
                    out.push(Metric::new(
                        format!("{dir} io"),
                        size_kib(tok)?,
                        Some("KiB"),
                    ));
                }
                "mint" => out.push(Metric::new(format!("{dir} mint"), time_ms(v)?, Some("ms"))),
                "maxt" => out.push(Metric::new(format!("{dir} maxt"), time_ms(v)?, Some("ms"))),
                "run" => {
                    let v = v.trim();
                    let split = v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len());
                    let (range, unit) = v.split_at(split);
                    let (a, b) = range.split_once('-')?;
                    out.push(Metric::new(
                        format!("{dir} mint"),
                        time_ms(&format!("{a}{unit}"))?,
                        Some("ms"),
                    ));
                    out.push(Metric::new(
                        format!("{dir} maxt"),
                        time_ms(&format!("{b}{unit}"))?,
                        Some("ms"),
                    ));
                }
                _ => {}
            }
        } else if pending_range {
            // `45.0MiB/s-45.0MiB/s (47.2MB/s-47.2MB/s)`: the jobs' lowest
            // and highest bandwidth.
            let tok = item.split(' ').next()?;
            let (a, b) = tok.split_once("/s-")?;
            out.push(Metric::new(
                format!("{dir} minb"),
                rate_kib(&format!("{a}/s"))?,
                Some("KiB/s"),
            ));
            out.push(Metric::new(
                format!("{dir} maxb"),
                rate_kib(b)?,
                Some("KiB/s"),
            ));
        }
        pending_range = false;
    }
    (!out.is_empty()).then_some(out)
}

/// Whether a wrapped rest of a job's stat line starts with one of its keys.
/// A line a mailer wrapped: `text` and the `next` line joined by `glue`,
/// when the next line (trimmed) `continues` it.
fn joined_with(
    text: &str,
    next: Option<&str>,
    glue: &str,
    continues: impl Fn(&str) -> bool,
) -> Option<String> {
    let next = next?.trim();
    continues(next).then(|| format!("{}{glue}{next}", text.trim_end()))
}

fn is_stat_item(text: &str) -> bool {
    text.split_once('=').is_some_and(|(k, _)| {
        matches!(
            k,
            "min" | "max" | "avg" | "stdev" | "dev" | "per" | "samples"
        )
    })
}

/// Whether a wrapped rest of a group line starts with one of its keys.
fn is_group_item(text: &str) -> bool {
    text.split_once('=').is_some_and(|(k, _)| {
        matches!(
            k,
            "bw" | "aggrb" | "minb" | "maxb" | "io" | "mint" | "maxt" | "run"
        )
    })
}

/// `  vda: ios=32057/149, merge=0/243, ticks=2156/263, in_queue=2419, util=69.78%`.
fn disk_line(text: &str) -> Option<Metric> {
    let (dev, rest) = text.trim().split_once(": ios=")?;
    if dev.is_empty() || dev.contains(char::is_whitespace) {
        return None;
    }
    let util = items(rest).into_iter().find(|(k, _)| *k == "util")?.1;
    let v = units::scaled(util.trim_end_matches('%'), 0)?;
    Some(Metric::new(format!("disk {dev} util"), v, Some("%")))
}

fn group(lines: &[Line<'_>], start: usize, n: f64) -> Result<(usize, BlockBody), ParseError> {
    let head = &lines[start];
    let prefix = head.text[..head.text.find("Run status group").unwrap_or(0)].trim_end();
    let mut metrics = vec![Metric::new("group", n, None)];
    let mut consumed = 1;
    let mut k = start + 1;
    // A markdown quote's lazy continuation: the heading quoted, its lines
    // not.
    let same = |l: &Line<'_>| l.quote == head.quote || l.quote == 0;
    while let Some(l) = lines.get(k).filter(|l| same(l)) {
        let Some(text) = body(l, prefix) else { break };
        // A line wrapped after one of its commas: the rest, `io=84.8GiB
        // (91.1GB), run=...`, starts with a key of its own.
        let next = lines
            .get(k + 1)
            .filter(|n| same(n))
            .and_then(|n| body(n, prefix));
        let wrapped = if text.trim_end().ends_with(',') {
            joined_with(text, next, " ", |r| {
                group_line(r).is_none() && is_group_item(r)
            })
        } else {
            None
        };
        let Some(values) = group_line(wrapped.as_deref().unwrap_or(text)) else {
            break;
        };
        metrics.extend(values);
        k += 1 + usize::from(wrapped.is_some());
        consumed = k - start;
    }
    if consumed == 1 {
        let l = lines.get(start + 1).unwrap_or(head);
        return Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "a `READ:` / `WRITE:` line under `Run status group`",
            l.text,
        ));
    }
    // `Disk stats (read/write):` below the summary, after one blank line.
    let mut j = k;
    while lines
        .get(j)
        .is_some_and(|l| same(l) && body(l, prefix).is_some_and(|t| t.trim().is_empty()))
        && j < k + 1
    {
        j += 1;
    }
    if lines
        .get(j)
        .and_then(|l| body(l, prefix))
        .is_some_and(|t| t.trim() == "Disk stats (read/write):")
    {
        j += 1;
        let text_at = |j: usize| {
            lines
                .get(j)
                .filter(|l| same(l))
                .and_then(|l| body(l, prefix))
        };
        while let Some(text) = text_at(j) {
            // A disk line wrapped after a comma (`in_queue=410990,` /
            // `util=99.94%`).
            let wrapped = if text.trim_end().ends_with(',') {
                joined_with(text, text_at(j + 1), " ", |r| {
                    r.split_once('=').is_some_and(|(k, _)| {
                        matches!(k, "ios" | "merge" | "ticks" | "in_queue" | "util")
                    })
                })
            } else {
                None
            };
            let Some(m) = disk_line(wrapped.as_deref().unwrap_or(text)) else {
                break;
            };
            metrics.push(m);
            j += 1 + usize::from(wrapped.is_some());
            consumed = j - start;
        }
    }
    Ok((
        consumed,
        BlockBody::Metrics(Metrics {
            tool: FORMAT.into(),
            metrics,
            runs: None,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Vec<Metric>> {
        let lines = crate::lines::split(text);
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            match recognize(&lines, i) {
                Some(Ok((n, BlockBody::Metrics(m)))) => {
                    out.push(m.metrics);
                    i += n;
                }
                _ => i += 1,
            }
        }
        out
    }

    fn value(ms: &[Metric], name: &str) -> Option<f64> {
        ms.iter().find(|m| m.name == name).map(|m| m.value)
    }

    #[test]
    fn a_fio_2_report_flattened_to_the_left_margin() {
        let text = "write: io=431280KB, bw=7186.3KB/s, iops=449, runt= 60015msec\n\
            clat (usec): min=6, max=25942, avg=267.76,stdev=1604.25\n\
            clat percentiles (usec):\n\
            | 1.00th=[ 9], 5.00th=[ 10], 10.00th=[ 16], 20.00th=[ 24]\n\
            | 99.00th=[10048], 99.50th=[14016]\n\
            cpu : usr=0.02%, sys=0.42%, ctx=299540, majf=0, minf=0\n\
            Run status group 0 (all jobs):\n\
            WRITE: io=431280KB, aggrb=7186KB/s, minb=7186KB/s, maxb=7186KB/s,\n\
            mint=60015msec, maxt=60015msec\n\
            Disk stats (read/write):\n\
            nvme1n1: ios=0/30627, merge=0/2125, ticks=0/410990, in_queue=410990,\n\
            util=99.94%\n";
        let blocks = parse(text);
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        let get = |b: &[Metric], n: &str| b.iter().find(|m| m.name == n).map(|m| m.value);
        assert_eq!(get(&blocks[0], "write clat p99"), Some(10048.0));
        assert_eq!(get(&blocks[0], "write clat p1"), Some(9.0));
        assert_eq!(get(&blocks[0], "cpu sys"), Some(0.42));
        assert_eq!(get(&blocks[1], "write maxt"), Some(60015.0));
        assert_eq!(get(&blocks[1], "disk nvme1n1 util"), Some(99.94));
    }

    #[test]
    fn a_double_spaced_report_with_cut_percentile_rows() {
        let text = "r: (groupid=0, jobs=4): err= 0: pid=34282: Mon Jan 27 01:04:55 2020\n\n  read: IOPS=36.7k, BW=144MiB/s (150MB/s)(2048MiB/14271msec)\n\n    clat percentiles (usec):\n\n     |  1.00th=[    48],  5.00th=[    69], 10.00th=[   251], 20.00th=[\n437],\n\n     | 99.99th=[135267]\n\n   iops        : min= 4126, max=73857, avg=28254.82, stdev=5957.62,\nsamples=112\n\n\n\nRun status group 0 (all jobs):\n\n   READ: bw=144MiB/s (150MB/s), 144MiB/s-144MiB/s (150MB/s-150MB/s),\nio=2048MiB (2147MB), run=14271-14271msec\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Metrics(m)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 13);
        assert_eq!(value(&m.metrics, "read clat p20"), Some(437.0));
        assert_eq!(value(&m.metrics, "read clat p99.99"), Some(135267.0));
        assert_eq!(value(&m.metrics, "read iops stdev"), Some(5957.62));
        let Some(Ok((4, BlockBody::Metrics(g)))) = recognize(&lines, 16) else {
            panic!()
        };
        assert_eq!(value(&g.metrics, "read io"), Some(2097152.0));
    }

    #[test]
    fn a_bw_line_wrapped_after_a_comma() {
        let out = parse(
            "t: (groupid=0, jobs=1): err= 0: pid=2130: Sat Sep  2 08:21:39 2023\n  write: IOPS=18.5k, BW=290MiB/s (304MB/s)(8200MiB/28321msec)\n    bw (  KiB/s): min=276160, max=308672, per=99.96%, avg=296354.86,\nstdev=6624.06, samples=56\n    iops        : min=17260, max=19292, avg=18522.18, stdev=414.00, samples=56\n",
        );
        assert_eq!(value(&out[0], "write bw stdev"), Some(6624.06));
        assert_eq!(value(&out[0], "write iops avg"), Some(18522.18));
    }

    #[test]
    fn group_line_wrapped_after_a_comma() {
        let out = parse(
            "Run status group 0 (all jobs):\n   READ: bw=724MiB/s (759MB/s), 724MiB/s-724MiB/s (759MB/s-759MB/s),\n   io=84.8GiB (91.1GB), run=120001-120001msec\n",
        );
        assert_eq!(out.len(), 1);
        assert_eq!(value(&out[0], "read bw"), Some(741376.0));
        assert_eq!(value(&out[0], "read mint"), Some(120001.0));
        assert!(value(&out[0], "read io").is_some_and(|v| (v - 88919244.8).abs() < 1.0));
    }

    #[test]
    fn units_are_fixed() {
        assert_eq!(size_kib("135MiB"), Some(138240.0));
        assert_eq!(size_kib("3200.0MB"), Some(3276800.0));
        assert_eq!(size_kib("512B"), Some(0.5));
        assert_eq!(rate_kib("382KiB/s"), Some(382.0));
        assert_eq!(rate_kib("1.5GiB/s"), Some(1572864.0));
        assert_eq!(rate_kib("12 apples"), None);
        // fio 2 printed small rates in bytes, with a space.
        assert_eq!(rate_kib("618740 B/s"), Some(604.23828125));
        assert_eq!(count("11.5k"), Some(11500.0));
        assert_eq!(count("1805.8K"), Some(1805800.0));
        assert_eq!(time_ms("  28msec"), Some(28.0));
        assert_eq!(size_kib("12XB"), None);
    }

    #[test]
    fn fio2_job_and_group() {
        let text = "file1: (groupid=0, jobs=1): err= 0: pid=20: Sun Apr  6 19:04:46 2025\n  \
            read : io=1024.0KB, bw=36571KB/s, iops=9142, runt=    28msec\n    \
            slat (usec): min=3 , max=249858 , avg=53.47, stdev=1982.29\n    \
            clat (usec): min=22 , max=1805.8K, avg=300904.66, stdev=281965.67\n    \
            bw (KB  /s): min=152728, max=532056, per=100.00%, avg=491208.92, stdev=51285.58\n  \
            cpu          : usr=8.40%, sys=89.80%, ctx=55798, majflt=0, minf=25\n\n\
            Run status group 0 (all jobs):\n   \
            READ: io=8192.0MB, aggrb=7454.5MB/s, minb=7454.5MB/s, maxb=7454.5MB/s, mint=1099msec, maxt=1099msec\n";
        let blocks = parse(text);
        assert_eq!(blocks.len(), 2);
        let j = &blocks[0];
        assert_eq!(value(j, "read io"), Some(1024.0));
        assert_eq!(value(j, "read runtime"), Some(28.0));
        assert_eq!(value(j, "read iops"), Some(9142.0));
        assert_eq!(value(j, "read clat max"), Some(1805800.0));
        assert_eq!(value(j, "read bw avg"), Some(491208.92));
        assert_eq!(value(j, "cpu majf"), Some(0.0));
        let g = &blocks[1];
        assert_eq!(value(g, "read bw"), Some(7454.5 * 1024.0));
        assert_eq!(value(g, "read maxt"), Some(1099.0));
    }

    #[test]
    fn a_header_alone_or_a_heading_alone_is_an_error_on_its_line() {
        let lines = crate::lines::split("job: (groupid=0, jobs=1): err= 0: pid=1\nprose\n");
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 2);
        let lines = crate::lines::split("Run status group 0 (all jobs):\n\nprose\n");
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 2);
        // Prose naming IOPS is not a report.
        let lines = crate::lines::split("we read: the IOPS went up\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn percentiles_keep_their_unit_and_a_failed_job_its_err() {
        let text = "j: (groupid=0, jobs=2): err= 5: pid=1\n  \
            write: IOPS=1, BW=4096B/s (4096B/s)(8192B/2000msec)\n    \
            clat percentiles (msec):\n     |  1.00th=[    9], 99.50th=[   70],\n     | 99.99th=[  818]\n";
        let b = &parse(text)[0];
        assert_eq!(value(b, "err"), Some(5.0));
        assert_eq!(value(b, "jobs"), Some(2.0));
        assert_eq!(value(b, "write bw"), Some(4.0));
        assert_eq!(value(b, "write io"), Some(8.0));
        assert_eq!(value(b, "write clat p1"), Some(9000.0));
        assert_eq!(value(b, "write clat p99.5"), Some(70000.0));
        assert_eq!(value(b, "write clat p99.99"), Some(818000.0));
    }
}
