//! cyclictest summary lines and the block they form with a histogram.
//!
//! Owns the `T:` lines of every rt-tests layout: current
//! (`T: 0 ( 4541) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   53381`),
//! `-N` nanoseconds (Act/Avg printed 8 wide; values converted to us, the
//! printed numbers kept in `original`, `printed_unit: "ns"`), `-q`, `-m -S
//! --smp`, old layouts (`T: 0 (1234) P:80 I:10000 C:1000 Min: ...`), extra
//! fields some builds print (`SMI:`, `CPU:`, `Policy:`), the `policy: fifo:
//! loadavg: ...` line above them, terminal escape codes left in captured
//! output, and a `T:` line wrapped by a mailer. A `# Histogram` section
//! before or after the `T:` lines belongs to the same block (parsed by
//! [`crate::histogram`]).
//!
//! Nanoseconds cannot be told from one line's numbers, so `-N` is inferred
//! from the printed widths (`Act:%8ld Avg:%8ld` instead of `%5ld`) or from a
//! `cyclictest ... -N`/`--nsecs` command line just above the block.
//!
//! Format: `print_stat()` in rt-tests `src/cyclictest/cyclictest.c`,
//! <https://git.kernel.org/pub/scm/utils/rt-tests/rt-tests.git>.

use serde_json::{Map, Value};

use crate::MAX_LINE_LEN;
use crate::document::{BlockBody, Cyclictest, CyclictestThread};
use crate::error::ParseError;
use crate::ftrace::ascii_spaces;
use crate::histogram::{self, HistogramBuilder};
use crate::lines::{self, Line};
use crate::stream::{Newlines, strip_cr};

const FORMAT: &str = "cyclictest";

/// A histogram footer minimum at least this large is read as nanoseconds.
const NS_FLOOR: u64 = 1000;

/// How many lines above a block are searched for the cyclictest command.
const CMDLINE_LOOKBACK: usize = 6;

/// Recognise a cyclictest block (`T:` lines and/or a histogram) starting at
/// `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let mut run = Run::start(&lines[..start], lines.get(start)?)?;
    let mut consumed = 0;
    for (k, line) in lines[start..].iter().enumerate() {
        match run.feed_line(line) {
            // An empty line joins the block only when a line after it does.
            Ok(true) if line.text.trim().is_empty() => {}
            Ok(true) => consumed = k + 1,
            Ok(false) => break,
            Err(e) => return Some(Err(e)),
        }
    }
    // A last `T:` line cut after its key was left out of the block: the
    // block ends above it, so the scan reports that line on its own.
    if run.cut_tail() {
        consumed = consumed.saturating_sub(1);
    }
    match run.finish() {
        Ok(Some(body)) => Some(Ok((consumed.max(1), body))),
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    }
}

/// A cyclictest block read one line at a time with bounded state (threads
/// and histogram buckets, never the text): the streaming accumulator behind
/// [`recognize`] and [`crate::parse_reader`].
pub struct Run {
    b: BlockParser,
    quote: u32,
}

impl Run {
    /// A block opened by `first` (not fed yet); `above` are the lines just
    /// above it, where a `-N` command line may be.
    pub fn start(above: &[Line<'_>], first: &Line<'_>) -> Option<Self> {
        if !is_start(first.text) {
            return None;
        }
        let quote = first.quote;
        let lookback = above[above.len().saturating_sub(CMDLINE_LOOKBACK)..]
            .iter()
            .filter(|l| l.quote == quote)
            .any(|l| cmdline_says_ns(l.text));
        Some(Run {
            b: BlockParser::new(lookback),
            quote,
        })
    }

    /// Feed one line: `Ok(true)` when it belongs to the block.
    pub fn feed_line(&mut self, line: &Line<'_>) -> Result<bool, ParseError> {
        if line.quote != self.quote && !(self.b.pending.is_some() && is_wrapped_tail(line.text)) {
            return Ok(false);
        }
        self.b.feed(line.no, line.text)
    }

    /// [`Self::feed_line`] on a line as read: a bucket row goes straight to
    /// the histogram without decoding.
    #[inline]
    pub fn feed_raw(&mut self, no: u64, bytes: &[u8]) -> Result<bool, ParseError> {
        if self.quote == 0
            && self.b.pending.is_none()
            && self.b.hist.in_rows()
            && bytes.first().is_some_and(u8::is_ascii_digit)
        {
            self.b.hist.row_bytes(no, bytes)?;
            return Ok(true);
        }
        let raw = String::from_utf8_lossy(bytes);
        let (quote, text) = lines::quote_and_text(&raw);
        self.feed_line(&Line { no, text, quote })
    }

    /// Whether the last line fed is a `T:` line cut after its key, which
    /// the block leaves out.
    pub fn cut_tail(&self) -> bool {
        self.b.cut_last
            || self
                .b
                .pending
                .as_ref()
                .is_some_and(|(_, p)| self.b.cut_off(p))
    }

    /// [`Self::feed_raw`] on the lines at the start of `buf` (numbered
    /// from `no + 1`, each ended by `\n`) while they are bucket rows in the
    /// exact `print_hist()` layout, in one loop: how many lines and bytes
    /// were taken. The line that stops it is left to [`Self::feed_raw`].
    pub(crate) fn run(&mut self, _no: u64, buf: &[u8], newlines: &Newlines) -> (u64, usize) {
        if self.quote != 0 || self.b.pending.is_some() || !self.b.hist.in_rows() {
            return (0, 0);
        }
        let mut n = 0;
        let mut pos = 0;
        while let Some(k) = newlines.find(&buf[pos..]) {
            let line = strip_cr(&buf[pos..pos + k]);
            if line.len() > MAX_LINE_LEN
                || !line.first().is_some_and(u8::is_ascii_digit)
                || !self.b.hist.fixed_row_bytes(line)
            {
                break;
            }
            n += 1;
            pos += k + 1;
        }
        (n, pos)
    }

    /// The block, or `None` when it held neither a thread nor a histogram.
    pub fn finish(self) -> Result<Option<BlockBody>, ParseError> {
        Ok(self.b.finish()?.map(BlockBody::Cyclictest))
    }
}

/// Whether `text` can open a cyclictest block.
pub fn is_start(text: &str) -> bool {
    let t = strip_escapes(text).trim_start();
    is_thread_line(t)
        || histogram::is_start(t)
        || (t.starts_with("policy:") && t.contains("loadavg:"))
        || t.starts_with("# /dev/cpu_dma_latency set to")
}

fn is_thread_line(t: &str) -> bool {
    t.strip_prefix("T:")
        .map(str::trim_start)
        .and_then(|r| r.bytes().next())
        .is_some_and(|b| b.is_ascii_digit())
        && !is_spike_line(t)
}

/// `T: 1 Spike:    2393: TS:  63177288049`: one latency over the
/// `--spike` trigger, printed as it happens. Not a thread's summary.
pub fn is_spike_line(text: &str) -> bool {
    text.trim_start()
        .strip_prefix("T:")
        .map(str::trim_start)
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        .is_some_and(|r| r.trim_start().starts_with("Spike:"))
}

/// The rest of a `T:` line a mailer wrapped onto the next line: the next
/// fields, or the value of a key left at the end of the line (`Max:` /
/// `   4567`).
fn is_wrapped_tail(text: &str) -> bool {
    let t = text.trim_start();
    ["Min:", "Act:", "Avg:", "Max:", "C:"]
        .iter()
        .any(|k| t.starts_with(k))
        || (t
            .split_whitespace()
            .next()
            .is_some_and(|w| w.parse::<f64>().is_ok())
            && t.split_whitespace().count() <= 8)
}

/// `1 ( 4542) P:99 I:1500 C: 515416 Min: ...`: a `T:` line without its `T:`.
fn prefix_lost(t: &str) -> bool {
    let Some((n, rest)) = t.split_once(char::is_whitespace) else {
        return false;
    };
    n.chars().all(|c| c.is_ascii_digit())
        && n.len() <= 4
        && rest.trim_start().starts_with('(')
        && rest.contains(" P:")
        && rest.contains("Max:")
}

/// A line standing for histogram rows left out: an elision mark, or a
/// short note ending in one (`More histogram entries ...`).
fn is_cut_rows(t: &str) -> bool {
    crate::lines::is_elision(t)
        || (t.len() <= 60
            && (t.ends_with("...") || t.ends_with('\u{2026}'))
            && !t.contains(|c: char| c.is_ascii_digit()))
}

/// A `T:` line cut right after a key (`... Avg:    3 Max:`).
fn ends_with_bare_key(t: &str) -> bool {
    t.trim_end().ends_with(':')
}

/// Remove terminal escape sequences (`ESC [ 10 A`) that a non-quiet run
/// leaves in captured output.
fn strip_escapes(text: &str) -> &str {
    let mut t = text;
    while let Some(rest) = t.strip_prefix("\u{1b}[") {
        match rest.find(|c: char| c.is_ascii_alphabetic()) {
            Some(p) => t = &rest[p + 1..],
            None => return "",
        }
    }
    t
}

/// A `cyclictest` command line that asks for nanoseconds (`-N`,
/// `--nsecs`, or `N` among bundled short flags).
fn cmdline_says_ns(text: &str) -> bool {
    if !text.contains("cyclictest") {
        return false;
    }
    text.split_whitespace().any(|tok| {
        tok == "--nsecs"
            || (tok.starts_with('-')
                && !tok.starts_with("--")
                && tok.len() <= 8
                && tok[1..].bytes().all(|b| b.is_ascii_alphabetic())
                && tok.contains('N'))
    })
}

/// The line-at-a-time machine behind [`Run`].
struct BlockParser {
    threads: Vec<CyclictestThread>,
    hist: HistogramBuilder,
    policy: Option<String>,
    ns_hint: bool,
    /// Every `T:` line printed Act and Avg at least 8 wide (the `-N` format).
    all_wide: bool,
    /// A `T:` line without `Max:` waiting for its wrapped tail.
    pending: Option<(u64, String)>,
    blank_seen: bool,
    /// The last line was a `policy:` line (a refresh starts).
    policy_just_seen: bool,
    /// The block's last `T:` line ended in a key without its value
    /// (`... Avg:    2 Max:` and nothing after it) and was left out.
    cut_last: bool,
    /// The one empty line allowed between footers and the rows below them.
    footer_gap: bool,
    /// The last line was that empty line.
    after_footer_gap: bool,
    /// The one empty line allowed between the last bucket row and the
    /// footers below it (a poster who cut the empty rows); the last line
    /// was that line.
    after_rows_gap: bool,
    /// A `policy:` line that kept the tail of a `T:` line it overwrote:
    /// line number, column and that tail.
    overwritten: Option<(u64, usize, String)>,
}

impl BlockParser {
    fn new(ns_hint: bool) -> Self {
        BlockParser {
            threads: Vec::new(),
            hist: HistogramBuilder::new(),
            policy: None,
            ns_hint,
            all_wide: true,
            pending: None,
            blank_seen: false,
            policy_just_seen: false,
            cut_last: false,
            footer_gap: false,
            after_footer_gap: false,
            after_rows_gap: false,
            overwritten: None,
        }
    }

    /// `Ok(true)` when the line belongs to the block.
    fn feed(&mut self, no: u64, raw: &str) -> Result<bool, ParseError> {
        let normalized = ascii_spaces(raw);
        let text = strip_escapes(&normalized).trim_end();
        let t = text.trim_start();
        if let Some((pno, ptext)) = self.pending.take() {
            if is_wrapped_tail(t) {
                let joined = format!("{ptext} {t}");
                self.thread(pno, &joined, true)?;
                return Ok(true);
            }
            if self.cut_off(&ptext) {
                // The value never came: the block ends above that line.
                self.cut_last = true;
                return Ok(false);
            }
            self.thread(pno, &ptext, true)?;
        }
        if t.is_empty() {
            // cyclictest prints `policy: ...` and a blank line above the
            // `T:` lines, at the start and at every refresh of a non-quiet
            // run.
            let after_policy = self.policy_just_seen
                || (self.policy.is_some() && self.threads.is_empty() && !self.blank_seen);
            self.blank_seen = true;
            self.policy_just_seen = false;
            // Footers printed (or moved) above their `# Histogram` rows,
            // with an empty line between: the rows may still come.
            let footers_first = self.threads.is_empty()
                && self.hist.footers_only()
                && !std::mem::replace(&mut self.footer_gap, true);
            self.after_footer_gap = footers_first;
            let rows_first = self.threads.is_empty()
                && self.hist.rows_only()
                && !std::mem::replace(&mut self.after_rows_gap, true);
            return Ok((after_policy && self.hist.is_empty()) || footers_first || rows_first);
        }
        self.policy_just_seen = false;
        if std::mem::take(&mut self.after_rows_gap)
            && !(t.starts_with("# Total:") || t.starts_with("# Min Latencies:"))
        {
            // Only the footers of these rows may follow that empty line.
            return Ok(false);
        }
        if std::mem::take(&mut self.after_footer_gap) && t != "# Histogram" {
            // Another group of footers (or anything else): not these
            // footers' rows.
            return Ok(false);
        }
        // A `T:` line whose `T:` the terminal's status line overwrote:
        // `  1 ( 4542) P:99 I:1500 C: ...` among other `T:` lines.
        let restored;
        let (t, text) = match prefix_lost(t) {
            true if !self.threads.is_empty() => {
                restored = format!("T: {t}");
                (restored.as_str(), restored.as_str())
            }
            _ => (t, text),
        };
        if is_thread_line(t) {
            if !t.contains("Max:") || ends_with_bare_key(t) {
                self.pending = Some((no, text.to_string()));
                return Ok(true);
            }
            if self.starts_another_run(no, text) {
                return Ok(false);
            }
            self.thread(no, text, false)?;
            return Ok(true);
        }
        if self.hist.feed(no, text)? {
            return Ok(true);
        }
        // The rows cut by the poster (`More histogram entries ...`, `[...]`)
        // between the `# Histogram` line and the footers.
        if self.threads.is_empty() && self.hist.before_footers() && is_cut_rows(t) {
            return Ok(true);
        }
        if let Some(rest) = t.strip_prefix("policy:")
            && t.contains("loadavg:")
        {
            if self.overwritten.is_none()
                && let Some(at) = t.find(" Avg:").or_else(|| t.find(" Max:"))
            {
                // The status line printed over a `T:` line: the end of that
                // line (`Avg: 128 Max: 1177`) is all that is left of it.
                self.overwritten = Some((no, at + 2, t[at + 1..].to_string()));
            }
            let p = rest.split(':').next().unwrap_or("").trim();
            if !p.is_empty() {
                self.policy = Some(p.to_string());
            }
            self.policy_just_seen = true;
            return Ok(true);
        }
        Ok(t.starts_with("# /dev/cpu_dma_latency set to"))
    }

    /// Whether a `T:` line is the first of another run printed straight
    /// after this one: its thread number was seen already and it is not a
    /// refresh of that thread (another thread id, or fewer cycles).
    fn starts_another_run(&self, no: u64, text: &str) -> bool {
        let Ok((t, _)) = parse_thread(no, text) else {
            return false;
        };
        let Some(prev) = self.threads.iter().find(|p| p.thread == t.thread) else {
            return false;
        };
        if prev.cycles.unwrap_or(0) == 0 {
            // The start-up placeholder (`C: 0`, `Min:1000000`).
            return false;
        }
        let other_tid =
            matches!((prev.tid, t.tid), (Some(a), Some(b)) if a != 0 && b != 0 && a != b);
        let fewer = matches!((prev.cycles, t.cycles), (Some(a), Some(b)) if b < a);
        other_tid || fewer
    }

    fn thread(&mut self, no: u64, text: &str, wrapped: bool) -> Result<(), ParseError> {
        let (mut t, widths) = parse_thread(no, text)?;
        if wrapped || widths.0 < 8 || widths.1 < 8 {
            self.all_wide = false;
        }
        if t.policy.is_none() {
            t.policy.clone_from(&self.policy);
        }
        // A refresh of a non-quiet run, or a line a terminal printed twice:
        // the later line wins.
        if let Some(prev) = self.threads.iter_mut().find(|p| p.thread == t.thread) {
            *prev = t;
        } else {
            self.threads.push(t);
        }
        Ok(())
    }

    /// A pending `T:` line that ends in a key whose value never came, after
    /// other threads of the block: a paste cut short.
    fn cut_off(&self, ptext: &str) -> bool {
        !self.threads.is_empty() && ends_with_bare_key(ptext)
    }

    fn finish(mut self) -> Result<Option<Cyclictest>, ParseError> {
        if let Some((pno, ptext)) = self.pending.take() {
            if self.cut_off(&ptext) {
                self.cut_last = true;
            } else {
                self.thread(pno, &ptext, true)?;
            }
        }
        // A histogram without `T:` lines has no widths to tell `-N` by. Its
        // footer does: a minimum of 1000 or more on every thread is 1 ms in
        // microseconds (no latency test has that floor) and a plausible
        // floor in nanoseconds.
        let mins = self.hist.min_latencies();
        let footer_ns =
            self.threads.is_empty() && !mins.is_empty() && mins.iter().all(|&m| m >= NS_FLOOR);
        let ns = self.ns_hint || footer_ns || (self.all_wide && !self.threads.is_empty());
        if ns {
            for t in &mut self.threads {
                to_micros(t);
            }
        }
        let histogram = self.hist.finish(if ns { 0.001 } else { 1.0 });
        if self.threads.is_empty() && histogram.is_none() {
            if let Some((no, col, tail)) = self.overwritten {
                // Thread, cycles and Min are gone: not read, and said so.
                return Err(ParseError::invalid(
                    FORMAT,
                    no,
                    col as u64,
                    "a whole `T:` line (the status line overwrote its start; Avg and Max alone are not read)",
                    &tail,
                ));
            }
            return Ok(None);
        }
        Ok(Some(Cyclictest {
            threads: self.threads,
            histogram,
            printed_unit: if ns { "ns" } else { "us" }.to_string(),
            cmdline: None,
            rt_tests_version: None,
        }))
    }
}

/// Convert a thread parsed in printed units (ns) to us, keeping the
/// printed numbers in `original`.
fn to_micros(t: &mut CyclictestThread) {
    let mut orig = match t.original.take() {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut put = |k: &str, v: f64| {
        orig.insert(k.to_string(), json_number(v));
    };
    put("min", t.min_us);
    put("avg", t.avg_us);
    put("max", t.max_us);
    if let Some(a) = t.act_us {
        put("act", a);
        t.act_us = Some(a / 1000.0);
    }
    t.min_us /= 1000.0;
    t.avg_us /= 1000.0;
    t.max_us /= 1000.0;
    t.original = Some(Value::Object(orig));
}

fn json_number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// Parse one `T:` line. Returns the thread (values in printed units) and
/// the printed widths of the Act and Avg fields (for `-N` detection).
fn parse_thread(no: u64, text: &str) -> Result<(CyclictestThread, (usize, usize)), ParseError> {
    let b = text.as_bytes();
    let mut t = CyclictestThread::default();
    let mut extra = Map::new();
    let (mut seen_min, mut seen_avg, mut seen_max) = (false, false, false);
    let mut widths = (0usize, 0usize);
    let mut padded_interval = false;
    let err = |pos: usize, what: &str| {
        let found = text
            .get(pos..)
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("end of line");
        ParseError::invalid(FORMAT, no, pos as u64 + 1, what, found)
    };
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b[i] == b'(' {
            let close = text[i..]
                .find(')')
                .map(|p| p + i)
                .ok_or_else(|| err(i, "`(tid)`"))?;
            let inner = text[i + 1..close].trim();
            let pos = i + 1 + text[i + 1..close].find(inner).unwrap_or(0);
            t.tid = Some(inner.parse().map_err(|_| err(pos, "a thread id"))?);
            i = close + 1;
            continue;
        }
        let key_start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i == key_start || i >= b.len() || b[i] != b':' {
            return Err(err(key_start, "a `Key:value` field"));
        }
        let key = &text[key_start..i];
        i += 1;
        let field_start = i;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let val_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let val = &text[val_start..i];
        let width = i - field_start;
        if val.is_empty() {
            return Err(err(val_start, &format!("a value after `{key}:`")));
        }
        let int = |what: &str| -> Result<u64, ParseError> {
            val.parse().map_err(|_| err(val_start, what))
        };
        let lat = || -> Result<f64, ParseError> {
            val.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(val_start, &format!("a latency after `{key}:`")))
        };
        match key {
            "T" => {
                t.thread = u32::try_from(int("a thread number")?)
                    .map_err(|_| err(val_start, "a thread number"))?
            }
            "P" => t.priority = Some(val.parse().map_err(|_| err(val_start, "a priority"))?),
            "I" => {
                t.interval_us = Some(int("an interval")?);
                // cyclictest 0.x (2005-2007) padded every field to 8,
                // `I:    1000` among them, in microseconds: wide fields say
                // nothing of `-N` there (later versions print `I:1000`).
                padded_interval = val_start > field_start;
            }
            "C" => t.cycles = Some(int("a cycle count")?),
            "Min" => {
                t.min_us = lat()?;
                seen_min = true;
            }
            "Act" => {
                t.act_us = Some(lat()?);
                widths.0 = width;
            }
            "Avg" => {
                t.avg_us = lat()?;
                seen_avg = true;
                widths.1 = width;
            }
            "Max" => {
                t.max_us = lat()?;
                seen_max = true;
            }
            "CPU" | "Cpu" | "cpu" => {
                t.cpu = Some(
                    u32::try_from(int("a CPU number")?)
                        .map_err(|_| err(val_start, "a CPU number"))?,
                )
            }
            "Policy" | "policy" | "Pol" => t.policy = Some(val.to_string()),
            _ => {
                let v = val
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map_or_else(|| Value::from(val), json_number);
                extra.insert(key.to_string(), v);
            }
        }
    }
    for (seen, name) in [(seen_min, "Min"), (seen_avg, "Avg"), (seen_max, "Max")] {
        if !seen {
            return Err(ParseError::invalid(
                FORMAT,
                no,
                text.len() as u64 + 1,
                format!("a `{name}:` field"),
                "end of line",
            ));
        }
    }
    if !extra.is_empty() {
        t.original = Some(Value::Object(extra));
    }
    if padded_interval {
        widths = (0, 0);
    }
    Ok((t, widths))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spike_lines_are_not_thread_lines() {
        assert!(is_spike_line("T: 1 Spike:    2393: TS:  63177288049"));
        assert!(is_spike_line("T:12 Spike:      89: "));
        assert!(!is_thread_line("T: 1 Spike:    2393: TS:  63177288049"));
        assert!(is_thread_line(
            "T: 0 (27942) P:60 I:1000 C:   2000 Min:     18"
        ));
        assert!(!is_spike_line(
            "T: 0 (27942) P:60 I:1000 C:   2000 Min:     18"
        ));
    }

    fn parse(text: &str) -> Result<(usize, Cyclictest), ParseError> {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0) {
            Some(Ok((n, BlockBody::Cyclictest(c)))) => Ok((n, c)),
            Some(Ok(_)) => panic!("wrong body"),
            Some(Err(e)) => Err(e),
            None => panic!("not recognised"),
        }
    }

    #[test]
    fn footers_above_their_rows() {
        // Footers first, an empty line, `# Histogram` and counts wider than
        // the 6-digit field: one block.
        let text = "# Total: 002493036\n# Min Latencies: 00007\n# Avg Latencies: 00008\n# Max Latencies: 00009\n# Histogram Overflows: 00000\n\n# Histogram\n000007 000012\n000008 2493021\n000009 000003\n\nprose\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 10);
        let h = c.histogram.unwrap();
        assert_eq!(
            h.per_thread[0].buckets,
            vec![(7.0, 12), (8.0, 2493021), (9.0, 3)]
        );
        assert_eq!(h.per_thread[0].max_us, Some(9.0));
        // Another group of footers after the empty line is another block.
        let two = "# Min Latencies: 00007\n# Avg Latencies: 00008\n# Max Latencies: 00009\n\n# Min Latencies: 00001\n# Avg Latencies: 00002\n# Max Latencies: 00003\n";
        let (n, _) = parse(two).unwrap();
        assert_eq!(n, 3);
    }

    #[test]
    fn status_line_over_a_thread_line_is_an_error_with_its_place() {
        let text =
            "policy: fifo: loadavg: 0.05 0.01 0.00 1/85 1272          Avg:  128 Max:    1177\n";
        let e = parse(text).unwrap_err();
        assert_eq!((e.line, e.column), (1, 58));
        assert!(e.to_string().contains("Avg:  128 Max:    1177"), "{e}");
        // With the `T:` line below it, the status line is just a status line.
        let ok = "policy: fifo: loadavg: 0.05 0.01 0.00 1/85 1272          Avg:  128 Max:    1177\nT: 0 ( 1272) P:99 I:1000 C:   5000 Min:      3 Act:    5 Avg:  128 Max:    1177\n";
        let (_, c) = parse(ok).unwrap();
        assert_eq!(c.threads[0].max_us, 1177.0);
    }

    #[test]
    fn a_repeated_line_is_replaced_by_the_later_one() {
        let text = "T: 0 ( 100) P:99 I:1000 C:    500 Min:      1 Act:    2 Avg:    3 Max:      9\nT: 1 ( 101) P:99 I:1500 C:    300 Min:      1 Act:    2 Avg:    3 Max:      8\nT: 1 ( 101) P:99 I:1500 C:    333 Min:      1 Act:    2 Avg:    3 Max:     12\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 3);
        assert_eq!(c.threads.len(), 2);
        assert_eq!(
            (c.threads[1].cycles, c.threads[1].max_us),
            (Some(333), 12.0)
        );
    }

    #[test]
    fn runs_back_to_back_are_two_blocks() {
        let text = "T: 0 ( 100) P:99 I:1000 C:    500 Min:      1 Act:    2 Avg:    3 Max:      9\nT: 1 ( 101) P:99 I:1500 C:    300 Min:      1 Act:    2 Avg:    3 Max:      8\nT: 0 ( 200) P:99 I:1000 C:    500 Min:      1 Act:    2 Avg:    3 Max:     19\nT: 1 ( 201) P:99 I:1500 C:    300 Min:      1 Act:    2 Avg:    3 Max:     18\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 2);
        assert_eq!(c.threads[0].max_us, 9.0);
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks.len(), 2);
        assert_eq!(doc.blocks[1].lines, [3, 4]);
    }

    #[test]
    fn a_t_prefix_overwritten_by_the_status_line() {
        let text = "T: 0 ( 4541) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   53381\n 1 ( 4542) P:99 I:1500 C: 515416 Min:      1 Act:    5 Avg:    3 Max:     147\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 2);
        assert_eq!(c.threads[1].thread, 1);
        assert_eq!(c.threads[1].max_us, 147.0);
    }

    #[test]
    fn a_value_wrapped_onto_the_next_line() {
        let text = "> T: 0 ( 1234) P:99 I:1000 C: 100000 Min:      1 Act:    2 Avg:    3 Max:\n> 4567\n> T: 1 ( 1235) P:99 I:1500 C:  66666 Min:      1 Act:    2 Avg:    3\n> Max:     45\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 4);
        let maxes: Vec<f64> = c.threads.iter().map(|t| t.max_us).collect();
        assert_eq!(maxes, vec![4567.0, 45.0]);
    }

    #[test]
    fn a_histogram_footer_in_nanoseconds() {
        let text = "# Histogram\n000000 000000\n000001 000000\n# Total: 000000000\n# Min Latencies: 24791\n# Avg Latencies: 98000\n# Max Latencies: 1234567\n# Histogram Overflows: 01500\n";
        let (_, c) = parse(text).unwrap();
        let h = c.histogram.unwrap();
        assert_eq!(h.per_thread[0].min_us, Some(24.791));
        assert_eq!(c.printed_unit, "ns");
    }

    #[test]
    fn current_layout() {
        let (n, c) = parse("T: 0 ( 4541) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   53381\nT: 1 ( 4542) P:99 I:1500 C: 515381 Min:      1 Act:    7 Avg:    3 Max:   60119\n\nprose").unwrap();
        assert_eq!(n, 2);
        assert_eq!(c.printed_unit, "us");
        assert_eq!(c.threads[1].tid, Some(4542));
        assert_eq!(c.threads[1].interval_us, Some(1500));
        assert_eq!(c.threads[0].max_us, 53381.0);
    }

    #[test]
    fn old_layout_padded_to_eight_is_microseconds() {
        let (_, c) = parse(
            "T: 0 ( 2718) P:90 I:    1000 C:   10000 Min:      14 Act:      47 Avg:      52 Max:     170\nT: 1 ( 2719) P:89 I:    1500 C:    6667 Min:      15 Act:      45 Avg:      46 Max:     132\n",
        )
        .unwrap();
        assert_eq!(c.printed_unit, "us");
        assert_eq!(c.threads[0].max_us, 170.0);
    }

    #[test]
    fn nanoseconds_by_width() {
        let (_, c) = parse(
            "T: 0 ( 1914) P:99 I:1000 C:  10000 Min:   1593 Act:    2286 Avg:    2376 Max:   12045",
        )
        .unwrap();
        assert_eq!(c.printed_unit, "ns");
        assert_eq!(c.threads[0].max_us, 12.045);
        assert_eq!(c.threads[0].original.as_ref().unwrap()["max"], 12045);
    }

    #[test]
    fn no_break_spaces_from_quoted_printable() {
        let (_, c) = parse("T: 1 ( 6211) P:99 I:1500 C: 639971 Min:\u{a0} \u{a0} 1 Act:\u{a0}  7 Avg:\u{a0} 12 Max:\u{a0} \u{a0} 66696").unwrap();
        assert_eq!(
            (c.threads[0].tid, c.threads[0].max_us),
            (Some(6211), 66696.0)
        );
    }

    #[test]
    fn old_layouts() {
        let (_, c) = parse("T: 0 (1234) P:80 I:10000 C:1000 Min:5 Act:7 Avg:8 Max:30").unwrap();
        assert_eq!(c.threads[0].tid, Some(1234));
        assert_eq!(c.threads[0].cycles, Some(1000));
        let (_, c) =
            parse("T: 0 ( 1234) P:80 I:1000 C:  1000 Min:  5 Act:  7 Avg:  8 Max:  30").unwrap();
        assert_eq!(c.threads[0].avg_us, 8.0);
    }

    #[test]
    fn wrapped_line() {
        let (n, c) = parse("T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 Act: 6 Avg: 3\nMax: 53381\nT: 1 ( 4542) P:99 I:1500 C: 515381 Min: 1 Act: 7 Avg: 3 Max: 60119").unwrap();
        assert_eq!(n, 3);
        assert_eq!(c.threads[0].max_us, 53381.0);
        assert_eq!(c.threads.len(), 2);
    }

    #[test]
    fn malformed_value_has_line_and_column() {
        let e = parse("T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 Act: 6 Avg: 3 Max: 53381\nT: 1 ( 4542) P:99 I:1500 C: 5x5381 Min: 1 Act: 7 Avg: 3 Max: 60119").unwrap_err();
        assert_eq!((e.line, e.column), (2, 29));
        assert_eq!(e.found, "5x5381");
        assert_eq!(e.kind, crate::ErrorKind::Invalid);
    }

    #[test]
    fn missing_max_has_column_at_end() {
        let e = parse("T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 Act: 6 Avg: 3").unwrap_err();
        assert_eq!((e.line, e.column), (1, 56));
    }

    #[test]
    fn stray_word_is_an_error() {
        let e = parse("T: 0 ( 4541) P:99 I:1000 C: 773124 Min: 1 oops Avg: 3 Max: 4").unwrap_err();
        assert_eq!((e.line, e.column), (1, 43));
    }

    #[test]
    fn policy_line_and_escapes() {
        let lines =
            crate::lines::split("policy: fifo: loadavg: 0.46 0.40 0.35 1/385 5487\n\nprose");
        assert!(recognize(&lines, 0).is_none());
        let (n, c) = parse("policy: fifo: loadavg: 0.46 0.40 0.35 1/385 5487\n\u{1b}[2AT: 0 ( 4541) P:99 I:1000 C: 1000 Min: 1 Act: 6 Avg: 3 Max: 9").unwrap();
        assert_eq!(n, 2);
        assert_eq!(c.threads[0].policy.as_deref(), Some("fifo"));
    }

    #[test]
    fn footers_below_a_blank_line_or_a_cut_are_the_rows_footers() {
        let footers = "# Total: 000000014\n# Min Latencies: 00014\n# Avg Latencies: 00016\n# Max Latencies: 00076\n# Histogram Overflows: 00000\n";
        let gap = format!("# Histogram\n000014 000004\n000016 000009\n000076 000001\n\n{footers}");
        let (n, c) = parse(&gap).unwrap();
        assert_eq!(n, 10);
        let h = c.histogram.unwrap();
        assert_eq!(h.per_thread[0].max_us, Some(76.0));
        assert_eq!(h.per_thread[0].total, Some(14));
        let cut = format!("# Histogram\nMore histogram entries ...\n{footers}");
        let (n, c) = parse(&cut).unwrap();
        assert_eq!(n, 7);
        assert_eq!(c.histogram.unwrap().per_thread[0].min_us, Some(14.0));
        // Anything else below the blank line is not these rows' footers.
        let (n, _) = parse("# Histogram\n000014 000004\n\nT: 0 ( 1) P:80 I:1000 C:     10 Min:      1 Act:    1 Avg:    1 Max:       1\n").unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn histogram_then_summary_is_one_block() {
        let text = "# Histogram\n000000 000000\t000000\n000001 000010\t000003\n# Total: 000000010 000000003\n# Min Latencies: 00001 00001\n# Avg Latencies: 00001 00001\n# Max Latencies: 00001 00001\n# Histogram Overflows: 00000 00000\n# Histogram Overflow at cycle number:\n# Thread 0:\n# Thread 1:\nT: 0 ( 100) P:80 I:1000 C:     10 Min:      1 Act:    1 Avg:    1 Max:       1\nT: 1 ( 101) P:80 I:1000 C:      3 Min:      1 Act:    1 Avg:    1 Max:       1\n";
        let (n, c) = parse(text).unwrap();
        assert_eq!(n, 13);
        assert_eq!(c.threads.len(), 2);
        let h = c.histogram.unwrap();
        assert_eq!(h.per_thread[0].buckets, vec![(1.0, 10)]);
        assert_eq!(h.per_thread[1].total, Some(3));
    }
}
