//! Exact unit conversion of printed decimals. `1.23 ms` is 1230 us, not
//! 1230.0000000000002: the decimal point is moved in the text and the result
//! parsed once, so every value is the `f64` nearest to what was printed.

/// Parse a plain decimal (`-12`, `1.25`, `0.075`, `1,234`) multiplied by
/// `10^pow10`. `None` for anything else (exponents, units, signs alone).
pub fn scaled(text: &str, pow10: i32) -> Option<f64> {
    let t = text.trim();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, t.get(1..)?),
        Some(b'+') => (false, t.get(1..)?),
        _ => (false, t),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let int: String = int.chars().filter(|&c| c != ',').collect();
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 64
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let digits = if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    };
    let exp = i64::from(pow10) - frac.len() as i64;
    let v: f64 = format!("{}{digits}e{exp}", if neg { "-" } else { "" })
        .parse()
        .ok()?;
    v.is_finite().then_some(v)
}

/// A duration printed as `value unit` in microseconds: `ns`, `us`/`usec`/
/// `usecs`/`µs`, `ms`/`msec`/`msecs`, `s`/`sec`/`secs`.
pub fn duration_us(value: &str, unit: &str) -> Option<f64> {
    scaled(value, time_unit_pow10(unit)? + 6)
}

/// Power of ten of a time unit relative to seconds (`ms` is -3).
pub fn time_unit_pow10(unit: &str) -> Option<i32> {
    Some(match unit {
        "ns" | "nsec" | "nsecs" => -9,
        "us" | "µs" | "usec" | "usecs" => -6,
        "ms" | "msec" | "msecs" => -3,
        "s" | "sec" | "secs" => 0,
        _ => return None,
    })
}

/// An unsigned integer with optional thousands separators (`1,234`).
pub fn int(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.is_empty() || t.starts_with(',') || t.ends_with(',') {
        return None;
    }
    let digits: String = t.chars().filter(|&c| c != ',').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A count with a binary suffix as bpftrace prints bucket bounds
/// (`1K` = 1024, `4M`, `2G`) or a decimal one as perf prints sample counts
/// when `binary` is false (`11K` = 11000).
pub fn suffixed(text: &str, binary: bool) -> Option<f64> {
    let t = text.trim();
    let (num, mult) = match t.chars().last()? {
        'K' => (t.get(..t.len() - 1)?, 1u64),
        'M' => (t.get(..t.len() - 1)?, 2),
        'G' => (t.get(..t.len() - 1)?, 3),
        'T' => (t.get(..t.len() - 1)?, 4),
        'P' => (t.get(..t.len() - 1)?, 5),
        _ => (t, 0),
    };
    if binary {
        let base = scaled(num, 0)?;
        let factor = 1024f64.powi(i32::try_from(mult).ok()?);
        let v = base * factor;
        v.is_finite().then_some(v)
    } else {
        scaled(num, i32::try_from(mult * 3).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_scaling() {
        assert_eq!(duration_us("1.23", "ms"), Some(1230.0));
        assert_eq!(duration_us("975", "ns"), Some(0.975));
        assert_eq!(duration_us("2.33", "s"), Some(2_330_000.0));
        assert_eq!(duration_us("45.67", "us"), Some(45.67));
        assert_eq!(scaled("-0.5", 1), Some(-5.0));
        assert_eq!(scaled("1,234", 0), Some(1234.0));
        assert_eq!(scaled("1e5", 0), None);
        assert_eq!(scaled("", 0), None);
        assert_eq!(scaled(".", 0), None);
        assert_eq!(scaled("-", 0), None);
        assert_eq!(duration_us("1", "parsecs"), None);
    }

    #[test]
    fn suffixes() {
        assert_eq!(suffixed("1K", true), Some(1024.0));
        assert_eq!(suffixed("4M", true), Some(4.0 * 1024.0 * 1024.0));
        assert_eq!(suffixed("11K", false), Some(11000.0));
        assert_eq!(suffixed("12", false), Some(12.0));
        assert_eq!(suffixed("K", true), None);
        assert_eq!(int("1,234"), Some(1234));
        assert_eq!(int("12a"), None);
    }
}
