//! Ad-hoc whitespace tables: a header line of column names followed by rows
//! of numbers, as people type them into mails (seed 001's
//! `size pristine patched delta`). Also owns the cell grammar shared by the
//! other table parsers: a number with an optional unit (`5008377 us`,
//! `80GB`, `+6.3%`, `1.5x`), kept as printed next to the parsed value.
//!
//! Must stay conservative: it is tried last, and prose or diff lines must not
//! turn into tables.

use crate::document::{BlockBody, Table, TableRow};
use crate::error::ParseError;
use crate::lines::Line;

/// Units recognised after a number, attached (`80GB`) or as the next word
/// (`5008377 us`). Compared case-sensitively: `s` is seconds, `S` is not a unit.
pub const UNITS: &[&str] = &[
    "%", "x", "X", "ns", "us", "µs", "usec", "usecs", "ms", "msec", "msecs", "s", "sec", "secs",
    "seconds", "min", "h", "B", "K", "M", "G", "T", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB",
    "TiB", "kB", "k", "ops/s", "op/s", "KB/s", "MB/s", "GB/s", "MiB/s", "GiB/s", "kB/s", "pages",
    "Hz", "KHz", "MHz", "GHz", "/s", "#/s",
];

/// Largest number of columns an ad-hoc table may have; wider lines are prose.
const MAX_COLUMNS: usize = 24;

/// One table cell: the text as printed, the number in it and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub printed: String,
    pub value: Option<f64>,
    pub unit: Option<String>,
}

/// Parse a number with an optional attached unit: `-2%`, `80GB`, `1,234`,
/// `1.5x`, `+0.18%`, `1.2e+08`. `None` when it is not a number.
pub fn parse_number_unit(s: &str) -> Option<(f64, Option<&str>)> {
    let s = s.trim();
    let end = number_prefix_len(s);
    if end == 0 {
        return None;
    }
    let (num, rest) = s.split_at(end);
    let cleaned: String = num.chars().filter(|&c| c != ',' && c != '+').collect();
    let value: f64 = cleaned.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    let rest = rest.trim();
    if rest.is_empty() {
        Some((value, None))
    } else if UNITS.contains(&rest) {
        Some((value, Some(rest)))
    } else {
        None
    }
}

/// Length of the leading `[+-]digits[,digits][.digits][e[+-]digits]` run.
fn number_prefix_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+') | Some(b'-')) {
        i = 1;
    }
    let digits_start = i;
    while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b',' && i > digits_start)) {
        i += 1;
    }
    let mut seen_digit = i > digits_start;
    if i < b.len() && b[i] == b'.' {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > i + 1 {
            seen_digit = true;
            i = j;
        } else if seen_digit {
            // `12.` is still 12.
            i = j;
        }
    }
    if !seen_digit {
        return 0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    // A trailing comma belongs to the prose, not the number.
    while i > digits_start && b.get(i - 1) == Some(&b',') {
        i -= 1;
    }
    i
}

/// Split a row into cells, joining a bare number with a following unit word
/// (`5008377 us` is one cell).
pub fn cells(text: &str) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::new();
    for tok in text.split_whitespace() {
        if UNITS.contains(&tok)
            && let Some(prev) = out.last_mut()
            && prev.value.is_some()
            && prev.unit.is_none()
        {
            prev.printed.push(' ');
            prev.printed.push_str(tok);
            prev.unit = Some(tok.to_string());
            continue;
        }
        let (value, unit) = match parse_number_unit(tok) {
            Some((v, u)) => (Some(v), u.map(str::to_string)),
            None => (None, None),
        };
        out.push(Cell {
            printed: tok.to_string(),
            value,
            unit,
        });
    }
    out
}

fn is_header(text: &str) -> Option<Vec<&str>> {
    let t = text.trim();
    if t.is_empty() || t.ends_with(['.', ':', ',', ';']) {
        return None;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.len() < 2 || words.len() > MAX_COLUMNS {
        return None;
    }
    let ok = words.iter().all(|w| {
        w.chars().count() <= 32
            && w.chars().any(char::is_alphanumeric)
            && parse_number_unit(w).is_none()
            && !w.starts_with(['+', '-', '@', '#', '|', '=', '(', '<', '['])
    });
    ok.then_some(words)
}

/// A data row under a header of `k` columns: `k` cells, or `k + 1` with a
/// leading label. Every cell after the first must be a number.
fn data_row(text: &str, k: usize) -> Option<(Option<String>, Vec<Cell>)> {
    let cs = cells(text);
    if cs.len() == k + 1 {
        let mut it = cs.into_iter();
        let label = it.next()?;
        let rest: Vec<Cell> = it.collect();
        if rest.iter().all(|c| c.value.is_some()) && label.value.is_none() {
            return Some((Some(label.printed), rest));
        }
        return None;
    }
    if cs.len() == k && cs.iter().skip(1).all(|c| c.value.is_some()) {
        return Some((None, cs));
    }
    None
}

/// Header words that name a dimension of the experiment (`size`, `threads`,
/// ...): their column holds row labels, never a variant of its own.
pub const DIMENSIONS: &[&str] = &[
    "size",
    "sizes",
    "threads",
    "thread",
    "nr_threads",
    "nthreads",
    "clients",
    "client",
    "cpus",
    "cpu",
    "nr_cpus",
    "ncpus",
    "tasks",
    "task",
    "nr_tasks",
    "jobs",
    "procs",
    "processes",
    "instances",
    "workers",
    "nodes",
    "node",
    "order",
    "type",
    "test",
    "tests",
    "case",
    "cases",
    "benchmark",
    "workload",
    "config",
    "mode",
    "pattern",
    "name",
    "metric",
    "file",
    "filesize",
    "bs",
    "blocksize",
    "iodepth",
    "memory",
    "mem",
    "pages",
    "nr_pages",
    "length",
    "len",
    "load",
    "scenario",
    "run",
    "iteration",
    "groups",
    "loops",
    "fds",
    "depth",
    "ratio",
    "batch",
];

/// Header words of a column that holds the printed change between the
/// other columns, not a result of its own.
pub const DELTAS: &[&str] = &[
    "delta",
    "diff",
    "change",
    "%change",
    "%",
    "ratio%",
    "gain",
    "speedup",
    "improvement",
    "delta%",
    "diff%",
    "%diff",
    "%delta",
    "chg",
    "+/-",
];

fn is_dimension(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    let w = w.trim_end_matches(':');
    DIMENSIONS.contains(&w)
}

fn is_delta(word: &str) -> bool {
    DELTAS.contains(&word.to_ascii_lowercase().as_str())
}

/// A unit named in parentheses in a title or header: `(#/s)`, `(us)`.
pub fn unit_in_parens(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let close = after.find(')')?;
        let inner = after[..close].trim();
        if UNITS.contains(&inner) && inner != "%" {
            return Some(inner.to_string());
        }
        rest = &after[close + 1..];
    }
    None
}

/// Recognise a header line followed by at least one row of numbers.
///
/// Column roles: a column whose header names a dimension (`size`,
/// `threads`, ...) holds row labels; a column whose header names a delta
/// (`delta`, `%change`, ...) holds the printed change of the column before
/// it relative to the first value column, kept as `printed_deltas_pct` and
/// never a column of its own. Every other column is a result column.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let head = lines.get(start)?;
    let columns = is_header(head.text)?;
    let k = columns.len();
    let mut raw: Vec<(Option<String>, Vec<Cell>)> = Vec::new();
    let mut i = start + 1;
    while let Some(line) = lines.get(i) {
        if line.quote != head.quote {
            break;
        }
        let Some(row) = data_row(line.text, k) else {
            break;
        };
        raw.push(row);
        i += 1;
    }
    if raw.is_empty() {
        return None;
    }
    // Rows of k cells under k headers start with the header's first column.
    let first_is_label = is_dimension(columns[0])
        || raw
            .iter()
            .filter(|(l, _)| l.is_none())
            .all(|(_, cs)| cs.first().is_some_and(|c| c.value.is_none()));
    let any_unlabelled = raw.iter().any(|(l, _)| l.is_none());
    let label_col = any_unlabelled && first_is_label && k >= 2;
    let value_headers: Vec<&str> = if label_col {
        columns[1..].to_vec()
    } else {
        columns.clone()
    };
    let delta_at: Vec<bool> = value_headers.iter().map(|h| is_delta(h)).collect();
    let title = title_above(lines, start);
    let title_unit = title.as_deref().and_then(unit_in_parens);
    let single = raw.len() == 1;
    let mut rows = Vec::new();
    let mut units: Vec<String> = Vec::new();
    for (n, (label, cs)) in raw.into_iter().enumerate() {
        let (label, values): (Option<String>, Vec<Cell>) = match label {
            Some(l) => (Some(l), cs),
            None if label_col => {
                let mut it = cs.into_iter();
                // A number as a label says what it counts: `size=80GB`.
                let l = it.next().map(|c| {
                    if c.value.is_some() {
                        format!("{}={}", columns[0], c.printed)
                    } else {
                        c.printed
                    }
                });
                (l, it.collect())
            }
            None => (None, cs),
        };
        let metric = label.unwrap_or_else(|| match (&title, single) {
            (Some(t), true) => t.clone(),
            _ => format!("row {}", n + 1),
        });
        let mut kept: Vec<Cell> = Vec::new();
        let mut deltas: Vec<Option<f64>> = Vec::new();
        for (j, c) in values.into_iter().enumerate() {
            if delta_at.get(j).copied().unwrap_or(false) {
                // The change of the last result column so far, when it is a
                // change in percent (a `1.09x` speedup is not).
                if let Some(slot) = deltas.last_mut()
                    && !matches!(c.unit.as_deref(), Some("x" | "X"))
                {
                    *slot = c.value;
                }
            } else {
                kept.push(c);
                deltas.push(None);
            }
        }
        let mut row = row_from_cells(metric, &kept);
        if row.unit.is_none() {
            row.unit = title_unit.clone();
        }
        if deltas.iter().any(Option::is_some) {
            row.printed_deltas_pct = deltas;
        }
        units.extend(
            kept.iter()
                .filter_map(|c| c.unit.clone())
                .filter(|u| u != "%"),
        );
        rows.push(row);
    }
    let mut table_unit = units.first().cloned().or(title_unit);
    if units.iter().any(|u| Some(u) != table_unit.as_ref()) {
        table_unit = None;
    }
    let label_columns = if label_col {
        vec![columns[0].to_string()]
    } else {
        Vec::new()
    };
    let delta_columns: Vec<String> = value_headers
        .iter()
        .zip(&delta_at)
        .filter(|(_, d)| **d)
        .map(|(h, _)| h.to_string())
        .collect();
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title,
            columns: value_headers
                .iter()
                .zip(&delta_at)
                .filter(|(_, d)| !**d)
                .map(|(h, _)| h.to_string())
                .collect(),
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            unit: table_unit,
            label_columns,
            delta_columns,
        }),
    )))
}

/// Build a row from cells: values, printed text and the row's main unit
/// (the most frequent non-percent unit, else `%`).
pub fn row_from_cells(metric: String, cs: &[Cell]) -> TableRow {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for u in cs.iter().filter_map(|c| c.unit.as_deref()) {
        match counts.iter_mut().find(|(n, _)| *n == u) {
            Some((_, c)) => *c += 1,
            None => counts.push((u, 1)),
        }
    }
    let unit = counts
        .iter()
        .filter(|(u, _)| *u != "%")
        .max_by_key(|(_, c)| *c)
        .or_else(|| counts.first())
        .map(|(u, _)| u.to_string());
    TableRow {
        stat: None,
        metric,
        values: cs.iter().map(|c| c.value).collect(),
        printed_deltas_pct: Vec::new(),
        spread_pct: Vec::new(),
        printed: cs.iter().map(|c| c.printed.clone()).collect(),
        unit,
    }
}

/// The line that introduces a table (`Throughput of page faults (#/s)
/// with vm-scalability:`), without the colon: the line right above, or
/// one of the three above it in the same paragraph (a command line may sit
/// between the title and the table).
fn title_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let quote = lines.get(start)?.quote;
    for back in 1..=4 {
        let prev = lines.get(start.checked_sub(back)?)?;
        let t = prev.text.trim();
        if prev.quote != quote || t.is_empty() {
            return None;
        }
        if t.chars().count() <= 120
            && let Some(title) = t.strip_suffix(':')
        {
            return Some(title.trim().to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_units() {
        assert_eq!(parse_number_unit("80GB"), Some((80.0, Some("GB"))));
        assert_eq!(parse_number_unit("-2%"), Some((-2.0, Some("%"))));
        assert_eq!(parse_number_unit("+6.3%"), Some((6.3, Some("%"))));
        assert_eq!(parse_number_unit("1.5x"), Some((1.5, Some("x"))));
        assert_eq!(parse_number_unit("1,234,567"), Some((1234567.0, None)));
        assert_eq!(parse_number_unit("1.09e+08"), Some((1.09e8, None)));
        assert_eq!(parse_number_unit("4.8.0-rc5"), None);
        assert_eq!(parse_number_unit("vanilla"), None);
        assert_eq!(parse_number_unit("-"), None);
        assert_eq!(parse_number_unit("."), None);
    }

    #[test]
    fn unit_words_join_their_number() {
        let cs = cells("80GB       5008377 us      4905841 us       -2%");
        let printed: Vec<_> = cs.iter().map(|c| c.printed.as_str()).collect();
        assert_eq!(printed, ["80GB", "5008377 us", "4905841 us", "-2%"]);
    }
}
