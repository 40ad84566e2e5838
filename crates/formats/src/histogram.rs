//! cyclictest histograms (`-h N` on stdout, or the `--histfile` file).
//!
//! Owns the histogram part of a cyclictest block: the `# Histogram` line,
//! one bucket row per latency (`000003 000000\t000017\t...`, one column per
//! thread plus an all-threads column with `-H`), and the footer: `# Total:`,
//! `# Min Latencies:`, `# Avg Latencies:`, `# Max Latencies:`,
//! `# Histogram Overflows:`, `# Histogram Overflow at cycle number:` with its
//! `# Thread N: ...` lists, `# SMIs:`, `# Thread Ids:`, `# Break ...`.
//! Every non-empty bucket of every thread is kept; the text is not.
//!
//! The `T:` lines around a histogram are [`crate::cyclictest`]'s: a
//! histogram followed or preceded by `T:` lines is one cyclictest block, and
//! [`crate::cyclictest::recognize`] drives [`HistogramBuilder`].
//!
//! Format: `print_hist()` in rt-tests `src/cyclictest/cyclictest.c`.

use crate::document::{BlockBody, Histogram, HistogramThread};
use crate::error::ParseError;
use crate::lines::Line;

const FORMAT: &str = "cyclictest";

/// Non-empty buckets a thread keeps one by one; beyond, its buckets from
/// [`EXACT_BUCKETS`] on are merged (see [`coarse_bucket`]).
pub const MAX_EXACT_BUCKETS: usize = 2048;
/// Buckets below this index are never merged.
pub const EXACT_BUCKETS: u64 = 1024;
/// Merged buckets per power of two of the bucket index.
const COARSE_PER_OCTAVE_BITS: u32 = 6;

/// The first bucket index of the merged bucket that holds `index` (at or
/// above [`EXACT_BUCKETS`]): 64 merged buckets per power of two, so a
/// merged bucket is at most 1/64 (1.6 %) of its latency wide and a thread
/// never has more than 1024 + 64 x 54 buckets.
pub fn coarse_bucket(index: u64) -> u64 {
    if index < EXACT_BUCKETS {
        return index;
    }
    let msb = 63 - index.leading_zeros();
    let shift = msb - COARSE_PER_OCTAVE_BITS;
    (index >> shift) << shift
}

/// Accumulates histogram lines; memory is bounded: at most
/// [`MAX_EXACT_BUCKETS`] buckets per thread one by one, then merged ones.
#[derive(Debug, Default)]
pub struct HistogramBuilder {
    /// Non-empty buckets per printed column, `(bucket index, count)`.
    columns: Vec<Vec<(u64, u64)>>,
    /// Per column: buckets from [`EXACT_BUCKETS`] on are merged.
    coarse: Vec<bool>,
    totals: Vec<u64>,
    mins: Vec<u64>,
    avgs: Vec<u64>,
    maxs: Vec<u64>,
    overflows: Vec<u64>,
    overflow_cycles: Vec<Vec<u64>>,
    in_cycle_list: bool,
    seen: bool,
    /// A [`Self::fixed_row`] row after its index with every cell
    /// `000000`, for the current column count (built on first use).
    zero_row: Vec<u8>,
}

/// A short row label (one word, not a number) in front of a footer line.
fn labelled_footer(label: &str, rest: &str) -> bool {
    let label = label.trim();
    let rest = rest.trim_start();
    !label.is_empty()
        && label.len() <= 24
        && !label.contains(char::is_whitespace)
        && !label.starts_with(|c: char| c.is_ascii_digit())
        && [
            "Min Latencies:",
            "Avg Latencies:",
            "Max Latencies:",
            "Histogram Overflows:",
        ]
        .iter()
        .any(|k| rest.starts_with(k))
}

/// Whether `text` (trimmed at the start) opens a histogram.
pub fn is_start(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("# Histogram")
        || t.starts_with("# Total:")
        || t.starts_with("# Min Latencies:")
        || t.starts_with("# Max Latencies:")
}

/// Recognise a cyclictest block that starts with its histogram (`# Histogram`
/// or the footer lines). The body is a [`Cyclictest`] whose `histogram` is
/// set; `T:` lines right after the histogram join the same block.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    if !is_start(first.text) {
        return flat_footer(first);
    }
    crate::cyclictest::recognize(lines, start)
}

/// A footer flattened onto one line, maybe after a run's name and inside
/// Markdown's inline code: `` `vanilla:  Total: 001000000 # Min
/// Latencies: 00007 # Avg Latencies: 00009 # Max Latencies: 02934` ``.
/// Its Min, Avg and Max must all be there; each line is a run.
fn flat_footer(line: &Line<'_>) -> Option<Result<(usize, BlockBody), ParseError>> {
    let t = line.text.trim().trim_matches('`').trim();
    let at = ["Total:", "Min Latencies:"]
        .iter()
        .filter_map(|k| t.find(k))
        .min()?;
    let parts: Vec<&str> = t
        .get(at..)?
        .split('#')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let has = |name: &str| parts.iter().any(|p| p.starts_with(name));
    if !(has("Min Latencies:") && has("Avg Latencies:") && has("Max Latencies:")) {
        return None;
    }
    let mut b = HistogramBuilder::new();
    for p in &parts {
        match b.feed(line.no, &format!("# {p}")) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(Err(e)),
        }
    }
    let histogram = b.finish(1.0)?;
    Some(Ok((
        1,
        BlockBody::Cyclictest(crate::document::Cyclictest {
            threads: Vec::new(),
            histogram: Some(histogram),
            printed_unit: "us".into(),
            cmdline: None,
            rt_tests_version: None,
        }),
    )))
}

impl HistogramBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether any histogram line has been fed.
    /// The `# Min Latencies:` footer values as printed.
    pub fn min_latencies(&self) -> &[u64] {
        &self.mins
    }

    pub fn is_empty(&self) -> bool {
        !self.seen
    }

    /// Footer lines were read but no bucket row yet.
    pub fn footers_only(&self) -> bool {
        self.seen && self.columns.is_empty() && !self.maxs.is_empty()
    }

    /// Bucket rows were read but none of the footers below them yet.
    pub fn rows_only(&self) -> bool {
        !self.columns.is_empty() && self.before_footers()
    }

    /// The `# Histogram` line or rows were read, none of the footers yet.
    pub fn before_footers(&self) -> bool {
        self.seen
            && self.totals.is_empty()
            && self.mins.is_empty()
            && self.avgs.is_empty()
            && self.maxs.is_empty()
    }

    /// Feed one line. `Ok(true)` when it was a histogram line, `Ok(false)`
    /// when it is not one (the caller decides what ends the block).
    pub fn feed(&mut self, no: u64, text: &str) -> Result<bool, ParseError> {
        let t = text.trim();
        // Footers rearranged into a hand-made table keep a row label in
        // front of the `#`: `LNICE(19)\t# Avg Latencies: 00660`.
        let t = match t.split_once('#') {
            Some((label, rest)) if self.seen && labelled_footer(label, rest) => &t[label.len()..],
            _ => t,
        };
        if let Some(h) = t.strip_prefix('#') {
            let h = h.trim_start();
            let known = self.footer(no, text, h)?;
            if known {
                self.seen = true;
            }
            return Ok(known);
        }
        if !self.seen {
            return Ok(false);
        }
        if t.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            self.row(no, text)?;
            return Ok(true);
        }
        Ok(false)
    }

    fn footer(&mut self, no: u64, line: &str, h: &str) -> Result<bool, ParseError> {
        let list = |rest: &str, what: &str| numbers(no, line, rest, what);
        if h == "Histogram" {
            return Ok(true);
        }
        // A footer line this histogram already has is the next run's
        // (`grep Latencies` of several runs pasted one after the other).
        let again = |v: &[u64], name: &str| !v.is_empty() && h.starts_with(name);
        if again(&self.totals, "Total:")
            || again(&self.mins, "Min Latencies:")
            || again(&self.avgs, "Avg Latencies:")
            || again(&self.maxs, "Max Latencies:")
        {
            return Ok(false);
        }
        if let Some(r) = h.strip_prefix("Total:") {
            self.totals = list(r, "bucket totals")?;
        } else if let Some(r) = h.strip_prefix("Min Latencies:") {
            self.mins = side_by_side(no, line, r, "Min Latencies:", "minimum latencies")?;
        } else if let Some(r) = h.strip_prefix("Avg Latencies:") {
            self.avgs = side_by_side(no, line, r, "Avg Latencies:", "average latencies")?;
        } else if let Some(r) = h.strip_prefix("Max Latencies:") {
            self.maxs = side_by_side(no, line, r, "Max Latencies:", "maximum latencies")?;
        } else if let Some(r) = h.strip_prefix("Histogram Overflows:") {
            self.overflows = list(r, "overflow counts")?;
        } else if h.starts_with("Histogram Overflow at cycle number") {
            self.in_cycle_list = true;
        } else if let Some(r) = h.strip_prefix("Thread ") {
            if r.starts_with("Ids:") {
                return Ok(true);
            }
            let Some((n, cycles)) = r.split_once(':') else {
                return Ok(false);
            };
            let Ok(n) = n.trim().parse::<usize>() else {
                return Ok(false);
            };
            // `# 00012 others`: overflows beyond the recorded list.
            let cycles = cycles.split('#').next().unwrap_or("");
            let v = list(cycles, "overflow cycle numbers")?;
            if n < 4096 {
                if self.overflow_cycles.len() <= n {
                    self.overflow_cycles.resize(n + 1, Vec::new());
                }
                self.overflow_cycles[n] = v;
            }
        } else if h.starts_with("SMIs:")
            || h.starts_with("Break thread:")
            || h.starts_with("Break value:")
        {
            return Ok(true);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// `000123 000000\t000004\t000001`: index, then one count per column.
    fn row(&mut self, no: u64, line: &str) -> Result<(), ParseError> {
        self.row_bytes(no, line.as_bytes())
    }

    /// [`Self::row`] on bytes, for the streaming reader. Zero cells (nearly
    /// all of a long histogram) are recognised by their printed form.
    pub(crate) fn row_bytes(&mut self, no: u64, b: &[u8]) -> Result<(), ParseError> {
        self.in_cycle_list = false;
        if self.fixed_row(b) {
            return Ok(());
        }
        let mut i = 0;
        let mut col = 0usize;
        let mut index = 0u64;
        let mut first = true;
        let n = b.len();
        while i < n {
            while i < n && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= n {
                break;
            }
            let st = i;
            if !first
                && b.get(i..i + 6) == Some(b"000000")
                && b.get(i + 6).is_none_or(u8::is_ascii_whitespace)
            {
                i += 6;
                if self.columns.len() <= col {
                    self.add_column(no, b, st, col)?;
                }
                col += 1;
                continue;
            }
            let mut v: u64 = 0;
            while i < n && b[i].is_ascii_digit() {
                v = v.saturating_mul(10).saturating_add(u64::from(b[i] - b'0'));
                i += 1;
            }
            if i == st || (i < n && !b[i].is_ascii_whitespace()) {
                return Err(ParseError::invalid(
                    FORMAT,
                    no,
                    st as u64 + 1,
                    "a histogram bucket count",
                    &String::from_utf8_lossy(b.get(st..).unwrap_or_default()),
                ));
            }
            if first {
                index = v;
                first = false;
                continue;
            }
            if self.columns.len() <= col {
                self.add_column(no, b, st, col)?;
            }
            if v != 0 {
                self.push(col, index, v);
            }
            col += 1;
        }
        Ok(())
    }

    /// [`Self::row_bytes`] for a row in the layout of [`Self::fixed_row`]:
    /// `false` (and nothing changed) for any other line.
    #[inline]
    pub(crate) fn fixed_row_bytes(&mut self, b: &[u8]) -> bool {
        if self.fixed_row(b) {
            self.in_cycle_list = false;
            return true;
        }
        false
    }

    /// The exact `print_hist()` layout (`%06d ` then `%06lu` cells joined by
    /// tabs) with the column count already known: every cell is checked
    /// for `000000` with one word compare. `false` leaves the row to the
    /// general path.
    fn fixed_row(&mut self, b: &[u8]) -> bool {
        let cols = self.columns.len();
        if cols == 0 || b.len() != 7 + 7 * cols - 1 || b[6] != b' ' {
            return false;
        }
        let Some(index) = six_digits(&b[..6]) else {
            return false;
        };
        // Nearly every row of a long histogram is all zero cells: one
        // compare with such a row settles it (a vector `memcmp`).
        if self.zero_row.len() != b.len() - 7 {
            self.zero_row = (0..cols)
                .flat_map(|j| {
                    let sep: &[u8] = if j == 0 { b"" } else { b"\t" };
                    sep.iter().chain(b"000000")
                })
                .copied()
                .collect();
        }
        if b[7..] == self.zero_row[..] {
            return true;
        }
        // One pass checks the layout and whether any cell is not `000000`.
        let mut any = false;
        for j in 0..cols {
            let off = 7 + 7 * j;
            let sep_ok = j + 1 == cols || b[off + 6] == b'\t';
            let w = cell_word(&b[off..off + 6]);
            if !sep_ok || !digits6(w) {
                return false;
            }
            any |= w != ZERO_CELL;
        }
        if any {
            for j in 0..cols {
                let off = 7 + 7 * j;
                let cell = &b[off..off + 6];
                if cell_word(cell) != ZERO_CELL
                    && let Some(v) = six_digits(cell)
                {
                    self.push(j, index, v);
                }
            }
        }
        true
    }

    /// Add a non-empty bucket to column `j`, merging once the column holds
    /// too many.
    #[inline]
    fn push(&mut self, j: usize, index: u64, v: u64) {
        let Some(c) = self.columns.get_mut(j) else {
            return;
        };
        let coarse = self.coarse.get(j).copied().unwrap_or(false);
        if !coarse && c.len() < MAX_EXACT_BUCKETS {
            c.push((index, v));
            return;
        }
        if !coarse {
            merge(c);
            if let Some(f) = self.coarse.get_mut(j) {
                *f = true;
            }
        }
        let b = coarse_bucket(index);
        match c.last_mut() {
            Some(last) if last.0 == b => last.1 = last.1.saturating_add(v),
            Some(last) if last.0 < b => c.push((b, v)),
            _ => match c.binary_search_by_key(&b, |x| x.0) {
                Ok(k) => c[k].1 = c[k].1.saturating_add(v),
                Err(k) => c.insert(k, (b, v)),
            },
        }
    }

    fn add_column(&mut self, no: u64, b: &[u8], st: usize, col: usize) -> Result<(), ParseError> {
        if col >= 4096 {
            return Err(ParseError::invalid(
                FORMAT,
                no,
                st as u64 + 1,
                "at most 4096 histogram columns",
                &String::from_utf8_lossy(b.get(st..).unwrap_or_default()),
            ));
        }
        self.columns.resize_with(col + 1, Vec::new);
        self.coarse.resize(col + 1, false);
        Ok(())
    }

    /// Whether bucket rows are expected now (a `# Histogram` line was seen).
    pub(crate) fn in_rows(&self) -> bool {
        self.seen
    }

    /// The histogram; `bucket_us` is the width of one bucket in us (1, or
    /// 0.001 when cyclictest printed nanoseconds). `None` when nothing
    /// but a `# Histogram` line was seen.
    pub fn finish(self, bucket_us: f64) -> Option<Histogram> {
        if !self.seen {
            return None;
        }
        // `# Min Latencies:` never has the `-H` all-threads column.
        let nthreads = if !self.mins.is_empty() {
            self.mins.len()
        } else if !self.avgs.is_empty() {
            self.avgs.len()
        } else if self.columns.is_empty() {
            // A `# Max Latencies:` line pasted alone.
            self.maxs.len()
        } else {
            self.columns.len()
        };
        let scale = bucket_us;
        let mut per_thread = Vec::with_capacity(nthreads);
        let mut columns = self.columns.into_iter();
        let coarse_from = (EXACT_BUCKETS as f64 * scale).max(0.0);
        for j in 0..nthreads {
            let buckets = columns
                .next()
                .unwrap_or_default()
                .into_iter()
                .map(|(i, c)| (i as f64 * scale, c))
                .collect();
            per_thread.push(HistogramThread {
                thread: j as u32,
                buckets,
                overflows: self.overflows.get(j).copied().unwrap_or(0),
                overflow_cycles: self.overflow_cycles.get(j).cloned().unwrap_or_default(),
                total: self.totals.get(j).copied(),
                min_us: self.mins.get(j).map(|&v| v as f64 * scale),
                avg_us: self.avgs.get(j).map(|&v| v as f64 * scale),
                max_us: self.maxs.get(j).map(|&v| v as f64 * scale),
                coarse_from_us: self
                    .coarse
                    .get(j)
                    .copied()
                    .unwrap_or(false)
                    .then_some(coarse_from),
            });
        }
        if per_thread.is_empty() {
            return None;
        }
        Some(Histogram {
            bucket_us,
            per_thread,
        })
    }
}

/// Merge the buckets of a column from [`EXACT_BUCKETS`] on, keeping order.
fn merge(c: &mut Vec<(u64, u64)>) {
    c.sort_by_key(|x| x.0);
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(c.len().min(4096));
    for &(i, v) in c.iter() {
        let b = coarse_bucket(i);
        match out.last_mut() {
            Some(last) if last.0 == b => last.1 = last.1.saturating_add(v),
            _ => out.push((b, v)),
        }
    }
    *c = out;
}

/// A six-byte cell as the low bytes of a word.
#[inline]
fn cell_word(c: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..6].copy_from_slice(&c[..6]);
    u64::from_le_bytes(w)
}

/// `000000` as a [`cell_word`].
const ZERO_CELL: u64 = 0x0000_3030_3030_3030;

/// Whether the six bytes of a [`cell_word`] are all ASCII digits: each
/// byte is `0x3N` and stays so when 6 is added (no byte carries into the
/// next unless it already failed the first test).
#[inline]
fn digits6(w: u64) -> bool {
    const F0: u64 = 0x0000_f0f0_f0f0_f0f0;
    const SIX: u64 = 0x0000_0606_0606_0606;
    w & F0 == ZERO_CELL && (w + SIX) & F0 == ZERO_CELL
}

fn six_digits(b: &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
    }
    Some(v)
}

/// The values of a footer line, and of the same footer of other runs
/// printed beside it (`# Min Latencies: 00014      # Min Latencies: 00048`):
/// one thread per run, left to right.
fn side_by_side(
    no: u64,
    line: &str,
    rest: &str,
    key: &str,
    what: &str,
) -> Result<Vec<u64>, ParseError> {
    let mut out = Vec::new();
    let mut part = rest;
    while let Some(at) = part.find('#') {
        let Some(next) = part[at + 1..].trim_start().strip_prefix(key) else {
            break;
        };
        out.extend(numbers(no, line, &part[..at], what)?);
        part = next;
    }
    out.extend(numbers(no, line, part, what)?);
    Ok(out)
}

fn numbers(no: u64, line: &str, rest: &str, what: &str) -> Result<Vec<u64>, ParseError> {
    let base = (rest.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    let mut out = Vec::new();
    let mut off = 0;
    for tok in rest.split_whitespace() {
        let pos = rest[off..].find(tok).map_or(off, |p| p + off);
        off = pos + tok.len();
        match tok.parse() {
            Ok(v) => out.push(v),
            Err(_) => {
                return Err(ParseError::invalid(
                    FORMAT,
                    no,
                    (base + pos) as u64 + 1,
                    what,
                    tok,
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_checks_agree_with_the_byte_loop() {
        // Every byte value at every position of a cell.
        for pos in 0..6 {
            for v in 0..=255u8 {
                let mut cell = *b"012345";
                cell[pos] = v;
                let w = cell_word(&cell);
                assert_eq!(digits6(w), six_digits(&cell).is_some(), "{cell:?}");
                assert_eq!(w == ZERO_CELL, &cell == b"000000", "{cell:?}");
            }
        }
        assert!(digits6(ZERO_CELL) && digits6(cell_word(b"999999")));
    }

    #[test]
    fn a_footer_flattened_onto_one_line() {
        let lines = crate::lines::split(
            "` vanilla:  Total: 001000000 # Min Latencies: 00007 # Avg Latencies: 00009 # Max Latencies: 02934`\nrt:Total: 000000010 # Min Latencies: 00001 # Avg Latencies: 00002 # Max Latencies: 00041\n",
        );
        for (i, (total, max)) in [(1_000_000, 2934.0), (10, 41.0)].into_iter().enumerate() {
            let Some(Ok((1, BlockBody::Cyclictest(c)))) = recognize(&lines, i) else {
                panic!("line {i}")
            };
            let h = &c.histogram.unwrap().per_thread[0];
            assert_eq!((h.total, h.max_us), (Some(total), Some(max)));
        }
        // Without all of Min, Avg and Max, or with an unknown part.
        for text in [
            "Total: 001000000 # Min Latencies: 00007 # Max Latencies: 02934",
            "Min Latencies: 7 # Avg Latencies: 9 # Max Latencies: 29 # Apples: 3",
        ] {
            assert!(recognize(&crate::lines::split(text), 0).is_none(), "{text}");
        }
    }

    #[test]
    fn rows_and_footer() {
        let mut h = HistogramBuilder::new();
        let text = "# Histogram\n000000 000000\t000000\n000001 000005\t000000\n000002 000001\t000007\n# Total: 000000006 000000007\n# Min Latencies: 00001 00002\n# Avg Latencies: 00001 00002\n# Max Latencies: 00002 00002\n# Histogram Overflows: 00000 00001\n# Histogram Overflow at cycle number:\n# Thread 0:\n# Thread 1: 00042\n";
        for (i, l) in text.lines().enumerate() {
            assert!(h.feed(i as u64 + 1, l).unwrap(), "{l}");
        }
        let h = h.finish(1.0).unwrap();
        assert_eq!(h.per_thread.len(), 2);
        assert_eq!(h.per_thread[0].buckets, vec![(1.0, 5), (2.0, 1)]);
        assert_eq!(h.per_thread[1].buckets, vec![(2.0, 7)]);
        assert_eq!(h.per_thread[1].overflows, 1);
        assert_eq!(h.per_thread[1].overflow_cycles, vec![42]);
        assert_eq!(h.per_thread[1].total, Some(7));
    }

    #[test]
    fn many_buckets_are_merged_and_counts_kept() {
        let mut h = HistogramBuilder::new();
        h.feed(1, "# Histogram").unwrap();
        let rows = 200_000u64;
        for i in 0..rows {
            // every bucket of thread 0 used, thread 1 only at 5 us
            let c1 = u64::from(i == 5) * 7;
            h.feed(i + 2, &format!("{i:06} {:06}\t{c1:06}", 1)).unwrap();
        }
        let h = h.finish(1.0).unwrap();
        let t0 = &h.per_thread[0];
        assert_eq!(t0.coarse_from_us, Some(1024.0));
        assert!(t0.buckets.len() <= 1024 + 64 * 8, "{}", t0.buckets.len());
        assert_eq!(t0.buckets.iter().map(|b| b.1).sum::<u64>(), rows);
        assert_eq!(t0.buckets[1023], (1023.0, 1));
        // 131072..=199999: merged buckets 2048 wide
        let last = t0.buckets.last().unwrap();
        assert_eq!(last.0, (199_999u64 >> 11 << 11) as f64);
        assert!(t0.buckets.windows(2).all(|w| w[0].0 < w[1].0));
        let t1 = &h.per_thread[1];
        assert_eq!(
            (t1.buckets.clone(), t1.coarse_from_us),
            (vec![(5.0, 7)], None)
        );
    }

    #[test]
    fn coarse_buckets() {
        assert_eq!(coarse_bucket(1023), 1023);
        assert_eq!(coarse_bucket(1024), 1024);
        assert_eq!(coarse_bucket(1039), 1024);
        assert_eq!(coarse_bucket(1040), 1040);
        assert_eq!(coarse_bucket(u64::MAX) >> 57, 127);
    }

    #[test]
    fn bad_row_has_position() {
        let mut h = HistogramBuilder::new();
        h.feed(1, "# Histogram").unwrap();
        let e = h.feed(2, "000001 000005\t00x000").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15));
    }

    #[test]
    fn a_footer_seen_again_is_the_next_run() {
        let mut b = HistogramBuilder::new();
        assert!(b.feed(1, "# Min Latencies: 00060").unwrap());
        assert!(b.feed(2, "# Max Latencies: 224925").unwrap());
        assert!(!b.feed(3, "# Min Latencies: 00020").unwrap());
        assert_eq!(b.min_latencies(), &[60]);
    }
}
