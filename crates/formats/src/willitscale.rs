//! will-it-scale's raw CSV (`runtest.py` output):
//!
//! ```text
//! tasks,processes,processes_idle,threads,threads_idle,linear
//! 0,0,100,0,100,0
//! 1,262133,97.89,261505,97.89,262133
//! ```
//!
//! Becomes a `table` with style `will-it-scale`: the columns are the header
//! after `tasks`, one row per tasks count. `tasks` is a label column (a
//! dimension of the run, never a result column nor a variant): each row's
//! `metric` is `tasks=N`, as plain tables name rows by a numeric label cell.
//!
//! A run pasted without its header line (the second of two runs, under a
//! heading of its own) is recognised at its idle row, `0,0,100,0,100,0`,
//! which only `runtest.py`'s standard six columns print; its columns are
//! those six.

use crate::document::{BlockBody, Table, TableRow};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "will-it-scale";

/// Most rows (tasks counts) one table may hold.
const MAX_ROWS: usize = 4096;

/// Most columns after `tasks`.
const MAX_COLUMNS: usize = 32;

fn header(text: &str) -> Option<Vec<&str>> {
    let t = text.trim();
    let cols: Vec<&str> = t.split(',').map(str::trim).collect();
    if cols.first() != Some(&"tasks")
        || cols.len() < 3
        || cols.len() > MAX_COLUMNS + 1
        || !cols.contains(&"processes") && !cols.contains(&"threads")
    {
        return None;
    }
    cols.iter()
        .all(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| cols.into_iter().skip(1).collect())
}

/// The columns after `tasks` that `runtest.py` prints.
const STANDARD: [&str; 5] = [
    "processes",
    "processes_idle",
    "threads",
    "threads_idle",
    "linear",
];

/// The idle row every run starts with (no task: 100 % idle).
const IDLE_ROW: &str = "0,0,100,0,100,0";

/// Recognise the CSV at its header line, or a headerless run at its idle
/// row.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let (columns, mut i) = match header(first.text) {
        Some(columns) => (columns, start + 1),
        None => {
            let headed = start
                .checked_sub(1)
                .and_then(|p| lines.get(p))
                .is_some_and(|p| p.quote == first.quote && header(p.text).is_some());
            if first.text.trim() != IDLE_ROW || headed {
                return None;
            }
            (STANDARD.to_vec(), start)
        }
    };
    let n = columns.len();
    let mut rows = Vec::new();
    while let Some(l) = lines.get(i).filter(|l| l.quote == first.quote) {
        let t = l.text.trim();
        if t == "..." {
            // Rows left out by the poster.
            i += 1;
            continue;
        }
        // A blank line, prose, or the header of the next run ends the table.
        if t.is_empty() || !t.contains(',') || header(t).is_some() {
            break;
        }
        // `1,729990,95.68,725437,95.66,725437 (Single process)`: a note
        // after the last cell.
        let t = match t.split_once(" (") {
            Some((cells, note)) if note.ends_with(')') => cells.trim_end(),
            _ => t,
        };
        let cells: Vec<&str> = t.split(',').map(str::trim).collect();
        let bad = |what: String| Some(Err(ParseError::invalid(FORMAT, l.no, 1, what, l.text)));
        if cells.len() != n + 1 {
            return bad(format!("{} comma-separated cells like the header", n + 1));
        }
        let Some(tasks) = cells.first().and_then(|c| units::int(c)) else {
            return bad("a tasks count in the first cell".into());
        };
        let mut values = Vec::with_capacity(n);
        for c in cells.iter().skip(1) {
            match units::scaled(c, 0) {
                Some(v) => values.push(Some(v)),
                None => return bad(format!("numbers in every cell, found {c:?}")),
            }
        }
        if rows.len() >= MAX_ROWS {
            return bad(format!("at most {MAX_ROWS} rows"));
        }
        rows.push(TableRow {
            metric: format!("tasks={tasks}"),
            values,
            ..TableRow::default()
        });
        i += 1;
    }
    if rows.is_empty() {
        return None;
    }
    Some(Ok((
        i - start,
        BlockBody::Table(Table {
            style: "will-it-scale".into(),
            title: None,
            columns: columns.into_iter().map(str::to_string).collect(),
            column_kernels: Vec::new(),
            column_variants: Vec::new(),
            rows,
            unit: None,
            label_columns: vec!["tasks".into()],
            delta_columns: Vec::new(),
            spread_columns: Vec::new(),
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    #[test]
    fn csv() {
        let lines = split(
            "tasks,processes,processes_idle,threads,threads_idle,linear\n0,0,100,0,100,0\n1,262133,97.89,261505,97.89,262133\n\nnext",
        );
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 3);
        assert_eq!(t.columns.len(), 5);
        assert_eq!(t.rows[1].metric, "tasks=1");
        assert_eq!(t.label_columns, vec!["tasks"]);
        assert_eq!(t.rows[1].values[1], Some(97.89));
        let lines = split("tasks,processes,threads\n1,2\n");
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 2);
    }

    #[test]
    fn headerless_run_at_its_idle_row() {
        let lines = split("With Hinting:\n0,0,100,0,100,0\n1,306737,95.82,305130,95.78,306737\n");
        assert!(recognize(&lines, 0).is_none());
        let Some(Ok((n, BlockBody::Table(t)))) = recognize(&lines, 1) else {
            panic!()
        };
        assert_eq!(n, 2);
        assert_eq!(t.columns, STANDARD);
        assert_eq!(t.rows[1].metric, "tasks=1");
        assert_eq!(t.rows[1].values[2], Some(305130.0));
        // Under its header the idle row is not a run of its own.
        let lines =
            split("tasks,processes,processes_idle,threads,threads_idle,linear\n0,0,100,0,100,0\n");
        assert!(recognize(&lines, 1).is_none());
        // Other six-number rows are no run.
        assert!(recognize(&split("1,2,3,4,5,6\n"), 0).is_none());
    }
}
