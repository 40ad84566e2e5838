//! Output of `time`: the bash builtin (`real 0m49.634s` / `user` / `sys`,
//! also several runs printed side by side), zsh's one-liner, GNU
//! `/usr/bin/time`'s default two lines and its `-v` report.
//!
//! Side-by-side runs become one [`Time`] each, sharing the line span; the
//! column header above them (`w/o patch   w/ patch`) is returned per run so
//! the caller can turn it into a label.

use crate::document::{BlockBody, Time};
use crate::error::ParseError;
use crate::hints;
use crate::lines::Line;
use crate::plain::parse_number_unit;

const FORMAT: &str = "time";

/// A run and the column header it was printed under.
pub type Run = (Time, Option<String>);

/// Recognise one `time` result (the first run when printed side by side).
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    recognize_runs(lines, start).map(|r| {
        r.and_then(|(n, runs)| match runs.into_iter().next() {
            Some((t, _)) => Ok((n, BlockBody::Time(t))),
            None => Err(ParseError::invalid(FORMAT, 0, 0, "a time result", "")),
        })
    })
}

/// Recognise every run of a `time` result starting at `lines[start]`.
pub fn recognize_runs(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, Vec<Run>), ParseError>> {
    let line = lines.get(start)?;
    let t = line.text.trim();
    if t.starts_with("real") {
        if let Some(r) = colon_keyed(lines, start) {
            return Some(Ok(r));
        }
        if let Some(run) = one_line_keyed(t) {
            return Some(Ok((1, vec![(run, None)])));
        }
        return bash(lines, start);
    }
    if let Some(status) = exit_line(t) {
        // GNU time prints how the command ended above its report.
        let next = lines.get(start + 1).filter(|l| l.quote == line.quote)?;
        let next_t = next.text.trim();
        let r = if next_t.starts_with("Command being timed:") {
            gnu_verbose(lines, start + 1).map(|(n, t)| (n, vec![(t, None)]))
        } else {
            Ok(gnu_default(lines, start + 1)?)
        };
        return Some(r.map(|(n, mut runs)| {
            for (run, _) in &mut runs {
                match status {
                    Ended::Status(s) => run.exit_status = Some(s),
                    Ended::Signal(s) => run.signal = Some(s),
                }
            }
            (n + 1, runs)
        }));
    }
    if let Some(r) = fish(lines, start) {
        return Some(Ok(r));
    }
    if let Some(r) = titled(lines, start) {
        return Some(Ok(r));
    }
    // A `-v` report is known by its first lines, or by its elapsed line
    // when a poster kept only a few fields (`Elapsed (wall clock) time
    // (h:mm:ss or m:ss): 3:22.03` over `Maximum resident set size`).
    if t.starts_with("Command being timed:")
        || t.starts_with("User time (seconds):")
        || t.starts_with("Elapsed (wall clock) time (h:mm:ss or m:ss):")
    {
        return Some(gnu_verbose(lines, start).map(|(n, t)| (n, vec![(t, None)])));
    }
    if let Some(t) = gnu_default(lines, start) {
        return Some(Ok(t));
    }
    if let Some(t) = bsd(t) {
        return Some(Ok((1, vec![(t, None)])));
    }
    if let Some(t) = gnu_user_format(t) {
        return Some(Ok((1, vec![(t, None)])));
    }
    zsh(t).or_else(|| tcsh(t)).map(|t| Ok((1, vec![(t, None)])))
}

/// csh / tcsh's `time` line: `7.732u 0.638s 0:07.10 117.7%  0+0k 0+32io
/// 0pf+0w` (user, system, elapsed as a clock, CPU share, then memory, I/O
/// and fault counts, which make it tcsh's and no other line's).
fn tcsh(text: &str) -> Option<Time> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let [u, s, e, p, k, io, pf, ..] = toks.as_slice() else {
        return None;
    };
    let num = |t: &str, suffix: char| t.strip_suffix(suffix).and_then(|n| n.parse::<f64>().ok());
    let counts = |t: &str, suffix: &str| {
        t.strip_suffix(suffix)
            .and_then(|r| r.split_once('+'))
            .is_some_and(|(a, b)| {
                // `0pf+0w`: each count before its own letters.
                let a = a.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                !a.is_empty()
                    && a.bytes().all(|c| c.is_ascii_digit())
                    && b.bytes().all(|c| c.is_ascii_digit())
            })
    };
    if !(counts(k, "k") && counts(io, "io") && counts(pf, "w") && pf.contains("pf+")) {
        return None;
    }
    num(p, '%')?;
    let real = e.contains(':').then(|| clock(e)).flatten()?;
    Some(Time {
        real_s: Some(real),
        user_s: Some(num(u, 'u')?),
        sys_s: Some(num(s, 's')?),
        style: Some("tcsh".into()),
        ..Time::default()
    })
}

/// The BSD / macOS `time` line, also what GNU time prints with a format
/// such as `-f '%e real %U user %S sys %M maxKB'`: `0.14 real  0.02 user
/// 0.02 sys`, every value before its word; words past `sys` are fields.
fn bsd(text: &str) -> Option<Time> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() < 6 || !toks.len().is_multiple_of(2) || toks.get(1) != Some(&"real") {
        return None;
    }
    let mut time = Time::default();
    let (mut real, mut user, mut sys) = (None, None, None);
    for pair in toks.chunks(2) {
        let [value, word] = pair else { return None };
        let v = value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)?;
        if !word
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '%')
        {
            return None;
        }
        match *word {
            "real" => real = Some(v),
            "user" => user = Some(v),
            "sys" => sys = Some(v),
            w => time.fields.push((w.to_string(), v)),
        }
    }
    time.real_s = Some(real?);
    time.user_s = Some(user?);
    time.sys_s = Some(sys?);
    time.style = Some("bsd".into());
    Some(time)
}

/// How a command timed by GNU time ended, when it did not end well.
#[derive(Debug, Clone, Copy)]
enum Ended {
    Status(i32),
    Signal(i32),
}

/// `Command exited with non-zero status 3` / `Command terminated by signal 9`.
fn exit_line(t: &str) -> Option<Ended> {
    if let Some(v) = t.strip_prefix("Command exited with non-zero status ") {
        return v.trim().parse().ok().map(Ended::Status);
    }
    if let Some(v) = t.strip_prefix("Command terminated by signal ") {
        return v.trim().parse().ok().map(Ended::Signal);
    }
    None
}

/// `0m49.634s`, `49.634s`, `1h2m3s`, `0m1,234s` (comma locales), `49.634`.
pub(crate) fn duration(s: &str) -> Option<f64> {
    let s = s.trim().replace(',', ".");
    let mut total = 0.0;
    let mut num = String::new();
    let mut saw_unit = false;
    for c in s.chars() {
        match c {
            '0'..='9' | '.' => num.push(c),
            'h' | 'm' | 's' => {
                let v: f64 = num.parse().ok()?;
                total += v * match c {
                    'h' => 3600.0,
                    'm' => 60.0,
                    _ => 1.0,
                };
                num.clear();
                saw_unit = true;
            }
            _ => return None,
        }
    }
    if !num.is_empty() {
        if saw_unit {
            return None;
        }
        total = num.parse().ok()?;
    }
    (saw_unit || !s.is_empty()).then_some(total)
}

/// `0:49.63`, `1:02:03` (GNU elapsed), in seconds.
fn clock(s: &str) -> Option<f64> {
    let mut total = 0.0;
    for part in s.trim().split(':') {
        let v: f64 = part.parse().ok()?;
        total = total * 60.0 + v;
    }
    Some(total)
}

/// bash's `time` under a `TIMEFORMAT` of one line, each word before its
/// value: `real 0.048 user 0.044 sys 0.004` (or `real 0m0.048s user ...`).
/// `real`, `user` and `sys` once each, nothing else.
fn one_line_keyed(text: &str) -> Option<Time> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() != 6 {
        return None;
    }
    let (mut real, mut user, mut sys) = (None, None, None);
    for pair in toks.chunks(2) {
        let [word, value] = pair else { return None };
        let slot = match *word {
            "real" => &mut real,
            "user" => &mut user,
            "sys" => &mut sys,
            _ => return None,
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(duration(value)?);
    }
    Some(Time {
        real_s: Some(real?),
        user_s: Some(user?),
        sys_s: Some(sys?),
        style: Some("bash".into()),
        ..Time::default()
    })
}

/// The values of `key` on a bash line: `real 0m49.634s real 0m46.334s`,
/// or the key once with a column per run (`real  0m8.939s  0m5.546s`
/// under an `upstream  patched` header), then each value with its unit.
fn keyed_values(text: &str, key: &str) -> Option<Vec<f64>> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() >= 3
        && toks.first() == Some(&key)
        && toks.iter().skip(1).all(|t| t.ends_with('s'))
        && let Some(vs) = toks.iter().skip(1).map(|t| duration(t)).collect()
    {
        return Some(vs);
    }
    if toks.len() < 2 || !toks.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::new();
    for pair in toks.chunks(2) {
        if pair.first() != Some(&key) {
            return None;
        }
        out.push(duration(pair.get(1)?)?);
    }
    Some(out)
}

/// `real: 1.022600` (`user:`, `sys:` / `system:`): one value after a key
/// and a colon, in seconds (`1.02`, `0m1.02s`).
fn colon_value(text: &str, keys: &[&str]) -> Option<f64> {
    let (key, value) = text.trim().split_once(':')?;
    let value = value.trim();
    if !keys.contains(&key.trim()) || value.is_empty() || value.contains(char::is_whitespace) {
        return None;
    }
    duration(value)
}

/// The three lines `real: X` / `user: X` / `sys: X` (or `system:`), as a
/// script that averages `time` runs prints them. All three are needed: one
/// `real: 5` line is prose.
fn colon_keyed(lines: &[Line<'_>], start: usize) -> Option<(usize, Vec<Run>)> {
    let quote = lines.get(start)?.quote;
    let at = |k: usize, keys: &[&str]| {
        lines
            .get(start + k)
            .filter(|l| l.quote == quote)
            .and_then(|l| colon_value(l.text, keys))
    };
    let real = at(0, &["real"])?;
    let user = at(1, &["user"])?;
    let sys = at(2, &["sys", "system"])?;
    let mut run = Time {
        real_s: Some(real),
        user_s: Some(user),
        sys_s: Some(sys),
        ..Time::default()
    };
    // The script's own averages printed right under the three lines
    // (`swapins: 81552`, `zswpwb: 72115.2`) belong to the run.
    let mut n = 3;
    while let Some((name, v)) = lines
        .get(start + n)
        .filter(|l| l.quote == quote)
        .and_then(|l| counter_line(l.text))
    {
        run.fields.push((name, v));
        n += 1;
    }
    Some((n, vec![(run, None)]))
}

/// `swapins: 81552`: one identifier (letters, digits, `_`, `-`, `.`), a
/// colon and a bare number, nothing else on the line.
fn counter_line(text: &str) -> Option<(String, f64)> {
    let (key, value) = text.trim().split_once(':')?;
    let key = key.trim();
    let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if key.is_empty()
        || !key.starts_with(|c: char| c.is_ascii_alphabetic())
        || !key.chars().all(ident)
    {
        return None;
    }
    if ["real", "user", "sys", "system"].contains(&key) {
        return None;
    }
    match parse_number_unit(value.trim())? {
        (v, None) => Some((key.to_string(), v)),
        _ => None,
    }
}

/// One line of a hand-written summary of timed runs: `Sys time: 10730.08
/// (stdev 49.030728)`, `Real time: 159.78 (stdev 0.577193), -6.57%`,
/// `User time: 12.5`. The key (lower-cased, `system` read as `sys`), the
/// value in seconds and the standard deviation when printed in brackets;
/// a change written after a comma is the poster's arithmetic and is left
/// out.
fn titled_value(text: &str) -> Option<(&'static str, f64, Option<f64>)> {
    let (key, rest) = text.trim().split_once(':')?;
    let key = match key.trim().to_ascii_lowercase().as_str() {
        "real time" | "elapsed time" | "wall time" => "real",
        "user time" => "user",
        "sys time" | "system time" => "sys",
        _ => return None,
    };
    let rest = rest.trim();
    let (value, mut tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let value = duration(value.trim_end_matches(','))?;
    tail = tail.trim();
    let mut stdev = None;
    if let Some(inner) = tail.strip_prefix('(') {
        let (inside, after) = inner.split_once(')')?;
        let mut words = inside.split_whitespace();
        let word = words.next()?;
        if !matches!(word, "stdev" | "stddev" | "sd" | "std" | "±" | "+-") {
            return None;
        }
        stdev = Some(duration(words.next()?.trim_end_matches(','))?);
        if words.next().is_some() {
            return None;
        }
        tail = after.trim();
    }
    if let Some(change) = tail.strip_prefix(',') {
        match parse_number_unit(change.trim()) {
            Some((_, Some("%"))) => tail = "",
            _ => return None,
        }
    }
    tail.is_empty().then_some((key, value, stdev))
}

/// Two or three lines of [`titled_value`] in any order, one of them the
/// real time: a run summarised by hand (`Sys time: ...` / `Real time:
/// ...`). The standard deviations go to `fields` as `real stdev` and so
/// on.
fn titled(lines: &[Line<'_>], start: usize) -> Option<(usize, Vec<Run>)> {
    let quote = lines.get(start)?.quote;
    let mut got: Vec<(&'static str, f64, Option<f64>)> = Vec::new();
    while let Some(v) = lines
        .get(start + got.len())
        .filter(|l| l.quote == quote)
        .and_then(|l| titled_value(l.text))
    {
        if got.iter().any(|g| g.0 == v.0) {
            break;
        }
        got.push(v);
    }
    if got.len() < 2 {
        return None;
    }
    let find = |k: &str| got.iter().find(|g| g.0 == k);
    let real = find("real")?;
    let mut run = Time {
        real_s: Some(real.1),
        user_s: find("user").map(|g| g.1),
        sys_s: find("sys").map(|g| g.1),
        ..Time::default()
    };
    for (k, _, sd) in &got {
        if let Some(sd) = sd {
            run.fields.push((format!("{k} stdev"), *sd));
        }
    }
    Some((got.len(), vec![(run, None)]))
}

/// A `-v` value with the poster's note after it (`1:00.21  <---- (1)`,
/// `222324   # peak`): the value alone. Anything else is kept whole.
fn without_note(value: &str) -> &str {
    match value.split_once(char::is_whitespace) {
        Some((v, note))
            if ["<", "#", "(", "--", "←", "//", "*", "^"]
                .iter()
                .any(|m| note.trim_start().starts_with(m)) =>
        {
            v
        }
        _ => value,
    }
}

fn bash(lines: &[Line<'_>], start: usize) -> Option<Result<(usize, Vec<Run>), ParseError>> {
    let first = lines.get(start)?;
    let real = keyed_values(first.text, "real")?;
    let quote = first.quote;
    let mut i = start + 1;
    // Blank lines between `real` and `user` are not printed by bash, but
    // mail clients sometimes add them.
    let next = |key: &str, i: &mut usize| -> Option<Vec<f64>> {
        let l = lines.get(*i).filter(|l| l.quote == quote)?;
        let v = keyed_values(l.text, key)?;
        *i += 1;
        Some(v)
    };
    let user = next("user", &mut i);
    let sys = next("sys", &mut i);
    let n = real.len();
    if user.as_ref().is_some_and(|u| u.len() != n) || sys.as_ref().is_some_and(|s| s.len() != n) {
        let l = lines.get(i.saturating_sub(1))?;
        return Some(Err(ParseError::invalid(
            FORMAT,
            l.no,
            1,
            format!("{n} columns like the `real` line"),
            l.text,
        )));
    }
    let (labels, commands) = headers_above(lines, start, n);
    let runs = (0..n)
        .map(|k| {
            (
                Time {
                    real_s: real.get(k).copied(),
                    user_s: user.as_ref().and_then(|u| u.get(k).copied()),
                    sys_s: sys.as_ref().and_then(|s| s.get(k).copied()),
                    style: Some("bash".into()),
                    fields: Vec::new(),
                    command: commands.get(k).cloned(),
                    ..Time::default()
                },
                labels.get(k).cloned(),
            )
        })
        .collect();
    Some(Ok((i - start, runs)))
}

/// Column headers and commands printed above side-by-side runs:
/// `w/o patch   w/ patch` and `root@10:~# time ./a.out   root@10:~# time ./a.out`.
fn headers_above(lines: &[Line<'_>], start: usize, n: usize) -> (Vec<String>, Vec<String>) {
    let mut labels = Vec::new();
    let mut commands = Vec::new();
    let quote = lines.get(start).map(|l| l.quote).unwrap_or(0);
    let mut seen = 0;
    let mut i = start;
    while i > 0 && seen < 3 {
        i -= 1;
        let Some(l) = lines.get(i).filter(|l| l.quote == quote) else {
            break;
        };
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        seen += 1;
        if commands.is_empty() && t.matches("time ").count() == n {
            commands = t
                .split("time ")
                .skip(1)
                .map(|c| {
                    let words: Vec<&str> = c.split_whitespace().collect();
                    // Drop the next prompt (`root@10:~#`) printed after the command.
                    let keep = match words.last() {
                        Some(w) if w.ends_with(['#', '$']) && words.len() > 1 => words.len() - 1,
                        _ => words.len(),
                    };
                    words.get(..keep).unwrap_or(&[]).join(" ")
                })
                .collect();
            continue;
        }
        if n < 2 || !labels.is_empty() {
            break;
        }
        labels = split_header(t, n);
        break;
    }
    (labels, commands)
}

/// Split a header into `n` column names: by runs of two or more spaces, or
/// by the cue phrases in it when the spacing was lost (flattened archives).
fn split_header(t: &str, n: usize) -> Vec<String> {
    let by_gaps: Vec<String> = t
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if by_gaps.len() == n {
        return by_gaps;
    }
    let cues = hints::cue_matches(t);
    if cues.len() == n {
        return cues.into_iter().map(|(_, p, _)| p).collect();
    }
    let words: Vec<String> = t.split_whitespace().map(str::to_string).collect();
    if words.len() == n {
        return words;
    }
    Vec::new()
}

/// `0.00user 0.00system 0:00.00elapsed 0%CPU (0avgtext+0avgdata 1234maxresident)k`
/// and the optional `0inputs+0outputs (0major+123minor)pagefaults 0swaps`.
fn gnu_default(lines: &[Line<'_>], start: usize) -> Option<(usize, Vec<Run>)> {
    let first = lines.get(start)?;
    let mut t = Time {
        style: Some("gnu".into()),
        ..Time::default()
    };
    let mut saw_elapsed = false;
    for tok in first
        .text
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '+'))
    {
        if tok.is_empty() {
            continue;
        }
        if let Some(v) = tok.strip_suffix("user") {
            t.user_s = Some(v.parse().ok()?);
        } else if let Some(v) = tok.strip_suffix("system") {
            t.sys_s = Some(v.parse().ok()?);
        } else if let Some(v) = tok.strip_suffix("elapsed") {
            t.real_s = Some(clock(v)?);
            saw_elapsed = true;
        } else if let Some(v) = tok.strip_suffix("%CPU") {
            if let Ok(p) = v.parse() {
                t.fields.push(("Percent of CPU".into(), p));
            }
        } else {
            gnu_counter(tok, &mut t.fields);
        }
    }
    if !saw_elapsed || t.user_s.is_none() {
        return None;
    }
    let mut consumed = 1;
    if let Some(l) = lines.get(start + 1).filter(|l| {
        l.quote == first.quote
            && l.text.contains("maxresident)k")
            && !first.text.contains("maxresident")
    }) {
        // The first line wrapped by a mailer before its `NNNmaxresident)k`.
        for tok in l
            .text
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '+'))
        {
            gnu_counter(tok, &mut t.fields);
        }
        consumed = 2;
    }
    if let Some(l) = lines
        .get(start + consumed)
        .filter(|l| l.quote == first.quote && l.text.contains("pagefaults"))
    {
        for tok in l
            .text
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '+'))
        {
            gnu_counter(tok, &mut t.fields);
        }
        consumed += 1;
    }
    Some((consumed, vec![(t, None)]))
}

/// A GNU time `-f` format of a user's own that keeps `%E` with the word
/// `elapsed` after it, as the default format does, or with `real` (the
/// manual's example `%E real, %U user, %S sys`), in a line of
/// comma-separated values each before its words: `0:00.04 elapsed, 0.04
/// s, 0 exit, 1804KB max`. The elapsed time is the run's `real`; `N user`
/// and `N system` (or `sys`) parts are its CPU times. The other parts
/// name what the user's format says, which no reader can know: not read.
fn gnu_user_format(text: &str) -> Option<Time> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() < 2
        || !parts
            .iter()
            .all(|p| p.starts_with(|c: char| c.is_ascii_digit()) && p.contains(' '))
    {
        return None;
    }
    let mut t = Time {
        style: Some("gnu".into()),
        ..Time::default()
    };
    let mut real = None;
    for part in &parts {
        let w: Vec<&str> = part.split_whitespace().collect();
        match w.as_slice() {
            [v, "elapsed"] if v.contains(':') && real.is_none() => real = Some(clock(v)?),
            // The manual's own example: `-f "\t%E real,\t%U user,\t%S sys"`.
            [v, "real"] if real.is_none() => {
                real = Some(if v.contains(':') {
                    clock(v)?
                } else {
                    v.parse().ok()?
                });
            }
            [v, "user"] => t.user_s = Some(v.parse().ok()?),
            [v, "system" | "sys"] => t.sys_s = Some(v.parse().ok()?),
            _ => {}
        }
    }
    t.real_s = Some(real?);
    // `N real` alone names no GNU time format: its CPU times go with it.
    let clocked = parts
        .iter()
        .any(|p| p.contains(':') && p.ends_with(" elapsed"));
    (clocked || t.user_s.is_some() || t.sys_s.is_some()).then_some(t)
}

/// `1234maxresident`, `0inputs`, `123minor`, `0swaps`, ...
fn gnu_counter(tok: &str, fields: &mut Vec<(String, f64)>) {
    let tok = tok.trim_end_matches('k').trim_end_matches(")k");
    let split = tok
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(tok.len());
    let (num, name) = tok.split_at(split);
    if num.is_empty() || name.is_empty() || !name.chars().all(|c| c.is_ascii_alphabetic()) {
        return;
    }
    if let Ok(v) = num.parse() {
        fields.push((name.to_string(), v));
    }
}

/// `/usr/bin/time -v`: `Name: value` lines, tab-indented.
fn gnu_verbose(lines: &[Line<'_>], start: usize) -> Result<(usize, Time), ParseError> {
    let quote = lines.get(start).map(|l| l.quote).unwrap_or(0);
    let mut t = Time {
        style: Some("gnu-verbose".into()),
        ..Time::default()
    };
    let mut saw_elapsed = false;
    let mut i = start;
    let mut end = start;
    loop {
        let Some(l) = lines.get(i).filter(|l| l.quote == quote) else {
            // A quoted report a replier cut into pieces with comments of
            // their own: its fields go on below each comment.
            match crate::lines::resume_after_reply(lines, i, quote, is_verbose_field)
                .filter(|_| end > start && end == i)
            {
                Some(k) => {
                    i = k;
                    end = k;
                    continue;
                }
                None => break,
            }
        };
        // `...` where the poster left fields out.
        if i > start && crate::lines::is_elision(l.text) {
            i += 1;
            continue;
        }
        // A poster's note between two fields (`**** 15% time +` under the
        // Elapsed line): the report goes on at the field below it.
        if i > start
            && !is_verbose_field(l.text)
            && lines
                .get(i + 1)
                .is_some_and(|n| n.quote == quote && is_verbose_field(n.text))
            && !l.text.trim().is_empty()
        {
            i += 1;
            continue;
        }
        let Some((name, value)) = l.text.trim().rsplit_once(": ") else {
            break;
        };
        let name = name.trim();
        let value = value.trim();
        let value = if name == "Command being timed" {
            value
        } else {
            without_note(value)
        };
        let seen_any = t.command.is_some() || saw_elapsed || t.user_s.is_some();
        if seen_any
            && (name == "Command being timed"
                || name == "User time (seconds)" && t.user_s.is_some())
        {
            // The next run's report: two `-v` reports pasted together are
            // two blocks.
            break;
        }
        if name == "Exit status" {
            t.exit_status = value.parse().ok();
            if let Ok(v) = value.parse() {
                t.fields.push((name.to_string(), v));
            }
        } else if name == "Command being timed" {
            t.command = Some(value.trim_matches('"').to_string());
        } else if name.starts_with("Elapsed (wall clock) time") {
            t.real_s = Some(clock(value).ok_or_else(|| {
                ParseError::invalid(
                    FORMAT,
                    l.no,
                    1,
                    "an elapsed time `h:mm:ss` or `m:ss`",
                    value,
                )
            })?);
            saw_elapsed = true;
        } else if name == "User time (seconds)" {
            t.user_s = value.parse().ok();
        } else if name == "System time (seconds)" {
            t.sys_s = value.parse().ok();
        } else if let Some((v, _)) = parse_number_unit(value) {
            t.fields.push((name.to_string(), v));
        } else {
            break;
        }
        i += 1;
        end = i;
    }
    let i = end;
    // A report cut without its elapsed line still holds both CPU times.
    if !saw_elapsed && (t.user_s.is_none() || t.sys_s.is_none()) {
        let l = lines.get(i).or(lines.get(start));
        return Err(ParseError::invalid(
            FORMAT,
            l.map(|l| l.no).unwrap_or(0),
            1,
            "an `Elapsed (wall clock) time` line",
            l.map(|l| l.text).unwrap_or(""),
        ));
    }
    if t.command.is_none() {
        // A report cut above its `User time` line: the command is the one
        // after `time -v` on the line right above, when it was pasted too.
        t.command = start
            .checked_sub(1)
            .and_then(|k| lines.get(k))
            .filter(|l| l.quote == quote)
            .and_then(|l| verbose_command(l.text));
    }
    Ok((i - start, t))
}

/// The fields GNU time's `-v` prints, by the start of their names.
const VERBOSE_FIELDS: &[&str] = &[
    "Command being timed",
    "User time (seconds)",
    "System time (seconds)",
    "Percent of CPU this job got",
    "Elapsed (wall clock) time",
    "Average shared text size",
    "Average unshared data size",
    "Average stack size",
    "Average total size",
    "Maximum resident set size",
    "Average resident set size",
    "Major (requiring I/O) page faults",
    "Minor (reclaiming a frame) page faults",
    "Voluntary context switches",
    "Involuntary context switches",
    "Swaps",
    "File system inputs",
    "File system outputs",
    "Socket messages sent",
    "Socket messages received",
    "Signals delivered",
    "Page size (bytes)",
    "Exit status",
];

/// A line of one of GNU time's `-v` fields (`Swaps: 0`).
fn is_verbose_field(text: &str) -> bool {
    text.trim()
        .split_once(": ")
        .is_some_and(|(name, _)| VERBOSE_FIELDS.iter().any(|f| name.starts_with(f)))
}

/// `CMD` of a `/usr/bin/time -v CMD` (or `time --verbose CMD`) command line,
/// after a shell prompt if any.
fn verbose_command(line: &str) -> Option<String> {
    let t = line.trim();
    let (k, flag) = ["time -v ", "time --verbose "]
        .iter()
        .find_map(|f| t.find(f).map(|k| (k, f.len())))?;
    // `time` is a word of its own: the start of the line, or after a
    // prompt or a path (`/usr/bin/time`).
    if t[..k]
        .chars()
        .next_back()
        .is_some_and(|c| !matches!(c, '/' | ' ' | '$' | '#'))
    {
        return None;
    }
    let cmd = t[k + flag..].trim();
    (!cmd.is_empty()).then(|| cmd.to_string())
}

/// fish's `time`: an underscore rule (optional), then
/// `Executed in  216.10 millis    fish           external` and the
/// `usr time` / `sys time` lines; the first value of each line is the
/// whole job's.
fn fish(lines: &[Line<'_>], start: usize) -> Option<(usize, Vec<Run>)> {
    let first = lines.get(start)?;
    let quote = first.quote;
    let text = |i: usize| {
        lines
            .get(i)
            .filter(|l| l.quote == quote)
            .map(|l| l.text.trim())
    };
    let t = first.text.trim();
    let rule = t.len() >= 20 && t.chars().all(|c| c == '_');
    let at = start + usize::from(rule);
    let value = |line: &str, key: &str| -> Option<f64> {
        let mut toks = line.strip_prefix(key)?.split_whitespace();
        let v = toks.next()?;
        // The decimal point moves in the text: `189.04 millis` is 0.18904.
        match toks.next()? {
            "micros" => crate::units::scaled(v, -6),
            "millis" => crate::units::scaled(v, -3),
            "secs" => crate::units::scaled(v, 0),
            "mins" => Some(crate::units::scaled(v, 0)? * 60.0),
            "hours" => Some(crate::units::scaled(v, 0)? * 3600.0),
            _ => None,
        }
    };
    let real = value(text(at)?, "Executed in")?;
    let user = value(text(at + 1)?, "usr time")?;
    let sys = value(text(at + 2)?, "sys time")?;
    let run = Time {
        real_s: Some(real),
        user_s: Some(user),
        sys_s: Some(sys),
        style: Some("fish".into()),
        ..Time::default()
    };
    Some((at + 3 - start, vec![(run, None)]))
}

/// zsh: `./a.out  0.64s user 47.43s system 96% cpu 49.634 total`.
fn zsh(text: &str) -> Option<Time> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let at = |word: &str| toks.iter().position(|t| *t == word);
    let total = at("total")?;
    let user = at("user")?;
    let system = at("system")?;
    let val = |i: usize| {
        i.checked_sub(1)
            .and_then(|j| toks.get(j))
            .and_then(|s| duration(s))
    };
    // `124.04s (2:04.04) total`: a TIMEFMT with `%*E` and `%E` both.
    let clock_in_parens = total
        .checked_sub(1)
        .and_then(|j| toks.get(j))
        .is_some_and(|t| t.starts_with('(') && t.ends_with(')'));
    // zsh's default `%E` prints the elapsed time as a clock past a
    // minute (`7:26.22 total`).
    let elapsed = |i: usize| {
        val(i).or_else(|| {
            let t = toks.get(i.checked_sub(1)?)?;
            t.contains(':').then(|| clock(t)).flatten()
        })
    };
    let real_s = if clock_in_parens {
        elapsed(total - 1)?
    } else {
        elapsed(total)?
    };
    Some(Time {
        real_s: Some(real_s),
        user_s: Some(val(user)?),
        sys_s: Some(val(system)?),
        style: Some("zsh".into()),
        fields: Vec::new(),
        command: toks
            .get(..user.checked_sub(1)?)
            .map(|w| w.join(" "))
            .filter(|c| !c.is_empty()),
        ..Time::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_timeformat_on_one_line() {
        let t = one_line_keyed("real 0.048 user 0.044 sys 0.004").unwrap();
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.sys_s),
            (0.048, Some(0.044), Some(0.004))
        );
        let t = one_line_keyed("real 0m1.500s user 0m0.044s sys 0m0.004s").unwrap();
        assert_eq!(t.real_s.unwrap(), 1.5);
        assert!(one_line_keyed("real 0.048 real 0.044 sys 0.004").is_none());
        assert!(one_line_keyed("real 0.048 user 0.044 cpu 0.004").is_none());
        assert!(one_line_keyed("real 0m0.048s real 0m0.050s").is_none());
    }

    #[test]
    fn the_command_of_a_cut_verbose_report() {
        assert_eq!(
            verbose_command("/usr/bin/time -v ./make-meson.sh").as_deref(),
            Some("./make-meson.sh")
        );
        assert_eq!(
            verbose_command("$ time --verbose make -j8").as_deref(),
            Some("make -j8")
        );
        assert_eq!(verbose_command("runtime -v foo"), None);
        assert_eq!(verbose_command("/usr/bin/time -v "), None);
    }
    use crate::lines::split;

    #[test]
    fn colon_keyed_averages() {
        let lines = crate::lines::split("real: 1.022600\nuser: 0.135900\nsystem: 0.852600\n");
        let (n, runs) = recognize_runs(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            (runs[0].0.real_s.unwrap(), runs[0].0.sys_s),
            (1.0226, Some(0.8526))
        );
        // One `real:` line alone is prose, not a run.
        let lines = crate::lines::split("real: 5\nthat was quick\n");
        assert!(recognize_runs(&lines, 0).is_none_or(|r| r.is_err()));
    }

    #[test]
    fn counters_under_averages_and_titled_runs() {
        let lines =
            crate::lines::split("real: 236.66s\nuser: 4286.06s\nsys: 652.86s\nswapins: 81552\n\n");
        let (n, runs) = recognize_runs(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 4);
        assert_eq!(runs[0].0.fields, vec![("swapins".to_string(), 81552.0)]);
        let lines = crate::lines::split(
            "Sys time: 9612.24 (stdev 66.310789), -10.42%\nReal time: 159.78 (stdev 0.577193), -6.57%\n",
        );
        let (n, runs) = recognize_runs(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 2);
        let t = &runs[0].0;
        assert_eq!(
            (t.real_s.unwrap(), t.sys_s, t.user_s),
            (159.78, Some(9612.24), None)
        );
        assert_eq!(t.fields[1], ("real stdev".to_string(), 0.577193));
        // A sentence with a colon is not a run, nor is a sys time alone.
        let lines = crate::lines::split("Real time: about a minute\nSys time: 2\n");
        assert!(recognize_runs(&lines, 0).is_none());
        let lines = crate::lines::split("Sys time: 2.5\n");
        assert!(recognize_runs(&lines, 0).is_none());
    }

    #[test]
    fn a_note_after_a_verbose_value() {
        let text = "\tCommand being timed: \"run\"\n\tUser time (seconds): 1.50\n\tSystem time (seconds): 0.25\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:00.21  <---- (1)\n\tExit status: 0\n";
        let lines = crate::lines::split(text);
        let (_, runs) = recognize_runs(&lines, 0).unwrap().unwrap();
        assert_eq!(runs[0].0.real_s.unwrap(), 60.21);
        assert_eq!(runs[0].0.exit_status, Some(0));
    }

    #[test]
    fn side_by_side() {
        let text = "   w/o patch                   w/ patch\nroot@10:~# time ./a.out      root@10:~# time ./a.out\nreal 0m49.634s               real 0m46.334s\nuser 0m0.637s                user 0m0.648s\nsys 0m47.434s                sys 0m44.265s\n";
        let lines = split(text);
        let (n, runs) = recognize_runs(&lines, 2).unwrap().unwrap();
        assert_eq!(n, 3);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].0.real_s.unwrap(), 49.634);
        assert_eq!(runs[1].0.sys_s, Some(44.265));
        assert_eq!(runs[0].1.as_deref(), Some("w/o patch"));
        assert_eq!(runs[1].0.command.as_deref(), Some("./a.out"));
    }

    #[test]
    fn one_key_a_column_per_run() {
        // lore 20250402194425.GB198651@cmpxchg.org
        let text = "         upstream          patched\nreal     0m8.939s         0m5.546s\nuser     0m2.617s         0m2.528s\nsys     0m52.885s        0m30.183s\n";
        let lines = split(text);
        let (n, runs) = recognize_runs(&lines, 1).unwrap().unwrap();
        assert_eq!((n, runs.len()), (3, 2));
        assert_eq!(
            (runs[0].0.real_s.unwrap(), runs[1].0.real_s.unwrap()),
            (8.939, 5.546)
        );
        assert_eq!(runs[1].0.sys_s, Some(30.183));
        assert_eq!(runs[0].1.as_deref(), Some("upstream"));
        assert_eq!(runs[1].1.as_deref(), Some("patched"));
        assert!(keyed_values("real 1 2", "real").is_none());
    }

    #[test]
    fn bsd_time_line() {
        let t = bsd("        0.14 real         0.02 user         0.02 sys").unwrap();
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.sys_s),
            (0.14, Some(0.02), Some(0.02))
        );
        assert_eq!(t.style.as_deref(), Some("bsd"));
        let t = bsd("1.50 real 0.25 user 0.75 sys 1944 maxKB").unwrap();
        assert_eq!(t.fields, vec![("maxKB".to_string(), 1944.0)]);
        assert!(bsd("0.14 real 0.02 user").is_none());
        assert!(bsd("3 real 2 fake 1 sys 4").is_none());
        assert!(bsd("0.1 user 0.2 real 0.3 sys").is_none());
    }

    #[test]
    fn gnu_user_format_with_elapsed() {
        let t = gnu_user_format("0:00.04 elapsed, 0.04 s, 0 exit, 1804KB max, 0 major 305 minor")
            .unwrap();
        assert_eq!((t.real_s.unwrap(), t.user_s, t.sys_s), (0.04, None, None));
        let t = gnu_user_format("1:02.50 elapsed, 3.25 user, 0.50 sys").unwrap();
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.sys_s),
            (62.5, Some(3.25), Some(0.5))
        );
        // A clock is needed before `elapsed`, and every part is a value.
        assert!(gnu_user_format("4 elapsed, 3 user").is_none());
        assert!(gnu_user_format("0:04 elapsed, and then some").is_none());
        assert!(gnu_user_format("0:04 elapsed").is_none());
        let t = gnu_user_format("\t0:00.08 real,\t0.07 user,\t0.01 sys").unwrap();
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.sys_s),
            (0.08, Some(0.07), Some(0.01))
        );
        let t = gnu_user_format("2.50 real, 1.25 user").unwrap();
        assert_eq!((t.real_s.unwrap(), t.user_s), (2.5, Some(1.25)));
        assert!(gnu_user_format("2.50 real, 3 apples").is_none());
    }

    #[test]
    fn a_posters_note_between_verbose_fields() {
        let text = "Command being timed: \"./a.out\"\nUser time (seconds): 36.34\nSystem time (seconds): 276.07\nElapsed (wall clock) time (h:mm:ss or m:ss): 1:22.46\n           **** 15% time +\nMajor (requiring I/O) page faults: 13362810\nExit status: 0\n\nwith the other kernel:\nCommand being timed: \"./a.out\"\nUser time (seconds): 30.00\nSystem time (seconds): 200.00\nElapsed (wall clock) time (h:mm:ss or m:ss): 1:10.00\nExit status: 0\n";
        let doc = crate::parse_str(text, None).unwrap();
        let times: Vec<&Time> = doc
            .blocks
            .iter()
            .filter_map(|b| match &b.body {
                BlockBody::Time(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(times.len(), 2);
        assert_eq!(times[0].exit_status, Some(0));
        assert!(
            times[0]
                .fields
                .iter()
                .any(|(n, v)| n == "Major (requiring I/O) page faults" && *v == 13362810.0)
        );
        assert_eq!(doc.blocks[0].lines, [1, 7]);
    }

    #[test]
    fn a_verbose_report_cut_with_elisions() {
        let text = "$ /usr/bin/time -v pahole -J vmlinux\n    ...\n\tUser time (seconds): 22.29\n\tSystem time (seconds): 0.47\n    ...\n\tMaximum resident set size (kbytes): 714524\n    ...\n\n";
        let lines = split(text);
        let (n, t) = gnu_verbose(&lines, 2).unwrap();
        assert_eq!(n, 4);
        assert_eq!(
            (t.real_s, t.user_s, t.sys_s),
            (None, Some(22.29), Some(0.47))
        );
        assert_eq!(t.command.as_deref(), None);
        // Without both CPU times and without elapsed, it is no run.
        let lines = split(
            "\tUser time (seconds): 22.29\n    ...\n\tMaximum resident set size (kbytes): 714524\n",
        );
        assert!(gnu_verbose(&lines, 0).is_err());
    }

    #[test]
    fn fish_time() {
        let text = "________________________________________________________\nExecuted in    1.50 secs    fish           external\n   usr time  120.00 millis  150.00 micros  119.85 millis\n   sys time   40.00 micros   40.00 micros    0.00 micros\n";
        let lines = split(text);
        let Some(Ok((n, runs))) = recognize_runs(&lines, 0) else {
            panic!()
        };
        assert_eq!(n, 4);
        let t = &runs[0].0;
        assert_eq!((t.real_s.unwrap(), t.style.as_deref()), (1.5, Some("fish")));
        assert!((t.user_s.unwrap() - 0.12).abs() < 1e-12);
        assert!((t.sys_s.unwrap() - 40e-6).abs() < 1e-12);
        // The rule alone, or a line in another unit, is no result.
        assert!(
            recognize_runs(
                &split("________________________________________________________\nnothing\n"),
                0
            )
            .is_none()
        );
        assert!(recognize_runs(&split("Executed in 3 days\n"), 0).is_none());
    }

    #[test]
    fn a_verbose_report_cut_by_a_repliers_comment() {
        let text = "> \tCommand being timed: \"make\"\n> \tUser time (seconds): 10.01\n> \tSystem time (seconds): 2.00\n> \tElapsed (wall clock) time (h:mm:ss or m:ss): 0:13.32\n\nThat much system time?\n\n> \tMaximum resident set size (kbytes): 8120\n> \tMajor (requiring I/O) page faults: 320\n";
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.len(), 1, "{doc:?}");
        let BlockBody::Time(t) = &doc.blocks[0].body else {
            panic!("{doc:?}")
        };
        assert_eq!(t.real_s, Some(13.32));
        let field = |n: &str| t.fields.iter().find(|f| f.0 == n).map(|f| f.1);
        assert_eq!(field("Major (requiring I/O) page faults"), Some(320.0));
    }

    #[test]
    fn tcsh_lines() {
        let t = tcsh("    7.732u 0.638s 0:07.10 117.7%    0+0k 0+32io 0pf+0w").unwrap();
        assert_eq!(
            (t.user_s, t.sys_s, t.real_s),
            (Some(7.732), Some(0.638), Some(7.10))
        );
        assert_eq!(
            tcsh("8.059u 0.697s 1:05.57 13.3%     0+0k 0+15io 0pf+0w")
                .unwrap()
                .real_s,
            Some(65.57)
        );
        assert!(tcsh("7.732u 0.638s 0:07.10 117.7%").is_none());
        assert!(tcsh("a b c d e f g").is_none());
    }

    #[test]
    fn gnu_and_zsh() {
        let lines = split(
            "0.63user 47.43system 0:49.63elapsed 96%CPU (0avgtext+0avgdata 1234maxresident)k\n0inputs+0outputs (0major+123minor)pagefaults 0swaps\n",
        );
        let (n, runs) = recognize_runs(&lines, 0).unwrap().unwrap();
        assert_eq!(n, 2);
        assert_eq!(runs[0].0.real_s.unwrap(), 49.63);
        assert!(
            runs[0]
                .0
                .fields
                .iter()
                .any(|(k, v)| k == "maxresident" && *v == 1234.0)
        );
        assert!(
            runs[0]
                .0
                .fields
                .iter()
                .any(|(k, v)| k == "minor" && *v == 123.0)
        );
        let t = zsh("./a.out  0.64s user 47.43s system 96% cpu 49.634 total").unwrap();
        assert_eq!(t.real_s.unwrap(), 49.634);
        let t = zsh("39.35s user 445.45s system 390% cpu 124.04s (2:04.04) total").unwrap();
        assert_eq!(
            (t.real_s.unwrap(), t.user_s, t.command),
            (124.04, Some(39.35), None)
        );
        assert!(zsh("0.64s user 47.43s system 96% cpu (2:04.04) total").is_none());
        let t =
            zsh("duckdb gha.db -c   3119.93s user 90.86s system 719% cpu 7:26.22 total").unwrap();
        assert_eq!(t.real_s, Some(446.22));
        assert_eq!(t.command.as_deref(), Some("duckdb gha.db -c"));
        assert_eq!(
            zsh("x  1.0s user 1.0s system 9% cpu 1:02:03 total")
                .unwrap()
                .real_s,
            Some(3723.0)
        );
    }
}
