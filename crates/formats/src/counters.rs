//! Kernel counter blocks: `/proc/vmstat` (a dump, or before/after values
//! side by side), cgroup v2 `memory.stat` and `memory.events`, PSI
//! (`/proc/pressure/*`: `some avg10=0.00 avg60=0.00 avg300=0.00 total=0`),
//! `/proc/meminfo`, `smaps_rollup`, and hand-made counter tables: a counter
//! name, two or more values, optionally a `delta` column, `(+12.3%)` or
//! `± 2%` next to a value, under an optional header of column names.
//!
//! Line by line with bounded state: each line is parsed on its own, the
//! block is the run of lines of the same shape (and quote level).

use crate::document::{BlockBody, Counter, Counters};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

/// Most rows one counter block may hold (`/proc/vmstat` has about 200).
const MAX_ROWS: usize = 4096;

/// Rows that decide whether a run of lines is a counter block and which
/// file it is; later rows only have to keep the shape. Keeps a failed
/// attempt at a line bounded, so a long run of look-alike lines stays
/// linear to scan.
const WINDOW: usize = 32;

/// Most value columns of a hand-made table.
const MAX_COLUMNS: usize = 16;

/// `/proc/meminfo` keys (a dump is recognised when its first key is one).
const MEMINFO: &[&str] = &[
    "MemTotal",
    "MemFree",
    "MemAvailable",
    "Buffers",
    "Cached",
    "SwapCached",
    "Active",
    "Inactive",
    "Active(anon)",
    "Inactive(anon)",
    "Active(file)",
    "Inactive(file)",
    "Unevictable",
    "Mlocked",
    "SwapTotal",
    "SwapFree",
    "Zswap",
    "Zswapped",
    "Dirty",
    "Writeback",
    "AnonPages",
    "Mapped",
    "Shmem",
    "KReclaimable",
    "Slab",
    "SReclaimable",
    "SUnreclaim",
    "KernelStack",
    "PageTables",
    "SecPageTables",
    "NFS_Unstable",
    "Bounce",
    "WritebackTmp",
    "CommitLimit",
    "Committed_AS",
    "VmallocTotal",
    "VmallocUsed",
    "VmallocChunk",
    "Percpu",
    "HardwareCorrupted",
    "AnonHugePages",
    "ShmemHugePages",
    "ShmemPmdMapped",
    "FileHugePages",
    "FilePmdMapped",
    "CmaTotal",
    "CmaFree",
    "Unaccepted",
    "HugePages_Total",
    "HugePages_Free",
    "HugePages_Rsvd",
    "HugePages_Surp",
    "Hugepagesize",
    "Hugetlb",
    "DirectMap4k",
    "DirectMap2M",
    "DirectMap1G",
    "Balloon",
];

/// `smaps_rollup` keys.
const SMAPS: &[&str] = &[
    "Rss",
    "Pss",
    "Pss_Dirty",
    "Pss_Anon",
    "Pss_File",
    "Pss_Shmem",
    "Shared_Clean",
    "Shared_Dirty",
    "Private_Clean",
    "Private_Dirty",
    "Referenced",
    "Anonymous",
    "KSM",
    "LazyFree",
    "AnonHugePages",
    "ShmemPmdMapped",
    "FilePmdMapped",
    "Shared_Hugetlb",
    "Private_Hugetlb",
    "Swap",
    "SwapPss",
    "Locked",
];

/// `memory.events` keys.
const MEMORY_EVENTS: &[&str] = &[
    "low",
    "high",
    "max",
    "oom",
    "oom_kill",
    "oom_group_kill",
    "sock_throttled",
];

/// `memory.stat` keys that `/proc/vmstat` spells differently (`nr_` prefix
/// or split per reclaimer), so one of them decides the source.
const MEMORY_STAT_ONLY: &[&str] = &[
    "anon",
    "file",
    "kernel",
    "kernel_stack",
    "pagetables",
    "sec_pagetables",
    "percpu",
    "sock",
    "vmalloc",
    "shmem",
    "zswap",
    "zswapped",
    "file_mapped",
    "file_dirty",
    "file_writeback",
    "swapcached",
    "anon_thp",
    "file_thp",
    "shmem_thp",
    "inactive_anon",
    "active_anon",
    "inactive_file",
    "active_file",
    "unevictable",
    "slab_reclaimable",
    "slab_unreclaimable",
    "slab",
    "pgscan",
    "pgsteal",
    // cgroup v1
    "cache",
    "rss",
    "rss_huge",
    "mapped_file",
    "dirty",
    "writeback",
    "swap",
    "hierarchical_memory_limit",
    "hierarchical_memsw_limit",
];

/// Prefixes of `/proc/vmstat` (and `memory.stat`) counter names.
const VMSTAT_PREFIXES: &[&str] = &[
    "nr_",
    "pgpg",
    "pswp",
    "pgalloc",
    "pgfree",
    "pgactivate",
    "pgdeactivate",
    "pglazyfree",
    "pgfault",
    "pgmajfault",
    "pgrefill",
    "pgreuse",
    "pgsteal",
    "pgdemote",
    "pgscan",
    "pgpromote",
    "pginodesteal",
    "pgrotated",
    "pgmigrate",
    "pgskip",
    "pgdemote",
    "zone_reclaim",
    "slabs_scanned",
    "kswapd_",
    "pageoutrun",
    "allocstall",
    "drop_",
    "oom_kill",
    "numa_",
    "compact_",
    "htlb_",
    "unevictable_",
    "thp_",
    "balloon_",
    "swap_ra",
    "direct_map",
    "workingset_",
    "pgsteal_",
    "zswpin",
    "zswpout",
    "zswpwb",
    "ksm_",
    "cow_ksm",
    "cma_",
    "foll_",
    "kcompactd_",
    "pgmajfault_",
    "pgfault_",
    "pgdemote_",
    "nr_dirty",
    "proactive_",
    "vma_lock",
    "direct_",
    "gpu_",
    "pgtable_",
    "swpin_",
    "swpout_",
];

fn known_vmstat(name: &str) -> bool {
    VMSTAT_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn known_counter(name: &str) -> bool {
    // cgroup v1 repeats every counter with a `total_` prefix.
    let name = name.strip_prefix("total_").unwrap_or(name);
    known_vmstat(name)
        || MEMINFO.contains(&name)
        || SMAPS.contains(&name)
        || MEMORY_STAT_ONLY.contains(&name)
        || MEMORY_EVENTS.contains(&name)
}

/// One cell of a counter line.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    value: Option<f64>,
    delta_pct: Option<f64>,
    spread_pct: Option<f64>,
}

/// A parsed counter line: name, whether it had a `:`, cells, the unit.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    name: String,
    colon: bool,
    /// The label had more than one word (`Time (seconds)`): a table row
    /// next to the counters, never part of a dump.
    multiword: bool,
    cells: Vec<Cell>,
    unit: Option<String>,
}

/// Most words of a table row's label.
const MAX_LABEL_WORDS: usize = 4;

/// A counter name: `pgscan_kswapd`, `Active(anon)`, `KSM` (with a colon
/// only: a bare upper-case word is prose more often than a counter).
fn valid_name(name: &str, colon: bool) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '(' | ')' | '.' | '-'))
        && (colon || name.chars().any(|c| c.is_ascii_lowercase() || c == '_'))
}

/// `(+12.3%)`, `+12.3%`, `-0.5%`, `12%`.
fn pct(tok: &str) -> Option<f64> {
    let t = tok.trim_start_matches('(').trim_end_matches(')');
    let t = t.strip_suffix('%')?;
    // `~0%`: an approximate change is still the change printed.
    let t = t
        .strip_prefix('~')
        .or_else(|| t.strip_prefix('≈'))
        .unwrap_or(t);
    units::scaled(t, 0)
}

/// `pgscan_kswapd 123 456 (+12%)`, `MemFree:  812344 kB`,
/// `workingset_refault_file  1,234 ± 2%  2,345 ± 3%`.
fn row(text: &str) -> Option<Row> {
    let text = crate::metrics::without_arrow_note(text);
    // Lines a poster set in Markdown bold (`**HugePages_Total:   53342`
    // ... `HugePages_Free:    11904**`).
    let text = text.trim();
    let text = text.strip_prefix("**").unwrap_or(text);
    let text = text.strip_suffix("**").unwrap_or(text);
    let mut toks = text.split_whitespace().peekable();
    let first = toks.next()?;
    let (name, colon) = match first.strip_suffix(':') {
        Some(n) => (n, true),
        None => (first, false),
    };
    if !valid_name(name, colon) {
        return None;
    }
    let mut name = name.to_string();
    let mut multiword = false;
    let mut unit: Option<String> = None;
    // `pgscan_direct / s  172,662  171,817`: a counter given as a rate,
    // its unit written after the name.
    if !colon {
        if let Some(tok) = toks.peek().copied()
            && let Some(per) = tok.strip_prefix('/').filter(|u| is_time_unit(u))
        {
            unit = Some(format!("/{per}"));
            toks.next();
        } else if toks.peek() == Some(&"/") {
            let mut ahead = toks.clone();
            ahead.next();
            if let Some(per) = ahead.next().filter(|u| is_time_unit(u)) {
                unit = Some(format!("/{per}"));
                toks = ahead;
            }
        }
    }
    // `Time (seconds)  10801  10801  0%`: the label runs to the first value.
    while !colon
        && let Some(tok) = toks.peek()
        && units::scaled(tok, 0).is_none()
        && !matches!(*tok, "-" | "n/a" | "N/A" | "nan")
    {
        if tok.ends_with('%') || name.split(' ').count() >= MAX_LABEL_WORDS {
            return None;
        }
        name.push(' ');
        name.push_str(tok);
        multiword = true;
        toks.next();
    }
    let mut cells: Vec<Cell> = Vec::new();
    while let Some(tok) = toks.next() {
        if cells.len() > MAX_COLUMNS {
            return None;
        }
        if tok == "kB" || tok == "KB" {
            if cells.is_empty() {
                return None;
            }
            unit = Some("kB".into());
            continue;
        }
        if tok == "±" || tok == "+-" {
            let p = pct(toks.next()?)?;
            cells.last_mut()?.spread_pct = Some(p);
            continue;
        }
        if let Some(p) = tok.strip_prefix('±').and_then(pct) {
            cells.last_mut()?.spread_pct = Some(p);
            continue;
        }
        if tok.ends_with('%') || tok.ends_with("%)") {
            let p = pct(tok)?;
            cells.last_mut()?.delta_pct = Some(p);
            continue;
        }
        if tok.starts_with('(') && !tok.ends_with("%)") && pct(tok).is_none() && tok != "(" {
            // `1314344 kB (-23.54 MiB)`: a note after the values.
            break;
        }
        if tok == "(" {
            // `( 12.34%)` with a space after the parenthesis.
            let p = pct(toks.next()?)?;
            cells.last_mut()?.delta_pct = Some(p);
            continue;
        }
        if matches!(tok, "-" | "n/a" | "N/A" | "nan") {
            cells.push(Cell {
                value: None,
                delta_pct: None,
                spread_pct: None,
            });
            continue;
        }
        let v = units::scaled(tok, 0)?;
        cells.push(Cell {
            value: Some(v),
            delta_pct: None,
            spread_pct: None,
        });
    }
    if cells.is_empty() || cells.iter().all(|c| c.value.is_none()) {
        return None;
    }
    Some(Row {
        name,
        colon,
        multiword,
        cells,
        unit,
    })
}

/// `s`, `sec`, `min`: the time unit of a rate written after a counter name.
fn is_time_unit(u: &str) -> bool {
    matches!(u, "s" | "sec" | "second" | "min" | "ms")
}

/// A row whose label the poster wrapped onto a line of its own: the label
/// line, then a line of values alone (`workingset_refault_anon / s` over
/// `40,696  39,830  ~0%`), read as one row.
fn wrapped_row(lines: &[Line<'_>], i: usize, quote: u32) -> Option<Row> {
    let label = lines.get(i).filter(|l| l.quote == quote)?;
    let values = lines.get(i + 1).filter(|l| l.quote == quote)?;
    let first = values.text.split_whitespace().next()?;
    units::scaled(first, 0)?;
    if row(label.text).is_some() {
        return None;
    }
    row(&format!("{} {}", label.text.trim(), values.text.trim()))
}

/// Recognise a counter block at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let line = lines.get(start)?;
    if psi_line(line.text).is_some() {
        return psi(lines, start).map(Ok);
    }
    if rollup_header(line.text) {
        return dump(lines, start + 1, start).map(Ok);
    }
    if row(line.text).is_some() {
        return dump_as(lines, start, start, cat_file_above(lines, start)).map(Ok);
    }
    table(lines, start)
}

/// The sign of a diff-style counter line (`-nr_inactive_anon 321935`), or
/// `None` when the line is not one.
fn diff_sign(text: &str) -> Option<char> {
    let t = text.trim_start();
    let sign = t.chars().next().filter(|c| matches!(c, '-' | '+'))?;
    t[1..]
        .starts_with(|c: char| c.is_ascii_alphabetic())
        .then_some(sign)
}

/// The lines of one sign from `at` on, without the sign (the text is a
/// slice of the line's), and how many there are.
fn signed_run<'a>(lines: &[Line<'a>], at: usize, sign: char) -> Vec<Line<'a>> {
    let Some(quote) = lines.get(at).map(|l| l.quote) else {
        return Vec::new();
    };
    let mut run = Vec::new();
    let mut i = at;
    while let Some(l) = lines.get(i).filter(|l| l.quote == quote) {
        if diff_sign(l.text) != Some(sign) {
            break;
        }
        let t = l.text.trim_start();
        run.push(Line {
            no: l.no,
            text: &t[1..],
            quote: l.quote,
        });
        i += 1;
    }
    run
}

/// What a legend under diff-style counters calls each sign: `where -:
/// before this patch, +: after this patch` gives `before` and `after`.
fn diff_legend(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    let minus = t.find("-:")?;
    let plus = t.find("+:")?;
    let side = |from: usize, to: usize| -> Option<String> {
        let words = t
            .get(from..to)?
            .trim()
            .trim_end_matches([',', ';', '.'])
            .trim();
        let lower = words.to_ascii_lowercase();
        if lower.contains("before") || lower.contains("without") || lower.contains("base") {
            Some("before".into())
        } else if lower.contains("after") || lower.contains("with") || lower.contains("patched") {
            Some("after".into())
        } else {
            (!words.is_empty()).then(|| words.to_string())
        }
    };
    let (m, p) = if minus < plus {
        (side(minus + 2, plus)?, side(plus + 2, t.len())?)
    } else {
        (side(minus + 2, t.len())?, side(plus + 2, minus)?)
    };
    Some((m, p))
}

/// Counter deltas written as a diff: a run of `-name value` lines, then
/// (after at most one blank line) a run of `+name value` lines of the same
/// counters. Two dumps, labelled by a legend under them (`where -: before
/// this patch, +: after this patch`) when there is one. One run alone is
/// a patch's diff more often than results, and is not read.
pub fn recognize_diff(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<crate::detect::Found, ParseError>> {
    let first = diff_sign(lines.get(start)?.text)?;
    let other = if first == '-' { '+' } else { '-' };
    let run1 = signed_run(lines, start, first);
    let (BlockBody::Counters(a), n1) = dump(&run1, 0, 0).map(|(n, b)| (b, n))? else {
        return None;
    };
    let mut at = start + n1;
    if lines.get(at).is_some_and(|l| l.text.trim().is_empty()) {
        at += 1;
    }
    let run2 = signed_run(lines, at, other);
    let (BlockBody::Counters(b), n2) = dump(&run2, 0, 0).map(|(n, b)| (b, n))? else {
        return None;
    };
    // The same counters on both sides.
    let shared = b
        .counters
        .iter()
        .filter(|c| a.counters.iter().any(|d| d.name == c.name))
        .count();
    if shared * 2 < a.counters.len().max(b.counters.len()) {
        return None;
    }
    let end = at + n2;
    let legend = (end..end + 3)
        .filter_map(|k| lines.get(k))
        .find_map(|l| diff_legend(l.text));
    let (la, lb) = match legend {
        Some((minus, plus)) if first == '-' => (Some(minus), Some(plus)),
        Some((minus, plus)) => (Some(plus), Some(minus)),
        None => (None, None),
    };
    Some(Ok(crate::detect::Found {
        fallback: None,
        consumed: end - start,
        bodies: vec![(BlockBody::Counters(a), la), (BlockBody::Counters(b), lb)],
    }))
}

/// `55d1b0a2c000-7ffe4a7f1000 ---p 00000000 00:00 0    [rollup]`.
fn rollup_header(text: &str) -> bool {
    let t = text.trim();
    t.ends_with("[rollup]")
        && t.split_whitespace().next().is_some_and(|r| {
            r.contains('-') && r.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        })
}

/// A run of single-value counter lines (`name value` or `Name: value kB`)
/// whose names say which file it is, or a table of two or more values.
fn dump(lines: &[Line<'_>], rows_at: usize, start: usize) -> Option<(usize, BlockBody)> {
    dump_as(lines, rows_at, start, None)
}

/// [`dump`], or, when the names say no file, the `named` file a `cat`
/// above printed: then at least 3 `name integer` rows, without colons or
/// units.
fn dump_as(
    lines: &[Line<'_>],
    rows_at: usize,
    start: usize,
    named: Option<&str>,
) -> Option<(usize, BlockBody)> {
    let quote = lines.get(rows_at)?.quote;
    let first = row(lines.get(rows_at)?.text)?;
    let n = first.cells.len();
    if n >= 2 {
        return table_rows(lines, rows_at, start, Vec::new());
    }
    let mut rows = Vec::new();
    let mut i = rows_at;
    let same_kind = |r: &Row| r.cells.len() == 1 && r.colon == first.colon && !r.multiword;
    loop {
        let Some(r) = lines
            .get(i)
            .filter(|l| l.quote == quote)
            .and_then(|l| row(l.text))
        else {
            // A quoted dump a replier cut into pieces with comments of
            // their own (`> > 256GB of RAM.` under `> > > MemTotal: ...`):
            // its rows go on below each comment.
            let resumed = crate::lines::resume_after_reply(lines, i, quote, |t| {
                row(t).is_some_and(|r| same_kind(&r))
            });
            match resumed.filter(|_| !rows.is_empty()) {
                Some(k) => {
                    i = k;
                    continue;
                }
                None => break,
            }
        };
        if !same_kind(&r) || rows.len() >= MAX_ROWS {
            break;
        }
        rows.push(r);
        i += 1;
        if rows.len() == WINDOW && named.is_none() {
            classify(&rows, rows_at > start)?;
        }
    }
    let rollup = rows_at > start;
    // One meminfo line set apart on its own (`AnonHugePages:  35598336
    // kB` in a fence under `After`): a dump of one counter.
    let alone = |k: Option<usize>| {
        k.and_then(|k| lines.get(k)).is_none_or(|l| {
            let t = l.text.trim();
            t.is_empty() || t.starts_with("```") || l.quote != quote
        })
    };
    let lone_meminfo = rows.len() == 1
        && first.colon
        && MEMINFO.contains(&first.name.as_str())
        && first.unit.as_deref() == Some("kB")
        && alone(rows_at.checked_sub(1))
        && alone(Some(i));
    let source: String = match classify(rows.get(..WINDOW.min(rows.len()))?, rollup) {
        Some(known) => known.into(),
        None if lone_meminfo => "meminfo".into(),
        None => named
            .filter(|_| rows.len() >= 3 && rows.iter().all(|r| !r.colon && r.unit.is_none()))?
            .into(),
    };
    let counters = rows
        .into_iter()
        .map(|r| Counter {
            name: r.name,
            values: r.cells.iter().map(|c| c.value).collect(),
            unit: r.unit,
            ..Counter::default()
        })
        .collect();
    Some((
        i - start,
        BlockBody::Counters(Counters {
            source,
            resource: None,
            columns: Vec::new(),
            counters,
        }),
    ))
}

/// The file a `cat` command right above a dump printed (`$ cat
/// /cgroup/memory/A/memory.vmscan_stat`, with or without a prompt or
/// `sudo`): its name, when it is a kernel file's (`/proc`, `/sys`, a
/// cgroup's `memory.*`, a name of lower-case words).
fn cat_file_above<'a>(lines: &[Line<'a>], start: usize) -> Option<&'a str> {
    let l = lines.get(start.checked_sub(1)?)?;
    if l.quote != lines.get(start)?.quote {
        return None;
    }
    let cmd = crate::lines::after_prompt(l.text).unwrap_or(l.text).trim();
    let cmd = cmd.strip_prefix("sudo ").unwrap_or(cmd).trim_start();
    let path = cmd.strip_prefix("cat ")?.trim();
    let file = path.rsplit('/').next()?;
    let kernel_path = path.starts_with("/proc/")
        || path.starts_with("/sys/")
        || path.contains("cgroup")
        || file.starts_with("memory.");
    (kernel_path
        && !path.contains(' ')
        && !file.is_empty()
        && file
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.')))
    .then_some(file)
}

/// Which file a single-value dump came from; `None` when the names do not
/// say (a dump of unknown names is not a counter block).
fn classify(rows: &[Row], rollup: bool) -> Option<&'static str> {
    let first = rows.first()?;
    if rollup {
        return Some("smaps_rollup");
    }
    if rows.len() < 3 {
        return None;
    }
    let names = || rows.iter().map(|r| r.name.as_str());
    if first.colon {
        if SMAPS.contains(&first.name.as_str()) && names().any(|n| n.starts_with("Pss")) {
            return Some("smaps_rollup");
        }
        // One mapping of /proc/PID/smaps: `Size:`, `KernelPageSize:`,
        // `MMUPageSize:`, then the rollup's keys.
        if first.name == "Size"
            && names().any(|n| n == "Rss")
            && names().any(|n| n.starts_with("Pss"))
        {
            return Some("smaps");
        }
        if MEMINFO.contains(&first.name.as_str()) {
            return Some("meminfo");
        }
        return None;
    }
    if names().all(|n| MEMORY_EVENTS.contains(&n)) {
        return Some("memory.events");
    }
    let known = names().filter(|n| known_counter(n)).count();
    if known * 2 < rows.len() {
        return None;
    }
    if names().any(|n| MEMORY_STAT_ONLY.contains(&n)) {
        return Some("memory.stat");
    }
    names().any(known_vmstat).then_some("vmstat")
}

/// A hand-made table, starting at its header line.
fn table(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, BlockBody), ParseError>> {
    let header = lines.get(start)?;
    let next = lines.get(start + 1).filter(|l| l.quote == header.quote)?;
    let r = row(next.text)?;
    if r.cells.len() < 2 {
        return None;
    }
    let words = header_columns(header.text, r.cells.len())?;
    table_rows(lines, start + 1, start, words).map(Ok)
}

/// The column names of a header line above `n` value columns: split at runs
/// of two or more spaces, else at single spaces; a leading name column
/// (`counter`, `name`) is dropped.
fn header_columns(text: &str, n: usize) -> Option<Vec<String>> {
    let t = text.trim();
    if t.is_empty() || units::scaled(t.split_whitespace().next()?, 0).is_some() {
        return None;
    }
    let by_gaps: Vec<String> = t
        .split('\t')
        .flat_map(|p| p.split("  "))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let by_words: Vec<String> = t.split_whitespace().map(str::to_string).collect();
    for cols in [by_gaps, by_words] {
        if cols
            .iter()
            .any(|c| units::scaled(c, 0).is_some() || c.len() > 40)
        {
            continue;
        }
        if cols.len() == n {
            return Some(cols);
        }
        if cols.len() == n + 1 {
            // `w/o patch  with patch  diff  diff/total`: the diff's cells
            // carry a share of something else after them (`3103740 kB
            // 0.6%`), named by the last header; kept for the rows to
            // know (see [`table_rows`]).
            if is_delta_header(&cols[n - 1]) && !is_delta_header(&cols[n]) && n >= 2 {
                return Some(cols);
            }
            // `Before  After  Change` over two values and a percent change,
            // or `counter  base  patched` over two values.
            let last_is_change = cols.last().is_some_and(|c| is_delta_header(c));
            let mut cols = cols;
            if last_is_change {
                cols.pop();
            } else {
                cols.remove(0);
            }
            return Some(cols);
        }
    }
    None
}

fn is_delta_header(h: &str) -> bool {
    let h = h.trim_end_matches('%').trim().to_ascii_lowercase();
    matches!(
        h.as_str(),
        "delta" | "diff" | "change" | "δ" | "difference" | "+/-"
    )
}

/// Rows of `n` cells from `rows_at` on; `header` names the columns (may be
/// empty). A `delta` column becomes `printed_delta` (or the percent change
/// of the last value when its cells carry `%`).
fn table_rows(
    lines: &[Line<'_>],
    rows_at: usize,
    start: usize,
    header: Vec<String>,
) -> Option<(usize, BlockBody)> {
    let quote = lines.get(rows_at)?.quote;
    let n = row(lines.get(rows_at)?.text)?.cells.len();
    let delta_col = header
        .iter()
        .position(|h| is_delta_header(h))
        .filter(|&k| k > 0 && k + 1 == n);
    // A header naming one column more than the cells: the percent after
    // each diff is that column's (`diff/total`), not the change.
    let share_after_delta = header.len() == n + 1;
    let mut counters = Vec::new();
    let mut i = rows_at;
    let mut known = 0;
    loop {
        let (r, used) = match lines
            .get(i)
            .filter(|l| l.quote == quote)
            .and_then(|l| row(l.text))
        {
            Some(r) => (r, 1),
            None => match wrapped_row(lines, i, quote) {
                Some(r) => (r, 2),
                None => break,
            },
        };
        if r.cells.len() != n || counters.len() >= MAX_ROWS {
            break;
        }
        if counters.len() < WINDOW && !r.multiword && known_counter(&r.name) {
            known += 1;
        }
        if counters.len() + 1 == WINDOW && known * 2 < WINDOW {
            return None;
        }
        let mut cells = r.cells;
        let mut printed_delta = None;
        if let Some(k) = delta_col
            && let Some(d) = cells.get(k).copied()
        {
            cells.truncate(k);
            printed_delta = d.value;
            if let (Some(p), Some(last), false) = (d.delta_pct, cells.last_mut(), share_after_delta)
            {
                last.delta_pct = Some(p);
            }
        }
        let pcts: Vec<Option<f64>> = cells.iter().map(|c| c.delta_pct).collect();
        let spreads: Vec<Option<f64>> = cells.iter().map(|c| c.spread_pct).collect();
        counters.push(Counter {
            name: r.name,
            values: cells.iter().map(|c| c.value).collect(),
            unit: r.unit,
            printed_delta_pct: if pcts.iter().any(Option::is_some) {
                pcts
            } else {
                Vec::new()
            },
            printed_delta,
            spread_pct: if spreads.iter().any(Option::is_some) {
                spreads
            } else {
                Vec::new()
            },
        });
        i += used;
    }
    // Two counters at least, and mostly names a kernel prints.
    if known < 2 || known * 2 < counters.len().min(WINDOW) {
        return None;
    }
    let mut columns = header;
    if let Some(k) = delta_col {
        columns.truncate(k);
    }
    if columns.is_empty() {
        let width = counters.first().map(|c| c.values.len()).unwrap_or(0);
        columns = vec![String::new(); width];
    }
    Some((
        i - start,
        BlockBody::Counters(Counters {
            source: "table".into(),
            resource: None,
            columns,
            counters,
        }),
    ))
}

/// One PSI line: the resource when the line names it, `some`/`full`, and
/// the `key=value` pairs.
/// A PSI line: resource, `some`/`full`, the `key=value` pairs.
type PsiLine<'a> = (Option<&'a str>, &'a str, Vec<(&'a str, &'a str)>);

fn psi_line(text: &str) -> Option<PsiLine<'_>> {
    let mut toks = text.split_whitespace().peekable();
    let mut resource = None;
    let mut first = toks.next()?;
    if first != "some" && first != "full" {
        // `memory: some ...`, `/proc/pressure/memory:some ...`
        let (prefix, rest) = first.split_once(':').unwrap_or((first, ""));
        let name = prefix.rsplit('/').next().unwrap_or(prefix);
        if !matches!(name, "memory" | "io" | "cpu" | "irq") {
            return None;
        }
        resource = Some(name);
        first = if rest.is_empty() { toks.next()? } else { rest };
    }
    if first != "some" && first != "full" {
        return None;
    }
    let mut pairs = Vec::new();
    for tok in toks {
        let (k, v) = tok.split_once('=')?;
        if !matches!(k, "avg10" | "avg60" | "avg300" | "total") {
            return None;
        }
        pairs.push((k, v));
    }
    if !pairs.iter().any(|(k, _)| *k == "total") || !pairs.iter().any(|(k, _)| *k == "avg10") {
        return None;
    }
    Some((resource, first, pairs))
}

/// `/proc/pressure/<resource>` or `cat /proc/pressure/memory` on the line above.
fn resource_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let prev = lines.get(start.checked_sub(1)?)?;
    let t = prev.text.trim();
    let at = t.find("pressure/")?;
    let name: String = t
        .get(at + "pressure/".len()..)?
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    matches!(name.as_str(), "memory" | "io" | "cpu" | "irq").then_some(name)
}

fn psi(lines: &[Line<'_>], start: usize) -> Option<(usize, BlockBody)> {
    let quote = lines.get(start)?.quote;
    let mut counters: Vec<Counter> = Vec::new();
    let mut resource: Option<String> = None;
    let mut seen: Vec<&str> = Vec::new();
    let mut i = start;
    while let Some((res, kind, pairs)) = lines
        .get(i)
        .filter(|l| l.quote == quote)
        .and_then(|l| psi_line(l.text))
    {
        // A second `some` or another resource starts the next block.
        if seen.contains(&kind) || (i > start && res.is_some() && res != resource.as_deref()) {
            break;
        }
        if i == start {
            resource = res.map(str::to_string);
        }
        seen.push(kind);
        for (k, v) in pairs {
            let (value, unit) = if k == "total" {
                (units::int(v).map(|t| t as f64), "us")
            } else {
                (units::scaled(v, 0), "%")
            };
            counters.push(Counter {
                name: format!("{kind}.{k}"),
                values: vec![value],
                unit: Some(unit.into()),
                ..Counter::default()
            });
        }
        i += 1;
    }
    if counters.is_empty() {
        return None;
    }
    Some((
        i - start,
        BlockBody::Counters(Counters {
            source: "psi".into(),
            resource: resource.or_else(|| resource_above(lines, start)),
            columns: Vec::new(),
            counters,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split;

    fn one(text: &str) -> Counters {
        let lines = split(text);
        match recognize(&lines, 0) {
            Some(Ok((_, BlockBody::Counters(c)))) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dump_of_unknown_names_under_the_cat_of_a_kernel_file() {
        let text = "$ cat /cgroup/memory/A/memory.vmscan_stat\nscanned_pages_by_limit 9471864\nfreed_pages_by_limit 2318492\nelapsed_ns_by_limit 351386416101\n\nprose\n";
        let lines = crate::lines::split(text);
        let (n, body) = recognize(&lines, 1).unwrap().unwrap();
        let BlockBody::Counters(c) = body else {
            panic!()
        };
        assert_eq!((n, c.source.as_str()), (3, "memory.vmscan_stat"));
        assert_eq!(c.counters[2].values, [Some(351386416101.0)]);
        // Without the `cat`, or under the `cat` of a file of one's own, the
        // names say nothing: no block.
        for other in [
            text.replacen("$ cat /cgroup/memory/A/memory.vmscan_stat", "prose", 1),
            text.replacen("/cgroup/memory/A/memory.vmscan_stat", "notes.txt", 1),
        ] {
            let lines = crate::lines::split(&other);
            assert!(recognize(&lines, 1).is_none(), "{other}");
        }
    }

    #[test]
    fn cells() {
        let r = row("workingset_refault_file  1,234 ± 2%  2,345 ± 3%  (+90.0%)").unwrap();
        assert_eq!(r.cells.len(), 2);
        assert_eq!(r.cells[0].value, Some(1234.0));
        assert_eq!(r.cells[0].spread_pct, Some(2.0));
        assert_eq!(r.cells[1].delta_pct, Some(90.0));
        assert!(row("The 1 thing").is_none());
        assert!(row("12 34").is_none());
        assert!(row("x ± 2%").is_none());
    }

    #[test]
    fn one_meminfo_line_set_apart() {
        let c = crate::first_body!(
            "After\n```\nAnonHugePages:  35598336 kB\n\nload accepted = 630465 tx/s\n",
            Counters
        );
        assert_eq!(c.source, "meminfo");
        assert_eq!(c.counters[0].values, [Some(35598336.0)]);
        // Inside prose, or with no unit, it is no dump.
        let doc = crate::parse(
            b"we saw\nAnonHugePages:  35598336 kB\nafter the run\n",
            None,
        );
        let counters = doc.map_or(0, |d| {
            d.blocks
                .iter()
                .filter(|b| matches!(b.body, BlockBody::Counters(_)))
                .count()
        });
        assert_eq!(counters, 0);
    }

    #[test]
    fn lines_set_in_markdown_bold() {
        let text = "AnonHugePages:    368640 kB\n**HugePages_Total:   53342\nHugePages_Free:    11904**\nHugePages_Rsvd:        0\n**Hugepagesize:       2048 kB**\n";
        let c = crate::first_body!(text, Counters);
        assert_eq!(c.source, "meminfo");
        let names: Vec<&str> = c.counters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "AnonHugePages",
                "HugePages_Total",
                "HugePages_Free",
                "HugePages_Rsvd",
                "Hugepagesize"
            ]
        );
        assert_eq!(c.counters[2].values, [Some(11904.0)]);
    }

    #[test]
    fn one_mapping_of_smaps() {
        let text = "7fc5d6e00000-7fc5dae00000 rw-p 00000000 00:00 0\nSize:              65536 kB\nKernelPageSize:        4 kB\nMMUPageSize:           4 kB\nRss:               40960 kB\nPss:               40960 kB\nShared_Clean:          0 kB\n";
        let c = crate::first_body!(text, Counters);
        assert_eq!(c.source, "smaps");
        assert_eq!(c.counters[0].name, "Size");
        assert_eq!(c.counters[1].values, [Some(4.0)]);
    }

    #[test]
    fn a_quoted_dump_cut_by_a_repliers_comments() {
        let text = "> > > # cat /proc/meminfo\n> > > MemTotal:       263572332 kB\n> > \n> > 256GB of RAM.\n> > \n> > > MemFree:         2872368 kB\n> > > MemAvailable:   204193824 kB\n> > \n> > 200GB \"available\"\n> > \n> > > Buffers:            2568 kB\n> > > Cached:         164931356 kB\n> > \n> > > xfs_inode         30978282 31196832    960    4    1 : tunables   54   27    8\n";
        let c = crate::first_body!(text, Counters);
        assert_eq!(c.source, "meminfo");
        let names: Vec<&str> = c.counters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached"]
        );
    }

    #[test]
    fn a_tab_separated_header_with_a_share_after_the_diff() {
        let c = one(
            "\t\t   w/o patch\t  with patch\t      diff\tdiff/total\nMemTotal:\t525424652 kB\t525424652 kB\t      0 kB\t        0%\nMemFree:\t517030396 kB\t520134136 kB\t3103740 kB\t      0.6%\n",
        );
        assert_eq!(c.columns, vec!["w/o patch", "with patch"]);
        assert_eq!(
            c.counters[1].values,
            vec![Some(517030396.0), Some(520134136.0)]
        );
        assert_eq!(c.counters[1].printed_delta, Some(3103740.0));
        // The 0.6% is the diff's share of the total, not the change.
        assert!(c.counters[1].printed_delta_pct.is_empty());
    }

    #[test]
    fn table_with_delta_column() {
        let c = one(
            "                 base     patched    delta\npgscan_kswapd    1000        1500     +500\nallocstall_normal  10           0      -10\n",
        );
        assert_eq!(c.source, "table");
        assert_eq!(c.columns, vec!["base", "patched"]);
        assert_eq!(c.counters[0].values, vec![Some(1000.0), Some(1500.0)]);
        assert_eq!(c.counters[0].printed_delta, Some(500.0));
        assert_eq!(c.counters[1].printed_delta, Some(-10.0));
    }

    #[test]
    fn rates_approximate_changes_and_a_wrapped_label() {
        let c = one(
            "              baseline    patched      delta\n  pgscan_direct  / s   172,662   171,817   ~0%\n  pgsteal_direct / s    67,162    66,306   ~0%\n  workingset_refault_anon / s\n                        40,696    39,830   ~0%\n",
        );
        assert_eq!(c.columns, vec!["baseline", "patched"]);
        assert_eq!(c.counters[0].name, "pgscan_direct");
        assert_eq!(c.counters[0].unit.as_deref(), Some("/s"));
        assert_eq!(c.counters[0].values, vec![Some(172662.0), Some(171817.0)]);
        assert_eq!(c.counters[2].name, "workingset_refault_anon");
        assert_eq!(c.counters[2].values, vec![Some(40696.0), Some(39830.0)]);
    }

    #[test]
    fn counters_written_as_a_diff() {
        let text = "   -pgfault 31100294\n   -pgscan_kswapd 1861981\n   -pgsteal_anon 386\n\n   +pgfault 6847775\n   +pgscan_kswapd 7496588\n   +pgsteal_anon 2115661\n\n   where -: before this patch, +: after this patch\n";
        let lines = crate::lines::split(text);
        let found = recognize_diff(&lines, 0).unwrap().unwrap();
        assert_eq!(found.consumed, 7);
        let labels: Vec<_> = found.bodies.iter().map(|(_, l)| l.clone()).collect();
        assert_eq!(labels, vec![Some("before".into()), Some("after".into())]);
        let BlockBody::Counters(after) = &found.bodies[1].0 else {
            panic!()
        };
        assert_eq!(after.counters[1].values, vec![Some(7496588.0)]);
        // One run alone is a patch's diff, not results.
        let lines = crate::lines::split(
            "   -pgfault 31100294\n   -pgscan_kswapd 1861981\n   -pgsteal_anon 386\n",
        );
        assert!(recognize_diff(&lines, 0).is_none());
    }

    #[test]
    fn psi_lines() {
        let c = one(
            "memory: some avg10=0.12 avg60=0.05 avg300=0.01 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=42\n",
        );
        assert_eq!(c.resource.as_deref(), Some("memory"));
        assert_eq!(c.counters.len(), 8);
        assert_eq!(c.counters[0].name, "some.avg10");
        assert_eq!(c.counters[0].values, vec![Some(0.12)]);
        assert_eq!(c.counters[7].name, "full.total");
        assert_eq!(c.counters[7].unit.as_deref(), Some("us"));
    }

    #[test]
    fn unknown_names_are_not_counters() {
        let lines = split("apples 1\npears 2\nplums 3\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn memory_events_and_memory_stat() {
        let c = one("low 0\nhigh 12\nmax 35\noom 1\noom_kill 1\noom_group_kill 0\n");
        assert_eq!(c.source, "memory.events");
        assert_eq!(c.counters[2].values, vec![Some(35.0)]);
        let c = one("anon 1234\nfile 5678\nkernel 99\npgscan 10\npgsteal 7\n");
        assert_eq!(c.source, "memory.stat");
    }

    #[test]
    fn table_with_spreads_and_percent_changes() {
        let c = one(
            "counter              base            patched\nworkingset_refault_file  1,234 ± 2%  2,345 ± 3%  (+90.0%)\npgsteal_kswapd  10 ± 1%  n/a\n",
        );
        assert_eq!(c.columns, vec!["base", "patched"]);
        assert_eq!(c.counters[0].spread_pct, vec![Some(2.0), Some(3.0)]);
        assert_eq!(c.counters[0].printed_delta_pct, vec![None, Some(90.0)]);
        assert_eq!(c.counters[1].values, vec![Some(10.0), None]);
    }

    #[test]
    fn headerless_table_and_short_dumps() {
        let c = one("pgscan_kswapd 100 200\npgscan_direct 5 0\n");
        assert_eq!(c.columns, vec!["", ""]);
        assert_eq!(c.counters[1].values, vec![Some(5.0), Some(0.0)]);
        // Two lines of a dump say too little about which file they are.
        let lines = split("pgscan_kswapd 100\npgscan_direct 5\n");
        assert!(recognize(&lines, 0).is_none());
        // A bare upper-case word is not a counter without a colon.
        assert!(row("KSM 0").is_none());
        assert!(row("KSM: 0 kB").is_some());
    }

    #[test]
    fn psi_resource_from_the_line_above() {
        let lines = split(
            "# cat /proc/pressure/io\nsome avg10=1.50 avg60=0.00 avg300=0.00 total=10\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=11\n",
        );
        let Some(Ok((n, BlockBody::Counters(c)))) = recognize(&lines, 1) else {
            panic!()
        };
        // A second `some` line starts the next block.
        assert_eq!(n, 1);
        assert_eq!(c.resource.as_deref(), Some("io"));
        assert_eq!(c.counters[0].values, vec![Some(1.5)]);
    }

    /// User + system CPU time of the calling thread in clock ticks
    /// (`/proc/thread-self/stat`, fields 14 and 15; 100 a second on Linux).
    fn thread_cpu_ticks() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
        // The command name (field 2) may hold spaces: count after its `)`.
        let rest = &stat[stat.rfind(')').expect("stat line") + 2..];
        let f: Vec<u64> = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .map(|v| v.parse().expect("tick count"))
            .collect();
        f.iter().sum()
    }

    #[test]
    fn long_runs_of_look_alike_lines_stay_linear() {
        // 20 000 `name value` lines that are not counters: every start gives
        // up within the window instead of scanning to the end of the run.
        let text: String = (0..20_000).map(|k| format!("apple_{k} {k}\n")).collect();
        let lines = split(&text);
        // CPU time of this thread, not wall time: a busy machine must not
        // fail the test, a quadratic scan must (minutes in a debug build).
        let t = thread_cpu_ticks();
        for start in 0..lines.len() {
            assert!(recognize(&lines, start).is_none());
        }
        let spent = thread_cpu_ticks() - t;
        assert!(spent < 20 * 100, "{spent} CPU ticks of 1/100 s");
        // The same run of counters is one block, whatever its length.
        let text: String = (0..5_000).map(|k| format!("nr_thing_{k} {k}\n")).collect();
        let c = one(&text);
        assert_eq!((c.source.as_str(), c.counters.len()), ("vmstat", 4096));
    }
}
