//! Descriptive statistics, significance tests and percentile definitions used
//! by comparisons.
//!
//! Owns the numerical routines only: no knowledge of runs, metrics or
//! rendering. Every function is total: it returns `None` (never panics, never
//! divides by zero) when the input cannot support the statistic, including
//! any non-finite value in the input. Each routine is checked against
//! scipy/numpy in `tests/reference/` (see `gen_reference.py` there).

use serde::{Deserialize, Serialize};

/// `Some(xs)` when `xs` is non-empty and every value is finite.
fn finite(xs: &[f64]) -> Option<&[f64]> {
    if xs.is_empty() || xs.iter().any(|x| !x.is_finite()) {
        None
    } else {
        Some(xs)
    }
}

/// Keep the result only when it is a finite number, so callers never see NaN
/// or infinity produced by overflow.
fn checked(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Arithmetic mean (numpy `mean`).
pub fn amean(xs: &[f64]) -> Option<f64> {
    let xs = finite(xs)?;
    checked(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Harmonic mean (scipy `hmean`). Defined only for strictly positive values:
/// a zero or negative rate makes the harmonic mean meaningless.
pub fn hmean(xs: &[f64]) -> Option<f64> {
    let xs = finite(xs)?;
    if xs.iter().any(|&x| x <= 0.0) {
        return None;
    }
    checked(xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>())
}

/// Geometric mean (scipy `gmean`), computed in log space so that long runs
/// of large values do not overflow. Strictly positive values only.
pub fn gmean(xs: &[f64]) -> Option<f64> {
    let xs = finite(xs)?;
    if xs.iter().any(|&x| x <= 0.0) {
        return None;
    }
    checked((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// Sample variance with n-1 in the denominator (numpy `var(ddof=1)`).
/// Two passes so that large offsets do not cancel.
pub fn variance(xs: &[f64]) -> Option<f64> {
    let xs = finite(xs)?;
    if xs.len() < 2 {
        return None;
    }
    let m = amean(xs)?;
    checked(xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64)
}

/// Sample standard deviation, n-1 denominator (numpy `std(ddof=1)`).
pub fn stddev(xs: &[f64]) -> Option<f64> {
    variance(xs).map(f64::sqrt)
}

/// Coefficient of variation as a fraction: sample stddev / |arithmetic mean|
/// (scipy `variation(ddof=1)` for positive data). `None` for a zero mean.
pub fn coefficient_of_variation(xs: &[f64]) -> Option<f64> {
    let s = stddev(xs)?;
    let m = amean(xs)?;
    if m == 0.0 {
        return None;
    }
    checked(s / m.abs())
}

/// Smallest value.
pub fn min(xs: &[f64]) -> Option<f64> {
    finite(xs)?.iter().copied().reduce(f64::min)
}

/// Largest value.
pub fn max(xs: &[f64]) -> Option<f64> {
    finite(xs)?.iter().copied().reduce(f64::max)
}

fn sorted(xs: &[f64]) -> Option<Vec<f64>> {
    let mut v = finite(xs)?.to_vec();
    v.sort_by(f64::total_cmp);
    Some(v)
}

/// Linear interpolation between closest ranks on already sorted data:
/// numpy's default `percentile(method="linear")`, i.e. Hyndman & Fan type 7.
fn percentile_sorted(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() || !(0.0..=100.0).contains(&q) {
        return None;
    }
    let h = (v.len() - 1) as f64 * q / 100.0;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    let frac = h - lo as f64;
    checked(v[lo] + (v[hi] - v[lo]) * frac)
}

/// Percentile `q` in `[0, 100]` with numpy's default definition
/// (`numpy.percentile(xs, q)`, method "linear", Hyndman & Fan type 7).
pub fn percentile(xs: &[f64], q: f64) -> Option<f64> {
    percentile_sorted(&sorted(xs)?, q)
}

/// Median (numpy `median`).
pub fn median(xs: &[f64]) -> Option<f64> {
    percentile(xs, 50.0)
}

// ------------------------------------------------------------ special functions

/// ln Γ(x) for x > 0: Lanczos approximation (g = 7, 9 terms), about 1e-15
/// relative accuracy, with the reflection formula below 0.5.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const P: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = P[0];
    for (i, p) in P.iter().enumerate().skip(1) {
        a += p / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction for the incomplete beta function (modified Lentz),
/// as in Numerical Recipes `betacf`.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-16;
    let qab = a + b;
    let qap = a + 1.0;
    let qam = a - 1.0;
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// Regularized incomplete beta function I_x(a, b) for a, b > 0.
///
/// The continued fraction converges fast for x < (a+1)/(a+b+2); above that the
/// symmetry I_x(a,b) = 1 - I_{1-x}(b,a) is used. Small results (the tails we
/// care about for p-values) are computed directly, so they keep their
/// relative accuracy.
pub fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> Option<f64> {
    if !(a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite() && (0.0..=1.0).contains(&x)) {
        return None;
    }
    if x == 0.0 {
        return Some(0.0);
    }
    if x == 1.0 {
        return Some(1.0);
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    let r = if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    };
    checked(r.clamp(0.0, 1.0))
}

/// Regularized upper incomplete gamma Q(a, x), series below a+1 and
/// continued fraction above (Numerical Recipes `gser`/`gcf`).
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let gln = ln_gamma(a);
    if x < a + 1.0 {
        let mut ap = a;
        let mut del = 1.0 / a;
        let mut sum = del;
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * (-x + a * x.ln() - gln).exp()
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (-x + a * x.ln() - gln).exp() * h
    }
}

/// Survival function of the standard normal, P(Z > z), accurate in the far
/// tail (erfc through the incomplete gamma function, erfc(y) = Q(1/2, y²)).
pub fn normal_sf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    let y = z / std::f64::consts::SQRT_2;
    if z >= 0.0 {
        0.5 * gamma_q(0.5, y * y)
    } else {
        1.0 - 0.5 * gamma_q(0.5, y * y)
    }
}

/// Two-sided p-value of Student's t distribution with `df` degrees of freedom.
pub fn student_t_two_sided_p(t: f64, df: f64) -> Option<f64> {
    // Written so that NaN fails every test.
    if !t.is_finite() || !df.is_finite() || df.is_nan() || df <= 0.0 {
        return None;
    }
    regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

// ------------------------------------------------------------------ t-test

/// Result of Welch's unequal-variances t-test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// (mean(a) - mean(b)) / standard error, the sign convention of scipy.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Welch's t-test, two-sided: scipy `ttest_ind(a, b, equal_var=False)`.
///
/// `None` when either side has fewer than two values, any value is not
/// finite, or both sides have zero variance (scipy answers NaN there).
pub fn welch_t_test(a: &[f64], b: &[f64]) -> Option<TTest> {
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (ma, mb) = (amean(a)?, amean(b)?);
    let (va, vb) = (variance(a)? / na, variance(b)? / nb);
    let se2 = va + vb;
    if se2.is_nan() || se2 <= 0.0 {
        return None;
    }
    let t = (ma - mb) / se2.sqrt();
    let df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    let p = student_t_two_sided_p(t, df)?;
    Some(TTest { t, df, p })
}

// ------------------------------------------------------------ Mann-Whitney

/// How the Mann-Whitney p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MwMethod {
    /// Exact null distribution of U (no ties, the smaller side ≤ 8).
    Exact,
    /// Normal approximation with tie correction and continuity correction.
    Asymptotic,
}

/// Result of the Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U statistic of the first sample (scipy's `statistic`).
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    pub method: MwMethod,
}

/// Ranks (average rank for ties, 1-based) of `a ++ b`, and the sizes of the
/// tie groups.
fn ranks(all: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut idx: Vec<usize> = (0..all.len()).collect();
    idx.sort_by(|&i, &j| all[i].total_cmp(&all[j]));
    let mut r = vec![0.0; all.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && all[idx[j + 1]] == all[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        ties.push((j - i + 1) as f64);
        i = j + 1;
    }
    (r, ties)
}

/// Exact P(U >= k) under H0 for sample sizes m and n, from the coefficients
/// of the Gaussian binomial [m+n choose m]_q, in exact integer arithmetic.
/// `None` when the counts would not fit (callers fall back to asymptotic).
fn exact_u_sf(m: usize, n: usize, k: u64) -> Option<f64> {
    let (m, n) = (m.min(n), m.max(n));
    let deg = m.checked_mul(n)?;
    if deg > 200_000 {
        return None;
    }
    let mut c = vec![0u128; deg + 1];
    c[0] = 1;
    for i in 1..=m {
        // Divide by (1 - q^i): running sum with stride i.
        for k in i..=deg {
            c[k] = c[k].checked_add(c[k - i])?;
        }
        // Multiply by (1 - q^(n+i)); descending so each term uses old values.
        let s = n + i;
        for k in (s..=deg).rev() {
            c[k] = c[k].checked_sub(c[k - s])?;
        }
    }
    let total: u128 = c.iter().try_fold(0u128, |acc, &x| acc.checked_add(x))?;
    let k = usize::try_from(k).ok()?.min(deg + 1);
    let upper: u128 = c[k..].iter().sum();
    Some(upper as f64 / total as f64)
}

/// Mann-Whitney U test, two-sided, matching scipy
/// `mannwhitneyu(a, b, alternative="two-sided", method="auto")`: the exact
/// distribution when the smaller sample has at most 8 values and there are
/// no ties, otherwise the normal approximation with tie correction and
/// continuity correction (scipy `method="asymptotic"`). One difference: when
/// n1·n2 exceeds 200 000 the exact count is skipped for the approximation,
/// where scipy would still count.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    mann_whitney_u_with(a, b, None)
}

/// Mann-Whitney U test forced to the normal approximation (scipy
/// `method="asymptotic"`, `use_continuity=True`).
pub fn mann_whitney_u_asymptotic(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    mann_whitney_u_with(a, b, Some(MwMethod::Asymptotic))
}

fn mann_whitney_u_with(a: &[f64], b: &[f64], force: Option<MwMethod>) -> Option<MannWhitney> {
    finite(a)?;
    finite(b)?;
    let (n1, n2) = (a.len(), b.len());
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r[..n1].iter().sum();
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
    let u2 = f1 * f2 - u1;
    let u = u1.max(u2);
    let has_ties = ties.iter().any(|&t| t > 1.0);
    let exact_ok = n1.min(n2) <= 8 && !has_ties;
    if force != Some(MwMethod::Asymptotic)
        && exact_ok
        && let Some(sf) = exact_u_sf(n1, n2, u.round() as u64)
    {
        return Some(MannWhitney {
            u: u1,
            p: (2.0 * sf).clamp(0.0, 1.0),
            method: MwMethod::Exact,
        });
    }
    let n = f1 + f2;
    let tie_term: f64 = ties.iter().map(|t| t * t * t - t).sum();
    let s2 = f1 * f2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    // Every value tied: U carries no information, there is no evidence of a
    // shift (scipy answers NaN here).
    let p = if s2 > 0.0 {
        let z = (u - f1 * f2 / 2.0 - 0.5) / s2.sqrt();
        (2.0 * normal_sf(z)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    Some(MannWhitney {
        u: u1,
        p,
        method: MwMethod::Asymptotic,
    })
}

// --------------------------------------------------------------- bootstrap

/// SplitMix64, so bootstrap results are reproducible from a seed on every
/// platform (and in the Python reference).
pub use reclaimlab_splitmix::SplitMix64;

/// Median of finite, non-empty data by selection. Same value as numpy
/// `median`; the oracle of [`Ranked::resample_median`] in the tests.
#[cfg(test)]
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let k = n / 2;
    let (left, mid, _) = v.select_nth_unstable_by(k, f64::total_cmp);
    let hi = *mid;
    if n % 2 == 1 {
        hi
    } else {
        let lo = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        lo + (hi - lo) * 0.5
    }
}

/// A sample with the rank of each value, for bootstrap medians by counting:
/// a resample's median is found from how often each rank was drawn, in
/// O(n) without moving a value. The same draws give the same medians as
/// selecting in a copy of the drawn values (equal values are
/// interchangeable), several times faster for the hundreds of runs a
/// dashboard column holds.
struct Ranked {
    sorted: Vec<f64>,
    /// `rank[i]`: position of the sample's `i`-th value in `sorted`.
    rank: Vec<u32>,
}

impl Ranked {
    fn new(v: &[f64]) -> Ranked {
        let mut order: Vec<u32> = (0..v.len() as u32).collect();
        order.sort_by(|&i, &j| v[i as usize].total_cmp(&v[j as usize]));
        let mut rank = vec![0u32; v.len()];
        for (pos, &i) in order.iter().enumerate() {
            rank[i as usize] = pos as u32;
        }
        Ranked {
            sorted: order.iter().map(|&i| v[i as usize]).collect(),
            rank,
        }
    }

    /// Median of one resample with replacement (n draws from `rng`, in the
    /// order the values are listed): the value numpy's `median` gives for
    /// the drawn values.
    fn resample_median(&self, rng: &mut SplitMix64, counts: &mut [u32]) -> f64 {
        let n = self.rank.len();
        let counts = &mut counts[..n];
        counts.fill(0);
        for _ in 0..n {
            counts[self.rank[rng.below(n)] as usize] += 1;
        }
        // The k-th smallest drawn value (0-based), and the one before it.
        let k = n / 2;
        let (mut seen, mut lo, mut hi) = (0usize, f64::NAN, f64::NAN);
        for (pos, &c) in counts.iter().enumerate() {
            let next = seen + c as usize;
            if k >= 1 && seen < k && k - 1 < next {
                lo = self.sorted[pos];
            }
            if seen <= k && k < next {
                hi = self.sorted[pos];
                break;
            }
            seen = next;
        }
        if n % 2 == 1 { hi } else { lo + (hi - lo) * 0.5 }
    }
}

/// A confidence interval around a point estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    /// Confidence level, e.g. 0.95.
    pub confidence: f64,
}

/// Percentile bootstrap confidence interval for median(b) - median(a).
///
/// Each of `resamples` rounds draws `a` and `b` with replacement
/// (independently, same sizes; a's draws first, then b's), records the
/// difference of medians; the interval is the numpy-linear percentiles at
/// (1-c)/2 and (1+c)/2 of those differences. Deterministic for a given
/// `seed`. `None` for empty or non-finite input, zero resamples or a
/// confidence outside (0, 1).
pub fn bootstrap_median_diff_ci(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> Option<Interval> {
    let (a, b) = (finite(a)?, finite(b)?);
    if resamples == 0 || !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    let estimate = median(b)? - median(a)?;
    let mut rng = SplitMix64::new(seed);
    let mut diffs = Vec::with_capacity(resamples);
    let (ra, rb) = (Ranked::new(a), Ranked::new(b));
    let mut counts = vec![0u32; a.len().max(b.len())];
    for _ in 0..resamples {
        let ma = ra.resample_median(&mut rng, &mut counts);
        let mb = rb.resample_median(&mut rng, &mut counts);
        diffs.push(mb - ma);
    }
    diffs.sort_by(f64::total_cmp);
    let alpha = (1.0 - confidence) / 2.0;
    Some(Interval {
        estimate,
        lo: percentile_sorted(&diffs, alpha * 100.0)?,
        hi: percentile_sorted(&diffs, (1.0 - alpha) * 100.0)?,
        confidence,
    })
}

// ------------------------------------------------------- histogram tails

/// Tail summary of a latency histogram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tails {
    pub count: u64,
    pub p50: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
}

/// Valid buckets (finite bound, non-zero count) sorted by lower bound.
pub(crate) fn clean_buckets(buckets: &[(f64, u64)]) -> Vec<(f64, u64)> {
    let mut v: Vec<(f64, u64)> = buckets
        .iter()
        .copied()
        .filter(|(lo, c)| lo.is_finite() && *c > 0)
        .collect();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    v
}

/// Percentile `q` in `[0, 100]` of a histogram of `(bucket_lower_us, count)`.
///
/// Definition: nearest rank on the bucket lower bounds — the lower bound of
/// the bucket holding the ceil(q/100 · N)-th smallest sample (rank 1 for
/// q = 0), ceil taken on the floating-point product as numpy does. This equals numpy `percentile(samples, q,
/// method="inverted_cdf")` on the samples expanded at their bucket lower
/// bounds. Interpolating inside a bucket would invent precision that a
/// cyclictest histogram (1 us buckets) does not have. Empty buckets and
/// non-finite bounds are ignored.
pub fn histogram_percentile(buckets: &[(f64, u64)], q: f64) -> Option<f64> {
    if !(0.0..=100.0).contains(&q) {
        return None;
    }
    let v = clean_buckets(buckets);
    let total: u128 = v.iter().map(|&(_, c)| u128::from(c)).sum();
    if total == 0 {
        return None;
    }
    // The rank uses numpy's own floating-point steps (q / 100, times N,
    // ceiling), so results agree with numpy even where the decimal q is not
    // exact: 99.9 / 100 is 0.9990000000000001, so p99.9 of 1000 samples is
    // the 1000th, as numpy says.
    let rank = ((total as f64) * (q / 100.0)).ceil();
    let rank = if rank.is_finite() && rank >= 1.0 {
        rank as u128
    } else {
        1
    };
    let mut seen: u128 = 0;
    for &(lo, c) in &v {
        seen += u128::from(c);
        if seen >= rank {
            return Some(lo);
        }
    }
    v.last().map(|&(lo, _)| lo)
}

/// p50, p99, p99.9 and max of a histogram (see [`histogram_percentile`]);
/// max is the lower bound of the highest non-empty bucket.
pub fn histogram_tails(buckets: &[(f64, u64)]) -> Option<Tails> {
    let v = clean_buckets(buckets);
    let count = v.iter().fold(0u64, |acc, &(_, c)| acc.saturating_add(c));
    Some(Tails {
        count,
        p50: histogram_percentile(&v, 50.0)?,
        p99: histogram_percentile(&v, 99.0)?,
        p99_9: histogram_percentile(&v, 99.9)?,
        max: v.last()?.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_inputs_give_none_not_panics() {
        assert_eq!(amean(&[]), None);
        assert_eq!(amean(&[f64::NAN]), None);
        assert_eq!(stddev(&[1.0]), None);
        assert_eq!(hmean(&[1.0, 0.0]), None);
        assert_eq!(gmean(&[-1.0]), None);
        assert_eq!(coefficient_of_variation(&[-1.0, 1.0]), None);
        assert_eq!(welch_t_test(&[1.0, 1.0], &[2.0, 2.0]), None);
        assert_eq!(welch_t_test(&[1.0], &[2.0, 3.0]), None);
        assert_eq!(mann_whitney_u(&[], &[1.0]), None);
        assert_eq!(
            mann_whitney_u(&[1.0, 1.0], &[1.0, 1.0]).map(|m| m.p),
            Some(1.0)
        );
        assert_eq!(bootstrap_median_diff_ci(&[1.0], &[], 10, 0.95, 1), None);
        assert_eq!(bootstrap_median_diff_ci(&[1.0], &[2.0], 10, 1.0, 1), None);
        assert_eq!(histogram_tails(&[]), None);
        assert_eq!(histogram_tails(&[(f64::NAN, 3), (1.0, 0)]), None);
        assert_eq!(percentile(&[1.0], 101.0), None);
        assert_eq!(regularized_incomplete_beta(0.0, 1.0, 0.5), None);
        assert_eq!(student_t_two_sided_p(f64::INFINITY, 3.0), None);
    }

    #[test]
    fn extreme_magnitudes_stay_finite_or_none() {
        let big = [f64::MAX, f64::MAX];
        assert_eq!(amean(&big), None);
        assert!(welch_t_test(&big, &[1.0, 2.0]).is_none());
        let tiny = [1e-300, 2e-300, 3e-300];
        assert!(gmean(&tiny).is_some());
    }

    #[test]
    fn bootstrap_is_deterministic() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 3.0, 4.0, 5.0, 9.0];
        let x = bootstrap_median_diff_ci(&a, &b, 500, 0.95, 42);
        assert_eq!(x, bootstrap_median_diff_ci(&a, &b, 500, 0.95, 42));
        assert_ne!(x, bootstrap_median_diff_ci(&a, &b, 500, 0.95, 43));
    }

    #[test]
    fn resample_medians_by_rank_equal_selection_on_the_drawn_values() {
        // Ties, odd and even sizes, one value, negative numbers.
        let samples: [&[f64]; 5] = [
            &[5.0],
            &[3.0, 1.0],
            &[2.0, 2.0, 7.0, -1.0, 2.0],
            &[9.5, 0.25, 4.0, 4.0, 1e6, -3.0, 8.0, 8.0],
            &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ];
        for (si, v) in samples.iter().enumerate() {
            let ranked = Ranked::new(v);
            let mut counts = vec![0u32; v.len()];
            for seed in 0..200u64 {
                let (mut r1, mut r2) = (SplitMix64::new(seed), SplitMix64::new(seed));
                let by_rank = ranked.resample_median(&mut r1, &mut counts);
                let mut drawn: Vec<f64> = (0..v.len()).map(|_| v[r2.below(v.len())]).collect();
                let by_selection = median_in_place(&mut drawn);
                assert_eq!(
                    by_rank.to_bits(),
                    by_selection.to_bits(),
                    "sample {si} seed {seed}"
                );
                assert_eq!(r1.next_u64(), r2.next_u64(), "same number of draws");
            }
        }
    }
}
