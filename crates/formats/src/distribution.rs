//! Latency (and size) distributions printed by tracing tools:
//!
//! - bpftrace `hist()` / `lhist()` maps: a `@name:` or `@name[key]:` line,
//!   then `[lo, hi)  count |@@@@|` buckets (`[0]`, `[1]`, `(..., 0)`,
//!   `[100, ...)`, bounds with `K`/`M`/`G` suffixes);
//! - BCC tools (funclatency, runqlat, biolatency, ...): an optional section
//!   line (`disk = 'sda'`), the `usecs : count distribution` header, then
//!   `lo -> hi : count |****|` rows (or `value : count |**|` for linear
//!   histograms), and funclatency's `avg = .., total: .., count: ..` line.
//!
//! One block per map (per key). Bounds are kept as printed, in the printed
//! unit; the unit is taken from the name (`usecs`, `@ns`).

use crate::document::{BlockBody, DistBucket, Distribution};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "distribution";

/// Most buckets one histogram may hold (log2 of u64 is 65; lhist can be
/// longer but not unbounded).
const MAX_BUCKETS: usize = 4096;

/// Recognise a bpftrace map or a BCC histogram at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let line = lines.get(start)?;
    if let Some((name, key)) = bpftrace_title(line.text) {
        let next = lines.get(start + 1).filter(|l| l.quote == line.quote)?;
        bpftrace_bucket(next.text)?;
        return Some(bpftrace(lines, start, name, key));
    }
    if let Some(section) = bcc_section(line.text) {
        let next = lines.get(start + 1).filter(|l| l.quote == line.quote)?;
        let name = bcc_header(next.text)?;
        return Some(bcc(lines, start, start + 1, name, Some(section)));
    }
    let name = bcc_header(line.text)?;
    Some(bcc(lines, start, start, name, None))
}

/// The unit a map or column name implies.
fn unit_of(name: &str) -> Option<&'static str> {
    let n = name.trim_start_matches('@').to_ascii_lowercase();
    let n = n.as_str();
    let has = |words: &[&str]| {
        words.iter().any(|w| {
            n == *w
                || n.starts_with(&format!("{w}_"))
                || n.ends_with(&format!("_{w}"))
                || n.contains(&format!("_{w}_"))
        })
    };
    if has(&["ns", "nsec", "nsecs"]) {
        Some("ns")
    } else if has(&["us", "usec", "usecs"]) {
        Some("us")
    } else if has(&["ms", "msec", "msecs"]) {
        Some("ms")
    } else if has(&["s", "sec", "secs"]) {
        Some("s")
    } else if has(&["kbytes"]) {
        Some("kB")
    } else if has(&["bytes"]) {
        Some("B")
    } else {
        None
    }
}

/// `@usecs:` or `@ns[kswapd0]:` (bpftrace prints a trailing space).
fn bpftrace_title(text: &str) -> Option<(&str, Option<&str>)> {
    let t = text.trim();
    let t = t.strip_suffix(':')?;
    if !t.starts_with('@') || t.len() > 512 {
        return None;
    }
    match t.split_once('[') {
        Some((name, key)) => {
            let key = key.strip_suffix(']')?;
            valid_map_name(name).then_some((name, Some(key)))
        }
        None => valid_map_name(t).then_some((t, None)),
    }
}

fn valid_map_name(name: &str) -> bool {
    name.strip_prefix('@')
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// A bpftrace bound: `12`, `-3`, `1K`, `16M` (early versions print the
/// suffix in lower case: `1k`, `16m`).
fn bound(s: &str) -> Option<f64> {
    let s = s.trim();
    let upper;
    let s = match s.strip_suffix(['k', 'm', 'g', 't', 'p']) {
        Some(num) => {
            upper = format!("{num}{}", s[num.len()..].to_ascii_uppercase());
            upper.as_str()
        }
        None => s,
    };
    match s.strip_prefix('-') {
        Some(rest) => units::suffixed(rest, true).map(|v| -v),
        None => units::suffixed(s, true),
    }
}

/// `[2, 4)   5 |@@@   |`, `[0]  1 |@|`, `(..., 0)  20 |@@|`, `[100, ...)  3 |@|`.
fn bpftrace_bucket(text: &str) -> Option<DistBucket> {
    let t = text.trim();
    let (range, rest) = if t.starts_with('[') || t.starts_with('(') {
        let close = t.find([')', ']'])?;
        (t.get(..=close)?, t.get(close + 1..)?)
    } else {
        return None;
    };
    let rest = rest.trim_start();
    let (count, bar) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let bar = bar.trim();
    if !(bar.starts_with('|') && bar.ends_with('|') && bar.len() >= 2) {
        return None;
    }
    let count = units::int(count)?;
    let inner = range.get(1..range.len() - 1)?;
    let (low, high) = match inner.split_once(',') {
        None => {
            if !range.starts_with('[') || !range.ends_with(']') {
                return None;
            }
            let v = bound(inner)?;
            (Some(v), Some(v + 1.0))
        }
        Some((a, b)) => {
            let (a, b) = (a.trim(), b.trim());
            let low = if a == "..." { None } else { Some(bound(a)?) };
            let high = if b == "..." { None } else { Some(bound(b)?) };
            if low.is_none() && high.is_none() {
                return None;
            }
            (low, high)
        }
    };
    Some(DistBucket { low, high, count })
}

/// The bucket rows from line `from` on at one quote level, as far as
/// `bucket` reads them: the buckets and the line after the last one. More
/// than [`MAX_BUCKETS`] is an error on the first row too many.
fn bucket_rows(
    lines: &[Line<'_>],
    from: usize,
    quote: u32,
    bucket: fn(&str) -> Option<DistBucket>,
) -> Result<(Vec<DistBucket>, usize), ParseError> {
    let mut buckets = Vec::new();
    let mut i = from;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        let Some(b) = bucket(l.text) else {
            break;
        };
        if buckets.len() >= MAX_BUCKETS {
            return Err(ParseError::invalid(
                FORMAT,
                l.no,
                1,
                format!("at most {MAX_BUCKETS} buckets"),
                l.text,
            ));
        }
        buckets.push(b);
        i += 1;
    }
    Ok((buckets, i))
}

fn bpftrace(
    lines: &[Line<'_>],
    start: usize,
    name: &str,
    key: Option<&str>,
) -> Result<(usize, BlockBody), ParseError> {
    let quote = lines.get(start).map(|l| l.quote).unwrap_or(0);
    let (buckets, i) = bucket_rows(lines, start + 1, quote, bpftrace_bucket)?;
    Ok((
        i - start,
        BlockBody::Distribution(Distribution {
            tool: "bpftrace".into(),
            name: name.to_string(),
            key: key.map(str::to_string),
            unit: unit_of(name).map(str::to_string),
            high_inclusive: false,
            buckets,
            count: None,
            sum: None,
            avg: None,
            summary_unit: None,
        }),
    ))
}

/// `     usecs               : count     distribution` -> `usecs`.
fn bcc_header(text: &str) -> Option<&str> {
    let (name, rest) = text.split_once(':')?;
    let name = name.trim();
    let words: Vec<&str> = rest.split_whitespace().collect();
    // A name of up to three words: `usecs`, `page order` (a script's own
    // linear histogram in BCC's layout).
    if words != ["count", "distribution"]
        || name.is_empty()
        || name.len() > 32
        || name.split_whitespace().count() > 3
    {
        return None;
    }
    Some(name)
}

/// `disk = 'sda'`, `pid = 1234 [comm]`, `Function = vfs_read [3156]`.
fn bcc_section(text: &str) -> Option<&str> {
    let t = text.trim();
    let (k, v) = t.split_once(" = ")?;
    (!k.is_empty()
        && !v.trim().is_empty()
        && k.len() <= 32
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' '))
    .then_some(t)
}

/// `         2 -> 3          : 4        |**     |` or `   10   : 5  |**|`.
fn bcc_bucket(text: &str) -> Option<DistBucket> {
    let (range, rest) = text.split_once(':')?;
    let (count, bar) = rest
        .trim()
        .split_once(char::is_whitespace)
        .unwrap_or((rest.trim(), ""));
    let bar = bar.trim();
    if !(bar.starts_with('|') && bar.ends_with('|') && bar.len() >= 2) {
        return None;
    }
    let count = units::int(count)?;
    let (low, high) = match range.split_once("->") {
        Some((a, b)) => (units::scaled(a, 0)?, units::scaled(b, 0)?),
        None => {
            let v = units::scaled(range, 0)?;
            (v, v)
        }
    };
    Some(DistBucket {
        low: Some(low),
        high: Some(high),
        count,
    })
}

/// `avg = 2 usecs, total: 21441 usecs, count: 10022`: avg, total, count
/// and the unit word.
fn bcc_summary(text: &str) -> Option<(f64, f64, u64, Option<&'static str>)> {
    let t = text.trim().strip_prefix("avg = ")?;
    let mut parts = t.split(',').map(str::trim);
    let mut avg = parts.next()?.split_whitespace();
    let (avg, unit) = (avg.next()?, avg.next());
    let total = parts
        .next()?
        .strip_prefix("total:")?
        .split_whitespace()
        .next()?;
    let count = parts.next()?.strip_prefix("count:")?.trim();
    Some((
        units::scaled(avg, 0)?,
        units::scaled(total, 0)?,
        units::int(count)?,
        unit.and_then(unit_of),
    ))
}

fn bcc(
    lines: &[Line<'_>],
    start: usize,
    header_at: usize,
    name: &str,
    section: Option<&str>,
) -> Result<(usize, BlockBody), ParseError> {
    let quote = lines.get(start).map(|l| l.quote).unwrap_or(0);
    let (buckets, mut i) = bucket_rows(lines, header_at + 1, quote, bcc_bucket)?;
    if buckets.is_empty() {
        let l = lines.get(i).or(lines.get(header_at));
        return Err(ParseError::invalid(
            FORMAT,
            l.map(|l| l.no).unwrap_or(0),
            1,
            "`low -> high : count |***|` rows under the `count distribution` header",
            l.map(|l| l.text).unwrap_or(""),
        ));
    }
    // funclatency prints a blank line, then its summary.
    let mut summary = None;
    for k in [i, i + 1] {
        if let Some(s) = lines
            .get(k)
            .filter(|l| l.quote == quote)
            .and_then(|l| bcc_summary(l.text))
        {
            summary = Some(s);
            i = k + 1;
            break;
        }
    }
    Ok((
        i - start,
        BlockBody::Distribution(Distribution {
            tool: "bcc".into(),
            name: name.to_string(),
            key: section.map(str::to_string),
            unit: unit_of(name).map(str::to_string),
            high_inclusive: true,
            buckets,
            count: summary.map(|s| s.2),
            sum: summary.map(|s| s.1),
            avg: summary.map(|s| s.0),
            summary_unit: summary.and_then(|s| s.3).map(str::to_string),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bpftrace_buckets() {
        let b = bpftrace_bucket("[1K, 2K)               3 |@@@   |").unwrap();
        assert_eq!((b.low, b.high, b.count), (Some(1024.0), Some(2048.0), 3));
        let b = bpftrace_bucket("[512, 1k)              0 |        |").unwrap();
        assert_eq!((b.low, b.high), (Some(512.0), Some(1024.0)));
        let b = bpftrace_bucket("[0]                    1 |@|").unwrap();
        assert_eq!((b.low, b.high), (Some(0.0), Some(1.0)));
        let b = bpftrace_bucket("(..., 0)              20 |@@|").unwrap();
        assert_eq!((b.low, b.high), (None, Some(0.0)));
        let b = bpftrace_bucket("[-10, 0)              2 |@|").unwrap();
        assert_eq!(b.low, Some(-10.0));
        assert!(bpftrace_bucket("[a, b) 1 |@|").is_none());
        assert!(bpftrace_bucket("[1, 2) 1").is_none());
    }

    #[test]
    fn bcc_rows() {
        let b = bcc_bucket("         2 -> 3          : 4        |**     |").unwrap();
        assert_eq!((b.low, b.high, b.count), (Some(2.0), Some(3.0), 4));
        assert_eq!(
            bcc_header("     usecs               : count     distribution"),
            Some("usecs")
        );
        assert_eq!(
            bcc_header("      page order    : count     distribution"),
            Some("page order")
        );
        assert_eq!(
            bcc_summary("avg = 2 usecs, total: 21441 usecs, count: 10022"),
            Some((2.0, 21441.0, 10022, Some("us")))
        );
        assert_eq!(unit_of("@usecs"), Some("us"));
        assert_eq!(unit_of("@ns"), Some("ns"));
        assert_eq!(unit_of("@lat"), None);
        assert_eq!(unit_of("@read_ms"), Some("ms"));
    }

    #[test]
    fn bcc_header_without_rows_is_an_error_on_its_line() {
        let lines = crate::lines::split(
            "     usecs               : count     distribution\nDetaching...\n",
        );
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 2);
        // A bpftrace title needs a bucket under it to be a histogram.
        let lines = crate::lines::split("@count: 5\n@x:\nnot a bucket\n");
        assert!(recognize(&lines, 0).is_none());
        assert!(recognize(&lines, 1).is_none());
    }
}
