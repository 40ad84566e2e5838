//! The one parse path: an input read in chunks, scanned in bounded windows
//! of lines, long blocks fed line by line to their format's accumulator.
//!
//! Owns how a long input is cut: lines go into a scan window; when it holds
//! [`Limits::window_lines`] lines (or [`Limits::window_bytes`]) it is scanned
//! with [`crate::detect::scan_from`], blocks that end well before its end
//! are final, and the scan goes on from the first block that might still
//! grow, with [`hints::CONTEXT_LINES`] lines above it kept for look-back. A
//! block that fills a whole window and is a latency report or a cyclictest
//! run (the formats that run to millions of lines) is handed over to its
//! streaming accumulator ([`ftrace::Report`], [`cyclictest::Run`]), fed
//! every following line as read until the block ends; any other block that
//! long is cut at the window's end, with a warning. Line numbers are those
//! of the whole input.
//!
//! A mail or thread ([`mail::is_mail`] on the first lines) is read whole,
//! up to [`Limits::max_mail_bytes`]: its quoted-printable and MIME decoding
//! and message splitting work on the whole text, and mails are small.
//!
//! Memory is bounded by the window, the accumulators' bounds and the
//! blocks found ([`crate::MAX_BLOCKS`]), never by the input's length.

use std::io::BufRead;

use crate::detect::{self, Format, Scanned};
use crate::document::{Block, BlockBody, Document, Source, Warning};
use crate::error::{ErrorKind, ParseError};
use crate::hints::{self, HeaderHints};
use crate::lines::{self, Line};
use crate::{MAX_BLOCKS, MAX_LINE_LEN, PARSER_VERSION, cyclictest, ftrace, mail};

/// Bounds of one parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Lines a scan window holds before it is scanned.
    pub window_lines: usize,
    /// Bytes a scan window holds before it is scanned.
    pub window_bytes: usize,
    /// Largest mail or thread, read whole.
    pub max_mail_bytes: u64,
    /// Largest input; `None` for no limit (the CLI).
    pub max_input_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            window_lines: 4096,
            window_bytes: 4 << 20,
            max_mail_bytes: 32 << 20,
            max_input_bytes: None,
        }
    }
}

/// Lines at the end of a window whose blocks wait for the next window (a
/// recognizer may stop short because the lines ran out).
const MARGIN: usize = 256;
/// Lines read before deciding whether the input is a mail (`is_mail`
/// looks at most this far).
const SNIFF_LINES: usize = 5000;
const SNIFF_BYTES: usize = 1 << 20;

/// Parse an input read from `r` in chunks, with bounded memory (see the
/// module doc). `name` labels `source.name` only. Invalid UTF-8 is
/// replaced, not rejected.
pub fn parse_reader<R: BufRead>(
    r: R,
    name: Option<&str>,
    limits: &Limits,
) -> Result<Document, ParseError> {
    let mut feed = Feed {
        limits,
        s: Stream::new(*limits),
        sniff: Some(Vec::new()),
        sniff_bytes: 0,
        mail_text: None,
        bytes: 0,
    };
    let lines = for_each_line(r, &mut feed)?;
    let Feed {
        mut s,
        mut sniff,
        mut mail_text,
        bytes,
        ..
    } = feed;
    if let Some(head) = sniff.take()
        && let Some(m) = decide(head, &mut s)
    {
        mail_text = Some(m);
    }
    if let Some(m) = mail_text {
        let text = crate::mime::decode_text(&m);
        let mut doc = mail::parse(&text, bytes, name)?;
        doc.blocks.iter_mut().for_each(Block::settle_kernel);
        return Ok(doc);
    }
    s.finish(name, bytes, lines)
}

/// What [`parse_reader`] does with each line: the input's byte count and
/// limit, the first lines held until it is known whether the input is a
/// mail, the mail's text, else the scan ([`Stream`]).
struct Feed<'l> {
    limits: &'l Limits,
    s: Stream,
    sniff: Option<Vec<(u64, Vec<u8>)>>,
    sniff_bytes: usize,
    mail_text: Option<Vec<u8>>,
    bytes: u64,
}

impl Feed<'_> {
    /// One line: `no`, its text without the line end, and the bytes it
    /// took in the input.
    #[inline]
    fn line(&mut self, no: u64, line: &[u8], raw_len: usize) -> Result<(), ParseError> {
        let limits = self.limits;
        self.bytes += raw_len as u64;
        if let Some(max) = limits.max_input_bytes
            && self.bytes > max
        {
            return Err(too_large(no, format!("at most {max} bytes of input")));
        }
        if let Some(m) = self.mail_text.as_mut() {
            if self.bytes > limits.max_mail_bytes {
                return Err(too_large(
                    no,
                    format!(
                        "a mail or thread of at most {} bytes",
                        limits.max_mail_bytes
                    ),
                ));
            }
            m.extend_from_slice(line);
            m.push(b'\n');
            return Ok(());
        }
        if let Some(buf) = self.sniff.as_mut() {
            buf.push((no, line.to_vec()));
            self.sniff_bytes += line.len() + 1;
            if buf.len() < SNIFF_LINES && self.sniff_bytes < SNIFF_BYTES {
                return Ok(());
            }
            let head = std::mem::take(buf);
            self.sniff = None;
            if let Some(m) = decide(head, &mut self.s) {
                self.mail_text = Some(m);
            }
            return Ok(());
        }
        self.s.line(no, line)
    }

    /// The lines at the start of `buf` (numbered from `no + 1`) that a
    /// long block's accumulator takes in one go, without the per-line
    /// work of [`Self::line`]: as many as it takes, each as [`Self::line`]
    /// would have fed it. Returns how many lines and bytes were taken.
    #[inline]
    fn run(&mut self, no: u64, buf: &[u8], newlines: &Newlines) -> (u64, usize) {
        if self.mail_text.is_some()
            || self.sniff.is_some()
            || self.s.error.is_some()
            || self.s.diff.inside()
        {
            return (0, 0);
        }
        let Some(a) = self.s.active.as_mut() else {
            return (0, 0);
        };
        // A line that would pass the input limit is left to `line`.
        let room = self.limits.max_input_bytes.map_or(usize::MAX, |max| {
            usize::try_from(max.saturating_sub(self.bytes)).unwrap_or(usize::MAX)
        });
        let buf = &buf[..buf.len().min(room)];
        let (n, used) = a.acc.run(no, buf, newlines);
        if n > 0 {
            a.last_no = no + n;
            self.bytes += used as u64;
        }
        (n, used)
    }
}

/// With the first lines read: the mail's text so far when the input is a
/// mail, else `None` after feeding them to the scan.
fn decide(head: Vec<(u64, Vec<u8>)>, s: &mut Stream) -> Option<Vec<u8>> {
    let mut text = Vec::new();
    for (_, l) in &head {
        text.extend_from_slice(l);
        text.push(b'\n');
    }
    if mail::is_mail(&String::from_utf8_lossy(&text)) {
        return Some(text);
    }
    drop(text);
    for (no, l) in head {
        if let Err(e) = s.line(no, &l) {
            s.error = Some(e);
            break;
        }
    }
    None
}

fn too_large(line: u64, expected: String) -> ParseError {
    ParseError {
        kind: ErrorKind::TooLarge,
        format: "unknown",
        line,
        column: 1,
        expected,
        found: "more".to_string(),
    }
}

/// Call `f(number, line, bytes it took in the input)` for every line of
/// `r` (`\n` or `\r\n`; a last line without one counts), holding at most one
/// line beyond the reader's buffer. A line longer than [`MAX_LINE_LEN`] is
/// an error. Returns the number of lines.
fn for_each_line<R: BufRead>(mut r: R, f: &mut Feed<'_>) -> Result<u64, ParseError> {
    let mut no: u64 = 0;
    let mut carry: Vec<u8> = Vec::new();
    let newlines = Newlines::new();
    let long = |no: u64, len: usize| ParseError {
        kind: ErrorKind::TooLarge,
        format: "unknown",
        line: no,
        column: MAX_LINE_LEN as u64 + 1,
        expected: format!("lines of at most {MAX_LINE_LEN} bytes"),
        found: format!("a line of {len} bytes or more"),
    };
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(ParseError::invalid(
                    "unknown",
                    no + 1,
                    1,
                    "readable input",
                    &e.to_string(),
                ));
            }
        };
        if buf.is_empty() {
            if !carry.is_empty() {
                no += 1;
                let n = carry.len();
                f.line(no, strip_cr(&carry), n)?;
            }
            return Ok(no);
        }
        let len = buf.len();
        let mut pos = 0;
        loop {
            if carry.is_empty() {
                let (n, used) = f.run(no, &buf[pos..], &newlines);
                no += n;
                pos += used;
            }
            let Some(nl) = newlines.find(&buf[pos..]) else {
                break;
            };
            let end = pos + nl;
            no += 1;
            if carry.is_empty() {
                let line = strip_cr(&buf[pos..end]);
                if line.len() > MAX_LINE_LEN {
                    return Err(long(no, line.len()));
                }
                f.line(no, line, end - pos + 1)?;
            } else {
                carry.extend_from_slice(&buf[pos..end]);
                let n = carry.len() + 1;
                let line = strip_cr(&carry);
                if line.len() > MAX_LINE_LEN {
                    return Err(long(no, line.len()));
                }
                f.line(no, line, n)?;
                carry.clear();
            }
            pos = end + 1;
        }
        carry.extend_from_slice(&buf[pos..]);
        if carry.len() > MAX_LINE_LEN + 1 {
            return Err(long(no + 1, carry.len()));
        }
        r.consume(len);
    }
}

#[inline]
pub(crate) fn strip_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// One line of the scan window.
struct Owned {
    no: u64,
    quote: u32,
    text: String,
}

/// A long block being read by its accumulator (one per parse, so the
/// size of the larger variant costs nothing).
#[expect(clippy::large_enum_variant, reason = "one value per parse")]
enum Acc {
    Ftrace(ftrace::Report),
    Cyclictest(cyclictest::Run),
}

impl Acc {
    #[inline]
    fn feed_raw(&mut self, no: u64, b: &[u8]) -> Result<bool, ParseError> {
        match self {
            Acc::Ftrace(r) => r.feed_raw(no, b),
            Acc::Cyclictest(r) => r.feed_raw(no, b),
        }
    }

    /// See [`Feed::run`].
    #[inline]
    fn run(&mut self, no: u64, buf: &[u8], newlines: &Newlines) -> (u64, usize) {
        match self {
            Acc::Ftrace(r) => r.run(no, buf, newlines),
            Acc::Cyclictest(r) => r.run(no, buf, newlines),
        }
    }

    fn feed_line(&mut self, l: &Line<'_>) -> Result<bool, ParseError> {
        match self {
            Acc::Ftrace(r) => r.feed_line(l),
            Acc::Cyclictest(r) => r.feed_line(l),
        }
    }

    fn finish(self) -> Result<Option<BlockBody>, ParseError> {
        match self {
            Acc::Ftrace(r) => r.finish().map(Some),
            Acc::Cyclictest(r) => r.finish(),
        }
    }
}

struct Active {
    acc: Acc,
    /// The block as the window's scan saw it, hints filled; its body is
    /// replaced by the accumulator's at the end.
    scanned: Scanned,
    last_no: u64,
}

struct Stream {
    limits: Limits,
    win: Vec<Owned>,
    win_bytes: usize,
    /// Leading lines of `win` kept as context only (already scanned).
    ctx: usize,
    active: Option<Active>,
    blocks: Vec<Scanned>,
    failures: Vec<ParseError>,
    warnings: Vec<Warning>,
    /// Line number after the last final block (labels are not read above it).
    prev_end_no: u64,
    headers: HeaderHints,
    header_lines: usize,
    first_text: Option<(u64, String)>,
    /// An error found while the first lines were replayed.
    error: Option<ParseError>,
    /// Whether the input is inside a ```` ```diff ```` fence; a long
    /// block's accumulator is then fed the lines with their markers off.
    diff: lines::DiffFence,
}

impl Stream {
    fn new(limits: Limits) -> Self {
        Stream {
            limits,
            win: Vec::new(),
            win_bytes: 0,
            ctx: 0,
            active: None,
            blocks: Vec::new(),
            failures: Vec::new(),
            warnings: Vec::new(),
            prev_end_no: 0,
            headers: HeaderHints::default(),
            header_lines: 0,
            first_text: None,
            error: None,
            diff: lines::DiffFence::default(),
        }
    }

    #[inline]
    fn line(&mut self, no: u64, bytes: &[u8]) -> Result<(), ParseError> {
        if self.error.is_some()
            && let Some(e) = self.error.take()
        {
            return Err(e);
        }
        if let Some(a) = self.active.as_mut() {
            let fed = if self.diff.inside() {
                // Inside a diff fence the accumulator reads each line as
                // the window would: decoded, its marker taken off.
                // The fence moves on only if the line is taken; else the
                // window reads it below, from the same state.
                let raw = crate::mime::decode_line(bytes);
                let (quote, text) = lines::quote_and_text(&raw);
                let mut fence = self.diff.clone();
                let text = fence.strip(quote, text);
                let fed = a.acc.feed_line(&Line { no, text, quote });
                if matches!(fed, Ok(true)) {
                    self.diff = fence;
                }
                fed
            } else {
                a.acc.feed_raw(no, bytes)
            };
            match fed {
                Ok(true) => {
                    a.last_no = no;
                    return Ok(());
                }
                Ok(false) => self.end_active()?,
                Err(e) => {
                    // As in a scan: the claim failed, a warning, and the
                    // scan resumes after the offending line.
                    self.active = None;
                    let bad = e.line;
                    self.failures.push(e);
                    self.prev_end_no = no + 1;
                    if bad >= no {
                        return Ok(());
                    }
                }
            }
        }
        let raw = crate::mime::decode_line(bytes);
        let (quote, text) = lines::quote_and_text(&raw);
        let text = self.diff.strip(quote, text);
        if self.header_lines < hints::HEADER_LINES {
            self.header_lines += 1;
            self.headers.see(&Line { no, text, quote });
        }
        if self.first_text.is_none() && !text.trim().is_empty() {
            self.first_text = Some((no, text.to_string()));
        }
        self.win_bytes += text.len() + 32;
        self.win.push(Owned {
            no,
            quote,
            text: text.to_string(),
        });
        if self.win.len() - self.ctx >= self.limits.window_lines.max(2)
            || self.win_bytes >= self.limits.window_bytes
        {
            self.scan_window(false)?;
        }
        Ok(())
    }

    /// The accumulator's block ended: it is final.
    fn end_active(&mut self) -> Result<(), ParseError> {
        let Some(a) = self.active.take() else {
            return Ok(());
        };
        let mut sc = a.scanned;
        match a.acc.finish() {
            Ok(Some(body)) => {
                sc.block.body = body;
                sc.block.lines[1] = a.last_no;
                self.prev_end_no = a.last_no + 1;
                self.push_block(sc)?;
            }
            Ok(None) => {}
            Err(e) => self.failures.push(e),
        }
        Ok(())
    }

    fn push_block(&mut self, b: Scanned) -> Result<(), ParseError> {
        if self.blocks.len() >= MAX_BLOCKS {
            return Err(crate::too_many_blocks(b.block.lines[0]));
        }
        self.blocks.push(b);
        Ok(())
    }

    /// Scan the window; keep the blocks that are final, hand a long block
    /// to its accumulator, and cut the window.
    fn scan_window(&mut self, at_end: bool) -> Result<(), ParseError> {
        let mut lines: Vec<Line<'_>> = self
            .win
            .iter()
            .map(|l| Line {
                no: l.no,
                text: &l.text,
                quote: l.quote,
            })
            .collect();
        // As in a mail: a quote's blank line written as a lone space stays
        // in the quote (the window's last line is read again in the next).
        lines::requote_blanks(&mut lines);
        let n = lines.len();
        let scan = detect::scan_from(&lines, self.ctx)?;
        // A window cut by its byte budget may hold few lines: the margin
        // never takes more than half of what is new.
        let margin = MARGIN.min(n.saturating_sub(self.ctx) / 2);
        let margin_start = if at_end { n } else { n - margin };
        let mut found = scan.blocks;
        // The first block that might still grow decides where to cut.
        let open = found.iter().position(|b| b.last >= margin_start);
        let mut cut = margin_start;
        let mut stream: Option<Scanned> = None;
        let mut keep = found.len();
        if let Some(k) = open {
            let b = &found[k];
            let first = b.first;
            if first == self.ctx {
                // The block fills the window.
                let touches_end = b.last + 1 >= n;
                if touches_end && streamable(b.format) {
                    keep = k + 1;
                    cut = n;
                    stream = Some(found.swap_remove(k));
                    found.truncate(k);
                } else {
                    if touches_end {
                        self.warnings.push(Warning {
                            line: Some(b.block.lines[1]),
                            message: format!(
                                "lines {}-{}: a {} block longer than {} lines, cut here; the rest is read as another block",
                                b.block.lines[0],
                                b.block.lines[1],
                                b.format.name(),
                                self.limits.window_lines
                            ),
                        });
                    }
                    keep = found
                        .iter()
                        .position(|o| o.first > b.last)
                        .unwrap_or(found.len());
                    cut = b.last + 1;
                }
            } else {
                keep = k;
                cut = first;
            }
        }
        // A claim that failed in the margin may only have run out of lines
        // (a header cut by the window): it is tried again in the next one.
        if stream.is_none()
            && !at_end
            && let Some(fi) = scan
                .failures
                .iter()
                .filter_map(|f| lines.iter().position(|l| l.no == f.line))
                .filter(|&fi| fi >= margin_start && fi > self.ctx && fi < cut)
                .min()
        {
            cut = fi;
            keep = keep.min(
                found
                    .iter()
                    .position(|b| b.last >= fi)
                    .unwrap_or(found.len()),
            );
        }
        found.truncate(keep.min(found.len()));
        let cut_no = lines.get(cut).map_or(u64::MAX, |l| l.no);
        // Hints for the final blocks (and the streamed one) while their
        // context is in the window.
        let prev_end = |no: u64| lines.iter().position(|l| l.no >= no).unwrap_or(n);
        let mut prev = prev_end(self.prev_end_no);
        let headers = [Some(&self.headers)];
        for b in found.iter_mut().chain(stream.iter_mut()) {
            if b.heading.is_none() {
                b.heading = hints::heading_above(&b.block.body, &lines, b.first, prev.min(b.first));
            }
            hints::annotate_block(
                b,
                &lines,
                hints::Bounds {
                    prev_end: prev.min(b.first),
                    floor: 0,
                },
                &headers,
            );
            prev = b.last + 1;
        }
        for f in scan.failures {
            if f.line < cut_no {
                self.failures.push(f);
            }
        }
        for w in scan.unread {
            if w.line.is_some_and(|l| l < cut_no) {
                self.warnings.push(w);
            }
        }
        for b in found {
            self.prev_end_no = b.block.lines[1] + 1;
            if self.blocks.len() >= MAX_BLOCKS {
                return Err(crate::too_many_blocks(b.block.lines[0]));
            }
            self.blocks.push(b);
        }
        if let Some(sc) = stream {
            let mut acc = match sc.format.name() {
                "ftrace" => lines
                    .get(sc.first)
                    .and_then(ftrace::Report::start)
                    .map(Acc::Ftrace),
                _ => lines
                    .get(sc.first)
                    .and_then(|l| cyclictest::Run::start(&lines[..sc.first], l))
                    .map(Acc::Cyclictest),
            };
            if let Some(mut acc) = acc.take() {
                let mut last_no = sc.block.lines[0];
                let mut ended = false;
                for l in &lines[sc.first..] {
                    match acc.feed_line(l) {
                        Ok(true) => last_no = l.no,
                        Ok(false) => {
                            ended = true;
                            break;
                        }
                        Err(e) => {
                            self.failures.push(e);
                            ended = true;
                            break;
                        }
                    }
                }
                if !ended {
                    self.active = Some(Active {
                        acc,
                        scanned: sc,
                        last_no,
                    });
                }
            }
        }
        drop(lines);
        // Keep context above the cut for look-back and hints.
        let keep_from = if self.active.is_some() {
            self.win.len()
        } else {
            cut.saturating_sub(hints::CONTEXT_LINES)
        };
        self.win.drain(..keep_from.min(self.win.len()));
        self.ctx = cut.saturating_sub(keep_from).min(self.win.len());
        self.win_bytes = self.win.iter().map(|l| l.text.len() + 32).sum();
        Ok(())
    }

    fn finish(
        mut self,
        name: Option<&str>,
        bytes: u64,
        lines: u64,
    ) -> Result<Document, ParseError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.active.is_some() {
            self.end_active()?;
        }
        if self.win.len() > self.ctx {
            self.scan_window(true)?;
        }
        if self.blocks.is_empty() {
            if let Some(e) = self.failures.into_iter().next() {
                return Err(e);
            }
            let (no, text) = self.first_text.unwrap_or((0, String::new()));
            return Err(ParseError::unrecognized(detect::looked_for(), no, &text));
        }
        hints::relate(&mut self.blocks);
        hints::heading_labels(&mut self.blocks, &[]);
        let format = match self.blocks.first() {
            Some(s) if self.blocks.iter().all(|o| o.format == s.format) => s.format.name(),
            _ => "text",
        };
        let mut warnings: Vec<Warning> = self.failures.iter().map(Warning::from_error).collect();
        warnings.extend(self.warnings);
        warnings.sort_by_key(|w| w.line);
        let mut blocks: Vec<Block> = self.blocks.into_iter().map(|s| s.block).collect();
        blocks.iter_mut().for_each(Block::settle_kernel);
        Ok(Document {
            source: Source {
                name: name.map(str::to_string),
                format: format.to_string(),
                bytes,
                lines,
                parser_version: PARSER_VERSION.to_string(),
            },
            context: None,
            blocks,
            warnings,
        })
    }
}

/// Formats whose blocks run to millions of lines and have an accumulator.
fn streamable(f: Format) -> bool {
    matches!(f.name(), "ftrace" | "cyclictest" | "cyclictest_histogram")
}

/// The newline search of [`for_each_line`], one call per line: on x86-64
/// with AVX2 the `memchr` crate's vector routine itself, without the
/// dispatch through a function pointer that `memchr::memchr` takes on
/// every call; else `memchr::memchr`.
#[derive(Clone, Copy)]
pub(crate) struct Newlines {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::One>,
}

impl Newlines {
    pub(crate) fn new() -> Self {
        Newlines {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::One::new(b'\n'),
        }
    }

    /// Position of the first `\n` in `hay`.
    #[inline]
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = &self.avx2 {
            return one.find(hay);
        }
        find_newline(hay)
    }
}

/// Position of the first `\n` (SIMD `memchr`): line splitting is a large
/// part of the work for the plain event lines of a huge trace.
#[inline]
pub(crate) fn find_newline(hay: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', hay)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report pasted in a ```` ```diff ```` fence (its lines marked ` `,
    /// `-` and `+`) reads as the report itself, also when it is longer
    /// than the window and its accumulator reads it.
    #[test]
    fn long_block_in_a_diff_fence() {
        let report = include_str!("../tests/corpus/ftrace/docs-irqsoff-function-elided.txt");
        let mut fenced = String::from("Before and after:\n\n```diff\n");
        for (i, l) in report.lines().enumerate() {
            let mark = [' ', '-', '+'][i % 3];
            fenced.push(mark);
            fenced.push_str(l);
            fenced.push('\n');
        }
        fenced.push_str("```\n");
        let limits = Limits {
            window_lines: 5,
            ..Default::default()
        };
        let bodies = |text: &str| -> Vec<String> {
            let doc = parse_reader(text.as_bytes(), None, &limits).expect("parses");
            doc.blocks
                .iter()
                .map(|b| serde_json::to_string(&b.body).expect("json"))
                .collect()
        };
        let want = bodies(&format!("Before and after:\n\n```\n{report}```\n"));
        assert_eq!(want.len(), 1);
        assert!(want[0].contains("\"latency_us\""));
        assert_eq!(bodies(&fenced), want);
    }

    /// A quoted reply pasted without its mail headers reads as the mail
    /// does: the quote's blank line a client wrote as a lone space stays
    /// in the quote, so the `perf bench` result under it is not cut off.
    #[test]
    fn lone_space_blank_stays_in_the_quote_without_headers() {
        let mail = include_str!(
            "../tests/real/perf_stat/s19-lore-ZS2ecyCV-acme-perf-bench-pipe-cgroup-switches.txt"
        );
        let body = &mail[mail.find("\n\n").expect("headers end") + 2..];
        assert!(
            body.lines().any(|l| l == " "),
            "the sample keeps its lone space"
        );
        let bench = |text: &str| -> Vec<String> {
            let doc = parse_reader(text.as_bytes(), None, &Limits::default()).expect("parses");
            doc.blocks
                .iter()
                .filter(|b| matches!(&b.body, BlockBody::Metrics(m) if m.tool == "perf-bench"))
                .map(|b| serde_json::to_string(&b.body).expect("json"))
                .collect()
        };
        let got = bench(body);
        assert_eq!(got.len(), 3, "three perf bench runs");
        assert!(got[0].contains("8.2464"), "{}", got[0]);
        assert_eq!(got, bench(mail), "the same block as in the mail");
    }

    #[test]
    fn newline_search() {
        let mut v = vec![b'a'; 100];
        for p in [0, 7, 8, 15, 16, 31, 32, 63, 99] {
            v.iter_mut().for_each(|b| *b = b'a');
            v[p] = b'\n';
            assert_eq!(find_newline(&v), Some(p));
        }
        assert_eq!(find_newline(b"abc"), None);
        let nl = Newlines::new();
        for len in 0..100 {
            let mut v = vec![b'a'; len];
            assert_eq!(nl.find(&v), None);
            for p in 0..len {
                v.iter_mut().for_each(|b| *b = b'a');
                v[p] = b'\n';
                if p + 1 < len {
                    v[len - 1] = b'\n';
                }
                assert_eq!(nl.find(&v), Some(p));
            }
        }
    }
}
