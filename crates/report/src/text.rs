//! Plain-text rendering of a [`Comparison`] for pasting into a mail reply:
//! mmtests-like tables, significance marks and their legend, latency
//! tables, the culprit diff and the permalink.
//!
//! Owns layout only; every number and verdict comes from `compare`. The one
//! hard rule: every line is at most [`WIDTH`] columns, whatever the input
//! (many columns, long labels, huge numbers). Wide tables are split into
//! several tables that repeat the row labels. Output is ASCII only, so the
//! width in bytes is the width on screen and mail clients cannot mangle it.

use crate::compare::{
    Better, Comparison, LatencyComparison, MetricCell, MetricComparison, Significance, pct_change,
};
use crate::fmt;

/// Maximum line width of the rendering.
pub const WIDTH: usize = 72;
/// Widest row label before it is shortened in the middle.
const LEFT_MAX: usize = 32;
/// Space between columns.
const GAP: usize = 2;
/// Most lines a column header may take.
const HEADER_LINES: usize = 2;

/// Renders the comparison; `permalink` is printed in the footer.
pub fn render_text(c: &Comparison, permalink: &str) -> String {
    let mut s = String::new();
    for line in layout(c, permalink) {
        // Last line of defence for the width promise; tests check through
        // [`layout`] that the layout never needs it.
        s.push_str(&line.chars().take(WIDTH).collect::<String>());
        s.push('\n');
    }
    s
}

/// The lines of [`render_text`] before the final clip to [`WIDTH`], trailing
/// spaces removed. Exposed so tests can prove the clip is never needed.
#[doc(hidden)]
pub fn layout(c: &Comparison, permalink: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let title = clean(&c.title);
    if !title.trim().is_empty() {
        wrap_into(&mut out, title.trim(), "", "");
        out.push(String::new());
    }
    let mut verdict: Vec<String> = Vec::new();
    verdict_lines(&mut verdict, c);
    if !verdict.is_empty() {
        out.push("Verdict:".to_string());
        out.extend(verdict);
        out.push(String::new());
    }
    columns_legend(&mut out, c);
    context_lines(&mut out, c);
    let tables = metric_tables(c);
    for t in tables.tables {
        out.extend(t.lines);
    }
    out.extend(tables.notes);
    if let Some(lat) = &c.latency {
        latency_section(&mut out, c, lat);
    }
    for n in &c.notes {
        wrap_into(&mut out, &format!("Note: {}", clean(n)), "", "  ");
    }
    if !c.notes.is_empty() {
        out.push(String::new());
    }
    let url = clean(permalink);
    let footer = format!("Permalink: {url}");
    if footer.len() <= WIDTH {
        out.push(footer);
    } else {
        out.push("Permalink:".to_string());
        hard_split_into(&mut out, &url);
    }
    out.into_iter().map(|l| l.trim_end().to_string()).collect()
}

/// The metric tables of the full text, each whole, so the reply keeps or
/// leaves out whole tables and counts them; then the notes below them.
#[derive(Default)]
struct MetricTables {
    tables: Vec<TableText>,
    notes: Vec<String>,
}

struct TableText {
    /// Some row of it is judged better or worse.
    judged: bool,
    lines: Vec<String>,
}

/// Line budget of the reply text ([`render_reply`]).
pub const REPLY_LINES: usize = 40;

/// The text for a reply on the list: the verdict first (per latency kind,
/// then per table or test: what changed, which way, and whether it could
/// be assessed), then as many of the full text's tables as fit in
/// [`REPLY_LINES`] lines, whole tables only, and the links to the
/// permalink and the full text. At most [`WIDTH`] columns, ASCII.
pub fn render_reply(c: &Comparison, permalink: &str, full_text_url: &str) -> String {
    let mut s = String::new();
    for line in reply_layout(c, permalink, full_text_url, REPLY_LINES) {
        s.push_str(&line.chars().take(WIDTH).collect::<String>());
        s.push('\n');
    }
    s
}

/// The lines of [`render_reply`] for a budget of `max_lines`.
#[doc(hidden)]
pub fn reply_layout(
    c: &Comparison,
    permalink: &str,
    full_text_url: &str,
    max_lines: usize,
) -> Vec<String> {
    let mut head: Vec<String> = Vec::new();
    let title = clean(&c.title);
    if !title.trim().is_empty() {
        wrap_into(&mut head, title.trim(), "", "");
        head.truncate(2);
        head.push(String::new());
    }
    let mut verdict: Vec<String> = Vec::new();
    verdict_lines(&mut verdict, c);
    let mut context: Vec<String> = Vec::new();
    context_lines(&mut context, c);
    if !verdict.is_empty() {
        // Whole items ("- ..." and its continuation lines) while they fit
        // the budget, leaving room for the context, the links and one line
        // saying how many items the full text adds.
        let mut items: Vec<Vec<String>> = Vec::new();
        for l in verdict {
            match items.last_mut() {
                Some(item) if !l.starts_with("- ") => item.push(l),
                _ => items.push(vec![l]),
            }
        }
        let room = max_lines.saturating_sub(head.len() + context.len() + 3 + 3 + 1);
        head.push("Verdict:".to_string());
        let mut used = 0usize;
        let mut kept = 0usize;
        for item in &items {
            if kept > 0 && used + item.len() > room {
                break;
            }
            used += item.len();
            kept += 1;
            head.extend(item.iter().cloned());
        }
        if kept < items.len() {
            let more = items.len() - kept;
            head.push(format!(
                "- {more} more comparison{} in the full text",
                if more == 1 { "" } else { "s" }
            ));
        }
        head.push(String::new());
    }
    head.extend(context);
    let mut footer: Vec<String> = Vec::new();
    let url = clean(permalink);
    let full = clean(full_text_url);
    for (label, u) in [("Permalink: ", &url), ("Full text: ", &full)] {
        if u.is_empty() {
            continue;
        }
        let line = format!("{label}{u}");
        if line.len() <= WIDTH {
            footer.push(line);
        } else {
            footer.push(label.trim().to_string());
            hard_split_into(&mut footer, u);
        }
    }
    // The full text's parts, in order: the legend, each table whole (all
    // its column groups and its chain links: never half a table, which
    // could drop the column under test), the latency section, the notes.
    // A part is the lines between two blank lines, or a whole table.
    #[derive(PartialEq)]
    enum Part {
        Legend,
        Table { judged: bool },
        Latency,
        Note,
    }
    let mut body: Vec<(Part, Vec<String>)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    columns_legend(&mut lines, c);
    body.push((Part::Legend, std::mem::take(&mut lines)));
    let tables = metric_tables(c);
    for t in tables.tables {
        body.push((Part::Table { judged: t.judged }, t.lines));
    }
    body.push((Part::Note, tables.notes));
    if let Some(lat) = &c.latency {
        latency_section(&mut lines, c, lat);
        body.push((Part::Latency, std::mem::take(&mut lines)));
    }
    for (_, p) in body.iter_mut() {
        while p.last().is_some_and(|l| l.trim().is_empty()) {
            p.pop();
        }
    }
    body.retain(|(_, p)| !p.is_empty());
    // What fits, whole parts only: the legend and latency first, then the
    // tables with a row judged better or worse, then the others (a table
    // of counters nobody judges does not push out the one under test);
    // shown in their order.
    let room = max_lines.saturating_sub(head.len() + footer.len() + 2);
    let rank = |k: &Part| match k {
        Part::Legend | Part::Latency => 0,
        Part::Table { judged: true } => 1,
        Part::Table { judged: false } => 2,
        Part::Note => 3,
    };
    let mut order: Vec<usize> = (0..body.len()).collect();
    order.sort_by_key(|&i| rank(&body[i].0));
    let mut keep = vec![false; body.len()];
    let mut used = 0usize;
    for i in order {
        let n = body[i].1.len();
        if used + n < room {
            used += n + 1;
            keep[i] = true;
        }
    }
    let tables_out = body
        .iter()
        .zip(&keep)
        .filter(|((k, _), kept)| !**kept && matches!(k, Part::Table { .. }))
        .count();
    let other_out = body
        .iter()
        .zip(&keep)
        .any(|((k, _), kept)| !*kept && !matches!(k, Part::Table { .. }));
    let mut out = head;
    for ((_, p), kept) in body.into_iter().zip(&keep) {
        if *kept {
            out.extend(p);
            out.push(String::new());
        }
    }
    let what = match (tables_out, other_out) {
        (0, false) => String::new(),
        (0, true) => "More in the full text.".to_string(),
        (n, false) => format!(
            "{n} more table{} in the full text.",
            if n == 1 { "" } else { "s" }
        ),
        (n, true) => format!(
            "{n} more table{} and notes in the full text.",
            if n == 1 { "" } else { "s" }
        ),
    };
    if !what.is_empty() {
        out.push(what);
    }
    out.extend(footer);
    out.into_iter().map(|l| l.trim_end().to_string()).collect()
}

/// One line (wrapped) per latency kind and per table or test with two or
/// more columns: the headline of the comparison.
fn verdict_lines(out: &mut Vec<String>, c: &Comparison) {
    use crate::compare::Judgement;
    // The labels without the thread's shared prefix: the column legend
    // right below names them in full.
    let short = column_headers(c);
    let label = |i: usize| short.get(i).cloned().unwrap_or_default();
    if let Some(lat) = &c.latency {
        for d in &lat.culprit_diffs {
            wrap_into(
                out,
                &format!(
                    "- {} vs {}: {}",
                    label(d.column),
                    label(d.against),
                    clean(&d.sentence)
                ),
                "",
                "  ",
            );
        }
    }
    let mut scopes: Vec<&str> = Vec::new();
    for m in &c.metrics {
        if !scopes.contains(&m.scope.as_str()) {
            scopes.push(m.scope.as_str());
        }
    }
    for scope in scopes {
        let rows: Vec<&MetricComparison> = c.metrics.iter().filter(|m| m.scope == scope).collect();
        for (from, to, changes) in table_changes(&rows) {
            if changes.is_empty() {
                continue;
            }
            let count = |j: Judgement| changes.iter().filter(|x| x.judgement == j).count();
            let (better, worse, same, unjudged) = (
                count(Judgement::Better),
                count(Judgement::Worse),
                count(Judgement::Same),
                count(Judgement::NotJudged),
            );
            let significant = changes
                .iter()
                .filter(|x| {
                    matches!(
                        x.significance,
                        Significance::Significant | Significance::HighlySignificant
                    )
                })
                .count();
            let exact = changes
                .iter()
                .filter(|x| x.significance == Significance::NoVariance)
                .count();
            let tested = changes.iter().any(|x| x.tested);
            // The headline change: of the judged rows that are not a
            // spread (a Stddev going to 0 is no -100% of the metric), the
            // largest; named with its printed statistic.
            let headline = |x: &&RowChange<'_>| {
                (
                    !is_spread(x.metric),
                    matches!(x.judgement, Judgement::Better | Judgement::Worse),
                )
            };
            let describe = |x: &RowChange<'_>| {
                let w = x.judgement.word();
                let stat = clean(&x.metric.stat);
                format!(
                    "{}{} {}{}",
                    if stat.is_empty() {
                        String::new()
                    } else {
                        format!("{stat} ")
                    },
                    clean(&x.metric.name),
                    fmt::pct(x.pct),
                    if w.is_empty() || w == "no change" {
                        String::new()
                    } else {
                        format!(" {w}")
                    }
                )
            };
            let top = changes.iter().max_by(|a, b| {
                headline(a).cmp(&headline(b)).then(
                    a.pct
                        .unwrap_or(0.0)
                        .abs()
                        .total_cmp(&b.pct.unwrap_or(0.0).abs()),
                )
            });
            // The row the thread is about (an LKP subject names its
            // metric: `db86f55bf8: lmbench3.PIPE.latency.us 11.5%
            // improvement`) is said first when it is not the largest.
            let subject = changes.iter().find(|x| {
                x.metric.name.len() >= 8 && !is_spread(x.metric) && c.title.contains(&x.metric.name)
            });
            let largest = match (subject, top) {
                (Some(s), Some(t)) if !std::ptr::eq(s, t) => {
                    format!("{}; largest {}", describe(s), describe(t))
                }
                (_, Some(t)) => describe(t),
                _ => String::new(),
            };
            let largest_word = if subject.is_some() {
                "subject"
            } else {
                "largest"
            };
            let mut counts: Vec<String> = Vec::new();
            if better > 0 {
                counts.push(format!("{better} better"));
            }
            if worse > 0 {
                counts.push(format!("{worse} worse"));
            }
            if same > 0 {
                counts.push(format!("{same} unchanged"));
            }
            if unjudged > 0 {
                counts.push(format!("{unjudged} not judged"));
            }
            let n_min = changes.iter().map(|x| x.n).min().unwrap_or(0);
            let assessed = if significant > 0 {
                format!("{significant} significant (adjusted p<0.05)")
            } else if exact > 0 {
                format!("{exact} exact (identical runs within each side)")
            } else if tested {
                "none significant".to_string()
            } else if changes.iter().any(|x| x.summary_only) {
                "printed summaries, not assessed".to_string()
            } else {
                format!("n={n_min}, not assessed")
            };
            let section = rows
                .first()
                .map(|m| clean(&m.section))
                .filter(|s| !s.trim().is_empty())
                .unwrap_or_else(|| "metrics".to_string());
            let rows_word = if changes.len() == 1 { "row" } else { "rows" };
            wrap_into(
                out,
                &format!(
                    "- {section}, {} -> {}: {} {rows_word}, {}; {largest_word} {largest}; {assessed}",
                    label(from),
                    label(to),
                    changes.len(),
                    counts.join(", "),
                ),
                "",
                "  ",
            );
        }
    }
}

/// One row's change in a verdict line.
/// A row that measures the spread of runs, not the metric: a printed
/// `Stddev` / `CoeffVar`, or a metric that is itself a deviation (LKP's
/// `vm-scalability.stddev%`).
fn is_spread(m: &MetricComparison) -> bool {
    let stat = m.stat.to_ascii_lowercase();
    let name = m.name.to_ascii_lowercase();
    matches!(stat.as_str(), "stddev" | "coeffvar" | "cov" | "stdev")
        || name.contains("stddev")
        || name.contains("coeffvar")
}

struct RowChange<'a> {
    metric: &'a MetricComparison,
    pct: Option<f64>,
    judgement: crate::compare::Judgement,
    significance: Significance,
    tested: bool,
    summary_only: bool,
    /// The smaller sample count of the two sides.
    n: usize,
}

/// The pairs of columns a table compares, with each row's change: the
/// deltas the comparison computed (against the baseline or, in a chain,
/// the previous column); for a table the baseline has no data in, its own
/// first column against each other, as its text table shows it (changes
/// of means, not tested).
fn table_changes<'a>(rows: &[&'a MetricComparison]) -> Vec<(usize, usize, Vec<RowChange<'a>>)> {
    use crate::compare::Judgement;
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for m in rows {
        for (j, cell) in m.cells.iter().enumerate() {
            for d in [&cell.vs_baseline, &cell.vs_previous].into_iter().flatten() {
                if d.pct.is_some() && !pairs.contains(&(d.against, j)) {
                    pairs.push((d.against, j));
                }
            }
        }
    }
    // A chain's link is said once: vs previous wins over vs baseline when
    // both exist for different columns.
    pairs.sort_unstable();
    if !pairs.is_empty() {
        return pairs
            .into_iter()
            .map(|(from, to)| {
                let changes = rows
                    .iter()
                    .filter_map(|m| {
                        let cell = m.cells.get(to)?;
                        let d = [&cell.vs_baseline, &cell.vs_previous]
                            .into_iter()
                            .flatten()
                            .find(|d| d.against == from && d.pct.is_some())?;
                        Some(RowChange {
                            metric: m,
                            pct: d.pct,
                            judgement: d.judgement,
                            significance: d.significance,
                            tested: d.welch_p.is_some(),
                            summary_only: d.summary_only,
                            n: d.n.min(d.n_against),
                        })
                    })
                    .collect();
                (from, to, changes)
            })
            .collect();
    }
    let ncols = rows.iter().map(|m| m.cells.len()).max().unwrap_or(0);
    let with_data: Vec<usize> = (0..ncols)
        .filter(|&j| rows.iter().any(|m| m.cells.get(j).is_some_and(|x| x.n > 0)))
        .collect();
    let Some((&reference, others)) = with_data.split_first() else {
        return Vec::new();
    };
    others
        .iter()
        .map(|&to| {
            let changes = rows
                .iter()
                .filter_map(|m| {
                    let r = m.cells.get(reference)?;
                    let x = m.cells.get(to)?;
                    let pct = crate::compare::pct_change(r.mean?, x.mean?)?;
                    Some(RowChange {
                        metric: m,
                        pct: Some(pct),
                        judgement: Judgement::of(Some(pct), m.better),
                        significance: Significance::NotAssessed,
                        tested: false,
                        summary_only: r.single_summary || x.single_summary,
                        n: r.n.min(x.n),
                    })
                })
                .collect();
            (reference, to, changes)
        })
        .collect()
}

// ------------------------------------------------------------- helpers

/// ASCII only: control characters and non-ASCII become '?', except a few
/// common ones with an obvious ASCII spelling.
fn clean(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            'µ' | 'μ' => o.push('u'),
            '\t' | '\n' | '\r' => o.push(' '),
            c if c.is_ascii() && !c.is_ascii_control() => o.push(c),
            _ => o.push('?'),
        }
    }
    o
}

/// Shortens `s` to `w` characters by cutting the middle, because metric
/// names differ at their ends ("...-async-System" vs "...-async-Elapsd").
fn shorten(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let keep = w - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let chars: Vec<char> = s.chars().collect();
    let mut o: String = chars[..head].iter().collect();
    o.push('~');
    o.extend(&chars[n - tail..]);
    o
}

/// [`shorten`] for the row labels of one table, so that two different
/// names never print alike: where two cut the same way, each shows its
/// head, the part where the names start to differ, and its end
/// (`perf-s~avg.ms.sc~do_poll` beside `perf-s~count.ms.~do_poll`).
fn shorten_apart(labels: &[&str], w: usize) -> Vec<String> {
    let mut out: Vec<String> = labels.iter().map(|l| shorten(l, w)).collect();
    let chars: Vec<Vec<char>> = labels.iter().map(|l| l.chars().collect()).collect();
    // Metric rows lead with their statistic in a field of 8 and a space:
    // that part stays whole.
    let stat = if chars
        .iter()
        .all(|c| c.len() > STAT_FIELD && c[STAT_FIELD - 1] == ' ')
    {
        STAT_FIELD
    } else {
        0
    };
    let room = w.saturating_sub(stat);
    if room < 12 {
        return out;
    }
    // Rows by their cut label: only those sharing one with another name
    // are cut again.
    let mut alike: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, short) in out.iter().enumerate() {
        alike.entry(short.as_str()).or_default().push(i);
    }
    let mut recut: Vec<(usize, String)> = Vec::new();
    for group in alike.values().filter(|g| g.len() > 1) {
        for &i in group {
            let (lead, me) = chars[i].split_at(stat);
            // Where this name last parts from the ones it is cut alike with
            // (their cut ends are alike, so the end is left out).
            let Some(from) = group
                .iter()
                .filter(|&&j| labels[j] != labels[i])
                .map(|&j| {
                    me.iter()
                        .zip(chars[j].iter().skip(stat))
                        .take_while(|(a, b)| a == b)
                        .count()
                })
                .max()
            else {
                continue;
            };
            let head = room / 4;
            let mid = room - head - 2;
            let start = from.saturating_sub(1).max(head);
            let mut s: String = lead.iter().chain(me.iter().take(head)).collect();
            s.push('~');
            s.extend(me.iter().skip(start).take(mid));
            if start + mid < me.len() {
                s.push('~');
            }
            recut.push((i, s));
        }
    }
    for (i, s) in recut {
        out[i] = s;
    }
    out
}

/// Width of the statistic in front of a metric row's name, with its space.
const STAT_FIELD: usize = 9;

/// Greedy word wrap to WIDTH; words longer than a line are split.
fn wrap_into(out: &mut Vec<String>, text: &str, first_indent: &str, indent: &str) {
    let mut line = first_indent.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let sep = if empty { 0 } else { 1 };
            if line.len() + sep + word.len() <= WIDTH {
                if !empty {
                    line.push(' ');
                }
                line.push_str(&word);
                empty = false;
                break;
            }
            if !empty {
                out.push(std::mem::replace(&mut line, indent.to_string()));
                empty = true;
                continue;
            }
            // The word alone does not fit: split it.
            let room = WIDTH.saturating_sub(line.len()).max(1);
            let rest = word.split_off(room.min(word.len()));
            line.push_str(&word);
            out.push(std::mem::replace(&mut line, indent.to_string()));
            word = rest;
            if word.is_empty() {
                break;
            }
        }
    }
    if !empty {
        out.push(line);
    }
}

fn hard_split_into(out: &mut Vec<String>, s: &str) {
    let chars: Vec<char> = s.chars().collect();
    for chunk in chars.chunks(WIDTH) {
        out.push(chunk.iter().collect());
    }
}

/// `-2.05% better`: the raw change and, when the metric has a direction,
/// whether that is better or worse. Not mmtests' `( x.xx%)`, whose sign is
/// a gain: a reader must never read a raw change in mmtests' convention.
fn fmt_change(p: Option<f64>, better: Better) -> String {
    let word = crate::compare::Judgement::of(p, better).word();
    // Fixed widths, so the columns of numbers stay aligned.
    match (p, word) {
        (None, _) => format!("{:>8} {:<6}", "n/a", ""),
        (Some(_), "" | "no change") => format!("{:>8} {:<6}", fmt::pct(p), ""),
        (Some(_), w) => format!("{:>8} {w:<6}", fmt::pct(p)),
    }
}

/// A significance mark padded to two characters so columns stay aligned.
fn mark(s: Option<Significance>) -> String {
    format!("{:<2}", s.map_or("", Significance::mark))
}

/// Breaks a label into at most `lines` pieces of at most `w` characters,
/// preferring to break after '-', '_', '/', ' ' or '.'. A label too long
/// for that is first shortened in the middle, since variant names tend to
/// differ at their ends ("...-v1", "...-v2").
fn wrap_label(label: &str, w: usize, lines: usize) -> Vec<String> {
    let w = w.max(1);
    let lines = lines.max(1);
    let label = shorten(label, w * lines);
    let chars: Vec<char> = label.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let rest = chars.len() - start;
        if rest <= w {
            out.push(chars[start..].iter().collect::<String>());
            break;
        }
        let window = &chars[start..start + w];
        let cut = window
            .iter()
            .rposition(|c| matches!(c, '-' | '_' | '/' | ' ' | '.'))
            .filter(|&i| i > 0)
            .map_or(w, |i| i + 1);
        out.push(
            chars[start..start + cut]
                .iter()
                .collect::<String>()
                .trim()
                .to_string(),
        );
        start += cut;
    }
    if out.len() > lines {
        // Breaking at separators wasted too much room: cut at exact widths.
        out = chars
            .chunks(w)
            .map(|c| c.iter().collect::<String>())
            .collect();
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

// ----------------------------------------------------------------- grid

/// A table of right-aligned cells with a left label column. Rendered as one
/// or more tables of as many columns as fit in WIDTH, each repeating the
/// labels.
struct Grid {
    /// Column headers (labels), one per column.
    headers: Vec<String>,
    /// An extra header line per column (e.g. "n=5"), optional.
    subheaders: Vec<String>,
    rows: Vec<(String, Vec<String>)>,
    /// Minimum cell width, so headers get some room.
    min_cell: usize,
}

impl Grid {
    fn render(&self, out: &mut Vec<String>) {
        let ncols = self.headers.len();
        if ncols == 0 || self.rows.is_empty() {
            return;
        }
        let widest_cell = |j: usize| {
            self.rows
                .iter()
                .filter_map(|(_, cells)| cells.get(j))
                .map(|s| s.len())
                .chain(self.subheaders.get(j).map(String::len))
                .max()
                .unwrap_or(0)
        };
        let cell_w: Vec<usize> = (0..ncols)
            .map(|j| {
                let content = widest_cell(j).max(self.min_cell);
                // Room for a typical variant name ("ramdisknonrot-v1") on
                // one header line; longer labels wrap onto a second line.
                let header = self.headers[j].len().min(content.max(16));
                content.max(header).min(WIDTH - GAP - 8)
            })
            .collect();
        let max_cell = cell_w.iter().copied().max().unwrap_or(0);
        let left_room = WIDTH.saturating_sub(max_cell + GAP);
        let left_w = self
            .rows
            .iter()
            .map(|(l, _)| l.len())
            .max()
            .unwrap_or(0)
            .min(LEFT_MAX)
            .min(left_room);

        // Greedy split of the columns into tables that fit.
        let mut chunks: Vec<Vec<usize>> = Vec::new();
        let mut cur: Vec<usize> = Vec::new();
        let mut used = left_w;
        for (j, w) in cell_w.iter().enumerate() {
            let need = GAP + w;
            if !cur.is_empty() && used + need > WIDTH {
                chunks.push(std::mem::take(&mut cur));
                used = left_w;
            }
            cur.push(j);
            used += need;
        }
        chunks.push(cur);

        // The row labels are the same in every chunk: cut them once.
        let labels: Vec<&str> = self.rows.iter().map(|(l, _)| l.as_str()).collect();
        let labels = shorten_apart(&labels, left_w);
        for (k, chunk) in chunks.iter().enumerate() {
            if k > 0 {
                out.push(String::new());
            }
            let heads: Vec<Vec<String>> = chunk
                .iter()
                .map(|&j| wrap_label(&self.headers[j], cell_w[j], HEADER_LINES))
                .collect();
            let nlines = heads.iter().map(Vec::len).max().unwrap_or(1);
            for line in 0..nlines {
                // Bottom-align headers, as mmtests does with kernel/variant.
                let mut s = " ".repeat(left_w);
                for (h, &j) in heads.iter().zip(chunk) {
                    let pad = nlines - h.len();
                    let text = if line >= pad {
                        h[line - pad].as_str()
                    } else {
                        ""
                    };
                    s.push_str(&format!(
                        "{:>gap$}{:>w$}",
                        "",
                        text,
                        gap = GAP,
                        w = cell_w[j]
                    ));
                }
                out.push(s);
            }
            if !self.subheaders.is_empty() {
                let mut s = " ".repeat(left_w);
                for &j in chunk {
                    let text = self.subheaders.get(j).map_or("", String::as_str);
                    s.push_str(&format!(
                        "{:>gap$}{:>w$}",
                        "",
                        text,
                        gap = GAP,
                        w = cell_w[j]
                    ));
                }
                out.push(s);
            }
            for ((_, cells), label) in self.rows.iter().zip(&labels) {
                let mut s = format!("{label:<left_w$}");
                for &j in chunk {
                    let text = cells.get(j).map_or("", String::as_str);
                    let text = shorten(text, cell_w[j]);
                    s.push_str(&format!(
                        "{:>gap$}{:>w$}",
                        "",
                        text,
                        gap = GAP,
                        w = cell_w[j]
                    ));
                }
                out.push(s);
            }
        }
    }
}

// ------------------------------------------------------------- sections

fn columns_legend(out: &mut Vec<String>, c: &Comparison) {
    if c.columns.is_empty() {
        return;
    }
    out.push("Columns:".to_string());
    for (i, col) in c.columns.iter().enumerate() {
        let mut s = format!("{:>2}. {}", i + 1, clean(&col.label));
        let mut tags: Vec<String> = Vec::new();
        if i == c.baseline {
            tags.push("baseline".to_string());
        }
        if col.simulated {
            tags.push("simulated".to_string());
        }
        let mut kernels: Vec<&str> = col
            .runs
            .iter()
            .map(|r| r.kernel.as_str())
            .filter(|k| !k.is_empty())
            .collect();
        kernels.sort_unstable();
        kernels.dedup();
        let mut boards: Vec<&str> = col
            .runs
            .iter()
            .map(|r| r.board.as_str())
            .filter(|b| !b.is_empty())
            .collect();
        boards.sort_unstable();
        boards.dedup();
        // "unknown" alone would not say which of the two is unknown.
        if kernels.len() == 1 {
            tags.push(match kernels[0] {
                "unknown" => "kernel unknown".to_string(),
                k => clean(k),
            });
        }
        if boards.len() == 1 {
            tags.push(match boards[0] {
                "unknown" => "board unknown".to_string(),
                b => clean(b),
            });
        }
        if !col.runs.is_empty() {
            tags.push(format!(
                "{} run{}",
                col.runs.len(),
                if col.runs.len() == 1 { "" } else { "s" }
            ));
        }
        if !tags.is_empty() {
            s.push_str(&format!(" ({})", tags.join(", ")));
        }
        wrap_into(out, &s, "", "      ");
    }
    out.push(String::new());
}

/// The runs shown beside the comparison: one entry each, with what it
/// measured and where.
fn context_lines(out: &mut Vec<String>, c: &Comparison) {
    if c.context.is_empty() {
        return;
    }
    out.push("Also posted, not compared (no variant named):".to_string());
    for r in &c.context {
        let mut tags: Vec<String> = Vec::new();
        for t in [&r.run.kernel, &r.run.board] {
            if !t.is_empty() {
                tags.push(clean(t));
            }
        }
        tags.push(format!("run {}", r.run.id));
        wrap_into(
            out,
            &format!("- {} ({})", clean(&r.headline()), tags.join(", ")),
            "",
            "  ",
        );
    }
    out.push(String::new());
}

/// Column headers for the tables: [`Comparison::short_labels`], in ASCII.
fn column_headers(c: &Comparison) -> Vec<String> {
    c.short_labels().iter().map(|l| clean(l)).collect()
}

/// The longest prefix all `names` share that ends at a separator (`-`,
/// `_`, `.`, `/`, space), when some name would not fit the label column
/// without it and every name keeps something after it.
fn shared_prefix(names: &[String]) -> Option<String> {
    if names.is_empty() || names.iter().all(|n| n.len() + 9 <= LEFT_MAX) {
        return None;
    }
    if names.len() == 1 {
        // One long name: its head goes above the table, its last word stays.
        let n = &names[0];
        let cut = n
            .as_bytes()
            .iter()
            .rposition(|c| matches!(c, b'-' | b'_' | b'.' | b'/' | b' '))?
            + 1;
        return (cut >= 6 && n.len() > cut).then(|| n[..cut].to_string());
    }
    let first = names[0].as_bytes();
    let mut len = first.len();
    for n in &names[1..] {
        let b = n.as_bytes();
        len = len.min(first.iter().zip(b).take_while(|(x, y)| x == y).count());
    }
    let cut = first[..len]
        .iter()
        .rposition(|c| matches!(c, b'-' | b'_' | b'.' | b'/' | b' '))?
        + 1;
    (cut >= 6 && names.iter().all(|n| n.len() > cut)).then(|| names[0][..cut].to_string())
}

/// Where a row goes in the mmtests order: Min, mean, Stddev, CoeffVar, Max.
fn stat_group(stat: &str) -> u8 {
    match stat {
        "Min" => 0,
        "Stddev" => 2,
        "CoeffVar" => 3,
        "Max" => 4,
        _ => 1,
    }
}

fn better_words(b: Better) -> &'static str {
    b.words()
}

fn n_header(metrics: &[&MetricComparison], j: usize) -> String {
    let cells: Vec<&MetricCell> = metrics.iter().filter_map(|m| m.cells.get(j)).collect();
    let lo = cells.iter().map(|x| x.n).min().unwrap_or(0);
    let hi = cells.iter().map(|x| x.n).max().unwrap_or(0);
    let printed = cells.iter().any(|x| x.single_summary);
    let mut s = if lo == hi {
        format!("n={lo}")
    } else {
        format!("n={lo}-{hi}")
    };
    if printed {
        s.push_str(" printed");
    }
    s
}

fn metric_tables(c: &Comparison) -> MetricTables {
    let mut parts = MetricTables::default();
    if c.metrics.is_empty() {
        return parts;
    }
    // One table per (scope, unit, direction), in order of first
    // appearance: rows of different tables or tests never share one.
    type Group<'a> = (String, String, String, Better, Vec<&'a MetricComparison>);
    let mut groups: Vec<Group> = Vec::new();
    for m in &c.metrics {
        match groups
            .iter_mut()
            .find(|(sc, _, u, b, _)| *sc == m.scope && *u == m.unit && *b == m.better)
        {
            Some(g) => g.4.push(m),
            None => groups.push((
                m.scope.clone(),
                m.section.clone(),
                m.unit.clone(),
                m.better,
                vec![m],
            )),
        }
    }
    let base = c.baseline;
    let labels: Vec<String> = column_headers(c);
    let mut any_assessed = false;
    let mut single_column_tables = 0usize;
    for (_, section, unit, better, metrics) in &groups {
        // Only the columns that have data in this table, compared with the
        // baseline when it is one of them, else with the first of them.
        let cols: Vec<usize> = (0..c.columns.len())
            .filter(|&j| {
                metrics
                    .iter()
                    .any(|m| m.cells.get(j).is_some_and(|x| x.n > 0))
            })
            .collect();
        let Some(&first) = cols.first() else {
            continue;
        };
        // A table with one column here compares nothing: it is left out of
        // the text (the HTML and JSON keep it) and counted below.
        if cols.len() < 2 && c.columns.len() > 1 {
            single_column_tables += 1;
            continue;
        }
        let judged = metrics.iter().any(|m| {
            m.cells.iter().any(|x| {
                [&x.vs_baseline, &x.vs_previous].iter().any(|d| {
                    d.as_ref().is_some_and(|d| {
                        matches!(
                            d.judgement,
                            crate::compare::Judgement::Better | crate::compare::Judgement::Worse
                        )
                    })
                })
            })
        });
        let mut lines: Vec<String> = Vec::new();
        let out = &mut lines;
        let reference = if cols.contains(&base) { base } else { first };
        let unit = if unit.is_empty() {
            "no unit".to_string()
        } else {
            clean(unit)
        };
        let section = clean(section);
        let head = format!(
            "{}, {}; % = change vs {}",
            unit,
            better_words(*better),
            labels.get(reference).map_or("", String::as_str)
        );
        // Names are never cut in the middle of a word: when they would be
        // too long for the label column, a prefix they share is said once
        // above the table and left out of each row.
        let names: Vec<String> = metrics.iter().map(|m| clean(&m.name)).collect();
        let prefix = shared_prefix(&names);
        let head = match &prefix {
            Some(p) => format!("{head}; rows are {p}..."),
            None => head,
        };
        if section.trim().is_empty() {
            wrap_into(out, &head, "", "  ");
        } else {
            wrap_into(out, &format!("{}: {head}", section.trim()), "", "  ");
        }
        // The change of cell j against the reference, with its mark when a
        // test was run for exactly that pair.
        let change = |m: &MetricComparison, j: usize| -> (Option<f64>, Option<Significance>) {
            if j == reference {
                return (Some(0.0), None);
            }
            let x = &m.cells[j];
            let d = if reference == base {
                x.vs_baseline.as_ref()
            } else if c.chain_previous && j > 0 && j - 1 == reference {
                x.vs_previous.as_ref()
            } else {
                None
            };
            match d {
                Some(d) => (d.pct, Some(d.significance)),
                None => (
                    match (m.cells[reference].mean, x.mean) {
                        (Some(r), Some(v)) => pct_change(r, v),
                        _ => None,
                    },
                    None,
                ),
            }
        };
        let mut rows: Vec<(u8, usize, String, Vec<String>)> = Vec::new();
        for (mi, m) in metrics.iter().enumerate() {
            let full = clean(&m.name);
            let name = match &prefix {
                Some(p) => full.strip_prefix(p.as_str()).unwrap_or(&full).to_string(),
                None => full,
            };
            let label = |stat: &str| format!("{:<8} {}", clean(stat), name);
            let has_spread = cols
                .iter()
                .any(|&j| m.cells[j].n >= 2 && !m.cells[j].single_summary);
            let value_row = |get: &dyn Fn(&MetricCell) -> Option<f64>| -> Vec<String> {
                cols.iter()
                    .map(|&j| match get(&m.cells[j]) {
                        None => "-".to_string(),
                        Some(v) => {
                            if j == reference {
                                return format!("{}{}", fmt::value(v), mark(None));
                            }
                            let pct = get(&m.cells[reference]).and_then(|r| pct_change(r, v));
                            format!(
                                "{} {}{}",
                                fmt::value(v),
                                fmt_change(pct, m.better),
                                mark(None)
                            )
                        }
                    })
                    .collect()
            };
            let mean_cells: Vec<String> = cols
                .iter()
                .map(|&j| match m.cells[j].mean {
                    None => "-".to_string(),
                    Some(v) => {
                        let (pct, sig) = change(m, j);
                        if sig.is_some_and(|s| s != Significance::NotAssessed) {
                            any_assessed = true;
                        }
                        if j == reference {
                            return format!("{}{}", fmt::value(v), mark(None));
                        }
                        format!(
                            "{} {}{}",
                            fmt::value(v),
                            fmt_change(pct, m.better),
                            mark(sig)
                        )
                    }
                })
                .collect();
            rows.push((stat_group(&m.stat), mi, label(&m.stat), mean_cells));
            if has_spread {
                rows.push((0, mi, label("Min"), value_row(&|x: &MetricCell| x.min)));
                rows.push((4, mi, label("Max"), value_row(&|x: &MetricCell| x.max)));
                let plain = |get: &dyn Fn(&MetricCell) -> Option<f64>| -> Vec<String> {
                    cols.iter()
                        .map(|&j| match get(&m.cells[j]) {
                            Some(0.0) => "none".to_string(),
                            Some(v) => format!("{}{}", fmt::compact(v), mark(None)),
                            None => "-".to_string(),
                        })
                        .collect()
                };
                rows.push((2, mi, label("Stddev"), plain(&|x: &MetricCell| x.stddev)));
                rows.push((3, mi, label("CoeffVar"), plain(&|x: &MetricCell| x.cov_pct)));
            } else if cols
                .iter()
                .any(|&j| m.cells[j].n == 1 && m.cells[j].cov_pct.is_some())
            {
                // The spread each table printed beside its value (LKP's
                // `± N%`): the noise a reader weighs the change against.
                let cov = cols
                    .iter()
                    .map(|&j| match m.cells[j].cov_pct {
                        Some(v) => fmt::compact(v),
                        None => "-".to_string(),
                    })
                    .collect();
                rows.push((3, mi, label("CoeffVar"), cov));
            }
        }
        rows.sort_by_key(|r| (r.0, r.1));
        let n_headers: Vec<String> = cols.iter().map(|&j| n_header(metrics, j)).collect();
        Grid {
            headers: cols.iter().map(|&j| labels[j].clone()).collect(),
            subheaders: n_headers,
            rows: rows.into_iter().map(|r| (r.2, r.3)).collect(),
            min_cell: 10,
        }
        .render(out);
        out.push(String::new());

        // A chain of three or more columns in one table: each link too.
        if c.chain_previous && cols.len() > 2 {
            out.push("% change vs previous column".to_string());
            let rows: Vec<(String, Vec<String>)> = metrics
                .iter()
                .map(|m| {
                    let cells = cols
                        .iter()
                        .skip(1)
                        .map(|&j| match &m.cells[j].vs_previous {
                            None => "-".to_string(),
                            Some(d) => {
                                if d.significance != Significance::NotAssessed {
                                    any_assessed = true;
                                }
                                format!(
                                    "{}{}",
                                    fmt_change(d.pct, m.better),
                                    mark(Some(d.significance))
                                )
                            }
                        })
                        .collect();
                    (format!("{:<8} {}", clean(&m.stat), clean(&m.name)), cells)
                })
                .collect();
            Grid {
                headers: cols.iter().skip(1).map(|&j| labels[j].clone()).collect(),
                subheaders: Vec::new(),
                rows,
                min_cell: 8,
            }
            .render(out);
            out.push(String::new());
        }
        parts.tables.push(TableText { judged, lines });
    }
    let out = &mut parts.notes;
    if single_column_tables > 0 {
        wrap_into(
            out,
            &format!(
                "{single_column_tables} table{} with data in only one column here {} left \
                 out; the permalink's page and JSON keep {}.",
                if single_column_tables == 1 { "" } else { "s" },
                if single_column_tables == 1 {
                    "is"
                } else {
                    "are"
                },
                if single_column_tables == 1 {
                    "it"
                } else {
                    "them"
                },
            ),
            "",
            "",
        );
    }
    wrap_into(out, &clean(&c.family.sentence), "", "");
    if any_assessed {
        // Said only when some cells are marked: otherwise the sentence
        // above already says that nothing could be tested.
        wrap_into(
            out,
            "Fewer than 3 runs on a side, or a single printed summary: \
             cannot assess (never marked).",
            "",
            "",
        );
    }
    let floors: Vec<String> = c
        .metrics
        .iter()
        .filter_map(|m| {
            m.noise_floor_pct
                .map(|f| format!("{} {}%", clean(&m.name), fmt::compact(f)))
        })
        .collect();
    if !floors.is_empty() {
        wrap_into(
            out,
            &format!(
                "Noise floor (CoeffVar of baseline runs): {}",
                floors.join(", ")
            ),
            "",
            "  ",
        );
    }
    out.push(String::new());
    parts
}

/// A grid of label rows under the column headers, and a blank line.
fn plain_grid(out: &mut Vec<String>, headers: &[String], rows: Vec<(String, Vec<String>)>) {
    Grid {
        headers: headers.to_vec(),
        subheaders: Vec::new(),
        rows,
        min_cell: 8,
    }
    .render(out);
    out.push(String::new());
}

fn latency_section(out: &mut Vec<String>, c: &Comparison, lat: &LatencyComparison) {
    let headers: Vec<String> = column_headers(c);
    let base = c.baseline;
    if !lat.threads.is_empty() {
        out.push("Latency per thread, Min/Avg/Max us".to_string());
        let runs: Vec<String> = (0..c.columns.len())
            .map(|j| {
                let n = lat
                    .threads
                    .iter()
                    .filter_map(|t| t.cells.get(j).and_then(|x| x.as_ref()))
                    .map(|x| x.n_runs)
                    .max();
                n.map_or(String::new(), |n| format!("n={n}"))
            })
            .collect();
        let rows = lat
            .threads
            .iter()
            .map(|t| {
                let cells = t
                    .cells
                    .iter()
                    .map(|x| match x {
                        None => "-".to_string(),
                        Some(x) => format!(
                            "{}/{}/{}",
                            fmt::us(x.min_us),
                            fmt::us(x.avg_us),
                            fmt::us(x.max_us)
                        ),
                    })
                    .collect();
                (format!("T{}", t.thread), cells)
            })
            .collect();
        Grid {
            headers: headers.clone(),
            subheaders: runs,
            rows,
            min_cell: 8,
        }
        .render(out);
        out.push(String::new());
        // The range of per-thread maxima is what a reply quotes ("52-67 ms
        // -> 1.5-4.4 ms"); with one run per column it is not a test.
        for (j, header) in headers.iter().enumerate() {
            if j == base {
                continue;
            }
            let range = |col: usize| {
                let xs: Vec<f64> = lat
                    .threads
                    .iter()
                    .filter_map(|t| t.cells.get(col).and_then(|x| x.as_ref()))
                    .map(|x| x.max_us)
                    .collect();
                let n = lat
                    .threads
                    .iter()
                    .filter_map(|t| t.cells.get(col).and_then(|x| x.as_ref()))
                    .map(|x| x.n_runs)
                    .min();
                Some((
                    crate::stats::min(&xs)?,
                    crate::stats::max(&xs)?,
                    n.unwrap_or(0),
                ))
            };
            if let (Some((b0, b1, nb)), Some((a0, a1, na))) = (range(base), range(j)) {
                let honesty = if nb < 3 || na < 3 {
                    format!("n={}, cannot assess", nb.min(na))
                } else {
                    format!("n={nb}/{na}")
                };
                wrap_into(
                    out,
                    &format!(
                        "{}: per-thread max {}-{} us -> {}-{} us ({})",
                        header,
                        fmt::us(b0),
                        fmt::us(b1),
                        fmt::us(a0),
                        fmt::us(a1),
                        honesty
                    ),
                    "",
                    "  ",
                );
            }
        }
        out.push(String::new());
    }
    if lat.tails.iter().any(Option::is_some) {
        out.push("Latency tails from histograms, us".to_string());
        let row = |name: &str, get: &dyn Fn(&crate::compare::LatencyTails) -> String| {
            (
                name.to_string(),
                lat.tails
                    .iter()
                    .map(|t| t.as_ref().map_or("-".to_string(), get))
                    .collect::<Vec<_>>(),
            )
        };
        let rows = vec![
            row("p50", &|t| t.p50.show()),
            row("p99", &|t| t.p99.show()),
            row("p99.9", &|t| t.p99_9.show()),
            row("max", &|t| t.max.show()),
            row("samples", &|t| t.count.to_string()),
        ];
        let mut rows = rows;
        if lat.tails.iter().flatten().any(|t| t.overflows > 0) {
            rows.push(row("overflows", &|t| t.overflows.to_string()));
        }
        plain_grid(out, &headers, rows);
    }
    if !lat.thread_tails.is_empty() {
        out.push("Latency tails per thread, p99/p99.9/max us".to_string());
        let rows = lat
            .thread_tails
            .iter()
            .map(|r| {
                let cells = r
                    .cells
                    .iter()
                    .map(|t| {
                        t.as_ref().map_or("-".to_string(), |t| {
                            format!("{}/{}/{}", t.p99.show(), t.p99_9.show(), t.max.show())
                        })
                    })
                    .collect();
                (format!("T{}", r.thread), cells)
            })
            .collect();
        plain_grid(out, &headers, rows);
    }
    if !lat.worst.is_empty() {
        out.push("Worst latency per tool, us (each kind compared only with itself)".to_string());
        let rows = lat
            .worst
            .iter()
            .map(|w| {
                let cells = w
                    .cells
                    .iter()
                    .map(|x| x.as_ref().map_or("-".to_string(), |p| p.show()))
                    .collect();
                (w.label.clone(), cells)
            })
            .collect();
        plain_grid(out, &headers, rows);
    }
    let diffs = &lat.culprit_diffs;
    if !diffs.is_empty() {
        wrap_into(
            out,
            &format!(
                "Worst latency vs {}:",
                headers.get(base).map_or("", String::as_str)
            ),
            "",
            "  ",
        );
        for d in diffs {
            let label = headers.get(d.column).map_or("", String::as_str);
            wrap_into(
                out,
                &format!("{}: {}", label, clean(&d.sentence)),
                "  ",
                "    ",
            );
        }
        out.push(String::new());
    }
}
