//! GNU `dd`'s transfer summary, as people paste it under a copy or a disk
//! test:
//!
//! ```text
//! 10240+0 records in
//! 10240+0 records out
//! 10737418240 bytes (11 GB, 10 GiB) copied, 3.62128 s, 3.0 GB/s
//! ```
//!
//! One [`Metrics`] block (tool `dd`) per run: `bytes` (B), `time` (s) and
//! `rate` in the unit dd printed (`MB/s`, `GB/s`, `kB/s`, ...), and
//! `records in` / `records out` (whole records; the `+N` partial records
//! are `records in partial` / `records out partial`). The block starts at
//! the `records in` line or at the summary itself (newer dd prints the
//! records after a `status=progress` line, older pastes keep only the
//! summary). Summary lines above the records are `status=progress`
//! updates of the same run, and `dd: error ...` lines belong to it too:
//! the last summary wins. The records lines in any language (`6395+1
//! Datensätze ein`) are recognised by their `N+M` count, and a decimal
//! comma (`365,951 s, 9,2 MB/s`) is read as a decimal point.
//!
//! BSD and macOS dd's summary (`8192000000 bytes transferred in
//! 159.062003 secs (51501929 bytes/sec)`, FreeBSD's newer `268435456
//! bytes (268 MB, 256 MiB) transferred 1.001s, 268 MB/s`) is read the same
//! way, its `bytes/sec` as `B/s`.

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "dd";

/// Lines one run may span: progress updates, errors, records, summary.
const MAX_LINES: usize = 64;

/// A summary line: bytes, seconds and the rate with its unit.
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    bytes: u64,
    seconds: f64,
    rate: f64,
    rate_unit: String,
}

/// `N+M` followed by one or two words (`records in`, `Datensätze ein`).
fn records(text: &str) -> Option<(u64, u64)> {
    let mut words = text.split_whitespace();
    let (full, part) = words.next()?.split_once('+')?;
    let rest: Vec<&str> = words.collect();
    if rest.is_empty() || rest.len() > 2 {
        return None;
    }
    Some((units::int(full)?, units::int(part)?))
}

/// A decimal printed with a point or, in some locales, a comma; dd prints
/// short times with an exponent (`5.9079e-05 s`).
fn decimal(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = if t.contains('.') {
        t.to_string()
    } else {
        t.replacen(',', ".", 1)
    };
    units::scaled(&t, 0).or_else(|| {
        let (mantissa, exp) = t.split_once(['e', 'E'])?;
        let exp: i32 = exp.parse().ok()?;
        units::scaled(mantissa, exp)
    })
}

/// `10737418240 bytes (11 GB, 10 GiB) copied, 3.62128 s, 3.0 GB/s`, also
/// without the parenthesis (`512 bytes copied, ...`) and with decimal
/// commas.
fn summary(text: &str) -> Option<Summary> {
    let t = text.trim();
    let (bytes, rest) = t.split_once(' ')?;
    let bytes = units::int(bytes)?;
    let rest = rest.strip_prefix("bytes")?;
    if let Some(s) = bsd_summary(bytes, rest) {
        return Some(s);
    }
    let (_, after) = rest.split_once("copied, ")?;
    let (secs, rate) = after.split_once(" s, ")?;
    let seconds = decimal(secs)?;
    let mut rate_words = rate.split_whitespace();
    let rate_value = decimal(rate_words.next()?)?;
    let rate_unit = rate_words.next()?;
    if rate_words.next().is_some() || !rate_unit.ends_with("/s") {
        return None;
    }
    Some(Summary {
        bytes,
        seconds,
        rate: rate_value,
        rate_unit: rate_unit.to_string(),
    })
}

/// What follows `N bytes` in BSD dd's summary: ` transferred in T secs
/// (R bytes/sec)`, or FreeBSD's ` (268 MB, 256 MiB) transferred 1.001s,
/// 268 MB/s`.
fn bsd_summary(bytes: u64, rest: &str) -> Option<Summary> {
    if let Some(after) = rest.strip_prefix(" transferred in ") {
        // GNU dd of 2004 printed the same line with `seconds`.
        let (secs, rate) = after
            .split_once(" secs (")
            .or_else(|| after.split_once(" seconds ("))?;
        let rate = rate.strip_suffix(" bytes/sec)")?;
        return Some(Summary {
            bytes,
            seconds: decimal(secs)?,
            rate: decimal(rate)?,
            rate_unit: "B/s".into(),
        });
    }
    let (_, after) = rest.split_once(") transferred ")?;
    let (secs, rate) = after.split_once("s, ")?;
    let (rate, unit) = rate.trim().split_once(' ')?;
    if !unit.ends_with("/s") || unit.contains(' ') {
        return None;
    }
    Some(Summary {
        bytes,
        seconds: decimal(secs)?,
        rate: decimal(rate)?,
        rate_unit: unit.to_string(),
    })
}

fn is_error(text: &str) -> bool {
    text.trim_start().starts_with("dd: ")
}

/// Recognise one dd run starting at `start`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    // A mail client that double-spaced the paste put a blank line after
    // each of dd's lines: one blank line between them is passed over.
    let next_own = |i: usize| {
        let l = lines.get(i).filter(|l| l.quote == quote)?;
        if !l.text.trim().is_empty() {
            return Some(l);
        }
        lines
            .get(i + 1)
            .filter(|n| n.quote == quote && !n.text.trim().is_empty())
    };
    let starts_run = match records(first.text) {
        // A records pair: `N+M ... in` then `N+M ... out` on the next line.
        Some(_) => next_own(start + 1).is_some_and(|l| records(l.text).is_some()),
        None => summary(first.text).is_some(),
    };
    if !starts_run {
        return None;
    }
    let mut last: Option<Summary> = None;
    let mut recs: Vec<(u64, u64)> = Vec::new();
    let mut consumed = 0;
    for (k, l) in lines.iter().enumerate().skip(start).take(MAX_LINES) {
        if l.quote != quote {
            break;
        }
        if l.text.trim().is_empty() {
            // Between dd's own lines of one run (a double-spaced paste).
            let goes_on = !(recs.len() == 2 && last.is_some())
                && next_own(k + 1).is_some_and(|n| {
                    !n.text.trim().is_empty()
                        && (summary(n.text).is_some()
                            || (recs.len() < 2 && records(n.text).is_some()))
                });
            if goes_on {
                continue;
            }
            break;
        }
        if let Some(s) = summary(l.text) {
            last = Some(s);
        } else if let Some(r) = records(l.text).filter(|_| recs.len() < 2) {
            recs.push(r);
        } else if !is_error(l.text) {
            break;
        }
        consumed = k + 1 - start;
        // The records come right before the final summary.
        if recs.len() == 2 && last.is_some() && summary(l.text).is_some() {
            break;
        }
    }
    let Some(s) = last else {
        // Records without any summary: not a dd result.
        let l = &lines[start + consumed.saturating_sub(1)];
        return Some(Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "`N bytes (...) copied, T s, R MB/s` after dd's records",
            l.text,
        )));
    };
    let mut metrics = vec![
        Metric::new("bytes", s.bytes as f64, Some("B")),
        Metric::new("time", s.seconds, Some("s")),
        Metric::new("rate", s.rate, Some(&s.rate_unit)),
    ];
    for ((full, part), dir) in recs.iter().zip(["in", "out"]) {
        metrics.push(Metric::new(format!("records {dir}"), *full as f64, None));
        metrics.push(Metric::new(
            format!("records {dir} partial"),
            *part as f64,
            None,
        ));
    }
    Some(Ok((
        consumed,
        BlockBody::Metrics(Metrics {
            tool: "dd".into(),
            metrics,
            runs: None,
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(text: &str, name: &str) -> Option<f64> {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0)?.ok()?.1 {
            BlockBody::Metrics(m) => m.metrics.iter().find(|m| m.name == name).map(|m| m.value),
            _ => None,
        }
    }

    #[test]
    fn summary_shapes() {
        let s = summary("512 bytes copied, 0.000123 s, 4.2 MB/s").unwrap();
        assert_eq!((s.bytes, s.seconds, s.rate), (512, 0.000123, 4.2));
        let s = summary("3353227264 bytes (3,4 GB, 3,1 GiB) copied, 365,951 s, 9,2 MB/s").unwrap();
        assert_eq!(
            (s.seconds, s.rate, s.rate_unit.as_str()),
            (365.951, 9.2, "MB/s")
        );
        let s = summary("1536 bytes (1.5 kB, 1.5 KiB) copied, 5.9079e-05 s, 26.0 MB/s").unwrap();
        assert_eq!(s.seconds, 5.9079e-05);
        let s = summary("8192000000 bytes transferred in 159.062003 secs (51501929 bytes/sec)")
            .unwrap();
        assert_eq!(
            (s.bytes, s.seconds, s.rate, s.rate_unit.as_str()),
            (8192000000, 159.062003, 51501929.0, "B/s")
        );
        let s = summary("268435456 bytes (268 MB, 256 MiB) transferred 1.001s, 268 MB/s").unwrap();
        assert_eq!(
            (s.bytes, s.seconds, s.rate, s.rate_unit.as_str()),
            (268435456, 1.001, 268.0, "MB/s")
        );
        assert!(summary("512 bytes transferred in a hurry").is_none());
        assert!(summary("512 bytes copied").is_none());
        assert!(summary("copied, 1 s, 2 MB/s").is_none());
    }

    #[test]
    fn last_summary_wins_and_records_are_kept() {
        let text = "100 bytes (100 B) copied, 1 s, 100 B/s\n\
                    dd: error reading 'x': Input/output error\n\
                    2+1 records in\n2+1 records out\n\
                    150 bytes (150 B) copied, 2 s, 75 B/s\nprose\n";
        assert_eq!(metric(text, "bytes"), Some(150.0));
        assert_eq!(metric(text, "records in partial"), Some(1.0));
        let lines = crate::lines::split(text);
        assert_eq!(recognize(&lines, 0).unwrap().unwrap().0, 5);
    }

    #[test]
    fn a_double_spaced_run_and_gnu_dd_of_2004() {
        let text = "1000+0 records in\n\n1000+0 records out\n\n1000000 bytes (1.0 MB, 977 KiB) copied, 0.00613671 s, 163 MB/s\n\n$ next command\n";
        assert_eq!(metric(text, "records out"), Some(1000.0));
        assert_eq!(metric(text, "rate"), Some(163.0));
        let lines = crate::lines::split(text);
        assert_eq!(recognize(&lines, 0).unwrap().unwrap().0, 5);
        let old = "1+0 records in\n1+0 records out\n1024 bytes transferred in 0.000747 seconds (1370992 bytes/sec)\n";
        assert_eq!(metric(old, "time"), Some(0.000747));
        assert_eq!(metric(old, "rate"), Some(1370992.0));
    }

    #[test]
    fn records_alone_are_an_error_on_their_line() {
        let lines = crate::lines::split("1+0 records in\n1+0 records out\nprose\n");
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 2);
        // One `N+M word` line is not dd at all (`3+4 apples`).
        let lines = crate::lines::split("3+4 apples\nprose\n");
        assert!(recognize(&lines, 0).is_none());
    }
}
