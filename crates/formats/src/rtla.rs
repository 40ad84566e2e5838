//! rtla output: `rtla timerlat top`, `rtla timerlat hist`, `rtla osnoise
//! top`, `rtla osnoise hist`, and the timerlat auto-analysis that follows a
//! stop-tracing hit (`## CPU 3 hit stop tracing, analyzing it ##`,
//! `IRQ handler delay:`, `IRQ latency:`, `Blocking thread:`, its stack,
//! `Max timerlat IRQ latency from idle: ...`).
//!
//! Owns only these text layouts. Nanosecond output (`-n`, `(ns)` in the
//! header or `# Time unit is nanoseconds`) is converted to microseconds.
//! For a hist, `Rtla::columns` names the count columns (`IRQ-000`,
//! `Thr-000`, `CPU-000`, ...) in the order of each `histogram` row; the
//! `over:`/`count:`/`min:`/`avg:`/`max:` footer fills `per_cpu`. An
//! auto-analysis printed on its own (`--aa-only`) has `mode: "analysis"`.
//!
//! Format reference: Documentation/tools/rtla/rtla-timerlat-top.rst,
//! rtla-timerlat-hist.rst, rtla-osnoise-top.rst, rtla-osnoise-hist.rst and
//! tools/tracing/rtla/src/timerlat_aa.c in the kernel tree.

use crate::document::{BlockBody, Rtla, RtlaAnalysis, RtlaCpu};
use crate::error::ParseError;
use crate::lines::Line;

const FORMAT: &str = "rtla";

/// Recognise an rtla block starting at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let kind = start_kind(colourless(first.text).trim())?;
    let quote = first.quote;
    let mut p = Parser::new(kind);
    let mut consumed = 0;
    let mut k = 0;
    while let Some(line) = lines.get(start + k) {
        if line.quote != quote {
            break;
        }
        let text = colourless(line.text);
        let t = text.trim();
        if t.is_empty() {
            // The analysis prints one blank line before its idle summary.
            let next = lines.get(start + k + 1).filter(|l| l.quote == quote);
            // A blank line a paste put between the title and `duration:`.
            let title_gap =
                consumed == k && next.is_some_and(|l| l.text.trim().starts_with("duration:"));
            if title_gap
                || (p.analysis.is_some() && next.is_some_and(|l| is_analysis_line(l.text.trim())))
            {
                k += 1;
                continue;
            }
            break;
        }
        // A mailer may have hard-wrapped an osnoise top header or row
        // (`... Max` / `Single ... Threa` / `d`): join it back first.
        let (joined, extra) = if p.kind == Kind::OsnoiseTop && p.analysis.is_none() {
            unwrap_osnoise(lines, start + k, quote, p.osnoise_cols.len())
        } else {
            (t.to_string(), 0)
        };
        match p.feed(line.no, &crate::ftrace::ascii_spaces(&joined)) {
            Ok(true) => consumed = k + 1 + extra,
            Ok(false) => break,
            Err(e) => return Some(Err(e)),
        }
        k += 1 + extra;
    }
    Some(
        p.finish(first.no)
            .map(|r| (consumed.max(1), BlockBody::Rtla(r))),
    )
}

/// timerlat top's colours taken off: `ESC[2;30;47m` ... `ESC[0;0;0m`,
/// also when a paste lost the ESC byte and kept `[2;30;47m` as text.
fn colourless(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('[') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        let after = &rest[at + 1..];
        let params = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        let sgr = params > 0 && after[params..].starts_with('m');
        let head = rest[..at].strip_suffix('\u{1b}').unwrap_or(&rest[..at]);
        if sgr {
            out.push_str(head);
            rest = &after[params + 1..];
        } else {
            out.push_str(&rest[..=at]);
            rest = after;
        }
    }
    out.push_str(rest);
    out.into()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    TimerlatTop,
    OsnoiseTop,
    Hist,
    Analysis,
}

/// The title of osnoise top and of `rtla hwnoise`, which prints the same
/// table under its own name.
fn is_osnoise_title(t: &str) -> bool {
    t == "Operating System Noise" || t == "Hardware-related Noise"
}

fn start_kind(t: &str) -> Option<Kind> {
    if t == "Timer Latency" || t.contains("IRQ Timer Latency (") || t.starts_with("CPU COUNT") {
        Some(Kind::TimerlatTop)
    } else if is_osnoise_title(t) || t.starts_with("CPU Period") {
        Some(Kind::OsnoiseTop)
    } else if (t.starts_with("# RTLA ") && t.ends_with(" histogram"))
        || (t.starts_with("Index")
            && (t.contains("IRQ-0") || t.contains("CPU-0") || t.contains("Thr-0")))
    {
        Some(Kind::Hist)
    } else if t.starts_with("rtla timerlat hit stop tracing") || is_stop_header(t) {
        Some(Kind::Analysis)
    } else {
        None
    }
}

fn is_stop_header(t: &str) -> bool {
    t.starts_with("## CPU ") && t.contains("hit stop tracing")
}

fn is_analysis_line(t: &str) -> bool {
    t.starts_with("The system has exit from idle latency")
        || t.starts_with("Max timerlat IRQ latency from idle")
        || t.starts_with("Saving trace to")
        || t.starts_with("Printing CPU tasks")
        || is_stop_header(t)
}

struct Parser {
    out: Rtla,
    kind: Kind,
    /// The values are printed in nanoseconds.
    ns: bool,
    /// Column names of an osnoise top table, after CPU and Period.
    osnoise_cols: Vec<String>,
    analysis: Option<RtlaAnalysis>,
    in_stack: bool,
    /// The last analysis line was `Blocking thread:` (comm:pid follows).
    want_blocking: bool,
    in_all_summary: bool,
    /// `rtla timerlat hit stop tracing` was seen: the auto-analysis follows.
    stopped: bool,
    /// A hist `Index` line without CPU columns: nothing was recorded above
    /// the threshold (`osnoise hist -T 500` on a quiet system).
    empty_index: bool,
}

impl Parser {
    fn new(kind: Kind) -> Self {
        let (tool, mode) = match kind {
            Kind::TimerlatTop => ("timerlat", "top"),
            Kind::OsnoiseTop => ("osnoise", "top"),
            Kind::Hist => ("", "hist"),
            Kind::Analysis => ("timerlat", "analysis"),
        };
        Parser {
            out: Rtla {
                tool: tool.to_string(),
                mode: mode.to_string(),
                ..Rtla::default()
            },
            kind,
            ns: false,
            osnoise_cols: Vec::new(),
            analysis: None,
            in_stack: false,
            want_blocking: false,
            in_all_summary: false,
            stopped: false,
            empty_index: false,
        }
    }

    fn scale(&self) -> f64 {
        if self.ns { 0.001 } else { 1.0 }
    }

    fn feed(&mut self, no: u64, t: &str) -> Result<bool, ParseError> {
        if self.analysis.is_some()
            || self.stopped
            || t.starts_with("rtla timerlat hit stop tracing")
            || is_stop_header(t)
        {
            self.stopped |= t.starts_with("rtla timerlat hit stop tracing");
            return Ok(self.analysis_line(t));
        }
        match self.kind {
            Kind::TimerlatTop => Ok(self.timerlat_top(t)),
            Kind::OsnoiseTop => Ok(self.osnoise_top(t)),
            Kind::Hist => self.hist(no, t),
            Kind::Analysis => Ok(false),
        }
    }

    fn timerlat_top(&mut self, t: &str) -> bool {
        if t == "Timer Latency" {
            return true;
        }
        if t.contains("Timer Latency (") {
            self.ns |= t.contains("(ns)");
            return true;
        }
        // `...`: CPU rows the poster left out.
        if t.starts_with("CPU COUNT") || t.starts_with("---") || crate::lines::is_elision(t) {
            return true;
        }
        let parts: Vec<&str> = t.split('|').collect();
        if parts.len() < 2 {
            return false;
        }
        let mut head = parts[0].split_whitespace();
        let cpu = head.next().unwrap_or("");
        let count = head.next().unwrap_or("");
        let Ok(cpu) = cpu.parse::<u32>() else {
            // `ALL #... |` summary rows of newer rtla.
            return cpu == "ALL" || cpu == "ALL:";
        };
        let s = self.scale();
        let mut row = RtlaCpu {
            cpu,
            count: count.trim_start_matches('#').parse().ok(),
            ..RtlaCpu::default()
        };
        for (k, part) in parts[1..].iter().enumerate() {
            let v = leading_numbers(part);
            let get = |i: usize| v.get(i).map(|x| x * s);
            match k {
                0 => {
                    row.irq_min_us = get(1);
                    row.irq_avg_us = get(2);
                    row.irq_max_us = get(3);
                    if let Some(c) = get(0) {
                        row.fields.push(("irq_cur".into(), c));
                    }
                }
                1 => {
                    row.thread_min_us = get(1);
                    row.thread_avg_us = get(2);
                    row.thread_max_us = get(3);
                    if let Some(c) = get(0) {
                        row.fields.push(("thread_cur".into(), c));
                    }
                }
                _ => {
                    for (i, name) in ["user_cur", "user_min", "user_avg", "user_max"]
                        .iter()
                        .enumerate()
                    {
                        if let Some(x) = get(i) {
                            row.fields.push(((*name).into(), x));
                        }
                    }
                }
            }
        }
        self.out.per_cpu.push(row);
        true
    }

    fn osnoise_top(&mut self, t: &str) -> bool {
        if is_osnoise_title(t) || crate::lines::is_elision(t) {
            return true;
        }
        if t.starts_with("duration:") {
            self.ns |= t.contains("time is in ns");
            return true;
        }
        if let Some(rest) = t.strip_prefix("CPU Period") {
            self.osnoise_cols = osnoise_columns(rest);
            return true;
        }
        let mut toks = t.split_whitespace();
        let (Some(cpu), Some(period)) = (toks.next(), toks.next()) else {
            return false;
        };
        let (Ok(cpu), Some(period)) = (cpu.parse::<u32>(), period.strip_prefix('#')) else {
            return false;
        };
        let s = self.scale();
        let mut row = RtlaCpu {
            cpu,
            count: period.parse().ok(),
            ..RtlaCpu::default()
        };
        for (k, tok) in toks.enumerate() {
            let Ok(v) = tok.parse::<f64>() else { break };
            let name = self
                .osnoise_cols
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("col{k}"));
            // `% CPU Aval` is a percentage and the interference columns
            // are event counts; only Runtime/Noise/Max columns are times.
            let is_time = matches!(
                name.as_str(),
                "Runtime" | "Noise" | "Max Noise" | "Max Single"
            );
            row.fields.push((name, if is_time { v * s } else { v }));
        }
        self.out.per_cpu.push(row);
        true
    }

    fn hist(&mut self, no: u64, t: &str) -> Result<bool, ParseError> {
        if let Some(h) = t.strip_prefix('#') {
            let h = h.trim();
            if let Some(rest) = h.strip_prefix("RTLA ") {
                self.out.tool = rest.split_whitespace().next().unwrap_or("").to_string();
            } else if h.starts_with("Time unit is") {
                self.ns = h.contains("nanoseconds") || h.contains("(ns)");
            }
            return Ok(true);
        }
        if let Some(rest) = t.strip_prefix("Index") {
            self.out.columns = rest.split_whitespace().map(str::to_string).collect();
            self.empty_index = self.out.columns.is_empty() && !self.out.tool.is_empty();
            if self.out.tool.is_empty() {
                let timerlat = self
                    .out
                    .columns
                    .iter()
                    .any(|c| c.starts_with("IRQ-") || c.starts_with("Thr-"));
                self.out.tool = if timerlat { "timerlat" } else { "osnoise" }.to_string();
            }
            return Ok(true);
        }
        if t.starts_with("ALL") {
            // Newer rtla prints an all-CPU summary after the per-CPU footer.
            self.in_all_summary = true;
            return Ok(true);
        }
        let first = t.split_whitespace().next().unwrap_or("");
        if let Some(stat) = first.strip_suffix(':') {
            if !matches!(stat, "over" | "count" | "min" | "avg" | "max") {
                return Ok(false);
            }
            if !self.in_all_summary {
                self.footer(stat, t);
            }
            return Ok(true);
        }
        if first.bytes().next().is_some_and(|b| b.is_ascii_digit()) && !self.out.columns.is_empty()
        {
            let s = self.scale();
            let mut it = t.split_whitespace();
            let idx = it.next().unwrap_or("");
            let lower: f64 = idx
                .parse()
                .map_err(|_| ParseError::invalid(FORMAT, no, 1, "a histogram index", idx))?;
            let mut counts = Vec::with_capacity(self.out.columns.len());
            for tok in it {
                let pos = t.find(tok).map_or(1, |p| p as u64 + 1);
                counts.push(
                    tok.parse::<u64>().map_err(|_| {
                        ParseError::invalid(FORMAT, no, pos, "a histogram count", tok)
                    })?,
                );
            }
            self.out.histogram.push((lower * s, counts));
            return Ok(true);
        }
        Ok(false)
    }

    /// `count:   600002    600002 ...` in `columns` order.
    fn footer(&mut self, stat: &str, t: &str) {
        let s = self.scale();
        let vals: Vec<Option<f64>> = t
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse::<f64>().ok())
            .collect();
        for (col, v) in self.out.columns.clone().iter().zip(vals) {
            let (ctx, cpu) = match col.split_once('-') {
                Some((c, n)) => (c, n.parse::<u32>().ok()),
                None => (col.as_str(), None),
            };
            let Some(cpu) = cpu else { continue };
            let pos = match self.out.per_cpu.iter().position(|c| c.cpu == cpu) {
                Some(p) => p,
                None => {
                    self.out.per_cpu.push(RtlaCpu {
                        cpu,
                        ..RtlaCpu::default()
                    });
                    self.out.per_cpu.len() - 1
                }
            };
            let row = &mut self.out.per_cpu[pos];
            let Some(v) = v else { continue };
            let lat = v * s;
            match (ctx, stat) {
                (_, "count") => {
                    if row.count.is_none() {
                        row.count = Some(v as u64);
                    }
                    if ctx != "IRQ" && ctx != "CPU" {
                        row.fields
                            .push((format!("{}_count", ctx.to_lowercase()), v));
                    }
                }
                ("IRQ", "min") => row.irq_min_us = Some(lat),
                ("IRQ", "avg") => row.irq_avg_us = Some(lat),
                ("IRQ", "max") => row.irq_max_us = Some(lat),
                ("Thr", "min") => row.thread_min_us = Some(lat),
                ("Thr", "avg") => row.thread_avg_us = Some(lat),
                ("Thr", "max") => row.thread_max_us = Some(lat),
                (_, "over") => row.fields.push((format!("{}_over", ctx.to_lowercase()), v)),
                _ => row
                    .fields
                    .push((format!("{}_{stat}", ctx.to_lowercase()), lat)),
            }
        }
    }

    fn analysis_line(&mut self, t: &str) -> bool {
        if t.starts_with("rtla timerlat hit stop tracing") {
            return true;
        }
        if t == "%)" || (t.ends_with("%)") && t.len() <= 12 && !t.contains(':')) {
            // The rest of `... 0.00 us (0.00` / `%)` wrapped by a mailer.
            return true;
        }
        if let Some((head, rest)) = split_glued(t) {
            // Two items printed without a newline between them (rtla before
            // its `Previous IRQ interference` fix).
            let a = self.analysis_line(head);
            let b = self.analysis_line(rest);
            return a || b;
        }
        let a = self.analysis.get_or_insert_with(RtlaAnalysis::default);
        if is_stop_header(t) {
            let cpu = t
                .trim_start_matches("## CPU ")
                .split_whitespace()
                .next()
                .unwrap_or("");
            a.cpu = cpu.parse().ok();
            self.in_stack = false;
            return true;
        }
        if let Some(f) = t.strip_prefix("->") {
            if self.in_stack {
                a.stack.push(crate::culprit::strip_offset(f).to_string());
            }
            return true;
        }
        self.in_stack = false;
        if t.starts_with("Blocking thread stacktrace")
            || t.starts_with("Blocking thread stack trace")
        {
            self.in_stack = true;
            return true;
        }
        if t.starts_with("---")
            || t.starts_with("The system has exit from idle")
            || t.starts_with("Saving trace to")
            || t.starts_with("Printing CPU tasks")
        {
            return true;
        }
        if t.starts_with('[') && t.contains(']') {
            // `[003]  comm:pid` task dump.
            return true;
        }
        let Some((name, v)) = value_us(t) else {
            if self.want_blocking && t.contains(':') {
                a.blocking_thread = Some(t.split_whitespace().next().unwrap_or(t).to_string());
                self.want_blocking = false;
                return true;
            }
            if t == "Blocking thread:" {
                self.want_blocking = true;
                return true;
            }
            return false;
        };
        let s = if self.ns { 0.001 } else { 1.0 };
        let v = v * s;
        if self.want_blocking && name.contains(':') && !name.ends_with(':') {
            a.blocking_thread = Some(name.clone());
            self.want_blocking = false;
            return true;
        }
        self.want_blocking = false;
        let key = name.trim_end_matches(':').trim();
        if t.contains("(100%)") {
            a.max_latency_us = Some(v);
        } else if key == "IRQ handler delay" {
            a.irq_handler_delay_us = Some(v);
        } else if key == "IRQ latency" {
            a.irq_latency_us = Some(v);
        } else if key == "Blocking thread" {
            self.want_blocking = true;
        }
        a.items.push((key.to_string(), v));
        true
    }

    fn finish(mut self, start_line: u64) -> Result<Rtla, ParseError> {
        self.out.analysis = self.analysis.take();
        let empty = self.out.per_cpu.is_empty()
            && self.out.histogram.is_empty()
            && self.out.analysis.is_none();
        if empty && !self.empty_index {
            return Err(ParseError::invalid(
                FORMAT,
                start_line,
                1,
                "per-CPU rows, histogram rows or an auto-analysis",
                "a header only",
            ));
        }
        if self.out.tool.is_empty() {
            self.out.tool = "timerlat".into();
        }
        Ok(self.out)
    }
}

/// Words of the osnoise top header, and its last one.
const OSNOISE_WORDS: &[&str] = &[
    "CPU", "Period", "Runtime", "Noise", "%", "Aval", "Max", "Single", "HW", "NMI", "IRQ",
    "Softirq", "Thread",
];
const OSNOISE_LAST: &str = "Thread";

/// Lines a hard-wrapped header or row may have been cut into.
const MAX_WRAP: usize = 3;

fn is_osnoise_row(t: &str) -> bool {
    let mut toks = t.split_whitespace();
    toks.next().is_some_and(|c| c.parse::<u32>().is_ok())
        && toks.next().is_some_and(|p| p.starts_with('#'))
}

/// Join the continuation `next` to `acc`: with a space, unless the mailer
/// cut a word (`Threa` / `d`) or a number (`2` / `4`) in two. `glue` says
/// whether gluing the two halves is the reading that fits.
fn join_wrapped(acc: &mut String, next: &str, glue: bool) {
    if !glue {
        acc.push(' ');
    }
    acc.push_str(next.trim());
}

/// The osnoise top line at `at`, with the lines a mailer wrapped it onto
/// joined back, and how many extra lines that took. A header is wrapped
/// when it does not end with `Thread` (the last column of every rtla
/// version); a CPU row when it has fewer values than the header has
/// columns (`ncols`). A word or number cut in two is glued back when only
/// the glued reading gives a known header word or the right value count.
fn unwrap_osnoise(lines: &[Line<'_>], at: usize, quote: u32, ncols: usize) -> (String, usize) {
    let t = lines[at].text.trim();
    let header = t.starts_with("CPU Period");
    let row = !header && ncols > 0 && is_osnoise_row(t);
    if !header && !row {
        return (t.to_string(), 0);
    }
    let values = |s: &str| s.split_whitespace().count().saturating_sub(2);
    let mut acc = t.to_string();
    let mut extra = 0;
    while extra < MAX_WRAP {
        let Some(next) = lines.get(at + extra + 1).filter(|l| l.quote == quote) else {
            break;
        };
        let n = next.text.trim();
        if n.is_empty() || is_osnoise_row(n) || n.starts_with("CPU Period") {
            break;
        }
        let done = if header {
            acc.split_whitespace().last() == Some(OSNOISE_LAST)
        } else {
            // A row with all its values may still have its last number cut
            // in two: one number alone on the next line is its end.
            let fragment = n.split_whitespace().count() == 1 && n.parse::<f64>().is_ok();
            values(&acc) > ncols || (values(&acc) == ncols && !fragment)
        };
        if done {
            break;
        }
        let last = acc.split_whitespace().last().unwrap_or("");
        let first = n.split_whitespace().next().unwrap_or("");
        let glue = if header {
            if !n.split_whitespace().all(|w| {
                OSNOISE_WORDS.contains(&w)
                    || OSNOISE_WORDS
                        .iter()
                        .any(|k| k.ends_with(w) || k.starts_with(w))
            }) {
                break;
            }
            let glued = format!("{last}{first}");
            !OSNOISE_WORDS.contains(&last) && OSNOISE_WORDS.contains(&glued.as_str())
        } else {
            if !n.split_whitespace().all(|w| w.parse::<f64>().is_ok()) {
                break;
            }
            // Gluing is the only reading when a space would give one
            // value too many.
            values(&acc) + n.split_whitespace().count() > ncols
                && last.parse::<f64>().is_ok()
                && format!("{last}{first}").parse::<f64>().is_ok()
        };
        join_wrapped(&mut acc, n, glue);
        extra += 1;
    }
    (acc, extra)
}

/// Header after `CPU Period`: `Runtime Noise % CPU Aval Max Noise ...`.
fn osnoise_columns(rest: &str) -> Vec<String> {
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (name, n) = match toks[i] {
            "%" => (
                toks.get(i..(i + 3).min(toks.len()))
                    .unwrap_or_default()
                    .join(" "),
                3,
            ),
            "Max" => (
                toks.get(i..(i + 2).min(toks.len()))
                    .unwrap_or_default()
                    .join(" "),
                2,
            ),
            t => (t.to_string(), 1),
        };
        out.push(name);
        i += n;
    }
    out
}

/// Leading numbers of a `|` section, stopping at the first non-number.
fn leading_numbers(s: &str) -> Vec<f64> {
    s.split_whitespace()
        .map_while(|t| t.parse::<f64>().ok())
        .collect()
}

/// `Previous IRQ interference: up to 2.22 us  IRQ handler delay: 18.06 us
/// (0.00 %)` -> the two items, when a second `Name: N us` follows the
/// first value.
fn split_glued(t: &str) -> Option<(&str, &str)> {
    for (at, _) in t.match_indices(" us") {
        let before = t.get(..at)?;
        let number = before.split_whitespace().next_back()?;
        if number.parse::<f64>().is_err() {
            continue;
        }
        let mut cut = at + 3;
        let mut rest = t.get(cut..)?;
        if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let trimmed = rest.trim_start();
        if trimmed.starts_with('(') {
            let close = trimmed.find(')')?;
            cut += rest.len() - trimmed.len() + close + 1;
            rest = t.get(cut..)?;
        }
        let rest = rest.trim();
        if rest.contains(':') && value_us(rest).is_some() {
            return Some((t.get(..cut)?.trim_end(), rest));
        }
        return None;
    }
    None
}

/// `IRQ handler delay:  (exit from idle)  27.49 us (65.52 %)` ->
/// ("IRQ handler delay:", 27.49): the first number followed by `us`.
fn value_us(t: &str) -> Option<(String, f64)> {
    let toks: Vec<&str> = t.split_whitespace().collect();
    let k = toks
        .windows(2)
        .position(|w| w[1] == "us" && w[0].parse::<f64>().is_ok())?;
    let v: f64 = toks[k].parse().ok()?;
    let mut name: Vec<&str> = toks[..k].to_vec();
    // `Previous IRQ interference: up to 8.93 us`, `(exit from idle)`.
    if name.ends_with(&["up", "to"]) {
        name.truncate(name.len() - 2);
    }
    let joined = name.join(" ");
    let joined = match joined.find(" (exit from idle)") {
        Some(p) => joined[..p].to_string(),
        None => joined,
    };
    if joined.is_empty() {
        return None;
    }
    Some((joined, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_come_off() {
        assert_eq!(
            colourless("  [2;30;47mCPU COUNT      |      cur[0;0;0m"),
            "  CPU COUNT      |      cur"
        );
        assert_eq!(
            colourless("\u{1b}[2;37;40mTimer Latency\u{1b}[0;0;0m"),
            "Timer Latency"
        );
        assert_eq!(colourless("[k] a[1] [x;m] [m"), "[k] a[1] [x;m] [m");
        let r = parse(
            "  [2;37;40m                 Timer Latency                  [0;0;0m\n    0 00:00:01   |          IRQ Timer Latency (us)        |         Thread Timer Latency (us)\n  [2;30;47mCPU COUNT      |      cur       min       avg       max |      cur       min       avg       max[0;0;0m\n    0 #1013      |        1         0         1        54 |        5         2         4        57\n",
        );
        assert_eq!(r.per_cpu.len(), 1);
    }

    #[test]
    fn glued_items() {
        let t = "Previous IRQ interference:\t\t\tup to      2.22 us  IRQ handler delay:\t\t    18.06 us (0.00 %)";
        let (a, b) = split_glued(t).unwrap();
        assert_eq!(
            value_us(a),
            Some(("Previous IRQ interference:".into(), 2.22))
        );
        assert_eq!(value_us(b), Some(("IRQ handler delay:".into(), 18.06)));
        assert!(split_glued("IRQ latency:  18.52 us").is_none());
        assert!(split_glued("Timerlat IRQ duration:  4.41 us (0.00 %)").is_none());
    }

    fn parse(text: &str) -> Rtla {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0) {
            Some(Ok((_, BlockBody::Rtla(r)))) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn value_lines() {
        assert_eq!(
            value_us("IRQ handler delay:                   27.49 us (65.52 %)"),
            Some(("IRQ handler delay:".into(), 27.49))
        );
        assert_eq!(
            value_us("Previous IRQ interference:  up to       8.93 us"),
            Some(("Previous IRQ interference:".into(), 8.93))
        );
        assert_eq!(value_us("Blocking thread stacktrace"), None);
    }

    #[test]
    fn osnoise_top_hard_wrapped_by_a_mailer() {
        // Header and row each cut at about 70 columns, a word and a number
        // cut in two (`Threa` / `d`, `2` / `4`).
        let r = parse(
            "Operating System Noise\n\nduration:   0 00:00:05 | time is in us\n\
             CPU Period       Runtime        Noise  % CPU Aval   Max Noise   Max\n\
             Single          HW          NMI          IRQ      Softirq       Threa\n\
             d\n\
             \x20 0 #4           4000000        37712    99.05720       10998\n\
             555        7624            0         4011           34           2\n\
             4\n",
        );
        let f = &r.per_cpu[0].fields;
        let get = |n: &str| f.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        assert_eq!(get("Max Single"), Some(555.0));
        assert_eq!(get("IRQ"), Some(4011.0));
        assert_eq!(get("Thread"), Some(24.0));
    }

    #[test]
    fn osnoise_top_columns() {
        let r = parse(
            "CPU Period       Runtime        Noise  % CPU Aval   Max Noise   Max Single          HW          NMI          IRQ      Softirq       Thread\n  0 #59         53100000       304896    99.42580        6978           56         549            0        53111         1590           13\n",
        );
        assert_eq!(r.per_cpu[0].count, Some(59));
        assert_eq!(r.per_cpu[0].fields[2], ("% CPU Aval".into(), 99.4258));
        assert_eq!(r.per_cpu[0].fields[3], ("Max Noise".into(), 6978.0));
    }

    #[test]
    fn hist_with_nothing_above_the_threshold_is_a_block() {
        let r = parse(
            "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:05\nIndex\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n",
        );
        assert_eq!((r.tool.as_str(), r.mode.as_str()), ("osnoise", "hist"));
        assert!(r.per_cpu.is_empty() && r.histogram.is_empty());
        // A header alone, without its Index line, is still no report.
        let lines =
            crate::lines::split("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n");
        assert!(matches!(recognize(&lines, 0), Some(Err(_))));
    }
}
