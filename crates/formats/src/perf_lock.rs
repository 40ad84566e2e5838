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

/// A statistic column of the header.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stat {
    Contended,
    Total,
    Max,
    Min,
    Avg,
}

/// A wait cell in microseconds: perf prints `ns`, `us`, `ms`, `s`, and
/// for long totals minutes (`m`) and hours (`64.69 h`).
fn wait_us(value: &str, unit: &str) -> Option<f64> {
    let per = match unit {
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return units::duration_us(value, unit),
    };
    Some(units::scaled(value, 6)? * per)
}

/// The header: its statistic columns in print order and the key its last
/// columns name. `contended` and `total wait` must be there (`-F` can
/// reorder and drop the others).
fn header(text: &str) -> Option<(Vec<Stat>, &'static str)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut stats = Vec::new();
    let mut k = 0;
    loop {
        let stat = match (words.get(k), words.get(k + 1)) {
            (Some(&"contended"), _) => {
                k += 1;
                Stat::Contended
            }
            (Some(w), Some(&"wait")) => {
                let s = match *w {
                    "total" => Stat::Total,
                    "max" => Stat::Max,
                    "min" => Stat::Min,
                    "avg" => Stat::Avg,
                    _ => break,
                };
                k += 2;
                s
            }
            _ => break,
        };
        if stats.contains(&stat) {
            return None;
        }
        stats.push(stat);
    }
    if !stats.contains(&Stat::Contended) || !stats.contains(&Stat::Total) {
        return None;
    }
    let key = match words.get(k..)? {
        ["type", "caller"] => "caller",
        ["pid", "comm"] => "task",
        ["pid", "owner"] => "owner",
        ["address", "symbol"] => "lock",
        ["cgroup"] => "cgroup",
        _ => return None,
    };
    Some((stats, key))
}

/// The default columns of a table pasted without its header, right under
/// the `perf lock contention` command that printed it (two rows of
/// `contended  total wait  max wait  avg wait  type  caller` in a row), or
/// printed by perf under its `=== owner stack trace ===` line (one row).
fn headerless(lines: &[Line<'_>], start: usize) -> Option<Vec<Stat>> {
    let quote = lines.get(start)?.quote;
    let command = lines.get(start.checked_sub(1)?)?;
    let cmd = command.text.trim_end();
    let under_command = command.quote == quote
        && (cmd.ends_with("perf lock contention") || cmd.contains("perf lock contention "));
    // `-o -v` prints the owners' table under `=== owner stack trace ===`
    // (and a blank line), in the columns of the table above it.
    let owner_stacks = (1..=2)
        .filter_map(|k| lines.get(start.checked_sub(k)?))
        .take_while(|l| l.quote == quote)
        .find(|l| !l.text.trim().is_empty())
        .is_some_and(|l| l.text.trim() == "=== owner stack trace ===");
    if !under_command && !owner_stacks {
        return None;
    }
    let stats = vec![Stat::Contended, Stat::Total, Stat::Max, Stat::Avg];
    let need = if owner_stacks { 1 } else { 2 };
    (0..need)
        .all(|k| {
            lines
                .get(start + k)
                .filter(|l| l.quote == quote)
                .and_then(|l| parse_row(l.text.trim(), &stats, "caller"))
                .is_some()
        })
        .then_some(stats)
}

/// Recognise a table at its header line (or, pasted without it, at its
/// first row under the command that printed it).
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let header_line = lines.get(start)?;
    let quote = header_line.quote;
    let (stats, key, rows_at) = match header(header_line.text) {
        Some((stats, key)) => (stats, key, start + 1),
        None => (headerless(lines, start)?, "caller", start),
    };
    let mut rows: Vec<LockRow> = Vec::new();
    let mut i = rows_at;
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
        if crate::lines::is_elision(t) {
            // `... snip ...` where the poster left rows out (also right
            // under the header).
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
        match parse_row(t, &stats, key) {
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

/// `0xffffffffac6318e7  pipe_read+0x57` -> `pipe_read+0x57`; the address
/// when no symbol was printed (`0x7f35159162ad`).
fn stack_line(t: &str) -> Option<&str> {
    let (addr, sym) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let hex = addr.strip_prefix("0x")?;
    if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let sym = sym.trim();
    Some(if sym.is_empty() { addr } else { sym })
}

/// `  122      1.01 ms     18.73 us      8.32 us        mutex   pipe_read+0x57`.
fn parse_row(t: &str, stats: &[Stat], key: &str) -> Option<LockRow> {
    let mut rest = t;
    let mut word = || -> Option<&str> {
        let s = rest.trim_start();
        let end = s.find(char::is_whitespace).unwrap_or(s.len());
        let (w, r) = s.split_at(end);
        rest = r;
        (!w.is_empty()).then_some(w)
    };
    let mut row = LockRow::default();
    for stat in stats {
        if *stat == Stat::Contended {
            row.contended = units::int(word()?)?;
            continue;
        }
        let v = word()?;
        let unit = word()?;
        let us = wait_us(v, unit)?;
        match stat {
            Stat::Total => row.total_wait_us = us,
            Stat::Max => row.max_wait_us = Some(us),
            Stat::Min => row.min_wait_us = Some(us),
            _ => row.avg_wait_us = Some(us),
        }
    }
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
            // A lock perf found no symbol for (a dynamically allocated
            // one, `-l`) is printed by its address alone.
            if sym.is_empty() {
                return Some(row);
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
    fn a_lock_without_a_symbol_is_named_by_its_address() {
        let text = "   contended   total wait     max wait     avg wait            address   symbol\n\n          57      1.11 ms     42.83 us     19.54 us   ffff9f4140059000\n          15    280.88 us     23.51 us     18.73 us   ffffffff9d007a40   jiffies_lock\n";
        let lines = split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        let BlockBody::LockContention(t) = body else {
            panic!()
        };
        assert_eq!((n, t.rows.len()), (4, 2));
        assert_eq!(t.rows[0].address.as_deref(), Some("ffff9f4140059000"));
        assert_eq!(t.rows[0].lock, None);
        assert_eq!(t.rows[0].contended, 57);
        assert_eq!(t.rows[1].lock.as_deref(), Some("jiffies_lock"));
    }

    #[test]
    fn a_table_pasted_without_its_header_under_its_command() {
        let text = "perf lock record -C0-7 sleep 1; perf lock contention\n     32907    316.98 ms    195.98 us      9.63 us     spinlock   dev_hard_start_xmit+0xcd\n      4507     61.83 ms    212.73 us     13.72 us     spinlock   __dev_queue_xmit+0x554\n\n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 1).unwrap().unwrap();
        let BlockBody::LockContention(t) = body else {
            panic!()
        };
        assert_eq!((n, t.rows.len()), (2, 2));
        assert_eq!(t.rows[0].contended, 32907);
        assert_eq!(
            t.rows[0].caller.as_deref(),
            Some("dev_hard_start_xmit+0xcd")
        );
        // Without the command above, rows alone are no table.
        let prose = text.replacen(
            "perf lock record -C0-7 sleep 1; perf lock contention",
            "prose",
            1,
        );
        let lines = crate::lines::split(&prose);
        assert!(recognize(&lines, 1).is_none());
        // perf's own owner table under its marker line: one row will do.
        let owners = "  === owner stack trace ===\n\n          3     31.24 us     15.27 us     10.41 us        mutex   pipe_read+0x348\n                         0xffffffffac631bd8  pipe_read+0x348\n\n";
        let lines = crate::lines::split(owners);
        let (_, body) = recognize(&lines, 2).unwrap().unwrap();
        let BlockBody::LockContention(t) = body else {
            panic!()
        };
        assert_eq!(t.rows[0].contended, 3);
        assert_eq!(t.rows[0].stack, ["pipe_read+0x348"]);
    }

    #[test]
    fn waits_in_minutes_and_hours() {
        assert_eq!(wait_us("64.69", "h"), Some(64.69e6 * 3600.0));
        assert_eq!(wait_us("1.5", "m"), Some(90e6));
        assert_eq!(wait_us("975", "ns"), Some(0.975));
        assert_eq!(wait_us("2", "days"), None);
    }

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
        assert_eq!(t.rows[1].avg_wait_us, Some(0.975));
    }

    #[test]
    fn broken_first_row_is_an_error_with_its_line() {
        let lines = split(
            " contended   total wait     max wait     avg wait         type   caller\n\n  12  1.0 parsecs\n",
        );
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn owner_and_cgroup_keys() {
        let lines = split(
            "   contended   total wait     max wait     avg wait          pid   owner\n\n         403    565.32 us     26.81 us      1.40 us           -1   Unknown\n",
        );
        let Some(Ok((_, BlockBody::LockContention(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!((t.key.as_str(), t.rows[0].pid), ("owner", Some(-1)));
        let lines = split(
            "     contended   total wait     max wait     avg wait   cgroup\n\n           835     14.06 ms     41.19 us     16.83 us   /system.slice/led.service\n            44     23.73 us      3.87 us       539 ns   /user.slice/user-657345.slice/session-c4.scope\n",
        );
        let Some(Ok((n, BlockBody::LockContention(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 4);
        assert_eq!(
            t.rows[1].cgroup.as_deref(),
            Some("/user.slice/user-657345.slice/session-c4.scope")
        );
        assert_eq!(t.rows[1].avg_wait_us, Some(0.539));
    }

    #[test]
    fn reordered_fields_and_unknown_headers() {
        let lines = split(
            "  total wait  contended         type   caller\n\n     7.16 ms        396     spinlock   exit_to_user_mode_loop+0x51\n",
        );
        let Some(Ok((_, BlockBody::LockContention(t)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(
            (t.rows[0].contended, t.rows[0].total_wait_us),
            (396, 7160.0)
        );
        assert_eq!(t.rows[0].max_wait_us, None);
        assert!(recognize(&split(" contended   total wait  foo bar\n"), 0).is_none());
        assert!(recognize(&split(" contended   max wait  type caller\n"), 0).is_none());
        // A header with nothing under it is an error on the line after it.
        let e = recognize(&split(" contended   total wait     max wait     avg wait         type   caller\n\nprose\n"), 0)
            .unwrap()
            .unwrap_err();
        assert_eq!(e.line, 3);
    }
}
