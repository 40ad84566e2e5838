//! Numbers on pages, through `reclaimlab_report::fmt`, the one number
//! formatter of every rendering. Handlers call [`fmt_us`] and [`fmt_opt`];
//! templates call the [`Numbers`] methods on their page (`self.us(v)`).

/// A latency in us, as every rendering prints it.
pub fn fmt_us(v: f64) -> String {
    reclaimlab_report::fmt::us(v)
}

/// A latency that may be missing: empty when it is.
pub fn fmt_opt(v: Option<f64>) -> String {
    v.map(fmt_us).unwrap_or_default()
}

/// What a page's template may call to print a number; a page struct takes
/// them all with `impl Numbers for XPage {}`.
pub trait Numbers {
    fn us(&self, v: &f64) -> String {
        fmt_us(*v)
    }
    fn opt(&self, v: &Option<f64>) -> String {
        fmt_opt(*v)
    }
    fn opt_i(&self, v: &Option<i64>) -> String {
        v.map(|x| x.to_string()).unwrap_or_default()
    }
    fn opt_i32(&self, v: &Option<i32>) -> String {
        v.map(|x| x.to_string()).unwrap_or_default()
    }
    /// A stored percentage, two decimals, unsigned as stored.
    fn pct(&self, v: &Option<f64>) -> String {
        v.map(|x| format!("{x:.2}%")).unwrap_or_default()
    }
    /// A value exactly as stored: integers whole, others with every digit.
    fn num(&self, v: &f64) -> String {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{}", *v as i64)
        } else {
            format!("{v}")
        }
    }
}
