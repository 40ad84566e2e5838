//! kernbench's summary, one block per load:
//!
//! ```text
//! Average Optimal load -j 24 Run (std deviation):
//! Elapsed Time 415.988 (8.37909)
//! User Time 4142 (759.964)
//! ...
//! Sleeps 738483 (149934)
//! ```
//!
//! Becomes a plain `table` titled by its first line, one row per quantity,
//! the standard deviation in parentheses as the row's absolute `spread`.
//! Two summaries pasted side by side (`Elapsed Time 338.122 (0.869207)
//! Elapsed Time 336.404 (1.69196)`) are two columns, named by a line of
//! side names above (`With 'if':      Without 'if':`) when there is one.
//! A hand-made table of them (the title without its colon, a header of
//! the columns' names under it, each quantity named once before its
//! cells, a `delta %` last) is read too: the change is the last column's
//! `printed_deltas_pct`.

use crate::document::{BlockBody, Table, TableRow};
use crate::lines::Line;
use crate::plain::{parse_number_unit, wide_segments};

/// The quantities kernbench prints, with their units.
const ROWS: &[(&str, Option<&str>)] = &[
    ("Elapsed Time", Some("s")),
    ("User Time", Some("s")),
    ("System Time", Some("s")),
    ("Percent CPU", Some("%")),
    ("Context Switches", None),
    ("Sleeps", None),
];

/// Most summaries one line may hold side by side.
const MAX_COLUMNS: usize = 8;

/// `Average Half load -j 8 Run (std deviation):`, possibly repeated side
/// by side: the first title without its colon.
fn title(text: &str) -> Option<String> {
    let t = text.trim();
    // Also without its colon, as a poster retyped it.
    let (first, _) = t
        .split_once("(std deviation):")
        .or_else(|| t.strip_suffix("(std deviation)").map(|f| (f, "")))?;
    let first = first.trim();
    (first.starts_with("Average ") && first.ends_with(" Run") && first.contains(" load"))
        .then(|| format!("{first} (std deviation)"))
}

/// One cell: value, spread, as printed.
type Cell = (f64, Option<f64>, String);

/// `Elapsed Time 338.122 (0.869207)`, once or several times side by side,
/// or named once before the cells of every column (`Elapsed Time
/// 145.968 (0.402206)  145.654 (0.533601)  -0.22` under a header of the
/// columns' names, the last a change in percent): the quantity, its
/// cells and that change.
fn row(text: &str) -> Option<(usize, Vec<Cell>, Option<f64>)> {
    let mut rest = text.trim();
    let mut which = None;
    let mut cells = Vec::new();
    let mut change = None;
    while !rest.is_empty() && cells.len() < MAX_COLUMNS {
        let named = ROWS
            .iter()
            .enumerate()
            .find(|(_, (name, _))| rest.starts_with(name));
        let (k, name_len) = match (named, which) {
            (Some((k, (name, _))), _) => (k, name.len()),
            // The quantity named once: the next cell of the same row.
            (None, Some(w)) => (w, 0),
            (None, None) => return None,
        };
        if which.is_some_and(|w| w != k) {
            return None;
        }
        which = Some(k);
        let after = rest[name_len..].trim_start();
        // A last number without a spread after named-once cells: the
        // row's change (`-0.22`, `+2.37`).
        if name_len == 0
            && !after.contains(char::is_whitespace)
            && let Some((v, None | Some("%"))) = parse_number_unit(after)
        {
            change = Some(v);
            rest = "";
            break;
        }
        let (value_tok, after) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        let value = match parse_number_unit(value_tok)? {
            (v, None) => v,
            _ => return None,
        };
        let after = after.trim_start();
        let (spread, printed, after) = match after.strip_prefix('(') {
            Some(inner) => {
                let (sd, after) = inner.split_once(')')?;
                let sd_value = match parse_number_unit(sd.trim())? {
                    (v, None) => v,
                    _ => return None,
                };
                (
                    Some(sd_value),
                    format!("{value_tok} ({})", sd.trim()),
                    after,
                )
            }
            None => (None, value_tok.to_string(), after),
        };
        cells.push((value, spread, printed));
        rest = after.trim_start();
    }
    (rest.is_empty() && !cells.is_empty()).then(|| (which.unwrap_or(0), cells, change))
}

/// A header of the columns' names under the title (`4.13.0-mm1
/// 4.13.0-mm1-spf  delta %`), as wide-set names with no number among
/// them: the names, the change's column left out.
fn header_names(text: &str) -> Option<(Vec<String>, bool)> {
    let mut names: Vec<String> = wide_segments(text).map(str::to_string).collect();
    if names.is_empty()
        || names
            .iter()
            .any(|n| parse_number_unit(n).is_some() || row(n).is_some())
    {
        return None;
    }
    let delta = names.last().is_some_and(|n| {
        matches!(
            n.to_ascii_lowercase().as_str(),
            "delta %" | "delta" | "%" | "diff %"
        )
    });
    if delta {
        names.pop();
    }
    (!names.is_empty()).then_some((names, delta))
}

/// The side names on the line above the title (`Base:`, `With 'if':
/// Without 'if':`), when there are as many as columns.
fn side_names(lines: &[Line<'_>], start: usize, n: usize) -> Option<Vec<String>> {
    let above = lines.get(start.checked_sub(1)?)?;
    if above.quote != lines.get(start)?.quote {
        return None;
    }
    let names: Vec<String> = wide_segments(above.text)
        .map(|s| s.trim_end_matches(':').trim().to_string())
        .collect();
    let ok = names.len() == n
        && above.text.trim_end().ends_with(':')
        && names
            .iter()
            .all(|s| !s.is_empty() && s.len() <= 40 && s.split_whitespace().count() <= 5);
    ok.then_some(names)
}

pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), crate::ParseError>> {
    let head = lines.get(start)?;
    let title = title(head.text)?;
    let mut rows: Vec<TableRow> = Vec::new();
    let mut width = None;
    let mut i = start + 1;
    let header = lines
        .get(i)
        .filter(|l| l.quote == head.quote)
        .and_then(|l| header_names(l.text));
    if header.is_some() {
        i += 1;
    }
    while let Some((k, cells, change)) = lines
        .get(i)
        .filter(|l| l.quote == head.quote)
        .and_then(|l| row(l.text))
    {
        if *width.get_or_insert(cells.len()) != cells.len()
            || rows.iter().any(|r| r.metric == ROWS[k].0)
        {
            break;
        }
        rows.push(TableRow {
            stat: None,
            metric: ROWS[k].0.to_string(),
            values: cells.iter().map(|c| Some(c.0)).collect(),
            spread: cells.iter().map(|c| c.1).collect(),
            printed: cells.iter().map(|c| c.2.clone()).collect(),
            unit: ROWS[k].1.map(str::to_string),
            // The change printed after the last column, of it against
            // the first.
            printed_deltas_pct: match change {
                Some(c) => (0..cells.len())
                    .map(|j| (j + 1 == cells.len()).then_some(c))
                    .collect(),
                None => Vec::new(),
            },
            ..TableRow::default()
        });
        i += 1;
    }
    let n = width?;
    if rows.len() < 2 {
        return None;
    }
    if rows.iter().all(|r| r.spread.iter().all(Option::is_none)) {
        for r in &mut rows {
            r.spread.clear();
        }
    }
    let columns = header
        .map(|(names, _)| names)
        .filter(|names| names.len() == n)
        .or_else(|| side_names(lines, start, n))
        .unwrap_or_else(|| (1..=n).map(|c| format!("run {c}")).collect());
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: "plain".into(),
            title: Some(title),
            columns,
            rows,
            ..Table::default()
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_of_kernels_and_a_change_column() {
        let text = "Average Half load -j 8 Run (std deviation)\n \t\t 4.13.0-mm1\t\t4.13.0-mm1-spf\t\tdelta %\nElapsed Time     145.968 (0.402206)\t145.654 (0.533601)\t-0.22\nSystem Time      108.464 (0.177567)\t111.034 (0.718213)\t+2.37\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 4);
        assert_eq!(
            t.title.as_deref(),
            Some("Average Half load -j 8 Run (std deviation)")
        );
        assert_eq!(t.columns, ["4.13.0-mm1", "4.13.0-mm1-spf"]);
        assert_eq!(t.rows[0].values, [Some(145.968), Some(145.654)]);
        assert_eq!(t.rows[0].spread, [Some(0.402206), Some(0.533601)]);
        assert_eq!(t.rows[1].printed_deltas_pct, [None, Some(2.37)]);
    }

    #[test]
    fn one_summary_and_two_side_by_side() {
        let text = "Base:\nAverage Optimal load -j 24 Run (std deviation):\nElapsed Time 415.988 (8.37909)\nUser Time 4142 (759.964)\nSleeps 738483 (149934)\n\nprose\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 1) else {
            panic!()
        };
        assert_eq!(n, 4);
        assert_eq!(
            t.title.as_deref(),
            Some("Average Optimal load -j 24 Run (std deviation)")
        );
        assert_eq!(t.columns, ["Base"]);
        assert_eq!(t.rows[0].values, [Some(415.988)]);
        assert_eq!(t.rows[0].spread, [Some(8.37909)]);
        assert_eq!(t.rows[0].unit.as_deref(), Some("s"));
        assert_eq!(t.rows[2].metric, "Sleeps");

        let text = "With 'if':                            Without 'if':\nAverage Half load -j 8 Run (std deviation):\nElapsed Time 338.122 (0.869207)       Elapsed Time 336.404 (1.69196)\nPercent CPU 663 (2.12132)             Percent CPU 667.4 (3.20936)\n";
        let lines = crate::lines::split(text);
        let Some(Ok((_, BlockBody::Table(t)))) = recognize(&lines, 1) else {
            panic!()
        };
        assert_eq!(t.columns, ["With 'if'", "Without 'if'"]);
        assert_eq!(t.rows[1].values, [Some(663.0), Some(667.4)]);
        assert_eq!(t.rows[1].printed[1], "667.4 (3.20936)");
    }

    #[test]
    fn what_is_no_summary() {
        // Mixed quantities on one line, or a title over prose.
        assert!(row("Elapsed Time 1 (2) User Time 3 (4)").is_none());
        assert!(row("Elapsed Time was long").is_none());
        let lines = crate::lines::split(
            "Average Half load -j 8 Run (std deviation):\nElapsed Time 1 (2)\nthen it stopped\n",
        );
        assert!(recognize(&lines, 0).is_none());
    }
}
