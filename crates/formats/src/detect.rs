//! Format detection: the scan that finds every result block in any text.
//!
//! Owns the list of recognizers ([`RECOGNIZERS`], one line per format), how
//! overlapping claims are resolved, and which unread parts of the text are
//! worth a warning. It does not know about mails (see [`crate::mail`]) and
//! does not guess labels (see [`crate::hints`]).
//!
//! Every recognizer is tried at every line. When several claim the same
//! line, the stronger one wins ([`Strength`]; among equals, the earlier in
//! the list). A generic claim (an ad-hoc table) is cut short where a
//! specific format would start inside it, so a table in front of a
//! cyclictest summary does not swallow it. A recognizer that claims lines
//! and cannot parse them produces a warning, never the end of the scan.

use std::fmt;

use crate::document::{BlockBody, Warning};
use crate::error::ParseError;
use crate::hyperfine;
use crate::lines::Line;
use crate::{MAX_BLOCKS, time};
use crate::{counters, dd, distribution, hwlat, microbench, perf_lock, profile, willitscale};
use crate::{cyclictest, cyclictest_json, ftrace, histogram, lkp, metrics, mmtests, plain, rtla};
use crate::{fio, kernbench, sysbench};

/// How much a claim of a recognizer is worth against another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// Anything with a header and numbers: the ad-hoc table.
    Generic,
    /// A tool's own output, recognised by lines nothing else prints.
    Specific,
}

/// What a recognizer found: how many lines it consumed and the blocks, each
/// with the column header it was printed under when there were several.
#[derive(Debug, Clone)]
pub struct Found {
    pub consumed: usize,
    pub bodies: Vec<(BlockBody, Option<String>)>,
    /// A label for a single block that the words around it override: the
    /// command a lone hyperfine benchmark ran, used only when no prose,
    /// heading or pairing names the side.
    pub fallback: Option<String>,
}

type Single = fn(&[Line<'_>], usize) -> Option<Result<(usize, BlockBody), ParseError>>;
type Many = fn(&[Line<'_>], usize) -> Option<Result<Found, ParseError>>;

/// How a recognizer returns its blocks.
#[derive(Clone, Copy)]
pub enum Recognize {
    /// One block per claim.
    Single(Single),
    /// Several blocks from one span (`time` runs printed side by side).
    Many(Many),
}

/// One format's entry in the scan.
pub struct Recognizer {
    /// Name used in `source.format` and in error messages.
    pub name: &'static str,
    /// What the format looks like, for the message when nothing was found.
    pub looks_for: &'static str,
    pub strength: Strength,
    pub recognize: Recognize,
}

impl fmt::Debug for Recognizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for Recognizer {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// A format as the scan refers to it.
pub type Format = &'static Recognizer;

impl Recognizer {
    const fn single(
        name: &'static str,
        looks_for: &'static str,
        strength: Strength,
        f: Single,
    ) -> Self {
        Recognizer {
            name,
            looks_for,
            strength,
            recognize: Recognize::Single(f),
        }
    }

    const fn many(
        name: &'static str,
        looks_for: &'static str,
        strength: Strength,
        f: Many,
    ) -> Self {
        Recognizer {
            name,
            looks_for,
            strength,
            recognize: Recognize::Many(f),
        }
    }

    /// Name used in `source.format` and in error messages.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Run this recognizer at `lines[start]`.
    pub fn recognize(&self, lines: &[Line<'_>], start: usize) -> Option<Result<Found, ParseError>> {
        if start >= lines.len() {
            return None;
        }
        match self.recognize {
            Recognize::Single(f) => f(lines, start).map(|r| {
                r.map(|(consumed, body)| Found {
                    fallback: None,
                    consumed,
                    bodies: vec![(body, None)],
                })
            }),
            Recognize::Many(f) => f(lines, start),
        }
    }
}

/// Every format the scan looks for, one line each. The order matters only
/// between claims of equal [`Strength`] at the same line: the most
/// distinctive first lines come first.
#[rustfmt::skip]
pub static RECOGNIZERS: &[Recognizer] = &[
    Recognizer::single("cyclictest_json", "cyclictest --json", Strength::Specific, cyclictest_json::recognize),
    Recognizer::single("ftrace", "an ftrace latency report", Strength::Specific, ftrace::recognize),
    Recognizer::single("rtla", "rtla timerlat / osnoise", Strength::Specific, rtla::recognize),
    Recognizer::single("latency_footer_table", "cyclictest footers in a hand-made table", Strength::Specific, plain::footer_table),
    Recognizer::single("cyclictest_histogram", "a cyclictest histogram", Strength::Specific, histogram::recognize),
    Recognizer::single("cyclictest", "cyclictest `T:` lines", Strength::Specific, cyclictest::recognize),
    Recognizer::single("perf_lock", "perf lock contention", Strength::Specific, perf_lock::recognize),
    Recognizer::single("distribution", "a bpftrace / BCC histogram", Strength::Specific, distribution::recognize),
    Recognizer::single("profile", "a perf report / perf top profile", Strength::Specific, profile::recognize),
    Recognizer::single("will_it_scale", "will-it-scale CSV", Strength::Specific, willitscale::recognize),
    Recognizer::single("microbench", "schbench / hackbench / perf bench", Strength::Specific, microbench::recognize),
    Recognizer::single("dd", "dd's `bytes ... copied` summary", Strength::Specific, dd::recognize),
    Recognizer::single("hwlatdetect", "an rt-tests hwlatdetect report", Strength::Specific, hwlat::recognize),
    Recognizer::single("fio", "fio job reports / `Run status group` summaries", Strength::Specific, fio::recognize),
    Recognizer::single("sysbench", "a sysbench run summary", Strength::Specific, sysbench::recognize),
    Recognizer::single("lkp", "an LKP robot table", Strength::Specific, lkp::recognize),
    Recognizer::many("hyperfine", "hyperfine `Benchmark N:` summaries", Strength::Specific, hyperfine::recognize),
    Recognizer::many("counter_diff", "vmstat deltas written as a diff (`-name value` / `+name value`)", Strength::Specific, counters::recognize_diff),
    Recognizer::single("counters", "vmstat / meminfo / memory.stat / PSI counters", Strength::Specific, counters::recognize),
    Recognizer::single("mmtests", "an mmtests compare table", Strength::Specific, mmtests::recognize),
    Recognizer::single("kernbench", "a kernbench summary", Strength::Specific, kernbench::recognize),
    Recognizer::many("metrics", "stress-ng / perf stat / usemem metrics", Strength::Specific, metrics::recognize_blocks),
    Recognizer::many("time", "`time` output", Strength::Specific, time_runs),
    Recognizer::single("plain", "a table with a header line", Strength::Generic, plain::recognize),
];

fn time_runs(lines: &[Line<'_>], start: usize) -> Option<Result<Found, ParseError>> {
    time::recognize_runs(lines, start).map(|r| {
        r.map(|(consumed, runs)| Found {
            fallback: None,
            consumed,
            bodies: runs
                .into_iter()
                .map(|(t, label)| (BlockBody::Time(t), label))
                .collect(),
        })
    })
}

/// The recognizer called `name`, if there is one.
pub fn by_name(name: &str) -> Option<Format> {
    RECOGNIZERS.iter().find(|r| r.name == name)
}

/// What the scan looked for, for the message of an input without blocks.
pub fn looked_for() -> String {
    let list: Vec<&str> = RECOGNIZERS.iter().map(|r| r.looks_for).collect();
    format!("a known result format (looked for: {})", list.join(", "))
}

/// A block found by [`scan`], with the format that recognised it and the
/// column header it was printed under (side-by-side `time` runs).
#[derive(Debug, Clone)]
pub struct Scanned {
    pub block: crate::document::Block,
    pub format: Format,
    pub column_label: Option<String>,
    /// The label to take when nothing else names the block (see
    /// [`Found::fallback`]).
    pub fallback_label: Option<String>,
    /// Index of the block's first and last line in the scanned slice.
    pub first: usize,
    pub last: usize,
    /// Only blank lines separate the block from the previous block of its
    /// message, so it is under the same words (set with the hints).
    pub continues: bool,
    /// The short heading just above the block, read while its lines are at
    /// hand (see `hints::heading_above`).
    pub heading: Option<String>,
    /// What is above the block's label lines (see `hints::Under`).
    pub under: Option<crate::hints::Under>,
}

/// Everything one scan found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub blocks: Vec<Scanned>,
    /// Claims that could not be parsed, in line order.
    pub failures: Vec<ParseError>,
    /// Runs of lines that look like results but that no format read.
    pub unread: Vec<Warning>,
}

/// One claim at a line: the recognizer and what it found.
struct Claim {
    format: Format,
    found: Found,
}

/// Run every recognizer at `lines[i]`: the strongest claim, or the errors.
fn claims_at(lines: &[Line<'_>], i: usize) -> (Option<Claim>, Vec<(Format, ParseError)>) {
    let mut best: Option<Claim> = None;
    let mut errors = Vec::new();
    for format in RECOGNIZERS {
        if best
            .as_ref()
            .is_some_and(|b| b.format.strength >= format.strength)
        {
            continue;
        }
        match format.recognize(lines, i) {
            None => {}
            Some(Ok(found)) if found.consumed > 0 && !found.bodies.is_empty() => {
                best = Some(Claim { format, found });
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => errors.push((format, e)),
        }
    }
    (best, errors)
}

/// Whether a recognizer stronger than `than` claims `lines[k]`.
fn stronger_starts(lines: &[Line<'_>], k: usize, than: Strength) -> bool {
    RECOGNIZERS
        .iter()
        .filter(|f| f.strength > than)
        .any(|f| matches!(f.recognize(lines, k), Some(Ok(found)) if found.consumed > 0))
}

/// Cut a generic claim short where a stronger format starts inside it.
fn yield_to_stronger(lines: &[Line<'_>], i: usize, claim: Claim) -> Option<Claim> {
    if claim.format.strength == Strength::Specific {
        return Some(claim);
    }
    let end = (i + claim.found.consumed).min(lines.len());
    let Some(k) = (i + 1..end).find(|&k| stronger_starts(lines, k, claim.format.strength)) else {
        return Some(claim);
    };
    let head = lines.get(..k)?;
    match claim.format.recognize(head, i) {
        Some(Ok(found)) if found.consumed > 0 && !found.bodies.is_empty() => Some(Claim {
            format: claim.format,
            found,
        }),
        _ => None,
    }
}

/// Walk `lines`, trying every format at every line, and collect the blocks,
/// the claims that failed, and the parts that look like results but were
/// not read. Only a limit ends the scan with an error.
pub fn scan(lines: &[Line<'_>]) -> Result<Scan, ParseError> {
    scan_from(lines, 0)
}

/// [`scan`] starting at `lines[from]`: the lines before it are context a
/// recognizer may look back at (a command line above a result), not
/// scanned again.
pub fn scan_from(lines: &[Line<'_>], from: usize) -> Result<Scan, ParseError> {
    let mut out = Scan::default();
    let mut covered = vec![false; lines.len()];
    covered.iter_mut().take(from).for_each(|c| *c = true);
    let mut i = from;
    while i < lines.len() {
        let (claim, errors) = claims_at(lines, i);
        // A specific format that claimed the line and failed outranks a
        // generic reading of the same lines: the error says more.
        let specific_error = errors.iter().any(|(f, _)| f.strength == Strength::Specific);
        let claim = claim
            .filter(|c| c.format.strength == Strength::Specific || !specific_error)
            .and_then(|c| yield_to_stronger(lines, i, c));
        if let Some(Claim { format, found }) = claim {
            // A recognizer that over-reports must not push us past the end.
            let last = (i + found.consumed).min(lines.len()) - 1;
            let span = [line_no(lines, i), line_no(lines, last)];
            let quote = lines.get(i).map(|l| l.quote).unwrap_or(0);
            for (body, column_label) in found.bodies {
                if out.blocks.len() >= MAX_BLOCKS {
                    return Err(crate::too_many_blocks(line_no(lines, i)));
                }
                let mut block = crate::document::Block::new(span, body);
                if quote > 0 {
                    block.quote_level = Some(quote);
                }
                out.blocks.push(Scanned {
                    block,
                    format,
                    column_label,
                    fallback_label: found.fallback.clone(),
                    first: i,
                    last,
                    continues: false,
                    heading: None,
                    under: None,
                });
            }
            covered
                .iter_mut()
                .take(last + 1)
                .skip(i)
                .for_each(|c| *c = true);
            i = last + 1;
            continue;
        }
        if let Some((_, e)) = errors.into_iter().next() {
            // Resume after the offending line so one broken table is one
            // warning, not one per line of it.
            let bad = lines
                .iter()
                .skip(i)
                .position(|l| l.no == e.line)
                .map(|k| i + k);
            for c in covered.iter_mut().take(bad.unwrap_or(i) + 1).skip(i) {
                *c = true;
            }
            out.failures.push(e);
            i = bad.unwrap_or(i).max(i) + 1;
            continue;
        }
        i += 1;
    }
    out.unread = unread_parts(lines, &covered);
    Ok(out)
}

/// Shortest run of data-like lines worth a warning.
const UNREAD_MIN_LINES: usize = 2;

/// Whether a line looks like a row of results: mostly numbers.
fn looks_like_data(text: &str) -> bool {
    let mut words = 0;
    let mut numbers = 0;
    for w in text.split_whitespace().take(64) {
        words += 1;
        let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '|'));
        if is_decimal(w) {
            numbers += 1;
        }
    }
    numbers >= 2 && numbers * 2 >= words
}

/// `123`, `-4.5`, `12.3%`, `80GB`, `1,234`, `5us`: a decimal number with at
/// most a short unit; not hex words (`ffff8828ee120000`, `0x04`).
fn is_decimal(w: &str) -> bool {
    let w = w.trim_start_matches(['+', '-']);
    let num_end = w
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(w.len());
    let (num, unit) = w.split_at(num_end);
    let unit = unit.trim_end_matches('%');
    !num.is_empty()
        && num.starts_with(|c: char| c.is_ascii_digit())
        && unit.len() <= 4
        && unit.chars().all(|c| c.is_ascii_alphabetic() || c == '/')
        && !(unit.starts_with('x') && num == "0")
        && !(unit.len() > 1 && unit.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Units that make a number a measured result when written in prose
/// (`1ms / 90ms / 280ms`, `82.973 FPS`, `new record: 72707 us`).
const MEASURE_UNITS: &[&str] = &[
    "ns", "us", "usec", "usecs", "µs", "ms", "msec", "msecs", "s", "sec", "secs", "seconds", "FPS",
    "fps", "MB/s", "GB/s", "KB/s", "kB/s", "MiB/s", "GiB/s", "ops/s", "ops/sec", "%",
];

/// How many measured values (a number with a time, rate or percent unit,
/// attached or as the next word) a line holds.
fn measured_values(text: &str) -> usize {
    // `testtime: 60s`, `nr_threads: 100%`: one parameter of a job, not a
    // result.
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() == 2 && words[0].ends_with(':') {
        return 0;
    }
    let toks: Vec<&str> = text
        .split_whitespace()
        .take(64)
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '/' | ':'))
        })
        .collect();
    let mut n = 0;
    for (k, w) in toks.iter().enumerate() {
        let num_end = w
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(w.len());
        if num_end == 0 || !w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let unit = &w[num_end..];
        let next_is_unit =
            unit.is_empty() && toks.get(k + 1).is_some_and(|u| MEASURE_UNITS.contains(u));
        if MEASURE_UNITS.contains(&unit) || next_is_unit {
            n += 1;
        }
    }
    n
}

/// Measured values on one line of prose worth a warning by themselves.
const PROSE_VALUES_MIN: usize = 3;

/// Runs of data-like lines that no block covers, as warnings; and results
/// written as prose (`1ms / 90ms / 280ms`, two lines in a row with measured
/// values in them), so that what was skipped is said.
fn unread_parts(lines: &[Line<'_>], covered: &[bool]) -> Vec<Warning> {
    let mut out = Vec::new();
    // (first, last, most measured values on one line, all lines data-like)
    let mut run: Option<(usize, usize, usize, bool)> = None;
    let flush = |run: &mut Option<(usize, usize, usize, bool)>, out: &mut Vec<Warning>| {
        if let Some((a, b, most, data)) = run.take()
            && (b - a + 1 >= UNREAD_MIN_LINES || most >= PROSE_VALUES_MIN)
        {
            let (first, last) = (line_no(lines, a), line_no(lines, b));
            let n = b - a + 1;
            let spikes = lines.get(a..=b).is_some_and(|run| {
                run.iter()
                    .all(|l| l.text.trim().is_empty() || crate::cyclictest::is_spike_line(l.text))
            });
            let what = if spikes {
                format!("{n} cyclictest `--spike` lines (each spike is listed, not kept)")
            } else if data {
                format!("{n} lines of numbers that no format could read")
            } else {
                format!("results written as prose ({n} lines) that no format could read")
            };
            let message = if first == last {
                format!("line {first}: {what}")
            } else {
                format!("lines {first}-{last}: {what}")
            };
            out.push(Warning {
                line: Some(first),
                message,
            });
        }
    };
    for (k, l) in lines.iter().enumerate() {
        let free = !covered.get(k).copied().unwrap_or(false);
        let data = free && (looks_like_data(l.text) || crate::cyclictest::is_spike_line(l.text));
        let measured = if free { measured_values(l.text) } else { 0 };
        if data || measured > 0 {
            run = Some(match run {
                Some((a, _, most, d)) => (a, k, most.max(measured), d && data),
                None => (k, k, measured, data),
            });
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

fn line_no(lines: &[Line<'_>], i: usize) -> u64 {
    lines.get(i).map(|l| l.no).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_written_as_prose_are_listed() {
        let lines = crate::lines::split(
            "The latencies were 1ms / 90ms / 280ms today.\n\nnr_threads: 100%\ntesttime: 60s\n\nplain words\n",
        );
        let w = unread_parts(&lines, &vec![false; lines.len()]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].line, Some(1));
        assert!(w[0].message.contains("results written as prose"));
        assert_eq!(measured_values("415 frames in 5.0 seconds = 82.973 FPS"), 2);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = RECOGNIZERS.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RECOGNIZERS.len());
    }

    #[test]
    fn recognize_past_the_end_is_none() {
        let lines = crate::lines::split("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4");
        for f in RECOGNIZERS {
            assert!(f.recognize(&lines, 5).is_none());
        }
    }

    #[test]
    fn prose_first_then_a_block() {
        let text = "Hi all,\n\nsome numbers from my box:\n\nT: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4\n\nthanks\n";
        let lines = crate::lines::split(text);
        let s = scan(&lines).unwrap();
        assert_eq!(s.blocks.len(), 1);
        assert_eq!(s.blocks[0].block.lines, [5, 5]);
        assert!(s.failures.is_empty() && s.unread.is_empty());
    }

    #[test]
    fn a_generic_table_yields_to_a_specific_block_inside_it() {
        // `real 0.5` / `user 0.1` / `sys 0.2` would also be rows of the
        // table above: the stronger `time` claim takes them.
        let text = "kernel value\nvanilla 1\npatched 2\nreal 0.5\nuser 0.1\nsys 0.2\n";
        let lines = crate::lines::split(text);
        let s = scan(&lines).unwrap();
        let found: Vec<_> = s
            .blocks
            .iter()
            .map(|b| (b.format.name, b.block.lines))
            .collect();
        assert_eq!(found, [("plain", [1, 3]), ("time", [4, 6])]);
    }

    #[test]
    fn unread_numbers_are_warned_with_their_lines() {
        let text = "prose\n\n1.5 2 3 4\n5 6 7 8\n\nmore prose\n";
        let lines = crate::lines::split(text);
        let s = scan(&lines).unwrap();
        assert!(s.blocks.is_empty(), "{:?}", s.blocks);
        assert_eq!(s.unread.len(), 1);
        assert!(
            s.unread[0].message.starts_with("lines 3-4:"),
            "{:?}",
            s.unread
        );
    }

    #[test]
    fn hex_dumps_are_not_numbers() {
        assert!(!looks_like_data(
            "  ffff885582f84000 ffff885e8682f000 ffff880972943000"
        ));
        assert!(!looks_like_data("ps D 0 0x00000004 14018"));
        assert!(looks_like_data("Amean 12.5% 80GB 1,234"));
    }
}
