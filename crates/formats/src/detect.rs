//! Format detection and dispatch over plain-text lines.
//!
//! Owns the [`Format`] enum (one variant per result format, dispatched with an
//! exhaustive `match`), the order in which recognizers are tried, and the scan
//! that walks a run of lines and collects every block. It does not know about
//! mails (see [`crate::mail`]) and does not guess labels (see [`crate::hints`]).

use crate::document::{Block, BlockBody};
use crate::error::ParseError;
use crate::lines::Line;
use crate::{MAX_BLOCKS, time};
use crate::{counters, distribution, microbench, perf_lock, profile, willitscale};
use crate::{cyclictest, cyclictest_json, ftrace, histogram, lkp, metrics, mmtests, plain, rtla};

/// Every result format a block can be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    CyclictestJson,
    Ftrace,
    Rtla,
    Histogram,
    Cyclictest,
    Lkp,
    Mmtests,
    Metrics,
    Time,
    Plain,
    LockContention,
    Distribution,
    Profile,
    WillItScale,
    Microbench,
    Counters,
}

impl Format {
    /// The order recognizers are tried at each line: the formats with the
    /// most distinctive first lines come first, and the ad-hoc table comes
    /// last because almost anything with a header and numbers looks like one.
    pub const ALL: [Format; 16] = [
        Format::CyclictestJson,
        Format::Ftrace,
        Format::Rtla,
        Format::Histogram,
        Format::Cyclictest,
        Format::LockContention,
        Format::Distribution,
        Format::Profile,
        Format::WillItScale,
        Format::Microbench,
        Format::Lkp,
        Format::Counters,
        Format::Mmtests,
        Format::Metrics,
        Format::Time,
        Format::Plain,
    ];

    /// Name used in `source.format` and in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::CyclictestJson => "cyclictest_json",
            Format::Ftrace => "ftrace",
            Format::Rtla => "rtla",
            Format::Histogram => "cyclictest_histogram",
            Format::Cyclictest => "cyclictest",
            Format::Lkp => "lkp",
            Format::Mmtests => "mmtests",
            Format::Metrics => "metrics",
            Format::Time => "time",
            Format::Plain => "plain",
            Format::LockContention => "perf_lock",
            Format::Distribution => "distribution",
            Format::Profile => "profile",
            Format::WillItScale => "will_it_scale",
            Format::Microbench => "microbench",
            Format::Counters => "counters",
        }
    }

    /// Run this format's recognizer at `lines[start]`. Formats that can
    /// produce several blocks from one span (`time` printed side by side)
    /// return them all; the others return one.
    pub fn recognize(self, lines: &[Line<'_>], start: usize) -> Option<Result<Found, ParseError>> {
        if start >= lines.len() {
            return None;
        }
        let single = |r: Option<Result<(usize, BlockBody), ParseError>>| {
            r.map(|r| {
                r.map(|(consumed, body)| Found {
                    consumed,
                    bodies: vec![(body, None)],
                })
            })
        };
        match self {
            Format::CyclictestJson => single(cyclictest_json::recognize(lines, start)),
            Format::Ftrace => single(ftrace::recognize(lines, start)),
            Format::Rtla => single(rtla::recognize(lines, start)),
            Format::Histogram => single(histogram::recognize(lines, start)),
            Format::Cyclictest => single(cyclictest::recognize(lines, start)),
            Format::Lkp => single(lkp::recognize(lines, start)),
            Format::Mmtests => single(mmtests::recognize(lines, start)),
            Format::Metrics => single(metrics::recognize(lines, start)),
            Format::Time => time::recognize_runs(lines, start).map(|r| {
                r.map(|(consumed, runs)| Found {
                    consumed,
                    bodies: runs
                        .into_iter()
                        .map(|(t, label)| (BlockBody::Time(t), label))
                        .collect(),
                })
            }),
            Format::Plain => single(plain::recognize(lines, start)),
            Format::LockContention => single(perf_lock::recognize(lines, start)),
            Format::Distribution => single(distribution::recognize(lines, start)),
            Format::Profile => single(profile::recognize(lines, start)),
            Format::WillItScale => single(willitscale::recognize(lines, start)),
            Format::Microbench => single(microbench::recognize(lines, start)),
            Format::Counters => single(counters::recognize(lines, start)),
        }
    }
}

/// What a recognizer found: how many lines it consumed and the blocks, each
/// with the column header it was printed under when there were several.
#[derive(Debug, Clone)]
pub struct Found {
    pub consumed: usize,
    pub bodies: Vec<(BlockBody, Option<String>)>,
}

/// A block found by [`scan`], with the format that recognised it and the
/// column header it was printed under (side-by-side `time` runs).
#[derive(Debug, Clone)]
pub struct Scanned {
    pub block: Block,
    pub format: Format,
    pub column_label: Option<String>,
    /// Index of the block's first and last line in the scanned slice.
    pub first: usize,
    pub last: usize,
}

/// What to do when a recognizer claims a block but cannot parse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// A single-format input: the error is the answer.
    Fail,
    /// Inside a mail: record it and keep going.
    Warn,
}

/// Walk `lines`, trying every format at every line, and collect the blocks.
/// With [`OnError::Warn`], failures come back as the second element.
pub fn scan(
    lines: &[Line<'_>],
    on_error: OnError,
) -> Result<(Vec<Scanned>, Vec<ParseError>), ParseError> {
    let mut out: Vec<Scanned> = Vec::new();
    let mut failures = Vec::new();
    let mut i = 0;
    'lines: while i < lines.len() {
        for format in Format::ALL {
            match format.recognize(lines, i) {
                None => continue,
                Some(Ok(found)) if found.consumed > 0 && !found.bodies.is_empty() => {
                    // A recognizer that over-reports must not push us past
                    // the end or split a span inside out.
                    let last = (i + found.consumed).min(lines.len()) - 1;
                    let span = [line_no(lines, i), line_no(lines, last)];
                    let quote = lines.get(i).map(|l| l.quote).unwrap_or(0);
                    for (body, column_label) in found.bodies {
                        if out.len() >= MAX_BLOCKS {
                            return Err(too_many_blocks(lines, i));
                        }
                        let mut block = Block::new(span, body);
                        if quote > 0 {
                            block.quote_level = Some(quote);
                        }
                        out.push(Scanned {
                            block,
                            format,
                            column_label,
                            first: i,
                            last,
                        });
                    }
                    i = last + 1;
                    continue 'lines;
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => match on_error {
                    OnError::Fail => return Err(e),
                    OnError::Warn => {
                        // Resume after the offending line so one broken
                        // table is one warning, not one per line of it.
                        let bad = lines
                            .iter()
                            .skip(i)
                            .position(|l| l.no == e.line)
                            .map(|k| i + k);
                        failures.push(e);
                        if let Some(bad) = bad {
                            i = bad;
                        }
                        break;
                    }
                },
            }
        }
        i += 1;
    }
    Ok((out, failures))
}

fn line_no(lines: &[Line<'_>], i: usize) -> u64 {
    lines.get(i).map(|l| l.no).unwrap_or(0)
}

fn too_many_blocks(lines: &[Line<'_>], i: usize) -> ParseError {
    crate::too_many_blocks(line_no(lines, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Format::ALL.len());
    }

    #[test]
    fn recognize_past_the_end_is_none() {
        let lines = crate::lines::split("T: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4");
        for f in Format::ALL {
            assert!(f.recognize(&lines, 5).is_none());
        }
    }
}
