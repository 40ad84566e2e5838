//! Server-rendered SVG charts: latency histogram overlay (log y), heatmap,
//! bar chart of a metric across columns, and x/y line plot for parameter
//! sweeps.
//!
//! Owns drawing only. Output is a standalone SVG document (`width`, `height`
//! and `viewBox` set, generic `sans-serif` font, no script, no external
//! resources), every text escaped, every coordinate finite: non-finite
//! input values are skipped, never drawn. Deterministic for a given input.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::compare::{Better, Comparison};

/// Canvas size of every chart.
pub const WIDTH: f64 = 720.0;
pub const HEIGHT: f64 = 400.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// Okabe–Ito colours: distinguishable with the common colour-vision
/// deficiencies, which matter for overlaid lines.
const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// A colour for series `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

// ------------------------------------------------------------- inputs

/// One histogram to overlay.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistogramSeries {
    pub label: String,
    /// `(bucket_lower_us, count)`.
    pub buckets: Vec<(f64, u64)>,
}

/// One line of an x/y plot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// One bar: a value and an optional error (e.g. stddev) drawn as a whisker.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
}

/// Rows × columns of values (e.g. boards × kernels of worst-case latency).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Heatmap {
    pub title: String,
    pub unit: String,
    /// Which end of the scale is good (drawn green); the other is red.
    pub better: Better,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `values[row][col]`; `None` (or a missing or non-finite entry) is drawn
    /// as a grey "no data" cell.
    pub values: Vec<Vec<Option<f64>>>,
}

// ------------------------------------------------------------ helpers

/// Escapes text for XML content and attribute values, replacing characters
/// XML 1.0 forbids.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

/// Shortens a label to `n` characters with a trailing '~'.
fn trunc(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut o: String = s.chars().take(n.saturating_sub(1)).collect();
        o.push('~');
        o
    }
}

/// A coordinate, always finite.
fn c(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.1}");
    if s == "-0.0" { "0.0".to_string() } else { s }
}

/// `v` rounded to `digits` significant digits, for legend stops that are
/// computed rather than observed.
fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - 1 - v.abs().log10().floor() as i32);
    let r = (v * scale).round() / scale;
    if r.is_finite() { r } else { v }
}

/// Round tick positions covering `[lo, hi]`, about `target` of them
/// (1, 2, 5 × 10^k steps).
fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (mut lo, mut hi) = (lo, hi);
    if !lo.is_finite() || !hi.is_finite() {
        return vec![0.0, 1.0];
    }
    if hi <= lo {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        lo -= pad;
        hi += pad;
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    if step.is_nan() || step <= 0.0 || !step.is_finite() {
        return vec![lo, hi];
    }
    let first = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    let mut k = 0.0;
    while ticks.len() < 50 {
        let t = first + k * step;
        ticks.push(t);
        if t >= hi - step * 1e-9 {
            break;
        }
        k += 1.0;
    }
    ticks
}

/// A linear scale from a data domain to a pixel range.
#[derive(Clone, Copy)]
struct Scale {
    d0: f64,
    d1: f64,
    r0: f64,
    r1: f64,
}

impl Scale {
    fn map(&self, v: f64) -> f64 {
        let span = self.d1 - self.d0;
        if span == 0.0 || !span.is_finite() {
            return (self.r0 + self.r1) / 2.0;
        }
        self.r0 + (v - self.d0) / span * (self.r1 - self.r0)
    }
}

fn open(out: &mut String, title: &str, w: f64, h: f64) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12" role="img">"#,
        w = c(w),
        h = c(h)
    );
    let _ = write!(out, "<title>{}</title>", escape(title));
    let _ = write!(
        out,
        r##"<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##,
        c(w),
        c(h)
    );
    let _ = write!(
        out,
        r#"<text class="chart-title" x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        c(w / 2.0),
        // About 7.5 px a character at 14 px; 90 on the narrowest chart.
        escape(&trunc(title, ((w / 7.5) as usize).max(90)))
    );
}

fn text(out: &mut String, class: &str, x: f64, y: f64, anchor: &str, s: &str) {
    let _ = write!(
        out,
        r#"<text class="{class}" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#,
        c(x),
        c(y),
        escape(s)
    );
}

fn line(out: &mut String, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
    let _ = write!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}"/>"#,
        c(x1),
        c(y1),
        c(x2),
        c(y2)
    );
}

/// Axis lines, ticks with labels and axis titles. `yticks` are given as
/// (pixel y, label).
fn axes(
    out: &mut String,
    xs: &Scale,
    xticks: &[f64],
    yticks: &[(f64, String)],
    x_title: &str,
    y_title: &str,
) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (HEIGHT - BOTTOM, TOP);
    out.push_str(r#"<g class="axes">"#);
    line(out, x0, y0, x1, y0, "#333333");
    line(out, x0, y0, x0, y1, "#333333");
    out.push_str(r#"<g class="x-ticks">"#);
    for &t in xticks {
        let x = xs.map(t);
        if !(x0 - 0.5..=x1 + 0.5).contains(&x) {
            continue;
        }
        line(out, x, y0, x, y0 + 5.0, "#333333");
        text(
            out,
            "tick x-tick",
            x,
            y0 + 18.0,
            "middle",
            &crate::fmt::compact(t),
        );
    }
    out.push_str(r#"</g><g class="y-ticks">"#);
    for (y, label) in yticks {
        line(out, x0 - 5.0, *y, x0, *y, "#333333");
        line(out, x0, *y, x1, *y, "#eeeeee");
        text(out, "tick y-tick", x0 - 8.0, y + 4.0, "end", label);
    }
    out.push_str("</g>");
    text(
        out,
        "axis-title",
        (x0 + x1) / 2.0,
        HEIGHT - 12.0,
        "middle",
        x_title,
    );
    let _ = write!(
        out,
        r#"<text class="axis-title" x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>"#,
        c((y0 + y1) / 2.0),
        c((y0 + y1) / 2.0),
        escape(y_title)
    );
    out.push_str("</g>");
}

fn legend(out: &mut String, labels: &[String]) {
    out.push_str(r#"<g class="legend">"#);
    let x = WIDTH - RIGHT + 15.0;
    for (i, l) in labels.iter().enumerate().take(20) {
        let y = TOP + 10.0 + i as f64 * 18.0;
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="12" height="12" fill="{}"/>"#,
            c(x),
            c(y - 10.0),
            color(i)
        );
        text(out, "legend-label", x + 18.0, y, "start", &trunc(l, 20));
    }
    out.push_str("</g>");
}

// ----------------------------------------------------------- histogram

/// Overlay of latency histograms: x = latency (us, linear), y = count on a
/// log scale with ticks at 1, 10, 100, ...; one polyline per series (also
/// for an empty one, so series and legend entries always correspond). Empty
/// buckets sit on the bottom axis, below the "1" tick.
pub fn histogram_overlay(title: &str, series: &[HistogramSeries]) -> String {
    let clean: Vec<Vec<(f64, u64)>> = series
        .iter()
        .map(|s| {
            let mut b: Vec<(f64, u64)> = s
                .buckets
                .iter()
                .copied()
                .filter(|(x, _)| x.is_finite())
                .collect();
            b.sort_by(|p, q| p.0.total_cmp(&q.0));
            b
        })
        .collect();
    let xs_all: Vec<f64> = clean.iter().flatten().map(|b| b.0).collect();
    let xmin = xs_all.iter().copied().fold(f64::INFINITY, f64::min);
    let xmax = xs_all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (xmin, xmax) = if xmin.is_finite() {
        (xmin.min(0.0), xmax)
    } else {
        (0.0, 1.0)
    };
    let xticks = nice_ticks(xmin, xmax, 6);
    let xs = Scale {
        d0: xticks.first().copied().unwrap_or(xmin),
        d1: xticks.last().copied().unwrap_or(xmax),
        r0: LEFT,
        r1: WIDTH - RIGHT,
    };
    let cmax = clean
        .iter()
        .flatten()
        .map(|b| b.1)
        .max()
        .unwrap_or(1)
        .max(1);
    let decades = (cmax as f64).log10().ceil().max(1.0) as i32;
    // Domain starts half a decade below 1 so that count 0 is distinguishable
    // from count 1.
    let ys = Scale {
        d0: -0.5,
        d1: f64::from(decades),
        r0: HEIGHT - BOTTOM,
        r1: TOP,
    };
    let yticks: Vec<(f64, String)> = (0..=decades)
        .map(|k| {
            let label = if k < 7 {
                crate::fmt::compact(10f64.powi(k))
            } else {
                format!("1e{k}")
            };
            (ys.map(f64::from(k)), label)
        })
        .collect();
    let mut out = String::new();
    open(&mut out, title, WIDTH, HEIGHT);
    axes(
        &mut out,
        &xs,
        &xticks,
        &yticks,
        "latency (us)",
        "count (log scale)",
    );
    out.push_str(r#"<g class="series">"#);
    for (i, (s, b)) in series.iter().zip(&clean).enumerate() {
        let y_of = |n: u64| {
            if n == 0 {
                ys.map(-0.5)
            } else {
                ys.map((n as f64).log10())
            }
        };
        // Bucket width guess: the smallest gap between bounds, used to drop
        // the line to zero across runs of empty buckets.
        let width = b
            .windows(2)
            .map(|w| w[1].0 - w[0].0)
            .filter(|d| *d > 0.0)
            .fold(f64::INFINITY, f64::min);
        let mut pts: Vec<(f64, f64)> = Vec::new();
        for (k, &(x, n)) in b.iter().enumerate() {
            if k > 0 && width.is_finite() && x - b[k - 1].0 > width * 1.5 {
                pts.push((xs.map(b[k - 1].0 + width), y_of(0)));
                pts.push((xs.map(x - width), y_of(0)));
            }
            pts.push((xs.map(x), y_of(n)));
        }
        let points: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{},{}", c(*x), c(*y)))
            .collect();
        let _ = write!(
            out,
            r#"<polyline class="series-line" data-label="{}" fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
            escape(&s.label),
            color(i),
            points.join(" ")
        );
    }
    out.push_str("</g>");
    legend(
        &mut out,
        &series.iter().map(|s| s.label.clone()).collect::<Vec<_>>(),
    );
    out.push_str("</svg>");
    out
}

/// The histogram overlay of a comparison's latency columns; `None` when no
/// column has a histogram.
pub fn latency_histogram_chart(c: &Comparison) -> Option<String> {
    let lat = c.latency.as_ref()?;
    if lat.histograms.iter().all(Vec::is_empty) {
        return None;
    }
    let series: Vec<HistogramSeries> = c
        .short_labels()
        .into_iter()
        .zip(&lat.histograms)
        .map(|(label, h)| HistogramSeries {
            label,
            buckets: h.clone(),
        })
        .collect();
    Some(histogram_overlay(
        &format!("{}: latency histogram", c.title),
        &series,
    ))
}

// ------------------------------------------------------------- heatmap

/// Colour of a normalised value t in [0, 1], 0 = good (green), 1 = bad (red),
/// through yellow.
fn ramp(t: f64) -> String {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let stops = [(0x1a, 0x98, 0x50), (0xfe, 0xe0, 0x8b), (0xd7, 0x30, 0x27)];
    let (a, b, u) = if t < 0.5 {
        (stops[0], stops[1], t * 2.0)
    } else {
        (stops[1], stops[2], (t - 0.5) * 2.0)
    };
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * u).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// Heatmap of `rows × cols`. Colour runs green (good end) to red (bad end)
/// per `better`; the scale is logarithmic when all values are positive and
/// span two decades or more (worst-case latencies do), linear otherwise.
/// Cells without data are grey with "n/a".
pub fn heatmap(h: &Heatmap) -> String {
    let nr = h.row_labels.len().max(h.values.len());
    let nc = h
        .col_labels
        .len()
        .max(h.values.iter().map(Vec::len).max().unwrap_or(0));
    let get = |r: usize, k: usize| -> Option<f64> {
        h.values
            .get(r)
            .and_then(|row| row.get(k))
            .copied()
            .flatten()
            .filter(|v| v.is_finite())
    };
    let vals: Vec<f64> = (0..nr)
        .flat_map(|r| (0..nc).filter_map(move |k| get(r, k)))
        .collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let log = lo > 0.0 && hi / lo >= 100.0;
    let norm = |v: f64| -> f64 {
        let t = if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
            0.5
        } else if log {
            (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
        } else {
            (v - lo) / (hi - lo)
        };
        match h.better {
            Better::Lower | Better::Neutral => t,
            Better::Higher => 1.0 - t,
        }
    };
    let left = 150.0;
    // Every value is printed whole: the cells are as wide as the widest
    // (the chart grows wider rather than cut a number to "2~").
    let value_chars = vals
        .iter()
        .map(|v| crate::fmt::compact(*v).chars().count())
        .max()
        .unwrap_or(0)
        .max(3);
    let cell_w = ((WIDTH - left - RIGHT) / nc.max(1) as f64)
        .clamp(24.0, 120.0)
        .max(value_chars as f64 * 7.0 + 8.0);
    let chars = ((cell_w - 4.0) / 7.0).floor().max(2.0) as usize;
    // Column labels wider than a cell are turned to read upwards, whole
    // (up to 24 characters), with room above the cells for the longest.
    const LABEL_CHARS: usize = 24;
    let longest = (0..nc)
        .map(|k| h.col_labels.get(k).map_or(0, |l| l.chars().count()))
        .max()
        .unwrap_or(0);
    let turned = longest > chars;
    let top = if turned {
        40.0 + longest.min(LABEL_CHARS) as f64 * 5.0
    } else {
        70.0
    };
    let cell_h = 26.0;
    let w = (left + cell_w * nc as f64 + RIGHT).max(WIDTH);
    // Tall enough for the legend (five swatches, "no data", scale note).
    let hgt = (top + cell_h * nr as f64 + BOTTOM).max(top + 170.0 + BOTTOM);

    let mut out = String::new();
    open(&mut out, &h.title, w, hgt);
    out.push_str(r#"<g class="col-labels">"#);
    for k in 0..nc {
        let label = h.col_labels.get(k).map_or("", String::as_str);
        let x = left + cell_w * (k as f64 + 0.5);
        if turned {
            let _ = write!(
                out,
                r#"<text class="col-label" x="{x}" y="{y}" text-anchor="start" transform="rotate(-45 {x} {y})">{}</text>"#,
                escape(&trunc(label, LABEL_CHARS)),
                x = c(x),
                y = c(top - 8.0),
            );
        } else {
            text(&mut out, "col-label", x, top - 8.0, "middle", label);
        }
    }
    out.push_str(r#"</g><g class="row-labels">"#);
    for r in 0..nr {
        let label = h.row_labels.get(r).map_or("", String::as_str);
        text(
            &mut out,
            "row-label",
            left - 8.0,
            top + cell_h * (r as f64 + 0.5) + 4.0,
            "end",
            &trunc(label, 20),
        );
    }
    out.push_str(r#"</g><g class="cells">"#);
    for r in 0..nr {
        for k in 0..nc {
            let (x, y) = (left + cell_w * k as f64, top + cell_h * r as f64);
            let (class, fill, label) = match get(r, k) {
                Some(v) => ("cell", ramp(norm(v)), crate::fmt::compact(v)),
                None => ("cell nodata", "#dddddd".to_string(), "n/a".to_string()),
            };
            let _ = write!(
                out,
                r##"<rect class="{class}" x="{}" y="{}" width="{}" height="{}" fill="{fill}" stroke="#ffffff"/>"##,
                c(x),
                c(y),
                c(cell_w),
                c(cell_h)
            );
            text(
                &mut out,
                "cell-value",
                x + cell_w / 2.0,
                y + cell_h / 2.0 + 4.0,
                "middle",
                &label,
            );
        }
    }
    out.push_str("</g>");

    // Legend: five swatches from the good end to the bad end, plus no data.
    out.push_str(r#"<g class="legend">"#);
    let lx = w - RIGHT + 20.0;
    text(
        &mut out,
        "legend-title",
        lx,
        top - 8.0,
        "start",
        &trunc(&h.unit, 20),
    );
    if lo.is_finite() {
        for s in 0..5 {
            let t = s as f64 / 4.0;
            let v = if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
                lo
            } else if log {
                (lo.ln() + t * (hi.ln() - lo.ln())).exp()
            } else {
                lo + t * (hi - lo)
            };
            let y = top + s as f64 * 20.0;
            let _ = write!(
                out,
                r#"<rect class="legend-swatch" x="{}" y="{}" width="14" height="14" fill="{}"/>"#,
                c(lx),
                c(y),
                ramp(norm(v))
            );
            text(
                &mut out,
                "legend-label",
                lx + 20.0,
                y + 11.0,
                "start",
                // The ends are observed values, shown exactly.
                &crate::fmt::compact(match s {
                    0 => lo,
                    4 => hi,
                    _ => round_sig(v, 3),
                }),
            );
        }
    }
    let y = top + 5.0 * 20.0;
    let _ = write!(
        out,
        r##"<rect class="legend-swatch nodata" x="{}" y="{}" width="14" height="14" fill="#dddddd"/>"##,
        c(lx),
        c(y)
    );
    text(
        &mut out,
        "legend-label",
        lx + 20.0,
        y + 11.0,
        "start",
        "no data",
    );
    if log {
        text(
            &mut out,
            "legend-label",
            lx,
            y + 34.0,
            "start",
            "log colour scale",
        );
    }
    out.push_str("</g></svg>");
    out
}

// ---------------------------------------------------------------- bars

/// Bar chart of one value per label with optional error whiskers. Bars
/// start at zero; negative values go down.
pub fn bar_chart(title: &str, unit: &str, bars: &[Bar]) -> String {
    let vals: Vec<f64> = bars
        .iter()
        .filter_map(|b| {
            b.value
                .filter(|v| v.is_finite())
                .map(|v| (v, b.error.filter(|e| e.is_finite()).unwrap_or(0.0).abs()))
        })
        .flat_map(|(v, e)| [v + e, v - e, v])
        .collect();
    let lo = vals.iter().copied().fold(0.0, f64::min);
    let hi = vals.iter().copied().fold(0.0, f64::max);
    let ticks = nice_ticks(lo, hi, 5);
    let ys = Scale {
        d0: ticks.first().copied().unwrap_or(0.0),
        d1: ticks.last().copied().unwrap_or(1.0),
        r0: HEIGHT - BOTTOM,
        r1: TOP,
    };
    let n = bars.len().max(1) as f64;
    let slot = (WIDTH - RIGHT - LEFT) / n;
    let xs = Scale {
        d0: 0.0,
        d1: n,
        r0: LEFT,
        r1: WIDTH - RIGHT,
    };
    let mut out = String::new();
    open(&mut out, title, WIDTH, HEIGHT);
    let yticks: Vec<(f64, String)> = ticks
        .iter()
        .map(|&t| (ys.map(t), crate::fmt::compact(t)))
        .collect();
    axes(&mut out, &xs, &[], &yticks, "", unit);
    let chars = ((slot - 4.0) / 7.0).floor().max(2.0) as usize;
    out.push_str(r#"<g class="bars">"#);
    for (i, b) in bars.iter().enumerate() {
        let cx = LEFT + slot * (i as f64 + 0.5);
        text(
            &mut out,
            "bar-label",
            cx,
            HEIGHT - BOTTOM + 18.0,
            "middle",
            &trunc(&b.label, chars),
        );
        let Some(v) = b.value.filter(|v| v.is_finite()) else {
            text(
                &mut out,
                "bar-value nodata",
                cx,
                ys.map(0.0) - 6.0,
                "middle",
                "n/a",
            );
            continue;
        };
        let (y0, y1) = (ys.map(0.0), ys.map(v));
        let _ = write!(
            out,
            r#"<rect class="bar" data-label="{}" x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            escape(&b.label),
            c(cx - slot * 0.35),
            c(y0.min(y1)),
            c(slot * 0.7),
            c((y0 - y1).abs()),
            color(i)
        );
        // The value label goes above the bar and its whisker.
        let mut label_y = y1.min(y0);
        if let Some(e) = b.error.filter(|e| e.is_finite() && *e != 0.0) {
            let (ea, eb) = (ys.map(v - e.abs()), ys.map(v + e.abs()));
            line(&mut out, cx, ea, cx, eb, "#333333");
            line(&mut out, cx - 5.0, ea, cx + 5.0, ea, "#333333");
            line(&mut out, cx - 5.0, eb, cx + 5.0, eb, "#333333");
            label_y = label_y.min(ea).min(eb);
        }
        text(
            &mut out,
            "bar-value",
            cx,
            label_y - 6.0,
            "middle",
            // Times as the text says them (`4449`, not `4449.00`).
            &if crate::fmt::unit_is_time(unit) {
                crate::fmt::us(v)
            } else {
                crate::fmt::value(v)
            },
        );
    }
    out.push_str("</g></svg>");
    out
}

/// Bar chart of metric `metric` (index into `c.metrics`) across the
/// comparison's columns: the chosen mean, stddev as whiskers.
pub fn metric_bar_chart(c: &Comparison, metric: usize) -> Option<String> {
    let m = c.metrics.get(metric)?;
    let bars: Vec<Bar> = c
        .short_labels()
        .into_iter()
        .zip(&m.cells)
        .map(|(label, cell)| Bar {
            label,
            value: cell.mean,
            error: cell.stddev,
        })
        .collect();
    let unit = if m.unit.is_empty() {
        m.stat.clone()
    } else {
        format!("{} ({})", m.stat, m.unit)
    };
    Some(bar_chart(&format!("{} {}", m.stat, m.name), &unit, &bars))
}

// ---------------------------------------------------------------- lines

/// x/y line plot (e.g. a sysctl knob against throughput); one polyline per
/// series with a dot per point, points sorted by x; linear axes.
pub fn line_plot(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let fold = |f: fn(f64, f64) -> f64, init: f64, sel: fn(&(f64, f64)) -> f64| {
        pts.iter().map(sel).fold(init, f)
    };
    let (x0, x1) = (
        fold(f64::min, f64::INFINITY, |p| p.0),
        fold(f64::max, f64::NEG_INFINITY, |p| p.0),
    );
    let (y0, y1) = (
        fold(f64::min, f64::INFINITY, |p| p.1),
        fold(f64::max, f64::NEG_INFINITY, |p| p.1),
    );
    let (x0, x1) = if pts.is_empty() { (0.0, 1.0) } else { (x0, x1) };
    let (y0, y1) = if pts.is_empty() { (0.0, 1.0) } else { (y0, y1) };
    let xt = nice_ticks(x0, x1, 6);
    let yt = nice_ticks(y0, y1, 5);
    let xs = Scale {
        d0: xt.first().copied().unwrap_or(x0),
        d1: xt.last().copied().unwrap_or(x1),
        r0: LEFT,
        r1: WIDTH - RIGHT,
    };
    let ys = Scale {
        d0: yt.first().copied().unwrap_or(y0),
        d1: yt.last().copied().unwrap_or(y1),
        r0: HEIGHT - BOTTOM,
        r1: TOP,
    };
    let mut out = String::new();
    open(&mut out, title, WIDTH, HEIGHT);
    let yticks: Vec<(f64, String)> = yt
        .iter()
        .map(|&t| (ys.map(t), crate::fmt::compact(t)))
        .collect();
    axes(&mut out, &xs, &xt, &yticks, x_label, y_label);
    out.push_str(r#"<g class="series">"#);
    for (i, s) in series.iter().enumerate() {
        let mut p: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        let points: Vec<String> = p
            .iter()
            .map(|(x, y)| format!("{},{}", c(xs.map(*x)), c(ys.map(*y))))
            .collect();
        let _ = write!(
            out,
            r#"<polyline class="series-line" data-label="{}" fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
            escape(&s.label),
            color(i),
            points.join(" ")
        );
        for (x, y) in &p {
            let _ = write!(
                out,
                r#"<circle class="point" cx="{}" cy="{}" r="3" fill="{}"/>"#,
                c(xs.map(*x)),
                c(ys.map(*y)),
                color(i)
            );
        }
    }
    out.push_str("</g>");
    legend(
        &mut out,
        &series.iter().map(|s| s.label.clone()).collect::<Vec<_>>(),
    );
    out.push_str("</svg>");
    out
}
