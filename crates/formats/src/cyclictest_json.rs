//! rt-tests 2.x `cyclictest --json=FILE` output.
//!
//! Owns the JSON layout written by `rt_write_json()` (rt-tests
//! `src/lib/rt-utils.c`) and cyclictest's `write_stats()`: `file_version`,
//! `cmdline:` and `rt_test_version:` (the keys really end in a colon; the
//! colon-less spelling is accepted too), `start_time`, `end_time`,
//! `return_code`, `sysinfo`, `num_threads`, `resolution_in_ns`, and
//! `thread: {"0": {"histogram": {"<bucket>": count}, "cycles", "min", "max",
//! "avg", "cpu", "node"}}`. Produces the same [`Cyclictest`] body as the text
//! output; with `resolution_in_ns: 1` (`-N`) the values are nanoseconds and
//! are converted to microseconds, the printed numbers kept in `original`.
//!
//! The object is found in text by its opening `{` line and taken up to the
//! matching `}`; braces inside strings are not counted.

use serde_json::{Map, Value};

use crate::document::{BlockBody, Cyclictest, CyclictestThread, Histogram, HistogramThread};
use crate::error::ParseError;
use crate::lines::Line;

const FORMAT: &str = "cyclictest_json";

/// Lines searched after `{` for the `"file_version"` key that marks rt-tests JSON.
const KEY_LOOKAHEAD: usize = 3;
/// Upper bound on the lines of one JSON object (a 1M-bucket histogram of
/// many threads stays well below).
const MAX_LINES: usize = 50_000_000;

/// Recognise an rt-tests JSON object starting at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let t = first.text.trim_start();
    if !t.starts_with('{') {
        return None;
    }
    let quote = first.quote;
    let marked = lines[start..]
        .iter()
        .take(KEY_LOOKAHEAD + 1)
        .take_while(|l| l.quote == quote)
        .any(|l| l.text.contains("\"file_version\""));
    if !marked {
        return None;
    }
    let mut depth: i64 = 0;
    let mut in_str = false;
    let mut escaped = false;
    let mut end = None;
    'outer: for (k, line) in lines[start..].iter().enumerate().take(MAX_LINES) {
        if line.quote != quote {
            break;
        }
        for b in line.text.bytes() {
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k);
                        break 'outer;
                    }
                }
                _ => {}
            }
        }
        // A string never spans lines in this format.
        in_str = false;
        escaped = false;
    }
    let Some(end) = end else {
        return Some(Err(ParseError::invalid(
            FORMAT,
            first.no,
            1,
            "a complete JSON object (closing `}`)",
            "end of input",
        )));
    };
    let mut text = String::new();
    for l in &lines[start..=start + end] {
        text.push_str(l.text);
        text.push('\n');
    }
    Some(parse_str(&text, first.no).map(|c| (end + 1, BlockBody::Cyclictest(c))))
}

/// Parse the JSON text of one `--json` file. `first_line` is the line
/// number of its `{` in the whole input, for error positions.
pub fn parse_str(text: &str, first_line: u64) -> Result<Cyclictest, ParseError> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let line = first_line + e.line().saturating_sub(1) as u64;
        let found = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
        ParseError::invalid(
            FORMAT,
            line,
            e.column() as u64,
            format!("valid JSON ({e})"),
            found,
        )
    })?;
    let obj = v.as_object().ok_or_else(|| {
        ParseError::invalid(FORMAT, first_line, 1, "a JSON object", "another JSON value")
    })?;
    let get = |k: &str| obj.get(k).or_else(|| obj.get(&format!("{k}:")));
    let ns = get("resolution_in_ns").and_then(Value::as_u64).unwrap_or(0) == 1;
    let scale = if ns { 0.001 } else { 1.0 };
    let threads_obj = get("thread").and_then(Value::as_object).ok_or_else(|| {
        ParseError::invalid(
            FORMAT,
            first_line,
            1,
            "a `thread` object",
            "no `thread` key",
        )
    })?;
    let mut keyed: Vec<(u32, &Map<String, Value>)> = Vec::new();
    for (k, v) in threads_obj {
        let (Ok(n), Some(t)) = (k.parse::<u32>(), v.as_object()) else {
            return Err(ParseError::invalid(
                FORMAT,
                first_line,
                1,
                "threads keyed by number (`\"0\": {...}`)",
                k,
            ));
        };
        keyed.push((n, t));
    }
    keyed.sort_by_key(|(n, _)| *n);
    let mut threads = Vec::new();
    let mut hist = Vec::new();
    for (n, t) in keyed {
        let num = |k: &str| t.get(k).and_then(Value::as_f64);
        let need = |k: &str| {
            num(k).ok_or_else(|| {
                ParseError::invalid(
                    FORMAT,
                    first_line,
                    1,
                    format!("a numeric `{k}` in thread {n}"),
                    "missing or not a number",
                )
            })
        };
        let (min, avg, max) = (need("min")?, need("avg")?, need("max")?);
        let mut orig = Map::new();
        if ns {
            for k in ["min", "avg", "max"] {
                if let Some(v) = t.get(k) {
                    orig.insert(k.to_string(), v.clone());
                }
            }
        }
        if let Some(node) = t.get("node") {
            orig.insert("node".into(), node.clone());
        }
        threads.push(CyclictestThread {
            thread: n,
            cycles: t.get("cycles").and_then(Value::as_u64),
            min_us: min * scale,
            avg_us: avg * scale,
            max_us: max * scale,
            cpu: t
                .get("cpu")
                .and_then(Value::as_u64)
                .and_then(|c| u32::try_from(c).ok()),
            original: (!orig.is_empty()).then_some(Value::Object(orig)),
            ..CyclictestThread::default()
        });
        if let Some(h) = t.get("histogram").and_then(Value::as_object) {
            let mut buckets: Vec<(f64, u64)> = h
                .iter()
                .filter_map(|(k, v)| Some((k.parse::<u64>().ok()? as f64 * scale, v.as_u64()?)))
                .filter(|(_, c)| *c > 0)
                .collect();
            buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
            let in_buckets: u64 = buckets.iter().map(|b| b.1).sum();
            // The JSON does not print the overflows: every cycle that is in
            // no bucket landed past the last one.
            let overflows = t
                .get("overflows")
                .and_then(Value::as_u64)
                .or_else(|| {
                    let cycles = t.get("cycles").and_then(Value::as_u64)?;
                    Some(cycles.saturating_sub(in_buckets))
                })
                .unwrap_or(0);
            hist.push(HistogramThread {
                thread: n,
                total: Some(in_buckets),
                overflows,
                buckets,
                min_us: Some(min * scale),
                avg_us: Some(avg * scale),
                max_us: Some(max * scale),
                ..HistogramThread::default()
            });
        }
    }
    let has_buckets = hist.iter().any(|h| !h.buckets.is_empty());
    let text_of = |k: &str| get(k).and_then(Value::as_str).map(|s| s.trim().to_string());
    Ok(Cyclictest {
        threads,
        histogram: has_buckets.then_some(Histogram {
            bucket_us: scale,
            per_thread: hist,
        }),
        printed_unit: if ns { "ns" } else { "us" }.to_string(),
        cmdline: text_of("cmdline"),
        rt_tests_version: text_of("rt_test_version"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_rt_tests_json() {
        let lines = crate::lines::split("{\n  \"name\": 1\n}\n");
        assert!(recognize(&lines, 0).is_none());
    }

    #[test]
    fn unterminated_is_an_error() {
        let lines = crate::lines::split("{\n  \"file_version\": 1,\n  \"thread\": {\n");
        let e = recognize(&lines, 0).unwrap().unwrap_err();
        assert_eq!(e.line, 1);
    }

    #[test]
    fn bad_json_points_at_line() {
        let lines = crate::lines::split(
            "x\n{\n  \"file_version\": 1,\n  \"num_threads\": ,\n  \"thread\": {}\n}\n",
        );
        let e = recognize(&lines, 1).unwrap().unwrap_err();
        assert_eq!(e.line, 4);
    }
}
