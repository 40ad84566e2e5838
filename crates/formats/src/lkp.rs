//! LKP / kernel test robot comparison tables:
//!
//! ```text
//! f2ffc48de2017c69 ee5eda8ea59546af2e8f192c060
//! ---------------- ---------------------------
//!          %stddev     %change         %stddev
//!              \          |                \
//!     138055 ± 18%     +33.4%     184128 ± 14%  cpuidle..usage
//!       3.32 ± 46%      +1.5        4.82 ± 13%  perf-profile.calltrace...
//! ```
//!
//! Owns the commit-id header, the `\ | \` marker, `± N%` spreads and the
//! change column (a percentage, or an absolute difference for rows that are
//! already percentages). https://github.com/intel/lkp-tests

use crate::document::{BlockBody, Table, TableRow};
use crate::error::ParseError;
use crate::lines::Line;
use crate::plain::parse_number_unit;

const FORMAT: &str = "lkp";

fn is_commit_line(text: &str) -> Option<Vec<String>> {
    let ids: Vec<&str> = text.split_whitespace().collect();
    let ok = ids.len() >= 2
        && ids
            .iter()
            .all(|w| w.len() >= 7 && w.len() <= 40 && w.chars().all(|c| c.is_ascii_hexdigit()));
    ok.then(|| ids.iter().map(|s| s.to_string()).collect())
}

fn is_dash_line(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.chars().all(|c| c == '-' || c == ' ')
}

fn is_stddev_header(text: &str) -> bool {
    text.contains("%stddev") && text.contains("%change")
}

/// `       fail:runs  %reproduction    fail:runs`: the header of the
/// failure counts the robot prints above the `%stddev` section.
fn is_fail_header(text: &str) -> bool {
    text.contains("fail:runs") && text.contains("%reproduction")
}

/// `          1:4            5%           1:4     perf-profile.x`: a row of
/// failure counts (`fails:runs`, the share of runs that reproduced it).
fn is_fail_row(text: &str) -> bool {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let Some((metric, cells)) = toks.split_last() else {
        return false;
    };
    metric.chars().any(|c| c.is_ascii_alphabetic())
        && cells.iter().any(|c| c.contains(':'))
        && cells.iter().all(|c| {
            c.chars()
                .all(|ch| ch.is_ascii_digit() || matches!(ch, ':' | '%' | '.' | '+' | '-'))
        })
}

/// A failure row as a table row: per column the number of failed runs
/// (`6:6` is 6, `:6` none), the cells as printed. The `%reproduction`
/// between them is a difference of shares in points, not a change of a
/// value, so it is not kept as one.
fn fail_row(text: &str) -> Option<TableRow> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let (metric, cells) = toks.split_last()?;
    let mut values = Vec::new();
    let mut printed = Vec::new();
    for c in cells.iter().filter(|c| c.contains(':')) {
        let (fails, _runs) = c.split_once(':')?;
        values.push(if fails.is_empty() {
            Some(0.0)
        } else {
            Some(fails.parse::<f64>().ok()?)
        });
        printed.push((*c).to_string());
    }
    (!values.is_empty()).then(|| TableRow {
        metric: (*metric).to_string(),
        values,
        printed,
        ..TableRow::default()
    })
}

/// The table of a report of failures only, its columns named by the
/// commit ids above the rows.
fn fail_table(
    lines: &[Line<'_>],
    start: usize,
    ids: Vec<String>,
    rows: Vec<TableRow>,
) -> BlockBody {
    let ncols = rows.iter().map(|r| r.values.len()).max().unwrap_or(0);
    let columns = if ids.len() == ncols {
        ids
    } else {
        (1..=ncols).map(|n| format!("commit {n}")).collect()
    };
    BlockBody::Table(Table {
        style: "lkp".into(),
        title: testcase_above(lines, start),
        columns,
        rows,
        ..Table::default()
    })
}

fn is_marker_line(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.chars().all(|c| matches!(c, '\\' | '|' | ' '))
}

/// One data row: per column the value and spread, the printed percentage
/// change per column (None for the first and for absolute changes), and the
/// metric name.
struct LkpRow {
    values: Vec<Option<f64>>,
    spreads: Vec<Option<f64>>,
    deltas: Vec<Option<f64>>,
    printed: Vec<String>,
    metric: String,
}

fn parse_row(text: &str) -> Option<LkpRow> {
    // `Â±`, `A+-` and `ą` (U+0105) are `±` after a charset conversion;
    // `ï¿½` (or `�`) is a `±` that became U+FFFD on the way, then was
    // read as Latin-1 (its UTF-8 bytes).
    let norm = text
        .replace("ï¿½", " ± ")
        .replace('\u{FFFD}', " ± ")
        .replace("Â±", " ± ")
        .replace('ą', " ± ")
        .replace("A+-", " ± ")
        .replace('±', " ± ")
        .replace("+-", " ± ");
    let mut toks: Vec<&str> = norm.split_whitespace().collect();
    // An arrow the poster added after the metric (`fio.read_bw_MBps
    // <-----`, `<== this one`) points at the row; it is not part of it.
    if let Some(arrow) = toks
        .iter()
        .position(|t| t.starts_with("<-") || t.starts_with("<=") || t.starts_with('\u{2190}'))
        .filter(|&at| at > 0)
    {
        toks.truncate(arrow);
    }
    let (metric, cells) = toks.split_last()?;
    if !metric.chars().any(|c| c.is_ascii_alphabetic()) || parse_number_unit(metric).is_some() {
        return None;
    }
    let mut row = LkpRow {
        values: Vec::new(),
        spreads: Vec::new(),
        deltas: Vec::new(),
        printed: Vec::new(),
        metric: metric.to_string(),
    };
    let mut i = 0;
    let mut pending_delta: Option<f64> = None;
    loop {
        // A value, optionally followed by `± N%`.
        let tok = cells.get(i)?;
        let (v, unit) = parse_number_unit(tok)?;
        if unit.is_some() {
            return None;
        }
        let mut printed = tok.to_string();
        i += 1;
        let mut spread = None;
        // `?` is a `±` that a mailer could not encode.
        if matches!(cells.get(i), Some(&"±" | &"?")) {
            let s = cells.get(i + 1)?;
            spread = Some(parse_number_unit(s.strip_suffix('%')?)?.0);
            printed = format!("{printed} ± {s}");
            i += 2;
        } else if let Some(s) = cells.get(i).filter(|s| is_bare_spread(s)) {
            // `32528  48%  +147.6%`: the `±` turned into spaces. A change
            // always has its sign, so an unsigned percentage is a spread.
            spread = Some(parse_number_unit(s.strip_suffix('%')?)?.0);
            printed = format!("{printed} ± {s}");
            i += 1;
        }
        row.values.push(Some(v));
        row.spreads.push(spread);
        row.deltas.push(pending_delta.take());
        row.printed.push(printed);
        if i >= cells.len() {
            break;
        }
        // The change column: `+33.4%`, `-0.0`, `+2.1e+05%`.
        let change = cells.get(i)?;
        if !change.starts_with(['+', '-']) {
            return None;
        }
        if let Some(pct) = change.strip_suffix('%') {
            pending_delta = Some(parse_number_unit(pct)?.0);
        } else {
            parse_number_unit(change).filter(|(_, u)| u.is_none())?;
        }
        i += 1;
    }
    (row.values.len() >= 2).then_some(row)
}

/// `48%`: an unsigned percentage (a spread whose `±` was lost).
fn is_bare_spread(tok: &str) -> bool {
    tok.strip_suffix('%').is_some_and(|n| {
        n.starts_with(|c: char| c.is_ascii_digit())
            && parse_number_unit(n).is_some_and(|(_, u)| u.is_none())
    })
}

/// A row as the robot prints it, recognisable without the table's header:
/// a change column and a dotted metric name (`numa-meminfo.node0.AnonPages`).
fn is_headerless_row(text: &str) -> bool {
    let Some(r) = parse_row(text) else {
        return false;
    };
    let changes = text
        .split_whitespace()
        .skip(1)
        .filter(|t| {
            t.starts_with(['+', '-']) && parse_number_unit(t.trim_end_matches('%')).is_some()
        })
        .count();
    changes + 1 >= r.values.len() && r.values.len() >= 2 && r.metric.contains('.')
}

/// Most lines of a reply's comments between two runs of a quoted table.
const MAX_INTERLEAVED: usize = 40;

/// Where the table at quote depth `quote` goes on after `lines[i]`, a line
/// that is not one of its rows: past a reply's comments (lines quoted less
/// deeply than the table, or blank) to a row of the same depth and the
/// same number of columns.
fn resume_after_comments(lines: &[Line<'_>], i: usize, quote: u32, ncols: usize) -> Option<usize> {
    if quote == 0 {
        return None;
    }
    let mut k = i;
    let mut comments = 0;
    while let Some(l) = lines.get(k) {
        if l.quote == quote && !l.text.trim().is_empty() {
            let r = parse_row(l.text)?;
            return (r.values.len() == ncols && comments > 0).then_some(k);
        }
        if l.quote > quote || k - i >= MAX_INTERLEAVED {
            return None;
        }
        if !l.text.trim().is_empty() {
            comments += 1;
        }
        k += 1;
    }
    None
}

/// Recognise an LKP table at its commit-id line or its `%stddev` line.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let same = |i: usize| lines.get(i).filter(|l| l.quote == quote);
    // Column names: commit ids, or any names when the dashes and the
    // `%stddev` header follow (a table pasted by hand: `base  base+patchset`).
    let names = || {
        let words: Vec<String> = first.text.split_whitespace().map(str::to_string).collect();
        let dashes = same(start + 1).is_some_and(|l| is_dash_line(l.text));
        (dashes
            && words.len() >= 2
            && words.len() <= 16
            && !is_stddev_header(first.text)
            && !first.text.trim_start().starts_with('#'))
        .then_some(words)
    };
    let (commits, mut i) = if let Some(ids) = is_commit_line(first.text).or_else(names) {
        let dash = same(start + 1).is_some_and(|l| is_dash_line(l.text));
        // The failure counts (`fail:runs  %reproduction  fail:runs`, a
        // marker line, `1:4  5%  1:4  metric` rows) may come first.
        let mut at = start + 2;
        let mut fails = Vec::new();
        if same(at).is_some_and(|l| is_fail_header(l.text)) {
            at += 1;
            while let Some(l) = same(at).filter(|l| is_marker_line(l.text) || is_fail_row(l.text)) {
                fails.extend(fail_row(l.text));
                at += 1;
            }
        }
        let head = same(at).is_some_and(|l| is_stddev_header(l.text));
        if dash && !head && !fails.is_empty() {
            // A report of failures only (`xfstests.generic.417.fail`,
            // `dmesg.RIP:...`): no `%stddev` section follows.
            return Some(Ok((at - start, fail_table(lines, start, ids, fails))));
        }
        // A comparison pasted by hand without its `%stddev` line: commit
        // ids over dashes, then a row with its change and dotted metric.
        let bare = dash
            && !head
            && is_commit_line(first.text).is_some()
            && same(at).is_some_and(|l| is_headerless_row(l.text));
        if !(bare || dash && head) {
            return None;
        }
        (ids, if bare { at } else { at + 1 })
    } else if is_stddev_header(first.text) {
        (Vec::new(), start + 1)
    } else if is_headerless_row(first.text)
        && same(start + 1).is_some_and(|l| is_headerless_row(l.text))
        && !lines
            .get(start.wrapping_sub(1))
            .is_some_and(|l| l.quote == quote && parse_row(l.text).is_some())
    {
        // Rows quoted without the table's header (a reply keeps the rows it
        // talks about): two in a row, as the robot prints them.
        (Vec::new(), start)
    } else {
        return None;
    };
    if same(i).is_some_and(|l| is_marker_line(l.text)) {
        i += 1;
    }
    let snip = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| crate::lines::is_elision(l.text))
    };
    let mut rows = Vec::new();
    loop {
        while snip(i) && same(i + 1).is_some_and(|l| parse_row(l.text).is_some()) {
            i += 1;
        }
        let ncols = rows.first().map(|r: &TableRow| r.values.len()).unwrap_or(0);
        // Rows set off in groups by one blank line (a table made by hand):
        // the table goes on at a robot-style row of as many columns.
        // format=flowed re-wrapped the row at a space before its metric
        // (`0.69  -10.3%  0.62 ` / `reaim.child_systime`) or inside its
        // last spread (`2.01 ± ` / `2%  reaim.std_dev_percent`): read
        // joined, the second line's index with it.
        let flowed = |i: usize| {
            let l = same(i).filter(|l| l.text.ends_with(' '))?;
            let n = same(i + 1).map(|n| n.text.trim())?;
            let words = n.split_whitespace().count();
            (words <= 2 && n.split_whitespace().last().is_some_and(|m| m.contains('.')))
                .then(|| parse_row(&format!("{}{n}", l.text)))
                .flatten()
        };
        // Rows set off in groups by one blank line (a table made by hand,
        // or the blank line a format=flowed mailer leaves after a metric
        // name it wrapped): the table goes on at a robot-style row of as
        // many columns, or at one flowed onto two lines.
        if ncols > 0
            && same(i).is_some_and(|l| l.text.trim().is_empty())
            && (same(i + 1).is_some_and(|l| {
                is_headerless_row(l.text)
                    && parse_row(l.text).is_some_and(|r| r.values.len() == ncols)
            }) || flowed(i + 1).is_some_and(|r| r.values.len() == ncols))
        {
            i += 1;
        }
        let mut row = same(i).and_then(|l| parse_row(l.text));
        if row.is_none()
            && let Some(r) = flowed(i)
        {
            row = Some(r);
            i += 1;
        }
        let row = match row {
            Some(r) => r,
            None if ncols > 0 => match resume_after_comments(lines, i, quote, ncols) {
                Some(k) => {
                    i = k;
                    match same(i).and_then(|l| parse_row(l.text)) {
                        Some(r) => r,
                        None => break,
                    }
                }
                None => break,
            },
            None => break,
        };
        let r = row;
        rows.push(TableRow {
            stat: None,
            metric: r.metric,
            values: r.values,
            printed_deltas_pct: r.deltas,
            spread_pct: r.spreads,
            printed: r.printed,
            unit: None,
            spread: Vec::new(),
        });
        i += 1;
    }
    let Some(ncols) = rows.first().map(|r| r.values.len()) else {
        let (no, text) = same(i).map(|l| (l.no, l.text)).unwrap_or((first.no, ""));
        return Some(Err(ParseError::invalid(
            FORMAT,
            no,
            1,
            "a row `value ± N%  change  value ± N%  metric`",
            text,
        )));
    };
    let title = testcase_above(lines, start);
    let columns = if commits.len() == ncols {
        commits
    } else {
        (1..=ncols).map(|n| format!("commit {n}")).collect()
    };
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: "lkp".into(),
            title,
            columns,
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            unit: None,
            ..Table::default()
        }),
    )))
}

/// `compiler/.../testcase:` (older layout) or `compiler/.../testcase/testtime:`
/// (newer): slash-separated parameter names that include `testcase`.
fn is_parameter_names(t: &str) -> bool {
    t.strip_suffix(':').is_some_and(|names| {
        names.contains('/')
            && names.split('/').any(|n| n == "testcase")
            && names
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '-')
    })
}

/// The robot prints the job parameters above each table:
/// `compiler/cpufreq_governor/.../testcase:` and on the next line their
/// values (`gcc-12/performance/.../vm-scalability`). The title is what a
/// reader calls the job: its testcase, its `test` and the machine
/// (`tbox_group`), as in `vm-scalability swap-w-rand-mt on lkp-csl-2ap1`;
/// the whole value line when names and values do not pair up or name
/// neither a test nor a machine.
fn testcase_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let quote = lines.get(start)?.quote;
    // Up to 12 lines of the table's own quote level above it; a reply's
    // comment between the parameters and the table (at another level,
    // up to 24 lines) is passed over.
    let (mut own, mut other) = (0, 0);
    let at = (0..start).rev().find(|&i| {
        let Some(l) = lines.get(i) else { return true };
        if l.quote == quote {
            own += 1;
        } else {
            other += 1;
        }
        own > 12 || other > 24 || (l.quote == quote && is_parameter_names(l.text.trim()))
    })?;
    if !lines
        .get(at)
        .is_some_and(|l| l.quote == quote && is_parameter_names(l.text.trim()))
    {
        return None;
    }
    let names = lines.get(at)?.text.trim().trim_end_matches(':');
    // The values line, maybe below one or two blank ones: a format=flowed
    // mailer wraps the long names line before it with a line of one space
    // (and a reply quotes that line again).
    let values = (at + 1..at + 4)
        .filter_map(|i| lines.get(i))
        .map(|l| l.text.trim())
        .find(|t| !t.is_empty())?;
    if !values.contains('/') {
        return None;
    }
    let names: Vec<&str> = names.split('/').collect();
    let vals: Vec<&str> = values.split('/').collect();
    if names.len() != vals.len() {
        return Some(values.to_string());
    }
    let get = |k: &str| {
        names
            .iter()
            .position(|n| *n == k)
            .map(|i| vals[i])
            .filter(|v| !v.is_empty())
    };
    let Some(testcase) = get("testcase") else {
        return Some(values.to_string());
    };
    if get("test").is_none() && get("tbox_group").is_none() {
        return Some(values.to_string());
    }
    let mut title = testcase.to_string();
    if let Some(test) = get("test") {
        title.push(' ');
        title.push_str(test);
    }
    if let Some(machine) = get("tbox_group") {
        title.push_str(" on ");
        title.push_str(machine);
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_of_failures_only_is_a_table() {
        let text = "aaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbb\n\
                    ---------------- ---------------------------\n\
                    \x20      fail:runs  %reproduction    fail:runs\n\
                    \x20          |             |             |\n\
                    \x20          :6          100%           6:6     xfstests.generic.417.fail\n\
                    \x20         5:68          -7%            :68    dmesg.RIP:kobject_put\n\
                    \n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 6);
        let BlockBody::Table(t) = body else { panic!() };
        assert_eq!(
            t.columns,
            ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbb"]
        );
        assert_eq!(t.rows[0].metric, "xfstests.generic.417.fail");
        assert_eq!(t.rows[0].values, [Some(0.0), Some(6.0)]);
        assert_eq!(t.rows[0].printed, [":6", "6:6"]);
        assert_eq!(t.rows[1].values, [Some(5.0), Some(0.0)]);
        assert!(t.rows[0].printed_deltas_pct.is_empty());
        // A job parameter line wrapped by format=flowed (a line of one
        // space) still gives the title.
        let text = "tbox_group/testcase/test:\n \nlkp-x/will-it-scale/poll2\n\n\
                    aaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbb\n";
        let lines = crate::lines::split(text);
        assert_eq!(
            testcase_above(&lines, 4).as_deref(),
            Some("will-it-scale poll2 on lkp-x")
        );
    }

    #[test]
    fn a_blank_line_left_after_a_flowed_metric_name() {
        let text = "tbox_group/testcase/test:\n\n   \nlkp-x/stress-ng/fallocate\n\n\
                    0431d926b399d74f bad77c375e8de6c776c848e443f\n\
                    ---------------- ---------------------------\n\
                    \x20        %stddev     %change         %stddev\n\
                    \x20            \\          |                \\\n\
                    \x20    618.67           -10.0%     556.67 ±  2%  stress-ng.fallocate.ops\n\
                    \x20      1.33 ±  6%      +0.4        1.70 ± 13%  \n\
                    perf-profile.calltrace.cycles-pp.a_very_long_function_name \n\
                    \n\
                    \x20      1.40 ±  8%      +0.3        1.74 ± 12%  \n\
                    perf-profile.children.cycles-pp.b\n\
                    \n\
                    prose\n";
        let lines = crate::lines::split(text);
        let (_, body) = recognize(&lines, 5).unwrap().unwrap();
        let BlockBody::Table(t) = body else { panic!() };
        let metrics: Vec<&str> = t.rows.iter().map(|r| r.metric.as_str()).collect();
        assert_eq!(
            metrics,
            [
                "stress-ng.fallocate.ops",
                "perf-profile.calltrace.cycles-pp.a_very_long_function_name",
                "perf-profile.children.cycles-pp.b"
            ]
        );
        assert_eq!(t.rows[2].values, [Some(1.4), Some(1.74)]);
        assert_eq!(t.title.as_deref(), Some("stress-ng fallocate on lkp-x"));
    }

    #[test]
    fn rows() {
        let r = parse_row("    138055 ± 18%     +33.4%     184128 ± 14%  cpuidle..usage").unwrap();
        assert_eq!(r.values, vec![Some(138055.0), Some(184128.0)]);
        assert_eq!(r.spreads, vec![Some(18.0), Some(14.0)]);
        assert_eq!(r.deltas, vec![None, Some(33.4)]);
        let r = parse_row("      0.20 ±153%  +2.1e+05%     418.07 ±203%  perf-sched.x").unwrap();
        assert_eq!(r.deltas, vec![None, Some(2.1e5)]);
        let r = parse_row("      3.32 ± 46%      +1.5        4.82 ± 13%  perf-profile.y").unwrap();
        assert_eq!(r.deltas, vec![None, None]);
        let r =
            parse_row("  41184117           -30.4%   28662735 ±  2%  vm-scalability.throughput")
                .unwrap();
        assert_eq!(r.spreads, vec![None, Some(2.0)]);
        assert!(parse_row("this is prose 12").is_none());
        let r =
            parse_row("     13422 ±  6%      -1.4%      13233        fio.read_bw_MBps   <-----")
                .unwrap();
        assert_eq!(
            (r.metric.as_str(), r.deltas[1]),
            ("fio.read_bw_MBps", Some(-1.4))
        );
        assert!(parse_row("<-- 13422  13233 fio.read_bw_MBps").is_none());
    }

    #[test]
    fn rows_re_wrapped_by_format_flowed() {
        let text = "          %stddev     %change         %stddev\n              \\          |                \\\n       0.69           -10.3%       0.62 \n   reaim.child_systime\n       1.58 ±  2%     +71.0%       2.70 ± \n2%  reaim.std_dev_percent\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 6);
        assert_eq!(t.rows[0].metric, "reaim.child_systime");
        assert_eq!(t.rows[1].values, [Some(1.58), Some(2.70)]);
        assert_eq!(t.rows[1].spread_pct, [Some(2.0), Some(2.0)]);
    }

    #[test]
    fn spreads_whose_sign_was_lost() {
        let r = parse_row(
            "     32528  48%    +147.6%      80547  38%  numa-meminfo.node0.AnonHugePages",
        )
        .unwrap();
        assert_eq!(r.values, vec![Some(32528.0), Some(80547.0)]);
        assert_eq!(r.spreads, vec![Some(48.0), Some(38.0)]);
        assert_eq!(r.deltas, vec![None, Some(147.6)]);
        let r = parse_row("  138055 ? 18%     +33.4%     184128 ? 14%  cpuidle..usage").unwrap();
        assert_eq!(r.spreads, vec![Some(18.0), Some(14.0)]);
    }

    fn rows_of(text: &str) -> Vec<String> {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0) {
            Some(Ok((_, BlockBody::Table(t)))) => t.rows.into_iter().map(|r| r.metric).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_quoted_table_goes_on_after_the_replies_between_its_rows() {
        let head = "> aaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbb\n> ---------------- ----------------\n>          %stddev     %change         %stddev\n";
        let text = format!(
            "{head}>       0.23 ±  2%     +11.7%       0.26        a.free_time\n\nA question?\n\n>     103991           -11.6%      91935        a.median\n>   20717269           -11.5%   18336098        a.throughput\n"
        );
        assert_eq!(rows_of(&text), ["a.free_time", "a.median", "a.throughput"]);
        // Prose at the table's own depth ends it; so does a row of another width.
        let text = format!(
            "{head}>       0.23     +11.7%       0.26        a.x\n> The robot says more.\n>     103991           -11.6%      91935        a.y\n"
        );
        assert_eq!(rows_of(&text), ["a.x"]);
        let text = format!(
            "{head}>       0.23     +11.7%       0.26        a.x\nwhy?\n>  1  +1%  2  +1%  3  a.y\n"
        );
        assert_eq!(rows_of(&text), ["a.x"]);
    }

    #[test]
    fn commit_ids_over_one_row_without_stddev_line() {
        let text = "  aaaaaaa1bbbbbbbb     ccccccc2dddddddd \n  ----------------     ---------------- \n    134793            -1.4%     132867        will-it-scale.per_thread_ops\n";
        assert_eq!(rows_of(text), ["will-it-scale.per_thread_ops"]);
        // Names that are no commit ids need the `%stddev` line.
        let text = "  base     patched\n  ----     -------\n    134793            -1.4%     132867        will-it-scale.per_thread_ops\n";
        assert!(rows_of(text).is_empty());
    }

    #[test]
    fn rows_quoted_without_their_header() {
        let text = ">      32528  48%    +147.6%      80547  38%  numa-meminfo.node0.AnonHugePages\n>      92821  23%     +59.3%     147839  28%  numa-meminfo.node0.AnonPages\n";
        assert_eq!(rows_of(text).len(), 2);
        // One row alone, or rows without a change column, are not a table.
        assert!(rows_of(">      32528  48%    +147.6%      80547  38%  numa.x\n").is_empty());
        assert!(rows_of("  1 2 3 a.b\n  4 5 6 c.d\n").is_empty());
    }

    #[test]
    fn failure_counts() {
        assert!(is_fail_header(
            "       fail:runs  %reproduction    fail:runs"
        ));
        assert!(is_fail_row(
            "          1:4            5%           1:4     perf-profile.children.cycles-pp.error_entry"
        ));
        assert!(is_fail_row(
            "           :4           25%           1:4     dmesg.WARNING"
        ));
        assert!(!is_fail_row(
            "      3.97           +33.0%       5.28 ±  2%  vm-scalability.free_time"
        ));
    }
}
