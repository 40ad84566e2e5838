//! cyclictest summary lines (`T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 Act: 6 Avg: 3 Max: 53381`).
//!
//! https://git.kernel.org/pub/scm/utils/rt-tests/rt-tests.git/tree/src/cyclictest/cyclictest.c

use crate::document::{BlockBody, Cyclictest, CyclictestThread};
use crate::error::ParseError;
use crate::lines::Line;

const FORMAT: &str = "cyclictest";

/// Recognise a run of `T:` lines starting at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    if !lines[start].text.trim_start().starts_with("T:") {
        return None;
    }
    let quote = lines[start].quote;
    let mut threads = Vec::new();
    let mut i = start;
    while i < lines.len() && lines[i].quote == quote && lines[i].text.trim_start().starts_with("T:")
    {
        match parse_thread(&lines[i]) {
            Ok(t) => threads.push(t),
            Err(e) => return Some(Err(e)),
        }
        i += 1;
    }
    Some(Ok((
        i - start,
        BlockBody::Cyclictest(Cyclictest {
            threads,
            histogram: None,
            printed_unit: "us".into(),
        }),
    )))
}

fn parse_thread(line: &Line<'_>) -> Result<CyclictestThread, ParseError> {
    let text = line.text;
    let mut t = CyclictestThread::default();
    let mut seen_max = false;
    // Normalise "T: 0 ( 4541) P:99" into key/value tokens.
    let norm = text.replace('(', " ( ").replace(')', " ) ");
    let mut toks = norm.split_whitespace().peekable();
    while let Some(tok) = toks.next() {
        let col = text.find(tok).map(|c| c as u64 + 1).unwrap_or(1);
        let (key, inline) = match tok.split_once(':') {
            Some((k, v)) => (k, v),
            None if tok == "(" => {
                let v = toks.next().unwrap_or("");
                t.tid = Some(num(v, line, col, "a thread id")?);
                toks.next();
                continue;
            }
            None => {
                return Err(ParseError::invalid(
                    FORMAT,
                    line.no,
                    col,
                    "`Key:value` fields",
                    tok,
                ));
            }
        };
        let val = if inline.is_empty() {
            toks.next().unwrap_or("")
        } else {
            inline
        };
        match key {
            "T" => t.thread = num(val, line, col, "a thread number")?,
            "P" => t.priority = Some(num(val, line, col, "a priority")?),
            "I" => t.interval_us = Some(num(val, line, col, "an interval")?),
            "C" => t.cycles = Some(num(val, line, col, "a cycle count")?),
            "Min" => t.min_us = num(val, line, col, "a latency")?,
            "Act" => t.act_us = Some(num(val, line, col, "a latency")?),
            "Avg" => t.avg_us = num(val, line, col, "a latency")?,
            "Max" => {
                t.max_us = num(val, line, col, "a latency")?;
                seen_max = true;
            }
            _ => {}
        }
    }
    if !seen_max {
        return Err(ParseError::invalid(
            FORMAT,
            line.no,
            text.len() as u64 + 1,
            "a `Max:` field",
            "end of line",
        ));
    }
    Ok(t)
}

fn num<T: std::str::FromStr>(v: &str, line: &Line<'_>, col: u64, what: &str) -> Result<T, ParseError> {
    v.parse()
        .map_err(|_| ParseError::invalid(FORMAT, line.no, col, what, v))
}
