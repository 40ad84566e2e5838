//! rt-tests `hwlatdetect` reports, as printed by every version of the
//! script (the old kernel-module detector and the newer ftrace `hwlat`
//! tracer one):
//!
//! ```text
//! hwlatdetect:  test duration 120 seconds
//!    detector: tracer
//!    parameters:
//!         Latency threshold: 10us
//!         Sample window:     1000000us
//!         Sample width:      500000us
//!      Non-sampling period:  500000us
//!         Output File:       None
//!
//! Starting test
//! test finished
//! Max Latency: 19us
//! Samples recorded: 60
//! Samples exceeding threshold: 61
//! ```
//!
//! One [`Metrics`] block (tool `hwlatdetect`) per report: `test duration`
//! (s), `latency threshold`, `sample window`, `sample width`,
//! `non-sampling period`, `max latency` (us), `samples recorded`,
//! `samples exceeding threshold`, and when printed `mtbf` (s) and `smis
//! during run`. `Max Latency: Below threshold` prints no number: the block
//! then has no `max latency` (the threshold bounds it), never a guessed
//! one. The block starts at the `hwlatdetect:  test duration` line, or at
//! a `Max Latency:` line followed by `Samples recorded:` when only the
//! summary was pasted. The sample lines (`ts: ..., inner:N, outer:N`)
//! give `samples listed` (their number) and `max inner` / `max outer` (us);
//! the per-CPU SMI lines belong to the block and are not read.

use crate::document::{BlockBody, Metric, Metrics};
use crate::error::ParseError;
use crate::lines::Line;
use crate::units;

/// Lines a report may span before its summary (parameters, blank lines,
/// `Starting test`, kernel messages are not expected in between).
const MAX_HEAD_LINES: usize = 24;

/// Sample lines and SMI lines after the summary that still belong to it.
const MAX_TAIL_LINES: usize = 100_000;

fn duration(t: &str) -> Option<f64> {
    let rest = t.strip_prefix("hwlatdetect:")?.trim_start();
    let rest = rest.strip_prefix("test duration")?.trim();
    let n = rest.strip_suffix("seconds")?.trim();
    units::scaled(n, 0)
}

/// `19us` (also `19 us`).
fn micros(v: &str) -> Option<f64> {
    let v = v.trim();
    let n = v.strip_suffix("us").unwrap_or(v).trim();
    units::scaled(n, 0)
}

fn is_summary_start(lines: &[Line<'_>], start: usize) -> bool {
    let t = lines[start].text.trim();
    t.starts_with("Max Latency:")
        && lines
            .get(start + 1)
            .is_some_and(|l| l.text.trim().starts_with("Samples recorded:"))
}

/// Whether a line may sit between the `hwlatdetect:` line and the summary.
fn is_head_line(t: &str) -> bool {
    t.is_empty()
        || t == "parameters:"
        || t == "Starting test"
        || t == "test finished"
        || t.starts_with("detector:")
        || t.starts_with("Output File:")
        || t.starts_with("Latency threshold:")
        || t.starts_with("Sample window:")
        || t.starts_with("Sample width:")
        || t.starts_with("Non-sampling period:")
        || t.starts_with("Hard limit:")
}

/// Whether a line after the summary belongs to the report.
fn is_tail_line(t: &str) -> bool {
    t.starts_with("MTBF:")
        || t.starts_with("SMIs during run:")
        || (t.contains(" SMIs occured on cpu ") || t.contains(" SMIs occurred on cpu "))
        || (t.starts_with("sample data") && t.contains("written to"))
        || (t.starts_with("ts:") && t.contains("inner:") && t.contains("outer:"))
        || t.starts_with("report saved to")
}

/// Recognise a `hwlatdetect` report starting at `lines[start]`.
pub fn recognize(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    let first = lines.get(start)?;
    let t0 = first.text.trim();
    let mut metrics = Vec::new();
    let mut i = start;
    if let Some(d) = duration(t0) {
        metrics.push(Metric::new("test duration", d, Some("s")));
        i += 1;
        let head_end = (start + MAX_HEAD_LINES).min(lines.len());
        while i < head_end {
            let l = &lines[i];
            if l.quote != first.quote {
                return None;
            }
            let t = l.text.trim();
            if t.starts_with("Max Latency:") {
                break;
            }
            if !is_head_line(t) {
                return None;
            }
            for (key, name) in [
                ("Latency threshold:", "latency threshold"),
                ("Sample window:", "sample window"),
                ("Sample width:", "sample width"),
                ("Non-sampling period:", "non-sampling period"),
                ("Hard limit:", "hard limit"),
            ] {
                if let Some(v) = t.strip_prefix(key).and_then(micros) {
                    metrics.push(Metric::new(name, v, Some("us")));
                }
            }
            i += 1;
        }
        if i >= head_end {
            return None;
        }
    } else if !is_summary_start(lines, start) {
        return None;
    }
    // The summary: `Max Latency:`, `Samples recorded:`, `Samples exceeding
    // threshold:`.
    let max = lines[i].text.trim().strip_prefix("Max Latency:")?.trim();
    if let Some(v) = micros(max) {
        metrics.push(Metric::new("max latency", v, Some("us")));
    } else if max != "Below threshold" {
        return None;
    }
    i += 1;
    for (key, name) in [
        ("Samples recorded:", "samples recorded"),
        (
            "Samples exceeding threshold:",
            "samples exceeding threshold",
        ),
    ] {
        let l = lines.get(i)?;
        let v = l.text.trim().strip_prefix(key)?.trim();
        metrics.push(Metric::new(name, units::int(v)? as f64, None));
        i += 1;
    }
    let tail_end = (i + MAX_TAIL_LINES).min(lines.len());
    // The listed samples (`ts: 1646837340.346151918, inner:5, outer:9`).
    let mut listed = 0u64;
    let (mut inner, mut outer) = (None::<f64>, None::<f64>);
    while i < tail_end {
        let l = &lines[i];
        let t = l.text.trim();
        if l.quote != first.quote || !is_tail_line(t) {
            break;
        }
        if let Some(v) = t.strip_prefix("MTBF:") {
            let v = v.trim();
            if let Some(v) = units::scaled(v.strip_suffix("seconds").unwrap_or(v).trim(), 0) {
                metrics.push(Metric::new("mtbf", v, Some("s")));
            }
        } else if t.starts_with("ts:") {
            let field = |k: &str| {
                t.split(',')
                    .find_map(|f| f.trim().strip_prefix(k))
                    .and_then(|v| units::int(v.trim()))
                    .map(|v| v as f64)
            };
            if let (Some(a), Some(b)) = (field("inner:"), field("outer:")) {
                listed += 1;
                inner = Some(inner.map_or(a, |m| m.max(a)));
                outer = Some(outer.map_or(b, |m| m.max(b)));
            }
        } else if let Some(v) = t
            .strip_prefix("SMIs during run:")
            .and_then(|v| units::int(v.trim()))
        {
            metrics.push(Metric::new("smis during run", v as f64, None));
        }
        i += 1;
    }
    if let (Some(a), Some(b)) = (inner, outer) {
        metrics.push(Metric::new("samples listed", listed as f64, None));
        metrics.push(Metric::new("max inner", a, Some("us")));
        metrics.push(Metric::new("max outer", b, Some("us")));
    }
    Some(Ok((
        i - start,
        BlockBody::Metrics(Metrics {
            tool: "hwlatdetect".to_string(),
            metrics,
            runs: None,
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<(usize, Metrics)> {
        let lines = crate::lines::split(text);
        match recognize(&lines, 0)?.ok()? {
            (n, BlockBody::Metrics(m)) => Some((n, m)),
            _ => None,
        }
    }

    fn value(m: &Metrics, name: &str) -> Option<f64> {
        m.metrics.iter().find(|x| x.name == name).map(|x| x.value)
    }

    #[test]
    fn report_with_parameters() {
        let text = "hwlatdetect:  test duration 5 seconds\n   detector: tracer\n   parameters:\n        Latency threshold: 12us\n        Sample window:     1000000us\n        Sample width:      500000us\n     Non-sampling period:  500000us\n        Output File:       None\n\nStarting test\ntest finished\nMax Latency: 31us\nSamples recorded: 4\nSamples exceeding threshold: 4\nts: 1.000000001, inner:31, outer:2, cpu:1\nafter\n";
        let (n, m) = parse(text).unwrap();
        assert_eq!(n, 15);
        assert_eq!(value(&m, "test duration"), Some(5.0));
        assert_eq!(value(&m, "latency threshold"), Some(12.0));
        assert_eq!(value(&m, "max latency"), Some(31.0));
        assert_eq!(value(&m, "samples exceeding threshold"), Some(4.0));
    }

    #[test]
    fn below_threshold_has_no_max() {
        let text =
            "Max Latency: Below threshold\nSamples recorded: 0\nSamples exceeding threshold: 0\n";
        let (n, m) = parse(text).unwrap();
        assert_eq!(n, 3);
        assert_eq!(value(&m, "max latency"), None);
        assert_eq!(value(&m, "samples recorded"), Some(0.0));
    }

    #[test]
    fn not_a_report() {
        assert!(parse("hwlatdetect:  test duration 5 seconds\nsomething else\n").is_none());
        assert!(parse("Max Latency: 3us\nnothing\n").is_none());
        assert!(
            parse("Max Latency: soon\nSamples recorded: 1\nSamples exceeding threshold: 1\n")
                .is_none()
        );
    }

    #[test]
    fn listed_samples_give_their_count_and_maxima() {
        let text = "Max Latency: 48us\nSamples recorded: 3\nSamples exceeding threshold: 3\nts: 1.000000001, inner:5, outer:9\nts: 2.000000001, inner:46, outer:45\nts: 3.000000001, inner:0, outer:47, cpu:2\n";
        let (n, m) = parse(text).unwrap();
        assert_eq!(n, 6);
        assert_eq!(value(&m, "samples listed"), Some(3.0));
        assert_eq!(value(&m, "max inner"), Some(46.0));
        assert_eq!(value(&m, "max outer"), Some(47.0));
        let (_, m) =
            parse("Max Latency: 48us\nSamples recorded: 0\nSamples exceeding threshold: 0\n")
                .unwrap();
        assert_eq!(value(&m, "samples listed"), None);
    }
}
