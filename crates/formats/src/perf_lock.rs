//! `perf lock contention` tables:
//!
//! ```text
//!  contended   total wait     max wait     avg wait         type   caller
//!
//!        122      1.01 ms     18.73 us      8.32 us        mutex   pipe_read+0x57
//!                          0xffffffffac6318e7  pipe_read+0x57
//! ```
//!
//! The key columns after `avg wait` depend on the flags: `type caller`
//! (default), `pid comm` (`-t`), `pid owner` (`-o`), `address symbol`
//! (`-l`), `cgroup` (`--lock-cgroup`). Every wait cell carries its own
//! unit (`975 ns`, `1.23 ms`, `2.33 s`); all are stored in microseconds.
//! Call-stack lines under a row (`-v`, `-S`) become its `stack`.

use crate::document::{BlockBody, LockContention, LockRow};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "perf-lock";

/// Most rows (and stack lines) one table may hold.
const MAX_LINES: usize = 65_536;

/// Frames kept per row.
const MAX_STACK: usize = 128;

/// The key columns a header names, in order after `avg wait`.
fn key_of(header: &str) -> Option<&'static str> {
    let t = header.trim();
    let rest = t.strip_prefix("contended")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let waits = ["total", "wait", "max", "wait", "avg", "wait"];
    if words.len() < waits.len() || words.get(..waits.len())? != waits {
        return None;
    }
    Some(match words.get(waits.len()..)? {
        ["type", "caller"] => "caller",
        ["pid", "comm"] => "task",
        ["pid", "owner"] => "owner",
        ["address", "symbol"] => "lock",
        ["cgroup"] => "cgroup",
        _ => return None,
    })
}

/// Recognise a table at its header line.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let header = lines.get(start)?;
    let key = key_of(header.text)?;
    let quote = header.quote;
    let mut rows: Vec<LockRow> = Vec::new();
    let mut i = start + 1;
    let mut blank_run = 0;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if i - start > MAX_LINES {
            break;
        }
        let t = l.text.trim();
        if t.is_empty() {
            // perf prints one blank line under the header.
            blank_run += 1;
            if !rows.is_empty() || blank_run > 1 {
                break;
            }
            i += 1;
            continue;
        }
        if let Some(frame) = stack_line(t) {
            let Some(last) = rows.last_mut() else {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    "a table row before a call-stack line",
                    l.text,
                )));
            };
            if last.stack.len() < MAX_STACK {
                last.stack.push(frame.to_string());
            }
            i += 1;
            continue;
        }
        match parse_row(t, key) {
            Some(r) => rows.push(r),
            None if rows.is_empty() && starts_with_count(t) => {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    format!(
                        "`contended  total wait  max wait  avg wait` with units, then the {key} columns"
                    ),
                    l.text,
                )));
            }
            None => break,
        }
        i += 1;
    }
    if rows.is_empty() {
        let l = lines.get(i.min(lines.len().saturating_sub(1)))?;
        return Some(Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "rows under the `contended  total wait ...` header",
            l.text,
        )));
    }
    Some(Ok((
        i - start,
        BlockBody::LockContention(LockContention {
            tool: "perf-lock".into(),
            key: key.into(),
            rows,
        }),
    )))
}

fn starts_with_count(t: &str) -> bool {
    t.split_whitespace()
        .next()
        .is_some_and(|w| units::int(w).is_some())
}

/// `0xffffffffac6318e7  pipe_read+0x57` -> `pipe_read+0x57`.
fn stack_line(t: &str) -> Option<&str> {
    let (addr, sym) = t.split_once(char::is_whitespace)?;
    let hex = addr.strip_prefix("0x")?;
    (!hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())).then(|| sym.trim())
}

/// `  122      1.01 ms     18.73 us      8.32 us        mutex   pipe_read+0x57`.
fn parse_row(t: &str, key: &str) -> Option<LockRow> {
    let mut rest = t;
    let mut word = || -> Option<&str> {
        let s = rest.trim_start();
        let end = s.find(char::is_whitespace).unwrap_or(s.len());
        let (w, r) = s.split_at(end);
        rest = r;
        (!w.is_empty()).then_some(w)
    };
    let contended = units::int(word()?)?;
    let mut waits = [0.0; 3];
    for w in &mut waits {
        let v = word()?;
        let unit = word()?;
        *w = units::duration_us(v, unit)?;
    }
    let [total_wait_us, max_wait_us, avg_wait_us] = waits;
    let mut row = LockRow {
        contended,
        total_wait_us,
        max_wait_us,
        avg_wait_us,
        ..LockRow::default()
    };
    match key {
        "caller" => {
            row.lock_type = Some(word()?.to_string());
            row.caller = Some(word()?.to_string());
            if word().is_some() {
                return None;
            }
        }
        "task" | "owner" => {
            let pid = word()?;
            row.pid = Some(pid.parse().ok()?);
            let comm = rest.trim();
            if comm.is_empty() {
                return None;
            }
            row.task = Some(comm.to_string());
        }
        "lock" => {
            let addr = word()?;
            if !addr.chars().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            row.address = Some(addr.to_string());
            let sym = rest.trim();
            if sym.is_empty() {
                return None;
            }
            // `&task_struct (mutex)`: the type in parentheses.
            match sym.rsplit_once(" (") {
                Some((name, ty)) if ty.ends_with(')') => {
                    row.lock = Some(name.trim().to_string());
                    row.lock_type = Some(ty.trim_end_matches(')').to_string());
                }
                _ => row.lock = Some(sym.to_string()),
            }
        }
        _ => {
            let cg = rest.trim();
            if cg.is_empty() {
                return None;
            }
            row.cgroup = Some(cg.to_string());
        }
    }
    Some(row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    #[test]
    fn caller_rows_and_stacks() {
        let text = " contended   total wait     max wait     avg wait         type   caller\n\n       171      1.55 ms     20.26 us      9.06 us        mutex   pipe_read+0x57\n                          0xffffffffac6318e7  pipe_read+0x57\n                          0xffffffffac623862  vfs_read+0x332\n         1       975 ns       975 ns       975 ns     spinlock   foo+0x1\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::LockContention(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 6);
        assert_eq!(t.key, "caller");
        assert_eq!(t.rows[0].total_wait_us, 1550.0);
        assert_eq!(t.rows[0].stack, vec!["pipe_read+0x57", "vfs_read+0x332"]);
        assert_eq!(t.rows[1].avg_wait_us, 0.975);
    }

    #[test]
    fn broken_first_row_is_an_error_with_its_line() {
        let lines = split(
            " contended   total wait     max wait     avg wait         type   caller\n\n  12  1.0 parsecs\n",
        );
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 3);
    }
}
