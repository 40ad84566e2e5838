//! The one number formatter of every rendering: HTML pages, the 72-column
//! text, JSON labels and SVG charts all print numbers through these
//! functions, so one permalink never shows the same value two ways.
//!
//! Rules (docs/COMPARING.md, "How numbers are printed"):
//! - microseconds: whole values stay whole, `>= 1000` rounds to a whole
//!   number, `>= 10` gets one decimal, below that two, trailing zeros
//!   dropped (`123.456` -> `123.5`, `1969` -> `1969`, `0.55` -> `0.55`);
//! - table values: two decimals as mmtests prints them, scientific notation
//!   where two decimals would be unreadable;
//! - changes: signed, two decimals; a change that is not zero never prints
//!   as `0.00%` (it gets two significant digits: `+0.0012%`);
//! - p-values: four decimals, scientific below 0.0001;
//! - a spread of identical values is said in words.

/// Microseconds (or any latency-like value) as a kernel developer writes them.
pub fn us(v: f64) -> String {
    if !v.is_finite() {
        return "?".to_string();
    }
    if v.abs() >= 1e9 {
        return format!("{v:.3e}");
    }
    if v == v.round() || v.abs() >= 1000.0 {
        return format!("{:.0}", v.round() + 0.0);
    }
    let s = if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    trim_zeros(&s)
}

fn trim_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    let t = s.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" {
        "0".to_string()
    } else {
        t.to_string()
    }
}

/// A table value as mmtests prints it: two decimals, switching to
/// scientific notation where two decimals would be unreadable or too wide.
pub fn value(v: f64) -> String {
    if !v.is_finite() {
        "?".to_string()
    } else if v != 0.0 && (v.abs() >= 1e9 || v.abs() < 0.01) {
        format!("{v:.3e}")
    } else {
        format!("{:.2}", v + 0.0)
    }
}

/// A value with its unit, for sentences (`4449 us`, `563517 #/s`).
pub fn value_unit(v: f64, unit: &str) -> String {
    let n = if unit_is_time(unit) {
        us(v)
    } else {
        compact(v)
    };
    if unit.is_empty() {
        n
    } else {
        format!("{n} {unit}")
    }
}

/// A number in as few characters as it needs: integers whole, others with
/// up to four significant digits.
pub fn compact(v: f64) -> String {
    if !v.is_finite() {
        return "?".to_string();
    }
    if v == v.round() && v.abs() < 1e15 {
        return format!("{:.0}", v + 0.0);
    }
    if v.abs() >= 1e9 || v.abs() < 1e-3 {
        return format!("{v:.3e}");
    }
    let digits = 4 - (v.abs().log10().floor() as i32 + 1);
    let d = digits.clamp(0, 6) as usize;
    trim_zeros(&format!("{v:.d$}"))
}

pub(crate) fn unit_is_time(unit: &str) -> bool {
    matches!(
        unit,
        "us" | "ns" | "ms" | "s" | "usec" | "usecs" | "msec" | "sec" | "secs" | "seconds"
    )
}

/// A signed change in percent: `+25.93%`, `-2.05%`, `+0.0012%`, `0%`.
/// `None` prints as `n/a`.
pub fn pct(p: Option<f64>) -> String {
    match p {
        None => "n/a".to_string(),
        Some(p) if !p.is_finite() => "n/a".to_string(),
        Some(0.0) => "0%".to_string(),
        Some(p) if p.abs() >= 1e6 => {
            if p > 0.0 {
                ">+1e6%".to_string()
            } else {
                "<-1e6%".to_string()
            }
        }
        Some(p) if p.abs() >= 1000.0 => format!("{p:+.0}%"),
        Some(p) if p.abs() >= 0.005 => format!("{p:+.2}%"),
        Some(p) => {
            // Two significant digits, so a real change never reads as zero.
            let mag = p.abs().log10().floor() as i32;
            let d = (1 - mag).clamp(2, 12) as usize;
            format!("{p:+.d$}%")
        }
    }
}

/// A change rounded to whole percent, for headline sentences (`-93%`);
/// a non-zero change below 0.5% keeps the precise form of [`pct`], and a
/// fall short of -100% keeps the decimals it needs not to read as "gone
/// to zero" (`-99.84%`, not `-100%`).
pub fn pct_whole(p: Option<f64>) -> String {
    match p {
        Some(p) if p.is_finite() && p > -100.0 && p <= -99.5 => (1..=6)
            .map(|d| format!("{p:+.d$}%"))
            .find(|s| !s.starts_with("-100."))
            .unwrap_or_else(|| format!("{p:+.6}%")),
        Some(p) if p.is_finite() && p.abs() >= 0.5 && p.abs() < 1e6 => format!("{p:+.0}%"),
        other => pct(other),
    }
}

/// A p-value: four decimals, scientific below 0.0001.
pub fn p_value(p: f64) -> String {
    if !p.is_finite() {
        "?".to_string()
    } else if p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// A standard deviation; zero spread is said in words.
pub fn spread(sd: Option<f64>) -> String {
    match sd {
        None => "-".to_string(),
        Some(0.0) => "none (identical)".to_string(),
        Some(s) => value(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds() {
        assert_eq!(us(123.456), "123.5");
        assert_eq!(us(1969.0), "1969");
        assert_eq!(us(4449.4), "4449");
        assert_eq!(us(0.55), "0.55");
        assert_eq!(us(11.0), "11");
        assert_eq!(us(2.5), "2.5");
        assert_eq!(us(-0.0), "0");
        assert_eq!(us(f64::NAN), "?");
    }

    #[test]
    fn changes_never_hide_a_change() {
        assert_eq!(pct(Some(0.0)), "0%");
        assert_eq!(pct(Some(-2.0476)), "-2.05%");
        assert_eq!(pct(Some(0.1759)), "+0.18%");
        assert_eq!(pct(Some(0.0012)), "+0.0012%");
        assert_eq!(pct(Some(-0.00004)), "-0.000040%");
        assert_ne!(pct(Some(1e-9)), "+0.00%");
        assert_eq!(pct(None), "n/a");
        assert_eq!(pct_whole(Some(-93.4)), "-93%");
        assert_eq!(pct_whole(Some(0.18)), "+0.18%");
        assert_eq!(pct_whole(Some(-99.84)), "-99.8%");
        assert_eq!(pct_whole(Some(-99.96)), "-99.96%");
        assert_eq!(pct_whole(Some(-100.0)), "-100%");
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(563517.0), "563517");
        assert_eq!(compact(235.584), "235.6");
        assert_eq!(compact(0.07923), "0.07923");
        assert_eq!(value_unit(4449.0, "us"), "4449 us");
        assert_eq!(spread(Some(0.0)), "none (identical)");
    }
}
