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
    "%", "x", "X", "×", "ns", "us", "µs", "usec", "usecs", "ms", "msec", "msecs", "s", "sec",
    "secs", "seconds", "min", "h", "B", "K", "M", "G", "T", "KB", "MB", "GB", "TB", "KiB", "MiB",
    "GiB", "TiB", "kB", "kb", "mb", "gb", "k", "ops/s", "op/s", "KB/s", "MB/s", "GB/s", "MiB/s",
    "GiB/s", "kB/s", "pages", "Hz", "KHz", "MHz", "GHz", "/s", "#/s",
];

/// Largest number of columns an ad-hoc table may have; wider lines are prose.
const MAX_COLUMNS: usize = 24;

/// One table cell: the text as printed, the number in it and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub printed: String,
    pub value: Option<f64>,
    pub unit: Option<String>,
    /// `± 2.5%` after the value: the spread in percent, when printed so.
    pub spread_pct: Option<f64>,
    /// `(+88.2%)` after the value: the change the poster printed for it.
    pub delta_pct: Option<f64>,
    /// `1.00 (1.12)`: a bare number in parentheses after the value. A
    /// spread in percent only where the header says so (`baseline(std%)`);
    /// else it may be an absolute deviation (`16327.844 (581.744)`) and
    /// stays in `printed` only.
    pub paren: Option<f64>,
}

/// `(+88.2%)`, `(-3.5%)`: a signed change in parentheses right after a
/// value (a share such as `( 26.11%)` has no sign and is no change).
pub(crate) fn paren_change(tok: &str) -> Option<f64> {
    let inner = tok.strip_prefix('(')?.strip_suffix(')')?;
    if !inner.starts_with(['+', '-']) {
        return None;
    }
    match parse_number_unit(inner)? {
        (v, Some("%")) => Some(v),
        _ => None,
    }
}

/// `531.74(+14.3%)`: a value with its change glued on, as the two tokens
/// it would be with a space between them.
pub(crate) fn glued_change(tok: &str) -> Option<(&str, &str)> {
    let open = tok.find('(').filter(|&i| i > 0)?;
    let (value, change) = tok.split_at(open);
    (parse_number_unit(value).is_some() && paren_change(change).is_some())
        .then_some((value, change))
}

/// A spread printed in parentheses right after a value.
enum ParenSpread {
    /// `(+/- 5.96%)`, hackbench's: marked as a spread, in percent.
    Marked(f64),
    /// `(1.1%)`: unsigned, in percent (a change always has its sign,
    /// `(+88.2%)`).
    Percent(f64),
    /// `(1.12)`, `(0.38)`: unsigned and bare, kept for the header to say
    /// what it is.
    Bare(f64),
}

fn paren_spread(tok: &str) -> Option<ParenSpread> {
    let inner = tok.strip_prefix('(')?.strip_suffix(')')?;
    if let Some(marked) = inner.strip_prefix("+/-") {
        return match parse_number_unit(marked.trim())? {
            (v, Some("%")) => Some(ParenSpread::Marked(v)),
            _ => None,
        };
    }
    if inner.starts_with(['+', '-']) {
        return None;
    }
    match parse_number_unit(inner)? {
        (v, None) if v >= 0.0 => Some(ParenSpread::Bare(v)),
        (v, Some("%")) if v >= 0.0 => Some(ParenSpread::Percent(v)),
        _ => None,
    }
}

/// A header that says its columns' bare parenthesised numbers are spreads
/// in percent (`baseline(std%)`, `compare%( std%)`, `time in sec
/// (%stdev)`).
fn says_std_pct(header: &str) -> bool {
    let h = header.to_ascii_lowercase().replace(' ', "");
    ["std%", "stdev%", "stddev%", "%std"]
        .iter()
        .any(|k| h.contains(k))
}

/// Bare parenthesised numbers as spreads in percent, where the header
/// says they are.
fn paren_as_spread(cs: &mut [Cell]) {
    for c in cs {
        if c.spread_pct.is_none() {
            c.spread_pct = c.paren;
        }
    }
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
    // `12.5±0.3` and `12.5 +- 0.3` are one cell: a value and its spread.
    let mut spaced = text
        .replace("(+/- ", "(+/-")
        .replace('±', " ± ")
        .replace(" +- ", " ± ")
        .replace(" +/- ", " ± ");
    // `1.00 (  1.12)`, `( 0.38 )`: a spread printed inside parentheses with
    // the padding of its field is one token, `(1.12)`.
    while spaced.contains("( ") || spaced.contains(" )") {
        spaced = spaced.replace("( ", "(").replace(" )", ")");
    }
    let mut out: Vec<Cell> = Vec::new();
    let mut toks = spaced
        .split_whitespace()
        .flat_map(|t| match glued_change(t) {
            Some((v, c)) => [Some(v), Some(c)],
            None => [Some(t), None],
        })
        .flatten()
        .peekable();
    while let Some(tok) = toks.next() {
        if tok == "±"
            && let Some(prev) = out.last_mut()
            && prev.value.is_some()
            && let Some(next) = toks.peek().copied()
            && let Some((_, unit)) = parse_number_unit(next)
        {
            prev.printed.push_str(" ± ");
            prev.printed.push_str(next);
            if unit == Some("%") {
                prev.spread_pct = parse_number_unit(next).map(|(v, _)| v);
            }
            toks.next();
            continue;
        }
        if let Some(prev) = out.last_mut()
            && prev.value.is_none()
            && is_meridiem(&prev.printed, tok)
        {
            prev.printed.push(' ');
            prev.printed.push_str(tok);
            continue;
        }
        if let Some(prev) = out.last_mut()
            && prev.value.is_some()
            && prev.delta_pct.is_none()
            && let Some(d) = paren_change(tok)
        {
            prev.printed.push(' ');
            prev.printed.push_str(tok);
            prev.delta_pct = Some(d);
            continue;
        }
        // `0.194   (+/- 5.96%)`, `1.00 (1.12%)`, `1.00 (1.12)`: a spread in
        // parentheses. Only a marked one may follow a printed change.
        if let Some(prev) = out.last_mut()
            && prev.value.is_some()
            && prev.spread_pct.is_none()
            && let Some(spread) = paren_spread(tok)
            && (matches!(spread, ParenSpread::Marked(_))
                || (prev.delta_pct.is_none() && prev.paren.is_none()))
        {
            prev.printed.push(' ');
            prev.printed.push_str(tok);
            match spread {
                ParenSpread::Marked(v) | ParenSpread::Percent(v) => prev.spread_pct = Some(v),
                ParenSpread::Bare(v) => prev.paren = Some(v),
            }
            continue;
        }
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
        // `~4.23`: an approximate value is still the value.
        let bare = tok
            .strip_prefix('~')
            .filter(|r| parse_number_unit(r).is_some())
            .unwrap_or(tok);
        let hms = hms_seconds(tok).map(|v| (v, Some("s")));
        let (value, unit) = match hms
            .or_else(|| parse_number_unit(bare))
            .or_else(|| keyed_rate(tok))
        {
            Some((v, u)) => (Some(v), u.map(str::to_string)),
            None => match clock_seconds(tok) {
                // `22:14` under `Elapsed`: minutes and seconds.
                Some(v) => (Some(v), Some("s".to_string())),
                None => (None, None),
            },
        };
        out.push(Cell {
            printed: tok.to_string(),
            value,
            unit,
            spread_pct: None,
            delta_pct: None,
            paren: None,
        });
    }
    out
}

/// A rate pasted with the tool's key in front (`aggrb=1493.2MB/s`,
/// `bw=491222KB/s`): the value and its unit. Only rates: `bs=4k` or
/// `nr=3` in a row label stay words.
fn keyed_rate(tok: &str) -> Option<(f64, Option<&str>)> {
    let (key, value) = tok.split_once('=')?;
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let (v, unit) = parse_number_unit(value)?;
    unit.filter(|u| u.ends_with("/s") || u.ends_with("/sec"))
        .map(|u| (v, Some(u)))
}

/// `4m41s`, `1h2m3s`, `0m1.234s` (bash's `time` layout in a table cell):
/// seconds. An hour or minute part is required: `41s` is a number with a
/// unit, read as such.
pub fn hms_seconds(tok: &str) -> Option<f64> {
    let body = tok.strip_suffix('s')?;
    if !body.contains(['h', 'm']) || body.ends_with(['h', 'm']) {
        return None;
    }
    crate::time::duration(tok)
}

/// `m:ss`, `h:mm:ss`, `m:ss.ff` (an elapsed time as `time` and people print
/// it) in seconds. The parts after the first are two digits below 60. A
/// zero-padded `08:42:56` is a time of day (sar's row label), not a length.
pub fn clock_seconds(tok: &str) -> Option<f64> {
    let parts: Vec<&str> = tok.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 || (parts.len() == 3 && parts[0].len() == 2) {
        return None;
    }
    let mut total = 0.0;
    for (n, part) in parts.iter().enumerate() {
        let whole = part.split('.').next().unwrap_or("");
        let last = n + 1 == parts.len();
        let ok = !whole.is_empty()
            && whole.bytes().all(|b| b.is_ascii_digit())
            && (n == 0 || whole.len() == 2)
            && (last || !part.contains('.'));
        if !ok {
            return None;
        }
        let v: f64 = part.parse().ok()?;
        if n > 0 && v >= 60.0 {
            return None;
        }
        total = total * 60.0 + v;
    }
    // `3:47.42` is 227.42 as printed, not 227.42000000000002.
    let decimals = tok.rsplit_once('.').map_or(0, |(_, f)| f.len()).min(9) as i32;
    let scale = 10f64.powi(decimals);
    Some((total * scale).round() / scale)
}

fn is_header(text: &str) -> Option<Vec<&str>> {
    let t = text.trim();
    if t.is_empty() || t.ends_with(['.', ':', ',', ';']) {
        return None;
    }
    // `#     Algorithm |       Key |      Encryption |      Decryption`
    // (`cryptsetup benchmark`): a commented header, columns between bars.
    if let Some(body) = t.strip_prefix('#')
        && body.contains('|')
    {
        let names: Vec<&str> = body.split('|').map(str::trim).collect();
        let ok = names.len() >= 3
            && names.len() <= MAX_COLUMNS
            && names.iter().all(|n| {
                !n.is_empty()
                    && n.len() <= 32
                    && n.chars().any(char::is_alphabetic)
                    && n.chars()
                        .all(|c| c.is_alphanumeric() || " /%-_.()".contains(c))
            });
        return ok.then_some(names);
    }
    let words = words_of(t);
    if words.len() < 2 || words.len() > MAX_COLUMNS {
        return None;
    }
    // `thp_defrag: always`: a `key: value` line of a parameter list (an LKP
    // job's `nr_task: 32` under it is not a row).
    if words.len() == 2 && words[0].ends_with(':') {
        return None;
    }
    let ok = words.iter().all(|w| {
        w.chars().count() <= 32
            && w.chars().any(char::is_alphanumeric)
            && parse_number_unit(w).is_none()
            && clock_seconds(w).is_none()
            && !w.starts_with(['+', '-', '@', '#', '|', '=', '(', '<', '[', '/'])
            // Shell, not a header: `cat /proc/$PID/status`.
            && !w.contains('$')
    });
    ok.then_some(words)
}

/// `03:09:31` then `PM`: sar's time of day in a 12-hour locale.
fn is_meridiem(prev: &str, w: &str) -> bool {
    matches!(w, "AM" | "PM")
        && prev.len() == 8
        && prev.split(':').count() == 3
        && prev
            .split(':')
            .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The words of a line, a 12-hour time of day (`03:09:31 PM`) one word.
fn words_of(t: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for w in t.split_whitespace() {
        if let Some(prev) = out.last_mut()
            && is_meridiem(prev, w)
        {
            // Both are slices of `t`: the span from the time to the end of `PM`.
            let from = prev.as_ptr() as usize - t.as_ptr() as usize;
            let to = w.as_ptr() as usize - t.as_ptr() as usize + w.len();
            if let Some(span) = t.get(from..to) {
                *prev = span;
                continue;
            }
        }
        out.push(w);
    }
    out
}

/// A cell printed for "no value": `-`, `-------`, `n/a`, `nan`.
fn is_placeholder(c: &Cell) -> bool {
    let p = c.printed.as_str();
    (!p.is_empty() && p.chars().all(|ch| ch == '-'))
        || p.eq_ignore_ascii_case("n/a")
        || p.eq_ignore_ascii_case("nan")
        || p.eq_ignore_ascii_case("-nan")
        // benchstat's delta when the change is not significant.
        || p == "~"
}

/// A value slot: a number, or a placeholder for a missing one.
fn is_value(c: &Cell) -> bool {
    c.value.is_some() || is_placeholder(c)
}

/// A data row under a header of `k` columns: `k` cells, or `k + 1` with a
/// leading label. Every cell after the first must be a number (or a
/// placeholder such as `-------`), and at least one a number.
/// `numbered`: the header was indented past an unnamed first column, so
/// a whole number there (`1  56.383  54.225` under `  Baseline
/// Patched`) labels the row.
fn data_row(text: &str, k: usize, numbered: bool) -> Option<(Option<String>, Vec<Cell>)> {
    let mut cs = cells(text);
    // A mark the poster set in front of a row to point at it (`** WriteX
    // 429696 ...`, `-> Flush ...`): not a cell.
    if cs.len() > 2
        && matches!(
            cs[0].printed.as_str(),
            "*" | "**" | "***" | "->" | "=>" | "-->" | "==>" | "!!"
        )
        && cs[1].value.is_none()
    {
        cs.remove(0);
    }
    // `+11.9% improvement`: a word saying which way the change goes,
    // after the change itself, is a note on it.
    if cs.len() >= 2
        && cs.last().is_some_and(|c| is_change_note(&c.printed))
        && cs
            .get(cs.len() - 2)
            .is_some_and(|c| c.unit.as_deref() == Some("%") && c.printed.starts_with(['+', '-']))
    {
        cs.pop();
    }
    if cs.len() == k + 1 {
        let mut it = cs.into_iter();
        let label = it.next()?;
        let rest: Vec<Cell> = it.collect();
        let counted =
            numbered && label.unit.is_none() && label.printed.bytes().all(|b| b.is_ascii_digit());
        if rest.iter().all(is_value)
            && rest.iter().any(|c| c.value.is_some())
            && (label.value.is_none() || counted)
        {
            return Some((Some(label.printed), rest));
        }
        return None;
    }
    // The first one or two cells may be labels (`sar -u`: the time, then
    // `all` under `CPU`).
    let lead = leading_labels(&cs).clamp(1, 2);
    if cs.len() == k
        && cs.iter().skip(lead).all(is_value)
        && cs.iter().skip(lead).any(|c| c.value.is_some())
    {
        return Some((None, cs));
    }
    // A label of several words (`and with requested change  22:23  378662`):
    // words without a value, then exactly `k` value cells.
    if cs.len() > k + 1 && cs.len() <= k + MAX_LABEL_WORDS {
        let mut cs = cs;
        let values = cs.split_off(cs.len() - k);
        if values.iter().all(is_value)
            && values.iter().any(|c| c.value.is_some())
            && cs.iter().all(|c| c.value.is_none() && !is_placeholder(c))
            && cs
                .iter()
                .any(|c| c.printed.chars().any(char::is_alphabetic))
        {
            let label: Vec<String> = cs.into_iter().map(|c| c.printed).collect();
            return Some((Some(label.join(" ")), values));
        }
    }
    None
}

/// A word after a printed change that says which way it goes.
fn is_change_note(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().trim_end_matches(['.', ',', ')']),
        "improvement"
            | "regression"
            | "better"
            | "worse"
            | "faster"
            | "slower"
            | "gain"
            | "loss"
            | "drop"
    )
}

#[cfg(test)]
mod clock_tests {
    use super::clock_seconds;

    #[test]
    fn notes_totals_and_mixed_time_units_in_a_spaced_table() {
        let text = "  Lock Name              Before      After     % change\n  shrink_lruvec+0x770   722.84 ms    0         -100% (eliminated)\n        (= lru_note_cost_unlock_irq)\n  lru_add_drain_cpu       1.96 s    917.71 ms  -53%\n\n  Total LRU lock wait    ~4.23 s     ~1.66 s   -61%\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.columns, vec!["Before", "After"]);
        assert_eq!(t.delta_columns, vec!["% change"]);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0].printed_deltas_pct, vec![None, Some(-100.0)]);
        assert_eq!(t.rows[1].values, vec![Some(1960.0), Some(917.71)]);
        assert_eq!(t.rows[1].unit.as_deref(), Some("ms"));
        assert_eq!(t.rows[2].metric, "Total LRU lock wait");
        assert_eq!(t.rows[2].values, vec![Some(4.23), Some(1.66)]);
    }

    #[test]
    fn a_rule_under_the_header_and_a_dimension_column() {
        let text = "test\t\tinstances\tunmodified\trevert\t\tvma\n------------------------------------------\nfaults per sec\t1\t\t393043\t\t395680\t\t389932\nfaults per sec  24\t\t 71405\t\t 81191\t\t 79048\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.columns, vec!["unmodified", "revert", "vma"]);
        assert_eq!(t.rows[0].metric, "faults per sec instances=1");
        assert_eq!(t.rows[1].metric, "faults per sec instances=24");
        assert_eq!(
            t.rows[1].values,
            vec![Some(71405.0), Some(81191.0), Some(79048.0)]
        );
    }

    #[test]
    fn ascii_boxes_and_approximate_cells() {
        let text = "   +-----------+------------+\n   | vmstat    | before | after |\n   +-----------+------------+\n   | pgfault   | 311    | 67    |\n   | pgsteal   | ~386   | 1925  |\n   +-----------+------------+\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.columns, vec!["before", "after"]);
        assert_eq!(t.rows[1].values, vec![Some(386.0), Some(1925.0)]);
        assert_eq!(doc.blocks[0].lines, [1, 6]);
        // A row above a rule is the end of a box, not a header.
        let text =
            "+----+----+\n| testcase | x |\n| | test=a |\n+----+----+\n| machine | 16 threads |\n";
        assert!(crate::parse_str(text, None).is_err());
    }

    #[test]
    fn twelve_hour_times_and_barred_headers() {
        use super::{cells, is_header};
        let c = cells("03:09:32 PM     all     12.77      0.00");
        assert_eq!(c[0].printed, "03:09:32 PM");
        assert_eq!(c.len(), 4);
        assert_eq!(
            is_header("03:09:31 PM     CPU      %usr     %idle"),
            Some(vec!["03:09:31 PM", "CPU", "%usr", "%idle"])
        );
        assert_eq!(
            is_header("#     Algorithm |       Key |      Encryption |      Decryption"),
            Some(vec!["Algorithm", "Key", "Encryption", "Decryption"])
        );
        // An ftrace legend is no header.
        assert_eq!(
            is_header("#              | |       |   ||||      |         |"),
            None
        );
        assert_eq!(
            is_header("#     cmd     pid   ||||| time  |   caller"),
            None
        );
    }

    #[test]
    fn elapsed_but_not_time_of_day() {
        assert_eq!(super::hms_seconds("4m41s"), Some(281.0));
        assert_eq!(super::hms_seconds("1h2m3.5s"), Some(3723.5));
        assert_eq!(super::hms_seconds("0m0.048s"), Some(0.048));
        assert_eq!(super::hms_seconds("41s"), None);
        assert_eq!(super::hms_seconds("4ms"), None);
        assert_eq!(clock_seconds("22:14"), Some(1334.0));
        assert_eq!(clock_seconds("1:23:23.00"), Some(5003.0));
        assert_eq!(clock_seconds("0:16.19"), Some(16.19));
        assert_eq!(clock_seconds("3:47.42"), Some(227.42));
        assert_eq!(clock_seconds("08:42:56"), None);
        assert_eq!(clock_seconds("1:75"), None);
        assert_eq!(clock_seconds("1:5"), None);
        assert_eq!(clock_seconds("a:12"), None);
        assert_eq!(clock_seconds("12"), None);
    }
}

/// How many cells at the start of a row have no value (labels).
fn leading_labels(cs: &[Cell]) -> usize {
    cs.iter()
        .take_while(|c| c.value.is_none() && !is_placeholder(c))
        .count()
}

/// Words a row label may have before its values.
const MAX_LABEL_WORDS: usize = 6;

/// A rule of dashes under a header (`-----   ------  ------`).
fn is_rule_line(text: &str) -> bool {
    let cs: Vec<&str> = text.split_whitespace().collect();
    !cs.is_empty()
        && cs
            .iter()
            .all(|c| c.len() >= 2 && c.chars().all(|ch| ch == '-' || ch == '='))
}

/// Names of cyclictest histogram footer rows.
const FOOTER_ROWS: &[&str] = &[
    "Min Latencies",
    "Avg Latencies",
    "Max Latencies",
    "Histogram Overflows",
    "Total",
];

/// A footer row's name: one of [`FOOTER_ROWS`] (any case), or a
/// percentile row a poster added from the histogram (`99% latencies`).
fn footer_name(name: &str) -> bool {
    if FOOTER_ROWS.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        return true;
    }
    let Some((pct, rest)) = name.split_once('%') else {
        return false;
    };
    !pct.is_empty()
        && pct.parse::<f64>().is_ok_and(|p| (0.0..=100.0).contains(&p))
        && rest.trim().eq_ignore_ascii_case("latencies")
}

/// `  LNICE(-19)    # Avg Latencies: 00191  00122  00089  00066`: a
/// cyclictest footer row, maybe with a row label in front of its `#`; or
/// the same row copied without the `#` (`Min Latencies:    60    61`,
/// `99% latencies: 19044   110`), which then starts the line.
fn footer_row(text: &str) -> Option<(Option<String>, &str, Vec<f64>)> {
    let (before, after) = match text.split_once('#') {
        Some((b, a)) => (b, a),
        None => ("", text),
    };
    let (name, vals) = after.trim_start().split_once(':')?;
    let name = name.trim();
    if !footer_name(name) {
        return None;
    }
    let values: Vec<f64> = vals
        .split_whitespace()
        .map(|w| {
            parse_number_unit(w)
                .filter(|(_, u)| u.is_none())
                .map(|(v, _)| v)
        })
        .collect::<Option<_>>()?;
    if values.is_empty() {
        return None;
    }
    let label = before.trim();
    let label = (!label.is_empty()).then(|| label.to_string());
    Some((label, name, values))
}

/// cyclictest histogram footers rearranged into a hand-made table: a
/// header of names (one per run or kernel), then footer rows with one value
/// per name, maybe labelled in front of the `#` and separated by blank
/// lines. A label names its group of Min / Avg / Max rows.
pub fn footer_table(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let head = lines.get(start)?;
    // Names of one word each (`EEVDF  CFS`), or of several words spaced
    // apart (`latency 0    latency -20`): whichever the first row fits.
    let first_row = lines[start + 1..]
        .iter()
        .take(2)
        .take_while(|l| l.quote == head.quote)
        .find(|l| !l.text.trim().is_empty())
        .and_then(|l| footer_row(l.text))?;
    let columns: Vec<String> = match is_header(head.text) {
        Some(c) if c.len() == first_row.2.len() => c.iter().map(|s| s.to_string()).collect(),
        _ => spaced_header(head.text).filter(|c| c.len() == first_row.2.len())?,
    };
    let k = columns.len();
    let mut found: Vec<(Option<String>, &str, Vec<f64>)> = Vec::new();
    let mut i = start + 1;
    let mut end = i;
    let mut blanks = 0;
    while let Some(line) = lines.get(i).filter(|l| l.quote == head.quote) {
        if line.text.trim().is_empty() {
            blanks += 1;
            if blanks > 1 {
                break;
            }
            i += 1;
            continue;
        }
        blanks = 0;
        match footer_row(line.text) {
            Some(r) if r.2.len() == k => found.push(r),
            _ => break,
        }
        i += 1;
        end = i;
    }
    if found.is_empty() {
        return None;
    }
    // Groups: a row whose name was seen in the current group starts a new one.
    let mut group_of = Vec::with_capacity(found.len());
    let mut group = 0;
    let mut seen: Vec<&str> = Vec::new();
    for (_, name, _) in &found {
        if seen.contains(name) {
            group += 1;
            seen.clear();
        }
        seen.push(name);
        group_of.push(group);
    }
    let labels: Vec<Option<String>> = (0..=group)
        .map(|g| {
            found
                .iter()
                .zip(&group_of)
                .find(|((l, _, _), gg)| **gg == g && l.is_some())
                .and_then(|((l, _, _), _)| l.clone())
        })
        .collect();
    let rows = found
        .iter()
        .zip(&group_of)
        .map(|((_, name, values), g)| {
            let metric = match labels.get(*g).cloned().flatten() {
                Some(l) => format!("{l} {name}"),
                None => (*name).to_string(),
            };
            TableRow {
                metric,
                values: values.iter().map(|v| Some(*v)).collect(),
                ..TableRow::default()
            }
        })
        .collect();
    Some(Ok((
        end - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title: title_above(lines, start),
            columns,
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            // us unless the run used -N, which the table does not say.
            unit: None,
            ..Table::default()
        }),
    )))
}

/// Column names separated by runs of two or more spaces or by tabs
/// (`w/o patch       w/ patch`), for rows whose labels have several words.
fn spaced_header(text: &str) -> Option<Vec<String>> {
    let t = text.trim();
    let names: Vec<String> = wide_segments(t).map(str::to_string).collect();
    let ok = names.len() >= 2
        && names.len() <= MAX_COLUMNS
        && names.iter().all(|n| {
            parse_number_unit(n).is_none()
                && clock_seconds(n).is_none()
                && !is_parenthesised_number(n)
                && !n.ends_with(['.', ':', ','])
        })
        // Tabs are typed between columns, never inside prose: a tab-separated
        // header may have longer names (`bogo ops/s real (After Patch)`);
        // so may the first of three or more, which names the row labels
        // (`number of IPs(x# cache size)  mainline  patched  delta`).
        && names.iter().enumerate().all(|(i, n)| {
            let long = t.contains('\t') || (i == 0 && names.len() >= 3);
            n.split_whitespace().count() <= if long { 6 } else { 4 }
        });
    ok.then_some(names)
}

/// The parts of a line set apart by tabs or by runs of two or more spaces.
pub(crate) fn wide_segments(text: &str) -> impl Iterator<Item = &str> {
    text.split('\t')
        .flat_map(|part| part.split("  "))
        .map(str::trim)
        .filter(|seg| !seg.is_empty())
}

/// `( 26.11%)`: a share printed after a value (stress-ng's `376.06s total
/// time  ( 26.11%)` footer), never a column name.
fn is_parenthesised_number(name: &str) -> bool {
    name.strip_prefix('(')
        .and_then(|n| n.strip_suffix(')'))
        .is_some_and(|n| parse_number_unit(n).is_some())
}

/// A row under a spaced header of `k` columns: the last `k` cells are
/// values, whatever precedes them is the row's label.
fn spaced_row(text: &str, k: usize) -> Option<(Option<String>, Vec<Cell>)> {
    let mut cs = cells(text);
    if cs.len() < k {
        return None;
    }
    // More columns of numbers, set apart by wide gaps, than the header has
    // names (`p4    49    24    37` under `no cache   cache`): a number
    // would be read into the label and every value be one column off.
    // Only a row with cells left for a label can have one.
    if cs.len() > k {
        let segments: Vec<&str> = wide_segments(text).collect();
        let numeric_tail = segments
            .iter()
            .rev()
            .take_while(|seg| {
                let cs = cells(seg);
                !cs.is_empty() && cs.iter().all(is_value) && cs.iter().any(|c| c.value.is_some())
            })
            .count();
        if numeric_tail > k && numeric_tail < segments.len() {
            return None;
        }
    }
    let values = cs.split_off(cs.len() - k);
    if !values.iter().all(is_value) || !values.iter().any(|c| c.value.is_some()) {
        return None;
    }
    if cs.len() > 6
        || (!cs.is_empty()
            && !cs
                .iter()
                .any(|c| c.printed.chars().any(char::is_alphabetic)))
    {
        // A label of more than six cells is prose with numbers at its end;
        // a label of numbers only is a row with too many values.
        return None;
    }
    let label: Vec<String> = cs.into_iter().map(|c| c.printed).collect();
    Some(((!label.is_empty()).then(|| label.join(" ")), values))
}

/// A line holding only the first part of a row label (`RocksDB-readseq
/// (ops/sec)` above `(32-threads)   1.2M   2.4M`).
fn label_line(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.split_whitespace().count() <= 6
        && !t.ends_with(['.', ':', ',', ';'])
        && cells(t).iter().all(|c| c.value.is_none())
}

/// A table under a header whose column names have several words.
fn spaced_table(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let names = spaced_header(head.text)?;
    // The first name may head the row labels: a dimension (`Total memory`
    // over `8GB`, `32GB`), or any name when the rows have one value fewer
    // (`Breakup for 8GB    base    patched`).
    // A caption in parentheses (`(One thread)`, `(192 full threads)`)
    // heads the labels too.
    let dimension = names.len() >= 3
        && (names[0].split_whitespace().last().is_some_and(is_dimension)
            || (names[0].starts_with('(') && names[0].ends_with(')')));
    spaced_rows(lines, start, names.clone(), usize::from(dimension))
        .or_else(|| {
            (names.len() >= 3 && !dimension)
                .then(|| spaced_rows(lines, start, names.clone(), 1))
                .flatten()
        })
        .or_else(|| {
            // Two label columns (`case  load  baseline(std%)  compare%`
            // over `TCP_RR  56-threads  1.00 (1.12)  -0.05 (0.97)`).
            (names.len() >= 4)
                .then(|| spaced_rows(lines, start, names, 2))
                .flatten()
        })
}

/// [`spaced_table`] with the header's first name as the label column's
/// (`labels` of them: the first one or two names head label columns) or as
/// a column of values.
fn spaced_rows(
    lines: &[Line<'_>],
    start: usize,
    names: Vec<String>,
    labels: usize,
) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let label_col = labels > 0;
    // The names joined by a character no key holds: two names never make
    // one key between them.
    let std_pct = says_std_pct(&names.join("|"));
    let (label_columns, columns) = (names[..labels].to_vec(), names[labels..].to_vec());
    let k = columns.len();
    let mut rows = Vec::new();
    let mut pending: Option<String> = None;
    let mut i = start + 1;
    // A dash rule under the header is no row label.
    if lines
        .get(i)
        .is_some_and(|l| l.quote == head.quote && is_rule_line(l.text))
    {
        i += 1;
    }
    // A line of units under the names (`Kpps   Kpps   %` under `mainline
    // patched  delta`), one per column: the values' unit, not a row.
    let mut units_line: Vec<String> = Vec::new();
    if let Some(l) = lines.get(i).filter(|l| l.quote == head.quote) {
        let words: Vec<&str> = l.text.split_whitespace().collect();
        if words.len() == k && words.iter().all(|w| is_unit_word(w)) {
            units_line = words.iter().map(|w| (*w).to_string()).collect();
            i += 1;
        }
    }
    // A header indented past the rows' first cell: a whole number there
    // labels the row (`1   0.194 (+/- 5.96%)   0.400 ...` under
    // `      w/o patch   w/ patch`).
    let indent = if label_col {
        0
    } else {
        head.text.len() - head.text.trim_start().len()
    };
    let row_at = |text: &str| {
        let (number, text) = match numbered_label(text, indent) {
            Some((n, rest)) => (Some(n), rest),
            None => (None, text),
        };
        let text = without_trailing_note(text);
        // A change column the header has no name for (`2666.8  2689.7
        // +0.9%` under `w/o patch  w/ patch`): the last column's change.
        let (text, change) = without_unheaded_change(text, k).unwrap_or((text, None));
        let row = match number {
            Some(n) => spaced_row(text, k)
                .filter(|(label, _)| label.is_none())
                .map(|(_, cs)| (Some(n), cs)),
            None if label_col => labelled_row(text, k),
            None => spaced_row(text, k),
        };
        row.map(|(label, mut cs)| {
            if std_pct {
                paren_as_spread(&mut cs);
            }
            (label, cs, change)
        })
    };
    // The label column's name alone on the line under the header (`grp`).
    let mut label_columns = label_columns;
    if label_columns.is_empty()
        && let Some(l) = lines.get(i).filter(|l| l.quote == head.quote)
        && let t = l.text.trim()
        && !t.is_empty()
        && t.len() <= 12
        && t.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
        && lines.get(i + 1).is_some_and(|n| {
            n.quote == head.quote
                && numbered_label(n.text, indent).is_some()
                && row_at(n.text).is_some()
        })
    {
        label_columns.push(t.to_string());
        i += 1;
    }
    // perf's and people's headers may stand one blank line above the rows.
    if rows.is_empty()
        && lines
            .get(i)
            .is_some_and(|l| l.quote == head.quote && l.text.trim().is_empty())
        && lines
            .get(i + 1)
            .is_some_and(|l| l.quote == head.quote && row_at(l.text).is_some())
    {
        i += 1;
    }
    let mut end = i;
    let mut group = GroupRows::default();
    while let Some(line) = lines.get(i).filter(|l| l.quote == head.quote) {
        if let Some((label, cs, change)) = row_at(line.text) {
            let label = match (pending.take(), label) {
                (Some(p), Some(l)) => Some(format!("{p} {l}")),
                (p, l) => l.or(p),
            };
            // A row without a label is one more of the labelled row's
            // group above it, or named by its place: never by its own
            // first value.
            let metric = group
                .name(label)
                .unwrap_or_else(|| format!("row {}", rows.len() + 1));
            let mut row = row_from_cells(metric, &cs);
            if let Some(c) = change {
                row.printed_deltas_pct.resize(row.values.len(), None);
                if let Some(last) = row.printed_deltas_pct.last_mut() {
                    *last = Some(c);
                }
            }
            rows.push(row);
            i += 1;
            end = i;
            continue;
        }
        // A rule over a totals row (`========   ========` above `System
        // Benchmarks Index Score`) stays in the table.
        if !rows.is_empty()
            && is_rule_line(line.text)
            && lines
                .get(i + 1)
                .is_some_and(|l| l.quote == head.quote && row_at(l.text).is_some())
        {
            i += 1;
            continue;
        }
        let next_is_row = lines
            .get(i + 1)
            .filter(|l| l.quote == head.quote)
            .is_some_and(|l| spaced_row(l.text, k).is_some());
        // A note on a line of its own under a row (`(= lru_note_cost_
        // refault)`) stays in the table.
        if !rows.is_empty() && pending.is_none() && is_word_note(line.text) {
            i += 1;
            continue;
        }
        if pending.is_none() && label_line(line.text) && next_is_row {
            pending = Some(line.text.trim().to_string());
            i += 1;
            continue;
        }
        // A totals row after one blank line stays in the table.
        let totals_next = lines
            .get(i + 1)
            .filter(|l| l.quote == head.quote)
            .is_some_and(|l| totals_row(l.text) && row_at(l.text).is_some());
        if !rows.is_empty() && line.text.trim().is_empty() && totals_next {
            i += 1;
            continue;
        }
        break;
    }
    if rows.is_empty() {
        return None;
    }
    let mut columns = columns;
    // A dimension column after the labels (`instances` over `1`, `24`):
    // whole numbers that say which run a row is, part of its label.
    if label_col
        && columns.len() >= 2
        && is_dimension(&columns[0])
        && rows.iter().all(|r| {
            r.printed
                .first()
                .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
    {
        let dim = columns.remove(0);
        for r in &mut rows {
            let v = r.printed.remove(0);
            r.values.remove(0);
            if !r.spread_pct.is_empty() {
                r.spread_pct.remove(0);
            }
            if !r.printed_deltas_pct.is_empty() {
                r.printed_deltas_pct.remove(0);
            }
            r.metric = format!("{} {dim}={v}", r.metric);
        }
    }
    // The units line's unit for the result columns, when they share one
    // (the delta columns' `%` is theirs).
    let mut result_units = units_line
        .iter()
        .zip(&columns)
        .filter(|(_, c)| !is_delta(c))
        .map(|(u, _)| u.as_str());
    let unit = result_units.next().and_then(|first| {
        let first = first.to_string();
        result_units.all(|u| u == first).then_some(first)
    });
    // A column of the table's own change (`%gain`): its values are the
    // change of the result column before it.
    let mut delta_columns = Vec::new();
    for d in (1..columns.len()).rev() {
        if !is_delta(&columns[d]) {
            continue;
        }
        delta_columns.insert(0, columns.remove(d));
        for r in &mut rows {
            if r.values.len() <= d {
                continue;
            }
            let v = r.values.remove(d);
            if r.printed.len() > d {
                r.printed.remove(d);
            }
            if r.spread_pct.len() > d {
                r.spread_pct.remove(d);
            }
            if r.printed_deltas_pct.len() > d {
                r.printed_deltas_pct.remove(d);
            }
            r.printed_deltas_pct.resize(r.values.len(), None);
            r.printed_deltas_pct[d - 1] = v;
        }
    }
    Some((
        end - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title: title_above(lines, start),
            columns,
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            unit,
            label_columns,
            delta_columns,
            spread_columns: Vec::new(),
        }),
    ))
}

/// A unit printed alone over a column (`Kpps`, `ms`, `%`, `MB/s`).
fn is_unit_word(w: &str) -> bool {
    let w = w.trim_matches(['(', ')', '[', ']']);
    UNITS.contains(&w)
        || (w.len() <= 8
            && ["pps", "bps", "ops", "iops", "/s", "/sec"]
                .iter()
                .any(|s| w.ends_with(s))
            && w.chars().all(|c| c.is_ascii_alphabetic() || c == '/'))
}

/// A row under a header whose first name heads the labels: the last `k`
/// cells are values, the cells before them (one, `8GB` too, or up to six
/// words) the label.
fn labelled_row(text: &str, k: usize) -> Option<(Option<String>, Vec<Cell>)> {
    let mut cs = cells(text);
    if cs.len() <= k || cs.len() > k + 6 {
        return None;
    }
    let values = cs.split_off(cs.len() - k);
    let ok = values.iter().all(is_value)
        && values.iter().any(|c| c.value.is_some())
        && (cs.len() == 1
            || cs
                .iter()
                .any(|c| c.printed.chars().any(char::is_alphabetic)));
    let label: Vec<String> = cs.into_iter().map(|c| c.printed).collect();
    ok.then(|| (Some(label.join(" ")), values))
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
    "core",
    "package",
    "ncpus",
    "tasks",
    "task",
    "nr_tasks",
    "jobs",
    "procs",
    "processes",
    "instances",
    // perf bench sched messaging / hackbench `-g N`: `N  w/o  w/  diff`.
    "groups",
    "group",
    "n",
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
    "group",
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
    "%gain",
    "gain%",
];

fn is_dimension(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    let w = w.trim_end_matches(':');
    DIMENSIONS.contains(&w)
}

fn is_delta(word: &str) -> bool {
    // `% change` is `%change` with a space in it; `change [%]`, `diff
    // (%)` and `delta %` name their unit after the word.
    let w = word.to_ascii_lowercase();
    let w = w
        .strip_suffix("[%]")
        .or_else(|| w.strip_suffix("(%)"))
        .or_else(|| w.strip_suffix(" %"))
        .map_or(w.as_str(), str::trim_end)
        .to_string();
    DELTAS.contains(&w.as_str())
        || (w.starts_with("% ") && DELTAS.contains(&w.replacen(' ', "", 1).as_str()))
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
    if numa_distances(lines, start) {
        return None;
    }
    if let Some(t) = pipe_table(lines, start)
        .or_else(|| bar_table(lines, start))
        .or_else(|| trailing_name_table(lines, start))
    {
        return Some(Ok(t));
    }
    let spaced = || {
        spaced_table(lines, start).map(|(n, mut body)| {
            if let BlockBody::Table(t) = &mut body {
                group_names_above(lines, start, t);
            }
            (n, body)
        })
    };
    match word_table(lines, start) {
        // Names of one word each over rows whose labels have spaces
        // (`Records/s  4.13.0-mm1  ...` over `Mean deviation  690.37 ...`,
        // tab-separated): the word table ends at the first such row, the
        // table of wide gaps reads them all.
        Some(Ok((n, body))) => match spaced() {
            Some((m, longer)) if m > n => Some(Ok((m, longer))),
            _ => Some(Ok((n, body))),
        },
        Some(Err(e)) => Some(Err(e)),
        None => spaced()
            .map(Ok)
            .or_else(|| dimension_table(lines, start).map(Ok))
            .or_else(|| value_list(lines, start).map(Ok)),
    }
}

/// A header that repeats one name over each side (`time in sec
/// (%stdev)   time in sec  (%stdev)`) under a line naming the sides
/// (`base   patched`), one name per result column: the sides name the
/// columns.
fn group_names_above(lines: &[Line<'_>], start: usize, t: &mut Table) {
    let (Some(head), Some(above)) = (
        lines.get(start),
        start.checked_sub(1).and_then(|p| lines.get(p)),
    ) else {
        return;
    };
    let Some(first) = t.columns.first() else {
        return;
    };
    if above.quote != head.quote || head.text.matches(first.as_str()).count() < 2 {
        return;
    }
    let Some(names) = spaced_header(above.text) else {
        return;
    };
    if names.len() == t.columns.len()
        && names
            .iter()
            .all(|n| n.chars().any(char::is_alphabetic) && parse_number_unit(n).is_none())
    {
        t.columns = names;
    }
}

/// `numactl -H`'s distance matrix (`node   0   1` under `node distances:`,
/// then `  0:  10  32` rows) describes the machine; no line of it starts a
/// result.
fn numa_distances(lines: &[Line<'_>], start: usize) -> bool {
    let matrix_line = |t: &str| {
        let mut toks = t.split_whitespace();
        let first = toks.next().unwrap_or("");
        let node = first == "node"
            || first
                .strip_suffix(':')
                .is_some_and(|n| n.parse::<u32>().is_ok());
        node && toks.all(|v| v.parse::<u32>().is_ok())
    };
    let mut i = start;
    while lines.get(i).is_some_and(|l| matrix_line(l.text)) {
        match i.checked_sub(1).and_then(|p| lines.get(p)) {
            Some(above) if above.text.trim() == "node distances:" => return true,
            Some(_) => i -= 1,
            None => return false,
        }
    }
    false
}

/// One row of a list without a header: `perf stat -a   107.887 [sec]`,
/// a label of words, two spaces or more, a number and its unit (in
/// brackets or a word). The label and the unit as printed, and the value.
fn list_row(text: &str) -> Option<(&str, f64, Option<&str>)> {
    let t = text.trim();
    let (rest, unit) = match t.rsplit_once(char::is_whitespace) {
        Some((r, u)) if u.starts_with('[') && u.ends_with(']') => (r.trim_end(), Some(u)),
        _ => (t, None),
    };
    let gap = rest.rfind("  ")?;
    let label = rest[..gap].trim_end();
    let number = rest[gap..].trim();
    let (value, inline_unit) = parse_number_unit(number)?;
    let unit = match (unit, inline_unit) {
        (Some(u), None) => Some(u),
        (None, u) => u,
        (Some(_), Some(_)) => return None,
    };
    let ok = label.chars().any(char::is_alphabetic)
        && label.len() <= 60
        && !label.starts_with(['#', '-', '*', '>', '|'])
        && !label.ends_with([':', '='])
        && !label.contains("  ");
    ok.then_some((label, value, unit))
}

/// A list of [`list_row`]s, at least three in a row with one unit, perhaps
/// with `# section` lines between them (perf bench medians under `#
/// global` / `# per task`): a one-column table, its rows named by their
/// labels, the column by the unit.
fn value_list(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let (_, _, unit) = list_row(head.text)?;
    let mut rows = Vec::new();
    let mut i = start;
    let mut end = start;
    while let Some(l) = lines.get(i).filter(|l| l.quote == head.quote) {
        let t = l.text.trim();
        if t.starts_with("# ") && !rows.is_empty() && t.len() <= 40 {
            i += 1;
            continue;
        }
        let Some((label, value, u)) = list_row(l.text).filter(|r| r.2 == unit) else {
            break;
        };
        rows.push(TableRow {
            metric: label.to_string(),
            values: vec![Some(value)],
            printed: vec![format!(
                "{value}{}",
                u.map(|u| format!(" {u}")).unwrap_or_default()
            )],
            unit: u.map(|u| u.trim_matches(['[', ']']).to_string()),
            ..TableRow::default()
        });
        i += 1;
        end = i;
    }
    if rows.len() < 3 {
        return None;
    }
    let unit = unit.map(|u| u.trim_matches(['[', ']']).to_string());
    Some((
        end - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title: title_above(lines, start),
            columns: vec![unit.clone().unwrap_or_else(|| "value".into())],
            rows,
            unit,
            ..Table::default()
        }),
    ))
}

/// `g=    2      4     6` / `threads:  1  2  4`: a header naming a
/// dimension, then its values, one column each. A bare short name (`g
/// 1  2  3 ...`) counts over three or more whole numbers that grow; the
/// flag says the header was such a bare one.
fn dimension_header(text: &str) -> Option<(String, Vec<String>, bool)> {
    let mut toks = text.split_whitespace();
    let first = toks.next()?;
    let values: Vec<&str> = toks.collect();
    let name = first.trim_end_matches(['=', ':']);
    let named = first.len() > name.len() || is_dimension(name);
    let whole: Vec<u64> = values.iter().filter_map(|v| v.parse().ok()).collect();
    let bare = !named
        && name.len() <= 8
        && name.chars().any(char::is_alphabetic)
        && values.len() >= 3
        && whole.len() == values.len()
        && whole.windows(2).all(|w| w[0] < w[1]);
    if name.is_empty()
        || !(named || bare)
        || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
        || values.len() < 2
        || values.len() > MAX_COLUMNS
        || !values.iter().all(|v| parse_number_unit(v).is_some())
    {
        return None;
    }
    let columns = values.iter().map(|v| format!("{name}={v}")).collect();
    Some((name.to_string(), columns, bare))
}

/// A table printed the other way round: the header holds the values of a
/// dimension (`g=    2      4     6 ...`), each row is one variant (`w/o:
/// 1.8151 3.8499 ...`, `w/ : ...`) with a value per column. The row label
/// loses its colon.
fn dimension_table(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let (_, columns, bare) = dimension_header(head.text)?;
    let k = columns.len();
    let mut rows = Vec::new();
    let mut i = start + 1;
    while let Some(line) = lines.get(i).filter(|l| l.quote == head.quote) {
        let mut cs = cells(line.text);
        if cs.len() <= k || cs.len() > k + MAX_LABEL_WORDS {
            break;
        }
        let values = cs.split_off(cs.len() - k);
        if !values.iter().all(is_value) || cs.iter().any(|c| c.value.is_some()) {
            break;
        }
        let label: Vec<String> = cs.into_iter().map(|c| c.printed).collect();
        let label = label.join(" ");
        let label = label.trim_end_matches(':').trim_end().to_string();
        if !label.chars().any(char::is_alphanumeric) {
            break;
        }
        rows.push(row_from_cells(label, &values));
        i += 1;
    }
    // Under a bare name, two rows at least: one could be any line.
    if rows.is_empty() || (bare && rows.len() < 2) {
        return None;
    }
    Some((
        i - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title: title_above(lines, start),
            columns,
            rows,
            ..Table::default()
        }),
    ))
}

/// The cells of a markdown table line (`| a | b |`), or `None` when the
/// line is not one.
fn pipe_cells(text: &str) -> Option<Vec<&str>> {
    let t = text.trim();
    let inner = t.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let cs: Vec<&str> = inner.split('|').map(str::trim).collect();
    (cs.len() >= 2 && cs.len() <= MAX_COLUMNS).then_some(cs)
}

/// `+-----------+------+` (or `+=====+=====+`, as emacs and pandoc draw a
/// header's rules): a rule line of an ASCII box.
fn is_box_rule(text: &str) -> bool {
    let t = text.trim();
    t.len() >= 5
        && t.starts_with('+')
        && t.ends_with('+')
        && t.contains(['-', '='])
        && t.chars().all(|c| matches!(c, '+' | '-' | '='))
}

/// `--------`: a rule of dashes alone.
fn is_dash_rule(text: &str) -> bool {
    let t = text.trim();
    t.len() >= 5 && t.bytes().all(|b| b == b'-')
}

/// Header words of a column that holds the absolute spread (a standard
/// deviation) of the result column before it: `stddev`, `std`, `sd`, ...
pub const SPREADS: &[&str] = &["stddev", "stdev", "std", "sd", "std dev", "std.dev", "σ"];

/// Whether `headers[j]` is a `stddev` column right after a column of
/// results (not after another spread): that column's spread.
fn spread_column_at(headers: &[&str], j: usize) -> bool {
    j > 0 && is_spread_header(headers[j]) && !is_spread_header(headers[j - 1])
}

fn is_spread_header(word: &str) -> bool {
    let w = word.trim().trim_end_matches(':').to_lowercase();
    SPREADS.contains(&w.as_str())
}

/// Header words of a first column of percentile labels (`%ile  50  95 ...`).
fn is_percentile_header(word: &str) -> bool {
    matches!(
        word.trim().to_lowercase().as_str(),
        "%ile" | "percentile" | "pct" | "%-ile"
    )
}

/// `---`, `:--`, `--:`, `:-:`: a markdown table's alignment row cell.
fn is_pipe_rule(cell: &str) -> bool {
    let c = cell.trim_start_matches(':').trim_end_matches(':');
    !c.is_empty() && c.chars().all(|ch| ch == '-')
}

/// A value cell of a markdown table: emphasis and code marks dropped, the
/// leading number with its unit (`**4,410**`; `1,230 (28%)` is 1230, the
/// share after it stays in `printed`).
fn pipe_value(cell: &str) -> Cell {
    let bare = cell.replace("**", "").replace("__", "").replace('`', "");
    // `- 4.47%`, `+ 3%`: a sign set apart from its number.
    let bare = match bare.trim().split_once(' ') {
        Some((sign @ ("-" | "+"), rest))
            if rest.trim_start().starts_with(|c: char| c.is_ascii_digit()) =>
        {
            format!("{sign}{}", rest.trim_start())
        }
        _ => bare,
    };
    // `~11.16M`, `≈0`: an approximate value is still the value.
    let bare = bare.trim();
    let bare = bare
        .strip_prefix('~')
        .or_else(|| bare.strip_prefix('≈'))
        .unwrap_or(bare);
    // `158(-17.03%)`: the change written onto the value.
    if let Some(open) = bare.find('(')
        && let Some((v, unit)) = parse_number_unit(&bare[..open])
        && let Some(d) = paren_change(&bare[open..])
    {
        return Cell {
            printed: cell.to_string(),
            value: Some(v),
            unit: unit.map(str::to_string),
            spread_pct: None,
            delta_pct: Some(d),
            paren: None,
        };
    }
    // `events per second:  874.78`: a cell that names its value.
    let bare = match bare.split_once(": ") {
        Some((name, value))
            if !name.is_empty()
                && !name.contains(|c: char| c.is_ascii_digit())
                && matches!(cells(value).as_slice(), [c] if c.value.is_some()) =>
        {
            value.trim()
        }
        _ => bare,
    };
    let mut c = cells(bare).into_iter().next().unwrap_or(Cell {
        printed: String::new(),
        value: None,
        unit: None,
        spread_pct: None,
        delta_pct: None,
        paren: None,
    });
    c.printed = cell.to_string();
    c
}

/// A markdown pipe table: a header row, the alignment row (`|---|--:|`),
/// then rows of as many cells. The first column holds the row labels when
/// its cells are not numbers; a delta column's percentages go to the result
/// column before it, as in [`word_table`].
fn pipe_table(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    // An ASCII box (`+------+------+` above, below and under the header)
    // is read as a markdown table; its rule lines need not have as many
    // segments as the rows have cells (boxes drawn by hand seldom do).
    // A box drawn without corners has rules of dashes alone (`  -----`);
    // such a line is a rule only right above a row of cells.
    let dashed_box = lines.get(start).is_some_and(|l| is_dash_rule(l.text))
        && lines
            .get(start + 1)
            .is_some_and(|n| pipe_cells(n.text).is_some());
    let boxed = dashed_box || lines.get(start).is_some_and(|l| is_box_rule(l.text));
    let is_rule = |t: &str| is_box_rule(t) || (dashed_box && is_dash_rule(t));
    let first = start + usize::from(boxed);
    let head = lines.get(first)?;
    let headers = pipe_cells(head.text)?;
    let k = headers.len();
    let rule = lines.get(first + 1).filter(|l| l.quote == head.quote)?;
    // A box's header stands between two rules: a row followed by a rule
    // is the last row of a box (LKP's `| testcase: change |` boxes), not a
    // header.
    if is_box_rule(rule.text) && !boxed {
        return None;
    }
    if !is_rule(rule.text) {
        let rules = pipe_cells(rule.text)?;
        if boxed || rules.len() != k || !rules.iter().all(|c| is_pipe_rule(c)) {
            return None;
        }
    }
    let mut raw: Vec<Vec<&str>> = Vec::new();
    let mut i = first + 2;
    while let Some(l) = lines.get(i).filter(|l| l.quote == head.quote) {
        if is_rule(l.text) {
            i += 1;
            // A rule between rows separates them; one after the last
            // row closes the box.
            if lines
                .get(i)
                .filter(|n| n.quote == head.quote)
                .and_then(|n| pipe_cells(n.text))
                .is_none_or(|cs| cs.len() != k)
            {
                break;
            }
            continue;
        }
        let Some(cs) = pipe_cells(l.text).filter(|cs| cs.len() == k) else {
            break;
        };
        raw.push(cs);
        i += 1;
    }
    let table = cells_table(&headers, &raw, title_above(lines, start))?;
    Some((i - start, BlockBody::Table(table)))
}

/// Column names sysstat prints last, after the values (`sar -d`, `sar -F`).
const TRAILING_NAMES: [&str; 2] = ["DEV", "FILESYSTEM"];

/// Most rows of one `sar -d` interval (one per device).
const MAX_TRAILING_ROWS: usize = 4096;

/// sysstat's `sar -d` / `sar -F` since 12: each row's time of day (or
/// `Average:`) first, the values, then the device's name under `DEV`:
///
/// ```text
/// 11:42:21          tps     rkB/s     wkB/s ...     %util DEV
/// 11:42:22        53.00     36.00  34148.00 ...      2.40 vda
/// ```
///
/// Rows are labelled like sar's other tables, by time and name (`11:42:22
/// vda`), with both as label columns.
fn trailing_name_table(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let names: Vec<&str> = head.text.split_whitespace().collect();
    let (first, rest) = names.split_first()?;
    let (last, values) = rest.split_last()?;
    let timed = |w: &str| w == "Average:" || w == "Summary:" || is_time_of_day(w);
    if !TRAILING_NAMES.contains(last) || !timed(first) || values.len() < 2 {
        return None;
    }
    let mut labels: Vec<String> = Vec::new();
    let mut raw: Vec<Vec<&str>> = Vec::new();
    let mut i = start + 1;
    while let Some(l) = lines.get(i).filter(|l| l.quote == head.quote) {
        let w: Vec<&str> = l.text.split_whitespace().collect();
        let row =
            (w.len() == names.len() && timed(w[0]) && parse_number_unit(w[w.len() - 1]).is_none())
                .then(|| &w[1..w.len() - 1])
                .filter(|v| v.iter().all(|c| parse_number_unit(c).is_some()));
        let Some(v) = row else { break };
        if raw.len() == MAX_TRAILING_ROWS {
            break;
        }
        labels.push(format!("{} {}", w[0], w[w.len() - 1]));
        raw.push(v.to_vec());
        i += 1;
    }
    if raw.is_empty() {
        return None;
    }
    let mut table = cells_table(values, &raw, title_above(lines, start))?;
    for (row, label) in table.rows.iter_mut().zip(labels) {
        row.metric = label;
    }
    table.label_columns = vec![(*first).to_string(), (*last).to_string()];
    Some((i - start, BlockBody::Table(table)))
}

/// `11:42:21`, `03:09:31` (sar's time of day; a 12-hour locale's `PM`
/// after it makes no trailing-name row).
fn is_time_of_day(w: &str) -> bool {
    let parts: Vec<&str> = w.split(':').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A table from its header cells and rows of as many cells (a markdown
/// table, an ASCII box, a table drawn with inner bars only). The first
/// column holds the row labels when its cells are not numbers (or when it
/// is headed `%ile`); a delta column's percentages go to the result
/// column before it, a `stddev` column's values are its spread.
fn cells_table(headers: &[&str], raw: &[Vec<&str>], title: Option<String>) -> Option<Table> {
    // Labels: no number in the first column, or run numbers with a word
    // among them (`1` ... `10`, then `Average`): a column that mixes
    // counts and names holds no results.
    let firsts: Vec<Cell> = raw
        .iter()
        .filter_map(|cs| cs.first().map(|c| pipe_value(c)))
        .collect();
    let numbered = firsts.iter().any(|c| {
        c.value.is_none() && !is_placeholder(c) && c.printed.trim().chars().all(char::is_alphabetic)
    }) && firsts.iter().any(|c| c.value.is_some())
        && firsts.iter().all(|c| {
            c.value
                .is_none_or(|v| c.unit.is_none() && v.fract() == 0.0 && v >= 0.0)
        });
    let label_col =
        firsts.len() == raw.len() && (firsts.iter().all(|c| c.value.is_none()) || numbered);
    // `%ile` over `50`, `95`, `99`: numbers, but labels of the rows.
    let percentile_col = !label_col && headers.first().is_some_and(|h| is_percentile_header(h));
    let lead = usize::from(label_col || percentile_col);
    // Dimension columns after the labels (`| mode | CPUs |`, `| threads: |`)
    // whose cells are whole numbers: part of each row's name.
    let dims = headers
        .iter()
        .skip(lead)
        .enumerate()
        .take_while(|(j, h)| {
            is_dimension(h.trim())
                && raw.iter().all(|cs| {
                    cs.get(lead + j).is_some_and(|c| {
                        let v = pipe_value(c);
                        v.unit.is_none() && v.value.is_some_and(|x| x.fract() == 0.0)
                    })
                })
        })
        .count();
    let skip = lead + dims;
    let value_headers = headers.get(skip..)?;
    let delta_at: Vec<bool> = value_headers.iter().map(|h| is_delta(h)).collect();
    // A `stddev` column right after a result column is that column's spread.
    let spread_at: Vec<bool> = (0..value_headers.len())
        .map(|j| spread_column_at(value_headers, j))
        .collect();
    let mut rows = Vec::new();
    for (n, cs) in raw.iter().enumerate() {
        let mut kept: Vec<Cell> = Vec::new();
        let mut deltas: Vec<Option<f64>> = Vec::new();
        let mut spreads: Vec<Option<f64>> = Vec::new();
        for (j, c) in cs.iter().skip(skip).enumerate() {
            let cell = pipe_value(c);
            if delta_at.get(j).copied().unwrap_or(false) {
                if let Some(slot) = deltas.last_mut()
                    && cell.unit.as_deref() == Some("%")
                {
                    *slot = cell.value;
                }
            } else if spread_at.get(j).copied().unwrap_or(false) {
                if let Some(slot) = spreads.last_mut() {
                    *slot = cell.value;
                }
            } else {
                kept.push(cell);
                deltas.push(None);
                spreads.push(None);
            }
        }
        // A row of ratios (`1:3`) still carries its printed change.
        if !kept.iter().any(|c| c.value.is_some()) && !deltas.iter().any(Option::is_some) {
            continue;
        }
        let first = cs.first().map(|c| c.trim()).unwrap_or_default();
        let metric = if label_col {
            first.to_string()
        } else if percentile_col {
            format!(
                "{}={first}",
                headers.first().map(|h| h.trim()).unwrap_or_default()
            )
        } else {
            format!("row {}", n + 1)
        };
        let named_dims: Vec<String> = (lead..skip)
            .map(|j| {
                let h = headers.get(j).map(|h| h.trim().trim_end_matches(':'));
                let c = cs.get(j).map(|c| c.trim()).unwrap_or_default();
                format!("{}={c}", h.unwrap_or_default())
            })
            .collect();
        let metric = match (named_dims.is_empty(), label_col || percentile_col) {
            (true, _) => metric,
            (false, true) => format!("{metric} {}", named_dims.join(" ")),
            (false, false) => named_dims.join(" "),
        };
        let mut row = row_from_cells(metric, &kept);
        if deltas.iter().any(Option::is_some) {
            row.printed_deltas_pct = deltas;
        }
        if spreads.iter().any(Option::is_some) {
            row.spread = spreads;
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return None;
    }
    let role = |j: usize| match (delta_at[j], spread_at[j]) {
        (true, _) => 1,
        (_, true) => 2,
        _ => 0,
    };
    let headed = |r: u8| -> Vec<String> {
        (0..value_headers.len())
            .filter(|&j| role(j) == r)
            .map(|j| value_headers[j].to_string())
            .collect()
    };
    Some(Table {
        style: "plain".into(),
        title,
        columns: headed(0),
        delta_columns: headed(1),
        spread_columns: headed(2),
        label_columns: headers
            .iter()
            .take(skip)
            .filter(|h| !h.is_empty())
            .map(|h| h.to_string())
            .collect(),
        rows,
        ..Table::default()
    })
}

/// The cells of a line drawn with inner bars (`c[0] | 2596 | 2877`,
/// `     | Without patch | With patch |`).
fn bar_cells(text: &str) -> Option<Vec<&str>> {
    // A line that starts with a bar is a markdown row or a box's
    // ([`pipe_table`]); an indented one may start with an empty cell.
    let t = text.trim();
    if text.starts_with('|') || !t.contains('|') {
        return None;
    }
    // A bar at the end closes the last cell (`| Without patch |`).
    let t = t.strip_suffix('|').unwrap_or(t);
    let cs: Vec<&str> = t.split('|').map(str::trim).collect();
    (cs.len() >= 2 && cs.len() <= MAX_COLUMNS).then_some(cs)
}

/// `-----|-------|----`: the rule under a bar table's header.
fn is_bar_rule(text: &str) -> bool {
    let t = text.trim();
    t.contains('|')
        && t.contains("---")
        && t.chars().all(|c| matches!(c, '-' | '|' | '+' | ':' | ' '))
}

/// A table drawn with inner bars only: one to three header lines (their
/// cells joined column by column: `MGLRU enabled` over `Without patch`),
/// a rule of dashes and bars, then rows of as many cells.
fn bar_table(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let head = lines.get(start)?;
    let first = bar_cells(head.text)?;
    if is_bar_rule(head.text) {
        return None;
    }
    let k = first.len();
    let mut header_rows = vec![first];
    let mut i = start + 1;
    loop {
        let l = lines.get(i).filter(|l| l.quote == head.quote)?;
        if is_bar_rule(l.text) {
            if bar_cells(l.text)?.len() != k {
                return None;
            }
            i += 1;
            break;
        }
        // A later header line may stop short (`| With patch |` under the
        // last name).
        let cs = bar_cells(l.text).filter(|cs| cs.len() <= k && header_rows.len() < 3)?;
        header_rows.push(cs);
        i += 1;
    }
    let mut raw: Vec<Vec<&str>> = Vec::new();
    while let Some(cs) = lines
        .get(i)
        .filter(|l| l.quote == head.quote)
        .and_then(|l| bar_cells(l.text))
        .filter(|cs| cs.len() == k)
    {
        raw.push(cs);
        i += 1;
    }
    if raw.is_empty() {
        return None;
    }
    let names: Vec<String> = (0..k)
        .map(|j| {
            header_rows
                .iter()
                .filter_map(|r| r.get(j).copied())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let headers: Vec<&str> = names.iter().map(String::as_str).collect();
    let table = cells_table(&headers, &raw, title_above(lines, start))?;
    Some((i - start, BlockBody::Table(table)))
}

/// A table whose header has one word per column.
/// A header whose column names are words followed by a unit in brackets,
/// one word per name apart from that: `Thread Min Latency (μs) Avg Latency
/// (μs) Max Latency (μs)`. Every name that ends with a unit has the same
/// number of words; the words in front of the first one are one-word
/// columns (`Thread`).
fn unit_grouped_header(text: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is_unit = |w: &str| {
        w.chars().count() >= 3
            && w.starts_with('(')
            && w.ends_with(')')
            && w[1..w.len() - 1]
                .chars()
                .all(|c| c.is_alphabetic() || "/%".contains(c))
    };
    let ends: Vec<usize> = (0..words.len()).filter(|&i| is_unit(words[i])).collect();
    if ends.len() < 2 || ends.last() != Some(&(words.len() - 1)) {
        return None;
    }
    let n = ends[1] - ends[0];
    if n < 2 || ends.windows(2).any(|w| w[1] - w[0] != n) || ends[0] + 1 < n {
        return None;
    }
    let plain = |w: &&str| {
        w.chars().count() <= 32
            && w.chars().any(char::is_alphabetic)
            && parse_number_unit(w).is_none()
            && !w.starts_with(['+', '-', '@', '#', '|', '=', '(', '<', '[', '/'])
    };
    let lead = ends[0] + 1 - n;
    let mut names: Vec<String> = Vec::new();
    for w in &words[..lead] {
        plain(w).then_some(())?;
        names.push((*w).to_string());
    }
    for &e in &ends {
        let name = &words[e + 1 - n..e];
        name.iter().all(plain).then_some(())?;
        names.push(format!("{} {}", name.join(" "), words[e]));
    }
    (names.len() >= 2 && names.len() <= MAX_COLUMNS).then_some(names)
}

fn word_table(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, BlockBody), ParseError>> {
    let head = lines.get(start)?;
    let grouped;
    // A header commented out with `# ` (mimalloc-bench's `# benchmark
    // allocator elapsed rss ...`) names the rows below it all the same.
    let head_text = head
        .text
        .trim_start()
        .strip_prefix("# ")
        .filter(|rest| !rest.starts_with([' ', '#']) && !rest.contains('|'))
        .unwrap_or(head.text);
    let columns = match is_header(head_text) {
        Some(c) => c,
        None => {
            grouped = unit_grouped_header(head_text)?;
            grouped.iter().map(String::as_str).collect()
        }
    };
    // A tab-separated header whose column names have spaces (`without
    // patch<TAB><TAB>with patch`) is not one word per column.
    if head_text.contains('\t') && spaced_header(head_text).is_some_and(|c| c.len() < columns.len())
    {
        return None;
    }
    let k = columns.len();
    // `time in sec  (%stdev)`: bare numbers in parentheses are spreads.
    let std_pct = says_std_pct(head_text);
    // Indented past the rows' first cell: that column has no name.
    let indent = head.text.len() - head.text.trim_start().len();
    let numbered_rows = |text: &str| first_cell_before(text, indent).is_some();
    let mut raw: Vec<(Option<String>, Vec<Cell>)> = Vec::new();
    let mut i = start + 1;
    if lines
        .get(i)
        .is_some_and(|l| l.quote == head.quote && is_rule_line(l.text))
    {
        i += 1;
    }
    let row_at = |i: usize| {
        lines
            .get(i)
            .filter(|l| l.quote == head.quote)
            .and_then(|l| {
                // A note after the last cell (`9356.22 (not stable)`).
                let text = without_trailing_note(l.text);
                data_row(text, k, numbered_rows(text))
            })
    };
    let blank_at = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| l.quote == head.quote && l.text.trim().is_empty())
    };
    // A header one blank line above its rows, when its names are single
    // words (`Base   netdev_info() removed` has two names, for
    // `spaced_table`).
    if blank_at(i)
        && row_at(i + 1).is_some()
        && spaced_header(head_text).is_none_or(|names| names.len() == k)
    {
        i += 1;
    }
    loop {
        // Groups of rows, each a labelled row and the group's further rows
        // without a label, set apart by one blank line (`add  0:05.01
        // 0:05.28`, four unlabelled runs, a blank line, `rename ...`).
        // Or groups of labelled rows named by their first word, one group
        // per benchmark (`cfrac mi`, `cfrac sn-1MiB-Old`, a blank line,
        // `espresso mi`, ...).
        // The group's name: the first word of the row's label, or its
        // first cell when that holds no number (the label column's).
        let first_word = |r: &(Option<String>, Vec<Cell>)| -> Option<String> {
            match &r.0 {
                Some(l) => l.split_whitespace().next().map(str::to_string),
                None => r
                    .1
                    .first()
                    .filter(|c| c.value.is_none() && r.1.get(1).is_some_and(|c| c.value.is_none()))
                    .map(|c| c.printed.clone()),
            }
        };
        let benchmark_groups = || {
            let Some(group) = raw.last().and_then(first_word) else {
                return false;
            };
            let next = row_at(i + 1).and_then(|r| first_word(&r));
            raw.iter().all(|r| first_word(r).is_some())
                && next.is_some_and(|n| n != group)
                && raw
                    .iter()
                    .rev()
                    .take_while(|r| first_word(r).as_deref() == Some(group.as_str()))
                    .count()
                    >= 2
        };
        if blank_at(i)
            && (is_grouped(&raw) && row_at(i + 1).is_some_and(|(label, _)| label.is_some())
                || benchmark_groups())
        {
            i += 1;
        }
        let Some(mut row) = row_at(i) else {
            break;
        };
        if std_pct {
            paren_as_spread(&mut row.1);
        }
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
    // Two label columns when the unlabelled rows start with two cells
    // without a value (`23:38:09  all  39.90 ...` under `CPU %user ...`),
    // or with a word in some rows and a whole number in the others (`sar
    // -P ALL`: `all`, then `0`, `1` under `CPU`): an identity, not a value.
    let unlabelled = || raw.iter().filter(|(l, _)| l.is_none());
    // Two dimensions first (turbostat's `Core  CPU  Busy%`): both label
    // the row.
    let two_dimensions = k >= 3 && is_dimension(columns[0]) && is_dimension(columns[1]);
    let two_labels = k >= 3
        && unlabelled().any(|(_, cs)| leading_labels(cs) >= 2)
        && unlabelled().all(|(_, cs)| {
            leading_labels(cs) >= 2
                || cs.get(1).is_some_and(|c| {
                    !c.printed.is_empty() && c.printed.bytes().all(|b| b.is_ascii_digit())
                })
        });
    let label_n = if label_col && (two_dimensions || two_labels) {
        2
    } else {
        1
    };
    let value_headers: Vec<&str> = if label_col {
        columns[label_n..].to_vec()
    } else {
        columns.clone()
    };
    let delta_at: Vec<bool> = value_headers.iter().map(|h| is_delta(h)).collect();
    // A `std` column right after a result column is that column's spread.
    let spread_at: Vec<bool> = (0..value_headers.len())
        .map(|j| spread_column_at(&value_headers, j) && !delta_at[j - 1])
        .collect();
    let title = title_above(lines, start);
    let title_unit = title.as_deref().and_then(unit_in_parens);
    let single = raw.len() == 1;
    let grouped = !label_col && is_grouped(&raw);
    let mut group = GroupRows::default();
    let mut rows: Vec<TableRow> = Vec::new();
    let mut units: Vec<String> = Vec::new();
    for (n, (label, cs)) in raw.into_iter().enumerate() {
        let label = match grouped {
            true => group.name(label),
            false => label,
        };
        let (label, values): (Option<String>, Vec<Cell>) = match label {
            Some(l) => (Some(l), cs),
            None if label_col => {
                let mut it = cs.into_iter();
                // A number as a label says what it counts: `size=80GB`.
                let mut l = it.next().map(|c| {
                    if c.value.is_some() {
                        format!("{}={}", columns[0], c.printed)
                    } else {
                        c.printed
                    }
                });
                if label_n == 2
                    && let (Some(first), Some(second)) = (l.as_mut(), it.next())
                {
                    first.push(' ');
                    if two_dimensions && second.value.is_some() {
                        first.push_str(&format!("{}={}", columns[1], second.printed));
                    } else {
                        first.push_str(&second.printed);
                    }
                }
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
        let mut spreads: Vec<Option<f64>> = Vec::new();
        for (j, c) in values.into_iter().enumerate() {
            if spread_at.get(j).copied().unwrap_or(false) {
                if let Some(slot) = spreads.last_mut()
                    && c.unit.as_deref().is_none_or(|u| u != "%")
                {
                    *slot = c.value;
                }
            } else if delta_at.get(j).copied().unwrap_or(false) {
                // The change of the last result column so far, when it is a
                // change in percent: a `1.09x` speedup or an absolute `+100`
                // is not (only a `%` cell, or a bare number under a header
                // that says `%`).
                if let Some(slot) = deltas.last_mut()
                    && (c.unit.as_deref() == Some("%")
                        || (c.unit.is_none()
                            && value_headers.get(j).is_some_and(|h| h.contains('%'))))
                {
                    *slot = c.value;
                }
            } else {
                kept.push(c);
                deltas.push(None);
                spreads.push(None);
            }
        }
        let mut row = row_from_cells(metric, &kept);
        if spreads.iter().any(Option::is_some) {
            row.spread = spreads;
        }
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
        columns[..label_n].iter().map(|c| c.to_string()).collect()
    } else {
        Vec::new()
    };
    // A spread larger than its value is no absolute deviation of it (`avg
    // 0.653  std 17.958`): in percent, or in another unit; the header does
    // not say, so no spread is read.
    if rows.iter().any(|r| {
        r.spread
            .iter()
            .zip(&r.values)
            .any(|(s, v)| matches!((s, v), (Some(s), Some(v)) if *s > v.abs()))
    }) {
        for r in &mut rows {
            r.spread.clear();
        }
    }
    let delta_columns: Vec<String> = value_headers
        .iter()
        .zip(&delta_at)
        .filter(|(_, d)| **d)
        .map(|(h, _)| h.to_string())
        .collect();
    let spread_columns: Vec<String> = value_headers
        .iter()
        .zip(&spread_at)
        .filter(|(_, s)| **s)
        .map(|(h, _)| h.to_string())
        .collect();
    let mut columns: Vec<String> = value_headers
        .iter()
        .zip(delta_at.iter().zip(&spread_at))
        .filter(|(_, (d, s))| !**d && !**s)
        .map(|(h, _)| h.to_string())
        .collect();
    if !label_col
        && delta_columns.is_empty()
        && spread_columns.is_empty()
        && let Some(named) = two_line_header(lines, start, columns.len())
    {
        columns = named;
    }
    if delta_columns.is_empty()
        && spread_columns.is_empty()
        && let Some(groups) = group_header(lines, start, &columns)
    {
        // `latency 0` over `min avg max`, `latency -20` over the next
        // three: the groups are the columns compared, and each row gives a
        // row per statistic (`max group=16`).
        let per = columns.len() / groups.len();
        let ng = groups.len();
        rows = rows
            .iter()
            .flat_map(|r| {
                let columns = &columns;
                (0..per).map(move |s| {
                    let pick = |g: usize| g * per + s;
                    TableRow {
                        stat: None,
                        metric: format!("{} {}", columns[s], r.metric),
                        values: (0..ng)
                            .map(|g| r.values.get(pick(g)).copied().flatten())
                            .collect(),
                        printed_deltas_pct: Vec::new(),
                        spread_pct: if r.spread_pct.is_empty() {
                            Vec::new()
                        } else {
                            (0..ng)
                                .map(|g| r.spread_pct.get(pick(g)).copied().flatten())
                                .collect()
                        },
                        printed: (0..ng)
                            .filter_map(|g| r.printed.get(pick(g)).cloned())
                            .collect(),
                        unit: r.unit.clone(),
                        spread: Vec::new(),
                    }
                })
            })
            .collect();
        columns = groups;
    }
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title,
            columns,
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            unit: table_unit,
            label_columns,
            delta_columns,
            spread_columns,
        }),
    )))
}

/// A line of group names right above a table's header, one over each run
/// of columns (`latency 0    latency -20` over `min avg max min avg
/// max`): the groups, when they split the columns evenly into two or more
/// runs of two or more that repeat the same names.
fn group_header(lines: &[Line<'_>], start: usize, columns: &[String]) -> Option<Vec<String>> {
    let head = lines.get(start)?;
    let mut above = lines.get(start.checked_sub(1)?)?;
    // A rule between the group names and the header, over each run of
    // columns (`--------------   --------------`): the names are above it.
    if is_rule_line(above.text) {
        above = lines.get(start.checked_sub(2)?)?;
    }
    if above.quote != head.quote {
        return None;
    }
    let groups = spaced_header(above.text)?;
    let n = groups.len();
    if n < 2 || !columns.len().is_multiple_of(n) || columns.len() / n < 2 {
        return None;
    }
    let per = columns.len() / n;
    let repeats = (1..n).all(|g| columns[g * per..(g + 1) * per] == columns[..per]);
    repeats.then_some(groups)
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
    // `1.96 s` beside `917.71 ms`: times printed in different units are
    // given in the row's unit, so that the columns compare.
    let to_row_unit = |c: &Cell| -> Option<f64> {
        let v = c.value?;
        match (
            c.unit.as_deref().and_then(seconds_per),
            unit.as_deref().and_then(seconds_per),
        ) {
            (Some(from), Some(to)) if from != to => Some(v * from / to),
            _ => Some(v),
        }
    };
    TableRow {
        stat: None,
        metric,
        values: cs.iter().map(to_row_unit).collect(),
        printed_deltas_pct: if cs.iter().any(|c| c.delta_pct.is_some()) {
            cs.iter().map(|c| c.delta_pct).collect()
        } else {
            Vec::new()
        },
        spread_pct: if cs.iter().any(|c| c.spread_pct.is_some()) {
            cs.iter().map(|c| c.spread_pct).collect()
        } else {
            Vec::new()
        },
        printed: cs.iter().map(|c| c.printed.clone()).collect(),
        unit,
        spread: Vec::new(),
    }
}

/// Seconds in one of a time unit.
fn seconds_per(unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(1e-9),
        "us" | "µs" | "μs" => Some(1e-6),
        "ms" => Some(1e-3),
        "s" | "sec" | "secs" => Some(1.0),
        _ => None,
    }
}

/// `(eliminated)`, `(= lru_note_cost_refault)`: a note in brackets with no
/// number in it.
fn is_word_note(text: &str) -> bool {
    let t = text.trim();
    t.len() > 2
        && t.starts_with('(')
        && t.ends_with(')')
        && !t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(char::is_alphabetic)
}

/// A header of two lines, the second naming the sides of the first's last
/// name (`baseline   patched` over `no cache   cache`, three columns): the
/// columns `baseline`, `patched no cache`, `patched cache`. `k` columns
/// were read by single words.
fn two_line_header(lines: &[Line<'_>], start: usize, k: usize) -> Option<Vec<String>> {
    let head = lines.get(start)?;
    let above = lines.get(start.checked_sub(1)?)?;
    // Both lines leave the label column blank.
    let indented = |t: &str| t.len() - t.trim_start().len() >= 2;
    if above.quote != head.quote || !indented(above.text) || !indented(head.text) {
        return None;
    }
    let word = |n: &String| n.chars().any(char::is_alphabetic) && parse_number_unit(n).is_none();
    let top = spaced_header(above.text).filter(|t| t.iter().all(word))?;
    let sub = spaced_header(head.text).filter(|t| t.iter().all(word))?;
    if sub.len() >= k || top.len() - 1 + sub.len() != k {
        return None;
    }
    let (last, first) = top.split_last()?;
    Some(
        first
            .iter()
            .cloned()
            .chain(sub.iter().map(|s| format!("{last} {s}")))
            .collect(),
    )
}

/// Rows in groups: a labelled row first, and some labelled row followed by
/// rows without a label (the group's further runs).
fn is_grouped(raw: &[(Option<String>, Vec<Cell>)]) -> bool {
    raw.first().is_some_and(|(l, _)| l.is_some())
        && raw.windows(2).any(|w| w[0].0.is_some() && w[1].0.is_none())
}

/// Names for the rows of groups: a labelled row names its group, and the
/// group's further rows without a label are `<label> #2`, `#3`, ... in
/// order, never named by their own first value.
#[derive(Default)]
struct GroupRows {
    current: Option<(String, usize)>,
}

impl GroupRows {
    fn name(&mut self, label: Option<String>) -> Option<String> {
        match (label, self.current.as_mut()) {
            (Some(l), _) => {
                self.current = Some((l.clone(), 1));
                Some(l)
            }
            (None, Some((g, n))) => {
                *n += 1;
                Some(format!("{g} #{n}"))
            }
            (None, None) => None,
        }
    }
}

/// A row's first cell, a whole number, when it ends before the header's
/// `indent` (the column the header left unnamed), and the rest of the row.
fn numbered_label(text: &str, indent: usize) -> Option<(String, &str)> {
    let (first, rest) = first_cell_before(text, indent)?;
    (!rest.is_empty() && first.bytes().all(|b| b.is_ascii_digit()))
        .then(|| (first.to_string(), rest))
}

/// A row's first cell and the rest of the row, when that cell ends before
/// the header's `indent` (at least two columns in): the header left the
/// column under it unnamed.
fn first_cell_before(text: &str, indent: usize) -> Option<(&str, &str)> {
    let t = text.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    (indent >= 2 && text.len() - t.len() + end < indent).then(|| t.split_at(end))
}

/// A row with one number more than the `k` columns, the last a
/// percentage after `k` plain values (`2666.8  2689.7  +0.9%`): the row
/// without it, and the change it printed.
fn without_unheaded_change(text: &str, k: usize) -> Option<(&str, Option<f64>)> {
    let cs = cells(text);
    let last = cs.last()?;
    let numbers = cs
        .iter()
        .rev()
        .take_while(|c| c.value.is_some() && is_value(c))
        .count();
    let plain = |c: &Cell| c.unit.as_deref() != Some("%") && c.delta_pct.is_none();
    if numbers != k + 1
        || last.unit.as_deref() != Some("%")
        || !cs[cs.len() - 1 - k..cs.len() - 1].iter().all(plain)
    {
        return None;
    }
    let t = text.trim_end();
    let cut = t.rfind(last.printed.as_str())?;
    Some((t[..cut].trim_end(), last.value))
}

/// A row with a note in brackets after its last cell (`0  -100%
/// (eliminated)`): the row without it.
fn without_trailing_note(text: &str) -> &str {
    let t = text.trim_end();
    // benchstat's test after the delta: `(p=0.000 n=29+27)`.
    let significance = |n: &str| n.starts_with("(p=") && n.contains(" n=");
    if t.ends_with(')')
        && let Some(open) = t.rfind('(')
        && (is_word_note(&t[open..]) || significance(&t[open..]))
        && open > 0
    {
        return t[..open].trim_end();
    }
    text
}

/// `Total LRU lock wait`, `Sum`: a totals row, which a table may print
/// after a blank line.
fn totals_row(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    ["total", "sum", "overall"].contains(&first.to_ascii_lowercase().trim_end_matches(':'))
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
        // A Markdown heading between is the table's heading; the prose
        // above it is not the table's title.
        if prev.quote != quote || t.is_empty() || crate::hints::is_markdown_heading(t) {
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

    fn table_of(text: &str) -> Table {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0) {
            Some(Ok((_, BlockBody::Table(t)))) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_commented_header_over_groups_of_benchmarks() {
        let text = "# --------------------------------------------------\n# benchmark allocator elapsed rss user sys page-faults page-reclaims\n\ncfrac mi           09.32 3600 9.31 0.00 0 380\ncfrac sn-1MiB-Old  09.20 12724 9.19 0.00 0 438\n\nespresso mi           07.18 6076 7.11 0.06 0 613\nespresso sn-1MiB-Old  07.03 12396 6.95 0.08 0 397\n";
        let t = crate::first_body!(text, Table);
        assert_eq!(
            t.columns,
            [
                "elapsed",
                "rss",
                "user",
                "sys",
                "page-faults",
                "page-reclaims"
            ]
        );
        let metrics: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(
            metrics,
            [
                "cfrac mi",
                "cfrac sn-1MiB-Old",
                "espresso mi",
                "espresso sn-1MiB-Old"
            ]
        );
        assert_eq!(t.rows[2].values[0], Some(7.18));
    }

    #[test]
    fn row_labels_with_spaces_under_one_word_names() {
        let text = "Records/s\t4.13.0-mm1\t4.13.0-mm1-spf\tdelta\nAverage\t\t13217.90 \t65765.94\t+397.55%\nMean deviation\t690.37\t\t2609.36\t\t+277.97%\nMax\t\t16726\t\t77675\t\t+364.40%\n";
        let t = &crate::first_body!(text, Table);
        let metrics: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(metrics, ["Average", "Mean deviation", "Max"]);
        assert_eq!(t.rows[1].values, [Some(690.37), Some(2609.36)]);
        assert_eq!(t.rows[1].printed_deltas_pct, [None, Some(277.97)]);
        assert!(is_delta("delta %") && is_delta("Delta (%)") && !is_delta("percent"));
    }

    #[test]
    fn a_line_of_units_under_the_names() {
        let text = "number of IPs(x# cache size)    mainline        patched         delta\n                                  Kpps            Kpps            %\n        20000(x40)                6498            6123          -5.7\n        35000(x70)                6502            5261          -19\n";
        let t = &crate::first_body!(text, Table);
        assert_eq!(t.columns, ["mainline", "patched"]);
        assert_eq!(t.label_columns, ["number of IPs(x# cache size)"]);
        assert_eq!(t.unit.as_deref(), Some("Kpps"));
        assert_eq!(t.rows[0].values, [Some(6498.0), Some(6123.0)]);
        assert_eq!(t.rows[1].printed_deltas_pct, [None, Some(-19.0)]);
        assert!(is_unit_word("MB/s") && is_unit_word("Mpps") && !is_unit_word("patched"));
    }

    #[test]
    fn an_unheaded_change_column_is_the_last_column_s_change() {
        let t = table_of(
            "(One run)\t\t\t   w/o patch   w/ patch\n\n\
             Dhrystone 2 using register variables     2666.8     2689.7    +0.9%\n\
             File Copy 1024 bufsize 2000 maxblocks    2892.8     2904.2    -0.4%\n\
             \x20                                       ========   ========\n\
             System Benchmarks Index Score            1679.7     1723.3    +2.6%\n",
        );
        assert_eq!(t.columns, ["w/o patch", "w/ patch"]);
        assert_eq!(t.label_columns, ["(One run)"]);
        type Row<'a> = (&'a str, Vec<Option<f64>>, Vec<Option<f64>>);
        let got: Vec<Row> = t
            .rows
            .iter()
            .map(|r| {
                (
                    r.metric.as_str(),
                    r.values.clone(),
                    r.printed_deltas_pct.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Dhrystone 2 using register variables",
                    vec![Some(2666.8), Some(2689.7)],
                    vec![None, Some(0.9)]
                ),
                (
                    "File Copy 1024 bufsize 2000 maxblocks",
                    vec![Some(2892.8), Some(2904.2)],
                    vec![None, Some(-0.4)]
                ),
                (
                    "System Benchmarks Index Score",
                    vec![Some(1679.7), Some(1723.3)],
                    vec![None, Some(2.6)]
                ),
            ]
        );
        // A percentage that is one of the columns is no change.
        assert!(without_unheaded_change("x  1.5  2.5%", 2).is_none());
        assert!(without_unheaded_change("x  1.5%  2.5  3.0%", 2).is_none());
    }

    #[test]
    fn a_header_of_two_lines() {
        let lines = crate::lines::split(
            "            base        patched\n        no cache        cache\nk8 revF     31          14      17\np4          49          24      37\n",
        );
        let Some(Ok((_, BlockBody::Table(t)))) = recognize(&lines, 1) else {
            panic!()
        };
        assert_eq!(t.columns, ["base", "patched no cache", "patched cache"]);
        assert_eq!(
            (t.rows[1].metric.as_str(), t.rows[1].values[0]),
            ("p4", Some(49.0))
        );
        // A sentence above is no first header line.
        let lines =
            crate::lines::split("We ran this  twice\n   no cache   cache\np4     49     24\n");
        assert_eq!(two_line_header(&lines, 1, 3), None);
    }

    #[test]
    fn a_sideways_table_under_a_bare_dimension_name() {
        let text = "g     1      2      3      4\nw/o 1.4777 2.0112 3.1919 4.2654\nw/  1.4793 1.9344 2.9080 3.9267\n";
        let lines = crate::lines::split(text);
        let Some((n, BlockBody::Table(t))) = dimension_table(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 3);
        assert_eq!(t.columns, ["g=1", "g=2", "g=3", "g=4"]);
        assert_eq!(t.rows[1].metric, "w/");
        assert_eq!(t.rows[1].values[3], Some(3.9267));
        // One row under it could be any line; numbers that do not grow
        // name no dimension.
        assert!(dimension_table(&lines[..2], 0).is_none());
        let lines = crate::lines::split("g 3 2 1\nw/o 1 2 3\nw/ 1 2 3\n");
        assert!(dimension_table(&lines, 0).is_none());
    }

    #[test]
    fn a_benchstat_table_and_a_note_after_a_row() {
        let text = "name                               old ms/op  new ms/op   delta\nLIST_nodes_p50                      127 ±16%    121 ± 9%   -4.58%  (p=0.000 n=29+27)\nLIST_replicationcontrollers_p50    29.4 ±49%   26.2 ±54%     ~     (p=0.085 n=30+29)\n";
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!()
        };
        assert_eq!(t.columns, ["old ms/op", "new ms/op"]);
        assert_eq!(t.rows[0].values, [Some(127.0), Some(121.0)]);
        assert_eq!(t.rows[0].spread_pct, [Some(16.0), Some(9.0)]);
        assert_eq!(t.rows[0].printed_deltas_pct, [None, Some(-4.58)]);
        // `~`: no significant change, no delta.
        assert_eq!(t.rows[1].printed_deltas_pct, [None, None]);
        let text = "                     Before    After\nTCP_STREAM send-512  5311.67   5292.84\nTCP_STREAM send-1k   9277.40   9356.22 (not stable)\nTCP_RR     send-1    22559.75  21844.22\n";
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!()
        };
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[1].values, [Some(9277.4), Some(9356.22)]);
    }

    #[test]
    fn a_pipe_cell_that_names_its_value() {
        let c = pipe_value(" events per second:  874.78 ");
        assert_eq!(
            (c.value, c.printed.trim()),
            (Some(874.78), "events per second:  874.78")
        );
        assert_eq!(pipe_value("6035.30 MiB/sec").value, Some(6035.3));
        // Two numbers after the name, or a name with digits: not one value.
        assert_eq!(pipe_value("p99: 10 20").value, None);
        assert_eq!(pipe_value("run 2: 874.78").value, None);
    }

    #[test]
    fn a_std_column_after_a_result_column_is_its_spread() {
        let table = |text: &str| {
            let doc = crate::parse_str(text, None).unwrap();
            let BlockBody::Table(t) = &doc.blocks[0].body else {
                panic!()
            };
            t.clone()
        };
        let t = table(
            "  cases    base   std   patched   std\n  pipe     12.0   0.5   10.0      0.4\n  fork     20.0   1.5   18.0      1.2\n",
        );
        assert_eq!(t.columns, ["base", "patched"]);
        assert_eq!(t.spread_columns, ["std", "std"]);
        assert_eq!(t.rows[0].values, [Some(12.0), Some(10.0)]);
        assert_eq!(t.rows[1].spread, [Some(1.5), Some(1.2)]);
        // A spread larger than its value is in a unit the header does not
        // say: not read.
        let t = table(
            "  cases         avg             std\n  5.8.10        0.653           17.958\n  idle_cpumask  0.532           16.916\n",
        );
        assert_eq!(t.columns, ["avg"]);
        assert_eq!(t.rows[1].values, [Some(0.532)]);
        assert!(t.rows.iter().all(|r| r.spread.is_empty()));
    }

    #[test]
    fn groups_of_runs_set_apart_by_blank_lines() {
        // A labelled row, its further runs without a label, a blank line,
        // the next group; the header one blank line above the rows.
        let text = "         Base      rwsem\n\n add     0:05.01   0:05.28\n\t 0:05.93   0:06.11\n\n rename  0:32.57   0:33.04\n\t 0:32.91   0:32.45\n\n -------------------------\n";
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{:?}", doc.blocks);
        let BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!()
        };
        let names: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(names, ["add", "add #2", "rename", "rename #2"]);
        assert_eq!(t.rows[3].values, [Some(32.91), Some(32.45)]);
        // Two tables with a blank line between them stay two when the
        // first has no group of unlabelled rows.
        let text = "    base   patched\n one   1.0   2.0\n two   3.0   4.0\n\n three   5.0   6.0\n";
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!()
        };
        assert_eq!(t.rows.len(), 2);
    }

    #[test]
    fn numbered_rows_under_an_indented_header() {
        let t = table_of(
            "\t\t  w/o patch\t\t\t w/ patch\ngrp\n1\t0.194   (+/- 5.96%)  \t\t0.400 (+/- 4.50%)\t+106.2%\n16     10.825  (+/- 10.61%)             9.556 (+/- 7.06%)\t -11.7%\n",
        );
        assert_eq!(t.label_columns, ["grp"]);
        let r = &t.rows[1];
        assert_eq!(r.metric, "16");
        assert_eq!(r.values, [Some(10.825), Some(9.556)]);
        assert_eq!(r.spread_pct, [Some(10.61), Some(7.06)]);
        assert_eq!(r.printed_deltas_pct, [None, Some(-11.7)]);
        // Word columns: the same under a header set at the left margin.
        let t = table_of(
            "        Baseline        Patched\n1       56.383          54.225 (+3.83%)\n128     30.596          27.090 (+11.46%)\n",
        );
        assert_eq!(
            (t.rows[1].metric.as_str(), t.rows[1].values[1]),
            ("128", Some(27.09))
        );
        let lines = crate::lines::split(
            "Baseline        Patched\n1       56.383          54.225\n2       40.047          35.492\n",
        );
        assert!(
            !matches!(recognize(&lines, 0), Some(Ok((_, BlockBody::Table(t)))) if t.rows[0].metric == "1")
        );
    }

    #[test]
    fn a_value_with_its_change_in_parentheses_is_one_cell() {
        let cs = cells("mb_optimize_scan=0    3588    6755 (+88.2%)");
        assert_eq!(cs.len(), 3);
        assert_eq!(cs[2].value, Some(6755.0));
        assert_eq!(cs[2].delta_pct, Some(88.2));
        assert_eq!(cs[2].printed, "6755 (+88.2%)");
        // A share without a sign is no change.
        assert_eq!(
            cells("376.06s ( 26.11%)")
                .iter()
                .filter(|c| c.delta_pct.is_some())
                .count(),
            0
        );
        assert_eq!(paren_change("(-3.5%)"), Some(-3.5));
        assert_eq!(paren_change("(12%)"), None);
        // Glued on, the same cell.
        let cs = cells("2   0.03   1235796.314(-13.5%)");
        assert_eq!(cs.len(), 3);
        assert_eq!(
            (cs[2].value, cs[2].delta_pct),
            (Some(1235796.314), Some(-13.5))
        );
        assert_eq!(glued_change("f(+1%)"), None);
        assert_eq!(glued_change("12(3)"), None);
    }

    #[test]
    fn a_first_spaced_name_may_head_the_labels() {
        let text = "Total memory   base kernel    patched kernel       %gain\n\
                    8GB             65.743          13.93              78.81\n\
                    32GB           153.95          132.12              14.17\n";
        let lines = crate::lines::split(text);
        let (_, body) = recognize(&lines, 0).unwrap().unwrap();
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(t.label_columns, ["Total memory"]);
        assert_eq!(t.columns, ["base kernel", "patched kernel"]);
        assert_eq!(t.delta_columns, ["%gain"]);
        assert_eq!(t.rows[0].metric, "8GB");
        assert_eq!(t.rows[0].values, [Some(65.743), Some(13.93)]);
        assert_eq!(t.rows[0].printed_deltas_pct, [None, Some(78.81)]);
        let text = "run of the week     base mean     patched mean\n\
                    first try one       1.5           2.5\n";
        let lines = crate::lines::split(text);
        let (_, body) = recognize(&lines, 0).unwrap().unwrap();
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(t.label_columns, ["run of the week"]);
        assert_eq!(t.rows[0].metric, "first try one");
    }

    #[test]
    fn keyed_rates_are_values_and_other_keys_words() {
        assert_eq!(keyed_rate("aggrb=1493.2MB/s"), Some((1493.2, Some("MB/s"))));
        assert_eq!(keyed_rate("bs=4k"), None);
        assert_eq!(keyed_rate("nr=3"), None);
        assert_eq!(keyed_rate("=3MB/s"), None);
    }

    #[test]
    fn two_label_columns_when_an_identity_follows_the_time() {
        let text =
            "12:00:00  CPU  %user  %idle\n12:00:01  all  1.00  99.00\n12:00:01    0  2.00  98.00\n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 3);
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(t.label_columns, ["12:00:00", "CPU"]);
        assert_eq!(t.columns, ["%user", "%idle"]);
        assert_eq!(t.rows[1].metric, "12:00:01 0");
        assert_eq!(t.rows[1].values, [Some(2.0), Some(98.0)]);
    }

    #[test]
    fn labels_of_several_words_and_spreads() {
        let text = "                       base             patched\nthroughput (MB/s)      1234 ± 2%        1456 ± 3%\nlatency p99 (us)       88.1 +- 4.2      61.0 +- 3.3\n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 3);
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(t.columns, ["base", "patched"]);
        assert_eq!(t.rows[0].metric, "throughput (MB/s)");
        assert_eq!(t.rows[0].values, [Some(1234.0), Some(1456.0)]);
        assert_eq!(t.rows[0].spread_pct, [Some(2.0), Some(3.0)]);
        assert_eq!(t.rows[1].values, [Some(88.1), Some(61.0)]);
        assert_eq!(t.rows[1].printed, ["88.1 ± 4.2", "61.0 ± 3.3"]);
    }

    #[test]
    fn group_names_over_a_rule_over_the_header() {
        let text = "                2.6.37-rc2                 2.6.37-rc1-next\n        --------------------------   --------------------------\n        %system   wkB/s     avgrq-sz   %system   wkB/s     avgrq-sz\n100dd   30.916    37843.000 748.670    3.079     41654.853 822.322\n100dd   30.501    37227.521 735.754    3.744     41531.725 820.360\n";
        let lines = crate::lines::split(text);
        let Some(Ok((_, BlockBody::Table(t)))) = word_table(&lines, 2) else {
            panic!("no table");
        };
        assert_eq!(t.columns, ["2.6.37-rc2", "2.6.37-rc1-next"]);
        assert_eq!(t.rows[0].metric, "%system 100dd");
        assert_eq!(t.rows[0].values, [Some(30.916), Some(3.079)]);
    }

    #[test]
    fn groups_over_repeated_columns_are_the_columns_compared() {
        // The hackbench/cyclictest table of Vincent Guittot's latency-nice
        // series ([PATCH v4 8/8] sched/fair: Add latency list).
        let text = "        latency 0           latency -20\n\
                    group   min  avg    max     min  avg    max\n\
                    0       17    19     29      17   18     30\n\
                    1       65   306   7149      64   83    208\n\
                    16      60  1392  87237      59   86    490\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = word_table(&lines, 1) else {
            panic!("no table");
        };
        assert_eq!(n, 4);
        assert_eq!(t.columns, ["latency 0", "latency -20"]);
        assert_eq!(t.label_columns, ["group"]);
        let row = |m: &str| {
            t.rows
                .iter()
                .find(|r| r.metric == m)
                .unwrap()
                .values
                .clone()
        };
        assert_eq!(row("max group=16"), [Some(87237.0), Some(490.0)]);
        assert_eq!(row("avg group=1"), [Some(306.0), Some(83.0)]);
        assert_eq!(t.rows.len(), 9);
    }

    #[test]
    fn a_list_of_labelled_values_without_a_header() {
        let text = "Baseline (no perf-stat)                 104.873 [sec]\n# global\nperf stat -a                            107.887 [sec]\nperf stat -C 1,3,5                      107.063 [sec]\n\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 4);
        assert_eq!(t.rows[2].metric, "perf stat -C 1,3,5");
        assert_eq!(t.rows[2].values, [Some(107.063)]);
        assert_eq!(t.unit.as_deref(), Some("sec"));
        // Two rows, or rows of different units, are no list.
        assert!(value_list(&crate::lines::split("a  1 [s]\nb  2 [s]\n"), 0).is_none());
        assert!(value_list(&crate::lines::split("a  1 [s]\nb  2 [ms]\nc  3 [s]\n"), 0).is_none());
        assert!(list_row("MemTotal:       16384 kB").is_none());
    }

    #[test]
    fn table_with_inner_bars_and_two_header_lines() {
        let text = "         | MGLRU enabled   | MGLRU enabled   | MGLRU disabled\n         | Without patch   | With patch      |\n    -----|-----------------|-----------------|---------------\n    c[0] | 25964544 (e=8%) | 28770304 (e=3%) | 27820032 (e=4%)\n    c[1] | 26214400 (e=9%) | 23998464 (e=4%) | 24776704 (e=6%)\n\nprose\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!("{:?}", bar_table(&lines, 0))
        };
        assert_eq!(n, 5);
        assert_eq!(
            t.columns,
            [
                "MGLRU enabled Without patch",
                "MGLRU enabled With patch",
                "MGLRU disabled"
            ]
        );
        assert_eq!(t.rows[1].metric, "c[1]");
        assert_eq!(
            t.rows[0].values,
            [Some(25964544.0), Some(28770304.0), Some(27820032.0)]
        );
        // A row alone with bars is no table; nor is a markdown row.
        assert!(bar_table(&crate::lines::split("a | b\n"), 0).is_none());
        assert!(bar_cells("| a | b |").is_none());
    }

    #[test]
    fn box_with_stddev_columns_and_double_rules() {
        let text = "+=======+==========+=========+=========+\n| %ile  | Baseline | stddev  |  patch  |\n+=======+==========+=========+=========+\n|    50 |       10 |    3.49 | 12(+20.0%) |\n+-------+----------+---------+---------+\n|    99 |      571 |   21.32 |     584 |\n+-------+----------+---------+---------+\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 7);
        assert_eq!(t.columns, ["Baseline", "patch"]);
        assert_eq!(t.spread_columns, ["stddev"]);
        assert_eq!(t.label_columns, ["%ile"]);
        assert_eq!(t.rows[0].metric, "%ile=50");
        assert_eq!(t.rows[0].values, [Some(10.0), Some(12.0)]);
        assert_eq!(t.rows[0].spread, [Some(3.49), None]);
        assert_eq!(t.rows[0].printed_deltas_pct, [None, Some(20.0)]);
        assert_eq!(t.rows[1].values, [Some(571.0), Some(584.0)]);
    }

    #[test]
    fn markdown_pipe_tables() {
        let text = "| run | base | patched | change |\n|---|--:|--:|--:|\n| fault | **4,410** | 1,230 (28%) | -72% |\n| other | 7 | 8 | +14% |\nprose\n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 4);
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(t.columns, ["base", "patched"]);
        assert_eq!(t.label_columns, ["run"]);
        assert_eq!(t.delta_columns, ["change"]);
        assert_eq!(t.rows[0].metric, "fault");
        assert_eq!(t.rows[0].values, [Some(4410.0), Some(1230.0)]);
        assert_eq!(t.rows[0].printed, ["**4,410**", "1,230 (28%)"]);
        assert_eq!(t.rows[0].printed_deltas_pct, [None, Some(-72.0)]);
        // Without the alignment row it is not a markdown table.
        let lines = crate::lines::split("| a | b |\n| 1 | 2 |\n");
        assert!(pipe_table(&lines, 0).is_none());
    }

    #[test]
    fn a_parameter_list_is_not_a_table() {
        // An LKP job's parameters (lore 20201230062412.GD22185@xsang-OptiPlex-9020).
        let text = "\truntime: 300\n\tthp_enabled: never\n\tthp_defrag: always\n\tnr_task: 32\n\tnr_ssd: 1\n\ttest: swap-w-rand-mt\n\tcpufreq_governor: performance\n\tucode: 0x4003003\n";
        let lines = crate::lines::split(text);
        for i in 0..lines.len() {
            assert!(recognize(&lines, i).is_none(), "line {}", i + 1);
        }
        assert!(crate::parse_str(text, None).is_err());
    }

    #[test]
    fn stress_ng_times_footer_is_not_a_table() {
        let text = include_str!(
            "../tests/real/stress_ng/lore-20230727080502-qi.zheng-ramfs-metrics-brief-times-before.txt"
        );
        let lines = crate::lines::split(text);
        let footer = lines
            .iter()
            .position(|l| l.text.starts_with("for a "))
            .unwrap();
        for i in footer..lines.len() {
            assert!(recognize(&lines, i).is_none(), "line {}", i + 1);
        }
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks.len(), 1);
        assert!(matches!(doc.blocks[0].body, BlockBody::Metrics(_)));
    }

    #[test]
    fn numbers_and_units() {
        assert_eq!(parse_number_unit("80GB"), Some((80.0, Some("GB"))));
        assert_eq!(parse_number_unit("38,267kb"), Some((38267.0, Some("kb"))));
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

    #[test]
    fn a_spread_padded_inside_parentheses_is_part_of_its_value() {
        let cs = cells("TCP_RR  224-threads  1.00 (  2.52)  +665.38 (  3.38)");
        assert_eq!(cs.len(), 4);
        assert_eq!(cs[2].value, Some(1.0));
        // Bare: a spread in percent only under a header that says so.
        assert_eq!((cs[2].spread_pct, cs[2].paren), (None, Some(2.52)));
        assert_eq!(cs[3].value, Some(665.38));
        assert_eq!(cs[3].paren, Some(3.38));
        assert_eq!(cs[3].printed, "+665.38 (3.38)");
        assert_eq!(cells("1.00 (2.52%)")[0].spread_pct, Some(2.52));
        let t = table_of(
            "case       load          baseline(std%)  compare%( std%)\nTCP_RR     224-threads   1.00 (  2.52)   +665.38 (  3.38)\nUDP_RR     224-threads   1.00 (  1.12)   +1.07 (  0.38)\n",
        );
        assert_eq!(t.rows[0].spread_pct, [Some(2.52), Some(3.38)]);
        // An absolute deviation in parentheses is no percentage.
        let t = table_of(
            "workers    stock       patched\n18         16327.844 (581.744)   15480.061 (582.654)\n36         8573.557 (285.058)    8003.888 (196.125)\n",
        );
        assert!(
            t.rows
                .iter()
                .all(|r| r.spread_pct.iter().all(Option::is_none)),
            "{t:?}"
        );
        // A signed change stays a change.
        assert_eq!(cells("6755 (+88.2%)")[0].delta_pct, Some(88.2));
        assert_eq!(cells("6755 (+88.2%)")[0].spread_pct, None);
    }

    #[test]
    fn header_names_ending_with_a_unit() {
        let h = unit_grouped_header("Thread Min Latency (μs) Avg Latency (μs) Max Latency (μs)")
            .unwrap();
        assert_eq!(
            h,
            [
                "Thread",
                "Min Latency (μs)",
                "Avg Latency (μs)",
                "Max Latency (μs)"
            ]
        );
        let h = unit_grouped_header("size read (MB/s) write (MB/s)").unwrap();
        assert_eq!(h, ["size", "read (MB/s)", "write (MB/s)"]);
        // Names of different lengths, a unit not last, or one unit only.
        assert!(unit_grouped_header("Min Latency (us) Max Wakeup Latency (us)").is_none());
        assert!(unit_grouped_header("Min (us) Max (us) total").is_none());
        assert!(unit_grouped_header("Thread Max Latency (us)").is_none());
    }

    #[test]
    fn sar_device_name_after_the_values() {
        let text = "11:42:21          tps     rkB/s     wkB/s   %util DEV\n11:42:22        53.00     36.00  34148.00    2.40 vda\n11:42:22         1.00      0.00      4.00    0.10 vdb\n\nAverage:          tps     rkB/s     wkB/s   %util DEV\nAverage:        59.50    198.00  17074.00    1.60 vda\n";
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks.len(), 2);
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.columns, ["tps", "rkB/s", "wkB/s", "%util"]);
        assert_eq!(t.label_columns, ["11:42:21", "DEV"]);
        assert_eq!(t.rows[1].metric, "11:42:22 vdb");
        assert_eq!(t.rows[0].values[2], Some(34148.0));
        // A name in the last column needs sar's time of day in the first.
        assert!(
            trailing_name_table(&crate::lines::split("x tps await DEV\nx 1 2 vda\n"), 0).is_none()
        );
    }

    #[test]
    fn markdown_dimension_columns_name_the_rows() {
        let text = "| mode | CPUs | median | 1→4 CPU speedup |\n| --- | ---: | ---: | ---: |\n| process | 1 | 58.471 s | — |\n| process | 4 | 25.276 s | **2.313×** |\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.label_columns, ["mode", "CPUs"]);
        assert_eq!(t.columns, ["median", "1→4 CPU speedup"]);
        assert_eq!(t.rows[1].metric, "process CPUs=4");
        assert_eq!(t.rows[1].values, [Some(25.276), Some(2.313)]);
        assert_eq!(t.rows[0].values, [Some(58.471), None]);
        // Without a label column the dimension alone names the row; a
        // dimension header over values that are not whole numbers is a
        // result column.
        let text = "| threads: | events/s: |\n| --- | --- |\n| 4 | 1208.10 |\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.rows[0].metric, "threads=4");
        let text = "| size | time |\n| --- | --- |\n| 1.5 | 3 |\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.columns, ["size", "time"]);
    }

    #[test]
    fn numbered_runs_with_an_average_row_under_a_markdown_heading() {
        let text = "Here are the results I gathered, three boots:\n### Boot 1\n| Run     | Time (s) |\n|---------|----------|\n| 1       | 8.38     |\n| 2       | 8.82     |\n| Average | 8.60     |\n";
        let doc = crate::parse_str(text, None).unwrap();
        let b = &doc.blocks[0];
        assert_eq!(b.heading.as_deref(), Some("Boot 1"));
        let crate::document::BlockBody::Table(t) = &b.body else {
            panic!("{:?}", doc.blocks)
        };
        assert_eq!(t.label_columns, ["Run"]);
        let names: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(names, ["1", "2", "Average"]);
        assert_eq!(t.rows[2].values, [Some(8.6)]);
        // Whole numbers alone are values.
        let text = "| a | time |\n| --- | --- |\n| 1 | 3 |\n| 2 | 4 |\n";
        let doc = crate::parse_str(text, None).unwrap();
        let crate::document::BlockBody::Table(t) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks)
        };
        assert!(t.label_columns.is_empty());
        assert_eq!(t.columns, ["a", "time"]);
        assert_eq!(t.rows[1].values, [Some(2.0), Some(4.0)]);
    }
}
