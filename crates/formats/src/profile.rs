//! `perf report --stdio` and `perf top` flat profiles:
//!
//! ```text
//! # Samples: 11K of event 'cpu-clock'
//! # Event count (approx.): 2924500000
//! #
//! # Overhead  Command          Shared Object      Symbol
//! # ........  ...............  .................  ......
//! #
//!      6.56%  sched-messaging  [kernel.kallsyms]  [k] allocate_slab
//! ```
//!
//! With `--children` the first two columns are `Children  Self`. Call-graph
//! lines under a row (`|--5.04%--__slab_alloc`, `---allocate_slab`) are
//! skipped: the flat profile is the rows. Rows pasted without the header
//! are recognised from three rows with a `[k]` / `[.]` marker on.
//!
//! A call graph pasted without any flat row (the TUI's expanded entries,
//! `- 18.75% compact_zone` with `+ 7.02% lru_add_drain_cpu` indented under
//! it), or under the one row it belongs to, is read as the profile: each
//! entry a row with its `depth` in the graph.

use crate::document::{BlockBody, Profile, ProfileRow};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

const FORMAT: &str = "profile";

/// Most rows one profile may hold (`perf report` can print every symbol).
const MAX_ROWS: usize = 16_384;

/// Header lines between `# Samples:` and the column header.
const MAX_PREAMBLE: usize = 8;

/// `#` note lines a poster may put between the column header and the rows.
const MAX_HEADER_NOTES: usize = 4;

/// Call-graph lines tolerated under one row before the profile ends.
const MAX_GRAPH_LINES: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Col {
    Overhead,
    Children,
    Self_,
    /// `--latency`'s column (perf 6.15): the share of wall-clock time,
    /// read and not kept (the row's `overhead_pct` is CPU time).
    Latency,
    Command,
    Object,
    Symbol,
    Other,
}

/// `# Overhead  Command  Shared Object  Symbol` -> the columns, or `None`.
fn header(text: &str) -> Option<Vec<Col>> {
    let t = text.trim().trim_start_matches('#').trim();
    // A terminal narrower than the report cuts it with `>`.
    let t = t.strip_suffix('>').unwrap_or(t).trim_end();
    let names: Vec<&str> = t
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let first = *names.first()?;
    if !matches!(first, "Overhead" | "Children" | "Latency") || names.len() < 2 || names.len() > 12
    {
        return None;
    }
    let cols: Vec<Col> = names
        .iter()
        .map(|n| match *n {
            "Overhead" => Col::Overhead,
            "Children" => Col::Children,
            "Self" => Col::Self_,
            "Latency" => Col::Latency,
            "Command" => Col::Command,
            "Shared Object" => Col::Object,
            "Symbol" => Col::Symbol,
            _ => Col::Other,
        })
        .collect();
    // `--sort comm,dso`, `-s dso`, `-s comm,cgroup`: no symbol column, but
    // perf's own keys after the percent columns.
    let pcts = cols
        .iter()
        .filter(|c| matches!(c, Col::Overhead | Col::Children | Col::Self_ | Col::Latency))
        .count();
    let keys = cols
        .iter()
        .filter(|c| matches!(c, Col::Command | Col::Object | Col::Symbol))
        .count();
    let other_keys = names.iter().filter(|n| OTHER_SORT_KEYS.contains(n)).count();
    let sorted_by_keys = keys > 0 && keys + other_keys + pcts == cols.len();
    (cols.contains(&Col::Symbol) || sorted_by_keys).then_some(cols)
}

/// Column names of `perf report --sort` keys besides comm, dso and sym,
/// as perf prints them over their column.
const OTHER_SORT_KEYS: &[&str] = &[
    "Cgroup",
    "Cgroup ID",
    "Pid:Command",
    "CPU",
    "Socket",
    "Parent symbol",
    "Source:Line",
    "Srcfile",
    "Data Symbol",
    "Data Object",
    "Local Weight",
    "Weight",
    "Memory access",
    "Snoop",
    "TLB access",
    "Locked",
];

/// `# Samples: 11K of event 'cpu-clock'` / perf top's
/// `Samples: 12K of event 'cycles', 4000 Hz, Event count (approx.): 123`.
/// Whether the line had `#` (perf report), samples, event, event count.
type SamplesLine = (bool, Option<u64>, Option<String>, Option<u64>);

fn samples_line(text: &str) -> Option<SamplesLine> {
    let t = text.trim();
    let (hash, t) = match t.strip_prefix('#') {
        Some(r) => (true, r.trim_start()),
        None => (false, t.trim_start_matches("PerfTop:").trim_start()),
    };
    // perf of 2010-2012: `# Events: 6K cycles`, the count then the event.
    if let Some(rest) = t.strip_prefix("Events:").filter(|_| hash) {
        let (count, event) = rest.trim().split_once(' ')?;
        let samples = units::suffixed(count, false).map(|v| v as u64)?;
        let event = event.trim();
        if event.is_empty() || event.contains(char::is_whitespace) {
            return None;
        }
        return Some((hash, Some(samples), Some(event.to_string()), None));
    }
    let rest = t.strip_prefix("Samples:")?.trim_start();
    let Some((count, rest)) = rest.split_once(" of event ") else {
        // perf of 2009: `# Samples: 1331231315119`, no event named.
        let samples = units::int(rest.trim()).filter(|_| hash)?;
        return Some((hash, Some(samples), None, None));
    };
    let samples = units::suffixed(count.trim(), false).map(|v| v as u64);
    let rest = rest.trim_start().strip_prefix('\'')?;
    let (event, rest) = rest.split_once('\'')?;
    let event_count = rest
        .split_once("Event count (approx.):")
        .and_then(|(_, c)| units::int(c.split([',', ' ']).find(|w| !w.is_empty())?));
    Some((hash, samples, Some(event.to_string()), event_count))
}

/// The column header a paste joined onto the `# Samples:` line
/// (`# Samples: 2K of event 'x', # Event count (approx.): 1473377250 #
/// Overhead  Command ...`).
fn glued_header(text: &str) -> Option<Vec<Col>> {
    let at = text
        .find("# Overhead")
        .or_else(|| text.find("# Children"))?;
    header(text.get(at..)?)
}

fn pct(tok: &str) -> Option<f64> {
    units::scaled(tok.strip_suffix('%')?, 0)
}

/// Split a row by the columns; `None` when it is not a row.
fn row(text: &str, cols: &[Col]) -> Option<ProfileRow> {
    let mut toks: Vec<&str> = text.split_whitespace().collect();
    // The TUI's fold markers: `+   87.62%  0.01%  fio ...`, `-   12.61% ...`;
    // a poster's side label where the percentages start (`old:     0.12%
    // 0.11%  filemapstress ...` over `new:  ...`).
    let side_label = |t: &str| {
        t.len() <= 12
            && t.strip_suffix(':').is_some_and(|w| {
                !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '-')
            })
    };
    if matches!(toks.first(), Some(&"+") | Some(&"-"))
        || (toks.first().is_some_and(|t| side_label(t))
            && toks.get(1).is_some_and(|t| pct(t).is_some()))
    {
        toks.remove(0);
    }
    if toks.is_empty() {
        return None;
    }
    let mut out = ProfileRow::default();
    let mut rest_cols: Vec<Col> = Vec::new();
    let mut k = 0;
    for c in cols {
        match c {
            Col::Overhead | Col::Self_ => {
                out.overhead_pct = pct(toks.get(k)?)?;
                k += 1;
            }
            Col::Children => {
                out.children_pct = Some(pct(toks.get(k)?)?);
                k += 1;
            }
            Col::Latency => {
                pct(toks.get(k)?)?;
                k += 1;
            }
            other => rest_cols.push(*other),
        }
    }
    if k == 0 {
        return None;
    }
    toks.drain(..k);
    // The symbol starts at the `[k]` / `[.]` marker when there is one.
    let marker = toks
        .iter()
        .position(|t| t.len() == 3 && t.starts_with('[') && t.ends_with(']'));
    let sorted_by_symbol = rest_cols.contains(&Col::Symbol);
    let (before, symbol) = match marker {
        // `--sort comm,dso`: the keys are all the row has.
        _ if !sorted_by_symbol => (toks.clone(), String::new()),
        Some(m) => {
            let before = toks.get(..m)?.to_vec();
            let space = toks.get(m)?.get(1..2)?.to_string();
            out.space = Some(space);
            (before, toks.get(m + 1..)?.join(" "))
        }
        None => {
            let n_before = rest_cols.iter().filter(|c| **c != Col::Symbol).count();
            if toks.len() <= n_before {
                return None;
            }
            (
                toks.get(..n_before)?.to_vec(),
                toks.get(n_before..)?.join(" "),
            )
        }
    };
    if symbol.is_empty() && (sorted_by_symbol || before.is_empty()) {
        return None;
    }
    out.symbol = symbol;
    let text_cols: Vec<Col> = rest_cols
        .into_iter()
        .filter(|c| *c != Col::Symbol)
        .collect();
    match (text_cols.as_slice(), before.as_slice()) {
        ([], []) => {}
        ([c], toks) if !toks.is_empty() => set(&mut out, *c, toks.join(" ")),
        (cs, toks) if cs.len() == toks.len() => {
            for (c, t) in cs.iter().zip(toks) {
                set(&mut out, *c, (*t).to_string());
            }
        }
        // More words than columns: the command has spaces; the object (or
        // the key after it, `Cgroup`) is the last word before the symbol.
        ([Col::Command, last], toks) if toks.len() > 2 && *last != Col::Command => {
            let (obj, cmd) = toks.split_last()?;
            out.command = Some(cmd.join(" "));
            set(&mut out, *last, (*obj).to_string());
        }
        _ => return None,
    }
    Some(out)
}

fn set(out: &mut ProfileRow, c: Col, v: String) {
    match c {
        Col::Command => out.command = Some(v),
        Col::Object => out.object = Some(v),
        _ => {}
    }
}

/// Columns of a row printed without a header: `pct [pct] [command] [object] [k] symbol`.
fn guess_columns(text: &str) -> Option<Vec<Col>> {
    let mut toks: Vec<&str> = text.split_whitespace().collect();
    if matches!(toks.first(), Some(&"+") | Some(&"-")) {
        toks.remove(0);
    }
    let pcts = toks.iter().take_while(|t| pct(t).is_some()).count();
    let marker = toks
        .iter()
        .position(|t| matches!(*t, "[k]" | "[.]" | "[g]" | "[u]" | "[H]"))?;
    let words = marker.checked_sub(pcts)?;
    let mut cols = match pcts {
        1 => vec![Col::Overhead],
        2 => vec![Col::Children, Col::Self_],
        _ => return None,
    };
    match words {
        0 => {}
        1 => cols.push(Col::Object),
        2 => cols.extend([Col::Command, Col::Object]),
        _ => return None,
    }
    cols.push(Col::Symbol);
    Some(cols)
}

/// A call-graph line under a row: `|`, `---foo`, `|--5.04%--bar`, or a
/// frame name alone.
fn graph_line(text: &str) -> bool {
    let t = text.trim();
    !text.starts_with(|c: char| !c.is_whitespace())
        && (t.starts_with('|')
            || t.starts_with("--")
            || t.starts_with("- ")
            || t.starts_with("+ ")
            || (t.contains("--") && t.contains('%'))
            || (!t.contains(' ') && !t.is_empty() && pct(t).is_none())
            || tree_entry(text).is_some())
}

/// Fewest entries a call graph pasted alone needs to be a profile.
const MIN_TREE_ENTRIES: usize = 3;

/// An expanded call-graph entry, indented: `- 18.75% compact_zone`,
/// `+ 7.02% lru_add_drain_cpu`, `1.23% rmap_walk`. The column of its
/// percentage (siblings with and without a fold marker share it), the
/// percentage and the symbol.
fn tree_entry(text: &str) -> Option<(usize, f64, &str)> {
    if !text.starts_with([' ', '\t']) {
        return None;
    }
    let mut rest = text.trim_start();
    if let Some(r) = rest.strip_prefix(['-', '+']) {
        if !r.starts_with([' ', '\t']) {
            return None;
        }
        rest = r.trim_start();
    }
    let indent = text.len() - rest.len();
    let mut toks = rest.split_whitespace();
    let t = toks.next()?;
    let p = pct(t)?;
    let sym = toks.next()?;
    if toks.next().is_some() || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let first = sym.chars().next()?;
    let symbolic = (first.is_ascii_alphabetic() || first == '_')
        && sym
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '@' | ':'));
    symbolic.then_some((indent, p, sym))
}

/// Rows of call-graph entries, the depth ranked by indent.
fn tree_rows(entries: &[(usize, f64, String)]) -> Vec<ProfileRow> {
    let mut indents: Vec<usize> = entries.iter().map(|e| e.0).collect();
    indents.sort_unstable();
    indents.dedup();
    entries
        .iter()
        .map(|(indent, p, sym)| ProfileRow {
            overhead_pct: *p,
            symbol: sym.clone(),
            depth: indents
                .binary_search(indent)
                .ok()
                .and_then(|d| u32::try_from(d).ok()),
            ..ProfileRow::default()
        })
        .collect()
}

/// A call graph pasted alone: entries (and frame names without a
/// percentage) from a top entry with its `-` / `+` fold marker on, nested
/// at two indents or more.
fn call_graph(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let t = first.text.trim_start();
    if !(t.starts_with("- ") || t.starts_with("+ ")) {
        return None;
    }
    tree_entry(first.text)?;
    let quote = first.quote;
    let mut entries: Vec<(usize, f64, String)> = Vec::new();
    let mut i = start;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if let Some((indent, p, sym)) = tree_entry(l.text) {
            if entries.len() >= MAX_ROWS {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    format!("at most {MAX_ROWS} call-graph entries"),
                    l.text,
                )));
            }
            entries.push((indent, p, sym.to_string()));
        } else if !(graph_line(l.text) && i > start) {
            break;
        }
        i += 1;
    }
    let mut indents: Vec<usize> = entries.iter().map(|e| e.0).collect();
    indents.sort_unstable();
    indents.dedup();
    if entries.len() < MIN_TREE_ENTRIES || indents.len() < 2 {
        return None;
    }
    // Trailing frame names without an entry after them stay in the block.
    let prof = Profile {
        tool: "perf-report".into(),
        rows: tree_rows(&entries),
        ..Profile::default()
    };
    Some(Ok((i - start, BlockBody::Profile(prof))))
}

/// Recognise a profile at its `Samples:` line, its column header, or (when
/// pasted without either) at the first of three rows.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let same = |i: usize| lines.get(i).filter(|l| l.quote == quote);
    let mut prof = Profile {
        tool: "perf-report".into(),
        ..Profile::default()
    };
    let mut i = start;
    let cols;
    if let Some((hash, samples, event, event_count)) = samples_line(first.text) {
        if !hash {
            prof.tool = "perf-top".into();
        }
        prof.samples = samples;
        prof.event = event;
        prof.event_count = event_count;
        i += 1;
        // The count a mailer wrapped onto the next line, which lost a
        // quote marker on the way (`> > # Samples: 2K of event 'x', # Event
        // count (approx.):` / `> 1473377250`).
        if prof.event_count.is_none()
            && first.text.trim_end().ends_with("Event count (approx.):")
            && let Some(l) = lines.get(i).filter(|l| l.quote <= quote)
            && let Some(ec) = units::int(l.text.trim())
        {
            prof.event_count = Some(ec);
            i += 1;
        }
        let mut found = glued_header(first.text);
        let glued = found.is_some();
        while let Some(l) = same(i).filter(|_| found.is_none()) {
            if i - start > MAX_PREAMBLE {
                break;
            }
            if let Some(c) = header(l.text) {
                found = Some(c);
                break;
            }
            if let Some(ec) = l
                .text
                .split_once("Event count (approx.):")
                .and_then(|(_, c)| units::int(c.trim()))
            {
                prof.event_count = Some(ec);
            }
            i += 1;
        }
        cols = found?;
        if !glued {
            i += 1;
        }
    } else if let Some(c) = header(first.text) {
        if !first.text.trim_start().starts_with('#') {
            prof.tool = "perf-top".into();
        }
        cols = c;
        i += 1;
    } else {
        if let Some(found) = call_graph(lines, start) {
            return Some(found);
        }
        let c = guess_columns(first.text)?;
        row(first.text, &c)?;
        let three_rows = (1..3).all(|k| same(start + k).and_then(|l| row(l.text, &c)).is_some());
        // One row pasted with its call graph (`|`, `--99.73%--main`) under it.
        let graph_below = same(start + 1).is_some_and(|l| {
            let t = l.text.trim();
            graph_line(l.text) && (t.starts_with('|') || (t.contains("--") && t.contains('%')))
        }) || (same(start + 1).is_some_and(|l| graph_line(l.text))
            && (1..=4).any(|k| same(start + k).is_some_and(|l| tree_entry(l.text).is_some())));
        // One row quoted alone in prose (`16.99%  swap_bench
        // [kernel.kallsyms]  [k] ptep_clear_flush`): with its command and
        // a shared object such as `[kernel.kallsyms]` or `libc.so.6`,
        // nothing else prints that.
        let lone = c.contains(&Col::Command)
            && row(first.text, &c)
                .and_then(|r| r.object)
                .is_some_and(|o| (o.starts_with('[') && o.ends_with(']')) || o.contains(".so"));
        if !three_rows && !graph_below && !lone {
            return None;
        }
        cols = c;
    }
    // `# ........  ......` and `#` under the header, and up to a few `#`
    // lines of the poster's own notes put there (perf prints none).
    let mut notes = 0;
    while let Some(l) = same(i) {
        let t = l.text.trim();
        let t = t.strip_suffix('>').unwrap_or(t);
        // The rule also without its `#` (Documentation/ copies of a
        // report: `........  .....................`).
        let rule = (t.starts_with('#') || t.starts_with("....."))
            && t.chars().all(|c| matches!(c, '#' | '.' | ' '));
        if rule {
            i += 1;
        } else if t.starts_with("# ") && notes < MAX_HEADER_NOTES {
            notes += 1;
            i += 1;
        } else {
            break;
        }
    }
    let mut blanks = 0;
    let mut graph = 0;
    let mut end = i;
    let mut entries: Vec<(usize, f64, String)> = Vec::new();
    loop {
        let Some(l) = same(i) else {
            // A replier's comment inside the quoted profile: its rows go
            // on below it at their own quote level.
            match crate::lines::resume_after_reply(lines, i, quote, |t| row(t, &cols).is_some())
                .filter(|_| !prof.rows.is_empty())
            {
                Some(k) => {
                    i = k;
                    blanks = 0;
                    continue;
                }
                None => break,
            }
        };
        let t = l.text.trim();
        if t.is_empty() {
            blanks += 1;
            if blanks > 1 || prof.rows.is_empty() {
                break;
            }
        } else if let Some(r) = row(l.text, &cols) {
            if prof.rows.len() >= MAX_ROWS {
                return Some(Err(ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    format!("at most {MAX_ROWS} rows"),
                    l.text,
                )));
            }
            prof.rows.push(r);
            blanks = 0;
            graph = 0;
            end = i + 1;
        } else if !prof.rows.is_empty() && crate::lines::is_elision(t) {
            // The poster cut a call graph short (`.` lines, `[...]`).
            blanks = 0;
        } else if !prof.rows.is_empty() && graph_line(l.text) && graph < MAX_GRAPH_LINES {
            if let Some((indent, p, sym)) = tree_entry(l.text) {
                entries.push((indent, p, sym.to_string()));
            }
            graph += 1;
            blanks = 0;
            end = i + 1;
        } else {
            break;
        }
        i += 1;
    }
    if prof.rows.is_empty() {
        let l = same(i).or(same(end.saturating_sub(1)))?;
        return Some(Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            "profile rows (`31.20%  command  object  [k] symbol`) under the header",
            l.text,
        )));
    }
    // One row pasted with its expanded call graph: the entries are the
    // profile under it (the rows of a longer profile keep theirs skipped).
    if prof.rows.len() == 1 {
        prof.rows.extend(tree_rows(&entries));
    }
    Some(Ok((end - start, BlockBody::Profile(prof))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_under_a_posters_side_labels() {
        let text = "    # Children      Self  Command        Shared Object       Symbol\nold:     0.12%     0.11%  filemapstress  [kernel.kallsyms]   [k] page_remove_rmap\nnew:     0.12%     0.08%  filemapstress  [kernel.kallsyms]   [k] page_remove_rmap\n";
        let p = &crate::first_body!(text, Profile);
        let selfs: Vec<f64> = p.rows.iter().map(|r| r.overhead_pct).collect();
        assert_eq!(selfs, [0.11, 0.08]);
        assert_eq!(p.rows[0].command.as_deref(), Some("filemapstress"));
        assert_eq!(p.rows[1].symbol, "page_remove_rmap");
    }

    #[test]
    fn a_latency_column_before_or_after_the_overhead() {
        for (text, first) in [
            (
                "Overhead  Latency  Command\n  93.88%   25.79%  cc1\n   1.90%   39.87%  gzip\n   0.99%   10.16%  dpkg-deb\n",
                ("cc1", 93.88),
            ),
            (
                "Latency  Overhead  Command\n 39.87%     1.90%  gzip\n 25.79%    93.88%  cc1\n 10.16%     0.99%  dpkg-deb\n",
                ("gzip", 1.90),
            ),
        ] {
            let doc = crate::parse(text.as_bytes(), None).unwrap();
            let BlockBody::Profile(p) = &doc.blocks[0].body else {
                panic!("{doc:?}")
            };
            assert_eq!(p.rows.len(), 3);
            assert_eq!(
                (p.rows[0].command.as_deref(), p.rows[0].overhead_pct),
                (Some(first.0), first.1)
            );
        }
    }

    #[test]
    fn a_documentation_copy_without_hashes() {
        let text = "Overhead  Symbol\n........  .....................\n  60.00%  foo\n          |\n          --- foo\n              bar\n\n  40.00%  bar\n          |\n          --- bar\n              main\n";
        let p = &crate::first_body!(text, Profile);
        let rows: Vec<(f64, &str)> = p
            .rows
            .iter()
            .map(|r| (r.overhead_pct, r.symbol.as_str()))
            .collect();
        assert_eq!(rows, [(60.0, "foo"), (40.0, "bar")]);
    }

    #[test]
    fn the_posters_notes_between_header_and_rows() {
        let text = "# Samples: 198K of event 'cpu-clock'\n# Event count (approx.): 49644500000\n#\n# Children      Self  Command  Shared Object      Symbol\n# ........  ........  .......  .................  ......\n# \n# func2 takes 99.92%, main and func1 almost nothing\n    99.99%    99.92%  t1       t1                 [.] func2\n    99.99%     0.00%  t1       t1                 [.] func1\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{doc:?}");
        let BlockBody::Profile(p) = &doc.blocks[0].body else {
            panic!("{doc:?}")
        };
        assert_eq!(p.samples, Some(198_000));
        assert_eq!(p.rows.len(), 2);
        assert_eq!(p.rows[0].symbol, "func2");
    }

    #[test]
    fn a_report_sorted_by_comm_and_cgroup() {
        let text = "# Samples: 144  of event 'offcpu-time'\n# Event count (approx.): 48452045427\n#\n# Children      Self  Command          Cgroup\n# ........  ........  ...............  ..........\n#\n    61.57%     5.60%  Chrome_ChildIOT  /user.slice/app.slice/...\n    29.51%     7.38%  Web Content      /user.slice/app.slice/...\n    13.33%     6.67%  Timer            /user.slice/app.slice/...\n";
        let p = &crate::first_body!(text, Profile);
        assert_eq!(p.rows.len(), 3);
        assert_eq!(p.rows[1].command.as_deref(), Some("Web Content"));
        assert_eq!(p.rows[1].children_pct, Some(29.51));
        assert_eq!(p.rows[1].overhead_pct, 7.38);
        assert!(p.rows[1].symbol.is_empty());
        assert_eq!(p.samples, Some(144));
    }

    #[test]
    fn a_repliers_comment_inside_a_quoted_profile() {
        let text = "> >      5.07%  [k] do_raw_spin_lock\n> >      4.96%  [k] _raw_spin_unlock_irqrestore\n> >      4.50%  [k] memmove\n\nThat spin lock is the one to look at.\n\n> >      4.25%  [k] free_unref_page_list\n> >      3.80%  [k] zap_pte_range\n";
        let doc = crate::parse_str(text, None).unwrap();
        let profiles: Vec<&Profile> = doc
            .blocks
            .iter()
            .filter_map(|b| match &b.body {
                BlockBody::Profile(p) => Some(p),
                _ => None,
            })
            .collect();
        assert_eq!(profiles.len(), 1);
        assert_eq!(profiles[0].rows.len(), 5);
        assert_eq!(profiles[0].rows[4].symbol, "zap_pte_range");
        // Unquoted, the prose ends the profile.
        let plain = text.replace("> > ", "");
        let doc = crate::parse_str(&plain, None).unwrap();
        let BlockBody::Profile(p) = &doc.blocks[0].body else {
            panic!()
        };
        assert_eq!(p.rows.len(), 3);
    }

    #[test]
    fn one_row_quoted_alone() {
        let lines = crate::lines::split(
            "\tOriginally it's noticed a 16.99% overhead:\n\t16.99%  swap_bench  [kernel.kallsyms]  [k] ptep_clear_flush\n\n",
        );
        let Some(Ok((_, BlockBody::Profile(p)))) = recognize(&lines, 1) else {
            panic!()
        };
        assert_eq!(p.rows[0].command.as_deref(), Some("swap_bench"));
        assert_eq!(p.rows[0].overhead_pct, 16.99);
        // A percentage and a bracket in prose are no row.
        let prose = crate::lines::split("  5.36%  of  [k] time\n");
        assert!(recognize(&prose, 0).is_none());
    }
    use crate::lines::split;

    #[test]
    fn rows_by_header() {
        let cols = header("# Overhead  Command          Shared Object      Symbol").unwrap();
        let r = row(
            "     6.56%  sched-messaging  [kernel.kallsyms]  [k] allocate_slab",
            &cols,
        )
        .unwrap();
        assert_eq!(r.overhead_pct, 6.56);
        assert_eq!(r.command.as_deref(), Some("sched-messaging"));
        assert_eq!(r.object.as_deref(), Some("[kernel.kallsyms]"));
        assert_eq!(r.space.as_deref(), Some("k"));
        assert_eq!(r.symbol, "allocate_slab");
        let r = row("  1.00%  IPC I/O Parent  libc.so.6  [.] __poll", &cols).unwrap();
        assert_eq!(r.command.as_deref(), Some("IPC I/O Parent"));
    }

    #[test]
    fn reports_sorted_without_symbols() {
        let text = "# Samples: 857  of event 'task-clock'\n#\n# Overhead  Command  Shared Object\n# ........  .......  ....................\n#\n    78.18%  gzip     gzip\n     6.88%  head     [kernel.kallsyms]\n\n";
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&split(text), 0) else {
            panic!()
        };
        assert_eq!(n, 7);
        let r = &p.rows[1];
        assert_eq!(
            (r.overhead_pct, r.command.as_deref(), r.object.as_deref()),
            (6.88, Some("head"), Some("[kernel.kallsyms]"))
        );
        assert_eq!(r.symbol, "");
        let cols = header("# Overhead  Shared Object").unwrap();
        assert_eq!(
            row("    46.70%  libdw-0.186.so", &cols)
                .unwrap()
                .object
                .as_deref(),
            Some("libdw-0.186.so")
        );
        assert!(row("    46.70%", &cols).is_none());
        // Keys that are not perf's, or a percentage column alone.
        assert!(header("# Overhead  Apples").is_none());
        assert!(header("# Overhead").is_none());
    }

    #[test]
    fn headers_cut_joined_or_old() {
        // Cut by a narrow terminal.
        let cols = header("# Overhead  Command          Shared Object     Symbol               >")
            .unwrap();
        let r = row(
            "     5.48%  sched-messaging  [kernel.kallsyms]  [k] percpu_counter_ad>",
            &cols,
        )
        .unwrap();
        assert_eq!(r.command.as_deref(), Some("sched-messaging"));
        // The event count wrapped onto a line that lost a quote marker.
        let text = "> > # Samples: 2K of event 'instructions:ppp', # Event count (approx.):\n> 1473377250\n> > # Overhead  Command   Shared Object      Symbol\n> >     57.74%  br_instr  br_instr           [.] lfsr_cond\n> >      0.21%  br_instr  [kernel.kallsyms]  [k] __lock_acquire\n";
        let lines = crate::lines::split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!((n, p.event_count, p.rows.len()), (5, Some(1473377250), 2));
        assert_eq!(p.event.as_deref(), Some("instructions:ppp"));
        // Joined onto the `# Samples:` line.
        let text = "# Samples: 2K of event 'instructions:ppp', # Event count (approx.): 1473377250 # Overhead  Command   Shared Object      Symbol\n    57.74%  br_instr  br_instr           [.] lfsr_cond\n     0.21%  br_instr  [kernel.kallsyms]  [k] __lock_acquire\n";
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&split(text), 0) else {
            panic!()
        };
        assert_eq!(
            (n, p.samples, p.event_count),
            (3, Some(2000), Some(1473377250))
        );
        assert_eq!(p.rows[0].symbol, "lfsr_cond");
        // perf of 2009 named no event.
        assert_eq!(
            samples_line("# Samples: 1331231315119"),
            Some((true, Some(1331231315119), None, None))
        );
        assert_eq!(samples_line("Samples: 12 apples"), None);
        assert_eq!(
            samples_line("# Events: 6K cycles"),
            Some((true, Some(6000), Some("cycles".to_string()), None))
        );
        assert_eq!(samples_line("# Events: many things"), None);
    }

    #[test]
    fn headerless_rows() {
        let text = "    31.20%  [kernel]  [k] native_queued_spin_lock_slowpath\n     4.10%  [kernel]  [k] _raw_spin_lock_irqsave\n     2.00%  [kernel]  [k] shrink_folio_list\nsome prose\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 3);
        assert_eq!(p.rows[0].symbol, "native_queued_spin_lock_slowpath");
        assert_eq!(p.rows[2].object.as_deref(), Some("[kernel]"));
    }

    #[test]
    fn children_columns_and_errors() {
        let text = "# Children      Self  Command          Shared Object      Symbol\n# ........  ........  ...............  .................  ......\n#\n    87.77%     0.00%  sched-messaging  [kernel.kallsyms]  [k] entry_SYSCALL_64_after_hwframe\n            |\n            ---entry_SYSCALL_64_after_hwframe\n               do_syscall_64\n\n    45.10%     1.00%  sched-messaging  [kernel.kallsyms]  [k] ksys_read\n\n\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 9);
        assert_eq!(p.rows.len(), 2);
        assert_eq!(
            (p.rows[1].children_pct, p.rows[1].overhead_pct),
            (Some(45.1), 1.0)
        );
        let lines = split("# Overhead  Command  Shared Object  Symbol\n#\nnothing here\n");
        assert_eq!(recognize(&lines, 0).unwrap().unwrap_err().line, 3);
        // Two marker rows are not enough without a header.
        let lines = split("  3.00%  [kernel]  [k] a\n  2.00%  [kernel]  [k] b\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn one_headerless_row_with_its_call_graph() {
        let text = "    99.92%     0.19%  prog  prog   [.] main\n            |\n             --99.73%--main\n                       helper\n";
        let lines = split(text);
        let (n, body) = recognize(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 4);
        let BlockBody::Profile(p) = body else {
            panic!()
        };
        assert_eq!(p.rows.len(), 1);
        assert_eq!(p.rows[0].symbol, "main");
        assert_eq!(p.rows[0].children_pct, Some(99.92));
        // A lone row with prose under it is not a profile.
        let lines = split("    99.92%     0.19%  prog  prog   [.] main\nthat is all\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn a_call_graph_pasted_alone() {
        let text = "   - 20.00% outer\n      - 12.00% middle\n           5.00% leaf\n      + 3.00% other\n\nprose\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 4);
        let got: Vec<(&str, f64, Option<u32>)> = p
            .rows
            .iter()
            .map(|r| (r.symbol.as_str(), r.overhead_pct, r.depth))
            .collect();
        assert_eq!(
            got,
            [
                ("outer", 20.0, Some(0)),
                ("middle", 12.0, Some(1)),
                ("leaf", 5.0, Some(2)),
                ("other", 3.0, Some(1))
            ]
        );
        // Bullets of prose at one indent are not a call graph.
        let lines = split("  - 5% faster\n  - 3% smaller\n  - 2% fewer\n");
        assert!(recognize(&lines, 0).is_none());
        // Nor two entries.
        let lines = split("  - 5.00% a\n     1.00% b\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn one_children_row_with_its_expanded_graph() {
        let text = "-  7.83% 0.00% prog prog [.] _start\n   _start\n - __libc_start_main\n   + 3.19% parse\n     1.81% lookup\n\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 5);
        assert_eq!(p.rows.len(), 3);
        assert_eq!(
            (p.rows[0].children_pct, p.rows[0].depth),
            (Some(7.83), None)
        );
        assert_eq!(
            (p.rows[2].symbol.as_str(), p.rows[2].overhead_pct),
            ("lookup", 1.81)
        );
    }

    #[test]
    fn tui_fold_markers() {
        let text = "+   87.62%     0.01%  fio      [kernel.kallsyms]       [k] iomap_dio_rw\n+   74.85%    74.85%  fio      [kernel.kallsyms]       [k] native_queued_spin_lock_slowpath\n-   72.99%     0.11%  fio      [kernel.kallsyms]       [k] _raw_spin_lock_irq\n   - 72.88% _raw_spin_lock_irq\n        native_queued_spin_lock_slowpath\n+   72.20%     0.01%  fio      [kernel.kallsyms]       [k] __submit_bio\n";
        let lines = split(text);
        let Some(Ok((n, BlockBody::Profile(p)))) = recognize(&lines, 0) else {
            panic!()
        };
        assert_eq!((n, p.rows.len()), (6, 4));
        assert_eq!(p.rows[1].overhead_pct, 74.85);
        assert_eq!(p.rows[1].children_pct, Some(74.85));
        assert_eq!(p.rows[3].symbol, "__submit_bio");
    }
}
