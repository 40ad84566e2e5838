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
    let (first, _) = t.split_once("(std deviation):")?;
    let first = first.trim();
    (first.starts_with("Average ") && first.ends_with(" Run") && first.contains(" load"))
        .then(|| format!("{first} (std deviation)"))
}

/// One cell: value, spread, as printed.
type Cell = (f64, Option<f64>, String);

/// `Elapsed Time 338.122 (0.869207)`, once or several times side by side:
/// the quantity and its cells.
fn row(text: &str) -> Option<(usize, Vec<Cell>)> {
    let mut rest = text.trim();
    let mut which = None;
    let mut cells = Vec::new();
    while !rest.is_empty() && cells.len() < MAX_COLUMNS {
        let (k, (name, _)) = ROWS
            .iter()
            .enumerate()
            .find(|(_, (name, _))| rest.starts_with(name))?;
        if which.is_some_and(|w| w != k) {
            return None;
        }
        which = Some(k);
        let after = rest[name.len()..].trim_start();
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
    (rest.is_empty() && !cells.is_empty()).then(|| (which.unwrap_or(0), cells))
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
    while let Some((k, cells)) = lines
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
    let columns = side_names(lines, start, n)
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
