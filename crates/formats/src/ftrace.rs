//! ftrace latency-tracer reports: `irqsoff`, `preemptoff`, `preemptirqsoff`,
//! `wakeup`, `wakeup_rt`, `wakeup_dl` (the `cat trace` output of a latency
//! tracer, `latency-format` layout).
//!
//! Owns the header (tracer, kernel, `latency: N us, #x/y, CPU#n | (M:model
//! ... #P:n)`, task line, `started at` / `ended at`), the flag legend (6, 7
//! or 8 columns counting the CPU column, detected from the legend when
//! present, else from the event lines), event lines with their delay markers
//! (`+ ! # * @ $`), sched wakeup/switch lines, `<stack trace>` blocks and
//! function-trace lines (`func+0x0/0x50 <-caller+0x20/0x40`). The culprit
//! rule lives in [`crate::culprit`].
//!
//! One line-at-a-time machine, [`Report`], reads a report: [`recognize`]
//! feeds it the lines of a scan window, [`crate::parse_reader`] feeds it a
//! long report line by line as read ([`Report::feed_raw`], which reduces
//! the common function-trace line to its time and function without
//! decoding it). What a block keeps is bounded whatever the trace's length:
//! the header, the last 64 stacks, the culprit, the event count, the first
//! [`HEAD_EVENTS`] events, the [`TOP_GAPS`] longest gaps with a window of
//! [`GAP_WINDOW`] events around each, and per-function counts and self
//! time ([`TOP_FUNCTIONS`] rows and one for the rest). The raw text stays
//! with the caller for anyone who wants every event. Tolerates mail damage:
//! indentation, trailing spaces, wrapped header lines, `<-caller` wrapped
//! onto its own line, `[...]` elisions.
//!
//! Format reference: Documentation/trace/ftrace.rst, "Latency trace format".

use std::collections::VecDeque;

use crate::MAX_LINE_LEN;
use crate::culprit::{self, GapCandidate};
use crate::document::{
    BlockBody, FtraceLatency, FunctionOther, FunctionTotal, TraceEvent, TraceGap, TraceTask,
};
use crate::error::ParseError;
use crate::lines::{self, Line};
use crate::stream::{Newlines, strip_cr};

const FORMAT: &str = "ftrace";

/// Tracers whose reports this module reads.
pub const LATENCY_TRACERS: [&str; 6] = [
    "irqsoff",
    "preemptoff",
    "preemptirqsoff",
    "wakeup",
    "wakeup_rt",
    "wakeup_dl",
];

/// Stacks kept: with `options/stacktrace` every event carries one, and
/// only the last one matters for the culprit.
const MAX_STACKS: usize = 64;
/// Frames kept per stack (kernel stacks are far shorter).
const MAX_FRAMES: usize = 256;
/// Events kept in `events`, the first ones of the report (all of them in a
/// report this short).
pub const HEAD_EVENTS: usize = 256;
/// Longest gaps kept in `gaps`.
pub const TOP_GAPS: usize = 16;
/// Events in the window of a gap: half up to and including the event the
/// gap follows, half from the event that ends it.
pub const GAP_WINDOW: usize = 32;
/// Rows of `functions`; the rest is summed in `functions_other`.
pub const TOP_FUNCTIONS: usize = 256;
/// Distinct function names counted one by one; events of further names are
/// only summed (a kernel has some 50 000 traceable functions, a trace of a
/// reclaim path touches a few hundred).
pub const MAX_TRACKED_FUNCTIONS: usize = 16384;

/// Recognise a latency report starting at `lines[start]` (its `# tracer:`
/// line or its `# <tracer> latency trace` line).
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let mut acc = Report::start(lines.get(start)?)?;
    let mut consumed = 0;
    let mut k = 0;
    while let Some(line) = lines.get(start + k) {
        match acc.feed_line(line) {
            // An empty line the report took (above its legend or its
            // events) is part of it only when a line after it is.
            Ok(true) if line.text.trim().is_empty() => {}
            Ok(true) => consumed = k + 1,
            Ok(false) => match elided_gap(lines, start + k, line.quote) {
                // `[ etc ]` between blank lines, and the trace goes on: no
                // gap is measured across it.
                Some((elision, next)) => {
                    if let Some(l) = lines.get(elision)
                        && let Err(e) = acc.feed_line(l)
                    {
                        return Some(Err(e));
                    }
                    k = next - start;
                    continue;
                }
                None => match interrupted_gap(lines, start + k, acc.quote) {
                    // The replier's comment between quoted event lines: the
                    // trace goes on below it, with events left out.
                    Some(next) => {
                        let elision = Line {
                            no: line.no,
                            text: "[...]",
                            quote: acc.quote,
                        };
                        if let Err(e) = acc.feed_line(&elision) {
                            return Some(Err(e));
                        }
                        k = next - start;
                        continue;
                    }
                    None => break,
                },
            },
            Err(e) => return Some(Err(e)),
        }
        k += 1;
    }
    Some(acc.finish().map(|b| (consumed.max(1), b)))
}

/// A report that a poster cut with an elision line set off by blank lines
/// (`>>>>` / `>>>> [ etc ]` / `>>>>` / more events): when the line at `at`
/// is blank and such an elision follows, the index of the elision line and
/// of the event after it.
fn elided_gap(lines: &[Line<'_>], at: usize, quote: u32) -> Option<(usize, usize)> {
    let same = |i: usize| lines.get(i).filter(|l| l.quote == quote);
    let blank = |i: usize| same(i).is_some_and(|l| l.text.trim().is_empty());
    if !blank(at) {
        return None;
    }
    let mut i = at;
    while blank(i) {
        i += 1;
    }
    let elision = i;
    if !crate::lines::is_elision(same(elision)?.text) {
        return None;
    }
    i += 1;
    while blank(i) {
        i += 1;
    }
    parse_event(&ascii_spaces(same(i)?.text)).map(|_| (elision, i))
}

/// Lines a poster's bracketed comment among the events may go on for.
const MAX_NOTE_LINES: u8 = 5;

/// Lines a replier's comment inside a quoted report may take.
const MAX_INTERRUPTION: usize = 40;

/// A quoted report (`quote` > 0) that a replier cut with a comment of their
/// own: from `at` on, blank lines, short notes of the poster at the
/// report's level (`8182 x the above two line`) and lines quoted less
/// deeply than the report (the reply), then event lines at the report's
/// level again. The index of the first event after the comment, when the
/// comment holds reply lines; a note alone is not enough.
fn interrupted_gap(lines: &[Line<'_>], at: usize, quote: u32) -> Option<usize> {
    if quote == 0 {
        return None;
    }
    let mut replied = false;
    for (i, l) in lines.iter().enumerate().skip(at).take(MAX_INTERRUPTION) {
        let t = l.text.trim();
        if l.quote == quote && !t.is_empty() {
            if parse_event(&ascii_spaces(l.text)).is_some() {
                return replied.then_some(i);
            }
            // A note of the poster among the events: words, no `#` header.
            if t.starts_with('#') || t.split_whitespace().count() > 8 {
                return None;
            }
            continue;
        }
        if l.quote > quote {
            return None;
        }
        replied |= l.quote < quote && !t.is_empty();
    }
    None
}

/// A latency report read one line at a time, with bounded state: the
/// streaming accumulator behind [`recognize`] and [`crate::parse_reader`].
pub struct Report {
    p: Parser,
    quote: u32,
    /// Columns of the time field of the last fast-read line.
    cols: FastCols,
}

impl Report {
    /// A report opened by `first` (its `# tracer:` or `# <tracer> latency
    /// trace` line, not fed yet), or `None` when it opens none.
    pub fn start(first: &Line<'_>) -> Option<Self> {
        if !is_start(first.text) {
            return None;
        }
        Some(Report {
            p: Parser::new(first.no),
            quote: first.quote,
            cols: FastCols::default(),
        })
    }

    /// Feed one line. `Ok(true)` when it belongs to the report, `Ok(false)`
    /// when the report ended before it.
    pub fn feed_line(&mut self, line: &Line<'_>) -> Result<bool, ParseError> {
        let text = line.text.trim_end();
        if line.quote != self.quote
            && !is_continuation(text)
            && !(line.quote < self.quote && self.p.latency_open && is_latency_tail(text))
        {
            return Ok(false);
        }
        Ok(self.p.feed(line.no, text)? == Step::Consumed)
    }

    /// [`Self::feed_line`] on a line as read (quote markers included): the
    /// common function-trace line is reduced to its time and function
    /// without decoding.
    #[inline]
    pub fn feed_raw(&mut self, no: u64, bytes: &[u8]) -> Result<bool, ParseError> {
        if self.quote == 0
            && self.p.events_seen > 0
            && let Some((time, text_at)) = fast_event_time(bytes, &mut self.cols)
        {
            self.fast_event(no, bytes, time, text_at, None);
            return Ok(true);
        }
        let raw = String::from_utf8_lossy(bytes);
        let (quote, text) = lines::quote_and_text(&raw);
        self.feed_line(&Line { no, text, quote })
    }

    /// The event of a line [`fast_event_time`] read; `at` is where the
    /// line starts in the buffer [`Self::run`] reads it from, `None` for a
    /// line fed on its own.
    #[inline(always)]
    fn fast_event(
        &mut self,
        no: u64,
        bytes: &[u8],
        time: f64,
        text_at: usize,
        at: Option<(&[u8], usize)>,
    ) {
        let text = bytes.get(text_at..).unwrap_or_default();
        let (func, site) = match self.p.sites.find(text) {
            Some(row) => (Some(Name::Row(row)), None),
            None => match function_site(text) {
                Some((name, key)) => (Some(Name::Unchecked(name)), key),
                None => (None, None),
            },
        };
        self.p.prev_event_len = Some(trim_end_len(bytes));
        self.p.saw_body = true;
        self.p.in_stack = false;
        self.p.count_event(no, time, bytes, func, None, at);
        if let Some(key) = site
            && let Some(row) = self.p.prev_func
        {
            self.p.sites.insert(text, key, row);
        }
    }

    /// [`Self::feed_raw`] on the lines at the start of `buf` (numbered from
    /// `no + 1`, each ended by `\n`) while they take the fast path, in one
    /// loop: how many lines and bytes were taken. The line that stops it
    /// is left to [`Self::feed_raw`], which reads it as if this had not
    /// looked at it.
    pub(crate) fn run(&mut self, no: u64, buf: &[u8], newlines: &Newlines) -> (u64, usize) {
        if self.quote != 0 || self.p.events_seen == 0 {
            return (0, 0);
        }
        let mut n = 0;
        let mut pos = 0;
        while let Some(k) = newlines.find(&buf[pos..]) {
            let line = strip_cr(&buf[pos..pos + k]);
            if line.len() > MAX_LINE_LEN {
                break;
            }
            let Some((time, text_at)) = fast_event_time(line, &mut self.cols) else {
                break;
            };
            n += 1;
            self.fast_event(no + n, line, time, text_at, Some((buf, pos)));
            pos += k + 1;
        }
        // The lines the last events are kept as leave the buffer here.
        self.p.flush_recent(buf);
        (n, pos)
    }

    /// The report's block body.
    pub fn finish(self) -> Result<BlockBody, ParseError> {
        self.p.finish().map(BlockBody::FtraceLatency)
    }
}

#[inline(always)]
fn trim_end_len(b: &[u8]) -> usize {
    b.iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |p| p + 1)
}

/// The function of a function-trace event text (`func+0x0/0x50
/// <-caller+0x20/0x40`), offsets stripped; the byte form of
/// [`split_function`], for the fast path.
///
/// This runs on every event of a function trace: the end of the name (the
/// first `+` or whitespace) is found eight bytes at a time, then the name's
/// bytes are checked against a table.
#[inline]
fn function_of(text: &[u8]) -> Option<&[u8]> {
    function_span(text).filter(|n| is_ident(n))
}

/// [`function_of`] but for the check of the name's own bytes
/// ([`is_ident`]), which the fast path leaves to [`FunctionTable::count`]
/// (a name found there was checked when it was added).
#[inline(always)]
fn function_span(text: &[u8]) -> Option<&[u8]> {
    function_site(text).map(|(name, _)| name)
}

/// [`function_span`] and how many bytes of `text` decided it: through
/// the `<-` it found, or `None` when it read to the end. Any text with
/// those bytes has the same function ([`SiteCache`]).
#[inline(always)]
fn function_site(text: &[u8]) -> Option<(&[u8], Option<usize>)> {
    let n = text.len();
    let mut i = 0;
    while i < n && text[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    let end = start + name_end(text.get(start..)?);
    let name = &text[start..end];
    if name.is_empty() {
        return None;
    }
    let mut i = end;
    if i < n && text[i] == b'+' {
        // `+0x0/0x50`: the offset; anything else makes the word no name.
        if !text[i..].starts_with(b"+0x") {
            return None;
        }
        i += 3;
        i += whitespace_at(&text[i..]);
    }
    // Here `i` is at whitespace or the end.
    while i < n && text[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == n {
        Some((name, None))
    } else {
        text[i..].starts_with(b"<-").then_some((name, Some(i + 2)))
    }
}

/// Bytes of a function name: ASCII letters, digits, `_` and `.`.
const IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
        c += 1;
    }
    t
};

/// A non-empty name of [`IDENT`] bytes that starts with a letter or `_`.
#[inline]
fn is_ident(name: &[u8]) -> bool {
    let Some(&first) = name.first() else {
        return false;
    };
    // No early exit: names are short and the loop stays branch-free.
    let all = name.iter().fold(true, |ok, &b| ok & IDENT[b as usize]);
    all && (first.is_ascii_alphabetic() || first == b'_')
}

/// Position of the first `+` or ASCII whitespace in `b` (its length when
/// none): where a function name can end. A byte below `!` that is not
/// whitespace also stops the search; [`is_ident`] then rejects the name.
///
/// The first 32 bytes (a name is rarely longer) are tested as four words
/// at once and the first hit picked without a branch per word: names vary
/// in length from event to event, and an early exit per word was a branch
/// the processor guessed wrong.
#[inline(always)]
fn name_end(b: &[u8]) -> usize {
    if b.len() >= 32 {
        let at = |k: usize| (stop_mask::<true>(word_at(b, k)).trailing_zeros() / 8) as usize;
        let (t0, t1, t2, t3) = (at(0), at(8), at(16), at(24));
        return if t0 < 8 {
            t0
        } else if t1 < 8 {
            8 + t1
        } else if t2 < 8 {
            16 + t2
        } else if t3 < 8 {
            24 + t3
        } else {
            32 + stop_at::<true>(&b[32..])
        };
    }
    stop_at::<true>(b)
}

/// Position of the first ASCII whitespace byte in `b` (its length when
/// none), eight bytes at a time.
#[inline(always)]
fn whitespace_at(b: &[u8]) -> usize {
    let mut i = 0;
    loop {
        // The first byte below `!`: whitespace, or a control byte that is
        // not and is stepped over.
        i += stop_at::<false>(&b[i..]);
        if i >= b.len() || b[i].is_ascii_whitespace() {
            return i;
        }
        i += 1;
    }
}

/// Position of the first byte below `!` (or `+` when `PLUS`) in `b`, its
/// length when none.
#[inline(always)]
fn stop_at<const PLUS: bool>(b: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= b.len() {
        let m = stop_mask::<PLUS>(word_at(b, i));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&c| c <= b' ' || (PLUS && c == b'+'))
        .unwrap_or(b.len() - i)
}

/// The top bit of the lowest byte of `x` below `!` (or equal to `+` when
/// `PLUS`), and maybe of higher ones: exact for the lowest flagged byte,
/// which is all that is used.
#[inline(always)]
fn stop_mask<const PLUS: bool>(x: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const PLUS_W: u64 = LO * b'+' as u64;
    let ctl = x.wrapping_sub(LO * 0x21) & !x & HI;
    if PLUS {
        let p = x ^ PLUS_W;
        ctl | (p.wrapping_sub(LO) & !p & HI)
    } else {
        ctl
    }
}

/// The time of a plain event line (`  comm-pid  5d..1. 77765us : text`)
/// when it has the exact shape the kernel prints, `None` for anything else
/// (which then goes through the full parser). `<stack trace>` lines are
/// left to the full parser because they open a stack.
///
/// The kernel pads comm, pid and CPU to fixed widths, so the time field
/// starts at the same column on every line of a report: `cols.time`
/// remembers it and the columns before it are only scanned when the
/// shortcut does not match. It also pads the time to a fixed width, right
/// aligned, so its `us` sits at one column too (`cols.us`), and a time of
/// at most eight digits there is read with word operations
/// ([`padded_time`]).
#[inline(always)]
fn fast_event_time(b: &[u8], cols: &mut FastCols) -> Option<(f64, usize)> {
    if time_column_fits(b, cols.time)
        && let Some(t) = padded_time(b, cols)
    {
        return Some(t);
    }
    reread_event_time(b, cols)
}

/// Whether an event line's time field can start at column `c`: a space
/// before it after the flags, and not a comment or a quoted line.
#[inline(always)]
fn time_column_fits(b: &[u8], c: usize) -> bool {
    c >= 3
        && b.get(c - 1) == Some(&b' ')
        && b.get(c - 2).is_some_and(|x| *x != b' ')
        && !matches!(b.first(), Some(b'#' | b'>'))
}

/// [`fast_event_time`] when the field is not where the last line had it,
/// or not eight bytes of spaces and digits: out of line, to keep the fast
/// loop small.
#[inline(never)]
fn reread_event_time(b: &[u8], cols: &mut FastCols) -> Option<(f64, usize)> {
    let c = cols.time;
    if time_column_fits(b, c)
        && let Some(t) = time_field(b, c)
    {
        cols.set_us(t.1 - 4);
        return Some(t);
    }
    let col = event_time_col(b)?;
    let t = time_field(b, col)?;
    cols.time = col;
    cols.set_us(t.1 - 4);
    Some(t)
}

/// Where the fast path expects the time field of the next event line:
/// the column it starts at and the column of its `us`; and the last
/// field [`padded_time`] read there, as a word, with its value (several
/// events often share a microsecond).
#[derive(Debug, Clone, Copy, Default)]
struct FastCols {
    time: usize,
    us: usize,
    /// `word` and `value` are for these `time` and `us`.
    word_ok: bool,
    word: u64,
    value: f64,
}

impl FastCols {
    fn set_us(&mut self, us: usize) {
        self.us = us;
        self.word_ok = false;
    }
}

/// `us` and the delay mark after an event's time (` `, `+`, `!`, `#`,
/// `*`, `@`, `$`), then `:`.
#[inline(always)]
fn is_us_mark(b: &[u8]) -> bool {
    // `:` before the function; the 2004 tracer's `>` before a system
    // call's entry (`2419us > sys_gettimeofday (00000000 ...)`).
    matches!(
        b,
        [
            b'u',
            b's',
            b' ' | b'+' | b'!' | b'#' | b'*' | b'@' | b'$',
            b':' | b'>',
        ]
    )
}

/// [`time_field`] for the common case, without a loop: the field from
/// `col` to `us` is at most eight bytes of spaces then digits (an integer
/// time), `us` starts `us<marker>:`. `None` when anything differs (the
/// caller then tries [`time_field`]); when `Some`, the same answer as
/// [`time_field`].
#[inline(always)]
fn padded_time(b: &[u8], cols: &mut FastCols) -> Option<(f64, usize)> {
    let (col, us) = (cols.time, cols.us);
    let w = us.checked_sub(col)?;
    if w == 0 || w > 8 || us < 8 {
        return None;
    }
    if !is_us_mark(b.get(us..us + 4)?) {
        return None;
    }
    // The eight bytes before `us`, the last digit in the top byte.
    let x = word_at(b, us - 8);
    let time = if cols.word_ok && x == cols.word {
        cols.value
    } else {
        let v = padded_value(x, w)?;
        cols.word = x;
        cols.value = v;
        cols.word_ok = true;
        v
    };
    let text = us + 4;
    let mut j = text;
    while j < b.len() && b[j] == b' ' {
        j += 1;
    }
    (b.get(j) != Some(&b'<')).then_some((time, text))
}

/// The value of the time field in the top `w` bytes of `x` (1 to 8) when
/// they are spaces then at least one digit.
#[inline(always)]
fn padded_value(x: u64, w: usize) -> Option<f64> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = LO * 0x80;
    // Per byte, exactly (setting each top bit first keeps borrows from
    // crossing bytes): the top bit of each byte below `n`.
    let below = |v: u64, n: u64| !((v | HI).wrapping_sub(n * LO) | v) & HI;
    let vals = x ^ (LO * u64::from(b'0'));
    let digits = below(vals, 10);
    let spaces = below(x ^ (LO * u64::from(b' ')), 1);
    let field = HI & (u64::MAX << (8 * (8 - w)));
    let d = digits & field;
    if d & (1 << 63) == 0 {
        return None;
    }
    // The digits run from the lowest one to the top byte; spaces before.
    let run = u64::MAX << (d.trailing_zeros() & !7);
    if d != HI & run || spaces & field != field & !run {
        return None;
    }
    // Eight digit values, most significant first in memory: pairs, then
    // fours, then all eight (leading non-digits are zero).
    let mut v = vals & run;
    v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    v = (v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32;
    Some(v as f64)
}

/// Column after `comm-pid CPUflags ` of an event line, checking their shape.
fn event_time_col(b: &[u8]) -> Option<usize> {
    let n = b.len();
    let mut i = 0;
    while i < n && b[i] == b' ' {
        i += 1;
    }
    let comm_start = i;
    while i < n && b[i] != b' ' {
        i += 1;
    }
    // comm-pid: ends in `-<digits>`.
    let tok = b.get(comm_start..i)?;
    let digits = tok.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || tok.len() <= digits || tok[tok.len() - digits - 1] != b'-' {
        return None;
    }
    while i < n && b[i] == b' ' {
        i += 1;
    }
    if !b.get(i)?.is_ascii_digit() {
        return None;
    }
    let mut flags = false;
    while i < n && b[i] != b' ' {
        flags |= !b[i].is_ascii_digit();
        i += 1;
    }
    if !flags || i >= n {
        return None;
    }
    Some(i + 1)
}

/// A return entry of the 2004 latency tracer (v1.1.x): `latencyt-14143
/// 0d...   64us!< (0)   [01]`, the time's mark followed by `<` and the
/// returned value in parentheses.
fn is_return_entry(text: &str) -> bool {
    let b = text.as_bytes();
    let Some(col) = event_time_col(b) else {
        return false;
    };
    let rest = text.get(col..).unwrap_or("").trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && rest[digits..]
            .strip_prefix("us")
            .map(|r| r.trim_start_matches([' ', '+', '!', '#', '*', '@', '$']))
            .is_some_and(|r| r.starts_with("< (") && r.contains(')'))
}

/// ` 77765us : text` starting at `col` (spaces, digits, optional fraction,
/// `us`, marker or space, `:`), text not a `<stack trace>`: the time and
/// where the text begins.
#[inline]
fn time_field(b: &[u8], col: usize) -> Option<(f64, usize)> {
    let n = b.len();
    let mut i = col;
    while i < n && b[i] == b' ' {
        i += 1;
    }
    let ds = i;
    // Plain multiply-adds (no overflow below 20 digits); a longer number
    // is read again with saturation.
    let mut int: u64 = 0;
    while i < n && b[i].is_ascii_digit() {
        int = int.wrapping_mul(10).wrapping_add(u64::from(b[i] - b'0'));
        i += 1;
    }
    if i == ds {
        return None;
    }
    if i - ds > 19 {
        int = b[ds..i].iter().fold(0u64, |v, &c| {
            v.saturating_mul(10).saturating_add(u64::from(c - b'0'))
        });
    }
    let mut time = int as f64;
    if i < n && b[i] == b'.' {
        i += 1;
        let mut scale = 0.1;
        while i < n && b[i].is_ascii_digit() {
            time += f64::from(b[i] - b'0') * scale;
            scale /= 10.0;
            i += 1;
        }
    }
    if !is_us_mark(b.get(i..i + 4)?) {
        return None;
    }
    let text = i + 4;
    let mut j = text;
    while j < n && b[j] == b' ' {
        j += 1;
    }
    (b.get(j) != Some(&b'<')).then_some((time, text))
}

/// Replace non-ASCII whitespace (the no-break spaces a quoted-printable
/// mail decodes to) by plain spaces, so column splitting sees them, and
/// the `us` of a time a charset conversion turned into `µs` or, read as
/// EUC-KR, into `탎` (`0탎+<`, `latency: 2421 탎`) by `us`: the kernel
/// prints only `us`.
pub(crate) fn ascii_spaces(text: &str) -> std::borrow::Cow<'_, str> {
    const MANGLED_US: [&str; 2] = ["\u{d0ce}", "\u{b5}s"];
    if text.is_ascii()
        || (!text.chars().any(|c| c.is_whitespace() && !c.is_ascii())
            && !MANGLED_US.iter().any(|m| text.contains(m)))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    for m in MANGLED_US {
        if out.contains(m) {
            out = out.replace(m, "us");
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A report line copied into Markdown with its punctuation escaped
/// (`do\\_work\\_pending \\<-do\\_irq`) or a line set in bold (`**...**`):
/// the line as the kernel printed it, or `None` when it has neither. The
/// kernel prints no backslash before these characters (the legend's `\\`
/// is followed by a space), so unescaping them loses nothing.
fn markdown_unescaped(text: &str) -> Option<String> {
    const ESCAPED: &[char] = &['_', '*', '<', '>', '[', ']', '#', '$', '!'];
    let escaped = text
        .as_bytes()
        .windows(2)
        .any(|w| w[0] == b'\\' && ESCAPED.contains(&char::from(w[1])));
    let bold = text.contains("**");
    if !escaped && !bold {
        return None;
    }
    let mut t = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| ESCAPED.contains(n)) {
            continue;
        }
        t.push(c);
    }
    if bold {
        let lead = t.len() - t.trim_start().len();
        let body = t[lead..].trim_end();
        let stripped = body.strip_prefix("**").unwrap_or(body);
        let stripped = stripped.strip_suffix("**").unwrap_or(stripped);
        if stripped.len() != body.len() {
            t = format!("{}{}", &t[..lead], stripped);
        }
    }
    Some(t)
}

/// Whether `text` opens a latency report: `# tracer: <latency tracer>` or
/// `# <latency tracer> latency trace v1.1.5 on <kernel>`.
pub fn is_start(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('#') else {
        return bare_header(text).is_some() || bare_latency(text);
    };
    let rest = rest.trim_start();
    if rest
        .strip_prefix("=>")
        .is_some_and(|r| r.trim_start().starts_with("started at:"))
    {
        // A report quoted from its `=> started at:` line on.
        return true;
    }
    if let Some(t) = rest.strip_prefix("tracer:") {
        return latency_tracer(t).is_some();
    }
    match rest.split_once(" latency trace") {
        Some((t, _)) => latency_tracer(t).is_some(),
        None => false,
    }
}

/// A header's `----` rule with the next header line glued after it (the
/// line break lost in a copy): that line's text, without its `#`.
fn glued_after_rule(h: &str) -> Option<&str> {
    let rest = h.trim_start_matches('-');
    (h.len() - rest.len() >= 8)
        .then(|| rest.strip_prefix('#'))
        .flatten()
        .map(str::trim)
        .filter(|r| !r.is_empty())
}

/// `preemption latency trace v1.1.5 on 2.6.13-...`: the header line of the
/// -rt patches' latency tracer (2005-2006, `/proc/latency_trace`), printed
/// without `#`: the tracer's name when `text` is one.
fn bare_header(text: &str) -> Option<String> {
    let (name, rest) = text.trim().split_once(" latency trace v")?;
    if !rest.starts_with(|c: char| c.is_ascii_digit()) || name.contains(' ') {
        return None;
    }
    if name.eq_ignore_ascii_case("preemption") {
        return Some(name.to_ascii_lowercase());
    }
    latency_tracer(name)
}

/// `latency: 621 us, entries: 28 (28)` (the voluntary-preempt tracer of
/// 2004) or `latency: 4183 us, #3676/3676, CPU#0 | ...` printed without `#`
/// and without the header line above it.
fn bare_latency(text: &str) -> bool {
    let Some(rest) = text.trim().strip_prefix("latency:") else {
        return false;
    };
    let Some((num, after)) = rest.trim_start().split_once(" us, ") else {
        return false;
    };
    !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit())
        && (after.starts_with("entries:") || (after.starts_with('#') && after.contains("CPU#")))
}

/// `00000001 0.014ms (+0.014ms): snd_es1371_dac1_rate (caller)`: a
/// function-trace line of the 2004 voluntary-preempt tracer (preempt count,
/// time, delta, function).
fn is_vp_trace_line(t: &str) -> bool {
    let mut w = t.split_whitespace();
    let (Some(count), Some(time), Some(delta)) = (w.next(), w.next(), w.next()) else {
        return false;
    };
    count.len() == 8
        && count.bytes().all(|b| b.is_ascii_hexdigit())
        && time
            .strip_suffix("ms")
            .is_some_and(|n| n.parse::<f64>().is_ok())
        && delta.starts_with("(+")
        && delta.ends_with("ms):")
}

/// The legend and column header lines of a report printed without `#`
/// (`_------=> CPU#`, `|||| /`, `cmd     pid ||||| time  |   caller`).
fn is_bare_legend(t: &str) -> bool {
    t.contains("=>") || t.contains("|||") || t.chars().all(|c| "|/\\_- ".contains(c))
}

/// `MacPrivateStat (SkPnmiGetStruct)`: an old event text whose caller is
/// in parentheses; as the newer `MacPrivateStat <-SkPnmiGetStruct`.
fn paren_caller(line: &str) -> Option<String> {
    let ev = parse_event(line)?;
    let (func, caller) = ev.text.split_once(' ')?;
    let caller = caller.strip_prefix('(')?.strip_suffix(')')?;
    let ident = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            && s.bytes().next().is_some_and(|b| !b.is_ascii_digit())
    };
    if !ident(func) || !ident(caller) {
        return None;
    }
    let at = (ev.text.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    Some(format!("{}{func} <-{caller}", line.get(..at)?))
}

/// The tracer's name when it is a latency tracer: one of
/// [`LATENCY_TRACERS`] in any capitalisation (lowercased), or a name that
/// custom trees give their variants (`preemptirqsoff_hist`,
/// `Wakeup_RT_lazy`), kept as printed.
pub fn latency_tracer(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    if LATENCY_TRACERS.contains(&lower.as_str()) {
        return Some(lower);
    }
    ["irqsoff", "preemptoff", "wakeup"]
        .iter()
        .any(|t| lower.contains(t))
        .then(|| name.to_string())
}

/// `HP:0`, `SP:0 HP:0`: the middle of a wrapped `# latency:` line.
fn is_field_fragment(t: &str) -> bool {
    let mut words = t.split_whitespace().peekable();
    words.peek().is_some()
        && words.all(|w| {
            let w = w.trim_end_matches(',');
            w.split_once(':').is_some_and(|(k, v)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase()) && !v.is_empty()
            })
        })
}

/// An event line at least this long may have been wrapped by a mailer.
const WRAPPED_LINE: usize = 40;

/// The short rest of a wrapped event line: a few words, no `#`, no event.
fn is_wrapped_fragment(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty()
        && t.len() <= 72
        && t.split_whitespace().count() <= 6
        && !t.starts_with(['#', '>', '[', '-', '='])
        && !t.ends_with([':', '.', ',', '?', '!'])
}

/// The rest of a wrapped `# latency:` line (`#P:2)`, `HP:0 #P:2)`), which
/// a replier's mailer may have re-wrapped with fewer quote markers than
/// the report has.
fn is_latency_tail(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("#P:") || (t.contains("#P:") && t.ends_with(')')) || is_field_fragment(t)
}

/// A line that belongs to the previous one after mail wrapping.
fn is_continuation(text: &str) -> bool {
    text.trim_start().starts_with("<-")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Consumed,
    End,
}

/// One parsed event line, borrowing from the input.
#[derive(Debug, Clone, Copy, PartialEq)]
struct EventRef<'a> {
    comm: &'a str,
    pid: u32,
    cpu: u32,
    flags: &'a str,
    time_us: f64,
    marker: &'a str,
    text: &'a str,
}

/// The last `cap` raw event lines with their line numbers, oldest
/// overwritten; slot buffers are reused so a long trace costs one copy per
/// event and no allocation.
struct Ring {
    slots: Vec<(u64, Vec<u8>)>,
    cap: usize,
    /// Index of the slot the next line goes to (the oldest once full).
    next: usize,
}

impl Ring {
    fn new(cap: usize) -> Self {
        Ring {
            slots: Vec::new(),
            cap,
            next: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, no: u64, raw: &[u8]) {
        if self.slots.len() < self.cap {
            self.slots.push((no, raw.to_vec()));
            self.next = self.slots.len() % self.cap;
            return;
        }
        if let Some(slot) = self.slots.get_mut(self.next) {
            slot.0 = no;
            slot.1.clear();
            slot.1.extend_from_slice(raw);
            // Not `%`: a division per event.
            self.next += 1;
            if self.next == self.cap {
                self.next = 0;
            }
        }
    }

    fn newest_index(&self) -> Option<usize> {
        if self.slots.is_empty() {
            None
        } else {
            Some((self.next + self.slots.len() - 1) % self.slots.len())
        }
    }

    fn newest(&self) -> Option<&(u64, Vec<u8>)> {
        self.slots.get(self.newest_index()?)
    }

    fn newest_mut(&mut self) -> Option<&mut (u64, Vec<u8>)> {
        let i = self.newest_index()?;
        self.slots.get_mut(i)
    }

    /// Copies of the lines, oldest first.
    fn snapshot(&self) -> Vec<(u64, Vec<u8>)> {
        let len = self.slots.len();
        let split = if len < self.cap {
            0
        } else {
            self.next.min(len)
        };
        let mut v = Vec::with_capacity(len);
        v.extend_from_slice(&self.slots[split..]);
        v.extend_from_slice(&self.slots[..split]);
        v
    }
}

/// The last lines of a run ([`Report::run`]) that `recent` is to hold,
/// by line number and place in the run's buffer: a copy per event was a
/// tenth of the fast loop's time, and all but the last few are dropped.
#[derive(Default)]
struct Pending {
    /// `(line number, start, length)`, a ring of [`Pending::CAP`].
    lines: [(u64, usize, usize); Pending::CAP],
    /// Index the next line goes to.
    next: usize,
    /// How many of `lines` are pending (at most [`Pending::CAP`]).
    len: usize,
}

impl Pending {
    /// As many as `recent` holds.
    const CAP: usize = GAP_WINDOW / 2;

    #[inline(always)]
    fn push(&mut self, no: u64, start: usize, len: usize) {
        self.lines[self.next] = (no, start, len);
        self.next = (self.next + 1) % Self::CAP;
        self.len = (self.len + 1).min(Self::CAP);
    }
}

/// One of the longest gaps while it is being collected: the raw lines of
/// the events around it, parsed only in `finish`.
struct GapWindow {
    gap_us: f64,
    /// 1-based ordinal and line of the event the gap follows.
    event: u64,
    line: u64,
    lines: Vec<(u64, Vec<u8>)>,
    /// Events still to collect after the gap.
    after_left: usize,
}

/// Per-function event counts and self time, keyed by the raw name.
struct FunctionTable {
    /// Open addressing over `rows`, a power of two in size, at most half
    /// full.
    slots: Vec<Slot>,
    rows: Vec<(Box<[u8]>, u64, f64)>,
    /// Events of functions beyond [`MAX_TRACKED_FUNCTIONS`]: count, time.
    untracked: (u64, f64),
}

/// A [`FunctionTable`] slot: the name's hash, length and three words of
/// it ([`NameKey`]) beside its row, so that a lookup reads the row's name
/// only for names longer than 24 bytes.
#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u32,
    /// `row + 1`; `0` for an empty slot.
    row: u32,
    len: usize,
    words: [u64; 3],
}

/// A function name for [`FunctionTable::count`], its bytes checked with
/// [`is_ident`] or not yet, or its row (or [`UNTRACKED`]) as a lookup
/// gave it before.
#[derive(Clone, Copy)]
enum Name<'a> {
    Checked(&'a [u8]),
    Unchecked(&'a [u8]),
    Row(u32),
}

/// Call sites (`func+0x0/0x50 <-`, the start of an event's text) seen
/// before, with the row of their function: an event whose text starts
/// with one is counted without finding its name ([`function_site`]) or
/// hashing it ([`FunctionTable::count`]), the two largest parts of the
/// fast loop. Direct mapped by a hash of the text's first 32 bytes (so
/// the callers of one function share no slot), the last site seen in a
/// slot kept; a site is exactly the bytes that decided its function, so
/// a text that starts with them has that function.
struct SiteCache {
    /// One unused slot until the first site is kept (a report read only
    /// by the full parser, as every short one is, keeps none), then
    /// `1 << SITE_SLOTS_LOG2`.
    slots: Vec<Site>,
    /// `slots.len() - 1`.
    mask: usize,
}

/// A [`SiteCache`] slot: the site's bytes as words, the bytes past its
/// end masked off.
#[derive(Clone, Copy, Default)]
struct Site {
    words: [u64; SITE_WORDS],
    mask: [u64; SITE_WORDS],
    /// Row of the function, or [`UNTRACKED`].
    row: u32,
    /// The slot holds a site.
    used: bool,
}

/// Bytes of text a site is looked up by: at most this many words; shorter
/// texts take the ordinary path.
const SITE_WORDS: usize = 6;
/// 8192 slots (850 kB): with 3000 call sites in random order, 2048 slots
/// missed often enough to be slower than no cache.
const SITE_SLOTS_LOG2: u32 = 13;

impl SiteCache {
    fn new() -> Self {
        SiteCache {
            slots: vec![Site::default()],
            mask: 0,
        }
    }

    #[inline(always)]
    fn slot_of(&self, w: &[u64; SITE_WORDS]) -> usize {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let h = (w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42) ^ w[3].rotate_left(11))
            .wrapping_mul(K);
        (h >> 40) as usize & self.mask
    }

    #[inline(always)]
    fn words(text: &[u8]) -> [u64; SITE_WORDS] {
        let mut w = [0u64; SITE_WORDS];
        for (k, x) in w.iter_mut().enumerate() {
            *x = word_at(text, 8 * k);
        }
        w
    }

    /// The row of the function of `text` when it starts with a site seen.
    #[inline(always)]
    fn find(&self, text: &[u8]) -> Option<u32> {
        if text.len() < 8 * SITE_WORDS {
            return None;
        }
        let w = Self::words(text);
        let sl = &self.slots[self.slot_of(&w)];
        let diff = w
            .iter()
            .zip(&sl.words)
            .zip(&sl.mask)
            .fold(0, |d, ((x, y), m)| d | ((x ^ y) & m));
        (sl.used && diff == 0).then_some(sl.row)
    }

    /// Remember that the first `len` bytes of `text` gave the function of
    /// `row`.
    #[cold]
    #[inline(never)]
    fn insert(&mut self, text: &[u8], len: usize, row: u32) {
        if text.len() < 8 * SITE_WORDS || len > 8 * SITE_WORDS {
            return;
        }
        let w = Self::words(text);
        let mut mask = [0u64; SITE_WORDS];
        for (k, m) in mask.iter_mut().enumerate() {
            let bytes = len.saturating_sub(8 * k).min(8);
            *m = if bytes == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * bytes)) - 1
            };
        }
        let mut words = w;
        for (x, m) in words.iter_mut().zip(&mask) {
            *x &= m;
        }
        if self.mask == 0 {
            self.slots = vec![Site::default(); 1 << SITE_SLOTS_LOG2];
            self.mask = self.slots.len() - 1;
        }
        let i = self.slot_of(&w);
        self.slots[i] = Site {
            words,
            mask,
            row,
            used: true,
        };
    }
}

/// Marks the untracked row in [`FunctionTable`] indices.
const UNTRACKED: u32 = u32::MAX;

/// What a lookup compares before the bytes: see [`Slot`].
struct NameKey {
    hash: u32,
    /// Bytes 0-7, 8-15 and the last eight (overlapping for names shorter
    /// than 24 bytes, so a name of 8-24 bytes is all in them; a shorter
    /// one is [`short_word`] thrice): fixed loads without branches on the
    /// length, which varies from event to event.
    words: [u64; 3],
}

impl NameKey {
    #[inline(always)]
    fn of(b: &[u8]) -> Self {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let n = b.len();
        let words = if n >= 8 {
            [word_at(b, 0), word_at(b, 8.min(n - 8)), word_at(b, n - 8)]
        } else {
            let w = short_word(b);
            [w, w, w]
        };
        // Words mixed by rotations, then one multiply: the default SipHash
        // was a third of the time of a function trace, a multiply per word
        // a chain the lookup waited on, and these keys are not chosen by
        // an adversary that gains anything (the table is bounded; a
        // collision costs a probe, never a wrong count).
        let mut h = (n as u64) ^ words[0] ^ words[1].rotate_left(21) ^ words[2].rotate_left(42);
        let mut i = 16;
        while i + 8 < n {
            h = h.rotate_left(7) ^ word_at(b, i);
            i += 8;
        }
        h = h.wrapping_mul(K);
        NameKey {
            hash: (h >> 32) as u32,
            words,
        }
    }
}

impl FunctionTable {
    fn new() -> Self {
        FunctionTable {
            slots: vec![Slot::default(); 256],
            rows: Vec::new(),
            untracked: (0, 0.0),
        }
    }

    /// Count an event of `name`: its row, or [`UNTRACKED`]; `None` when
    /// an unchecked name is not one ([`is_ident`]).
    #[inline(always)]
    fn count(&mut self, name: Name<'_>) -> Option<u32> {
        let (name, checked) = match name {
            Name::Checked(n) => (n, true),
            Name::Unchecked(n) => (n, false),
            Name::Row(r) => {
                match self.rows.get_mut(r as usize) {
                    Some(row) => row.1 += 1,
                    None => self.untracked.0 += 1,
                }
                return Some(r);
            }
        };
        let key = NameKey::of(name);
        let n = name.len();
        let mask = self.slots.len() - 1;
        let mut k = (key.hash as usize) & mask;
        loop {
            // By reference and word by word: a copy of the slot, or an
            // array compare, went through the stack and stalled each
            // lookup on a store that the load could not forward from.
            let sl = &self.slots[k];
            if sl.row == 0 {
                break;
            }
            let diff = (sl.words[0] ^ key.words[0])
                | (sl.words[1] ^ key.words[1])
                | (sl.words[2] ^ key.words[2]);
            if sl.hash == key.hash && sl.len == n && diff == 0 {
                let r = sl.row;
                if let Some(row) = self.rows.get_mut(r as usize - 1)
                    && (n <= 24 || same_bytes(&row.0, name))
                {
                    row.1 += 1;
                    return Some(r - 1);
                }
            }
            k = (k + 1) & mask;
        }
        if !checked && !is_ident(name) {
            return None;
        }
        if self.rows.len() >= MAX_TRACKED_FUNCTIONS {
            self.untracked.0 += 1;
            return Some(UNTRACKED);
        }
        let i = self.rows.len() as u32;
        self.rows.push((name.into(), 1, 0.0));
        self.slots[k] = Slot {
            hash: key.hash,
            row: i + 1,
            len: n,
            words: key.words,
        };
        if self.rows.len() * 2 > self.slots.len() {
            self.grow();
        }
        Some(i)
    }

    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for sl in self.slots.iter().filter(|s| s.row != 0) {
            let mut k = (sl.hash as usize) & mask;
            while slots[k].row != 0 {
                k = (k + 1) & mask;
            }
            slots[k] = *sl;
        }
        self.slots = slots;
    }

    #[inline]
    fn add_time(&mut self, i: u32, us: f64) {
        match self.rows.get_mut(i as usize) {
            Some(r) => r.2 += us,
            None => self.untracked.1 += us,
        }
    }

    /// The top [`TOP_FUNCTIONS`] by self time and the rest as one row.
    fn finish(mut self) -> (Vec<FunctionTotal>, Option<FunctionOther>) {
        self.rows
            .sort_by(|a, b| b.2.total_cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
        let rest = self.rows.split_off(self.rows.len().min(TOP_FUNCTIONS));
        let top = self
            .rows
            .into_iter()
            .map(|(n, count, t)| FunctionTotal {
                function: String::from_utf8_lossy(&n).into_owned(),
                count,
                self_us: round_us(t),
            })
            .collect();
        let (uc, ut) = self.untracked;
        let other = (!rest.is_empty() || uc > 0).then(|| FunctionOther {
            functions: rest.len() as u64,
            count: rest.iter().map(|r| r.1).sum::<u64>() + uc,
            self_us: round_us(rest.iter().map(|r| r.2).sum::<f64>() + ut),
            untracked_events: uc,
        });
        (top, other)
    }
}

/// Sums of microsecond gaps printed as integers or with a fraction: keep
/// them to the nanosecond so that float noise does not show.
fn round_us(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The eight bytes of `b` at `i` (which must have them) as a word: fixed
/// size loads, so no call to `memcpy` per event.
#[inline]
fn word_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// A slice of fewer than eight bytes as a word (first and last four, or
/// byte by byte below four): equal slices of one length give equal words
/// and different ones different words.
#[inline]
fn short_word(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | (u64::from(hi) << 32)
    } else {
        b.iter()
            .enumerate()
            .fold(0u64, |w, (k, &c)| w | (u64::from(c) << (8 * k)))
    }
}

/// `a == b` for short names, eight bytes at a time and inlined (a call
/// to `memcmp` per event cost more than the compare).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return short_word(a) == short_word(b);
    }
    let mut diff = word_at(a, n - 8) ^ word_at(b, n - 8);
    let mut i = 0;
    while i + 8 < n {
        diff |= word_at(a, i) ^ word_at(b, i);
        i += 8;
    }
    diff == 0
}

/// The line-at-a-time machine shared by every reader of a report: what it
/// keeps is bounded whatever the length of the trace (see the module doc).
struct Parser {
    out: FtraceLatency,
    start_line: u64,
    /// The last events, as printed: the "before" half of a gap's window.
    recent: Ring,
    /// The last events of a run of lines not copied into `recent` yet.
    pending: Pending,
    events_seen: u64,
    stacks: VecDeque<Vec<String>>,
    in_stack: bool,
    legend_cols: u32,
    legend_has_cpu: bool,
    saw_latency: bool,
    /// Lines left of a poster's bracketed comment among the events.
    note_lines: u8,
    /// The one empty line allowed between a shortened header and its events.
    short_header_gap: bool,
    saw_body: bool,
    latency_open: bool,
    /// The `latency trace ... on` line ended before the kernel version.
    kernel_open: bool,
    /// The header is printed without `#` (the -rt tracer of 2005-2006),
    /// and callers in parentheses.
    bare: bool,
    /// The last line was a 2004 trace line without its `(caller)`.
    vp_caller_open: bool,
    /// The report was quoted from its `=> started at:` line on.
    from_started: bool,
    prev_valid: bool,
    prev_time: f64,
    /// Function of the previous event (its self time is the next gap).
    prev_func: Option<u32>,
    best: Option<GapCandidate>,
    /// Length of the previous line when it was an event (a wrapped one is long).
    prev_event_len: Option<usize>,
    /// The longest gaps so far, longest first, at most [`TOP_GAPS`].
    gaps: Vec<GapWindow>,
    /// How many of `gaps` still collect events after the gap.
    open_windows: usize,
    functions: FunctionTable,
    /// Call sites of the fast path, with their function's row.
    sites: SiteCache,
}

impl Parser {
    fn new(start_line: u64) -> Self {
        Parser {
            out: FtraceLatency::default(),
            start_line,
            recent: Ring::new(GAP_WINDOW / 2),
            pending: Pending::default(),
            events_seen: 0,
            stacks: VecDeque::new(),
            in_stack: false,
            legend_cols: 0,
            legend_has_cpu: false,
            saw_latency: false,
            note_lines: 0,
            short_header_gap: false,
            saw_body: false,
            latency_open: false,
            kernel_open: false,
            bare: false,
            vp_caller_open: false,
            from_started: false,
            prev_valid: false,
            prev_time: 0.0,
            prev_func: None,
            best: None,
            prev_event_len: None,
            gaps: Vec::new(),
            open_windows: 0,
            functions: FunctionTable::new(),
            sites: SiteCache::new(),
        }
    }

    fn feed(&mut self, no: u64, text: &str) -> Result<Step, ParseError> {
        let text = &*ascii_spaces(text);
        let unmarked;
        let text = match markdown_unescaped(text) {
            Some(t) => {
                unmarked = t;
                unmarked.as_str()
            }
            None => text,
        };
        let rewritten;
        let text = match self.bare.then(|| paren_caller(text)).flatten() {
            Some(r) => {
                rewritten = r;
                rewritten.as_str()
            }
            None => text,
        };
        let t = text.trim_start();
        let after_event = self.prev_event_len.take();
        if t.is_empty() {
            // Without `#`, the header ends with an empty line above the legend.
            if self.bare && !self.saw_body && self.legend_cols == 0 && self.saw_latency {
                return Ok(Step::Consumed);
            }
            // A shortened header (`# tracer:`, `# latency:`, `# task:`, no
            // legend) set off from its events by one empty line.
            if !self.bare
                && !self.saw_body
                && self.legend_cols == 0
                && self.saw_latency
                && self.out.task.is_some()
                && !std::mem::replace(&mut self.short_header_gap, true)
            {
                return Ok(Step::Consumed);
            }
            return Ok(Step::End);
        }
        if !self.saw_body && !t.starts_with('#') {
            // The header of a report printed without `#`.
            if let Some(tracer) = bare_header(t) {
                if self.bare || self.saw_latency {
                    return Ok(Step::End);
                }
                self.bare = true;
                self.out.tracer = tracer;
                return self.header(no, text, t);
            }
            if !self.saw_latency && self.out.tracer.is_empty() && bare_latency(t) {
                // The -rt tracer of those years printed itself as
                // `preemption latency trace` when it printed a header.
                self.bare = true;
                self.out.tracer = "preemption".into();
            }
            let task = t.trim_start_matches('|').trim_start().starts_with("task:");
            let started = t.strip_prefix("=>").is_some_and(|r| {
                let r = r.trim_start();
                r.starts_with("started at:") || r.starts_with("ended at:")
            });
            if self.bare && (t.starts_with("latency:") || task || started || is_bare_legend(t)) {
                return self.header(no, text, t);
            }
            if self.bare
                && t.len() >= 4
                && t.ends_with('>')
                && t.trim_end_matches('>').chars().all(|c| c == '=')
            {
                // `=======>` above the 2004 tracer's function trace.
                return Ok(Step::Consumed);
            }
        }
        if self.bare && is_vp_trace_line(t) {
            // The 2004 tracer's trace lines are part of the report, but
            // print no task, CPU or flags: they are not read as events.
            self.saw_body = true;
            self.vp_caller_open = !t.ends_with(')');
            return Ok(Step::Consumed);
        }
        if std::mem::take(&mut self.vp_caller_open)
            && t.starts_with('(')
            && t.ends_with(')')
            && !t.contains(' ')
        {
            // Its `(caller)` wrapped onto a line of its own.
            return Ok(Step::Consumed);
        }
        if let Some(h) = t.strip_prefix('#') {
            return self.header(no, text, h.trim());
        }
        if self.latency_open {
            // `# latency: ... SP:0` wrapped, the rest (`HP:0 #P:512)`) here,
            // maybe over several lines.
            self.latency_open = false;
            if t.contains("#P:") || t.ends_with(')') {
                self.latency_fields(t);
                return Ok(Step::Consumed);
            }
            if is_field_fragment(t) {
                self.latency_fields(t);
                self.latency_open = true;
                return Ok(Step::Consumed);
            }
        }
        if std::mem::take(&mut self.kernel_open) && !t.contains(' ') && t.len() <= 128 {
            // `# wakeup_rt latency trace v1.1.5 on` / `6.5.0-rt6-...`.
            self.out.kernel = Some(t.trim_end().to_string());
            return Ok(Step::Consumed);
        }
        if !self.saw_body && t.len() >= 8 && t.trim_end().chars().all(|c| c == '-') {
            // The header's `# ------` rule, wrapped after its `# `.
            return Ok(Step::Consumed);
        }
        if let Some(frame) = t.strip_prefix("=>") {
            self.frame(frame);
            return Ok(Step::Consumed);
        }
        if self.note_lines > 0 {
            // Inside a poster's `[...]` comment that went over lines.
            self.note_lines = match t.trim_end().ends_with(']') {
                true => 0,
                false => self.note_lines - 1,
            };
            return Ok(Step::Consumed);
        }
        // Elided events, also said in the poster's words (`... process
        // network IRQ / soft IRQ ...`): no gap is measured across the hole.
        let said_elision = self.saw_body && (t.starts_with("...") || t.starts_with('\u{2026}'));
        if crate::lines::is_elision(t) || said_elision {
            self.prev_valid = false;
            self.in_stack = false;
            return Ok(Step::Consumed);
        }
        // A poster's comment in brackets between events, over a few lines
        // (`[I can argue - why did this come in here ...` / `... later]`).
        if self.saw_body && t.starts_with('[') && parse_event(text).is_none() {
            if !t.trim_end().ends_with(']') {
                self.note_lines = MAX_NOTE_LINES;
            }
            return Ok(Step::Consumed);
        }
        if let Some(c) = t.strip_prefix("<-") {
            self.wrapped_caller(c);
            return Ok(Step::Consumed);
        }
        if let Some(ev) = parse_event(text) {
            self.event(no, ev, text);
            return Ok(Step::Consumed);
        }
        if self.saw_body && is_return_entry(text) {
            // The 2004 tracer's return entries (`0d...   64us!< (0)
            // [01]`) are no function events: passed over.
            return Ok(Step::Consumed);
        }
        if is_graph_line(t) {
            self.saw_body = true;
            self.in_stack = false;
            return Ok(Step::Consumed);
        }
        if after_event.is_some_and(|n| n >= WRAPPED_LINE) && is_wrapped_fragment(t) {
            // A mailer wrapped the event line: `... 250:  ` / `0:R cyclictest`.
            self.continue_prev(" ", t.trim_end());
            // A line wrapped twice continues once more.
            self.prev_event_len = after_event;
            return Ok(Step::Consumed);
        }
        Ok(Step::End)
    }

    fn header(&mut self, no: u64, line: &str, h: &str) -> Result<Step, ParseError> {
        self.in_stack = false;
        if let Some(rest) = glued_after_rule(h) {
            // The rule and the `# latency:` line below it lost their line
            // break (`# ------...------# latency: 7038 us, ...`): the rule
            // is passed over, the rest read as its own header line.
            return self.header(no, line, rest);
        }
        if std::mem::take(&mut self.latency_open) && h.starts_with("P:") {
            // `# latency: ... HP:0` wrapped before its `#P:512)`.
            self.latency_fields(line.trim());
            return Ok(Step::Consumed);
        }
        if let Some(t) = h.strip_prefix("tracer:") {
            if self.saw_body {
                // A second report follows without a blank line.
                return Ok(Step::End);
            }
            self.out.tracer = latency_tracer(t).unwrap_or_else(|| t.trim().to_string());
            return Ok(Step::Consumed);
        }
        if let Some(rest) = h.strip_prefix("latency:") {
            if self.saw_body {
                return Ok(Step::End);
            }
            let rest = rest.trim_start();
            let num_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let col = column_of(line, rest);
            let lat: f64 = rest[..num_end].parse().map_err(|_| {
                ParseError::invalid(FORMAT, no, col, "a latency in us after `latency:`", rest)
            })?;
            self.out.latency_us = lat;
            self.saw_latency = true;
            self.latency_fields(&rest[num_end..]);
            self.latency_open = !rest.contains(')');
            return Ok(Step::Consumed);
        }
        if let Some((before, after)) = h.split_once(" latency trace") {
            if self.out.tracer.is_empty()
                && let Some(tracer) = latency_tracer(before)
            {
                self.out.tracer = tracer;
            }
            if let Some((_, kernel)) = after.split_once(" on ") {
                // `... on 6.9.0-rc4 #`: the `#` of the rule line below, which
                // a mailer joined to this one.
                let k = kernel.trim();
                let k = k.strip_suffix(" #").map_or(k, str::trim_end);
                if !k.is_empty() {
                    self.out.kernel = Some(k.to_string());
                }
            } else if after.trim_end().ends_with(" on") {
                self.kernel_open = true;
            }
            return Ok(Step::Consumed);
        }
        let h2 = h.trim_start_matches('|').trim_start();
        if let Some(task) = h2.strip_prefix("task:") {
            self.out.task = parse_task(task);
            return Ok(Step::Consumed);
        }
        if let Some(rest) = h.strip_prefix("=>") {
            let rest = rest.trim();
            // As printed; the 2004 tracer's offsets (`snd_..._prepare+0x74/0x180`)
            // are dropped, as its frames print none.
            let value = |v: &str| {
                // A note appended to the name (`arch_cpu_idle------ <note>`):
                // no symbol holds a run of dashes.
                let v = v.trim();
                let v = v.find("--").map_or(v, |p| &v[..p]).trim_end();
                match self.bare {
                    true => culprit::strip_offset(v).to_string(),
                    false => v.to_string(),
                }
            };
            if let Some(v) = rest.strip_prefix("started at:") {
                self.out.started_at = Some(value(v));
                if !self.saw_latency && self.out.tracer.is_empty() && self.out.task.is_none() {
                    self.from_started = true;
                }
            } else if let Some(v) = rest.strip_prefix("ended at:") {
                self.out.ended_at = Some(value(v));
            }
            return Ok(Step::Consumed);
        }
        if h.contains("=>") && h.starts_with(['_', '/', '|']) {
            self.legend_cols += 1;
            if h.contains("CPU#") {
                self.legend_has_cpu = true;
            }
        }
        Ok(Step::Consumed)
    }

    /// `#6/6, CPU#1 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:4)`, any part.
    fn latency_fields(&mut self, s: &str) {
        let seps = |c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '[' | ']');
        for tok in s.split(seps) {
            if let Some(v) = tok.strip_prefix("CPU#") {
                if let Ok(n) = v.parse() {
                    self.out.cpu = Some(n);
                }
            } else if let Some(v) = tok.strip_prefix("M:") {
                if !v.is_empty() {
                    self.out.preempt_model = Some(v.to_string());
                }
            } else if let Some(v) = tok
                .strip_prefix("#P:")
                .or_else(|| tok.strip_prefix("#CPUS:"))
            {
                // `#CPUS:1` in 2004's `[VP:0 KP:1 SP:1 HP:1 #CPUS:1]`.
                if let Ok(n) = v.parse() {
                    self.out.nr_cpus = Some(n);
                }
            } else if let Some(v) = tok.strip_prefix('#')
                && let Some((a, b)) = v.split_once('/')
                && let (Ok(a), Ok(b)) = (a.parse(), b.parse())
            {
                self.out.entries = Some((a, b));
            }
        }
        // 2004: `entries: 28 (28)`.
        if let Some(e) = s.split_once("entries:").map(|(_, e)| e.trim_start()) {
            let mut w = e.split_whitespace();
            if let (Some(Ok(a)), Some(Ok(b))) = (
                w.next().map(str::parse),
                w.next().map(|x| x.trim_matches(['(', ')']).parse()),
            ) {
                self.out.entries = Some((a, b));
            }
        }
    }

    fn frame(&mut self, frame: &str) {
        self.saw_body = true;
        let name = culprit::strip_offset(frame);
        if name.is_empty() {
            return;
        }
        if !self.in_stack {
            // Frames without a `<stack trace>` event line (hand-trimmed paste).
            self.new_stack();
        }
        if let Some(s) = self.stacks.back_mut()
            && s.len() < MAX_FRAMES
        {
            s.push(name.to_string());
        }
    }

    fn new_stack(&mut self) {
        if self.stacks.len() >= MAX_STACKS {
            self.stacks.pop_front();
        }
        self.stacks.push_back(Vec::new());
        self.in_stack = true;
    }

    /// Append the rest of a wrapped event line to the event it belongs to.
    fn continue_prev(&mut self, sep: &str, c: &str) {
        let Some((no, raw)) = self.recent.newest_mut() else {
            return;
        };
        let no = *no;
        raw.extend_from_slice(sep.as_bytes());
        raw.extend_from_slice(c.as_bytes());
        for g in &mut self.gaps {
            if let Some((n, r)) = g.lines.last_mut()
                && *n == no
            {
                r.extend_from_slice(sep.as_bytes());
                r.extend_from_slice(c.as_bytes());
            }
        }
        if self.events_seen > HEAD_EVENTS as u64 {
            return;
        }
        if let Some(e) = self.out.events.last_mut()
            && e.line == Some(no)
        {
            if sep == " <-" {
                if e.function.is_none() || e.caller.is_some() {
                    return;
                }
                e.caller = Some(culprit::strip_offset(c).to_string());
            }
            e.text.push_str(sep);
            e.text.push_str(c);
        }
    }

    fn wrapped_caller(&mut self, c: &str) {
        let c = c.trim();
        if culprit::strip_offset(c).is_empty() {
            return;
        }
        self.continue_prev(" <-", c);
    }

    fn event(&mut self, no: u64, ev: EventRef<'_>, raw: &str) {
        self.prev_event_len = Some(raw.trim_end().len());
        self.saw_body = true;
        self.in_stack = false;
        if self.out.flag_columns.is_none() && self.legend_cols == 0 {
            self.out.flag_columns = Some(ev.flags.chars().count() as u32 + 1);
        }
        if ev.text == "<stack trace>" {
            self.new_stack();
        }
        let func = function_of(ev.text.as_bytes());
        self.count_event(
            no,
            ev.time_us,
            raw.as_bytes(),
            func.map(Name::Checked),
            Some(ev),
            None,
        );
    }

    /// Count one event: the gap since the previous one (its function's self
    /// time, a candidate for the longest gaps and the culprit), the
    /// function's count, the windows still collecting, the head of
    /// `events`. `parsed` is absent on the fast path. `at` is the buffer
    /// `raw` lies in and where, when the event is read in a run of lines
    /// ([`Report::run`]): the line is then copied into `recent` only if
    /// it is among the last ones when the run ends or a gap needs it.
    #[inline(always)]
    fn count_event(
        &mut self,
        no: u64,
        time_us: f64,
        raw: &[u8],
        func: Option<Name<'_>>,
        parsed: Option<EventRef<'_>>,
        at: Option<(&[u8], usize)>,
    ) {
        // Inlined into the fast loop, with what is rare kept out of line
        // (a call per event was a large part of its cost).
        self.events_seen += 1;
        if self.prev_valid {
            let gap = time_us - self.prev_time;
            if let Some(f) = self.prev_func {
                self.functions.add_time(f, gap.max(0.0));
            }
            if gap > self.best.as_ref().map_or(0.0, |b| b.gap_us) {
                if let Some((buf, _)) = at {
                    self.flush_recent(buf);
                }
                self.new_best(gap);
            }
            if gap > 0.0
                && (self.gaps.len() < TOP_GAPS || self.gaps.last().is_some_and(|g| gap > g.gap_us))
            {
                if let Some((buf, _)) = at {
                    self.flush_recent(buf);
                }
                self.insert_gap(gap);
            }
        }
        if self.open_windows > 0 {
            self.fill_windows(no, raw);
        }
        match at {
            Some((_, start)) => self.pending.push(no, start, raw.len()),
            None => self.recent.push(no, raw),
        }
        self.prev_valid = true;
        self.prev_time = time_us;
        self.prev_func = func.and_then(|f| self.functions.count(f));
        if self.out.events.len() < HEAD_EVENTS {
            self.head_event(no, raw, parsed);
        }
    }

    /// Copy the lines of `pending` (which lie in `buf`) into `recent`.
    #[cold]
    #[inline(never)]
    fn flush_recent(&mut self, buf: &[u8]) {
        let p = &mut self.pending;
        let first = p.next + Pending::CAP - p.len;
        for k in first..first + p.len {
            let (no, start, len) = p.lines[k % Pending::CAP];
            if let Some(raw) = buf.get(start..start + len) {
                self.recent.push(no, raw);
            }
        }
        p.len = 0;
    }

    /// A gap longer than the best so far: the culprit candidate, when the
    /// event before it names a function.
    #[cold]
    #[inline(never)]
    fn new_best(&mut self, gap: f64) {
        if let Some((_, prev)) = self.recent.newest()
            && let Some(c) = candidate(prev, gap)
        {
            self.best = Some(c);
        }
    }

    /// The event `raw` into the gap windows still collecting.
    #[cold]
    #[inline(never)]
    fn fill_windows(&mut self, no: u64, raw: &[u8]) {
        for g in self.gaps.iter_mut().filter(|g| g.after_left > 0) {
            g.lines.push((no, raw.to_vec()));
            g.after_left -= 1;
            if g.after_left == 0 {
                self.open_windows -= 1;
            }
        }
    }

    /// One of the first [`HEAD_EVENTS`] events, parsed in full.
    #[cold]
    #[inline(never)]
    fn head_event(&mut self, no: u64, raw: &[u8], parsed: Option<EventRef<'_>>) {
        let text = String::from_utf8_lossy(raw);
        if let Some(ev) = parsed.or_else(|| parse_event(&text)) {
            self.out.events.push(to_event(no, ev));
        }
    }

    /// Open a window for a gap that is among the longest so far; the
    /// shortest of the kept ones goes when there are too many.
    #[cold]
    #[inline(never)]
    fn insert_gap(&mut self, gap_us: f64) {
        let Some(&(line, _)) = self.recent.newest() else {
            return;
        };
        let at = self.gaps.partition_point(|g| g.gap_us >= gap_us);
        self.gaps.insert(
            at,
            GapWindow {
                gap_us,
                event: self.events_seen - 1,
                line,
                lines: self.recent.snapshot(),
                after_left: GAP_WINDOW / 2,
            },
        );
        self.open_windows += 1;
        if self.gaps.len() > TOP_GAPS
            && let Some(g) = self.gaps.pop()
            && g.after_left > 0
        {
            self.open_windows -= 1;
        }
    }

    fn finish(mut self) -> Result<FtraceLatency, ParseError> {
        if !self.saw_latency && self.from_started && self.events_seen > 0 {
            // Quoted from `=> started at:` on: the trace still tells how
            // long it lasted, and the block says the number is not printed.
            self.out.latency_us = self.prev_time;
            self.out.latency_from_trace = Some(true);
            self.saw_latency = true;
        }
        if !self.saw_latency {
            return Err(ParseError::invalid(
                FORMAT,
                self.start_line,
                1,
                "a `# latency: N us, #x/y, CPU#n` header line",
                "end of the report",
            ));
        }
        if self.legend_cols > 0 {
            let cols = self.legend_cols + u32::from(!self.legend_has_cpu);
            self.out.flag_columns = Some(cols);
        }
        if self.events_seen > self.out.events.len() as u64 {
            self.out.events_total = Some(self.events_seen);
        }
        self.out.gaps = self
            .gaps
            .into_iter()
            .map(|g| {
                let events: Vec<TraceEvent> = g
                    .lines
                    .iter()
                    .filter_map(|(no, raw)| {
                        let text = String::from_utf8_lossy(raw);
                        let (_, text) = lines::strip_quote(&text);
                        let norm = ascii_spaces(text);
                        parse_event(&norm).map(|ev| to_event(*no, ev))
                    })
                    .collect();
                let function = events
                    .iter()
                    .find(|e| e.line == Some(g.line))
                    .and_then(|e| e.function.clone());
                TraceGap {
                    gap_us: round_us(g.gap_us),
                    event: g.event,
                    line: g.line,
                    function,
                    events,
                }
            })
            .collect();
        let (functions, other) = self.functions.finish();
        self.out.functions = functions;
        self.out.functions_other = other;
        self.out.stacks = self.stacks.into_iter().filter(|s| !s.is_empty()).collect();
        let (c, path) = culprit::choose(&self.out.tracer, &self.out.stacks, self.best.as_ref());
        self.out.culprit = c;
        self.out.culprit_path = path;
        Ok(self.out)
    }
}

/// The gap candidate for the event printed on `raw`, when it names a function.
fn candidate(raw: &[u8], gap_us: f64) -> Option<GapCandidate> {
    let text = String::from_utf8_lossy(raw);
    let (_, text) = lines::strip_quote(&text);
    let norm = ascii_spaces(text);
    let ev = parse_event(&norm)?.text.to_string();
    let (function, caller) = split_function(&ev);
    Some(GapCandidate {
        function: function?.to_string(),
        caller: caller.map(str::to_string),
        gap_us,
    })
}

fn to_event(no: u64, ev: EventRef<'_>) -> TraceEvent {
    let (function, caller) = split_function(ev.text);
    TraceEvent {
        line: Some(no),
        comm: ev.comm.to_string(),
        pid: ev.pid,
        cpu: ev.cpu,
        flags: ev.flags.to_string(),
        time_us: ev.time_us,
        delay_marker: ev.marker.to_string(),
        text: ev.text.to_string(),
        function: function.map(str::to_string),
        caller: caller.map(str::to_string),
    }
}

/// 1-based column of `part` (a sub-slice of `line`) within `line`.
fn column_of(line: &str, part: &str) -> u64 {
    let off = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    if off <= line.len() { off as u64 + 1 } else { 1 }
}

/// `cyclictest-250 (uid:0 nice:0 policy:1 rt_prio:99)`
fn parse_task(s: &str) -> Option<TraceTask> {
    let s = s.trim();
    let (who, fields) = match s.find(" (") {
        Some(p) => (&s[..p], &s[p + 2..]),
        // 2004: `latencytest/11492, uid:0 nice:0 policy:1 rt_prio:99`.
        None => match s.split_once(", ") {
            Some((w, f)) if w.contains('/') && !w.contains('-') => (w, f),
            _ => (s, ""),
        },
    };
    let who = who.trim();
    let (comm, pid) = who.rsplit_once('-').or_else(|| who.rsplit_once('/'))?;
    let mut t = TraceTask {
        comm: comm.to_string(),
        pid: pid.trim().parse().ok()?,
        ..TraceTask::default()
    };
    for tok in fields.trim_end_matches(')').split_whitespace() {
        let Some((k, v)) = tok.split_once(':') else {
            continue;
        };
        match k {
            "uid" => t.uid = v.parse().ok(),
            "nice" => t.nice = v.parse().ok(),
            "policy" => t.policy = v.parse().ok(),
            "rt_prio" => t.rt_prio = v.parse().ok(),
            _ => {}
        }
    }
    Some(t)
}

/// A display-graph line: `  0 us |   0)   bash-1507    |  d... |  0.000 us |  f();`
fn is_graph_line(t: &str) -> bool {
    t.as_bytes().first().is_some_and(u8::is_ascii_digit) && t.contains(" | ") && t.contains(')')
}

/// Byte ranges of the first whitespace-separated tokens of `s`.
fn tokens(s: &str, out: &mut [(usize, usize); 8]) -> usize {
    let b = s.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while n < out.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let st = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        out[n] = (st, i);
        n += 1;
    }
    n
}

/// `<time>us[marker][:]` -> (time, marker, colon attached).
fn time_token(t: &str) -> Option<(f64, &str, bool)> {
    let b = t.as_bytes();
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    let us = t.find("us")?;
    let time: f64 = t[..us].parse().ok()?;
    let mut rest = &t[us + 2..];
    let colon = rest.ends_with(':');
    if colon {
        rest = &rest[..rest.len() - 1];
    }
    if rest.len() > 1 || !(rest.is_empty() || "+!#*@$".contains(rest)) {
        return None;
    }
    Some((time, rest, colon))
}

/// Parse ` stress-n-264       1dn.h511    1us : text` (leading space optional,
/// comm may contain spaces, CPU may have several digits).
fn parse_event(line: &str) -> Option<EventRef<'_>> {
    let mut toks = [(0usize, 0usize); 8];
    let n = tokens(line, &mut toks);
    if n < 3 {
        return None;
    }
    for t in 2..n {
        let (ts, te) = toks[t];
        let Some((time_us, marker, colon)) = time_token(&line[ts..te]) else {
            continue;
        };
        let text_start = if colon {
            te
        } else {
            // `1us :` or `0us+ :`: the colon is the next token (the 2004
            // tracer's `>` before a system call's entry).
            let (cs, ce) = *toks.get(t + 1).filter(|_| t + 1 < n)?;
            let c = &line[cs..ce];
            if c == ":" || c == ">" {
                ce
            } else if let Some(stripped) = c.strip_prefix(':') {
                ce - stripped.len()
            } else {
                return None;
            }
        };
        let (fs, fe) = toks[t - 1];
        let cpuflags = &line[fs..fe];
        let digits = cpuflags.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits == cpuflags.len() {
            return None;
        }
        let cpu: u32 = cpuflags[..digits].parse().ok()?;
        let flags = &cpuflags[digits..];
        let who = &line[toks[0].0..toks[t - 2].1];
        let (comm, pid) = who.rsplit_once('-')?;
        let pid: u32 = pid.parse().ok()?;
        return Some(EventRef {
            comm,
            pid,
            cpu,
            flags,
            time_us,
            marker,
            text: line[text_start..].trim(),
        });
    }
    None
}

/// Function and caller of a function-trace event text, offsets stripped:
/// `isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440`.
fn split_function(text: &str) -> (Option<&str>, Option<&str>) {
    let mut it = text.split_whitespace();
    let Some(first) = it.next() else {
        return (None, None);
    };
    let name = culprit::strip_offset(first);
    let ident = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    let starts_ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if !ident || !starts_ok {
        return (None, None);
    }
    let caller = match it.next() {
        Some(c) => match c.strip_prefix("<-") {
            Some(c) => Some(culprit::strip_offset(c)).filter(|c| !c.is_empty()),
            None => return (None, None),
        },
        None => None,
    };
    (Some(name), caller)
}

#[cfg(test)]
mod interruption_tests {
    use super::interrupted_gap;

    #[test]
    fn a_reply_inside_a_quoted_trace_is_skipped_only_when_events_follow() {
        let ev = ">   dd-1       0d..1.  231us+: chacha_permute <-chacha_block_generic";
        let text = format!("{ev}\n>\n>   8182 x the above\n\nA reply here.\n\n{ev}\n");
        let lines = crate::lines::split(&text);
        assert_eq!(interrupted_gap(&lines, 1, 1), Some(6));
        // A note alone, with no reply, is not an interruption.
        let text = format!("{ev}\n>\n>   8182 x the above\n>\n{ev}\n");
        let lines = crate::lines::split(&text);
        assert_eq!(interrupted_gap(&lines, 1, 1), None);
        // A reply after which no event comes ends the report.
        let text = format!("{ev}\n>\nThanks.\n>   # tracer: irqsoff\n");
        let lines = crate::lines::split(&text);
        assert_eq!(interrupted_gap(&lines, 1, 1), None);
        // An unquoted report is never interrupted.
        let lines = crate::lines::split("x\n");
        assert_eq!(interrupted_gap(&lines, 0, 0), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lines() {
        let e = parse_event("stress-n-264       1dn.h511    8us#: 0").unwrap();
        assert_eq!(
            (e.comm, e.pid, e.cpu, e.flags),
            ("stress-n", 264, 1, "dn.h511")
        );
        assert_eq!((e.time_us, e.marker, e.text), (8.0, "#", "0"));
        let e = parse_event(" kswapd0-90        5d..1.    0us*: isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440").unwrap();
        assert_eq!(e.marker, "*");
        assert_eq!(
            split_function(e.text),
            (Some("isolate_lru_folios"), Some("shrink_inactive_list"))
        );
        let e =
            parse_event("           fio-2701523 128...1.    0us$: deactivate_file_folio").unwrap();
        assert_eq!((e.comm, e.pid, e.cpu, e.marker), ("fio", 2701523, 128, "$"));
        let e = parse_event(
            "    <idle>-0       3d.h4    0us :      0:120:R   + [003]  2389: 94:R sleep",
        )
        .unwrap();
        assert_eq!(e.comm, "<idle>");
        assert_eq!(split_function(e.text), (None, None));
        assert!(parse_event("stress-ng --cpu 4 --vm 4 --vm-bytes 2G &").is_none());
        assert!(parse_event("T: 0 ( 4541) P:99 I:1000").is_none());
    }

    #[test]
    fn a_2004_trace_with_a_mangled_unit_and_the_posters_notes() {
        let text = "preemption latency trace v1.1.4 on 2.6.10-rc3-mm1-V0.7.33-03\n--------------------------------------------------\n latency: 2421 \u{d0ce}, #2259/2259, CPU#0 | (M:preempt VP:0, KP:1, SP:0 HP:0 #P:2)\n    -----------------\n    | task: latencytest-tra-14143 (uid:0 nice:0 policy:1 rt_prio:99)\n    -----------------\n\n                 _------=> CPU#\n                / _-----=> irqs-off\n               | / _----=> need-resched\n               || / _---=> hardirq/softirq\n               ||| / _--=> preempt-depth\n               |||| /\n               |||||     delay\n   cmd     pid ||||| time  |   caller\n      \\   /    |||||   \\   |   /\nlatencyt-14143 0...1    0\u{d0ce} : user_trace_start (sys_gettimeofday)\nlatencyt-14143 0d...    0\u{d0ce}+< (0)                    [00]\nlatencyt-14143 0d.h.   50\u{d0ce} : do_IRQ (8049af8 a 0)\n... process audio interrupt ...\n[I can argue - why did this come in here\nso early]\nlatencyt-14143 0d...   64\u{d0ce}!< (0)                    [01]\nlatencyt-14143 0.... 2419\u{d0ce} > sys_gettimeofday (00000000 00000000 0000007b)\nlatencyt-14143 0...1 2421\u{d0ce} : user_trace_stop (sys_gettimeofday)\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{doc:?}");
        assert_eq!(doc.blocks[0].lines, [1, 25]);
        let BlockBody::FtraceLatency(r) = &doc.blocks[0].body else {
            panic!("{doc:?}")
        };
        assert_eq!(r.latency_us, 2421.0);
        let times: Vec<f64> = r.events.iter().map(|e| e.time_us).collect();
        assert_eq!(times, [0.0, 50.0, 2419.0, 2421.0]);
        assert_eq!(r.events[0].function.as_deref(), Some("user_trace_start"));
        assert!(is_return_entry(
            "latencyt-14143 0d...   64us!< (0)                    [01]"
        ));
        assert!(!is_return_entry(
            "latencyt-14143 0d.h.   50us : do_IRQ (8049af8 a 0)"
        ));
    }

    #[test]
    fn starts() {
        assert!(is_start("# tracer: wakeup_rt"));
        assert!(is_start("  # irqsoff latency trace v1.1.5 on 3.8.0-test+"));
        assert!(!is_start("# tracer: function"));
        assert!(!is_start("echo wakeup_rt > current_tracer"));
    }

    #[test]
    fn old_rt_layouts() {
        let report = |text: &str| match recognize(&crate::lines::split(text), 0) {
            Some(Ok((_, BlockBody::FtraceLatency(f)))) => f,
            other => panic!("{other:?}"),
        };
        // 2005: no `#`, callers in parentheses, the latency line wrapped.
        let f = report(
            "preemption latency trace v1.1.5 on 2.6.13-rt\n latency: 52 us, #2/2, CPU#0 | (M:preempt VP:0, KP:1, SP:1 HP:1\n#P:2)\n    | task: jackd-42 (uid:0 nice:0 policy:1 rt_prio:61)\n\n                 _------=> CPU#\n               |||| /\n   cmd     pid ||||| time  |   caller\n   <...>-40  1Dnh3    0us!: foo_stat (foo_get)\n   <...>-40  1Dnh3   50us : bar (foo_get)\n",
        );
        assert_eq!(
            (f.tracer.as_str(), f.latency_us, f.nr_cpus, f.entries),
            ("preemption", 52.0, Some(2), Some((2, 2)))
        );
        assert_eq!(f.events[0].function.as_deref(), Some("foo_stat"));
        assert_eq!(f.events[0].caller.as_deref(), Some("foo_get"));
        assert_eq!(f.culprit.as_deref(), Some("foo_stat"));
        // 2004: `entries: N (N)`, `comm/pid,` and trace lines not read as events.
        let f = report(
            "latency: 621 us, entries: 2 (2)\n    | task: lt/11, uid:0 nice:0 policy:1 rt_prio:99\n => started at: a_fn+0x74/0x180\n =======>\n00000001 0.000ms (+0.000ms): a_fn\n(b_fn)\n00000001 0.562ms (+0.548ms): c_fn (a_fn)\n",
        );
        assert_eq!(
            (f.tracer.as_str(), f.latency_us, f.entries),
            ("preemption", 621.0, Some((2, 2)))
        );
        assert_eq!(
            f.task.map(|t| (t.comm, t.pid)),
            Some(("lt".to_string(), 11))
        );
        assert_eq!(f.started_at.as_deref(), Some("a_fn"));
        assert!(f.events.is_empty());
        // From `=> started at:` on: the latency is the last event's time.
        let f = report(
            "#  => started at: x_lock\n#  => ended at:   y_flush\n  cat-9    2d....    0us*: x_lock\n  cat-9    2d.... 45342us : y_flush\n",
        );
        assert_eq!((f.latency_us, f.latency_from_trace), (45342.0, Some(true)));
        // A line that merely mentions `latency:` opens nothing.
        assert!(!is_start("latency: 5 us, I think"));
        assert!(!is_start("the preemption latency trace was long"));
    }

    #[test]
    fn missing_latency_line_is_an_error() {
        let text = "# tracer: irqsoff\n#\nfoo-1 0d... 0us : bar <-baz\n";
        let lines = crate::lines::split(text);
        let r = recognize(&lines, 0).unwrap();
        let e = r.unwrap_err();
        assert_eq!(e.line, 1);
        assert_eq!(e.format, "ftrace");
    }

    #[test]
    fn a_header_rule_glued_to_the_latency_line() {
        let glued = "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 5.4.0\n# --------------------------------------------------------------------# latency: 38 us, #2/2, CPU#2 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:8)\n#    | task: kworker/u16:4-8174 (uid:0 nice:0 policy:0 rt_prio:0)\n  kworker/-8174      2d..2    0us#: a_fn <-b_fn\n  kworker/-8174      2d..2   38us : c_fn <-b_fn\n";
        let doc = crate::parse_str(glued, None).unwrap();
        let BlockBody::FtraceLatency(f) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks[0].body);
        };
        assert_eq!(
            (f.tracer.as_str(), f.latency_us, f.cpu),
            ("irqsoff", 38.0, Some(2))
        );
        assert_eq!(f.nr_cpus, Some(8));
        // A rule alone is still only a rule.
        assert_eq!(glued_after_rule("----------"), None);
        assert_eq!(glued_after_rule("--# x"), None);
    }

    #[test]
    fn markdown_escapes_notes_and_short_headers() {
        // Underscores escaped, `<-` escaped, a line in bold, runs of spaces
        // collapsed: the line as printed.
        let md = "# tracer: irqsoff\n# latency: 20 us, #3/3, CPU#0 | (M:server VP:0, KP:0, SP:0 HP:0)\n# | task: swapper-0 (uid:0 nice:0 policy:0 rt\\_prio:0)\n# => started at: \\_\\_irq\\_svc\n# => ended at: \\_\\_do\\_softirq\n<...>-593 0d... 0us : do\\_work\\_pending \\<-ret\\_fast\n**-0 0d.h. 1us#: do\\_timer <-tick\\_periodic**\n-0 0d.h. 20us : calc\\_global\\_load <-do\\_timer\n";
        let lines = crate::lines::split(md);
        let Some(Ok((n, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!(n, 8);
        assert_eq!(f.started_at.as_deref(), Some("__irq_svc"));
        assert_eq!(f.ended_at.as_deref(), Some("__do_softirq"));
        let funcs: Vec<_> = f.events.iter().map(|e| e.function.as_deref()).collect();
        assert_eq!(
            funcs,
            [
                Some("do_work_pending"),
                Some("do_timer"),
                Some("calc_global_load")
            ]
        );
        assert_eq!(f.events[0].caller.as_deref(), Some("ret_fast"));
        // A note after a run of dashes is not part of the name.
        let noted = "# tracer: irqsoff\n# latency: 9 us, #2/2, CPU#2 | (M:server VP:0, KP:0, SP:0 HP:0 #P:4)\n#  => started at: a_fn---------note\n#  => ended at:   b_fn -- note\n  <idle>-0       2d...    3us : a_fn\n  <idle>-0       2d...    9us : b_fn\n";
        let lines = crate::lines::split(noted);
        let Some(Ok((_, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!(f.started_at.as_deref(), Some("a_fn"));
        assert_eq!(f.ended_at.as_deref(), Some("b_fn"));
        // A shortened header, one empty line, the events; a second empty
        // line ends the report.
        let short = "# tracer: wakeup_rt\n# latency: 15 us, #2/2, CPU#1 | (M:PREEMPT(lazy) VP:0, KP:0, SP:0 HP:0 #P:24)\n# task: x-96 (uid:0 nice:5 policy:2 rt_prio:99)\n\n  <idle>-0    1dNh3.    0us+: 0:120:R + [001] 96:0:R x\n  <idle>-0    1dNh3.   14us : <stack trace>\n => probe_wakeup\n\nprose\n";
        let lines = crate::lines::split(short);
        let Some(Ok((n, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!(n, 7);
        assert_eq!(f.events.len(), 2);
        assert_eq!(f.stacks, vec![vec!["probe_wakeup".to_string()]]);
        // Without a task line the empty line still ends a header.
        let bare = "# tracer: wakeup_rt\n# latency: 15 us, #2/2, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n\n  <idle>-0    1dNh3.    0us+: x\n";
        let lines = crate::lines::split(bare);
        let Some(Ok((n, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!((n, f.events.len()), (2, 0));
    }

    #[test]
    fn seven_flag_columns_from_legend_and_from_events() {
        // Older PREEMPT_RT legend: lazy preempt depth, no need-resched-lazy.
        let legend = "# tracer: wakeup_rt\n# latency: 12 us, #2/2, CPU#0 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:2)\n#                  _-------=> CPU#\n#                 / _------=> irqs-off\n#                | / _-----=> need-resched\n#                || / _----=> hardirq/softirq\n#                ||| / _---=> preempt-depth\n#                |||| / _--=> preempt-lazy-depth\n#                ||||| / _-=> migrate-disable\n#                |||||| /     delay\n  sleep-42      0d..h1..    1us : 0:120:R   + [000]    42: 94:R sleep\n  sleep-42      0d...2..   12us : 0:120:R ==> [000]    42: 94:R sleep\n";
        let lines = crate::lines::split(legend);
        let Some(Ok((n, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!((n, f.flag_columns), (12, Some(7)));
        let no_legend = "# tracer: wakeup_rt\n# latency: 12 us, #2/2, CPU#0 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:2)\n  sleep-42      0d..h1.    1us : 0:120:R   + [000]    42: 94:R sleep\n";
        let lines = crate::lines::split(no_legend);
        let Some(Ok((_, BlockBody::FtraceLatency(f)))) = recognize(&lines, 0) else {
            panic!("not parsed");
        };
        assert_eq!(f.flag_columns, Some(7));
    }

    #[test]
    fn fast_path_time_column() {
        let mut col = FastCols::default();
        let a = b" kswapd0-90        5d..1.    0us*: isolate_lru_folios+0x0/0x3e0";
        let b = b" kswapd0-90        5d..1. 77765us : __rcu_read_lock+0x0/0x20";
        assert_eq!(fast_event_time(a, &mut col).map(|t| t.0), Some(0.0));
        assert_eq!((col.time, col.us), (26, 30));
        assert_eq!(fast_event_time(b, &mut col).map(|t| t.0), Some(77765.0));
        assert_eq!(
            fast_event_time(
                b" kswapd0-90        5d..1. 77774us : <stack trace>",
                &mut col
            )
            .map(|t| t.0),
            None
        );
        assert_eq!(
            fast_event_time(b"#  cmd     pid     |||||| time  |   caller", &mut col).map(|t| t.0),
            None
        );
        assert_eq!(
            fast_event_time(b"fio-2701523 128...1. 10382682us$: x", &mut col).map(|t| t.0),
            Some(10382682.0)
        );
    }

    #[test]
    fn function_of_agrees_with_split_function() {
        for t in [
            "isolate_lru_folios+0x0/0x3e0 <-shrink_inactive_list+0x10f/0x440",
            "_raw_spin_unlock_irq+0x10/0x30",
            "ata_find_dev.part.14 <-__ata_scsi_find_dev",
            "  preempt_count_add <-",
            "0:120:R   + [003]  2389: 94:R sleep",
            "<stack trace>",
            "foo+1 <-bar",
            "a+b+0x1/0x2",
            "foo:bar",
            "sched_switch: prev_comm=x",
            "foo bar",
            "foo+0x1/0x2 bar",
            "",
            "x",
        ] {
            let want = split_function(t.trim()).0.map(str::as_bytes);
            assert_eq!(function_of(t.as_bytes()), want, "{t:?}");
        }
    }

    /// The byte-at-a-time scan [`function_of`] replaced.
    fn function_of_bytewise(text: &[u8]) -> Option<&[u8]> {
        let n = text.len();
        let mut i = 0;
        while i < n && text[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        let first = *text.get(i)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        while i < n && (text[i].is_ascii_alphanumeric() || text[i] == b'_' || text[i] == b'.') {
            i += 1;
        }
        let name = &text[start..i];
        if i < n && text[i] == b'+' {
            if !text[i..].starts_with(b"+0x") {
                return None;
            }
            while i < n && !text[i].is_ascii_whitespace() {
                i += 1;
            }
        } else if i < n && !text[i].is_ascii_whitespace() {
            return None;
        }
        while i < n && text[i].is_ascii_whitespace() {
            i += 1;
        }
        (i == n || text[i..].starts_with(b"<-")).then_some(name)
    }

    #[test]
    fn function_of_agrees_with_the_bytewise_scan() {
        // Names of every length around the eight-byte steps, each byte
        // position replaced by every byte value.
        // Names below 8 bytes, around 24 and 32 (where `name_end` stops
        // testing four words at once) and beyond.
        let bases: [&[u8]; 4] = [
            b" isolate_lru_folios.part.0+0x160/0x3e0 <-shrink_list+0x1/0x2",
            b" madvise_cold_or_pageout_pte_range_x+0x6c4/0xaa0 <-walk_pgd_range+0x1/0x2",
            b" rt_lock+0x0/0x70 <-madvise_cold_or_pageout_pte_range+0x3d5/0xaa0 x",
            b" abcdefghijklmnopqrstuvwxyz0123456+0x1/0x2\t<-a",
        ];
        for base in bases {
            for cut in 1..base.len() {
                let t = &base[..cut];
                assert_eq!(function_of(t), function_of_bytewise(t), "{t:?}");
            }
            for pos in 0..base.len() {
                for v in 0..=255u8 {
                    let mut t = base.to_vec();
                    t[pos] = v;
                    assert_eq!(function_of(&t), function_of_bytewise(&t), "{t:?}");
                    t.truncate(pos + 1);
                    assert_eq!(function_of(&t), function_of_bytewise(&t), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn padded_time_agrees_with_time_field() {
        // Every field of up to five bytes over an alphabet of the bytes
        // that matter (and a sample of longer ones), after prefixes of
        // several lengths and before several tails, read one after another
        // with the same columns (so the remembered field is exercised):
        // whenever `padded_time` answers, `time_field` gives the same.
        const ALPHABET: &[u8] = b" 0159.a/\t";
        let tails: [&[u8]; 7] = [
            b"us : f+0x0/0x1",
            b"us!: x",
            b"usX: x",
            b"us :  <stack trace>",
            b"us:",
            b"u",
            b"us*:",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut agreed = 0;
        for prefix in [
            &b" kswapd0-90        5d..1. "[..],
            b"a-1 0d. ",
            b"xy-12 3dn. ",
        ] {
            let col = prefix.len();
            for w in 1..=8usize {
                let mut cols = FastCols {
                    time: col,
                    ..FastCols::default()
                };
                cols.set_us(col + w);
                let total = ALPHABET.len().pow(w as u32);
                let count = if w <= 5 { total } else { 20_000 };
                for k in 0..count {
                    let mut n = if w <= 5 { k } else { next() as usize % total };
                    let mut line = prefix.to_vec();
                    for _ in 0..w {
                        line.push(ALPHABET[n % ALPHABET.len()]);
                        n /= ALPHABET.len();
                    }
                    let tail = tails[k % tails.len()];
                    line.extend_from_slice(tail);
                    let fast = padded_time(&line, &mut cols);
                    if let Some(t) = fast {
                        assert_eq!(Some(t), time_field(&line, col), "{line:?}");
                        agreed += 1;
                    }
                }
            }
        }
        assert!(agreed > 1000, "{agreed}");
        // A long time read with the word operations.
        let line = b" kswapd0-90        5d..1. 12345678us : f+0x0/0x1";
        let mut cols = FastCols {
            time: 26,
            ..FastCols::default()
        };
        cols.set_us(34);
        assert_eq!(padded_time(line, &mut cols), Some((12_345_678.0, 38)));
        assert_eq!(padded_time(line, &mut cols), Some((12_345_678.0, 38)));
    }

    #[test]
    fn function_table_counts_each_name_once() {
        let mut t = FunctionTable::new();
        // Short names, and long ones that share length and first, second
        // and last eight bytes.
        let names: Vec<String> = (0..3000)
            .map(|k| format!("f{k}"))
            .chain((0..3000).map(|k| format!("aaaaaaaa_{k:05}_bbbbbbbb")))
            .chain((0..3000).map(|k| format!("aaaaaaaabbbbbbbb_{k:05}_cccccccc")))
            .chain((0..30).map(|k| "_".repeat(k + 1)))
            .collect();
        for round in 0..3u64 {
            for (k, n) in names.iter().enumerate() {
                assert_eq!(t.count(Name::Unchecked(n.as_bytes())), Some(k as u32));
            }
            assert_eq!(t.count(Name::Unchecked(b"9lives")), None);
            assert_eq!(t.count(Name::Unchecked(b"a-b")), None);
            assert_eq!(t.rows.len(), names.len());
            assert!(t.rows.iter().all(|r| r.1 == round + 1));
        }
        assert!(same_bytes(b"abcdefghij", b"abcdefghij"));
        assert!(!same_bytes(b"abcdefghij", b"abcdefghiJ"));
        assert!(!same_bytes(b"abc", b"abc\0"));
    }

    /// Texts of function-trace events for the call-site tests: names that
    /// share their first 8, 16 or 32 bytes, each with several offsets and
    /// callers, and texts the site lookup must not take (no `<-`, an
    /// offset that is no offset, a name that is no name, a tab, short).
    fn site_texts() -> Vec<String> {
        let stems = [
            "isolate_lru_folios",
            "isolate_lru_folios_x",
            "isolate_lru_folio",
            "__mod_node_page_state",
            "__mod_zone_page_state",
            "__isolate_lru_page_prepare_and_more_of_it",
            "__isolate_lru_page_prepare_and_more_of_it2",
            "f",
            "9lives",
            "a-b",
        ];
        let mut v = Vec::new();
        for (i, f) in stems.iter().enumerate() {
            for off in ["+0x0/0x3e0", "+0x0/0x3e1", "+0x16/0x40", "+1/0x40", ""] {
                for sep in [" <-", "  <-", "\t<-", " <x", " "] {
                    for caller in ["shrink_inactive_list+0x10f/0x440", "kswapd+0x1/0x2", ""] {
                        v.push(format!(" {f}{off}{}{caller}", sep.replace("\\t", "\t")));
                    }
                }
            }
            v.push(format!(" {f}"));
            v.push(format!(
                "  {f}+0x0/0x10 <-caller_of_number_{i}_with_a_long_name+0x1/0x2"
            ));
        }
        v
    }

    #[test]
    fn call_sites_give_the_function_the_ordinary_path_finds() {
        // Every text is counted as the fast path does (a site lookup, else
        // the name found and counted and its site remembered), three times
        // over in a scrambled order: the function each event is counted
        // for, and the counts, are those of finding every name afresh.
        let texts = site_texts();
        let mut sites = SiteCache::new();
        let mut fast = FunctionTable::new();
        let mut plain = FunctionTable::new();
        let mut hits = 0;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3 {
            for k in 0..texts.len() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let text = texts[(k * 7 + seed as usize % 3) % texts.len()].as_bytes();
                let expect = function_span(text).and_then(|n| plain.count(Name::Unchecked(n)));
                let got = match sites.find(text) {
                    Some(row) => {
                        hits += 1;
                        fast.count(Name::Row(row))
                    }
                    None => {
                        let site = function_site(text);
                        let row = site.and_then(|(n, _)| fast.count(Name::Unchecked(n)));
                        if let (Some((_, Some(len))), Some(r)) = (site, row) {
                            sites.insert(text, len, r);
                        }
                        row
                    }
                };
                let name = |t: &FunctionTable, r: Option<u32>| {
                    r.map(|r| String::from_utf8_lossy(&t.rows[r as usize].0).into_owned())
                };
                assert_eq!(
                    name(&fast, got),
                    name(&plain, expect),
                    "{:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
        // Sites that can be kept (valid names, a `<-` within the first 48
        // bytes of a text at least that long) are found again: each text
        // comes about three times, so most of their events are hits.
        let kept = texts
            .iter()
            .filter(|t| {
                t.len() >= 8 * SITE_WORDS
                    && matches!(function_site(t.as_bytes()),
                        Some((n, Some(len))) if len <= 8 * SITE_WORDS && is_ident(n))
            })
            .count();
        assert!(kept > 50 && hits >= kept, "{hits} hits, {kept} sites");
        let rows = |t: &FunctionTable| {
            let mut r: Vec<_> = t.rows.iter().map(|r| (r.0.clone(), r.1)).collect();
            r.sort();
            r
        };
        assert_eq!(rows(&fast), rows(&plain));
        // Nothing is looked up by fewer bytes than a site holds, nor kept
        // for a site longer than that.
        assert_eq!(sites.find(b" f+0x0/0x1 <-g"), None);
        let long = format!(" {}+0x0/0x1 <-g{}", "a".repeat(60), " ".repeat(40));
        let row = fast
            .count(Name::Unchecked(&long.as_bytes()[1..61]))
            .unwrap();
        sites.insert(long.as_bytes(), 72, row);
        assert_eq!(sites.find(long.as_bytes()), None);
    }

    #[test]
    fn runs_of_lines_read_as_lines_one_by_one() {
        // A report with events over the texts above (some of which leave
        // the fast loop), read as `parse_reader` reads it (runs of lines
        // from a buffer, the line that stops a run on its own) and line by
        // line through the full parser: the same block.
        let texts = site_texts();
        let mut input = String::from(
            "# tracer: irqsoff\n# latency: 100 us, #1/1, CPU#5 | (M:unknown VP:0, KP:0, SP:0 HP:0 #P:8)\n#  cmd     pid     |||||| time  |   caller\n",
        );
        for k in 0..20_000usize {
            let t = &texts[(k * 31 + k / 7) % texts.len()];
            input.push_str(&format!(" kswapd0-90        5d..1. {:>5}us : {t}\n", k / 3));
        }
        let lines: Vec<&str> = input.lines().collect();
        let first = Line {
            no: 1,
            text: lines[0],
            quote: 0,
        };
        let mut slow = Report::start(&first).unwrap();
        for (i, l) in lines.iter().enumerate() {
            let line = Line {
                no: i as u64 + 1,
                text: l,
                quote: 0,
            };
            assert!(slow.feed_line(&line).unwrap());
        }
        let newlines = crate::stream::Newlines::new();
        let mut fast = Report::start(&first).unwrap();
        let bytes = input.as_bytes();
        let (mut no, mut pos, mut runs) = (0u64, 0usize, 0u64);
        while pos < bytes.len() {
            let (n, used) = fast.run(no, &bytes[pos..], &newlines);
            runs += n;
            no += n;
            pos += used;
            if pos == bytes.len() {
                break;
            }
            let end = pos + bytes[pos..].iter().position(|&c| c == b'\n').unwrap();
            no += 1;
            assert!(fast.feed_raw(no, &bytes[pos..end]).unwrap());
            pos = end + 1;
        }
        assert!(runs > 10_000, "{runs}");
        let json = |r: Report| serde_json::to_string(&r.finish().unwrap()).unwrap();
        assert_eq!(json(fast), json(slow));
    }

    #[test]
    fn bad_latency_number() {
        let text = "# tracer: irqsoff\n# latency: x us, #4/4, CPU#0\n";
        let lines = crate::lines::split(text);
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!((e.line, e.column), (2, 12));
    }

    #[test]
    fn tracer_names_in_any_capitalisation() {
        assert_eq!(latency_tracer("IRQSOFF").as_deref(), Some("irqsoff"));
        assert_eq!(latency_tracer(" Wakeup_RT ").as_deref(), Some("wakeup_rt"));
        assert_eq!(
            latency_tracer("preemptirqsoff_hist").as_deref(),
            Some("preemptirqsoff_hist")
        );
        assert_eq!(latency_tracer("function"), None);
        assert_eq!(latency_tracer("nop"), None);
        assert!(is_start("# tracer: PreemptIrqsOff"));
        assert!(is_start("# IRQSOFF latency trace v1.1.5 on 6.1.0"));
    }
}
