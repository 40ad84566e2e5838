//! mmtests `compare-kernels.sh` output: one or two header lines naming the
//! kernels and variants of each column, then statistic rows
//! (`Amean    System-1      260.53 (  0.00%)      192.98 ( 25.93%)`) or the
//! `User / System / Elapsed` duration rows. Values and the printed deltas
//! are kept exactly as printed; nothing is recomputed.
//!
//! https://github.com/gormanm/mmtests/blob/master/compare-kernels.sh

use crate::document::{BlockBody, Table, TableRow};
use crate::error::ParseError;
use crate::lines::Line;
use crate::plain::parse_number_unit;

const FORMAT: &str = "mmtests";

/// Statistic names compare-kernels prints in the first column. `B`-prefixed
/// ones (`BAmean-99`) and percentile suffixes (`Max-90`) are accepted too.
const STATS: &[&str] = &[
    "Min",
    "Max",
    "Amean",
    "Hmean",
    "Gmean",
    "Stddev",
    "CoeffVar",
    "Range",
    "Median",
    "Mean",
    "BAmean",
    "BHmean",
    "BGmean",
    "BMin",
    "BMax",
    "Percentile",
    "Quartile",
    // Older compare-kernels: `CoeffVar` cut to six letters, quartile rows,
    // and thpscale's `Percentage huge-N`.
    "Coeff",
    "1st-qrtle",
    "2nd-qrtle",
    "3rd-qrtle",
    "Percentage",
    // STREAM's rows: the rate unit stands in the statistic column
    // (`MB/sec copy-16`).
    "MB/sec",
    "GB/sec",
    "KB/sec",
];

/// Row names of the duration block.
const DURATION_ROWS: &[&str] = &["User", "System", "Elapsed"];

/// A duration row as newer compare-kernels prints it (`Duration User`),
/// or as older ones do (`User`): the row name without the prefix.
fn duration_row(label: &str) -> Option<&str> {
    let name = label.strip_prefix("Duration ").unwrap_or(label);
    DURATION_ROWS.contains(&name).then_some(name)
}

/// Rows of the sections compare-kernels prints after the statistics: the
/// duration block and the vmstat `Ops ...` block (`Ops Minor Faults`,
/// `Ops Kswapd pages scanned`, `Ops NUMA hint local faults %`).
fn section_row(label: &str) -> bool {
    duration_row(label).is_some() || label.starts_with("Ops ") || OLD_DURATION_ROWS.contains(&label)
}

fn is_stat(tok: &str) -> bool {
    if STATS.contains(&tok) {
        return true;
    }
    // `Best99%Amean`: the mean of the best 99% of samples (older layout of
    // `BAmean-99`).
    if let Some(rest) = tok.strip_prefix("Best")
        && let Some((pct, base)) = rest.split_once('%')
    {
        return !pct.is_empty() && pct.chars().all(|c| c.is_ascii_digit()) && STATS.contains(&base);
    }
    // `Max-90`, `BAmean-99`, and `Max-90%` as older versions print it.
    let base = match tok.split_once('-') {
        Some((b, n)) => {
            let n = n.strip_suffix('%').unwrap_or(n);
            if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return false;
            }
            b
        }
        None => tok,
    };
    STATS.contains(&base)
}

/// One column of a statistic row: value, printed delta, the cell as printed.
type StatCell = (Option<f64>, Option<f64>, String);

/// A parsed statistic row: stat, metric, and the cells.
type StatRow = (String, String, Vec<StatCell>);

/// `Amean    System-1      260.53 (  0.00%)      192.98 ( 25.93%)`.
fn stat_row(text: &str) -> Option<StatRow> {
    let t = text.trim_start();
    let (stat, rest) = split_word(t)?;
    if !is_stat(stat) {
        return None;
    }
    // The metric may have words of its own (bonnie's `SeqCreate del`):
    // up to three, none a number.
    let rest = rest.trim_start();
    let mut end = split_word(rest)?.0.len();
    for _ in 1..3 {
        let Some((word, _)) = split_word(rest[end..].trim_start()) else {
            break;
        };
        if number_or_nan(word).is_some() || word.starts_with(['(', '*', '<', '#', '!', '^']) {
            break;
        }
        end = rest.len() - rest[end..].trim_start().len() + word.len();
    }
    let (metric, rest) = rest.split_at(end);
    let cols = stat_cells(rest)?;
    let words: Vec<&str> = metric.split_whitespace().collect();
    // Prose may start with a statistic's name (`Max latency was 30 (5%)`):
    // a metric of several words is taken only with compare-kernels' cells,
    // each with its change, the first the baseline's.
    if words.len() > 1
        && (cols[0].1 != Some(0.0) || cols.iter().any(|c| c.1.is_none() && c.0.is_some()))
    {
        return None;
    }
    Some((stat.to_string(), words.join(" "), cols))
}

/// The cells of a statistic row after its names: values, each with the
/// change compare-kernels printed after it (`260.53 (  0.00%)`, `192.98 *
/// 25.93%*`) or without one.
fn stat_cells(mut rest: &str) -> Option<Vec<StatCell>> {
    let mut cols = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let cell_start = rest;
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '(' || c == '*')
            .unwrap_or(rest.len());
        let (tok, after) = rest.split_at(end);
        if !cols.is_empty() && is_annotation(rest) {
            // `... 25934202.02 (   0.02%) <--`: the poster points at a row.
            break;
        }
        let value = number_or_nan(tok)?;
        rest = after.trim_start();
        let mut delta = None;
        // `(  2.23%)`, or `*  -2.74%*` when compare-kernels flags the
        // change as significant.
        let opener = rest.chars().next().filter(|c| matches!(c, '(' | '*'));
        if let Some(open) = opener {
            let close_char = if open == '(' { ')' } else { '*' };
            let inner = rest.get(1..)?;
            let close = inner.find(close_char)?;
            let (pct, after) = inner.split_at(close);
            let pct = pct.trim().strip_suffix('%')?.trim();
            delta = number_or_nan(pct)?;
            rest = after.get(1..).unwrap_or("");
        }
        let printed = cell_start
            .get(..cell_start.len() - rest.len())
            .unwrap_or("")
            .trim_end();
        cols.push((value, delta, printed.to_string()));
    }
    (!cols.is_empty()).then_some(cols)
}

/// `unpack tar            521 ( 0.00%)  551 (-5.44%)`, `Pass 1   55.00 (
/// 0.00%)   62.00 ( 7.00%)`: a row of older compare-kernels without a
/// statistic column. Its label has words; every cell has its change, the
/// first the baseline's `( 0.00%)`.
fn labelled_row(text: &str) -> Option<(String, Vec<StatCell>)> {
    let t = text.trim();
    // The label ends before the first number followed by its change.
    let mut at = 0;
    let cells_at = loop {
        let rest = &t[at..];
        let (tok, after) = split_word(rest)?;
        if number_or_nan(tok).is_some_and(|v| v.is_some())
            && after.trim_start().starts_with(['(', '*'])
        {
            break at;
        }
        at += tok.len();
        at += t[at..].len() - t[at..].trim_start().len();
    };
    let label = t[..cells_at].trim();
    if label.is_empty()
        || !label.chars().any(char::is_alphabetic)
        || label.contains(['(', ')', '=', ':'])
        || label.split_whitespace().count() > 6
        || is_stat(split_word(label)?.0)
    {
        return None;
    }
    let cols = stat_cells(&t[cells_at..])?;
    let baseline = cols.first()?.1 == Some(0.0);
    // compare-kernels prints a change without a `+` (`( 7.00%)`); a
    // hand-made table of `value (+x.xx%)` cells prints the raw change,
    // not compare-kernels' gain, and is read as a plain table.
    let signed = cols.iter().any(|c| c.2.contains('+'));
    // compare-kernels pads its label's words (`System  mean`): one name.
    (baseline && !signed && cols.iter().all(|c| c.1.is_some() || c.0.is_none()))
        .then(|| (label.split_whitespace().collect::<Vec<_>>().join(" "), cols))
}

/// What a poster appends to a row to point at it: `<--`, `<==`, `<-
/// this one`, `# note`, `!!`, `^^^`. Starts with an arrow or a mark, never
/// with a number or a word.
fn is_annotation(rest: &str) -> bool {
    let t = rest.trim_start();
    t.starts_with("<-")
        || t.starts_with("<=")
        || t.starts_with("--")
        || t.starts_with("==")
        || t.starts_with(['#', '!', '^', '\u{2190}'])
}

/// A number, or `Some(None)` for the `nan` / `-nan` mmtests prints for
/// undefined statistics; `None` when it is neither.
fn number_or_nan(tok: &str) -> Option<Option<f64>> {
    if tok
        .trim_start_matches(['-', '+'])
        .eq_ignore_ascii_case("nan")
    {
        return Some(None);
    }
    match parse_number_unit(tok) {
        Some((v, None)) => Some(Some(v)),
        _ => None,
    }
}

fn split_word(t: &str) -> Option<(&str, &str)> {
    if t.is_empty() {
        return None;
    }
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    Some(t.split_at(end))
}

/// A named row: its label, its values, whether they were printed in
/// percent, and the change printed glued to each value (`531.74(+14.3%)`),
/// empty when none was.
type NamedRow = (String, Vec<f64>, bool, Vec<Option<f64>>);

/// `User          473.24       462.40`: a label of words, then only numbers
/// (all plain, or all in percent: `Kswapd efficiency   93%   97%`).
fn named_row(text: &str) -> Option<NamedRow> {
    // A change glued to a value (`531.74(+14.3%)`, a table made by hand in
    // compare-kernels' shape) is cut off its value and kept as the
    // printed change of that cell.
    let mut glued = Vec::new();
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| match crate::plain::glued_change(w) {
            Some((v, change)) => {
                glued.push(crate::plain::paren_change(change));
                v
            }
            None => {
                glued.push(None);
                w
            }
        })
        .collect();
    let value = |w: &str| match parse_number_unit(w) {
        Some((v, None)) => Some((v, false)),
        Some((v, Some("%"))) => Some((v, true)),
        _ => None,
    };
    let first_num = words.iter().position(|w| value(w).is_some())?;
    if first_num == 0 {
        return None;
    }
    let label = words.get(..first_num)?;
    // A label names something: it has a letter, and is not the left side
    // of a sum (`+1934226+1914385)/20.0 = 1927633.75`). Older
    // compare-kernels end some with their unit (`Total Elapsed Time
    // (seconds)`).
    let unit_word = |i: usize, w: &str| i + 1 == label.len() && matches!(w, "(seconds)" | "(ms)");
    if label.iter().enumerate().any(|(i, w)| {
        parse_number_unit(w).is_some() || (w.contains(['(', ')']) && !unit_word(i, w)) || *w == "="
    }) || !label.iter().any(|w| w.chars().any(char::is_alphabetic))
    {
        return None;
    }
    let cells: Vec<(f64, bool)> = words
        .get(first_num..)?
        .iter()
        .map(|w| value(w))
        .collect::<Option<_>>()?;
    let percent = cells.iter().all(|c| c.1);
    if !percent && cells.iter().any(|c| c.1) {
        return None;
    }
    // Newer compare-kernels prints `Duration User`, `Duration System`.
    let label = match label {
        ["Duration", row] if DURATION_ROWS.contains(row) => (*row).to_string(),
        _ => label.join(" "),
    };
    let deltas = match glued.iter().any(Option::is_some) {
        true => glued[first_num..].to_vec(),
        false => Vec::new(),
    };
    Some((
        label,
        cells.into_iter().map(|c| c.0).collect(),
        percent,
        deltas,
    ))
}

/// The duration block's rows as older compare-kernels printed them under
/// `MMTests Statistics: duration`.
const OLD_DURATION_ROWS: &[&str] = &[
    "User/Sys Time Running Test (seconds)",
    "User+Sys Time Running Test (seconds)",
    "Sys Time Running Test (seconds)",
    "User Time Running Test (seconds)",
    "Total Elapsed Time (seconds)",
    "Percentage Time Spent Direct Reclaim",
    "Percentage Time kswapd Awake",
];

/// vmstat rows as compare-kernels printed them before the `Ops ` prefix
/// (`Compaction migrate scanned    20338945.00    18133661.00`), by the
/// start of their names.
const LEGACY_VMSTAT: &[&str] = &[
    "Minor Faults",
    "Major Faults",
    "Swap Ins",
    "Swap Outs",
    "Allocation stalls",
    "Direct pages ",
    "Kswapd ",
    "Page writes ",
    "Page reclaim ",
    "Page rescued ",
    "Sector Reads",
    "Sector Writes",
    "Slabs scanned",
    "THP ",
    "Compaction ",
    "Page migrate ",
    "NUMA ",
    "AutoNUMA ",
    "Percentage direct ",
];

/// Which section of compare-kernels a headerless named row belongs to:
/// `Duration User ...`, `Ops NUMA hint faults ...`, or an older vmstat row
/// without the `Ops` prefix (`vmstat`; read only under an mmtests header).
fn section_of(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    match t.split_whitespace().next()? {
        "Duration" => Some("Duration"),
        _ if OLD_DURATION_ROWS.iter().any(|r| t.starts_with(r)) => Some("Duration"),
        "Ops" => Some("Ops"),
        _ if LEGACY_VMSTAT.iter().any(|p| t.starts_with(p)) => Some("vmstat"),
        _ => None,
    }
}

/// A header line printed after a `==========` rule: `==========\t\tbase  patched`.
fn without_rule(text: &str) -> &str {
    let t = text.trim_start();
    match t.split_once(char::is_whitespace) {
        Some((rule, rest)) if rule.len() >= 3 && rule.chars().all(|c| c == '=') => rest,
        _ => text,
    }
}

/// Lines above a table searched for the column names of a header whose
/// names ran together.
const UNGLUE_LOOKBACK: usize = 80;

/// A variant header whose names ran together (`vanillaresetpcpu-v1r1`,
/// both names too long for their columns): the `n` names, taken from an
/// earlier header of the same mail whose names, joined, spell it.
fn unglue<'a>(glued: &[&str], n: usize, lines: &[Line<'a>], start: usize) -> Option<Vec<&'a str>> {
    let want: String = glued.concat();
    let quote = lines.get(start)?.quote;
    (start.saturating_sub(UNGLUE_LOOKBACK)..start)
        .rev()
        .find_map(|i| {
            let l = lines.get(i).filter(|l| l.quote == quote)?;
            let words: Vec<&'a str> = l.text.split_whitespace().collect();
            (words.len() == n && words.concat() == want).then_some(words)
        })
}

/// Words of a line with the byte range each spans.
fn word_spans(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for w in text.split_whitespace() {
        let Some(off) = text[at..].find(w) else { break };
        out.push((at + off, at + off + w.len(), w));
        at += off + w.len();
    }
    out
}

/// A second header line that names only some columns (`range-mmap_lock-v1`
/// under the second of `v4.15-rc8   v4.15-rc8`, a name too long for the
/// line above): each of its words goes to the column of the upper line it
/// overlaps most, the others get an empty name. `None` unless every word
/// overlaps a column of its own.
fn aligned_under<'a>(upper: &str, lower: &'a str, n: usize) -> Option<Vec<&'a str>> {
    let cols = word_spans(upper);
    if cols.len() != n {
        return None;
    }
    let words = word_spans(lower);
    // One word across the columns (`vanillamm-reclaimcongest-v2r5` under
    // `5.15.0-rc1  5.15.0-rc1`): names that ran together, each ending where
    // its column ends (right-aligned, the last one overflowing its field).
    if let [(a, b, w)] = words[..] {
        let cuts: Vec<usize> = cols[..n - 1]
            .iter()
            .map(|&(_, end, _)| end)
            .filter(|&e| a < e && e < b)
            .collect();
        if n >= 2 && cuts.len() == n - 1 {
            let mut names = Vec::with_capacity(n);
            let mut from = a;
            for c in cuts.into_iter().chain([b]) {
                names.push(w.get(from - a..c - a)?);
                from = c;
            }
            if names.iter().all(|p| p.len() >= 2) {
                return Some(names);
            }
        }
    }
    let mut names = vec![""; n];
    for (a, b, w) in words {
        let (c, overlap) = cols
            .iter()
            .enumerate()
            .map(|(c, &(x, y, _))| (c, b.min(y).saturating_sub(a.max(x))))
            .max_by_key(|&(_, o)| o)?;
        if overlap == 0 || !names[c].is_empty() {
            return None;
        }
        names[c] = w;
    }
    Some(names)
}

/// A header line whose names hold single spaces (`kernel   good   good +
/// series`), split where two or more blanks separate them: the `n` column
/// names, after a one-word name of the label column when there is one.
fn spaced_header(text: &str, n: usize) -> Option<Vec<&str>> {
    let mut names = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .find(|&(i, c)| c == '\t' || (c == ' ' && rest[i + 1..].starts_with([' ', '\t'])))
            .map_or(rest.len(), |(i, _)| i);
        names.push(rest[..end].trim());
        rest = rest[end..].trim_start();
    }
    if !names.iter().any(|w| w.contains(' ')) {
        return None;
    }
    match names.len() {
        k if k == n + 1 && !names[0].contains(' ') => Some(names.split_off(1)),
        k if k == n => Some(names),
        _ => None,
    }
}

/// A header line: words that are not numbers and not a statistic row.
fn header(text: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() || words.len() > 32 {
        return None;
    }
    let first = words.first()?;
    if is_stat(first) || DURATION_ROWS.contains(first) || matches!(*first, "Duration" | "Ops") {
        return None;
    }
    // `1930136+1940725+1907981`: a sum, not a column name.
    let sum = |w: &str| {
        let parts: Vec<&str> = w.split('+').filter(|p| !p.is_empty()).collect();
        parts.len() >= 3 && parts.iter().all(|p| p.parse::<f64>().is_ok())
    };
    // `good + series`: a connector between two words of one name.
    let connector = |i: usize, w: &str| matches!(w, "+" | "&") && i > 0 && i + 1 < words.len();
    let ok = words.iter().enumerate().all(|(i, w)| {
        connector(i, w)
            || (!sum(w)
                && parse_number_unit(w).is_none()
                && !w.contains(['(', ')', '%', ':', ',', '|', '='])
                && !w.ends_with('.')
                && w.chars().any(char::is_alphanumeric))
    });
    ok.then_some(words)
}

/// `     -       nowake`: the upper line of a two-line header that names
/// only some columns, a `-` over the others.
fn partial_header(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.contains(&"-")
        && words.iter().any(|w| *w != "-")
        && header(
            &words
                .iter()
                .filter(|w| **w != "-")
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
        )
        .is_some()
}

/// `MMTests Statistics: duration` right above a section older
/// compare-kernels printed without a header of its own.
fn statistics_title(lines: &[Line<'_>], start: usize) -> Option<String> {
    let prev = lines.get(start.checked_sub(1)?)?;
    let t = prev.text.trim();
    (prev.quote == lines.get(start)?.quote && t.starts_with("MMTests Statistics: "))
        .then(|| t.to_string())
}

/// `3.7   3.7`, `4.14.0  4.14.0`: kernel versions that read as numbers.
fn version_line(text: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let version = |w: &str| {
        let mut parts = w.split('.');
        let major = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        !major.is_empty()
            && major.bytes().all(|b| b.is_ascii_digit())
            && !rest.is_empty()
            && rest
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    (!words.is_empty() && words.len() <= 32 && words.iter().all(|w| version(w))).then_some(words)
}

fn looks_like_kernel(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.')
}

#[derive(Clone, Copy, PartialEq)]
enum RowKind {
    Stat,
    /// A row of older compare-kernels without a statistic column.
    Labelled,
    Named,
}

/// Which kind of row a line is, with its column count.
fn row_kind(text: &str) -> Option<(RowKind, usize)> {
    if let Some((_, _, cols)) = stat_row(text) {
        return Some((RowKind::Stat, cols.len()));
    }
    if let Some((_, cols)) = labelled_row(text) {
        return Some((RowKind::Labelled, cols.len()));
    }
    named_row(text).map(|(_, v, _, _)| (RowKind::Named, v.len()))
}

/// Recognise a compare-kernels table starting at its first header line (or
/// at its first statistic row when printed without headers).
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let same = |i: usize| lines.get(i).filter(|l| l.quote == quote);

    // Work out the header lines and where rows begin.
    let section = section_of(first.text);
    // A kernel line of bare versions (`3.7   3.7`) is a header only over a
    // variant line.
    let h1 = header(without_rule(first.text)).or_else(|| {
        version_line(first.text).filter(|_| same(start + 1).and_then(|l| header(l.text)).is_some())
    });
    let (kernels, variants, rows_at, kind, ncols) = if let Some(h1) = h1 {
        let h2 = same(start + 1)
            .and_then(|l| header(l.text))
            .map(|h2| match h2.len() < h1.len() {
                true => unglue(&h2, h1.len(), lines, start)
                    .or_else(|| {
                        aligned_under(without_rule(first.text), same(start + 1)?.text, h1.len())
                    })
                    .unwrap_or(h2),
                false => h2,
            });
        let two = h2.as_ref().and_then(|h2| {
            let (kind, n) = row_kind(same(start + 2)?.text)?;
            (n == h1.len() && n == h2.len()).then_some((kind, n))
        });
        if let (Some((kind, n)), Some(h2)) = (two, h2) {
            let indent = |t: &str| t.len() - t.trim_start().len();
            let h2_text = same(start + 1).map(|l| l.text).unwrap_or("");
            // Header lines are right-aligned over their columns; a title
            // line starts at the left margin.
            let title_line = indent(without_rule(first.text)) < 4 && indent(h2_text) >= 8;
            // Plain `name value` rows under two lines are compare-kernels'
            // only under kernel names or as its duration / Ops rows; else
            // the upper line is prose (`pagecache pages` over `[base]
            // [diff]` and vmstat counters).
            let named_ok = kind != RowKind::Named
                || h1.iter().all(|w| looks_like_kernel(w))
                || same(start + 2)
                    .and_then(|l| named_row(l.text))
                    .is_some_and(|(label, ..)| section_row(&label));
            if !named_ok {
                return None;
            }
            if !title_line || h1.iter().all(|w| looks_like_kernel(w)) {
                (h1, h2, start + 2, kind, n)
            } else {
                // `autonumabench NUMA01` above `base  patched`: a title
                // line, then the variants; the table starts at the latter.
                return None;
            }
        } else {
            let (kind, n) = row_kind(same(start + 1)?.text)?;
            let h1 = match n == h1.len() {
                true => h1,
                false => spaced_header(without_rule(first.text), n)?,
            };
            // A single header line followed by plain named rows is an ad-hoc
            // table unless the rows are the duration block.
            if kind == RowKind::Named {
                let (label, ..) = named_row(same(start + 1)?.text)?;
                if !section_row(&label) {
                    return None;
                }
            }
            if h1.iter().all(|w| looks_like_kernel(w)) {
                (h1, Vec::new(), start + 1, kind, n)
            } else {
                (Vec::new(), h1, start + 1, kind, n)
            }
        }
    } else if let Some((_, _, cols)) = stat_row(first.text) {
        // Headerless statistic rows are distinctive enough.
        (Vec::new(), Vec::new(), start, RowKind::Stat, cols.len())
    } else {
        // So are `Duration ...` and `Ops ...` sections, headerless.
        section?;
        let (_, values, ..) = named_row(first.text)?;
        (Vec::new(), Vec::new(), start, RowKind::Named, values.len())
    };

    let mut rows = Vec::new();
    let mut i = rows_at;
    while let Some(line) = same(i) {
        match kind {
            RowKind::Stat => {
                let Some((stat, metric, cols)) = stat_row(line.text) else {
                    break;
                };
                if cols.len() != ncols {
                    return Some(Err(ParseError::invalid(
                        FORMAT,
                        line.no,
                        1,
                        format!("{ncols} value columns"),
                        line.text,
                    )));
                }
                rows.push(TableRow {
                    stat: Some(stat),
                    metric,
                    values: cols.iter().map(|c| c.0).collect(),
                    printed_deltas_pct: cols.iter().map(|c| c.1).collect(),
                    spread_pct: Vec::new(),
                    printed: cols.iter().map(|c| c.2.clone()).collect(),
                    unit: None,
                    spread: Vec::new(),
                });
            }
            RowKind::Labelled => {
                let Some((metric, cols)) = labelled_row(line.text) else {
                    break;
                };
                if cols.len() != ncols {
                    break;
                }
                rows.push(TableRow {
                    stat: None,
                    metric,
                    values: cols.iter().map(|c| c.0).collect(),
                    printed_deltas_pct: cols.iter().map(|c| c.1).collect(),
                    printed: cols.iter().map(|c| c.2.clone()).collect(),
                    ..TableRow::default()
                });
            }
            RowKind::Named => {
                if section.is_some() && section_of(line.text) != section {
                    break;
                }
                let Some((label, values, percent, deltas)) = named_row(line.text) else {
                    break;
                };
                if values.len() != ncols {
                    break;
                }
                // `Duration User` and `User` are the same row.
                let metric = duration_row(&label).map(str::to_string).unwrap_or(label);
                rows.push(TableRow {
                    stat: None,
                    metric,
                    values: values.into_iter().map(Some).collect(),
                    printed_deltas_pct: deltas,
                    unit: percent.then(|| "%".to_string()),
                    ..TableRow::default()
                });
            }
        }
        i += 1;
    }
    if rows.is_empty() {
        return None;
    }
    let duration = kind == RowKind::Named
        && rows.iter().all(|r| {
            DURATION_ROWS.contains(&r.metric.as_str())
                || OLD_DURATION_ROWS.contains(&r.metric.as_str())
        });
    // `Ops ...` rows are compare-kernels' own, under a header of variant
    // names (`k6.7  k6.7_patched`) as well as headerless.
    let ops = (section == Some("Ops") && rows_at == start)
        || (kind == RowKind::Named && rows.iter().all(|r| r.metric.starts_with("Ops ")));
    let legacy = section == Some("vmstat") && rows_at == start;
    if kind == RowKind::Named && !duration && !ops && !legacy && kernels.is_empty() {
        return None;
    }
    // A headerless section (`Duration ...`, `Ops ...`, stats under a
    // section name) continues the columns of the header above it.
    let above = match rows_at == start && kernels.is_empty() && variants.is_empty() {
        true => header_above(lines, start, ncols),
        false => None,
    };
    // Older vmstat rows are only told from any label-and-numbers lines by
    // the compare table above them.
    if legacy && above.is_none() {
        return None;
    }
    let header_at = above.as_ref().map(|a| a.2);
    let (kernels, variants) = match above {
        Some((k, v, _)) => (k, v),
        None => (kernels, variants),
    };
    // Without any header the columns are still distinct: named by their
    // position, as the values stand left to right.
    let columns = (0..ncols)
        .map(|c| {
            let k = kernels.get(c).copied().unwrap_or("");
            let v = variants.get(c).copied().unwrap_or("");
            match format!("{k} {v}").trim() {
                "" => format!("column {}", c + 1),
                name => name.to_string(),
            }
        })
        .collect();
    // A header found above, one blank line over its rows, has the title
    // above it (`netperf-udp` over the kernel line).
    let title = if rows_at > start {
        title_above(lines, start)
    } else {
        statistics_title(lines, start)
            .or_else(|| {
                header_at
                    .filter(|&h| h + 3 >= start)
                    .and_then(|h| title_above(lines, h))
            })
            .or_else(|| underlined_title(lines, start))
    };
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: if duration { "duration" } else { "mmtests" }.into(),
            title,
            columns,
            column_kernels: kernels.iter().map(|s| s.to_string()).collect(),
            column_variants: variants.iter().map(|s| s.to_string()).collect(),
            rows,
            unit: None,
            ..Table::default()
        }),
    )))
}

/// The kernel and variant names of a header found above a section, and the
/// index of its first line.
type HeaderAbove<'a> = (Vec<&'a str>, Vec<&'a str>, usize);

/// Lines above a headerless section searched for the header it continues.
const HEADER_LOOKBACK: usize = 80;

/// The kernel and variant lines of the nearest compare-kernels header
/// above `start` with `ncols` columns: a header line directly followed by
/// statistic rows, or by a second header line that is.
fn header_above<'a>(lines: &[Line<'a>], start: usize, ncols: usize) -> Option<HeaderAbove<'a>> {
    let quote = lines.get(start)?.quote;
    let from = start.saturating_sub(HEADER_LOOKBACK);
    let rows_follow = |i: usize| {
        lines
            .get(i)
            .filter(|n| n.quote == quote)
            .and_then(|n| row_kind(n.text))
            .is_some_and(|(_, c)| c == ncols)
    };
    // One blank line may separate the header from its first row, when
    // the header stands over its columns: a line at the left margin above
    // a blank line is the section's title (`autonumabench NUMA02`), and
    // the header is further up.
    let over_columns = |t: &str| {
        let bare = without_rule(t);
        bare.len() != t.len() || bare.len() - bare.trim_start().len() >= 4
    };
    let rows_follow = |i: usize| {
        rows_follow(i)
            || (lines
                .get(i)
                .is_some_and(|n| n.quote == quote && n.text.trim().is_empty())
                && lines.get(i - 1).is_some_and(|h| over_columns(h.text))
                && rows_follow(i + 1))
    };
    for i in (from..start).rev() {
        let Some(l) = lines.get(i).filter(|l| l.quote == quote) else {
            continue;
        };
        let Some(h) = header(without_rule(l.text)).filter(|h| h.len() == ncols) else {
            continue;
        };
        // The last line of a paragraph ("... a machine that had" / "more
        // memory") is prose, not a header: a header line stands after a
        // blank line, a rule or its own kernel line.
        let in_paragraph = i
            .checked_sub(1)
            .and_then(|k| lines.get(k))
            .filter(|k| k.quote == quote && !k.text.trim().is_empty())
            .is_some_and(|k| {
                header(without_rule(k.text)).is_none()
                    && version_line(k.text).is_none()
                    && !partial_header(k.text)
                    && !k
                        .text
                        .trim()
                        .chars()
                        .all(|c| matches!(c, '=' | '-' | ' ' | '\t'))
            });
        if in_paragraph {
            continue;
        }
        if rows_follow(i + 1) {
            // Found from below, the variant line of a two-line header
            // comes first; the kernel line is the one above it.
            let kernels = i
                .checked_sub(1)
                .and_then(|k| lines.get(k))
                .filter(|k| k.quote == quote)
                .and_then(|k| {
                    let names = header(without_rule(k.text)).or_else(|| version_line(k.text))?;
                    // Kernels by their look, or any names set over the
                    // columns as the variants are (`./5.7.0-rc7`).
                    (names.len() == ncols
                        && (names.iter().all(|w| looks_like_kernel(w))
                            || (over_columns(k.text) && over_columns(l.text))))
                    .then_some(names)
                });
            if let Some(k) = kernels {
                return Some((k, h, i - 1));
            }
            return Some(match h.iter().all(|w| looks_like_kernel(w)) {
                true => (h, Vec::new(), i),
                false => (Vec::new(), h, i),
            });
        }
        let second = lines
            .get(i + 1)
            .filter(|n| n.quote == quote)
            .and_then(|n| header(n.text))
            .filter(|h2| h2.len() == ncols);
        if let Some(h2) = second
            && rows_follow(i + 2)
        {
            return Some((h, h2, i));
        }
    }
    None
}

/// The title of a headerless section: an underlined name (`NUMA01` /
/// `=====`), or a short heading line right above it or above a blank line
/// above it (`autonumabench NUMA02`).
fn underlined_title(lines: &[Line<'_>], start: usize) -> Option<String> {
    underlined(lines, start).or_else(|| {
        let above = lines.get(start.checked_sub(1)?)?;
        let at = if above.text.trim().is_empty() {
            start.checked_sub(2)?
        } else {
            start - 1
        };
        let l = lines.get(at)?;
        let t = l.text.trim();
        let standalone = at == 0 || lines.get(at - 1).is_some_and(|p| p.text.trim().is_empty());
        let ok = standalone
            && l.quote == lines.get(start)?.quote
            && !t.is_empty()
            && t.split_whitespace().count() <= 4
            && !t.ends_with(['.', ',', ';', ':', ')'])
            && row_kind(t).is_none()
            && header(t).is_some();
        ok.then(|| t.to_string())
    })
}

fn underlined(lines: &[Line<'_>], start: usize) -> Option<String> {
    let rule = lines.get(start.checked_sub(1)?)?;
    let name = lines.get(start.checked_sub(2)?)?;
    let r = rule.text.trim();
    let n = name.text.trim();
    let ok = r.len() >= 3
        && r.chars().all(|c| c == '=' || c == '-')
        && !n.is_empty()
        && n.split_whitespace().count() <= 4
        && rule.quote == name.quote;
    ok.then(|| n.to_string())
}

/// Words of a caption line that starts its own paragraph right above the
/// headers (`2-socket CascadeLake (40 cores, 80 CPUs HT enabled)`).
const CAPTION_WORDS: usize = 12;

/// A short line right above the headers names the table (`xfsio Time`),
/// and so does a longer caption that starts its own paragraph.
fn title_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let at = start.checked_sub(1)?;
    let prev = lines.get(at)?;
    let t = prev.text.trim();
    let words = t.split_whitespace().count();
    let standalone = at == 0
        || lines
            .get(at - 1)
            .is_some_and(|p| p.quote != prev.quote || p.text.trim().is_empty());
    if prev.quote != lines.get(start)?.quote
        || t.is_empty()
        || words > CAPTION_WORDS
        || (words > 6 && !standalone)
        || t.ends_with(['.', ',', ';', ':'])
        || row_kind(t).is_some()
        || partial_header(t)
    {
        return None;
    }
    Some(t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables a whole text parses into.
    fn tables_of(text: &str) -> Vec<Table> {
        let doc = crate::parse_str(text, None).unwrap();
        doc.blocks
            .into_iter()
            .filter_map(|b| match b.body {
                BlockBody::Table(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// The compare table recognised at `lines[i]`, with the lines it took.
    fn table_at(lines: &[Line<'_>], i: usize) -> (usize, Table) {
        match recognize(lines, i) {
            Some(Ok((n, BlockBody::Table(t)))) => (n, t),
            other => panic!("no table at {i}: {other:?}"),
        }
    }

    #[test]
    fn headerless_sections_continue_the_header_above() {
        let text = "kernbench\n==========\t\tbase                  patched\nAmean     elsp-128      165.09 (   0.00%)      164.78 *   0.19%*\n\nDuration User       41404.28    41375.08\nDuration Elapsed      519.87      518.72\n\nOps NUMA PTE updates     1041416.00      831536.00\n";
        let doc = crate::parse_str(text, None).unwrap();
        let tables: Vec<_> = doc
            .blocks
            .iter()
            .map(|b| match &b.body {
                BlockBody::Table(t) => {
                    (t.style.clone(), t.columns.clone(), t.rows[0].metric.clone())
                }
                other => panic!("{other:?}"),
            })
            .collect();
        let cols = vec!["base".to_string(), "patched".to_string()];
        assert_eq!(
            tables,
            [
                ("mmtests".to_string(), cols.clone(), "elsp-128".to_string()),
                ("duration".to_string(), cols.clone(), "User".to_string()),
                (
                    "mmtests".to_string(),
                    cols,
                    "Ops NUMA PTE updates".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_section_title_above_a_blank_line_is_no_header() {
        let text = "autonumabench NUMA01\n                            base                  patched\nAmean     syst-NUMA01      194.05 (   0.00%)      165.11 *  14.92%*\n\nautonumabench NUMA02\n\nAmean     syst-NUMA02        1.12 (   0.00%)        1.09 *   2.93%*\n";
        let tables = tables_of(text);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[1].columns, vec!["base", "patched"]);
        assert_eq!(tables[1].title.as_deref(), Some("autonumabench NUMA02"));
    }

    #[test]
    fn header_names_with_spaces_are_split_at_wide_gaps() {
        assert_eq!(
            spaced_header(
                "kernel                     good                   good + series",
                2
            ),
            Some(vec!["good", "good + series"])
        );
        assert_eq!(
            spaced_header("good   good + series", 2),
            Some(vec!["good", "good + series"])
        );
        assert_eq!(spaced_header("base   patched", 2), None);
        assert_eq!(spaced_header("a b   c d   e f   g", 2), None);
        let text = "kernel          good              good + series\nHmean     send-64         346.45 (   0.00%)      346.53 (   0.02%)\n";
        let t = &crate::first_body!(text, Table);
        assert_eq!(t.columns, ["good", "good + series"]);
    }

    #[test]
    fn a_signed_change_is_no_compare_kernels_cell() {
        assert!(labelled_row("unpack tar            521 ( 0.00%)  551 (-5.44%)").is_some());
        assert!(
            labelled_row("Kbuild Real time     240.03 (    +0.00%)     241.45 (    +0.59%)")
                .is_none()
        );
        let text = "                     VANILLA      PATCHED\nHugealloc Time median    14642.00 (    +0.00%)   10506.00 (   -28.25%)\nKbuild Real time           240.03 (    +0.00%)     241.45 (    +0.59%)\n";
        let t = &crate::first_body!(text, Table);
        assert_eq!(t.style, "plain");
        assert_eq!(t.rows[0].printed_deltas_pct, vec![Some(0.0), Some(-28.25)]);
    }

    #[test]
    fn a_change_glued_to_a_named_value_is_its_printed_change() {
        let (label, values, percent, deltas) =
            named_row("Elapsed       465.38      531.74(+14.3%)").unwrap();
        assert_eq!(label, "Elapsed");
        assert_eq!(values, vec![465.38, 531.74]);
        assert!(!percent);
        assert_eq!(deltas, vec![None, Some(14.3)]);
        assert!(named_row("User   395.02   456.68").unwrap().3.is_empty());
    }

    #[test]
    fn a_sum_written_out_is_no_table() {
        let text = "before:\n   1930136+1940725+1907981+1947601\n   +1934374+1906614+1912504+1949110\n   +1934226+1914385)/20.0 = 1927633.75\n\nreal\t0m0.728s\nuser\t0m0.009s\nsys\t0m0.192s\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        let kinds: Vec<&str> = doc.blocks.iter().map(|b| b.kind()).collect();
        assert_eq!(kinds, ["time"]);
        assert_eq!(named_row("+1934226+1914385)/20.0 = 1927633.75"), None);
        assert_eq!(named_row("Swap Ins   80   47%"), None);
        assert!(header("1930136+1940725+1907981+1947601").is_none());
        assert!(header("mm-unstable mm-unstable++").is_some());
    }

    #[test]
    fn stat_rows() {
        let (s, m, c) =
            stat_row("Amean    System-8      102.92 (  0.00%)      299.81 (-191.30%)").unwrap();
        assert_eq!((s.as_str(), m.as_str()), ("Amean", "System-8"));
        assert_eq!(
            c,
            vec![
                (Some(102.92), Some(0.0), "102.92 (  0.00%)".to_string()),
                (Some(299.81), Some(-191.3), "299.81 (-191.30%)".to_string())
            ]
        );
        assert!(stat_row("BAmean-99 foo 1.00 (  0.00%)").is_some());
        for stat in [
            "1st-qrtle",
            "Max-90%",
            "Coeff",
            "Best95%Amean",
            "Percentage",
        ] {
            assert!(is_stat(stat), "{stat}");
        }
        for word in ["Best%Amean", "Bestx%Amean", "Max-%", "Maxi", "1st"] {
            assert!(!is_stat(word), "{word}");
        }
        assert!(stat_row("Amean     95     1.00 (  0.00%)    2.00 ( -nan%)").is_some());
        assert!(stat_row("Always here 1").is_none());
        // A trailing mark the poster added is not a column.
        let (_, m, c) = stat_row(
            "Hmean     page_fault1-processes-79      25928742.64 (   0.00%)      25934202.02 (   0.02%) <--",
        )
        .unwrap();
        assert_eq!((m.as_str(), c.len()), ("page_fault1-processes-79", 2));
        assert_eq!(c[1].0, Some(25934202.02));
        assert!(stat_row("Amean     foo  <-- 1.00").is_none());
        let (_, _, c) =
            stat_row("Hmean     4        40110.02 (   0.00%)    39012.44 *  -2.74%*").unwrap();
        assert_eq!(
            c[1],
            (
                Some(39012.44),
                Some(-2.74),
                "39012.44 *  -2.74%*".to_string()
            )
        );
    }

    #[test]
    fn duration_and_ops_sections_under_one_header_line() {
        let text = "                      6.4.0-rc2  6.4.0-rc2-compactfix    6.4.0-rc2-revert\nDuration User        2106.24             2065.61        2047.87\nDuration Elapsed     2693.98             2551.89        2529.83\n\n                  6.4.0-rc2  6.4.0-rc2-compactfix  6.4.0-rc2-revert\nOps Minor Faults  2440289187.00  2356626072.00  2354663705.00\nOps Compact scan efficiency  82.52  62.78  67.35\n";
        let lines = crate::lines::split(text);
        let (n, t) = table_at(&lines, 0);
        assert_eq!((n, t.style.as_str()), (3, "duration"));
        assert_eq!(t.rows[1].metric, "Elapsed");
        assert_eq!(t.column_kernels[2], "6.4.0-rc2-revert");
        let (n, t) = table_at(&lines, 4);
        assert_eq!((n, t.style.as_str()), (3, "mmtests"));
        assert_eq!(t.rows[1].metric, "Ops Compact scan efficiency");
        assert_eq!(t.rows[1].values[1], Some(62.78));
    }

    #[test]
    fn ops_rows_under_a_header_of_variant_names() {
        let text = "                              base        patched\nOps Compaction pages isolated   120.00   118.00\nOps Compact scan efficiency      12.03    14.26\n";
        let lines = crate::lines::split(text);
        let (n, t) = table_at(&lines, 0);
        assert_eq!((n, t.style.as_str()), (3, "mmtests"));
        assert_eq!(t.columns, ["base", "patched"]);
        assert_eq!(t.rows[1].values, [Some(12.03), Some(14.26)]);
        // Named rows other than `Ops ...` under one header line are an
        // ad-hoc table, not compare-kernels'.
        let lines = crate::lines::split("        base   patched\nfoo bar   1.0   2.0\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn rows_of_older_compare_kernels_without_a_statistic_column() {
        // The layout of 2011-2012: labelled rows whose cells all print their
        // change, a header line naming only some columns, and the duration
        // rows under their `MMTests Statistics:` title.
        let text = "                     -       nowake\n      largecopy-vanilla   kswapd-v1r1\nunpack tar       521 ( 0.00%)  551 (-5.44%)\nPass 1         55.00 ( 0.00%)  62.00 ( 7.00%)\nMMTests Statistics: duration\nTotal Elapsed Time (seconds)    1046.66   1273.91\n";
        let tables = tables_of(text);
        assert_eq!(tables.len(), 2, "{tables:?}");
        assert_eq!(tables[0].style, "mmtests");
        assert_eq!(tables[0].title, None);
        assert_eq!(tables[0].columns, ["largecopy-vanilla", "kswapd-v1r1"]);
        assert_eq!(tables[0].rows[1].metric, "Pass 1");
        assert_eq!(
            tables[0].rows[0].printed_deltas_pct,
            [Some(0.0), Some(-5.44)]
        );
        assert_eq!(tables[1].style, "duration");
        assert_eq!(
            tables[1].title.as_deref(),
            Some("MMTests Statistics: duration")
        );
        assert_eq!(tables[1].columns, tables[0].columns);
        assert_eq!(tables[1].rows[0].values, [Some(1046.66), Some(1273.91)]);
        // Without the baseline's `( 0.00%)` such a row is anyone's table.
        assert!(labelled_row("unpack tar   521 ( 1.00%)  551 (-5.44%)").is_none());
        assert!(labelled_row("unpack tar   521  551").is_none());
    }

    #[test]
    fn counters_under_a_prose_line_and_a_header_are_no_compare() {
        let text = "pagecache pages\n\t\t\t[base]\t\t[diff]\nnr_active_file  \t1641    \t3345\nnr_inactive_file        1630    \t4787\n";
        let lines = crate::lines::split(text);
        assert!(recognize(&lines, 0).is_none());
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Counters(c) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks[0].body)
        };
        assert_eq!(c.columns, ["[base]", "[diff]"]);
    }

    #[test]
    fn a_second_header_line_naming_only_the_column_it_stands_under() {
        let text = "           v4.15-rc8   v4.15-rc8\n                    range-mmap_lock-v1\nUser          224.06      224.80\nSystem        176.05      181.01\nElapsed       619.51      801.78\n\n                    v4.15-rc8              v4.15-rc8\n                                  range-mmap_lock-v1\nSystem  mean  9.49 (   0.00%)        9.82 (  -3.49%)\nElapsed mean 22.87 (   0.00%)       30.90 ( -35.12%)\n";
        let tables = tables_of(text);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].style, "duration");
        for t in &tables {
            assert_eq!(t.columns, ["v4.15-rc8", "v4.15-rc8 range-mmap_lock-v1"]);
            assert_eq!(t.column_variants, ["", "range-mmap_lock-v1"]);
        }
        assert_eq!(tables[0].rows[0].metric, "User");
        assert_eq!(tables[1].rows[0].metric, "System mean");
        // Names that ran together are cut where the columns above end.
        assert_eq!(
            aligned_under(
                "                  5.15.0-rc1  5.15.0-rc1",
                "                     vanillamm-reclaimcongest-v2r5",
                2
            ),
            Some(vec!["vanilla", "mm-reclaimcongest-v2r5"])
        );
        // A word under no column is no part of the header.
        assert_eq!(aligned_under("   a   b", "x", 2), None);
        assert_eq!(
            aligned_under("   aaa   bbb", "          bb", 2),
            Some(vec!["", "bb"])
        );
    }

    #[test]
    fn a_kernel_line_of_bare_versions_over_variants() {
        let text = "                 3.7         3.7\n           rc4-clean   rc4-patch\nPage Ins     3581516     2374368\nKswapd efficiency      93%         97%\n";
        let lines = crate::lines::split(text);
        let (n, t) = table_at(&lines, 0);
        assert_eq!(n, 4);
        assert_eq!(t.columns, ["3.7 rc4-clean", "3.7 rc4-patch"]);
        assert_eq!(t.rows[1].values, [Some(93.0), Some(97.0)]);
        assert_eq!(t.rows[1].unit.as_deref(), Some("%"));
        assert_eq!(t.rows[0].unit, None);
        // A line of numbers over rows is no header.
        let lines = crate::lines::split("  3.7   3.7\nPage Ins   35   23\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn a_metric_of_several_words_only_with_compare_kernels_cells() {
        let (stat, metric, cols) =
            stat_row("Hmean     SeqCreate del      26519.88 (   0.00%)    27191.87 (   2.53%)")
                .unwrap();
        assert_eq!((stat.as_str(), metric.as_str()), ("Hmean", "SeqCreate del"));
        assert_eq!(cols[1].1, Some(2.53));
        assert!(stat_row("Max latency was 30 (5%)").is_none());
        assert!(stat_row("Mean time went 30 ( 0.00%) to 40").is_none());
    }

    #[test]
    fn a_header_a_blank_line_over_its_rows_keeps_the_title_above_it() {
        let text = "netperf-udp\n                       ./5.7.0-rc7     ./5.7.0-rc7\n                     without-clamp      with-clamp\n\nHmean     send-64    153.62 (   0.00%)    151.80 *  -1.19%*\n";
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!()
        };
        assert_eq!(t.title.as_deref(), Some("netperf-udp"));
        assert_eq!(t.columns[1], "./5.7.0-rc7 with-clamp");
    }
}
